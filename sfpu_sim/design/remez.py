"""The Remez exchange: the real (unquantised) minimax polynomial on a given set of powers.

Owns: the weighted minimax problem ``min over a of max over [lo, hi] of |E(x)|`` with
``E(x) = M(x) * (sum_j a_j x**k_j - g(x))``, solved in mpmath at a stated working precision;
the search for the extrema of ``E``; the equioscillation points; the lower bound on the
minimax error that the final reference proves. Knows nothing of number formats, arb or where
``g`` and ``M`` come from (:mod:`sfpu_sim.design.problem` builds them: ``g`` is the function
minus the fixed coefficients' part, ``M`` the weight, divided by the function for relative
error).

Method (Remez's second algorithm, multi-point exchange; Cheney, "Introduction to
Approximation Theory", ch. 3; the exchange rule of Pachon and Trefethen, "Barycentric-Remez
algorithms for best polynomial approximation in the chebfun system", BIT 49, 2009):

1. Reference: n+1 points (n free coefficients), first the Chebyshev extrema of the interval.
2. Solve ``sum_j a_j x_i**k_j + (-1)**i h / M(x_i) = g(x_i)``: the polynomial whose error
   alternates with magnitude ``|h|`` on the reference.
3. Locate the local extrema of ``E`` (a Chebyshev-spaced grid, one extremum per run of equal
   sign, refined by Brent's method), keep n+1 alternating ones including the largest.
4. Stop when the smallest ``|E|`` on the new reference is within ``TOLERANCE`` (relative) of the
   largest ``|E|`` found. By de la Vallee Poussin's theorem the minimax error then lies between
   the two (``Minimax.lower`` and ``Minimax.error``).

The powers must form a Chebyshev (Haar) system on the interval for the exchange to be sure to
converge (any powers on an interval inside ``(0, inf)``; consecutive powers anywhere); when
fewer than n+1 alternating extrema exist it stops with :class:`RemezFailed`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable

import flint
import mpmath

from sfpu_sim.design.balls import arb_precision, to_arb, to_mpf
from sfpu_sim.errors import SfpuSimError

TOLERANCE = mpmath.mpf(2) ** -40     # relative gap between the lower and upper error bounds
MAX_ITERATIONS = 60
GRID_PER_POINT = 24                  # grid points per reference point when locating extrema
GRID_MINIMUM = 96


class RemezFailed(SfpuSimError):
    """The exchange did not converge (no Haar system, or not enough working precision)."""


class DegreeTooHigh(SfpuSimError):
    """More coefficients than the working precision can resolve."""


@dataclass(frozen=True)
class Minimax:
    """The result of :func:`remez`: ``coefficients`` of ``powers`` (mpf), the sup of ``|E|``
    found (``error``), the proven lower bound on the minimax error (``lower``: min ``|E|`` on
    the final alternating reference), the reference itself (``points``, the equioscillation
    points) and the number of exchanges."""
    coefficients: tuple
    powers: tuple
    error: object
    lower: object
    points: tuple
    iterations: int


class ErrorFunction:
    """``E(x) = M(x) * (p(x) - g(x))``, with ``g`` and ``M`` evaluated once per point (the
    quantiser re-fits the same problem many times). ``E`` itself is evaluated in arb
    (python-flint, at mpmath's working precision): on a grid all at once as a matrix product
    (``arb_mat``), at single points by Horner's rule. Coefficients are given as exact arb
    numbers (:func:`to_arb`). ``g``/``multiplier`` take mpmath numbers; the optional
    ``arb_g``/``arb_multiplier`` compute the same in arb, which is much faster."""

    def __init__(self, g: Callable, multiplier: Callable, lo, hi, arb_g: Callable | None = None,
                 arb_multiplier: Callable | None = None):
        self.g, self.multiplier, self.lo, self.hi = g, multiplier, lo, hi
        self.arb_g, self.arb_multiplier = arb_g, arb_multiplier
        self._cache: dict = {}
        self._grids: dict = {}

    def data(self, x) -> tuple:
        """``(g(x), M(x))`` as mpmath numbers."""
        if x not in self._cache:
            self._cache[x] = (self.g(x), self.multiplier(x))
        return self._cache[x]

    def _arb_data(self, x) -> tuple:
        """``(g(x), M(x), x)`` as arb numbers; ``x`` an mpmath number or a float."""
        xa = to_arb(x)
        if self.arb_g is not None:
            return self.arb_g(xa), self.arb_multiplier(xa), xa
        g, m = self.data(mpmath.mpf(x))
        return to_arb(g), to_arb(m), xa

    def at(self, coefficients, powers, x):
        """``E(x)`` as an arb ball (``coefficients``: arb numbers; ``x``: an mpmath number or
        a float)."""
        with arb_precision(mpmath.mp.prec):
            g, m, xa = self._arb_data(x)
            return m * (_horner(coefficients, powers, xa) - g)

    def value(self, coefficients, powers, x):
        """``E(x)`` as an mpmath number."""
        return to_mpf(self.at(coefficients, powers, x))

    def on_grid(self, coefficients, powers, grid: tuple) -> list[float]:
        """``E`` at every point of ``grid`` (a tuple from :func:`chebyshev_grid`), as floats
        (enough to locate extrema; returned values are recomputed at single points)."""
        key = (id(grid), tuple(powers))
        with arb_precision(mpmath.mp.prec):
            if key not in self._grids:
                data = [self._arb_data(x) for x in grid]
                basis = flint.arb_mat([[xa ** k for k in powers] for _, _, xa in data])
                g = flint.arb_mat([[v] for v, _, _ in data])
                self._grids[key] = (grid, basis, g, [m for _, m, _ in data])   # keeps the id
            _, basis, g, m = self._grids[key]
            difference = basis * flint.arb_mat([[c] for c in coefficients]) - g
            return [float(difference[i, 0] * m[i]) for i in range(len(grid))]


def _horner(coefficients, powers, x):
    terms = sorted(zip(powers, coefficients), key=lambda t: t[0], reverse=True)
    result, previous = flint.arb(0), terms[0][0]
    for k, c in terms:
        result = result * x ** (previous - k) + c
        previous = k
    return result * x ** previous


@functools.lru_cache(maxsize=64)
def _chebyshev_grid(lo, hi, count: int, precision: int) -> tuple:
    half, centre = (hi - lo) / 2, (hi + lo) / 2
    return (lo,) + tuple(centre - half * mpmath.cospi(mpmath.mpf(i) / (count - 1))
                         for i in range(1, count - 1)) + (hi,)


def chebyshev_grid(lo, hi, count: int) -> tuple:
    """``count`` Chebyshev extrema of ``[lo, hi]``, ends included, ascending (the same tuple
    for the same arguments, so evaluations on it are cached)."""
    return _chebyshev_grid(lo, hi, count, mpmath.mp.prec)


def initial_reference(lo, hi, powers) -> list:
    """Chebyshev extrema; when every basis function vanishes at ``lo == 0`` (odd powers on
    ``[0, b]``) the positive extrema of the doubled degree, which avoid that point."""
    n = len(powers)
    if lo == 0 and min(powers) > 0:
        return sorted(lo + (hi - lo) * mpmath.cospi(mpmath.mpf(i) / (2 * n + 1))
                      for i in range(n + 1))
    return chebyshev_grid(lo, hi, n + 1)


def _solve(error: ErrorFunction, powers, fixed, points):
    """(coefficients, h) of the levelled polynomial on ``points`` (mpmath numbers): the linear
    system solved by LU in arb's floating-point mode (python-flint ``arb_mat.solve``,
    ``algorithm="approx"``) at mpmath's working precision."""
    n = len(powers)
    fixed_terms = [(to_arb(c), k) for c, k in zip(*fixed)]
    with arb_precision(mpmath.mp.prec):
        rows, rhs = [], []
        for i, x in enumerate(points):
            g, m, xa = error._arb_data(x)
            rows.append([xa ** k for k in powers] + [(-1) ** i / m])
            rhs.append([g - sum((c * xa ** k for c, k in fixed_terms), flint.arb(0))])
        solution = flint.arb_mat(rows).solve(flint.arb_mat(rhs), nonstop=True,
                                             algorithm="approx")
        values = [solution[j, 0] for j in range(n + 1)]
    if not all(v.is_finite() for v in values):
        raise RemezFailed("the Remez system is singular (the powers are not a Chebyshev "
                          "system on this interval, or points coincide)")
    return [to_mpf(v) for v in values[:n]], to_mpf(values[n])


