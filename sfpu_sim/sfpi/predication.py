"""Predication: lane conditions and their lowering (sfpi-gcc's compare sequences),
``v_if`` / ``v_elseif`` / ``v_else`` / ``v_endif`` / ``v_and`` on the CC stack."""
from __future__ import annotations

import contextlib

from sfpu_sim.sfpi.tracing import CONST_NEG_ONE, DslError, Source, VReg, _b, _caller
from sfpu_sim.sfpi.values import (
    Cond,
    S2vFloat16,
    _Const,
    _const_reg,
    _load_float_bits,
    _to_fp32_bits,
    _Vec,
    _vec,
    vFloat,
    vInt,
)

_FLIP = {"lt": "ge", "ge": "lt", "le": "gt", "gt": "le", "eq": "ne", "ne": "eq"}
_SETCC = {"lt": "LREG_LT0", "ge": "LREG_GTE0", "eq": "LREG_EQ0", "ne": "LREG_NE0"}


def _emit_compare(op: str, a: _Vec, other, source: Source) -> None:
    """Set the enabled lanes' flags to ``a op other`` (sfpi-gcc's lowering)."""
    b = _b()
    if isinstance(a, vFloat):
        value = _float_operand(other)
        if isinstance(value, int) and value in (0, 0x80000000):
            tested = a.reg                          # compare against zero: raw sign/zero test
        else:
            if isinstance(value, int):
                ref = _load_float_bits(value, source=source)
            else:
                ref = value
            tested = b.vreg(source)
            b.emit("SFPMAD", {"mod1": 0}, {"va": ref, "vb": _const_reg(CONST_NEG_ONE), "vc": a.reg},
                   {"vd": tested}, source=source)
    else:
        value = other if isinstance(other, _Vec) else int(other)
        if isinstance(value, int) and value == 0:
            tested = a.reg
        elif isinstance(value, int):
            if not -2048 <= -value <= 2047:
                raise DslError(f"{source.where}: integer compare immediate {value} does not fit the "
                               f"12-bit SFPIADD immediate")
            tested = b.vreg(source)
            b.emit("SFPIADD", {"imm12": -value, "mod1": "ARG_IMM|CC_NONE"}, {"vc": a.reg}, {"vd": tested},
                   source=source)
        else:
            tested = b.vreg(source)
            b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": value.reg}, {"vd": tested},
                   source=source)
            b.emit("SFPIADD", {"imm12": 0, "mod1": "ARG_2SCOMP_LREG_DST|CC_NONE"}, {"vc": a.reg, "vd": tested},
                   {"vd": tested}, source=source)          # a - other
    if op in ("le", "gt"):
        _setcc(tested, "LREG_GTE0", source)
        _setcc(tested, "LREG_NE0", source)
        if op == "le":
            b.emit("SFPCOMPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True,
                   source=source)
    else:
        _setcc(tested, _SETCC[op], source)


def _float_operand(other):
    """A compare operand: FP32 bits of a constant, or a VReg."""
    if isinstance(other, _Const):
        return other.vec().reg
    if isinstance(other, S2vFloat16):
        return other.load()
    if isinstance(other, vFloat):
        return other.reg
    if isinstance(other, _Vec):
        raise DslError(f"{_caller().where}: compare a vFloat with a float or a vFloat")
    return _to_fp32_bits(other)


def _setcc(reg: VReg, mode: str, source: Source) -> None:
    _b().emit("SFPSETCC", {"imm12": 0, "vd": 0, "mod1": mode}, {"vc": reg}, {}, cc=True,
              source=source)


def _needs_fence(cond: Cond, negate: bool) -> bool:
    """Compares lowered with an SFPCOMPC complement against the stack top, so they must run
    right after a push (a fence) when they narrow an earlier condition."""
    if cond.op in _FLIP:
        return (_FLIP[cond.op] if negate else cond.op) == "le"
    return True


def _emit_cond(cond: Cond, negate: bool = False, fenced: bool = True) -> None:
    """Narrow the enabled lanes' flags by ``cond`` (or its negation). ``fenced``: the CC stack
    top holds the flags as they were before this condition began."""
    b = _b()
    if cond.op == "not":
        _emit_cond(cond.a, not negate, fenced)
    elif cond.op in ("and", "or"):
        conjunction = (cond.op == "and") != negate
        if conjunction:                       # a & b: narrow by a, then by b
            _emit_cond(cond.a, negate, fenced)
            _emit_guarded(cond.b, negate)
        else:                                 # a | b = ~(~a & ~b), complemented at the fence
            if not fenced:
                raise DslError(f"{cond.source.where}: '|' is supported only as the whole condition "
                               f"of a v_if / v_elseif (or combined with '&' inside it)")
            _emit_cond(cond.a, not negate, True)
            _emit_guarded(cond.b, not negate)
            b.emit("SFPCOMPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True,
                   source=cond.source)
    else:
        op = _FLIP[cond.op] if negate else cond.op
        if not fenced and op == "le":
            _emit_guarded(cond, negate)
            return
        _emit_compare(op, cond.a, cond.b, cond.source)


