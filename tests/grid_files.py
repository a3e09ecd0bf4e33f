"""What the sweep and YAML tests share: a grid file written from keys, the check that a
mistake is one line and exit 2, and whether a process a sweep started has ended."""

import json

import psutil
import yaml


def ended(pid):
    """Whether process ``pid`` has ended: gone, or a zombie (only its exit status waits to be
    read)."""
    try:
        return psutil.Process(pid).status() in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.NoSuchProcess:
        return True


def grid(tmp_path, **spec):
    """A grid file on ``atlas_intellistation`` (in process) with ``spec``'s keys."""
    data = {"name": "t", "scenario": "atlas_intellistation", "engine": "inprocess"}
    data.update(spec)
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def one_line(result, *needles):
    """``run_cli``'s result is exit 2, nothing on stdout, one line on stderr holding ``needles``."""
    status, out, err = result
    assert status == 2 and out == "" and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    for needle in needles:
        assert needle in err, err


def notebook(path, *sources):
    """A notebook at ``path`` of code cells ``sources``, the first tagged ``parameters``."""
    cells = [
        {
            "id": f"cell{i}",
            "cell_type": "code",
            "metadata": {"tags": ["parameters"] if i == 0 else []},
            "source": text,
            "outputs": [],
            "execution_count": None,
        }
        for i, text in enumerate(sources)
    ]
    metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3"},
        "language_info": {"name": "python"},
    }
    nb = {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))
    return path
