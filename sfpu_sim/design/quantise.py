"""Rounding the minimax coefficients to their formats while keeping the error near the minimax.

Owns: the candidate generators and the choice among them. Knows nothing of arb or of kernels;
candidates are compared by their sampled error (:class:`Scorer`), and only the winner is
certified (:mod:`sfpu_sim.design.supnorm`).

Naive rounding of each coefficient can cost a lot (sin on [-pi/4, pi/4], powers 1..7 in FP32:
the minimax error is 1.2e-9, a half-ulp change of the x**3 coefficient alone is 3.6e-9), so
three generators propose candidates:

1. **Fix and re-fit** (a beam search): coefficients are fixed one at a time, most sensitive
   first (largest ``ulp(c_k) * max|x**k|``); for each of the few representable numbers around
   the current real value the remaining coefficients are re-fitted by the Remez exchange, so
   they absorb the rounding; the partial choices with the smallest re-fitted minimax error go
   on (the approach of Brisebarre, Muller and Tisserand, "Computing machine-efficient
   polynomial approximations", ACM TOMS 32(2), 2006, in its greedy-search form). The search
   is a fixed number of re-fits (``SEARCH_BUDGET``, shared by the steps; :func:`beam_shape`),
   so its cost grows gently with the degree and the result never depends on timing.
2. **Lattice reduction** (Sollya's ``fpminimax``: Brisebarre and Chevillard, "Efficient
   polynomial L-infinity approximations", ARITH 18, 2007): the representable polynomials are
   a lattice spanned by ``ulp(c_k) * x**k`` sampled at a few points; LLL (python-flint
   ``fmpz_mat.lll``) and Babai's nearest-plane step, with a small list of second choices, give
   lattice points near the minimax polynomial's values.
3. **Naive rounding**, as a baseline.

Every candidate is then improved by a local search over its neighbours (one coefficient one
step up or down at a time, steepest descent); the best sampled error wins.
"""
from __future__ import annotations

from dataclasses import dataclass

import flint
import mpmath

from sfpu_sim.design.coefficient_formats import BadFormat, CoefficientFormat, to_fraction
from sfpu_sim.design.remez import (
    ErrorFunction,
    Minimax,
    RemezFailed,
    chebyshev_grid,
    extrema,
    remez,
)

SEARCH_BUDGET = 1024           # re-fits over all steps of the fix-and-re-fit search
REFIT_TOLERANCE = mpmath.mpf(2) ** -24   # re-fits only rank partial choices
LATTICE_SCALE_BITS = 40        # fixed-point bits below the minimax error in the lattice
BABAI_LIST = 8                 # second choices kept by the list version of Babai's step
LOCAL_ROUNDS = 16              # steepest-descent steps at most
LOCAL_STARTS = 3               # the best distinct candidates that are searched around
SCORE_GRID_PER_POINT = 40
SCORE_GRID_MINIMUM = 240
SCORE_REFINE_ABOVE = mpmath.mpf("0.75")   # refine the grid extrema within this of the max


@dataclass(frozen=True)
class Candidate:
    """Exact coefficients (power -> Fraction, fixed ones included), the sup of ``|E|`` found
    by sampling with refined extrema, where it was found, and which generator proposed it."""
    coefficients: dict
    error: object
    extrema: tuple
    method: str


class Scorer:
    """Sampled sup of ``|E|`` of a candidate on the fit interval: a Chebyshev grid, then
    Brent refinement of every grid extremum close to the largest."""

    def __init__(self, error: ErrorFunction, shift: int, size: int):
        self.error, self.shift = error, shift
        count = max(SCORE_GRID_MINIMUM, SCORE_GRID_PER_POINT * (size + 1))
        self.grid = chebyshev_grid(error.lo, error.hi, count)
        self.seen: dict = {}

    def __call__(self, coefficients: dict, method: str) -> Candidate:
        key = tuple(sorted(coefficients.items()))
        if key not in self.seen:
            powers = tuple(k - self.shift for k in coefficients)
            found = extrema(self.error, tuple(coefficients.values()), powers, self.grid,
                            SCORE_REFINE_ABOVE)
            largest = max(abs(v) for _, v in found) if found else mpmath.mpf(0)
            self.seen[key] = Candidate(dict(coefficients), largest, tuple(found), method)
        return self.seen[key]


