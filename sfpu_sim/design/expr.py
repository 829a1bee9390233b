"""Small real expressions a designer types: interval ends (``-pi/4``, ``log(2)``), fixed
coefficient values (``1``, ``1/6``) and error weights (``exp(-x)``, ``1/(1+x^2)``).

Owns: parsing such text into a tree (never Python ``eval``), and evaluating the tree in one of
three number systems: mpmath numbers, arb balls, arb power series (for the certifier's Taylor
forms). Knows nothing of what the values are used for.

Grammar: decimal literals (read exactly: ``0.1`` is 1/10, not the float nearest it), the
constants ``pi``, ``e``, the variable ``x`` where allowed, ``+ - * /``, ``^`` or ``**`` with an
integer exponent, and the functions ``log``, ``exp``, ``sqrt``, ``sin``, ``cos``.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath

from sfpu_sim.errors import SfpuSimError

FUNCTIONS = ("log", "exp", "sqrt", "sin", "cos")
CONSTANTS = ("pi", "e")


class BadExpression(SfpuSimError):
    """Text that is not an expression of the grammar above."""


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
        :data:`SERIES`), with ``x`` bound to the given number."""
        return _evaluate(self.tree, numbers, x)


def parse(text: str, where: str, variable: bool = False) -> Expr:
    """Parse ``text``; ``where`` names the place in error messages (``--interval``)."""
    allowed = "numbers, pi, e" + (", x" if variable else "") + ", + - * / ^, " \
              + ", ".join(f"{f}()" for f in FUNCTIONS)
    try:
        source = text.strip().replace("^", "**")
        node = ast.parse(source, mode="eval").body
        return Expr(text.strip(), _tree(node, variable, source))
    except (SyntaxError, ValueError) as error:
        detail = error.msg if isinstance(error, SyntaxError) else str(error)
        raise BadExpression(f"{where}: cannot read {text.strip()!r} ({detail}); allowed: "
                            f"{allowed}") from None


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
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in FUNCTIONS and len(node.args) == 1 and not node.keywords:
        return ("call", node.func.id, _tree(node.args[0], variable, source))
    raise ValueError(f"unexpected {ast.dump(node)[:40]}")


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
    kind = tree[0]
    if kind == "num":
        return numbers.num(tree[1])
    if kind == "const":
        return numbers.const(tree[1])
    if kind == "x":
        return x
    if kind == "neg":
        return -_evaluate(tree[1], numbers, x)
    if kind == "pow":
        base = _evaluate(tree[1], numbers, x)
        return base ** tree[2] if tree[2] >= 0 else 1 / base ** (-tree[2])
    if kind == "call":
        return getattr(numbers, tree[1])(_evaluate(tree[2], numbers, x))
    a, b = _evaluate(tree[1], numbers, x), _evaluate(tree[2], numbers, x)
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "/": lambda: a / b}[kind]()


class MPMATH:
    """mpmath numbers at the current working precision."""
    num = staticmethod(lambda q: mpmath.mpf(q.numerator) / q.denominator)
    const = staticmethod(lambda name: +mpmath.pi if name == "pi" else mpmath.e())
    log, exp, sqrt, sin, cos = mpmath.log, mpmath.exp, mpmath.sqrt, mpmath.sin, mpmath.cos


class ARB:
    """arb balls at python-flint's current precision (``flint.ctx.prec``)."""
    num = staticmethod(lambda q: flint.arb(flint.fmpq(q.numerator, q.denominator)))
    const = staticmethod(lambda name: flint.arb.pi() if name == "pi" else flint.arb.const_e())
    log = staticmethod(lambda v: v.log())
    exp = staticmethod(lambda v: v.exp())
    sqrt = staticmethod(lambda v: v.sqrt())
    sin = staticmethod(lambda v: v.sin())
    cos = staticmethod(lambda v: v.cos())


class SERIES(ARB):
    """arb power series (truncated Taylor expansions with ball coefficients): constants are
    arb balls, which the series operations accept."""
