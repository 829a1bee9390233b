"""``sfpu-sim study gelu``: the BF16 GELU study's workbench (its own modes and convention).

Knows the public API of :mod:`sfpu_sim.study` (workbench, validation modes, report model) and
:mod:`sfpu_sim.report.study_gelu` (the written report), nothing deeper.
"""
from __future__ import annotations

import argparse
import sys

from rich import box
from rich.console import Console
from rich.table import Table

from sfpu_sim.cli.common import on_each_chip
from sfpu_sim.cli.options import arch_option, deprecated, values_option
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.report import study_gelu
from sfpu_sim.report.files import json_text, output_directory
from sfpu_sim.study import gelu_validation, results as study_report, workbench

REFERENCE_MODE = "<reference values>"      # --reference given without a value
REFERENCES = ("study", "correct")


class StudyOptionError(SfpuSimError):
    pass


def _options(args) -> dict:
    reference = args.reference if args.reference not in (None, REFERENCE_MODE) else "study"
    if reference not in REFERENCES:
        raise StudyOptionError(f"--reference {args.reference!r}: choose study or correct (or "
                               f"give --reference alone for the reference-values mode)")
    if args.store_truncates and args.arch is None:
        raise StudyOptionError("--store-truncates applies to the device kernels: give --arch")
    return {"reference": reference, "arch": args.arch, "host_fma": args.host_fma == "on"}


# The study's tool runs its modes in this order when given --all (gelu_implementations.cpp
# @90e9ff1, main).
ALL_MODES = ("reference", "verify_knots", "saturation", "calibrate", "diagnose", "regression",
             "derivative", "analyze")
SINGLE_METHOD = {"derivative": "G4 is its one method", "verify_knots": "it checks C1"}


def _flag(mode: str) -> str:
    return "--" + mode.replace("_", "-")


class _Diagnose(argparse.Action):
    """``--diagnose``; the inputs written after it are the old spelling of ``--x``."""

    def __call__(self, parser, namespace, values, option_string=None):
        if values:
            deprecated(namespace, "--diagnose X", "study gelu", "--diagnose --x X")
        setattr(namespace, self.dest, list(values))


def _mode(args) -> str:
    chosen = [name for name, on in (("diagnose", args.diagnose is not None
                                     or args.x is not None),
                                    ("reference", args.reference == REFERENCE_MODE),
                                    ("saturation", args.saturation),
                                    ("calibrate", args.calibrate),
                                    ("regression", args.regression),
                                    ("derivative", args.derivative),
                                    ("verify_knots", args.verify_knots),
                                    ("all", args.all),
                                    ("analyze", args.analyze)) if on]
    if len(chosen) > 1:
        raise StudyOptionError(f"choose one mode, not {' and '.join(map(_flag, chosen))}")
    mode = chosen[0] if chosen else "analyze"
    if mode in SINGLE_METHOD and args.methods:
        raise StudyOptionError(f"--methods does not apply to {_flag(mode)} "
                               f"({SINGLE_METHOD[mode]})")
    return mode


def _run(mode: str, args, options: dict, methods: list[str]) -> dict:
    """One mode's data."""
    rounding = not args.store_truncates
    chip = {"arch": options["arch"], "host_fma": options["host_fma"]}
    if mode == "analyze":
        return workbench.analyze(methods, rounding=rounding, **options)
    if mode == "diagnose":
        return workbench.diagnose([*(args.diagnose or []), *(args.x or [])], methods, **options)
    if mode == "reference":
        return workbench.reference_values()
    if mode == "saturation":
        return workbench.saturation(methods, **options)
    if mode == "calibrate":
        return workbench.calibrate()
    if mode == "regression":
        return gelu_validation.regression(methods, rounding=rounding, **options)
    if mode == "derivative":
        return gelu_validation.derivative(rounding=rounding, **chip)
    return gelu_validation.verify_knots(**chip)


def cmd_study_gelu(args, console: Console) -> int:
    """The study's modes: --analyze (default), --diagnose, --reference, --saturation,
    --calibrate, --regression, --derivative, --verify-knots, --all; or --write-report DIR."""
    if args.write_report is not None:
        return _write_report(args, console)
    if args.arch is None:
        return _study(args, console)
    return on_each_chip(_study, {"json": "prints one chip's data"})(args, console)


def _study(args, console: Console) -> int:
    """The modes on the host forms (``args.arch`` None) or one chip's kernels."""
    mode = _mode(args)
    options = _options(args)
    methods = workbench.check_methods(args.methods)
    modes = ALL_MODES if mode == "all" else (mode,)
    data = {name: _run(name, args, options, methods) for name in modes}
    if args.json:
        sys.stdout.write(json_text(data if mode == "all" else data[mode]))
        return 0
    for name in modes:
        if mode == "all":
            console.rule(f"{_flag(name)}")
        PRINTERS[name](data[name], console)
    return 0


