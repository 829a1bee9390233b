"""``sfpu-sim fit --target device``: coefficients whose kernel is correctly rounded to BF16 on
the emulated chips (:mod:`sfpu_sim.design.device_fit`, :mod:`sfpu_sim.design.rounding_lp`).

The figures pinned are what the search computed; each success is re-checked by sweeping the
emitted kernel file on its own, and each infeasibility by an independent Farkas certificate in
Fractions over the conflicting inputs the run reports.
"""
from __future__ import annotations

import json
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from sfpu_sim import registry
from sfpu_sim.cli import main
from sfpu_sim.design import rounding_lp
from sfpu_sim.design.device_fit import fit_device, rounding_intervals
from sfpu_sim.design.interval import parse_interval
from sfpu_sim.selection import Selection
from sfpu_sim.sweeps import sweep

EXP_SIXTEENTH = ["fit", "exp", "--interval", "0,1/16", "--target", "device"]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def swept(path, name: str, chip: str, low: float, high: float) -> tuple[int, int, int]:
    """(max ULP, exact, counted) of a kernel file's kernel, swept on its own."""
    spec = registry.load_isolated(path)[name]
    result = sweep(spec, chip, selection=Selection((low, high)))
    arrays = result.arrays
    return (result.summary["max_ulp"], int(((arrays["distance"] == 0) & arrays["counted"]).sum()),
            result.summary["count"])


def assert_no_polynomial_fits(inputs: list, powers: tuple) -> None:
    """An independent check of a proof: weights y >= 0 with sum y_i s_i x_i**k = 0 for every
    power and sum y_i s_i end_i < 0 (s_i = +1 for "at most", -1 for "at least") make
    ``s_i p(x_i) <= s_i end_i`` impossible for every p on ``powers`` (Farkas). With one more
    input than powers, y is the null vector of the rows, found by exact elimination."""
    signed = [(1 if row["bound"] == "at most" else -1, Fraction(row["x"]), Fraction(row["end"]))
              for row in inputs]
    assert len(signed) == len(powers) + 1
    matrix = [[s * x ** k for s, x, _ in signed] for k in powers]       # len(powers) x n+1
    columns = len(signed)
    pivots, row = [], 0
    for column in range(columns):
        found = next((r for r in range(row, len(matrix)) if matrix[r][column] != 0), None)
        if found is None:
            continue
        matrix[row], matrix[found] = matrix[found], matrix[row]
        matrix[row] = [v / matrix[row][column] for v in matrix[row]]
        for r in range(len(matrix)):
            if r != row and matrix[r][column] != 0:
                factor = matrix[r][column]
                matrix[r] = [a - factor * b for a, b in zip(matrix[r], matrix[row])]
        pivots.append(column)
        row += 1
    free = next(c for c in range(columns) if c not in pivots)
    weights = [Fraction(0)] * columns
    weights[free] = Fraction(1)
    for r, column in enumerate(pivots):
        weights[column] = -matrix[r][free]
    if any(w < 0 for w in weights):
        weights = [-w for w in weights]
    assert all(w >= 0 for w in weights)
    assert sum(w * s * end for w, (s, _, end) in zip(weights, signed)) < 0


# ------------------------------------------------------------------------------------------
# The linear program and the rounding intervals
# ------------------------------------------------------------------------------------------

def test_rounding_lp_finds_the_best_line_through_three_intervals_exactly():
    # y = x**2 at x = 1, 2, 3 within +-1: the best line is 4x - 7/2 (Chebyshev: the
    # residuals 1/2, -1/2, 1/2), so the margin is 1 - 1/2.
    x = np.array([1.0, 2.0, 3.0])
    intervals = SimpleNamespace(x=x, low=x ** 2 - 1, high=x ** 2 + 1, unit=np.ones(3),
                                margin_weights=np.ones(6))
    program = rounding_lp.PolynomialProgram(intervals, (0, 1), rounding_lp.Branch({}, {}),
                                            np.zeros(6), {0: Fraction(1), 1: Fraction(1)})
    solution = program.solve()
    assert solution.margin == Fraction(1, 2)
    assert solution.coefficients == (Fraction(-7, 2), Fraction(4))
    assert all(w >= 0 for w in solution.weights) and sum(solution.weights) == 1


