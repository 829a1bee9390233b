"""Trigonometric kernels as of 2026-09-30, BF16 and FP32 Dst: sin, cos, atan, asin, acos.

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_trigonometry.h``, read in the stored revisions WH
@01af8126a7e5645a7b4510c820f1b1b65738b2ef and BH @01c8afed5a09a5fdd7c3ddbe0167f81b9607feb3, and
in the BH file of PR #57292's branch (opened 2026-09-22 on main a406ad5c; index id
68755511596), whose non-"fast" code is main's as of 2026-09-22. PR #57292's own llk-bench
kernels (sin/tan/... "fast bf16" paths) were an open draft and are not modelled.

* ``sin_2026_09``, ``cos_2026_09``: aliases of ``sin_2026_02`` / ``cos_2026_02`` (kernels/
  trig.py). ``calculate_sine`` / ``calculate_cosine`` and ``sine_init`` / ``cosine_init`` carry
  PR #37714's math unchanged in all three readings (only ``#pragma GCC unroll`` and
  ``sfpi::as``/``convert`` spellings moved), on both chips: P0 = -0x1.92p+1, P1 = -0x1.fbp-11,
  Prgm0, Prgm1, then C2, C1, C0 (no C3) and ``convert<vFloat16b>(r, Nearest)``. PR #57292's draft
  fast path is gated on ``ITERATIONS == 8`` and a two-parameter ``sine_init``; the harness passes
  32 and calls ``sine_init<APPROX>``, so even that branch would run this body.
* ``atan_2026_09``, ``asin_2026_09``, ``acos_2026_09`` (both chips): the BF16 arms
  ``sfpu_atan_bf16`` (PR #35470, Jan 2026) and ``sfpu_asin_bf16`` / ``sfpu_acos_bf16`` (PR #40843,
  Mar 2026), as restructured by PR #50112 (Jason Davies, opened 2026-07-16, merged Jul 2026:
  "minor performance tweaks to the bf16 paths", on Wormhole and Blackhole alike: WH atan 59 -> 57,
  asin 76 -> 72, acos 77 -> 73 cycles), with ``convert<vFloat16b>(result, Nearest)``.

  atan: NaN in -> NaN; ``t = |x|``, ``t = 1/t`` where ``|x| - 1 >= 0`` (``sfpu_reciprocal<false>``
  = ``sfpu_reciprocal_iter<2>``: Blackhole SFPARECIP + two guarded Newton steps, Prgm0 = 2.0;
  Wormhole the quadratic seed in Prgm0..2 + two Newton steps, :func:`kernels.reciprocal.
  reciprocal`); odd degree-7 minimax ``t * P(t*t)``; ``pi/2 - p`` where ``|x| >= 1``; sign of x.
  asin/acos: ``z = |x|`` below 0.625, else ``z = sqrt_custom((1 - |x|)/2)`` (magic 0x5f37 seed +
  two Newton steps); ``z * P(z*z)`` (degree-3 fit of asin(sqrt u)/sqrt u); above 0.625
  ``pi/2 - 2p``; sign of x; acos = ``pi/2 - asin``; NaN where ``|x| <= 1`` fails. Nothing but
  atan's reciprocal is chip-specific.

  Wormhole, and why it is registered although no post-#50112 Wormhole file is readable here: the
  Wormhole candidates for 2026-09-30 are (a) this PR #50112 form with Wormhole's reciprocal and
  (b) the only readable Wormhole revision, @01af8126 (index id 54837550361; pre-#50112: atan
  tests ``|x| - 1 > 0`` twice, asin/acos take the older ``v_if(|x| <= 0.625) ... v_else`` arm),
  each with either Wormhole reciprocal seed (the Sollya minimax seed the header documents, or the
  refit seed of two undated stored ``ckernel_sfpu_recip.h`` revisions, index ids 70302691577,
  70080189142). All of them give the same BF16 output on every one of the 65,536 inputs (tests):
  the forms differ only at |x| = 1 (atan) and |x| = 0.625 (asin, acos), where both roads round
  to the same pattern, and two Newton steps leave no trace of the seed. So the Wormhole kernel of
  2026-09-30 is pinned bit for bit even though its exact instruction stream (PR #50112's
  scheduling) is not read; what is registered is form (a). tt-llk's budget (tt-metal @01d9b424,
  measured on Wormhole 2026-09-30, Float16_b -> Float16_b, dest_acc No) records Atan max 1, Asin
  max 1, Acos max 0 steps; every candidate predicts exactly these (asin and acos over their
  domain [-1, 1]: outside it the quiet-NaN default rounds to an infinity, which cannot be
  measured against a NaN golden, so the budget's rows can only come from in-domain lanes). An
  undated change to both chips (the ``GUARD_NON_FINITE`` opt-out of ``sqrt_custom``, issue
  #52930's finding 5; its write-up, index id 58222009473) states that ``calculate_asin`` /
  ``calculate_acos`` stayed instruction-identical on both chips.

  The chips agree on every input except asin's 127 negative NaNs: Wormhole's SFPMAD keeps a
  NaN's sign (issue #46165) and SFPABS leaves a NaN alone, so ``|x| - 1`` is negative, the
  ``|x| <= 1`` test passes and ``setsgn(., x)`` gives a negative NaN, -Inf after rounding
  (Blackhole: the +NaN default, +Inf).

FP32 Dst (``is_fp32_dest_acc_en = true``; no rounding: the packer converts):

* ``sin_fp32_2026_09``, ``cos_fp32_2026_09``: PR #37714's FP32 arm, unchanged in all three
  readings: the same Cody-Waite reduction and sign fold as the BF16 arm, then ``r = C3*s + C2;
  r = r*s + C1; c = a*s; r = r*s + C0; r = r*c + a`` with C3 = 0x1.5dc908p-19, C2 =
  -0x1.9f70fp-13, C1 = 0x1.110edap-7, C0 = -0x1.55554cp-3; ``sine_init`` / ``cosine_init`` are
  the BF16 ones (one template parameter in the harness).
* ``atan_fp32_2026_09``, ``asin_fp32_2026_09``, ``acos_fp32_2026_09``: ``sfpu_atan_fp32`` /
  ``sfpu_asin_fp32`` / ``sfpu_acos_fp32`` of PR #50112 (Jason Davies, "Performance/precision:
  atan/asin/acos (fp32)", opened 2026-07-16, merged Jul 2026: WH atan 72 -> 44, asin 121 -> 55,
  acos 123 -> 61 cycles; max error 2.34 / 1.77 / 1.55 ULP), read in the BH file of PR #57292's
  branch (main a406ad5c, 2026-09-22; its non-"fast" code is main's), the only stored reading of
  the #50112 FP32 arms. The stored Wormhole revisions (@01af8126, index id 54837550361; index id
  54489898827) predate #50112 (atan branches on ``|x| - 1 >= 0`` with inline c1 = 0x1.99938ap-3,
  c0 = -0x1.555558p-2; asin/acos other coefficients and the old sign mapping) and are not
  modelled: the harness calls ``atan_init<APPROX, fp32>`` (two template parameters), which only
  the #50112 file declares. Wormhole is registered with the #50112 math and Wormhole's own
  ``_sfpu_reciprocal_gt0_<true>`` (:func:`kernels.hyperbolic.reciprocal_gt0_fp32`), the only
  chip-specific piece: an ASSUMPTION, since the Wormhole #50112 text is not readable here.
  #50112 gives the pre-#50112 FP32 arms 55.7 (asin) and 1267.3 (acos) ULP, so the table's 2 and
  1 (FP32 in and out) cannot come from them. Second ASSUMPTION: the harness's asin/acos init
  (the bare ``llk_math_eltwise_unary_sfpu_init<OP, fp32>()``, sfpu_operations.h @008a3c3b) ends
  in ``asin_acos_init<fp32>``, as the #50112 file's comment on it says the bare init path does;
  the endpoint root reads its constants from the programmable registers.

  atan: ``e = exexp(|x|)``; where ``e >= 0`` (``|x| >= 1``, Inf, NaN) ``a = (bits(|x|) - 1) *
  0`` (0, NaN stays NaN), and ``a = 1/|x|`` by ``_sfpu_reciprocal_gt0_<true>`` where also ``e <
  26``; degree-8 odd polynomial ``a + a^3 P(a^2)`` (six immediates, then Prgm1 = 0x1.999384p-3,
  Prgm2 = -0x1.555552p-2 from ``atan_init<false, true>``); ``pi/2 - r`` where ``e >= 0``; sign of
  x. asin: ``z = |x|`` below 0.5625, else ``z = _sfpu_sqrt_endpoint_((1 - |x|)/2)`` (SQRT_23-bits
  on ``sqrt_init``'s vConstIntPrgm0 = 0x5f1110a0, Prgm1 = 2.2825186, Prgm2 = 2.2533049, primed by
  ``asin_acos_init<true>``: the same values the pre-#50112 code had inline), ``r = z + z^3
  P(z^2)`` (five coefficients), ``pi/2 - 2r`` above 0.5625, sign of x, NaN where ``(1 - |x|)/2 <
  0``. acos: the same reduction and a six-coefficient asin polynomial evaluated on ``z`` carrying
  the sign ``sign(x) XOR sign(|x| - 0.5625)``; ``+ pi/2`` where ``z`` or ``|x| - 0.5625`` is
  negative; doubled above 0.5625; NaN outside [-1, 1].
"""
from __future__ import annotations

