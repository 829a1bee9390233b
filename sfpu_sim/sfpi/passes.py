"""Passes over the statements before register allocation: fusing products into SFPMADs,
lowering abstract float ops to instructions, and removing register copies."""
from __future__ import annotations

import bisect

from sfpu_sim.arch import Arch
from sfpu_sim.sfpi.tracing import CONST_NEG_ONE, CONST_ONE, CONST_ZERO, Builder, Stmt, VReg


def _uses_and_defs_of(stmts: list[Stmt]) -> tuple[dict, dict]:
    """Where each register is read and where it is written: statement indices by register id,
    in one pass (the copy pass recomputes them after every copy it removes)."""
    uses: dict[int, list[int]] = {}
    defs: dict[int, list[int]] = {}
    for k, s in enumerate(stmts):
        for reg in s.uses.values():
            uses.setdefault(reg.id, []).append(k)
        for reg in s.defs.values():
            defs.setdefault(reg.id, []).append(k)
    return uses, defs


def _cc_between(stmts: list[Stmt], start: int, end: int) -> bool:
    return any(s.cc for s in stmts[start + 1:end])


def _written_between(stmts: list[Stmt], regs, start: int, end: int) -> bool:
    ids = {r.id for r in regs}
    return any(r.id in ids for s in stmts[start + 1:end] for r in s.defs.values())


def _fuse_products(stmts: list[Stmt], arch: Arch) -> list[Stmt]:
    """A product used once, by an addition or subtraction in the same predication region
    with its inputs unchanged in between, becomes one fused SFPMAD, as sfpi's compiler fuses
    them. Except ``c - a*b`` on a chip whose SFPMAD cannot negate (Wormhole): sfpi writes
    ``x - y`` as ``x + (-y)`` (tenstorrent/sfpi ``include/sfpi_funcs.h`` @dd79c153, Aug 2026:
    ``flt_add(-b)``, -b an SFPMOV that flips the sign), and the compiler's combine pass
    (tenstorrent/sfpi-gcc ``gcc/config/riscv/tt/gimple-rvtt-combine.cc``) fuses an add with a
    product operand only; there the negated product is an SFPMOV, not a product, so the add
    becomes ``SFPMAD(-1, a*b, c)`` after a separate SFPMUL: two roundings. Blackhole's pass
    first folds the negation into SFPMAD's NEGATE mode, then fuses. Where both operands are
    products (``a*b + c*d``), the pass tries the second first (``try_combine_mul_add``), so
    ``c*d`` is fused and ``a*b`` rounded alone."""
    negate_modes = arch.mad_negates
    uses, defs = _uses_and_defs_of(stmts)
    dropped = set()
    for k, s in enumerate(stmts):
        if s.op not in ("fadd", "fsub"):
            continue
        for role in ("b", "a"):                 # the second operand's product first (docstring)
            if s.op == "fsub" and role == "b" and not negate_modes:
                continue                                    # c - a*b: unfused (docstring)
            t = s.uses[role]
            if len(defs.get(t.id, [])) != 1 or len(uses.get(t.id, [])) != 1:
                continue
            j = defs[t.id][0]
            mul = stmts[j]
            if mul.op != "fmul" or mul.block != s.block or j in dropped or \
                    _cc_between(stmts, j, k) or \
                    _written_between(stmts, mul.uses.values(), j, k):
                continue
            other = s.uses["b" if role == "a" else "a"]
            negate_product = s.op == "fsub" and role == "b"       # c - a*b
            negate_addend = s.op == "fsub" and role == "a"        # a*b - c
            s.op, s.negate = "fma", (negate_product, negate_addend)
            s.uses = {"va": mul.uses["a"], "vb": mul.uses["b"], "vc": other}
            dropped.add(j)
            break
    return [s for k, s in enumerate(stmts) if k not in dropped]


def _lower_float(stmts: list[Stmt], arch: Arch, builder: Builder) -> list[Stmt]:
    """Abstract float ops -> instructions."""
    out = []
    one, neg_one, zero = (builder.constants[r] for r in (CONST_ONE, CONST_NEG_ONE, CONST_ZERO))
    negate_modes = arch.mad_negates
    for s in stmts:
        if s.op == "fmul":
            out.append(_as(s, "SFPMUL", {"va": s.uses["a"], "vb": s.uses["b"], "vc": zero}))
        elif s.op == "fadd":
            out.append(_as(s, "SFPADD", {"va": s.uses["a"], "vb": one, "vc": s.uses["b"]}))
        elif s.op == "fsub":
            out.append(_as(s, "SFPMAD", {"va": s.uses["b"], "vb": neg_one, "vc": s.uses["a"]}))
        elif s.op == "fma":
            va, vb, vc = s.uses["va"], s.uses["vb"], s.uses["vc"]
            negate_product, negate_addend = s.negate
            mod1 = 0
            if negate_modes:
                mod1 = "|".join([*(["NEGATE_VA"] if negate_product else []),
                                 *(["NEGATE_VC"] if negate_addend else [])]) or 0
            elif negate_addend:            # a*b - c (c - a*b is not fused here: _fuse_products)
                vc = _negated(out, vc, s, builder)
            out.append(_as(s, "SFPMAD", {"va": va, "vb": vb, "vc": vc}, mod1))
        else:
            out.append(s)
    return out


