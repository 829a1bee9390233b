"""Condition-code instructions where ttsim v1.10.0 gives no golden vectors (it rejects these
modes or field values; tests/data/vectors/README.md): expectations are derived by hand from
the tt-isa-documentation pages (SFPSETCC, SFPENCC, SFPPUSHC, SFPPOPC, SFPCOMPC, SFPGT,
SFPLE; the lane predication masks of VectorUnit.md, the LaneConfig ROW_MASK of SFPCONFIG.md)."""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim.asm import assemble
from sfpu_sim.isa.cc import smag_less
from sfpu_sim.isa.spec import IsaError, UndefinedBehaviour
from sfpu_sim.machine import Machine
from tests.isa_lane_helpers import (
    BOTH,
    EVEN,
    LANES,
    MINUS_ONE,
    NEG_INF,
    NEG_NAN,
    NEG_ZERO,
    ONE,
    POS_INF,
    POS_NAN,
    POS_ZERO,
    ROW,
    flags_of,
    run,
)

# Truth tables of BooleanOp(mod1, A, B) for (A, B) = (0,0), (0,1), (1,0), (1,1), written out
# from the SFPPOPC/SFPPUSHC pages' definition.
BOOLEAN_OP = {1: "0101", 2: "1010", 3: "0001", 4: "0111", 5: "0010", 6: "1011",
              7: "0100", 8: "1101", 9: "1000", 10: "1110", 11: "0110", 12: "1001"}
A_LANES, B_LANES = flags_of("0011"), flags_of("0101")


# --------------------------------------------------------------------------------------------
# smag_less: the total order of SFPGT.md's SignMagIsSmaller
# --------------------------------------------------------------------------------------------

def test_smag_less_orders_fp32_nan_inf_and_signed_zeros_totally():
    ascending = [NEG_NAN, NEG_INF, MINUS_ONE, NEG_ZERO, POS_ZERO, ONE, POS_INF, POS_NAN]
    for lo, hi in zip(ascending, ascending[1:]):
        assert smag_less(np.uint32(lo), np.uint32(hi)) and not smag_less(np.uint32(hi),
                                                                         np.uint32(lo))
    assert not smag_less(np.uint32(ONE), np.uint32(ONE))


def test_smag_less_orders_sign_magnitude_integers():
    # sign-magnitude -5 = 0x80000005 < -1 = 0x80000001 < -0 < +0 < 1
    ascending = [0x80000005, 0x80000001, 0x80000000, 0, 1]
    values = np.array(ascending, dtype=np.uint32)
    assert smag_less(values[:-1], values[1:]).all()


# --------------------------------------------------------------------------------------------
# SFPSETCC
# --------------------------------------------------------------------------------------------

@BOTH
@pytest.mark.parametrize("imm", [0, 1])
def test_sfpsetcc_imm_bit0_sets_flags_from_imm1_in_enabled_lanes(arch, imm):
    m = Machine(arch)
    m.cc.enable = True
    m.cc.flags[:] = EVEN
    run(m, f"SFPSETCC {imm}, L0, 0, IMM_BIT0")
    assert np.array_equal(m.cc.flags, np.where(EVEN, bool(imm), False))


@BOTH
def test_sfpsetcc_clear_sets_enabled_flags_false(arch):
    m = Machine(arch)
    m.cc.enable = True
    m.cc.flags[:] = True
    run(m, "SFPSETCC 0, L0, 0, CLEAR")
    assert not m.cc.flags.any()


@BOTH
def test_sfpsetcc_with_cc_disabled_clears_the_flag_whatever_the_test(arch):
    m = Machine(arch)
    m.cc.flags[:] = True
    m.lreg[0] = ONE                       # ">= 0" would be true
    run(m, "SFPSETCC 0, L0, 0, LREG_GTE0")
    assert not m.cc.flags.any()


@BOTH
def test_sfpsetcc_tests_raw_int32_bits_so_negative_zero_is_negative(arch):
    m = Machine(arch)
    m.cc.enable = True
    m.cc.flags[:] = True
    m.lreg[0, :4] = [NEG_ZERO, POS_NAN, NEG_NAN, 0x00000001]
    run(m, "SFPSETCC 0, L0, 0, LREG_LT0")
    assert m.cc.flags[:4].tolist() == [True, False, True, False]


@BOTH
def test_sfpsetcc_respects_row_mask(arch):
    m = Machine(arch)
    m.cc.enable = True
    m.cc.flags[:] = True
    m.lane_config[:] = 1 << (12 + 2)      # ROW_MASK: grid row 2 disabled
    run(m, "SFPSETCC 0, L0, 0, CLEAR")
    assert np.array_equal(m.cc.flags, ROW == 2)


