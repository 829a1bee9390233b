"""Every BF16 pattern through the chunk pipeline (sfpu_sim.fp32sweep with
:class:`~sfpu_sim.fp32sweep.walk.Bf16Patterns`) gives the BF16 sweep's figures
(sfpu_sim.sweeps.sweep), key for key: the same device path, reference, population,
selection, regions, binades, worst lanes, special and denormal inputs and statistics, from a
compiled streaming tally instead of per-lane arrays. The differences are the tally's form
(distances from 1,024 up are counted in power-of-two bins, so a percentile there is its bin's
lower end, flagged, as an FP32 sweep reports it; the denormal-input table lists 16 outputs),
the cross-check of the ULP arithmetic (each route checks its own lanes), and the keys only one
route has: the BF16 sweep's views of its per-lane arrays, the pipeline's reference refinements
and wide bins. Both output formats the pipeline has, BF16 and FP32, and both Dst formats.
The slow run covers every kernel (FP32 output: the FP32-Dst kernels), the chips in turn.

Two further checks that the two routes agree at their roots: the FP32 pipeline's reference
(float64 enclosures, arb where they do not decide) equals the held BF16 tables on every BF16
input, and the streamed run's kernel and device bits are the BF16 sweep's."""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import registry
from sfpu_sim.fp32sweep import chunk as chunks
from sfpu_sim.fp32sweep.rounded_reference import Bf16Reference, Fp32Reference, POLICY_CODES
from sfpu_sim.fp32sweep.run import sweep_fp32
from sfpu_sim.fp32sweep.tally import DENORMAL_OUTPUTS, EXACT, bin_range
from sfpu_sim.fp32sweep.walk import Bf16Patterns, from_dict
from sfpu_sim.selection import EVERYTHING, Selection
from sfpu_sim.sweeps import DevicePath, run_kernel, sweep

# A BF16 Dst (the README's tanh), an FP32 Dst, a kernel whose FP32 result is NaN on a counted
# lane (reciprocal of +0), one whose errors reach the wide bins, and SFPLOADMACRO (the Machine)
COVERING = ["tanh@blackhole", "exp_fp32@wormhole", "reciprocal@blackhole",
            "hardshrink_2026_09@wormhole", "reciprocal_fp32_loadmacro@blackhole"]
# Every kernel, on its chips in turn (the pipeline's stages do not depend on the chip; both chips
# run: every pair was 461 cases and 10 minutes of a cold 2-core run with the rest below)
EVERY = [f"{s.name}@{s.chips[k % len(s.chips)]}" for k, s in enumerate(registry.specs())]
STATS = ("measured", "max", "mean", "p95", "p99", "exact_count", "exact_frac",
         "within_1_count", "within_2_count")
# What only the BF16 sweep's summary has: views of its per-lane arrays and the convention's
# option (the pipeline measures daz-index with the format's flushing only)
ONLY_BF16 = ("leading_term", "flush_subnormals")
ONLY_STREAMED = {"histogram_wide", "reference_method", "reference_refinements"}


def _bin_low(d: int) -> int:
    """The smallest distance of ``d``'s histogram bin (lane_tally.histogram_bin's)."""
    return d if d < EXACT else bin_range(EXACT + d.bit_length() - 11)[0]


def _binned(stats: dict) -> dict:
    """A BF16 sweep's statistics as the streaming tally states them."""
    out = {k: stats[k] for k in STATS if k in stats}       # the top level: max_ulp, mean_ulp
    if stats["measured"]:
        out["p95"], out["p99"] = _bin_low(stats["p95"]), _bin_low(stats["p99"])
        if max(stats["p95"], stats["p99"]) >= EXACT:
            out["percentiles_lower_bounds"] = True
    return out


def _histograms(histogram: dict) -> tuple[dict, list]:
    """A BF16 sweep's histogram as (exact bins, wide bins)."""
    exact = {k: v for k, v in histogram.items() if int(k) < EXACT}
    wide: dict = {}
    for k, v in histogram.items():
        if int(k) >= EXACT:
            low = _bin_low(int(k))
            wide[low] = wide.get(low, 0) + v
    return exact, [{"low": low, "high": bin_range(EXACT + low.bit_length() - 11)[1],
                    "count": count} for low, count in sorted(wide.items())]


def _denormals(table: dict) -> dict:
    """A BF16 sweep's denormal-input table as the tally keeps it: the smallest
    DENORMAL_OUTPUTS output patterns, the rest summed."""
    outputs = sorted(table["outputs"].items())
    rest = sum(count for _, count in outputs[DENORMAL_OUTPUTS:])
    return {**table, "outputs": {**dict(outputs[:DENORMAL_OUTPUTS]),
                                 **({"other": rest} if rest else {})}}


def _expected_from(bf16: dict) -> dict:
    """What the pipeline's summary must say, from the BF16 sweep's: every key they share, the
    same but for the tally's form (histogram bins, the denormal table's length) and the
    cross-check (each route's own: all its pairs agree)."""
    exact, wide = _histograms(bf16["histogram"])
    attribution = bf16["attribution"]
    added = attribution["ending_added"]
    cross = bf16["cross_verification"]
    return {
        **{k: v for k, v in bf16.items() if k not in ONLY_BF16},
        "denormals": _denormals(bf16["denormals"]),
        # each route's own check of its ULP arithmetic: every pair it checks agrees (the
        # pipeline checks the lanes it measures, the BF16 sweep every population pair)
        "cross_verification": {"all_agree": cross["pairs"] == cross["agree"] > 0},
        **{k: v for k, v in _binned(bf16).items() if k not in ("max", "mean")},
        "histogram": exact, "histogram_wide": wide,
        "attribution": {**attribution, "kernel": _binned(attribution["kernel"]),
                        "device": _binned(attribution["device"]),
                        "ending_added": {**added,
                                         "histogram": _histograms(added["histogram"])[0]}},
        "regions": [{**row, **_binned(row)} for row in bf16["regions"]],
    }


