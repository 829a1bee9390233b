"""Threads: small calls stay in the calling thread, large ones are cut into chunks that every
thread claims, and the count is settable within NUMBA_NUM_THREADS."""
from __future__ import annotations

import threading

import numba
import numpy as np
import pytest

from sfpu_sim import fma, threads


@pytest.fixture(autouse=True)
def default_count():
    yield
    threads.set_threads(None)


def _recording_kernel(calls):
    def kernel(start, stop, out):
        calls.append((start, stop, threading.get_ident()))
        out[start:stop] += 1
    return kernel


def test_a_call_on_1024_lanes_never_leaves_the_calling_thread():
    threads.set_threads(threads.max_threads())
    calls = []
    out = np.zeros(1024, dtype=np.int64)
    threads.parallel_for(_recording_kernel(calls), 1024, out, cost=1000.0)
    assert calls == [(0, 1024, threading.get_ident())]
    assert (out == 1).all()


def test_large_calls_cover_every_item_exactly_once_in_chunks():
    if threads.max_threads() < 2:
        pytest.skip("one usable CPU: every call is serial")
    threads.set_threads(2)
    calls = []
    out = np.zeros(100_003, dtype=np.int64)
    threads.parallel_for(_recording_kernel(calls), out.size, out)
    assert (out == 1).all()
    assert len(calls) == 2 * threads.CHUNKS_PER_THREAD
    assert sorted(start for start, _, _ in calls)[0] == 0


def test_an_error_in_a_chunk_reaches_the_caller():
    threads.set_threads(threads.max_threads())

    def kernel(start, stop):
        if start > 0:
            raise ValueError("chunk failed")

    if threads.max_threads() > 1:
        with pytest.raises(ValueError, match="chunk failed"):
            threads.parallel_for(kernel, 1 << 20)


def test_a_helper_not_yet_scheduled_holds_none_of_the_calls_arrays(monkeypatch):
    """A helper's share of a call waits in the pool's queue until its thread runs; on a loaded
    machine that can be after the call returned. The queued work then must not hold the call's
    arrays (CI saw a sweep chunk's lane arrays outlive it that way). The helpers are kept busy
    here, so the call's work stays queued; its array must die when the caller drops it."""
    import weakref

    monkeypatch.setattr(threads, "threads", lambda: 2)
    pool = threads._helpers(1)
    gate = threading.Event()
    blockers = [pool.submit(gate.wait) for _ in range(pool._max_workers)]
    try:
        out = np.zeros(1 << 15, dtype=np.int64)
        calls = []
        threads.parallel_for(_recording_kernel(calls), out.size, out)
        assert (out == 1).all() and {ident for *_, ident in calls} == {threading.get_ident()}
        alive = weakref.ref(out)
        del out
        assert alive() is None
    finally:
        gate.set()
        for blocker in blockers:
            blocker.result()


@pytest.mark.parametrize("bad", [0, -1, 10_000, 1.5, True, "2"])
def test_set_threads_refuses_counts_outside_1_to_the_limit(bad):
    with pytest.raises(threads.ThreadCountError, match=r"choose 1 to \d+"):
        threads.set_threads(bad)


def test_the_limit_is_numba_num_threads_capped_by_usable_cpus(monkeypatch):
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 1)
    assert threads.max_threads() == 1
    assert threads.threads() == 1
    with pytest.raises(threads.ThreadCountError):
        threads.set_threads(2)


def test_fma_gives_the_same_bits_on_one_thread_and_on_all():
    rng = np.random.default_rng(7)
    x, y, z = (rng.integers(0, 1 << 32, 200_000, dtype=np.uint32) for _ in range(3))
    threads.set_threads(1)
    serial = fma.fma_wormhole(x, y, z)
    threads.set_threads(threads.max_threads())
    assert np.array_equal(fma.fma_wormhole(x, y, z), serial)


def test_the_default_count_is_every_usable_cpu_whatever_the_load_average(monkeypatch):
    """Issue 18: a past load average says how busy the cores were, not how busy they will be."""
    monkeypatch.setattr(threads, "max_threads", lambda: 2)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (9.0, 9.0, 9.0))
    threads.set_threads(None)                # the default, not the test suite's count
    assert threads.threads() == 2
    threads.set_threads(1)                   # an explicit count is used as given
    assert threads.threads() == 1

# --------------------------------------------------------------------------------------------
# in_order: a sweep's chunks side by side, merged in order
# --------------------------------------------------------------------------------------------

def test_in_order_yields_results_in_item_order_each_call_on_one_thread():
    import time

    seen = []

    def run(item):
        time.sleep(0.002 * (7 - item % 7))          # later items finish first
        seen.append((item, threading.get_ident(), threads.threads()))
        return item * item

    assert list(threads.in_order(run, range(20), 3)) == [k * k for k in range(20)]
    assert sorted(item for item, _, _ in seen) == list(range(20))
    here = threading.get_ident()
    assert seen[0][:2] == (0, here)                  # the first item ran alone, here, first
    assert {count for _, where, count in seen if where != here} == {1}   # the others' loops:
    assert all(where != here for _, where, _ in seen[1:])               # one thread each


def test_in_order_with_width_one_runs_in_the_calling_thread():
    here = threading.get_ident()
    assert list(threads.in_order(lambda k: (k, threading.get_ident()), range(4), 1)) == \
        [(k, here) for k in range(4)]


def test_in_order_raises_an_items_error_where_its_result_would_be_and_stops_the_queue():
    started = []

    def run(item):
        started.append(item)
        if item == 3:
            raise ValueError("item 3")
        return item

    results = threads.in_order(run, range(1000), 2)
    assert [next(results) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="item 3"):
        next(results)
    assert len(started) < 20                         # queued at most 2 x width ahead
