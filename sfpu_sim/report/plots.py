"""PNG figures of a sweep and of a comparison (matplotlib, Agg, no pyplot).

Owns: the figure layouts. One sweep: the five panels of tt-llk's ``test_sfpu_plot.py``
(tt-llk docs/tests/sfpu_accuracy_plots_metrics.md): function vs x, signed ULP stems, relative
error (log), CDF of |ULP|, per-bin p50/p95/p99/max with the exact fraction; plus a side panel
with the statistics, the device path and the kernel's provenance. A comparison: bucket shares,
per-binade max and per-region mean, side by side, from summaries alone (so two saved JSON files
compare the same way as two fresh sweeps).

The input axis is the value order of BF16 (``ulp.index`` of the input): every BF16 value gets
the same width, so an exhaustive sweep of 65,025 inputs spanning 1e-38..3e38 of both signs is
readable without sampling. Knows nothing of how the numbers are computed: per-lane quantities
come from the sweep's arrays, statistics from the model.

Deterministic bytes: fixed size and dpi, no timestamp, no software tag in the PNG metadata.
"""
from __future__ import annotations

import functools
import io
import textwrap

import numpy as np

from sfpu_sim import formats, ulp
from sfpu_sim.formats import bits_to_float64 as pattern_values
from sfpu_sim.report import numbers as N

DPI = 80
SIZE = (18, 20)                  # inches: 1,440 x 1,600 pixels
BINS = 32                        # per-bin percentile panel, as test_sfpu_plot.py
MIN_BIN = 8                      # bins with fewer measured lanes are hidden, as there
TICK_DECADES = (-30, -10, 0, 10, 30)
COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")


def _figure(size=SIZE):
    # matplotlib is imported on the first plot, not with the module: it takes 0.4 s, and most
    # commands that import the report layer write no PNG.
    import matplotlib
    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, dpi=DPI)
    FigureCanvasAgg(figure)
    return figure


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _quiet(render):
    """Run a figure function in matplotlib's default style, whatever a ``matplotlibrc`` says
    (one in the working directory would change the bytes), with numpy's overflow warnings off:
    matplotlib's symlog scale overflows computing ticks for data near FP32's range, harmlessly."""
    @functools.wraps(render)
    def quiet(*args, **kwargs):
        from matplotlib import style                                    # see _figure

        with style.context("default"), \
                np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return render(*args, **kwargs)
    return quiet


