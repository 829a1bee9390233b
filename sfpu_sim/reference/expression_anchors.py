"""Anchors of a user's reference expression: a number its value provably lies strictly above
or below, where the value comes so close to it that no affordable ball separates them
(``tanh(x)`` at x = 5000 is 1 - 2**-14427; see :class:`sfpu_sim.reference.definitions.Function`,
``anchor``).

Owns: deriving the anchor at one input from the expression's (compiled) tree, node by node. A node knows
its value exactly (``x``, literals, exact arb results), or a side of a number (``tanh(u) < 1``
for u > 0), or nothing. Sides come from the functions' own bounds, the same facts the registry's
anchors rest on (proved beside :mod:`sfpu_sim.reference.definitions`: 0 < erfc < 2,
|tanh u| < min(|u|, 1), |sin u| < |u|, expm1(u) > u, log1p(u) < u, ...), and travel through
exact operands (``x * erfc(-x/sqrt(2)) / 2 < x`` for large x: gelu's anchor), strictly
monotone functions (``exp(u) > 1`` for u > 0) and products and quotients of known sign. Every
premise (a sign, |u| < 1) is decided on an arb ball or not used. Knows nothing of rounding.
"""
from __future__ import annotations

from fractions import Fraction

import flint

from sfpu_sim.design.expr import FUNCTIONS, Numbers
from sfpu_sim.reference.backends import ArbMath
from sfpu_sim.reference.expression_values import ANCHOR_PRECISION, precision

PLAIN = Numbers(ArbMath)
INCREASING = {"exp", "log", "sqrt", "tanh", "atan", "asin", "sinh", "asinh", "atanh", "erf",
              "log1p", "expm1", "exp2", "log2", "log10", "cbrt", "sigmoid", "acosh"}
DECREASING = {"acos", "erfc"}


def _sign(ball) -> int:
    """+1 or -1 when the ball decides it, else 0."""
    return 1 if ball > 0 else -1 if ball < 0 else 0


class _Node:
    """A node's value: its ``ball``, its ``exact`` value if known, and ``side``: ``(a, s)``,
    the value lies strictly above ``a`` (``s`` = +1) or below it (-1), if known."""
    __slots__ = ("_exact", "ball", "side", "softplus_of")

    def __init__(self, ball, side=None, softplus_of=None):
        self.ball, self.side, self._exact = ball, side, False
        # w where this node is exp(w) or 1 + exp(w): log1p / log of it lies above w
        self.softplus_of = softplus_of

    @property
    def exact(self) -> Fraction | None:
        if self._exact is False:                 # worked out on first use: most nodes never are
            self._exact = None
            if self.ball.is_exact() and self.ball.is_finite():
                mantissa, exponent = (int(v) for v in self.ball.mid().man_exp())
                self._exact = Fraction(mantissa << exponent) if exponent >= 0 else \
                    Fraction(mantissa, 1 << -exponent)
        return self._exact

    @staticmethod
    def of(value) -> _Node:
        return value if isinstance(value, _Node) else _Node(flint.arb(value))

    def __neg__(self):
        return _Node(-self.ball, _negated(self.side))

    def __add__(self, other):
        other = _Node.of(other)
        one_plus = next((n.softplus_of for n, m in ((self, other), (other, self))
                         if n.softplus_of is not None and m.exact == 1), None)
        return _Node(self.ball + other.ball, _sum(self, other), one_plus)

    __radd__ = __add__

    def __sub__(self, other):
        return self + (-_Node.of(other))

    def __rsub__(self, other):
        return _Node.of(other) + (-self)

    def __mul__(self, other):
        other = _Node.of(other)
        return _Node(self.ball * other.ball, _product(self, other))

    __rmul__ = __mul__

    def __truediv__(self, other):
        return _quotient(self, _Node.of(other))

    def __rtruediv__(self, other):
        return _quotient(_Node.of(other), self)

    def __pow__(self, k: int):
        return _Node(self.ball ** k, _power(self, k))


def _negated(side):
    return None if side is None else (-side[0], -side[1])


def _sum(p: _Node, q: _Node):
    if p.exact is not None and q.side:
        return q.side[0] + p.exact, q.side[1]
    if q.exact is not None and p.side:
        return p.side[0] + q.exact, p.side[1]
    if p.side and q.side and p.side[1] == q.side[1]:
        return p.side[0] + q.side[0], p.side[1]
    return None


def _scaled(side, c: Fraction):
    """``c * u`` for ``u`` on ``side``, ``c`` exact."""
    if side is None or c == 0:
        return None
    return side[0] * c, side[1] if c > 0 else -side[1]


def _product(p: _Node, q: _Node):
    if p.exact is not None:
        return _scaled(q.side, p.exact)
    if q.exact is not None:
        return _scaled(p.side, q.exact)
    if p.side and q.side and p.side[1] == q.side[1] and p.side[0] >= 0 and q.side[0] >= 0 \
            and p.ball > 0 and q.ball > 0:             # both positive, both above or below
        return p.side[0] * q.side[0], p.side[1]
    return None


def _quotient(p: _Node, q: _Node) -> _Node:
    ball = p.ball / q.ball
    if q.exact is not None and q.exact != 0:
        return _Node(ball, _scaled(p.side, 1 / q.exact))
    side = None
    if p.exact is not None and p.exact != 0 and q.side and q.side[0] != 0 \
            and _sign(q.ball) == (1 if q.side[0] > 0 else -1):
        # c/u with u and a of one sign: 1/u is decreasing there
        side = p.exact / q.side[0], -q.side[1] if p.exact > 0 else q.side[1]
    return _Node(ball, side)


