"""Per-op accuracy files in tt-llk's 22-column schema (``report --harness-csv``) and the accuracy
gate's rules (``baseline check|save``): the schema, values pinned from a real report, round
trips, regressions (exit 1), schema mismatches and bad inputs (exit 2, one line), Parquet
equal to CSV, and everything but Parquet without pyarrow.

Expected values: the schema from tt-metal accuracy_harness.py @ 92797376 ``CSV_COLUMNS``; the
metrics derived by hand from helpers/accuracy_metrics.py's definitions; the tanh figures from
the report's own sweep (65,025 measured inputs, two of them the +-2**-126 lanes the device
flushes to 0: 2**-126 / 2**-133 = 128 steps of the golden's spacing).
"""
from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys

import numpy as np
import pytest

import sfpu_sim.sweeps as sweep_module
from sfpu_sim import registry
from sfpu_sim.cli import main
from sfpu_sim.report import accuracy_csv, accuracy_gate

HARNESS_22 = ("op", "input_format", "output_format", "chip_arch", "distribution", "intervals",
              "variant_name", "seed", "sample_index", "x", "golden", "hw", "approx_mode",
              "fast_mode", "dest_acc", "abs_error", "signed_error", "rel_error",
              "signed_ulp_error", "abs_ulp_error", "is_finite_hw", "is_finite_golden")
BASELINE_HEADER = ("op,input_format,output_format,approx_mode,fast_mode,dest_acc,n_rows,"
                   "n_finite_mismatch,n_exact,max_abs_ulp,mean_abs_ulp,max_abs_error,"
                   "max_rel_error")
TANH_BASELINE_ROW = "tanh,bf16,bf16,0,0,0,65025,0,64809,128.0,0.007228100393700788,0.00390625,1.0"
needs_pyarrow = pytest.mark.skipif(not accuracy_csv.have_pyarrow(),
                                   reason="Parquet needs pyarrow (the parquet extra)")


pytestmark = pytest.mark.usefixtures("cached_sweeps")


def quiet_main(*argv) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def report_argv(directory, *extra) -> list[str]:
    return ["report", "tanh", "--arch", "blackhole", "--files", "json", "--out",
            str(directory / "reports"), "--harness-csv", str(directory / "acc"), *extra]


@pytest.fixture(scope="module")
def tanh_files(tmp_path_factory):
    """``report tanh --arch blackhole --harness-csv``'s files (read-only for the tests)."""
    directory = tmp_path_factory.mktemp("harness")
    code, out = quiet_main(*report_argv(directory))
    assert code == 0, out
    return directory / "acc", out


@pytest.fixture(scope="module")
def tanh_table(tanh_files):
    return accuracy_csv.read_csv(tanh_files[0] / "tanh.csv")


def small_file(table: dict, path, rename=None, drop=()) -> object:
    """The rows with 0.5 <= |x| <= 4 (770 of them) written as a per-op CSV at ``path``."""
    keep = (np.abs(table["x"]) >= 0.5) & (np.abs(table["x"]) <= 4.0)
    rename = rename or {}
    path.write_text(accuracy_csv.csv_text({rename.get(k, k): v[keep] for k, v in table.items()
                                           if k not in drop}))
    return path


# --------------------------------------------------------------------------------------------
# The schema and the values
# --------------------------------------------------------------------------------------------

def test_schema_is_the_harness_22_columns_in_order(tanh_files):
    assert accuracy_csv.COLUMNS == HARNESS_22 and len(HARNESS_22) == 22
    header = (tanh_files[0] / "tanh.csv").read_text().split("\n", 1)[0]
    assert header == ",".join(HARNESS_22)


