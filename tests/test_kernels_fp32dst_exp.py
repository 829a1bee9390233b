"""The FP32-Dst instantiations of the Sep-2026 exp family: exp, exp2 (kernels/exp_2026.py),
log1p (kernels/log1p_2026.py), expm1 (kernels/expm1.py).

Where the expectations come from:

* Spot values are derived by hand from the sources' algorithms (each case says how): the
  reductions ``j = round(.)``, the exponent add ``e = exponent(r) + i`` and its thresholds, and
  the special-case branches. The kernels do not round (FP32 Dst), so results are FP32 patterns.
* The table cells are Tenstorrent's accuracy table (``sfpu_accuracy_budget_2026-09-30.csv``,
  Wormhole, dest Yes), predicted through the harness's path (:mod:`sfpu_sim.parity.cells`) with
  the ``rne_fp32`` golden (torch in the Dst dtype for Exp / Exp2, torch FP32 for Log1p /
  Expm1: both one rounding of the exact value, which rne_fp32 stands in for).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from kernels import exp_2026
from sfpu_sim import formats, registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.sfpi import dst_reg, trace
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
SEED = 20260930
# FP32-Dst kernel -> (its BF16-Dst instantiation, the table row, the reference function)
KERNELS = {"exp_fp32_2026_09": ("exp_2026_09", "Exp(approx=No)", "exp"),
           "exp2_fp32_2026_09": ("exp2_2026_09", "Exp2", "exp2"),
           "log1p_fp32_2026_09": ("log1p_2026_09", "Log1p", "log1p"),
           "expm1_fp32_2026_09": ("expm1_2026_09", "Expm1", "expm1")}
CASES = [(name, chip) for name in KERNELS for chip in BOTH]
FP32_PATH = DevicePath("fp32", "fp32", "fp32")
ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
INF, NEG_INF, QUIET_NAN, NEG_QUIET_NAN = 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000


def bits(value: float) -> int:
    return int(formats.fp32_to_bits(np.float32(value)))


def is_nan(patterns) -> np.ndarray:
    patterns = np.asarray(patterns, dtype=np.uint32)
    return ((patterns >> 23) & 0xFF == 0xFF) & (patterns & 0x7FFFFF != 0)


def run_fp32(program, patterns) -> np.ndarray:
    """The kernel's FP32 results for FP32 input patterns (FP32 in, FP32 Dst, FP32 out)."""
    x = np.asarray(patterns, dtype=np.uint32)
    return run_device(program, x, FP32_PATH, fp32_inputs=True).kernel_fp32


def random_fp32_patterns() -> np.ndarray:
    """2,048 random 32-bit patterns and 2,048 random normal values with biased exponents 100..134
    (|x| from 2**-27 to 2**8: every branch of the four kernels), from a fixed seed."""
    rng = np.random.default_rng(SEED)
    raw = rng.integers(0, 1 << 32, 2048, dtype=np.uint64).astype(np.uint32)
    normal = (rng.integers(0, 2, 2048, dtype=np.uint32) << np.uint32(31)) \
        | (rng.integers(100, 135, 2048, dtype=np.uint32) << np.uint32(23)) \
        | rng.integers(0, 1 << 23, 2048, dtype=np.uint32)
    return np.concatenate([raw, normal])


# --- registration -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", KERNELS)
def test_registered_as_the_fp32_dst_instantiation_of_the_bf16_kernel(name):
    spec, bf16 = registry.get(name), registry.get(KERNELS[name][0])
    assert spec.chips == BOTH and spec.dest == "fp32" and spec.instance_of == bf16.name
    assert spec.params["is_fp32_dest_acc_en"] is True and spec.template == bf16.template
    assert registry.for_dest(bf16, "fp32").spec is spec
    assert registry.for_dest(spec, "bf16").spec is bf16


# --- compiled engine = Machine ----------------------------------------------------------------

# --- hand-derived values ----------------------------------------------------------------------

