"""Sep-2026 kernels of the tanh family behind three table rows: the approximate (LUT) tanh,
the LUT tanh derivative, and GELU's tanh form.

Sources, all tenstorrent/tt-metal (facts carried over, no code):

* ``tanh_approx_2026_09_nodes`` (Tanh(approx=Yes)): ``tt_metal/hw/ckernels/wormhole_b0/metal/
  llk_api/llk_sfpu/ckernel_sfpu_tanh.h``, index id 67162912371 (Jason Davies 2026 header; newer
  than PR #56076, 2026-09-10: it still carries the 6-entry table form, its bf16 path is the
  two-datum ``_sfpu_tanh_polynomial_x2_``). ``tanh_init<true, *>`` loads a 6-entry SFPLUTFP32
  FP16 table (TABLE1, cuts 0.5/1/1.5/2/3) fitted "by node values" (continuity structural, node 0
  at 0, last node 1.0; the header quotes max 9.74 BF16 ULP); ``calculate_tanh<true, *, 32>`` is
  ``lut(x, ..., LutSign::Retain)`` alone: no rounding, no Dst branch. Its table differs from
  PR #56076's "tied" table (``tanh_approx_2026_09`` in kernels/tanh.py), which PR #57292's
  branch (index id 68636432946, on main a406ad5c of 2026-09-22) and a Wormhole revision (id
  71189081383) still carry. The table's figures decide which one the device ran on
  2026-09-30: the tied table reproduces all six Tanh(approx=Yes) cells (10, 10, 78, 78,
  655360, 638298), this one misses four (11, 10, 79, 79, 720896, 638298); so this is a rival
  draft of the Sep-2026 approximate-tanh work, kept for comparison, not main's header
  (tests/test_kernels_tanh_lut_log_2026.py).
* ``tanh_derivative_lut_2026_09`` (TanhDerivativeLut): the harness pairs tt-metal's
  ``tanh_derivative_init<APPROX>`` (``ckernel_sfpu_tanh_derivative.h``, index id 68509003383,
  Sep 2026: the 6-entry table "fitted for sech^2") with tt-llk's
  ``_calculate_tanh_derivative_<APPROX, 0, 32>`` (``tt_metal/tt-llk/tt_llk_wormhole_b0/
  common/inc/sfpu/ckernel_sfpu_tanh_derivative.h``, index id 68347112003): ``v = lut(x, ...,
  Retain)``, ``v * (-v) + 1``; no rounding, no Dst branch. Both ids are the revisions that
  name each other (the table crosses repositories in LReg0-2 / LReg4-6).
* ``gelu_tanh_2026_09`` / ``gelu_tanh_fp32_2026_09`` (GeluTanh): ``ckernel_sfpu_gelu.h``
  ``calculate_gelu_tanh<is_fp32_dest_acc_en, 32>`` (index ids 68288623512, 54520510799: the
  same body) with ``gelu_tanh_init`` = ``tanh_init<false, true>`` (the FP32 constants of
  ``_sfpu_tanh_fp32_accurate_`` whatever the Dst): ``x2 = x*x``, ``p = 0.044715*x2 + 1``,
  ``q = x*p``, ``u = 0.7978845608028654*q``, ``t = _sfpu_tanh_fp32_accurate_(u)`` (reused from
  kernels/tanh_2026.py, per chip), ``h = 0.5*x`` (x reloaded from Dst), ``h*t + h``, then
  ``convert<vFloat16b>(., Nearest)`` with a 16-bit Dst only.

Table entries: sfpi's ``vLut16ss(a0, a1)`` / ``vLut16ii(a0, a1)`` put ``a0`` (the lower
segment) in the low half-word; each float is rounded to FP16 by sfpi's ``sLut::convert``
(add half an FP16 step to the FP32 mantissa, ties away from zero; exponent below FP16's range
-> 0x7C00, the LUT's zero). :func:`sfpi_lut16` mirrors that rule on the C float literal.
"""
from __future__ import annotations

import numpy as np

from kernels.tanh_2026 import tanh_fp32_accurate, tanh_fp32_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (LRegs, dst_reg, float_to_fp16b, l_reg, lut2, reinterpret, vFloat,
                           vUInt)


