"""The Sep-2026 tanhshrink kernels (kernels/tanhshrink_2026.py) and their reference function
(sfpu_sim/reference/shrink_functions.py).

Where the figures come from:

* Spot values are derived by hand from the source's algorithm: the ``|x| > 1`` cut, the BF16
  path's degree-3 ``Q`` and tanh fit, ``min(p, 1)``, ``convert<vFloat16b>(., Nearest)`` (ties
  away; -0 -> +0; NaN -> the Inf of its sign), and, for the FP32 Dst, the SFPMAD chain replayed
  in exact rational arithmetic with one rounding to FP32 per SFPMAD.
* The table's cells: ``sfpu_accuracy_budget_2026-09-30.csv`` (Wormhole), row Tanhshrink:
  6085(tol), 6085(tol), 12, 1, 398721025(tol), 749082690(tol). The harness's golden is
  ``x - math.tanh(x)`` in Python floats (goldens.md), built here as the op table's golden kind
  ``float64_tanhshrink`` will be.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import kernels.tanhshrink_2026 as tanhshrink_kernels
from sfpu_sim import formats, reference, registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.parity import golden as goldens
from sfpu_sim.sweeps import DevicePath, run_device

ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)

BOTH = ("wormhole", "blackhole")
BF16_KERNEL, FP32_KERNEL = "tanhshrink_2026_09", "tanhshrink_fp32_2026_09"
PLUS_INF, MINUS_INF, PLUS_NAN = 0x7F80, 0xFF80, 0x7FC0


def bf16(value: float) -> int:
    out = int(formats.fp32_to_bits(np.float32(value)))
    assert out & 0xFFFF == 0, value
    return out >> 16


def run(name: str, chip: str, inputs) -> list[int]:
    """The kernel's FP32 result (the value it stores to Dst) for BF16 inputs."""
    dest = registry.get(name).dest
    program = registry.get(name).program(chip)
    result = run_device(program, np.asarray(inputs, dtype=np.uint16),
                        DevicePath("bf16", "fp32", dest))
    return [int(v) for v in result.kernel_fp32]


