"""The scalar ops of the table's Scalar* rows (issue 17): ``calculate_binop_with_scalar`` with the
driver's scalar, both chips. Pins: compiled == Machine over every BF16 x; values derived by hand
(one SFPMAD in FP32, then SFPSTORE's truncation to a 16-bit Dst, or RSUB's integer RNE); the
second operand the kernels hold; the five Float16_b rows against the device's figures."""
from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from sfpu_sim import formats, registry
from sfpu_sim.binary_device import BinaryOperandError, run_binary_device
from sfpu_sim.fp32sweep.pair_sweep import sweep_pairs
from sfpu_sim.cli import main
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.parity import device_table
from sfpu_sim.parity.binary_rows import BINARY_ROWS, exhaustive_cell
from sfpu_sim.registry import RegistrationError, register_kernel
from sfpu_sim.sfpi import dst_reg
from sfpu_sim.sweeps import DevicePath
from tests.binary_pairs import assert_compiled_equals_machine
from tests.compiled_checks import diagonal_default

CHIPS = ("wormhole", "blackhole")
TWO = 0x4000
ONE, ONE_PLUS, MINUS_ONE, SMALL = 0x3F80, 0x3F81, 0xBF80, 0x3C01   # SMALL = 2**-7 * (1 + 2**-7)
ZERO, MINUS_ZERO, INF, MINUS_INF = 0x0000, 0x8000, 0x7F80, 0xFF80
X = (ONE, ONE_PLUS, MINUS_ONE, SMALL, ZERO, MINUS_ZERO, INF, MINUS_INF)
# x -> output through a 16-bit Dst, both chips. The FP32 result is exact in every case; the store
# keeps its top 16 bits (truncation), except RSUB's float32_to_bf16_rne.
HAND = {
    # 1.0078125 + 2 = 3.0078125, truncated to 3; 2 + SMALL truncated to 2 (RNE: 2.015625)
    "binop_scalar_add_2026_09": (0x4040, 0x4040, 0x3F80, 0x4000, TWO, TWO, INF, MINUS_INF),
    # SMALL - 2 = -1.99212..., truncated toward zero to -1.984375
    "binop_scalar_sub_2026_09": (0xBF80, 0xBF7E, 0xC040, 0xBFFE, 0xC000, 0xC000, INF,
                                 MINUS_INF),
    # -0 * 2: SFPMUL adds +0, so +0
    "binop_scalar_mul_2026_09": (TWO, 0x4001, 0xC000, 0x3C81, ZERO, ZERO, INF, MINUS_INF),
    "binop_scalar_div_2026_09": (0x3F00, 0x3F01, 0xBF00, 0x3B81, ZERO, ZERO, INF, MINUS_INF),
    # 2 - SMALL = 1.99212..., to nearest even 1.9921875 (truncation: 1.984375)
    "binop_scalar_rsub_2026_09": (ONE, 0x3F7E, 0x4040, 0x3FFF, TWO, TWO, MINUS_INF, INF),
}
NAMES = [*HAND, "binop_scalar_rsub_fp32_2026_09"]


@pytest.mark.parametrize("name, arch", diagonal_default(NAMES, CHIPS))
def test_compiled_equals_machine_on_every_bf16_x(name, arch):
    spec = registry.get(name)
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    assert_compiled_equals_machine(spec.program(arch), x, np.full_like(x, TWO))


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", list(HAND))
def test_hand_derived_values_through_a_16_bit_dst(name, arch):
    x = np.array(X, dtype=np.uint16)
    out = run_binary_device(registry.get(name).program(arch), x, np.full_like(x, TWO),
                            engine="machine").output
    assert [hex(int(v)) for v in out] == [hex(v) for v in HAND[name]]


@pytest.mark.parametrize("arch", CHIPS)
def test_rsub_through_an_fp32_dst_is_the_exact_difference(arch):
    """With an FP32 Dst nothing rounds: 2 - x is exact in FP32 for these x."""
    x = np.array(X[:5], dtype=np.uint16)
    run = run_binary_device(registry.get("binop_scalar_rsub_fp32_2026_09").program(arch), x,
                            np.full_like(x, TWO), DevicePath("bf16", "fp32", "fp32"),
                            engine="machine")
    exact = [2 - Fraction(float(v)) for v in formats.bits_to_float64(x, "bf16")]
    assert [Fraction(float(v)) for v in formats.bits_to_float64(run.output, "fp32")] == exact


