"""Binary SFPU atan2 (issue 17, item 4): ``calculate_sfpu_atan2`` for either Dst, both chips, and
its correctly rounded reference.

Pins: compiled == Machine on (y, x) pairs; values derived by hand from the kernel source (the
quadrant fixes, the constants, NaN); the reference against arb balls; a cell of the driver's
domain, uniform(-5, 5) for both operands.
"""
from __future__ import annotations

import flint
import numpy as np
import pytest

from sfpu_sim import formats, registry
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.parity.binary_rows import BINARY_ROWS, exhaustive_cell
from sfpu_sim.parity.binary_stimuli import domain_patterns
from sfpu_sim.reference.binary_functions import (_atan2_near, _atan2_to_odd, binary_reference,
                                                 near_grid)
from sfpu_sim.sweeps import DevicePath
from tests.binary_pairs import hand_cases, pairs
from tests.compiled_checks import diagonal_default

CHIPS = ("wormhole", "blackhole")
SPECIALS = np.array([0x0000, 0x8000, 0x3F80, 0xBF80, 0x40A0, 0xC0A0, 0x7F80, 0xFF80, 0x7FC0,
                     0x3DCD, 0x0080, 0x7F7F], dtype=np.uint16)
KERNELS = {"bf16": "binary_atan2_2026_09", "fp32": "binary_atan2_fp32_2026_09"}


@pytest.mark.parametrize("dest, arch", diagonal_default(["bf16", "fp32"], CHIPS))
def test_compiled_equals_machine(dest, arch):
    program = registry.get(KERNELS[dest]).program(arch)
    y, x = pairs(SPECIALS, 2048, seed=41)
    path = DevicePath("bf16", "fp32", dest)
    fast = run_binary_device(program, y, x, path, engine="compiled")
    slow = run_binary_device(program, y, x, path, engine="machine")
    np.testing.assert_array_equal(fast.kernel_fp32, slow.kernel_fp32)
    np.testing.assert_array_equal(fast.output, slow.output)


# (y, x) BF16 -> the FP32 kernel's Dst bits. y = 0: a = 0, r = 0, then pi - r (pi/2 * 2 or
# addexp(pi/2, 1): 0x40490FDB) where x < 0, a sign-bit test, so x = -0 counts; y's sign last,
# so y = -0 gives -pi or -0. Both infinite: |x| == |y| as integers and max == inf, pi/4 (pi/2 *
# 0.5, or addexp(pi/2, -1) on Blackhole, which takes every |x| == |y|, so atan2(1, 1) too). A NaN
# operand: Wormhole returns max, the NaN itself; Blackhole assigns 0x7FC00000.
PI, QUARTER_PI = 0x40490FDB, 0x3F490FDB
FP32_HAND = {(0x0000, 0x3F80): 0, (0x0000, 0xBF80): PI, (0x8000, 0xBF80): 0x80000000 | PI,
             (0x0000, 0x8000): PI, (0x8000, 0x0000): 0x80000000,
             (0x7F80, 0x7F80): QUARTER_PI, (0x7FC0, 0x3F80): 0x7FC00000}
BLACKHOLE_FP32 = {(0x3F80, 0x3F80): QUARTER_PI, (0xBF80, 0x3F80): 0x80000000 | QUARTER_PI}
# The 16-bit Dst kernel's output: the same angles rounded to BF16 (pi 0x4049, pi/4 0x3F49).
BF16_HAND = {(0x0000, 0x3F80): 0, (0x0000, 0xBF80): 0x4049, (0x0000, 0x8000): 0x4049,
             (0x7F80, 0x7F80): 0x3F49, (0x8000, 0xBF80): 0xC049}


