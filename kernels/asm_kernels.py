"""Kernels written by hand in assembly, one ``.s`` file per chip under ``kernels/asm/``.

The first kernel of the project lives here: ``tanh`` as ttnn runs it by default on a BF16
tensor (tenstorrent/tt-metal ``ckernel_sfpu_tanh.h``, PR #31685, Nov 2025). Its DSL
counterpart reproduces it bit for bit; both stay, and a test keeps them identical.
"""
from __future__ import annotations

from importlib import resources

from sfpu_sim.asm import assemble
from sfpu_sim.isa.spec import Program


def assembly_kernel(stem: str):
    """A kernel builder reading ``kernels/asm/<stem>_<arch>.s``."""
    def build(arch) -> Program:
        name = f"{stem}_{arch.name}.s"
        text = resources.files("kernels").joinpath("asm", name).read_text()
        program = assemble(text, arch, filename=f"kernels/asm/{name}")
        # The init is everything before the first SFPLOAD (constants, tables).
        program.init_length = next((k for k, ins in enumerate(program)
                                    if ins.mnemonic == "SFPLOAD"), 0)
        return program
    return build
