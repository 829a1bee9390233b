"""The Sep-2026 tanh-family kernels of kernels/tanh_lut_2026.py (the node-fitted approximate
tanh table, the LUT tanh derivative, GELU's tanh form), which approximate-tanh table the
table's device measured, and the Sep-2026 natural log of kernels/log_2026.py.

Cells are Tenstorrent's table (sfpu_accuracy_budget_2026-09-30.csv, Wormhole). Two of the rows
need goldens sfpu_sim.parity.golden does not have yet; they are defined here as the harness
computes them and installed for the test only:

* ``float64_tanh_derivative_lut6``: the Sep-2026 ``UnarySFPUGolden._tanh_derivative_lut``
  mirrors ``tanh_derivative_init``'s six pairs (tt-llk test_tanh_lut_consistency.py, index id
  69300060116, holds them together): ``a = |x|``, the segment of the first TABLE1 cut above
  ``a`` (0.5, 1, 1.5, 2, 3; else the sixth), ``1 - (slope*a + intercept)**2`` in Python floats,
  then FP32 and the output format. goldens.md's piecewise 0.90625 / 0.09375a + 0.8125 golden is
  the older 3-entry SFPLUT contract.
* ``torch_gelu_tanh_fp32``: ``torch.nn.functional.gelu(t, approximate="tanh")`` on a one-element
  tensor runs aten's scalar lambda in FP32 (BF16 / FP16 tensors compute in float and round
  once): ``0.5f*x * (1 + tanhf(kBeta * (x + kKappa * ((x*x)*x))))``, each operation rounded to
  FP32, ``kBeta = float(M_SQRT2 * M_2_SQRTPI * 0.5)``, ``kKappa = float(0.044715)``; tanh here
  correctly rounded to FP32 (standing in for libm's tanhf). Its ``1 + tanh`` cancels in the
  negative tail to multiples of 2**-24, which sets the row's 13,222 BF16 steps.
"""
from __future__ import annotations

import numpy as np
import pytest

import kernels.log_2026  # noqa: F401 (registers log_2026_09, log_fp32_2026_09)
import kernels.tanh  # noqa: F401 (registers tanh_approx_2026_09, PR #56076's tied table)
import kernels.tanh_lut_2026 as tanh_lut
from sfpu_sim import formats, registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.parity import golden as goldens
from sfpu_sim.sweeps import DevicePath, run_device

CHIPS = ("wormhole", "blackhole")
CELLS = [("bf16", "bf16", "No"), ("bf16", "bf16", "Yes"), ("fp16", "fp16", "No"),
         ("fp16", "fp16", "Yes"), ("fp32", "fp32", "No"), ("fp32", "fp32", "Yes")]
KERNELS = ["tanh_approx_2026_09_nodes", "tanh_derivative_lut_2026_09", "gelu_tanh_2026_09",
           "gelu_tanh_fp32_2026_09", "log_2026_09", "log_fp32_2026_09"]
PLUS_INF, MINUS_INF, QUIET_NAN = 0x7F80, 0xFF80, 0x7FC0
TABLE1_CUTS = (0.5, 1.0, 1.5, 2.0, 3.0)


# ---- the goldens ---------------------------------------------------------------------------

def test_the_lut_golden_mirrors_the_kernels_table():
    assert goldens.TANH_DERIVATIVE_LUT6 == tuple(zip(tanh_lut.SECH2_LUT_SLOPES,
                                                     tanh_lut.SECH2_LUT_INTERCEPTS))


@pytest.fixture
def new_goldens():
    """The goldens these rows need live in sfpu_sim.parity.golden (nothing to install)."""


# ---- helpers ------------------------------------------------------------------------------------

def bf16(value: float) -> int:
    out = int(formats.fp32_to_bits(np.float32(value)))
    assert out & 0xFFFF == 0, value
    return out >> 16


