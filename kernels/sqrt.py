"""Square root and reciprocal square root kernels (tt-llk ``ckernel_sfpu_{sqrt,rsqrt}.h``).

Source: tenstorrent/tt-llk ``tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/ckernel_sfpu_sqrt.h``
(``_calculate_sqrt_body_``, ``_calculate_sqrt_internal_``, ``_init_sqrt_``) and
``ckernel_sfpu_rsqrt.h``, as rewritten by Jason Davies in tt-llk #230 (merged 2025-09-05, commit
b1c01bc22) with the negative-input fix #737 (2025-11-03, commit 09bf3401e), read at the
Jan-2026 snapshot c635ca695 (2026-01-30). Math identical on Wormhole and Blackhole. Algorithms
of Kokosiński, Gepner, Moroz et al., "Fast and accurate approximation algorithms for computing
floating point square root", Numerical Algorithms (2024): a magic-constant seed
``y = bits^-1(K - (bits(x) >> 1))`` (~1/sqrt(x)) refined by one polynomial step (SQRT_10-bits)
or a cubic correction plus one Newton-type step (SQRT_23-bits); sqrt and rsqrt share the body
(``RECIPROCAL`` template flag).

What ttnn ran on a BF16 tensor in Jan 2026 (the plain names ``sqrt`` / ``rsqrt``):

* tt-metal ``ttnn/.../unary/common/unary_op_utils.cpp`` (index revisions 9830913 and
  52635085610) emits ``sqrt_tile_init(); sqrt_tile<{param0}>(i)`` and ``rsqrt_tile_init<false>();
  rsqrt_tile<false, {param0}>(i)``, param0 = ``fast_and_approximate_mode`` (False by default,
  ``ttnn.sqrt(t, bool p = false)``); the compute API is ``sqrt_tile<bool FAST_APPROX = false>``
  and ``rsqrt_tile<bool legacy_compat = false, bool FAST_APPROX = false>`` (index revisions
  7055815002, 54557726342); the tt-metal wrappers ``ckernel_sfpu_sqrt.h`` / ``ckernel_sfpu_rsqrt.h``
  pass APPROXIMATION_MODE, fp32_dest_acc_en, FAST_APPROX and legacy_compat straight through to
  tt-llk's ``_calculate_sqrt_`` / ``_calculate_rsqrt_`` (revision 53644076736 for rsqrt;
  legacy_compat defaults to false in tt-llk); APPROXIMATION_MODE comes from
  ``get_op_approx_mode``, false for every op.
* So ttnn.sqrt / ttnn.rsqrt on BF16 = ``_calculate_sqrt_internal_<APPROX=false, 8, fp32=false,
  RECIPROCAL, FAST_APPROX=false>``: SQRT_23-bits, x < 0 -> NaN, ``float_to_fp16b(y, 0)``.
  ASSUMPTION (the Jan-2026 revisions of exactly these wrapper files are not dated in the index;
  the reading rests on the revisions above, which are consistent with each other and with the
  tt-llk signature of c635ca695): legacy_compat = false and FAST_APPROX = false.

Variants: ``sqrt_fp32`` / ``rsqrt_fp32`` (same algorithm, FP32 Dst, no rounding),
``sqrt_approx`` / ``rsqrt_approx`` (APPROXIMATION_MODE = true: SQRT_10-bits, BF16 Dst; not what
ttnn.sqrt runs: APPROX is false for every ttnn unary op), and the legacy-compat paths
(``legacy_compat = true``; tt-llk ``ckernel_sfpu_rsqrt_compat.h``, the pre-#230 algorithms kept
for callers that ask for them): ``sqrt_legacy`` = ``_calculate_sqrt_compat_<false>`` (magic
0x5f37 << 16 inverse square root, two Newton steps, times x; no rounding, so the BF16 SFPSTORE
truncates) and ``rsqrt_legacy`` = ``_calculate_rsqrt_compat_<false>`` (that sqrt stored to Dst and
reloaded, then ``_reciprocal_compat_<3>``: seed 1.442695 on [0.5, 1), three Newton steps,
exponent fix-up; sign restored; ``float_to_fp16b(out, 0)``).

Special values, as the code implements them: sqrt(+0) = +0, sqrt(+Inf) = +Inf, rsqrt(+0) = +Inf,
rsqrt(+Inf) = +0 (integer Inf - bits(x) trick); x < 0 by the raw sign bit, so -0 as well, ->
quiet NaN (unless FAST_APPROX), which ``float_to_fp16b`` turns into +Inf in the BF16 kernels;
NaN inputs give NaN (+Inf after float_to_fp16b).
"""
from __future__ import annotations

