"""tanh kernels (tt-metal ``ckernel_sfpu_tanh.h``, Nov 2025 - Sep 2026).

``tanh``: what ttnn.tanh runs on a BF16 tensor by default in Jan 2026 (accurate mode, BF16
Dst): tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_tanh.h`` as introduced by PR #31685 (Nov 2025) and unchanged in its math
through Aug 2026: ``tanh_init<false, false>`` and ``calculate_tanh<false, false>`` ->
``_sfpu_tanh_polynomial_`` then ``float_to_fp16b(result, 0)``.

Variants (sources and choices in the comment blocks above each group below):

* ``tanh_approx``: the 3-entry SFPLUT of ``calculate_tanh<APPROXIMATION_MODE=true>`` (2024 -
  Aug 2026).
* ``tanh_approx_2026_09``: PR #56076's 6-entry SFPLUTFP32 table (Sep 2026, the shipped "tied"
  table); ``tanh_approx_2026_09_minimax``: the PR's unconstrained minimax table.
* ``tanh_fp32``: ``_sfpu_tanh_fp32_accurate_`` (PR #34927, Jan 2026), FP32 Dst.
* ``tanh_fp32_2025_11``: ``_sfpu_tanh_continued_fraction_`` (PR #31685, Nov 2025), FP32 Dst.

The LUT kernels read their tables in place with ``l_reg[...]`` (sfpi's ``vUInt l0 =
l_reg[LRegs::LReg0]``): six copies plus the six table registers would not fit in eight LRegs.
"""
from __future__ import annotations

import numpy as np

from kernels.common import polyval
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    LRegs,
    abs,
    dst_reg,
    float_to_fp16b,
    l_reg,
    lut,
    lut2,
    reinterpret,
    setsgn,
    v_else,
    v_endif,
    v_if,
    vConst0,
    vConst1,
    vConstFloatPrgm0,
    vConstFloatPrgm1,
    vConstFloatPrgm2,
    vec_min_max,
    vFloat,
    vUInt,
)


def tanh_init():
    """Coefficients of the three highest powers go to the programmable constants."""
    vConstFloatPrgm0.assign(5.876733921468257904052734375e-3)
    vConstFloatPrgm1.assign(-6.6649019718170166015625e-2)
    vConstFloatPrgm2.assign(0.281917631626129150390625)


def tanh_polynomial(x):
    """Degree-6 minimax of tanh on |x| (Sollya), clamped to 1, sign restored."""
    val = abs(x)
    result = polyval(val, vConst0, 0.999004364013671875, 3.0897438526153564453125e-2,
                     -0.4890659749507904052734375, vConstFloatPrgm2, vConstFloatPrgm1,
                     vConstFloatPrgm0)
    threshold = vFloat(vConst1)
    vec_min_max(result, threshold)        # result = min(result, 1.0)
    return setsgn(result, x)


def tanh():
    """One iteration of calculate_tanh<APPROXIMATION_MODE=false, is_fp32_dest_acc_en=false>."""
    val = dst_reg[0]
    result = tanh_polynomial(val)
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(result, 0))


register_kernel(
    "tanh", tanh, init=tanh_init, function="tanh", mode="accurate", dest="bf16",
    template="calculate_tanh", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance="tt-metal ckernel_sfpu_tanh.h, PR #31685 (Nov 2025), math unchanged through "
               "Aug 2026 (PR #52732 restructured it): degree-6 minimax on |x|, min(p, 1), sign "
               "restored, float_to_fp16b(p, 0)",
    description="ttnn.tanh default (accurate) on a BF16 tensor")


