"""The SFPLOADMACRO sequencer: instructions waiting on the Simple, MAD, Round and Store
sub-units, and the cycles in which they run beside the instructions the thread issues.

Owns: the pending queue, time (cycles and their delay counts), which instructions run in a
cycle and in what order, when their register writes land, and the scheduling rules of
SFPLOADMACRO.md whose breach is undefined. Knows nothing of what an instruction computes (the
Machine executes it) nor of LoadMacroConfig (:mod:`sfpu_sim.isa.loadmacro` builds what is
scheduled).

While nothing is scheduled the Machine stays sequential and single-issue: a step is one
instruction whose writes land at once, as before. From an SFPLOADMACRO until its last scheduled
instruction has run and its results have landed, a step is one cycle:

* Time. The thread issues one instruction per cycle (one Machine step). A scheduled instruction
  waits ``delay`` counts: delay 0 runs in the cycle right after its SFPLOADMACRO, delay d in the
  cycle after its count went from 1 to 0. Counts drop every cycle, or, while any waiting
  instruction has the "issued instructions" delay kind, only for cycles in which the thread
  issued an instruction (:meth:`Machine.drain` runs cycles that issue nothing).
* A cycle. The issued instruction and the scheduled ones due run together; all read the LRegs
  as they were when the cycle began. LReg results land at the end of the cycle, or at the end
  of the next one for the two-cycle instructions (latency 2: the SFPMAD class and SFPSWAP), so
  a read in the cycle after a two-cycle instruction sees the old value: the Blackhole SFPMAD
  page leaves that gap to software for scheduled instructions, and tt-llk's BF16 reciprocal
  reads a register in exactly that cycle. Other state (flags, Dst, configuration, PRNG, Dst
  counter) changes at once, so readers run before writers.
* Sub-units. The issued instruction goes to its own sub-unit (SFPNOP to none). If a scheduled
  instruction runs there in the same cycle the issued one is silently discarded, as
  SFPLOADMACRO.md documents; the Machine reports it as a hazard (a warning, an error in strict
  mode), since the page tells software never to do it.

Raises :class:`UndefinedBehaviour` for what the pages call undefined or forbid without saying
what happens: two instructions due on one sub-unit (delay 7 cancels nothing); Simple and Round
in one cycle unless exactly one of them writes LReg[16] (†); a scheduled SFPSWAP with anything
but SFPNOP on MAD in its cycle, or with Simple or Round busy in the next (‡; an idle MAD
sub-unit counts as SFPNOP, a reading tt-llk's exp and FP32 reciprocal rely on); two results
landing on one register of one lane in one cycle; a load and a store of one Dst cell in one
cycle; two instructions writing the same flags, configuration or PRNG in one cycle. Raises
:class:`Unsupported` for what is documented but not modelled: a thread stall while macro work
is in flight (after an issued SFPSWAP, Blackhole's SFPSHFT2 shuffles and SFPMAD interlock),
an SFPSWAP whose operands change under its second-cycle re-read.

Sources: tt-isa-documentation ``{WormholeB0,BlackholeA0}/TensixTile/TensixCoprocessor/
SFPLOADMACRO.md`` at f7fda211 (the Wormhole revision 39304719 of 2025-06-12 states † with an
extra VD < 4 alternative and ‡ without its next-cycle clause; the f7fda211 text is followed),
``SFPSWAP.md`` (585749d1: the two-cycle compare / re-read), BlackholeA0 ``SFPMAD.md``
(241b4ead: no automatic stalling for scheduled SFPMADs), ``VectorUnit.md`` (sub-units,
latencies).
"""
from __future__ import annotations

import weakref

import warnings
from dataclasses import dataclass

import numpy as np

