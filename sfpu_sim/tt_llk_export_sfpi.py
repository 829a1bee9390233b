"""The sfpi style of :mod:`sfpu_sim.tt_llk_export`: a program as sfpi C++ (``sfpi::vFloat``,
``v_if`` / ``v_elseif`` / ``v_else`` / ``v_endif``, ``v_and``, ``sfpi::dst_reg[i]``, the sfpi
library), reading like the kernel the DSL traced.

Owns: the sfpi text of a program: variables (one per web of :class:`~sfpu_sim.
tt_llk_export_flow.Values`; named after the DSL line that assigned them, which is what the DSL
records of a kernel besides its instructions: each instruction's source line), their types and
declarations (where every read sees them, uninitialised where their first value is
predicated, as ``vFloat y;`` before a ``v_if`` in sfpi), the predication blocks, and values
written where they are used: a constant used once as a vFloat operand becomes a literal, a value
computed only for one comparison becomes that comparison (``x - ref`` tested against 0 is sfpi's
``x < ref``, the lowering :mod:`sfpu_sim.sfpi.predication` follows). Knows nothing of what the
instructions compute.

Products: sfpi-gcc fuses ``a * b`` used once by an addition into one SFPMAD (the combine pass
:mod:`sfpu_sim.sfpi` models), which rounds once where the program rounds twice; such a product
is written ``a * b + sfpi::vConst0``: an SFPMAD that rounds the product alone, as SFPMUL does
on both chips (``Arch.mul_is_plain_product`` is False for both).

Values that cross from the init into the kernel function live in their LReg, as tt-llk's LUT
kernels keep them: ``sfpi::l_reg[sfpi::LRegs::LReg0] = v;`` ends the init and the kernel
function reads them back before its loop (``sfpi.h`` ``__LReg``, ``l_reg``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath

from sfpu_sim.isa.spec import Program
from sfpu_sim.tt_llk_export_flow import Chain, Values, parse, span
from sfpu_sim.tt_llk_export_forms import (
    CONFIG,
    FLOAT,
    INT,
    INTLIKE,
    SKIP,
    STORE,
    SWAP,
    UINT,
    VALUE,
    Form,
    constant_text,
    describe,
    float_literal,
    refuse,
)

SETCC_OPERATORS = {0: "<", 2: "!=", 4: ">=", 6: "=="}
NEGATED = {"<": ">=", ">=": "<", "==": "!=", "!=": "==", ">": "<=", "<=": ">"}
LANE_CHANGES = ("SFPSETCC", "SFPCOMPC", "SFPPOPC", "SFPPUSHC")
RESERVED = {"int", "float", "double", "if", "else", "for", "while", "do", "return", "auto",
            "const", "char", "long", "short", "unsigned", "signed", "void", "new", "delete",
            "this", "true", "false", "switch", "case", "default", "break", "continue", "d",
            "sfpi", "ITERATIONS", "and", "or", "not", "xor", "bool", "template", "class"}
_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:[-+*&|^]|<<|>>)?=(?!=)|^\s*([A-Za-z_]\w*)"
                       r"\.assign\(")
INDENT = "    "


@dataclass
class Variable:
    web: tuple
    type: str
    name: str = ""
    defs: list = field(default_factory=list)       # instruction indices, program order
    uses: list = field(default_factory=list)       # (k, role)
    constant: int | None = None                   # bits, when its one definition loads them
    inline: bool = False                          # written where it is used, not declared
    shared: bool = False                          # crosses from the init into the kernel


class SfpiWriter:
    """One program read back into sfpi's terms (module docstring)."""

    def __init__(self, program: Program):
        self.program = program
        self.forms = describe(program)
        self.init = parse(self.forms, 0, program.init_length)
        self.body = parse(self.forms, program.init_length, len(program))
        self.values = Values(self.forms)
        boundary, _ = self.values.walk(self.init, {r: {(-1, r)} for r in range(8)})
        self.values.walk(self.body, boundary)
        self.values.merge_predicated()
        self.variables: dict = {}
        for d in self.values.defs:                 # program order: a web's first def first
            web = self.values.find(d)
            if web not in self.variables:
                self.variables[web] = Variable(web, self._result_type(self.forms[d[0]]))
            self.variables[web].defs.append(d[0])
        for (k, role), d in sorted(self.values.uses.items()):
            self.variables[self.values.find(d)].uses.append((k, role))
        for variable in self.variables.values():
            first = self.forms[variable.defs[0]]
            if len(variable.defs) == 1:
                variable.constant = first.constant
            variable.shared = variable.defs[0] < program.init_length and any(
                k >= program.init_length for k, _ in variable.uses)
        self._choose_inlining()
        self._name()

    def variable(self, k: int, role: str) -> Variable | None:
        d = self.values.uses.get((k, role))
        return None if d is None else self.variables[self.values.find(d)]

    def defined(self, k: int) -> Variable:
        return self.variables[self.values.find((k, self.forms[k].writes[0]))]

    def _result_type(self, form: Form) -> str:
        if not form.natural.startswith("same:"):
            return form.natural
        read = form.reads[form.natural[5:]]
        operand = self.variable(form.index, form.natural[5:])
        return _cast_type(operand.type if operand else read.constant_type, read.need)

    def _choose_inlining(self) -> None:
        literals: set[int] = set()
        for variable in self.variables.values():
            if variable.shared or len(variable.uses) != 1 or variable.constant is None:
                continue
            k, role = variable.uses[0]
            form = self.forms[k]
            # One literal per operation, and another only as the addend of a product: two
            # literals side by side would be folded by the C++ compiler, not the SFPU.
            group = (k, role == "c" and "*" in form.template)
            if (variable.type == FLOAT and form.reads[role].literal and group not in literals
                    and float_literal(variable.constant) is not None):
                literals.add(group)
                variable.inline = True
        for variable in self.variables.values():
            configures = variable.constant is not None and variable.uses and all(
                self.forms[k].kind == CONFIG for k, _ in variable.uses)
            variable.inline = variable.inline or bool(configures) or \
                self._condition_only(variable)

    def _condition_only(self, variable: Variable) -> bool:
        """Defined once, read only by one comparison (or the ``>`` pair), with no lane change
        and no new value of its operands in between: sfpi evaluates it in the condition."""
        if variable.shared or len(variable.defs) != 1:
            return False
        k, uses = variable.defs[0], [use for use, _ in variable.uses]
        if self.forms[k].kind != VALUE or self.forms[k].ins.mnemonic == "SFPLOAD" or not uses \
                or variable.constant is not None \
                or any(self.forms[u].ins.mnemonic != "SFPSETCC" for u in uses) or \
                len(uses) > 2 or (len(uses) == 2 and uses[1] != uses[0] + 1):
            return False
        operands = {self.values.find(d) for (j, _), d in self.values.uses.items() if j == k}
        for j in range(k + 1, uses[0]):
            form = self.forms[j]
            if form.ins.mnemonic in LANE_CHANGES[:3] or any(
                    self.values.find((j, r)) in operands for r in form.writes):
                return False
        return True

    def _name(self) -> None:
        """The name a DSL line assigned (``x = dst_reg[0]``: x), else t0, t1, ..."""
        taken: set[str] = set()
        ordered = [v for v in self.variables.values() if not v.inline]
        for variable in ordered:
            wanted = _assigned_name(self.forms, variable.defs[0])
            if wanted and wanted not in RESERVED:
                name, n = wanted, 2
                while name in taken:
                    name, n = f"{wanted}_{n}", n + 1
                variable.name = name
                taken.add(name)
        counter = 0
        for variable in ordered:
            while not variable.name:
                if f"t{counter}" not in taken:
                    variable.name = f"t{counter}"
                    taken.add(variable.name)
                counter += 1

    # -- expressions ------------------------------------------------------------------------
    def operand(self, k: int, role: str) -> str:
        read = self.forms[k].reads[role]
        variable = self.variable(k, role)
        if variable is None:                       # a constant register
            return _cast(read.constant_text(), read.constant_type, read.need)
        if variable.inline and variable.constant is not None:
            return float_literal(variable.constant)
        if variable.inline:
            text, kind = self.expression(variable.defs[0])
            return _cast(f"({text})" if " " in text else text, kind, read.need)
        return _cast(variable.name, variable.type, read.need)

    def expression(self, k: int) -> tuple[str, str]:
        """Value instruction ``k`` as an sfpi expression, and its type."""
        form = self.forms[k]
        if form.constant is not None:
            return constant_text(form.constant, form.natural), form.natural
        template = form.template
        if form.product and self._fused_if_plain(k):
            template += " + {zero}"
        operands = {role: self.operand(k, role) for role in form.reads}
        return template.format(zero="sfpi::vConst0", **operands), self._result_type(form)

    def _fused_if_plain(self, k: int) -> bool:
        variable = self.defined(k)
        if len(variable.uses) != 1 or len(variable.defs) != 1:
            return False
        use, role = variable.uses[0]
        return role in (self.forms[use].addend_roles or ())

    def term(self, k: int) -> list:
        """The comparison SFPSETCC ``k`` narrows by: [left, operator, right]."""
        operator = SETCC_OPERATORS[self.forms[k].ins.mod1]
        variable = self.variable(k, "v")
        if variable is not None and variable.inline:
            form = self.forms[variable.defs[0]]
            if form.compare is not None:           # x - ref (or x + -ref) against 0: x op ref
                left, right = form.compare
                right = self.operand(form.index, right) if right in form.reads else right
                return [_compare_side(self.operand(form.index, left), self._left_type(form)),
                        operator, right]
            text, kind = self.expression(form.index)
            return [_compare_side(text, kind), operator, _zero(kind)]
        kind = variable.type if variable else self.forms[k].reads["v"].constant_type
        return [_compare_side(self.operand(k, "v"), kind), operator, _zero(kind)]

    def _left_type(self, form: Form) -> str:
        left = form.compare[0]
        operand = self.variable(form.index, left)
        have = operand.type if operand else form.reads[left].constant_type
        return _cast_type(have, form.reads[left].need)

    def statement(self, k: int, declared: set) -> str | None:
        """The C++ statement of instruction ``k``, or None when nothing is written for it."""
        form = self.forms[k]
        if form.kind in (STORE, SWAP):
            texts = {role: self.operand(k, role) for role in form.reads}
            if form.kind == SWAP:
                self._check_swap(k)
            return form.template.format(**texts) + ";"
        if form.kind == CONFIG:
            variable = self.variable(k, "v")
            if variable is None or variable.constant is None:
                raise refuse(k, form.ins, "sfpi sets a programmable constant only from a "
                             "literal (vConstFloatPrgm0 = 1.5f); L0 holds a computed value")
            return _config_text(form.ins.vd - 12, variable.constant)
        if form.kind != VALUE or self.defined(k).inline:
            return None
        variable = self.defined(k)
        text, kind = self.expression(k)
        if kind != variable.type and (form.constant is not None or form.ins.mnemonic ==
                                      "SFPLOAD"):
            text = f"sfpi::{kind}({text})"          # reinterpret takes a vector, not a literal
        text = _cast(text, kind, variable.type)
        if variable.web in declared or (variable.shared and k >= self.program.init_length):
            return f"{variable.name} = {text};"
        declared.add(variable.web)
        return f"sfpi::{variable.type} {variable.name} = {text};"

    def _check_swap(self, k: int) -> None:
        a, b = self.variable(k, "a"), self.variable(k, "b")
        if a is None or b is None or (a.type == FLOAT) != (b.type == FLOAT):
            raise refuse(k, self.forms[k].ins, "sfpi's vec_swap / vec_min_max update two "
                         "variables of one kind (vFloat, or integers), and these are not")

    def silent(self, item) -> bool:
        """An item that writes nothing (a NOP, half a constant, a value written where used)."""
        if isinstance(item, Chain) or item[0] != "stmt":
            return False
        form = self.forms[item[1]]
        return form.kind == SKIP or (form.kind == VALUE and self.defined(item[1]).inline)


