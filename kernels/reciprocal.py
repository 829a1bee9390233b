"""reciprocal kernels (tt-llk ``ckernel_sfpu_recip.h``) and the ``_sfpu_reciprocal_``
building block other families use (sigmoid, silu, legacy exp, fp32 tanh/log, ...).

Sources: tenstorrent/tt-llk ``tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/
ckernel_sfpu_recip.h`` at commit c635ca695 (2026-01-30, the "Jan 2026" state): the Sep-2025
rewrite (tt-llk #230, 2025-09-05), the Wormhole constants of tt-llk #648 (2025-09-12) and the
Blackhole SFPLOADMACRO kernels of tt-llk #834 (2025-11-26). The math is unchanged at tt-llk
HEAD 36b092e8e (2026-04-11).

The two chips differ:

* Wormhole ``_sfpu_reciprocal_<n>``: quadratic minimax seed on the mantissa (Sollya, relative
  error over [1, 2)), Newton steps, exponent rescale through ``255 - exponent`` (so 0 -> Inf and
  Inf -> 0 fall out of the bit trick), sign restored. ``n = 0`` is the same as ``n = 1``.
* Blackhole ``_sfpu_reciprocal_<n>``: SFPARECIP seed (7-bit table) then ``n`` Newton steps with
  ``t = x*y - 2`` (Prgm0 = 2.0), each guarded by ``t < 0`` so 0*Inf = NaN keeps the seed.

What ttnn.reciprocal runs (tt-metal ``ckernel_sfpu_recip.h`` wrapper ``calculate_reciprocal<
APPROX, is_fp32_dest_acc_en, 8, legacy_compat=false>`` -> tt-llk ``_calculate_reciprocal_``;
``unary_op_utils.cpp`` emits ``recip_tile_init<false>()`` / ``recip_tile<false>`` where the
template argument is ``legacy_compat``):

* Wormhole: BF16 Dst ``_sfpu_reciprocal_<1>`` + ``float_to_fp16b(out, 0)``; FP32 Dst ``<2>``;
  approximate ``<0>`` with no rounding.
* Blackhole: the SFPLOADMACRO kernels of tt-llk #834: approximate ``fast_7b``, BF16 Dst
  ``fast_8b_3c``, FP32 Dst ``fast_24b_5c``. These are written here as the straight-line
  instruction sequences tt-llk added as the ``DISABLE_SFPLOADMACRO`` fallback in #1473
  (2026-03-14, "straightforward translation ... preserving bit-identical results"), which also
  matches the pseudocode comments of the Jan-2026 macro versions; the macro versions
  themselves are registered as ``reciprocal*_loadmacro`` (kernels/loadmacro.py), with the same
  output bits on every BF16 input. ``fast_8b_3c`` forms ``t = z >> 16`` with a logical SFPSHFT
  (as the fallback does) where the macro version stores ``z`` to the BF16 Dst and reloads its
  16 raw bits (MOD0_LO16), which hold BF16 in Dst's layout: bit 15 is the sign either way and
  only that bit reaches the kept half of ``y + t``, so the stored BF16 results agree while the
  low halves of the LReg differ.

Assumption (the sources leave it open): the ttnn ``recip_tile<false>`` / ``legacy_compat=false``
dispatch above is read from undated ``unary_op_utils.cpp`` / wrapper versions of the index whose
API matches tt-llk c635ca695: likely, not certain.
"""
from __future__ import annotations

from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    approx_recip,
    dst_reg,
    float_to_fp16b,
    per_chip,
    reinterpret,
    setman,
    setsgn,
    shft,
    v_endif,
    v_if,
    vConst0,
    vConst1,
    vConstFloatPrgm0,
    vConstFloatPrgm1,
    vConstFloatPrgm2,
    vConstNeg1,
    vec_min_max,
    vFloat,
    vInt,
    vUInt,
)

__all__ = ["reciprocal", "reciprocal_init", "reciprocal_fast_7b", "reciprocal_fast_8b_3c",
           "reciprocal_fast_24b_5c", "WORMHOLE_RECIP_PRGM"]

# tt-llk tt_llk_wormhole_b0/.../ckernel_sfpu_recip.h _init_sfpu_reciprocal_ (tt-llk #648,
# 2025-09-12): y = k2 - k1*x + k0*x**2, minimax relative error for 1/x on [1, 2) (Sollya).
WORMHOLE_RECIP_PRGM = (0.3232325017452239990234375, 1.4545459747314453125,
                       2.121212482452392578125)