def test_report_writes_one_variant_sorted_by_x_with_pinned_values(tanh_files):
    directory, out = tanh_files
    assert (f"wrote {directory / 'tanh.csv'} (65,025 rows of tanh Float16_b->Float16_b "
            f"approx=0 fast=0 dest=0; 1 variant in the file)") in out
    lines = (directory / "tanh.csv").read_text().splitlines()
    assert len(lines) == 1 + 65025
    identity = ('tanh,Float16_b,Float16_b,blackhole,custom,"[(-3.3895313892515355e+38, '
                '3.3895313892515355e+38)]",tanh__Float16_b_Float16_b__approx0_fast0_dest0,,')
    assert lines[1] == identity + "0,-3.3895313892515355e+38,-1.0,-1.0,0,0,0," \
                                  "0.0,0.0,0.0,0.0,0.0,True,True"
    # x = 1: tanh(1) = 0.76171875 in BF16, exact
    assert identity + "48641,1.0,0.76171875,0.76171875,0,0,0,0.0,0.0,0.0,0.0,0.0,True,True" \
        in lines
    # the smallest normal, flushed to 0 by the device: 128 steps of 2**-133
    assert identity + ("32513,1.1754943508222875e-38,1.1754943508222875e-38,0.0,0,0,0,"
                       "1.1754943508222875e-38,-1.1754943508222875e-38,1.0,-128.0,128.0,"
                       "True,True") in lines
    # x = 0: golden 0, so rel and ULP errors are NaN (empty)
    assert identity + "32512,0.0,0.0,0.0,0,0,0,0.0,0.0,,,,True,True" in lines
    assert identity + ("16162,-3.453125,-0.99609375,-1.0,0,0,0,0.00390625,-0.00390625,"
                       "0.00392156862745098,-1.0,1.0,True,True") in lines


def test_metrics_follow_the_harness_definitions():
    golden = np.array([1.0, 3.3895313892515355e+38, 0.0, 1.0, np.inf, np.nan, -2.0])
    hw = np.array([1.0078125, 3.3895313892515355e+38, 2.0 ** -126, np.inf, np.inf, 1.0, -2.0])
    bits = np.array([0x3F80, 0x7F7F, 0x0000, 0x3F80, 0x7F80, 0x7FC0, 0xC000], dtype=np.uint16)
    ulp = accuracy_csv.local_ulp(bits, "bf16")
    np.testing.assert_array_equal(ulp, [2.0 ** -7, np.inf, 2.0 ** -133, 2.0 ** -7, np.nan,
                                        np.nan, 2.0 ** -6])
    metrics = accuracy_csv.pointwise_metrics(golden, hw, ulp)
    np.testing.assert_array_equal(metrics["signed_error"],
                                  [2.0 ** -7, 0.0, 2.0 ** -126, np.inf, np.nan, np.nan, 0.0])
    np.testing.assert_array_equal(metrics["rel_error"],
                                  [2.0 ** -7, 0.0, np.nan, np.inf, np.nan, np.nan, 0.0])
    # defined only where both finite, golden nonzero and the spacing finite (not at the max)
    np.testing.assert_array_equal(metrics["signed_ulp_error"],
                                  [1.0, np.nan, np.nan, np.nan, np.nan, np.nan, 0.0])
    np.testing.assert_array_equal(metrics["is_finite_hw"], np.isfinite(hw))
    np.testing.assert_array_equal(metrics["is_finite_golden"], np.isfinite(golden))


def test_fp16_and_fp32_spacing():
    np.testing.assert_array_equal(accuracy_csv.local_ulp(np.array([0x3C00, 0xFBFF], np.uint16),
                                                         "fp16"), [2.0 ** -10, np.inf])
    np.testing.assert_array_equal(accuracy_csv.local_ulp(np.array([0x3F800000], np.uint32),
                                                         "fp32"), [2.0 ** -23])


def test_variant_identity_comes_from_the_instantiation():
    exp = registry.get("exp")                   # calculate_exponential<false, FAST_APPROX=true>
    assert accuracy_csv.variant("exp", "fp16", "fp16", exp.params, exp.mode, "fp32") == {
        "op": "exp", "input_format": "Float16", "output_format": "Float16",
        "approx_mode": "0", "fast_mode": "1", "dest_acc": "1"}
    key = accuracy_csv.variant("celu", "bf16", "fp32", {}, "approximate", "bf16")
    assert accuracy_csv.variant_name(key) == "celu__Float16_b_Float32__approx1_fast0_dest0"


