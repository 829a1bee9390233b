"""Correctly rounded references: what a kernel's output should be, bit for bit, under a named
rounding policy.

Owns: the registry of reference functions (name -> exact mathematical definition), their values
at special inputs, the certified high-precision evaluation, the rounding policies of the device
reports (``rne``, ``rne_fp32``, ``truncate``, ``ties_away``) with DAZ on inputs and FTZ on
outputs, and the on-disk cache of evaluations. Knows nothing of kernels, instructions or ULP
conventions (those are :mod:`sfpu_sim.ulp`'s).

How a value is certified (the guarantee)
----------------------------------------
For a finite input ``x`` the definition is evaluated in ball arithmetic (python-flint's arb:
every operation returns a midpoint and a radius that provably contains the exact value), and
both ends of the ball are rounded *to odd* at 64 bits (truncate, then set the last bit if
anything was dropped). Round-to-odd is monotone, so when both ends give the same 64-bit number
``y`` the exact value does too; otherwise the precision is doubled and the evaluation repeated
(Ziv's strategy), up to ``MAX_PRECISION`` bits, past which :class:`UnresolvedRounding` is raised
instead of a guess. The 64-bit round-to-odd value has a useful property (Boldo and Melquiond,
"Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE TC
57(4), 2008): rounding ``y`` to any format of at most 62 bits, in any of the nearest or directed
modes, gives exactly what rounding the exact value would. So one ``y`` per input serves every
policy and output format (BF16, FP16, FP32, and the float64 ``value``), with vectorised integer
rounding and no second evaluation; that ``y`` table, one per function and input format, is what
the cache stores.

Two details make the ladder terminate where a ball cannot shrink:

* Exact results (``sqrt(4) = 2``, ``exp(0) = 1``, or ``sqrt((1 + 2**-8)**2) = 1 + 2**-8``, a BF16
  midpoint) come back from arb as exact balls, round to odd to themselves, and return at once.
  Every other value at a finite input is not a dyadic rational: ``1/x``, ``sqrt`` and ``rsqrt``
  are exact or not dyadic by parity of the significands; the exp/log family is transcendental
  at nonzero rationals (Lindemann-Weierstrass); for the erf family this is expected but, as far
  as I know, unproven. Either way the ladder raises rather than guesses, and every BF16 and
  FP16 input of every function here settles by 768 bits.
* Values closer to a representable number than any affordable ball can tell apart: saturation
  (``tanh(4288) = 1 - 2**-12373``), underflowing tails (``gelu(-3e38)``, around which arb returns a
  tiny ball containing zero) and tiny arguments (``sin(2**-126)``). Each function declares an
  *anchor* for each x, a number its value provably lies strictly above or below (1 for tanh's
  saturation, 0 for a tail, x for ``sin``; the proofs are beside the registry); when the ball
  contains the anchor, the end on the wrong side of it is replaced by a point just beside the
  anchor, which rounds to odd like every value between the anchor and its 64-bit neighbour.
  Magnitudes below ``2**-1100`` (or above ``2**1100``) are replaced by a stand-in of the same
  sign: all such values round alike in every format here (to zero; to infinity, or the largest
  finite toward zero).

Measured (``python -m sfpu_sim.bench reference``, best of 3; this machine: 2 cores, Python
3.11, python-flint 0.9.0, mpmath 1.4.1 on gmpy2 2.3.2, numpy 2.4): all 65,536 BF16 inputs of
one function.

=================================================  ========  ========  ============================
option                                             tanh      gelu      guarantee
=================================================  ========  ========  ============================
cold, flint backend: certify, write the cache      0.41 s    0.49 s    proven (arb ball bounds)
cold, mpmath backend: certify, write the cache     1.6 s     3.0 s     checked, not proven
mpmath, one evaluation at 128 bits                 0.28 s    1.0 s     none (no error bound)
gmpy2 MPFR, 64 bits toward zero + inexact flag     0.04 s    --        proven; elementary only
numpy float64 + lanes near a midpoint              0.001 s   --        bits only, see below
warm, cache file: read, sha256, round              0.009 s   0.008 s   sha256-checked
warm, same process: table in memory, round         0.006 s   0.005 s
=================================================  ========  ========  ============================

All 17 functions certify cold in 0.13-0.85 s each with flint, 0.9-6.6 s with mpmath. The float64
fast path decides the BF16 bits of nearly every input in a millisecond, but it cannot give the
correctly rounded float64 ``value`` (libm's float64 results are not correctly rounded and carry
no documented bound), and gelu, erfc and 1 - tanh^2 need rewritten formulas to escape float64
cancellation; it could only be a prefilter in front of an exact method, and warm lookups take
milliseconds anyway. MPFR's correctly rounded functions are the fastest but cover only the
elementary functions; the composites (gelu, sigmoid, silu, softplus, ...) would need hand-written
interval arithmetic. So ``flint`` is the default backend. ``mpmath`` is the fallback when
python-flint is absent: it evaluates at two precisions, requires agreement and widens by a
margin (:class:`_MpmathBackend`); mpmath bounds none of its errors, so that backend is checked,
not proven. Over all 17 functions x 65,536 BF16 inputs the two backends give identical tables.

Special inputs. NaN -> NaN (the positive canonical quiet NaN) everywhere; inputs outside the
domain -> NaN; the zeros and infinities give the mathematical values and limits, with signed
zeros where a function is odd or approaches zero from one side:

=================  ===============  ===============  ===========  ===========  ===============
function           f(+0)            f(-0)            f(+Inf)      f(-Inf)      domain
=================  ===============  ===============  ===========  ===========  ===============
tanh, erf          +0               -0               1            -1
gelu, gelu_tanh,   +0               -0               +Inf         -0 (from
silu                                                              below)
gelu_derivative    0.5              0.5              1            -0
exp                1                1                +Inf         +0
log                -Inf             -Inf             +Inf         NaN          x < 0 -> NaN
reciprocal         +Inf             -Inf             +0           -0
sqrt               +0               -0 (IEEE)        +Inf         NaN          x < 0 -> NaN
rsqrt              +Inf             -Inf (IEEE)      +0           NaN          x < 0 -> NaN
sigmoid            0.5              0.5              1            +0
erfc               1                1                +0           2
sin                +0               -0               NaN          NaN
cos                1                1                NaN          NaN
softplus           log 2            log 2            +Inf         +0
tanh_derivative    1                1                +0           +0
=================  ===============  ===============  ===========  ===========  ===============

Rounding policies (output format BF16; FP16 and FP32 likewise):

* ``rne``: the exact value correctly rounded to the output format, ties to even.
* ``rne_fp32``: correctly rounded to FP32 first, then FP32 -> output with ties to even (the
  tt-llk sweep's golden, kernels.md §14a). Differs from ``rne`` when the FP32 rounding lands
  exactly on an output midpoint (double rounding).
* ``truncate``: correctly rounded to FP32 (RNE), then truncated toward zero to the output format
  (Tenstorrent's tanh report: "convert result to float, then truncate to BF16", users.md §3.2).
* ``ties_away``: correctly rounded to the output format, ties away from zero.

All formats have gradual underflow; ``ftz=True`` then turns a denormal result into a zero of the
same sign, and ``daz=True`` reads a denormal input as a zero of its sign. ``value`` is the exact
value correctly rounded to float64 (no FTZ), for the fractional ULP convention.
"""
from __future__ import annotations

