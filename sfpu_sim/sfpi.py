"""An sfpi-like Python DSL: write an SFPU kernel nearly line for line as in sfpi C++, get the
Program of real SFPU instructions the device would run.

Owns: tracing Python code into instructions, the lowering of sfpi operations (arithmetic,
comparisons, predication, library functions), register allocation onto LReg 0-7, and the
chip's scheduling rules (SFPNOPs where the hazard rules of :mod:`sfpu_sim.arch` need them).
Knows nothing of references or reports.

Sources: tenstorrent/sfpi ``include/sfpi.h``, ``include/{wormhole,blackhole}/sfpi_lib.h``
(commit 0de2538, 2026-01-29); the compare lowering of tenstorrent/sfpi-gcc
``gcc/config/riscv/rvtt-{wh,bh}.c`` (``rvtt_*_emit_sfpxfcmps``/``sfpxfcmpv``/``sfpxiadd``);
mapping summary in ../shared/spec/kernels.md §1.1-1.3.

A kernel is a Python function using the names below; :func:`trace` runs it and returns a
:class:`~sfpu_sim.isa.spec.Program` whose every instruction names the kernel's source line::

    def tanh_body():
        x = dst_reg[0]
        v = abs(x)
        ...
        dst_reg[0] = result

    program = trace(tanh_body, "blackhole")

Python cannot overload plain assignment, so assigning to an existing variable (which sfpi
does with ``=``, predicated inside ``v_if``) is ``x.assign(expr)`` (or ``x += ...``,
``x *= ...``); ``x = expr`` inside a ``v_if`` makes a new value that only the enabled lanes
hold, and reading it after ``v_endif()`` is an error. ``v_if``/``v_elseif``/``v_else`` are
context managers and a chain ends with ``v_endif()``, as in sfpi::

    with v_if(x < 0.0):
        y.assign(-x)
    with v_else():
        y.assign(x)
    v_endif()

Lowering choices (the bits, not only the instruction count, depend on them):

* ``a * b`` is SFPMUL (``a*b + 0``), ``a + b`` is SFPADD (``a*1.0 + b``), ``a - b`` one SFPMAD
  (``b * -1.0 + a``, the same bits as sfpi's negate-and-add); a product used exactly once, by
  an addition or subtraction in the same predication region, is fused into one SFPMAD (one
  rounding), as the sfpi compiler's combine pass does: Horner steps are single SFPMADs.
* A float constant is one SFPLOADI when it is a BF16 or FP16A pattern, two otherwise; 0.0,
  1.0, -1.0 and the named constants use the constant registers. ``s2vFloat16b`` truncates.
* Comparisons follow sfpi-gcc: against 0.0 an SFPSETCC on the raw bits (so -0.0 < 0.0 is
  true); otherwise ``tmp = ref * -1.0 + x`` (SFPMAD) then SFPSETCC on ``tmp``; ``<=``/``>`` as
  ``>= 0`` then ``!= 0`` (and SFPCOMPC for ``<=``). ``v_if`` pushes the CC stack, ``v_else``
  complements, ``v_endif`` pops.
"""
from __future__ import annotations

import contextlib
import contextvars
import linecache
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sfpu_sim import formats
from sfpu_sim.arch import Arch, get_arch
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.isa.spec import Instruction, Program
from sfpu_sim.registry import display_path

__all__ = [
    "trace", "current_arch", "vFloat", "vInt", "vUInt", "dst_reg", "v_if", "v_elseif", "v_else",
    "v_endif",
    "v_and", "abs", "setsgn", "setexp", "setman", "exexp", "exexp_nodebias", "exman8", "exman9",
    "addexp", "shft", "reinterpret", "int32_to_float", "float_to_fp16a", "float_to_fp16b",
    "float_to_int16", "float_to_uint16", "float_to_int8", "float_to_uint8", "vec_min_max",
    "vec_swap", "lut", "lut_sign", "lut2", "lut2_sign", "approx_recip", "approx_exp", "lz",
    "s2vFloat16a", "s2vFloat16b", "vConst0", "vConst1", "vConstNeg1", "vConst0p8373",
    "vConstFloatPrgm0", "vConstFloatPrgm1", "vConstFloatPrgm2", "vConstIntPrgm0",
    "vConstIntPrgm1", "vConstIntPrgm2", "vConstTileId", "l_reg", "LRegs", "DslError",
    "RegisterPressure",
]

WRITABLE = tuple(range(8))
SETCC_LT0, SETCC_NE0, SETCC_GTE0, SETCC_EQ0 = 0, 2, 4, 6
_HERE = str(Path(__file__).resolve())
_SKIPPED = {__file__, _HERE, contextlib.__file__}     # v_if & co. run inside contextlib


class DslError(SfpuSimError):
    """A kernel uses the DSL in a way that has no SFPU meaning; names the kernel line."""


class RegisterPressure(DslError):
    """More values are live at once than there are LRegs (8)."""


# --------------------------------------------------------------------------------------------
# Tracing state
# --------------------------------------------------------------------------------------------

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


