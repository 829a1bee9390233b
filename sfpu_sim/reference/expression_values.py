"""What a user's reference expression is where its formula cannot say: the IEEE values at
poles, outside the domain, at zero and at the infinities
(:mod:`sfpu_sim.reference.user_expressions` builds the reference from them).

Owns: evaluating an expression (its compiled tree, :func:`sfpu_sim.design.expr.compiled`) at one
exact input in arb balls extended by IEEE's specials (:func:`ieee_value`), its limits at the
infinities (:func:`at_infinity`), and proofs over whole intervals that it is NaN or regular
there (:func:`domain_hull`, :func:`special_points`). Knows nothing of rounding or caches.

The IEEE values. Finite values are arb balls; an exact zero is IEEE's +0 (what ``x - 1`` gives
at 1 in round to nearest), the signed zeros of the input ``x = -0`` and the infinities are
floats, and every operation on a float follows IEEE 754 (C99 Annex F for the functions: log(0)
= -Inf, atanh(1) = +Inf, 1/(+0) = +Inf, 0*Inf = Inf - Inf = NaN, exp(-Inf) = +0, tanh(Inf) = 1,
atan(Inf) = pi/2; numpy's functions give these exact values at +-0 and +-Inf, and a finite
nonzero one is recomputed in arb). A function beyond its domain is NaN. A sign or a domain the
ball cannot
decide is asked again at twice the precision, up to the reference layer's MAX_PRECISION; past
it the input is refused in one line rather than guessed (``tan(pi/2*x)`` at x = 1).
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction

import flint
import numpy as np

from sfpu_sim import formats
from sfpu_sim.design.expr import (
    DOMAINS,
    FUNCTIONS,
    POLES,
    ExpressionUndefined,
    Numbers,
)
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.reference.backends import ArbMath
from sfpu_sim.reference.core import MAX_PRECISION

FIRST_PRECISION = 64                    # bits of the first IEEE evaluation of an input
PIECE_PRECISION = 64                    # bits of the interval proofs
ANCHOR_PRECISION = 128                  # bits of the anchors' sign decisions
HULL_BISECTIONS = 12                    # how close a proven NaN end gets to the domain
PIECE_BISECTIONS = 4                    # before the inputs of a piece are taken one by one
# Binades of |x| that the input formats reach (FP32 denormals from 2**-149, below 2**128).
LOWEST_BINADE, TOP_BINADE = -150, 128
GRIDS = (formats.BF16, formats.FP16)    # the formats whose 65,536 patterns are tabulated

PLAIN = Numbers(ArbMath)
CHECKED = Numbers(ArbMath, checked=True)
_FLOAT_FUNCTIONS = {
    "log": np.log, "log2": np.log2, "log10": np.log10, "exp": np.exp, "sqrt": np.sqrt,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "sinh": np.sinh,
    "cosh": np.cosh, "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "erf": math.erf,
    "erfc": math.erfc, "log1p": np.log1p, "expm1": np.expm1, "exp2": np.exp2, "abs": np.abs,
    "cbrt": np.cbrt, "sigmoid": lambda v: 1 / (1 + np.exp(-v))}


class ExpressionUndecided(SfpuSimError):
    """An input where the expression's value cannot be decided (a pole no ball excludes)."""


class _Undecided(Exception):
    """A decision this precision's balls cannot make."""


@contextmanager
def precision(bits: int):
    saved = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = saved


# ------------------------------------------------------------------------------------------
# One input: arb balls and IEEE specials
# ------------------------------------------------------------------------------------------

