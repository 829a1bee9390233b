"""Commands on the machine itself: ``info``, ``asm``, ``disasm``, ``run``; and the kernel
inputs that ``eval``, ``trace`` and ``diff --x`` take, read in the input format
(:func:`kernel_inputs`)."""
from __future__ import annotations

import math
import platform
import warnings
from fractions import Fraction
from importlib import metadata

import numpy as np
from rich.console import Console
from rich.table import Table

from sfpu_sim import formats
from sfpu_sim.asm import assemble_file, decode, format_instruction
from sfpu_sim.bitfields import float_fields, instruction_fields
from sfpu_sim.cli.common import CHIPS, on_each_chip
from sfpu_sim.cli.options import (
    arch_option,
    chips,
    lane_number,
    old_spelling,
    one_chip,
    values_option,
)
from sfpu_sim.display import bf16_text, fp32_text
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.isa.spec import IsaError
from sfpu_sim.machine import Machine, ProgramWarning
from sfpu_sim.machine_tables import parse_value, render_dst, render_registers, render_trace

ENCODING = "blackhole"          # asm and disasm: one chip's encoding, this one unless named
from sfpu_sim.version import __version__


def _versions() -> dict[str, str]:
    packages = ("numpy", "numba", "ml_dtypes", "mpmath", "bitstring", "rich")
    return {"sfpu-sim": __version__, "python": platform.python_version(),
            **{name: metadata.version(name) for name in packages}}


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
    program = assemble_file(args.file, one_chip(args, "asm's output (instruction words)",
                                                ENCODING))
    for instruction in program:
        print(f"{instruction.word:#010x}  # {format_instruction(instruction)}")
    return 0


def cmd_disasm(args, console: Console) -> int:
    chip = one_chip(args, "disasm's reading of a word", ENCODING)
    for text in args.words:
        try:
            word = int(text, 0)
        except ValueError:
            raise SfpuSimError(f"{text!r} is not an instruction word (write e.g. 0x8f000000)")
        print(format_instruction(decode(word, chip, source=text)))
    return 0


def _explain_rows(text: str, arches: list[str]) -> list[tuple[str, list]]:
    """(title, fields) for one ``explain`` argument: a 16-bit pattern (BF16 and FP16 readings),
    a 32-bit pattern (FP32, and the instruction word it is on each chip of ``arches`` where it
    decodes), or a number (its FP32 and BF16 patterns, rounded to nearest even)."""
    lowered = text.strip().lower()
    if lowered.startswith("0x"):
        try:
            bits = int(lowered, 16)
        except ValueError:
            raise SfpuSimError(f"explain {text!r}: not a hex pattern") from None
        digits = len(lowered) - 2
        if digits <= 4:
            fp16 = float(formats.bits_to_fp16(np.uint16(bits)))
            return [(f"{bits:#06x} as BF16: {bf16_text(bits)}", float_fields(bits, "bf16")),
                    (f"{bits:#06x} as FP16: {fp16!r}", float_fields(bits, "fp16"))]
        if digits > 8:
            raise SfpuSimError(f"explain {text!r}: more than 32 bits")
        rows = [(f"{bits:#010x} as FP32: {fp32_text(bits)}", float_fields(bits, "fp32"))]
        for arch in arches:
            try:
                instruction = decode(bits, arch)
                rows.append((f"{bits:#010x} as an instruction on {CHIPS[arch]}: "
                             f"{format_instruction(instruction)}",
                             instruction_fields(instruction)))
            except IsaError as error:
                rows.append((f"{bits:#010x} is not an instruction on {CHIPS[arch]}: {error}",
                             []))
        return rows
    try:
        value = float(lowered)
    except ValueError:
        raise SfpuSimError(f"explain {text!r}: give a 0x pattern (16 or 32 bits), an "
                           f"instruction word, or a number") from None
    if math.isnan(value):
        fp32 = 0xFFC00000 if math.copysign(1.0, value) < 0 else 0x7FC00000
    else:
        with np.errstate(over="ignore"):
            fp32 = int(formats.fp32_to_bits(np.float32(value)))
    bf16 = int(formats.fp32_to_bf16_rne(np.uint32(fp32)))
    return [(f"{text} as FP32 (nearest): {fp32:#010x} = {fp32_text(fp32)}",
             float_fields(fp32, "fp32")),
            (f"{text} as BF16 (nearest): {bf16:#06x} = {bf16_text(bf16)}",
             float_fields(bf16, "bf16"))]


