"""Binary SFPU kernels (issue 17, deliverable 4, first slice): add, sub, rsub, mul, max, min.

Pins: the compiled engine equals the Machine on (x, y) pairs; special values derived by hand
from the instruction pages and the chips' multiply-add rules (tt-isa-documentation SFPMAD.md
and Miscellaneous/FMA/fma.c, as sfpu_sim.fma models them); the exhaustive-in-x maximum ULP for
fixed y; the operand checks the CLI relies on.
"""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import registry
from sfpu_sim.binary_device import (
    BinaryOperandError,
    require_operands,
    run_binary_device,
)
from sfpu_sim.fp32sweep.pair_sweep import sweep_pairs
from sfpu_sim.reference.binary_functions import binary_reference
from sfpu_sim.sweeps import DevicePath
from tests.binary_pairs import assert_compiled_equals_machine, pairs

CHIPS = ("wormhole", "blackhole")
BINARY = ("binary_add_2026_09", "binary_sub_2026_09", "binary_rsub_2026_09",
          "binary_mul_2026_09", "binary_mul_rne_2026_09", "binary_max_2026_09",
          "binary_min_2026_09")
SPECIALS = np.array([0x0000, 0x8000, 0x0001, 0x8001, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0,
                     0x7F7F, 0x0080, 0x3B80, 0x3F81], dtype=np.uint16)


def _pairs(count: int = 4096, seed: int = 17):
    return pairs(SPECIALS, count, seed)


# Compiling is the cost: one program per family by default (add, max/min, the RNE multiply),
# each on one chip; every kernel x chip under slow.
BINARY_DEFAULT = {("binary_add_2026_09", "wormhole"), ("binary_max_2026_09", "blackhole"),
                  ("binary_mul_rne_2026_09", "blackhole")}


@pytest.mark.parametrize("name, arch", [
    pytest.param(name, arch, id=f"{name}-{arch}",
                 marks=() if (name, arch) in BINARY_DEFAULT else pytest.mark.slow)
    for name in BINARY for arch in CHIPS])
def test_binary_compiled_equals_machine(name, arch):
    program = registry.get(name).program(arch)
    x, y = _pairs()
    assert_compiled_equals_machine(program, x, y)


@pytest.mark.slow
@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", [*BINARY, "binary_mul_rne_fp32_2026_09"])
def test_binary_compiled_equals_machine_with_fp32_dst(name, arch):
    program = registry.get(name).program(arch)
    x, y = _pairs(seed=18)
    path = DevicePath(dest="fp32")
    fast = run_binary_device(program, x, y, path, engine="compiled")
    slow = run_binary_device(program, x, y, path, engine="machine")
    np.testing.assert_array_equal(fast.output, slow.output)


# (x, y) -> BF16-Dst output per kernel, derived by hand. SFPADD is x * 1.0 + y and SFPMUL
# x * y + 0.0 (SFPMAD, one rounding); SFPSTORE to a BF16 Dst flushes denormals and truncates.
# Wormhole: every zero result is +0; a NaN result is 0x7F800001 | ..., whose BF16 truncation
# is 0x7F80 (sfpu_sim.fma, fma.c fma_model_wh). Blackhole: IEEE zero signs, NaN 0x7FC00000.
ONE, TWO, INF, NINF, NAN = 0x3F80, 0x4000, 0x7F80, 0xFF80, 0x7FC0
HAND = {
    # 1 + 1, inf with 1, a flushed denormal (0x0001 reads as +0), 1 + 2**-8 (a BF16 tie that
    # the truncating store rounds down)
    "binary_add_2026_09": {(ONE, ONE): TWO, (INF, ONE): INF, (0x0001, ONE): ONE,
                           (ONE, 0x3B80): ONE, (0x3F81, 0x3B80): 0x3F81,
                           (0x8000, 0x0000): 0x0000},
    "binary_sub_2026_09": {(ONE, ONE): 0x0000, (INF, ONE): INF, (0x0001, ONE): 0xBF80,
                           (NINF, NINF): {"wormhole": INF, "blackhole": NAN},
                           (0x8000, 0x0000): {"wormhole": 0x0000, "blackhole": 0x8000}},
    "binary_rsub_2026_09": {(ONE, TWO): ONE, (INF, ONE): NINF, (0x0001, ONE): ONE,
                            (0x0000, 0x8000): {"wormhole": 0x0000, "blackhole": 0x8000}},
    # 1.0078125 * 1.5 = 1.51171875, a tie between 0x3FC1 and 0x3FC2: truncated to 0x3FC1;
    # -0 * +0 + 0.0 = +0; a NaN operand
    "binary_mul_2026_09": {(0x3F81, 0x3FC0): 0x3FC1, (0x8000, 0x0000): 0x0000,
                           (INF, 0x0000): {"wormhole": INF, "blackhole": NAN},
                           (NAN, ONE): {"wormhole": INF, "blackhole": NAN},
                           (0x0001, INF): {"wormhole": INF, "blackhole": NAN}},
    # the same tie to even (0x3FC2); 0 where an operand is ±0. SFPSETCC's zero test reads
    # bits, so a denormal is not zero there: denormal * inf is 0 * inf, NaN, as in mul
    "binary_mul_rne_2026_09": {(0x3F81, 0x3FC0): 0x3FC2, (0x8000, ONE): 0x0000,
                               (0x0001, INF): {"wormhole": INF, "blackhole": NAN},
                               (INF, 0x0000): 0x0000, (INF, ONE): INF},
    # SFPSWAP's sign-magnitude order: -0 < +0, +NaN above +inf; the discarded NaN is kept
    "binary_max_2026_09": {(0x8000, 0x0000): 0x0000, (NAN, ONE): NAN, (ONE, NAN): NAN,
                           (NINF, ONE): ONE, (0x0001, 0x0000): 0x0000,
                           (0xFFC0, ONE): 0xFFC0},
    "binary_min_2026_09": {(0x8000, 0x0000): 0x8000, (NAN, ONE): NAN, (ONE, NAN): NAN,
                           (INF, ONE): ONE, (0x8001, 0x0000): 0x8000,
                           (0xFFC0, ONE): 0xFFC0},
}


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", sorted(HAND))
def test_binary_hand_derived_special_values(name, arch):
    cases = HAND[name]
    x = np.array([p[0] for p in cases], dtype=np.uint16)
    y = np.array([p[1] for p in cases], dtype=np.uint16)
    want = [v[arch] if isinstance(v, dict) else v for v in cases.values()]
    out = run_binary_device(registry.get(name).program(arch), x, y, engine="machine").output
    assert [hex(v) for v in out] == [hex(v) for v in want]