@BOTH
def test_sfpsetcc_with_vd_12_is_captured_as_a_template_instead(arch):
    m = Machine(arch)
    m.cc.enable = True
    m.cc.flags[:] = True
    program = assemble("SFPSETCC 0, L0, 12, CLEAR", arch)
    m.run(program)
    assert m.cc.flags.all()
    assert (m.loadmacro.templates[0] == program[0].word).all()


# --------------------------------------------------------------------------------------------
# SFPENCC
# --------------------------------------------------------------------------------------------

@BOTH
@pytest.mark.parametrize("mod1,imm,enable_before,enable_after,flag_after", [
    (1, 0, False, True, True),      # EC inverts the enable, flags become True
    (1, 0, True, False, True),
    (2, 1, False, True, True),      # EI takes the enable from Imm2 bit 0
    (2, 0, True, False, True),
    (3, 0, True, False, True),      # EI wins over EC
    (8, 2, True, True, True),       # RI takes the flags from Imm2 bit 1
    (8, 1, False, False, False),
    (9, 0, False, True, False),     # EC and RI together
    (11, 3, False, True, True),
])
def test_sfpencc_sets_enable_and_flags_from_imm2(arch, mod1, imm, enable_before, enable_after,
                                                 flag_after):
    m = Machine(arch)
    m.cc.enable = enable_before
    m.cc.flags[:] = EVEN
    run(m, f"SFPENCC {imm}, 0, 0, {mod1}")
    assert m.cc.enable is enable_after
    assert (m.cc.flags == flag_after).all()


@BOTH
def test_sfpencc_writes_flags_of_disabled_and_row_masked_lanes_too(arch):
    m = Machine(arch)
    m.cc.enable = True
    m.lane_config[:] = 0xF << 12          # every grid row masked
    run(m, "SFPENCC 0, 0, 0, 0")
    assert m.cc.flags.all() and m.cc.enable


# --------------------------------------------------------------------------------------------
# SFPPUSHC
# --------------------------------------------------------------------------------------------

@BOTH
def test_sfppushc_plain_push_saves_flags_and_enable(arch):
    m = Machine(arch)
    m.cc.enable = True
    m.cc.flags[:] = EVEN
    run(m, "SFPPUSHC 0, 0, 0, 0")
    flags, enable = m.cc.stack[-1]
    assert m.cc.depth == 1 and enable is True and np.array_equal(flags, EVEN)


@BOTH
def test_sfppushc_ninth_push_is_undefined(arch):
    m = Machine(arch)
    run(m, "\n".join(["SFPPUSHC 0, 0, 0, 0"] * 8))
    with pytest.raises(UndefinedBehaviour):
        run(m, "SFPPUSHC 0, 0, 0, 0")


def test_sfppushc_modifier_modes_do_not_exist_on_wormhole():
    with pytest.raises(IsaError):
        assemble("SFPPUSHC 0, 0, 0, 3", "wormhole")


@pytest.mark.parametrize("mod1", range(1, 13))
def test_sfppushc_blackhole_combines_top_flags_with_current_flags(mod1):
    m = Machine("blackhole")
    m.cc.enable, m.cc.flags[:] = False, A_LANES
    run(m, "SFPPUSHC 0, 0, 0, 0")            # top = (A, False)
    m.cc.enable, m.cc.flags[:] = True, B_LANES
    run(m, f"SFPPUSHC 0, 0, 0, {mod1}")
    flags, enable = m.cc.stack[-1]
    assert m.cc.depth == 1
    assert enable is True                      # top.enable replaced by the current enable
    assert np.array_equal(flags, flags_of(BOOLEAN_OP[mod1]))
    assert np.array_equal(m.cc.flags, B_LANES)


def test_sfppushc_blackhole_13_inverts_flags_and_replaces_the_top():
    m = Machine("blackhole")
    m.cc.flags[:] = A_LANES
    run(m, "SFPPUSHC 0, 0, 0, 0")
    m.cc.enable, m.cc.flags[:] = True, B_LANES
    run(m, "SFPPUSHC 0, 0, 0, 13")
    flags, enable = m.cc.stack[-1]
    assert np.array_equal(m.cc.flags, ~B_LANES)
    assert np.array_equal(flags, ~B_LANES) and enable is True and m.cc.depth == 1


@pytest.mark.parametrize("mod1,top_flag", [(14, True), (15, False)])
def test_sfppushc_blackhole_14_15_replace_the_top_with_constants(mod1, top_flag):
    m = Machine("blackhole")
    m.cc.flags[:] = A_LANES
    run(m, "SFPPUSHC 0, 0, 0, 0")
    run(m, f"SFPPUSHC 0, 0, 0, {mod1}")
    flags, enable = m.cc.stack[-1]
    assert (flags == top_flag).all() and enable is True
    assert np.array_equal(m.cc.flags, A_LANES) and m.cc.enable is False


