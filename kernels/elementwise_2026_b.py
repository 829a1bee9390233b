"""Softsign, Hardmish, Round and Sign of the 2026-09-30 accuracy table: the kernels the harness
runs (tt-llk ``tests/helpers/include/sfpu_operations.h`` @008a3c3b, ``ITERATIONS = 32``, one call
per tile, nothing after it but the packer).

None of the four branches on ``is_fp32_dest_acc_en`` (their templates do not take it), so each
is one program for both Dst modes, and none rounds explicitly: with a 16-bit Dst the SFPSTORE
truncates the FP32 result.

* Softsign: tt-metal ``ckernel_sfpu_softsign.h`` ``init_softsign<false>`` (=
  ``sfpu_reciprocal_init<false>``) and ``calculate_softsign<false, 32>``: ``abs(v) + 1``,
  ``sfpu_reciprocal<false>`` (= tt-llk ``_sfpu_reciprocal_<2>``, tt-metal
  ``ckernel_sfpu_recip.h``, index id 12614618794), ``v * tmp``. Modelled: the plain body of
  index id 68402292339 (WH, "Op class" revision). The index also holds guarded revisions (WH
  @06bb4295: ``+-1`` where ``|v| >= 2**26``; ids 71361908751, 70202558937: a clamp at 2**26)
  and a tt_poly draft (id 70377015457, a bf16 fast path with a third template parameter the
  harness does not pass). The table's FP32 figure, 1056964609 steps (tol), is what the plain
  body gives where ``1/(1 + |v|)`` falls below the smallest normal and flushes: the guarded
  revisions would not show it (see the tests). Blackhole's stored revisions (@040278f8,
  ``_sfpu_reciprocal_<3>``, ApproximationMode API) are older; Blackhole runs the same body here
  with its own ``_sfpu_reciprocal_<2>`` (kernels/reciprocal.py), an assumption.
* Hardmish: ``ckernel_sfpu_hardmish.h`` ``hardmish<false, 32>`` (generic init): ``scale = x *
  0.5 + 1`` (one SFPMAD), ``sfpi::clamp(scale, 0, 1)``, ``x * scale``. Read in index ids
  54642195292 / WH @01df2d7f (``sfpi::clamp``) and 52564259210 (the same code with the clamp
  spelt out as two SFPSWAP VEC_MIN_MAX, max with 0 then min with 1, which is what is modelled,
  as kernels/erf_2026.py does). @01df2d7f adds a third template parameter ``is_fp32_dest_acc_en``
  without a default, which the harness's ``hardmish<APPROX, 32>`` could not instantiate; the
  older form ``x * clamp(x + 2.8, 0, 5) * 0.2`` (ids 10114899609, 41159526563) is a different
  function from the harness's golden ``t * clamp(0.5 t + 1, 0, 1)``.
* Round: tt-llk ``ckernel_sfpu_rounding_ops.h`` ``_calculate_round_<false, 32>(decimals = 0)``
  (WH @06bd3735, index id 55279270586; ids 68586154834, 60893245331, 56071215957 have the same
  ``_round_even_``): ``coeff = inverse = 1e0f`` from the pow10 table;
  ``inverse * _round_even_(v * coeff)`` where ``_round_even_`` takes ``tmp = setsgn(w, 0)``,
  adds ``2**23`` then ``-2**23`` (two SFPMADs: the first rounds off the fraction, nearest even),
  and where ``exexp(w) < 23`` returns ``copysgn(tmp, w)``, else ``w``.
* Sign: ``ckernel_sfpu_sign.h`` ``calculate_sign<false, 32>(exponent_size_8 = 0)`` after PR
  #55306 (merged 2026-09-03, "Fix sign and heaviside returning the wrong value for negative
  zero"; the table's row is "Sign(-0.0 fixed #55306)"): ``res = copysgn(1.0, v)``; 0 where
  ``abs(v) == 0`` (SFPABS then the zero test, so -0 too). Index id 58637468122 (2026,
  ``sign_init``; the parameter unused). Rivals: id 58753061460 and WH @049c487e test
  ``_sfpu_is_fp16_zero_(v)`` (so -0 gives -1; @049c487e also returns NaN for NaN, via
  ``sfpi::is_nan``); id 68327248631 adds a bf16 SFPLOADMACRO path for ``ITERATIONS == 8`` only.
  They differ from the model only at -0 and NaN, inputs the table does not measure.
"""
from __future__ import annotations

from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, dst_reg, exexp, setsgn, v_endif, v_if, vec_min_max, vFloat)

TT_METAL = "tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
TT_LLK = "tt-metal tt_metal/tt-llk/tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/"

