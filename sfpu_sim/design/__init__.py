"""Kernel design: minimax fits, coefficient quantisation, certified error bounds, and kernel
files that run them (``sfpu-sim fit``; ../shared/DESIGN.md, layer ``design``).

Knows nothing of the machine: :mod:`sfpu_sim.design.emit` writes a kernel file, and the CLI runs
it through the public sweep API.
"""
from sfpu_sim.design.api import FitResult, fit

__all__ = ["fit", "FitResult"]