from sfpu_sim.isa import cc as cc_isa
from sfpu_sim.isa import loadstore
from sfpu_sim.isa.loadmacro import INSTRUCTIONS, MACRO_LREG
from sfpu_sim.isa.spec import (
    DEST_RD_COL_EXCHANGE,
    DEST_WR_COL_EXCHANGE,
    ENABLE_DEST_INDEX,
    MAD,
    ROUND,
    SIMPLE,
    HazardError,
    HazardWarning,
    Instruction,
    UndefinedBehaviour,
    Unsupported,
)

WRITABLE = frozenset({*range(8), MACRO_LREG})
CC_WRITERS = frozenset({"SFPENCC", "SFPPUSHC", "SFPPOPC", "SFPCOMPC", "SFPSETCC"})
MAX_DRAIN_CYCLES = 64           # delays are at most 7, so any drain ends long before


@dataclass
class Entry:
    """A scheduled instruction: its sub-unit, the counts it still waits (0: runs this cycle),
    its delay kind, and for an SFPSTORE the Dst address its SFPLOADMACRO computed."""
    unit: str
    instruction: Instruction
    wait: int
    kind: str
    address: int | None = None


@dataclass
class Write:
    """An LReg write waiting to land: ``machine.write``'s arguments and who made it."""
    vd: object
    values: np.ndarray
    lanes: np.ndarray
    instruction: Instruction

    def targets(self) -> np.ndarray:
        """The register each lane receives (-1: none; writes to 8-15 are dropped)."""
        vd = np.broadcast_to(np.asarray(self.vd, dtype=np.int64), self.lanes.shape)
        return np.where(self.lanes & np.isin(vd, list(WRITABLE)), vd, -1)


def two_cycle(instruction: Instruction) -> bool:
    """Whether its LReg results land a cycle late: the MAD sub-unit's instructions and SFPSWAP
    (VectorUnit.md: latency 2; SFPSHFT2's two-cycle shuffles are refused when scheduled and
    stall the thread when issued)."""
    return instruction.op.unit == MAD and instruction.mnemonic != "SFPNOP" or \
        instruction.mnemonic == "SFPSWAP"


