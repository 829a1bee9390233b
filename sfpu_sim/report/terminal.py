"""The compact terminal view of a sweep (rich): headline table, buckets, worst cases, special
values and the verdicts. Reads the report model only; prints what the Markdown prints, fewer
of it."""
from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from sfpu_sim.report import numbers as N
from sfpu_sim.report.markdown import conclusions, mean_over

WORST = 5


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
    return Group(head, buckets, worst, specials, verdicts)
