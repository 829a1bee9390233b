"""``sfpu-sim fit``: design a polynomial kernel in one command (fit -> quantise -> certify ->
emit -> predicted device ULP).

Knows the public API: :func:`sfpu_sim.design.api.fit`, :mod:`sfpu_sim.design.emit`, the registry,
the device path of :mod:`sfpu_sim.sweeps`, references and ULP distances.
"""
from __future__ import annotations

import contextlib
import math
import re
import shlex
import sys
from fractions import Fraction

import ml_dtypes
import numpy as np
from rich.console import Console
from rich.table import Table

from sfpu_sim import formats, registry, ulp
from sfpu_sim.cli.options import (
    CHIPS,
    RANGE_HELP,
    arch_option,
    chips,
    old_spelling,
    value_range,
)
from sfpu_sim.design import emit
from sfpu_sim.design.api import fit
from sfpu_sim.design.coefficient_formats import COEFFICIENT_FORMATS, BadFormat
from sfpu_sim.design.device_fit import fit_device
from sfpu_sim.design.emit import SCHEMES
from sfpu_sim.design.interval import parse_interval
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.formats import FORMATS
from sfpu_sim.report.files import RunFiles, json_text
from sfpu_sim.selection import Selection
from sfpu_sim.sweeps import sweep

ULP_CONVENTION = "daz-index"


def cmd_fit(args, console: Console) -> int:
    args.function = _fitted_function(args)
    if getattr(args, "target", "real") == "device":
        return _fit_device(args, console)
    if args.sweep and not args.emit:
        raise SfpuSimError("--sweep runs the emitted kernel: give --emit FILE.py too")
    if (args.scheme or args.name) and not args.emit:
        raise SfpuSimError("--scheme and --name shape the emitted kernel: give --emit FILE.py")
    if args.emit:                     # checked before the fit, so a refused run writes nothing
        emit.kernel_name(args.emit, args.name)
        RunFiles(inputs=args.kernel_files).claim(args.emit, "--emit")
    with coefficient_format_option():
        result = fit(args.function, args.interval, powers=args.powers, degree=args.degree,
                     parity=args.parity, error=args.error, weight=args.weight,
                     formats=args.coeff_format, fix=args.fix, precision=args.precision,
                     backend=args.backend)
    emitted = prediction = None
    if args.emit:
        path, name = emit.write_kernel(result, args.emit, args.name, args.scheme or "horner",
                                       command=_command(args))
        emitted = {"kernel_file": str(args.emit), "kernel": name,
                   "scheme": args.scheme or "horner"}
    if args.sweep:
        prediction = _predict(result, path, name, args)
    if args.json:
        document = result.to_json()
        if emitted:
            document["emitted"] = emitted
        if prediction:
            document["sweep"] = prediction
        sys.stdout.write(json_text(document))
        return 0
    _print(result, console)
    if emitted:
        console.print(f"wrote {emitted['kernel_file']} (kernel {emitted['kernel']}, "
                      f"{emitted['scheme']}; load it with --kernels {emitted['kernel_file']})",
                      highlight=False, markup=False, soft_wrap=True)
    if prediction:
        _print_prediction(prediction, console)
    return 0


@contextlib.contextmanager
def coefficient_format_option():
    """The design layer names the coefficient formats ``--format``; this command spells it
    ``--coeff-format``."""
    try:
        yield
    except BadFormat as error:
        raise BadFormat(str(error).replace("--format", "--coeff-format", 1)) from None


def _fitted_function(args) -> str:
    """FUNCTION, or --reference EXPR (an expression in x): exactly one of them."""
    if (args.function is None) == (args.reference is None):
        raise SfpuSimError("fit: give FUNCTION (a reference function, e.g. tan) or --reference "
                           "EXPR (an expression in x, e.g. 'tan(x)'), one of them")
    return args.function if args.reference is None else args.reference


def _command(args) -> str:
    """The command line, rebuilt from the parsed options (the same wherever it runs)."""
    fitted = args.function if args.reference is None else \
        f"--reference {shlex.quote(args.reference)}"
    parts = ["sfpu-sim fit", fitted, f"--interval {shlex.quote(args.interval)}"]
    if args.powers is not None:
        parts.append(f"--powers {args.powers}")
    else:
        parts.append(f"--degree {args.degree}" + (f" --parity {args.parity}"
                                                  if args.parity else ""))
    parts.append(f"--error {args.error}")
    if args.weight:
        parts.append(f"--weight {shlex.quote(args.weight)}")
    parts.append(f"--coeff-format {args.coeff_format}")
    if args.fix:
        parts.append(f"--fix {args.fix}")
    if args.backend != "sfpu-sim":
        parts.append(f"--backend {args.backend}")
    if getattr(args, "target", "real") == "device":
        parts.append(f"--target device --arch {','.join(chips(args))} --dest "
                     f"{args.dest or 'bf16'}"
                     + (f" --scheme {args.scheme}" if args.scheme else ""))
    return " ".join(parts)