def _maximise(f: Callable, a: float, b: float, x0: float, fx0: float,
              tolerance: float = 1e-9) -> tuple:
    """Brent's method (golden section with parabolic steps) for a maximum of ``f`` in
    ``[a, b]`` from the interior sample ``x0`` (R. Brent, "Algorithms for Minimization without
    Derivatives", 1973, ch. 5), in floats: the maximiser is found to about ``tolerance``
    relative (1e-9 by default, which puts the value within about 1e-16 relative of the true
    maximum; the error is quadratic in the distance). ``(x, f(x))``."""
    golden = (3 - math.sqrt(5)) / 2
    scale = tolerance * (b - a)
    x = w = v = x0
    fx = fw = fv = -fx0
    d = e = 0.0
    for _ in range(100):
        middle = (a + b) / 2
        tol1 = tolerance * abs(x) + scale
        tol2 = 2 * tol1
        if abs(x - middle) <= tol2 - (b - a) / 2:
            break
        parabolic = False
        if abs(e) > tol1:
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2 * (q - r)
            if q > 0:
                p = -p
            q = abs(q)
            if abs(p) < abs(q * e / 2) and q * (a - x) < p < q * (b - x):
                e, d = d, p / q
                u = x + d
                if u - a < tol2 or b - u < tol2:
                    d = tol1 if middle >= x else -tol1
                parabolic = True
        if not parabolic:
            e = (a - x) if x >= middle else (b - x)
            d = golden * e
        u = x + d if abs(d) >= tol1 else x + (tol1 if d > 0 else -tol1)
        fu = -f(u)
        if fu <= fx:
            if u >= x:
                a = x
            else:
                b = x
            v, fv, w, fw, x, fx = w, fw, x, fx, u, fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, fv, w, fw = w, fw, u, fu
            elif fu <= fv or v == x or v == w:
                v, fv = u, fu
    return x, -fx


