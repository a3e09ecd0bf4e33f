"""Free parameters of the server models (calibrated on the Einstein@home download table)."""

from ..freeparameter import FreeParameter

PARAMETERS = (
    FreeParameter(
        "tuned_read_ahead_KiB",
        "KiB",
        1024.0,
        128.0,
        16384.0,
        "the read-ahead window of the Einstein@home server's tuned ('optimized') block-device "
        "settings, which the report does not list; the default is Linux's 128 KiB",
    ),
)
