"""Binary SFPU fmod and remainder on floats (issue 17, item 4): ``calculate_sfpu_binary_fmod`` and
``calculate_sfpu_binary_remainder`` for either Dst, both chips, and their exact references.

Pins: compiled == Machine on (a, b) pairs; values derived by hand from the kernel source and the
instruction pages; the references against exact fractions; the table's cells over the driver's
domain (uniform(0.1, 1.1) for both operands): 0 in Float16_b, 4 in Float16 with a 16-bit Dst (the
kernel rounds to BF16 whatever the format), 0 with an FP32 one, as the device measured.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from sfpu_sim import formats, registry
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.parity.binary_rows import exhaustive_cell
from sfpu_sim.reference.binary_functions import binary_reference
from sfpu_sim.sweeps import DevicePath
from tests.binary_pairs import hand_cases, pairs, round_nearest_even
from tests.compiled_checks import diagonal_default

CHIPS = ("wormhole", "blackhole")
SPECIALS = np.array([0x0000, 0x8000, 0x3F80, 0xBF80, 0x4000, 0xC000, 0x40B0, 0xC0B0, 0x7F80,
                     0x7FC0, 0x3DCD, 0x3F8D, 0x7F7F, 0x0080], dtype=np.uint16)
NAMES = [f"binary_{op}{suffix}_2026_09" for op in ("fmod", "remainder")
         for suffix in ("", "_fp32")]


@pytest.mark.parametrize("name, arch", diagonal_default(NAMES, CHIPS))
def test_compiled_equals_machine(name, arch):
    program = registry.get(name).program(arch)
    x, y = pairs(SPECIALS, 2048, seed=31)
    path = DevicePath("bf16", "fp32", "fp32" if name.endswith("_fp32_2026_09") else "bf16")
    fast = run_binary_device(program, x, y, path, engine="compiled")
    slow = run_binary_device(program, x, y, path, engine="machine")
    np.testing.assert_array_equal(fast.kernel_fp32, slow.kernel_fp32)
    np.testing.assert_array_equal(fast.output, slow.output)


# (a, b) BF16 -> the FP32 Dst bits of the unrounded kernels. Quotients that are exact give exact
# remainders (5.5 = 2*2 + 1.5); fmod keeps a's sign, remainder b's (floor(-2.75) = -3: -5.5 + 6 =
# 0.5); a == b is 0 in fmod; b == 0 assigns NaN (0x7FC00000) in both. remainder(-0, 1): a * 1/b is
# -0 * 1 + (+0) = +0, floor +0, -0 - 0 * 1 = -0 on Blackhole (Wormhole's zeros are +0); the
# "r != 0" guard is SFPSETCC's raw-bit test, for which -0 is not zero, and the sign bits of -0
# and 1 differ, so Blackhole adds b: 1.0.
FMOD = {(0x40B0, 0x4000): 0x3FC00000, (0xC0B0, 0x4000): 0xBFC00000,
        (0x40B0, 0xC000): 0x3FC00000, (0xC0B0, 0xC000): 0xBFC00000,
        (0x40E0, 0x40E0): 0, (0x3F80, 0x0000): 0x7FC00000, (0x4040, 0x3F40): 0,
        (0x3E9A, 0x3DCD): 0x3A000000}
REMAINDER = {(0x40B0, 0x4000): 0x3FC00000, (0xC0B0, 0x4000): 0x3F000000,
             (0x40B0, 0xC000): 0xBF000000, (0xC0B0, 0xC000): 0xBFC00000,
             (0x3F80, 0x0000): 0x7FC00000, (0x3E9A, 0x3DCD): 0x3A000000,
             (0x8000, 0x3F80): {"wormhole": 0, "blackhole": 0x3F800000}}


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name, cases", [("binary_fmod_fp32_2026_09", FMOD),
                                         ("binary_remainder_fp32_2026_09", REMAINDER)])
def test_hand_derived_values(name, cases, arch):
    x, y, want = hand_cases(cases, arch)
    run = run_binary_device(registry.get(name).program(arch), x, y,
                            DevicePath("bf16", "fp32", "fp32"), engine="machine")
    assert [f"{int(v):#010x}" for v in run.kernel_fp32] == [f"{v:#010x}" for v in want]


def test_the_16bit_dst_kernel_rounds_to_bf16_in_float16():
    """The table's 4 Float16 steps: 0.11285 fmod 0.099976 (0x2f67, 0x2e66) is 0.015671 exactly
    (0x2404); the kernel's FP32 result rounded to BF16 (8 bits) is 4 Float16 steps above it."""
    for name in ("binary_fmod_2026_09", "binary_remainder_2026_09"):
        run = run_binary_device(registry.get(name).program("wormhole"),
                                np.array([0x2F67], np.uint16), np.array([0x2E66], np.uint16),
                                DevicePath("fp16", "fp16", "bf16"), engine="machine")
        gold, _ = binary_reference(name.split("_")[1], [0x2F67], [0x2E66],
                                   input_format="fp16", output_format="fp16")
        assert (hex(int(run.output[0])), hex(int(gold[0]))) == ("0x2408", "0x2404")


