"""Binary SFPU pow (base ** exponent), Sep 2026, both chips: ``calculate_sfpu_binary<APPROX,
BinaryOp::POW, 8, ...>`` -> ``calculate_sfpu_binary_power(in0, in1)`` (the accuracy harness's
SfpuElwpow row).

Operands as in :mod:`kernels.binary_2026`: in0 = the base at ``dst_reg[0]``, in1 = the exponent
at ``dst_reg[32]``; the result goes to tile 0.

Sources read: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/
llk_api/llk_sfpu/ckernel_sfpu_binary.h``, Wormhole @02406b25 (index id 70173998202), Blackhole
@0085d978 (index id 70759225026; its constants named ``LogPolyNoInit``, the same values). With
p the exponent and b the base:

1. ``p_r = float(int16(p))``, both conversions to nearest (``convert<vSMag16>`` is SFP_STOCH_RND
   FP32 -> INT16, back by SFPCAST); where ``p_r == p`` (an integral exponent) b becomes |b|.
2. ln b ~ ``e * 0.692871f + m*(m*(m*A - B) + C) - D``, m = b with its exponent set to 127 (the
   sign kept), e its unbiased exponent as a float; A..D the cubic of ``0x2.44734p-4``,
   ``0xd.e712ap-4``, ``0x2.4f5388p+0``, ``0x1.952992p+0`` (kernels/pow_2026's LOG2_CUBIC), the
   "deliberately coarse" ln 2 of 0x3F315FFE; -Inf where b is zero (a raw zero test).
3. ``v = p * ln b``; the result is tt-llk's ``_sfpu_exp_(|v|)`` (kernels/exp.py's
   ``sfpu_exp``), and where v < 0 (its sign bit) ``sfpu_reciprocal_iter<2>`` of it: Wormhole's
   quadratic seed and two Newton steps (``sfpu_reciprocal_init<false>``: the minimax seed
   0x3EA57EBB, 0x3FBA2E90, 0x4007C1F2; written in place, kernels/log.py's
   ``reciprocal_2_wormhole_in_place``, the same operations, so that it fits the LRegs beside
   the four values still live), Blackhole's SFPARECIP and two Newton steps (Prgm0 = 2.0).
4. Where the original base is negative (its sign bit): an integral exponent makes the result
   negative when ``p_r * 0.5`` is not integral (odd), else the result is a quiet NaN.
5. Last (tt-metal PR #53759, "Return 1 for SFPU pow(x, 0)", 2026-08): where |p| is zero, 1.0.

No rounding step for either Dst mode (the one ``float32_to_bf16_rne`` of the function is ADD,
SUB and RSUB's); SFPSTORE narrows the FP32 result into a 16-bit Dst. A later Blackhole revision
(index id 71143231466) routes POW through ``_sfpu_binary_power_<is_fp32_dest_acc_en>`` (exp_21f)
instead; it is not modelled here.
"""
from __future__ import annotations

import math

from kernels.binary_2026 import IN1
from kernels.common import polyval
from kernels.exp import sfpu_exp
from kernels.log import exponent_as_float, reciprocal_2_wormhole_in_place
from kernels.pow_2026 import LOG2_CUBIC
from kernels.recip_2026 import MINIMAX_SEED, recip_init_2026_09
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim.registry import register_kernel
from sfpu_sim.sfpi import (dst_reg, float_to_int16, int32_to_float, reinterpret, setexp, setsgn,
                           v_else, v_endif, v_if, vFloat, vUInt)

BINARY_H = ("tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
            "ckernel_sfpu_binary.h (WH @02406b25, index id 70173998202; BH @0085d978, index id "
            "70759225026)")
POW_LN2 = 0.692871                 # the source's 0.692871f: 0x3F315FFE


def _rounded_to_integer(value):
    """``convert<vFloat>(convert<vSMag16>(value, Nearest), Nearest)``."""
    return int32_to_float(reinterpret(vUInt, float_to_int16(value, 0)), 0)


def binary_power(chip: str):
    """``calculate_sfpu_binary_power`` over one row (module docstring)."""
    def body():
        base = dst_reg[0]
        power = dst_reg[IN1]
        original_base = vFloat(base)
        power_rounded = _rounded_to_integer(power)
        with v_if(power_rounded == power):
            base.assign(setsgn(base, 0))
        v_endif()
        m = setexp(base, 127)
        series = polyval(m, *LOG2_CUBIC)
        log_result = exponent_as_float(base) * POW_LN2 + series
        with v_if(base == 0.0):
            log_result.assign(-math.inf)
        v_endif()
        value = power * log_result
        result = sfpu_exp(setsgn(value, 0))
        with v_if(value < 0.0):
            result.assign(reciprocal_2_wormhole_in_place(result) if chip == "wormhole" else
                          reciprocal(result, 2))
        v_endif()
        with v_if(original_base < 0.0):
            with v_if(power_rounded == power):
                half = power_rounded * 0.5
                with v_if(half != _rounded_to_integer(half)):
                    result.assign(setsgn(result, 1))
                v_endif()
            with v_else():
                result.assign(math.nan)
            v_endif()
        v_endif()
        with v_if(setsgn(power, 0) == 0.0):
            result.assign(1.0)
        v_endif()
        dst_reg[0] = result
    return body


def _init_wormhole():
    """``sfpu_binary_init<false, POW>`` -> ``sfpu_reciprocal_init<false>()`` on Wormhole."""
    recip_init_2026_09(MINIMAX_SEED)


register_kernel(
    "binary_pow_2026_09", {chip: binary_power(chip) for chip in ("wormhole", "blackhole")},
    init={"wormhole": _init_wormhole, "blackhole": reciprocal_init}, function="pow",
    operands=2, template="calculate_sfpu_binary",
    params={"APPROXIMATION_MODE": False, "BINOP": "BinaryOp::POW", "ITERATIONS": 8},
    provenance=f"{BINARY_H}: calculate_sfpu_binary_power: |base| for an integral exponent, "
               f"ln by the cubic 0x2.44734p-4.. and ln2 0.692871f, _sfpu_exp_(|p ln b|), "
               f"sfpu_reciprocal_iter<2> where p ln b < 0, the sign of an odd power of a "
               f"negative base (NaN for a non-integral one), 1 where p = 0 (PR #53759); no "
               f"rounding",
    description="SfpuElwpow row: BinaryOp::POW, either Dst, Sep 2026")