# tt-llk tt_llk_blackhole/.../ckernel_sfpu_recip.h _init_sfpu_reciprocal_<false>: Prgm0 = 2.0.
BLACKHOLE_RECIP_TWO = 2.0


# --------------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------------

def _reciprocal_init_wormhole(approximation_mode: bool = False):
    """Wormhole loads the three quadratic-seed constants into Prgm0..2 (whatever the mode)."""
    k0, k1, k2 = WORMHOLE_RECIP_PRGM
    vConstFloatPrgm0.assign(k0)
    vConstFloatPrgm1.assign(k1)
    vConstFloatPrgm2.assign(k2)


def _reciprocal_init_blackhole(approximation_mode: bool = False):
    """Blackhole sets Prgm0 = 2.0 unless approximate (then it loads nothing)."""
    if not approximation_mode:
        vConstFloatPrgm0.assign(BLACKHOLE_RECIP_TWO)


# ``_init_sfpu_reciprocal_<APPROXIMATION_MODE>`` of the chip being traced.
reciprocal_init = per_chip(wormhole=_reciprocal_init_wormhole,
                           blackhole=_reciprocal_init_blackhole)


def _checked(iterations: int, constants: str = "programmable") -> int:
    if iterations not in (0, 1, 2):
        raise ValueError(f"_sfpu_reciprocal_ has max_iter 0, 1 or 2, not {iterations}")
    if constants not in ("programmable", "immediate"):
        raise ValueError(f"reciprocal constants are 'programmable' or 'immediate', not "
                         f"{constants!r}")
    return iterations


def _reciprocal_wormhole(x, iterations: int = 2, constants: str = "programmable"):
    """tt_llk_wormhole_b0 ``_sfpu_reciprocal_<max_iter>``: quadratic seed + Newton + rescale."""
    _checked(iterations, constants)
    k0, k1, k2 = WORMHOLE_RECIP_PRGM if constants == "immediate" else \
        (vConstFloatPrgm0, vConstFloatPrgm1, vConstFloatPrgm2)
    # -1.0 with x's mantissa: -m in (-2, -1]; +-0 and +-Inf give -1.
    negative_x = setman(vConstNeg1, reinterpret(vInt, x))
    # Quadratic estimate y = k2 - k1*m + k0*m**2, in two Horner steps.
    y = k1 + k0 * negative_x
    # Scale 2**(254 - exponent) built as exponent field ~e = 255 - e, halved below (so an
    # exponent of 0 gives Inf and 255 gives 0).
    scale_bits = ~reinterpret(vUInt, x)
    y = k2 + y * negative_x
    scale = setman(reinterpret(vFloat, scale_bits), 0)
    # Newton-Raphson: t = 1 - m*y; y = y + y*t.
    t = vConst1 + negative_x * y
    scale *= 0.5
    y = y + y * t
    if iterations > 1:
        t = vConst1 + negative_x * y
        y = y + y * t
    y = y * scale
    return setsgn(y, x)


def _reciprocal_blackhole(x, iterations: int = 2, constants: str = "programmable"):
    """tt_llk_blackhole ``_sfpu_reciprocal_<max_iter>``: SFPARECIP + guarded Newton steps."""
    _checked(iterations, constants)
    two = BLACKHOLE_RECIP_TWO if constants == "immediate" else vConstFloatPrgm0
    # +-0 for |x| = Inf or |x| >= 2**126, +-Inf for x = +-0.
    y = approx_recip(x)
    if iterations > 0:
        # t = x*y - 2 (negated Newton term): 0*Inf gives +NaN, which the t < 0 test skips.
        t = x * y - two
        if iterations > 1:
            y1 = y * -t - vConst0
            with v_if(t < 0.0):
                t.assign(x * y1 - two)
                y.assign(y1 * -t - vConst0)
            v_endif()
        else:
            with v_if(t < 0.0):
                y.assign(y * -t - vConst0)
            v_endif()
    return y


# ``_sfpu_reciprocal_<iterations>(x)`` (tt-llk c635ca695) for the chip being traced; needs
# :func:`reciprocal_init` (the programmable constants) in the kernel's init, unless called with
# ``constants="immediate"``: the same values loaded (SFPLOADI) where they are used, for a kernel
# whose programmable constants hold something else (more instructions, the same bits).
reciprocal = per_chip(wormhole=_reciprocal_wormhole, blackhole=_reciprocal_blackhole)


def reciprocal_fast_7b(x):
    """Blackhole ``_calculate_reciprocal_fast_7b_`` per element: the SFPARECIP seed alone."""
    return approx_recip(x)


