"""The Sep-2026 power kernels (kernels/pow_2026.py): unary power x**2 on a BF16 Dst.

Where the figures come from:

* Engine agreement: the compiled engine against the Machine, every BF16 input, both chips.
* Spot values are derived by hand from the algorithm (exact squares, zeros, infinities, NaN).
* Table cells: tt-llk's measured table (sfpu_sim/data/sfpu_accuracy_budget_2026-09-30.csv,
  Wormhole), predicted through sfpu_sim.parity.cells with the harness's golden (torch.pow(t,
  2.0) on an FP32 tensor: the exact square rounded to FP32, kind rne_fp32).
"""
from __future__ import annotations

import numpy as np
import pytest

import kernels.pow_2026  # noqa: F401 (registers the kernels)
from sfpu_sim import registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
ALL_BF16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)
BF16_PATH = DevicePath("bf16", "bf16", "bf16")
UNARY_POWER = "unary_power_2026_09"


def program(name: str, chip: str):
    return registry.get(name).program(chip)


def run_bf16(name: str, chip: str, inputs) -> list[int]:
    x = np.asarray(inputs, dtype=np.uint16)
    return [int(v) for v in run_device(program(name, chip), x, BF16_PATH).output]


def test_unary_power_registration():
    spec = registry.get(UNARY_POWER)
    assert (spec.template, spec.function, spec.dest) == \
        ("calculate_unary_power", "square", "bf16")
    assert spec.params["is_fp32_dest_acc_en"] is False


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("x, expected", [
    # 1: m = 1, the cubic at 1 is ~0 and e = 0, so z ~ 0: 2**0 rounds to 1 exactly
    (0x3F80, 0x3F80),
    # exact squares within BF16's half step: 2 -> 4, 2.25 -> 5.0625, 9 -> 81
    (0x4000, 0x4080), (0x4010, 0x40A2), (0x4110, 0x42A2),
    # a negative base: p = 2 rounds to the even int16 2, so the sign is cleared: -3 -> 9
    (0xC040, 0x4110),
    # +-0: |b| == 0 and p > 0 give 0 (-0 passes the sign branch first, then is zeroed)
    (0x0000, 0x0000), (0x8000, 0x0000),
    # +-Inf: log2 saturates, 2**z with z >= 128 is INT32_MAX -> exponent 255: +Inf
    (0x7F80, 0x7F80), (0xFF80, 0x7F80),
    # 2**-95 squared is below 2**-127: z clamps to -127, the exponent field 0, BF16 rounding 0
    (0x1000, 0x0000),
])
def test_unary_power_special_values(chip, x, expected):
    assert run_bf16(UNARY_POWER, chip, [x]) == [expected]


@pytest.mark.parametrize("fmt", ["bf16", "fp16", "fp32"])
def test_unary_power_table_cells_16_bit_dst(fmt):
    """Wormhole row UnaryPower, dest No: 1 (bf16), 10 (fp16), 65536 (fp32 input truncated to
    BF16 and the result rounded to BF16)."""
    op = Op("UnaryPower", "square", kernels={"No": UNARY_POWER}, golden="rne_fp32")
    device = {(c.input_format, c.dest): c.max_ulp for c in device_table.read()["UnaryPower"]}
    assert cells.predict(op, (fmt, fmt, "No"), "wormhole").max_ulp == device[(fmt, "No")]
