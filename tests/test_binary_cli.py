"""The command line of binary kernels (issue 17, deliverable 4): ``sweep`` and ``eval`` take the
second operand (``--y``, ``--y-range``), ``report`` and the one-operand commands refuse binary
kernels, unary kernels refuse a second operand, ``kernels`` lists binary kernels.

Pins: the pair sweeps' maximum ULP, counts and worst (x, y) pairs; ``eval`` bit for bit; each
refusal's one line and exit status 2. Called in-process through ``sfpu_sim.cli.main``.
"""
from __future__ import annotations

import json

import pytest

from sfpu_sim.cli import main

ADD, MUL_RNE = "binary_add_2026_09", "binary_mul_rne_2026_09"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def sweep_json(capsys, *argv) -> dict:
    code, out, _ = run(capsys, "sweep", *argv, "--json")
    assert code == 0
    return json.loads(out)


def pair(row: dict) -> tuple[str, ...]:
    return row["x_bits"], row["y_bits"], row["output_bits"], row["expected_bits"], row["ulp"]


def test_sweep_against_fixed_y_pins_max_ulp_and_worst_pairs(capsys):
    """Every BF16 x against 1, -3 and 2**-8 (Blackhole add): the truncating SFPSTORE costs one
    step, first where x + 1 lies just above 1 (x = 2**-8 + 2**-15)."""
    s = sweep_json(capsys, ADD, "--arch", "blackhole", "--y", "1,-3,0x3b80")
    assert (s["count"], s["max_ulp"], s["exact_count"]) == (195075, 1, 179656)
    assert [(p["y_bits"], p["count"], p["max_ulp"]) for p in s["per_y"]] == [
        ("0x3f80", 65025, 1), ("0xc040", 65025, 1), ("0x3b80", 65025, 1)]
    assert s["second_operand"] == "y = 1, -3, 0x3b80 (3 values)"
    assert len(s["worst"]) == 20
    assert pair(s["worst"][0]) == ("0x3b81", "0x3f80", "0x3f80", "0x3f81", 1)
    assert s["worst"][0]["y"] == 1.0 and s["worst"][0]["x"] == 0.003936767578125


def test_sweep_terminal_view_names_the_pairs(capsys):
    code, out, _ = run(capsys, "sweep", ADD, "--arch", "blackhole", "--y", "1,-3,0x3b80")
    assert code == 0
    for text in ("binary_add_2026_09 on Blackhole A0: add (x + y)", "195,075",
                 "x: every BF16 pattern", "per second operand", "worst (x, y) pairs",
                 "0.0039367676 0x3b81", "1.0078125 0x3f81"):
        assert text in out, text


def test_sweep_over_a_y_range_with_x_limited(capsys):
    """mul_rne on Wormhole is exact for y in [1, 1.03125] (five patterns) and x in [-10, 10]."""
    s = sweep_json(capsys, MUL_RNE, "--arch", "wormhole", "--y-range", "1,1.03125",
                   "--range=-10,10")
    assert [p["y_bits"] for p in s["per_y"]] == ["0x3f80", "0x3f81", "0x3f82", "0x3f83",
                                                "0x3f84"]
    assert (s["count"], s["max_ulp"], s["worst"]) == (5 * 33091, 0, [])
    assert s["selection"]["text"] == "x in [-10, 10]"
    assert s["second_operand"] == "y: every BF16 pattern in [1, 1.03125] (5 values)"
    code, out, _ = run(capsys, "sweep", MUL_RNE, "--arch", "wormhole", "--y-range",
                       "1,1.03125", "--range=-10,10")
    assert code == 0 and "worst (x, y) pairs: none, every pair measured is exact" in out


def test_sweep_region_and_negative_y(capsys):
    """x in core_pos minus 3 on Wormhole: 320 inputs, 1 step where truncation bites."""
    s = sweep_json(capsys, "binary_sub_2026_09", "--arch", "wormhole", "--y=-3",
                   "--region", "core_pos")
    assert (s["count"], s["max_ulp"], s["exact_count"]) == (320, 1, 208)
    assert pair(s["worst"][0]) == ("0x3f03", "0xc040", "0x4060", "0x4061", 1)


