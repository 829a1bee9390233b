"""Robust for every user, round two: state files, compare, diff, eval/trace inputs and schedulers.
Each test failed before its fix. Bad input is one line and exit 2, nothing the user owns is
overwritten, nothing is silently wrong."""
from __future__ import annotations

import contextlib
import errno
import io
import json
import os

import pytest

from sfpu_sim import diff as diffs
from sfpu_sim.cli import main
from sfpu_sim.fp32sweep import state

SWEEP = ["sweep", "reciprocal_fp32", "--arch", "wormhole", "--in", "fp32", "--stride",
         str(1 << 20), "--json"]                      # 4,080 inputs, about a second


@pytest.fixture(autouse=True)
def _state_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path / "cache"))


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _state(path) -> dict:
    return json.loads(json.loads(path.read_text())["body"])


# --- 1. --state naming a file that is not a sweep state ---------------------------------------

@pytest.mark.parametrize("content", ["my notes\n", '{"kernel": "tanh", "max_ulp": 1}\n', ""])
@pytest.mark.parametrize("restart", [[], ["--restart"]])
def test_state_naming_a_file_that_is_not_a_sweep_state_is_refused_and_left_untouched(
        capsys, tmp_path, content, restart):
    notes = tmp_path / "notes.txt"
    notes.write_text(content)
    code, out, err = run(capsys, *SWEEP, "--state", str(notes), *restart)
    assert code == 2 and out == ""
    assert err == (f"sfpu-sim: error: --state {notes}: exists and is not an sfpu-sim sweep state, "
                   f"so it is left untouched; name a new file or a state file a sweep "
                   f"wrote\n")
    assert notes.read_text() == content


