"""SFPLOADI / SFPLOAD / SFPSTORE behaviour the golden vectors cannot show (ttsim v1.10.0
rejects these modes or never varies this state; tests/data/vectors/README.md): FP16 and the
integer formats, LaneConfig effects, address generation, AddrMod steps, INT32_ALL, many-SFPU
machines.

Every expected value is worked by hand from tt-isa-documentation ``SFPLOAD.md``,
``SFPSTORE.md``, ``SFPLOADI.md`` and ``RWCs.md``, with ``Dst.md`` (the cell layouts) and the
LaneConfig table of ``SFPCONFIG.md``; Dst cells are raw storage bits (exponent in the low
bits). SFPLOADMACRO: test_loadmacro.
"""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim.asm import assemble_line, decode
from sfpu_sim.isa.spec import Unsupported
from sfpu_sim.machine import AddrMod, Machine

ARCHES = ["wormhole", "blackhole"]
LANE = np.arange(32)

# LaneConfig bits (SFPCONFIG.md, "LaneConfig")
FP16A_INF, DISABLE_BACKDOOR, DEST_INDEX, CAPTURE_INDEX = 1 << 0, 1 << 1, 1 << 2, 1 << 3
BLOCK_WRITE, BLOCK_READ, READ_EXCHANGE, WRITE_EXCHANGE = 1 << 4, 1 << 5, 1 << 6, 1 << 7


def run(m: Machine, *lines: str) -> Machine:
    for line in lines:
        m.step(assemble_line(line, m.arch))
    return m


def slab(address: int):
    """Row and column of each of the 32 lanes for an access at ``address`` (SFPLOAD.md,
    SFPSTORE.md)."""
    return (address & ~3) + LANE // 8, 2 * (LANE % 8) + ((address >> 1) & 1)


def put_cells(m: Machine, cells, address: int = 0, width: int = 16, group=slice(None)):
    """Dst cells the 32 lanes of an access at ``address`` see (cells for lanes 0.., rest 0)."""
    bits = np.zeros(32, dtype=np.uint32)
    bits[:len(cells)] = cells
    rows, cols = slab(address)
    m.dst.write_raw(rows, cols, bits, width, group)


def get_cells(m: Machine, address: int = 0, width: int = 16, group: int = 0) -> np.ndarray:
    rows, cols = slab(address)
    return m.dst.read_raw(rows, cols, width, group)


def put_lreg(m: Machine, reg: int, values) -> None:
    m.lreg[reg, :len(values)] = values


def hexes(values) -> list[str]:
    return [f"{int(v):#x}" for v in values]


# --------------------------------------------------------------------------------------------
# SFPLOADI
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("imm, want", [
    (0x0000, 0x38000000),   # exponent 0 is rebiased like any other: 2**-15, not zero
    (0x8000, 0xB8000000),
    (0x7C00, 0x47800000),   # exponent 31 is finite: 2**16
    (0x3C00, 0x3F800000),   # 1.0
])
def test_sfploadi_floata_rebiases_every_exponent(arch, imm, want):
    m = run(Machine(arch), f"SFPLOADI L2, FLOATA, {imm:#x}")
    assert hexes(m.lreg[2][:1]) == [hex(want)]


@pytest.mark.parametrize("arch", ARCHES)
def test_sfploadi_short_sign_extends_and_respects_lane_enable(arch):
    m = Machine(arch)
    m.lreg[3] = 0x11111111
    m.cc.enable = True
    m.cc.flags[:] = LANE % 2 == 0
    run(m, "SFPLOADI L3, SHORT, 0x8000")
    assert np.all(m.lreg[3][0::2] == 0xFFFF8000)
    assert np.all(m.lreg[3][1::2] == 0x11111111)


# --------------------------------------------------------------------------------------------
# SFPLOAD formats
# --------------------------------------------------------------------------------------------