def reciprocal_fast_8b_3c(y):
    """Blackhole ``_calculate_reciprocal_fast_8b_3c_`` per element (tt-llk #834; straight-line
    form of #1473): the SFPARECIP seed Y has a BF16-exact 7-bit mantissa; form the midpoint
    Y + half a BF16 ulp (low bits 0x8000), take the sign of ``x*mid - 1`` and add its top 16
    bits as an integer: a negative error carries into the BF16 LSB (result Y + 1 ulp), a
    non-negative one does not (result Y) after the truncating BF16 store. Returns the
    integer-corrected FP32 pattern (the caller stores it)."""
    x = vConst0 * vConst0 + y                      # SFPMAD 0*0 + y: a flushed copy of y
    seed = approx_recip(y)
    midpoint = reinterpret(vUInt, seed) | 0x8000   # SFPOR with 0x8000 (a USHORT SFPLOADI)
    error = x * reinterpret(vFloat, midpoint) + vConstNeg1
    t = shft(reinterpret(vUInt, error), -16)       # the BF16 pattern of the error term
    return reinterpret(vFloat, midpoint + t)       # SFPIADD: integer add, not FP32


def reciprocal_fast_24b_5c(x):
    """Blackhole ``_calculate_reciprocal_fast_24b_5c_`` per element (tt-llk #834; straight-line
    form of #1473): y = arecip(x); e = 1 - x*y; y += y*min(e + e**2 + e**3, 1.0), the min
    turning the NaN of 0*Inf into 1 so that y + y keeps the seed's 0 / Inf."""
    y = approx_recip(x)
    e = vConst1 - x * y                            # SFPMAD with NEGATE_VA
    t = e * e + e
    t2 = t * e + e
    one = vFloat(vConst1)
    vec_min_max(t2, one)                           # t2 = min(t2, 1.0)
    return t2 * y + y


# --------------------------------------------------------------------------------------------
# Kernels (one iteration of each calculate loop)
# --------------------------------------------------------------------------------------------

# ttnn.reciprocal runs different code per chip: Wormhole the sfpi building block with
# ``recip_init`` loading its seed constants; Blackhole the fast kernels of tt-llk #834, whose
# macro setup has no counterpart in the straight-line form (their inits load no constant).

def reciprocal_init_wormhole():
    """``recip_init<false, ...>`` on Wormhole: the seed constants."""
    _reciprocal_init_wormhole(False)


def reciprocal_approx_init_wormhole():
    """``recip_init<true, ...>`` on Wormhole: the seed constants all the same."""
    _reciprocal_init_wormhole(True)


def reciprocal_bf16_wormhole():
    """ttnn.reciprocal on a BF16 tensor, Wormhole: ``_sfpu_reciprocal_<1>``, rounded."""
    x = dst_reg[0]
    out = _reciprocal_wormhole(x, 1)
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(out, 0))


def reciprocal_bf16_blackhole():
    """ttnn.reciprocal on a BF16 tensor, Blackhole: fast_8b_3c."""
    x = dst_reg[0]
    dst_reg[0] = reciprocal_fast_8b_3c(x)


def reciprocal_fp32_wormhole():
    """ttnn.reciprocal with an FP32 Dst, Wormhole: ``_sfpu_reciprocal_<2>``."""
    x = dst_reg[0]
    dst_reg[0] = _reciprocal_wormhole(x, 2)


def reciprocal_fp32_blackhole():
    """ttnn.reciprocal with an FP32 Dst, Blackhole: fast_24b_5c."""
    x = dst_reg[0]
    dst_reg[0] = reciprocal_fast_24b_5c(x)


def reciprocal_approx_wormhole():
    """ttnn.reciprocal in approximate mode, Wormhole: ``_sfpu_reciprocal_<0>`` (no rounding)."""
    x = dst_reg[0]
    dst_reg[0] = _reciprocal_wormhole(x, 0)


def reciprocal_approx_blackhole():
    """ttnn.reciprocal in approximate mode, Blackhole: fast_7b (the SFPARECIP seed)."""
    x = dst_reg[0]
    dst_reg[0] = reciprocal_fast_7b(x)


def reciprocal_sfpi_bf16():
    """``_sfpu_reciprocal_<1>`` + ``float_to_fp16b(out, 0)`` on either chip (the building block
    sigmoid & co. use, as a standalone kernel; tt-llk ``_calculate_reciprocal_internal_``
    before the Blackhole macro kernels)."""
    x = dst_reg[0]
    out = reciprocal(x, 1)
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(out, 0))