@pytest.mark.parametrize("function, checked", [("fmod", 19650), ("remainder", 19659)])
def test_references_are_exact(function, checked):
    """Every finite pair of 20,000 random BF16 pairs with b != 0 whose result is zero or normal:
    the reference is the exact a - trunc(a/b)*b (fmod) or a - floor(a/b)*b (remainder) rounded
    to nearest even at BF16's precision, checked in Fraction arithmetic (results below 2**-126
    are flushed by the reference and left aside)."""
    rng = np.random.default_rng(9)
    x, y = (rng.integers(0, 1 << 16, 20000).astype(np.uint16) for _ in range(2))
    bits, _ = binary_reference(function, x, y, "rne")
    xs, ys = (formats.bits_to_float64(formats.daz(b, formats.BF16), "bf16") for b in (x, y))
    got = formats.bits_to_float64(bits, "bf16")
    count = 0
    for a, b, g in zip(xs, ys, got):
        if not (math.isfinite(a) and math.isfinite(b)) or b == 0:
            continue
        quotient = Fraction(a) / Fraction(b)
        whole = math.trunc(quotient) if function == "fmod" else math.floor(quotient)
        exact = Fraction(a) - whole * Fraction(b)
        if exact == 0:
            assert g == 0, (function, a, b)
        elif abs(exact) >= Fraction(2) ** -126:
            assert Fraction(g) == round_nearest_even(exact, 8), (function, a, b)
        else:
            continue
        count += 1
    assert count == checked


@pytest.mark.parametrize("row", ["SfpuBinaryFmod", "SfpuBinaryRemainder"])
def test_float16_b_cells_over_the_driver_domain_are_exact(row):
    for dest in ("No", "Yes"):
        for arch in CHIPS:
            cell = exhaustive_cell(row, "bf16", dest, arch, every_pair=True)
            assert (cell.max_ulp, cell.lanes, cell.nonfinite) == (0, 449 ** 2, 0)


@pytest.mark.slow
@pytest.mark.parametrize("row", ["SfpuBinaryFmod", "SfpuBinaryRemainder"])
def test_float16_cells_over_the_driver_domain(row):
    """The device's Float16 figures, 4 (dest No) and 0 (dest Yes), over all 3585**2 pairs."""
    no = exhaustive_cell(row, "fp16", "No", "wormhole", every_pair=True)
    assert (no.max_ulp, no.lanes, no.worst["x_bits"], no.worst["y_bits"]) == \
        (4, 3585 ** 2, "0x2f67", "0x2e66")
    for arch in CHIPS:
        assert exhaustive_cell(row, "fp16", "Yes", arch, every_pair=True).max_ulp == 0
