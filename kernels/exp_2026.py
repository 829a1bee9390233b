"""exp-family kernels as of 2026-09-30 (BF16 Dst): exp, exp2, and the exp_21f core the Sep-2026
kernels share (gelu's tail, exp2).

``exp_2026_09`` (both chips, per-chip assembly): ``calculate_exponential<false, false>`` on a BF16
Dst runs ``_sfpu_exp_21f_bf16_tti_<false, false, CLAMP_NEGATIVE=true, 8>``, the hand-scheduled
exp_21f body of PR #44965 ("Re-land #43973 accurate exp on bfloat16", merged May 2026; issue
#43569: ~1150 -> <700 cycles/tile; its review threads quote both chips' headers). It is TTI code
written per chip, so it is assembly: kernels/asm/exp_2026_09_{blackhole,wormhole}.s. Both chips
load c0 as the FP16A pattern 0x3C02 (1.001953125, not the sfpi form's 1.0017248), clamp
``xlog2`` above at 255 by SFPSWAP and round with SFP_STOCH_RND; they differ below:

* Blackhole: no lower clamp; an SFPGT mask (xlog2 > 0) is ANDed onto the integer part before
  SETEXP (SFPGT exists only on Blackhole). Read, with the same instruction sequence, in tt-llk's
  BH header @039ecabefa8d1786b1a501088fd9da4f0d6cac90 (index id 55578436208), in tt-metal's BH
  ``ckernel_sfpu_exp.h`` @00f6b496d5f9ee27ceb5a895ad6b8643cc5a3a25 (the recorded body moved into
  a lambda, same instructions) and in PR #57292's BH branch (index id 68752158473, opened
  2026-09-22 on main a406ad5c, which changes only the approximate SDPA constants).
* Wormhole: ``xlog2 = max(xlog2, 0)`` by a second SFPSWAP against an LReg holding 0 (SFPMOV from
  the constant 0), each SFPSWAP followed by the SFPNOP Wormhole needs, and 255 reloaded at the
  end of each iteration. Read with the same instructions in two stored Wormhole revisions of
  tt-metal's WH ``ckernel_sfpu_exp.h``: sureshchouksey8/tt-metal
  @6e831bcf69bbe1bd876f3e0c382d27861c174f49 (index id 66545723852; main as forked for PR #48327
  of 2026-06-27, without that PR's change, which moves the 255 reload and drops an SFPNOP; its
  fp32 exp predates PR #46168) and @0273d5a6 (index id 71303379555; after PR
  #46168, merged by 2026-07-07, whose Wormhole-only -NaN hack it carries, and with an +Inf guard
  in the sfpi ``_sfpu_exp_21f_bf16_``, absent from the June revision and from PR #57292's BH file
  of 2026-09-22, which this TTI body does not use). No stored Wormhole
  revision has any other TTI body.

Why Wormhole is registered (it was not before): PR #48327 (sureshchouksey8, 2026-06-27, closed
unmerged; also #48528, closed) claimed the WH SFPSWAP operands were exchanged. They are not:
SFPSWAP with VEC_MIN_MAX leaves the min in VD and the max in VC (SFPSWAP.md; the source's
own comment says the opposite, the reading the PR took), so ``SFPSWAP(0, L0, L1)`` with L1 = 0
leaves max(xlog2, 0) in L0 and ``SFPSWAP(0, L2, L0)`` leaves min(xlog2, 255) in L0. With the PR's
exchanged operands the second SFPSWAP would leave 255 in L0 on every lane and every result would be
+Inf (tests), nothing like the budget below. What the body does get "wrong" is what issue #48285
(jasondavies, 2026-06-26) reports: exp(-NaN) = 0 on Wormhole (Wormhole's SFPMAD keeps a NaN's sign,
issue #46165, and the SFPSWAP order puts -NaN below 0); PR #46168 fixed that for the fp32 path
only, and both stored revisions keep this body, so the 127 negative-NaN BF16 inputs give +0 here
(+Inf on Blackhole). tt-llk's budget (tt-metal @01d9b424, ``sfpu_accuracy_budget.yaml``, Exp
Float16_b -> Float16_b, approx No, dest_acc No, measured on Wormhole 2026-09-30) records max 1
step: this body predicts 1; the sfpi ``_sfpu_exp_21f_bf16_`` (registered ``exp``, c0 = 1.0017248)
also predicts 1 though it differs from it on 193 inputs, so the budget confirms the body is
consistent but cannot by itself tell the two apart; the source (both WH revisions'
``calculate_exponential`` call the TTI body for a BF16 Dst) does. The chips agree on every input
except the negative NaNs.

``exp2_2026_09``: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/
llk_api/llk_sfpu/ckernel_sfpu_exp2.h``, ``calculate_exp2<APPROX, is_fp32_dest_acc_en=false>`` ->
``_sfpu_exp2_bf16_`` (PR #44539, "Optimise exp2 fp32/bf16", opened 2026-05-15, merged May 2026;
bounty issue #44507), which replaced ``exp(x * ln 2)``. Read in the stored revisions index ids
54558687409 and 55104481662, and in PR #57292's BH branch (index id 68816652971, opened
2026-09-22 on main a406ad5c), which keeps ``_sfpu_exp2_bf16_`` as the fallback of its draft
fast path (only the clamp's spelling changed, to ``sfpi::clamp``). No chip-specific
instruction: one body for both chips. The compute API fixes APPROXIMATE = true for exp2 and
the BF16 path ignores it; ``exp2_init`` loads constants only for the FP32 path.

Algorithm: ``xlog2 = x + 127`` (SFPADD); clamped to [0, 255] by two SFPSWAPs (max with 0, then
min with 255); the exp_21f step of Moroz et al. 2022 (:func:`exp_21f_of`: the integer part of
``xlog2`` into the exponent field, the 23-bit fraction through ``1.0017248 + f*(7.84e-8 +
f*4.79e-15)``); ``convert<vFloat16b>(y, Nearest)``. ``xlog2 = 0`` gives a denormal pattern,
flushed to +0 by the rounding; 255 gives an exponent-255 pattern, rounded to +Inf.

FP32-Dst instantiations (``is_fp32_dest_acc_en = true``; no rounding in the kernel, the packer
converts to the output format):

``exp_fp32_2026_09`` (per chip): ``calculate_exponential<false, true, SCALE_EN=false, 32,
CLAMP_NEGATIVE=true>`` loops ``_sfpu_exp_fp32_accurate_<unsafe=false>`` (Jason Davies, 2026,
derived from Norbert Juffa's expf; it replaced PR #33563's Taylor form, ``exp_fp32``), with
``exp_init<false, ..., true>`` = ``sfpu_reciprocal_init<false>()`` (constants this path does not
read). ``j = 1.442695*a`` rounded to a sign-magnitude int16 (SFP_STOCH_RND nearest) and back
(SFPCAST RNE); two-part Cody-Waite ``f = a - j*6.93145752e-1 - j*1.42860677e-6``; Horner
``r = 1.37805939e-3, 8.37312452e-3, 4.16695364e-2, 1.66664720e-1, 4.99999851e-1``, ``y = r*f +
1``, ``r = y*f + 1`` (exp(f)); ``i`` = the int16 as two's complement (two's-complement SFPABS of
the sign-magnitude word, then the sign of j); ``e = biased exponent of r + i``. The tail differs:

* Blackhole (read in tt-metal's BH ``ckernel_sfpu_exp.h``, index id 54496603172, and in PR
  #57292's BH branch, index id 68752158473, opened 2026-09-22 on main a406ad5c): ``y = y*Inf``
  (+Inf, or NaN for a NaN input), then ``setexp(r, e)`` where ``e < 255`` and 0 where ``e < 1``.
* Wormhole (index id 71303379555, WH @0273d5a6, after PR #46168, merged 2026-06-29..07-07,
  "Fix exp(-NaN) fp32 on Wormhole", issue #46165: Wormhole's SFPMAD keeps a NaN's sign, so the
  Blackhole form gave exp(-NaN) = 0): ``y = bits(y) - 1`` times 0 (0, or NaN from a NaN input),
  then where ``e >= 1``: ``y += Inf`` and ``setexp(r, e)`` where also ``e < 255``.

``exp2_fp32_2026_09`` (both chips, the same code in index ids 54558687409 and 68816652971):
``calculate_exp2<false, true, 32>`` loops ``_sfpu_exp2_fp32_accurate_`` with ``exp2_init<false,
true>``: Prgm0..2 = 0x1.62e42ep-1, 0x1.ebfba0p-3, 0x1.c6afd8p-5. ``j = round(x)`` (int16
nearest, ties away), ``f = x - j``; Horner 0x1.41cp-13, 0x1.5f4p-10, 0x1.3b4p-7, Prgm2, Prgm1,
Prgm0, 1 (the overflow value ``y*Inf`` taken from the Prgm2 step); where ``|x| >= 0`` (not -NaN):
``e = biased exponent of r + i``, ``setexp(r, e)`` where ``e < 255``, 0 where ``e < 1``. An older
revision (index id 55104481662: 1.5*2**23 rounding, degree 6, no-op init) is ruled out by the
harness's two-parameter ``exp2_init<false, fp32>``.
"""
from __future__ import annotations

