"""The tolerance-gated binary rows (sfpu_sim.parity.tolerance_rows): SfpuXlogy and SfpuElwpow
under the harness's gate, on its own stimuli, through ``budget --check``.

Device facts these tests hold the emulation to (tt-metal ``test_eltwise_binary_sfpu.py``, index
ids 58031140234 and 60795090218, the comments beside the tolerances): the gate passes on the
device for every cell the rows cover (the tolerances were set from passing runs); xlogy's
Float16_b worst |error| over x <= 8 is 0.50, "output quantization rather than the kernel: at
|golden| ~ 72 a bfloat16 ULP is already 0.5".
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sfpu_sim import formats
from sfpu_sim.cli import main
from sfpu_sim.parity.binary_stimuli import IntervalDraw, driver_sample
from sfpu_sim.parity.tolerance_rows import CELLS, harness_golden, tolerance_cell
from sfpu_sim.sweeps import DevicePath

ROWS = Path(__file__).parent / "data" / "budget_tolerance_rows.yaml"


def test_the_draws_reach_the_registered_domains():
    """xlogy: x uniform over [0, 8] (one draw, clamped), y log-uniform over [1e-4, 10] (the
    interval sampler: two draws a value, no clamp); pow's base from the interval sampler over
    [1e-6, 8]: 16,384 pairs in BF16, 8,192 in FP32, every value inside its interval."""
    x, y = driver_sample(((0.0, 8.0),), IntervalDraw(((1e-4, 10.0),), log=True), "bf16")
    xs, ys = (formats.bits_to_float64(v, "bf16") for v in (x, y))
    assert x.size == 16384 and 0 <= xs.min() and xs.max() <= 8
    assert 1e-4 <= ys.min() < 1.1e-4 and 9 < ys.max() <= 10
    assert 0.01 < np.median(ys) < 0.1                      # log-uniform: median near 0.03
    base, power = driver_sample(IntervalDraw(((1e-6, 8.0),)), ((0.0, 4.0),), "fp32")
    values = formats.bits_to_float64(base, "fp32")
    assert base.size == 8192 and 1e-6 <= values.min() and values.max() <= 8


def test_the_golden_is_rounded_to_the_dst_then_the_input_format():
    """BinarySFPUGolden: float32 x * log(y), then the Dst's format (BF16 for a 16-bit Dst),
    then the input format, then the output's: 7.375 * ln(1.1015e-4) = -67.19... is -67.0 in
    BF16 whichever output format is asked for."""
    x = formats.round_values(np.array([7.375]), "rne", "bf16")
    y = formats.round_values(np.array([1.1014938354492188e-4]), "rne", "bf16")
    for out in ("bf16", "fp32"):
        golden = harness_golden("xlogy", x, y, DevicePath("bf16", out, "bf16"))
        assert golden.tolist() == [-67.0]


@pytest.mark.parametrize("arch", ("wormhole", "blackhole"))
def test_every_cell_passes_the_gate_as_on_the_device(arch):
    tolerances = {"SfpuXlogy": {"Float32": (0.14, None), "Float16_b": (0.6, None),
                                "Float16": (0.12, None)},
                  "SfpuElwpow": dict.fromkeys(("Float32", "Float16_b", "Float16"),
                                              (None, 0.15))}
    for op, by_output in tolerances.items():
        for fmt_in, fmt_out, dest in CELLS:
            cell = tolerance_cell(op, fmt_in, fmt_out, dest, arch, *by_output[fmt_out])
            assert cell.passes and cell.failing == 0 and cell.pcc > 0.99, (op, cell.cell)


def test_xlogys_bfloat16_worst_error_is_the_devices_half_step():
    cell = tolerance_cell("SfpuXlogy", "Float16_b", "Float16_b", "Yes", "blackhole", 0.6, None)
    assert cell.max_error == 0.5 and abs(cell.worst["golden"]) > 64


def test_budget_check_reads_the_tolerance_rows_and_fails_a_tightened_one(tmp_path, capsys):
    assert main(["budget", "--check", str(ROWS)]) == 0
    out = capsys.readouterr().out
    assert out.count("within budget: ") == 6 and "over budget:" not in out
    assert "6 rows, 6 checked (30 cells), 0 over budget" in out
    tight = tmp_path / "tight.yaml"
    tight.write_text("SfpuXlogy:\n  - {out: Float32, metric: tolerance, atol: 0.01, rtol: 0}\n")
    assert main(["budget", "--check", str(tight)]) == 1
    line = next(v for v in capsys.readouterr().out.splitlines() if v.startswith("over"))
    assert line.startswith("over budget: SfpuXlogy {out: Float32} (line 2): fails tolerance "
                           "in 6 cell(s) (atol 0.01, rtol 0)")
