"""Side-by-side comparison of several sweeps: variants of a function, one kernel on both chips,
or a saved before/after pair of JSON summaries.

Owns: the comparison model (headline values, the pairs compared and their deltas, lane by
lane where both sides carry per-lane results, bucket and region tables, the special values that
differ, notes on what makes the items not comparable) and its Markdown block, meant for a
pull-request body; and the check that a saved summary has the shape a comparison reads (every
field of the kind it expects, :data:`_SUMMARY`), so a wrong one is one line naming the field.
Reads sweep models or saved summaries only; never runs a kernel.

Pairs: an item is compared with the first item on the same chip (variants of a kernel, or a
before/after pair); the first item on a chip with the first item of the same kernel (a chip
comparison). So with two kernels on both chips, A@wormhole is against B@wormhole and
A@blackhole against B@blackhole: no change column mixes a chip change with a kernel change
(a pair that would is flagged in the notes).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from sfpu_sim import lane_rows as lane_records
from sfpu_sim.formats import FORMATS
from sfpu_sim.jsonio import jsonable
from sfpu_sim.report import model as report_model
from sfpu_sim.report import numbers as N
from sfpu_sim.report.files import ReportError
from sfpu_sim.report.markdown import code, mean_over, region_range, table
from sfpu_sim.selection import REGION_NAMES, Selection

# Summary keys a saved JSON must have to be compared (the ``sweep --json`` contract).
# The first line is ``sweep --json``'s documented contract, the rest what a comparison reads.
REQUIRED = ("kernel", "arch", "dest", "reference_rounding", "ulp_convention", "count",
            "max_ulp", "mean_ulp", "p95", "p99", "exact_frac", "unmeasurable", "histogram",
            "buckets", "exact_count", "within_1_count", "worst", "regions", "attribution",
            "denormals", "specials",
            "tool", "function", "chip", "kernel_dest", "kernel_hash", "population",
            "input_format", "output_format", "measured", "within_2_count", "lane_classes",
            "binades", "cross_verification")
# Settings that change the numbers: items differing in one are flagged as not comparable
# (the selection and an FP32 sweep's walk: which inputs were measured).
SETTINGS = ("function", "reference_rounding", "ulp_convention", "population", "input_format",
            "output_format", "selection", "walk")

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
    """``data`` if it is a sweep summary or report JSON; else one clear error, naming the
    field whose value is not of the kind a comparison reads (:data:`_SUMMARY`)."""
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise ReportError(f"{source}: not an sfpu-sim sweep summary (missing keys: "
                          f"{', '.join(missing)})")
    problem = _SUMMARY.problem(data, "")
    if problem:
        raise ReportError(f"{source}: {problem}")
    return data


def check_stem(name: str | None, out) -> None:
    """``--name``, the file name stem of a comparison's files: they stay in --out."""
    separators = {"/", os.sep, os.altsep} - {None}
    if name is not None and (not name.strip() or ".." in name or "\0" in name
                             or any(sep in name for sep in separators)):
        raise ReportError(f"--name {name!r}: give a file name stem, without a path separator "
                          f"or '..' (the files are written in --out {out})")


def _setting(m: dict, key: str):
    """A setting as the notes show it: the selection and the walk by their text."""
    if key == "selection":
        return Selection.from_dict(m.get("selection")).text
    if key == "walk":
        return (m.get("walk") or {}).get("text")
    return m.get(key)


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
    ``lanes`` a :class:`~sfpu_sim.lane_rows.Lanes` or None."""
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
        seen = [_setting(m, key) for _, m, _ in models]
        if len(set(map(str, seen))) > 1:
            notes.append({"setting": key, "values": seen})
    first = models[0][1]
    # By label, not position: a file may list fewer buckets or special inputs than the first.
    by_bucket = [{b["bucket"]: b for b in m["buckets"]} for _, m, _ in models]
    buckets = [{"bucket": b["bucket"],
                "counts": [rows.get(b["bucket"], {}).get("count") for rows in by_bucket],
                "percents": [rows.get(b["bucket"], {}).get("percent") for rows in by_bucket]}
               for b in first["buckets"]]
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
    by_input = [{s["input"]: s for s in m["specials"]} for _, m, _ in models]
    for special in first["specials"]:
        outputs = [rows.get(special["input"], {"output": None, "output_bits": "n/a"})
                   for rows in by_input]
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


# --- The shape of a summary: what a comparison reads, so a wrong type is one line -------------

_NONFINITE = ("nan", "inf", "-inf")            # how jsonio.json_number writes them


def _kind_of(value) -> str:
    """A JSON value's kind in words, with a short scalar shown."""
    kinds = {bool: "true/false", str: "a string", int: "an integer", float: "a number",
             type(None): "null", list: "a list", dict: "an object"}
    kind = kinds.get(type(value), type(value).__name__)
    return kind if isinstance(value, (list, dict)) else f"{kind} ({json.dumps(value)[:40]})"


@dataclass(frozen=True)
class _Value:
    """A scalar: ``kinds`` among "string", "integer", "number" (JSON's non-finite strings
    only with ``nonfinite``), "boolean", "null"; no kinds: anything."""
    kinds: tuple = ()
    nonfinite: bool = False

    @property
    def expected(self) -> str:
        words = {"string": "a string", "integer": "an integer", "number": "a number",
                 "boolean": "true/false", "null": "null"}
        return " or ".join(words[k] for k in self.kinds)

    def problem(self, value, where: str) -> str | None:
        if not self.kinds:
            return None
        is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
        ok = {"string": isinstance(value, str), "boolean": isinstance(value, bool),
              "integer": is_number and isinstance(value, int), "null": value is None,
              "number": is_number or (self.nonfinite and value in _NONFINITE)}
        if any(ok[k] for k in self.kinds):
            return None
        return f"field {where}: expected {self.expected}, found {_kind_of(value)}"