FP16_CELLS = [          # Dst cell (sign | mantissa << 5 | exponent) -> FP32 bits
    (0x000F, 0x3F800000),   # 1.0
    (0x0000, 0x00000000),   # +0
    (0x8000, 0x80000000),   # -0 keeps its sign
    (0x0020, 0x00002000),   # exponent 0, mantissa 1: the FP32 denormal mantissa << 13
    (0x7FE0, 0x007FE000),   # exponent 0, mantissa 0x3FF
    (0x0001, 0x38800000),   # 2**-14
    (0x001F, 0x47800000),   # exponent 31 is finite: 2**16
    (0x7FFF, 0x47FFE000),   # exponent 31, mantissa 0x3FF: 131008 without ENABLE_FP16A_INF
    (0xFFFF, 0xC7FFE000),
]


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpload_fp16_reads_exponent_31_as_finite_and_0_as_denormal(arch):
    m = Machine(arch)
    put_cells(m, [c for c, _ in FP16_CELLS])
    run(m, "SFPLOAD L1, FP16, 0, 0")
    assert hexes(m.lreg[1][:len(FP16_CELLS)]) == hexes([v for _, v in FP16_CELLS])


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpload_fp16_enable_fp16a_inf_makes_max_pattern_infinite_per_lane(arch):
    m = Machine(arch)
    put_cells(m, [0x7FFF, 0xFFFF, 0x001F, 0x7FFF, 0xFFFF])
    m.lane_config[:3] = FP16A_INF          # lanes 0-2 only; each lane its own bit
    run(m, "SFPLOAD L0, FP16, 0, 0")
    assert hexes(m.lreg[0][:5]) == ["0x7f800000", "0xff800000", "0x47800000",
                                    "0x47ffe000", "0xc7ffe000"]


@pytest.mark.parametrize("arch, want", [
    ("wormhole", [0x80000048, 0x5, 0x7F]),      # 7 magnitude bits
    ("blackhole", [0x800000C8, 0x5, 0xFF]),     # 8 magnitude bits
])
def test_sfpload_int8_magnitude_width(arch, want):
    m = Machine(arch)
    put_cells(m, [0x9910, 0x00B0, 0x7FF0])      # -200, +5, +1023 (mag << 5 | 16)
    run(m, "SFPLOAD L2, INT8, 0, 0")
    assert hexes(m.lreg[2][:3]) == hexes(want)


@pytest.mark.parametrize("arch, want", [
    ("wormhole", [0xFFFFFFFB, 0xFFFFFC18, 0x0, 0x5]),            # two's complement; -0 -> 0
    ("blackhole", [0x80000005, 0x800003E8, 0x80000000, 0x5]),    # deprecated: sign-magnitude
])
def test_sfpload_int8_comp_converts_only_on_wormhole(arch, want):
    m = Machine(arch)
    put_cells(m, [0x80B0, 0xFD10, 0x8010, 0x00B0])              # -5, -1000, -0, +5
    run(m, "SFPLOAD L0, INT8_COMP, 0, 0")
    assert hexes(m.lreg[0][:4]) == hexes(want)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("mode, cells, want", [
    ("INT16", [0x8005, 0x7FFF, 0xFFFF], [0x80000005, 0x00007FFF, 0x80007FFF]),
    ("HI16", [0xABCD, 0x0001, 0x8000], [0xABCD0000, 0x00010000, 0x80000000]),
    ("LO16", [0xABCD, 0x0001, 0x8000], [0x0000ABCD, 0x00000001, 0x00008000]),
])
def test_sfpload_16bit_integer_modes_read_raw_cells(arch, mode, cells, want):
    m = Machine(arch)
    m.lreg[4] = 0x12345678
    put_cells(m, cells)
    run(m, f"SFPLOAD L4, {mode}, 0, 0")
    assert hexes(m.lreg[4][:3]) == hexes(want)


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpload_zero_clears_only_enabled_lanes(arch):
    m = Machine(arch)
    m.lreg[1] = 0x12345678
    m.cc.enable = True
    m.cc.flags[:] = LANE < 16
    run(m, "SFPLOAD L1, ZERO, 0, 0")
    assert np.all(m.lreg[1][:16] == 0) and np.all(m.lreg[1][16:] == 0x12345678)


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpload_to_constant_register_loads_nothing_but_applies_addr_mod(arch):
    m = Machine(arch)
    m.config.addr_mods[0] = AddrMod(dst_incr=4)
    put_cells(m, [0x007F] * 32)
    before = m.lreg.copy()
    m.step(decode(0x70820000, arch))        # SFPLOAD VD=8, mode BF16
    assert np.array_equal(m.lreg, before)
    assert m.rwc.dst == 4