@pytest.mark.parametrize("mod1", [1, 13, 14, 15])
def test_sfppushc_blackhole_modifier_on_empty_stack_is_undefined(mod1):
    with pytest.raises(UndefinedBehaviour):
        run(Machine("blackhole"), f"SFPPUSHC 0, 0, 0, {mod1}")


# --------------------------------------------------------------------------------------------
# SFPPOPC
# --------------------------------------------------------------------------------------------

@BOTH
def test_sfppopc_plain_pop_restores_flags_and_enable(arch):
    m = Machine(arch)
    m.cc.enable, m.cc.flags[:] = True, EVEN
    run(m, "SFPPUSHC 0, 0, 0, 0")
    m.cc.enable, m.cc.flags[:] = False, ~EVEN
    run(m, "SFPPOPC 0, 0, 0, 0")
    assert m.cc.enable is True and np.array_equal(m.cc.flags, EVEN) and m.cc.depth == 0


@BOTH
def test_sfppopc_plain_pop_of_an_empty_stack_is_undefined(arch):
    with pytest.raises(UndefinedBehaviour):
        run(Machine(arch), "SFPPOPC 0, 0, 0, 0")


@BOTH
@pytest.mark.parametrize("mod1", range(1, 13))
def test_sfppopc_combines_current_flags_with_the_top_without_popping(arch, mod1):
    m = Machine(arch)
    m.cc.enable, m.cc.flags[:] = True, B_LANES
    run(m, "SFPPUSHC 0, 0, 0, 0")            # top = (B, True)
    m.cc.enable, m.cc.flags[:] = False, A_LANES
    run(m, f"SFPPOPC 0, 0, 0, {mod1}")
    assert m.cc.depth == 1 and m.cc.enable is True
    assert np.array_equal(m.cc.flags, flags_of(BOOLEAN_OP[mod1]))


@BOTH
@pytest.mark.parametrize("mod1,enable_after,flags_after", [
    (13, False, "1100"),     # inverts the flags only
    (14, True, "1111"),
    (15, True, "0000"),
])
def test_sfppopc_13_to_15_invert_or_set_constants(arch, mod1, enable_after, flags_after):
    m = Machine(arch)
    run(m, "SFPPUSHC 0, 0, 0, 0")
    m.cc.flags[:] = A_LANES
    run(m, f"SFPPOPC 0, 0, 0, {mod1}")
    assert m.cc.enable is enable_after and m.cc.depth == 1
    assert np.array_equal(m.cc.flags, flags_of(flags_after))


@BOTH
def test_sfppopc_peek_of_an_empty_stack_reads_false_false(arch):
    m = Machine(arch)
    m.cc.enable, m.cc.flags[:] = True, A_LANES
    run(m, "SFPPOPC 0, 0, 0, 4")                     # flags = A or top.flags (False)
    assert m.cc.enable is False and np.array_equal(m.cc.flags, A_LANES)
    run(m, "SFPPOPC 0, 0, 0, 1")                     # flags = top.flags
    assert not m.cc.flags.any() and m.cc.depth == 0


@pytest.mark.parametrize("arch,bottom_clobbered", [("wormhole", True), ("blackhole", False)])
def test_sfppopc_peek_on_a_full_stack_clobbers_the_bottom_only_on_wormhole(arch,
                                                                            bottom_clobbered):
    m = Machine(arch)
    pushed = [LANES == k for k in range(8)]        # entry k: only lane k set
    for k in range(8):
        m.cc.flags[:] = pushed[k]
        m.cc.enable = k % 2 == 0
        run(m, "SFPPUSHC 0, 0, 0, 0")
    run(m, "SFPPOPC 0, 0, 0, 13")
    popped = []
    for _ in range(8):
        run(m, "SFPPOPC 0, 0, 0, 0")
        popped.append((m.cc.flags.copy(), m.cc.enable))
    bottom_flags, bottom_enable = popped[-1]
    if bottom_clobbered:          # the bottom now holds a copy of the top entry (lane 7, False)
        assert np.array_equal(bottom_flags, pushed[7]) and bottom_enable is False
    else:
        assert np.array_equal(bottom_flags, pushed[0]) and bottom_enable is True
    assert np.array_equal(popped[0][0], pushed[7])


# --------------------------------------------------------------------------------------------
# SFPCOMPC
# --------------------------------------------------------------------------------------------

@BOTH
def test_sfpcompc_on_an_empty_stack_inverts_flags_when_enabled(arch):
    m = Machine(arch)
    m.cc.enable, m.cc.flags[:] = True, A_LANES
    run(m, "SFPCOMPC 0, 0, 0, 0")                    # top = (True, True): flags = not flags
    assert np.array_equal(m.cc.flags, ~A_LANES)


