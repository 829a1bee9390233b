"""The report model: the one JSON-ready dict every rendering of a sweep reads.

Owns: what a report shows beyond the sweep summary, derived once, here, from the summary and
the sweep's per-lane arrays: format facts, the value-space table, the index layout, the same
lanes under the other ULP conventions, representative samples at the maximum, shares (within
1 ULP, ...), collapsed per-binade runs, the histogram rows, and the verdicts the conclusions
state. The model is the summary plus a ``"report"`` key; the JSON file is the model, and the
Markdown, terminal and README renderings print nothing that is not in it (tests pin this).

Knows nothing of Markdown, plots or terminals, and never runs a kernel (data flows
one way). Generated prose is not stored: the verdicts are flags and rule names, the sentences
are the Markdown's.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats, reference, ulp
from sfpu_sim.formats import BF16, FloatClass
from sfpu_sim.formats import bits_to_float64 as pattern_values
from sfpu_sim.jsonio import hex_bits, jsonable, lane_row
from sfpu_sim.selection import Selection

HISTOGRAM_ROWS = 16      # distinct ULP values listed before the rest is summed in one row
SAMPLES = 8              # samples at the maximum ULP


# --------------------------------------------------------------------------------------------
# Facts of the formats (Background and Methodology sections)
# --------------------------------------------------------------------------------------------

def format_facts(fmt: str) -> dict:
    f = formats.FORMATS[fmt]
    largest = ((f.exp_max - 1) << f.man_bits) | f.man_mask
    smallest = 1 << f.man_bits
    return {"name": fmt.upper(), "width": f.width, "sign_bits": 1,
            "exponent_bits": f.exp_bits, "mantissa_bits": f.man_bits,
            "max_finite_bits": hex_bits(largest, fmt),
            "max_finite": float(pattern_values(largest, fmt)),
            "min_normal_bits": hex_bits(smallest, fmt),
            "min_normal": float(pattern_values(smallest, fmt)),
            "denormals_per_sign": f.man_mask}


def value_space() -> list[dict]:
    """Every BF16 input pattern by category, with bit ranges and counts; ``population``:
    whether the category is in the measured population (``ulp.population("daz")``)."""
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    cls = formats.classify(bits, BF16)
    negative = (bits & 0x8000) != 0
    rows = [
        ("negative normals", (cls == FloatClass.NORMAL) & negative, True, "measured"),
        ("+0", bits == 0, True, "measured; every denormal input and -0 read as zero (DAZ)"),
        ("positive normals", (cls == FloatClass.NORMAL) & ~negative, True, "measured"),
        ("-0", bits == 0x8000, False, "reads as zero: checked under special values"),
        ("positive denormals", (cls == FloatClass.DENORMAL) & ~negative, False,
         "read as +0 (DAZ): checked under denormal behaviour"),
        ("negative denormals", (cls == FloatClass.DENORMAL) & negative, False,
         "read as -0 (DAZ): checked under denormal behaviour"),
        ("infinities", cls == FloatClass.INF, False, "checked under special values"),
        ("NaNs", cls == FloatClass.NAN, False, "checked under special values"),
    ]
    out = []
    for name, mask, measured, note in rows:
        members = np.flatnonzero(mask)
        breaks = np.flatnonzero(np.diff(members) != 1)
        starts = members[np.concatenate(([0], breaks + 1))]
        ends = members[np.concatenate((breaks, [members.size - 1]))]
        out.append({"category": name, "count": int(members.size), "population": measured,
                    "ranges": [[hex_bits(a, "bf16"), hex_bits(b, "bf16")]
                               for a, b in zip(starts, ends)], "note": note})
    return out


def index_layout(fmt: str) -> list[dict]:
    """Where the landmark values sit in the value-order index (``ulp.index``)."""
    f = formats.FORMATS[fmt]
    largest = ((f.exp_max - 1) << f.man_bits) | f.man_mask
    marks = [("-max", f.sign_mask | largest), ("-min normal", f.sign_mask | (1 << f.man_bits)),
             ("zero", 0), ("+min normal", 1 << f.man_bits), ("+max", largest)]
    indices = ulp.index(np.array([b for _, b in marks], dtype=f.dtype), fmt)
    return [{"label": label, "bits": hex_bits(b, fmt), "index": int(i)}
            for (label, b), i in zip(marks, indices)]


# --------------------------------------------------------------------------------------------
# What the summary does not say (from the per-lane arrays)
# --------------------------------------------------------------------------------------------

def _conventions(summary: dict, arrays: dict) -> list[dict]:
    """The measured population under every ULP convention: the sweep's own numbers for the
    convention it used, ``UlpResult.summary()`` of the same lanes for the others."""
    fmt = summary["output_format"]
    rows = []
    for name, text in ulp.CONVENTIONS.items():
        row = {"convention": name, "definition": text, "used": name == summary["ulp_convention"]}
        if row["used"]:
            row.update(available=True, counted=summary["measured"], max=summary["max_ulp"],
                       mean=summary["mean_ulp"], exact_frac=summary["exact_frac"])
        else:
            expected = arrays["reference_value"] if name == "fractional" else arrays["expected"]
            try:
                other = ulp.distance(expected, arrays["actual"], name, fmt).summary()
            except ulp.UlpError as error:
                row.update(available=False, reason=str(error))
            else:
                row.update(available=True, counted=other["counted"], max=other["max"],
                           mean=other["mean"], exact_frac=other["exact_fraction"])
        rows.append(row)
    return rows


def _lane(arrays: dict, k: int, in_fmt: str, out_fmt: str) -> dict:
    return lane_row(arrays["x_bits"][k], arrays["actual"][k], arrays["expected"][k],
                    arrays["reference_value"][k], in_fmt=in_fmt, out_fmt=out_fmt,
                    ulp=arrays["distance"][k], kernel_ulp=arrays["kernel_distance"][k]
                    if arrays["kernel_counted"][k] else None)


def samples_at_max(summary: dict, arrays: dict, count: int = SAMPLES) -> list[dict]:
    """Up to ``count`` lanes at the maximum ULP, the simplest inputs first (fewest mantissa
    bits, then exponent nearest 0: 1.0, 2.0, 5.0 before 0.0003528), listed in input order.
    The tanh report shows such a table; the summary's ``samples_at_max`` are the first in
    bit order instead."""
    if summary["max_ulp"] is None:
        return []
    at_max = np.flatnonzero(arrays["counted"] & (arrays["distance"] == summary["max_ulp"]))
    x_bits = arrays["x_bits"][at_max].astype(np.int64)
    mantissa = x_bits & BF16.man_mask
    lowest = mantissa & -mantissa                                  # lowest set bit (0 if none)
    used = np.where(mantissa == 0, 0, BF16.man_bits - np.log2(np.maximum(lowest, 1)).astype(int))
    exponent = np.abs(((x_bits >> BF16.man_bits) & BF16.exp_max) - 127)
    order = np.lexsort((x_bits >> 15, exponent, used))[:count]
    chosen = at_max[order]
    chosen = chosen[np.argsort(arrays["x"][chosen], kind="stable")]
    return [_lane(arrays, int(k), "bf16", summary["output_format"]) for k in chosen]


def _histogram_rows(summary: dict) -> list[dict]:
    """The histogram as rows with shares; past ``HISTOGRAM_ROWS`` values the rest is one row
    (with an FP32 sweep's power-of-two bins of wide distances, ``histogram_wide``)."""
    measured = summary["measured"] or 1
    items = sorted(((int(k), v) for k, v in summary["histogram"].items()))
    rows = [{"ulp": k, "ulp_high": k, "count": v, "percent": 100.0 * v / measured}
            for k, v in items[:HISTOGRAM_ROWS]]
    rest = [(k, k, v) for k, v in items[HISTOGRAM_ROWS:]]
    rest += [(w["low"], w["high"], w["count"]) for w in summary.get("histogram_wide", [])]
    if rest:
        total = sum(v for _, _, v in rest)
        rows.append({"ulp": rest[0][0], "ulp_high": rest[-1][1], "count": total,
                     "percent": 100.0 * total / measured})
    return rows


def _binade_runs(summary: dict) -> list[dict]:
    """Consecutive binades with identical statistics collapsed into one row each."""
    runs: list[dict] = []
    for row in summary["binades"]:
        key = (row["max"], row["mean"], row["exact_frac"])
        last = runs[-1] if runs else None
        if (last is not None and last["_key"] == key and row["exponent"] is not None
                and last["exponent_high"] is not None
                and row["exponent"] == last["exponent_high"] + 1):
            last.update(exponent_high=row["exponent"], binades=last["binades"] + 1,
                        inputs=last["inputs"] + row["inputs"])
        else:
            runs.append({"_key": key, "exponent_low": row["exponent"],
                         "exponent_high": row["exponent"], "binades": 1,
                         "inputs": row["inputs"], "max": row["max"], "mean": row["mean"],
                         "exact_frac": row["exact_frac"]})
    for run in runs:
        del run["_key"]
        low, high = run["exponent_low"], run["exponent_high"]
        run["label"] = "0" if low is None else f"[2^{low}, 2^{high + 1})"
    return runs


def _zero_patterns(fmt: str) -> set[str]:
    return {hex_bits(0, fmt), hex_bits(formats.FORMATS[fmt].sign_mask, fmt)}


def _shares(summary: dict) -> dict:
    measured = summary["measured"]
    share = (lambda n: n / measured) if measured else (lambda n: None)
    nonfinite = summary["lane_classes"]["nonfinite_mismatch"]
    return {"within_1_frac": share(summary["within_1_count"]),
            "within_2_frac": share(summary["within_2_count"]),
            "beyond_1_count": measured - summary["within_1_count"],
            "beyond_1_frac": share(measured - summary["within_1_count"]),
            "nonfinite_mismatch": nonfinite,
            "nan_mismatch": summary["lane_classes"]["nan_mismatch"]}


def _verdicts(summary: dict, shares: dict) -> dict:
    """Flags the conclusions state, each with the rule that set it."""
    fractional = summary["ulp_convention"] == "fractional"
    max_ulp = summary["max_ulp"]
    if max_ulp is None:
        accuracy = "nothing-measured"
    elif max_ulp == 0:
        accuracy = "bit-exact"
    elif fractional and max_ulp < 1:
        accuracy = "faithful"
    elif max_ulp <= 1:
        accuracy = "within-one"
    else:
        accuracy = "beyond-one"
    denormals = summary["denormals"]
    zeros = _zero_patterns(summary["output_format"])
    nonzero = sum(n for bits, n in denormals["outputs"].items() if bits not in zeros)
    specials = summary["specials"]
    cross = summary["cross_verification"]
    added = summary["attribution"]["ending_added"]
    return {
        "accuracy": accuracy,
        "denormals_nonzero_outputs": nonzero,
        "denormals_flushed": nonzero == 0,
        "specials_bit_exact": sum(1 for s in specials if s["bit_exact"]),
        "specials_total": len(specials),
        "specials_nan_propagates": all(s["lane_class"] == "nan_both" for s in specials
                                       if s["expected"] == "nan"),
        "cross_verification_agrees": cross["agree"] == cross["pairs"],
        "cross_verification_disagree": cross["pairs"] - cross["agree"],
        "ending_adds_error": added["lanes_worse"] > 0,
        "ending_removes_error": added["lanes_better"] > 0,
        "complete_coverage": summary["measured"] + summary["unmeasurable"] == summary["count"],
        "hard_mismatches": shares["nonfinite_mismatch"] + shares["nan_mismatch"],
    }


def _worst_region(summary: dict) -> str | None:
    """The region with the largest maximum (ties: the largest mean), by name."""
    scored = [r for r in summary["regions"] if r["max"] is not None]
    if not scored:
        return None
    return max(scored, key=lambda r: (r["max"], r["mean"]))["region"]


def file_stem(summary: dict) -> str:
    """``<kernel>_<arch>_<dest>_<policy>``, plus the options that differ from the defaults."""
    parts = [summary["kernel"], summary["arch"], summary["dest"], summary["reference_rounding"]]
    if summary["ulp_convention"] != "daz-index":
        parts.append(summary["ulp_convention"])
    if summary["input_format"] != "bf16":
        parts.append(f"in-{summary['input_format']}")
    if summary["output_format"] != "bf16":
        parts.append(f"out-{summary['output_format']}")
    walk = summary.get("walk")                     # an FP32 sweep's inputs
    if walk:
        parts.append("exhaustive" if walk["kind"] == "exhaustive" else f"stride{walk['stride']}")
    return "_".join(parts) + Selection.from_dict(summary.get("selection")).stem_suffix


def command_line(summary: dict, kernel_dest: str | None = None) -> str:
    """The ``sfpu-sim report`` command that regenerates this report."""
    words = ["sfpu-sim", "report", summary["kernel"], "--arch", summary["arch"]]
    if summary["dest"] != (kernel_dest or summary["kernel_dest"]):
        words += ["--dest", summary["dest"]]
    if summary["input_format"] != "bf16":
        words += ["--in", summary["input_format"]]
    if summary["output_format"] != "bf16":
        words += ["--out-format", summary["output_format"]]
    if summary["reference_rounding"] != "rne":
        words += ["--reference-rounding", summary["reference_rounding"]]
    if summary["ulp_convention"] != "daz-index":
        words += ["--ulp", summary["ulp_convention"]]
    walk = summary.get("walk")
    if walk:
        words += ["--exhaustive"] if walk["kind"] == "exhaustive" else \
            ["--stride", str(walk["stride"])]
    words += Selection.from_dict(summary.get("selection")).options
    return " ".join(words)


def build(result) -> dict:
    """The model of one sweep (a :class:`~sfpu_sim.sweeps.SweepResult`)."""
    summary, arrays = result.summary, result.arrays
    if arrays is None:                             # an FP32 sweep: summary only
        return _build_fp32(summary)
    return _model(summary, "bf16", value_space(), 1 << 16, _conventions(summary, arrays),
                  samples_at_max(summary, arrays))


def from_summary(summary: dict) -> dict:
    """A model from a saved summary or report JSON (no per-lane arrays): what comparisons of
    saved files need. A report JSON is returned as it was written."""
    if "report" in summary:
        return summary
    shares = _shares(summary)
    extras = {"stem": file_stem(summary), "command": command_line(summary),
              "histogram_rows": _histogram_rows(summary),
              "binade_runs": _binade_runs(summary), "worst_region": _worst_region(summary),
              **shares}
    extras["verdicts"] = _verdicts(summary, shares)
    return jsonable({**summary, "report": extras})


# ---- FP32 input sweeps (sfpu-sim sweep|report KERNEL --in fp32) ----------------------------

FP32_PATTERNS = 1 << 32
NORMALS_PER_SIGN = 254 << 23
DENORMALS_PER_SIGN = (1 << 23) - 1


def fp32_value_space() -> list[dict]:
    """Every FP32 input pattern by category, with bit ranges and counts."""
    def h(bits):
        return hex_bits(bits, "fp32")
    rows = [
        ("negative normals", [[h(0x80800000), h(0xFF7FFFFF)]], NORMALS_PER_SIGN, True,
         "measured where the walk reaches them"),
        ("+0", [[h(0), h(0)]], 1, True, "measured; every denormal input and -0 read as zero "
                                        "(DAZ)"),
        ("positive normals", [[h(0x00800000), h(0x7F7FFFFF)]], NORMALS_PER_SIGN, True,
         "measured where the walk reaches them"),
        ("-0", [[h(0x80000000), h(0x80000000)]], 1, False,
         "reads as zero: checked under special values"),
        ("positive denormals", [[h(1), h(0x007FFFFF)]], DENORMALS_PER_SIGN, False,
         "read as +0 (DAZ): checked under denormal behaviour"),
        ("negative denormals", [[h(0x80000001), h(0x807FFFFF)]], DENORMALS_PER_SIGN, False,
         "read as -0 (DAZ): checked under denormal behaviour"),
        ("infinities", [[h(0x7F800000), h(0x7F800000)], [h(0xFF800000), h(0xFF800000)]], 2,
         False, "checked under special values"),
        ("NaNs", [[h(0x7F800001), h(0x7FFFFFFF)], [h(0xFF800001), h(0xFFFFFFFF)]],
         2 * DENORMALS_PER_SIGN, False, "checked under special values"),
    ]
    return [{"category": name, "count": count, "population": measured, "ranges": ranges,
             "note": note} for name, ranges, count, measured, note in rows]


def _fp32_conventions(summary: dict) -> list[dict]:
    rows = []
    for name, text in ulp.CONVENTIONS.items():
        if name == summary["ulp_convention"]:
            rows.append({"convention": name, "definition": text, "used": True,
                         "available": True, "counted": summary["measured"],
                         "max": summary["max_ulp"], "mean": summary["mean_ulp"],
                         "exact_frac": summary["exact_frac"]})
        else:
            rows.append({"convention": name, "definition": text, "used": False,
                         "available": False,
                         "reason": "an FP32 sweep streams its lanes: only the convention it "
                                   "measured is known"})
    return rows


def _build_fp32(summary: dict) -> dict:
    """The model of an FP32 sweep's summary (the keys :func:`build` gives): derived from the
    summary alone, since an FP32 sweep streams its lanes and keeps none (the value space
    counted, not enumerated; only the ``daz-index`` convention measured; the samples at the
    maximum are the summary's worst lanes)."""
    return _model(summary, "fp32", fp32_value_space(), FP32_PATTERNS,
                  _fp32_conventions(summary), summary["samples_at_max"][:SAMPLES])


def _model(summary, input_format: str, space, space_total: int, conventions, samples) -> dict:
    """The report model of a BF16 or an FP32 sweep: the summary plus what the report shows."""
    shares = _shares(summary)
    extras = {
        "stem": file_stem(summary),
        "command": command_line(summary),
        "input_facts": format_facts(input_format),
        "output_facts": format_facts(summary["output_format"]),
        "value_space": space,
        "value_space_total": space_total,
        "index_layout": index_layout(summary["output_format"]),
        "policies": [{"policy": name, "definition": text,
                      "used": name == summary["reference_rounding"]}
                     for name, text in reference.policies().items()],
        "conventions": conventions,
        "samples": samples,
        "histogram_rows": _histogram_rows(summary),
        "binade_runs": _binade_runs(summary),
        "worst_region": _worst_region(summary),
        **shares,
    }
    extras["verdicts"] = _verdicts(summary, shares)
    return jsonable({**summary, "report": extras})
