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

FP32 Dst (``sinh_fp32_2026_09``, ``cosh_fp32_2026_09``: ``calculate_sinh`` /
``calculate_cosh<false, true>`` with ``sinh_init`` / ``cosh_init<false, true>``; same stored
revisions, the FP32 arms are identical in all three readings): ``f`` by a two-part Cody-Waite
(``j*Prgm1 + |x|`` with Prgm1 = -0.693145752 = -ln2_hi, then ``j*(-1.42860677e-6) + f``); cosh:
Juffa's exp polynomial 1.37805939e-3, 8.37312452e-3, 4.16695364e-2, 1.66664720e-1, Prgm2 =
4.99999851e-1, 1, 1; sinh: 1.974105835e-4, 1.393107930e-3, 8.333439939e-3, 4.166680202e-2,
Prgm2 = 1.666667163e-1, 4.999999702e-1; ``_sfpu_reciprocal_gt0_<true>`` refines twice (Blackhole:
a second Newton step; Wormhole: one Newton step before the cubic correction); no rounding.
Regions and reconstruction as for BF16. The table's Sinh / Cosh FP32-Dst cells (Wormhole,
2026-09-30) are predicted exactly (tests/test_kernels_fp32dst_trig.py).
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
NEG_LN2_HI = -0.693145752           # sinh_init / cosh_init, FP32 Dst: Prgm1
NEG_LN2_LO = -1.42860677e-6         # the second Cody-Waite part, an immediate
SINH_FP32_C1 = 1.666667163e-1       # sinh_init, FP32 Dst: Prgm2
COSH_FP32_C2 = 4.99999851e-1        # cosh_init, FP32 Dst: Prgm2
EXP_FP32_HIGH = (1.37805939e-3, 8.37312452e-3, 4.16695364e-2, 1.66664720e-1)
EXPM1_FP32_HIGH = (1.974105835e-04, 1.393107930e-3, 8.333439939e-3, 4.166680202e-2)
EXPM1_FP32_C0 = 4.999999702e-1
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


def sinh_fp32_init():
    """``sinh_init<false, true>``: log2(e), -ln(2)_hi and the FP32 polynomial's c1."""
    vConstFloatPrgm0.assign(LOG2E)
    vConstFloatPrgm1.assign(NEG_LN2_HI)
    vConstFloatPrgm2.assign(SINH_FP32_C1)


def cosh_fp32_init():
    """``cosh_init<false, true>``: log2(e), -ln(2)_hi and the FP32 polynomial's c2."""
    vConstFloatPrgm0.assign(LOG2E)
    vConstFloatPrgm1.assign(NEG_LN2_HI)
    vConstFloatPrgm2.assign(COSH_FP32_C2)


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


def _reciprocal_gt0_fp32_blackhole(x):
    """Blackhole, FP32 Dst: the SFPARECIP seed and two Newton steps."""
    y = approx_recip(x)
    e = -x * y + 1.0
    y = y * e + y
    e = -x * y + 1.0
    return y * e + y


def _reciprocal_gt0_fp32_wormhole(x):
    """Wormhole, FP32 Dst: the -1/x seed, one Newton step, then the cubic refinement."""
    y = reinterpret(vFloat, WORMHOLE_RECIP_SEED - reinterpret(vInt, x))   # ~ -1/x
    e = x * y + 1.0
    y = y * e + y
    e = x * y + 1.0
    p = e * e + e
    y = -y
    return y * p + y


# ``_sfpu_reciprocal_gt0_<is_fp32_dest_acc_en>(x)`` for x > 0, per chip (BF16 Dst: one
# refinement; FP32 Dst: two).
reciprocal_gt0 = per_chip(wormhole=_reciprocal_gt0_wormhole,
                          blackhole=_reciprocal_gt0_blackhole)
reciprocal_gt0_fp32 = per_chip(wormhole=_reciprocal_gt0_fp32_wormhole,
                               blackhole=_reciprocal_gt0_fp32_blackhole)


def _rounded_magnitude(x):
    """``j = x*log2(e)``, ``m = |j|`` rounded (FP32 -> UINT8, clamped), and ``float(m)``."""
    j = x * vConstFloatPrgm0
    m = float_to_uint8(j, 0)
    return int32_to_float(m, 0), reinterpret(vInt, m)


