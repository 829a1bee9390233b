"""The registry of reference functions: name -> exact mathematical definition, its values at
the zeros and infinities, its domain, and the anchors that settle saturating values (the proofs
are beside the definitions). Knows nothing of evaluation or rounding."""
from __future__ import annotations

import ast
import dataclasses
import inspect
import linecache
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import mpmath

from sfpu_sim.reference.backends import MpMath
from sfpu_sim.reference.core import USER_EXACT_PRECISION, UnknownFunction


@dataclass(frozen=True)
class Function:
    """One reference function: its exact definition and its values where evaluation cannot go.

    ``formula(x, m)``: the value at a finite nonzero input ``x`` (a number of the backend), with
    ``m`` the backend's math namespace (:class:`ArbMath`, :class:`MpMath`). Write it in a form
    free of cancellation where cheap (ball arithmetic stays correct either way, but cancellation
    costs precision and time).
    ``zero``: value at the zeros: ``"odd"`` (+0 -> +0, -0 -> -0), ``"pole"`` (+0 -> +Inf,
    -0 -> -Inf), a float (both zeros), a pair ``(f(+0), f(-0))``, or ``None`` to evaluate the
    formula at 0.
    ``inf``: the pair ``(f(+Inf), f(-Inf))``.
    ``domain``: ``"positive"`` if negative finite inputs give NaN, a closed interval ``(lo, hi)``
    outside which finite inputs give NaN, else ``None``.
    ``points``: finite inputs with fixed values, pairs ``(x, f(x))`` (``log1p(-1) = -Inf``):
    a tuple, or a sequence worked out on first use (a user expression's, whose ``repr`` then
    names them for the cache: :class:`~sfpu_sim.reference.expression_values.SpecialPoints`).
    ``anchor(x) -> (a, side)`` or None: a float, or an int taken exactly, ``a`` (0, 1, x, x/2,
    x - 1, ...) that f(x) lies strictly above (``side`` +1) or below (-1), where f(x) can come so
    close to ``a`` (saturation, tails, tiny x) that no affordable ball separates them:
    ``tanh(4288) = 1 - 2**-12373``. It must hold
    for every finite nonzero x it is asked about; it is only consulted when a ball contains ``a``.
    ``is_exact(x, y) -> bool``: for functions with exact representable values at finite
    inputs (``sqrt(4) = 2``): whether ``y`` is exactly f(x), in rational arithmetic (x and y are
    Fractions). arb finds exact results itself; the mpmath backend needs the proof.
    ``revision``: bump when the definition changes in a way its source text does not show.
    """
    name: str
    description: str
    formula: Callable
    zero: object = None
    inf: tuple = (math.nan, math.nan)
    domain: str | tuple | None = None
    points: tuple = ()
    anchor: Callable | None = None
    is_exact: Callable | None = None
    revision: int = 1
    backends: tuple = ("flint", "mpmath")
    source: str = field(default="", compare=False, repr=False)

    def at_zero(self) -> tuple | None:
        if self.zero is None:
            return None
        if self.zero == "odd":
            return (0.0, -0.0)
        if self.zero == "pole":
            return (math.inf, -math.inf)
        if isinstance(self.zero, tuple):
            return self.zero
        return (float(self.zero), float(self.zero))


FUNCTIONS: dict[str, Function] = {}


def _source(code) -> str:
    if code is None:
        return ""
    try:
        return inspect.getsource(code)
    except (OSError, TypeError):                # defined interactively: fall back to bytecode
        return repr((code.__code__.co_code, code.__code__.co_consts))


