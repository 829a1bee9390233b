"""GELU kernels (tt-metal / tt-llk ``ckernel_sfpu_gelu.h``, tt-llk ``ckernel_sfpu_cdf.h``).

``gelu``: what ttnn.gelu runs on a BF16 tensor by default in Jan 2026 (APPROXIMATION_MODE=false,
BF16 Dst): the tt-metal override ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_gelu.h`` introduced by PR #27283 (merged Sep 2025, "Chebyshev" POLYVAL15)
and still live in Jan 2026 (issue #35290, Jan 5 2026; ivoitovych's GELU implementation
reference dated 2025-12-28; the file kept as "Original GELU implementation (preserved)" in the
Feb-Mar 2026 revision, index id 35824974369): ``result = x``; ``x == 0 -> 0``; ``x < 3 ->
calculate_gelu_chebyshev(x)`` which is ``0`` unless ``x >= -5.5``, then a degree-15 polynomial
in x (Horner, double literals rounded to float) with ``setsgn(poly, x)``. No rounding: the
SFPSTORE to the BF16 Dst truncates. WH and BH sources are identical.

Structural variants of the same polynomial (other revisions of tt-metal's file):

* (b) BH @01105485 (~Feb-Mar 2026): ``PolynomialEvaluator::eval`` and one chain
  ``x == 0 -> 0 / x >= 3 -> x / x >= -5.5 -> setsgn(poly, x) / else 0``. Same coefficients
  (every ``f``-suffixed literal rounds to the same float as the double literal of (a)), same
  Horner order, same comparisons: bit-identical to (a) on every BF16 input on both chips (the
  tests check this), so it is not registered separately; ``gelu_chain`` below is kept for
  that test.
* (c) index id 30231426931 (undated; spells "chebyshev", so after the PR #27283 review of
  2025-09-16; not the Jan 2026 main): (a) plus ``|x| <= 1e-6 -> 0.5*x`` before the polynomial.
  Its bits differ from (a) (tiny inputs), registered as ``gelu_taylor_tiny``.

``gelu_approx``: APPROXIMATION_MODE=true, tt-llk ``_calculate_gelu_appx_`` with
``_init_gelu_`` (tt-llk c635ca695, 2026-01-30; unchanged as the Sep 2026 tt-metal
``calculate_gelu_appx``): ``x*0.5 + SFPLUTFP32 6-entry TABLE1(|x|)`` without
sign retain; no rounding.

``gelu_cdf``: tt-llk's own accurate GELU ``_calculate_gelu_accurate_`` ->
``_calculate_cdf_appx_(x, scaled=true)`` (tt-llk ``ckernel_sfpu_cdf.h``, c635ca695). ttnn
never runs it (tt-metal overrides ``calculate_gelu``); the tt-llk test harness does.

``gelu_derivative`` / ``gelu_derivative_approx``: tt-llk ``_calculate_gelu_derivative_`` with
``_init_gelu_derivative_`` (c635ca695), which tt-metal's ``calculate_gelu_derivative`` calls
unchanged. APPROX=true: 6-entry FP16 table (TABLE1, sign retained), then ``+1`` where the
result is negative. APPROX=false: ``exp(-x*x/2)`` by the legacy ``_sfpu_exp_`` (+ reciprocal
<2> for the negative argument), times ``x * s2vFloat16b(0.3989423)``, plus the SFPLUT
``0.375|x| / 0.125|x|+0.25 / 0.5`` (sign retained), plus 0.5. No rounding.
"""
from __future__ import annotations

from kernels.common import polyval
from kernels.exp import exp_legacy
from kernels.reciprocal import reciprocal_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    LRegs,
    abs,
    dst_reg,
    l_reg,
    lut,
    lut2,
    lut2_sign,
    reinterpret,
    s2vFloat16b,
    setsgn,
    v_else,
    v_elseif,
    v_endif,
    v_if,
    vConstFloatPrgm0,
    vFloat,
    vUInt,
)

# Degree-15 "Chebyshev" coefficients c0..c15 (ascending), tt-metal ckernel_sfpu_gelu.h, PR #27283.
CHEBYSHEV = (2.98325768482e-05, 0.499174645395, 0.398579460781, 0.00244542739174,
             -0.0656369476513, -0.00208478037614, 0.0092074331601, 0.000768340223025,
             -0.000862052441087, -0.000138391838381, 4.25116466215e-05, 1.19076782913e-05,
             -2.29754133825e-07, -3.74540617693e-07, -4.59055119276e-08, -1.81205228163e-09)


