"""Commands that sweep kernels: ``report``, ``sweep``, ``eval``, ``compare`` (their binary
kernels: :mod:`sfpu_sim.cli.binary_sweeping`; ``budget``: :mod:`sfpu_sim.cli.budgeting`)."""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sfpu_sim import (cluster, determinism, engines, heap, reference, registry, report,
                      threads, ulp)
from sfpu_sim.cli import output
from sfpu_sim.cli.binary_sweeping import second_operand
from sfpu_sim.cli.common import (
    CHIPS,
    Progress,
    _fp32_options,
    kernel_spec,
    on_each_chip,
    report_files,
    reference_option,
    run_sweep,
    selection,
    sweep_options,
)
from sfpu_sim.cli.gating import add_harness_option, harness_files
from sfpu_sim.cli.options import chips, old_spelling, values_option
from sfpu_sim.cli.running import kernel_inputs
from sfpu_sim.determinism import render as determinism_render
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.fp32sweep import from_options
from sfpu_sim.jsonio import jsonable, lane_row
from sfpu_sim.lane_rows import Lanes
from sfpu_sim.report import compare, model, model_cache, numbers as N, study_gelu
from sfpu_sim.report.compare import check_summary
from sfpu_sim.report.files import RunFiles, atomic_write, json_text, output_directory, read_json
from sfpu_sim.report.harness import csv_text
from sfpu_sim.report.markdown import mean_over
from sfpu_sim.report.model import file_stem
from sfpu_sim.report.terminal import render
from sfpu_sim.study import results as study_report
from sfpu_sim.sweeps import DevicePath, run_kernel
from sfpu_sim.version import __version__

STDOUT = "-"
# Reports a user asks for go here unless --out says otherwise; the repository's reports/ is
# only written when named (sfpu-sim report --all --out reports/), so following the README
# never adds files to it.
DEFAULT_OUT = "sfpu-sim-reports"


def _csv_target(path: str | None, files):
    """The --csv path (``-``: standard output), claimed in ``files`` (a RunFiles) and its
    directory checked, before any sweep runs."""
    if path is None or path == STDOUT:
        return path
    target = Path(path)
    output_directory(target.parent if str(target.parent) else Path("."))
    return files.claim(target, "--csv")


def _write_csv(target, m: dict, result, console: Console) -> None:
    text = csv_text(m, result.arrays)
    if target == STDOUT:
        sys.stdout.write(text)
        return
    atomic_write(target, text)
    console.print(f"wrote {target}", highlight=False, markup=False, soft_wrap=True)


def _claim_report(files, out, formats, args, kernel: str, arch: str, dest: str) -> None:
    """Claim the files ``report.write`` will write for one sweep."""
    walk = None
    if args.input_format == "fp32":
        walk = from_options(args.stride, args.exhaustive, selection(args).range).as_dict()
    stem = file_stem({"kernel": kernel, "arch": arch, "dest": dest,
                      "reference_rounding": args.reference_rounding,
                      "ulp_convention": getattr(args, "ulp", "daz-index"),
                      "input_format": args.input_format,
                      "output_format": args.output_format,
                      "selection": selection(args).as_dict(), "walk": walk})
    for fmt in formats:
        files.claim(out / f"{stem}.{fmt}", f"the report's {fmt.upper()}")


def _no_fp32_csv(args) -> None:
    if args.csv is not None and args.input_format == "fp32":
        raise SfpuSimError("--csv writes one row per input: not for --in fp32 sweeps (up to "
                           "2**32 rows); use --json or the report")


