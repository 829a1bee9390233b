"""Lane movement and configuration: SFPSWAP, SFPTRANSP, SFPSHFT2, SFPCONFIG, SFPNOP (both
chips).

The cross-lane instructions act within each 32-lane group (one SFPU), seen through
``m.group_view`` as 4 grid rows x 8 grid columns; they never mix groups. SFPCONFIG writes the
LoadMacro state, LaneConfig and the programmable constants LReg[11..14], whose meaning belongs
to the instructions that read them. tt-isa-documentation BlackholeA0 ``SFPSWAP.md``
(revision 585749d1), WormholeB0 ``SFPTRANSP.md`` and ``SFPNOP.md`` (39304719, shared by
Blackhole), WormholeB0 and BlackholeA0 ``SFPSHFT2.md`` (13547104), WormholeB0 ``SFPCONFIG.md``
(0a19075d).
"""
from __future__ import annotations

import numpy as np

from sfpu_sim.isa import lanewise
from sfpu_sim.isa import records as rec
from sfpu_sim.isa.cc import sign_magnitude_less
from sfpu_sim.isa.exact_rules import SELECT, Operands, Result
from sfpu_sim.isa.integer import SHFT_ARG_IMM, sfpshft
from sfpu_sim.isa.spec import (
    ENABLE_DEST_INDEX,
    EXCHANGE_SRCB_SRCC,
    ROUND,
    SIMPLE,
    Opcode,
    Unsupported,
    imm,
    lreg,
    mod,
    operand_vb,
)

ZERO = np.uint32(0)


# --------------------------------------------------------------------------------------------
# SFPSWAP
# --------------------------------------------------------------------------------------------

# VDGetsMin per mode: bit ``lane`` set where VD gets the minimum (SFPSWAP.md). Mode 0 swaps
# unconditionally; mode 9 puts the maximum in VD everywhere.
VD_GETS_MIN = {1: 0xFFFFFFFF, 2: 0x0000FFFF, 3: 0x00FF00FF, 4: 0xFF0000FF, 5: 0x000000FF,
               6: 0x0000FF00, 7: 0x00FF0000, 8: 0xFF000000, 9: 0x00000000}


def swaps(vc, vd, lane, exchange, mod1, vd_gets_min):
    """Whether SFPSWAP exchanges ``L[VC]`` and ``L[VD]`` in a lane (lane enable aside):
    always in mode 0; in modes 1-9 where VD would otherwise not get the minimum (bit ``lane``
    of the mode's VDGetsMin mask ``vd_gets_min``) or the maximum (elsewhere), in the
    sign-magnitude total order (equal values: no swap where VD gets the minimum, a harmless
    swap where it gets the maximum); the lane's LaneConfig EXCHANGE_SRCB_SRCC (``exchange``)
    inverts that decision."""
    if mod1 == 0:
        return 1
    smaller = sign_magnitude_less(vc, vd)
    if (vd_gets_min >> lane) & 1:
        swap = 1 if smaller else 0
    else:
        swap = 0 if smaller else 1
    return swap ^ exchange


def sfpswap(m, i):
    """SFPSWAP: mod1 0 swaps ``L[VC]`` and ``L[VD]``; modes 1-9 swap where needed so that VD
    gets the minimum in the lanes of the mode's VDGetsMin mask (1 all lanes; 2-8 grid rows
    01/02/03/0/1/2/3) and the maximum elsewhere (9 everywhere): :func:`swaps`.

    LaneConfig (the lane's own): EXCHANGE_SRCB_SRCC inverts the decision of modes 1-9;
    ENABLE_DEST_INDEX makes it argmin/argmax: the values are written back only to VC / VD
    below 4, and LReg[4 + (VC & 3)] and LReg[4 + (VD & 3)] are swapped alongside. Otherwise
    only VC / VD below 8 are written. In enabled lanes only."""
    c, d = m.read(i.vc).copy(), m.read(i.vd).copy()
    exchange = (m.lane_config & EXCHANGE_SRCB_SRCC) != 0
    swap = lanewise.lanes(swaps, c, d, m.lane_id, exchange, i.mod1, VD_GETS_MIN.get(i.mod1, 0)) != 0
    swap &= m.enabled
    dest_index = (m.lane_config & ENABLE_DEST_INDEX) != 0
    plain, indexed = swap & ~dest_index, swap & dest_index
    m.write(i.vc, d, plain)
    m.write(i.vd, c, plain)
    if indexed.any():
        if i.vc < 4:
            m.write(i.vc, d, indexed)
        if i.vd < 4:
            m.write(i.vd, c, indexed)
        vca, vda = 4 + (i.vc & 3), 4 + (i.vd & 3)
        index_c, index_d = m.read(vca).copy(), m.read(vda).copy()
        m.write(vca, index_d, indexed)
        m.write(vda, index_c, indexed)


