"""Reports of sweeps: the Markdown, JSON, PNG, terminal, harness CSV and budget renderings.

Sweeps are module-scoped (about half a second each, warm). The headline numbers of the tanh
report are checked against Tenstorrent's hand-written "Tanh BFloat16 ULP Precision Diagnostic
Report" (tenstorrent/tt-metal tests/ttnn/unit_tests/gtests/TANH_ULP_DIAGNOSTIC_REPORT.md, Jan
2026, measured on a Blackhole P150a): an independent source.
"""
from __future__ import annotations

import copy
import functools
import io
import json
import os
import re

import numpy as np
import pytest
from rich.console import Console

from sfpu_sim import registry, report
from sfpu_sim.report import budget, compare, harness, markdown, model, plots, terminal
from sfpu_sim.report import numbers as N
from sfpu_sim.report.files import ReportError, atomic_write, json_text, read_json
from sfpu_sim.sweeps import sweep

# --------------------------------------------------------------------------------------------
# Every number in a Markdown report is in its JSON: the definition
# --------------------------------------------------------------------------------------------
#
# A numeric token is a decimal literal, optionally signed, with optional thousands commas,
# fraction, exponent and percent sign, not glued to a word character (so BF16, p95, C3, the
# digits of a hash or of "2^-126"'s exponent are not tokens). A token of the Markdown passes if
# it is a token of some JSON number formatted by one of the report's formatters
# (sfpu_sim.report.numbers.FORMATTERS), or a token of a JSON string (text the report carries
# verbatim: bucket names, bit patterns, provenance, listing lines). Bit patterns (0x...) are
# checked separately: each must occur in a JSON string. Generated prose is not stored in the
# JSON, so its numbers must come from JSON numbers.

NUMBER = re.compile(r"(?<![\w.^])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]?\d+)?%?(?!\w)")
HEX = re.compile(r"0x[0-9a-fA-F]+")


def _leaves(obj, numbers: list, strings: list) -> None:
    if isinstance(obj, dict):
        for key, value in obj.items():
            strings.append(str(key))
            _leaves(value, numbers, strings)
    elif isinstance(obj, list):
        for value in obj:
            _leaves(value, numbers, strings)
    elif isinstance(obj, str):
        strings.append(obj)
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        numbers.append(obj)


def numbers_missing_from_json(text: str, data: dict) -> tuple[list[str], list[str]]:
    """(numeric tokens, bit patterns) of ``text`` that the JSON ``data`` does not hold."""
    numbers, strings = [], []
    _leaves(data, numbers, strings)
    allowed = set()
    for value in set(numbers):
        for formatter in N.FORMATTERS:
            allowed.update(NUMBER.findall(formatter(value)))
    for string in strings:
        allowed.update(NUMBER.findall(string))
    patterns = {h.lower() for s in strings for h in HEX.findall(s)}
    missing = sorted({t for t in NUMBER.findall(HEX.sub(" ", text)) if t not in allowed})
    missing_bits = sorted({h.lower() for h in HEX.findall(text)} - patterns)
    return missing, missing_bits


# --------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def truncated():
    """tanh on Blackhole against the tanh report's reference (truncated to BF16)."""
    return sweep(registry.get("tanh"), "blackhole", reference_rounding="truncate")


@pytest.fixture(scope="module")
def truncated_model(truncated):
    return model.build(truncated)


@pytest.fixture(scope="module")
def written(truncated, tmp_path_factory):
    """The report files written twice, into two directories, each figure drawn (two empty
    figure caches)."""
    first = tmp_path_factory.mktemp("first")
    second = tmp_path_factory.mktemp("second")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SFPU_SIM_CACHE", str(tmp_path_factory.mktemp("cache_a")))
        _, a = report.write(truncated, first)
        patch.setenv("SFPU_SIM_CACHE", str(tmp_path_factory.mktemp("cache_b")))
        _, b = report.write(truncated, second)
    return a, b


