"""The determinism comparison as text: Markdown report, JSON, terminal lines, and the files.

Owns: wording and layout, the computed answer to the report's question, writing
``<stem>.md`` and ``<stem>.json``. Knows nothing of how the outputs were obtained (it reads the
model :func:`sfpu_sim.determinism.compare` returns).
"""
from __future__ import annotations

from pathlib import Path

from sfpu_sim.report import numbers as N
from sfpu_sim.report.files import atomic_write, json_text, output_directory
from sfpu_sim.report.markdown import code, table

DEVICES = ("wormhole", "blackhole")
HOSTS = ("binary32-fma", "binary32-no-fma")


def _short(key: str) -> str:
    return {"wormhole": "WH", "blackhole": "BH", "binary32-fma": "FMA",
            "binary32-no-fma": "no FMA"}[key]


def _pair_name(pair: dict) -> str:
    return f"{_short(pair['a'])} = {_short(pair['b'])}"


def _identical(pair: dict) -> str:
    if pair["different"] == 0:
        return f"all {N.count(pair['inputs'])}"
    return f"{N.count(pair['identical'])} ({N.count(pair['different'])} differ)"


def _reasons(pair: dict) -> str:
    items = sorted(pair["reasons"].items(), key=lambda kv: (-kv[1], kv[0]))
    return "; ".join(f"{reason}: {N.count(n)}" for reason, n in items) or "-"


def _where(pair: dict) -> str:
    w = pair["where"]
    parts = [f"{name} {N.count(w[name])}" for name in ("zero", "denormal", "inf", "nan")
             if w[name]]
    if w["normal"]:
        parts.append(f"normal {N.count(w['normal'])} (|x| {N.value(w['normal_abs_min'])} to "
                     f"{N.value(w['normal_abs_max'])})")
    return ", ".join(parts) or "-"


# --------------------------------------------------------------------------------------------
# The answer
# --------------------------------------------------------------------------------------------

def _cases(model: dict):
    for kernel in model["kernels"]:
        for population in kernel["populations"]:
            yield kernel, population, {(p["a"], p["b"]): p for p in population["pairs"]}


POPULATION_LABELS = {"bf16": "BF16 inputs", "fp32-sample": "FP32 sample"}


def _label(kernel: dict, population: dict) -> str:
    return f"{kernel['kernel']} on {POPULATION_LABELS[population['population']]}"


def answer(model: dict) -> list[str]:
    """The report's answer, every statement computed from the counts."""
    cases = list(_cases(model))
    total = len(cases)

    def identical(a, b):
        return [_label(k, pop) for k, pop, pairs in cases if pairs[a, b]["different"] == 0]

    lines = []
    every = [name for name in identical("wormhole", "binary32-fma")
             if all(name in identical(d, h) for d in DEVICES for h in HOSTS)]
    lines.append(f"- **{'Yes' if len(every) == total else 'No'}**: a device and a binary32 CPU or "
                 f"GPU (with or without FMA) give the same bits on every input in {len(every)} "
                 f"of {total} kernel/input sets" + (f" ({', '.join(every)})." if every else "."))
    chips = identical("wormhole", "blackhole")
    lines.append(f"- Wormhole and Blackhole give the same bits on every input in {len(chips)} of "
                 f"{total} kernel/input sets.")
    for host in HOSTS:
        both = [name for name in identical("wormhole", host)
                if name in identical("blackhole", host)]
        lines.append(f"- Both devices give the same bits as binary32 "
                     f"{'with' if host == 'binary32-fma' else 'without'} FMA on every input in "
                     f"{len(both)} of {total}" + (f": {', '.join(both)}." if both else "."))
    fused = identical("binary32-fma", "binary32-no-fma")
    lines.append(f"- The two binary32 platforms (FMA or not) agree on every input in "
                 f"{len(fused)} of {total}.")
    for host in HOSTS:
        smallest = []
        for kernel, population, pairs in cases:
            found = [pairs[d, host]["where"]["normal_abs_min"] for d in DEVICES
                     if pairs[d, host]["where"]["normal_abs_min"] is not None]
            if found:
                smallest.append(f"{_label(kernel, population)} {N.value(min(found))}")
        if smallest:
            lines.append(f"- The smallest normal |x| at which a device and binary32 "
                         f"{'with' if host == 'binary32-fma' else 'without'} FMA differ (below "
                         f"it only zeros, denormals, infinities or NaNs can): " +
                         "; ".join(smallest) + ".")
    totals: dict[str, int] = {}
    for _, _, pairs in cases:
        for device in DEVICES:
            for host in HOSTS:
                for reason, n in pairs[device, host]["reasons"].items():
                    totals[reason] = totals.get(reason, 0) + n
    if totals:
        ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
        lines.append("- Where a device and a binary32 platform differ, the reasons (differing "
                     "outputs summed over both devices, both binary32 platforms and every set; "
                     "`a | b`: either alone explains it, `a + b`: only together): " +
                     "; ".join(f"{code(r)} {N.count(n)}" for r, n in ranked) + ".")
    return lines


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------

