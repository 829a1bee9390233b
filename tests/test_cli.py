"""The sfpu-sim commands that sweep and report: report, sweep, eval, compare, budget.

Called in-process through ``sfpu_sim.cli.main`` with sweeps cached per module (the commands
are tested here, not the sweep); subprocesses only where the exit code and the absence of a
traceback are the point.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import sfpu_sim.sweeps as sweep_module
from sfpu_sim import registry
from sfpu_sim.cli import main
from sfpu_sim.errors import SfpuSimError

REQUIRED_KEYS = ("kernel", "arch", "dest", "reference_rounding", "ulp_convention", "count",
                 "max_ulp", "mean_ulp", "p95", "p99", "exact_frac", "unmeasurable",
                 "histogram", "buckets", "exact_count", "within_1_count", "worst", "regions",
                 "attribution", "denormals", "specials")


pytestmark = pytest.mark.usefixtures("cached_sweeps")


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------

def test_report_writes_md_png_json_and_prints_the_summary(capsys, tmp_path):
    code, out, _ = run(capsys, "report", "tanh", "--arch", "blackhole",
                       "--reference-rounding", "truncate", "--out", str(tmp_path))
    assert code == 0
    stem = "tanh_blackhole_bf16_truncate"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{stem}.json", f"{stem}.md",
                                                           f"{stem}.png"]
    assert "0.0474 over 65,025 inputs" in out
    assert f"wrote {tmp_path / stem}.md" in out


def test_report_format_option_limits_the_files(capsys, tmp_path):
    code, _, _ = run(capsys, "report", "tanh", "--arch", "wormhole", "--out", str(tmp_path),
                     "--files", "json")
    assert code == 0
    assert [p.name for p in tmp_path.iterdir()] == ["tanh_wormhole_bf16_rne.json"]


def test_report_csv_writes_harness_rows(capsys, tmp_path):
    target = tmp_path / "csv" / "tanh.csv"
    code, _, _ = run(capsys, "report", "tanh", "--arch", "blackhole", "--out",
                     str(tmp_path / "out"), "--files", "md", "--csv", str(target))
    assert code == 0
    lines = target.read_text().splitlines()
    assert lines[0].startswith("op,input_format,output_format,chip_arch,distribution,")
    assert lines[0].endswith(",is_finite_hw,is_finite_golden,source")
    assert len(lines) == 1 + 65025
    assert lines[1].split(",")[:5] == ["tanh", "bf16", "bf16", "bh", "exhaustive"]


def test_report_all_writes_every_report_and_an_index(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "specs", lambda: [registry.get("tanh")])
    code, out, _ = run(capsys, "report", "--all", "--arch", "blackhole", "--out",
                       str(tmp_path), "--files", "md,json")
    assert code == 0
    index = (tmp_path / "README.md").read_text()
    assert "| Kernel | Chip | Mode | Dst | Reference | Max ULP | Mean ULP (over inputs) | " \
           "Exact | Report |" in index
    assert "| `tanh` | Blackhole A0 | accurate | BF16 | rne | 1 | 0.00332 over 65,025 " \
           "inputs |" in index
    assert "[report](tanh_blackhole_bf16_rne.md)" in index
    assert (tmp_path / "tanh_blackhole_bf16_rne.json").exists()


def test_report_all_on_a_local_cluster_writes_the_same_files(capsys, tmp_path, monkeypatch):
    """--scheduler dask: the reports are written by a worker process, the index here; the same
    bytes as one after another. A kernel the worker cannot find (registered in this process
    only) is one failure, the others written."""
    only_here = registry.KernelSpec(name="only_here", function="tanh", chips=("wormhole",),
                                    mode="accurate", dest="bf16", provenance="test",
                                    build=registry.get("tanh").build)
    monkeypatch.setattr(registry, "chained_specs", lambda: [])
    monkeypatch.setattr(registry, "specs", lambda: [registry.get("tanh"), registry.get("exp")])
    code, _, err = run(capsys, "report", "--all", "--arch", "wormhole", "--out",
                       str(tmp_path / "local"), "--files", "json,md")
    assert code == 0, err
    monkeypatch.setitem(registry._REGISTRY, "only_here", only_here)
    monkeypatch.setattr(registry, "specs", lambda: [only_here, registry.get("tanh"),
                                                    registry.get("exp")])
    code, _, err = run(capsys, "report", "--all", "--arch", "wormhole", "--out",
                       str(tmp_path / "dask"), "--files", "json,md", "--scheduler", "dask",
                       "--workers", "1")
    assert code == 1
    assert err.startswith("sfpu-sim: error: only_here on wormhole: unknown kernel 'only_here'")
    written = {scheduler: {p.name: p.read_bytes() for p in (tmp_path / scheduler).iterdir()
                           if p.name != "README.md"} for scheduler in ("local", "dask")}
    assert written["dask"] == written["local"] and len(written["dask"]) == 4
    assert "- `only_here` on wormhole: unknown kernel" in (tmp_path / "dask/README.md").read_text()


@pytest.mark.parametrize("options, message", [
    (["--scheduler", "tcp://127.0.0.1:1"], "--all --scheduler tcp://127.0.0.1:1: local (reports "
                                           "one after another here) or dask (a LocalCluster)"),
    (["--workers", "2"], "--workers: the worker processes of --scheduler dask"),
    (["--scheduler", "dask", "--workers", "0"], "--workers 0: give at least 1"),
    (["--stride", "5"], "--stride: --all writes the BF16 reports: run FP32 sweeps one kernel at "
                        "a time"),
])
def test_report_all_refuses_what_it_cannot_schedule_in_one_line(capsys, tmp_path, options,
                                                                message):
    code, _, err = run(capsys, "report", "--all", "--out", str(tmp_path / "out"), *options)
    assert (code, err) == (2, f"sfpu-sim: error: {message}\n")
    assert not (tmp_path / "out").exists()


def test_report_all_reports_a_broken_kernel_and_writes_the_others(capsys, tmp_path,
                                                                  monkeypatch):
    def broken(arch):
        raise SfpuSimError("kernels/broken.py:3: too many live registers")

    spec = registry.KernelSpec(name="broken", function="tanh", chips=("blackhole",),
                              mode="accurate", dest="bf16", provenance="test", build=broken)
    monkeypatch.setitem(registry._REGISTRY, "broken", spec)
    monkeypatch.setattr(registry, "specs", lambda: [spec, registry.get("tanh")])
    code, _, err = run(capsys, "report", "--all", "--arch", "blackhole", "--out",
                       str(tmp_path), "--files", "json")
    assert code == 1
    assert "sfpu-sim: error: broken on blackhole: kernels/broken.py:3: too many live" in err
    index = (tmp_path / "README.md").read_text()
    assert "- `broken` on blackhole: kernels/broken.py:3: too many live registers" in index
    assert (tmp_path / "tanh_blackhole_bf16_rne.json").exists()


def test_report_of_a_kernel_missing_on_the_chip_is_one_line(capsys, tmp_path, monkeypatch):
    tanh = registry.get("tanh")
    only_wormhole = registry.KernelSpec(name="wh_only", function="tanh", chips=("wormhole",),
                                       mode="accurate", dest="bf16", provenance="test",
                                       build=tanh.build)
    monkeypatch.setitem(registry._REGISTRY, "wh_only", only_wormhole)
    code, _, err = run(capsys, "report", "wh_only", "--arch", "blackhole", "--out",
                       str(tmp_path))
    assert code == 2
    assert err.strip() == ("sfpu-sim: error: kernel 'wh_only' does not exist on Blackhole A0 "
                           "(it runs on: wormhole)")


# --------------------------------------------------------------------------------------------
# sweep, eval
# --------------------------------------------------------------------------------------------

def test_sweep_json_prints_the_summary_with_the_documented_keys(capsys):
    code, out, _ = run(capsys, "sweep", "tanh", "--arch", "blackhole", "--json")
    assert code == 0
    data = json.loads(out)
    assert [k for k in REQUIRED_KEYS if k not in data] == []
    assert data["kernel"] == "tanh" and data["arch"] == "blackhole"
    assert data["count"] == 65025


def test_sweep_without_json_prints_the_terminal_view(capsys):
    code, out, _ = run(capsys, "sweep", "tanh", "--arch", "blackhole")
    assert code == 0
    assert "ULP buckets" in out and "special values" in out


def test_eval_agrees_with_the_sweep_bit_for_bit(capsys, cached_sweeps):
    code, out, _ = run(capsys, "eval", "tanh", "--arch", "blackhole", "--json", "1.0",
                       "0x3f80", "-2", "0x0080", "0.09033203125", "inf", "nan")
    assert code == 0
    data = json.loads(out)
    result = sweep_module.sweep(registry.get("tanh"), "blackhole", dest="bf16", input_format="bf16",
                                output_format="bf16", reference_rounding="rne",
                                ulp_convention="daz-index")
    arrays = result.arrays
    for row in data["results"][:5]:
        lane = list(arrays["x_bits"]).index(int(row["input_bits"], 16))
        assert int(row["output_bits"], 16) == arrays["actual"][lane]
        assert int(row["expected_bits"], 16) == arrays["expected"][lane]
        assert row["ulp"] == arrays["distance"][lane]
    specials = {s["input_bits"]: s for s in result.summary["specials"]}
    for row in data["results"][5:]:
        assert row["output_bits"] == specials[row["input_bits"]]["output_bits"]
    assert [r["input_bits"] for r in data["results"]] == [
        "0x3f80", "0x3f80", "0xc000", "0x0080", "0x3db9", "0x7f80", "0x7fc0"]


def test_eval_rounds_float_literals_to_nearest_even_bf16(capsys):
    # 1 + 2**-8 is the midpoint of 0x3f80 and 0x3f81 (to even: 0x3f80); 1 + 3*2**-9 is nearer
    # 0x3f81; 1e-40 is a denormal (0x0001 is 2**-133 = 9.18e-41).
    code, out, _ = run(capsys, "eval", "tanh", "--arch", "wormhole", "--json", "1.00390625",
                       "1.005859375", "1e-40")
    assert code == 0
    bits = [r["input_bits"] for r in json.loads(out)["results"]]
    assert bits == ["0x3f80", "0x3f81", "0x0001"]


def test_eval_table(capsys):
    code, out, _ = run(capsys, "eval", "tanh", "--arch", "blackhole", "0.5")
    assert code == 0
    assert "0x3f00" in out and "0x3eec" in out


@pytest.mark.parametrize("value, message", [
    ("abc", "'abc' is neither a number nor a 0x BF16 bit pattern"),
    ("0x12345", "'0x12345' is not a BF16 bit pattern (0x0000..0xffff); an FP32 pattern "
                 "needs --in fp32"),
    ("0xzz", "'0xzz' is not a bit pattern"),
])
def test_eval_bad_value_is_one_line(capsys, value, message):
    code, out, err = run(capsys, "eval", "tanh", "--arch", "blackhole", value)
    assert code == 2
    assert err.strip() == f"sfpu-sim: error: {message}" + \
        (" (write e.g. 0x3f80)" if value == "0xzz" else "")


# --------------------------------------------------------------------------------------------
# compare, budget
# --------------------------------------------------------------------------------------------

def test_compare_one_kernel_on_both_chips(capsys, tmp_path):
    code, out, err = run(capsys, "compare", "tanh@blackhole", "tanh@wormhole", "--out",
                         str(tmp_path))
    assert code == 0
    assert out.startswith("### sfpu-sim comparison: `tanh@blackhole` vs `tanh@wormhole`")
    assert "| max ULP | 1 | 1 | 0 |" in out
    stem = "compare_tanh-blackhole_vs_tanh-wormhole"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{stem}.json", f"{stem}.md",
                                                           f"{stem}.png"]
    assert json.loads((tmp_path / f"{stem}.json").read_text())["labels"] == [
        "tanh@blackhole", "tanh@wormhole"]


def test_compare_repeated_arch_sweeps_each_chip(capsys, tmp_path):
    code, out, _ = run(capsys, "compare", "tanh", "--arch", "blackhole", "--arch", "wormhole",
                       "--out", str(tmp_path), "--files", "md")
    assert code == 0
    assert "`tanh@blackhole` vs `tanh@wormhole`" in out


def test_compare_saved_summaries_before_and_after(capsys, tmp_path):
    for name, policy in (("before", "rne"), ("after", "truncate")):
        code, out, _ = run(capsys, "sweep", "tanh", "--arch", "blackhole", "--json",
                           "--reference-rounding", policy)
        (tmp_path / f"{name}.json").write_text(out)
    code, out, _ = run(capsys, "compare", str(tmp_path / "before.json"),
                       str(tmp_path / "after.json"), "--out", str(tmp_path / "cmp"),
                       "--name", "pr")
    assert code == 0
    assert "`tanh@blackhole (before)` vs `tanh@blackhole (after)`" in out
    assert "**Not like for like:** `reference_rounding` differs" in out
    assert "| exact (ULP = 0) | 99.67% | 95.26% | -4.41 pp |" in out
    assert (tmp_path / "cmp" / "pr.md").exists()


def test_compare_a_saved_report_json_with_a_fresh_sweep(capsys, tmp_path):
    code, _, _ = run(capsys, "report", "tanh", "--arch", "wormhole", "--out", str(tmp_path),
                     "--files", "json")
    code, out, _ = run(capsys, "compare", str(tmp_path / "tanh_wormhole_bf16_rne.json"),
                       "tanh@blackhole", "--out", str(tmp_path), "--files", "json")
    assert code == 0
    assert "`tanh@wormhole` vs `tanh@blackhole`" in out
    assert "from tanh_wormhole_bf16_rne, `tanh@blackhole` from sweep" in out


def test_compare_of_saved_sweep_summaries_is_lane_by_lane(capsys, tmp_path):
    """Before/after from `sweep --json`: the per-lane record travels in the summary."""
    for kernel, name in (("tanh", "before.json"), ("tanh_approx", "after.json")):
        code, out, _ = run(capsys, "sweep", kernel, "--arch", "blackhole", "--json")
        assert code == 0
        (tmp_path / name).write_text(out)
    code, out, _ = run(capsys, "compare", str(tmp_path / "before.json"),
                       str(tmp_path / "after.json"), "--out", str(tmp_path / "cmp"),
                       "--files", "json")
    assert code == 0
    assert ("| `tanh_approx@blackhole vs tanh@blackhole` | 65,025 | 32,352 | 2 | 32,654 | 17 |"
            in out)


def test_compare_refuses_an_output_that_is_one_of_its_inputs(capsys, tmp_path):
    code, out, _ = run(capsys, "sweep", "tanh", "--arch", "blackhole", "--json")
    saved = tmp_path / "compare_tanh-blackhole_vs_tanh-wormhole.json"
    saved.write_text(out)
    code, _, err = run(capsys, "compare", str(saved), "tanh@wormhole", "--out", str(tmp_path),
                       "--files", "json")
    assert code == 2 and "is an input of this run" in err
    assert json.loads(saved.read_text())["kernel"] == "tanh"


@pytest.mark.parametrize("content, message", [
    ("{oops", "invalid JSON: Expecting property name enclosed in double quotes"),
    ('{"kernel": "tanh"}', "not an sfpu-sim sweep summary (missing keys: arch, dest"),
    ("[1, 2]", "expected a JSON object, found list"),
])
def test_compare_bad_json_is_one_line(capsys, tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    code, _, err = run(capsys, "compare", str(bad), "tanh@blackhole", "--out", str(tmp_path))
    assert code == 2
    assert err.startswith("sfpu-sim: error: ") and message in err
    assert len(err.strip().splitlines()) == 1


def test_compare_needs_two_items(capsys, tmp_path):
    code, _, err = run(capsys, "compare", "tanh@blackhole", "--out", str(tmp_path))
    assert code == 2
    assert "compare needs at least two items" in err
    code, _, err = run(capsys, "compare", "tanh@blackhole", "--arch", "all", "--out",
                       str(tmp_path))
    assert code == 2
    assert "compare needs at least two items: a kernel on two chips, KERNEL@ARCH" in err


def test_budget_prints_llk_rows_for_each_chip(capsys):
    code, out, _ = run(capsys, "budget", "tanh")
    assert code == 0
    lines = out.splitlines()
    assert lines[2] == "Tanh:  # predicted by sfpu-sim 0.1.0, exhaustive Float16_b sweeps"
    assert [line.split("}")[0] for line in lines[3:]] == [
        '  - {in: Float16_b, out: Float16_b, approx: "No", dest: "No", arch: wormhole, '
        'max_ulp: 2',
        '  - {in: Float16_b, out: Float16_b, approx: "No", dest: "No", arch: blackhole, '
        'max_ulp: 2']
    assert all("# predicted by sfpu-sim 0.1.0: max 1 ULP;" in line for line in lines[3:])
    assert all("ULP daz-index, reference rne" in line for line in lines[3:])


def test_budget_of_fp32_inputs_is_the_harness_strided_walk(capsys):
    """``budget KERNEL --in fp32`` (budget has no --stride or scheduling options: it ended in
    a traceback) predicts the yaml's Float32 row as the harness measures it, on its strided
    walk, and says so: one value in 65,536, 65,024 of whose 65,280 inputs are normals or +0."""
    code, out, _ = run(capsys, "budget", "exp_fp32", "--in", "fp32", "--arch", "wormhole")
    assert code == 0
    lines = out.splitlines()
    assert lines[2] == ("Exp:  # predicted by sfpu-sim 0.1.0, strided Float32 (one value in "
                        "65,536) sweeps")
    assert lines[3].startswith('  - {in: Float32, out: Float16_b, approx: "No", dest: "Yes", '
                               'arch: wormhole, max_ulp: ')
    assert ", strided, 65,024 inputs (population daz)" in lines[3]


@pytest.mark.parametrize("argv, message", [
    (["report", "tanh", "--arch", "nosuch"], "--arch 'nosuch': choose wormhole, blackhole or "
                                             "all"),
    (["report"], "give a KERNEL (or --all for every registered kernel)"),
    (["report", "tanh", "--arch", "blackhole", "--files", "pdf"], "--files 'pdf': choose"),
    (["budget", "nosuch"], "unknown kernel 'nosuch' (`sfpu-sim kernels` lists all "),
    (["sweep", "tanh", "--arch", "blackhole", "--dest", "fp32", "--in", "fp32",
      "--csv", "/proc/no/such/dir/x.csv"], "cannot create output directory /proc/no/such/dir"),
])
def test_bad_arguments_are_one_line_errors(capsys, tmp_path, argv, message):
    code, _, err = run(capsys, *argv, *(["--out", str(tmp_path)] if argv[0] == "report"
                                        else []))
    assert code == 2
    assert err.startswith(f"sfpu-sim: error: {message}")
    assert len(err.strip().splitlines()) == 1


def test_existing_commands_still_work(capsys):
    code, out, _ = run(capsys, "info")
    assert code == 0 and "Supported chips" in out


# --------------------------------------------------------------------------------------------
# Exit codes and no tracebacks (subprocess)
# --------------------------------------------------------------------------------------------

def test_user_errors_exit_2_with_one_line_and_no_traceback(tmp_path):
    a_file = tmp_path / "taken"
    a_file.write_text("")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    cases = [
        (["report", "nosuch", "--arch", "blackhole", "--out", str(tmp_path)],
         "unknown kernel 'nosuch'"),
        (["report", "tanh", "--arch", "blackhole", "--out", str(a_file)],
         "it exists and is not a directory"),
        (["compare", str(bad), str(bad)], "invalid JSON"),
    ]
    script = ("import sys; from sfpu_sim.cli import main; "
              "sys.exit(main(sys.argv[1:]))")
    for argv, message in cases:
        done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True,
                              text=True, cwd=tmp_path)
        assert done.returncode == 2, (argv, done.stderr)
        assert "Traceback" not in done.stderr
        assert done.stderr.startswith("sfpu-sim: error: ") and message in done.stderr, \
            (argv, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1


def test_threads_option_sets_the_count_and_refuses_what_it_cannot_have(capsys, monkeypatch):
    from sfpu_sim import threads

    monkeypatch.setattr(threads, "_count", None)
    code, _, err = run(capsys, "kernels", "--threads", "0")
    assert code == 2 and "threads: 0 is not allowed (choose 1 to" in err
    code, _, _ = run(capsys, "kernels", "--threads", "1")
    assert code == 0 and threads.threads() == 1


def test_an_unknown_kernel_is_answered_with_the_names_it_begins_or_nearly_spells(capsys):
    """Not the whole registry: the kernels a shortened or mistyped name most likely meant."""
    for name, near in (("acos", "acos_2026_09, acos_fp32_2026_09, cos"), ("tanhh", "tanh")):
        code, out, err = run(capsys, "sweep", name)
        assert (code, out) == (2, "")
        assert err.startswith(f"sfpu-sim: error: unknown kernel '{name}' (near it: {near}; "
                              f"`sfpu-sim kernels` lists all ")


def test_an_fp32_sweep_of_a_bf16_dst_kernel_names_its_functions_fp32_kernels(capsys):
    code, _, err = run(capsys, "sweep", "tanh", "--arch", "wormhole", "--in", "fp32")
    fp32 = [s.name for s in registry.specs() if s.dest == "fp32" and s.function == "tanh"]
    assert code == 2 and err.endswith(f"(FP32-Dst kernels of tanh: {', '.join(fp32)})\n")
    code, _, err = run(capsys, "sweep", "abs_2026_09", "--arch", "wormhole", "--in", "fp32")
    assert code == 2 and "(no FP32-Dst kernel computes abs; " in err


def test_float16_input_defaults_to_float16_output(capsys):
    """A 16-bit Dst has no Float16 -> Float16_b cell: --in fp16 alone sweeps Float16 in and
    out, the same summary as --out-format fp16 given."""
    outputs = []
    for extra in ([], ["--out-format", "fp16"]):
        code, out, _ = run(capsys, "sweep", "tanh", "--arch", "wormhole", "--in", "fp16",
                           "--json", *extra)
        assert code == 0
        outputs.append(json.loads(out))
    assert outputs[0] == outputs[1] and outputs[0]["output_format"] == "fp16"
