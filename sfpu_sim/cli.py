"""The ``sfpu-sim`` command. Knows the public API of the package, nothing deeper.

Every error a user can cause is an :class:`~sfpu_sim.errors.SfpuSimError`: it is printed as one
line and the command exits non-zero, without a traceback.
"""
from __future__ import annotations

import argparse
import platform
import sys

from rich.console import Console
from rich.table import Table

import sfpu_sim
from sfpu_sim.errors import SfpuSimError

CHIPS = {
    "wormhole": "Wormhole B0",
    "blackhole": "Blackhole A0",
}


def _versions() -> dict[str, str]:
    from importlib.metadata import version

    packages = ("numpy", "numba", "ml_dtypes", "mpmath", "bitstring", "rich")
    return {"sfpu-sim": sfpu_sim.__version__, "python": platform.python_version(),
            **{name: version(name) for name in packages}}


def cmd_info(args, console: Console) -> int:
    """Supported chips and the versions of everything that decides the bits."""
    chips = Table(title="Supported chips")
    chips.add_column("--arch")
    chips.add_column("chip")
    chips.add_column("SFPMAD model")
    for key, name in CHIPS.items():
        chips.add_row(key, name, f"sfpu_sim.fma.fma_{key}")
    console.print(chips)
    versions = Table(title="Versions")
    versions.add_column("component")
    versions.add_column("version")
    for name, version in _versions().items():
        versions.add_row(name, version)
    console.print(versions)
    return 0


def cmd_asm(args, console: Console) -> int:
    """Assemble a file: one word per line, with its canonical text as a comment."""
    from sfpu_sim.asm import assemble_file, format_instruction

    program = assemble_file(args.file, args.arch)
    for instruction in program:
        print(f"{instruction.word:#010x}  # {format_instruction(instruction)}")
    return 0


def cmd_disasm(args, console: Console) -> int:
    from sfpu_sim.asm import decode, format_instruction

    for text in args.words:
        try:
            word = int(text, 0)
        except ValueError:
            raise SfpuSimError(f"{text!r} is not an instruction word (write e.g. 0x8f000000)")
        print(format_instruction(decode(word, args.arch, source=text)))
    return 0


def _parse_lreg_option(text: str) -> tuple[int, list[int]]:
    from sfpu_sim.display import parse_value

    register, sep, values = text.partition("=")
    if not sep or not register.strip().lstrip("Ll").isdigit():
        raise SfpuSimError(f"--lreg {text!r}: write REG=VALUE[,VALUE...], e.g. 0=1.5 or "
                           f"L3=0x3f800000")
    index = int(register.strip().lstrip("Ll"))
    if not 0 <= index <= 15:
        raise SfpuSimError(f"--lreg {text!r}: register {index} out of range (0..15)")
    try:
        return index, [parse_value(v) for v in values.split(",")]
    except ValueError as error:
        raise SfpuSimError(f"--lreg {text!r}: {error}") from None


def cmd_run(args, console: Console) -> int:
    """Run an assembly file on a fresh machine and show registers (and traces)."""
    import warnings

    from sfpu_sim.asm import assemble_file
    from sfpu_sim.machine import HazardWarning, Machine
    from sfpu_sim.display import render_registers, render_trace

    program = assemble_file(args.file, args.arch)
    machine = Machine(args.arch, lanes=args.lanes, strict=args.strict)
    for option in args.lreg or []:
        index, values = _parse_lreg_option(option)
        if len(values) == 1:
            machine.lreg[index] = values[0]
        else:
            if len(values) > machine.lanes:
                raise SfpuSimError(f"--lreg {option!r}: {len(values)} values for "
                                   f"{machine.lanes} lanes")
            machine.lreg[index, :len(values)] = values
    lanes = args.lane or [0]
    for lane in lanes:
        if not 0 <= lane < machine.lanes:
            raise SfpuSimError(f"--lane {lane} out of range (0..{machine.lanes - 1})")
    trace = machine.record(lanes) if args.trace else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HazardWarning)
        machine.run(program)
    for warning in caught:
        Console(stderr=True).print(f"sfpu-sim: warning: {warning.message}", markup=False,
                                   highlight=False)
    if trace is not None:
        console.print(render_trace(trace))
    console.print(render_registers(machine, lanes))
    return 0


