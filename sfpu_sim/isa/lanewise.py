"""An instruction's lanewise semantics, written once, run by every engine.

Owns: :class:`Semantics`, an instruction's functional model as tt-isa-documentation writes it,
one lane at a time: a plain Python function of the lane's operand values (32-bit patterns as
ints) and the instruction's fields, returning the value written to VD; optionally a second
function giving the lane's new LaneFlags. Where the operands come from (which field names which
register) is part of the definition. Knows nothing of machines or programs beyond that.

Both engines derive from the one definition:

- the Machine (:meth:`Semantics.execute`, the record's ``execute``) runs the function over its
  lane axis in a compiled loop: the function compiled once as a C callable (``numba.cfunc``,
  cached on disk) and called per lane by a loop of its arity;
- the compiled engine (:mod:`sfpu_sim.compiled.codegen`) writes the same function's body into
  a program's per-lane code, specialised to the instruction's fields
  (:mod:`sfpu_sim.compiled.specialize`): its tests on fields decided, its returns made
  assignments. A definition is therefore plain straight-line Python: ``if`` and ``return``,
  no loops.

Values are int64 holding 32-bit patterns (0 .. 2**32 - 1): a function masks what could leave
that range. Writes follow the register file's rules (:meth:`Machine.write`: LReg 0-7 and 16,
in the enabled lanes); flags change only where VD < 8, in the enabled lanes.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable

import numba
import numpy as np

from sfpu_sim import fma, jit
from sfpu_sim.fma import _bit_length as bit_length
from sfpu_sim.isa.spec import Instruction, operand_vb
from sfpu_sim.jit import njit
from sfpu_sim.import_closure import imported_files
from sfpu_sim.threads import parallel_for

__all__ = ["SIMPLE_VB", "VA", "VB", "VC", "VD", "Semantics", "helper", "int32", "lanes",
           "leading_zeros32", "source_files"]

M32 = 0xFFFFFFFF
SIGN = 0x80000000


def helper(function: Callable):
    """A function lanewise definitions call (compiled, so that both engines can)."""
    return njit(nogil=True, inline="always")(function)


@helper
def int32(x):
    """The pattern read as a two's complement int32."""
    return (x ^ SIGN) - SIGN


@helper
def leading_zeros32(x):
    """Leading zero bits of a 32-bit pattern (32 for zero): one ctlz instruction."""
    return 32 - bit_length(x)


@helper
def prng_step(state):
    """The PRNG's next state: one step of its LFSR (taps 31, 21, 1, 0; VectorUnit.md)."""
    parity = (state >> 31) ^ (state >> 21) ^ (state >> 1) ^ state
    return ((~parity & 1) << 31) | (state >> 1)


# Where an operand comes from: a function of the instruction giving the LReg index.
def VA(i: Instruction) -> int:
    return i.va


def VB(i: Instruction) -> int:
    return i.vb


def SIMPLE_VB(i: Instruction) -> int:
    """VB as the Simple unit's instructions read it: ``unsigned VB = VD;`` unless
    SFPLOADMACRO chose it."""
    return operand_vb(i)


def VC(i: Instruction) -> int:
    return i.vc


def VD(i: Instruction) -> int:
    return i.vd


# State outside the lanes a definition may read, the same in every lane: name -> its value on
# a Machine (the compiled engine knows it while translating).
STATE = {"cc_enable": lambda m: int(m.cc.enable),
         "plain_product": lambda m: int(m.arch.mul_is_plain_product)}
# Units a definition receives as functions: name -> what selects the Machine's (the chip's
# FmaRules and whether it fuses); compiled programs pass the same datapath compiled into them
# (sfpu_sim.compiled.codegen).
UNITS = {"multiply_add": lambda m: (m.arch.fma_rules, m.arch.fused)}


