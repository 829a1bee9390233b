"""The ``sfpu-sim`` command. Knows the public API of the package, nothing deeper.

Each command group is a module here with ``add_parser(sub, parents)``; ``COMMAND_MODULES``
lists them in the order ``--help`` shows them. Every subcommand takes ``--kernels PATH``
(repeatable): kernel files loaded before it runs, as ``$SFPU_SIM_KERNELS`` is.

One option scheme (:mod:`sfpu_sim.cli.options`) in every command:

- ``--arch CHIP`` names chips: ``wormhole``, ``blackhole`` or ``all`` (both), repeated or
  comma-separated (``--arch wormhole --arch blackhole``). A command that can run on several
  chips runs on each chip named, and without ``--arch`` on every chip (a kernel's: every chip
  it runs on): run, explain, kernel show, trace, eval, sweep, report, compare, budget, diff,
  locate, fit. An output that holds one chip's result (``--json``, ``--csv``,
  ``--harness-csv``) needs one chip, refused with several. Running on both makes no sense
  where the output is one chip's encoding: ``export`` requires one ``--arch``; ``asm`` and
  ``disasm`` take one, blackhole unless named. ``study gelu`` runs its host forms unless
  ``--arch`` names chips for its kernels. Each says so in its ``--help``.
- Inputs are ``--x VALUE``, and lists are comma-separated or repeated (``--x 1.5,-2 --x 3``,
  ``--lane 0,1,2``); ``eval`` also takes its inputs as arguments.
- ``--range LO,HI`` takes numbers or constant expressions at either end
  (``--range=-pi/4,pi/4``), in every command, with the grammar of ``fit --interval``.
- ``--dest`` chooses the Dst format, ``--files md,png,json`` a report's files,
  ``--coeff-format`` fit's coefficient formats.
- An old spelling (``report --format``, ``compare --format``, ``fit --format``, ``fit --arch
  both``, ``run --dst-format``, ``study gelu --diagnose X``) works for one release, as its new
  one does, and prints one line on stderr naming the new spelling.
- Tables fit a terminal; piped or written to a file, each row prints whole on one line.

Every error a user can cause is an :class:`~sfpu_sim.errors.SfpuSimError`: it is printed as one
line and the command exits with its ``exit_code`` (2), without a traceback; Ctrl-C exits 130.
Every command writes through :mod:`sfpu_sim.cli.output` (JSON alone on stdout under ``--json``,
text shown as written, a reader that goes away ends the command with status 0, stdout that
cannot be written is an error).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

import sfpu_sim
from sfpu_sim import heap, threads
from sfpu_sim.cli import output
from sfpu_sim.cli.output import INTERRUPTED, ReaderGone
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.version import __version__

COMMAND_MODULES = ("running", "sweeping", "budgeting", "show", "diffing", "locating", "fit",
                   "studying", "cross_platform", "gating", "exporting", "warming")


def _common_options() -> argparse.ArgumentParser:
    """Options every subcommand accepts after its name."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--kernels", action="append", default=[], metavar="PATH",
                        dest="kernel_files",
                        help="load kernel files (a .py file or a directory of them; "
                             "repeatable); also read from $SFPU_SIM_KERNELS")
    common.add_argument("--threads", type=int, metavar="N",
                        help="threads for the emulator's parallel work (default: every CPU "
                             "this process may use, at most $NUMBA_NUM_THREADS)")
    common.add_argument("--engine", choices=("auto", "compiled", "machine", "cuda"),
                        help="where kernels run: auto (default, or $SFPU_SIM_ENGINE: the "
                             "Machine for short runs, compiled code for long ones, on a GPU "
                             "when one is present), compiled (CPU), machine (per "
                             "instruction), cuda (an NVIDIA GPU); all give the same bits")
    return common


class CommandParser(argparse.ArgumentParser):
    """A command's parser; ``intermixed``: its positionals may come after options too, all of
    them (``eval KERNEL --arch wormhole 1.5 --x 2``), which argparse's positional with
    ``nargs="*"`` alone would not take past the first option."""

    intermixed = False
    _parsing = False

    def _get_values(self, action, arg_strings):
        # ``--arch=--``: Python 3.11's argparse strips the "--" and hands the option a list (no
        # value at all); a one-value option gets the "--" itself, for its own check to refuse.
        if action.nargs is None and arg_strings == ["--"] and action.option_strings:
            return self._get_value(action, "--")
        return super()._get_values(action, arg_strings)

    def parse_known_args(self, args=None, namespace=None):
        if not self.intermixed or self._parsing:
            return super().parse_known_args(args, namespace)
        self._parsing = True                 # the intermixed parse calls this method twice
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._parsing = False


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="sfpu-sim", description=sfpu_sim.__doc__.splitlines()[0])
    parser.add_argument("--version", action="version",
                        version=f"sfpu-sim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    parents = [_common_options()]
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub, parents)
    return parser


def default_output_format(args) -> None:
    """``--out-format`` where not given (sweep_options'): Float16 in and out together (the only
    Float16 cell a 16-bit Dst has), else BF16."""
    if getattr(args, "output_format", "") is None:
        args.output_format = "fp16" if args.input_format == "fp16" else "bf16"


def main(argv: list[str] | None = None) -> int:
    warnings.showwarning = output.show_warning
    try:
        with output.command_streams():
            # The commands' modules, and engines and registry here, load numba, which fails
            # with its own traceback on a bad $NUMBA_NUM_THREADS: they are imported after the
            # check (the command modules by build_parser).
            threads.check_environment()
            heap.keep_freed_memory()                # a command's sweeps reuse freed pages
            args = build_parser().parse_args(argv)
            default_output_format(args)
            if args.threads is not None:
                threads.set_threads(args.threads)
            if args.engine is not None:
                from sfpu_sim import engines        # after the check (above)

                engines.set_engine(args.engine)
            if args.kernel_files:
                from sfpu_sim import registry       # after the check (above)

                registry.load_kernel_files(args.kernel_files)
            return args.handler(args, output.console(json=getattr(args, "json", False)))
    except SfpuSimError as error:
        output.error(str(error))                    # one line, however long
        return error.exit_code
    except ReaderGone:
        return 0
    except KeyboardInterrupt:
        output.announce_interrupt()
        return INTERRUPTED
    except Exception:
        if not output.interrupt_seen():
            raise
        output.announce_interrupt()                 # the interrupt's aftermath, not a fault
        return INTERRUPTED


def console_main() -> None:
    """The ``sfpu-sim`` program. After Ctrl-C it leaves at once with status 130: interpreter
    shutdown would run extension modules' finalizers with a parallel region or an import cut
    short (seen to end the process by SIGINT instead, status -2). Every file a run writes is
    written atomically, so nothing half-written is left by not finalizing."""
    output.end_promptly_on_ctrl_c()
    code = main()
    output.discard_stdout()             # a reader gone or a full disk: reported, not again
    if code == INTERRUPTED:
        output.end_child_processes()
        sys.stderr.flush()
        os._exit(INTERRUPTED)
    sys.exit(code)


if __name__ == "__main__":
    console_main()
