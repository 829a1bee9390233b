"""Natural-log kernels as of Sep 2026: BF16 Dst and FP32 Dst (the Juffa-derived rewrite).

Source: tenstorrent/tt-metal ``ckernel_sfpu_log.h`` ``calculate_log_body<FAST_APPROX=false,
HAS_BASE_SCALING=false, is_fp32_dest_acc_en, IS_BASE_TWO=false>`` and
``_init_log_body_constants_<is_fp32_dest_acc_en>`` (Jason Davies 2026, derived from Norbert
Juffa's logf), read in index id 68724988948: a Blackhole revision later than the table (its
``log_init`` has five template parameters where the harness calls ``log_init<false, false,
fp32>``, and it adds a bf16 fast kernel gated on ``ITERATIONS == 8``). With the harness's
``ITERATIONS = 32`` that revision re-seeds the body's constants and runs the same body, which
uses no chip-specific instruction; the constants and the body are taken to be those of the
Sep-2026 file on both chips (the 2026 Juffa-derived log: the same algorithm and BF16 constants). It
replaced PR #33391's bodies (kernels/log.py), whose figures (168 and 2 steps) miss the table.

Algorithm, all lanes in FP32 LRegs:

* ``e = bits(a) - bits(0.75)`` with its mantissa cleared (``k << 23``: ``a * 2**-k`` in
  [0.75, 1.5)), taken before ``a = a*1 + 0`` (which flushes -0 and denormals to +0);
  ``m = float(bits(a) - e) - 1`` in [-0.25, 0.5).
* Lanes with ``a >= 0`` (sign bit clear; the rest keep the quiet-NaN default): ``s = m*m``;
  BF16 Dst: ``r = -0.25*m + Prgm1``, ``r = r*m + Prgm2``; FP32 Dst: Horner from -0x1.92cp-5
  through 0x1.b84p-4, -0x1.0c4p-3, 0x1.274p-3, -0x1.55p-3, 0x1.998p-3, Prgm1, Prgm2, -0.5;
  then ``r = r*s + m`` and ``result = sign(e)*float(|e|) * Prgm0 + r`` (Prgm0 = ln2 * 2**-23).
* ``addexp(a, -1)`` turns +0 into +Inf (exponent 0 wraps to 255) and leaves Inf/NaN alone; where
  that is not finite, ``result *= it``: -Inf at zero, +Inf at +Inf, NaN at NaN.
* BF16 Dst: ``convert<vFloat16b>(result, Nearest)``; FP32 Dst: no rounding.

Init (``_init_log_body_constants_``): Prgm0 = 0.693147182f * 2**-23; BF16 Prgm1 = 0x1.744p-2,
Prgm2 = -0x1.008p-1; FP32 Prgm1 = -0x1.00001ap-2, Prgm2 = 0x1.555572p-2 (log1p's constants:
kernels/log1p_2026.py, whose names are reused).
"""
from __future__ import annotations

import math

from kernels.log1p_2026 import FP32_HIGH, log1p_fp32_init, log1p_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, addexp, dst_reg, exexp_nodebias, float_to_fp16b, int32_to_float,
                           reinterpret, setman, setsgn, v_endif, v_if, vConstFloatPrgm0,
                           vConstFloatPrgm1, vConstFloatPrgm2, vFloat, vInt)

NOT_FINITE_BIASED_EXPONENT = 255           # sfpi is_finite: exexp(v, Biased) < 255


def log_body(a, fp32: bool):
    """``calculate_log_body<false, false, fp32, false>(a)`` before the Dst rounding."""
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
        result.assign(e_float * vConstFloatPrgm0 + r)
        with v_if(exexp_nodebias(a) >= NOT_FINITE_BIASED_EXPONENT):
            result.assign(result * a)
        v_endif()
    v_endif()
    return result


def log_2026_09():
    """One iteration of ``calculate_log<false, false, false, false, 32>``."""
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(log_body(dst_reg[0], fp32=False), 0))


def log_fp32_2026_09():
    """One iteration of ``calculate_log<false, false, false, true, 32>``: no rounding."""
    dst_reg[0] = log_body(dst_reg[0], fp32=True)


register_kernel(
    "log_2026_09", log_2026_09, init=log1p_init, function="log", mode="accurate", dest="bf16",
    template="calculate_log",
    params={"APPROXIMATION_MODE": False, "FAST_APPROX": False, "HAS_BASE_SCALING": False,
            "is_fp32_dest_acc_en": False},
    provenance="tt-metal ckernel_sfpu_log.h calculate_log_body + _init_log_body_constants_ "
               "(Jason Davies 2026, Juffa-derived; read in BH revision index id 68724988948, "
               "later than the table, whose ITERATIONS=32 path is this body): a = 2**k * [0.75, "
               "1.5) by bit arithmetic, m + m^2 (Prgm2 + m (Prgm1 - m/4)) + k ln2, specials via "
               "addexp(a, -1); convert<vFloat16b>(., Nearest)",
    description="ttnn.log on a BF16 Dst, Sep 2026 (Juffa-derived rewrite)")

register_kernel(
    "log_fp32_2026_09", log_fp32_2026_09, init=log1p_fp32_init, function="log",
    mode="accurate", dest="fp32", template="calculate_log",
    params={"APPROXIMATION_MODE": False, "FAST_APPROX": False, "HAS_BASE_SCALING": False,
            "is_fp32_dest_acc_en": True},
    instance_of="log_2026_09",
    provenance="as log_2026_09 (index id 68724988948), FP32 arm: degree-9 Horner (-0x1.92cp-5 "
               "... Prgm1 = -0x1.00001ap-2, Prgm2 = 0x1.555572p-2, -0.5), no rounding",
    description="ttnn.log with an FP32 Dst, Sep 2026 (Juffa-derived rewrite)")
