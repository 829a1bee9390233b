"""ttnn.tanh_bw as it ran in Jan 2026 (kernels/tanh_bw_2026_01.py): the chain of four ttnn ops
reproduces both published figure sets exactly, the FPU adder rule it needs is pinned lane by
lane, the documented-model reading of ELWADD is shown not to reproduce them, and commands that
need one program refuse the chained op in one line.

Published figures: the seed report (TANH_BW_ULP_DIAGNOSTIC_REPORT.md, Blackhole P150a, Jan 2026;
issue #35885): max 15,139, mean 155.59, 93.60% exact, 97.97% within 1 ULP, 98.11% within 2,
reference truncated, daz-index, 65,025 inputs, grad = 1; the row [0.5, 1): 16.4% / 81.2% /
98.4%. The Wormhole baseline (2026-03-07, main 1c22985943, read_file id 52149680947), RNE
reference over 65,026 inputs (both zeros; the daz population counts one, and it is exact).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sfpu_sim import fpu, registry
from sfpu_sim.chained_ops import ChainError
from sfpu_sim.cli import main
from sfpu_sim.report import model
from sfpu_sim.report import numbers as N
from sfpu_sim.sweeps import DevicePath, run_device, sweep

ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
ONE = np.uint16(0x3F80)


@pytest.fixture(scope="module")
def seed_row():
    """The seed's cell: Blackhole, reference truncated to BF16, daz-index."""
    return sweep(registry.get("tanh_bw"), "blackhole", reference_rounding="truncate")


@pytest.fixture(scope="module")
def wormhole_baseline():
    return sweep(registry.get("tanh_bw"), "wormhole", reference_rounding="rne")


def _measured(result) -> np.ndarray:
    return result.arrays["distance"][result.arrays["counted"]].astype(np.int64)


def _with_adder(rule: str):
    """tanh_bw with its ELWADD stage run under another adder rule (not registered)."""
    op = registry.get("tanh_bw")
    stages = [dataclasses.replace(s, adder=rule) if getattr(s, "instruction", "") == "ELWADD"
              else s for s in op.stages]
    return dataclasses.replace(op, stages=tuple(stages))


def test_blackhole_seed_row_is_reproduced_under_truncate(seed_row):
    s, report = seed_row.summary, model.build(seed_row)["report"]
    assert (s["count"], s["max_ulp"], int(_measured(seed_row).sum())) == (65025, 15139, 10117164)
    assert f"{s['mean_ulp']:.2f}" == "155.59"
    assert (s["exact_count"], N.fraction(s["exact_frac"])) == (60865, "93.60%")
    assert (s["within_1_count"], N.fraction(report["within_1_frac"])) == (63707, "97.97%")
    assert s["within_2_count"] == 63795                         # 98.11%


def test_seed_row_half_to_one_segment(seed_row):
    x, distance = seed_row.arrays["x"], seed_row.arrays["distance"]
    inside = (x >= 0.5) & (x < 1) & seed_row.arrays["counted"]
    assert inside.sum() == 128 and distance[inside].sum() == 133           # mean 1.04
    assert [int((distance[inside] <= k).sum()) for k in (0, 1, 2)] == [21, 104, 126]


@pytest.mark.parametrize("value, output, ulp", [
    (0.10009765625, 0x3F7E, 1), (3.0, 0x3C80, 95), (-3.34375, 0x0000, 15139),
    (3.34375, 0x0000, 15139), (-4.0, 0x0000, 14896), (-5.0, 0x0000, 14527),
    (-6.0, 0x0000, 14159), (-8.0, 0x0000, 13426)])
def test_seed_spot_values(seed_row, value, output, ulp):
    lane = int(np.flatnonzero(seed_row.arrays["x"] == value)[0])
    assert seed_row.arrays["actual"][lane] == output
    assert seed_row.arrays["distance"][lane] == ulp


def test_wormhole_baseline_is_reproduced_under_rne(wormhole_baseline):
    distance = _measured(wormhole_baseline)
    assert (distance.size, distance.max(), distance.sum()) == (65025, 15140, 10115030)
    # The baseline's cumulative table over 65,026 inputs, less its second (exact) zero.
    published = [63380, 63760, 63810, 63840, 63888, 63942, 64042, 64074, 64096, 64976]
    assert [int((distance <= k).sum()) for k in (0, 1, 2, 3, 5, 10, 50, 100, 1000, 15000)] \
        == [n - 1 for n in published]
    assert f"{distance.sum() / 65026:.2f}" == "155.55"


