"""Trigonometric kernels as of 2026-09-30 (BF16 Dst): sin, cos, atan, asin, acos.

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_trigonometry.h``, read in the stored revisions WH
@01af8126a7e5645a7b4510c820f1b1b65738b2ef and BH @01c8afed5a09a5fdd7c3ddbe0167f81b9607feb3, and
in the BH file of PR #57292's branch (opened 2026-09-22 on main a406ad5c; index id
68755511596), whose non-"fast" code is main's as of 2026-09-22. PR #57292's own llk-bench
kernels (sin/tan/... "fast bf16" paths) were an open draft and are not modelled.

* ``sin_2026_09``, ``cos_2026_09``: aliases of ``sin_2026_02`` / ``cos_2026_02`` (kernels/
  trig.py). ``calculate_sine`` / ``calculate_cosine`` and ``sine_init`` / ``cosine_init`` carry
  PR #37714's math unchanged in all three readings (only ``#pragma GCC unroll`` and
  ``sfpi::as``/``convert`` spellings moved), on both chips.
* ``atan_2026_09``, ``asin_2026_09``, ``acos_2026_09`` (both chips): the BF16 arms
  ``sfpu_atan_bf16`` (PR #35470, Jan 2026) and ``sfpu_asin_bf16`` / ``sfpu_acos_bf16`` (PR #40843,
  Mar 2026), as restructured by PR #50112 (Jason Davies, opened 2026-07-16, merged Jul 2026:
  "minor performance tweaks to the bf16 paths", on Wormhole and Blackhole alike: WH atan 59 -> 57,
  asin 76 -> 72, acos 77 -> 73 cycles), with ``convert<vFloat16b>(result, Nearest)``.

  atan: NaN in -> NaN; ``t = |x|``, ``t = 1/t`` where ``|x| - 1 >= 0`` (``sfpu_reciprocal<false>``
  = ``sfpu_reciprocal_iter<2>``: Blackhole SFPARECIP + two guarded Newton steps, Prgm0 = 2.0;
  Wormhole the quadratic seed in Prgm0..2 + two Newton steps, :func:`kernels.reciprocal.
  reciprocal`); odd degree-7 minimax ``t * P(t*t)``; ``pi/2 - p`` where ``|x| >= 1``; sign of x.
  asin/acos: ``z = |x|`` below 0.625, else ``z = sqrt_custom((1 - |x|)/2)`` (magic 0x5f37 seed +
  two Newton steps); ``z * P(z*z)`` (degree-3 fit of asin(sqrt u)/sqrt u); above 0.625
  ``pi/2 - 2p``; sign of x; acos = ``pi/2 - asin``; NaN where ``|x| <= 1`` fails. Nothing but
  atan's reciprocal is chip-specific.

  Wormhole, and why it is registered although no post-#50112 Wormhole file is readable here: the
  Wormhole candidates for 2026-09-30 are (a) this PR #50112 form with Wormhole's reciprocal and
  (b) the only readable Wormhole revision, @01af8126 (index id 54837550361; pre-#50112: atan
  tests ``|x| - 1 > 0`` twice, asin/acos take the older ``v_if(|x| <= 0.625) ... v_else`` arm),
  each with either Wormhole reciprocal seed (the Sollya minimax seed the header documents, or the
  refit seed of two undated stored ``ckernel_sfpu_recip.h`` revisions, index ids 70302691577,
  70080189142). All of them give the same BF16 output on every one of the 65,536 inputs (tests):
  the forms differ only at |x| = 1 (atan) and |x| = 0.625 (asin, acos), where both roads round
  to the same pattern, and two Newton steps leave no trace of the seed. So the Wormhole kernel of
  2026-09-30 is pinned bit for bit even though its exact instruction stream (PR #50112's
  scheduling) is not read; what is registered is form (a). tt-llk's budget (tt-metal @01d9b424,
  measured on Wormhole 2026-09-30, Float16_b -> Float16_b, dest_acc No) records Atan max 1, Asin
  max 1, Acos max 0 steps; every candidate predicts exactly these (asin and acos over their
  domain [-1, 1]: outside it the quiet-NaN default rounds to an infinity, which cannot be
  measured against a NaN golden, so the budget's rows can only come from in-domain lanes). An
  undated change to both chips (the ``GUARD_NON_FINITE`` opt-out of ``sqrt_custom``, issue
  #52930's finding 5; its write-up, index id 58222009473) states that ``calculate_asin`` /
  ``calculate_acos`` stayed instruction-identical on both chips.

  The chips agree on every input except asin's 127 negative NaNs: Wormhole's SFPMAD keeps a
  NaN's sign (issue #46165) and SFPABS leaves a NaN alone, so ``|x| - 1`` is negative, the
  ``|x| <= 1`` test passes and ``setsgn(., x)`` gives a negative NaN, -Inf after rounding
  (Blackhole: the +NaN default, +Inf).
"""
from __future__ import annotations