import math

from kernels.common import polyval
from kernels.hyperbolic import reciprocal_gt0_fp32
from kernels.reciprocal import reciprocal, reciprocal_init
from kernels.sqrt import sqrt_init
from kernels.trig import (PI_P0, PI_P1, ROUNDING_BIAS, cos_2026_02, cosine_init, sin_2026_02,
                          sine_init)
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    abs,
    dst_reg,
    exexp,
    exexp_nodebias,
    exman9,
    float_to_fp16b,
    reinterpret,
    setsgn,
    v_endif,
    v_if,
    vConstFloatPrgm0,
    vConstFloatPrgm1,
    vConstFloatPrgm2,
    vConstIntPrgm0,
    vConstNeg1,
    vFloat,
    vInt,
    vUInt,
)

PI_2 = 1.5707963705062866            # static const float PI_2 (pi/2 rounded to float)
# fpminimax(atan(x), [|1,3,5,7|], [|single...|], [2^-40; 1], relative): atan(t) = t*P(t*t)
ATAN_BF16 = (0.999787867069244384765625, -0.325808584690093994140625,
             0.1555790007114410400390625, -4.4326744973659515380859375e-2)
# fpminimax(asin(sqrt(x))/sqrt(x), [|0,1,2,3|], [|single...|], [2^-40; (5/8)^2], relative)
ASIN_BF16 = (0.999978601932525634765625, 0.16771225631237030029296875,
             0.06381262838840484619140625, 0.083148844540119171142578125)