# --------------------------------------------------------------------------------------------
# Sweeps and reports
# --------------------------------------------------------------------------------------------

class _Progress:
    """A transient progress display on stderr (only on a terminal): ``step(label)`` names the
    current step of a sweep, ``advance()`` counts finished sweeps."""

    def __init__(self, total: int = 1, what: str = "sweep"):
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,
                                   TextColumn, TimeElapsedColumn)

        stderr = Console(stderr=True)
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"),
                                 BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 console=stderr, transient=True,
                                 disable=not stderr.is_terminal)
        self.task = self.progress.add_task(what, total=total)
        self.prefix = what

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        return self.progress.__exit__(*exc)

    def begin(self, prefix: str) -> None:
        self.prefix = prefix
        self.progress.update(self.task, description=prefix)

    def step(self, label: str) -> None:
        self.progress.update(self.task, description=f"{self.prefix}: {label}")

    def advance(self) -> None:
        self.progress.advance(self.task)


def _kernel_spec(name: str):
    from sfpu_sim import registry

    return registry.get(name)


def _run_sweep(args, kernel: str, arch: str, progress: _Progress, *, dest: str | None = None,
               ulp_convention: str | None = None):
    from sfpu_sim.sweeps import sweep

    spec = _kernel_spec(kernel)
    progress.begin(f"{kernel} on {arch}")
    result = sweep(spec, arch, dest=dest or args.dest or spec.dest,
                   input_format=args.input_format, output_format=args.output_format,
                   reference_rounding=args.reference_rounding,
                   ulp_convention=ulp_convention or args.ulp, progress=progress.step)
    progress.advance()
    return result


def _csv_target(path: str | None):
    """The --csv path, its directory checked before any sweep runs."""
    from pathlib import Path

    from sfpu_sim.report.files import output_directory

    if path is None:
        return None
    target = Path(path)
    output_directory(target.parent if str(target.parent) else Path("."))
    if target.is_dir():
        raise SfpuSimError(f"--csv {path}: is a directory (give a file name)")
    return target


def _write_csv(target, m: dict, result, console: Console) -> None:
    from sfpu_sim.report.files import atomic_write
    from sfpu_sim.report.harness import csv_text

    atomic_write(target, csv_text(m, result.arrays))
    console.print(f"wrote {target}", highlight=False, markup=False, soft_wrap=True)


def cmd_report(args, console: Console) -> int:
    """Sweep a kernel and write its diagnostic report (Markdown, PNG, JSON)."""
    from sfpu_sim import report
    from sfpu_sim.report.files import output_directory
    from sfpu_sim.report.terminal import render

    formats = report.parse_formats(args.format)
    if args.all:
        if args.kernel or args.csv:
            raise SfpuSimError("--all writes every kernel's report: give no KERNEL and no "
                               "--csv with it")
        return _report_all(args, console, formats, output_directory(args.out))
    if not args.kernel:
        raise SfpuSimError("give a KERNEL (or --all for every registered kernel)")
    _kernel_spec(args.kernel)                           # an unknown name before any directory
    if not args.arch:
        raise SfpuSimError("--arch is required (blackhole or wormhole)")
    out = output_directory(args.out)
    csv_target = _csv_target(args.csv)
    with _Progress() as progress:
        result = _run_sweep(args, args.kernel, args.arch, progress)
        progress.step("writing the report")
        m, written = report.write(result, out, formats)
        if csv_target is not None:
            _write_csv(csv_target, m, result, console)
    console.print(render(m))
    for path in written.values():
        console.print(f"wrote {path}", highlight=False, markup=False, soft_wrap=True)
    return 0