class _Ieee:
    """A value: an arb ball (finite, never an exact zero) or a float (+-0, +-Inf, NaN).
    ``met`` records whether an infinity or a NaN arose (the formula cannot go there)."""
    __slots__ = ("state", "v")

    def __init__(self, v, state: dict):
        if isinstance(v, flint.arb):
            if not v.is_finite():
                raise _Undecided()
            if v.is_exact() and v.is_zero():
                v = 0.0
        elif not math.isfinite(v):
            state["met"] = True
        self.v, self.state = v, state

    def _new(self, v):
        return _Ieee(v, self.state)

    def _float(self) -> float:
        """A float with this value's IEEE behaviour under * and /: its sign, magnitude 1."""
        if isinstance(self.v, float):
            return self.v
        if self.v > 0:
            return 1.0
        if self.v < 0:
            return -1.0
        raise _Undecided()

    def _other(self, other):
        return other if isinstance(other, _Ieee) else self._new(flint.arb(other))

    def _operate(self, other, name: str):
        other = self._other(other)
        a, b = self.v, other.v
        if isinstance(a, flint.arb) and isinstance(b, flint.arb):
            if name == "div" and b.contains(0):
                raise _Undecided()
            return self._new(a + b if name == "add" else a - b if name == "sub" else
                             a * b if name == "mul" else a / b)
        if name in ("add", "sub") and (a == 0 or b == 0) and \
                isinstance(a if b == 0 else b, flint.arb):     # x + 0 keeps the ball
            return self._new(a if b == 0 else (b if name == "add" else -b))
        fa, fb = self._float(), other._float()
        if name == "div" and fb == 0:
            self.state["met"] = True
        with np.errstate(all="ignore"):
            value = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
                     "div": np.divide}[name](np.float64(fa), np.float64(fb))
        return self._new(float(value))

    def __add__(self, other):
        return self._operate(other, "add")

    def __radd__(self, other):
        return self._other(other)._operate(self, "add")

    def __sub__(self, other):
        return self._operate(other, "sub")

    def __rsub__(self, other):
        return self._other(other)._operate(self, "sub")

    def __mul__(self, other):
        return self._operate(other, "mul")

    def __rmul__(self, other):
        return self._other(other)._operate(self, "mul")

    def __truediv__(self, other):
        return self._operate(other, "div")

    def __rtruediv__(self, other):
        return self._other(other)._operate(self, "div")

    def __neg__(self):
        return self._new(-self.v)

    def __pow__(self, k: int):
        if isinstance(self.v, flint.arb):
            return self._new(self.v ** k)
        if math.isnan(self.v):                # not IEEE's pow(NaN, 0) = 1: NaN stays NaN,
            return self._new(math.nan)        # as the proofs over intervals assume
        with np.errstate(all="ignore"):
            return self._new(float(np.power(np.float64(self.v), np.float64(k))))


class _IeeeNumbers:
    """The grammar's number system on :class:`_Ieee` values (see the module docstring)."""

    def __init__(self, state: dict):
        self.state = state

    def num(self, q: Fraction):
        return _Ieee(PLAIN.num(q), self.state)

    def const(self, name: str):
        return _Ieee(PLAIN.const(name), self.state)

    def divide(self, a, b):
        return a / b

    def power(self, base, k: int):
        if k >= 0 or not isinstance(base.v, flint.arb):
            return base ** k
        return 1 / base ** (-k)

    def __getattr__(self, name: str):
        if name not in FUNCTIONS:
            raise AttributeError(name)
        return lambda value: self._function(name, value)

    def _function(self, name: str, value: _Ieee) -> _Ieee:
        v = value.v
        if isinstance(v, float):
            return self._at_special(name, value)
        low, high = DOMAINS.get(name, (None, None))
        if low is not None and v < low or high is not None and v > high:
            return value._new(math.nan)
        for end in (low, high):
            if end is not None and v.contains(end):
                if not v.is_exact():
                    raise _Undecided()
                if end in POLES.get(name, ()):        # log1p(-1) = -Inf, atanh(1) = +Inf
                    with np.errstate(all="ignore"):
                        return value._new(float(_FLOAT_FUNCTIONS[name](float(end))))
        if name == "tan" and PLAIN.cos(v).contains(0):
            raise _Undecided()
        return value._new(getattr(PLAIN, name)(v))

    def _at_special(self, name: str, value: _Ieee) -> _Ieee:
        v = value.v
        with np.errstate(all="ignore"):
            result = float(_FLOAT_FUNCTIONS[name](v))
        if result == 0 or not math.isfinite(result):
            return value._new(result)
        if v == 0:                                   # exp(0) = 1, acos(0) = pi/2: in arb
            return value._new(getattr(PLAIN, name)(flint.arb(0)))
        self.state["met"] = True                     # a finite limit at an infinity
        if name == "atan":
            return value._new(flint.arb.pi() / 2 if v > 0 else -flint.arb.pi() / 2)
        return value._new(flint.arb(result))         # tanh, erf, erfc, expm1, sigmoid: integers


