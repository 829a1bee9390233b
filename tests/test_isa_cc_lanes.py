"""Condition-code and lane-movement instructions where ttsim gives no golden vectors
(../shared/vectors/README.md §1.8): expectations are derived by hand from the ISA pages
(SFPSETCC, SFPENCC, SFPPUSHC, SFPPOPC, SFPCOMPC, SFPGT, SFPLE, SFPSWAP, SFPTRANSP, SFPSHFT2,
SFPCONFIG, SFPNOP; isa-reference §1.3-1.4, §3.11-3.13, §3.15)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from sfpu_sim.asm import assemble
from sfpu_sim.isa.cc import smag_less
from sfpu_sim.isa.spec import IsaError, UndefinedBehaviour, Unsupported
from sfpu_sim.machine import HazardWarning, Machine

BOTH = pytest.mark.parametrize("arch", ["wormhole", "blackhole"])
LANES = np.arange(32)
ROW = LANES // 8
EVEN = LANES % 2 == 0

ONE, MINUS_ONE = 0x3F800000, 0xBF800000
POS_ZERO, NEG_ZERO = 0x00000000, 0x80000000
POS_INF, NEG_INF = 0x7F800000, 0xFF800000
POS_NAN, NEG_NAN = 0x7FC00000, 0xFFC00000


def run(m: Machine, text: str) -> Machine:
    with warnings.catch_warnings():
        warnings.simplefilter("error", HazardWarning)
        return m.run(assemble(text, m.arch))


def flags_of(pattern: str) -> np.ndarray:
    """A 32-lane bool array repeating a string of 0/1 characters."""
    bits = np.array([c == "1" for c in pattern])
    return np.resize(bits, 32)


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


# --------------------------------------------------------------------------------------------
# SFPSWAP
# --------------------------------------------------------------------------------------------

@BOTH
@pytest.mark.parametrize("mod1,min_rows", [
    (1, {0, 1, 2, 3}), (2, {0, 1}), (3, {0, 2}), (4, {0, 3}), (5, {0}), (6, {1}), (7, {2}),
    (8, {3}), (9, set())])
def test_sfpswap_vd_gets_the_min_in_the_mode_rows(arch, mod1, min_rows):
    m = Machine(arch)
    m.lreg[0] = ONE            # VD
    m.lreg[1] = MINUS_ONE      # VC
    run(m, f"SFPSWAP 0, L1, L0, {mod1}")
    vd_min = np.isin(ROW, list(min_rows))
    assert np.array_equal(m.lreg[0], np.where(vd_min, MINUS_ONE, ONE))
    assert np.array_equal(m.lreg[1], np.where(vd_min, ONE, MINUS_ONE))


@BOTH
def test_sfpswap_min_max_uses_the_sign_magnitude_total_order(arch):
    m = Machine(arch)
    m.lreg[0, :4] = [POS_ZERO, POS_NAN, NEG_NAN, 0x80000001]
    m.lreg[1, :4] = [NEG_ZERO, POS_INF, NEG_INF, 0x00000001]
    run(m, "SFPSWAP 0, L1, L0, VEC_MIN_MAX")
    assert m.lreg[0, :4].tolist() == [NEG_ZERO, POS_INF, NEG_NAN, 0x80000001]
    assert m.lreg[1, :4].tolist() == [POS_ZERO, POS_NAN, NEG_INF, 0x00000001]


@BOTH
def test_sfpswap_writes_only_enabled_lanes_and_registers_below_8(arch):
    m = Machine(arch)
    m.lreg[2] = 0x12345678
    m.cc.enable, m.cc.flags[:] = True, EVEN
    run(m, "SFPSWAP 0, L10, L2, SWAP")           # VC = L10 (1.0) is read-only
    assert np.array_equal(m.lreg[2], np.where(EVEN, ONE, 0x12345678))
    assert (m.lreg[10] == ONE).all()


@BOTH
def test_sfpswap_exchange_srcb_srcc_inverts_min_max_but_not_swap(arch):
    m = Machine(arch)
    m.lane_config[:] = 1 << 8                      # EXCHANGE_SRCB_SRCC
    m.lreg[0], m.lreg[1] = ONE, MINUS_ONE
    run(m, "SFPSWAP 0, L1, L0, VEC_MIN_MAX")      # now VD = max
    assert (m.lreg[0] == ONE).all() and (m.lreg[1] == MINUS_ONE).all()
    run(m, "SFPNOP\nSFPSWAP 0, L1, L0, SWAP")
    assert (m.lreg[0] == MINUS_ONE).all() and (m.lreg[1] == ONE).all()


@BOTH
def test_sfpswap_dest_index_moves_the_index_registers_with_the_values(arch):
    m = Machine(arch)
    m.lane_config[:] = 1 << 2                      # ENABLE_DEST_INDEX
    m.lreg[0] = np.where(EVEN, ONE, MINUS_ONE)     # VD
    m.lreg[2] = 0                                  # VC (+0)
    m.lreg[4], m.lreg[6] = 40, 60                  # indices of L0 and L2
    run(m, "SFPSWAP 0, L2, L0, VEC_MIN_MAX")      # swap where L2 < L0: even lanes
    assert np.array_equal(m.lreg[0], np.where(EVEN, 0, MINUS_ONE))
    assert np.array_equal(m.lreg[2], np.where(EVEN, ONE, 0))
    assert np.array_equal(m.lreg[4], np.where(EVEN, 60, 40))
    assert np.array_equal(m.lreg[6], np.where(EVEN, 40, 60))


@BOTH
def test_sfpswap_dest_index_writes_values_only_to_registers_below_4(arch):
    m = Machine(arch)
    m.lane_config[:] = 1 << 2
    m.lreg[1], m.lreg[4], m.lreg[5] = 111, 444, 555
    run(m, "SFPSWAP 0, L1, L4, SWAP")     # VD = 4: not written as a value; L5 <-> L4 swapped
    assert (m.lreg[1] == 444).all()
    assert (m.lreg[4] == 555).all() and (m.lreg[5] == 444).all()


# --------------------------------------------------------------------------------------------
# SFPTRANSP
# --------------------------------------------------------------------------------------------

@BOTH
def test_sfptransp_transposes_registers_and_grid_rows_in_each_column(arch):
    m = Machine(arch, lanes=64)
    lane = np.arange(64)
    for r in range(8):
        m.lreg[r] = 1000 * r + lane
    run(m, "SFPTRANSP 0, 0, 0, 0")
    group, row, column = lane // 32, (lane % 32) // 8, lane % 8
    for base in (0, 4):
        for i in range(4):
            # new L[base+i][row j] = old L[base+j][row i] of the same column and group
            want = 1000 * (base + row) + 32 * group + 8 * i + column
            assert np.array_equal(m.lreg[base + i], want)


@BOTH
def test_sfptransp_writes_only_enabled_destination_lanes(arch):
    m = Machine(arch)
    for r in range(8):
        m.lreg[r] = 1000 * r + LANES
    m.cc.enable, m.cc.flags[:] = True, ROW != 1     # grid row 1 disabled
    run(m, "SFPTRANSP 0, 0, 0, 0")
    # L0 row 1 (lanes 8-15) kept; L1 row 0 receives old L0 row 1
    assert np.array_equal(m.lreg[0][8:16], LANES[8:16])
    assert np.array_equal(m.lreg[1][0:8], LANES[8:16])
    assert np.array_equal(m.lreg[1][8:16], 1000 + LANES[8:16])   # diagonal: unchanged


# --------------------------------------------------------------------------------------------
# SFPSHFT2
# --------------------------------------------------------------------------------------------

def four_registers(m):
    for r in range(4):
        m.lreg[r] = 100 * (r + 1) + LANES


@BOTH
def test_sfpshft2_copy4_moves_registers_down(arch):
    m = Machine(arch)
    four_registers(m)
    run(m, "SFPSHFT2 0, L0, 0, COPY4")
    for r in range(3):
        assert np.array_equal(m.lreg[r], 100 * (r + 2) + LANES)
    assert (m.lreg[3] == 0).all()


@BOTH
def test_sfpshft2_chained_copy4_feeds_l3_from_the_next_grid_row_of_l0(arch):
    m = Machine(arch)
    four_registers(m)
    run(m, "SFPSHFT2 0, L0, 0, SUBVEC_CHAINED_COPY4")
    assert np.array_equal(m.lreg[2], 400 + LANES)
    assert np.array_equal(m.lreg[3][:24], 100 + LANES[8:])
    assert (m.lreg[3][24:] == 0).all()


@BOTH
def test_sfpshft2_shflror1_and_copy4_rotates_vc_into_l3(arch):
    m = Machine(arch)
    four_registers(m)
    m.lreg[5] = 500 + LANES
    run(m, "SFPSHFT2 0, L5, 0, SUBVEC_SHFLROR1_AND_COPY4\nSFPNOP")
    rotated = 500 + (ROW * 8 + (LANES - 1) % 8)
    assert np.array_equal(m.lreg[3], rotated)
    assert np.array_equal(m.lreg[0], 200 + LANES)


@BOTH
def test_sfpshft2_copy4_respects_lane_enable(arch):
    m = Machine(arch)
    four_registers(m)
    m.cc.enable, m.cc.flags[:] = True, EVEN
    run(m, "SFPSHFT2 0, L0, 0, COPY4")
    assert np.array_equal(m.lreg[0], np.where(EVEN, 200, 100) + LANES)
    assert np.array_equal(m.lreg[3], np.where(EVEN, 0, 400 + LANES))


@BOTH
def test_sfpshft2_shflshr1_after_the_zeroing_rotate_fills_zero(arch):
    m = Machine(arch)
    m.lreg[1] = 100 + LANES
    run(m, "SFPSHFT2 0, L9, L9, SUBVEC_SHFLROR1\nSFPNOP\n"
           "SFPSHFT2 0, L1, L2, SUBVEC_SHFLSHR1\nSFPNOP")
    want = np.where(LANES % 8 == 0, 0, 100 + LANES - 1)
    assert np.array_equal(m.lreg[2], want)


@pytest.mark.parametrize("arch,stale", [("wormhole", True), ("blackhole", False)])
def test_sfpshft2_shflshr1_fills_from_the_last_rotate_only_on_wormhole(arch, stale):
    m = Machine(arch, lanes=64)
    lane = np.arange(64)
    m.lreg[3] = 300 + lane
    m.lreg[1] = 100 + lane
    run(m, "SFPSHFT2 0, L3, L4, SUBVEC_SHFLROR1\nSFPNOP\n"
           "SFPSHFT2 0, L1, L2, SUBVEC_SHFLSHR1\nSFPNOP")
    first = lane % 8 == 0
    # lanes 0/8/16/24 of each group: 0, or on Wormhole lane + 7 of the rotate's L3 snapshot
    fill = np.where(stale, 300 + lane + 7, 0)
    assert np.array_equal(m.lreg[2], np.where(first, fill, 100 + lane - 1))


@BOTH
@pytest.mark.parametrize("imm12,source,shifted", [
    (0x013, 3, lambda v: (v << 19) & 0xFFFFFFFF),   # VB = 3, shift left by 19
    (-3, 13, lambda v: v >> 3),                      # 0xFFD: VB = 13, logical right by 3
    (-2048, 0, lambda v: v),                         # 0x800: VB = 0, right by 2048 & 31 = 0
])
def test_sfpshft2_shft_imm_takes_source_and_amount_from_imm12(arch, imm12, source, shifted):
    m = Machine(arch)
    m.lreg[0] = 0x80000001
    m.lreg[3] = 0x00000FFF
    run(m, f"SFPSHFT2 {imm12}, 0, L5, SHFT_IMM")
    assert (m.lreg[5] == shifted(int(m.lreg[source][0]))).all()


@BOTH
def test_sfpshft2_shft_lreg_shifts_vb_by_vc(arch):
    m = Machine(arch)
    m.lreg[1, :4] = [4, -4 & 0xFFFFFFFF, 32, -0x80000000 & 0xFFFFFFFF]
    m.lreg[2] = 0xF000000F
    run(m, "SFPSHFT2 2, L1, L3, SHFT_LREG")           # VB = 2 (bits 12-15)
    assert m.lreg[3, :4].tolist() == [0x000000F0, 0x0F000000, 0xF000000F, 0xF000000F]


# --------------------------------------------------------------------------------------------
# SFPCONFIG, SFPNOP
# --------------------------------------------------------------------------------------------

@BOTH
@pytest.mark.parametrize("vd", [11, 12, 13, 14])
def test_sfpconfig_broadcasts_grid_row_0_of_l0_into_a_constant_register(arch, vd):
    m = Machine(arch, lanes=64)
    m.lreg[0] = 0x40000000 + np.arange(64)
    run(m, f"SFPCONFIG 0, {vd}, 0")
    lane = np.arange(64)
    assert np.array_equal(m.lreg[vd], 0x40000000 + 32 * (lane // 32) + lane % 8)


@BOTH
@pytest.mark.parametrize("vd,default", [(11, 0xBF800000), (12, 0x3B000000), (13, 0xBF2CC4C7),
                                        (14, 0xBEB08FF9)])
def test_sfpconfig_imm16_is_value_loads_the_documented_default(arch, vd, default):
    m = Machine(arch)
    m.lreg[vd] = 0
    run(m, f"SFPCONFIG 0x1234, {vd}, IMM16_IS_VALUE")
    assert (m.lreg[vd] == default).all()


@BOTH
def test_sfpconfig_lane_mask_selects_columns_by_even_imm16_bits(arch):
    m = Machine(arch)
    m.lreg[0] = 7
    run(m, "SFPCONFIG 0b0100000000000101, 11, IMM16_IS_LANE_MASK")   # columns 0, 1, 7
    column = LANES % 8
    assert np.array_equal(m.lreg[11], np.where(np.isin(column, [0, 1, 7]), 7, MINUS_ONE))


@BOTH
def test_sfpconfig_predicates_on_the_row_0_lane_flags_and_ignores_row_mask(arch):
    m = Machine(arch)
    m.lreg[0] = 5
    m.lane_config[:] = 0xF << 12                 # every row masked: does not matter
    m.cc.enable = True
    m.cc.flags[:8] = EVEN[:8]                    # row 0: even columns enabled
    m.cc.flags[8:] = ~EVEN[8:]                   # other rows: the opposite, ignored
    run(m, "SFPCONFIG 0, 12, 0")
    assert np.array_equal(m.lreg[12], np.where(EVEN, 5, 0x3B000000))


@BOTH
def test_sfpconfig_loadmacro_templates_and_sequences(arch):
    m = Machine(arch)
    m.lreg[0] = 0xABCD0000 + LANES
    run(m, "SFPCONFIG 0x5555, 2, IMM16_IS_VALUE\nSFPCONFIG 0x5555, 5, IMM16_IS_VALUE\n"
           "SFPCONFIG 0, 6, 0")
    row0 = 0xABCD0000 + LANES % 8
    assert np.array_equal(m.loadmacro.templates[2], row0)     # Imm16 is never used here
    assert (m.loadmacro.sequence[1] == 0x5555).all()
    assert np.array_equal(m.loadmacro.sequence[2], row0)


@BOTH
def test_sfpconfig_misc_is_12_bits_combined_by_mod1(arch):
    m = Machine(arch)
    m.lreg[0] = 0xFFFF0F0F
    run(m, "SFPCONFIG 0, 8, 0")
    assert (m.loadmacro.misc == 0xF0F).all()
    run(m, "SFPCONFIG 0x00F0, 8, IMM16_IS_VALUE|BITWISE_OR")
    assert (m.loadmacro.misc == 0xFFF).all()
    run(m, "SFPCONFIG 0x0FF0, 8, IMM16_IS_VALUE|BITWISE_AND")
    assert (m.loadmacro.misc == 0xFF0).all()
    run(m, "SFPCONFIG 0xF00F, 8, IMM16_IS_VALUE|BITWISE_XOR")
    assert (m.loadmacro.misc == 0xFFF).all()


@BOTH
def test_sfpconfig_lane_config_keeps_bits_16_17_when_imm16_is_value(arch):
    m = Machine(arch)
    m.lreg[0] = 0xFFFFFFFF
    run(m, "SFPCONFIG 0, 15, 0")                         # 18 bits from L0
    assert (m.lane_config == 0x3FFFF).all()
    run(m, "SFPCONFIG 0x0104, 15, IMM16_IS_VALUE")        # assign, high bits kept
    assert (m.lane_config == 0x30104).all()
    run(m, "SFPCONFIG 0x0004, 15, IMM16_IS_VALUE|BITWISE_AND")
    assert (m.lane_config == 0x30004).all()
    run(m, "SFPCONFIG 0, 15, 0")                         # from L0 = 0: everything cleared
    m.lreg[0] = 0
    run(m, "SFPCONFIG 0, 15, 0")
    assert (m.lane_config == 0).all()


@BOTH
@pytest.mark.parametrize("vd", [9, 10])
def test_sfpconfig_destinations_9_and_10_change_nothing(arch, vd):
    m = Machine(arch)
    m.lreg[0] = 0x1234
    before = (m.lreg.copy(), m.lane_config.copy(), m.loadmacro.misc.copy())
    run(m, f"SFPCONFIG 0xFFFF, {vd}, IMM16_IS_VALUE")
    assert np.array_equal(m.lreg, before[0]) and np.array_equal(m.lane_config, before[1])
    assert np.array_equal(m.loadmacro.misc, before[2])


@BOTH
def test_sfpconfig_dest_index_then_swap_moves_indices(arch):
    m = Machine(arch)
    m.lreg[0] = 1 << 2                                   # ENABLE_DEST_INDEX via L0
    run(m, "SFPCONFIG 0, 15, 0")
    m.lreg[0], m.lreg[1] = ONE, MINUS_ONE
    m.lreg[4], m.lreg[5] = 4, 5
    run(m, "SFPNOP\nSFPSWAP 0, L1, L0, VEC_MIN_MAX")
    assert (m.lreg[0] == MINUS_ONE).all() and (m.lreg[4] == 5).all()


@BOTH
def test_sfpnop_changes_nothing(arch):
    m = Machine(arch)
    m.lreg[:8] = np.arange(8 * 32, dtype=np.uint32).reshape(8, 32)
    m.cc.enable, m.cc.flags[:] = True, EVEN
    before = m.lreg.copy()
    run(m, "SFPNOP")
    assert np.array_equal(m.lreg, before) and np.array_equal(m.cc.flags, EVEN)
    assert m.cc.enable and m.cc.depth == 0


# --------------------------------------------------------------------------------------------
# The VD >= 12 backdoor and the stack
# --------------------------------------------------------------------------------------------

@BOTH
def test_sfppushc_with_vd_12_is_captured_and_does_not_push(arch):
    m = Machine(arch)
    run(m, "SFPPUSHC 0, 0, 12, 0")
    assert m.cc.depth == 0


@BOTH
def test_sfppushc_with_vd_12_pushes_when_the_backdoor_is_disabled_everywhere(arch):
    m = Machine(arch)
    m.lane_config[:] = 1 << 1                      # DISABLE_BACKDOOR_LOAD
    run(m, "SFPPUSHC 0, 0, 12, 0")
    assert m.cc.depth == 1


@BOTH
def test_sfppushc_acting_in_some_lanes_only_is_unsupported(arch):
    m = Machine(arch)
    m.lane_config[:16] = 1 << 1
    with pytest.raises(Unsupported):
        run(m, "SFPPUSHC 0, 0, 12, 0")
