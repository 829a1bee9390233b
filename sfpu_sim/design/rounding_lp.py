"""The largest margin by which a polynomial can stay inside given intervals: a small linear
program, solved by a dense simplex method whose basis arithmetic is exact.

Owns: the linear program, its solution, and the proof attached to that solution. Knows nothing
of functions, floating-point formats or chips: :mod:`sfpu_sim.design.device_fit` turns its
inputs' rounding intervals into rows.

The program (the rounding-interval LP of Lim and Nagarakatte, "RLIBM-ALL", POPL 2022, with a
margin variable added)::

    maximise t  over (c, t)   subject to   rows[j] . c + w[j] t <= bounds[j]   for every row j

Each input gives two rows, ``p(x)/u <= h/u - t`` and ``-p(x)/u <= -l/u - t``: ``t`` is the
least distance, in units ``u`` of the input's own (an FP32 ulp of the result), between the
exact polynomial and the ends of the interval ``[l, h]`` its value must lie in; ``w[j]`` is 1,
or 0 for an end that needs no margin (the caller's choice). ``t < 0`` at the optimum means that
no polynomial on these powers fits every interval.

Method. The dual program, ``min bounds . y`` subject to ``sum_j y_j (rows[j], w[j]) = (0, 1)``,
``y >= 0``, has only ``n + 1`` equations (``n`` coefficients), so a basis is ``n + 1`` rows and
a simplex step is three ``(n+1) x (n+1)`` solves plus one product over all rows. Pricing takes
the most violated row, which makes the method an exchange algorithm in the manner of Remez
(Stiefel's exchange, 1959): the basis is ``n + 1`` inputs, each on its upper or lower end. The
first basis is such a set where the powers form a Chebyshev (Haar) system, with each end chosen
by the sign of the null vector of its rows, so the dual is feasible from the start and no
artificial variables are needed.

Arithmetic. The rows of tiny and ordinary inputs differ by 2**150 in scale (a constant term
over an FP32 ulp of 2**-149), which defeats float64 elimination (it cycles), so the basis is
solved in exact rationals (python-flint ``fmpq_mat``); only the pricing product runs in float64
(numpy), from the exact vertex rounded to floats, and a row whose slack float64 cannot sign is
priced exactly (a result near 0, whose ulp is tiny). The ratio test is exact, with ties going to
the lowest row, and Bland's rule takes over pricing after :data:`STALL_STEPS` steps without
progress, so the method cannot cycle.

Proof. At every basis ``y >= 0`` exactly with ``sum y_j (rows[j], w[j]) = (0, 1)``, so
``t = sum y_j (rows[j] . c + w[j] t) <= bounds . y`` for every feasible ``(c, t)`` (weak duality):
the final ``margin`` is an exact upper bound on the margin of every polynomial on these powers,
and when it is negative the rows of positive weight are an infeasible subsystem (Farkas).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from sfpu_sim.errors import SfpuSimError

MAX_STEPS = 2000                # simplex steps before giving up (exp and tanh take under 100)
STALL_STEPS = 50                # steps without a lower bound before Bland's rule prices
VIOLATION_TOLERANCE = 1e-6      # in margin units: rows violated by less count as satisfied
FLOAT_RESOLUTION = 2.0 ** -50   # relative error of a float64 row product, generously


class LPError(SfpuSimError):
    """A linear program this solver cannot start or finish."""


@dataclass(frozen=True)
class MarginSolution:
    """``coefficients``, ``margin``: the vertex of the final basis (exact Fractions);
    ``basis``: its ``n + 1`` row indices; ``weights``: the exact dual values on them (all
    >= 0: ``margin`` is an upper bound for every polynomial); ``steps``: simplex steps."""
    coefficients: tuple
    margin: Fraction
    basis: tuple
    weights: tuple
    steps: int

    @property
    def support(self) -> tuple:
        """The basis rows that carry the proof (positive dual weight)."""
        return tuple(j for j, w in zip(self.basis, self.weights) if w > 0)


def _q(value) -> flint.fmpq:
    value = Fraction(value)
    return flint.fmpq(value.numerator, value.denominator)


def _fraction(value: flint.fmpq) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def _column(values) -> flint.fmpq_mat:
    return flint.fmpq_mat(len(values), 1, list(values))


class _ExactRows:
    """Row ``j`` as ``fmpq`` (its margin weight appended) and its bound, cached."""

    def __init__(self, exact_row: Callable[[int], tuple], margin_weights: np.ndarray):
        self.exact_row, self.margin_weights, self.cache = exact_row, margin_weights, {}

    def __call__(self, j: int) -> tuple:
        if j not in self.cache:
            row, bound = self.exact_row(j)
            self.cache[j] = ([_q(v) for v in row] + [_q(self.margin_weights[j])], _q(bound))
        return self.cache[j]

    def square(self, basis) -> flint.fmpq_mat:
        return flint.fmpq_mat(len(basis), len(basis),
                              [v for j in basis for v in self(j)[0]])


def haar_start(inputs: int, candidates, exact_row: Callable[[int], tuple]) -> list[int]:
    """A first basis from ``n + 1`` inputs ``candidates`` (row ``i`` is input ``i``'s upper
    end, row ``i + inputs`` its lower): each on the end the sign of the exact null vector of
    their rows asks, so the dual weights are nonnegative."""
    rows = [[_q(v) for v in exact_row(int(i))[0]] for i in candidates]
    n = len(rows) - 1
    if n == 0:
        return [int(candidates[0])]
    # The null vector with lambda_0 = 1: sum_{j >= 1} lambda_j rows[j] = -rows[0].
    system = flint.fmpq_mat(n, n, [rows[j][k] for k in range(n) for j in range(1, n + 1)])
    try:
        rest = system.solve(_column([-rows[0][k] for k in range(n)]))
    except ZeroDivisionError:
        raise LPError("the first n+1 inputs do not form a Chebyshev set for these powers") \
            from None
    null = [flint.fmpq(1)] + [rest[j, 0] for j in range(n)]
    if any(value == 0 for value in null):
        raise LPError("the first n+1 inputs do not form a Chebyshev set for these powers")
    return [int(i) if value > 0 else int(i) + inputs for i, value in zip(candidates, null)]


def maximise_margin(rows: np.ndarray, bounds: np.ndarray, margin_weights: np.ndarray,
                    basis: list[int], exact_row: Callable[[int], tuple]) -> MarginSolution:
    """Solve the module's program from a dual-feasible ``basis`` (``n + 1`` row indices, e.g.
    :func:`haar_start` or a previous solution's). ``rows``: float64 ``(m, n)``, ``bounds`` and
    ``margin_weights`` (0 or 1) ``(m,)``; ``exact_row(j)``: row ``j`` and its bound as exact
    numbers (the floats only price)."""
    n = rows.shape[1]
    table = np.hstack([rows, margin_weights[:, None]])
    exact = _ExactRows(exact_row, margin_weights)
    unit = _column([0] * n + [1])
    basis, lowest, stalled = list(basis), None, 0
    for step in range(MAX_STEPS):
        square = exact.square(basis)
        try:
            vertex = square.solve(_column([exact(j)[1] for j in basis]))
            weights = square.transpose().solve(unit)
        except ZeroDivisionError:
            raise LPError("the basis became singular (the inputs' rows are dependent)") \
                from None
        point = [_fraction(vertex[k, 0]) for k in range(n + 1)]
        floats = np.array([float(v) for v in point])
        slack = bounds - table @ floats
        # Where float64 cannot tell the slack's sign (a row of huge entries cancelling: a
        # result near 0, whose ulp is tiny), it is priced exactly.
        error = (np.abs(table) @ np.abs(floats) + np.abs(bounds)) * FLOAT_RESOLUTION
        for j in np.flatnonzero((error > VIOLATION_TOLERANCE)
                                & (np.abs(slack) <= error + VIOLATION_TOLERANCE)):
            row, bound = exact(int(j))
            slack[j] = float(_fraction(bound - sum((row[k] * vertex[k, 0]
                                                    for k in range(n + 1)), flint.fmpq(0))))
        slack[basis] = 0.0
        violated = np.flatnonzero(slack < -VIOLATION_TOLERANCE)
        if violated.size == 0:
            return MarginSolution(tuple(point[:-1]), point[-1], tuple(basis),
                                  tuple(_fraction(weights[k, 0]) for k in range(n + 1)), step)
        if lowest is None or point[-1] < lowest:
            lowest, stalled = point[-1], 0
        else:
            stalled += 1
        entering = int(violated[0]) if stalled >= STALL_STEPS else int(np.argmin(slack))
        row = exact(entering)[0]
        direction = square.transpose().solve(_column(row))
        leaving, best = None, None
        for k in range(n + 1):
            if direction[k, 0] > 0:
                ratio = weights[k, 0] / direction[k, 0]
                if best is None or ratio < best or (ratio == best and basis[k] < basis[leaving]):
                    leaving, best = k, ratio            # ties: the lowest row (Bland)
        if leaving is None:
            raise LPError("the margin program is unbounded; its dual has no feasible point")
        basis[leaving] = entering
    raise LPError(f"the simplex method did not settle in {MAX_STEPS} steps")


def independent(vectors: list) -> bool:
    """Whether exact row vectors are linearly independent (rank in rational arithmetic): ``k``
    independent rows can all be met with equality, so an infeasible set of rows whose every
    proper subset is independent is irreducible (no proper subset of it is infeasible)."""
    if not vectors:
        return True
    matrix = flint.fmpq_mat(len(vectors), len(vectors[0]), [_q(v) for row in vectors for v in row])
    return matrix.rank() == len(vectors)


# ------------------------------------------------------------------------------------------
# The program of a polynomial through intervals
# ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Branch:
    """Assumptions on coefficients that a format forces (see :func:`explore`): ``fixed``
    (power -> exact value, the caller's and the zeros chosen here) and ``signs`` (power -> +1
    or -1: the coefficient is at least the smallest nonzero magnitude its format holds, with
    that sign)."""
    fixed: dict
    signs: dict

    def text(self, given: dict, smallest: dict) -> str:
        parts = [f"c{k} = 0" for k, v in sorted(self.fixed.items()) if k not in given]
        parts += [f"c{k} {'>=' if s > 0 else '<='} {'' if s > 0 else '-'}{power_text(smallest[k])}"
                  for k, s in sorted(self.signs.items())]
        return ", ".join(parts) or "real coefficients"


def power_text(value) -> str:
    """``2^-126`` for a power of two, else the number."""
    value = Fraction(value)
    exponent = value.numerator.bit_length() - value.denominator.bit_length()
    return f"2^{exponent}" if Fraction(2) ** exponent == value else str(value)


class PolynomialProgram:
    """The program for a polynomial on ``powers`` through per-point intervals.
    ``intervals``: ``x``, ``low``, ``high``, ``unit`` (float64 arrays, exact values) and
    ``margin_weights`` (``2m``: the upper rows, then the lower). The powers in
    ``branch.fixed`` move to the bounds; ``extra`` (``2m``, margin units) pulls the ends in;
    ``branch.signs`` adds one row per power, ``-s c_k / smallest[k] <= -1``, with no
    margin."""

    def __init__(self, intervals, powers: tuple, branch: Branch, extra: np.ndarray,
                 smallest: dict):
        self.intervals, self.branch, self.extra, self.smallest = intervals, branch, extra, smallest
        self.free = tuple(k for k in powers if k not in branch.fixed)
        x, unit = intervals.x, intervals.unit
        known = evaluate(branch.fixed, x)
        columns = np.stack([x ** k / unit for k in self.free], axis=1) if self.free else \
            np.zeros((x.size, 0))
        # A sign of a power fixed since (while rounding) is moot. The row is divided by the
        # smallest magnitude, so that its violations count in units of it.
        self.signs = sorted((k, s) for k, s in branch.signs.items() if k in self.free)
        sign_rows = np.zeros((len(self.signs), len(self.free)))
        for row, (k, s) in enumerate(self.signs):
            sign_rows[row, self.free.index(k)] = -s / float(smallest[k])
        self.rows = np.vstack([columns, -columns, sign_rows])
        self.bounds = np.concatenate([
            (intervals.high - known) / unit - extra[:x.size],
            (known - intervals.low) / unit - extra[x.size:],
            -np.ones(len(self.signs))])
        self.weights = np.concatenate([intervals.margin_weights, np.zeros(len(self.signs))])

    @property
    def count(self) -> int:
        return self.intervals.x.size

    def exact_row(self, j: int) -> tuple:
        """Row ``j`` and its bound in exact numbers."""
        if j >= 2 * self.count:
            k, s = self.signs[j - 2 * self.count]
            return ([-s / Fraction(self.smallest[k]) if p == k else Fraction(0)
                     for p in self.free], Fraction(-1))
        i, upper = j % self.count, j < self.count
        x, unit = Fraction(self.intervals.x[i]), Fraction(self.intervals.unit[i])
        known = sum((c * x ** k for k, c in self.branch.fixed.items()), Fraction(0))
        sign = 1 if upper else -1
        end = Fraction(self.intervals.high[i] if upper else self.intervals.low[i])
        return ([sign * x ** k / unit for k in self.free],
                sign * (end - known) / unit - Fraction(self.extra[j]))

    def solve(self) -> MarginSolution:
        return maximise_margin(self.rows, self.bounds, self.weights, self._start(),
                               self.exact_row)

    def _start(self) -> list[int]:
        """``n + 1`` points spread like Chebyshev nodes over the side of zero with more
        points, where the powers form a Chebyshev system (Descartes' rule of signs)."""
        x, size = self.intervals.x, len(self.free) + 1
        positive, negative = np.flatnonzero(x > 0), np.flatnonzero(x < 0)
        side = positive if positive.size >= negative.size else negative
        if side.size < size:
            raise LPError(f"{len(self.free)} coefficients need at least {size} nonzero inputs "
                          f"on one side of 0; there are {side.size}: use fewer powers")
        order = side[np.argsort(np.abs(x[side]), kind="stable")]
        magnitude = np.abs(x[order])
        spread = (1 - np.cos(np.pi * (np.arange(size) + 0.5) / size)) / 2
        picks = np.minimum(np.searchsorted(magnitude, magnitude[0] + spread *
                                           (magnitude[-1] - magnitude[0])), order.size - 1)
        for k in range(1, size):                   # distinct and ascending
            picks[k] = max(picks[k], picks[k - 1] + 1)
        picks -= max(picks[-1] - (order.size - 1), 0)
        for k in range(size - 2, -1, -1):
            picks[k] = min(picks[k], picks[k + 1] - 1)
        return haar_start(self.count, order[picks], self.exact_row)

    def margin_of(self, coefficients: dict) -> float:
        """The least slack (margin units) of the polynomial with every coefficient given; rows
        of weight 0 count only when violated. Slacks float64 cannot resolve are exact."""
        x, unit = self.intervals.x, self.intervals.unit
        value = evaluate(coefficients, x)
        slack = np.concatenate([(self.intervals.high - value) / unit,
                                (value - self.intervals.low) / unit]) - self.extra
        size = evaluate({k: abs(c) for k, c in coefficients.items()}, np.abs(x)) + \
            np.maximum(np.abs(self.intervals.low), np.abs(self.intervals.high))
        error = np.tile(size / unit, 2) * FLOAT_RESOLUTION
        for j in np.flatnonzero((error > VIOLATION_TOLERANCE) & (np.abs(slack) <= error)):
            i, upper = j % self.count, j < self.count
            point, end = Fraction(x[i]), Fraction(self.intervals.high[i] if upper
                                                  else self.intervals.low[i])
            exact = sum((Fraction(c) * point ** k for k, c in coefficients.items()), Fraction(0))
            slack[j] = float(((end - exact) if upper else (exact - end)) / Fraction(unit[i])
                             - Fraction(self.extra[j]))
        counted = (self.intervals.margin_weights > 0) | (slack < 0)
        return float(slack[counted].min()) if counted.any() else float("inf")


def evaluate(coefficients: dict, x: np.ndarray) -> np.ndarray:
    """The polynomial at ``x`` in float64 (close enough to price; the proofs are exact)."""
    value = np.zeros_like(x)
    for k, c in coefficients.items():
        value = value + float(c) * x ** k
    return value


def explore(intervals, powers: tuple, fixed: dict, extra: np.ndarray,
            smallest: dict) -> tuple:
    """The program under the formats' gaps: a coefficient the solution puts strictly between 0
    and ``smallest[k]`` in magnitude (for the caller, a format's smallest normal) is not
    available, so the program is solved again three ways, ``c_k = 0``, ``c_k >= smallest``,
    ``c_k <= -smallest``, and so on for the next such coefficient. Returns the first
    solution (real coefficients) and the leaves, each ``(branch, solution)``, best margin first
    (ties: the order above); all negative proves no coefficients in these formats exist."""
    pending, leaves, root = [Branch(dict(fixed), {})], [], None
    while pending:
        branch = pending.pop(0)
        program = PolynomialProgram(intervals, powers, branch, extra, smallest)
        solution = program.solve()
        root = root or solution
        inside = [k for k, c in zip(program.free, solution.coefficients)
                  if 0 < abs(c) < smallest[k] and k not in branch.signs]
        if solution.margin < 0 or not inside:
            leaves.append((branch, solution))
            continue
        k = inside[0]
        pending += [Branch({**branch.fixed, k: Fraction(0)}, branch.signs),
                    Branch(branch.fixed, {**branch.signs, k: 1}),
                    Branch(branch.fixed, {**branch.signs, k: -1})]
    return root, sorted(leaves, key=lambda leaf: -leaf[1].margin)
