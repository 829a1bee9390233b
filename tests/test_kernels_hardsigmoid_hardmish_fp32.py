"""Hardsigmoid's and Hardmish's Float32 cells with an FP32 Dst, against the harness's goldens.

Hardsigmoid (device 43): the FP32-Dst program is the one modelled (``hardsigmoid_2026_09``):
the Sep-2026 ``calculate_activation<APPROX, Hardsigmoid, ITERATIONS, is_fp32_dest_acc_en>``
that the harness calls (tenstorrent/tt-metal WH ``ckernel_sfpu_activations.h``, index id
70554482057) branches only for a BF16 Dst (``!is_fp32_dest_acc_en && !APPROX && ITERATIONS ==
32`` and a BF16 SrcB: the generated ``calculate_hardsigmoid_bf16``); with an FP32 Dst it runs
the same ``_relu_max_body_(x * Prgm0 + Prgm1, 1)`` loop as the revision without the parameter
(id 54771630599), and ``hardsigmoid_bf16_tile_init<false>`` does nothing. The 299 came from the
golden: the harness does not score against PyTorch's ``(x + 3)/6`` but against
``sfpu_relu_max(float(x) * 0.1666666716337204 + 0.5, 1.0)`` in Python floats
(``helpers/golden_generators.py`` ``UnarySFPUGolden._hardsigmoid``: index id 57922331604 and
filipkarlov-alt/tt-metal @1537be33, id 70141771977, the repository whose ulp_sweep.py writes the
yaml's rows). Against that golden the model gives 43 at x = 0xc03fc0c0, where the SFPMAD's
product, narrowed to 28 bits before the add, cancels against 0.5; and the five other cells
keep their figures. ``sfpu_sim.parity.golden.float64_hardsigmoid`` is that golden.

Hardmish (device 1): every stored Sep-2026 ``hardmish<APPROX, ITERATIONS>`` (ids 54642195292,
52564259210, 71114848201, WH @01df2d7f id 70615692271) computes ``x * 0.5 + 1`` (one SFPMAD),
clamps to [0, 1], multiplies by x: two roundings, which torch FP32 reproduces on every input in
(-2, 0) (pinned below). The 1 comes from the golden: the harness's ``_torch_unary`` evaluates
in float64 and rounds once (``golden.float64_hardmish``, amanj940/tt-metal @72d6af3f id
70075636441), one step from the kernel at x = 0xbf7ebfff.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from sfpu_sim import registry
from sfpu_sim.fma import fma_blackhole, fma_wormhole
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table, golden
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
FP32_YES = ("fp32", "fp32", "Yes")

HARDSIGMOID_OFFSET = golden.HARDSIGMOID_OFFSET
HARDSIGMOID_WORST = 0xC03FC0C0                   # -2.9961395: the walk's worst lane


@pytest.fixture
def harness_hardsigmoid_golden():
    """The golden kind the op table scores Hardsigmoid with (golden.float64_hardsigmoid)."""
    return "float64_hardsigmoid"


def hardsigmoid_op(golden_kind: str) -> Op:
    return Op("Hardsigmoid", "hardsigmoid",
              kernels={"No": "hardsigmoid_2026_09", "Yes": "hardsigmoid_2026_09"},
              golden=golden_kind)


def device_figure(row: str, cell: tuple[str, str, str]) -> int:
    return device_table.read()[row][device_table.CELLS.index(cell)].max_ulp


def run_fp32(name: str, chip: str, bits) -> list[int]:
    program = registry.get(name).program(chip)
    out = run_device(program, np.asarray(bits, dtype=np.uint32),
                     DevicePath("fp32", "fp32", "fp32"), fp32_inputs=True)
    return [int(v) for v in out.output]


def fp32_bits(value: Fraction) -> int:
    """A dyadic rational of the normal range, exactly representable in FP32, as its pattern."""
    return int(np.float32(float(value)).view(np.uint32))


def round_to_fp32(value: Fraction) -> Fraction:
    """Nearest even FP32 value of a normal-range rational (by hand, not through numpy)."""
    sign, value = (-1 if value < 0 else 1), abs(value)
    exponent = value.numerator.bit_length() - value.denominator.bit_length()
    exponent -= value < Fraction(2) ** exponent            # 2**exponent <= value < 2**(e+1)
    scaled = value / Fraction(2) ** (exponent - 23)        # 24 integer bits
    kept, rest = divmod(scaled.numerator, scaled.denominator)
    if 2 * rest > scaled.denominator or (2 * rest == scaled.denominator and kept & 1):
        kept += 1
    return sign * kept * Fraction(2) ** (exponent - 23)


def as_fraction(bits: int) -> Fraction:
    return Fraction(float(np.uint32(bits).view(np.float32)))


def test_hardsigmoid_fp32_dest_yes_cell_equals_the_device_against_the_harness_golden(
        harness_hardsigmoid_golden):
    predicted = cells.predict(hardsigmoid_op(harness_hardsigmoid_golden), FP32_YES, "wormhole")
    assert predicted.max_ulp == device_figure("Hardsigmoid", FP32_YES) == 43
    assert predicted.worst["input_bits"] == f"{HARDSIGMOID_WORST:#010x}"
    assert predicted.nonfinite == 0


def test_hardsigmoid_torch_formula_golden_is_what_gave_299():
    """PyTorch's (x + 3)/6, exact then rounded (kind rne_fp32): near x = -3 it is ~2**-26 * 3
    away from x * fp32(1/6) + 0.5, hundreds of steps of a value near 0."""
    predicted = cells.predict(hardsigmoid_op("rne_fp32"), FP32_YES, "wormhole")
    assert predicted.max_ulp == 299


@pytest.mark.parametrize("cell", [c for c in device_table.CELLS if c != FP32_YES],
                         ids=lambda c: "-".join(c))
def test_hardsigmoid_other_cells_keep_the_device_figures_under_the_harness_golden(
        cell, harness_hardsigmoid_golden):
    predicted = cells.predict(hardsigmoid_op(harness_hardsigmoid_golden), cell, "wormhole")
    assert predicted.max_ulp == device_figure("Hardsigmoid", cell)


def test_hardsigmoid_worst_lane_by_hand():
    """x = 0xc03fc0c0: the exact product x * 0x3E2AAAAB (-0.49935660..., leading bit 2**-2) is
    narrowed to 28 bits, down to 2**-28, then aligned one bit right to 0.5's exponent: what is
    left are multiples of 2**-27 whose last bit carries the sticky OR of everything below.
    0.5 minus that is ~6.4e-4, whose FP32 step is 2**-34, so the sum is exact and ends in seven
    zero bits: 43 steps from the golden, which rounds the float64 sum once."""
    x = as_fraction(HARDSIGMOID_WORST)
    product = x * as_fraction(0x3E2AAAAB)
    unit = Fraction(1, 2 ** 27)
    kept = int(abs(product) // unit)
    if kept * unit != abs(product):
        kept |= 1                                          # the sticky bit
    device = Fraction(HARDSIGMOID_OFFSET) - kept * unit
    assert round_to_fp32(device) == device                 # the add itself rounds nothing
    assert fp32_bits(device) == 0x3A28A980
    assert fp32_bits(round_to_fp32(Fraction(HARDSIGMOID_OFFSET) + product)) == 0x3A28A9AB
    for chip in BOTH:
        assert run_fp32("hardsigmoid_2026_09", chip, [HARDSIGMOID_WORST]) == [0x3A28A980]


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("x, expected", [
    (0x00000000, 0x3F000000), (0x80000000, 0x3F000000),  # 0 * slope + 0.5
    # -3 * 0x3E2AAAAB = -(0.5 + 2**-26) exactly; + 0.5 = -2**-26 < 0: clamped to 0
    (0xC0400000, 0x00000000),
    # 3: 1 + 2**-26 rounds to 1.0 (below half a step of 1), not above the clamp
    (0x40400000, 0x3F800000),
    (0x7F800000, 0x3F800000),                              # +inf: above 1, clamped to 1
    (0xFF800000, 0x00000000),                              # -inf: below 0, clamped to 0
])
def test_hardsigmoid_fp32_special_values(x, expected, chip):
    assert run_fp32("hardsigmoid_2026_09", chip, [x]) == [expected]


@pytest.mark.parametrize("fma", [fma_wormhole, fma_blackhole], ids=["wormhole", "blackhole"])
def test_hardmish_sfpmads_round_like_torch_fp32_on_the_quadratic_arm(fma):
    """On (-2, 0), where the clamp keeps x*0.5 + 1, both chips' SFPMADs give the two nearest-
    even roundings of torch's ``t * clamp(0.5*t + 1, 0, 1)`` on every sampled input: so no
    FP32 walk can make the modelled program differ from the harness's golden."""
    rng = np.random.default_rng(20260930)
    x = rng.integers(0x80800000, 0xC0000000, size=200_000, dtype=np.uint64).astype(np.uint32)
    scale = fma(x, np.uint32(0x3F000000), np.uint32(0x3F800000))
    scale = np.clip(scale.view(np.float32), np.float32(0), np.float32(1)).view(np.uint32)
    device = fma(x, scale, np.uint32(0))
    t = x.view(np.float32)
    torch_like = (t * np.clip((np.float32(0.5) * t + np.float32(1)).astype(np.float32),
                              np.float32(0), np.float32(1))).astype(np.float32)
    np.testing.assert_array_equal(device, torch_like.view(np.uint32))


def test_hardmish_tie_lane_by_hand():
    """x = 0xbf7ebfff (the lane where the exact value is 1 step away): 0.5x + 1 needs 25 bits
    (odd), a tie that nearest even breaks downwards; the product then rounds to 0xbefffe6f,
    which torch's two roundings also give; rounding x(0.5x + 1) once gives 0xbefffe70. A tie
    broken any other way would cost 2 steps on the walk, not 1."""
    x = as_fraction(0xBF7EBFFF)
    exact_scale = x / 2 + 1
    assert (exact_scale * 2 ** 25).denominator == 1 and (exact_scale * 2 ** 25).numerator & 1
    scale = round_to_fp32(exact_scale)
    assert scale < exact_scale                              # the even neighbour is below
    expected = fp32_bits(round_to_fp32(x * scale))
    assert expected == 0xBEFFFE6F
    assert fp32_bits(round_to_fp32(x * exact_scale)) == 0xBEFFFE70
    golden_value = golden.float64_hardmish(np.array([0xBF7EBFFF], np.uint32), "fp32", "fp32")
    assert golden_value[0] == 0xBEFFFE70
    for chip in BOTH:
        assert run_fp32("hardmish_2026_09", chip, [0xBF7EBFFF]) == [expected]
