"""FP32 input sweeps end to end (sfpu_sim.fp32sweep.run, the CLI's --in fp32): the chunked tally
against a one-shot measurement through the existing sweep path, any chunking and any scheduler
giving the same summary bit for bit, resuming, and one-line errors.

The one-shot side is built from the BF16 sweep's own pieces, none of them the FP32 sweep's:
``sweeps.run_device`` (FP32 inputs into an FP32 Dst), ``reference.reference`` (arb, every
input certified), ``ulp.distance`` and ``sweep_views.describe_stats``.
"""
from __future__ import annotations

import json
import re
import socket

import numpy as np
import pytest

from sfpu_sim import cluster, reference, registry, sweep_views, sweeps, ulp
from sfpu_sim.cli import main
from sfpu_sim.fp32sweep import Exhaustive, Strided, sweep_fp32
from sfpu_sim.fp32sweep import run as runs
from sfpu_sim.fp32sweep.state import StateMismatch

SMALL = Strided(1 << 20)                     # 4,080 inputs over the whole line, every binade


@pytest.fixture(autouse=True)
def _state_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path / "cache"))


def one_shot(kernel: str, arch: str, walk, out: str = "bf16") -> dict:
    """The figures of a sweep of ``walk``'s inputs, all at once through the existing path."""
    spec = registry.get(kernel)
    x = walk.patterns(0, len(walk))
    run = sweeps.run_device(spec.program(arch), x, sweeps.DevicePath("fp32", out, "fp32"),
                            fp32_inputs=True)
    ref = reference.reference(spec.function, x, "rne", input_format="fp32",
                              output_format=out, daz=True, ftz=True, cache=False)
    result = ulp.distance(ref, run.output, "daz-index", out)
    exponent = (x >> 23) & 0xFF
    population = ((exponent != 0) & (exponent != 0xFF)) | (x == 0)    # normals and +0
    counted = population & result.counted
    measured = result.distance[counted].astype(np.int64)
    classes = result.lane_class[population]
    order = np.lexsort((x[counted], -measured))[:20]
    return {"stats": sweep_views.describe_stats(measured), "count": int(population.sum()),
            "at_max": int((measured == measured.max()).sum()), "sum": int(measured.sum()),
            "histogram": {str(k): int(c) for k, c in zip(*np.unique(measured,
                                                                     return_counts=True))},
            "classes": {c.name.lower(): int((classes == c).sum()) for c in ulp.LaneClass},
            "worst": [(int(d), f"{int(b):#010x}") for d, b in zip(measured[order],
                                                                 x[counted][order])]}


def assert_same_figures(summary: dict, shot: dict) -> None:
    stats = shot["stats"]
    assert summary["count"] == shot["count"]
    assert summary["measured"] == stats["measured"]
    assert summary["max_ulp"] == stats["max"]
    assert summary["histogram"][str(stats["max"])] == shot["at_max"]
    assert summary["exact_count"] == stats["exact_count"]
    assert summary["within_1_count"] == stats["within_1_count"]
    assert summary["p95"] == stats["p95"] and summary["p99"] == stats["p99"]
    assert summary["histogram"] == shot["histogram"]
    assert sum(int(k) * v for k, v in summary["histogram"].items()) == shot["sum"]
    assert summary["mean_ulp"] == shot["sum"] / stats["measured"]
    assert summary["lane_classes"] == shot["classes"]
    assert [(w["ulp"], w["input_bits"]) for w in summary["worst"]] == shot["worst"]


@pytest.mark.parametrize("arch", ["wormhole", "blackhole"])
@pytest.mark.parametrize("kernel, walk", [
    ("reciprocal_fp32", SMALL),
    ("reciprocal_fp32", Exhaustive((-1.5, -1.5 + 2.0 ** -12))),
    ("exp_fp32", Strided(1 << 18, (-104.0, 89.0))),             # denormal, FTZ and Inf edges
])
def test_chunked_tally_equals_a_one_shot_sweep(kernel, arch, walk):
    summary = sweep_fp32(registry.get(kernel), arch, walk, chunk=1000,
                         state_path=False).summary
    assert_same_figures(summary, one_shot(kernel, arch, walk))
    refinements = summary["reference_refinements"]
    assert refinements["of_walked"] == len(walk) and refinements["lanes"] >= 0


def test_any_chunking_gives_the_same_summary_bit_for_bit():
    spec = registry.get("tanh_fp32_2026_09")
    whole = sweep_fp32(spec, "blackhole", SMALL, chunk=len(SMALL), state_path=False).summary
    for chunk in (1, 333, 4096):
        if chunk == 1:
            walk = Strided(1 << 24)                              # 255 one-input chunks
            one = sweep_fp32(spec, "blackhole", walk, chunk=1, state_path=False).summary
            assert one == sweep_fp32(spec, "blackhole", walk, chunk=255,
                                     state_path=False).summary
            continue
        assert sweep_fp32(spec, "blackhole", SMALL, chunk=chunk,
                          state_path=False).summary == whole


