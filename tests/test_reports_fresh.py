"""reports/ is generated, never hand-edited: regenerating it must give the committed bytes."""
from __future__ import annotations

import pytest

from sfpu_sim.cli import main
from tests.conftest import ROOT

# Reports other commands write into reports/ (file -> the command that regenerates it).
OTHER_REPORTS = {
    "determinism.md": ["determinism", "hellas_*"],
    "determinism.json": ["determinism", "hellas_*"],
}


@pytest.mark.slow
def test_committed_reports_are_exactly_what_report_all_writes(tmp_path):
    assert main(["report", "--all", "--out", str(tmp_path)]) == 0
    committed = {p.name: p.read_bytes() for p in (ROOT / "reports").iterdir()
                 if p.name not in OTHER_REPORTS}
    generated = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(committed) == sorted(generated)
    stale = [name for name in committed if committed[name] != generated[name]]
    assert not stale, f"{len(stale)} committed report files are stale, e.g. {stale[:5]}; " \
                      f"run: sfpu-sim report --all --out reports/"


@pytest.mark.slow
def test_committed_determinism_report_is_what_the_command_writes(tmp_path, capsys):
    """Regenerate with: sfpu-sim determinism 'hellas_*' --out reports/"""
    assert main([*OTHER_REPORTS["determinism.md"], "--out", str(tmp_path)]) == 0
    for name in ("determinism.md", "determinism.json"):
        assert (tmp_path / name).read_bytes() == (ROOT / "reports" / name).read_bytes(), name