@pytest.mark.parametrize("damage", ["checksum", "truncated"])
def test_a_damaged_state_file_of_ours_is_replaced_and_says_so(capsys, tmp_path, damage):
    path = tmp_path / "s.json"
    code, whole, _ = run(capsys, *SWEEP, "--state", str(path))
    assert code == 0
    text = path.read_text()
    assert text.startswith('{"kind": "sfpu-sim fp32-sweep state", ')
    path.write_text(text.replace('\\"done\\": 4080', '\\"done\\": 4000') if damage == "checksum"
                    else text[:len(text) // 2])
    code, out, err = run(capsys, *SWEEP, "--state", str(path))
    reason = "checksum mismatch" if damage == "checksum" else "Unterminated string"
    assert code == 0 and out == whole
    assert err.startswith(f"sfpu-sim: state file {path} is damaged ({reason}")
    assert err.endswith("); starting the sweep over and replacing it\n")
    assert _state(path)["done"] == 4080


def test_a_state_file_written_before_the_marker_is_still_resumed(capsys, tmp_path):
    path = tmp_path / "s.json"
    assert run(capsys, *SWEEP, "--state", str(path))[0] == 0
    outer = json.loads(path.read_text())
    path.write_text(json.dumps({"sha256": outer["sha256"], "body": outer["body"]}))
    code, _, err = run(capsys, *SWEEP, "--state", str(path))
    assert code == 0 and err == ""


# --- 2. A full disk while saving the state ----------------------------------------------------

def test_a_full_disk_while_saving_the_state_is_one_line_and_keeps_the_last_state(
        capsys, tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    real_fsync, calls = os.fsync, []

    def fsync_on_a_full_disk(fd):
        calls.append(fd)
        if len(calls) == 2:                     # the second chunk's save
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(state.os, "fsync", fsync_on_a_full_disk)
    code, out, err = run(capsys, *SWEEP, "--chunk", "1000", "--state", str(path))
    assert code == 2 and out == ""
    assert err == (f"sfpu-sim: error: state file {path}: cannot save the sweep's progress (No "
                   f"space left on device); the file is left as it was\n")
    assert _state(path)["done"] == 1000                      # the first chunk's save, intact
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]       # no temporary file left


# --- 3. A malformed tcp:// scheduler address --------------------------------------------------

@pytest.mark.parametrize("address", ["tcp://", "tcp://host:notaport", "tcp://:99999",
                                     "tcp://host", "tcp://host:0", "tcp://host:8786/path"])
def test_a_malformed_tcp_scheduler_address_is_refused_before_anything_starts(
        capsys, tmp_path, address):
    path = tmp_path / "s.json"
    code, out, err = run(capsys, *SWEEP, "--scheduler", address, "--state", str(path))
    assert code == 2 and out == ""
    assert err == (f"sfpu-sim: error: --scheduler {address!r}: choose local, dask (a "
                   f"LocalCluster of worker processes) or tcp://HOST:PORT (a running cluster: "
                   f"a host "
                   f"name or address, a port 1 to 65535)\n")
    assert not path.exists()


# --- 4 and 5. compare: wrong value types; different selections -------------------------------

@pytest.fixture(scope="module")
def summary() -> dict:
    """``sweep tanh --arch wormhole --json`` (no lanes: compare reads them only when present)."""
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert main(["sweep", "tanh", "--arch", "wormhole", "--json"]) == 0
    data = json.loads(stdout.getvalue())
    del data["lanes"]
    return data


def _saved(tmp_path, name: str, data: dict):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("field, value, message", [
    ("max_ulp", "3", 'field max_ulp: expected a number or null, found a string ("3")'),
    ("lane_classes", [], "field lane_classes: expected an object, found a list"),
    ("buckets", {"0": 1}, "field buckets: expected a list, found an object"),
    ("regions", [{"region": "near_zero", "low": None, "high": 0.5, "max": "1", "mean": 0.0,
                  "measured": 1}],
     'field regions[0].max: expected a number or null, found a string ("1")'),
    ("histogram", {"one": 3}, 'field histogram: key "one" is not an integer ULP'),
    ("measured", True, "field measured: expected an integer, found true/false (true)"),
    ("output_format", "bf17",
     'field output_format: expected one of fp32, bf16, fp16, found a string ("bf17")'),
])
def test_compare_of_a_summary_with_a_wrong_value_type_names_the_file_and_field(
        capsys, tmp_path, summary, field, value, message):
    good = _saved(tmp_path, "before.json", summary)
    bad = _saved(tmp_path, "after.json", {**summary, field: value})
    code, out, err = run(capsys, "compare", str(good), str(bad), "--out", str(tmp_path / "out"))
    assert code == 2 and out == ""
    assert err == f"sfpu-sim: error: {bad}: {message}\n"
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_compare_of_summaries_over_different_ranges_says_so(capsys, tmp_path, summary):
    narrow = dict(summary, selection={"range": [-1.0, 1.0], "region": None,
                                      "text": "x in [-1, 1]"})
    a, b = _saved(tmp_path, "all.json", summary), _saved(tmp_path, "narrow.json", narrow)
    code, out, _ = run(capsys, "compare", str(a), str(b), "--out", str(tmp_path),
                       "--files", "json", "--name", "c")
    assert code == 0
    assert ("> **Not like for like:** `selection` differs (`tanh@wormhole (all)`: every input, "
            "`tanh@wormhole (narrow)`: x in [-1, 1]); the numbers below are not directly "
            "comparable.") in out.splitlines()
    notes = json.loads((tmp_path / "c.json").read_text())["notes"]
    assert notes == [{"setting": "selection", "values": ["every input", "x in [-1, 1]"]}]


def test_compare_of_fp32_sweeps_over_different_walks_says_so(capsys, tmp_path):
    paths = []
    for stride in (1 << 20, 1 << 21):
        code, out, _ = run(capsys, *SWEEP[:-2], str(stride), "--json", "--state",
                           str(tmp_path / f"{stride}.state"))
        assert code == 0
        paths.append(_saved(tmp_path, f"s{stride}.json", json.loads(out)))
    code, out, _ = run(capsys, "compare", *map(str, paths), "--out", str(tmp_path),
                       "--files", "json")
    assert code == 0
    assert ("> **Not like for like:** `walk` differs (`reciprocal_fp32@wormhole (s1048576)`: "
            "Tenstorrent's strided FP32 walk, one value in 1,048,576: 4,080 inputs, "
            "`reciprocal_fp32@wormhole (s2097152)`: Tenstorrent's strided FP32 walk, one value "
            "in 2,097,152: 2,040 inputs); the numbers below are not directly comparable."
            ) in out.splitlines()


# --- 6. compare --name writing outside --out -----------------------------------------------

@pytest.mark.parametrize("name", ["../x", "sub/x", "..", ""])
def test_compare_name_with_a_path_separator_or_dotdot_is_refused(capsys, tmp_path, name):
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "compare", "tanh@wormhole", "tanh@blackhole", "--out",
                         str(out_dir), "--name", name)
    assert code == 2 and out == ""
    assert err == (f"sfpu-sim: error: --name {name!r}: give a file name stem, without a path "
                   f"separator or '..' (the files are written in --out {out_dir})\n")
    assert list(tmp_path.iterdir()) == []


# --- 7. diff states how many lanes it followed ------------------------------------------------

def test_diff_says_how_many_lanes_differ_and_how_many_it_followed(capsys, monkeypatch):
    monkeypatch.setattr(diffs, "MAX_TRACKED_LANES", 2)
    monkeypatch.setenv("COLUMNS", "400")
    inputs = [a for x in ("1", "2", "3", "0.5", "0.25") for a in ("--x", x)]
    code, out, _ = run(capsys, "diff", "tanh", "exp", "--arch", "wormhole", *inputs)
    assert code == 0
    assert "0 identical lanes, 5 differing" in out
    assert out.splitlines()[2].endswith(
        "; parts 2 of the 2 lanes followed: the first 2 of the 5 differing lanes, in input "
        "order (a diff follows at most 2)")
    code, out, _ = run(capsys, "diff", "tanh", "exp", "--arch", "wormhole", *inputs[:4])
    assert out.splitlines()[2].endswith("; parts 2 of the 2 differing lanes (all followed)")
    code, out, _ = run(capsys, "diff", "tanh", "exp", "--arch", "wormhole", *inputs, "--json")
    first = json.loads(out)["first_divergence"]
    assert (first["lanes"], first["lanes_tracked"], first["lanes_differing"],
            first["lanes_tracked_limit"]) == (2, 2, 5, 2)


# --- 8. eval and trace take FP32 patterns; a rounded decimal says so ------------------------

def test_eval_replays_the_worst_input_of_an_fp32_sweep(capsys):
    code, out, _ = run(capsys, *SWEEP)
    assert code == 0
    worst = json.loads(out)["worst"][0]
    code, out, err = run(capsys, "eval", "reciprocal_fp32", "--arch", "wormhole", "--in",
                         "fp32", "--json", worst["input_bits"])
    assert code == 0 and err == ""
    row = json.loads(out)["results"][0]
    assert len(worst["input_bits"]) == 10            # an FP32 pattern, not a BF16 one
    assert {k: row[k] for k in ("input_bits", "output_bits", "expected_bits", "ulp")} == \
        {k: worst[k] for k in ("input_bits", "output_bits", "expected_bits", "ulp")}


def test_trace_takes_an_fp32_pattern_through_the_fp32_dst(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    code, out, err = run(capsys, "trace", "tanh_fp32_2026_09", "--arch", "wormhole", "--in",
                         "fp32", "--x", "0x3f800001")
    assert code == 0 and err == ""
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in out.splitlines()]
    load = next(row for row in cells if row and row[1].startswith("SFPLOAD "))
    assert load[5] == "0x3f800001 1.0000001  [bf16 0x3f80 1.0]"   # Dst held it unchanged
    assert cells[-3][:3] == ["0x3f800001 1.0000001", "0x3f43 0.76171875", "0x3f43 0.76171875"]


def test_trace_with_dest_fp32_traces_the_instantiation_eval_reports(capsys, monkeypatch):
    from sfpu_sim import registry
    from sfpu_sim.asm import format_instruction

    monkeypatch.setenv("COLUMNS", "400")
    code, out, _ = run(capsys, "trace", "tanh", "--arch", "wormhole", "--dest", "fp32", "--x",
                       "1")
    assert code == 0 and "tanh_fp32 = calculate_tanh<" in out         # what eval reports
    program = registry.for_dest(registry.get("tanh"), "fp32").spec.program("wormhole")
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in out.splitlines()]
    traced = {int(row[0]): row[1].split("  (")[0] for row in cells if row and row[0].isdigit()}
    assert traced and traced == {k: format_instruction(program[k]) for k in traced}