from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    addexp,
    dst_reg,
    exexp,
    float_to_fp16b,
    reinterpret,
    s2vFloat16b,
    setexp,
    setsgn,
    v_else,
    v_endif,
    v_if,
    vConst1,
    vConstFloatPrgm1,
    vConstFloatPrgm2,
    vConstIntPrgm0,
    vFloat,
    vInt,
    vUInt,
)

INF, NAN = float("inf"), float("nan")


# --------------------------------------------------------------------------------------------
# tt-llk #230 / #737 (Sep / Nov 2025)
# --------------------------------------------------------------------------------------------

def sqrt_init(approximate: bool = False):
    """``_init_sqrt_<APPROXIMATION_MODE, legacy_compat=false>`` (also ``_init_rsqrt_``)."""
    if approximate:
        vConstIntPrgm0.assign(0x5F0B3892)
        vConstFloatPrgm1.assign(1.89099014875)
    else:
        vConstIntPrgm0.assign(0x5F1110A0)
        vConstFloatPrgm1.assign(2.2825186)
        vConstFloatPrgm2.assign(2.2533049)


def sqrt_approx_init():
    sqrt_init(approximate=True)


def sqrt_body(x, approximate: bool = False, reciprocal: bool = False,
              fast_approx: bool = False):
    """``_calculate_sqrt_body_<APPROXIMATE, RECIPROCAL, FAST_APPROX>(x)``."""
    i = reinterpret(vInt, reinterpret(vUInt, x) >> 1)
    y = reinterpret(vFloat, vConstIntPrgm0 - i)

    if approximate:
        # Algorithm SQRT_10-bits (with the reciprocal variant)
        c = x * y
        negative_y = -y
        infinity = vFloat(s2vFloat16b(INF))
        infinity_bits = reinterpret(vInt, infinity)
        t = vConstFloatPrgm1 + negative_y * c
        if reciprocal:
            x_bits = reinterpret(vInt, x)
            infinity_minus_x_bits = infinity_bits - x_bits
            with v_if((infinity_minus_x_bits != 0) & (x_bits != 0)):   # x not Inf, not 0
                y.assign(y * t)
            with v_else():                      # x = 0 -> Inf, x = Inf -> 0
                y.assign(reinterpret(vFloat, infinity_minus_x_bits))
            v_endif()
        else:
            y.assign(c)
            with v_if(reinterpret(vInt, x) != infinity_bits):   # x = Inf: c is already Inf
                y.assign(y * t)
            v_endif()
    else:
        # Algorithm SQRT_23-bits (with the reciprocal variant)
        xy = x * y
        negative_y = -y
        c = negative_y * xy
        infinity = vFloat(s2vFloat16b(INF))
        infinity_bits = reinterpret(vInt, infinity)
        y.assign(y * (vConstFloatPrgm1 + c * (vConstFloatPrgm2 + c)))
        xy.assign(x * y)
        negative_y.assign(-y)
        one_minus_xyy = vConst1 + (negative_y * xy)

        if reciprocal:
            half_y = addexp(y, -1)
            x_bits = reinterpret(vInt, x)
            infinity_minus_x_bits = infinity_bits - x_bits
            with v_if((infinity_minus_x_bits != 0) & (x_bits != 0)):   # x not Inf, not 0
                y.assign(one_minus_xyy * half_y + y)
            with v_else():                      # x = 0 -> Inf, x = Inf -> 0
                y.assign(reinterpret(vFloat, infinity_minus_x_bits))
            v_endif()
        else:
            half_xy = 0.5 * xy
            with v_if(reinterpret(vInt, x) < infinity_bits):   # x = Inf: skip (Inf - Inf)
                y.assign(one_minus_xyy * half_xy + xy)
            v_endif()

    if not fast_approx:
        with v_if(x < 0.0):
            y.assign(NAN)
        v_endif()
    return y