ASIN_SWITCH = 0.625
SQRT_CUSTOM_MAGIC = 0x5F370000      # vFloat(sFloat16b(0x5f37)) as bits


def atan_init():
    """``atan_init<false, false>``: ``sfpu_reciprocal_init<false>()`` (Blackhole: Prgm0 = 2.0;
    Wormhole: the quadratic seed's three constants)."""
    reciprocal_init(False)


def atan_bf16(val):
    """``sfpu_atan_bf16<false>(val)`` (PR #50112 form). The source tests for a NaN first and
    evaluates the rest under ``v_else``; here the rest runs on every lane and the NaN test selects
    last: the same values in every lane (nothing here crosses lanes), and fewer values live through
    the reciprocal, whose Wormhole form (seed + two Newton steps) would not fit the DSL's eight
    LRegs otherwise."""
    t0 = abs(val)
    absval_minus_1 = t0 - 1.0
    with v_if(absval_minus_1 >= 0.0):
        t0.assign(reciprocal(t0, 2))
    v_endif()
    t1 = t0 * t0
    t1 = polyval(t1, *ATAN_BF16)
    t1 = t1 * t0
    with v_if(absval_minus_1 >= 0.0):
        t1.assign(PI_2 - t1)
    v_endif()
    result = setsgn(t1, val)
    with v_if((exexp_nodebias(val) == 255) & (exman9(val) != 0)):
        result.assign(math.nan)
    v_endif()
    return result


def sqrt_custom(val):
    """``sfpu_sqrt_custom<false>(val)`` (tt-metal ``ckernel_sfpu_sqrt_custom.h``, BH revision
    @0fb1a0b3): 0x5f37 inverse-square-root seed, two Newton steps, times ``val``; zero and
    exponent-255 inputs pass through (asin only feeds it values in [0, 0.1875])."""
    out = vFloat(val)
    with v_if((val != 0.0) & (exexp_nodebias(val) != 255)):
        magic = vUInt(SQRT_CUSTOM_MAGIC)
        approx = reinterpret(vFloat, magic - (reinterpret(vUInt, val) >> 1))
        neg_half_val = val * -0.5
        approx = ((approx * approx) * neg_half_val + 1.5) * approx
        approx = ((approx * approx) * neg_half_val + 1.5) * approx
        out.assign(approx * val)
    v_endif()
    return out