def _as(s: Stmt, op: str, uses: dict, mod1: int | str = 0) -> Stmt:
    return Stmt(op, {"mod1": mod1}, uses, s.defs, s.source, s.block, s.cc)


def _negated(out: list, reg: VReg, s: Stmt, builder: Builder) -> VReg:
    temp = VReg(builder.next_id + 1, s.source, s.block)
    builder.next_id += 1
    out.append(Stmt("SFPMOV", {"imm12": 0, "mod1": "NEGATE"}, {"vc": reg}, {"vd": temp}, s.source,
                    s.block))
    return temp


def _is_plain_move(s: Stmt) -> bool:
    return s.op == "SFPMOV" and s.imm.get("mod1") == 0 and set(s.uses) == {"vc"} and \
        set(s.defs) == {"vd"}


def _coalesce(stmts: list[Stmt]) -> list[Stmt]:
    """Remove register copies the hardware does not need (sfpi-gcc's "renames tmp and doesn't
    issue a mov"), keeping predication exact. Each round finds the first copy a rule removes
    in the statements as they stand, so the result does not depend on anything but them.

    Where each register is read and written is kept up to date as copies go (by statement
    number: a statement keeps its first position's number, so numbers compare as positions
    do), not recomputed each round: long kernels have thousands of statements."""
    uses, defs = _uses_and_defs_of(stmts)
    numbers = list(range(len(stmts)))          # the statements' numbers, in order
    # The copies' numbers, in order: renaming registers never makes or unmakes a plain copy,
    # so each round looks only at these instead of testing every statement again.
    moves = [k for k, s in enumerate(stmts) if _is_plain_move(s)]
    changed = True
    while changed:
        changed = False
        for at in moves:
            k = bisect.bisect_left(numbers, at)
            mov = stmts[k]
            src, dst = mov.uses["vc"], mov.defs["vd"]
            if src.id == dst.id:
                _drop_copy(stmts, numbers, k, uses, defs, moves)
                changed = True
                break
            if src.fixed is not None and src.fixed >= 8:
                # (c) a variable that only ever holds a constant: read the constant register.
                if len(defs.get(dst.id, [])) == 1 and dst.fixed is None and \
                        mov.block == dst.block:
                    for s in stmts[k + 1:]:
                        s.uses = {n: (src if r.id == dst.id else r) for n, r in s.uses.items()}
                    _move_after(uses, dst.id, src.id, at)
                    _drop_copy(stmts, numbers, k, uses, defs, moves)
                    changed = True
                    break
                continue
            # (a) the copied value was made just for this copy: make it in place.
            src_defs = defs.get(src.id, [])
            if src.fixed is None and dst.fixed is None and len(src_defs) == 1 and \
                    uses.get(src.id) == [at]:
                j = src_defs[0]
                maker_at = bisect.bisect_left(numbers, j)
                maker = stmts[maker_at]
                tied = any(r.id == src.id for r in maker.uses.values())
                touched = any(j < x < at for x in (*uses.get(dst.id, ()),
                                                   *defs.get(dst.id, ())))
                if not tied and maker.block == mov.block and len(maker.defs) == 1 and \
                        not _cc_between(stmts, maker_at, k) and not touched and \
                        maker.op not in ("SFPSWAP",):
                    maker.defs = {name: dst for name in maker.defs}
                    defs[src.id].remove(j)
                    bisect.insort(defs.setdefault(dst.id, []), j)
                    _drop_copy(stmts, numbers, k, uses, defs, moves)
                    changed = True
                    break
            # (b) the copy's source dies here and the destination is fresh: share a register.
            # (the number lists are in statement order: the last says whether any is later)
            later_src = any(where and where[-1] > at for where in (uses.get(src.id), src_defs))
            earlier_dst = any(where and where[0] < at
                              for where in (uses.get(dst.id), defs.get(dst.id)))
            if not later_src and not earlier_dst and src.fixed is None and dst.fixed is None \
                    and dst.block[:len(src.block)] == src.block:
                for s in stmts[k + 1:]:
                    s.uses = {n: (src if r.id == dst.id else r) for n, r in s.uses.items()}
                    s.defs = {n: (src if r.id == dst.id else r) for n, r in s.defs.items()}
                _move_after(uses, dst.id, src.id, at)
                _move_after(defs, dst.id, src.id, at)
                _drop_copy(stmts, numbers, k, uses, defs, moves)
                changed = True
                break
    return stmts


def _drop_copy(stmts: list[Stmt], numbers: list[int], k: int, uses: dict, defs: dict,
               moves: list[int]) -> None:
    """Delete the copy at position ``k`` and its read and write from the lists."""
    mov, at = stmts[k], numbers[k]
    uses[mov.uses["vc"].id].remove(at)
    defs[mov.defs["vd"].id].remove(at)
    moves.remove(at)
    del stmts[k], numbers[k]


def _move_after(table: dict, old: int, new: int, at: int) -> None:
    """``table``'s entries of register ``old`` numbered after ``at`` now belong to ``new``
    (the statements after a copy renamed ``old`` to ``new``)."""
    moved = [x for x in table.get(old, ()) if x > at]
    if moved:
        table[old] = [x for x in table[old] if x <= at]
        table[new] = sorted(table.get(new, []) + moved)
