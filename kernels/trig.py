"""sin / cos kernels (tt-metal ``ckernel_sfpu_trigonometry.h``, Jan and Feb 2026).

``sin``, ``cos``: what ttnn.sin / ttnn.cos run on a BF16 tensor in Jan 2026 (non-approx):
tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/
ckernel_sfpu_trigonometry.h``, the "sinpi" form (index id 30401480524, the revision before
PR #37714): ``v = x * 0.31830987f`` (cos: ``+ 0.5f``, one fused multiply-add); ``n =
float_to_int16(v, 0)`` (SFPSTOCHRND to INT16, nearest; saturates, so the reduction breaks
past |x| ~ 1e5); ``v -= int32_to_float(n, 0)``; ``v = v * P(v*v)`` (``sfpu_sinpi<false>``,
degree-4 Horner in v*v); ``v = -v`` where n is odd. No rounding (the SFPSTORE to a BF16 Dst
truncates). WH and BH sources are the same.

``sin_2026_02``, ``cos_2026_02``: PR #37714 (Jason Davies, opened 2026-02-12, merged Feb 2026)
as in index id 10509664981, BF16-Dst branch (``is_fp32_dest_acc_en = false``), with
``sine_init`` / ``cosine_init``: ``j = round(x/pi)`` by an SFPMAD with the 1.5*2**23 bias
(cos: ``j = 2*round(x/pi + 0.5) - 1``, an odd multiple of pi/2), the parity bit of ``j``
shifted to the sign position, a four-stage Cody-Waite reduction ``a = x + j*P0 + j*P1 +
j*Prgm0 + j*Prgm1`` (the four sum to -pi, or -pi/2 for cos), ``a ^= sign``, then
``a + a*s*(C0 + s*(C1 + s*C2))`` with ``s = a*a``, and ``float_to_fp16b(r, 0)`` (nearest,
ties away). WH and BH use the same source for sin/cos.
"""
from __future__ import annotations

from kernels.common import polyval
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    dst_reg,
    float_to_fp16b,
    float_to_int16,
    int32_to_float,
    reinterpret,
    v_endif,
    v_if,
    vConstFloatPrgm0,
    vConstFloatPrgm1,
    vConstFloatPrgm2,
    vConstNeg1,
    vFloat,
    vInt,
)

FRAC_1_PI = 0.31830987          # static const float FRAC_1_PI (both versions)

# --- Jan 2026: sinpi form -------------------------------------------------------------------

# sfpu_sinpi<false>: sin(pi*v)/v as a polynomial in v*v, ascending.
SINPI = (float.fromhex("0x3.243f6cp+0"), -float.fromhex("0x5.2aef6p+0"),
         float.fromhex("0x2.8cd64p+0"), -float.fromhex("0x9.93f86p-4"),
         float.fromhex("0x1.406628p-4"))


def sinpi(x):
    """sfpu_sinpi<false>: x * P(x*x) ~ sin(pi*x) on [-0.5, 0.5]."""
    xx = x * x
    return x * polyval(xx, *SINPI)


def _sinpi_reduced(v):
    """v - round(v) via float_to_int16, sinpi, negated where the integer is odd."""
    whole_v = reinterpret(vInt, float_to_int16(v, 0))
    v = v - int32_to_float(whole_v, 0)
    v = sinpi(v)
    with v_if(whole_v & 1):
        v.assign(-v)
    v_endif()
    return v


def sin():
    """One iteration of calculate_sine<APPROXIMATION_MODE=false> (Jan 2026)."""
    v = dst_reg[0] * FRAC_1_PI
    dst_reg[0] = _sinpi_reduced(v)


def cos():
    """One iteration of calculate_cosine<APPROXIMATION_MODE=false> (Jan 2026)."""
    v = dst_reg[0] * FRAC_1_PI + 0.5
    dst_reg[0] = _sinpi_reduced(v)


# --- Feb 2026 (PR #37714): Cody-Waite reduction, BF16 rounding -----------------------------

ROUNDING_BIAS = 12582912.0      # 1.5 * 2**23 (sfpxloadi FLOATB 0x4b40)
# sin(a) = a + a^3 (C0 + a^2 (C1 + a^2 C2)) for the BF16 Dst.
C2 = -float.fromhex("0x1.8b10a4p-13")
C1 = float.fromhex("0x1.10c2a2p-7")
C0 = -float.fromhex("0x1.5554a4p-3")
# -pi = P0 + P1 + Prgm0 + Prgm1 (sine_init); cos halves all four (cosine_init).
PI_P0, PI_P1 = -float.fromhex("0x1.92p+1"), -float.fromhex("0x1.fbp-11")
PI_P2, PI_P3 = -float.fromhex("0x1.51p-21"), -float.fromhex("0x1.0b4612p-33")


