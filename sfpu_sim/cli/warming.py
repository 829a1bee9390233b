"""``sfpu-sim warm [KERNEL ...]``: compile kernels' programs ahead of time (CI images)."""
from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

from sfpu_sim import registry
from sfpu_sim.cli.common import kernel_spec
from sfpu_sim.cli.options import arch_option, chips
from sfpu_sim.compile_ahead import warm
from sfpu_sim.report.files import json_text


def cmd_warm(args, console: Console) -> int:
    """Each kernel named (default: every registered one, binary ones included) compiled on
    every device path its commands run, and run once on the Machine, into the disk caches."""
    specs = [kernel_spec(name, binary=True) for name in args.kernels] if args.kernels else \
        [*registry.specs(), *registry.binary_specs()]
    chosen = chips(args, None) if args.arch else None
    rows = []
    for row in warm(specs, chosen):
        rows.append(row)
        if not args.json:
            what = "compiled" if row.compiled else f"Machine only: {row.reason}"
            console.print(f"{row.kernel} on {row.chip}, {row.path}: {what} "
                          f"({row.seconds:.1f} s)", highlight=False)
    if args.json:
        sys.stdout.write(json_text({"programs": [row.as_json() for row in rows]}))
        return 0
    table = Table(title="sfpu-sim warm")
    for column in ("programs", "compiled", "Machine only", "seconds"):
        table.add_column(column, justify="right")
    table.add_row(str(len(rows)), str(sum(r.compiled for r in rows)),
                  str(sum(not r.compiled for r in rows)), f"{sum(r.seconds for r in rows):.1f}")
    console.print(table)
    return 0


def add_parser(sub, parents) -> None:
    """Register this module's subcommand (``parents``: the options every command takes)."""
    warm = sub.add_parser("warm", parents=parents,
                          help="compile kernels' programs ahead of time, into the disk caches "
                               "(for CI images): each kernel's BF16 path through its Dst, FP32 "
                               "in and out where its Dst is FP32, and the Machine's lane loops")
    warm.add_argument("kernels", nargs="*", metavar="KERNEL",
                      help="kernels to compile (default: every registered kernel)")
    arch_option(warm, "chips to compile for (default: every chip each kernel runs on)")
    warm.add_argument("--json", action="store_true", help="one JSON document on stdout")
    warm.set_defaults(handler=cmd_warm)
