"""Commands on the machine itself: ``info``, ``asm``, ``disasm``, ``run``."""
from __future__ import annotations

import platform

from rich.console import Console
from rich.table import Table

import sfpu_sim
from sfpu_sim.cli.common import CHIPS
from sfpu_sim.errors import SfpuSimError


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


def add_parser(sub, parents) -> None:
    """Register this module's subcommands (``parents``: the options every command takes)."""
    info = sub.add_parser("info", parents=parents, help="supported chips and component versions")
    info.set_defaults(handler=cmd_info)

    asm = sub.add_parser("asm", parents=parents, help="assemble a file to 32-bit instruction words")
    asm.add_argument("file")
    asm.add_argument("--arch", choices=sorted(CHIPS), default="blackhole")
    asm.set_defaults(handler=cmd_asm)

    disasm = sub.add_parser("disasm", parents=parents, help="disassemble 32-bit instruction words")
    disasm.add_argument("words", nargs="+", metavar="WORD")
    disasm.add_argument("--arch", choices=sorted(CHIPS), default="blackhole")
    disasm.set_defaults(handler=cmd_disasm)

    run = sub.add_parser("run", parents=parents, help="run an assembly file and show registers lane by lane")
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
