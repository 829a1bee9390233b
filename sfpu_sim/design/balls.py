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


# Bounds of magnitude 2**+-SCALE_BITS or beyond are not made Fractions: exp(-1e8) is about
# 2**-144269504, and as an exact Fraction every sum and comparison with it took seconds (a fit
# on [-1e8, 0] never ended); over [-3e38, 0] a bound was 2**(9e27), beyond any memory. Below,
# an upper bound becomes TINY and a lower bound 0 (still bounds; no error that matters is that
# small); above, OutOfScale is raised and the caller treats the bound as unknown.
SCALE_BITS = 20000
TINY = Fraction(1, 1 << SCALE_BITS)


class OutOfScale(ArithmeticError):
    """A bound of ``2**SCALE_BITS`` or more."""


def _scale(point) -> int:
    """-1 below ``2**-SCALE_BITS`` (0 excluded), 1 at ``2**SCALE_BITS`` or above, else 0."""
    mantissa, exponent = point.man_exp()
    if mantissa == 0:
        return 0
    top = int(exponent) + int(abs(mantissa)).bit_length()
    return -1 if top <= -SCALE_BITS else 1 if top > SCALE_BITS else 0


def upper(ball) -> Fraction:
    """An exact upper bound of ``|ball|`` (arb's, rounded up to the working precision, at least
    :data:`TINY` unless 0); :class:`OutOfScale` if it is ``2**SCALE_BITS`` or more."""
    bound = ball.abs_upper().mid()
    scale = _scale(bound)
    if scale > 0:
        raise OutOfScale()
    return TINY if scale < 0 else dyadic(bound)


def lower(ball) -> Fraction:
    """An exact lower bound of ``|ball|`` (arb's, rounded down to the working precision, and
    0 below :data:`TINY`); :class:`OutOfScale` if it is ``2**SCALE_BITS`` or more."""
    bound = ball.abs_lower().mid()
    scale = _scale(bound)
    if scale > 0:
        raise OutOfScale()
    return Fraction(0) if scale < 0 else dyadic(bound)


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
