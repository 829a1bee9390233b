"""One option scheme across the ``sfpu-sim`` commands (issue 19, item 6): ``--arch`` (repeated,
comma-separated, ``all``; every chip by default), ``--x`` and ``--lane`` lists, ``--files``,
``--coeff-format``, ``--dest``, ``--range`` with constant expressions, tables printed whole when
piped, and the old spellings, each still working with one deprecation line on stderr.

In-process through :func:`sfpu_sim.cli.main`, on small inputs (a few ``--x``, narrow ranges;
sweeps cached per module).
"""
from __future__ import annotations

import io
import json
import math

import mpmath
import pytest

from sfpu_sim.cli import build_parser, main
from sfpu_sim.cli.options import chips, value_range
from sfpu_sim.cli.output import PLAIN_WIDTH, TerminalConsole

pytestmark = pytest.mark.usefixtures("cached_sweeps")

PROGRAM = "SFPLOADI L0, 0, 0x3f80\nSFPNOP\n"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "p.s"
    path.write_text(PROGRAM)
    return str(path)


def one_error(err: str) -> str:
    """The one line of a refusal, without its prefix."""
    assert err.count("\n") == 1 and err.startswith("sfpu-sim: error: "), err
    return err.removeprefix("sfpu-sim: error: ").rstrip("\n")


# --------------------------------------------------------------------------------------------
# --arch
# --------------------------------------------------------------------------------------------

def test_arch_repeated_comma_separated_all_or_left_out_all_run_both_chips(capsys):
    outputs = set()
    for arch in (["--arch", "wormhole", "--arch", "blackhole"], ["--arch", "wormhole,blackhole"],
                 ["--arch", "all"], []):
        code, out, err = run(capsys, "kernel", "show", "exp", *arch)
        assert (code, err) == (0, "")
        outputs.add(out)
    assert len(outputs) == 1
    out = outputs.pop()
    assert out.index("Wormhole B0 (--arch wormhole):") < out.index("exp on Wormhole B0") \
        < out.index("Blackhole A0 (--arch blackhole):") < out.index("exp on Blackhole A0")


def test_arch_keeps_the_order_given_and_one_chip_has_no_heading(capsys):
    _, both, _ = run(capsys, "kernel", "show", "exp", "--arch", "blackhole", "--arch", "wormhole")
    assert both.index("exp on Blackhole A0") < both.index("exp on Wormhole B0")
    _, one, _ = run(capsys, "kernel", "show", "exp", "--arch", "blackhole,blackhole")
    assert "(--arch" not in one and one.count("exp on Blackhole A0") == 1


def test_arch_once_required_now_defaults_to_every_chip(capsys, program):
    code, out, _ = run(capsys, "run", program)
    assert code == 0
    assert "Wormhole B0 (--arch wormhole):" in out and "Blackhole A0 (--arch blackhole):" in out
    code, out, _ = run(capsys, "eval", "tanh", "--x", "1")
    assert code == 0
    assert "tanh on Wormhole B0" in out and "tanh on Blackhole A0" in out
    code, out, _ = run(capsys, "explain", "0x84001230")
    assert "0x84001230 as an instruction on Wormhole B0" in out
    assert "0x84001230 as an instruction on Blackhole A0" in out