def _caller() -> Source:
    """The kernel line being traced: the first frame outside this module and outside kernel
    helper libraries (modules that set ``__sfpi_library__ = True``, like sfpi's headers), and
    the innermost frame in the traced kernel's own file (its ``site``)."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename in _SKIPPED or
                                 frame.f_globals.get("__sfpi_library__")):
        frame = frame.f_back
    if frame is None:
        return Source("<unknown>", 0)
    builder = _builder.get()
    kernel_file = builder.kernel_file if builder is not None else None
    site = frame
    while site is not None and site.f_code.co_filename != kernel_file:
        site = site.f_back
    return Source(display_path(frame.f_code.co_filename), frame.f_lineno,
                  None if site is None else (display_path(kernel_file), site.f_lineno),
                  frame.f_code.co_filename)


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
    """The chip being traced (kernels whose sources differ per chip branch on it)."""
    return _b().arch


def _b() -> Builder:
    builder = _builder.get()
    if builder is None:
        raise DslError(f"{_caller().where}: sfpi operations run only inside trace()")
    return builder


# --------------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------------

def _to_fp32_bits(value: float) -> int:
    return int(formats.fp32_to_bits(np.float32(value)))


class _Vec:
    """A vector variable: a VReg plus its sfpi type."""
    __slots__ = ("reg",)

    def __init__(self, value=None):
        b = _b()
        if value is None:                     # sfpi's "vFloat x;": declared, not loaded
            self.reg = b.vreg()
        elif isinstance(value, VReg):
            self.reg = value
        elif isinstance(value, vFloat) and isinstance(self, _VecInt) and \
                value.reg.id in b.fresh_loads:     # vInt(dst_reg[i]): load as an integer
            b.fresh_loads.pop(value.reg.id).imm["mod0"] = _DST_MODE[type(self).__name__]
            self.reg = value.reg
        elif isinstance(value, (_Vec, _Const)):    # a copy: a new variable
            source = value.vec() if isinstance(value, _Const) else value
            self.reg = b.vreg()
            b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": source.reg}, {"vd": self.reg})
        else:
            self.reg = self._load(value)
            if self.reg.fixed is not None:       # a variable, not the constant register itself
                constant, self.reg = self.reg, b.vreg()
                b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": constant}, {"vd": self.reg})

    @classmethod
    def operand(cls, value) -> "_Vec":
        """``value`` as an operand of an expression: constants stay in their registers."""
        if isinstance(value, _Vec):
            return value
        if isinstance(value, _Const):
            return value.vec()
        vec = cls.__new__(cls)
        vec.reg = vec._load(value)
        return vec

    def _load(self, value) -> VReg:
        raise DslError(f"{_caller().where}: cannot make a {type(self).__name__} from {value!r}")

    def assign(self, value) -> "_Vec":
        """``self = value`` in the enabled lanes (sfpi's assignment)."""
        b = _b()
        source = self._coerce(value)
        b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": source.reg}, {"vd": self.reg})
        return self

    def _coerce(self, value) -> "_Vec":
        return type(self).operand(value)

    def __bool__(self):
        raise DslError(f"{_caller().where}: a vector has no truth value; use v_if(...)")

    # Comparisons build lane conditions for v_if (lowered when the condition is used).
    def _compare(self, op: str, other) -> "Cond":
        return Cond(op, self, other, _caller())

    def __lt__(self, other):
        return self._compare("lt", other)

    def __le__(self, other):
        return self._compare("le", other)

    def __gt__(self, other):
        return self._compare("gt", other)

    def __ge__(self, other):
        return self._compare("ge", other)

    def __eq__(self, other):
        return self._compare("eq", other)

    def __ne__(self, other):
        return self._compare("ne", other)

    __hash__ = None


def _const_reg(index: int) -> VReg:
    return _b().constants[index]


def _load_float_bits(bits: int, fmt: str = "auto", source: Source | None = None) -> VReg:
    """A register holding the FP32 pattern ``bits`` (constant registers when possible)."""
    b = _b()
    if fmt == "auto":
        special = {0x00000000: 9, 0x3F800000: 10, 0xBF800000: 11}
        if bits in special:
            return _const_reg(special[bits])
    reg = b.vreg(source)
    high, low = bits >> 16, bits & 0xFFFF
    if fmt == "fp16a" or (fmt == "auto" and low and _fp16a_exact(bits)):
        b.emit("SFPLOADI", {"mod0": 1, "imm16": _fp16a_bits(bits)}, {}, {"vd": reg},
               source=source)
    else:
        b.emit("SFPLOADI", {"mod0": 0, "imm16": high}, {}, {"vd": reg}, source=source)
        if low and fmt == "auto":
            b.emit("SFPLOADI", {"mod0": 10, "imm16": low}, {"vd": reg}, {"vd": reg},
                   source=source)
    return reg


def _fp16a_exact(bits: int) -> bool:
    """Representable by SFPLOADI FLOATA (FP16 fields, exponent rebiased by 112; exponent 0 is
    2**-15 there, not zero): FP32 exponent 112..143 with 13 low mantissa bits zero."""
    e = (bits >> 23) & 0xFF
    return 112 <= e <= 143 and bits & 0x1FFF == 0


def _fp16a_bits(bits: int) -> int:
    e = ((bits >> 23) & 0xFF) - 112
    return ((bits >> 16) & 0x8000) | (e << 10) | ((bits >> 13) & 0x3FF)


class S2vFloat16:
    """A 16-bit float immediate as sfpi's s2vFloat16a/b: one SFPLOADI, FLOATA (``mod0`` 1) or
    FLOATB (0) with the 16-bit pattern ``imm16``."""

    def __init__(self, imm16: int, mod0: int):
        self.imm16, self.mod0 = imm16, mod0

    def load(self, source=None) -> VReg:
        b = _b()
        reg = b.vreg(source)
        b.emit("SFPLOADI", {"mod0": self.mod0, "imm16": self.imm16}, {}, {"vd": reg},
               source=source)
        return reg

    @property
    def fp32_bits(self) -> int:
        """The FP32 value the immediate loads as."""
        if self.mod0 == 0:
            return self.imm16 << 16
        return int(formats.fp16_floata_to_fp32_bits(self.imm16))


def _sfpi_fp16a(bits: int) -> int:
    """sfpi_fp16.h ``fp32_to_fp16a``: round half up on magnitude, saturate, flush tiny."""
    b = (bits + 0x1000) & 0xFFFFFFFF
    e, m = (b >> 23) & 0xFF, b & 0x7FFFFF
    result = (b & 0x80000000) >> 16
    if e > 112:
        result |= (((e - 112) << 10) & 0x7C00) | (m >> 13)
    if 101 < e < 113:
        result |= (((0x007FF000 + m) >> (125 - e)) + 1) >> 1
    if e > 143:
        result |= 0x7FFF
    return result


def s2vFloat16b(value: float) -> S2vFloat16:
    """BF16 immediate: the top 16 bits of the FP32 value (truncation, not rounding:
    ``s2vFloat16b(0.044715)`` is 0.044677734375)."""
    return S2vFloat16(_to_fp32_bits(value) >> 16, 0)


def s2vFloat16a(value: float) -> S2vFloat16:
    """FP16A immediate (sfpi's conversion: round half up, denormals, saturation)."""
    return S2vFloat16(_sfpi_fp16a(_to_fp32_bits(value)), 1)


class vFloat(_Vec):
    """A vector of FP32 values."""
    __slots__ = ()

    def _load(self, value) -> VReg:
        if isinstance(value, S2vFloat16):
            return value.load()
        if isinstance(value, (int, float, np.floating)):
            return _load_float_bits(_to_fp32_bits(value))
        return super()._load(value)

    def _coerce(self, value) -> "vFloat":
        if isinstance(value, _Vec) and not isinstance(value, vFloat):
            raise DslError(f"{_caller().where}: a {type(value).__name__} is not a vFloat (use "
                           f"reinterpret)")
        return vFloat.operand(value)

    # arithmetic ---------------------------------------------------------------------------
    def _binary(self, op: str, other, swap=False) -> "vFloat":
        other = self._coerce(other)
        a, c = (other, self) if swap else (self, other)
        out = vFloat(_b().vreg())
        _b().emit(op, {}, {"a": a.reg, "b": c.reg}, {"vd": out.reg})
        return out

    def __add__(self, other):
        return self._binary("fadd", other)

    def __radd__(self, other):
        return self._binary("fadd", other, swap=True)

    def __sub__(self, other):
        return self._binary("fsub", other)

    def __rsub__(self, other):
        return self._binary("fsub", other, swap=True)

    def __mul__(self, other):
        return self._binary("fmul", other)

    def __rmul__(self, other):
        return self._binary("fmul", other, swap=True)

    def __neg__(self):
        out = vFloat(_b().vreg())
        _b().emit("SFPMOV", {"imm12": 0, "mod1": 1}, {"vc": self.reg}, {"vd": out.reg})
        return out

    def __iadd__(self, other):
        return self.assign(self + other)

    def __isub__(self, other):
        return self.assign(self - other)

    def __imul__(self, other):
        return self.assign(self * other)



class _VecInt(_Vec):
    """Integer vectors (two's complement arithmetic, bitwise operations)."""
    __slots__ = ()
    _SIGNED = True

    def _load(self, value) -> VReg:
        if isinstance(value, (int, np.integer)):
            return _load_int(int(value), self._SIGNED)
        return super()._load(value)

    def _coerce(self, value):
        if isinstance(value, _Vec) and not isinstance(value, _VecInt):
            raise DslError(f"{_caller().where}: a {type(value).__name__} is not an integer vector "
                           f"(use reinterpret)")
        return type(self).operand(value)

    def _new(self, reg=None):
        return type(self)(reg or _b().vreg())

    def _tied(self, op: str, imm: dict, first: "_VecInt", other: "_VecInt") -> "_VecInt":
        """``VD = VD op VC`` instructions: copy ``first`` into a new VD, then apply."""
        out = self._new()
        b = _b()
        b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": first.reg}, {"vd": out.reg})
        b.emit(op, imm, {"vc": other.reg, "vd": out.reg}, {"vd": out.reg})
        return out

    def __add__(self, other):
        if isinstance(other, (int, np.integer)) and -2048 <= int(other) <= 2047:
            out = self._new()
            _b().emit("SFPIADD", {"imm12": int(other), "mod1": 5}, {"vc": self.reg},
                      {"vd": out.reg})
            return out
        return self._tied("SFPIADD", {"imm12": 0, "mod1": 4}, self, self._coerce(other))

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, (int, np.integer)) and -2047 <= int(other) <= 2048:
            return self + (-int(other))
        # SFPIADD with ARG_2SCOMP_LREG_DST: VD = VC - VD
        return self._coerce(other)._tied("SFPIADD", {"imm12": 0, "mod1": 6}, self._coerce(other),
                                         self)

    def __rsub__(self, other):
        return self._coerce(other) - self

    def __neg__(self):
        return type(self)(0) - self

    def __and__(self, other):
        return self._tied("SFPAND", {"imm12": 0, "mod1": 0}, self, self._coerce(other))

    __rand__ = __and__

    def __or__(self, other):
        return self._tied("SFPOR", {"imm12": 0, "mod1": 0}, self, self._coerce(other))

    __ror__ = __or__

    def __xor__(self, other):
        return self._tied("SFPXOR", {"imm12": 0, "mod1": 0}, self, self._coerce(other))

    __rxor__ = __xor__

    def __invert__(self):
        out = self._new()
        _b().emit("SFPNOT", {"imm12": 0, "mod1": 0}, {"vc": self.reg}, {"vd": out.reg})
        return out

    def __lshift__(self, amount):
        return shft(self, amount)

    def __rshift__(self, amount):
        if isinstance(amount, _Vec):
            return shft(self, -amount)
        return shft(self, -int(amount))

    def __iadd__(self, other):
        return self.assign(self + other)

    def __isub__(self, other):
        return self.assign(self - other)

    def __iand__(self, other):
        return self.assign(self & other)

    def __ior__(self, other):
        return self.assign(self | other)

    def __ixor__(self, other):
        return self.assign(self ^ other)

    def __ilshift__(self, amount):
        return self.assign(self << amount)

    def __irshift__(self, amount):
        return self.assign(self >> amount)