def _report_all(args, console: Console, formats, out) -> int:
    from sfpu_sim import registry, report
    from sfpu_sim.report.files import atomic_write

    jobs = [(spec, chip) for spec in registry.specs() for chip in CHIPS
            if chip in spec.chips and (args.arch is None or chip == args.arch)]
    if not jobs:
        raise SfpuSimError("no registered kernel runs on the chosen chip")
    entries, failures = [], []
    with _Progress(total=len(jobs), what="reports") as progress:
        for spec, chip in jobs:
            try:
                result = _run_sweep(args, spec.name, chip, progress, dest=spec.dest)
            except SfpuSimError as error:               # one broken kernel spoils no others
                failures.append((spec.name, chip, str(error)))
                progress.advance()
                continue
            progress.step("writing the report")
            m, written = report.write(result, out, formats)
            entries.append((m, written["md"].name if "md" in written else None))
    index = atomic_write(out / "README.md", report.index_markdown(entries, failures))
    table = Table(title=f"{len(entries)} reports in {out}")
    for column in ("kernel", "chip", "Dst", "max ULP", "mean ULP", "exact"):
        table.add_column(column)
    from sfpu_sim.report import numbers as N
    from sfpu_sim.report.markdown import mean_over

    for m, _ in entries:
        table.add_row(m["kernel"], m["chip"], m["dest"].upper(), N.ulp(m["max_ulp"]),
                      mean_over(m["mean_ulp"], m["measured"]), N.fraction(m["exact_frac"]))
    console.print(table)
    console.print(f"wrote {index}", highlight=False, markup=False, soft_wrap=True)
    stderr = Console(stderr=True)
    for name, chip, message in failures:
        stderr.print(f"sfpu-sim: error: {name} on {chip}: {message}", markup=False,
                     highlight=False, soft_wrap=True)
    return 1 if failures else 0


def cmd_sweep(args, console: Console) -> int:
    """Sweep a kernel: the terminal view, or the JSON summary with --json."""
    from sfpu_sim.report import model
    from sfpu_sim.report.files import json_text
    from sfpu_sim.report.terminal import render

    csv_target = _csv_target(args.csv)
    with _Progress() as progress:
        result = _run_sweep(args, args.kernel, args.arch, progress)
    m = model.build(result) if (csv_target is not None or not args.json) else None
    if csv_target is not None:
        _write_csv(csv_target, m, result, Console(stderr=True) if args.json else console)
    if args.json:
        sys.stdout.write(json_text(model.jsonable(result.summary)))
    else:
        console.print(render(m))
    return 0


def _parse_bf16(text: str) -> int:
    """An eval input: ``0x`` BF16 bits, or a float literal rounded to BF16 (nearest even)."""
    import numpy as np

    from sfpu_sim.reference import round_values

    lowered = text.strip().lower()
    if lowered.startswith(("0x", "-0x")):
        try:
            bits = int(lowered, 16)
        except ValueError:
            raise SfpuSimError(f"{text!r} is not a bit pattern (write e.g. 0x3f80)") from None
        if not 0 <= bits <= 0xFFFF:
            raise SfpuSimError(f"{text!r} is not a BF16 bit pattern (0x0000..0xffff)")
        return bits
    try:
        value = float(lowered)
    except ValueError:
        raise SfpuSimError(f"{text!r} is neither a number nor a 0x BF16 bit pattern") from None
    return int(round_values(np.array([value]), "rne", "bf16")[0])


