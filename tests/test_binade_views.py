"""Views for range-limited kernels (issue 19 item 5): the per-binade table, the inputs where
the function is not its own leading term, and regions per function (item 6).

Figures pinned from the emulated sweeps of all 65,536 BF16 inputs (population daz, reference
rne, ULP daz-index); each sweep runs once per module.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from sfpu_sim import reference, registry
from sfpu_sim.cli import main
from sfpu_sim.reference.leading_terms import leading_term
from sfpu_sim.report import markdown, model
from sfpu_sim.report.terminal import render
from sfpu_sim.selection import Selection, SelectionError, regions_for
from sfpu_sim.sweeps import sweep

BOTH_CHIPS = ("wormhole", "blackhole")


@functools.cache
def measured(kernel: str, arch: str):
    return sweep(registry.get(kernel), arch)


def binade_row(summary: dict, exponent):
    row = next(b for b in summary["binades"] if b["exponent"] == exponent)
    return row["inputs"], row["max"], row["mean"], row["exact_frac"]


@pytest.mark.parametrize("arch", BOTH_CHIPS)
def test_tanh_per_binade_rows_count_max_mean_exact_share(arch):
    s = measured("tanh", arch).summary
    assert binade_row(s, None) == (1, 0, 0.0, 1.0)                       # +0, its own row
    assert binade_row(s, -126) == (256, 1, 2 / 256, 254 / 256)
    assert binade_row(s, -4) == (256, 1, 36 / 256, 220 / 256)
    assert binade_row(s, -1) == (256, 1, 22 / 256, 234 / 256)
    assert binade_row(s, 0) == (256, 1, 50 / 256, 206 / 256)
    assert binade_row(s, 1) == (256, 1, 48 / 256, 208 / 256)
    # both signs together, one row per binade holding an input: 254 binades and +0
    assert len(s["binades"]) == 255 and sum(b["inputs"] for b in s["binades"]) == 65_025


@pytest.mark.parametrize("arch", BOTH_CHIPS)
def test_tanh_is_off_by_one_only_where_tanh_x_is_not_x(arch):
    view = measured("tanh", arch).summary["leading_term"]
    assert (view["term"], view["point"]) == ("x", "0")
    assert view["leading_term_results"] == 31_347                     # round(tanh x) == x
    assert (view["measured"], view["max"], view["exact_count"]) == (33_678, 1, 33_464)
    assert view["mean"] == 214 / 33_678


def test_sin_leading_term_population_holds_every_inexact_lane():
    summary = measured("sin_2026_09", "wormhole").summary
    view = summary["leading_term"]
    assert view["leading_term_results"] == 31_479
    assert (view["measured"], view["max"], view["exact_count"]) == (12_265, 48_615, 6_424)
    # where round(sin x) == x the kernel is exact: every error lies in the population
    assert view["measured"] - view["exact_count"] == summary["measured"] - summary["exact_count"]


def test_leading_terms_come_from_the_series_rounded_by_the_reference():
    x = np.array([0x3C00, 0x3F80, 0xBE00], dtype=np.uint16)             # 2^-7, 1, -0.125
    erf = reference.reference(leading_term("erf").reference_function(), x, "rne")
    assert erf.value.tolist() == [2 * v / np.sqrt(np.pi) for v in (2.0 ** -7, 1.0, -0.125)]
    mish = reference.reference(leading_term("mish").reference_function(),
                               np.array([0x40A0], dtype=np.uint16), "rne")    # x = 5
    assert mish.value.tolist() == [3.0]                          # 5 tanh(log 2) = 5 * 3/5
    assert leading_term("sqrt") is None and leading_term("relu_max_5") is None


def test_report_states_the_population_once_or_why_there_is_none():
    text = markdown.render(model.build(measured("tanh", "wormhole")))
    assert "### Where tanh is not its own leading term" in text
    assert "| tanh(x) != x | 33,678 | 1 | 0.00635 over 33,678 inputs | 99.36% |" in text
    sqrt = markdown.render(model.build(measured("sqrt", "wormhole")))
    assert sqrt.count("sqrt has no meaningful leading term") == 1


def test_terminal_view_shows_the_population_and_folds_the_binade_table():
    from rich.console import Console

    console = Console(width=100, record=True)
    console.print(render(model.build(measured("sin_2026_09", "wormhole"))))
    text = console.export_text()
    assert "sin(x) != x" in text and "12,265 inputs: max 48,615" in text
    assert "per binade of |x|" in text and "more rows, max <=" in text


def test_regions_are_the_functions_own():
    assert [r["region"] for r in measured("tanh", "wormhole").summary["regions"]] == [
        "near_zero", "core_pos", "core_neg", "tail_pos", "tail_neg"]
    assert [r["region"] for r in measured("sin_2026_09", "wormhole").summary["regions"]] == [
        "negative", "positive"]
    assert [r.name for r in regions_for("gelu")] == [r.name for r in regions_for("tanh")]


def test_a_region_of_another_function_is_refused_in_one_line(capsys):
    code = main(["sweep", "sin_2026_09", "--arch", "wormhole", "--region", "near_zero"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == ("sfpu-sim: error: --region 'near_zero' is not a region of sin: choose from "
                   "negative, positive\n")
    with pytest.raises(SelectionError, match="not a region of sin: choose from negative"):
        sweep(registry.get("sin_2026_09"), "wormhole",
              selection=Selection(region="core_pos"))


@pytest.mark.parametrize("dtype", [np.int64, np.uint32, np.float64])
def test_binade_rows_are_describe_stats_of_each_binade(dtype):
    """sweep_views.binades groups every binade in one pass for integer distances; each row is
    what describe_stats gives that binade's measured lanes (fractional ULPs, Inf included)."""
    from sfpu_sim import formats
    from sfpu_sim.sweep_views import binades, describe_stats

    rng = np.random.default_rng(20261127)
    x = rng.integers(0, 1 << 16, 40_000).astype(np.uint16)
    distance = (rng.integers(0, 5, x.size) ** rng.integers(0, 12, x.size)).astype(dtype)
    if dtype == np.float64:
        distance = distance * rng.random(x.size)
        distance[::97] = np.inf
    counted = rng.random(x.size) < 0.7
    exponent = formats.BF16.exponent(x).astype(np.int64)
    rows = binades(x, distance, counted)
    assert [r["exponent"] for r in rows] == [e - 127 if e else None
                                              for e in np.unique(exponent).tolist()]
    for row, e in zip(rows, np.unique(exponent).tolist()):
        want = describe_stats(distance[(exponent == e) & counted])
        assert (row["inputs"], row["max"], row["mean"], row["exact_frac"]) == \
            (int((exponent == e).sum()), want["max"], want["mean"], want["exact_frac"])
        assert type(row["max"]) is type(want["max"])


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.int32, np.int64, np.float64])
def test_summary_percentiles_are_numpys_higher_percentiles(dtype):
    """describe_stats counts integer distances instead of partitioning them: the same values
    and Python types as ``np.percentile(..., method="higher")``, on small and wide ranges,
    negative integers and fractions included."""
    from sfpu_sim.sweep_views import _percentiles

    rng = np.random.default_rng(20261127)
    for size in (1, 2, 19, 20, 21, 101, 4097):
        for top in (1, 3, 200, 2**31 - 1):
            values = rng.integers(0, top, size).astype(dtype) if dtype is not np.float64 \
                else rng.random(size) * top
            if dtype is np.int32:
                values = values - 7
            want = [np.percentile(values, q, method="higher").item() for q in (95, 99)]
            got = _percentiles(values, (95, 99))
            assert got == want and list(map(type, got)) == list(map(type, want))
    assert _percentiles(np.zeros(0, dtype=np.uint32), (95, 99)) == [None, None]
