"""Pair sweeps of binary kernels (sfpu_sim.fp32sweep.pair_sweep, ``sweep KERNEL --y/--y-range/
--exhaustive``): the chunked summary against a brute-force one over the same pairs, any
chunking, thread count and scheduler giving the same summary bit for bit, resuming a killed
run, and the command line's checks.

The brute-force side is written from the device path and the reference directly
(``run_binary_device``, ``binary_reference``, ``ulp.distance`` on every pair at once, then
plain numpy), none of it the pair sweep's own reduction.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from sfpu_sim import formats, registry, threads, ulp
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.cli import binary_sweeping, main
from sfpu_sim.fp32sweep import pair_sweep
from sfpu_sim.fp32sweep.pair_sweep import ROW, sweep_pairs
from sfpu_sim.reference.binary_functions import binary_reference
from sfpu_sim.selection import Selection
from sfpu_sim.sweeps import DevicePath

# Second operands with every kind of y: ordinary values, a denormal, both zeros, infinities
# and a NaN (run, never counted: the daz population holds normals and +0 only).
Y = np.array([0x3F80, 0xC040, 0x0001, 0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x4B00,
              0x3B80], dtype=np.uint16)


@pytest.fixture(autouse=True)
def _state_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path / "cache"))


def brute_force(kernel: str, arch: str, y, selection=Selection()) -> dict:
    """The pair sweep's figures, every pair at once, reduced with plain numpy."""
    spec = registry.get(kernel)
    x = np.tile(np.arange(ROW, dtype=np.uint32).astype(np.uint16), len(y))
    ys = np.repeat(np.asarray(y, dtype=np.uint16), ROW)
    run = run_binary_device(spec.program(arch), x, ys, DevicePath("bf16", "bf16", spec.dest))
    ref, _ = binary_reference(spec.function, x, ys, "rne")
    result = ulp.distance(ref, run.output, "daz-index", fmt="bf16")
    daz = np.isin(np.arange(ROW), ulp.population("daz"))
    counted = result.counted & daz[x] & daz[ys] & \
        selection.mask(formats.bits_to_float64(x, "bf16"))
    d = result.distance.astype(np.int64)
    per_y = [(int(((ys == v) & counted).sum()),
              int(d[(ys == v) & counted].max()) if ((ys == v) & counted).any() else None)
             for v in y]
    wrong = np.flatnonzero(counted & (d > 0))
    worst = sorted(wrong.tolist(), key=lambda k: (-d[k], k))[:20]
    return {"count": int(counted.sum()), "max_ulp": int(d[counted].max()),
            "sum": int(d[counted].sum()), "exact": int((counted & (d == 0)).sum()),
            "per_y": per_y,
            "worst": [(int(d[k]), f"{x[k]:#06x}", f"{ys[k]:#06x}",
                       f"{run.output[k]:#06x}", f"{ref[k]:#06x}") for k in worst]}


def figures(summary: dict) -> dict:
    return {"count": summary["count"], "max_ulp": summary["max_ulp"],
            "sum": round(summary["mean_ulp"] * summary["count"]),
            "exact": summary["exact_count"],
            "per_y": [(p["count"], p["max_ulp"]) for p in summary["per_y"]],
            "worst": [(w["ulp"], w["x_bits"], w["y_bits"], w["output_bits"],
                       w["expected_bits"]) for w in summary["worst"]]}


@pytest.mark.parametrize("arch", ("wormhole", "blackhole"))
@pytest.mark.parametrize("kernel", ("binary_add_2026_09", "binary_div_2026_09"))
def test_the_chunked_summary_is_the_brute_force_one(kernel, arch):
    summary = sweep_pairs(registry.get(kernel), arch, Y, chunk=2 * ROW)
    assert figures(summary) == brute_force(kernel, arch, Y)
    assert [p["y_bits"] for p in summary["per_y"]] == [f"{v:#06x}" for v in Y]
    uncounted = [p["y_bits"] for p in summary["per_y"] if p["count"] == 0]
    assert uncounted == ["0x0001", "0x8000", "0x7f80", "0xff80", "0x7fc0"]


def test_a_selection_counts_only_its_x():
    chosen = Selection((-3.0, 0.5), None)
    summary = sweep_pairs(registry.get("binary_mul_2026_09"), "wormhole", Y[:4],
                          selection=chosen)
    assert figures(summary) == brute_force("binary_mul_2026_09", "wormhole", Y[:4], chosen)


