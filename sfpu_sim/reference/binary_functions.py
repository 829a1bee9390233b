"""Correctly rounded references of two-operand functions: x + y, x - y, y - x, x * y, max, min.

Owns: the exact definitions of the binary kernels' functions and their rounding to an output
format under the policies of :data:`sfpu_sim.formats.POLICIES`, with DAZ on both inputs and
FTZ on the output, as the unary references do. Knows nothing of kernels or ULP conventions.

Why float64 suffices, and how: a product of two BF16, FP16 or FP32 values is exact in float64
(at most 48 significant bits, exponents in range). A sum is not always (2**100 + 2**-100 needs
201 bits), but float64's rounded sum ``s`` plus its exact error ``t`` (TwoSum, Knuth) gives the
sum rounded *to odd* at 53 bits: ``s`` if it is exact or odd, else its neighbour toward ``t``.
Rounding that to any format of at most 51 bits, in any nearest or directed mode, is the
correctly rounded exact sum (Boldo and Melquiond, IEEE TC 57(4), 2008), so every policy holds.
max and min are exact. NaN in either operand gives NaN; max(-0, +0) = +0, min(-0, +0) = -0.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats
from sfpu_sim.errors import SfpuSimError


class UnknownBinaryFunction(SfpuSimError):
    pass


def _sum_to_odd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x + y rounded to odd at float64's 53 bits (module docstring), element-wise."""
    with np.errstate(invalid="ignore", over="ignore"):
        s = x + y
        y_part = s - x
        error = (x - (s - y_part)) + (y - y_part)        # TwoSum: s + error == x + y exactly
    inexact = np.isfinite(s) & (error != 0)
    even = (s.view(np.uint64) & np.uint64(1)) == 0
    toward = np.nextafter(s, np.where(error > 0, np.inf, -np.inf))
    return np.where(inexact & even, toward, s)


def _product(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return x * y                                    # exact: at most 48 significant bits


def _maximum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    both_zero = (x == 0) & (y == 0)
    return np.where(both_zero, np.where(np.signbit(x), y, x), np.maximum(x, y))


def _minimum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    both_zero = (x == 0) & (y == 0)
    return np.where(both_zero, np.where(np.signbit(x), x, y), np.minimum(x, y))


# name -> (exact value as float64, rounded to odd where inexact; the formula in words)
BINARY_FUNCTIONS = {
    "add": (_sum_to_odd, "x + y"),
    "sub": (lambda x, y: _sum_to_odd(x, -y), "x - y"),
    "rsub": (lambda x, y: _sum_to_odd(y, -x), "y - x"),
    "mul": (_product, "x * y"),
    "max": (_maximum, "max(x, y), NaN if either is NaN"),
    "min": (_minimum, "min(x, y), NaN if either is NaN"),
}


def binary_reference(function: str, x_bits, y_bits, policy: str = "rne", *,
                     input_format: str = "bf16", output_format: str = "bf16",
                     ftz: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``function(x, y)`` of two input-format pattern arrays (DAZ: denormal inputs read as
    signed zero), correctly rounded under ``policy``: (output patterns, the value as float64:
    exact, or rounded to odd where a sum is not)."""
    if function not in BINARY_FUNCTIONS:
        raise UnknownBinaryFunction(f"unknown binary function {function!r} (known: "
                                    f"{', '.join(BINARY_FUNCTIONS)})")
    exact, _ = BINARY_FUNCTIONS[function]
    fmt = formats.FORMATS[input_format]
    x, y = (formats.bits_to_float64(formats.daz(formats.as_bits(b, fmt), fmt), fmt)
            for b in (x_bits, y_bits))
    value = exact(x, y)
    return formats.round_values(value, policy, output_format, ftz=ftz), value
