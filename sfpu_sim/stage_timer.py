"""Where a chunk's time goes: the pipeline names its stages, and a benchmark that asks gets the
seconds each took in its own thread.

Owns: :func:`stage` (a block of pipeline work, named) and :func:`recording` (collect the
seconds of the stages run in this thread). Knows nothing of what the stages compute. Outside
:func:`recording`, a stage costs one attribute lookup: sweeps run with it always in place.
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager

_local = threading.local()          # .seconds: the dict being filled in this thread, if any


@contextmanager
def stage(name: str):
    """Time the block as stage ``name`` when this thread is :func:`recording`."""
    seconds = getattr(_local, "seconds", None)
    if seconds is None:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - start


def active() -> bool:
    """Whether this thread is :func:`recording` (a stage that queues work on a GPU then waits
    for it, so that its seconds are its own)."""
    return getattr(_local, "seconds", None) is not None


@contextmanager
def recording():
    """Collect the seconds of every stage run in this thread inside the block, by name, into
    the dict it yields (a stage inside another counts in both)."""
    before = getattr(_local, "seconds", None)
    _local.seconds = {}
    try:
        yield _local.seconds
    finally:
        _local.seconds = before
