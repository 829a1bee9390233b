"""Binary SFPU logsigmoid (issue 17, item 4): ``calculate_logsigmoid`` (in0 = x, in1 = exp(-x)),
both chips, its reference, and the SfpuLogsigmoid row on the driver's own stimuli.

Pins: compiled == Machine (16-bit and FP32 Dst); values derived by hand from the source's three
arms; the reference at its special values and against mpmath; torch.linspace's float32 ramp;
the table's three cells, exactly, on both chips.
"""
from __future__ import annotations

import ml_dtypes
import mpmath
import numpy as np
import pytest

from sfpu_sim import formats, registry, ulp
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.parity.binary_rows import BINARY_ROWS, exhaustive_cell
from sfpu_sim.parity.binary_stimuli import LOGSIGMOID_PAIRS, torch_linspace
from sfpu_sim.reference import reference
from sfpu_sim.reference.binary_functions import binary_reference
from sfpu_sim.sweeps import DevicePath
from tests.binary_pairs import assert_compiled_equals_machine, hand_cases, pairs
from tests.compiled_checks import diagonal_default

CHIPS = ("wormhole", "blackhole")
KERNEL = "binary_logsigmoid_2026_09"
SPECIALS = np.array([0x0000, 0x8000, 0x3F80, 0xBF80, 0x4080, 0xC080, 0x4081, 0xC081, 0x4090,
                     0xC120, 0x7F80, 0xFF80, 0x7FC0, 0x0080, 0x405F], dtype=np.uint16)


@pytest.mark.parametrize("dest, arch", diagonal_default(["bf16", "fp32"], CHIPS))
def test_compiled_equals_machine(dest, arch):
    program = registry.get(KERNEL).program(arch)
    x, y = pairs(SPECIALS, 2048, seed=47)
    assert_compiled_equals_machine(program, x, y, DevicePath("bf16", "bf16", dest))


C0_NEGATED = 0xBF314373         # -c0: the polynomial at t = 0 is its constant term, exactly
# (x, y) -> output through a 16-bit Dst. x > 4 (t = -x < -4): -y, whatever x is, +inf included
# (-(+0) is -0). -4 < x <= 4: -poly(-x); at x = +-0 that is -c0, truncated to 0xBF31 by
# SFPSTORE. x <= -4 (t >= 4, no compare selects it): x itself, -4 and -inf included.
HAND = {(0x4081, 0x3F80): 0xBF80, (0x4090, 0x3C00): 0xBC00, (0x7F80, 0x0000): 0x8000,
        (0x4F00, 0xBF80): 0x3F80,
        (0x0000, 0x3F80): C0_NEGATED >> 16, (0x8000, 0x4000): C0_NEGATED >> 16,
        (0xC080, 0x3F80): 0xC080, (0xC081, 0x3F80): 0xC081, (0xC120, 0x0000): 0xC120,
        (0xFF80, 0x3F80): 0xFF80, (0xFF7F, 0x3F80): 0xFF7F}


@pytest.mark.parametrize("arch", CHIPS)
def test_hand_derived_values(arch):
    x, y, want = hand_cases(HAND, arch)
    out = run_binary_device(registry.get(KERNEL).program(arch), x, y, engine="machine").output
    assert [hex(int(v)) for v in out] == [hex(v) for v in want]
    zero = np.array([0x00000000, 0x80000000], dtype=np.uint32)
    through_fp32 = run_binary_device(registry.get(KERNEL).program(arch), zero, zero,
                                     DevicePath("fp32", "fp32", "fp32"), engine="machine")
    assert [hex(int(v)) for v in through_fp32.output] == [hex(C0_NEGATED)] * 2


