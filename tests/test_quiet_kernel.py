"""A papermill run's kernels write nothing to the terminal, not even when they are shut down.

jupyter_client shuts a kernel down by interrupting it (SIGINT) before asking it to stop; a kernel
that is still answering a message then logs "KeyboardInterrupt caught in kernel." at ERROR level,
which ``make bench`` printed at the end of its papermill section. The race needs a loaded machine:
several notebooks at once on a pool. The same pool once lost a point to two kernels binding one TCP
port; each kernel now talks over Unix sockets in its own folder (``kernel_options``).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from model import paths
from model.sweep.point import kernel_options

SCRIPT = """
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat
import papermill

from model.sweep.point import kernel_options

folder = Path(sys.argv[1])
nb = nbformat.v4.new_notebook()
nb.cells = [nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]})]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbformat.write(nb, folder / "empty.ipynb")


def one(i):
    (folder / f"k{i}").mkdir()
    papermill.execute_notebook(
        str(folder / "empty.ipynb"), str(folder / f"out{i}.ipynb"), parameters={"x": i},
        **kernel_options(folder / f"k{i}"),
    )


if __name__ == "__main__":
    with ProcessPoolExecutor(4) as pool:
        list(pool.map(one, range(24)))
"""


def test_kernels_shut_down_on_a_pool_print_nothing(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        cwd=paths.PROJECT_ROOT,
        env={"PYTHONPATH": str(paths.PROJECT_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert len(list(tmp_path.glob("out*.ipynb"))) == 24
    assert "KeyboardInterrupt" not in done.stderr + done.stdout, done.stderr


@pytest.mark.skipif(os.name != "posix", reason="ZeroMQ has no Unix sockets on Windows")
def test_each_kernel_talks_over_sockets_in_its_own_folder(tmp_path):
    config = kernel_options(tmp_path)["config"]["KernelManager"]
    assert config["transport"] == "ipc"
    assert Path(config["ip"]).parent == tmp_path


def test_a_folder_too_deep_for_a_unix_socket_keeps_the_kernel_on_tcp(tmp_path):
    """Under a long TMPDIR the kernel failed to bind its socket and printed a ZMQError traceback."""
    deep = tmp_path / ("d" * 120)
    assert "transport" not in kernel_options(deep)["config"]["KernelManager"]


@pytest.mark.parametrize("depth", [1, 120])
def test_a_kernel_that_hangs_at_exit_is_stopped_within_the_sweeps_wait(tmp_path, depth):
    """jupyter_client's own wait is 5 s (2.5 s before SIGTERM); the sweep's reaches the manager
    papermill builds, on Unix sockets and on TCP alike (a misspelt option would be ignored)."""
    from jupyter_client.manager import KernelManager

    from model.sweep.point import KERNEL_SHUTDOWN_WAIT_S

    options = kernel_options(tmp_path / ("d" * depth))
    manager = KernelManager(config=options["config"], kernel_name=options["kernel_name"])
    assert manager.shutdown_wait_time == KERNEL_SHUTDOWN_WAIT_S < KernelManager().shutdown_wait_time


def test_a_point_kernel_keeps_tornado_quiet_and_its_namespace_clean(tmp_path):
    """A Ctrl-C that stopped a kernel in mid-reply printed tornado's 'Uncaught exception in
    ZMQStream callback' traceback on the sweep's terminal."""
    import json

    import nbformat
    import papermill

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell(
            "import logging\nprint(logging.getLogger('tornado').disabled, '_l' in dir())"
        ),
    ]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, tmp_path / "in.ipynb")
    papermill.execute_notebook(
        str(tmp_path / "in.ipynb"), str(tmp_path / "out.ipynb"), **kernel_options(tmp_path)
    )
    cell = json.loads((tmp_path / "out.ipynb").read_text())["cells"][-1]
    assert cell["outputs"][0]["text"] == ["True False\n"]