def reciprocal_sfpi_fp32():
    """``_sfpu_reciprocal_<2>`` stored as is (FP32 Dst), either chip."""
    x = dst_reg[0]
    dst_reg[0] = reciprocal(x, 2)


def reciprocal_sfpi_approx():
    """``_sfpu_reciprocal_<0>`` stored as is, either chip."""
    x = dst_reg[0]
    dst_reg[0] = reciprocal(x, 0)


def _sfpi_init():
    reciprocal_init(False)


def _sfpi_approx_init():
    reciprocal_init(True)


_LLK = "tt-llk tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/ckernel_sfpu_recip.h @c635ca695 " \
       "(2026-01-30)"

register_kernel(
    "reciprocal",
    {"wormhole": reciprocal_bf16_wormhole, "blackhole": reciprocal_bf16_blackhole},
    init={"wormhole": reciprocal_init_wormhole, "blackhole": None}, function="reciprocal",
    mode="accurate", dest="bf16",
    template="calculate_reciprocal",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False, "legacy_compat": False},
    provenance=f"{_LLK}, via tt-metal calculate_reciprocal<false, false, 8, legacy_compat="
               "false>. Wormhole: _sfpu_reciprocal_<1> (quadratic seed #230/#648, Sep 2025) + "
               "float_to_fp16b(out, 0). Blackhole: _calculate_reciprocal_fast_8b_3c_ (tt-llk "
               "#834, 2025-11-26; SFPLOADMACRO on the device, here its straight-line form from "
               "tt-llk #1473, 2026-03-14, stated bit-identical): SFPARECIP + BF16 LSB fix-up",
    description="ttnn.reciprocal default on a BF16 tensor (Jan 2026)")

register_kernel(
    "reciprocal_fp32",
    {"wormhole": reciprocal_fp32_wormhole, "blackhole": reciprocal_fp32_blackhole},
    init={"wormhole": reciprocal_init_wormhole, "blackhole": None}, function="reciprocal",
    mode="accurate", dest="fp32",
    template="calculate_reciprocal",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True, "legacy_compat": False},
    instance_of="reciprocal",
    provenance=f"{_LLK}. Wormhole: _sfpu_reciprocal_<2>. Blackhole: "
               "_calculate_reciprocal_fast_24b_5c_ (tt-llk #834, 2025-11-26; SFPLOADMACRO on the "
               "device, here the straight-line form of tt-llk #1473, 2026-03-14): SFPARECIP + "
               "y += y*min(e + e^2 + e^3, 1)",
    description="ttnn.reciprocal with an FP32 Dst (Jan 2026)")

register_kernel(
    "reciprocal_approx",
    {"wormhole": reciprocal_approx_wormhole, "blackhole": reciprocal_approx_blackhole},
    init={"wormhole": reciprocal_approx_init_wormhole, "blackhole": None},
    function="reciprocal", mode="approximate", dest="bf16",
    provenance=f"{_LLK}. Wormhole: _sfpu_reciprocal_<0> (same as one Newton step), no "
               "rounding. Blackhole: _calculate_reciprocal_fast_7b_ (tt-llk #834; SFPLOADMACRO "
               "on the device, straight-line form of #1473): the SFPARECIP seed alone",
    description="ttnn.reciprocal in approximate mode (Jan 2026)")

register_kernel(
    "reciprocal_sfpi", reciprocal_sfpi_bf16, init=_sfpi_init, function="reciprocal",
    mode="accurate", dest="bf16",
    provenance=f"{_LLK}: _sfpu_reciprocal_<1> + float_to_fp16b(out, 0) (the sfpi building "
               "block; on Blackhole what _calculate_reciprocal_internal_ ran from tt-llk #230, "
               "2025-09-05, until the macro kernels of #834, 2025-11-26)",
    description="_sfpu_reciprocal_<1> + RN to BF16 (building block as a kernel)")

register_kernel(
    "reciprocal_sfpi_fp32", reciprocal_sfpi_fp32, init=_sfpi_init, function="reciprocal",
    mode="accurate", dest="fp32",
    provenance=f"{_LLK}: _sfpu_reciprocal_<2> (what sigmoid/tanh/log fp32 paths call)",
    description="_sfpu_reciprocal_<2> (building block as a kernel)")

register_kernel(
    "reciprocal_sfpi_approx", reciprocal_sfpi_approx, init=_sfpi_approx_init,
    function="reciprocal", mode="approximate", dest="bf16",
    provenance=f"{_LLK}: _sfpu_reciprocal_<0>, no rounding",
    description="_sfpu_reciprocal_<0> (building block as a kernel)")

