"""torch's CPU generator reproduced (sfpu_sim.parity.torch_random): MT19937 as the C++ standard
checks it, the same 32-bit stream as numpy's legacy seeding, and torch.rand's float32 values."""
from __future__ import annotations

import numpy as np

from sfpu_sim.parity.torch_random import TorchGenerator


def test_the_cpp_standards_check_value():
    """[rand.predef]: the 10,000th output of a default-constructed std::mt19937 (seed 5489)."""
    assert int(TorchGenerator(5489).random(10_000)[-1]) == 4123659995


def test_the_stream_continues_across_calls_as_numpys_legacy_seeding_gives_it():
    g = TorchGenerator(0)
    pieces = np.concatenate([g.random(n) for n in (1, 623, 1, 700, 2000)])
    want = np.random.RandomState(0).randint(0, 1 << 32, pieces.size, dtype=np.uint64)
    assert np.array_equal(pieces.astype(np.uint64), want)
    assert [int(v) for v in pieces[:3]] == [2357136044, 2546248239, 3071714933]


def test_rand_keeps_the_low_24_bits_of_each_draw():
    draws, values = TorchGenerator(0).random(1000), TorchGenerator(0).rand(1000)
    assert values.dtype == np.float32 and values.min() >= 0 and values.max() < 1
    assert np.array_equal(values.astype(np.float64) * 2 ** 24, draws & 0xFFFFFF)
