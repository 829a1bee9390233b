"""GELU and GELU-derivative kernels as of 2026-09-30, BF16 Dst and FP32 Dst.

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_gelu.h``, ``calculate_gelu<false, false>`` (``calculate_gelu_piecewise``)
and ``calculate_gelu_derivative_polynomial<false, false>`` (``calculate_gelu_derivative_simple``)
with ``gelu_derivative_polynomial_init<false>``. PR #45920 (abdulla-TT, "Update gelu op.",
opened 2026-06-03, merged Jun 2026; issue #46185) rewrote both accurate BF16 paths on both chips
(the degree-13 odd CDF polynomial in u = x*x, the derivative's degree-8 h(u)); the deep tail
then took its H-form (exp_21f times a cubic correction, rounded to the 2**-25 grid, saturation
at -5.54259443).

Read in the stored revisions: BH index id 54520510799 (no SFPLOADMACRO, no generated include),
WH @04154da6cbbfafd9fe6793b7c8a2756110fd8cdb (index id 70527947459; the same two functions; it
also includes the issue-#49435 generated ``ckernel_sfpu_gelu_bf16.h``, used only for
ITERATIONS == 32, which ``gelu_tile`` never passes), and the BH file of PR #57292's branch
(index id 68288623512, opened 2026-09-22 on main a406ad5c), which keeps both functions
unchanged as the fallback of its draft llk-bench fast path (not modelled). Dated by: issue
#52407 (2026-08-07) describes main's accurate gelu saturating at x <= -5.54259443; issue #56490
(verified on main 70f840f4, 2026-09-14) quotes this file's FP32 branch, "identical on
wormhole_b0 and blackhole"; PR #57292's fallback is main a406ad5c (2026-09-22).

``gelu_2026_09`` (``calculate_gelu_piecewise`` then ``convert<vFloat16b>(., Nearest)``):

* x <= -5.54259443: 0.
* (-5.54259443, -3.125): ``H = exp_21f(-x*x/2) * (c0 + x*(c1 + x*(c2 + x*c3)))``, rounded to
  a multiple of 2**-25 by ``(H + 0.375) - 0.375``; ``x * H``.
* [-3.125, 2.78125): ``x * (0.5 + x*p(x*x))``, p of degree 6 in u (odd degree 13 in x).
* x >= 2.78125: x.

The regions are nested ``v_if`` / ``v_and`` narrowings, so every lane above -5.54259443 runs the
exp_21f part first (the constants 127 and -0.5/ln 2 are folded into one SFPMAD).

``gelu_derivative_2026_09`` (``calculate_gelu_derivative_simple<false, false>``):

* x >= 3.1719: 1.
* [-3, 3.1719): ``0.5 + x*h(x*x)``, h of degree 8.
* (-13.375, -3): ``x*exp(-x*x/2)`` fused so that the 2**k scaling comes last
  (``x_times_exp_negative_tail``: Cody-Waite by ln 2 with k rounded by the 1.5*2**23 trick,
  degree-5 Taylor, exponent field += k, 0 where the new biased exponent is <= 0), times
  1/sqrt(2 pi), times the Mills-ratio factor ``1 - 1/x**2 + 1/x**4`` with ``1/x**2`` from
  ``sfpu_reciprocal_iter<1>`` (Blackhole SFPARECIP + one guarded Newton step; Wormhole the
  quadratic seed + one Newton step): the chips differ here.
* x <= -13.375: 0.

FP32 Dst (``is_fp32_dest_acc_en = true``; the same stored files, both chips; issue #56490 quotes
the FP32 branch as "identical on wormhole_b0 and blackhole" on main 70f840f4, 2026-09-14):

``gelu_fp32_2026_09`` (``calculate_gelu<false, true>`` + ``gelu_init<false, true>``, which loads
``sfpu_reciprocal_init<false>``): a different algorithm, erf-based.

* x <= -5.54259443: 0 (the first x where libm's erff is -1, per the source).
* else ``s = min(x/sqrt 2, 10)`` (SFPSWAP), ``erf = N(s)/D(s)``: an n16/d16 parity rational
  (odd numerator, even denominator) evaluated by ``piecewise_rational_eval_parity_numer_denom
  <16, 16>`` of ``ckernel_sfpu_piecewise_rational.h`` (read at index id 52182203714): Horner in
  ``s*s``, the denominator's extra top step first, then both chains step by step, numerator
  times ``s`` last; ``N * sfpu_reciprocal<false>(D)`` (= ``sfpu_reciprocal_iter<2>``: Blackhole
  SFPARECIP + two guarded Newton steps, Wormhole the quadratic seed + two Newton steps), clamped
  to [-1, 1].
* ``x * (0.5 + 0.5 erf)``; where the clamped erf is exactly -1, ``x * 2**-25`` (the source's
  "stuck-erff guard": torch's FP32 erf is one step above -1 there). No rounding.

``x`` is read from Dst a second time after the reciprocal (the same value), to fit the DSL's
eight LRegs. The Quasar file (index id 58242801877) folds the clamp and the guard into
``clamp(0.5 + 0.5 erf, 2**-25, 1)``; that is not Wormhole's or Blackhole's code.

``gelu_derivative_fp32_2026_09`` (``calculate_gelu_derivative_polynomial<false, true>``, same
init): the BF16 body with ``sfpu_reciprocal_iter<2>`` for ``1/x**2`` and no final rounding.
"""
from __future__ import annotations

