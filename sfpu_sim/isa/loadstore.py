"""Load/store family: SFPLOADI, SFPLOAD, SFPSTORE (both chips), and the load and store that
SFPLOADMACRO (:mod:`sfpu_sim.isa.loadmacro`) performs and schedules.

Owns: the Dst address of an access (SFPLOAD.md, SFPSTORE.md), the per-lane Dst cell each lane
touches, the 16 data-type conversions between Dst cells and LRegs in each direction, and the
AddrMod step SFPLOAD/SFPSTORE apply to the Dst counter afterwards. Dst's storage layout (the
field shuffles) is :mod:`sfpu_sim.formats`; Dst's row adjustments and the counters themselves
are :mod:`sfpu_sim.machine`.

tt-isa-documentation ``SFPLOADI.md`` (WormholeB0 f7fda211, identical on Blackhole),
``SFPLOAD.md`` (WormholeB0 and BlackholeA0 revision 1392d237), ``SFPSTORE.md`` (WormholeB0
545c98a3, BlackholeA0 0f3f6b70), ``RWCs.md`` (WormholeB0 2025-06 revision 39304719:
``ApplyAddrMod``). Chip differences are Arch
fields: ``sign_magnitude_conversions``, ``load_int8_magnitude_bits``,
``int32_all_uses_stack_pointer``; the FP32 -> BF16 and FP32 -> FP32 store conversions are
``bf16_store_rounds`` and ``fp32_store_flushes`` (the chips truncate and flush; the binary32
hosts of :mod:`sfpu_sim.determinism` round to nearest even and keep denormals).

Choice where the sources disagree: the Wormhole SFPSTORE page stores FP32 (mode 3, and SRCB
resolved to it) raw, but ttsim v1.10.0's Wormhole golden vectors flush denormals to signed
zero exactly as the Blackhole page does (80 of 80 cases); the golden vectors win, so both
chips flush.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats
from sfpu_sim.isa import exact_rules, lanewise
from sfpu_sim.isa import records as rec
from sfpu_sim.isa.convert import (
    sign_magnitude_to_twos_complement,
    twos_complement_to_sign_magnitude,
)
from sfpu_sim.isa.lanewise import VD, Semantics, helper
from sfpu_sim.isa.spec import (
    BLOCK_DEST_WR_FROM_SFPU,
    BLOCK_SFPU_RD_FROM_DEST,
    CAPTURE_DEFAULT_DEST_INDEX,
    DEST_RD_COL_EXCHANGE,
    DEST_WR_COL_EXCHANGE,
    ENABLE_DEST_INDEX,
    ENABLE_FP16A_INF,
    LOAD,
    STORE,
    Opcode,
    Unsupported,
    imm,
    lreg,
    mod,
)

# Mod0 formats of SFPLOAD / SFPSTORE / SFPLOADMACRO (MOD0_FMT_*)
(SRCB, FP16, BF16, FP32, INT32, INT8, UINT16, HI16, INT16, LO16, INT32_ALL, ZERO, INT32_SM,
 INT8_COMP, LO16_ONLY, HI16_ONLY) = range(16)
LOAD_32BIT = frozenset({FP32, INT32, INT32_ALL, INT32_SM})
STORE_32BIT = frozenset({FP32, INT32, INT32_ALL, INT32_SM, LO16, HI16})

# SrcB data formats (as the ISA pages name them) that make mode SRCB mean BF16 or FP16.
SRCB_AS_BF16 = frozenset({"fp32", "tf32", "bf16", "bfp8", "bfp4", "bfp2", "int32", "int16"})
SRCB_AS_FP16 = frozenset({"fp16", "fp8", "bfp8a", "bfp4a", "bfp2a", "int8"})

COUNTER_MASK = 0x3FF        # RWC Sp and Dst addresses are 10 bits


# --------------------------------------------------------------------------------------------
# SFPLOADI
# --------------------------------------------------------------------------------------------

@helper
def fp16_floata_to_fp32(h):
    """FLOATA (FP16 without special cases) -> FP32: exponent rebiased by 112 (0x0000 is
    2**-15, exponent 31 finite); :func:`sfpu_sim.formats.fp16_floata_to_fp32_bits` on arrays."""
    return ((h & 0x8000) << 16) | ((((h >> 10) & 0x1F) + 112) << 23) | ((h & 0x3FF) << 13)


def sfploadi(vd, imm16, mod0):
    """SFPLOADI: ``VD = Imm16`` widened per mod0 (VD < 8 only; LE-gated; both chips alike).

    FLOATB (0) ``Imm16 << 16``; FLOATA (1) FP16 rebiased without special cases (0x0000 is
    2**-15, exponent 31 finite); USHORT (2) zero-extended; SHORT (4) sign-extended; UPPER (8)
    replaces the high half of VD; LOWER (10) replaces its low half. Other modes are UB, which
    the record's modes refuse when the instruction is made."""
    if mod0 == 0:
        return imm16 << 16
    if mod0 == 1:
        return fp16_floata_to_fp32(imm16)
    if mod0 == 4:
        return ((imm16 ^ 0x8000) - 0x8000) & 0xFFFFFFFF
    if mod0 == 8:
        return (imm16 << 16) | (vd & 0xFFFF)
    if mod0 == 10:
        return (vd & 0xFFFF0000) | imm16
    return imm16


