"""FP32-Dst instantiations of derivative kernels, as of Sep 2026.

``tanh_derivative_fp32_2026_09``: tt-metal ``ckernel_sfpu_tanh_derivative.h``
``calculate_tanh_derivative_sech2<false, is_fp32_dest_acc_en=true, 32>`` (PR #39378), read in
the Wormhole file at commit 028ecce9c4f2556a5f955382812747bafa54afa8 (index id 69346561135):
the body is the BF16 one of kernels/tanh_derivative.py (degree-10 polynomial in (2/9)x^2 - 1
for |x| < 3, Cody-Waite 4 exp(-2|x|) for |x| < 45, else 0) and ``is_fp32_dest_acc_en`` only
drops the final ``convert<vFloat16b>(., Nearest)``: the FP32 sum goes to Dst unrounded.
Dating: a later Blackhole revision (index id 68498446769, citing issue #57509) gives the FP32
arm its own body, 4e/(1 + e)^2 with e = exp(-2|x|) and an SFPARECIP-seeded Newton reciprocal;
SFPARECIP is a Blackhole instruction, and the Wormhole file read has no FP32 arm, so the
Wormhole table is taken to run the shared body.

``gelu_derivative_approx_2026_09`` / ``gelu_derivative_approx_fp32_2026_09``: tt-metal
``ckernel_sfpu_gelu.h`` ``calculate_gelu_derivative_polynomial<APPROXIMATION_MODE=true,
is_fp32_dest_acc_en, 32>`` with ``gelu_derivative_polynomial_init<true>`` (read in the Wormhole
file @04154da6, index id 70527947459, the revision kernels/gelu_2026.py models for approx=No;
the harness's template order matches it). ``APPROXIMATION_MODE`` changes two things only:

* the tail (-13.375 < x < -3) is ``x*exp(-x*x/2) * (1/sqrt(2 pi))`` (one SFPMAD on
  ``x_times_exp_negative_tail``), with no Mills-ratio factor and so no reciprocal;
* the init only resets the counters (``sfpu_reciprocal_init`` is skipped).

The other regions are kernels/gelu_2026.py's ``gelu_derivative_simple``: 1 from 3.1719,
``0.5 + x*h8(x*x)`` from -3, 0 at and below -13.375 (and at NaN). BF16 Dst ends with
``convert<vFloat16b>(., Nearest)``, FP32 Dst stores the FP32 value. This is not the Jan-2026
tt-llk LUT kernel (kernels/gelu.py ``gelu_derivative_approx``, ``_calculate_gelu_derivative_
<true>``), which PR #45920 removed and the harness no longer calls.
"""
from __future__ import annotations

from kernels.gelu_2026 import (DERIV_CORE_LOW, DERIV_ONE_FROM, DERIV_ZERO_BELOW, GELU_DERIV_H,
                               INV_SQRT_2PI, x_times_exp_negative_tail)
from kernels.tanh_derivative import (CORE_REGION_LIMIT, SECH2_POLY, TAIL_REGION_LIMIT,
                                     inline_exp_sech2_tail)
from kernels.common import polyval
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, dst_reg, float_to_fp16b, reinterpret, v_elseif, v_endif, v_if,
                           vConst0, vConstNeg1, vFloat)


def tanh_derivative_fp32_2026_09():
    """One iteration of ``calculate_tanh_derivative_sech2<false, true, 32>``: no rounding."""
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
    dst_reg[0] = result


register_kernel(
    "tanh_derivative_fp32_2026_09", tanh_derivative_fp32_2026_09, function="tanh_derivative",
    mode="accurate", dest="fp32", template="calculate_tanh_derivative_sech2",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="tanh_derivative",
    provenance="tt-metal WH ckernel_sfpu_tanh_derivative.h calculate_tanh_derivative_sech2 "
               "(PR #39378; @028ecce9, index id 69346561135): the BF16 body (degree-10 poly in "
               "(2/9)x^2 - 1 below 3, Cody-Waite 4 exp(-2|x|) below 45, else 0) without the "
               "convert<vFloat16b> rounding",
    description="tanh_derivative_tile with an FP32 Dst (sech^2 form, no final rounding)")


def gelu_derivative_approx_body(x):
    """``calculate_gelu_derivative_simple<true, is_fp32_dest_acc_en>(x)`` (no dest branch)."""
    result = vFloat(0.0)
    with v_if(x >= DERIV_ONE_FROM):
        result.assign(1.0)
    with v_elseif(x >= DERIV_CORE_LOW):
        u = x * x
        h = polyval(u, *GELU_DERIV_H)
        result.assign(0.5 + x * h)
    with v_elseif(x > DERIV_ZERO_BELOW):
        x2 = x * x
        t = x2 * -0.5
        x_exp = x_times_exp_negative_tail(x, t)
        result.assign(x_exp * INV_SQRT_2PI)            # APPROXIMATION_MODE: x*phi(x) alone
    v_endif()
    return result


def gelu_derivative_approx_2026_09():
    """One iteration of ``calculate_gelu_derivative_polynomial<true, false, 32>``."""
    result = gelu_derivative_approx_body(dst_reg[0])
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(result, 0))


def gelu_derivative_approx_fp32_2026_09():
    """One iteration of ``calculate_gelu_derivative_polynomial<true, true, 32>``."""
    dst_reg[0] = gelu_derivative_approx_body(dst_reg[0])


_GELU_SOURCE = ("tt-metal ckernel_sfpu_gelu.h calculate_gelu_derivative_polynomial<true, ...> + "
                "gelu_derivative_polynomial_init<true> (WH @04154da6, index id 70527947459; the "
                "approx=No row's revision)")

register_kernel(
    "gelu_derivative_approx_2026_09", gelu_derivative_approx_2026_09,
    function="gelu_derivative", mode="approximate", dest="bf16",
    template="calculate_gelu_derivative_polynomial",
    params={"APPROXIMATION_MODE": True, "is_fp32_dest_acc_en": False},
    provenance=f"{_GELU_SOURCE}: 1 from 3.1719, 0.5 + x*h8(x^2) from -3, x*exp(-x^2/2)/"
               "sqrt(2pi) above -13.375 (no Mills correction, no reciprocal), else 0; "
               "convert<vFloat16b>(., Nearest)",
    description="GELU derivative, approximate mode, on a BF16 Dst, Jun - Sep 2026")

register_kernel(
    "gelu_derivative_approx_fp32_2026_09", gelu_derivative_approx_fp32_2026_09,
    function="gelu_derivative", mode="approximate", dest="fp32",
    template="calculate_gelu_derivative_polynomial",
    params={"APPROXIMATION_MODE": True, "is_fp32_dest_acc_en": True},
    instance_of="gelu_derivative_approx_2026_09",
    provenance=f"{_GELU_SOURCE}: the BF16-Dst body, no final rounding",
    description="GELU derivative, approximate mode, with an FP32 Dst, Jun - Sep 2026")