def _write_report(args, console: Console) -> int:
    out = output_directory(args.write_report)
    model = study_report.build()
    for path in study_gelu.write(model, out):
        console.print(f"wrote {path}", highlight=False, markup=False, soft_wrap=True)
    return 0


# --------------------------------------------------------------------------------------------
# Terminal rendering
# --------------------------------------------------------------------------------------------

def _where(data: dict) -> str:
    c = data["convention"]
    return f"reference {c['reference']}, {c['arithmetic']}"


def _print_analysis(data: dict, console: Console) -> None:
    table = Table(title=f"BF16 GELU study, {data['count']:,} inputs ({_where(data)})")
    for column in ("method", "mean ULP", "max ULP", "worst input", "P50", "P90", "P99"):
        table.add_column(column, justify="left" if column == "method" else "right")
    for method_id, m in data["methods"].items():
        table.add_row(method_id, f"{m['mean_ulp']:.4f}", f"{m['max_ulp']:,}",
                      f"{m['worst_input']:g} ({m['worst_input_bits']})", str(m["p50"]),
                      str(m["p90"]), str(m["p99"]))
    console.print(table)
    first = next(iter(data["methods"].values()))["regions"]
    counts = ", ".join(f"{name} {r['count']:,}" for name, r in first.items())
    regions = Table(title=f"Regions, max ULP / mean ULP (the study's if/else chain; inputs: "
                          f"{counts})")
    regions.add_column("method")
    for name in first:
        regions.add_column(name, justify="right")
    for method_id, m in data["methods"].items():
        regions.add_row(method_id, *(f"{r['max_ulp']:,} / {r['mean_ulp']:.2f}"
                                     for r in m["regions"].values()))
    console.print(regions)


def _print_diagnosis(data: dict, console: Console) -> None:
    for method_id, rows in data["methods"].items():
        table = Table(title=f"{method_id} ({_where(data)})")
        for column in ("x", "reference (double)", "reference BF16", "FP32 result", "output",
                       "ULP"):
            table.add_column(column, justify="right")
        for r in rows:
            fp32 = "" if r["output_fp32"] is None else f"{r['output_fp32']:.9g}"
            table.add_row(f"{r['input']:.9g} ({r['input_bits']})", f"{r['reference']:.10g}",
                          f"{r['reference_bf16']:.6g} ({r['reference_bf16_bits']})", fp32,
                          f"{r['output']:.6g} ({r['output_bits']})", str(r["ulp"]))
        console.print(table)


def _print_references(data: dict, console: Console) -> None:
    table = Table(title="GELU at the study's key points: its double formula (libm erf) and "
                        "the correctly rounded value")
    for column in ("x", "study GELU", "study Phi", "study BF16", "correct GELU", "correct BF16",
                   "ULP between"):
        table.add_column(column, justify="right")
    for r in data["points"]:
        table.add_row(f"{r['x']:g}", f"{r['study_gelu']:.15g}", f"{r['study_phi']:.15g}",
                      r["study_bf16_bits"], f"{r['correct_gelu']:.15g}", r["correct_bf16_bits"],
                      str(r["ulp_between"]))
    console.print(table)


def _print_saturation(data: dict, console: Console) -> None:
    negative = Table(title="Negative saturation: where BF16(GELU(x)) becomes 0")
    for column in ("x", "study GELU", "study BF16", "study -> 0", "correct GELU",
                   "correct BF16", "correct -> 0"):
        negative.add_column(column, justify="right")
    for r in data["negative"]:
        negative.add_row(str(r["x"]), f"{r['study_gelu']:.6e}", r["study_bf16_bits"],
                         "yes" if r["study_rounds_to_zero"] else "no",
                         f"{r['correct_gelu']:.6e}", r["correct_bf16_bits"],
                         "yes" if r["correct_rounds_to_zero"] else "no")
    console.print(negative)
    positive = Table(title="Positive saturation: where |x - GELU(x)| < 0.5 BF16 ULP of x")
    for column in ("x", "GELU", "error", "ULP size", "error in ULPs"):
        positive.add_column(column, justify="right")
    for r in data["positive"]:
        positive.add_row(str(r["x"]), f"{r['study_gelu']:.10f}", f"{r['error']:.6e}",
                         f"{r['ulp_size']:g}", f"{r['error_ulps']:.4f}")
    console.print(positive)
    rec = data["recommended"]
    console.print(f"first integer x with BF16(GELU(x)) = 0: {rec['study_negative']} under the "
                  f"study's cancelling double, {rec['correct_negative']} correctly rounded; "
                  f"x = GELU(x) in BF16 from x = {rec['positive']}", highlight=False)
    for block in data["thresholds"]:
        table = Table(title=f"Around {block['threshold']} ({_where(data)}): output (ULP)")
        table.add_column("method")
        for point in block["inputs"]:
            table.add_column(f"{point['x']:.7g}", justify="right")
        table.add_row("reference", *(f"{v:.4g}" for v in block["reference"]))
        for method_id, cells in block["methods"].items():
            table.add_row(method_id, *(f"{c['output']:.4g} ({c['ulp']})" for c in cells))
        console.print(table)


