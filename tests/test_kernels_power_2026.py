"""The Sep-2026 power-family kernels (kernels/power_2026.py): cube root.

Where the figures come from:

* Engine agreement: the compiled engine against the Machine, every BF16 input, both chips.
* Spot values are derived from the algorithm (exact cubes, zeros, infinities) or pinned from
  this emulator where stated (a NaN's payload, which the chips' SFPMADs make differently).
* Table cells: tt-llk's measured table (sfpu_sim/data/sfpu_accuracy_budget_2026-09-30.csv,
  Wormhole), predicted through sfpu_sim.parity.cells with the harness's golden (the exact cube
  root rounded to FP32, sfpu_sim/reference/power_functions.py).
"""
from __future__ import annotations

import numpy as np
import pytest

import kernels.power_2026  # noqa: F401 (registers the kernels)
from sfpu_sim import registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
ALL_BF16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)
BF16_PATH, FP32_PATH = DevicePath("bf16", "bf16", "bf16"), DevicePath("fp32", "fp32", "fp32")
CBRT = ("cbrt_2026_09", "cbrt_fp32_2026_09")
CELLS = [(fmt, dest) for fmt in ("bf16", "fp16", "fp32") for dest in ("No", "Yes")]


def program(name: str, chip: str):
    return registry.get(name).program(chip)


def run_bf16(name: str, chip: str, inputs) -> list[int]:
    x = np.asarray(inputs, dtype=np.uint16)
    return [int(v) for v in run_device(program(name, chip), x, BF16_PATH).output]


def run_fp32(name: str, chip: str, inputs) -> list[int]:
    x = np.asarray(inputs, dtype=np.uint32)
    return [int(v) for v in run_device(program(name, chip), x, FP32_PATH,
                                       fp32_inputs=True).output]


