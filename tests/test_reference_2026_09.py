"""Reference functions of the Sep-2026 kernel set (issue 11): exp2, expm1, log1p, atan, asin,
acos, sinh, cosh, hardsigmoid, mish.

Expected values are established independently of the arb path: exact mathematical values
(2^k, atan(1) = pi/4, acos(-1) = pi, (x + 3)/6 at dyadic points, the domains' edges), and
mpmath at 300 bits rounded once to float64 by ``float()`` (a correctly rounded conversion).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from sfpu_sim import formats, reference

NEW = ["exp2", "expm1", "log1p", "atan", "asin", "acos", "sinh", "cosh", "hardsigmoid", "mish"]


def bits(*values: float) -> np.ndarray:
    out = formats.fp32_to_bits(np.asarray(values, dtype=np.float32)) >> np.uint32(16)
    return out.astype(np.uint16)


def ref_value(name: str, *values: float) -> np.ndarray:
    return reference.reference(name, bits(*values), cache=False).value


def test_new_functions_are_registered():
    assert set(NEW) <= set(reference.functions())


@pytest.mark.parametrize("name, x, expected", [
    ("exp2", 3.0, 8.0), ("exp2", -126.0, 2.0 ** -126), ("exp2", 0.5, math.sqrt(2)),
    ("exp2", 128.0, 2.0 ** 128), ("exp2", -150.0, 2.0 ** -150),
    ("atan", 1.0, math.pi / 4), ("atan", -1.0, -math.pi / 4),
    ("atan", math.inf, math.pi / 2), ("atan", -math.inf, -math.pi / 2),
    ("asin", 1.0, math.pi / 2), ("asin", -1.0, -math.pi / 2), ("asin", 0.5, math.pi / 6),
    ("acos", 1.0, 0.0), ("acos", -1.0, math.pi), ("acos", 0.5, math.pi / 3),
    ("acos", 0.0, math.pi / 2),
    ("log1p", -1.0, -math.inf), ("log1p", 1.0, math.log(2)),
    ("hardsigmoid", 1.5, 0.75), ("hardsigmoid", -3.0, 0.0), ("hardsigmoid", 3.0, 1.0),
    ("hardsigmoid", 0.0, 0.5), ("hardsigmoid", -1.5, 0.25), ("hardsigmoid", 100.0, 1.0),
    ("hardsigmoid", math.inf, 1.0), ("hardsigmoid", -math.inf, 0.0),
    ("sinh", math.inf, math.inf), ("sinh", -math.inf, -math.inf),
    ("cosh", -math.inf, math.inf), ("cosh", 0.0, 1.0),
    ("expm1", -math.inf, -1.0), ("expm1", math.inf, math.inf),
    ("mish", math.inf, math.inf),
])
def test_exact_values(name, x, expected):
    # math.pi/k (k a power of two) and math.log(2) are float64's correctly rounded values;
    # pi/6 and pi/3 are checked against mpmath (float(pi/6) is correctly rounded there too)
    if name in ("asin", "acos") and x == 0.5:
        with mpmath.workprec(300):
            expected = float(mpmath.pi / (6 if name == "asin" else 3))
    assert ref_value(name, x)[0] == expected


@pytest.mark.parametrize("name, x", [("asin", 1.5), ("asin", -math.inf), ("acos", -2.0),
                                     ("acos", math.inf), ("log1p", -2.0),
                                     ("log1p", -math.inf)])
def test_outside_the_domain_is_nan(name, x):
    result = reference.reference(name, bits(x), cache=False)
    assert np.isnan(result.value[0]) and result.bits[0] == 0x7FC0


@pytest.mark.parametrize("name", ["expm1", "log1p", "atan", "asin", "sinh", "mish"])
def test_odd_functions_keep_the_sign_of_zero(name):
    out = reference.reference(name, np.array([0x0000, 0x8000], dtype=np.uint16), cache=False)
    assert list(out.bits) == [0x0000, 0x8000]


def test_exp2_overflows_bf16_at_128():
    assert reference.reference("exp2", bits(128.0), cache=False).bits[0] == 0x7F80


def test_mish_of_minus_infinity_is_minus_zero():
    assert reference.reference("mish", np.array([0xFF80], dtype=np.uint16),
                               cache=False).bits[0] == 0x8000


MP = {"exp2": lambda x: mpmath.power(2, x), "expm1": mpmath.expm1, "log1p": mpmath.log1p,
      "atan": mpmath.atan, "asin": mpmath.asin, "acos": mpmath.acos, "sinh": mpmath.sinh,
      "cosh": mpmath.cosh,
      "hardsigmoid": lambda x: min(max((x + 3) / 6, mpmath.mpf(0)), mpmath.mpf(1)),
      "mish": lambda x: x * mpmath.tanh(mpmath.log1p(mpmath.exp(x)))}
# Normal BF16 inputs across the working ranges (saturating, tiny and ordinary magnitudes).
POINTS = [2.0 ** -126, -2.0 ** -100, 2.0 ** -20, -0.0078125, 0.09375, -0.3125, 0.6015625,
          -0.875, 0.99609375, 1.25, -2.5, 3.0, -7.75, 15.5, -40.0, 88.0, -100.0, 1000.0]


@pytest.mark.parametrize("name", NEW)
def test_values_match_mpmath_at_300_bits(name):
    xs = [x for x in POINTS if name not in ("asin", "acos") or abs(x) <= 1]
    xs = [x for x in xs if name != "log1p" or x > -1]
    got = ref_value(name, *xs)
    with mpmath.workprec(300):
        want = [float(MP[name](mpmath.mpf(x))) for x in xs]
    assert got.tolist() == want

