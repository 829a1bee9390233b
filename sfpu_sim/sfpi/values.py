"""Values: vFloat / vInt / vUInt vectors, constants and immediates, the constant registers,
``dst_reg`` and ``l_reg`` (sfpi.h's types and their operators)."""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats
from sfpu_sim.sfpi.tracing import (
    CONST_0P8373,
    CONST_NEG_ONE,
    CONST_ONE,
    CONST_PRGM0,
    CONST_PRGM1,
    CONST_PRGM2,
    CONST_TILE_ID,
    CONST_ZERO,
    DslError,
    Source,
    VReg,
    _b,
    _caller,
)


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
        special = {0x00000000: CONST_ZERO, 0x3F800000: CONST_ONE, 0xBF800000: CONST_NEG_ONE}
        if bits in special:
            return _const_reg(special[bits])
    reg = b.vreg(source)
    high, low = bits >> 16, bits & 0xFFFF
    if fmt == "fp16a" or (fmt == "auto" and low and _fp16a_exact(bits)):
        b.emit("SFPLOADI", {"mod0": "FLOATA", "imm16": _fp16a_bits(bits)}, {}, {"vd": reg},
               source=source)
    else:
        b.emit("SFPLOADI", {"mod0": "FLOATB", "imm16": high}, {}, {"vd": reg}, source=source)
        if low and fmt == "auto":
            b.emit("SFPLOADI", {"mod0": "LOWER", "imm16": low}, {"vd": reg}, {"vd": reg},
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
    """A 16-bit float immediate as sfpi's s2vFloat16a/b: one SFPLOADI, ``mod0`` FLOATA or
    FLOATB, with the 16-bit pattern ``imm16``."""

    def __init__(self, imm16: int, mod0: str):
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
        if self.mod0 == "FLOATB":
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
    return S2vFloat16(_to_fp32_bits(value) >> 16, "FLOATB")


def s2vFloat16a(value: float) -> S2vFloat16:
    """FP16A immediate (sfpi's conversion: round half up, denormals, saturation)."""
    return S2vFloat16(_sfpi_fp16a(_to_fp32_bits(value)), "FLOATA")


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
        _b().emit("SFPMOV", {"imm12": 0, "mod1": "NEGATE"}, {"vc": self.reg}, {"vd": out.reg})
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
            _b().emit("SFPIADD", {"imm12": int(other), "mod1": "ARG_IMM|CC_NONE"}, {"vc": self.reg},
                      {"vd": out.reg})
            return out
        return self._tied("SFPIADD", {"imm12": 0, "mod1": "ARG_LREG_DST|CC_NONE"}, self, self._coerce(other))

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, (int, np.integer)) and -2047 <= int(other) <= 2048:
            return self + (-int(other))
        # SFPIADD with ARG_2SCOMP_LREG_DST: VD = VC - VD
        return self._coerce(other)._tied("SFPIADD", {"imm12": 0, "mod1": "ARG_2SCOMP_LREG_DST|CC_NONE"}, self._coerce(other),
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
        b.emit("SFPLOADI", {"mod0": "SHORT", "imm16": value & 0xFFFF}, {}, {"vd": reg})
    elif value <= 0xFFFF:
        b.emit("SFPLOADI", {"mod0": "USHORT", "imm16": value}, {}, {"vd": reg})
    else:
        b.emit("SFPLOADI", {"mod0": "USHORT", "imm16": value & 0xFFFF}, {}, {"vd": reg})
        b.emit("SFPLOADI", {"mod0": "UPPER", "imm16": value >> 16}, {"vd": reg}, {"vd": reg})
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
            b.emit("SFPLOADI", {"mod0": "FLOATB", "imm16": bits >> 16}, {}, {"vd": l0}, source=source)
            if bits & 0xFFFF:
                b.emit("SFPLOADI", {"mod0": "LOWER", "imm16": bits & 0xFFFF}, {"vd": l0},
                       {"vd": l0}, source=source)
        else:
            b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": value.reg}, {"vd": l0},
                   source=source)
        b.emit("SFPCONFIG", {"imm16": 0, "vd": self.index, "mod1": 0}, {"l0": l0},
               {"config": _const_reg(self.index)}, source=source)


vConst0p8373 = _Const(CONST_0P8373, vFloat, "vConst0p8373")
vConst0 = _Const(CONST_ZERO, vFloat, "vConst0")
vConst1 = _Const(CONST_ONE, vFloat, "vConst1")
vConstNeg1 = _Const(CONST_NEG_ONE, vFloat, "vConstNeg1")
vConstFloatPrgm0 = _Programmable(CONST_PRGM0, vFloat, "vConstFloatPrgm0")
vConstFloatPrgm1 = _Programmable(CONST_PRGM1, vFloat, "vConstFloatPrgm1")
vConstFloatPrgm2 = _Programmable(CONST_PRGM2, vFloat, "vConstFloatPrgm2")
vConstIntPrgm0 = _Programmable(CONST_PRGM0, vInt, "vConstIntPrgm0")
vConstIntPrgm1 = _Programmable(CONST_PRGM1, vInt, "vConstIntPrgm1")
vConstIntPrgm2 = _Programmable(CONST_PRGM2, vInt, "vConstIntPrgm2")
vConstTileId = _Const(CONST_TILE_ID, vInt, "vConstTileId")


def _vec(value, kind=vFloat) -> _Vec:
    """Any operand (vector, constant register, number) as a vector, without copying."""
    return kind.operand(value)


# --------------------------------------------------------------------------------------------
# Dst and fixed LRegs
# --------------------------------------------------------------------------------------------

# SFPLOAD/SFPSTORE mode per vector type (sfpi_imp.h): vFloat in the format Dst holds (SRCB,
# resolved by configuration), vInt as sign-magnitude INT32 (SM32), vUInt as raw bits (BOB32).
_DST_MODE = {"vFloat": "SRCB", "vInt": "INT32_SM", "vUInt": "INT32"}


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
        stmt = b.emit("SFPLOAD", {"mod0": _DST_MODE["vFloat"], "addr_mod": 0, "imm10": self._address(index)}, {},
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


def shft(v, amount):
    """Logical shift of ``v`` left by ``amount`` (right when negative): SFPSHFT, shifting VD."""
    b = _b()
    v = _vec(v, vUInt)
    out = type(v)(b.vreg())
    b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": v.reg}, {"vd": out.reg})
    if isinstance(amount, (int, np.integer)):
        b.emit("SFPSHFT", {"imm12": int(amount), "mod1": "ARG_IMM"}, {"vd": out.reg}, {"vd": out.reg})
    else:
        b.emit("SFPSHFT", {"imm12": 0, "mod1": 0}, {"vc": _vec(amount, vInt).reg,
                                                     "vd": out.reg}, {"vd": out.reg})
    return out


# A lane condition is what comparing vectors gives; sfpu_sim.sfpi.predication lowers it.
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