def _power(p: _Node, k: int):
    if p.side is None or k == 0:
        return None
    a, s = p.side
    sign = _sign(p.ball)
    if sign > 0 and (a > 0 or a == 0 and k > 0):
        return a ** k, s if k > 0 else -s
    if sign < 0 and a < 0 and k > 0:                     # u, a < 0: |u| moves against u
        return a ** k, s if k % 2 else -s
    return None


def _own_side(name: str, u: _Node):
    """The function's own bound at ``u`` (see the module docstring), or None."""
    sign = _sign(u.ball)
    small = abs(u.ball) < 1
    if name == "tanh" and sign:
        return (u.exact, -sign) if small and u.exact is not None else (Fraction(sign), -sign)
    if name == "erf" and sign:
        return Fraction(sign), -sign
    if name == "erfc" and sign:
        return (Fraction(1), -sign) if small else (Fraction(0), 1) if sign > 0 \
            else (Fraction(2), -1)
    if name == "sigmoid" and sign:
        return (Fraction(1, 2), sign) if small else (Fraction(1), -1) if sign > 0 \
            else (Fraction(0), 1)
    if name in ("exp", "exp2"):
        return (Fraction(1), sign) if sign and u.ball > -1 else (Fraction(0), 1)
    if name == "expm1":
        if u.exact is not None and u.exact > -1 and sign:
            return u.exact, 1
        return (Fraction(-1), 1) if u.ball <= -1 else (Fraction(0), sign) if sign else None
    if name == "log1p":
        return (u.exact, -1) if u.exact is not None and sign else \
            (Fraction(0), sign) if sign else None
    if name in ("log", "log2", "log10"):
        above = _sign(u.ball - 1)
        return (Fraction(0), above) if above else None
    if name == "cosh" and sign:
        return Fraction(1), 1
    exact = u.exact if sign else None
    if exact is None:
        return None
    rules = {"sin": -1, "sinh": 1, "asinh": -1, "atanh": 1, "asin": 1}
    if name in rules:
        return exact, rules[name] * sign
    if name == "cos":
        return Fraction(1), -1
    if name == "tan" and abs(u.ball) < 1.5:
        return exact, sign
    if name == "atan" and small:
        return exact, -sign
    return None


def _carried_side(name: str, u: _Node):
    """``g(a)`` with the side kept or turned, for ``u`` on a side of ``a`` and ``g`` strictly
    monotone between them, where ``g(a)`` is exact; else None."""
    if u.side is None:
        return None
    a, s = u.side
    if name in INCREASING:
        direction = 1
    elif name in DECREASING:
        direction = -1
    elif name in ("abs", "cosh") and _sign(u.ball) and _sign(u.ball) * a >= 0:
        direction = _sign(u.ball)                        # monotone on u's side of 0
    else:
        return None
    try:
        at_a = _Node(getattr(PLAIN, name)(flint.arb(a.numerator) / a.denominator))
    except (ValueError, ZeroDivisionError):
        return None
    return (at_a.exact, s * direction) if at_a.exact is not None else None


class _AnchorNumbers:
    """The grammar's number system on :class:`_Node` values."""

    def num(self, q: Fraction):
        return _Node(PLAIN.num(q))

    def const(self, name: str):
        return _Node(PLAIN.const(name))

    def divide(self, a, b):
        return a / b

    def power(self, base, k: int):
        return base ** k

    def __getattr__(self, name: str):
        if name not in FUNCTIONS:
            raise AttributeError(name)

        def function(u: _Node) -> _Node:
            ball = getattr(PLAIN, name)(u.ball)
            w = u.softplus_of
            if w is not None and name in ("log1p", "log") and w.exact is not None and w.ball > 0:
                # log1p(e^w) = w + log1p(e^-w) > w: softplus saturates onto w
                return _Node(ball, (w.exact, 1))
            return _Node(ball, _own_side(name, u) or _carried_side(name, u),
                         u if name == "exp" else None)
        return function


class Anchor:
    """The anchor function of one expression (``evaluate``: its compiled tree): ``(a, side)``
    for :func:`sfpu_sim.reference.certify`, ``a`` a float or an int (taken exactly) that the
    value at ``x`` lies strictly above (``side`` +1) or below (-1), or None. Remembered for
    the last inputs: the ladder asks again at each precision."""

    def __init__(self, evaluate):
        self.evaluate, self.recent = evaluate, {}

    def __call__(self, x: float):
        if x not in self.recent:
            if len(self.recent) >= RECENT_ANCHORS:
                self.recent.clear()
            self.recent[x] = self._anchor(x)
        return self.recent[x]

    def _anchor(self, x: float):
        with precision(ANCHOR_PRECISION):
            try:
                node = self.evaluate(_AnchorNumbers(), _Node(flint.arb(x)))
            except (ValueError, ZeroDivisionError):
                return None
        if node.side is None or node.exact is not None:
            return None
        a, side = node.side
        if a.denominator == 1:
            return int(a), side
        try:
            exact_float = a.denominator & (a.denominator - 1) == 0 and Fraction(float(a)) == a
        except OverflowError:
            return None
        return (float(a), side) if exact_float else None


RECENT_ANCHORS = 4096
