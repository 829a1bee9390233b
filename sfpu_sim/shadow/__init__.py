"""Where precision is lost: a kernel's device run with the same dataflow in exact arithmetic
beside it (the *shadow*), per lane and per instruction.

Owns: running the shadow of every instruction (the exact rule its record holds,
:mod:`~sfpu_sim.isa.exact_rules`, on exact numbers of :mod:`~sfpu_sim.isa.exact`) beside the
per-instruction Machine (:mod:`~sfpu_sim.shadow.recording`), and what is concluded from it
(:mod:`~sfpu_sim.shadow.locator`: errors per instruction, where the error grows, where values
cancel, the split of the final error into approximation, datapath and store;
:mod:`~sfpu_sim.shadow.json_form`: its JSON form). Knows nothing of reports or terminals.

    from sfpu_sim.shadow import locate
    found = locate("tanh", "wormhole", inputs=[0x3f99])      # or worst=20
    lane = found.lanes[0]
    lane.split, lane.located.step, lane.located.why, found.instructions()
"""
from sfpu_sim.shadow.json_form import DEFINITIONS
from sfpu_sim.shadow.locator import LaneReport, Located, LocateError, Split, locate, true_value

__all__ = ["locate", "Located", "LaneReport", "Split", "LocateError", "DEFINITIONS",
           "true_value"]
