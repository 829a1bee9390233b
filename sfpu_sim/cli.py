"""The ``sfpu-sim`` command. Knows the public API of the package, nothing deeper.

Every error a user can cause is an :class:`~sfpu_sim.errors.SfpuSimError`: it is printed as one
line and the command exits non-zero, without a traceback.
"""
from __future__ import annotations

import argparse
import platform
import sys

from rich.console import Console
from rich.table import Table

import sfpu_sim
from sfpu_sim.errors import SfpuSimError

CHIPS = {
    "wormhole": "Wormhole B0",
    "blackhole": "Blackhole A0",
}


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sfpu-sim", description=sfpu_sim.__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"sfpu-sim {sfpu_sim.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    info = sub.add_parser("info", help="supported chips and component versions")
    info.set_defaults(handler=cmd_info)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    console = Console()
    try:
        return args.handler(args, console)
    except SfpuSimError as error:
        Console(stderr=True).print(f"sfpu-sim: error: {error}", markup=False, highlight=False)
        return error.exit_code
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
