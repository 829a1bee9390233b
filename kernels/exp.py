"""exp kernels (tt-metal and tt-llk ``ckernel_sfpu_exp.h``) and the exp building blocks other
families use (sigmoid, silu, softplus, expm1, gelu-derivative, fp32 tanh, ...).

Sources:

* tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/
  ckernel_sfpu_exp.h``, the Jan-2026 version (search-index id 6689125702; identical on both
  chips): ``_sfpu_exp_21f_<is_fp32_dest_acc_en>`` (PR #25946, opened 2025-07-29; Moroz et al.
  2022 "exp_21f"), ``_sfpu_exp_61f_``, ``_sfpu_round_nearest_int32_``,
  ``_sfpu_exp_f32_accurate_`` (PR #33563, Dec 2025), ``calculate_exponential`` and
  ``exp_init``. Moved to tt-llk on 2026-03-17 (tt-llk 59ea01284, #1478) under new names, same
  math.
* tenstorrent/tt-llk ``tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/ckernel_sfpu_exp.h`` at
  c635ca695 (2026-01-30): ``_sfpu_exp_`` (the older accurate exp), ``_calculate_exponential_
  body_`` / ``_calculate_exponential_piecewise_`` (APPROXIMATION_MODE true and false),
  ``_calculate_exponential_approx_``, ``_init_exponential_``, and the FAST_APPROX Schraudolph
  kernel (SFPLOADMACRO) with its constants.

What ttnn.exp runs in Jan 2026 (``exp_tile<approx, fast_and_approx=true>``): accurate mode
loops ``_sfpu_exp_improved_<is_fp32_dest_acc_en>`` = ``_sfpu_exp_21f_<false>`` (BF16 Dst, with
its own ``float_to_fp16b(y, 0)``) or ``_sfpu_exp_f32_accurate_`` (FP32 Dst); ``exp_init<false,
true>`` -> ``_init_exponential_<false, true, 1.0>`` only loads the reciprocal constants (for
the legacy path's ``_sfpu_reciprocal_<2>``), which :func:`exp_init` reproduces.
Approximate mode with FAST_APPROX runs tt-llk's SFPLOADMACRO Schraudolph kernel, registered as
it runs as ``exp_approx_loadmacro`` (kernels/loadmacro.py): ``exp_approx`` is the straight-line
sequence tt-llk added as the ``DISABLE_SFPLOADMACRO`` fallback (tt-llk #1454, 2026-03-14, read
at HEAD 36b092e8e: "straight line code, preserving bit-identical results"; the same output bits
here on every BF16 input) for the input-clamping variant, the only fast
variant that existed at c635ca695 (the non-clamping "new fast approximate exp" is tt-llk #1190,
2026-02-08, later than Jan 2026).

Choices where the sources leave room (also in the registrations' provenance):

* ``exp_legacy`` is the tt-llk accurate path (``_calculate_exponential_<false>`` =
  ``_sfpu_exp_(|x|)``, then ``_sfpu_reciprocal_<2>`` for x < 0, no final rounding) with the
  Jan-2026 reciprocal of each chip; ttnn.exp ran this before PR #25946 (Aug 2025), but then with
  the pre-Sep-2025 reciprocal (tt-llk #230 rewrote it), so its bits are those of the
  Jan-2026 tt-llk, not of the mid-2025 device.
* ``exp_piecewise_approx`` is APPROXIMATION_MODE=true, FAST_APPROX=false, SCALE_EN=false,
  SKIP_POSITIVE_CHECK=false.
"""
from __future__ import annotations

import numpy as np

from kernels.common import as_float, polyval
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    addexp,
    dst_reg,
    exexp,
    exexp_nodebias,
    exman8,
    exman9,
    float_to_fp16b,
    float_to_uint16,
    int32_to_float,
    reinterpret,
    s2vFloat16b,
    setexp,
    setsgn,
    shft,
    v_and,
    v_else,
    v_elseif,
    v_endif,
    v_if,
    vConst0,
    vConst0p8373,
    vConst1,
    vConstFloatPrgm0,
    vConstFloatPrgm1,
    vConstFloatPrgm2,
    vConstIntPrgm2,
    vec_min_max,
    vFloat,
    vInt,
    vUInt,
)

