"""The BF16 GELU study side by side: its convention, the truth, and both chips (a report model).

Owns: what ``reports/gelu_study.*`` says, as JSON-ready data: every method under the study's
own convention (host forms, cancelling reference: the published table), against the correctly
rounded GELU (host forms: the truth), and as SFPU kernels on Wormhole and Blackhole (against
both references, and without the final rounding); which published conclusions survive, each
derived from these tables; and each method's worst inputs with the branch that produced them
and why. Knows nothing of rendering (``sfpu_sim.report.study_gelu``) or of the command line.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import ulp
from sfpu_sim.study import gelu_methods, scoring, workbench
from sfpu_sim.sweeps import DevicePath, run_device
from sfpu_sim.version import __version__

__all__ = ["build", "PUBLISHED", "SOURCES", "COLUMNS", "mean_as_printed", "published_figures"]

# The study's published figures (github.com/ivoitovych/bf16_gelu_research at 90e9ff1,
# 2025-12-27): (mean ULP as printed, max ULP, P99), each with the file that prints it there.
# README.md's table gives the mean and max of seven methods, its example output R4's mean to
# four digits and its P99; CLAUDE.md's table gives every P99 and the A1, R3 and R5 rows, with
# one mean range for A1's two variants (no file says which variant has which mean).
SOURCES = {"R": "README.md", "C": "CLAUDE.md"}
PUBLISHED = {
    "C1": (("0.60", "R"), (9904, "R"), (0, "C")),
    "B3": (("0.61", "R"), (9904, "R"), (0, "C")),
    "R4": (("0.6126", "R"), (9904, "R"), (0, "R")),
    "R2": (("1.69", "R"), (9904, "R"), (2, "C")),
    "R1": (("1.90", "R"), (9904, "R"), (1, "C")),
    "B1v2": (("1.97", "R"), (9904, "R"), (38, "C")),
    "B1": (("2.14", "R"), (9904, "R"), (19, "C")),
    "A1-poly7": (("4.06-4.08", "C"), (9904, "C"), (42, "C")),
    "A1-poly9": (("4.06-4.08", "C"), (9904, "C"), (42, "C")),
    "R3": (("37.32", "C"), (9904, "C"), (98, "C")),
    "R5": (("15.02", "C"), (13215, "C"), (0, "C")),
}


def published_figures(ids) -> dict:
    """The published figures of the methods ``ids``, as the report's JSON holds them: each
    figure, and under ``sources`` the file that prints it."""
    names = ("mean_ulp", "max_ulp", "p99")
    return {m: {**{name: figure for name, (figure, _) in zip(names, PUBLISHED[m])},
                "sources": {name: SOURCES[source] for name, (_, source) in
                            zip(names, PUBLISHED[m])}}
            for m in ids if m in PUBLISHED}


def mean_as_printed(value: float, printed: str) -> bool:
    """Whether ``value`` reads as the printed mean: to its digits, or inside a printed range
    ("4.06-4.08") to the range's digits."""
    low, _, high = printed.partition("-")
    shown = f"{value:.{len(low.split('.')[1])}f}"
    return shown == low if not high else float(low) <= float(shown) <= float(high)
# (key, title, reference, arch, rounding): the tables of the report, left to right.
COLUMNS = (
    ("study", "study's convention (host, cancelling reference)", "study", None, True),
    ("truth", "truth (host, correctly rounded GELU)", "correct", None, True),
    ("wormhole", "Wormhole kernel vs truth", "correct", "wormhole", True),
    ("blackhole", "Blackhole kernel vs truth", "correct", "blackhole", True),
)
EXTRA = (
    ("wormhole_study", "Wormhole kernel, study's convention", "study", "wormhole", True),
    ("blackhole_study", "Blackhole kernel, study's convention", "study", "blackhole", True),
    ("wormhole_truncated", "Wormhole kernel without the final rounding, vs truth", "correct",
     "wormhole", False),
    ("host_no_fma", "host without FMA contraction, study's convention", "study", None, True),
)
TINY = 2.0 ** -124          # below this |x|, device DAZ/FTZ decide (inputs or x/2 denormal)
BEST_THREE = ("C1", "B3", "R4")


