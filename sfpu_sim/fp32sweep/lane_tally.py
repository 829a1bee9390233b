"""The FP32 tally's lane loop, compiled: what one lane adds to a chunk's accumulators, for
the CPU's parts (:func:`_tally`, :func:`tally_parts`) and the GPU's frames
(:func:`lane_facts`, :func:`histogram_bin`, :func:`in_cross_sample`).

Owns: the distance and class of a lane (``daz-index`` steps, the formula of :mod:`sfpu_sim.ulp`,
bitwise), its histogram bin, the worst-lane heap and the loop. :mod:`.tally` owns the arrays
these fill, the Partial they become and how Partials merge.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import jit

EXACT = 1024                                   # distances 0..1023 counted one by one
WIDE = 24                                      # then [2^10, 2^11), ..., [2^33, 2^34)
BINS = EXACT + WIDE
_jit = jit.njit(nogil=True)
# No per-call array reference counting. Cached too: numba's CUDA simulator calls these from
# Python, which compiles them on their own (3-5 s for lane_facts) in every process otherwise.
_inline = jit.njit(inline="always")


@_inline
def _index(b, sign_mask, man_mask, man_bits):
    magnitude = b & (sign_mask - 1)
    rank = magnitude - man_mask if magnitude > man_mask else 0
    return -rank if b & sign_mask else rank


@_inline
def _classify(e, a, sign_mask, man_mask, man_bits):
    """(lane class, distance or -1) of expected ``e`` and actual ``a`` (ulp._classes)."""
    exp_mask = (sign_mask - 1) & ~man_mask
    e_nan = (e & exp_mask) == exp_mask and (e & man_mask) != 0
    a_nan = (a & exp_mask) == exp_mask and (a & man_mask) != 0
    e_inf = (e & exp_mask) == exp_mask and (e & man_mask) == 0
    a_inf = (a & exp_mask) == exp_mask and (a & man_mask) == 0
    cls = 0
    if (e_inf or a_inf) and not (e_nan or a_nan):
        cls = 2
    if e_inf and a_inf and e == a:
        cls = 1
    if e_nan != a_nan:
        cls = 4
    if e_nan and a_nan:
        cls = 3
    if cls >= 3:
        return cls, -1
    d = _index(e, sign_mask, man_mask, man_bits) - _index(a, sign_mask, man_mask, man_bits)
    return cls, abs(d)


@_inline
def histogram_bin(d):
    if d < EXACT:
        return d
    n = 0
    while d > 0:
        d >>= 1
        n += 1
    return EXACT + n - 11


@_inline
def _ranks_above(d1, x1, d2, x2):
    """Whether a lane of distance ``d1`` and pattern ``x1`` ranks above one of ``d2``, ``x2``."""
    return d1 > d2 or (d1 == d2 and x1 < x2)


@_inline
def _insert_worst(worst, count, d, x, i):
    """Keep the rows (distance, pattern, lane) of the ``len(worst)`` highest-ranked lanes as a
    heap whose root (row 0) ranks lowest: the floor a lane must pass, replaced in log2(keep)
    steps. A sorted list shifted every row a lane passed: a walk going down through lanes of
    one distance (Tenstorrent's strided walk over negative inputs) passed all of them, every
    lane, and the tally took 7x as long. The rows are in no rank order (tally_chunk ranks
    them)."""
    k = worst.shape[0]
    if count < k:                               # sift up from the end
        j = count
        while j > 0 and _ranks_above(worst[(j - 1) // 2, 0], worst[(j - 1) // 2, 1], d, x):
            worst[j] = worst[(j - 1) // 2]
            j = (j - 1) // 2
        worst[j, 0], worst[j, 1], worst[j, 2] = d, x, i
        return count + 1
    j = 0                                       # the root goes: sift down from it
    while 2 * j + 1 < k:
        c = 2 * j + 1
        if c + 1 < k and _ranks_above(worst[c, 0], worst[c, 1], worst[c + 1, 0],
                                      worst[c + 1, 1]):
            c += 1
        if not _ranks_above(d, x, worst[c, 0], worst[c, 1]):
            break
        worst[j] = worst[c]
        j = c
    worst[j, 0], worst[j, 1], worst[j, 2] = d, x, i
    return count


@_inline
def lane_facts(b, out, expected, kernel, sign_mask, man_mask, man_bits, bf16, sel_low, sel_high,
               sel_region, r_low, r_high, r_closed, r_abs):
    """What one lane adds to a tally, for every frame that tallies (the CPU loop below, the GPU
    chunk): ``(counted, exponent, region, cls, d, kcls, kd)``. ``counted`` is False outside
    population daz (normals and +0) or the selection, and nothing else is meaningful then;
    ``d`` is the device output's distance, -1 where the lane is unmeasured (class > 1);
    ``kcls``, ``kd`` the same of the kernel's own FP32 result rounded as the output is."""
    exponent = (b >> 23) & 0xFF
    if not ((exponent != 0 and exponent != 0xFF) or b == 0):
        return False, exponent, -1, 0, -1, 0, -1        # population daz: normals and +0
    v = np.float64(np.uint32(b).view(np.float32))
    if v < sel_low or v > sel_high:
        return False, exponent, -1, 0, -1, 0, -1
    region = -1
    for r in range(len(r_low)):
        axis = abs(v) if r_abs[r] else v
        if axis >= r_low[r] and (axis <= r_high[r] if r_closed[r] else axis < r_high[r]):
            region = r
            break
    if sel_region >= 0 and region != sel_region:
        return False, exponent, region, 0, -1, 0, -1
    e = np.int64(expected)
    cls, d = _classify(e, np.int64(out), sign_mask, man_mask, man_bits)
    if cls > 1 or d < 0:
        return True, exponent, region, cls, -1, 0, -1
    ideal = np.int64(kernel)
    if bf16:
        if (ideal & 0x7F800000) == 0x7F800000 and (ideal & 0x7FFFFF) != 0:
            ideal = ((ideal >> 16) & 0x8000) | 0x7FC0
        else:
            ideal = (ideal + 0x7FFF + ((ideal >> 16) & 1)) >> 16
    if (ideal & ((sign_mask - 1) & ~man_mask)) == 0:
        ideal &= sign_mask
    if ideal == out:                            # most lanes: the device's own pattern
        return True, exponent, region, cls, d, cls, d
    kcls, kd = _classify(e, ideal, sign_mask, man_mask, man_bits)
    return True, exponent, region, cls, d, kcls, kd


@_inline
def _reverse(a, lo, hi):
    """``a[lo:hi]`` in reverse order, in place."""
    for k in range((hi - lo) // 2):
        a[lo + k], a[hi - 1 - k] = a[hi - 1 - k], a[lo + k]


@_jit
def _tally(x, out, expected, kernel, sign_mask, man_mask, man_bits, bf16, sel_low, sel_high,
           sel_region, r_low, r_high, r_closed, r_abs, classes, hist, kernel_hist,
           device_both_hist, added_hist, added, region_hist, region_inputs, binades, worst,
           sums, distance, sample_limit, denormal_lanes, sample_lanes, listed):
    """One chunk into the accumulators (all int64). ``sums``: population, device total, device
    max, both, kernel total, kernel max, device-both total, device-both max, added max (or
    -2**62), worst count, then per region: total, max.
    ``distance``: per lane, -1 where the lane is outside the population, unmeasured or not
    selected. The lanes of denormal inputs and those of the cross-check's sample
    (:func:`in_cross_sample` below ``sample_limit``) go into ``denormal_lanes`` and
    ``sample_lanes`` in lane order, ``listed`` counting each: what :func:`~.tally.denormals`
    and :func:`~.tally.cross_check` read, with no pass of their own over every lane."""
    # The worst lanes' floor in locals: nearly every lane falls short of it, and testing
    # that here rather than in _insert_worst made the tally 1.45x faster (reciprocal_fp32).
    keep, count = worst.shape[0], sums[9]
    floor_d, floor_x = worst[0, 0], worst[0, 1]       # read once the heap is full
    exact = np.zeros((256, len(r_low) + 1), dtype=np.int64)     # see _add_exact_lanes
    # Lanes in ascending pattern order where the part's patterns go down (a walk in value
    # order does, through negative inputs): a lane tied with the worst lanes' floor then never
    # passes it (_insert_worst). The lists are put back in lane order at the end.
    n = x.shape[0]
    backwards = n > 1 and x[0] > x[n - 1]
    first_listed = listed[0], listed[1]
    for step in range(n):
        i = n - 1 - step if backwards else step
        b = x[i]
        counted, exponent, region, cls, d, kcls, kd = lane_facts(
            b, out[i], expected[i], kernel[i], sign_mask, man_mask, man_bits, bf16, sel_low,
            sel_high, sel_region, r_low, r_high, r_closed, r_abs)
        distance[i] = d if counted else -1
        if exponent == 0 and b & 0x7FFFFF:
            denormal_lanes[listed[0]] = i
            listed[0] += 1
        if not counted:
            continue
        if d >= 0:
            if in_cross_sample(b, sample_limit):
                sample_lanes[listed[1]] = i
                listed[1] += 1
            if count < keep or d > floor_d or (d == floor_d and b <= floor_x):
                count = _insert_worst(worst, count, d, np.int64(b), i)
                if count == keep:
                    floor_d, floor_x = worst[0, 0], worst[0, 1]
        if d == 0 and kd == 0 and cls == 0 and kcls == 0:
            exact[exponent, region + 1] += 1        # its counts are added at the end
            continue
        # What a counted lane adds (gpu_frames' finish adds the same, atomically). Written out
        # here: through a helper each array it passed was reference-counted per lane, 3.2x
        # slower.
        sums[0] += 1
        if region >= 0:
            region_inputs[region] += 1
        binades[exponent, 0] += 1
        classes[cls] += 1
        if d < 0:
            continue
        k = histogram_bin(d)
        hist[k] += 1
        sums[1] += d
        sums[2] = max(sums[2], d)
        binades[exponent, 1] += 1
        binades[exponent, 2] += d
        binades[exponent, 3] = max(binades[exponent, 3], d)
        if d == 0:
            binades[exponent, 4] += 1
        if region >= 0:
            region_hist[region, k] += 1
            sums[11 + 2 * region] += d
            sums[12 + 2 * region] = max(sums[12 + 2 * region], d)
        if kcls > 1 or kd < 0:
            continue
        sums[3] += 1
        kernel_hist[histogram_bin(kd)] += 1
        sums[4] += kd
        sums[5] = max(sums[5], kd)
        device_both_hist[k] += 1
        sums[6] += d
        sums[7] = max(sums[7], d)
        a = d - kd
        added[0 if a > 0 else (1 if a < 0 else 2)] += 1
        sums[8] = max(sums[8], a)
        added_hist[histogram_bin(abs(a))] += 1
    sums[9] = count
    if backwards:
        _reverse(denormal_lanes, first_listed[0], listed[0])
        _reverse(sample_lanes, first_listed[1], listed[1])
    _add_exact_lanes(exact, classes, hist, kernel_hist, device_both_hist, added_hist, added,
                     region_hist, region_inputs, binades, sums)


@_inline
def _add_exact_lanes(exact, classes, hist, kernel_hist, device_both_hist, added_hist, added,
                     region_hist, region_inputs, binades, sums):
    """What :func:`_tally`'s exact lanes (device and kernel at distance 0, class 0) add, from
    their count per binade and region (``exact[exponent, region + 1]``): one increment a lane
    in the loop instead of twenty (most lanes of a good kernel: the tally 1.3x faster)."""
    for e in range(256):
        for column in range(exact.shape[1]):
            z = exact[e, column]
            if z == 0:
                continue
            r = column - 1
            sums[0] += z
            if r >= 0:
                region_inputs[r] += z
                region_hist[r, 0] += z
                sums[12 + 2 * r] = max(sums[12 + 2 * r], 0)
            binades[e, 0] += z
            binades[e, 1] += z
            binades[e, 3] = max(binades[e, 3], 0)
            binades[e, 4] += z
            classes[0] += z
            hist[0] += z
            kernel_hist[0] += z
            device_both_hist[0] += z
            added_hist[0] += z
            added[2] += z
            sums[3] += z
            for j in (2, 5, 7, 8):                  # the maxima, of distances 0
                sums[j] = max(sums[j], 0)


@_jit
def tally_parts(start, stop, bounds, x, out, expected, kernel, sign_mask, man_mask, man_bits,
                bf16, sel_low, sel_high, sel_region, r_low, r_high, r_closed, r_abs, classes,
                hists, added, region_hist, region_inputs, binades, rows, sums, distance,
                sample_limit, denormal_lanes, sample_lanes, listed):
    """:func:`_tally` of parts ``start..stop`` (lanes ``bounds[p]..bounds[p+1]``), each into
    its own accumulators (row p): threads.parallel_for's kernel."""
    for p in range(start, stop):
        a, b = bounds[p], bounds[p + 1]
        _tally(x[a:b], out[a:b], expected[a:b], kernel[a:b], sign_mask, man_mask, man_bits,
               bf16, sel_low, sel_high, sel_region, r_low, r_high, r_closed, r_abs, classes[p],
               hists[p, 0], hists[p, 1], hists[p, 2], hists[p, 3], added[p], region_hist[p],
               region_inputs[p], binades[p], rows[p], sums[p], distance[a:b], sample_limit,
               denormal_lanes[a:b], sample_lanes[a:b], listed[p])


@_inline
def in_cross_sample(b, limit):
    """Whether the lane of input pattern ``b`` is in the cross-check's sample: a fixed hash of
    the pattern (modulo 2**32) below ``limit`` (:func:`cross_check_limit`)."""
    return (np.uint64(b) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF) < limit
