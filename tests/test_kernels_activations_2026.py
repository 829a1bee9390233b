"""The Sep-2026 ELU family (kernels/activations_2026.py): celu, elu, selu with both Dst modes.

Spot values are derived by hand from tt-llk's ``expm1_cw_clamped`` and the callers' arms (see
each case); the cells are the Wormhole figures of Tenstorrent's table
(sfpu_accuracy_budget_2026-09-30.csv), scored against the exact value rounded to FP32 (the
harness's goldens are torch in the Dst dtype for celu/elu and torch FP32 for selu, for which
``rne_fp32`` stands in).
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

import kernels.activations_2026  # noqa: F401 (registers the kernels)
from sfpu_sim import registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
FAMILY = ("celu", "elu", "selu")
KERNELS = [f"{op}{dst}_2026_09" for op in FAMILY for dst in ("", "_fp32")]


def dest_of(name: str) -> str:
    return "fp32" if "_fp32_" in name else "bf16"


@functools.lru_cache(maxsize=None)
def program(name: str, chip: str):
    return registry.get(name).program(chip)


def run(name: str, chip: str, inputs, fp32_inputs: bool = False):
    dest = dest_of(name)
    path = DevicePath("fp32", "fp32", "fp32") if fp32_inputs else DevicePath("bf16", "fp32", dest)
    return run_device(program(name, chip), inputs, path, engine="machine",
                      fp32_inputs=fp32_inputs).output


def test_registered_as_the_two_instantiations_of_each_template():
    for op in FAMILY:
        low, high = registry.get(f"{op}_2026_09"), registry.get(f"{op}_fp32_2026_09")
        assert (low.dest, high.dest) == ("bf16", "fp32")
        assert registry.for_dest(low, "fp32").spec.name == high.name
        assert registry.for_dest(high, "bf16").spec.name == low.name


SELU_SCALE_BITS = 0x3F867D5F
# Each case: (BF16 input, FP32 output with a BF16 Dst, FP32 output with an FP32 Dst).
COMMON = [
    # +0 takes the x >= 0 arm; -0 does not (SFPSETCC reads the sign), and expm1_cw(-0) = (1 - 1)
    # + 1 * (-0) = +0, times alpha 1 (or the rounding) stays +0
    (0x0000, 0x00000000, 0x00000000), (0x8000, 0x00000000, 0x00000000),
    # x <= -87 is clamped to -87: k = round(-125.5) = -126, 2^k - 1 rounds to -1 in FP32 and
    # 2^-126 * expm1(r) (r = 0.337) is far below its half step: exactly -1
    (0xC2C8, 0xBF800000, 0xBF800000), (0xFF80, 0xBF800000, 0xBF800000),
]
CASES = {
    "elu": COMMON + [
        # x >= 0 keeps x: 10, 2^-7, +Inf
        (0x4120, 0x41200000, 0x41200000), (0x3C00, 0x3C000000, 0x3C000000),
        (0x7F80, 0x7F800000, 0x7F800000),
        # x = -1: expm1(-1) = -0.63212056 = -161.82 * 2^-8 -> -162 * 2^-8 (0xBF22), 0.32 of a
        # step from the tie, far above expm1_cw's 1.6e-7
        (0xBF80, 0xBF220000, None),
    ],
    "selu": COMMON[:2] + [
        # x = -100, -Inf: -1 times fp32(scale * alpha) = -1.7580993 -> BF16 -225/128 (0xBFE1)
        (0xC2C8, 0xBFE10000, None), (0xFF80, 0xBFE10000, None),
        # x = 1: scale * 1 = 0x3F867D5F exactly; to BF16 nearest (low half 0x7D5F < 0x8000)
        (0x3F80, 0x3F860000, SELU_SCALE_BITS),
        # x = 2: exact doubling, 0x40067D5F
        (0x4000, 0x40060000, SELU_SCALE_BITS + (1 << 23)),
    ],
}
CASES["celu"] = CASES["elu"]      # alpha = 1/alpha = 1: the scalings are exact


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("op", FAMILY)
def test_hand_derived_values(op, chip):
    x = np.array([c[0] for c in CASES[op]], dtype=np.uint16)
    low = run(f"{op}_2026_09", chip, x)
    high = run(f"{op}_fp32_2026_09", chip, x)
    for (bits, want_low, want_high), got_low, got_high in zip(CASES[op], low, high):
        assert int(got_low) == want_low, (op, hex(bits), hex(int(got_low)))
        if want_high is not None:
            assert int(got_high) == want_high, (op, hex(bits), hex(int(got_high)))


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("op", FAMILY)
def test_nan_takes_the_x_ge_0_arm_and_bf16_rounding_makes_it_inf(op, chip):
    """+NaN has a clear sign bit, so x >= 0 holds; SFP_STOCH_RND (nearest) turns a NaN into
    the Inf of its sign, while the FP32 Dst stores it as it is."""
    x = np.array([0x7FC0], dtype=np.uint16)
    assert int(run(f"{op}_2026_09", chip, x)[0]) == 0x7F800000
    assert np.isnan(np.uint32(run(f"{op}_fp32_2026_09", chip, x)[0]).view(np.float32))


CELLS = [("bf16", "bf16", "No"), ("bf16", "bf16", "Yes"), ("fp16", "fp16", "No"),
         ("fp16", "fp16", "Yes"), ("fp32", "fp32", "No"), ("fp32", "fp32", "Yes")]
ROWS = {"celu": ("Celu", "celu_alpha1"), "elu": ("Elu", "elu_alpha1"), "selu": ("Selu", "selu")}


@pytest.mark.parametrize("op", FAMILY)
def test_predicted_cells_equal_the_table(op):
    row, function = ROWS[op]
    device = {(c.input_format, c.output_format, c.dest): c.max_ulp
              for c in device_table.read()[row]}
    model = Op(row, function, kernels={"No": f"{op}_2026_09", "Yes": f"{op}_fp32_2026_09"},
               golden="rne_fp32")
    predicted = {cell: cells.predict(model, cell, "wormhole").max_ulp for cell in CELLS}
    assert predicted == {cell: device[cell] for cell in CELLS}
    assert [predicted[c] for c in CELLS] == [0, 0, 4, 1, 0, 9]