def run_bf16(name: str, chip: str, inputs, dest: str = "bf16") -> list[int]:
    program = registry.get(name).program(chip)
    return [int(v) for v in run_device(program, np.asarray(inputs, dtype=np.uint16),
                                       DevicePath("bf16", "bf16", dest)).output]


def device_figure(row: str, cell) -> int:
    (entry,) = [c for c in device_table.read()[row]
                if (c.input_format, c.output_format, c.dest) == tuple(cell)]
    return entry.max_ulp


# ---- (a) compiled engine == Machine -------------------------------------------------------------

def test_gelu_tanh_fp32_is_the_fp32_instantiation():
    instance = registry.for_dest(registry.get("gelu_tanh_2026_09"), "fp32")
    assert instance.spec.name == "gelu_tanh_fp32_2026_09"
    assert instance.spec.params == {"is_fp32_dest_acc_en": True}


def test_log_fp32_is_the_fp32_instantiation():
    instance = registry.for_dest(registry.get("log_2026_09"), "fp32")
    assert instance.spec.name == "log_fp32_2026_09"
    assert instance.spec.params["is_fp32_dest_acc_en"] is True


# ---- (b) table encodings and hand-derived values ------------------------------------------------

def test_sfpi_lut16_rounds_ties_away_and_encodes_zero_as_exponent_31():
    # 1 + 2**-11 is half an FP16 step above 1: sfpi adds the half step, so it goes up.
    assert tanh_lut.sfpi_lut16(1.0 + 2.0 ** -11) == 0x3C01
    assert tanh_lut.sfpi_lut16(0.0) == 0x7C00
    assert tanh_lut.sfpi_lut16(-0.5) == 0xB800


def test_node_table_half_words_as_sfpi_encodes_the_source_literals():
    # vLut16ss/ii(a0, a1): a0 (the lower segment) in the low half-word. 0.51416016f ->
    # 1053/2048 = 0x381D; 0.96191406f -> 1970/2048 = 0x3BB2.
    slopes, intercepts = tanh_lut.TANH_NODES_SLOPES, tanh_lut.TANH_NODES_INTERCEPTS
    assert [tanh_lut.lut16_pair(slopes[i], slopes[i + 1]) for i in (0, 2, 4)] == [
        0x381D3BB2, 0x2DAB34A3, 0x7C002CA8]
    assert [tanh_lut.lut16_pair(intercepts[i], intercepts[i + 1]) for i in (0, 2, 4)] == [
        0x332B7C00, 0x3A00372C, 0x3C003A41]


def test_sech2_table_literals_are_fp16_exact():
    for value in tanh_lut.SECH2_LUT_SLOPES + tanh_lut.SECH2_LUT_INTERCEPTS:
        assert float(np.float16(value)) == value


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("x, expected", [
    # 0.25 * 0.9619140625 = 0.240478515625 = 1.923828125 * 2**-3: BF16 mantissa 118.25,
    # truncated by the store (no rounding) to 0x3E76
    (bf16(0.25), 0x3E76), (bf16(-0.25), 0xBE76),
    # the sixth segment (0, 1.0) for finite |x| >= 3; 0 * inf + 1 is NaN at the infinities
    (bf16(4.0), 0x3F80), (bf16(-4.0), 0xBF80), (0x0000, 0x0000),
])
def test_tanh_approx_nodes_hand_values(chip, x, expected):
    assert run_bf16("tanh_approx_2026_09_nodes", chip, [x]) == [expected]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("x, expected", [
    # lut(0) = 0: 1 - 0 = 1
    (0x0000, 0x3F80), (0x8000, 0x3F80),
    # 0.25 * 0.93701171875 = 0.2342529296875 (11 bits, its square is exact in FP32);
    # 1 - 0.0548744350... = 0.9451255649... truncated into BF16: 0x3F71 (0.94140625)
    (bf16(0.25), 0x3F71), (bf16(-0.25), 0x3F71),
    # |x| >= 3: lut = 0*|x| + 1, 1 - 1 = 0
    (bf16(5.0), 0x0000), (bf16(-100.0), 0x0000),
])
def test_tanh_derivative_lut_hand_values(chip, x, expected):
    assert run_bf16("tanh_derivative_lut_2026_09", chip, [x]) == [expected]


