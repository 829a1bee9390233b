"""``sfpu-sim locate``: where a kernel loses precision, per instruction, with the exact shadow
of its dataflow beside the device run (:mod:`sfpu_sim.shadow`)."""
from __future__ import annotations

import json
import math
import statistics
import sys

import mpmath
from rich import box
from rich.console import Console
from rich.table import Table

from sfpu_sim.cli.common import (
    CHIPS, Progress, kernel_spec, parse_bf16, selection, selection_options)
from sfpu_sim.cli.options import arch_option, chips, values_option
from sfpu_sim.display import bf16_text, fp32_text
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.report.files import json_text
from sfpu_sim.shadow import locate
from sfpu_sim.shadow.locator import sweep_json_inputs

SHORT_DEFINITIONS = (
    "kind: exact = real arithmetic applied exactly to the shadow operands; select = SFPSWAP "
    "moves the shadows as the device decided; rounding = SFP_STOCH_RND to FP16A/B, the shadow "
    "stays unrounded; approximate = SFPARECIP, the shadow is the exact 1/x or e^x (320 bits, "
    "≈); load/store = Dst (the store keeps the shadow unrounded); device = not a real "
    "function of its operands (integer, bit field, constant): the shadow takes the device "
    "value",
    "error: device value against the shadow (the kernel's arithmetic done exactly), in FP32 "
    "ULP at the shadow; added: the instruction's result against its exact result on the "
    "device's own operands; growth: the result's relative error minus its operands' largest",
    "bits lost: log2 of an addition's condition number (|x| + |y|)/|x + y| at the shadow: "
    "its operands' relative errors, from approximation or rounding, come out multiplied by it",
    "split (daz-index BF16 ULP steps, signed, adding up to the total): approximation = "
    "idx(rne(S)) - idx(R), datapath = idx(rne(K)) - idx(rne(S)), store/pack = idx(O) - "
    "idx(rne(K)); R reference, S shadow of the stored value, K device FP32 before the store, "
    "O output",
    "located: the larger part of the split decides: the device's error -> where it grows most "
    "(on the path to the stored value); the approximation -> the largest cancellation if it "
    "explains it (loses >= 4 bits, and rho = |S-f|/|f| >= 2^-9 > rho/kappa: 2^-9 is the least "
    "relative error that can reach half a BF16 ULP), else the approximation's own error",
)


