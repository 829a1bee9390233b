"""softplus kernels (tt-metal ``ckernel_sfpu_softplus.h``, Jan, Apr and Sep 2026).

All with ttnn's defaults beta = 1, threshold = 20 (the three runtime parameters of
``calculate_softplus(param0, param1, param2)``: beta, 1/beta, threshold as FP32 bits); the
reference function ``softplus`` is log(1 + e^x) (beta 1, no threshold), which rounds to x in BF16
for every x >= 20 anyway. ``beta * dst_reg[0]`` and ``beta_reciprocal * sp`` are kept as the
SFPMULs by 1.0 the device executes.

``softplus``: Jan 2026, PR #33766 (issue #32879, merged ~Jan 2026; index revision 302964281),
tt-metal ``ckernel_sfpu_softplus.h``: ``t = beta * x``; where ``t < threshold``:
``dst = (1/beta) * softplus(t)`` with ``softplus(t)`` = ``t`` for ``t >= 4``, a degree-8 Horner
in ``t`` (0.6924354434013367, ...) for ``-5 <= t < 4``, ``_sfpu_exp_21f_<false>(t)`` (exp_21f
*with* its BF16 rounding: ``calculate_softplus_body`` calls ``softplus(x)`` with the template's
default ``is_fp32_dest_acc_en = false``) for ``t < -5``; elsewhere Dst keeps x. No final
rounding (truncating SFPSTORE).

``softplus_2026_04``: PR #42115 (merged Apr 2026; index revision 52533704051, which matches the
PR's description: vec_min_max reconstruction, exp_21f BF16 tail, RN rounding), BF16 arm:
``a = setsgn(t, 0)``; degree-8 residual ``f(a) = ln(1 + e^-a)`` on [0, 5]; for ``a > 5``
``f = _sfpu_exp_21f_bf16_<false>(-a)`` (rounded exp_21f); ``t = max(t, 0)`` (``vec_min_max``);
``sp = t + f``; ``float_to_fp16b((1/beta) * sp, 0)``.

``softplus_2026_09``: the Sep-2026 BF16 arm (index revision 54549511198):
degree-6 residual fit (6.9423984729e-01, ...) on ``a = |t|``; for ``a > 5`` the residual is set
to 0 -- for ``t < -5`` that makes softplus exactly 0 (issue #51866, the documented defect); then
``t = max(t, 0)`` (sfpi ``max``, lowered here as the ``vec_min_max`` SFPSWAP),
``sp = t + residual``, ``float_to_fp16b((1/beta) * sp, 0)``.
"""
from __future__ import annotations

from kernels.common import polyval
from kernels.exp import exp_21f
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    dst_reg,
    float_to_fp16b,
    reinterpret,
    setsgn,
    v_elseif,
    v_endif,
    v_if,
    vec_min_max,
    vFloat,
)

BETA, BETA_RECIPROCAL, THRESHOLD = 1.0, 1.0, 20.0
SOFTPLUS_POLY_BOUNDARY = 5.0

# Jan 2026 (PR #33766): softplus(t) on [-5, 4), degree 8 in t, ascending
SOFTPLUS_JAN_POLY = (0.6924354434013367, 0.49275708198547363, 0.12142381817102432,
                     0.0031102809589356184, -0.00330807245336473, -0.00028794066747650504,
                     5.3185409342404455e-05, 7.1853546614875086e-06, 7.4961114648886e-08)

# Apr 2026 (PR #42115): residual f(a) = ln(1 + exp(-a)) on [0, 5], degree 8, ascending
SOFTPLUS_POLY = (6.9310557842e-01, -4.9926245213e-01, 1.2186349183e-01, 5.6753782555e-03,
                 -1.0528374463e-02, 2.7290175203e-03, -3.4358495031e-04, 2.1285692128e-05,
                 -4.8245715334e-07)

# Sep 2026 BF16 residual f(a) = ln(1 + exp(-a)) on [0, 5], degree 6, ascending
SOFTPLUS_BF16_POLY = (6.9423984729e-01, -5.0932420424e-01, 1.4279095486e-01,
                      -1.3000584069e-02, -1.8627923291e-03, 5.0152968088e-04,
                      -3.1273466851e-05)


