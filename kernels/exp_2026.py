"""exp-family kernels as of 2026-09-30 (BF16 Dst): exp2, and the exp_21f core the Sep-2026
kernels share (gelu's tail, exp2).

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
    provenance="tt-metal ckernel_sfpu_exp2.h _sfpu_exp2_bf16_ (PR #44539, May 2026; index ids "
               "54558687409, 55104481662; unchanged in PR #57292's fallback on main a406ad5c, "
               "2026-09-22): x + 127 clamped to [0, 255], exp_21f fraction quadratic, "
               "convert<vFloat16b>(., Nearest)",
    description="ttnn.exp2 on a BF16 tensor, May - Sep 2026")
