"""A kernel on the per-instruction Machine with its exact shadow beside it, lane by lane.

Owns: :class:`RecordingMachine` (a Machine that keeps, per step, the LRegs before and after,
the register each write targeted in which lanes, and what the rules need from the state before
the step), the shadow state of one lane (its LRegs and the Dst cells the kernel stored) and the
record of one instruction in one lane (:class:`LaneStep`, with its errors). Knows nothing of
references, ULP conventions or where a kernel is registered.

Execution is the Machine's own (``Machine.step``, the reference path); the recorder only
looks. The shadow follows the device's decisions: lane enables (the CC state of the run),
LUT segments, SFPSWAP's swaps. It runs per lane in Python (exact numbers are Python objects),
which is why it is meant for a handful of lanes, not a sweep.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from mpmath import mpf

from sfpu_sim import formats
from sfpu_sim.asm import decode
from sfpu_sim.isa import exact
from sfpu_sim.isa import lut as lut_isa
from sfpu_sim.isa.exact import Sign, Twin, fp32_value
from sfpu_sim.isa.exact_rules import DEVICE, LOAD, STORE, Operands, Result
from sfpu_sim.isa.loadstore import BF16, FP16, FP32, dst_address, resolve_format
from sfpu_sim.isa.spec import (
    BLOCK_DEST_WR_FROM_SFPU,
    DEST_RD_COL_EXCHANGE,
    DEST_WR_COL_EXCHANGE,
    Instruction,
)
from sfpu_sim.machine import Machine

MACRO = 16                    # row of LReg[16] (the SFPLOADMACRO scratch) in a snapshot
WRITABLE = frozenset({*range(8), MACRO})
FLOAT_DST = {FP16: ("fp16", 16), BF16: ("bf16", 16), FP32: ("fp32", 32)}
TO_FP32 = {"bf16": formats.bf16_to_fp32_bits, "fp16": formats.fp16a_to_fp32_bits,
           "fp32": lambda bits: bits}


# --------------------------------------------------------------------------------------------
# Recording
# --------------------------------------------------------------------------------------------

def dst_cell(m: Machine, i: Instruction):
    """Where a float SFPLOAD / SFPSTORE goes, as ``(address, fmt, key)`` with the shadow-Dst
    ``key`` (address bit 0 selects no cell; 16- and 32-bit views are different cells); None
    for integer formats, swapped columns or the LoadMacro backdoor (the shadow then follows
    the device)."""
    mode = resolve_format(m, i.mod0)
    exchanged = (m.lane_config & (DEST_RD_COL_EXCHANGE | DEST_WR_COL_EXCHANGE)).any()
    if mode not in FLOAT_DST or exchanged or (i.mnemonic == "SFPSTORE" and i.vd >= 12):
        return None
    fmt, width = FLOAT_DST[mode]
    address = dst_address(m, i.imm10, False, m.rwc.sp)
    return address, fmt, (address & ~1, width)


PROBES = {"SFPLUT": lut_isa.sfplut_entries, "SFPLUTFP32": lut_isa.sfplutfp32_entries,
          "SFPLOAD": dst_cell, "SFPSTORE": dst_cell}


@dataclass
class Step:
    """One executed instruction: LRegs 0-15 and 16 before and after (17 x lanes), the writes
    ``(target, lanes)`` (target a register or a per-lane array of them), what PROBES found
    before it, and for a float SFPSTORE the lanes it stored in and the stored values read back
    from Dst as FP32 patterns."""
    index: int
    instruction: Instruction
    before: np.ndarray
    after: np.ndarray
    writes: list
    probed: object = None
    store_lanes: np.ndarray | None = None
    stored: np.ndarray | None = None


class RecordingMachine(Machine):
    """A :class:`Machine` that records every step as a :class:`Step` in ``steps``."""

    def reset(self) -> None:
        super().reset()
        self.steps: list[Step] = []
        self._writes = None

    def write(self, vd, values, lanes=None) -> None:
        lanes = self.lane_enabled() if lanes is None else lanes
        if self._writes is not None:
            self._writes.append((np.array(vd, copy=True),
                                 np.array(np.broadcast_to(lanes, (self.lanes,)), dtype=bool)))
        super().write(vd, values, lanes)

    def _registers(self) -> np.ndarray:
        return np.vstack([np.asarray(self.lreg), self.lreg_macro[None]])

    def step(self, instruction) -> None:
        if not isinstance(instruction, Instruction):
            instruction = decode(int(instruction), self.arch)
        probe = PROBES.get(instruction.mnemonic)
        probed = probe(self, instruction) if probe else None
        store_lanes = None
        if instruction.mnemonic == "SFPSTORE" and probed is not None:
            store_lanes = self.lane_enabled() & \
                ((self.lane_config & BLOCK_DEST_WR_FROM_SFPU) == 0)
        before, index = self._registers(), self.executed
        self._writes = []
        try:
            super().step(instruction)
        finally:
            writes, self._writes = self._writes, None
        record = Step(index, instruction, before, self._registers(), writes, probed,
                      store_lanes)
        if store_lanes is not None:
            address, fmt, _ = probed
            record.stored = TO_FP32[fmt](self.dst.read_lanes(address, fmt))
        self.steps.append(record)


# --------------------------------------------------------------------------------------------
# One lane's shadow
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Read:
    """A register an instruction read in a lane: the instruction that last wrote it
    (``producer``, -1 for the state before the program), its device value and shadow;
    ``operand``: its error counts towards the instruction's (a sign source's or a bit
    operation's input's does not); ``sign``: only its sign was read (an error in it cannot
    reach the result, short of flipping the sign)."""
    reg: int
    producer: int
    device: mpf
    shadow: mpf
    operand: bool = True
    sign: bool = False

    @property
    def error(self) -> float | None:
        return exact.relative_error(self.device, self.shadow)


@dataclass
class LaneStep:
    """One instruction in one lane: ``kind`` (:data:`~sfpu_sim.isa.exact_rules.KINDS`), the
    register shown (``register``; None for a store, whose value is the Dst cell read back),
    the device's result (``device_bits``, ``device``) and its twin (``twin.shadow``, and
    ``twin.device``: the exact result on the device's operands), and what it read."""
    index: int
    instruction: Instruction
    kind: str
    register: int | None
    device_bits: int
    device: mpf
    twin: Twin
    reads: list[Read] = field(default_factory=list)

    @property
    def shadow(self) -> mpf:
        return self.twin.shadow

    @property
    def error(self) -> float | None:
        """Relative error of the device value against the shadow."""
        return exact.relative_error(self.device, self.shadow)

    @property
    def error_ulp(self) -> float | None:
        """The same in FP32 ULP at the shadow value."""
        return exact.fp32_ulp_error(self.device, self.shadow)

    @property
    def added(self) -> float | None:
        """Relative error the instruction added by itself: its device result against its
        exact result on the device's operands."""
        return exact.relative_error(self.device, self.twin.device)

    @property
    def added_ulp(self) -> float | None:
        return exact.fp32_ulp_error(self.device, self.twin.device)

    @property
    def inherited(self) -> float | None:
        """The largest relative error (device against shadow) among its operands; 0 without."""
        errors = [read.error for read in self.reads if read.operand]
        if any(e is None for e in errors):
            return None
        return max(errors, default=0.0)

    @property
    def growth(self) -> float | None:
        """``error - inherited``: how much the relative error grew at this instruction."""
        error, inherited = self.error, self.inherited
        if error is None or inherited is None or (error == inherited == np.inf):
            return None
        return error - inherited

    @property
    def kappa(self) -> float:
        return self.twin.kappa


