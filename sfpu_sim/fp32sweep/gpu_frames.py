"""The GPU frames of an FP32-sweep chunk (:mod:`.gpu_chunk` runs them): fill, finish, worst and
gather, each a CUDA kernel around the per-lane definitions the CPU runs.

Owns: the frames' code only. Imports numba.cuda (the gpu extra; with
``NUMBA_ENABLE_CUDASIM=1`` numba's simulator, which swaps this module's ``cuda`` for its own
while a kernel runs: the frames refer to it as a global for that reason).
"""
from __future__ import annotations

from functools import cache

import numpy as np
from numba import cuda

from sfpu_sim.compiled import gpu
from sfpu_sim.isa.convert import drop_mantissa_bits
from sfpu_sim.isa.loadstore import dst_to_fp32, fp32_to_dst
from sfpu_sim.fp32sweep import enclose
from sfpu_sim.fp32sweep.lane_tally import BINS, histogram_bin, in_cross_sample, lane_facts
from sfpu_sim.fp32sweep.tally import CLASSES
from sfpu_sim.machine import LANES_PER_SFPU

UNDECIDED, DENORMAL, SAMPLE = 0, 1, 2          # the lists of lanes the CPU sees
# (sign mask, mantissa mask, mantissa bits) of the output
MASKS = {False: (0x80000000, 0x7FFFFF, 23), True: (0x8000, 0x7F, 7)}


