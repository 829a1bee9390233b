"""xIELU as of 2026-09-30: ``calculate_xielu<false, fp32, 32>(alpha_p, alpha_n)`` with
``xielu_init``, both Dst modes, as tt-llk's accuracy harness calls it (alpha_p = alpha_n = 1.0,
0x3f800000 each; beta = 0.5 is a literal in the kernel, not a parameter).

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_xielu.h`` (PR #38637, Feb 2026, and its fixes). Stored revisions read:

* WH @4bffcf33 (index id 51798890958) and BH @f329d561 (51816647005): the oldest, rounding with
  ``float_to_fp16b(., 0)``; BH's moderate branch there still evaluated ``expm1(x) - x`` as a
  full polynomial minus x.
* WH @06bd3735 (55121363640): ``convert<vFloat16b>(., NearestEven)`` (Mar - May 2026 sfpi
  spelling), the shared ``_xielu_mad_`` store helper, the ``x*x*P(x)`` moderate branch.
* BH @0a827b88 (58327662973): the newest (``RoundMode::Nearest``, May 2026 or later), the same
  arithmetic plus PR #52608's guard (merged Aug 2026, fixing #52607 measured on a Wormhole
  N300: ``setexp`` is only applied where ``exexp(p) + k >= 1``, else exp(x) = 0). The PR was
  written against the Wormhole file and its text is the comment in this BH revision, but no
  stored WH revision carries the guard: it is inferred for Wormhole, and the table confirms it
  (without it x in about [-91, -88] gives outputs near -2**127, 49,219 BF16 steps at x = -90.5
  against the table's 13,575; tests/test_kernels_xielu_2026.py). Both chips run one program.
* Not modelled: an undated rewrite (index id 65804673157, path unknown) that returns 0 for
  x <= -88 before the range reduction, and PR #54107 (closed, unmerged) that drops the clamp.

Per datum: ``b = 0.5*x``; then a v_if chain, each arm ending in ``_xielu_mad_(a, m, b)`` = one
SFPMAD ``a*m + b``, ``convert<vFloat16b>(., Nearest)`` (SFP_STOCH_RND to nearest) when
``is_fp32_dest_acc_en`` is false, SFPSTORE:

* ``x > 0``: ``(alpha_p*x)*x + b``;
* ``x >= Prgm1`` (-1e-6): ``alpha_n*(Prgm2 - x) + b`` with Prgm2 = -9.999995427e-7, a constant
  standing in for expm1(x): **x in [-1e-6, 0] (and +0) give about -1e-6 - x/2, not x/2**, the
  table's figures (a golden of about x/2, flushed to 0 at the smallest normals, against
  -1e-6: 13,575 BF16 steps);
* ``x > -0.5``: ``alpha_n*((x*x)*P(x)) + b``, P a degree-5 Sollya fit of (expm1(x) - x)/x**2;
* else: ``alpha_n*((e - 1) - x) + b`` with ``e = _sfpu_neg_exp_f32_(x)``: z = x*Prgm0 (1/ln 2)
  clamped below at -126.5, k = round(z) by 1.5*2**23, Cody-Waite r = x - k ln 2 (two parts),
  degree-7 Taylor polynomial, exponent field += k (guarded). Below x ~ -87.7 k stays at -126
  and r grows, so the polynomial is garbage there; it only matters where the guard lets a
  value through, and -x dominates the sum.
"""
from __future__ import annotations

import numpy as np

from kernels.common import polyval
from kernels.exp import F32_INV_LN2, F32_LN2_HI, F32_LN2_LO, F32_TAYLOR, round_nearest_int32
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    dst_reg,
    exexp_nodebias,
    float_to_fp16b,
    reinterpret,
    setexp,
    v_else,
    v_elseif,
    v_endif,
    v_if,
    vConst0,
    vConstFloatPrgm0,
    vConstFloatPrgm1,
    vConstFloatPrgm2,
    vec_min_max,
    vFloat,
)

ALPHA_P = ALPHA_N = 1.0                  # the harness's arguments, 0x3f800000
BETA = 0.5                               # a literal of calculate_xielu
EPS = float(np.float32(-1e-6))           # xielu_init: Prgm1, the "very small negative" edge
EXPM1_EPS = float(np.float32(-0.0000009999995427))    # Prgm2, expm1(eps)
UNDERFLOW_THRESHOLD = -126.5             # the clamp on z = x / ln 2
# (expm1(x) - x)/x**2 on [-0.5, 0], ascending powers (Sollya fpminimax, single precision).
MODERATE_POLY = (0.500000059604644775390625, 0.16666667163372039794921875,
                 4.16650883853435516357421875e-2, 8.333188481628894805908203125e-3,
                 1.400390756316483020782470703125e-3, 1.99588379473425447940826416015625e-4)