@pytest.mark.parametrize("arch", CHIPS)
def test_hand_derived_values(arch):
    y, x, want = hand_cases({**FP32_HAND, **(BLACKHOLE_FP32 if arch == "blackhole" else {})},
                            arch)
    run = run_binary_device(registry.get(KERNELS["fp32"]).program(arch), y, x,
                            DevicePath("bf16", "fp32", "fp32"), engine="machine")
    assert [f"{int(v):#010x}" for v in run.kernel_fp32] == [f"{v:#010x}" for v in want]
    y, x, want = hand_cases(BF16_HAND, arch)
    out = run_binary_device(registry.get(KERNELS["bf16"]).program(arch), y, x,
                            engine="machine").output
    assert [hex(int(v)) for v in out] == [hex(v) for v in want]


def test_reference_rounds_the_arb_value():
    """5,000 random finite BF16 pairs (a pinned count of them with a nonzero angle): the
    reference's BF16 rounding (subnormal results flushed) is that of the arb ball, whose
    rounding at 120 bits is unambiguous."""
    rng = np.random.default_rng(3)
    y, x = (rng.integers(0, 1 << 16, 5000).astype(np.uint16) for _ in range(2))
    fmt = formats.BF16
    ys, xs = (formats.bits_to_float64(formats.daz(b, fmt), "bf16") for b in (y, x))
    keep = np.isfinite(ys) & np.isfinite(xs) & (ys != 0)
    bits, _ = binary_reference("atan2", y[keep], x[keep], "rne")
    got = formats.bits_to_float64(bits, "bf16")
    checked = 0
    with flint.ctx.workprec(120):
        for a, b, g in zip(ys[keep], xs[keep], got):
            ball = flint.arb.atan2(flint.arb(float(a)), flint.arb(float(b)))
            low, high = (formats.round_values(np.array([float(v)]), "rne", "bf16", ftz=True)[0]
                         for v in (ball.lower(), ball.upper()))
            assert low == high, (a, b)
            assert formats.bits_to_float64(np.array([low], np.uint16), "bf16")[0] == g, (a, b)
            checked += 1
    assert checked == 4940


def test_near_a_rounding_boundary_the_value_is_rounded_to_odd_from_arb():
    for y, x in ((1.0, 3.0), (-2.5, 0.75), (1e-30, -4.0)):
        value = _atan2_to_odd(y, x)
        assert int(np.array(value).view(np.uint64)) & 1 == 1
        assert abs(value - np.arctan2(y, x)) <= np.spacing(abs(value))


def test_the_driver_runs_float16_b_only():
    row = BINARY_ROWS["SfpuAtan2"]
    assert row.why_no_cell("wormhole", "fp16", "Yes").startswith("the driver runs it on "
                                                                 "Float16_b and Float32 only")
    assert row.why_no_cell("wormhole", "bf16", "No") is None


def test_a_cell_of_the_domain():
    """y in [1, 2] against every x of the driver's domain: the 16-bit Dst's BF16 atan2 is one
    step off at worst (degree-2 polynomial, one Newton step)."""
    cell = exhaustive_cell("SfpuAtan2", "bf16", "No", "wormhole", domain_x=((1.0, 2.0),),
                           domain_y=((-5.0, 5.0),))
    assert (cell.max_ulp, cell.lanes, cell.nonfinite) == (1, 4235586, 0)
    assert cell.worst == {"x_bits": "0x3fe2", "y_bits": "0x3bfe", "output_bits": "0x3fc9",
                          "golden_bits": "0x3fc8"}


def test_lanes_near_a_rounding_boundary_agree_with_arb():
    """Every pair of eight ordinates with the driver's whole domain of abscissae whose float64
    angle lies near a 25-bit grid step (a pinned count): the rounded-to-odd value (exact tiny
    quotients by rule, the rest from arb) is arb's, lane for lane."""
    values = formats.bits_to_float64(domain_patterns(((-5.0, 5.0),), "bf16"), "bf16")
    ordinate = np.repeat(values[::4111], values.size)
    abscissa = np.tile(values, 8)
    near = near_grid(np.arctan2(ordinate, abscissa))
    got = _atan2_near(ordinate[near], abscissa[near])
    want = [_atan2_to_odd(float(a), float(b)) for a, b in zip(ordinate[near], abscissa[near])]
    np.testing.assert_array_equal(got, want)
    assert near.size == 1492
