"""Lane-movement and configuration instructions where ttsim v1.10.0 gives no golden vectors (it
rejects these modes or field values; tests/data/vectors/README.md): expectations are derived by
hand from the tt-isa-documentation pages (SFPSWAP.md, SFPTRANSP.md, SFPSHFT2.md, SFPCONFIG.md,
SFPNOP.md)."""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim.isa.spec import Unsupported
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
    run,
)

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
