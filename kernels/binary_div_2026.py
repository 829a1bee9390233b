"""Binary SFPU division of Sep 2026, both chips: ``calculate_sfpu_binary_div`` (ttnn's
``div_binary_tile``, and what the accuracy harness runs for its SfpuElwdiv row) and the generic
``calculate_sfpu_binary<DIV>`` arm.

Operands as in :mod:`kernels.binary_2026`: in0 = x at ``dst_reg[0]``, in1 = y at ``dst_reg[32]``,
the quotient back to ``dst_reg[0]`` (:mod:`sfpu_sim.binary_device`).

Sources read (tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/``; the file is rewritten often in 2026 and its index copies are undated, so each chip
is pinned to one stored revision):

* Wormhole ``ckernel_sfpu_binary.h`` @02406b25 (index id 70173998202), the revision
  kernels/binary_2026.py models: ``calculate_sfpu_binary_div<APPROX, DIV, 8,
  is_fp32_dest_acc_en>``. 16-bit Dst: ``in0 * sfpu_reciprocal_iter<2>(in1)``; where ``in1 == 0``:
  NaN if ``in0 == 0`` too, else ``copysgn(inf, in0)``; then ``float32_to_bf16_rne``. FP32 Dst:
  the quotient of the two mantissas (exponents set to 127) from a one-step reciprocal of the
  normalised divisor (``sfpu_reciprocal_iter<1, false, true>``) and one residual (Markstein)
  correction, the exponent ``ea - eb + exexp(q)`` restored in two halves (``setexp(q, half) *
  setexp(1.0, exponent - half)``, so the product overflows and underflows as the hardware
  does); where either operand is not normal, ``in0`` times the divisor's exponent-inverted
  power of two (XOR with 0x7f800000: inf for a zero divisor, zero for inf and NaN), then the
  divisor itself where it is NaN.
* Blackhole ``ckernel_sfpu_binary.h`` (index id 70140285233, same API generation): the same
  16-bit-Dst arithmetic with the zero-divisor answers read from Prgm1 = inf and Prgm2 = NaN
  (``sfpu_binary_init<DIV>`` loads them; the same bits as the immediates). FP32 Dst: ``q = in0
  * sfpu_reciprocal_iter<2>(in1)``, then where ``q`` is finite (sfpi ``is_finite``: biased
  exponent below 255) one residual correction ``q + (in0 - q * in1) * r``; the zero-divisor
  answers after it, no rounding. Two later stored
  revisions (ids 70223681937, 70759225026) write the reciprocal out inline and keep only the
  ``in1 == 0 && in0 != 0`` arm, leaving 0/0 to ``0 * inf``: on Blackhole that is the same NaN.
* ``sfpu_reciprocal_iter<2>`` and ``sfpu_reciprocal_init<false>`` (``ckernel_sfpu_recip.h``):
  Wormhole index id 70080189142 (the revision with the ``normalized`` flag 02406b25 uses), the
  quadratic minimax seed and two Newton steps, no rounding (``normalized``: an input already in
  [1, 2) in magnitude, so no rescale: :func:`reciprocal_normalized_wormhole`); Blackhole index id 68299769699,
  SFPARECIP plus two guarded Newton steps, Prgm0 = 2.0. Both are :func:`kernels.reciprocal.
  reciprocal` with two iterations and :func:`kernels.reciprocal.reciprocal_init`.
* The accuracy harness (tt-metal ``tt_metal/tt-llk/tests/helpers/include/sfpu_operations.h``,
  index id 54491740591) routes ``BinaryOp::DIV`` to ``calculate_sfpu_binary_div<APPROX, DIV, 8,
  DST_ACCUM_MODE>``; an earlier copy (index id 54585064014) called the generic
  ``calculate_sfpu_binary<APPROX, DIV, 8>``: ``in0 * sfpu_reciprocal_iter<2>(in1)``, no zero arm,
  no rounding (:func:`binary_div_generic_2026_09`).
"""
from __future__ import annotations

import math