def test_reference_specials_and_values():
    """log(sigmoid(x)): -log 2 at both zeros, -0 at +inf (from below), -inf at -inf, NaN at
    NaN; x < 0 lies below x, x >= 0 below 0; in1 never matters."""
    x = np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x3F80, 0xC120, 0x4120, 0x42C8,
                  0xC2C8], dtype=np.uint16)
    bits, _ = binary_reference("logsigmoid", x, np.full(x.size, 0x3F80, dtype=np.uint16),
                               "rne", output_format="fp32")
    assert [hex(int(v)) for v in bits] == [
        "0xbf317218", "0xbf317218", "0x80000000", "0xff800000", "0x7fc00000", "0xbea063d6",
        "0xc1200030", "0xb83e6ab2", "0x80000000", "0xc2c80000"]
    again, _ = binary_reference("logsigmoid", x, x, "rne", output_format="fp32")
    assert np.array_equal(again, bits)
    for v, b in zip((1.0, -10.0, 10.0), bits[5:8]):
        with mpmath.workprec(200):
            exact = -mpmath.log1p(mpmath.exp(-mpmath.mpf(v)))
        with mpmath.workprec(24):                       # float32's significand, nearest even
            assert float(np.uint32(b).view(np.float32)) == float(+exact)


def test_torch_linspace_is_atens_float32_ramp():
    """(3.9 - -8) / 255 in float32, the first half counted up from -8 and the second down from
    3.9 (so both ends are exact); the pinned bits were checked against a scalar evaluation in
    exact rationals, each operation rounded to float32 by struct packing."""
    ramp = torch_linspace(-8.0, 3.9, 256)
    assert ramp.dtype == np.float32 and ramp.size == 256
    assert [hex(int(v)) for v in ramp.view(np.uint32)[[0, 1, 127, 128, 254, 255]]] == [
        "0xc1000000", "0xc0fe81b5", "0xc004b17e", "0xc001b4e8", "0x40769d04", "0x4079999a"]
    step = np.float32(np.float32(3.9) + np.float32(8.0)) / np.float32(255)
    assert ramp[1] == np.float32(-8.0) + step and ramp[254] == np.float32(3.9) - step
    assert LOGSIGMOID_PAIRS[0] == (-8.0, -8.0) and len(LOGSIGMOID_PAIRS) == 256


def _fused_ramp() -> np.ndarray:
    """The same ramp with each multiply-add rounded once (an FMA-contracting build): step * i is
    exact in float64 and so is the sum, rounded once to float32."""
    first, last = np.float32(-8.0), np.float32(3.9)
    step = np.float64((last - first) / np.float32(255))
    i = np.arange(256)
    return np.where(i < 128, np.float64(first) + step * i,
                    np.float64(last) - step * (255 - i)).astype(np.float32)


def test_the_table_row_is_reproduced_exactly_on_both_chips():
    """Float16_b 2 and 2, Float32 89,026, as the table reads, on both chips. The Float32 worst
    lane is x = 3.48 (0x405EB852), where a separate IEEE-FMA evaluation of the kernel also put
    its worst lane."""
    want = {("bf16", "No"): 2, ("bf16", "Yes"): 2, ("fp32", "Yes"): 89026}
    for (fmt, dest), top in want.items():
        for arch in CHIPS:
            cell = exhaustive_cell("SfpuLogsigmoid", fmt, dest, arch)
            assert (cell.max_ulp, cell.lanes, cell.nonfinite, cell.exact) == (top, 256, 0, True)
            if fmt == "fp32":
                assert cell.worst["x_bits"] == "0x405eb852"
    row = BINARY_ROWS["SfpuLogsigmoid"]
    assert row.why_no_cell("wormhole", "fp16", "No").startswith("the driver runs it on Float16_b")
    assert "index id 57944800736" in row.source