import math

from sfpu_sim import register_kernel
from sfpu_sim.registry import register_program
from kernels.asm_kernels import assembly_kernel
from kernels.common import polyval
from kernels.exp import exp_init, float_to_int32_for_exp21f
from sfpu_sim.sfpi import (abs, dst_reg, exexp_nodebias, exman9, float_to_fp16b, float_to_int16,
                           int32_to_float, per_chip, reinterpret, setexp, setsgn, v_endif, v_if,
                           vConstFloatPrgm0, vConstFloatPrgm1, vConstFloatPrgm2, vec_min_max,
                           vFloat, vInt)

EXP21F_POLY = (1.0017248, 7.839635491371155e-08, 4.791750143340323e-15)
# _sfpu_exp_fp32_accurate_ (Juffa): 1/ln 2, ln 2 in two parts, the Horner coefficients of exp(f)
# above the two final ``* f + 1`` steps, highest first.
JUFFA_LOG2E = 1.442695
JUFFA_NEG_LN2_HI, JUFFA_NEG_LN2_LO = -6.93145752e-1, -1.42860677e-6
JUFFA_EXP_POLY = (1.37805939e-3, 8.37312452e-3, 4.16695364e-2, 1.66664720e-1, 4.99999851e-1)
# _sfpu_exp2_fp32_accurate_: three FP16-exact coefficients, highest first, then exp2_init's
# Prgm2, Prgm1, Prgm0.
EXP2_FP32_HIGH = (float.fromhex("0x1.41cp-13"), float.fromhex("0x1.5f4p-10"),
                  float.fromhex("0x1.3b4p-7"))
