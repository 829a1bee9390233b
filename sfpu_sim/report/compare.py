"""Side-by-side comparison of several sweeps: variants of a function, one kernel on both chips,
or a saved before/after pair of JSON summaries.

Owns: the comparison model (headline values and their deltas against the first item, bucket
and region tables, the special values that differ, notes on what makes the items not
comparable) and its Markdown block, meant for a pull-request body. Reads sweep models or saved
summaries only; never runs a kernel.
"""
from __future__ import annotations

from sfpu_sim.report import model as report_model
from sfpu_sim.sweeps import jsonable
from sfpu_sim.report import numbers as N
from sfpu_sim.report.files import ReportError
from sfpu_sim.report.markdown import code, mean_over, region_range, table

# Summary keys a saved JSON must have to be compared (the ``sweep --json`` contract).
# The first line is ``sweep --json``'s documented contract, the rest what a comparison reads.
REQUIRED = ("kernel", "arch", "dest", "reference_rounding", "ulp_convention", "count",
            "max_ulp", "mean_ulp", "p95", "p99", "exact_frac", "unmeasurable", "histogram",
            "buckets", "exact_count", "within_1_count", "worst", "regions", "attribution",
            "denormals", "specials",
            "tool", "function", "chip", "kernel_dest", "kernel_hash", "population",
            "input_format", "output_format", "measured", "within_2_count", "lane_classes",
            "binades", "cross_verification")
# Settings that change the numbers: items differing in one are flagged as not comparable.
SETTINGS = ("function", "reference_rounding", "ulp_convention", "population", "input_format",
            "output_format")

# (key, label, kind): kind "ulp" (max-like), "mean", "fraction" (delta in points), "count".
HEADLINE = (("measured", "inputs measured", "count"), ("max_ulp", "max ULP", "ulp"),
            ("mean_ulp", "mean ULP", "mean"), ("p95", "p95 ULP", "ulp"),
            ("p99", "p99 ULP", "ulp"), ("exact_frac", "exact (ULP = 0)", "fraction"),
            ("within_1_frac", "within 1 ULP", "fraction"),
            ("unmeasurable", "unmeasurable lanes", "count"),
            ("hard_mismatches", "hard mismatches", "count"),
            ("denormals_nonzero_outputs", "denormal inputs giving non-zero", "count"),
            ("specials_bit_exact", "special inputs bit-exact", "count"))


def check_summary(data: dict, source: str) -> dict:
    """``data`` if it is a sweep summary or report JSON; else one clear error."""
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise ReportError(f"{source}: not an sfpu-sim sweep summary (missing keys: "
                          f"{', '.join(missing)})")
    return data


def _headline_value(m: dict, key: str):
    r = m["report"]
    if key in m:
        return m[key]
    if key in r:
        return r[key]
    return r["verdicts"][key]


def _delta(a, b, kind):
    if not (N.is_number(a) and N.is_number(b)):
        return None
    if kind == "fraction":
        return 100.0 * (b - a)          # percentage points
    return b - a


def build(items: list[tuple[str, dict, str]]) -> dict:
    """The comparison of ``items``: (label, sweep model or saved summary, source)."""
    models = [(label, report_model.from_summary(data), source) for label, data, source in items]
    labels = [label for label, _, _ in models]
    headline = []
    for key, label, kind in HEADLINE:
        values = [_headline_value(m, key) for _, m, _ in models]
        headline.append({"metric": key, "label": label, "kind": kind, "values": values,
                         "deltas": [None] + [_delta(values[0], v, kind) for v in values[1:]]})
    notes = []
    for key in SETTINGS:
        seen = [m.get(key) for _, m, _ in models]
        if len(set(map(str, seen))) > 1:
            notes.append({"setting": key, "values": seen})
    first = models[0][1]
    buckets = [{"bucket": b["bucket"],
                "counts": [m["buckets"][k]["count"] for _, m, _ in models],
                "percents": [m["buckets"][k]["percent"] for _, m, _ in models]}
               for k, b in enumerate(first["buckets"])]
    regions = []
    for k, region in enumerate(first["regions"]):
        rows = [m["regions"][k] if k < len(m["regions"]) and
                m["regions"][k]["region"] == region["region"] else None for _, m, _ in models]
        regions.append({"region": region["region"], "low": region["low"],
                        "high": region["high"],
                        "max": [g and g["max"] for g in rows],
                        "mean": [g and g["mean"] for g in rows],
                        "measured": [g and g["measured"] for g in rows]})
    specials = []
    for k, special in enumerate(first["specials"]):
        outputs = [m["specials"][k] for _, m, _ in models]
        if len({s["output_bits"] for s in outputs}) > 1:
            specials.append({"input": special["input"],
                             "outputs": [s["output"] for s in outputs],
                             "output_bits": [s["output_bits"] for s in outputs]})
    return jsonable({
        "kind": "sfpu-sim comparison", "tool": first.get("tool"), "labels": labels,
        "items": [{"label": label, "source": source, "summary": m}
                  for label, m, source in models],
        "headline": headline, "notes": notes, "buckets": buckets, "regions": regions,
        "specials_differing": specials})