def test_the_row_does_not_hang_on_how_torch_rounds_the_ramp():
    """A contracting build gives 99 of the 256 float32 values another last bit: the same BF16
    patterns, and the same Float32 maximum at the same x. The harness's golden (torch's float32
    logsigmoid cast to BF16) is the correctly rounded BF16 here: every exact value lies at least
    5 float32 steps from a BF16 rounding midpoint."""
    plain, fused = torch_linspace(-8.0, 3.9, 256), _fused_ramp()
    assert int((plain.view(np.uint32) != fused.view(np.uint32)).sum()) == 99
    assert np.array_equal(plain.astype(ml_dtypes.bfloat16).view(np.uint16),
                          fused.astype(ml_dtypes.bfloat16).view(np.uint16))
    program = registry.get(KERNEL).program("wormhole")
    x = fused.view(np.uint32)
    out = run_binary_device(program, x, x, DevicePath("fp32", "fp32", "fp32"),
                            engine="compiled").output
    gold, _ = binary_reference("logsigmoid", x, x, "rne", input_format="fp32",
                               output_format="fp32")
    distance = ulp.distance(gold, out, "daz-index", fmt="fp32", flush_subnormals=True).distance
    assert (int(distance.max()), hex(int(x[np.argmax(distance)]))) == (89026, "0x405eb852")
    bf16_x = plain.astype(ml_dtypes.bfloat16).view(np.uint16)
    in_fp32 = reference("logsigmoid", bf16_x, output_format="fp32").bits.astype(np.int64)
    assert int(np.abs((in_fp32 & 0xFFFF) - 0x8000).min()) == 5
    assert np.array_equal(formats.round_values(formats.bits_to_float64(in_fp32, "fp32"), "rne",
                                               "bf16"),
                          reference("logsigmoid", bf16_x, output_format="bf16").bits)


def test_the_drivers_later_stimuli_would_not_give_the_tables_figures():
    """Why the row runs the earlier driver's ramp: the later revision's pairs (a ramp over
    [-8, 12], in1 = exp(-x) of its float32 values, here correctly rounded where torch computes
    it) reach the x > 4 arm, and read 8, 8 and 113,276 on the same kernel, not the table's 2, 2
    and 89,026."""
    ramp = torch_linspace(-8.0, 12.0, 256)
    exp_neg = reference("exp", (-ramp).view(np.uint32), input_format="fp32",
                        output_format="fp32").bits.view(np.float32)
    program = registry.get(KERNEL).program("wormhole")
    tops = []
    for fmt, dest in (("bf16", "bf16"), ("bf16", "fp32"), ("fp32", "fp32")):
        if fmt == "bf16":
            x, y = (v.astype(ml_dtypes.bfloat16).view(np.uint16) for v in (ramp, exp_neg))
        else:
            x, y = ramp.view(np.uint32), exp_neg.view(np.uint32)
        out = run_binary_device(program, x, y, DevicePath(fmt, fmt, dest),
                                engine="compiled").output
        gold, _ = binary_reference("logsigmoid", x, y, "rne", input_format=fmt,
                                   output_format=fmt)
        found = ulp.distance(gold, out, "daz-index", fmt=fmt, flush_subnormals=True)
        tops.append(int(found.distance[found.counted].max()))
    assert tops == [8, 8, 113276]


def test_the_mixed_format_cells_follow_the_drivers_golden():
    """The driver rounds its golden to the input format whatever the output (BinarySFPUGolden):
    a Float16_b input against a Float32 output is measured from a BF16 golden, so 2 BF16 steps
    through a 16-bit Dst are 131,072 FP32 steps, and 121,436 through an FP32 Dst; a Float32
    input's golden is rounded to FP32, then to BF16 (2 steps)."""
    want = {("bf16", "fp32", "No"): 131072, ("bf16", "fp32", "Yes"): 121436,
            ("fp32", "bf16", "Yes"): 2}
    for (fmt_in, fmt_out, dest), top in want.items():
        for arch in CHIPS:
            cell = exhaustive_cell("SfpuLogsigmoid", fmt_in, dest, arch, output_format=fmt_out)
            assert (cell.max_ulp, cell.lanes, cell.output_format) == (top, 256, fmt_out)


def test_budget_check_predicts_every_measured_row_of_logsigmoid(tmp_path, monkeypatch, capsys):
    """All six per-cell rows, as measured, within budget; the two unkeyed rows bind no cell the
    per-cell rows leave."""
    from pathlib import Path

    from sfpu_sim.cli import main

    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path))
    rows = Path(__file__).resolve().parent / "data" / "budget_logsigmoid_rows.yaml"
    assert main(["budget", "--check", str(rows)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"{rows}: 8 rows, 6 checked (6 cells), 0 over budget, 0 differing from " \
                      f"the measured figure"
    assert sum(line.startswith("within budget: SfpuLogsigmoid {in:") for line in out) == 6
