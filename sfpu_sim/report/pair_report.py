"""The report of a binary kernel's pair sweep: Markdown, PNG and JSON from the pair summary
(:func:`sfpu_sim.fp32sweep.pair_sweep.sweep_pairs`), as ``report KERNEL --y ...`` writes them.

Owns: the file stem of a pair report, its Markdown (the headline, the second operands with the
largest maximum, the worst pairs) and its figure (the maximum ULP over every x, for each
second operand, along y in value order). The JSON is the summary itself. Knows nothing of how
the pairs were swept.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats, ulp
from sfpu_sim.report import numbers as N
from sfpu_sim.report import plots
from sfpu_sim.report.files import atomic_write, json_text
from sfpu_sim.report.markdown import mean_over

PER_Y_ROWS = 16            # second operands listed, the largest maximum first
WORST_ROWS = 20


def file_stem(kernel: str, arch: str, dest: str, policy: str, input_format: str,
              output_format: str, sample: bool = False) -> str:
    """``<kernel>_<arch>_<dest>_<policy>_pairs`` (``_harness-pairs`` for the accuracy driver's
    own pairs), plus the formats that differ from BF16."""
    parts = [kernel, arch, dest, policy, "harness-pairs" if sample else "pairs"]
    if input_format != "bf16":
        parts.append(f"in-{input_format}")
    if output_format != input_format:
        parts.append(f"out-{output_format}")
    return "_".join(parts)


def stem_of(s: dict) -> str:
    return file_stem(s["kernel"], s["arch"], s["dest"], s["reference_rounding"],
                     s["input_format"], s["output_format"], "pairs" in s)


def markdown(s: dict, figure: str | None = None) -> str:
    """The report's Markdown (``figure``: the PNG's file name, linked where given)."""
    fmt = s["input_format"].upper()
    sample = "pairs" in s
    what = (s["operands"] if sample else
            f"Every {fmt} x against each second operand y ({s['second_operand']})")
    lines = [f"# {s['kernel']} on {s['arch']}: {s['function']} ({s['formula']})", "",
             f"{what}; Dst {s['dest'].upper()}, reference {s['reference_rounding']}, ULP "
             f"{s['ulp_convention']}, population {s['population']}.", "",
             "| | |", "| --- | --- |",
             f"| pairs measured | {N.count(s['count'])} |",
             f"| max ULP | {N.ulp(s['max_ulp'])} |",
             f"| mean ULP | {mean_over(s['mean_ulp'], s['count'], 'pairs')} |",
             f"| exact | {N.count(s['exact_count'])} ({N.fraction(s['exact_frac'])}) |",
             *([f"| the harness's figure | {harness_text(s['harness'])} |"]
               if "harness" in s else []),
             f"| kernel hash | `{s['kernel_hash']}` |",
             f"| provenance | {s['provenance']} |", ""]
    if figure:
        lines += [f"![{'ULP of each pair' if sample else 'maximum ULP per second operand'}]"
                  f"({figure})", ""]
    lines += _histogram_lines(s) if sample else _per_y_lines(s)
    lines += ["", "## Worst pairs", ""]
    if not s["worst"]:
        lines.append("None: every pair measured is exact.")
    else:
        lines += ["| x | y | output | expected | ULP |", "| ---: | ---: | ---: | ---: | ---: |"]
        lines += ["| " + " | ".join(f"{N.value(w[k])} `{w[k + '_bits']}`"
                                    for k in ("x", "y", "output", "expected")) +
                  f" | {N.ulp(w['ulp'])} |" for w in s["worst"][:WORST_ROWS]]
    lines += ["", f"Regenerate: `{command_line(s)}`", ""]
    return "\n".join(lines)


def _per_y_lines(s: dict) -> list[str]:
    per_y = sorted(s["per_y"], key=lambda p: -1 if p["max_ulp"] is None else -p["max_ulp"])
    lines = [f"## Second operands, the largest maximum first ({min(PER_Y_ROWS, len(per_y))} "
             f"of {len(per_y):,})", "", "| y | pairs measured | max ULP |",
             "| ---: | ---: | ---: |"]
    return lines + [f"| {N.value(p['y'])} `{p['y_bits']}` | {N.count(p['count'])} | "
                    f"{N.ulp(p['max_ulp'])} |" for p in per_y[:PER_Y_ROWS]]


def _histogram_lines(s: dict) -> list[str]:
    return ["## Pairs per ULP", "", "| ULP | pairs |", "| ---: | ---: |",
            *(f"| {N.ulp(h['ulp'])} | {N.count(h['pairs'])} |" for h in s["ulp_histogram"])]


def harness_text(harness: dict) -> str:
    """The cell's figure as the harness measures it, or why there is none."""
    if "reason" in harness:
        return f"none ({harness['row']}: {harness['reason']})"
    return (f"{N.ulp(harness['max_ulp'])} over {N.count(harness['lanes'])} pairs (its golden, "
            f"subnormal outputs as zero: `sfpu-sim budget {harness['row']}`, dest="
            f"{harness['dest']})")