def quarter_exp_abs(x, fp32=False):
    """``_sfpu_quarter_exp_abs_<fp32>(x)``: exp(|x|)/4 without overflow."""
    j, i = _rounded_magnitude(x)
    a = setsgn(x, 0)
    f = j * vConstFloatPrgm1 + a                 # f = |x| - j*ln(2) (FP32: ln(2)_hi)
    if fp32:
        f = j * NEG_LN2_LO + f
        r = vFloat(EXP_FP32_HIGH[0])
        for c in EXP_FP32_HIGH[1:]:
            r = r * f + c
        r = r * f + vConstFloatPrgm2
        i = i + 125
        r = r * f + 1.0
    else:
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


def quarter_expm1_abs(x, fp32=False):
    """``_sfpu_quarter_expm1_abs_<fp32>(x)``: expm1(|x|)/4 without overflow."""
    j, i = _rounded_magnitude(x)
    a = setsgn(x, 0)
    f = j * vConstFloatPrgm1 + a
    if fp32:
        f = j * NEG_LN2_LO + f
        r = vFloat(EXPM1_FP32_HIGH[0])
        for c in EXPM1_FP32_HIGH[1:]:
            r = r * f + c
        s = f * f
        r = r * f + vConstFloatPrgm2
        r = r * f + EXPM1_FP32_C0
    else:
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


def _cosh(x, fp32):
    """cosh(x) = 2q + (1/q)/8 with q = exp(|x|)/4 (unrounded)."""
    a = setsgn(x, 0)
    q = quarter_exp_abs(a, fp32)
    r = reciprocal_gt0_fp32(q) if fp32 else reciprocal_gt0(q)
    y = q + q
    r = r * 0.125
    q_exp = exexp(q)
    with v_if(q_exp < 24):
        y.assign(y + r)
    v_endif()
    return y


def cosh_2026_09():
    """One iteration of ``calculate_cosh<false, false>``."""
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(_cosh(dst_reg[0], False), 0))


def cosh_fp32_2026_09():
    """One iteration of ``calculate_cosh<false, true>`` (no rounding)."""
    dst_reg[0] = _cosh(dst_reg[0], True)


def _sinh(x, fp32):
    """``_sfpu_sinh_<fp32>(x)``."""
    q = quarter_expm1_abs(x, fp32)
    e = 4.0 * q + 1.0
    r = reciprocal_gt0_fp32(e) if fp32 else reciprocal_gt0(e)
    y = vFloat(x)
    q_exp = exexp(q)
    with v_if(q_exp >= -27):                     # t = 4q >= 2**-25: t + 1 is not 1
        y.assign(q + q)
        with v_if(q_exp < 23):                   # t < 2**25: 0.5t + 0.5t/(t+1)
            y.assign(y * r + y)
        v_endif()
    v_endif()
    return setsgn(y, x)


def sinh_2026_09():
    """One iteration of ``calculate_sinh<false, false>`` (``_sfpu_sinh_<false>``)."""
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(_sinh(dst_reg[0], False), 0))


def sinh_fp32_2026_09():
    """One iteration of ``calculate_sinh<false, true>`` (``_sfpu_sinh_<true>``, no rounding)."""
    dst_reg[0] = _sinh(dst_reg[0], True)


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

FP32_PROVENANCE = ("tt-metal ckernel_sfpu_trigonometry.h calculate_{fn}<false, true> + "
                   "{fn}_init<false, true>, PR #45552's FP32 arm (read at WH @01af8126, BH "
                   "@01c8afed and in PR #57292's branch on main a406ad5c, 2026-09-22, all three "
                   "alike): {what}; _sfpu_reciprocal_gt0_<true> per chip (BH SFPARECIP + 2 "
                   "Newton, WH magic seed 0xfef392e0 + 1 Newton + cubic); no rounding")

register_kernel(
    "sinh_fp32_2026_09", sinh_fp32_2026_09, init=sinh_fp32_init, function="sinh",
    mode="accurate", dest="fp32",
    template="calculate_sinh", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="sinh_2026_09",
    provenance=FP32_PROVENANCE.format(fn="sinh", what="expm1(|x|)/4 by a two-part Cody-Waite "
                                      "+ degree-6 polynomial, sinh = 0.5t + 0.5t/(t+1)"),
    description="ttnn.sinh with an FP32 Dst, Jun - Sep 2026")

register_kernel(
    "cosh_fp32_2026_09", cosh_fp32_2026_09, init=cosh_fp32_init, function="cosh",
    mode="accurate", dest="fp32",
    template="calculate_cosh", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="cosh_2026_09",
    provenance=FP32_PROVENANCE.format(fn="cosh", what="exp(|x|)/4 by a two-part Cody-Waite + "
                                      "Juffa's degree-7 polynomial, cosh = 2q + (1/q)/8"),
    description="ttnn.cosh with an FP32 Dst, Jun - Sep 2026")
