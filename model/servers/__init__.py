"""Server and cluster models: the Einstein@home download server (``download``, its compiled loop
and its parts), the microscope ingest (``ingest``), the relay cluster behind an LVS director
(``relay``, ``lvs``) and the availability of failover pairs (``availability``)."""
