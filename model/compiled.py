"""The model's compiled loops (numba) and a cache of them that stays true to their sources.

numba keeps a compiled function in a cache and compiles it again when that function's own module
changes, but not when a function it calls from another module changes, nor a global constant it
read when it was compiled ("Cache invalidation fails to recognize changes in symbols defined in
another file", numba's documentation, Notes on Caching, Caching Limitations). The loops call across
modules (``model.servers.download_loop`` calls ``download_events``, ``nginx_workers`` and
``download_volume`` beside it, and it and ``model.storage.mmap_loop`` both run on
``model.storage.drive_arrays``, which reads ``model.storage.spindle``'s constants), so a cache
shared by every version of the sources would, after an update to one module, run the others' old
code: an answer silently wrong.

So the cache has one folder for each version of the sources (``SOURCES``, with numba's version):
``model/__pycache__/numba/<fingerprint>/``. A process compiles into and loads from the folder of
the sources it imported, and never from another's: a process still running after an update (a
notebook's kernel) keeps its own folder, whatever it compiles later. The folders of the
``KEPT`` most recent versions stay; older ones are removed. With ``NUMBA_CACHE_DIR`` set, the
folders go under it instead (a source tree that cannot be written, shared by several users); where
neither can be written, nothing is cached and each process compiles the loops afresh.

Compiling a loop takes seconds (the download server's about 15, the memory-mapped test's about
10), so a model says so on standard error before the first run that compiles (``announce``): a
first run in a fresh clone, or after an update to the sources, would otherwise seem to hang.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
from pathlib import Path

import numba

from . import provenance

PACKAGE = Path(__file__).parent
# the modules whose functions are compiled (``jit``), each compiled with the others it calls
COMPILED = (
    "storage/drive_arrays.py",
    "servers/download_events.py",
    "servers/nginx_workers.py",
    "servers/download_volume.py",
    "servers/download_loop.py",
    "storage/mmap_loop.py",
)
# everything compiled code is built from: those modules, the constants they import, this file
SOURCES = (*COMPILED, "storage/spindle.py", "compiled.py")
KEPT = 4  # versions of the sources whose compiled code stays cached


def fingerprint(package: Path, sources: tuple[str, ...]) -> str:
    """numba's version and a hash of the ``sources`` (paths under ``package``), names and
    contents."""
    return f"numba {numba.__version__} {provenance.files_fingerprint(package, sources)}"


def cache_root(package: Path, numba_cache_dir: str) -> Path:
    """Where the folders of every version go: ``NUMBA_CACHE_DIR`` when set, else the package's
    ``__pycache__``."""
    base = Path(numba_cache_dir) / "capacity-lab" if numba_cache_dir else package / "__pycache__"
    return base / "numba"


def cache_folder(root: Path, version: str, kept: int = KEPT) -> Path | None:
    """The folder under ``root`` for the compiled code of the sources' ``version``
    (``fingerprint``), made if new, after removing all but the ``kept`` most recently used
    folders; None when it cannot be written, so nothing may be cached."""
    folder = root / hashlib.sha256(version.encode()).hexdigest()[:16]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not os.access(folder, os.W_OK):
            return None
        os.utime(folder)  # used now: the most recent of the folders
        others = sorted(
            (other for other in root.iterdir() if other.is_dir() and other != folder),
            key=lambda other: other.stat().st_mtime,
            reverse=True,
        )
        for old in others[kept - 1 :]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError:
        return None
    return folder


CACHE = cache_folder(cache_root(PACKAGE, numba.config.CACHE_DIR), fingerprint(PACKAGE, SOURCES))


@contextlib.contextmanager
def _numba_cache_dir(folder: Path):
    """numba's cache folder set to ``folder`` while a function is decorated: its cache locator
    reads ``numba.config.CACHE_DIR`` then, and keeps the place for the function's life."""
    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(folder)
    try:
        yield
    finally:
        numba.config.CACHE_DIR = saved


def jit(*signature, **options):
    """numba's ``njit`` as the loops use it: cached in ``CACHE`` (when there is one), and a division
    by zero not checked for (none can happen in them). Used as ``@jit``, ``@jit("sig")`` or
    ``@jit(option=...)``."""
    if signature and callable(signature[0]):  # bare @jit
        return jit(**options)(signature[0])

    def decorate(function):
        if CACHE is None:
            return numba.njit(*signature, error_model="numpy", **options)(function)
        with _numba_cache_dir(CACHE):
            return numba.njit(*signature, cache=True, error_model="numpy", **options)(function)

    return decorate


_checked: set[str] = set()  # the loops this process has looked for in the cache already


def cached(entry: str, folder: Path | None) -> bool:
    """Whether ``folder`` holds the compiled ``entry`` (``module.function``: the function that calls
    the rest of its loop, which numba indexes once it and all it calls are compiled)."""
    return folder is not None and any(folder.rglob(f"{entry}-*.nbi"))


def announce(entry: str, what: str, seconds: int) -> None:
    """One line on standard error, the first time a process is about to compile ``what`` (its
    loop's ``entry``, as ``cached`` takes it, which takes about ``seconds``) because no compiled
    code of this version of the sources is cached; nothing when it is."""
    if entry in _checked:
        return
    _checked.add(entry)
    if cached(entry, CACHE):
        return
    if CACHE is None:
        when = "in every process: no cache folder can be written"
    else:
        when = "once for this version of the sources"
    print(f"compiling {what} {when} (about {seconds} s) ...", file=sys.stderr, flush=True)
