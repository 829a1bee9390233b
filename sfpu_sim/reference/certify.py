"""Certification: one finite input -> the 64-bit round-to-odd value of f(x) (Ziv's ladder
with anchors), and the vectorised evaluation of a whole input array."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sfpu_sim import formats
from sfpu_sim.reference.core import (
    FINITE,
    HUGE,
    HUGE_E,
    MAX_PRECISION,
    ODD_BITS,
    START_PRECISION,
    TINY,
    TINY_E,
    ZERO,
    UnresolvedRounding,
)
from sfpu_sim.reference.definitions import Function


def _round_to_odd(mantissa: int, exponent: int) -> tuple:
    """(negative, m, e) with ``m * 2**e`` the 64-bit round-to-odd of ``mantissa * 2**exponent``
    (nonzero), ``2**63 <= m < 2**64``; magnitudes beyond 2**+-1100 become the stand-ins."""
    negative = mantissa < 0
    a = -mantissa if negative else mantissa
    n = a.bit_length()
    top = exponent + n - 1
    if top < TINY_E:
        return (negative,) + TINY
    if top >= HUGE_E:
        return (negative,) + HUGE
    if n > ODD_BITS:
        shift = n - ODD_BITS
        m = a >> shift
        if (m << shift) != a:
            m |= 1
        return negative, m, exponent + shift
    return negative, a << (ODD_BITS - n), exponent - (ODD_BITS - n)


def _compare(m1: int, e1: int, m2: int, e2: int) -> int:
    """Sign of ``m1*2**e1 - m2*2**e2`` for exact dyadics (exponents may be astronomically
    large, so magnitudes are compared by their leading bit before any shift)."""
    s1, s2 = (m1 > 0) - (m1 < 0), (m2 > 0) - (m2 < 0)
    if s1 != s2 or s1 == 0:
        return (s1 > s2) - (s1 < s2)
    t1, t2 = e1 + abs(m1).bit_length(), e2 + abs(m2).bit_length()
    if t1 != t2:
        return s1 if t1 > t2 else -s1
    base = min(e1, e2)
    d = (m1 << (e1 - base)) - (m2 << (e2 - base))
    return (d > 0) - (d < 0)


def _certify(function: Function, x: float, backend) -> tuple:
    """(cls, negative, m, e, precision) for a finite input inside the domain."""
    precision = START_PRECISION
    while precision <= MAX_PRECISION:
        bounds = backend.enclose(function, x, precision)
        if bounds is not None:
            (lo, lo_exp), (hi, hi_exp) = bounds
            if lo == 0 and hi == 0:
                return ZERO, False, 0, 0, precision          # an exact zero (log(1)): +0
            low = _round_to_odd(lo, lo_exp) if lo != 0 else None
            high = _round_to_odd(hi, hi_exp) if hi != 0 else None
            if low is not None and low == high:
                return (FINITE,) + low + (precision,)
            if function.anchor is not None:
                low, high = _use_anchor(function.anchor(x), bounds, low, high)
                if low is not None and low == high:
                    return (FINITE,) + low + (precision,)
        precision *= 2
    raise UnresolvedRounding(f"{function.name}({x!r}): the exact value stays on a rounding "
                             f"boundary up to {MAX_PRECISION} bits")


def _use_anchor(anchor, bounds, low, high):
    """Round-to-odd ends of the ball cut at the anchor: f(x) lies strictly on one side of the
    anchor ``a``, so the end on the other side is replaced by a point just beside ``a`` (one
    that rounds to odd like every value between ``a`` and its 64-bit neighbour)."""
    if anchor is None:
        return None, None
    a, side = anchor
    (lo, lo_exp), (hi, hi_exp) = bounds
    if a == 0:
        if side > 0 and hi > 0 >= lo:
            return (False,) + TINY, high
        if side < 0 and lo < 0 <= hi:
            return low, (True,) + TINY
        return None, None
    # an int anchor is taken exactly (x - 1 beyond 2**53 is no float: tanhshrink's tail)
    numerator, denominator = (a if isinstance(a, int) else float(a)).as_integer_ratio()
    a_exp = 1 - denominator.bit_length()                 # a = numerator * 2**a_exp
    if _compare(lo, lo_exp, numerator, a_exp) > 0 or _compare(hi, hi_exp, numerator, a_exp) < 0:
        return None, None                                 # the ball does not contain a
    beside = _round_to_odd((numerator << 1200) + side * abs(numerator), a_exp - 1200)
    return (beside, high) if side > 0 else (low, beside)


@dataclass(frozen=True)
class Certified:
    """Certified values, one per input: class, sign, and ``m * 2**e`` (the 64-bit round-to-odd
    value) for FINITE; ``precision`` is the working precision that settled each (0: special)."""
    cls: np.ndarray
    negative: np.ndarray
    m: np.ndarray
    e: np.ndarray
    precision: np.ndarray

    def take(self, index) -> "Certified":
        return Certified(*(a[index] for a in (self.cls, self.negative, self.m, self.e,
                                               self.precision)))


def evaluate(function: Function, x: np.ndarray, backend) -> Certified:
    """Certify f at every element of float64 array ``x`` (exact input values)."""
    n = x.shape[0]
    out = np.full(n, math.nan)
    finite = np.isfinite(x) & (x != 0)
    if function.domain == "positive":
        finite &= x > 0
    elif function.domain is not None:
        low, high = function.domain
        finite &= (x >= low) & (x <= high)
    for point, value in function.points:
        out[x == point] = value
        finite &= x != point
    zero_values = function.at_zero()
    if zero_values is None:
        finite |= x == 0                                  # evaluate the formula at 0
    else:
        out[x == 0] = np.where(np.signbit(x[x == 0]), zero_values[1], zero_values[0])
    out[x == np.inf] = function.inf[0]
    out[x == -np.inf] = function.inf[1]
    special = formats.exact_from_float64(out)
    cls, negative, m, e = special.cls, special.negative, special.m, special.e
    precision = np.zeros(n, dtype=np.uint16)
    index = np.flatnonzero(finite)
    if index.size:
        rows = [_certify(function, value, backend) for value in x[index].tolist()]
        c, s, mm, ee, pp = zip(*rows)
        cls[index] = c
        negative[index] = s
        m[index] = np.array(mm, dtype=np.uint64)
        e[index] = ee
        precision[index] = pp
    return Certified(cls, negative, m, e, precision)
