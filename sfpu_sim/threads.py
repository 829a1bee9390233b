"""How many threads sfpu-sim's compiled loops use, and when a call uses more than one.

Owns: the thread count (:func:`threads`, :func:`set_threads`, which the CLI's ``--threads``
calls), the check of ``$NUMBA_NUM_THREADS`` (:func:`check_environment`, run before numba is
imported) and :func:`parallel_for`, the one way the package spreads a compiled loop over
threads. Knows nothing of what the loops compute.

The count defaults to ``NUMBA_NUM_THREADS`` (numba's setting: the environment variable, else
the CPU count), capped by the CPUs this process may run on (its affinity); a count set with
:func:`set_threads` is used as given. A past load average does not lower it: it says how busy
the cores were, not how busy they will be, and a helper that never gets a core costs nothing
here (below). A loop runs serially, in the calling thread, when it is small (:data:`SERIAL_WORK`, and
never more than one thread for <= :data:`SERIAL_LANES` lanes): handing work to another thread
costs tens of microseconds.

Why not numba's ``parallel=True``: its default threading layer here (OpenMP) waits for every
thread at the end of a parallel region, and a thread that the OS has not scheduled (another
process loading the cores) holds the call for a whole time slice: measured 8-16 ms for work of
0.25 ms serially. Here the work is cut into chunks that the calling thread and the helpers
claim one at a time; the caller waits only for chunks a helper has actually started, so a helper
that never gets a core costs nothing. One that gets a core late can still hold the caller for
the rest of its chunk (measured up to 1.5x the serial time with the cores oversubscribed):
``--threads 1`` is the choice for a machine known to be shared that way.
Measurements: ``python -m sfpu_sim.bench fma`` / ``kernel``.
"""
from __future__ import annotations

import itertools
import os
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from sfpu_sim.errors import SfpuSimError

__all__ = ["threads", "set_threads", "limited", "max_threads", "parallel_for", "in_order",
           "check_environment", "SERIAL_LANES", "SERIAL_WORK", "ThreadCountError"]

SERIAL_LANES = 1024           # a call on this many lanes or fewer never leaves its thread
SERIAL_WORK = 1 << 14         # below this much work (multiply-add lanes) a helper does not pay
CHUNKS_PER_THREAD = 4         # finer chunks even out threads that start late


class ThreadCountError(SfpuSimError):
    pass


def check_environment() -> None:
    """Refuse a ``$NUMBA_NUM_THREADS`` that is set but not a whole number >= 1, before numba is
    imported: numba's import fails on 0 or less with a bare ValueError, and takes any other
    unreadable value for its default after a warning that prints a traceback. (This module
    imports numba only when it needs it, so that this can run first.)"""
    text = os.environ.get("NUMBA_NUM_THREADS")
    if text is None:
        return
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ThreadCountError(f"NUMBA_NUM_THREADS={text!r}: expected a whole number >= 1 (the "
                               f"most threads the emulator may use), or leave it unset for "
                               f"one per CPU")


def max_threads() -> int:
    """The most threads a call may use: ``NUMBA_NUM_THREADS``, capped by the usable CPUs."""
    # Imported here, not above: numba reads NUMBA_NUM_THREADS as it is imported and fails with
    # its own traceback on a bad value; the CLI imports this module to check the value first.
    import numba

    return max(1, min(numba.config.NUMBA_NUM_THREADS, _usable_cpus()))


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


_count: int | None = None
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_local = threading.local()             # .count: a limit for calls made in this thread only


def threads() -> int:
    """The thread count large calls use: this thread's :func:`limited` count, else the one
    set with :func:`set_threads`, else :func:`max_threads`."""
    local = getattr(_local, "count", None)
    if local is not None:
        return local
    return _count if _count is not None else max_threads()


@contextmanager
def limited(n: int | None):
    """Calls made in this thread inside the block use at most ``n`` threads (None: no change).
    A sweep that runs one chunk per thread runs each chunk's loops with ``limited(1)``; other
    threads, and the process-wide count, are left alone."""
    before = getattr(_local, "count", None)
    _local.count = before if n is None else max(1, min(n, threads()))
    try:
        yield
    finally:
        _local.count = before


