"""Floor, Ceil, Trunc and Frac of the 2026-09-30 accuracy table: tt-llk's raw-TTI rounding
bodies, written here in assembly (the DSL has no form for SFPEXEXP's condition-setting modes).

What the harness runs (tt-llk ``tests/helpers/include/sfpu_operations.h`` @008a3c3b):
``_calculate_{floor,ceil,trunc,frac}_<false, 32>``, no init, the
same code for either Dst mode (nothing branches on ``is_fp32_dest_acc_en``), no rounding.

Sources (facts only: instruction order, registers, modes):

* Wormhole: tenstorrent/tt-metal ``tt_metal/tt-llk/tt_llk_wormhole_b0/common/inc/sfpu/
  ckernel_sfpu_rounding_ops.h`` @06bd3735 (index id 55279270586; Jason Davies 2025, "#41922
  construction zone": the 2-parameter ``<APPROXIMATION_MODE, ITERATIONS>`` templates the
  harness's call matches). ``_trunc_body_``: LReg3 = 23, LReg1 = 0x80000000; SFPEXEXP with
  SET_CC_SGN_EXP | SET_CC_COMP_EXP disables the lanes whose exponent is negative (|x| < 1: the
  mask keeps only the sign); LReg1 = 0xFFFFFFFF; SFPIADD LReg2 = 23 - exp with CC_GTE0 leaves
  exp > 23 (integral, Inf, NaN) at all ones; SFPSHFT2 shifts the mask left by 23 - exp; SFPENCC;
  SFPAND. Floor / ceil then compare without SFPGT (Wormhole has none): floor subtracts 1 where
  x < 0 (raw sign, SFPSETCC LT0) and the integer difference trunc - x is negative; ceil adds
  1 where x >= 0 and trunc - x < 0 (SFPIADD 2's complement, CC_LT0), by one SFPMAD.
* Blackhole: ``tt_llk_blackhole/common/inc/sfpu/ckernel_sfpu_rounding_ops.h`` (index id
  68513473946, Aug 2026): the same ``_trunc_body_``; floor and ceil compare with SFPGT
  (SET_CC) instead. That revision's SFPLOADMACRO "bf16 fast" floor/ceil run only for
  ``ITERATIONS == 8`` with a 16-bit Dst; the harness's 32 takes the loop modelled here.

Frac is ``x - _trunc_body_(x)``: one SFPMAD ``trunc * -1 + x`` (sfpi's subtraction), exact for
finite x; +-Inf give Inf - Inf = NaN, which the table does not count (the golden passes
+-Inf through).
"""
from __future__ import annotations

from sfpu_sim.asm import assemble
from sfpu_sim.registry import register_program

TT_LLK = "tt-metal tt_metal/tt-llk/tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/"
SOURCE = (TT_LLK + "ckernel_sfpu_rounding_ops.h: WH @06bd3735 (index id 55279270586, 2-param "
          "templates as the harness calls them), BH index id 68513473946 (Aug 2026, SFPGT "
          "compares; its SFPLOADMACRO bf16 paths only for ITERATIONS == 8)")

# _trunc_body_: x in L0, the result in L1 (L2, L3 scratch), both chips.
TRUNC_BODY = """
TTI_SFPLOADI(p_sfpu::LREG3, SFPLOADI_MOD0_SHORT, 23);          # L3 = 23
TTI_SFPLOADI(p_sfpu::LREG1, SFPLOADI_MOD0_FLOATB, 0x8000);     # mask = 0x80000000
TTI_SFPEXEXP(0, p_sfpu::LREG0, p_sfpu::LREG2, SET_CC_SGN_EXP | SET_CC_COMP_EXP);
TTI_SFPLOADI(p_sfpu::LREG1, SFPLOADI_MOD0_SHORT, 0xffff);      # mask = 0xFFFFFFFF where exp >= 0
TTI_SFPIADD(0, p_sfpu::LREG3, p_sfpu::LREG2, ARG_2SCOMP_LREG_DST | CC_GTE0);
TTI_SFPSHFT2(1, p_sfpu::LREG2, p_sfpu::LREG1, SFPSHFT2_MOD1_SHFT_LREG);   # mask <<= 23 - exp
TTI_SFPENCC(0, 0, 0, 0);
TTI_SFPAND(0, p_sfpu::LREG0, p_sfpu::LREG1, 0);                 # L1 = x & mask
"""
# The SFPSHFT2 Imm12 operand is tt-llk's p_sfpu::LREG1 (= 1): VB, the register shifted.

