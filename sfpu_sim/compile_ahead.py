"""Compile ahead of time: the programs a kernel's sweeps and reports run, into the disk caches.

Owns: :func:`warm`, which runs each chosen kernel's program once compiled on every device path
the commands give it (BF16 in and out through its registered Dst; FP32 in and out as FP32
sweeps run a kernel with FP32 Dst; both operands of a binary kernel), and once on the Machine
(compiling the lane loops of its instructions). A later process, a CI job on an image built
with ``sfpu-sim warm`` among them, then finds both compiled (:mod:`sfpu_sim.compiled`'s program
index, numba's cache). Knows nothing of formatting.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from sfpu_sim import binary_device
from sfpu_sim.sweeps import DevicePath, run_device

__all__ = ["Warmed", "warm"]

# A few inputs of each format: the programs' compiled form does not depend on the inputs.
_BF16 = np.array([0x3F80, 0xBF80, 0x4000, 0x0000, 0x7F80, 0x3E00], dtype=np.uint16)
_FP32 = np.array([0x3F800000, 0xBF800000, 0x40490FDB, 0x00000000, 0x7F800000, 0x3E000001],
                 dtype=np.uint32)


@dataclass(frozen=True)
class Warmed:
    """One kernel program on one chip and path: ``compiled`` (now or already), else
    ``reason`` why it runs on the Machine; ``seconds`` spent."""
    kernel: str
    chip: str
    path: str
    compiled: bool
    reason: str | None
    seconds: float

    def as_json(self) -> dict:
        return {"kernel": self.kernel, "chip": self.chip, "path": self.path,
                "compiled": self.compiled, "reason": self.reason,
                "seconds": round(self.seconds, 3)}


def paths(spec) -> list[tuple[str, DevicePath]]:
    """The device paths the commands run ``spec`` on: its registered Dst with BF16 in and out
    (sweep, report, budget, compare), and FP32 in and out where its Dst is FP32 (FP32
    sweeps)."""
    out = [("bf16", DevicePath("bf16", "bf16", spec.dest))]
    if spec.dest == "fp32" and spec.operands == 1:
        out.append(("fp32", DevicePath("fp32", "fp32", spec.dest)))
    return out


def warm(specs, chips: list[str] | None = None) -> Iterator[Warmed]:
    """For each of ``specs`` on each of ``chips`` it runs on (default: all of them), each
    path of :func:`paths`: the program compiled, then on the Machine. Yields as it goes."""
    for spec in specs:
        for chip in [c for c in spec.chips if chips is None or c in chips]:
            program = spec.program(chip)
            for label, path in paths(spec):
                start = time.perf_counter()
                engine = _run(spec, program, path, "compiled")
                _run(spec, program, path, "machine")
                compiled = engine == "compiled"
                reason = None if compiled else engine[len("machine ("):-1] \
                    if engine.startswith("machine (") else engine
                yield Warmed(spec.name, chip, label, compiled, reason,
                             time.perf_counter() - start)


def _run(spec, program, path: DevicePath, engine: str) -> str:
    """The engine that ran ``program`` on a few inputs of ``path``."""
    if spec.operands == 2:
        return binary_device.run_binary_device(program, _BF16, _BF16[::-1].copy(), path,
                                               engine=engine).engine
    inputs, fp32 = (_FP32, True) if path.input_format == "fp32" else (_BF16, False)
    return run_device(program, inputs, path, fp32_inputs=fp32, engine=engine).engine