@pytest.fixture(scope="module")
def fractional():
    return sweep(registry.get("tanh"), "wormhole", ulp_convention="fractional")


# --------------------------------------------------------------------------------------------
# The tanh report's headline numbers
# --------------------------------------------------------------------------------------------

def test_tanh_truncate_reproduces_the_tenstorrent_report_headline(truncated_model):
    m = truncated_model
    assert m["count"] == m["measured"] == 65025
    assert m["max_ulp"] == 1
    assert m["exact_count"] == 61943
    assert m["histogram"] == {"0": 61943, "1": 3082}
    assert round(m["mean_ulp"], 4) == 0.0474
    assert m["denormals"]["inputs"] == 254
    assert m["report"]["verdicts"]["denormals_nonzero_outputs"] == 0
    assert m["cross_verification"]["agree"] == m["cross_verification"]["pairs"] == 65025


def test_tanh_truncate_markdown_prints_the_report_figures(truncated_model):
    text = markdown.render(truncated_model)
    assert "| Maximum ULP error | 1 |" in text
    assert "| Mean ULP error | 0.0474 over 65,025 inputs |" in text
    assert "| Exact results (ULP = 0) | 61,943 (95.26%) |" in text
    assert "| 1 | 3,082 | 4.74% |" in text
    assert "Non-zero outputs: 0/254" in text


# --------------------------------------------------------------------------------------------
# The Markdown
# --------------------------------------------------------------------------------------------

SECTIONS = ("## Executive summary", "## Background", "### BF16 format", "### ULP",
            "### DAZ and FTZ", "## Methodology", "### BF16 value space", "### Device path",
            "### ULP calculation", "### Why other conventions give other numbers",
            "### Reference calculation", "## Results",
            "### Exhaustive sweep", "### ULP distribution", "### Samples at the maximum ULP",
            "### Worst cases", "### Regions", "### Per binade of |x|",
            "### Denormal behaviour", "### Special values",
            "### Cross-verification of ULP methods", "### Error attribution", "## The kernel",
            "## Conclusions")


def test_markdown_has_every_section_in_order(written):
    text = written[0]["md"].read_text()
    positions = [text.find(heading) for heading in SECTIONS]
    assert -1 not in positions, [h for h, p in zip(SECTIONS, positions) if p < 0]
    assert positions == sorted(positions)
    footer = text.rstrip().splitlines()[-1]
    assert footer.startswith("*Generated by sfpu-sim 0.1.0 from an emulated exhaustive sweep")
    assert "Regenerate: `sfpu-sim report tanh --arch blackhole --reference-rounding " \
           "truncate`" in footer
    assert f"![ULP error over the input range, output vs reference]({written[0]['png'].name})" \
        in text


def test_every_number_in_the_markdown_is_in_the_json(written):
    text = written[0]["md"].read_text()
    data = json.loads(written[0]["json"].read_text())
    assert numbers_missing_from_json(text, data) == ([], [])


def test_every_number_of_a_fractional_report_is_in_its_json(fractional):
    m = model.build(fractional)
    assert numbers_missing_from_json(markdown.render(m), json.loads(json_text(m))) == ([], [])


def test_the_number_check_catches_a_number_the_json_lacks(truncated_model):
    text = markdown.render(truncated_model) + "\nmean 0.0475, 12.5% of 65,026 at 0x1234\n"
    missing, bits = numbers_missing_from_json(text, truncated_model)
    assert missing == ["0.0475", "12.5%", "65,026"]
    assert bits == ["0x1234"]


def _means(obj) -> set:
    found = set()
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in ("mean", "mean_ulp") and N.is_number(value):
                found.add(value)
            found |= _means(value)
    elif isinstance(obj, list):
        for value in obj:
            found |= _means(value)
    return found


def test_every_mean_is_printed_with_its_population(truncated_model):
    text = markdown.render(truncated_model)
    printed = {N.mean(v) for v in _means(truncated_model) if v != 0}
    assert "0.0474" in printed
    for match in NUMBER.finditer(text):
        if match.group() in printed:
            assert re.match(r" over [\d,]+ (inputs|lanes)", text[match.end():]), \
                text[match.start() - 40:match.end() + 40]