def extrema(error: ErrorFunction, coefficients, powers, grid, refine_above=None,
            accuracy: float = 1e-16) -> list[tuple]:
    """``(x, E(x))`` (mpmath numbers) at one extremum of ``E`` per run of equal sign over
    ``grid``, refined (all of them, or with ``refine_above`` only those within that fraction
    of the largest) until the value is within about ``accuracy`` (relative) of the local
    maximum. ``coefficients``: mpmath numbers or Fractions."""
    coefficients = [to_arb(c) for c in coefficients]
    approximate = error.on_grid(coefficients, powers, grid)
    runs, sign = [], 0                   # zeros of E (x = 0 for odd powers) end no run
    for k, value in enumerate(approximate):
        s = (value > 0) - (value < 0)
        if s == 0:
            continue
        if s != sign:
            runs.append([])
            sign = s
        runs[-1].append(k)
    peaks = [max(run, key=lambda k: abs(approximate[k])) for run in runs]
    level = refine_above * max((abs(approximate[k]) for k in peaks), default=0) \
        if refine_above is not None else -1
    found = []
    for k in peaks:
        x = grid[k]
        if abs(approximate[k]) >= level and 0 < k < len(grid) - 1:
            s = 1 if approximate[k] > 0 else -1
            t, v = _maximise(lambda t: s * float(error.at(coefficients, powers, t)),
                             float(grid[k - 1]), float(grid[k + 1]), float(x),
                             abs(approximate[k]), max(1e-9, math.sqrt(accuracy)))
            if v > abs(approximate[k]):
                x = mpmath.mpf(t)
        found.append((x, error.value(coefficients, powers, x)))
    return found


def _select(points: list[tuple], count: int) -> list[tuple]:
    """``count`` alternating extrema keeping the largest (Pachon-Trefethen's rule)."""
    points = list(points)
    while len(points) > count:
        if len(points) == count + 1:
            points.pop(0 if abs(points[0][1]) < abs(points[-1][1]) else -1)
            continue
        k = min(range(len(points)), key=lambda i: abs(points[i][1]))
        if k == 0 or k == len(points) - 1:
            points.pop(k)
        else:
            neighbour = k - 1 if abs(points[k - 1][1]) < abs(points[k + 1][1]) else k + 1
            for index in sorted((k, neighbour), reverse=True):
                points.pop(index)
    return points


def _thin(points: list, count: int) -> list:
    """A warm-start reference of ``count`` points from a longer one (a fit with one more
    coefficient): drop interior points where they crowd most."""
    while len(points) > count:
        k = min(range(1, len(points) - 1), key=lambda i: points[i + 1] - points[i - 1])
        points.pop(k)
    return points


