"""A Program as Python source for numba: one snippet per instruction, run lane after lane.

Owns: the translation of each instruction into per-lane statements over local variables (LRegs
``r0``..``r16``, LaneFlags ``f``, the CC stack's flags ``s0``..``s7``, the PRNG state ``p``),
and the state that is the same in every lane and therefore known while translating: CC enable
and the enables on the stack, the stack depth, the Dst/Sp counters, every Dst cell address.
Knows nothing of loading or caching the result (:mod:`sfpu_sim.compiled`).

Each snippet reads like its instruction in :mod:`sfpu_sim.isa` (same names, same branches),
with lane enable applied where the Machine applies it; no guard spans two instructions.
Whatever cannot be translated faithfully
raises :class:`NotCompiled` with the reason; the caller then runs the Machine, so a program is
either compiled exactly or not compiled at all. Static facts are computed by the Machine's own
code on a shadow of its counters (``addr_mod_slot``, ``apply_partial_addr_mod``, ``dst_address``,
``resolve_format``, ``Dst.lane_cells``/``adj16``/``adj32``), never re-derived. The
condition-code instructions are in :mod:`sfpu_sim.compiled.cc_statements`.
"""
from __future__ import annotations

import copy
import functools
import inspect
import re
from types import SimpleNamespace

import numpy as np

from sfpu_sim.compiled.cc_statements import NotCompiled, PredicationOps
from sfpu_sim.compiled.specialize import NotSpecialized, specialize
from sfpu_sim.isa import fields, lanes, lanewise, loadstore
from sfpu_sim.isa.arith import INDIRECT_VA, INDIRECT_VD
from sfpu_sim.isa.integer import sfpshft
from sfpu_sim.isa.lanewise import Semantics
from sfpu_sim.isa.spec import ExecutionError
from sfpu_sim.machine import Machine

LS = loadstore
# The instructions whose snippet calls the chip's multiply-add (compiled.inline_fma counts them)
MULTIPLY_ADDS = ("SFPMAD", "SFPADD", "SFPMUL", "SFPADDI", "SFPMULI", "SFPLUT", "SFPLUTFP32")
MASK_MODES = {mnemonic: INDIRECT_VD for mnemonic in ("SFPMAD", "SFPADD", "SFPMUL", "SFPADDI",
                                                     "SFPMULI", "SFPMUL24")}


# A temporary of generated code: lower-case letters and a final underscore (``t_``, ``tf_``).
_TEMPORARY = re.compile(r"\b([a-z]+)_(?![A-Za-z0-9])")


@functools.cache
def _parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


