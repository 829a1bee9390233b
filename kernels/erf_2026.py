"""erf and erfc kernels as of 2026-09-30 (BF16 Dst): piecewise rational P(x)/Q(x) tables.

Sources: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_erf.h`` and ``ckernel_sfpu_erfc.h`` with the shared evaluator
``ckernel_sfpu_piecewise_rational.h`` (``piecewise_rational_eval<NUM, DEN, SEGMENTS, LUT_SIZE,
USE_PARITY, APPROX_RECIP>``, index id 60521270748).

``erf_2026_09`` (``calculate_erf<false>`` + ``erf_init<false>``): the BF16 table is n8/d8, one
segment, odd numerator / even denominator evaluated in x*x (PR #39406, Mar 2026, then PR #41850;
coefficients "aligned with WH v3 on-device refit", PR #42540, Apr 2026). Read at BH
@09fd4f2e25e1f2ef0084160af2c0e2c447cdd69a (index id 54620352609), WH
@04b3405067aa1e0a4f142aad0f7d3937337f0e12 (index id 54935281525), and in PR #57292's BH branch
(index id 68293660731, opened 2026-09-22 on main a406ad5c), whose non-fast path is the same code:
``x`` clamped to [-10, 10] keeping its sign; ``x2 = x*x``; numerator ``x*(c1 + x2*(c3 + x2*(c5 +
x2*c7)))``, denominator ``1 + x2*(d2 + x2*(d4 + x2*(d6 + x2*d8)))`` (interleaved Horner, each step
one SFPMAD); ``num * reciprocal<2>(den)``; clamped to [-1, 1]. No rounding: the SFPSTORE to the
BF16 Dst truncates.

``erfc_2026_09`` (``calculate_erfc`` + ``erfc_init``): two segments of n4/d5 on [0, 2.5) and
[2.5, 5] fitted to erfc on |x| (PR #41850, merged 2026-04-15; "BF16 MaxULP=118"): ``a =
min(|x|, 5)``, segment 0 evaluated in every lane and overwritten by segment 1 where ``a >=
2.5``, ``num * reciprocal<0>(den)`` (``APPROX_RECIP = true``: on Blackhole the bare SFPARECIP
seed, on Wormhole one Newton step), ``2 - r`` where ``x < 0`` (the raw sign test, so -0
too). No rounding. This is the fallback PR #57292's BH branch keeps (index id 68719963919,
"previous kernel ... 2631.1 cycles/tile" on main); the WH table is read from that file (the
stored WH revisions of ckernel_sfpu_erfc.h are later, unmerged rewrites: @017f823c, an
exp/asymptotic form). That Wormhole ran this table on 2026-09-30 is supported by tt-llk's
budget (@01d9b424): Erfc Float16_b -> Float16_b, dest_acc No, max 11215 steps, "tracked: #51137
(input clamp)", measured 2026-09-30 on Wormhole, which this kernel reproduces exactly (tests).

Spelling: the Sep-2026 files write the clamps as ``sfpi::symmetric_clamp(x, 10)`` and
``sfpi::clamp(r, -1, 1)``; the earlier revision of the same code (BH @09fd4f2e) spells them
out as SFPSETSGN + SFPSWAP min/max + SFPSETSGN and two SFPSWAPs, which is what is modelled
here. The two agree on every non-NaN input; what the newer sfpi lowering does with NaN is not
pinned.

Both kernels read the reciprocal seed constants on Wormhole (``sfpu_reciprocal_init``); the
stored revisions disagree on them (see kernels/gelu_2026.py) and the tests show that the
choice does not change either kernel's output.
"""
from __future__ import annotations

from sfpu_sim import register_kernel
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim.sfpi import (abs, dst_reg, setsgn, v_endif, v_if, vConst1, vConstNeg1,
                           vec_min_max, vFloat)

# BF16 erf table (ERF_LUT entries 2..19): odd numerator c1..c7, even denominator d0..d8.
ERF_NUM_ODD = (1.1280932447e+00, 2.7609212279e-01, 4.5400281738e-02, 7.4481184425e-04)
ERF_DEN_EVEN = (1.0, 5.7439188334e-01, 1.3675764810e-01, 8.2844606784e-03, 2.4813862145e-05)
ERF_CLAMP = 10.0

# erfc segments (ERFC_LUT): breakpoints 0, 2.5, 5; numerator c0..c4, denominator d0..d5.
ERFC_BREAK = 2.5
ERFC_CLAMP = 5.0
ERFC_SEGMENTS = (
    ((1.0000233650e+00, -1.3375675678e+00, 6.8185544014e-01, -1.5691982210e-01,
      1.3746744953e-02),
     (1.0, -2.0801517367e-01, 4.3667086959e-01, -3.4568668343e-03, 2.5104774162e-02,
      2.8375532478e-02)),
    ((-2.5655237550e-05, 2.1275576728e-05, -6.6162156145e-06, 9.1439767402e-07,
      -4.7387182178e-08),
     (1.0, -1.6457208991e-01, -2.0572184026e-01, -1.3888636231e-01, 1.2677097321e-01,
      -2.1375391632e-02)),
)


