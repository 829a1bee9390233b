"""The sfpi library (sfpi_lib.h): one function per SFPU operation kernels call by name."""
from __future__ import annotations

import numpy as np

from sfpu_sim.sfpi.tracing import DslError, _b, _caller
from sfpu_sim.sfpi.values import _Vec, _vec, shft, vFloat, vInt, vUInt  # noqa: F401 (shft)


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
    mode = "FLOAT" if isinstance(v, vFloat) else "INT"
    return _unary("SFPABS", {"imm12": 0, "mod1": mode}, v, type(v))


def setsgn(v, sign):
    """``v`` with the sign of ``sign`` (0/1 immediate, or another vector's sign bit)."""
    v = _vec(v)
    if isinstance(sign, (int, np.integer)):
        return _unary("SFPSETSGN", {"imm12": int(sign) & 1, "mod1": "ARG_IMM"}, v, type(v))
    return _tied_unary("SFPSETSGN", {"imm12": 0, "mod1": 0}, v, sign, type(v))


def setexp(v, exponent):
    """``v`` with its biased exponent field set to ``exponent`` (immediate, or a vector's low 8
    bits)."""
    if isinstance(exponent, (int, np.integer)):
        return _unary("SFPSETEXP", {"imm12": int(exponent) & 0xFF, "mod1": "ARG_IMM"}, v, vFloat)
    return _tied_unary("SFPSETEXP", {"imm12": 0, "mod1": 0}, v, exponent, vFloat)


def setman(v, mantissa):
    """``v`` with its mantissa replaced: an immediate up to 12 bits sets bits 22..11 (SFPSETMAN
    ARG_IMM, as sfpi passes it), larger immediates and vectors set all 23 bits."""
    if isinstance(mantissa, (int, np.integer)) and 0 <= int(mantissa) <= 4095:
        return _unary("SFPSETMAN", {"imm12": int(mantissa), "mod1": "ARG_IMM"}, v, vFloat)
    if isinstance(mantissa, (int, np.integer)):
        mantissa = vUInt(int(mantissa))
    return _tied_unary("SFPSETMAN", {"imm12": 0, "mod1": 0}, v, mantissa, vFloat)


def exexp(v) -> vInt:
    """Unbiased exponent (SFPEXEXP)."""
    return _unary("SFPEXEXP", {"imm12": 0, "mod1": 0}, v, vInt)


def exexp_nodebias(v) -> vInt:
    """Biased exponent field (SFPEXEXP NODEBIAS)."""
    return _unary("SFPEXEXP", {"imm12": 0, "mod1": "NODEBIAS"}, v, vInt)


def exman8(v) -> vInt:
    """Mantissa with the hidden bit (SFPEXMAN)."""
    return _unary("SFPEXMAN", {"imm12": 0, "mod1": 0}, v, vInt)


def exman9(v) -> vInt:
    """Mantissa without the hidden bit (SFPEXMAN PAD9)."""
    return _unary("SFPEXMAN", {"imm12": 0, "mod1": "PAD9"}, v, vInt)


def addexp(v, exponent: int) -> vFloat:
    """``v * 2**exponent`` by adding to the exponent field (SFPDIVP2 ADD; wraps, no checks)."""
    if not -128 <= int(exponent) <= 127:
        raise DslError(f"{_caller().where}: addexp amount {exponent} out of range (-128..127)")
    return _unary("SFPDIVP2", {"imm12": int(exponent), "mod1": "ADD"}, v, vFloat)


def lz(v) -> vInt:
    """Count of leading zeros (SFPLZ)."""
    return _unary("SFPLZ", {"imm12": 0, "mod1": 0}, v, vInt)


def reinterpret(kind: type, v) -> _Vec:
    """The same bits as another vector type (no instruction)."""
    return kind(_vec(v).reg)


def int32_to_float(v, round_mode: int = 1) -> vFloat:
    """Sign-magnitude int32 -> FP32 (SFPCAST): ``round_mode`` 0 nearest even, 1 stochastic
    (sfpi's default)."""
    return _unary("SFPCAST", {"mod1": "RND_STOCH" if round_mode else "RND_EVEN"}, v, vFloat)


def _stochrnd(v, mode: str, round_mode: int) -> vUInt:
    b = _b()
    v = _vec(v)
    out = vUInt(b.vreg())
    b.emit("SFP_STOCH_RND", {"round_mode": 1 if round_mode else 0, "imm5": 0, "mod1": mode},
           {"vc": v.reg, "vb": v.reg}, {"vd": out.reg})
    return out


def float_to_fp16a(v, round_mode: int = 1) -> vUInt:
    return _stochrnd(v, "FP32_TO_FP16A", round_mode)


