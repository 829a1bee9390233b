"""One approximation problem: function, interval, powers, fixed coefficients, error measure.

Owns: checking the problem (one-line errors for what cannot be fitted), the error function in
the two forms the rest needs (mpmath points for the Remez exchange and the quantiser, arb
Taylor series for the certifier), and the two reductions that make the exchange well posed:

* **parity**: an odd (even) function with odd (even) powers on an interval around 0 has an odd
  (even) error, so the fit runs on ``[0, max(-lo, hi)]``, where the powers form a Chebyshev
  system; the certifier still covers ``[lo, hi]``.
* **a simple zero at 0 under relative error** (sin with powers 1, 3, 5, 7):
  ``(p - f)/f = (p/x - f/x)/(f/x)``, so the exchange works with ``f/x`` and the powers minus
  one, and the certifier encloses the Taylor coefficients of ``f/x`` over a ball containing 0
  by those of ``f`` shifted by one (``f(x)/x = integral_0^1 f'(s x) ds``, so coefficient ``j``
  of ``f/x`` over the ball is a mean of coefficient ``j + 1`` of ``f`` over it).

The error measure: ``E(x) = w(x) * (p(x) - f(x))`` (absolute) or ``w(x) * (p(x) - f(x)) / f(x)``
(relative), ``w`` the weight (1 by default). Knows nothing of number formats or of how the
coefficients are chosen.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import flint
import mpmath

from sfpu_sim.design.balls import arb_precision, exact_ball
from sfpu_sim.design.expr import ARB, MPMATH, SERIES, Expr
from sfpu_sim.design.interval import Interval
from sfpu_sim.design.remez import ErrorFunction
from sfpu_sim.design.target import Series, Target, Undecided, UndefinedOnInterval, variable
from sfpu_sim.errors import SfpuSimError

CHECK_PIECES = 32               # first subdivision when checking where f is defined
CHECK_DEPTH = 24                # bisections before a trouble spot is reported
CHECK_TERMS = 4                 # derivatives that must be finite (the certifier's Taylor forms)


class BadProblem(SfpuSimError):
    """Powers, fixed coefficients or an error measure that cannot be fitted."""


@dataclass(frozen=True)
class Problem:
    """See the module docstring. ``powers``: all powers, ascending; ``fixed``: power -> exact
    value for the coefficients not fitted."""
    target: Target
    interval: Interval
    powers: tuple
    fixed: dict = field(default_factory=dict)
    relative: bool = False
    weight: Expr | None = None

    # ---------------------------------------------------------------------------------------
    @property
    def free(self) -> tuple:
        return tuple(k for k in self.powers if k not in self.fixed)

    @property
    def shift(self) -> int:
        """1 when relative error meets the zero of f at x = 0 (see the module docstring)."""
        lo, hi = self.interval.hull()
        if not self.relative or not lo <= 0 <= hi:
            return 0
        with mpmath.workprec(64):
            return 1 if self.target.mp(mpmath.mpf(0)) == 0 else 0

    def parity(self) -> int:
        """+1 or -1 if the fit may run on the half interval (see the module docstring)."""
        lo, hi = self.interval.floats()
        kinds = {k % 2 for k in self.powers}
        if not (lo < 0 < hi) or len(kinds) != 1:
            return 0
        want = 1 if kinds == {0} else -1
        half = mpmath.mpf(min(-lo, hi))
        if self.target.parity(half) != want:
            return 0
        if self.weight is not None and self.weight.uses_x:
            even = Target("weight", "", lambda x: self.weight.evaluate(MPMATH, x))
            if even.parity(half) != 1:
                return 0
        return want

    def fit_interval(self) -> tuple:
        """``(lo, hi)`` of the exchange (mpmath numbers at the current precision)."""
        lo, hi = self.interval.mp()
        if self.parity():
            return mpmath.mpf(0), max(-lo, hi)
        return lo, hi

    # ---------------------------------------------------------------------------------------
    # The exchange's form: E = M * (sum a_k x**k - g) in the shifted variable
    # ---------------------------------------------------------------------------------------
    def error_function(self) -> ErrorFunction:
        f, shift, weight = self.target.mp, self.shift, self.weight

        def g(x):
            if shift == 0:
                return f(x)
            if x == 0:
                return mpmath.diff(f, 0)
            return f(x) / x

        def multiplier(x):
            m = weight.evaluate(MPMATH, x) if weight is not None else mpmath.mpf(1)
            return m / g(x) if self.relative else m

        lo, hi = self.fit_interval()
        if not self.target.provable:
            return ErrorFunction(g, multiplier, lo, hi)
        ball = self.target.ball

        def arb_g(x):
            if shift == 0:
                return ball(x)
            if x.is_zero():
                return self.target.series(variable(x, 2)).coefficients(2)[1]
            return ball(x) / x

        def arb_multiplier(x):
            m = weight.evaluate(ARB, x) if weight is not None else flint.arb(1)
            return m / arb_g(x) if self.relative else m
        return ErrorFunction(g, multiplier, lo, hi, arb_g, arb_multiplier)

    def shifted(self, powers) -> tuple:
        return tuple(k - self.shift for k in powers)

    # ---------------------------------------------------------------------------------------
    # The certifier's form: Taylor coefficients of E at (over) a ball
    # ---------------------------------------------------------------------------------------
    def error_series(self, coefficients: dict, ball, terms: int, exact=None) -> list:
        """``terms`` Taylor coefficients of E around ``ball`` (each encloses the coefficient
        for every point of the ball); ``coefficients``: power -> exact Fraction; ``exact``:
        the interval ``(a, b)`` the ball stands for (see :class:`~.target.Series`)."""
        x = variable(ball, terms, exact)
        if self.shift:
            if ball.contains(0):
                f = self.target.series(variable(ball, terms + 1, exact)).coefficients(
                    terms + 1)
                g = Series(flint.arb_series(f[1:], prec=terms))
            else:
                g = self.target.series(x) / x
            difference = (_polynomial(coefficients, x, 1) - g) / g
        else:
            f = self.target.series(x)
            difference = _polynomial(coefficients, x, 0) - f
            if self.relative:
                difference = difference / f
        if self.weight is not None:
            difference = difference * self.weight.evaluate(SERIES, x)
        return difference.coefficients(terms)

    # ---------------------------------------------------------------------------------------
    # Checks
    # ---------------------------------------------------------------------------------------
    def check(self) -> None:
        """One-line errors for a problem that cannot be fitted (see :class:`BadProblem`,
        :class:`~sfpu_sim.design.target.UndefinedOnInterval`)."""
        if not self.powers:
            raise BadProblem("powers: the list is empty; give at least one power "
                             "(--powers 0,1,2 or --degree N)")
        if any(k < 0 for k in self.powers) or len(set(self.powers)) != len(self.powers):
            raise BadProblem(f"powers: {list(self.powers)} must be distinct integers >= 0")
        stray = sorted(set(self.fixed) - set(self.powers))
        if stray:
            raise BadProblem(f"--fix: power {stray[0]} is not among the powers "
                             f"{list(self.powers)}")
        if not self.free:
            raise BadProblem("--fix: every coefficient is fixed; nothing is left to fit")
        self._check_defined()
        self._check_weight()
        if self.relative:
            self._check_relative()

    def _check_defined(self) -> None:
        name, (lo, hi) = self.target.name, self.interval.hull()
        if not self.target.provable:
            self._check_samples(lambda v: _real(v), "undefined or not finite")
            return
        bad = self._trouble(lambda ball, exact: all(c.is_finite() for c in self.target.series(
            variable(ball, CHECK_TERMS, exact)).coefficients(CHECK_TERMS)))
        if bad is not None:
            raise UndefinedOnInterval(
                f"--interval [{self.interval.text}]: {name} is undefined, infinite or not "
                f"smooth near x = {float(bad):.6g} (a polynomial fit needs {name} and its "
                f"derivatives finite on the closed interval [{float(lo):.6g}, {float(hi):.6g}])")

    def _check_weight(self) -> None:
        """The weight must be finite with finite derivatives (the certifier's Taylor forms) and
        non-zero (the exchange divides by it, and a sign change breaks the alternation) on the
        closed interval; otherwise the exchange would only report a singular system."""
        if self.weight is None:
            return
        weight, (lo, hi) = self.weight, self.interval.hull()

        def series(ball, exact, terms) -> list:
            value = weight.evaluate(SERIES, variable(ball, terms, exact))
            return value.coefficients(terms) if isinstance(value, Series) else [value]

        def finite(ball, exact):
            return all(c.is_finite() for c in series(ball, exact, CHECK_TERMS))

        interval = f"the closed interval [{float(lo):.6g}, {float(hi):.6g}]"
        bad = self._trouble(finite)
        if bad is not None:
            raise BadProblem(f"--weight {weight.text}: not finite or not smooth near x = "
                             f"{float(bad):.6g} (the weight and its derivatives must be finite "
                             f"on {interval})")
        bad = self._trouble(lambda ball, exact: not series(ball, exact, 1)[0].contains(0))
        if bad is not None:
            raise BadProblem(f"--weight {weight.text}: zero near x = {float(bad):.6g} (the "
                             f"weight must be non-zero on {interval}: the fit divides by it)")

    def _check_relative(self) -> None:
        name = self.target.name
        if self.shift and (self.powers[0] == 0 and self.fixed.get(0, 1) != 0):
            raise BadProblem(f"--error relative: {name}(0) = 0 and the interval contains 0, so "
                             f"every power must be >= 1 (the polynomial must vanish at 0 too)")
        message = (f"--error relative: {name} vanishes near x = {{:.6g}} inside the interval "
                   f"(relative error needs {name} != 0 there; a simple zero at x = 0 is "
                   f"allowed when every power is >= 1)")
        if not self.target.provable:
            self._check_samples(lambda v: v != 0, "zero", message)
            return
        shift = self.shift

        def nonzero(ball, exact):
            if shift and ball.contains(0):
                coefficients = self.target.series(variable(ball, 2, exact)).coefficients(2)
                return not coefficients[1].contains(0)
            return not self.target.series(variable(ball, 1, exact)).constant().contains(0)
        bad = self._trouble(nonzero)
        if bad is not None:
            raise BadProblem(message.format(float(bad)))

    def _trouble(self, good) -> Fraction | None:
        """A point near which ``good(ball)`` stays false under bisection, or None: an end of
        the last piece if ``good`` fails there exactly (x = 0 for 1/x), else its middle."""
        lo, hi = self.interval.hull()
        pieces = [(lo + (hi - lo) * i / CHECK_PIECES, lo + (hi - lo) * (i + 1) / CHECK_PIECES)
                  for i in range(CHECK_PIECES)]

        def holds(a, b) -> bool:
            try:
                return good(_ball(a, b), (a, b))
            except (Undecided, ValueError, ZeroDivisionError):   # arb: a divisor's ball has 0
                return False
        with arb_precision(max(128, flint.ctx.prec)):
            stack = [(a, b, 0) for a, b in reversed(pieces)]
            while stack:
                a, b, depth = stack.pop()
                if holds(a, b):
                    continue
                if depth >= CHECK_DEPTH:
                    return next((end for end in (a, b) if not holds(end, end)), (a + b) / 2)
                middle = (a + b) / 2
                stack += [(middle, b, depth + 1), (a, middle, depth + 1)]
        return None

    def _check_samples(self, good, what: str, message: str | None = None) -> None:
        lo, hi = self.interval.mp()
        for x in (lo + (hi - lo) * mpmath.mpf(i) / 256 for i in range(257)):
            try:
                value = self.target.mp(x)
                ok = good(value) and _real(value)
            except (ValueError, ZeroDivisionError, TypeError):
                ok = False
            if not ok:
                raise UndefinedOnInterval(
                    message.format(float(x)) if message else
                    f"--interval [{self.interval.text}]: {self.target.name} is {what} at "
                    f"x = {float(x):.6g}")


def _real(v) -> bool:
    return isinstance(v, mpmath.mpf) and mpmath.isfinite(v)


def _polynomial(coefficients: dict, x: Series, shift: int) -> Series:
    """``sum c_k x**(k - shift)`` on a series, Horner from the top power (exact coefficients)."""
    top = max(coefficients)
    result = Series(flint.arb_series([0], prec=x.s.prec))
    for k in range(top, shift - 1, -1):
        result = result * x + exact_ball(coefficients.get(k, Fraction(0)))
    return result


def _ball(a: Fraction, b: Fraction):
    """An arb ball containing ``[a, b]`` (dyadic ends)."""
    return exact_ball((a + b) / 2).union(exact_ball(a)).union(exact_ball(b)) \
        if a != b else exact_ball(a)
