"""Storage path models: disks, channels and buses, controllers, volumes and streaming processes."""