def _evaluate(args) -> dict:
    """The kernel on the given inputs: device output, reference and ULP per input."""
    import numpy as np

    from sfpu_sim import reference, ulp
    from sfpu_sim.sweeps import hex_bits, json_number, jsonable, pattern_values
    from sfpu_sim.sweeps import DevicePath, program_hash, run_device

    spec = _kernel_spec(args.kernel)
    inputs = np.array([_parse_bf16(x) for x in args.values], dtype=np.uint16)
    path = DevicePath(args.input_format, args.output_format, args.dest or spec.dest)
    program = spec.program(args.arch)
    run = run_device(program, inputs, path)
    ref = reference.reference(spec.function, inputs, args.reference_rounding,
                              output_format=args.output_format, daz=True, ftz=True)
    result = ulp.distance(ref, run.output, args.ulp)
    out = args.output_format
    rows = []
    for k, bits in enumerate(inputs.tolist()):          # the inputs given, not 65k lanes
        counted = bool(result.counted[k])
        rows.append({
            "input_bits": hex_bits(bits, "bf16"),
            "input": json_number(pattern_values(bits, "bf16")),
            "output_bits": hex_bits(run.output[k], out),
            "output": json_number(pattern_values(run.output[k], out)),
            "expected_bits": hex_bits(ref.bits[k], out),
            "expected": json_number(pattern_values(ref.bits[k], out)),
            "reference": json_number(ref.value[k]),
            "kernel_fp32_bits": hex_bits(run.kernel_fp32[k], "fp32"),
            "kernel_fp32": json_number(pattern_values(run.kernel_fp32[k], "fp32")),
            "ulp": result.distance[k].item() if counted else None,
            "lane_class": ulp.LaneClass(int(result.lane_class[k])).name.lower()})
    return jsonable({"tool": f"sfpu-sim {sfpu_sim.__version__}", "kernel": spec.name,
                     "function": spec.function, "arch": args.arch,
                     "kernel_hash": program_hash(program), "dest": path.dest,
                     "input_format": path.input_format, "output_format": out,
                     "reference_rounding": args.reference_rounding,
                     "ulp_convention": args.ulp, "device_path": path.steps(),
                     "results": rows})


def cmd_eval(args, console: Console) -> int:
    """Run a kernel on a few inputs: output, reference and ULP for each."""
    from sfpu_sim.report import numbers as N
    from sfpu_sim.report.files import json_text

    data = _evaluate(args)
    if args.json:
        sys.stdout.write(json_text(data))
        return 0
    table = Table(title=f"{data['kernel']} on {CHIPS[data['arch']]} (Dst "
                        f"{data['dest'].upper()}, reference {data['reference_rounding']}, ULP "
                        f"{data['ulp_convention']})")
    for column in ("input", "device output", "expected", "reference (exact)", "ULP",
                   "kernel FP32 result", "class"):
        table.add_column(column, justify="right", overflow="fold")
    for row in data["results"]:
        table.add_row(f"{row['input_bits']} {N.value(row['input'])}",
                      f"{row['output_bits']} {N.value(row['output'])}",
                      f"{row['expected_bits']} {N.value(row['expected'])}",
                      N.real(row["reference"]), N.ulp(row["ulp"]),
                      f"{row['kernel_fp32_bits']} {N.value(row['kernel_fp32'])}",
                      row["lane_class"])
    console.print(table)
    return 0


def _compare_items(args) -> list[tuple[str, object, str]]:
    """Each ITEM resolved, nothing swept yet: ``KERNEL`` (on every --arch), ``KERNEL@ARCH``,
    or a saved ``.json`` summary -> (label, summary or (kernel, chip), source)."""
    from pathlib import Path

    from sfpu_sim.report.compare import check_summary
    from sfpu_sim.report.files import read_json

    items = []
    for text in args.items:
        path = Path(text)
        if text.endswith(".json") or path.is_file():
            data = check_summary(read_json(path), text)
            items.append((f"{data['kernel']}@{data['arch']}", data, path.stem))
            continue
        kernel, _, arch = text.partition("@")
        arches = [arch] if arch else (args.arch or [])
        if not arches:
            raise SfpuSimError(f"compare {text!r}: give its chip as {text}@blackhole, or "
                               "--arch (repeatable)")
        _kernel_spec(kernel)                            # an unknown name fails before sweeping
        for chip in arches:
            if chip not in CHIPS:
                raise SfpuSimError(f"compare {text!r}: unknown chip {chip!r} (choose from: "
                                   f"{', '.join(CHIPS)})")
            items.append((f"{kernel}@{chip}", (kernel, chip), "sweep"))
    labels = [label for label, _, _ in items]
    return [(f"{label} ({source})" if labels.count(label) > 1 else label, data, source)
            for label, data, source in items]


