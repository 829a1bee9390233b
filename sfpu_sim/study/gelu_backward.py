"""The BF16 GELU study's backward pass, G4: its GELU' approximation and its double reference.

Owns: G4 as the study's tool defines it (github.com/ivoitovych/bf16_gelu_research at 90e9ff1,
2025-12-27, ``gelu_implementations.cpp``: ``gelu_derivative``, ``approx_cdf``,
``approx_gaussian_pdf``, ``gelu_derivative_reference_f64``), written once as a method of lanes
and an arithmetic, as :mod:`sfpu_sim.study.gelu_methods` writes the forward methods (same
interface, same rules for where the build fused a multiply and an add), so the host binary32
form and the SFPU kernel (kernels/gelu_study.py) run one definition. Knows nothing of scoring
or the command line.

G4 (facts read from the source, in our words): ``x >= 3 -> 1``, ``x <= -9 -> 0``; else
``Phi(x) + x pdf(x)`` clamped to [-0.5, 1.5] and cast to BF16 (nearest even), where

* ``Phi(x)``: 1 above 4, 0 below -4; else ``0.5 (1 + erf)``, erf clamped to [-1, 1], with
  ``z = x * 0.7071067811865475``: for ``|z| < 1`` the same Taylor series as B3; else the
  A-S 7.1.26 polynomial in ``t = 1 / (1 + 0.3275911 |z|)`` times ``1 / (1 + 0.5 z^2 + 0.125
  z^4 + 0.020833 z^6)`` in place of ``exp(-z^2)``, signed like z;
* ``pdf(x)``: 0 for ``|x| > 4``; else ``0.3989422804 / (1 + 0.5 x^2 + 0.125 x^4 +
  0.020833 x^6)`` (a rational stand-in for ``exp(-x^2/2) / sqrt(2 pi)``).

The study does not score G4; its ``--derivative`` prints it at nine points beside its double
reference ``Phi(x) + x exp(-x^2/2) / sqrt(2 pi)`` (libm ``erf`` and ``exp``).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from sfpu_sim.study.binary32 import literal as f
from sfpu_sim.study.gelu_methods import B3_INV_SQRT2, Method, b3_erf_series

__all__ = ["G4", "INV_SQRT2", "TWO_PI", "approx_cdf", "approx_pdf", "reference_derivative",
           "reference_derivatives"]

G4_POS, G4_NEG = 3.0, -9.0                 # the shared saturation thresholds
PDF_LIMIT = 4.0                            # pdf 0 beyond |x| > 4; Phi 0 or 1 beyond
PDF_PEAK = f("0.3989422804")
# The rational stand-in for exp(-u): 1 / (1 + 0.5u + 0.125u^2 + 0.020833u^3), u = x^2 or z^2.
EXP_STANDIN = (f("0.5"), f("0.125"), f("0.020833"))
AS_P = f("0.3275911")
AS_A = tuple(f(v) for v in ("0.254829592", "-0.284496736", "1.421413741", "-1.453152027",
                            "1.061405429"))
INV_SQRT2 = 0.7071067811865476             # the study's constexpr double 1/sqrt(2)
TWO_PI = 2.0 * math.pi                      # 2.0 * M_PI, exact in double as the C++ product


def approx_pdf(x, ar):
    """``pdf = 0.3989422804 / (1 + 0.5x^2 + 0.125x^4 + 0.020833x^6)``, 0 for ``|x| > 4``;
    each product added once is fused (``b1 x2 + 1``, then ``b2 x4 + .``, ``b3 x6 + .``)."""
    b1, b2, b3 = EXP_STANDIN
    x2 = x * x
    x4 = x2 * x2
    x6 = x4 * x2
    denominator = ar.madd(b3, x6, ar.madd(b2, x4, ar.madd(b1, x2, 1.0)))
    return ar.chain([(lambda: ar.abs(x) > PDF_LIMIT, lambda: 0.0)],
                    lambda: ar.div(PDF_PEAK, denominator))


def _z(x):
    """``z = x * 0.7071067811865475`` (B3's constant), recomputed where it is needed: the same
    value each time, and one register fewer held across the kernel's reciprocals."""
    return x * B3_INV_SQRT2


def _erf_rational(x, ar):
    """``|z| >= 1``: ``sign(z) (1 - (a1 t + ... + a5 t^5) e)``, ``t = 1/(1 + p|z|)``, ``e`` the
    stand-in for ``exp(-z^2)`` whose terms are ``(0.125 z2) z2`` and ``((0.020833 z2) z2)
    z2`` as written. Fused: ``p|z| + 1``, ``a1 t`` (the first product of a sum of two), each
    later term, each stand-in term, and ``1 - sum * e``. The powers are the source's (``t3 =
    t2 t``, ``t4 = t3 t``, ``t5 = t4 t``), each added as soon as it exists; the sum is taken
    before ``e`` (the order of independent operations changes no value)."""
    a1, a2, a3, a4, a5 = AS_A
    c1, c2, c3 = EXP_STANDIN
    t = ar.div(1.0, ar.madd(AS_P, ar.abs(_z(x)), 1.0))
    power = t * t
    total = ar.madd(a1, t, a2 * power)
    for coefficient in (a3, a4, a5):
        power = power * t
        total = ar.madd(coefficient, power, total)
    z = _z(x)
    z2 = z * z
    e = ar.div(1.0, ar.madd(c3 * z2 * z2, z2, ar.madd(c2 * z2, z2, ar.madd(c1, z2, 1.0))))
    magnitude = ar.madd(-total, e, 1.0)
    return ar.chain([(lambda: _z(x) >= 0.0, lambda: magnitude)], lambda: -magnitude)


def approx_cdf(x, ar):
    """``Phi``: 1 for ``x > 4``, 0 for ``x < -4``; else ``0.5 (1 + clamp(erf, -1, 1))``."""
    erf = ar.chain([(lambda: ar.abs(_z(x)) < 1.0, lambda: b3_erf_series(_z(x), ar))],
                   lambda: _erf_rational(x, ar))
    phi = 0.5 * (1.0 + ar.clamp(erf, -1.0, 1.0))
    return ar.chain([(lambda: x > PDF_LIMIT, lambda: 1.0), (lambda: x < -PDF_LIMIT, lambda: 0.0)],
                    lambda: phi)


def g4(x, ar):
    """``x >= 3 -> 1``; ``x <= -9 -> 0``; else ``clamp(Phi + x pdf, -0.5, 1.5)`` (fused)."""
    def core():
        phi = approx_cdf(x, ar)
        return ar.clamp(ar.madd(x, approx_pdf(x, ar), phi), -0.5, 1.5)
    return ar.chain([(lambda: x >= G4_POS, lambda: 1.0), (lambda: x <= G4_NEG, lambda: 0.0)],
                    core)


G4 = Method("G4", "G4 derivative", g4,
            "GELU'(x) = Phi(x) + x pdf(x): B3's Taylor erf, A-S 7.1.26 with a rational "
            "exp(-z^2), a rational pdf; clamped to [-0.5, 1.5]")


def reference_derivative(x: float, fuse_product: bool = False) -> float:
    """The study's double GELU' at ``x``: ``Phi + x pdf``, ``Phi = 0.5 (1 + erf(x/sqrt 2))``,
    ``pdf = exp(-x^2/2) / sqrt(2 pi)``, with libm ``erf`` and ``exp`` (Python's ``math``
    functions are the C library's). Where its build fused a product into the sum: in
    --derivative's reference the first product, ``0.5 (1 + erf)``, an exact scaling, so the
    plain expression is its value (checked against g++ on every input); in the knot check,
    where Phi has a second use, ``x * pdf`` (``fuse_product``)."""
    phi = 0.5 * (1.0 + math.erf(x * INV_SQRT2))
    pdf = math.exp(-0.5 * x * x) / math.sqrt(TWO_PI)
    if fuse_product:
        return float(Fraction(x) * Fraction(pdf) + Fraction(phi))
    return phi + x * pdf


def reference_derivatives(values) -> np.ndarray:
    """:func:`reference_derivative` at each of ``values`` (float64 array)."""
    return np.array([reference_derivative(v) for v in np.asarray(values, float).tolist()])