def set_threads(n: int | None) -> None:
    """Use ``n`` threads from now on (1 .. :func:`max_threads`); None restores the default."""
    global _count
    if n is None:
        _count = None
        return
    limit = max_threads()
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= limit:
        raise ThreadCountError(f"threads: {n!r} is not allowed (choose 1 to {limit}; the "
                               f"limit is NUMBA_NUM_THREADS or the CPUs this process may use)")
    _count = n


def parallel_for(kernel, count: int, *args, cost: float = 1.0, lanes_per_item: int = 1) -> None:
    """``kernel(start, stop, *args)`` over ``range(count)`` cut into chunks, in the calling
    thread and up to ``threads() - 1`` helpers. ``kernel`` must release the GIL (numba
    ``nogil=True``) and treat its chunks independently. ``cost`` is the work per item relative
    to one multiply-add lane; ``lanes_per_item`` the lanes an item holds (a 32-lane SFPU)."""
    if count * lanes_per_item <= SERIAL_LANES or count * cost < SERIAL_WORK or \
            (n := threads()) == 1:
        kernel(0, count, *args)
        return
    pieces = min(count, n * CHUNKS_PER_THREAD)
    bounds = [count * k // pieces for k in range(pieces + 1)]
    job = _Job(kernel, bounds, args)
    pool = _helpers(n - 1)
    for _ in range(n - 1):
        pool.submit(job.work)
    try:
        job.work()
        job.wait()
    except BaseException as error:           # Ctrl-C: helpers claim no further chunks
        with job.lock:
            job.error = job.error or error
        raise
    finally:
        job.release()


def in_order(run, items, width: int):
    """``run(item)`` of every item, yielded in item order, computed up to ``width`` at a time
    on threads (each call's own compiled loops on its thread alone: :func:`limited`). The first
    item runs alone in the calling thread, with its threads, so that what every call compiles
    or loads is done once; then at most ``2 * width`` calls are queued. An error (or Ctrl-C)
    stops the queue and is raised where its result would have been yielded. ``width`` 1 runs
    everything in the calling thread."""
    items = iter(items)
    if width <= 1:
        for item in items:
            yield run(item)
        return
    first = next(items, _NONE)
    if first is _NONE:
        return
    yield run(first)

    def alone(item):
        with limited(1):
            return run(item)

    pending: deque = deque()
    with ThreadPoolExecutor(max_workers=width, thread_name_prefix="sfpu-sim-chunk") as pool:
        try:
            for item in itertools.islice(items, 2 * width):
                pending.append(pool.submit(alone, item))
            while pending:
                result = pending.popleft().result()
                for item in itertools.islice(items, 1):
                    pending.append(pool.submit(alone, item))
                yield result
        finally:                        # an error, Ctrl-C, or the caller stopped early
            for future in pending:
                future.cancel()


_NONE = object()


def _helpers(n: int) -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None or _pool._max_workers < n:
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="sfpu-sim")
        return _pool


class _Job:
    """Chunks of one call, claimed one at a time by whichever thread is running."""

    def __init__(self, kernel, bounds, args):
        self.kernel, self.bounds, self.args = kernel, bounds, args
        self.next = 0
        self.running = 0
        self.error: BaseException | None = None
        self.lock = threading.Lock()
        self.idle = threading.Condition(self.lock)

    def work(self) -> None:
        while True:
            with self.lock:
                if self.next >= len(self.bounds) - 1 or self.error is not None:
                    return
                k = self.next
                self.next += 1
                self.running += 1
                kernel, args = self.kernel, self.args
            try:
                kernel(self.bounds[k], self.bounds[k + 1], *args)
            except BaseException as error:      # re-raised in the calling thread
                with self.lock:
                    self.error = self.error or error
                if isinstance(error, KeyboardInterrupt):
                    raise     # Ctrl-C (the calling thread's): leave now, not after the helpers
            finally:
                with self.lock:
                    self.running -= 1
                    if self.running == 0:
                        self.idle.notify_all()

    def release(self) -> None:
        """Drop the kernel and its arguments once the call returns. A helper's ``work`` still
        queued in the pool (its thread not yet scheduled: a loaded machine) holds this job
        until it runs and finds nothing to claim; without this it would hold the call's lane
        arrays that long too. Chunks already claimed keep their own references."""
        with self.lock:
            self.next = len(self.bounds)
            self.kernel = self.args = None

    def wait(self) -> None:
        with self.lock:
            while self.running:
                self.idle.wait()
            if self.error is not None:
                raise self.error