def test_sweep_fp32_dst_runs_the_fp32_instantiation(capsys):
    s = sweep_json(capsys, MUL_RNE, "--arch", "wormhole", "--dest", "fp32", "--y", "3")
    assert s["kernel"] == "binary_mul_rne_fp32_2026_09" and s["dest"] == "fp32"
    assert (s["count"], s["max_ulp"]) == (65025, 1)
    assert pair(s["worst"][0]) == ("0x0083", "0x4040", "0x0145", "0x0144", 1)


def test_sweep_fp16_pairs(capsys):
    s = sweep_json(capsys, ADD, "--arch", "blackhole", "--in", "fp16", "--out-format", "fp16",
                   "--y-range=-1,-0.99")
    assert (len(s["per_y"]), s["count"], s["max_ulp"]) == (21, 1290261, 1)
    assert pair(s["worst"][0]) == ("0x0400", "0xbc00", "0xbbff", "0xbc00", 1)


def test_eval_one_y_for_every_x(capsys):
    code, out, _ = run(capsys, "eval", MUL_RNE, "--arch", "blackhole", "--y", "1.5", "--json",
                       "1.0078125", "0x8000", "--", "-2.5")
    assert code == 0
    data = json.loads(out)
    assert [(r["x_bits"], r["y_bits"], r["output_bits"], r["expected_bits"], r["ulp"])
            for r in data["results"]] == [("0x3f81", "0x3fc0", "0x3fc2", "0x3fc2", 0),
                                          ("0x8000", "0x3fc0", "0x0000", "0x8000", 0),
                                          ("0xc020", "0x3fc0", "0xc070", "0xc070", 0)]
    assert data["operands"] == "x at Dst address 0, y at 64"


def test_eval_one_y_per_x(capsys):
    code, out, _ = run(capsys, "eval", "binary_max_2026_09", "--arch", "wormhole", "1", "2",
                       "--y", "3,nan", "--json")
    rows = json.loads(out)["results"]
    assert code == 0
    assert [(r["y_bits"], r["output_bits"], r["lane_class"]) for r in rows] == [
        ("0x4040", "0x4040", "measurable"), ("0x7fc0", "0x7fc0", "nan_both")]
    code, out, _ = run(capsys, "eval", "binary_max_2026_09", "--arch", "wormhole", "1",
                       "--y", "3")
    assert code == 0 and "max(x, y)" in out and "0x4040" in out


ONE_OPERAND = ("binary_add_2026_09 is a binary kernel (two operands): this command runs "
               "one-operand programs; sweep and eval take it with --y")
