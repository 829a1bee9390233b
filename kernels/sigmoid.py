"""sigmoid kernels (``ckernel_sfpu_sigmoid.h``, ``ckernel_sfpu_sigmoid_appx.h``).

``sigmoid``: what ttnn.sigmoid runs on a BF16 tensor by default in Jan 2026 (accurate mode,
BF16 Dst): tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_sigmoid.h`` ``calculate_sigmoid<false, false>`` -> ``_sfpu_sigmoid_<false>``:
``e = _sfpu_exp_21f_<true>(-x)`` (exp_21f without its own rounding), ``1 + e``,
``_sfpu_reciprocal_<1>`` (WH quadratic seed + 1 Newton step; BH SFPARECIP + 1 Newton step),
``float_to_fp16b(r, 0)``. Introduced by PR #31266 (Oct-Nov 2025, exp_21f form); the fp32 arm took
``_sfpu_exp_improved_<true>`` (= ``_sfpu_exp_f32_accurate_``) with PR #33563 (Dec 2025).

Where the rounding sits (decided here from the dated revisions): the Nov 2025 - Jan 2026
file (index revision 10015515551) rounds *inside* ``_sfpu_sigmoid_<false>``; PR #36308 "Cleanup
sigmoid implementation" (merged late Jan 2026, revision 27200842354) moved the rounding into
``calculate_sigmoid``, was reverted on 2026-01-28 (PR #36687) and redone by PR #37186 (Feb
2026; the May 2026 BH file @00b0fa3f still rounds in ``calculate_sigmoid``). So on the tt-llk
snapshot date (2026-01-30) the rounding sat inside ``_sfpu_sigmoid_``. For sigmoid itself both
placements give the same bits (one ``float_to_fp16b`` after the reciprocal either way), so one
kernel is registered; the difference matters for silu (kernels/silu.py registers both).

``sigmoid_init<false>`` = the reciprocal init (``_init_sfpu_reciprocal_<false>``: WH Prgm0-2 =
the quadratic seed constants, BH Prgm0 = 2.0).

Variants:

* ``sigmoid_fp32``: the same file's fp32-Dst arm, ``_sfpu_sigmoid_<true>``:
  ``_sfpu_exp_f32_accurate_(-x)``, ``1 + e``, ``_sfpu_reciprocal_<2>``, no rounding.
* ``sigmoid_approx``: ``calculate_sigmoid_appx`` / ``sigmoid_appx_init`` (tt-metal
  ``ckernel_sfpu_sigmoid_appx.h``, BH @050f24fa, unchanged 2024 - Sep 2026): SFPLUT
  0x3DFF / 0x21D8 / 0xFF10 with sign retained, then ``+ 0.5``; no rounding.
* ``sigmoid_llk_lut``: tt-llk ``_calculate_sigmoid_`` / ``_init_sigmoid_`` (tt-llk c635ca695,
  2026-01-30): the 6-entry FP16 SFPLUTFP32 table (``lut2(..., lut_mode = 0)``,
  which sfpi maps to TABLE2: cuts 0.5, 1, 1.5, 2, 4) with sign retained, then ``+ 0.5``; no
  rounding. This is what the tt-llk test harness ran, not ttnn (PR #55061 notes that sfpi's
  six-register ``lut2`` with SGN_RETAIN may not even compile, making it dead code there).
"""
from __future__ import annotations

from kernels.exp import exp_21f, exp_f32_accurate
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    LRegs,
    dst_reg,
    float_to_fp16b,
    l_reg,
    lut,
    lut2,
    reinterpret,
    vConst1,
    vFloat,
    vUInt,
)

# --------------------------------------------------------------------------------------------
# sigmoid / sigmoid_fp32: 1 / (1 + exp(-x))
# --------------------------------------------------------------------------------------------

def sigmoid_init():
    """``sigmoid_init<false>`` = ``_init_sfpu_reciprocal_<false>`` (chip-specific constants)."""
    reciprocal_init(False)


def sfpu_sigmoid(x, fp32: bool, round_inside: bool = True):
    """``_sfpu_sigmoid_<is_fp32_acc_to_dest_mode>(x)``. BF16 (``fp32=False``): unrounded
    exp_21f, reciprocal with one Newton step and, in the Nov 2025 - Jan 2026 form
    (``round_inside``), ``float_to_fp16b(r, 0)`` inside; FP32: exp f32-accurate, two Newton
    steps, no rounding."""
    if fp32:
        exp_neg_x = exp_f32_accurate(-x)
    else:
        exp_neg_x = exp_21f(-x, round_to_bf16=False)
    denominator = vConst1 + exp_neg_x
    if fp32:
        return reciprocal(denominator, 2)
    result = reciprocal(denominator, 1)
    if round_inside:
        result = reinterpret(vFloat, float_to_fp16b(result, 0))
    return result


def sigmoid():
    """One iteration of ``calculate_sigmoid<APPROXIMATION_MODE=false, is_fp32_dest_acc_en=false>``
    (Jan 2026: the rounding is inside ``_sfpu_sigmoid_<false>``)."""
    val = dst_reg[0]
    result = sfpu_sigmoid(val, fp32=False)
    dst_reg[0] = result


