"""User expressions as reference functions: ``sweep KERNEL --reference 'tan(x)'``,
``register_kernel(..., function="x*erfc(-x/sqrt(2))/2")``, ``fit --reference 'log1p(exp(x))'``.

Owns: turning an expression in x (the grammar of :mod:`sfpu_sim.design.expr`, a leaf module:
one grammar for interval ends, weights and references) into a reference
:class:`~sfpu_sim.reference.definitions.Function` registered under ``"<text> (user
expression)"``, once per text and process; and the name a command's ``--reference`` or a
kernel's ``function=`` stands for. Knows nothing of kernels or sweeps.

How it is evaluated. Every function of the grammar has an arb form (python-flint), so the
reference is certified like a registered one: proven bounds, Ziv's ladder, the same cache
(keyed on the text and :data:`REVISION`); the mpmath backend evaluates the same formula when
asked (``backend="mpmath"``: checked, not proven). Where the formula cannot go, the values are
IEEE's (:mod:`.expression_values`): NaN beyond a function's domain, +-Inf at a pole, the signed
zeros as IEEE arithmetic gives them (``1/x`` at -0 is -Inf), and an exact zero at a nonzero
input is +0 (as the registry's ``log(1)``). At +-Inf the value is IEEE's too, except where IEEE
meets 0*Inf or Inf - Inf: there the limit, as the registered references have it (``x*erfc(-x/
sqrt(2))/2`` at -Inf is -0, gelu's), when it can be told (else NaN). The NaN regions at the ends
of the line are proven over intervals (the ``domain``); the other inputs with special values
are found for the BF16 and FP16 patterns when a table is first built (the ``points``), proven
per interval where possible. An input of another format inside the domain where the
expression is undefined is refused in one line. Saturating values (``tanh(5000)``,
``log1p(exp(20000))``) are settled by anchors derived from the expression
(:mod:`.expression_anchors`); a value that lands exactly on a rounding boundary through a
transcendental function (``sin(pi*x)`` at x = 1, ``log(exp(x))``) is not recognised and stops
the table with the reference layer's UnresolvedRounding.
"""
from __future__ import annotations

import hashlib
from fractions import Fraction

import flint
import mpmath

from sfpu_sim.design.expr import ExpressionUndefined, Numbers, compiled, parse
from sfpu_sim.reference import definitions
from sfpu_sim.reference.backends import ArbMath
from sfpu_sim.reference.core import UnknownFunction
from sfpu_sim.reference.definitions import Function, define
from sfpu_sim.reference.expression_anchors import Anchor
from sfpu_sim.reference.expression_values import (
    SpecialPoints,
    as_float,
    at_infinity,
    domain_hull,
    ieee_value,
    precision,
)

SUFFIX = " (user expression)"
REVISION = 1                     # bump when how an expression is evaluated changes
EXACT_PRECISION = 256            # bits of the arb evaluation that proves a value exact
FILE_NAME_BYTES = 160            # longer names are shortened for the cache's file name
_MADE: dict[str, Function] = {}  # key -> its Function (kept when the registry is restored)


def is_expression(name: str) -> bool:
    """Whether a registry name is a user expression's."""
    return isinstance(name, str) and name.endswith(SUFFIX)


def expression_text(name: str) -> str | None:
    """The expression of a user expression's registry name (``"tan(x)"``), else None."""
    return name[:-len(SUFFIX)] if is_expression(name) else None


def reference_name(text: str, where: str = "--reference") -> str:
    """The registry name ``text`` stands for: a registered function's name as it is, else an
    expression in x, registered here on first use (:func:`register_expression`)."""
    text = str(text).strip()
    if text in definitions.FUNCTIONS:
        return text
    if text.isidentifier() and text != "x":
        known = ", ".join(n for n in definitions.FUNCTIONS if not is_expression(n))
        raise UnknownFunction(f"{where}: unknown function {text!r} (known: {known}; or an "
                              f"expression in x, e.g. 'tan(x)')")
    return register_expression(expression_text(text) or text, where)


def register_expression(text: str, where: str = "--reference") -> str:
    """Register the reference defined by the expression ``text`` in x; returns its name,
    ``"<text> (user expression)"`` (whitespace dropped). A text that is not an expression of
    the grammar raises :class:`~sfpu_sim.design.expr.BadExpression` naming ``where``."""
    expression = parse(text, where, variable=True)
    compact = "".join(expression.text.split())
    key = compact + SUFFIX
    if key not in _MADE:
        _MADE[key] = _function(expression.tree, compact, key)
    definitions.FUNCTIONS[key] = _MADE[key]
    return key


def _file_name(key: str) -> str:
    """A name the cache can use as a file name: no ``/``; a long one shortened, with a digest
    of the whole."""
    name = key.replace("/", "\u00f7")
    if len(name.encode()) > FILE_NAME_BYTES:
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        name = f"{name[:60]}~{digest}{SUFFIX}"
    return name


def _is_point(x) -> bool:
    """An input (a float, an exact ball, an mpf), not an interval or a series of a fit."""
    return isinstance(x, (float, mpmath.mpf)) or isinstance(x, flint.arb) and x.is_exact()


def _function(tree, text: str, key: str) -> Function:
    """The Function of one expression (see the module docstring)."""
    checked, evaluate = {}, compiled(tree)
    anchor = Anchor(evaluate)

    def formula(x, m):
        numbers = checked.get(m) or checked.setdefault(m, Numbers(m, checked=True))
        try:
            return evaluate(numbers, x)
        except ExpressionUndefined as error:
            if not _is_point(x):
                raise                              # a fit's interval check: "undefined here"
            raise ExpressionUndefined(
                f"reference {text!r} is undefined at x = {float(x)!r} ({error}); a user "
                f"expression's special values are worked out for the BF16 and FP16 inputs",
                error.nan) from None

    def is_exact(x: Fraction, y: Fraction) -> bool:
        # the mpmath backend's question: is y exactly the value? arb proves it or nobody does
        with precision(EXACT_PRECISION):
            try:
                ball = evaluate(Numbers(ArbMath, checked=True),
                                flint.arb(x.numerator) / x.denominator)
            except ExpressionUndefined:
                return False
        return ball.is_exact() and ball == flint.arb(y.numerator) / y.denominator

    hull = domain_hull(evaluate)
    at_zero = [ieee_value(evaluate, zero, text) for zero in (0.0, -0.0)]
    zero = None if all(not met and not isinstance(value, float) for value, met in at_zero) \
        else tuple(as_float(value) for value, _ in at_zero)
    inf = (at_infinity(evaluate, 1.0, text, anchor), at_infinity(evaluate, -1.0, text, anchor))
    return define(_file_name(key), f"user expression {text}", formula, zero=zero, inf=inf,
                  domain=hull, points=SpecialPoints(evaluate, text, hull, REVISION),
                  anchor=lambda x: anchor(x), is_exact=is_exact, revision=REVISION,
                  source_extra=repr(tree))
