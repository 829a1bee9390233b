"""sigmoid and silu kernels as of 2026-09-30, BF16 Dst and FP32 Dst (the stock sfpi paths).

Sources: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/``:

* ``ckernel_sfpu_sigmoid.h``: WH @02d4b1df (index id 70293346061) and BH in PR #57292's branch
  (index id 68364636947, opened 2026-09-22 on main a406ad5c). Both hold the same
  ``_sfpu_sigmoid_<is_fp32_acc_to_dest_mode>`` and the same stock loop of ``calculate_sigmoid``
  (``_sfpu_sigmoid_``, then ``convert<vFloat16b>(., Nearest)`` for a BF16 Dst). What each adds in
  front of it is not modelled, on purpose:

  - WH @02d4b1df calls a generated ``calculate_sigmoid_bf16`` when ``ITERATIONS == 32``, BF16
    Dst, not approximate and ``bf16_dest_sigmoid()`` (srcB Float16_b). That is the "tt_poly"
    family of issue #49435, whose sigmoid PR #57076 was still open on 2026-09-18, like its
    siblings #55283 / #56946 / #57030. The budget's Erfinv row (whole-format 14704 steps)
    matches the stock erfinv, not #55283's (0.83 ULP), so the tt_poly branches are
    taken as absent from tt-metal @01d9b424; the budget's 1-step BF16 sigmoid figure is what
    the stock path predicts (tests).
  - BH PR #57292 adds a fast SFPARECIP body for ``ITERATIONS == 8`` only; the harness calls
    ``calculate_sigmoid<false, fp32, 32>``, so the stock loop runs there too.

  ``sigmoid_init<APPROX, is_fp32_dest_acc_en = true>`` (the harness passes only APPROX):
  ``reset_counters`` and the reciprocal init (WH ``recip_init<false, false>`` ->
  ``sfpu_reciprocal_init<false>``: the Sollya seed in Prgm0..2; BH Prgm0 = 2.0).
* ``ckernel_sfpu_silu.h``: the two-parameter ``calculate_silu<is_fp32_dest_acc_en, ITERATIONS>``
  the harness calls (sfpu_operations.h after PR #53918, 2026-08-21) with the plain body
  ``x * _sfpu_sigmoid_<fp32>(x)``, ``convert<vFloat16b>(., Nearest)`` for a BF16 Dst (index id
  54712570193; ``silu_init`` = the reciprocal init). Two other stored revisions with the same
  signature are the open fixes of issue #55711 (2026-09-08, open): PR #55714 (opened
  2026-09-08, open; x < -87.3365: exp at ``-x - 44``, numerator ``x * e**-44``, index id
  66445768617) and PR #56355 (opened 2026-09-12, open; x <= -87: ``x * exp(x)``, index id
  67480106380). The table rules out #55714 (it would keep the x = -87.5 lane: 1 BF16 step, not
  790); #56355 would predict the same six figures on Wormhole (its exp_21f(x) flushes from
  -87.34 down as the reciprocal does), so it is ruled out by its open state only.
* ``ckernel_sfpu_recip.h`` (WH index id 54781757300): ``sfpu_reciprocal_iter<n>`` is tt-llk's
  ``_sfpu_reciprocal_<n>`` unchanged (same SFPMAD order, same constants): reused from
  :mod:`kernels.reciprocal`. BH: SFPARECIP + guarded Newton steps, the same as tt-llk's.
* ``ckernel_sfpu_exp.h``: ``_sfpu_exp_21f_bf16_<true>`` (no rounding) for a BF16 Dst; for an
  FP32 Dst ``_sfpu_exp_accurate_<true>`` = ``_sfpu_exp_fp32_accurate_<false>`` (Juffa,
  :func:`kernels.exp_2026.exp_fp32_accurate`). The exp_21f body: ``xlog2 = x/ln 2 + 127``
  clamped to [0, 255] (``sfpi::clamp``), integer part into the exponent field, the fraction
  through ``1.0017248 + f*(7.84e-8 + f*4.79e-15)``. Wormhole's revision @0273d5a6 (index id
  71303379555) then saturates the lane with exponent field 255 (x <= -88.72 here) to +Inf,
  where the clamp alone gives the NaN pattern 0x7F803885; Blackhole's revision on main
  a406ad5c (index id 68752158473, PR #57292's branch) has no such fix. Either way sigmoid is
  +0 there on Wormhole (its reciprocal maps exponent 255 to a zero scale); on Blackhole the NaN
  pattern goes through SFPARECIP and the rounding, which in this emulator also give +0.

Kernels:

* ``sigmoid_2026_09`` (BF16 Dst): ``e = exp_21f(-x)`` unrounded, ``1 + e``,
  ``sfpu_reciprocal_iter<1>``, ``convert<vFloat16b>(., Nearest)``. Blackhole: the instruction
  stream of Jan 2026's ``sigmoid`` (kernels/sigmoid.py); Wormhole: that plus the saturation
  fix, which changes no BF16 output (tests).
* ``sigmoid_fp32_2026_09`` (FP32 Dst): ``e = exp_fp32_accurate(-x)`` (per chip),
  ``sfpu_reciprocal_iter<2>``, no rounding. Differs from Jan 2026's ``sigmoid_fp32``, whose exp
  was PR #33563's ``_sfpu_exp_f32_accurate_``.
* ``silu_2026_09`` / ``silu_fp32_2026_09``: ``x * sigmoid`` from the same bodies (unrounded),
  then ``convert<vFloat16b>(., Nearest)`` for the BF16 Dst.

Approximate mode (``calculate_sigmoid<true, ...>`` -> ``calculate_sigmoid_appx<32>``,
``sigmoid_appx_init``) is kernels/sigmoid.py's ``sigmoid_approx``: see the tests.
"""
from __future__ import annotations