@pytest.mark.parametrize("chip", CHIPS)
def test_tanh_derivative_lut_is_nan_at_the_infinities(chip):
    """0 * inf + 1 in the tail pair: NaN, not 0 (the header says so). The kernel's FP32
    result is a NaN (the packer then writes a BF16 NaN as an infinity)."""
    program = registry.get("tanh_derivative_lut_2026_09").program(chip)
    result = run_device(program, np.array([PLUS_INF, MINUS_INF], dtype=np.uint16),
                        DevicePath("bf16", "bf16", "fp32"))
    for out in result.kernel_fp32:
        assert int(out) & 0x7F800000 == 0x7F800000 and int(out) & 0x7FFFFF != 0


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", ["gelu_tanh_2026_09", "gelu_tanh_fp32_2026_09"])
@pytest.mark.parametrize("x, expected", [
    # u = 0 below 2**-12: tanh keeps y = u = 0; 0*0 + 0 = 0
    (0x0000, 0x0000),
    # x = 10: u ~ 43.6, round(2u log2 e) >= 61 keeps t = 1: 5*1 + 5 = 10
    (bf16(10.0), bf16(10.0)),
    # x = -10: t = -1: -5*(-1) + (-5) = +0
    (bf16(-10.0), 0x0000),
    # +inf: u = inf, t = 1 (saturated), inf*1 + inf = inf
    (PLUS_INF, PLUS_INF),
])
def test_gelu_tanh_hand_values(name, chip, x, expected):
    assert run_bf16(name, chip, [x], registry.get(name).dest) == [expected]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", ["log_2026_09", "log_fp32_2026_09"])
@pytest.mark.parametrize("x, expected", [
    # e = bits(1) - bits(0.75) = 0x400000, mantissa cleared: k = 0; m = 1 - 1 = 0: log = +0
    (bf16(1.0), 0x0000),
    # x = 2: k << 23 = 0x800000, m = 0: float(0x800000) * ln2 * 2**-23 = 0x3F317218 -> 0x3F31
    (bf16(2.0), 0x3F31), (bf16(0.5), 0xBF31),
    # +0: e = bits(0) - bits(0.75), mantissa cleared: -0x3F800000, m = 1 - 1 = 0, result
    # -float(0x3F800000) * ln2 * 2**-23 = -88.0; addexp(+0, -1) = +Inf, -88 * +Inf = -Inf
    (0x0000, MINUS_INF),
    # +Inf: addexp leaves it, the positive result times +Inf = +Inf
    (PLUS_INF, PLUS_INF),
])
def test_log_hand_values(name, chip, x, expected):
    assert run_bf16(name, chip, [x], registry.get(name).dest) == [expected]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name, expected", [("log_2026_09", PLUS_INF),
                                            ("log_fp32_2026_09", MINUS_INF)])
def test_log_of_minus_zero_depends_on_the_polynomial(name, expected, chip):
    """-0: e is taken from the raw bits before a*1 + 0 flushes a to +0, so e = 0x40800000 and
    m = bits(+0) - e - 1 = -2; the +89.4 of e meets the polynomial at m = -2: the BF16 arm
    gives r*s + m = -10.9 (sum +78.5, times +Inf = +Inf), the FP32 arm -185.0 (sum -95.7,
    -Inf)."""
    assert run_bf16(name, chip, [0x8000], registry.get(name).dest) == [expected]


