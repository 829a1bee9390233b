"""Power kernels as of Sep 2026: unary power (x**p, p = 2.0 in the harness), BF16 Dst.

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_sfpu/
ckernel_sfpu_unary_power.h`` (index id 70193818099; 2026 header, sfpi ``convert``/``as``
spelling of May 2026 on, ``sfpu_unary_pow_init`` as the harness calls it). Its FP32 path, on
the ``ckernel_sfpu_pow_df.h`` core, fixes issue #57446 (2026-09-22) and so postdates the table;
the BF16 path modelled here is the same in PR #49649's version (index id 54500323242), which
#57446 quotes as main (see kernels/unary_power_fp32_2026.py). Facts carried over, not code.
``_float_to_int32_positive_``: ``ckernel_sfpu_conversions.h`` (index ids 70791822509,
70549217024: same values; the later one computes the shift on every lane and fixes up
out-of-range lanes after).

``unary_power_2026_09`` (BF16 Dst): ``calculate_unary_power<false, false, 32>(2.0)`` ->
``_sfpu_unary_power_bf16_`` -> ``_sfpu_unary_power_21f_<IS_POSITIVE_EXPONENT = (p >= 0)>``:

1. ``log2|b| = e + P3(m) * Prgm0``: m = |b| with its exponent set to 127 (in [1, 2)), P3 a cubic
   (rminimax over [1, 2]) by Horner, e = exexp(b) (unbiased, two's complement) converted to
   sign-magnitude then float (SFPCAST), Prgm0 = 1/ln 2 (the product fused into the addition).
2. ``z = p * log2|b|``, raised to Prgm1 = -127 where below it; ``z * 2**23`` by SFPDIVP2,
   plus the float 0x3f800000 (= 127 * 2**23), to an integer by ``_float_to_int32_positive_``
   (0 below 1, INT32_MAX from 2**31, else the truncated value).
3. The exp_21f step of Moroz et al. 2022: integer exponent ``zii = exexp(z)`` and 23-bit fraction
   ``zif``; ``(0.40196114e-7 * float(0xf94ee7 + zif)) * float(0x560e + zif)`` (two SFPMULs) to an
   integer again, then ``setexp(., 127 + zii)``.
4. Negative base (sign bit set, -0 and -NaN included): sign from the low bit of round(p) as an
   int16 (``setsgn2``: for p = 2 positive), and Prgm2 = quiet NaN where round(p) != p.
5. ``IS_POSITIVE_EXPONENT``: |b| == 0 and p > 0 give 0; then ``convert<vFloat16b>(y, Nearest)``.

The header is under ``wormhole_b0``; no Blackhole copy differing in these bodies was found, and
nothing here is chip-specific (no SFPARECIP, no SFPGT), so one body serves both chips.
"""
from __future__ import annotations

import math

from kernels.common import polyval
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, addexp, dst_reg, exexp, exman8, exman9, float_to_fp16b,
                           float_to_int16, int32_to_float, reinterpret, setexp, setsgn, shft,
                           v_and, v_else, v_elseif, v_endif, v_if, vConstFloatPrgm0,
                           vConstFloatPrgm1, vConstFloatPrgm2, vFloat, vInt, vUInt)

# The harness's exponent (goldens.md: _UNARY_POWER_EXP = 2.0, passed as its FP32 bits).
UNARY_POWER_EXPONENT = 2.0
# sfpu_unary_pow_init: 1/ln 2 (the double literal as a float), the clamp of z, quiet NaN.
POW_INV_LN2 = 1.4426950408889634
POW_Z_LOW = -127.0
# log2 of m in [1, 2): the cubic's coefficients in ascending powers (C hex-float literals).
LOG2_CUBIC = (float.fromhex("-0x1.952992p+0"), float.fromhex("0x2.4f5388p+0"),
              float.fromhex("-0xd.e712ap-4"), float.fromhex("0x2.44734p-4"))
# 127 * 2**23, written in the source as the integer literal 0x3f800000 converted to float
EXP21F_BIAS = float(0x3F800000)
EXP21F_D1 = 0.40196114e-7
EXP21F_D2_OFFSET, EXP21F_D3_OFFSET = 0xF94EE7, 0x560E
INT32_MAX = 0x7FFFFFFF


def sfpu_unary_pow_init():
    """``sfpu_unary_pow_init``."""
    vConstFloatPrgm0.assign(POW_INV_LN2)
    vConstFloatPrgm1.assign(POW_Z_LOW)
    vConstFloatPrgm2.assign(math.nan)


def float_to_int32_positive(value):
    """``_float_to_int32_positive_`` (value >= 0): 0 below 1, INT32_MAX from 2**31, otherwise
    the mantissa with its hidden bit shifted by (exponent - 23), i.e. truncated."""
    exponent = exexp(value)
    result = vInt(0)
    with v_if(exponent < 0):
        result.assign(0)
    with v_elseif(exponent > 30):
        result.assign(INT32_MAX)
    with v_else():
        mantissa = exman8(value)
        result.assign(reinterpret(vInt, shft(reinterpret(vUInt, mantissa), exponent - 23)))
    v_endif()
    return result