@dataclass(frozen=True, eq=False)
class Semantics:
    """One instruction's lanewise model.

    ``value(*operands, [random], *fields, *state, *units)`` is VD's new value in a lane
    (None: the instruction writes no register); ``operands`` say which register each of its
    first arguments reads (:data:`VC`, :data:`SIMPLE_VB`, ...), ``fields`` which instruction
    fields follow, ``state`` what of :data:`STATE`, ``units`` which of :data:`UNITS` (the
    chip's datapaths, as functions). With ``prng``, ``random`` is the lane's PRNG state where
    ``prng(instruction)`` holds, after which the PRNG steps in the enabled lanes (0 and no
    step elsewhere). ``flags``, when given, is the lane's new LaneFlags,
    ``flags(value, flag, *operands, *fields, *state)`` (without ``value`` when there is
    none), set in the enabled lanes where ``sets_flags(instruction)`` holds (default:
    VD < 8). ``registers(m, i)``, when given, is the Machine's (operand registers,
    destination) for an instruction that addresses them per lane (through L7), which
    compiled programs do not. ``name`` is the record's name the definitions are bound to
    in their module (how a pickled record is found again)."""
    name: str
    value: Callable | None
    operands: tuple[Callable, ...]
    fields: tuple[str, ...] = ()
    flags: Callable | None = None
    sets_flags: Callable = field(default=lambda i: i.vd < 8)
    state: tuple[str, ...] = ()
    registers: Callable | None = None
    units: tuple[str, ...] = ()
    prng: Callable | None = None

    # --- the Machine: the lane axis in a compiled loop ----------------------------------------
    def __call__(self, m, i: Instruction) -> None:
        """The record's ``execute``: the instruction on the Machine (:meth:`execute`)."""
        self.execute(m, i)

    def execute(self, m, i: Instruction) -> None:
        """Run the instruction on the Machine ``m``: every operand read before VD is written."""
        lanes = m.enabled
        if self.registers is None:
            sources, destination = [where(i) for where in self.operands], i.vd
        else:
            sources, destination = self.registers(m, i)
        operands = [m.read(register) for register in sources]
        scalars = [int(getattr(i, name)) for name in self.fields] + \
            [int(STATE[name](m)) for name in self.state]
        written = flags = None
        if self.value is not None:           # everything computed before anything is written
            random = [] if self.prng is None else \
                [m.advance_prng(lanes) if self.prng(i) else np.zeros(m.lanes, np.uint32)]
            units = [UNITS[name](m) for name in self.units]
            written = _run((self.value.__module__, self.name, "value_scalar"),
                           [*operands, *random], scalars, units, m.lanes)
        if self.flags is not None and self.sets_flags(i):
            values = [] if written is None else [written]
            flags = _run((self.flags.__module__, self.name, "flags_scalar"),
                         [*values, m.cc.flags, *operands], scalars, [], m.lanes) != 0
        if written is not None:
            m.write(destination, written, lanes)
        if flags is not None:
            m.set_flags(flags, lanes)

    # The functions the Machine's lane loops call, inlined there (numba's IR: one call site a
    # loop), so that a unit passed in is the callee there.
    @cached_property
    def value_scalar(self):
        return numba.njit(inline="always")(self.value)

    @cached_property
    def flags_scalar(self):
        return numba.njit(inline="always")(self.flags)

    def __reduce__(self):
        """By reference (the module-level name it is defined under), as functions pickle: a
        record crosses to Dask workers without its compiled functions."""
        return _defined, ((self.value or self.flags).__module__, self.name)


def _defined(module: str, name: str) -> Semantics:
    return getattr(importlib.import_module(module), name)


def source_files(definitions) -> set[Path]:
    """The files ``definitions`` live in (what a compiled program bakes in): lanewise
    functions, or :class:`Semantics` (their value and flags functions)."""
    functions = []
    for d in definitions:
        functions += [d.value, d.flags] if isinstance(d, Semantics) else [d]
    return {_file_of(f) for f in functions if f is not None}


@functools.cache
def _file_of(function) -> Path:
    return Path(inspect.getfile(getattr(function, "py_func", function))).resolve()


