"""A registered kernel back to tt-llk: a C++ function of ``TTI_SFP*`` macro calls (``tti``) or
of sfpi code (``sfpi``, :mod:`sfpu_sim.tt_llk_export_sfpi`).

Owns: :func:`export`, the C++ text around an exported kernel (header, init function, kernel
function and its loop) and the TTI spelling of one instruction; what a style cannot express is
refused in one line (:class:`~sfpu_sim.tt_llk_export_forms.ExportRefused`, exit 2). Knows
nothing of what the instructions compute; the words come from the kernel's
:class:`~sfpu_sim.isa.spec.Program`.

The ``tti`` style writes every instruction as the ``TTI_SFP*`` call of tt-llk's
``tt_llk_{wormhole_b0,blackhole}/common/inc/ckernel_ops.h`` (tenstorrent/tt-llk @36b092e8e,
2026-04-11) in its argument order, one call per line: registers as ``p_sfpu::LREGn`` and the
constant-register names of ``ckernel_instr_params.h`` (``LCONST_0_8373``, ``LCONST_0``,
``LCONST_1``, ``LCONST_neg1``, ``LTILEID``), AddrMods as ``ADDR_MOD_n``
(``ckernel_addrmod.h``), the SFPLOAD/SFPSTORE/SFPLOADMACRO format as
``InstrModLoadStore::NAME`` (``llk_lib/llk_defs.h``) where it has one, SFPLOADI's mode as
``sfpi::SFPLOADI_MOD0_*`` (tenstorrent/sfpi ``sfpi_constants.h``), other modifiers and
immediates as numbers, a negative immediate as its field bits (``(-16) & 0xFFF``, as
``ckernel_sfpu_recip.h`` writes it: ``TT_OP`` adds the shifted fields, so a bare negative
number would reach the opcode byte). A program of one row group is the body of the loop
tt-llk kernels run (``for (int d = 0; d < ITERATIONS; d++) { ...; sfpi::dst_reg++; }``, as in
``ckernel_sfpu_add_int.h``), its init a separate ``*_init()`` function; a program that already
walks several row groups (the SFPLOADMACRO kernels) is written straight-line, as one call.

Every line holding a ``TTI_`` call holds exactly one and nothing else but a ``//`` comment: the
``TTI_`` lines of the init function and of the kernel function, read by :mod:`sfpu_sim.asm`
(as ``register_kernel(asm=..., init=...)`` reads them), give back the program's words.
"""
from __future__ import annotations

import textwrap
from pathlib import PurePath

from sfpu_sim.arch import get_arch
from sfpu_sim.isa.spec import LREG, Instruction, Program
from sfpu_sim.tt_llk_export_forms import ExportRefused, refuse
from sfpu_sim.tt_llk_export_sfpi import sfpi_parts

STYLES = ("tti", "sfpi")
# ckernel_instr_params.h ``struct p_sfpu`` (tt-llk @36b092e8e), by register number.
P_SFPU = {8: "LCONST_0_8373", 9: "LCONST_0", 10: "LCONST_1", 11: "LCONST_neg1", 15: "LTILEID"}
# llk_defs.h ``enum InstrModLoadStore`` (tt-llk @36b092e8e, both chips), by value.
INSTR_MOD_LOAD_STORE = {0: "DEFAULT", 1: "FP16A", 2: "FP16B", 3: "FP32", 4: "INT32", 5: "INT8",
                        6: "LO16", 7: "HI16", 12: "INT32_2S_COMP", 13: "INT8_2S_COMP",
                        14: "LO16_ONLY", 15: "HI16_ONLY"}
LOAD_STORE = ("SFPLOAD", "SFPSTORE", "SFPLOADMACRO")
# sfpi_constants.h (tenstorrent/sfpi): SFPLOADI's mod0 names.
SFPLOADI_MODES = {0: "FLOATB", 1: "FLOATA", 2: "USHORT", 4: "SHORT", 8: "UPPER", 10: "LOWER"}
# Fields holding a register number that the macro names lreg_*: written as p_sfpu names.
# SFPCONFIG's VD selects a configuration target (0-15), not an LReg: a number.
NOT_A_REGISTER = {("SFPCONFIG", "vd")}
HEX_IMMEDIATES = {"imm16"}
INDENT = "    "


def export(spec, arch, style: str) -> str:
    """The C++ text of kernel ``spec`` on ``arch`` (an Arch or its name) in ``style``."""
    arch = get_arch(arch) if isinstance(arch, str) else arch
    if style not in STYLES:
        raise ExportRefused(f"style {style!r}: choose from {', '.join(STYLES)}")
    program = spec.program(arch)
    if style == "tti":
        return tti_source(spec, program)
    init_lines, body_lines, before_loop, after_loop = sfpi_parts(program)
    return functions(spec, program, init_lines, body_lines, "sfpi", before_loop, after_loop)


# --------------------------------------------------------------------------------------------
# What both styles write around the code
# --------------------------------------------------------------------------------------------

