"""Binary SFPU kernels of Sep 2026: add, sub, rsub, mul (BinaryOp) and max/min, both chips.

Each reads in0 from Dst tile 0 (``dst_reg[0]``) and in1 from tile 1 (``dst_reg[32]``, Dst
address 64) and writes tile 0 (:mod:`sfpu_sim.binary_device`). Wormhole and Blackhole run the
same source; only their SFPMAD datapaths differ (denormal results, zero signs, NaN bits).

Sources read:

* tt-metal ``tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_sfpu/ckernel_sfpu_binary.h``
  @02406b25 (index id 70173998202; undated, >= May 2026 by its sfpi API: ``convert<>``,
  ``RoundMode``): ``calculate_sfpu_binary<APPROX, BINOP, ITERATIONS, is_fp32_dest_acc_en,
  dst_rounding_mode = DstRoundingMode::Default>``: ADD ``in0 + in1``, SUB ``in0 - in1``, RSUB
  ``in1 - in0``, MUL ``in0 * in1`` (one SFPMAD each), then ``float32_to_bf16_rne`` only for
  ADD/SUB/RSUB with a 16-bit Dst *and* ``DstRoundingMode::NearestEven``; with the default mode
  nothing rounds, and SFPSTORE truncates to a 16-bit Dst. ``calculate_sfpu_binary_mul`` (what
  ttnn's ``mul_binary_tile`` runs) adds, for a 16-bit Dst, ``float32_to_bf16_rne`` and
  ``v_if(in0 == 0 || in1 == 0) result = 0``.
* The accuracy harness (tt-metal ``tt_metal/tt-llk/tests/helpers/include/sfpu_operations.h``,
  index id 54585064014, Sep 2026) calls ``calculate_sfpu_binary<APPROX, BINOP, 8>`` for ADD,
  SUB, RSUB *and* MUL with the default rounding mode: the ``*_2026_09`` kernels here, the same
  program for either Dst mode (nothing in it depends on ``is_fp32_dest_acc_en``).
* tt-llk ``tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/ckernel_sfpu_binary.h`` @36b092e8e
  (2026-04-11; last change 1b4838ce3, 2026-02-04): ``_calculate_sfpu_binary_``, the same
  ADD/SUB/MUL/RSUB arithmetic without any rounding step.
* tt-metal ``…/llk_sfpu/ckernel_sfpu_binary_max_min.h`` @06e2ea81 (index id 70150471281;
  undated, 2026, with Jason Davies's NaN fix): ``calculate_binary_max_min<IS_MAX_OP, 8>``,
  raw TTI: SFPSWAP VEC_MIN_MAX (sign-magnitude order), then where the discarded operand is
  NaN (``|other| - inf > 0`` as integers: SFPSETSGN + SFPIADD CC_LT0) it replaces the result.
  Earlier revisions (an SFPLOADMACRO schedule, index ids 52301495045, 7870447500) give the same
  bits except where an operand is NaN.
"""
from __future__ import annotations

from kernels.elementwise_2026 import float32_to_bf16_rne
from sfpu_sim.asm import assemble
from sfpu_sim.registry import register_kernel, register_program
from sfpu_sim.sfpi import dst_reg, v_endif, v_if

METAL = "tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
BINARY_H = METAL + "ckernel_sfpu_binary.h @02406b25 (index id 70173998202)"
MAX_MIN_H = METAL + "ckernel_sfpu_binary_max_min.h @06e2ea81 (index id 70150471281)"
IN1 = 32                            # dst_reg index of tile 1: dst_tile_size_sfpi


def binary_add_2026_09():
    """``calculate_sfpu_binary<false, ADD, 8>``: ``in0 + in1`` (SFPADD), no rounding."""
    dst_reg[0] = dst_reg[0] + dst_reg[IN1]


def binary_sub_2026_09():
    """``calculate_sfpu_binary<false, SUB, 8>``: ``in0 - in1``, no rounding."""
    dst_reg[0] = dst_reg[0] - dst_reg[IN1]


def binary_rsub_2026_09():
    """``calculate_sfpu_binary<false, RSUB, 8>``: ``in1 - in0``, no rounding."""
    in0 = dst_reg[0]
    dst_reg[0] = dst_reg[IN1] - in0


def binary_mul_2026_09():
    """``calculate_sfpu_binary<false, MUL, 8>``: ``in0 * in1`` (SFPMUL), no rounding."""
    dst_reg[0] = dst_reg[0] * dst_reg[IN1]