class vInt(_VecInt):
    """A vector of int32 (two's complement) values."""
    __slots__ = ()


class vUInt(_VecInt):
    """A vector of uint32 values."""
    __slots__ = ()
    _SIGNED = False


def _load_int(value: int, signed: bool) -> VReg:
    """SFPLOADI SHORT / USHORT when 16 bits suffice, else USHORT (low) + UPPER."""
    b = _b()
    reg = b.vreg()
    value &= 0xFFFFFFFF
    if value < 0x8000 or (signed and value >= 0xFFFF8000):
        b.emit("SFPLOADI", {"mod0": 4, "imm16": value & 0xFFFF}, {}, {"vd": reg})
    elif value <= 0xFFFF:
        b.emit("SFPLOADI", {"mod0": 2, "imm16": value}, {}, {"vd": reg})
    else:
        b.emit("SFPLOADI", {"mod0": 2, "imm16": value & 0xFFFF}, {}, {"vd": reg})
        b.emit("SFPLOADI", {"mod0": 8, "imm16": value >> 16}, {"vd": reg}, {"vd": reg})
    return reg


# --------------------------------------------------------------------------------------------
# Constant registers
# --------------------------------------------------------------------------------------------

class _Const:
    """A constant register (LReg 8-15), usable wherever a vector is."""

    def __init__(self, index: int, kind: type, name: str):
        self.index, self.kind, self.name = index, kind, name

    def vec(self) -> _Vec:
        return self.kind(_const_reg(self.index))

    __hash__ = object.__hash__


def _forward(name: str):
    def method(self, *args):
        return getattr(self.vec(), name)(*args)
    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__neg__",
              "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__and__", "__or__",
              "__xor__", "__invert__", "__lshift__", "__rshift__"):
    setattr(_Const, _name, _forward(_name))


class _Programmable(_Const):
    """vConstFloatPrgm0..2 / vConstIntPrgm0..2: LReg 12-14, set with SFPCONFIG from LReg0."""

    def assign(self, value) -> None:
        b = _b()
        source = _caller()
        if isinstance(value, (int, float, np.floating)) and self.kind is vFloat:
            bits = _to_fp32_bits(value)
        elif isinstance(value, (int, np.integer)):
            bits = int(value) & 0xFFFFFFFF
        else:
            bits = None
        l0 = b.pinned(0)
        if bits is not None:
            b.emit("SFPLOADI", {"mod0": 0, "imm16": bits >> 16}, {}, {"vd": l0}, source=source)
            if bits & 0xFFFF:
                b.emit("SFPLOADI", {"mod0": 10, "imm16": bits & 0xFFFF}, {"vd": l0},
                       {"vd": l0}, source=source)
        else:
            b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": value.reg}, {"vd": l0},
                   source=source)
        b.emit("SFPCONFIG", {"imm16": 0, "vd": self.index, "mod1": 0}, {"l0": l0},
               {"config": _const_reg(self.index)}, source=source)


vConst0p8373 = _Const(8, vFloat, "vConst0p8373")
vConst0 = _Const(9, vFloat, "vConst0")
vConst1 = _Const(10, vFloat, "vConst1")
vConstNeg1 = _Const(11, vFloat, "vConstNeg1")
vConstFloatPrgm0 = _Programmable(12, vFloat, "vConstFloatPrgm0")
vConstFloatPrgm1 = _Programmable(13, vFloat, "vConstFloatPrgm1")
vConstFloatPrgm2 = _Programmable(14, vFloat, "vConstFloatPrgm2")
vConstIntPrgm0 = _Programmable(12, vInt, "vConstIntPrgm0")
vConstIntPrgm1 = _Programmable(13, vInt, "vConstIntPrgm1")
vConstIntPrgm2 = _Programmable(14, vInt, "vConstIntPrgm2")
vConstTileId = _Const(15, vInt, "vConstTileId")


def _vec(value, kind=vFloat) -> _Vec:
    """Any operand (vector, constant register, number) as a vector, without copying."""
    return kind.operand(value)


# --------------------------------------------------------------------------------------------
# Dst and fixed LRegs
# --------------------------------------------------------------------------------------------