def cmd_report(args, console: Console) -> int:
    """Sweep a kernel on each chip and write its diagnostic reports (Markdown, PNG, JSON)."""
    formats = report_files(args.files)
    files = RunFiles(inputs=args.kernel_files)
    if args.all:
        if args.kernel or args.csv or args.harness_csv:
            raise SfpuSimError("--all writes every kernel's report: give no KERNEL, --csv or "
                               "--harness-csv with it")
        fp32_only = [o for o in _fp32_options(args) if o not in ("--scheduler", "--workers")]
        if args.input_format == "fp32" or fp32_only:
            raise SfpuSimError(f"{', '.join(fp32_only) or '--in fp32'}: --all writes the BF16 "
                               f"reports: run FP32 sweeps one kernel at a time")
        _check_scheduler(args)
        return _report_all(args, console, formats, output_directory(args.out), files)
    if not args.kernel:
        raise SfpuSimError("give a KERNEL (or --all for every registered kernel)")
    spec = kernel_spec(args.kernel)                    # an unknown name before any directory
    chosen = chips(args, spec.chips)
    for option, given in (("--csv", args.csv), ("--harness-csv", args.harness_csv)):
        if given is not None and len(chosen) > 1:
            raise SfpuSimError(f"{option} writes one chip's rows: give one --arch (here: "
                               f"{', '.join(chosen)})")
    out = output_directory(args.out)
    for chip in chosen:
        _claim_report(files, out, formats, args, spec.name, chip, args.dest or spec.dest)
    csv_target = _csv_target(args.csv, files)
    _no_fp32_csv(args)
    harness = harness_files(args, spec, files)           # per-op accuracy files, checked now
    for chip in chosen:
        with Progress() as progress:
            result = run_sweep(args, args.kernel, chip, progress)
            progress.step("writing the report")
            m, written = report.write(result, out, formats)
            if csv_target is not None:
                _write_csv(csv_target, m, result, console)
            if harness is not None:
                harness.write(m, result.arrays, console)
        if csv_target == STDOUT:
            return 0
        console.print(render(m))
        for path in written.values():
            console.print(f"wrote {path}", highlight=False, markup=False, soft_wrap=True)
    return 0


RESEARCH_TITLES = [("The BF16 GELU study: its convention, the truth, the device",
                    "gelu_study.md"),
                   ("Determinism: the hellas kernels on Wormhole, Blackhole and binary32 "
                    "hosts", "determinism.md")]


def _research_reports(out, files) -> list[tuple[str, object]]:
    """The research reports ``report --all`` also rebuilds, as (name, writer of ``out``): the
    BF16 GELU study and the determinism comparison of the hellas kernels."""
    def gelu_study():
        return study_gelu.write(model_cache.cached("gelu_study", (), study_report.build), out)

    def determinism_report():
        specs = determinism.resolve(["hellas_*"])
        programs = [f"{spec.name} {chip} {spec.program(chip).words}" for spec in specs
                    for chip in spec.chips]
        model = model_cache.cached("determinism", programs, lambda: determinism.compare(
            specs, command="sfpu-sim determinism 'hellas_*'"))
        return list(determinism_render.write(model, out, "determinism").values())

    for stem, fmts in (("gelu_study", ("md", "png", "json")), ("determinism", ("md", "json"))):
        for fmt in fmts:
            files.claim(out / f"{stem}.{fmt}", f"the {stem} report's {fmt.upper()}")
    return [("gelu_study", gelu_study), ("determinism", determinism_report)]


def _default_cell(args) -> bool:
    """``report --all`` with nothing narrowed or changed: the rebuild of reports/."""
    return (chips(args) == list(CHIPS) and args.dest is None and args.reference_rounding == "rne"
            and args.ulp == "daz-index" and args.input_format == "bf16"
            and args.output_format == "bf16" and args.range is None and args.region is None)