def sfpi_lut16(literal: float) -> int:
    """The FP16 half-word sfpi's ``sLut<true, *>::convert`` makes of a C float literal."""
    bits = int(np.float32(literal).view(np.uint32))
    sign, exponent, mantissa = bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
    mantissa += 1 << 12                               # half an FP16 step: ties away from 0
    if mantissa >> 23:
        exponent, mantissa = exponent + 1, 0
    mantissa >>= 13
    exponent -= 112                                   # FP32 bias 127 -> FP16 bias 15
    if exponent < 0:
        field = 0x7C00                                # underflow: the LUT's zero
    elif exponent >= 31:
        field = 0x7BFF
    else:
        field = (exponent << 10) | mantissa
    return (sign << 15) | field


def lut16_pair(low_segment: float, high_segment: float) -> int:
    """``vLut16ss/ii(low_segment, high_segment)``: the first argument in the low half."""
    return (sfpi_lut16(high_segment) << 16) | sfpi_lut16(low_segment)


def load_lut6(slopes, intercepts):
    """Slopes into LReg0/1/2, intercepts into LReg4/5/6, two segments per register, in the
    order both inits write them."""
    for pair in range(3):
        lo, hi = 2 * pair, 2 * pair + 1
        l_reg[LRegs.LReg0 + pair] = vUInt(lut16_pair(slopes[lo], slopes[hi]))
        l_reg[LRegs.LReg4 + pair] = vUInt(lut16_pair(intercepts[lo], intercepts[hi]))


def lut6_retain(x):
    """``sfpi::lut(x, s01, i01, s23, i23, s45, i45, LutSign::Retain)``, TABLE1, with the table
    read in place from LReg0-2 and LReg4-6."""
    return lut2(x, l_reg[LRegs.LReg0], l_reg[LRegs.LReg1], l_reg[LRegs.LReg2],
                l_reg[LRegs.LReg4], l_reg[LRegs.LReg5], l_reg[LRegs.LReg6], mode=1)


# --------------------------------------------------------------------------------------------
# Tanh(approx=Yes): tanh_init<true, *> of id 67162912371, the C float literals as written.
# Segments [0, .5), [.5, 1), [1, 1.5), [1.5, 2), [2, 3), [3, inf).
# --------------------------------------------------------------------------------------------
TANH_NODES_SLOPES = (0.96191406, 0.51416016, 0.28979492, 0.088562012, 0.072753906, 0.0)
TANH_NODES_INTERCEPTS = (0.0, 0.22399902, 0.44824219, 0.75, 0.78173828, 1.0)


def tanh_approx_nodes_init():
    """``tanh_init<true, *>`` (id 67162912371): the node-parameterised 6-entry table."""
    load_lut6(TANH_NODES_SLOPES, TANH_NODES_INTERCEPTS)


def tanh_approx_lut6():
    """One iteration of ``calculate_tanh<true, *, 32>``: the table alone, stored as is."""
    dst_reg[0] = lut6_retain(dst_reg[0])


# --------------------------------------------------------------------------------------------
# TanhDerivativeLut: tanh_derivative_init<APPROX> of id 68509003383 (all FP16-exact literals).
# --------------------------------------------------------------------------------------------
SECH2_LUT_SLOPES = (0.93701171875, 0.5869140625, 0.277099609375, 0.11181640625,
                    0.03070068359375, 0.0)
SECH2_LUT_INTERCEPTS = (0.0, 0.183837890625, 0.49365234375, 0.74169921875, 0.90625, 1.0)


def tanh_derivative_lut_init():
    """``tanh_derivative_init<APPROX>``: the 6-entry table fitted for ``1 - lut^2``."""
    load_lut6(SECH2_LUT_SLOPES, SECH2_LUT_INTERCEPTS)


def tanh_derivative_lut():
    """One iteration of tt-llk ``_calculate_tanh_derivative_<APPROX, 0, 32>``."""
    v = lut6_retain(dst_reg[0])
    dst_reg[0] = v * (-v) + 1.0                        # one SFPMAD: 1 - v^2


# --------------------------------------------------------------------------------------------
# GeluTanh: calculate_gelu_tanh<is_fp32_dest_acc_en, 32>, init tanh_init<false, true>.
# --------------------------------------------------------------------------------------------
GELU_TANH_K = 0.044715
SQRT_2_OVER_PI = 0.7978845608028654


