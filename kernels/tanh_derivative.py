"""tanh derivative kernels (tt-metal and tt-llk ``ckernel_sfpu_tanh_derivative.h``).

Reference function ``tanh_derivative`` = 1 - tanh(x)^2 = sech(x)^2.

``tanh_derivative``: tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_tanh_derivative.h`` ``calculate_tanh_derivative_sech2<false, false>``, PR
#39378 (Mar 2026), which ``tanh_derivative_tile`` (and the fused ttnn.tanh_bw) dispatches from
then on. BF16 Dst arm, read in the BH file @00dab09c (>= May 2026, ``convert<vFloat16b>`` API)
and in later revisions (index 68498446769, Sep 2026) whose BF16 arm is the same math:

* ``a = |x|``; ``result = 0``;
* ``a < 3``: ``u = a*a``, ``t = u*(2/9) + (-1)`` (one SFPMAD), degree-10 Horner in ``t``
  (11 coefficients, ``PolynomialEvaluator::eval``);
* ``3 <= a < 45``: ``inline_exp_sech2_tail(a)`` = ``exp(-2a + ln 4)`` by Cody-Waite:
  ``t = a*(-2) + ln4``, ``z = t*(1/ln2)``, ``k = round(z)`` by adding and subtracting
  1.5*2**23 (``_sfpu_round_to_nearest_int32_``, also giving ``k_int``), ``r = k*LN2_HI + t``,
  ``r = k*LN2_LO + r``, degree-4 Taylor ``1, 1, 1/2, 0.166666667, 0.0416666667``, then the
  exponent field plus ``k_int`` (``setexp``) where it stays > 0, else 0;
* ``a >= 45`` (and NaN): 0;
* ``float_to_fp16b(result, 0)`` (BF16 Dst).

The Mar-2026 PR version itself was not read (only later files with the same coefficients and
structure, and PR #39378's own description): the later revisions only renamed sfpi API
calls (``ExponentMode::NoDebias`` / ``Biased`` = ``exexp_nodebias``; ``convert<vFloat16b>(,
RoundMode::Nearest)`` = ``float_to_fp16b(, 0)``; ``vConst1`` / ``1.0f`` literals), none of which
changes an instruction's result.

``tanh_derivative_lut``: tt-llk ``_calculate_tanh_derivative_<APPROX, WITH_PRECOMPUTED_TANH=0>``
(c635ca695, 2026-01-30; identical to tt-metal's ``calculate_tanh_derivative``, unchanged since
2024) with ``tanh_derivative_init`` loading the tanh SFPLUT pairs 0x1DFF / 0x481A / 0xFF00:
``val = lut(x)`` (sign retained), ``val = val * (-val) + 1`` (one SFPMAD); no rounding (the
truncating SFPSTORE ends it). Choice: the 3-entry table (what ``tanh_derivative_init`` loads
through Aug 2026); the Sep-2026 tree loads a 6-entry table fitted for sech^2 there instead.
"""
from __future__ import annotations

from kernels.common import as_float, polyval
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    LRegs,
    abs,
    dst_reg,
    exexp_nodebias,
    float_to_fp16b,
    l_reg,
    lut,
    reinterpret,
    setexp,
    v_elseif,
    v_endif,
    v_if,
    vConst0,
    vConst1,
    vConstNeg1,
    vFloat,
    vInt,
    vUInt,
)

# --------------------------------------------------------------------------------------------
# tanh_derivative_lut
# --------------------------------------------------------------------------------------------


def tanh_derivative_lut_init():
    """``tanh_derivative_init``: ``_sfpu_load_imm16_`` of the tanh SFPLUT pairs."""
    l_reg[LRegs.LReg0] = vUInt(0x1DFF)       # 0.90625 * |x|
    l_reg[LRegs.LReg1] = vUInt(0x481A)       # 0.09375 * |x| + 0.8125
    l_reg[LRegs.LReg2] = vUInt(0xFF00)       # 1.0


def tanh_derivative_lut():
    """One iteration of ``_calculate_tanh_derivative_<APPROX, 0>``: 1 - lut(x)**2."""
    l0 = l_reg[LRegs.LReg0]
    l1 = l_reg[LRegs.LReg1]
    l2 = l_reg[LRegs.LReg2]
    val = dst_reg[0]
    val = lut(val, l0, l1, l2)
    val = val * (-val) + vConst1
    dst_reg[0] = val