# --- gelu (Jan 2026 default) ------------------------------------------------------------------

def gelu_chebyshev(val):
    """calculate_gelu_chebyshev: 0 below -5.5, else setsgn(poly(val), val)."""
    result = vFloat(0.0)
    with v_if(val >= -5.5):
        result.assign(polyval(val, *CHEBYSHEV))
        result.assign(setsgn(result, val))
    v_endif()
    return result


def gelu():
    """One iteration of calculate_gelu<APPROXIMATION_MODE=false> (variant (a), Jan 2026)."""
    x = dst_reg[0]
    result = vFloat(x)
    with v_if(x == 0.0):
        result.assign(0.0)
    with v_elseif(x < 3.0):
        result.assign(gelu_chebyshev(x))
    v_endif()
    dst_reg[0] = result


def gelu_chain():
    """Variant (b), BH @01105485: the same polynomial behind one v_if chain."""
    x = dst_reg[0]
    result = vFloat()
    with v_if(x == 0.0):
        result.assign(0.0)
    with v_elseif(x >= 3.0):
        result.assign(x)
    with v_elseif(x >= -5.5):
        result.assign(polyval(x, *CHEBYSHEV))
        result.assign(setsgn(result, x))
    with v_else():
        result.assign(0.0)
    v_endif()
    dst_reg[0] = result


def gelu_taylor_tiny():
    """Variant (c), index id 30231426931: (a) with |x| <= 1e-6 -> x*0.5.

    The source computes ``abs(in)`` inside ``v_elseif(...)``, i.e. in the lanes no earlier
    branch took. Python evaluates a condition's operands before ``v_elseif`` complements the
    flags (they would be computed under the ``x == 0`` branch's predication), so ``|x|`` is
    computed before the chain, in every lane: the same value in the lanes that use it.
    """
    x = dst_reg[0]
    result = vFloat(x)
    magnitude = abs(x)
    with v_if(x == 0.0):
        result.assign(0.0)
    with v_elseif(magnitude <= 1e-6):
        result.assign(x * 0.5)
    with v_elseif(x < 3.0):
        result.assign(gelu_chebyshev(x))
    v_endif()
    dst_reg[0] = result


# --- gelu_approx: 6-entry LUT ---------------------------------------------------------------

# _init_gelu_ table words (_sfpu_load_imm32_), LReg -> value: slopes in LReg0-2, intercepts in
# LReg4-6, low half = the first sub-segment (tt-llk ckernel_sfpu_gelu.h, c635ca695).
GELU_APPX_TABLE = {LRegs.LReg0: 0x37E7322B, LRegs.LReg4: 0xB12286D8,
                   LRegs.LReg1: 0x38E138F3, LRegs.LReg5: 0xB437B479,
                   LRegs.LReg2: 0x38003852, LRegs.LReg6: 0x7C00AFA4}


def gelu_approx_init():
    """_init_gelu_: Prgm0 = 0.5, then the six table registers."""
    vConstFloatPrgm0.assign(0.5)
    for reg, word in GELU_APPX_TABLE.items():
        l_reg[reg] = vUInt(word)


def _table_registers():
    return [l_reg[r] for r in (LRegs.LReg0, LRegs.LReg1, LRegs.LReg2, LRegs.LReg4,
                                   LRegs.LReg5, LRegs.LReg6)]


def _load_lut_input():
    """``dst_reg[0]`` loaded into LReg3, the register SFPLUTFP32 reads its input from."""
    l_reg[LRegs.LReg3] = reinterpret(vUInt, dst_reg[0])
    return reinterpret(vFloat, l_reg[LRegs.LReg3])


