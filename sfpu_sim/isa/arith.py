"""FMA family: SFPMAD, SFPADD, SFPMUL, SFPADDI, SFPMULI (both chips) and SFPMUL24 (Blackhole).

MAD sub-unit, 2-cycle latency. Arithmetic is the chip's multiply-add datapath
(:mod:`sfpu_sim.fma`); tt-isa-documentation ``SFPMAD.md``, ``SFPADDI.md``, ``SFPMULI.md``,
``SFPMUL24.md`` (BlackholeA0 revision 585749d1).
"""
from __future__ import annotations

from sfpu_sim.isa import records as rec
from sfpu_sim.isa.exact_rules import EXACT, Operands, Result, imm16_float
from sfpu_sim.isa.lanewise import VA, VB, VC, Semantics, helper
from sfpu_sim.isa.spec import MAD, Opcode, imm, lreg, mod, operand_vc_of_vd

SIGN = 0x80000000
ONE = 0x3F800000
MANTISSA = 0x7FFFFF

# Mod1 bits (Blackhole defines 1 and 2; Wormhole rejects them as modes, see arch.py)
NEGATE_VA, NEGATE_VC, INDIRECT_VA, INDIRECT_VD = 1, 2, 4, 8
UPPER = 1                                # SFPMUL24: the product's bits 23..45


def indirect(m, field: int, use_l7: bool):
    """A register index field, or per lane ``L[7] & 15`` when the indirect bit is set."""
    return (m.lreg[7] & 15) if use_l7 else field


def destination(m, i, mod1: int):
    """VD, or per lane ``L[7] & 15`` with INDIRECT_VD (unless the VD field is 16)."""
    return indirect(m, i.vd, mod1 & INDIRECT_VD and i.vd != 16)


def indirect_registers(m, i):
    """The Machine's (VA, VB, VC) and destination with INDIRECT_VA / INDIRECT_VD (per lane
    through L7; compiled programs do not address registers that way)."""
    return ([indirect(m, i.va, i.mod1 & INDIRECT_VA), i.vb, i.vc],
            destination(m, i, i.mod1))


def immediate_destination(m, i):
    """SFPADDI / SFPMULI on the Machine: VC (= VD unless SFPLOADMACRO chose it), and VD or
    per lane ``L[7] & 15`` with INDIRECT_VD."""
    return [operand_vc_of_vd(i)], destination(m, i, i.mod1)


def sfpmad(va, vb, vc, mod1, multiply_add):
    """SFPMAD / SFPADD: ``VD = VA * VB + VC`` in the chip's multiply-add (the three opcodes
    are one operation; SFPADD and SFPMUL are its spellings for VB = 1.0 and VC = 0).
    Blackhole's NEGATE_VA / NEGATE_VC flip the operands' signs first."""
    a = va ^ SIGN if mod1 & NEGATE_VA else va
    c = vc ^ SIGN if mod1 & NEGATE_VC else vc
    return multiply_add(a, vb, c)


def sfpmul(va, vb, vc, mod1, plain_product, multiply_add):
    """SFPMUL: the SFPMAD operation on both chips; on a binary32 host the platform's plain
    product, which reads a +0 addend as -0 (``Arch.mul_is_plain_product``)."""
    c = vc ^ SIGN if mod1 & NEGATE_VC else vc
    if plain_product and c == 0:
        c = SIGN
    return multiply_add(va ^ SIGN if mod1 & NEGATE_VA else va, vb, c)


def sfpaddi(vc, imm16, mod1, multiply_add):
    """SFPADDI: ``VD = bf16(Imm16) * 1.0 + VC`` (the immediate is widened by ``<< 16``; VC = VD
    unless SFPLOADMACRO chose it)."""
    return multiply_add(imm16 << 16, ONE, vc ^ SIGN if mod1 & NEGATE_VC else vc)


def sfpmuli(vc, imm16, mod1, multiply_add):
    """SFPMULI: ``VD = bf16(Imm16) * VC + 0`` (VC = VD unless SFPLOADMACRO chose it; a +0
    addend: on Blackhole too it cannot yield -0; NEGATE_VC negates the multiplicand)."""
    return multiply_add(imm16 << 16, vc ^ SIGN if mod1 & NEGATE_VC else vc, 0)


@helper
def mul24_shift_add(p, z):
    """Non-contractual artefact of SFPMUL24 with VC != 0 (reusing the FP datapath's aligner):
    ``z``'s significand, aligned against a fixed exponent 129, is added to the product bits."""
    ze = (z >> 23) & 0xFF
    if ze == 0:
        return p
    re = max(129, ze)
    s = (re - ze) & 31
    zm = ((z & 0x7FFFFF) | 0x800000) << 3
    p = p >> ((re - 129) & 31)
    q = zm >> s
    if q == 0:
        return p
    carry = 0x10000 if (((q << s) ^ zm) & 0xFFFFFFFF) > 0xFFFF else 0
    return (p + q + carry) & 0x7FFFFF


def sfpmul24(va, vb, vc, mod1):
    """SFPMUL24 (Blackhole): 23 x 23-bit integer multiply of the mantissa fields; the low 23
    bits of the product, or with UPPER its bits 23..45. A non-zero VC adds itself in a
    non-contractual way (software uses VC = 9)."""
    product = (va & MANTISSA) * (vb & MANTISSA)
    return mul24_shift_add(product >> 23 if mod1 & UPPER else product & MANTISSA, vc)


