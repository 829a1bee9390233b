"""The unary ops' mixed-format cells (Float16_b -> Float32, Float32 -> Float16_b) under
``budget --check``, against tt-metal's measured rows (tests/data/budget_mixed_rows.yaml).

Device facts: the figures those rows record (Abs 0, 0, 0, 1; Acos 0, 32758, 0, 0; Sinh 0,
32754, 0, 1), from the 2026-09-30 Wormhole sweep. A Float16_b input's golden is a BF16 value
whatever the output (UnarySFPUGolden stores the result in a tensor of the input's dtype), so
with an FP32 Dst a kernel's FP32 result is half a BF16 step from it at worst (32,758 and
32,754 FP32 steps), and with a 16-bit Dst the two agree.
"""
from __future__ import annotations

from pathlib import Path

from sfpu_sim.cli import main

ROWS = Path(__file__).parent / "data" / "budget_mixed_rows.yaml"


def test_the_mixed_rows_are_predicted_exactly(capsys):
    assert main(["budget", "--check", str(ROWS)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].endswith("12 rows, 12 checked (12 cells), 0 over budget, 0 differing from "
                              "the measured figure")
    assert ('within budget: Acos {in: Float16_b, out: Float32, dest: "Yes"} (line 16): '
            'predicted 32758, the row records max 32758, max_ulp 36034') in lines
    assert ('within budget: Sinh {in: Float16_b, out: Float32, dest: "Yes"} (line 22): '
            'predicted 32754, the row records max 32754, max_ulp 36030') in lines
