"""A sweep's Dask cluster as the sweep's client sees it: every worker checked before it gets a
point (``check``), the workers watched as the points run (``Watch``), and the sweep's work ended
on every worker when the sweep stops (``stop``).

A worker must run the sweep's own checkout: the lab importable, the same model code, data and
package versions (``model.sweep.point.lab_fingerprint``), the same files where the grid names
files, and for a papermill grid the same results folder, writable, since its points write their
notebooks there. Each point checks the first two itself (``check_inputs``); a worker that cannot
import the lab cannot even read a point, and closes, leaving the sweep waiting without a word.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .. import paths
from ..errors import one_line
from . import probe
from .point import end_kernels, fingerprint_differs
from .store import Stopped

NO_WORKERS_S = 60.0  # a cluster left this long without a worker stops the sweep
LOOK_EVERY_S = 1.0  # how often the sweep looks at the cluster's workers
ANSWER_S = 60.0  # the longest the sweep waits for the workers to answer a check
STOP_S = 5.0  # the longest a stopped sweep waits for the cluster to cancel, then to end kernels
SILENT_S = 60.0  # the longest the sweep waits for the scheduler to say which workers it has
SHOWN = 3  # the workers a message names at most
# what can be wrong with a worker (``_problems``), the first said first: what it cannot do, then
# what it would compute differently
KINDS = ("silent", "no lab", "other lab", "other files", "other folder")


def within(timeout_s: float, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)``, or TimeoutError when it has not returned within ``timeout_s``
    (a Dask call waits as long as the cluster takes; this one is left running, its thread a
    daemon)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call(*args, **kwargs)
        except BaseException as exc:  # raised again in the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout_s)
    if "error" in outcome:
        raise outcome["error"]
    if "value" not in outcome:
        raise TimeoutError(f"no answer within {timeout_s:g} s")
    return outcome["value"]


class SchedulerSilent(TimeoutError):
    """The scheduler did not answer within ``SILENT_S``: stopped (SIGSTOP), frozen or cut off,
    its connection still open. A kind of ``OSError``, which the sweep takes as a lost scheduler."""


def workers_of(client, scheduler: str) -> set[str]:
    """The addresses of the workers of the cluster at ``scheduler``, as its scheduler tells
    within ``SILENT_S``; else ``SchedulerSilent``. Dask's own call waits as long as the scheduler
    takes: a frozen one had left the sweep printing its "still running" lines for ever (the
    review)."""
    try:
        info = within(SILENT_S, client.scheduler_info)
    except TimeoutError:
        raise SchedulerSilent(
            f"the Dask scheduler at {scheduler} did not answer within {SILENT_S:g} s (stopped, "
            "frozen or cut off)"
        ) from None
    return set(info["workers"])


@contextlib.contextmanager
def marked(out: Path, papermill: bool) -> Iterator[str | None]:
    """A papermill sweep's results folder, with a file in it for the workers to find during the
    block (``probe.MARKER``, holding the text this yields): its points write their notebooks there,
    so each worker must see it as the client does. None, and no file, for an in-process sweep,
    whose records come back to the client."""
    if not papermill:
        yield None
        return
    marker = secrets.token_hex(8)
    file = out / probe.MARKER
    file.write_text(marker)
    try:
        yield marker
    finally:
        file.unlink(missing_ok=True)


def _named(workers: list[str]) -> str:
    """The workers at these addresses, in words, at most ``SHOWN`` of them named."""
    shown = ", ".join(workers[:SHOWN]) + (
        f" and {len(workers) - SHOWN} more" if len(workers) > SHOWN else ""
    )
    return f"the worker{'s' if len(workers) > 1 else ''} at {shown}"


def _versions_apart(theirs: dict[str, str], ours: dict[str, str]) -> str:
    """The package versions a worker has that this process does not: "numpy 2.4.5 (this
    checkout's 2.4.6)"."""
    return ", ".join(
        f"{name} {theirs.get(name)} (this checkout's {version})"
        for name, version in ours.items()
        if theirs.get(name) != version
    )


def _problems(answers: dict[str, Any], lab: str) -> dict[tuple[str, str], list[str]]:
    """Each thing wrong with the workers that answered ``answers`` (worker -> ``probe.report``,
    or what its check raised), as (kind, what ``_said`` tells of it), with the workers it is wrong
    with: what a worker cannot do first (answer, import the lab), then what it would compute
    differently from the sweep (``lab``, its ``lab_fingerprint``)."""
    from .. import provenance

    found: dict[tuple[str, str], list[str]] = {}
    for worker, answer in sorted(answers.items()):
        if isinstance(answer, BaseException):
            problem = ("silent", f"{type(answer).__name__}: {answer}")
        elif answer["unimportable"]:
            problem = ("no lab", answer["unimportable"])
        elif answer["lab"] != lab:
            root = str(paths.PROJECT_ROOT)
            apart = _versions_apart(answer["versions"], provenance.computing_versions())
            problem = (
                "other lab",
                f"other {fingerprint_differs(answer['lab'], lab)} than this checkout, {root}"
                + (f", theirs at {answer['root']}" if answer["root"] != root else "")
                + (f": {apart}" if apart else ""),
            )
        elif answer["changed"]:
            more = len(answer["changed"]) - 1
            shown = paths.shown(Path(answer["changed"][0]))
            problem = ("other files", shown + (f" and {more} more" if more else ""))
        elif answer["folder"]:
            problem = ("other folder", answer["folder"])
        else:
            continue
        found.setdefault(problem, []).append(worker)
    return found