def gelu_approx():
    """One iteration of _calculate_gelu_appx_: x*0.5 + lut2_sign(x) (A*|x| + B, table sign).

    The source computes ``half_in = in * half`` before the LUT; here it follows the LUT, so
    the product fuses with the final add into one SFPMAD (``x * 0.5 + lut``). Written in the
    source's order the DSL emits an SFPMUL and an SFPADD instead (the LUT's register copies
    sit between them): the same values, as ``x * 0.5`` is exact, except the payload of
    negative NaN inputs on Wormhole (``sfpu-sim diff`` of the two shows 127 such lanes).
    """
    l0, l1, l2, l4, l5, l6 = _table_registers()
    x = _load_lut_input()
    result = lut2_sign(x, l0, l1, l2, l4, l5, l6)
    half = vFloat(vConstFloatPrgm0)
    half_in = x * half
    result = half_in + result
    dst_reg[0] = result


# --- gelu_cdf: tt-llk _calculate_gelu_accurate_ ------------------------------------------------

CDF_CORE = (0.49866379, 0.41314081, -0.03048313, -0.05281024, 0.0122792)   # c0..c4 on [0, 2.5)


def pos_cdf_appx(val):
    """_calculate_pos_cdf_appx_: POLYVAL5 below 2.5, 0.44656975*val + 0.58216001 above,
    clamped to 1."""
    result = vFloat()
    with v_if(val < 2.5):
        result.assign(polyval(val, *CDF_CORE))
    with v_else():
        result.assign(0.44656975 * val + 0.58216001)
    v_endif()
    with v_if(result > 1.0):
        result.assign(1.0)
    v_endif()
    return result


def cdf_appx(val, scaled: bool):
    """_calculate_cdf_appx_: 1 - cdf(-x) for x < 0, cdf(x) otherwise; times x when scaled."""
    result = vFloat(0.0)
    with v_if(val < 0.0):
        result.assign(1.0 - pos_cdf_appx(-val))
    with v_else():
        result.assign(pos_cdf_appx(val))
    v_endif()
    if scaled:
        result *= val
    return result


def gelu_cdf():
    """One iteration of tt-llk _calculate_gelu_accurate_ (scaled = true)."""
    x = dst_reg[0]
    dst_reg[0] = cdf_appx(x, scaled=True)


# --- gelu_derivative_approx: 6-entry table, +1 where negative --------------------------------

# _init_gelu_derivative_<true> table words: slopes 0.8, 0.4, 0.1, -0.09, -0.075, 0 and
# intercepts 0.5, 0.7, 0.99, 1.27, 1.235, 1.0 (FP16 halves; 0x7C00 decodes to 0).
GELU_DERIVATIVE_TABLE = {LRegs.LReg0: 0x36663A66, LRegs.LReg1: 0xADC32E66,
                         LRegs.LReg2: 0x7C00ACCD, LRegs.LReg4: 0x399A3800,
                         LRegs.LReg5: 0x3D143BEC, LRegs.LReg6: 0x3C003CF1}


def gelu_derivative_approx_init():
    """_init_gelu_derivative_<true>: the six table registers."""
    for reg, word in GELU_DERIVATIVE_TABLE.items():
        l_reg[reg] = vUInt(word)


def gelu_derivative_approx():
    """One iteration of _calculate_gelu_derivative_<true>: lut2 (TABLE1, sign retained), then
    val += 1 where val < 0."""
    l0, l1, l2, l4, l5, l6 = _table_registers()
    val = _load_lut_input()
    val = lut2(val, l0, l1, l2, l4, l5, l6, mode=1)
    with v_if(val < 0.0):
        val.assign(val + 1.0)
    v_endif()
    dst_reg[0] = val


# --- gelu_derivative: exp(-x*x/2) * x / sqrt(2 pi) + LUT CDF ----------------------------------

def gelu_derivative_init():
    """_init_gelu_derivative_<false>: _init_exponential_<false, false, 1.0>, i.e. the
    reciprocal constants of the chip. (The source then loads LReg0 = 0x28FF and LReg1 = 0x3020
    with _sfpu_load_imm16_; here the body loads them just before the SFPLUT, see
    :func:`gelu_derivative`.)"""
    reciprocal_init(False)


