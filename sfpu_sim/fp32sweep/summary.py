"""The summary of a sweep through the chunk pipeline, from its merged Partial: the BF16 sweep's
contract (``sfpu_sim.sweeps.sweep``'s keys and meanings), plus what only this pipeline has (the
refinements of its reference, the wide histogram bins, and for an FP32 walk the walk). Over
every BF16 pattern (:class:`~.walk.Bf16Patterns`) its statistics are the BF16 sweep's, figure
for figure (tests/test_pipeline_bf16.py).

Owns: turning integers into the JSON-ready summary (percentiles from histograms, means from
exact sums, the rows of regions, binades, worst lanes, denormals and special values). Knows
nothing of how the lanes were run.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from sfpu_sim import formats, reference, registry, ulp
from sfpu_sim.fp32sweep import rounded_reference as fp32_reference
from sfpu_sim.fp32sweep.chunk import run_device_bits
from sfpu_sim.fp32sweep.tally import BINS, EXACT, Partial, Stats, bin_range
from sfpu_sim.jsonio import json_number, jsonable, lane_row
from sfpu_sim.selection import regions_for
from sfpu_sim.sweeps import ATTRIBUTION, BUCKETS, DevicePath, program_facts
from sfpu_sim.version import __version__

SPECIAL_INPUTS = {"+0": 0x00000000, "-0": 0x80000000, "+inf": 0x7F800000,
                  "-inf": 0xFF800000, "nan": 0x7FC00000, "-nan": 0xFFC00000,
                  "snan": 0x7F800001}
# BF16 inputs: the same values; the signalling NaN is BF16's smallest (0x7F81), as FP32 patterns
SPECIAL_INPUTS_BF16 = {**SPECIAL_INPUTS, "snan": 0x7F810000}
HELD_TABLE = ("the reference layer's held table of every BF16 input, certified by "
              "reference_backend, as a BF16 sweep takes it")
POPULATION_TEXT = ("distinct values under DAZ: the FP32 normals and +0 (4,261,412,865 of all "
                   "2**32 patterns) that the walk reaches")


def _quantile(hist: np.ndarray, n: int, q: int):
    """np.percentile(..., method="higher") of the distances a histogram holds: the value of
    rank ceil(q/100 (n-1)); a wide bin gives its smallest distance (``exact`` False)."""
    if n == 0:
        return None, True
    rank = -(-Fraction(q, 100) * (n - 1) // 1)
    k = int(np.searchsorted(np.cumsum(hist), rank + 1))
    low, high = bin_range(k)
    return low, low == high


def describe(s: Stats, n: int) -> dict:
    """_describe_stats of sfpu_sim.sweeps over a histogram (``n``: counted lanes)."""
    out = {"measured": n, "max": None, "mean": None, "p95": None, "p99": None,
           "exact_count": 0, "exact_frac": None, "within_1_count": 0, "within_2_count": 0}
    if n:
        p95, exact95 = _quantile(s.hist, n, 95)
        p99, exact99 = _quantile(s.hist, n, 99)
        out.update(max=s.max, mean=s.total / n, p95=p95, p99=p99,
                   exact_count=int(s.hist[0]), exact_frac=int(s.hist[0]) / n,
                   within_1_count=int(s.hist[:2].sum()), within_2_count=int(s.hist[:3].sum()))
        if not (exact95 and exact99):
            out["percentiles_lower_bounds"] = True
    return out


def _histogram(hist: np.ndarray) -> tuple[dict, list]:
    exact = {str(k): int(hist[k]) for k in np.flatnonzero(hist[:EXACT])}
    wide = [{"low": bin_range(k)[0], "high": bin_range(k)[1], "count": int(hist[k])}
            for k in range(EXACT, BINS) if hist[k]]
    return exact, wide


def _buckets(hist: np.ndarray, n: int) -> list[dict]:
    out = []
    for name, low, high in BUCKETS:
        inside = [k for k in range(BINS) if bin_range(k)[0] >= low
                  and (high is None or bin_range(k)[1] <= high)]
        count = int(hist[inside].sum())
        out.append({"bucket": name, "count": count, "percent": 100.0 * count / max(n, 1)})
    return out


def build(job, program, partial: Partial, walk, specials: list, worst_values: dict,
          seconds_note: str | None = None) -> dict:
    """The summary (see the module docstring). ``specials``: rows of the special inputs;
    ``worst_values``: input pattern -> the exact reference (float64) of the worst lanes."""
    spec = registry.get(job.kernel) if job.kernel in registry.names() else None
    arch = program.arch
    facts = program_facts(program)
    in_fmt, out_fmt = job.input_format, job.output_format
    path = DevicePath(in_fmt, out_fmt, job.dest)
    bf16_inputs = in_fmt == "bf16"          # every BF16 pattern: a BF16 sweep's inputs
    n = int(partial.device.hist.sum())
    device = describe(partial.device, n)
    histogram, wide = _histogram(partial.device.hist)
    selection = job.the_selection()
    summary = {
        "tool": f"sfpu-sim {__version__}",
        "kernel": job.kernel, "function": job.function, "arch": arch.name,
        "chip": arch.title, "mode": spec.mode if spec else "", "kernel_dest":
        spec.dest if spec else job.dest, "provenance": spec.provenance if spec else "",
        "description": spec.description if spec else "",
        "kernel_hash": facts["kernel_hash"],
        "dest": job.dest, "input_format": in_fmt, "output_format": out_fmt,
        "device_path": path.steps(),
        "reference_rounding": job.policy,
        "reference_policy_text": reference.policies()[job.policy],
        "reference_backend": job.reference().backend if bf16_inputs else
        "float64 enclosure + flint",
        "reference_precision_bits": partial.precision if bf16_inputs else
        max(partial.precision, 53),                                 # float64's, or arb's
        "reference_method": HELD_TABLE if bf16_inputs else fp32_reference.METHOD,
        "reference_refinements": {
            "lanes": partial.refined,
            "of_walked": partial.walked,
            "largest_arb_precision_bits": partial.precision,
            "definition": "inputs whose float64 enclosure did not decide the rounding (or "
                          "was declined) and were certified with python-flint arb instead"},
        "daz_inputs": True, "ftz_reference": True,
        "ulp_convention": "daz-index",
        "ulp_convention_text": ulp.CONVENTIONS["daz-index"],
        "population": "daz",
        "population_text": ulp.POPULATIONS["daz"] if bf16_inputs else POPULATION_TEXT,
        "selection": selection.as_dict(),
        **({} if bf16_inputs else {"walk": walk.as_dict()}),     # BF16: every pattern
        "count": partial.population,
        **{k: v for k, v in device.items() if k not in ("max", "mean")},
        "max_ulp": device["max"], "mean_ulp": device["mean"],
        "unmeasurable": partial.population - n,
        "lane_classes": {c.name.lower(): int(partial.classes[c]) for c in ulp.LaneClass},
        "histogram": histogram, "histogram_wide": wide,
        "buckets": _buckets(partial.device.hist, n),
    }
    worst = [lane_row(x >> 16 if bf16_inputs else x, out, exp, worst_values[int(x)],
                      in_fmt=in_fmt, out_fmt=out_fmt,
                      kernel_fp32_bits=kern, ulp=int(d), kernel_ulp=int(kd) if kd >= 0 else None)
             for d, x, out, exp, kern, kd in partial.worst.tolist()]
    summary["worst"] = worst
    summary["samples_at_max"] = [w for w in worst if device["max"] is not None
                                 and w["ulp"] == device["max"]][:10]
    added = partial.added
    summary["attribution"] = {
        "definition": ATTRIBUTION,
        "lanes": partial.both,
        "kernel": describe(partial.kernel, partial.both),
        "device": describe(partial.device_both, partial.both),
        "ending_added": {"lanes_worse": int(added[0]), "lanes_better": int(added[1]),
                         "lanes_same": int(added[2]), "max_added": partial.added_max,
                         "histogram": _histogram(partial.added_hist)[0]
                         if partial.both else {}},
    }
    summary["regions"] = [
        {"region": r.name, "low": r.low, "high": r.high, "text": r.text,
         "inputs": int(partial.region_inputs[k]),
         **describe(partial.regions[k], int(partial.regions[k].hist.sum()))}
        for k, r in enumerate(regions_for(job.function))]
    summary["binades"] = _binades(partial.binades)
    summary["denormals"] = {
        "inputs": partial.denormal_inputs, "match_expected": partial.denormal_match,
        "expected_outputs": [_hex(v, out_fmt) for v in partial.denormal_expected],
        "outputs": {**{_hex(k, out_fmt): v for k, v in sorted(partial.denormal_outputs.items())},
                    **({"other": partial.denormal_other} if partial.denormal_other else {})}}
    summary["specials"] = specials
    summary["cross_verification"] = {
        "pairs": partial.cross_pairs, "agree": partial.cross_agree,
        "methods": ["streaming bitwise formula (compiled) on every lane, checked on a fixed "
                    "sample of about 2**20 lanes against:",
                    "ulp.index: sign * max(|bits & 0x7FFFFFFF| - (2**23 - 1), 0)",
                    "ulp.index_by_search: binade starts, binary search, position in binade"]}
    summary["program"], summary["cost"] = facts["program"], facts["cost"]
    return jsonable(summary)


def _hex(bits: int, fmt: str) -> str:
    return f"{int(bits):#0{6 if fmt == 'bf16' else 10}x}"


def _binades(rows: np.ndarray) -> list[dict]:
    """Per binade of |x| (FP32 exponent field), both signs together; +0 is its own row."""
    out = []
    for e in np.flatnonzero(rows[:, 0]):
        inputs, measured, total, largest, exact = (int(v) for v in rows[e])
        label = "0" if e == 0 else f"[2^{e - 127}, 2^{e - 126})"
        out.append({"binade": label, "exponent": int(e) - 127 if e else None,
                    "inputs": inputs, "max": largest if measured else None,
                    "mean": total / measured if measured else None,
                    "exact_frac": exact / measured if measured else None})
    return out


def special_rows(program, job) -> list[dict]:
    """The special inputs through the device path and the reference layer, as the BF16
    sweep's ``specials`` rows."""
    specials = SPECIAL_INPUTS_BF16 if job.input_format == "bf16" else SPECIAL_INPUTS
    bits = np.array(list(specials.values()), dtype=np.uint32)
    _, output = run_device_bits(program, bits, job.dest, job.output_format,
                                input_format=job.input_format)
    ref = job.reference().certified(bits)
    result = ulp.distance(ref, output, "daz-index")
    out_fmt = job.output_format
    rows = []
    for k, (name, pattern) in enumerate(specials.items()):
        actual, expected = int(output[k]), int(ref.bits[k])
        counted = bool(result.counted[k])
        rows.append({"input": name, "input_bits": _hex(pattern >> 16, "bf16")
                     if job.input_format == "bf16" else f"{pattern:#010x}",
                     "output_bits": _hex(actual, out_fmt),
                     "output": _value(actual, out_fmt),
                     "expected_bits": _hex(expected, out_fmt),
                     "expected": _value(expected, out_fmt), "bit_exact": actual == expected,
                     "ulp": int(result.distance[k]) if counted else None,
                     "lane_class": ulp.LaneClass(int(result.lane_class[k])).name.lower()})
    return rows


def _value(bits: int, fmt: str):
    return json_number(formats.bits_to_float64(bits, fmt))