@pytest.mark.parametrize("low, high, count, top, mean", [
    (-4, -3, 64, 15140, "10107.06"), (-3, -2, 64, 94, "22.23"), (-1, 0, 16129, 3, "0.01"),
    (2, 3, 64, 89, "20.78"), (3, 4, 64, 15140, "9875.77")])
def test_wormhole_baseline_segments(wormhole_baseline, low, high, count, top, mean):
    x, distance = wormhole_baseline.arrays["x"], wormhole_baseline.arrays["distance"]
    inside = (x >= low) & (x < high)
    assert (int(inside.sum()), int(distance[inside].max())) == (count, top)
    assert f"{distance[inside].mean():.2f}" == mean


def test_both_chips_give_the_same_bits(seed_row):
    wormhole = sweep(registry.get("tanh_bw"), "wormhole", reference_rounding="truncate")
    assert np.array_equal(wormhole.arrays["all_output"], seed_row.arrays["all_output"])


def test_documented_model_reading_of_elwadd_gives_other_figures():
    blackhole = sweep(_with_adder("exact_nearest_even"), "blackhole",
                      reference_rounding="truncate")
    s = blackhole.summary
    assert (s["max_ulp"], int(_measured(blackhole).sum())) == (15139, 10117010)
    assert (s["exact_count"], N.fraction(s["exact_frac"])) == (61009, "93.82%")     # not 93.60
    assert s["within_1_count"] == 63717                                            # not 63,707
    wormhole = sweep(_with_adder("exact_nearest_even"), "wormhole")
    assert wormhole.summary["exact_count"] == 63503                  # 97.66%, published 97.47%


# --------------------------------------------------------------------------------------------
# The FPU adder rule, lane by lane (hand-derived)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("s_bits, inferred, documented", [
    # s = 3 * 2**-9: 1 - s = 0.994140625 is the midpoint of 0x3F7E and 0x3F7F: ties away
    # gives 0x3F7F, nearest even 0x3F7E.
    (0x3BC0, 0x3F7F, 0x3F7E),
    # s = 3 * 2**-9 + 2**-12: the 2**-12 bit lies below the 2**-11 grid and is dropped (no
    # sticky), leaving the same tie (0x3F7F); exactly, 0.993896484375 is below the midpoint.
    (0x3BC8, 0x3F7F, 0x3F7E),
    # s = 2**-9 + 2**-12: dropped to 2**-9, 1 - 2**-9 is the midpoint of 0x3F7F and 1.0:
    # away gives 1.0; exactly, 0.997802734375 rounds to 0x3F7F.
    (0x3B10, 0x3F80, 0x3F7F),
    (0x3F80, 0x0000, 0x0000),                   # 1 - 1 = +0
    (0x3F00, 0x3F00, 0x3F00),                   # 1 - 0.5, exact
])
def test_elwadd_of_minus_s_and_one(s_bits, inferred, documented):
    minus_s = np.uint16(s_bits | 0x8000)
    for arch in ("wormhole", "blackhole"):
        assert fpu.elwadd(minus_s, ONE, arch=arch) == inferred
        assert fpu.elwadd(ONE, minus_s, arch=arch) == inferred          # either source
        assert fpu.elwsub(ONE, np.uint16(s_bits), arch=arch) == inferred
        assert fpu.elwadd(minus_s, ONE, arch=arch, rule=fpu.EXACT_NEAREST_EVEN) == documented


def test_elwadd_reads_and_writes_as_the_matrix_unit():
    """FloatBitPatterns.md: exponent 255 is finite on input, -0 is never written, a result of
    2**128 or more is the exponent-255 mantissa-0 pattern, a denormal input reads as zero."""
    assert fpu.elwadd(np.uint16(0x7FC0), np.uint16(0xFF80)) == 0x7F00     # 1.5*2**128 - 2**128
    assert fpu.elwadd(np.uint16(0x8000), np.uint16(0x8000)) == 0x0000     # -0 + -0
    assert fpu.elwadd(np.uint16(0x7F7F), np.uint16(0x7F7F)) == 0x7F80
    assert fpu.elwadd(np.uint16(0x0001), ONE) == 0x3F80
    # FP32 Dst, documented reading: 1 + 3 * 2**-24 is a tie, to even: 1 + 2**-22.
    assert fpu.elwadd(ONE, np.uint16(0x3440), dest="fp32") == 0x3F800002


