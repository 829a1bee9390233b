"""The Sep-2026 SqrtCustom, Fmod, Remainder and Expm1Cw kernels (kernels/misc_2026.py).

Hand-derived values follow the source's algorithm (the module docstring); the cell figures are
Tenstorrent's table (sfpu_accuracy_budget_2026-09-30.csv, Wormhole), predicted with the golden
rounded to FP32 (``rne_fp32``: fmod and remainder by 2 are exact or singly rounded in torch).
"""
from __future__ import annotations

import numpy as np
import pytest

import kernels.misc_2026  # noqa: F401 (registers the kernels)
from sfpu_sim import formats, registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.sweeps import DevicePath, run_device

CHIPS = ("wormhole", "blackhole")
KERNELS = ["sqrt_custom_2026_09", "fmod_2026_09", "remainder_2026_09", "expm1_cw_2026_09"]
PLUS_INF, QUIET_NAN = 0x7F80, 0x7FC0


def bf16(value: float) -> int:
    out = int(formats.fp32_to_bits(np.float32(value)))
    assert out & 0xFFFF == 0, value
    return out >> 16


def run_bf16(name: str, chip: str, inputs) -> list[int]:
    program = registry.get(name).program(chip)
    return [int(v) for v in run_device(program, np.asarray(inputs, dtype=np.uint16),
                                       DevicePath("bf16", "bf16", "bf16")).output]


@pytest.mark.slow   # compiled == Machine: a covering subset by default (test_compiled)
@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", KERNELS)
def test_compiled_engine_equals_machine_on_random_fp32_inputs(name, chip):
    program = registry.get(name).program(chip)
    x = np.random.default_rng(20260930).integers(0, 1 << 32, 4096, dtype=np.uint64)
    x = x.astype(np.uint32)
    path = DevicePath("fp32", "fp32", "fp32")
    compiled = run_device(program, x, path, fp32_inputs=True, engine="compiled")
    machine = run_device(program, x, path, fp32_inputs=True, engine="machine")
    np.testing.assert_array_equal(compiled.output, machine.output)
    np.testing.assert_array_equal(compiled.kernel_fp32, machine.kernel_fp32)


def test_one_program_serves_both_dst_modes():
    for name in KERNELS:
        spec = registry.get(name)
        assert "is_fp32_dest_acc_en" not in spec.params
        assert registry.for_dest(spec, "fp32").spec is spec


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name, x, expected", [
    # sqrt_custom: zeros and exponent-255 inputs skip the Newton steps and pass through
    ("sqrt_custom_2026_09", 0x0000, 0x0000),
    ("sqrt_custom_2026_09", PLUS_INF, PLUS_INF), ("sqrt_custom_2026_09", QUIET_NAN, QUIET_NAN),
    # fmod by 2: q = trunc(|x|/2) exactly, |x| - 2q, sign of x
    ("fmod_2026_09", bf16(3.0), bf16(1.0)), ("fmod_2026_09", bf16(-3.0), bf16(-1.0)),
    ("fmod_2026_09", bf16(5.5), bf16(1.5)), ("fmod_2026_09", bf16(0.25), bf16(0.25)),
    # remainder by 2: negative x folds to 2 - (|x| mod 2)
    ("remainder_2026_09", bf16(3.0), bf16(1.0)), ("remainder_2026_09", bf16(-3.0), bf16(1.0)),
    ("remainder_2026_09", bf16(-0.5), bf16(1.5)),
    # ... and for a tiny negative x, 2 - |x| rounds to 2.0, which the v >= s pass turns into 0
    # (the golden is 2.0: the table's 16257-step cell)
    ("remainder_2026_09", 0x8080, 0x0000),
    # expm1_cw: 0 -> k = 0, r = 0, (1 - 1) + 1*0 = 0; -100 is clamped to -87: (2^-126 - 1)
    # rounds to -1; 89.5 gives k = 129, exponent field 256 wraps to 0, 2^k = 0: -1, not +inf
    ("expm1_cw_2026_09", 0x0000, 0x0000), ("expm1_cw_2026_09", bf16(-100.0), bf16(-1.0)),
    ("expm1_cw_2026_09", bf16(89.5), bf16(-1.0)),
])
def test_hand_derived_values(name, x, expected, chip):
    assert run_bf16(name, chip, [x]) == [expected]


@pytest.mark.parametrize("chip", CHIPS)
def test_expm1_cw_returns_minus_one_from_89_where_expm1_is_infinite(chip):
    """The table's "not measurable (x>=89.5 returns -1 instead of inf)": k = round(x/ln 2) in
    [129, 184] for x in [89.5, 128], the field k + 127 wraps to k - 129 and 2^k to 2^(k-256) <=
    2^-72, so (2^k - 1) + 2^k h rounds to -1; 89.0 (k = 128, field 255) gives +inf. (Further
    up the wrapped 2^k grows again and x/ln 2 finally overflows: other wrong values.)"""
    finite_large = np.arange(bf16(89.5), bf16(128.0) + 1, dtype=np.uint32)
    assert set(run_bf16("expm1_cw_2026_09", chip, finite_large)) == {bf16(-1.0)}
    assert run_bf16("expm1_cw_2026_09", chip, [bf16(89.0)]) == [PLUS_INF]


ROWS = {"SqrtCustom": ("sqrt", "sqrt_custom_2026_09"),
        "Fmod": ("fmod_2", "fmod_2026_09"),
        "Remainder": ("remainder_2", "remainder_2026_09")}
CELLS = [(row, (c.input_format, c.output_format, c.dest)) for row in ROWS
         for c in device_table.read()[row]]


def _op(row: str) -> Op:
    function, kernel = ROWS.get(row, ("expm1", "expm1_cw_2026_09"))
    return Op(row, function, kernels={"No": kernel, "Yes": kernel}, golden="rne_fp32")


@pytest.mark.parametrize("row, cell", CELLS)
def test_predicts_the_tables_cells(row, cell):
    device = next(c for c in device_table.read()[row]
                  if (c.input_format, c.output_format, c.dest) == cell)
    assert cells.predict(_op(row), cell, "wormhole").max_ulp == device.max_ulp


@pytest.mark.parametrize("cell", [(c.input_format, c.output_format, c.dest)
                                  for c in device_table.read()["Expm1Cw"]])
def test_expm1_cw_cells_are_not_measurable(cell):
    """Every Expm1Cw cell has lanes where the kernel is finite (-1) and the golden +inf."""
    device = next(c for c in device_table.read()["Expm1Cw"]
                  if (c.input_format, c.output_format, c.dest) == cell)
    assert device.max_ulp is None
    assert cells.predict(_op("Expm1Cw"), cell, "wormhole").nonfinite > 0
