"""``sfpu-sim warm``: a kernel's programs compiled ahead of time are found compiled by a later
process (here: this process with its memory of programs cleared)."""
from __future__ import annotations

import json

import pytest

from sfpu_sim import compiled, jit, registry
from sfpu_sim.cli import main
from sfpu_sim.sweeps import _device_state, _last_store
from sfpu_sim.compile_ahead import paths, warm


@pytest.fixture
def fresh_cache(monkeypatch, tmp_path):
    monkeypatch.setattr(jit, "program_directory", lambda: tmp_path)
    monkeypatch.setattr(compiled, "_MEMORY", {})
    monkeypatch.setattr(compiled, "_ON_DISK", {})
    return tmp_path


def _ready(spec, chip: str, path) -> bool:
    program = spec.program(chip)
    return compiled.ready(_device_state(program, path, 32), program, _last_store(program))


def test_warm_compiles_every_path_a_later_process_finds_compiled(fresh_cache, monkeypatch):
    spec = registry.get("exp_fp32_2026_09")
    assert [label for label, _ in paths(spec)] == ["bf16", "fp32"]
    assert not any(_ready(spec, "wormhole", path) for _, path in paths(spec))
    rows = list(warm([spec], ["wormhole"]))
    assert [(r.kernel, r.chip, r.path, r.compiled, r.reason) for r in rows] == \
        [("exp_fp32_2026_09", "wormhole", "bf16", True, None),
         ("exp_fp32_2026_09", "wormhole", "fp32", True, None)]
    monkeypatch.setattr(compiled, "_MEMORY", {})           # a later process
    monkeypatch.setattr(compiled, "_ON_DISK", {})
    assert all(_ready(spec, "wormhole", path) for _, path in paths(spec))


def test_warm_says_why_a_program_runs_on_the_machine_only(fresh_cache):
    row, = warm([registry.get("exp_approx_loadmacro")], ["blackhole"])
    assert not row.compiled and row.reason.startswith("SFPLOADMACRO schedules instructions")


def test_warm_command_takes_binary_kernels_and_writes_json(fresh_cache, capsys):
    assert main(["warm", "binary_add_2026_09", "--arch", "wormhole", "--json"]) == 0
    programs = json.loads(capsys.readouterr().out)["programs"]
    assert [(p["kernel"], p["chip"], p["path"], p["compiled"]) for p in programs] == \
        [("binary_add_2026_09", "wormhole", "bf16", True)]


def test_warm_of_an_unknown_kernel_is_one_line_and_exit_2(capsys):
    assert main(["warm", "no_such_kernel"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
