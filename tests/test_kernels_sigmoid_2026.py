"""The Sep-2026 sigmoid and silu kernels (kernels/sigmoid_2026.py) and the approximate sigmoid.

Where the figures come from:

* Spot values are derived by hand from the source's algorithm (kernels/sigmoid_2026.py):
  exp_21f's clamp of ``xlog2 = x/ln 2 + 127`` to [0, 255], ``1 + e``, the reciprocal (Wormhole:
  ``2**(254 - exponent)`` scale, so a denominator >= 2**126 gives a denormal, flushed; Blackhole:
  SFPARECIP gives 0 from 2**126 on), and ``convert<vFloat16b>(., Nearest)`` (-0 -> +0). The
  BF16 neighbours of the exact values are stated where a rounding is decided.
* The table's figures: ``sfpu_sim/data/sfpu_accuracy_budget_2026-09-30.csv`` (tt-llk's budget
  at tt-metal @01d9b424, measured on Wormhole), read through :mod:`sfpu_sim.parity.device_table`.
"""
from __future__ import annotations

import numpy as np
import pytest

import kernels.sigmoid_2026  # noqa: F401 (registers the kernels)
from kernels.sigmoid_2026 import exp_21f_unrounded
from sfpu_sim import formats, registry, ulp
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.parity import golden as goldens
from sfpu_sim.sfpi import dst_reg, trace
from sfpu_sim.sweeps import DevicePath, run_device

CHIPS = ("wormhole", "blackhole")
BF16_KERNELS = ("sigmoid_2026_09", "silu_2026_09")
FP32_KERNELS = ("sigmoid_fp32_2026_09", "silu_fp32_2026_09")
ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
CELLS = (("bf16", "bf16", "No"), ("bf16", "bf16", "Yes"), ("fp16", "fp16", "No"),
         ("fp16", "fp16", "Yes"), ("fp32", "fp32", "No"), ("fp32", "fp32", "Yes"))


def bf16(value: float) -> int:
    bits = int(formats.fp32_to_bits(np.float32(value)))
    assert bits & 0xFFFF == 0, value
    return bits >> 16


def fp32(value: float) -> int:
    return int(formats.fp32_to_bits(np.float32(value)))


def run_bf16(name: str, chip: str, inputs, dest: str = "bf16") -> list[int]:
    program = registry.get(name).program(chip)
    return [int(v) for v in run_device(program, np.asarray(inputs, dtype=np.uint16),
                                       DevicePath("bf16", "bf16", dest)).output]


def run_fp32(name: str, chip: str, inputs) -> list[int]:
    program = registry.get(name).program(chip)
    return [int(v) for v in run_device(program, np.asarray(inputs, dtype=np.uint32),
                                       DevicePath("fp32", "fp32", "fp32"),
                                       fp32_inputs=True).output]


# --- registration ------------------------------------------------------------------------------

@pytest.mark.parametrize("bf16_name, fp32_name", list(zip(BF16_KERNELS, FP32_KERNELS)))
def test_fp32_kernel_is_the_fp32_instantiation_of_the_bf16_one(bf16_name, fp32_name):
    instance = registry.for_dest(registry.get(bf16_name), "fp32")
    assert instance.spec.name == fp32_name
    assert registry.get(bf16_name).dest == "bf16" and instance.spec.dest == "fp32"


# --- (a) compiled engine = Machine -------------------------------------------------------------

# --- (b) hand-derived values -------------------------------------------------------------------

@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("x, expected", [
    # +-0: e = setexp(1.0017248, 127) = 1.0017248; 1/2.0017248 = 0.49957, nearer 0.5 (0x3F00)
    # than 0.49805 (0x3EFF)
    (0x0000, 0x3F00), (0x8000, 0x3F00),
    # +Inf and 100: xlog2 < 0 clamps to 0, e is a denormal pattern, 1 + e = 1 (inputs flushed)
    (0x7F80, 0x3F80), (bf16(100.0), 0x3F80),
    # 1: sigmoid = 0.731059, between 0.73047 (0x3F3B) and 0.73438; -2: 0.119203, between
    # 0.11914 (0x3DF4) and 0.11963
    (bf16(1.0), 0x3F3B), (bf16(-2.0), 0x3DF4),
    # -87.5: xlog2 = 253.24, 1 + e ~ 1.0e38 >= 2**126, its reciprocal is below 2**-126: 0
    (bf16(-87.5), 0x0000),
])
def test_sigmoid_bf16_values(chip, x, expected):
    assert run_bf16("sigmoid_2026_09", chip, [x]) == [expected]