def test_the_op_is_the_accuracy_tables_op_where_one_owns_the_kernel():
    from sfpu_sim.cli.gating import harness_op

    assert harness_op(registry.get("celu_2026_09")) == "celu"
    assert harness_op(registry.get("tanh")) == "tanh"                 # no table op: function
    assert harness_op(registry.get("gelu_approx")) == "gelu"     # two table ops: function


# --------------------------------------------------------------------------------------------
# baseline check: round trip, regressions, schema
# --------------------------------------------------------------------------------------------

def test_csv_round_trips_through_baseline_check(capsys, tanh_files):
    csv_file = tanh_files[0] / "tanh.csv"
    code, out, _ = run(capsys, "baseline", "check", str(csv_file), str(csv_file))
    assert code == 0
    assert "**PASS (exit 0):** no regression, 0 improvement(s)." in out


@needs_pyarrow
def test_csv_and_parquet_pair_round_trips_through_baseline_check(capsys, tanh_files):
    directory = tanh_files[0]
    code, out, _ = run(capsys, "baseline", "check", str(directory / "tanh.csv"),
                       str(directory / "tanh.parquet"))
    assert code == 0 and "PASS" in out
    code, _, _ = run(capsys, "baseline", "check", str(directory), str(directory / "tanh.csv"))
    assert code == 0                                        # a directory: its Parquet


@needs_pyarrow
def test_parquet_equals_csv_bit_for_bit(tanh_files, tanh_table):
    from_csv = tanh_table
    from_parquet = accuracy_csv.read_parquet(tanh_files[0] / "tanh.parquet")
    assert tuple(from_parquet) == HARNESS_22
    for name in HARNESS_22:
        a, b = from_csv[name], from_parquet[name]
        assert a.dtype.kind == b.dtype.kind, name
        if a.dtype.kind == "f":
            assert np.array_equal(a.view(np.int64), b.view(np.int64)), name
        else:
            assert np.array_equal(a, b), name


def test_baseline_save_writes_the_gates_baseline_csv(capsys, tanh_files, tmp_path):
    target = tmp_path / "bh.csv"
    code, out, _ = run(capsys, "baseline", "save", str(tanh_files[0] / "tanh.csv"),
                       str(target))
    assert code == 0 and f"wrote {target} (1 variant of " in out
    assert target.read_text() == BASELINE_HEADER + "\n" + TANH_BASELINE_ROW + "\n"
    code, _, _ = run(capsys, "baseline", "check", str(target), str(tanh_files[0] / "tanh.csv"))
    assert code == 0


def worsened(table: dict, path):
    """The table with its x = 1 row one BF16 step off (hw 0.765625 for 0.76171875)."""
    table = {name: values.copy() for name, values in table.items()}
    row = np.flatnonzero(table["x"] == 1.0)[0]
    table["hw"][row] = 0.765625
    metrics = accuracy_csv.pointwise_metrics(table["golden"], table["hw"],
                                             np.full(table["hw"].size, 2.0 ** -8))
    for column in ("abs_error", "signed_error", "rel_error", "signed_ulp_error",
                   "abs_ulp_error"):
        table[column][row] = metrics[column][row]
    return small_file(table, path)


def test_a_worsened_row_is_a_regression_exit_1(capsys, tanh_table, tmp_path):
    source = small_file(tanh_table, tmp_path / "small.csv")
    worse = worsened(tanh_table, tmp_path / "worse.csv")
    code, out, _ = run(capsys, "baseline", "check", str(source), str(worse))
    assert code == 1
    assert "**FAIL (exit 1):** 2 regression(s), 0 improvement(s)." in out
    label = "tanh bf16->bf16 approx=0 fast=0 dest=0"
    assert f"| {label} | n_exact | 650 | 649 |" in out
    assert f"| {label} | mean_abs_ulp | 0.15584415584415584 | 0.15714285714285714 |" in out
    # the other way round it is an improvement, which passes
    code, out, _ = run(capsys, "baseline", "check", str(worse), str(source))
    assert code == 0 and "**PASS (exit 0):** no regression, 2 improvement(s)." in out