MULTIPLY_ADD = ("multiply_add",)
SFPMAD = Semantics("SFPMAD", sfpmad, (VA, VB, VC), ("mod1",), units=MULTIPLY_ADD,
                   registers=indirect_registers)
SFPMUL = Semantics("SFPMUL", sfpmul, (VA, VB, VC), ("mod1",), state=("plain_product",),
                   units=MULTIPLY_ADD, registers=indirect_registers)
SFPADDI = Semantics("SFPADDI", sfpaddi, (operand_vc_of_vd,), ("imm16", "mod1"),
                    units=MULTIPLY_ADD, registers=immediate_destination)
SFPMULI = Semantics("SFPMULI", sfpmuli, (operand_vc_of_vd,), ("imm16", "mod1"),
                    units=MULTIPLY_ADD, registers=immediate_destination)
SFPMUL24 = Semantics("SFPMUL24", sfpmul24, (VA, VB, VC), ("mod1",),
                     registers=indirect_registers)


# --------------------------------------------------------------------------------------------
# Exact rules (sfpu_sim.isa.exact_rules)
# --------------------------------------------------------------------------------------------

def mad_exact(i, o: Operands) -> Result:
    """SFPMAD / SFPADD / SFPMUL: ``VA * VB + VC`` exactly (VA indirect through L7, and
    Blackhole's NEGATE_VA / NEGATE_VC, as the device)."""
    va = o.bits(7) & 15 if i.mod1 & INDIRECT_VA else i.va
    a, b, c = o.twin(va), o.twin(i.vb), o.twin(i.vc)
    if i.mod1 & NEGATE_VA:
        a = -a
    if i.mod1 & NEGATE_VC:
        c = -c
    return Result(EXACT, a * b + c)


def addi_exact(i, o: Operands) -> Result:
    """SFPADDI: ``bf16(Imm16) + VD`` exactly."""
    c = o.twin(i.vd)
    return Result(EXACT, imm16_float(i.imm16) + (-c if i.mod1 & NEGATE_VC else c))


def muli_exact(i, o: Operands) -> Result:
    """SFPMULI: ``bf16(Imm16) * VD`` exactly."""
    c = o.twin(i.vd)
    return Result(EXACT, imm16_float(i.imm16) * (-c if i.mod1 & NEGATE_VC else c))


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

def _mad_reads(i):
    if i.mod1 & INDIRECT_VA:             # any register, chosen by L7
        return rec.ALL_LREGS
    return frozenset({i.va, i.vb, i.vc} | ({7} if i.mod1 & INDIRECT_VD else set()))


def _vd_immediate_reads(i):              # SFPADDI / SFPMULI read their own VD (VC = VD)
    return frozenset({operand_vc_of_vd(i)} | ({7} if i.mod1 & INDIRECT_VD else set()))


_IMM16 = (imm("imm16", 8, 16), lreg("vd", 4), mod("mod1", 0))
_WORMHOLE_MAD_MODES = frozenset({0, 4, 8, 12})
_MAD_NAMES = rec.names("SFPMAD_MOD1", INDIRECT_VA=4, INDIRECT_VD=8)
_BLACKHOLE_MAD = {"modes": rec.EVERY_MODE,
                  "mod_names": rec.names("SFPMAD_MOD1", INDIRECT_VA=4, INDIRECT_VD=8,
                                       NEGATE_VA=1, NEGATE_VC=2)}


def _mad(mnemonic, opcode, execute):
    return Opcode(mnemonic, opcode, rec.mad_format(), MAD, execute, "mod1", _WORMHOLE_MAD_MODES,
                  _MAD_NAMES, reads=_mad_reads, writes=rec.indirect_vd_writes("mod1"),
                  cost_class=rec.MAD_CLASS, shadow=mad_exact)


def _immediate(mnemonic, opcode, execute, shadow):
    return Opcode(mnemonic, opcode, _IMM16, MAD, execute, "mod1", frozenset({0, 8}),
                  rec.names(f"{mnemonic}_MOD1", INDIRECT_VD=8), reads=_vd_immediate_reads,
                  writes=rec.indirect_vd_writes("mod1"), cost_class=rec.MAD_CLASS,
                  shadow=shadow)


RECORDS = (_immediate("SFPMULI", 0x74, SFPMULI, muli_exact),
           _immediate("SFPADDI", 0x75, SFPADDI, addi_exact),
           _mad("SFPMAD", 0x84, SFPMAD), _mad("SFPADD", 0x85, SFPMAD),
           _mad("SFPMUL", 0x86, SFPMUL))
BLACKHOLE = {
    "SFPMAD": _BLACKHOLE_MAD, "SFPADD": _BLACKHOLE_MAD, "SFPMUL": _BLACKHOLE_MAD,
    **{m: {"modes": frozenset({0, 2, 8, 10}),
           "mod_names": rec.names(f"{m}_MOD1", INDIRECT_VD=8, NEGATE_VC=2)}
       for m in ("SFPMULI", "SFPADDI")},
    "SFPMUL24": Opcode("SFPMUL24", 0x98, rec.mad_format(), MAD, SFPMUL24, "mod1",
                       frozenset({0, 1, 4, 5, 8, 9, 12, 13}),
                       rec.names("SFPMUL24_MOD1", UPPER=1, INDIRECT_VA=4, INDIRECT_VD=8),
                       reads=_mad_reads, writes=rec.indirect_vd_writes("mod1"),
                       cost_class=rec.MAD_CLASS),
}
