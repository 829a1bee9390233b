"""Assembly source as written, or as pasted from tt-llk, cut into statements; tt-llk's spellings
of a constant resolved to its number.

Owns: comments (``#``, ``//``, ``/* */``), statements (one per line, or ended by ``;``, a
``TTI_``/``TT_`` call running on over lines until its parentheses close), the file:line:column
of every character of a statement, namespace qualifiers (``ckernel::``, ``sfpi::``,
``p_sfpu::``), tt-llk's ``InstrModLoadStore`` and sfpi's ``SFPSTOCHRND_RND_*`` names, and
integer constant expressions of literals (``(0x3fb8aa3b >> 16) & 0xFFFF``). Knows nothing of
instruction encodings (:mod:`sfpu_sim.asm` has them).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from sfpu_sim.isa.spec import FieldOutOfRange

# Namespaces tt-llk code puts before a named constant; they name nothing sfpu-sim needs.
QUALIFIERS = re.compile(r"^(?:::)?(?:(?:ckernel|sfpu|sfpi|p_sfpu)::)+")
# tt-llk's SFPLOAD/SFPSTORE mod0 enum (tt_llk_{wormhole_b0,blackhole}/llk_lib/llk_defs.h
# @36b092e8, identical on both chips). Its numbers, not the ISA pages' MOD0_FMT_* names:
# InstrModLoadStore::LO16 is 6 (MOD0_FMT_UINT16), MOD0_FMT_LO16 is 9.
INSTR_MOD_LOAD_STORE = {"DEFAULT": 0, "FP16A": 1, "FP16B": 2, "FP32": 3, "INT32": 4, "INT8": 5,
                        "LO16": 6, "HI16": 7, "INT32_2S_COMP": 12, "INT8_2S_COMP": 13,
                        "LO16_ONLY": 14, "HI16_ONLY": 15}
LOAD_STORE_MNEMONICS = ("SFPLOAD", "SFPSTORE", "SFPLOADMACRO")
# Names of fields other than the mode (sfpi sfpi_constants.h: SFPSTOCHRND_RND_EVEN = 0,
# SFPSTOCHRND_RND_STOCH = 1), per instruction and field.
FIELD_NAMES = {("SFP_STOCH_RND", "round_mode"): {"SFPSTOCHRND_RND_EVEN": 0,
                                                  "SFPSTOCHRND_RND_STOCH": 1}}
_C_INTEGER = re.compile(r"\b(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)"
                        r"(?:[uU][lL]{0,2}|[lL]{1,2}[uU]?)\b")
# ``constexpr unsigned SFPAND_MOD1_USE_VB = 1;``: a name tt-llk defines beside its TTI_ calls.
_CONSTEXPR = re.compile(r"\s*(?:static\s+)?constexpr\s+(?:[A-Za-z_][\w:]*\s+)+([A-Za-z_]\w*)"
                        r"\s*=\s*(.+?)\s*$")
_BINARY = {ast.RShift: lambda a, b: a >> b, ast.LShift: lambda a, b: a << b,
           ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b,
           ast.BitXor: lambda a, b: a ^ b, ast.Add: lambda a, b: a + b,
           ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b}
_UNARY = {ast.USub: lambda a: -a, ast.UAdd: lambda a: a, ast.Invert: lambda a: ~a}


@dataclass
class Statement:
    """One instruction's text: comments blanked, its lines joined by spaces; ``places`` holds
    the (line, column) of each character, so an operand's error names where it was written."""
    text: str
    places: list
    filename: str
    raw: str

    def where(self, offset: int) -> str:
        line, column = self.places[max(0, min(offset, len(self.places) - 1))]
        return f"{self.filename}:{line}:{column}"

    @property
    def line(self) -> int:
        return self.places[0][0]