def cmd_explain(args, console: Console) -> int:
    """Bit fields of values and instruction words."""
    for text in args.items:
        for title, fields in _explain_rows(text, chips(args)):
            table = Table(title=title, title_justify="left")
            for column in ("field", "bits", "binary", "value", "meaning"):
                table.add_column(column, no_wrap=column != "meaning")
            for f in fields:
                span = f"{f.high}" if f.high == f.low else f"{f.high}..{f.low}"
                table.add_row(f.name, span, f.bits, str(f.value), f.meaning)
            console.print(table)
    return 0


def _parse_lreg_option(text: str) -> tuple[int, list[int]]:
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


def _parse_dst_option(text: str, fmt: str) -> tuple[int, list[int]]:
    """``--dst ROW=VALUES``: the Dst address an SFPLOAD names (0..1023) and one value per lane
    (or one for all lanes), as standard patterns of the Dst format."""
    row, sep, values = text.partition("=")
    if not sep or not row.strip().isdigit() or not 0 <= int(row) <= 1023:
        raise SfpuSimError(f"--dst {text!r}: write ADDRESS=VALUE[,VALUE...] with the address "
                           f"an SFPLOAD names (0..1023), e.g. 0=1.5,-2")
    try:
        bits = [parse_value(v, integers=False) for v in values.split(",")]
    except ValueError as error:
        raise SfpuSimError(f"--dst {text!r}: {error}") from None
    if fmt == "bf16":
        inexact = [v for v in bits if v & 0xFFFF]
        if inexact:
            raise SfpuSimError(f"--dst {text!r}: {inexact[0]:#010x} is not a BF16 value (a "
                               f"BF16 Dst holds the top 16 bits of an FP32 pattern)")
        bits = [v >> 16 for v in bits]
    return int(row), list(np.asarray(bits, dtype=np.uint32))


# The quiet NaN of each input format (``nan``; ``-nan`` sets the sign bit).
_QUIET_NANS = {"bf16": 0x7FC0, "fp16": 0x7E00, "fp32": 0x7FC00000}


def kernel_inputs(texts, input_format: str, dest: str):
    """The inputs of ``eval``/``trace``/``diff --x`` as patterns of ``input_format``:
    ``0x`` patterns of that format (FP32: more than 4 hex digits, so a BF16 pattern is never
    misread as an FP32 denormal), or numbers rounded to it, nearest even, with a note on
    stderr naming the value a number became when it is not exactly the number written. FP32
    patterns go into an FP32 Dst unchanged, as an FP32 sweep runs them."""
    if input_format == "fp32" and dest != "fp32":
        raise SfpuSimError("--in fp32 puts FP32 patterns into Dst unchanged: it needs an FP32 "
                           "Dst (add --dest fp32, or name an FP32-Dst kernel)")
    bits = [_kernel_input(text, input_format) for text in texts]
    return np.array(bits, dtype=formats.FORMATS[input_format].dtype)


def _kernel_input(text: str, fmt: str) -> int:
    lowered = text.strip().lower()
    if lowered.startswith(("0x", "-0x")):
        return _pattern(text, lowered, fmt)
    try:
        value = float(lowered)
    except ValueError:
        raise SfpuSimError(f"{text!r} is neither a number nor a 0x {fmt.upper()} bit "
                           f"pattern") from None
    if math.isnan(value):                 # the quiet NaN of the sign written: -nan sets it
        sign = formats.FORMATS[fmt].sign_mask if math.copysign(1.0, value) < 0 else 0
        return _QUIET_NANS[fmt] | sign
    bits = int(formats.round_values(np.array([value]), "rne", fmt)[0])
    if lowered.lstrip("+-") in ("inf", "infinity"):
        return bits
    rounded = float(formats.bits_to_float64(np.array([bits], dtype=formats.FORMATS[fmt].dtype),
                                            fmt)[0])
    try:
        written = Fraction(lowered)       # the decimal itself: float() has rounded it already
    except ValueError:
        written = Fraction(value)
    if math.isfinite(rounded) and written == Fraction(rounded):
        return bits
    Console(stderr=True).print(
        f"sfpu-sim: note: input {text} is not {_a(fmt)} value: rounded to nearest even, "
        f"{bits:#0{10 if fmt == 'fp32' else 6}x} = {rounded!r}", markup=False, highlight=False,
        soft_wrap=True)
    return bits