def test_conclusions_follow_the_numbers(truncated_model):
    items = markdown.conclusions(truncated_model)
    assert items[0].startswith("**Max ULP 1:** every result is exact or the neighbouring BF16")
    assert any(i.startswith("**DAZ verified:** all 254 denormal inputs") for i in items)
    assert any("NaN inputs do not propagate" in i for i in items)
    assert any(i.startswith("**Attribution:**") for i in items)
    worse = copy.deepcopy(truncated_model)
    worse["max_ulp"] = 3
    worse["report"]["verdicts"]["accuracy"] = "beyond-one"
    assert markdown.conclusions(worse)[0].startswith("**Max ULP 3** at input")


def test_cost_section_only_when_the_summary_has_cost(truncated_model):
    without = copy.deepcopy(truncated_model)
    without.pop("cost", None)
    assert "Estimated cost" not in markdown.render(without)
    with_cost = copy.deepcopy(without)
    with_cost["cost"] = {"issue_slots_per_datum": 0.625, "by_class": {"MAD": 6}}
    text = markdown.render(with_cost)
    assert "### Estimated cost (static, not measured cycles)" in text
    assert "| `by_class.MAD` | 6 |" in text


def test_samples_are_at_the_maximum_in_input_order(truncated_model):
    samples = truncated_model["report"]["samples"]
    assert 0 < len(samples) <= model.SAMPLES
    assert all(s["ulp"] == truncated_model["max_ulp"] for s in samples)
    assert [s["input"] for s in samples] == sorted(s["input"] for s in samples)
    assert {"0x3f80", "0xbf80"} <= {s["input_bits"] for s in samples}     # +-1.0, as the report


def test_a_kernel_result_no_ulp_can_measure_is_not_applicable_never_negative():
    """reciprocal(+0) on Blackhole: the device stores +inf (0 ULP), the kernel's own FP32
    result is a NaN, so its kernel-only ULP is n/a (None), as the FP32 sweep and the tables
    print it: it read -1 before."""
    result = sweep(registry.get("reciprocal"), "blackhole")
    zero = [w for w in result.summary["worst"] if w["input_bits"] == "0x0000"]
    assert [(w["ulp"], w["output_bits"], w["kernel_ulp"]) for w in zero] == \
        [(0, "0x7f80", None)]
    kernel = int(zero[0]["kernel_fp32_bits"], 16)
    assert kernel & 0x7F800000 == 0x7F800000 and kernel & 0x7FFFFF          # a NaN
    assert markdown._lanes_table(zero)[-1].endswith("| 0 | n/a |")


def test_value_space_counts_every_pattern_once(truncated_model):
    rows = truncated_model["report"]["value_space"]
    assert sum(r["count"] for r in rows) == 1 << 16
    assert sum(r["count"] for r in rows if r["population"]) == truncated_model["count"]


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------

def test_report_files_are_identical_across_runs(written):
    first, second = written
    assert set(first) == {"md", "png", "json"}
    for kind in first:
        assert first[kind].read_bytes() == second[kind].read_bytes(), kind
    assert first["md"].name == "tanh_blackhole_bf16_truncate.md"


def test_png_has_no_timestamp_or_software_tag(written):
    data = written[0]["png"].read_bytes()
    assert data.startswith(b"\x89PNG")
    assert b"Software" not in data and b"Creation Time" not in data


def _counting(monkeypatch, name: str) -> list:
    """Count the drawings of plots.<name> (the figure cache keys on the drawing's name)."""
    drawn, original = [], getattr(plots, name)

    @functools.wraps(original)
    def counted(*args):
        drawn.append(1)
        return original(*args)
    monkeypatch.setattr(plots, name, counted)
    return drawn


