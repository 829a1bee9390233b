"""The FP32 tally's worst lanes (sfpu_sim.fp32sweep.lane_tally): whatever order a chunk's lanes
come in, the Partial keeps the lanes a full ranking of every lane gives (distance descending,
then input pattern ascending)."""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import ulp
from sfpu_sim.fp32sweep import tally
from sfpu_sim.selection import EVERYTHING, regions_for

KEEP = 20


def _lanes(order: str):
    """Normal FP32 inputs whose outputs sit 0-3 steps from their expected patterns (most at 0,
    so ties at the floor abound), in ``order``."""
    rng = np.random.default_rng(7)
    x = np.concatenate([np.arange(0x3F800000, 0x3F800000 + 3000, dtype=np.uint32),
                        np.arange(0xBF800000, 0xBF800000 + 3000, dtype=np.uint32)])
    steps = rng.choice(4, x.size, p=[0.97, 0.02, 0.007, 0.003]).astype(np.uint32)
    expected = x.copy()
    out = expected + steps
    if order == "descending":
        x, expected, out = x[::-1], expected[::-1], out[::-1]
    elif order == "shuffled":
        k = rng.permutation(x.size)
        x, expected, out = x[k], expected[k], out[k]
    return np.ascontiguousarray(x), np.ascontiguousarray(out), np.ascontiguousarray(expected)


def _ranked(x, out, expected) -> list:
    """Every lane ranked by numpy (ulp.distance: the bitwise index, independently), the first
    KEEP as (distance, pattern)."""
    d = ulp.distance(expected, out, "daz-index", "fp32").distance.astype(np.int64)
    order = np.lexsort((x.astype(np.int64), -d))[:KEEP]
    return [[int(d[i]), int(x[i])] for i in order]


@pytest.mark.parametrize("parts", [1, 4])
@pytest.mark.parametrize("order", ["ascending", "descending", "shuffled"])
def test_the_worst_lanes_are_the_full_rankings_first(order, parts, monkeypatch):
    from sfpu_sim import threads

    monkeypatch.setattr(threads, "threads", lambda: parts)
    x, out, expected = _lanes(order)
    partial, distance, _, _ = tally.tally_chunk(x, out, expected, out, "fp32", EVERYTHING, KEEP,
                                                regions_for("exp"), 0)
    assert partial.worst[:, :2].tolist() == _ranked(x, out, expected)
    lane = {int(b): i for i, b in enumerate(x)}
    assert partial.worst[:, 2].tolist() == [int(out[lane[b]]) for b in partial.worst[:, 1]]
    assert partial.device.max == 3 and partial.worst[0, 0] == 3