import dataclasses
import hashlib
import inspect
import io
import json
import math
import os
import tempfile
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable

import ml_dtypes
import mpmath
import numpy as np

import sfpu_sim
from sfpu_sim import formats
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.formats import BF16, FP16, FP32, FloatFormat

try:                                    # optional: the proven (and faster) backend
    import flint
except ImportError:                     # pragma: no cover - exercised only without python-flint
    flint = None

__all__ = ["reference", "round_values", "functions", "policies", "ReferenceResult", "Function",
           "register",
           "UnknownFunction", "UnknownPolicy", "UnknownFormat", "UnknownBackend", "BadInputs",
           "UnresolvedRounding", "cache_directory", "FP64"]

FP64 = FloatFormat("fp64", 11, 52, np.uint64)
INPUT_FORMATS = {"bf16": BF16, "fp16": FP16, "fp32": FP32}
OUTPUT_FORMATS = {"bf16": BF16, "fp16": FP16, "fp32": FP32}
TABLE_FORMATS = ("bf16", "fp16")        # 65,536 patterns: tabulated and cached

START_PRECISION = 96                    # bits; the 64-bit round-to-odd needs ~70 of them
MAX_PRECISION = 12288
USER_EXACT_PRECISION = 2048             # bits; a user function's third, exactness evaluation
ODD_BITS = 64                           # width of the round-to-odd intermediate
CACHE_FORMAT = 1                        # bump when the file layout or the y-table changes
_MAGIC = b"SFPU-SIM-REFERENCE\n"

# Class of each certified value (the table's ``cls`` column).
FINITE, ZERO, INF, NAN = 0, 1, 2, 3
# Magnitudes outside [2**-1100, 2**1100) round alike in every format here; stand-ins for them.
_TINY_E, _HUGE_E = -1100, 1100
_TINY = (1 << 63, -1200 - 63)
_HUGE = (1 << 63, 1200 - 63)


class UnknownFunction(SfpuSimError):
    """A function name not in the registry."""


class UnknownPolicy(SfpuSimError):
    """A rounding policy name not in :data:`POLICIES`."""


class UnknownFormat(SfpuSimError):
    """An input or output format name not supported here."""


class UnknownBackend(SfpuSimError):
    """A backend name that is unknown, or whose package is not installed."""


class BadInputs(SfpuSimError):
    """Inputs that are not bit patterns (or arrays) of the input format."""


class UnresolvedRounding(SfpuSimError):
    """The exact value stayed on a rounding boundary up to MAX_PRECISION bits."""