def _blank_comments(text: str, filename: str) -> str:
    """``text`` with every comment replaced by spaces (newlines kept, so places stay)."""
    out, k, start = [], 0, None
    while k < len(text):
        if start is not None:                        # inside /* */
            if text.startswith("*/", k):
                out.append("  ")
                k, start = k + 2, None
                continue
            out.append("\n" if text[k] == "\n" else " ")
        elif text.startswith("/*", k):
            start = k
            out.append("  ")
            k += 2
            continue
        elif text[k] == "#" or text.startswith("//", k):
            end = text.find("\n", k)
            end = len(text) if end < 0 else end
            out.append(" " * (end - k))
            k = end
            continue
        else:
            out.append(text[k])
        k += 1
    if start is not None:
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        raise FieldOutOfRange(f"{filename}:{line}:{column}: this /* comment is never closed "
                              f"(*/)")
    return "".join(out)


def statements(text: str, filename: str, first_line: int = 1) -> list[Statement]:
    """The statements of ``text`` in order (see the module docstring); ``text`` starts at
    line ``first_line`` of ``filename``."""
    raw_lines = text.splitlines()
    code = _blank_comments(text, filename)
    found, chars, places, depth, opened = [], [], [], 0, None
    line, column = first_line, 0

    def finish():
        if "".join(chars).strip():
            first, last = places[0][0] - first_line, places[-1][0] - first_line
            raw = " ".join(r.strip() for r in raw_lines[first:last + 1]) if last > first \
                else raw_lines[first]
            found.append(Statement("".join(chars), list(places), filename, raw))
        chars.clear()
        places.clear()

    for char in code:
        column += 1
        if char == "\n":
            if depth == 0:
                finish()
            else:
                chars.append(" ")
                places.append((line, column))
            line, column = line + 1, 0
            continue
        if char == ";" and depth == 0:
            finish()
            continue
        if char == "(":
            depth += 1
            opened = opened if depth > 1 else (line, column)
        elif char == ")" and depth > 0:
            depth -= 1
        chars.append(char)
        places.append((line, column))
    if depth > 0:
        raise FieldOutOfRange(f"{filename}:{opened[0]}:{opened[1]}: this '(' is never closed "
                              f"(a TTI_ call ends with ')')")
    finish()
    return found


def definition(statement: Statement) -> tuple[str, int] | None:
    """(name, value) of a ``constexpr`` integer definition, or None for any other statement;
    its value must be a constant expression of literals."""
    match = _CONSTEXPR.match(statement.text)
    if match is None:
        return None
    value = constant_expression(match.group(2))
    if value is None:
        raise FieldOutOfRange(f"{statement.where(match.start(2))}: constexpr "
                              f"{match.group(1)}: its value must be a constant expression of "
                              f"integer literals, got {match.group(2)!r}")
    return match.group(1), value


def unqualified(name: str) -> str:
    """``name`` without tt-llk's namespace qualifiers (``ckernel::p_sfpu::LREG0`` -> LREG0)."""
    return QUALIFIERS.sub("", name.strip())


def named_constant(mnemonic: str, field: str, name: str) -> int | None:
    """A name tt-llk or sfpi gives a value of a field other than a register or a mode
    (``InstrModLoadStore::DEFAULT``, ``SFPSTOCHRND_RND_EVEN``), or None."""
    bare = unqualified(name)
    if bare.startswith("InstrModLoadStore::") and mnemonic in LOAD_STORE_MNEMONICS \
            and field == "mod0":
        return INSTR_MOD_LOAD_STORE.get(bare.split("::", 1)[1])
    return FIELD_NAMES.get((mnemonic, field), {}).get(bare.upper())


def constant_expression(text: str) -> int | None:
    """The value of an integer constant expression of literals, as C computes it for values
    that fit the field (``(0x3fb8aa3b >> 16) & 0xFFFF``, ``(-255) & 0xfff``, ``0xffffu``);
    None if ``text`` is not one."""
    python = _C_INTEGER.sub(lambda m: m.group(1), text.strip())
    try:
        return _value(ast.parse(python, mode="eval").body)
    except (SyntaxError, ValueError):
        return None


def _value(node) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, (ast.LShift, ast.RShift)) and not 0 <= right < 64:
            raise ValueError("shift count")
        return _BINARY[type(node.op)](left, right)
    raise ValueError("not a constant expression of integer literals")