# --------------------------------------------------------------------------------------------
# SFPSTORE formats
# --------------------------------------------------------------------------------------------

FP16_STORES = [         # FP32 bits -> Dst cell (sign | mantissa << 5 | exponent)
    (0x3F800000, 0x000F),   # 1.0
    (0x3F802000, 0x002F),   # 1 + 2**-10
    (0x3F801FFF, 0x000F),   # truncated toward zero
    (0x38800000, 0x0001),   # 2**-14, the smallest kept
    (0x387FFFFF, 0x0000),   # below 2**-14: signed zero
    (0xB87FFFFF, 0x8000),
    (0x00000001, 0x0000),   # denormals: signed zero
    (0x80400000, 0x8000),
    (0x00000000, 0x0000),
    (0x80000000, 0x8000),
    (0x477FE000, 0x7FFE),   # 65504
    (0x47800000, 0x001F),   # 2**16: exponent 31 is a finite binade
    (0x47FFFFFF, 0x7FFF),
    (0x48000000, 0x7FFF),   # 2**17 overflows: saturates to the 0x7FFF pattern
    (0x7F800000, 0x7FFF),   # +Inf
    (0xFF800000, 0xFFFF),   # -Inf
    (0x7FC00000, 0x7FFF),   # NaN
    (0xFFC00001, 0xFFFF),   # -NaN
]


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpstore_fp16_truncates_flushes_below_2_pow_minus_14_and_saturates(arch):
    m = Machine(arch)
    put_lreg(m, 3, [v for v, _ in FP16_STORES])
    run(m, "SFPSTORE L3, FP16, 0, 0")
    assert hexes(get_cells(m)[:len(FP16_STORES)]) == hexes([c for _, c in FP16_STORES])


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpstore_bf16_truncates_toward_zero_and_low_payload_nan_becomes_inf(arch):
    m = Machine(arch)
    put_lreg(m, 0, [0x3F80FFFF, 0x7F800001, 0x7FC00000, 0x807FFFFF, 0xBF7FFFFF])
    run(m, "SFPSTORE L0, BF16, 0, 0")
    assert hexes(get_cells(m)[:5]) == hexes([0x007F, 0x00FF, 0x40FF, 0x8000, 0xFF7E])


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpstore_int8_writes_sign_magnitude_shifted_with_exponent_16(arch):
    m = Machine(arch)
    put_lreg(m, 1, [0x80000005, 0x000003FF, 0x00000400, 0x00000000, 0x80000000, 0x000000FF])
    run(m, "SFPSTORE L1, INT8, 0, 0")
    assert hexes(get_cells(m)[:6]) == hexes([0x80B0, 0x7FF0, 0x0010, 0x0010, 0x8010, 0x1FF0])


