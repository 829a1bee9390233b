"""Float-field instructions and moves: SFPEXEXP, SFPEXMAN, SFPSETEXP, SFPSETMAN, SFPSETSGN,
SFPDIVP2, SFPABS, SFPMOV. Simple sub-unit, 1 cycle, identical on Wormhole and Blackhole.

They work on raw bits: no denormal flushing, no NaN special cases beyond those stated.
tt-isa-documentation BlackholeA0 ``SFPEXEXP.md``, ``SFPEXMAN.md``, ``SFPSETEXP.md``,
``SFPSETMAN.md``, ``SFPSETSGN.md``, ``SFPDIVP2.md`` (revision 14841484), ``SFPABS.md``
(445ebb1f), ``SFPMOV.md`` (14841484).
"""
from __future__ import annotations

import numpy as np

from sfpu_sim.isa import lanewise
from sfpu_sim.isa import records as rec
from sfpu_sim.isa.exact_rules import DEVICE, EXACT, Operands, Result, Sign
from sfpu_sim.isa.lanewise import SIMPLE_VB, VC, Semantics, helper
from sfpu_sim.isa.spec import SIMPLE, Opcode

# Lane values are ints holding 32-bit patterns (sfpu_sim.isa.lanewise).
SIGN = 0x80000000
MAGNITUDE = 0x7FFFFFFF
EXPONENT = 0x7F800000
MANTISSA = 0x007FFFFF
M32 = 0xFFFFFFFF
# Negative values SFPABS FLOAT leaves alone: negative NaNs only. The newest Blackhole page keeps
# patterns above 0xFF800000 (so -Inf becomes +Inf, as the overview table's "Abs(VC), or VC when
# NaN" says); the older Wormhole text also kept -Inf. The golden vectors of both chips follow
# the newest reading (see tests).
NEGATIVE_NAN_FLOOR = 0xFF800000


@helper
def exponent_field(x):
    return (x >> 23) & 0xFF


def sfpexexp(vc, mod1):
    """SFPEXEXP: ``VD = exponent(VC) - 127`` as int32 (NODEBIAS, mod1 & 1: the raw field)."""
    exponent = exponent_field(vc)
    return exponent if mod1 & 1 else (exponent - 127) & M32


def sfpexexp_flags(value, flag, vc, mod1):
    """SFPEXEXP's flags (only when VD < 8, in the enabled lanes): SET_CC_SGN_EXP (2) sets
    LaneFlags = result < 0; then SET_CC_COMP_EXP (8) inverts LaneFlags (so 8 alone inverts the
    existing flag)."""
    if mod1 & 2:
        flag = 1 if value & SIGN else 0
    return 1 - flag if mod1 & 8 else flag


def sfpexman(vc, mod1):
    """SFPEXMAN: ``VD = mantissa(VC)`` with the hidden bit 0x800000 added, or without it with
    PAD9 (mod1 & 1)."""
    return (vc & MANTISSA) | (0 if mod1 & 1 else 0x800000)


def sfpsetexp(vc, vb, imm12, mod1):
    """SFPSETEXP: sign and mantissa from VC, a new exponent field: Imm8 (ARG_IMM, mod1 & 1),
    else the exponent field of VB (ARG_EXPONENT, mod1 & 2), else the low 8 bits of VB (VB =
    VD unless SFPLOADMACRO chose it)."""
    if mod1 & 1:
        exponent = imm12 & 0xFF
    elif mod1 & 2:
        exponent = exponent_field(vb)
    else:
        exponent = vb & 0xFF
    return (vc & ~EXPONENT & M32) | (exponent << 23)


def sfpsetman(vc, vb, imm12, mod1):
    """SFPSETMAN: sign and exponent from VC, a new mantissa: ``Imm12 << 11`` (ARG_IMM: sets
    mantissa bits 22..11 and clears 10..0), else the mantissa field of VB (VD unless
    SFPLOADMACRO chose it)."""
    mantissa = (imm12 << 11) & MANTISSA if mod1 & 1 else vb & MANTISSA
    return (vc & ~MANTISSA & M32) | mantissa


def sfpsetsgn(vc, vb, imm12, mod1):
    """SFPSETSGN: exponent and mantissa from VC, sign = Imm1 (ARG_IMM) or the sign of VB (VD
    unless SFPLOADMACRO chose it). With the immediate this is abs / negative-abs; NaNs change
    sign too."""
    sign = (imm12 & 1) << 31 if mod1 & 1 else vb & SIGN
    return (vc & MAGNITUDE) | sign


def sfpdivp2(vc, imm12, mod1):
    """SFPDIVP2: sign and mantissa from VC. ADD (mod1 & 1): exponent += Imm8 modulo 256
    (subtract k with 256 - k), except that exponent 255 (Inf/NaN) is left alone; no saturation,
    so zero or a denormal becomes a normal number and a finite value can wrap into 255.
    Otherwise the exponent becomes Imm8, for every input."""
    imm8 = imm12 & 0xFF
    exponent = exponent_field(vc)
    if mod1 & 1:
        new = exponent if exponent == 255 else (exponent + imm8) & 0xFF
    else:
        new = imm8
    return (vc & ~EXPONENT & M32) | (new << 23)


def sfpabs(vc, mod1):
    """SFPABS: FLOAT (mod1 & 1) clears the sign bit except of negative NaNs (-0 -> +0,
    -Inf -> +Inf); INT (0) negates two's complement negatives (wrapping: -2^31 stays)."""
    if vc < SIGN:
        return vc
    if mod1 & 1:
        return vc & MAGNITUDE if vc <= NEGATIVE_NAN_FLOOR else vc
    return -vc & M32