def _print(result, console: Console) -> None:
    proven = result.certificate.proven
    table = Table(title=f"{result.function} on [{result.interval}]: powers "
                        f"{', '.join(map(str, result.powers))}, {result.error_measure} error"
                        + (f", weight {result.weight}" if result.weight else ""))
    for column in ("power", "format", "coefficient", "bits", "real minimax"):
        table.add_column(column, justify="left" if column in ("format", "bits") else "right")
    for k, fmt, value, bits, real in zip(result.powers, result.formats, result.values,
                                         result.bits(), result.minimax_coefficients):
        fixed = " (fixed)" if k in result.fixed else ""
        table.add_row(str(k), fmt, repr(value) + fixed, bits, f"{real:.17g}")
    console.print(table)
    c = result.certificate
    lines = [
        ("sup error, rounded coefficients",
         f"{result.sup_error:.10e}  " + (f"certified: in [{float(c.lower):.10e}, "
                                         f"{result.sup_error:.10e}], {c.pieces} pieces"
                                         if proven else "sampled, NOT proven (no arb form)")),
        ("largest error at x", f"{float(c.argmax):.10g}"),
        ("minimax error (real coefficients)",
         f"{result.minimax_error:.10e}  (proven >= {result.minimax_lower:.10e} for every "
         f"polynomial on these powers)"),
        ("cost of rounding", f"{result.sup_error / result.minimax_error - 1:+.4%}"
         if result.minimax_error else "-"),
        ("equioscillation points", ", ".join(f"{x:.6g}" for x in result.equioscillation_points)),
        ("coefficients from", f"{result.method} (backend {result.backend})"),
    ]
    _print_rows(console, lines)


def _print_rows(console, lines) -> None:
    """Label / value rows, the labels bold, long values folded."""
    summary = Table(show_header=False, box=None)
    summary.add_column(style="bold")
    summary.add_column(overflow="fold")
    for label, text in lines:
        summary.add_row(label, text)
    console.print(summary)


# ------------------------------------------------------------------------------------------
# Predicted device ULP over a range
# ------------------------------------------------------------------------------------------

def _float_range(text: str | None, result):
    """The ``--range`` (:func:`~sfpu_sim.cli.options.value_range`, as every command reads it;
    default: the fit's interval) as the closed float range holding exactly the floats inside
    the real interval (ends such as pi/4 rounded inward), and its text."""
    if text:
        return value_range(text), text.strip()
    bounds = parse_interval(result.interval)
    lo, hi = bounds.inner()
    low, high = float(lo), float(hi)
    if Fraction(low) < lo:
        low = math.nextafter(low, math.inf)
    if Fraction(high) > hi:
        high = math.nextafter(high, -math.inf)
    return (low, high), bounds.text


def _polynomial_bits(result, inputs):
    """The exact polynomial at each input, rounded to nearest even BF16 (denormal results
    flushed to zero of their sign, as the device's FTZ would)."""
    bf16 = COEFFICIENT_FORMATS["bf16"]
    tiny = Fraction(2) ** bf16.emin
    out = []
    for x in formats.bits_to_float64(inputs, formats.BF16).tolist():
        x = Fraction(x)
        value = sum((c * x ** k for c, k in zip(result.coefficients, result.powers)),
                    Fraction(0))
        out.append(0.0 if abs(value) < tiny else float(bf16.nearest(value)))
    return np.array(out, dtype=ml_dtypes.bfloat16).view(np.uint16)


def _predict(result, path, name: str, args) -> dict:
    """Sweeps of the emitted kernel over the range (sfpu_sim.sweeps with a Selection, so the
    figures are those of ``sfpu-sim sweep KERNEL --range``), and the exact polynomial on the
    same inputs against the same reference."""
    registry.load_kernel_files([path])
    spec = registry.get(name)
    (low, high), range_text = _float_range(args.range, result)
    selection = Selection((low, high))
    dest = args.dest or spec.dest
    rows, first = {}, None
    for chip in chips(args, spec.chips):
        swept = sweep(spec, chip, dest=dest, ulp_convention=ULP_CONVENTION,
                      selection=selection)
        s = swept.summary
        rows[chip] = {"max_ulp": s["max_ulp"], "mean_ulp": s["mean_ulp"],
                      "exact_fraction": s["exact_frac"], "counted": s["count"],
                      "instructions": len(spec.program(chip))}
        first = first or swept
    inputs, expected = first.arrays["x_bits"], first.arrays["expected"]
    polynomial = ulp.distance(expected, _polynomial_bits(result, inputs), ULP_CONVENTION,
                              "bf16").summary()
    rows = {"polynomial": {"max_ulp": polynomial["max"], "mean_ulp": polynomial["mean"],
                           "exact_fraction": polynomial["exact_fraction"],
                           "counted": polynomial["counted"]}, **rows}
    return {"range": [low, high], "range_text": range_text, "inputs": int(inputs.size),
            "reference": f"{result.function} correctly rounded to BF16 (rne)",
            "ulp_convention": ULP_CONVENTION, "dest": dest, "output_format": "bf16",
            "rows": rows}


