"""FP32 sweep walks (sfpu_sim.fp32sweep.walk) and the chunk-size memory arithmetic (run.py).

Expected patterns are established independently of the code under test: Tenstorrent's strided
walk re-derived here in plain Python integers from its published definition
(tenstorrent/tt-metal ``tt_metal/tt-llk/tests/python_tests/helpers/stimuli_generator/
strategies/structured.py`` ``_enumerate_fp32_in_range`` at commit 0764989, and the 65,280
samples ``helpers/ulp_sweep.py`` states for ``_FP32_STRIDE = 2**16``), and exhaustive ranges
counted from FP32 bit arithmetic or by brute force over a window of patterns.
"""
from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from sfpu_sim import registry
from sfpu_sim.cli import main
from sfpu_sim.fp32sweep import Exhaustive, Strided, WalkError, from_options, walk
from sfpu_sim.fp32sweep import run as runs

INT_MIN = -(1 << 31)


def _bits(value: float) -> int:
    """FP32 bits of a value that is exactly an FP32 number."""
    return struct.unpack("<I", struct.pack("<f", value))[0]


def _value(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _tt_walk(low: float, high: float, stride: int) -> list[int]:
    """Tenstorrent's walk as structured.py defines it: keys ``bits`` (as int32) or
    ``INT_MIN - bits`` for negatives, sample i at ``lo + i*stride + max((i*step) % stride, 1)``
    (phase only for stride > 1, step = int(stride * 0.618...) | 1), keys past hi dropped, then
    only finite values kept, sorted and de-duplicated (_enumerate_representable)."""
    def key(x):
        b = struct.unpack("<i", struct.pack("<f", x))[0]
        return b if b >= 0 else INT_MIN - b
    lo, hi = key(low), key(high)
    count = (hi - lo) // stride + 1
    step = int(stride * ((math.sqrt(5) - 1) / 2)) | 1
    values = []
    for i in range(count):
        k = lo + i * stride + (max((i * step) % stride, 1) if stride > 1 else 0)
        if k > hi:
            continue
        b = k if k >= 0 else INT_MIN - k
        b &= 0xFFFFFFFF
        if math.isfinite(_value(b)):
            values.append(b)
    assert values == sorted(values, key=lambda b: (_value(b), b))   # already value-sorted
    return values


def test_strided_whole_line_is_tenstorrents_65280_samples():
    w = Strided()
    expected = _tt_walk(-math.inf, math.inf, 1 << 16)
    assert len(expected) == 65280 == len(w)                      # ulp_sweep.py's figure
    assert w.patterns(0, len(w)).tolist() == expected
    assert all(b & 0xFFFF for b in expected)                     # never a BF16 value


@pytest.mark.parametrize("stride, low, high", [(1 << 17, -2.0, 3.5), (7, -2.0 ** -140, 2.0 ** -140),
                                               (65536, 1.0, 2.0 ** 100), (333, -1.0, -0.5),
                                               (1000, -math.inf, -2.0 ** 127)])
def test_strided_range_is_tenstorrents_walk(stride, low, high):
    w = Strided(stride, (low, high))
    expected = _tt_walk(low, high, stride)
    assert len(w) == len(expected)
    assert w.patterns(0, len(w)).tolist() == expected


def test_stride_one_is_every_finite_value_once_without_minus_zero():
    # [-1, 1] holds, by bit arithmetic, 0x3F800000 + 1 patterns per sign; -0 shares +0's key
    w = Strided(1, (-1.0, 1.0))
    assert len(w) == 2 * (0x3F800000 + 1) - 1
    n = 0x3F800000                                   # positions of -1, -min denormal, +0, 1
    assert w.patterns(0, 1).tolist() == [0xBF800000]
    assert w.patterns(n - 1, n + 2).tolist() == [0x80000001, 0, 1]
    assert w.patterns(len(w) - 1, len(w) + 5).tolist() == [0x3F800000]
    # the whole line: 2 * (0x7F7FFFFF + 1) finite patterns per sign pair, less -0
    assert len(Strided(1)) == 2 * 0x7F800000 - 1
    assert Strided(1).patterns(0, 1)[0] == 0xFF7FFFFF            # -FLT_MAX, not -inf


def test_strided_positions_chunk_into_the_same_walk():
    w = Strided(4099, (-3.0, 7.0))
    whole = w.patterns(0, len(w))
    pieces = np.concatenate([w.patterns(a, a + 997) for a in range(0, len(w), 997)])
    assert np.array_equal(whole, pieces)
    assert w.patterns(len(w), len(w) + 10).size == 0


def test_exhaustive_whole_space_is_every_pattern_in_bit_order():
    w = Exhaustive()
    assert len(w) == 1 << 32
    assert w.patterns(0, 3).tolist() == [0, 1, 2]
    assert w.patterns((1 << 32) - 2, 1 << 32).tolist() == [0xFFFFFFFE, 0xFFFFFFFF]


def test_exhaustive_range_counts_from_bit_arithmetic():
    # [-1.5, 2]: +0 .. 0x40000000 and -0 .. 0xBFC00000
    w = Exhaustive((-1.5, 2.0))
    assert len(w) == (0x40000000 + 1) + (0x3FC00000 + 1)
    # [1, 2): one binade, 2**23 patterns (2 itself excluded by taking its predecessor)
    assert len(Exhaustive((1.0, _value(0x3FFFFFFF)))) == 1 << 23
    # the whole line as a range: every non-NaN pattern (2 * (0x7F800000 + 1))
    assert len(Exhaustive((-math.inf, math.inf))) == 2 * (0x7F800000 + 1)


@pytest.mark.parametrize("low, high", [(-1.0000001234, -0.99999991234), (3e-45, 1.2e-44),
                                       (-3e-45, 5e-45), (0.0, 0.0), (-0.0, 1.401298464e-45),
                                       (-1e-44, -3e-45), (0.999999, 1.0000007)])
def test_exhaustive_range_is_every_pattern_in_it_by_brute_force(low, high):
    """Non-representable ends included: brute force over a window of patterns around both
    signs' ends, compared in float64 (each FP32 value is exact there)."""
    w = Exhaustive((low, high))
    got = set(w.patterns(0, len(w)).tolist())
    assert len(got) == len(w)
    candidates = set()
    for end in (low, high, 0.0):
        b = _bits(float(np.float32(abs(end))))
        for sign in (0, 0x80000000):
            candidates |= {sign | c for c in range(max(b - 300, 0), b + 300)}
    inside = {c for c in candidates if low <= _value(c) <= high}
    assert got == inside


def test_walk_errors_are_one_line():
    with pytest.raises(WalkError, match="--stride 0"):
        Strided(0)
    with pytest.raises(WalkError, match="without --stride"):
        from_options(16, True)
    with pytest.raises(WalkError, match="LO <= HI"):
        Exhaustive((2.0, 1.0))
    with pytest.raises(WalkError, match="no FP32 value"):
        Exhaustive((1.00000001, 1.00000002))


def test_walk_round_trips_through_its_json_form():
    for w in (Strided(77, (-1.0, 2.0)), Exhaustive((0.5, 4.0)), Exhaustive(), Strided()):
        assert walk.from_dict(w.as_dict()) == w


# --------------------------------------------------------------------------------------------
# Memory: chunk-size arithmetic (issue 11: < 2 GiB)
# --------------------------------------------------------------------------------------------

def test_largest_chunks_stay_under_two_gib():
    assert runs.MEMORY_CAP == 2 * 2 ** 30
    # local: one interpreter, one chunk; dask: the client and two workers, one chunk each
    assert runs.max_chunk("local") == 1 << 22
    assert runs.peak_bytes(1 << 22, "local") == 256 * 2 ** 20 + (1 << 22) * 256 < 2 ** 31
    assert runs.peak_bytes(1 << 23, "local") > 2 ** 31
    assert runs.max_chunk("dask", 2) == 1 << 21
    assert runs.peak_bytes(1 << 21, "dask", 2) == 3 * 256 * 2 ** 20 + 2 * (1 << 21) * 256
    assert runs.peak_bytes(1 << 21, "dask", 2) < 2 ** 31 < runs.peak_bytes(1 << 22, "dask", 2)
    assert runs.peak_bytes(runs.DEFAULT_CHUNK, "dask", 2) < 2 ** 31


def test_a_chunk_holds_at_most_lane_bytes_per_input():
    """The per-input constant against numpy's real peak in a chunk of the longest FP32-Dst
    kernel (tracemalloc: allocation counts, no timing)."""
    import tracemalloc

    from sfpu_sim import registry
    from sfpu_sim.fp32sweep import chunk as chunks
    from sfpu_sim.selection import EVERYTHING

    w = Strided(1 << 8)
    job = chunks.job_for(registry.get("tanh_fp32"), "blackhole", "fp32", "bf16", "rne", w,
                         EVERYTHING, 20)
    chunks.run_chunk(job, 0, 1024, len(w))                     # compile outside the count
    lanes = 1 << 16
    tracemalloc.start()
    try:
        chunks.run_chunk(job, 0, lanes, len(w))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= runs.LANE_BYTES * lanes


def test_chunks_leave_no_lane_arrays_behind():
    """What a chunk allocates is freed when it ends, without waiting for Python's cyclic
    collector (the Machine behind a run sits in reference cycles): after three chunks of
    2**16 inputs only their Partials (~100 kB each) are held, under 1 MiB; one chunk's lane
    arrays left behind would be ~6 MB."""
    import gc
    import tracemalloc

    from sfpu_sim import registry
    from sfpu_sim.fp32sweep import chunk as chunks
    from sfpu_sim.selection import EVERYTHING

    w = Exhaustive((1.0, 2.0))
    job = chunks.job_for(registry.get("reciprocal_fp32"), "wormhole", "fp32", "bf16", "rne",
                         w, EVERYTHING, 20)
    chunks.run_chunk(job, 0, 1024, len(w))
    gc.disable()                                    # no collection but the chunk's own
    tracemalloc.start()
    try:
        partials = [chunks.run_chunk(job, k << 16, (k + 1) << 16, len(w)) for k in range(3)]
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        gc.enable()
    assert len(partials) == 3 and held < 1 << 20


@pytest.mark.parametrize("engine", ["machine", "compiled"])
def test_a_device_run_leaves_no_reference_cycle(engine):
    """A run's Machine (and the compiled path's one-SFPU template) is freed by reference
    counting alone: its Dst and its SFPLOADMACRO sequencer refer back to it weakly. What the
    cyclic collector finds after a run holds no Machine, no Dst and no lane array, so no chunk
    needs to call it. (It may find other things: numba, say, compiling on first use.)"""
    import gc

    from sfpu_sim import registry, sweeps
    from sfpu_sim.machine import Dst, Machine

    program = registry.get("reciprocal_fp32").program("wormhole")
    x = np.arange(1 << 12, dtype=np.uint32) << np.uint32(19)
    path = sweeps.DevicePath("fp32", "bf16", "fp32")
    sweeps.run_device(program, x, path, fp32_inputs=True, engine=engine)   # imports, compiles
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run = sweeps.run_device(program, x, path, fp32_inputs=True, engine=engine)
        del run
        gc.collect()
        held = [type(o).__name__ for o in gc.garbage if isinstance(o, (Machine, Dst)) or
                (isinstance(o, np.ndarray) and o.size >= x.size)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert held == []


def test_cli_refuses_a_chunk_over_the_memory_cap(capsys):
    """Compiled, reciprocal_fp32 holds 80 B an input while it runs (64 + its 16 Dst rows):
    2**24 inputs fit the 2 GiB beside the process's 256 MB, 2**25 do not. On the Machine (a
    program with SFPLOADMACRO, 1024 Dst rows) 1,264 B: 2**20 at most."""
    assert main(["sweep", "reciprocal_fp32", "--arch", "blackhole", "--in", "fp32",
                 "--chunk", str(1 << 25)]) == 2
    err = capsys.readouterr().err.strip()
    assert "--chunk 33554432" in err and "16,777,216" in err and len(err.splitlines()) == 1
    assert main(["sweep", "reciprocal_fp32_loadmacro", "--arch", "blackhole", "--in", "fp32",
                 "--chunk", str(1 << 21)]) == 2
    assert "1,048,576" in capsys.readouterr().err


def test_a_chunk_holds_per_input_what_its_engine_and_dst_take(monkeypatch):
    """The cap sizes chunks by what the kernel's run holds (measured: compiled 46-66 B of
    resident set an input, Dst included; reciprocal_fp32_loadmacro's Machine 1,280 B)."""
    from sfpu_sim.fp32sweep import chunk as chunks
    from sfpu_sim.selection import EVERYTHING

    def job(name):
        return chunks.job_for(registry.get(name), "blackhole", "fp32", "fp32", "rne",
                              Strided(), EVERYTHING, 20)

    assert job("reciprocal_fp32").lane_bytes == 64 + 16
    assert job("reciprocal_fp32_loadmacro").lane_bytes == 240 + 1024
    monkeypatch.setattr(runs.threads, "threads", lambda: 16)
    assert runs.default_chunk(lane_bytes=80) == 1 << 20      # 16 chunks of 2**20: 1.25 GiB
    assert runs.default_chunk(lane_bytes=1264) == 1 << 16
    assert runs.peak_bytes(1 << 16, "local", lane_bytes=1264) < runs.MEMORY_CAP


def test_dask_gets_a_worker_per_usable_cpu_as_many_as_two_gib_hold(monkeypatch):
    """Issue 18: one worker per CPU, not a fixed 2; each worker process takes 256 MB of the
    2 GiB, so 16 CPUs get 6 workers with chunks of 2**16 inputs or more; --workers sets it."""
    for cpus, workers in ((1, 1), (2, 2), (4, 4), (16, 6)):
        monkeypatch.setattr(runs.threads, "max_threads", lambda cpus=cpus: cpus)
        assert runs.dask_workers() == workers
        assert runs.max_chunk("dask") >= runs.MIN_WORKER_CHUNK
        # the default chunk is one the cap allows (16 CPUs: 2**17 inputs, not 2**20)
        assert runs.default_chunk("dask") == min(runs.DEFAULT_CHUNK, runs.max_chunk("dask"))
    assert runs.dask_workers(3) == 3
    assert runs.max_chunk("dask", 7) == 0                 # 8 processes: the cap, no chunk


@pytest.mark.parametrize("workers", [0, 7, True])
def test_workers_the_memory_cap_cannot_hold_are_refused(workers):
    with pytest.raises(runs.Fp32SweepError, match=r"--workers .*1 to 6 "):
        runs.check_options(registry.get("reciprocal_fp32"), "fp32", "bf16", "daz-index", "rne",
                           1024, "dask", workers)


def test_workers_without_the_dask_scheduler_are_refused():
    with pytest.raises(runs.Fp32SweepError, match="--workers sizes --scheduler dask"):
        runs.check_options(registry.get("reciprocal_fp32"), "fp32", "bf16", "daz-index", "rne",
                           1024, "local", 2)
