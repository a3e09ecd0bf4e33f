"""Storage path models: disks, channels and buses, controllers, volumes and streaming processes.

The ``storage`` model's record and its simulation are in ``simulation``; the package itself imports
nothing, so that its free parameters (``parameters``) are read without the model
(``model.registry``).
"""