def gelu_tanh_value(x):
    """``0.5x * tanh(u) + 0.5x`` as the kernel orders it (x reloaded from Dst for ``0.5x``)."""
    x2 = x * x
    p = GELU_TANH_K * x2 + 1.0
    q = x * p
    u = SQRT_2_OVER_PI * q
    t = tanh_fp32_accurate(u)
    half_x = 0.5 * dst_reg[0]
    return half_x * t + half_x


def gelu_tanh_2026_09():
    """One iteration of ``calculate_gelu_tanh<false, 32>``: rounded to BF16 (nearest even)."""
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(gelu_tanh_value(dst_reg[0]), 0))


def gelu_tanh_fp32_2026_09():
    """One iteration of ``calculate_gelu_tanh<true, 32>``: no rounding."""
    dst_reg[0] = gelu_tanh_value(dst_reg[0])


register_kernel(
    "tanh_approx_2026_09_nodes", tanh_approx_lut6, init=tanh_approx_nodes_init,
    function="tanh", mode="approximate", dest="bf16", template="calculate_tanh",
    params={"APPROXIMATION_MODE": True},
    provenance="tt-metal WH ckernel_sfpu_tanh.h index id 67162912371 (post PR #56076, "
               "2026-09-10; Jason Davies 2026 header): tanh_init<true> 6-entry SFPLUTFP32 FP16 "
               "TABLE1 fitted by node values (slopes 0.96191406 0.51416016 0.28979492 "
               "0.088562012 0.072753906 0; intercepts 0 0.22399902 0.44824219 0.75 0.78173828 "
               "1), sfpi vLut16 rounding; calculate_tanh<true>: lut(x, Retain), no rounding, "
               "no Dst branch",
    description="draft approximate tanh (Sep 2026, not main's): 6-segment FP16 table fitted "
                "by its nodes; the device ran PR #56076's tied table (tanh_approx_2026_09)")

register_kernel(
    "tanh_derivative_lut_2026_09", tanh_derivative_lut, init=tanh_derivative_lut_init,
    function="tanh_derivative", mode="approximate", dest="bf16",
    template="_calculate_tanh_derivative_", params={"WITH_PRECOMPUTED_TANH": 0},
    provenance="tt-metal ckernel_sfpu_tanh_derivative.h tanh_derivative_init (index id "
               "68509003383, Sep 2026: 6-entry SFPLUTFP32 FP16 TABLE1 fitted for sech^2) + "
               "tt-llk _calculate_tanh_derivative_<APPROX, 0, 32> (index id 68347112003): "
               "v = lut(x, Retain), v*(-v) + 1, no rounding, no Dst branch",
    description="SfpuType::tanh_derivative_lut: 1 - lut(x)^2 with a sech^2-fitted table")

register_kernel(
    "gelu_tanh_2026_09", gelu_tanh_2026_09, init=tanh_fp32_init, function="gelu_tanh",
    mode="accurate", dest="bf16", template="calculate_gelu_tanh",
    params={"is_fp32_dest_acc_en": False},
    provenance="tt-metal ckernel_sfpu_gelu.h calculate_gelu_tanh (index ids 68288623512, "
               "54520510799, Sep 2026) + gelu_tanh_init = tanh_init<false, true>: x*x, "
               "0.044715 x^2 + 1, x*p, 0.7978845608 * q, _sfpu_tanh_fp32_accurate_ (2026 expm1 "
               "form, per chip), 0.5x t + 0.5x, convert<vFloat16b>(., Nearest)",
    description="ttnn.gelu(approximate='tanh') on a BF16 Dst, Sep 2026")

register_kernel(
    "gelu_tanh_fp32_2026_09", gelu_tanh_fp32_2026_09, init=tanh_fp32_init,
    function="gelu_tanh", mode="accurate", dest="fp32", template="calculate_gelu_tanh",
    params={"is_fp32_dest_acc_en": True}, instance_of="gelu_tanh_2026_09",
    provenance="as gelu_tanh_2026_09 (ckernel_sfpu_gelu.h ids 68288623512, 54520510799), "
               "calculate_gelu_tanh<true, 32>: no rounding",
    description="ttnn.gelu(approximate='tanh') with an FP32 Dst, Sep 2026")