def asin_poly(z):
    """``sfpu_asin_poly_bf16``: ``z * P(z*z)``."""
    z2 = z * z
    return z * polyval(z2, *ASIN_BF16)


def asin_range_reduced(val):
    """``sfpu_asin_range_reduced_bf16`` (PR #50112 form: one polynomial on a selected z)."""
    abs_v = abs(val)
    z = sqrt_custom((1.0 - abs_v) * 0.5)
    endpoint = abs_v - ASIN_SWITCH       # formed before the root in the source; same values
    with v_if(endpoint < 0.0):
        z.assign(abs_v)
    v_endif()
    asin_abs = asin_poly(z)
    with v_if(endpoint >= 0.0):
        asin_abs.assign(PI_2 - 2.0 * asin_abs)
    v_endif()
    return setsgn(asin_abs, val)


def _rounded(result):
    return reinterpret(vFloat, float_to_fp16b(result, 0))


def atan_2026_09():
    """One iteration of ``calculate_atan<false, false>``."""
    dst_reg[0] = _rounded(atan_bf16(dst_reg[0]))


def asin_2026_09():
    """One iteration of ``calculate_asin<false, false>``. The source evaluates the reduction
    inside ``v_if(|x| <= 1)``; here it runs on every lane first and the ``v_if`` only selects:
    the same values in the enabled lanes (nothing here crosses lanes), and the NaN default is
    then not live through the reduction, which eight LRegs could not hold for the DSL's
    allocator."""
    val = dst_reg[0]
    asin_val = asin_range_reduced(val)
    result = vFloat(math.nan)
    with v_if(abs(val) <= 1.0):
        result.assign(asin_val)
    v_endif()
    dst_reg[0] = _rounded(result)


def acos_2026_09():
    """One iteration of ``calculate_acos<false, false>`` (evaluated as :func:`asin_2026_09`
    is)."""
    val = dst_reg[0]
    acos_val = PI_2 - asin_range_reduced(val)
    result = vFloat(math.nan)
    with v_if(abs(val) <= 1.0):
        result.assign(acos_val)
    v_endif()
    dst_reg[0] = _rounded(result)


# --- FP32 Dst -------------------------------------------------------------------------------

HEX = float.fromhex
# sin(a) = a + a^3 (C0 + a^2 (C1 + a^2 (C2 + a^2 C3))) for the FP32 Dst (calculate_sine/cosine).
SINE_FP32 = (HEX("0x1.5dc908p-19"), -HEX("0x1.9f70fp-13"), HEX("0x1.110edap-7"),
             -HEX("0x1.55554cp-3"))
# sfpu_atan_fp32: the six immediates of P, highest degree first (the source's order); then
# atan_init<false, true>'s Prgm1 and Prgm2.
ATAN_FP32_HIGH = (HEX("0x1.01cp-8"), -HEX("0x1.4bcp-6"), HEX("0x1.93p-5"), -HEX("0x1.48cp-4"),
                  HEX("0x1.bd4p-4"), -HEX("0x1.24p-3"))
ATAN_FP32_C1, ATAN_FP32_C0 = HEX("0x1.999384p-3"), -HEX("0x1.555552p-2")
ATAN_RECIPROCAL_BELOW = 26          # exexp(|x|) >= 26: atan rounds to pi/2, no reciprocal
# sfpu_asin_fp32 / sfpu_acos_fp32: asin(z) = z + z^3 P(z^2) on [0, 0.5625], highest degree
# first.
ASIN_FP32 = (HEX("0x1.9e0000p-5"), HEX("0x1.364p-6"), HEX("0x1.7dcp-5"), HEX("0x1.329a74p-4"),
             HEX("0x1.55578cp-3"))
ACOS_FP32 = (HEX("0x1.830p-5"), HEX("0x1.ca0000p-8"), HEX("0x1.158p-5"), HEX("0x1.6acp-5"),
             HEX("0x1.33411ep-4"), HEX("0x1.555552p-3"))
ASIN_FP32_SWITCH = 0.5625