# --------------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Function:
    """One reference function: its exact definition and its values where evaluation cannot go.

    ``formula(x, m)``: the value at a finite nonzero input ``x`` (a number of the backend), with
    ``m`` the backend's math namespace (:class:`_ArbMath`, :class:`_MpMath`). Write it in a form
    free of cancellation where cheap (ball arithmetic stays correct either way, but cancellation
    costs precision and time).
    ``zero``: value at the zeros: ``"odd"`` (+0 -> +0, -0 -> -0), ``"pole"`` (+0 -> +Inf,
    -0 -> -Inf), a float (both zeros), a pair ``(f(+0), f(-0))``, or ``None`` to evaluate the
    formula at 0.
    ``inf``: the pair ``(f(+Inf), f(-Inf))``.
    ``domain``: ``"positive"`` if negative finite inputs give NaN, else ``None``.
    ``anchor(x) -> (a, side)`` or None: a float ``a`` (0, 1, x, x/2, ...) that f(x) lies strictly
    above (``side`` +1) or below (-1), where f(x) can come so close to ``a`` (saturation, tails,
    tiny x) that no affordable ball separates them: ``tanh(4288) = 1 - 2**-12373``. It must hold
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
    domain: str | None = None
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


def register(name: str, description: str, formula: Callable, *, source_extra: str = "",
             **properties) -> Function:
    """Add a function to the registry (one call; see :class:`Function` for the properties).
    The cache key carries a digest of everything given here, source text included."""
    function = Function(name, description, formula, **properties)
    source = [description, *([source_extra] if source_extra else []), _source(formula),
              _source(function.anchor),
              _source(function.is_exact), repr((function.zero, function.inf, function.domain))]
    function = dataclasses.replace(function, source="\n".join(source))
    FUNCTIONS[name] = function
    return function


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


def register_user_function(name: str, fn: Callable, origin: str = "") -> Function:
    """A function defined by the user as ``fn(x)`` of one ``mpmath.mpf``, for kernels whose
    function the registry lacks. It is certified by the mpmath backend (checked, not proven:
    two precisions must agree, see :class:`_MpmathBackend`), so ``fn`` must compute in mpmath
    at the working precision; a result that is not an mpf is refused. Exact zero results at
    ``x = +-0`` take the input's sign; the infinities are evaluated once, here."""
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
                return float(formula(mpmath.mpf(v), _MpMath))
        except (ValueError, ZeroDivisionError, ArithmeticError):
            return math.nan

    def is_exact(x: Fraction, y: Fraction) -> bool:
        # A short value both working precisions agreed on is taken as exact when a third
        # evaluation at USER_EXACT_PRECISION bits gives it again (checked, not proven).
        with mpmath.workprec(USER_EXACT_PRECISION):
            value = formula(mpmath.mpf(x.numerator) / x.denominator, _MpMath)
            return value == mpmath.mpf(y.numerator) / y.denominator

    zero = "odd" if at(0.0) == 0 else None
    return register(name, f"user function ({origin})" if origin else "user function", formula,
                    zero=zero, inf=(at(math.inf), at(-math.inf)), backends=("mpmath",),
                    is_exact=is_exact, source_extra=_source(fn))


def functions() -> dict[str, str]:
    """The registry: function name -> one-line description."""
    return {name: f.description for name, f in FUNCTIONS.items()}


def _function(name) -> Function:
    try:
        return FUNCTIONS[name]
    except (KeyError, TypeError):
        raise UnknownFunction(f"unknown reference function {name!r}; known: "
                              f"{', '.join(FUNCTIONS)}") from None


# --------------------------------------------------------------------------------------------
# Backends: evaluate a definition at one input and return an enclosure of the exact value
# --------------------------------------------------------------------------------------------

class _ArbMath:
    """The math namespace of the flint backend (arb balls)."""
    exp = staticmethod(lambda v: v.exp())
    log = staticmethod(lambda v: v.log())
    log1p = staticmethod(lambda v: v.log1p())
    sqrt = staticmethod(lambda v: v.sqrt())
    rsqrt = staticmethod(lambda v: v.rsqrt())
    tanh = staticmethod(lambda v: v.tanh())
    sech = staticmethod(lambda v: v.sech())
    erf = staticmethod(lambda v: v.erf())
    erfc = staticmethod(lambda v: v.erfc())
    sin = staticmethod(lambda v: v.sin())
    cos = staticmethod(lambda v: v.cos())
    pi = staticmethod(lambda: flint.arb.pi())

    @staticmethod
    def num(p: int, q: int = 1):
        return flint.arb(p) if q == 1 else flint.arb(flint.fmpq(p, q))


class _MpMath:
    """The math namespace of the mpmath backend."""
    exp, log, log1p, sqrt = mpmath.exp, mpmath.log, mpmath.log1p, mpmath.sqrt
    tanh, sech, erf, erfc, sin, cos = (mpmath.tanh, mpmath.sech, mpmath.erf, mpmath.erfc,
                                       mpmath.sin, mpmath.cos)
    rsqrt = staticmethod(lambda v: 1 / mpmath.sqrt(v))
    pi = staticmethod(lambda: +mpmath.pi)

    @staticmethod
    def num(p: int, q: int = 1):
        return mpmath.mpf(p) / q