def rational_parity(x, num_odd, den_even):
    """``piecewise_rational_eval_parity_numer_denom``: both polynomials in ``x2 = x*x``, the
    denominator's extra leading steps first, then one numerator and one denominator step at a
    time; the numerator ends multiplied by ``x``."""
    x2 = x * x
    number = vFloat(num_odd[-1])
    denom = vFloat(den_even[-1])
    extra = (len(den_even) - 1) - (len(num_odd) - 1)
    for k in range(extra):
        denom = denom * x2 + den_even[-2 - k]
    for k in range(len(num_odd) - 2, -1, -1):
        number = number * x2 + num_odd[k]
        denom = denom * x2 + den_even[k]
    return number * x, denom


def rational_horner(x, num, den):
    """``piecewise_rational_eval_numer_denom``: both polynomials in ``x``, the longer one's extra
    leading steps first, then interleaved."""
    number, denom = vFloat(num[-1]), vFloat(den[-1])
    for i in range(len(den) - 2, len(num) - 2, -1):
        denom = denom * x + den[i]
    for i in range(len(num) - 2, -1, -1):
        number = number * x + num[i]
        denom = denom * x + den[i]
    return number, denom


def erf_2026_09():
    """One iteration of ``calculate_erf<false>`` (BF16 table)."""
    x = dst_reg[0]
    ax = setsgn(x, 0)
    limit = vFloat(ERF_CLAMP)
    vec_min_max(ax, limit)                      # ax = min(|x|, 10)
    x = setsgn(ax, x)
    number, denom = rational_parity(x, ERF_NUM_ODD, ERF_DEN_EVEN)
    result = number * reciprocal(denom, 2)
    low = vFloat(vConstNeg1)
    high = vFloat(vConst1)
    vec_min_max(low, result)                    # result = max(result, -1)
    vec_min_max(result, high)                   # result = min(result, 1)
    dst_reg[0] = result


def erf_2026_09_init():
    """``erf_init<false>``: ``sfpu_reciprocal_init<false>()``."""
    reciprocal_init(False)


def erfc_2026_09():
    """One iteration of ``calculate_erfc`` (BF16 table)."""
    x = dst_reg[0]
    a = abs(x)
    limit = vFloat(ERFC_CLAMP)
    vec_min_max(a, limit)                       # a = min(|x|, 5)
    (num0, den0), (num1, den1) = ERFC_SEGMENTS
    number, denom = rational_horner(a, num0, den0)
    with v_if(a >= ERFC_BREAK):
        number1, denom1 = rational_horner(a, num1, den1)
        number.assign(number1)
        denom.assign(denom1)
    v_endif()
    r = number * reciprocal(denom, 0)
    with v_if(x < 0.0):
        r.assign(2.0 - r)
    v_endif()
    dst_reg[0] = r


def erfc_2026_09_init():
    """``erfc_init``: ``sfpu_reciprocal_init<true>()`` (Blackhole: nothing; Wormhole: the seed
    constants, loaded in every mode)."""
    reciprocal_init(True)


register_kernel(
    "erf_2026_09", erf_2026_09, init=erf_2026_09_init, function="erf", mode="accurate",
    dest="bf16",
    template="calculate_erf", params={"APPROXIMATION_MODE": False},
    provenance="tt-metal ckernel_sfpu_erf.h calculate_erf<false> (BF16 n8/d8 parity rational, "
               "PRs #39406/#41850, coefficients of PR #42540; read BH @09fd4f2e, WH @04b34050; "
               "unchanged in PR #57292's fallback on main a406ad5c, 2026-09-22): clamp |x| to 10, "
               "x*P(x^2)/Q(x^2) with _sfpu_reciprocal_<2>, clamp to [-1, 1]; no rounding",
    description="ttnn.erf on a BF16 tensor, Apr - Sep 2026")

register_kernel(
    "erfc_2026_09", erfc_2026_09, init=erfc_2026_09_init, function="erfc", mode="accurate",
    dest="bf16",
    template="calculate_erfc", params={},
    provenance="tt-metal ckernel_sfpu_erfc.h calculate_erfc (PR #41850, 2026-04-15: 2 segments "
               "n4/d5 on [0, 2.5) and [2.5, 5] of |x|, APPROX_RECIP reciprocal<0>, 2 - r for "
               "x < 0; read in PR #57292's BH fallback, main a406ad5c 2026-09-22; WH per the "
               "tt-llk budget of 2026-09-30); no rounding",
    description="ttnn.erfc on a BF16 tensor, Apr - Sep 2026")