def _print_prediction(p: dict, console: Console) -> None:
    lo, hi = p["range"]
    table = Table(title=f"predicted ULP over the {p['inputs']:,} BF16 inputs in "
                        f"[{p['range_text']}] = [{lo:.6g}, {hi:.6g}]; reference: "
                        f"{p['reference']}; ULP: {p['ulp_convention']}")
    for column in ("evaluation", "max ULP", "mean ULP", "exact"):
        table.add_column(column, justify="left" if column == "evaluation" else "right")
    for key, row in p["rows"].items():
        label = ("polynomial, exact arithmetic, rounded to nearest BF16" if key == "polynomial"
                 else f"{CHIPS[key]} (SFPU kernel, {row['instructions']} instructions, "
                      f"{p['dest'].upper()} Dst)")
        table.add_row(label, str(row["max_ulp"]), f"{row['mean_ulp']:.4f}",
                      f"{row['exact_fraction']:.2%}")
    console.print(table)


# ------------------------------------------------------------------------------------------
# The parser
# ------------------------------------------------------------------------------------------

def add_parser(sub, parents) -> None:
    parser = sub.add_parser(
        "fit", parents=parents,
        help="design a polynomial: minimax fit, coefficient rounding, certified error, kernel",
        description="Fit a minimax polynomial to FUNCTION, round its coefficients to their "
                    "formats (at least as well as Sollya's fpminimax), prove the rounded "
                    "polynomial's error bound, and optionally emit and sweep a kernel file.")
    # Interval ends such as -pi/4 start with a dash: read them as values, not options.
    parser._negative_number_matcher = re.compile(r"^-[^-]")
    parser.add_argument("function", nargs="?",
                        help="a reference function (exp, log, sin, ...; a kernel file's "
                             "register_kernel(..., reference=) adds one), or --reference")
    parser.add_argument("--reference", metavar="EXPR",
                        help="fit this expression in x instead of a named FUNCTION, e.g. "
                             "'tan(x)', 'x*erfc(-x/sqrt(2))/2', 'log1p(exp(x))': numbers, pi, "
                             "e, + - * / ^, log exp sqrt sin cos tan tanh sinh cosh atan asin "
                             "acos asinh acosh atanh erf erfc log1p expm1 log2 log10 exp2 abs "
                             "cbrt sigmoid; certified like a named function, and an emitted "
                             "kernel carries it")
    parser.add_argument("--interval", required=True, metavar="LO,HI",
                        help="e.g. -pi/4,pi/4 or 0,log(2) (numbers, pi, e, log(), sqrt(), ...)")
    parser.add_argument("--powers", metavar="K,K,...", help="powers of x, e.g. 1,3,5,7 "
                                                           "(0 to 64)")
    parser.add_argument("--degree", type=int, metavar="N", help="all powers up to N, at most "
                                                                "64 (see --parity)")
    parser.add_argument("--parity", choices=("odd", "even"), help="with --degree: odd or even "
                                                                  "powers only")
    parser.add_argument("--error", choices=("absolute", "relative"), default="absolute")
    parser.add_argument("--weight", metavar="EXPR", help="an expression in x multiplying the "
                                                         "error, e.g. exp(-x)")
    parser.add_argument("--coeff-format", default="fp32", metavar="F[,F...]",
                        help=f"coefficient format(s): {', '.join(COEFFICIENT_FORMATS)}, one "
                             f"for all or one per power (default fp32); was --format")
    old_spelling(parser, "--format", "--coeff-format", "fit", dest="coeff_format")
    parser.add_argument("--fix", metavar="K=V[,K=V]", help="fix coefficients, e.g. 0=1")
    parser.add_argument("--precision", type=int, default=128, metavar="BITS",
                        help="Remez working precision (default 128, at most 4096)")
    parser.add_argument("--backend", choices=("sfpu-sim", "sollya"), default="sfpu-sim",
                        help="who rounds the coefficients (sollya: its fpminimax, if installed)")
    parser.add_argument("--target", choices=("real", "device"), default="real",
                        help="real: minimax error in exact arithmetic (default); device: "
                             "coefficients whose kernel is correctly rounded to BF16 on every "
                             "BF16 input of the interval on the emulated --arch chips (exit 1 "
                             "when none is found)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--emit", metavar="FILE.py", help="write a kernel file evaluating the "
                                                          "polynomial")
    parser.add_argument("--name", help="the emitted kernel's name (default: the file's stem)")
    parser.add_argument("--scheme", choices=SCHEMES, help="evaluation (default horner)")
    parser.add_argument("--sweep", action="store_true",
                        help="run the emitted kernel over the BF16 inputs in --range and print "
                             "the predicted device ULP per chip")
    arch_option(parser, "chips for --sweep and --target device (default: every chip; "
                        "'both' is the old spelling of all)", old_both="fit")
    parser.add_argument("--range", metavar="LO,HI", help=f"inputs for --sweep (default: the "
                                                         f"interval): {RANGE_HELP}")
    parser.add_argument("--dest", choices=sorted(FORMATS), help="Dst format for --sweep (default: the "
                                                        "kernel's, bf16)")
    parser.set_defaults(handler=cmd_fit)