__all__ = ["exp_21f", "exp_61f", "exp_f32_accurate", "exp_legacy", "sfpu_exp",
           "round_nearest_int32", "float_to_int32_for_exp21f", "exp_init",
           "exp_approx_piecewise_init", "exp_approx_piecewise", "exponential_approx",
           "exp_fast_approx_init", "exp_fast_approx"]


def _f32(value: float) -> float:
    return float(np.float32(value))


def _f32_div(a: float, b: float) -> float:
    """``a##f / b##f`` as the C++ compiler folds it: one FP32 division, correctly rounded."""
    return float(np.float32(a) / np.float32(b))


# tt-metal ckernel_sfpu_exp.h (Jan 2026) constants.
EXP21F_ONE_LN2 = 1.4426950216293334961        # 0x3FB8AA3B
EXP21F_POLY = (1.0017248, 7.839635491371155e-08, 4.791750143340323e-15)
EXP61F_POLY = (0.69314699, 0.24022982, 0.055483369, 0.0096788315, 0.001243946, 0.0002170391)
F32_INV_LN2 = 1.4426950408889634
F32_OVERFLOW, F32_UNDERFLOW = 128.0, -127.0   # thresholds on z = x / ln 2
F32_LN2_HI, F32_LN2_LO = -0.6931152343750000, -3.19461832987e-05
F32_TAYLOR = (1.0, 1.0, 0.5, _f32_div(1, 6), _f32_div(1, 24), _f32_div(1, 120),
              _f32_div(1, 720), _f32_div(1, 5040))
ROUND_C231 = 0x4B400000                       # 2**23 + 2**22 (Hacker's Delight rounding)

# tt-llk ckernel_sfpu_exp.h / ckernel_instr_params.h p_exp (c635ca695) constants.
APPROX_LN2_RECIP = 1.442695                   # _init_exponential_<true, false>: Prgm0
P_EXP_FRAC_BITS = 3
P_EXP_C23_73 = 0x4340                         # BF16 pattern: 192.0 (Prgm1)
P_EXP_ADJ_EXP = 0xBD3F                        # BF16 pattern, used as the integer 0xBD3F0000
FAST_A = _f32(256.0 * _f32(F32_INV_LN2))      # 369.329925537109375 = 0x43B8AA3B
FAST_B_MINUS_C = 32500.818359375              # 0x46FDE9A3
FAST_THRESHOLD = -88.5                        # 0xC2B10000


# --------------------------------------------------------------------------------------------
# Accurate building blocks (tt-metal ckernel_sfpu_exp.h, Jan 2026)
# --------------------------------------------------------------------------------------------

def float_to_int32_for_exp21f(val):
    """``_float_to_int32_for_exp21f_``: for 0 <= val < 256, the integer val * 2**23 (bits below
    the integer grid dropped): the mantissa with its hidden bit shifted left by the unbiased
    exponent (right when negative)."""
    exp = exexp(val)
    man = exman8(val)
    return reinterpret(vInt, shft(reinterpret(vUInt, man), exp))


def exp_21f(val, round_to_bf16: bool):
    """``_sfpu_exp_21f_<is_fp32_dest_acc_en>(val)`` (Moroz et al. 2022, exp_21f):
    ``2**(x/ln2)`` from the integer ``(x/ln2 + 127) * 2**23``: its exponent field is the integer
    part, its mantissa (as an integer in [0, 2**23)) feeds a degree-2 correction of 2**frac.

    ``round_to_bf16=True`` is the ``<false>`` instance (BF16 Dst): the result is rounded with
    ``float_to_fp16b(y, 0)`` (nearest, ties away). ``False`` is ``<true>`` (no rounding), the
    form sigmoid, silu and softplus call."""
    xlog2 = val * EXP21F_ONE_LN2 + 127.0
    # Clamp to [0, 255] so that x < -88.5 gives 0 and x > 88.5 gives +Inf.
    threshold_low = vFloat(0.0)
    threshold_high = vFloat(255.0)
    vec_min_max(threshold_low, xlog2)          # xlog2 = max(xlog2, 0)
    vec_min_max(xlog2, threshold_high)         # xlog2 = min(xlog2, 255)

    z = float_to_int32_for_exp21f(xlog2)
    exponential_part = exexp_nodebias(reinterpret(vFloat, z))   # integer part (biased)
    fractional_part = exman9(reinterpret(vFloat, z))            # in [0, 2**23)
    frac = int32_to_float(fractional_part, 0)
    frac = polyval(frac, *EXP21F_POLY)
    y = setexp(frac, exponential_part)
    if round_to_bf16:
        y = reinterpret(vFloat, float_to_fp16b(y, 0))
    return y