def test_an_unchanged_figure_is_drawn_once_and_read_back(truncated, written, tmp_path,
                                                         monkeypatch):
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path / "cache"))
    drawn = _counting(monkeypatch, "sweep_png")
    _, first = report.write(truncated, tmp_path / "a")
    _, second = report.write(truncated, tmp_path / "b")
    assert len(drawn) == 1
    assert first["png"].read_bytes() == second["png"].read_bytes() == \
        written[0]["png"].read_bytes()
    other = sweep(registry.get("tanh"), "wormhole", reference_rounding="truncate")
    report.write(other, tmp_path / "c")                 # another model: drawn
    assert len(drawn) == 2


def test_a_damaged_figure_in_the_cache_is_drawn_again(truncated, written, tmp_path,
                                                      monkeypatch):
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path / "cache"))
    drawn = _counting(monkeypatch, "sweep_png")
    report.write(truncated, tmp_path / "a")
    (kept,) = (tmp_path / "cache" / "figures").glob("*.png")
    kept.write_bytes(kept.read_bytes()[:-1])            # a write cut short
    _, again = report.write(truncated, tmp_path / "b")
    assert len(drawn) == 2
    assert again["png"].read_bytes() == kept.read_bytes() == written[0]["png"].read_bytes()


def test_a_cache_that_cannot_be_written_still_gives_the_figure(truncated, written, tmp_path,
                                                               monkeypatch):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("SFPU_SIM_CACHE", str(blocker))
    _, files = report.write(truncated, tmp_path / "a")
    assert files["png"].read_bytes() == written[0]["png"].read_bytes()


def test_figures_are_drawn_in_the_default_style_whatever_the_rc_says(truncated_model,
                                                                     truncated):
    import matplotlib

    plain = plots.sweep_png(truncated_model, truncated.arrays)
    with matplotlib.rc_context({"lines.linewidth": 7, "font.size": 3}):
        assert plots.sweep_png(truncated_model, truncated.arrays) == plain


def test_json_is_strict_and_holds_the_summary(written, truncated):
    data = json.loads(written[0]["json"].read_text(),
                      parse_constant=lambda name: pytest.fail(f"non-standard {name}"))
    for key in ("kernel", "arch", "max_ulp", "mean_ulp", "buckets", "specials", "report"):
        assert key in data
    assert data["histogram"] == truncated.summary["histogram"]


def test_only_the_requested_formats_are_written(truncated, tmp_path):
    _, files = report.write(truncated, tmp_path, ("json",))
    assert set(files) == {"json"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tanh_blackhole_bf16_truncate.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "report.md"
    target.write_text("old")

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(ReportError, match="No space left on device"):
        atomic_write(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]


def test_formats_option_is_checked():
    assert report.parse_formats("md, json") == ("md", "json")
    with pytest.raises(ReportError, match="choose from md, png, json"):
        report.parse_formats("md,pdf")


def test_reading_bad_json_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ReportError, match=r"bad.json:1: invalid JSON"):
        read_json(bad)
    with pytest.raises(ReportError, match="cannot read"):
        read_json(tmp_path / "absent.json")


# --------------------------------------------------------------------------------------------
# Terminal, comparison, CSV, budget
# --------------------------------------------------------------------------------------------

def test_terminal_view_shows_headline_buckets_worst_and_specials(truncated_model):
    console = Console(record=True, width=140, file=io.StringIO())
    console.print(terminal.render(truncated_model))
    text = console.export_text()
    for expected in ("max ULP", "0.0474 over 65,025 inputs", "ULP buckets", "61,943",
                     "worst cases", "special values", "nan_mismatch"):
        assert expected in text


def test_comparison_of_a_sweep_with_itself_has_zero_deltas(truncated_model):
    c = compare.build([("a", truncated_model, "sweep"), ("b", truncated_model, "sweep")])
    for row in c["headline"]:
        assert row["deltas"][0] in (0, 0.0, None), row
    assert c["notes"] == [] and c["specials_differing"] == []
    text = compare.render(c)
    assert numbers_missing_from_json(text, c) == ([], [])


