"""The packer's FP32 Dst -> BF16 output (sweeps._pack: dst_moves.read_32bit with to_bf16, one
compiled pass through Dst's layout) against SFPSTOCHRND's rounding applied to the patterns
directly (isa.convert's array form of the same definition), and against hand-derived patterns.
Before that definition had one home, formats held a numpy copy of it; the two agreed on all
2**32 patterns (checked once, 2026-11-28: 0 differ)."""
from __future__ import annotations

import numpy as np

from sfpu_sim import sweeps
from sfpu_sim.isa.convert import fp32_to_bf16_ties_away
from sfpu_sim.machine import LANES_PER_SFPU, Dst, Machine

PATH = sweeps.DevicePath("fp32", "bf16", "fp32")


def packed(patterns: np.ndarray, arch: str = "wormhole") -> np.ndarray:
    """The patterns written into an FP32 Dst as the unpacker does, then packed."""
    template = Machine(arch, lanes=LANES_PER_SFPU)
    inputs, padded = sweeps._padded_inputs(patterns, PATH, True)
    dst = Dst(padded.size // LANES_PER_SFPU, 16, template)
    sweeps._unpack(dst, padded, PATH, True)
    return sweeps._pack(dst, PATH, inputs.size)


def test_every_exponent_and_rounding_edge_packs_as_sfpstochrnd_rounds():
    mantissas = np.array([0, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x10000, 0x18000, 0x7F7FFF,
                          0x7F8000, 0x7FFFFF], dtype=np.uint32)
    exponents = np.arange(256, dtype=np.uint32) << np.uint32(23)
    x = (exponents[:, None] | mantissas[None, :]).ravel()
    x = np.concatenate([x, x | np.uint32(0x80000000)])
    for arch in ("wormhole", "blackhole"):
        assert np.array_equal(packed(x, arch), fp32_to_bf16_ties_away(x))


def test_hand_derived_patterns():
    x = np.array([0x3F808000, 0x3F807FFF, 0x3F818000, 0x7F7F8000, 0x80000001, 0x80000000,
                  0x7FC00001, 0xFFC00000, 0x00800000], dtype=np.uint32)
    want = [0x3F81,      # a tie rounds away from zero
            0x3F80,      # below half: down
            0x3F82,      # a tie away from zero, odd kept bit
            0x7F80,      # the carry reaches infinity
            0x0000,      # a negative denormal becomes +0
            0x0000,      # -0 becomes +0
            0x7F80,      # NaN becomes signed infinity
            0xFF80,
            0x0080]      # the smallest normal is kept
    assert packed(x).tolist() == want
