"""arb balls (python-flint) as the design package uses them: the working precision, exact
conversions from and to Fractions and mpmath numbers, and exact bounds of a ball.

Owns nothing but these conversions; knows nothing of functions or polynomials.
"""
from __future__ import annotations

from fractions import Fraction

import flint
import mpmath


class arb_precision:
    """Context manager: python-flint's working precision set to ``bits``, then restored."""

    def __init__(self, bits: int):
        self.bits = bits

    def __enter__(self):
        self.saved = flint.ctx.prec
        flint.ctx.prec = self.bits

    def __exit__(self, *exc):
        flint.ctx.prec = self.saved


def dyadic(point) -> Fraction:
    """An exact arb point (a ball's ``mid()`` or ``rad()``) as a Fraction."""
    mantissa, exponent = point.man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def mid_rad(ball) -> tuple[Fraction, Fraction]:
    """A ball's midpoint and radius, exactly: the ball is ``[mid - rad, mid + rad]``."""
    return dyadic(ball.mid()), dyadic(ball.rad())


def upper(ball) -> Fraction:
    """An exact upper bound of ``|ball|``."""
    mid, rad = mid_rad(ball)
    return abs(mid) + rad


def lower(ball) -> Fraction:
    """An exact lower bound of ``|ball|``."""
    mid, rad = mid_rad(ball)
    return max(Fraction(0), abs(mid) - rad)


def exact_ball(value: Fraction):
    """The ball of a Fraction: exact for a dyadic number of up to the working precision."""
    return flint.arb(flint.fmpq(value.numerator, value.denominator))


def to_arb(value):
    """An mpmath number, Fraction, float or int as an arb number at mpmath's working precision
    (exact for binary numbers of up to that many bits)."""
    with arb_precision(mpmath.mp.prec):
        if isinstance(value, (int, float)):
            return flint.arb(value)
        if isinstance(value, Fraction):
            return exact_ball(value)
        sign, mantissa, exponent, _ = value._mpf_
        if not mantissa:
            return flint.arb(0)
        number = flint.arb(flint.fmpz(int(mantissa))) * flint.arb(2) ** int(exponent)
        return -number if sign else number


def to_mpf(ball):
    """The midpoint of an arb ball as an mpmath number (exactly)."""
    mantissa, exponent = ball.mid().man_exp()
    return mpmath.ldexp(mpmath.mpf(int(mantissa)), int(exponent))