def ieee_value(evaluate, x, text: str) -> tuple:
    """``(value, met)`` of the expression at the exact input ``x`` (a float, +-0, +-Inf, or an
    int beyond the floats): an arb ball or a float special, and whether an infinity or NaN
    arose on the way."""
    bits = FIRST_PRECISION
    while bits <= MAX_PRECISION:
        state = {"met": False}
        try:
            with precision(bits):
                exact = isinstance(x, int) or math.isfinite(x) and x != 0
                argument = _Ieee(flint.arb(x) if exact else x, state)
                return evaluate(_IeeeNumbers(state), argument).v, state["met"]
        except _Undecided:
            bits *= 2
    raise ExpressionUndecided(f"reference {text!r}: cannot decide its value at x = {x!r} (a "
                              f"pole or a domain end that no ball up to {MAX_PRECISION} bits "
                              f"excludes)")


def at_infinity(evaluate, sign: float, text: str, anchor) -> float:
    """The value at ``sign * Inf``: IEEE's, or where IEEE meets an indeterminate form (0*Inf,
    Inf - Inf, Inf/Inf: NaN) the limit, as the registered references have it (gelu(-Inf) =
    -0), taken when the values at 2**1100 and 2**2200 (beyond every format's range) agree as
    floats, a ball within 2**-1100 of 0 signed by the ``anchor`` (arb bounds erfc(2**1100)
    only by +-tiny); else NaN. The agreement is evidence, not a proof."""
    value = as_float(ieee_value(evaluate, sign * math.inf, text)[0])
    if not math.isnan(value):
        return value
    far = []
    for k in LIMIT_POINTS:
        x = int(sign) << k
        ball = ieee_value(evaluate, x, text)[0]
        if isinstance(ball, flint.arb) and ball.contains(0):
            side = anchor(x) if ball.abs_upper() < TINY_LIMIT else None
            if side is None or side[0] != 0:
                return math.nan
            ball = math.copysign(0.0, side[1])
        far.append(as_float(ball))
    same = far[0] == far[1] and math.copysign(1, far[0]) == math.copysign(1, far[1])
    return far[0] if same else math.nan


LIMIT_POINTS = (1100, 2200)
TINY_LIMIT = flint.arb(2) ** -1100        # below it every format rounds to a zero


def as_float(value) -> float:
    """A float of an :func:`ieee_value` value (an arb ball rounded to nearest)."""
    return value if isinstance(value, float) else float(value.mid())


# ------------------------------------------------------------------------------------------
# Whole intervals: proven NaN, proven regular
# ------------------------------------------------------------------------------------------

def _piece(evaluate, low: float, high: float) -> str:
    """``"nan"`` if the expression is NaN at every point of [low, high] (a function strictly
    beyond its domain over the whole ball: NaN propagates through every operation),
    ``"regular"`` if its formula is finite over the ball (so at every point), else ``""``."""
    with precision(PIECE_PRECISION):
        ball = flint.arb((low + high) / 2, (high - low) / 2)
        try:
            value = evaluate(CHECKED, ball)
        except ExpressionUndefined as error:
            return "nan" if error.nan else ""
    return "regular" if isinstance(value, flint.arb) and value.is_finite() else ""


def _binades(low: float, high: float) -> list[tuple[float, float]]:
    """[low, high], of one sign, cut at powers of two."""
    negative = high < 0
    a, b = (-high, -low) if negative else (low, high)
    pieces = []
    for k in range(LOWEST_BINADE, TOP_BINADE):
        lo, hi = max(a, 2.0 ** k), min(b, 2.0 ** (k + 1))
        if lo <= hi:
            pieces.append((-hi, -lo) if negative else (lo, hi))
    return pieces


def _line_pieces(sign: float) -> list[tuple[float, float]]:
    """The binades of the line from its ``sign`` end inward, through zero to the other side:
    ``(outer, inner)`` ends of each."""
    inward = [(sign * 2.0 ** (k + 1), sign * 2.0 ** k)
              for k in range(TOP_BINADE - 1, LOWEST_BINADE - 1, -1)]
    return inward + [(-sign * 2.0 ** k, -sign * 2.0 ** (k + 1))
                     for k in range(LOWEST_BINADE, TOP_BINADE)]