def test_elwmul_fidelity_phases():
    """ELWMUL.md: SrcA gives its implicit 1 and top four mantissa bits in even phases, SrcB
    its top six in phases 0-1. 1.9921875 (0x3FFF) * 1.0: with 1.0 in SrcB, LoFi keeps
    1.9375 of SrcA (0x3FF8), HiFi2 adds the rest; with 1.0 in SrcA, SrcB's last bit comes in
    phase 2 (HiFi3)."""
    x = np.uint16(0x3FFF)
    assert [int(fpu.elwmul(x, ONE, fidelity_phases=k)) for k in (1, 2, 3, 4)] == \
        [0x3FF8, 0x3FFF, 0x3FFF, 0x3FFF]
    assert [int(fpu.elwmul(ONE, x, fidelity_phases=k)) for k in (1, 2, 3, 4)] == \
        [0x3FFE, 0x3FFE, 0x3FFF, 0x3FFF]
    assert fpu.elwmul(np.uint16(0x3FC0), np.uint16(0x3FC0)) == 0x4010             # 2.25


# --------------------------------------------------------------------------------------------
# square_2026_01 and the refusals
# --------------------------------------------------------------------------------------------

@pytest.mark.slow   # compiled == Machine: a covering subset by default (test_compiled)
@pytest.mark.parametrize("arch", ["wormhole", "blackhole"])
def test_square_2026_01_compiled_equals_machine_on_every_bf16_input(arch):
    program = registry.get("square_2026_01").program(arch)
    fast = run_device(program, ALL_BF16, DevicePath(), engine="compiled")
    reference = run_device(program, ALL_BF16, DevicePath(), engine="machine")
    assert fast.engine == "compiled" and reference.engine == "machine"
    assert np.array_equal(fast.output, reference.output)
    assert np.array_equal(fast.kernel_fp32, reference.kernel_fp32)


@pytest.mark.parametrize("arch", ["wormhole", "blackhole"])
def test_square_2026_01_truncates_its_product(arch):
    # 1.5 -> 2.25; 1.1171875**2 = 1.24810791015625 truncates to 1.2421875 (RNE: 1.25);
    # -2 -> 4; +-0 -> +0; +-Inf -> +Inf; the largest finite overflows to Inf; 2**-126 squared
    # and 2**-64 squared (2**-128) flush to +0; 2**-63 squared is 2**-126.
    given = [0x3FC0, 0x3F8F, 0xC000, 0x0000, 0x8000, 0x7F80, 0xFF80, 0x7F7F, 0x0080, 0x1F80,
             0x2000]
    expected = [0x4010, 0x3F9F, 0x4080, 0x0000, 0x0000, 0x7F80, 0x7F80, 0x7F80, 0x0000, 0x0000,
                0x0080]
    program = registry.get("square_2026_01").program(arch)
    run = run_device(program, np.array(given, dtype=np.uint16), DevicePath(), engine="machine")
    assert run.output.tolist() == expected


@pytest.mark.parametrize("command", [
    ["trace", "tanh_bw", "--arch", "blackhole", "--x", "1"],
    ["kernel", "show", "tanh_bw", "--arch", "wormhole"],
    ["locate", "tanh_bw", "--arch", "wormhole", "--x", "0.75"],
    ["diff", "tanh", "tanh_bw", "--arch", "wormhole"],
    ["sweep", "tanh_bw", "--arch", "wormhole", "--dest", "fp32"]])
def test_commands_needing_one_program_refuse_the_chained_op(command, capsys):
    assert main(command) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "tanh_bw" in err and "Traceback" not in err


def test_chained_op_is_not_one_program_and_eval_runs_it(capsys):
    with pytest.raises(registry.NotOneProgram):
        registry.get("tanh_bw").program("blackhole")
    assert "tanh_bw" not in registry.names()
    assert main(["eval", "tanh_bw", "--arch", "blackhole", "--json", "--", "-3.34375"]) == 0
    assert '"output_bits": "0x0000"' in capsys.readouterr().out
    with pytest.raises(ChainError):
        registry.get("tanh_bw").device_run("blackhole", ALL_BF16, DevicePath(dest="fp32"))
