"""The float mask of the accuracy harness's SfpuMask row, 2026, both chips: ``calculate_mask``
through the harness's ``calculate_mask_binary`` adapter: data (in0, ``dst_reg[0]``) is zeroed
where the mask (in1, ``dst_reg[32]``) is zero, and left in place elsewhere.

Sources read: tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/
ckernel_sfpu_mask.h`` (index ids 58808596759, 70692464428): ``v_if(_sfpu_is_fp16_zero_(mask))
{ dst_reg[0] = 0.0f; }`` with ``mask_val_idx = 32``; for a BF16 (8-bit exponent) Dst
``_sfpu_is_fp16_zero_`` is ``mask == 0.0f`` (``ckernel_sfpu_is_fp16_zero.h``, the exponent_size_8
branch; index ids 5856902814, 14080376209), a zero test on the raw bits (SFPSETCC), so -0.0 and
denormal masks are not zero there. The harness (``sfpu_test_helpers.h``, index id 56332876623;
``test_eltwise_binary_sfpu_mask``, index id 58031140234) drives it on Float16_b and Float32, one
tile pair, data a = 1 + j % 8 and mask 0 where j % 3 == 0, else 1.
"""
from __future__ import annotations

from kernels.binary_2026 import IN1
from sfpu_sim.registry import register_kernel
from sfpu_sim.sfpi import dst_reg, v_endif, v_if

SOURCE = ("tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
          "ckernel_sfpu_mask.h (index ids 58808596759, 70692464428) through the harness's "
          "calculate_mask_binary (sfpu_test_helpers.h, index id 56332876623)")


def binary_mask_2026_09():
    """``calculate_mask<false, 8>`` one row: data zeroed where the mask is zero."""
    mask = dst_reg[IN1]
    with v_if(mask == 0.0):
        dst_reg[0] = 0.0
    v_endif()


register_kernel(
    "binary_mask_2026_09", binary_mask_2026_09, function="mask", operands=2,
    template="calculate_mask_binary", params={"APPROXIMATION_MODE": False, "ITERATIONS": 8},
    provenance=f"{SOURCE}: dst_reg[0] = 0.0 where the mask (dst_reg[32]) is zero (SFPSETCC, raw "
               f"bits), the data left in place elsewhere",
    description="SfpuMask row (float mask), either Dst, 2026")