SOFTSIGN_RECIPROCAL_ITERATIONS = 2          # sfpu_reciprocal<false> = _sfpu_reciprocal_<2>
HARDMISH_SLOPE, HARDMISH_OFFSET = 0.5, 1.0
HARDMISH_LOW, HARDMISH_HIGH = 0.0, 1.0
ROUND_DECIMALS = 0                          # the harness's runtime argument
ROUND_SCALE = 1.0                           # PRECOMPUTED_POW10_TABLE[0 + 45] = 1e0f (both ways)
ROUND_SHIFTER = 8388608.0                   # 2**23: adding it leaves no fraction bits
ROUND_INTEGRAL_EXPONENT = 23                # from 2**23 on every float is an integer


def softsign_init():
    """``init_softsign<false>``: ``sfpu_reciprocal_init<false>`` (Wormhole: the quadratic
    seed's three constants; Blackhole: Prgm0 = 2)."""
    reciprocal_init(False)


def softsign_2026_09():
    """``calculate_softsign<false, 32>``: ``v * 1/(|v| + 1)``, no rounding."""
    v = dst_reg[0]
    tmp = abs(v) + 1.0
    tmp = reciprocal(tmp, SOFTSIGN_RECIPROCAL_ITERATIONS)
    dst_reg[0] = v * tmp


def hardmish_2026_09():
    """``hardmish<false, 32>``: ``x * clamp(x * 0.5 + 1, 0, 1)``, no rounding."""
    x = dst_reg[0]
    scale = x * HARDMISH_SLOPE + HARDMISH_OFFSET
    low = vFloat(HARDMISH_LOW)
    high = vFloat(HARDMISH_HIGH)
    vec_min_max(low, scale)                     # scale = max(scale, 0)
    vec_min_max(scale, high)                    # scale = min(scale, 1)
    dst_reg[0] = x * scale


def round_even(w):
    """tt-llk ``_round_even_``: |w| + 2**23 - 2**23 (nearest even) with w's sign, where the
    exponent of w is below 23; else w."""
    tmp = setsgn(w, 0)
    tmp = tmp + ROUND_SHIFTER
    exponent = exexp(w)
    tmp = tmp + -ROUND_SHIFTER
    with v_if(exponent < ROUND_INTEGRAL_EXPONENT):
        w.assign(setsgn(tmp, w))
    v_endif()
    return w


def round_2026_09():
    """``_calculate_round_<false, 32>(0)``: ``inverse * _round_even_(v * coeff)``, both 1."""
    coeff = vFloat(ROUND_SCALE)
    inverse = vFloat(ROUND_SCALE)
    v = dst_reg[0]
    dst_reg[0] = inverse * round_even(v * coeff)


def sign_2026_09():
    """``calculate_sign<false, 32>(0)`` after PR #55306: ``copysgn(1, v)``, 0 where
    ``abs(v) == 0``."""
    v = dst_reg[0]
    result = setsgn(vFloat(1.0), v)
    with v_if(abs(v) == 0.0):
        result.assign(0.0)
    v_endif()
    dst_reg[0] = result


def _register(name, body, function, template, source, how, description, **more):
    register_kernel(name, body, function=function, mode="accurate", dest="bf16",
                    template=template, params={"APPROXIMATION_MODE": False, **more.pop(
                        "params", {})},
                    provenance=f"{source}: {how}", description=description, **more)


_register("softsign_2026_09", softsign_2026_09, "softsign", "calculate_softsign",
          TT_METAL + "ckernel_sfpu_softsign.h (index id 68402292339, the plain revision; "
          "sfpu_reciprocal<false> = _sfpu_reciprocal_<2> per ckernel_sfpu_recip.h id "
          "12614618794; BH assumed the same body)",
          "abs(v) + 1, _sfpu_reciprocal_<2>, v * tmp; no rounding, no Dst branch",
          "Softsign row: init_softsign<false>; calculate_softsign<false, 32> (either Dst)",
          init=softsign_init)
_register("hardmish_2026_09", hardmish_2026_09, "hardmish", "hardmish",
          TT_METAL + "ckernel_sfpu_hardmish.h (index ids 54642195292, 52564259210; "
          "WH @01df2d7f has the same body)",
          "x*0.5 + 1 (SFPMAD), clamp to [0, 1] (SFPSWAP max then min), x * scale; no rounding",
          "Hardmish row: hardmish<false, 32> (generic init, either Dst)")
_register("round_2026_09", round_2026_09, "round", "_calculate_round_",
          TT_LLK + "ckernel_sfpu_rounding_ops.h @06bd3735 (index id 55279270586)",
          "1e0 * _round_even_(v * 1e0): setsgn 0, + 2**23, - 2**23, copysgn where exexp < 23",
          "Round row: tt-llk _calculate_round_<false, 32>(0) (either Dst)",
          params={"decimals": ROUND_DECIMALS})
_register("sign_2026_09", sign_2026_09, "sign", "calculate_sign",
          TT_METAL + "ckernel_sfpu_sign.h after PR #55306 (2026-09-03; index id 58637468122)",
          "copysgn(1, v); 0 where abs(v) == 0 (SFPABS, zero test)",
          "Sign row: calculate_sign<false, 32>(exponent_size_8 = 0) (either Dst)",
          params={"exponent_size_8": 0})
