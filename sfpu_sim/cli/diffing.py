"""``sfpu-sim diff A B``: two programs on the same inputs, lane by lane, and the first
instruction where they part."""
from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

from sfpu_sim.cli.common import CHIPS, kernel_spec, selection
from sfpu_sim.errors import SfpuSimError


def _resolve(text: str, default_arch: str | None):
    """``[FILE.py:]NAME[@CHIP]`` -> (label, KernelSpec, chip). A file given here is loaded on
    its own, so two files may both define a kernel of the same name."""
    from sfpu_sim import registry

    body, _, chip = text.rpartition("@") if "@" in text else (text, "", "")
    chip = chip or default_arch
    if chip is None:
        raise SfpuSimError(f"diff {text!r}: give its chip as {text}@wormhole, or --arch")
    if chip not in CHIPS:
        raise SfpuSimError(f"diff {text!r}: unknown chip {chip!r} (choose from: "
                           f"{', '.join(CHIPS)})")
    if ".py:" in body:
        path, _, name = body.rpartition(":")
        specs = registry.load_isolated(path)
        if name not in specs:
            raise SfpuSimError(f"diff {text!r}: {path} registers no kernel {name!r} (it "
                               f"registers: {', '.join(sorted(specs)) or 'none'})")
        return f"{body}@{chip}", specs[name], chip
    return f"{body}@{chip}", kernel_spec(body), chip


def _inputs(args, path):
    """The 16-bit patterns both programs run on, in the format the Dst holds them (FP16 with
    --in fp16; BF16 otherwise, widened into an FP32 Dst or tensor)."""
    import numpy as np

    from sfpu_sim import formats
    from sfpu_sim.cli.running import kernel_inputs

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
    from sfpu_sim.diff import diff
    from sfpu_sim.report.files import json_text
    from sfpu_sim.sweeps import DevicePath

    label_a, spec_a, chip_a = _resolve(args.a, args.arch)
    label_b, spec_b, chip_b = _resolve(args.b, args.arch)
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
    from sfpu_sim.cli.common import sweep_options

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
    diff.add_argument("--arch", choices=list(CHIPS), help="chip for items without @CHIP")
    diff.add_argument("--x", action="append", metavar="VALUE",
                      help="an input (a number, rounded to nearest even with a note when "
                           "not exact, or 0x bits; BF16, FP16 with --in fp16; repeatable) "
                           "instead of every pattern")
    sweep_options(diff, arch="none", select=True, measure=False)
    diff.add_argument("--json", action="store_true", help="print JSON on stdout")
    diff.set_defaults(handler=cmd_diff)