class _FlintBackend:
    """Proven enclosures: arb ball arithmetic."""
    name = "flint"

    @property
    def versions(self) -> dict:
        return {"flint": flint.__version__}

    def enclose(self, function: Function, x: float, precision: int):
        """(lower, upper) bounds of f(x) as exact (mantissa, exponent) pairs, or None."""
        context = flint.ctx
        saved = context.prec
        context.prec = precision
        try:
            ball = function.formula(flint.arb(x), _ArbMath)
            if not ball.is_finite():
                return None
            lower, upper = ball.lower().man_exp(), ball.upper().man_exp()
        finally:
            context.prec = saved
        return (int(lower[0]), int(lower[1])), (int(upper[0]), int(upper[1]))


class _MpmathBackend:
    """Checked, not proven: evaluations at ``precision + 24`` and ``precision + 56`` bits must
    agree to ``2**-precision`` relative, and the enclosure is the finer one widened by
    ``2**(4 - precision)`` relative. (mpmath's working precision is not its accuracy: its erfc
    was measured 21 bits short at x = 1100, 10 bits short at x = 17, and its exponent wrong in
    the 17th digit at x = 6e23.) Values beyond the stand-in limits only need the same side of
    the limit at both precisions and a sign: the function's zero anchor's, or else the same at
    both precisions. A short value both evaluations agree on is exact if the function's
    ``is_exact`` check proves it."""
    name = "mpmath"

    @property
    def versions(self) -> dict:
        return {"mpmath_backend": mpmath.libmp.BACKEND}

    def enclose(self, function: Function, x: float, precision: int):
        values = []
        for bits in (precision + 24, precision + 56):
            with mpmath.workprec(bits):
                values.append(function.formula(mpmath.mpf(x), _MpMath))
        coarse, fine = values
        if not (mpmath.isfinite(coarse) and mpmath.isfinite(fine)):
            return None
        sign, man, exp, bc = fine._mpf_
        if man == 0:
            return ((0, 0), (0, 0)) if coarse == 0 else None
        if sign:
            man = -man
        top = exp + bc - 1
        if function.is_exact is not None and coarse == fine and bc <= ODD_BITS:
            value = Fraction(man) * Fraction(2) ** exp
            if function.is_exact(Fraction(x), value):      # proven exact: sqrt(4) = 2
                return (man, exp), (man, exp)
        if top < _TINY_E - 100 or top >= _HUGE_E + 100:
            c_sign, c_man, c_exp, c_bc = coarse._mpf_
            if c_man == 0 or (c_exp + c_bc - 1 < _TINY_E) != (top < _TINY_E):
                return None
            anchor = function.anchor(x) if function.anchor is not None else None
            if top < _TINY_E and anchor is not None and anchor[0] == 0:
                negative = anchor[1] < 0                  # the sign is proven, the value not
            elif c_sign == sign:
                negative = bool(sign)
            else:
                return None
            stand_in = -man if negative != (man < 0) else man
            return (stand_in, exp), (stand_in, exp)
        with mpmath.workprec(precision + 64):
            if abs(coarse - fine) > abs(fine) * mpmath.ldexp(1, -precision):
                return None
        radius_exp = top + 5 - precision            # 2**radius_exp >= |fine| * 2**(4-prec)
        base = min(exp, radius_exp)
        centre = man << (exp - base)
        radius = 1 << (radius_exp - base)
        return (centre - radius, base), (centre + radius, base)


BACKENDS = {"flint": _FlintBackend(), "mpmath": _MpmathBackend()}


def _backend(name):
    if name is None:
        name = "flint" if flint is not None else "mpmath"
    if name not in BACKENDS:
        raise UnknownBackend(f"unknown reference backend {name!r}; known: {', '.join(BACKENDS)}")
    if name == "flint" and flint is None:
        raise UnknownBackend("backend 'flint' needs python-flint (pip install python-flint); "
                             "backend 'mpmath' works without it")
    return BACKENDS[name]


# --------------------------------------------------------------------------------------------
# Certification: one finite input -> the 64-bit round-to-odd value of f(x)
# --------------------------------------------------------------------------------------------

def _round_to_odd(mantissa: int, exponent: int) -> tuple:
    """(negative, m, e) with ``m * 2**e`` the 64-bit round-to-odd of ``mantissa * 2**exponent``
    (nonzero), ``2**63 <= m < 2**64``; magnitudes beyond 2**+-1100 become the stand-ins."""
    negative = mantissa < 0
    a = -mantissa if negative else mantissa
    n = a.bit_length()
    top = exponent + n - 1
    if top < _TINY_E:
        return (negative,) + _TINY
    if top >= _HUGE_E:
        return (negative,) + _HUGE
    if n > ODD_BITS:
        shift = n - ODD_BITS
        m = a >> shift
        if (m << shift) != a:
            m |= 1
        return negative, m, exponent + shift
    return negative, a << (ODD_BITS - n), exponent - (ODD_BITS - n)


def _compare(m1: int, e1: int, m2: int, e2: int) -> int:
    """Sign of ``m1*2**e1 - m2*2**e2`` for exact dyadics (exponents may be astronomically
    large, so magnitudes are compared by their leading bit before any shift)."""
    s1, s2 = (m1 > 0) - (m1 < 0), (m2 > 0) - (m2 < 0)
    if s1 != s2 or s1 == 0:
        return (s1 > s2) - (s1 < s2)
    t1, t2 = e1 + abs(m1).bit_length(), e2 + abs(m2).bit_length()
    if t1 != t2:
        return s1 if t1 > t2 else -s1
    base = min(e1, e2)
    d = (m1 << (e1 - base)) - (m2 << (e2 - base))
    return (d > 0) - (d < 0)