SFPEXEXP = Semantics("SFPEXEXP", sfpexexp, (VC,), ("mod1",), flags=sfpexexp_flags)
SFPEXMAN = Semantics("SFPEXMAN", sfpexman, (VC,), ("mod1",))
SFPSETEXP = Semantics("SFPSETEXP", sfpsetexp, (VC, SIMPLE_VB), ("imm12", "mod1"))
SFPSETMAN = Semantics("SFPSETMAN", sfpsetman, (VC, SIMPLE_VB), ("imm12", "mod1"))
SFPSETSGN = Semantics("SFPSETSGN", sfpsetsgn, (VC, SIMPLE_VB), ("imm12", "mod1"))
SFPDIVP2 = Semantics("SFPDIVP2", sfpdivp2, (VC,), ("imm12", "mod1"))
SFPABS = Semantics("SFPABS", sfpabs, (VC,), ("mod1",))


def moved(vc, mod1):
    """SFPMOV's value from a register in a lane: ``L[VC]``, its sign bit flipped with NEGATE
    (mod1 & 1; a NaN's too)."""
    return vc ^ SIGN if mod1 & 1 else vc


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
        value = lanewise.lanes(moved, m.read(i.vc), i.mod1)
    m.write(i.vd, value, lanes)


# --------------------------------------------------------------------------------------------
# Exact rules (sfpu_sim.isa.exact_rules)
# --------------------------------------------------------------------------------------------

def divp2_exact(i, o: Operands) -> Result:
    """SFPDIVP2: ADD scales by ``2**Imm`` exactly; setting the exponent is a bit operation."""
    if not i.mod1 & 1:
        return Result(DEVICE)
    return Result(EXACT, o.twin(i.vc).scaled(i.imm12))


def abs_exact(i, o: Operands) -> Result:
    """SFPABS FLOAT: ``|VC|``; INT is integer arithmetic."""
    return Result(EXACT, o.twin(i.vc).magnitude()) if i.mod1 & 1 else Result(DEVICE)


def mov_exact(i, o: Operands) -> Result:
    """SFPMOV: ``VC`` or ``-VC``; the special sources are machine state."""
    if i.mod1 & 8:
        return Result(DEVICE)
    value = o.twin(i.vc)
    return Result(EXACT, -value if i.mod1 & 1 else value)


def setsgn_exact(i, o: Operands) -> Result:
    """SFPSETSGN: ``|VC|`` with the sign Imm1 or VD's."""
    sign = bool(i.imm12 & 1)
    negative = Sign(sign, sign) if i.mod1 & 1 else o.sign(i.vd)
    return Result(EXACT, o.twin(i.vc).with_sign(negative))


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

RECORDS = (
    Opcode("SFPDIVP2", 0x76, rec.imm12_format(-128, 127, signed=True), SIMPLE, SFPDIVP2, "mod1",
           frozenset({0, 1}), rec.names("SFPDIVP2_MOD1", ADD=1), reads=rec.vc, writes=rec.vd,
           shadow=divp2_exact),
    Opcode("SFPEXEXP", 0x77, rec.imm12_format(), SIMPLE, SFPEXEXP, "mod1",
           frozenset({0, 1, 2, 3, 8, 9, 10, 11}),
           rec.names("SFPEXEXP_MOD1", NODEBIAS=1, SET_CC_SGN_EXP=2, SET_CC_COMP_EXP=8),
           reads=rec.vc, writes=rec.vd),
    Opcode("SFPEXMAN", 0x78, rec.imm12_format(), SIMPLE, SFPEXMAN, "mod1", frozenset({0, 1}),
           rec.names("SFPEXMAN_MOD1", PAD9=1), reads=rec.vc, writes=rec.vd),
    Opcode("SFPMOV", 0x7C, rec.imm12_format(), SIMPLE, sfpmov, "mod1", frozenset({0, 1, 2, 8}),
           rec.names("SFPMOV_MOD1", NEGATE=1, ALL_LANES_ENABLED=2, FROM_SPECIAL=8),
           reads=lambda i: rec.NONE if i.mod1 & 8 else frozenset({i.vc}), writes=rec.vd,
           shadow=mov_exact),
    Opcode("SFPABS", 0x7D, rec.imm12_format(), SIMPLE, SFPABS, "mod1", frozenset({0, 1}),
           rec.names("SFPABS_MOD1", INT=0, FLOAT=1), reads=rec.vc, writes=rec.vd,
           shadow=abs_exact),
    Opcode("SFPSETEXP", 0x82, rec.imm12_format(0, 255), SIMPLE, SFPSETEXP, "mod1",
           frozenset({0, 1, 2}), rec.names("SFPSETEXP_MOD1", ARG_IMM=1, ARG_EXPONENT=2),
           reads=rec.vc_and_vd_unless_immediate, writes=rec.vd),
    Opcode("SFPSETMAN", 0x83, rec.imm12_format(0, 4095), SIMPLE, SFPSETMAN, "mod1",
           frozenset({0, 1}), rec.names("SFPSETMAN_MOD1", ARG_IMM=1),
           reads=rec.vc_and_vd_unless_immediate, writes=rec.vd),
    Opcode("SFPSETSGN", 0x89, rec.imm12_format(0, 1), SIMPLE, SFPSETSGN, "mod1",
           frozenset({0, 1}), rec.names("SFPSETSGN_MOD1", ARG_IMM=1),
           reads=rec.vc_and_vd_unless_immediate, writes=rec.vd, shadow=setsgn_exact),
)
BLACKHOLE = {}
