"""mish kernels as of 2026-09-30, BF16 Dst and FP32 Dst: one fused SFPU kernel, per-chip bodies.

``mish_2026_09``: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/
llk_api/llk_sfpu/ckernel_sfpu_mish.h``, ``calculate_mish<false, is_fp32_dest_acc_en=false>`` with
``mish_init<false>`` (the compute API passes the caller's APPROXIMATION_MODE through; the
accurate mode is modelled). PR #44985 (mcw-anasuya, "Migrate mish to LLK and improve performance
and accuracy", issue #39360; opened 2026-05-22, approved 2026-05-25, merged, the stored thread
gives no merge date) replaced the exp -> log1p -> tanh -> multiply tile chain by one kernel on
the identity ``tanh(softplus x) = u(u + 2) / ((1 + u)**2 + 1)``, ``u = exp(x)``; Wormhole and
Blackhole form the quotient differently.

Algorithm (both chips):

* ``x >= 8`` (and +Inf): ``x`` unchanged (the ``v_if(x < 8)`` default).
* ``u = _sfpu_exp_accurate_<false>(x)`` = ``_sfpu_exp_21f_bf16_<false>(x)``: exp_21f with the
  ``xlog2`` clamp to [0, 255] and the result rounded to BF16 (:func:`kernels.exp.exp_21f`; read
  in PR #57292's BH exp header, index id 68752158473, and WH @0273d5a6, index id 71303379555,
  whose extra exponent-255 saturation fix cannot be reached from ``x < 8``).
* ``denom = (u + 1)**2 + 1``; ``inv = sfpu_reciprocal_iter<1>(denom)`` (Blackhole SFPARECIP +
  one guarded Newton step, Prgm0 = 2.0; Wormhole the quadratic seed in Prgm0..2 + one Newton
  step: :func:`kernels.reciprocal.reciprocal`); ``mish_init`` loads those constants.
* Wormhole: ``x * (u(u + 2) * inv)`` for every ``x < 8``.
  Blackhole: ``x * (1 - 2*inv)`` where ``x >= 0`` (raw sign; the product fuses into one SFPMAD),
  ``x * (u(u + 2) * inv)`` where ``x < 0`` (the rearrangement keeps SFPARECIP's error from being
  amplified by ``x``).
* ``convert<vFloat16b>(result, Nearest)``.

Below x = -87.34 (``xlog2 < 1``) exp_21f's result is a denormal pattern, flushed by its rounding,
so every BF16 input from -87.5 down returns 0 (issue #55711, 2026-09-08, open).

Dating, Blackhole: the ``x * (1 - 2*inv)`` body is read at BH
@37a00b8296bc76d49836650a19141c3e124d952a (index id 54770851460; ``u + vConst1``, the spelling
PR #44985's review asked for), in the BH file of PR #55714's branch (index id 66550564471;
opened 2026-09-08 on main, open and unmerged), whose body apart from its added tail is the same
(``u + 1.0f``: the same constant register, the same bits), and in a later BH revision that hoists
the exp constants into LRegs (index id 70536531241, Blackhole by its init, which puts 1/ln 2 in
Prgm1 where Wormhole keeps a reciprocal seed constant; its ``_sfpu_exp_21f_bf16_prgm_`` is not
readable here). That hoisting is not in PR #57292's BH sigmoid fallback (index id 68364636947,
opened 2026-09-22 on main a406ad5c), so it came later if at all; its sigmoid sibling (index id
70694105745) states the same arithmetic with only the constants moved, so either way Blackhole
computes this body on 2026-09-30. PR #55714 changes both chips at once, and the Wormhole budget
below shows it was not on main on 2026-09-30. The older ``x - 2x*inv`` form (index id
55147717177) calls ``_sfpu_reciprocal_<1>``, the name the June-2026 reciprocal API migration
replaced by ``sfpu_reciprocal_iter`` (PR #47668, 2026-06-22, fixed the migration's leftovers):
it is older, superseded and not modelled (in this emulator it differs from this body on the
128 inputs in [2**-126, 2**-125), where its ``2x*inv`` flushes and leaves ``x``, while
``x*(1 - 2*inv)`` flushes to 0).

Dating, Wormhole: the ``x * (u(u + 2) * inv)`` body is read at WH
@e3872136309d48e22d731b73d963d9c0d4f623bd (index id 54537878847), WH
@13e8272ec92aec11521a193285fd47262f7f9675 (index id 67290238002, the later ``mish_init<APPROX>``
with ``reset_counters``) and in PR #55714's WH branch file (index id 66658934609, opened
2026-09-08 on main); no stored Wormhole revision has the split. tt-llk's budget (tt-metal
@01d9b424, ``sfpu_accuracy_budget.yaml``) records Mish Float16_b -> Float16_b, dest_acc No, max
790 steps with approx No and Yes, measured on Wormhole 2026-09-30: this kernel reproduces it
exactly (the lane x = -87.5, flushed to 0), so Wormhole's main did not yet carry PR #55714's tail
fix on that date. The Wormhole reciprocal seed is the Sollya minimax one the header documents
(as in kernels/erf_2026.py); the refit seed of two undated revisions moves 6 outputs by one step
(tests).

``mish_fp32_2026_09`` (``calculate_mish<false, true>``, the same files and the same init): the
same body with ``u = _sfpu_exp_accurate_<true>(x)`` = ``_sfpu_exp_fp32_accurate_`` (Norbert
Juffa's Cody-Waite + degree-7 exp, no rounding; its per-chip guarded tail is
:func:`kernels.exp_2026.exp_fp32_accurate`), ``sfpu_reciprocal_iter<2>`` and no final rounding.
Below x = -87.34 the exp underflows to 0 (its exponent test ``e < 1``), so the result is 0 where
``x e**x`` is still a normal FP32 value down to about -91.8: the table's tail figures.

PR #44985 publishes BF16 ULP histograms of its own kernels under its own convention (a torch
golden, fractional ULP, all 65,536 patterns); this emulator's conventions do not reproduce them
and they are not used as pins.
"""
from __future__ import annotations

