"""FP32-Dst instantiations of the Sep-2026 GELU, GELU-derivative and mish kernels
(``gelu_fp32_2026_09``, ``gelu_derivative_fp32_2026_09``: kernels/gelu_2026.py;
``mish_fp32_2026_09``: kernels/mish_2026.py).

Where the figures come from:

* Spot values are derived by hand from the source's algorithm (the module docstrings); they are
  run through an FP32 Dst with FP32 input and output, so nothing rounds after the kernel.
* The table cells are Tenstorrent's measured figures (``sfpu_sim.parity.device_table``, the
  2026-09-30 accuracy table, Wormhole, dest Yes), predicted as the harness scores them
  (:func:`sfpu_sim.parity.cells.predict`).
* The Wormhole reciprocal-seed pins are this emulator's measurements (regression pins).
"""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import formats, registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.sfpi import trace, vConstFloatPrgm0, vConstFloatPrgm1, vConstFloatPrgm2
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
BF16_OF_ALL = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
FP32_PATH = DevicePath("fp32", "fp32", "fp32")
PLUS_INF, MINUS_INF, PLUS_NAN = 0x7F800000, 0xFF800000, 0x7FC00000


def fp32(value: float) -> int:
    return int(formats.fp32_to_bits(np.float32(value)))


def run_fp32(name: str, chip: str, inputs) -> list[int]:
    program = registry.get(name).program(chip)
    out = run_device(program, np.asarray(inputs, dtype=np.uint32), FP32_PATH,
                     fp32_inputs=True).output
    return [int(v) for v in out]


def is_nan(bits: int) -> bool:
    return (bits >> 23) & 0xFF == 0xFF and bits & 0x7FFFFF != 0


# --- registration ------------------------------------------------------------------------------