SFPLOADI = Semantics("SFPLOADI", sfploadi, (VD,), ("imm16", "mod0"))


# --------------------------------------------------------------------------------------------
# One lane of Dst's storage layout (formats' field shuffles themselves, compiled) and of the
# SFPU's FP16 / BF16 conversions (formats has these as array functions, for the sweeps'
# unpacking and packing): exponent in the low bits (Dst.md).
# --------------------------------------------------------------------------------------------

bf16_to_dst = helper(formats.bf16_dst_shuffle)
dst_to_bf16 = helper(formats.dst_bf16_shuffle)
fp16_to_dst = helper(formats.fp16_dst_shuffle)
dst_to_fp16 = helper(formats.dst_fp16_shuffle)


@helper
def fp32_to_dst(x):
    return (bf16_to_dst(x >> 16) << 16) | (x & 0xFFFF)


@helper
def dst_to_fp32(d):
    return (dst_to_bf16(d >> 16) << 16) | (d & 0xFFFF)


@helper
def fp16a_to_fp32(h, fp16a_inf):
    """SFPLOAD's reading of an FP16 datum (:func:`sfpu_sim.formats.fp16a_to_fp32_bits`)."""
    sign, e, m = (h & 0x8000) << 16, (h >> 10) & 0x1F, h & 0x3FF
    if fp16a_inf and e == 31 and m == 0x3FF:
        return sign | 0x7F800000
    return sign | ((m << 13) if e == 0 else ((e + 112) << 23) | (m << 13))


@helper
def fp32_to_fp16a_truncate(x):
    """SFPSTORE's FP32 -> FP16 (:func:`sfpu_sim.formats.fp32_to_fp16a_truncate`)."""
    sign = (x >> 16) & 0x8000
    e = ((x >> 23) & 0xFF) - 112
    if e <= 0:
        return sign
    if e > 31:
        return sign | 0x7FFF
    return sign | (e << 10) | ((x & 0x7FFFFF) >> 13)


@helper
def fp32_to_bf16_truncate(x):
    """SFPSTORE's FP32 -> BF16 (:func:`sfpu_sim.formats.fp32_to_bf16_truncate`)."""
    return (x & 0x80000000 if (x & 0x7F800000) == 0 else x) >> 16


@helper
def fp32_to_bf16_rne(x):
    """A binary32 host's FP32 -> BF16 (:func:`sfpu_sim.formats.fp32_to_bf16_rne`)."""
    if (x & 0x7F800000) == 0x7F800000 and (x & 0x7FFFFF) != 0:
        return ((x >> 16) & 0x8000) | 0x7FC0
    return (x + 0x7FFF + ((x >> 16) & 1)) >> 16


@helper
def flush_denormal(x):
    """A denormal FP32 pattern made zero of its sign (:func:`sfpu_sim.formats.daz`)."""
    return x & 0x80000000 if (x & 0x7F800000) == 0 and (x & 0x7FFFFF) != 0 else x


# --------------------------------------------------------------------------------------------
# Shared by SFPLOAD and SFPSTORE: format, address, lane cells, AddrMod
# --------------------------------------------------------------------------------------------

def resolve_format(m, mod0: int) -> int:
    """Mode SRCB (0) becomes FP32 with ``ALU_ACC_CTRL_SFPU_Fp32_enabled``, else BF16 or FP16
    after the SrcB data format (``m.config.srcb_format``; on Blackhole, put the effective
    format there when ``SFPU_DEST_FMT_Enable`` overrides it). Other modes are unchanged."""
    if mod0 != SRCB:
        return mod0
    if m.config.sfpu_fp32:
        return FP32
    srcb = m.config.srcb_format.lower()
    if srcb in SRCB_AS_BF16:
        return BF16
    if srcb in SRCB_AS_FP16:
        return FP16
    known = ", ".join(sorted(SRCB_AS_BF16 | SRCB_AS_FP16))
    raise Unsupported(f"SFPLOAD/SFPSTORE mode SRCB: unknown Machine.config.srcb_format "
                      f"{m.config.srcb_format!r} (known: {known})")