def command_line(s: dict) -> str:
    """The command that sweeps the same pairs, as far as the summary records them."""
    words = ["sfpu-sim", "report", s["kernel"], "--arch", s["arch"]]
    if s["input_format"] != "bf16":
        words += ["--in", s["input_format"]]
    if s["output_format"] != s["input_format"]:
        words += ["--out-format", s["output_format"]]
    if s["reference_rounding"] != "rne":
        words += ["--reference-rounding", s["reference_rounding"]]
    return " ".join(words) + " " + s.get("operand_options", "--y ...")


FIGURE_SIZE = (12, 5)             # inches
SAMPLE_FIGURE_SIZE = (8, 6.5)
WIDE = 30.0                       # a positive operand's max over median beyond this: log axis


@plots._quiet
def png(s: dict) -> bytes:
    """The maximum ULP over every x for each second operand, y along the axis in value order
    (every value of the format equally wide); operands with no pair counted are left out. Given
    pairs: each pair at (x, y), coloured by its ULP."""
    if "pairs" in s:
        return _sample_png(s)
    figure = plots._figure(FIGURE_SIZE)
    ax = figure.add_subplot(1, 1, 1)
    fmt = s["input_format"]
    kept = [p for p in s["per_y"] if p["max_ulp"] is not None]
    y_bits = np.array([int(p["y_bits"], 16) for p in kept], dtype=np.uint32).astype(
        formats.FORMATS[fmt].dtype)
    worst = np.array([p["max_ulp"] for p in kept], dtype=np.float64)
    ax.plot(ulp.index(y_bits, fmt).astype(float), np.maximum(worst, 0.5), ".", markersize=3)
    ax.set_yscale("log")
    label = f"second operand y ({fmt.upper()}, value order: every value equally wide)"
    if fmt == "bf16":
        plots._value_axis(ax, label)
    else:
        ax.set_xlabel(label, fontsize=8)
    ax.set_ylabel("max ULP over every x (0 drawn at 0.5)", fontsize=8)
    ax.set_title(f"{s['kernel']} on {s['arch']}: {s['formula']}, Dst {s['dest'].upper()}",
                 fontsize=9)
    return plots._png(figure)


def _sample_png(s: dict) -> bytes:
    """Each given pair at (x, y) by value: the exact ones grey, the others coloured by ULP on a
    log scale, drawn over them; pairs not counted left out."""
    figure = plots._figure(SAMPLE_FIGURE_SIZE)
    ax = figure.add_subplot(1, 1, 1)
    fmt = s["input_format"]
    dtype = formats.FORMATS[fmt].dtype
    x, y = (formats.bits_to_float64(np.array(s["pairs"][k], dtype=np.int64).astype(dtype), fmt)
            for k in ("x_bits", "y_bits"))
    distance = np.array(s["pairs"]["ulp"], dtype=np.int64)
    exact, wrong = distance == 0, distance > 0
    ax.plot(x[exact], y[exact], ".", color="0.8", markersize=2, label="exact")
    if wrong.any():
        order = np.argsort(distance[wrong], kind="stable")     # the largest drawn last
        shown = ax.scatter(x[wrong][order], y[wrong][order], c=distance[wrong][order], s=4,
                           cmap="viridis", norm="log", vmin=1,
                           vmax=max(2, int(distance.max())))
        figure.colorbar(shown, ax=ax, label="ULP")
    for values, scale, name in ((x, ax.set_xscale, "x"), (y, ax.set_yscale, "y")):
        finite = values[np.isfinite(values)]
        if finite.size and finite.min() > 0 and finite.max() > WIDE * np.median(finite):
            scale("log")                  # most pairs crowded near 0 (a log-uniform draw)
    ax.set_xlabel(f"x ({fmt.upper()})", fontsize=8)
    ax.set_ylabel(f"y ({fmt.upper()})", fontsize=8)
    ax.grid(True, alpha=0.3, lw=0.5)
    ax.set_title(f"{s['kernel']} on {s['arch']}: {s['function']}, Dst {s['dest'].upper()}, "
                 f"{N.count(int(wrong.sum()))} of {N.count(distance.size)} pairs off", fontsize=9)
    return plots._png(figure)


def write(s: dict, out, files=("md", "png", "json")) -> dict:
    """The report's files in directory ``out`` (made by the caller): {format: path}."""
    stem = stem_of(s)
    payloads = {}
    if "json" in files:
        payloads["json"] = json_text(s)
    if "png" in files:
        payloads["png"] = png(s)
    if "md" in files:
        payloads["md"] = markdown(s, f"{stem}.png" if "png" in files else None)
    return {fmt: atomic_write(out / f"{stem}.{fmt}", data) for fmt, data in payloads.items()}
