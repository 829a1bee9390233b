"""Tracing state: the statements a kernel emits, the virtual registers they use, where each
came from (the kernel line), and the DSL's error types. Knows nothing of what operations mean."""
from __future__ import annotations

import contextlib
import contextvars
import functools
import linecache
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sfpu_sim.arch import Arch
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.paths import PACKAGE_ROOT, display_path

WRITABLE = tuple(range(8))
# The constant registers (LReg.md): fixed LReg 8-10, programmable 11-14, lane id 15.
CONST_0P8373, CONST_ZERO, CONST_ONE, CONST_NEG_ONE = 8, 9, 10, 11
CONST_PRGM0, CONST_PRGM1, CONST_PRGM2, CONST_TILE_ID = 12, 13, 14, 15
_PACKAGE = str(Path(__file__).resolve().parent)
_CONTEXTLIB = contextlib.__file__                       # v_if & co. run inside contextlib


class DslError(SfpuSimError):
    """A kernel uses the DSL in a way that has no SFPU meaning; names the kernel line."""


class RegisterPressure(DslError):
    """More values are live at once than there are LRegs (8)."""


@dataclass(frozen=True)
class Source:
    """Where a statement came from: the first frame outside this module. ``site``: the line of
    the traced kernel's own file that led there, when the statement comes from a helper in
    another file (``reciprocal`` called by a user's kernel); errors name that line first."""
    file: str
    line: int
    site: tuple | None = None
    path: str = field(default="", compare=False, repr=False)     # the file as Python knows it

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def where(self) -> str:
        """The place an error names: the kernel's own line, then the helper's."""
        if self.site is None or self.site == (self.file, self.line):
            return str(self)
        return f"{self.site[0]}:{self.site[1]} (in {self})"

    @property
    def text(self) -> str:
        return linecache.getline(self.path or self.file, self.line).strip()


@functools.cache
def _in_package(filename: str) -> bool:
    return filename == _CONTEXTLIB or str(Path(filename).resolve().parent) == _PACKAGE


def _inside_the_dsl(frame) -> bool:
    """A frame of this package, of contextlib, or of a kernel helper library (a module that
    sets ``__sfpi_library__ = True``, like sfpi's headers): never the line being traced."""
    return _in_package(frame.f_code.co_filename) or \
        frame.f_globals.get("__sfpi_library__", False)


def _caller() -> Source:
    """The kernel line being traced: the first frame outside this module and outside kernel
    helper libraries (modules that set ``__sfpi_library__ = True``, like sfpi's headers), and
    the innermost frame in the traced kernel's own file (its ``site``)."""
    frame = sys._getframe(1)
    while frame is not None and _inside_the_dsl(frame):
        frame = frame.f_back
    if frame is None:
        return Source("<unknown>", 0)
    builder = _builder.get()
    kernel_file = builder.kernel_file if builder is not None else None
    site = frame
    while site is not None and site.f_code.co_filename != kernel_file:
        site = site.f_back
    return Source(_source_name(frame.f_code.co_filename), frame.f_lineno,
                  None if site is None else (_source_name(kernel_file), site.f_lineno),
                  frame.f_code.co_filename)


def _source_name(filename: str) -> str:
    """How a traced line's file is named in listings, JSON summaries and DSL errors: the
    package's own files relative to it (as display_path names them), any other file by its
    resolved absolute path, so that a summary is the same from every working directory
    (display_path names a file under the working directory relative to it)."""
    if filename.startswith("<"):                        # <string>, <stdin>: no file to resolve
        return filename
    if os.path.isabs(filename):                         # no working directory in it: kept
        return _absolute_source_name(filename)
    return _absolute_source_name(os.path.abspath(filename))


@functools.cache
def _absolute_source_name(filename: str) -> str:
    resolved = Path(os.path.normpath(filename)).resolve()
    return display_path(resolved) if resolved.is_relative_to(PACKAGE_ROOT) else str(resolved)


class VReg:
    """A virtual register: one DSL variable (or temporary), later given one LReg."""
    __slots__ = ("id", "fixed", "source", "block", "name")

    def __init__(self, vid: int, source: Source, block: tuple, fixed: int | None = None):
        self.id, self.source, self.block, self.fixed = vid, source, block, fixed
        self.name = None

    def __repr__(self) -> str:
        return f"v{self.id}" if self.fixed is None else f"L{self.fixed}"


