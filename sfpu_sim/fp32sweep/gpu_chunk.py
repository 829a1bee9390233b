"""One FP32-sweep chunk whole on an NVIDIA GPU: the walk's patterns, Dst, the kernel, the packer,
the reference's decision, the ULP and the tally, with only accumulators and a few listed lanes
coming back.

Owns: :func:`fused` (whether a job's chunks run this way) and :func:`run_chunk`, which returns
the Partial :func:`sfpu_sim.fp32sweep.chunk.run_chunk` returns on the CPU, equal field for
field. Every per-lane step is the one definition the CPU runs, called from a GPU frame:

1. ``fill``: each SFPU's Dst zeroed, then the lane's pattern where SFPLOAD finds it (the Dst
   shuffle of :mod:`sfpu_sim.isa.loadstore`, at ``Dst._grid_cells``' cells); the patterns of
   an exhaustive walk are computed here (``first + lane``), others come from the host;
2. the kernel program (:func:`sfpu_sim.compiled.gpu.launch`: the compiled engine's lane body);
3. ``finish``: the packer (the Dst cell shuffled back; for BF16 output SFPSTOCHRND's rounding,
   below), the reference's decision (:func:`~.enclose.decide_lane`), the lane's facts and counts
   (:func:`~.tally.lane_facts`, then the CPU tally's accumulation done atomically) into
   accumulators a block shares, added into the chunk's at the end. Lanes the CPU must see are
   listed: those the enclosure leaves undecided (certified with arb and tallied on the CPU, as
   there), denormal inputs (the denormal table) and the cross-check's sample;
4. the worst lanes: the largest keys ``(distance, ~pattern)``, one pass each, at most the
   sweep's ``worst`` passes queued back to back (the CPU's order: distance descending, then
   pattern ascending).

The undecided lanes' Partial merges into the GPU's exactly (:meth:`~.tally.Partial.merge`), so
the chunk's Partial is the CPU's. The float64 enclosures are built with NVVM's contraction of
multiplies and adds into FMAs off (:func:`sfpu_sim.compiled.gpu.ieee_float64`): each operation
rounds once, as on the CPU, so the same inputs are decided and refined.

FP32 and BF16 outputs run fused (BF16: the packer's rounding, SFPSTOCHRND's lanewise
``drop_mantissa_bits`` with the nearest-ties-away threshold).
"""
from __future__ import annotations

import math
import threading
from contextlib import contextmanager

import numpy as np

from sfpu_sim.compiled import gpu
from sfpu_sim.fp32sweep import enclose
from sfpu_sim.fp32sweep import walk as walks
from sfpu_sim.fp32sweep.tally import (
    BINS,
    CLASSES,
    Partial,
    accumulators,
    assemble,
    cross_check,
    cross_check_limit,
    denormals,
    tally_lanes,
)
from sfpu_sim.machine import LANES_PER_SFPU
from sfpu_sim.selection import regions_for
from sfpu_sim import stage_timer
from sfpu_sim.stage_timer import stage
from sfpu_sim.sweeps import DevicePath, _device_state, _last_store, uses_loadmacro

UNDECIDED, DENORMAL, SAMPLE = 0, 1, 2          # the lists of lanes the CPU sees (gpu_frames')
THREADS = 256                                  # a finish block (32 under the simulator)
BLOCKS_PER_SM = 4                              # finish blocks: enough to fill the chip
SHARED_LIMIT = 48 << 10                        # bytes of static shared memory a block may have
_POOL = threading.local()
# A fused chunk's lanes live on the GPU (Dst cells 16 B, captured 4, expected 4, distance 8,
# lists 12) and on the host only as a few listed rows (and a strided walk's patterns, 4 B): its
# size is bounded by GPU memory, not the host's cap. Each chunk costs launches and copies
# whatever its size, so chunks are large: 2**25 inputs, 1.5 GB of GPU memory.
DEVICE_LANE_BYTES = 44
GPU_CHUNK = 1 << 25
GPU_CHUNK_MAX = 1 << 27


def fused(job) -> bool:
    """Whether ``job``'s chunks run whole on the GPU: the cuda engine, FP32 inputs (``fill``
    writes FP32 patterns), FP32 or BF16 output, a program the GPU runs (no SFPLOADMACRO, and
    numba-cuda compiles it: else the chunk runs as the CPU's, the kernel where it can run) and
    accumulators that fit a block's shared memory."""
    if job.engine != "cuda" or job.input_format != "fp32" or \
            job.output_format not in ("fp32", "bf16") or \
            shared_bytes(len(regions_for(job.function))) > SHARED_LIMIT:
        return False
    program = job.program()
    return not uses_loadmacro(program) and not isinstance(_prepared(program)[1], str)


def _prepared(program):
    """(the FP32 device path's starting state, the program's GPU kernel from it or why not)."""
    template = _device_state(program, DevicePath("fp32", "fp32", "fp32"), LANES_PER_SFPU)
    return template, gpu.prepare(template, program, _last_store(program))