def domain_hull(evaluate) -> tuple[float, float] | None:
    """``(lo, hi)``: finite inputs below ``lo`` or above ``hi`` are proven NaN, binade by binade
    from the largest magnitude the formats reach inward (through zero: acosh is NaN below 1),
    then by bisection into the first binade that is not; None if neither end is NaN."""
    ends = []
    for sign in (-1.0, 1.0):
        proven = None                                     # the inner end of the NaN region
        for outer, inner in _line_pieces(sign):
            if _piece(evaluate, min(inner, outer), max(inner, outer)) == "nan":
                proven = inner
                continue
            for _ in range(HULL_BISECTIONS):              # push into the failing binade
                middle = (inner + outer) / 2
                if _piece(evaluate, min(middle, outer), max(middle, outer)) == "nan":
                    outer = proven = middle
                else:
                    inner = middle
            break
        ends.append(proven)
    if ends == [None, None]:
        return None
    low = -math.inf if ends[0] is None else math.nextafter(ends[0], math.inf)
    high = math.inf if ends[1] is None else math.nextafter(ends[1], -math.inf)
    return low, high


class SpecialPoints:
    """:func:`special_points` as a :class:`~sfpu_sim.reference.definitions.Function`'s
    ``points``, worked out on first use: only building a table reads them (a cached table does
    not), and the cache's key names them by the expression (``repr``), which decides them."""

    def __init__(self, evaluate, text: str, hull, revision: int):
        self.evaluate, self.text, self.hull, self.revision = evaluate, text, hull, revision
        self._points = None

    def _worked_out(self) -> tuple:
        if self._points is None:
            self._points = special_points(self.evaluate, self.text, self.hull)
        return self._points

    def __iter__(self):
        return iter(self._worked_out())

    def __len__(self) -> int:
        return len(self._worked_out())

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"SpecialPoints({self.text!r}, {self.hull!r}, revision {self.revision})"


def special_points(evaluate, text: str, hull) -> tuple:
    """``((x, f(x)), ...)``: every finite nonzero BF16 and FP16 input inside ``hull`` where
    the formula cannot give the value (NaN, a pole, a value reached through an infinity),
    with its IEEE value. Proven per piece where the pieces allow, else input by input."""
    low, high = hull or (-math.inf, math.inf)
    values = np.unique(np.concatenate([formats.bits_to_float64(
        np.arange(1 << 16, dtype=np.uint32).astype(np.uint16), grid) for grid in GRIDS]))
    values = values[np.isfinite(values) & (values != 0) & (values >= low) & (values <= high)]
    if not values.size:
        return ()
    points = {}
    for side in (values[values < 0], values[values > 0]):
        if side.size:
            for a, b in _binades(float(side[0]), float(side[-1])):
                inside = side[np.searchsorted(side, a):np.searchsorted(side, b, "right")]
                _classify(evaluate, text, inside, a, b, 0, points)
    return tuple(sorted(points.items()))


def _classify(evaluate, text: str, inside: np.ndarray, a: float, b: float, depth: int,
              points: dict) -> None:
    if not inside.size:
        return
    kind = _piece(evaluate, a, b)
    if kind == "regular":
        return
    if kind == "nan":
        points.update((float(x), math.nan) for x in inside.tolist())
        return
    if depth < PIECE_BISECTIONS:
        middle = (a + b) / 2
        _classify(evaluate, text, inside[inside <= middle], a, middle, depth + 1, points)
        _classify(evaluate, text, inside[inside > middle], middle, b, depth + 1, points)
        return
    for x in inside.tolist():
        if not _formula_works(evaluate, x):
            value, met = ieee_value(evaluate, x, text)
            if met or isinstance(value, float) and math.isnan(value):
                points[x] = as_float(value)


def _formula_works(evaluate, x: float) -> bool:
    with precision(FIRST_PRECISION):
        try:
            value = evaluate(CHECKED, flint.arb(x))
        except ExpressionUndefined:
            return False
    return isinstance(value, flint.arb) and value.is_finite()