# Floor / ceil corrections on the truncation in L1 (x still in L0), per chip.
FLOOR_WORMHOLE = """
TTI_SFPSETCC(0, p_sfpu::LREG0, 0, SFPSETCC_MOD1_LREG_LT0);     # x < 0 (raw sign)
TTI_SFPIADD(0, p_sfpu::LREG1, p_sfpu::LREG0, ARG_2SCOMP_LREG_DST | CC_LT0);
TTI_SFPMAD(p_sfpu::LCONST_1, p_sfpu::LREG1, p_sfpu::LCONST_neg1, p_sfpu::LREG1, 0);
TTI_SFPENCC(0, 0, 0, 0);
"""
CEIL_WORMHOLE = """
TTI_SFPSETCC(0, p_sfpu::LREG0, 0, SFPSETCC_MOD1_LREG_GTE0);    # x >= 0 (raw sign)
TTI_SFPIADD(0, p_sfpu::LREG1, p_sfpu::LREG0, ARG_2SCOMP_LREG_DST | CC_LT0);
TTI_SFPMAD(p_sfpu::LCONST_1, p_sfpu::LREG1, p_sfpu::LCONST_1, p_sfpu::LREG1, 0);
TTI_SFPENCC(0, 0, 0, 0);
"""
FLOOR_BLACKHOLE = """
TTI_SFPGT(0, p_sfpu::LREG0, p_sfpu::LREG1, 1);                  # trunc > x (SET_CC)
TTI_SFPMAD(p_sfpu::LCONST_1, p_sfpu::LREG1, p_sfpu::LCONST_neg1, p_sfpu::LREG1, 0);
TTI_SFPENCC(0, 0, 0, 0);
"""
CEIL_BLACKHOLE = """
TTI_SFPGT(0, p_sfpu::LREG1, p_sfpu::LREG0, 1);                  # x > trunc (SET_CC)
TTI_SFPMAD(p_sfpu::LCONST_1, p_sfpu::LREG1, p_sfpu::LCONST_1, p_sfpu::LREG1, 0);
TTI_SFPENCC(0, 0, 0, 0);
"""
# frac: x - trunc as sfpi lowers it, one SFPMAD (trunc * -1 + x); Wormhole does not interlock
# the MAD result, so the compiler puts an SFPNOP before the store reads it.
FRAC = {"wormhole": "SFPMAD L1, L11, L0, L1, 0\nSFPNOP\n",
        "blackhole": "SFPMAD L1, L11, L0, L1, 0\n"}
CORRECTIONS = {
    "trunc": {"wormhole": "", "blackhole": ""},
    "floor": {"wormhole": FLOOR_WORMHOLE, "blackhole": FLOOR_BLACKHOLE},
    "ceil": {"wormhole": CEIL_WORMHOLE, "blackhole": CEIL_BLACKHOLE},
    "frac": FRAC,
}


def rounding_program(operation: str):
    """A Program builder for ``_calculate_<operation>_``: one Dst row per pass, x loaded into
    L0 (``sfpi::l_reg[LReg0] = val``), the result stored from L1."""
    def build(arch):
        text = ("SFPLOAD L0, 0, 0, 0\n" + TRUNC_BODY + CORRECTIONS[operation][arch.name]
                + "SFPSTORE L1, 0, 0, 0\n")
        return assemble(text, arch, filename=f"kernels/rounding_2026.py:{operation}")
    return build


for _operation, _how in (
        ("trunc", "mantissa mask from SFPEXEXP (CC: exp >= 0), SFPIADD 23 - exp (CC: >= 0), "
                  "SFPSHFT2, SFPAND"),
        ("floor", "trunc, then - 1 where x < trunc: WH raw sign + SFPIADD trunc - x < 0, BH "
                  "SFPGT"),
        ("ceil", "trunc, then + 1 where x > trunc: WH raw sign + SFPIADD trunc - x < 0, BH "
                 "SFPGT"),
        ("frac", "x - trunc(x), one SFPMAD")):
    register_program(
        f"{_operation}_2026_09", rounding_program(_operation), function=_operation,
        mode="accurate", dest="bf16", template=f"_calculate_{_operation}_",
        params={"APPROXIMATION_MODE": False, "ITERATIONS": 32},
        provenance=f"{SOURCE}: {_how}; no rounding (SFPSTORE)",
        description=f"{_operation.capitalize()} row, either Dst: tt-llk "
                    f"_calculate_{_operation}_<false, 32>")