def test_dropped_or_renamed_column_is_exit_2(capsys, tanh_table, tmp_path):
    source = small_file(tanh_table, tmp_path / "small.csv")
    renamed = small_file(tanh_table, tmp_path / "renamed.csv", rename={"hw": "hardware"})
    dropped = small_file(tanh_table, tmp_path / "dropped.csv", drop=("signed_ulp_error",))
    for bad, missing in ((renamed, "hw"), (dropped, "signed_ulp_error")):
        code, out, err = run(capsys, "baseline", "check", str(source), str(bad))
        assert code == 2 and out == ""
        assert err == (f"sfpu-sim: error: {bad}: schema mismatch: missing column(s) {missing} "
                       f"of the harness's 22-column per-op schema\n")


def test_variant_set_row_count_and_one_sided_metric_are_schema_mismatches(capsys, tmp_path):
    row = TANH_BASELINE_ROW
    cases = {
        "extra variant": ([row], [row, row.replace(",0,0,0,", ",0,0,1,", 1)],
                          ("- in the candidate, not in the baseline: tanh bf16->bf16 "
                           "approx=0 fast=0 dest=1")),
        "row count": ([row], [row.replace(",65025,", ",65024,")],
                      "- tanh bf16->bf16 approx=0 fast=0 dest=0: n_rows 65025 -> 65024"),
        "one-sided": ([row], [row.replace(",128.0,", ",,")],
                      ("- tanh bf16->bf16 approx=0 fast=0 dest=0: max_abs_ulp is defined on "
                       "one side only (baseline 128.0, candidate nan)")),
    }
    for name, (before, after, line) in cases.items():
        paths = []
        for side, rows in (("baseline", before), ("candidate", after)):
            paths.append(tmp_path / f"{name}-{side}.csv")
            paths[-1].write_text("\n".join([BASELINE_HEADER, *rows]) + "\n")
        code, out, _ = run(capsys, "baseline", "check", *map(str, paths))
        assert code == 2, name
        assert "**FAIL (schema, exit 2):** 1 mismatch(es)" in out and line in out, out


def test_comparison_is_exact_and_nan_on_both_sides_is_equal():
    base = accuracy_gate.summarize({
        "op": np.array(["exp", "exp"]), "input_format": np.array(["bf16", "bf16"]),
        "output_format": np.array(["fp32", "fp32"]), "approx_mode": np.array(["0", "0"]),
        "fast_mode": np.array(["0", "0"]), "dest_acc": np.array(["1", "1"]),
        "golden_result": np.array([1.0, 2.0]), "hardware_result": np.array([1.0, 2.0]),
        "is_finite_golden": np.array([True, True]), "is_finite_hw": np.array([True, True]),
        "signed_error": np.array([0.0, 0.0]), "rel_error": np.array([0.0, 0.0]),
        "signed_ulp_error": np.array([0.0, 0.0])})
    assert np.isnan(base["max_abs_ulp"][0])                 # fp32 output: no ULP metric
    assert accuracy_gate.compare(base, base).exit_code == 0
    tiny = dict(base, max_abs_error=np.array([np.nextafter(0.0, 1.0)]))
    result = accuracy_gate.compare(base, tiny)
    assert result.exit_code == 1 and [f.metric for f in result.regressions] == ["max_abs_error"]


def test_a_22_column_file_summarises_as_its_19_column_twin(tmp_path, tanh_table):
    wide = small_file(tanh_table, tmp_path / "wide.csv")
    compact = small_file(tanh_table, tmp_path / "compact.csv",
                         rename={"x": "test_value", "golden": "golden_result",
                                 "hw": "hardware_result"},
                         drop=("variant_name", "abs_error", "abs_ulp_error"))
    text = compact.read_text().replace(",Float16_b,Float16_b,", ",bf16,bf16,")
    compact.write_text(text)
    assert accuracy_gate.load(compact).what == "19-column"
    assert accuracy_gate.load(wide).what == "22-column"
    # 120 of the 770 lanes 1 step off: mean 120 / 770; worst relative error 2**-8 / 0.51171875
    expected = "tanh,bf16,bf16,0,0,0,770,0,650,1.0,0.15584415584415584,0.00390625," \
               "0.007633587786259542"
    for source in (wide, compact):
        summary = accuracy_gate.load(source).summary
        assert accuracy_gate.baseline_csv_text(summary).splitlines()[1] == expected


