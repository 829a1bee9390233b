"""Sep-2026 kernels of four harness rows: SqrtCustom, Fmod, Remainder, Expm1Cw (one program for
either Dst: none of them branches on ``is_fp32_dest_acc_en``, and none rounds, so a 16-bit Dst
receives the FP32 result through SFPSTORE).

* ``sqrt_custom_2026_09``: tt-llk's test-only loop ``calculate_sqrt_custom<false, 32>``
  (``tests/helpers/include/sfpu_test_helpers.h``, index ids 56332876623, 60643344262) over metal
  ``sfpu_sqrt_custom<false>`` (``ckernel_sfpu_sqrt_custom.h``): the body is
  :func:`kernels.trig_2026.sqrt_custom`, the is-finite-guarded revision (index id 69384685487):
  0x5f37 inverse-square-root seed, two Newton steps, times x; zeros and exponent-255 inputs pass
  through. Revisions differ only at +-inf and NaN (the unguarded @050f24fa gives NaN at +inf;
  a later helper, index id 70143927771, opts into ``NEGATIVE_INFINITY_SAFE``, -inf -> +NaN), and
  no table cell counts those lanes (golden NaN, or both sides non-finite), so the figures cannot
  tell them apart. Negative inputs give a finite garbage value (the seed's shift drags the sign
  bit into the exponent); their golden is NaN, so they are not scored either.
* ``fmod_2026_09`` (``init_fmod<false>(2.0, 0.5)``: Prgm0 = 2.0, Prgm1 = 0.5;
  ``calculate_fmod<false, 32>()``, no runtime arguments: the Sep-2026 signature, index id
  58757598522): ``v = |x|``; quotient ``q = trunc(v * |1/s|)`` by shifting out the fraction bits
  (``exexp(v/s) < 0``: 0; ``< 23``: shift right then left by ``23 - e``; else ``v/s`` itself),
  ``q -= 1`` where ``q > v/s``; ``v = v - q*s``; sign of x; NaN if s == 0; ten passes of ``v =
  v - s`` where ``v >= s``; 0 where ``|v| - s == 0``. For s = 2 every step is exact on finite x.
  The rival Dekker-split rewrite (index id 70465211642) is not modelled: nothing dates it before
  2026-09-30, and the table's 0 in every cell is what this form gives too.
* ``remainder_2026_09`` (``init_remainder<false>(2.0, 0.5)``, ``calculate_remainder<false,
  32>()``, ckernel_sfpu_remainder.h @053e9cb7, index id 58734441274): fmod's quotient and
  ``v = |x| - q*s``, then ``v = s - v`` where ``x < 0 and v != 0`` (the Python-style fold), the
  divisor-sign fix (not taken for s = 2), sign of s, NaN if s == 0, ten passes of ``v -= s``
  where ``v >= s``, 0 where ``|v| - s == 0``. ``s - v`` rounds: for a tiny negative x it is
  2.0, which the ``v >= s`` pass then turns into 0 where the golden is 2.0 (the table's 16257
  BF16 steps and 1065353217 FP32 steps are exactly "0 against 2.0", subnormals collapsed).
* ``expm1_cw_2026_09``: tt-llk's test-only ``calculate_expm1_cw<false, 32>`` (sfpu_test_helpers.h,
  index id 56332876623): ``dst_reg[0] = expm1_cw_clamped(dst_reg[0])`` with the revision of
  ``sfpu/ckernel_sfpu_expm1_cw.h`` that has no upper clamp (:func:`kernels.activations_2026.
  expm1_cw_clamped`; the degree-4 polynomial, INP_FLOAT32 being undefined in the harness): for
  ``x >= 128.5 ln 2 ~ 89.07`` the exponent field k + 127 wraps past 255 to 0, ``2^k`` becomes 0 and
  the result is ``(0 - 1) + 0*h = -1``; at k = 128 it is +inf (or NaN where h < 0). The table's
  "not measurable (x>=89.5 returns -1 instead of inf)" is this revision; the later ones (index
  ids 58442164954, 71094253230, 71436411544) clamp at 88.5 and return +inf.
"""
from __future__ import annotations

from kernels.activations_2026 import expm1_cw_clamped
from kernels.trig_2026 import sqrt_custom
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, dst_reg, exexp, reinterpret, setsgn, shft, v_else, v_elseif,
                           v_endif, v_if, vConstFloatPrgm0, vConstFloatPrgm1, vFloat, vUInt)

DIVISOR = 2.0                    # the harness's _FMOD_DIVISOR / _REMAINDER_DIVISOR (0x40000000)
DIVISOR_RECIPROCAL = 0.5         # its reciprocal as the harness passes it (0x3f000000)
MANTISSA_BITS = 23
FOLD_PASSES = 10                 # constexpr iter = 10 in both kernels


def sqrt_custom_2026_09():
    """One iteration of tt-llk's test-only ``calculate_sqrt_custom<false, 32>``."""
    dst_reg[0] = sqrt_custom(dst_reg[0])


def divisor_init():
    """``init_fmod<false>(2.0, 0.5)`` / ``init_remainder<false>(2.0, 0.5)``: Prgm0 = s,
    Prgm1 = 1/s."""
    vConstFloatPrgm0.assign(DIVISOR)
    vConstFloatPrgm1.assign(DIVISOR_RECIPROCAL)