def sigmoid_fp32():
    """One iteration of ``calculate_sigmoid<false, is_fp32_dest_acc_en=true>``."""
    val = dst_reg[0]
    result = sfpu_sigmoid(val, fp32=True)
    dst_reg[0] = result


# --------------------------------------------------------------------------------------------
# sigmoid_approx: 3-entry SFPLUT + 0.5 (ckernel_sfpu_sigmoid_appx.h)
# --------------------------------------------------------------------------------------------

def sigmoid_approx_init():
    """``sigmoid_appx_init``: TTI_SFPLOADI(r, 2, imm) of the three SFPLUT pairs."""
    l_reg[LRegs.LReg0] = vUInt(0x3DFF)       # |x| < 1:  0.2265625 |x|
    l_reg[LRegs.LReg1] = vUInt(0x21D8)       # |x| < 2:  0.265625 |x| - 0.046875
    l_reg[LRegs.LReg2] = vUInt(0xFF10)       # beyond:   0.5


def sigmoid_approx():
    """One iteration of ``calculate_sigmoid_appx``."""
    l0 = l_reg[LRegs.LReg0]
    l1 = l_reg[LRegs.LReg1]
    l2 = l_reg[LRegs.LReg2]
    val = dst_reg[0]
    dst_reg[0] = lut(val, l0, l1, l2) + 0.5


# --------------------------------------------------------------------------------------------
# sigmoid_llk_lut: tt-llk 6-entry table + 0.5
# --------------------------------------------------------------------------------------------

def sigmoid_llk_lut_init():
    """``_init_sigmoid_``: ``_sfpu_load_imm32_`` of the six table registers (low half = the
    lower segment): slopes 0.2452, 0.2173 | 0.1731, 0.1262 | 0.0485, 0; intercepts -0.0004997,
    0.0152 | 0.05988, 0.1298 | 0.2998, 0.4998 (FP16 half-words as the source gives them)."""
    l_reg[LRegs.LReg0] = vUInt(0x32F433D9)
    l_reg[LRegs.LReg4] = vUInt(0x23C89018)
    l_reg[LRegs.LReg1] = vUInt(0x300A318A)
    l_reg[LRegs.LReg5] = vUInt(0x30272BAA)
    l_reg[LRegs.LReg2] = vUInt(0x7C002A35)
    l_reg[LRegs.LReg6] = vUInt(0x37FF34CC)


def sigmoid_llk_lut():
    """One iteration of ``_calculate_sigmoid_<APPROXIMATION_MODE>`` (tt-llk)."""
    l0 = l_reg[LRegs.LReg0]
    l1 = l_reg[LRegs.LReg1]
    l2 = l_reg[LRegs.LReg2]
    l4 = l_reg[LRegs.LReg4]
    l5 = l_reg[LRegs.LReg5]
    l6 = l_reg[LRegs.LReg6]
    val = dst_reg[0]
    dst_reg[0] = lut2(val, l0, l1, l2, l4, l5, l6, mode=0) + 0.5


register_kernel(
    "sigmoid", sigmoid, init=sigmoid_init, function="sigmoid", mode="accurate", dest="bf16",
    template="calculate_sigmoid",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance="tt-metal ckernel_sfpu_sigmoid.h _sfpu_sigmoid_<false> (PR #31266 Nov 2025 + "
               "#33563 Dec 2025; live at 2026-01-30 after the #36308/#36687 revert): "
               "exp_21f(-x) unrounded, 1 + e, _sfpu_reciprocal_<1>, float_to_fp16b(, 0)",
    description="ttnn.sigmoid default (accurate) on a BF16 tensor")

register_kernel(
    "sigmoid_fp32", sigmoid_fp32, init=sigmoid_init, function="sigmoid", mode="accurate",
    dest="fp32",
    template="calculate_sigmoid",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="sigmoid",
    provenance="tt-metal ckernel_sfpu_sigmoid.h _sfpu_sigmoid_<true> (Dec 2025 - Jan 2026): "
               "_sfpu_exp_f32_accurate_(-x), 1 + e, _sfpu_reciprocal_<2>, no rounding",
    description="ttnn.sigmoid (accurate) with an FP32 Dst")

register_kernel(
    "sigmoid_approx", sigmoid_approx, init=sigmoid_approx_init, function="sigmoid",
    mode="approximate", dest="bf16",
    template="calculate_sigmoid_appx", params={},
    provenance="tt-metal ckernel_sfpu_sigmoid_appx.h calculate_sigmoid_appx/sigmoid_appx_init "
               "(unchanged 2024 - Sep 2026; BH @050f24fa): SFPLUT 0x3DFF/0x21D8/0xFF10, sign "
               "retained, + 0.5, no rounding",
    description="ttnn.sigmoid(fast_and_approximate_mode=True): 3-segment SFPLUT + 0.5")

register_kernel(
    "sigmoid_llk_lut", sigmoid_llk_lut, init=sigmoid_llk_lut_init, function="sigmoid",
    mode="approximate", dest="bf16",
    provenance="tt-llk ckernel_sfpu_sigmoid.h _calculate_sigmoid_/_init_sigmoid_ (c635ca695, "
               "2026-01-30; unchanged since 2024): SFPLUTFP32 FP16 6-entry TABLE2, sign "
               "retained, + 0.5, no rounding (LLK test-harness kernel)",
    description="tt-llk's 6-segment LUT sigmoid (test harness, not ttnn)")