def exp_61f(val):
    """``_sfpu_exp_61f_(val)``: the exp_21f front end, the fraction scaled to [0, 1) and a
    degree-6 polynomial; no rounding (the fp32 variant until Dec 2025; not registered)."""
    xlog2 = val * EXP21F_ONE_LN2 + 127.0
    threshold_low = vFloat(0.0)
    threshold_high = vFloat(255.0)
    vec_min_max(threshold_low, xlog2)
    vec_min_max(xlog2, threshold_high)
    z = float_to_int32_for_exp21f(xlog2)
    exponential_part = exexp_nodebias(reinterpret(vFloat, z))
    fractional_part = exman9(reinterpret(vFloat, z))
    frac = int32_to_float(fractional_part, 0)
    frac = addexp(frac, -23)
    frac = polyval(frac, vConst1, *EXP61F_POLY)
    return setexp(frac, exponential_part)


def round_nearest_int32(z):
    """``_sfpu_round_nearest_int32_(z, k_int)``: returns ``(k, k_int)``, z rounded to the
    nearest integer (ties to even) as a float and as an int32, by adding and subtracting
    1.5 * 2**23 (valid for |z| < 2**22)."""
    c231 = vFloat(as_float(ROUND_C231))
    tmp = z + c231
    k = tmp - c231
    k_int = reinterpret(vInt, tmp) - reinterpret(vInt, c231)
    return k, k_int


def exp_f32_accurate(val):
    """``_sfpu_exp_f32_accurate_(val)`` (PR #33563): k = round(x/ln2), Cody-Waite reduction
    r = x - k*ln2 (two constants), degree-7 Taylor polynomial, exponent field += k.
    z >= 128 -> +Inf, z <= -127 -> 0. The NaN branch tests the *unbiased* exponent against 255
    (as the source does), which never holds."""
    result = vFloat(vConst0)
    z = val * F32_INV_LN2
    exp_bits = exexp(z)
    with v_if(z >= F32_OVERFLOW):
        result.assign(float("inf"))
    with v_elseif(z <= F32_UNDERFLOW):
        result.assign(vConst0)
    with v_elseif(exp_bits == 255):
        result.assign(float("nan"))
    with v_else():
        k, k_int = round_nearest_int32(z)
        r_hi = k * F32_LN2_HI + val
        r = k * F32_LN2_LO + r_hi
        p = polyval(r, vConst1, vConst1, *F32_TAYLOR[2:])
        p_exp = exexp_nodebias(p)
        new_exp = p_exp + k_int
        result.assign(setexp(p, new_exp))
    v_endif()
    return result


def exp_init():
    """``exp_init<false, true>`` -> ``_init_exponential_<false, true, 1.0>``: the reciprocal
    constants of ``_init_sfpu_reciprocal_<false>`` (chip-specific; exp_21f and exp_f32_accurate
    read no programmable constant)."""
    reciprocal_init(False)


# --------------------------------------------------------------------------------------------
# Legacy accurate exp (tt-llk c635ca695)
# --------------------------------------------------------------------------------------------

def sfpu_exp(val):
    """tt-llk ``_sfpu_exp_(val)`` for val >= 0: if |val| >= 1 set the exponent to -1 (val in
    [0.5, 1)), ``1 + val*(0.859375 + 0.8373*val)``, then square (exponent + 1) times, at most
    8, narrowing the lanes each round."""
    val = vFloat(val)
    exp = exexp(val)
    with v_if(exp >= 0):
        val.assign(setexp(val, 126))
    v_endif()
    tmp = val * vConst0p8373 + s2vFloat16b(0.863281)
    val.assign(val * tmp + vConst1)
    with v_if(exp >= 0):
        val.assign(val * val)
        for _ in range(7):
            exp.assign(exp - 1)
            v_and(exp >= 0)
            val.assign(val * val)
    v_endif()
    return val


