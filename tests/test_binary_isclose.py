"""Binary SFPU isclose (issue 17, item 4): ``calculate_sfpu_isclose`` with the harness's tolerances
(rtol 1e-5, atol 1e-8), both chips, and torch.isclose's reference.

Pins: compiled == Machine on pairs (either Dst); values derived by hand from each chip's source,
Blackhole's float compare against 0x7F800000 included; the reference against exact fractions;
the table's Float16_b cells, exact on the driver's crafted pairs.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from sfpu_sim import formats, registry
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.parity.binary_rows import exhaustive_cell
from sfpu_sim.parity.binary_stimuli import ISCLOSE_PAIRS
from sfpu_sim.reference.binary_functions import binary_reference
from sfpu_sim.sweeps import DevicePath
from tests.binary_pairs import hand_cases, pairs
from tests.compiled_checks import diagonal_default

CHIPS = ("wormhole", "blackhole")
SPECIALS = np.array([0x0000, 0x8000, 0x3F80, 0x3F81, 0xBF80, 0x4080, 0x7F80, 0xFF80, 0x7FC0,
                     0x4F30, 0x3224, 0x0080], dtype=np.uint16)


@pytest.mark.parametrize("dest, arch", diagonal_default(["bf16", "fp32"], CHIPS))
def test_compiled_equals_machine(dest, arch):
    program = registry.get("binary_isclose_2026_09").program(arch)
    a, b = pairs(SPECIALS, 2048, seed=43)
    path = DevicePath("bf16", "bf16", dest)
    fast = run_binary_device(program, a, b, path, engine="compiled")
    slow = run_binary_device(program, a, b, path, engine="machine")
    np.testing.assert_array_equal(fast.output, slow.output)


ONE = 0x3F80
# (a, b) -> output. 1 == 1; 1 and 1.0078125 are 2**-7 apart, over 1e-8 + 1e-5; 2 and 4 are not
# close. Wormhole rebuilds Inf/NaN lanes from the bits: the same infinity is close, opposite ones
# and NaN are not. Blackhole compares the floats |a|, |b| with 2139095040.0 instead: every lane
# with an operand of magnitude 2**31 - 2**23 (0x4EFF) or more is 0 (3e9 with itself, inf with
# inf), unless |a| is 2139095040.0 itself with b's bits; 0x4EFE is below it. 0x4EFF and 0x4EFE are
# 2**23 apart, far over 1e-5 of them.
HAND = {(ONE, ONE): ONE, (ONE, 0x3F81): 0, (0x4000, 0x4080): 0, (0x0000, 0x8000): ONE,
        (0x7F80, 0xFF80): 0, (0x7FC0, 0x7FC0): 0, (ONE, 0x7FC0): 0,
        (0x7F80, 0x7F80): {"wormhole": ONE, "blackhole": 0},
        (0x4F33, 0x4F33): {"wormhole": ONE, "blackhole": 0},
        (0x4EFF, 0x4EFF): ONE, (0x4EFE, 0x4EFE): ONE, (0x4EFF, 0x4EFE): 0}


@pytest.mark.parametrize("arch", CHIPS)
def test_hand_derived_values(arch):
    a, b, want = hand_cases(HAND, arch)
    out = run_binary_device(registry.get("binary_isclose_2026_09").program(arch), a, b,
                            engine="machine").output
    assert [hex(int(v)) for v in out] == [hex(v) for v in want]


def test_reference_is_torch_isclose_in_exact_arithmetic():
    """Every finite pair of 20,000 random BF16 pairs, with a slice of near pairs mixed in: 1
    exactly where a == b or |a - b| <= 1e-8 + 1e-5 * |b| (the float64 constants, exactly)."""
    rng = np.random.default_rng(7)
    a = rng.integers(0, 1 << 16, 20000).astype(np.uint16)
    b = rng.integers(0, 1 << 16, 20000).astype(np.uint16)
    b[:5000] = a[:5000] + rng.integers(-2, 3, 5000).astype(np.uint16)
    bits, _ = binary_reference("isclose", a, b, "rne")
    xs, ys = (formats.bits_to_float64(formats.daz(v, formats.BF16), "bf16") for v in (a, b))
    finite = np.isfinite(xs) & np.isfinite(ys)
    want = [x == y or abs(Fraction(x) - Fraction(y)) <=
            Fraction(1e-08) + Fraction(1e-05) * abs(Fraction(y))
            for x, y in zip(xs[finite], ys[finite])]
    got = formats.bits_to_float64(bits, "bf16")[finite] == 1.0
    assert list(got) == want
    assert (sum(want), int(finite.sum())) == (4850, 19877)


def test_the_drivers_pairs_are_exact():
    assert ISCLOSE_PAIRS == ((1, 1), (2, 4), (3, 3), (4, 6), (5, 5), (6, 8), (7, 7), (8, 10))
    for dest in ("No", "Yes"):
        for arch in CHIPS:
            cell = exhaustive_cell("SfpuIsclose", "bf16", dest, arch)
            assert (cell.max_ulp, cell.lanes, cell.exact) == (0, 8, True)
