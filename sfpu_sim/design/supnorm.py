"""A proven bound on the sup-norm error of a polynomial with exact coefficients.

Owns: the bound, its proof method and the statement of what it proves. Knows nothing of how the
coefficients were chosen or of kernels.

What is proven
--------------
For a registry function ``f`` (one with an arb form), :func:`certify` returns ``upper`` and
``lower`` with::

    lower <= max over x in [lo, hi] of |E(x)| <= upper

where ``E(x) = w(x) * (p(x) - f(x))`` (absolute error) or ``w(x) * (p(x) - f(x)) / f(x)``
(relative), ``p`` the polynomial with the given coefficients *as exact binary numbers, evaluated
in exact real arithmetic* (not in any floating-point or SFPU arithmetic: the device's rounding
is the sweep's business), ``w`` the weight (1 by default), and ``[lo, hi]`` the real interval
(``pi/4`` is pi/4, not a float near it). ``lower`` is ``|E(x0)|`` at a point ``x0`` of the
interval (``argmax``), so the sup is at least that. The proof rests on python-flint's arb ball
arithmetic being correct (every operation returns a ball containing the exact result) and on
the registry's definition of ``f`` being the function meant.

Method (a Taylor form over an adaptive subdivision)
---------------------------------------------------
The hull of the interval is cut into pieces (at 0 too, for the zero-at-0 relative case). On a
piece with centre ``m`` and radius ``r``, for ``|t| <= r``::

    E(m + t) = c0 + c1 t + c2 t^2 + ... + c_{K-1} t^(K-1) + R(t),  |R(t)| <= |C_K| r^K

with ``c_j`` the Taylor coefficients of ``E`` at the point ``m`` (tight balls: arb power series
of the definition at an exact point) and ``C_K`` the ``K``-th coefficient enclosed over the
whole piece (the same series at the ball ``[m - r, m + r]``; Lagrange's remainder). The
quadratic part is bounded exactly: its values at ``t = +-r`` and, when the vertex
``-c1 / (2 c2)`` may lie in ``[-r, r]``, at the vertex; the cubic and higher terms add
``sum |c_j| r^j``. Near a maximum of ``|E|`` this over-estimates by about ``|c3| r^3``, so a few
bisections make the bound tight there, while pieces far below the maximum are discarded at once.
A piece is accepted when its bound is at most ``lower * (1 + RELATIVE_GAP)``, ``lower`` being
the largest ``|E|`` proven so far at points (piece centres and quadratic vertices, evaluated in
balls). ``upper`` is the largest accepted bound, so ``upper <= lower * (1 + RELATIVE_GAP)``
unless a piece reached ``MAX_DEPTH`` bisections (reported in ``gap``).

Without an arb form (a user's mpmath function) nothing is proven: :func:`sampled` returns the
largest ``|E|`` found on a dense grid with refined extrema, a lower bound on the sup (if the
function is computed correctly) but no upper bound; the result says so (``proven=False``).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath

from sfpu_sim.design.balls import SCALE_BITS, OutOfScale, arb_precision, dyadic, exact_ball
from sfpu_sim.design.balls import lower as lower_bound
from sfpu_sim.design.balls import upper as upper_bound
from sfpu_sim.design.coefficient_formats import to_fraction
from sfpu_sim.design.remez import ErrorFunction, chebyshev_grid, extrema
from sfpu_sim.design.target import Undecided
from sfpu_sim.errors import SfpuSimError

TERMS = 6                       # K: Taylor coefficients at the centre (then the remainder)
RELATIVE_GAP = Fraction(1, 2 ** 30)
START_PIECES = 32
MAX_DEPTH = 60
MAX_PIECES = 200_000
PRECISION = 192                 # arb bits: E cancels ~log2(|f| / |E|) of them


class CertificationFailed(SfpuSimError):
    """The error could not be bounded (not smooth, or too many pieces)."""


@dataclass(frozen=True)
class Certificate:
    """``lower <= sup |E| <= upper`` on the interval (exact dyadic Fractions) when ``proven``;
    ``argmax``: a point where ``|E| >= lower``; ``pieces``: subintervals examined; ``gap``:
    ``(upper - lower) / lower``; ``method``: how (see the module docstring)."""
    upper: Fraction | None
    lower: Fraction
    argmax: Fraction
    pieces: int
    proven: bool
    method: str

    @property
    def gap(self) -> float | None:
        if self.upper is None or not self.lower:
            return None
        return float((self.upper - self.lower) / self.lower)


def _power(r: Fraction, j: int):
    return exact_ball(r ** j)


class _Bounder:
    """Bounds of ``|E|`` on one piece (see the module docstring)."""

    def __init__(self, problem, coefficients: dict, inner: tuple):
        self.problem, self.coefficients = problem, coefficients
        self.inner = inner                          # points used for ``lower`` lie in here
        self.lower, self.argmax = Fraction(0), inner[0]

    def series(self, ball, terms: int, exact) -> list:
        return self.problem.error_series(self.coefficients, ball, terms, exact)

    def witness(self, x: Fraction) -> None:
        """Raise ``lower`` with ``|E(x)|`` if ``x`` lies in the interval."""
        if not self.inner[0] <= x <= self.inner[1]:
            return
        try:
            value = lower_bound(self.series(exact_ball(x), 1, (x, x))[0])
        except (Undecided, OutOfScale):
            return
        if value > self.lower:
            self.lower, self.argmax = value, x

    def bound(self, a: Fraction, b: Fraction) -> Fraction | None:
        """An upper bound of ``|E|`` on ``[a, b]``, or None if it cannot be computed there."""
        m, r = (a + b) / 2, (b - a) / 2
        c = self.series(exact_ball(m), TERMS, (m, m))
        whole = exact_ball(m).union(exact_ball(a)).union(exact_ball(b))
        remainder = self.series(whole, TERMS + 1, (a, b))[TERMS]
        if not all(v.is_finite() for v in c) or not remainder.is_finite():
            return None
        rb = exact_ball(r)
        tail = sum((abs(c[j]) * _power(r, j) for j in range(3, TERMS)), flint.arb(0))
        tail += abs(remainder) * _power(r, TERMS)
        ends = [c[0] + c[1] * t + c[2] * t * t for t in (rb, -rb)]
        quadratic = max(upper_bound(v) for v in ends)
        if c[2].contains(0):
            crude = abs(c[0]) + abs(c[1]) * rb + abs(c[2]) * rb * rb
            quadratic = max(quadratic, upper_bound(crude))
        else:
            vertex = -c[1] / (2 * c[2])
            if vertex.overlaps(flint.arb(0, rb.mid())):
                quadratic = max(quadratic, upper_bound(c[0] - c[1] * c[1] / (4 * c[2])))
                self.witness(m + dyadic(vertex.mid()))
        self.witness(m)
        return quadratic + upper_bound(tail)


def certify(problem, coefficients: dict) -> Certificate:
    """Prove ``lower <= sup |E| <= upper`` on ``problem.interval`` (see the module docstring).
    ``coefficients``: power -> exact Fraction. The result depends on the polynomial only."""
    if not problem.target.provable:
        return sampled(problem, coefficients)
    lo, hi = problem.interval.hull()
    cuts = [lo + (hi - lo) * i / START_PIECES for i in range(START_PIECES + 1)]
    if lo < 0 < hi:
        cuts = sorted(set(cuts) | {Fraction(0)})
    with arb_precision(PRECISION):
        bounder = _Bounder(problem, coefficients, problem.interval.inner())
        # Largest bound first, so that ``lower`` rises before most pieces are judged.
        heap = []
        for a, b in zip(cuts, cuts[1:]):
            _push(heap, bounder, a, b, 0)
        pieces, upper = len(heap), Fraction(0)
        while heap:
            negative, a, b, depth = heapq.heappop(heap)
            bound = -negative
            if bound <= bounder.lower * (1 + RELATIVE_GAP):
                upper = max(upper, bound)          # every piece left has a bound below this
                break
            if depth >= MAX_DEPTH:
                upper = max(upper, bound)
                continue
            if pieces > MAX_PIECES:
                raise CertificationFailed(f"the error bound needs more than {MAX_PIECES} "
                                          f"pieces of the interval; giving up")
            middle = (a + b) / 2
            for piece in ((a, middle), (middle, b)):
                _push(heap, bounder, *piece, depth + 1)
                pieces += 1
    return Certificate(max(upper, bounder.lower), bounder.lower, bounder.argmax, pieces, True,
                       "Taylor form in arb ball arithmetic over an adaptive subdivision")


def _push(heap, bounder: _Bounder, a: Fraction, b: Fraction, depth: int) -> None:
    try:
        bound = bounder.bound(a, b)
    except (Undecided, OutOfScale):
        bound = None
    if bound is None:
        if depth >= MAX_DEPTH:
            raise CertificationFailed(
                f"cannot bound the error near x = {float((a + b) / 2):.6g}: the function or "
                f"its derivatives are not finite there, or beyond 2^{SCALE_BITS}")
        bound = Fraction(10) ** 300                      # unknown: split it
    heapq.heappush(heap, (-bound, a, b, depth))


def sampled(problem, coefficients: dict) -> Certificate:
    """No proof (a function without an arb form): the largest ``|E|`` on a dense grid of the
    interval with refined extrema. ``upper`` is None."""
    lo, hi = problem.interval.mp()
    error = problem.error_function()
    whole = ErrorFunction(error.g, error.multiplier, lo, hi)
    powers = tuple(k - problem.shift for k in coefficients)
    grid = chebyshev_grid(lo, hi, max(2000, 200 * len(coefficients)))
    found = extrema(whole, tuple(coefficients.values()), powers, grid)
    x, value = max(found, key=lambda p: abs(p[1]))
    return Certificate(None, to_fraction(abs(value)), to_fraction(mpmath.mpf(x)), len(grid), False,
                       "sampled: dense grid and refined extrema in mpmath; no bound proven")