# ============================================================================================
# Variants (tt-metal ckernel_sfpu_tanh.h; tt-llk _calculate_tanh_; PR #56076)
# ============================================================================================
#
# tanh_approx: tanh_init<true> / calculate_tanh<APPROXIMATION_MODE=true> in tt-metal
# ckernel_sfpu_tanh.h (identical to tt-llk ``_init_tanh_`` / ``_calculate_tanh_``, tt-llk
# c635ca695 2026-01-30), unchanged from 2024 until PR #56076 (Sep 2026): one SFPLUT with the
# 8-bit pairs 0x1DFF / 0x481A / 0xFF00 on |x| < 1, < 2, beyond, sign retained, no rounding (the
# truncating SFPSTORE ends it).
#
# tanh_approx_2026_09: PR #56076 (merged 2026-09-10), tt-metal ckernel_sfpu_tanh.h
# ``tanh_init_constants<true>``: one SFPLUTFP32 FP16 6-entry TABLE1 (cuts 0.5, 1, 1.5, 2, 3)
# with sign retained, no rounding. The shipped ("tied") table holds the segment-1 intercept and
# the segment-3 slope one FP16 ulp below their minimax values (the header's comment);
# tanh_approx_2026_09_minimax is the PR's other table, with those two half-words one FP16 ulp
# higher (0x322D, 0x2E2D instead of 0x322C, 0x2E2C; both in the PR). The sfpi source writes it
# as ``sfpi::lut(val, s01, i01, s23, i23, s45, i45, LutSign::Retain)``, the same SFPLUTFP32 as
# our ``lut2(..., mode=1)``.

def _lut16(value: float) -> int:
    """The 16-bit SFPLUTFP32 table entry of ``value`` (sfpi ``vLut16``): FP16 fields; zero is
    encoded with exponent 31 (0x7C00), which the LUT reads as zero."""
    if value == 0.0:
        return 0x7C00
    half = np.float16(value)
    if float(half) != value:
        raise ValueError(f"{value!r} is not exact in FP16")
    return int(half.view(np.uint16))


def _lut16_pair(first: float, second: float) -> int:
    """One LReg of a 6-entry table: ``first`` (the lower segment) in the low half."""
    return (_lut16(second) << 16) | _lut16(first)


def tanh_approx_init():
    """``tanh_init<true>``: ``_sfpu_load_imm16_`` of the three SFPLUT pairs into LReg0-2."""
    l_reg[LRegs.LReg0] = vUInt(0x1DFF)       # 0.90625 * |x|
    l_reg[LRegs.LReg1] = vUInt(0x481A)       # 0.09375 * |x| + 0.8125
    l_reg[LRegs.LReg2] = vUInt(0xFF00)       # 1.0


def tanh_approx():
    """One iteration of calculate_tanh<APPROXIMATION_MODE=true> (the SFPLUT form)."""
    l0 = l_reg[LRegs.LReg0]
    l1 = l_reg[LRegs.LReg1]
    l2 = l_reg[LRegs.LReg2]
    val = dst_reg[0]
    val = lut(val, l0, l1, l2)
    dst_reg[0] = val


# Slopes and intercepts per segment [0, .5), [.5, 1), [1, 1.5), [1.5, 2), [2, 3), [3, inf).
TANH_LUT6_SLOPES = (0.9619140625, 0.576171875, 0.287109375, 0.096435546875, 0.0390625, 0.0)
TANH_LUT6_INTERCEPTS = (0.0, 0.19287109375, 0.48193359375, 0.76806640625, 0.8828125, 1.0)
# The "minimax" table of PR #56076: segment-1 intercept and segment-3 slope one FP16 ulp up.
TANH_LUT6_MINIMAX_SLOPES = (0.9619140625, 0.576171875, 0.287109375, 0.09649658203125,
                            0.0390625, 0.0)
TANH_LUT6_MINIMAX_INTERCEPTS = (0.0, 0.1929931640625, 0.48193359375, 0.76806640625, 0.8828125,
                                1.0)


def _load_lut6(slopes, intercepts):
    """Slopes into LReg0/1/2, intercepts into LReg4/5/6, two segments per register."""
    l_reg[LRegs.LReg0] = vUInt(_lut16_pair(slopes[0], slopes[1]))
    l_reg[LRegs.LReg4] = vUInt(_lut16_pair(intercepts[0], intercepts[1]))
    l_reg[LRegs.LReg1] = vUInt(_lut16_pair(slopes[2], slopes[3]))
    l_reg[LRegs.LReg5] = vUInt(_lut16_pair(intercepts[2], intercepts[3]))
    l_reg[LRegs.LReg2] = vUInt(_lut16_pair(slopes[4], slopes[5]))
    l_reg[LRegs.LReg6] = vUInt(_lut16_pair(intercepts[4], intercepts[5]))