def _branch(method_id: str, x: float) -> str:
    """Which part of a method's structure computes input ``x`` (the thresholds of
    :mod:`gelu_methods`)."""
    if x >= gelu_methods.POS:
        return "x >= 3: returns x"
    if x <= gelu_methods.NEG:
        return "x <= -9: returns 0"
    if method_id == "R5":
        step = np.float32(gelu_methods.R5_INV_STEP)
        row = int(np.trunc((np.float32(x) - np.float32(gelu_methods.NEG)) * step))
        return f"table row {row}"
    in_tail = x <= gelu_methods.TAIL_START if method_id == "R3" else x < gelu_methods.TAIL_START
    if in_tail:
        if x < -8.5:
            return "below -8.5: the tail returns 0"
        upper = next(k for k in gelu_methods.TAIL_KNOTS if x >= k - 0.5)
        return f"tail segment [{upper - 0.5:g}, {upper:g}]"
    if method_id == "C1":
        if abs(x) < 0.125:
            return "Taylor |x| < 0.125"
        knots = gelu_methods.C1_KNOTS
        k = next((i for i, b in enumerate(knots[1:9]) if x < b), 8)
        return f"Hermite segment [{knots[k]:g}, {knots[k + 1]:g}]"
    if method_id == "B3":
        return "core, erf series |z| < 1" if abs(x * 0.70710677) < 1 else "core, erf A-S 7.1.27"
    return "core"


def _zero_table_below() -> float:
    """The largest R5 knot whose Phi is exactly 0 in binary32 (1 + erff cancels)."""
    phi, _ = gelu_methods.r5_tables(True)
    index = np.arange(phi.size, dtype=np.float32)
    knots = np.float32(gelu_methods.NEG) + index * np.float32(gelu_methods.R5_STEP)
    zero = np.flatnonzero(phi == 0)
    return float(knots[zero[-1]]) if zero.size else None


def _last_nonzero() -> float:
    """The most negative BF16 input whose correctly rounded GELU is not zero."""
    bits, _ = scoring.correct_reference(scoring.INPUTS)
    x = scoring.input_values(scoring.INPUTS)
    return float(x[(bits & 0x7FFF) != 0].min())


def _why(method_id: str, x: float, out: float, ref: float, reference: str, branch: str,
         distance: int) -> str:
    if ref == 0 and out != 0:
        return (f"the reference is 0: the study's double 1 + erf(x/sqrt 2) cancels to exactly "
                f"0 here, while the method returns {out:.4g} ({distance:,} BF16 steps from 0)")
    if out == 0 and ref != 0:
        cause = branch
        if method_id == "R5" and branch.startswith("table row"):
            cause = (f"{branch}, whose Phi is exactly 0 in binary32 (1 + erff(x/sqrt 2) "
                     f"cancels for knots up to x = {_zero_table_below():.4f})")
        return (f"returns 0 ({cause}) where GELU(x) = {ref:.4g} is a BF16 value "
                f"{distance:,} steps from 0")
    relative = f", relative error {abs(out - ref) / abs(ref):.2%}" if ref else ""
    return f"{branch}: returns {out:.6g} for {ref:.6g}{relative}"


def _core_mask(method_id: str) -> np.ndarray:
    """Inputs the method's own core computes (no saturation, no tail table)."""
    x = scoring.input_values(scoring.INPUTS)
    low = gelu_methods.NEG if method_id == "R5" else gelu_methods.TAIL_START
    inside = (x > low) if method_id in ("R5", "R3") else (x >= low)
    return inside & (x < gelu_methods.POS)


def _worst(method_id: str, got: np.ndarray, reference: str, limit: int = 3,
           where: np.ndarray | None = None) -> list[dict]:
    """The ``limit`` largest distinct errors (first input of each) among the inputs ``where``
    selects (all by default), with reasons."""
    expected, _ = scoring.reference_bits(reference)
    distance = scoring.score(got, expected).distance
    if where is not None:
        distance = np.where(where, distance, -1)
    out = []
    for d in sorted(set(distance.tolist()), reverse=True)[:limit]:
        if d <= 0:
            break
        k = int(np.flatnonzero(distance == d)[0])
        bits = int(scoring.INPUTS[k])
        x = float(scoring.input_values(bits))
        o, r = float(scoring.input_values(got[k])), float(scoring.input_values(expected[k]))
        branch = _branch(method_id, x)
        out.append({"input_bits": f"{bits:#06x}", "input": x, "output": o, "reference": r,
                    "ulp": int(d), "inputs_at_this_ulp": int((distance == d).sum()),
                    "branch": branch, "why": _why(method_id, x, o, r, reference, branch,
                                                  int(d))})
    return out


