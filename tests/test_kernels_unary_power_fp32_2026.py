"""The Sep-2026 unary power with an FP32 Dst (kernels/unary_power_fp32_2026.py), p = 2.0.

Spot values are derived by hand from ``_sfpu_unary_power_61f_updated_`` (see each case). The
cells are the Wormhole dest=Yes figures of Tenstorrent's table
(sfpu_accuracy_budget_2026-09-30.csv, row UnaryPower), scored against the harness's golden
``torch.pow(t, 2.0)`` on an FP32 tensor, i.e. x*x rounded to FP32 (golden kind ``rne_fp32``).
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

import kernels.unary_power_fp32_2026 as power
from kernels.pow_2026 import sfpu_unary_pow_init
from sfpu_sim import registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.parity import golden as goldens
from sfpu_sim.sfpi import dst_reg, trace
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
KERNELS = {"No": "unary_power_2026_09", "Yes": "unary_power_fp32_2026_09"}
OP = Op("UnaryPower", "square", kernels=KERNELS)
DEST_YES_CELLS = [("bf16", "bf16", "Yes"), ("fp16", "fp16", "Yes"), ("fp32", "fp32", "Yes")]


@functools.cache
def program(chip: str):
    return registry.get(KERNELS["Yes"]).program(chip)


def run_fp32(chip: str, patterns) -> list[int]:
    """FP32 output patterns for FP32 input patterns through an FP32 Dst (Machine engine)."""
    bits = np.asarray(patterns, dtype=np.uint32)
    out = run_device(program(chip), bits, DevicePath("fp32", "fp32", "fp32"), fp32_inputs=True,
                     engine="machine").output
    return [int(b) for b in out]


def test_registered_as_the_fp32_instantiation_of_calculate_unary_power():
    low, high = registry.get(KERNELS["No"]), registry.get(KERNELS["Yes"])
    assert (high.dest, high.function, high.template) == ("fp32", "square", "calculate_unary_power")
    assert dict(high.params)["is_fp32_dest_acc_en"] is True
    assert registry.for_dest(low, "fp32").spec.name == high.name
    assert registry.for_dest(high, "bf16").spec.name == low.name


# (input, output) patterns, the same on both chips:
SPECIALS = [
    # |b| == 0 and p > 0: PR #53367's test gives +0; -0 first takes the sign branch (sign bit
    # set), whose parity of round(2) = 2 leaves the sign clear.
    (0x00000000, 0x00000000), (0x80000000, 0x00000000),
    # Powers of two: m = 1 so z = 0 and ln m = 0 exactly; z_hi = 2k, s = k' = 2k, f = 0, the
    # Taylor sum is 1.0 and setexp writes 127 + 2k: 2**2k exactly (the sign branch keeps +).
    (0x40000000, 0x40800000), (0xC0000000, 0x40800000), (0x3F000000, 0x3E800000),
    (0x3F800000, 0x3F800000), (0xBF800000, 0x3F800000),
    (0x5F000000, 0x7E800000),                  # 2**63 -> 2**126
    (0x20000000, 0x00800000),                  # 2**-63 -> 2**-126, the least normal
    # 2**64: s = 128 reaches the overflow test: +inf. 2**-64: s = -128 clamps to -126.99999,
    # k = -127, the exponent field written is 127 - 127 = 0: a subnormal, stored as +0.
    (0x5F800000, 0x7F800000), (0x1F800000, 0x00000000),
    # +-inf: setexp(inf, 127) = 1.0, exexp = 128, z = 256 >= 128: +inf (the parity keeps +).
    (0x7F800000, 0x7F800000), (0xFF800000, 0x7F800000),
    # +NaN 0x7fc00000: m = 1.5 halves to 0.75 with e = 129, z = 2 (129 + log2 0.75) >= 128.
    (0x7FC00000, 0x7F800000),
]


@pytest.mark.parametrize("chip", BOTH)
def test_zeros_powers_of_two_infinities_and_nan(chip):
    inputs, expected = zip(*SPECIALS)
    assert [hex(b) for b in run_fp32(chip, inputs)] == [hex(b) for b in expected]


@pytest.mark.parametrize("chip", BOTH)
def test_negative_bases_square_like_their_magnitudes(chip):
    # Even integer power: the sign branch only clears the sign, whatever the magnitude.
    magnitudes = np.array([0x40400000, 0x3FC00000, 0x4F800001, 0x2A3B4C5D, 0x7F7FFFFF],
                          dtype=np.uint32)
    assert run_fp32(chip, magnitudes | np.uint32(0x80000000)) == run_fp32(chip, magnitudes)
    assert run_fp32(chip, [0x40400000, 0x3FC00000]) == [0x41100000, 0x40100000]  # 9, 2.25


@pytest.mark.parametrize("cell", DEST_YES_CELLS, ids=lambda c: c[0])
def test_predicts_the_tables_dest_yes_cells(cell):
    device = {(c.input_format, c.output_format, c.dest): c.max_ulp
              for c in device_table.read()["UnaryPower"]}
    prediction = cells.predict(OP, cell, "wormhole")
    assert prediction.nonfinite == 0
    assert prediction.max_ulp == device[cell] == {"bf16": 1, "fp16": 1, "fp32": 3}[cell[0]]


def test_fp32_cells_worst_lane_is_a_large_base():
    # 3 steps at x = -3.92e17: the error of z = 2 log2|x| ~ 117 reaches the result as
    # |dz| ln 2. The lane is the emulator's first of the largest, pinned (x = -5.93e9 came first
    # while the DSL fused Wormhole's c - a*b, which sfpi's compiler does not:
    # sfpu_sim.sfpi.passes._fuse_products); the cell's 3 is the table's.
    worst = cells.predict(OP, ("fp32", "fp32", "Yes"), "wormhole").worst
    assert (worst["input_bits"], worst["output_bits"], worst["golden_bits"]) == (
        "0xdcaddd2e", "0x79ec295c", "0x79ec295f")


def _fused_numerator_body():
    dst_reg[0] = power.unary_power_61f_updated(dst_reg[0], 2.0, fused_numerator=True)


@pytest.mark.parametrize("cell", DEST_YES_CELLS, ids=lambda c: c[0])
def test_pr_56593s_separate_subtract_does_not_change_the_cells(cell):
    # Whether the table's build has PR #56593 is not certain (module docstring): PR #49649's
    # fused m*recip - recip moves some lanes by one FP32 step but scores the same.
    fused = trace(_fused_numerator_body, "wormhole", init=sfpu_unary_pow_init)
    in_fmt, out_fmt, _ = cell
    if in_fmt == "fp32":
        x = cells.harness_fp32_walk()
        out = run_device(fused, x, DevicePath("fp32", out_fmt, "fp32"), fp32_inputs=True).output
    else:
        x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
        out = run_device(fused, x, DevicePath(in_fmt, out_fmt, "fp32")).output
    gold = goldens.golden(OP.golden, OP.function, x, in_fmt, out_fmt, "Yes")
    top = cells._score(x, in_fmt, out, gold, out_fmt)[0]
    assert top == cells.predict(OP, cell, "wormhole").max_ulp
