"""Reference function of the Sep-2026 Tanhshrink row: ``tanhshrink(x) = x - tanh(x)``
(registered through :func:`sfpu_sim.reference.definitions.register`).

The formula cancels for small |x| (x - tanh x ~ x**3/3); ball arithmetic stays correct and
raises its precision there. Written without comparisons on ``x`` so that the certifier's power
series can be composed with it.

Anchors (each holds for every finite nonzero x it is returned for; s = sign(x)):

* |x| < 1: tanhshrink(x) lies strictly on x's side of 0 (|tanh x| < |x|);
* 1 <= |x| < 2**65: tanhshrink(x) - (x - s) = s (1 - |tanh x|) has the sign s. This is where a
  large input's value comes within 2 e**(-2|x|) of ``x - s``, a 64-bit number (the certifier's
  round-to-odd grid) up to |x| = 2**64, so no ball separates them. ``x - s`` is given exactly:
  a Python float below 2**53, an int above (every float there is an integer), which needs the
  certifier to take an int's ratio exactly (``float(a)`` would round it, and a rounded anchor
  would be false);
* |x| >= 2**65: tanhshrink(x) lies strictly between 0 and x, so on the side -s of x (``x - s``
  needs 65 bits or more there and is no boundary).
"""
from __future__ import annotations

import math

from sfpu_sim.reference.definitions import register

EXACT_FLOAT_SHIFT = 2.0 ** 53          # below it, x -+ 1 is exact in a Python float
SHIFT_ON_THE_64_BIT_GRID = 2.0 ** 65   # below it, x -+ 1 fits the certifier's 64 bits


def _sgn(x) -> int:
    return 1 if x > 0 else -1


def _tanhshrink_anchor(x):
    s = _sgn(x)
    if abs(x) < 1:
        return (0.0, s)
    if abs(x) < EXACT_FLOAT_SHIFT:
        return (x - s, s)
    if abs(x) < SHIFT_ON_THE_64_BIT_GRID:
        return (int(x) - s, s)
    return (x, -s)


register("tanhshrink", "x - tanh(x)",
         lambda x, m: x - m.tanh(x), zero="odd", inf=(math.inf, -math.inf),
         anchor=_tanhshrink_anchor)
