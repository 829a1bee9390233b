"""The second operand on the command line: ``sweep``, ``eval`` and ``report`` of binary kernels.

Owns: ``--y VALUES``, ``--y-range LO,HI`` and ``sweep --exhaustive`` (every y: all 2**32 pairs
of a 16-bit format), which kernel takes them (a unary kernel refuses them, a binary one needs
them), the pair sweep's terminal view and JSON, its report (:mod:`sfpu_sim.report.pair_report`:
the one-operand report model, a value axis of x with its regions, special inputs and per-lane
arrays, does not describe pairs), and ``eval`` of (x, y) pairs. Knows the public API of
:mod:`sfpu_sim.binary_device`, :mod:`sfpu_sim.fp32sweep.pair_sweep` and the registry, nothing
deeper.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np
from rich.console import Console, Group
from rich.table import Table

from sfpu_sim import formats, registry, ulp
from sfpu_sim.binary_device import (
    IN0_ADDRESS,
    IN1_ADDRESS,
    check_held_operand,
    held_operand,
    require_operands,
    run_binary_device,
)
from sfpu_sim.cli.common import (CHIPS, OPERAND_OPTIONS, Progress, _fp32_options, kernel_spec,
                                 report_files, selection)
from sfpu_sim.cli.options import chips, value_range
from sfpu_sim.cli.running import kernel_inputs
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.fp32sweep.pair_sweep import sweep_pair_list, sweep_pairs
from sfpu_sim.jsonio import hex_bits, json_number, jsonable, lane_row
from sfpu_sim.parity.harness_sample import harness_figure, harness_sample
from sfpu_sim.reference.binary_functions import BINARY_FUNCTIONS, binary_reference
from sfpu_sim.report import numbers as N
from sfpu_sim.report import pair_report
from sfpu_sim.report.files import RunFiles, json_text, output_directory
from sfpu_sim.report.markdown import mean_over
from sfpu_sim.selection import Selection
from sfpu_sim.sweeps import DevicePath, program_hash
from sfpu_sim.version import __version__

PER_Y_ROWS = 8           # second operands the terminal lists (the largest maximum first)
WORST_PAIRS = 10         # worst (x, y) pairs the terminal lists
OPTIONS = {**OPERAND_OPTIONS, "report": OPERAND_OPTIONS["sweep"]}


def second_operand(parser, command: str, unary_handler) -> None:
    """Give ``command`` (sweep, eval, report) the options of a second operand, and a handler
    that runs binary kernels here and every other kernel through ``unary_handler``."""
    parser.add_argument("--y", metavar="VALUES",
                        help="binary kernels: the second operand, comma-separated numbers "
                             "(rounded to the --in format, nearest even) or 0x patterns; "
                             + ("one for every X, or one per X" if command == "eval" else
                                "each against every x") + " (write --y=-3,2 when the first "
                                                          "is negative)")
    if command != "eval":
        parser.add_argument("--y-range", metavar="LO,HI",
                            help="binary kernels: every pattern of the --in format in "
                                 "[LO, HI] as the second operand, each against every x; LO and "
                                 "HI as --range takes them (pi/4, log(2))")
        parser.add_argument("--harness-sample", action="store_true",
                            help="binary kernels: the (x, y) pairs Tenstorrent's accuracy "
                                 "driver feeds the kernel's row of its table (its "
                                 "torch.manual_seed(0) draw reproduced, or its crafted pairs) "
                                 "in the --in format, FP32 with --dest fp32 too; beside the "
                                 "sweep, that cell's figure as the harness measures it")

    def handler(args, console: Console) -> int:
        has_y = args.y is not None or getattr(args, "y_range", None) is not None or \
            getattr(args, "harness_sample", False)
        if args.kernel is None:                         # report --all: one-operand kernels
            if has_y:
                raise SfpuSimError("--y, --y-range and --harness-sample go with one binary "
                                   "KERNEL, not --all")
            return unary_handler(args, console)
        spec = kernel_spec(args.kernel, binary=True)
        if spec.operands == 2 and getattr(args, "exhaustive", False) and command != "eval":
            has_y = True                               # every y
        require_operands(spec, has_y, OPTIONS[command])
        if spec.operands != 2:
            return unary_handler(args, console)
        return {"sweep": cmd_sweep, "eval": cmd_eval, "report": cmd_report}[command](
            args, console)
    parser.set_defaults(handler=handler)


def second_operands(args, dest: str, spec):
    """The second operands as patterns of the input format, and their description:
    ``--y`` values as written, or every pattern in ``--y-range``, ascending by value; for a
    kernel that holds its second operand (``spec.fixed_y``), that one, and only that one."""
    if getattr(args, "exhaustive", False):
        return _every_operand(args, spec)
    y, text = _given_operands(args, dest) if args.y is not None or \
        getattr(args, "y_range", None) is not None else (None, "")
    if spec.fixed_y is not None:
        if y is None:
            return held_operand(spec, args.input_format), (f"y = {spec.fixed_y:g}, the "
                                                           f"parameter the kernel holds")
        check_held_operand(spec, y, args.input_format)
    return y, text


def _given_operands(args, dest: str):
    fmt = args.input_format
    if getattr(args, "y_range", None) is None:
        texts = [text.strip() for text in args.y.split(",")]
        y = kernel_inputs(texts, fmt, dest)
        return y, f"y = {', '.join(texts)} ({len(y)} value{'' if len(y) == 1 else 's'})"
    if args.y is not None:
        raise SfpuSimError("give --y VALUES or --y-range LO,HI, not both")
    chosen = Selection(value_range(args.y_range, "--y-range"))
    every = np.arange(1 << 16, dtype=np.uint32).astype(formats.FORMATS[fmt].dtype)
    values = formats.bits_to_float64(every, fmt)
    inside = np.flatnonzero(chosen.mask(values))
    if not inside.size:
        raise SfpuSimError(f"--y-range {args.y_range}: no {fmt.upper()} value lies in "
                           f"{chosen.text.removeprefix('x in ')}")
    y = every[inside[np.argsort(values[inside], kind="stable")]]
    return y, (f"y: every {fmt.upper()} pattern in {chosen.text.removeprefix('x in ')} "
               f"({len(y):,} values)")


def _every_operand(args, spec):
    """``sweep --exhaustive``: every pattern of the 16-bit input format as y, in pattern
    order (with every x: all 2**32 pairs)."""
    if args.y is not None or args.y_range is not None:
        raise SfpuSimError("--exhaustive sweeps every y: give it without --y or --y-range")
    if spec.fixed_y is not None:
        raise SfpuSimError(f"--exhaustive: {spec.name} holds its second operand, y = "
                           f"{spec.fixed_y:g}: its sweep is every x at that y (give no "
                           f"--exhaustive)")
    fmt = args.input_format
    y = np.arange(1 << 16, dtype=np.uint32).astype(formats.FORMATS[fmt].dtype)
    return y, f"y: every {fmt.upper()} pattern ({y.size:,} values: all {y.size << 16:,} pairs)"


# What an FP32 sweep's options mean for a pair sweep: every y, and its chunks' scheduling.
PAIR_SWEEP_OPTIONS = ("--exhaustive", "--scheduler", "--chunk", "--workers", "--state",
                      "--restart")


def _refuse_unary_options(args, command: str) -> None:
    """What binary kernels do not take: an FP32 sweep (eval and the harness's sample take FP32
    pairs, through an FP32 Dst), the strided walk, the harness's per-input CSV rows."""
    sample = getattr(args, "harness_sample", False)
    taken = PAIR_SWEEP_OPTIONS if command == "sweep" and not sample else ()
    refused = [option for option in _fp32_options(args) if option not in taken]
    if sample and refused:
        raise SfpuSimError(f"{', '.join(refused)}: --harness-sample runs the driver's own "
                           f"pairs, in one run (not a streamed sweep)")
    if refused or args.input_format == "fp32" and command == "sweep" and not sample:
        raise SfpuSimError(f"{', '.join(refused) or '--in fp32'}: a binary sweep "
                           f"runs every 16-bit x (bf16, fp16) against each y; FP32 pairs go "
                           f"through eval (with --dest fp32)")
    if getattr(args, "csv", None) is not None:
        raise SfpuSimError("--csv: the accuracy harness's rows have one input: not for binary "
                           "kernels (use --json)")


