"""Leading terms: the first nonzero term of a function's series at its expansion point, and
its correctly rounded values.

Owns: per function, the leading term as an exact formula (``tan x = x + x^3/3 + ...``: ``x``)
with the series it comes from, and its values rounded by the reference machinery (certified,
cached and rounded under a policy like any reference, :func:`sfpu_sim.reference.reference`).
Where the correctly rounded f(x) equals the correctly rounded leading term, a kernel that
returns the leading term is exact without computing f; the inputs where they differ are where
a range-limited kernel shows what it computes. Knows nothing of kernels or ULP.

Functions without a term here have no meaningful one: a monomial is its own leading term
everywhere (sqrt, reciprocal, cbrt, abs, square, ...), and a piecewise or discontinuous
function (relu family, rounding, predicates, hard* and *shrink but tanhshrink, elu) has no
series at 0 that covers both sides, and log's term at 1, x - 1, is the correctly rounded log
at no BF16 input but x = 1 (the grid next to 1 is too coarse), so it is left out too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from sfpu_sim.reference.definitions import Function, define


@dataclass(frozen=True)
class LeadingTerm:
    """``term`` (text) of ``function`` at ``point``, from ``series``; ``formula(x, m)`` as a
    reference formula; ``zero``: its value at the zeros (:class:`Function`; None: the formula
    at 0); ``is_exact`` where the term is a dyadic of x (x, x/2, 1, x - 1), which the mpmath
    backend needs to settle it."""
    function: str
    term: str
    point: str
    series: str
    formula: Callable
    zero: object
    is_exact: Callable | None = None

    def reference_function(self) -> Function:
        return define(f"{self.function} leading term", f"{self.term} (at {self.point})",
                      self.formula, zero=self.zero, is_exact=self.is_exact,
                      source_extra=self.series)


def _identity(function: str, series: str) -> LeadingTerm:
    return LeadingTerm(function, "x", "0", series, lambda x, m: x, "odd",
                       lambda x, y: y == x)


def _half(function: str, series: str) -> LeadingTerm:
    return LeadingTerm(function, "x/2", "0", series, lambda x, m: x / 2, "odd",
                       lambda x, y: y == x / 2)


def _one(function: str, series: str) -> LeadingTerm:
    return LeadingTerm(function, "1", "0", series, lambda x, m: m.num(1) + 0 * x, None,
                       lambda x, y: y == 1)


def _half_constant(function: str, series: str) -> LeadingTerm:
    return LeadingTerm(function, "1/2", "0", series, lambda x, m: m.num(1, 2) + 0 * x, None,
                       lambda x, y: 2 * y == 1)


_TERMS = (
    _identity("tanh", "tanh x = x - x^3/3 + ..."),
    _identity("sin", "sin x = x - x^3/6 + ..."),
    _identity("tan", "tan x = x + x^3/3 + ..."),
    _identity("atan", "atan x = x - x^3/3 + ..."),
    _identity("asin", "asin x = x + x^3/6 + ..."),
    _identity("sinh", "sinh x = x + x^3/6 + ..."),
    _identity("asinh", "asinh x = x - x^3/6 + ..."),
    _identity("atanh", "atanh x = x + x^3/3 + ..."),
    _identity("expm1", "e^x - 1 = x + x^2/2 + ..."),
    _identity("log1p", "log(1 + x) = x - x^2/2 + ..."),
    _identity("softsign", "x/(1 + |x|) = x - x|x| + ..."),
    _half("gelu", "x/2 (1 + erf(x/sqrt 2)) = x/2 + x^2/sqrt(2 pi) + ..."),
    _half("gelu_tanh", "x/2 (1 + tanh(u)) = x/2 + x u/2 + ..., u = sqrt(2/pi) x + ..."),
    _half("silu", "x sigmoid(x) = x/2 + x^2/4 + ..."),
    _half("xielu", "x^2 + x/2 (x > 0), e^x - 1 - x/2 = x/2 + x^2/2 + ... (x < 0)"),
    LeadingTerm("erf", "2x/sqrt(pi)", "0", "erf x = 2/sqrt(pi) (x - x^3/3 + ...)",
                lambda x, m: 2 * x / m.sqrt(m.pi()), "odd"),
    LeadingTerm("erfinv", "sqrt(pi) x/2", "0", "erfinv x = sqrt(pi)/2 (x + pi x^3/12 + ...)",
                lambda x, m: m.sqrt(m.pi()) * x / 2, "odd"),
    # tanh(log a) = (a^2 - 1)/(a^2 + 1): a rational, so 3x/5-like dyadic values come back exact
    LeadingTerm("mish", "x tanh(log 2)", "0",
                "x tanh(softplus x) = x tanh(log 2) + ..., softplus 0 = log 2",
                lambda x, m: x * (m.num(2) ** 2 - 1) / (m.num(2) ** 2 + 1), "odd",
                lambda x, y: y * (2 ** 2 + 1) == x * (2 ** 2 - 1)),
    LeadingTerm("tanhshrink", "x^3/3", "0", "x - tanh x = x^3/3 - 2x^5/15 + ...",
                lambda x, m: x * x * x / 3, "odd", lambda x, y: 3 * y == x ** 3),
    _one("exp", "e^x = 1 + x + ..."),
    _one("exp2", "2^x = 1 + x log 2 + ..."),
    _one("exp_half", "e^(x/2) = 1 + x/2 + ..."),
    _one("cos", "cos x = 1 - x^2/2 + ..."),
    _one("cosh", "cosh x = 1 + x^2/2 + ..."),
    _one("erfc", "erfc x = 1 - 2x/sqrt(pi) + ..."),
    _one("tanh_derivative", "1 - tanh(x)^2 = 1 - x^2 + ..."),
    _half_constant("sigmoid", "1/(1 + e^-x) = 1/2 + x/4 + ..."),
    _half_constant("gelu_derivative", "Phi(x) + x phi(x) = 1/2 + 2x/sqrt(2 pi) + ..."),
    LeadingTerm("softplus", "log 2", "0", "log(1 + e^x) = log 2 + x/2 + ...",
                lambda x, m: m.log(m.num(2)) + 0 * x, None),
    LeadingTerm("acos", "pi/2", "0", "acos x = pi/2 - x - x^3/6 + ...",
                lambda x, m: m.pi() / 2 + 0 * x, None),
)
LEADING_TERMS = {t.function: t for t in _TERMS}


def leading_term(function: str) -> LeadingTerm | None:
    """The leading term of ``function``'s series, or None where it has no meaningful one."""
    return LEADING_TERMS.get(function)
