"""Exact IEEE binary32 arithmetic on numpy arrays: the host side of the study's methods.

Owns: the arithmetic backend :class:`Binary32` that a method definition (``gelu_methods``)
runs on to give, lane for lane, what the study's C++ build computed: every ``+ - * / sqrt``
correctly rounded in binary32 (numpy's float32 operations are, with gradual underflow), fused
multiply-adds exactly where the build contracted them, through the IEEE model of
:mod:`sfpu_sim.fma` on bit patterns (never through float64, whose double rounding differs), and
C++'s ``std::min``/``std::max`` and if/else chains. Also :func:`literal`: a decimal constant
rounded once to binary32, as a C++ ``float`` literal is. Knows nothing of GELU or of the SFPU.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from sfpu_sim.fma import fma_model


def literal(text: str) -> float:
    """The binary32 value of the C++ literal ``<text>f``: the decimal rounded once, to nearest
    even (not through a double, whose rounding can differ from a direct one), returned as the
    Python float of that binary32 value."""
    exact = Fraction(text)
    if exact == 0:
        return 0.0
    magnitude = abs(exact)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1
    exponent = max(exponent, -126)
    scaled = magnitude / Fraction(2) ** (exponent - 23)
    integer, remainder = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * remainder
    if twice > scaled.denominator or (twice == scaled.denominator and integer & 1):
        integer += 1
    value = float(integer) * 2.0 ** (exponent - 23)
    if value > float(np.finfo(np.float32).max):
        raise ValueError(f"literal {text!r} overflows binary32")
    return -value if exact < 0 else value


def _f32(value) -> np.ndarray:
    """A float32 array of lanes, or a constant (a Python float holding a binary32 value)."""
    if isinstance(value, (float, int)):
        constant = np.float32(value)
        if float(constant) != value:
            raise ValueError(f"constant {value!r} is not a binary32 value (use literal())")
        return np.asarray(constant)
    array = np.asarray(value)
    if array.dtype != np.float32:
        raise TypeError(f"binary32 arithmetic got a {array.dtype} operand")
    return array


class Binary32:
    """The arithmetic of the study's build on float32 arrays (one lane per element).

    ``fma``: whether the multiply-adds the compiler contracted (``g++ -O3 -march=native``,
    which contracts ``a*b + c`` even in ISO C++ mode) are fused (True, the study's build) or
    rounded twice (False, ``-ffp-contract=off``). Values are float32 arrays; constants are
    Python floats that are binary32 values (:func:`literal`), which numpy keeps in float32.
    """

    def __init__(self, fma: bool = True):
        self.fma = fma

    def input(self, bits) -> np.ndarray:
        """BF16 patterns widened exactly to float32 (the study's ``static_cast<float>``)."""
        return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)

    def madd(self, a, b, c) -> np.ndarray:
        """``a*b + c`` where the build contracts it: one rounding with ``fma``, else two."""
        a, b, c = _f32(a), _f32(b), _f32(c)
        if not self.fma:
            with np.errstate(all="ignore"):
                return a * b + c
        a, b, c = (np.ascontiguousarray(v).view(np.uint32) for v in np.broadcast_arrays(a, b, c))
        return fma_model("ieee", a, b, c).view(np.float32)

    def div(self, a, b) -> np.ndarray:
        with np.errstate(all="ignore"):
            return _f32(a) / _f32(b)

    def sqrt(self, a) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.sqrt(_f32(a))

    def abs(self, a) -> np.ndarray:
        return np.abs(_f32(a))

    def clamp(self, value, low: float, high: float) -> np.ndarray:
        """``std::max(low, std::min(high, value))``: ``min(a, b) = b < a ? b : a`` and
        ``max(a, b) = a < b ? b : a``, so a -0 comes out as ``low`` when ``low`` is +0."""
        value = _f32(value)
        smaller = np.where(value < high, value, np.float32(high))
        return np.where(np.float32(low) < smaller, smaller, np.float32(low)).astype(np.float32)

    def chain(self, cases, otherwise):
        """An if / else-if chain: ``cases`` is a sequence of ``(condition, value)`` where both
        are callables of no argument (a condition gives booleans, a value float32 lanes); the
        first true condition's value, else ``otherwise()``. Every branch is evaluated on every
        lane and the chain selects, which is the same lane by lane: each branch is lanewise."""
        with np.errstate(all="ignore"):
            conditions = [np.asarray(condition()) for condition, _ in cases]
            values = [_f32(value()) for _, value in cases]
            default = _f32(otherwise())
        shape = np.broadcast_shapes(*(c.shape for c in conditions), *(v.shape for v in values),
                                    default.shape)
        return np.select([np.broadcast_to(c, shape) for c in conditions],
                         [np.broadcast_to(v, shape) for v in values],
                         np.broadcast_to(default, shape)).astype(np.float32)

    def floor_lookup(self, index, tables):
        """Rows ``trunc(index)`` (C's float -> int conversion) of ``tables`` and the fraction
        ``index - trunc(index)``. The row read is clipped to the tables (R5's bounds check,
        which comes after its fraction), so lanes outside them read the nearest row."""
        index = _f32(index)
        last = len(tables[0]) - 2
        with np.errstate(all="ignore"):
            whole = np.trunc(index)
            row = np.clip(np.nan_to_num(whole, nan=0.0, posinf=last, neginf=0.0), 0, last)
            fraction = index - whole
        row = row.astype(np.int64)
        return (*(np.asarray(table, dtype=np.float32)[row] for table in tables), fraction)