EXP2_FP32_PRGM = (float.fromhex("0x1.62e42ep-1"), float.fromhex("0x1.ebfba0p-3"),
                  float.fromhex("0x1.c6afd8p-5"))


def exp_21f_of(xlog2):
    """The exp_21f core on ``xlog2 = x/ln 2 + 127`` (no clamp): integer part into the exponent
    field, the 23-bit fraction through the quadratic (Moroz et al. 2022, §5)."""
    z = float_to_int32_for_exp21f(xlog2)
    exponential_part = exexp_nodebias(reinterpret(vFloat, z))
    fractional_part = exman9(reinterpret(vFloat, z))
    frac = int32_to_float(fractional_part, 0)
    frac = polyval(frac, *EXP21F_POLY)
    return setexp(frac, exponential_part)


def exp2_bf16(x):
    """``_sfpu_exp2_bf16_(x)``."""
    xlog2 = x + 127.0
    low = vFloat(0.0)
    high = vFloat(255.0)
    vec_min_max(low, xlog2)                     # xlog2 = max(xlog2, 0)
    vec_min_max(xlog2, high)                    # xlog2 = min(xlog2, 255)
    y = exp_21f_of(xlog2)
    return reinterpret(vFloat, float_to_fp16b(y, 0))


def exp2_2026_09():
    """One iteration of ``calculate_exp2<APPROX, false>``."""
    dst_reg[0] = exp2_bf16(dst_reg[0])


