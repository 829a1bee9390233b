"""FP32-Dst instantiations of the Sep-2026 trigonometric and hyperbolic kernels
(kernels/trig_2026.py, kernels/hyperbolic.py): atan, asin, acos, sin, cos, sinh, cosh with
``is_fp32_dest_acc_en = true``.

Spot values are derived by hand from the sources' algorithms (see each case's comment): the branch
an input takes, IEEE signed-zero sums, ``(bits(Inf) - 1) * 0 = 0``, Inf - Inf = NaN. Cell figures
are Tenstorrent's table (sfpu_accuracy_budget_2026-09-30.csv, Wormhole), predicted through the
harness's data path with the golden the op's row uses.
"""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import formats, registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.sweeps import DevicePath, run_device

CHIPS = ("wormhole", "blackhole")
# row -> (reference function, BF16-Dst kernel, FP32-Dst kernel)
ROWS = {"Atan": ("atan", "atan_2026_09", "atan_fp32_2026_09"),
        "Asin": ("asin", "asin_2026_09", "asin_fp32_2026_09"),
        "Acos": ("acos", "acos_2026_09", "acos_fp32_2026_09"),
        "Sin": ("sin", "sin_2026_09", "sin_fp32_2026_09"),
        "Cos": ("cos", "cos_2026_09", "cos_fp32_2026_09"),
        "Sinh": ("sinh", "sinh_2026_09", "sinh_fp32_2026_09"),
        "Cosh": ("cosh", "cosh_2026_09", "cosh_fp32_2026_09")}
FP32_KERNELS = [kernels[2] for kernels in ROWS.values()]
FP32_CELLS = [("bf16", "bf16", "Yes"), ("fp16", "fp16", "Yes"), ("fp32", "fp32", "Yes")]

PI_2 = 0x3FC90FDB                   # float(pi/2)
PI = 0x40490FDB                     # float(pi) = 2 * float(pi/2)
PLUS_INF, MINUS_INF = 0x7F800000, 0xFF800000


def bits(value: float) -> int:
    return int(formats.fp32_to_bits(np.float32(value)))


def run_fp32(name: str, chip: str, inputs) -> np.ndarray:
    program = registry.get(name).program(chip)
    return run_device(program, np.asarray(inputs, dtype=np.uint32),
                      DevicePath("fp32", "fp32", "fp32"), fp32_inputs=True).output


