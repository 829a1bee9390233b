"""Condition-code instructions as per-lane statements: SFPENCC, SFPPUSHC, SFPPOPC,
SFPCOMPC, SFPGT, SFPLE (part of :class:`sfpu_sim.compiled.codegen.Translation`).

Owns where their state lives in a lane: LaneFlags are the local ``f``, the stack's flags
``s0``.. ``s7``; CC enable and the enables on the stack are the same in every lane, so they are
tracked while translating (``self.enable``, ``self.stack``). What each instruction computes is
:mod:`sfpu_sim.isa.cc`'s: its lanewise rules for the flags, specialised into the lane
(:mod:`sfpu_sim.compiled.specialize`), and its rules for the enables, called here.
Knows nothing of the other instructions.
"""
from __future__ import annotations

from sfpu_sim.isa import cc
from sfpu_sim.isa.spec import operand_vb


class NotCompiled(Exception):
    """Why a program runs on the Machine instead (one line)."""


class PredicationOps:
    """Mixin of :class:`~sfpu_sim.compiled.codegen.Translation` (``emit``, ``read``,
    ``assignments``, ``guarded``, ``set_flags``, ``en``, ``enable``, ``stack``, ``arch``,
    ``_specialized``, ``_lanewise``)."""

    # --- condition codes ----------------------------------------------------------------------
    def op_SFPENCC(self, i):
        if i.mod1 & (cc.EI | cc.EC):
            self.enable = cc.encc_enable(i.mod1, i.imm12, self.enable)
        self.set_flags(str(cc.encc_flags(i.mod1, i.imm12)), "True")

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
        self._lanewise(cc.pushc_top, {"top": top, "flag": "f", "mod1": i.mod1}, "tf_")
        if i.mod1 == cc.PUSHC_INVERT:
            self.emit("f = tf_ != 0")
        self.emit(f"{top} = tf_ != 0")
        self.stack[-1] = cc.pushc_top_enable(i.mod1, self.enable)

    def op_SFPPOPC(self, i):
        depth = len(self.stack)
        top, top_enable = (f"s{depth - 1}", self.stack[-1]) if depth else (0, False)
        if i.mod1 == 0:
            if not depth:
                raise NotCompiled("SFPPOPC mod1 0 pops an empty CC stack")
            self.stack.pop()
        elif self.arch.popc_full_stack_bug and depth == self.arch.cc_stack_depth:
            self.emit(f"s0 = {top}")
            self.stack[0] = top_enable
        self._lanewise(cc.popc_flags, {"flag": "f", "top": top, "mod1": i.mod1}, "tf_")
        self.emit("f = tf_ != 0")
        self.enable = cc.popc_enable(i.mod1, self.enable, top_enable)

    def op_SFPCOMPC(self, i):
        top, top_enable = (f"s{len(self.stack) - 1}", self.stack[-1]) if self.stack \
            else (1, True)
        self._lanewise(cc.compc_flags, {"flag": "f", "top": top,
                                        "enabled": int(top_enable and self.enable)}, "tf_")
        self.emit("f = tf_ != 0")

    def _compare(self, i, comparison):
        """isa.cc._compare."""
        self.emit(f"e_ = {self.en()}")
        self._lanewise(comparison, {"vc": self.read(i.vc), "vb": self.read(operand_vb(i))},
                       "t_")
        if i.mod1 & cc.SET_VD:
            self.guarded("e_", *self._specialized(cc.compare_value, {"result": "t_"}, "tv_"),
                         *self.assignments(i.vd, "tv_"))
        if i.mod1 & cc.SET_CC:
            self.set_flags("t_ != 0", "e_")
        if i.mod1 & cc.MUTATE_STACK and self.stack:
            top = f"s{len(self.stack) - 1}"
            self._lanewise(cc.mutated_top, {"top": top, "result": "t_", "mod1": i.mod1}, "tm_")
            self.emit(f"{top} = tm_ != 0")

    def op_SFPGT(self, i):
        self._compare(i, cc.greater_than)

    def op_SFPLE(self, i):
        self._compare(i, cc.less_or_equal)
