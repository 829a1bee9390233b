"""Float-field instructions and moves: SFPEXEXP, SFPEXMAN, SFPSETEXP, SFPSETMAN, SFPSETSGN,
SFPDIVP2, SFPABS, SFPMOV. Simple sub-unit, 1 cycle, identical on Wormhole and Blackhole.

They work on raw bits: no denormal flushing, no NaN special cases beyond those stated.
tt-isa-documentation BlackholeA0 ``SFPEXEXP.md``, ``SFPEXMAN.md``, ``SFPSETEXP.md``,
``SFPSETMAN.md``, ``SFPSETSGN.md``, ``SFPDIVP2.md`` (revision 14841484), ``SFPABS.md``
(445ebb1f), ``SFPMOV.md`` (14841484); digest in isa-reference §3.9-3.10.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim.isa import records as rec
from sfpu_sim.isa.spec import SIMPLE, Opcode, operand_vb

SIGN = np.uint32(0x80000000)
EXPONENT = np.uint32(0x7F800000)
MANTISSA = np.uint32(0x007FFFFF)


def exponent_field(x):
    return (x >> np.uint32(23)) & np.uint32(0xFF)


def sfpexexp(m, i):
    """SFPEXEXP: ``VD = exponent(VC) - 127`` as int32 (NODEBIAS, mod1 & 1: the raw field).

    Flags, only when VD < 8, in the enabled lanes: SET_CC_SGN_EXP (2) sets LaneFlags =
    result < 0; then SET_CC_COMP_EXP (8) inverts LaneFlags (so 8 alone inverts the existing
    flag)."""
    lanes = m.enabled
    exponent = exponent_field(m.read(i.vc)).astype(np.int32)
    result = exponent if i.mod1 & 1 else exponent - 127
    m.write(i.vd, result.view(np.uint32), lanes)
    if i.vd < 8:
        flags = result < 0 if i.mod1 & 2 else m.cc.flags
        m.set_flags(~flags if i.mod1 & 8 else flags, lanes)


def sfpexman(m, i):
    """SFPEXMAN: ``VD = mantissa(VC)`` with the hidden bit 0x800000 added, or without it with
    PAD9 (mod1 & 1)."""
    hidden = np.uint32(0) if i.mod1 & 1 else np.uint32(0x800000)
    m.write(i.vd, (m.read(i.vc) & MANTISSA) | hidden)


def sfpsetexp(m, i):
    """SFPSETEXP: sign and mantissa from VC, a new exponent field: Imm8 (ARG_IMM, mod1 & 1),
    else the exponent field of VB (ARG_EXPONENT, mod1 & 2), else the low 8 bits of VB (VB =
    VD unless SFPLOADMACRO chose it)."""
    vc, vd = m.read(i.vc), m.read(operand_vb(i))
    if i.mod1 & 1:
        exponent = np.uint32(i.imm12 & 0xFF)
    elif i.mod1 & 2:
        exponent = exponent_field(vd)
    else:
        exponent = vd & np.uint32(0xFF)
    m.write(i.vd, (vc & ~EXPONENT) | (exponent << np.uint32(23)))


def sfpsetman(m, i):
    """SFPSETMAN: sign and exponent from VC, a new mantissa: ``Imm12 << 11`` (ARG_IMM: sets
    mantissa bits 22..11 and clears 10..0), else the mantissa field of VB (VD unless
    SFPLOADMACRO chose it)."""
    vc = m.read(i.vc)
    if i.mod1 & 1:
        mantissa = np.uint32(i.imm12 << 11)
    else:
        mantissa = m.read(operand_vb(i)) & MANTISSA
    m.write(i.vd, (vc & ~MANTISSA) | mantissa)


def sfpsetsgn(m, i):
    """SFPSETSGN: exponent and mantissa from VC, sign = Imm1 (ARG_IMM) or the sign of VB (VD
    unless SFPLOADMACRO chose it). With the immediate this is abs / negative-abs; NaNs change
    sign too."""
    vc = m.read(i.vc)
    sign = np.uint32((i.imm12 & 1) << 31) if i.mod1 & 1 else m.read(operand_vb(i)) & SIGN
    m.write(i.vd, (vc & ~SIGN) | sign)


def sfpdivp2(m, i):
    """SFPDIVP2: sign and mantissa from VC. ADD (mod1 & 1): exponent += Imm8 modulo 256 (subtract
    k with 256 - k), except that exponent 255 (Inf/NaN) is left alone; no saturation, so zero
    or a denormal becomes a normal number and a finite value can wrap into 255. Otherwise the
    exponent becomes Imm8, for every input."""
    vc = m.read(i.vc)
    imm8 = np.uint32(i.imm12 & 0xFF)
    exponent = exponent_field(vc)
    if i.mod1 & 1:
        new = np.where(exponent == 255, exponent, (exponent + imm8) & np.uint32(0xFF))
    else:
        new = np.broadcast_to(imm8, vc.shape)
    m.write(i.vd, (vc & ~EXPONENT) | (new.astype(np.uint32) << np.uint32(23)))


# Negative values SFPABS FLOAT leaves alone: negative NaNs only. The newest Blackhole page keeps
# patterns above 0xFF800000 (so -Inf becomes +Inf, as the overview table's "Abs(VC), or VC when
# NaN" says); the older Wormhole text also kept -Inf. The golden vectors of both chips follow
# the newest reading (see tests).
NEGATIVE_NAN_FLOOR = np.uint32(0xFF800000)


def sfpabs(m, i):
    """SFPABS: FLOAT (mod1 & 1) clears the sign bit except of negative NaNs (-0 -> +0,
    -Inf -> +Inf); INT (0) negates two's complement negatives (wrapping: -2^31 stays)."""
    x = m.read(i.vc)
    negative = x >= SIGN
    if i.mod1 & 1:
        result = np.where(negative & (x <= NEGATIVE_NAN_FLOOR), x & ~SIGN, x)
    else:
        result = np.where(negative, (~x + np.uint32(1)).astype(np.uint32), x)
    m.write(i.vd, result)


