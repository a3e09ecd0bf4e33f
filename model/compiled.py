"""The model's compiled loops (numba) and a cache of them that stays true to their sources.

numba keeps a compiled function beside its module (``cache=True``: ``__pycache__/*.nbi`` and
``*.nbc``) and compiles it again when that module's source changes, but not when a function it
calls from another module changes, nor a global constant it read when it was compiled ("Cache
invalidation fails to recognize changes in symbols defined in another file", numba's
documentation, Notes on Caching, Caching Limitations). The loops call across modules (both
``model.servers.download_loop`` and ``model.storage.mmap_loop`` run on
``model.storage.drive_arrays``, which reads ``model.storage.spindle``'s constants), so after an
update to one module the others' cached code would still run the old one: an answer silently
wrong. So every compiled module's cache is dropped whenever the sources in ``SOURCES`` differ from
those the cache was built from, which a stamp file beside the cache records (``refresh``); where
numba would keep its cache elsewhere (``NUMBA_CACHE_DIR`` set, or a source folder that cannot be
written), nothing is cached and each process compiles the loops afresh.
"""

from __future__ import annotations

import os
from pathlib import Path

import numba

from . import provenance

PACKAGE = Path(__file__).parent
# the modules whose functions are compiled (``jit``), each compiled with the others it calls
COMPILED = ("storage/drive_arrays.py", "servers/download_loop.py", "storage/mmap_loop.py")
# everything compiled code is built from: those modules, the constants they import, this file
SOURCES = (*COMPILED, "storage/spindle.py", "compiled.py")
STAMP = "compiled_sources.sha256"


def fingerprint(package: Path, sources: tuple[str, ...]) -> str:
    """numba's version and a hash of the ``sources`` (paths under ``package``), names and
    contents."""
    return f"numba {numba.__version__} {provenance.files_fingerprint(package, sources)}"


def cache_dirs(package: Path, compiled: tuple[str, ...]) -> list[Path]:
    """The ``__pycache__`` folders numba keeps the ``compiled`` modules' code in."""
    return sorted({(package / name).parent / "__pycache__" for name in compiled})


def refresh(package: Path, compiled: tuple[str, ...], sources: tuple[str, ...]) -> bool:
    """Drop the ``compiled`` modules' cached code unless it was built from the ``sources`` as they
    are now, and record what the cache from now on is built from; False when the cache cannot be
    kept there (a folder that cannot be written), so nothing may be cached."""
    now = fingerprint(package, sources)
    stamp = package / "__pycache__" / STAMP
    caches = cache_dirs(package, compiled)
    folders = [stamp.parent, *caches]
    try:
        for folder in folders:
            folder.mkdir(exist_ok=True)
        if not all(os.access(folder, os.W_OK) for folder in folders):
            return False
        if stamp.exists() and stamp.read_bytes() == now.encode():
            return True
        stems = {Path(name).stem for name in compiled}
        for folder in caches:
            for cached in folder.iterdir():
                if cached.suffix in (".nbi", ".nbc") and cached.name.split(".")[0] in stems:
                    cached.unlink(missing_ok=True)
        written = stamp.with_suffix(f".{os.getpid()}")
        written.write_text(now)
        written.replace(stamp)  # atomic: another process reads the old stamp or the new one
    except OSError:
        return False
    return True


# Cached only where numba caches beside the sources (no NUMBA_CACHE_DIR) and that cache is current
CACHING = not numba.config.CACHE_DIR and refresh(PACKAGE, COMPILED, SOURCES)


def jit(*signature, **options):
    """numba's ``njit`` as the loops use it: cached when ``CACHING``, and a division by zero not
    checked for (none can happen in them)."""
    return numba.njit(*signature, cache=CACHING, error_model="numpy", **options)