def cmd_compare(args, console: Console) -> int:
    """Compare sweeps (variants, chips) or saved JSON summaries (before/after)."""
    import re

    from sfpu_sim import report
    from sfpu_sim.report import compare, model
    from sfpu_sim.report.files import output_directory

    formats = report.parse_formats(args.format)
    items = _compare_items(args)
    if len(items) < 2:
        raise SfpuSimError("compare needs at least two items: kernels with --arch, "
                           "KERNEL@ARCH, or saved .json summaries")
    out = output_directory(args.out)
    sweeps = sum(1 for _, data, _ in items if isinstance(data, tuple))
    with _Progress(total=sweeps, what="compare") as progress:
        items = [(label, model.build(_run_sweep(args, *data, progress))
                  if isinstance(data, tuple) else data, source)
                 for label, data, source in items]
    c = compare.build(items)
    stem = args.name or ("compare_" + "_vs_".join(
        re.sub(r"[^A-Za-z0-9_.]+", "-", label).strip("-") for label in c["labels"]))[:120]
    written = report.write_comparison(c, out, formats, stem)
    sys.stdout.write(compare.render(c))
    for path in written.values():
        Console(stderr=True).print(f"wrote {path}", highlight=False, markup=False,
                                   soft_wrap=True)
    return 0


def cmd_budget(args, console: Console) -> int:
    """Predicted sfpu_accuracy_budget.yaml rows for kernels."""
    from sfpu_sim.report import budget, model

    jobs = []
    for name in args.kernels:
        spec = _kernel_spec(name)
        chips = [args.arch] if args.arch else [c for c in CHIPS if c in spec.chips]
        jobs += [(name, chip) for chip in chips]
    models = []
    with _Progress(total=len(jobs), what="budget") as progress:
        for name, chip in jobs:
            models.append(model.build(_run_sweep(args, name, chip, progress,
                                                 ulp_convention="daz-index")))
    sys.stdout.write(budget.render(models))
    return 0


def cmd_kernels(args, console: Console) -> int:
    """The kernel registry as a table."""
    from sfpu_sim import registry

    table = Table(title=f"{len(registry.names())} registered kernels")
    for column in ("kernel", "function", "chips", "mode", "Dst", "provenance"):
        table.add_column(column, overflow="fold")
    for spec in registry.specs():
        table.add_row(spec.name, spec.function, ", ".join(spec.chips), spec.mode, spec.dest,
                      spec.provenance)
    console.print(table)
    return 0


def cmd_kernel_show(args, console: Console) -> int:
    """A kernel's instructions with the source line of each, and its static cost."""
    from sfpu_sim import cost
    from sfpu_sim.asm import format_instruction

    spec = _kernel_spec(args.kernel)
    program = spec.program(args.arch)
    listing = Table(title=f"{spec.name} on {CHIPS[args.arch]}: {len(program)} instructions "
                          f"({program.init_length} init, {len(program) - program.init_length} "
                          f"per iteration of 32 datums)")
    for column in ("#", "word", "instruction", "source", "line"):
        listing.add_column(column, overflow="fold")
    for k, ins in enumerate(program):
        if k == program.init_length:
            listing.add_section()
        listing.add_row(str(k), f"{ins.word:#010x}", format_instruction(ins),
                        ins.source or "", ins.line_text or "")
    console.print(listing)
    estimate = cost.estimate(program).as_dict()
    table = Table(title="Static cost estimate (issue slots from the instruction stream; not "
                        "measured cycles)")
    table.add_column("class")
    table.add_column("per iteration", justify="right")
    table.add_column("per datum", justify="right")
    for name, count in estimate["instructions_by_class"].items():
        table.add_row(name, str(count), f"{count / cost.LANES:.4f}")
    table.add_section()
    table.add_row("stall cycles (SFPSWAP / shuffles)", str(estimate["body_stall_cycles"]),
                  f"{estimate['body_stall_cycles'] / cost.LANES:.4f}")
    table.add_row("issue slots", str(estimate["issue_slots_per_iteration"]),
                  f"{estimate['issue_slots_per_datum']:.4f}")
    table.caption = (f"per 32x32 tile: {estimate['issue_slots_per_tile']:,} issue slots "
                     f"(32 iterations); init once per launch: "
                     f"{estimate['init_instructions']} instructions")
    console.print(table)
    return 0


