"""The kernel manager of a papermill point (``model.sweep.point.kernel_options``), imported only
when one runs: jupyter_client takes some 0.2 s to import, which an in-process sweep need not pay.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from traitlets import Unicode

from .stops import refuse_if_stopped


class PointKernelManager(AsyncKernelManager):
    """jupyter_client's kernel manager, with the kernel's standard output and error going to a file
    in the point's folder, not to the sweep's terminal: a kernel interrupted as it started printed
    its traceback there after the sweep's one line (the new-user audit). A point that fails says
    the file's last line (``model.sweep.point``). A kernel started for a sweep stopped meanwhile
    is refused once started (``refuse_if_stopped``), and its point ends it."""

    output_file = Unicode(config=True, help="the file the kernel's standard output and error go to")

    async def start_kernel(self, **kw: Any) -> None:
        # the kernel has a descriptor of its own: this one closes once it has started
        with open(self.output_file, "ab") as output:
            await super().start_kernel(stdout=output, stderr=output, **kw)
        refuse_if_stopped(Path(self.output_file).parent)
