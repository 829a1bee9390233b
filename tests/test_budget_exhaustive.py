"""``budget --in Float32 --exhaustive``: the accuracy table's Float32 cells over every FP32 input
of a range, scored as the harness scores its strided walk (sfpu_sim.parity.exhaustive), and
``report --in fp32 --exhaustive --engine cuda`` reaching the FP32 sweep's jobs."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from sfpu_sim import engines, ops, registry
from sfpu_sim.cli import main
from sfpu_sim.fp32sweep.walk import Exhaustive
from sfpu_sim.parity import cells, device_table, exhaustive
from sfpu_sim.parity import golden as goldens

WH = "wormhole"
# 4,001 FP32 patterns around one point of the harness's walk, 0x3fbfbf3f (1.4980238...).
AROUND_1_5 = (1.4977854490280151, 1.4982622861862183)
RANGE_TEXT = "--range=1.4977854490280151,1.4982622861862183"


def _run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json_records(capsys, *ops_and_options):
    code, out, _ = _run(capsys, "budget", *ops_and_options, "--in", "Float32", "--exhaustive",
                        RANGE_TEXT, "--arch", WH, "--json")
    assert code == 0
    return {(r["row"], r["dest"]): r for r in map(json.loads, out.splitlines())}


def test_exhaustive_float32_maxima_over_a_range_are_pinned_beside_the_walk(capsys):
    records = _json_records(capsys, "Tanh", "Sqrt", "Silu")
    figures = {key: (r["max_ulp"], r["strided_max_ulp"]) for key, r in records.items()}
    assert figures == {("Tanh(approx=No)", "No"): (0, 0), ("Tanh(approx=No)", "Yes"): (1, 0),
                       ("Tanh(approx=Yes)", "No"): (131072, 131072),
                       ("Tanh(approx=Yes)", "Yes"): (121887, 121463),
                       ("Sqrt(approx=No)", "No"): (0, 0), ("Sqrt(approx=No)", "Yes"): (1, 0),
                       ("Sqrt(approx=Yes)", "No"): (0, 0),
                       ("Sqrt(approx=Yes)", "Yes"): (6769, 6759),
                       ("Silu", "No"): (0, 0), ("Silu", "Yes"): (2, 0)}
    worst = records[("Tanh(approx=Yes)", "Yes")]["worst"]
    assert worst["input_bits"] == "0x3fbfc70f"
    for r in records.values():
        assert r["max_ulp"] >= r["strided_max_ulp"]          # the walk is a subset
        assert r["measure"] == "exhaustive over [1.4977854490280151, 1.4982622861862183]"
        assert r["inputs"] == 4001 and r["strided_lanes"] == 1
        assert r["lanes"] == (4001 if r["dest"] == "Yes" else 1)   # one BF16 value in Dst


def test_an_exhaustive_record_has_the_table_keys_and_its_own(capsys):
    record = _json_records(capsys, "Sqrt")[("Sqrt(approx=Yes)", "Yes")]
    assert set(record) == {"op", "row", "approx", "in", "out", "dest", "arch",
                           "device_max_ulp", "device_text", "measure", "max_ulp", "lanes",
                           "inputs", "nonfinite_lanes", "worst", "floored_max_ulp",
                           "strided_max_ulp", "strided_lanes", "strided_floored_max_ulp",
                           "kernel", "golden", "near_zero_atol", "floor_budget", "provenance",
                           "tool"}
    assert (record["in"], record["out"], record["device_max_ulp"]) == ("Float32", "Float32",
                                                                       14751)
    assert record["kernel"]["name"] == "sqrt_approx_fp32_2026_09"


def test_the_walk_without_a_range_scores_as_predict_does():
    """The strided figure beside an exhaustive one is predict's own walk, scored by the same
    code: on the whole walk the two agree (here for a cell cheap to run)."""
    op = ops.ops()["Sqrt(approx=Yes)"]
    cell = device_table.read()["Sqrt(approx=Yes)"][5]
    program = registry.for_dest(registry.get(op.kernels["Yes"]), "fp32").spec.program(WH)
    walk = cells.harness_fp32_walk()
    merged, _ = exhaustive._score_chunks(op, program, lambda: [walk], "fp32", "Yes", cell)
    assert merged.top == cells.predict(op, ("fp32", "fp32", "Yes"), WH).max_ulp == 14751


def test_the_proven_fp32_reference_is_the_golden_where_it_stands_in_for_it():
    op = ops.ops()["Tanh(approx=No)"]
    x = Exhaustive(AROUND_1_5).patterns(0, 4001)
    x = np.concatenate([x, np.array([0, 0x80000000, 0x00000001, 0x7F800000, 0xFF800000,
                                     0x7FC00000, 0xC0000000, 0x42C80000], dtype=np.uint32)])
    fast = exhaustive._fast_golden(op, "fp32", "Yes")
    assert fast is not None and exhaustive._fast_golden(op, "fp32", "No") is None
    assert np.array_equal(fast(x), goldens.golden("rne_fp32", "tanh", x, "fp32", "fp32"))


def test_a_16_bit_dst_runs_each_bf16_value_once_inside_the_range():
    walk = Exhaustive((1.0, 1.5))
    lanes = exhaustive._dst16_lanes(walk)
    assert lanes[0] == 0x3F800000 and lanes[-1] == 0x3FC00000 and lanes.size == 65
    low = exhaustive._dst16_lanes(Exhaustive((-1.00001, 1.00001)))
    assert 0x3F800000 in low and 0xBF800000 in low               # both signs, zero's values
    assert exhaustive._dst16_lanes(Exhaustive(AROUND_1_5)).tolist() == [0x3FBFB76F]


def test_the_table_view_labels_the_exhaustive_column(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    code, out, _ = _run(capsys, "budget", "Silu", "Digamma", "--in", "Float32",
                        "--exhaustive", RANGE_TEXT, "--arch", WH)
    assert code == 0
    assert "exhaustive over [1.4977854490280151, 1.4982622861862183]" in out
    assert "strided" in out and "52895879" in out
    assert "not modelled: Digamma dest=No: " in out


@pytest.mark.parametrize("argv, message", [
    (["Tanh", "--exhaustive"], "budget --exhaustive measures the table's Float32 cells over "
                               "every FP32 input: give --in Float32"),
    (["tanh", "--exhaustive", "--in", "fp32"], "budget --exhaustive: name ops of the "
                                                "accuracy table (e.g. Tanh) or --all"),
    (["Tanh", "--exhaustive", "--in", "Float32", "--region", "near_zero"],
     "budget --exhaustive takes ops or --all, --arch, --range and --json"),
    (["Tanh", "--exhaustive", "--in", "Float32", "--range=2,1"], "--range '2,1': need LO"),
])
def test_budget_exhaustive_refusals_are_one_line(capsys, argv, message):
    code, out, err = _run(capsys, "budget", *argv)
    assert code == 2 and not out
    assert err.startswith(f"sfpu-sim: error: {message}"), err
    assert len(err.strip().splitlines()) == 1


def test_report_engine_cuda_reaches_the_fp32_sweeps_jobs(tmp_path, monkeypatch, capsys):
    """``report --in fp32 --exhaustive --engine cuda``: every chunk's Job carries the GPU
    engine (the chunks then run on the CPU here: the simulator is too slow to sweep)."""
    from sfpu_sim.fp32sweep import chunk, run

    seen, real = [], chunk.run_chunk

    def on_cpu(job, start, stop, total):
        seen.append(job.engine)
        return real(chunk.Job(**{**job.__dict__, "engine": "compiled"}), start, stop, total)

    monkeypatch.setattr(run.chunks, "run_chunk", on_cpu)
    try:
        code, _, err = _run(capsys, "report", "reciprocal_fp32", "--arch", "blackhole",
                            "--in", "fp32", "--exhaustive", "--range=1,1.0001", "--engine",
                            "cuda", "--files", "json", "--out", str(tmp_path / "out"),
                            "--state", str(tmp_path / "state.json"))
    finally:
        engines.set_engine(None)
    assert code == 0, err
    assert seen == ["cuda"]
    (written,) = (tmp_path / "out").iterdir()
    assert json.loads(written.read_text())["walk"]["patterns"] == 839


def test_report_engine_cuda_without_a_gpu_is_one_line_and_exit_2(tmp_path):
    environment = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    done = subprocess.run([sys.executable, "-m", "sfpu_sim", "report", "reciprocal_fp32",
                           "--arch", "blackhole", "--in", "fp32", "--exhaustive", "--engine",
                           "cuda", "--out", str(tmp_path / "out")], env=environment,
                          capture_output=True, text=True, timeout=120)
    if done.returncode == 0:
        pytest.skip("a GPU is present: --engine cuda runs")
    assert done.returncode == 2 and not (tmp_path / "out").exists()
    assert done.stderr.startswith("sfpu-sim: error: --engine cuda: ")
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.slow
def test_every_modelled_float32_cell_is_at_least_its_walk_over_a_range(capsys):
    """``budget --all --in Float32 --exhaustive`` over the range around a walk point, both
    chips: the exhaustive maximum is never below the walk's over the same inputs."""
    code, out, _ = _run(capsys, "budget", "--all", "--in", "Float32", "--exhaustive",
                        RANGE_TEXT, "--json")
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    measured = [r for r in records if "reason" not in r]
    assert len(measured) == 364 and all(r["measure"].startswith("exhaustive over") for r in
                                        records)
    for r in measured:
        assert r["strided_lanes"] <= 1 and r["inputs"] == 4001   # NaN lanes are not counted
        assert r["strided_max_ulp"] is None or r["max_ulp"] >= r["strided_max_ulp"], r["row"]