METHOD = (
    "Each kernel's DSL body is traced once per chip; Wormhole runs its program, Blackhole and "
    "the two binary32 platforms run Blackhole's (the same operations). The binary32 platforms "
    "keep every integer and bit operation, every branch and the instruction order, and replace "
    "only what differs between an SFPU and a CPU or GPU: the multiply-add (IEEE 754 binary32, "
    "exact model, fused or as a separate multiply and add, nearest even, gradual underflow), "
    "SFPMUL (a plain product instead of `a*b + 0`) and the store to Dst (BF16 rounded to "
    "nearest even instead of truncated; FP32 denormals kept instead of flushed). Every output "
    "is compared bit for bit. A difference's reason is computed: each platform difference is "
    "taken from the second platform into the first alone and the kernel rerun; where none "
    "alone explains an output, all are taken and given back one at a time while the output "
    "stays equal, leaving a set each member of which is needed.")


def markdown(model: dict) -> str:
    lines = [f"# Determinism: {model['question']}", "",
             f"Generated by {model['tool']}" + (f" (`{model['command']}`)" if model["command"]
                                                 else "") +
             ". Emulated (no device); regenerate rather than edit.", "", "## Answer", ""]
    lines += answer(model)
    lines += ["", "Identical outputs per pair of platforms (WH Wormhole, BH Blackhole, FMA "
              "binary32 with a fused multiply-add, no FMA binary32 with separate multiply and "
              "add):", ""]
    pairs = [tuple(p) for p in model["pairs"]]
    rows = []
    for kernel, population, by_pair in _cases(model):
        rows.append([code(kernel["kernel"]), kernel["dest"].upper(), population["title"],
                     *(_identical(by_pair[p]) for p in pairs)])
    headers = ["kernel", "Dst", "inputs", *(f"{_short(a)} = {_short(b)}" for a, b in pairs)]
    lines += table(headers, rows, "lll" + "r" * len(pairs))
    lines += ["", "## Platforms", ""]
    lines += table(["platform", "program", "arithmetic and conversions"],
                   [[p["title"], p["program"], p["arithmetic"]] for p in model["platforms"]],
                   "lll")
    lines += ["", "## Method", "", METHOD, "",
              f"Inputs: every BF16 pattern (65,536, NaNs and denormals included); for FP32-Dst "
              f"kernels also {N.count(model['fp32_sample']['size'])} FP32 patterns "
              f"(`{model['fp32_sample']['how']}`, seed {model['fp32_sample']['seed']}). "
              "Outputs: the Dst contents (BF16 for BF16-Dst kernels, FP32 for FP32-Dst "
              "kernels).", "", "Platform differences (the reasons' names):", ""]
    lines += table(["difference", "what"], [[code(d["key"]), d["title"]]
                                            for d in model["differences"]], "ll")
    for kernel in model["kernels"]:
        lines += ["", f"## {code(kernel['kernel'])} ({kernel['dest'].upper()} Dst, reference "
                  f"function {kernel['function']})"]
        for population in kernel["populations"]:
            lines += ["", f"### {population['title']}", ""]
            lines += table(["pair", "identical", "different", "reasons", "differing inputs"],
                           [[_pair_name(p), N.count(p["identical"]), N.count(p["different"]),
                             _reasons(p), _where(p)] for p in population["pairs"]], "lrrll")
            for p in population["pairs"]:
                if p["first_different"]:
                    lines += ["", f"First differing inputs, {_pair_name(p)} (and the first of "
                              "every other reason):", ""]
                    lines += table(["input", "value", p["a"], p["b"], "reason"],
                                   [[r["input_bits"], N.value(r["input"]), r[p["a"]], r[p["b"]],
                                     r["reason"]] for r in p["first_different"]], "lrlll")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Terminal and files
# --------------------------------------------------------------------------------------------

def terminal(model: dict) -> list[str]:
    """Plain lines: per kernel, input set and pair, the identical count, the reasons and the
    first differing inputs."""
    lines = []
    for kernel, population, _ in _cases(model):
        lines.append(f"{kernel['kernel']} ({kernel['dest'].upper()} Dst), "
                     f"{population['title']}:")
        for p in population["pairs"]:
            lines.append(f"  {p['a']} vs {p['b']}: {N.count(p['identical'])} of "
                         f"{N.count(p['inputs'])} identical" +
                         (f"; {N.count(p['different'])} differ: {_reasons(p)}"
                          if p["different"] else ""))
            for r in p["first_different"]:
                lines.append(f"      {r['input_bits']} ({N.value(r['input'])}): {p['a']} "
                             f"{r[p['a']]}, {p['b']} {r[p['b']]}: {r['reason']}")
    lines += ["Answer:"] + [f"  {line[2:]}" for line in answer(model)]
    return lines


def write(model: dict, out, stem: str = "determinism") -> dict[str, Path]:
    directory = output_directory(out)
    return {"md": atomic_write(Path(directory) / f"{stem}.md", markdown(model)),
            "json": atomic_write(Path(directory) / f"{stem}.json", json_text(model))}