@cache
def kernels(code: int, regions: int, bf16: bool = False) -> dict:
    """The frames for reference function ``code`` (:data:`~.enclose.FUNCTIONS`) and a table of
    ``regions`` regions (closure constants: shared arrays take fixed shapes)."""
    gpu.ieee_float64()
    decide = enclose.DECIDE_LANE[code]
    sums_width = 11 + 2 * regions
    sign_mask, man_mask, man_bits = MASKS[bf16]

    @cuda.jit(device=True, inline=True)
    def count(exponent, region, cls, d, kcls, kd, classes, hist, kernel_hist, device_both_hist,
              added_hist, added, region_hist, region_inputs, binades, sums):
        """What a counted lane adds: lane_tally._tally's accumulation, atomically (lanes share the
        block's accumulators)."""
        cuda.atomic.add(sums, 0, 1)
        if region >= 0:
            cuda.atomic.add(region_inputs, region, 1)
        cuda.atomic.add(binades, (exponent, 0), 1)
        cuda.atomic.add(classes, cls, 1)
        if d < 0:
            return
        k = histogram_bin(d)
        cuda.atomic.add(hist, k, 1)
        cuda.atomic.add(sums, 1, d)
        cuda.atomic.max(sums, 2, d)
        cuda.atomic.add(binades, (exponent, 1), 1)
        cuda.atomic.add(binades, (exponent, 2), d)
        cuda.atomic.max(binades, (exponent, 3), d)
        if d == 0:
            cuda.atomic.add(binades, (exponent, 4), 1)
        if region >= 0:
            cuda.atomic.add(region_hist, (region, k), 1)
            cuda.atomic.add(sums, 11 + 2 * region, d)
            cuda.atomic.max(sums, 12 + 2 * region, d)
        if kcls > 1 or kd < 0:
            return
        cuda.atomic.add(sums, 3, 1)
        cuda.atomic.add(kernel_hist, histogram_bin(kd), 1)
        cuda.atomic.add(sums, 4, kd)
        cuda.atomic.max(sums, 5, kd)
        cuda.atomic.add(device_both_hist, k, 1)
        cuda.atomic.add(sums, 6, d)
        cuda.atomic.max(sums, 7, d)
        a = d - kd
        cuda.atomic.add(added, 0 if a > 0 else (1 if a < 0 else 2), 1)
        cuda.atomic.max(sums, 8, a)
        cuda.atomic.add(added_hist, histogram_bin(abs(a)), 1)

    @cuda.jit(device=True, inline=True)
    def write_lane(cells, s, r, c, value, high, low, columns):
        """dst_moves.write_32bit for lane ``8r + c`` of SFPU ``s``: the Dst shuffle
        (isa.loadstore's), the high half at ``high[r]``, the low half at ``low[r]``."""
        datum = fp32_to_dst(np.uint32(value))
        cells[s, high[r], columns[c]] = datum >> 16
        cells[s, low[r], columns[c]] = datum & 0xFFFF

    @cuda.jit(device=True, inline=True)
    def read_lane(cells, s, r, c, high, low, columns):
        """dst_moves.read_32bit for one lane: its standard-layout FP32 pattern."""
        return dst_to_fp32((np.uint32(cells[s, high[r], columns[c]]) << 16) |
                           np.uint32(cells[s, low[r], columns[c]]))

    @cuda.jit(device=True, inline=True)
    def packed(cells, s, r, c, high, low, columns):
        """The lane's output: its Dst cell through the packer (sweeps._pack's FP32 path: as
        is, or to BF16 rounding to nearest, ties away: SFPSTOCHRND's rounding)."""
        value = read_lane(cells, s, r, c, high, low, columns)
        if bf16:
            return drop_mantissa_bits(value, 16, 0x8000) >> 16
        return value

    @cuda.jit(device=True, inline=True)
    def pattern_of(i, first, xs):
        return np.uint32(np.int64(first) + i) if first >= 0 else xs[i]

    @cuda.jit(device=True, inline=True)
    def is_maximum(j):
        """Whether column ``j`` of the tally's ``sums`` is a maximum."""
        return j == 2 or j == 5 or j == 7 or j == 8 or (j >= 12 and j % 2 == 0)

    @cuda.jit(device=True, inline=True)
    def sums_start(j):
        """Column ``j``'s starting value, as :func:`~.tally.accumulators` has it."""
        if j == 8:
            return np.int64(-(1 << 62))
        return np.int64(-1) if is_maximum(j) else np.int64(0)

    @cuda.jit(device=True, inline=True)
    def note(lists, counts, which, i):
        lists[which, cuda.atomic.add(counts, which, 1)] = i

    @cuda.jit
    def fill(cells, n, first, xs, high, low, columns):
        i = cuda.grid(1)
        s, lane = i // LANES_PER_SFPU, i % LANES_PER_SFPU
        width = cells.shape[2]
        for k in range(lane, cells.shape[1] * width, LANES_PER_SFPU):
            cells[s, k // width, k % width] = 0
        cuda.syncthreads()                  # the SFPU's cells are zero before any is written
        value = pattern_of(i, first, xs) if i < n else np.uint32(0)
        write_lane(cells, s, lane // 8, lane % 8, value, high, low, columns)

    @cuda.jit
    def finish(cells, captured, n, first, xs, high, low, columns, pcode, positive_domain,
               specials, sel_low, sel_high, sel_region, r_low, r_high, r_closed, r_abs,
               g_classes, g_hists, g_added, g_region_hist, g_region_inputs, g_binades, g_sums,
               expected, distance, lists, counts, sample_limit):
        classes = cuda.shared.array(CLASSES, np.int64)
        hists = cuda.shared.array((4, BINS), np.int32)
        added = cuda.shared.array(3, np.int64)
        region_hist = cuda.shared.array((regions, BINS), np.int32)
        region_inputs = cuda.shared.array(regions, np.int64)
        binades = cuda.shared.array((256, 5), np.int64)
        sums = cuda.shared.array(sums_width, np.int64)
        t, nt = cuda.threadIdx.x, cuda.blockDim.x
        for j in range(t, BINS, nt):
            for h in range(4):
                hists[h, j] = 0
            for r in range(regions):
                region_hist[r, j] = 0
        for j in range(t, 256 * 5, nt):
            binades[j // 5, j % 5] = 0
        for j in range(t, sums_width, nt):
            sums[j] = sums_start(j)
        for j in range(t, CLASSES, nt):
            classes[j] = 0
        for j in range(t, 3, nt):
            added[j] = 0
        for j in range(t, regions, nt):
            region_inputs[j] = 0
        cuda.syncthreads()
        i = cuda.grid(1)
        while i < n:
            b = pattern_of(i, first, xs)
            s, lane = i // LANES_PER_SFPU, i % LANES_PER_SFPU
            out = packed(cells, s, lane // 8, lane % 8, high, low, columns)
            want, undecided = decide(b, pcode, positive_domain, specials)
            expected[i] = want
            distance[i] = -1
            if undecided:
                note(lists, counts, UNDECIDED, i)
            else:
                counted, exponent, region, cls, d, kcls, kd = lane_facts(
                    b, out, want, captured[i], sign_mask, man_mask, man_bits, bf16, sel_low,
                    sel_high, sel_region, r_low, r_high, r_closed, r_abs)
                if counted:
                    distance[i] = d
                    count(exponent, region, cls, d, kcls, kd, classes, hists[0], hists[1],
                          hists[2], hists[3], added, region_hist, region_inputs, binades, sums)
                    if d >= 0 and in_cross_sample(b, sample_limit):
                        note(lists, counts, SAMPLE, i)
                if (b >> 23) & 0xFF == 0 and b & 0x7FFFFF != 0:
                    note(lists, counts, DENORMAL, i)
            i += cuda.gridsize(1)
        cuda.syncthreads()
        for j in range(t, BINS, nt):
            for h in range(4):
                if hists[h, j]:
                    cuda.atomic.add(g_hists, (h, j), hists[h, j])
            for r in range(regions):
                if region_hist[r, j]:
                    cuda.atomic.add(g_region_hist, (r, j), region_hist[r, j])
        for j in range(t, 256 * 5, nt):
            e, column = j // 5, j % 5
            if binades[e, column]:
                if column == 3:
                    cuda.atomic.max(g_binades, (e, column), binades[e, column])
                else:
                    cuda.atomic.add(g_binades, (e, column), binades[e, column])
        for j in range(t, sums_width, nt):
            if is_maximum(j):
                cuda.atomic.max(g_sums, j, sums[j])
            elif j != 9:                    # 9: the CPU's worst count
                cuda.atomic.add(g_sums, j, sums[j])
        for j in range(t, CLASSES, nt):
            if classes[j]:
                cuda.atomic.add(g_classes, j, classes[j])
        for j in range(t, 3, nt):
            if added[j]:
                cuda.atomic.add(g_added, j, added[j])
        for j in range(t, regions, nt):
            if region_inputs[j]:
                cuda.atomic.add(g_region_inputs, j, region_inputs[j])

    @cuda.jit
    def worst(distance, n, first, xs, best, p):
        """best[p]: the largest key below best[p - 1] (the pass before, in stream order: no
        round trip to the host between passes); 0 when none is left."""
        bound = best[p - 1]
        top = np.uint64(0)
        i = cuda.grid(1) if bound else n
        while i < n:
            d = distance[i]
            if d >= 0:
                key = (np.uint64(d) << np.uint64(32)) | \
                    (np.uint64(0xFFFFFFFF) - np.uint64(pattern_of(i, first, xs)))
                if top < key < bound:
                    top = key
            i += cuda.gridsize(1)
        if top:
            cuda.atomic.max(best, p, top)

    @cuda.jit
    def gather(lanes, count, cells, captured, expected, distance, first, xs, high, low,
               columns, table):
        j = cuda.grid(1)
        if j < count:
            i = lanes[j]
            s, lane = i // LANES_PER_SFPU, i % LANES_PER_SFPU
            table[j, 0] = pattern_of(i, first, xs)
            table[j, 1] = packed(cells, s, lane // 8, lane % 8, high, low, columns)
            table[j, 2] = expected[i]
            table[j, 3] = captured[i]
            table[j, 4] = distance[i]

    return {"fill": fill, "finish": finish, "worst": worst, "gather": gather}
