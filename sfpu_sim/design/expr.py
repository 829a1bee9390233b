"""Small real expressions a designer types: interval ends (``-pi/4``, ``log(2)``), fixed
coefficient values (``1``, ``1/6``), error weights (``exp(-x)``, ``1/(1+x^2)``) and reference
functions (``--reference 'x*erfc(-x/sqrt(2))/2'``, :mod:`sfpu_sim.reference.user_expressions`).

Owns: parsing such text into a tree (never Python ``eval``), and evaluating the tree in a
number system: mpmath numbers, arb balls, arb power series (the certifier's Taylor forms), each
the reference layer's math namespace (:class:`~sfpu_sim.reference.backends.MpMath`,
:class:`~sfpu_sim.reference.backends.ArbMath`, :class:`~sfpu_sim.design.target.SeriesMath`)
seen through :class:`Numbers`, so a function of the grammar is computed the way the registered
reference of that name is. Knows nothing of what the values are used for.

Grammar: decimal literals (read exactly: ``0.1`` is 1/10, not the float nearest it), the
constants ``pi``, ``e``, the variable ``x`` where allowed, ``+ - * /``, ``^`` or ``**`` with an
integer exponent, and the one-argument functions of :data:`FUNCTIONS`. Where a function is
undefined (:data:`DOMAINS`) a checked :class:`Numbers` says so (:class:`ExpressionUndefined`)
instead of returning a NaN ball; the IEEE values there are the reference layer's business.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from sfpu_sim.design.target import SeriesMath
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.reference import lookup
from sfpu_sim.reference.backends import ArbMath, MpMath
from sfpu_sim.reference.power_functions import _integer_cube_root as integer_cube_root

FUNCTIONS = ("log", "exp", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "atan", "asin",
             "acos", "asinh", "acosh", "atanh", "erf", "erfc", "log1p", "expm1", "log2",
             "log10", "exp2", "abs", "cbrt", "sigmoid")
CONSTANTS = ("pi", "e")
# Where a function of the grammar is defined: NaN below ``low`` or above ``high`` (None: no
# end), and the ends where it has a pole instead (log(0) = -Inf, atanh(1) = +Inf).
DOMAINS = {"log": (0, None), "log2": (0, None), "log10": (0, None), "sqrt": (0, None),
           "asin": (-1, 1), "acos": (-1, 1), "acosh": (1, None), "atanh": (-1, 1),
           "log1p": (-1, None)}
POLES = {"log": (0,), "log2": (0,), "log10": (0,), "atanh": (-1, 1), "log1p": (-1,)}


class BadExpression(SfpuSimError):
    """Text that is not an expression of the grammar above."""


class ExpressionUndefined(SfpuSimError, ValueError):
    """A function of the grammar certainly outside its domain, or a division by an exact zero
    (a ValueError too, which the fitter's checks take as "undefined here"). ``nan``: strictly
    beyond the domain (IEEE's NaN), not at a pole."""

    def __init__(self, message: str, nan: bool = False):
        super().__init__(message)
        self.nan = nan


@dataclass(frozen=True)
class Expr:
    """A parsed expression: ``text`` as typed, ``tree`` of tuples (see :func:`parse`)."""
    text: str
    tree: tuple

    @property
    def uses_x(self) -> bool:
        return _uses_x(self.tree)

    def rational(self) -> Fraction | None:
        """The exact value if the expression is rational arithmetic on literals, else None."""
        return _rational(self.tree)

    def evaluate(self, numbers, x=None):
        """The value in the number system ``numbers`` (:data:`MPMATH`, :data:`ARB`,
        :data:`SERIES`, or a :class:`Numbers`), with ``x`` bound to the given number."""
        return _evaluate(self.tree, numbers, x)


def allowed(variable: bool) -> str:
    """What the grammar accepts, for error messages."""
    return ("numbers, pi, e" + (", x" if variable else "") + ", + - * / ^, "
            + ", ".join(f"{f}()" for f in FUNCTIONS))


def parse(text: str, where: str, variable: bool = False) -> Expr:
    """Parse ``text``; ``where`` names the place in error messages (``--interval``)."""
    try:
        source = text.strip().replace("^", "**")
        node = ast.parse(source, mode="eval").body
        return Expr(text.strip(), _tree(node, variable, source))
    except (SyntaxError, ValueError) as error:
        detail = error.msg if isinstance(error, SyntaxError) else str(error)
        raise BadExpression(f"{where}: cannot read {text.strip()!r} ({detail}); allowed: "
                            f"{allowed(variable)}") from None


_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "^"}


def _tree(node, variable: bool, source: str) -> tuple:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return ("num", Fraction(ast.get_source_segment(source, node).replace("_", "")))
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            return ("const", node.id)
        if node.id == "x" and variable:
            return ("x",)
        raise ValueError(f"unknown name {node.id!r}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _tree(node.operand, variable, source)
        return ("neg", inner) if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _tree(node.left, variable, source), _tree(node.right, variable, source)
        if isinstance(node.op, ast.Pow):
            exponent = _rational(right)
            if exponent is None or exponent.denominator != 1 or abs(exponent) > 64:
                raise ValueError("exponents must be integers from -64 to 64")
            return ("pow", left, int(exponent))
        return (_BINARY[type(node.op)], left, right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return _call(node, variable, source)
    raise ValueError(f"unexpected {ast.dump(node)[:40]}")


def _call(node: ast.Call, variable: bool, source: str) -> tuple:
    name = node.func.id
    if name not in FUNCTIONS:
        raise ValueError(f"unknown function {name!r}")
    if len(node.args) != 1 or node.keywords:
        raise ValueError(f"{name}() takes one argument")
    return ("call", name, _tree(node.args[0], variable, source))


def _uses_x(tree) -> bool:
    if tree[0] == "x":
        return True
    return any(_uses_x(t) for t in tree[1:] if isinstance(t, tuple))


def _rational(tree) -> Fraction | None:
    kind = tree[0]
    if kind == "num":
        return tree[1]
    if kind == "neg":
        inner = _rational(tree[1])
        return None if inner is None else -inner
    if kind == "pow":
        base = _rational(tree[1])
        if base is None or (base == 0 and tree[2] < 0):
            return None
        return base ** tree[2]
    if kind in ("+", "-", "*", "/"):
        a, b = _rational(tree[1]), _rational(tree[2])
        if a is None or b is None or (kind == "/" and b == 0):
            return None
        return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else None}[kind]
    return None


def _evaluate(tree, numbers, x):
    return compiled(tree)(numbers, x)


_COMPILED: dict[tuple, object] = {}


def compiled(tree):
    """The tree as nested closures ``f(numbers, x)`` (built once per tree): a reference
    evaluates it at every input of a table, several times."""
    function = _COMPILED.get(tree)
    if function is None:
        function = _COMPILED[tree] = _compile(tree)
    return function


def _compile(tree):
    kind = tree[0]
    if kind == "num":
        q = tree[1]
        return lambda n, x: n.num(q)
    if kind == "const":
        name = tree[1]
        return lambda n, x: n.const(name)
    if kind == "x":
        return lambda n, x: x
    if kind == "neg":
        inner = _compile(tree[1])
        return lambda n, x: -inner(n, x)
    if kind == "pow":
        base, k = _compile(tree[1]), tree[2]
        return lambda n, x: n.power(base(n, x), k)
    if kind == "call":
        name, argument = tree[1], _compile(tree[2])
        return lambda n, x: getattr(n, name)(argument(n, x))
    a, b = _compile(tree[1]), _compile(tree[2])
    if kind == "+":
        return lambda n, x: a(n, x) + b(n, x)
    if kind == "-":
        return lambda n, x: a(n, x) - b(n, x)
    if kind == "*":
        return lambda n, x: a(n, x) * b(n, x)
    return lambda n, x: n.divide(a(n, x), b(n, x))


class Numbers:
    """The grammar's functions in a math namespace ``m`` of the reference layer (numbers of
    the backend: mpf, arb balls, or series), written as the registered references of the
    same names are (tan = sin/cos, asinh through log1p, ...).

    ``checked``: a function certainly outside its domain (the whole ball beyond it, or exactly
    at a pole: log of an exact 0), a division by an exact zero and tan at a zero of cos raise
    :class:`ExpressionUndefined` for balls and series and give NaN for mpf (mpmath's value is
    a point, not a proof; its backend asks again at another precision). Unchecked, the
    namespace's own answer (a NaN ball) stands, as interval ends and weights expect."""

    def __init__(self, m, checked: bool = False):
        self.m, self.checked = m, checked
        # a series over an interval around 0 has no sign: branch-free forms where the
        # registered ones branch on it (asinh, atanh: log1p of |x|, for cancellation)
        self.branch_free = issubclass(m, SeriesMath)

    # --- numbers and arithmetic ----------------------------------------------------------
    def num(self, q: Fraction):
        return self.m.num(q.numerator, q.denominator)

    def const(self, name: str):
        return self.m.pi() if name == "pi" else self.m.exp(self.m.num(1))

    def divide(self, a, b):
        if self.checked and _certainly_zero(b):
            return self._undefined("division by zero", b)
        return a / b

    def power(self, base, k: int):
        return base ** k if k >= 0 else self.divide(1, base ** (-k))

    def _undefined(self, what: str, value, nan: bool = False):
        if isinstance(value, mpmath.mpf):
            return mpmath.mpf("nan")
        raise ExpressionUndefined(what, nan)

    def _checked(self, name: str, v):
        """None if ``v`` may be in the domain of ``name``, else the undefined answer."""
        if not self.checked or name not in DOMAINS:
            return None
        low, high = DOMAINS[name]
        poles = POLES.get(name, ())
        if low is not None and v < low or high is not None and v > high:
            return self._undefined(f"{name} of a number outside "
                                   f"[{'-inf' if low is None else low}, "
                                   f"{'inf' if high is None else high}]", v, nan=True)
        for end in poles:
            if v == end:
                return self._undefined(f"{name}({end}) is a pole", v)
        return None

    # --- the functions ---------------------------------------------------------------------
    def _call(self, name: str, v, compute):
        refused = self._checked(name, v)
        return refused if refused is not None else compute(v)

    def log(self, v):
        return self._call("log", v, self.m.log)

    def log2(self, v):
        exact = _exact_power(v, 2)
        if exact is not None:                      # log2(2**k) = k: no ball shrinks onto it
            return self.m.num(exact)
        return self._call("log2", v, lambda u: lookup("log2").formula(u, self.m))

    def log10(self, v):
        exact = _exact_power(v, 10)
        if exact is not None:
            return self.m.num(exact)
        return self._call("log10", v, lambda u: self.m.log(u) / self.m.log(self.m.num(10)))

    def log1p(self, v):
        return self._call("log1p", v, self.m.log1p)

    def sqrt(self, v):
        return self._call("sqrt", v, self.m.sqrt)

    def asin(self, v):
        return self._call("asin", v, self.m.asin)

    def acos(self, v):
        return self._call("acos", v, self.m.acos)

    def asinh(self, v):
        if self.branch_free:
            return self.m.log(v + self.m.sqrt(1 + v * v))
        return lookup("asinh").formula(v, self.m)

    def acosh(self, v):
        return self._call("acosh", v, lambda u: lookup("acosh").formula(u, self.m))

    def atanh(self, v):
        if self.branch_free:
            return self._call("atanh", v, lambda u: self.m.log1p(2 * u / (1 - u)) / 2)
        return self._call("atanh", v, lambda u: lookup("atanh").formula(u, self.m))

    def tan(self, v):
        cosine = self.m.cos(v)
        if self.checked and _certainly_zero(cosine):
            return self._undefined("tan at a pole", cosine)
        return self.m.sin(v) / cosine

    def abs(self, v):
        try:
            return abs(v)                          # an mpf, or an arb ball (its exact hull)
        except TypeError:                          # a series: decided on its interval
            return -v if v < 0 else v

    def cbrt(self, v):
        root = _exact_cube_root(v)
        if root is not None:
            return self.m.num(root.numerator, root.denominator)
        return self.m.exp(self.m.log(v) / 3) if v > 0 else -self.m.exp(self.m.log(-v) / 3)

    def sigmoid(self, v):
        return 1 / (1 + self.m.exp(-v))

    def __getattr__(self, name: str):
        # exp, sin, cos, tanh, sinh, cosh, atan, erf, erfc, expm1, exp2: the namespace's own
        if name in FUNCTIONS:
            return getattr(self.m, name)
        raise AttributeError(name)


def _certainly_zero(value) -> bool:
    """An exact zero (arb: a ball of radius 0; mpf: 0; series: a zero constant term)."""
    if isinstance(value, mpmath.mpf):
        return value == 0
    constant = getattr(value, "constant", None)
    value = constant() if constant is not None else value
    return bool(value == 0)


def _exact_point(value) -> Fraction | None:
    """The exact value of a point (an exact arb ball, an mpf), else None."""
    if isinstance(value, mpmath.mpf):
        return Fraction(*mpmath.libmp.to_rational(value._mpf_)) if mpmath.isfinite(value) \
            else None
    is_exact = getattr(value, "is_exact", None)
    if is_exact is None or not is_exact() or not value.is_finite():
        return None
    mantissa, exponent = value.mid().man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _exact_power(value, base: int) -> int | None:
    """k where the point ``value`` is exactly ``base**k`` (2 or 10; a negative power of 10 is
    no binary number), else None."""
    exact = _exact_point(value)
    if exact is None or exact <= 0:
        return None
    p, q = exact.numerator, exact.denominator
    if base == 2:
        return p.bit_length() - q.bit_length() if p & (p - 1) == 0 == q & (q - 1) else None
    k = len(str(p)) - 1
    return k if q == 1 and p == 10 ** k else None


def _exact_cube_root(value) -> Fraction | None:
    """The cube root of a point ``value`` when it is rational (8 -> 2), else None."""
    exact = _exact_point(value)
    if exact is None:
        return None
    roots = [integer_cube_root(abs(part)) for part in (exact.numerator, exact.denominator)]
    if None in roots:
        return None
    return Fraction(roots[0] if exact >= 0 else -roots[0], roots[1])


MPMATH = Numbers(MpMath)
"""mpmath numbers at the current working precision."""
ARB = Numbers(ArbMath)
"""arb balls at python-flint's current precision (``flint.ctx.prec``)."""
SERIES = Numbers(SeriesMath)
"""arb power series (truncated Taylor expansions with ball coefficients); constants are arb
balls, which the series operations accept."""
