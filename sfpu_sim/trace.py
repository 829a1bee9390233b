"""Per-instruction, per-lane history of a run: which registers, flags and Dst cells each
instruction changed in the lanes being watched, and the first divergence between two runs.

Owns: recording and comparing histories. Knows nothing of how instructions compute; it only
looks at machine state before and after each step.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sfpu_sim.isa.spec import Instruction, IsaError


@dataclass(frozen=True)
class Change:
    """One watched value an instruction changed. ``where`` is ``"L3"``, ``"L16"``, ``"flag"``,
    ``"cc.enable"``, ``"cc.depth"``, ``"dst@A"`` (the Dst cell a lane loads at address A, in
    the Dst format ``fmt``) or ``"dst[row][col]"`` (raw storage, when no addresses are
    watched); ``lane`` is None for values shared by all lanes; ``width`` is 32 for register
    values and FP32 cells, 16 for BF16 and raw cells, 1 for flags."""
    where: str
    lane: int | None
    before: int
    after: int
    width: int = 32
    fmt: str = ""


@dataclass
class Step:
    index: int
    instruction: Instruction
    changes: list[Change] = field(default_factory=list)


class Trace:
    """Records every instruction a machine executes and what it changed in ``lanes``. With
    ``dst_addresses`` (the SFPLOAD/SFPSTORE addresses of a program) Dst is watched as the
    value each traced lane loads from each address, in the Dst format the configuration
    selects; without, as raw storage cells of the traced lanes' SFPUs."""

    def __init__(self, machine, lanes, dst_addresses=None):
        self.lanes = [int(lane) for lane in lanes]
        self.dst_addresses = None if dst_addresses is None else sorted(set(dst_addresses))
        for lane in self.lanes:
            if not 0 <= lane < machine.lanes:
                raise IsaError(f"trace lane {lane} out of range (0..{machine.lanes - 1})")
        self.groups = sorted({lane // 32 for lane in self.lanes})
        self.steps: list[Step] = []

    def snapshot(self, m) -> dict:
        lanes = self.lanes
        state = {"lreg": np.asarray(m.lreg)[:, lanes].copy(),
                 "macro": m.lreg_macro[lanes].copy(), "flags": m.cc.flags[lanes].copy(),
                 "enable": bool(m.cc.enable), "depth": m.cc.depth}
        if self.dst_addresses is None:
            state["dst"] = m.dst.bits[self.groups].copy()
        else:
            fmt = "fp32" if m.config.sfpu_fp32 else "bf16"
            state["dst_fmt"] = fmt
            state["cells"] = {a: m.dst.read_lanes(a, fmt)[lanes] for a in self.dst_addresses}
        return state

    def record(self, index: int, instruction: Instruction, before: dict, after: dict) -> Step:
        step = Step(index, instruction)
        for position, lane in enumerate(self.lanes):
            for reg in np.flatnonzero(before["lreg"][:, position] != after["lreg"][:, position]):
                step.changes.append(Change(f"L{reg}", lane, int(before["lreg"][reg, position]),
                                           int(after["lreg"][reg, position])))
            if before["macro"][position] != after["macro"][position]:
                step.changes.append(Change("L16", lane, int(before["macro"][position]),
                                           int(after["macro"][position])))
            if before["flags"][position] != after["flags"][position]:
                step.changes.append(Change("flag", lane, int(before["flags"][position]),
                                           int(after["flags"][position]), 1))
        for key in ("enable", "depth"):
            if before[key] != after[key]:
                step.changes.append(Change(f"cc.{key}", None, int(before[key]), int(after[key]),
                                           1 if key == "enable" else 8))
        if "cells" in after:
            fmt = after["dst_fmt"]
            for address, cells in after["cells"].items():
                for position in np.flatnonzero(before["cells"][address] != cells):
                    step.changes.append(Change(
                        f"dst@{address}", self.lanes[position],
                        int(before["cells"][address][position]), int(cells[position]),
                        32 if fmt == "fp32" else 16, fmt))
            self.steps.append(step)
            return step
        changed = np.argwhere(before["dst"] != after["dst"])
        for group_pos, row, col in changed:
            step.changes.append(Change(f"dst[{row}][{col}]", None,
                                       int(before["dst"][group_pos, row, col]),
                                       int(after["dst"][group_pos, row, col]), 16))
        self.steps.append(step)
        return step


def first_divergence(a: Trace, b: Trace) -> tuple[int, Change | None, Change | None] | None:
    """The first step at which two traces of the same lanes changed different things, as
    (step index, change in a, change in b), or None if they agree throughout."""
    for step_a, step_b in zip(a.steps, b.steps):
        changes_a = {(c.where, c.lane): c for c in step_a.changes}
        changes_b = {(c.where, c.lane): c for c in step_b.changes}
        for key in sorted(set(changes_a) | set(changes_b), key=str):
            ca, cb = changes_a.get(key), changes_b.get(key)
            if ca is None or cb is None or ca.after != cb.after:
                return step_a.index, ca, cb
    return None