REFUSALS = [
    (("sweep", "exp", "--arch", "wormhole", "--y", "1"),
     "exp takes one operand: --y VALUES, --y-range LO,HI or --harness-sample are for binary "
     "kernels (sfpu-sim kernels lists them)"),
    (("eval", "tanh", "--arch", "wormhole", "1", "--y", "1"),
     "tanh takes one operand: --y VALUES is for binary kernels (sfpu-sim kernels lists them)"),
    (("report", "exp", "--arch", "wormhole", "--y-range", "1,2"),
     "exp takes one operand: --y VALUES, --y-range LO,HI or --harness-sample are for binary "
     "kernels (sfpu-sim kernels lists them)"),
    (("sweep", ADD, "--arch", "wormhole"),
     "binary_add_2026_09 is a binary kernel (add: x + y): give the second operand with --y "
     "VALUES, --y-range LO,HI or --harness-sample"),
    (("eval", ADD, "--arch", "wormhole", "1"),
     "binary_add_2026_09 is a binary kernel (add: x + y): give the second operand with --y "
     "VALUES"),
    # Without --arch (both chips): refused before the first chip's heading is printed.
    (("eval", ADD, "1"),
     "binary_add_2026_09 is a binary kernel (add: x + y): give the second operand with --y "
     "VALUES"),
    (("sweep", ADD),
     "binary_add_2026_09 is a binary kernel (add: x + y): give the second operand with --y "
     "VALUES, --y-range LO,HI or --harness-sample"),
    (("eval", "tanh", "1", "--y", "1"),
     "tanh takes one operand: --y VALUES is for binary kernels (sfpu-sim kernels lists them)"),
    (("report", ADD, "--arch", "wormhole", "--y", "1", "--csv", "rows.csv"),
     "--csv: the accuracy harness's rows have one input: not for binary kernels (the report's "
     "JSON holds the pair summary)"),
    (("report", ADD, "--arch", "wormhole"),
     "binary_add_2026_09 is a binary kernel (add: x + y): give the second operand with --y "
     "VALUES, --y-range LO,HI or --harness-sample"),
    (("report", "--all", "--y", "1"),
     "--y, --y-range and --harness-sample go with one binary KERNEL, not --all"),
    (("eval", ADD, "--arch", "wormhole", "1", "2", "3", "--y", "1,2"),
     "--y 1,2: 2 values for 3 inputs X: give one y for every X, or one per X"),
    (("sweep", ADD, "--arch", "wormhole", "--y", "1", "--y-range", "1,2"),
     "give --y VALUES or --y-range LO,HI, not both"),
    (("sweep", ADD, "--arch", "wormhole", "--y-range", "1.001,1.002"),
     "--y-range 1.001,1.002: no BF16 value lies in [1.001, 1.002]"),
    (("sweep", ADD, "--arch", "wormhole", "--y-range", "2,1"),
     "--y-range '2,1': need LO <= HI, neither NaN"),
    (("sweep", ADD, "--arch", "wormhole", "--y", "1", "--in", "fp32"),
     "--in fp32: a binary sweep runs every 16-bit x (bf16, fp16) against each y; FP32 pairs go "
     "through eval (with --dest fp32)"),
    (("sweep", ADD, "--arch", "wormhole", "--y", "1", "--csv", "rows.csv"),
     "--csv: the accuracy harness's rows have one input: not for binary kernels (use --json)"),
    (("sweep", ADD, "--arch", "wormhole", "--y", "1", "--ulp", "fractional"),
     "--ulp fractional: binary sweeps measure daz-index ULP only so far"),
    (("sweep", ADD, "--arch", "wormhole", "--y", "1", "--range", "1e39,1e40"),
     "no x of population daz lies in x in [1e+39, 1e+40]"),
    (("trace", ADD, "--arch", "wormhole", "--x", "1"), ONE_OPERAND),
    (("locate", ADD, "--arch", "wormhole", "--worst", "1"), ONE_OPERAND),
    (("diff", ADD, "binary_sub_2026_09", "--arch", "wormhole"), ONE_OPERAND),
    (("budget", ADD), ONE_OPERAND),
    (("compare", f"{ADD}@wormhole", "tanh@wormhole"), ONE_OPERAND),
    (("determinism", ADD),
     "binary_add_2026_09 is a binary kernel (two operands): the comparison runs one-operand "
     "programs"),
]


@pytest.mark.parametrize("argv, message", REFUSALS, ids=[" ".join(a[:2]) + f"-{k}" for k, (a, _)
                                                         in enumerate(REFUSALS)])
def test_refusals_are_one_line_with_status_2(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert (code, out, err) == (2, "", f"sfpu-sim: error: {message}\n")


def test_kernels_lists_binary_kernels_as_two_operand(capsys):
    code, out, _ = run(capsys, "kernels")
    assert code == 0
    assert "35 binary (two-operand) kernels" in " ".join(out.split())
    assert out.count("(two ") == 35         # each binary row's function cell


def test_kernel_show_lists_a_binary_program(capsys):
    code, out, _ = run(capsys, "kernel", "show", "binary_max_2026_09", "--arch", "blackhole")
    assert code == 0 and "SFPSWAP" in out