SPOT_VALUES = [
    # exp: +-0 -> j = 0, f = 0, r = 1 (each Horner step gives its constant), e = 127 -> 1.0
    ("exp_fp32_2026_09", bits(0.0), bits(1.0)), ("exp_fp32_2026_09", bits(-0.0), bits(1.0)),
    # 89: j = round(128.4) = 128, r = exp(0.27) in [1, 2), e = 127 + 128 = 255 -> +Inf;
    # +Inf: j -> 32767 (the int16 saturates), e >= 255 -> +Inf
    ("exp_fp32_2026_09", bits(89.0), INF), ("exp_fp32_2026_09", INF, INF),
    # -87.5: j = round(-126.2) = -126, r = exp(-0.16) in [0.5, 1), e = 126 - 126 = 0 -> +0
    # (no subnormals); -104: e = 126 - 150 < 1 -> +0; -Inf: j -> -32767, e < 1 -> +0
    ("exp_fp32_2026_09", bits(-87.5), 0), ("exp_fp32_2026_09", bits(-104.0), 0),
    ("exp_fp32_2026_09", NEG_INF, 0),
    # exp2 of an integer k: f = 0, r = 1, e = 127 + k: 2**k exactly while 1 <= e <= 254
    ("exp2_fp32_2026_09", bits(0.0), bits(1.0)), ("exp2_fp32_2026_09", bits(-0.0), bits(1.0)),
    ("exp2_fp32_2026_09", bits(3.0), bits(8.0)),
    ("exp2_fp32_2026_09", bits(-126.0), 0x00800000), ("exp2_fp32_2026_09", bits(127.0), 0x7F000000),
    # e = 0 -> +0; e = 255 -> y * Inf = +Inf; +-Inf saturate the int16 the same way
    ("exp2_fp32_2026_09", bits(-127.0), 0), ("exp2_fp32_2026_09", bits(128.0), INF),
    ("exp2_fp32_2026_09", INF, INF), ("exp2_fp32_2026_09", NEG_INF, 0),
    # log1p: +-0 -> u = 1, k = 0, m = 0 -> +0
    ("log1p_fp32_2026_09", bits(0.0), 0), ("log1p_fp32_2026_09", bits(-0.0), 0),
    # 1: u = 2, k = 1, m = 0.5 + (2**-1 - 1) = 0, r = 2**23 * (ln2 * 2**-23) = ln 2 (0x3F317218)
    # exactly; 3: u = 4, k = 2, m = 0.75 - 0.75 = 0 -> 2 ln 2 (0x3FB17218)
    ("log1p_fp32_2026_09", bits(1.0), 0x3F317218), ("log1p_fp32_2026_09", bits(3.0), 0x3FB17218),
    # -1: u = +0, e = -(127 << 23), m = -2**127, the degree-8 Horner overflows to -Inf
    ("log1p_fp32_2026_09", bits(-1.0), NEG_INF),
    # u < 0 (-2, -Inf): the quiet-NaN default as loaded; +Inf: u = +Inf passes through
    ("log1p_fp32_2026_09", bits(-2.0), QUIET_NAN), ("log1p_fp32_2026_09", NEG_INF, QUIET_NAN),
    ("log1p_fp32_2026_09", INF, INF),
    # expm1: +-0 -> j = 0, r = r*(f*f) + f = +0 (-0 + +0 = +0); 2**-30: r*2**-60 + 2**-30 rounds
    # to 2**-30
    ("expm1_fp32_2026_09", bits(0.0), 0), ("expm1_fp32_2026_09", bits(-0.0), 0),
    ("expm1_fp32_2026_09", bits(2.0 ** -30), bits(2.0 ** -30)),
    # |j - 2| >= 127: (j - 2) * Inf = +Inf, or -0.5 where j - 2 < 0; times 2 -> -1 (also +-Inf,
    # where f is NaN but j is +-Inf)
    ("expm1_fp32_2026_09", bits(100.0), INF), ("expm1_fp32_2026_09", bits(-100.0), bits(-1.0)),
    ("expm1_fp32_2026_09", INF, INF), ("expm1_fp32_2026_09", NEG_INF, bits(-1.0)),
]


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("name, x, expected", SPOT_VALUES)
def test_hand_derived_values(name, x, expected, chip):
    got = int(run_fp32(registry.get(name).program(chip), [x])[0])
    assert got == expected, f"{name}({x:#010x}) on {chip}: {got:#010x}, expected {expected:#010x}"