def sine_init():
    """sine_init: the two low Cody-Waite parts of -pi and 1/pi."""
    vConstFloatPrgm0.assign(PI_P2)
    vConstFloatPrgm1.assign(PI_P3)
    vConstFloatPrgm2.assign(FRAC_1_PI)


def cosine_init():
    """cosine_init: the two low Cody-Waite parts of -pi/2 and 1/pi."""
    vConstFloatPrgm0.assign(PI_P2 / 2)
    vConstFloatPrgm1.assign(PI_P3 / 2)
    vConstFloatPrgm2.assign(FRAC_1_PI)


def _reduce_and_evaluate(v, j, q, p0, p1):
    """Cody-Waite a = v + j*(P0 + P1 + Prgm0 + Prgm1), sign from q's low bit, the degree-7 odd
    polynomial, rounded to BF16 (nearest, ties away)."""
    a = v + j * p0
    a = a + j * p1
    a = a + j * vConstFloatPrgm0
    a = a + j * vConstFloatPrgm1
    q = q << 31
    s = a * a
    a = reinterpret(vFloat, reinterpret(vInt, a) ^ q)
    c2, c1, c0 = vFloat(C2), vFloat(C1), vFloat(C0)   # hoisted out of the loop in the source
    r = c2 * s + c1
    c = a * s
    r = r * s + c0
    r = r * c + a
    return reinterpret(vFloat, float_to_fp16b(r, 0))


def sin_2026_02():
    """One iteration of calculate_sine<false, is_fp32_dest_acc_en=false> (PR #37714)."""
    v = dst_reg[0]
    rounding_bias = vFloat(ROUNDING_BIAS)
    j = v * vConstFloatPrgm2 + rounding_bias          # j = round(v/pi) in the mantissa
    q = reinterpret(vInt, j)
    j = j - rounding_bias
    dst_reg[0] = _reduce_and_evaluate(v, j, q, PI_P0, PI_P1)


def cos_2026_02():
    """One iteration of calculate_cosine<false, is_fp32_dest_acc_en=false> (PR #37714)."""
    v = dst_reg[0]
    half = vFloat(0.5)
    j = v * vConstFloatPrgm2 + half
    j = j + ROUNDING_BIAS
    q = reinterpret(vInt, j)
    j = j + (-ROUNDING_BIAS)
    two = vFloat(2.0)
    j = j * two + vConstNeg1                          # the odd multiple of pi/2
    dst_reg[0] = _reduce_and_evaluate(v, j, q, PI_P0 / 2, PI_P1 / 2)


# --- registration ---------------------------------------------------------------------------

JAN = ("tt-metal ckernel_sfpu_trigonometry.h {fn}, sinpi form (index id 30401480524, before "
       "PR #37714): float_to_int16 range reduction of x/pi{shift}, degree-4 sinpi polynomial, "
       "sign by parity; no rounding (SFPSTORE truncates)")
FEB = ("tt-metal ckernel_sfpu_trigonometry.h {fn}<false, false> + {init} (PR #37714, Feb 2026; "
       "index id 10509664981): four-stage Cody-Waite reduction by {period}, odd degree-7 "
       "polynomial, float_to_fp16b(r, 0)")

register_kernel(
    "sin", sin, function="sin", mode="accurate", dest="bf16",
    provenance=JAN.format(fn="calculate_sine", shift=""),
    description="ttnn.sin on a BF16 tensor, Jan 2026")

register_kernel(
    "cos", cos, function="cos", mode="accurate", dest="bf16",
    provenance=JAN.format(fn="calculate_cosine", shift=" + 0.5"),
    description="ttnn.cos on a BF16 tensor, Jan 2026")

register_kernel(
    "sin_2026_02", sin_2026_02, init=sine_init, function="sin", mode="accurate", dest="bf16",
    provenance=FEB.format(fn="calculate_sine", init="sine_init", period="pi"),
    description="ttnn.sin on a BF16 tensor, Feb 2026 on")

register_kernel(
    "cos_2026_02", cos_2026_02, init=cosine_init, function="cos", mode="accurate", dest="bf16",
    provenance=FEB.format(fn="calculate_cosine", init="cosine_init", period="pi/2"),
    description="ttnn.cos on a BF16 tensor, Feb 2026 on")