# --------------------------------------------------------------------------------------------
# Lane loops: for each definition (and the units bound to it), a loop over lanes generated
# once, compiled with the definition inlined, cached on disk beside the compiled programs.
# --------------------------------------------------------------------------------------------

_PACKAGE = Path(__file__).resolve().parent.parent
_LOOPS: dict = {}


def lanes(function, *arguments) -> np.ndarray:
    """``function`` (a module-level :func:`helper` or lanewise function: ints in, an int
    out) applied to every lane: each argument a lane array or an int for every lane; uint32
    out. For tests and for the views that need one part of an instruction (the LUT entries)."""
    arrays = [np.asarray(a) for a in arguments]
    size = max(a.size for a in arrays)
    arrays = [np.broadcast_to(a, (size,)) if a.ndim == 0 else a for a in arrays]
    python = getattr(function, "py_func", function)
    return _run((python.__module__, python.__name__, None), arrays, [], [], size)


def lane_function(function):
    """``function`` as a lane loop calls it: compiled, and inlined into the loop (a
    :func:`helper` already is)."""
    return function if hasattr(function, "py_func") else numba.njit(inline="always")(function)


def _run(definition: tuple, arrays, scalars, units, size: int) -> np.ndarray:
    """The definition ``(module, name, attribute)`` over ``size`` lanes of ``arrays``, with
    ``scalars`` and units (a model's datapath by name, else a C callable) after them."""
    names = tuple(fma.LANE_FUNCTIONS.get(rules) if fused else None for rules, fused in units)
    key = (definition, len(arrays), len(scalars), names)
    if key not in _LOOPS:
        _LOOPS[key] = _loop(*key)
    out = np.empty(size, dtype=np.uint32)
    runtime = [unit for unit, name in zip(units, names) if name is None]
    arguments = [*[np.ascontiguousarray(a) for a in arrays], *[np.int64(v) for v in scalars]]
    if not runtime:
        parallel_for(_LOOPS[key], size, *arguments, out)
        return out
    (rules, fused), = runtime                   # one datapath a platform, read at run time
    with fma.runtime_rules(rules, fused):
        parallel_for(_LOOPS[key], size, *arguments, fma.runtime_unit(), out)
    return out


def _loop(definition: tuple, n_arrays: int, n_scalars: int, unit_names: tuple):
    module, name, attribute = definition
    for unit in unit_names:
        if unit is not None:
            fma.unit(unit)              # one signature, before a loop calls it
    arrays = [f"a{k}" for k in range(n_arrays)]
    scalars = [f"s{k}" for k in range(n_scalars)]
    passed = [f"u{k}" for k, unit in enumerate(unit_names) if unit is None]
    units = [unit if unit is not None else f"u{k}" for k, unit in enumerate(unit_names)]
    bound = f"{name}.{attribute}" if attribute else name
    call = ", ".join([f"np.int64({a}[k])" for a in arrays] + scalars + units)
    files = imported_files((Path(importlib.import_module(module).__file__),))
    digest = hashlib.sha256(numba.__version__.encode())
    for path in files:
        digest.update(path.read_bytes())
    source = "\n".join([
        '"""sfpu-sim lane loop. Generated by sfpu_sim.isa.lanewise; do not edit."""',
        f"# definitions {digest.hexdigest()[:16]}",
        "import numpy as np", "from sfpu_sim.jit import njit",
        "from sfpu_sim.isa.lanewise import lane_function",
        f"from {module} import {name}",
        *[f"from sfpu_sim.fma import {unit}" for unit in unit_names if unit is not None],
        f"DEFINITION = {bound if attribute else f'lane_function({name})'}", "", "",
        "@njit(nogil=True)",
        f"def run({', '.join(['start', 'stop', *arrays, *scalars, *passed, 'out'])}):",
        "    for k in range(np.uint64(start), np.uint64(stop)):",
        f"        out[k] = DEFINITION({call.replace(bound, 'DEFINITION')})", ""])
    text = hashlib.sha256(source.encode()).hexdigest()[:20]
    return jit.load_generated(source, f"sfpu_sim_lanes_{text}").run