@pytest.mark.parametrize("chip", CHIPS)
def test_log_fp32_is_nan_below_zero(chip):
    """x < 0 (sign bit set, -Inf too) keeps the quiet-NaN default."""
    program = registry.get("log_fp32_2026_09").program(chip)
    x = np.array([0xBF800000, 0xFF800000, 0xC2C80000], dtype=np.uint32)
    result = run_device(program, x, DevicePath("fp32", "fp32", "fp32"), fp32_inputs=True)
    assert [int(v) for v in result.kernel_fp32] == [0x7FC00000] * 3


# ---- (c) the table's cells ----------------------------------------------------------------------

TANH_APPROX = Op("Tanh(approx=Yes)", "tanh",
                 {"No": "tanh_approx_2026_09", "Yes": "tanh_approx_2026_09"})
TANH_APPROX_NODES = Op("Tanh(approx=Yes)", "tanh", {"No": "tanh_approx_2026_09_nodes",
                                                     "Yes": "tanh_approx_2026_09_nodes"})
TANH_DERIVATIVE_LUT = Op("TanhDerivativeLut", "tanh_derivative",
                         {"No": "tanh_derivative_lut_2026_09",
                          "Yes": "tanh_derivative_lut_2026_09"},
                         golden="float64_tanh_derivative_lut6")
GELU_TANH = Op("GeluTanh", "gelu_tanh",
               {"No": "gelu_tanh_2026_09", "Yes": "gelu_tanh_fp32_2026_09"},
               golden="torch_gelu_tanh_fp32")


@pytest.mark.parametrize("cell", CELLS)
def test_tanh_approx_tied_table_predicts_every_cell(cell):
    """PR #56076's tied table (kernels/tanh.py) is what the device ran on 2026-09-30."""
    prediction = cells.predict(TANH_APPROX, cell, "wormhole")
    assert prediction.max_ulp == device_figure("Tanh(approx=Yes)", cell)


@pytest.mark.parametrize("cell, figure", [
    (("bf16", "bf16", "No"), 11), (("fp16", "fp16", "No"), 79),
    (("fp32", "fp32", "No"), 720896),
])
def test_tanh_approx_node_table_misses_the_device(cell, figure):
    """The node-fitted table (id 67162912371) is one step off where the tied one is exact:
    the device did not run it (a draft revision, not main's header)."""
    prediction = cells.predict(TANH_APPROX_NODES, cell, "wormhole")
    assert prediction.max_ulp == figure != device_figure("Tanh(approx=Yes)", cell)


@pytest.mark.parametrize("cell", CELLS)
def test_tanh_derivative_lut_predicts_every_cell(cell, new_goldens):
    prediction = cells.predict(TANH_DERIVATIVE_LUT, cell, "wormhole")
    assert prediction.max_ulp == device_figure("TanhDerivativeLut", cell)


@pytest.mark.parametrize("cell", CELLS)
def test_gelu_tanh_predicts_every_cell(cell, new_goldens):
    prediction = cells.predict(GELU_TANH, cell, "wormhole")
    assert prediction.max_ulp == device_figure("GeluTanh", cell)


def test_gelu_tanh_exact_golden_misses_the_negative_tail():
    """Against the correctly rounded value the tail is 13,218 steps, not the table's 13,222:
    the harness's FP32 ``1 + tanh`` is what the device is measured against."""
    op = Op("GeluTanh", "gelu_tanh", GELU_TANH.kernels)
    assert cells.predict(op, ("bf16", "bf16", "No"), "wormhole").max_ulp == 13218


@pytest.mark.parametrize("cell", CELLS)
def test_log_predicts_every_cell(cell):
    """The Juffa-derived rewrite gives the device's 7 steps at FP16 (dest No) where PR #33391's
    body gives 168, and 1 at FP32 (dest Yes) where it gives 2."""
    op = Op("Log", "log", {"No": "log_2026_09", "Yes": "log_fp32_2026_09"})
    assert cells.predict(op, cell, "wormhole").max_ulp == device_figure("Log", cell)
