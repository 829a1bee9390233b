"""``sweep``/``report`` of a binary kernel with ``--harness-sample``: the accuracy driver's own
pairs for the kernel's row (sfpu_sim.parity.harness_sample), measured by
``pair_sweep.sweep_pair_list``.

The expectations are derived apart from the code under test: sub's Float16 lanes from the exact
difference (float64) truncated toward zero against its nearest-even rounding, and the summary
of arbitrary pairs from the device path, the reference and the ULP distance on every pair at
once, reduced with plain numpy.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from sfpu_sim import formats, registry, ulp
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.cli import main
from sfpu_sim.fp32sweep.pair_sweep import sweep_pair_list
from sfpu_sim.parity.binary_stimuli import UNIT, driver_sample
from sfpu_sim.parity.harness_sample import harness_sample
from sfpu_sim.reference.binary_functions import binary_reference
from sfpu_sim.sweeps import DevicePath


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize("arch", ["wormhole", "blackhole"])
def test_subs_float16_sample_loses_a_step_exactly_where_truncation_does(arch):
    """16-bit Dst: the FP32 difference of two Float16 values in [-1, 1] is exact, and the store
    to a Float16 Dst truncates it. So the pairs one step off are those whose exact difference,
    truncated toward zero, is not its nearest-even Float16, each one step off: 4,104 of the
    driver's 16,384."""
    x, y = driver_sample(UNIT, UNIT, "fp16")
    exact = x.view(np.float16).astype(np.float64) - y.view(np.float16).astype(np.float64)
    nearest = exact.astype(np.float16)
    truncated = nearest.copy()
    over = np.abs(nearest.astype(np.float64)) > np.abs(exact)
    truncated[over] = np.nextafter(nearest[over], np.float16(0))
    off = truncated != nearest
    assert off.sum() == 4104

    sample = harness_sample("binary_sub_2026_09", "fp16", "bf16")
    assert sample.row == "SfpuElwsub"
    assert np.array_equal(sample.x, x) and np.array_equal(sample.y, y)
    s = sweep_pair_list(registry.get("binary_sub_2026_09"), arch, sample.x, sample.y,
                        dest="bf16", input_format="fp16", output_format="fp16")
    assert s["ulp_histogram"] == [{"ulp": 0, "pairs": 16384 - 4104}, {"ulp": 1, "pairs": 4104}]
    assert np.array_equal(np.array(s["pairs"]["ulp"]) == 1, off)
    assert (s["count"], s["max_ulp"], s["exact_count"]) == (16384, 1, 16384 - 4104)
    first = np.flatnonzero(off)[0]
    assert s["worst"][0]["output_bits"] == f"{truncated[first].view(np.uint16):#06x}"


def test_given_pairs_give_the_brute_force_summary():
    """Any pairs, special values among them: count, maximum, exact sum, worst pairs (distance
    descending, then the order given) and every pair's distance, against plain numpy."""
    rng = np.random.default_rng(7)
    x = rng.integers(0, 1 << 16, 3000).astype(np.uint16)
    y = rng.integers(0, 1 << 16, 3000).astype(np.uint16)
    x[:6] = [0x7FC0, 0x0000, 0x8000, 0x7F80, 0x0001, 0x3F80]
    y[:6] = [0x3F80, 0x0000, 0x3F80, 0x7F80, 0x4000, 0x0000]
    spec = registry.get("binary_div_2026_09")
    run = run_binary_device(spec.program("wormhole"), x, y, DevicePath("bf16", "bf16", "bf16"))
    ref, _ = binary_reference("div", x, y, "rne")
    result = ulp.distance(ref, run.output, "daz-index", fmt="bf16")
    d = np.where(result.counted, result.distance, -1).astype(np.int64)
    wrong = [k for k in sorted(range(d.size), key=lambda k: (-d[k], k)) if d[k] > 0][:20]

    s = sweep_pair_list(spec, "wormhole", x, y)
    counted = d[d >= 0]
    assert (s["count"], s["max_ulp"], s["exact_count"]) == \
        (counted.size, counted.max(), (counted == 0).sum())
    assert s["mean_ulp"] == counted.sum() / counted.size
    assert s["pairs"]["ulp"] == d.tolist()
    assert [(w["x_bits"], w["y_bits"], w["ulp"]) for w in s["worst"]] == \
        [(f"{x[k]:#06x}", f"{y[k]:#06x}", d[k]) for k in wrong]
    assert sum(h["pairs"] for h in s["ulp_histogram"]) == counted.size


