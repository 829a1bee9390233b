"""BF16 operand pairs for the binary-kernel tests: random patterns plus every pair of a set of
special patterns."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from sfpu_sim.binary_device import run_binary_device


def pairs(specials, count: int = 4096, seed: int = 17):
    """``count`` random BF16 pairs (seeded) followed by every pair of ``specials``."""
    rng = np.random.default_rng(seed)
    x, y = (rng.integers(0, 1 << 16, count).astype(np.uint16) for _ in range(2))
    sx, sy = np.meshgrid(np.asarray(specials, dtype=np.uint16),
                         np.asarray(specials, dtype=np.uint16))
    return np.concatenate([x, sx.ravel()]), np.concatenate([y, sy.ravel()])


def assert_compiled_equals_machine(program, x, y, path=None) -> None:
    """The program compiled and on the Machine (through ``path``, a DevicePath; default: BF16
    in and out, a 16-bit Dst): the same output and kernel FP32 bits."""
    more = {} if path is None else {"path": path}
    fast = run_binary_device(program, x, y, engine="compiled", **more)
    slow = run_binary_device(program, x, y, engine="machine", **more)
    assert fast.engine == "compiled" and slow.engine == "machine"
    np.testing.assert_array_equal(fast.output, slow.output)
    np.testing.assert_array_equal(fast.kernel_fp32, slow.kernel_fp32)


def round_nearest_even(value: Fraction, precision: int) -> Fraction:
    """``value`` rounded to nearest even at ``precision`` significant bits (no exponent range)."""
    sign, value = (-1 if value < 0 else 1), abs(value)
    exponent = value.numerator.bit_length() - value.denominator.bit_length()
    if Fraction(2) ** exponent > value:
        exponent -= 1
    scaled = value / Fraction(2) ** (exponent - precision + 1)
    whole = scaled.numerator // scaled.denominator
    rest = scaled - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2):
        whole += 1
    return sign * whole * Fraction(2) ** (exponent - precision + 1)


def hand_cases(cases: dict, arch: str):
    """A table of (x, y) patterns -> expected bits (or {chip: bits}): the x and y arrays and
    what ``arch`` expects, in order."""
    x = np.array([p[0] for p in cases], dtype=np.uint16)
    y = np.array([p[1] for p in cases], dtype=np.uint16)
    return x, y, [v[arch] if isinstance(v, dict) else v for v in cases.values()]
