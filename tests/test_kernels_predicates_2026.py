"""The predicate kernels of Sep 2026 (kernels/predicates_2026.py) and the table cells they
predict: LogicalNot, the comparisons with 0.5, max/min with 0 and the IEEE class predicates.

Special values are derived by hand from the kernels: SFPSETCC reads raw bits (-0 is negative
and non-zero), sfpi's ``v OP s`` is an SFPSETCC on ``v - s`` (a quiet NaN minus 0.5 is a
positive NaN), SFPSWAP orders sign-magnitude (-0 < +0, +NaN above +inf). Table figures:
``sfpu_sim/data/sfpu_accuracy_budget_2026-09-30.csv`` (Wormhole).
"""
from __future__ import annotations

import numpy as np
import pytest

import kernels.predicates_2026  # noqa: F401 (registers the kernels)
from sfpu_sim import formats, registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
ALL_BF16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)
NAN, SIGNALLING_NAN, PLUS_INF, MINUS_INF, MINUS_ZERO = 0x7FC0, 0x7F81, 0x7F80, 0xFF80, 0x8000
BF16_MAX = 0x7F7F
# table row -> [(function, kernel)], the row's representative first
ROWS = {
    "LogicalNot": [("logical_not", "logical_not_2026_09")],
    "UnaryEq/UnaryGe/UnaryGt/UnaryLe": [
        ("equal_half", "unary_eq_2026_09"), ("greater_than_equal_half", "unary_ge_2026_09"),
        ("greater_than_half", "unary_gt_2026_09"), ("less_than_equal_half", "unary_le_2026_09")],
    "UnaryLt/UnaryMax/UnaryMin/UnaryNe": [
        ("less_than_half", "unary_lt_2026_09"), ("max_zero", "unary_max_2026_09"),
        ("min_zero", "unary_min_2026_09"), ("not_equal_half", "unary_ne_2026_09")],
    "Isfinite/Isinf/Isnan/Isneginf/Isposinf": [
        (name, f"{name}_2026_09") for name in ("isfinite", "isinf", "isnan", "isneginf",
                                               "isposinf")],
}
KERNELS = sorted(kernel for ops in ROWS.values() for _, kernel in ops)
DEVICE = device_table.read()
MEASURED = [(row, function, kernel, cell) for row, ops in ROWS.items()
            for function, kernel in ops for cell in device_table.CELLS
            if DEVICE[row][device_table.CELLS.index(cell)].max_ulp is not None]


def bf16(value: float) -> int:
    bits = int(formats.fp32_to_bits(np.float32(value)))
    assert bits & 0xFFFF == 0, value
    return bits >> 16


def run(name: str, chip: str, inputs) -> list[int]:
    spec = registry.get(name)
    out = run_device(spec.program(chip), np.asarray(inputs, dtype=np.uint16),
                     DevicePath("bf16", "bf16", spec.dest))
    return [int(v) for v in out.output]


@pytest.mark.slow   # compiled == Machine: a covering subset by default (test_compiled)
@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("name", KERNELS)
def test_compiled_engine_equals_the_machine_on_fp32_patterns_in_an_fp32_dst(name, chip):
    """The same kernel serves the FP32-Dst cells (nothing branches on is_fp32_dest_acc_en)."""
    x = np.random.default_rng(20260930).integers(0, 1 << 32, 4096, dtype=np.uint64)
    x = x.astype(np.uint32)
    program = registry.get(name).program(chip)
    path = DevicePath("fp32", "fp32", "fp32")
    compiled = run_device(program, x, path, fp32_inputs=True, engine="compiled")
    machine = run_device(program, x, path, fp32_inputs=True, engine="machine")
    np.testing.assert_array_equal(compiled.output, machine.output)
    np.testing.assert_array_equal(compiled.kernel_fp32, machine.kernel_fp32)


ONE, ZERO = bf16(1.0), 0x0000


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("name, x, expected", [
    # SFPSETCC == 0 on raw bits: only +0 is zero
    ("logical_not_2026_09", 0x0000, ONE), ("logical_not_2026_09", MINUS_ZERO, ZERO),
    ("logical_not_2026_09", NAN, ZERO), ("logical_not_2026_09", bf16(1.0), ZERO),
    # v - 0.5 == 0 only at 0.5; one BF16 step above is 2**-8 away
    ("unary_eq_2026_09", bf16(0.5), ONE), ("unary_eq_2026_09", 0x3F01, ZERO),
    ("unary_eq_2026_09", PLUS_INF, ZERO),
    # NaN - 0.5 is a NaN, non-zero: "not equal"
    ("unary_ne_2026_09", bf16(0.5), ZERO), ("unary_ne_2026_09", NAN, ONE),
    # ge: v_if(v - s < 0) 0 else 1; -0 - 0.5 = -0.5; NaN - 0.5 is a positive NaN
    ("unary_ge_2026_09", bf16(0.5), ONE), ("unary_ge_2026_09", MINUS_ZERO, ZERO),
    ("unary_ge_2026_09", NAN, ONE),
    # gt: difference >= 0 and != 0
    ("unary_gt_2026_09", bf16(0.5), ZERO), ("unary_gt_2026_09", PLUS_INF, ONE),
    ("unary_lt_2026_09", MINUS_INF, ONE), ("unary_lt_2026_09", bf16(0.5), ZERO),
    # le: v_if(v > s) 0 else 1; the positive NaN difference is "greater"
    ("unary_le_2026_09", bf16(0.5), ONE), ("unary_le_2026_09", NAN, ZERO),
    ("unary_le_2026_09", bf16(-3.0), ONE),
    # SFPSWAP sign-magnitude: -0 < +0, +NaN is the largest
    ("unary_max_2026_09", MINUS_ZERO, ZERO), ("unary_max_2026_09", MINUS_INF, ZERO),
    ("unary_max_2026_09", bf16(2.0), bf16(2.0)), ("unary_max_2026_09", NAN, NAN),
    ("unary_min_2026_09", MINUS_ZERO, MINUS_ZERO), ("unary_min_2026_09", bf16(3.0), ZERO),
    ("unary_min_2026_09", bf16(-2.0), bf16(-2.0)),
    ("isinf_2026_09", MINUS_INF, ONE), ("isinf_2026_09", NAN, ZERO),
    ("isinf_2026_09", BF16_MAX, ZERO),
    ("isposinf_2026_09", PLUS_INF, ONE), ("isposinf_2026_09", MINUS_INF, ZERO),
    ("isneginf_2026_09", MINUS_INF, ONE), ("isneginf_2026_09", PLUS_INF, ZERO),
    ("isnan_2026_09", SIGNALLING_NAN, ONE), ("isnan_2026_09", PLUS_INF, ZERO),
    ("isnan_2026_09", 0xFFC0, ONE),
    ("isfinite_2026_09", BF16_MAX, ONE), ("isfinite_2026_09", MINUS_INF, ZERO),
    ("isfinite_2026_09", NAN, ZERO), ("isfinite_2026_09", MINUS_ZERO, ONE),
])
def test_special_values(name, x, expected, chip):
    assert run(name, chip, [x]) == [expected]


@pytest.mark.parametrize("row, function, kernel, cell", MEASURED,
                         ids=lambda v: "-".join(v) if isinstance(v, tuple) else v)
def test_table_cell(row, function, kernel, cell):
    op = Op(row, function, kernels={"No": kernel, "Yes": kernel})
    predicted = cells.predict(op, cell, "wormhole")
    device = DEVICE[row][device_table.CELLS.index(cell)]
    assert predicted.nonfinite == 0
    assert predicted.max_ulp == device.max_ulp
