"""The approximation interval ``[lo, hi]``, with ends given as expressions (``-pi/4,pi/4``,
``0,log(2)``, ``0.5,1``).

Owns: reading ``LO,HI``, the ends as exact numbers where they are rational and as tight
enclosures where they are not (pi/4), and the dyadic hull the certifier subdivides. Knows
nothing of functions or polynomials.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath

from sfpu_sim.design.balls import arb_precision, mid_rad
from sfpu_sim.design.expr import ARB, MPMATH, BadExpression, Expr, parse
from sfpu_sim.errors import SfpuSimError

ENCLOSURE_BITS = 256            # working precision of the ends' enclosures
FP32_OVERFLOW = 2 ** 128        # FP32 numbers are below it in magnitude


class BadInterval(SfpuSimError):
    """An interval that does not parse, or whose ends are not in increasing order."""


@dataclass(frozen=True)
class Interval:
    """``[lo, hi]`` with ``lo < hi``; ``lo``/``hi`` are the parsed end expressions."""
    lo: Expr
    hi: Expr

    @property
    def text(self) -> str:
        return f"{self.lo.text},{self.hi.text}"

    def mp(self) -> tuple:
        """The ends as mpmath numbers at the current working precision."""
        return self.lo.evaluate(MPMATH), self.hi.evaluate(MPMATH)

    def floats(self) -> tuple[float, float]:
        with mpmath.workprec(ENCLOSURE_BITS):
            return tuple(float(v) for v in self.mp())

    def balls(self) -> tuple:
        """The ends as arb balls (each contains the exact end)."""
        with arb_precision(ENCLOSURE_BITS):
            return self.lo.evaluate(ARB), self.hi.evaluate(ARB)

    def hull(self) -> tuple[Fraction, Fraction]:
        """Dyadic ``(a, b)`` with ``a <= lo`` and ``b >= hi``: the ends themselves when they
        are dyadic, otherwise within 2**-250 relative of them."""
        (lo_mid, lo_rad), (hi_mid, hi_rad) = (mid_rad(v) for v in self.balls())
        return lo_mid - lo_rad, hi_mid + hi_rad

    def inner(self) -> tuple[Fraction, Fraction]:
        """Dyadic ``(a, b)`` with ``lo <= a < b <= hi``, as close to the ends as the hull."""
        (lo_mid, lo_rad), (hi_mid, hi_rad) = (mid_rad(v) for v in self.balls())
        return lo_mid + lo_rad, hi_mid - hi_rad


def parse_interval(text: str, where: str = "--interval") -> Interval:
    """Read ``LO,HI`` (see the module docstring); one-line errors name ``where``."""
    parts = _split_top_level(text)
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise BadInterval(f"{where}: expected LO,HI (two expressions separated by a comma), "
                          f"got {text!r}")
    try:
        lo, hi = (parse(p, f"{where} {name}") for p, name in zip(parts, ("LO", "HI")))
    except BadExpression as error:
        raise BadInterval(str(error)) from None
    interval = Interval(lo, hi)
    a, b = interval.balls()
    for end, ball in ((lo, a), (hi, b)):
        if not ball.is_finite():
            raise BadInterval(f"{where}: {end.text} is not a finite real number")
        # A kernel's inputs are FP32 at most; ends beyond also overflow the floats reported.
        if not ball.abs_upper() < FP32_OVERFLOW:
            raise BadInterval(f"{where}: {end.text} is beyond the FP32 range of SFPU inputs "
                              f"(|x| < 2^128, about 3.4e38)")
    if not (a < b):
        raise BadInterval(f"{where}: LO must be less than HI, got [{lo.text}, {hi.text}] = "
                          f"[{a.mid()}, {b.mid()}]")
    return interval


def _split_top_level(text: str) -> list[str]:
    """Split at commas outside parentheses (``log(2)`` has none, but be exact about it)."""
    parts, depth, current = [], 0, ""
    for character in text:
        depth += (character == "(") - (character == ")")
        if character == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += character
    return parts + [current]