def test_binary_fp32_dst_packer_rounds_the_tie_away():
    """An FP32 Dst keeps 1 + 2**-8 exactly; the packer rounds it to nearest, ties away."""
    program = registry.get("binary_add_2026_09").program("wormhole")
    x, y = np.array([ONE, 0x3F81], np.uint16), np.array([0x3B80, 0x3B80], np.uint16)
    out = run_binary_device(program, x, y, DevicePath(dest="fp32"), engine="machine").output
    assert [hex(v) for v in out] == ["0x3f81", "0x3f82"]


# Every BF16 x against y = 1.0, -3.0, 2**-8 (BF16 Dst, RNE reference, daz-index ULP): the
# maximum over all three y, then per y. Truncating stores cost 1 step; mul_rne's 1 is the
# underflow boundary (the SFPMAD flushes a product the reference rounds up to 2**-126).
SWEEP_Y = [0x3F80, 0xC040, 0x3B80]
PINNED = {"binary_add_2026_09": (1, [1, 1, 1]), "binary_sub_2026_09": (1, [1, 1, 1]),
          "binary_rsub_2026_09": (1, [1, 1, 1]), "binary_mul_2026_09": (1, [0, 1, 1]),
          "binary_mul_rne_2026_09": (1, [0, 0, 1]), "binary_max_2026_09": (0, [0, 0, 0]),
          "binary_min_2026_09": (0, [0, 0, 0])}


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", sorted(PINNED))
def test_binary_exhaustive_in_x_max_ulp(name, arch):
    summary = sweep_pairs(registry.get(name), arch, SWEEP_Y, engine="machine")
    assert summary["count"] == 3 * 65025
    assert (summary["max_ulp"], [p["max_ulp"] for p in summary["per_y"]]) == PINNED[name]


def test_binary_reference_rounds_a_wide_sum_to_odd_first():
    """2**100 - 2**-100 truncated is the BF16 below 2**100 only if the sum is not first
    rounded to nearest in float64 (the round-to-odd step of the reference)."""
    big, tiny = np.array([0x7180], np.uint16), np.array([0x0D80], np.uint16)
    rne, _ = binary_reference("sub", big, tiny, "rne")
    assert hex(rne[0]) == "0x7180"
    below, _ = binary_reference("sub", big, tiny, "ties_away")
    assert hex(below[0]) == "0x7180"
    value = binary_reference("sub", big, tiny)[1][0]
    assert value < 2.0 ** 100


def test_binary_operand_checks():
    with pytest.raises(BinaryOperandError, match="binary kernel"):
        require_operands(registry.get("binary_add_2026_09"), False)
    with pytest.raises(BinaryOperandError, match="takes one operand"):
        require_operands(registry.get("tanh"), True)
    assert "binary_add_2026_09" not in registry.names()     # unary listings stay unary