@pytest.mark.parametrize("arch, want", [
    ("wormhole", [0x80B0, 0x00B0, 0x8010]),     # two's complement -> sign-magnitude first
    ("blackhole", [0xFF70, 0x00B0, 0x8010]),    # deprecated: raw low 10 bits
])
def test_sfpstore_int8_comp_converts_only_on_wormhole(arch, want):
    m = Machine(arch)
    put_lreg(m, 2, [0xFFFFFFFB, 0x00000005, 0x80000000])      # -5, +5, -2**31
    run(m, "SFPSTORE L2, INT8_COMP, 0, 0")
    assert hexes(get_cells(m)[:3]) == hexes(want)


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpstore_int16_keeps_sign_and_low_15_bits(arch):
    m = Machine(arch)
    put_lreg(m, 0, [0x80001234, 0x0001FFFF, 0x7FFF8000, 0xFFFFFFFF])
    run(m, "SFPSTORE L0, INT16, 0, 0")
    assert hexes(get_cells(m)[:4]) == hexes([0x9234, 0x7FFF, 0x0000, 0xFFFF])


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpstore_zero_clears_only_enabled_lanes(arch):
    m = Machine(arch)
    put_cells(m, [0xAAAA] * 32)
    m.cc.enable = True
    m.cc.flags[:] = LANE >= 8
    run(m, "SFPSTORE L5, ZERO, 0, 0")
    cells = get_cells(m)
    assert np.all(cells[:8] == 0xAAAA) and np.all(cells[8:] == 0)


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpstore_constant_register_needs_backdoor_disabled(arch):
    m = Machine(arch)
    run(m, "SFPSTORE L12, FP32, 0, 0")                 # captured as a LoadMacro template
    assert np.all(get_cells(m, width=32) == 0)
    m.lane_config[:] = DISABLE_BACKDOOR
    run(m, "SFPSTORE L12, FP32, 0, 0")                 # LReg[12] = 1/512 = 0x3B000000
    assert np.all(get_cells(m, width=32) == 0x00760000)


# --------------------------------------------------------------------------------------------
# Mode SRCB
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("srcb, want", [
    ("fp16", 0x3F800000), ("int8", 0x3F800000), ("bfp8a", 0x3F800000),   # FP16 reading
    ("bfp8", 0x07800000), ("tf32", 0x07800000), ("INT16", 0x07800000),   # BF16 reading
])
def test_sfpload_srcb_resolves_by_srcb_format(arch, srcb, want):
    m = Machine(arch)
    m.config.srcb_format = srcb
    put_cells(m, [0x000F])
    run(m, "SFPLOAD L0, SRCB, 0, 0")
    assert hexes(m.lreg[0][:1]) == [hex(want)]


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpstore_srcb_with_fp16_srcb_stores_fp16(arch):
    m = Machine(arch)
    m.config.srcb_format = "fp16"
    put_lreg(m, 0, [0x3F800000, 0x48000000])
    run(m, "SFPSTORE L0, SRCB, 0, 0")
    assert hexes(get_cells(m)[:2]) == ["0xf", "0x7fff"]


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpload_srcb_unknown_format_is_unsupported(arch):
    m = Machine(arch)
    m.config.srcb_format = "float17"
    with pytest.raises(Unsupported, match="float17"):
        run(m, "SFPLOAD L0, SRCB, 0, 0")