class LaneShadow(Operands):
    """The shadow state of one lane: the registers whose shadow differs from the device's
    value (absent: it is the device's value), the instruction that last wrote each register,
    and the Dst cells the kernel stored (key -> (shadow, approximate, producer))."""

    def __init__(self, lane: int):
        self.lane = lane
        self.values: dict[int, tuple[mpf, bool]] = {}
        self.producers: dict[int, int] = {}
        self.dst: dict = {}
        self.step: Step | None = None
        self.reads: list[Read] = []

    # Operands, as the rules see them ---------------------------------------------------------
    def bits(self, reg: int) -> int:
        return int(self.step.before[reg, self.lane])

    def _read(self, reg: int, operand: bool) -> tuple[mpf, mpf, bool]:
        device = fp32_value(self.bits(reg))
        shadow, approximate = self.values.get(reg, (device, False))
        self.reads.append(Read(reg, self.producers.get(reg, -1), device, shadow, operand,
                               sign=not operand))
        return device, shadow, approximate

    def twin(self, reg: int) -> Twin:
        device, shadow, approximate = self._read(reg, True)
        return Twin(shadow, device, approximate)

    def sign(self, reg: int) -> Sign:
        device, shadow, _ = self._read(reg, False)
        device_negative = bool(self.bits(reg) >> 31)
        return Sign(shadow < 0 if shadow != 0 else device_negative, device_negative)

    def probed(self):
        probed = self.step.probed
        if self.step.instruction.mnemonic == "SFPLOAD":
            return self._stored_twin(probed)
        return tuple(int(array[self.lane]) for array in probed)

    def _stored_twin(self, cell) -> Twin | None:
        """The twin an SFPLOAD reads: the shadow the kernel stored at that cell, if any."""
        if cell is None or cell[2] not in self.dst:
            return None
        shadow, approximate, producer, device = self.dst[cell[2]]
        self.reads.append(Read(-1, producer, device, shadow))
        loaded = fp32_value(self.step.after[self.step.instruction.vd, self.lane])
        return Twin(shadow, loaded, approximate)

    # Stepping --------------------------------------------------------------------------------
    def targets(self, step: Step) -> list[int]:
        """Registers the step wrote in this lane, in write order (recorded writes first,
        then registers that changed some other way, e.g. SFPCONFIG's constants)."""
        lane, out = self.lane, []
        for target, lanes in step.writes:
            if lanes[lane]:
                reg = int(target if target.ndim == 0 else target[lane])
                if reg in WRITABLE and reg not in out:
                    out.append(reg)
        changed = np.flatnonzero(step.before[:, lane] != step.after[:, lane])
        return out + [int(reg) for reg in changed if int(reg) not in out]

    def run(self, step: Step) -> LaneStep | None:
        """Apply one step's shadow in this lane; the record of it, or None if the instruction
        wrote nothing here."""
        self.step, self.reads = step, []
        instruction, lane = step.instruction, self.lane
        targets = self.targets(step)
        stores = step.store_lanes is not None and bool(step.store_lanes[lane])
        if not targets and not stores:
            return None
        rule = instruction.op.shadow          # the record's exact rule, if it has one
        result = rule(instruction, self) if rule is not None else Result(DEVICE)
        if stores:
            return self._store(step, result.value)
        shown = instruction.values.get("vd")
        shown = shown if shown in targets else targets[0]
        record = None
        for reg in targets:
            twin = result.value.get(reg) if isinstance(result.value, dict) else result.value
            kind = result.kind
            device = fp32_value(step.after[reg, lane])
            if twin is None:
                twin, kind = Twin(device, device), (LOAD if kind == LOAD else DEVICE)
                self.values.pop(reg, None)
            else:
                self.values[reg] = (twin.shadow, twin.approximate)
            self.producers[reg] = step.index
            if reg == shown:
                reads = self._dependencies(kind)
                if result.moved and reg in result.moved:
                    reads = [read for read in reads if read.reg == result.moved[reg]]
                record = LaneStep(step.index, instruction, kind, reg, int(step.after[reg, lane]),
                                  device, twin, reads)
        return record

    def _dependencies(self, kind: str) -> list[Read]:
        """What the record depends on: the rule's reads, or for a device value the
        registers the instruction reads (its static view), as non-operands."""
        if kind != DEVICE:
            return self.reads
        instruction = self.step.instruction
        regs = sorted(r for r in instruction.op.reads(instruction) if r <= MACRO)
        return [Read(r, self.producers.get(r, -1), mpf(0), mpf(0), False) for r in regs]

    def _store(self, step: Step, twin: Twin) -> LaneStep:
        bits = int(step.stored[self.lane])
        device = fp32_value(bits)
        self.dst[step.probed[2]] = (twin.shadow, twin.approximate, step.index, device)
        return LaneStep(step.index, step.instruction, STORE, None, bits, device, twin,
                        self.reads)

    def register_value(self, step: Step, reg: int) -> tuple[mpf, bool]:
        """The shadow of ``reg`` before ``step`` (for the final value of a lane)."""
        self.step = step
        return self.values.get(reg, (fp32_value(self.bits(reg)), False))


def shadow_lanes(steps: list[Step], count: int, final_store: int):
    """Run the shadow of every recorded step in lanes ``0..count-1``. Returns, per lane, the
    list of :class:`LaneStep` (instructions that wrote nothing there are left out) and the
    shadow of the register the step at index ``final_store`` (an SFPSTORE) stores, with
    whether it is approximate."""
    records, finals = [], []
    for lane in range(count):
        state, rows, final = LaneShadow(lane), [], None
        for step in steps:
            if step.index == final_store:
                final = state.register_value(step, step.instruction.vd)
            row = state.run(step)
            if row is not None:
                rows.append(row)
        records.append(rows)
        finals.append(final)
    return records, finals
