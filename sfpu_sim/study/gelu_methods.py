"""The BF16 GELU study's methods, each defined once, for any arithmetic that can run them.

Owns: the eleven scored methods of the study (the public repository
github.com/ivoitovych/bf16_gelu_research at commit 90e9ff1, 2025-12-27,
``gelu_implementations.cpp``): their constants spelled as the study spelled them (rounded once
to binary32, as C++ ``float`` literals are), their branch structure, the shared tail table, and
where the study's build (``g++ -O3 -march=native``, GCC's ``-ffp-contract=fast``) fused a
multiply and an add. Knows nothing of how the arithmetic is done: a method is a function
``method(x, ar)`` of lanes ``x`` and an arithmetic ``ar`` providing

* ``+ - *`` and comparisons on its values (operators), constants as Python floats;
* ``ar.madd(a, b, c)``: ``a*b + c`` exactly where the build contracted it (GCC fuses a product
  whose only uses are additions or subtractions in the same basic block; in a sum of two
  products the first one in source order is fused, the other rounded);
* ``ar.div``, ``ar.sqrt``, ``ar.abs``; ``ar.clamp(v, lo, hi)`` (``std::max(lo,
  std::min(hi, v))``); ``ar.chain(cases, otherwise)`` (an if / else-if chain of thunks);
* ``ar.floor_lookup(index, tables)`` (R5 only: the rows ``trunc(index)`` of the tables and the
  fraction ``index - trunc(index)``, a binary32 subtraction).

:class:`~sfpu_sim.study.binary32.Binary32` runs them on the host in IEEE binary32 (the study's
own arithmetic); ``kernels/gelu_study.py`` runs the same definitions as SFPU kernels.

What the build did, read from the study's source (facts, not its code): a division by -0.5 is
an exact scaling (GCC multiplies by -2), so the tail's ``t`` is ``(x - x0) * -2``; the tail's
``y1 - y0`` are folded at compile time in float; R5's table entries are ``-9 + i*(12/511)``
(one fused multiply-add) fed to glibc's ``erff``; C1's Hermite coefficients are computed per
call in float from the knot tables (:func:`c1_segments`). Every contraction decision is checked
against g++ itself, bit for bit on all inputs (tests/test_study_gelu_compiled.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from sfpu_sim import reference
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.study.binary32 import Binary32
from sfpu_sim.study.binary32 import literal as f

__all__ = ["METHODS", "Method", "method", "method_ids", "UnknownMethod", "TAIL_KNOTS",
           "TAIL_VALUES", "c1_segments", "c1_monotonicity", "Monotonicity", "r5_tables",
           "b3_erf_series"]


class UnknownMethod(SfpuSimError):
    pass


# --------------------------------------------------------------------------------------------
# Shared structure: saturations and the negative tail table
# --------------------------------------------------------------------------------------------

POS, NEG, TAIL_START = 3.0, -9.0, -3.5
# Samples of the cancelling double reference at -3.5, -4.0, ..., -8.0 (printed %.5e by the
# study's --calibrate mode) and 0 at -8.5.
TAIL_KNOTS = tuple(-3.5 - 0.5 * k for k in range(11))
TAIL_VALUES = tuple(f(v) for v in ("-8.14202e-04", "-1.26685e-04", "-1.52895e-05",
                                   "-1.43326e-06", "-1.04443e-07", "-5.91953e-09",
                                   "-2.61040e-10", "-8.95867e-12", "-2.39392e-13",
                                   "-4.88498e-15")) + (0.0,)


def _tail_segment(x, ar, k: int):
    """Segment k (from -3.5 - k/2 down to -4 - k/2): ``y0 + t*(y1 - y0)``, ``t = (x - x0)/-0.5``.
    ``y1 - y0`` is a compile-time float subtraction; ``/ -0.5`` is the exact ``* -2``."""
    y0, y1 = TAIL_VALUES[k], TAIL_VALUES[k + 1]
    slope = float(np.float32(y1) - np.float32(y0))
    t = (x - TAIL_KNOTS[k]) * -2.0
    return ar.madd(t, slope, y0)


def negative_tail(x, ar):
    """The tail table: segments chosen by ``x >= -4``, ``>= -4.5``, ..., ``>= -8.5``; else 0."""
    cases = [(lambda k=k: x >= TAIL_KNOTS[k + 1], lambda k=k: _tail_segment(x, ar, k))
             for k in range(10)]
    return ar.chain(cases, lambda: 0.0)


def saturated(core: Callable) -> Callable:
    """``x >= 3 -> x``; ``x <= -9 -> 0``; ``x < -3.5`` -> the tail table; otherwise ``core``
    (R3 and R5 have their own structure)."""
    def method_body(x, ar):
        return ar.chain([(lambda: x >= POS, lambda: x),
                         (lambda: x <= NEG, lambda: 0.0),
                         (lambda: x < TAIL_START, lambda: negative_tail(x, ar))],
                        lambda: core(x, ar))
    method_body.__name__ = core.__name__
    method_body.__doc__ = core.__doc__
    return method_body


# --------------------------------------------------------------------------------------------
# Cores
# --------------------------------------------------------------------------------------------

B1_K = f("1.702")


def b1(x, ar):
    """``z = 1.702x``; ``x * (0.5 + z / (2 (1 + |z|)))``."""
    z = B1_K * x
    sigma = 0.5 + ar.div(z, 2.0 * (1.0 + ar.abs(z)))
    return x * sigma


def b1v2(x, ar):
    """``z = 1.702x``; ``x * (0.5 + (0.5z) * (1 / sqrt(1 + z*z)))``; ``z*z`` and ``1 +`` fuse."""
    z = B1_K * x
    inverse_root = ar.div(1.0, ar.sqrt(ar.madd(z, z, 1.0)))
    sigma = ar.madd(0.5 * z, inverse_root, 0.5)
    return x * sigma


R1_A = tuple(f(v) for v in ("0.398942280", "-0.066490380", "0.005223040", "-0.000203370",
                            "0.000003130"))


def r1(x, ar):
    """``Phi = clamp01(0.5 + x p(x^2))``, p of degree 4 in x^2 summed left to right."""
    x2 = x * x
    x4 = x2 * x2
    x6 = x4 * x2
    x8 = x4 * x4
    a1, a3, a5, a7, a9 = R1_A
    p = ar.madd(a9, x8, ar.madd(a7, x6, ar.madd(a5, x4, ar.madd(a3, x2, a1))))
    phi = ar.clamp(ar.madd(x, p, 0.5), 0.0, 1.0)
    return x * phi


R2_NUM = tuple(f(v) for v in ("0.398942280", "0.069693856", "0.003307210", "0.000044406"))
R2_DEN = tuple(f(v) for v in ("0.374206990", "0.048066570", "0.002013660"))


def r2(x, ar):
    """``Phi = clamp01(0.5 + x num(x^2)/den(x^2))``, [3/3] in x^2."""
    x2 = x * x
    x4 = x2 * x2
    x6 = x4 * x2
    a0, a1, a2, a3 = R2_NUM
    b1_, b2_, b3_ = R2_DEN
    num = ar.madd(a3, x6, ar.madd(a2, x4, ar.madd(a1, x2, a0)))
    den = ar.madd(b3_, x6, ar.madd(b2_, x4, ar.madd(b1_, x2, 1.0)))
    phi = ar.clamp(ar.madd(x, ar.div(num, den), 0.5), 0.0, 1.0)
    return x * phi


A1_POLY7 = tuple(f(v) for v in ("0.398942", "-0.044715", "0.003657"))
A1_POLY9 = tuple(f(v) for v in ("0.398942280", "-0.066490380", "0.005223040", "-0.000203370"))


def a1_poly7(x, ar):
    """``x * clamp01(0.5 + c1 x^2 + c2 x^4 + c3 x^6)``."""
    x2 = x * x
    x4 = x2 * x2
    x6 = x4 * x2
    c1, c2, c3 = A1_POLY7
    q = ar.madd(c3, x6, ar.madd(c2, x4, ar.madd(c1, x2, 0.5)))
    return x * ar.clamp(q, 0.0, 1.0)


def a1_poly9(x, ar):
    """``x * clamp01(0.5 + c1 x^2 + c2 x^4 + c3 x^6 + c4 x^8)``."""
    x2 = x * x
    x4 = x2 * x2
    x6 = x4 * x2
    x8 = x4 * x4
    c1, c2, c3, c4 = A1_POLY9
    q = ar.madd(c4, x8, ar.madd(c3, x6, ar.madd(c2, x4, ar.madd(c1, x2, 0.5))))
    return x * ar.clamp(q, 0.0, 1.0)


# R3: (upper bound of the segment, slope, intercept), positive side then negative side.
R3_POSITIVE = ((0.5, f("0.691428"), None), (1.0, f("0.991262"), f("-0.149917")),
               (2.0, f("1.113252"), f("-0.271907")))
R3_POSITIVE_LAST = (f("1.022638"), f("-0.090369"))
R3_NEGATIVE = ((-0.5, f("0.308572"), None), (-1.0, f("0.008738"), f("-0.149917")),
               (-2.0, f("0.113252"), f("-0.045403")), (-3.5, f("0.022638"), f("0.000127")))


def _line(x, ar, slope, intercept):
    return slope * x if intercept is None else ar.madd(slope, x, intercept)


def r3_core(x, ar):
    """Piecewise linear on [0, .5, 1, 2, 3) and (-.5, -1, -2, -3.5]; -0 goes positive."""
    positive = [(lambda b=b: x < b, lambda s=s, i=i: _line(x, ar, s, i))
                for b, s, i in R3_POSITIVE]
    negative = [(lambda b=b: x > b, lambda s=s, i=i: _line(x, ar, s, i))
                for b, s, i in R3_NEGATIVE]
    return ar.chain([(lambda: x >= 0.0,
                      lambda: ar.chain(positive, lambda: _line(x, ar, *R3_POSITIVE_LAST)))],
                    lambda: ar.chain(negative, lambda: negative_tail(x, ar)))


def r3(x, ar):
    """R3 sends ``x <= -3.5`` to the tail (inside its negative chain); no ``x < -3.5`` test."""
    return ar.chain([(lambda: x >= POS, lambda: x), (lambda: x <= NEG, lambda: 0.0)],
                    lambda: r3_core(x, ar))


R4_K, R4_C = f("0.7978845608"), f("0.044715")
R4_NUM = tuple(f(v) for v in ("0.128205", "0.002798", "0.0000074"))
R4_DEN = tuple(f(v) for v in ("0.461538", "0.023310", "0.000207"))


def r4(x, ar):
    """Tanh form with the [7/6] Pade of tanh (normalised by 135135, 6 decimals), clamped."""
    x2 = x * x
    x3 = x * x2
    z = R4_K * ar.madd(R4_C, x3, x)
    z2 = z * z
    z4 = z2 * z2
    z6 = z4 * z2
    a1, a2, a3 = R4_NUM
    b1_, b2_, b3_ = R4_DEN
    num = z * ar.madd(a3, z6, ar.madd(a2, z4, ar.madd(a1, z2, 1.0)))
    den = ar.madd(b3_, z6, ar.madd(b2_, z4, ar.madd(b1_, z2, 1.0)))
    t = ar.clamp(ar.div(num, den), -1.0, 1.0)
    return (0.5 * x) * (1.0 + t)


B3_INV_SQRT2, B3_TWO_OVER_SQRT_PI = f("0.7071067811865475"), f("1.1283791670955126")
B3_SERIES = tuple(f(v) for v in ("0.333333333", "0.1", "0.023809524"))
B3_AS = tuple(f(v) for v in ("0.278393", "0.230389", "0.000972", "0.078108"))


def b3_erf_series(z, ar):
    """|z| < 1: ``(2/sqrt(pi)) z (1 - z^2/3 + z^4/10 - z^6/42)``. (The study squares z before
    its branch; squaring inside is the same operation and keeps one value fewer alive across
    the other branch of the device kernel.)"""
    z2 = z * z
    z4 = z2 * z2
    z6 = z4 * z2
    c3, c5, c7 = B3_SERIES
    series = ar.madd(-c7, z6, ar.madd(c5, z4, ar.madd(-c3, z2, 1.0)))
    return (B3_TWO_OVER_SQRT_PI * z) * series


def _b3_rational(z, abs_z, ar):
    """|z| >= 1, A-S 7.1.27: ``sign(z) (1 - (1 + p(|z|))^-4)``; in ``a1 t + a2 t^2`` the first
    product is the fused one."""
    t = abs_z
    t2 = t * t
    t3 = t2 * t
    t4 = t2 * t2
    a1, a2, a3, a4 = B3_AS
    p = ar.madd(a4, t4, ar.madd(a3, t3, ar.madd(a1, t, a2 * t2)))
    d = 1.0 + p
    magnitude = 1.0 - ar.div(1.0, d * d * d * d)
    return ar.chain([(lambda: z >= 0.0, lambda: magnitude)], lambda: -magnitude)


def b3(x, ar):
    """``x * 0.5 (1 + erf(x/sqrt 2))`` with a piecewise erf, clamped to [-1, 1]."""
    z = x * B3_INV_SQRT2
    abs_z = ar.abs(z)
    erf = ar.chain([(lambda: abs_z < 1.0, lambda: b3_erf_series(z, ar))],
                   lambda: _b3_rational(z, abs_z, ar))
    erf = ar.clamp(erf, -1.0, 1.0)
    return x * (0.5 * (1.0 + erf))


C1_KNOTS = (-4.0, -3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 4.0)
C1_VALUES = tuple(f(v) for v in ("-0.00012668", "-0.00404970", "-0.04550026", "-0.15865525",
                                 "-0.15426877", "0.00000000", "0.34573123", "0.84134475",
                                 "1.95449974", "3.99987332"))
C1_SLOPES = tuple(f(v) for v in ("-0.00050365", "-0.01194565", "-0.08523180", "-0.08331547",
                                 "0.13250488", "0.50000000", "0.86749512", "1.08331547",
                                 "1.08523180", "1.00050365"))
C1_TAYLOR = f("0.39894228")
C1_FLAT = f("1e-10")          # |delta| above this: Fritsch-Carlson limiting applies


@dataclass(frozen=True)
class Cubic:
    """One Hermite segment: ``a + t (b + t (c + t d))`` with ``t = x - x0``."""
    x0: float
    a: float
    b: float
    c: float
    d: float


@dataclass(frozen=True)
class Monotonicity:
    """Fritsch-Carlson on one segment, in binary32: ``delta = (y1 - y0)/h``, ``alpha =
    m0/delta``, ``beta = m1/delta``, ``r2 = alpha^2 + beta^2`` (None where ``|delta| <=
    1e-10``); the slopes are scaled by ``3/sqrt(r2)`` when ``r2 > 9``."""
    x0: float
    x1: float
    delta: float
    alpha: float | None
    beta: float | None
    r2: float | None
    limited: bool


def _one_lane(value) -> np.ndarray:
    return np.asarray(np.float32(value)).reshape(1)


def _fritsch_carlson(ar, x0, x1, y0, y1, m0, m1):
    """One segment's check (one-lane float32 arrays): its :class:`Monotonicity` and the
    slopes the segment uses."""
    h = x1 - x0
    delta = ar.div(y1 - y0, h)
    alpha = beta = r2 = None
    if ar.abs(delta)[0] > np.float32(C1_FLAT):
        alpha, beta = ar.div(m0, delta), ar.div(m1, delta)
        r2 = ar.madd(alpha, alpha, beta * beta)
        if r2[0] > np.float32(9.0):
            tau = ar.div(3.0, ar.sqrt(r2))
            m0, m1 = tau * alpha * delta, tau * beta * delta
    def scalar(value):
        return None if value is None else float(value[0])
    check = Monotonicity(scalar(x0), scalar(x1), scalar(delta), scalar(alpha), scalar(beta),
                         scalar(r2), r2 is not None and bool(r2[0] > np.float32(9.0)))
    return check, m0, m1


def c1_monotonicity(knots=C1_KNOTS, values=C1_VALUES, slopes=C1_SLOPES,
                    fma: bool = True) -> tuple[Monotonicity, ...]:
    """The Fritsch-Carlson check of each segment of a knot table (C1's by default)."""
    ar = Binary32(fma)
    return tuple(_fritsch_carlson(ar, *(_one_lane(v) for v in (
        knots[k], knots[k + 1], values[k], values[k + 1], slopes[k], slopes[k + 1])))[0]
        for k in range(len(knots) - 1))


@lru_cache(maxsize=None)
def c1_segments(fma: bool = True) -> tuple[Cubic, ...]:
    """The nine segments' coefficients as the study computes them per call, in binary32
    (Fritsch-Carlson limiting included), with its build's contraction of ``a*a + b*b``."""
    ar = Binary32(fma)
    out = []
    for k in range(9):
        x0, x1 = _one_lane(C1_KNOTS[k]), _one_lane(C1_KNOTS[k + 1])
        y0, y1 = _one_lane(C1_VALUES[k]), _one_lane(C1_VALUES[k + 1])
        _, m0, m1 = _fritsch_carlson(ar, x0, x1, y0, y1, _one_lane(C1_SLOPES[k]),
                                     _one_lane(C1_SLOPES[k + 1]))
        h = x1 - x0
        c = ar.div(ar.div(3.0 * (y1 - y0), h) - 2.0 * m0 - m1, h)
        d = ar.div(ar.div(2.0 * (y0 - y1), h) + m0 + m1, h * h)
        out.append(Cubic(float(x0[0]), float(y0[0]), float(m0[0]), float(c[0]), float(d[0])))
    return tuple(out)


def _c1_segment(x, ar, cubic: Cubic):
    t = x - cubic.x0
    return ar.madd(t, ar.madd(t, ar.madd(t, cubic.d, cubic.c), cubic.b), cubic.a)


def c1(x, ar):
    """|x| < 0.125: ``0.5x + 0.39894228 x^2``; else the Hermite segment chosen by ``x < -3, -2,
    -1, -0.5, 0, 0.5, 1, 2``, else [2, 4]."""
    segments = c1_segments(getattr(ar, "fma", True))
    bounds = C1_KNOTS[1:9]
    cases = [(lambda b=b: x < b, lambda s=s: _c1_segment(x, ar, s))
             for b, s in zip(bounds, segments)]
    return ar.chain([(lambda: ar.abs(x) < 0.125,
                      lambda: ar.madd(0.5, x, C1_TAYLOR * (x * x)))],
                    lambda: ar.chain(cases, lambda: _c1_segment(x, ar, segments[8])))


R5_SIZE = 512
R5_STEP = float(np.float32(12.0) / np.float32(R5_SIZE - 1))
R5_INV_STEP = float(np.float32(R5_SIZE - 1) / np.float32(12.0))
R5_ERF_SCALE = float(np.float32(0.7071067811865476))


# glibc's erff is not correctly rounded: of the 736 arguments R5's table uses (with and without
# contraction) it is one ULP off at these 18 (argument -> glibc erff, FP32 patterns), measured
# from glibc 2.36 (Debian 12) through ctypes; everywhere else it equals the correctly rounded
# erff. The study ran glibc 2.39 (Ubuntu 24.04, GCC 13.3), assumed to have the same erff. The
# published R5 figures are the same with or without these 18 values, so they cannot confirm it;
# tests/test_study_gelu.py compares the table with the running C library's erff when it is
# this one.
GLIBC_ERFF_NOT_CORRECTLY_ROUNDED = {
    0x3D3B0A71: 0x3D52E804, 0x3D7F0E3D: 0x3D8FB6C6, 0x3EE36CE0: 0x3EF0B2BD,
    0x3F317A14: 0x3F2C5201, 0x3F96608A: 0x3F6743AE, 0x3FAFE1FE: 0x3F72B10A,
    0x3FBA8298: 0x3F75EE24, 0xBDD48C38: 0xBDEEF9E4, 0xBDF68E1E: 0xBE0A6F4A,
    0xBE3F4ADB: 0xBE555D94, 0xBE614CCF: 0xBE7A2E38, 0xBF26D97E: 0xBF24B10D,
    0xBF3C1AAE: 0xBF3385C4, 0xBF405AED: 0xBF3648B1, 0xBF449B2D: 0xBF38FA35,
    0xBF48DB6A: 0xBF3B9A58, 0xBF4D1BA6: 0xBF3E2932, 0xBFACB1D0: 0xBF71908C,
}


def glibc_erff(arguments: np.ndarray) -> np.ndarray:
    """glibc's ``erff`` at binary32 ``arguments``: the correctly rounded erf (certified by
    :mod:`sfpu_sim.reference`), except where glibc is known to differ (the table above).
    Deterministic on every platform, unlike calling the C library."""
    bits = np.ascontiguousarray(arguments, dtype=np.float32).view(np.uint32)
    result = reference.reference("erf", bits, "rne", input_format="fp32", output_format="fp32",
                                 daz=False, ftz=False).bits.astype(np.uint32)
    for k, argument in enumerate(bits.tolist()):
        result[k] = GLIBC_ERFF_NOT_CORRECTLY_ROUNDED.get(argument, result[k])
    return result.view(np.float32)


@lru_cache(maxsize=None)
def r5_tables(fma: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """R5's table ``Phi_i = 0.5 (1 + erff(x_i * 0.70710677))``, ``x_i = -9 + i*(12/511)`` (one
    fused multiply-add in the build), with glibc's ``erff`` (:func:`glibc_erff`), and the
    differences ``Phi_{i+1} - Phi_i`` in float."""
    ar = Binary32(fma)
    index = np.arange(R5_SIZE, dtype=np.float32)
    x = ar.madd(index, R5_STEP, NEG)
    phi = 0.5 * (1.0 + glibc_erff(x * R5_ERF_SCALE))
    return phi.astype(np.float32), np.append(phi[1:] - phi[:-1], np.float32(0))


def r5(x, ar):
    """LUT of Phi on [-9, 3] (512 entries), linear interpolation, ``x * Phi``; only the two
    saturations, no tail table."""
    def core():
        index = (x - NEG) * R5_INV_STEP
        phi0, slope, fraction = ar.floor_lookup(index, r5_tables(getattr(ar, "fma", True)))
        return x * ar.madd(fraction, slope, phi0)
    return ar.chain([(lambda: x >= POS, lambda: x), (lambda: x <= NEG, lambda: 0.0)], core)


# --------------------------------------------------------------------------------------------
# The registry of methods
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Method:
    id: str
    name: str
    body: Callable
    description: str
    device: bool = True            # expressible as an SFPU kernel


METHODS: dict[str, Method] = {m.id: m for m in (
    Method("B1", "B1 sigmoid", saturated(b1), "x sigma(1.702x), sigma(z) = 0.5 + z/(2(1+|z|))"),
    Method("B1v2", "B1v2 sigmoid", saturated(b1v2),
           "x sigma(1.702x), sigma(z) = 0.5 + 0.5z/sqrt(1+z^2)"),
    Method("R1", "R1 poly-9", saturated(r1), "Phi = clamp01(0.5 + x p(x^2)), degree 9"),
    Method("R2", "R2 rational", saturated(r2), "Phi = clamp01(0.5 + x P(x^2)/Q(x^2)), [3/3]"),
    Method("R3", "R3 PWL", r3, "piecewise linear, power-of-2 breakpoints"),
    Method("R4", "R4 tanh-form", saturated(r4), "0.5x(1 + tanh(u)), [7/6] Pade tanh"),
    Method("R5", "R5 LUT", r5, "512-entry Phi table on [-9, 3], linear interpolation"),
    Method("A1-poly7", "A1 poly7", saturated(a1_poly7), "x clamp01(q(x^2)), degree 7"),
    Method("A1-poly9", "A1 poly9", saturated(a1_poly9), "x clamp01(q(x^2)), degree 9"),
    Method("B3", "B3 erf poly", saturated(b3), "piecewise erf: Taylor |z|<1, A-S 7.1.27"),
    Method("C1", "C1 spline", saturated(c1),
           "9-segment Hermite (Fritsch-Carlson), Taylor |x|<0.125"),
)}


def method_ids() -> list[str]:
    return list(METHODS)


def method(method_id: str) -> Method:
    try:
        return METHODS[method_id]
    except KeyError:
        raise UnknownMethod(f"unknown GELU study method {method_id!r} (known: "
                            f"{', '.join(METHODS)})") from None