def _said(kind: str, what: str, workers: list[str], out: Path) -> str:
    """The line that tells ``workers`` have the problem ``kind`` (``_problems``'s), and what to
    do."""
    one = len(workers) == 1
    they, s, them = _named(workers), "s" if one else "", "it" if one else "them"
    root = paths.PROJECT_ROOT
    lines = {
        "silent": f"{they} did not answer the sweep's check ({what})",
        "no lab": f"{they} cannot import the lab ({what}): start each `dask worker` with this "
        f"checkout, {root}, at the same path: with PYTHONPATH={root}, or from its environment",
        "other lab": f"{they} run{s} {what} (e.g. started before an edit): restart {them}, e.g. "
        "`client.restart()` or restart `dask worker`, on this checkout",
        "other files": f"{they} read{s} other files than this sweep's ({what} differ there): "
        "give every worker the grid's files at the same paths",
        "other folder": f"{they} see{s} the results folder {paths.shown(out)} otherwise: it "
        f"{what}; a papermill grid's points write their notebooks there, so give --out a folder "
        "every worker shares, at the same path, writable",
    }
    return one_line(lines[kind])


def check(
    client, todo: list[dict[str, Any]], out: Path, marker: str | None, workers=None
) -> tuple[str, str] | None:
    """What is wrong with the cluster's workers (``workers``, else all) for the points ``todo``:
    its kind (``KINDS``) and one line naming the workers; None when each can run them. Each worker
    runs ``probe.report`` at once; one that does not answer within ``ANSWER_S`` is one the sweep
    cannot use."""
    import cloudpickle

    inputs = {file: digest for spec in todo for file, digest in spec["inputs"].items()}
    papermill = todo[0]["engine"] == "papermill"
    cloudpickle.register_pickle_by_value(probe)  # a worker without the lab runs it too
    try:
        answers = within(
            ANSWER_S,
            client.run,
            probe.report,
            inputs,
            str(out) if papermill else None,
            marker,
            workers=workers,
            on_error="return",
        )
    except TimeoutError:
        return "silent", f"the workers did not answer the sweep's check within {ANSWER_S:g} s"
    finally:
        cloudpickle.unregister_pickle_by_value(probe)
    problems = _problems(answers, todo[0]["lab"])
    if not problems:
        return None
    (kind, what), workers = min(problems.items(), key=lambda found: KINDS.index(found[0][0]))
    return kind, _said(kind, what, workers, out)


class Watch:
    """The cluster's workers as the points run, looked at about once a second (``look``, which
    raises ``SchedulerSilent`` where the scheduler does not answer): each
    worker that joins is checked as those at the start were (``check``), and one that fails the
    check stops the sweep, but for one that does not answer (gone again, as a cluster scaling down
    retires workers; a point it runs checks its worker itself); their number goes to ``counted``
    as it changes (the progress line's); and a cluster without a worker for ``NO_WORKERS_S`` stops
    the sweep (a worker that cannot read a point closes: the sweep had waited without a word)."""

    def __init__(
        self,
        client,
        scheduler: str,
        checker: Callable[[list[str]], tuple[str, str] | None],
        checked: set[str],
        counted: Callable[[int], None],
    ) -> None:
        self.client, self.scheduler, self.checker = client, scheduler, checker
        self.checked, self.counted = set(checked), counted
        self.count: int | None = None
        self.next_look = 0.0
        self.empty_since: float | None = None

    def look(self) -> None:
        now = time.monotonic()
        if now < self.next_look:
            return
        self.next_look = now + LOOK_EVERY_S
        workers = workers_of(self.client, self.scheduler)
        if len(workers) != self.count:
            self.count = len(workers)
            self.counted(self.count)
        joined = sorted(workers - self.checked)
        found = self.checker(joined) if joined else None
        if found is not None and found[0] != "silent":
            raise Stopped("--scheduler", None, f"{found[1]}; {_KEPT}")
        self.checked |= set(joined)
        if workers:
            self.empty_since = None
        elif self.empty_since is None:
            self.empty_since = now
        elif now - self.empty_since >= NO_WORKERS_S:
            raise Stopped(
                "--scheduler",
                None,
                f"{self.scheduler} has had no worker for {NO_WORKERS_S:g} s (none started, or "
                f"each closed: see its log); {_KEPT}",
            )


_KEPT = "the points finished are kept, run the sweep again to resume"


def stop(client, running: list, sweep: str) -> None:
    """End the sweep's work on the cluster: its points not started cancelled, and the kernels of
    its papermill points running, or starting, ended on every worker (``end_kernels``, given the
    sweep's token ``sweep``); a point that runs in
    the worker's own process (``inprocess``) runs on to its end, unstoppable in a thread, its
    result dropped. Each call bounded by ``STOP_S``: a cluster that does not answer (a scheduler
    stopped) is left as it is, its kernels running, rather than a Ctrl-C waiting a minute without
    a word (the review)."""
    with contextlib.suppress(Exception):
        within(STOP_S, client.cancel, running)
    with contextlib.suppress(Exception):
        within(STOP_S, client.run, end_kernels, sweep, on_error="ignore")