def dst_address(m, imm10: int, int32_all: bool, sp: int) -> int:
    """The 10-bit Dst address of an access (SFPLOAD.md, SFPSTORE.md), with the stack pointer ``sp``
    (Blackhole's Sp RWC, after SFPLOAD's pre-decrement)."""
    config = m.config
    address = imm10 + config.dest_target_offset
    dst_offset = m.rwc.dst + config.dest_regw_base
    if not m.arch.int32_all_uses_stack_pointer:
        address += (dst_offset & 3) if int32_all else dst_offset
    else:
        sp_offset = sp + config.dest_sp_base
        address += sp_offset + (dst_offset & 3) if int32_all else dst_offset + (sp_offset & 3)
    return address & COUNTER_MASK


# --------------------------------------------------------------------------------------------
# SFPLOAD
# --------------------------------------------------------------------------------------------

def load_datum(cell, old, fp16a_inf, mode, sign_magnitude, int8_bits):
    """SFPLOAD's conversion of a Dst cell (raw 16 or 32 bits) to an LReg value in a lane;
    ``old`` is LReg[VD] (for the *_ONLY modes), ``fp16a_inf`` the lane's LaneConfig
    ENABLE_FP16A_INF; ``sign_magnitude`` and ``int8_bits`` are the chip's
    (``Arch.sign_magnitude_conversions``, ``Arch.load_int8_magnitude_bits``)."""
    sign = (cell >> 15) << 31                                 # the sign of a 16-bit cell
    if mode == FP16:
        h = dst_to_fp16(cell)
        return fp16a_to_fp32(h, fp16a_inf)
    if mode == BF16:
        h = dst_to_bf16(cell)
        return h << 16
    if mode == FP32 or mode == INT32 or mode == INT32_ALL:
        return dst_to_fp32(cell)
    if mode == INT32_SM:
        value = dst_to_fp32(cell)
        if sign_magnitude:
            return sign_magnitude_to_twos_complement(value)
        return value
    if mode == INT8:
        return sign | ((cell >> 5) & ((1 << int8_bits) - 1))
    if mode == INT8_COMP:
        value = sign | ((cell >> 5) & 0x3FF)
        if sign_magnitude:
            return sign_magnitude_to_twos_complement(value)
        return value
    if mode == INT16:
        return sign | (cell & 0x7FFF)
    if mode == UINT16 or mode == LO16:
        return cell
    if mode == HI16:
        return cell << 16
    if mode == LO16_ONLY:
        return (old & 0xFFFF0000) | cell
    if mode == HI16_ONLY:
        return (cell << 16) | (old & 0xFFFF)
    return 0                                                  # ZERO


def sfpload(m, i):
    """SFPLOAD: ``VD = convert(Dst cell)`` for VD < 8 (SFPLOAD.md), all 16 modes; see
    :func:`load`."""
    load(m, i.vd, i.mod0, i.addr_mod, i.imm10)