def _report_all(args, console: Console, formats, out, files) -> int:
    chosen = chips(args)
    jobs = [(spec, chip) for spec in [*registry.specs(), *registry.chained_specs()]
            for chip in CHIPS if chip in spec.chips and chip in chosen]
    if not jobs:
        raise SfpuSimError("no registered kernel runs on the chosen chip")
    for spec, chip in jobs:
        _claim_report(files, out, formats, args, spec.name, chip, args.dest or spec.dest)
    files.claim(out / "README.md", "the index")
    research = _research_reports(out, files) if _default_cell(args) else []
    entries, failures = [], []
    index = out / "README.md"
    atomic_write(index, report.index_markdown(entries, failures, len(jobs)))
    with Progress(total=len(jobs), what="reports") as progress:
        # The generator first: it is run to its end (a cluster closes there), not left paused.
        for done, (written, (spec, chip)) in enumerate(
                zip(_reports(args, jobs, out, formats, progress), jobs), start=1):
            if isinstance(written, str):                # one broken kernel spoils no others
                failures.append((spec.name, chip, written))
            else:
                entries.append(written)
            atomic_write(index, report.index_markdown(entries, failures, len(jobs) - done))
        for name, write in research:
            progress.begin(f"research report {name}")
            write()
    if research:
        atomic_write(index, report.index_markdown(entries, failures, 0, RESEARCH_TITLES))
    table = Table(title=f"{len(entries)} reports in {out}")
    for column in ("kernel", "chip", "Dst", "max ULP", "mean ULP", "exact"):
        table.add_column(column)

    for m, _ in entries:
        table.add_row(m["kernel"], m["chip"], m["dest"].upper(), N.ulp(m["max_ulp"]),
                      mean_over(m["mean_ulp"], m["measured"]), N.fraction(m["exact_frac"]))
    console.print(table)
    console.print(f"wrote {index}", highlight=False, markup=False, soft_wrap=True)
    for name, chip, message in failures:
        output.error(f"{name} on {chip}: {message}")
    return 1 if failures else 0


# What a report --all task takes from the command line: not the handler (a closure), and its
# scheduler is the one running it.
_NOT_SENT = ("handler", "scheduler", "workers")


def _check_scheduler(args) -> None:
    """``report --all``'s ``--scheduler`` and ``--workers``, before anything is written."""
    if args.scheduler not in ("local", "dask"):
        raise SfpuSimError(f"--all --scheduler {args.scheduler}: local (reports one after "
                           f"another here) or dask (a LocalCluster)")
    if args.workers is not None and args.scheduler != "dask":
        raise SfpuSimError("--workers: the worker processes of --scheduler dask")
    if args.workers is not None and args.workers < 1:
        raise SfpuSimError(f"--workers {args.workers}: give at least 1")


def _reports(args, jobs, out: Path, formats, progress: Progress):
    """Each job's ``(model, Markdown file name)``, or why it failed, in job order: run here one
    after another, or with ``--scheduler dask`` on a LocalCluster, a worker process per usable
    CPU (``--workers``), each writing its reports."""
    if args.scheduler == "local":
        for spec, chip in jobs:
            yield _report_one(args, spec.name, chip, args.dest or spec.dest, out, formats,
                              progress)
        return
    options = {k: v for k, v in vars(args).items() if k not in _NOT_SENT}
    options["kernel_files"] = [str(Path(f).resolve()) for f in args.kernel_files or []]
    tasks = [(options, spec.name, chip, args.dest or spec.dest, out.resolve(), formats)
             for spec, chip in jobs]
    client, local = cluster.connect(workers=cluster.usable_workers(args.workers))
    for index, written in enumerate(cluster.in_order(client, local, _report_task, tasks,
                                                     "report")):
        progress.begin(f"{tasks[index][1]} on {tasks[index][2]}")
        progress.advance()
        yield written


def _report_one(args, name: str, chip: str, dest: str, out: Path, formats, progress):
    try:
        result = run_sweep(args, name, chip, progress, dest=dest)
    except SfpuSimError as error:
        progress.advance()
        return str(error)
    progress.step("writing the report")
    m, written = report.write(result, out, formats)
    return m, written["md"].name if "md" in written else None


