"""The vocabulary of instruction records (a chip's table of them: :mod:`sfpu_sim.isa.table`).

Every family module (``arith``, ``cc``, ``convert``, ``fields``, ``integer``, ``lanes``,
``loadstore``, ``loadmacro``, ``lut``) ends with its records: ``RECORDS``, one
:class:`~sfpu_sim.isa.spec.Opcode` per instruction as Wormhole B0 has it (encoding, modes,
symbolic names, registers read and written, sub-unit, cost class, and its execution: for a
lanewise instruction its :class:`~sfpu_sim.isa.lanewise.Semantics`, which both engines run),
and ``BLACKHOLE``, what Blackhole A0
changes, as data: field overrides per mnemonic, or a whole record for an instruction only
Blackhole has. Knows nothing of execution.

Sources: tt-isa-documentation WormholeB0/ and BlackholeA0/ TensixTile/TensixCoprocessor/*.md
(2025-06 to 2025-09 revisions: the instruction pages, ``VectorUnit.md``) and
``Diagrams/Src/Bits32.lua`` (encodings); macro argument orders from tenstorrent/tt-llk
``ckernel_ops.h`` (2026-04-11).
"""
from __future__ import annotations

from typing import Callable

from sfpu_sim.isa.spec import MOD, Instruction, Operand, imm, lreg, mod, operand_vb

ALL_LREGS = frozenset(range(17))
NONE = frozenset()
EVERY_MODE = frozenset(range(16))

# Cost classes (sfpu_sim.cost lists them in this order): what an issue slot is spent on.
LOAD_STORE, CONSTANTS, MAD_CLASS, LUT, CONVERSION = (
    "load/store", "SFPLOADI (constants)", "MAD-class", "LUT", "conversion / rounding")
PREDICATION, NOP, CONFIG = "predication", "NOP", "config"
OTHER = "other simple (fields, moves, integer, swap)"
COST_CLASSES = (LOAD_STORE, CONSTANTS, MAD_CLASS, LUT, CONVERSION, PREDICATION, NOP, CONFIG,
                OTHER)


# --------------------------------------------------------------------------------------------
# Operand formats and modifier names
# --------------------------------------------------------------------------------------------

def imm12_format(imm_low=0, imm_high=0, signed=False, vc_high=15, mod_high=15):
    """Operands of the (imm12_math, lreg_c, lreg_dest, instr_mod1) macros. ``*_high = 0``
    marks a field the instruction does not have (its bits must be zero)."""
    return (imm("imm12", 12, 12, signed=signed, low=imm_low, high=imm_high),
            lreg("vc", 8, high=vc_high), lreg("vd", 4),
            Operand("mod1", 0, 4, MOD, high=mod_high))


def mad_format():
    return (lreg("va", 16), lreg("vb", 12), lreg("vc", 8), lreg("vd", 4), mod("mod1", 0))


def names(prefix: str, **values: int) -> dict[str, int]:
    """Symbolic modifier names, accepted with and without the ISA page's prefix."""
    return {**values, **{f"{prefix}_{k}": v for k, v in values.items()}}


# --------------------------------------------------------------------------------------------
# Registers read and written (the static view: hazards, register allocation)
# --------------------------------------------------------------------------------------------

def registers(*fields: str) -> Callable:
    """The LRegs named by instruction fields."""
    return lambda i: frozenset(i.values[n] for n in fields)


vc, vd, vc_vd = registers("vc"), registers("vd"), registers("vc", "vd")


def vc_vb(i: Instruction):
    """VC and VB: a Simple-unit model's second operand, ``unsigned VB = VD;`` unless
    SFPLOADMACRO chose it (SFPXOR, SFPGT, SFPLE)."""
    return frozenset({i.vc, operand_vb(i)})


def none(i: Instruction):
    return NONE


def vc_and_vd_unless_immediate(i: Instruction):
    """VC, and VD (read as VB: SFPLOADMACRO may choose another) too unless mod1 bit 0 makes
    the second operand an immediate (SFPIADD, SFPSETEXP, SFPSETMAN, SFPSETSGN)."""
    return frozenset({i.vc} if i.mod1 & 1 else {i.vc, operand_vb(i)})


def indirect_vd_writes(mode_field: str) -> Callable:
    """VD, or any of LReg 0-7 chosen per lane by L7 with INDIRECT_VD (bit 3 of the mode)."""
    return lambda i: ALL_LREGS if i.values[mode_field] & 8 and i.vd != 16 \
        else frozenset({i.vd})
