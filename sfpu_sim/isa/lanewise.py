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
- the compiled engine (:mod:`sfpu_sim.compiled.codegen`) calls the same function, compiled with
  ``numba.njit``, inside a program's per-lane code, where LLVM inlines it and folds the fields,
  which are constants there.

Values are int64 holding 32-bit patterns (0 .. 2**32 - 1): a function masks what could leave
that range. Writes follow the register file's rules (:meth:`Machine.write`: LReg 0-7 and 16,
in the enabled lanes); flags change only where VD < 8, in the enabled lanes.
"""
from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable

import numba
import numpy as np
from numba import types

from sfpu_sim.fma import _bit_length as bit_length
from sfpu_sim.isa.spec import Instruction, operand_vb
from sfpu_sim.jit import cache_supported, njit

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
# Units a definition receives as functions: name -> the Machine's (a C callable of one lane);
# compiled programs pass the same datapath compiled into them (sfpu_sim.compiled.codegen).
UNITS = {"multiply_add": lambda m: m.arch.multiply_add_unit}
_UNIT_TYPES = {"multiply_add": types.FunctionType(types.int64(types.int64, types.int64,
                                                              types.int64))}


@dataclass(frozen=True, eq=False)
class Semantics:
    """One instruction's lanewise model.

    ``value(*operands, *fields, *state, [random], *units)`` is VD's new value in a lane
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
    compiled programs do not. ``name`` is how compiled programs refer to the functions
    (``<name>_VALUE``, ``<name>_FLAGS``)."""
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
        fields = [int(getattr(i, name)) for name in self.fields]
        state = [STATE[name](m) for name in self.state]
        written = flags = None
        if self.value is not None:           # everything computed before anything is written
            units = [UNITS[name](m) for name in self.units]
            random = [] if self.prng is None else \
                [m.advance_prng(lanes) if self.prng(i) else 0]
            written = _each_lane(self._value_c, operands, [*fields, *state, *random], m.lanes,
                                 units)
        if self.flags is not None and self.sets_flags(i):
            values = [] if written is None else [written]
            flags = _each_lane(self._flags_c, [*values, m.cc.flags.astype(np.uint32), *operands],
                               [*fields, *state], m.lanes)
        if written is not None:
            m.write(destination, written, lanes)
        if flags is not None:
            m.set_flags(flags != 0, lanes)

    @cached_property
    def _value_c(self):
        return _c_callable(self.value, len(self.operands) + len(self.fields) + len(self.state)
                           + (self.prng is not None), [_UNIT_TYPES[name] for name in self.units])

    @cached_property
    def _flags_c(self):
        return _c_callable(self.flags, (self.value is not None) + 1 + len(self.operands)
                           + len(self.fields) + len(self.state))

    # --- the compiled engine: the same functions, inlined into a program ----------------------
    # Inlined where they are called (numba's IR), so that a unit passed in is the callee there.
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

    def scalars(self) -> dict[str, object]:
        """The names compiled programs call, and the compiled functions they name."""
        named = {}
        if self.value is not None:
            named[f"{self.name}_VALUE"] = self.value_scalar
        if self.flags is not None:
            named[f"{self.name}_FLAGS"] = self.flags_scalar
        return named


def _defined(module: str, name: str) -> Semantics:
    return getattr(importlib.import_module(module), name)


def source_files(semantics) -> set[Path]:
    """The files the definitions of ``semantics`` live in (what a compiled program bakes in)."""
    files = set()
    for s in semantics:
        for function in (s.value, s.flags):
            if function is not None:
                files.add(Path(inspect.getfile(function)).resolve())
    return files


# --------------------------------------------------------------------------------------------
# Lane loops: one per arity, taking the lanewise function as a C callable. Its type is only its
# signature, so each loop compiles once and is cached on disk for every instruction.
# --------------------------------------------------------------------------------------------

def _c_callable(function: Callable, arity: int, units=()):
    signature = types.int64(*[types.int64] * arity, *units)
    return numba.cfunc(signature, nopython=True, cache=cache_supported(function))(function)


@njit(nogil=True)
def _lanes1(f, a, out):
    for k in range(out.size):
        out[k] = f(a[0, k])


@njit(nogil=True)
def _lanes2(f, a, out):
    for k in range(out.size):
        out[k] = f(a[0, k], a[1, k])


@njit(nogil=True)
def _lanes3(f, a, out):
    for k in range(out.size):
        out[k] = f(a[0, k], a[1, k], a[2, k])


@njit(nogil=True)
def _lanes4(f, a, out):
    for k in range(out.size):
        out[k] = f(a[0, k], a[1, k], a[2, k], a[3, k])


@njit(nogil=True)
def _lanes5(f, a, out):
    for k in range(out.size):
        out[k] = f(a[0, k], a[1, k], a[2, k], a[3, k], a[4, k])


@njit(nogil=True)
def _lanes6(f, a, out):
    for k in range(out.size):
        out[k] = f(a[0, k], a[1, k], a[2, k], a[3, k], a[4, k], a[5, k])


@njit(nogil=True)
def _lanes7(f, a, out):
    for k in range(out.size):
        out[k] = f(a[0, k], a[1, k], a[2, k], a[3, k], a[4, k], a[5, k], a[6, k])


@njit(nogil=True)
def _lanes3_unit(f, a, u, out):
    for k in range(out.size):
        out[k] = f(a[0, k], a[1, k], a[2, k], u)


@njit(nogil=True)
def _lanes4_unit(f, a, u, out):
    for k in range(out.size):
        out[k] = f(a[0, k], a[1, k], a[2, k], a[3, k], u)


@njit(nogil=True)
def _lanes5_unit(f, a, u, out):
    for k in range(out.size):
        out[k] = f(a[0, k], a[1, k], a[2, k], a[3, k], a[4, k], u)


@njit(nogil=True)
def _lanes8(f, a, out):
    for k in range(out.size):
        out[k] = f(a[0, k], a[1, k], a[2, k], a[3, k], a[4, k], a[5, k], a[6, k], a[7, k])


@njit(nogil=True)
def _lanes8_unit(f, a, u, out):
    for k in range(out.size):
        out[k] = f(a[0, k], a[1, k], a[2, k], a[3, k], a[4, k], a[5, k], a[6, k], a[7, k], u)


_LOOPS = {1: _lanes1, 2: _lanes2, 3: _lanes3, 4: _lanes4, 5: _lanes5, 6: _lanes6, 7: _lanes7,
          8: _lanes8}
_UNIT_LOOPS = {3: _lanes3_unit, 4: _lanes4_unit, 5: _lanes5_unit, 8: _lanes8_unit}
_C_CALLABLES: dict = {}


def lanes(function, *arguments) -> np.ndarray:
    """``function`` (a lanewise definition or :func:`helper`, ints in, int out) applied to
    every lane: each argument a lane array or an int for every lane; uint32 out."""
    function = getattr(function, "py_func", function)
    if function not in _C_CALLABLES:
        _C_CALLABLES[function] = _c_callable(function, len(arguments))
    size = max(np.size(a) for a in arguments)
    return _each_lane(_C_CALLABLES[function], list(arguments), [], size)


def _each_lane(c_callable, operands, fields, lanes: int, units=()) -> np.ndarray:
    """``f(*operands[k], *fields, *units)`` for every lane k, as uint32."""
    arguments = np.empty((len(operands) + len(fields), lanes), dtype=np.int64)
    for row, values in enumerate([*operands, *fields]):
        arguments[row] = values
    out = np.empty(lanes, dtype=np.int64)
    if units:
        _UNIT_LOOPS[len(arguments)](c_callable, arguments, *units, out)
    else:
        _LOOPS[len(arguments)](c_callable, arguments, out)
    return out.astype(np.uint32)
