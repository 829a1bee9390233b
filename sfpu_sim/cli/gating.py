"""``sfpu-sim baseline check|save``: tt-llk's SFPU accuracy gate on per-op accuracy files; and
the per-op files ``sfpu-sim report KERNEL --harness-csv DIR`` writes.

Knows the public API of :mod:`sfpu_sim.report.accuracy_csv`,
:mod:`sfpu_sim.report.accuracy_gate`, the registry and the op tables, nothing deeper.
"""
from __future__ import annotations

import sys
from pathlib import Path

from sfpu_sim import ops, registry
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.report import accuracy_csv, accuracy_gate
from sfpu_sim.report.files import RunFiles, atomic_write, output_directory


def harness_op(spec) -> str:
    """The harness's op name of a kernel instantiation: the accuracy-table op whose kernels
    include it, in lower case (MathOperation's name, e.g. ``celu``), where exactly one does;
    else the kernel's function."""
    keys = {op.key for op in ops.ops().values() if spec.name in op.kernels.values()}
    return keys.pop().lower() if len(keys) == 1 else spec.function


class HarnessFiles:
    """The per-op CSV and Parquet one report run writes into, checked and claimed before it
    sweeps: the run's variant replaces its rows there, the file's other variants stay."""

    def __init__(self, directory: Path, key: dict[str, str], files):
        self.key = key
        self.csv = files.claim(directory / f"{key['op']}.csv", "--harness-csv")
        self.parquet = files.claim(directory / f"{key['op']}.parquet", "--harness-csv")
        self.pyarrow = accuracy_csv.have_pyarrow()
        if not self.pyarrow and self.parquet.exists():
            raise SfpuSimError(f"--harness-csv: {self.parquet} exists and Parquet needs "
                               f"pyarrow, so it would no longer match {self.csv} "
                               f"({accuracy_csv.PARQUET_EXTRA}, or choose another DIR)")
        for path in self._present():                       # a file of another schema: now
            accuracy_csv.check_schema(path, accuracy_csv.header_of(path))

    def _present(self) -> list[Path]:
        return [path for path in (self.csv, self.parquet) if path.exists()]

    def existing(self):
        """The rows already in the per-op file (the CSV, else the Parquet), or None."""
        present = self._present()
        return accuracy_csv.read_accuracy_table(present[0]) if present else None

    def write(self, m: dict, arrays: dict, console) -> None:
        rows = accuracy_csv.variant_table(m, arrays, self.key)
        table = accuracy_csv.merge(self.existing(), rows)
        text = accuracy_csv.csv_text(table)
        source = (f"{m['tool']}: hw emulated ({m['kernel']} {m['kernel_hash']}), golden the "
                  f"correctly rounded reference ({m['reference_rounding']})")
        parquet = (accuracy_csv.parquet_bytes(table, {"sfpu_sim.source": source})
                   if self.pyarrow else None)
        atomic_write(self.csv, text)
        if parquet is not None:
            atomic_write(self.parquet, parquet)
        variants = accuracy_csv.variants_of(table)

        def say(line: str) -> None:
            console.print(line, highlight=False, markup=False, soft_wrap=True)

        say(f"wrote {self.csv} ({accuracy_csv.row_count(rows):,} rows of "
            f"{accuracy_csv.variant_label(self.key)}; {variants} "
            f"variant{'s' * (variants != 1)} in the file)")
        if parquet is not None:
            say(f"wrote {self.parquet}")
        else:
            say(f"not written: {self.parquet}: Parquet needs pyarrow "
                f"({accuracy_csv.PARQUET_EXTRA})")