def test_exp_fp32_underflow_edge_keeps_the_smallest_normals():
    """-87: j = round(-125.5) = -126, r = exp(0.34) in [1, 2), e = 127 - 126 = 1: a normal
    result with biased exponent 1 (exp(-87) = 1.65e-38 = 1.40 * 2**-126)."""
    for chip in BOTH:
        got = int(run_fp32(registry.get("exp_fp32_2026_09").program(chip), [bits(-87.0)])[0])
        assert got >> 23 == 1, hex(got)


@pytest.mark.parametrize("name, chip", CASES)
def test_nan_inputs_give_nan(name, chip):
    """Every BF16 NaN pattern, either sign, gives a NaN: through the arithmetic (and, on
    Wormhole, with the input's sign kept by SFPMAD), or log1p's NaN default for a negative u."""
    nan_inputs = ALL_BF16[is_nan(formats.bf16_to_fp32_bits(ALL_BF16))]
    out = run_device(registry.get(name).program(chip), nan_inputs,
                     DevicePath(dest="fp32")).kernel_fp32
    assert len(nan_inputs) == 254 and is_nan(out).all()


@pytest.mark.parametrize("name", KERNELS)
def test_chips_differ_only_in_nan_lanes(name):
    """No instruction differs in value between the chips outside NaN handling (exp's two tails
    agree on every non-NaN lane), so the chips give the same bits on every other input."""
    spec = registry.get(name)
    x = random_fp32_patterns()
    wormhole, blackhole = (run_fp32(spec.program(chip), x) for chip in BOTH)
    differ = wormhole != blackhole
    assert not (differ & ~is_nan(x)).any()


def test_exp_wormhole_tail_is_needed_for_minus_nan():
    """Issue #46165 / PR #46168: Wormhole's SFPMAD keeps a NaN's sign, so the Blackhole tail (y *
    Inf, then 0 where e < 1) gives exp(-NaN) = +0 on Wormhole (i = -32767 makes e < 1); the
    registered Wormhole tail gives a NaN."""
    def blackhole_tail():
        dst_reg[0] = exp_2026._exp_fp32_accurate_blackhole(dst_reg[0])

    wrong = trace(blackhole_tail, "wormhole", name="exp_fp32_blackhole_tail")
    assert int(run_fp32(wrong, [NEG_QUIET_NAN])[0]) == 0
    right = registry.get("exp_fp32_2026_09").program("wormhole")
    assert is_nan(run_fp32(right, [NEG_QUIET_NAN])).all()


# --- the table's cells (Wormhole, dest Yes) ---------------------------------------------------

@pytest.mark.parametrize("cell", [("bf16", "bf16", "Yes"), ("fp16", "fp16", "Yes"),
                                  ("fp32", "fp32", "Yes")])
@pytest.mark.parametrize("name", KERNELS)
def test_predicted_cell_equals_the_table(name, cell):
    """Every cell: bf16 0, fp16 1, fp32 1 (the device's figures). The fp16 ones come from the
    packer (FP32 -> FP16 truncates, below 2**-14 flushes), the fp32 ones from one FP32 step
    of kernel error (e.g. expm1(-17.22) = -1 where the golden is -0.99999994)."""
    bf16, row, function = KERNELS[name]
    op = Op(row, function, kernels={"No": bf16, "Yes": name}, golden="rne_fp32")
    predicted = cells.predict(op, cell, "wormhole")
    device = {(c.input_format, c.output_format, c.dest): c.max_ulp
              for c in device_table.read()[row]}[cell]
    assert predicted.kernel == name
    assert predicted.nonfinite == 0 and predicted.lanes > 0
    assert predicted.max_ulp == device, (predicted.max_ulp, device, predicted.worst)


def test_log1p_of_one_is_the_float_ln2_constant():
    """The exact-product claim behind the log1p spot values: ln2 * 2**-23 (Prgm0) times 2**23 is
    the float ln 2 the init starts from (0x3F317218), with no rounding on the way."""
    ln2 = np.float32(0.693147182)
    assert bits(float(ln2)) == 0x3F317218
    prgm0 = np.float32(ln2 * np.float32(1.19209290e-7))
    assert float(prgm0) * 2.0 ** 23 == float(ln2) and math.ldexp(float(prgm0), 24) == 2 * float(ln2)
