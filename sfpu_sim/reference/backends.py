"""Backends: evaluate a definition at one input and return an enclosure of the exact value
(python-flint arb balls, proven; mpmath at two precisions, checked). ``enclose`` takes a
:class:`sfpu_sim.reference.definitions.Function` (not imported here: definitions builds on
the backends, not the other way)."""
from __future__ import annotations

from fractions import Fraction

import mpmath

from sfpu_sim.reference.core import HUGE_E, ODD_BITS, TINY_E, ReferenceReturnedNaN, UnknownBackend

try:                                    # optional: the proven (and faster) backend
    import flint
except ImportError:                     # pragma: no cover - exercised only without python-flint
    flint = None

class ArbMath:
    """The math namespace of the flint backend (arb balls)."""
    exp = staticmethod(lambda v: v.exp())
    log = staticmethod(lambda v: v.log())
    log1p = staticmethod(lambda v: v.log1p())
    expm1 = staticmethod(lambda v: v.expm1())
    exp2 = staticmethod(lambda v: flint.arb(2) ** v)
    sqrt = staticmethod(lambda v: v.sqrt())
    rsqrt = staticmethod(lambda v: v.rsqrt())
    tanh = staticmethod(lambda v: v.tanh())
    sech = staticmethod(lambda v: v.sech())
    erf = staticmethod(lambda v: v.erf())
    erfc = staticmethod(lambda v: v.erfc())
    sin = staticmethod(lambda v: v.sin())
    cos = staticmethod(lambda v: v.cos())
    atan = staticmethod(lambda v: v.atan())
    asin = staticmethod(lambda v: v.asin())
    acos = staticmethod(lambda v: v.acos())
    sinh = staticmethod(lambda v: v.sinh())
    cosh = staticmethod(lambda v: v.cosh())
    pi = staticmethod(lambda: flint.arb.pi())

    @staticmethod
    def num(p: int, q: int = 1):
        return flint.arb(p) if q == 1 else flint.arb(flint.fmpq(p, q))


class MpMath:
    """The math namespace of the mpmath backend."""
    exp, log, log1p, sqrt = mpmath.exp, mpmath.log, mpmath.log1p, mpmath.sqrt
    tanh, sech, erf, erfc, sin, cos = (mpmath.tanh, mpmath.sech, mpmath.erf, mpmath.erfc,
                                       mpmath.sin, mpmath.cos)
    rsqrt = staticmethod(lambda v: 1 / mpmath.sqrt(v))
    expm1, atan, asin, acos, sinh, cosh = (mpmath.expm1, mpmath.atan, mpmath.asin, mpmath.acos,
                                           mpmath.sinh, mpmath.cosh)
    # 2^k at an integer k is an exact power (mpmath.power takes far too long at k ~ 1e38)
    exp2 = staticmethod(lambda v: mpmath.ldexp(1, int(v)) if v == int(v)
                        else mpmath.exp(v * mpmath.ln2))
    pi = staticmethod(lambda: +mpmath.pi)

    @staticmethod
    def num(p: int, q: int = 1):
        return mpmath.mpf(p) / q


class FlintBackend:
    """Proven enclosures: arb ball arithmetic."""
    name = "flint"

    @property
    def versions(self) -> dict:
        return {"flint": flint.__version__}

    def enclose(self, function, x: float, precision: int):
        """(lower, upper) bounds of f(x) as exact (mantissa, exponent) pairs, or None."""
        context = flint.ctx
        saved = context.prec
        context.prec = precision
        try:
            ball = function.formula(flint.arb(x), ArbMath)
            if not ball.is_finite():
                return None
            lower, upper = ball.lower().man_exp(), ball.upper().man_exp()
        finally:
            context.prec = saved
        return (int(lower[0]), int(lower[1])), (int(upper[0]), int(upper[1]))


class MpmathBackend:
    """Checked, not proven: evaluations at ``precision + 24`` and ``precision + 56`` bits must
    agree to ``2**-precision`` relative, and the enclosure is the finer one widened by
    ``2**(4 - precision)`` relative. (mpmath's working precision is not its accuracy: its erfc
    was measured 21 bits short at x = 1100, 10 bits short at x = 17, and its exponent wrong in
    the 17th digit at x = 6e23.) Values beyond the stand-in limits only need the same side of
    the limit at both precisions and a sign: the function's zero anchor's, or else the same at
    both precisions. A short value both evaluations agree on is exact if the function's
    ``is_exact`` check proves it."""
    name = "mpmath"

    @property
    def versions(self) -> dict:
        return {"mpmath_backend": mpmath.libmp.BACKEND}

    def enclose(self, function, x: float, precision: int):
        context = mpmath.mp            # set and restored here: two workprec blocks cost 10%
        saved = context.prec
        try:
            context.prec = precision + 24
            coarse = function.formula(mpmath.mpf(x), MpMath)
            context.prec = precision + 56
            fine = function.formula(mpmath.mpf(x), MpMath)
        finally:
            context.prec = saved
        if mpmath.isnan(coarse) and mpmath.isnan(fine):
            # mpmath has no overflow, so NaN at a finite input is the definition's (a user's
            # reference): no precision settles it, and the ladder would blame rounding. (An
            # arb ball, unlike this, can be NaN at a low precision and fine at a higher one.)
            raise ReferenceReturnedNaN(f"the reference {function.name!r} returned NaN at "
                                       f"x = {x!r}, inside its domain: it must give a number "
                                       f"there")
        if not (mpmath.isfinite(coarse) and mpmath.isfinite(fine)):
            return None
        sign, man, exp, bc = fine._mpf_
        if man == 0:
            return ((0, 0), (0, 0)) if coarse == 0 else None
        if sign:
            man = -man
        top = exp + bc - 1
        if function.is_exact is not None and coarse == fine and bc <= ODD_BITS:
            value = Fraction(man) * Fraction(2) ** exp
            if function.is_exact(Fraction(x), value):      # proven exact: sqrt(4) = 2
                return (man, exp), (man, exp)
        if top < TINY_E - 100 or top >= HUGE_E + 100:
            c_sign, c_man, c_exp, c_bc = coarse._mpf_
            if c_man == 0 or (c_exp + c_bc - 1 < TINY_E) != (top < TINY_E):
                return None
            anchor = function.anchor(x) if function.anchor is not None else None
            if top < TINY_E and anchor is not None and anchor[0] == 0:
                negative = anchor[1] < 0                  # the sign is proven, the value not
            elif c_sign == sign:
                negative = bool(sign)
            else:
                return None
            stand_in = -man if negative != (man < 0) else man
            return (stand_in, exp), (stand_in, exp)
        with mpmath.workprec(precision + 64):
            if abs(coarse - fine) > abs(fine) * mpmath.ldexp(1, -precision):
                return None
        radius_exp = top + 5 - precision            # 2**radius_exp >= |fine| * 2**(4-prec)
        base = min(exp, radius_exp)
        centre = man << (exp - base)
        radius = 1 << (radius_exp - base)
        return (centre - radius, base), (centre + radius, base)


BACKENDS = {"flint": FlintBackend(), "mpmath": MpmathBackend()}


def backend(name):
    if name is None:
        name = "flint" if flint is not None else "mpmath"
    if name not in BACKENDS:
        raise UnknownBackend(f"unknown reference backend {name!r}; known: {', '.join(BACKENDS)}")
    if name == "flint" and flint is None:
        raise UnknownBackend("backend 'flint' needs python-flint (pip install python-flint); "
                             "backend 'mpmath' works without it")
    return BACKENDS[name]