# SFPMOV FROM_SPECIAL sources, by VC (SFPMOV.md): LoadMacro state, the PRNG, LaneConfig.
def _special_source(m, vc: int, lanes):
    if vc < 4:
        return m.loadmacro.templates[vc]
    if vc < 8:
        return m.loadmacro.sequence[vc - 4]
    if vc == 8:
        return m.loadmacro.misc
    if vc == 9:
        return m.advance_prng(lanes)
    if vc == 15:
        return m.lane_config
    return np.uint32(0)


def sfpmov(m, i):
    """SFPMOV: ``VD = VC``, or ``-VC`` by flipping the sign bit (NEGATE, mod1 & 1; NaN sign
    too). ALL_LANES_ENABLED (mod1 == 2 exactly) ignores lane enable. FROM_SPECIAL (mod1 & 8)
    reads special state instead of VC: LoadMacro templates (VC 0-3), sequences (4-7), misc (8),
    the PRNG (9: returns the state and advances it, in enabled lanes), LaneConfig (15), zero
    otherwise; NEGATE is not applied to special sources."""
    lanes = m.active if i.mod1 == 2 else m.enabled
    if i.mod1 & 8:
        value = _special_source(m, i.vc, lanes)
    else:
        value = m.read(i.vc)
        if i.mod1 & 1:
            value = value ^ SIGN
    m.write(i.vd, value, lanes)


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

RECORDS = (
    Opcode("SFPDIVP2", 0x76, rec.imm12_format(-128, 127, signed=True), SIMPLE, sfpdivp2, "mod1",
           frozenset({0, 1}), rec.names("SFPDIVP2_MOD1", ADD=1), reads=rec.vc, writes=rec.vd),
    Opcode("SFPEXEXP", 0x77, rec.imm12_format(), SIMPLE, sfpexexp, "mod1",
           frozenset({0, 1, 2, 3, 8, 9, 10, 11}),
           rec.names("SFPEXEXP_MOD1", NODEBIAS=1, SET_CC_SGN_EXP=2, SET_CC_COMP_EXP=8),
           reads=rec.vc, writes=rec.vd),
    Opcode("SFPEXMAN", 0x78, rec.imm12_format(), SIMPLE, sfpexman, "mod1", frozenset({0, 1}),
           rec.names("SFPEXMAN_MOD1", PAD9=1), reads=rec.vc, writes=rec.vd),
    Opcode("SFPMOV", 0x7C, rec.imm12_format(), SIMPLE, sfpmov, "mod1", frozenset({0, 1, 2, 8}),
           rec.names("SFPMOV_MOD1", NEGATE=1, ALL_LANES_ENABLED=2, FROM_SPECIAL=8),
           reads=lambda i: rec.NONE if i.mod1 & 8 else frozenset({i.vc}), writes=rec.vd),
    Opcode("SFPABS", 0x7D, rec.imm12_format(), SIMPLE, sfpabs, "mod1", frozenset({0, 1}),
           rec.names("SFPABS_MOD1", INT=0, FLOAT=1), reads=rec.vc, writes=rec.vd),
    Opcode("SFPSETEXP", 0x82, rec.imm12_format(0, 255), SIMPLE, sfpsetexp, "mod1",
           frozenset({0, 1, 2}), rec.names("SFPSETEXP_MOD1", ARG_IMM=1, ARG_EXPONENT=2),
           reads=rec.vc_and_vd_unless_immediate, writes=rec.vd),
    Opcode("SFPSETMAN", 0x83, rec.imm12_format(0, 4095), SIMPLE, sfpsetman, "mod1",
           frozenset({0, 1}), rec.names("SFPSETMAN_MOD1", ARG_IMM=1),
           reads=rec.vc_and_vd_unless_immediate, writes=rec.vd),
    Opcode("SFPSETSGN", 0x89, rec.imm12_format(0, 1), SIMPLE, sfpsetsgn, "mod1",
           frozenset({0, 1}), rec.names("SFPSETSGN_MOD1", ARG_IMM=1),
           reads=rec.vc_and_vd_unless_immediate, writes=rec.vd),
)
BLACKHOLE = {}