@pytest.mark.parametrize("argv", [
    ["sweep", "exp", "--arch", "x"], ["kernel", "show", "exp", "--arch", "both"],
    ["eval", "tanh", "--arch", "WORMHOLE", "1"], ["run", "p.s", "--arch=wormhole,x"],
])
def test_a_chip_that_is_not_one_is_one_line(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert one_error(err).endswith("choose wormhole, blackhole or all (repeat --arch, or "
                                   "separate chips with commas, for several)")


def test_an_empty_item_is_one_line(capsys):
    code, _, err = run(capsys, "kernel", "show", "exp", "--arch", "wormhole,")
    assert code == 2
    assert one_error(err) == ("--arch 'wormhole,': an empty item (write e.g. --arch A,B, or "
                              "repeat --arch)")


@pytest.mark.parametrize("argv, message", [
    (["sweep", "exp", "--json"],
     "--json prints one chip's summary: give one --arch (here: wormhole, blackhole)"),
    (["sweep", "exp", "--arch", "all", "--csv", "x.csv"],
     "--csv writes one chip's rows: give one --arch (here: wormhole, blackhole)"),
    (["eval", "tanh", "--json", "--x", "1"],
     "--json prints one chip's results: give one --arch (here: wormhole, blackhole)"),
    (["report", "tanh", "--csv", "x.csv"],
     "--csv writes one chip's rows: give one --arch (here: wormhole, blackhole)"),
    (["locate", "tanh", "--x", "1", "--json"],
     "--json prints one chip's result: give one --arch (here: wormhole, blackhole)"),
    (["asm", "p.s", "--arch", "all"], ("--arch all: asm's output (instruction words) is one "
                                       "chip's: give one --arch (wormhole, blackhole)")),
    (["export", "exp", "--style", "tti", "--arch", "wormhole,blackhole"],
     ("--arch wormhole,blackhole: the exported C++ is one chip's: give one --arch (wormhole, "
      "blackhole)")),
])
def test_an_output_of_one_chip_refuses_several_before_any_work(capsys, tmp_path, monkeypatch,
                                                              argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.s").write_text(PROGRAM)
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert one_error(err) == message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.s"]


def test_asm_and_disasm_read_one_chip_blackhole_unless_named(capsys, program):
    assert run(capsys, "asm", program) == run(capsys, "asm", program, "--arch", "blackhole")
    _, out, _ = run(capsys, "disasm", "0x71003f80")
    assert out == "SFPLOADI L0, 0, 0x3f80\n"


def test_fit_arch_both_is_all_with_one_deprecation_line(capsys):
    fitted = ["fit", "exp", "--interval", "0,1", "--powers", "0,1", "--json"]
    code, old, err = run(capsys, *fitted, "--arch", "both", "--arch", "both")
    assert code == 0
    assert err == "sfpu-sim: --arch both is deprecated for fit; use --arch all\n"
    assert run(capsys, *fitted, "--arch", "all") == (0, old, "")
    parse = build_parser().parse_args
    assert chips(parse(["fit", "exp", "--interval", "0,1", "--arch", "both"])) == \
        chips(parse(["fit", "exp", "--interval", "0,1"])) == ["wormhole", "blackhole"]


# --------------------------------------------------------------------------------------------
# --x and --lane: lists, comma-separated or repeated
# --------------------------------------------------------------------------------------------

def test_eval_takes_x_beside_its_arguments(capsys):
    _, arguments, _ = run(capsys, "eval", "tanh", "--arch", "wormhole", "--json", "1.5", "1",
                          "--", "-2", "0.5")
    code, spelled, err = run(capsys, "eval", "tanh", "1.5", "--arch", "wormhole", "--json",
                             "--x", "1,-2", "--x=0.5")
    assert (code, err) == (0, "") and spelled == arguments
    inputs = [row["input_bits"] for row in json.loads(spelled)["results"]]
    assert inputs == ["0x3fc0", "0x3f80", "0xc000", "0x3f00"]


def test_eval_without_inputs_is_one_line(capsys):
    code, _, err = run(capsys, "eval", "tanh", "--arch", "wormhole")
    assert code == 2
    assert one_error(err) == ("eval: give inputs: X... after KERNEL, or --x VALUE "
                              "(comma-separated, repeatable)")


def test_trace_diff_and_locate_take_x_lists(capsys):
    trace = ["trace", "exp", "--arch", "wormhole"]
    assert run(capsys, *trace, "--x=1.5,-3") == run(capsys, *trace, "--x", "1.5", "--x=-3")
    code, out, _ = run(capsys, "diff", "tanh", "tanh", "--arch", "wormhole", "--x", "1,2",
                       "--json")
    assert code == 0 and json.loads(out)["inputs"] == 2
    code, out, _ = run(capsys, "locate", "tanh", "--arch", "wormhole", "--x", "0.75,1",
                       "--json")
    assert code == 0
    assert [lane["input_bits"] for lane in json.loads(out)["lanes"]] == ["0x3f40", "0x3f80"]


def test_run_lane_takes_a_list_as_repeated_lanes_do(capsys, program):
    shown = [run(capsys, "run", program, "--arch", "wormhole", *lanes)
             for lanes in (["--lane", "0,1,2"], ["--lane", "0", "--lane", "1", "--lane", "2"],
                           ["--lane", "0,1", "--lane=2"])]
    assert shown[0] == shown[1] == shown[2] and shown[0][0] == 0
    rows = [line for line in shown[0][1].splitlines() if line.startswith("│ L0 ")]
    assert rows == ["│ L0  │ 0    │ 0x3f800000 │ 1.0         │ 0x3f80 1.0         │"]
    assert "│     │ 2    │ 0x3f800000 │ 1.0         │ 0x3f80 1.0         │" in shown[0][1]


@pytest.mark.parametrize("lanes, message", [
    ("a", "--lane 'a': give lane numbers, e.g. --lane 0,1,2 (or repeat --lane)"),
    ("0,,1", "--lane '0,,1': an empty item (write e.g. --lane A,B, or repeat --lane)"),
    ("0,32", "--lane 32 out of range (0..31)"),
])
def test_a_bad_lane_is_one_line(capsys, program, lanes, message):
    code, _, err = run(capsys, "run", program, "--arch", "wormhole", "--lane", lanes)
    assert code == 2 and one_error(err) == message


def test_a_lane_that_is_no_number_is_refused_before_any_chip_runs(capsys, program):
    code, out, err = run(capsys, "run", program, "--lane", "0", "--lane", "x")
    assert (code, out) == (2, "")
    assert one_error(err) == "--lane 'x': give lane numbers, e.g. --lane 0,1,2 (or repeat --lane)"


# --------------------------------------------------------------------------------------------
# --files, --coeff-format, --dest, and their old spellings
# --------------------------------------------------------------------------------------------

REPORT = ["report", "tanh", "--arch", "wormhole", "--range=1,1.0625"]


def test_report_files_and_its_old_spelling_format_write_the_same(capsys, tmp_path):
    code, new_out, err = run(capsys, *REPORT, "--files", "json", "--out", str(tmp_path / "new"))
    assert (code, err) == (0, "")
    code, old_out, err = run(capsys, *REPORT, "--format", "json", "--format", "json", "--out",
                             str(tmp_path / "old"))
    assert code == 0
    assert err == "sfpu-sim: --format is deprecated for report; use --files\n"
    stem = "tanh_wormhole_bf16_rne_range1to1.0625.json"
    assert [p.name for p in (tmp_path / "new").iterdir()] == [stem]
    assert [p.name for p in (tmp_path / "old").iterdir()] == [stem]
    assert new_out.replace("new", "old") == old_out
    new, old = (json.loads((tmp_path / d / stem).read_text()) for d in ("new", "old"))
    assert new["count"] == old["count"] == 9              # 1 + k/128, k = 0..8


def test_compare_of_a_kernel_without_arch_sets_its_chips_side_by_side(capsys, tmp_path):
    code, out, _ = run(capsys, "compare", "tanh", "--range=1,1.0625", "--files", "md", "--out",
                       str(tmp_path))
    assert code == 0
    assert out.startswith("### sfpu-sim comparison: `tanh@wormhole` vs `tanh@blackhole`\n")


def test_compare_files_and_its_old_spelling(capsys, tmp_path):
    run(capsys, *REPORT, "--files", "json", "--out", str(tmp_path))
    saved = str(next(tmp_path.iterdir()))
    items = ["compare", saved, saved, "--out", str(tmp_path / "c")]
    code, new, err = run(capsys, *items, "--files", "md", "--name", "new")
    assert (code, err) == (0, f"wrote {tmp_path / 'c' / 'new.md'}\n")
    code, old, err = run(capsys, *items, "--format", "md", "--name", "old")
    assert code == 0
    assert err == ("sfpu-sim: --format is deprecated for compare; use --files\n"
                   f"wrote {tmp_path / 'c' / 'old.md'}\n")
    assert new == old
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["new.md", "old.md"]
    code, _, err = run(capsys, *items, "--files", "pdf")
    assert code == 2
    assert one_error(err) == "--files 'pdf': choose from md, png, json (comma-separated)"


def test_fit_coeff_format_and_its_old_spelling_format(capsys):
    fitted = ["fit", "exp", "--interval", "0,1", "--powers", "0,1", "--json"]
    code, new, err = run(capsys, *fitted, "--coeff-format", "bf16")
    assert (code, err) == (0, "")
    assert json.loads(new)["format"] == ["bf16", "bf16"]
    code, old, err = run(capsys, *fitted, "--format", "bf16")
    assert (code, old) == (0, new)
    assert err == "sfpu-sim: --format is deprecated for fit; use --coeff-format\n"
    code, _, err = run(capsys, *fitted, "--coeff-format", "bf16,bf16,bf16")
    assert code == 2
    assert one_error(err) == ("--coeff-format: 3 formats for 2 powers [0, 1]; give one "
                              "format, or one per power")


def test_run_dest_and_its_old_spelling_dst_format(capsys, program):
    preset = ["run", program, "--arch", "blackhole", "--dst", "0=1.5", "--lane", "0,1"]
    code, new, err = run(capsys, *preset, "--dest", "bf16")
    assert (code, err) == (0, "")
    code, old, err = run(capsys, *preset, "--dst-format", "bf16")
    assert (code, old) == (0, new)
    assert err == "sfpu-sim: --dst-format is deprecated for run; use --dest\n"
    assert new != run(capsys, *preset)[1]                 # fp32 cells by default: not bf16's


def test_study_diagnose_takes_x_and_its_old_spelling(capsys):
    study = ["study", "gelu", "--methods", "C1", "--json"]
    code, new, err = run(capsys, *study, "--diagnose", "--x=-8.375,3")
    assert (code, err) == (0, "")
    assert run(capsys, *study, "--x=-8.375", "--x", "3") == (0, new, "")
    code, old, err = run(capsys, *study, "--diagnose", "-8.375", "3")
    assert (code, old) == (0, new)
    assert err == "sfpu-sim: --diagnose X is deprecated for study gelu; use --diagnose --x X\n"
    rows = json.loads(new)["methods"]["C1"]
    assert [(r["input_bits"], r["ulp"]) for r in rows] == [("0xc106", 9904), ("0x4040", 0)]


# --------------------------------------------------------------------------------------------
# --range: numbers or constant expressions, in every command
# --------------------------------------------------------------------------------------------

def test_an_expression_end_is_rounded_inward_to_the_doubles_inside():
    low, high = value_range("-pi/4,pi/4")
    assert (low, high) == (-0.7853981633974483, 0.7853981633974483)
    with mpmath.workprec(300):
        quarter = mpmath.pi / 4
        assert mpmath.mpf(high) < quarter < mpmath.mpf(math.nextafter(high, math.inf))
        assert -quarter < mpmath.mpf(low)
    assert value_range("1/3,2/3") == (0.33333333333333337, 0.6666666666666666)
    assert value_range("pi/pi,log(e)") == (1.0, 1.0)        # ends within 2**-250 of a double
    assert value_range("-10,10") == (-10.0, 10.0)            # numbers as before
    assert value_range("0.1,inf") == (0.1, math.inf)
    assert value_range("-inf,2^-10") == (-math.inf, 0.0009765625)
    assert value_range("exp(1000)*10,inf") == (math.inf, math.inf)
    assert value_range("1e-400*pi,1") == (5e-324, 1.0)


@pytest.mark.parametrize("text, message", [
    ("a,b", "--range LO: cannot read 'a' (unknown name 'a'); allowed: numbers, pi, e"),
    ("1", ("--range '1': write LO,HI, two numbers or constant expressions such as -10,10 or "
           "-pi/4,pi/4 (as --range=-10,10 when LO is negative)")),
    ("2,1", "--range '2,1': need LO <= HI, neither NaN"),
    ("nan,1", "--range 'nan,1': need LO <= HI, neither NaN"),
    ("pi,3", ("--range 'pi,3': no input lies in [LO, HI] (LO rounds up to "
              "3.1415926535897936, HI down to 3.0)")),
    ("sqrt(-1),1", "--range LO: sqrt(-1) is not a finite real number"),
])
def test_a_bad_range_is_one_line_in_every_command(capsys, text, message):
    for argv in (["sweep", "exp", "--arch", "wormhole"], ["locate", "tanh", "--worst", "1"],
                 ["budget", "tanh"], ["diff", "tanh", "tanh"]):
        code, _, err = run(capsys, *argv, f"--range={text}")
        assert code == 2 and one_error(err).startswith(message), argv


def test_sweep_report_and_budget_take_an_expression_range(capsys, tmp_path):
    _, by_expression, _ = run(capsys, "sweep", "exp", "--arch", "wormhole", "--json",
                              "--range=-pi/4,pi/4")
    _, by_number, _ = run(capsys, "sweep", "exp", "--arch", "wormhole", "--json",
                          "--range=-0.7853981633974483,0.7853981633974483")
    assert by_expression == by_number
    summary = json.loads(by_expression)
    assert summary["count"] == 32149
    assert summary["selection"]["text"] == "x in [-0.7853981633974483, 0.7853981633974483]"
    code, out, _ = run(capsys, "budget", "exp", "--arch", "wormhole", "--range=-pi/4,pi/4")
    assert code == 0 and "32,149 inputs" in out
    code, _, _ = run(capsys, "report", "exp", "--arch", "wormhole", "--range=-pi/4,pi/4",
                     "--files", "json", "--out", str(tmp_path))
    assert code == 0
    [written] = tmp_path.iterdir()
    assert json.loads(written.read_text())["count"] == 32149


def test_diff_and_y_range_take_an_expression_range(capsys):
    code, out, _ = run(capsys, "diff", "tanh", "tanh", "--arch", "wormhole", "--json",
                       "--range=-pi/64,pi/64")
    assert code == 0 and json.loads(out)["inputs"] == 31380
    code, _, err = run(capsys, "sweep", "binary_add_2026_09", "--arch", "wormhole",
                       "--y-range=pi,3")
    assert code == 2
    assert one_error(err) == ("--y-range 'pi,3': no input lies in [LO, HI] (LO rounds up to "
                              "3.1415926535897936, HI down to 3.0)")


# --------------------------------------------------------------------------------------------
# Tables: the terminal's width, or whole rows when piped
# --------------------------------------------------------------------------------------------

def test_a_piped_table_prints_each_row_whole(capsys, monkeypatch):
    eval_one = ["eval", "tanh", "--arch", "wormhole", "--x", "1"]
    monkeypatch.delenv("COLUMNS", raising=False)
    _, out, _ = run(capsys, *eval_one)
    [row] = [line for line in out.splitlines() if "0x3f80 1.0" in line]
    assert "0x3f43 0.76171875" in row and "0.761594156" in row and row.endswith("measurable │")
    monkeypatch.setenv("COLUMNS", "60")                     # a width asked for is kept
    _, out, _ = run(capsys, *eval_one)
    assert max(len(line) for line in out.splitlines()) <= 60
    assert not any("0x3f80" in line and "measurable" in line for line in out.splitlines())


def test_a_plain_console_is_wide_and_its_rules_are_not(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    stream = io.StringIO()
    plain = TerminalConsole(file=stream)
    assert plain.plain and plain.width == PLAIN_WIDTH
    plain.rule("mode")
    assert len(stream.getvalue().rstrip("\n")) == 80
    terminal = TerminalConsole(file=io.StringIO(), force_terminal=True, width=100)
    assert not terminal.plain and terminal.width == 100