# --------------------------------------------------------------------------------------------
# tanh_derivative: sech^2, PR #39378
# --------------------------------------------------------------------------------------------

SECH2_POLY = (5.58971869398334972323e-02, -1.15151201975556879975e-01,
              1.41578556434459129632e-01, -1.40162303416289407698e-01,
              1.47692044971667296727e-01, -1.43049915574319674860e-01,
              3.59505515570256450886e-02, 5.00465512420113917136e-02,
              6.00316523798012785518e-02, -1.46346136132160548060e-01,
              6.33840343077387569082e-02)
CORE_REGION_LIMIT = 3.0
TAIL_REGION_LIMIT = 45.0
LN4 = 1.3862943611198906
INV_LN2 = 1.4426950408889634
LN2_HI = -0.6931152343750000          # -ln 2, high part (exact in float)
LN2_LO = -3.19461832987e-05           # -ln 2, low part
TAYLOR_C3 = 0.166666667
TAYLOR_C4 = 0.0416666667


def round_to_nearest_int32(z):
    """tt-llk ``_sfpu_round_to_nearest_int32_`` (ckernel_sfpu_exp.h): ``k = (z + c) - c`` with
    ``c = 0x4B400000`` (1.5 * 2**23; round to nearest even), and ``k_int = bits(z + c) -
    bits(c)``. Returns ``(k, k_int)``."""
    c231 = vFloat(as_float(0x4B400000))
    tmp = z + c231
    k = tmp - c231
    k_int = reinterpret(vInt, tmp) - reinterpret(vInt, c231)
    return k, k_int


def inline_exp_sech2_tail(a):
    """``exp(-2a + ln 4)`` = 4 exp(-2a) for a >= 3: Cody-Waite + degree-4 Taylor + exponent
    add, 0 where the new exponent field would be <= 0."""
    t = a * (-2.0) + LN4
    z = t * INV_LN2
    k, k_int = round_to_nearest_int32(z)
    r = k * LN2_HI + t
    r = k * LN2_LO + r
    poly = polyval(r, vConst1, vConst1, 0.5, TAYLOR_C3, TAYLOR_C4)
    p_exp = exexp_nodebias(poly)
    new_exp = p_exp + k_int
    result = vFloat(vConst0)
    with v_if(new_exp > 0):
        result.assign(setexp(poly, new_exp))
    v_endif()
    return result


def tanh_derivative():
    """One iteration of ``calculate_tanh_derivative_sech2<APPROX, is_fp32_dest_acc_en=false>``."""
    val = dst_reg[0]
    result = vFloat(vConst0)
    a = abs(val)
    with v_if(a < CORE_REGION_LIMIT):
        u = a * a
        t = u * (2.0 / 9.0) + vConstNeg1
        result.assign(polyval(t, *SECH2_POLY))
    with v_elseif(a < TAIL_REGION_LIMIT):
        result.assign(inline_exp_sech2_tail(a))
    v_endif()
    result = reinterpret(vFloat, float_to_fp16b(result, 0))
    dst_reg[0] = result


register_kernel(
    "tanh_derivative", tanh_derivative, function="tanh_derivative", mode="accurate", dest="bf16",
    template="calculate_tanh_derivative_sech2",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance="tt-metal ckernel_sfpu_tanh_derivative.h calculate_tanh_derivative_sech2, PR "
               "#39378 (Mar 2026; read in BH @00dab09c and Sep-2026 revisions, same BF16 math): "
               "degree-10 poly in (2/9)x^2 - 1 for |x| < 3, Cody-Waite 4 exp(-2|x|) for |x| < "
               "45, else 0; float_to_fp16b(, 0)",
    description="tanh_derivative_tile / fused ttnn.tanh_bw from Mar 2026: sech^2 form")

register_kernel(
    "tanh_derivative_lut", tanh_derivative_lut, init=tanh_derivative_lut_init,
    function="tanh_derivative", mode="approximate", dest="bf16",
    provenance="tt-llk ckernel_sfpu_tanh_derivative.h _calculate_tanh_derivative_ (c635ca695, "
               "2026-01-30; = tt-metal calculate_tanh_derivative, unchanged since 2024) with "
               "tanh_derivative_init's SFPLUT 0x1DFF/0x481A/0xFF00: lut(x)*(-lut(x)) + 1, no "
               "rounding",
    description="1 - tanh_lut(x)^2 (the legacy tanh-derivative kernel)")