def _a(fmt: str) -> str:
    return f"a {fmt.upper()}" if fmt == "bf16" else f"an {fmt.upper()}"


def _pattern(text: str, lowered: str, fmt: str) -> int:
    """A ``0x`` pattern of ``fmt``; a BF16-sized one for FP32, and an FP32-sized one for a
    16-bit format, are refused saying how to write what was meant."""
    try:
        bits = int(lowered, 16)
    except ValueError:
        raise SfpuSimError(f"{text!r} is not a bit pattern (write e.g. "
                           f"{'0x3f800000' if fmt == 'fp32' else '0x3f80'})") from None
    digits = len(lowered.removeprefix("0x"))
    if fmt == "fp32" and 0 <= bits and digits <= 4:
        raise SfpuSimError(f"{text!r} with --in fp32: write all 8 hex digits of the FP32 "
                           f"pattern ({bits << 16:#010x} is BF16 {text} widened; "
                           f"{bits:#010x} the pattern as written)")
    lowest, highest = ("0x00000000", 0xFFFFFFFF) if fmt == "fp32" else ("0x0000", 0xFFFF)
    if not 0 <= bits <= highest:
        fits_fp32 = fmt != "fp32" and 0 <= bits <= 0xFFFFFFFF
        hint = "; an FP32 pattern needs --in fp32" if fits_fp32 else ""
        raise SfpuSimError(f"{text!r} is not {_a(fmt)} bit pattern ({lowest}..{highest:#x})"
                           f"{hint}")
    return bits


def _report_warnings(caught, verbose: bool) -> None:
    """Program warnings as one line per kind with a count (every one with --verbose)."""
    stderr = Console(stderr=True)

    def say(text):
        stderr.print(f"sfpu-sim: warning: {text}", markup=False, highlight=False,
                     soft_wrap=True)
    kinds: dict[str, list] = {}
    for warning in caught:
        message = warning.message
        if verbose or not isinstance(message, ProgramWarning):
            say(message)
        else:
            kinds.setdefault(message.kind, []).append(message)
    for kind, items in kinds.items():
        first = items[0]
        place = f"instruction {first.index}" + (f", {first.source}" if first.source else "")
        say(f"{kind} ({len(items):,} times; first: {place}; --verbose lists every one)"
            if len(items) > 1 else f"{kind} ({place})")


def cmd_run(args, console: Console) -> int:
    """Run an assembly file on a fresh machine and show registers, the Dst cells it used for
    the lanes shown (and, with --trace, what every instruction changed)."""
    program = assemble_file(args.file, args.arch)
    machine = Machine(args.arch, lanes=args.lanes, strict=args.strict)
    machine.config.sfpu_fp32 = args.dest == "fp32"
    machine.config.srcb_format = args.dest
    for option in args.lreg or []:
        index, values = _parse_lreg_option(option)
        if len(values) > machine.lanes:
            raise SfpuSimError(f"--lreg {option!r}: {len(values)} values for "
                               f"{machine.lanes} lanes")
        machine.lreg[index, :len(values) if len(values) > 1 else machine.lanes] = values
    dst_rows = []
    for option in args.dst or []:
        row, values = _parse_dst_option(option, args.dest)
        if len(values) > machine.lanes:
            raise SfpuSimError(f"--dst {option!r}: {len(values)} values for "
                               f"{machine.lanes} lanes")
        current = machine.dst.read_lanes(row, args.dest)
        current[:len(values) if len(values) > 1 else machine.lanes] = values
        machine.dst.write_lanes(row, current, args.dest)
        dst_rows.append(row)
    shown = args.lane or [0]
    for lane in shown:
        if not 0 <= lane < machine.lanes:
            raise SfpuSimError(f"--lane {lane} out of range (0..{machine.lanes - 1})")
    addresses = sorted(set(dst_rows) | {ins.imm10 for ins in program
                                        if ins.mnemonic in ("SFPLOAD", "SFPSTORE")})
    trace = machine.record(shown, addresses) if args.trace else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ProgramWarning)
        machine.run(program)
    _report_warnings(caught, args.verbose)
    if trace is not None:
        console.print(render_trace(trace, args.bits))
    console.print(render_registers(machine, shown))
    if addresses:
        console.print(render_dst(machine, addresses, shown, args.dest))
    return 0