def _report_task(task):
    """One report of ``report --all --scheduler dask``, on a worker: what :func:`_report_one`
    returns. The worker keeps freed memory as the command does (without it, twice the CPU
    time), loads the command's kernel files and takes its engine, on one thread."""
    heap.keep_freed_memory()
    options, name, chip, dest, out, formats = task
    args = argparse.Namespace(**options, scheduler="local", workers=None)
    if args.kernel_files:
        registry.load_kernel_files(args.kernel_files)
    if args.engine is not None:
        engines.set_engine(args.engine)
    threads.set_threads(1)
    return _report_one(args, name, chip, dest, out, formats, Progress())


def cmd_sweep(args, console: Console) -> int:
    """Sweep a kernel: the terminal view, or the JSON summary with --json."""
    if args.csv == STDOUT and args.json:
        raise SfpuSimError("--csv - and --json both write to standard output: choose one")
    csv_target = _csv_target(args.csv, RunFiles(inputs=args.kernel_files))
    _no_fp32_csv(args)
    with Progress() as progress:
        result = run_sweep(args, args.kernel, args.arch, progress)
    m = model.build(result) if (csv_target is not None or not args.json) else None
    if csv_target is not None:
        _write_csv(csv_target, m, result, console)      # on stderr under --json
    if args.json:
        summary = dict(result.summary)
        if result.arrays is not None:                 # an FP32 sweep keeps no lanes
            summary["lanes"] = Lanes.from_arrays(result.arrays).encode()
        sys.stdout.write(json_text(model.jsonable(summary)))
    else:
        console.print(render(m))
    return 0


def _evaluate(args) -> dict:
    """The kernel on the given inputs: device output, reference and ULP per input."""
    chosen = registry.for_dest(kernel_spec(args.kernel), args.dest)
    spec = chosen.spec
    inputs = kernel_inputs(args.values, args.input_format, chosen.dest)
    path = DevicePath(args.input_format, args.output_format, chosen.dest)
    run, facts = run_kernel(spec, args.arch, inputs, path,
                            fp32_inputs=args.input_format == "fp32")
    ref = reference.reference(spec.function, inputs, args.reference_rounding,
                              input_format=args.input_format,
                              output_format=args.output_format, daz=True, ftz=True)
    result = ulp.distance(ref, run.output, args.ulp)
    out = args.output_format
    rows = []
    for k, bits in enumerate(inputs.tolist()):          # the inputs given, not 65k lanes
        counted = bool(result.counted[k])
        rows.append(lane_row(bits, run.output[k], ref.bits[k], ref.value[k],
                             in_fmt=args.input_format, out_fmt=out,
                             kernel_fp32_bits=run.kernel_fp32[k], kernel_fp32=True,
                             ulp=result.distance[k].item() if counted else None,
                             lane_class=ulp.LaneClass(int(result.lane_class[k])).name.lower()))
    return jsonable({"tool": f"sfpu-sim {__version__}", "kernel": spec.name,
                     "function": spec.function, "arch": args.arch,
                     "instantiation": spec.instantiation,
                     "instantiation_note": facts.get("instantiation_note", chosen.note),
                     "device_program": chosen.modelled,
                     "kernel_hash": facts["kernel_hash"], "dest": path.dest,
                     "input_format": path.input_format, "output_format": out,
                     "reference_rounding": args.reference_rounding,
                     "ulp_convention": args.ulp,
                     "device_path": facts.get("device_path", path.steps()),
                     "results": rows})