def test_sigmoid_bf16_minus_inf_is_zero_on_wormhole_through_the_saturation_fix():
    # -x = +Inf: xlog2 clamps to 255, the exponent field is 255 -> e = +Inf (the fix), 1 + Inf =
    # Inf, whose exponent 255 gives the reciprocal a zero scale: +0
    assert run_bf16("sigmoid_2026_09", "wormhole", [0xFF80, bf16(-89.0)]) == [0x0000, 0x0000]


def _exp_21f_unrounded_kernel():
    dst_reg[0] = exp_21f_unrounded(dst_reg[0])


@pytest.mark.parametrize("chip, expected", [
    ("wormhole", 0x7F800000),             # the exponent-255 lane set to +Inf
    ("blackhole", 0x7F803885),            # setexp(1.0017248 = 0x3F803885, 255): a NaN pattern
])
def test_exp_21f_at_the_clamp_ceiling_per_chip(chip, expected):
    program = trace(_exp_21f_unrounded_kernel, chip)
    out = run_device(program, np.array([0x7F800000, fp32(89.0)], dtype=np.uint32),
                     DevicePath("fp32", "fp32", "fp32"), fp32_inputs=True).kernel_fp32
    assert [int(v) for v in out] == [expected, expected]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("x, expected", [
    # x * 0.5 = +-0, and the rounding gives +0
    (0x0000, 0x0000), (0x8000, 0x0000),
    # 1 * 0.731059 -> 0x3F3B; -2 * 0.119203 = -0.238406, between -0.23828 (0xBE74) and -0.23926
    (bf16(1.0), 0x3F3B), (bf16(-2.0), 0xBE74),
    # 100 * 1.0; +Inf * 1.0
    (bf16(100.0), 0x42C8), (0x7F80, 0x7F80),
    # -87.5 * 0 (the flushed reciprocal, above) = +0: the table's 790-step lane
    (bf16(-87.5), 0x0000),
])
def test_silu_bf16_values(chip, x, expected):
    assert run_bf16("silu_2026_09", chip, [x]) == [expected]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name, x, expected", [
    # exp_fp32_accurate(0) = 1 exactly (j = 0, f = 0); 1/2 = 0.5 (Wormhole: the two Newton steps
    # leave 1 - 1e-8 below the half-ulp of 1, so the normalised reciprocal rounds to 1)
    ("sigmoid_fp32_2026_09", 0x00000000, 0x3F000000),
    ("sigmoid_fp32_2026_09", 0x80000000, 0x3F000000),
    # exp(-100) underflows to 0 (e < 1), 1/1 = 1
    ("sigmoid_fp32_2026_09", fp32(100.0), 0x3F800000),
    # exp(87.5) ~ 1.0e38: 1 + e >= 2**126, the reciprocal flushes to 0
    ("sigmoid_fp32_2026_09", fp32(-87.5), 0x00000000),
    ("silu_fp32_2026_09", fp32(100.0), fp32(100.0)),
    # -87.5 * 0 + 0 (SFPMUL's +0 addend) = +0
    ("silu_fp32_2026_09", fp32(-87.5), 0x00000000),
])
def test_fp32_dst_values(chip, name, x, expected):
    assert run_fp32(name, chip, [x]) == [expected]


# --- what changed since Jan 2026 ---------------------------------------------------------------

@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("new, old", [("sigmoid_2026_09", "sigmoid"),
                                      ("silu_2026_09", "silu_2026_02")])
def test_bf16_kernels_give_the_bits_of_the_earlier_ones(chip, new, old):
    # The Wormhole saturation fix only touches x <= -88.72, where both forms give 0.
    np.testing.assert_array_equal(run_bf16(new, chip, ALL_BF16), run_bf16(old, chip, ALL_BF16))