def cmd_trace(args, console: Console) -> int:
    """What every instruction of a kernel changes in the lanes of the given inputs."""
    import numpy as np

    from sfpu_sim.display import render_trace
    from sfpu_sim.sweeps import DevicePath, run_device

    spec = _kernel_spec(args.kernel)
    inputs = np.array([_parse_bf16(x) for x in args.x], dtype=np.uint16)
    path = DevicePath(args.input_format, args.output_format, args.dest or spec.dest)
    run = run_device(spec.program(args.arch), inputs, path, trace_lanes=range(len(inputs)))
    console.print(render_trace(run.trace))
    args.values = args.x
    return cmd_eval(args, console)


def _sweep_options(parser: argparse.ArgumentParser, *, arch: str = "required") -> None:
    """The options that name a sweep's cell and its measurement."""
    from sfpu_sim import reference, ulp
    from sfpu_sim.sweeps import FORMATS

    if arch == "required":
        parser.add_argument("--arch", choices=list(CHIPS), required=True)
    elif arch == "optional":
        parser.add_argument("--arch", choices=list(CHIPS))
    parser.add_argument("--reference-rounding", choices=list(reference.policies()),
                        default="rne", help="how the reference is rounded (default: rne)")
    if arch != "budget":
        parser.add_argument("--ulp", choices=list(ulp.CONVENTIONS), default="daz-index",
                            help="ULP convention (default: daz-index)")
    parser.add_argument("--dest", choices=FORMATS,
                        help="Dst format (default: the kernel's registered one)")
    parser.add_argument("--in", dest="input_format", choices=FORMATS, default="bf16",
                        help="input tensor format (default: bf16)")
    parser.add_argument("--out-format", dest="output_format", choices=FORMATS, default="bf16",
                        help="output tensor format (default: bf16)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sfpu-sim", description=sfpu_sim.__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"sfpu-sim {sfpu_sim.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    info = sub.add_parser("info", help="supported chips and component versions")
    info.set_defaults(handler=cmd_info)

    asm = sub.add_parser("asm", help="assemble a file to 32-bit instruction words")
    asm.add_argument("file")
    asm.add_argument("--arch", choices=sorted(CHIPS), default="blackhole")
    asm.set_defaults(handler=cmd_asm)

    disasm = sub.add_parser("disasm", help="disassemble 32-bit instruction words")
    disasm.add_argument("words", nargs="+", metavar="WORD")
    disasm.add_argument("--arch", choices=sorted(CHIPS), default="blackhole")
    disasm.set_defaults(handler=cmd_disasm)

    run = sub.add_parser("run", help="run an assembly file and show registers lane by lane")
    run.add_argument("file")
    run.add_argument("--arch", choices=sorted(CHIPS), required=True)
    run.add_argument("--lreg", action="append", metavar="REG=VALUE[,VALUE...]",
                     help="preset an LReg in every lane (or lanes 0, 1, ... from a list); "
                          "values are floats (1.5, -inf, nan), integers, or 0x bit patterns")
    run.add_argument("--lanes", type=int, default=32, help="lanes (a multiple of 32)")
    run.add_argument("--lane", type=int, action="append", help="lane(s) to show (default 0)")
    run.add_argument("--trace", action="store_true", help="show what every instruction changed")
    run.add_argument("--strict", action="store_true", help="hazards are errors, not warnings")
    run.set_defaults(handler=cmd_run)

    report = sub.add_parser("report", help="exhaustive sweep and diagnostic report (Markdown, "
                                           "PNG, JSON) of a kernel, or of every kernel (--all)")
    report.add_argument("kernel", nargs="?", metavar="KERNEL")
    report.add_argument("--all", action="store_true",
                        help="every registered kernel on every chip it runs on, plus a "
                             "README.md index in --out")
    _sweep_options(report, arch="optional")
    report.add_argument("--out", default="reports", metavar="DIR",
                        help="output directory (default: reports/)")
    report.add_argument("--format", default="md,png,json",
                        help="comma-separated: md, png, json (default: all three)")
    report.add_argument("--csv", metavar="FILE",
                        help="also write per-input rows in the tt-llk accuracy-harness schema")
    report.set_defaults(handler=cmd_report)

    sweep = sub.add_parser("sweep", help="exhaustive sweep of a kernel: terminal summary, or "
                                         "the JSON summary (--json)")
    sweep.add_argument("kernel", metavar="KERNEL")
    _sweep_options(sweep)
    sweep.add_argument("--json", action="store_true", help="print the JSON summary on stdout")
    sweep.add_argument("--csv", metavar="FILE",
                       help="also write per-input rows in the tt-llk accuracy-harness schema")
    sweep.set_defaults(handler=cmd_sweep)

    evaluate = sub.add_parser("eval", help="run a kernel on given inputs: output, reference "
                                           "and ULP for each")
    evaluate.add_argument("kernel", metavar="KERNEL")
    evaluate.add_argument("values", nargs="+", metavar="X",
                          help="float literals (rounded to BF16, nearest even) or 0x BF16 bit "
                               "patterns; put -- before values such as -inf")
    _sweep_options(evaluate)
    evaluate.add_argument("--json", action="store_true", help="print JSON on stdout")
    evaluate.set_defaults(handler=cmd_eval)

    compare = sub.add_parser(
        "compare", help="compare sweeps or saved JSON summaries: Markdown for a PR body on "
                        "stdout, plus Markdown, PNG and JSON files in --out",
        description="Items: KERNEL (swept on every --arch given), KERNEL@ARCH, or a saved "
                    "JSON summary (sweep --json or a report's .json). Examples: "
                    "'compare tanh@blackhole tanh@wormhole', 'compare tanh --arch blackhole "
                    "--arch wormhole', 'compare main.json branch.json'.")
    compare.add_argument("items", nargs="+", metavar="ITEM")
    _sweep_options(compare, arch="none")
    compare.add_argument("--arch", action="append", choices=list(CHIPS),
                         help="chip(s) for items without @ARCH (repeatable)")
    compare.add_argument("--out", default="reports", metavar="DIR",
                         help="output directory (default: reports/)")
    compare.add_argument("--format", default="md,png,json",
                         help="comma-separated: md, png, json (default: all three)")
    compare.add_argument("--name", metavar="STEM", help="file name stem of the outputs")
    compare.set_defaults(handler=cmd_compare)

    budget = sub.add_parser("budget", help="predicted sfpu_accuracy_budget.yaml rows "
                                           "(daz-index ULP, exhaustive sweeps)")
    budget.add_argument("kernels", nargs="+", metavar="KERNEL")
    _sweep_options(budget, arch="budget")
    budget.add_argument("--arch", choices=list(CHIPS),
                        help="one chip (default: every chip each kernel runs on)")
    budget.set_defaults(handler=cmd_budget)

    listing = sub.add_parser("kernels", help="list the registered kernels")
    listing.set_defaults(handler=cmd_kernels)

    kernel = sub.add_parser("kernel", help="inspect one kernel")
    kernel_sub = kernel.add_subparsers(dest="kernel_command", metavar="SUBCOMMAND")
    kernel_sub.required = True
    show = kernel_sub.add_parser("show", help="instruction listing with source lines and a "
                                              "static cost estimate")
    show.add_argument("kernel", metavar="NAME")
    show.add_argument("--arch", choices=list(CHIPS), required=True)
    show.set_defaults(handler=cmd_kernel_show)

    trace = sub.add_parser("trace", help="instruction by instruction, what the lanes of the "
                                         "given inputs hold (hex, FP32, BF16)")
    trace.add_argument("kernel", metavar="NAME")
    trace.add_argument("--x", action="append", required=True, metavar="VALUE",
                       help="an input (float literal rounded to BF16, or 0x BF16 bits; "
                            "negative: --x=-3); "
                            "repeat for more lanes")
    _sweep_options(trace)
    trace.set_defaults(handler=cmd_trace, json=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    console = Console()
    try:
        return args.handler(args, console)
    except SfpuSimError as error:
        Console(stderr=True).print(f"sfpu-sim: error: {error}", markup=False, highlight=False,
                                   soft_wrap=True)            # one line, however long
        return error.exit_code
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
