"""Moving one datum per lane between lane order and Dst's cells, compiled.

Owns: the loops behind :meth:`sfpu_sim.machine.Dst.write_lanes` and ``read_lanes`` (a sweep's
inputs and outputs: a million lanes a chunk, a billion operand pairs a binary cell). The layout
itself is not here: which cells a lane uses comes from ``Dst._grid_cells`` (rows and columns,
made into each lane's offset by :func:`lane_offsets`), and the field shuffles are
:mod:`sfpu_sim.isa.loadstore`'s (formats' shuffles, compiled). In numpy the same moves took a strided scatter or gather per half and a
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
LANES = GRID_ROWS * GRID_COLUMNS


def lane_offsets(rows, columns, width: int) -> np.ndarray:
    """Where each of an SFPU's 32 lanes lies in its cells flattened (``width`` cells a row):
    lane ``8r + c`` at ``rows[r] * width + columns[c]``. The moves below take these, one
    lookup a lane, rather than a row and a column array each: 25-30% faster."""
    rows, columns = np.asarray(rows, dtype=np.int64), np.asarray(columns, dtype=np.int64)
    return (rows[:, None] * width + columns[None, :]).reshape(-1)


@jit.njit(nogil=True)
def write_32bit(cells, values, high, low):
    """Lane ``l`` of SFPU ``s`` (``values[32 s + l]``, a standard-layout pattern) into
    ``cells[s, high[l]]`` (high half) and ``cells[s, low[l]]`` (low half); ``cells`` is
    SFPUs x cells (:func:`lane_offsets`)."""
    for s in range(cells.shape[0]):
        row = cells[s]
        for lane in range(LANES):
            datum = fp32_to_dst(np.uint32(values[s * LANES + lane]))
            row[high[lane]] = datum >> 16
            row[low[lane]] = datum & 0xFFFF


@jit.njit(nogil=True)
def read_32bit(cells, high, low, out, to_bf16=False):
    """The inverse of :func:`write_32bit`, into ``out`` (one entry per lane): the FP32 pattern
    (uint32), or with ``to_bf16`` that pattern through the packer's FP32 -> BF16 rounding
    (uint16): to nearest, ties away from zero, as SFPSTOCHRND's nearest mode
    (:func:`sfpu_sim.isa.convert.drop_mantissa_bits`, the GPU frames' packer too). One
    compiled pass for a sweep's BF16 output instead of a read and four numpy passes that held
    Python's lock: 4.6 ms of the 13 a one-thread chunk of 2**20 inputs spent holding it."""
    for s in range(cells.shape[0]):
        row = cells[s]
        for lane in range(LANES):
            value = dst_to_fp32((np.uint32(row[high[lane]]) << 16) | np.uint32(row[low[lane]]))
            if to_bf16:
                value = drop_mantissa_bits(value, 16, 0x8000) >> 16
            out[s * LANES + lane] = value


@jit.njit(nogil=True)
def write_16bit(cells, values, offsets, fp16):
    """Lane ``l`` of SFPU ``s`` (a BF16 pattern, or FP16 with ``fp16``) into
    ``cells[s, offsets[l]]``."""
    for s in range(cells.shape[0]):
        row = cells[s]
        for lane in range(LANES):
            h = np.uint32(values[s * LANES + lane]) & 0xFFFF
            row[offsets[lane]] = fp16_to_dst(h) if fp16 else bf16_to_dst(h)


@jit.njit(nogil=True)
def read_16bit(cells, offsets, fp16, out):
    """The inverse of :func:`write_16bit`, into ``out`` (uint16, one entry per lane)."""
    for s in range(cells.shape[0]):
        row = cells[s]
        for lane in range(LANES):
            d = np.uint32(row[offsets[lane]])
            out[s * LANES + lane] = dst_to_fp16(d) if fp16 else dst_to_bf16(d)