def test_fp32_sigmoid_moves_only_nan_lanes_from_jan_2026_on_bf16_inputs():
    new = np.array(run_bf16("sigmoid_fp32_2026_09", "wormhole", ALL_BF16, "fp32"))
    old = np.array(run_bf16("sigmoid_fp32", "wormhole", ALL_BF16, "fp32"))
    differ = ALL_BF16[new != old]
    # The Juffa exp's Wormhole -NaN tail: only the 127 positive NaNs (0x7F81..0x7FFF, whose -x
    # is a negative NaN) move.
    np.testing.assert_array_equal(differ, np.arange(0x7F81, 0x8000))


# --- (c) the table's cells ---------------------------------------------------------------------

def _predicted(row: str, function: str, kernel: str, golden: str = "rne_fp32"):
    op = Op(row, function, {"No": kernel, "Yes": kernel}, golden=golden)
    return [cells.predict(op, cell, "wormhole").max_ulp for cell in CELLS]


def _device(row: str):
    return [cell.max_ulp for cell in device_table.read()[row]]


def test_sigmoid_accurate_predicts_all_six_cells():
    assert _predicted("Sigmoid(approx=No)", "sigmoid", "sigmoid_2026_09") == \
        _device("Sigmoid(approx=No)") == [1, 1, 7, 1, 65536, 2]


def test_sigmoid_approximate_is_sigmoid_approx_and_predicts_all_six_cells():
    assert _predicted("Sigmoid(approx=Yes)", "sigmoid", "sigmoid_approx") == \
        _device("Sigmoid(approx=Yes)")


def test_silu_predicts_five_cells_and_the_fp32_dst_one_is_one_step_over():
    predicted, device = _predicted("Silu", "silu", "silu_2026_09"), _device("Silu")
    assert predicted[:5] == device[:5] == [790, 790, 7, 1, 51707905]
    # FP32 Dst: x = -87.381218 (0xC2AEC32F) gives 0; the correctly rounded silu is 0x83A72087,
    # torch's FP32 x / (1 + exp(-x)) is 0x83A72086 (next test): one rank less.
    assert (predicted[5], device[5]) == (52895880, 52895879)


def test_silu_with_torchs_fp32_golden_predicts_all_six_cells():
    worst = goldens.golden("torch_silu_fp32", "silu", np.array([0xC2AEC32F], np.uint32),
                           "fp32", "fp32")
    assert [int(v) for v in worst] == [0x83A72086]
    assert _predicted("Silu", "silu", "silu_2026_09", "torch_silu_fp32") == _device("Silu")


def test_sigmoid_appx_row_differs_only_in_its_fp16_scoring():
    op = Op("SigmoidAppx", "sigmoid", {"No": "sigmoid_approx", "Yes": "sigmoid_approx"},
            fp16_subnormals_ranked=True)
    assert [cells.predict(op, cell, "wormhole").max_ulp for cell in CELLS] == \
        _device("SigmoidAppx")
    # SigmoidAppx runs the same program as Sigmoid(approx=Yes) (calculate_sigmoid_appx<32>):
    # five cells agree; at Float16 the worst lane is x = -2 -> +0 against 0.1192 (0x2FA1), 11,170
    # steps with the Float16 subnormal band collapsed, 0x2FA1 = 12,193 without (fp16's default
    # flush_subnormals=False in helpers/ulp.py, which this row's figure reflects).
    predicted = _predicted("SigmoidAppx", "sigmoid", "sigmoid_approx")
    device = _device("SigmoidAppx")
    assert [p for i, p in enumerate(predicted) if i not in (2, 3)] == \
        [d for i, d in enumerate(device) if i not in (2, 3)]
    assert (predicted[2], predicted[3], device[2], device[3]) == (11170, 11170, 12193, 12193)
    program = registry.get("sigmoid_approx").program("wormhole")
    x = np.array([bf16(-2.0)], dtype=np.uint16)
    x16 = formats.as_bits(np.array([-2.0], dtype=np.float16), "fp16")
    out = run_device(program, x16, DevicePath("fp16", "fp16", "bf16")).output
    gold = goldens.golden("rne_fp32", "sigmoid", x16, "fp16", "fp16")
    assert [int(out[0]), int(gold[0])] == [0x0000, 0x2FA1]
    raw = ulp.distance(gold, out, "daz-index", fmt="fp16", flush_subnormals=False)
    assert int(raw.distance[0]) == 12193
    assert run_bf16("sigmoid_approx", "wormhole", x) == [0x0000]