def test_rounding_intervals_are_the_fp32_values_the_final_rounding_takes_to_the_reference():
    exp = rounding_intervals("exp", parse_interval("0,1/16"))
    assert exp.count == 15618 and exp.range == (0.0, 0.0625)
    assert exp.x[0] == 0 and exp.expected.bits[0] == 0x3F80
    # 1.0: from the midpoint below (a tie goes away from zero, to 1) to the last FP32 number
    # before the midpoint above; the margin unit is an FP32 ulp of 1.
    assert np.float32(exp.low[0]).view(np.uint32) == 0x3F7F8000
    assert np.float32(exp.high[0]).view(np.uint32) == 0x3F807FFF
    assert exp.unit[0] == 2.0 ** -23
    tanh = rounding_intervals("tanh", parse_interval("0,1/4"))
    assert tanh.x[0] == 0 and tanh.x[1] == 2.0 ** -126
    # tanh(0) = 0: every FP32 denormal rounds to +0; tanh(2**-126) = 2**-126: nothing below
    # it does (flushed to zero), and that end needs no margin.
    assert tanh.high[0] == -tanh.low[0] == 2.0 ** -126 - 2.0 ** -149
    assert tanh.low[1] == 2.0 ** -126 and tanh.margin_weights[tanh.count + 1] == 0
    assert tanh.margin_weights.sum() == 2 * tanh.count - 1


# ------------------------------------------------------------------------------------------
# Searches
# ------------------------------------------------------------------------------------------

def test_exp_degree_2_on_a_sixteenth_is_correctly_rounded_on_both_chips(capsys, isolated,
                                                                        tmp_path):
    kernel = tmp_path / "exp2.py"
    code, out, err = run(capsys, *EXP_SIXTEENTH, "--degree", "2", "--json", "--emit",
                         str(kernel))
    assert code == 0, err
    document = json.loads(out)
    device = document["device"]
    assert document["coefficient_bits"] == ["0x3F7FFEA1", "0x3F80BD63", "0x3EC8B719"]
    assert device["status"] == "correctly rounded" and device["rounds"] == 1
    assert device["inputs"] == 15618 and device["range"] == [0.0, 0.0625]
    assert device["lp_margin_fp32_ulps"] == 64.06560773483429
    assert device["margin_fp32_ulps"] == 64.06552307121456
    assert {chip: (row["max_ulp"], row["exact"], row["counted"], row["instructions"])
            for chip, row in device["chips"].items()} == {
        "wormhole": (0, 15618, 15618, 12), "blackhole": (0, 15618, 15618, 11)}
    assert device["infeasibility_proof"] == []
    text = kernel.read_text()
    assert "float_to_fp16b(y, 0)" in text and "--target device" in text
    for chip in ("wormhole", "blackhole"):
        assert swept(kernel, "exp2", chip, 0.0, 0.0625) == (0, 15618, 15618)


def test_exp_degree_1_on_a_sixteenth_is_infeasible_with_three_conflicting_inputs(capsys):
    code, out, err = run(capsys, *EXP_SIXTEENTH, "--degree", "1", "--json")
    assert code == 1, err
    device = json.loads(out)["device"]
    assert device["status"] == "infeasible" and device["lp_margin_fp32_ulps"] == -752.059633027523
    (proof,) = device["infeasibility_proof"]
    assert proof["assumption"] == "real coefficients" and proof["minimal"] is True
    assert [(row["x_bits"], row["expected_bits"], row["bound"], row["end_bits"])
            for row in proof["inputs"]] == [
        ("0x3B80", "0x3F81", "at least", "0x3F808000"),
        ("0x3C9E", "0x3F82", "at most", "0x3F827FFF"),
        ("0x3D6A", "0x3F88", "at least", "0x3F878000")]
    assert_no_polynomial_fits(proof["inputs"], (0, 1))
    # The best the LP can do still runs and is measured (the least violating line).
    assert {chip: (row["max_ulp"], row["exact"]) for chip, row in device["chips"].items()} == {
        "wormhole": (1, 15610), "blackhole": (1, 15610)}


def test_bf16_coefficients_that_round_out_of_every_interval_are_not_found():
    result = fit_device("exp", "0,log(2)", degree=3, formats="bf16")
    assert result.status == "not found" and not result.correctly_rounded
    assert result.rounds == 4 and result.proof == ()
    assert float(result.lp_margin) > 0 > result.margin == -1217.6591796875
    assert result.fit.bits() == ("0x3F80", "0x3F80", "0x3EFB", "0x3E5A")
    assert {chip: (row["max_ulp"], row["exact"]) for chip, row in result.chips.items()} == {
        "wormhole": (1, 16047), "blackhole": (1, 16047)}


# ------------------------------------------------------------------------------------------
# Refusals
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    (["--sweep"], "--sweep: --target device always sweeps"),
    (["--range", "0,0.5"], "--range: --target device fits every BF16 input"),
    (["--weight", "exp(-x)"], "--weight: --target device measures BF16 ULPs"),
    (["--error", "relative"], "--error relative and --backend sollya do not apply"),
    (["--backend", "sollya"], "--error relative and --backend sollya do not apply"),
    (["--name", "k"], "--name names the emitted kernel: give --emit FILE.py"),
    (["--dest", "fp16"], "--dest: expected bf16 or fp32, got 'fp16'"),
])
def test_options_that_make_no_sense_for_the_device_target_are_refused(capsys, tmp_path,
                                                                      options, message):
    kernel = tmp_path / "k.py"
    extra = [] if "--name" in options else ["--emit", str(kernel)]
    code, out, err = run(capsys, *EXP_SIXTEENTH, "--degree", "1", *options, *extra)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
    assert not kernel.exists()


