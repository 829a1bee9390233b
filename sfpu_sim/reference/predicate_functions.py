"""Reference functions of the Sep-2026 rounding and predicate rows (registered through
:func:`sfpu_sim.reference.definitions.register`): floor, ceil, trunc, frac, logical_not, the
comparisons with 0.5, max/min with 0 and the IEEE class predicates.

Each is the harness's golden (tt-llk ``tests/python_tests/helpers/golden_generators.py``,
``UnarySFPUGolden``, 2026): ``math.floor(x)``, ``x - math.trunc(x)``,
``1.0 if x == 0 else 0.0``, ``x == 0.5``, ``sfpu_max(x, 0.0)``, ``math.isfinite(x)``, ... All
values are exact (an integer, ``x`` minus an integer, 0, 1 or ``x``).

The backends hand a formula an arb ball, an mpf or a power series (the design's certifier).
None of them is read through ``float()``: the integer part is taken from the exact rational
the number stands for (an mpf, a radius-0 ball, a series over a single point), and otherwise
from the midpoint, then confirmed by comparisons that are only true when certain (arb) or
decided on the exact interval (series); an undecided comparison raises, as arb's own
comparisons do.
"""
from __future__ import annotations

import math
from fractions import Fraction

from mpmath.libmp import to_rational

from sfpu_sim.reference.definitions import register


def _exact_fraction(x) -> Fraction | None:
    """The exact rational ``x`` stands for, or None if it is an interval."""
    exact = getattr(x, "exact", None)                    # design.target.Series
    if exact is not None:
        return exact[0] if exact[0] == exact[1] else None
    if hasattr(x, "rad"):                                # flint.arb
        if x.rad() != 0:
            return None
        mantissa, exponent = (int(v) for v in x.mid().man_exp())
    else:                                                # mpmath.mpf (signed ratio)
        return Fraction(*to_rational(x._mpf_))
    return Fraction(mantissa) * Fraction(2) ** exponent


def _midpoint_fraction(x) -> Fraction:
    """A rational inside (or at) ``x``: a starting point for the search in :func:`_floor`."""
    if hasattr(x, "constant"):
        x = x.constant()
    mantissa, exponent = (int(v) for v in x.mid().man_exp())
    return Fraction(mantissa) * Fraction(2) ** exponent


def _floor(x) -> int:
    """floor(x), exactly; for an interval, the floor every point of it shares (or raise)."""
    value = _exact_fraction(x)
    if value is not None:
        return math.floor(value)
    k = math.floor(_midpoint_fraction(x))
    if x >= k and x < k + 1:                  # both certain: the whole interval has floor k
        return k
    raise ValueError("floor undecided: the interval holds an integer")


def _ceil(x) -> int:
    """ceil(x), as :func:`_floor` (not through ``-x``: a negated series loses its interval)."""
    value = _exact_fraction(x)
    if value is not None:
        return math.ceil(value)
    k = math.ceil(_midpoint_fraction(x))
    if x > k - 1 and x <= k:
        return k
    raise ValueError("ceil undecided: the interval holds an integer")


def _trunc(x) -> int:
    return _floor(x) if x > 0 else _ceil(x)


def _exact(fraction_of):
    return lambda x, y: y == fraction_of(x)


register("floor", "the largest integer <= x (math.floor, the harness's golden)",
         lambda x, m: m.num(_floor(x)), zero="odd", inf=(math.inf, -math.inf),
         is_exact=_exact(math.floor))
register("ceil", "the smallest integer >= x (math.ceil, the harness's golden)",
         lambda x, m: m.num(_ceil(x)), zero="odd", inf=(math.inf, -math.inf),
         is_exact=_exact(math.ceil))
register("trunc", "x rounded toward zero (math.trunc, the harness's golden)",
         lambda x, m: m.num(_trunc(x)), zero="odd", inf=(math.inf, -math.inf),
         is_exact=_exact(math.trunc))
# frac(+-inf) = +-inf: the harness's golden returns a non-finite x unchanged.
register("frac", "x - trunc(x) (the harness's golden; +-inf pass through)",
         lambda x, m: x - m.num(_trunc(x)), zero="odd", inf=(math.inf, -math.inf),
         is_exact=_exact(lambda x: x - math.trunc(x)))


def _indicator(test):
    """``1`` where ``test(x)`` holds, else ``0`` (tests compare the exact input)."""
    return lambda x, m: m.num(1 if test(x) else 0)


HALF = 0.5                              # UNARY_COMP_THRESHOLD, sfpu_dispatch_constants.py
for _name, _text, _test, _inf in (
        ("equal_half", "x == 0.5", lambda x: x == HALF, (0.0, 0.0)),
        ("not_equal_half", "x != 0.5", lambda x: not x == HALF, (1.0, 1.0)),
        ("greater_than_half", "x > 0.5", lambda x: x > HALF, (1.0, 0.0)),
        ("greater_than_equal_half", "x >= 0.5", lambda x: x >= HALF, (1.0, 0.0)),
        ("less_than_half", "x < 0.5", lambda x: x < HALF, (0.0, 1.0)),
        ("less_than_equal_half", "x <= 0.5", lambda x: x <= HALF, (0.0, 1.0))):
    register(_name, f"1 if {_text} else 0 (threshold 0.5, the harness's UnaryEq..UnaryNe)",
             _indicator(_test), zero=float(_test(Fraction(0))), inf=_inf,
             is_exact=(lambda t: _exact(lambda x: int(t(x))))(_test), source_extra=_text)

register("logical_not", "1 if x == 0 else 0 (the harness's LogicalNotUnary)",
         _indicator(lambda x: False), zero=1.0, inf=(0.0, 0.0), is_exact=_exact(lambda x: 0))
# The harness's sfpu_max / sfpu_min order by the FP32 total order, where -0 < +0.
register("max_zero", "max(x, 0) in the FP32 total order (-0 < +0): the harness's UnaryMax",
         lambda x, m: x + 0 if x > 0 else m.num(0), zero=(0.0, 0.0), inf=(math.inf, 0.0),
         is_exact=_exact(lambda x: max(x, 0)))
register("min_zero", "min(x, 0) in the FP32 total order (-0 < +0): the harness's UnaryMin",
         lambda x, m: x + 0 if x < 0 else m.num(0), zero=(0.0, -0.0), inf=(0.0, -math.inf),
         is_exact=_exact(lambda x: min(x, 0)))
for _name, _text, _inf in (("isfinite", "x is finite", (0.0, 0.0)),
                           ("isinf", "x is +-inf", (1.0, 1.0)),
                           ("isposinf", "x is +inf", (1.0, 0.0)),
                           ("isneginf", "x is -inf", (0.0, 1.0)),
                           ("isnan", "x is NaN", (0.0, 0.0))):
    _finite = 1 if _name == "isfinite" else 0
    register(_name, f"1 if {_text} else 0 (math.{_name} as the harness's golden; the value at a "
             f"NaN input is the harness's, not modelled here)",
             (lambda v: lambda x, m: m.num(v))(_finite), zero=float(_finite), inf=_inf,
             is_exact=(lambda v: _exact(lambda x: v))(_finite), source_extra=_text)