def _certify(function: Function, x: float, backend) -> tuple:
    """(cls, negative, m, e, precision) for a finite input inside the domain."""
    precision = START_PRECISION
    while precision <= MAX_PRECISION:
        bounds = backend.enclose(function, x, precision)
        if bounds is not None:
            (lo, lo_exp), (hi, hi_exp) = bounds
            if lo == 0 and hi == 0:
                return ZERO, False, 0, 0, precision          # an exact zero (log(1)): +0
            low = _round_to_odd(lo, lo_exp) if lo != 0 else None
            high = _round_to_odd(hi, hi_exp) if hi != 0 else None
            if low is not None and low == high:
                return (FINITE,) + low + (precision,)
            if function.anchor is not None:
                low, high = _use_anchor(function.anchor(x), bounds, low, high)
                if low is not None and low == high:
                    return (FINITE,) + low + (precision,)
        precision *= 2
    raise UnresolvedRounding(f"{function.name}({x!r}): the exact value stays on a rounding "
                             f"boundary up to {MAX_PRECISION} bits")


def _use_anchor(anchor, bounds, low, high):
    """Round-to-odd ends of the ball cut at the anchor: f(x) lies strictly on one side of the
    anchor ``a``, so the end on the other side is replaced by a point just beside ``a`` (one
    that rounds to odd like every value between ``a`` and its 64-bit neighbour)."""
    if anchor is None:
        return None, None
    a, side = anchor
    (lo, lo_exp), (hi, hi_exp) = bounds
    if a == 0:
        if side > 0 and hi > 0 >= lo:
            return (False,) + _TINY, high
        if side < 0 and lo < 0 <= hi:
            return low, (True,) + _TINY
        return None, None
    numerator, denominator = float(a).as_integer_ratio()
    a_exp = 1 - denominator.bit_length()                 # a = numerator * 2**a_exp
    if _compare(lo, lo_exp, numerator, a_exp) > 0 or _compare(hi, hi_exp, numerator, a_exp) < 0:
        return None, None                                 # the ball does not contain a
    beside = _round_to_odd((numerator << 1200) + side * abs(numerator), a_exp - 1200)
    return (beside, high) if side > 0 else (low, beside)


@dataclass(frozen=True)
class _Certified:
    """Certified values, one per input: class, sign, and ``m * 2**e`` (the 64-bit round-to-odd
    value) for FINITE; ``precision`` is the working precision that settled each (0: special)."""
    cls: np.ndarray
    negative: np.ndarray
    m: np.ndarray
    e: np.ndarray
    precision: np.ndarray

    def take(self, index) -> "_Certified":
        return _Certified(*(a[index] for a in (self.cls, self.negative, self.m, self.e,
                                               self.precision)))


def _special(values) -> tuple:
    """Class, sign, m, e of exact float64 special results (0, +-Inf, NaN, 1, 0.5, 2, ...)."""
    v = np.asarray(values, dtype=np.float64)
    cls = np.where(np.isnan(v), NAN, np.where(np.isinf(v), INF, np.where(v == 0, ZERO, FINITE)))
    mantissa, exponent = np.frexp(np.where(cls == FINITE, np.abs(v), 0.5))
    m = (mantissa * 2.0**53).astype(np.uint64) << np.uint64(11)      # exact: 53 bits
    e = exponent.astype(np.int64) - 64
    finite = cls == FINITE
    negative = np.signbit(v) & (cls != NAN)
    return cls.astype(np.uint8), negative, np.where(finite, m, 0), np.where(finite, e, 0)


def _evaluate(function: Function, x: np.ndarray, backend) -> _Certified:
    """Certify f at every element of float64 array ``x`` (exact input values)."""
    n = x.shape[0]
    out = np.full(n, math.nan)
    finite = np.isfinite(x) & (x != 0)
    if function.domain == "positive":
        finite &= x > 0
    zero_values = function.at_zero()
    if zero_values is None:
        finite |= x == 0                                  # evaluate the formula at 0
    else:
        out[x == 0] = np.where(np.signbit(x[x == 0]), zero_values[1], zero_values[0])
    out[x == np.inf] = function.inf[0]
    out[x == -np.inf] = function.inf[1]
    cls, negative, m, e = _special(out)
    precision = np.zeros(n, dtype=np.uint16)
    index = np.flatnonzero(finite)
    if index.size:
        rows = [_certify(function, value, backend) for value in x[index].tolist()]
        c, s, mm, ee, pp = zip(*rows)
        cls[index] = c
        negative[index] = s
        m[index] = np.array(mm, dtype=np.uint64)
        e[index] = ee
        precision[index] = pp
    return _Certified(cls, negative, m, e, precision)


# --------------------------------------------------------------------------------------------
# Rounding a certified value to a format (vectorised)
# --------------------------------------------------------------------------------------------