from kernels.binary_2026 import IN1
from kernels.elementwise_2026 import float32_to_bf16_rne
from kernels.log_2026 import NOT_FINITE_BIASED_EXPONENT
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim.registry import register_kernel
from sfpu_sim.sfpi import (
    dst_reg,
    exexp,
    exexp_nodebias,
    per_chip,
    reinterpret,
    setexp,
    setman,
    setsgn,
    v_and,
    v_else,
    v_endif,
    v_if,
    vConst1,
    vConstFloatPrgm0,
    vConstFloatPrgm1,
    vConstFloatPrgm2,
    vFloat,
    vInt,
    vUInt,
)

METAL = "tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
DIV_SOURCE = (METAL + "ckernel_sfpu_binary.h (WH @02406b25, index id 70173998202; BH index id "
              "70140285233) with ckernel_sfpu_recip.h (WH index id 70080189142, BH 68299769699)")
HARNESS = ("tt-metal tt_metal/tt-llk/tests/helpers/include/sfpu_operations.h (index id "
           "54491740591): BinaryOp::DIV -> calculate_sfpu_binary_div<APPROX, DIV, 8, "
           "DST_ACCUM_MODE>")


def _div_init_wormhole():
    """``sfpu_binary_init<DIV>``: ``sfpu_reciprocal_init<false>`` (the minimax seed)."""
    reciprocal_init()


def _div_init_blackhole():
    """``sfpu_binary_init<DIV>``: Prgm0 = 2.0 (the reciprocal), Prgm1 = inf, Prgm2 = NaN."""
    reciprocal_init()
    vConstFloatPrgm1.assign(math.inf)
    vConstFloatPrgm2.assign(math.nan)


def _zero_divisor_wormhole(result, in0, in1):
    """0 / 0 is NaN, x / 0 is ``copysgn(inf, x)`` (immediates)."""
    with v_if(in1 == 0.0):
        with v_if(in0 == 0.0):
            result.assign(math.nan)
        with v_else():
            result.assign(setsgn(vFloat(math.inf), in0))
        v_endif()
    v_endif()


def _zero_divisor_blackhole(result, in0, in1):
    """The same answers from the constants the init loaded: ``copysgn(Prgm1, x)``, then
    Prgm2 where the dividend is zero too."""
    with v_if(in1 == 0.0):
        result.assign(setsgn(vFloat(vConstFloatPrgm1), in0))
        with v_if(in0 == 0.0):
            result.assign(vConstFloatPrgm2)
        v_endif()
    v_endif()


_zero_divisor = per_chip(wormhole=_zero_divisor_wormhole, blackhole=_zero_divisor_blackhole)


def binary_div_2026_09():
    """``calculate_sfpu_binary_div<false, DIV, 8, false>`` (16-bit Dst): ``in0 * 1/in1`` (two
    Newton steps), the zero-divisor answers, then round to BF16 (nearest even)."""
    in0, in1 = dst_reg[0], dst_reg[IN1]
    result = in0 * reciprocal(in1, 2)
    _zero_divisor(result, in0, in1)
    dst_reg[0] = float32_to_bf16_rne(result)


def reciprocal_normalized_wormhole(x):
    """Wormhole ``sfpu_reciprocal_iter<1, false, true>(x)`` for ``|x|`` in [1, 2): the quadratic
    seed (Prgm0..2) and one Newton step on ``-|x|``, no rescale, ``x``'s sign."""
    negative_x = setsgn(x, 1)
    y = vConstFloatPrgm1 + vConstFloatPrgm0 * negative_x
    y = vConstFloatPrgm2 + y * negative_x
    t = vConst1 + negative_x * y
    y = y + y * t
    return setsgn(y, x)


def _div_fp32_wormhole(in0, in1):
    """The FP32-Dst quotient of ``calculate_sfpu_binary_div`` on Wormhole (module docstring)."""
    ma = setexp(in0, 127)
    mb = setexp(in1, 127)
    r = reciprocal_normalized_wormhole(mb)
    q = ma * r
    residual = ma + q * -mb                 # SFPMAD has no subtract: mb negated first
    q = q + residual * r
    ea = exexp_nodebias(in0)
    eb = exexp(in1)                         # unbiased: absorbs the bias below
    exponent = ea - eb + exexp_nodebias(q)
    half = reinterpret(vInt, reinterpret(vUInt, exponent) >> 1)
    result = setexp(q, half) * setexp(vFloat(1.0), exponent - half)
    with v_if(~((ea >= 1) & (ea < 255) & (eb >= -126) & (eb < 128))):
        inf_bits = vInt(0x7F800000)
        scale_bits = reinterpret(vInt, setman(in1, 0))
        result.assign(in0 * reinterpret(vFloat, scale_bits ^ inf_bits))
        v_and(reinterpret(vInt, setsgn(in1, 0)) > inf_bits)
        result.assign(in1)
    v_endif()
    return result


