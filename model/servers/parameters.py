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
        "settings, which the report does not list (Linux's own default is 128 KiB, the "
        "'default' columns' window). Default: 1024 KiB, a start for the fit, not a source. "
        "Informed by eah_download alone (its 'optimized' columns): a fact the report leaves "
        "unsaid, fitted where it could be a declared unknown of the read-ahead windows Linux "
        "allows; left so because it is the one setting that tells the report's 'optimized' "
        "columns from its 'default' ones",
        # powers of two from the default up: the on-demand windows double up to the limit, so a
        # limit between two of them reads the table's 2,050 kB files in the windows of the lower
        # one or nearly (1536 KiB gives the same windows as 1024)
        levels=tuple(float(2**k) for k in range(7, 15)),
    ),
)