def _sine_polynomial_fp32(a, s):
    """The FP32 arm's evaluation of sin(a), ``s = a*a`` (no rounding)."""
    c3, c2, c1, c0 = (vFloat(c) for c in SINE_FP32)   # hoisted out of the loop in the source
    r = c3 * s + c2
    r = r * s + c1
    c = a * s
    r = r * s + c0
    return r * c + a


def _cody_waite(v, j, q, p0, p1):
    """``a = v + j*(P0 + P1 + Prgm0 + Prgm1)``, ``s = a*a``, and ``a`` with q's low bit as
    sign: the reduction :func:`kernels.trig._reduce_and_evaluate` runs before its BF16
    polynomial, in the same order."""
    a = v + j * p0
    a = a + j * p1
    a = a + j * vConstFloatPrgm0
    a = a + j * vConstFloatPrgm1
    q = q << 31
    s = a * a
    a = reinterpret(vFloat, reinterpret(vInt, a) ^ q)
    return a, s


def sin_fp32_2026_09():
    """One iteration of ``calculate_sine<false, true>``."""
    v = dst_reg[0]
    rounding_bias = vFloat(ROUNDING_BIAS)
    j = v * vConstFloatPrgm2 + rounding_bias          # j = round(v/pi) in the mantissa
    q = reinterpret(vInt, j)
    j = j - rounding_bias
    a, s = _cody_waite(v, j, q, PI_P0, PI_P1)
    dst_reg[0] = _sine_polynomial_fp32(a, s)


def cos_fp32_2026_09():
    """One iteration of ``calculate_cosine<false, true>``."""
    v = dst_reg[0]
    half = vFloat(0.5)
    j = v * vConstFloatPrgm2 + half
    j = j + ROUNDING_BIAS
    q = reinterpret(vInt, j)
    j = j + (-ROUNDING_BIAS)
    two = vFloat(2.0)
    j = j * two + vConstNeg1                          # the odd multiple of pi/2
    a, s = _cody_waite(v, j, q, PI_P0 / 2, PI_P1 / 2)
    dst_reg[0] = _sine_polynomial_fp32(a, s)


def atan_fp32_init():
    """``atan_init<false, true>`` (``_init_atan_body_constants_<true>``): P's two low
    coefficients."""
    vConstFloatPrgm1.assign(ATAN_FP32_C1)
    vConstFloatPrgm2.assign(ATAN_FP32_C0)


def atan_fp32(x):
    """``sfpu_atan_fp32(x)`` (PR #50112)."""
    ax = setsgn(x, 0)
    a = vFloat(ax)
    e = exexp(a)
    with v_if(e >= 0):
        a.assign(reinterpret(vFloat, reinterpret(vInt, a) - 1) * 0.0)   # 0; NaN stays NaN
        with v_if(e < ATAN_RECIPROCAL_BELOW):
            a.assign(reciprocal_gt0_fp32(ax))
        v_endif()
    v_endif()
    s = a * a
    p = polyval(s, *ATAN_FP32_HIGH[::-1])
    a3 = s * a
    p = p * s + vConstFloatPrgm1
    p = p * s + vConstFloatPrgm2
    pio2 = vFloat(PI_2)
    r = p * a3 + a
    with v_if(e >= 0):
        r.assign(pio2 - r)
    v_endif()
    return setsgn(r, x)


def sqrt_endpoint(x):
    """``_sfpu_sqrt_endpoint_(x)``, x >= 0: SQRT_23-bits on sqrt_init's constants."""
    i = reinterpret(vInt, reinterpret(vUInt, x) >> 1)
    y = reinterpret(vFloat, vConstIntPrgm0 - i)
    xy = x * y
    c = -y * xy
    y = y * (c * (vConstFloatPrgm2 + c) + vConstFloatPrgm1)
    xy = x * y
    e = -y * xy + 1.0
    return e * (0.5 * xy) + xy


def _endpoint_reduced(x):
    """The shared head of sfpu_asin_fp32 / sfpu_acos_fp32: ``(1 - |x|)/2``, ``|x| - 0.5625``
    and ``z`` (|x| below the switch, else the endpoint root)."""
    ax = abs(x)
    d = 1.0 - ax
    cutoff = vFloat(ASIN_FP32_SWITCH)
    half_d = d * 0.5
    t = ax - cutoff
    z = sqrt_endpoint(half_d)
    with v_if(t < 0.0):
        z.assign(ax)
    v_endif()
    return half_d, t, z