# --------------------------------------------------------------------------------------------
# SFPTRANSP
# --------------------------------------------------------------------------------------------

def sfptransp(m, i):
    """SFPTRANSP: for LReg[0..3] and LReg[4..7] separately, each grid column's 4 registers x
    4 grid rows are transposed: new ``LReg[base + r][row c]`` = old ``LReg[base + c][row r]``,
    each element written only if its destination lane is enabled."""
    enabled = m.enabled
    for base in (0, 4):
        block = m.lreg[base:base + 4].reshape(4, m.groups, 4, 8)
        transposed = np.ascontiguousarray(block.transpose(2, 1, 0, 3)).reshape(4, m.lanes)
        for r in range(4):
            m.write(base + r, transposed[r], enabled)


# --------------------------------------------------------------------------------------------
# SFPSHFT2
# --------------------------------------------------------------------------------------------

COPY4, CHAINED_COPY4, SHFLROR1_AND_COPY4, SHFLROR1, SHFLSHR1, SHFT_LREG, SHFT_IMM = range(7)


def _rotate_right(m, v):
    """Each grid row (8 lanes) rotated right by one lane: lane ``8r + c`` gets lane
    ``8r + (c - 1) % 8``."""
    return np.roll(m.group_view(v), 1, axis=2).reshape(m.lanes)


def _shift_right(m, v, fill):
    """Each grid row shifted right by one lane; the first lane of row ``r`` gets ``fill[r]``
    (``fill`` per group and grid row, shape (groups, 4))."""
    rows = m.group_view(v)
    out = np.empty_like(rows)
    out[:, :, 1:] = rows[:, :, :-1]
    out[:, :, 0] = fill
    return out.reshape(m.lanes)


def _rows_up(m, v):
    """Each grid row replaced by the next one (lanes 0-23 get lane + 8); the last row gets 0."""
    rows = m.group_view(v)
    out = np.zeros_like(rows)
    out[:, :3, :] = rows[:, 1:, :]
    return out.reshape(m.lanes)


def shift_mode(mod1: int) -> int:
    """SFPSHFT's Mod1 for SFPSHFT2 SHFT_LREG / SHFT_IMM: the same shift of VB, by ``L[VC]``
    read as int32 or by Imm12 (ARG_IMM; :func:`sfpu_sim.isa.integer.sfpshft`)."""
    return SHFT_ARG_IMM if mod1 == SHFT_IMM else 0


def _remember_rotate(m, vc) -> None:
    """Wormhole's SHFLSHR1 bug reads the VC snapshot of the most recent SFPSHFT2 rotate
    (modes 2/3) that executed; kept as ``m.shft2_last_rotate``."""
    if m.active.all():
        m.shft2_last_rotate = vc.copy()
    elif m.active.any() and m.arch.shflshr1_fills_stale:
        raise Unsupported("SFPSHFT2 rotate with VD >= 12 acting in some lanes only: which "
                          "snapshot Wormhole's SHFLSHR1 bug keeps is not documented")


def _shflshr1_fill(m):
    """What lanes 0/8/16/24 get from SHFLSHR1: 0, or on Wormhole (``arch.shflshr1_fills_stale``,
    NonContractual) lane + 7 of the last rotate's VC snapshot. Before any rotate the snapshot
    is taken as zero (the hardware's initial value is not documented)."""
    if not m.arch.shflshr1_fills_stale:
        return ZERO
    stale = m.shft2_last_rotate
    if stale is None:
        return ZERO
    return m.group_view(stale)[:, :, 7]


