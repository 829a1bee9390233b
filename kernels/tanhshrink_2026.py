"""tanhshrink kernels as of 2026-09-30: BF16 Dst and FP32 Dst, ``x - tanh(x)`` in one SFPU pass.

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_tanhshrink.h``, ``calculate_tanhshrink<is_fp32_dest_acc_en, 32>`` with
``tanhshrink_init<APPROX, is_fp32_dest_acc_en>`` (the harness's calls). History, dated by the
review threads in the index:

* PR #47323 (issue #45520, reviewed 2026-06-17, merged June 2026; compile fix PR #47668,
  2026-06-22) replaced the LUT / ``x - tanh`` kernel (``calculate_tanhshrink<APPROX, fp32,
  ITERATIONS>``, index id 53336021619) by this one: ``x**3 Q(x**2)`` for |x| <= 1, ``x - tanh x``
  above. Its first draft (index id 55097299029: explicit Horner, the FP32 Dst's large path via
  ``_sfpu_tanh_fp32_accurate_``) was reworked in review (``PolynomialEvaluator``).
* PR #48925 dropped the FP32 path's reciprocal to one Newton step on Wormhole only (index id
  54512241308; issue #54430, 2026-08-26: up to 4,891 FP32 ulps); PR #55149 ("Restore tanhshrink
  Newton iterations to 2", merged 2026-09-02) put ``sfpu_reciprocal_iter<2>`` back, so on
  2026-09-30 both chips run the Blackhole text read at BH @3a41478432f3fd730808b9e3afffad755bc3231c
  (index id 54711934745): Wormhole's index id 54512241308 with that one line changed.
* Later stored revisions (WH index id 70813490888, BH @0107f3b8 = index id 71000632986) send the
  BF16 Dst to a generated ``calculate_tanhshrink_bf16`` (``ckernel_sfpu_tanhshrink_bf16.h``, a
  "bf16 cascade" of the tt_poly work, whose PRs were open and unmerged on 2026-09-18) and keep
  this FP32 body; not modelled (see /tmp/research/dispatch.md on the tt_poly branches).

Per element (both chips; only the exp tail and the reciprocal helper are per chip):

* ``u = x*x``; ``Q(u)`` by Horner (``PolynomialEvaluator::eval``, highest power first);
  ``result = (x*u)*Q`` (two SFPMADs), kept where |x| <= 1 (and for NaN, whose compare fails).
* |x| > 1, BF16 Dst: ``p(|x|)`` a degree-3 fit of tanh on [1, 3.3] (Horner), ``min(p, 1)``
  (SFPSWAP), sign of x, ``x - tanh``; the polynomial crosses 1 near 3.12, so +-Inf gives +-Inf.
* |x| > 1, FP32 Dst: ``a = min(|x|, 9)``; ``e = _sfpu_exp_fp32_accurate_unsafe_(-2a)`` (the
  Juffa exp with no overflow / underflow guards: the argument lies in [-18, -2]);
  ``sig = sfpu_reciprocal_iter<2>(1 + e)``; ``tanh|x| = 2 sig - 1`` (one SFPMAD);
  ``copysgn(|x| - tanh|x|, x)``.
* BF16 Dst: ``convert<vFloat16b>(result, Nearest)``; FP32 Dst: no rounding.

``tanhshrink_init``: the BF16 instantiation loads nothing; the FP32 one ``sfpu_reciprocal_init
<false>`` (Wormhole: the quadratic seed's Prgm0..2; Blackhole: Prgm0 = 2.0).
"""
from __future__ import annotations

from kernels.common import polyval
# The shared body of _sfpu_exp_fp32_accurate_; its ``unsafe`` tail is written out below.
from kernels.exp_2026 import exp_fp32_reduced
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (dst_reg, exexp_nodebias, float_to_fp16b, reinterpret, setexp, setsgn,
                           v_endif, v_if, vec_min_max, vFloat)

# Q(u) ~ (x - tanh x)/x**3 on [0, 1], u = x**2, ascending powers (PR #47323).
SMALL_Q_BF16 = (3.3329936862e-01, -1.3223160803e-01, 4.8076551408e-02, -1.0762925260e-02)
SMALL_Q_FP32 = (3.3333331347e-01, -1.3333128393e-01, 5.3934831172e-02, -2.1660288796e-02,
                8.2192532718e-03, -2.5107525289e-03, 4.2079269770e-04)