import math

from kernels.common import polyval
from kernels.reciprocal import reciprocal, reciprocal_init
from kernels.trig import cos_2026_02, cosine_init, sin_2026_02, sine_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    abs,
    dst_reg,
    exexp_nodebias,
    exman9,
    float_to_fp16b,
    reinterpret,
    setsgn,
    v_endif,
    v_if,
    vFloat,
    vUInt,
)

PI_2 = 1.5707963705062866            # static const float PI_2 (pi/2 rounded to float)
# fpminimax(atan(x), [|1,3,5,7|], [|single...|], [2^-40; 1], relative): atan(t) = t*P(t*t)
ATAN_BF16 = (0.999787867069244384765625, -0.325808584690093994140625,
             0.1555790007114410400390625, -4.4326744973659515380859375e-2)
# fpminimax(asin(sqrt(x))/sqrt(x), [|0,1,2,3|], [|single...|], [2^-40; (5/8)^2], relative)
ASIN_BF16 = (0.999978601932525634765625, 0.16771225631237030029296875,
             0.06381262838840484619140625, 0.083148844540119171142578125)
ASIN_SWITCH = 0.625
SQRT_CUSTOM_MAGIC = 0x5F370000      # vFloat(sFloat16b(0x5f37)) as bits


def atan_init():
    """``atan_init<false, false>``: ``sfpu_reciprocal_init<false>()`` (Blackhole: Prgm0 = 2.0;
    Wormhole: the quadratic seed's three constants)."""
    reciprocal_init(False)


def atan_bf16(val):
    """``sfpu_atan_bf16<false>(val)`` (PR #50112 form). The source tests for a NaN first and
    evaluates the rest under ``v_else``; here the rest runs on every lane and the NaN test selects
    last: the same values in every lane (nothing here crosses lanes), and fewer values live through
    the reciprocal, whose Wormhole form (seed + two Newton steps) would not fit the DSL's eight
    LRegs otherwise."""
    t0 = abs(val)
    absval_minus_1 = t0 - 1.0
    with v_if(absval_minus_1 >= 0.0):
        t0.assign(reciprocal(t0, 2))
    v_endif()
    t1 = t0 * t0
    t1 = polyval(t1, *ATAN_BF16)
    t1 = t1 * t0
    with v_if(absval_minus_1 >= 0.0):
        t1.assign(PI_2 - t1)
    v_endif()
    result = setsgn(t1, val)
    with v_if((exexp_nodebias(val) == 255) & (exman9(val) != 0)):
        result.assign(math.nan)
    v_endif()
    return result


def sqrt_custom(val):
    """``sfpu_sqrt_custom<false>(val)`` (tt-metal ``ckernel_sfpu_sqrt_custom.h``, BH revision
    @0fb1a0b3): 0x5f37 inverse-square-root seed, two Newton steps, times ``val``; zero and
    exponent-255 inputs pass through (asin only feeds it values in [0, 0.1875])."""
    out = vFloat(val)
    with v_if((val != 0.0) & (exexp_nodebias(val) != 255)):
        magic = vUInt(SQRT_CUSTOM_MAGIC)
        approx = reinterpret(vFloat, magic - (reinterpret(vUInt, val) >> 1))
        neg_half_val = val * -0.5
        approx = ((approx * approx) * neg_half_val + 1.5) * approx
        approx = ((approx * approx) * neg_half_val + 1.5) * approx
        out.assign(approx * val)
    v_endif()
    return out


def asin_poly(z):
    """``sfpu_asin_poly_bf16``: ``z * P(z*z)``."""
    z2 = z * z
    return z * polyval(z2, *ASIN_BF16)