def sfpshft2(m, i):
    """SFPSHFT2, by mod1:

    0 COPY4: ``L0, L1, L2, L3 = L1, L2, L3, 0``; 1 SUBVEC_CHAINED_COPY4: the same but L3 gets
    the old L0 of the next grid row (0 in row 3); 2 SUBVEC_SHFLROR1_AND_COPY4: the same but L3
    gets ``L[VC]`` rotated right by one lane within each grid row; 3 SUBVEC_SHFLROR1: ``L[VD]
    = L[VC]`` so rotated; 4 SUBVEC_SHFLSHR1: ``L[VD] = L[VC]`` shifted right by one lane within
    each grid row, lanes 0/8/16/24 filled per :func:`_shflshr1_fill`; 5 SHFT_LREG: ``L[VD] =
    L[VB]`` shifted left by ``L[VC]`` (int32; negative: logical right); 6 SHFT_IMM: ``L[VD] =
    L[Imm12 & 15]`` shifted by Imm12 (both SFPSHFT's shift: :func:`shift_mode`). VB is
    instruction bits 12-15 (the low 4 bits of the Imm12 operand), or the register
    SFPLOADMACRO chose for an instruction it scheduled.

    Sources are read before any write; every write is gated per destination lane. Modes 0-2
    write the fixed L0-L3 (VD matters only for the backdoor); 3-6 write VD if < 8."""
    mode = i.mod1
    enabled = m.enabled
    if mode <= SHFLROR1_AND_COPY4:
        l0, l1, l2, l3 = (m.read(r).copy() for r in range(4))
        if mode == COPY4:
            new3 = np.zeros(m.lanes, dtype=np.uint32)
        elif mode == CHAINED_COPY4:
            new3 = _rows_up(m, l0)
        else:
            vc = m.read(i.vc).copy()
            _remember_rotate(m, vc)
            new3 = _rotate_right(m, vc)
        for r, value in enumerate((l1, l2, l3, new3)):
            m.write(r, value, enabled)
        return
    if mode == SHFLROR1:
        vc = m.read(i.vc).copy()
        _remember_rotate(m, vc)
        result = _rotate_right(m, vc)
    elif mode == SHFLSHR1:
        result = _shift_right(m, m.read(i.vc), _shflshr1_fill(m))
    else:
        result = lanewise.lanes(sfpshft, m.read(i.vc), m.read(operand_vb(i, i.imm12 & 15)), i.imm12,
                       shift_mode(mode))
    m.write(i.vd, result, enabled)


# --------------------------------------------------------------------------------------------
# SFPCONFIG, SFPNOP
# --------------------------------------------------------------------------------------------

IMM16_IS_VALUE, IMM16_IS_LANE_MASK = 1, 8
MISC_BITS, LANE_CONFIG_BITS, LANE_CONFIG_HIGH = 0xFFF, 0x3FFFF, 0x30000


def _from_row0(m, v):
    """Each lane gets the value of the grid-row-0 lane of its column (lane % 8 of its group)."""
    rows = m.group_view(v)
    return np.broadcast_to(rows[:, :1, :], rows.shape).reshape(m.lanes)


def _combine(mod1: int, old, value):
    """Misc / LaneConfig update by mod1 & 6: 0 assign, 2 OR, 4 AND, 6 XOR."""
    return {0: lambda: value, 2: lambda: old | value, 4: lambda: old & value,
            6: lambda: old ^ value}[mod1 & 6]()


def config_writes(column, row0_flag, imm16, mod1, cc_enable):
    """Whether SFPCONFIG writes a lane (its own predication, not LaneEnabled): not where
    mod1 & 8 IMM16_IS_LANE_MASK and Imm16 bit ``2 * column`` is clear, nor where its column's
    row-0 lane has LaneFlags clear while UseLaneFlagsForLaneEnable (``cc_enable``)."""
    if mod1 & IMM16_IS_LANE_MASK and not (imm16 >> (2 * column)) & 1:
        return 0
    if cc_enable and not row0_flag:
        return 0
    return 1


def constant_register(src, mod1, default):
    """LReg[11..14]'s new value: the column's row-0 LReg[0] (``src``), or with
    IMM16_IS_VALUE the chip's reset constant (``default``)."""
    return default if mod1 & IMM16_IS_VALUE else src


def sfpconfig(m, i):
    """SFPCONFIG: write VD-selected configuration from grid row 0, broadcast down each column,
    in the lanes :func:`config_writes` names (ROW_MASK and the backdoor are not consulted).

    ``src`` = LReg[0] of the column's row-0 lane; ``value`` = Imm16 with mod1 & 1
    IMM16_IS_VALUE, else ``src``. VD 0-3: LoadMacro InstructionTemplate[VD] = src; 4-7:
    Sequence[VD - 4] = value; 8: Misc (12 bits) assigned / ORed / ANDed / XORed with value by
    mod1 & 6; 9-10: nothing (NonContractual, the current silicon's behaviour); 11-14:
    :func:`constant_register` (the reset values in ``arch.constant_lregs``); 15: LaneConfig
    (18 bits) combined like Misc, and with IMM16_IS_VALUE its bits 16-17 ORed back from
    before (Imm16 cannot reach them)."""
    written = lanewise.lanes(config_writes, m.lane_id % 8, _from_row0(m, m.cc.flags), i.imm16,
                             i.mod1, int(m.cc.enable)) != 0
    src = _from_row0(m, m.lreg[0])
    value = np.uint32(i.imm16) if i.mod1 & IMM16_IS_VALUE else src
    vd = i.vd
    if vd < 4:
        np.copyto(m.loadmacro.templates[vd], src, where=written)
    elif vd < 8:
        np.copyto(m.loadmacro.sequence[vd - 4], value, where=written)
    elif vd == 8:
        misc = _combine(i.mod1, m.loadmacro.misc, value & np.uint32(MISC_BITS))
        np.copyto(m.loadmacro.misc, misc, where=written)
    elif vd < 11:
        pass
    elif vd < 15:
        np.copyto(m.lreg[vd], lanewise.lanes(constant_register, src, i.mod1,
                                             m.arch.constant_lregs[vd]), where=written)
    else:
        original = m.lane_config
        config = _combine(i.mod1, original, value & np.uint32(LANE_CONFIG_BITS))
        if i.mod1 & IMM16_IS_VALUE:
            config = config | (original & np.uint32(LANE_CONFIG_HIGH))
        np.copyto(m.lane_config, config, where=written)