def _pair_summary(args) -> dict:
    """The pair sweep ``sweep`` and ``report`` of a binary kernel run (on ``args.arch``)."""
    _refuse_unary_options(args, "sweep")
    if args.ulp != "daz-index":
        raise SfpuSimError(f"--ulp {args.ulp}: binary sweeps measure daz-index ULP only so far")
    chosen = registry.for_dest(kernel_spec(args.kernel, binary=True), args.dest)
    if getattr(args, "harness_sample", False):
        return _sample_summary(args, chosen)
    y, y_text = second_operands(args, chosen.dest, chosen.spec)
    state_path = args.state if args.state is not None else None if args.exhaustive else False
    with Progress() as progress:
        progress.begin(f"{chosen.spec.name} on {args.arch}")
        summary = sweep_pairs(chosen.spec, args.arch, y, dest=chosen.dest,
                              input_format=args.input_format,
                              output_format=args.output_format,
                              reference_rounding=args.reference_rounding,
                              selection=selection(args), progress=progress.update,
                              chunk=args.chunk, scheduler=args.scheduler,
                              workers=args.workers, state_path=state_path,
                              resume=not args.restart)
    summary.update(second_operand=y_text, instantiation_note=chosen.note,
                   device_program=chosen.modelled, operand_options=_operand_options(args))
    return summary


