"""``sfpu-sim diff A B``: two programs on the same inputs, lane by lane, and the first
instruction where they part."""
from __future__ import annotations

import sys

import numpy as np
from rich.console import Console
from rich.table import Table

from sfpu_sim import formats, registry
from sfpu_sim.cli.common import CHIPS, kernel_spec, selection, sweep_options
from sfpu_sim.cli.options import chips, values_option
from sfpu_sim.cli.running import kernel_inputs
from sfpu_sim.diff import diff
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.report.files import json_text
from sfpu_sim.sweeps import DevicePath


def _resolve(text: str):
    """``[FILE.py:]NAME[@CHIP]`` -> (name, KernelSpec, chip or None). A file given here is
    loaded on its own, so two files may both define a kernel of the same name."""
    body, _, chip = text.rpartition("@") if "@" in text else (text, "", "")
    if chip and chip not in CHIPS:
        raise SfpuSimError(f"diff {text!r}: unknown chip {chip!r} (choose from: "
                           f"{', '.join(CHIPS)})")
    if ".py:" in body:
        path, _, name = body.rpartition(":")
        specs = registry.load_isolated(path)
        if name not in specs:
            raise SfpuSimError(f"diff {text!r}: {path} registers no kernel {name!r} (it "
                               f"registers: {', '.join(sorted(specs)) or 'none'})")
        return body, specs[name], chip or None
    return body, kernel_spec(body), chip or None


def _pairs(args) -> list[tuple]:
    """The programs to diff, ((label, spec, chip), (label, spec, chip)) per pair: an item
    without @CHIP on each chip of --arch (by default every chip both kernels run on)."""
    items = [_resolve(args.a), _resolve(args.b)]
    free = [spec for _, spec, chip in items if chip is None]
    common = set(CHIPS).intersection(*(spec.chips for spec in free))
    pairs = []
    for chip in chips(args, common) if free else [None]:
        pair = tuple((f"{name}@{fixed or chip}", spec, fixed or chip)
                     for name, spec, fixed in items)
        if pair not in pairs:
            pairs.append(pair)
    return pairs


def _inputs(args, path):
    """The 16-bit patterns both programs run on, in the format the Dst holds them (FP16 with
    --in fp16; BF16 otherwise, widened into an FP32 Dst or tensor)."""
    if args.x:
        return kernel_inputs(args.x, path.dst16, path.dest), "the inputs given"
    chosen = selection(args)
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    name = path.dst16.upper()
    if chosen.everything:
        return every, f"every {name} pattern"
    keep = chosen.mask(formats.bits_to_float64(every, path.dst16))
    if not keep.any():
        raise SfpuSimError(f"no {name} input lies in {chosen.text}")
    return every[keep], chosen.text


def _followed(first: dict) -> str:
    """How many lanes part at the first divergence, of how many followed, of how many
    differ: past the cap, only the first differing lanes are followed."""
    parted, followed = f"{first['lanes']:,}", first["lanes_tracked"]
    differing = first["lanes_differing"]
    if followed == differing:
        return f"parts {parted} of the {differing:,} differing lanes (all followed)"
    return (f"parts {parted} of the {followed:,} lanes followed: the first {followed:,} of "
            f"the {differing:,} differing lanes, in input order (a diff follows at most "
            f"{first['lanes_tracked_limit']:,})")


def cmd_diff(args, console: Console) -> int:
    """A against B on each chip (a pair per chip where an item has no @CHIP)."""
    pairs = _pairs(args)
    if args.json and len(pairs) > 1:
        raise SfpuSimError(f"--json prints one diff: give one --arch, or @CHIP on both items "
                           f"(here: {', '.join(a[0] + ' vs ' + b[0] for a, b in pairs)})")
    status = 0
    for k, (a, b) in enumerate(pairs):
        if k:
            console.print()
        status = max(status, _diff_pair(args, a, b, console))
    return status


def _diff_pair(args, a, b, console: Console) -> int:
    (label_a, spec_a, chip_a), (label_b, spec_b, chip_b) = a, b
    dest = args.dest or spec_a.dest
    if not args.dest and spec_a.dest != spec_b.dest:
        raise SfpuSimError(f"{label_a} is written for a {spec_a.dest.upper()} Dst and "
                           f"{label_b} for {spec_b.dest.upper()}: choose one with --dest")
    path = DevicePath(args.input_format, args.output_format, dest)
    inputs, which = _inputs(args, path)
    result = diff(spec_a.program(chip_a), spec_b.program(chip_b), inputs, path)
    data = {**result.as_dict((label_a, label_b)), "selection": which}
    if args.json:
        sys.stdout.write(json_text(data))
        return 0
    console.print(f"{label_a} vs {label_b} over {data['inputs']:,} inputs ({which}), Dst "
                  f"{dest.upper()}: {data['identical_lanes']:,} identical lanes, "
                  f"{data['differing_lanes']:,} differing", highlight=False, markup=False)
    console.print(f"alignment: {data['alignment']}", highlight=False, markup=False)
    first = data["first_divergence"]
    if first is None:
        console.print("no lane differs" if not data["differing_lanes"] else
                      "no compared instruction writes different values (the programs part "
                      "in instructions the alignment could not match)", markup=False)
        return 0
    where = f"{first['source']}: {first['line']}" if first["source"] else "no source line"
    console.print(f"first divergence: instruction {first['index']} ({first['instruction']}) "
                  f"[B: instruction {first['index_b']}], {where}; {_followed(first)}",
                  highlight=False, markup=False)
    for u in first["unmatched_before"]:
        console.print(f"  just before it, only in {u['program']}: instruction {u['index']} "
                      f"({u['instruction']}), {u['source']}: {u['line']}", highlight=False,
                      markup=False)
    table = Table(title="examples at the first divergence, and the outputs")
    for column in ("input", "A writes", "B writes", "A output", "B output"):
        table.add_column(column)
    outputs = {e["input_bits"]: e for e in data["examples"]}
    for e in first["examples"]:
        out = outputs.get(e["input_bits"], {})
        table.add_row(e["input_bits"], e["a_value"], e["b_value"] or "",
                      out.get("a_bits", ""), out.get("b_bits", ""))
    console.print(table)
    return 0


def add_parser(sub, parents) -> None:
    """Register this module's subcommands (``parents``: the options every command takes)."""
    diff = sub.add_parser(
        "diff", parents=parents,
        help="two programs on the same inputs: differing lanes and the first instruction "
             "where they part",
        description="A and B: KERNEL, KERNEL@CHIP, or FILE.py:KERNEL[@CHIP] (a kernel file "
                    "loaded on its own, so two versions may share a name). Examples: 'diff "
                    "tanh tanh_v2 --arch wormhole', 'diff tanh@wormhole tanh@blackhole', "
                    "'diff old.py:my_exp new.py:my_exp --arch blackhole'.")
    diff.add_argument("a", metavar="A")
    diff.add_argument("b", metavar="B")
    values_option(diff, "--x", "inputs (numbers, rounded to nearest even with a note when not "
                               "exact, or 0x bits; BF16, FP16 with --in fp16) instead of every "
                               "pattern; negative: --x=-3")
    sweep_options(diff, arch="chips for items without @CHIP, a diff each (default: every chip "
                             "both kernels run on)", select=True, measure=False)
    diff.add_argument("--json", action="store_true", help="print JSON on stdout")
    diff.set_defaults(handler=cmd_diff)
