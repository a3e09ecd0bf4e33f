"""Every path the project uses, derived from one root (never from the working directory)."""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DATA = PROJECT_ROOT / "data"
MEASURED = DATA / "measured"
HARDWARE = DATA / "hardware"
SCENARIOS = DATA / "scenarios"
CALIBRATED = DATA / "calibrated"
CALIBRATED_PARAMETERS = CALIBRATED / "parameters.json"
REPORTS = PROJECT_ROOT / "reports"
NOTEBOOKS = PROJECT_ROOT / "notebooks"


def shown(path: Path) -> str:
    """A path as a user should read it in a message: relative to the project when inside it."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return str(path)