def test_the_summary_costs_the_kernels_own_program():
    """An SFPLOADMACRO kernel's body does a face, 8 row groups, per call: its cost per datum is
    the registered Program's, not that of the words a chunk rebuilds its program from."""
    from sfpu_sim import cost

    spec = registry.get("reciprocal_fp32_loadmacro")
    program = spec.program("blackhole")
    walk = Exhaustive((1.0, 1.0 + 2.0 ** -18))                    # 33 inputs
    summary = sweep_fp32(spec, "blackhole", walk, state_path=False).summary
    assert summary["cost"] == cost.estimate(program).as_dict()
    # its body, no stall in it, over 8 row groups of 32 data
    assert program.row_groups == 8 and summary["cost"]["body_stall_cycles"] == 0
    assert summary["cost"]["issue_slots_per_datum"] == \
        (len(program) - program.init_length) / (8 * 32)


def test_the_tally_in_parts_on_threads_equals_one_pass(monkeypatch):
    """A chunk's tally splits its lanes into one part per thread it may use (at most
    tally.PARTS) and merges them: the same Partial as one pass on one thread."""
    from sfpu_sim import threads
    from sfpu_sim.fp32sweep import chunk as chunks, tally
    from sfpu_sim.selection import EVERYTHING, regions_for

    spec = registry.get("tanh_fp32_2026_09")
    job = chunks.job_for(spec, "wormhole", "fp32", "bf16", "rne", SMALL, EVERYTHING, 20)
    x = SMALL.patterns(0, len(SMALL))
    kernel, output = chunks.run_device_bits(job.program(), x, "fp32", "bf16")
    expected = job.reference().expected(x)[0]

    def tallied() -> dict:
        partial, *lanes = tally.tally_chunk(x, output, expected, kernel, "bf16", EVERYTHING, 20,
                                            regions_for("tanh"), tally.cross_check_limit(x.size))
        return {"partial": partial.as_json(), "lanes": [v.tolist() for v in lanes]}

    with threads.limited(1):
        one_pass = tallied()
    monkeypatch.setattr(threads, "threads", lambda: 4)       # four parts, here as in CI
    assert tallied() == one_pass
    assert one_pass["partial"]["population"] > 0 and one_pass["lanes"][0]


def test_chunks_on_threads_give_the_one_thread_summary_bit_for_bit(monkeypatch):
    """The local scheduler runs one chunk per thread, several at once, and merges them in walk
    order: the same summary as one chunk after another. The first chunk runs alone in the
    calling thread; the others each on a thread of their own, their loops on that thread only
    (three at once here whatever the machine has: the pool does not need the cores)."""
    import threading

    from sfpu_sim import threads

    spec = registry.get("tanh_fp32_2026_09")
    threads.set_threads(1)
    try:
        serial = sweep_fp32(spec, "wormhole", SMALL, chunk=300, state_path=False).summary
    finally:
        threads.set_threads(None)
    seen = []
    run_chunk = runs.chunks.run_chunk

    def watched(job, start, stop, total):
        seen.append((start, threading.get_ident(), threads.threads()))
        return run_chunk(job, start, stop, total)

    monkeypatch.setattr(runs, "local_concurrency", lambda chunk, lane_bytes=0, thread_count=None: 3)
    monkeypatch.setattr(runs.chunks, "run_chunk", watched)
    done = []
    parallel = sweep_fp32(spec, "wormhole", SMALL, chunk=300, state_path=False,
                          progress=lambda d, total: done.append(d)).summary
    assert parallel == serial
    assert sorted(start for start, _, _ in seen) == list(range(0, len(SMALL), 300))
    here = threading.get_ident()
    assert seen[0][:2] == (0, here)
    assert all(where != here and limit == 1 for _, where, limit in seen[1:])
    assert done == sorted(done) and done[-1] == len(SMALL)      # progress in walk order


def test_a_chunk_that_fails_on_a_thread_stops_the_sweep_with_its_error(monkeypatch, tmp_path):
    """Its error reaches the caller; the state describes the prefix merged before it."""
    run_chunk, path = runs.chunks.run_chunk, tmp_path / "state.json"

    def failing(job, start, stop, total):
        if start == 1200:
            raise Stop
        return run_chunk(job, start, stop, total)

    monkeypatch.setattr(runs, "local_concurrency", lambda chunk, lane_bytes=0, thread_count=None: 2)
    monkeypatch.setattr(runs.chunks, "run_chunk", failing)
    with pytest.raises(Stop):
        sweep_fp32(registry.get("reciprocal_fp32"), "wormhole", SMALL, chunk=400,
                   state_path=path)
    assert json.loads(json.loads(path.read_text())["body"])["done"] == 1200