def softplus_jan(x):
    """PR #33766 ``softplus<false>(x)``: x for x >= 4, the degree-8 fit on [-5, 4), the
    (rounded) exp_21f below -5."""
    result = vFloat(x)
    with v_if(x < -5.0):
        result.assign(exp_21f(x, round_to_bf16=True))
    with v_elseif(x < 4.0):
        result.assign(polyval(x, *SOFTPLUS_JAN_POLY))
    v_endif()
    return result


def softplus():
    """One iteration of the Jan-2026 ``calculate_softplus_body`` (beta 1, threshold 20)."""
    x = BETA * dst_reg[0]
    with v_if(x < THRESHOLD):
        dst_reg[0] = BETA_RECIPROCAL * softplus_jan(x)
    v_endif()


def softplus_2026_04():
    """One iteration of PR #42115's ``calculate_softplus_body<APPROX, false>`` (BF16 arm)."""
    val = dst_reg[0]
    t = BETA * val
    with v_if(t < THRESHOLD):
        a = setsgn(t, 0)
        residual = polyval(a, *SOFTPLUS_POLY)
        neg_a = setsgn(a, 1)
        with v_if(a > SOFTPLUS_POLY_BOUNDARY):
            residual.assign(exp_21f(neg_a, round_to_bf16=True))
        v_endif()
        zero_threshold = vFloat(0.0)
        vec_min_max(zero_threshold, t)              # t = max(t, 0)
        sp = t + residual
        result = BETA_RECIPROCAL * sp
        result = reinterpret(vFloat, float_to_fp16b(result, 0))
        dst_reg[0] = result
    v_endif()


def softplus_2026_09():
    """One iteration of the Sep-2026 ``calculate_softplus_body<APPROX, false>`` (BF16 arm)."""
    val = dst_reg[0]
    t = BETA * val
    with v_if(t < THRESHOLD):
        a = setsgn(t, 0)
        residual = polyval(a, *SOFTPLUS_BF16_POLY)
        with v_if(a > SOFTPLUS_POLY_BOUNDARY):
            residual.assign(0.0)
        v_endif()
        zero = vFloat(0.0)
        vec_min_max(zero, t)                        # t = max(t, 0)
        sp = t + residual
        result = BETA_RECIPROCAL * sp
        result = reinterpret(vFloat, float_to_fp16b(result, 0))
        dst_reg[0] = result
    v_endif()


register_kernel(
    "softplus", softplus, function="softplus", mode="accurate", dest="bf16",
    provenance="tt-metal ckernel_sfpu_softplus.h, PR #33766 (issue #32879, merged ~Jan 2026): "
               "beta 1, threshold 20; t < -5: exp_21f<false> (rounded), [-5, 4): degree-8 fit, "
               "t >= 4: t; no final rounding",
    description="ttnn.softplus default on a BF16 tensor (Jan 2026)")

register_kernel(
    "softplus_2026_04", softplus_2026_04, function="softplus", mode="accurate", dest="bf16",
    provenance="tt-metal ckernel_sfpu_softplus.h, PR #42115 (merged Apr 2026), BF16 arm: "
               "degree-8 residual ln(1+e^-|t|) on [0, 5], exp_21f<false>(-|t|) beyond, "
               "max(t, 0) + residual, float_to_fp16b(, 0); beta 1, threshold 20",
    description="ttnn.softplus (BF16) Apr - ~Jul 2026: symmetric residual form")

register_kernel(
    "softplus_2026_09", softplus_2026_09, function="softplus", mode="accurate", dest="bf16",
    template="calculate_softplus", params={"APPROXIMATION_MODE": False},
    provenance="tt-metal ckernel_sfpu_softplus.h calculate_softplus_body, Sep 2026 BF16 arm "
               "(degree-6 residual fit, residual 0 for |beta x| > 5: issue #51866), beta 1, "
               "threshold 20, float_to_fp16b(, 0)",
    description="ttnn.softplus (BF16) in Sep 2026, with its t < -5 -> 0 defect")