def test_an_exhaustive_sweep_of_a_few_x_runs_those_x_only(monkeypatch):
    """Every y against the one BF16 x in [1, 1.0001]: 65,536 pairs run, not all 2**32 (each
    row runs the x its sweep counts), in one chunk, and the figures are those of the same pairs
    given one by one (sweep_pair_list)."""
    spec, ran = registry.get("binary_add_2026_09"), []
    real = pair_sweep.run_binary_device

    def recording(program, x, y, *args, **options):
        ran.append((x.size, np.unique(x)))
        return real(program, x, y, *args, **options)

    monkeypatch.setattr(pair_sweep, "run_binary_device", recording)
    every_y = np.arange(ROW, dtype=np.uint16)
    chosen = Selection((1.0, 1.0001), None)
    summary = sweep_pairs(spec, "wormhole", every_y, selection=chosen)
    # one chunk: the default counts the pairs that run (one a row), not the rows' positions
    assert [size for size, _ in ran] == [ROW] and np.array_equal(ran[0][1], [0x3F80])
    monkeypatch.setattr(pair_sweep, "run_binary_device", real)
    daz_y = ulp.population("daz").astype(np.uint16)
    given = pair_sweep.sweep_pair_list(spec, "wormhole", np.full(daz_y.size, 0x3F80, np.uint16),
                                       daz_y)
    assert summary["count"] == given["count"] == 65025
    assert [summary[k] for k in ("max_ulp", "mean_ulp", "exact_count")] == \
        [given[k] for k in ("max_ulp", "mean_ulp", "exact_count")]
    assert [w["y_bits"] for w in summary["worst"]] == [w["y_bits"] for w in given["worst"]]


def test_any_chunking_and_thread_count_give_the_same_summary():
    spec = registry.get("binary_atan2_2026_09")
    one = sweep_pairs(spec, "blackhole", Y, chunk=ROW, worst=7)
    with threads.limited(1):
        serial = sweep_pairs(spec, "blackhole", Y, chunk=4 * ROW, worst=7)
    whole = sweep_pairs(spec, "blackhole", Y, chunk=16 * ROW, worst=7)
    assert one == serial == whole
    assert len(one["worst"]) == 7


def test_a_killed_sweep_resumes_from_its_state(tmp_path, monkeypatch):
    spec, state = registry.get("binary_sub_2026_09"), tmp_path / "pairs.json"
    seen = []
    monkeypatch.setattr(pair_sweep.PairJob, "save_interval", 0.0)     # saved after every chunk

    def killed(index):
        if index == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep_pairs(spec, "wormhole", Y, chunk=3 * ROW, state_path=state, after_chunk=killed)
    resumed = sweep_pairs(spec, "wormhole", Y, chunk=2 * ROW, state_path=state,
                          progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (6 * ROW, 10 * ROW)              # two chunks of three rows were kept
    assert resumed == sweep_pairs(spec, "wormhole", Y)
    other = Y[::-1].copy()                             # another sweep: refused, file untouched
    before = state.read_bytes()
    with pytest.raises(pair_sweep.state.StateMismatch, match=r"differs in: y\)"):
        sweep_pairs(spec, "wormhole", other, state_path=state)
    assert state.read_bytes() == before


def test_a_long_sweep_saves_its_state_at_intervals_and_after_the_last_chunk(tmp_path,
                                                                          monkeypatch):
    """A state holds a row per y, so saving it after each of an exhaustive sweep's 4,096
    chunks would cost minutes: between the first and the last chunk it is saved at most every
    ``save_interval`` seconds."""
    saves = []
    save = pair_sweep.state.save
    monkeypatch.setattr(pair_sweep.state, "save",
                        lambda path, key, done, partial: (saves.append(done),
                                                          save(path, key, done, partial)))
    monkeypatch.setattr(pair_sweep.PairJob, "save_interval", 1e9)
    sweep_pairs(registry.get("binary_min_2026_09"), "wormhole", Y[:4], chunk=ROW,
                state_path=tmp_path / "s.json")
    assert saves == [4 * ROW]


def test_an_existing_cluster_gives_the_local_summary(tmp_path):
    from distributed import LocalCluster

    spec = registry.get("binary_max_2026_09")
    local = sweep_pairs(spec, "wormhole", Y[:4], chunk=ROW)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      protocol="tcp", dashboard_address=":0") as cluster:
        remote = sweep_pairs(spec, "wormhole", Y[:4], chunk=ROW,
                             scheduler=cluster.scheduler_address)
    assert remote == local


# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------

def test_exhaustive_sweeps_every_y_in_pattern_order(monkeypatch, capsys):
    """``--exhaustive`` hands the pair sweep all 65,536 patterns as y (so with every x, all
    2**32 pairs) and a resume state in the cache directory; the run itself is not repeated
    here (about 16 minutes on 2 cores)."""
    given = {}

    def fake(spec, arch, y, **options):
        given.update(y=y, **options)
        return {"stub": True}

    monkeypatch.setattr(binary_sweeping, "sweep_pairs", fake)
    monkeypatch.setattr(binary_sweeping, "render", lambda summary: "")
    assert main(["sweep", "binary_add_2026_09", "--arch", "wormhole", "--exhaustive",
                 "--chunk", str(4 * ROW)]) == 0
    assert np.array_equal(given["y"], np.arange(ROW, dtype=np.uint16))
    assert given["state_path"] is None and given["chunk"] == 4 * ROW and given["resume"]
    assert main(["sweep", "binary_add_2026_09", "--arch", "wormhole", "--y", "1"]) == 0
    assert given["state_path"] is False                  # a short sweep keeps no state


@pytest.mark.parametrize("args, message", [
    (["--exhaustive", "--y", "1"], "--exhaustive sweeps every y: give it without --y or "
                                   "--y-range"),
    (["--exhaustive", "--stride", "4"], "--stride: a binary sweep runs every 16-bit x"),
    (["--y", "1", "--chunk", "1000"], "--chunk 1000: give a multiple of 65,536 from 65,536 to "
                                      "4,194,304 with --scheduler local"),
])
def test_pair_sweep_options_are_checked_in_one_line(args, message, capsys):
    assert main(["sweep", "binary_add_2026_09", "--arch", "wormhole", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"sfpu-sim: error: {message}") and err.count("\n") == 1


def test_a_kernel_holding_its_operand_refuses_exhaustive(capsys):
    assert main(["sweep", "binop_scalar_add_2026_09", "--arch", "wormhole",
                 "--exhaustive"]) == 2
    assert capsys.readouterr().err == (
        "sfpu-sim: error: --exhaustive: binop_scalar_add_2026_09 holds its second operand, "
        "y = 2: its sweep is every x at that y (give no --exhaustive)\n")


def test_a_state_file_resumes_from_the_command_line(tmp_path, capsys, monkeypatch):
    args = ["sweep", "binary_mul_2026_09", "--arch", "blackhole", "--y-range=1,1.125",
            "--chunk", str(ROW), "--state", str(tmp_path / "s.json"), "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)

    def no_chunk(*_):
        raise AssertionError("a finished sweep's state holds every chunk")

    monkeypatch.setattr(pair_sweep.PairJob, "run_chunk", no_chunk)
    assert main(args) == 0                               # read back, nothing run again
    assert json.loads(capsys.readouterr().out) == first
    assert [p["y"] for p in first["per_y"]] == [1 + k / 128 for k in range(17)]


def test_report_writes_the_pair_sweep_as_markdown_png_and_json(tmp_path, capsys):
    """``report`` of a binary kernel: per chip a Markdown, a PNG and the JSON summary, the same
    summary ``sweep --json`` prints; its Markdown lists the second operands and the worst pairs
    and the command that regenerates it."""
    args = ["binary_mul_2026_09", "--arch", "blackhole", "--y-range=1,1.0625"]
    assert main(["report", *args, "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    stem = tmp_path / "binary_mul_2026_09_blackhole_bf16_rne_pairs"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"{stem.name}.json", f"{stem.name}.md", f"{stem.name}.png"]
    assert main(["sweep", *args, "--json"]) == 0
    assert json.loads(stem.with_suffix(".json").read_text()) == json.loads(
        capsys.readouterr().out)
    text = stem.with_suffix(".md").read_text()
    assert text.startswith("# binary_mul_2026_09 on blackhole: mul (x * y)")
    assert "| 1.0 `0x3f80` | 65,025 |" in text and "## Worst pairs" in text
    assert text.rstrip().endswith("`sfpu-sim report binary_mul_2026_09 --arch blackhole "
                                  "--y-range=1,1.0625`")
    assert stem.with_suffix(".png").read_bytes().startswith(b"\x89PNG")