def _print_calibration(data: dict, console: Console) -> None:
    table = Table(title="Tail table: the study's values (%.5e of its cancelling double), the "
                        "constants, and the correctly rounded GELU")
    for column in ("x", "study (float)", "printed", "table constant", "correct",
                   "relative error of the study's value"):
        table.add_column(column, justify="right")
    for r in data["points"]:
        constant = "" if r["table_constant"] is None else f"{r['table_constant']:.5e}"
        error = "" if r["relative_error"] is None else f"{r['relative_error']:.2e}"
        table.add_row(f"{r['x']:g}", f"{r['study_float']:.6e}", r["printed"], constant,
                      r["correct_printed"], error)
    console.print(table)


def _compact(title=None) -> Table:
    """A table without side borders, so that the study's full-precision columns fit 80."""
    return Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                 collapse_padding=True)


def _print_regression(data: dict, console: Console) -> None:
    console.print(f"G7/G8 regression: {data['count']} adversarial points per method, at most "
                  f"{data['max_allowed_ulp']} ULP each (the study's limit) ({_where(data)})",
                  highlight=False)
    table = _compact()
    left = ("method", "points over the limit")
    for column in ("method", "max ULP", "at", "failures", "result", "points over the limit"):
        table.add_column(column, justify="left" if column in left else "right")
    for method_id, m in data["methods"].items():
        table.add_row(method_id, str(m["max_ulp"]), m["worst_point"] or "-", str(m["failures"]),
                      "PASS" if m["passed"] else "FAIL", " ".join(m["failing_points"]))
    console.print(table)


def _print_derivative(data: dict, console: Console) -> None:
    table = _compact(f"G4: GELU'(x) approximation ({data['convention']['arithmetic']})")
    for column in ("x", "GELU'(x) ref", "G4 (BF16)", "error", "ULP to ref", "correct BF16",
                   "ULP to correct"):
        table.add_column(column, justify="right")
    for r in data["points"]:
        table.add_row(f"{r['x']:.2f}", f"{r['reference']:.6f}", f"{r['output']:.6f}",
                      f"{r['error']:.2e}", str(r["ulp_study"]), f"{r['correct']:.6g}",
                      str(r["ulp_correct"]))
    console.print(table)
    sign = data["sign"]
    def between(pair):
        return "nowhere" if pair is None else f"[{pair[0]:g}, {pair[1]:g}]"
    console.print(f"GELU' < 0 below the minimum of GELU at x = {sign['gelu_minimum']:.4f} (the "
                  f"study wrote {sign['study_claim']:g}); negative BF16 values at x in: G4 "
                  f"{between(sign['g4_negative_between'])}, correctly rounded "
                  f"{between(sign['correct_negative_between'])}", highlight=False)
    for name, s in data["all_inputs"].items():
        reference = "the study's double GELU'" if name == "study" else "correctly rounded GELU'"
        console.print(f"G4 over all {s['count']:,} inputs against {reference} (not scored by "
                      f"the study): mean {s['mean_ulp']:.4f}, max {s['max_ulp']:,} at "
                      f"{s['worst_input']:g} ({s['worst_input_bits']}), P50/P90/P99 "
                      f"{s['p50']}/{s['p90']}/{s['p99']}", highlight=False)


def _print_knots(data: dict, console: Console) -> None:
    knots = _compact("C1 knots: stored values and slopes against the study's double GELU and "
                     "GELU'")
    for column in ("x", "GELU ref", "stored", "|diff|", "GELU' ref", "stored ", "|diff| "):
        knots.add_column(column, justify="right")
    for r in data["knots"]:
        knots.add_row(f"{r['x']:.1f}", f"{r['gelu_reference']:.8f}", f"{r['gelu_stored']:.8f}",
                      f"{r['delta_gelu']:.2e}", f"{r['derivative_reference']:.8f}",
                      f"{r['derivative_stored']:.8f}", f"{r['delta_derivative']:.2e}")
    console.print(knots)
    points = _compact(f"C1 at the study's points ({data['convention']['arithmetic']})")
    for column in ("x", "BF16 input", "GELU_ref", "C1", "error"):
        points.add_column(column, justify="right")
    for r in data["points"]:
        points.add_row(f"{r['x']:.4f}", f"{r['bf16']:g} ({r['bits']})",
                       f"{r['gelu_reference']:.10f}", f"{r['output']:.10f}", f"{r['error']:.2e}")
    console.print(points)
    segments = _compact("Fritsch-Carlson per segment (binary32): slopes scaled when alpha^2 + "
                        "beta^2 > 9")
    for column in ("segment", "delta", "alpha", "beta", "alpha^2 + beta^2", "limited"):
        segments.add_column(column, justify="right")
    def number(value, spec):
        return "-" if value is None else format(value, spec)
    for r in data["segments"]:
        segments.add_row(f"[{r['x0']:g}, {r['x1']:g}]", number(r["delta"], ".6g"),
                         number(r["alpha"], ".6g"), number(r["beta"], ".6g"),
                         number(r["r2"], ".6g"), "yes" if r["limited"] else "no")
    console.print(segments)
    merged = data["without_knot_at_minus_3"]
    console.print(f"Without the knot at -3, [-4, -2] has alpha^2 + beta^2 = {merged['r2']:.2f} "
                  f"(the study's HISTORY.md says {merged['history_r2']:g})", highlight=False)


