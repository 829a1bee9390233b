"""Each SFPU instruction as the sfpi operation that lowers to it, for the sfpi style of
:mod:`sfpu_sim.tt_llk_export` (:mod:`sfpu_sim.tt_llk_export_sfpi` puts them together).

Owns: :class:`ExportRefused` (both styles refuse with it), :func:`describe`, the :class:`Form`
of every instruction (the registers it reads, in
which sfpi type, and writes; the sfpi spelling of its operation; its result type), and the
refusal of instructions and modes sfpi has no spelling for. Knows nothing of predication blocks
or variables.

The spellings are sfpi's (tenstorrent/sfpi @0de2538, 2026-01-29): ``include/sfpi.h`` (vFloat
``+ - *`` lower to SFPADD / SFPMAD / SFPMUL, unary ``-`` to SFPMOV COMPSIGN, vInt ``+ - & | ^
~``, the ``vConst*`` registers), ``include/{wormhole,blackhole}/sfpi_imp.h`` (``dst_reg[i]``
loads and stores by type: vFloat SRCB 0; Wormhole vInt SM32 12, vUInt BOB32 4; Blackhole loads
both as 12 and stores both as 4; the programmable constants are LReg 12-14, ``vConstNeg1`` 11)
and ``sfpi_lib.h`` (``abs``, ``setsgn``, ``setexp``, ``setman``, ``exexp``, ``exexp_nodebias``,
``exman8``, ``exman9``, ``addexp``, ``lz``, ``lz_nosgn``, ``shft``, ``int32_to_float``,
``float_to_fp16a/fp16b/uint8/int8/uint16/int16``, ``int32_to_uint8/int8``, ``lut``,
``lut_sign``, ``lut2``, ``lut2_sign``, ``vec_swap``, ``vec_min_max``; Blackhole
``approx_recip``, ``approx_exp``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sfpu_sim import formats
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.isa.spec import Instruction, Program

FLOAT, INT, UINT = "vFloat", "vInt", "vUInt"
INTLIKE, ANY = "int", "any"                   # needs: either integer type; whatever it is
VALUE, STORE, SWAP, CONFIG, SKIP, CC = "value", "store", "swap", "config", "skip", "cc"
# sfpi_hw.h SFPLOAD_ADDR_MODE_NOINC / SFPSTORE_ADDR_MODE_NOINC, and the DSL's 0.
NO_INCREMENT = {"wormhole": (0, 3), "blackhole": (0, 7)}
LOAD_TYPES = {"wormhole": {0: FLOAT, 12: INT, 4: UINT}, "blackhole": {0: FLOAT, 12: INT}}
STORE_TYPES = {"wormhole": {0: FLOAT, 12: INT, 4: UINT}, "blackhole": {0: FLOAT, 4: UINT}}
# sfpi.h / sfpi_imp.h: the constant registers' names (12-14 by the type they are read as).
CONSTANT_NAMES = {8: "vConst0p8373", 9: "vConst0", 10: "vConst1", 11: "vConstNeg1",
                  15: "vConstTileId"}
STOCH_FUNCTIONS = {0: "float_to_fp16a", 1: "float_to_fp16b", 2: "float_to_uint8",
                   3: "float_to_int8", 6: "float_to_uint16", 7: "float_to_int16"}
FULL_LOADS = {0: FLOAT, 1: FLOAT, 2: UINT, 4: INT}     # SFPLOADI modes that write 32 bits
HALF_LOADS = (8, 10)                                  # UPPER, LOWER
ONE, NEGATIVE_ONE, ZERO = 10, 11, 9


class ExportRefused(SfpuSimError):
    """A program that an export style cannot express faithfully (names the instruction)."""


def refuse(index: int, instruction: Instruction, why: str) -> ExportRefused:
    """The one-line refusal for instruction ``index`` of a program."""
    return ExportRefused(f"instruction {index} ({instruction.mnemonic}): {why}")


@dataclass
class Read:
    """An operand: the LReg read, the sfpi type the operation takes (``need``), and whether a
    literal may stand there (vFloat arithmetic)."""
    reg: int
    need: str
    literal: bool = False

    @property
    def constant_type(self) -> str:
        """The sfpi type of a constant register read here."""
        if self.reg == 15 or (12 <= self.reg <= 14 and self.need in (INT, UINT, INTLIKE)):
            return INT
        return FLOAT

    def constant_text(self) -> str:
        if 12 <= self.reg <= 14:
            kind = "Int" if self.constant_type == INT else "Float"
            name = f"sfpi::vConst{kind}Prgm{self.reg - 12}"
        else:
            name = f"sfpi::{CONSTANT_NAMES[self.reg]}"
        return name if self.literal else f"sfpi::{self.constant_type}({name})"


@dataclass
class Form:
    """One instruction as sfpi says it. ``template`` names operands by role; ``natural`` is
    the result type, or ``same:ROLE`` for the (cast) type of that operand."""
    index: int
    ins: Instruction
    kind: str
    reads: dict = field(default_factory=dict)
    writes: tuple = ()
    natural: str = ""
    template: str = ""
    constant: int | None = None       # the 32 bits a constant load leaves
    product: bool = False             # a * b: sfpi-gcc fuses it into an addition that uses it
    addend_roles: tuple | None = None  # operands an addition (or MAD addend) takes
    compare: tuple | None = None      # (left role, right role): x - ref tested against 0
    in_place: bool = False


def float_literal(bits: int) -> str | None:
    """The C++ float literal of FP32 ``bits`` (shortest that reads back the same float), or
    None for Inf and NaN."""
    value = np.uint32(bits).view(np.float32)
    if not np.isfinite(value):
        return None
    magnitude = abs(float(value))
    if magnitude == 0 or 1e-3 <= magnitude < 1e7:
        text = np.format_float_positional(value, unique=True, trim="-")
    else:
        text = np.format_float_scientific(value, unique=True, trim="-")
    if "." not in text and "e" not in text:
        text += ".0"
    return text + "f"


def constant_text(bits: int, kind: str) -> str:
    """A constant of type ``kind`` as sfpi initialises a variable with it."""
    if kind == FLOAT:
        literal = float_literal(bits)
        return literal or f"sfpi::reinterpret<sfpi::vFloat>(sfpi::vUInt({bits:#010x}u))"
    if kind == INT:
        return str(bits - (1 << 32) if bits >= 1 << 31 else bits)
    return f"{bits:#x}u"


def describe(program: Program) -> list[Form]:
    """The :class:`Form` of every instruction of ``program`` (or the refusal of the first one
    sfpi cannot say)."""
    chip = program.arch.name
    forms, pairs = [], constant_pairs(program)
    for k, ins in enumerate(program):
        form = _loadi(k, ins, program, pairs) if ins.mnemonic == "SFPLOADI" else \
            _form(k, ins, chip, program)
        if form.kind in (VALUE, SWAP) and any(r >= 8 for r in form.writes):
            raise refuse(k, ins, f"it writes L{max(form.writes)}: a write to L12-L15 captures "
                         f"a LoadMacro template, which sfpi has no spelling for")
        forms.append(form)
    return forms


def _form(k: int, ins: Instruction, chip: str, program: Program) -> Form:
    mnemonic = ins.mnemonic
    handler = _HANDLERS.get(mnemonic)
    if handler is None:
        raise refuse(k, ins, _UNSAID.get(mnemonic, "sfpi has no operation that lowers to it"))
    return handler(k, ins, chip, program)


def _value(k, ins, template, natural, reads, **extra) -> Form:
    return Form(k, ins, VALUE, reads, (ins.vd,), natural, template, **extra)


def _no_modifier(k, ins, field_name="mod1"):
    if ins.values[field_name]:
        names = [n for n, v in ins.op.mod_names.items() if v and ins.values[field_name] & v
                 and "_MOD" not in n]
        raise refuse(k, ins, f"{field_name} = {ins.values[field_name]} "
                     f"({'|'.join(names) or 'a mode'}): sfpi has no operator that asks for it")


def _dst_index(k, ins, chip) -> int:
    if ins.addr_mod not in NO_INCREMENT[chip]:
        raise refuse(k, ins, f"ADDR_MOD_{ins.addr_mod} walks Dst: sfpi's dst_reg[] issues "
                     f"ADDR_MOD_{NO_INCREMENT[chip][1]} (no increment) and moves with dst_reg++")
    if ins.imm10 % 2:
        raise refuse(k, ins, f"Dst address {ins.imm10} is odd: dst_reg[i] addresses row pairs "
                     f"(SFP_DESTREG_STRIDE 2)")
    return ins.imm10 // 2


def _load(k, ins, chip, program) -> Form:
    index = _dst_index(k, ins, chip)
    kind = LOAD_TYPES[chip].get(ins.mod0)
    if kind is None:
        raise refuse(k, ins, f"format mod0 = {ins.mod0}: sfpi's dst_reg[] loads on this chip "
                     f"only by type ({', '.join(f'{t} {m}' for m, t in LOAD_TYPES[chip].items())})")
    return _value(k, ins, f"sfpi::dst_reg[{index}]", kind, {})


def _store(k, ins, chip, program) -> Form:
    index = _dst_index(k, ins, chip)
    kind = STORE_TYPES[chip].get(ins.mod0)
    if kind is None:
        raise refuse(k, ins, f"format mod0 = {ins.mod0}: sfpi's dst_reg[] stores on this chip "
                     f"only by type ({', '.join(f'{t} {m}' for m, t in STORE_TYPES[chip].items())})")
    return Form(k, ins, STORE, {"v": Read(ins.vd, kind)}, (), "",
                f"sfpi::dst_reg[{index}] = {{v}}")


def constant_pairs(program: Program) -> dict[int, int]:
    """Second -> first index of the SFPLOADI pairs that load one 32-bit constant: a whole load
    then a half (FLOATB then LOWER, USHORT then UPPER, ...), or the two halves."""
    pairs, k = {}, 0
    while k + 1 < len(program):
        first, second = program[k], program[k + 1]
        if first.mnemonic == second.mnemonic == "SFPLOADI" and first.vd == second.vd and \
                second.mod0 in HALF_LOADS and (first.mod0 in FULL_LOADS or
                                               first.mod0 in HALF_LOADS and
                                               first.mod0 != second.mod0):
            pairs[k + 1] = k
            k += 2
        else:
            k += 1
    return pairs


def _loadi(k, ins, program, pairs) -> Form:
    if k + 1 in pairs and pairs[k + 1] == k:
        return Form(k, ins, SKIP)                      # its other half follows: one constant
    if k in pairs:
        first = program[pairs[k]]
        bits = _full_bits(first) if first.mod0 in FULL_LOADS else first.imm16 << 16 \
            if first.mod0 == 8 else first.imm16
        bits = (bits & 0xFFFF) | ins.imm16 << 16 if ins.mod0 == 8 else \
            (bits & 0xFFFF0000) | ins.imm16
        return _value(k, ins, "", FULL_LOADS.get(first.mod0, UINT), {}, constant=bits)
    if ins.mod0 in FULL_LOADS:
        return _value(k, ins, "", FULL_LOADS[ins.mod0], {}, constant=_full_bits(ins))
    raise refuse(k, ins, "it writes half of a register that no whole constant load just "
                 "wrote: sfpi loads whole values")


def _full_bits(ins) -> int:
    imm = ins.imm16
    if ins.mod0 == 0:
        return imm << 16
    if ins.mod0 == 1:
        return int(formats.fp16_floata_to_fp32_bits(np.uint32(imm)))
    if ins.mod0 == 2:
        return imm
    return ((imm ^ 0x8000) - 0x8000) & 0xFFFFFFFF


def _mad(k, ins, chip, program) -> Form:
    mnemonic, (va, vb, vc) = ins.mnemonic, (ins.va, ins.vb, ins.vc)
    reads = {"a": Read(va, FLOAT, True), "b": Read(vb, FLOAT, True), "c": Read(vc, FLOAT, True)}
    if ins.mod1 in (1, 2) and chip == "blackhole":
        # Blackhole's NEGATE_VA / NEGATE_VC: what sfpi-gcc makes of c - a*b and a*b - c there
        # (the DSL's lowering, sfpu_sim.sfpi.passes)
        template = "{c} - {a} * {b}" if ins.mod1 == 1 else "{a} * {b} - {c}"
        return _value(k, ins, template, FLOAT, reads, addend_roles=("c",))
    _no_modifier(k, ins)
    # sfpi-gcc fuses a product subtracted (c - a*b) only where SFPMAD negates (Blackhole):
    # on Wormhole the subtrahend is no addend it fuses (sfpu_sim.sfpi.passes._fuse_products).
    negates = program.arch.mad_negates
    if vb == NEGATIVE_ONE and mnemonic == "SFPMAD":   # sfpi's c - a, and how it compares c, a
        return _value(k, ins, "{c} - {a}", FLOAT, _pick(reads, "a", "c"),
                      addend_roles=("a", "c") if negates else ("c",), compare=("c", "a"))
    if va == NEGATIVE_ONE and mnemonic == "SFPMAD":
        return _value(k, ins, "{c} - {b}", FLOAT, _pick(reads, "b", "c"),
                      addend_roles=("b", "c") if negates else ("c",), compare=("c", "b"))
    if vb == ONE and mnemonic != "SFPMUL":
        return _value(k, ins, "{a} + {c}", FLOAT, _pick(reads, "a", "c"), addend_roles=("a", "c"))
    if va == ONE and mnemonic != "SFPMUL":
        return _value(k, ins, "{b} + {c}", FLOAT, _pick(reads, "b", "c"), addend_roles=("b", "c"))
    if mnemonic == "SFPMUL" and vc == ZERO:       # sfpi's a * b: SFPMUL with L9 (+0)
        return _value(k, ins, "{a} * {b}", FLOAT, _pick(reads, "a", "b"), product=True)
    return _value(k, ins, "{a} * {b} + {c}", FLOAT, reads, addend_roles=("c",))


def _pick(reads: dict, *roles) -> dict:
    return {role: reads[role] for role in roles}


def _immediate_arithmetic(k, ins, chip, program) -> Form:
    _no_modifier(k, ins)
    text = float_literal(ins.imm16 << 16)
    if text is None:
        raise refuse(k, ins, f"its BF16 immediate {ins.imm16:#06x} is Inf or NaN: no float "
                     f"literal says it")
    if ins.mnemonic == "SFPADDI":
        return _value(k, ins, f"{{a}} + {text}", FLOAT, {"a": Read(ins.vd, FLOAT)},
                      addend_roles=("a",))
    return _value(k, ins, f"{{a}} * {text}", FLOAT, {"a": Read(ins.vd, FLOAT)}, product=True)


def _mov(k, ins, chip, program) -> Form:
    if ins.mod1 == 0:
        return _value(k, ins, "{a}", "same:a", {"a": Read(ins.vc, ANY)})
    if ins.mod1 == 1:
        return _value(k, ins, "-{a}", FLOAT, {"a": Read(ins.vc, FLOAT)})
    why = {2: "ALL_LANES_ENABLED writes the lanes v_if disabled",
           8: "FROM_SPECIAL reads LoadMacro, PRNG or LaneConfig state"}
    raise refuse(k, ins, f"mod1 = {ins.mod1}: {why.get(ins.mod1, 'a mode')}, which sfpi has no "
                 f"spelling for")


def _unary(need, result, modes):
    """A library function of VC, picked by mod1 (``modes``); ``need``: the type it takes (or
    a function of the mode), ``result``: its type (None: the operand's)."""
    def handler(k, ins, chip, program):
        if ins.mod1 not in modes:
            raise refuse(k, ins, f"mod1 = {ins.mod1}: sfpi's library has no function for this "
                         f"mode (it has {', '.join(f'{m}: {modes[m]}' for m in modes)})")
        name = modes[ins.mod1]
        return _value(k, ins, f"sfpi::{name}({{a}})", result if result else "same:a",
                      {"a": Read(ins.vc, need if not callable(need) else need(ins.mod1))})
    return handler


def _set_field(k, ins, chip, program) -> Form:
    function = {"SFPSETSGN": "setsgn", "SFPSETEXP": "setexp", "SFPSETMAN": "setman"}[
        ins.mnemonic]
    value_need = ANY if function == "setsgn" else FLOAT
    natural = "same:a" if function == "setsgn" else FLOAT
    if ins.mod1 == 1:
        immediate = ins.imm12 & (1 if function == "setsgn" else 0xFF if function == "setexp"
                                 else 0xFFF)
        return _value(k, ins, f"sfpi::{function}({{a}}, {immediate})", natural,
                      {"a": Read(ins.vc, value_need)})
    if ins.mod1 == 0:
        field_need = ANY if function == "setsgn" else INTLIKE
        return _value(k, ins, f"sfpi::{function}({{a}}, {{b}})", natural,
                      {"a": Read(ins.vc, value_need), "b": Read(ins.vd, field_need)})
    raise refuse(k, ins, f"mod1 = {ins.mod1}: sfpi's {function} takes an immediate or a "
                 f"register's low bits, not this mode")


def _divp2(k, ins, chip, program) -> Form:
    if ins.mod1 == 1:
        return _value(k, ins, f"sfpi::addexp({{a}}, {ins.imm12})", FLOAT,
                      {"a": Read(ins.vc, FLOAT)})
    # mode 0 sets the exponent field to Imm8, as SFPSETEXP ARG_IMM does (SFPDIVP2.md)
    return _value(k, ins, f"sfpi::setexp({{a}}, {ins.imm12 & 0xFF})", FLOAT,
                  {"a": Read(ins.vc, FLOAT)})


def _shift(k, ins, chip, program) -> Form:
    arithmetic = chip == "blackhole" and ins.mod1 & 2
    if ins.mod1 & ~3 or (ins.mod1 & 2 and chip != "blackhole"):
        raise refuse(k, ins, f"mod1 = {ins.mod1}: sfpi's shft shifts VD by an immediate or by "
                     f"VC only")
    kind = INT if arithmetic else UINT
    if ins.mod1 & 1:
        return _value(k, ins, f"sfpi::shft({{a}}, {ins.imm12})", kind,
                      {"a": Read(ins.vd, kind)})
    return _value(k, ins, "sfpi::shft({a}, {b})", kind,
                  {"a": Read(ins.vd, kind), "b": Read(ins.vc, INT)})


def _iadd(k, ins, chip, program) -> Form:
    if ins.mod1 not in (4, 5, 6):
        raise refuse(k, ins, f"mod1 = {ins.mod1}: it sets the lane flags (or is no documented "
                     f"mode); sfpi-gcc forms such an SFPIADD itself from a comparison")
    if ins.mod1 == 5:
        sign, amount = ("-", -ins.imm12) if ins.imm12 < 0 else ("+", ins.imm12)
        return _value(k, ins, f"{{a}} {sign} {amount}", "same:a", {"a": Read(ins.vc, INTLIKE)},
                      compare=("a", str(-ins.imm12)))
    if ins.mod1 == 4:
        return _value(k, ins, "{b} + {a}", "same:b",
                      {"a": Read(ins.vc, INTLIKE), "b": Read(ins.vd, INTLIKE)})
    return _value(k, ins, "{a} - {b}", "same:a",
                  {"a": Read(ins.vc, INTLIKE), "b": Read(ins.vd, INTLIKE)})


def _bitwise(k, ins, chip, program) -> Form:
    if ins.mnemonic == "SFPNOT":
        return _value(k, ins, "~{a}", "same:a", {"a": Read(ins.vc, INTLIKE)})
    _no_modifier(k, ins)
    operator = {"SFPAND": "&", "SFPOR": "|", "SFPXOR": "^"}[ins.mnemonic]
    return _value(k, ins, f"{{b}} {operator} {{a}}", "same:b",
                  {"a": Read(ins.vc, INTLIKE), "b": Read(ins.vd, INTLIKE)})


def _cast(k, ins, chip, program) -> Form:
    if ins.mod1 not in (0, 1):
        raise refuse(k, ins, f"mod1 = {ins.mod1}: sfpi's library converts only int32 to float "
                     f"(int32_to_float)")
    return _value(k, ins, f"sfpi::int32_to_float({{a}}, {ins.mod1})", FLOAT,
                  {"a": Read(ins.vc, INT)})


def _stochastic_round(k, ins, chip, program) -> Form:
    if ins.round_mode > 1:
        raise refuse(k, ins, f"round mode {ins.round_mode}: sfpi's round_mode is 0 (nearest) "
                     f"or 1 (stochastic)")
    mode = ins.mod1
    if mode in STOCH_FUNCTIONS and ins.imm5 == 0:
        return _value(k, ins, f"sfpi::{STOCH_FUNCTIONS[mode]}({{a}}, {ins.round_mode})", UINT,
                      {"a": Read(ins.vc, FLOAT)})
    name = {4: "int32_to_uint8", 5: "int32_to_int8"}.get(mode & 7)
    if name and mode & 8:
        return _value(k, ins, f"sfpi::{name}({{a}}, {ins.imm5}, {ins.round_mode})", UINT,
                      {"a": Read(ins.vc, INT)})
    if name:
        return _value(k, ins, f"sfpi::{name}({{a}}, {{b}}, {ins.round_mode})", UINT,
                      {"a": Read(ins.vc, INT), "b": Read(ins.vb, UINT)})
    raise refuse(k, ins, f"mod1 = {mode} with imm5 = {ins.imm5}: no sfpi library function "
                 f"converts that way")


def _swap(k, ins, chip, program) -> Form:
    functions = {0: "vec_swap", 1: "vec_min_max"}
    if ins.mod1 not in functions:
        raise refuse(k, ins, f"mod1 = {ins.mod1}: sfpi's library swaps whole vectors (vec_swap) "
                     f"or orders them (vec_min_max), not by subvector or max-first")
    return Form(k, ins, SWAP, {"a": Read(ins.vd, ANY), "b": Read(ins.vc, ANY)},
                (ins.vd, ins.vc), "", f"sfpi::{functions[ins.mod1]}({{a}}, {{b}})",
                in_place=True)


def _lut(k, ins, chip, program) -> Form:
    if ins.mod0 & 8 or ins.dest_reg_addr:
        raise refuse(k, ins, "INDIRECT_VD (or an address) writes LReg[L7]: sfpi's lut "
                     "names its result")
    function = "lut" if ins.mod0 & 4 else "lut_sign"
    reads = {"v": Read(3, FLOAT), "l0": Read(0, UINT), "l1": Read(1, UINT), "l2": Read(2, UINT)}
    return _value(k, ins, f"sfpi::{function}({{v}}, {{l0}}, {{l1}}, {{l2}})", FLOAT, reads)


def _lut2(k, ins, chip, program) -> Form:
    if ins.mod1 & 8 or ins.values.get("mod1_mirror"):
        raise refuse(k, ins, "INDIRECT_VD writes LReg[L7] (the 3-entry FP16 table's hardware "
                     "bug): sfpi's lut2 names its result")
    function = "lut2" if ins.mod1 & 4 else "lut2_sign"
    table = ins.mod1 & 3
    kind = FLOAT if table == 0 else UINT
    roles = {"l0": 0, "l1": 1, "l2": 2, "l4": 4, "l5": 5, "l6": 6}
    reads = {"v": Read(3, FLOAT)} | {role: Read(reg, kind) for role, reg in roles.items()}
    mode = "" if table == 0 else f", {table - 1}"
    return _value(k, ins, f"sfpi::{function}({{v}}, {{l0}}, {{l1}}, {{l2}}, {{l4}}, {{l5}}, "
                  f"{{l6}}{mode})", FLOAT, reads)


def _config(k, ins, chip, program) -> Form:
    if 12 <= ins.vd <= 14 and ins.mod1 == 0:
        return Form(k, ins, CONFIG, {"v": Read(0, ANY)})
    raise refuse(k, ins, f"VD {ins.vd} mod1 {ins.mod1} configures LoadMacro, the lane "
                 f"configuration or a constant by a mode: sfpi sets only vConst*Prgm0-2, from "
                 f"a literal")


def _control(k, ins, chip, program) -> Form:
    mnemonic = ins.mnemonic
    if mnemonic == "SFPSETCC":
        if ins.mod1 not in (0, 2, 4, 6):
            raise refuse(k, ins, f"mod1 = {ins.mod1}: the flags from an immediate or cleared; "
                         f"sfpi's conditions compare a value")
        return Form(k, ins, CC, {"v": Read(ins.vc, ANY)})
    if mnemonic in ("SFPPUSHC", "SFPPOPC") and ins.mod1:
        raise refuse(k, ins, f"mod1 = {ins.mod1} combines flags with the stack top: sfpi pushes "
                     f"and pops only (v_if, v_endif)")
    return Form(k, ins, CC)


_HANDLERS = {
    "SFPLOAD": _load, "SFPSTORE": _store,
    "SFPMAD": _mad, "SFPMUL": _mad, "SFPADD": _mad,
    "SFPADDI": _immediate_arithmetic, "SFPMULI": _immediate_arithmetic,
    "SFPMOV": _mov,
    "SFPABS": _unary(lambda mode: FLOAT if mode else INT, None, {0: "abs", 1: "abs"}),
    "SFPEXEXP": _unary(FLOAT, INT, {0: "exexp", 1: "exexp_nodebias"}),
    "SFPEXMAN": _unary(FLOAT, INT, {0: "exman8", 1: "exman9"}),
    "SFPLZ": _unary(ANY, INT, {0: "lz", 4: "lz_nosgn"}),
    "SFPARECIP": _unary(FLOAT, FLOAT, {0: "approx_recip", 1: "approx_recip<false>",
                                       2: "approx_exp"}),
    "SFPSETSGN": _set_field, "SFPSETEXP": _set_field, "SFPSETMAN": _set_field,
    "SFPDIVP2": _divp2, "SFPSHFT": _shift, "SFPIADD": _iadd,
    "SFPAND": _bitwise, "SFPOR": _bitwise, "SFPXOR": _bitwise, "SFPNOT": _bitwise,
    "SFPCAST": _cast, "SFP_STOCH_RND": _stochastic_round, "SFPSWAP": _swap,
    "SFPLUT": _lut, "SFPLUTFP32": _lut2, "SFPCONFIG": _config,
    "SFPSETCC": _control, "SFPPUSHC": _control, "SFPPOPC": _control, "SFPCOMPC": _control,
    "SFPNOP": lambda k, ins, chip, program: Form(k, ins, SKIP),
}
_UNSAID = {
    "SFPLOADMACRO": "raw LoadMacro: sfpi has no LoadMacro intrinsic",
    "SFPENCC": "it sets UseLaneFlagsForLaneEnable and the lane flags directly; sfpi issues "
               "SFPENCC only in its prologue (__vCCCtrl::enable_cc)",
    "SFPGT": "Blackhole's compare-and-set-flags: sfpi-gcc forms it itself from a comparison, "
             "and sfpi has no operation that asks for it",
    "SFPLE": "Blackhole's compare-and-set-flags: sfpi-gcc forms it itself from a comparison, "
             "and sfpi has no operation that asks for it",
    "SFPSHFT2": "it moves values between lanes or registers: sfpi has no operation for this "
                "mode written as one value per statement",
    "SFPTRANSP": "it transposes L0-L3 together (sfpi's subvec_transp takes four variables by "
                 "reference), which one value per statement cannot say",
    "SFPMUL24": "Blackhole's 24-bit integer multiply: sfpi @0de2538 has no operator for it",
}