def _truncated_quotient(v, recip):
    """``trunc(v * recip)`` as both kernels form it: the fraction bits shifted out and back."""
    quotient = vFloat(0.0)
    exponent = exexp(v * recip)
    with v_if(exponent < 0):
        quotient.assign(0.0)
    with v_elseif(exponent < MANTISSA_BITS):
        shift = exponent - MANTISSA_BITS
        bits = shft(shft(reinterpret(vUInt, v * recip), shift), 0 - shift)
        quotient.assign(reinterpret(vFloat, bits))
    with v_else():
        quotient.assign(v * recip)
    v_endif()
    with v_if(quotient > v * recip):
        quotient.assign(quotient - 1.0)
    v_endif()
    return quotient


def _fold(v, s):
    """The shared tail: ten passes of ``v -= s`` where ``v >= s``, then 0 where |v| == s."""
    for _ in range(FOLD_PASSES):
        with v_if(v >= s):
            v.assign(v - s)
        v_endif()
    with v_if(abs(v) - s == 0.0):
        v.assign(0.0)
    v_endif()
    return v


def fmod_2026_09():
    """One iteration of ``calculate_fmod<false, 32>()`` (the loop-invariant |s|, |1/s| are
    formed per iteration here: the same values)."""
    s = abs(vFloat(vConstFloatPrgm0))
    recip = abs(vFloat(vConstFloatPrgm1))
    val = dst_reg[0]
    v = abs(val)
    quotient = _truncated_quotient(v, recip)
    v = v - quotient * s
    v = setsgn(v, val)
    with v_if(s == 0.0):
        v.assign(float("nan"))
    v_endif()
    dst_reg[0] = _fold(v, s)


def remainder_2026_09():
    """One iteration of ``calculate_remainder<false, 32>()``."""
    divisor = vFloat(vConstFloatPrgm0)
    s = abs(divisor)
    recip = abs(vFloat(vConstFloatPrgm1))
    val = dst_reg[0]
    v = abs(val)
    quotient = _truncated_quotient(v, recip)
    v = v - quotient * s
    with v_if((val < 0.0) & (v != 0.0)):
        v.assign(s - v)
    v_endif()
    with v_if((divisor < 0.0) & (v != 0.0)):
        v.assign(v + divisor)
    v_endif()
    v = setsgn(v, divisor)
    with v_if(s == 0.0):
        v.assign(float("nan"))
    v_endif()
    dst_reg[0] = _fold(v, s)


def expm1_cw_2026_09():
    """One iteration of tt-llk's test-only ``calculate_expm1_cw<false, 32>``."""
    dst_reg[0] = expm1_cw_clamped(dst_reg[0])


register_kernel(
    "sqrt_custom_2026_09", sqrt_custom_2026_09, function="sqrt", mode="accurate", dest="bf16",
    template="calculate_sqrt_custom", params={"APPROXIMATION_MODE": False},
    provenance="tt-llk tests/helpers/include/sfpu_test_helpers.h calculate_sqrt_custom<false, "
               "32> (test-only loop; index ids 56332876623, 60643344262) over tt-metal "
               "ckernel_sfpu_sqrt_custom.h sfpu_sqrt_custom<false> (is-finite guard, index id "
               "69384685487; = kernels.trig_2026.sqrt_custom): 0x5f37 seed, two Newton steps, "
               "times x; 0 and exponent 255 pass through; no rounding",
    description="the SqrtCustom row (asin/acos/erfinv's square root), Sep 2026, either Dst")
register_kernel(
    "fmod_2026_09", fmod_2026_09, init=divisor_init, function="fmod_2", mode="accurate",
    dest="bf16", template="calculate_fmod",
    params={"APPROXIMATION_MODE": False, "value": DIVISOR, "recip": DIVISOR_RECIPROCAL},
    provenance="tt-metal ckernel_sfpu_fmod.h init_fmod<false>(2.0, 0.5) + calculate_fmod<false, "
               "32>() (no runtime arguments; index id 58757598522): quotient truncated by "
               "SFPSHFT out and back, q -= 1 where q > v/s, |x| - q s, sign of x, ten v -= s "
               "passes, 0 where |v| == s; no rounding",
    description="the Fmod row (torch.fmod(x, 2)), Sep 2026, either Dst")
register_kernel(
    "remainder_2026_09", remainder_2026_09, init=divisor_init, function="remainder_2",
    mode="accurate", dest="bf16", template="calculate_remainder",
    params={"APPROXIMATION_MODE": False, "value": DIVISOR, "recip": DIVISOR_RECIPROCAL},
    provenance="tt-metal ckernel_sfpu_remainder.h init_remainder<false>(2.0, 0.5) + "
               "calculate_remainder<false, 32>() (@053e9cb7, index id 58734441274): fmod's "
               "quotient, s - v for negative x, the divisor-sign fix, sign of s, ten v -= s "
               "passes, 0 where |v| == s; no rounding",
    description="the Remainder row (torch.remainder(x, 2)), Sep 2026, either Dst")
register_kernel(
    "expm1_cw_2026_09", expm1_cw_2026_09, function="expm1", mode="accurate", dest="bf16",
    template="calculate_expm1_cw", params={"APPROXIMATION_MODE": False},
    provenance="tt-llk tests/helpers/include/sfpu_test_helpers.h calculate_expm1_cw<false, 32> "
               "(test-only loop, index id 56332876623) over tt-llk sfpu/ckernel_sfpu_expm1_cw.h "
               "expm1_cw_clamped without an upper clamp (index ids 60667918574, 52741725545; = "
               "kernels.activations_2026.expm1_cw_clamped): max(x, -87), Cody-Waite by ln 2, "
               "degree-4 h (INP_FLOAT32 undefined), (2^k - 1) + 2^k h; -1 for x >~ 89.07",
    description="the Expm1Cw row (ELU/CELU/SELU's expm1 alone), Sep 2026, either Dst")
