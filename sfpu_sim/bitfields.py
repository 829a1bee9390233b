"""Bit-field views for people: the sign | exponent | mantissa of a value, and the fields of an
instruction word, as bits. Shared by ``sfpu-sim explain`` and ``trace --bits``.

Owns: splitting one pattern into named fields (bitstring slices, MSB first, as the ISA pages
draw them) and the text of each field. Knows nothing of execution. Scalars only: this is
display, never a lane path.
"""
from __future__ import annotations

from dataclasses import dataclass

from bitstring import Bits

from sfpu_sim import formats
from sfpu_sim.isa.spec import LREG, MOD, Instruction


@dataclass(frozen=True)
class Field:
    """One field: its name, its bit range (``high``..``low``, inclusive), its bits MSB first,
    its unsigned value and what that value means."""
    name: str
    high: int
    low: int
    bits: str
    value: int
    meaning: str = ""


def _slice(word: Bits, high: int, low: int) -> Bits:
    """Bits ``high``..``low`` (numbered from 0 at the LSB) of ``word``."""
    width = len(word)
    return word[width - 1 - high: width - low]


def float_fields(bits: int, fmt: str) -> list[Field]:
    """Sign, exponent and mantissa of a FP32 / BF16 / FP16 pattern."""
    f = formats.FORMATS[fmt]
    word = Bits(uint=int(bits), length=f.width)
    man, exp = f.man_bits, f.exp_bits
    sign = _slice(word, f.width - 1, f.width - 1)
    exponent = _slice(word, man + exp - 1, man)
    mantissa = _slice(word, man - 1, 0)
    bias = f.exp_max >> 1
    if exponent.uint == 0:
        exp_meaning = "zero or denormal (2^%d scale)" % (1 - bias)
    elif exponent.uint == f.exp_max:
        exp_meaning = "Inf or NaN"
    else:
        exp_meaning = f"2^{exponent.uint - bias}"
    return [Field("sign", f.width - 1, f.width - 1, sign.bin, sign.uint,
                  "negative" if sign.uint else "positive"),
            Field("exponent", man + exp - 1, man, exponent.bin, exponent.uint, exp_meaning),
            Field("mantissa", man - 1, 0, mantissa.bin, mantissa.uint,
                  f"1 + {mantissa.uint}/2^{man}" if 0 < exponent.uint < f.exp_max
                  else f"{mantissa.uint}/2^{man}")]


def fields_text(bits: int, fmt: str) -> str:
    """``s|exponent|mantissa`` as bits: ``0|01111111|1000000...``."""
    return "|".join(field.bits for field in float_fields(bits, fmt))


def mode_names(op, value: int) -> str:
    """The ISA page's name(s) of a modifier value: the name of exactly that value, else the
    single-bit flags it is made of (unprefixed names only)."""
    names = {name: v for name, v in op.mod_names.items()
             if not name.startswith(("SFP", "MOD", "LREG_")) or name.startswith("LREG_")}
    exact = [name for name, v in names.items() if v == value]
    if exact:
        return exact[0]
    flags = [name for name, v in names.items() if v and v & (v - 1) == 0 and value & v]
    return "|".join(flags)


def instruction_fields(instruction: Instruction) -> list[Field]:
    """The opcode and every operand of an instruction word, in bit order (MSB first)."""
    word = Bits(uint=instruction.word, length=32)
    op = instruction.op
    out = [Field("opcode", 31, 24, _slice(word, 31, 24).bin, op.opcode, op.mnemonic)]
    for operand in sorted(op.operands, key=lambda o: -o.lsb):
        high, low = operand.lsb + operand.width - 1, operand.lsb
        value = instruction.values[operand.name]
        if operand.kind == LREG:
            meaning = f"L{value}"
        elif operand.kind == MOD:
            meaning = mode_names(op, value)
        else:
            meaning = str(value) if operand.signed else ""
        out.append(Field(operand.name, high, low, _slice(word, high, low).bin,
                         _slice(word, high, low).uint, meaning))
    return out
