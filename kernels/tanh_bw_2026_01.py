"""ttnn.tanh_bw as it ran in Jan 2026: four ttnn ops on BF16 tensors (below), and the square
kernel of that date.

``tanh_bw``: tt-metal ``ttnn/cpp/ttnn/operations/eltwise/unary_backward/unary_backward.cpp``,
``ExecuteUnaryBackwardTanh::invoke`` (index id 121786940; the same four calls are quoted by
issue #35885 on 2026-01-15 and by the Wormhole baseline report on main 1c22985943,
2026-03-07; PR #39378, Mar 2026, replaced them by the fused kernel ``tanh_derivative``). Each op
is its own program and writes a BF16 tensor:

1. ``ttnn::tanh(x)``: ``calculate_tanh<false, false>`` (no approx argument), kernel ``tanh``;
2. ``ttnn::square(t)``: unary SQUARE, ``calculate_square`` -> tt-llk ``_calculate_square_``:
   ``in * in`` and nothing else, so the 16-bit Dst store truncates (``square_2026_01``);
3. ``ttnn::rsub(s, 1.0)``: binary_ng with a scalar; for BF16 not an SFPU op, so its config is
   ``process_lhs = NEG`` and ``FpuBinaryOp::ADD`` (binary_ng_utils.cpp, index ids 471216358,
   3591098791): the lhs goes through ``negative_tile`` (SFPU, kernel ``negative_2026_09``:
   ``-val``, the same in every revision read, tt-llk @14caef2e and @15d3ec70), is packed to a
   BF16 buffer, then ``add_tiles`` runs ELWADD on the Matrix Unit with a tile of 1.0 (SrcB);
4. ``ttnn::multiply(grad, r)``: binary_ng MUL, ``mul_tiles``: ELWMUL, grad in SrcA, at
   ComputeConfig's default fidelity HiFi4 (binary_ng_program_factory.cpp sets none).

grad is fixed at 1.0, as in both published sweeps. The FPU's numerics are :mod:`sfpu_sim.fpu`:
its 16-bit adder rule is inferred from these published figures, not documented.

``square_2026_01``: tt-llk ``tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/
ckernel_sfpu_square.h`` ``_calculate_square_`` (@14caef2e Blackhole, index id 7998121017;
@040922ad Wormhole, index id 43174761958), which tt-metal's ``calculate_square`` called (index
id 9866749860): one SFPMUL, stored as is. tt-metal's own 2026 ``calculate_square`` (@00d211a6,
kernel ``square_2026_09``) adds ``float32_to_bf16_rne`` for a 16-bit Dst; issue #57408 (Sep
2026) still reports ``ttnn.square`` truncating. No ``is_fp32_dest_acc_en`` parameter: one
program for both Dst modes.
"""
from __future__ import annotations

from sfpu_sim import register_kernel
from sfpu_sim.chained_ops import FpuStage, SfpuStage, register_chained_op
from sfpu_sim.sfpi import dst_reg

GRAD = 1.0                   # the seed's grad tensor: every element 1.0
RSUB_SCALAR = 1.0            # ttnn::rsub(t, 1.0f): 1.0 - t


def square_2026_01():
    """tt-llk ``_calculate_square_<APPROX, ITERATIONS>``: ``in * in`` (SFPMUL), no rounding."""
    v = dst_reg[0]
    dst_reg[0] = v * v


register_kernel(
    "square_2026_01", square_2026_01, function="square", mode="accurate", dest="bf16",
    template="_calculate_square_", params={"APPROXIMATION_MODE": False},
    provenance="tt-llk ckernel_sfpu_square.h _calculate_square_ (@14caef2e BH, index id "
               "7998121017; @040922ad WH, index id 43174761958), called by tt-metal "
               "calculate_square until 2026 (index id 9866749860): in * in (SFPMUL), no "
               "rounding (the truncating SFPSTORE ends it)",
    description="ttnn.square on a BF16 tensor before the 2026 RNE fix (square_2026_09); step "
                "2 of tanh_bw in Jan 2026")

register_chained_op(
    "tanh_bw",
    [SfpuStage("ttnn::tanh", "tanh"),
     SfpuStage("ttnn::square", "square_2026_01"),
     SfpuStage("ttnn::rsub, lhs pre-activation negative_tile", "negative_2026_09"),
     FpuStage("ttnn::rsub, add_tiles", "ELWADD", RSUB_SCALAR, constant_in_srca=False),
     FpuStage("ttnn::multiply(grad, .), mul_tiles", "ELWMUL", GRAD, constant_in_srca=True)],
    ops=("ttnn::tanh", "ttnn::square", "ttnn::rsub", "ttnn::multiply"),
    function="tanh_derivative",
    provenance="tt-metal unary_backward.cpp ExecuteUnaryBackwardTanh::invoke, Jan 2026 (index "
               "id 121786940; issue #35885, 2026-01-15; main 1c22985943, 2026-03-07; replaced "
               "by PR #39378, Mar 2026): ttnn::tanh (tanh = calculate_tanh<false, false>) -> "
               "ttnn::square (square_2026_01, truncating store) -> ttnn::rsub(., 1.0) = "
               "binary_ng negative_tile (negative_2026_09) then FPU ELWADD with a tile of 1.0 "
               "-> ttnn::multiply(grad, .) = binary_ng FPU ELWMUL (HiFi4); BF16 tensors between "
               "the ops; FPU adder rule truncated_align_11_ties_away INFERRED from the "
               "published tanh_bw figures (Blackhole Jan 2026, Wormhole 2026-03-07), not "
               "documented; ELWMUL's rounding unknown, exact here (grad = 1.0)",
    description="ttnn.tanh_bw(grad, x) on BF16 tensors as it ran in Jan 2026, a chain of four "
                "ttnn ops (grad fixed at 1.0, as in the seed report and the Wormhole baseline, "
                "so the output is 1 - tanh(x)^2 as the chain rounds it)")