def test_registered_as_the_harness_calls_them():
    bf, fp = registry.get(BF16_KERNEL), registry.get(FP32_KERNEL)
    assert (bf.template, bf.params, bf.dest, bf.function, bf.chips) == (
        "calculate_tanhshrink", {"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
        "bf16", "tanhshrink", BOTH)
    assert (fp.template, fp.params, fp.dest, fp.instance_of) == (
        "calculate_tanhshrink", {"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
        "fp32", BF16_KERNEL)


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("x, expected", [
    # +-0: x*u*Q = +-0, and the SFPMAD's +0 addend makes -0 * Q + 0 = +0
    (0x0000, 0x0000), (0x8000, 0x0000),
    # +-Inf: p(Inf) = Inf, min(p, 1) = 1, +-Inf -+ 1 = +-Inf
    (PLUS_INF, PLUS_INF), (MINUS_INF, MINUS_INF),
    # NaN: the small path's NaN; the BF16 rounding makes it +Inf
    (PLUS_NAN, PLUS_INF),
    # x = 0.5: u = 1/4, Q = 0.3030781, (1/8) Q = 0.0378848 = 2**-5 + 27.18 * 2**-12 -> 0x3D1B
    # (mpmath 0.0378828 rounds the same)
    (bf16(0.5), 0x3D1B),
    # x = 2: p(2) = 0.9665048, 2 - p = 1.0334952 = 1 + 4.29 * 2**-7 -> 0x3F84, one step below
    # the correctly rounded 0x3F85 (tanhshrink(2) = 1.0359724 = 1 + 4.60 * 2**-7)
    (bf16(2.0), 0x3F84),
    # x = -3: p(3) = 0.9932894, -3 + p = -2.0067106 = -(2 + 0.43 * 2**-6) -> -2 (0xC000)
    (bf16(-3.0), 0xC000),
    # x = 9: the fit exceeds 1 beyond 3.12, so tanh is taken as 1: 8 exactly
    (bf16(9.0), bf16(8.0)),
])
def test_bf16_dst_hand_derived_values(x, expected, chip):
    assert run(BF16_KERNEL, chip, [x]) == [expected << 16]


def _fp32(q: Fraction) -> Fraction:
    """``q`` rounded to nearest even FP32 (normal range): one SFPMAD's rounding."""
    if q == 0:
        return q
    exponent = math.floor(math.log2(abs(q)))
    while Fraction(2) ** exponent > abs(q):
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= abs(q):
        exponent += 1
    step = Fraction(2) ** (exponent - 23)
    return round(q / step) * step                 # Fraction's round: half to even


def _f(value: float) -> Fraction:
    """A C++ float literal's value."""
    return Fraction(float(np.float32(value)))


def _small_path_fp32(x: Fraction) -> Fraction:
    """``(x*u)*Q(u)`` with ``u = x*x``, Horner from the top, each SFPMAD rounded once."""
    u = _fp32(x * x)
    coefficients = [_f(c) for c in tanhshrink_kernels.SMALL_Q_FP32]
    q = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        q = _fp32(q * u + c)
    return _fp32(_fp32(x * u) * q)


def _bits(value: Fraction) -> int:
    return int(formats.fp32_to_bits(np.float32(float(value))))


@pytest.mark.parametrize("chip", BOTH)
def test_fp32_dst_small_path_is_the_rounded_sfpmad_chain(chip):
    """|x| <= 1: eight SFPMADs, replayed exactly; x = 1 is still on the small path (the cut is
    ``|x| > 1``)."""
    xs = [0.5, -0.5, 0.75, 1.0, 0.0078125, -0.3125]
    expected = [_bits(_small_path_fp32(Fraction(x))) for x in xs]
    assert run(FP32_KERNEL, chip, [bf16(x) for x in xs]) == expected
    assert expected[0] == 0x3D1B2B0A


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("x, expected", [
    (0x0000, 0x00000000), (0x8000, 0x00000000),
    # +-Inf: min(Inf, 9) = 9 keeps the exp finite; |x| - tanh = Inf; copysgn
    (PLUS_INF, 0x7F800000), (MINUS_INF, 0xFF800000),
    # x = 9 and 10: a = 9, e = exp(-18) = 1.5e-8 < 2**-24, so 1 + e rounds to 1 and tanh is
    # within a few 2**-24 of 1; |x| - tanh rounds to |x| - 1 exactly (a step at 8 is 2**-20)
    (bf16(9.0), 0x41000000), (bf16(10.0), 0x41100000), (bf16(-10.0), 0xC1100000),
])
def test_fp32_dst_hand_derived_values(x, expected, chip):
    assert run(FP32_KERNEL, chip, [x]) == [expected]


@pytest.mark.parametrize("chip, expected", [("wormhole", 0x7F800001), ("blackhole", 0x7FC00000)])
def test_fp32_dst_nan_is_each_chips_nan(chip, expected):
    """A NaN fails ``|x| > 1`` and keeps the small path's product: Wormhole's SFPMAD NaN has
    mantissa 1 (the exp header's -NaN note), Blackhole's is canonical."""
    assert run(FP32_KERNEL, chip, [PLUS_NAN]) == [expected]


def test_bf16_dst_is_the_same_on_both_chips_but_for_negative_nans():
    """No per-chip code on the BF16 path: every input agrees except the 127 negative NaNs,
    whose product keeps its sign on Wormhole (-Inf after the rounding) and becomes the
    canonical +NaN on Blackhole (+Inf)."""
    wormhole, blackhole = (np.array(run(BF16_KERNEL, chip, ALL_BF16)) for chip in BOTH)
    differ = ALL_BF16[wormhole != blackhole]
    assert differ.tolist() == list(range(0xFF81, 0x10000))
    assert set(wormhole[differ].tolist()) == {0xFF800000}
    assert set(blackhole[differ].tolist()) == {0x7F800000}


# --- the table's cells --------------------------------------------------------------------

def _tanhshrink_float64(x: float) -> float:
    return x - math.tanh(x)


# The golden kind the op table needs (goldens.md: Tanhshrink -> ``x - math.tanh(x)``, F64).
FLOAT64_TANHSHRINK = goldens._python_float_golden(_tanhshrink_float64, (-math.inf, math.inf))
TABLE_CELLS = [("bf16", "bf16", "No"), ("bf16", "bf16", "Yes"), ("fp16", "fp16", "No"),
               ("fp16", "fp16", "Yes"), ("fp32", "fp32", "No"), ("fp32", "fp32", "Yes")]


@pytest.fixture
def tanhshrink_op(monkeypatch):
    if "float64_tanhshrink" not in goldens.FORMULAS:
        monkeypatch.setitem(goldens.FORMULAS, "float64_tanhshrink", FLOAT64_TANHSHRINK)
    return Op("Tanhshrink", "tanhshrink", kernels={"No": BF16_KERNEL, "Yes": BF16_KERNEL},
              golden="float64_tanhshrink")


@pytest.mark.parametrize("cell", TABLE_CELLS)
def test_wormhole_cells_equal_the_table(tanhshrink_op, cell):
    device = {(c.input_format, c.output_format, c.dest): c
              for c in device_table.read()["Tanhshrink"]}
    predicted = cells.predict(tanhshrink_op, cell, "wormhole")
    assert predicted.max_ulp == device[cell].max_ulp


def test_bf16_figure_is_the_golden_cancelling_to_zero(tanhshrink_op):
    """6085: at x = 0x32A9 (1.97e-8) math.tanh(x) == x in float64, so the golden is 0, while the
    kernel's x**3 Q gives 2.53e-24 (0x1844), rank 0x1844 - 127 = 6085 above 0."""
    worst = cells.predict(tanhshrink_op, ("bf16", "bf16", "No"), "wormhole").worst
    x = worst["input"]
    assert (worst["input_bits"], worst["output_bits"], worst["golden_bits"]) == \
        ("0x32a9", "0x1844", "0x0000")
    assert math.tanh(x) == x and 0x1844 - 127 == 6085


def test_fp16_dst_no_figure_is_the_degree_3_tanh_fit(tanhshrink_op):
    """12 FP16 steps at x = 1.00390625, just past the cut: p(x) is 0.0015 above tanh(x) there and
    the result is rounded to BF16 before the 16-bit Dst holds it as FP16."""
    worst = cells.predict(tanhshrink_op, ("fp16", "fp16", "No"), "wormhole").worst
    assert (worst["input_bits"], worst["output_bits"], worst["golden_bits"]) == \
        ("0x3c04", "0x33a8", "0x33b4")


# --- the reference function ---------------------------------------------------------------

@pytest.mark.parametrize("x, expected", [
    # mpmath at 200 bits: 1 - tanh(1) = 0.2384058440442351119, 2 - tanh(2) = 1.0359724199241831
    (1.0, 0x3E7420A9), (2.0, 0x3F849ABF),
    (2.0 ** -20, None),
])
def test_reference_values(x, expected):
    bits = int(formats.fp32_to_bits(np.float32(x)))
    got = int(reference.reference("tanhshrink", np.array([bits], dtype=np.uint32), "rne",
                                  input_format="fp32", output_format="fp32").bits[0])
    if expected is None:                        # x**3/3 (1 - x**2 2/5 ...): far from a tie
        expected = _bits(_fp32(Fraction(x) ** 3 / 3))
    assert got == expected


def test_reference_certifies_the_saturated_tail():
    """Between 2**53 and 2**64 tanhshrink(x) is within 2 e**(-2x) of the 64-bit number x - 1;
    only the anchor at exactly x - 1 (an int there) settles it: every BF16 input certifies."""
    x = formats.bits_to_float64(ALL_BF16, "bf16")
    big = ALL_BF16[np.isfinite(x) & (np.abs(x) >= 2.0 ** 53)]
    bits = reference.reference("tanhshrink", big, "rne", input_format="bf16",
                               output_format="bf16", cache=False).bits     # certified afresh
    np.testing.assert_array_equal(bits, big)                    # rounds back to x itself
