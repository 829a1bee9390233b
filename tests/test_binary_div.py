"""Binary SFPU division (issue 17, item 4): ``calculate_sfpu_binary_div`` (16-bit Dst) and the
generic ``calculate_sfpu_binary<DIV>`` arm, both chips, and the correctly rounded x / y.

Pins: compiled == Machine on (x, y) pairs; special values derived by hand from the kernel source
and the instruction pages; the reference's round-to-odd quotient against exact fractions.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from sfpu_sim import formats, registry
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.reference.binary_functions import binary_reference
from sfpu_sim.sweeps import DevicePath
from tests.binary_pairs import (assert_compiled_equals_machine, hand_cases, pairs,
                                round_nearest_even)

CHIPS = ("wormhole", "blackhole")
SPECIALS = np.array([0x0000, 0x8000, 0x0001, 0x8001, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0,
                     0x7F7F, 0x0080, 0x4040, 0x3FC0], dtype=np.uint16)


def _pairs(count: int = 4096, seed: int = 23):
    return pairs(SPECIALS, count, seed)


# One compile per chip by default (the ttnn kernel); the generic arm under slow.
@pytest.mark.parametrize("name, arch", [
    pytest.param(name, arch, id=f"{name}-{arch}",
                 marks=() if name == "binary_div_2026_09" else pytest.mark.slow)
    for name in ("binary_div_2026_09", "binary_div_generic_2026_09") for arch in CHIPS])
def test_binary_div_compiled_equals_machine(name, arch):
    program = registry.get(name).program(arch)
    x, y = _pairs()
    assert_compiled_equals_machine(program, x, y)


# (x, y) -> BF16-Dst output. 1/3 = 0x3EAAAAAB in FP32 rounds to 0x3EAB (the generic arm's
# truncating store keeps 0x3EAA). SFPSETCC's zero test reads raw bits: -0 and denormals are not
# zero there, so -0/+0 and denormal/0 take the x/0 arm (copysgn(inf, x)), and 1/-0 falls through
# to the arithmetic (1 * copysgn(inf, -0)). The reciprocal of NaN is 0 on both chips (WH: the
# scale 2**(254-255) flushes; BH: SFPARECIP treats NaN as huge). A product with NaN or 0 * inf
# is 0x7F800001-ish on Wormhole, which float32_to_bf16_rne carries to +inf; Blackhole's NaN is
# 0x7FC00000 (sfpu_sim.fma).
ONE, THREE, INF, NINF, NAN = 0x3F80, 0x4040, 0x7F80, 0xFF80, 0x7FC0
HAND = {
    (ONE, THREE): 0x3EAB, (0x4000, 0x3FC0): 0x3FAB, (THREE, ONE): THREE,
    (0x0000, 0x0000): NAN, (0x8000, 0x0000): NINF, (ONE, 0x0000): INF, (0xBF80, 0x0000): NINF,
    (ONE, 0x8000): NINF, (0x0001, 0x0000): INF, (ONE, 0x0001): INF,
    (INF, ONE): INF, (ONE, INF): 0x0000, (ONE, NAN): 0x0000,
    (INF, INF): {"wormhole": INF, "blackhole": NAN},
    (NAN, ONE): {"wormhole": INF, "blackhole": NAN},
    (0x7F7F, 0x0080): INF, (0x0080, 0x7F7F): 0x0000,
}
GENERIC = {(ONE, THREE): 0x3EAA, (0x0000, 0x0000): {"wormhole": INF, "blackhole": NAN},
           (ONE, 0x0000): INF, (0x4000, 0x3FC0): 0x3FAA}


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name, cases", [("binary_div_2026_09", HAND),
                                         ("binary_div_generic_2026_09", GENERIC)])
def test_binary_div_hand_derived_special_values(name, cases, arch):
    x, y, want = hand_cases(cases, arch)
    out = run_binary_device(registry.get(name).program(arch), x, y, engine="machine").output
    assert [hex(v) for v in out] == [hex(v) for v in want]


def test_binary_div_reference_rounds_the_exact_quotient():
    """Every normal quotient of 20,000 random BF16 and FP16 pairs (a pinned count of them),
    checked against Fraction arithmetic rounded to nearest even at the format's precision (no
    double rounding)."""
    rng = np.random.default_rng(5)
    counts = {}
    for fmt, precision in (("bf16", 8), ("fp16", 11)):
        x, y = (rng.integers(0, 1 << 16, 20000).astype(np.uint16) for _ in range(2))
        bits, _ = binary_reference("div", x, y, "rne", input_format=fmt, output_format=fmt)
        xs, ys = (formats.bits_to_float64(formats.daz(b, formats.FORMATS[fmt]), fmt)
                  for b in (x, y))
        got = formats.bits_to_float64(bits, fmt)
        checked = 0
        for a, b, g in zip(xs, ys, got):
            if not (np.isfinite(a) and np.isfinite(b)) or b == 0 or a == 0:
                continue
            exact = Fraction(a) / Fraction(b)
            if not np.isfinite(g) or g == 0 or abs(exact) < Fraction(2) ** -14:
                continue                    # overflow, underflow and FP16 subnormals aside
            assert Fraction(g) == round_nearest_even(exact, precision), (fmt, a, b)
            checked += 1
        counts[fmt] = checked
    assert counts == {"bf16": 8458, "fp16": 13100}


# calculate_sfpu_binary_div<..., true> (FP32 Dst): (x, y) BF16 -> the kernel's FP32 Dst bits.
# Wormhole (module docstring of kernels.binary_div_2026): exact quotients come out exact (the
# residual step squares the seed's error); a non-normal operand takes in0 times the divisor's
# power of two with its exponent inverted: x/+0 = x * inf, 0/x = 0 * 2**(254-e) = +0 (every
# Wormhole zero is +0), x/inf = x * 0; a NaN divisor is returned as it is; 0/0 = 0 * inf is
# Wormhole's NaN, sign | 0x7F800001. The exponent is restored in two factors: 2**127/2**-126
# overflows to inf, 2**-126/2 underflows to 0. Blackhole: q = x * 1/y, refined only where q is
# finite, so 1/inf = 1 * 0 refined by (1 - 0 * inf) = NaN, as is 5/-inf; the zero-divisor arm
# last: 0/0 is Prgm2's NaN and -0/+0 is copysgn(inf, -0) (-0 is not zero to SFPSETCC).
F32_INF, F32_NINF, F32_NAN = 0x7F800000, 0xFF800000, 0x7FC00000
FP32_HAND = {
    (THREE, 0x3FC0): 0x40000000, (0xC0E0, 0x4000): 0xC0600000, (ONE, ONE): 0x3F800000,
    (ONE, 0x0000): F32_INF, (0xBF80, 0x0000): F32_NINF, (ONE, 0x8000): F32_NINF,
    (0x0000, ONE): 0, (0x8000, ONE): 0, (INF, ONE): F32_INF, (ONE, NAN): F32_NAN,
    (ONE, INF): {"wormhole": 0, "blackhole": F32_NAN},
    (0x0000, 0x0000): {"wormhole": 0x7F800001, "blackhole": F32_NAN},
    (0x8000, 0x0000): {"wormhole": 0xFF800001, "blackhole": F32_NINF},
    (0x7F7F, 0x3F00): F32_INF, (0x0080, 0x4000): 0, (0x7F00, 0x0080): F32_INF,
    (0x0080, 0x7F00): 0, (0x40A0, NINF): {"wormhole": 0, "blackhole": F32_NAN},
}


@pytest.mark.parametrize("arch", CHIPS)
def test_binary_div_fp32_dst_hand_derived_special_values(arch):
    x, y, want = hand_cases(FP32_HAND, arch)
    run = run_binary_device(registry.get("binary_div_fp32_2026_09").program(arch), x, y,
                            DevicePath("bf16", "fp32", "fp32"), engine="machine")
    assert [f"{int(v):#010x}" for v in run.kernel_fp32] == [f"{v:#010x}" for v in want]


@pytest.mark.parametrize("arch", CHIPS)
def test_binary_div_fp32_dst_compiled_equals_machine(arch):
    program = registry.get("binary_div_fp32_2026_09").program(arch)
    x, y = _pairs()
    path = DevicePath("bf16", "fp32", "fp32")
    fast = run_binary_device(program, x, y, path, engine="compiled")
    slow = run_binary_device(program, x, y, path, engine="machine")
    np.testing.assert_array_equal(fast.kernel_fp32, slow.kernel_fp32)
    np.testing.assert_array_equal(fast.output, slow.output)
