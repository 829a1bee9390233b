"""The Sep-2026 xIELU kernels (kernels/xielu_2026.py) and the ``xielu`` reference function.

Spot values are derived by hand from ``calculate_xielu``'s arms (see each case). The cells are
the Wormhole figures of Tenstorrent's table (sfpu_accuracy_budget_2026-09-30.csv), scored
against the harness's golden: ``_xielu`` of golden_generators.py in Python floats, rounded to
FP32 and then to the output format (built here from parity.golden's ``_python_float_golden``
until the op table gains the golden kind ``float64_xielu``).
"""
from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import kernels.xielu_2026 as xielu
from sfpu_sim import formats, reference, registry, ulp
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.parity import golden as goldens
from sfpu_sim.sfpi import trace
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
KERNELS = {"bf16": "xielu_2026_09", "fp32": "xielu_fp32_2026_09"}
PRGM2_BITS = 0xB58637B9                  # -9.999995427e-7 as FP32: xielu_init's expm1(eps)


def harness_xielu(x: float) -> float:
    """golden_generators.py ``_xielu`` with alpha_p = alpha_n = 1.0, beta = 0.5."""
    beta_mul_x = 0.5 * x
    if x > 0.0:
        return 1.0 * x * x + beta_mul_x
    return 1.0 * (math.expm1(x) - x) + beta_mul_x


# At -inf the harness computes (-1 + inf) + -inf = NaN; at +inf, inf.
FLOAT64_XIELU = goldens._python_float_golden(harness_xielu, (math.nan, math.inf))


@functools.cache
def program(name: str, chip: str):
    return registry.get(name).program(chip)