def xielu_init():
    """``xielu_init<false>`` (Blackhole also resets the Dst counters first)."""
    vConstFloatPrgm0.assign(F32_INV_LN2)
    vConstFloatPrgm1.assign(EPS)
    vConstFloatPrgm2.assign(EXPM1_EPS)


def neg_exp_f32(val, guard_underflow: bool = True):
    """``_sfpu_neg_exp_f32_(val)``: exp(val) for negative val (module docstring). Without
    ``guard_underflow`` it is the revisions before PR #52608 (kept to show the table rules
    them out)."""
    result = vFloat(vConst0)
    z = val * vConstFloatPrgm0
    bound = vFloat(UNDERFLOW_THRESHOLD)
    vec_min_max(bound, z)                         # z = max(z, -126.5)
    k, k_int = round_nearest_int32(z)
    r = k * F32_LN2_HI + val
    r = k * F32_LN2_LO + r
    p = polyval(r, *F32_TAYLOR)
    new_exp = exexp_nodebias(p) + k_int
    if guard_underflow:
        with v_if(new_exp >= 1):                  # else exp(val) is below FP32's normals: 0
            result.assign(setexp(p, new_exp))
        v_endif()
    else:
        result = setexp(p, new_exp)               # a new_exp <= 0 wraps to a huge exponent
    return result


def _store(mul_a, mul_b, addend, round_to_bf16: bool):
    """``_xielu_mad_``: one SFPMAD, rounded to BF16 at a 16-bit Dst, stored."""
    result = mul_a * mul_b + addend
    if round_to_bf16:
        result = reinterpret(vFloat, float_to_fp16b(result, 0))
    dst_reg[0] = result


def _xielu(round_to_bf16: bool, guard_underflow: bool = True):
    """One iteration of ``calculate_xielu`` (module docstring)."""
    alpha_p, alpha_n = vFloat(ALPHA_P), vFloat(ALPHA_N)
    x = dst_reg[0]
    beta_mul_x = BETA * x
    with v_if(x > 0.0):
        _store(alpha_p * x, x, beta_mul_x, round_to_bf16)
    with v_elseif(x >= vConstFloatPrgm1):
        _store(alpha_n, vConstFloatPrgm2 - x, beta_mul_x, round_to_bf16)
    with v_elseif(x > -0.5):
        square = x * x
        _store(alpha_n, square * polyval(x, *MODERATE_POLY), beta_mul_x, round_to_bf16)
    with v_else():
        exp_term = neg_exp_f32(x, guard_underflow) - 1.0 - x
        _store(alpha_n, exp_term, beta_mul_x, round_to_bf16)
    v_endif()


def xielu_2026_09():
    """One iteration of ``calculate_xielu<false, false>(1.0, 1.0)``."""
    _xielu(round_to_bf16=True)


def xielu_fp32_2026_09():
    """One iteration of ``calculate_xielu<false, true>(1.0, 1.0)``: no rounding."""
    _xielu(round_to_bf16=False)


PROVENANCE = (
    "tt-metal ckernel_sfpu_xielu.h calculate_xielu<false, {fp32}>(1.0, 1.0) + xielu_init "
    "(WH @06bd3735 id 55121363640 with PR #52608's new_exp >= 1 guard as in BH @0a827b88 id "
    "58327662973, Aug-Sep 2026): x > 0: x*x + x/2; x >= -1e-6: (-9.999995427e-7 - x) + x/2; "
    "x > -0.5: x^2 P5(x) + x/2; else (exp(x) - 1 - x) + x/2 with the clamped Cody-Waite "
    "degree-7 Taylor exp; {rounding}")

register_kernel(
    "xielu_2026_09", xielu_2026_09, init=xielu_init, function="xielu", mode="accurate",
    dest="bf16", template="calculate_xielu",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=PROVENANCE.format(fp32="false", rounding="convert<vFloat16b>(., Nearest)"),
    description="the harness's Xielu row (alpha_p = alpha_n = 1, beta 0.5) on a 16-bit Dst, "
                "Sep 2026")
register_kernel(
    "xielu_fp32_2026_09", xielu_fp32_2026_09, init=xielu_init, function="xielu",
    mode="accurate", dest="fp32", template="calculate_xielu",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="xielu_2026_09",
    provenance=PROVENANCE.format(fp32="true", rounding="no rounding"),
    description="the harness's Xielu row (alpha_p = alpha_n = 1, beta 0.5) on an FP32 Dst, "
                "Sep 2026")
