"""sinh / cosh kernels as of 2026-09-30 (BF16 Dst).

``sinh_2026_09``, ``cosh_2026_09``: tenstorrent/tt-metal ``tt_metal/hw/ckernels/
{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/ckernel_sfpu_trigonometry.h``,
``calculate_sinh`` / ``calculate_cosh<false, is_fp32_dest_acc_en=false>`` with ``sinh_init`` /
``cosh_init``, as rewritten by PR #45552 (Jason Davies, "Performance/accuracy: sinh and cosh",
opened 2026-05-29, merged early Jun 2026; closes bounty issue #45049). Read in the stored
revisions WH @01af8126a7e5645a7b4510c820f1b1b65738b2ef and BH
@01c8afed5a09a5fdd7c3ddbe0167f81b9607feb3; the same code is the untouched fallback in the BH
branch of PR #57292 (opened 2026-09-22 on main a406ad5c), so it is what main ran in late
September 2026. The two chips differ only in ``_sfpu_reciprocal_gt0_``.

Algorithm (BF16 Dst):

* ``_sfpu_quarter_exp_abs_`` (cosh) / ``_sfpu_quarter_expm1_abs_`` (sinh): ``j = x*log2(e)``;
  ``m = convert<vUInt8>(j, Nearest)`` (SFP_STOCH_RND FP32 -> UINT8: |j| rounded, clamped to 255);
  ``j = float(m)`` (SFPCAST); ``f = j*(-ln 2) + |x|``; a cubic (cosh) / quartic-to-0.5 (sinh)
  polynomial in ``f``; the result scaled by ``0.25 * 2**m`` built in the exponent field, with
  ``|x| * Inf`` where ``m`` is too large (overflow and NaN propagation).
* cosh: ``q = exp(|x|)/4``, ``y = 2q + (1/q)/8`` (the reciprocal term dropped once
  ``exponent(q) >= 24``).
* sinh: ``q = expm1(|x|)/4``; ``y = x`` where ``q < 2**-27``; else ``y = 2q``, plus ``2q/(4q+1)``
  while ``exponent(q) < 23``; sign of ``x``.
* ``convert<vFloat16b>(y, Nearest)`` (SFP_STOCH_RND nearest, ties away from zero).

``_sfpu_reciprocal_gt0_`` (x > 0): Blackhole ``approx_recip`` (SFPARECIP) and one Newton step;
Wormhole a magic-constant seed ``0xfef392e0 - bits(x)`` (= -1/x roughly) and the cubic
correction ``y = -y * (1 + e + e**2)``.

PR #45552 publishes (fractional ULP against an unrounded golden): sinh bf16 0.5, cosh bf16 0.5,
on both chips.
"""
from __future__ import annotations

import math

from kernels.common import LOG2E, NEG_LN2
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    approx_recip,
    dst_reg,
    exexp,
    float_to_fp16b,
    float_to_uint8,
    int32_to_float,
    per_chip,
    reinterpret,
    setsgn,
    v_endif,
    v_if,
    vConstFloatPrgm0,
    vConstFloatPrgm1,
    vConstFloatPrgm2,
    vFloat,
    vInt,
)

SINH_C1 = 1.666259766e-01           # sinh_init, BF16 Dst: Prgm2
COSH_C2 = 0.500122011               # cosh_init, BF16 Dst: Prgm2
WORMHOLE_RECIP_SEED = 0xFEF392E0    # _sfpu_reciprocal_gt0_ (Wormhole): -1/x seed


def sinh_init():
    """``sinh_init<false, false>``: log2(e), -ln(2) and the sinh polynomial's c1."""
    vConstFloatPrgm0.assign(LOG2E)
    vConstFloatPrgm1.assign(NEG_LN2)
    vConstFloatPrgm2.assign(SINH_C1)


def cosh_init():
    """``cosh_init<false, false>``: log2(e), -ln(2) and the exp polynomial's c2."""
    vConstFloatPrgm0.assign(LOG2E)
    vConstFloatPrgm1.assign(NEG_LN2)
    vConstFloatPrgm2.assign(COSH_C2)


def _reciprocal_gt0_blackhole(x):
    """Blackhole: the SFPARECIP seed and one refinement."""
    y = approx_recip(x)
    e = -x * y + 1.0
    return y * e + y


def _reciprocal_gt0_wormhole(x):
    """Wormhole: a magic-constant seed of -1/x and one cubic refinement."""
    y = reinterpret(vFloat, WORMHOLE_RECIP_SEED - reinterpret(vInt, x))   # ~ -1/x
    e = x * y + 1.0
    p = e * e + e
    y = -y
    return y * p + y