def tanh_approx_2026_09_init():
    """``tanh_init_constants<true>`` of PR #56076: the shipped ("tied") 6-entry table."""
    _load_lut6(TANH_LUT6_SLOPES, TANH_LUT6_INTERCEPTS)


def tanh_approx_2026_09_minimax_init():
    """The PR's minimax table (two half-words one FP16 ulp above the shipped ones)."""
    _load_lut6(TANH_LUT6_MINIMAX_SLOPES, TANH_LUT6_MINIMAX_INTERCEPTS)


def tanh_approx_lut6():
    """One iteration of calculate_tanh<APPROXIMATION_MODE=true> after PR #56076."""
    s01 = l_reg[LRegs.LReg0]
    s23 = l_reg[LRegs.LReg1]
    s45 = l_reg[LRegs.LReg2]
    i01 = l_reg[LRegs.LReg4]
    i23 = l_reg[LRegs.LReg5]
    i45 = l_reg[LRegs.LReg6]
    val = dst_reg[0]
    val = lut2(val, s01, s23, s45, i01, i23, i45, mode=1)
    dst_reg[0] = val


register_kernel(
    "tanh_approx", tanh_approx, init=tanh_approx_init, function="tanh", mode="approximate",
    dest="bf16",
    provenance="tt-metal ckernel_sfpu_tanh.h tanh_init<true>/calculate_tanh<true> (= tt-llk "
               "_init_tanh_/_calculate_tanh_, c635ca695 2026-01-30), unchanged 2024 - Sep 2026: "
               "SFPLUT 0x1DFF/0x481A/0xFF00, sign retained, no rounding",
    description="ttnn.tanh(fast_and_approximate_mode=True): 3-segment SFPLUT")

register_kernel(
    "tanh_approx_2026_09", tanh_approx_lut6, init=tanh_approx_2026_09_init, function="tanh",
    mode="approximate", dest="bf16",
    template="calculate_tanh", params={"APPROXIMATION_MODE": True},
    provenance="tt-metal ckernel_sfpu_tanh.h tanh_init_constants<true>, PR #56076 (merged "
               "2026-09-10), shipped 'tied' table: SFPLUTFP32 FP16 6-entry TABLE1, sign "
               "retained, no rounding",
    description="approximate tanh after PR #56076: 6-segment FP16 SFPLUTFP32 table")

register_kernel(
    "tanh_approx_2026_09_minimax", tanh_approx_lut6, init=tanh_approx_2026_09_minimax_init,
    function="tanh", mode="approximate", dest="bf16",
    provenance="PR #56076 (Sep 2026) 'minimax' table, not shipped: the tied table with the "
               "segment-1 intercept 0x322D and segment-3 slope 0x2E2D (one FP16 ulp higher)",
    description="PR #56076's unconstrained minimax 6-segment table (for comparison)")


# --------------------------------------------------------------------------------------------
# FP32-Dst tanh (tt-metal ckernel_sfpu_tanh.h, PRs #31685 and #34927)
# --------------------------------------------------------------------------------------------
#
# tanh_fp32: tt-metal ckernel_sfpu_tanh.h as of Jan 2026 (PR #34927 "Improve accuracy of tanh on
# float32", opened 2025-12-22, CI early Jan 2026; index revision 6977776297):
# calculate_tanh<false, is_fp32_dest_acc_en=true> -> _sfpu_tanh_fp32_accurate_<true>:
# |x| < 0.6: x * P(x*x) (Sollya fpminimax of tanh(x)/x, even powers); else
# 2 * _sfpu_sigmoid_<true>(2x) - 1 (exp f32-accurate + _sfpu_reciprocal_<2>). No rounding
# (FP32 Dst). tanh_init<false, true> = sigmoid_init<false>() (the reciprocal constants).
#
# tanh_fp32_2025_11: the same file as PR #31685 left it (Nov 2025; index revision 10330163473,
# Dec 2025): _sfpu_tanh_continued_fraction_ (Lambert's continued fraction, 7th order):
# x = |v|, num = x*(135135 + x2*(17326 + x2*(378 + x2))), den = 135135 + x2*(62370 + x2*(3150 +
# 28 x2)), num * _sfpu_reciprocal_<2>(den), min(., 1), sign of v. Init
# _init_sfpu_reciprocal_<false>. (Still in the Jan-2026 file, unused.)