@pytest.mark.parametrize("fmt, extra, note, bits", [
    ("bf16", [], "input 0.1 is not a BF16 value: rounded to nearest even, 0x3dcd = "
                 "0.10009765625", "0x3dcd"),
    ("fp32", ["--dest", "fp32"], "input 0.1 is not an FP32 value: rounded to nearest even, "
                                 "0x3dcccccd = 0.10000000149011612", "0x3dcccccd"),
    ("fp16", ["--out-format", "fp16"], "input 0.1 is not an FP16 value: rounded to nearest "
                                       "even, 0x2e66 = 0.0999755859375", "0x2e66"),
])
def test_eval_of_a_decimal_not_exact_in_the_input_format_names_what_it_became(
        capsys, fmt, extra, note, bits):
    code, out, err = run(capsys, "eval", "tanh", "--arch", "wormhole", "--in", fmt, *extra,
                         "--json", "0.1", "0.5")
    assert code == 0
    assert err == f"sfpu-sim: note: {note}\n"                # 0.5 is exact: nothing said
    assert [r["input_bits"] for r in json.loads(out)["results"]][0] == bits


def test_eval_of_a_decimal_past_the_largest_value_says_it_became_infinity(capsys):
    code, out, err = run(capsys, "eval", "tanh", "--arch", "wormhole", "--json", "inf", "1e39")
    assert code == 0
    assert err == ("sfpu-sim: note: input 1e39 is not a BF16 value: rounded to nearest even, "
                   "0x7f80 = inf\n")                          # inf itself is exact
    assert [r["input_bits"] for r in json.loads(out)["results"]] == ["0x7f80", "0x7f80"]


