"""The compact terminal view of a sweep (rich): headline table (with the inputs where the
function is not its own leading term), buckets, the per-binade table, worst cases, special
values and the verdicts. Reads the report model only; prints what the Markdown prints, fewer
of it.

The per-binade table is the Markdown's: binades of |x| (both signs together) with identical
statistics merged into one row. Past :data:`BINADE_ROWS` rows it folds: the rows with the
largest maximum (then mean) are kept, in axis order, and one last row counts what was left
out."""
from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from sfpu_sim.report import numbers as N
from sfpu_sim.report.markdown import conclusions, mean_over

WORST = 5
BINADE_ROWS = 12         # merged binade rows shown before the rest is folded into one


def render(m: dict):
    """A rich renderable of one sweep model."""
    r = m["report"]
    head = Table(title=f"{m['kernel']} on {m['chip']}: {m['function']}, Dst "
                       f"{m['dest'].upper()}, reference {m['reference_rounding']}, ULP "
                       f"{m['ulp_convention']}", show_header=False, title_justify="left")
    head.add_column("metric", style="bold")
    head.add_column("value")
    for label, value in (
            ("inputs measured", f"{N.count(m['measured'])} (population {m['population']}"
                                + (f", {m['selection']['text']})"
                                   if m.get("selection", {}).get("text", "every input")
                                   != "every input" else ")")),
            ("max ULP", N.ulp(m["max_ulp"])),
            ("mean ULP", mean_over(m["mean_ulp"], m["measured"])),
            ("p95 / p99", f"{N.ulp(m['p95'])} / {N.ulp(m['p99'])}"),
            ("exact", f"{N.count(m['exact_count'])} ({N.fraction(m['exact_frac'])})"),
            ("within 1 ULP", f"{N.count(m['within_1_count'])} "
                             f"({N.fraction(r['within_1_frac'])})"),
            ("unmeasurable", N.count(m["unmeasurable"])),
            *_leading_term_rows(m),
            ("instantiation", m.get("instantiation_note") or m["kernel"]),
            ("kernel hash", m["kernel_hash"])):
        head.add_row(label, value)

    buckets = Table(title="ULP buckets", title_justify="left")
    for b in m["buckets"]:
        buckets.add_column(b["bucket"], justify="right")
    buckets.add_row(*[N.count(b["count"]) for b in m["buckets"]])
    buckets.add_row(*[N.percent(b["percent"]) for b in m["buckets"]])

    worst = Table(title="worst cases", title_justify="left")
    for column in ("input", "output", "expected", "ULP", "kernel-only"):
        worst.add_column(column, justify="right")
    for w in m["worst"][:WORST]:
        worst.add_row(f"{N.value(w['input'])} {w['input_bits']}",
                      f"{N.value(w['output'])} {w['output_bits']}",
                      f"{N.value(w['expected'])} {w['expected_bits']}", N.ulp(w["ulp"]),
                      N.ulp(w["kernel_ulp"]))

    specials = Table(title="special values", title_justify="left")
    for column in ("input", "output", "expected", "bit-exact", "class"):
        specials.add_column(column)
    for s in m["specials"]:
        specials.add_row(s["input"], f"{N.value(s['output'])} {s['output_bits']}",
                         f"{N.value(s['expected'])} {s['expected_bits']}",
                         "yes" if s["bit_exact"] else Text("no", style="red"), s["lane_class"])

    # Plain strings, not Text: the console shows them as written (sfpu_sim.cli.output).
    verdicts = "\n".join("- " + c.replace("**", "").replace("`", "") for c in conclusions(m))
    return Group(head, buckets, _binade_table(r["binade_runs"]), worst, specials, verdicts)


def _leading_term_rows(m: dict) -> list[tuple[str, str]]:
    """One headline row for the leading-term population, where there is one."""
    view = m.get("leading_term")
    if not view or not view["leading_term_results"]:
        return []
    return [(f"{m['function']}(x) != {view['term']}",
             f"{N.count(view['measured'])} inputs: max {N.ulp(view['max'])}, mean "
             f"{N.mean(view['mean'])}, exact {N.fraction(view['exact_frac'])}")]


def _binade_table(runs: list[dict]) -> Table:
    table = Table(title="per binade of |x| (identical neighbours merged)", title_justify="left")
    for column in ("|x|", "binades", "inputs", "max ULP", "mean ULP", "exact"):
        table.add_column(column, justify="left" if column == "|x|" else "right")
    kept = set(sorted(range(len(runs)), key=lambda k: (runs[k]["max"] is None, -(
        runs[k]["max"] or 0), -(runs[k]["mean"] or 0), k))[:BINADE_ROWS])
    for k, run in enumerate(runs):
        if k in kept:
            table.add_row(run["label"], N.count(run["binades"]), N.count(run["inputs"]),
                          N.ulp(run["max"]), N.mean(run["mean"]), N.fraction(run["exact_frac"]))
    folded = [run for k, run in enumerate(runs) if k not in kept]
    if folded:
        table.add_row(f"{len(folded)} more rows, max <= "
                      f"{N.ulp(max((r['max'] or 0) for r in folded))}",
                      N.count(sum(r["binades"] for r in folded)),
                      N.count(sum(r["inputs"] for r in folded)), "", "", "")
    return table