def _nan_outside_domain(r, half_d):
    with v_if(half_d < 0.0):                          # |x| > 1
        r.assign(math.nan)
    v_endif()
    return r


def asin_fp32(x):
    """``sfpu_asin_fp32(x)`` (PR #50112)."""
    half_d, t, z = _endpoint_reduced(x)
    s = z * z
    p = polyval(s, *ASIN_FP32[::-1])
    neg_two = vFloat(-2.0)
    p = p * s
    pio2 = vFloat(PI_2)
    r = p * z + z
    with v_if(t >= 0.0):
        r.assign(neg_two * r + pio2)
    v_endif()
    r = setsgn(r, x)
    return _nan_outside_domain(r, half_d)


def acos_fp32(x):
    """``sfpu_acos_fp32(x)`` (PR #50112)."""
    half_d, t, z = _endpoint_reduced(x)
    s = z * z
    p = polyval(s, *ACOS_FP32[::-1])
    x_bits = reinterpret(vUInt, x) ^ reinterpret(vUInt, t)
    p = p * s
    z = setsgn(z, reinterpret(vFloat, x_bits))          # sign(x) XOR sign(t)
    r = p * z + z
    pio2_bits = reinterpret(vUInt, z) | reinterpret(vUInt, t)
    with v_if(reinterpret(vFloat, pio2_bits) < 0.0):  # central interval, negative endpoint
        r.assign(r + PI_2)
    v_endif()
    with v_if(t >= 0.0):
        r.assign(r + r)
    v_endif()
    return _nan_outside_domain(r, half_d)


def atan_fp32_2026_09():
    """One iteration of ``calculate_atan<false, true>``."""
    dst_reg[0] = atan_fp32(dst_reg[0])


def asin_fp32_2026_09():
    """One iteration of ``calculate_asin<false, true>``."""
    dst_reg[0] = asin_fp32(dst_reg[0])


def acos_fp32_2026_09():
    """One iteration of ``calculate_acos<false, true>``."""
    dst_reg[0] = acos_fp32(dst_reg[0])


def asin_acos_fp32_init():
    """``asin_acos_init<true>`` = ``sqrt_init<false, true>``: the endpoint root's constants."""
    sqrt_init(False)


# --- registration ---------------------------------------------------------------------------

ALIAS = ("alias of {old} (same body and init): tt-metal ckernel_sfpu_trigonometry.h "
         "calculate_{fn}<false, false> still carries PR #37714's math on 2026-09-30 (read at WH "
         "@01af8126, BH @01c8afed and in PR #57292's branch on main a406ad5c, 2026-09-22)")
register_kernel(
    "sin_2026_09", sin_2026_02, init=sine_init, function="sin", mode="accurate", dest="bf16",
    template="calculate_sine", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=ALIAS.format(old="sin_2026_02", fn="sine"),
    description="ttnn.sin on a BF16 tensor, Sep 2026 (= sin_2026_02)")
register_kernel(
    "cos_2026_09", cos_2026_02, init=cosine_init, function="cos", mode="accurate", dest="bf16",
    template="calculate_cosine",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=ALIAS.format(old="cos_2026_02", fn="cosine"),
    description="ttnn.cos on a BF16 tensor, Sep 2026 (= cos_2026_02)")

INVERSE = ("tt-metal ckernel_sfpu_trigonometry.h calculate_{fn}<false, false> (BH @01c8afed = "
           "main a406ad5c, 2026-09-22, per PR #57292's fallback): {what}, PR #50112 form (Jul "
           "2026); convert<vFloat16b>(r, Nearest). WH: every candidate (pre/post #50112, either "
           "seed) gives these outputs and tt-llk's 2026-09-30 budget (kernels/trig_2026.py)")
register_kernel(
    "atan_2026_09", atan_2026_09, init=atan_init, function="atan",
    mode="accurate", dest="bf16",
    template="calculate_atan", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=INVERSE.format(fn="atan", what="sfpu_atan_bf16 (PR #35470): reciprocal<2> for "
                              "|x| >= 1, odd degree-7 minimax, pi/2 - p"),
    description="ttnn.atan on a BF16 tensor, Jul - Sep 2026")