def sfpnop(m, i):
    """SFPNOP: no effect (it occupies a sub-unit for a cycle: :mod:`sfpu_sim.macro` counts it
    when SFPLOADMACRO work is in flight)."""


# --------------------------------------------------------------------------------------------
# Exact rules (sfpu_sim.isa.exact_rules)
# --------------------------------------------------------------------------------------------

def swap_exact(i, o: Operands) -> Result:
    """SFPSWAP: where the device swapped, VC gets VD's value and VD gets VC's; the shadows
    move with them (the device's min/max decision, not the shadows')."""
    return Result(SELECT, {i.vc: o.twin(i.vd), i.vd: o.twin(i.vc)}, {i.vc: i.vd, i.vd: i.vc})


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

def _shft2_reads(i):
    mode = i.mod1
    if mode in (0, 1):
        return frozenset({0, 1, 2, 3})
    if mode == 2:
        return frozenset({0, 1, 2, 3, i.vc})
    if mode in (3, 4):
        return frozenset({i.vc})
    if mode == 5:                        # VB: Imm12 & 15, or what SFPLOADMACRO chose
        return frozenset({operand_vb(i, i.imm12 & 15), i.vc})
    return frozenset({operand_vb(i, i.imm12 & 15)})


_CONFIG_NAMES = {"IMM16_IS_VALUE": 1, "BITWISE_OR": 2, "BITWISE_AND": 4, "BITWISE_XOR": 6,
                 "IMM16_IS_LANE_MASK": 8}

RECORDS = (
    Opcode("SFPTRANSP", 0x8C, rec.imm12_format(vc_high=0, mod_high=0), SIMPLE, sfptransp,
           reads=lambda i: frozenset(range(8)), writes=lambda i: frozenset(range(8)),
           writes_vd=False),
    Opcode("SFPNOP", 0x8F, (), SIMPLE, sfpnop, reads=rec.none, writes=rec.none, writes_vd=False,
           backdoor=False, cost_class=rec.NOP),
    Opcode("SFPCONFIG", 0x91, (imm("imm16", 8, 16), lreg("vd", 4), mod("mod1", 0)), SIMPLE,
           sfpconfig, "mod1", rec.EVERY_MODE,
           {**_CONFIG_NAMES, **{f"MOD1_{k}": v for k, v in _CONFIG_NAMES.items()}},
           reads=lambda i: frozenset({0}),
           writes=lambda i: frozenset({i.vd} if 11 <= i.vd <= 14 else set()),
           writes_vd=False, backdoor=False, cost_class=rec.CONFIG),
    Opcode("SFPSWAP", 0x92, rec.imm12_format(), SIMPLE, sfpswap, "mod1", frozenset(range(10)),
           rec.names("SFPSWAP_MOD1", SWAP=0, VEC_MIN_MAX=1, SUBVEC_MIN01_MAX23=2,
                   SUBVEC_MIN02_MAX13=3, SUBVEC_MIN03_MAX12=4, SUBVEC_MIN0_MAX123=5,
                   SUBVEC_MIN1_MAX023=6, SUBVEC_MIN2_MAX013=7, SUBVEC_MIN3_MAX012=8,
                   VEC_MAX_MIN=9),
           reads=lambda i: frozenset({i.vc, i.vd, 4, 5, 6, 7}),
           writes=lambda i: frozenset({i.vc, i.vd, 4, 5, 6, 7}), writes_vd=False,
           shadow=swap_exact),
    Opcode("SFPSHFT2", 0x94, rec.imm12_format(-2048, 2047, signed=True), ROUND, sfpshft2, "mod1",
           frozenset(range(7)),
           rec.names("SFPSHFT2_MOD1", COPY4=0, SUBVEC_CHAINED_COPY4=1,
                   SUBVEC_SHFLROR1_AND_COPY4=2, SUBVEC_SHFLROR1=3, SUBVEC_SHFLSHR1=4,
                   SHFT_LREG=5, SHFT_IMM=6),
           reads=_shft2_reads,
           writes=lambda i: frozenset({0, 1, 2, 3}) if i.mod1 <= 2 else frozenset({i.vd}),
           writes_vd=False),
)
BLACKHOLE = {}
