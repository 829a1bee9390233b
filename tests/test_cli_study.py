"""``sfpu-sim study gelu``: the study's modes, its JSON, and one-line errors.

Expected figures are the study's published ones (github.com/ivoitovych/bf16_gelu_research: its
README.md / CLAUDE.md and source comments at 90e9ff1) or derived by hand, as noted.
"""
from __future__ import annotations

import json

import pytest

from sfpu_sim.cli import main

IDS = ["B1", "B1v2", "R1", "R2", "R3", "R4", "R5", "A1-poly7", "A1-poly9", "B3", "C1"]
KEYS = {"mean_ulp", "max_ulp", "worst_input", "p50", "p90", "p99", "regions"}


def _json(capsys, *argv) -> dict:
    assert main(["study", "gelu", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_analyze_json_has_the_studys_table(capsys):
    data = _json(capsys)
    assert set(data) >= {"count", "convention", "methods"}
    assert data["count"] == 65280 and list(data["methods"]) == IDS
    assert data["convention"]["reference"] == "study"
    for method in data["methods"].values():
        assert KEYS <= set(method)
        assert set(method["regions"]) == {"near_zero", "core_pos", "core_neg", "tail_pos",
                                          "tail_neg"}
    r4 = data["methods"]["R4"]                               # published: 0.6126, 9904, P99 0
    assert (f"{r4['mean_ulp']:.4f}", r4["max_ulp"], r4["p99"], r4["worst_input"]) == \
        ("0.6126", 9904, 0, -8.375)


def test_analyze_terminal_table(capsys):
    assert main(["study", "gelu", "--methods", "R4", "C1"]) == 0
    out = capsys.readouterr().out
    assert "0.6126" in out and "9,904" in out and "-8.375 (0xc106)" in out


def test_reference_option_selects_the_correctly_rounded_gelu(capsys):
    data = _json(capsys, "--reference", "correct", "--methods", "C1")
    assert data["convention"]["reference"] == "correct" and list(data["methods"]) == ["C1"]


def test_diagnose_at_the_shared_maximum(capsys):
    """C1 at -8.375 (published max 9904 there) and at 3 (x >= 3 returns x: 0 ULP)."""
    data = _json(capsys, "--diagnose", "--x=-8.375,3", "--methods", "C1")
    rows = data["methods"]["C1"]
    assert [(r["input_bits"], r["ulp"]) for r in rows] == [("0xc106", 9904), ("0x4040", 0)]


def test_reference_mode_shows_the_cancelled_phi_at_minus_8(capsys):
    """The study's Phi(-8) is the cancelled 11 * 2^-54 (derived by hand from its double
    reference, gelu_implementations.cpp @90e9ff1)."""
    data = _json(capsys, "--reference")
    row = next(r for r in data["points"] if r["x"] == -8.0)
    assert row["study_phi"] == 11 * 2.0 ** -54


def test_saturation_finds_the_studys_thresholds(capsys):
    """The study's source comments: bf16(GELU(-9)) = -0 (so x <= -9 -> 0) and x >= 3 -> x with
    an error of 0.26 ULP at 3. Correctly rounded, GELU(-13) ~ phi(13) = 8e-38 is a BF16 value
    and GELU(-14) ~ phi(14) = 1.1e-43 is below half the smallest denormal (2^-134 = 4.6e-41),
    so the first integer that rounds to 0 is -14."""
    data = _json(capsys, "--saturation", "--methods", "C1")
    assert data["recommended"] == {"study_negative": -9, "correct_negative": -14,
                                   "positive": 3}
    three = next(r for r in data["positive"] if r["x"] == 3)
    assert f"{three['error_ulps']:.2f}" == "0.26"
    assert {b["at"] for b in data["thresholds"]} == {3.0, -3.0, -3.5, -8.5, -9.0}


def test_calibrate_prints_the_tail_table(capsys):
    """The study's tail-table constants (gelu_implementations.cpp @90e9ff1) are its
    --calibrate prints."""
    data = _json(capsys, "--calibrate")
    printed = [r["printed"] for r in data["points"][:10]]
    assert printed == ["-8.14202e-04", "-1.26685e-04", "-1.52895e-05", "-1.43326e-06",
                       "-1.04443e-07", "-5.91953e-09", "-2.61040e-10", "-8.95867e-12",
                       "-2.39392e-13", "-4.88498e-15"]


def test_device_analysis_names_the_chip(capsys):
    data = _json(capsys, "--arch", "blackhole", "--methods", "A1-poly7")
    assert data["count"] == 65280 and data["convention"]["arch"] == "blackhole"
    assert "gelu_study_* kernels on blackhole" in data["convention"]["arithmetic"]


def test_regression_json_has_the_50_points_and_the_verdicts(capsys):
    """README.md @7399a13: "50 adversarial test points"; C1's only failure is the shared
    9904 at -8.375 (tests/test_study_gelu_validation.py pins the rest)."""
    data = _json(capsys, "--regression", "--methods", "C1", "R5")
    assert data["count"] == 50 and data["max_allowed_ulp"] == 100
    c1 = data["methods"]["C1"]
    assert (c1["max_ulp"], c1["failures"], c1["passed"]) == (9904, 1, False)
    assert data["methods"]["R5"]["max_ulp"] == 12747


def test_derivative_terminal_prints_g4_and_the_sign_change(capsys):
    assert main(["study", "gelu", "--derivative"]) == 0
    out = capsys.readouterr().out
    assert "-0.023071" in out and "1.11e-02" in out and "x = -0.7518" in out


def test_verify_knots_terminal_prints_the_stored_values(capsys):
    assert main(["study", "gelu", "--verify-knots"]) == 0
    out = capsys.readouterr().out
    assert "-0.00404970" in out and "6.12e-09" in out and "-0.0015258789" in out
    assert "14.11" in out


@pytest.mark.parametrize("argv, message", [
    (["--derivative", "--methods", "C1"],
     "--methods does not apply to --derivative (G4 is its one method)"),
    (["--verify-knots", "--methods", "R4"], "--methods does not apply to --verify-knots"),
    (["--all", "--regression"], "choose one mode, not --regression and --all"),
])
def test_new_modes_refuse_options_that_do_not_apply(capsys, argv, message):
    assert main(["study", "gelu", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_all_runs_every_mode_in_the_studys_order(capsys):
    """The tool's main @90e9ff1 runs, under --all: reference, verify-knots, saturation,
    calibrate, diagnose, regression, derivative, analyze."""
    data = _json(capsys, "--all", "--methods", "C1")
    assert list(data) == ["reference", "verify_knots", "saturation", "calibrate", "diagnose",
                          "regression", "derivative", "analyze"]
    assert list(data["analyze"]["methods"]) == ["C1"] and data["regression"]["count"] == 50


@pytest.mark.parametrize("argv, message", [
    (["--methods", "B2"], "unknown GELU study method 'B2'"),
    (["--diagnose", "--x", "abc"], "--diagnose 'abc': not a number"),
    (["--reference", "exact"], "--reference 'exact': choose study or correct"),
    (["--saturation", "--calibrate"], "choose one mode"),
    (["--store-truncates"], "--store-truncates applies to the device kernels"),
])
def test_bad_input_is_one_line_without_traceback(capsys, argv, message):
    # In this process, as the modes' refusals above (each was a fresh process, 1.5 s of
    # start-up apiece): a traceback would be an exception out of main.
    assert main(["study", "gelu", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
