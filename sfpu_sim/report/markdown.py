"""The Markdown diagnostic report of one sweep, after Tenstorrent's hand-written "Tanh
BFloat16 ULP Precision Diagnostic Report" (tt-metal tests/ttnn/unit_tests/gtests/
TANH_ULP_DIAGNOSTIC_REPORT.md, Jan 2026), every section generated from the report model.

Owns: the sections, their order and their sentences. Knows nothing of how numbers are computed
(:mod:`sfpu_sim.report.model`) or printed (:mod:`sfpu_sim.report.numbers`): every number here
is a model number through a formatter, so the JSON holds each of them (tests pin this).
"""
from __future__ import annotations

from sfpu_sim.display import printable
from sfpu_sim.report import numbers as N


def table(headers: list[str], rows: list[list], align: str | None = None) -> list[str]:
    """A Markdown table; ``align``: one of l/r per column (default: first left, rest right)."""
    align = align or "l" + "r" * (len(headers) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    def cells(row):
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |"

    lines = [cells(headers), "| " + " | ".join(rule) + " |"]
    lines += [cells(row) for row in rows]
    return lines


def code(text: str) -> str:
    return f"`{text}`"


def mean_over(mean, population, what: str = "inputs") -> str:
    """A mean with its population, as every mean is printed: ``0.0474 over 65,025 inputs``."""
    return f"{N.mean(mean)} over {N.count(population)} {what}"


def inputs(n) -> str:
    return f"{N.count(n)} input{'' if n == 1 else 's'}"


def count_share(count, fraction) -> str:
    return f"{N.count(count)} ({N.fraction(fraction)})"


def region_range(region: dict) -> str:
    if "text" in region:
        return region["text"]
    low, high = region["low"], region["high"]
    if region["region"] == "near_zero":
        return f"|x| < {N.bound(high)}" if low is None else \
            f"{N.bound(low)} <= |x| < {N.bound(high)}"
    if low is None:
        return f"x < {N.bound(high)}"
    if high is None:
        return f"x >= {N.bound(low)}"
    return f"[{N.bound(low)}, {N.bound(high)})"


def _value_cell(value, bits) -> str:
    return f"{N.value(value)} ({code(bits)})"


# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------

def _title(m: dict) -> list[str]:
    out_fmt = m["output_format"].upper()
    return [f"# {m['function']} {out_fmt} ULP precision diagnostic: {code(m['kernel'])} on "
            f"{m['chip']}", "", f"> **Key finding:** {_key_finding(m)}", ""]


def _key_finding(m: dict) -> str:
    r, v = m["report"], m["report"]["verdicts"]
    out_fmt = m["output_format"].upper()
    head = f"max ULP {N.ulp(m['max_ulp'])} over {N.count(m['measured'])} inputs"
    if v["accuracy"] == "bit-exact":
        return f"{head}: every result is bit-exact against the reference."
    if v["accuracy"] == "within-one":
        return f"{head}: every result is exact or the neighbouring {out_fmt} value."
    if v["accuracy"] == "faithful":
        return f"{head}: every result is one of the two {out_fmt} values around the exact one."
    if v["accuracy"] == "nothing-measured":
        return "no lane could be measured."
    worst = m["worst"][0]
    return (f"{head} (worst input {N.value(worst['input'])}); "
            f"{inputs(r['beyond_1_count'])} ({N.fraction(r['beyond_1_frac'])}) "
            f"{'is' if r['beyond_1_count'] == 1 else 'are'} more than 1 ULP away.")


def _executive(m: dict) -> list[str]:
    r = m["report"]
    rows = [
        ["Kernel", f"{code(m['kernel'])} ({m['mode']}), hash {code(m['kernel_hash'])}"],
        ["Chip", f"{m['chip']} ({code(m['arch'])})"],
        ["Device path", f"input {m['input_format'].upper()}, Dst {_dst_cells(m)}, "
                        f"output {m['output_format'].upper()}"],
        ["Reference", f"{code(m['function'])}, policy {code(m['reference_rounding'])}, "
                      f"{m['reference_backend']} ({N.count(m['reference_precision_bits'])} "
                      f"bits)"],
        ["ULP convention", code(m["ulp_convention"])],
        *([["Inputs selected", f"{m['selection']['text']}: {N.count(m['count'])} inputs of "
                               f"population {code(m['population'])}"]]
           if m.get("selection") and m["selection"]["text"] != "every input" else []),
        ["Inputs measured", f"{N.count(m['measured'])} of {N.count(m['count'])} "
                            f"(population {code(m['population'])}: {m['population_text']})"],
        ["Denormal inputs checked", N.count(m["denormals"]["inputs"])],
        ["Special inputs checked", N.count(r["verdicts"]["specials_total"])],
        ["Maximum ULP error", N.ulp(m["max_ulp"])],
        ["Mean ULP error", mean_over(m["mean_ulp"], m["measured"])],
        ["p95 / p99", f"{N.ulp(m['p95'])} / {N.ulp(m['p99'])} over {N.count(m['measured'])} "
                      "inputs"],
        ["Exact results (ULP = 0)", count_share(m["exact_count"], m["exact_frac"])],
        ["Results within 1 ULP", count_share(m["within_1_count"], r["within_1_frac"])],
        ["Unmeasurable lanes", N.count(m["unmeasurable"])],
        ["Hard mismatches (finite vs non-finite, NaN vs number)",
         N.count(r["verdicts"]["hard_mismatches"])],
    ]
    return ["## Executive summary", "", *table(["Metric", "Value"], rows, "ll"), ""]


def _background(m: dict) -> list[str]:
    r = m["report"]
    lines = ["## Background", ""]
    facts = [r["input_facts"]]
    if r["output_facts"]["name"] != r["input_facts"]["name"]:
        facts.append(r["output_facts"])
    for f in facts:
        lines += [f"### {f['name']} format", "",
                  f"{f['name']} is a {N.count(f['width'])}-bit floating-point format: "
                  f"{N.count(f['sign_bits'])} sign bit, {N.count(f['exponent_bits'])} exponent "
                  f"bits, {N.count(f['mantissa_bits'])} mantissa bits. Its largest finite value "
                  f"is {_value_cell(f['max_finite'], f['max_finite_bits'])}, its smallest "
                  f"normal {_value_cell(f['min_normal'], f['min_normal_bits'])}; below that "
                  f"lie {N.count(f['denormals_per_sign'])} denormals of each sign.", ""]
    out_fmt = m["output_format"].upper()
    lines += [
        "### ULP (units in the last place)", "",
        f"A ULP distance counts the representable {out_fmt} values between a result and its "
        "reference: ULP = 0 is an exact match, ULP = 1 the neighbouring value (the best a "
        "result can be when it is not exact), ULP = 2 one value in between. How the steps "
        "are counted across zero, denormals and infinities differs between tools; this report "
        f"uses {code(m['ulp_convention'])} and shows the other conventions on the same lanes "
        "(Methodology).", "",
        "### DAZ and FTZ (denormals are zero, flush to zero)", "",
        "The SFPU reads a denormal input as a zero of its sign (DAZ) and its stores flush a "
        "denormal result to zero (FTZ): `tech_reports/Handling_Special_Value/special_values.md` "
        "lists denormals as flushed on every path. Under DAZ and FTZ every denormal pattern is "
        f"the value zero, so the {N.count(m['denormals']['inputs'])} denormal inputs are "
        "checked separately (Denormal behaviour) and the reference flushes denormal results "
        "the same way.", ""]
    return lines


def _methodology(m: dict) -> list[str]:
    r = m["report"]
    lines = ["## Methodology", "", f"### {r['input_facts']['name']} value space", ""]
    rows = []
    for row in r["value_space"]:
        bits = ", ".join(code(a) if a == b else f"{code(a)}-{code(b)}" for a, b in row["ranges"])
        rows.append([row["category"], bits, N.count(row["count"]),
                     "yes" if row["population"] else "no", row["note"]])
    rows.append([f"**measured (population {code(m['population'])})**", "",
                 f"**{N.count(m['count'])}**", "", m["population_text"]])
    rows.append(["**all patterns**", "", f"**{N.count(r['value_space_total'])}**", "", ""])
    lines += table(["Category", "Bits", "Count", "Measured", "Note"], rows, "llrll") + [""]

    lines += ["### Device path", "",
              "The emulated device path each input takes (the sweep models every step):", ""]
    lines += [f"1. {step}" for step in m["device_path"]] + [""]

    cross = m["cross_verification"]
    lines += ["### ULP calculation", "",
              f"Convention: {code(m['ulp_convention'])}, {m['ulp_convention_text']}. "
              + ("Two independent computations of the value-order index are run on every "
                 "measured pair (Cross-verification):" if not m.get("walk") else
                 "The streaming distance is checked against two independent computations of "
                 "the value-order index on a fixed sample of lanes (Cross-verification):"),
              "",
              *[f"- **Method {k}:** {_method(text)}"
                for k, text in enumerate(cross["methods"], start=1)], "",
              f"Index layout of {r['output_facts']['name']} under DAZ/FTZ:", ""]
    lines += table(["Value", "Bits", "Index"],
                   [[row["label"], code(row["bits"]), N.count(row["index"])]
                    for row in r["index_layout"]], "llr") + [""]
    lines += _conventions(m)

    lines += ["### Reference calculation", ""]
    lines += [f"1. {step}" for step in _reference_steps(m)] + [""]
    lines += ["Policies (the one used is marked); reports that differ in policy differ in "
              "their numbers even on the same device output:", ""]
    lines += table(["Policy", "Definition", "Used"],
                   [[code(p["policy"]), p["definition"], "**yes**" if p["used"] else ""]
                    for p in r["policies"]], "lll") + [""]
    return lines


def _method(text: str) -> str:
    """``"bitwise formula: sign * ..."`` -> ``bitwise formula: `sign * ...```."""
    name, sep, formula = text.partition(": ")
    return f"{name}: {code(formula)}" if sep else text


def _reference_steps(m: dict) -> list[str]:
    backend = m["reference_backend"]
    how = ("in ball arithmetic (python-flint arb), raising the precision until both ends of "
           "the ball round alike (Ziv): the rounding is proven" if backend == "flint" else
           f"with {backend} at two precisions that must agree: checked, not proven")
    if "reference_refinements" in m:                # an FP32 sweep (sfpu_sim.fp32sweep)
        refined = m["reference_refinements"]
        how = (f"as a proven float64 enclosure, decided where both ends round alike (every "
               f"policy is monotone); {N.count(refined['lanes'])} of "
               f"{N.count(refined['of_walked'])} inputs were not decided so and were "
               f"refined: certified in arb ball arithmetic (Ziv) instead")
    steps = []
    if m["daz_inputs"]:
        steps.append("DAZ: a denormal input reads as a zero of its sign.")
    steps += [f"Evaluate {code(m['function'])} exactly {how}; the largest working precision "
              f"any input needed was {N.count(m['reference_precision_bits'])} bits.",
              f"Round under policy {code(m['reference_rounding'])}: "
              f"{m['reference_policy_text']}."]
    if m["ftz_reference"]:
        steps.append("FTZ: a denormal result becomes a zero of its sign.")
    steps.append(f"Compare with the emulated device output under {code(m['ulp_convention'])}.")
    return steps


def _results(m: dict) -> list[str]:
    r = m["report"]
    out = m["output_format"].upper()
    kind = _sweep_kind(m)
    lines = ["## Results", "", f"### {kind.capitalize()} sweep", "", "```",
             f"{kind.upper()} {out} SWEEP RESULTS - {m['function']} ({m['kernel']} on "
             f"{m['chip']})",
             f"Total values tested: {N.count(m['measured'])}",
             f"Max ULP: {N.ulp(m['max_ulp'])}",
             f"Mean ULP: {mean_over(m['mean_ulp'], m['measured'])}",
             f"p95 / p99: {N.ulp(m['p95'])} / {N.ulp(m['p99'])}",
             f"ULP = 0: {count_share(m['exact_count'], m['exact_frac'])}",
             f"ULP <= 1: {count_share(m['within_1_count'], r['within_1_frac'])}",
             f"ULP <= 2: {count_share(m['within_2_count'], r['within_2_frac'])}",
             f"Unmeasurable: {N.count(m['unmeasurable'])}", "```", ""]

    lines += ["### ULP distribution", ""]
    rows = [[N.ulp(h["ulp"]) if h["ulp"] == h["ulp_high"] else
             f"{N.ulp(h['ulp'])} to {N.ulp(h['ulp_high'])}", N.count(h["count"]),
             N.percent(h["percent"])] for h in r["histogram_rows"]]
    lines += table(["ULP", "Count", "Percentage"], rows) + [""]
    if m["ulp_convention"] == "fractional":
        lines += ["Fractional distances are counted in whole steps, rounded up (a part of a "
                  "step counts in row 1).", ""]
    lines += ["Buckets (the 0 / 1 / 2 / 3-10 / 11-100 / >100 table of PR reviews):", ""]
    lines += table(["ULP", "Count", "Percentage"],
                   [[b["bucket"], N.count(b["count"]), N.percent(b["percent"])]
                    for b in m["buckets"]]) + [""]

    title = ("### Samples at the maximum ULP" if m["max_ulp"] else "### Samples (all exact)")
    lines += [title, "", "Simplest inputs among those at the maximum (fewest mantissa bits).",
              ""]
    lines += _lanes_table(r["samples"]) + [""]
    lines += ["### Worst cases", "",
              "The largest distances (ties in bit order); the JSON lists more.", ""]
    lines += _lanes_table(m["worst"][:10]) + [""]

    lines += ["### Regions", ""]
    lines += table(["Region", "Inputs", "Max ULP", "Mean ULP (over measured)", "Exact"],
                   [[f"{code(g['region'])} {region_range(g)}", N.count(g["inputs"]),
                     N.ulp(g["max"]), mean_over(g["mean"], g["measured"]),
                     N.fraction(g["exact_frac"])] for g in m["regions"]], "lrrrr") + [""]

    lines += ["### Per binade of |x|", "",
              "Binades with identical statistics are merged; the JSON has one row per binade.",
              ""]
    lines += table(["|x|", "Binades", "Inputs", "Max ULP", "Mean ULP (over inputs)", "Exact"],
                   [[b["label"], N.count(b["binades"]), N.count(b["inputs"]), N.ulp(b["max"]),
                     mean_over(b["mean"], b["inputs"]), N.fraction(b["exact_frac"])]
                    for b in r["binade_runs"]], "lrrrrr") + [""]
    lines += _leading_term(m)

    lines += _denormals(m) + _specials(m) + _cross(m) + _attribution(m)
    if isinstance(m.get("cost"), dict):
        lines += _cost(m["cost"])
    return lines


def _leading_term(m: dict) -> list[str]:
    """The inputs where the function is not its own leading term (``sweep_views``)."""
    view, f = m.get("leading_term"), m["function"]
    lines = [f"### Where {f} is not its own leading term", ""]
    if "leading_term" not in m:
        return lines + ["Not tallied by this sweep (an FP32 sweep or an older summary).", ""]
    if view is None:
        return lines + [f"{f} has no meaningful leading term (a monomial, piecewise or "
                        f"discontinuous function): no such population.", ""]
    term = f"{code(view['term'])} (at {view['point']}: {code(view['series'])})"
    if not view["leading_term_results"]:
        return lines + [f"The leading term {term} is the correctly rounded result at no "
                        f"measured input: no such population.", ""]
    lines += [f"Measured inputs where the correctly rounded {f}(x) differs from the correctly "
              f"rounded leading term {term}, rounded the same way; at the other "
              f"{inputs(view['leading_term_results'])} the leading term is the result, so a "
              f"kernel that returns it is exact there without computing {f}.", ""]
    return lines + table(["Population", "Inputs", "Max ULP", "Mean ULP (over inputs)", "Exact"],
                         [[f"{f}(x) != {view['term']}", N.count(view["measured"]),
                           N.ulp(view["max"]), mean_over(view["mean"], view["measured"]),
                           N.fraction(view["exact_frac"])]], "lrrrr") + [""]


def _sweep_kind(m: dict) -> str:
    """``exhaustive``, or ``strided`` for an FP32 sweep that samples the value order."""
    walk = m.get("walk")
    return "strided" if walk and walk["kind"] == "strided" else "exhaustive"


def _lanes_table(rows: list[dict]) -> list[str]:
    return table(["Input", "Device output", "Expected", "Reference (exact)", "ULP",
                  "Kernel-only ULP"],
                 [[_value_cell(w["input"], w["input_bits"]),
                   _value_cell(w["output"], w["output_bits"]),
                   _value_cell(w["expected"], w["expected_bits"]), N.real(w["reference"]),
                   N.ulp(w["ulp"]), N.ulp(w["kernel_ulp"])] for w in rows], "llllrr")


def _denormals(m: dict) -> list[str]:
    d, v = m["denormals"], m["report"]["verdicts"]
    ranges = [row["ranges"] for row in m["report"].get("value_space", [])
              if "denormals" in row["category"]]
    where = ", ".join(f"{a}-{b}" for rs in ranges for a, b in rs)
    outputs = ", ".join(f"{bits} x {N.count(n)}" for bits, n in d["outputs"].items())
    verdict = ("all produce zero (DAZ verified)" if v["denormals_flushed"] else
               f"{N.count(v['denormals_nonzero_outputs'])} produce a non-zero output "
               "(DAZ NOT verified)")
    return ["### Denormal behaviour (DAZ verification)", "", "```",
            f"Denormal inputs{f' ({where})' if where else ''}: {N.count(d['inputs'])} tested",
            f"  Outputs: {outputs}",
            f"  Non-zero outputs: {N.count(v['denormals_nonzero_outputs'])}/"
            f"{N.count(d['inputs'])}",
            f"  Expected (reference of a signed zero, FTZ): {', '.join(d['expected_outputs'])}",
            f"  Bit-identical to expected: {N.count(d['match_expected'])}/"
            f"{N.count(d['inputs'])}",
            f"  Result: {verdict}", "```", ""]


def _specials(m: dict) -> list[str]:
    rows = [[code(s["input"]), code(s["input_bits"]), _value_cell(s["output"], s["output_bits"]),
             _value_cell(s["expected"], s["expected_bits"]), "yes" if s["bit_exact"] else "no",
             N.ulp(s["ulp"]), s["lane_class"]] for s in m["specials"]]
    return ["### Special values", "",
            *table(["Input", "Bits", "Device output", "Expected", "Bit-exact", "ULP", "Class"],
                   rows, "lllllrl"), "", _specials_sentence(m), ""]


def _specials_sentence(m: dict) -> str:
    v = m["report"]["verdicts"]
    text = (f"{N.count(v['specials_bit_exact'])} of {N.count(v['specials_total'])} special "
            "inputs give the reference's bits exactly.")
    differing = [s for s in m["specials"] if not s["bit_exact"]]
    if differing:
        text += " Differing: " + "; ".join(
            f"{s['input']} gives {N.value(s['output'])} where the reference is "
            f"{N.value(s['expected'])}" + (" (equal as values)" if s["ulp"] == 0 else "")
            for s in differing) + "."
    if not v["specials_nan_propagates"]:
        text += " NaN inputs do not propagate as NaN."
    return text


def _cross(m: dict) -> list[str]:
    c, v = m["cross_verification"], m["report"]["verdicts"]
    verdict = ("Both methods give identical distances on every pair." if
               v["cross_verification_agrees"] else
               f"The methods DISAGREE on {N.count(v['cross_verification_disagree'])} pairs.")
    return ["### Cross-verification of ULP methods", "",
            f"Pairs compared: {N.count(c['pairs'])}; identical distances: "
            f"{N.count(c['agree'])}. {verdict}", ""]


def _attribution(m: dict) -> list[str]:
    a = m["attribution"]
    added = a["ending_added"]
    rows = []
    for label, s in (("kernel's FP32 result, rounded to nearest even", a["kernel"]),
                     ("device output (after SFPSTORE and the packer)", a["device"])):
        rows.append([label, N.ulp(s["max"]), mean_over(s["mean"], s["measured"], "lanes"),
                     N.fraction(s["exact_frac"])])
    hist = ", ".join(f"{k}: {N.count(n)}" for k, n in added["histogram"].items())
    return ["### Error attribution: kernel vs device ending", "", f"{a['definition']}.", "",
            *table(["Result", "Max ULP", "Mean ULP (over lanes)", "Exact"], rows), "",
            f"Lanes the ending makes worse: {N.count(added['lanes_worse'])}, better: "
            f"{N.count(added['lanes_better'])}, unchanged: {N.count(added['lanes_same'])} "
            f"(of {N.count(a['lanes'])}); most added: {N.ulp(added['max_added'])} ULP. "
            f"|added| histogram: {hist}.", ""]


def _conventions(m: dict) -> list[str]:
    rows = []
    for c in m["report"]["conventions"]:
        name = f"**{code(c['convention'])}** (used)" if c["used"] else code(c["convention"])
        if c["available"]:
            rows.append([name, c["definition"], N.ulp(c["max"]),
                         mean_over(c["mean"], c["counted"], "lanes"), N.fraction(c["exact_frac"])])
        else:
            rows.append([name, c["definition"], "n/a", c["reason"], ""])
    return ["### Why other conventions give other numbers", "",
            "The measured lanes of this sweep under every convention sfpu-sim knows. "
            "Published figures disagree mostly because of the convention: "
            "`daz-index-legacy-129` places the negative half further from zero, `fractional` "
            "divides by the spacing at the unrounded reference (so a correctly rounded result "
            "reads below 1, and a flushed result next to the smallest normal reads large), "
            "`raw-int16` subtracts raw 16-bit integers (a step across zero counts thousands).",
            "", *table(["Convention", "Definition", "Max", "Mean (over counted)", "Exact"],
                       rows, "llrrr"), ""]


def _cost(cost: dict) -> list[str]:
    """The static cost estimate a later issue adds to the summary: flattened to rows."""
    rows = []

    def walk(prefix, value):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for k, v in enumerate(value):
                walk(f"{prefix}[{k}]", v)
        else:
            rows.append([code(prefix), N.ulp(value) if N.is_number(value) else str(value)])

    walk("", cost)
    return ["### Estimated cost (static, not measured cycles)", "",
            *table(["Item", "Estimate"], rows, "lr"), ""]


def _dst_cells(m: dict) -> str:
    """The Dst mode as the path uses it: a 16-bit Dst holds the input's 16-bit format."""
    if m["dest"] == "bf16" and m["input_format"] == "fp16":
        return "16-bit (FP16 cells)"
    return m["dest"].upper()


def _kernel(m: dict) -> list[str]:
    listing = m["program"]["listing"]
    return ["## The kernel", "",
            f"- Name: {code(m['kernel'])}, mode {m['mode']}, written for a "
            f"{m['kernel_dest'].upper()} Dst",
            f"- Instantiation: {m.get('instantiation_note') or m['kernel']}",
            f"- Provenance: {m['provenance']}",
            f"- Description: {m['description']}",
            f"- Instruction stream hash: {code(m['kernel_hash'])}, "
            f"{N.count(m['program']['instructions'])} instructions", "",
            *table(["Word", "Instruction", "Source"],
                   [[code(i["word"]), code(i["text"]), code(i["source"] or "")]
                    for i in listing], "lll"), ""]


def conclusions(m: dict) -> list[str]:
    """The conclusions, each a rule over the model's numbers and verdicts."""
    r, v = m["report"], m["report"]["verdicts"]
    out_fmt = m["output_format"].upper()
    items = []
    accuracy = v["accuracy"]
    if accuracy == "bit-exact":
        items.append(f"**Bit-exact:** max ULP 0: all {N.count(m['measured'])} results equal "
                     "the reference.")
    elif accuracy == "within-one":
        items.append(f"**Max ULP {N.ulp(m['max_ulp'])}:** every result is exact or the "
                     f"neighbouring {out_fmt} value.")
    elif accuracy == "faithful":
        items.append(f"**Max {N.ulp(m['max_ulp'])} ULP (fractional) below 1:** every result "
                     f"is one of the two {out_fmt} values around the exact one.")
    elif accuracy == "beyond-one":
        w = m["worst"][0]
        items.append(f"**Max ULP {N.ulp(m['max_ulp'])}** at input {N.value(w['input'])} "
                     f"({code(w['input_bits'])}): output {N.value(w['output'])} where "
                     f"{N.value(w['expected'])} is expected; {inputs(r['beyond_1_count'])} "
                     f"({N.fraction(r['beyond_1_frac'])}) "
                     f"{'is' if r['beyond_1_count'] == 1 else 'are'} more than 1 ULP away.")
    if m["measured"]:
        items.append(f"**Distribution:** {N.fraction(m['exact_frac'])} of results are exact "
                     f"({N.count(m['exact_count'])} of {N.count(m['measured'])}); mean "
                     f"{mean_over(m['mean_ulp'], m['measured'])}, p99 "
                     f"{N.ulp(m['p99'])}.")
    region = next((g for g in m["regions"] if g["region"] == r["worst_region"]), None)
    if region is not None and region["max"]:
        items.append(f"**Where:** the largest errors are in region {code(region['region'])} "
                     f"({region_range(region)}): max {N.ulp(region['max'])}, mean "
                     f"{mean_over(region['mean'], region['measured'])}.")
    d = m["denormals"]
    if v["denormals_flushed"]:
        items.append(f"**DAZ verified:** all {N.count(d['inputs'])} denormal inputs produce "
                     "zero.")
    else:
        items.append(f"**DAZ not verified:** {N.count(v['denormals_nonzero_outputs'])} of "
                     f"{N.count(d['inputs'])} denormal inputs produce a non-zero output.")
    items.append(f"**Special values:** {_specials_sentence(m)}")
    a = m["attribution"]
    added = a["ending_added"]
    if v["ending_adds_error"]:
        items.append(f"**Attribution:** SFPSTORE and the packer make "
                     f"{N.count(added['lanes_worse'])} of {N.count(a['lanes'])} lanes worse "
                     f"(by up to {N.ulp(added['max_added'])} ULP): the kernel's own result "
                     f"has max {N.ulp(a['kernel']['max'])}, the device output max "
                     f"{N.ulp(a['device']['max'])}.")
    else:
        items.append(f"**Attribution:** the device ending (SFPSTORE, packer) adds no error; "
                     f"the kernel's own FP32 result, rounded to nearest, already has max "
                     f"{N.ulp(a['kernel']['max'])}, mean "
                     f"{mean_over(a['kernel']['mean'], a['kernel']['measured'], 'lanes')}.")
    if v["ending_removes_error"]:
        items.append(f"**Attribution:** on {N.count(added['lanes_better'])} lanes the ending "
                     "lands nearer the reference than rounding the kernel's result to "
                     "nearest would.")
    items.append("**Verification:** both ULP methods agree on every pair." if
                 v["cross_verification_agrees"] else
                 "**Verification:** the two ULP methods DISAGREE; the distances are suspect.")
    selected = m.get("selection") and m["selection"]["text"] != "every input"
    coverage = (f"**Coverage:** all {N.count(m['count'])} inputs of population "
                f"{code(m['population'])}"
                + (f" with {m['selection']['text']}" if selected else "")
                + (f" measured, from {m['walk']['text']}" if m.get("walk")
                   else " measured, no sampling"))
    if m["unmeasurable"]:
        coverage += f"; {N.count(m['unmeasurable'])} lanes unmeasurable"
    if v["hard_mismatches"]:
        coverage += (f"; {N.count(v['hard_mismatches'])} hard mismatches (finite against "
                     "non-finite, or NaN against a number), never averaged in")
    items.append(coverage + ".")
    return items


def _footer(m: dict) -> list[str]:
    r = m["report"]
    return ["---", "",
            f"*Generated by {m['tool']} from an emulated {_sweep_kind(m)} sweep (no device). "
            f"Chip: {m['chip']}. Kernel: {code(m['kernel'])}, hash {code(m['kernel_hash'])}. "
            f"Reference: {m['reference_backend']}, {N.count(m['reference_precision_bits'])} "
            f"bits, policy {code(m['reference_rounding'])}. ULP: {code(m['ulp_convention'])} "
            f"over population {code(m['population'])}. Regenerate: {code(r['command'])}.*", ""]


def render(m: dict, figure: str | None = None) -> str:
    """The Markdown report of one sweep model (:func:`sfpu_sim.report.model.build`);
    ``figure``: the file name of its PNG, linked at the top of the results."""
    results = _results(m)
    if figure:
        results[2:2] = [f"![ULP error over the input range, output vs reference]({figure})", ""]
    lines = (_title(m) + _executive(m) + _background(m) + _methodology(m) + results
             + _kernel(m) + ["## Conclusions", ""] + [f"- {c}" for c in conclusions(m)]
             + [""] + _footer(m))
    # Every line is built here; a control byte or newline inside one can only come from a
    # user's string (a provenance, a file name) and would act on a terminal or end the line.
    return "\n".join(printable(line, newlines=False) for line in lines)