# --------------------------------------------------------------------------------------------
# Merging variants into the per-op file
# --------------------------------------------------------------------------------------------

def synthetic(dest: str, x: list[float]) -> dict:
    bits = np.array([int(np.float32(v).view(np.uint32)) >> 16 for v in x], dtype=np.uint16)
    m = {"output_format": "bf16", "arch": "wormhole"}
    arrays = {"x": np.array(x), "expected": bits, "actual": bits}
    key = accuracy_csv.variant("exp", "bf16", "bf16", {}, "accurate", dest)
    return accuracy_csv.variant_table(m, arrays, key)


def test_merge_replaces_the_same_variant_and_keeps_the_others():
    merged = accuracy_csv.merge(synthetic("fp32", [2.0, 1.0]), synthetic("bf16", [3.0]))
    assert merged["dest_acc"].tolist() == ["0", "1", "1"]
    assert merged["x"].tolist() == [3.0, 1.0, 2.0]
    assert merged["sample_index"].tolist() == [0, 0, 1]
    again = accuracy_csv.merge(merged, synthetic("fp32", [5.0]))
    assert again["x"].tolist() == [3.0, 5.0] and accuracy_csv.variants_of(again) == 2


def test_a_second_report_adds_its_variant_to_the_per_op_file(tmp_path, tanh_files):
    (tmp_path / "acc").mkdir()
    shutil.copy(tanh_files[0] / "tanh.csv", tmp_path / "acc" / "tanh.csv")
    if (tanh_files[0] / "tanh.parquet").exists():
        shutil.copy(tanh_files[0] / "tanh.parquet", tmp_path / "acc" / "tanh.parquet")
    code, out = quiet_main(*report_argv(tmp_path, "--dest", "fp32"))
    assert code == 0
    assert "65,025 rows of tanh Float16_b->Float16_b approx=0 fast=0 dest=1; 2 variants" in out
    lines = (tmp_path / "acc" / "tanh.csv").read_text().splitlines()
    assert len(lines) == 1 + 2 * 65025
    assert lines[65026].split(",")[7:10] == ["tanh__Float16_b_Float16_b__approx0_fast0_dest1",
                                             "", "0"]


# --------------------------------------------------------------------------------------------
# Without pyarrow
# --------------------------------------------------------------------------------------------

@pytest.fixture
def no_pyarrow(monkeypatch):
    for name in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)        # import raises ImportError


def test_without_pyarrow_the_csv_is_written_and_checked(capsys, tmp_path, no_pyarrow,
                                                        tanh_files):
    assert not accuracy_csv.have_pyarrow()
    code, out = quiet_main(*report_argv(tmp_path))
    assert code == 0
    target = tmp_path / "acc" / "tanh.parquet"
    assert (f"not written: {target}: Parquet needs pyarrow (pip install "
            f"'sfpu-sim[parquet]')") in out
    assert sorted(p.name for p in (tmp_path / "acc").iterdir()) == ["tanh.csv"]
    assert (tmp_path / "acc" / "tanh.csv").read_bytes() == \
        (tanh_files[0] / "tanh.csv").read_bytes()
    code, _, _ = run(capsys, "baseline", "check", str(tmp_path / "acc"),
                     str(tmp_path / "acc" / "tanh.csv"))
    assert code == 0
    target.write_bytes(b"PAR1")
    code, _, err = run(capsys, "baseline", "check", str(target), str(tmp_path / "acc"))
    assert code == 2
    assert err == "sfpu-sim: error: Parquet needs pyarrow: pip install 'sfpu-sim[parquet]'\n"
    code, _, err = run(capsys, *report_argv(tmp_path))       # the pair would go stale
    assert code == 2 and f"{target} exists and Parquet needs pyarrow" in err


# --------------------------------------------------------------------------------------------
# Bad input: one line, exit 2
# --------------------------------------------------------------------------------------------

