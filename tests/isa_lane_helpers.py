"""Shared by the hand-derived condition-code and lane-movement tests (test_isa_cc.py,
test_isa_lanes.py): chips, lane layout, FP32 constants, running assembly with hazards as
errors, and flag patterns."""
import warnings

import numpy as np
import pytest

from sfpu_sim.asm import assemble
from sfpu_sim.machine import HazardWarning, Machine

BOTH = pytest.mark.parametrize("arch", ["wormhole", "blackhole"])
LANES = np.arange(32)
ROW = LANES // 8
EVEN = LANES % 2 == 0

ONE, MINUS_ONE = 0x3F800000, 0xBF800000
POS_ZERO, NEG_ZERO = 0x00000000, 0x80000000
POS_INF, NEG_INF = 0x7F800000, 0xFF800000
POS_NAN, NEG_NAN = 0x7FC00000, 0xFFC00000


def run(m: Machine, text: str) -> Machine:
    with warnings.catch_warnings():
        warnings.simplefilter("error", HazardWarning)
        return m.run(assemble(text, m.arch))


def flags_of(pattern: str) -> np.ndarray:
    """A 32-lane bool array repeating a string of 0/1 characters."""
    bits = np.array([c == "1" for c in pattern])
    return np.resize(bits, 32)