from kernels.exp import exp_21f
from kernels.exp_2026 import exp_fp32_accurate
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (dst_reg, float_to_fp16b, per_chip, reinterpret, v_else, v_endif, v_if,
                           vFloat)

SAT_HI = 8.0                        # x >= 8: mish(x) taken as x


def mish_init():
    """``mish_init<false>``: ``sfpu_reciprocal_init<false>()`` (Wormhole: the quadratic seed's
    three constants; Blackhole: Prgm0 = 2.0); exp_21f needs none."""
    reciprocal_init(False)


def _times_tanh_softplus_wormhole(x, u, reciprocal_iterations: int = 1):
    """Wormhole: ``x * (u(u + 2) * 1/((u + 1)**2 + 1))``, numerator first as in the source."""
    numer = u * (u + 2.0)
    one_plus_u = u + 1.0
    denom = one_plus_u * one_plus_u + 1.0
    inv_denom = reciprocal(denom, reciprocal_iterations)
    return x * (numer * inv_denom)


def _times_tanh_softplus_blackhole(x, u, reciprocal_iterations: int = 1):
    """Blackhole: ``x * (1 - 2/denom)`` for x >= 0, the quotient form for x < 0."""
    one_plus_u = u + 1.0
    denom = one_plus_u * one_plus_u + 1.0
    inv_denom = reciprocal(denom, reciprocal_iterations)
    result = vFloat(0.0)
    with v_if(x >= 0.0):
        result.assign(x * (1.0 - 2.0 * inv_denom))
    with v_else():
        numer = u * (u + 2.0)
        result.assign(x * (numer * inv_denom))
    v_endif()
    return result


# ``x * tanh(softplus(x))`` from ``u = exp(x)``, per chip (the chips' sources differ here);
# ``sfpu_reciprocal_iter<1>`` with a BF16 Dst, ``<2>`` with an FP32 Dst.
times_tanh_softplus = per_chip(wormhole=_times_tanh_softplus_wormhole,
                               blackhole=_times_tanh_softplus_blackhole)


def mish_2026_09():
    """One iteration of ``calculate_mish<false, false>``."""
    x = dst_reg[0]
    result = vFloat(x)
    with v_if(x < SAT_HI):
        u = exp_21f(x, True)
        result.assign(times_tanh_softplus(x, u))
    v_endif()
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(result, 0))


register_kernel(
    "mish_2026_09", mish_2026_09, init=mish_init, function="mish", mode="accurate",
    dest="bf16",
    template="calculate_mish", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance="tt-metal ckernel_sfpu_mish.h calculate_mish<false, false> + mish_init (PR "
               "#44985, May 2026; read BH @37a00b82, WH @e3872136 / @13e8272e, and PR #55714's "
               "branch files on main 2026-09-08; WH reproduces tt-llk's 2026-09-30 budget, 790): "
               "x for x >= 8, else u = exp_21f rounded to BF16, sfpu_reciprocal_iter<1> of "
               "(u + 1)^2 + 1; WH x*u(u + 2)*inv, BH x*(1 - 2inv) for x >= 0; "
               "convert<vFloat16b>(., Nearest)",
    description="ttnn.mish (accurate) on a BF16 tensor, Jun - Sep 2026")


def mish_fp32_2026_09():
    """One iteration of ``calculate_mish<false, true>``: u = ``_sfpu_exp_accurate_<true>`` (the
    Juffa exp, :func:`kernels.exp_2026.exp_fp32_accurate`), ``sfpu_reciprocal_iter<2>``, the
    same per-chip quotient, no rounding."""
    x = dst_reg[0]
    result = vFloat(x)
    with v_if(x < SAT_HI):
        u = exp_fp32_accurate(x)
        # ``result`` still holds x in these lanes; passing it rather than ``x`` keeps one value
        # fewer live through the two-step reciprocal (the DSL has eight LRegs). Same values.
        result.assign(times_tanh_softplus(result, u, reciprocal_iterations=2))
    v_endif()
    dst_reg[0] = result


register_kernel(
    "mish_fp32_2026_09", mish_fp32_2026_09, init=mish_init, function="mish", mode="accurate",
    dest="fp32", template="calculate_mish",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="mish_2026_09",
    provenance="tt-metal ckernel_sfpu_mish.h calculate_mish<false, true> + mish_init (PR #44985; "
               "read BH @37a00b82, WH @13e8272e, the files of the BF16 kernel): x for x >= 8, "
               "else u = _sfpu_exp_accurate_<true> = _sfpu_exp_fp32_accurate_ (Juffa; per chip, "
               "kernels/exp_2026.py), sfpu_reciprocal_iter<2> of (u + 1)^2 + 1; WH "
               "x*u(u + 2)*inv, BH x*(1 - 2inv) for x >= 0; no rounding",
    description="ttnn.mish (accurate) with an FP32 Dst, Jun - Sep 2026")
