"""Integer and bitwise family: SFPIADD, SFPSHFT, SFPAND, SFPOR, SFPXOR, SFPNOT, SFPLZ.

Simple sub-unit, 1 cycle. Operands are raw 32-bit lane words (unsigned, two's complement or
sign-magnitude integers, or FP32 bits); nothing here reads them as floats. Which modifier
values exist on which chip (Blackhole's SFPSHFT ARITHMETIC / ARG_IMM_USE_VC, SFPAND/SFPOR
USE_VB) is data in the opcode table (:mod:`sfpu_sim.arch`): each function below follows the
Blackhole model, which reduces to the Wormhole one for the modifier values Wormhole has.

Sources: tt-isa-documentation ``{WormholeB0,BlackholeA0}/TensixTile/TensixCoprocessor/``
``SFPIADD.md``, ``SFPSHFT.md``, ``SFPAND.md``, ``SFPOR.md``, ``SFPXOR.md``, ``SFPNOT.md``,
``SFPLZ.md`` (revisions 585749d1 and c7cbab63).
"""
from __future__ import annotations

from sfpu_sim.isa import records as rec
from sfpu_sim.isa.lanewise import SIMPLE_VB, VC, Semantics, helper, int32, leading_zeros32
from sfpu_sim.isa.spec import SIMPLE, Opcode, operand_vb

# SFPIADD Mod1
IADD_ARG_IMM, IADD_SUBTRACT, IADD_CC_NONE, IADD_CC_GTE0 = 1, 2, 4, 8
# SFPSHFT Mod1 (2 and 4 are Blackhole's)
SHFT_ARG_IMM, SHFT_ARITHMETIC, SHFT_ARG_IMM_USE_VC = 1, 2, 4
# SFPAND / SFPOR Mod1 (Blackhole)
USE_VB = 1
# SFPLZ Mod1
LZ_CC_NE0, LZ_NOSGN_MASK, LZ_CC_COMP = 2, 4, 8
M32 = 0xFFFFFFFF
SIGN = 0x80000000


@helper
def complemented(flag, condition):
    """A CC_COMP-style modifier: the flag inverted when ``condition`` holds."""
    return 1 - flag if condition else flag


def sfpiadd(vc, vb, imm12, mod1):
    """SFPIADD: ``VD = VC + sext(Imm12)`` (ARG_IMM), ``VC - VB`` (ARG_2SCOMP_LREG_DST) or
    ``VC + VB``, wrapping at 32 bits; VB is VD unless SFPLOADMACRO chose it."""
    if mod1 & IADD_ARG_IMM:
        return (vc + imm12) & M32
    if mod1 & IADD_SUBTRACT:
        return (vc - vb) & M32
    return (vc + vb) & M32


def sfpiadd_flags(value, flag, vc, vb, imm12, mod1):
    """SFPIADD's flags, only when VD < 8, in the enabled lanes and whatever
    UseLaneFlagsForLaneEnable is: unless CC_NONE, ``LaneFlags = result < 0`` (as int32); then
    CC_GTE0 inverts LaneFlags, so CC_NONE | CC_GTE0 (12) just inverts the existing flags."""
    if not mod1 & IADD_CC_NONE:
        flag = 1 if value & SIGN else 0
    return complemented(flag, mod1 & IADD_CC_GTE0)


def sfpshft(vc, vb, imm12, mod1):
    """SFPSHFT: ``VD`` = ``VB`` (VD unless SFPLOADMACRO chose it) shifted by ``VC`` as int32
    (or by ``Imm12`` with ARG_IMM): left for an amount >= 0, right for a negative one, by
    ``amount & 31`` (so +-32 shifts by 0).

    Blackhole adds ARITHMETIC (right shifts keep the sign) and ARG_IMM_USE_VC (with ARG_IMM:
    shift ``VC`` by ``Imm12``, leaving VD's old value unused). Blackhole Mod1 = 4 or 6
    (ARG_IMM_USE_VC without ARG_IMM) is non-contractual; current silicon drops bit 2, which
    is what this model does anyway, as it reads bit 2 only together with ARG_IMM."""
    x, amount = vb, int32(vc)
    if mod1 & SHFT_ARG_IMM:
        if mod1 & SHFT_ARG_IMM_USE_VC:
            x = vc
        amount = imm12
    if amount >= 0:
        return (x << (amount & 31)) & M32
    if mod1 & SHFT_ARITHMETIC:
        return (int32(x) >> (-amount & 31)) & M32
    return x >> (-amount & 31)


