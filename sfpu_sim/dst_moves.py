"""Moving one 32-bit datum per lane between lane order and Dst's cells, compiled.

Owns: the loops behind :meth:`sfpu_sim.machine.Dst.write_lanes` and ``read_lanes`` for 32-bit
data (FP32 inputs of a sweep: a million lanes a chunk). The layout itself is not here: which
cells a lane uses comes from ``Dst._grid_cells`` (rows and columns, given as arrays), and the
datum's field shuffle is :func:`sfpu_sim.isa.loadstore.fp32_to_dst` (formats' shuffle,
compiled). In numpy the same moves took a strided scatter or gather per half and a pass per
shift and mask: 18-20 ms a million lanes each way, against the kernel's ~130.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import jit
from sfpu_sim.isa.loadstore import dst_to_fp32, fp32_to_dst

GRID_ROWS, GRID_COLUMNS = 4, 8       # an SFPU's 32 lanes: lane 8r + c at grid row r, column c


@jit.njit(nogil=True)
def write_32bit(cells, values, high_rows, low_rows, columns):
    """Lane ``8r + c`` of SFPU ``s`` (``values[32 s + 8 r + c]``, a standard-layout pattern)
    into ``cells[s, high_rows[r], columns[c]]`` (high half) and ``low_rows[r]`` (low half)."""
    for s in range(cells.shape[0]):
        for r in range(GRID_ROWS):
            for c in range(GRID_COLUMNS):
                datum = fp32_to_dst(np.uint32(values[s * 32 + r * GRID_COLUMNS + c]))
                cells[s, high_rows[r], columns[c]] = datum >> 16
                cells[s, low_rows[r], columns[c]] = datum & 0xFFFF


@jit.njit(nogil=True)
def read_32bit(cells, high_rows, low_rows, columns, out):
    """The inverse of :func:`write_32bit`, into ``out`` (uint32, one entry per lane)."""
    for s in range(cells.shape[0]):
        for r in range(GRID_ROWS):
            for c in range(GRID_COLUMNS):
                datum = (np.uint32(cells[s, high_rows[r], columns[c]]) << 16) | \
                    np.uint32(cells[s, low_rows[r], columns[c]])
                out[s * 32 + r * GRID_COLUMNS + c] = dst_to_fp32(datum)