def _log_labels(axis) -> None:
    """Plain-text labels on a log or symlog axis (the default ones go through mathtext, which
    costs a parser run per label)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter      # see _figure

    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _value_axis(ax, label="input x (value order: every BF16 value equally wide)",
                labels=True):
    """Ticks of the value-order axis at 0 and +-10^k (labelled on the panels that show
    them: drawing tick labels is most of a figure's time)."""
    values = [-(10.0 ** k) for k in reversed(TICK_DECADES)] + [0.0] + \
             [10.0 ** k for k in TICK_DECADES]
    bits = formats.bf16_to_bits(np.array(values, dtype=np.float32))
    ax.set_xticks(ulp.index(bits, "bf16").astype(float))
    ax.set_xticklabels([N.value(v) if v == 0 or abs(v) == 1 else
                        f"{'-' if v < 0 else ''}1e{int(round(np.log10(abs(v))))}"
                        for v in values], fontsize=7)
    ax.set_xlim(0, ulp.index(np.array([0x7F7F], dtype=np.uint16), "bf16")[0])
    ax.grid(True, alpha=0.3, lw=0.5)
    if labels:
        ax.set_xlabel(label, fontsize=8)
    else:
        ax.tick_params(labelbottom=False)


def _signed_distance(m: dict, arrays: dict) -> np.ndarray:
    """Distance with the sign of (output - expected): above the reference is positive."""
    out_fmt = m["output_format"]
    actual = pattern_values(arrays["actual"], out_fmt)
    target = (arrays["reference_value"] if m["ulp_convention"] == "fractional"
              else pattern_values(arrays["expected"], out_fmt))
    with np.errstate(invalid="ignore"):
        difference = actual - target                  # Inf - Inf on equal infinities: NaN
    sign = np.where(np.isnan(difference), 0.0, np.sign(difference))
    return np.where(arrays["counted"], arrays["distance"] * sign, 0.0)


def _thresholds(ax, top: float, horizontal=True, scale=1.0, signed=False):
    """Dashed lines at 1, 3, 10, 100 ULP, each drawn only once the data reaches the one
    before it (test_sfpu_plot.py's adaptive reference lines)."""
    previous = 0.0
    for level, color in zip((1, 3, 10, 100), ("green", "orange", "red", "purple")):
        if top < previous or top <= 0:
            break
        for side in ((1, -1) if signed else (1,)):
            draw = ax.axhline if horizontal else ax.axvline
            draw(side * level * scale, color=color, ls="--", lw=0.7, label=None)
        previous = level


@_quiet
def sweep_png(m: dict, arrays: dict) -> bytes:
    """The five-panel figure of one sweep (model ``m``, the sweep's per-lane ``arrays``)."""
    figure = _figure()
    grid = figure.add_gridspec(5, 2, width_ratios=(3.2, 1.25), hspace=0.42, wspace=0.05,
                               left=0.05, right=0.99, top=0.95, bottom=0.04)
    axes = [figure.add_subplot(grid[k, 0]) for k in range(5)]
    out_fmt = m["output_format"]
    xi = ulp.index(arrays["x_bits"], "bf16").astype(float)
    counted = arrays["counted"]
    actual = pattern_values(arrays["actual"], out_fmt)
    reference = arrays["reference_value"]

    ax = axes[0]
    order = np.argsort(xi, kind="stable")
    ax.plot(xi[order], reference[order], lw=1.2, color="tab:blue", label="reference (exact)")
    ax.plot(xi, actual, ls="none", marker=".", ms=1.5, color="tab:orange",
            label=f"device output ({m['output_format'].upper()})")
    finite = np.isfinite(actual) & np.isfinite(reference)
    bad = ~finite
    if bad.any():
        top = float(np.abs(reference[finite]).max(initial=1.0))
        ax.plot(xi[bad], np.full(bad.sum(), top), ls="none", marker="v", ms=4, color="red",
                label="non-finite output or reference")
    if np.abs(reference[finite]).max(initial=0) > 1e4:
        ax.set_yscale("symlog", linthresh=1.0)
        _log_labels(ax.yaxis)
    ax.set_title(f"{m['function']}(x): reference and device output", fontsize=10, y=1.0)
    ax.legend(fontsize=7, loc="upper left")
    _value_axis(ax, labels=False)

    ax = axes[1]
    signed = _signed_distance(m, arrays)
    nonzero = np.flatnonzero(signed != 0)
    stems = np.full((nonzero.size, 3), np.nan)           # one path: 0 -> value, then a break
    stems[:, 0], stems[:, 1] = 0.0, signed[nonzero]
    ax.plot(np.repeat(xi[nonzero], 3), stems.reshape(-1), lw=0.6, color="tab:red")
    ax.axhline(0, color="black", lw=0.5)
    top = float(np.abs(signed).max(initial=0))
    if top > 10:
        ax.set_yscale("symlog", linthresh=1.0)
        _log_labels(ax.yaxis)
    _thresholds(ax, top, signed=True)
    ax.set_ylim(-max(top, 1) * 1.15, max(top, 1) * 1.15)
    ax.set_title(f"signed ULP error ({m['ulp_convention']}; above the reference is "
                 f"positive): {N.count(nonzero.size)} of {N.count(m['measured'])} lanes "
                 "not exact", fontsize=10, y=1.0)
    _value_axis(ax, labels=False)

    ax = axes[2]
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.abs(actual - reference) / np.abs(reference)
    shown = counted & np.isfinite(relative) & (relative > 0)
    ax.plot(xi[shown], relative[shown], ls="none", marker=".", ms=1.5, color="tab:purple")
    ax.set_yscale("log")
    _log_labels(ax.yaxis)
    eps = 2.0 ** -formats.FORMATS[out_fmt].man_bits
    _thresholds(ax, float(relative[shown].max(initial=0)) / eps, scale=eps)
    ax.set_title("relative error |output - reference| / |reference| (dashed: 1, 3, 10, 100 "
                 f"{out_fmt.upper()} ULP at 1.0)", fontsize=10, y=1.0)
    _value_axis(ax)

    _cdf(axes[3], m, arrays)
    _per_bin(axes[4], m, arrays, xi)

    _side_panel(figure, grid, m)
    figure.suptitle(f"{m['kernel']} on {m['chip']}: {m['function']}, Dst {m['dest'].upper()}, "
                    f"reference {m['reference_rounding']}, ULP {m['ulp_convention']} "
                    f"({m['tool']})", fontsize=12)
    return _png(figure)


def _side_panel(figure, grid, m: dict) -> None:
    """The report's key figures as text in the figure's right-hand column."""
    side = figure.add_subplot(grid[:, 1])
    side.axis("off")
    side.text(0.0, 1.0, _side_text(m), family="monospace", fontsize=7.5, va="top",
              transform=side.transAxes)


def _cdf(ax, m: dict, arrays: dict) -> None:
    measured = arrays["distance"][arrays["counted"]]
    ax.set_title(f"CDF of |ULP| over {N.count(m['measured'])} inputs (exact: "
                 f"{N.fraction(m['exact_frac'])})", fontsize=10, y=1.0)
    ax.grid(True, alpha=0.3, lw=0.5)
    values, counts = np.unique(measured, return_counts=True)
    if not values.size or values.max() <= 0:
        ax.text(0.5, 0.5, "every measured lane is exact", ha="center", transform=ax.transAxes)
        return
    cdf = np.cumsum(counts) / measured.size
    positive = values > 0
    first, last = float(values[positive][0]), float(values.max())
    start = cdf[~positive][-1] if (~positive).any() else 0.0       # the exact share
    x = np.concatenate(([first / 2], values[positive], [last * 2]))
    y = np.concatenate(([start], cdf[positive], [1.0]))
    ax.step(x, y, where="post", color="tab:blue")
    ax.set_xscale("log")
    _log_labels(ax.xaxis)
    ax.set_xlim(first / 2, last * 2)
    ax.axhline(start, color="gray", ls=":", lw=0.8)
    low = float(start)
    ax.set_ylim(max(0.0, low - (1 - low) * 0.1 - 1e-3), 1.0 + (1 - low) * 0.05 + 1e-4)
    _thresholds(ax, float(values.max()), horizontal=False)
    ax.set_xlabel("|ULP| (log)", fontsize=8)
    ax.set_ylabel("fraction within", fontsize=8)


def _per_bin(ax, m: dict, arrays: dict, xi: np.ndarray) -> None:
    """32 equal-width bins of the value-order axis: p50/p95/p99/max of |ULP| and the exact
    fraction of each."""
    order = np.argsort(xi, kind="stable")
    edges = np.linspace(0, xi.max() + 1, BINS + 1)
    which = np.searchsorted(edges, xi[order], side="right") - 1
    distance = arrays["distance"][order].astype(float)
    counted = arrays["counted"][order]
    centers, stats, exact, hidden = [], [], [], 0
    for b in range(BINS):                       # 32 bins, not lanes
        d = distance[(which == b) & counted]
        if d.size < MIN_BIN:
            hidden += 1
            continue
        centers.append((edges[b] + edges[b + 1]) / 2)
        stats.append(np.percentile(d, (50, 95, 99, 100), method="higher"))
        exact.append(float((d == 0).mean()))
    stats = np.array(stats).reshape(-1, 4)
    for column, (label, marker, color) in enumerate((("p50", "o", "green"),
                                                     ("p95", "s", "orange"),
                                                     ("p99", "^", "red"),
                                                     ("max", "v", "purple"))):
        ax.plot(centers, stats[:, column], marker=marker, ms=4, lw=0.8, color=color,
                label=label)
    ax.set_yscale("symlog", linthresh=1.0)
    _log_labels(ax.yaxis)
    ax.set_ylabel("|ULP| (symlog)", fontsize=8)
    twin = ax.twinx()
    twin.plot(centers, exact, color="tab:blue", alpha=0.3, lw=2)
    twin.set_ylim(0, 1.05)
    twin.set_ylabel("exact fraction", fontsize=8, color="tab:blue")
    ax.legend(fontsize=7, loc="upper left", ncol=4)
    ax.set_title(f"per-bin |ULP| percentiles ({BINS} bins of the value axis; {hidden} bins "
                 f"with fewer than {MIN_BIN} lanes hidden)", fontsize=10, y=1.0)
    _value_axis(ax)


def _side_text(m: dict) -> str:
    r = m["report"]
    lines = [f"{m['kernel']} ({m['mode']}) on {m['chip']}", f"hash {m['kernel_hash']}",
             "", "provenance:", *_wrap(m["provenance"]), "", "device path:"]
    for step in m["device_path"]:
        lines += _wrap("- " + step)
    lines += ["", f"reference: {m['function']}, {m['reference_rounding']}",
              f"  {m['reference_backend']}, {N.count(m['reference_precision_bits'])} bits",
              f"ULP: {m['ulp_convention']}", f"population: {m['population']}", "",
              f"inputs measured  {N.count(m['measured'])}",
              f"max ULP          {N.ulp(m['max_ulp'])}",
              f"mean ULP         {N.mean(m['mean_ulp'])} over {N.count(m['measured'])}",
              f"p95 / p99        {N.ulp(m['p95'])} / {N.ulp(m['p99'])}",
              f"exact            {N.fraction(m['exact_frac'])}",
              f"within 1 ULP     {N.fraction(r.get('within_1_frac'))}",
              f"unmeasurable     {N.count(m['unmeasurable'])}", "", "buckets:"]
    lines += [f"  {b['bucket']:>7}  {N.count(b['count']):>8}  {N.percent(b['percent']):>8}"
              for b in m["buckets"]]
    lines += ["", "worst inputs:", f"  {'x':>12} {'output':>12} {'expected':>12} {'ULP':>6}"]
    lines += [f"  {N.value(w['input']):>12} {N.value(w['output']):>12} "
              f"{N.value(w['expected']):>12} {N.ulp(w['ulp']):>6}" for w in m["worst"][:8]]
    lines += ["", "special values:", f"  {'in':>5} {'output':>12} {'expected':>12} exact"]
    lines += [f"  {s['input']:>5} {N.value(s['output']):>12} {N.value(s['expected']):>12} "
              f"{'yes' if s['bit_exact'] else 'no'}" for s in m["specials"]]
    d, v = m["denormals"], r["verdicts"]
    lines += ["", f"denormal inputs: {N.count(d['inputs'])},",
              f"  non-zero outputs: {N.count(v['denormals_nonzero_outputs'])}"]
    return "\n".join(lines)


@_quiet
def fp32_png(m: dict) -> bytes:
    """The figure of an FP32 input sweep, from its summary (it keeps no lanes): max and mean
    ULP per binade of |x|, the distribution of distances, and the side panel."""
    figure = _figure((18, 12))
    grid = figure.add_gridspec(2, 2, width_ratios=(3.2, 1.25), hspace=0.3, wspace=0.05,
                               left=0.05, right=0.99, top=0.93, bottom=0.06)
    ax = figure.add_subplot(grid[0, 0])
    rows = [b for b in m["binades"] if b["exponent"] is not None and b["max"] is not None]
    exponent = np.array([b["exponent"] for b in rows], dtype=float)
    ax.plot(exponent, [b["max"] for b in rows], marker=".", lw=1, color="tab:red",
            label="max ULP")
    ax.plot(exponent, [b["mean"] for b in rows], marker=".", lw=1, color="tab:blue",
            label="mean ULP")
    top = max([b["max"] for b in rows], default=0)
    if top > 10:
        ax.set_yscale("symlog", linthresh=1.0)
        _log_labels(ax.yaxis)
    _thresholds(ax, top)
    ax.set_xlabel("binade of |x|: exponent e of [2^e, 2^(e+1))")
    ax.set_title(f"ULP error per binade of |x| ({m['walk']['text']})", fontsize=10, y=1.0)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, alpha=0.3, lw=0.5)
    ax = figure.add_subplot(grid[1, 0])
    hist = m["report"]["histogram_rows"]
    labels = [N.ulp(h["ulp"]) if h["ulp"] == h["ulp_high"] else
              f"{N.ulp(h['ulp'])}-{N.ulp(h['ulp_high'])}" for h in hist]
    ax.bar(range(len(hist)), [h["percent"] for h in hist], color="tab:orange")
    ax.set_xticks(range(len(hist)), labels, fontsize=7, rotation=45)
    ax.set_yscale("log")
    ax.set_ylabel("% of measured inputs")
    ax.set_title(f"distribution of |ULP| over {N.count(m['measured'])} inputs", fontsize=10,
                 y=1.0)
    _side_panel(figure, grid, m)
    figure.suptitle(f"{m['kernel']} on {m['chip']}: {m['function']}, FP32 inputs, Dst "
                    f"{m['dest'].upper()}, reference {m['reference_rounding']}, ULP "
                    f"{m['ulp_convention']} ({m['tool']})", fontsize=12)
    return _png(figure)