@dataclass
class Stmt:
    """One instruction with symbolic registers, or an abstract float op lowered later
    (``fmul``, ``fadd``, ``fsub``, ``fma``). ``uses``/``defs`` map operand names to VRegs;
    names that are not operands of the instruction (e.g. a LUT's fixed inputs) only carry
    liveness. ``cc``: the statement changes predication state."""
    op: str
    imm: dict
    uses: dict
    defs: dict
    source: Source
    block: tuple
    cc: bool = False
    negate: tuple = (False, False)       # for "fma": negate the product / the addend


class Builder:
    """Collects the statements of one kernel for one chip."""

    def __init__(self, arch: Arch, kernel_file: str | None = None):
        self.arch = arch
        self.kernel_file = kernel_file      # the traced kernel's own file (error sites)
        self.stmts: list[Stmt] = []
        self.next_id = 0
        self.block: tuple = ()          # the predication block path: (chain id, branch) pairs
        self.chains: list[dict] = []    # open v_if chains, innermost last
        self.chain_count = 0
        self.dst_offset = 0
        self.constants = {r: VReg(-1 - r, Source("<constant>", 0), (), fixed=r)
                          for r in range(8, 16)}
        self.pins: dict[int, VReg] = {}
        self.fresh_loads: dict[int, Stmt] = {}  # dst_reg loads not used yet (typed on use)

    def pinned(self, index: int) -> VReg:
        """The value in one specific LReg 0-7 (LUT inputs, SFPCONFIG's source, ``l_reg``).
        One virtual register per LReg, so its interval protects what was written there."""
        if index not in self.pins:
            self.pins[index] = self.vreg(fixed=index)
            self.pins[index].block = ()
        return self.pins[index]

    def vreg(self, source: Source | None = None, fixed: int | None = None) -> VReg:
        self.next_id += 1
        return VReg(self.next_id, source or _caller(), self.block, fixed)

    def emit(self, op: str, imm=None, uses=None, defs=None, cc=False, negate=(False, False),
             source: Source | None = None) -> Stmt:
        stmt = Stmt(op, dict(imm or {}), dict(uses or {}), dict(defs or {}),
                    source or _caller(), self.block, cc, negate)
        for name, reg in stmt.uses.items():
            self._check_readable(reg, stmt.source)
            self.fresh_loads.pop(reg.id, None)
        for reg in stmt.defs.values():
            if reg.fixed is not None and reg.fixed >= 8 and op != "SFPCONFIG":
                raise DslError(f"{stmt.source.where}: cannot write the constant register "
                               f"L{reg.fixed}")
        self.stmts.append(stmt)
        return stmt

    def _check_readable(self, reg: VReg, source: Source) -> None:
        """A value declared inside a v_if branch exists only in that branch's lanes."""
        if reg.fixed is not None:
            return
        if self.block[:len(reg.block)] != reg.block:
            raise DslError(f"{source.where}: reads a value created at {reg.source} inside a v_if "
                           f"branch that has ended; only that branch's lanes hold it (declare "
                           f"the variable before the v_if and .assign() it inside)")


_builder: contextvars.ContextVar[Builder | None] = contextvars.ContextVar("sfpi_builder",
                                                                          default=None)


def current_arch() -> Arch:
    """The chip being traced. Kernels do not branch on it: per-chip code is data, either
    ``register_kernel(body={"wormhole": f, "blackhole": g})`` or :func:`per_chip`."""
    return _b().arch


def per_chip(**variants):
    """One helper with a variant per chip, chosen by the chip being traced::

        reciprocal = per_chip(wormhole=_reciprocal_wormhole, blackhole=_reciprocal_blackhole)

    Calling it on a chip without a variant is a DslError naming the calling line."""
    unknown = sorted(set(variants) - {"wormhole", "blackhole"})
    if unknown:
        raise DslError(f"{_caller().where}: per_chip: unknown chip(s) {', '.join(unknown)}")

    def dispatch(*args, **kwargs):
        chip = _b().arch.name
        if chip not in variants:
            raise DslError(f"{_caller().where}: no variant for {chip} (this helper has: "
                           f"{', '.join(variants)})")
        return variants[chip](*args, **kwargs)
    dispatch.variants = variants
    dispatch.__doc__ = next((v.__doc__ for v in variants.values() if v.__doc__), None)
    return dispatch


def _b() -> Builder:
    builder = _builder.get()
    if builder is None:
        raise DslError(f"{_caller().where}: sfpi operations run only inside trace()")
    return builder