def function_stem(spec) -> str:
    """The kernel's name as a C++ identifier (an assembly file ``prog.s`` gives ``prog_s``)."""
    stem = "".join(c if c.isalnum() or c == "_" else "_" for c in spec.name)
    return stem if stem and not stem[0].isdigit() else f"k_{stem}"


def header(spec, program: Program, style: str) -> list[str]:
    """The comment block naming what was exported: kernel, instantiation, chip, provenance."""
    what = f"sfpu-sim kernel {spec.name}" + (f" = {spec.instantiation}" if spec.instantiation
                                             else "")
    unit = "iteration" if program.row_groups == 1 else f"call of {program.row_groups} row groups"
    lines = [(f"{what} on {program.arch.title}, in the {style} style: "
             f"{len(program) - program.init_length} instructions per {unit}, "
             f"{program.init_length} in the init.")]
    if spec.provenance:
        lines.append(f"Provenance: {spec.provenance}")
    return [f"// {part}" for line in lines for part in textwrap.wrap(line, 96)]


def source_comment(instruction: Instruction) -> str:
    """`` // file:line`` of the kernel source an instruction came from (the file's name only,
    so the text is the same wherever the kernel file lives), or nothing."""
    if not instruction.source:
        return ""
    file, _, line = instruction.source.rpartition(":")
    return f" // {PurePath(file).name}:{line}" if line.isdigit() else ""


def functions(spec, program: Program, init_lines: list[str], body_lines: list[str],
              style: str, before_loop: list[str] = (), after_loop: list[str] = ()) -> str:
    """The exported text: the header, ``<stem>_init()`` when the program has an init, and
    ``calculate_<stem>()`` (a loop over ITERATIONS row groups, or one straight-line call)."""
    stem = function_stem(spec)
    out = header(spec, program, style) + [""]
    if program.init_length:
        out += [f"inline void {stem}_init()", "{"]
        out += [INDENT + line for line in init_lines]
        out += ["}", ""]
    if program.row_groups == 1:
        out += ["template <int ITERATIONS = 8>", f"inline void calculate_{stem}()", "{"]
        out += [INDENT + line for line in before_loop]
        out += ["#pragma GCC unroll 8", INDENT + "for (int d = 0; d < ITERATIONS; d++)",
                INDENT + "{"]
        out += [2 * INDENT + line if line else "" for line in body_lines]
        out += [2 * INDENT + "sfpi::dst_reg++;", INDENT + "}"]
        out += [INDENT + line for line in after_loop]
        out += ["}"]
    else:
        note = (f"One call of {program.row_groups} row groups as sfpu-sim runs it: the Dst walk "
                f"is written into the address fields (its AddrMods are taken to move nothing).")
        out += [f"// {part}" for part in textwrap.wrap(note, 96)]
        out += [f"inline void calculate_{stem}()", "{"]
        out += [INDENT + line if line else "" for line in body_lines]
        out += ["}"]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# The tti style
# --------------------------------------------------------------------------------------------

def tti_source(spec, program: Program) -> str:
    lines = [tti_call(ins, k) + source_comment(ins) for k, ins in enumerate(program)]
    return functions(spec, program, lines[:program.init_length], lines[program.init_length:],
                     "tti")


def tti_call(instruction: Instruction, index: int = 0) -> str:
    """``TTI_SFPxxx(...);``: one instruction as tt-llk writes it (module docstring)."""
    op = instruction.op
    operands = list(op.operands)
    if op.mnemonic == "SFPLUTFP32" and len(operands) == 3:
        # Blackhole's mod1 mirror (bits 16-19) has no argument of TTI_SFPLUTFP32(lreg_dest,
        # instr_mod1); as the macro adds ``lreg_dest << 4``, it would be lreg_dest bits 12-15.
        if instruction.values["mod1_mirror"]:
            raise refuse(index, instruction, "Blackhole's mod1 mirror bits 16-19 are set, and "
                         "TTI_SFPLUTFP32(lreg_dest, instr_mod1) has no argument for them")
        operands = operands[:2]
    if not operands:
        return f"TTI_{op.mnemonic};"
    texts = [_operand_text(instruction, operand) for operand in operands]
    return f"TTI_{op.mnemonic}({', '.join(texts)});"


def _operand_text(instruction: Instruction, operand) -> str:
    mnemonic, value = instruction.mnemonic, instruction.values[operand.name]
    if operand.kind == LREG and (mnemonic, operand.name) not in NOT_A_REGISTER:
        return f"p_sfpu::{P_SFPU.get(value, f'LREG{value}')}"
    if operand.name == "addr_mod":
        return f"ADDR_MOD_{value}"
    if operand.name == "mod0" and mnemonic in LOAD_STORE and value in INSTR_MOD_LOAD_STORE:
        return f"InstrModLoadStore::{INSTR_MOD_LOAD_STORE[value]}"
    if operand.name == "mod0" and mnemonic == "SFPLOADI" and value in SFPLOADI_MODES:
        return f"sfpi::SFPLOADI_MOD0_{SFPLOADI_MODES[value]}"
    if value < 0:
        return f"({value}) & {(1 << operand.width) - 1:#x}"
    if operand.name in HEX_IMMEDIATES:
        return f"{value:#06x}"
    return str(value)