from sfpu_sim import register_kernel
from kernels.common import polyval
from kernels.exp import round_nearest_int32
from kernels.exp_2026 import exp_21f_of
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim.sfpi import (dst_reg, exexp_nodebias, float_to_fp16b, reinterpret, setexp, v_and,
                           v_elseif, v_endif, v_if, vec_min_max, vFloat)

# Degree-13 odd CDF polynomial: Phi(x) = C0 + x*(C1 + u*(C3 + ... + u*C13)), u = x*x.
GELU_CDF_CORE = (0.5, 3.9894227818e-01, -6.6361041488e-02, 9.7720050615e-03,
                 -1.0717806322e-03, 8.1812159812e-05, -3.8082057209e-06, 7.9821413868e-08)
# corr_H(x) = C0 + x*(C1 + x*(C2 + x*C3)) in H = exp(-x*x/2) * corr_H(x).
GELU_HCORR = (3.0369991064e-01, 9.5413386822e-02, 1.3809983619e-02, 7.5950479368e-04)
GELU_SATURATION = -5.54259443          # 0xC0B15CEF: below it the kernel returns 0
GELU_CORE_LOW, GELU_IDENTITY = -3.125, 2.78125
NEG_HALF_ONE_LN2 = -0.72134752044      # -0.5 / ln 2
ROUND_TO_GRID = 0.375                  # (2**23 + 2**22) * 2**-25

# h(u) of GELU'(x) = 0.5 + x*h(x*x), ascending powers of u.
GELU_DERIV_H = (7.9788309336e-01, -2.6593554020e-01, 5.9766173363e-02, -9.4142099842e-03,
                1.1061388068e-03, -9.7448595625e-05, 6.0921474869e-06, -2.3764030743e-07,
                4.2734988881e-09)
DERIV_ONE_FROM, DERIV_CORE_LOW, DERIV_ZERO_BELOW = 3.1719, -3.0, -13.375
INV_SQRT_2PI = 0.3989422804014327
INV_LN2 = 1.4426950408889634
LN2_HI, LN2_LO = -0.6931152343750000, -3.19461832987e-05
TAIL_TAYLOR = (1.0, 1.0, 0.5, 0.166666667, 0.0416666667, 0.00833333333)


def gelu_piecewise(x):
    """``calculate_gelu_piecewise(x)``."""
    result = vFloat(0.0)
    x2 = x * x
    with v_if(x > GELU_SATURATION):
        exp_val = exp_21f_of(x2 * NEG_HALF_ONE_LN2 + 127.0)
        h = exp_val * polyval(x, *GELU_HCORR)
        hs = (h + ROUND_TO_GRID) - ROUND_TO_GRID
        result.assign(x * hs)
        v_and(x >= GELU_CORE_LOW)
        odd_poly = polyval(x2, *GELU_CDF_CORE[1:])
        phi = GELU_CDF_CORE[0] + x * odd_poly
        result.assign(x * phi)
        v_and(x >= GELU_IDENTITY)
        result.assign(x)
    v_endif()
    return result


def gelu_2026_09():
    """One iteration of ``calculate_gelu<false, false>`` (BF16 accurate)."""
    result = gelu_piecewise(dst_reg[0])
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(result, 0))


def x_times_exp_negative_tail(x, t):
    """``x_times_exp_negative_tail(x, t)``: ``x * exp(t)`` for t = -x*x/2 <= -4.5, the
    product formed before the 2**k scaling so that it does not flush early."""
    z = t * INV_LN2
    k, k_int = round_nearest_int32(z)
    r = k * LN2_HI + t
    r = k * LN2_LO + r
    poly = polyval(r, *TAIL_TAYLOR)
    x_poly = x * poly
    new_exp = exexp_nodebias(x_poly) + k_int
    result = vFloat(0.0)
    with v_if(new_exp > 0):
        result.assign(setexp(x_poly, new_exp))
    v_endif()
    return result