def _bitwise_operand(i):
    """The register combined with VC: VB (``Imm12 & 15``) with Blackhole's USE_VB, else VD
    (for an instruction SFPLOADMACRO scheduled, the VB it chose)."""
    return operand_vb(i, i.imm12 & 15 if i.mod1 & USE_VB else i.vd)


def sfpand(vc, vb):
    """SFPAND: ``VD = VD & VC``; Blackhole USE_VB: ``VD = VB & VC``."""
    return vb & vc


def sfpor(vc, vb):
    """SFPOR: ``VD = VD | VC``; Blackhole USE_VB: ``VD = VB | VC``."""
    return vb | vc


def sfpxor(vc, vb):
    """SFPXOR: ``VD = VB ^ VC`` (VB = VD unless SFPLOADMACRO chose it)."""
    return vb ^ vc


def sfpnot(vc):
    """SFPNOT: ``VD = ~VC``."""
    return ~vc & M32


@helper
def _lz_operand(vc, mod1):
    return vc & (0x7FFFFFFF if mod1 & LZ_NOSGN_MASK else M32)


def sfplz(vc, mod1):
    """SFPLZ: ``VD`` = leading zeros of ``VC`` (32 for 0), of its low 31 bits with
    NOSGN_MASK."""
    return leading_zeros32(_lz_operand(vc, mod1))


def sfplz_flags(value, flag, vc, mod1):
    """SFPLZ's flags, only when VD < 8 (enabled lanes): CC_NE0 sets ``LaneFlags = c != 0``;
    then CC_COMP inverts LaneFlags (so CC_COMP alone inverts the existing flags)."""
    if mod1 & LZ_CC_NE0:
        flag = 1 if _lz_operand(vc, mod1) != 0 else 0
    return complemented(flag, mod1 & LZ_CC_COMP)


SFPIADD = Semantics("SFPIADD", sfpiadd, (VC, SIMPLE_VB), ("imm12", "mod1"), flags=sfpiadd_flags)
SFPSHFT = Semantics("SFPSHFT", sfpshft, (VC, SIMPLE_VB), ("imm12", "mod1"))
SFPAND = Semantics("SFPAND", sfpand, (VC, _bitwise_operand))
SFPOR = Semantics("SFPOR", sfpor, (VC, _bitwise_operand))
SFPXOR = Semantics("SFPXOR", sfpxor, (VC, SIMPLE_VB))
SFPNOT = Semantics("SFPNOT", sfpnot, (VC,))
SFPLZ = Semantics("SFPLZ", sfplz, (VC,), ("mod1",), flags=sfplz_flags,
                  sets_flags=lambda i: i.vd < 8 and i.mod1 & (LZ_CC_NE0 | LZ_CC_COMP))


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
    Opcode("SFPIADD", 0x79, _SIGNED_IMM12, SIMPLE, SFPIADD, "mod1", rec.EVERY_MODE,
           rec.names("SFPIADD_MOD1", ARG_LREG_DST=0, ARG_IMM=1, ARG_2SCOMP_LREG_DST=2,
                   CC_LT0=0, CC_NONE=4, CC_GTE0=8),
           reads=rec.vc_and_vd_unless_immediate, writes=rec.vd),
    Opcode("SFPSHFT", 0x7A, _SIGNED_IMM12, SIMPLE, SFPSHFT, "mod1", frozenset({0, 1}),
           rec.names("SFPSHFT_MOD1", ARG_IMM=1), reads=_shft_reads, writes=rec.vd),
    _and_or("SFPAND", 0x7E, SFPAND), _and_or("SFPOR", 0x7F, SFPOR),
    Opcode("SFPNOT", 0x80, rec.imm12_format(mod_high=0), SIMPLE, SFPNOT, reads=rec.vc,
           writes=rec.vd),
    Opcode("SFPLZ", 0x81, rec.imm12_format(), SIMPLE, SFPLZ, "mod1", frozenset(range(0, 16, 2)),
           rec.names("SFPLZ_MOD1", CC_NE0=2, NOSGN_MASK=4, CC_COMP=8), reads=rec.vc, writes=rec.vd),
    Opcode("SFPXOR", 0x8D, rec.imm12_format(mod_high=0), SIMPLE, SFPXOR, reads=rec.vc_vb,
           writes=rec.vd),
)
BLACKHOLE = {
    "SFPSHFT": {"modes": frozenset(range(8)),
                "mod_names": rec.names("SFPSHFT_MOD1", ARG_IMM=1, ARITHMETIC=2,
                                     ARG_IMM_USE_VC=4)},
    **{m: {"operands": rec.imm12_format(0, 15), "modes": frozenset({0, 1}),
           "mod_names": rec.names(f"{m}_MOD1", USE_VB=1)} for m in ("SFPAND", "SFPOR")},
}