# --- FP32 Dst ---------------------------------------------------------------------------------

def _twos_complement_of(sign_magnitude, sign_of):
    """A sign-magnitude int16 as two's complement: SFPABS in integer mode turns ``-n`` (sign bit
    and n) into ``2**31 - n``, and setting the sign bit of ``sign_of`` makes it ``-n``."""
    magnitude = abs(reinterpret(vInt, sign_magnitude))
    return reinterpret(vInt, setsgn(reinterpret(vFloat, magnitude), sign_of))


def exp_fp32_reduced(a):
    """The shared part of ``_sfpu_exp_fp32_accurate_(a)``: ``(r, y, i)`` with ``r = exp(f)``,
    ``y`` its last Horner step but one, ``i = round(a / ln 2)`` (two's complement)."""
    j = JUFFA_LOG2E * a
    r = vFloat(JUFFA_EXP_POLY[0])
    sm = float_to_int16(j, 0)                     # convert<vSMag16>(j, Nearest)
    j = int32_to_float(sm, 0)
    f = j * JUFFA_NEG_LN2_HI + a
    f = j * JUFFA_NEG_LN2_LO + f
    for c in JUFFA_EXP_POLY[1:]:
        r = r * f + c
    y = r * f + 1.0
    i = _twos_complement_of(sm, j)
    r = y * f + 1.0
    return r, y, i


def _exp_fp32_accurate_blackhole(a):
    """``_sfpu_exp_fp32_accurate_<false>(a)``, Blackhole (v_block form)."""
    r, y, i = exp_fp32_reduced(a)
    y = y * math.inf                              # overflow: +Inf (NaN from a NaN input)
    e = exexp_nodebias(r) + i
    with v_if(e < 255):
        y.assign(setexp(r, e))
        with v_if(e < 1):                         # underflow, subnormals included
            y.assign(0.0)
        v_endif()
    v_endif()
    return y


def _exp_fp32_accurate_wormhole(a):
    """``_sfpu_exp_fp32_accurate_<false>(a)``, Wormhole (PR #46168's -NaN form)."""
    r, y, i = exp_fp32_reduced(a)
    y = reinterpret(vFloat, reinterpret(vInt, y) + -1)
    y = y * 0.0                                   # underflow: 0 (NaN from a NaN input)
    e = exexp_nodebias(r) + i
    with v_if(e >= 1):
        y.assign(y + math.inf)                    # overflow: +Inf, NaN stays NaN
        with v_if(e < 255):
            y.assign(setexp(r, e))
        v_endif()
    v_endif()
    return y


exp_fp32_accurate = per_chip(wormhole=_exp_fp32_accurate_wormhole,
                             blackhole=_exp_fp32_accurate_blackhole)


def exp_fp32_2026_09():
    """One iteration of ``calculate_exponential<false, true, false, 32, true>``."""
    dst_reg[0] = exp_fp32_accurate(dst_reg[0])


def exp2_fp32_init():
    """``exp2_init<false, true>`` (Blackhole also resets the Dst counters first)."""
    vConstFloatPrgm0.assign(EXP2_FP32_PRGM[0])
    vConstFloatPrgm1.assign(EXP2_FP32_PRGM[1])
    vConstFloatPrgm2.assign(EXP2_FP32_PRGM[2])


def exp2_fp32_accurate(x):
    """``_sfpu_exp2_fp32_accurate_(x)``."""
    sm = float_to_int16(x, 0)                     # convert<vSMag16>(x, Nearest): ties away
    j = int32_to_float(sm, 0)
    f = x - j                                     # in [-0.5, 0.5]
    r = vFloat(EXP2_FP32_HIGH[0])
    for c in EXP2_FP32_HIGH[1:]:
        r = r * f + c
    y = r * f + vConstFloatPrgm2
    i = _twos_complement_of(sm, j)
    r = y * f + vConstFloatPrgm1
    y = y * math.inf                              # overflow: +Inf, or NaN
    r = r * f + vConstFloatPrgm0
    abs_x = abs(x)
    r = r * f + 1.0
    with v_if(abs_x >= 0.0):                      # not -NaN: SFPABS leaves its sign
        e = exexp_nodebias(r) + i
        with v_if(e < 255):
            y.assign(setexp(r, e))
            with v_if(e < 1):                     # underflow, subnormals included
                y.assign(0.0)
            v_endif()
        v_endif()
    v_endif()
    return y