def load(m, vd: int, mod0: int, addr_mod: int, imm10: int) -> int:
    """SFPLOAD's functional model (SFPLOADMACRO runs it too); returns the Dst address read.

    Lanes: the enabled ones (any lane for INT32_ALL, ROW_MASK included), less those whose
    LaneConfig has BLOCK_SFPU_RD_FROM_DEST. FP16 reads exponent 31 as finite, except that a
    lane with ENABLE_FP16A_INF reads exponent 31 / mantissa 0x3FF as +-Inf; exponent 0 gives
    the FP32 denormal pattern ``mantissa << 13``. With ENABLE_DEST_INDEX and
    CAPTURE_DEFAULT_DEST_INDEX, VD < 4 also gets ``LReg[VD + 4] = Row << 4 | Column``.
    Blackhole's INT32_ALL first steps Sp down by SFPU_STACK_Incr when Sp != 0. Afterwards the
    AddrMod moves the Dst counter. No backdoor: VD 8-15 load nothing."""
    mode = resolve_format(m, mod0)
    int32_all = mode == INT32_ALL
    slot = m.addr_mod_slot(addr_mod, "SFPLOAD")
    sp = m.rwc.sp
    if int32_all and m.arch.int32_all_uses_stack_pointer and sp != 0:
        sp = (sp - m.config.sfpu_stack_incr) & COUNTER_MASK
    address = dst_address(m, imm10, int32_all, sp)
    if vd < 8:
        lanes = (m.active if int32_all else m.enabled) & \
            ((m.lane_config & BLOCK_SFPU_RD_FROM_DEST) == 0)
        rows, columns, groups = m.dst.lane_cells(address, DEST_RD_COL_EXCHANGE)
        read = m.dst.read32 if mode in LOAD_32BIT else m.dst.read16
        cell = np.zeros(m.lanes, dtype=np.uint32)
        cell[lanes] = read(rows[lanes], columns[lanes], groups[lanes])
        fp16a_inf = (m.lane_config & ENABLE_FP16A_INF) != 0
        m.write(vd, lanewise.lanes(load_datum, cell, m.read(vd), fp16a_inf, mode,
                                   int(m.arch.sign_magnitude_conversions),
                                   m.arch.load_int8_magnitude_bits), lanes)
        capture = ENABLE_DEST_INDEX | CAPTURE_DEFAULT_DEST_INDEX
        if vd < 4:
            index_lanes = lanes & ((m.lane_config & capture) == capture)
            m.write(vd + 4, (rows << np.uint32(4)) | columns, index_lanes)
    m.rwc.sp = sp
    m.apply_partial_addr_mod(slot)
    return address


# --------------------------------------------------------------------------------------------
# SFPSTORE
# --------------------------------------------------------------------------------------------

def store_datum(x, mode, sign_magnitude, bf16_rounds, fp32_flushes):
    """SFPSTORE's conversion of an LReg value to the raw Dst cell (16 or 32 bits) in a lane;
    ``sign_magnitude``, ``bf16_rounds`` and ``fp32_flushes`` are the platform's
    (``Arch.sign_magnitude_conversions``, ``Arch.bf16_store_rounds``,
    ``Arch.fp32_store_flushes``: the chips truncate to BF16 and flush FP32 denormals)."""
    sign16 = (x >> 31) << 15
    if mode == FP16:
        h = fp32_to_fp16a_truncate(x)
        return fp16_to_dst(h)
    if mode == BF16:
        if bf16_rounds:
            h = fp32_to_bf16_rne(x)
        else:
            h = fp32_to_bf16_truncate(x)
        return bf16_to_dst(h)
    if mode == FP32:
        if fp32_flushes:
            y = flush_denormal(x)
            return fp32_to_dst(y)
        return fp32_to_dst(x)
    if mode == INT32 or mode == INT32_ALL:
        return fp32_to_dst(x)
    if mode == INT32_SM:
        if sign_magnitude:
            y = twos_complement_to_sign_magnitude(x)
            return fp32_to_dst(y)
        return fp32_to_dst(x)
    if mode == INT8 or mode == INT8_COMP:
        if mode == INT8_COMP and sign_magnitude:
            y = twos_complement_to_sign_magnitude(x)
            return fp16_to_dst(sign16 | 0x4000 | (y & 0x3FF))
        return fp16_to_dst(sign16 | 0x4000 | (x & 0x3FF))
    if mode == INT16:
        return sign16 | (x & 0x7FFF)
    if mode == UINT16 or mode == LO16_ONLY:
        return x & 0xFFFF
    if mode == HI16_ONLY:
        return x >> 16
    if mode == LO16:
        return ((x << 16) & 0xFFFFFFFF) | (x >> 16)
    if mode == HI16:
        return x
    return 0                                                  # ZERO


def sfpstore(m, i):
    """SFPSTORE: ``Dst cell = convert(LReg[VD])`` for any VD 0-15 (SFPSTORE.md).

    Lanes: the enabled ones (any lane for INT32_ALL, ROW_MASK included) among those the
    instruction acts in at all (VD >= 12 is the LoadMacro backdoor, applied by the machine),
    less those whose LaneConfig has BLOCK_DEST_WR_FROM_SFPU. BF16/FP16 truncate; FP16 turns
    anything below 2**-14 into signed zero and saturates overflow, Inf and NaN to 0x7FFF with
    the sign. Blackhole's INT32_ALL steps Sp up by SFPU_STACK_Incr after computing the
    address. Afterwards the AddrMod moves the Dst counter."""
    mode = resolve_format(m, i.mod0)
    int32_all = mode == INT32_ALL
    slot = m.addr_mod_slot(i.addr_mod, "SFPSTORE")
    store(m, i.vd, mode, dst_address(m, i.imm10, int32_all, m.rwc.sp))
    if int32_all and m.arch.int32_all_uses_stack_pointer:
        m.rwc.sp = (m.rwc.sp + m.config.sfpu_stack_incr) & COUNTER_MASK
    m.apply_partial_addr_mod(slot)


