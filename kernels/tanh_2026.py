"""tanh kernels as of 2026-09-30: BF16 Dst (an alias) and FP32 Dst.

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_tanh.h``. Blackhole read in PR #57292's branch (index id 68636432946,
opened 2026-09-22 on main a406ad5c), whose non-fast paths are main's; Wormhole read in four
stored revisions (index ids 54501430427, 57951687450, 58470572926, 57970895039) that differ
only in their draft approximate-mode tables (branches of the Aug - Sep 2026 approximate-tanh
work, PRs #54317 / #56076 and rivals) and agree on the two paths modelled here.

* ``tanh_2026_09`` (BF16 Dst, ``calculate_tanh<false, false>`` + ``tanh_init``): **alias of**
  ``tanh`` (kernels/tanh.py, PR #31685). The Sep-2026 code runs two datums in lockstep
  (``_sfpu_tanh_polynomial_x2_``, PR #52732) and spells the clamp ``sfpi::min(r, 1.0f)``, but
  per datum it is the same degree-6 Horner on |x| with the same constants (Prgm0..2 the three
  top coefficients), the same SFPMAD order (``Prgm0*a + Prgm1`` first, ``r*a`` last), min with
  1, sign of x and ``convert<vFloat16b>(r, Nearest)``: the registered body is reused, so the
  instruction words are the same.
* ``tanh_fp32_2026_09`` (FP32 Dst, ``calculate_tanh<false, true>`` ->
  ``_sfpu_tanh_fp32_accurate_``, Jason Davies, 2026; it replaced PR #34927's sigmoid form):
  ``t = expm1(|2x|)/2`` by Cody-Waite (``j = round(|2x| log2 e)`` as FP32 -> UINT8, ``f = |2x| -
  j ln 2``, degree-6 expm1 polynomial, scaled by ``2**(j-1)``: ``x0 = r*2**(j-1) + (2**(j-1) -
  1/2)``), then ``x0 / (x0 + 1)`` with sign of x. The division differs per chip:

  - Blackhole: ``approx_recip`` (SFPARECIP) of ``x1 = x0 + 1``, one Newton step, quotient
    ``y0 = x0*rcp`` and one residual correction;
  - Wormhole (no SFPARECIP): a magic-constant seed ``-1/x1 ~ bits(0xfef30000 - bits(x1))``,
    the cubic correction ``rcp += rcp*(t + t*t)``, then the same residual correction on the
    negated quotient (the final ``copysgn`` fixes the sign).

  Lanes with ``round(|2x| log2 e) >= 61`` (|x| >~ 21) keep ``y = 1`` (NaN for a NaN input via
  ``(bits(|2x|) - 1) * 0 + 1``); below 2**-12 in magnitude ``y = x``. No rounding (FP32 Dst).
  ``tanh_init<false, true>``: Prgm0 = 2 * 1.442695, Prgm1 = -ln 2, Prgm2 = 1.666667163e-1.
"""
from __future__ import annotations


from kernels.common import NEG_LN2
from sfpu_sim import register_kernel
from kernels.tanh import tanh, tanh_init
from sfpu_sim.sfpi import (approx_recip, dst_reg, exexp_nodebias, float_to_uint8,
                           int32_to_float, per_chip, reinterpret, setexp, setsgn, v_endif, v_if,
                           vConstFloatPrgm0, vConstFloatPrgm1, vConstFloatPrgm2, vFloat, vInt)

TWO_LOG2E = 2.0 * 1.442695               # float arithmetic: exact doubling of the float
EXPM1_C1 = 1.666667163e-1
EXPM1_HIGH = (1.974105835e-04, 1.393318176e-3, 8.331298828e-3, 4.166680202e-2)
SATURATED_FROM = 61                      # j = round(|2x| log2 e): |x| >~ 21
TINY_BIASED_EXPONENT = 115               # 127 - 12: y = x below 2**-12
WORMHOLE_RECIP_MAGIC = 0xFEF30000


def tanh_fp32_init():
    """``tanh_init<false, true>`` (= ``tanh_init_constants<false, true>``)."""
    vConstFloatPrgm0.assign(TWO_LOG2E)
    vConstFloatPrgm1.assign(NEG_LN2)
    vConstFloatPrgm2.assign(EXPM1_C1)


