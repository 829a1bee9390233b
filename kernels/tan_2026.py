"""tan kernels as of 2026-09-30: BF16 Dst and FP32 Dst.

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_trigonometry.h``, ``calculate_tangent<false, is_fp32_dest_acc_en, 32>``
with ``tangent_init<false>`` (Jason Davies, 2026; the harness calls the one-parameter init,
sfpu_operations.h @008a3c3b). Wormhole read in index id 54489898827 (the trig file with
Wormhole's magic-seed ``_sfpu_reciprocal_gt0_`` and the log1p inverse hyperbolics; the
``calculate_tangent`` / ``tangent_init`` text is also that of WH @01af8126); Blackhole in PR #57292's branch (index id 68755511596, on main
a406ad5c, 2026-09-22), whose non-fast path is main's (its draft fast bf16 kernel is gated on
``ITERATIONS == 8``; the harness passes 32).

Both chips: ``tangent_init``: Prgm0 = -0x1.51p-22, Prgm1 = -0x1.0b4612p-34, Prgm2 = 2/pi.
``j = v*(2/pi) + 1.5*2**23`` (one SFPMAD), ``i = bits(j) << 31`` (quadrant parity to the sign
bit), ``j -= 1.5*2**23``; four-stage Cody-Waite ``a = v + j*P0, + j*P1, + j*Prgm0, + j*Prgm1``
with P0 = -0x1.92p+0, P1 = -0x1.fbp-12. Then ``sfpu_tan<fp32>(a, i)``: ``s = a*a``, ``t =
P(s)*s`` (FP32: 7 coefficients 0x1.fa9f82p-9 .. 0x1.555556p-2; BF16: 3, 0x1.4f1f4ep-4,
0x1.02b98p-3, 0x1.55953p-2), ``r = t*a + a``; where ``i < 0`` (odd quadrant) ``r = -1/r``:

* Wormhole: ``n = copyman(-1, r)`` (-1.m of r), quadratic seed ``t = k2 + (k1 + k0*n)*n``
  (k0 = 0.32323250, k1 = 1.45454597, k2 = 2.12121248), ``scale = setman(~bits(r), 0) * 0.5``
  (-2**-e(r) up to sign handling), one Newton step ``t = t*(1 + n*t) + t``. BF16: ``r = t*scale``.
  FP32: ``t *= scale`` and the compensated residual ``s = t_poly*a + (a - r)`` folded in:
  ``r = r*t + 1; r = s*t + r; r = r*t + t``.
* Blackhole: ``t = approx_recip(r)`` (SFPARECIP), ``e = -r*t + 1``, ``-t*e - t``; BF16 ``r`` is
  that, FP32 ``t`` is that and the same three reconstruction steps follow.

BF16 Dst: ``convert<vFloat16b>(a, Nearest)`` last; FP32 Dst: no rounding.
"""
from __future__ import annotations

from kernels.trig import ROUNDING_BIAS
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (approx_recip, dst_reg, float_to_fp16b, per_chip, reinterpret,
                           setman, v_endif, v_if, vConstFloatPrgm0, vConstFloatPrgm1,
                           vConstFloatPrgm2, vFloat, vInt)

HEX = float.fromhex
FRAC_2_PI = 0.6366197466850281        # static const float FRAC_2_PI
HALF_PI_P0, HALF_PI_P1 = -HEX("0x1.92p+0"), -HEX("0x1.fbp-12")
HALF_PI_P2, HALF_PI_P3 = -HEX("0x1.51p-22"), -HEX("0x1.0b4612p-34")
# tan(a) = a + a*s*P(s), s = a*a, on [-pi/4, pi/4]; highest degree first
TAN_FP32 = tuple(HEX(h) for h in ("0x1.fa9f82p-9", "0x1.2b404p-10", "0x1.4787dp-7",
                                   "0x1.620abcp-6", "0x1.ba5716p-5", "0x1.111072p-3",
                                   "0x1.555556p-2"))
TAN_BF16 = tuple(HEX(h) for h in ("0x1.4f1f4ep-4", "0x1.02b98p-3", "0x1.55953p-2"))
# Wormhole: quadratic initial estimate of 1/m for the mantissa m in [1, 2) (as k2 + k1 n + k0 n^2
# with n = -m)
RECIP_K0 = 0.3232325017452239990234375
RECIP_K1 = 1.4545459747314453125
RECIP_K2 = 2.121212482452392578125


def tangent_init():
    """``tangent_init<false>``: the two low Cody-Waite parts of -pi/2 and 2/pi."""
    vConstFloatPrgm0.assign(HALF_PI_P2)
    vConstFloatPrgm1.assign(HALF_PI_P3)
    vConstFloatPrgm2.assign(FRAC_2_PI)


def _negative_reciprocal_wormhole(r):
    """``-1/r`` for the odd quadrants: the mantissa's quadratic seed, one Newton step; returns
    ``(t, scale)`` with ``-1/r ~ t*scale``."""
    negative_x = setman(vFloat(-1.0), reinterpret(vInt, r))        # copyman(-1.0f, r)
    t = RECIP_K1 + RECIP_K0 * negative_x
    scale_bits = ~reinterpret(vInt, r)
    t = RECIP_K2 + t * negative_x
    scale = setman(reinterpret(vFloat, scale_bits), 0)
    e = 1.0 + negative_x * t
    scale = scale * 0.5
    t = t * e + t
    return t, scale