RNE, RNA, RZ = "nearest-even", "nearest-away", "toward-zero"


def _round(c: _Certified, fmt: FloatFormat, mode: str) -> np.ndarray:
    """Bit patterns of ``fmt`` (gradual underflow; overflow to Inf, or to the largest finite
    toward zero); NaN becomes the positive canonical quiet NaN."""
    p = fmt.man_bits + 1
    bias = fmt.exp_max >> 1
    emin, emax = 1 - bias, bias
    one = np.uint64(1)
    top = np.clip(c.e + 63, emin - 80, emax + 2)          # exponent of the leading bit
    shift = np.minimum(64 - p + np.maximum(emin - top, 0), 65)
    wide = shift >= 64
    s = np.where(wide, 63, shift).astype(np.uint64)
    q = np.where(wide, np.uint64(0), c.m >> s)
    rem = np.where(wide, c.m, c.m & ((one << s) - one))
    half = np.where(wide, np.uint64(1 << 63), one << (s - one))
    if mode == RNE:
        up = (rem > half) | ((rem == half) & ((q & one) == one))
    elif mode == RNA:
        up = rem >= half
    else:
        up = np.zeros(q.shape, dtype=bool)
    q = q + (up & (shift <= 64)).astype(np.uint64)
    base = np.where(top >= emin, (top - emin).astype(np.uint64) << np.uint64(p - 1), np.uint64(0))
    magnitude = base + q
    inf = np.uint64(fmt.exp_max << (p - 1))
    magnitude = np.where(magnitude >= inf, inf - np.uint64(mode == RZ), magnitude)
    magnitude = np.where(c.cls == ZERO, np.uint64(0), magnitude)
    magnitude = np.where(c.cls == INF, inf, magnitude)
    magnitude = np.where(c.cls == NAN, inf | np.uint64(1 << (p - 2)), magnitude)
    sign = np.where(c.negative & (c.cls != NAN), np.uint64(fmt.sign_mask), np.uint64(0))
    return (sign | magnitude).astype(fmt.dtype)


def _decode(bits, fmt: FloatFormat) -> _Certified:
    """Exact certified form of FP32/BF16/FP16 patterns (denormals read as their IEEE values)."""
    b = fmt.bits(bits)
    e_field = fmt.exponent(b).astype(np.int64)
    fraction = fmt.mantissa(b).astype(np.uint64)
    bias = fmt.exp_max >> 1
    significand = np.where(e_field == 0, fraction, fraction | np.uint64(1 << fmt.man_bits))
    exponent = np.where(e_field == 0, 1 - bias, e_field - bias) - fmt.man_bits
    lead = formats.bit_length(significand.astype(np.uint32)).astype(np.int64) - 1
    shift = np.where(significand == 0, 0, 63 - lead)
    cls = formats.classify(b, fmt)
    out_cls = np.select([cls == formats.FloatClass.NAN, cls == formats.FloatClass.INF,
                         cls == formats.FloatClass.ZERO], [NAN, INF, ZERO], FINITE)
    negative = (b & fmt.dtype(fmt.sign_mask)) != 0
    return _Certified(out_cls.astype(np.uint8), negative,
                      significand << shift.astype(np.uint64), exponent - shift,
                      np.zeros(b.shape, dtype=np.uint16))


POLICIES = {
    "rne": "correctly rounded to the output format, ties to even",
    "rne_fp32": "correctly rounded to FP32, then RNE to the output format (tt-llk sweep golden)",
    "truncate": "correctly rounded to FP32, then truncated toward zero (tanh report)",
    "ties_away": "correctly rounded to the output format, ties away from zero",
}


def policies() -> dict[str, str]:
    """Rounding policy name -> one-line description."""
    return dict(POLICIES)


def _apply_policy(c: _Certified, policy: str, out: FloatFormat) -> np.ndarray:
    if policy == "rne":
        return _round(c, out, RNE)
    if policy == "ties_away":
        return _round(c, out, RNA)
    fp32 = _round(c, FP32, RNE)
    if out is FP32:
        return fp32
    if policy == "rne_fp32":
        if out is BF16:
            return formats.fp32_to_bf16_rne(fp32)
        with np.errstate(over="ignore"):                  # overflow to Inf is the point
            return formats.fp32_to_fp16_rne(fp32)
    if out is BF16:                     # truncation of an FP32 pattern to BF16: its top half
        return (fp32 >> np.uint32(16)).astype(np.uint16)
    return _round(_decode(fp32, FP32), out, RZ)


def round_values(values, policy: str = "rne", output_format: str = "bf16", *,
                 ftz: bool = False) -> np.ndarray:
    """Float64 values taken as exact, rounded under a policy: bit patterns of the output format
    (e.g. a float64 golden rounded like a reference; the ``fractional`` ULP's ``bf16(|ref|)``)."""
    _choice(policy, POLICIES, UnknownPolicy, "rounding policy")
    out_fmt = _choice(output_format, OUTPUT_FORMATS, UnknownFormat, "output format")
    v = np.asarray(values, dtype=np.float64)
    out = _apply_policy(_Certified(*_special(v), np.zeros(v.shape, dtype=np.uint16)), policy,
                        out_fmt)
    return formats.ftz(out, out_fmt) if ftz else out