def _sample_summary(args, chosen) -> dict:
    """The pair summary of the accuracy driver's own pairs, with the harness's figure."""
    if args.y is not None or args.y_range is not None:
        raise SfpuSimError("--harness-sample gives both operands: not with --y or --y-range")
    spec, out = chosen.spec, args.output_format or args.input_format
    sample = harness_sample(spec.name, args.input_format, chosen.dest)
    with Progress() as progress:
        progress.begin(f"{spec.name} on {args.arch}: {sample.row}'s pairs")
        summary = sweep_pair_list(spec, args.arch, sample.x, sample.y, dest=chosen.dest,
                                  input_format=args.input_format, output_format=out,
                                  reference_rounding=args.reference_rounding,
                                  selection=selection(args), operands=sample.text)
    summary.update(second_operand=f"the driver's pairs of {sample.row}",
                   instantiation_note=chosen.note, device_program=chosen.modelled,
                   operand_options="--harness-sample",
                   harness=harness_figure(sample, spec.name, args.input_format, out,
                                          chosen.dest, args.arch))
    return summary


def _operand_options(args) -> str:
    """The options that give the same second operands, for a report's command line."""
    if getattr(args, "exhaustive", False):
        return "--exhaustive"
    if getattr(args, "y_range", None) is not None:
        return f"--y-range={args.y_range}"
    return "" if args.y is None else f"--y={args.y}"


def cmd_report(args, console: Console) -> int:
    """A binary kernel's pair sweep written as a report (Markdown, PNG, JSON) in --out."""
    for option, given in (("--csv", args.csv), ("--harness-csv", args.harness_csv)):
        if given is not None:
            raise SfpuSimError(f"{option}: the accuracy harness's rows have one input: not for "
                               f"binary kernels (the report's JSON holds the pair summary)")
    formats = report_files(args.files)
    chosen = registry.for_dest(kernel_spec(args.kernel, binary=True), args.dest)
    arches = chips(args, chosen.spec.chips)
    out, files = output_directory(args.out), RunFiles(inputs=args.kernel_files)
    for chip in arches:                   # every output claimed before any sweep
        stem = pair_report.file_stem(chosen.spec.name, chip, chosen.dest,
                                     args.reference_rounding, args.input_format,
                                     args.output_format or args.input_format,
                                     args.harness_sample)
        for fmt in formats:
            files.claim(out / f"{stem}.{fmt}", f"the report's {fmt.upper()}")
    for chip in arches:
        summary = _pair_summary(argparse.Namespace(**{**vars(args), "arch": chip}))
        written = pair_report.write(summary, out, formats)
        console.print(render(summary))
        for path in written.values():
            console.print(f"wrote {path}", highlight=False, markup=False, soft_wrap=True)
    return 0