def test_registered_pair():
    bf16, fp32 = (registry.get(name) for name in CBRT)
    assert (bf16.template, bf16.function, bf16.dest, fp32.dest) == \
        ("calculate_cube_root", "cbrt", "bf16", "fp32")
    assert fp32.params == {"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True}
    assert registry.for_dest(bf16, "fp32").spec.name == "cbrt_fp32_2026_09"


@pytest.mark.slow   # compiled == Machine: a covering subset by default (test_compiled)
@pytest.mark.parametrize("chip", BOTH)
def test_compiled_engine_equals_machine_on_random_fp32_inputs(chip):
    x = np.random.default_rng(20260930).integers(0, 2 ** 32, 4096, dtype=np.uint32)
    runs = [run_device(program(CBRT[1], chip), x, FP32_PATH, fp32_inputs=True, engine=engine)
            for engine in ("compiled", "machine")]
    np.testing.assert_array_equal(runs[0].output, runs[1].output)
    np.testing.assert_array_equal(runs[0].kernel_fp32, runs[1].kernel_fp32)


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("x, expected", [
    # +-0: the seed is finite, d = 0 * y*y = +0; d takes a's sign, and -0 * t*t is an SFPMAD
    # with a +0 addend: +0. SFP_STOCH_RND maps zeros to +0 anyway.
    (0x0000, 0x0000), (0x8000, 0x0000),
    # exact cubes: the refined root is within the BF16 half step of 1, 2 and -3
    (0x3F80, 0x3F80), (0x4100, 0x4000), (0xC1D8, 0xC040),
    # +-Inf: d = Inf * y*y, c = Inf, t = Inf: +-Inf * Inf = +-Inf
    (0x7F80, 0x7F80), (0xFF80, 0xFF80),
    # a NaN stays a NaN, which SFP_STOCH_RND turns into +Inf
    (0x7FC0, 0x7F80),
])
def test_bf16_dst_hand_derived_values(x, expected, chip):
    assert run_bf16(CBRT[0], chip, [x]) == [expected]


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("x, expected", [
    (0x00000000, 0x00000000), (0x80000000, 0x00000000),      # as above, no rounding after
    (0x3F800000, 0x3F800000), (0x41000000, 0x40000000),      # cbrt(1) = 1, cbrt(8) = 2
    (0x7F800000, 0x7F800000), (0xFF800000, 0xFF800000),
    # cbrt(-27): the second refinement lands one FP32 step above 3 (pinned from this
    # emulator, both chips: the kernel's 1-step error, inside the table's 2)
    (0xC1D80000, 0xC0400001),
])
def test_fp32_dst_values(x, expected, chip):
    assert run_fp32(CBRT[1], chip, [x]) == [expected]


@pytest.mark.parametrize("chip, expected", [("wormhole", 0x7F800001), ("blackhole", 0x7FC00000)])
def test_fp32_dst_nan_is_each_chips_nan(chip, expected):
    """A NaN input flows through the SFPMADs: Wormhole keeps a NaN of the operands' pattern,
    Blackhole's MAD returns its canonical NaN (pinned from this emulator)."""
    assert run_fp32(CBRT[1], chip, [0x7FC00000]) == [expected]


@pytest.mark.parametrize("fmt, dest", CELLS)
def test_cbrt_table_cells(fmt, dest):
    """Wormhole table row Cbrt: 1, 0, 4, 1, 65536, 2 (bf16 No/Yes, fp16, fp32). The fp32 No
    figure is the 16-bit Dst: the input truncated to BF16, the result rounded to BF16."""
    op = Op("Cbrt", "cbrt", kernels={"No": CBRT[0], "Yes": CBRT[1]}, golden="rne_fp32")
    device = {(c.input_format, c.dest): c.max_ulp for c in device_table.read()["Cbrt"]}
    assert cells.predict(op, (fmt, fmt, dest), "wormhole").max_ulp == device[(fmt, dest)]


# --- Rdiv -----------------------------------------------------------------------------------
RDIV = ("rdiv_2026_09", "rdiv_fp32_2026_09")


@pytest.mark.slow   # compiled == Machine: a covering subset by default (test_compiled)
@pytest.mark.parametrize("chip", BOTH)
def test_rdiv_compiled_engine_equals_machine_on_random_fp32_inputs(chip):
    x = np.random.default_rng(20260931).integers(0, 2 ** 32, 4096, dtype=np.uint32)
    runs = [run_device(program(RDIV[1], chip), x, FP32_PATH, fp32_inputs=True, engine=engine)
            for engine in ("compiled", "machine")]
    np.testing.assert_array_equal(runs[0].output, runs[1].output)
    np.testing.assert_array_equal(runs[0].kernel_fp32, runs[1].kernel_fp32)


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("x, expected", [
    # powers of two: every reciprocal path is exact there (1/1, 1/4, 1/0.5), times 2 exact
    (0x3F80, 0x4000), (0x4080, 0x3F00), (0x3F00, 0x4080), (0xBF80, 0xC000),
    # x >= 2**126: 1/x is below the smallest normal, flushed to 0 (the table's 129-step cell)
    (0x7E80, 0x0000),
])
def test_rdiv_bf16_dst_hand_derived_values(x, expected, chip):
    assert run_bf16(RDIV[0], chip, [x]) == [expected]


@pytest.mark.parametrize("fmt, dest", CELLS)
def test_rdiv_table_cells(fmt, dest):
    """Wormhole row Rdiv(approx=No): 129(tol), 127(tol), 4, 1, 8388609(tol), 8259561(tol):
    the large figures are x >= 2**126, where 2/x is a normal or denormal FP32 value but the
    reciprocal has flushed to 0 first."""
    op = Op("Rdiv(approx=No)", "rdiv_2", kernels={"No": RDIV[0], "Yes": RDIV[1]},
            golden="rne_fp32")
    device = {(c.input_format, c.dest): c.max_ulp for c in device_table.read()["Rdiv(approx=No)"]}
    assert cells.predict(op, (fmt, fmt, dest), "wormhole").max_ulp == device[(fmt, dest)]