def float_to_fp16b(v, round_mode: int = 1) -> vUInt:
    """FP32 -> BF16 precision (SFP_STOCH_RND FP32_TO_FP16B): ``round_mode`` 0 is the hardware's
    "nearest" (ties away from zero), 1 stochastic (sfpi's default)."""
    return _stochrnd(v, "FP32_TO_FP16B", round_mode)


def float_to_uint8(v, round_mode: int = 1) -> vUInt:
    return _stochrnd(v, "FP32_TO_UINT8", round_mode)


def float_to_int8(v, round_mode: int = 1) -> vUInt:
    return _stochrnd(v, "FP32_TO_INT8", round_mode)


def float_to_uint16(v, round_mode: int = 1) -> vUInt:
    return _stochrnd(v, "FP32_TO_UINT16", round_mode)


def float_to_int16(v, round_mode: int = 1) -> vUInt:
    return _stochrnd(v, "FP32_TO_INT16", round_mode)


def _swap(a: _Vec, c: _Vec, mode: str) -> None:
    for v in (a, c):
        if not isinstance(v, _Vec) or (v.reg.fixed is not None and v.reg.fixed >= 8):
            raise DslError(f"{_caller().where}: vec_min_max/vec_swap write both arguments; pass "
                           f"variables (e.g. vFloat(vConst1)), not constants")
    _b().emit("SFPSWAP", {"imm12": 0, "mod1": mode}, {"vc": c.reg, "vd": a.reg},
              {"vc": c.reg, "vd": a.reg})


def vec_min_max(a: _Vec, b: _Vec) -> None:
    """In place: ``a = min(a, b)``, ``b = max(a, b)`` (SFPSWAP VEC_MIN_MAX; sign-magnitude
    order, -0 < +0, NaNs at the ends)."""
    _swap(a, b, "VEC_MIN_MAX")


def vec_swap(a: _Vec, b: _Vec) -> None:
    """In place: exchange ``a`` and ``b`` (SFPSWAP SWAP)."""
    _swap(a, b, "SWAP")


def _fixed_inputs(values: dict) -> dict:
    """Copy each value into the LReg the instruction reads it from (a pinned temporary)."""
    b = _b()
    pins = {}
    for name, (index, value) in values.items():
        pin = b.pinned(index)
        b.emit("SFPMOV", {"imm12": 0, "mod1": 0}, {"vc": _vec(value).reg}, {"vd": pin})
        pins[name] = pin
    return pins


def _lut(v, l0, l1, l2, mod0: int | str) -> vFloat:
    b = _b()
    pins = _fixed_inputs({"l0": (0, l0), "l1": (1, l1), "l2": (2, l2), "l3": (3, v)})
    out = vFloat(b.vreg())
    b.emit("SFPLUT", {"mod0": mod0, "dest_reg_addr": 0}, pins, {"vd": out.reg})
    return out


def lut(v, l0, l1, l2) -> vFloat:
    """SFPLUT with SGN_RETAIN: ``A*|v| + B`` from the 8-bit coefficient pairs in ``l0`` (|v| <
    1), ``l1`` (< 2), ``l2`` (beyond), with ``v``'s sign."""
    return _lut(v, l0, l1, l2, "SGN_RETAIN")


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
        mod1 = ("FP32_3ENTRY_TABLE" if mode is None else
                "FP16_6ENTRY_TABLE1" if mode == 1 else "FP16_6ENTRY_TABLE2")
        pins = _fixed_inputs({"l0": (0, args[0]), "l1": (1, args[1]), "l2": (2, args[2]),
                              "l4": (4, args[3]), "l5": (5, args[4]), "l6": (6, args[5]),
                              "l3": (3, v)})
    else:
        raise DslError(f"{_caller().where}: lut2 takes 3 or 6 table registers")
    out = vFloat(b.vreg())
    b.emit("SFPLUTFP32", {"mod1": mod1 + ("|SGN_RETAIN" if retain else ""), "mod1_mirror": 0}, pins,
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
    return _unary("SFPARECIP", {"imm12": 0, "mod1": "RECIP"}, v, vFloat)


def approx_exp(v) -> vFloat:
    """Blackhole SFPARECIP EXP: ``e**|v|`` to about 7 bits, ``v``'s sign."""
    if "SFPARECIP" not in _b().arch.opcodes:
        raise DslError(f"{_caller().where}: approx_exp (SFPARECIP) does not exist on "
                       f"{_b().arch.title}")
    return _unary("SFPARECIP", {"imm12": 0, "mod1": "EXP"}, v, vFloat)
