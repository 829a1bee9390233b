"""What compiled programs call besides the instructions' own definitions.

Owns: :func:`lanes_meet`. What an instruction computes in a lane is its lanewise definition in
:mod:`sfpu_sim.isa`, written into the program (:mod:`sfpu_sim.compiled.specialize`); the
multiply-add is :mod:`sfpu_sim.fma`'s ``lane_*``. Knows nothing of registers or programs.
"""
from __future__ import annotations

from sfpu_sim.jit import njit


@njit(nogil=True)
def lanes_meet():
    """Where lanes read what other lanes of their SFPU wrote (SFPCONFIG's value from lanes
    0-7): nothing here, as a CPU program runs an SFPU's lanes one after another; a barrier
    where lanes are threads (:mod:`sfpu_sim.compiled.gpu`)."""