class Sequencer:
    """The pending queue and the cycle engine of one Machine (module docstring)."""

    def __init__(self, machine):
        self.machine = weakref.proxy(machine)    # the Machine owns it: no cycle
        self.pending: list[Entry] = []
        self.landing: list[Write] = []       # two-cycle results landing at the end of this cycle
        self.after_swap: Instruction | None = None   # ‡: the scheduled SFPSWAP of last cycle
        self.issued_last = True              # did the thread issue in the last cycle

    @property
    def busy(self) -> bool:
        """Whether the next step must run as a cycle of this engine."""
        return bool(self.pending or self.landing) or self.after_swap is not None

    # ----------------------------------------------------------------------------------------
    # Called by SFPLOADMACRO
    def schedule(self, unit: str, instruction: Instruction, delay: int, kind: str,
                 address: int | None) -> None:
        """Queue ``instruction`` on ``unit`` to run ``delay`` counts after this cycle."""
        self.pending.append(Entry(unit, instruction, delay + 1, kind, address))

    def forget(self, unit: str, delay: int) -> None:
        """Drop what ``unit`` has scheduled for the cycle a new ``delay`` would run in."""
        self.pending = [e for e in self.pending if not (e.unit == unit and e.wait == delay + 1)]

    # ----------------------------------------------------------------------------------------
    def run_cycle(self, issued: Instruction | None) -> None:
        """One cycle: the counts drop, the due instructions run beside ``issued`` (None: the
        thread issues nothing), and the writes due at its end land."""
        m = self.machine
        if self.issued_last or not any(e.kind == INSTRUCTIONS for e in self.pending):
            for entry in self.pending:
                entry.wait -= 1
        due = [e for e in self.pending if e.wait <= 0]
        self.pending = [e for e in self.pending if e.wait > 0]
        units: dict[str, Entry] = {}
        for entry in due:
            if entry.unit in units:
                raise UndefinedBehaviour(
                    f"two scheduled instructions run on the {entry.unit} sub-unit in one cycle "
                    f"({units[entry.unit].instruction.source}; {entry.instruction.source})")
            units[entry.unit] = entry
        runs = issued is not None
        if runs and issued.op.unit in units and issued.mnemonic != "SFPNOP":
            self._discard(issued, units[issued.op.unit].instruction)
            runs = False
        if runs:
            self._check_stall(issued)
        self._check_sub_unit_rules(units, issued if runs else None)
        runners = [(e.instruction, e) for e in due] + ([(issued, None)] if runs else [])
        writes: list[Write] = []
        later: list[Write] = []
        m._sink = sink = []
        try:
            for instruction, entry in self._order(runners):
                start = len(sink)
                if entry is None:
                    m.execute_issued(instruction)
                else:
                    m.execute_scheduled(instruction, entry.address)
                made = [Write(vd, v, lanes, instruction) for vd, v, lanes in sink[start:]]
                (later if two_cycle(instruction) else writes).extend(made)
        finally:
            m._sink = None
        landing = writes + self.landing
        self._check_swap_rereads(runners, landing)
        self._land(landing)
        self.landing = later
        self.after_swap = next((e.instruction for e in due
                                if e.instruction.mnemonic == "SFPSWAP"), None)
        self.issued_last = issued is not None
        m.ran(issued if runs else None)

    def drain(self) -> None:
        """Cycles that issue nothing, until nothing is in flight or the waiting instructions
        count issued instructions (they then wait for the next step)."""
        for _ in range(MAX_DRAIN_CYCLES):
            if not self.busy:
                return
            stuck = not self.issued_last and any(e.kind == INSTRUCTIONS for e in self.pending)
            if stuck and not self.landing and self.after_swap is None:
                return
            self.run_cycle(None)
        raise AssertionError("SFPLOADMACRO drain did not end")      # delays are at most 7

    # ----------------------------------------------------------------------------------------
    # Rules
    def _discard(self, issued: Instruction, scheduled: Instruction) -> None:
        """The issued instruction met a scheduled one at its sub-unit and is dropped: a hazard
        (the page says software must not do it), an error in strict mode."""

        m = self.machine
        message = (f"hazard at instruction {m.executed} ({issued.mnemonic}"
                   f"{' at ' + issued.source if issued.source else ''}): {issued.mnemonic} is "
                   f"silently discarded: {scheduled.mnemonic} scheduled by SFPLOADMACRO runs on "
                   f"the {issued.op.unit} sub-unit in the same cycle ({scheduled.source})")
        if m.strict:
            raise HazardError(message)
        warnings.warn(HazardWarning(message, "hazard: an issued instruction meets one "
                                    "SFPLOADMACRO scheduled at its sub-unit and is discarded",
                                    m.executed, issued.source or ""), stacklevel=5)

    def _check_stall(self, issued: Instruction) -> None:
        """The stalls the pages document for an issued instruction: after SFPSWAP unless it is
        SFPNOP (both chips); on Blackhole after the SFPSHFT2 shuffles unless SFPNOP, and after
        an SFPMAD-class instruction whose result it reads through an interlocked operand."""
        m = self.machine
        previous = m.last_ran
        if previous is None or issued.mnemonic == "SFPNOP":
            return
        why = None
        if previous.mnemonic == "SFPSWAP":
            why = "follows an SFPSWAP without an SFPNOP"
        elif m.arch.shuffles_stall and previous.mnemonic == "SFPSHFT2" and \
                previous.mod1 in (2, 3, 4):
            why = "follows an SFPSHFT2 shuffle without an SFPNOP"
        elif m.arch.interlocks_mad and previous.op.unit == MAD and \
                previous.op.writes(previous) & issued.op.reads(issued) and \
                m.arch.hazard(previous, issued) is None:
            why = f"reads the result of the {previous.mnemonic} just before it"
        if why:
            raise Unsupported(f"{issued.mnemonic}{_at(issued)} {why}, which stalls the thread "
                              f"for a cycle on {m.arch.title}; stalls while SFPLOADMACRO work "
                              f"is in flight are not modelled")

    def _check_sub_unit_rules(self, units: dict, issued: Instruction | None) -> None:
        """† and ‡ of SFPLOADMACRO.md (module docstring)."""
        def running(unit):
            if unit in units:
                return units[unit].instruction
            return issued if issued is not None and issued.op.unit == unit else None

        def busy(instruction):
            return instruction is not None and instruction.mnemonic != "SFPNOP"
        simple, mad, rounding = running(SIMPLE), running(MAD), running(ROUND)
        if busy(simple) and busy(rounding) and \
                (simple.values.get("vd") == MACRO_LREG) == (rounding.values.get("vd") ==
                                                            MACRO_LREG):
            raise UndefinedBehaviour(
                f"{simple.mnemonic}{_at(simple)} (Simple) and {rounding.mnemonic}"
                f"{_at(rounding)} (Round) run in one cycle but not exactly one of them writes "
                f"LReg[16] (SFPLOADMACRO.md †)")
        if self.after_swap is not None and (busy(simple) or busy(rounding)):
            other = simple if busy(simple) else rounding
            raise UndefinedBehaviour(
                f"{other.mnemonic}{_at(other)} runs on the {other.op.unit} sub-unit in the "
                f"cycle after the scheduled SFPSWAP{_at(self.after_swap)}, which needs Simple "
                f"and Round idle or SFPNOP then (SFPLOADMACRO.md ‡)")
        if SIMPLE in units and simple.mnemonic == "SFPSWAP" and busy(mad):
            raise UndefinedBehaviour(
                f"{mad.mnemonic}{_at(mad)} runs on the MAD sub-unit in the cycle of the "
                f"scheduled SFPSWAP ({simple.source}), which needs SFPNOP there "
                f"(SFPLOADMACRO.md ‡)")

    def _order(self, runners: list) -> list:
        """The cycle's instructions in an order where every reader of flags, configuration,
        PRNG or Dst cells runs before the instruction that changes them."""
        if len(runners) < 2:
            return runners
        effects = [self._effects(instruction, entry) for instruction, entry in runners]
        before = {k: set() for k in range(len(runners))}       # k must run before these
        for a, (reads_a, writes_a) in enumerate(effects):
            for b, (reads_b, writes_b) in enumerate(effects):
                if a == b:
                    continue
                both = writes_a & writes_b
                if both and a < b:
                    raise UndefinedBehaviour(
                        f"{_name(runners[a])} and {_name(runners[b])} both change "
                        f"{_what(both)} in one cycle")
                if writes_a & reads_b:
                    if any(not isinstance(r, str) for r in writes_a & reads_b):
                        raise UndefinedBehaviour(
                            f"{_name(runners[b])} loads Dst cells that {_name(runners[a])} "
                            f"stores in the same cycle")
                    before[b].add(a)
        ordered, placed = [], set()
        while len(ordered) < len(runners):
            ready = [k for k in range(len(runners)) if k not in placed
                     and not any(j not in placed for j in range(len(runners))
                                 if k in before[j])]
            if not ready:
                names = ", ".join(map(_name, runners))
                raise Unsupported(f"the instructions of one cycle ({names}) read what each "
                                  f"other change; no order reproduces them")
            placed.add(ready[0])
            ordered.append(runners[ready[0]])
        return ordered

    def _effects(self, instruction: Instruction, entry) -> tuple[set, set]:
        """What an instruction reads and changes besides LRegs (whose writes land later)."""
        name = instruction.mnemonic
        if name == "SFPNOP":
            return set(), set()
        reads, writes = {"flags", "configuration"}, set()
        if name == "SFPCONFIG":
            writes.add("configuration")
        mod1, vd = instruction.get("mod1"), instruction.values.get("vd", 0)
        if name in CC_WRITERS or cc_isa.sets_lane_flags(instruction) or \
                (name == "SFPIADD" and mod1 & 8 and vd < 8) or \
                (name in ("SFPGT", "SFPLE") and mod1 & 2):
            writes.add("flags")
        if name == "SFP_STOCH_RND" or (name == "SFPCAST" and mod1 == 1) or \
                (name == "SFPMOV" and mod1 & 8 and instruction.vc == 9):
            reads.add("the PRNG")
            writes.add("the PRNG")
        if name in ("SFPLOAD", "SFPLOADMACRO"):
            reads |= self._dst_cells(instruction, None, load=True)
        elif name == "SFPSTORE":
            writes |= self._dst_cells(instruction, entry, load=False)
        return reads, writes

    def _dst_cells(self, instruction: Instruction, entry, load: bool) -> set:
        """The Dst cells (``("Dst", row, column)`` of the first SFPU) a load or store touches."""
        m = self.machine
        mode = loadstore.resolve_format(m, instruction.mod0)
        if entry is not None:
            address = entry.address
        else:
            imm10 = instruction.values.get("imm10", instruction.values.get("dest_reg_addr"))
            address = loadstore.dst_address(m, imm10, mode == loadstore.INT32_ALL, m.rwc.sp)
        wide = mode in (loadstore.LOAD_32BIT if load else loadstore.STORE_32BIT)
        rows, columns, _ = m.dst.lane_cells(address, DEST_RD_COL_EXCHANGE if load
                                            else DEST_WR_COL_EXCHANGE)
        rows, columns = rows[:32], columns[:32]
        physical = m.dst.adj32(rows) if wide else m.dst.adj16(rows)
        cells = {("Dst", int(r), int(c)) for r, c in zip(physical, columns)}
        if wide:
            cells |= {("Dst", int(r) + 8, int(c)) for r, c in zip(physical, columns)}
        return cells

    def _check_swap_rereads(self, runners: list, landing: list[Write]) -> None:
        """An SFPSWAP compares in its first cycle and re-reads its operands in the second; a
        write landing in between would make the two differ."""
        indexed = bool((self.machine.lane_config & ENABLE_DEST_INDEX).any())
        for instruction, _ in runners:
            if instruction.mnemonic != "SFPSWAP":
                continue
            read = {instruction.vc, instruction.vd} | ({4, 5, 6, 7} if indexed else set())
            for write in landing:
                if write.instruction is not instruction and \
                        set(np.unique(write.targets()).tolist()) & read:
                    raise Unsupported(
                        f"SFPSWAP{_at(instruction)}: {write.instruction.mnemonic}"
                        f"{_at(write.instruction)} changes one of its operands between its "
                        f"compare and its re-read; not modelled")

    def _land(self, landing: list[Write]) -> None:
        """Apply the writes ending this cycle; two instructions writing one register of one
        lane at the same time is undefined."""
        for k, first in enumerate(landing):
            for second in landing[k + 1:]:
                if first.instruction is second.instruction:
                    continue
                a, b = first.targets(), second.targets()
                clash = (a == b) & (a >= 0)
                if clash.any():
                    register = int(a[np.argmax(clash)])
                    raise UndefinedBehaviour(
                        f"{first.instruction.mnemonic}{_at(first.instruction)} and "
                        f"{second.instruction.mnemonic}{_at(second.instruction)} write "
                        f"L{register} in the same cycle")
        for write in landing:
            self.machine.land(write.vd, write.values, write.lanes)


def _at(instruction: Instruction) -> str:
    return f" ({instruction.source})" if instruction.source else ""


def _name(runner) -> str:
    instruction, entry = runner
    return f"{instruction.mnemonic}{_at(instruction)}" + (" (issued)" if entry is None else "")


def _what(resources: set) -> str:
    names = sorted({r if isinstance(r, str) else "Dst cells" for r in resources})
    return ", ".join(names)