# tanh(|x|) on [1, 3.3], ascending powers of |x| (BF16 Dst's large path).
TANH_LARGE_BF16 = (6.1829000893e-02, 1.0561303143e+00, -4.0859283753e-01, 5.3348409333e-02)
SMALL_PATH_LIMIT = 1.0                  # |x| > 1 takes x - tanh(x)
EXP_ARGUMENT_CLAMP = 9.0                # tanh(9) rounds to 1 in FP32; -2|x| stays >= -18


def tanhshrink_fp32_init():
    """``tanhshrink_init<false, true>``: ``sfpu_reciprocal_init<false>()``."""
    reciprocal_init(False)


def _small_path(x, coefficients):
    """``x * u * Q(u)`` with ``u = x*x``: the factored odd polynomial, no cancellation."""
    u = x * x
    q = polyval(u, *coefficients)
    return x * u * q


def tanhshrink_2026_09():
    """One iteration of ``calculate_tanhshrink<false, 32>`` (BF16 Dst)."""
    x = dst_reg[0]
    ax = setsgn(x, 0)
    result = _small_path(x, SMALL_Q_BF16)
    with v_if(ax > SMALL_PATH_LIMIT):
        p = polyval(ax, *TANH_LARGE_BF16)
        one = vFloat(1.0)
        vec_min_max(p, one)                 # sfpi::min(p, 1.0f)
        result.assign(x - setsgn(p, x))
    v_endif()
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(result, 0))


def exp_fp32_accurate_unsafe(a):
    """``_sfpu_exp_fp32_accurate_unsafe_(a)`` = ``<unsafe=true>``: ``2**i r`` by SETEXP with
    no overflow, underflow or NaN handling (the same text on both chips)."""
    r, _, i = exp_fp32_reduced(a)
    return setexp(r, exexp_nodebias(r) + i)


def tanhshrink_fp32_2026_09():
    """One iteration of ``calculate_tanhshrink<true, 32>`` (FP32 Dst)."""
    x = dst_reg[0]
    ax = setsgn(x, 0)
    result = _small_path(x, SMALL_Q_FP32)
    with v_if(ax > SMALL_PATH_LIMIT):
        clamped = vFloat(ax)
        nine = vFloat(EXP_ARGUMENT_CLAMP)
        vec_min_max(clamped, nine)          # sfpi::min(axc, 9.0f)
        e = exp_fp32_accurate_unsafe(clamped * -2.0)
        sig = reciprocal(e + 1.0, 2)        # sigmoid(2|x|) = 1/(1 + e)
        tanh_ax = sig * 2.0 - 1.0
        # |x| again from x (the same SFPSETSGN value): keeping ``ax`` live through the
        # two-step reciprocal would need a ninth LReg here.
        result.assign(setsgn(setsgn(x, 0) - tanh_ax, x))
    v_endif()
    dst_reg[0] = result


_SOURCE = ("tt-metal ckernel_sfpu_tanhshrink.h calculate_tanhshrink<fp32, 32> (PR #47323, June "
           "2026; PR #55149, 2026-09-02, restored WH's sfpu_reciprocal_iter<2>; read BH "
           "@3a414784 = index id 54711934745 and WH index id 54512241308 with that line)")

register_kernel(
    "tanhshrink_2026_09", tanhshrink_2026_09, function="tanhshrink",
    mode="accurate", dest="bf16", template="calculate_tanhshrink",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=f"{_SOURCE}: |x| <= 1: x*x^2*Q(x^2), Q degree 3; |x| > 1: x - copysgn(min(p(|x|), "
               "1), x), p a degree-3 fit of tanh on [1, 3.3]; convert<vFloat16b>(., Nearest); "
               "tanhshrink_init loads nothing",
    description="ttnn.tanhshrink on a BF16 tensor, Jun - Sep 2026")

register_kernel(
    "tanhshrink_fp32_2026_09", tanhshrink_fp32_2026_09, init=tanhshrink_fp32_init,
    function="tanhshrink", mode="accurate", dest="fp32", template="calculate_tanhshrink",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="tanhshrink_2026_09",
    provenance=f"{_SOURCE}: |x| <= 1: x*x^2*Q(x^2), Q degree 6; |x| > 1: a = min(|x|, 9), "
               "e = _sfpu_exp_fp32_accurate_unsafe_(-2a) (Juffa, no guards), "
               "sfpu_reciprocal_iter<2>(1 + e) per chip, copysgn(|x| - (2 sig - 1), x); "
               "tanhshrink_init = sfpu_reciprocal_init<false>; no rounding",
    description="ttnn.tanhshrink with an FP32 Dst, Sep 2026")
