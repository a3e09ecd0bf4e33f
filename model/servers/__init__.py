"""Server and cluster models: the LVS director and its real servers, availability of failover
pairs."""
