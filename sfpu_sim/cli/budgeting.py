"""The ``budget`` command: predicted sfpu_accuracy_budget.yaml rows of kernels, the accuracy
table's cells as tt-llk's harness measures them (``--all`` or ops), their Float32 cells over
every FP32 input (``--in Float32 --exhaustive``), and ``--check`` of a budget file."""
from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sfpu_sim import ops
from sfpu_sim.cli.common import CHIPS, Progress, kernel_spec, run_sweep, selection, sweep_options
from sfpu_sim.cli.options import chips
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.parity import budget_file, device_table, exhaustive, predict
from sfpu_sim.report import budget, model
from sfpu_sim.report.files import atomic_write, output_directory
from sfpu_sim.version import __version__


def cmd_budget(args, console: Console) -> int:
    """Predicted sfpu_accuracy_budget.yaml rows for kernels, or (--all, or op names) the
    accuracy table's cells as the harness measures them."""
    if args.reference is not None:
        raise SfpuSimError("budget: --reference does not apply: a budget row is an op's worst "
                           "ULP against that op's own golden (tt-llk's, keyed by the op), not "
                           "against an expression; use `sfpu-sim sweep KERNEL --reference "
                           "EXPR` or `report` to measure a kernel against one")
    if args.every_pair and (args.check or args.exhaustive or not _op_names(args.kernels)):
        raise SfpuSimError("budget --every-pair: name binary rows of the accuracy table (e.g. "
                           "SfpuElwadd); it does not combine with --check or --exhaustive")
    if args.mixed and (args.check or args.exhaustive or not (args.all or
                                                            _op_names(args.kernels))):
        raise SfpuSimError("budget --mixed: name ops of the accuracy table or --all; --check "
                           "checks a file's mixed rows already, --exhaustive is Float32 only")
    if args.check:
        return _budget_check(args, console)
    if args.exhaustive:
        return _budget_exhaustive(args, console)
    if args.all or _op_names(args.kernels):
        return _budget_table(args, console)
    if args.emit_yaml:
        raise SfpuSimError("budget: --emit-yaml writes rows of the accuracy table's ops: name "
                           "ops (e.g. Tanh) or --all; kernels print their rows on stdout")
    if not args.kernels:
        raise SfpuSimError("budget: name kernels (yaml rows from sweeps), ops of the accuracy "
                           "table (e.g. Gelu), or --all (every op of the table)")
    jobs = []
    for name in args.kernels:
        jobs += [(name, chip) for chip in chips(args, kernel_spec(name).chips)]
    models = []
    with Progress(total=len(jobs), what="budget") as progress:
        for name, chip in jobs:
            models.append(model.build(run_sweep(args, name, chip, progress,
                                                 ulp_convention="daz-index")))
    sys.stdout.write(budget.render(models))
    return 0


def _op_names(names: list[str]) -> bool:
    """Whether ``names`` are ops of the accuracy table (rows or keys, e.g. ``Gelu``) rather
    than kernels; a mixture is refused."""
    rows = device_table.read()
    known = {ops.Op(row, "").key for row in rows} | set(rows) | set(device_table.read_binary())
    found = [name in known for name in names]
    if any(found) and not all(found):
        kernels = [n for n, f in zip(names, found) if not f]
        raise SfpuSimError(f"budget: give ops of the accuracy table or kernels, not both "
                           f"(not ops: {', '.join(kernels)})")
    return bool(names) and all(found)