def exp_legacy(x):
    """``_calculate_exponential_body_<false>(x)``: ``_sfpu_exp_(|x|)``, then for x < 0 the
    chip's ``_sfpu_reciprocal_<2>`` of it (needs :func:`reciprocal_init`); no rounding."""
    out = sfpu_exp(setsgn(x, 0))
    with v_if(x < 0.0):
        out.assign(reciprocal(out, 2))
    v_endif()
    return out


# --------------------------------------------------------------------------------------------
# Approximate exp (tt-llk c635ca695)
# --------------------------------------------------------------------------------------------

def exp_approx_piecewise_init():
    """``_init_exponential_<true, false, 1.0>``: Prgm0 = 1.442695, Prgm1 = BF16 0x4340 (192.0),
    Prgm2 = BF16 0xBD3F (the integer 0xBD3F0000)."""
    vConstFloatPrgm0.assign(APPROX_LN2_RECIP)
    vConstFloatPrgm1.assign(s2vFloat16b_value(P_EXP_C23_73))
    vConstIntPrgm2.assign(P_EXP_ADJ_EXP << 16)


def s2vFloat16b_value(bits16: int) -> float:
    """The float an integer ``s2vFloat16b(bits16)`` loads (the raw BF16 pattern)."""
    return as_float(bits16 << 16)


def exponential_approx(val):
    """``_calculate_exponential_approx_(val)``: ``x/ln2 + 192`` by one SFPMAD puts the 7.3
    fixed-point value of x/ln2 in the low mantissa bits; an integer add of 0xBD3F0000 removes
    the exponent of 192 and adds the bias 127 << 3; a left shift by 7 moves the integer part
    into the exponent field: ``2**floor(y) * (1 + frac(y))`` to 3 fraction bits."""
    val = val * vConstFloatPrgm0 + vConstFloatPrgm1
    in_short = vConstIntPrgm2 + reinterpret(vInt, val)
    in_short = shft(in_short, 10 - P_EXP_FRAC_BITS)
    return reinterpret(vFloat, in_short)


def exp_approx_piecewise(val):
    """``_calculate_exponential_piecewise_<true, false, false>(val)``: x >= 89 -> +Inf,
    x < -42 -> 0, else :func:`exponential_approx`."""
    result = vFloat(0.0)
    with v_if(val >= 89.0):
        in_inf = vFloat(float("inf"))
        result.assign(in_inf)
    with v_elseif(val < -42.0):
        result.assign(0.0)
    with v_else():
        result.assign(exponential_approx(val))
    v_endif()
    return result


def exp_fast_approx_init():
    """``_init_exponential_<true, true, 1.0>`` constants (the SFPLOADMACRO programming has no
    counterpart in the straight-line form): Prgm2 (LReg14) = -88.5, Prgm0 (LReg12) = A =
    256/ln2, Prgm1 (LReg13) = B - C = 127*256 - 11.18 (Schraudolph's adjustment)."""
    vConstFloatPrgm2.assign(FAST_THRESHOLD)
    vConstFloatPrgm0.assign(FAST_A)
    vConstFloatPrgm1.assign(FAST_B_MINUS_C)


def exp_fast_approx(val):
    """The Schraudolph kernel per element (tt-llk ``_calculate_exponential_<true, ..., FAST_APPROX
    =true>``, straight-line form of #1454): x = max(x, -88.5); t = A*x + (B - C); round t to a
    uint16 (nearest); shift left by 15 into the exponent field. Returns the integer pattern as
    a vFloat (stored as the FP32 bit pattern)."""
    threshold = vFloat(vConstFloatPrgm2)
    vec_min_max(threshold, val)                # val = max(val, -88.5)
    t = vConstFloatPrgm0 * val + vConstFloatPrgm1
    rounded = float_to_uint16(t, 0)
    return reinterpret(vFloat, shft(rounded, 15))


# --------------------------------------------------------------------------------------------
# Kernels (one iteration of each calculate loop)
# --------------------------------------------------------------------------------------------

def exp_bf16():
    """``calculate_exponential<false, true, is_fp32_dest_acc_en=false>``: exp_21f, rounded."""
    val = dst_reg[0]
    dst_reg[0] = exp_21f(val, True)


def exp_fp32():
    """``calculate_exponential<false, true, is_fp32_dest_acc_en=true>``."""
    val = dst_reg[0]
    dst_reg[0] = exp_f32_accurate(val)