def cmd_sweep(args, console: Console) -> int:
    """Every x against each second operand through a binary kernel: the terminal view, or the
    JSON summary with --json."""
    summary = _pair_summary(args)
    if args.json:
        sys.stdout.write(json_text(summary))
    else:
        console.print(render(summary))
    return 0


def render(s: dict):
    """The terminal view of a pair sweep: the headline, the second operands with the largest
    maximum, the worst (x, y) pairs."""
    head = Table(title=f"{s['kernel']} on {CHIPS[s['arch']]}: {s['function']} "
                       f"({s['formula']}), Dst {s['dest'].upper()}, reference "
                       f"{s['reference_rounding']}, ULP {s['ulp_convention']}",
                 show_header=False, title_justify="left")
    head.add_column("metric", style="bold")
    head.add_column("value")
    for label, value in (
            ("pairs measured", _measured_text(s)),
            ("max ULP", N.ulp(s["max_ulp"])),
            ("mean ULP", mean_over(s["mean_ulp"], s["count"], "pairs")),
            ("exact", f"{N.count(s['exact_count'])} ({N.fraction(s['exact_frac'])})"),
            *((("the harness's figure", pair_report.harness_text(s["harness"])),)
              if "harness" in s else ()),
            ("instantiation", s["instantiation_note"]),
            ("kernel hash", s["kernel_hash"])):
        head.add_row(label, value)
    by_y = _histogram(s) if "ulp_histogram" in s else _per_y(s)
    if not s["worst"]:
        return Group(head, by_y, "worst (x, y) pairs: none, every pair measured is exact")
    worst = Table(title="worst (x, y) pairs", title_justify="left")
    for column in ("x", "y", "output", "expected", "ULP"):
        worst.add_column(column, justify="right")
    for w in s["worst"][:WORST_PAIRS]:
        worst.add_row(*(f"{N.value(w[k])} {w[k + '_bits']}"
                        for k in ("x", "y", "output", "expected")), N.ulp(w["ulp"]))
    return Group(head, by_y, worst)


def _measured_text(s: dict) -> str:
    x_text = s["selection"]["text"]
    if "pairs" in s:                                     # given pairs, lane for lane
        chosen = "" if x_text == "every input" else f"; {x_text}"
        return f"{N.count(s['count'])} of {s['operands']}{chosen}"
    x_text = (f"x: every {s['input_format'].upper()} pattern" if x_text == "every input" else
              x_text if x_text.startswith("x in") else f"x: {x_text}")
    return (f"{N.count(s['count'])} (population {s['population']}; {x_text}; "
            f"{s['second_operand']})")


def _histogram(s: dict) -> Table:
    table = Table(title="pairs per ULP", title_justify="left")
    for column in ("ULP", "pairs"):
        table.add_column(column, justify="right")
    for entry in s["ulp_histogram"]:
        table.add_row(N.ulp(entry["ulp"]), N.count(entry["pairs"]))
    return table