def _internal(approximate: bool, fp32_dest: bool, reciprocal: bool, fast_approx: bool = False):
    """One iteration of ``_calculate_sqrt_internal_<APPROX, 8, fp32_dest_acc_en, RECIPROCAL,
    FAST_APPROX>``."""
    tmp = sqrt_body(dst_reg[0], approximate, reciprocal, fast_approx)
    if fp32_dest:
        dst_reg[0] = tmp
    else:
        dst_reg[0] = reinterpret(vFloat, float_to_fp16b(tmp, 0))


def sqrt():
    """ttnn.sqrt, BF16 Dst: ``_calculate_sqrt_<false, 8, false, FAST_APPROX=false>``."""
    _internal(approximate=False, fp32_dest=False, reciprocal=False)


def rsqrt():
    """ttnn.rsqrt, BF16 Dst: ``_calculate_rsqrt_<false, 8, false, FAST_APPROX=false>``."""
    _internal(approximate=False, fp32_dest=False, reciprocal=True)


def sqrt_fp32():
    _internal(approximate=False, fp32_dest=True, reciprocal=False)


def rsqrt_fp32():
    _internal(approximate=False, fp32_dest=True, reciprocal=True)


def sqrt_approx():
    _internal(approximate=True, fp32_dest=False, reciprocal=False)


def rsqrt_approx():
    _internal(approximate=True, fp32_dest=False, reciprocal=True)


# --------------------------------------------------------------------------------------------
# legacy_compat = true: tt-llk ckernel_sfpu_rsqrt_compat.h (the pre-#230 algorithms)
# --------------------------------------------------------------------------------------------

def sqrt_compat(val, approximate: bool = False, reciprocal_iterations: int = 2):
    """``_sqrt_compat_<APPROXIMATION_MODE, RECIPROCAL_ITERATIONS>(val)``."""
    if approximate:
        magic = vUInt((127 << 7) << 16)
        val_s = magic + reinterpret(vUInt, val)          # adjust the bias
        val_s >>= 1
        return reinterpret(vFloat, val_s)
    result = vFloat()
    with v_if(val != 0.0):
        magic = vUInt(0x5F37 << 16)
        approx = reinterpret(vFloat, magic - (reinterpret(vUInt, val) >> 1))
        for _ in range(reciprocal_iterations):           # r = r*(1.5 - x/2*r*r)
            approx.assign(((approx * approx) * (val * -0.5) + 1.5) * approx)
        result.assign(approx * val)
    with v_else():
        result.assign(val)
    v_endif()
    return result


def reciprocal_compat(in_, max_iter: int = 3):
    """``_reciprocal_compat_<max_iter>(in)``: Newton on setexp(-|x|, 126) from 1.442695, then
    the exponent put back (0 when it would underflow)."""
    val = setsgn(in_, 1)                      # negative
    val = setexp(val, 126)                    # in (-1, -0.5]
    ln2_recip = vFloat(1.442695)              # Grayskull's hard-wired first guess
    two = vFloat(2.0)
    result = ln2_recip * (val * ln2_recip + two)
    for _ in range(max_iter - 1):
        result.assign(result * (val * result + two))

    orig_exp = exexp(in_)
    new_exp = exexp(result)
    new_exp -= orig_exp                       # -1 - exp, re-biased
    new_exp += 126
    with v_if(new_exp < 0):                   # too big an input: the reciprocal is 0
        result.assign(0.0)
        new_exp.assign(0)
    v_endif()
    return setexp(result, new_exp)


def sqrt_legacy():
    """``_calculate_sqrt_compat_<false, 8, false>`` (no rounding: SFPSTORE truncates)."""
    dst_reg[0] = sqrt_compat(dst_reg[0])


def rsqrt_legacy():
    """``_calculate_rsqrt_compat_<false, 8, false>``: sqrt through Dst, then the reciprocal."""
    dst_reg[0] = sqrt_compat(dst_reg[0])
    in_ = dst_reg[0]
    out = reciprocal_compat(in_, 3)
    with v_if(in_ < 0.0):
        out.assign(-out)
    v_endif()
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(out, 0))


# --------------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------------

_LLK = "tt-llk ckernel_sfpu_sqrt.h _calculate_sqrt_body_ (rewrite #230 2025-09-05 + fix #737 " \
       "2025-11-03; c635ca695 Jan 2026)"

