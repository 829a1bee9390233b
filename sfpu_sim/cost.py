"""Static cost of a kernel program: instructions and issue slots per datum, per class and chip.

Owns: counting, nothing else. It is a *static estimate* from the instruction stream — one issue
slot per instruction plus the documented single-cycle stalls — never a measurement: it knows
nothing of the matrix unit, the packer or Dst contention, and counts an SFPLOADMACRO as the one
issue slot it takes, not what it schedules (reviewers want accuracy and cost in one table,
as in tt-metal PRs #33563 and #32968, and an estimate labelled as one: issue #54317).

Model (tt-isa-documentation ``VectorUnit.md``, ``SFPSWAP.md``, ``SFPSHFT2.md``): the thread
issues one SFPU instruction per cycle. An SFPSWAP not followed by an SFPNOP stalls one cycle
(both chips); on Blackhole so do SFPSHFT2 modes 2/3/4 (Wormhole programs carry explicit
SFPNOPs instead, counted as NOPs). One loop iteration processes 32 datums (one per lane; a
body may cover several, ``Program.row_groups``); a 32x32 tile is 32 iterations (8 per face, 4
faces); the init (constants, tables) runs once per kernel launch and is reported apart.
"""
from __future__ import annotations

from dataclasses import dataclass

from sfpu_sim.isa.records import COST_CLASSES
from sfpu_sim.isa.spec import Program

LANES = 32
ITERATIONS_PER_TILE = 32

def instruction_class(instruction) -> str:
    """What an instruction's issue slot is counted as: its record's cost class."""
    return instruction.op.cost_class


@dataclass(frozen=True)
class Cost:
    """Counts for one program on one chip. ``body`` covers ``row_groups`` loop iterations of
    32 datums each (1 for a kernel written per iteration)."""
    arch: str
    init_instructions: int
    body_instructions: int
    body_stall_cycles: int
    by_class: dict
    row_groups: int = 1

    @property
    def body_issue_slots(self) -> int:
        return self.body_instructions + self.body_stall_cycles

    def as_dict(self) -> dict:
        slots = self.body_issue_slots / self.row_groups if self.row_groups > 1 else \
            self.body_issue_slots
        lanes = LANES * self.row_groups
        return {
            "label": "static estimate of issue slots from the instruction stream, not measured "
                     "cycles",
            "arch": self.arch,
            "init_instructions": self.init_instructions,
            "body_instructions": self.body_instructions,
            "body_stall_cycles": self.body_stall_cycles,
            "issue_slots_per_iteration": slots,
            "issue_slots_per_datum": slots / LANES,
            "issue_slots_per_tile": slots * ITERATIONS_PER_TILE,
            "instructions_per_datum_by_class": {k: v / lanes for k, v in self.by_class.items()},
            "instructions_by_class": dict(self.by_class),
        }


def estimate(program: Program) -> Cost:
    """Count ``program`` (its first ``init_length`` instructions are the init)."""
    body = list(program.instructions[program.init_length:])
    by_class: dict[str, int] = {}
    for ins in body:
        name = instruction_class(ins)
        by_class[name] = by_class.get(name, 0) + 1
    stalls = 0
    for k, ins in enumerate(body):
        nxt = body[k + 1].mnemonic if k + 1 < len(body) else None
        if nxt == "SFPNOP":
            continue
        if ins.mnemonic == "SFPSWAP":
            stalls += 1
        elif ins.mnemonic == "SFPSHFT2" and ins.mod1 in (2, 3, 4) and \
                program.arch.shuffles_stall:
            stalls += 1
    ordered = {name: by_class[name] for name in COST_CLASSES if name in by_class}
    return Cost(program.arch.name, program.init_length, len(body), stalls, ordered,
                program.row_groups)