def _div_fp32_blackhole(in0, in1):
    """The FP32-Dst quotient of ``calculate_sfpu_binary_div`` on Blackhole (module docstring)."""
    r = reciprocal(in1, 2)
    result = in0 * r
    with v_if(exexp_nodebias(result) < NOT_FINITE_BIASED_EXPONENT):
        e = in0 - result * in1
        result.assign(result + e * r)
    v_endif()
    _zero_divisor_blackhole(result, in0, in1)
    return result


_div_fp32 = per_chip(wormhole=_div_fp32_wormhole, blackhole=_div_fp32_blackhole)


def binary_div_fp32_2026_09():
    """``calculate_sfpu_binary_div<false, DIV, 8, true>`` (FP32 Dst): the chip's refined
    quotient, no rounding."""
    dst_reg[0] = _div_fp32(dst_reg[0], dst_reg[IN1])


def binary_div_generic_2026_09():
    """``calculate_sfpu_binary<false, DIV, 8>``: ``in0 * sfpu_reciprocal_iter<2>(in1)``, nothing
    else (no zero arm, no rounding: a 16-bit Dst's SFPSTORE truncates)."""
    in0 = dst_reg[0]
    dst_reg[0] = in0 * reciprocal(dst_reg[IN1], 2)


_INIT = {"wormhole": _div_init_wormhole, "blackhole": _div_init_blackhole}

register_kernel(
    "binary_div_2026_09", binary_div_2026_09, init=_INIT, function="div", operands=2,
    template="calculate_sfpu_binary_div",
    params={"APPROXIMATION_MODE": False, "BINOP": "BinaryOp::DIV", "ITERATIONS": 8,
            "is_fp32_dest_acc_en": False},
    provenance=f"{DIV_SOURCE}: in0 * sfpu_reciprocal_iter<2>(in1); in1 == 0: NaN for 0/0, "
               f"copysgn(inf, in0) otherwise; float32_to_bf16_rne. {HARNESS}",
    description="ttnn div_binary_tile / SfpuElwdiv row, 16-bit Dst, Sep 2026")
register_kernel(
    "binary_div_fp32_2026_09", binary_div_fp32_2026_09, init=_INIT, function="div", operands=2,
    template="calculate_sfpu_binary_div", dest="fp32",
    params={"APPROXIMATION_MODE": False, "BINOP": "BinaryOp::DIV", "ITERATIONS": 8,
            "is_fp32_dest_acc_en": True},
    provenance=f"{DIV_SOURCE}: the is_fp32_dest_acc_en arm: Wormhole, the mantissas' quotient "
               f"by sfpu_reciprocal_iter<1, false, true> and one residual step, the exponent "
               f"restored in two factors, non-normal operands by the divisor's inverted "
               f"exponent; Blackhole, in0 * sfpu_reciprocal_iter<2>(in1) and one residual step "
               f"where finite, then the zero-divisor arm. No rounding. {HARNESS}",
    description="ttnn div_binary_tile / SfpuElwdiv row, FP32 Dst, Sep 2026")
register_kernel(
    "binary_div_generic_2026_09", binary_div_generic_2026_09, init=_INIT, function="div",
    operands=2, template="calculate_sfpu_binary",
    params={"APPROXIMATION_MODE": False, "BINOP": "BinaryOp::DIV", "ITERATIONS": 8},
    provenance=f"{DIV_SOURCE}: calculate_sfpu_binary's DIV arm, in0 * sfpu_reciprocal_iter<2>"
               f"(in1), no zero arm, no rounding; the harness's call before it was routed to "
               f"calculate_sfpu_binary_div (sfpu_operations.h, index id 54585064014)",
    description="calculate_sfpu_binary<DIV>, either Dst, Sep 2026")
