"""FMA family: SFPMAD, SFPADD, SFPMUL, SFPADDI, SFPMULI (both chips) and SFPMUL24 (Blackhole).

MAD sub-unit, 2-cycle latency. Arithmetic is the chip's multiply-add datapath
(:mod:`sfpu_sim.fma`); tt-isa-documentation ``SFPMAD.md``, ``SFPADDI.md``, ``SFPMULI.md``,
``SFPMUL24.md`` (BlackholeA0 revision 585749d1), digest in isa-reference §3.1-3.2.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim.isa import records as rec
from sfpu_sim.isa.spec import MAD, Opcode, imm, lreg, mod, operand_vc_of_vd

SIGN = np.uint32(0x80000000)
ONE = np.uint32(0x3F800000)

# Mod1 bits (Blackhole defines 1 and 2; Wormhole rejects them as modes, see arch.py)
NEGATE_VA, NEGATE_VC, INDIRECT_VA, INDIRECT_VD = 1, 2, 4, 8


def indirect(m, field: int, use_l7: bool):
    """A register index field, or per lane ``L[7] & 15`` when the indirect bit is set."""
    return (m.lreg[7] & 15) if use_l7 else field


def destination(m, i, mod1: int):
    """VD, or per lane ``L[7] & 15`` with INDIRECT_VD (unless the VD field is 16)."""
    return indirect(m, i.vd, mod1 & INDIRECT_VD and i.vd != 16)


def _operands(m, i):
    a = m.read(indirect(m, i.va, i.mod1 & INDIRECT_VA))
    b, c = m.read(i.vb), m.read(i.vc)
    if i.mod1 & NEGATE_VA:
        a = a ^ SIGN
    if i.mod1 & NEGATE_VC:
        c = c ^ SIGN
    return a, b, c


def sfpmad(m, i):
    """SFPMAD / SFPADD / SFPMUL: ``VD = VA * VB + VC`` (the three opcodes are one operation;
    SFPADD and SFPMUL are its spellings for VB = 1.0 and VC = 0)."""
    m.write(destination(m, i, i.mod1), m.arch.fma(*_operands(m, i)))


def sfpmul(m, i):
    """SFPMUL: the SFPMAD operation on both chips; the platform's plain product on a
    binary32 host (``Arch.multiply``)."""
    m.write(destination(m, i, i.mod1), m.arch.multiply(*_operands(m, i)))


def sfpaddi(m, i):
    """SFPADDI: ``VD = bf16(Imm16) * 1.0 + VC`` (the immediate is widened by ``<< 16``; VC = VD
    unless SFPLOADMACRO chose it)."""
    c = m.read(operand_vc_of_vd(i))
    if i.mod1 & NEGATE_VC:
        c = c ^ SIGN
    m.write(destination(m, i, i.mod1), m.arch.fma(np.uint32(i.imm16 << 16), ONE, c))


def sfpmuli(m, i):
    """SFPMULI: ``VD = bf16(Imm16) * VC + 0`` (VC = VD unless SFPLOADMACRO chose it; a +0
    addend: on Blackhole too it cannot yield -0; NEGATE_VC negates the multiplicand)."""
    c = m.read(operand_vc_of_vd(i))
    if i.mod1 & NEGATE_VC:
        c = c ^ SIGN
    m.write(destination(m, i, i.mod1), m.arch.fma(np.uint32(i.imm16 << 16), c, np.uint32(0)))


UPPER = 1
MANTISSA = np.uint64(0x7FFFFF)


def _mul24_shift_add(p, z):
    """Non-contractual artefact of SFPMUL24 with VC != 0 (reusing the FP datapath's aligner):
    ``z``'s significand, aligned against a fixed exponent 129, is added to the product bits."""
    p, z = p.astype(np.int64), z.astype(np.int64)
    ze = (z >> 23) & 0xFF
    re = np.maximum(129, ze)
    s = (re - ze) & 31
    zm = ((z & 0x7FFFFF) | 0x800000) << 3
    p = p >> ((re - 129) & 31)
    q = zm >> s
    carry = np.where((((q << s) ^ zm) & 0xFFFFFFFF) > 0xFFFF, 0x10000, 0)
    added = (p + q + carry) & 0x7FFFFF
    result = np.where(q != 0, added, p)
    return np.where(ze == 0, p, result).astype(np.uint32)


def sfpmul24(m, i):
    """SFPMUL24 (Blackhole): 23 x 23-bit integer multiply of the mantissa fields; the low 23
    bits of the product, or with UPPER its bits 23..45. A non-zero VC adds itself in a
    non-contractual way (software uses VC = 9)."""
    a = m.read(indirect(m, i.va, i.mod1 & INDIRECT_VA)).astype(np.uint64) & MANTISSA
    b = m.read(i.vb).astype(np.uint64) & MANTISSA
    product = (a * b >> np.uint64(23)) if i.mod1 & UPPER else (a * b) & MANTISSA
    result = _mul24_shift_add(product.astype(np.uint32), m.read(i.vc))
    m.write(destination(m, i, i.mod1), result)


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
                  cost_class=rec.MAD_CLASS)


def _immediate(mnemonic, opcode, execute):
    return Opcode(mnemonic, opcode, _IMM16, MAD, execute, "mod1", frozenset({0, 8}),
                  rec.names(f"{mnemonic}_MOD1", INDIRECT_VD=8), reads=_vd_immediate_reads,
                  writes=rec.indirect_vd_writes("mod1"), cost_class=rec.MAD_CLASS)


RECORDS = (_immediate("SFPMULI", 0x74, sfpmuli), _immediate("SFPADDI", 0x75, sfpaddi),
           _mad("SFPMAD", 0x84, sfpmad), _mad("SFPADD", 0x85, sfpmad),
           _mad("SFPMUL", 0x86, sfpmul))
BLACKHOLE = {
    "SFPMAD": _BLACKHOLE_MAD, "SFPADD": _BLACKHOLE_MAD, "SFPMUL": _BLACKHOLE_MAD,
    **{m: {"modes": frozenset({0, 2, 8, 10}),
           "mod_names": rec.names(f"{m}_MOD1", INDIRECT_VD=8, NEGATE_VC=2)}
       for m in ("SFPMULI", "SFPADDI")},
    "SFPMUL24": Opcode("SFPMUL24", 0x98, rec.mad_format(), MAD, sfpmul24, "mod1",
                       frozenset({0, 1, 4, 5, 8, 9, 12, 13}),
                       rec.names("SFPMUL24_MOD1", UPPER=1, INDIRECT_VA=4, INDIRECT_VD=8),
                       reads=_mad_reads, writes=rec.indirect_vd_writes("mod1"),
                       cost_class=rec.MAD_CLASS),
}
