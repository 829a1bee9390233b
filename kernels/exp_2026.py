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
SFPSWAP with VEC_MIN_MAX leaves the min in VD and the max in VC (isa-reference §3.13; the source's
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
"""
from __future__ import annotations

from sfpu_sim import register_kernel
from sfpu_sim.registry import register_program
from kernels.asm_kernels import assembly_kernel
from kernels.common import polyval
from kernels.exp import float_to_int32_for_exp21f
from sfpu_sim.sfpi import (dst_reg, exexp_nodebias, exman9, float_to_fp16b, int32_to_float,
                           reinterpret, setexp, vec_min_max, vFloat)

EXP21F_POLY = (1.0017248, 7.839635491371155e-08, 4.791750143340323e-15)


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