def _format(value, kind) -> str:
    return {"count": N.count, "ulp": N.ulp, "mean": N.mean,
            "fraction": N.fraction}[kind](value) if value is not None else "n/a"


def _format_delta(delta, kind) -> str:
    if delta is None:
        return "n/a"
    if kind == "fraction":
        return N.points(delta)
    return N.signed(delta, N.mean if kind == "mean" else N.ulp)


def render(c: dict) -> str:
    """The Markdown block of a comparison (for a pull-request body)."""
    labels = c["labels"]
    items = c["items"]
    lines = [f"### sfpu-sim comparison: {' vs '.join(code(label) for label in labels)}", ""]
    for note in c["notes"]:
        shown = ", ".join(f"{code(label)}: {value}" for label, value in
                          zip(labels, note["values"]))
        lines.append(f"> **Not like for like:** {code(note['setting'])} differs ({shown}); "
                     "the numbers below are not directly comparable.")
    if c["notes"]:
        lines.append("")
    headers = [""] + [code(label) for label in labels] + \
              [f"change {code(label)}" for label in labels[1:]]
    rows = [["kernel hash"] + [code(i["summary"]["kernel_hash"]) for i in items]
            + [""] * (len(items) - 1),
            ["chip, Dst"] + [f"{i['summary']['chip']}, {i['summary']['dest'].upper()}"
                             for i in items] + [""] * (len(items) - 1)]
    for row in c["headline"]:
        kind = row["kind"]
        values = []
        for item, value in zip(items, row["values"]):
            if kind == "mean":
                values.append(mean_over(value, item["summary"]["measured"]))
            else:
                values.append(_format(value, kind))
        rows.append([row["label"]] + values + [_format_delta(d, kind) for d in row["deltas"][1:]])
    lines += table(headers, rows, "l" * (1 + len(items)) + "r" * (len(items) - 1)) + [""]

    lines += ["**ULP buckets** (count, share of the measured inputs)", ""]
    lines += table(["ULP"] + [code(label) for label in labels],
                   [[b["bucket"]] + [f"{N.count(n)} ({N.percent(p)})" for n, p in
                                     zip(b["counts"], b["percents"])] for b in c["buckets"]])
    lines += ["", "**Regions** (max ULP; mean ULP over the measured inputs)", ""]
    lines += table(["Region"] + [code(label) for label in labels],
                   [[f"{code(g['region'])} {region_range(g)}"] +
                    [f"{N.ulp(mx)}; {mean_over(mn, n)}" if n is not None else "n/a"
                     for mx, mn, n in zip(g["max"], g["mean"], g["measured"])]
                    for g in c["regions"]])
    lines.append("")
    if c["specials_differing"]:
        lines += ["**Special values that differ**", ""]
        lines += table(["Input"] + [code(label) for label in labels],
                       [[code(s["input"])] + [f"{N.value(v)} ({code(b)})" for v, b in
                                             zip(s["outputs"], s["output_bits"])]
                        for s in c["specials_differing"]])
        lines.append("")
    first = items[0]["summary"]
    lines += [f"<sub>{c['tool']}, emulated exhaustive sweeps (no device); reference "
              f"{code(first['reference_rounding'])}, ULP {code(first['ulp_convention'])} over "
              f"population {code(first['population'])}. Sources: "
              + ", ".join(f"{code(i['label'])} from {i['source']}" for i in items)
              + ".</sub>", ""]
    return "\n".join(lines)
