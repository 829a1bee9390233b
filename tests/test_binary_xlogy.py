"""Binary SFPU xlogy (issue 17, item 4): ``calculate_sfpu_binary<..., BinaryOp::XLOGY, ...>``,
both chips, with the tt-llk log of September 2026 and PR #55463's, and its reference.

Pins: compiled == Machine (16-bit and FP32 Dst); values derived by hand from the source (the
guard, the log's cubic at m = 1 and 1.5 in exact rationals, each SFPMAD rounded once to
nearest even); tt-metal issue #55131's device figure, xlogy(100, 1) = 0.100005; the reference
at its special values and against arb.
"""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest

from kernels.binary_xlogy_2026 import CHEBYSHEV_LOG, MINIMAX_LOG
from sfpu_sim import formats, registry
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.reference.binary_functions import binary_reference
from sfpu_sim.sweeps import DevicePath
from tests.binary_pairs import assert_compiled_equals_machine, pairs, round_nearest_even
from tests.compiled_checks import diagonal_default

CHIPS = ("wormhole", "blackhole")
KERNELS = {"binary_xlogy_2026_09": CHEBYSHEV_LOG, "binary_xlogy_minimax_2026_09": MINIMAX_LOG}
SPECIALS = np.array([0x0000, 0x8000, 0x3F80, 0xBF80, 0x4000, 0x3F00, 0x7F80, 0xFF80, 0x7FC0,
                     0xFFC0, 0x0080, 0x0001, 0x7F7F, 0x42C8], dtype=np.uint16)
FP32 = DevicePath("fp32", "fp32", "fp32")


@pytest.mark.parametrize("kernel, arch, dest",
                         diagonal_default(sorted(KERNELS), CHIPS, ["bf16", "fp32"]))
def test_compiled_equals_machine(kernel, arch, dest):
    program = registry.get(kernel).program(arch)
    x, y = pairs(SPECIALS, 2048, seed=53)
    assert_compiled_equals_machine(program, x, y, DevicePath("bf16", "bf16", dest))


def _f32(value: Fraction) -> int:
    """An exact FP32 value (normal) as its pattern."""
    return int(np.float32(float(value)).view(np.uint32))


def _rounded(value: Fraction) -> Fraction:
    return round_nearest_even(value, 24)


def device_log(m: Fraction, exponent: int, constants) -> Fraction:
    """The log body on m = setexp(y, 127) with y's unbiased exponent, as the source writes it:
    three SFPMADs of the cubic, then exponent * ln2 + series, each rounded once to FP32."""
    ln2, a, b, c, d = (Fraction(float(np.float32(k))) for k in constants)
    series = _rounded(m * _rounded(m * _rounded(m * a + b) + c) + d)
    return _rounded(exponent * ln2 + series)


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_hand_derived_values(kernel, arch):
    """Through an FP32 Dst: y < 0 (the sign bit, so -0 and -NaN) gives the quiet NaN the kernel
    loads; +0 gives -Inf times x; y = 1 gives x times the cubic at m = 1 (not 0), y = 2 that
    plus ln 2, y = NaN (0x7FC00000: m = 1.5, exponent 128) a finite 89-odd, as y = +Inf (m = 1)
    does."""
    constants = KERNELS[kernel]
    cases = {(0x3F800000, 0xBF800000): 0x7FC00000, (0x40400000, 0x80000000): 0x7FC00000,
             (0x3F800000, 0xFFC00000): 0x7FC00000, (0x40000000, 0x00000000): 0xFF800000,
             (0xBF800000, 0x00000000): 0x7F800000}
    for x in (1, 3, -2):
        for m, exponent, y in ((1, 0, 0x3F800000), (1, 1, 0x40000000),
                               (Fraction(3, 2), 128, 0x7FC00000), (1, 128, 0x7F800000)):
            log = device_log(Fraction(m), exponent, constants)
            cases[(_f32(Fraction(x)), y)] = _f32(_rounded(log * x))
    x = np.array([k[0] for k in cases], dtype=np.uint32)
    y = np.array([k[1] for k in cases], dtype=np.uint32)
    run = run_binary_device(registry.get(kernel).program(arch), x, y, FP32, engine="machine")
    assert [f"{int(v):#010x}" for v in run.output] == [f"{v:#010x}" for v in cases.values()]


@pytest.mark.parametrize("arch", CHIPS)
def test_issue_55131_xlogy_of_x_and_one(arch):
    """tt-metal issue #55131 (2026-09-12): "xlogy(x, 1) returns x*1e-3 instead of 0",
    "xlogy(100.0, 1.0) to return 0.100005" (the residual "0.00100005"): the September log's
    cubic at 1. PR #55463's minimax cubic leaves 4.4e-4 instead."""
    x = np.array([0x3F800000, 0x42C80000], dtype=np.uint32)          # 1, 100
    y = np.full(2, 0x3F800000, dtype=np.uint32)
    got = {}
    for kernel in KERNELS:
        run = run_binary_device(registry.get(kernel).program(arch), x, y, FP32)
        got[kernel] = [f"{v:.6g}" for v in formats.bits_to_float64(run.output, "fp32")]
    assert got["binary_xlogy_2026_09"] == ["0.00100005", "0.100005"]
    minimax = device_log(Fraction(1), 0, MINIMAX_LOG)             # the cubic at m = 1, by hand
    assert got["binary_xlogy_minimax_2026_09"] == [
        f"{float(_rounded(minimax * k)):.6g}" for k in (1, 100)]


def test_reference_specials():
    """x * ln(y) as the harness's golden computes it: NaN for y < 0 (IEEE log), x * -Inf at
    y = +0 and -0 (DAZ reads a denormal y as zero too), NaN for 0 * ln 0, a signed zero at
    y = 1, +-Inf at y = +Inf."""
    x = np.array([0x3F80, 0x3F80, 0x4000, 0xBF80, 0x0000, 0xC040, 0x3F80, 0x3F80, 0x3F80],
                 dtype=np.uint16)
    y = np.array([0xBF80, 0x0000, 0x8000, 0x0001, 0x0000, 0x3F80, 0x7F80, 0x7FC0, 0x4000],
                 dtype=np.uint16)
    bits, _ = binary_reference("xlogy", x, y, "rne", output_format="fp32")
    assert [f"{int(v):#010x}" for v in bits] == [
        "0x7fc00000", "0xff800000", "0xff800000", "0x7f800000", "0x7fc00000", "0x80000000",
        "0x7f800000", "0x7fc00000", "0x3f317218"]


def test_reference_rounds_the_arb_value():
    """4,000 random positive finite BF16 pairs, rounded to BF16 and to FP32: the reference is
    the rounding of x * ln(y) from an arb ball at 150 bits (unambiguous for these lanes)."""
    rng = np.random.default_rng(59)
    x = rng.integers(0x0080, 0x7F80, 4000).astype(np.uint16) | \
        (rng.integers(0, 2, 4000).astype(np.uint16) << 15)
    y = rng.integers(0x0080, 0x7F80, 4000).astype(np.uint16)
    xs, ys = (formats.bits_to_float64(b, "bf16") for b in (x, y))
    for out in ("bf16", "fp32"):
        bits, _ = binary_reference("xlogy", x, y, "rne", output_format=out)
        got = formats.bits_to_float64(bits, out)
        want = np.empty(x.size)
        for k in range(x.size):
            with flint.ctx.workprec(150):
                ball = flint.arb(float(xs[k])) * flint.arb(float(ys[k])).log()
                want[k] = float(ball.mid())
        expected = formats.bits_to_float64(formats.round_values(want, "rne", out), out)
        assert np.array_equal(got, expected)