import math

from kernels.common import polyval
from kernels.exp import EXP21F_ONE_LN2, EXP21F_POLY, exp_21f, float_to_int32_for_exp21f
from kernels.exp_2026 import exp_fp32_accurate
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (dst_reg, exexp_nodebias, exman9, float_to_fp16b, int32_to_float,
                           per_chip, reinterpret, setexp, v_endif, v_if, vConst1, vec_min_max,
                           vFloat)

SATURATED_EXPONENT = 255              # exponent field reached only from the clamp's 255


def sigmoid_init():
    """``sigmoid_init<false>``: the reciprocal constants of the chip."""
    reciprocal_init(False)


def _exp_21f_unrounded_wormhole(val):
    """``_sfpu_exp_21f_bf16_<true>(val)``, Wormhole @0273d5a6: exp_21f with the exponent-255
    lanes set to +Inf; no rounding."""
    xlog2 = val * EXP21F_ONE_LN2 + 127.0
    low = vFloat(0.0)
    high = vFloat(255.0)
    vec_min_max(low, xlog2)                     # sfpi::clamp: max with 0 ...
    vec_min_max(xlog2, high)                    # ... then min with 255
    z = reinterpret(vFloat, float_to_int32_for_exp21f(xlog2))
    exponential_part = exexp_nodebias(z)
    frac = int32_to_float(exman9(z), 0)
    frac = polyval(frac, *EXP21F_POLY)
    y = setexp(frac, exponential_part)
    with v_if(exponential_part >= SATURATED_EXPONENT):
        y.assign(math.inf)
    v_endif()
    return y


def _exp_21f_unrounded_blackhole(val):
    """``_sfpu_exp_21f_bf16_<true>(val)``, Blackhole (main a406ad5c): the clamp alone."""
    return exp_21f(val, round_to_bf16=False)


exp_21f_unrounded = per_chip(wormhole=_exp_21f_unrounded_wormhole,
                             blackhole=_exp_21f_unrounded_blackhole)


def sfpu_sigmoid(x, fp32: bool):
    """``_sfpu_sigmoid_<fp32>(x)`` (Sep 2026): ``1 / (1 + exp(-x))``, unrounded."""
    exp_neg_x = exp_fp32_accurate(-x) if fp32 else exp_21f_unrounded(-x)
    denominator = vConst1 + exp_neg_x
    return reciprocal(denominator, 2 if fp32 else 1)


def _rounded_to_bf16(value):
    """``convert<vFloat16b>(value, RoundMode::Nearest)`` (SFP_STOCH_RND nearest)."""
    return reinterpret(vFloat, float_to_fp16b(value, 0))


