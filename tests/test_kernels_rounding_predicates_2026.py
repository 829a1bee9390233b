"""The Sep-2026 Floor, Ceil, Trunc and Frac kernels (kernels/rounding_2026.py) and the
reference functions of sfpu_sim/reference/predicate_functions.py: the compiled engine against
the Machine, hand-derived values on both chips, the table's cells."""
from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest

import kernels.rounding_2026  # noqa: F401 (registers the kernels)
from sfpu_sim import registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.reference.backends import ArbMath, MpMath
from sfpu_sim.reference.definitions import FUNCTIONS
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
ALL_BF16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)
# row -> (function, kernel); nothing branches on is_fp32_dest_acc_en: one kernel per row.
ROWS = {"Floor": ("floor", "floor_2026_09"), "Ceil": ("ceil", "ceil_2026_09"),
        "Trunc": ("trunc", "trunc_2026_09"), "Frac": ("frac", "frac_2026_09")}
KERNELS = sorted(kernel for _, kernel in ROWS.values())


def _fp32_bits(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def _run(kernel: str, arch: str, values) -> np.ndarray:
    program = registry.get(kernel).program(arch)
    result = run_device(program, _fp32_bits(values), DevicePath("fp32", "fp32", "fp32"),
                        engine="machine", fp32_inputs=True)
    return np.asarray(result.output, dtype=np.uint32)


@pytest.mark.slow   # compiled == Machine: a covering subset by default (test_compiled)
@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("kernel", KERNELS)
def test_compiled_engine_equals_the_machine_on_fp32_inputs(kernel, arch):
    # The same program runs with an FP32 Dst (the Yes column): random FP32 patterns.
    x = np.random.default_rng(2026_09).integers(0, 2 ** 32, 4096, dtype=np.uint64)
    x = x.astype(np.uint32)
    program = registry.get(kernel).program(arch)
    path = DevicePath("fp32", "fp32", "fp32")
    compiled = run_device(program, x, path, engine="compiled", fp32_inputs=True)
    machine = run_device(program, x, path, engine="machine", fp32_inputs=True)
    np.testing.assert_array_equal(compiled.output, machine.output)
    np.testing.assert_array_equal(compiled.kernel_fp32, machine.kernel_fp32)


INF, NAN = float("inf"), float("nan")
SPECIAL_INPUTS = [2.5, -2.5, -2.0, 0.25, -0.25, 0.0, -0.0, 3.75, -3.75, 8388607.5, -8388607.5,
                  1e30, INF, -INF]
# Derived by hand from the bodies: |x| < 1 keeps only the sign bit (trunc(-0.25) = -0); the
# mask for exponent e clears 23 - e low mantissa bits (8388607.5: e = 22, one bit); exponents
# above 23 (1e30, Inf) keep every bit; floor subtracts 1 only where x < 0 and the bits of x
# exceed trunc's (so -0 and -2 stay); ceil adds 1 where x >= 0 by the raw sign (+0 stays);
# frac = x - trunc is exact, with -2 - (-2) = +0 and Inf - Inf = NaN.
EXPECTED = {
    "trunc_2026_09": [2.0, -2.0, -2.0, 0.0, -0.0, 0.0, -0.0, 3.0, -3.0, 8388607.0, -8388607.0,
                      1e30, INF, -INF],
    "floor_2026_09": [2.0, -3.0, -2.0, 0.0, -1.0, 0.0, -0.0, 3.0, -4.0, 8388607.0, -8388608.0,
                      1e30, INF, -INF],
    "ceil_2026_09": [3.0, -2.0, -2.0, 1.0, -0.0, 0.0, -0.0, 4.0, -3.0, 8388608.0, -8388607.0,
                     1e30, INF, -INF],
    "frac_2026_09": [0.5, -0.5, 0.0, 0.25, -0.25, 0.0, 0.0, 0.75, -0.75, 0.5, -0.5, 0.0, NAN,
                     NAN],
}


@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("kernel", KERNELS)
def test_special_values_follow_the_bodies(kernel, arch):
    got = _run(kernel, arch, SPECIAL_INPUTS)
    want = _fp32_bits(EXPECTED[kernel])
    nan = np.isnan(np.asarray(EXPECTED[kernel], dtype=np.float32))
    np.testing.assert_array_equal(got[~nan], want[~nan])        # signed zeros included
    assert np.isnan(got[nan].view(np.float32)).all()


@pytest.mark.parametrize("arch", BOTH)
def test_nan_passes_through_the_mask(arch):
    # exponent 128 > 23: trunc, floor and ceil keep every bit of a NaN (its payload too)
    for kernel in ("trunc_2026_09", "floor_2026_09", "ceil_2026_09"):
        got = _run(kernel, arch, np.array([0x7FC00001, 0xFFC00000], np.uint32).view(np.float32))
        np.testing.assert_array_equal(got, [0x7FC00001, 0xFFC00000])


@pytest.mark.parametrize("cell", device_table.CELLS, ids=lambda c: "-".join(c))
@pytest.mark.parametrize("row", sorted(ROWS))
def test_table_cell(row, cell):
    function, kernel = ROWS[row]
    op = Op(row, function, kernels={"No": kernel, "Yes": kernel})
    predicted = cells.predict(op, cell, "wormhole")
    device = device_table.read()[row][device_table.CELLS.index(cell)]
    assert predicted.nonfinite == 0
    assert predicted.max_ulp == device.max_ulp == 0


# The reference functions: exact on every backend, arb balls and mpf read without float().
@pytest.mark.parametrize("name, x, value", [
    ("floor", Fraction(-5, 2), -3), ("floor", Fraction(-2), -2), ("floor", Fraction(3, 8), 0),
    ("ceil", Fraction(-5, 2), -2), ("ceil", Fraction(3, 8), 1), ("ceil", Fraction(4), 4),
    ("trunc", Fraction(-15, 4), -3), ("trunc", Fraction(15, 4), 3),
    ("frac", Fraction(-5, 2), Fraction(-1, 2)), ("frac", Fraction(2 ** 50 + 1, 2 ** 30), 1 /
                                                 Fraction(2 ** 30)),
    ("less_than_half", Fraction(1, 2), 0), ("less_than_equal_half", Fraction(1, 2), 1),
    ("equal_half", Fraction(1, 2), 1), ("not_equal_half", Fraction(-1, 2), 1),
    ("max_zero", Fraction(-3), 0), ("min_zero", Fraction(-3), -3),
    ("logical_not", Fraction(7), 0), ("isfinite", Fraction(7), 1), ("isnan", Fraction(7), 0)])
def test_reference_values_are_exact_on_both_backends(name, x, value):
    formula = FUNCTIONS[name].formula
    ball = formula(flint.arb(flint.fmpq(x.numerator, x.denominator)), ArbMath)
    assert ball.rad() == 0 and ball == flint.arb(flint.fmpq(value.numerator, value.denominator)
                                                 if isinstance(value, Fraction) else value)
    with mpmath.workprec(200):
        assert formula(mpmath.mpf(x.numerator) / x.denominator, MpMath) == mpmath.mpf(
            Fraction(value).numerator) / Fraction(value).denominator
    assert FUNCTIONS[name].is_exact(x, Fraction(value))


def test_floor_of_a_ball_straddling_an_integer_is_refused():
    with pytest.raises(ValueError):
        FUNCTIONS["floor"].formula(flint.arb(1, 0.5), ArbMath)
