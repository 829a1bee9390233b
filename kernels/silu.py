"""silu kernels (tt-metal and tt-llk ``ckernel_sfpu_silu.h``).

``silu``: what ttnn.silu runs on a BF16 tensor by default in Jan 2026: tt-metal
``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/ckernel_sfpu_silu.h``
``calculate_silu<is_fp32_dest_acc_en=false>``: ``result = x * _sfpu_sigmoid_<false>(x)``, then
``float_to_fp16b(result, 0)``; ``silu_init`` = the reciprocal init (BH
``_init_sfpu_reciprocal_<false>``, WH ``_init_reciprocal_<false, false>``, the same constants;
issue #37896 quotes the Feb-2026 BH file).

Which ``_sfpu_sigmoid_<false>`` it multiplies by decides the bits (see kernels/sigmoid.py): the
Nov 2025 - Jan 2026 sigmoid rounds to BF16 *inside* ``_sfpu_sigmoid_<false>``, so ``silu``
rounds twice: ``rn(x * rn(sigmoid(x)))``. That is the state before PR #36308 (late Jan 2026) and
again after its revert on 2026-01-28 (PR #36687), i.e. what ran at the 2026-01-30 snapshot.
``silu_2026_02`` is the same kernel after PR #37186 (Feb 2026) moved the rounding out of
``_sfpu_sigmoid_`` (also live for a few days in late Jan 2026 with #36308): one rounding,
``rn(x * sigmoid(x))``; still the form of the May-2026 BH files (issue #45520: BH bf16 max 245,
the FTZ artefact for very negative x) until the hand-scheduled rewrites of Aug/Sep 2026.

``silu_llk_legacy``: tt-llk ``_calculate_silu_`` (tt_llk_{wormhole_b0,blackhole}, "fix silu op"
#489, 2025-07-11; unchanged at c635ca695 2026-01-30), the LLK test-harness kernel (not what
ttnn ran in 2026): ``s(|x|)`` = ``0.229|x| + 0.5`` for ``|x| <= 1``, ``POLYVAL5(0.00144462,
-0.01055479, -0.01203685, 0.24300185, 0.50437757, |x|)`` for ``|x| < 5``, else 1; ``s = 1 - s``
for ``x < 0``; output ``x * s``, no rounding (truncating SFPSTORE).
"""
from __future__ import annotations

from kernels.common import polyval
from kernels.sigmoid import sfpu_sigmoid, sigmoid_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    abs,
    dst_reg,
    float_to_fp16b,
    reinterpret,
    v_elseif,
    v_endif,
    v_if,
    vFloat,
)


def silu_init():
    """``silu_init<false>``: the reciprocal init (as ``sigmoid_init<false>``)."""
    sigmoid_init()


def silu():
    """One iteration of ``calculate_silu<false>`` over the Jan-2026 ``_sfpu_sigmoid_<false>``
    (which already rounds to BF16)."""
    x = dst_reg[0]
    result = x * sfpu_sigmoid(x, fp32=False, round_inside=True)
    result = reinterpret(vFloat, float_to_fp16b(result, 0))
    dst_reg[0] = result


def silu_2026_02():
    """One iteration of ``calculate_silu<false>`` after PR #37186 (``_sfpu_sigmoid_<false>``
    unrounded)."""
    x = dst_reg[0]
    result = x * sfpu_sigmoid(x, fp32=False, round_inside=False)
    result = reinterpret(vFloat, float_to_fp16b(result, 0))
    dst_reg[0] = result


def sigmoid_piecewise_linear_positive(val):
    """tt-llk ``_sigmoid_piecewise_linear_positive_`` on ``val = |x|``."""
    result = vFloat(1.0)
    with v_if(val <= 1.0):
        result.assign(0.229 * val + 0.5)            # linear: 0.229 x + 0.5
    with v_elseif(val < 5.0):
        # POLYVAL5(c4, c3, c2, c1, c0, val): c4 highest, Horner innermost first
        result.assign(polyval(val, 0.50437757, 0.24300185, -0.01203685, -0.01055479,
                              0.00144462))
    v_endif()
    return result


def silu_llk_legacy():
    """One iteration of tt-llk ``_calculate_silu_``."""
    val = dst_reg[0]
    result = abs(val)
    result = sigmoid_piecewise_linear_positive(result)
    with v_if(val < 0.0):
        result.assign(1.0 - result)
    v_endif()
    dst_reg[0] = val * result


register_kernel(
    "silu", silu, init=silu_init, function="silu", mode="accurate", dest="bf16",
    provenance="tt-metal ckernel_sfpu_silu.h calculate_silu<false> (Jan 2026): x * "
               "_sfpu_sigmoid_<false>(x) with the sigmoid already rounded inside (Nov 2025 - Jan "
               "2026 form), then float_to_fp16b(, 0): two roundings",
    description="ttnn.silu default on a BF16 tensor (Jan 2026)")

register_kernel(
    "silu_2026_02", silu_2026_02, init=silu_init, function="silu", mode="accurate", dest="bf16",
    provenance="tt-metal ckernel_sfpu_silu.h calculate_silu<false> after PR #37186 (Feb 2026; "
               "briefly #36308 in late Jan 2026) moved the rounding out of _sfpu_sigmoid_: x * "
               "sigmoid(x) unrounded, float_to_fp16b(, 0) once",
    description="ttnn.silu on a BF16 tensor, Feb - Aug 2026 (single rounding)")

register_kernel(
    "silu_llk_legacy", silu_llk_legacy, function="silu", mode="accurate", dest="bf16",
    provenance="tt-llk ckernel_sfpu_silu.h _calculate_silu_ (#489, 2025-07-11; unchanged at "
               "c635ca695 2026-01-30): piecewise linear/POLYVAL5 sigmoid of |x|, mirrored, times "
               "x, no rounding (LLK test-harness kernel)",
    description="tt-llk's polynomial silu (test harness; ttnn used tt-metal's)")
