"""Text assembly, 32-bit encodings and disassembly of SFPU programs.

Owns: the text syntax and the word <-> instruction mapping. Knows nothing of what instructions
compute.

Syntax: one instruction per line, the mnemonic then its operands in the argument order of
Tenstorrent's ``TT_SFP*`` macros, separated by commas (spaces or tabs after the mnemonic);
``#`` or ``//`` starts a comment. tt-llk's own spelling is accepted too: the call form
``TTI_SFPMAD(p_sfpu::LREG0, p_sfpu::LCONST_1, p_sfpu::LREG1, p_sfpu::LREG2, 0);``. Register
operands accept ``L0``..``L15``, ``LREG0``..``LREG14``, tt-llk's ``LCONST_0_8373``,
``LCONST_0``, ``LCONST_1``, ``LCONST_neg1``, ``LTILEID`` (each optionally ``p_sfpu::``) or plain
numbers; an AddrMod operand accepts ``ADDR_MOD_n``; modifier operands accept numbers or the ISA
pages' symbolic names (with or without their prefix, e.g. ``SGN_RETAIN`` or
``SFPLUT_MOD0_SGN_RETAIN``), joined with ``|``; numbers may be decimal, ``0x`` hex or ``0b``
binary, signed fields take a minus sign. SFPLOADI takes a float immediate (``1.5``) in the
FLOATB and FLOATA modes where that mode holds it exactly. Trailing operands with a documented
default may be left out. A byte-order mark at the start of a file is ignored. tt-llk code
pastes as is (:mod:`sfpu_sim.asm_source`): ``//`` and ``/* */`` comments, ``;``, calls over
several lines, ``constexpr`` names, qualified names, ``(v >> 16) & 0xFFFF``. Canonical text
(what :func:`disassemble` prints) round-trips exactly through
:func:`assemble`, and words round-trip through :func:`decode` and :func:`encode`.

Example::

    SFPLOAD   L0, BF16, 0, 0        # x from Dst rows 0..3, even columns
    SFPMULI   0x3FC0, L0, 0         # x * 1.5
    SFPNOP                          # Wormhole: the MAD result needs a gap
    SFPSTORE  L0, BF16, 0, 0
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from sfpu_sim import formats
from sfpu_sim.arch import ARCHES, Arch, get_arch
from sfpu_sim.asm_source import (
    Statement,
    constant_expression,
    definition,
    named_constant,
    statements,
    unqualified,
)
from sfpu_sim.isa.spec import (
    IMM,
    LREG,
    MOD,
    FieldOutOfRange,
    Instruction,
    IsaError,
    NotOnChip,
    Opcode,
    Operand,
    Program,
    ReadOnlyRegister,
    UnknownInstruction,
)

READ_ONLY_LREGS = range(8, 12)
HEX_FIELDS = {"imm16"}


def _arch(arch) -> Arch:
    return get_arch(arch) if isinstance(arch, str) else arch


# --------------------------------------------------------------------------------------------
# Words
# --------------------------------------------------------------------------------------------

def encode(instruction: Instruction) -> int:
    """The 32-bit word of an instruction (opcode in bits 31..24)."""
    return instruction.word


def decode(word: int, arch, source: str | None = None) -> Instruction:
    """Decode a 32-bit instruction word for ``arch``; raises an :class:`IsaError` naming the
    field and its allowed range when the word is not a valid instruction of that chip."""
    arch = _arch(arch)
    where = source or f"{word:#010x}"
    if not 0 <= word <= 0xFFFFFFFF:
        raise FieldOutOfRange(f"{where}: an instruction word has 32 bits")
    op = arch.by_opcode.get(word >> 24)
    if op is None:
        _unknown_opcode(word >> 24, arch, where)
    reserved = word & op.fixed_mask
    if reserved:
        raise FieldOutOfRange(f"{where}: {op.mnemonic} has reserved bits {reserved:#010x} set "
                              f"(they must be zero)")
    values = {o.name: o.unpack(word) for o in op.operands}
    for operand in op.operands:
        _check_value(op, operand, values[operand.name], arch, where)
    return Instruction(op, values, source)


def _unknown_opcode(opcode: int, arch: Arch, where: str):
    for other in ARCHES.values():
        op = other.by_opcode.get(opcode)
        if op is not None and other is not arch:
            raise NotOnChip(f"{where}: {op.mnemonic} (opcode {opcode:#04x}) does not exist on "
                            f"{arch.title}")
    raise UnknownInstruction(f"{where}: opcode {opcode:#04x} is not an SFPU instruction")


def _check_value(op: Opcode, operand: Operand, value: int, arch: Arch, where: str) -> None:
    low, high = operand.range
    if not low <= value <= high:
        what = "register" if operand.kind == LREG else "field"
        raise FieldOutOfRange(f"{where}: {op.mnemonic} {what} {operand.name} = {value} is out "
                              f"of range (allowed {low}..{high})")
    if operand.name == op.mode_field and op.modes is not None and value not in op.modes:
        allowed = ", ".join(str(m) for m in sorted(op.modes))
        raise NotOnChip(f"{where}: {op.mnemonic} {operand.name} = {value} is not a documented "
                        f"mode on {arch.title} (allowed: {allowed})")


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)$")
_LREG_NAME = re.compile(r"(?:L|LREG)([0-9]+)$", re.IGNORECASE)
# tt-llk p_sfpu names of the constant registers (ckernel_instr_params.h).
_LREG_CONSTANTS = {"LCONST_0_8373": 8, "LCONST_0": 9, "LCONST_1": 10, "LCONST_NEG1": 11,
                   "LTILEID": 15}
_ADDR_MOD_NAME = re.compile(r"ADDR_MOD_([0-7])$", re.IGNORECASE)
_CALL_FORM = re.compile(r"(?:TTI_|TT_)?(SFP\w+)\s*\((.*)\)\s*;?\s*$", re.IGNORECASE)
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?[fF]?$")


def _parse_number(text: str) -> int | None:
    return int(text, 0) if _NUMBER.match(text) else None


def _register(text: str) -> int | None:
    named = _register_name(text)
    return named if named is not None else _parse_number(text)


def _loadi_float(op: Opcode, mode: int, text: str, where: str) -> int | None:
    """SFPLOADI's immediate written as a float: its FLOATB (BF16) or FLOATA (FP16 fields
    rebiased by 112) pattern, when that mode holds the value exactly."""
    if op.mnemonic != "SFPLOADI" or not _FLOAT.match(text) or _NUMBER.match(text):
        return None
    value = float(text.rstrip("fF"))
    bits = int(formats.fp32_to_bits(np.float32(value)))
    if float(np.float32(value)) != value:
        raise FieldOutOfRange(f"{where}: {text} is not exact in FP32, so not in a 16-bit "
                              f"immediate either")
    if mode == op.mod_names["FLOATB"]:
        if bits & 0xFFFF:
            raise FieldOutOfRange(f"{where}: {text} is not exact as FLOATB (BF16); write its "
                                  f"bits, or load it with FLOATB then LOWER")
        return bits >> 16
    if mode == op.mod_names["FLOATA"]:
        e = (bits >> 23) & 0xFF
        if value != 0 and not (112 <= e <= 143 and bits & 0x1FFF == 0):
            raise FieldOutOfRange(f"{where}: {text} is not exact as FLOATA (FP16 fields, "
                                  f"exponent rebiased by 112)")
        return ((bits >> 16) & 0x8000) | ((e - 112) << 10 if value else 0) | \
            ((bits >> 13) & 0x3FF)
    raise FieldOutOfRange(f"{where}: SFPLOADI takes a float immediate only in the FLOATB and "
                          f"FLOATA modes")


def _register_name(text: str) -> int | None:
    """The register a name means (``p_sfpu::LREG2``, ``L2``, ``LCONST_1``), or None."""
    name = unqualified(text)
    match = _LREG_NAME.match(name)
    return int(match.group(1)) if match else _LREG_CONSTANTS.get(name.upper())


def _mode_part(op: Opcode, operand: Operand, text: str, constants: dict) -> int | None:
    number = _parse_number(text)
    if number is not None:
        return number
    name = unqualified(text)
    if name in constants:
        return constants[name]
    if name.upper() in op.mod_names and "::" not in name:
        return op.mod_names[name.upper()]
    return named_constant(op.mnemonic, operand.name, text)


def _parse_operand(op: Opcode, operand: Operand, text: str, where: str,
                   values: dict, constants: dict) -> int:
    """An operand's value; ``constants``: the ``constexpr`` names defined so far."""
    if operand.kind == LREG:
        value = _register(text)
        if value is None:
            raise FieldOutOfRange(f"{where}: {op.mnemonic} operand {operand.name} must be a "
                                  f"register L0..L15 (or LREGn, LCONST_*), got {text!r}")
        return value
    value = _parse_number(text)
    if value is not None:
        return value
    if operand.name == "addr_mod" and _ADDR_MOD_NAME.match(unqualified(text)):
        return int(_ADDR_MOD_NAME.match(unqualified(text)).group(1))
    if operand.name == "imm16" and "mod0" in values:
        value = _loadi_float(op, values["mod0"], text, where)
        if value is not None:
            return value
    if operand.kind == MOD:
        parts = [_mode_part(op, operand, part.strip(), constants) for part in text.split("|")]
        if None not in parts:
            return _or_all(parts)
    else:
        for value in (constants.get(unqualified(text)),
                      named_constant(op.mnemonic, operand.name, text), _register_name(text)):
            if value is not None:          # a register number in an integer field: tt-llk's
                return value               # p_sfpu::LREGn are plain integers
    value = constant_expression(text)
    if value is not None:
        return _signed_field_bits(operand, value)
    if operand.kind == MOD:
        known = ", ".join(sorted(n for n in op.mod_names if "_MOD" not in n)) or "none"
        bad = next(p.strip() for p in text.split("|")
                   if _mode_part(op, operand, p.strip(), constants) is None)
        raise FieldOutOfRange(f"{where}: {op.mnemonic} has no modifier named {bad!r} "
                              f"(names: {known}; or a number, or a constant expression of "
                              f"integer literals)")
    raise FieldOutOfRange(f"{where}: {op.mnemonic} operand {operand.name} must be a number, "
                          f"a register name or a constant expression of integer literals "
                          f"(+ - * << >> & | ^ ~, parentheses), got {text!r}")


