"""The validation figure (report.ratio_figure) rings each measurement outside its 90 % interval,
as the notebook's Einstein@home panel does: the overview had drawn its four unringed."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402

from model import report  # noqa: E402


def _rows(**changes):
    base = {
        "table": "t",
        "predicted": 100.0,
        "measured": 105.0,
        "relative_to": "",
        "bound": "",
        "interval_90_low": 90.0,
        "interval_90_high": 110.0,
    }
    return pd.DataFrame([base, {**base, **changes}])


def _rings(frame):
    fig = report.ratio_figure(frame)
    try:
        ax = fig.axes[0]
        return sum(
            len(c.get_offsets())
            for c in ax.collections
            if isinstance(c, PathCollection)
            and len(c.get_facecolors()) == 0
            and len(c.get_offsets())
        )
    finally:
        plt.close(fig)


def test_a_measurement_outside_its_interval_is_ringed():
    assert _rings(_rows(measured=120.0)) == 1
    assert _rings(_rows(measured=80.0)) == 1


def test_one_inside_its_interval_or_a_bound_is_not():
    assert _rings(_rows(measured=109.0)) == 0
    assert _rings(_rows(measured=120.0, bound="lower")) == 0