def gelu_derivative():
    """One iteration of _calculate_gelu_derivative_<false>: exp_legacy(-x*x/2) * x *
    0.3984375 + lut(x) + 0.5, where lut = SFPLUT (sign retained) with LReg2 = 0xFF10 (|x| >= 2:
    0*|x| + 0.5); no rounding."""
    x = dst_reg[0]
    neg_half_sq_in = x * x * -0.5
    e = exp_legacy(neg_half_sq_in)
    partial = e * x * s2vFloat16b(0.3989423)
    # The SFPLUT coefficient bytes (_sfpu_load_imm16_ of the init in the source: |x| < 1:
    # 0.375|x|; 1 <= |x| < 2: 0.125|x| + 0.25; beyond: 0.5). Loaded here, the same values:
    # held in LReg0/1 across the loop they leave the DSL's greedy allocator, which does not
    # reorder instructions as sfpi-gcc's scheduler does, too few registers for the Wormhole
    # reciprocal inside exp_legacy.
    l0, l1 = vUInt(0x28FF), vUInt(0x3020)
    result = lut(x, l0, l1, vUInt(0xFF10))      # _calculate_gelu_core_<true>(in) is in
    dst_reg[0] = partial + result + 0.5


# --- registration ---------------------------------------------------------------------------


register_kernel(
    "gelu", gelu, function="gelu", mode="accurate", dest="bf16",
    provenance="tt-metal ckernel_sfpu_gelu.h calculate_gelu<false> + calculate_gelu_chebyshev "
               "(POLYVAL15), PR #27283 (Sep 2025), live in Jan 2026 (issue #35290); x==0 -> 0, "
               "x>=3 -> x, x<-5.5 -> 0, else setsgn(poly15(x), x); no rounding (SFPSTORE "
               "truncates)",
    description="ttnn.gelu default (accurate) on a BF16 tensor, Jan 2026")

register_kernel(
    "gelu_taylor_tiny", gelu_taylor_tiny, function="gelu", mode="accurate", dest="bf16",
    provenance="tt-metal ckernel_sfpu_gelu.h, undated revision (index id 30231426931, after "
               "Sep 2025): the Jan-2026 Chebyshev kernel plus |x| <= 1e-6 -> 0.5*x",
    description="GELU Chebyshev variant with a tiny-input 0.5*x branch (undated)")

register_kernel(
    "gelu_approx", gelu_approx, init=gelu_approx_init, function="gelu", mode="approximate",
    dest="bf16",
    template="calculate_gelu", params={"APPROXIMATION_MODE": True},
    provenance="tt-llk ckernel_sfpu_gelu.h _calculate_gelu_appx_/_init_gelu_ (c635ca695, "
               "2026-01-30; = tt-metal calculate_gelu_appx, Sep 2026): x*0.5 + SFPLUTFP32 "
               "6-entry TABLE1 (no sign retain); no rounding",
    description="ttnn.gelu(fast_and_approximate_mode=True) on a BF16 tensor")

register_kernel(
    "gelu_cdf", gelu_cdf, function="gelu", mode="accurate", dest="bf16",
    provenance="tt-llk ckernel_sfpu_gelu.h _calculate_gelu_accurate_ -> ckernel_sfpu_cdf.h "
               "_calculate_cdf_appx_(x, scaled=true) (c635ca695, 2026-01-30); overridden in "
               "ttnn, measured by the tt-llk harness; no rounding",
    description="tt-llk accurate GELU (CDF polynomial times x)")

register_kernel(
    "gelu_derivative", gelu_derivative, init=gelu_derivative_init, function="gelu_derivative",
    mode="accurate", dest="bf16",
    provenance="tt-llk ckernel_sfpu_gelu.h _calculate_gelu_derivative_<false> / "
               "_init_gelu_derivative_<false> (c635ca695, 2026-01-30; tt-metal "
               "calculate_gelu_derivative calls it): legacy exp(-x*x/2) (reciprocal<2> of "
               "_sfpu_exp_), times x * s2vFloat16b(0.3989423), plus SFPLUT 0x28FF/0x3020/0xFF10 "
               "(sign retained), plus 0.5; no rounding",
    description="GELU derivative, accurate (tt-llk, Jan 2026)")

register_kernel(
    "gelu_derivative_approx", gelu_derivative_approx, init=gelu_derivative_approx_init,
    function="gelu_derivative", mode="approximate", dest="bf16",
    provenance="tt-llk ckernel_sfpu_gelu.h _calculate_gelu_derivative_<true> / "
               "_init_gelu_derivative_<true> (c635ca695, 2026-01-30): SFPLUTFP32 6-entry "
               "TABLE1 with sign retain, +1 where negative; no rounding",
    description="GELU derivative, approximate (6-entry LUT)")
