"""reports/ is generated, never hand-edited: regenerating it must give the committed bytes."""
from __future__ import annotations

import pytest

from sfpu_sim.cli import main
from tests.conftest import ROOT


def stale_report_files(committed: dict, generated: dict) -> list[str]:
    """What differs between the committed and a regenerated reports/, each cause named."""
    problems = []
    extra = sorted(set(committed) - set(generated))
    if extra:
        problems.append(f"reports/ holds {len(extra)} file(s) that `sfpu-sim report --all` does "
                        f"not write, e.g. {extra[:5]}: written by a hand-run command (such as a "
                        f"`report` or `compare` run from the repository root)? Delete them")
    missing = sorted(set(generated) - set(committed))
    if missing:
        problems.append(f"{len(missing)} generated file(s) are not committed, e.g. "
                        f"{missing[:5]}: run `sfpu-sim report --all --out reports/` and commit")
    changed = sorted(n for n in set(committed) & set(generated) if committed[n] != generated[n])
    if changed:
        problems.append(f"{len(changed)} committed report file(s) are stale, e.g. "
                        f"{changed[:5]}: run `sfpu-sim report --all --out reports/`")
    return problems


def test_stale_report_files_names_each_cause():
    committed = {"a.md": b"1", "b.md": b"2", "extra.md": b"x"}
    generated = {"a.md": b"1", "b.md": b"changed", "new.md": b"n"}
    problems = stale_report_files(committed, generated)
    assert len(problems) == 3
    assert "['extra.md']: written by a hand-run command" in problems[0]
    assert "['new.md']" in problems[1] and "['b.md']" in problems[2]


@pytest.mark.slow
def test_committed_reports_are_exactly_what_report_all_writes(tmp_path):
    assert main(["report", "--all", "--out", str(tmp_path)]) == 0
    committed = {p.name: p.read_bytes() for p in (ROOT / "reports").iterdir()}
    generated = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    problems = stale_report_files(committed, generated)
    assert not problems, "; ".join(problems)