def _quotient_blackhole(x, x0, x1, y):
    """``x0/x1`` refined into ``y`` (lanes with small |x|): SFPARECIP + one Newton step."""
    rcp = approx_recip(x1)
    t = -x1 * rcp + 1.0
    y.assign(x)
    rcp = rcp * t + rcp
    y0 = x0 * rcp
    x_exp = exexp_nodebias(x)
    t = -x1 * y0 + x0
    with v_if(x_exp >= TINY_BIASED_EXPONENT):
        y.assign(t * rcp + y0)
    v_endif()


def _quotient_wormhole(x, x0, x1, y):
    """``x0/x1`` refined into ``y`` from a magic-constant estimate of ``-1/x1``."""
    magic = vInt(WORMHOLE_RECIP_MAGIC)
    rcp = reinterpret(vFloat, magic - reinterpret(vInt, x1))
    t = x1 * rcp + 1.0
    t = t * t + t
    y.assign(x)
    rcp = rcp * t + rcp
    x_exp = exexp_nodebias(x)
    y0 = x0 * rcp
    t = x1 * y0 + x0
    with v_if(x_exp >= TINY_BIASED_EXPONENT):
        y.assign(t * rcp + y0)
    v_endif()


_quotient = per_chip(wormhole=_quotient_wormhole, blackhole=_quotient_blackhole)


def tanh_fp32_accurate(x):
    """``_sfpu_tanh_fp32_accurate_(x)`` (Sep 2026)."""
    j = x * vConstFloatPrgm0
    a = x + x
    m = float_to_uint8(j, 0)                      # |j| rounded, clamped to 255
    i = reinterpret(vInt, m)
    j = int32_to_float(m, 0)
    a = setsgn(a, 0)
    f = j * vConstFloatPrgm1 + a                  # |2x| - j ln 2
    r = vFloat(EXPM1_HIGH[0])
    for c in EXPM1_HIGH[1:]:
        r = r * f + c
    s = f * f
    r = r * f + vConstFloatPrgm2
    w = vFloat(0.5)
    r = r * f + w
    e = i + 126
    r = r * s + f                                 # expm1(f)
    scale = setexp(vFloat(0.0), e)                # 2**(j - 1)
    bias0 = scale - w
    a = reinterpret(vFloat, reinterpret(vInt, a) - 1)
    x0 = r * scale + bias0                        # expm1(|2x|) / 2
    y = a * 0.0 + 1.0
    x1 = x0 + 1.0
    with v_if(i < SATURATED_FROM):
        _quotient(x, x0, x1, y)
    v_endif()
    return setsgn(y, x)


def tanh_fp32_2026_09():
    """One iteration of ``calculate_tanh<false, true>`` (Sep 2026)."""
    dst_reg[0] = tanh_fp32_accurate(dst_reg[0])


register_kernel(
    "tanh_2026_09", tanh, init=tanh_init, function="tanh", mode="accurate", dest="bf16",
    template="calculate_tanh", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance="alias of tanh: tt-metal ckernel_sfpu_tanh.h calculate_tanh<false, false> as on "
               "main a406ad5c (2026-09-22, PR #57292's fallback; WH revisions 54501430427 et "
               "al.): _sfpu_tanh_polynomial_x2_ (PR #52732) runs PR #31685's degree-6 minimax two "
               "datums at a time, same constants and SFPMAD order, min(., 1), sign, "
               "convert<vFloat16b>(., Nearest)",
    description="ttnn.tanh default (accurate) on a BF16 tensor, Sep 2026 (math of Nov 2025)")

register_kernel(
    "tanh_fp32_2026_09", tanh_fp32_2026_09, init=tanh_fp32_init, function="tanh",
    mode="accurate", dest="fp32",
    template="calculate_tanh",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="tanh_2026_09",
    provenance="tt-metal ckernel_sfpu_tanh.h _sfpu_tanh_fp32_accurate_ (2026, expm1 form; BH "
               "read in PR #57292's branch on main a406ad5c, WH in four draft-branch revisions "
               "that agree on it): t = expm1(|2x|)/2 by Cody-Waite + degree-6 polynomial, "
               "sign(x) t/(t + 1) with BH SFPARECIP + Newton / WH magic seed 0xfef30000 + cubic, "
               "saturation at round(|2x| log2 e) >= 61, y = x below 2^-12; no rounding",
    description="ttnn.tanh (accurate) with an FP32 Dst, Sep 2026")