def test_comparison_flags_settings_that_make_numbers_incomparable(truncated_model, fractional):
    other = model.build(fractional)
    c = compare.build([("truncate", truncated_model, "sweep"), ("fractional", other, "x")])
    assert {n["setting"] for n in c["notes"]} == {"reference_rounding", "ulp_convention"}
    text = compare.render(c)
    assert "**Not like for like:** `reference_rounding` differs" in text
    assert numbers_missing_from_json(text, c) == ([], [])


def test_comparison_accepts_a_saved_summary(truncated, truncated_model):
    saved = json.loads(json_text(model.jsonable(truncated.summary)))
    c = compare.build([("saved", saved, "a.json"), ("sweep", truncated_model, "sweep")])
    assert [row["deltas"][0] for row in c["headline"] if row["metric"] == "max_ulp"] == [0]


def test_comparison_pairs_never_mix_a_chip_change_with_a_kernel_change():
    wh, bh = "wormhole", "blackhole"
    assert compare.pairs([("A", wh), ("A", bh), ("B", wh), ("B", bh)]) == [
        (0, 1, "chip"), (0, 2, "kernel"), (1, 3, "kernel")]
    assert compare.pairs([("A", bh), ("A", bh)]) == [(0, 1, "version")]      # before/after
    assert compare.pairs([("A", wh), ("B", bh)]) == [(0, 1, "chip and kernel")]


def test_comparison_counts_lanes_identical_better_worse_and_the_largest_regressions():
    from sfpu_sim.lane_rows import Lanes

    before = sweep(registry.get("tanh"), "blackhole")
    after = sweep(registry.get("tanh_approx"), "blackhole")
    c = compare.build([("before", model.build(before), "sweep",
                        Lanes.from_arrays(before.arrays)),
                       ("after", model.build(after), "sweep", Lanes.from_arrays(after.arrays))])
    lanes = c["pairs"][0]["lanes"]
    # The same counts straight from the two sweeps' arrays (both list the same 65,025 inputs).
    a, b = before.arrays, after.arrays
    assert np.array_equal(a["x_bits"], b["x_bits"])
    d0, d1 = a["distance"], b["distance"]
    same_bits = a["actual"] == b["actual"]
    assert lanes["compared"] == 65025
    assert lanes["identical"] == int(same_bits.sum())
    assert (lanes["better"], lanes["worse"]) == (int((d1 < d0).sum()), int((d1 > d0).sum()))
    assert lanes["equal"] == int(((d1 == d0) & ~same_bits).sum())
    worst = lanes["largest_regressions"][0]
    k = int(np.argmax(d1 - d0))
    assert worst["input_bits"] == f"{int(a['x_bits'][k]):#06x}"
    assert worst["after_ulp"] - worst["before_ulp"] == int((d1 - d0).max())
    assert "| `before` vs" not in compare.render(c) and "Bit-identical" in compare.render(c)


def test_comparison_refuses_a_json_that_is_not_a_summary():
    with pytest.raises(ReportError, match="not an sfpu-sim sweep summary"):
        compare.check_summary({"kernel": "tanh"}, "x.json")


def test_harness_csv_has_the_llk_columns_and_one_sorted_row_per_input(truncated_model,
                                                                     truncated):
    text = harness.csv_text(truncated_model, truncated.arrays)
    lines = text.splitlines()
    assert lines[0].split(",") == [
        "op", "input_format", "output_format", "chip_arch", "distribution", "intervals",
        "seed", "sample_index", "test_value", "golden_result", "hardware_result",
        "approx_mode", "fast_mode", "dest_acc", "signed_error", "rel_error",
        "signed_ulp_error_daz_index", "signed_ulp_error_fractional", "is_finite_hw",
        "is_finite_golden", "source"]
    assert len(lines) == 1 + 65025
    columns = harness.columns(truncated_model, truncated.arrays)
    assert np.all(np.diff(columns["test_value"]) > 0)
    first = lines[1]
    assert first.startswith("tanh,bf16,bf16,bh,exhaustive,\"[(-3.3895313892515355e+38, "
                            "3.3895313892515355e+38)]\",,0,-3.38953139e+38,")
    assert first.endswith(",T,T,\"predicted by sfpu-sim 0.1.0 (emulated tanh "
                          f"{truncated_model['kernel_hash']}, reference truncate)\"")