def test_each_row_runs_the_kernel_of_its_op_with_the_drivers_scalar():
    for op in ("add", "sub", "mul", "div", "rsub"):
        row = BINARY_ROWS[f"Scalar{op.title()}"]
        assert row.function == op and row.scalar == 2.0
        for dest, name in row.kernels.items():
            spec = registry.get(name)
            assert (spec.function, spec.fixed_y) == (op, 2.0)
            assert spec.params.get("is_fp32_dest_acc_en") == (
                (dest == "Yes") if op == "rsub" else None)      # only RSUB's program reads it
    assert registry.get("binop_scalar_div_2026_09").params["param"] == 0.5   # 1 / divisor


def test_the_tables_scalar_rows_are_read_per_op():
    rows = device_table.read_binary()
    assert [rows[f"Scalar{op}"][0].max_ulp for op in ("Add", "Sub", "Mul", "Div", "Rsub")] == \
        [1, 1, 0, 0, 0]
    assert [rows["ScalarSub"][k].max_ulp for k in range(6)] == [1, None, None, None, None, 0]


@pytest.mark.parametrize("arch", CHIPS)
def test_the_float16_b_cells_are_the_devices(arch):
    """Every x the draw from [-1, 1] can produce, y = 2: add and sub lose a step to the
    truncating store, mul, div (by powers of two) and rsub (RNE) none."""
    cells = {op: exhaustive_cell(f"Scalar{op.title()}", "bf16", "No", arch)
             for op in ("add", "sub", "mul", "div", "rsub")}
    assert {op: (c.max_ulp, c.lanes) for op, c in cells.items()} == {
        "add": (1, 4352), "sub": (1, 4352), "mul": (0, 4352), "div": (0, 4352),
        "rsub": (0, 4352)}
    # the first x of the largest distance: 2 + SMALL truncated to 2 (RNE 2.015625); 2**-23 - 2
    # = -(2 - 2**-23) truncated to -1.9921875 (RNE -2)
    assert cells["add"].worst == {"x_bits": "0x3c01", "y_bits": "0x4000",
                                  "output_bits": "0x4000", "golden_bits": "0x4001"}
    assert cells["sub"].worst == {"x_bits": "0x3400", "y_bits": "0x4000",
                                  "output_bits": "0xbfff", "golden_bits": "0xc000"}
    assert "skips Float16_b with dest=Yes" in BINARY_ROWS["ScalarAdd"].why_no_cell(
        arch, "bf16", "Yes")


# Float32 through an FP32 Dst: x = 1 + 2**-23. x + 2 = 3 + 2**-23 is a tie between FP32
# neighbours 2**-22 apart, to even: 3. The others are exact.
FP32_X = 0x3F800001
FP32_HAND = {"binop_scalar_add_2026_09": 0x40400000, "binop_scalar_sub_2026_09": 0xBF7FFFFE,
             "binop_scalar_mul_2026_09": 0x40000001, "binop_scalar_div_2026_09": 0x3F000001,
             "binop_scalar_rsub_fp32_2026_09": 0x3F7FFFFE}


@pytest.mark.parametrize("arch", CHIPS)
def test_float32_pairs_through_an_fp32_dst(arch):
    path = DevicePath("fp32", "fp32", "fp32")
    x, y = np.array([FP32_X], np.uint32), np.array([0x40000000], np.uint32)
    for name, want in FP32_HAND.items():
        program = registry.get(name).program(arch)
        for engine in ("machine", "compiled"):
            out = run_binary_device(program, x, y, path, engine=engine).output
            assert hex(int(out[0])) == hex(want), (name, engine)
    with pytest.raises(SfpuSimError, match="FP32 inputs need an FP32 Dst"):
        run_binary_device(program, x, y, DevicePath("fp32", "fp32", "bf16"))


@pytest.mark.parametrize("arch", CHIPS)
def test_a_float32_cell_over_part_of_the_draw(arch, monkeypatch):
    """Every FP32 x the draw from [1, 1 + 2**-10] can produce (8,193 of them): each one's
    x + 2 rounded once, as the golden is; the full rows are pinned under slow."""
    monkeypatch.setitem(BINARY_ROWS, "ScalarAdd", dataclasses.replace(
        BINARY_ROWS["ScalarAdd"], domain_x=((1.0, 1.0 + 2.0 ** -10),)))
    cell = exhaustive_cell("ScalarAdd", "fp32", "Yes", arch)
    assert (cell.max_ulp, cell.lanes, cell.nonfinite) == (0, 8193, 0)


@pytest.mark.slow
@pytest.mark.parametrize("arch", CHIPS)
def test_the_float32_cells_are_the_devices(arch):
    """Every FP32 x the draw from [-1, 1] can produce, y = 2, through an FP32 Dst: one SFPMAD
    rounds to nearest even as the golden does; the device's 0 on every row."""
    for op in ("add", "sub", "mul", "div", "rsub"):
        cell = exhaustive_cell(f"Scalar{op.title()}", "fp32", "Yes", arch)
        assert (cell.max_ulp, cell.nonfinite) == (0, 0), op