# SFPLOAD/SFPSTORE mode per vector type (sfpi_imp.h): vFloat in the format Dst holds (SRCB,
# resolved by configuration), vInt as sign-magnitude INT32 (SM32), vUInt as raw bits (BOB32).
_DST_MODE = {"vFloat": 0, "vInt": 12, "vUInt": 4}


class _DstReg:
    """``dst_reg[i]`` loads (SFPLOAD) and stores (SFPSTORE) row-pair ``i`` of the current
    Dst position: as a vFloat in the format Dst holds (mode 0, resolved by configuration),
    ``vInt(dst_reg[i])`` as sign-magnitude INT32, ``vUInt(dst_reg[i])`` as raw bits; stores
    take the mode of the stored vector's type. ``dst_reg.next()`` is sfpi's ``dst_reg++``
    (the next 2-row step, as an address offset)."""
    STRIDE = 2

    def __getitem__(self, index: int) -> vFloat:
        b = _b()
        out = vFloat(b.vreg())
        stmt = b.emit("SFPLOAD", {"mod0": 0, "addr_mod": 0, "imm10": self._address(index)}, {},
                      {"vd": out.reg})
        b.fresh_loads[out.reg.id] = stmt      # vInt(dst_reg[i]) retypes it (see _VecInt)
        return out

    def __setitem__(self, index: int, value) -> None:
        b = _b()
        value = _vec(value)
        b.emit("SFPSTORE", {"mod0": _DST_MODE[type(value).__name__], "addr_mod": 0,
                            "imm10": self._address(index)}, {"vd": value.reg}, {})

    def next(self, steps: int = 1) -> None:
        _b().dst_offset += steps * self.STRIDE

    def _address(self, index: int) -> int:
        address = _b().dst_offset + int(index) * self.STRIDE
        if not 0 <= address < 1024:
            raise DslError(f"{_caller().where}: dst_reg address {address} out of range (0..1022)")
        return address


dst_reg = _DstReg()


class LRegs:
    """Names of the LRegs (sfpi::LRegs)."""
    LReg0, LReg1, LReg2, LReg3, LReg4, LReg5, LReg6, LReg7 = range(8)


class _LRegFile:
    """``l_reg[LRegs.LReg0]``: the value living in a specific LReg (sfpi's ``l_reg``), e.g.
    LUT coefficients an init function loaded; ``l_reg[i] = v`` puts ``v`` there."""

    def __getitem__(self, index: int) -> vUInt:
        """The variable living in that LReg (sfpi keeps ``vUInt l0 = l_reg[LReg0]`` there)."""
        return vUInt(_b().pinned(int(index)))

    def __setitem__(self, index: int, value) -> None:
        b = _b()
        b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": _vec(value, vUInt).reg},
               {"vd": b.pinned(int(index))})


l_reg = _LRegFile()


# --------------------------------------------------------------------------------------------
# Predication
# --------------------------------------------------------------------------------------------

_FLIP = {"lt": "ge", "ge": "lt", "le": "gt", "gt": "le", "eq": "ne", "ne": "eq"}
_SETCC = {"lt": SETCC_LT0, "ge": SETCC_GTE0, "eq": SETCC_EQ0, "ne": SETCC_NE0}


class Cond:
    """A lane condition: a comparison, or ``&`` / ``|`` / ``~`` of conditions."""

    def __init__(self, op: str, a, b, source: Source):
        self.op, self.a, self.b, self.source = op, a, b, source

    def __and__(self, other):
        return Cond("and", self, other, _caller())

    def __or__(self, other):
        return Cond("or", self, other, _caller())

    def __invert__(self):
        return Cond("not", self, None, _caller())

    def __bool__(self):
        raise DslError(f"{self.source.where}: a vector condition has no truth value; use "
                       f"v_if(...); combine conditions with & | ~, not and/or/not")


def _emit_compare(op: str, a: _Vec, other, source: Source) -> None:
    """Set the enabled lanes' flags to ``a op other`` (sfpi-gcc's lowering)."""
    b = _b()
    if isinstance(a, vFloat):
        value = _float_operand(other)
        if isinstance(value, int) and value in (0, 0x80000000):
            tested = a.reg                          # compare against zero: raw sign/zero test
        else:
            if isinstance(value, int):
                ref = _load_float_bits(value, source=source)
            else:
                ref = value
            tested = b.vreg(source)
            b.emit("SFPMAD", {"mod1": 0}, {"va": ref, "vb": _const_reg(11), "vc": a.reg},
                   {"vd": tested}, source=source)
    else:
        value = other if isinstance(other, _Vec) else int(other)
        if isinstance(value, int) and value == 0:
            tested = a.reg
        elif isinstance(value, int):
            if not -2048 <= -value <= 2047:
                raise DslError(f"{source.where}: integer compare immediate {value} does not fit the "
                               f"12-bit SFPIADD immediate")
            tested = b.vreg(source)
            b.emit("SFPIADD", {"imm12": -value, "mod1": 5}, {"vc": a.reg}, {"vd": tested},
                   source=source)
        else:
            tested = b.vreg(source)
            b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": value.reg}, {"vd": tested},
                   source=source)
            b.emit("SFPIADD", {"imm12": 0, "mod1": 6}, {"vc": a.reg, "vd": tested},
                   {"vd": tested}, source=source)          # a - other
    if op in ("le", "gt"):
        _setcc(tested, SETCC_GTE0, source)
        _setcc(tested, SETCC_NE0, source)
        if op == "le":
            b.emit("SFPCOMPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True,
                   source=source)
    else:
        _setcc(tested, _SETCC[op], source)


def _float_operand(other):
    """A compare operand: FP32 bits of a constant, or a VReg."""
    if isinstance(other, _Const):
        return other.vec().reg
    if isinstance(other, S2vFloat16):
        return other.load()
    if isinstance(other, vFloat):
        return other.reg
    if isinstance(other, _Vec):
        raise DslError(f"{_caller().where}: compare a vFloat with a float or a vFloat")
    return _to_fp32_bits(other)


def _setcc(reg: VReg, mode: int, source: Source) -> None:
    _b().emit("SFPSETCC", {"imm12": 0, "vd": 0, "mod1": mode}, {"vc": reg}, {}, cc=True,
              source=source)


def _needs_fence(cond: Cond, negate: bool) -> bool:
    """Compares lowered with an SFPCOMPC complement against the stack top, so they must run
    right after a push (a fence) when they narrow an earlier condition."""
    if cond.op in _FLIP:
        return (_FLIP[cond.op] if negate else cond.op) == "le"
    return True


def _emit_cond(cond: Cond, negate: bool = False, fenced: bool = True) -> None:
    """Narrow the enabled lanes' flags by ``cond`` (or its negation). ``fenced``: the CC stack
    top holds the flags as they were before this condition began."""
    b = _b()
    if cond.op == "not":
        _emit_cond(cond.a, not negate, fenced)
    elif cond.op in ("and", "or"):
        conjunction = (cond.op == "and") != negate
        if conjunction:                       # a & b: narrow by a, then by b
            _emit_cond(cond.a, negate, fenced)
            _emit_guarded(cond.b, negate)
        else:                                 # a | b = ~(~a & ~b), complemented at the fence
            if not fenced:
                raise DslError(f"{cond.source.where}: '|' is supported only as the whole condition "
                               f"of a v_if / v_elseif (or combined with '&' inside it)")
            _emit_cond(cond.a, not negate, True)
            _emit_guarded(cond.b, not negate)
            b.emit("SFPCOMPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True,
                   source=cond.source)
    else:
        op = _FLIP[cond.op] if negate else cond.op
        if not fenced and op == "le":
            _emit_guarded(cond, negate)
            return
        _emit_compare(op, cond.a, cond.b, cond.source)