register_kernel(
    "asin_2026_09", asin_2026_09, function="asin", mode="accurate",
    dest="bf16",
    template="calculate_asin", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=INVERSE.format(fn="asin", what="sfpu_asin_bf16 (PR #40843): split at 0.625, "
                              "sqrt_custom endpoint reduction, degree-3 asin(sqrt u)/sqrt u"),
    description="ttnn.asin on a BF16 tensor, Jul - Sep 2026")
register_kernel(
    "acos_2026_09", acos_2026_09, function="acos", mode="accurate",
    dest="bf16",
    template="calculate_acos", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=INVERSE.format(fn="acos", what="sfpu_acos_bf16 (PR #40843): pi/2 - asin"),
    description="ttnn.acos on a BF16 tensor, Jul - Sep 2026")


# --- registration, FP32 Dst -----------------------------------------------------------------

SINE_FP32_PROVENANCE = ("tt-metal ckernel_sfpu_trigonometry.h calculate_{fn}<false, true> + "
                        "{init}<false> (PR #37714's FP32 arm; read at WH @01af8126, BH @01c8afed "
                        "and in PR #57292's branch on main a406ad5c, 2026-09-22, all alike): "
                        "Cody-Waite by {period}, degree-9 odd polynomial C3..C0, no rounding")
register_kernel(
    "sin_fp32_2026_09", sin_fp32_2026_09, init=sine_init, function="sin", mode="accurate",
    dest="fp32", template="calculate_sine",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True}, instance_of="sin_2026_09",
    provenance=SINE_FP32_PROVENANCE.format(fn="sine", init="sine_init", period="pi"),
    description="ttnn.sin with an FP32 Dst, Feb - Sep 2026")
register_kernel(
    "cos_fp32_2026_09", cos_fp32_2026_09, init=cosine_init, function="cos", mode="accurate",
    dest="fp32", template="calculate_cosine",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True}, instance_of="cos_2026_09",
    provenance=SINE_FP32_PROVENANCE.format(fn="cosine", init="cosine_init", period="pi/2"),
    description="ttnn.cos with an FP32 Dst, Feb - Sep 2026")

INVERSE_FP32 = ("tt-metal ckernel_sfpu_trigonometry.h calculate_{fn}<false, true>, PR #50112 "
                "(Jul 2026), read in the BH file of PR #57292's branch (index id 68755511596, on "
                "main a406ad5c, 2026-09-22): {what}; no rounding. WH: same math with WH's "
                "_sfpu_reciprocal_gt0_ (assumed: no post-#50112 WH file is stored)")
register_kernel(
    "atan_fp32_2026_09", atan_fp32_2026_09, init=atan_fp32_init, function="atan",
    mode="accurate", dest="fp32", template="calculate_atan",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True}, instance_of="atan_2026_09",
    provenance=INVERSE_FP32.format(fn="atan", what="sfpu_atan_fp32: 1/|x| by "
                                   "_sfpu_reciprocal_gt0_<true> for 1 <= |x| < 2^26, degree-8 "
                                   "odd polynomial (Prgm1/Prgm2 from atan_init<false, true>), "
                                   "pi/2 - r"),
    description="ttnn.atan with an FP32 Dst, Jul - Sep 2026")
register_kernel(
    "asin_fp32_2026_09", asin_fp32_2026_09, init=asin_acos_fp32_init, function="asin",
    mode="accurate", dest="fp32", template="calculate_asin",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True}, instance_of="asin_2026_09",
    provenance=INVERSE_FP32.format(fn="asin", what="sfpu_asin_fp32: split at 0.5625, "
                                   "_sfpu_sqrt_endpoint_ on sqrt_init's constants "
                                   "(asin_acos_init<true>), z + z^3 P(z^2), pi/2 - 2r"),
    description="ttnn.asin with an FP32 Dst, Jul - Sep 2026")
register_kernel(
    "acos_fp32_2026_09", acos_fp32_2026_09, init=asin_acos_fp32_init, function="acos",
    mode="accurate", dest="fp32", template="calculate_acos",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True}, instance_of="acos_2026_09",
    provenance=INVERSE_FP32.format(fn="acos", what="sfpu_acos_fp32: the asin reduction, a "
                                   "six-coefficient polynomial on z signed by sign(x) XOR "
                                   "sign(|x| - 0.5625), + pi/2, doubled past 0.5625"),
    description="ttnn.acos with an FP32 Dst, Jul - Sep 2026")