def _budget_table(args, console: Console) -> int:
    """``budget --all`` / ``budget OP...``: each cell predicted as tt-llk's harness measures it
    (sfpu_sim.parity), JSON lines with --json, else a table; cells not modelled say why."""
    if args.kernels and args.all:
        raise SfpuSimError("budget: --all takes every op; name ops without --all")
    rows = predict.choose_rows(args.kernels or None)
    # --emit-yaml: Blackhole unless named: unkeyed rows already hold Wormhole's measurements,
    # and a predicted row keyed arch: wormhole would outrank them in the harness's resolution.
    chosen = chips(args) if args.arch else ["blackhole"] if args.emit_yaml else list(CHIPS)
    target = _emit_target(args.emit_yaml) if args.emit_yaml else None
    records = []
    with Progress(total=None, what="budget") as progress:
        for record in predict.records(rows, chosen, progress=progress.step,
                                      every_pair=args.every_pair, mixed=args.mixed):
            records.append(record)
            if args.json:
                sys.stdout.write(json.dumps(record, sort_keys=True) + "\n")
                sys.stdout.flush()
    if target is not None:
        _write_budget_yaml(target, records, console)
    if args.json or target is not None:
        return 0
    table = Table(title="Accuracy table cells as tt-llk's harness measures them (device: "
                        "Wormhole, 2026-09-30)")
    for column in ("op", "in -> out", "dest", "chip", "predicted", "device", "equal",
                   "kernel"):
        table.add_column(column, overflow="fold")
    skipped = {}
    for r in records:
        if r["max_ulp"] is None and r.get("reason"):
            reasons = skipped.setdefault(r["row"], [])     # each distinct reason, once
            if r["reason"] not in reasons:
                reasons.append(r["reason"])
            continue
        table.add_row(r["row"], f"{r['in']} -> {r['out']}", r["dest"], r["arch"],
                      f"{r['max_ulp']:,}" if r["max_ulp"] is not None else "none measurable",
                      r["device_text"] or "", {True: "yes", False: "NO", None: ""}[r["match"]],
                      r["kernel"]["instantiation"] or r["kernel"]["name"])
    console.print(table, markup=False)
    for r in records:
        if r.get("match") is False:
            console.print(f"differs: {r['row']} {r['in']} dest={r['dest']} on {r['arch']}: "
                          f"{r.get('mismatch_cause') or 'cause not recorded'}", markup=False,
                          highlight=False)
    for row, reasons in skipped.items():
        for reason in reasons:
            console.print(f"not modelled: {row}: {reason}", markup=False, highlight=False)
    compared = [r for r in records if r.get("match") is not None]
    equal = sum(r["match"] for r in compared)
    console.print(f"{equal} of {len(compared)} measured cells predicted exactly", markup=False)
    return 0


def _budget_exhaustive(args, console: Console) -> int:
    """``budget OPS|--all --in Float32 --exhaustive [--range LO,HI]``: each modelled Float32
    cell over every FP32 input (sfpu_sim.parity.exhaustive), beside the harness's strided walk
    over the same inputs and the device's figure; JSON lines with --json, else a table."""
    if args.input_format != "fp32":
        raise SfpuSimError("budget --exhaustive measures the table's Float32 cells over every "
                           "FP32 input: give --in Float32")
    if args.emit_yaml or args.region or args.output_format != "bf16":
        raise SfpuSimError("budget --exhaustive takes ops or --all, --arch, --range and --json "
                           "(not --emit-yaml, --region or --out-format: a Float32 cell is "
                           "Float32 in and out)")
    if args.kernels and args.all:
        raise SfpuSimError("budget: --all takes every op; name ops without --all")
    if not args.all and not _op_names(args.kernels):
        raise SfpuSimError("budget --exhaustive: name ops of the accuracy table (e.g. Tanh) "
                           "or --all, not kernels (sweep --in fp32 --exhaustive sweeps a "
                           "kernel)")
    rows = predict.choose_rows(args.kernels or None)
    value_range = selection(args).range
    records = []
    with Progress(total=None, what="budget --exhaustive") as progress:
        for record in exhaustive.records(rows, chips(args), value_range,
                                         progress=progress.step):
            records.append(record)
            if args.json:
                sys.stdout.write(json.dumps(record, sort_keys=True) + "\n")
                sys.stdout.flush()
    if args.json:
        return 0
    table = Table(title=f"Float32 cells, {exhaustive.label(value_range)}, beside the "
                        f"harness's strided walk over the same inputs and the device "
                        f"(Wormhole, 2026-09-30)")
    for column in ("op", "dest", "chip", exhaustive.label(value_range), "strided",
                   "device", "kernel"):
        table.add_column(column, overflow="fold")

    def figure(value):
        return "none measurable" if value is None else f"{value:,}"
    for r in records:
        if r["max_ulp"] is None and r.get("reason"):
            continue
        table.add_row(r["row"], r["dest"], r["arch"], figure(r["max_ulp"]),
                      figure(r["strided_max_ulp"]), r["device_text"] or "",
                      r["kernel"]["instantiation"] or r["kernel"]["name"])
    console.print(table, markup=False)
    for r in records:
        if r["max_ulp"] is None and r.get("reason"):
            console.print(f"not modelled: {r['row']} dest={r['dest']}: {r['reason']}",
                          markup=False, highlight=False)
    return 0