def sensitivity_order(minimax: Minimax, formats: dict, lo, hi, shift: int) -> list[int]:
    """Free powers, the one whose rounding moves the polynomial most first."""
    reach = max(abs(lo), abs(hi))

    def impact(pair):
        value, power = pair
        return formats[power].quantum(to_fraction(value)) * to_fraction(reach) ** (power - shift)
    pairs = zip(minimax.coefficients, [k + shift for k in minimax.powers])
    return [power for _, power in sorted(pairs, key=impact, reverse=True)]


def beam_shape(free: int) -> tuple[int, int]:
    """``(beam, around)`` for ``free`` coefficients: ``2 * around`` values tried per kept
    choice, ``beam`` choices kept, about ``SEARCH_BUDGET / free`` re-fits per step. Four
    values each side matter for small problems (exp on [0, log 2], powers 0..3, finds a
    better c1 four ulps from its re-fitted value)."""
    around = 4 if free <= 4 else 2
    return max(4, SEARCH_BUDGET // free // (2 * around)), around


def fix_and_refit(error: ErrorFunction, minimax: Minimax, fixed: dict, formats: dict,
                  shift: int, scorer: Scorer) -> list[Candidate]:
    """Generator 1 (module docstring): the surviving complete choices, best first."""
    order = sensitivity_order(minimax, formats, error.lo, error.hi, shift)
    beam, around = beam_shape(len(order))
    states = [(dict(fixed), minimax)]
    for power in order:
        children, seen = [], set()
        for chosen, fit in states:
            real = dict(zip((k + shift for k in fit.powers), fit.coefficients))[power]
            for value in formats[power].around(to_fraction(real), around):
                now = {**chosen, power: value}
                key = tuple(sorted(now.items()))
                if key in seen:
                    continue
                seen.add(key)
                rest = [k for k in order if k not in now]
                if not rest:
                    candidate = scorer(now, "fix and re-fit")
                    children.append((candidate.error, now, None))
                    continue
                try:
                    refit = remez(error, [k - shift for k in rest], _terms(now, shift),
                                  fit.points, REFIT_TOLERANCE)
                except RemezFailed:
                    continue
                children.append((refit.error, now, refit))
        children.sort(key=lambda c: c[0])
        states = [(now, refit) for _, now, refit in children[:beam]]
    return sorted((scorer(now, "fix and re-fit") for now, _ in states), key=lambda c: c.error)


def _terms(coefficients: dict, shift: int) -> tuple:
    values = tuple(mpmath.mpf(c.numerator) / c.denominator for c in coefficients.values())
    return values, tuple(k - shift for k in coefficients)


def lattice(error: ErrorFunction, minimax: Minimax, fixed: dict, formats: dict, shift: int,
            scorer: Scorer) -> list[Candidate]:
    """Generator 2 (module docstring): Babai's list of nearest lattice points, for the
    equioscillation points and for Chebyshev nodes, with the minimax values as target."""
    free = [k + shift for k in minimax.powers]
    real = dict(zip(free, minimax.coefficients))
    quanta = [formats[k].quantum(to_fraction(real[k])) for k in free]
    n = len(free)
    point_sets = [list(minimax.points),
                  [(error.lo + error.hi) / 2 - (error.hi - error.lo) / 2
                   * mpmath.cospi((2 * i + mpmath.mpf(1)) / (2 * n)) for i in range(n)]]
    scale = mpmath.mpf(2) ** LATTICE_SCALE_BITS / max(minimax.error, mpmath.mpf(2) ** -200)
    candidates = []
    for points in point_sets:
        weights = [abs(error.data(x)[1]) for x in points]
        basis = [[int(mpmath.nint(w * q.numerator * x ** (k - shift) / q.denominator * scale))
                  for x, w in zip(points, weights)] for k, q in zip(free, quanta)]
        target = [int(mpmath.nint(w * _value(real, free, x, shift) * scale))
                  for x, w in zip(points, weights)]
        for integers in _babai_list(basis, target):
            try:
                coefficients = dict(fixed)
                for k, q, z in zip(free, quanta, integers):
                    coefficients[k] = formats[k].nearest(q * z)
            except BadFormat:
                continue
            candidates.append(scorer(coefficients, "lattice (LLL + Babai)"))
    return sorted(candidates, key=lambda c: c.error)


def _value(real: dict, free, x, shift):
    return mpmath.fsum(real[k] * x ** (k - shift) for k in free)


def _babai_list(basis: list, target: list) -> list[list[int]]:
    """Integer combinations of ``basis`` rows near ``target``: LLL, then the nearest-plane
    step keeping the ``BABAI_LIST`` best partial choices (floor and ceiling at each level).

    The rows may be dependent: a power whose terms round to zero at every sample (x**100 at
    points below 1, a weight tiny there) gives a zero row, and LLL then returns zero rows.
    Such a row adds nothing to the lattice point, so its multiple is 0."""
    reduced, transform = flint.fmpz_mat(basis).lll(transform=True)
    rows = [[flint.fmpq(reduced[i, j]) for j in range(reduced.ncols())]
            for i in range(reduced.nrows())]
    orthogonal = []
    for row in rows:                                    # Gram-Schmidt, exact rationals
        v = list(row)
        for u in orthogonal:
            if any(u):                                  # a dependent row's u is zero
                mu = _dot(row, u) / _dot(u, u)
                v = [a - mu * b for a, b in zip(v, u)]
        orthogonal.append(v)
    partial = [(flint.fmpq(0), [flint.fmpq(t) for t in target], [])]
    for i in reversed(range(len(rows))):
        b, u = rows[i], orthogonal[i]
        norm = _dot(u, u)
        if norm == 0:
            partial = [(distance, residual, [0] + chosen)
                       for distance, residual, chosen in partial]
            continue
        grown = []
        for distance, residual, chosen in partial:
            centre = _dot(residual, u) / norm
            low = centre.floor()
            for c in (low, low + 1):
                rest = [r - c * a for r, a in zip(residual, b)]
                grown.append((distance + (centre - c) ** 2 * norm, rest, [int(c)] + chosen))
        grown.sort(key=lambda g: g[0])
        partial = grown[:BABAI_LIST]
    results = []
    for _, _, chosen in partial:
        if len(chosen) != reduced.nrows():
            continue
        results.append([sum(chosen[i] * int(transform[i, j]) for i in range(len(chosen)))
                        for j in range(transform.ncols())])
    return results


def _dot(a, b):
    return sum((x * y for x, y in zip(a, b)), flint.fmpq(0))


def naive(minimax: Minimax, fixed: dict, formats: dict, shift: int,
          scorer: Scorer) -> list[Candidate]:
    """Generator 3: each coefficient rounded to nearest."""
    coefficients = dict(fixed)
    for k, c in zip(minimax.powers, minimax.coefficients):
        coefficients[k + shift] = formats[k + shift].nearest(to_fraction(c))
    return [scorer(coefficients, "rounded to nearest")]


def local_search(start: Candidate, free: list, formats: dict, scorer: Scorer) -> Candidate:
    """Steepest descent over one-step changes of one free coefficient."""
    best = start
    for _ in range(LOCAL_ROUNDS):
        moves = []
        for k in free:
            for direction in (-1, 1):
                try:
                    value = formats[k].step(best.coefficients[k], direction)
                except BadFormat:
                    continue
                moves.append(scorer({**best.coefficients, k: value}, best.method))
        improved = min(moves, key=lambda c: c.error, default=best)
        if improved.error >= best.error:
            break
        best = Candidate(improved.coefficients, improved.error, improved.extrema,
                         start.method + " + local search")
    return best


def quantise(error: ErrorFunction, minimax: Minimax, fixed: dict, formats: dict,
             shift: int) -> tuple[Candidate, list[Candidate]]:
    """The best candidate over all generators, and every generator's best (for the record).
    ``fixed``: power -> Fraction; ``formats``: power -> CoefficientFormat; ``shift``: see
    :attr:`sfpu_sim.design.problem.Problem.shift`."""
    scorer = Scorer(error, shift, len(minimax.powers) + len(fixed))
    free = [k + shift for k in minimax.powers]
    generated = (fix_and_refit(error, minimax, fixed, formats, shift, scorer)[:2]
                 + lattice(error, minimax, fixed, formats, shift, scorer)[:2]
                 + naive(minimax, fixed, formats, shift, scorer))
    distinct = {}
    for candidate in sorted(generated, key=lambda c: (c.error, _order_key(c))):
        distinct.setdefault(_order_key(candidate), candidate)
    starts = list(distinct.values())[:LOCAL_STARTS]
    improved = [local_search(c, free, formats, scorer) for c in starts]
    best = min(improved, key=lambda c: (c.error, _order_key(c)))
    return best, improved + list(distinct.values())[LOCAL_STARTS:]


def _order_key(candidate: Candidate) -> tuple:
    """Ties broken by the coefficients themselves, so the result never depends on order."""
    return tuple(sorted(candidate.coefficients.items()))


__all__ = ["Candidate", "CoefficientFormat", "quantise", "Scorer"]