def _signed_field_bits(operand: Operand, value: int) -> int:
    """A constant expression's value in a signed field: the TT_OP_* macros pack its bits, so
    tt-llk writes -16 as ``(-16) & 0xFFF`` (ckernel_sfpu_recip.h @36b092e8e), which is -16."""
    if operand.signed and 1 << (operand.width - 1) <= value < 1 << operand.width:
        return value - (1 << operand.width)
    return value


def _or_all(parts: list[int]) -> int:
    total = 0
    for part in parts:
        total |= part
    return total


def _split(code: str) -> tuple[str, str]:
    """(mnemonic, operand text) of a statement in either form: ``SFPMAD a, b, ...`` or
    tt-llk's ``TTI_SFPMAD(a, b, ...)``."""
    call = _CALL_FORM.match(code.strip())
    if call:
        return call.group(1), call.group(2)
    parts = code.strip().split(None, 1)
    return parts[0], parts[1] if len(parts) > 1 else ""


def _operand_texts(rest: str) -> list[str]:
    """The operands of a call, split at the commas outside parentheses."""
    texts, depth, current = [], 0, []
    for char in rest:
        if char == "," and depth == 0:
            texts.append("".join(current))
            current = []
            continue
        depth += (char == "(") - (char == ")")
        current.append(char)
    return [t.strip() for t in [*texts, "".join(current)]] if rest.strip() else []