def _assigned_name(forms: list[Form], k: int) -> str:
    """The variable a DSL line assigns, when ``k`` is the last value that line computes."""
    source = forms[k].ins.source or ""
    if not source.rpartition(":")[0].endswith(".py"):
        return ""
    for later in forms[k + 1:]:
        if later.ins.source != source:
            break
        if later.kind == VALUE:
            return ""
    match = _ASSIGNED.match(forms[k].ins.line_text or "")
    return (match.group(1) or match.group(2)) if match else ""


def _cast(text: str, have: str, need: str) -> str:
    want = _cast_type(have, need)
    return text if want == have else f"sfpi::reinterpret<sfpi::{want}>({text})"


def _cast_type(have: str, need: str) -> str:
    if need in ("any", have) or (need == INTLIKE and have in (INT, UINT)):
        return have
    return INT if need == INTLIKE else need


def _compare_side(text: str, kind: str) -> str:
    """An integer compared as vInt: sfpi compares a vUInt unsigned, the SFPSETCC tests bits."""
    return _cast(text, kind, INT) if kind == UINT else text


def _zero(kind: str) -> str:
    return "0.0f" if kind == FLOAT else "0"


def _config_text(index: int, bits: int) -> str:
    literal = float_literal(bits)
    if literal is not None:
        return f"sfpi::vConstFloatPrgm{index} = {literal};"
    return f"sfpi::vConstIntPrgm{index} = {constant_text(bits, INT)};"


