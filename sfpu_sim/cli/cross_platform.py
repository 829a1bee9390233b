"""``sfpu-sim determinism KERNEL...``: the same kernel, bit for bit, on Wormhole, Blackhole and
IEEE binary32 with and without FMA; per pair of platforms the identical outputs and why the
others differ; optionally the Markdown + JSON report.

Knows the public API of :mod:`sfpu_sim.determinism`, nothing deeper.
"""
from __future__ import annotations

import shlex
import sys

from sfpu_sim import determinism as d, determinism
from sfpu_sim.cli.common import Progress
from sfpu_sim.determinism import render
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.report.files import json_text


def _command(args) -> str:
    """The command as the report records it: what decides the bits, not where files go."""
    words = ["sfpu-sim", "determinism", *args.names]
    for option, value, default in (("--fp32-samples", args.fp32_samples, d.FP32_SAMPLE_SIZE),
                                   ("--seed", args.seed, d.FP32_SAMPLE_SEED),
                                   ("--first", args.first, d.FIRST)):
        if value != default:
            words += [option, str(value)]
    return " ".join(shlex.quote(w) for w in words)


def cmd_determinism(args, console) -> int:
    if "/" in args.name or args.name in ("", ".", ".."):
        raise SfpuSimError(f"--name {args.name!r}: a file name stem without '/' (e.g. "
                           f"determinism)")
    specs = determinism.resolve(args.names)
    with Progress(total=len(specs), what="determinism") as progress:
        def step(label):
            progress.begin(label)
        model = determinism.compare(specs, sample_size=args.fp32_samples, seed=args.seed,
                                    first=args.first, command=_command(args), progress=step)
    if args.json:
        sys.stdout.write(json_text(model))
    else:
        for line in render.terminal(model):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    if args.out is not None:
        for path in render.write(model, args.out, args.name).values():
            print(f"wrote {path}", file=sys.stderr if args.json else sys.stdout)
    return 0


def add_parser(sub, parents) -> None:
    """Register ``determinism`` (``parents``: the options every command takes)."""
    parser = sub.add_parser(
        "determinism", parents=parents,
        help="the same kernel bit for bit on Wormhole, Blackhole and binary32 with and "
             "without FMA, with the reason for every difference")
    parser.add_argument("names", nargs="+", metavar="KERNEL",
                        help="registered kernel names or shell patterns (quote them: "
                             "'hellas_*')")
    parser.add_argument("--out", metavar="DIR",
                        help="also write DIR/NAME.md and DIR/NAME.json (the report)")
    parser.add_argument("--name", default="determinism",
                        help="file name stem of the report (default: determinism)")
    parser.add_argument("--json", action="store_true",
                        help="print the JSON model instead of the summary")
    parser.add_argument("--first", type=int, default=d.FIRST, metavar="N",
                        help=f"differing inputs listed per pair, besides the first of every "
                             f"reason (default: {d.FIRST})")
    parser.add_argument("--fp32-samples", type=int, default=d.FP32_SAMPLE_SIZE, metavar="N",
                        help=f"FP32 input patterns sampled for FP32-Dst kernels (default: "
                             f"{d.FP32_SAMPLE_SIZE:,}; 0: none)")
    parser.add_argument("--seed", type=int, default=d.FP32_SAMPLE_SEED,
                        help=f"seed of the FP32 sample (default: {d.FP32_SAMPLE_SEED})")
    parser.set_defaults(handler=cmd_determinism)
