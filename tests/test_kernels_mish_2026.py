"""The Sep-2026 mish kernel (kernels/mish_2026.py; issue 11 item 4).

Where the figures come from:

* Spot values are derived by hand from the source's algorithm (kernels/mish_2026.py): the
  ``x < 8`` cut, exp_21f rounded to BF16 (``u``), the per-chip quotient, and
  ``convert<vFloat16b>(., Nearest)`` = SFP_STOCH_RND nearest (ties away; -0 and denormals -> +0;
  a NaN -> the Inf of its sign). References are mish evaluated in mpmath at 200 bits and rounded
  to the nearest BF16 by hand (the margins are stated).
* The exhaustive figures (rne reference, daz-index, all 65,536 BF16 inputs) are this emulator's
  measurements; the maximum and where it sits are hand-derived (the flushed tail), the rest are
  regression pins (tests/data/kernel_figures.json holds the full set).
* Published: tt-llk ``sfpu_accuracy_budget.yaml`` (tt-metal @01d9b424), Mish Float16_b ->
  Float16_b, dest_acc No, approx No: max 790 steps, measured on Wormhole 2026-09-30
  (the tt-llk harness's scoring: float64 golden rounded to FP32 then BF16).
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from sfpu_sim import formats, registry
from sfpu_sim.sfpi import trace, vConstFloatPrgm0, vConstFloatPrgm1, vConstFloatPrgm2
from sfpu_sim.sweeps import DevicePath, run_device, sweep

BOTH = ("wormhole", "blackhole")
PLUS_INF, MINUS_INF, PLUS_NAN = 0x7F80, 0xFF80, 0x7FC0
ALL_INPUTS = np.arange(65536, dtype=np.uint32).astype(np.uint16)
PATH = DevicePath("bf16", "bf16", "bf16")


def bf16(value: float) -> int:
    out = int(formats.fp32_to_bits(np.float32(value)))
    assert out & 0xFFFF == 0, value
    return out >> 16


def run(chip: str, inputs) -> list[int]:
    program = registry.get("mish_2026_09").program(chip)
    return [int(v) for v in run_device(program, np.asarray(inputs, dtype=np.uint16),
                                       PATH).output]


@functools.lru_cache(maxsize=None)
def measured(chip: str, rounding: str = "rne"):
    return sweep(registry.get("mish_2026_09"), chip, reference_rounding=rounding)


def test_registered_on_both_chips_accurate_bf16():
    spec = registry.get("mish_2026_09")
    assert (spec.chips, spec.function, spec.mode, spec.dest) == (BOTH, "mish", "accurate",
                                                                "bf16")


@pytest.mark.parametrize("chip", BOTH)
@pytest.mark.parametrize("x, expected", [
    # +-0: u = exp_21f(0) = 1.0017248 -> 1.0; x * (finite) = +-0, rounded to +0
    (0x0000, 0x0000), (0x8000, 0x0000),
    # x >= 8 (and +Inf) keep x; +NaN fails x < 8 (the compare's NaN is positive) and keeps x,
    # which the rounding turns into +Inf
    (bf16(8.0), bf16(8.0)), (bf16(100.0), bf16(100.0)), (PLUS_INF, PLUS_INF),
    (PLUS_NAN, PLUS_INF),
    # x = 7.96875 (below the cut): mish(x) = x - 1.9e-6, far inside x's half step (2**-6)
    (bf16(7.96875), bf16(7.96875)),
    # x = 1: xlog2 = 128.4427, u = 2.7178 -> 2.71875 = 87/32; u(u + 2) = 13137/1024,
    # (u + 1)**2 + 1 = 15185/1024, quotient 0.8651301 = 221.473 * 2**-8 -> 221/256 (0x3F5D),
    # 0.027 steps from the tie, far above either chip's reciprocal error; mpmath mish(1) =
    # 0.8650984 rounds to the same pattern
    (bf16(1.0), 0x3F5D),
    # x = -1: xlog2 = 125.557304, u = 0.3682389 = 188.54 * 2**-9 -> 189 * 2**-9 = 0.3691406;
    # numer 0.8745461, denom 2.8745461, -x*... = -0.3042380 = -155.77 * 2**-9 -> -156 * 2**-9
    # (0xBE9C), while mpmath mish(-1) = -0.3034015 = -155.34 steps -> 0xBE9B: one step off,
    # carried in by u's BF16 rounding
    (bf16(-1.0), 0xBE9C),
    # x <= -87.5: xlog2 = x/ln2 + 127 < 1, exp_21f's integer part is 0, a denormal pattern
    # that its own rounding flushes: u = +0, so the result is x * (+0) = -0 -> +0 (issue #55711)
    (bf16(-87.5), 0x0000), (bf16(-91.5), 0x0000), (bf16(-200.0), 0x0000),
])
def test_hand_derived_values(x, expected, chip):
    assert run(chip, [x]) == [expected]


@pytest.mark.parametrize("chip, expected", [("wormhole", MINUS_INF), ("blackhole", PLUS_INF)])
def test_minus_infinity_is_a_nan_of_each_chip(chip, expected):
    """-Inf: u = +0 (xlog2 clamps to 0), u(u + 2) * inv = +0, and -Inf * +0 is NaN: Wormhole's
    NaN takes the product's sign (negative), Blackhole's is the canonical 0x7FC00000; the BF16
    rounding maps a NaN to the Inf of its sign (tt-isa-documentation SFPMAD.md and
    Miscellaneous/FMA/fma.c; SFPSTOCHRND_FloatFloat.md)."""
    assert run(chip, [MINUS_INF]) == [expected]


# mish(x) at 200 bits rounded to BF16 (margins > 0.1 step): the BF16 inputs from -87.5 down to
# -91.5 are the ones whose mish is still a normal BF16 (|mish(-92)| = 1.02e-38 < 2**-126).
TAIL = {-87.5: 0x8395, -88.0: 0x8335, -88.5: 0x82DD, -89.0: 0x8287, -89.5: 0x8225,
        -90.0: 0x81C9, -90.5: 0x8175, -91.0: 0x8115, -91.5: 0x80B6}


@pytest.mark.parametrize("chip", BOTH)
def test_maximum_is_the_flushed_tail(chip):
    """The 9 tail inputs return 0 where mish is normal; their daz-index distance is the rank
    ``|bits| - 127`` of the reference: 0x395 - 127 = 790 at x = -87.5, the maximum, reached
    once. Every other input is within 1 step (the measured part)."""
    result = measured(chip)
    a = result.arrays
    assert (result.summary["max_ulp"], int((a["counted"] & (a["distance"] == 790)).sum())) == \
        (790, 1)
    far = a["counted"] & (a["distance"] > 1)
    assert sorted(float(x) for x in a["x"][far]) == sorted(TAIL)
    for x, bits in TAIL.items():
        lane = int(np.flatnonzero(a["x"] == x)[0])
        assert int(a["distance"][lane]) == (bits & 0x7FFF) - 127


def test_wormhole_matches_the_llk_budget():
    """tt-llk budget (Wormhole, 2026-09-30, Float16_b -> Float16_b, dest_acc No): Mish max 790
    steps, with approx No (and Yes: on Wormhole sfpu_reciprocal_iter<0> is <1>, and both arms
    run the same exp_21f)."""
    assert measured("wormhole", "rne_fp32").summary["max_ulp"] == 790


@pytest.mark.parametrize("chip", BOTH)
def test_figures(chip):
    """Exact results: Wormhole 64,214, Blackhole 64,228 of 65,025 (the chips' quotients differ
    for x >= 0); pinned from this emulator (mean 0.0710 / 0.0708)."""
    a = measured(chip).arrays
    exact = int((a["counted"] & (a["distance"] == 0)).sum())
    assert exact == {"wormhole": 64214, "blackhole": 64228}[chip]


def test_where_the_chips_differ():
    """The chips differ in the quotient for x >= 0 (Blackhole's ``1 - 2/denom``), in the
    reciprocal (SFPARECIP + Newton against the quadratic seed + Newton) and in -Inf's NaN sign.
    Pinned from this emulator: 53 inputs differ, 17 of them >= +0; apart from -Inf each by one
    BF16 step."""
    wh, bh = (np.array(run(chip, ALL_INPUTS), dtype=np.int32) for chip in BOTH)
    differ = np.flatnonzero(wh != bh)
    assert differ.size == 53 and int((ALL_INPUTS[differ] < 0x8000).sum()) == 17
    finite = differ[ALL_INPUTS[differ] != MINUS_INF]
    assert np.all(np.abs(wh[finite] - bh[finite]) == 1)


def refit_seed():
    """The Wormhole reciprocal seed of two undated stored ckernel_sfpu_recip.h revisions (index
    ids 70302691577, 70080189142), as in tests/test_kernels_2026_09_b.py."""
    vConstFloatPrgm0.assign(0.32133400440216064453125)
    vConstFloatPrgm1.assign(1.4514148235321044921875)
    vConstFloatPrgm2.assign(2.1200883388519287109375)


def test_wormhole_refit_seed_moves_6_lanes_by_one_step():
    """One Newton step from the seed shows the seed in 6 outputs (one BF16 step each, pinned
    from this emulator); the maximum (790, the tail) is the same either way, so the budget
    cannot tell the seeds apart."""
    from kernels.mish_2026 import mish_2026_09
    registered = np.array(run("wormhole", ALL_INPUTS), dtype=np.int32)
    refit = run_device(trace(mish_2026_09, "wormhole", init=refit_seed), ALL_INPUTS,
                       PATH).output.astype(np.int32)
    moved = np.flatnonzero(registered != refit)
    assert moved.size == 6
    assert np.all(np.abs(registered[moved] - refit[moved]) == 1)
