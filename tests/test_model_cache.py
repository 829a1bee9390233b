"""The research models kept between runs (sfpu_sim.report.model_cache): built once per key,
returned as their JSON reads back whether built or read, rebuilt when damaged, skipped when the
cache cannot be written."""
from __future__ import annotations

import json

from sfpu_sim.report import model_cache


def _model():
    return {"pairs": [("a", "b")], "value": 0.1, "count": 3}


def test_a_model_is_built_once_and_read_back_as_its_json(tmp_path, monkeypatch):
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path))
    calls = []

    def build():
        calls.append(1)
        return _model()

    first = model_cache.cached("m", ["x"], build)
    again = model_cache.cached("m", ["x"], build)
    assert first == again == {"pairs": [["a", "b"]], "value": 0.1, "count": 3}
    assert len(calls) == 1
    other = model_cache.cached("m", ["y"], build)           # another key: built again
    assert other == first and len(calls) == 2
    assert len(list((tmp_path / "models").glob("m-*.json"))) == 2


def test_a_damaged_file_is_rebuilt_and_an_unwritable_cache_skipped(tmp_path, monkeypatch):
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path))
    model_cache.cached("m", [], _model)
    kept, = (tmp_path / "models").glob("m-*.json")
    kept.write_text('{"pairs": [', encoding="utf-8")
    assert model_cache.cached("m", [], _model)["count"] == 3
    assert json.loads(kept.read_text(encoding="utf-8"))["count"] == 3
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("SFPU_SIM_CACHE", str(blocked))
    assert model_cache.cached("m", [], _model)["value"] == 0.1


def test_the_key_covers_the_package_and_the_kernels():
    roots = [path.name for path in model_cache.PACKAGES]
    assert roots == ["sfpu_sim", "kernels"]
    assert len(model_cache.source_digest()) == 64