# --------------------------------------------------------------------------------------------
# Input tables and their cache
# --------------------------------------------------------------------------------------------

def cache_directory(cache_dir=None) -> Path:
    """Where tables live: ``cache_dir`` if given, else ``$SFPU_SIM_CACHE/references``, else
    ``~/.cache/sfpu-sim/references``."""
    if cache_dir is not None:
        return Path(cache_dir)
    root = os.environ.get("SFPU_SIM_CACHE")
    if root:
        return Path(root) / "references"
    return Path.home() / ".cache" / "sfpu-sim" / "references"


def _cache_key(function: Function, input_format: str, backend) -> dict:
    return {
        "cache_format": CACHE_FORMAT,
        "function": function.name,
        "definition": {"revision": function.revision,
                       "source_sha256": hashlib.sha256(function.source.encode()).hexdigest()},
        "input_format": input_format,
        "backend": backend.name,
        "precision": {"start": START_PRECISION, "max": MAX_PRECISION, "odd_bits": ODD_BITS},
        "versions": {"sfpu_sim": sfpu_sim.__version__, "mpmath": mpmath.__version__,
                     **backend.versions},
    }


_COLUMNS = (("cls", np.uint8), ("negative", np.bool_), ("m", np.uint64), ("e", np.int64),
            ("precision", np.uint16))
_MEMORY: dict[str, _Certified] = {}


def _write_table(path: Path, key: dict, table: _Certified) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **{name: getattr(table, name) for name, _ in _COLUMNS})
    payload = buffer.getvalue()
    header = json.dumps({"key": key, "sha256": hashlib.sha256(payload).hexdigest(),
                         "bytes": len(payload)}, sort_keys=True).encode() + b"\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as f:
                f.write(_MAGIC + header + payload)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass                            # an unwritable cache costs time, never correctness


def _read_table(path: Path, key: dict, size: int) -> _Certified | None:
    """The table stored at ``path`` if it is intact and built under ``key``; else None."""
    try:
        data = path.read_bytes()
        if not data.startswith(_MAGIC):
            return None
        header_end = data.index(b"\n", len(_MAGIC))
        header = json.loads(data[len(_MAGIC):header_end])
        payload = data[header_end + 1:]
        if (header.get("key") != key or header.get("bytes") != len(payload)
                or header.get("sha256") != hashlib.sha256(payload).hexdigest()):
            return None
        with np.load(io.BytesIO(payload), allow_pickle=False) as arrays:
            columns = [arrays[name] for name, _ in _COLUMNS]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if any(a.dtype != dtype or a.shape != (size,) for a, (_, dtype) in zip(columns, _COLUMNS)):
        return None
    if columns[0].max(initial=0) > NAN:
        return None
    return _Certified(*columns)


def _table(function: Function, input_format: str, backend, cache: bool, cache_dir) -> _Certified:
    """Certified f(x) for all 65,536 patterns of a 16-bit input format (memory, disk, or built)."""
    key = _cache_key(function, input_format, backend)
    memory_key = json.dumps(key, sort_keys=True)
    if cache and memory_key in _MEMORY:
        return _MEMORY[memory_key]
    path = cache_directory(cache_dir) / f"{function.name}.{input_format}.{backend.name}.sfpuref"
    table = _read_table(path, key, 1 << 16) if cache else None
    if table is None:
        bits = np.arange(1 << 16, dtype=np.uint16)
        x = formats.bits_to_float64(bits, INPUT_FORMATS[input_format])
        table = _evaluate(function, x, backend)
        if cache:
            _write_table(path, key, table)
    if cache:
        _MEMORY[memory_key] = table
    return table


def clear_memory() -> None:
    """Forget the tables held in this process (the disk cache stays)."""
    _MEMORY.clear()


# --------------------------------------------------------------------------------------------
# The public call
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ReferenceResult:
    """What :func:`reference` returns, lane for lane with its inputs.

    ``bits``: the reference in the output format (uint16 for BF16/FP16, uint32 for FP32), after
    the policy and FTZ. ``value``: the exact value correctly rounded to float64 (no FTZ; the DAZ
    of the inputs applies). ``precision``: the largest working precision (bits) any returned lane
    needed (0 if all were special values)."""
    bits: np.ndarray
    value: np.ndarray
    function: str
    policy: str
    input_format: str
    output_format: str
    daz: bool
    ftz: bool
    precision: int
    backend: str


def _choice(name, table: dict, error: type, what: str):
    if name not in table:
        raise error(f"unknown {what} {name!r}; known: {', '.join(table)}")
    return table[name]


_NATIVE = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16, "fp32": np.float32}


def _input_bits(inputs, fmt: FloatFormat) -> np.ndarray:
    """Bit patterns from patterns (unsigned or signed integers in range) or from an array of
    the format's own dtype (ml_dtypes.bfloat16, float16, float32), taken bit for bit."""
    array = np.asarray(inputs)
    if array.dtype == _NATIVE[fmt.name]:
        return array.view(fmt.dtype)
    if not np.issubdtype(array.dtype, np.integer):
        raise BadInputs(f"inputs: expected {fmt.name} bit patterns (integers) or a "
                        f"{np.dtype(_NATIVE[fmt.name]).name} array, got {array.dtype}")
    if array.size and (int(array.min()) < 0 or int(array.max()) >> fmt.width):
        raise BadInputs(f"inputs: values outside 0..0x{(1 << fmt.width) - 1:X} are not "
                        f"{fmt.name} patterns")
    return array.astype(fmt.dtype)