def test_sweep_json_carries_the_pairs_and_the_harness_figure(capsys):
    """add's Float16_b cell at a 16-bit Dst: the table's 1 (Wormhole) as the harness measures
    it, beside the sweep of the same 16,384 pairs; every pair's patterns in the JSON."""
    assert main(["sweep", "binary_add_2026_09", "--arch", "wormhole", "--harness-sample",
                 "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    x, y = driver_sample(UNIT, UNIT, "bf16")
    assert s["pairs"]["x_bits"] == x.astype(int).tolist()
    assert s["pairs"]["y_bits"] == y.astype(int).tolist()
    assert s["harness"] == {"row": "SfpuElwadd", "dest": "No", "max_ulp": 1, "lanes": 16384}
    assert s["operands"].startswith("SfpuElwadd's 16,384 pairs in Float16_b: the driver's own")
    assert s["per_y"] == [] and s["operand_options"] == "--harness-sample"


def test_crafted_and_tolerance_rows_and_float32_samples():
    """A crafted row gives its pairs; a tolerance row its log-uniform draw; Float32 the
    driver's 8,192 pairs through an FP32 Dst."""
    eq = harness_sample("binary_eq_2026_09", "bf16", "bf16")
    assert eq.row == "SfpuElwEq" and "crafted" in eq.text
    xlogy = harness_sample("binary_xlogy_2026_09", "bf16", "bf16")
    assert xlogy.row == "SfpuXlogy" and "log-uniform over [0.0001, 10]" in xlogy.text
    y = formats.bits_to_float64(xlogy.y, "bf16")
    assert xlogy.x.size == 16384 and y.min() >= 1e-4 * 0.99 and y.max() <= 10
    div = harness_sample("binary_div_fp32_2026_09", "fp32", "fp32")
    assert div.x.size == 8192 and div.x.dtype == np.uint32


def test_report_writes_the_sample_beside_a_y_report(tmp_path, capsys):
    out = tmp_path / "out"
    for extra in (["--harness-sample"], ["--y", "1"]):
        assert main(["report", "binary_mul_2026_09", "--arch", "blackhole", "--out", str(out),
                     *extra]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == [f"binary_mul_2026_09_blackhole_bf16_rne_{kind}.{ext}"
                     for kind in ("harness-pairs", "pairs") for ext in ("json", "md", "png")]
    md = (out / "binary_mul_2026_09_blackhole_bf16_rne_harness-pairs.md").read_text()
    assert "## Pairs per ULP" in md and "SfpuElwmul's 16,384 pairs" in md
    assert "Regenerate: `sfpu-sim report binary_mul_2026_09 --arch blackhole " \
           "--harness-sample`" in md


@pytest.mark.parametrize("args, message", [
    (["binop_scalar_add_2026_09"], "ScalarAdd's driver draws x alone"),
    (["binary_xlogy_minimax_2026_09"], "no binary row of Tenstorrent's accuracy table runs"),
    (["binary_atan2_2026_09", "--in", "fp16", "--out-format", "fp16"],
     "the driver runs SfpuAtan2 on Float16_b, Float32 only, not --in fp16"),
    (["binary_add_2026_09", "--in", "fp32"], "FP32 Dst only (add --dest fp32)"),
    (["binary_add_2026_09", "--y", "1"], "not with --y or --y-range"),
    (["binary_add_2026_09", "--exhaustive"], "--exhaustive: --harness-sample runs"),
    (["binary_add_2026_09", "--chunk", "65536"], "--chunk: --harness-sample runs"),
    (["tanh"], "--y VALUES, --y-range LO,HI or --harness-sample are for binary kernels"),
])
def test_what_the_sample_cannot_be_is_refused_in_one_line(args, message, capsys):
    assert main(["sweep", *args, "--arch", "wormhole", "--harness-sample"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