def _per_y(s: dict) -> Table:
    per_y = s["per_y"]
    shown = per_y if len(per_y) <= PER_Y_ROWS else sorted(
        per_y, key=lambda p: -1 if p["max_ulp"] is None else -p["max_ulp"])[:PER_Y_ROWS]
    by_y = Table(title="per second operand" + (
        "" if shown is per_y else f" ({PER_Y_ROWS} of {len(per_y):,}, the largest maximum "
                                  f"first)"), title_justify="left")
    for column in ("y", "pairs measured", "max ULP"):
        by_y.add_column(column, justify="right")
    for p in shown:
        by_y.add_row(f"{N.value(p['y'])} {p['y_bits']}", N.count(p["count"]),
                     N.ulp(p["max_ulp"]))
    return by_y


def _evaluate(args) -> dict:
    """A binary kernel on the given (x, y) pairs: device output, reference and ULP per pair."""
    _refuse_unary_options(args, "eval")
    chosen = registry.for_dest(kernel_spec(args.kernel, binary=True), args.dest)
    spec, fmt, out = chosen.spec, args.input_format, args.output_format
    x = kernel_inputs(args.values, fmt, chosen.dest)
    y, _ = second_operands(args, chosen.dest, spec)
    if y.size not in (1, x.size):
        raise SfpuSimError(f"--y {args.y}: {y.size} values for {x.size} inputs X: give one y "
                           f"for every X, or one per X")
    y = np.broadcast_to(y, x.shape).copy()
    path = DevicePath(fmt, out, chosen.dest)
    program = spec.program(args.arch)
    run = run_binary_device(program, x, y, path)
    expected, exact = binary_reference(spec.function, x, y, args.reference_rounding,
                                       input_format=fmt, output_format=out)
    result = ulp.distance(exact if args.ulp == "fractional" else expected, run.output,
                          args.ulp, fmt=out)
    y_values, rows = formats.bits_to_float64(y, fmt), []
    for k in range(x.size):                              # the pairs given, a few
        row = lane_row(x[k], run.output[k], expected[k], exact[k], in_fmt=fmt, out_fmt=out,
                       kernel_fp32_bits=run.kernel_fp32[k], kernel_fp32=True,
                       ulp=result.distance[k].item() if result.counted[k] else None,
                       lane_class=ulp.LaneClass(int(result.lane_class[k])).name.lower())
        rows.append({"x_bits": row.pop("input_bits"), "x": row.pop("input"),
                     "y_bits": hex_bits(y[k], fmt), "y": json_number(y_values[k]), **row})
    return jsonable({"tool": f"sfpu-sim {__version__}", "kernel": spec.name,
                     "function": spec.function, "formula": BINARY_FUNCTIONS[spec.function][1],
                     "arch": args.arch, "instantiation": spec.instantiation,
                     "instantiation_note": chosen.note, "device_program": chosen.modelled,
                     "kernel_hash": program_hash(program), "dest": path.dest,
                     "input_format": fmt, "output_format": out,
                     "operands": f"x at Dst address {IN0_ADDRESS}, y at {IN1_ADDRESS}",
                     "reference_rounding": args.reference_rounding,
                     "ulp_convention": args.ulp, "device_path": path.steps(),
                     "results": rows})


def cmd_eval(args, console: Console) -> int:
    """A binary kernel on a few (x, y) pairs: output, reference and ULP for each."""
    data = _evaluate(args)
    if args.json:
        sys.stdout.write(json_text(data))
        return 0
    table = Table(title=f"{data['kernel']} ({data['formula']}) on {CHIPS[data['arch']]} (Dst "
                        f"{data['dest'].upper()}, reference {data['reference_rounding']}, ULP "
                        f"{data['ulp_convention']})", caption=data["instantiation_note"])
    for column in ("x", "y", "device output", "expected", "reference (exact)", "ULP",
                   "kernel FP32 result", "class"):
        table.add_column(column, justify="right", overflow="fold")
    for row in data["results"]:
        table.add_row(*(f"{row[k + '_bits']} {N.value(row[k])}"
                        for k in ("x", "y", "output", "expected")),
                      N.real(row["reference"]), N.ulp(row["ulp"]),
                      f"{row['kernel_fp32_bits']} {N.value(row['kernel_fp32'])}",
                      row["lane_class"])
    console.print(table)
    return 0