def test_bad_sources_are_one_line_exit_2(capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "binary.csv").write_bytes(b"\xff\xfe\x00")
    (tmp_path / "short.csv").write_text(BASELINE_HEADER + "\ntanh,bf16\n")
    many = TANH_BASELINE_ROW.replace(",65025,", ",many,")
    (tmp_path / "text.csv").write_text(f"{BASELINE_HEADER}\n{many}\n")
    huge = TANH_BASELINE_ROW.replace(",65025,", f",{2 ** 63},")       # beyond int64
    (tmp_path / "huge.csv").write_text(f"{BASELINE_HEADER}\n{huge}\n")
    row = TANH_BASELINE_ROW
    (tmp_path / "twice.csv").write_text(f"{BASELINE_HEADER}\n{row}\n{row}\n")
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    cases = [("nosuch.csv", "nosuch.csv: no such file or directory"),
             ("empty", "empty: no per-op .parquet or .csv files in this directory"),
             ("binary.csv", "binary.csv: not a text (UTF-8) file"),
             ("short.csv", "short.csv:2: 2 fields, the header has 13"),
             ("text.csv", "text.csv: column n_rows: 'many' is not an integer"),
             ("huge.csv", f"huge.csv: column n_rows: '{2 ** 63}' is not an integer"),
             ("twice.csv", ("twice.csv: variant tanh bf16->bf16 approx=0 fast=0 dest=0 "
                            "appears more than once")),
             ("other.csv", "other.csv: schema mismatch: missing column(s) op, ")]
    for name, message in cases:
        code, out, err = run(capsys, "baseline", "check", str(tmp_path / name),
                             str(tmp_path / "twice.csv"))
        assert code == 2 and out == "", name
        assert err.startswith(f"sfpu-sim: error: {tmp_path}/{message}"), err
        assert len(err.strip().splitlines()) == 1


def test_report_harness_csv_refusals_are_one_line_before_any_sweep(capsys, tmp_path,
                                                                   monkeypatch):
    taken = tmp_path / "taken"
    taken.write_text("")
    (tmp_path / "acc").mkdir()
    (tmp_path / "acc" / "tanh.csv").write_text("op,x\ntanh,1\n")
    swept = []
    monkeypatch.setattr(sweep_module, "sweep", lambda *a, **k: swept.append(a))
    cases = [
        (["--harness-csv", str(taken)], (f"cannot write reports to {taken}: it exists and is "
                                         f"not a directory")),
        (["--harness-csv", str(tmp_path / "acc")],
         (f"{tmp_path / 'acc' / 'tanh.csv'}: exists and is not in the harness's 22-column "
          f"schema (missing input_format, ")),
        (["--harness-csv", str(tmp_path), "--in", "fp32", "--dest", "fp32"],
         "--harness-csv writes one row per input: not for --in fp32 sweeps"),
    ]
    for extra, message in cases:
        code, _, err = run(capsys, "report", "tanh", "--arch", "blackhole", "--out",
                           str(tmp_path / "out"), *extra)
        assert code == 2 and err.startswith(f"sfpu-sim: error: {message}"), err
        assert len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "report", "--all", "--harness-csv", str(tmp_path))
    assert code == 2 and "give no KERNEL, --csv or --harness-csv with it" in err
    spec = registry.get("tanh")
    monkeypatch.setattr(registry, "for_dest", lambda s, d: registry.Instantiation(
        spec, "fp32", "NOT THE DEVICE'S PROGRAM: test", False))
    code, _, err = run(capsys, "report", "tanh", "--arch", "blackhole", "--dest", "fp32",
                       "--out", str(tmp_path / "out"), "--harness-csv", str(tmp_path))
    assert code == 2 and "the rows would not be the device's program" in err
    assert swept == []


def test_bad_path_exits_2_without_a_traceback(tmp_path):
    script = "import sys; from sfpu_sim.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", script, "baseline", "check",
                           str(tmp_path / "missing.csv"), str(tmp_path)],
                          check=False, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == f"sfpu-sim: error: {tmp_path / 'missing.csv'}: no such file or " \
                          f"directory\n"
