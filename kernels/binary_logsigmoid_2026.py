"""Binary SFPU logsigmoid, 2026, both chips: ``calculate_logsigmoid`` (the accuracy harness's
SfpuLogsigmoid row; ttnn's logsigmoid, which passes exp(-x) as the second operand).

Operands as in :mod:`kernels.binary_2026`: in0 = x at ``dst_reg[0]``, in1 = exp(-x) at
``dst_reg[32]``; the result goes to tile 0.

Sources read (tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_logsigmoid.h``; Wormhole @6f8a4c5b, index id 10211188444; Blackhole
@1d07704f, index id 27222177816, the same arithmetic): ``calculate_logsigmoid<APPROX, 8>(in0,
in1, out)``, ``logsigmoid_init`` empty. logsigmoid(x) = -softplus(-x), piecewise in t = -x:

* t < -4 (x > 4): ``-in1`` (the op's exp(-x));
* -4 <= t < 4 (-4 < x <= 4): ``-PolynomialEvaluator::eval(t, c0..c8)``, a degree-8 fit of
  softplus in Horner form (``ckernel_sfpu_polyval.h``), one SFPMAD per step;
* otherwise (x <= -4, and NaN, which no compare selects): x itself.

No rounding step: SFPSTORE truncates the FP32 result into a 16-bit Dst.
"""
from __future__ import annotations

from kernels.binary_2026 import IN1
from kernels.common import as_float, polyval
from sfpu_sim.registry import register_kernel
from sfpu_sim.sfpi import dst_reg, v_elseif, v_endif, v_if, vFloat

SOURCE = ("tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
          "ckernel_sfpu_logsigmoid.h (WH @6f8a4c5b, index id 10211188444; BH @1d07704f, "
          "index id 27222177816)")
# softplus(t) on [-4, 4), ascending powers (the source's decimal literals as FP32 bits)
SOFTPLUS = tuple(as_float(bits) for bits in (
    0x3F314373, 0x3EFC4AA8, 0x3DF8AD0D, 0x3B4BD5DB, 0xBB58CC3F, 0xB996F6BE, 0x385F1366,
    0x36F119BA, 0x33A0FA4F))
KNEE = 4.0


def binary_logsigmoid_2026_09():
    x = dst_reg[0]
    exp_neg_x = dst_reg[IN1]
    result = vFloat(x)
    t = -x
    with v_if(t < -KNEE):
        result.assign(-exp_neg_x)
    with v_elseif((t >= -KNEE) & (t < KNEE)):
        result.assign(-polyval(t, *SOFTPLUS))
    v_endif()
    dst_reg[0] = result


register_kernel(
    "binary_logsigmoid_2026_09", binary_logsigmoid_2026_09, function="logsigmoid", operands=2,
    template="calculate_logsigmoid", params={"APPROXIMATION_MODE": False, "ITERATIONS": 8},
    provenance=f"{SOURCE}: x > 4: -in1 (exp(-x)); -4 < x <= 4: -softplus(-x) by a degree-8 "
               f"polynomial in -x (Horner, SFPMAD); x <= -4: x",
    description="SfpuLogsigmoid row / ttnn logsigmoid (in1 = exp(-x)), either Dst, 2026")