def run_fp32(dest: str, chip: str, values) -> list[int]:
    """FP32 output patterns of the kernel for ``dest`` (Machine engine): FP32 inputs through an
    FP32 Dst, or their top halves (BF16) through a BF16 Dst."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    if dest == "fp32":
        out = run_device(program(KERNELS[dest], chip), bits, DevicePath("fp32", "fp32", "fp32"),
                         fp32_inputs=True, engine="machine").output
    else:
        out = run_device(program(KERNELS[dest], chip), (bits >> 16).astype(np.uint16),
                         DevicePath("bf16", "fp32", "bf16"), engine="machine").output
    return [int(b) for b in out]


def test_registered_as_the_two_instantiations_of_calculate_xielu():
    low, high = registry.get(KERNELS["bf16"]), registry.get(KERNELS["fp32"])
    assert (low.dest, high.dest, low.function) == ("bf16", "fp32", "xielu")
    assert registry.for_dest(low, "fp32").spec.name == high.name
    assert registry.for_dest(high, "bf16").spec.name == low.name


@pytest.mark.parametrize("chip", BOTH)
def test_zero_and_tiny_negatives_use_the_expm1_eps_constant(chip):
    # x > 0 fails for +-0 and x >= -1e-6 holds: (Prgm2 - x) + x/2 = Prgm2 exactly; the BF16
    # Dst rounds it to nearest (low half 0x37B9 < 0x8000: down). x = -2**-21: Prgm2 + 2**-21
    # and then + (-2**-22) are exact (multiples of Prgm2's step 2**-43): Prgm2 + 2**-22, not
    # the true -2**-22 + 2**-43: the table's worst lanes are this arm's.
    expected = int((np.float32(-9.999995427e-7) + np.float32(2.0 ** -22)).view(np.uint32))
    assert run_fp32("fp32", chip, [0.0, -0.0, -2.0 ** -21]) == [PRGM2_BITS, PRGM2_BITS, expected]
    assert run_fp32("bf16", chip, [0.0, -0.0, -2.0 ** -21]) == [
        0xB5860000, 0xB5860000, (expected + 0x8000) & 0xFFFF0000]


# (input, output): exact in every SFPMAD, so the same with either Dst.
EXACT = [
    (2.0, 5.0),               # (1*2)*2 + 1
    (3.0, 10.5),              # (1*3)*3 + 1.5
    # -90.5 / ln 2 = -130.6, clamped to -126.5, k = -126 (ties to even): r = -3.17 leaves the
    # Taylor polynomial near its root, exexp(p) + k <= 0 and the guard gives exp = 0:
    # ((0 - 1) + 90.5) - 45.25 = 44.25 (the issue #52607 window)
    (-90.5, 44.25),
    # -200: k = -126 again and r = -112.7: p ~ -4.6e10, exponent field + k = 36: exp ~ -2**-91,
    # lost in (e - 1) = -1: (-1 + 200) - 100 = 99
    (-200.0, 99.0),
    (math.inf, math.inf),     # inf*inf + inf
]


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("dest", ["bf16", "fp32"])
def test_values_exact_in_every_step(chip, dest):
    inputs, outputs = zip(*EXACT)
    expected = [int(b) for b in np.array(outputs, dtype=np.float32).view(np.uint32)]
    assert run_fp32(dest, chip, inputs) == expected


@pytest.mark.parametrize("chip", BOTH)
def test_nan_and_minus_infinity_give_nan(chip):
    # NaN: its raw bits pass x > 0 (SFPSETCC reads sign and zero only): NaN*NaN + NaN. -inf:
    # the exp arm's p is -inf, exexp 255 - 126 = 129 and setexp gives -4; (-4 - 1) + inf =
    # inf, then inf + 0.5*(-inf) = NaN (as the harness's golden).
    out = np.array(run_fp32("fp32", chip, [math.nan, -math.inf]), dtype=np.uint32)
    assert np.isnan(out.view(np.float32)).all()


def test_the_unguarded_helper_returns_2_to_the_126_near_minus_90():
    # Before PR #52608 setexp took exexp(p) + k <= 0 as its low 8 bits: at x = -90.5 the lane
    # holds -1.9e38, 49,219 BF16 steps from the golden 44.25, which the table's 13,575 rules
    # out; hence the guarded revision is the one modelled.
    unguarded = trace(xielu._xielu, "wormhole", True, False, init=xielu.xielu_init)
    x = np.array([0xC2B5], dtype=np.uint16)                        # -90.5
    out = run_device(unguarded, x, DevicePath("bf16", "bf16", "bf16"), engine="machine").output
    assert int(out[0]) == 0xFF10                                    # -1.914e38
    gold = FLOAT64_XIELU(x, "bf16", "bf16")
    assert int(gold[0]) == 0x4231                                   # 44.25
    distance = ulp.distance(gold, out, "daz-index", fmt="bf16", flush_subnormals=True)
    assert int(distance.distance[0]) == 49219 > device_figure(("bf16", "bf16", "No"))


def test_reference_rounds_like_the_harness_formula_on_every_bf16_input():
    # Python's expm1 is within an ulp of double, far inside FP32's half step except where the
    # rounding is close; no BF16 input is.
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    finite = formats.is_finite(x, formats.BF16)
    exact = reference.reference("xielu", x, "rne", input_format="bf16", output_format="fp32",
                                daz=False, ftz=False).bits
    np.testing.assert_array_equal(exact[finite], FLOAT64_XIELU(x, "bf16", "fp32")[finite])


def test_reference_settles_the_tails_through_its_anchors():
    # -2**60: the value is within e^x of -1 - x/2 = 2**59 - 1, a 64-bit dyadic but no float64
    # (the anchor as an exact int), rounding to 2**59; -2**54 and -3.0e38 likewise, -2**-126
    # just above x/2 (a float anchor); 0.75: x*x + x/2 = 0.9375 exactly.
    values = np.array([-2.0 ** 60, -2.0 ** 54, -3.0e38, -2.0 ** -126, 0.75], dtype=np.float32)
    out = reference.reference("xielu", values.view(np.uint32), "rne", input_format="fp32",
                              output_format="fp32", daz=False, ftz=False).bits
    expected = np.array([2.0 ** 59, 2.0 ** 53, -values[2] / 2, -2.0 ** -127, 0.9375],
                        dtype=np.float32)
    np.testing.assert_array_equal(out, expected.view(np.uint32))


def xielu_op() -> Op:
    return Op("Xielu", "xielu", kernels={"No": KERNELS["bf16"], "Yes": KERNELS["fp32"]},
              golden="float64_xielu")


def device_figure(cell) -> int:
    return next(c.max_ulp for c in device_table.read()["Xielu"]
                if (c.input_format, c.output_format, c.dest) == cell)


DEFAULT_CELLS = [("bf16", "bf16", "No"), ("bf16", "bf16", "Yes"), ("fp32", "fp32", "No"),
                 ("fp32", "fp32", "Yes")]
SLOW_CELLS = [("fp16", "fp16", "No"), ("fp16", "fp16", "Yes")]


def _predict_and_compare(monkeypatch, cell, chip):
    monkeypatch.setitem(goldens.FORMULAS, "float64_xielu", FLOAT64_XIELU)
    prediction = cells.predict(xielu_op(), cell, chip)
    assert prediction.max_ulp == device_figure(cell), prediction.worst
    return prediction


@pytest.mark.parametrize("cell", DEFAULT_CELLS)
def test_wormhole_cells_equal_the_table(monkeypatch, cell):
    # The worst lane is the smallest negative normal: the golden x/2 flushes to -0, the device
    # gives Prgm2 - x/2 ~ -1e-6 (BF16 0xB586: 13,575 steps; FP32 Dst 0xB58637B9: 889,599,930).
    prediction = _predict_and_compare(monkeypatch, cell, "wormhole")
    assert prediction.worst["golden"] == 0.0 and prediction.worst["output"] < -9.9e-7


@pytest.mark.slow
@pytest.mark.parametrize("cell", SLOW_CELLS)
def test_wormhole_float16_cells_equal_the_table(monkeypatch, cell):
    # No FP16 normal lies in [-1e-6, 0): the arm that dominates the other cells never runs.
    _predict_and_compare(monkeypatch, cell, "wormhole")


@pytest.mark.slow
@pytest.mark.parametrize("cell", DEFAULT_CELLS + SLOW_CELLS)
def test_blackhole_runs_the_same_program_figures(monkeypatch, cell):
    _predict_and_compare(monkeypatch, cell, "blackhole")