def binary_mul_rne_2026_09():
    """``calculate_sfpu_binary_mul<false, MUL, 8, false>`` (ttnn ``mul_binary_tile``, 16-bit
    Dst): the product rounded by ``float32_to_bf16_rne``, then 0 where an operand is zero."""
    in0, in1 = dst_reg[0], dst_reg[IN1]
    result = float32_to_bf16_rne(in0 * in1)
    with v_if((in0 == 0.0) | (in1 == 0.0)):
        result.assign(0.0)
    v_endif()
    dst_reg[0] = result


def binary_mul_rne_fp32_2026_09():
    """``calculate_sfpu_binary_mul<false, MUL, 8, true>``: ``in0 * in1``, nothing else."""
    dst_reg[0] = dst_reg[0] * dst_reg[IN1]


# calculate_binary_max_min<IS_MAX_OP>, TT_ macro argument order; keep = L1 (max) or L0 (min).
_MAX_MIN = """\
SFPLOADI  L2, FLOATB, 0x7f80        # inf
SFPLOAD   L0, SRCB, 0, 0            # in0 (tile 0)
SFPLOAD   L1, SRCB, 0, 64           # in1 (tile 1)
SFPSWAP   0, L1, L0, VEC_MIN_MAX    # L1 = max, L0 = min (sign-magnitude order)
SFPSETSGN 0, {other}, L3, 1         # scratch = |other|
SFPIADD   0, L2, L3, 2              # inf - |other| < 0: other is NaN (2SCOMP_LREG_DST, CC_LT0)
SFPMOV    0, {other}, {keep}, 0     # there the NaN replaces the result
SFPENCC   0, 0, 0, 0
SFPSTORE  {keep}, SRCB, 0, 0        # tile 0
"""


def _max_min_program(is_max: bool):
    keep, other = ("L1", "L0") if is_max else ("L0", "L1")
    name = "binary_max_2026_09" if is_max else "binary_min_2026_09"

    def build(arch):
        program = assemble(_MAX_MIN.format(keep=keep, other=other), arch,
                           filename=f"kernels/binary_2026.py:{name}")
        program.init_length = 1                 # the SFPLOADI of inf, before the loop
        return program
    return build


_ARITHMETIC = (("binary_add_2026_09", binary_add_2026_09, "add", "ADD"),
               ("binary_sub_2026_09", binary_sub_2026_09, "sub", "SUB"),
               ("binary_rsub_2026_09", binary_rsub_2026_09, "rsub", "RSUB"),
               ("binary_mul_2026_09", binary_mul_2026_09, "mul", "MUL"))
for _name, _body, _function, _op in _ARITHMETIC:
    register_kernel(
        _name, _body, function=_function, operands=2, template="calculate_sfpu_binary",
        params={"APPROXIMATION_MODE": False, "BINOP": f"BinaryOp::{_op}", "ITERATIONS": 8},
        provenance=f"{BINARY_H}: DstRoundingMode::Default, no rounding (SFPSTORE truncates "
                   f"to a 16-bit Dst); as the accuracy harness calls it (sfpu_operations.h, "
                   f"index id 54585064014)",
        description=f"SfpuElw{_function} row: BinaryOp::{_op}, either Dst, Sep 2026")

register_kernel(
    "binary_mul_rne_2026_09", binary_mul_rne_2026_09, function="mul", operands=2,
    template="calculate_sfpu_binary_mul",
    params={"APPROXIMATION_MODE": False, "BINOP": "BinaryOp::MUL", "ITERATIONS": 8,
            "is_fp32_dest_acc_en": False},
    provenance=f"{BINARY_H}: float32_to_bf16_rne, then 0 where in0 == 0 or in1 == 0",
    description="ttnn mul_binary_tile, BF16 Dst, Sep 2026")
register_kernel(
    "binary_mul_rne_fp32_2026_09", binary_mul_rne_fp32_2026_09, function="mul", operands=2,
    dest="fp32", template="calculate_sfpu_binary_mul", instance_of="binary_mul_rne_2026_09",
    params={"APPROXIMATION_MODE": False, "BINOP": "BinaryOp::MUL", "ITERATIONS": 8,
            "is_fp32_dest_acc_en": True},
    provenance=f"{BINARY_H}: in0 * in1, no rounding", description="ttnn mul_binary_tile, "
                                                                   "FP32 Dst, Sep 2026")
for _is_max in (True, False):
    register_program(
        "binary_max_2026_09" if _is_max else "binary_min_2026_09", _max_min_program(_is_max),
        function="max" if _is_max else "min", operands=2, template="calculate_binary_max_min",
        params={"IS_MAX_OP": _is_max, "ITERATIONS": 8},
        provenance=f"{MAX_MIN_H}: SFPSWAP VEC_MIN_MAX, the discarded operand kept where NaN",
        description="SfpuBinaryMax/Min row, either Dst, Sep 2026")
