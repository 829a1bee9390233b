"""Shared test fixtures: the golden vector files (tests/data/vectors/, a subset of the full sets
in ../shared/vectors; the full sets run under the slow marker where they are present)."""
from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Under PYTHONDONTWRITEBYTECODE every xdist worker of every run compiled and assertion-rewrote
# every module again: 7.6 s of a worker's 11.4 s start (5 s with bytecode kept). The test
# processes keep theirs under .pytest_cache/pycache (sys.pycache_prefix: nothing is written
# beside the sources or into site-packages). Commands the tests start are left as set: keeping
# theirs too changed nothing measurable.
if sys.dont_write_bytecode:
    sys.pycache_prefix = str(ROOT / ".pytest_cache" / "pycache")
    sys.dont_write_bytecode = False

import numba

# The GPU engine's tests run in numba's CUDA simulator (CI has no GPU): numba reads the setting
# when numba.cuda is first imported (sfpu-sim's pytest plugin has imported numba already, not
# numba.cuda). NUMBA_ENABLE_CUDASIM=0 in the environment runs them on a GPU.
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
numba.config.reload_config()

import numpy as np
import pytest
from hypothesis import settings

from sfpu_sim import heap, threads

# Every worker runs thousands of sweeps: keep their freed pages mapped (sfpu_sim.heap).
heap.keep_freed_memory()

# Property tests explore the same examples on every run (reproducible CI; no example database).
settings.register_profile("sfpu-sim", derandomize=True, database=None)
settings.load_profile("sfpu-sim")

# The subset the default suite reads, in the repository (tests/data/vectors/README.md).
VECTORS = ROOT / "tests" / "data" / "vectors"
# The full sets: ../shared beside the checkout, or SFPU_SIM_SHARED (a git worktree elsewhere).
FULL_VECTORS = Path(os.environ.get("SFPU_SIM_SHARED") or ROOT.parent / "shared") / "vectors"
VECTOR_SETS = [pytest.param(VECTORS, id="subset"),
               pytest.param(FULL_VECTORS, id="full", marks=pytest.mark.slow)]


# Tests that take minutes on their own (measured cold, 2026-11-27): started first, so that
# xdist's workers run everything else beside them instead of waiting on them at the end (the
# reports check alone took 548 s, and came last by file name).
LONG_FIRST = ("tests/test_reports_fresh.py::", "tests/test_parity.py::test_every_modelled",
              "tests/test_export.py::test_sfpi_export_of_every_exportable")


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker more than the cores this process may use. Many tests wait on a
    subprocess (the CLI's Ctrl-C, pipe and cache checks), a Dask cluster or a timer; one extra
    worker keeps the cores busy meanwhile (measured warm on 2 cores, one run each: 3:00 with
    2 workers, 2:47 with 3, 2:57 with 4, whose start-up and collection cost more than the
    idle time they fill)."""
    return len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") \
        else (os.cpu_count() or 1) + 1


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        return next((k for k, prefix in enumerate(LONG_FIRST)
                     if item.nodeid.startswith(prefix)), len(LONG_FIRST))
    items.sort(key=rank)


def pytest_collection_finish(session):
    """What collection built (the package, numba's registries, every test's parameters) lives
    until the end: frozen out of the collector's generations, it is no longer walked again by
    each full collection of the thousands a worker runs."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


# xdist's workers (-n auto: one more than the cores) already keep every core busy; a worker's own
# helper threads could only take turns with them (measured warm on 2 cores, one run each: 3:17
# wall and 6:26 CPU with each worker on both cores, 3:01 and 5:55 on one). Each test starts
# on one thread, and so does what runs between tests (a module fixture built after a test
# that set a count); the tests of threading (test_threads, the FP32 sweep's chunks, Ctrl-C in
# helpers) set their own counts.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
_TEST_THREADS = 1 if _WORKERS > 1 and _WORKERS >= threads.max_threads() else None


@pytest.fixture(autouse=True)
def _threads_per_worker():
    threads.set_threads(_TEST_THREADS)
    yield
    threads.set_threads(_TEST_THREADS)


def load_vectors(name: str, directory: Path = VECTORS):
    path = directory / name
    if not path.exists():
        pytest.skip(f"golden vector file {path} is absent (the full sets live in the steering "
                    f"repo's shared/)")
    return np.load(path)


@pytest.fixture(scope="session", params=VECTOR_SETS)
def fma_golden(request):
    return load_vectors("fma_golden.npz", request.param)


@contextlib.contextmanager
def fails_after(seconds: int, error: BaseException):
    """Raise ``error`` in the main thread if the block still runs after ``seconds``: a test
    of something that used to hang fails instead of hanging."""
    def expire(signum, frame):
        raise error
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def isolated(monkeypatch):
    """Kernels and functions a test registers vanish with it (the built-ins stay), so that no
    test sees another's kernels, whatever order or worker runs them."""
    from sfpu_sim import reference, registry

    registry.names()
    for table in ("_REGISTRY", "_BINARY", "_CHAINED"):
        monkeypatch.setattr(registry, table, dict(getattr(registry, table)))
    monkeypatch.setattr(registry, "_LOADED", set(registry._LOADED))
    monkeypatch.setattr(reference.definitions, "FUNCTIONS", dict(reference.definitions.FUNCTIONS))


@pytest.fixture(scope="module")
def cached_sweeps():
    """Each distinct sweep runs once in the module that uses this (``pytestmark``); yields
    the cache. The modules that import ``sweep`` by name are imported first and patched too,
    so none keeps the cached one once the module ends (a later test's sweep of a kernel file
    it changed, the same KernelSpec by equality, would get this module's result)."""
    import importlib
    import sys

    import sfpu_sim.sweeps as sweep_module

    for name in ("sfpu_sim.cli.common", "sfpu_sim.cli.fit", "sfpu_sim.testing",
                 "sfpu_sim.design.device_fit", "sfpu_sim.shadow.locator"):
        importlib.import_module(name)
    original, cache = sweep_module.sweep, {}

    def cached(kernel, arch, **options):
        options.pop("progress", None)
        key = (kernel, arch, tuple(sorted(options.items())))
        if key not in cache:
            cache[key] = original(kernel, arch, **options)
        return cache[key]

    patch = pytest.MonkeyPatch()
    for module in list(sys.modules.values()):
        # The module's own names only: getattr would call a lazy module's __getattr__
        # (mpmath 1.4's imports its deprecated private modules, each with a warning).
        if getattr(module, "__dict__", {}).get("sweep") is original:
            patch.setattr(module, "sweep", cached)
    yield cache
    patch.undo()