class Translation(PredicationOps):
    """The per-lane body of one program for one starting state, and the state it ends in."""

    def __init__(self, machine: Machine, program, capture_at: int | None,
                 inline_fma: bool = False):
        m = machine
        self.m, self.arch = m, m.arch
        self.fma = f"lane_{m.arch.fma_rules.name}" + ("_inlined" if inline_fma else "")
        self.enable = m.cc.enable
        self.stack = [enable for _, enable in m.cc.stack]      # flags live in s0, s1, ...
        self.start_depth = len(self.stack)
        self.shadow = SimpleNamespace(config=m.config, rwc=copy.copy(m.rwc), arch=m.arch)
        self.lines: list[str] = []
        self.tables: list[str] = []
        self.used: set[int] = set()
        self.written: set[int] = set()
        self.uses_prng = False
        self.semantics_used: set[Semantics] = set()
        self.definitions: set = set()          # every lanewise function written into the lane
        self.imports: set[tuple[str, str, str]] = set()    # what specialised definitions call
        self.configs = 0
        self.cells: dict[int, list] = {}       # Dst offset -> [(lane, is_write)]
        self.k = -1
        self.open_guard: str | None = None
        self.enable_before: list[bool] = []    # CC enable as each instruction starts
        for k, instruction in enumerate(program):
            self.k = k
            self.enable_before.append(self.enable)
            self.open_guard = None             # each instruction's lines stand alone
            if k == capture_at:
                self.emit(f"capture[lane] = {self.read(instruction.vd)}")
            self.translate(k, instruction)
        self._check_cells()

    # ---------------------------------------------------------------------------------------
    def emit(self, line: str) -> None:
        if not line.startswith("#"):
            self.open_guard = None
        self.lines.append(self.temp(line))

    def temp(self, text: str) -> str:
        """``text`` with each temporary (``t_``, ``e_``, ...) made unique to this instruction:
        numba gives a variable one type, and temporaries hold ints here, bools there."""
        return _TEMPORARY.sub(rf"\1_{self.k}", text)

    def read(self, index: int) -> str:
        self.used.add(index)
        return f"r{index}"

    def en(self) -> str:
        """LaneEnabled as an expression (LaneConfig is zero, no backdoor: see translate)."""
        return "f" if self.enable else "True"

    def write(self, vd: int, value: str, when: str) -> None:
        self.guarded(when, *self.assignments(vd, value))

    def assignments(self, vd: int, value: str) -> list[str]:
        """Machine.write: LReg 0-7 and 16 only; others are silently not written."""
        if not (vd < 8 or vd == 16):
            return []
        self.used.add(vd)
        self.written.add(vd)
        return [f"r{vd} = {value}"]

    def guarded(self, when: str, *statements: str) -> None:
        if not statements:
            return
        if when == "True":
            for statement in statements:
                self.emit(statement)
            return
        if when != self.open_guard:      # consecutive statements under one guard share it
            self.emit(f"if {when}:")
        written = [self.temp(s) for s in statements]
        self.lines.extend("    " + s for s in written)
        assigns_guard = self.temp(when) + " = "
        self.open_guard = None if any(s.startswith(assigns_guard) for s in written) else when

    def set_flags(self, value: str, when: str) -> None:
        self.guarded(when, f"f = {value}")

    # ---------------------------------------------------------------------------------------
    def translate(self, k: int, i) -> None:
        op = i.op
        if self.arch.opcodes.get(op.mnemonic) is not op:
            raise NotCompiled(f"instruction {k} ({op.mnemonic}) is not the {self.arch.name} one")
        vd = i.values.get("vd")
        if vd is not None and vd >= 12 and op.backdoor:
            raise NotCompiled(f"instruction {k} ({op.mnemonic} VD {vd}) is a LoadMacro "
                              f"backdoor capture, not compiled")
        if i.mnemonic in MASK_MODES and i.mod1 & (INDIRECT_VA | INDIRECT_VD) or \
                i.mnemonic in ("SFPLUT", "SFPLUTFP32") and i.mode & INDIRECT_VD and vd != 16:
            raise NotCompiled(f"instruction {k} ({op.mnemonic}) addresses registers through L7 "
                              f"(indirect), not compiled")
        emitter = self.semantics if isinstance(op.execute, Semantics) else \
            getattr(self, "op_" + op.mnemonic.replace("_", ""), None)
        if emitter is None:
            raise NotCompiled(f"instruction {k} ({op.mnemonic}) is not compiled")
        self.emit(f"# [{k}] {i!r}")     # no source line: the same words share one cache entry
        try:
            emitter(i)
        except ExecutionError as error:       # the Machine raises it, at the right point
            raise NotCompiled(f"instruction {k} ({op.mnemonic}): {error}") from None

    # --- instructions defined by their lanewise semantics (sfpu_sim.isa.lanewise) -------------
    def semantics(self, i) -> None:
        """The record's own lanewise functions, specialised to this instruction's fields and
        written into the lane (:mod:`sfpu_sim.compiled.specialize`), as the Machine runs them:
        every result computed from the operands before VD, then LaneFlags, is written. They
        are computed in the enabled lanes only (the Machine computes every lane and writes
        the enabled ones: the same bits, without the work for lanes that discard them)."""
        s = i.op.execute
        self.semantics_used.add(s)
        operands = [self.read(where(i)) for where in s.operands]
        constants = [int(getattr(i, name)) for name in s.fields] + \
            [int(getattr(self, name)) for name in s.state]
        statements, assignments = [], []
        if s.value is not None:
            units = [self.units[name] for name in s.units]
            random = [] if s.prng is None else [self._random() if s.prng(i) else 0]
            statements += self._specialized(s.value, [*operands, *random, *constants, *units],
                                            "t_")
            assignments += self.assignments(i.vd, "t_")
        if s.flags is not None and s.sets_flags(i):
            statements += self._specialized(
                s.flags, [*(["t_"] if s.value is not None else []), "np.int64(f)", *operands,
                          *constants], "tf_")
            assignments.append("f = tf_ != 0")
        self.guarded(self.en(), *statements, *assignments)

    def _specialized(self, function, arguments: list | dict, result: str) -> list[str]:
        """``result = function(*arguments)`` (or by name) as the lane's statements."""
        self.definitions.add(function)
        parameters = _parameters(function)
        if isinstance(arguments, dict):
            if set(arguments) != set(parameters):
                raise ValueError(f"{function.__name__} takes {parameters}, not {list(arguments)}")
        else:
            arguments = dict(zip(parameters, arguments, strict=True))
        try:
            done = specialize(function, arguments, result)
        except NotSpecialized as error:
            raise NotCompiled(f"instruction {self.k}: {error}") from None
        self.imports |= done.imports
        return done.lines

    def _lanewise(self, function, arguments: list | dict, result: str) -> None:
        """``result = function(...)``, the lanewise rule written into the lane unguarded."""
        for line in self._specialized(function, arguments, result):
            self.emit(line)

    def _random(self) -> str:
        """The lane's PRNG state, which then steps where the lane is enabled."""
        self.uses_prng = True
        self.emit("pr_ = p")
        self.guarded(self.en(), *self._specialized(lanewise.prng_step, {"state": "p"}, "p"))
        return "pr_"

    @property
    def cc_enable(self) -> bool:
        """UseLaneFlagsForLaneEnable, the same in every lane (the state semantics may read)."""
        return self.enable

    @property
    def plain_product(self) -> bool:
        """Whether SFPMUL reads a +0 addend as -0 (a host's; the state semantics may read)."""
        return self.arch.mul_is_plain_product

    @property
    def units(self) -> dict[str, str]:
        """The datapaths semantics receive, by the names programs call them."""
        return {"multiply_add": self.fma}

    # --- MAD sub-unit --------------------------------------------------------------------------
    # --- loads and stores -----------------------------------------------------------------------
    def _cell_tables(self, address: int, width: int, exchange: int, is_write: bool) -> list[str]:
        """Names of the per-lane Dst offset tables (high half first for 32 bits), registering
        each cell's lanes for the cross-lane check."""
        m = self.m
        rows, cols, _ = m.dst.lane_cells(address, exchange)
        rows, cols = rows[:32], cols[:32]
        physical = [m.dst.adj16(rows)] if width == 16 else [m.dst.adj32(rows)]
        if width == 32:
            physical.append(physical[0] + 8)
        names = []
        for phys in physical:
            if np.any(phys >= m.dst.rows):
                raise NotCompiled(f"a Dst access reaches row {int(np.max(phys))}, beyond the "
                                  f"machine's {m.dst.rows} rows")
            offsets = (phys.astype(np.int64) * m.dst.COLUMNS + cols).tolist()
            for lane, offset in enumerate(offsets):
                self.cells.setdefault(offset, []).append((lane, is_write))
            name = f"CELL{len(self.tables)}"
            self.tables.append(f"{name} = np.array({offsets}, dtype=np.uint64)")
            names.append(name)
        return names

    def _check_cells(self) -> None:
        for offset, touches in self.cells.items():
            if len({lane for lane, _ in touches}) > 1 and any(w for _, w in touches):
                raise NotCompiled(f"two lanes of an SFPU meet in Dst cell {offset // 16}, "
                                  f"{offset % 16} (lanes are compiled one after another)")

    def _address(self, i, mnemonic: str, sp_step: int):
        sh = self.shadow
        mode = LS.resolve_format(sh, i.mod0)
        int32_all = mode == LS.INT32_ALL
        slot = Machine.addr_mod_slot(sh, i.addr_mod, mnemonic)
        sp = sh.rwc.sp
        if sp_step < 0 and int32_all and self.arch.int32_all_uses_stack_pointer and sp != 0:
            sp = (sp - sh.config.sfpu_stack_incr) & LS.COUNTER_MASK
        return mode, int32_all, slot, sp, LS.dst_address(sh, i.imm10, int32_all, sp)

    def op_SFPLOAD(self, i):
        mode, int32_all, slot, sp, address = self._address(i, "SFPLOAD", -1)
        if i.vd < 8:
            width = 32 if mode in LS.LOAD_32BIT else 16
            tables = self._cell_tables(address, width, LS.DEST_RD_COL_EXCHANGE, False)
            cell = f"np.int64(dst[g, {tables[0]}[lu]])"
            if width == 32:
                cell = f"(({cell} << 16) | np.int64(dst[g, {tables[1]}[lu]]))"
            when = "True" if int32_all else self.en()
            self.guarded(when, f"c_ = {cell}", *self._specialized(LS.load_datum, {
                "cell": "c_", "old": f"r{i.vd}", "fp16a_inf": 0, "mode": mode,   # LaneConfig 0
                "sign_magnitude": int(self.arch.sign_magnitude_conversions),
                "int8_bits": self.arch.load_int8_magnitude_bits}, "t_"), f"r{i.vd} = t_")
            self.used.add(i.vd)
            self.written.add(i.vd)
        self.shadow.rwc.sp = sp
        Machine.apply_partial_addr_mod(self.shadow, slot)

    def op_SFPSTORE(self, i):
        mode, int32_all, slot, _, address = self._address(i, "SFPSTORE", 0)
        width = 32 if mode in LS.STORE_32BIT else 16
        tables = self._cell_tables(address, width, LS.DEST_WR_COL_EXCHANGE, True)
        x = self.read(i.vd)
        when = "True" if int32_all else self.en()
        stores = [*self._specialized(LS.store_datum, {
            "x": x, "mode": mode, "sign_magnitude": int(self.arch.sign_magnitude_conversions),
            "bf16_rounds": int(self.arch.bf16_store_rounds),
            "fp32_flushes": int(self.arch.fp32_store_flushes)}, "c_")]
        if width == 16:
            stores.append(f"dst[g, {tables[0]}[lu]] = c_ & 0xFFFF")
        else:
            stores += [f"dst[g, {tables[0]}[lu]] = c_ >> 16",
                       f"dst[g, {tables[1]}[lu]] = c_ & 0xFFFF"]
        self.guarded(when, *stores)
        if int32_all and self.arch.int32_all_uses_stack_pointer:
            rwc = self.shadow.rwc
            rwc.sp = (rwc.sp + self.shadow.config.sfpu_stack_incr) & LS.COUNTER_MASK
        Machine.apply_partial_addr_mod(self.shadow, slot)

    # --- simple sub-unit: fields, integers, moves -----------------------------------------------
    def op_SFPMOV(self, i):
        when = "True" if i.mod1 == 2 else self.en()
        if not i.mod1 & 8:
            self.guarded(when, *self._specialized(fields.moved, {
                "vc": self.read(i.vc), "mod1": i.mod1}, "t_"), *self.assignments(i.vd, "t_"))
        elif i.vc == 9:                    # the PRNG: returns the state, steps it
            self.uses_prng = True
            self.emit("t_ = p")
            self.guarded(when, *self._specialized(lanewise.prng_step, {"state": "p"}, "p"))
            self.write(i.vd, "t_", when)
        elif i.vc < 9:
            raise NotCompiled("SFPMOV from LoadMacro state is not compiled")
        else:                              # LaneConfig (zero here) or nothing
            self.write(i.vd, "0", when)

    def op_SFPNOP(self, i):
        pass

    # --- conversions --------------------------------------------------------------------------
    # --- lane movement and configuration -------------------------------------------------------
    def op_SFPSWAP(self, i):
        c, d = self.read(i.vc), self.read(i.vd)
        self.emit(f"tc_, td_ = {c}, {d}")
        self._lanewise(lanes.swaps, {                      # LaneConfig is zero: no exchange
            "vc": "tc_", "vd": "td_", "lane": "l", "exchange": 0, "mod1": i.mod1,
            "vd_gets_min": lanes.VD_GETS_MIN.get(i.mod1, 0)}, "sw_")
        self.emit(f"sx_ = {'f and ' if self.en() != 'True' else ''}sw_ != 0")
        self.write(i.vc, "td_", "sx_")
        self.write(i.vd, "tc_", "sx_")

    def op_SFPSHFT2(self, i):
        if i.mod1 < lanes.SHFT_LREG:
            raise NotCompiled(f"SFPSHFT2 mode {i.mod1} moves values between lanes")
        self.guarded(self.en(), *self._specialized(sfpshft, {
            "vc": self.read(i.vc), "vb": self.read(i.imm12 & 15), "imm12": i.imm12,
            "mod1": lanes.shift_mode(i.mod1)}, "t_"), *self.assignments(i.vd, "t_"))

    def op_SFPCONFIG(self, i):
        vd, mod1 = i.vd, i.mod1
        if vd < 9 or vd == 15:
            state = "LaneConfig" if vd == 15 else "LoadMacro state"
            raise NotCompiled(f"SFPCONFIG VD {vd} writes {state}, not compiled")
        if vd < 11:
            return                                             # NonContractual: nothing
        k = self.configs
        self.configs += 1
        self.read(0)
        self.guarded("l < 8", f"cfgv[{k}, lu] = r0", f"cfgf[{k}, lu] = f")   # grid row 0 first
        self.emit("lanes_meet()")               # before any lane reads what lanes 0-7 wrote
        self._lanewise(lanes.config_writes, {
            "column": "l & 7", "row0_flag": f"cfgf[{k}, lu & SEVEN]", "imm16": i.imm16,
            "mod1": mod1, "cc_enable": int(self.enable)}, "cw_")
        self._lanewise(lanes.constant_register, {
            "src": f"cfgv[{k}, lu & SEVEN]", "mod1": mod1,
            "default": self.arch.constant_lregs[vd]}, "cv_")
        self.used.add(vd)
        self.written.add(vd)
        self.guarded("cw_ != 0", f"r{vd} = cv_")