def gelu_derivative_simple(x, reciprocal_iterations: int = 1):
    """``calculate_gelu_derivative_simple<false, is_fp32_dest_acc_en>(x)``: the two
    instantiations differ only in ``sfpu_reciprocal_iter<is_fp32_dest_acc_en ? 2 : 1>``."""
    result = vFloat(0.0)
    with v_if(x >= DERIV_ONE_FROM):
        result.assign(1.0)
    with v_elseif(x >= DERIV_CORE_LOW):
        u = x * x
        h = polyval(u, *GELU_DERIV_H)
        result.assign(0.5 + x * h)
    with v_elseif(x > DERIV_ZERO_BELOW):
        x2 = x * x
        t = x2 * -0.5
        x_exp = x_times_exp_negative_tail(x, t)
        inv_x2 = reciprocal(x2, reciprocal_iterations)
        inv_x4 = inv_x2 * inv_x2
        correction = 1.0 - inv_x2 + inv_x4
        result.assign(x_exp * INV_SQRT_2PI * correction)
    v_endif()
    return result


def gelu_derivative_2026_09_init():
    """``gelu_derivative_polynomial_init<false>``: ``sfpu_reciprocal_init<false>()`` (Wormhole:
    the quadratic seed's three constants; Blackhole: Prgm0 = 2.0)."""
    reciprocal_init(False)


def gelu_derivative_2026_09():
    """One iteration of ``calculate_gelu_derivative_polynomial<false, false>``."""
    result = gelu_derivative_simple(dst_reg[0])
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(result, 0))


_SOURCE = ("tt-metal ckernel_sfpu_gelu.h (PR #45920, Jun 2026; read BH index id 54520510799, "
           "WH @04154da6; unchanged in PR #57292's fallback on main a406ad5c, 2026-09-22)")

register_kernel(
    "gelu_2026_09", gelu_2026_09, function="gelu", mode="accurate", dest="bf16",
    template="calculate_gelu", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=f"{_SOURCE}: calculate_gelu<false, false> -> calculate_gelu_piecewise: 0 for "
               "x <= -5.54259443, x*round_2^-25(exp_21f(-x^2/2)*cubic) below -3.125, "
               "x*(0.5 + x*p13(x)) below 2.78125, x beyond; convert<vFloat16b>(., Nearest)",
    description="ttnn.gelu default (accurate) on a BF16 tensor, Jun - Sep 2026")

register_kernel(
    "gelu_derivative_2026_09", gelu_derivative_2026_09, init=gelu_derivative_2026_09_init,
    function="gelu_derivative", mode="accurate", dest="bf16",
    template="calculate_gelu_derivative_polynomial",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=f"{_SOURCE}: calculate_gelu_derivative_polynomial<false, false> + "
               "gelu_derivative_polynomial_init<false>: 1 from 3.1719, 0.5 + x*h8(x^2) from -3, "
               "x*exp(-x^2/2)/sqrt(2pi)*(1 - 1/x^2 + 1/x^4) above -13.375 (sfpu_reciprocal_iter"
               "<1> per chip), else 0; convert<vFloat16b>(., Nearest)",
    description="GELU derivative (accurate) on a BF16 tensor, Jun - Sep 2026")


# --- FP32 Dst (is_fp32_dest_acc_en = true) ----------------------------------------------------
# calculate_gelu<false, true>: erf(x/sqrt 2) as the n16/d16 parity rational that the source says
# it split from ckernel_sfpu_erf.h's INP_FLOAT32 ERF_LUT. Numerator: odd powers 1..15, ascending;
# denominator: even powers 0..16, ascending (all other entries of the source's arrays are 0).
GELU_ERF_NUM_ODD = (1.1283791065e+00, 2.1477432549e-01, 6.2133435160e-02, 5.6230435148e-03,
                    6.1307044234e-04, 1.7678321456e-05, 2.7384647439e-08, -2.8632063387e-10)
GELU_ERF_DEN_EVEN = (1.0, 5.2367275953e-01, 1.2961706519e-01, 1.9642570987e-02,
                     1.9545555115e-03, 1.3179056987e-04, 1.3156344494e-06, -3.5153888689e-09,
                     -6.7350725691e-12)
INV_SQRT2 = 0.7071067811865475
ERF_ARGUMENT_CAP = 10.0                 # sfpi::min(scaled, 10.0f)
STUCK_ERF_LEVEL = 2.9802322387695313e-08   # 2**-25: x * 2**-25 where erf rounds to -1