TANH_FP32_THRESHOLD = 0.6
TANH_FP32_POLY = (0.999999940395355224609375, -0.33332359790802001953125,
                  0.13310669362545013427734375, -5.21197654306888580322265625e-2,
                  1.5497927553951740264892578125e-2)


def tanh_fp32_init():
    """``tanh_init<false, true>`` = ``sigmoid_init<false>()``: the reciprocal constants."""
    reciprocal_init(False)


def tanh_fp32_accurate(val):
    """``_sfpu_tanh_fp32_accurate_<true>(val)``."""
    from kernels.sigmoid import sfpu_sigmoid
    result = vFloat(vConst0)
    abs_val = abs(val)
    with v_if(abs_val < TANH_FP32_THRESHOLD):
        x2 = val * val
        p = polyval(x2, *TANH_FP32_POLY)
        result.assign(val * p)
    with v_else():
        two_x = 2.0 * val
        sig = sfpu_sigmoid(two_x, fp32=True)
        result.assign(2.0 * sig - vConst1)
    v_endif()
    return result


def tanh_fp32():
    """One iteration of ``calculate_tanh<false, true>`` (Jan 2026)."""
    val = dst_reg[0]
    result = tanh_fp32_accurate(val)
    dst_reg[0] = result


def tanh_continued_fraction(val):
    """``_sfpu_tanh_continued_fraction_(val)``."""
    x = abs(val)
    x2 = x * x
    numerator = x * (135135.0 + x2 * (17326.0 + x2 * (378.0 + x2)))
    denominator = polyval(x2, 135135.0, 62370.0, 3150.0, 28.0)
    result = numerator * reciprocal(denominator, 2)
    threshold_value = vFloat(vConst1)
    vec_min_max(result, threshold_value)     # result = min(result, 1.0)
    return setsgn(result, val)


def tanh_fp32_2025_11():
    """One iteration of ``calculate_tanh<false, true>`` as of Nov/Dec 2025."""
    val = dst_reg[0]
    result = tanh_continued_fraction(val)
    dst_reg[0] = result


register_kernel(
    "tanh_fp32", tanh_fp32, init=tanh_fp32_init, function="tanh", mode="accurate", dest="fp32",
    template="calculate_tanh",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="tanh",
    provenance="tt-metal ckernel_sfpu_tanh.h _sfpu_tanh_fp32_accurate_, PR #34927 (Dec 2025 - "
               "Jan 2026): |x| < 0.6 x*P(x^2), else 2*sigmoid<true>(2x) - 1 (exp f32-accurate, "
               "reciprocal<2>); no rounding; init = reciprocal constants",
    description="ttnn.tanh (accurate) with an FP32 Dst, Jan 2026")

register_kernel(
    "tanh_fp32_2025_11", tanh_fp32_2025_11, init=tanh_fp32_init, function="tanh", mode="accurate",
    dest="fp32",
    provenance="tt-metal ckernel_sfpu_tanh.h _sfpu_tanh_continued_fraction_, PR #31685 (Nov "
               "2025) until PR #34927 (Jan 2026): Lambert continued fraction, "
               "num * reciprocal<2>(den), min(., 1), sign restored; no rounding",
    description="ttnn.tanh (accurate) with an FP32 Dst, Nov - Dec 2025")
