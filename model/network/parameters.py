"""Free parameters of the remote database-client model, fitted on ``mdsplus_read``
(``004_892e9be6fdf9fcf4.txt``).

Three parameters on the table's ten result rows. The WAN model has none of its own: its per-frame
CPU cost comes from the literature (``model.settings.NET_CYCLES_PER_FRAME``), its settings from the
report and the tools, its disk arrays from the storage model's parameters.
"""

from ..freeparameter import FreeParameter

PARAMETERS = (
    FreeParameter(
        "mds_serve_cycles_per_byte",
        "cycle",
        150.0,
        10.0,
        1000.0,
        "CPU cycles a data server process (the MDSplus mdsip server or the PTDATA server) spends "
        "per byte of stored record it reads for a client: tree and record lookup, the read "
        "through the file system, building the reply",
    ),
    FreeParameter(
        "tdi_math_cycles_per_value",
        "cycle",
        2000.0,
        100.0,
        20000.0,
        "CPU cycles TDI spends per value evaluating sin(_data)+cos(_data)+tan(_data): three "
        "transcendental functions (x87 FSIN, FCOS and FPTAN alone take several hundred cycles "
        "on a NetBurst Xeon), two array additions and the temporary arrays between them",
    ),
    FreeParameter(
        "server_background_load",
        "1",
        0.3,
        0.0,
        0.8,
        "share of each MDSplus/PTDATA server core taken by other users' work during the "
        "report's production-hours tests (the servers were in daily use); the client machines "
        "are LSF job slots and carry none",
    ),
)
