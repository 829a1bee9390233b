"""An exclusive lock on a file across processes: work that several processes may start at once
(pytest or Dask workers, two shells) is done by one of them while the others wait and then read
what it wrote. POSIX ``flock``; where there is no ``fcntl`` (Windows) or the lock file cannot
be opened, there is no lock, and the work is done more than once, never wrongly."""
from __future__ import annotations

import contextlib
from pathlib import Path

try:
    import fcntl
except ImportError:                         # Windows
    fcntl = None


@contextlib.contextmanager
def exclusive(path: Path | None):
    """Hold the lock file ``path`` (created if needed, with its folder) for the block; no lock
    without a path. Each call opens the file anew, so two threads of one process wait on each
    other too."""
    if path is None or fcntl is None:
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+b")
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield                               # closing the file releases it