# ------------------------------------------------------------------------------------------
# --target device: correctly rounded on the emulated chips
# ------------------------------------------------------------------------------------------

_NOT_FOR_DEVICE = (
    ("sweep", "--sweep: --target device always sweeps the kernel it finds on --arch; drop it"),
    ("range", "--range: --target device fits every BF16 input of --interval; drop it"),
    ("weight", "--weight: --target device measures BF16 ULPs, not a weighted error; drop it"),
)


def _fit_device(args, console: Console) -> int:
    for option, refusal in _NOT_FOR_DEVICE:
        if getattr(args, option):
            raise SfpuSimError(refusal)
    if args.error != "absolute" or args.backend != "sfpu-sim":
        raise SfpuSimError("--target device searches coefficients by BF16 ULPs on the chips: "
                           "--error relative and --backend sollya do not apply; drop them")
    if args.name and not args.emit:
        raise SfpuSimError("--name names the emitted kernel: give --emit FILE.py")
    if args.emit:                     # checked before the search, so a refused run writes nothing
        emit.kernel_name(args.emit, args.name)
        RunFiles(inputs=args.kernel_files).claim(args.emit, "--emit")
    scheme = args.scheme or "horner"
    with coefficient_format_option():
        result = fit_device(args.function, args.interval, powers=args.powers,
                            degree=args.degree, parity=args.parity, formats=args.coeff_format,
                            fix=args.fix, precision=args.precision, chips=chips(args),
                            dest=args.dest or "bf16", scheme=scheme)
    emitted = None
    if args.emit:
        _, name = emit.write_kernel(result.fit, args.emit, args.name, scheme,
                                    command=_command(args), final_rounding=True,
                                    description=result.description)
        emitted = {"kernel_file": str(args.emit), "kernel": name, "scheme": scheme}
    if args.json:
        document = result.to_json()
        if emitted:
            document["emitted"] = emitted
        sys.stdout.write(json_text(document))
    else:
        _print(result.fit, console)
        _print_device(result, console)
        if emitted:
            console.print(f"wrote {emitted['kernel_file']} (kernel {emitted['kernel']}, "
                          f"{scheme}, final rounding float_to_fp16b; load it with --kernels "
                          f"{emitted['kernel_file']})", highlight=False, markup=False,
                          soft_wrap=True)
    return 0 if result.correctly_rounded else 1


def _print_device(result, console: Console) -> None:
    lo, hi = result.range
    table = Table(title=f"{result.fit.function} on the emulated chips: {result.status} over the "
                        f"{result.inputs:,} BF16 inputs in [{lo:.6g}, {hi:.6g}]; reference: "
                        f"correctly rounded to BF16 (rne); ULP: daz-index")
    for column in ("kernel", "max ULP", "exact"):
        table.add_column(column, justify="left" if column == "kernel" else "right")
    for chip, row in result.chips.items():
        table.add_row(f"{CHIPS[chip]} ({row['instructions']} instructions, "
                      f"{result.dest.upper()} Dst)", str(row["max_ulp"]),
                      f"{row['exact']:,} / {row['counted']:,}")
    console.print(table)
    lines = [("LP margin, real coefficients", (f"{float(result.lp_margin):+.4f} FP32 ulps "
              f"(exact; no polynomial on these powers does better)")),
             ("margin of the coefficients", (f"{result.margin:+.4f} FP32 ulps (exact "
              f"polynomial), after {result.rounds} round(s) of search"))]
    for case in result.proof:
        lines.append((f"infeasible: {case['assumption']}",
                      f"LP margin {case['lp_margin_fp32_ulps']:+.4f} FP32 ulps; conflicting "
                      f"{'(irreducible)' if case['minimal'] else '(not minimal)'}: "
                      + "; ".join([f"x={row['x']:.9g} ({row['x_bits']}) {row['bound']} "
                                   f"{row['end']:.9g} ({row['end_bits']})"
                                   for row in case["inputs"]] + case["coefficient_bounds"])))
    _print_rows(console, lines)