def harness_files(args, spec, files) -> HarnessFiles | None:
    """``report --harness-csv DIR``'s files, refused now (before any sweep) where the rows
    could not be the device's or a file could not be written."""
    if getattr(args, "harness_csv", None) is None:
        return None

    if args.input_format == "fp32":
        raise SfpuSimError("--harness-csv writes one row per input: not for --in fp32 sweeps "
                           "(up to 2**32 rows); use --json or the report")
    instance = registry.for_dest(spec, args.dest)
    if not instance.modelled:
        raise SfpuSimError(f"--harness-csv: {instance.note}; the rows would not be the "
                           f"device's program (choose the other --dest)")
    chosen = instance.spec
    key = accuracy_csv.variant(harness_op(chosen), args.input_format, args.output_format,
                               chosen.params, chosen.mode, instance.dest)
    return HarnessFiles(output_directory(args.harness_csv), key, files)


def add_harness_option(report) -> None:
    """``report --harness-csv DIR``."""
    report.add_argument("--harness-csv", metavar="DIR",
                        help="also write DIR/OP.csv (+ .parquet with pyarrow): the per-op "
                             "accuracy file of tt-llk's harness, 22 columns, its variant "
                             "added to the op's other ones there; see `baseline check`")


def cmd_baseline_check(args, console) -> int:
    """The gate: the candidate's variants against the baseline's; 0 pass, 1 regression, 2
    schema mismatch."""
    report = None
    if args.report is not None:
        report = RunFiles(inputs=[args.baseline, args.candidate]).claim(args.report,
                                                                       "--report")
        output_directory(report.parent if str(report.parent) else Path("."))
    baseline = accuracy_gate.load(args.baseline)
    candidate = accuracy_gate.load(args.candidate)
    result = accuracy_gate.compare(baseline.summary, candidate.summary)
    text = accuracy_gate.render(result, baseline, candidate)
    if report is not None:
        atomic_write(report, text)
    sys.stdout.write(text)
    return result.exit_code


def cmd_baseline_save(args, console) -> int:
    """A source's variants as the gate's baseline CSV (its ``--update-baseline``)."""
    target = RunFiles(inputs=[args.source]).claim(args.file, "FILE")
    output_directory(target.parent if str(target.parent) else Path("."))
    source = accuracy_gate.load(args.source)
    atomic_write(target, accuracy_gate.baseline_csv_text(source.summary))
    count = source.summary["op"].size
    console.print(f"wrote {target} ({count} variant{'s' * (count != 1)} of {source.path})",
                  highlight=False, markup=False, soft_wrap=True)
    return 0


SOURCE_HELP = ("a baseline CSV (the gate's 13 columns), a per-op accuracy file (.csv or "
               ".parquet, the harness's 22- or 19-column schema) or a directory of them")


def add_parser(sub, parents) -> None:
    """Register ``baseline`` (``parents``: the options every command takes)."""
    baseline = sub.add_parser(
        "baseline", parents=parents,
        help="tt-llk's SFPU accuracy gate on per-op accuracy files (report --harness-csv): "
             "check (exit 0 pass, 1 regression, 2 schema mismatch) and save")
    actions = baseline.add_subparsers(dest="baseline_action", metavar="ACTION")
    actions.required = True
    check = actions.add_parser(
        "check", help="compare a candidate with a baseline by the gate's rules",
        description="Each variant (op, formats, approx, fast, dest) summarised and compared "
                    "exactly, as tt-llk's check_accuracy_baseline.py does. Exit 0: pass "
                    "(improvements listed); 1: a regression; 2: a schema mismatch (variants "
                    "or row counts differ, a metric defined on one side only) or a bad input.")
    check.add_argument("baseline", metavar="BASELINE", help=SOURCE_HELP)
    check.add_argument("candidate", metavar="CANDIDATE", help=SOURCE_HELP)
    check.add_argument("--report", metavar="FILE",
                       help="also write the Markdown report (always printed) to FILE")
    check.set_defaults(handler=cmd_baseline_check)
    save = actions.add_parser(
        "save", help="write a source's variant summaries as the gate's baseline CSV")
    save.add_argument("source", metavar="SOURCE", help=SOURCE_HELP)
    save.add_argument("file", metavar="FILE", help="the baseline CSV to write")
    save.set_defaults(handler=cmd_baseline_save)