def asin_range_reduced(val):
    """``sfpu_asin_range_reduced_bf16`` (PR #50112 form: one polynomial on a selected z)."""
    abs_v = abs(val)
    z = sqrt_custom((1.0 - abs_v) * 0.5)
    endpoint = abs_v - ASIN_SWITCH       # formed before the root in the source; same values
    with v_if(endpoint < 0.0):
        z.assign(abs_v)
    v_endif()
    asin_abs = asin_poly(z)
    with v_if(endpoint >= 0.0):
        asin_abs.assign(PI_2 - 2.0 * asin_abs)
    v_endif()
    return setsgn(asin_abs, val)


def _rounded(result):
    return reinterpret(vFloat, float_to_fp16b(result, 0))


def atan_2026_09():
    """One iteration of ``calculate_atan<false, false>``."""
    dst_reg[0] = _rounded(atan_bf16(dst_reg[0]))


def asin_2026_09():
    """One iteration of ``calculate_asin<false, false>``. The source evaluates the reduction
    inside ``v_if(|x| <= 1)``; here it runs on every lane first and the ``v_if`` only selects:
    the same values in the enabled lanes (nothing here crosses lanes), and the NaN default is
    then not live through the reduction, which eight LRegs could not hold for the DSL's
    allocator."""
    val = dst_reg[0]
    asin_val = asin_range_reduced(val)
    result = vFloat(math.nan)
    with v_if(abs(val) <= 1.0):
        result.assign(asin_val)
    v_endif()
    dst_reg[0] = _rounded(result)


def acos_2026_09():
    """One iteration of ``calculate_acos<false, false>`` (evaluated as :func:`asin_2026_09`
    is)."""
    val = dst_reg[0]
    acos_val = PI_2 - asin_range_reduced(val)
    result = vFloat(math.nan)
    with v_if(abs(val) <= 1.0):
        result.assign(acos_val)
    v_endif()
    dst_reg[0] = _rounded(result)


# --- registration ---------------------------------------------------------------------------

ALIAS = ("alias of {old} (same body and init): tt-metal ckernel_sfpu_trigonometry.h "
         "calculate_{fn}<false, false> still carries PR #37714's math on 2026-09-30 (read at WH "
         "@01af8126, BH @01c8afed and in PR #57292's branch on main a406ad5c, 2026-09-22)")
register_kernel(
    "sin_2026_09", sin_2026_02, init=sine_init, function="sin", mode="accurate", dest="bf16",
    template="calculate_sine", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=ALIAS.format(old="sin_2026_02", fn="sine"),
    description="ttnn.sin on a BF16 tensor, Sep 2026 (= sin_2026_02)")
register_kernel(
    "cos_2026_09", cos_2026_02, init=cosine_init, function="cos", mode="accurate", dest="bf16",
    template="calculate_cosine",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=ALIAS.format(old="cos_2026_02", fn="cosine"),
    description="ttnn.cos on a BF16 tensor, Sep 2026 (= cos_2026_02)")

INVERSE = ("tt-metal ckernel_sfpu_trigonometry.h calculate_{fn}<false, false> (BH @01c8afed = "
           "main a406ad5c, 2026-09-22, per PR #57292's fallback): {what}, PR #50112 form (Jul "
           "2026); convert<vFloat16b>(r, Nearest). WH: every candidate (pre/post #50112, either "
           "seed) gives these outputs and tt-llk's 2026-09-30 budget (kernels/trig_2026.py)")
register_kernel(
    "atan_2026_09", atan_2026_09, init=atan_init, function="atan",
    mode="accurate", dest="bf16",
    template="calculate_atan", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=INVERSE.format(fn="atan", what="sfpu_atan_bf16 (PR #35470): reciprocal<2> for "
                              "|x| >= 1, odd degree-7 minimax, pi/2 - p"),
    description="ttnn.atan on a BF16 tensor, Jul - Sep 2026")
register_kernel(
    "asin_2026_09", asin_2026_09, function="asin", mode="accurate",
    dest="bf16",
    template="calculate_asin", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=INVERSE.format(fn="asin", what="sfpu_asin_bf16 (PR #40843): split at 0.625, "
                              "sqrt_custom endpoint reduction, degree-3 asin(sqrt u)/sqrt u"),
    description="ttnn.asin on a BF16 tensor, Jul - Sep 2026")
register_kernel(
    "acos_2026_09", acos_2026_09, function="acos", mode="accurate",
    dest="bf16",
    template="calculate_acos", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=INVERSE.format(fn="acos", what="sfpu_acos_bf16 (PR #40843): pi/2 - asin"),
    description="ttnn.acos on a BF16 tensor, Jul - Sep 2026")