def _emit_guarded(cond: Cond, negate: bool) -> None:
    """Narrow by a condition that needs a fence (sfpi-gcc's process_bool_tree): push, keep a
    marker of the lanes where it holds, pop back, then select those lanes."""
    if not _needs_fence(cond, negate):
        _emit_cond(cond, negate, fenced=False)
        return
    b = _b()
    source = cond.source
    b.emit("SFPPUSHC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True, source=source)
    marker = b.vreg(source)
    b.emit("SFPLOADI", {"mod0": 4, "imm16": 1}, {}, {"vd": marker}, source=source)
    _emit_cond(cond, negate, fenced=True)
    b.emit("SFPLOADI", {"mod0": 4, "imm16": 0}, {"vd": marker}, {"vd": marker}, source=source)
    b.emit("SFPPOPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True, source=source)
    _setcc(marker, SETCC_EQ0, source)


def _open_branch(chain: dict) -> None:
    b = _b()
    chain["branch"] += 1
    b.block = chain["outer"] + ((chain["id"], chain["branch"]),)


@contextlib.contextmanager
def v_if(cond: Cond):
    """Predicate the block on ``cond`` (push the CC stack, narrow the flags)."""
    b = _b()
    source = _caller()
    if not isinstance(cond, Cond):
        cond = _vec(cond, vInt) != 0
    b.chain_count += 1
    chain = {"id": b.chain_count, "outer": b.block, "branch": 0, "pushes": 1,
             "source": source, "state": "open", "else": False}
    b.chains.append(chain)
    b.emit("SFPPUSHC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True,
           source=source)
    _emit_cond(cond)
    _open_branch(chain)
    yield
    _close_branch(chain)


def _close_branch(chain: dict) -> None:
    b = _b()
    b.block = chain["outer"]
    chain["state"], chain["closed_at"] = "closed-branch", len(b.stmts)


def _nothing_since_branch(chain: dict, what: str) -> None:
    """sfpi has no code between a block's end and v_else / v_endif: here it would run under
    the finished block's predication, so it is an error rather than a silent surprise."""
    b = _b()
    extra = b.stmts[chain["closed_at"]:]
    if extra:
        raise DslError(f"{extra[0].source.where}: code between the end of a v_if/v_elseif block and "
                       f"{what} would run under that block's predication; move it inside a "
                       f"block or after v_endif()")


def _chain_for(what: str) -> dict:
    b = _b()
    if not b.chains or b.chains[-1]["state"] != "closed-branch":
        raise DslError(f"{_caller().where}: {what} must directly follow a v_if / v_elseif block")
    chain = b.chains[-1]
    if chain["else"]:
        raise DslError(f"{_caller().where}: {what} after v_else")
    return chain


@contextlib.contextmanager
def v_elseif(cond: Cond):
    """The lanes that took no earlier branch, narrowed by ``cond``.

    Python evaluates ``cond``'s operands (``abs(x)`` in ``v_elseif(abs(x) < 1.0)``) before
    this call, while the previous block's lanes are still selected; sfpi evaluates them after
    complementing. Their instructions are therefore moved behind the complement here."""
    b = _b()
    chain = _chain_for("v_elseif")
    source = _caller()
    operands = b.stmts[chain["closed_at"]:]
    del b.stmts[chain["closed_at"]:]
    b.emit("SFPCOMPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True, source=source)
    b.emit("SFPPUSHC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True, source=source)
    chain["pushes"] += 1
    chain["state"] = "open"
    _open_branch(chain)
    for stmt in operands:                  # computed in this branch's lanes, as in sfpi
        stmt.block = b.block
        for reg in stmt.defs.values():
            if reg.block == chain["outer"] and reg.fixed is None:
                reg.block = b.block
    b.stmts.extend(operands)
    _emit_cond(cond)
    yield
    _close_branch(chain)


@contextlib.contextmanager
def v_else():
    """The lanes that took no earlier branch of the chain."""
    b = _b()
    chain = _chain_for("v_else")
    _nothing_since_branch(chain, "v_else")
    b.emit("SFPCOMPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True,
           source=_caller())
    chain["state"], chain["else"] = "open", True
    _open_branch(chain)
    yield
    _close_branch(chain)


def v_endif() -> None:
    """End the innermost v_if chain (pop the CC stack once per v_if / v_elseif)."""
    b = _b()
    if not b.chains or b.chains[-1]["state"] != "closed-branch":
        raise DslError(f"{_caller().where}: v_endif() without an open v_if chain")
    _nothing_since_branch(b.chains[-1], "v_endif()")
    chain = b.chains.pop()
    for _ in range(chain["pushes"]):
        b.emit("SFPPOPC", {"imm12": 0, "vc": 0, "vd": 0, "mod1": 0}, {}, {}, cc=True,
               source=_caller())


def v_and(cond: Cond) -> None:
    """Narrow the current v_if block further by ``cond`` (sfpi's ``v_and``)."""
    b = _b()
    if not b.chains or b.chains[-1]["state"] != "open":
        raise DslError(f"{_caller().where}: v_and() only inside a v_if block")
    _emit_guarded(cond, False)


# --------------------------------------------------------------------------------------------
# Library (sfpi_lib.h)
# --------------------------------------------------------------------------------------------

def _unary(op: str, imm: dict, v, kind, source_field: str = "vc") -> _Vec:
    b = _b()
    v = _vec(v)
    out = kind(b.vreg())
    b.emit(op, imm, {source_field: v.reg}, {"vd": out.reg})
    return out


def _tied_unary(op: str, imm: dict, v, into, kind) -> _Vec:
    """``VD = f(VC, VD)``: copy ``into`` to a new VD first (sfpi: "dst is both ... and result",
    the compiler drops the copy when ``into`` dies here)."""
    b = _b()
    v, into = _vec(v), _vec(into, vInt)
    out = kind(b.vreg())
    b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": into.reg}, {"vd": out.reg})
    b.emit(op, imm, {"vc": v.reg, "vd": out.reg}, {"vd": out.reg})
    return out


def abs(v):  # noqa: A001 - sfpi's name
    """|v|: SFPABS, float mode for vFloat (NaN keeps its sign), integer mode otherwise."""
    v = _vec(v)
    mode = 1 if isinstance(v, vFloat) else 0
    return _unary("SFPABS", {"imm12": 0, "mod1": mode}, v, type(v))


def setsgn(v, sign):
    """``v`` with the sign of ``sign`` (0/1 immediate, or another vector's sign bit)."""
    v = _vec(v)
    if isinstance(sign, (int, np.integer)):
        return _unary("SFPSETSGN", {"imm12": int(sign) & 1, "mod1": 1}, v, type(v))
    return _tied_unary("SFPSETSGN", {"imm12": 0, "mod1": 0}, v, sign, type(v))


def setexp(v, exponent):
    """``v`` with its biased exponent field set to ``exponent`` (immediate, or a vector's low 8
    bits)."""
    if isinstance(exponent, (int, np.integer)):
        return _unary("SFPSETEXP", {"imm12": int(exponent) & 0xFF, "mod1": 1}, v, vFloat)
    return _tied_unary("SFPSETEXP", {"imm12": 0, "mod1": 0}, v, exponent, vFloat)


def setman(v, mantissa):
    """``v`` with its mantissa replaced: an immediate up to 12 bits sets bits 22..11 (SFPSETMAN
    ARG_IMM, as sfpi passes it), larger immediates and vectors set all 23 bits."""
    if isinstance(mantissa, (int, np.integer)) and 0 <= int(mantissa) <= 4095:
        return _unary("SFPSETMAN", {"imm12": int(mantissa), "mod1": 1}, v, vFloat)
    if isinstance(mantissa, (int, np.integer)):
        mantissa = vUInt(int(mantissa))
    return _tied_unary("SFPSETMAN", {"imm12": 0, "mod1": 0}, v, mantissa, vFloat)


def exexp(v) -> vInt:
    """Unbiased exponent (SFPEXEXP)."""
    return _unary("SFPEXEXP", {"imm12": 0, "mod1": 0}, v, vInt)


def exexp_nodebias(v) -> vInt:
    """Biased exponent field (SFPEXEXP NODEBIAS)."""
    return _unary("SFPEXEXP", {"imm12": 0, "mod1": 1}, v, vInt)


def exman8(v) -> vInt:
    """Mantissa with the hidden bit (SFPEXMAN)."""
    return _unary("SFPEXMAN", {"imm12": 0, "mod1": 0}, v, vInt)


def exman9(v) -> vInt:
    """Mantissa without the hidden bit (SFPEXMAN PAD9)."""
    return _unary("SFPEXMAN", {"imm12": 0, "mod1": 1}, v, vInt)


def addexp(v, exponent: int) -> vFloat:
    """``v * 2**exponent`` by adding to the exponent field (SFPDIVP2 ADD; wraps, no checks)."""
    if not -128 <= int(exponent) <= 127:
        raise DslError(f"{_caller().where}: addexp amount {exponent} out of range (-128..127)")
    return _unary("SFPDIVP2", {"imm12": int(exponent), "mod1": 1}, v, vFloat)


def lz(v) -> vInt:
    """Count of leading zeros (SFPLZ)."""
    return _unary("SFPLZ", {"imm12": 0, "mod1": 0}, v, vInt)


def shft(v, amount):
    """Logical shift of ``v`` left by ``amount`` (right when negative): SFPSHFT, shifting VD."""
    b = _b()
    v = _vec(v, vUInt)
    out = type(v)(b.vreg())
    b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": v.reg}, {"vd": out.reg})
    if isinstance(amount, (int, np.integer)):
        b.emit("SFPSHFT", {"imm12": int(amount), "mod1": 1}, {"vd": out.reg}, {"vd": out.reg})
    else:
        b.emit("SFPSHFT", {"imm12": 0, "mod1": 0}, {"vc": _vec(amount, vInt).reg,
                                                     "vd": out.reg}, {"vd": out.reg})
    return out


def reinterpret(kind: type, v) -> _Vec:
    """The same bits as another vector type (no instruction)."""
    return kind(_vec(v).reg)


def int32_to_float(v, round_mode: int = 1) -> vFloat:
    """Sign-magnitude int32 -> FP32 (SFPCAST): ``round_mode`` 0 nearest even, 1 stochastic
    (sfpi's default)."""
    return _unary("SFPCAST", {"mod1": 1 if round_mode else 0}, v, vFloat)


def _stochrnd(v, mode: int, round_mode: int) -> vUInt:
    b = _b()
    v = _vec(v)
    out = vUInt(b.vreg())
    b.emit("SFP_STOCH_RND", {"round_mode": 1 if round_mode else 0, "imm5": 0, "mod1": mode},
           {"vc": v.reg, "vb": v.reg}, {"vd": out.reg})
    return out


def float_to_fp16a(v, round_mode: int = 1) -> vUInt:
    return _stochrnd(v, 0, round_mode)


def float_to_fp16b(v, round_mode: int = 1) -> vUInt:
    """FP32 -> BF16 precision (SFP_STOCH_RND FP32_TO_FP16B): ``round_mode`` 0 is the hardware's
    "nearest" (ties away from zero), 1 stochastic (sfpi's default)."""
    return _stochrnd(v, 1, round_mode)


def float_to_uint8(v, round_mode: int = 1) -> vUInt:
    return _stochrnd(v, 2, round_mode)


def float_to_int8(v, round_mode: int = 1) -> vUInt:
    return _stochrnd(v, 3, round_mode)


def float_to_uint16(v, round_mode: int = 1) -> vUInt:
    return _stochrnd(v, 6, round_mode)


def float_to_int16(v, round_mode: int = 1) -> vUInt:
    return _stochrnd(v, 7, round_mode)


def _swap(a: _Vec, c: _Vec, mode: int) -> None:
    for v in (a, c):
        if not isinstance(v, _Vec) or (v.reg.fixed is not None and v.reg.fixed >= 8):
            raise DslError(f"{_caller().where}: vec_min_max/vec_swap write both arguments; pass "
                           f"variables (e.g. vFloat(vConst1)), not constants")
    _b().emit("SFPSWAP", {"imm12": 0, "mod1": mode}, {"vc": c.reg, "vd": a.reg},
              {"vc": c.reg, "vd": a.reg})


def vec_min_max(a: _Vec, b: _Vec) -> None:
    """In place: ``a = min(a, b)``, ``b = max(a, b)`` (SFPSWAP VEC_MIN_MAX; sign-magnitude
    order, -0 < +0, NaNs at the ends)."""
    _swap(a, b, 1)


def vec_swap(a: _Vec, b: _Vec) -> None:
    """In place: exchange ``a`` and ``b`` (SFPSWAP SWAP)."""
    _swap(a, b, 0)


def _fixed_inputs(values: dict) -> dict:
    """Copy each value into the LReg the instruction reads it from (a pinned temporary)."""
    b = _b()
    pins = {}
    for name, (index, value) in values.items():
        pin = b.pinned(index)
        b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": _vec(value).reg}, {"vd": pin})
        pins[name] = pin
    return pins


def _lut(v, l0, l1, l2, mod0: int) -> vFloat:
    b = _b()
    pins = _fixed_inputs({"l0": (0, l0), "l1": (1, l1), "l2": (2, l2), "l3": (3, v)})
    out = vFloat(b.vreg())
    b.emit("SFPLUT", {"mod0": mod0, "dest_reg_addr": 0}, pins, {"vd": out.reg})
    return out


def lut(v, l0, l1, l2) -> vFloat:
    """SFPLUT with SGN_RETAIN: ``A*|v| + B`` from the 8-bit coefficient pairs in ``l0`` (|v| <
    1), ``l1`` (< 2), ``l2`` (beyond), with ``v``'s sign."""
    return _lut(v, l0, l1, l2, 4)


def lut_sign(v, l0, l1, l2) -> vFloat:
    """SFPLUT without SGN_RETAIN (the sign comes from the table)."""
    return _lut(v, l0, l1, l2, 0)


def _lut2(v, args: tuple, mode: int, retain: bool) -> vFloat:
    b = _b()
    if len(args) == 3:
        raise DslError(f"{_caller().where}: the 3-entry FP16 lut2 always writes LReg[L7 & 15] (a "
                       f"documented hardware bug) and is not supported; use the six-register "
                       f"forms")
    if len(args) == 6:
        mod1 = 0 if mode is None else (2 if mode == 1 else 3)
        pins = _fixed_inputs({"l0": (0, args[0]), "l1": (1, args[1]), "l2": (2, args[2]),
                              "l4": (4, args[3]), "l5": (5, args[4]), "l6": (6, args[5]),
                              "l3": (3, v)})
    else:
        raise DslError(f"{_caller().where}: lut2 takes 3 or 6 table registers")
    out = vFloat(b.vreg())
    b.emit("SFPLUTFP32", {"mod1": mod1 | (4 if retain else 0), "mod1_mirror": 0}, pins,
           {"vd": out.reg})
    return out


def lut2(v, *table, mode: int = 1) -> vFloat:
    """SFPLUTFP32 with SGN_RETAIN. Six vUInt table registers: the FP16 6-entry table (cuts
    0.5, 1, 1.5, 2, 3 with ``mode=1``, or 4 with ``mode=2``): slopes from the first three,
    intercepts from the last three, low half first. Six vFloats with ``mode=None``: the FP32
    3-entry table."""
    return _lut2(v, table, mode, True)


def lut2_sign(v, *table, mode: int = 1) -> vFloat:
    """As :func:`lut2` without SGN_RETAIN (``A*|v| + B`` keeps the table's sign)."""
    return _lut2(v, table, mode, False)


def approx_recip(v) -> vFloat:
    """Blackhole SFPARECIP RECIP: ``1/v`` to about 7 bits, sign kept."""
    if "SFPARECIP" not in _b().arch.opcodes:
        raise DslError(f"{_caller().where}: approx_recip (SFPARECIP) does not exist on "
                       f"{_b().arch.title}")
    return _unary("SFPARECIP", {"imm12": 0, "mod1": 0}, v, vFloat)


def approx_exp(v) -> vFloat:
    """Blackhole SFPARECIP EXP: ``e**|v|`` to about 7 bits, ``v``'s sign."""
    if "SFPARECIP" not in _b().arch.opcodes:
        raise DslError(f"{_caller().where}: approx_exp (SFPARECIP) does not exist on "
                       f"{_b().arch.title}")
    return _unary("SFPARECIP", {"imm12": 0, "mod1": 2}, v, vFloat)


# --------------------------------------------------------------------------------------------
# From statements to a Program
# --------------------------------------------------------------------------------------------

def _uses_of(stmts: list[Stmt]) -> dict:
    uses: dict[int, list[int]] = {}
    for k, s in enumerate(stmts):
        for reg in s.uses.values():
            uses.setdefault(reg.id, []).append(k)
    return uses


def _defs_of(stmts: list[Stmt]) -> dict:
    defs: dict[int, list[int]] = {}
    for k, s in enumerate(stmts):
        for reg in s.defs.values():
            defs.setdefault(reg.id, []).append(k)
    return defs


def _cc_between(stmts: list[Stmt], start: int, end: int) -> bool:
    return any(s.cc for s in stmts[start + 1:end])


def _written_between(stmts: list[Stmt], regs, start: int, end: int) -> bool:
    ids = {r.id for r in regs}
    return any(r.id in ids for s in stmts[start + 1:end] for r in s.defs.values())


def _fuse_products(stmts: list[Stmt]) -> list[Stmt]:
    """A product used once, by an addition or subtraction in the same predication region
    with its inputs unchanged in between, becomes one fused SFPMAD."""
    uses, defs = _uses_of(stmts), _defs_of(stmts)
    dropped = set()
    for k, s in enumerate(stmts):
        if s.op not in ("fadd", "fsub"):
            continue
        for role in ("a", "b"):
            t = s.uses[role]
            if len(defs.get(t.id, [])) != 1 or len(uses.get(t.id, [])) != 1:
                continue
            j = defs[t.id][0]
            mul = stmts[j]
            if mul.op != "fmul" or mul.block != s.block or j in dropped or \
                    _cc_between(stmts, j, k) or \
                    _written_between(stmts, mul.uses.values(), j, k):
                continue
            other = s.uses["b" if role == "a" else "a"]
            negate_product = s.op == "fsub" and role == "b"       # c - a*b
            negate_addend = s.op == "fsub" and role == "a"        # a*b - c
            s.op, s.negate = "fma", (negate_product, negate_addend)
            s.uses = {"va": mul.uses["a"], "vb": mul.uses["b"], "vc": other}
            dropped.add(j)
            break
    return [s for k, s in enumerate(stmts) if k not in dropped]


def _lower_float(stmts: list[Stmt], arch: Arch, builder: Builder) -> list[Stmt]:
    """Abstract float ops -> instructions."""
    out = []
    one, neg_one, zero = (builder.constants[r] for r in (10, 11, 9))
    negate_modes = 1 in arch.opcode("SFPMAD").modes      # Blackhole's NEGATE_VA / NEGATE_VC
    for s in stmts:
        if s.op == "fmul":
            out.append(_as(s, "SFPMUL", {"va": s.uses["a"], "vb": s.uses["b"], "vc": zero}))
        elif s.op == "fadd":
            out.append(_as(s, "SFPADD", {"va": s.uses["a"], "vb": one, "vc": s.uses["b"]}))
        elif s.op == "fsub":
            out.append(_as(s, "SFPMAD", {"va": s.uses["b"], "vb": neg_one, "vc": s.uses["a"]}))
        elif s.op == "fma":
            va, vb, vc = s.uses["va"], s.uses["vb"], s.uses["vc"]
            negate_product, negate_addend = s.negate
            mod1 = 0
            if negate_modes:
                mod1 = (1 if negate_product else 0) | (2 if negate_addend else 0)
            else:
                if negate_product:
                    va = _negated(out, va, s, builder)
                if negate_addend:
                    vc = _negated(out, vc, s, builder)
            out.append(_as(s, "SFPMAD", {"va": va, "vb": vb, "vc": vc}, mod1))
        else:
            out.append(s)
    return out


def _as(s: Stmt, op: str, uses: dict, mod1: int = 0) -> Stmt:
    return Stmt(op, {"mod1": mod1}, uses, s.defs, s.source, s.block, s.cc)


def _negated(out: list, reg: VReg, s: Stmt, builder: Builder) -> VReg:
    temp = VReg(builder.next_id + 1, s.source, s.block)
    builder.next_id += 1
    out.append(Stmt("SFPMOV", {"imm12": 0, "mod1": 1}, {"vc": reg}, {"vd": temp}, s.source,
                    s.block))
    return temp


def _is_plain_move(s: Stmt) -> bool:
    return s.op == "SFPMOV" and s.imm.get("mod1") == 0 and set(s.uses) == {"vc"} and \
        set(s.defs) == {"vd"}


def _coalesce(stmts: list[Stmt]) -> list[Stmt]:
    """Remove register copies the hardware does not need (sfpi-gcc's "renames tmp and doesn't
    issue a mov"), keeping predication exact."""
    changed = True
    while changed:
        changed = False
        uses, defs = _uses_of(stmts), _defs_of(stmts)
        for k, mov in enumerate(stmts):
            if not _is_plain_move(mov):
                continue
            src, dst = mov.uses["vc"], mov.defs["vd"]
            if src.id == dst.id:
                del stmts[k]
                changed = True
                break
            if src.fixed is not None and src.fixed >= 8:
                # (c) a variable that only ever holds a constant: read the constant register.
                if len(defs.get(dst.id, [])) == 1 and dst.fixed is None and \
                        mov.block == dst.block:
                    for s in stmts[k + 1:]:
                        s.uses = {n: (src if r.id == dst.id else r) for n, r in s.uses.items()}
                    del stmts[k]
                    changed = True
                    break
                continue
            # (a) the copied value was made just for this copy: make it in place.
            src_defs = defs.get(src.id, [])
            if src.fixed is None and dst.fixed is None and len(src_defs) == 1 and \
                    uses.get(src.id) == [k]:
                j = src_defs[0]
                maker = stmts[j]
                tied = any(r.id == src.id for r in maker.uses.values())
                touched = any(dst.id in [r.id for r in (*s.uses.values(), *s.defs.values())]
                              for s in stmts[j + 1:k])
                if not tied and maker.block == mov.block and len(maker.defs) == 1 and \
                        not _cc_between(stmts, j, k) and not touched and \
                        maker.op not in ("SFPSWAP",):
                    maker.defs = {name: dst for name in maker.defs}
                    del stmts[k]
                    changed = True
                    break
            # (b) the copy's source dies here and the destination is fresh: share a register.
            dst_defs = defs.get(dst.id, [])
            later_src = [x for x in uses.get(src.id, []) + src_defs if x > k]
            earlier_dst = [x for x in uses.get(dst.id, []) + dst_defs if x < k]
            if not later_src and not earlier_dst and src.fixed is None and dst.fixed is None \
                    and dst.block[:len(src.block)] == src.block:
                for s in stmts[k + 1:]:
                    s.uses = {n: (src if r.id == dst.id else r) for n, r in s.uses.items()}
                    s.defs = {n: (src if r.id == dst.id else r) for n, r in s.defs.items()}
                del stmts[k]
                changed = True
                break
    return stmts


def _allocate(stmts: list[Stmt], kernel: str) -> dict:
    """LReg 0-7 for every virtual register: greedy interval colouring in program order, with
    pinned (fixed) registers honoured. Raises RegisterPressure naming the kernel line."""
    # Positions: an instruction reads its operands (2k) before it writes its result (2k + 1),
    # so a result may take the register of an operand that dies at the same instruction.
    first, last, regs = {}, {}, {}
    for k, s in enumerate(stmts):
        for position, group in ((2 * k, s.uses.values()), (2 * k + 1, s.defs.values())):
            for reg in group:
                if reg.fixed is not None and reg.fixed >= 8:
                    continue
                regs[reg.id] = reg
                first[reg.id] = min(first.get(reg.id, position), position)
                last[reg.id] = max(last.get(reg.id, position), position)
    busy: dict[int, list[tuple[int, int, VReg]]] = {r: [] for r in WRITABLE}
    assignment = {}
    for vid in sorted(regs, key=lambda v: (regs[v].fixed is None, first[v])):
        reg, span = regs[vid], (first[vid], last[vid])
        candidates = [reg.fixed] if reg.fixed is not None else list(WRITABLE)
        for phys in candidates:
            if all(span[1] < a or b < span[0] for a, b, _ in busy[phys]):
                busy[phys].append((*span, reg))
                assignment[vid] = phys
                break
        else:
            live = sorted({other for phys in WRITABLE for a, b, other in busy[phys]
                           if not (span[1] < a or b < span[0])}, key=lambda r: r.id)
            where = stmts[span[0] // 2].source
            names = ", ".join(f"value from {r.source}" for r in live[:8])
            if reg.fixed is not None:
                raise RegisterPressure(f"{where.where}: {kernel}: L{reg.fixed} is needed here but "
                                       f"holds a live value ({names})")
            raise RegisterPressure(f"{where.where}: {kernel}: more than 8 values live at once "
                                   f"({names}, and this one)")
    return assignment


def _instruction(s: Stmt, arch: Arch, assignment: dict) -> Instruction:
    op = arch.opcode(s.op)
    values = {}
    for operand in op.operands:
        if operand.name in s.imm:
            values[operand.name] = s.imm[operand.name]
        elif operand.name in s.defs or operand.name in s.uses:
            reg = s.defs.get(operand.name) or s.uses[operand.name]
            values[operand.name] = reg.fixed if reg.fixed is not None and reg.fixed >= 8 \
                else assignment[reg.id]
        elif operand.default is not None:
            values[operand.name] = operand.default
        else:
            values[operand.name] = 0
    return Instruction(op, values, str(s.source), s.source.text)


def _schedule(instructions: list[Instruction], arch: Arch) -> list[Instruction]:
    """Insert an SFPNOP wherever the chip's hazard rules forbid two instructions in a row."""
    nop = arch.opcode("SFPNOP")
    out: list[Instruction] = []
    for ins in instructions:
        if out and arch.hazard(out[-1], ins) is not None:
            out.append(Instruction(nop, {}, ins.source, "(SFPNOP inserted for the hazard "
                                                       "rules)"))
        out.append(ins)
    return out


def trace(kernel, arch, *args, name: str | None = None, init=None, **kwargs) -> Program:
    """Run ``kernel(*args, **kwargs)`` with the DSL and return its :class:`Program` for
    ``arch``. ``init`` (optional): a function run first (sfpi's ``*_init()``: constants,
    tables); ``Program.init_length`` counts its instructions."""
    arch = get_arch(arch) if isinstance(arch, str) else arch
    name = name or getattr(kernel, "__name__", "kernel")
    code = getattr(kernel, "__code__", None)
    builder = Builder(arch, code.co_filename if code is not None else None)
    token = _builder.set(builder)
    try:
        if init is not None:
            init()
        init_stmts = len(builder.stmts)
        kernel(*args, **kwargs)
        if builder.chains:
            raise DslError(f"{builder.chains[-1]['source'].where}: v_if without v_endif()")
    finally:
        _builder.reset(token)
    init_part, body = builder.stmts[:init_stmts], builder.stmts[init_stmts:]
    init_part = _coalesce(_lower_float(_fuse_products(init_part), arch, builder))
    body = _coalesce(_lower_float(_fuse_products(body), arch, builder))
    stmts = init_part + body
    assignment = _allocate(stmts, name)
    instructions = [_instruction(s, arch, assignment) for s in stmts]
    scheduled = _schedule(instructions[:len(init_part)], arch)
    init_length = len(scheduled)
    scheduled = _schedule(scheduled + instructions[len(init_part):], arch)
    for previous, current in zip(scheduled, scheduled[1:]):
        problem = arch.hazard(previous, current)
        if problem is not None:                      # _schedule guarantees this never happens
            raise DslError(f"{current.source}: {problem}")
    return Program(arch, scheduled, name=name, init_length=init_length)