@pytest.mark.parametrize("name, bf16_name, template", [
    ("gelu_fp32_2026_09", "gelu_2026_09", "calculate_gelu"),
    ("gelu_derivative_fp32_2026_09", "gelu_derivative_2026_09",
     "calculate_gelu_derivative_polynomial"),
    ("mish_fp32_2026_09", "mish_2026_09", "calculate_mish"),
])
def test_fp32_dst_instantiation_is_what_the_bf16_kernel_runs_with_an_fp32_dst(
        name, bf16_name, template):
    spec = registry.get(name)
    assert (spec.chips, spec.dest, spec.mode, spec.template) == (BOTH, "fp32", "accurate",
                                                                template)
    assert spec.params == {"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True}
    assert registry.for_dest(registry.get(bf16_name), "fp32").spec.name == name
    assert registry.for_dest(spec, "bf16").spec.name == bf16_name


# --- (a) the compiled engine equals the Machine ------------------------------------------------

# --- (b) hand-derived values -------------------------------------------------------------------

@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("x, expected", [
    # +-0: erf = (rational * s) * 1/D = +-0, result = x * 0.5, a zero product plus the +0 of
    # SFPMAD's multiply: +0 on both chips
    (0x00000000, 0x00000000), (0x80000000, 0x00000000),
    # x <= -5.54259443 (0xC0B15CEF itself, -6, -Inf) fail x > GELU_SAT: the default 0
    (0xC0B15CEF, 0x00000000), (fp32(-6.0), 0x00000000), (MINUS_INF, 0x00000000),
    # the float above the saturation, x = 0xC0B15CEE: erf(x/sqrt 2) = -(1 - 5.96e-8), whose
    # nearest floats are -1 and -(1 - 2**-24); either way 0.5 + 0.5 erf = 2**-25 (directly, or
    # by the erf == -1 guard x * 2**-25): x with its exponent lowered by 25 (129 -> 104)
    (0xC0B15CEE, 0xB4315CEE),
    # +Inf: s = min(Inf, 10) = 10, a finite erf near 1 (next test), so a positive factor:
    # Inf * (0.5 + 0.5 erf) = +Inf
    (PLUS_INF, PLUS_INF),
])
def test_gelu_fp32_values(chip, x, expected):
    assert run_fp32("gelu_fp32_2026_09", chip, [x]) == [expected]


def test_gelu_fp32_rational_is_one_where_the_argument_is_capped():
    """At the cap s = 10 the rational's exact value (float64 from the registered coefficients)
    is 1 + 2.9e-8: 1 to FP32 precision, so the cap keeps erf(huge) = 1 up to rounding."""
    from kernels.gelu_2026 import GELU_ERF_DEN_EVEN, GELU_ERF_NUM_ODD
    s = 10.0
    numer = sum(c * s ** (2 * k + 1) for k, c in enumerate(GELU_ERF_NUM_ODD))
    denom = sum(c * s ** (2 * k) for k, c in enumerate(GELU_ERF_DEN_EVEN))
    assert 1.0 < numer / denom < 1.0 + 2.0 ** -25


@pytest.mark.parametrize("chip", BOTH)
def test_gelu_fp32_nan_is_nan(chip):
    """+NaN passes x > GELU_SAT (the difference's NaN is positive), min(NaN, 10) takes 10
    (SFPSWAP orders by sign-magnitude), and x * (...) is a NaN."""
    assert is_nan(run_fp32("gelu_fp32_2026_09", chip, [PLUS_NAN])[0])


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("x, expected", [
    # x = +-0: u = 0, h = H0, 0.5 + x*h = 0.5 exactly
    (0x00000000, fp32(0.5)), (0x80000000, fp32(0.5)),
    # x >= 3.1719 (and +Inf): 1
    (fp32(3.1719), fp32(1.0)), (fp32(4.0), fp32(1.0)), (PLUS_INF, fp32(1.0)),
    # x <= -13.375 (and -Inf): the default 0
    (fp32(-13.375), 0x00000000), (fp32(-20.0), 0x00000000), (MINUS_INF, 0x00000000),
])
def test_gelu_derivative_fp32_values(chip, x, expected):
    assert run_fp32("gelu_derivative_fp32_2026_09", chip, [x]) == [expected]


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("x, expected", [
    # x = +0: the Juffa exp gives u = 1 exactly (j = 0, f = 0, r = 1, exponent 127), and any
    # quotient times +0 is +0 (Blackhole takes x * (1 - 2 inv) for x >= 0, also +0)
    (0x00000000, 0x00000000),
    # x >= 8 (and +Inf) keep x
    (fp32(8.0), fp32(8.0)), (fp32(100.0), fp32(100.0)), (PLUS_INF, PLUS_INF),
    # x = -100: u underflows to +0 (biased exponent 127 + round(-100/ln 2) = -17 < 1), so
    # numer = 0 and x * (0 * inv) is the -0 product plus SFPMAD's +0: +0
    (fp32(-100.0), 0x00000000),
])
def test_mish_fp32_values(chip, x, expected):
    assert run_fp32("mish_fp32_2026_09", chip, [x]) == [expected]


@pytest.mark.parametrize("chip", BOTH)
def test_mish_fp32_minus_inf_is_nan(chip):
    """-Inf: the exp's guarded tail gives +0 (source comment: -Inf -> +0), so the result is
    -Inf * 0, a NaN; the harness cannot score that lane (its golden is -0)."""
    assert is_nan(run_fp32("mish_fp32_2026_09", chip, [MINUS_INF])[0])


# --- (c) the table's cells (Wormhole, dest Yes) ------------------------------------------------

OPS = {
    "Gelu(approx=No)": Op("Gelu(approx=No)", "gelu", golden="torch_gelu_fp32",
                          kernels={"No": "gelu_2026_09", "Yes": "gelu_fp32_2026_09"}),
    "GeluDerivative(approx=No)": Op(
        "GeluDerivative(approx=No)", "gelu_derivative", golden="float64_gelu_derivative",
        kernels={"No": "gelu_derivative_2026_09", "Yes": "gelu_derivative_fp32_2026_09"}),
    # the harness's golden is torch's FP32 mish; rne_fp32 stands in (module docstring of
    # sfpu_sim.parity.golden): every worst lane below is a flushed tail, far beyond one step
    "Mish": Op("Mish", "mish", kernels={"No": "mish_2026_09", "Yes": "mish_fp32_2026_09"}),
}


def device_figure(row: str, fmt: str) -> int:
    (cell,) = [c for c in device_table.read()[row] if c.input_format == fmt and c.dest == "Yes"]
    return cell.max_ulp


@pytest.mark.parametrize("row, fmt, figure", [
    # 213: the raw whole-format maximum, at x = -5.4375, where 1 + erf cancels: torch's FP32
    # erf is -(1 - 2**-24), golden x * 2**-25 (0xB42E); the rational's is -(1 - 3 * 2**-24),
    # two FP32 steps above, so the kernel gives exactly 3x the golden (0xB5028000, 0xB503
    # after the packer)
    ("Gelu(approx=No)", "bf16", 213),
    ("Gelu(approx=No)", "fp16", 6),
    ("Gelu(approx=No)", "fp32", 8388608),       # a factor of 2 (one binade) in the tail
    ("GeluDerivative(approx=No)", "bf16", 3),
    ("GeluDerivative(approx=No)", "fp16", 8),
    ("GeluDerivative(approx=No)", "fp32", 211763),
    ("Mish", "bf16", 790),                      # x = -87.5: exp underflows, the golden does not
    ("Mish", "fp16", 1),
    ("Mish", "fp32", 52895880),
])
def test_table_cell_dest_yes(row, fmt, figure):
    prediction = cells.predict(OPS[row], (fmt, fmt, "Yes"), "wormhole")
    assert prediction.kernel == OPS[row].kernels["Yes"]
    assert prediction.nonfinite == 0
    assert figure == device_figure(row, fmt)
    assert prediction.max_ulp == figure


@pytest.mark.parametrize("chip", BOTH)
def test_gelu_fp32_worst_bf16_lane_is_three_times_the_golden(chip):
    """x = -5.4375 (the 213 above): the kernel's FP32 result is exactly 3 * x * 2**-25."""
    run = run_device(registry.get("gelu_fp32_2026_09").program(chip),
                     np.array([0xC0AE], dtype=np.uint16), DevicePath("bf16", "bf16", "fp32"))
    assert int(run.kernel_fp32[0]) == fp32(3 * -5.4375 * 2.0 ** -25) == 0xB5028000
    prediction = cells.predict(OPS["Gelu(approx=No)"], ("bf16", "bf16", "Yes"), chip)
    assert (prediction.worst["input_bits"], prediction.worst["output_bits"],
            prediction.worst["golden_bits"]) == ("0xc0ae", "0xb503", "0xb42e")


# --- the Wormhole reciprocal seed -------------------------------------------------------------

def refit_seed():
    """The Wormhole reciprocal seed of two undated stored ckernel_sfpu_recip.h revisions (index
    ids 70302691577, 70080189142), as in tests/test_kernels_2026_09_b.py."""
    vConstFloatPrgm0.assign(0.32133400440216064453125)
    vConstFloatPrgm1.assign(1.4514148235321044921875)
    vConstFloatPrgm2.assign(2.1200883388519287109375)


def test_wormhole_gelu_fp32_shows_the_reciprocal_seed_in_8_bf16_outputs():
    """Two Newton steps still leave the seed in the last FP32 bit of some quotients: with the
    refit seed 8 of the 65,536 BF16-path outputs move (pinned from this emulator), none of them
    the worst lane, so the table's 213 cannot tell the seeds apart."""
    from kernels.gelu_2026 import gelu_fp32
    path = DevicePath("bf16", "bf16", "fp32")
    registered = run_device(registry.get("gelu_fp32_2026_09").program("wormhole"),
                            BF16_OF_ALL, path).output
    refit = run_device(trace(gelu_fp32, "wormhole", init=refit_seed), BF16_OF_ALL, path).output
    moved = np.flatnonzero(registered != refit)
    assert moved.size == 8
    assert 0xC0AE not in moved