def _wrap(text: str, width: int = 44) -> list[str]:
    return textwrap.wrap(text, width, subsequent_indent="  ") or [""]


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------

@_quiet
def compare_png(c: dict) -> bytes:
    """Bucket shares, per-binade max ULP and per-region mean ULP of every compared sweep."""
    figure = _figure((16, 12))
    axes = figure.subplots(3, 1, gridspec_kw={"hspace": 0.45, "left": 0.06, "right": 0.98,
                                              "top": 0.93, "bottom": 0.06})
    items = c["items"]
    width = 0.8 / max(len(items), 1)
    buckets = [b["bucket"] for b in items[0]["summary"]["buckets"]]
    for k, item in enumerate(items):
        summary = item["summary"]
        color = COLORS[k % len(COLORS)]
        axes[0].bar(np.arange(len(buckets)) + k * width,
                    [b["percent"] for b in summary["buckets"]], width, color=color,
                    label=item["label"])
        binades = [b for b in summary["binades"] if b["exponent"] is not None
                   and b["max"] is not None]
        axes[1].plot([b["exponent"] for b in binades], [b["max"] for b in binades],
                     marker=".", lw=1, color=color, label=item["label"])
        regions = summary["regions"]
        axes[2].bar(np.arange(len(regions)) + k * width,
                    [g["mean"] if g["mean"] is not None else 0 for g in regions], width,
                    color=color, label=item["label"])
    axes[0].set_xticks(np.arange(len(buckets)) + width * (len(items) - 1) / 2)
    axes[0].set_xticklabels([f"ULP {b}" for b in buckets])
    axes[0].set_yscale("symlog", linthresh=1.0)
    _log_labels(axes[0].yaxis)
    axes[0].set_ylabel("% of measured inputs")
    axes[0].set_title("ULP buckets", y=1.0)
    axes[1].set_yscale("symlog", linthresh=1.0)
    _log_labels(axes[1].yaxis)
    axes[1].set_xlabel("binade of |x| (exponent)")
    axes[1].set_ylabel("max ULP")
    axes[1].set_title("max ULP per binade of |x|", y=1.0)
    regions = items[0]["summary"]["regions"]
    axes[2].set_xticks(np.arange(len(regions)) + width * (len(items) - 1) / 2)
    axes[2].set_xticklabels([g["region"] for g in regions])
    axes[2].set_ylabel("mean ULP over the region's inputs")
    axes[2].set_title("mean ULP per region", y=1.0)
    for ax in axes:
        ax.grid(True, alpha=0.3, lw=0.5)
        ax.legend(fontsize=8)
    figure.suptitle("sfpu-sim comparison: " + " vs ".join(i["label"] for i in items),
                    fontsize=12)
    return _png(figure)