def remez(error: ErrorFunction, powers, fixed=((), ()), reference=None,
          tolerance=TOLERANCE) -> Minimax:
    """The minimax coefficients of ``powers`` for ``error`` on ``[error.lo, error.hi]``, at
    mpmath's current working precision. ``fixed``: ``(values, powers)`` of terms already
    chosen (added to the polynomial, not fitted); ``reference``: a starting reference (a
    previous solution's points, for warm starts); ``tolerance``: the relative gap between the
    error bounds at which to stop."""
    powers = tuple(powers)
    fixed_values, fixed_powers = (tuple(v) for v in fixed)
    n = len(powers)
    lo, hi = error.lo, error.hi
    if reference is not None:                  # no point where every basis function is 0
        reference = [x for x in reference if x != 0 or min(powers) == 0]
    points = _thin(list(reference), n + 1) if reference is not None \
        and len(reference) >= n + 1 else initial_reference(lo, hi, powers)
    try:
        return _exchange(error, powers, (fixed_values, fixed_powers), points, tolerance)
    except RemezFailed:
        if reference is None:
            raise
    return _exchange(error, powers, (fixed_values, fixed_powers),
                     initial_reference(lo, hi, powers), tolerance)


def _exchange(error: ErrorFunction, powers: tuple, fixed: tuple, points: list,
              tolerance) -> Minimax:
    n = len(powers)
    fixed_values, fixed_powers = fixed
    grid_size = max(GRID_MINIMUM, GRID_PER_POINT * (n + 1))
    base_grid = chebyshev_grid(error.lo, error.hi, grid_size)
    for iteration in range(1, MAX_ITERATIONS + 1):
        coefficients, h = _solve(error, powers, fixed, points)
        found = extrema(error, tuple(coefficients) + fixed_values, powers + fixed_powers,
                        base_grid, accuracy=1e-16 if tolerance <= TOLERANCE
                        else float(tolerance) * 2.0 ** -12)
        if len(found) < n + 1:
            raise RemezFailed(f"the error of the levelled polynomial alternates only "
                              f"{len(found)} times on the interval (needs {n + 1}): these "
                              f"powers are not a Chebyshev system here")
        largest = max(abs(v) for _, v in found)
        chosen = _select(found, n + 1)
        smallest = min(abs(v) for _, v in chosen)
        points = [x for x, _ in chosen]
        if largest - smallest <= tolerance * largest:
            return Minimax(tuple(coefficients), powers, largest, smallest, tuple(points),
                           iteration)
    raise RemezFailed(f"the Remez exchange did not converge in {MAX_ITERATIONS} iterations "
                      f"(gap {float((largest - smallest) / largest):.2g}); the working "
                      f"precision may be too low for this degree")


def check_resolution(error: ErrorFunction, minimax: Minimax, fixed, precision: int) -> None:
    """Raise :class:`DegreeTooHigh` when ``precision`` bits cannot resolve the problem: the
    levelled system on the final reference, solved again with 64 more bits, must give the same
    ``h`` to 2**-24 relative (the monomial basis is ill-conditioned, increasingly with the
    degree), and the minimax error must stand 2**16 above the precision's resolution of
    ``M * g``."""
    _check_points(error, minimax.powers, fixed, minimax.points, precision)


def remez_checked(error: ErrorFunction, powers, fixed, precision: int) -> Minimax:
    """:func:`remez` at ``precision`` bits, then :func:`check_resolution`; an exchange that
    fails because the precision is too low is reported as :class:`DegreeTooHigh`."""
    powers = tuple(powers)
    with mpmath.workprec(precision):
        try:
            minimax = remez(error, powers, fixed)
        except RemezFailed:
            _check_points(error, powers, fixed,
                          initial_reference(error.lo, error.hi, powers), precision)
            raise
        check_resolution(error, minimax, fixed, precision)
    return minimax


def _check_points(error: ErrorFunction, powers, fixed, points, precision: int) -> None:
    with mpmath.workprec(precision):
        _, h = _solve(error, powers, fixed, points)
        scale = max(abs(error.data(x)[0] * error.data(x)[1]) for x in points)
    with mpmath.workprec(precision + 64):
        _, h_fine = _solve(error, powers, fixed, points)
    degree = max(tuple(powers) + tuple(fixed[1]))
    advice = "raise --precision or lower the degree"
    if abs(h - h_fine) > abs(h_fine) * mpmath.mpf(2) ** -24:
        raise DegreeTooHigh(f"degree {degree} is too high for the working precision of "
                            f"{precision} bits: the Remez system loses too many bits; {advice}")
    if abs(h_fine) < scale * mpmath.mpf(2) ** (16 - precision):
        raise DegreeTooHigh(f"degree {degree} is too high for the working precision of "
                            f"{precision} bits: the minimax error ({float(abs(h_fine)):.3g}) "
                            f"is below what it resolves; {advice}")