SCALAR_ROWS = Path(__file__).resolve().parent / "data" / "budget_scalar_rows.yaml"


def test_check_reads_the_float16_b_scalar_rows(tmp_path, monkeypatch, capsys):
    """The file's Float16_b rows (its Float32 ones run 2**24 lanes each: under slow)."""
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path))
    lines = SCALAR_ROWS.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "scalar_bf16.yaml"
    path.write_text("".join(line for line in lines if "in: Float32" not in line),
                    encoding="utf-8")
    assert main(["budget", "--check", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        'within budget: ScalarAdd {in: Float16_b, out: Float16_b, dest: "No"} (line 6): '
        "predicted 1, the row records max 1, max_ulp 2",
        'within budget: ScalarDiv {in: Float16_b, out: Float16_b, dest: "No"} (line 9): '
        "predicted 0, the row records max 0, max_ulp 1",
        'within budget: ScalarMul {in: Float16_b, out: Float16_b, dest: "No"} (line 12): '
        "predicted 0, the row records max 0, max_ulp 1",
        'within budget: ScalarRsub {in: Float16_b, out: Float16_b, dest: "No"} (line 15): '
        "predicted 0, the row records max 0, max_ulp 1",
        'within budget: ScalarSub {in: Float16_b, out: Float16_b, dest: "No"} (line 18): '
        "predicted 1, the row records max 1, max_ulp 2",
        f"{path}: 5 rows, 5 checked (5 cells), 0 over budget, 0 differing from the measured "
        f"figure"]


@pytest.mark.slow
def test_check_reads_every_scalar_row(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path))
    assert main(["budget", "--check", str(SCALAR_ROWS)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == ('within budget: ScalarAdd {in: Float32, out: Float32, dest: "Yes"} '
                        '(line 7): predicted 0, the row records max 0, max_ulp 1')
    assert lines[-1] == (f"{SCALAR_ROWS}: 10 rows, 10 checked (10 cells), 0 over budget, 0 "
                         f"differing from the measured figure")


# The second operand they hold -----------------------------------------------------------------

def test_a_sweep_takes_the_held_operand_and_refuses_another(capsys):
    assert main(["sweep", "binop_scalar_rsub_2026_09", "--arch", "wormhole", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["second_operand"] == "y = 2, the parameter the kernel holds"
    assert [p["y_bits"] for p in summary["per_y"]] == ["0x4000"]
    assert main(["sweep", "binop_scalar_rsub_2026_09", "--arch", "wormhole", "--y", "2",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["max_ulp"] == summary["max_ulp"]
    assert main(["sweep", "binop_scalar_rsub_2026_09", "--arch", "wormhole", "--y", "3"]) == 2
    assert capsys.readouterr().err == (
        "sfpu-sim: error: binop_scalar_rsub_2026_09 holds its second operand, y = 2 (the scalar "
        "its op is given as a parameter): give no --y, or --y 2\n")
    with pytest.raises(BinaryOperandError, match="holds its second operand"):
        sweep_pairs(registry.get("binop_scalar_add_2026_09"), "wormhole", [0x4040])


def test_eval_takes_float32_pairs_and_a_sweep_refuses_them(capsys):
    """The FP32 tie above through the CLI: eval with an FP32 Dst; a sweep of every x is 16-bit."""
    assert main(["eval", "binop_scalar_add_2026_09", "--arch", "blackhole", "--in", "fp32",
                 "--out", "fp32", "--dest", "fp32", "0x3f800001", "--json"]) == 0
    lane = json.loads(capsys.readouterr().out)["results"][0]
    assert (lane["y_bits"], lane["output_bits"], lane["expected_bits"], lane["ulp"]) == \
        ("0x40000000", "0x40400000", "0x40400000", 0)
    assert main(["sweep", "binop_scalar_add_2026_09", "--arch", "wormhole", "--in", "fp32"]) == 2
    assert capsys.readouterr().err == (
        "sfpu-sim: error: --in fp32: a binary sweep runs every 16-bit x (bf16, fp16) against "
        "each y; FP32 pairs go through eval (with --dest fp32)\n")


def test_only_a_binary_kernel_holds_a_second_operand():
    def body():
        dst_reg[0] = dst_reg[0]

    with pytest.raises(RegistrationError, match="fixed_y=2.0: a number, for a binary kernel"):
        register_kernel("held_by_a_unary_kernel", body, function="exp", fixed_y=2.0)