PRINTERS = {"analyze": _print_analysis, "diagnose": _print_diagnosis,
            "reference": _print_references, "saturation": _print_saturation,
            "calibrate": _print_calibration, "regression": _print_regression,
            "derivative": _print_derivative, "verify_knots": _print_knots}


# --------------------------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------------------------

def add_parser(sub, parents) -> None:
    """Register ``study`` and its ``gelu`` subcommand."""
    study = sub.add_parser("study", parents=parents,
                           help="the research sfpu-sim serves: the BF16 GELU study")
    studies = study.add_subparsers(dest="study", metavar="STUDY")
    studies.required = True
    gelu = studies.add_parser(
        "gelu", parents=parents,
        help="the BF16 GELU study's workbench (github.com/ivoitovych/bf16_gelu_research)",
        description="The BF16 GELU study: its methods as host forms (IEEE binary32, as its "
                    "build computed them) or SFPU kernels (--arch), scored by its convention.")
    modes = gelu.add_argument_group("modes (one; --analyze is the default)")
    modes.add_argument("--analyze", action="store_true",
                       help="the study's table: mean, max, worst input, P50/P90/P99, regions")
    modes.add_argument("--diagnose", nargs="*", action=_Diagnose, metavar="X",
                       help="each method at the inputs --x gives (none: the study's points)")
    modes.add_argument("--reference", nargs="?", const=REFERENCE_MODE, metavar="study|correct",
                       help="alone: the reference values at the study's key points; with a "
                            "value: the reference to score against (study: its cancelling "
                            "double formula, the default, reproduces its table; correct: "
                            "correctly rounded GELU)")
    modes.add_argument("--saturation", action="store_true",
                       help="behaviour around the thresholds")
    modes.add_argument("--calibrate", action="store_true", help="the tail-table values")
    modes.add_argument("--regression", action="store_true",
                       help="G7/G8: every method at the study's 50 adversarial points (max "
                            "ULP, points over 100 ULP, PASS/FAIL)")
    modes.add_argument("--derivative", action="store_true",
                       help="G4: the study's GELU' approximation at its nine points, where "
                            "GELU' turns negative, and G4 over every input")
    modes.add_argument("--verify-knots", action="store_true",
                       help="C1's knot values and slopes against the double GELU and GELU', "
                            "C1 at eight points, the Fritsch-Carlson check per segment")
    modes.add_argument("--all", action="store_true",
                       help="every mode in the study's order: reference, verify-knots, "
                            "saturation, calibrate, diagnose, regression, derivative, analyze")
    gelu.add_argument("--methods", nargs="+", metavar="ID",
                      help="method ids (default: all): B1 B1v2 R1 R2 R3 R4 R5 A1-poly7 "
                           "A1-poly9 B3 C1")
    values_option(gelu, "--x", "--diagnose's inputs (numbers as C++ float literals, or 0x "
                               "BF16 patterns; alone, it chooses --diagnose); negative: --x=-3")
    arch_option(gelu, "run the gelu_study_* SFPU kernels on these chips instead of the host "
                      "forms (default: the host forms, no chip)")
    gelu.add_argument("--host-fma", choices=("on", "off"), default="on",
                      help="host forms: fuse the multiply-adds the study's build contracted "
                           "(on, default) or round them twice (off)")
    gelu.add_argument("--store-truncates", action="store_true",
                      help="with --arch: the kernels without their final float_to_fp16b (the "
                           "BF16 store truncates)")
    gelu.add_argument("--json", action="store_true", help="JSON instead of tables")
    gelu.add_argument("--write-report", metavar="DIR",
                      help="write gelu_study.md, .png and .json (host, truth, both chips) "
                           "into DIR")
    gelu.set_defaults(handler=cmd_study_gelu)