def _tan_bf16_wormhole(a, i):
    r = _tan_odd(a, TAN_BF16)[1]
    with v_if(i < 0):
        t, scale = _negative_reciprocal_wormhole(r)
        r.assign(t * scale)
    v_endif()
    return r


def _tan_bf16_blackhole(a, i):
    r = _tan_odd(a, TAN_BF16)[1]
    with v_if(i < 0):
        t = approx_recip(r)
        e = -r * t + 1.0
        r.assign(-t * e - t)
    v_endif()
    return r


def _tan_fp32(a, i, reciprocal):
    """``sfpu_tan<true>``: the compensated reconstruction around ``reciprocal(r, residual)``."""
    t, r = _tan_odd(a, TAN_FP32)
    with v_if(i < 0):
        s = vFloat(-1.0) * r + a                  # a - r: the residual's first part
        t, s = reciprocal(r, t, a, s)
        q = r * t + 1.0
        q = s * t + q
        r.assign(q * t + t)
    v_endif()
    return r


def _fp32_reciprocal_wormhole(r, t_poly, a, s):
    # the source interleaves copyman/setman with the residual; only the values matter here
    negative_x = setman(vFloat(-1.0), reinterpret(vInt, r))
    s = t_poly * a + s
    t = RECIP_K1 + RECIP_K0 * negative_x
    scale_bits = ~reinterpret(vInt, r)
    t = RECIP_K2 + t * negative_x
    scale = setman(reinterpret(vFloat, scale_bits), 0)
    scale = scale * 0.5
    e = 1.0 + negative_x * t
    t = t * e + t
    t = t * scale
    return t, s


def _fp32_reciprocal_blackhole(r, t_poly, a, s):
    s = t_poly * a + s
    t = approx_recip(r)
    e = -r * t + 1.0
    t = -t * e - t
    return t, s


def _tan_fp32_wormhole(a, i):
    return _tan_fp32(a, i, _fp32_reciprocal_wormhole)


def _tan_fp32_blackhole(a, i):
    return _tan_fp32(a, i, _fp32_reciprocal_blackhole)


def _tan_odd(a, coefficients):
    """``s = a*a``, ``t = P(s)*s`` by Horner, ``r = t*a + a``: returns ``(t, r)``."""
    s = a * a
    t = vFloat(coefficients[0])
    for c in coefficients[1:]:
        t = t * s + c
    t = t * s
    return t, t * a + a


tan_bf16 = per_chip(wormhole=_tan_bf16_wormhole, blackhole=_tan_bf16_blackhole)
tan_fp32 = per_chip(wormhole=_tan_fp32_wormhole, blackhole=_tan_fp32_blackhole)


def _reduced(v):
    """``(a, i)``: v reduced by the nearest multiple j of pi/2, and j's parity in the sign bit."""
    inv_pio2 = vConstFloatPrgm2
    rounding_bias = vFloat(ROUNDING_BIAS)
    j = v * inv_pio2 + rounding_bias                  # one SFPMAD (__builtin_rvtt_sfpmad)
    i = reinterpret(vInt, j)
    j = j + (-rounding_bias)
    i = i << 31
    a = v + j * HALF_PI_P0
    a = a + j * HALF_PI_P1
    a = a + j * vConstFloatPrgm0
    a = a + j * vConstFloatPrgm1
    return a, i


def tan_2026_09():
    """One iteration of ``calculate_tangent<false, false>``."""
    a, i = _reduced(dst_reg[0])
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(tan_bf16(a, i), 0))


def tan_fp32_2026_09():
    """One iteration of ``calculate_tangent<false, true>``."""
    a, i = _reduced(dst_reg[0])
    dst_reg[0] = tan_fp32(a, i)


PROVENANCE = ("tt-metal ckernel_sfpu_trigonometry.h calculate_tangent<false, {fp32}> + "
              "tangent_init<false> (2026; WH index id 54489898827, BH PR #57292 branch id "
              "68755511596 on main a406ad5c, 2026-09-22): j = round(2x/pi) by 1.5*2^23, "
              "four-stage Cody-Waite by pi/2, tan = a + a s P(s) ({terms}), -1/r in odd quadrants "
              "(WH quadratic seed + Newton, BH SFPARECIP + Newton){extra}")
register_kernel(
    "tan_2026_09", tan_2026_09, init=tangent_init,
    function="tan", mode="accurate", dest="bf16", template="calculate_tangent",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=PROVENANCE.format(fp32="false", terms="3 terms",
                                 extra="; convert<vFloat16b>(., Nearest)"),
    description="ttnn.tan on a BF16 tensor, Sep 2026")
register_kernel(
    "tan_fp32_2026_09", tan_fp32_2026_09, init=tangent_init, function="tan", mode="accurate",
    dest="fp32", template="calculate_tangent",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="tan_2026_09",
    provenance=PROVENANCE.format(fp32="true", terms="7 terms",
                                 extra=" with the compensated residual a - r + t a; no "
                                       "rounding"),
    description="ttnn.tan with an FP32 Dst, Sep 2026")
