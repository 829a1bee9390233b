"""Base-2 logarithm kernels as of Sep 2026 (LogWithBase): BF16 Dst and FP32 Dst.

Source: tenstorrent/tt-metal ``ckernel_sfpu_log.h`` ``calculate_log<false, false,
HAS_BASE_SCALING=true, is_fp32_dest_acc_en, 32, IS_BASE_TWO=true>(0x3FB8AA3B)`` and its
``calculate_log_body``, read in index id 68724988948 (a Blackhole revision, the same one
kernels/log_2026.py models; its body uses no chip-specific instruction). Dating: the harness
names ``IS_BASE_TWO`` in its call, and that parameter exists only in revisions whose body has
the base-two arm below (its comment says it replaced ``result *= 1/ln2`` on the finished sum,
which left log2(2**k) an FP32 step low for 46 exponents); so the arm is the one the table ran.
``log_init<false, false, fp32>`` (the harness's three-parameter init, older than that file's
five-parameter one) seeds the body's constants, i.e. ``log1p_init`` / ``log1p_fp32_init``.

The body is kernels/log_2026.py's ``log_body`` up to ``r = r*s + m`` and the signed exponent
``e_float``; only the sum differs:

* natural log: ``result = e_float * Prgm0 + r`` (Prgm0 = ln2 * 2**-23);
* IS_BASE_TWO: ``result = e_float * 2**-23 + r * scale`` with ``scale`` = the bits 0x3FB8AA3B
  (1/ln2 rounded to FP32): one SFPMAD ``r*scale + 0``, then one SFPMAD ``e_float*2**-23 +
  that``. e_float = k * 2**23 exactly, so the exponent term is k, exact: log2(2**k) = k.

Specials as in the natural log (``addexp(a, -1)``, then ``result *= a`` where not finite):
-Inf at +-0 and denormals, +Inf at +Inf, NaN at NaN and negatives. BF16 Dst: the result is
rounded by ``convert<vFloat16b>(., Nearest)``; FP32 Dst: no rounding.
"""
from __future__ import annotations

import math

from kernels.common import as_float
from kernels.log1p_2026 import FP32_HIGH, log1p_fp32_init, log1p_init
from kernels.log_2026 import NOT_FINITE_BIASED_EXPONENT
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, addexp, dst_reg, exexp_nodebias, float_to_fp16b, int32_to_float,
                           reinterpret, setman, setsgn, v_endif, v_if, vConstFloatPrgm1,
                           vConstFloatPrgm2, vFloat, vInt)

INV_LN2_BITS = 0x3FB8AA3B                  # the harness's log_base_scale_factor, 1/ln2 in FP32
TWO_TO_M23 = 2.0 ** -23


def log2_body(a, fp32: bool):
    """``calculate_log_body<false, true, fp32, true>(a, 0x3FB8AA3B)`` before the Dst rounding.
    Instruction for instruction kernels/log_2026.py's ``log_body`` but for the final sum."""
    three_quarters = vFloat(0.75)
    e = reinterpret(vInt, a) - reinterpret(vInt, three_quarters)
    a = a * 1.0 + 0.0                                  # -0 and denormals -> +0
    e = reinterpret(vInt, setman(reinterpret(vFloat, e), 0))
    m = reinterpret(vFloat, reinterpret(vInt, a) - e)
    result = vFloat(math.nan)
    m = m - 1.0
    with v_if(a >= 0.0):
        s = m * m
        if fp32:
            r = vFloat(FP32_HIGH[0])
            for c in FP32_HIGH[1:]:
                r = r * m + c
            abs_e = abs(e)
            r = r * m + vConstFloatPrgm1
            e_float = int32_to_float(abs_e, 0)
            r = r * m + vConstFloatPrgm2
            r = r * m + -0.5
        else:
            abs_e = abs(e)
            neg_quarter = vFloat(-0.25)
            r = neg_quarter * m + vConstFloatPrgm1
            e_float = int32_to_float(abs_e, 0)
            r = r * m + vConstFloatPrgm2
        a = addexp(a, -1)                              # +0 -> +Inf; Inf, NaN unchanged
        r = r * s + m
        e_float = setsgn(e_float, reinterpret(vFloat, e))
        scale = vFloat(as_float(INV_LN2_BITS))
        scaled_mantissa_term = r * scale               # SFPMAD r*scale + 0
        result.assign(e_float * TWO_TO_M23 + scaled_mantissa_term)
        with v_if(exexp_nodebias(a) >= NOT_FINITE_BIASED_EXPONENT):
            result.assign(result * a)
        v_endif()
    v_endif()
    return result


def log2_2026_09():
    """One iteration of ``calculate_log<false, false, true, false, 32, true>(0x3FB8AA3B)``."""
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(log2_body(dst_reg[0], fp32=False), 0))


def log2_fp32_2026_09():
    """One iteration of ``calculate_log<false, false, true, true, 32, true>(0x3FB8AA3B)``."""
    dst_reg[0] = log2_body(dst_reg[0], fp32=True)


_PARAMS = {"APPROXIMATION_MODE": False, "FAST_APPROX": False, "HAS_BASE_SCALING": True,
           "IS_BASE_TWO": True, "log_base_scale_factor": INV_LN2_BITS}

register_kernel(
    "log2_2026_09", log2_2026_09, init=log1p_init, function="log2", mode="accurate",
    dest="bf16", template="calculate_log", params={**_PARAMS, "is_fp32_dest_acc_en": False},
    provenance="tt-metal ckernel_sfpu_log.h calculate_log_body IS_BASE_TWO arm (index id "
               "68724988948; dated by the harness's IS_BASE_TWO template argument, which came "
               "with this arm): Juffa-derived log body, then e*2**-23 + r*(1/ln2 = 0x3FB8AA3B); "
               "convert<vFloat16b>(., Nearest)",
    description="LogWithBase (log2, base scale 1/ln2) on a BF16 Dst, Sep 2026")

register_kernel(
    "log2_fp32_2026_09", log2_fp32_2026_09, init=log1p_fp32_init, function="log2",
    mode="accurate", dest="fp32", template="calculate_log",
    params={**_PARAMS, "is_fp32_dest_acc_en": True}, instance_of="log2_2026_09",
    provenance="as log2_2026_09 (index id 68724988948), FP32 arm of the body (degree-9 Horner, "
               "log1p's FP32 Prgm1/Prgm2), no rounding",
    description="LogWithBase (log2, base scale 1/ln2) with an FP32 Dst, Sep 2026")