def add_parser(sub, parents) -> None:
    """Register this module's subcommands (``parents``: the options every command takes)."""
    info = sub.add_parser("info", parents=parents, help="supported chips and component versions")
    info.set_defaults(handler=cmd_info)

    asm = sub.add_parser("asm", parents=parents, help="assemble a file to 32-bit instruction words")
    asm.add_argument("file")
    arch_option(asm, f"the one chip whose encoding to write (default: {ENCODING}); its output "
                     f"is one chip's instruction words")
    asm.set_defaults(handler=cmd_asm)

    disasm = sub.add_parser("disasm", parents=parents, help="disassemble 32-bit instruction words")
    disasm.add_argument("words", nargs="+", metavar="WORD")
    arch_option(disasm, f"the one chip whose encoding to read (default: {ENCODING}); its "
                        f"output is one chip's instructions")
    disasm.set_defaults(handler=cmd_disasm)

    explain = sub.add_parser("explain", parents=parents,
                             help="bit fields of values (sign|exponent|mantissa) and of "
                                  "instruction words")
    explain.add_argument("items", nargs="+", metavar="ITEM",
                         help="0x1234 (BF16/FP16), 0x3f800000 (FP32 and instruction word), or "
                              "a number such as 1.5 (put -- before negative ones)")
    arch_option(explain, "the chips whose encodings decode instruction words (default: "
                         "every chip)")
    explain.set_defaults(handler=cmd_explain)

    run = sub.add_parser("run", parents=parents, help="run an assembly file and show registers lane by lane")
    run.add_argument("file")
    arch_option(run, "the chips to run on, a fresh machine each (default: every chip)")
    run.add_argument("--lreg", action="append", metavar="REG=VALUE[,VALUE...]",
                     help="preset an LReg in every lane (or lanes 0, 1, ... from a list); "
                          "values are floats (1.5, -inf, nan), integers, or 0x bit patterns")
    run.add_argument("--lanes", type=int, default=32, help="lanes (a multiple of 32)")
    values_option(run, "--lane", "lanes to show (default 0), e.g. --lane 0,1,2", "LANE",
                  item=lane_number)
    run.add_argument("--trace", action="store_true", help="show what every instruction changed")
    run.add_argument("--dst", action="append", metavar="ADDRESS=VALUE[,VALUE...]",
                     help="preset the Dst cells an SFPLOAD at ADDRESS reads, in every lane (or "
                          "lanes 0, 1, ... from a list)")
    run.add_argument("--dest", choices=("fp32", "bf16"), default="fp32",
                     help="Dst format: fp32 (32-bit cells, SFPLOAD mode 0 = FP32) or bf16 "
                          "(default fp32); was --dst-format")
    old_spelling(run, "--dst-format", "--dest", "run", dest="dest", choices=("fp32", "bf16"))
    run.add_argument("--strict", action="store_true", help="hazards are errors, not warnings")
    run.add_argument("--bits", action="store_true",
                     help="with --trace: the sign|exponent|mantissa bits of every new value")
    run.add_argument("--verbose", action="store_true",
                     help="every warning, not one line per kind")
    run.set_defaults(handler=on_each_chip(cmd_run))
