"""Reference function of the Sep-2026 Erfinv row: ``erfinv`` (registered through
:func:`sfpu_sim.reference.definitions.register`).

None of the namespaces a definition is evaluated in (:class:`~sfpu_sim.reference.backends.
ArbMath`, :class:`~sfpu_sim.reference.backends.MpMath`, the design layer's series namespace)
has an inverse error function, and this module may not add one to them, so the definition
picks the library routine by the type of its argument:

* an mpmath number: ``mpmath.erfinv`` (checked by the mpmath backend at two precisions);
* an arb ball: ``arb.erfinv`` (FLINT's ``arb_hypgeom_erfinv``, proven);
* a design series ``X + d(t)`` (an object whose ``.s`` is an ``arb_series``): with
  ``y0 = erfinv(X)`` as a ball, ``g(s) = erf(y0 + s) - erf(y0)`` is a series without constant
  term whose reversion ``h`` is the Taylor series of erfinv at X (coefficient j encloses it at
  every point of X, as g's do for erf on ``y0``), and ``erfinv(X + d) = y0 + h(d)``.

erfinv is odd, NaN outside [-1, 1], +-Inf at +-1. It needs no anchor: it neither saturates nor
comes close to a float it could sit on (erfinv(x) ~ x sqrt(pi)/2 near 0, a transcendental
multiple), so Ziv's ladder settles every float input.
"""
from __future__ import annotations

import inspect
import math

import mpmath

from sfpu_sim.reference.definitions import register

try:                                    # optional, as in backends: the proven backend
    import flint
except ImportError:                     # pragma: no cover - exercised only without python-flint
    flint = None


def _erfinv_series(x):
    """erfinv of a design series ``x`` (its ``.s``: an arb_series of ``len`` terms)."""
    series = x.s
    terms = series.prec
    coefficients = list(series.coeffs()) + [flint.arb(0)] * terms
    y0 = coefficients[0].erfinv()
    shifted = flint.arb_series([y0, 1], prec=terms).erf()             # erf(y0 + s)
    g = flint.arb_series([0] + list(shifted.coeffs())[1:terms], prec=terms)
    h = g.reversion()                                                 # erfinv(X + u) - y0
    d = flint.arb_series([0] + coefficients[1:terms], prec=terms)     # x - X, no constant
    total = flint.arb_series([y0], prec=terms)
    power = flint.arb_series([1], prec=terms)
    h_coefficients = list(h.coeffs())
    for j in range(1, terms):
        power = power * d
        if j < len(h_coefficients):
            total = total + h_coefficients[j] * power
    return type(x)(total)


def _erfinv(x, m):
    if isinstance(x, mpmath.mpf):
        return mpmath.erfinv(x)
    if flint is not None and isinstance(x, flint.arb):
        return x.erfinv()
    if flint is not None and isinstance(getattr(x, "s", None), flint.arb_series):
        return _erfinv_series(x)
    raise TypeError(f"erfinv: no evaluation for {type(x).__name__}")


register("erfinv", "inverse error function, NaN outside [-1, 1], +-Inf at +-1 "
         "(mpmath.erfinv / arb erfinv / a series reversion of erf)",
         _erfinv, source_extra=inspect.getsource(_erfinv_series), zero="odd",
         inf=(math.nan, math.nan), domain=(-1.0, 1.0),
         points=((1.0, math.inf), (-1.0, -math.inf)))
