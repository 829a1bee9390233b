"""Softsign, Hardmish, Round and Sign of Sep 2026 (kernels/elementwise_2026_b.py), the round
reference function, and the table cells they predict.

Special values are derived by hand from the kernels; table figures:
``sfpu_sim/data/sfpu_accuracy_budget_2026-09-30.csv`` (Wormhole).
"""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import formats, reference, registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table, golden
from sfpu_sim.reference import rounding_functions  # noqa: F401 (registers round)
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
ALL_BF16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)
NAN, PLUS_INF, MINUS_INF, MINUS_ZERO = 0x7FC0, 0x7F80, 0xFF80, 0x8000
# row -> (function, kernel (either Dst), golden kind)
ROWS = {
    "Softsign": ("softsign", "softsign_2026_09", "torch_softsign_dst_steps"),
    "Hardmish": ("hardmish", "hardmish_2026_09", "float64_hardmish"),
    "Round": ("round", "round_2026_09", "rne_fp32"),
    "Sign(-0.0 fixed #55306)": ("sign", "sign_2026_09", "rne_fp32"),
}
KERNELS = sorted(kernel for _, kernel, _ in ROWS.values())


def bf16(value: float) -> int:
    bits = int(formats.fp32_to_bits(np.float32(value)))
    assert bits & 0xFFFF == 0, value
    return bits >> 16


def run(name: str, chip: str, inputs) -> list[int]:
    spec = registry.get(name)
    out = run_device(spec.program(chip), np.asarray(inputs, dtype=np.uint16),
                     DevicePath("bf16", "bf16", spec.dest))
    return [int(v) for v in out.output]


@pytest.mark.parametrize("name", KERNELS)
def test_kernels_take_no_dst_parameter(name):
    spec = registry.get(name)
    assert "is_fp32_dest_acc_en" not in spec.params
    assert spec.params["APPROXIMATION_MODE"] is False


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("name, x, expected", [
    # 1/(1 + 1) = 0.5 and 1/(1 + 3) = 0.25 are exact: the reciprocal lands on them
    ("softsign_2026_09", bf16(1.0), bf16(0.5)), ("softsign_2026_09", bf16(-3.0), bf16(-0.75)),
    # 0x7e81 = 8.5735e37: 1/(1 + |x|) = 1.166e-38 is below 2**-126, flushed: 0, not 1
    ("softsign_2026_09", 0x7E81, 0x0000),
    # -1: scale 0.5; -0.5: scale 0.75, product -0.375; 0.5: scale 1.25 clamped to 1
    ("hardmish_2026_09", bf16(-1.0), bf16(-0.5)), ("hardmish_2026_09", bf16(-0.5),
                                                    bf16(-0.375)),
    ("hardmish_2026_09", bf16(0.5), bf16(0.5)),
    # -3: scale clamped to 0; -3 * 0 + 0 (the SFPMAD's addend) is +0
    ("hardmish_2026_09", bf16(-3.0), 0x0000),
    # ties to even through the 2**23 shifter; |x| >= 2**23 (exponent 23) passes through
    ("round_2026_09", bf16(2.5), bf16(2.0)), ("round_2026_09", bf16(3.5), bf16(4.0)),
    ("round_2026_09", bf16(-2.5), bf16(-2.0)), ("round_2026_09", bf16(-0.75), bf16(-1.0)),
    ("round_2026_09", bf16(1.5), bf16(2.0)), ("round_2026_09", bf16(2.0 ** 23 * 1.5),
                                              bf16(2.0 ** 23 * 1.5)),
    ("round_2026_09", PLUS_INF, PLUS_INF),
    ("sign_2026_09", bf16(-2.0), bf16(-1.0)), ("sign_2026_09", bf16(3.0), bf16(1.0)),
    ("sign_2026_09", 0x0000, 0x0000), ("sign_2026_09", MINUS_INF, bf16(-1.0)),
    # PR #55306: abs() before the zero test, so -0 gives 0 (the row's "-0.0 fixed")
    ("sign_2026_09", MINUS_ZERO, 0x0000),
])
def test_special_values(name, x, expected, chip):
    assert run(name, chip, [x]) == [expected]


def test_round_reference_is_nearest_even_on_every_finite_bf16():
    x = ALL_BF16[formats.is_finite(ALL_BF16, formats.BF16)]
    values = formats.bits_to_float64(x, "bf16")
    got = reference.reference("round", x, "rne", input_format="bf16",
                              output_format="fp32", daz=False, ftz=False).bits
    want = formats.fp32_to_bits(np.round(values).astype(np.float32))   # numpy: ties to even
    zero = values == 0.0                          # the zeros and -0.4 etc.: sign not compared
    np.testing.assert_array_equal(got[~zero] & np.uint32(0x7FFFFFFF),
                                  want[~zero] & np.uint32(0x7FFFFFFF))
    np.testing.assert_array_equal(np.sign(formats.bits_to_float64(got, "fp32")),
                                  np.sign(np.round(values)))


def test_round_has_a_series_form():
    from tests import test_design
    test_design.test_every_registry_function_has_a_series_form_enclosing_its_value("round")


@pytest.mark.parametrize("cell", device_table.CELLS, ids=lambda c: "-".join(c))
@pytest.mark.parametrize("row", sorted(ROWS))
def test_table_cell(row, cell):
    function, kernel, golden_kind = ROWS[row]
    op = Op(row, function, kernels={"No": kernel, "Yes": kernel}, golden=golden_kind)
    predicted = cells.predict(op, cell, "wormhole")
    device = device_table.read()[row][device_table.CELLS.index(cell)]
    assert predicted.nonfinite == 0
    assert predicted.max_ulp == device.max_ulp


def test_hardmish_fp32_cell_is_one_against_the_float64_golden_and_zero_against_torch_fp32():
    """The table's 1 needs the harness's float64 ``_torch_unary`` (one rounding): against
    ``t * clamp(0.5 t + 1, 0, 1)`` in torch FP32, the mid-2026 form, the kernel's two roundings
    (one SFPMAD, one SFPMUL) are exact on the whole FP32 walk."""
    x = cells.harness_fp32_walk()
    program = registry.get("hardmish_2026_09").program("wormhole")
    device = run_device(program, x, DevicePath("fp32", "fp32", "fp32"), fp32_inputs=True).output
    t = x.view(np.float32)
    with np.errstate(all="ignore"):
        scale = np.clip(np.float32(0.5) * t + np.float32(1.0), np.float32(0), np.float32(1))
        torch_fp32 = formats.ftz((t * scale).astype(np.float32).view(np.uint32), formats.FP32)
    float64 = formats.ftz(golden.float64_hardmish(x, "fp32", "fp32"), formats.FP32)
    assert cells._score(x, "fp32", device, torch_fp32, "fp32")[0] == 0
    assert cells._score(x, "fp32", device, float64, "fp32")[0] == 1
    cell = device_table.CELLS.index(("fp32", "fp32", "Yes"))
    assert device_table.read()["Hardmish"][cell].max_ulp == 1
