"""``sfpu-sim export``: a registered kernel as a tt-llk C++ function (TTI_ calls or sfpi code)."""
from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from sfpu_sim.cli.common import CHIPS, kernel_spec
from sfpu_sim.cli.options import arch_option, one_chip
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.report.files import atomic_write, writable_target
from sfpu_sim.tt_llk_export import export


def cmd_export(args, console: Console) -> int:
    """Write the kernel's C++ to ``--out`` (atomically; an existing file only with ``--force``)
    or to stdout. The text is made before anything is written: a refusal writes nothing."""
    chip = one_chip(args, "the exported C++")
    target = _target(args.out, args.force)
    text = export(kernel_spec(args.kernel, binary=True), chip, args.style)
    if target is None:
        sys.stdout.write(text)
        return 0

    atomic_write(target, text)
    console.print(f"wrote {target} ({args.style} style, {CHIPS[chip]})", highlight=False,
                  markup=False, soft_wrap=True)
    return 0


def _target(out: str | None, force: bool) -> Path | None:
    """The file to write, checked before any work: its directory must exist, and a file that
    exists is replaced only with ``--force`` (never a directory, device or FIFO)."""
    if out is None:
        return None

    target = Path(out)
    writable_target(target)             # first: it turns every OS failure into one line
    if not target.parent.is_dir():
        raise SfpuSimError(f"--out {out}: directory {target.parent} does not exist")
    if (target.exists() or target.is_symlink()) and not force:
        raise SfpuSimError(f"--out {out}: the file exists; pass --force to replace it")
    return target


def add_parser(sub, parents) -> None:
    """Register ``export`` (``parents``: the options every command takes)."""
    export = sub.add_parser(
        "export", parents=parents,
        help="a kernel as a tt-llk C++ function: TTI_SFP* calls (tti) or sfpi code (sfpi)",
        description="Write a registered kernel (a name, an assembly .s file, or a kernel of a "
                    "--kernels file) as a tt-llk C++ function. tti: TTI_SFP* macro calls "
                    "that assemble back to the same instruction words. sfpi: sfpi C++ "
                    "(vFloat, v_if, dst_reg), refused in one line where the program has no "
                    "faithful sfpi spelling.")
    export.add_argument("kernel", metavar="KERNEL")
    arch_option(export, "the one chip the C++ is for (required: a kernel's C++ is one "
                        "chip's)", required=True)
    export.add_argument("--style", choices=("tti", "sfpi"), required=True,
                        help="tti: TTI_SFP* calls; sfpi: sfpi C++")
    export.add_argument("--out", metavar="FILE",
                        help="write the C++ here (atomically) instead of to stdout")
    export.add_argument("--force", action="store_true",
                        help="replace an existing --out file")
    export.set_defaults(handler=cmd_export, json=False)
