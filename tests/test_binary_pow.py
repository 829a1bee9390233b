"""Binary SFPU pow (issue 17, item 4): ``calculate_sfpu_binary_power`` (in0 = base, in1 =
exponent), both chips, and its correctly rounded reference.

Pins: compiled == Machine (16-bit and FP32 Dst); values derived by hand from the source (the
negative-base NaN, the odd power's sign, the pow(x, 0) = 1 guard that comes last); the
reference's exact powers (a float64 result is returned exactly, never rounded to odd), IEEE
pow's special cases, and random pairs against arb.
"""
from __future__ import annotations

import flint
import numpy as np
import pytest

from sfpu_sim import formats, registry
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.reference.binary_functions import _float64_power, binary_reference
from sfpu_sim.sweeps import DevicePath
from tests.binary_pairs import assert_compiled_equals_machine, pairs
from tests.compiled_checks import diagonal_default

CHIPS = ("wormhole", "blackhole")
KERNEL = "binary_pow_2026_09"
SPECIALS = np.array([0x0000, 0x8000, 0x3F80, 0xBF80, 0x4000, 0xC000, 0x3F00, 0x4040, 0xC040,
                     0x7F80, 0xFF80, 0x7FC0, 0x0080, 0x4100, 0x3FC0], dtype=np.uint16)
FP32 = DevicePath("fp32", "fp32", "fp32")


@pytest.mark.parametrize("arch, dest", diagonal_default(CHIPS, ["bf16", "fp32"]))
def test_compiled_equals_machine(arch, dest):
    program = registry.get(KERNEL).program(arch)
    x, y = pairs(SPECIALS, 2048, seed=61)
    assert_compiled_equals_machine(program, x, y, DevicePath("bf16", "bf16", dest))


@pytest.mark.parametrize("arch", CHIPS)
def test_hand_derived_values(arch):
    """Through an FP32 Dst. A negative base (its sign bit, so -0 too) with a non-integral
    exponent is the quiet NaN; with an integral one it is |base|'s power, negated where the
    exponent is odd (its half not integral); |p| = 0 gives 1.0 whatever the base (NaN, -Inf,
    -2), the guard being last; base 1 with p = 0.5 goes through the log's cubic at m = 1."""
    bases = np.array([0xBF800000, 0x80000000, 0xC0000000, 0xC0000000, 0x7FC00000, 0xFF800000,
                      0xC0000000, 0x40000000, 0x40000000], dtype=np.uint32)
    powers = np.array([0x3F000000, 0x3FC00000, 0x40400000, 0x40000000, 0x00000000,
                       0x80000000, 0x80000000, 0x40400000, 0x40000000], dtype=np.uint32)
    out = run_binary_device(registry.get(KERNEL).program(arch), bases, powers, FP32,
                            engine="machine").output
    assert [f"{int(v):#010x}" for v in out[:2]] == ["0x7fc00000"] * 2
    assert out[2] == out[7] | 0x80000000 and out[3] == out[8]    # (-2)**3, (-2)**2
    assert out[7] >> 31 == 0 and out[8] >> 31 == 0
    assert [f"{int(v):#010x}" for v in out[4:7]] == ["0x3f800000"] * 3


def test_reference_exact_powers_and_specials():
    x = np.array([0x4000, 0x4080, 0x4110, 0xC000, 0x3FC0, 0x3E80, 0x4040, 0x3F80, 0xBF80,
                  0x7FC0, 0x0000, 0x0000], dtype=np.uint16)
    y = np.array([0x4040, 0x3F00, 0x3F00, 0x4040, 0x4000, 0xBF00, 0x3F00, 0x7F80, 0x3F00,
                  0x0000, 0xBF80, 0x4000], dtype=np.uint16)
    bits, _ = binary_reference("pow", x, y, "rne", output_format="fp32")
    assert [f"{int(v):#010x}" for v in bits] == [
        "0x41000000", "0x40000000", "0x40400000", "0xc1000000", "0x40100000", "0x40000000",
        "0x3fddb3d7", "0x3f800000", "0x7fc00000", "0x3f800000", "0x7f800000", "0x00000000"]
    # exact powers are found as exact; a power that is not a float64 is not
    assert (_float64_power(9.0, 0.5), _float64_power(0.25, -0.5), _float64_power(-2.0, 3.0),
            _float64_power(3.0, 0.5), _float64_power(3.0, -1.0), _float64_power(3.0, 40.0)) == \
        (3.0, 2.0, -8.0, None, None, None)


def test_reference_rounds_the_arb_value():
    """3,000 random BF16 pairs, base in (0, 16), exponent in (-4, 4): the reference's BF16 and
    FP32 roundings are those of x ** y from an arb ball at 150 bits."""
    rng = np.random.default_rng(67)
    x = rng.integers(0x3800, 0x4180, 3000).astype(np.uint16)
    y = rng.integers(0x3800, 0x4080, 3000).astype(np.uint16) | \
        (rng.integers(0, 2, 3000).astype(np.uint16) << 15)
    xs, ys = (formats.bits_to_float64(b, "bf16") for b in (x, y))
    want = np.empty(x.size)
    for k in range(x.size):
        with flint.ctx.workprec(150):
            want[k] = float((flint.arb(float(xs[k])) ** flint.arb(float(ys[k]))).mid())
    for out in ("bf16", "fp32"):
        bits, _ = binary_reference("pow", x, y, "rne", output_format=out)
        expected = formats.round_values(want, "rne", out)
        assert np.array_equal(bits, expected)
