"""reports/ is generated, never hand-edited: regenerating it must give the committed bytes."""
from __future__ import annotations

import pytest

from sfpu_sim.cli import main
from tests.conftest import ROOT


@pytest.mark.slow
def test_committed_reports_are_exactly_what_report_all_writes(tmp_path):
    assert main(["report", "--all", "--out", str(tmp_path)]) == 0
    # The BF16 GELU study's report (gelu_study.md/.png/.json) has its own generator.
    assert main(["study", "gelu", "--write-report", str(tmp_path)]) == 0
    committed = {p.name: p.read_bytes() for p in (ROOT / "reports").iterdir()}
    generated = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(committed) == sorted(generated)
    stale = [name for name in committed if committed[name] != generated[name]]
    assert not stale, f"{len(stale)} committed report files are stale, e.g. {stale[:5]}; " \
                      f"run: sfpu-sim report --all --out reports/ and sfpu-sim study gelu " \
                      f"--write-report reports/"