def test_eval_in_fp16_reads_numbers_as_fp16(capsys):
    code, out, _ = run(capsys, "eval", "tanh", "--arch", "wormhole", "--in", "fp16",
                       "--out-format", "fp16", "--json", "1.0")
    row = json.loads(out)["results"][0]
    assert code == 0
    assert (row["input_bits"], row["input"], row["expected_bits"]) == ("0x3c00", 1.0, "0x3a18")


@pytest.mark.parametrize("args, message", [
    (["--in", "fp32", "--dest", "fp32", "0x3f80"],
     "'0x3f80' with --in fp32: write all 8 hex digits of the FP32 pattern (0x3f800000 is "
     "BF16 0x3f80 widened; 0x00003f80 the pattern as written)"),
    (["0x3f800001"], "'0x3f800001' is not a BF16 bit pattern (0x0000..0xffff); an FP32 "
                     "pattern needs --in fp32"),
    (["--in", "fp32", "0x3f800001"], "--in fp32 puts FP32 patterns into Dst unchanged: it "
                                     "needs an FP32 Dst (add --dest fp32, or name an "
                                     "FP32-Dst kernel)"),
])
def test_eval_input_not_of_the_input_format_is_one_line(capsys, args, message):
    code, out, err = run(capsys, "eval", "tanh", "--arch", "wormhole", *args)
    assert code == 2 and out == ""
    assert err == f"sfpu-sim: error: {message}\n"
