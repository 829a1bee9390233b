"""The unary ops' mixed-format cells (between Float16_b, Float16 and Float32) under
``budget --check``, against tt-metal's measured rows (tests/data/budget_mixed_rows.yaml).

Device facts: the figures those rows record (Abs, Acos, Sinh and Silu; Acos's Float16 ->
Float32 32,768 and 4,096 among them), from the 2026-09-30 Wormhole sweep. A 16-bit input's
golden is a value of its format whatever the output (UnarySFPUGolden stores the result in a
tensor of the input's dtype), so with an FP32 Dst a kernel's FP32 result is half a BF16 step
from it at worst (32,758 and 32,754 FP32 steps), and with a 16-bit Dst the two agree.
Through a 16-bit Dst, Float16 with Float16_b (the packer's FP16 <-> BF16 cells) is not
modelled and says so.
"""
from __future__ import annotations

from pathlib import Path

from sfpu_sim.cli import main

ROWS = Path(__file__).parent / "data" / "budget_mixed_rows.yaml"


def test_the_mixed_rows_are_predicted_exactly(capsys):
    assert main(["budget", "--check", str(ROWS)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].endswith("27 rows, 25 checked (25 cells), 0 over budget, 0 differing from "
                              "the measured figure")
    assert ('within budget: Acos {in: Float16, out: Float32, dest: "Yes"} (line 26): '
            'predicted 4096, the row records max 4096, max_ulp 4506') in lines
    assert ('not modelled: Abs {in: Float16, out: Float16_b, dest: "No"} (line 13): Abs Float16 '
            '-> Float16_b dest No: Float16 -> Float16_b through a 16-bit Dst: the conversion '
            'between FP16 and BF16 or FP32 cells there is not modelled') in lines
    assert ('within budget: Acos {in: Float16_b, out: Float32, dest: "Yes"} (line 21): '
            'predicted 32758, the row records max 32758, max_ulp 36034') in lines
    assert ('within budget: Sinh {in: Float16_b, out: Float32, dest: "Yes"} (line 32): '
            'predicted 32754, the row records max 32754, max_ulp 36030') in lines


def test_emit_yaml_with_mixed_writes_the_yamls_own_mixed_rows(tmp_path, capsys):
    """``budget Acos --mixed --emit-yaml`` writes Acos's mixed rows with the budgets tt-metal's
    file gives them (36,034, 36,045 and 4,506: ceil(1.1 x) its measured 32,758, 32,768 and
    4,096), and a check of the written file finds every row where it predicts."""
    target = tmp_path / "acos.yaml"
    assert main(["budget", "Acos", "--mixed", "--arch", "wormhole", "--emit-yaml",
                 str(target)]) == 0
    text = target.read_text(encoding="utf-8")
    for row in ('{in: Float16_b, out: Float32, dest: "Yes", arch: wormhole, max_ulp: 36034}  '
                '# max 32758 ULP',
                '{in: Float16, out: Float32, dest: "No", arch: wormhole, max_ulp: 36045}  '
                '# max 32768 ULP',
                '{in: Float16, out: Float32, dest: "Yes", arch: wormhole, max_ulp: 4506}  '
                '# max 4096 ULP'):
        assert f"  - {row}\n" in text
    capsys.readouterr()
    assert main(["budget", "--check", str(target), "--arch", "wormhole"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(
        "0 over budget, 0 differing from the measured figure")


def test_mixed_is_refused_where_it_does_not_apply(capsys):
    assert main(["budget", "tanh_2026_09", "--mixed"]) == 2
    assert capsys.readouterr().err == (
        "sfpu-sim: error: budget --mixed: name ops of the accuracy table or --all; --check "
        "checks a file's mixed rows already, --exhaustive is Float32 only\n")