# --------------------------------------------------------------------------------------------
# Blocks and lines
# --------------------------------------------------------------------------------------------

class Renderer:
    """Lays out the writer's statements in sfpi blocks (Allman braces, as tt-llk's sfpi
    kernels are formatted)."""

    def __init__(self, writer: SfpiWriter):
        self.writer = writer
        self.paths: dict[int, tuple] = {}
        self.branches: dict[int, list] = {}         # chain push index -> its branches
        for items in (writer.init, writer.body):
            self._flatten(items)
            self._assign(items, ())
        self.declare_at: dict = {}                  # web -> (path, first def) to pre-declare
        init_end = writer.program.init_length
        for variable in writer.variables.values():
            if variable.inline:
                continue
            places = [self.paths[k] for k in variable.defs if not variable.shared or k < init_end]
            places += [self.paths[k] for k, _ in variable.uses
                       if not variable.shared or k < init_end]
            common = _common_prefix(places)
            if self.paths[variable.defs[0]] != common or \
                    writer.forms[variable.defs[0]].kind != VALUE:
                self.declare_at[variable.web] = (common, variable.defs[0])
        self.declared: set = set()
        self.last_source = None

    def _flatten(self, items) -> None:
        """Mark the chains written as ``v_elseif``: the last branch of a chain that is only a
        chain with a condition. (``v_elseif`` pushes and its pops wait for ``v_endif``, so a
        chain followed by another ``SFPCOMPC`` of its own chain is a ``v_else`` block.)"""
        for item in items:
            if not isinstance(item, Chain):
                continue
            for segment in item.segments:
                self._flatten(segment)
            branches = self._branches(item)
            visible = [i for i in branches[-1][1] if not self.writer.silent(i)]
            if len(branches) > 1 and len(visible) == 1 and isinstance(visible[0], Chain) and \
                    self._branches(visible[0])[0][0] is not None:
                visible[0].flattened = True

    def _assign(self, items, path) -> None:
        """The block path of every instruction as written (a v_elseif's blocks are siblings
        of its chain's)."""
        for item in items:
            if not isinstance(item, Chain):
                self.paths[item[1]] = path
                continue
            for n, segment in enumerate(item.segments):
                inner = [i for i in segment if isinstance(i, Chain) and i.flattened]
                self._assign(segment, path if inner else path + ((item.push, n),))

    def _leading(self, items) -> tuple[list, list]:
        """The narrowings an item list starts with (as terms), and the rest."""
        narrows, n = [], 0
        while n < len(items):
            item = items[n]
            if not isinstance(item, Chain) and item[0] == "narrow":
                narrows.append(item[1])
            elif not self.writer.silent(item):
                break
            n += 1
        return self._terms(narrows), items[n:]

    def _terms(self, narrows: list[int]) -> list:
        terms, n = [], 0
        while n < len(narrows):
            term = self.writer.term(narrows[n])
            if n + 1 < len(narrows) and term[1] == ">=":
                following = self.writer.term(narrows[n + 1])
                same = self.writer.variable(narrows[n], "v") is self.writer.variable(
                    narrows[n + 1], "v")
                if following[1] == "!=" and following[0] == term[0] and same:
                    terms.append([term[0], ">", term[2]])      # >= 0, then != 0: sfpi's >
                    n += 2
                    continue
            terms.append(term)
            n += 1
        return terms

    # -- lines ------------------------------------------------------------------------------
    def lines(self, items, path: tuple, depth: int = 0) -> list[str]:
        out: list[str] = []
        n = 0
        while n < len(items):
            item = items[n]
            low, high = span(item)
            for web, (where, first) in self.declare_at.items():
                if where == path and low <= first <= high and web not in self.declared:
                    variable = self.writer.variables[web]
                    out.append(INDENT * depth + f"sfpi::{variable.type} {variable.name};")
                    self.declared.add(web)
            if isinstance(item, Chain):
                out += self._chain(item, path, depth)
            elif item[0] == "narrow":                 # v_and: this and the narrowings after it
                terms, rest = self._leading(items[n:])
                out.append(INDENT * depth + f"v_and({_conjunction(terms)});")
                n = len(items) - len(rest)
                continue
            else:
                text = self.writer.statement(item[1], self.declared)
                if text is not None:
                    out += self._comment(item[1], depth) + [INDENT * depth + text]
            n += 1
        return out

    def _comment(self, k: int, depth: int) -> list[str]:
        """The DSL line a group of statements came from, once per line."""
        ins = self.writer.forms[k].ins
        file, _, line = (ins.source or "").rpartition(":")
        if not file.endswith(".py") or ins.source == self.last_source:
            return []
        self.last_source = ins.source
        return [INDENT * depth + f"// {PurePath(file).name}:{line}: {ins.line_text or ''}"
                .rstrip()]

    def _branches(self, chain: Chain) -> list:
        """[(condition or None, items, segment number)] of a chain as sfpi writes it."""
        if chain.push in self.branches:
            return self.branches[chain.push]
        terms, rest = self._leading(chain.segments[0])
        if terms and all(self.writer.silent(i) for i in rest) and len(chain.segments) > 1:
            more, rest1 = self._leading(chain.segments[1])   # v_if (!(c) && ...): empty if
            negated = " || ".join(f"{a} {NEGATED[op]} {b}" for a, op, b in terms)
            condition = _conjunction([negated] + [" ".join(t) for t in more])
            branches = [(condition, rest1, 1)] + [(None, s, n) for n, s in
                                                   enumerate(chain.segments[2:], 2)]
        elif len(chain.segments) > 2 and any(not isinstance(i, Chain) and i[0] == "narrow"
                                             for i in rest):
            # Two SFPCOMPCs after a compound condition: an OR's complement, then v_else.
            # Written v_if (a || b) only where the first segment is conditions alone (above);
            # here one of them needs a value computed first.
            raise refuse(chain.push, self.writer.forms[chain.push].ins,
                         "an OR condition that needs a value computed for it (a constant to "
                         "compare with), followed by v_else: not written back as sfpi yet")
        else:
            branches = [(_conjunction(terms) if terms else None, rest, 0)] + \
                [(None, s, n) for n, s in enumerate(chain.segments[1:], 1)]
        self.branches[chain.push] = branches
        return branches

    def _chain(self, chain: Chain, path: tuple, depth: int, keyword: str = "v_if") -> list:
        out, pad = [], INDENT * depth
        branches = self._branches(chain)
        condition, items, n = branches[0]
        block = condition is None
        out.append(pad + ("v_block" if block else f"{keyword} ({condition})"))
        out += self._block(items, path + ((chain.push, n),), depth)
        for condition, items, n in branches[1:]:
            visible = [i for i in items if not self.writer.silent(i)]
            if len(visible) == 1 and isinstance(visible[0], Chain) and visible[0].flattened:
                out += self._chain(visible[0], path, depth, "v_elseif")[:-1]
                continue
            out.append(pad + "v_else")
            out += self._block(items, path + ((chain.push, n),), depth)
        if keyword == "v_if":
            out.append(pad + ("v_endblock;" if block else "v_endif;"))
        else:
            out.append("")                          # the caller drops it: one v_endif
        return out

    def _block(self, items, path: tuple, depth: int) -> list[str]:
        pad = INDENT * depth
        return [pad + "{"] + self.lines(items, path, depth + 1) + [pad + "}"]


