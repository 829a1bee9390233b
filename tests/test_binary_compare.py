"""Binary SFPU float comparisons (issue 17, item 4): eq, ne, lt, le, gt, ge, both chips.

Pins: compiled == Machine on (x, y) pairs; hand-derived answers at zeros, denormals, NaN and the
infinities; the kernels agree with IEEE comparison of the DAZ inputs on every pair tried.
"""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import registry
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.reference.binary_functions import binary_reference

CHIPS = ("wormhole", "blackhole")
RELATIONS = ("eq", "ne", "lt", "le", "gt", "ge")
SPECIALS = np.array([0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x3F80, 0xBF80, 0x4000, 0x3F81,
                     0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x0080, 0x7F7F], dtype=np.uint16)


def _pairs(count: int = 4096, seed: int = 29):
    """Random pairs, near ties (y = x + 0, 1, -1 pattern steps) and every pair of specials."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << 16, count).astype(np.uint16)
    y = np.concatenate([rng.integers(0, 1 << 16, count // 2),
                        x[count // 2:].astype(np.int64) + rng.integers(-1, 2, count - count // 2)])
    sx, sy = np.meshgrid(SPECIALS, SPECIALS)
    return (np.concatenate([x, sx.ravel()]),
            np.concatenate([(y & 0xFFFF).astype(np.uint16), sy.ravel()]))


# One compile per source template by default (equal, strict, weak), on alternating chips.
COMPARE_DEFAULT = {("eq", "wormhole"), ("lt", "blackhole"), ("ge", "wormhole")}


@pytest.mark.parametrize("relation, arch", [
    pytest.param(r, arch, id=f"{r}-{arch}",
                 marks=() if (r, arch) in COMPARE_DEFAULT else pytest.mark.slow)
    for r in RELATIONS for arch in CHIPS])
def test_binary_compare_compiled_equals_machine(relation, arch):
    program = registry.get(f"binary_{relation}_2026_09").program(arch)
    x, y = _pairs()
    fast = run_binary_device(program, x, y, engine="compiled")
    slow = run_binary_device(program, x, y, engine="machine")
    assert fast.engine == "compiled" and slow.engine == "machine"
    np.testing.assert_array_equal(fast.output, slow.output)


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("relation", RELATIONS)
def test_binary_compare_is_ieee_on_daz_inputs(relation, arch):
    """|a| + |b| == 0 folds every zero and denormal together (the SFPMAD reads denormals as
    zero), so the kernels are IEEE comparisons of the DAZ inputs, NaN included."""
    x, y = _pairs(seed=31)
    out = run_binary_device(registry.get(f"binary_{relation}_2026_09").program(arch), x, y,
                            engine="machine").output
    ref, _ = binary_reference(relation, x, y)
    np.testing.assert_array_equal(out, ref)


# (x, y) -> the BF16 answer (1.0 = 0x3F80): signed zeros and denormals equal; NaN unordered
# (SFPIADD inf - (|a| + |b|) < 0 as integers); -inf < +inf in SFPSWAP's sign-magnitude order.
T, F = 0x3F80, 0x0000
NAN, NEG_NAN, INF, NINF = 0x7FC0, 0xFFC0, 0x7F80, 0xFF80
HAND = {
    "eq": {(0x8000, 0x0000): T, (0x0001, 0x8000): T, (NAN, NAN): F, (0x3F80, 0x3F81): F,
           (INF, INF): T},
    "ne": {(0x8000, 0x0000): F, (NAN, NAN): T, (NAN, 0x3F80): T, (0x3F80, 0x3F80): F},
    "lt": {(0x8000, 0x0000): F, (0x8001, 0x0001): F, (NINF, INF): T, (0x3F80, NAN): F,
           (NEG_NAN, 0x3F80): F, (0x3F80, 0x3F81): T},
    "le": {(0x3F80, 0x3F80): T, (NAN, 0x3F80): F, (0x0001, 0x8000): T, (0x3F81, 0x3F80): F},
    "gt": {(INF, 0x7F7F): T, (NEG_NAN, 0x3F80): F, (0x0000, 0x8000): F, (0x3F81, 0x3F80): T},
    "ge": {(0x8000, 0x0000): T, (0x3F80, NAN): F, (0x3F80, 0x3F81): F, (NINF, NINF): T},
}


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("relation", RELATIONS)
def test_binary_compare_hand_derived_special_values(relation, arch):
    cases = HAND[relation]
    x = np.array([p[0] for p in cases], dtype=np.uint16)
    y = np.array([p[1] for p in cases], dtype=np.uint16)
    out = run_binary_device(registry.get(f"binary_{relation}_2026_09").program(arch), x, y,
                            engine="machine").output
    assert [hex(v) for v in out] == [hex(v) for v in cases.values()]