def exp_approx():
    """``_calculate_exponential_<true, false, 8, FAST_APPROX=true, false>`` per element."""
    val = dst_reg[0]
    dst_reg[0] = exp_fast_approx(val)


def exp_piecewise_approx():
    """``_calculate_exponential_<true, false, 8, FAST_APPROX=false, false>`` per element."""
    val = dst_reg[0]
    dst_reg[0] = exp_approx_piecewise(val)


def exp_legacy_kernel():
    """``_calculate_exponential_<false, ...>`` per element (the tt-llk accurate path)."""
    val = dst_reg[0]
    dst_reg[0] = exp_legacy(val)


_METAL = "tt-metal ckernel_sfpu_exp.h (Jan 2026, index id 6689125702, same on WH and BH)"
_LLK = "tt-llk tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/ckernel_sfpu_exp.h @c635ca695 " \
       "(2026-01-30)"

register_kernel(
    "exp", exp_bf16, init=exp_init, function="exp", mode="accurate", dest="bf16",
    template="calculate_exponential",
    params={"APPROXIMATION_MODE": False, "FAST_APPROX": True, "is_fp32_dest_acc_en": False},
    provenance=f"{_METAL}: calculate_exponential<false, true, false> -> _sfpu_exp_21f_<false> "
               "(PR #25946, Jul-Aug 2025; Moroz et al. 2022 exp_21f) with float_to_fp16b(y, 0); "
               "exp_init<false, true> loads the reciprocal constants",
    description="ttnn.exp default (accurate) on a BF16 tensor")

register_kernel(
    "exp_fp32", exp_fp32, init=exp_init, function="exp", mode="accurate", dest="fp32",
    template="calculate_exponential",
    params={"APPROXIMATION_MODE": False, "FAST_APPROX": True, "is_fp32_dest_acc_en": True},
    instance_of="exp",
    provenance=f"{_METAL}: calculate_exponential<false, true, true> -> _sfpu_exp_f32_accurate_ "
               "(PR #33563, Dec 2025): Cody-Waite + degree-7 Taylor, no rounding",
    description="ttnn.exp (accurate) with an FP32 Dst")

register_kernel(
    "exp_approx", exp_approx, init=exp_fast_approx_init, function="exp", mode="approximate",
    dest="bf16",
    provenance=f"{_LLK}: _calculate_exponential_<APPROX=true, FAST_APPROX=true> Schraudolph "
               "(1999) kernel with input clamp at -88.5 (A = 256/ln2, B-C = 32500.818359375). "
               "The device runs it with SFPLOADMACRO (exp_approx_loadmacro, the same bits); "
               "this is the straight-line DISABLE_SFPLOADMACRO fallback of tt-llk #1454 "
               "(2026-03-14, stated bit-identical): SFPSWAP max, SFPMAD, SFP_STOCH_RND "
               "FP32->UINT16 nearest, "
               "SFPSHFT 15",
    description="ttnn.exp fast_and_approximate_mode=True (Jan 2026)")

register_kernel(
    "exp_piecewise_approx", exp_piecewise_approx, init=exp_approx_piecewise_init, function="exp",
    mode="approximate", dest="bf16",
    provenance=f"{_LLK}: _calculate_exponential_piecewise_<APPROX=true, SCALE_EN=false, "
               "SKIP_POSITIVE_CHECK=false> (x >= 89 -> Inf, x < -42 -> 0, else "
               "_calculate_exponential_approx_, 7.3 fixed point), init _init_exponential_<true, "
               "false>; no rounding",
    description="exp APPROXIMATION_MODE=true, FAST_APPROX=false")

register_kernel(
    "exp_legacy", exp_legacy_kernel, init=exp_init, function="exp", mode="accurate", dest="bf16",
    provenance=f"{_LLK}: _calculate_exponential_<false> = _sfpu_exp_(|x|) (Horner 0.8373, "
               "s2vFloat16b(0.863281) = 0.859375, repeated squaring) then _sfpu_reciprocal_<2> "
               "for x < 0 (Jan-2026 reciprocal of each chip), no rounding; ttnn.exp's accurate "
               "path before PR #25946 (Aug 2025, then with the pre-Sep-2025 reciprocal)",
    description="older accurate exp (tt-llk _sfpu_exp_ + reciprocal for x < 0)")