def shared_bytes(regions: int) -> int:
    """A finish block's accumulators: int32 histograms, int64 counts, sums and binades."""
    return 4 * BINS * (4 + regions) + 8 * (CLASSES + 3 + regions + 256 * 5 + 11 + 2 * regions)


def run_chunk(job, start: int, stop: int, total: int) -> Partial:
    """The Partial of walk positions ``start..stop`` (``total``: the walk's length)."""
    partial = Partial.for_regions(len(regions_for(job.function)))
    for first, xs in _segments(job.the_walk(), start, stop):
        partial = partial.merge(_run_segment(job, first, xs, total), job.worst)
    return partial


def _segments(walk, start: int, stop: int):
    """The chunk as runs of lanes: ``(first pattern, count)`` for a run of consecutive patterns
    (an exhaustive walk's), generated on the GPU, else ``(-1, patterns)``; none when empty."""
    if isinstance(walk, walks.Exhaustive):
        offset = 0
        for a, b in walk._spans():
            lo, hi = max(start - offset, 0), min(stop - offset, b - a)
            if hi > lo:
                yield a + lo, hi - lo
            offset += b - a
        return
    with stage("walk"):
        xs = walk.patterns(start, stop)
    if xs.size:
        yield -1, xs


def _run_segment(job, first: int, xs, total: int) -> Partial:
    """One run of lanes: ``first >= 0`` with ``xs`` its count, or ``first = -1`` with ``xs``
    the patterns."""
    cuda = frames().cuda
    n = xs if first >= 0 else int(xs.size)
    program = job.program()
    template, c = _prepared(program)        # fused() has checked that it compiles
    regions = regions_for(job.function)
    out_fmt = job.output_format
    k = frames().kernels(enclose.FUNCTIONS[job.function], len(regions), out_fmt == "bf16")
    sfpus = -(-n // LANES_PER_SFPU)
    d_x = cuda.to_device(np.zeros(1, dtype=np.uint32) if first >= 0 else
                         np.ascontiguousarray(xs, dtype=np.uint32))
    high, low = (np.asarray(r, dtype=np.int64) for r in template.dst._grid_cells(0, 32)[0])
    columns = template.dst._grid_cells(0, 32)[1]
    cells, captured, expected, distance, lists = _buffers(sfpus, template.dst_rows,
                                                          template.dst.COLUMNS, n)
    grid = (cuda.to_device(high), cuda.to_device(low), cuda.to_device(columns))
    with _gpu_stage("kernel"):
        per_block = gpu.SFPUS_PER_BLOCK if sfpus % gpu.SFPUS_PER_BLOCK == 0 else 1
        k["fill"][sfpus // per_block, per_block * LANES_PER_SFPU](cells, n, first, d_x, *grid)
        gpu.launch(c, template, cells.reshape(sfpus, cells.shape[1] * cells.shape[2]), captured)
    with _gpu_stage("reference, ulp and tally"):
        ref = job.reference()
        acc = accumulators(len(regions))
        d_acc = {name: cuda.to_device(value) for name, value in acc.items()}
        counts = cuda.to_device(np.zeros(3, dtype=np.int64))
        selection = job.the_selection()
        low_v, high_v = selection.range if selection.range is not None else (-math.inf,
                                                                             math.inf)
        names = [r.name for r in regions]
        sel_region = names.index(selection.region) if selection.region is not None else -1
        blocks, threads = _finish_shape(n)
        k["finish"][blocks, threads](
            cells, captured, n, first, d_x, *grid, ref.pcode, ref.positive_domain,
            ref.specials, low_v, high_v, sel_region,
            *_region_tuples(job.function), d_acc["classes"], d_acc["hists"], d_acc["added"],
            d_acc["region_hist"], d_acc["region_inputs"], d_acc["binades"], d_acc["sums"],
            expected, distance, lists, counts, np.uint64(cross_check_limit(total)))
    with _gpu_stage("accumulators and lists"):
        acc = {name: value.copy_to_host() for name, value in d_acc.items()}
        listed = counts.copy_to_host()
        rows = {which: _gather(k, lists[which, :int(listed[which])], cells, captured,
                               expected, distance, first, d_x, grid)
                for which in (UNDECIDED, DENORMAL, SAMPLE)}
    with _gpu_stage("worst lanes"):
        worst = _worst(k, distance, n, first, d_x, xs, job.worst, blocks, threads)
        chosen = _gather(k, cuda.to_device(worst[:, 2].astype(np.int32)), cells, captured,
                         expected, distance, first, d_x, grid, ordered=False)
    undecided = rows[UNDECIDED]
    partial = assemble(n - undecided.shape[0], acc["classes"], acc["hists"], acc["added"],
                       acc["region_hist"], acc["region_inputs"], acc["binades"], acc["sums"],
                       worst[:, :2], chosen[:, 1], chosen[:, 2], chosen[:, 3], out_fmt)
    output = np.uint16 if out_fmt == "bf16" else np.uint32     # the patterns as the CPU has them
    with stage("denormals"):
        d = rows[DENORMAL]
        denormals(partial, d[:, 1].astype(output), d[:, 2].astype(output))
    with stage("cross-check"):
        s = rows[SAMPLE]
        cross_check(partial, s[:, 1].astype(output), s[:, 2].astype(output), s[:, 4], out_fmt)
    if undecided.shape[0]:
        with stage("reference"):
            x_u = undecided[:, 0].astype(np.uint32)
            certified = ref.certified(x_u)
        rest = tally_lanes(job, x_u, undecided[:, 1].astype(output),
                           np.asarray(certified.bits).astype(output),
                           undecided[:, 3].astype(np.uint32), total)
        rest.refined, rest.precision = int(x_u.size), int(certified.precision)
        partial = partial.merge(rest, job.worst)
    return partial


@contextmanager
def _gpu_stage(name: str):
    """:func:`~sfpu_sim.stage_timer.stage`, waiting for the GPU at its end when recording, so
    that a stage's seconds hold the GPU work it queued."""
    with stage(name):
        yield
        if stage_timer.active():
            frames().cuda.synchronize()


def _buffers(sfpus: int, rows: int, columns: int, n: int):
    """This thread's device arrays for a run of ``n`` lanes (kept while runs keep the size:
    an allocation per chunk cost more than the chunk's kernels): Dst cells, captured LReg,
    expected patterns, distances, and the three lists."""
    cuda = frames().cuda
    key = (sfpus, rows, columns, n)
    if getattr(_POOL, "key", None) != key:
        _POOL.key = None                        # the old ones go before the new are taken
        _POOL.arrays = None
        _POOL.arrays = (cuda.device_array((sfpus, rows, columns), dtype=np.uint16),
                        cuda.device_array(sfpus * LANES_PER_SFPU, dtype=np.uint32),
                        cuda.device_array(n, dtype=np.uint32),
                        cuda.device_array(n, dtype=np.int64),
                        cuda.device_array((3, n), dtype=np.int32))
        _POOL.key = key
    return _POOL.arrays


def _finish_shape(n: int) -> tuple[int, int]:
    """(blocks, threads) of the finish and worst passes: whole-chip grids that stride over
    the lanes (a few small blocks under the simulator, which runs a thread per lane)."""
    if gpu.simulated():
        return max(1, min(-(-n // 32), 2)), 32
    sms = frames().cuda.get_current_device().MULTIPROCESSOR_COUNT
    return max(1, min(-(-n // THREADS), sms * BLOCKS_PER_SM)), THREADS


def _gather(k, lanes, cells, captured, expected, distance, first, d_x, grid,
            ordered: bool = True) -> np.ndarray:
    """Rows (pattern, output, expected, kernel, distance) of the listed ``lanes`` (a device
    array of lane numbers), by pattern (``ordered``; the lists fill in no fixed order), or as
    listed."""
    cuda = frames().cuda
    count = lanes.shape[0]
    if count == 0:
        return np.zeros((0, 5), dtype=np.int64)
    table = cuda.device_array((count, 5), dtype=np.int64)
    k["gather"][-(-count // 32), 32](lanes, count, cells, captured, expected, distance, first,
                                     d_x, *grid, table)
    rows = table.copy_to_host()
    return rows[np.argsort(rows[:, 0], kind="stable")] if ordered else rows


def _worst(k, distance, n, first, d_x, xs, keep: int, blocks: int, threads: int):
    """The ``keep`` worst lanes as rows (distance, pattern, lane): the largest keys
    ``distance << 32 | ~pattern``, one pass each, queued back to back (distance < 2**32: an
    FP32 index span). Each pass took a round trip to the host before: 8 ms of a 34 ms chunk
    on the H200."""
    cuda = frames().cuda
    start = np.zeros(keep + 1, dtype=np.uint64)
    start[0] = np.uint64(0xFFFFFFFFFFFFFFFF)         # the first pass's bound: every key
    best = cuda.to_device(start)
    for p in range(1, keep + 1):
        k["worst"][blocks, threads](distance, n, first, d_x, best, p)
    rows = []
    for key in best.copy_to_host()[1:].tolist():
        if key == 0:
            break
        pattern = 0xFFFFFFFF - (key & 0xFFFFFFFF)
        lane = pattern - first if first >= 0 else int(np.flatnonzero(xs == pattern)[0])
        rows.append((key >> 32, pattern, lane))
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def _region_tuples(function: str):
    """The region table as lane_facts takes it (tuples, as the CPU tally passes them)."""
    regions = regions_for(function)
    return (tuple(-math.inf if r.low is None else float(r.low) for r in regions),
            tuple(math.inf if r.high is None else float(r.high) for r in regions),
            tuple(bool(r.high_closed) for r in regions), tuple(bool(r.on_abs) for r in regions))


def frames():
    """The GPU frames' module: it imports numba.cuda, the gpu extra's (the CUDA driver, or
    numba's simulator), so only a run on the GPU loads it."""
    from sfpu_sim.fp32sweep import gpu_frames

    return gpu_frames