def test_harness_ulp_columns_are_the_runs_convention_and_a_named_fractional_one(
        truncated_model, truncated):
    columns = harness.columns(truncated_model, truncated.arrays)
    # x = smallest normal: output flushed to 0, golden 2**-126, whose spacing is 2**-133:
    # 128 fractional steps, but 0 and 2**-126 are neighbours in the daz-index order.
    at = np.flatnonzero(columns["test_value"] == 2.0 ** -126)[0]
    assert columns["signed_error"][at] == -(2.0 ** -126)
    assert columns["signed_ulp_error_fractional"][at] == -128.0
    assert columns["signed_ulp_error_daz_index"][at] == -1.0
    # x = 1.0 under truncation: 0x3f43 against 0x3f42, one step of 2**-8 above.
    at = np.flatnonzero(columns["test_value"] == 1.0)[0]
    assert columns["signed_ulp_error_fractional"][at] == 1.0
    assert columns["signed_ulp_error_daz_index"][at] == 1.0
    assert np.isnan(columns["rel_error"][columns["golden_result"] == 0]).all()


def test_harness_csv_counts_the_same_lanes_at_the_maximum_as_the_report():
    """Issue: exp on Wormhole over [-10, 10] showed 664 inputs at the max in the CSV, 1,061 in
    the report."""
    from sfpu_sim.selection import Selection

    result = sweep(registry.get("exp"), "wormhole", selection=Selection((-10.0, 10.0)))
    m = model.build(result)
    column = harness.columns(m, result.arrays)["signed_ulp_error_daz_index"]
    at_max = int(np.count_nonzero(np.abs(column) == m["max_ulp"]))
    assert at_max == m["histogram"][str(m["max_ulp"])] == 1061


def test_budget_rows_follow_the_llk_yaml():
    assert [budget.budget(n) for n in (0, 1, 2, 10, 11, 100)] == [0, 2, 3, 11, 13, 110]
    assert budget.op_name("tanh") == "Tanh"
    assert budget.op_name("gelu_derivative") == "GeluDerivative"


def test_budget_text(truncated_model):
    text = budget.render([truncated_model])
    lines = text.splitlines()
    assert lines[0].startswith("# Predicted by sfpu-sim")
    assert lines[2].startswith("Tanh:  # predicted by sfpu-sim")
    assert lines[3].startswith('  - {in: Float16_b, out: Float16_b, approx: "No", dest: "No", '
                               'arch: blackhole, max_ulp: 2}  # predicted by sfpu-sim 0.1.0: '
                               'max 1 ULP; ')
    assert "65,025 inputs (population daz), ULP daz-index, reference truncate" in lines[3]


def test_sweep_takes_a_program_with_its_function():
    from sfpu_sim.asm import assemble
    from sfpu_sim.sweeps import SweepError

    program = registry.get("tanh").program("blackhole")
    assert sweep(program, function="tanh").summary["histogram"] == \
        sweep(registry.get("tanh"), "blackhole").summary["histogram"]
    identity = assemble("SFPLOAD L0, 0, 0, 0\nSFPSTORE L0, 0, 0, 0\n", "wormhole",
                        filename="identity.s")
    result = sweep(identity, function="tanh")
    assert result.summary["arch"] == "wormhole" and result.summary["kernel"] == "identity.s"
    with pytest.raises(SweepError, match="needs function="):
        sweep(identity)
    with pytest.raises(SweepError, match="takes a kernel"):
        sweep("tanh", "wormhole")
