"""What the subcommands share: kernel lookup, input parsing, the progress display, the sweep
options, running one sweep for a command, and running a command on each chip it names (the
option grammar itself, ``--arch`` and ``--range`` among it: :mod:`sfpu_sim.cli.options`).

Knows the public API of the package (registry, sweeps, reports), nothing deeper.
"""
from __future__ import annotations

import argparse
import math

import numpy as np
from rich import progress as rich_progress

from sfpu_sim import formats, registry, ulp
from sfpu_sim.binary_device import require_operands
from sfpu_sim.cli.options import CHIPS, RANGE_HELP, arch_option, chips, value_range
from sfpu_sim.cli.output import TerminalConsole
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.formats import round_values
from sfpu_sim.fp32sweep import from_options, sweep_fp32
from sfpu_sim.reference.user_expressions import reference_name
from sfpu_sim.report import parse_formats
from sfpu_sim.selection import REGIONS, REGIONS_BY_FUNCTION, SIGN_REGIONS, Selection
from sfpu_sim.sweeps import sweep


class Progress:
    """A transient progress display on stderr (only on a terminal): ``step(label)`` names the
    current step of a sweep, ``advance()`` counts finished sweeps."""

    def __init__(self, total: int = 1, what: str = "sweep"):
        stderr = TerminalConsole(stderr=True)
        self.progress = rich_progress.Progress(
            rich_progress.SpinnerColumn(),
            rich_progress.TextColumn("{task.description}", markup=False),
            rich_progress.BarColumn(), rich_progress.MofNCompleteColumn(),
            rich_progress.TimeElapsedColumn(), console=stderr, transient=True,
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

    def update(self, done: int, total: int) -> None:
        """``done`` of ``total`` inputs (an FP32 sweep's chunks)."""
        self.progress.update(self.task, completed=done, total=total)


def kernel_spec(name: str, *, binary: bool = False, listing: bool = False):
    """A kernel by name; a binary one only where the command runs two operands (``binary``), a
    ternary one only to list it (``listing``), else refused in one line."""
    spec = registry.get(name)
    if spec.operands == 3 and not listing:
        raise SfpuSimError(f"{spec.name} is a ternary kernel (three operands): sfpu-sim runs it "
                           f"on its accuracy-table row's stimuli (budget SfpuLerp, SfpuAddcdiv); "
                           f"no command takes its operands yet")
    if spec.operands == 2 and not binary:
        raise SfpuSimError(f"{spec.name} is a binary kernel (two operands): this command runs "
                           f"one-operand programs; sweep and eval take it with --y")
    return spec


def selection(args):
    """The inputs a command counts: ``--range`` (:func:`~sfpu_sim.cli.options.value_range`:
    numbers or constant expressions) and ``--region`` (both optional); a region must be one
    of the function of the command's one-operand KERNEL (refused in one line naming them; a
    binary kernel's x axis takes any region name)."""
    name, kernel = getattr(args, "region", None), getattr(args, "kernel", None)
    spec = registry.get(kernel) if name is not None and kernel else None
    function = spec.function if spec is not None and getattr(spec, "operands", 1) == 1 \
        else None
    if function is not None and getattr(args, "reference", None):
        function = registry.with_reference(spec, args.reference).function
    region = Selection.from_options(None, name, function).region
    text = getattr(args, "range", None)
    return Selection(value_range(text) if text is not None else None, region)


def report_files(text: str) -> tuple[str, ...]:
    """``--files md,png,json``: the report files to write (an unknown name refused in one line
    naming ``--files``)."""
    try:
        return parse_formats(text)
    except SfpuSimError as error:
        raise type(error)(str(error).replace("--format", "--files", 1)) from None


# How sweep and eval take a binary kernel's second operand (binary_sweeping's OPTIONS).
OPERAND_OPTIONS = {"sweep": "--y VALUES, --y-range LO,HI or --harness-sample",
                   "eval": "--y VALUES"}


def on_each_chip(handler, documents: dict[str, str] | None = None, listing: bool = False):
    """``handler`` (of one ``args.arch``) run on each chip ``--arch`` names, by default every
    chip of the command's KERNEL, a heading before each where there are several.
    ``documents``: the options (dest: what it writes) whose output holds one chip's result,
    refused with several chips before any work; a ternary KERNEL likewise unless the command
    only lists it (``listing``)."""
    def each_chip(args, console):
        kernel = getattr(args, "kernel", None)
        if kernel and not listing:
            spec = kernel_spec(kernel, binary=True)     # a ternary kernel: one line, no heading
            if getattr(args, "command", None) in OPERAND_OPTIONS:     # before any heading too
                given = args.y is not None or getattr(args, "y_range", None) is not None or \
                    getattr(args, "harness_sample", False) or \
                    spec.operands == 2 and getattr(args, "exhaustive", False)
                require_operands(spec, given, OPERAND_OPTIONS[args.command])
        chosen = chips(args, registry.get(kernel).chips if kernel else None)
        for dest, what in (documents or {}).items():
            if len(chosen) > 1 and getattr(args, dest, None) not in (None, False):
                raise SfpuSimError(f"--{dest.replace('_', '-')} {what}: give one --arch "
                                   f"(here: {', '.join(chosen)})")
        status = 0
        for k, chip in enumerate(chosen):
            if len(chosen) > 1:
                if k:
                    console.print()
                console.print(f"{CHIPS[chip]} (--arch {chip}):", highlight=False,
                              soft_wrap=True)
            status = max(status, handler(argparse.Namespace(**{**vars(args), "arch": chip}),
                                         console))
        return status
    return each_chip


def reference_option(parser, what: str = "sweeps") -> None:
    """``--reference EXPR`` (call after the parser's handler is set): the reference the
    command's ``what`` measure against instead of the kernel's function, checked before any
    work (an expression that does not parse, a binary kernel, ``report --all``)."""
    parser.add_argument("--reference", metavar="EXPR",
                        help=f"measure the {what} against this reference instead of the "
                             f"kernel's function: an expression in x, e.g. 'tan(x)', "
                             f"'x*erfc(-x/sqrt(2))/2', 'log1p(exp(x))' (one it cannot read "
                             f"is refused with the functions it knows), or a reference "
                             f"function's name")
    handler = parser.get_default("handler")

    def checked(args, console):
        if args.reference is not None:
            if getattr(args, "all", False):
                raise SfpuSimError("--reference replaces one kernel's reference: give a "
                                   "KERNEL, not --all")
            kernel = getattr(args, "kernel", None)
            if kernel:
                registry.with_reference(registry.get(kernel), args.reference)
            else:
                reference_name(args.reference)
        return handler(args, console)
    parser.set_defaults(handler=checked)


def run_sweep(args, kernel: str, arch: str, progress: Progress, *, dest: str | None = None,
              ulp_convention: str | None = None):
    spec = kernel_spec(kernel)
    if getattr(args, "reference", None) is not None:
        spec = registry.with_reference(spec, args.reference, dest or args.dest)
    if args.input_format == "fp32" or _fp32_options(args):
        return _run_fp32_sweep(args, spec, arch, progress, dest, ulp_convention)
    progress.begin(f"{kernel} on {arch}")
    result = sweep(spec, arch, dest=dest or args.dest or spec.dest,
                   input_format=args.input_format, output_format=args.output_format,
                   reference_rounding=args.reference_rounding,
                   ulp_convention=ulp_convention or args.ulp, selection=selection(args),
                   progress=progress.step)
    progress.advance()
    return result


# The FP32-sweep options and their defaults: what a command without them (budget has only
# --exhaustive) runs, the harness's strided walk on the local scheduler, with no state file.
FP32_DEFAULTS = {"stride": None, "exhaustive": False, "scheduler": "local", "chunk": None,
                 "workers": None, "state": None, "restart": False}


def _fp32_options(args) -> list[str]:
    """The FP32-sweep options given on the command line (not at their defaults)."""
    return [f"--{name}" for name, default in FP32_DEFAULTS.items()
            if getattr(args, name, default) != default]


def _run_fp32_sweep(args, spec, arch: str, progress: Progress, dest, ulp_convention):
    """``--in fp32``: FP32 input patterns, streamed (sfpu_sim.fp32sweep)."""
    if not hasattr(args, "exhaustive"):
        raise SfpuSimError(f"--in fp32: FP32 input sweeps run with `sfpu-sim sweep` and "
                           f"`sfpu-sim report` (not `{args.command}`)")
    if args.input_format != "fp32":
        raise SfpuSimError(f"{', '.join(_fp32_options(args))}: only for FP32 input sweeps "
                           f"(add --in fp32)")
    chosen = selection(args)
    option = {name: getattr(args, name, default) for name, default in FP32_DEFAULTS.items()}
    walk = from_options(option["stride"], option["exhaustive"], chosen.range)
    progress.begin(f"{spec.name} on {arch}: {walk.text}")
    return sweep_fp32(spec, arch, walk, dest=dest or args.dest or spec.dest,
                      output_format=args.output_format,
                      reference_rounding=args.reference_rounding,
                      ulp_convention=ulp_convention or args.ulp, selection=chosen,
                      chunk=option["chunk"],
                      scheduler=option["scheduler"], workers=option["workers"],
                      state_path=option["state"], resume=not option["restart"],
                      progress=progress.update)


def parse_bf16(text: str) -> int:
    """An eval input: ``0x`` BF16 bits, or a float literal rounded to BF16 (nearest even);
    ``nan`` / ``-nan`` are the quiet NaNs 0x7fc0 / 0xffc0."""
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
    if math.isnan(value):                 # the quiet NaN of the sign written: -nan is 0xffc0
        return 0xFFC0 if math.copysign(1.0, value) < 0 else 0x7FC0
    return int(round_values(np.array([value]), "rne", "bf16")[0])


ARCH_HELP = "the chips to run on (default: every chip the kernel runs on)"


def sweep_options(parser: argparse.ArgumentParser, *, arch: str = ARCH_HELP,
                  budget: bool = False, select: bool = False, measure: bool = True,
                  fp32: bool = False) -> None:
    """The options that name a sweep's cell and its measurement: ``--arch`` (its help:
    ``arch``), the Dst, formats and reference; ``select``: ``--range``/``--region``; ``fp32``:
    also those of FP32 input sweeps (``--in fp32``); ``budget``: the budget's formats and no
    ``--ulp``."""
    tensor_formats = sorted(formats.FORMATS)         # sweeps.FORMATS, without importing numba
    arch_option(parser, arch)
    if measure:
        parser.add_argument("--reference-rounding", choices=list(formats.policies()),
                            default="rne", help="how the reference is rounded (default: rne)")
    if not budget and measure:
        parser.add_argument("--ulp", choices=list(ulp.CONVENTIONS), default="daz-index",
                            help="ULP convention (default: daz-index)")
    parser.add_argument("--dest", choices=["bf16", "fp32"],
                        help="Dst mode: bf16 (16-bit; it holds the input's 16-bit format) or fp32 "
                             "(is_fp32_dest_acc_en: the kernel's FP32-Dst instantiation runs); "
                             "default: the kernel's own")
    parser.add_argument("--in", dest="input_format", choices=tensor_formats, default="bf16",
                        type=_table_format if budget else None,
                        help="input format: bf16 (all 65,536 patterns, default) or fp32 "
                             "(FP32 patterns through an FP32 Dst: --stride, --exhaustive)"
                        if fp32 else "input tensor format (default: bf16; budget also takes "
                        "the table's names, Float16_b, Float16, Float32)" if budget
                        else "input tensor format (default: bf16)")
    parser.add_argument("--out-format", dest="output_format", choices=tensor_formats,
                        help="output tensor format (default: fp16 with --in fp16, else bf16)")
    if select:
        selection_options(parser)
    if fp32:
        _fp32_sweep_options(parser.add_argument_group("FP32 input sweeps (--in fp32)"))


def _table_format(text: str) -> str:
    """A format as the accuracy table names it (``Float32``) or as sfpu-sim does (``fp32``)."""
    return {"float16_b": "bf16", "float16": "fp16", "float32": "fp32"}.get(text.lower(), text)


def selection_options(parser, what: str = "count only") -> None:
    """``--range LO,HI`` and ``--region NAME``, read by :func:`selection`."""
    parser.add_argument("--range", metavar="LO,HI", help=f"{what} inputs x with {RANGE_HELP}")
    parser.add_argument("--region", metavar="NAME",
                        help=f"{what} the inputs of one region of the report's table, one of "
                             f"the kernel's function's: {', '.join(r.name for r in REGIONS)} "
                             f"for {', '.join(REGIONS_BY_FUNCTION)}; "
                             f"{', '.join(r.name for r in SIGN_REGIONS)} for the others")


def _fp32_sweep_options(group) -> None:
    group.add_argument("--stride", type=int, metavar="N",
                       help="Tenstorrent's strided FP32 walk, one value in N (default: 65536, "
                            "tt-llk ulp_sweep.py's; 65,280 inputs over the whole line)")
    group.add_argument("--exhaustive", action="store_true",
                       help="every FP32 pattern (2**32), or every one in --range; a binary "
                            "kernel: every y against every x (all 2**32 BF16 pairs)")
    group.add_argument("--scheduler", default="local", metavar="WHERE",
                       help="local (default: chunks here), dask (a dask.distributed "
                            "LocalCluster: a worker per CPU, as many as 2 GiB hold) or "
                            "tcp://HOST:PORT (a running cluster)")
    group.add_argument("--workers", type=int, metavar="N",
                       help="worker processes of --scheduler dask's LocalCluster (default: "
                            "one per CPU this process may use, at most 6: each takes 256 MB "
                            "of the 2 GiB an FP32 sweep may use)")
    group.add_argument("--chunk", type=int, metavar="N",
                       help="inputs per chunk (default: 1,048,576, less when more threads "
                            "need it to stay in 2 GiB; a pair sweep's: whole rows of 65,536 "
                            "x); any size, same summary")
    group.add_argument("--state", metavar="FILE",
                       help="resume file (default: one per sweep under ~/.cache/sfpu-sim/"
                            "fp32-sweeps); a killed run continues from its last chunk")
    group.add_argument("--restart", action="store_true",
                       help="start over even if a saved state exists")


