"""Condition-code instructions as per-lane statements: SFPENCC, SFPPUSHC, SFPPOPC,
SFPCOMPC, SFPGT, SFPLE (part of :class:`sfpu_sim.compiled.codegen.Translation`).

Owns their translation, following :mod:`sfpu_sim.isa.cc` line by line: LaneFlags are the
local ``f``, the stack's flags ``s0``.. ``s7``; CC enable and the enables on the stack are the
same in every lane, so they are tracked while translating (``self.enable``, ``self.stack``).
Knows nothing of the other instructions.
"""
from __future__ import annotations

from sfpu_sim.isa import cc


class NotCompiled(Exception):
    """Why a program runs on the Machine instead (one line)."""


BOOL_OPS = {1: "{b}", 2: "not {b}", 3: "{a} and {b}", 4: "{a} or {b}", 5: "{a} and not {b}",
            6: "{a} or not {b}", 7: "not {a} and {b}", 8: "not {a} or {b}",
            9: "not {a} and not {b}", 10: "not {a} or not {b}", 11: "{a} != {b}",
            12: "{a} == {b}"}                     # isa.cc.bool_op


class PredicationOps:
    """Mixin of :class:`~sfpu_sim.compiled.codegen.Translation` (``emit``, ``read``,
    ``write``, ``set_flags``, ``en``, ``enable``, ``stack``, ``arch``)."""

    # --- condition codes ----------------------------------------------------------------------
    def op_SFPENCC(self, i):
        if i.mod1 & (cc.EI | cc.EC):
            self.enable = bool(i.imm12 & 1) if i.mod1 & cc.EI else not self.enable
        self.set_flags(str(bool(i.imm12 & 2)) if i.mod1 & cc.RI else "True", "True")

    def op_SFPPUSHC(self, i):
        depth = len(self.stack)
        if i.mod1 == 0:
            if depth >= self.arch.cc_stack_depth:
                raise NotCompiled(f"SFPPUSHC onto a full CC stack ({self.arch.cc_stack_depth} "
                                  f"entries)")
            self.emit(f"s{depth} = f")
            self.stack.append(self.enable)
            return
        if not depth:
            raise NotCompiled(f"SFPPUSHC mod1 {i.mod1} modifies the top of an empty CC stack")
        top = f"s{depth - 1}"
        if i.mod1 <= 12:
            self.emit(f"{top} = {BOOL_OPS[i.mod1].format(a=top, b='f')}")
            self.stack[-1] = self.enable
        elif i.mod1 == 13:
            self.emit("f = not f")
            self.emit(f"{top} = f")
            self.stack[-1] = self.enable
        else:
            self.emit(f"{top} = {i.mod1 == 14}")
            self.stack[-1] = True

    def op_SFPPOPC(self, i):
        depth = len(self.stack)
        top, top_enable = (f"s{depth - 1}", self.stack[-1]) if depth else ("False", False)
        if i.mod1 == 0:
            if not depth:
                raise NotCompiled("SFPPOPC mod1 0 pops an empty CC stack")
            self.stack.pop()
        elif self.arch.popc_full_stack_bug and depth == self.arch.cc_stack_depth:
            self.emit(f"s0 = {top}")
            self.stack[0] = top_enable
        if i.mod1 == 0:
            self.enable = top_enable
            self.emit(f"f = {top}")
        elif i.mod1 <= 12:
            self.enable = top_enable
            self.emit(f"f = {BOOL_OPS[i.mod1].format(a='f', b=top)}")
        elif i.mod1 == 13:
            self.emit("f = not f")
        else:
            self.enable = True
            self.emit(f"f = {i.mod1 == 14}")

    def op_SFPCOMPC(self, i):
        top, top_enable = (f"s{len(self.stack) - 1}", self.stack[-1]) if self.stack \
            else ("True", True)
        self.emit(f"f = {top} and not f" if top_enable and self.enable else "f = False")

    def _compare(self, i, result: str):
        """isa.cc._compare_result."""
        self.emit(f"e_ = {self.en()}")
        self.emit(f"t_ = {result}")
        if i.mod1 & cc.SET_VD:
            self.write(i.vd, "0xFFFFFFFF if t_ else 0", "e_")
        if i.mod1 & cc.SET_CC:
            self.set_flags("t_", "e_")
        if i.mod1 & cc.MUTATE_STACK and self.stack:
            top = f"s{len(self.stack) - 1}"
            self.emit(f"{top} = {top} {'or' if i.mod1 & cc.MUTATE_OR else 'and'} t_")

    def op_SFPGT(self, i):
        self._compare(i, f"smag_less({self.read(i.vc)}, {self.read(i.vd)})")

    def op_SFPLE(self, i):
        self._compare(i, f"not smag_less({self.read(i.vc)}, {self.read(i.vd)})")