# --------------------------------------------------------------------------------------------
# LaneConfig
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
def test_sfpload_block_read_skips_the_lane_even_for_int32_all(arch):
    m = Machine(arch)
    m.lreg[0] = m.lreg[1] = 0x5555
    put_cells(m, [0x007F] * 32)                         # BF16 1.0
    put_cells(m, [0x00000001] * 32, width=32, address=4)
    m.lane_config[5] = BLOCK_READ
    run(m, "SFPLOAD L0, BF16, 0, 0", "SFPLOAD L1, INT32_ALL, 0, 4")
    assert m.lreg[0][5] == 0x5555 and m.lreg[0][4] == 0x3F800000
    assert m.lreg[1][5] == 0x5555 and m.lreg[1][6] == 0x00000001


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpstore_block_write_skips_the_lane(arch):
    m = Machine(arch)
    m.lreg[0] = 0x3F800000
    m.lane_config[9] = BLOCK_WRITE
    run(m, "SFPSTORE L0, BF16, 0, 0")
    cells = get_cells(m)
    assert cells[9] == 0 and np.all(np.delete(cells, 9) == 0x007F)


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpload_column_exchange_comes_from_the_row0_lane_of_the_column(arch):
    m = Machine(arch)
    rows = np.arange(4).repeat(16)
    cols = np.tile(np.arange(16), 4)
    m.dst.write_raw(rows, cols, rows * 16 + cols)       # cell = row << 4 | column
    m.lane_config[3] = READ_EXCHANGE                    # column 3: lanes 3, 11, 19, 27
    m.lane_config[12] = READ_EXCHANGE                   # not a row-0 lane: no effect
    run(m, "SFPLOAD L0, UINT16, 0, 0")
    got = m.lreg[0]
    assert hexes(got[[3, 11, 19, 27]]) == ["0x7", "0x17", "0x27", "0x37"]
    assert hexes(got[[2, 12]]) == ["0x4", "0x18"]


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpstore_column_exchange_writes_odd_columns(arch):
    m = Machine(arch)
    m.lreg[0] = 0x1234
    m.lane_config[2] = WRITE_EXCHANGE                   # column 2: lanes 2, 10, 18, 26
    run(m, "SFPSTORE L0, UINT16, 0, 0")
    assert np.all(m.dst.read_raw(np.arange(4), 5) == 0x1234)
    assert np.all(m.dst.read_raw(np.arange(4), 4) == 0)
    assert np.all(m.dst.read_raw(np.arange(4), 6) == 0x1234)


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpload_captures_dest_index_into_vd_plus_4(arch):
    m = Machine(arch)
    m.lane_config[:] = DEST_INDEX | CAPTURE_INDEX
    run(m, "SFPLOAD L1, BF16, 0, 6")                    # rows 4..7, odd columns
    rows, cols = 4 + LANE // 8, 2 * (LANE % 8) + 1
    assert np.array_equal(m.lreg[5], rows << 4 | cols)
    assert hexes(m.lreg[5][[0, 31]]) == ["0x41", "0x7f"]


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpload_dest_index_needs_both_bits_and_vd_below_4(arch):
    m = Machine(arch)
    m.lreg[4:8] = 0x77
    m.lane_config[:16] = DEST_INDEX                     # capture bit missing
    m.lane_config[16:] = DEST_INDEX | CAPTURE_INDEX
    run(m, "SFPLOAD L0, BF16, 0, 0")                    # rows 0..3, even columns
    assert np.all(m.lreg[4][:16] == 0x77)
    assert np.array_equal(m.lreg[4][16:], (LANE[16:] // 8) << 4 | 2 * (LANE[16:] % 8))
    run(m, "SFPLOAD L5, BF16, 0, 0")                    # VD >= 4: no capture anywhere
    assert np.all(m.lreg[5] == 0) and np.all(m.lreg[6:8] == 0x77)


@pytest.mark.parametrize("arch", ARCHES)
def test_row_mask_blocks_load_and_store_but_not_int32_all(arch):
    m = Machine(arch)
    m.lane_config[:8] = 1 << (12 + 1)                   # ROW_MASK: grid row 1 off
    m.lreg[0] = 0x3F800000
    run(m, "SFPSTORE L0, INT32, 0, 0", "SFPSTORE L0, INT32_ALL, 0, 4")
    assert np.all(get_cells(m, 0, 32)[8:16] == 0) and np.all(get_cells(m, 0, 32)[16:] != 0)
    assert np.all(get_cells(m, 4, 32) == 0x007F0000)


# --------------------------------------------------------------------------------------------
# INT32_ALL ignores lane enable
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
def test_int32_all_ignores_lane_enable(arch):
    m = Machine(arch)
    m.cc.enable = True                                  # every lane disabled
    m.lreg[0] = 0x3F801234
    m.lreg[1] = m.lreg[2] = 0x9999
    run(m, "SFPSTORE L0, INT32, 0, 0", "SFPSTORE L0, INT32_ALL, 0, 4",
        "SFPLOAD L1, INT32, 0, 4", "SFPLOAD L2, INT32_ALL, 0, 4")
    assert np.all(get_cells(m, 0, 32) == 0)
    assert np.all(get_cells(m, 4, 32) == 0x007F1234)    # BF16 shuffle of the high half
    assert np.all(m.lreg[1] == 0x9999) and np.all(m.lreg[2] == 0x3F801234)


# --------------------------------------------------------------------------------------------
# Address generation and AddrMod
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
def test_address_sums_imm10_offsets_and_counter_modulo_1024(arch):
    m = Machine(arch)
    m.config.dest_target_offset = 8
    m.config.dest_regw_base = 4
    m.rwc.dst = 6
    m.lreg[0] = 0xBEEF
    run(m, "SFPSTORE L0, UINT16, 0, 1008")              # 1008 + 8 + 4 + 6 = 1026 -> 2
    assert np.all(get_cells(m, address=2) == 0xBEEF)    # rows 0..3, odd columns


@pytest.mark.parametrize("arch", ARCHES)
def test_dest_index_reports_the_wrapped_10_bit_row(arch):
    m = Machine(arch)
    m.lane_config[:] = DEST_INDEX | CAPTURE_INDEX
    m.rwc.dst = 8
    run(m, "SFPLOAD L0, BF16, 0, 1020")                 # 1020 + 8 = 1028 -> rows 4..7
    assert np.array_equal(m.lreg[4], (4 + LANE // 8) << 4 | 2 * (LANE % 8))


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpload_to_constant_register_does_not_read_dst(arch):
    m = Machine(arch, dst_rows=16)
    m.step(decode(0x70820000 | 100, arch))              # SFPLOAD VD=8 at rows 100..103
    assert np.all(m.lreg[8] == m.arch.constant_lregs[8])


@pytest.mark.parametrize("arch", ARCHES)
def test_addr_mod_increments_dst_counter_after_the_access(arch):
    m = Machine(arch)
    m.config.addr_mods[1] = AddrMod(dst_incr=4)
    put_cells(m, [0x007F] * 32, address=0)              # BF16 1.0 in rows 0..3
    put_cells(m, [0x0080] * 32, address=4)              # BF16 2.0 in rows 4..7
    run(m, "SFPLOAD L0, BF16, 1, 0")
    assert m.rwc.dst == 4 and np.all(m.lreg[0] == 0x3F800000)
    run(m, "SFPLOAD L1, BF16, 0, 0")
    assert m.rwc.dst == 4 and np.all(m.lreg[1] == 0x40000000)
    run(m, "SFPSTORE L0, BF16, 1, 0")                   # into rows 4..7, then counter 8
    assert m.rwc.dst == 8 and np.all(get_cells(m, address=4) == 0x007F)


@pytest.mark.parametrize("arch", ARCHES)
def test_addr_mod_carriage_return_clear_and_wrap(arch):
    m = Machine(arch)
    m.config.addr_mods[1] = AddrMod(dst_incr=8, dst_cr=True)
    m.config.addr_mods[2] = AddrMod(dst_incr=2, dst_c_to_cr=True)
    m.config.addr_mods[3] = AddrMod(dst_incr=5, dst_clear=True)
    m.config.addr_mods[0] = AddrMod(dst_incr=8)
    m.rwc.dst, m.rwc.dst_cr = 3, 16
    run(m, "SFPLOAD L0, ZERO, 1, 0")
    assert (m.rwc.dst, m.rwc.dst_cr) == (24, 24)
    run(m, "SFPSTORE L0, ZERO, 2, 0")
    assert (m.rwc.dst, m.rwc.dst_cr) == (26, 26)
    run(m, "SFPLOAD L0, ZERO, 3, 0")
    assert (m.rwc.dst, m.rwc.dst_cr) == (0, 0)
    m.rwc.dst = 1020
    run(m, "SFPLOAD L0, ZERO, 0, 0")
    assert (m.rwc.dst, m.rwc.dst_cr) == (4, 0)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("how", ["set_base", "extra_bit"])
def test_addr_mod_base_selects_upper_four_slots(arch, how):
    m = Machine(arch)
    m.config.addr_mods[1] = AddrMod(dst_incr=4)
    m.config.addr_mods[5] = AddrMod(dst_incr=16)
    if how == "set_base":
        m.config.addr_mod_set_base = True
    else:
        m.rwc.extra_addr_mod_bit = 1
    run(m, "SFPLOAD L0, ZERO, 1, 0")
    assert m.rwc.dst == 16


def test_blackhole_addr_mod_beyond_slot_7_is_unsupported_and_changes_nothing():
    m = Machine("blackhole")
    m.config.addr_mod_set_base = True
    m.lreg[0] = 7
    with pytest.raises(Unsupported, match="slot 9"):
        run(m, "SFPLOAD L0, ZERO, 5, 0")
    assert np.all(m.lreg[0] == 7) and m.rwc.dst == 0


def test_wormhole_int32_all_uses_only_low_two_bits_of_the_counter():
    m = Machine("wormhole")
    m.rwc.dst = 6
    m.lreg[0] = 0x11
    m.lreg[1] = 0x22
    run(m, "SFPSTORE L0, INT32_ALL, 0, 8", "SFPSTORE L1, INT32, 0, 8")
    assert np.all(get_cells(m, 8 + 2, 32) == 0x11)      # rows 8..11, odd columns
    assert np.all(get_cells(m, 8 + 6, 32) == 0x22)      # rows 12..15, odd columns
    assert m.rwc.sp == 0


def test_blackhole_int32_all_pushes_and_pops_through_the_stack_pointer():
    m = Machine("blackhole")
    m.rwc.dst = 6                                       # only its low bits (2) count
    m.config.dest_sp_base = 16
    m.config.sfpu_stack_incr = 4
    m.lreg[0], m.lreg[1] = 0x10, 0x20
    run(m, "SFPSTORE L0, INT32_ALL, 0, 0")              # 16 + 0 + 2 = 18; Sp -> 4
    assert m.rwc.sp == 4 and np.all(get_cells(m, 18, 32) == 0x10)
    run(m, "SFPSTORE L1, INT32_ALL, 0, 0")              # 16 + 4 + 2 = 22; Sp -> 8
    assert m.rwc.sp == 8 and np.all(get_cells(m, 22, 32) == 0x20)
    run(m, "SFPLOAD L2, INT32_ALL, 0, 0")               # Sp 8 -> 4 first: 22
    assert m.rwc.sp == 4 and np.all(m.lreg[2] == 0x20)
    run(m, "SFPLOAD L3, INT32_ALL, 0, 0")               # Sp 4 -> 0: 18
    assert m.rwc.sp == 0 and np.all(m.lreg[3] == 0x10)
    run(m, "SFPLOAD L4, INT32_ALL, 0, 0")               # Sp 0 stays 0: 18 again
    assert m.rwc.sp == 0 and np.all(m.lreg[4] == 0x10)


def test_blackhole_normal_modes_add_low_bits_of_stack_offset():
    m = Machine("blackhole")
    m.config.dest_sp_base = 2
    m.rwc.dst = 4
    m.lreg[0] = 0xCAFE
    run(m, "SFPSTORE L0, UINT16, 0, 0")                 # 0 + 4 + (2 & 3) = 6
    assert np.all(get_cells(m, 6) == 0xCAFE)
    assert m.rwc.sp == 0


# --------------------------------------------------------------------------------------------
# Many SFPUs in one machine
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
def test_64_lane_machine_keeps_each_sfpus_dst_apart(arch):
    m = Machine(arch, lanes=64)
    put_cells(m, [0x007F] * 32, group=0)                # BF16 1.0 in SFPU 0
    put_cells(m, [0x0080] * 32, group=1)                # BF16 2.0 in SFPU 1
    m.lane_config[32 + 3] = READ_EXCHANGE               # only SFPU 1's column 3
    m.dst.write_raw(np.arange(4), 7, 0x4080, group=1)   # BF16 3.0 in SFPU 1, column 7
    run(m, "SFPLOAD L0, BF16, 0, 0")
    assert np.all(m.lreg[0][:32] == 0x3F800000)
    lanes1 = m.lreg[0][32:]
    exchanged = LANE % 8 == 3
    assert np.all(lanes1[exchanged] == 0x40400000) and np.all(lanes1[~exchanged] == 0x40000000)
    m.lreg[1][:32], m.lreg[1][32:] = 0xC0000000, 0xC0800000    # -2.0 and -4.0
    run(m, "SFPSTORE L1, BF16, 0, 2")
    assert np.all(get_cells(m, 2, group=0) == 0x8080)
    assert np.all(get_cells(m, 2, group=1) == 0x8081)