def reference(function: str, inputs, policy: str = "rne", *, input_format: str = "bf16",
              output_format: str = "bf16", daz: bool = True, ftz: bool = True,
              cache: bool = True, cache_dir=None, backend: str | None = None) -> ReferenceResult:
    """Correctly rounded ``function(inputs)`` under ``policy``.

    ``inputs``: bit patterns of ``input_format`` (any shape), or an array of its own dtype
    (``ml_dtypes.bfloat16``, ``float16``, ``float32``) taken bit for bit. With ``cache`` (16-bit
    input formats) the whole 65,536-input table is certified once, stored on disk and looked
    up; without it, or for FP32 inputs, only the distinct inputs given are certified.
    """
    fn = _function(function)
    _choice(policy, POLICIES, UnknownPolicy, "rounding policy")
    in_fmt = _choice(input_format, INPUT_FORMATS, UnknownFormat, "input format")
    out_fmt = _choice(output_format, OUTPUT_FORMATS, UnknownFormat, "output format")
    engine = _backend(backend if backend is not None or "flint" in fn.backends
                      else fn.backends[0])
    if engine.name not in fn.backends:
        raise UnknownBackend(f"function {fn.name!r} can only be certified by backend(s) "
                             f"{', '.join(fn.backends)}")
    bits = _input_bits(inputs, in_fmt)
    if daz:
        bits = formats.daz(bits, in_fmt)
    if cache and input_format in TABLE_FORMATS:
        certified = _table(fn, input_format, engine, True, cache_dir).take(bits)
    else:
        unique, inverse = np.unique(bits, return_inverse=True)
        certified = _evaluate(fn, formats.bits_to_float64(unique, in_fmt), engine).take(
            inverse.reshape(bits.shape))
    out = _apply_policy(certified, policy, out_fmt)
    if ftz:
        out = formats.ftz(out, out_fmt)
    value = _round(certified, FP64, RNE).view(np.float64)
    return ReferenceResult(out, value, fn.name, policy, input_format, output_format, daz, ftz,
                           int(certified.precision.max(initial=0)), engine.name)


# --------------------------------------------------------------------------------------------
# Measurement of the options (the figures in the module docstring)
# --------------------------------------------------------------------------------------------

def _bench(names=("tanh", "gelu")) -> list[tuple]:
    """Cold and warm timings over all 65,536 BF16 inputs: rows (option, function, seconds,
    note)."""
    rows = []
    bits = np.arange(1 << 16, dtype=np.uint16)
    x = formats.bits_to_float64(bits, BF16)
    finite = x[np.isfinite(x)].tolist()

    def timed(option, name, call, note=""):
        start = time.perf_counter()
        result = call()
        rows.append((option, name, time.perf_counter() - start, note(result) if note else ""))

    with tempfile.TemporaryDirectory() as directory:
        for name in names:
            fn = FUNCTIONS[name]
            for engine in [e for e in BACKENDS if e != "flint" or flint is not None]:
                clear_memory()
                timed(f"cold, backend {engine}: certify all, write cache", name,
                      lambda: reference(name, bits, cache_dir=f"{directory}/{engine}",
                                        backend=engine),
                      lambda r: f"max precision {r.precision} bits")
            clear_memory()
            timed("warm, cache file read + sha256 + rounding", name,
                  lambda: reference(name, bits, cache_dir=f"{directory}/{_backend(None).name}"))
            timed("warm, in-memory table + rounding", name,
                  lambda: reference(name, bits, "truncate",
                                    cache_dir=f"{directory}/{_backend(None).name}"))

            def single():
                with mpmath.workprec(128):
                    return [fn.formula(mpmath.mpf(v), _MpMath) for v in finite]
            timed("mpmath, one evaluation at 128 bits (no bound)", name, single)
    try:
        import gmpy2
    except ImportError:
        gmpy2 = None
    if gmpy2 is not None:
        def mpfr():
            with gmpy2.context(precision=64, round=gmpy2.RoundToZero) as local:
                out = []
                for v in finite:
                    local.clear_flags()
                    out.append((gmpy2.tanh(v), local.inexact))
                return out
        timed("gmpy2 MPFR tanh, 64 bits toward zero + inexact flag", "tanh", mpfr)

    def float64_prefilter():
        with np.errstate(all="ignore"):
            t = np.abs(np.tanh(x))
            scaled = np.frexp(t)[0] * 2.0**8                  # [128, 256) for BF16 steps
            return np.abs(scaled - np.floor(scaled) - 0.5) < 2.0**-40 * scaled
    timed("numpy float64 tanh + lanes within 2**-40 of a midpoint", "tanh", float64_prefilter,
          lambda near: f"{int(near.sum())} lanes to recompute; no correctly rounded value")
    return rows