def _conjunction(terms: list) -> str:
    parts = [" ".join(t) if isinstance(t, list) else t for t in terms]
    return " && ".join(f"({p})" if "||" in p and len(parts) > 1 else p for p in parts)


def _common_prefix(paths: list[tuple]) -> tuple:
    common = paths[0]
    for path in paths[1:]:
        n = 0
        while n < min(len(common), len(path)) and common[n] == path[n]:
            n += 1
        common = common[:n]
    return common


def sfpi_parts(program: Program) -> tuple[list, list, list, list]:
    """The sfpi lines of ``program``: its init, its loop body, and what goes before and after
    the loop (the values that cross from the init through their LRegs); or the refusal."""
    writer = SfpiWriter(program)
    renderer = Renderer(writer)
    init = renderer.lines(writer.init, ())
    renderer.last_source = None
    body = renderer.lines(writer.body, ())
    before, after = [], []
    for variable in writer.variables.values():
        if variable.shared:
            register = program[variable.defs[0]].vd
            slot = f"sfpi::l_reg[sfpi::LRegs::LReg{register}]"
            init.append(f"{slot} = {variable.name};")
            before.append(f"sfpi::{variable.type} {variable.name} = {slot};")
            after.append(f"{slot} = {variable.name};")
    return init, body, before, after