def exp2_fp32_2026_09():
    """One iteration of ``calculate_exp2<false, true>``."""
    dst_reg[0] = exp2_fp32_accurate(dst_reg[0])


register_kernel(
    "exp2_2026_09", exp2_2026_09, function="exp2", mode="accurate", dest="bf16",
    template="calculate_exp2", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance="tt-metal ckernel_sfpu_exp2.h _sfpu_exp2_bf16_ (PR #44539, May 2026; index ids "
               "54558687409, 55104481662; unchanged in PR #57292's fallback on main a406ad5c, "
               "2026-09-22): x + 127 clamped to [0, 255], exp_21f fraction quadratic, "
               "convert<vFloat16b>(., Nearest)",
    description="ttnn.exp2 on a BF16 tensor, May - Sep 2026")

register_program(
    "exp_2026_09", assembly_kernel("exp_2026_09"), function="exp",
    mode="accurate", dest="bf16",
    template="calculate_exponential",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False, "SCALE_EN": False,
            "CLAMP_NEGATIVE": True},
    provenance="tt-llk/tt-metal ckernel_sfpu_exp.h _sfpu_exp_21f_bf16_tti_ (PR #44965, May "
               "2026; BH read tt-llk @039ecabe, tt-metal @00f6b496, and PR #57292's branch on main "
               "a406ad5c, 2026-09-22; WH read @6e831bcf (Jun 2026) and @0273d5a6, same body; WH "
               "reproduces tt-llk's 2026-09-30 budget, 1): exp_21f with c0 = FP16A 0x3C02, upper "
               "clamp 255 by SFPSWAP; lower side BH by an SFPGT mask ANDed onto the integer part, "
               "WH by a second SFPSWAP (max with 0); SFP_STOCH_RND to BF16; hand-written assembly "
               "of the recorded replay body",
    description="ttnn.exp default (accurate) on a BF16 tensor, Jun - Sep 2026")

register_kernel(
    "exp_fp32_2026_09", exp_fp32_2026_09, init=exp_init, function="exp", mode="accurate",
    dest="fp32",
    template="calculate_exponential",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True, "SCALE_EN": False,
            "CLAMP_NEGATIVE": True},
    instance_of="exp_2026_09",
    provenance="tt-metal ckernel_sfpu_exp.h _sfpu_exp_fp32_accurate_<false> (Juffa-derived, "
               "2026; WH @0273d5a6 (index id 71303379555, after PR #46168); BH index id "
               "54496603172 and PR #57292's branch on main a406ad5c, 2026-09-22): round(a/ln 2) "
               "as int16, two-part Cody-Waite, degree-6 Horner, exponent add; BH y*Inf / 0 "
               "tail, WH (bits(y) - 1)*0 + Inf -NaN tail; exp_init = sfpu_reciprocal_init; "
               "no rounding",
    description="ttnn.exp default (accurate) with an FP32 Dst, Jul - Sep 2026")

register_kernel(
    "exp2_fp32_2026_09", exp2_fp32_2026_09, init=exp2_fp32_init, function="exp2",
    mode="accurate", dest="fp32",
    template="calculate_exp2", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="exp2_2026_09",
    provenance="tt-metal ckernel_sfpu_exp2.h _sfpu_exp2_fp32_accurate_ + exp2_init<., true> "
               "(Jason Davies, 2026; index id 54558687409, same in PR #57292's BH branch on main "
               "a406ad5c, 2026-09-22): round(x) as int16, f = x - j, degree-6 minimax "
               "(Prgm0..2 = 0x1.62e42ep-1, 0x1.ebfba0p-3, 0x1.c6afd8p-5), exponent add, Inf "
               "from e >= 255, 0 below e = 1, -NaN excluded; no rounding",
    description="ttnn.exp2 with an FP32 Dst, May - Sep 2026")
