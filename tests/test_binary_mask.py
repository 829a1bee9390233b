"""The float mask of the SfpuMask row (issue 17, item 4): ``calculate_mask`` through the harness's
``calculate_mask_binary``, both chips. Pins: compiled == Machine; values derived by hand (the
data zeroed where the mask is zero, left in place elsewhere; SFPSETCC's zero test reads raw
bits, so a -0.0 or denormal mask keeps the data where the reference's y != 0 zeroes it); the
driver's 24 crafted pairs, exact."""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import registry
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.parity.binary_rows import exhaustive_cell
from sfpu_sim.parity.binary_stimuli import MASK_PAIRS
from sfpu_sim.reference.binary_functions import binary_reference
from tests.binary_pairs import hand_cases, pairs

CHIPS = ("wormhole", "blackhole")
ONE, TWO, NAN = 0x3F80, 0x4000, 0x7FC0
# (data, mask) -> output: zero mask -> 0; any other mask (1, -0, a denormal, NaN) -> the data.
HAND = {(ONE, 0x0000): 0, (TWO, ONE): TWO, (NAN, 0x0000): 0, (ONE, 0x8000): ONE,
        (ONE, 0x0001): ONE, (ONE, NAN): ONE, (0xC040, 0xBF80): 0xC040}


@pytest.mark.parametrize("arch", CHIPS)
def test_compiled_equals_machine_and_hand_derived_values(arch):
    program = registry.get("binary_mask_2026_09").program(arch)
    x, y = pairs(np.array([0x0000, 0x8000, 0x0001, ONE, 0xBF80, NAN, 0x7F80], np.uint16), 1024)
    fast = run_binary_device(program, x, y, engine="compiled").output
    np.testing.assert_array_equal(fast, run_binary_device(program, x, y, engine="machine").output)
    x, y, want = hand_cases(HAND, arch)
    out = run_binary_device(program, x, y, engine="machine").output
    assert [hex(int(v)) for v in out] == [hex(v) for v in want]


def test_the_reference_zeroes_where_the_mask_compares_equal_to_zero():
    x, y, _ = hand_cases(HAND, "wormhole")
    bits, _ = binary_reference("mask", x, y)
    assert [hex(int(v)) for v in bits] == ["0x0", "0x4000", "0x0", "0x0", "0x0", "0x3f80",
                                           "0xc040"]


def test_the_drivers_pairs_are_exact():
    assert MASK_PAIRS == tuple((a, m) for a in range(1, 9) for m in (0, 1))
    for dest in ("No", "Yes"):
        for arch in CHIPS:
            cell = exhaustive_cell("SfpuMask", "bf16", dest, arch)
            assert (cell.max_ulp, cell.lanes, cell.exact) == (0, 16, True)
