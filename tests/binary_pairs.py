"""BF16 operand pairs for the binary-kernel tests: random patterns plus every pair of a set of
special patterns."""
from __future__ import annotations

import numpy as np


def pairs(specials, count: int = 4096, seed: int = 17):
    """``count`` random BF16 pairs (seeded) followed by every pair of ``specials``."""
    rng = np.random.default_rng(seed)
    x, y = (rng.integers(0, 1 << 16, count).astype(np.uint16) for _ in range(2))
    sx, sy = np.meshgrid(np.asarray(specials, dtype=np.uint16),
                         np.asarray(specials, dtype=np.uint16))
    return np.concatenate([x, sx.ravel()]), np.concatenate([y, sy.ravel()])
