"""The Sep-2026 acosh / asinh / atanh (BF16 Dst) and tan (BF16 and FP32 Dst) kernels
(kernels/inverse_hyperbolic_2026.py, kernels/tan_2026.py).

Hand-derived values follow the source's algorithm (module docstrings); the cell figures are
Tenstorrent's table (sfpu_accuracy_budget_2026-09-30.csv, Wormhole), predicted through the
op's cells with the harness's golden rounded to FP32 (torch fp32 for acosh, atanh, tan; math
for asinh: rne_fp32 either way).
"""
from __future__ import annotations

import numpy as np
import pytest

import kernels.inverse_hyperbolic_2026  # noqa: F401 (registers the kernels)
import kernels.tan_2026  # noqa: F401
from sfpu_sim import formats, registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.sweeps import DevicePath, run_device

CHIPS = ("wormhole", "blackhole")
BF16_KERNELS = ["acosh_2026_09", "asinh_2026_09", "atanh_2026_09", "tan_2026_09"]
PLUS_INF, MINUS_INF = 0x7F80, 0xFF80


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
def test_tan_fp32_compiled_engine_equals_machine_on_random_fp32_inputs(chip):
    program = registry.get("tan_fp32_2026_09").program(chip)
    x = np.random.default_rng(20260930).integers(0, 1 << 32, 4096, dtype=np.uint64)
    x = x.astype(np.uint32)
    path = DevicePath("fp32", "fp32", "fp32")
    compiled = run_device(program, x, path, fp32_inputs=True, engine="compiled")
    machine = run_device(program, x, path, fp32_inputs=True, engine="machine")
    np.testing.assert_array_equal(compiled.output, machine.output)
    np.testing.assert_array_equal(compiled.kernel_fp32, machine.kernel_fp32)


def test_tan_fp32_is_the_fp32_instantiation():
    instance = registry.for_dest(registry.get("tan_2026_09"), "fp32")
    assert instance.spec.name == "tan_fp32_2026_09"
    assert instance.spec.params == {"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True}


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name, x, expected", [
    # acosh: x == 1 -> +0; x < 1 (and -Inf) -> quiet NaN, which the BF16 rounding turns into
    # +Inf (SFP_STOCH_RND: a NaN becomes the Inf of its sign); +Inf: arg = Inf, log1p keeps it
    ("acosh_2026_09", bf16(1.0), 0x0000), ("acosh_2026_09", bf16(0.5), PLUS_INF),
    ("acosh_2026_09", 0x0000, PLUS_INF), ("acosh_2026_09", MINUS_INF, PLUS_INF),
    ("acosh_2026_09", PLUS_INF, PLUS_INF),
    # acosh(2): arg = 1 + sqrt(3) = 2.7320508 is stored to the BF16 Dst and truncated to
    # 2.71875; log1p(2.71875) = ln(3.71875) = 1.31340 rounds to 1.3125 (0x3FA8), one step
    # below the reference acosh(2) = 1.31696 -> 1.3203125: the Dst round trip's loss
    ("acosh_2026_09", bf16(2.0), 0x3FA8),
    # asinh: +-0 -> 0 * P = +-0, rounded to +0; |x| < 0.75 is |x| * P(x^2): asinh(0.5) =
    # 0.481212 -> 0.48046875 (0x3EF6) and its negative
    ("asinh_2026_09", 0x0000, 0x0000), ("asinh_2026_09", 0x8000, 0x0000),
    ("asinh_2026_09", bf16(0.5), 0x3EF6), ("asinh_2026_09", bf16(-0.5), 0xBEF6),
    # atanh: +-1 -> copysgn(Inf, x); |x| > 1 -> NaN -> +Inf after rounding; 0 -> 0
    ("atanh_2026_09", bf16(1.0), PLUS_INF), ("atanh_2026_09", bf16(-1.0), MINUS_INF),
    ("atanh_2026_09", bf16(2.0), PLUS_INF), ("atanh_2026_09", 0x0000, 0x0000),
    # tan: 0 -> j = 0, a = 0, r = 0; tan(1): j = round(2/pi) = 1 (odd quadrant), -1/r of
    # the reduced tan(1 - pi/2) = -0.642093 gives 1.5574 -> 1.5546875 (0x3FC7) after the
    # BF16 rounding (the reference 1.5574077 rounds there too)
    ("tan_2026_09", 0x0000, 0x0000), ("tan_2026_09", bf16(1.0), 0x3FC7),
    ("tan_2026_09", bf16(-1.0), 0xBFC7),
])
def test_hand_derived_values(name, x, expected, chip):
    assert run_bf16(name, chip, [x]) == [expected]


# row -> (function, kernels); the inverse hyperbolics have no FP32-Dst kernel registered yet
ROWS = {"Acosh": ("acosh", {"No": "acosh_2026_09"}),
        "Asinh": ("asinh", {"No": "asinh_2026_09"}),
        "Atanh": ("atanh", {"No": "atanh_2026_09"}),
        "Tan": ("tan", {"No": "tan_2026_09", "Yes": "tan_fp32_2026_09"})}
CELLS = [(row, (c.input_format, c.output_format, c.dest)) for row in ROWS
         for c in device_table.read()[row] if c.dest in ROWS[row][1]]


@pytest.mark.parametrize("row, cell", CELLS)
def test_predicts_the_tables_cells(row, cell):
    function, kernel_names = ROWS[row]
    op = Op(row, function, kernels=kernel_names, golden="rne_fp32")
    device = next(c for c in device_table.read()[row]
                  if (c.input_format, c.output_format, c.dest) == cell)
    assert cells.predict(op, cell, "wormhole").max_ulp == device.max_ulp
