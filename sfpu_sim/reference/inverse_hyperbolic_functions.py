"""Reference functions of the Sep-2026 inverse-hyperbolic and tangent rows: acosh, asinh,
atanh, tan (registered through :func:`sfpu_sim.reference.definitions.register`).

The backends' math namespaces have no inverse hyperbolics or tan, so each is written through
the ones they have (log1p, sqrt, sin, cos), in forms free of cancellation:

* ``asinh(x) = sign(x) log1p(|x| + x^2/(1 + sqrt(1 + x^2)))``;
* ``acosh(x) = log1p(t + sqrt(t (x + 1)))``, ``t = x - 1`` (x >= 1; NaN below 1, 0 at 1);
* ``atanh(x) = sign(x) log1p(2|x|/(1 - |x|))/2`` (|x| < 1; +-Inf at +-1, NaN beyond);
* ``tan(x) = sin(x)/cos(x)`` (cos(x) is never 0 at a float x).

Anchors hold for every finite nonzero x they are returned for: |asinh x| < |x|,
|atanh x| > |x| (0 < |x| < 1) and |tan x| > |x| for 0 < |x| < pi/2 (1.5 < pi/2).
"""
from __future__ import annotations

import math

from sfpu_sim.reference.definitions import register


def _sgn(x) -> int:
    return 1 if x > 0 else -1


def _asinh(x, m):
    a = -x if x < 0 else x
    value = m.log1p(a + a * a / (1 + m.sqrt(1 + a * a)))
    return -value if x < 0 else value


def _acosh(x, m):
    t = x - 1
    return m.log1p(t + m.sqrt(t * (x + 1)))


def _atanh(x, m):
    a = -x if x < 0 else x
    value = m.log1p(2 * a / (1 - a)) / 2
    return -value if x < 0 else value


register("asinh", "inverse hyperbolic sine",
         _asinh, zero="odd", inf=(math.inf, -math.inf),
         anchor=lambda x: (x, -_sgn(x)))
register("acosh", "inverse hyperbolic cosine, NaN below 1",
         _acosh, zero=math.nan, inf=(math.inf, math.nan), domain=(1.0, math.inf),
         points=((1.0, 0.0),))
register("atanh", "inverse hyperbolic tangent, NaN outside [-1, 1]",
         _atanh, zero="odd", domain=(-1.0, 1.0),
         points=((1.0, math.inf), (-1.0, -math.inf)),
         anchor=lambda x: (x, _sgn(x)))
register("tan", "tangent (radians)",
         lambda x, m: m.sin(x) / m.cos(x), zero="odd",
         anchor=lambda x: (x, _sgn(x)) if abs(x) < 1.5 else None)