def cmd_eval(args, console: Console) -> int:
    """Run a kernel on a few inputs: output, reference and ULP for each."""
    data = _evaluate(args)
    if args.json:
        sys.stdout.write(json_text(data))
        return 0
    table = Table(title=f"{data['kernel']} on {CHIPS[data['arch']]} (Dst "
                        f"{data['dest'].upper()}, reference {data['reference_rounding']}, ULP "
                        f"{data['ulp_convention']})", caption=data["instantiation_note"])
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
    """Each ITEM resolved, nothing swept yet: ``KERNEL`` (on each chip of --arch, by default
    every chip it runs on), ``KERNEL@ARCH``, or a saved ``.json`` summary -> (label, summary
    or (kernel, chip), source)."""
    items = []
    for text in args.items:
        path = Path(text)
        try:
            is_file = text.endswith(".json") or path.is_file()
        except OSError as error:                # e.g. a name longer than the file system takes
            raise SfpuSimError(f"compare: {text}: {error.strerror or error}") from None
        if is_file:
            data = check_summary(read_json(path), text)
            items.append((f"{data['kernel']}@{data['arch']}", data, text))
            continue
        kernel, _, arch = text.partition("@")
        spec = kernel_spec(kernel)                     # an unknown name fails before sweeping
        for chip in [arch] if arch else chips(args, spec.chips):
            if chip not in CHIPS:
                raise SfpuSimError(f"compare {text!r}: unknown chip {chip!r} (choose from: "
                                   f"{', '.join(CHIPS)})")
            items.append((f"{kernel}@{chip}", (kernel, chip), "sweep"))
    labels = [label for label, _, _ in items]
    return [(f"{label} ({Path(source).stem})" if labels.count(label) > 1 else label, data,
             source) for label, data, source in items]


def cmd_compare(args, console: Console) -> int:
    """Compare sweeps (variants, chips) or saved JSON summaries (before/after), lane by lane
    where both sides have per-lane results."""
    formats = report_files(args.files)
    compare.check_stem(args.name, args.out)
    items = _compare_items(args)
    if len(items) < 2:
        raise SfpuSimError("compare needs at least two items: a kernel on two chips, "
                           "KERNEL@ARCH, or saved .json summaries")
    out = output_directory(args.out)
    stem = args.name or ("compare_" + "_vs_".join(
        re.sub(r"[^A-Za-z0-9_.]+", "-", label).strip("-") for label, _, _ in items))[:120]
    files = RunFiles(inputs=[*args.kernel_files,
                             *(source for _, data, source in items if isinstance(data, dict))])
    for fmt in formats:
        files.claim(out / f"{stem}.{fmt}", f"the comparison's {fmt.upper()}")
    sweeps = sum(1 for _, data, _ in items if isinstance(data, tuple))
    if args.reference is not None and not sweeps:
        raise SfpuSimError("compare: --reference applies to the kernels it sweeps; every item "
                           "here is a saved summary, measured against its own reference")
    built = []
    with Progress(total=sweeps, what="compare") as progress:
        for label, data, source in items:
            if isinstance(data, tuple):
                result = run_sweep(args, *data, progress)
                built.append((label, model.build(result), "sweep",
                              Lanes.from_arrays(result.arrays)))
            else:
                lanes = Lanes.decode(data["lanes"], source) if "lanes" in data else None
                built.append((label, data, Path(source).stem, lanes))
    c = compare.build(built)
    written = report.write_comparison(c, out, formats, stem)
    sys.stdout.write(compare.render(c))
    for path in written.values():
        output.console(json=True).print(f"wrote {path}", highlight=False, soft_wrap=True)
    return 0


FILES_HELP = "the files to write, comma-separated: md, png, json (default: all three)"
ONE_SUMMARY = {"json": "prints one chip's summary", "csv": "writes one chip's rows"}


def _eval_inputs(handler):
    """``eval``'s inputs: its X arguments, then every ``--x`` (at least one of them)."""
    def with_inputs(args, console):
        args.values = [*args.values, *(args.x or [])]
        if not args.values:
            raise SfpuSimError("eval: give inputs: X... after KERNEL, or --x VALUE "
                               "(comma-separated, repeatable)")
        return handler(args, console)
    return with_inputs


