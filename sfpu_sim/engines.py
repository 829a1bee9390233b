"""Which engine runs a kernel program: the session's choice (``--engine``, ``$SFPU_SIM_ENGINE``).

Owns: the engine names, this process's default engine, and what "auto" means for long runs.
The engines themselves are :class:`~sfpu_sim.machine.Machine` (per instruction),
:mod:`sfpu_sim.compiled` (one compiled per-lane function on the CPU) and
:mod:`sfpu_sim.compiled.gpu` (the same per-lane code on an NVIDIA GPU); all give the same bits.
:func:`sfpu_sim.sweeps.run_device` applies the choice. Knows nothing of programs or sweeps.
"""
from __future__ import annotations

import os

from sfpu_sim.compiled import gpu
from sfpu_sim.errors import SfpuSimError

ENGINES = ("auto", "compiled", "machine", "cuda")
ENGINE_VARIABLE = "SFPU_SIM_ENGINE"
_session_engine: str | None = None            # --engine, for this process


class EngineError(SfpuSimError):
    pass


def default_engine() -> str:
    """The engine a run uses when none is named: ``--engine`` (:func:`set_engine`), else
    ``$SFPU_SIM_ENGINE``, else "auto"."""
    name = _session_engine or os.environ.get(ENGINE_VARIABLE) or "auto"
    if name not in ENGINES:
        raise EngineError(f"${ENGINE_VARIABLE} is {name!r}: choose from {', '.join(ENGINES)}")
    return name


def set_engine(name: str | None) -> None:
    """Make ``name`` this process's engine (None: back to the default); "cuda" where no GPU
    can run it is refused here, in one line."""
    global _session_engine
    if name is not None and name not in ENGINES:
        raise EngineError(f"--engine {name!r}: choose from {', '.join(ENGINES)}")
    if name == "cuda":
        gpu.require()
    _session_engine = name


def long_run_engine(engine: str | None = None) -> str:
    """The engine for many chunks of one program (FP32 sweeps): ``engine`` (default: the
    session's), where "auto" is a GPU when one is present, else the CPU's compiled code."""
    engine = engine or default_engine()
    if engine != "auto":
        return engine
    return "cuda" if gpu.has_gpu() else "compiled"