def test_default_chunks_shrink_so_every_thread_holds_one_under_the_cap(monkeypatch):
    """Under 2 GiB: the process's 256 MB and one chunk per thread at 256 B an input."""
    for count, chunk, width in ((1, 1 << 20, 1), (2, 1 << 20, 2), (6, 1 << 20, 6), (7, 1 << 19, 7),
                                (8, 1 << 19, 8), (16, 1 << 18, 16), (64, 1 << 16, 64)):
        monkeypatch.setattr(runs.threads, "threads", lambda count=count: count)
        assert runs.default_chunk() == chunk
        assert runs.local_concurrency(chunk) == width
        assert runs.peak_bytes(chunk, "local") == (256 << 20) + width * chunk * 256 < 2 << 30
        # the bench asks what a machine of ``count`` threads would take, from any machine
        monkeypatch.setattr(runs.threads, "threads", lambda: 2)
        assert runs.default_chunk(thread_count=count) == chunk
        assert runs.local_concurrency(chunk, thread_count=count) == width
    assert runs.local_concurrency(1 << 22) == 1              # a --chunk that big runs alone


# --------------------------------------------------------------------------------------------
# Resuming
# --------------------------------------------------------------------------------------------

class Stop(Exception):
    pass


def _stop_after(k):
    def after_chunk(index):
        if index == k - 1:
            raise Stop
    return after_chunk


