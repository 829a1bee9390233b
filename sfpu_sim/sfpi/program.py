"""From statements to a Program: register allocation onto LReg 0-7, instruction building,
the chip's scheduling rule (SFPNOPs for hazards), and :func:`trace`."""
from __future__ import annotations

import bisect

from sfpu_sim.arch import Arch, get_arch
from sfpu_sim.isa.spec import Instruction, Program
from sfpu_sim.sfpi.passes import _coalesce, _fuse_products, _lower_float
from sfpu_sim.sfpi.tracing import (
    WRITABLE,
    Builder,
    DslError,
    RegisterPressure,
    Stmt,
    VReg,
    _builder,
)


def _allocate(stmts: list[Stmt], kernel: str) -> dict:
    """LReg 0-7 for every virtual register: greedy interval colouring in program order, with
    pinned (fixed) registers honoured. Raises RegisterPressure naming the kernel line."""
    # Positions: an instruction reads its operands (2k) before it writes its result (2k + 1),
    # so a result may take the register of an operand that dies at the same instruction.
    first, last, regs = {}, {}, {}
    for k, s in enumerate(stmts):
        for position, group in ((2 * k, s.uses.values()), (2 * k + 1, s.defs.values())):
            for reg in group:
                if reg.fixed is not None and reg.fixed >= 8:
                    continue
                regs[reg.id] = reg
                first[reg.id] = min(first.get(reg.id, position), position)
                last[reg.id] = max(last.get(reg.id, position), position)
    busy: dict[int, list[tuple[int, int, VReg]]] = {r: [] for r in WRITABLE}
    # Each register's spans, which never overlap, by start (their ends are then in order
    # too): a span is free there when the last span starting at or before its end ends before
    # its start.
    starts: dict[int, list[int]] = {r: [] for r in WRITABLE}
    ends: dict[int, list[int]] = {r: [] for r in WRITABLE}
    assignment = {}
    for vid in sorted(regs, key=lambda v: (regs[v].fixed is None, first[v])):
        reg, span = regs[vid], (first[vid], last[vid])
        candidates = [reg.fixed] if reg.fixed is not None else list(WRITABLE)
        for phys in candidates:
            at = bisect.bisect_right(starts[phys], span[1])
            if at == 0 or ends[phys][at - 1] < span[0]:
                busy[phys].append((*span, reg))
                starts[phys].insert(at, span[0])
                ends[phys].insert(at, span[1])
                assignment[vid] = phys
                break
        else:
            live = sorted({other for phys in WRITABLE for a, b, other in busy[phys]
                           if not (span[1] < a or b < span[0])}, key=lambda r: r.id)
            where = stmts[span[0] // 2].source
            names = ", ".join(f"value from {r.source}" for r in live[:8])
            if reg.fixed is not None:
                raise RegisterPressure(f"{where.where}: {kernel}: L{reg.fixed} is needed here but "
                                       f"holds a live value ({names})")
            raise RegisterPressure(f"{where.where}: {kernel}: more than 8 values live at once "
                                   f"({names}, and this one)")
    return assignment


def _mode_value(op, value, s: Stmt) -> int:
    """A field value as the DSL emits it: a number, or the ISA page's symbolic modifier names
    joined with ``|`` (``"ARG_IMM|CC_NONE"``), resolved against this chip's instruction."""
    if not isinstance(value, str):
        return value
    try:
        bits = [op.mod_names[name] for name in value.split("|")]
    except KeyError as missing:
        raise DslError(f"{s.source.where}: {op.mnemonic} has no modifier {missing} on this "
                       f"chip") from None
    result = 0
    for bit in bits:
        result |= bit
    return result


def _instruction(s: Stmt, arch: Arch, assignment: dict) -> Instruction:
    op = arch.opcode(s.op)
    values = {}
    for operand in op.operands:
        if operand.name in s.imm:
            values[operand.name] = _mode_value(op, s.imm[operand.name], s)
        elif operand.name in s.defs or operand.name in s.uses:
            reg = s.defs.get(operand.name) or s.uses[operand.name]
            values[operand.name] = reg.fixed if reg.fixed is not None and reg.fixed >= 8 \
                else assignment[reg.id]
        elif operand.default is not None:
            values[operand.name] = operand.default
        else:
            values[operand.name] = 0
    return Instruction(op, values, str(s.source), s.source.text)


def _schedule(instructions: list[Instruction], arch: Arch) -> list[Instruction]:
    """Insert an SFPNOP wherever the chip's hazard rules forbid two instructions in a row."""
    nop = arch.opcode("SFPNOP")
    out: list[Instruction] = []
    for ins in instructions:
        if out and arch.hazard(out[-1], ins) is not None:
            out.append(Instruction(nop, {}, ins.source, "(SFPNOP inserted for the hazard "
                                                       "rules)"))
        out.append(ins)
    return out


def trace(kernel, arch, *args, name: str | None = None, init=None, **kwargs) -> Program:
    """Run ``kernel(*args, **kwargs)`` with the DSL and return its :class:`Program` for
    ``arch``. ``init`` (optional): a function run first (sfpi's ``*_init()``: constants,
    tables); ``Program.init_length`` counts its instructions."""
    arch = get_arch(arch) if isinstance(arch, str) else arch
    name = name or getattr(kernel, "__name__", "kernel")
    code = getattr(kernel, "__code__", None)
    builder = Builder(arch, code.co_filename if code is not None else None)
    token = _builder.set(builder)
    try:
        if init is not None:
            init()
        init_stmts = len(builder.stmts)
        kernel(*args, **kwargs)
        if builder.chains:
            raise DslError(f"{builder.chains[-1]['source'].where}: v_if without v_endif()")
    finally:
        _builder.reset(token)
    init_part, body = builder.stmts[:init_stmts], builder.stmts[init_stmts:]
    init_part = _coalesce(_lower_float(_fuse_products(init_part, arch), arch, builder))
    body = _coalesce(_lower_float(_fuse_products(body, arch), arch, builder))
    stmts = init_part + body
    assignment = _allocate(stmts, name)
    instructions = [_instruction(s, arch, assignment) for s in stmts]
    scheduled = _schedule(instructions[:len(init_part)], arch)
    init_length = len(scheduled)
    scheduled = _schedule(scheduled + instructions[len(init_part):], arch)
    for previous, current in zip(scheduled, scheduled[1:]):
        problem = arch.hazard(previous, current)
        if problem is not None:                      # _schedule guarantees this never happens
            raise DslError(f"{current.source}: {problem}")
    return Program(arch, scheduled, name=name, init_length=init_length)
