"""Moving one datum per lane between lane order and Dst's cells, compiled.

Owns: the loops behind :meth:`sfpu_sim.machine.Dst.write_lanes` and ``read_lanes`` (a sweep's
inputs and outputs: a million lanes a chunk, a billion operand pairs a binary cell). The layout
itself is not here: which cells a lane uses comes from ``Dst._grid_cells`` (rows and columns,
given as arrays), and the field shuffles are :mod:`sfpu_sim.isa.loadstore`'s (formats'
shuffles, compiled). In numpy the same moves took a strided scatter or gather per half and a
pass per shift and mask: 18-20 ms a million FP32 lanes each way (the kernel: ~130), 47 ms a
million 16-bit lanes.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import jit
from sfpu_sim.isa.convert import drop_mantissa_bits
from sfpu_sim.isa.loadstore import (
    bf16_to_dst,
    dst_to_bf16,
    dst_to_fp16,
    dst_to_fp32,
    fp16_to_dst,
    fp32_to_dst,
)

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
def read_32bit(cells, high_rows, low_rows, columns, out, to_bf16=False):
    """The inverse of :func:`write_32bit`, into ``out`` (one entry per lane): the FP32 pattern
    (uint32), or with ``to_bf16`` that pattern through the packer's FP32 -> BF16 rounding
    (uint16): to nearest, ties away from zero, as SFPSTOCHRND's nearest mode
    (:func:`sfpu_sim.isa.convert.drop_mantissa_bits`, the GPU frames' packer too). One
    compiled pass for a sweep's BF16 output instead of a read and four numpy passes that held
    Python's lock: 4.6 ms of the 13 a one-thread chunk of 2**20 inputs spent holding it."""
    for s in range(cells.shape[0]):
        for r in range(GRID_ROWS):
            for c in range(GRID_COLUMNS):
                datum = (np.uint32(cells[s, high_rows[r], columns[c]]) << 16) | \
                    np.uint32(cells[s, low_rows[r], columns[c]])
                value = dst_to_fp32(datum)
                if to_bf16:
                    value = drop_mantissa_bits(value, 16, 0x8000) >> 16
                out[s * 32 + r * GRID_COLUMNS + c] = value


@jit.njit(nogil=True)
def write_16bit(cells, values, rows, columns, fp16):
    """Lane ``8r + c`` of SFPU ``s`` (a BF16 pattern, or FP16 with ``fp16``) into
    ``cells[s, rows[r], columns[c]]``."""
    for s in range(cells.shape[0]):
        for r in range(GRID_ROWS):
            for c in range(GRID_COLUMNS):
                h = np.uint32(values[s * 32 + r * GRID_COLUMNS + c]) & 0xFFFF
                cells[s, rows[r], columns[c]] = fp16_to_dst(h) if fp16 else bf16_to_dst(h)


@jit.njit(nogil=True)
def read_16bit(cells, rows, columns, fp16, out):
    """The inverse of :func:`write_16bit`, into ``out`` (uint16, one entry per lane)."""
    for s in range(cells.shape[0]):
        for r in range(GRID_ROWS):
            for c in range(GRID_COLUMNS):
                d = np.uint32(cells[s, rows[r], columns[c]])
                out[s * 32 + r * GRID_COLUMNS + c] = dst_to_fp16(d) if fp16 else dst_to_bf16(d)