def sigmoid_2026_09():
    """One iteration of ``calculate_sigmoid<false, false, 32>`` (stock path)."""
    dst_reg[0] = _rounded_to_bf16(sfpu_sigmoid(dst_reg[0], fp32=False))


def sigmoid_fp32_2026_09():
    """One iteration of ``calculate_sigmoid<false, true, 32>``."""
    dst_reg[0] = sfpu_sigmoid(dst_reg[0], fp32=True)


def silu_2026_09():
    """One iteration of ``calculate_silu<false, 32>``."""
    x = dst_reg[0]
    dst_reg[0] = _rounded_to_bf16(x * sfpu_sigmoid(x, fp32=False))


def silu_fp32_2026_09():
    """One iteration of ``calculate_silu<true, 32>``."""
    x = dst_reg[0]
    dst_reg[0] = x * sfpu_sigmoid(x, fp32=True)


_SIGMOID_H = ("tt-metal ckernel_sfpu_sigmoid.h stock calculate_sigmoid loop (WH @02d4b1df, index "
              "id 70293346061, its tt_poly bf16 shortcut of PR #57076 not modelled; BH PR "
              "#57292's branch on main a406ad5c, 2026-09-22, index id 68364636947, its "
              "ITERATIONS == 8 fast body not taken)")

register_kernel(
    "sigmoid_2026_09", sigmoid_2026_09, init=sigmoid_init, function="sigmoid",
    mode="accurate", dest="bf16", template="calculate_sigmoid",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=_SIGMOID_H + ": _sfpu_exp_21f_bf16_<true>(-x) (clamp [0, 255]; WH @0273d5a6 "
               "exponent-255 -> +Inf fix, BH without), 1 + e, sfpu_reciprocal_iter<1>, "
               "convert<vFloat16b>(., Nearest); sigmoid_init<false> = reciprocal init",
    description="ttnn.sigmoid (accurate) on a BF16 Dst, Sep 2026 (same bits as Jan 2026)")

register_kernel(
    "sigmoid_fp32_2026_09", sigmoid_fp32_2026_09, init=sigmoid_init, function="sigmoid",
    mode="accurate", dest="fp32", template="calculate_sigmoid",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="sigmoid_2026_09",
    provenance=_SIGMOID_H + ": _sfpu_exp_accurate_<true>(-x) = _sfpu_exp_fp32_accurate_ (Juffa, "
               "per chip, kernels/exp_2026.py), 1 + e, sfpu_reciprocal_iter<2>, no rounding",
    description="ttnn.sigmoid (accurate) with an FP32 Dst, Jul - Sep 2026")

_SILU_H = ("tt-metal ckernel_sfpu_silu.h calculate_silu<fp32, ITERATIONS> plain body (index id "
           "54712570193; issue #55711's tail fixes, PRs #55714 / #56355, open on 2026-09-30) over "
           "ckernel_sfpu_sigmoid.h's _sfpu_sigmoid_ (WH @02d4b1df, BH PR #57292's branch on main "
           "a406ad5c)")

register_kernel(
    "silu_2026_09", silu_2026_09, init=sigmoid_init, function="silu", mode="accurate",
    dest="bf16", template="calculate_silu", params={"is_fp32_dest_acc_en": False},
    provenance=_SILU_H + ": x * (1/(1 + exp_21f(-x)) by sfpu_reciprocal_iter<1>, unrounded; WH "
               "exponent-255 fix), convert<vFloat16b>(., Nearest); silu_init = reciprocal init",
    description="ttnn.silu on a BF16 Dst, Sep 2026 (single rounding)")

register_kernel(
    "silu_fp32_2026_09", silu_fp32_2026_09, init=sigmoid_init, function="silu",
    mode="accurate", dest="fp32", template="calculate_silu", params={"is_fp32_dest_acc_en": True},
    instance_of="silu_2026_09",
    provenance=_SILU_H + ": x * (1/(1 + exp_fp32_accurate(-x)) by sfpu_reciprocal_iter<2>), "
               "no rounding",
    description="ttnn.silu with an FP32 Dst, Jul - Sep 2026")