@pytest.mark.parametrize("interval, options, message", [
    ("88,89", ["--powers", "1"], "--target device: exp(89) rounds to infinity in BF16"),
    ("1,1.03", ["--degree", "5"], "6 coefficients need at least 7 nonzero inputs on one side"),
    ("1.001,1.002", ["--degree", "1"], "--interval 1.001,1.002: no BF16 input lies in it"),
])
def test_device_fits_that_cannot_be_set_up_are_refused_in_one_line(capsys, interval, options,
                                                                    message):
    code, out, err = run(capsys, "fit", "exp", "--interval", interval, "--target", "device",
                         *options)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


# ------------------------------------------------------------------------------------------
# The cases (slow: a few seconds each)
# ------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_exp_on_0_ln2_is_correctly_rounded_at_degree_3_and_no_lower(tmp_path, isolated):
    found = fit_device("exp", "0,log(2)", degree=3)
    assert found.status == "correctly rounded" and found.rounds == 1
    assert found.fit.bits() == ("0x3F7FFF7C", "0x3F804483", "0x3EF4FDF7", "0x3E688054")
    assert found.inputs == 16051 and float(found.lp_margin) == 63.87345088109086
    assert {chip: (row["max_ulp"], row["exact"]) for chip, row in found.chips.items()} == {
        "wormhole": (0, 16051), "blackhole": (0, 16051)}
    # Degree 2 (so every lower degree, its special case) has no correctly rounded polynomial.
    lower = fit_device("exp", "0,log(2)", degree=2)
    assert lower.status == "infeasible" and float(lower.lp_margin) == -17652.496159060553
    (proof,) = lower.proof
    assert proof["minimal"] and [row["x_bits"] for row in proof["inputs"]] == [
        "0x3B7F", "0x3E1F", "0x3F0A", "0x3F30"]
    assert_no_polynomial_fits(proof["inputs"], (0, 1, 2))


@pytest.mark.slow
def test_tanh_on_0_1_is_correctly_rounded_at_degree_6_and_no_lower():
    found = fit_device("tanh", "0,1", degree=6)
    assert found.status == "correctly rounded" and found.inputs == 16130
    assert found.fit.bits() == ("0x00000000", "0x3F8007DC", "0xBBACB057", "0xBE98B0DC",
                                "0xBDC8BFF4", "0x3E883ED1", "0xBDD3D10C")
    assert {chip: (row["max_ulp"], row["exact"]) for chip, row in found.chips.items()} == {
        "wormhole": (0, 16130), "blackhole": (0, 16130)}
    # Degree 5: real coefficients fit (with c0 = 4.8e-41, a denormal the SFPU reads as 0), but
    # no FP32 c0 does: 0, at least 2**-126, at most -2**-126 each conflict.
    lower = fit_device("tanh", "0,1", degree=5)
    assert lower.status == "infeasible" and float(lower.lp_margin) == 263.4551741352804
    assert [(case["assumption"], case["lp_margin_fp32_ulps"], case["minimal"])
            for case in lower.proof] == [
        ("c0 = 0", -55.470762189950015, True),
        ("c0 >= 2^-126", -5552337.208877284, True),
        ("c0 <= -2^-126", -16678912.999999998, True)]
    first = lower.proof[0]["inputs"]
    assert [row["x_bits"] for row in first] == ["0x0080", "0x3DB9", "0x3E28", "0x3F07",
                                                "0x3F57", "0x3F7A"]
    assert_no_polynomial_fits(first, (1, 2, 3, 4, 5))


@pytest.mark.slow
def test_tanh_on_0_1_with_odd_powers_needs_degree_9():
    found = fit_device("tanh", "0,1", degree=9, parity="odd")
    assert found.status == "correctly rounded"
    assert found.fit.bits() == ("0x3F800000", "0xBEAB6740", "0x3E147806", "0xBD9B9C89",
                                "0x3CE69E15")
    assert all(row["max_ulp"] == 0 for row in found.chips.values())
    lower = fit_device("tanh", "0,1", degree=7, parity="odd")
    assert lower.status == "infeasible" and float(lower.lp_margin) == -56.895751301447554
    assert_no_polynomial_fits(lower.proof[0]["inputs"], (1, 3, 5, 7))
