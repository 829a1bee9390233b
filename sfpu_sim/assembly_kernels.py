"""Kernels written in assembly: what ``register_kernel(name, asm=..., init=...)`` builds, and an
assembly file named where a command takes a kernel (``sfpu-sim trace prog.s``).

Owns: reading assembly given as a path or as the text itself, splitting init from body, and a
file's ``function: NAME`` comment line. Knows nothing of sweeps; :mod:`sfpu_sim.registry` calls
it, and :mod:`sfpu_sim.asm` reads the text (tt-llk's TTI_ spellings included).
"""
from __future__ import annotations

import re
from pathlib import Path

from sfpu_sim import reference
from sfpu_sim.asm import assemble
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.isa.spec import Program
from sfpu_sim.kernel_registration import CHIPS, RegistrationError, per_chip
from sfpu_sim.paths import display_path

ASSEMBLY_SUFFIXES = (".s", ".S", ".asm", ".h")
# ``# function: tanh`` or ``// function: tanh``: what a kernel file computes.
FUNCTION_LINE = re.compile(r"^\s*(?:#|//)\s*function:\s*([A-Za-z_]\w*)\s*$", re.MULTILINE)
LOADS = ("SFPLOAD", "SFPLOADMACRO")


class AssemblyKernelError(SfpuSimError):
    pass


def _looks_like_path(value: str) -> bool:
    return "\n" not in value and (value.strip().endswith(ASSEMBLY_SUFFIXES)
                                  or "/" in value and "(" not in value)


def read_source(value, origin: str, what: str) -> tuple[str, str]:
    """(text, filename for errors) of an ``asm=`` or ``init=`` value: a Path, or a one-line
    string ending in .s/.S/.asm/.h (relative: to the file that registers the kernel), is a file
    to read; any other string is the assembly itself."""
    if not isinstance(value, (str, Path)):
        raise AssemblyKernelError(f"{origin}: {what} must be assembly text or a path, got "
                                  f"{type(value).__name__}")
    if isinstance(value, str) and not _looks_like_path(value):
        return value, f"{origin} {what}"
    path = Path(value)
    if not path.is_absolute():
        path = Path(origin.rpartition(":")[0]).parent / path
    try:
        return path.read_bytes().decode("utf-8-sig"), display_path(path.resolve())
    except FileNotFoundError:
        raise AssemblyKernelError(f"{origin}: {what} {str(value)!r}: no such file "
                                  f"({display_path(path)})") from None
    except (OSError, UnicodeDecodeError) as error:
        raise AssemblyKernelError(f"{origin}: {what} {str(value)!r}: cannot read as UTF-8 "
                                  f"text ({error})") from None


def registered_builder(name: str, body, asm, init, chips, origin: str):
    """``register_kernel(name, asm=..., init=...)``: ``asm`` and ``init`` each assembly text, a
    path, or a dict chip -> one of those (``init`` may be None)."""
    if body is not None:
        raise RegistrationError(f"{origin}: kernel {name!r}: give a DSL body or asm=, not both")
    try:
        return builder(name, per_chip("asm", asm, chips, origin),
                       per_chip("init", init, chips, origin), origin)
    except AssemblyKernelError as error:
        raise RegistrationError(str(error)) from None


def builder(name: str, body: dict, init: dict, origin: str):
    """``build(arch) -> Program`` for per-chip ``asm=`` and ``init=`` values (chip -> value or
    None). The init is the ``init=`` text; without one, every instruction before the first
    SFPLOAD (or SFPLOADMACRO), as in the built-in assembly kernels."""
    body = {chip: read_source(value, origin, "asm=") for chip, value in body.items()}
    init = {chip: None if value is None else read_source(value, origin, "init=")
            for chip, value in init.items()}

    def build(arch):
        text, filename = body[arch.name]
        program = assemble(text, arch, filename)
        if init[arch.name] is None:
            length = next((k for k, ins in enumerate(program) if ins.mnemonic in LOADS), 0)
            return Program(arch, program.instructions, name=name, init_length=length)
        setup = assemble(init[arch.name][0], arch, init[arch.name][1])
        return Program(arch, setup.instructions + program.instructions, name=name,
                       init_length=len(setup))
    return build


def file_kernel_fields(given: str) -> dict:
    """The :class:`~sfpu_sim.registry.KernelSpec` fields of an assembly file on the command line
    (built for both chips; its function from a ``function: NAME`` comment line, else the file's
    stem if it names one, else none: tracing and running need none, a sweep says how to name
    one), and ``key``, the resolved path it is known by."""
    path = Path(given)
    if not path.is_file():
        raise AssemblyKernelError(f"{given}: no such assembly file (a kernel name, or a .s file "
                                  f"to run as a kernel)")
    shown = display_path(path.resolve())
    text, _ = read_source(path.resolve(), f"{shown}:1", "kernel file")
    named = FUNCTION_LINE.search(text)
    function = named.group(1) if named else path.stem if path.stem in reference.functions() \
        else ""
    if function and function not in reference.functions():
        line = text.count("\n", 0, named.start(1)) + 1
        raise AssemblyKernelError(f"{shown}:{line}: function {function!r} is not a known "
                                  f"function (sfpu-sim kernels lists them)")
    build = builder(path.name, {chip: path.resolve() for chip in CHIPS},
                    {chip: None for chip in CHIPS}, f"{shown}:1")
    return dict(key=str(path.resolve()), name=path.name, function=function, chips=CHIPS,
                mode="accurate", dest="bf16", provenance=f"assembly file {shown}", build=build,
                description="" if function else f"no function named: add a line "
                f"'# function: NAME' to {shown} to measure it", origin=f"{shown}:1")