@BOTH
def test_sfpcompc_with_cc_disabled_clears_flags(arch):
    m = Machine(arch)
    m.cc.flags[:] = A_LANES
    run(m, "SFPCOMPC 0, 0, 0, 0")
    assert not m.cc.flags.any()


@BOTH
def test_sfpcompc_is_the_else_of_the_top_entry(arch):
    m = Machine(arch)
    m.cc.enable, m.cc.flags[:] = True, A_LANES
    run(m, "SFPPUSHC 0, 0, 0, 0")                    # outer if: lanes A
    m.cc.flags[:] = B_LANES                          # inner if: lanes B
    run(m, "SFPCOMPC 0, 0, 0, 0")                    # else: A and not B
    assert np.array_equal(m.cc.flags, flags_of("0010"))


@BOTH
def test_sfpcompc_clears_flags_when_the_top_entry_was_not_enabled(arch):
    m = Machine(arch)
    m.cc.flags[:] = True
    run(m, "SFPPUSHC 0, 0, 0, 0")                    # top = (True, False)
    m.cc.enable = True
    run(m, "SFPCOMPC 0, 0, 0, 0")
    assert not m.cc.flags.any()


@BOTH
def test_sfpcompc_ignores_row_mask(arch):
    m = Machine(arch)
    m.cc.enable = True
    m.lane_config[:] = 0xF << 12
    run(m, "SFPCOMPC 0, 0, 0, 0")
    assert m.cc.flags.all()


# --------------------------------------------------------------------------------------------
# SFPGT / SFPLE (Blackhole)
# --------------------------------------------------------------------------------------------

PAIRS_VD = [NEG_ZERO, POS_ZERO, POS_NAN, NEG_INF, ONE, 0x80000005]
PAIRS_VC = [POS_ZERO, NEG_ZERO, POS_INF, NEG_NAN, ONE, 0x80000001]
VD_GREATER = [False, True, True, True, False, False]      # by the total order, hand-derived


def compare_machine():
    m = Machine("blackhole")
    m.lreg[0, :6] = PAIRS_VD
    m.lreg[1, :6] = PAIRS_VC
    return m


@pytest.mark.parametrize("mnemonic,expected", [("SFPGT", VD_GREATER),
                                               ("SFPLE", [not v for v in VD_GREATER])])
def test_sfpgt_sfple_set_vd_and_flags_by_the_total_order(mnemonic, expected):
    m = compare_machine()
    run(m, f"{mnemonic} 0, L1, L0, SET_VD|SET_CC")
    assert m.lreg[0, :6].tolist() == [0xFFFFFFFF if v else 0 for v in expected]
    assert m.cc.flags[:6].tolist() == expected


def test_sfpgt_writes_only_enabled_lanes():
    m = compare_machine()
    m.cc.enable = True
    m.cc.flags[:] = EVEN
    run(m, "SFPGT 0, L1, L0, SET_VD|SET_CC")
    # lanes 0 and 2 enabled (results False, True); lanes 1 and 3 (results True) keep theirs
    assert m.lreg[0, :4].tolist() == [0, POS_ZERO, 0xFFFFFFFF, NEG_INF]
    assert m.cc.flags[:4].tolist() == [False, False, True, False]


@pytest.mark.parametrize("mod1,expected_top", [
    ("MUTATE_STACK", [False, False, True, True, False, False]),             # AND
    ("MUTATE_STACK|MUTATE_OR", [True, True, True, True, True, False]),      # OR
])
def test_sfpgt_mutates_the_stack_top_in_disabled_lanes_too(mod1, expected_top):
    m = compare_machine()
    m.cc.flags[:6] = [True, False, True, True, True, False]
    run(m, "SFPPUSHC 0, 0, 0, 0")
    m.cc.enable, m.cc.flags[:] = True, False         # every lane disabled
    run(m, f"SFPGT 0, L1, L0, {mod1}")
    flags, _ = m.cc.stack[-1]
    assert flags[:6].tolist() == expected_top
    assert m.lreg[0, :6].tolist() == PAIRS_VD and not m.cc.flags.any()


def test_sfple_stack_mutation_on_an_empty_stack_does_nothing():
    m = compare_machine()
    run(m, "SFPLE 0, L1, L0, MUTATE_STACK")
    assert m.cc.depth == 0 and not m.cc.flags.any()
    assert m.lreg[0, :6].tolist() == PAIRS_VD


def test_sfpgt_does_not_exist_on_wormhole():
    with pytest.raises(IsaError):
        assemble("SFPGT 0, L1, L0, 1", "wormhole")