def add_parser(sub, parents) -> None:
    """Register this module's subcommands (``parents``: the options every command takes)."""
    report = sub.add_parser("report", parents=parents, help="exhaustive sweep and diagnostic report (Markdown, "
                                           "PNG, JSON) of a kernel, or of every kernel (--all)")
    report.add_argument("kernel", nargs="?", metavar="KERNEL")
    report.add_argument("--all", action="store_true",
                        help="every registered kernel on every chip it runs on, plus a "
                             "README.md index in --out")
    sweep_options(report, arch="the chips to report on (default: every chip the kernel runs "
                               "on; with --all, every chip)", select=True, fp32=True)
    report.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                        help=f"output directory (default: {DEFAULT_OUT}/)")
    report.add_argument("--files", default="md,png,json", metavar="md,png,json",
                        help=FILES_HELP + "; was --format")
    old_spelling(report, "--format", "--files", "report", dest="files")
    report.add_argument("--csv", metavar="FILE",
                        help="also write per-input rows in the tt-llk accuracy-harness schema "
                             "(one chip)")
    add_harness_option(report)
    second_operand(report, "report", cmd_report)          # --y, --y-range: binary kernels
    reference_option(report, "report's sweep")

    sweep = sub.add_parser("sweep", parents=parents, help="exhaustive sweep of a kernel: terminal summary, or "
                                         "the JSON summary (--json)")
    sweep.add_argument("kernel", metavar="KERNEL")
    sweep_options(sweep, select=True, fp32=True)
    sweep.add_argument("--json", action="store_true",
                       help="print the JSON summary on stdout (one chip)")
    sweep.add_argument("--csv", metavar="FILE",
                       help="also write per-input rows in the tt-llk accuracy-harness schema "
                            "(one chip)")
    second_operand(sweep, "sweep", cmd_sweep)          # --y, --y-range: binary kernels
    sweep.set_defaults(handler=on_each_chip(sweep.get_default("handler"), ONE_SUMMARY))
    reference_option(sweep, "sweep")

    evaluate = sub.add_parser("eval", parents=parents, help="run a kernel on given inputs: output, reference "
                                           "and ULP for each")
    evaluate.intermixed = True                # X after options too, with or without --x
    evaluate.add_argument("kernel", metavar="KERNEL")
    evaluate.add_argument("values", nargs="*", metavar="X",
                          help="numbers (rounded to the --in format, nearest even; a note "
                               "says when one is not exact) or 0x bit patterns of it (FP32: 8 "
                               "hex digits); put -- before values such as -inf; or --x")
    values_option(evaluate, "--x", "inputs, as X (after the X arguments); negative: --x=-3")
    sweep_options(evaluate)
    evaluate.add_argument("--json", action="store_true", help="print JSON on stdout (one chip)")
    second_operand(evaluate, "eval", cmd_eval)          # --y, --y-range: binary kernels
    evaluate.set_defaults(handler=_eval_inputs(on_each_chip(evaluate.get_default("handler"),
                                                            {"json": "prints one chip's "
                                                                     "results"})))

    compare = sub.add_parser("compare", parents=parents, help="compare sweeps or saved JSON summaries: Markdown for a PR body on "
                        "stdout, plus Markdown, PNG and JSON files in --out",
        description="Items: KERNEL (swept on each --arch, by default every chip it runs on), "
                    "KERNEL@ARCH, or a saved JSON summary (sweep --json or a report's .json). "
                    "Examples: 'compare tanh' (Wormhole against Blackhole), 'compare "
                    "tanh@blackhole tanh@wormhole', 'compare tanh tanh_approx --arch "
                    "blackhole', 'compare main.json branch.json'.")
    compare.add_argument("items", nargs="+", metavar="ITEM")
    sweep_options(compare, arch="chips for items without @ARCH (default: every chip the kernel "
                                "runs on)", select=True)
    compare.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                         help=f"output directory (default: {DEFAULT_OUT}/)")
    compare.add_argument("--files", default="md,png,json", metavar="md,png,json",
                         help=FILES_HELP + "; was --format")
    old_spelling(compare, "--format", "--files", "compare", dest="files")
    compare.add_argument("--name", metavar="STEM", help="file name stem of the outputs")
    compare.set_defaults(handler=cmd_compare)
    reference_option(compare, "kernels it sweeps (not saved summaries)")