@dataclass(frozen=True)
class _List:
    item: object
    length: int | None = None
    null: bool = False

    def problem(self, value, where: str) -> str | None:
        if value is None and self.null:
            return None
        if not isinstance(value, list) or (self.length and len(value) != self.length):
            size = f" of {self.length} items" if self.length else ""
            return (f"field {where}: expected a list{size}{' or null' if self.null else ''}, "
                    f"found {_kind_of(value)}")
        return _first(self.item.problem(item, f"{where}[{k}]") for k, item in enumerate(value))


def _first(problems) -> str | None:
    """The first problem found (checking stops there), or None."""
    return next((problem for problem in problems if problem), None)


@dataclass(frozen=True)
class _Object:
    """An object with at least ``fields`` (``optional`` ones may be absent); with ``each``,
    a mapping whose every value has that shape."""
    fields: dict = field(default_factory=dict)
    optional: dict = field(default_factory=dict)
    each: object = None

    def problem(self, value, where: str) -> str | None:
        if not isinstance(value, dict):
            return f"field {where or 'at the top'}: expected an object, found {_kind_of(value)}"
        prefix = f"{where}." if where else ""
        for name, shape in [*self.fields.items(), *self.optional.items()]:
            if name not in value:
                if name in self.fields:
                    return f"field {prefix}{name}: missing"
                continue
            problem = shape.problem(value[name], prefix + name)
            if problem:
                return problem
        return _first(self.each.problem(item, f"{where}[{json.dumps(key)}]")
                      for key, item in (value.items() if self.each is not None else ()))


@dataclass(frozen=True)
class _Choice:
    names: tuple
    null: bool = False

    def problem(self, value, where: str) -> str | None:
        if value in self.names or (value is None and self.null):
            return None
        return (f"field {where}: expected one of {', '.join(self.names)}"
                f"{' or null' if self.null else ''}, found {_kind_of(value)}")


_STRING, _INTEGER = _Value(("string",)), _Value(("integer",))
_MAYBE_NUMBER, _ANYTHING = _Value(("number", "null")), _Value()


class _Histogram(_Object):
    """ULP (an integer, as text) -> count."""

    def problem(self, value, where: str) -> str | None:
        problem = super().problem(value, where)
        if problem is None:
            for key in value:
                if not key.lstrip("-").isdigit():
                    return f"field {where}: key {json.dumps(key)} is not an integer ULP"
        return problem


_SUMMARY = _Object({
    **{k: _STRING for k in ("tool", "kernel", "function", "arch", "chip", "dest",
                            "kernel_dest", "kernel_hash", "reference_rounding",
                            "ulp_convention", "population", "input_format")},
    "output_format": _Choice(tuple(FORMATS)),
    **{k: _INTEGER for k in ("count", "measured", "unmeasurable", "exact_count",
                             "within_1_count", "within_2_count")},
    **{k: _MAYBE_NUMBER for k in ("max_ulp", "mean_ulp", "p95", "p99", "exact_frac")},
    "histogram": _Histogram(each=_INTEGER),
    "buckets": _List(_Object({"bucket": _STRING, "count": _INTEGER,
                              "percent": _MAYBE_NUMBER})),
    "worst": _List(_ANYTHING),
    "regions": _List(_Object({"region": _STRING, "low": _MAYBE_NUMBER, "high": _MAYBE_NUMBER,
                              "max": _MAYBE_NUMBER, "mean": _MAYBE_NUMBER,
                              "measured": _INTEGER})),
    "attribution": _Object({"ending_added": _Object({"lanes_worse": _INTEGER,
                                                     "lanes_better": _INTEGER})}),
    "denormals": _Object({"outputs": _Object(each=_INTEGER)}),
    "specials": _List(_Object({"input": _STRING, "output": _ANYTHING, "output_bits": _STRING,
                               "expected": _ANYTHING, "bit_exact": _Value(("boolean",)),
                               "lane_class": _STRING})),
    "lane_classes": _Object({"nonfinite_mismatch": _INTEGER, "nan_mismatch": _INTEGER}),
    "binades": _List(_Object({"exponent": _Value(("integer", "null")), "inputs": _INTEGER,
                              "max": _MAYBE_NUMBER, "mean": _MAYBE_NUMBER,
                              "exact_frac": _MAYBE_NUMBER})),
    "cross_verification": _Object({"agree": _INTEGER, "pairs": _INTEGER}),
}, optional={
    "selection": _Object(optional={"range": _List(_Value(("number",), nonfinite=True), 2,
                                                  null=True),
                                   "region": _Choice(REGION_NAMES, null=True)}),
    "walk": _Object({"kind": _STRING, "text": _STRING},
                    optional={"stride": _Value(("integer", "null"))}),
    "histogram_wide": _List(_Object({"low": _INTEGER, "high": _INTEGER, "count": _INTEGER})),
    "lanes": _Object({"encoding": _STRING, "count": _INTEGER}),
    "report": _Object({"within_1_frac": _MAYBE_NUMBER,
                       "verdicts": _Object({k: _INTEGER for k in (
                           "hard_mismatches", "denormals_nonzero_outputs",
                           "specials_bit_exact")})}),
})
