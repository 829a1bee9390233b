"""Commands that show kernels: ``kernels``, ``kernel show``, ``trace``."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from sfpu_sim import cost, registry
from sfpu_sim.asm import format_instruction
from sfpu_sim.cli.common import CHIPS, kernel_spec, on_each_chip, sweep_options
from sfpu_sim.cli.options import arch_option, values_option
from sfpu_sim.cli.running import kernel_inputs
from sfpu_sim.cli.sweeping import cmd_eval
from sfpu_sim.machine_tables import render_trace
from sfpu_sim.sweeps import DevicePath, run_device


def cmd_kernels(args, console: Console) -> int:
    """The kernel registry as a table."""
    chained, binary = len(registry.chained_specs()), registry.binary_specs()
    ternary = registry.ternary_specs()
    table = Table(title=f"{len(registry.names())} registered kernels, {len(binary)} binary "
                        f"(two-operand) kernels, {len(ternary)} ternary and {chained} chained "
                        f"op{'' if chained == 1 else 's'}")
    for column in ("kernel", "function", "chips", "mode", "Dst", "instantiation",
                   "provenance"):
        table.add_column(column, overflow="fold")
    for spec in registry.specs():
        table.add_row(spec.name, spec.function, ", ".join(spec.chips), spec.mode, spec.dest,
                      _instantiation_cell(spec), spec.provenance)
    for spec in binary:                             # x at Dst tile 0, y at tile 1: --y
        held = "" if spec.fixed_y is None else f"; y = {spec.fixed_y:g}, held"
        table.add_row(spec.name, f"{spec.function} (two operands{held})", ", ".join(spec.chips),
                      spec.mode, spec.dest, _instantiation_cell(spec), spec.provenance)
    for spec in ternary:                            # a, b, c at Dst tiles 0, 1, 2: rows only
        table.add_row(spec.name, f"{spec.function} (three operands)", ", ".join(spec.chips),
                      spec.mode, spec.dest, _instantiation_cell(spec), spec.provenance)
    for spec in registry.chained_specs():           # ttnn ops run as several programs
        table.add_row(spec.name, spec.function, ", ".join(spec.chips), spec.mode, spec.dest,
                      f"chained op: {' -> '.join(spec.ops)}", spec.provenance)
    console.print(table)
    return 0


def _instantiation_cell(spec) -> str:
    """The template instantiation, and the family's other Dst mode where it is registered."""
    if not spec.template:
        return "-"
    if registry.DEST_PARAM not in spec.params:
        return f"{spec.instantiation} (one program for both Dst modes)"
    other = registry.for_dest(spec, "bf16" if spec.dest == "fp32" else "fp32")
    twin = other.spec.name if other.modelled else "not modelled"
    return f"{spec.instantiation}; other Dst: {twin}"


def cmd_kernel_show(args, console: Console) -> int:
    """A kernel's instructions with the source line of each, and its static cost."""
    spec = kernel_spec(args.kernel, binary=True, listing=True)   # any number of operands
    program = spec.program(args.arch)
    groups = program.row_groups
    body = ("per iteration of 32 datums" if groups == 1 else
            f"per call of {groups} iterations, {32 * groups} datums")
    listing = Table(title=f"{spec.name} on {CHIPS[args.arch]}: {len(program)} instructions "
                          f"({program.init_length} init, {len(program) - program.init_length} "
                          f"{body})")
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
    table.add_column("per iteration" if groups == 1 else f"per call ({groups} iterations)",
                     justify="right")
    table.add_column("per datum", justify="right")
    for name, count in estimate["instructions_by_class"].items():
        table.add_row(name, str(count), f"{count / (cost.LANES * groups):.4f}")
    table.add_section()
    table.add_row("stall cycles (SFPSWAP / shuffles)", str(estimate["body_stall_cycles"]),
                  f"{estimate['body_stall_cycles'] / (cost.LANES * groups):.4f}")
    table.add_row("issue slots", f"{estimate['issue_slots_per_iteration'] * groups:g}",
                  f"{estimate['issue_slots_per_datum']:.4f}")
    table.caption = (f"per 32x32 tile: {estimate['issue_slots_per_tile']:,g} issue slots "
                     f"(32 iterations); init once per launch: "
                     f"{estimate['init_instructions']} instructions")
    console.print(table)
    return 0


def cmd_trace(args, console: Console) -> int:
    """What every instruction of a kernel changes in the lanes of the given inputs."""
    chosen = registry.for_dest(kernel_spec(args.kernel), args.dest)   # the program eval runs
    inputs = kernel_inputs(args.x, args.input_format, chosen.dest)
    path = DevicePath(args.input_format, args.output_format, chosen.dest)
    run = run_device(chosen.spec.program(args.arch), inputs, path,
                     trace_lanes=range(len(inputs)), fp32_inputs=args.input_format == "fp32")
    console.print(render_trace(run.trace, args.bits))
    width = 10 if args.input_format == "fp32" else 6       # the patterns: no second note
    args.values = [f"{int(bits):#0{width}x}" for bits in inputs]
    return cmd_eval(args, console)


def add_parser(sub, parents) -> None:
    """Register this module's subcommands (``parents``: the options every command takes)."""
    listing = sub.add_parser("kernels", parents=parents, help="list the registered kernels")
    listing.set_defaults(handler=cmd_kernels)

    kernel = sub.add_parser("kernel", parents=parents, help="inspect one kernel")
    kernel_sub = kernel.add_subparsers(dest="kernel_command", metavar="SUBCOMMAND")
    kernel_sub.required = True
    show = kernel_sub.add_parser("show", parents=parents, help="instruction listing with source lines and a "
                                              "static cost estimate")
    show.add_argument("kernel", metavar="NAME")
    arch_option(show, "the chips whose program to list (default: every chip the kernel runs "
                      "on)")
    show.set_defaults(handler=on_each_chip(cmd_kernel_show, listing=True))

    trace = sub.add_parser("trace", parents=parents, help="instruction by instruction, what the lanes of the "
                                         "given inputs hold (hex, FP32, BF16)")
    trace.add_argument("kernel", metavar="NAME")
    values_option(trace, "--x", "inputs, one lane each: numbers (rounded to the --in format, "
                                "nearest even; a note says when one is not exact) or 0x bits "
                                "of it (FP32: 8 hex digits); negative: --x=-3", required=True)
    sweep_options(trace)
    trace.add_argument("--bits", action="store_true",
                       help="the sign|exponent|mantissa bits of every new value")
    trace.set_defaults(handler=on_each_chip(cmd_trace), json=False)