def _emit_target(path: str):
    """The --emit-yaml path, its directory checked before any cell is predicted."""
    target = Path(path)
    output_directory(target.parent if str(target.parent) else Path("."))
    return target


def _write_budget_yaml(target, records: list[dict], console: Console) -> None:
    cells, skipped = budget_file.cells_of_records(records)
    text = budget_file.render(cells, f"sfpu-sim {__version__}, emulated",
                              "exhaustive Float16_b/Float16 + strided Float32 sweep", skipped,
                              datetime.date.today().isoformat(),
                              {r["op"]: r["stimuli"] for r in records if r.get("stimuli")})
    atomic_write(target, text)
    console.print(f"wrote {target} ({len(cells)} rows)", highlight=False, markup=False,
                  soft_wrap=True)


def _budget_check(args, console: Console) -> int:
    """``budget --check FILE``: every row of a budget file that sfpu-sim models, predicted and
    set against its budget; 1 if a row is over it."""
    if args.kernels or args.all or args.emit_yaml:
        raise SfpuSimError("budget: --check FILE takes no ops, kernels, --all or --emit-yaml "
                           "(it checks every row of FILE it can model)")
    table = budget_file.read(args.check)
    chosen = chips(args, budget_file.CHIPS)
    with Progress(total=None, what="budget --check") as progress:
        checks = budget_file.check(table, chosen, explicit=bool(args.arch),
                                   progress=progress.step)
    lines, status = budget_file.report(checks, args.check)
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    return status


def add_parser(sub, parents) -> None:
    """Register ``budget`` (``parents``: the options every command takes)."""
    budget = sub.add_parser("budget", parents=parents,
                            help="predicted sfpu_accuracy_budget.yaml rows (daz-index ULP, "
                                 "exhaustive sweeps)")
    budget.add_argument("kernels", nargs="*", metavar="KERNEL_OR_OP",
                        help="kernels (predicted yaml rows), or ops of Tenstorrent's accuracy "
                             "table by row or key (e.g. Gelu, or a binary op such as "
                             "SfpuElwadd: its driver's own pairs, reproduced, then cached): "
                             "their cells as the harness measures them")
    budget.add_argument("--all", action="store_true",
                        help="every unary row of the accuracy table, every cell, both chips "
                             "(binary rows by name)")
    budget.add_argument("--json", action="store_true",
                        help="with ops or --all: one JSON object per cell on stdout")
    sweep_options(budget, arch="the chips (default: every chip each kernel runs on; with "
                               "--emit-yaml, blackhole; with --check, each row's own chip, "
                               "Wormhole for rows without arch)", budget=True, select=True)
    budget.add_argument("--every-pair", action="store_true",
                        help="binary rows drawn at random: the maximum over every pair of "
                             "Float16_b or Float16 patterns the driver's draw can produce (the "
                             "bound on any sample; minutes a cell the first time, then cached) "
                             "instead of the driver's own pairs")
    budget.add_argument("--mixed", action="store_true",
                        help="with ops or --all: a unary op's cells between Float16_b, Float16 "
                             "and Float32 too (the yaml's mixed rows; the table holds no device "
                             "figure for them)")
    budget.add_argument("--exhaustive", action="store_true",
                        help="with ops or --all and --in Float32: each Float32 cell over "
                             "every FP32 input (or every one in --range), beside the "
                             "harness's strided walk")
    budget.add_argument("--emit-yaml", metavar="FILE",
                        help="with ops or --all: write the predicted cells as rows of tt-llk's "
                             "sfpu_accuracy_budget.yaml, keyed by chip")
    budget.add_argument("--check", metavar="FILE",
                        help="predict every row of a budget yaml that sfpu-sim models and "
                             "compare it with its budget (exit 1 if one is over)")
    budget.add_argument("--reference", metavar="EXPR",
                        help="refused: a budget row is measured against the op's own golden "
                             "(sweep and report take --reference)")
    budget.set_defaults(handler=cmd_budget)