def parity_rational_numer_denom(x, x2, numer_odd, denom_even):
    """``piecewise_rational_eval_parity_numer_denom<N, D>``: Horner in ``x2`` on each side from
    the top coefficient (the side with more steps runs its extra ones first), then the
    numerator times ``x``. Coefficients ascending, the numerator's odd ones, the denominator's
    even ones."""
    numer, denom = vFloat(numer_odd[-1]), vFloat(denom_even[-1])
    shared = min(len(numer_odd), len(denom_even)) - 1
    for c in reversed(numer_odd[shared:-1]):          # the longer side's extra steps first
        numer = numer * x2 + c
    for c in reversed(denom_even[shared:-1]):
        denom = denom * x2 + c
    for k in reversed(range(shared)):                 # then the two chains interleaved
        numer = numer * x2 + numer_odd[k]
        denom = denom * x2 + denom_even[k]
    return numer * x, denom


def gelu_fp32_init():
    """``gelu_init<false, true>``: ``sfpu_reciprocal_init<false>()`` (Wormhole: the quadratic
    seed's three constants; Blackhole: Prgm0 = 2.0)."""
    reciprocal_init(False)


def gelu_fp32():
    """One iteration of ``calculate_gelu<false, true>`` (FP32 Dst, no rounding):
    ``x (0.5 + 0.5 erf(x/sqrt 2))`` above -5.54259443, else 0; where the clamped erf is exactly
    -1, ``x * 2**-25``. ``x`` is read from Dst again after the reciprocal (the same value; the
    device's compiler spills or reloads it too, and the DSL has eight LRegs)."""
    x = dst_reg[0]
    result = vFloat(0.0)
    with v_if(x > GELU_SATURATION):
        scaled = x * INV_SQRT2
        cap = vFloat(ERF_ARGUMENT_CAP)
        vec_min_max(scaled, cap)                  # scaled = min(scaled, 10)
        x2 = scaled * scaled
        numer, denom = parity_rational_numer_denom(scaled, x2, GELU_ERF_NUM_ODD,
                                                   GELU_ERF_DEN_EVEN)
        erf = numer * reciprocal(denom, 2)        # sfpu_reciprocal<false> = _iter<2>
        low = vFloat(-1.0)
        vec_min_max(low, erf)                     # erf = max(erf, -1)
        high = vFloat(1.0)
        vec_min_max(erf, high)                    # erf = min(erf, 1)
        x = dst_reg[0]
        result.assign(x * (0.5 + 0.5 * erf))
        with v_if(erf == -1.0):
            result.assign(x * STUCK_ERF_LEVEL)
        v_endif()
    v_endif()
    dst_reg[0] = result


def gelu_derivative_fp32_2026_09():
    """One iteration of ``calculate_gelu_derivative_polynomial<false, true>``."""
    dst_reg[0] = gelu_derivative_simple(dst_reg[0], reciprocal_iterations=2)


register_kernel(
    "gelu_fp32_2026_09", gelu_fp32, init=gelu_fp32_init, function="gelu",
    mode="accurate", dest="fp32", template="calculate_gelu",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="gelu_2026_09",
    provenance=f"{_SOURCE}; FP32 branch identical in WH @04154da6 and BH 54520510799 / "
               "68288623512, as issue #56490 (main 70f840f4, 2026-09-14) says; "
               "ckernel_sfpu_piecewise_rational.h read in index id 52182203714): "
               "calculate_gelu<false, true> + gelu_init<false, true>: 0 for x <= -5.54259443, "
               "else s = min(x/sqrt2, 10), erf = n16/d16 parity rational (Horner in s^2, "
               "numerator times s) times sfpu_reciprocal<false> (_iter<2>, per chip), clamped "
               "to [-1, 1]; x*(0.5 + 0.5 erf), x*2^-25 where erf == -1; no rounding",
    description="ttnn.gelu (accurate) with an FP32 Dst, Jun - Sep 2026")

register_kernel(
    "gelu_derivative_fp32_2026_09", gelu_derivative_fp32_2026_09,
    init=gelu_derivative_2026_09_init, function="gelu_derivative", mode="accurate",
    dest="fp32", template="calculate_gelu_derivative_polynomial",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="gelu_derivative_2026_09",
    provenance=f"{_SOURCE}: calculate_gelu_derivative_polynomial<false, true> + "
               "gelu_derivative_polynomial_init<false>: the BF16 body with "
               "sfpu_reciprocal_iter<2> for 1/x^2 (per chip) and no final rounding",
    description="GELU derivative (accurate) with an FP32 Dst, Jun - Sep 2026")