def _compare(kernel: str, arch: str, selection: Selection = EVERYTHING, dest: str | None = None,
             output_format: str = "bf16") -> None:
    spec = registry.get(kernel)
    dest = dest or spec.dest
    bf16 = sweep(spec, arch, selection=selection, dest=dest,
                 output_format=output_format).summary
    streamed = sweep_fp32(spec, arch, Bf16Patterns(), dest=dest, selection=selection,
                          output_format=output_format, state_path=False).summary
    expected = _expected_from(bf16)
    cross = streamed["cross_verification"]
    streamed["cross_verification"] = {"all_agree": cross["pairs"] == cross["agree"] > 0}
    assert set(streamed) == set(expected) | ONLY_STREAMED
    assert {k: streamed[k] for k in expected} == expected
    assert streamed["reference_refinements"]["lanes"] == 0          # a held table: certified


@pytest.mark.parametrize("case", COVERING)
def test_every_bf16_pattern_through_the_pipeline_gives_the_bf16_sweeps_figures(case):
    _compare(*case.split("@"))


@pytest.mark.slow
@pytest.mark.parametrize("case", EVERY)
def test_every_kernel_through_the_pipeline_gives_its_bf16_sweeps_figures(case):
    _compare(*case.split("@"))


@pytest.mark.parametrize("case", ["exp_fp32@wormhole@fp32", "tanh@wormhole@bf16"])
def test_fp32_output_gives_the_bf16_sweeps_figures_in_fp32_ulp(case):
    kernel, arch, dest = case.split("@")
    _compare(kernel, arch, dest=dest, output_format="fp32")


# FP32 output: every kernel written for an FP32 Dst
EVERY_FP32_DST = [f"{s.name}@{s.chips[k % len(s.chips)]}@fp32"
                  for k, s in enumerate(registry.specs()) if s.dest == "fp32"]


@pytest.mark.slow
@pytest.mark.parametrize("case", EVERY_FP32_DST)
def test_every_fp32_dst_kernel_with_fp32_output_gives_the_bf16_sweeps_figures(case):
    kernel, arch, dest = case.split("@")
    _compare(kernel, arch, dest=dest, output_format="fp32")


def test_a_selection_counts_the_same_inputs_on_both_routes():
    _compare("tanh", "wormhole", Selection((-1.0, 2.5), None))
    _compare("exp_fp32", "blackhole", Selection(None, "negative"))


def test_the_input_set_is_every_bf16_value_in_bf16_bit_order():
    walk = Bf16Patterns()
    x = walk.patterns(0, len(walk))
    assert len(walk) == 65536 and x.dtype == np.uint32
    assert np.array_equal(x >> 16, np.arange(65536)) and not (x & 0xFFFF).any()
    assert np.array_equal(walk.patterns(65530, 70000), x[65530:])
    assert walk.patterns(70000, 80000).size == 0
    assert from_dict(walk.as_dict()) == walk and walk.input_format == "bf16"


@pytest.mark.parametrize("kernel", ["tanh", "exp_fp32"])
def test_the_pipelines_device_bits_are_the_bf16_sweeps(kernel):
    spec = registry.get(kernel)
    x = Bf16Patterns().patterns(0, 65536)
    program = spec.program("wormhole")
    streamed = chunks.run_device_bits(program, x, spec.dest, "bf16", "machine", "bf16")
    run, _ = run_kernel(spec, "wormhole", (x >> 16).astype(np.uint16),
                        DevicePath("bf16", "bf16", spec.dest))
    assert np.array_equal(streamed[0], run.kernel_fp32)
    assert np.array_equal(streamed[1], run.output)


def _reference_cases(policies):
    return [(f, out, policy) for f in ("exp", "log", "tanh", "sigmoid", "reciprocal", "sqrt",
                                       "rsqrt")
            for out in ("bf16", "fp32") for policy in policies
            if (policy, out) in POLICY_CODES]


@pytest.mark.parametrize("function,out,policy", _reference_cases(["rne"]))
def test_the_fp32_reference_is_the_held_bf16_table_on_every_bf16_input(function, out, policy):
    """Two references built apart (float64 enclosures with arb where they do not decide, and
    the reference layer's held arb table) give the same pattern for all 65,536 inputs."""
    x = Bf16Patterns().patterns(0, 65536)
    enclosed = Fp32Reference(function, policy, out).expected(x)[0]
    held = Bf16Reference(function, policy, out).expected(x)[0]
    assert enclosed.dtype == held.dtype and np.array_equal(enclosed, held)


@pytest.mark.slow
@pytest.mark.parametrize("function,out,policy",
                         _reference_cases(["ties_away", "rne_fp32", "truncate"]))
def test_the_fp32_reference_is_the_held_table_under_every_policy(function, out, policy):
    x = Bf16Patterns().patterns(0, 65536)
    assert np.array_equal(Fp32Reference(function, policy, out).expected(x)[0],
                          Bf16Reference(function, policy, out).expected(x)[0])