def _ranking(table: dict) -> list[str]:
    return sorted(table["methods"], key=lambda m: table["methods"][m]["mean_ulp"])


def _same_value(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Equal BF16 values (+0 and -0 equal, as the study's index has them)."""
    index = lambda v: ulp.index(v, "bf16", flush_subnormals=False)   # noqa: E731
    return index(a) == index(b)


def _fp32_ulps(a: int, b: int) -> int:
    """Steps between two FP32 patterns in value order (denormals included)."""
    index = ulp.index(np.array([a, b], dtype=np.uint32), "fp32", flush_subnormals=False)
    return abs(int(index[0]) - int(index[1]))


def _device_agreement(host: dict, device: dict, arch: str) -> dict:
    """Per method: inputs where the chip's BF16 value differs from the host form's, split into
    tiny inputs (|x| < 2^-124: denormal inputs read as 0, denormal results flushed) and the
    rest, each of those explained: an exact BF16 tie (the host rounds half to even,
    ``float_to_fp16b`` half away from zero) or a different FP32 result (both FP32 values)."""
    x = scoring.input_values(scoring.INPUTS)
    tiny = np.abs(x) < TINY
    out = {}
    for method_id, got in device.items():
        differ = ~_same_value(got, host[method_id])
        rest = np.flatnonzero(differ & ~tiny)
        cases = []
        if rest.size:
            inputs = scoring.INPUTS[rest]
            host_fp32 = workbench.host_fp32(method_id, inputs).view(np.uint32)
            device_fp32 = workbench.device_fp32(method_id, inputs, arch)
            for k, bits in enumerate(inputs.tolist()):
                h, d = int(host_fp32[k]), int(device_fp32[k])
                cases.append({
                    "input_bits": f"{bits:#06x}", "input": float(scoring.input_values(bits)),
                    "host_fp32_bits": f"{h:#010x}", "device_fp32_bits": f"{d:#010x}",
                    "host": float(scoring.input_values(int(host[method_id][rest[k]]))),
                    "device": float(scoring.input_values(int(got[rest[k]]))),
                    "kind": "tie" if h == d and h & 0xFFFF == 0x8000 else "fp32",
                    "fp32_ulps_apart": _fp32_ulps(h, d)})
        out[method_id] = {"differ": int(differ.sum()), "differ_tiny": int((differ & tiny).sum()),
                          "elsewhere": cases}
    return out


def _describe_elsewhere(method_id: str, cases: list[dict]) -> str:
    ties = [c for c in cases if c["kind"] == "tie"]
    other = [c for c in cases if c["kind"] != "tie"]
    parts = []
    if ties:
        parts.append(f"{method_id} at " + ", ".join(f"{c['input']:g}" for c in ties) +
                     " (exact BF16 ties: the host rounds half to even, float_to_fp16b half "
                     "away from zero)")
    if other:
        parts.append(f"{method_id} at " + ", ".join(
            f"{c['input']:g} (FP32 {c['host_fp32_bits']} on the host, "
            f"{c['device_fp32_bits']} on the chip: {c['fp32_ulps_apart']:,} FP32 ULP apart, "
            f"across a BF16 rounding boundary)" for c in other))
    return "; ".join(parts)


def _findings(tables: dict, agreement: dict, fp32_agreement: dict,
              fma_changed: dict) -> list[dict]:
    """Each published conclusion, checked against the tables (text from the numbers)."""
    study, truth = tables["study"], tables["truth"]
    findings = []
    reproduced = [m for m, ((mean, _), (top, _), (p99, _)) in PUBLISHED.items()
                  if mean_as_printed(study["methods"][m]["mean_ulp"], mean)
                  and study["methods"][m]["max_ulp"] == top and study["methods"][m]["p99"] == p99]
    findings.append({
        "claim": "The published table (mean, max, P99 of 11 methods)",
        "verdict": "reproduced" if len(reproduced) == len(PUBLISHED) else "not reproduced",
        "detail": f"{len(reproduced)} of {len(PUBLISHED)} methods give the published mean (to "
                  f"its printed digits), max and P99 under the study's convention"})
    for key in ("study", "truth", "wormhole", "blackhole"):
        ranking = _ranking(tables[key])
        top = ranking[:3]
        means = [tables[key]["methods"][m]["mean_ulp"] for m in ranking]
        spread, gap = means[2] - means[0], means[3] - means[2]
        findings.append({
            "claim": f"Three methods tie for best (C1, B3, R4) [{key}]",
            "verdict": "holds" if set(top) == set(BEST_THREE) and spread < gap else "fails",
            "detail": f"best three {', '.join(f'{m} {v:.4f}' for m, v in zip(top, means))}: "
                      f"spread {spread:.4f}, next ({ranking[3]}) {gap:.4f} further"})
    shift = {m: truth["methods"][m]["mean_ulp"] - study["methods"][m]["mean_ulp"]
             for m in truth["methods"]}
    shared = {m for m in shift if m != "R5"}
    low, high = min(shift[m] for m in shared), max(shift[m] for m in shared)
    same_order = _ranking(study) == _ranking(truth)
    findings.append({
        "claim": "The cancelling reference distorts the comparison of methods",
        "verdict": "no" if same_order else "yes",
        "detail": f"against the truth every tail-table method's mean rises by {low:.4f} to "
                  f"{high:.4f} (R5: {shift['R5']:.4f}): the study's reference errs in the far "
                  f"negative tail, which the methods share (tail table, saturation); the ranking "
                  f"by mean is " + ("unchanged" if same_order else "changed")})
    maxima = {m: (t["max_ulp"], t["worst_input"]) for m, t in truth["methods"].items()}
    tail_methods = [m for m in maxima if m != "R5"]
    truth_max = {maxima[m] for m in tail_methods}
    findings.append({
        "claim": "The shared max of 9904 (at x = -8.375) comes from the reference",
        "verdict": "holds",
        "detail": "against the correctly rounded GELU the tail-table methods' max is " +
                  "; ".join(f"{v:,} at x = {x:g}" for v, x in sorted(truth_max)) +
                  f" (the tail returns 0 from x = -8.5 down to -9 and the saturation 0 below, "
                  f"where GELU(x) is a nonzero BF16 value down to x = {_last_nonzero():g})"})
    r5 = truth["methods"]["R5"]
    findings.append({
        "claim": "R5 (LUT) max 13215",
        "verdict": "holds against the truth too",
        "detail": f"max {r5['max_ulp']:,} at x = {r5['worst_input']:g} against the truth: "
                  f"R5's Phi table is exactly 0 in binary32 for knots up to x = "
                  f"{_zero_table_below():.4f} (1 + erff cancels), an error of the method"})
    for chip in ("wormhole", "blackhole"):
        rows = agreement[chip]
        elsewhere = {m: r["elsewhere"] for m, r in rows.items() if r["elsewhere"]}
        tiny = sorted({r["differ_tiny"] for r in rows.values()})
        text = (f"the kernels' BF16 values equal the host forms' on every input with |x| >= "
                f"2^-124 for {len(rows) - len(elsewhere)} of {len(rows)} methods; below, "
                f"{'/'.join(map(str, tiny))} inputs differ per method (denormal inputs read as "
                f"0, denormal results flushed)")
        if elsewhere:
            text += "; elsewhere: " + "; ".join(_describe_elsewhere(m, c)
                                                for m, c in elsewhere.items())
        findings.append({"claim": f"The host forms predict the device [{chip}]",
                         "verdict": "holds for |x| >= 2^-124" + (", with the exceptions named"
                                                                 if elsewhere else ""),
                         "detail": text})
    for chip in ("wormhole", "blackhole"):
        rows = fp32_agreement[chip]
        findings.append({
            "claim": f"The SFPU's arithmetic against IEEE binary32 [{chip}]",
            "verdict": "differs in FP32, rarely in BF16",
            "detail": "inputs with |x| >= 2^-124 where the kernel's FP32 result (before its "
                      "final rounding) differs from the host's binary32 result, and of those "
                      "where the BF16 value differs: " + ", ".join(
                          f"{m} {r['fp32']:,}/{r['bf16']}" for m, r in rows.items()) +
                      " (SFPMAD's narrowed product and DAZ/FTZ, and the device reciprocal and "
                      "sqrt algorithms, change last bits; BF16 keeps 8 of 24)"})
    changed = {m: n for m, n in fma_changed.items() if n}
    findings.append({
        "claim": "FMA against separate multiply and add (the study's open question)",
        "verdict": "matters little",
        "detail": "without contraction the host forms change " +
                  ", ".join(f"{m}: {n} output(s)" for m, n in changed.items()) +
                  " of 65,280 BF16 outputs; every published cell is identical except R1's "
                  "core_neg mean (150.87 fused, " +
                  f"{tables['host_no_fma']['methods']['R1']['regions']['core_neg']['mean_ulp']:.2f}"
                  " unfused)"})
    rounded = tables["wormhole"]["methods"]
    truncated = tables["wormhole_truncated"]["methods"]
    findings.append({
        "claim": "The final rounding on the device",
        "verdict": "needed",
        "detail": "without float_to_fp16b before the BF16 store (the store truncates) the "
                  "Wormhole means rise by " + ", ".join(
                      f"{m} {truncated[m]['mean_ulp'] - rounded[m]['mean_ulp']:+.3f}"
                      for m in BEST_THREE)})
    return findings


def _fp32_agreement(host: dict, device: dict, device_fp32: dict) -> dict:
    """Per method: inputs (|x| >= 2^-124) whose kernel FP32 result differs from the host's
    binary32 result, and how many of those differ as BF16 values."""
    keep = np.abs(scoring.input_values(scoring.INPUTS)) >= TINY
    out = {}
    for method_id, bits in device_fp32.items():
        host_bits = workbench.host_fp32(method_id).view(np.uint32)
        fp32 = keep & (bits != host_bits)
        bf16 = fp32 & ~_same_value(device[method_id], host[method_id])
        out[method_id] = {"fp32": int(fp32.sum()), "bf16": int(bf16.sum())}
    return out


def build() -> dict:
    """The report model, every method (every table computed; about a minute on two cores)."""
    ids = workbench.check_methods(None)
    host = workbench.all_outputs(ids)
    host_no_fma = workbench.all_outputs(ids, host_fma=False)
    device = {arch: workbench.all_outputs(ids, arch=arch) for arch in workbench.ARCHES}
    unrounded = {arch: {m: run_device(workbench._program(m, arch, False), scoring.INPUTS,
                                      DevicePath()) for m in ids} for arch in workbench.ARCHES}
    truncated = {m: run.output for m, run in unrounded["wormhole"].items()}
    fp32_agreement = {arch: _fp32_agreement(host, device[arch],
                                            {m: run.kernel_fp32 for m, run in runs.items()})
                      for arch, runs in unrounded.items()}
    sources = {"study": host, "truth": host, "wormhole": device["wormhole"],
               "blackhole": device["blackhole"], "wormhole_study": device["wormhole"],
               "blackhole_study": device["blackhole"], "wormhole_truncated": truncated,
               "host_no_fma": host_no_fma}
    tables, titles = {}, {}
    for key, title, reference, arch, rounding in COLUMNS + EXTRA:
        tables[key] = workbench.table(sources[key], reference=reference, arch=arch,
                                      host_fma=key != "host_no_fma", rounding=rounding)
        titles[key] = title
    agreement = {arch: _device_agreement(host, device[arch], arch) for arch in workbench.ARCHES}
    fma_changed = {m: int((host[m] != host_no_fma[m]).sum()) for m in ids}
    worst = {m: {part: {key: _worst(m, sources[key][m], tables[key]["convention"]["reference"],
                                    where=None if part == "all" else _core_mask(m))
                        for key, *_ in COLUMNS} for part in ("all", "core")} for m in ids}
    programs = {m: {arch: len(workbench._program(m, arch)) for arch in workbench.ARCHES}
                for m in ids}
    return {"title": "The BF16 GELU study on sfpu-sim: its convention, the truth, both chips",
            "tool": f"sfpu-sim {__version__}",
            "source": "github.com/ivoitovych/bf16_gelu_research @90e9ff1 (2025-12-27): "
                      "README.md, CLAUDE.md",
            "count": int(scoring.INPUTS.size), "methods": ids,
            "columns": [key for key, *_ in COLUMNS], "extra": [key for key, *_ in EXTRA],
            "titles": titles, "short": {"study": "study", "truth": "truth", "wormhole": "WH",
                                        "blackhole": "BH"},
            "tables": tables,
            "published": published_figures(ids),
            "findings": _findings(tables, agreement, fp32_agreement, fma_changed),
            "fp32_agreement": fp32_agreement,
            "device_agreement": agreement,
            "fma_changed_outputs": fma_changed, "worst": worst,
            "kernel_instructions": programs}
