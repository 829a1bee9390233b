"""Side-by-side comparison of several sweeps: variants of a function, one kernel on both chips,
or a saved before/after pair of JSON summaries.

Owns: the comparison model (headline values, the pairs compared and their deltas, lane by
lane where both sides carry per-lane results, bucket and region tables, the special values that
differ, notes on what makes the items not comparable) and its Markdown block, meant for a
pull-request body. Reads sweep models or saved summaries only; never runs a kernel.

Pairs: an item is compared with the first item on the same chip (variants of a kernel, or a
before/after pair); the first item on a chip with the first item of the same kernel (a chip
comparison). So with two kernels on both chips, A@wormhole is against B@wormhole and
A@blackhole against B@blackhole: no change column mixes a chip change with a kernel change
(a pair that would is flagged in the notes).
"""
from __future__ import annotations

from sfpu_sim.jsonio import jsonable
from sfpu_sim.report import model as report_model
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


def pairs(keys: list[tuple[str, str]]) -> list[tuple[int, int, str]]:
    """(baseline, item, what changes) for items given as (kernel, chip); see the module
    docstring."""
    first_on_chip: dict[str, int] = {}
    out = []
    for i, (kernel, chip) in enumerate(keys):
        if chip in first_on_chip:
            j = first_on_chip[chip]
            out.append((j, i, "kernel" if keys[j][0] != kernel else "version"))
            continue
        first_on_chip[chip] = i
        if i == 0:
            continue
        same_kernel = [j for j in range(i) if keys[j][0] == kernel]
        out.append((same_kernel[0], i, "chip") if same_kernel else (0, i, "chip and kernel"))
    return out


def build(items: list[tuple]) -> dict:
    """The comparison of ``items``: (label, sweep model or saved summary, source[, lanes]),
    ``lanes`` a :class:`~sfpu_sim.lanes.Lanes` or None."""
    from sfpu_sim import lanes as lane_records

    models = [(item[0], report_model.from_summary(item[1]), item[2]) for item in items]
    records = [item[3] if len(item) > 3 else None for item in items]
    labels = [label for label, _, _ in models]
    compared = pairs([(m["kernel"], m["arch"]) for _, m, _ in models])
    headline = []
    for key, label, kind in HEADLINE:
        values = [_headline_value(m, key) for _, m, _ in models]
        headline.append({"metric": key, "label": label, "kind": kind, "values": values,
                         "deltas": [_delta(values[j], values[i], kind)
                                    for j, i, _ in compared]})
    pair_rows = []
    for j, i, what in compared:
        lanes = (lane_records.compare(records[j], records[i])
                 if records[j] is not None and records[i] is not None else None)
        pair_rows.append({"baseline": j, "item": i, "changes": what,
                          "label": f"{labels[i]} vs {labels[j]}", "lanes": lanes})
    notes = []
    for row in pair_rows:
        if row["changes"] == "chip and kernel":
            notes.append({"setting": "pairing", "values": [row["label"]]})
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
        "headline": headline, "pairs": pair_rows, "notes": notes, "buckets": buckets,
        "regions": regions, "specials_differing": specials})


def _format(value, kind) -> str:
    return {"count": N.count, "ulp": N.ulp, "mean": N.mean,
            "fraction": N.fraction}[kind](value) if value is not None else "n/a"


def _format_delta(delta, kind) -> str:
    if delta is None:
        return "n/a"
    if kind == "fraction":
        return N.points(delta)
    return N.signed(delta, N.mean if kind == "mean" else N.ulp)


def _lane_lines(pair_rows: list[dict]) -> list[str]:
    """Lane by lane: what changed, per pair, and the largest regressions."""
    lines = ["**Lane by lane** (inputs measured on both sides)", ""]
    rows = []
    for p in pair_rows:
        lanes = p["lanes"]
        if lanes is None:
            rows.append([code(p["label"]), "n/a (a side has no per-lane results: use sweeps "
                         "or `sweep --json` summaries)", "", "", "", ""])
            continue
        rows.append([code(p["label"]), N.count(lanes["compared"]), N.count(lanes["identical"]),
                     N.count(lanes["better"]), N.count(lanes["worse"]),
                     N.count(lanes["equal"])])
    lines += table(["Pair", "Lanes", "Bit-identical", "Better", "Worse",
                    "Same ULP, other bits"], rows, "lrrrrr") + [""]
    for p in pair_rows:
        regressions = (p["lanes"] or {}).get("largest_regressions") or []
        if regressions:
            lines += [f"Largest regressions, {code(p['label'])}:", ""]
            lines += table(["Input", "Before", "After"],
                           [[code(r["input_bits"]),
                             f"{code(r['before_bits'])} ({N.ulp(r['before_ulp'])} ULP)",
                             f"{code(r['after_bits'])} ({N.ulp(r['after_ulp'])} ULP)"]
                            for r in regressions], "lll") + [""]
    return lines


def render(c: dict) -> str:
    """The Markdown block of a comparison (for a pull-request body)."""
    labels = c["labels"]
    items = c["items"]
    lines = [f"### sfpu-sim comparison: {' vs '.join(code(label) for label in labels)}", ""]
    for note in c["notes"]:
        if note["setting"] == "pairing":
            lines.append(f"> **Not like for like:** {code(note['values'][0])} changes both "
                         "the chip and the kernel.")
            continue
        shown = ", ".join(f"{code(label)}: {value}" for label, value in
                          zip(labels, note["values"]))
        lines.append(f"> **Not like for like:** {code(note['setting'])} differs ({shown}); "
                     "the numbers below are not directly comparable.")
    if c["notes"]:
        lines.append("")
    pair_rows = c["pairs"]
    headers = [""] + [code(label) for label in labels] + \
              [f"change {code(p['label'])}" for p in pair_rows]
    blank = [""] * len(pair_rows)
    rows = [["kernel hash"] + [code(i["summary"]["kernel_hash"]) for i in items] + blank,
            ["chip, Dst"] + [f"{i['summary']['chip']}, {i['summary']['dest'].upper()}"
                             for i in items] + blank]
    for row in c["headline"]:
        kind = row["kind"]
        values = []
        for item, value in zip(items, row["values"]):
            if kind == "mean":
                values.append(mean_over(value, item["summary"]["measured"]))
            else:
                values.append(_format(value, kind))
        rows.append([row["label"]] + values + [_format_delta(d, kind) for d in row["deltas"]])
    lines += table(headers, rows, "l" * (1 + len(items)) + "r" * len(pair_rows)) + [""]
    lines += _lane_lines(pair_rows)

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