def store(m, vd: int, mode: int, address: int) -> None:
    """SFPSTORE's write of ``LReg[vd]`` in resolved ``mode`` at Dst ``address`` (an
    SFPLOADMACRO-scheduled store gets the address its SFPLOADMACRO computed, and no AddrMod)."""
    lanes = (m.active if mode == INT32_ALL else m.enabled) & \
        ((m.lane_config & BLOCK_DEST_WR_FROM_SFPU) == 0)
    rows, columns, groups = m.dst.lane_cells(address, DEST_WR_COL_EXCHANGE)
    write = m.dst.write32 if mode in STORE_32BIT else m.dst.write16
    source = m.read(vd)
    cells = lanewise.lanes(store_datum, source, mode, int(m.arch.sign_magnitude_conversions),
                           int(m.arch.bf16_store_rounds), int(m.arch.fp32_store_flushes))
    write(rows[lanes], columns[lanes], cells[lanes], groups[lanes])
    m.stored(address, source, lanes)


# --------------------------------------------------------------------------------------------
# Exact rules (sfpu_sim.isa.exact_rules)
# --------------------------------------------------------------------------------------------

def load_exact(i, o: exact_rules.Operands) -> exact_rules.Result:
    """SFPLOAD: in a float format, the shadow of what the kernel stored at that Dst address
    in this lane (probed: a twin); otherwise (None) the value loaded, an input: exact."""
    return exact_rules.Result(exact_rules.LOAD, o.probed())


def store_exact(i, o: exact_rules.Operands) -> exact_rules.Result:
    """SFPSTORE: Dst keeps VD's shadow; the device's conversion is the store's own error."""
    return exact_rules.Result(exact_rules.STORE, o.twin(i.vd))


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

LOADSTORE_FORMATS = {"SRCB": 0, "FP16": 1, "FP16A": 1, "BF16": 2, "FP16B": 2, "FP32": 3,
                     "INT32": 4, "INT8": 5, "UINT16": 6, "HI16": 7, "INT16": 8, "LO16": 9,
                     "INT32_ALL": 10, "ZERO": 11, "INT32_SM": 12, "INT8_COMP": 13,
                     "LO16_ONLY": 14, "HI16_ONLY": 15}
LOADSTORE_NAMES = {**{f"MOD0_FMT_{k}": v for k, v in LOADSTORE_FORMATS.items()},
                   **LOADSTORE_FORMATS}
# The AddrMod field: 2 bits at 14 on Wormhole, 3 bits at 13 on Blackhole.
WORMHOLE_ADDR_MOD, BLACKHOLE_ADDR_MOD = imm("addr_mod", 14, 2), imm("addr_mod", 13, 3)


def _dst_access(addr_mod):
    return (lreg("vd", 20), mod("mod0", 16), addr_mod, imm("imm10", 0, 10))


RECORDS = (
    Opcode("SFPLOAD", 0x70, _dst_access(WORMHOLE_ADDR_MOD), LOAD, sfpload, "mod0",
           rec.EVERY_MODE, LOADSTORE_NAMES, reads=rec.none, writes=rec.vd, backdoor=False,
           cost_class=rec.LOAD_STORE, shadow=load_exact),
    Opcode("SFPLOADI", 0x71, (lreg("vd", 20), mod("mod0", 16), imm("imm16", 0, 16)), LOAD,
           SFPLOADI, "mod0", frozenset({0, 1, 2, 4, 8, 10}),
           rec.names("SFPLOADI_MOD0", FLOATB=0, FLOATA=1, USHORT=2, SHORT=4, UPPER=8, LOWER=10),
           reads=lambda i: frozenset({i.vd}) if i.mod0 in (8, 10) else rec.NONE, writes=rec.vd,
           backdoor=False, cost_class=rec.CONSTANTS),
    Opcode("SFPSTORE", 0x72, _dst_access(WORMHOLE_ADDR_MOD), STORE, sfpstore, "mod0",
           rec.EVERY_MODE, LOADSTORE_NAMES, reads=rec.vd, writes=rec.none, writes_vd=False,
           cost_class=rec.LOAD_STORE, shadow=store_exact),
)
BLACKHOLE = {"SFPLOAD": {"operands": _dst_access(BLACKHOLE_ADDR_MOD)},
             "SFPSTORE": {"operands": _dst_access(BLACKHOLE_ADDR_MOD)}}