def assemble_line(line: str, arch, where: str = "<text>:1") -> Instruction | None:
    """One line of assembly to an :class:`Instruction` (None for blank or comment lines)."""
    filename, _, number = where.rpartition(":")
    if not (filename and number.isdigit()):
        filename, number = where, "1"
    found = statements(line, filename, int(number))
    if len(found) > 1:
        raise FieldOutOfRange(f"{found[1].where(0)}: one instruction per call here, found "
                              f"{len(found)}")
    return _assemble_statement(found[0], _arch(arch), {}) if found else None


def _assemble_statement(statement: Statement, arch: Arch, constants: dict) -> Instruction:
    code = statement.text
    indent = len(code) - len(code.lstrip())
    head, rest = _split(code)
    mnemonic = head.upper()
    if mnemonic.startswith(("TTI_", "TT_")):
        mnemonic = mnemonic.split("_", 1)[1]
    place = statement.where(indent)
    op = arch.opcodes.get(mnemonic)
    if op is None:
        if any(mnemonic in other.opcodes for other in ARCHES.values()):
            raise NotOnChip(f"{place}: {mnemonic} does not exist on {arch.title}")
        raise UnknownInstruction(f"{place}: unknown mnemonic {head!r} (an SFPU instruction: "
                                 f"SFPxxx operands, or a TTI_SFPxxx(...) call)")
    texts = _operand_texts(rest)
    required = sum(1 for o in op.operands if o.default is None)
    if not required <= len(texts) <= len(op.operands):
        expected = ", ".join(o.name for o in op.operands) or "no operands"
        count = f"{required}" if required == len(op.operands) else \
            f"{required} to {len(op.operands)}"
        raise FieldOutOfRange(f"{place}: {mnemonic} takes {count} operands "
                              f"({expected}), got {len(texts)}")
    values = {}
    offset = code.index(head) + len(head)
    for operand, text in zip(op.operands, texts):
        start = code.index(text, offset) if text else offset
        offset = start + len(text)
        where = statement.where(start)
        value = _parse_operand(op, operand, text, where, values, constants)
        _check_value(op, operand, value, arch, where)
        if operand.name == "vd" and op.writes_vd and value in READ_ONLY_LREGS:
            raise ReadOnlyRegister(f"{where}: {mnemonic} writes L{value}, a read-only "
                                   f"constant register (writable: L0..L7; L12..L15 capture a "
                                   f"LoadMacro template)")
        values[operand.name] = value
    for operand in op.operands[len(texts):]:
        values[operand.name] = operand.default
    return Instruction(op, values, f"{statement.filename}:{statement.line}", statement.raw)