register_kernel(
    "sqrt", sqrt, init=sqrt_init, function="sqrt", mode="accurate", dest="bf16",
    template="calculate_sqrt",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False, "FAST_APPROX": False,
            "legacy_compat": False},
    provenance=f"{_LLK}: SQRT_23-bits, x<0 -> NaN, float_to_fp16b(y, 0); ttnn.sqrt -> "
               f"sqrt_tile<FAST_APPROX=false>, legacy_compat=false, APPROX=false (flags read "
               f"from unary_op_utils/compute-API revisions, see module docstring)",
    description="ttnn.sqrt default on a BF16 tensor")

register_kernel(
    "rsqrt", rsqrt, init=sqrt_init, function="rsqrt", mode="accurate", dest="bf16",
    template="calculate_rsqrt",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False, "FAST_APPROX": False,
            "legacy_compat": False},
    provenance=f"{_LLK} RECIPROCAL=true via ckernel_sfpu_rsqrt.h _calculate_rsqrt_: "
               f"SQRT_23-bits rsqrt, 0 -> Inf, Inf -> 0, x<0 -> NaN, float_to_fp16b(y, 0); "
               f"ttnn.rsqrt -> rsqrt_tile<legacy_compat=false, FAST_APPROX=false>",
    description="ttnn.rsqrt default on a BF16 tensor")

register_kernel(
    "sqrt_fp32", sqrt_fp32, init=sqrt_init, function="sqrt", mode="accurate", dest="fp32",
    template="calculate_sqrt",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True, "FAST_APPROX": False,
            "legacy_compat": False},
    instance_of="sqrt",
    provenance=f"{_LLK}: SQRT_23-bits, fp32_dest_acc_en=true (no rounding)",
    description="ttnn.sqrt on an FP32 tensor (fp32_dest_acc_en)")

register_kernel(
    "rsqrt_fp32", rsqrt_fp32, init=sqrt_init, function="rsqrt", mode="accurate", dest="fp32",
    template="calculate_rsqrt",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True, "FAST_APPROX": False,
            "legacy_compat": False},
    instance_of="rsqrt",
    provenance=f"{_LLK} RECIPROCAL=true: SQRT_23-bits rsqrt, fp32_dest_acc_en=true",
    description="ttnn.rsqrt on an FP32 tensor (fp32_dest_acc_en)")

register_kernel(
    "sqrt_approx", sqrt_approx, init=sqrt_approx_init, function="sqrt", mode="approximate",
    dest="bf16",
    provenance=f"{_LLK}: APPROXIMATION_MODE=true, SQRT_10-bits (K 0x5F0B3892, 1.89099014875), "
               f"x<0 -> NaN, float_to_fp16b(y, 0)",
    description="sqrt with APPROXIMATION_MODE=true (10-bit), BF16 Dst")

register_kernel(
    "rsqrt_approx", rsqrt_approx, init=sqrt_approx_init, function="rsqrt", mode="approximate",
    dest="bf16",
    provenance=f"{_LLK} RECIPROCAL=true, APPROXIMATION_MODE=true: SQRT_10-bits rsqrt, "
               f"float_to_fp16b(y, 0)",
    description="rsqrt with APPROXIMATION_MODE=true (10-bit), BF16 Dst")

register_kernel(
    "sqrt_legacy", sqrt_legacy, function="sqrt", mode="accurate", dest="bf16",
    provenance="tt-llk ckernel_sfpu_rsqrt_compat.h _calculate_sqrt_compat_<false> "
               "(legacy_compat=true; the pre-#230 _calculate_sqrt_ algorithm, before Sep 2025): "
               "magic 0x5f37<<16 inverse sqrt, 2 Newton steps, times x, no rounding",
    description="sqrt legacy_compat path (pre-Sep-2025 algorithm), BF16 Dst, truncated")

register_kernel(
    "rsqrt_legacy", rsqrt_legacy, function="rsqrt", mode="accurate", dest="bf16",
    provenance="tt-llk ckernel_sfpu_rsqrt_compat.h _calculate_rsqrt_compat_<false> "
               "(legacy_compat=true): compat sqrt stored to Dst and reloaded, "
               "_reciprocal_compat_<3> (seed 1.442695), sign restored, float_to_fp16b(out, 0)",
    description="rsqrt legacy_compat path, BF16 Dst")
