"""sfpu-sim: a bit-accurate emulator of the Tenstorrent SFPU (Wormhole B0 and Blackhole A0).

Layers (see ../shared/DESIGN.md): ``formats`` (bit patterns), ``fma`` (the multiply-add of each
chip), then the machine, assembly, DSL, references, sweeps and reports built on them.
"""
__version__ = "0.1.0"