def assemble(text: str, arch, filename: str = "<text>") -> Program:
    """Assemble a program; errors name ``filename:line:column``, the field and its range."""
    arch = _arch(arch)
    instructions, constants = [], {}
    for statement in statements(text.removeprefix("\ufeff"), filename):
        defined = definition(statement)
        if defined is not None:
            constants[defined[0]] = defined[1]
        else:
            instructions.append(_assemble_statement(statement, arch, constants))
    return Program(arch, instructions, name=filename)


def assemble_file(path, arch) -> Program:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise IsaError(f"{path}: cannot read ({error.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise IsaError(f"{path}: not UTF-8 text (byte {error.start}); assembly is a text "
                       f"file") from None
    return assemble(text, arch, str(path))


def format_operand(operand: Operand, value: int) -> str:
    if operand.kind == LREG:
        return f"L{value}"
    if operand.kind == IMM and operand.name in HEX_FIELDS:
        return f"{value:#06x}"
    return str(value)


def format_instruction(instruction: Instruction) -> str:
    """Canonical text of one instruction."""
    op = instruction.op
    operands = ", ".join(format_operand(o, instruction.values[o.name]) for o in op.operands)
    return f"{op.mnemonic} {operands}".rstrip()


def disassemble(program, arch=None) -> str:
    """Canonical text of a :class:`Program`, of instructions, or of words (then ``arch`` is
    needed), one instruction per line."""
    lines = []
    for item in program:
        if not isinstance(item, Instruction):
            item = decode(int(item), arch)
        lines.append(format_instruction(item))
    return "\n".join(lines) + ("\n" if lines else "")
