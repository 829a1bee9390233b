"""Kernels written by hand in assembly, one ``.s`` file per chip under ``kernels/asm/``.

The first kernel of the project lives here: ``tanh`` as ttnn runs it by default on a BF16
tensor (tenstorrent/tt-metal ``ckernel_sfpu_tanh.h``, PR #31685, Nov 2025). Its DSL
counterpart reproduces it bit for bit; both stay, and a test keeps them identical.
"""
from __future__ import annotations

from importlib import resources

from sfpu_sim.asm import assemble
from sfpu_sim.isa.spec import Program


def assembly_kernel(stem: str, row_groups: int = 1):
    """A kernel builder reading ``kernels/asm/<stem>_<arch>.s``, whose body processes
    ``row_groups`` 32-datum row groups."""
    def build(arch) -> Program:
        name = f"{stem}_{arch.name}.s"
        text = resources.files("kernels").joinpath("asm", name).read_text()
        program = assemble(text, arch, filename=f"kernels/asm/{name}")
        # The init is everything before the first load (constants, tables, macro setup).
        program.init_length = next((k for k, ins in enumerate(program)
                                    if ins.mnemonic in ("SFPLOAD", "SFPLOADMACRO")), 0)
        program.row_groups = row_groups
        return program
    return build