def to_sign_magnitude(value):
    """``convert<vSMag>(vInt)``: a two's-complement integer as sign and magnitude (the
    magnitude by integer SFPABS, the sign copied back). SFPCAST reads sign-magnitude."""
    magnitude = abs(value)
    return reinterpret(vInt, setsgn(reinterpret(vFloat, magnitude), reinterpret(vFloat, value)))


def _log2_abs(base, abs_base):
    """Step 1: ``e + P3(m) / ln 2`` with m = |base| scaled into [1, 2)."""
    m = setexp(abs_base, 127)
    series = polyval(m, *LOG2_CUBIC)
    exponent = int32_to_float(to_sign_magnitude(exexp(base)), 0)
    return series * vConstFloatPrgm0 + exponent


def _exp2_21f(z_f32):
    """Steps 2-3: ``2**z`` (z already clamped below at -127) by Moroz et al.'s exp_21f."""
    z_f32 = addexp(z_f32, 23)
    z = float_to_int32_positive(z_f32 + vFloat(EXP21F_BIAS))
    zii = exexp(reinterpret(vFloat, z))
    zif = exman9(reinterpret(vFloat, z))
    d1 = vFloat(EXP21F_D1)
    d2 = int32_to_float(vInt(EXP21F_D2_OFFSET) + zif, 0)
    d3 = int32_to_float(vInt(EXP21F_D3_OFFSET) + zif, 0)
    d2 = d1 * d2
    zif = float_to_int32_positive(d2 * d3)
    return setexp(reinterpret(vFloat, zif), zii + 127)


def negative_base_fixup(base, power, y):
    """Step 4, in place on ``y``: where the sign bit of ``base`` is set."""
    with v_if(base < 0.0):
        power_int = float_to_int16(power, 0)         # convert<vSMag16>(p, Nearest)
        power_rounded = int32_to_float(power_int, 0)
        # setsgn2: the parity bit of round(p) moved up to the sign bit
        parity = shft(reinterpret(vUInt, power_int), 31)
        y.assign(setsgn(y, reinterpret(vFloat, parity)))
        with v_if(power_rounded != power):
            y.assign(vConstFloatPrgm2)
        v_endif()
    v_endif()


def zero_base_fixup(abs_base, power, y, positive_exponent: bool) -> None:
    """PR #53367, in place on ``y``, after the sign branch: where |base| is 0, 0 for a positive
    power, else Prgm2. ``power()`` gives the power as a vector where it is used (a kernel that
    rematerialises the scalar loads it there)."""
    if positive_exponent:
        with v_if(abs_base == 0.0):
            v_and(power() > 0.0)
            y.assign(0.0)
        v_endif()
    else:
        with v_if(abs_base == 0.0):
            y.assign(vConstFloatPrgm2)
        v_endif()


def unary_power_21f(base, power, positive_exponent: bool):
    """``_sfpu_unary_power_21f_<positive_exponent>(base, power)``, BF16 rounding included."""
    abs_base = abs(base)
    log2_result = _log2_abs(base, abs_base)
    z_f32 = power * log2_result
    with v_if(z_f32 < vConstFloatPrgm1):
        z_f32.assign(vConstFloatPrgm1)
    v_endif()
    y = _exp2_21f(z_f32)
    negative_base_fixup(base, power, y)
    zero_base_fixup(abs_base, lambda: power, y, positive_exponent)
    return reinterpret(vFloat, float_to_fp16b(y, 0))


def unary_power_2026_09():
    """One iteration of ``calculate_unary_power<false, false, 32>(2.0)``."""
    power = vFloat(UNARY_POWER_EXPONENT)
    dst_reg[0] = unary_power_21f(dst_reg[0], power, UNARY_POWER_EXPONENT >= 0.0)


register_kernel(
    "unary_power_2026_09", unary_power_2026_09, init=sfpu_unary_pow_init, function="square",
    mode="accurate", dest="bf16", template="calculate_unary_power",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False, "exponent": 2.0},
    provenance="tt-metal ckernel_sfpu_unary_power.h (index id 70193818099, 2026, the header "
               "with _sfpu_unary_power_61f_updated_ and sfpu_unary_pow_init): "
               "_sfpu_unary_power_21f_<true>: log2|b| = exexp + cubic(m)/ln 2, z = p log2|b| "
               "clamped at -127, exp_21f (Moroz et al. 2022) via _float_to_int32_positive_, "
               "negative-base parity/NaN, 0**p = 0, convert<vFloat16b>(., Nearest); p = 2.0",
    description="ttnn.pow(x, 2.0) (unary power) on a BF16 tensor, Sep 2026")
