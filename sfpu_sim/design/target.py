"""The function a polynomial approximates: a reference-registry name or a user's function.

Owns: evaluating the function at a point in mpmath (for the Remez exchange) and as a Taylor
series over an arb ball (for the certifier), whether a proof is possible (only registry
functions, which have an arb form, allow one), its parity, and where it is undefined. Knows
nothing of polynomials or formats.

Registry functions are :data:`sfpu_sim.reference.FUNCTIONS`: one definition per name, written
once for the reference layer's namespaces (``m.exp``, ``m.log``, ...). This module adds a third
namespace, :class:`SeriesMath`, that evaluates the same definition on truncated power series
with ball coefficients (python-flint ``arb_series``): at a ball ``X`` the series coefficient
``j`` encloses ``f^(j)(x)/j!`` for every ``x`` in ``X``.

A user's function (``register_kernel(..., reference=f)``: ``f`` takes and returns one mpmath
number) has no arb form: fits work, certification degrades to sampling (see
:mod:`sfpu_sim.design.supnorm`).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import flint
import mpmath

from sfpu_sim.errors import SfpuSimError
from sfpu_sim.reference import lookup
from sfpu_sim.reference.backends import ArbMath, MpMath

PARITY_SAMPLES = 7


class UndefinedOnInterval(SfpuSimError):
    """The function is undefined (or infinite) somewhere on the interval."""


class Undecided(Exception):
    """A branch of a definition (``x > 0``) cannot be decided on a ball straddling the
    boundary: the certifier splits the interval there."""


class Series:
    """An ``arb_series`` that a registry definition can compute with: arithmetic, the
    namespace's functions, and comparisons (``x > 0`` in softplus).

    A comparison of the variable itself with a number is decided on the exact interval the
    series stands for (``exact``): by the exact value at a point, by the interior of a wider
    interval. A branch boundary at an end of the interval is then harmless because the
    branches of the registry's definitions are one analytic function written two ways for
    numerical stability (softplus: ``x + log1p(exp(-x))`` or ``log1p(exp(x))``). Other
    comparisons are decided on the constant term's ball, or raise :class:`Undecided` (the
    certifier then splits the piece)."""

    __slots__ = ("s", "exact")

    def __init__(self, s, exact=None):
        self.s, self.exact = s, exact

    @staticmethod
    def _v(other):
        return other.s if isinstance(other, Series) else other

    def __add__(self, o):
        return Series(self.s + self._v(o))

    def __radd__(self, o):
        return Series(self._v(o) + self.s)

    def __sub__(self, o):
        return Series(self.s - self._v(o))

    def __rsub__(self, o):
        return Series(self._v(o) - self.s)

    def __mul__(self, o):
        return Series(self.s * self._v(o))

    def __rmul__(self, o):
        return Series(self._v(o) * self.s)

    def __truediv__(self, o):
        return Series(self.s / self._v(o))

    def __rtruediv__(self, o):
        return Series(self._v(o) / self.s)

    def __neg__(self):
        return Series(-self.s)

    def __pos__(self):
        return self

    def __pow__(self, k: int):
        if not isinstance(k, int) or k < 0:
            return (self.log() * k).exp()
        result = Series(flint.arb_series([1], prec=self.s.prec))
        for _ in range(k):
            result = result * self
        return result

    def _side(self, other) -> int:
        """The sign of ``self - other`` (see the class docstring)."""
        if self.exact is not None and isinstance(other, (int, float, Fraction)):
            low, high = (end - Fraction(other) for end in self.exact)
            if low == high:
                return (low > 0) - (low < 0)
            if low >= 0:
                return 1
            if high <= 0:
                return -1
            raise Undecided()
        difference = self.constant() - (other.constant() if isinstance(other, Series)
                                         else other)
        if difference > 0:                  # arb comparisons are True only when certain
            return 1
        if difference < 0:
            return -1
        if difference == 0:
            return 0
        raise Undecided()

    def __gt__(self, o):
        return self._side(o) > 0

    def __ge__(self, o):
        return self._side(o) >= 0

    def __lt__(self, o):
        return self._side(o) < 0

    def __le__(self, o):
        return self._side(o) <= 0

    def constant(self):
        coefficients = self.s.coeffs()
        return coefficients[0] if coefficients else flint.arb(0)

    def coefficients(self, terms: int) -> list:
        c = list(self.s.coeffs())[:terms]
        return c + [flint.arb(0)] * (terms - len(c))

    def exp(self):
        return Series(self.s.exp())

    def log(self):
        return Series(self.s.log())

    def sqrt(self):
        return Series(self.s.sqrt())

    def rsqrt(self):
        return Series(self.s.rsqrt())

    def sin(self):
        return Series(self.s.sin())

    def cos(self):
        return Series(self.s.cos())

    def erf(self):
        return Series(self.s.erf())

    def erfc(self):
        return Series(self.s.erfc())

    def atan(self):
        return Series(self.s.atan())

    def asin(self):
        return Series(self.s.asin())

    def acos(self):
        return Series(self.s.acos())


class SeriesMath(ArbMath):
    """The reference registry's math namespace on :class:`Series`: :class:`ArbMath`'s, with
    the functions arb_series lacks written through the ones it has."""
    log1p = staticmethod(lambda v: (1 + v).log())
    expm1 = staticmethod(lambda v: v.exp() - 1)
    exp2 = staticmethod(lambda v: (v * flint.arb(2).log()).exp())
    tanh = staticmethod(lambda v: 1 - 2 / ((2 * v).exp() + 1))
    sech = staticmethod(lambda v: 2 / (v.exp() + (-v).exp()))
    sinh = staticmethod(lambda v: (v.exp() - (-v).exp()) / 2)
    cosh = staticmethod(lambda v: (v.exp() + (-v).exp()) / 2)


def variable(ball, terms: int, exact=None) -> Series:
    """The series of ``x`` itself around (over) ``ball``: ``ball + t``; ``exact``: the exact
    interval ``(a, b)`` (Fractions; ``a == b`` at a point) the ball encloses, if known."""
    return Series(flint.arb_series([ball, 1], prec=terms), exact)


@dataclass(frozen=True)
class Target:
    """``name``: what the user typed; ``mp(x)``: the value at an mpmath number (current
    precision); ``formula``: the registry definition (``formula(x, namespace)``), or None for a
    user's function, which then cannot be certified."""
    name: str
    description: str
    mp: Callable
    formula: Callable | None = None

    @property
    def provable(self) -> bool:
        return self.formula is not None

    def series(self, x: Series) -> Series:
        """The function composed with the series ``x`` (registry functions only)."""
        value = self.formula(x, SeriesMath)
        return value if isinstance(value, Series) else Series(
            flint.arb_series([value], prec=x.s.prec))

    def ball(self, x):
        """The function over (at) an arb ball (registry functions only)."""
        return self.formula(x, ArbMath)

    def parity(self, half_width) -> int:
        """+1 if f looks even, -1 if odd, 0 otherwise, from samples in ``(0, half_width]``.
        Only the choice of the fit interval rests on it; certification never does."""
        tolerance = mpmath.mpf(2) ** (16 - mpmath.mp.prec)
        found = {1, -1}
        for i in range(1, PARITY_SAMPLES + 1):
            x = half_width * mpmath.mpf(i) / (PARITY_SAMPLES + 0.5)
            try:
                a, b = self.mp(x), self.mp(-x)
            except (ValueError, ZeroDivisionError):
                return 0
            if not (_real(a) and _real(b)):
                return 0
            scale = max(abs(a), abs(b), mpmath.mpf(2) ** -1000)
            found = {s for s in found if abs(a - s * b) <= tolerance * scale}
        return found.pop() if len(found) == 1 else 0


def _real(v) -> bool:
    return isinstance(v, mpmath.mpf) and mpmath.isfinite(v)


def registry_target(name: str) -> Target:
    """A function of the reference registry by name (``UnknownFunction`` if absent). A user's
    function registered there (``register_kernel(..., reference=f)``) has no arb form: its
    target cannot be certified."""
    function = lookup(name)
    provable = "flint" in function.backends
    return Target(name, function.description, lambda x: function.formula(x, MpMath),
                  function.formula if provable else None)


def user_target(name: str, function: Callable, description: str = "") -> Target:
    """A user's function of one mpmath number (no proof possible)."""
    def mp(x):
        value = function(x)
        return value if isinstance(value, (mpmath.mpf, mpmath.mpc)) else mpmath.mpf(value)
    return Target(name, description or f"user function {name}", mp)