def _emit_guarded(cond: Cond, negate: bool) -> None:
    """Narrow by a condition that needs a fence (sfpi-gcc's process_bool_tree): push, keep a
    marker of the lanes where it holds, pop back, then select those lanes."""
    if not _needs_fence(cond, negate):
        _emit_cond(cond, negate, fenced=False)
        return
    b = _b()
    source = cond.source
    b.emit("SFPPUSHC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True, source=source)
    marker = b.vreg(source)
    b.emit("SFPLOADI", {"mod0": "SHORT", "imm16": 1}, {}, {"vd": marker}, source=source)
    _emit_cond(cond, negate, fenced=True)
    b.emit("SFPLOADI", {"mod0": "SHORT", "imm16": 0}, {"vd": marker}, {"vd": marker}, source=source)
    b.emit("SFPPOPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True, source=source)
    _setcc(marker, "LREG_EQ0", source)


def _open_branch(chain: dict) -> None:
    b = _b()
    chain["branch"] += 1
    b.block = chain["outer"] + ((chain["id"], chain["branch"]),)


@contextlib.contextmanager
def v_if(cond: Cond):
    """Predicate the block on ``cond`` (push the CC stack, narrow the flags)."""
    b = _b()
    source = _caller()
    if not isinstance(cond, Cond):
        cond = _vec(cond, vInt) != 0
    b.chain_count += 1
    chain = {"id": b.chain_count, "outer": b.block, "branch": 0, "pushes": 1,
             "source": source, "state": "open", "else": False}
    b.chains.append(chain)
    b.emit("SFPPUSHC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True,
           source=source)
    _emit_cond(cond)
    _open_branch(chain)
    yield
    _close_branch(chain)


def _close_branch(chain: dict) -> None:
    b = _b()
    b.block = chain["outer"]
    chain["state"], chain["closed_at"] = "closed-branch", len(b.stmts)


def _nothing_since_branch(chain: dict, what: str) -> None:
    """sfpi has no code between a block's end and v_else / v_endif: here it would run under
    the finished block's predication, so it is an error rather than a silent surprise."""
    b = _b()
    extra = b.stmts[chain["closed_at"]:]
    if extra:
        raise DslError(f"{extra[0].source.where}: code between the end of a v_if/v_elseif block and "
                       f"{what} would run under that block's predication; move it inside a "
                       f"block or after v_endif()")


def _chain_for(what: str) -> dict:
    b = _b()
    if not b.chains or b.chains[-1]["state"] != "closed-branch":
        raise DslError(f"{_caller().where}: {what} must directly follow a v_if / v_elseif block")
    chain = b.chains[-1]
    if chain["else"]:
        raise DslError(f"{_caller().where}: {what} after v_else")
    return chain


@contextlib.contextmanager
def v_elseif(cond: Cond):
    """The lanes that took no earlier branch, narrowed by ``cond``.

    Python evaluates ``cond``'s operands (``abs(x)`` in ``v_elseif(abs(x) < 1.0)``) before
    this call, while the previous block's lanes are still selected; sfpi evaluates them after
    complementing. Their instructions are therefore moved behind the complement here."""
    b = _b()
    chain = _chain_for("v_elseif")
    source = _caller()
    operands = b.stmts[chain["closed_at"]:]
    del b.stmts[chain["closed_at"]:]
    b.emit("SFPCOMPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True, source=source)
    b.emit("SFPPUSHC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True, source=source)
    chain["pushes"] += 1
    chain["state"] = "open"
    _open_branch(chain)
    for stmt in operands:                  # computed in this branch's lanes, as in sfpi
        stmt.block = b.block
        for reg in stmt.defs.values():
            if reg.block == chain["outer"] and reg.fixed is None:
                reg.block = b.block
    b.stmts.extend(operands)
    _emit_cond(cond)
    yield
    _close_branch(chain)


@contextlib.contextmanager
def v_else():
    """The lanes that took no earlier branch of the chain."""
    b = _b()
    chain = _chain_for("v_else")
    _nothing_since_branch(chain, "v_else")
    b.emit("SFPCOMPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True,
           source=_caller())
    chain["state"], chain["else"] = "open", True
    _open_branch(chain)
    yield
    _close_branch(chain)


def v_endif() -> None:
    """End the innermost v_if chain (pop the CC stack once per v_if / v_elseif)."""
    b = _b()
    if not b.chains or b.chains[-1]["state"] != "closed-branch":
        raise DslError(f"{_caller().where}: v_endif() without an open v_if chain")
    _nothing_since_branch(b.chains[-1], "v_endif()")
    chain = b.chains.pop()
    for _ in range(chain["pushes"]):
        b.emit("SFPPOPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True,
               source=_caller())


def v_and(cond: Cond) -> None:
    """Narrow the current v_if block further by ``cond`` (sfpi's ``v_and``)."""
    b = _b()
    if not b.chains or b.chains[-1]["state"] != "open":
        raise DslError(f"{_caller().where}: v_and() only inside a v_if block")
    _emit_guarded(cond, False)