def _number(value, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    if value == 0:
        return "0"
    return f"{value:.{digits}g}"


def _count(value) -> str:
    return "—" if value is None else f"{value:,d}"


def _signed(value) -> str:
    return "—" if value is None else f"{value:+,d}"


def _fraction(value) -> str:
    return "—" if value is None else f"{value:+.3f}"


def _shadow(value, approximate: bool, digits: int = 10) -> str:
    return ("≈" if approximate else "") + mpmath.nstr(value, digits, min_fixed=-5,
                                                      max_fixed=6)


def _short_source(source: str | None) -> str:
    """``file.py:line`` without the directories (the header lines give the full path)."""
    return (source or "").rpartition("/")[2]


def _place(step) -> str:
    if step is None:
        return "—"
    source = step.instruction.source or ""
    return f"#{step.index} {step.instruction.mnemonic}" + (f" ({source})" if source else "")


def _lane_header(lane, console: Console) -> None:
    split = lane.split
    console.print(
        f"x = {bf16_text(lane.input_bits)} ({lane.input_bits:#06x}): output "
        f"{lane.output_bits:#06x} {bf16_text(lane.output_bits)}, reference "
        f"{lane.reference_bits:#06x} {bf16_text(lane.reference_bits)}, device ULP "
        f"{_count(lane.device_ulp) if lane.device_ulp is not None else 'unmeasurable'}",
        highlight=False, markup=False, soft_wrap=True)
    console.print(
        f"  true value {mpmath.nstr(lane.true_value, 10)}; shadow of the stored value "
        f"{_shadow(lane.shadow_final, lane.shadow_approximate)}; device FP32 before the store "
        f"{lane.kernel_fp32_bits:#010x} {fp32_text(lane.kernel_fp32_bits)}",
        highlight=False, markup=False, soft_wrap=True)
    if split is None:
        console.print("  split: not measurable (a NaN, or an infinity against a finite value)",
                      markup=False)
    else:
        console.print(
            f"  split (BF16 ULP steps): approximation {_signed(split.approximation)} + datapath "
            f"{_signed(split.datapath)} + store/pack {_signed(split.store)} = "
            f"{_signed(split.total)}; fractional (BF16 ULP at the reference): "
            f"{_fraction(split.approximation_frac)}, {_fraction(split.datapath_frac)}, "
            f"{_fraction(split.store_frac)}", highlight=False, markup=False, soft_wrap=True)
    console.print(f"  located: {_place(lane.located.step)}: {lane.located.why}",
                  highlight=False, markup=False, soft_wrap=True)
    cancel = lane.cancellation
    console.print(
        f"  error grows most: {_place(lane.grows_most)}"
        + (f" (+{lane.grows_most.growth:.3g} relative)" if lane.grows_most else "")
        + f"; largest cancellation: {_place(cancel)}"
        + (f" ({math.log2(cancel.kappa):.1f} bits lost)" if cancel else ""),
        highlight=False, markup=False, soft_wrap=True)


def _lane_table(lane, program, show_all: bool) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column, justify in (("#", "right"), ("instruction", "left"), ("source", "left"),
                            ("kind", "left"), ("bits", "left"), ("device", "left"),
                            ("shadow", "left"), ("err", "right"), ("added", "right"),
                            ("growth", "right"), ("lost", "right")):
        # One line per instruction from ~140 columns; narrower, cells fold (never cropped).
        table.add_column(column, justify=justify, overflow="fold")

    for step in lane.steps:
        if step.index < program.init_length and not show_all:
            continue
        marker = " ◀" if lane.located.step is step else ""
        target = "Dst" if step.register is None else f"L{step.register}"
        kappa = step.kappa
        table.add_row(
            f"{step.index}{marker}", f"{step.instruction.mnemonic} → {target}",
            _short_source(step.instruction.source), step.kind,
            f"{step.device_bits:#010x}", fp32_text(step.device_bits),
            _shadow(step.shadow, step.twin.approximate, 9), _number(step.error_ulp),
            _number(step.added_ulp), _number(step.growth),
            f"{math.log2(kappa):.1f}" if kappa > 1 and not math.isnan(kappa) else "",
            style=None if step.index in lane.cone else "dim")
    return table


def _worst_table(found) -> Table:
    table = Table(title=f"{len(found.lanes)} lanes: {found.selection}", show_edge=False)
    for column in ("input", "bits", "ULP", "approx.", "datapath", "store", "located"):
        table.add_column(column, justify="left" if column in ("located", "bits") else "right",
                         overflow="fold")

    for lane in found.lanes:
        split = lane.split
        table.add_row(bf16_text(lane.input_bits), f"{lane.input_bits:#06x}",
                      _count(lane.device_ulp), *(("—",) * 3 if split is None else (
                          _signed(split.approximation), _signed(split.datapath),
                          _signed(split.store))),
                      _place(lane.located.step) if lane.located.step else
                      "exact" if lane.device_ulp == 0 else "approximation")
    return table


def _instruction_table(found) -> Table:
    table = Table(title="Where error enters, per instruction, over these lanes",
                  show_edge=False)
    for column in ("#", "instruction", "source", "lanes", "located", "grows most",
                   "cancels most", "added ULP med", "added ULP max", "growth max",
                   "bits lost max"):
        table.add_column(column, justify="left" if column in ("instruction", "source")
                         else "right", overflow="fold")
    for row in found.instructions():
        if not (row.located or row.grows_most or row.cancellation or row.added_ulp
                and max(row.added_ulp) > 0):
            continue
        table.add_row(str(row.index), row.mnemonic, _short_source(row.source), str(row.lanes),
                      str(row.located or ""), str(row.grows_most or ""),
                      str(row.cancellation or ""),
                      _number(statistics.median(row.added_ulp) if row.added_ulp else None),
                      _number(max(row.added_ulp, default=None)),
                      _number(max(row.growth, default=None)),
                      _number(max(row.bits_lost, default=None), 3))
    table.caption = ("instructions that added error, grew it or were named in some lane; "
                     "added ULP: FP32 ULP the instruction added by itself")
    return table


def _from_sweep(args):
    """(kernel, arch, dest, inputs, text) of ``--from SWEEP.json``: the worst lanes it records
    (the first ``--worst N`` of them), for the cell it swept; a KERNEL, --arch or --dest given
    beside it must agree."""
    try:
        with open(args.from_json, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as error:
        raise SfpuSimError(f"--from {args.from_json}: cannot read ({error.strerror})") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise SfpuSimError(f"--from {args.from_json}: not JSON ({error})") from None
    if not isinstance(data, dict):
        raise SfpuSimError(f"--from {args.from_json}: not a sweep --json summary")
    cell, inputs = sweep_json_inputs(data, f"--from {args.from_json}")
    arch = ",".join(chips(args)) if args.arch else None
    for option, given in (("KERNEL", args.kernel), ("--arch", arch), ("--dest", args.dest)):
        wanted = cell["kernel" if option == "KERNEL" else option[2:]]
        if given is not None and given != wanted:
            raise SfpuSimError(f"--from {args.from_json}: the sweep ran {wanted!r}, but "
                               f"{option} is {given!r} (leave it out, or make them agree)")
    inputs = inputs[:args.worst] if args.worst is not None else inputs
    text = (f"the {len(inputs)} worst inputs recorded in {args.from_json} (its selection: "
            f"{(data.get('selection') or {}).get('text', 'every input')})")
    return cell["kernel"], cell["arch"], cell["dest"], inputs, text


def cmd_locate(args, console: Console) -> int:
    """Run a kernel with its exact shadow on each chip and say where precision is lost."""
    chosen = selection(args)
    if args.from_json is not None:
        if args.x is not None or not chosen.everything:
            raise SfpuSimError("locate --from: the lanes are the sweep's worst; --x, --range "
                               "and --region choose other lanes")
        kernel, arch, dest, inputs, text = _from_sweep(args)
        _locate(args, kernel, arch, dest, dict(inputs=inputs, inputs_text=text), console)
        return 0 if args.json else _definitions(console)
    if (args.x is None) == (args.worst is None):
        raise SfpuSimError("locate: give --x VALUE (repeatable), --worst N or --from "
                           "SWEEP.json")
    if args.x is not None and not chosen.everything:
        raise SfpuSimError("locate: --range and --region choose the lanes of --worst N; "
                           "--x names its lanes itself")
    if args.kernel is None:
        raise SfpuSimError("locate: give KERNEL (or --from SWEEP.json)")
    options = dict(worst=args.worst, selection=chosen) if args.x is None else \
        dict(inputs=[parse_bf16(x) for x in args.x])
    arches = chips(args, kernel_spec(args.kernel).chips)
    if args.json and len(arches) > 1:
        raise SfpuSimError(f"--json prints one chip's result: give one --arch (here: "
                           f"{', '.join(arches)})")
    for k, arch in enumerate(arches):
        if k:
            console.print()
        _locate(args, args.kernel, arch, args.dest, options, console)
    return 0 if args.json else _definitions(console)


def _locate(args, kernel: str, arch: str, dest: str | None, options: dict,
            console: Console) -> None:
    """One chip's run: its JSON, or its tables (the definitions follow them once)."""
    spec = kernel_spec(kernel)
    with Progress(what="locate") as progress:
        progress.begin(f"{spec.name} on {arch}")
        found = locate(spec, arch, dest=dest, progress=progress.step, **options)
    if args.json:
        sys.stdout.write(json_text(found.to_json()))
        return
    console.print(f"locate {found.kernel} ({found.function}) on {CHIPS[found.arch]}, Dst "
                  f"{found.dest.upper()}: {found.selection}", highlight=False, markup=False,
                  soft_wrap=True)
    detail = args.x is not None or args.detail
    if args.x is None:
        console.print(_worst_table(found))
    for lane in found.lanes if detail else []:
        console.print()
        _lane_header(lane, console)
        console.print(_lane_table(lane, found.program, args.all))
    if len(found.lanes) > 1 or args.x is None:
        console.print()
        console.print(_instruction_table(found))
    console.print()
    if detail:
        hidden = "" if args.all or not found.program.init_length else (
            f" The init instructions (0-{found.program.init_length - 1}) are not shown "
            f"(--all shows them).")
        console.print("err, added: FP32 ULP; growth: relative; lost: bits. Dim rows: not on "
                      "the path to the stored value. ◀: located." + hidden,
                      highlight=False, markup=False, soft_wrap=True)


def _definitions(console: Console) -> int:
    for line in SHORT_DEFINITIONS:
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    return 0


def _lanes(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise SfpuSimError(f"--worst {text!r}: give a whole number of lanes") from None


def add_parser(sub, parents) -> None:
    """Register ``locate`` (``parents``: the options every command takes)."""
    parser = sub.add_parser(
        "locate", parents=parents,
        help="where a kernel loses precision: the device run beside its dataflow in exact "
             "arithmetic, per instruction, and the final error split into approximation, "
             "datapath and store")
    parser.add_argument("kernel", metavar="KERNEL", nargs="?",
                        help="a kernel name or an assembly file (not needed with --from)")
    arch_option(parser, "the chips to run on (default: every chip the kernel runs on; with "
                        "--from, the sweep's)")
    values_option(parser, "--x", "inputs, one lane each (float literals rounded to BF16, or "
                                 "0x BF16 bits; negative: --x=-3)")
    parser.add_argument("--worst", type=_lanes, metavar="N",
                        help="the N inputs of largest device ULP over all 65,536 BF16 inputs "
                             "(or over --range / --region; with --from: its first N)")
    selection_options(parser, what="with --worst: look only at")
    parser.add_argument("--from", dest="from_json", metavar="SWEEP.json",
                        help="the worst lanes a `sfpu-sim sweep --json` summary records, for "
                             "its kernel, chip and Dst")
    parser.add_argument("--dest", choices=("bf16", "fp32"),
                        help="Dst format (default: the kernel's registered one)")
    parser.add_argument("--detail", action="store_true",
                        help="with --worst: every lane's per-instruction table too")
    parser.add_argument("--all", action="store_true",
                        help="also show the kernel's init instructions")
    parser.add_argument("--json", action="store_true",
                        help="the result as JSON (keys: sfpu_sim/shadow/json_form.py)")
    parser.set_defaults(handler=cmd_locate)
