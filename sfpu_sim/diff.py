"""Two programs on the same inputs: which lanes differ, and the first instruction where the two
runs' state parts.

Owns: running two Programs side by side on the per-instruction Machine (the reference path),
recording what each instruction writes in the lanes whose outputs differ, aligning the two
instruction streams, and naming the first aligned instruction whose written values differ.
Knows nothing of references or ULP: "differ" means different bits.

Alignment. Programs of the same shape (the same mnemonics in the same order) are compared
instruction by instruction. Otherwise the streams are aligned on (mnemonic, source line) with
difflib's longest matching blocks, and only matched instructions are compared; the result says
which alignment was used. What an instruction writes is the value of each LReg it writes
(``Opcode.writes``), the lane flags for the CC instructions, and the stored value for SFPSTORE.
"""
from __future__ import annotations

import difflib
import warnings
from dataclasses import dataclass

import numpy as np

from sfpu_sim.asm import format_instruction
from sfpu_sim.display import describe
from sfpu_sim.isa.spec import LREG, Program
from sfpu_sim.machine import ProgramWarning
from sfpu_sim.sweeps import DevicePath, device_machine, device_output, run_device

# Divergence is looked for in at most this many differing lanes, the first in input order
# (recording every instruction's writes costs memory per lane); the result states the cap.
MAX_TRACKED_LANES = 4096
EXAMPLES = 5


@dataclass
class DiffResult:
    """``differing``: input patterns whose outputs differ; ``first_divergence``: the
    instruction in A and B where the followed lanes part, how many part there (``lanes``) of
    the ``lanes_tracked`` followed (at most ``lanes_tracked_limit``, the first of the
    ``lanes_differing`` in input order), or None; ``alignment``: how instructions were
    paired."""
    inputs: np.ndarray
    output_a: np.ndarray
    output_b: np.ndarray
    alignment: str
    first_divergence: dict | None

    @property
    def differing(self) -> np.ndarray:
        return self.output_a != self.output_b

    def as_dict(self, labels=("A", "B")) -> dict:
        differ = self.differing
        examples = [{"input_bits": f"{int(x):#06x}", "a_bits": f"{int(a):#x}",
                     "b_bits": f"{int(b):#x}"}
                    for x, a, b in zip(self.inputs[differ][:EXAMPLES],
                                       self.output_a[differ][:EXAMPLES],
                                       self.output_b[differ][:EXAMPLES])]
        return {"a": labels[0], "b": labels[1], "inputs": int(self.inputs.size),
                "identical_lanes": int((~differ).sum()), "differing_lanes": int(differ.sum()),
                "alignment": self.alignment, "first_divergence": self.first_divergence,
                "examples": examples}


def _written(m, instruction) -> np.ndarray:
    """What ``instruction`` leaves behind, per lane: its written LRegs (stacked), the lane
    flags for CC instructions, or the LReg an SFPSTORE stores."""
    if instruction.mnemonic == "SFPSTORE":
        return np.asarray(m.lreg)[[instruction.vd]]
    regs = sorted(r for r in instruction.op.writes(instruction) if r < 8)
    if regs:
        return np.asarray(m.lreg)[regs]
    return m.cc.flags[None].astype(np.uint32)


def _run_recording(program: Program, inputs, path: DevicePath):
    """Output bits and, per instruction, what it wrote (one array per instruction)."""
    m, inputs = device_machine(program, inputs, path)
    steps = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProgramWarning)
        for instruction in program:
            m.step(instruction)
            steps.append(_written(m, instruction)[:, :inputs.size].copy())
    return device_output(m, path, inputs.size), steps


def _final_outputs(program: Program, inputs, path: DevicePath) -> np.ndarray:
    return run_device(program, inputs, path).output


def _operation(instruction) -> tuple:
    """An instruction without its registers: mnemonic, immediates and modes."""
    return (instruction.mnemonic,) + tuple(
        instruction.values[o.name] for o in instruction.op.operands if o.kind != LREG)


def alignment(a: Program, b: Program) -> tuple[list[tuple[int, int]], str]:
    """Pairs of instruction indices (in A, in B) to compare, and how they were found: one by
    one for programs of the same shape; else the longest matching blocks on (mnemonic, source
    line) or on the operation without its registers, whichever matches more instructions."""
    ma, mb = [i.mnemonic for i in a], [i.mnemonic for i in b]
    if ma == mb:
        return [(k, k) for k in range(len(ma))], "same shape: instruction by instruction"
    best = None
    for what, key in (("mnemonic and source line",
                       lambda i: (i.mnemonic, (i.line_text or "").strip())),
                      ("operation (mnemonic, immediates, modes)", _operation)):
        matcher = difflib.SequenceMatcher(None, [key(i) for i in a], [key(i) for i in b],
                                          autojunk=False)
        pairs = [(block.a + k, block.b + k) for block in matcher.get_matching_blocks()
                 for k in range(block.size)]
        if best is None or len(pairs) > len(best[0]):
            best = (pairs, what)
    pairs, what = best
    return pairs, (f"different shapes ({len(a)} and {len(b)} instructions): {len(pairs)} "
                   f"instructions matched on {what}, the rest not compared")


def _describe(instruction, index: int) -> dict:
    return {"index": index, "mnemonic": instruction.mnemonic,
            "instruction": format_instruction(instruction),
            "source": instruction.source or "", "line": (instruction.line_text or "").strip()}


def diff(a: Program, b: Program, inputs, path: DevicePath = DevicePath()) -> DiffResult:
    """Run ``a`` and ``b`` on ``inputs`` (BF16 patterns) through ``path``; see the module
    docstring."""
    inputs = np.asarray(inputs, dtype=np.uint16)
    out_a, out_b = _final_outputs(a, inputs, path), _final_outputs(b, inputs, path)
    differ = np.flatnonzero(out_a != out_b)
    pairs, how = alignment(a, b)
    first = None
    if differ.size:
        tracked = inputs[differ[:MAX_TRACKED_LANES]]
        _, steps_a = _run_recording(a, tracked, path)
        _, steps_b = _run_recording(b, tracked, path)
        previous = (-1, -1)
        for ia, ib in pairs:
            wa, wb = steps_a[ia], steps_b[ib]
            if wa.shape != wb.shape:
                parted = np.ones(tracked.size, dtype=bool)
            else:
                parted = np.any(wa != wb, axis=0)
            if parted.any():
                lanes = np.flatnonzero(parted)
                unmatched = ([{"program": "A", **_describe(a[k], k)}
                              for k in range(previous[0] + 1, ia)] +
                             [{"program": "B", **_describe(b[k], k)}
                              for k in range(previous[1] + 1, ib)])
                first = {**_describe(a[ia], ia), "index_b": ib,
                         "unmatched_before": unmatched,
                         "lanes": int(parted.sum()), "lanes_tracked": int(tracked.size),
                         "lanes_differing": int(differ.size),
                         "lanes_tracked_limit": MAX_TRACKED_LANES,
                         "examples": [{"input_bits": f"{int(tracked[k]):#06x}",
                                       "a_value": describe(int(wa[0, k]))[0],
                                       "b_value": describe(int(wb[0, k]))[0]
                                       if wb.shape == wa.shape else None}
                                      for k in lanes[:EXAMPLES]]}
                break
            previous = (ia, ib)
    return DiffResult(inputs, out_a, out_b, how, first)