def _own_source(fn) -> str:
    """A lambda's own text (``lambda x: x * x``), not the lines around it that
    :func:`inspect.getsource` gives: a kernel file's provenance string or its other arguments on
    those lines are no part of the function. Other functions: :func:`_source`."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_name != "<lambda>":
        return _source(fn)
    linecache.checkcache(code.co_filename)          # a kernel file edited since it was read
    text = "".join(linecache.getlines(code.co_filename, getattr(fn, "__globals__", None)))
    # Where the body's instructions start (the frame's own set-up and return carry (0, 0)).
    body = min(((line, column) for line, _, column, end in code.co_positions()
                if line is not None and column is not None and (column, end) != (0, 0)),
               default=None)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return _source(fn)
    found = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)
             and (node.body.lineno, node.body.col_offset) == body]
    if len(found) != 1:
        return _source(fn)
    return ast.get_source_segment(text, found[0]) or _source(fn)


def register(name: str, description: str, formula: Callable, *, source_extra: str = "",
             **properties) -> Function:
    """Add a function to the registry (one call; see :class:`Function` for the properties).
    The cache key carries a digest of everything given here, source text included."""
    function = define(name, description, formula, source_extra=source_extra, **properties)
    FUNCTIONS[name] = function
    return function


def define(name: str, description: str, formula: Callable, *, source_extra: str = "",
           **properties) -> Function:
    """A function as :func:`register` makes it, outside the registry (a leading term,
    :mod:`sfpu_sim.reference.leading_terms`): certified and cached like a registered one."""
    function = Function(name, description, formula, **properties)
    source = [description, *([source_extra] if source_extra else []), _source(formula),
              _source(function.anchor),
              _source(function.is_exact), repr((function.zero, function.inf, function.domain))]
    if function.points:
        source.append(repr(function.points))
    return dataclasses.replace(function, source="\n".join(source))


def _sgn(x: float) -> int:
    return 1 if x > 0 else -1


def _softplus(x, m):
    # log(1 + e^x), written so that neither branch builds a huge intermediate
    return x + m.log1p(m.exp(-x)) if x > 0 else m.log1p(m.exp(x))


# Each anchor holds for every finite nonzero x it is returned for:
# |tanh x| < |x| and |tanh x| < 1; |sin x| < |x|; cos x < 1 (x is never a multiple of 2 pi);
# gelu(x) - x/2 = x/2 erf(x/sqrt 2) > 0, gelu(x) < x for x > 0, gelu(x) < 0 for x < 0, and the
# same three for gelu_tanh (tanh(u) in place of erf) and silu (sigma(x) - 1/2 in its place);
# gelu'(x) - 1/2 = (Phi(x) - 1/2) + x phi(x) has the sign of x, and with Mills' ratio
# 1 - Phi(t) < phi(t)/t (t > 0): gelu'(x) - 1 > phi(x)(x - 1/x) >= 0 for x >= 1 (gelu'(1) =
# 1.083) and gelu'(x) < phi(x)(1/|x| - |x|) <= 0 for x <= -1 (gelu'(-1) = -0.083);
# exp(x) - 1 and sigmoid(x) - 1/2 have the sign of x; 0 < sigmoid < 1; 0 < erfc < 2 and
# erfc(x) - 1 has the sign of -x; softplus(x) > max(x, 0); 0 < sech(x)^2 < 1.
register("tanh", "hyperbolic tangent",
         lambda x, m: m.tanh(x), zero="odd", inf=(1.0, -1.0),
         anchor=lambda x: (x if abs(x) < 1 else _sgn(x), -_sgn(x)))
register("gelu", "x/2*(1+erf(x/sqrt 2)), evaluated as x/2*erfc(-x/sqrt 2)",
         lambda x, m: x * m.erfc(-x / m.sqrt(m.num(2))) / 2, zero="odd", inf=(math.inf, -0.0),
         anchor=lambda x: (x / 2, 1) if abs(x) < 1 else ((x, -1) if x > 0 else (0.0, -1)))
register("gelu_tanh", "x/2*(1+tanh(u)), u = sqrt(2/pi)*(x+0.044715x^3) with 0.044715 exact; "
         "evaluated as x/(1+exp(-2u))",
         lambda x, m: x / (1 + m.exp(-2 * m.sqrt(2 / m.pi())
                                     * (x + m.num(44715, 10**6) * x * x * x))),
         zero="odd", inf=(math.inf, -0.0),
         anchor=lambda x: (x / 2, 1) if abs(x) < 1 else ((x, -1) if x > 0 else (0.0, -1)))
register("gelu_derivative", "derivative of the erf-form gelu: Phi(x) + x*phi(x)",
         lambda x, m: (m.erfc(-x / m.sqrt(m.num(2))) / 2
                       + x * m.exp(-x * x / 2) / m.sqrt(2 * m.pi())),
         zero=0.5, inf=(1.0, -0.0),
         anchor=lambda x: (0.5, _sgn(x)) if abs(x) < 1 else ((1.0, 1) if x > 0 else (0.0, -1)))
register("exp", "e^x",
         lambda x, m: m.exp(x), zero=1.0, inf=(math.inf, 0.0),
         anchor=lambda x: (1.0, _sgn(x)))
register("log", "natural logarithm",
         lambda x, m: m.log(x), zero=-math.inf, inf=(math.inf, math.nan), domain="positive")
register("reciprocal", "1/x",
         lambda x, m: 1 / x, zero="pole", inf=(0.0, -0.0),
         is_exact=lambda x, y: x * y == 1)
register("sqrt", "square root",
         lambda x, m: m.sqrt(x), zero="odd", inf=(math.inf, math.nan), domain="positive",
         is_exact=lambda x, y: y >= 0 and y * y == x)
register("rsqrt", "1/sqrt(x)",
         lambda x, m: m.rsqrt(x), zero="pole", inf=(0.0, math.nan), domain="positive",
         is_exact=lambda x, y: y >= 0 and y * y * x == 1)
register("sigmoid", "1/(1+e^-x)",
         lambda x, m: 1 / (1 + m.exp(-x)), zero=0.5, inf=(1.0, 0.0),
         anchor=lambda x: (0.5, _sgn(x)) if abs(x) < 1 else ((1.0, -1) if x > 0 else (0.0, 1)))
register("silu", "x/(1+e^-x)",
         lambda x, m: x / (1 + m.exp(-x)), zero="odd", inf=(math.inf, -0.0),
         anchor=lambda x: (x / 2, 1) if abs(x) < 1 else ((x, -1) if x > 0 else (0.0, -1)))
register("erf", "error function",
         lambda x, m: m.erf(x), zero="odd", inf=(1.0, -1.0),
         anchor=lambda x: (_sgn(x), -_sgn(x)))
register("erfc", "complementary error function 1 - erf(x)",
         lambda x, m: m.erfc(x), zero=1.0, inf=(0.0, 2.0),
         anchor=lambda x: (1.0, -_sgn(x)) if abs(x) < 1 else ((0.0, 1) if x > 0 else (2.0, -1)))
register("sin", "sine (radians)",
         lambda x, m: m.sin(x), zero="odd",
         anchor=lambda x: (x, -_sgn(x)))
register("cos", "cosine (radians)",
         lambda x, m: m.cos(x), zero=1.0,
         anchor=lambda x: (1.0, -1))
register("softplus", "log(1+e^x) (beta 1, no threshold)",
         _softplus, inf=(math.inf, 0.0),
         anchor=lambda x: (x, 1) if x > 0 else (0.0, 1))
register("tanh_derivative", "1 - tanh(x)^2, evaluated as sech(x)^2",
         lambda x, m: m.sech(x) ** 2, zero=1.0, inf=(0.0, 0.0),
         anchor=lambda x: (1.0, -1) if abs(x) < 1 else (0.0, 1))


def _hardsigmoid(x, m):
    # PyTorch's hardsigmoid: (x + 3)/6 clamped to [0, 1]; one division of an exact numerator,
    # so dyadic results ((x + 3)/6 = 3/4 at x = 3/2) come back as exact balls
    if x <= -3:
        return m.num(0)
    if x >= 3:
        return m.num(1)
    return (x + 3) / m.num(6)


# The Sep-2026 kernel set (issue 11). Each anchor holds for every finite nonzero x it is
# returned for: 2^x - 1 has the sign of x; expm1(x) > x (e^x > 1 + x) and expm1(x) > -1;
# log1p(x) < x (log(1 + x) < x); |atan x| < |x|; |asin x| > |x| on 0 < |x| <= 1;
# |sinh x| > |x|; cosh x > 1; mish(x) = x tanh(softplus x) < x for x > 0 (tanh < 1) and < 0
# for x < 0. acos(1) = 0 is its only exact value at a nonzero input, 2^k at integers k exp2's;
# hardsigmoid's are the dyadic (x + 3)/6 and the clamps.
register("exp2", "2^x",
         lambda x, m: m.exp2(x), zero=1.0, inf=(math.inf, 0.0),
         anchor=lambda x: (1.0, _sgn(x)),
         is_exact=lambda x, y: x.denominator == 1 and y == Fraction(2) ** int(x))
register("expm1", "e^x - 1",
         lambda x, m: m.expm1(x), zero="odd", inf=(math.inf, -1.0),
         anchor=lambda x: (x, 1) if x > -1 else (-1.0, 1))
register("log1p", "log(1 + x)",
         lambda x, m: m.log1p(x), zero="odd", inf=(math.inf, math.nan),
         domain=(-1.0, math.inf), points=((-1.0, -math.inf),),
         anchor=lambda x: (x, -1))
register("atan", "arctangent (radians)",
         lambda x, m: m.atan(x), zero="odd", inf=(math.pi / 2, -math.pi / 2),
         anchor=lambda x: (x, -_sgn(x)) if abs(x) < 1 else None)
register("asin", "arcsine (radians), NaN outside [-1, 1]",
         lambda x, m: m.asin(x), zero="odd", domain=(-1.0, 1.0),
         anchor=lambda x: (x, _sgn(x)))
register("acos", "arccosine (radians), NaN outside [-1, 1]",
         lambda x, m: m.acos(x), zero=math.pi / 2, domain=(-1.0, 1.0),
         is_exact=lambda x, y: x == 1 and y == 0)
register("sinh", "hyperbolic sine",
         lambda x, m: m.sinh(x), zero="odd", inf=(math.inf, -math.inf),
         anchor=lambda x: (x, _sgn(x)))
register("cosh", "hyperbolic cosine",
         lambda x, m: m.cosh(x), zero=1.0, inf=(math.inf, math.inf),
         anchor=lambda x: (1.0, 1))
register("hardsigmoid", "min(max((x + 3)/6, 0), 1) (PyTorch)",
         _hardsigmoid, zero=0.5, inf=(1.0, 0.0),
         is_exact=lambda x, y: y == min(max((x + 3) / 6, Fraction(0)), Fraction(1)))
register("mish", "x*tanh(softplus(x)) = x*tanh(log(1 + e^x))",
         lambda x, m: x * m.tanh(_softplus(x, m)), zero="odd", inf=(math.inf, -0.0),
         anchor=lambda x: (x, -1) if x > 0 else (0.0, -1))


# The exact element-wise ops of the Sep-2026 table (tt-llk's UnarySFPUGolden computes each one
# exactly in Python floats or torch: tt-metal tt_metal/tt-llk/tests/python_tests/helpers/
# golden_generators.py, UnarySFPUGolden, 2026). The formulas only compare the exact input with
# constants, negate, or add/multiply by dyadic constants, so every value is a dyadic rational
# that arb returns as an exact ball.
def _piecewise(*arms):
    """A formula ``x -> value`` from ``(test(x), value(x, m))`` arms, the first true one wins;
    the tests compare the exact input, so they are decided on arb balls and mpf alike."""
    def formula(x, m):
        for test, value in arms:
            if test(x):
                return value(x, m)
        raise ValueError("no arm of the piecewise definition applies")
    return formula


_ALWAYS = (lambda x: True)
_ZERO, _ONE = (lambda x, m: m.num(0)), (lambda x, m: m.num(1))
LRELU_SLOPE = Fraction(0x3DCCCCCD & 0x7FFFFF | 0x800000, 2 ** 27)   # float32(0.1), torch's opmath


def _exact(fraction_of):
    """``is_exact`` from the rational definition (``fraction_of(x)`` on Fractions)."""
    return lambda x, y: y == fraction_of(x)


register("abs", "|x|", lambda x, m: -x if x < 0 else x, zero=(0.0, 0.0),
         inf=(math.inf, math.inf), is_exact=_exact(abs))
register("neg", "-x", lambda x, m: -x, zero=(-0.0, 0.0), inf=(-math.inf, math.inf),
         is_exact=_exact(lambda x: -x))
register("identity", "x", lambda x, m: x + 0, zero="odd", inf=(math.inf, -math.inf),
         is_exact=_exact(lambda x: x))
register("fill_5", "the constant 5 (the harness's Fill, fill_const_value 5)",
         lambda x, m: m.num(5), zero=5.0, inf=(5.0, 5.0), is_exact=_exact(lambda x: 5))
register("add1", "x + 1", lambda x, m: x + 1, zero=1.0, inf=(math.inf, -math.inf),
         is_exact=_exact(lambda x: x + 1))
register("square", "x*x", lambda x, m: x * x, zero=(0.0, 0.0), inf=(math.inf, math.inf),
         is_exact=_exact(lambda x: x * x))
register("sign", "sign(x): -1, 0 or 1", _piecewise((lambda x: x > 0, _ONE),
                                                   (_ALWAYS, lambda x, m: m.num(-1))),
         zero="odd", inf=(1.0, -1.0), is_exact=_exact(lambda x: (x > 0) - (x < 0)))
register("signbit", "1 if the sign bit of x is set else 0 (signbit(-0) = 1)",
         _piecewise((lambda x: x < 0, _ONE), (_ALWAYS, _ZERO)), zero=(0.0, 1.0),
         inf=(0.0, 1.0), is_exact=_exact(lambda x: int(x < 0)))
register("heaviside", "0 for x < 0, 1 for x > 0, 0.5 at both zeros (the harness's value)",
         _piecewise((lambda x: x > 0, _ONE), (_ALWAYS, _ZERO)), zero=0.5, inf=(1.0, 0.0),
         is_exact=_exact(lambda x: int(x > 0)))
register("hardtanh", "clamp(x, -1, 1) (Hardtanh and Clamp with the harness's bounds)",
         _piecewise((lambda x: x > 1, _ONE), (lambda x: x < -1, lambda x, m: m.num(-1)),
                    (_ALWAYS, lambda x, m: x + 0)),
         zero="odd", inf=(1.0, -1.0), is_exact=_exact(lambda x: min(max(x, -1), 1)))
register("relu_max_5", "min(max(x, 0), 5) (tt-llk relu_max, threshold 5)",
         _piecewise((lambda x: x > 5, lambda x, m: m.num(5)), (lambda x: x < 0, _ZERO),
                    (_ALWAYS, lambda x, m: x + 0)),
         zero=(0.0, 0.0), inf=(5.0, 0.0), is_exact=_exact(lambda x: min(max(x, 0), 5)))
register("relu_min_5", "max(x, 5) (tt-llk relu_min, threshold 5)",
         _piecewise((lambda x: x > 5, lambda x, m: x + 0), (_ALWAYS, lambda x, m: m.num(5))),
         zero=5.0, inf=(math.inf, 5.0), is_exact=_exact(lambda x: max(x, 5)))
register("threshold_5_10", "x if x > 5 else 10 (torch threshold(x, 5, 10))",
         _piecewise((lambda x: x > 5, lambda x, m: x + 0),
                    (_ALWAYS, lambda x, m: m.num(10))),
         zero=10.0, inf=(math.inf, 10.0), is_exact=_exact(lambda x: x if x > 5 else 10))
register("hardshrink", "x if |x| > 0.5 else 0 (lambda 0.5)",
         _piecewise((lambda x: x > 0.5 or x < -0.5, lambda x, m: x + 0), (_ALWAYS, _ZERO)),
         zero=(0.0, 0.0), inf=(math.inf, -math.inf),
         is_exact=_exact(lambda x: x if abs(x) > Fraction(1, 2) else 0))
register("softshrink", "x - 0.5 if x > 0.5, x + 0.5 if x < -0.5, else 0 (lambda 0.5)",
         _piecewise((lambda x: x > 0.5, lambda x, m: x - m.num(1, 2)),
                    (lambda x: x < -0.5, lambda x, m: x + m.num(1, 2)), (_ALWAYS, _ZERO)),
         zero=(0.0, 0.0), inf=(math.inf, -math.inf),
         is_exact=_exact(lambda x: x - Fraction(1, 2) if x > Fraction(1, 2) else
                         x + Fraction(1, 2) if x < -Fraction(1, 2) else 0))
register("leaky_relu_0p1", "x if x >= 0 else x * float32(0.1) = x * 13421773/2^27 (torch "
         "leaky_relu's slope in its FP32 opmath)",
         _piecewise((lambda x: x < 0, lambda x, m: x * m.num(LRELU_SLOPE.numerator,
                                                                LRELU_SLOPE.denominator)),
                    (_ALWAYS, lambda x, m: x + 0)),
         zero="odd", inf=(math.inf, -math.inf),
         is_exact=_exact(lambda x: x * LRELU_SLOPE if x < 0 else x))
register("prelu_0p25", "x if x >= 0 else x/4 (slope 0.25)",
         _piecewise((lambda x: x < 0, lambda x, m: x / 4), (_ALWAYS, lambda x, m: x + 0)),
         zero="odd", inf=(math.inf, -math.inf),
         is_exact=_exact(lambda x: x / 4 if x < 0 else x))
for _name, _text, _test, _zero, _inf in (
        ("equal_zero", "x == 0", lambda x: x == 0, 1.0, (0.0, 0.0)),
        ("not_equal_zero", "x != 0", lambda x: x != 0, 0.0, (1.0, 1.0)),
        ("greater_than_zero", "x > 0", lambda x: x > 0, 0.0, (1.0, 0.0)),
        ("greater_than_equal_zero", "x >= 0", lambda x: x >= 0, 1.0, (1.0, 0.0)),
        ("less_than_zero", "x < 0", lambda x: x < 0, 0.0, (0.0, 1.0)),
        ("less_than_equal_zero", "x <= 0", lambda x: x <= 0, 1.0, (0.0, 1.0))):
    register(_name, f"1 if {_text} else 0", _piecewise((_test, _ONE), (_ALWAYS, _ZERO)),
             zero=_zero, inf=_inf, is_exact=(lambda t: _exact(lambda x: int(t(x))))(_test),
             source_extra=_text)
def register_user_function(name: str, fn: Callable, origin: str = "") -> Function:
    """A function defined by the user as ``fn(x)`` of one ``mpmath.mpf``, for kernels whose
    function the registry lacks. It is certified by the mpmath backend (checked, not proven:
    two precisions must agree, see :class:`MpmathBackend`), so ``fn`` must compute in mpmath
    at the working precision; a result that is not an mpf is refused. Exact zero results at
    ``x = +-0`` take the sign of the function just beside zero on that side (``x**2`` gives +0
    at -0, ``x**3`` gives -0); the infinities are evaluated once, here."""
    if name in FUNCTIONS:
        raise UnknownFunction(f"function {name!r} already has a reference; give your function "
                              f"another name")
    if not callable(fn):
        raise UnknownFunction(f"reference for {name!r} must be a function of one mpmath mpf")

    def formula(x, m):
        value = fn(x)
        if not isinstance(value, mpmath.ctx_mp_python._mpf):
            raise UnknownFunction(f"reference {name!r} returned {type(value).__name__} at "
                                  f"x = {mpmath.nstr(x, 8)}: it must compute in mpmath and "
                                  f"return an mpf (a float has no more than 53 bits)")
        return +value

    def at(v):
        try:
            with mpmath.workprec(64):
                return float(formula(mpmath.mpf(v), MpMath))
        except (ValueError, ZeroDivisionError, ArithmeticError):
            return math.nan

    def is_exact(x: Fraction, y: Fraction) -> bool:
        # A short value both working precisions agreed on is taken as exact when a third
        # evaluation at USER_EXACT_PRECISION bits gives it again (checked, not proven).
        with mpmath.workprec(USER_EXACT_PRECISION):
            value = formula(mpmath.mpf(x.numerator) / x.denominator, MpMath)
            return value == mpmath.mpf(y.numerator) / y.denominator

    zero = None
    if at(0.0) == 0:                  # signed zeros as the limits from either side
        with mpmath.workprec(300):
            tiny = mpmath.ldexp(1, -200)
            sides = [formula(tiny, MpMath), formula(-tiny, MpMath)]
        zero = tuple(math.copysign(0.0, float(mpmath.sign(v)) or 1.0) for v in sides)
    function = register(name, "user function", formula, zero=zero,
                        inf=(at(math.inf), at(-math.inf)), backends=("mpmath",),
                        is_exact=is_exact, source_extra=_own_source(fn))
    if origin:        # shown, not keyed: a kernel file copied or moved keeps its tables
        function = FUNCTIONS[name] = dataclasses.replace(
            function, description=f"user function ({origin})")
    return function


def functions() -> dict[str, str]:
    """The registry: function name -> one-line description."""
    return {name: f.description for name, f in FUNCTIONS.items()}


def lookup(name) -> Function:
    try:
        return FUNCTIONS[name]
    except (KeyError, TypeError):
        if name == "":                      # an assembly file run as a kernel names none
            raise UnknownFunction("this kernel names no function to measure against: an "
                                  "assembly file names it in a comment line '# function: "
                                  "NAME'") from None
        raise UnknownFunction(f"unknown reference function {name!r}; known: "
                              f"{', '.join(FUNCTIONS)}") from None
