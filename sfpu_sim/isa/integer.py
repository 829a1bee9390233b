"""Integer and bitwise family: SFPIADD, SFPSHFT, SFPAND, SFPOR, SFPXOR, SFPNOT, SFPLZ.

Simple sub-unit, 1 cycle. Operands are raw 32-bit lane words (unsigned, two's complement or
sign-magnitude integers, or FP32 bits); nothing here reads them as floats. Which modifier
values exist on which chip (Blackhole's SFPSHFT ARITHMETIC / ARG_IMM_USE_VC, SFPAND/SFPOR
USE_VB) is data in the opcode table (:mod:`sfpu_sim.arch`): each function below follows the
Blackhole model, which reduces to the Wormhole one for the modifier values Wormhole has.

Sources: tt-isa-documentation ``{WormholeB0,BlackholeA0}/TensixTile/TensixCoprocessor/``
``SFPIADD.md``, ``SFPSHFT.md``, ``SFPAND.md``, ``SFPOR.md``, ``SFPXOR.md``, ``SFPNOT.md``,
``SFPLZ.md`` (revisions 585749d1 and c7cbab63); digest in isa-reference §3.11, §4.3.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats
from sfpu_sim.isa import records as rec
from sfpu_sim.isa.spec import SIMPLE, Opcode, operand_vb

# SFPIADD Mod1
IADD_ARG_IMM, IADD_SUBTRACT, IADD_CC_NONE, IADD_CC_GTE0 = 1, 2, 4, 8
# SFPSHFT Mod1 (2 and 4 are Blackhole's)
SHFT_ARG_IMM, SHFT_ARITHMETIC, SHFT_ARG_IMM_USE_VC = 1, 2, 4
# SFPAND / SFPOR Mod1 (Blackhole)
USE_VB = 1
# SFPLZ Mod1
LZ_CC_NE0, LZ_NOSGN_MASK, LZ_CC_COMP = 2, 4, 8


def _int32(values) -> np.ndarray:
    return values.view(np.int32)


def sfpiadd(m, i):
    """SFPIADD: ``VD = VC + sext(Imm12)`` (ARG_IMM), ``VC - VB`` (ARG_2SCOMP_LREG_DST) or
    ``VC + VB``, wrapping at 32 bits; VB is VD unless SFPLOADMACRO chose it.

    Flags, only when VD < 8, in the enabled lanes and whatever UseLaneFlagsForLaneEnable is:
    unless CC_NONE, ``LaneFlags = result < 0`` (as int32); then CC_GTE0 inverts LaneFlags, so
    CC_NONE | CC_GTE0 (12) just inverts the existing flags."""
    lanes = m.enabled
    c = m.read(i.vc)
    if i.mod1 & IADD_ARG_IMM:
        result = c + np.uint32(i.imm12 & 0xFFFFFFFF)
    elif i.mod1 & IADD_SUBTRACT:
        result = c - m.read(operand_vb(i))
    else:
        result = c + m.read(operand_vb(i))
    m.write(i.vd, result, lanes)
    if i.vd < 8:
        flags = m.cc.flags if i.mod1 & IADD_CC_NONE else _int32(result) < 0
        if i.mod1 & IADD_CC_GTE0:
            flags = ~flags
        m.set_flags(flags, lanes)


def sfpshft(m, i):
    """SFPSHFT: ``VD`` = ``VB`` (VD unless SFPLOADMACRO chose it) shifted by ``VC`` as int32
    (or by ``Imm12`` with ARG_IMM): left for an amount >= 0, right for a negative one, by
    ``amount & 31`` (so +-32 shifts by 0).

    Blackhole adds ARITHMETIC (right shifts keep the sign) and ARG_IMM_USE_VC (with ARG_IMM:
    shift ``VC`` by ``Imm12``, leaving VD's old value unused). Blackhole Mod1 = 4 or 6
    (ARG_IMM_USE_VC without ARG_IMM) is non-contractual; current silicon drops bit 2, which
    is what this model does anyway, as it reads bit 2 only together with ARG_IMM."""
    x = m.read(operand_vb(i))
    amount = _int32(m.read(i.vc)).astype(np.int64)
    if i.mod1 & SHFT_ARG_IMM:
        if i.mod1 & SHFT_ARG_IMM_USE_VC:
            x = m.read(i.vc)
        amount = np.full(m.lanes, i.imm12, dtype=np.int64)
    left = (amount & 31).astype(np.uint32)
    right = (-amount & 31).astype(np.uint32)
    if i.mod1 & SHFT_ARITHMETIC:
        shifted_right = (_int32(x) >> right.astype(np.int32)).view(np.uint32)
    else:
        shifted_right = x >> right
    m.write(i.vd, np.where(amount >= 0, x << left, shifted_right))


def _bitwise_source(m, i):
    """The register combined with VC: VB (``Imm12 & 15``) with Blackhole's USE_VB, else VD
    (for an instruction SFPLOADMACRO scheduled, the VB it chose)."""
    return m.read(operand_vb(i, i.imm12 & 15 if i.mod1 & USE_VB else i.vd))


def sfpand(m, i):
    """SFPAND: ``VD = VD & VC``; Blackhole USE_VB: ``VD = VB & VC``."""
    m.write(i.vd, _bitwise_source(m, i) & m.read(i.vc))


def sfpor(m, i):
    """SFPOR: ``VD = VD | VC``; Blackhole USE_VB: ``VD = VB | VC``."""
    m.write(i.vd, _bitwise_source(m, i) | m.read(i.vc))


def sfpxor(m, i):
    """SFPXOR: ``VD = VB ^ VC`` (VB = VD unless SFPLOADMACRO chose it)."""
    m.write(i.vd, m.read(operand_vb(i)) ^ m.read(i.vc))


def sfpnot(m, i):
    """SFPNOT: ``VD = ~VC``."""
    m.write(i.vd, ~m.read(i.vc))


def sfplz(m, i):
    """SFPLZ: ``VD`` = leading zeros of ``VC`` (32 for 0), of its low 31 bits with NOSGN_MASK.

    Flags, only when VD < 8 (enabled lanes): CC_NE0 sets ``LaneFlags = c != 0``; then CC_COMP
    inverts LaneFlags (so CC_COMP alone inverts the existing flags)."""
    lanes = m.enabled
    c = m.read(i.vc) & np.uint32(0x7FFFFFFF if i.mod1 & LZ_NOSGN_MASK else 0xFFFFFFFF)
    m.write(i.vd, (32 - formats.bit_length(c)).astype(np.uint32), lanes)
    if i.vd < 8 and i.mod1 & (LZ_CC_NE0 | LZ_CC_COMP):
        flags = c != 0 if i.mod1 & LZ_CC_NE0 else m.cc.flags
        m.set_flags(~flags if i.mod1 & LZ_CC_COMP else flags, lanes)


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

# The "VD" these read is VB (``unsigned VB = VD;``), which SFPLOADMACRO may choose.
def _shft_reads(i):
    if i.mod1 & 1:
        return frozenset({i.vc} if i.mod1 & 4 else {operand_vb(i)})
    return frozenset({i.vc, operand_vb(i)})


def _and_or_reads(i):                    # Blackhole USE_VB: the second operand is Imm12 & 15
    return frozenset({i.vc, operand_vb(i, i.imm12 & 15 if i.mod1 & 1 else i.vd)})


def _and_or(mnemonic, opcode, execute):
    return Opcode(mnemonic, opcode, rec.imm12_format(0, 0), SIMPLE, execute, "mod1",
                  frozenset({0}), {}, reads=_and_or_reads, writes=rec.vd)


_SIGNED_IMM12 = rec.imm12_format(-2048, 2047, signed=True)

RECORDS = (
    Opcode("SFPIADD", 0x79, _SIGNED_IMM12, SIMPLE, sfpiadd, "mod1", rec.EVERY_MODE,
           rec.names("SFPIADD_MOD1", ARG_LREG_DST=0, ARG_IMM=1, ARG_2SCOMP_LREG_DST=2,
                   CC_LT0=0, CC_NONE=4, CC_GTE0=8),
           reads=rec.vc_and_vd_unless_immediate, writes=rec.vd),
    Opcode("SFPSHFT", 0x7A, _SIGNED_IMM12, SIMPLE, sfpshft, "mod1", frozenset({0, 1}),
           rec.names("SFPSHFT_MOD1", ARG_IMM=1), reads=_shft_reads, writes=rec.vd),
    _and_or("SFPAND", 0x7E, sfpand), _and_or("SFPOR", 0x7F, sfpor),
    Opcode("SFPNOT", 0x80, rec.imm12_format(mod_high=0), SIMPLE, sfpnot, reads=rec.vc,
           writes=rec.vd),
    Opcode("SFPLZ", 0x81, rec.imm12_format(), SIMPLE, sfplz, "mod1", frozenset(range(0, 16, 2)),
           rec.names("SFPLZ_MOD1", CC_NE0=2, NOSGN_MASK=4, CC_COMP=8), reads=rec.vc, writes=rec.vd),
    Opcode("SFPXOR", 0x8D, rec.imm12_format(mod_high=0), SIMPLE, sfpxor, reads=rec.vc_vb,
           writes=rec.vd),
)
BLACKHOLE = {
    "SFPSHFT": {"modes": frozenset(range(8)),
                "mod_names": rec.names("SFPSHFT_MOD1", ARG_IMM=1, ARITHMETIC=2,
                                     ARG_IMM_USE_VC=4)},
    **{m: {"operands": rec.imm12_format(0, 15), "modes": frozenset({0, 1}),
           "mod_names": rec.names(f"{m}_MOD1", USE_VB=1)} for m in ("SFPAND", "SFPOR")},
}