def test_an_interrupted_run_resumes_from_its_last_chunk(tmp_path):
    spec, path = registry.get("reciprocal_fp32"), tmp_path / "state.json"
    full = sweep_fp32(spec, "wormhole", SMALL, chunk=500, state_path=False).summary
    with pytest.raises(Stop):
        sweep_fp32(spec, "wormhole", SMALL, chunk=500, state_path=path,
                   after_chunk=_stop_after(3))
    assert json.loads(json.loads(path.read_text())["body"])["done"] == 1500
    seen, chunks = [], []
    resumed = sweep_fp32(spec, "wormhole", SMALL, chunk=700, state_path=path,
                         progress=lambda done, total: seen.append(done),
                         after_chunk=chunks.append).summary
    assert seen[0] == 1500 and seen[-1] == len(SMALL)
    assert len(chunks) == -(-(len(SMALL) - 1500) // 700)       # only what was left
    assert resumed == full


def test_restart_starts_over(tmp_path):
    spec, path = registry.get("reciprocal_fp32"), tmp_path / "state.json"
    with pytest.raises(Stop):
        sweep_fp32(spec, "wormhole", SMALL, chunk=500, state_path=path,
                   after_chunk=_stop_after(2))
    seen = []
    summary = sweep_fp32(spec, "wormhole", SMALL, chunk=500, state_path=path, resume=False,
                         progress=lambda done, total: seen.append(done)).summary
    assert seen[0] == 0
    assert summary == sweep_fp32(spec, "wormhole", SMALL, chunk=4096, state_path=False).summary


@pytest.mark.parametrize("other", [
    dict(kernel="reciprocal_sfpi_fp32"), dict(arch="blackhole"),
    dict(walk=Strided(1 << 20, (-8.0, 8.0))), dict(walk=Strided(1 << 19)),
])
def test_a_state_from_another_sweep_is_refused(tmp_path, other):
    path = tmp_path / "state.json"
    with pytest.raises(Stop):
        sweep_fp32(registry.get("reciprocal_fp32"), "wormhole", SMALL, chunk=500,
                   state_path=path, after_chunk=_stop_after(1))
    with pytest.raises(StateMismatch, match="belongs to another sweep"):
        sweep_fp32(registry.get(other.get("kernel", "reciprocal_fp32")),
                   other.get("arch", "wormhole"), other.get("walk", SMALL), chunk=500,
                   state_path=path)


def test_cli_refuses_another_sweeps_state_and_restart_overrides_it(tmp_path, capsys):
    state = str(tmp_path / "s.json")
    common = ["--arch", "wormhole", "--in", "fp32", "--stride", str(1 << 20), "--json",
              "--state", state]
    assert main(["sweep", "reciprocal_fp32", *common]) == 0
    capsys.readouterr()
    assert main(["sweep", "reciprocal_sfpi_fp32", *common]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "belongs to another sweep" in err and "kernel" in err
    assert main(["sweep", "reciprocal_sfpi_fp32", *common, "--restart"]) == 0


def test_a_damaged_state_is_reported_and_the_sweep_starts_over(tmp_path, capsys):
    path = tmp_path / "state.json"
    path.write_text('{"kind": "sfpu-sim fp32-sweep state", "sha256": "0", "body": "{not')
    spec = registry.get("reciprocal_fp32")
    summary = sweep_fp32(spec, "wormhole", SMALL, chunk=1000, state_path=path).summary
    assert "is damaged" in capsys.readouterr().err
    assert summary == sweep_fp32(spec, "wormhole", SMALL, chunk=4096, state_path=False).summary


# --------------------------------------------------------------------------------------------
# Dask
# --------------------------------------------------------------------------------------------

def _cli_json(args, capsys) -> dict:
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_dask_local_cluster_gives_the_local_summary_bit_for_bit(tmp_path, capsys):
    args = ["sweep", "reciprocal_fp32", "--arch", "blackhole", "--in", "fp32", "--stride",
            str(1 << 20), "--chunk", "700", "--json"]
    local = _cli_json([*args, "--state", str(tmp_path / "local.json")], capsys)
    dask = _cli_json([*args, "--scheduler", "dask", "--state", str(tmp_path / "dask.json")],
                     capsys)
    assert dask == local


def test_the_local_cluster_leaves_port_8787_to_others(recwarn):
    """Two clusters on one machine (two sweeps, or a notebook's dashboard): ours takes a free
    port for the scheduler's HTTP server, so distributed has nothing to warn about."""
    from distributed import LocalCluster

    with socket.socket() as taken:
        try:
            taken.bind(("", 8787))
        except OSError:
            pass                                # already taken by someone: just as good
        taken.listen()
        with LocalCluster(n_workers=0, **cluster.LOCAL_CLUSTER) as ours:
            port = ours.scheduler.http_server.port
    assert port != 8787
    assert not [str(w.message) for w in recwarn if "8787" in str(w.message)]


def test_an_existing_cluster_by_its_tcp_address(tmp_path, capsys):
    from distributed import LocalCluster

    args = ["sweep", "reciprocal_fp32", "--arch", "wormhole", "--in", "fp32", "--stride",
            str(1 << 21), "--chunk", "500", "--json"]
    local = _cli_json([*args, "--state", str(tmp_path / "local.json")], capsys)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      protocol="tcp", dashboard_address=":0") as cluster:
        assert cluster.scheduler_address.startswith("tcp://")
        remote = _cli_json([*args, "--scheduler", cluster.scheduler_address, "--state",
                            str(tmp_path / "tcp.json")], capsys)
    assert remote == local


# --------------------------------------------------------------------------------------------
# Bad input: one line, exit 2
# --------------------------------------------------------------------------------------------

def _bad(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    base = ["sweep", "reciprocal_fp32", "--arch", "blackhole", "--in", "fp32"]
    return [
        (["sweep", "exp", "--arch", "blackhole", "--in", "fp32"], "written for a BF16 Dst"),
        ([*base, "--stride", "0"], "--stride 0"),
        ([*base, "--stride", "-3"], "--stride -3"),
        ([*base, "--exhaustive", "--stride", "4"], "without --stride"),
        ([*base, "--state", str(tmp_path)], "is a directory"),
        ([*base, "--state", str(a_file / "state.json")], "cannot make its directory"),
        ([*base, "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the cluster"),
        ([*base, "--scheduler", "yarn"], "--scheduler 'yarn'"),
        ([*base, "--chunk", "0"], "--chunk 0"),
        ([*base, "--range=2,1"], "LO <= HI"),
        ([*base, "--ulp", "fractional"], "daz-index only"),
        ([*base, "--csv", str(tmp_path / "x.csv")], "not for --in fp32"),
        (["sweep", "reciprocal_fp32", "--arch", "blackhole", "--stride", "4"],
         "add --in fp32"),
        (["sweep", "hellas_sin_fp32", "--arch", "blackhole", "--in", "fp32"], "none yet"),
    ]


def test_bad_fp32_sweep_input_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(runs, "CONNECT_TIMEOUT", "1s")
    for args, words in _bad(tmp_path):
        assert main(args) == 2, args
        err = capsys.readouterr().err.strip()
        assert words in err and len(err.splitlines()) == 1, (args, err)


def test_fp32_report_is_written_from_the_summary(tmp_path, capsys):
    assert main(["report", "reciprocal_fp32", "--arch", "blackhole", "--in", "fp32",
                 "--stride", str(1 << 20), "--out", str(tmp_path / "r"), "--files",
                 "md,json"]) == 0
    (md,) = (tmp_path / "r").glob("*.md")
    text = md.read_text()
    # 4,080 = 2 * 0x7F800000 / 2**20: the finite line's keys over the stride
    assert "stride" in md.name
    assert re.search(r"\d[\d,]* of 4,080 inputs were not decided so and were refined", text)
    data = json.loads(next((tmp_path / "r").glob("*.json")).read_text())
    assert data["walk"]["patterns"] == len(SMALL) == 4080
