"""Reference function of the Sep-2026 Xielu row: ``xielu`` with the parameters tt-llk's accuracy
harness passes (UnarySFPUGolden's ``_XIELU_ALPHA_P = _XIELU_ALPHA_N = 1.0``, ``_XIELU_BETA =
0.5``, tt-metal tt_metal/tt-llk/tests/python_tests/helpers/golden_generators.py, 2026):

    xielu(x) = x*x + x/2            for x > 0,
             = expm1(x) - x/2       for x <= 0   (1.0 * (expm1(x) - x) + 0.5 * x).

The exact definition only; the harness evaluates it in Python floats, which is
sfpu_sim.parity's business (golden kind ``float64_xielu``).

Certifying it (Ziv's ladder in :mod:`sfpu_sim.reference.certify`) needs help where the value
comes too close to a 64-bit dyadic for any affordable ball to separate them:

* x > 0: the value is that dyadic, which arb finds exact and ``is_exact`` proves for mpmath;
* x < 0: e^x > 1 + x, so xielu(x) = x/2 + (expm1(x) - x) lies strictly above x/2 (the anchor
  for -1 < x < 0, where the value can come within x**2/2 of it) and xielu(x) = -1 - x/2 + e^x
  strictly above -1 - x/2 (the anchor below -1: the tail). For |x| >= 2**54 that anchor is an
  even x's half less one, an integer but no float64: it is given as an int, which the
  certifier takes exactly.
"""
from __future__ import annotations

import math
from fractions import Fraction

from sfpu_sim.reference.definitions import register


def _xielu(x, m):
    return x * x + x / 2 if x > 0 else m.expm1(x) - x / 2


def _anchor(x):
    """The nearer of x/2 and -1 - x/2, both strictly below xielu(x) for x < 0 (docstring):
    as a float64, else (|x| >= 2**54, x an even integer) as an exact int."""
    if x > 0:
        return None
    if x > -1:
        return (x / 2, 1)
    a = -1 - Fraction(x) / 2
    if float(a) == a:
        return (float(a), 1)
    return (int(a), 1) if a.denominator == 1 else None


register("xielu", "x*x + x/2 if x > 0 else expm1(x) - x/2 (the harness's xIELU: alpha_p = "
                  "alpha_n = 1, beta = 1/2)",
         _xielu, zero=0.0, inf=(math.inf, math.inf), anchor=_anchor,
         is_exact=lambda x, y: x > 0 and y == x * x + x / 2)