# ``_sfpu_reciprocal_gt0_<false>(x)`` for x > 0, per chip (BF16 Dst: one refinement).
reciprocal_gt0 = per_chip(wormhole=_reciprocal_gt0_wormhole,
                          blackhole=_reciprocal_gt0_blackhole)


def _rounded_magnitude(x):
    """``j = x*log2(e)``, ``m = |j|`` rounded (FP32 -> UINT8, clamped), and ``float(m)``."""
    j = x * vConstFloatPrgm0
    m = float_to_uint8(j, 0)
    return int32_to_float(m, 0), reinterpret(vInt, m)


def quarter_exp_abs(x):
    """``_sfpu_quarter_exp_abs_<false>(x)``: exp(|x|)/4 without overflow."""
    j, i = _rounded_magnitude(x)
    a = setsgn(x, 0)
    f = j * vConstFloatPrgm1 + a                 # f = |x| - j*ln(2)
    r = vFloat(0.038877178)
    r = r * f + 0.168174848
    i = i + 125
    r = r * f + vConstFloatPrgm2
    r = r * f + 0.999963462
    y = a * math.inf                             # j*log2(e) >= 130 (and NaN)
    r = r * f + 1.0
    with v_if(i < 255):
        y.assign(r * reinterpret(vFloat, i << 23))    # r * 0.25 * 2**m
    v_endif()
    return y


def quarter_expm1_abs(x):
    """``_sfpu_quarter_expm1_abs_<false>(x)``: expm1(|x|)/4 without overflow."""
    j, i = _rounded_magnitude(x)
    a = setsgn(x, 0)
    f = j * vConstFloatPrgm1 + a
    r = vFloat(8.361816406e-03)
    r = r * f + 4.177856445e-02
    s = f * f
    r = r * f + vConstFloatPrgm2
    r = r * f + 0.5
    w = vFloat(0.25)
    r = r * s + f
    scale = reinterpret(vFloat, (i << 23) + reinterpret(vInt, w))       # 0.25 * 2**m
    bias = scale - w
    y = a * math.inf
    with v_if(i < 130):
        y.assign(r * scale + bias)
    v_endif()
    return y


def cosh_2026_09():
    """One iteration of ``calculate_cosh<false, false>``."""
    x = dst_reg[0]
    a = setsgn(x, 0)
    q = quarter_exp_abs(a)
    r = reciprocal_gt0(q)
    y = q + q
    r = r * 0.125
    q_exp = exexp(q)
    with v_if(q_exp < 24):
        y.assign(y + r)
    v_endif()
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(y, 0))


def sinh_2026_09():
    """One iteration of ``calculate_sinh<false, false>`` (``_sfpu_sinh_<false>``)."""
    x = dst_reg[0]
    q = quarter_expm1_abs(x)
    e = 4.0 * q + 1.0
    r = reciprocal_gt0(e)
    y = vFloat(x)
    q_exp = exexp(q)
    with v_if(q_exp >= -27):                     # t = 4q >= 2**-25: t + 1 is not 1
        y.assign(q + q)
        with v_if(q_exp < 23):                   # t < 2**25: 0.5t + 0.5t/(t+1)
            y.assign(y * r + y)
        v_endif()
    v_endif()
    y = setsgn(y, x)
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(y, 0))


PROVENANCE = ("tt-metal ckernel_sfpu_trigonometry.h calculate_{fn}<false, false> + {fn}_init, "
              "PR #45552 (merged Jun 2026; read at WH @01af8126, BH @01c8afed; unchanged on main "
              "a406ad5c, 2026-09-22, per PR #57292's fallback): {what}; "
              "_sfpu_reciprocal_gt0_ per chip (BH SFPARECIP + 1 Newton, WH magic seed "
              "0xfef392e0 + cubic); convert<vFloat16b>(y, Nearest)")

register_kernel(
    "sinh_2026_09", sinh_2026_09, init=sinh_init, function="sinh", mode="accurate",
    dest="bf16",
    template="calculate_sinh", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=PROVENANCE.format(fn="sinh", what="expm1(|x|)/4 by Cody-Waite + quartic, "
                                 "sinh = 0.5t + 0.5t/(t+1)"),
    description="ttnn.sinh on a BF16 tensor, Jun - Sep 2026")

register_kernel(
    "cosh_2026_09", cosh_2026_09, init=cosh_init, function="cosh", mode="accurate",
    dest="bf16",
    template="calculate_cosh", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=PROVENANCE.format(fn="cosh", what="exp(|x|)/4 by Cody-Waite + cubic, "
                                 "cosh = 2q + (1/q)/8"),
    description="ttnn.cosh on a BF16 tensor, Jun - Sep 2026")