@pytest.mark.parametrize("name", FP32_KERNELS)
def test_fp32_kernel_is_the_fp32_instantiation_of_the_bf16_one(name):
    row = next(r for r, k in ROWS.items() if k[2] == name)
    bf16_spec = registry.get(ROWS[row][1])
    instance = registry.for_dest(bf16_spec, "fp32")
    assert instance.spec.name == name
    assert instance.spec.params == {"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True}
    assert registry.get(name).dest == "fp32"


# (kernel, input, expected FP32 output); None: any NaN.
HAND_DERIVED = [
    # atan: +-0 stay (a = 0, r = p*0 + 0); |x| >= 2^26 skips the reciprocal: a = 0, pi/2 - 0;
    # +-Inf: (bits(Inf) - 1) * 0 = 0, pi/2; tiny x: a - a^3/3 rounds back to a.
    ("atan_fp32_2026_09", 0.0, 0x00000000),
    ("atan_fp32_2026_09", -0.0, 0x80000000),
    ("atan_fp32_2026_09", 2.0 ** 30, PI_2),
    ("atan_fp32_2026_09", -(2.0 ** 30), PI_2 | 0x80000000),
    ("atan_fp32_2026_09", float("inf"), PI_2),
    ("atan_fp32_2026_09", float("-inf"), PI_2 | 0x80000000),
    ("atan_fp32_2026_09", 2.0 ** -20, bits(2.0 ** -20)),
    ("atan_fp32_2026_09", float("nan"), None),
    # asin: +-0 below the switch (z = 0); +-1: the endpoint root of 0 is 0 (x*y = 0 all along),
    # pi/2 - 2*0; |x| > 1: (1 - |x|)/2 < 0 -> NaN.
    ("asin_fp32_2026_09", 0.0, 0x00000000),
    ("asin_fp32_2026_09", -0.0, 0x80000000),
    ("asin_fp32_2026_09", 1.0, PI_2),
    ("asin_fp32_2026_09", -1.0, PI_2 | 0x80000000),
    ("asin_fp32_2026_09", 2.0, None),
    ("asin_fp32_2026_09", float("-inf"), None),
    # acos: 1 -> z = +0 (sign(1) XOR sign(0.4375) = +), r = +0, doubled: +0; -1 -> z = -0,
    # r = -0, sign(z) set: + pi/2, doubled: 2*float(pi/2) = float(pi); 0 -> below the switch,
    # t = -0.5625 < 0 signs z negative: -0 + pi/2, not doubled; |x| > 1 -> NaN.
    ("acos_fp32_2026_09", 1.0, 0x00000000),
    ("acos_fp32_2026_09", -1.0, PI),
    ("acos_fp32_2026_09", 0.0, PI_2),
    ("acos_fp32_2026_09", -2.0, None),
    # sin: +0 -> j = 0, a = +0 + (-0) = +0, r*c + a = -0 + +0 = +0; tiny x: j = 0, a = x,
    # x - x^3/6 rounds to x; +-Inf: a = Inf + Inf*P0 = Inf - Inf = NaN.
    ("sin_fp32_2026_09", 0.0, 0x00000000),
    ("sin_fp32_2026_09", 2.0 ** -20, bits(2.0 ** -20)),
    ("sin_fp32_2026_09", -(2.0 ** -20), bits(-(2.0 ** -20))),
    ("sin_fp32_2026_09", float("inf"), None),
    ("sin_fp32_2026_09", float("-inf"), None),
    # cos: +-Inf -> j = Inf, a = Inf + Inf*P0 = NaN.
    ("cos_fp32_2026_09", float("inf"), None),
    ("cos_fp32_2026_09", float("-inf"), None),
    # sinh: q = expm1(|x|)/4 has exponent < -27 for |x| <= 2^-30 -> y = x (signed zeros too);
    # |x| log2 e >= 130 -> q = |x| * Inf = Inf, y = 2q, sign of x.
    ("sinh_fp32_2026_09", 0.0, 0x00000000),
    ("sinh_fp32_2026_09", -0.0, 0x80000000),
    ("sinh_fp32_2026_09", 2.0 ** -30, bits(2.0 ** -30)),
    ("sinh_fp32_2026_09", 100.0, PLUS_INF),
    ("sinh_fp32_2026_09", -100.0, MINUS_INF),
    ("sinh_fp32_2026_09", float("-inf"), MINUS_INF),
    # cosh: 0 -> q = 0.25 exactly, 2q + (1/q)/8 = 0.5 + 0.5 (1/q within an ULP of 4: ties go to
    # 1.0); i = round(|x| log2 e) + 125 >= 255 -> |x| * Inf.
    ("cosh_fp32_2026_09", 0.0, bits(1.0)),
    ("cosh_fp32_2026_09", -0.0, bits(1.0)),
    ("cosh_fp32_2026_09", 100.0, PLUS_INF),
    ("cosh_fp32_2026_09", float("-inf"), PLUS_INF),
]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name, x, expected", HAND_DERIVED)
def test_hand_derived_values(name, x, expected, chip):
    out = int(run_fp32(name, chip, [bits(x)])[0])
    if expected is None:
        assert np.isnan(np.uint32(out).view(np.float32)), hex(out)
    else:
        assert out == expected, (hex(out), hex(expected))


def test_atan_reciprocal_branch_starts_at_one():
    """Just below 1 the polynomial runs on |x| itself; at 1 the reciprocal branch gives
    pi/2 - atan(1/1): both are atan(1) = pi/4 to within the kernel's two ULPs."""
    below, at_one = run_fp32("atan_fp32_2026_09", "wormhole", [bits(np.nextafter(
        np.float32(1), np.float32(0))), bits(1.0)])
    quarter_pi = bits(np.pi / 4)
    assert abs(int(below) - quarter_pi) <= 2 and abs(int(at_one) - quarter_pi) <= 2


@pytest.mark.parametrize("row", list(ROWS))
@pytest.mark.parametrize("cell", FP32_CELLS)
def test_predicts_the_tables_fp32_dst_cells(row, cell):
    function, bf16_kernel, fp32_kernel = ROWS[row]
    op = Op(row, function, kernels={"No": bf16_kernel, "Yes": fp32_kernel}, golden="rne_fp32")
    device = next(c for c in device_table.read()[row]
                  if (c.input_format, c.output_format, c.dest) == cell)
    assert cells.predict(op, cell, "wormhole").max_ulp == device.max_ulp
