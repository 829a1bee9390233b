"""Keeping freed memory in the process while it sweeps: the CLI's commands and an FP32 or pair
sweep's chunks (on threads or Dask workers) set it; importing sfpu_sim as a library does not.

Owns: :func:`keep_freed_memory`. Every chunk allocates the same large arrays (its Dst, 512 bytes
an SFPU; outputs, references, distances) and frees them when it ends. glibc hands such blocks
back to the kernel (unmapped, or trimmed off the heap's top), so the next chunk takes a page
fault for every 4 KiB it touches again (on this project's virtual machines, touching a fresh
16 MiB array page by page takes about 48 ms). ``mallopt`` tells glibc to serve blocks up to
32 MiB from its heap and never to trim it, so the next chunk reuses pages already mapped.
Measured on ``reciprocal_fp32`` chunks of 2**20 inputs, the two settings interleaved in one
process: 173 -> 161 ms a chunk on one thread (median of 12), 341 -> 295 ms for four chunks on
two threads (median of 4; page faults also serialise threads on the address-space lock);
``sweep gelu`` and ``sweep exp`` (all BF16 inputs) in one process, 429 -> 378 ms. The
process keeps its peak (a sweep's chunks are bounded: :data:`sfpu_sim.fp32sweep.run.MEMORY_CAP`).

Elsewhere (another C library, another system) this does nothing: the bits are the same either
way; only time differs.
"""
from __future__ import annotations

import ctypes
import functools
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3          # glibc's malloc.h parameter numbers
MMAP_THRESHOLD = 32 << 20        # glibc's ceiling for it on 64-bit (HEAP_MAX_SIZE / 2)
TRIM_THRESHOLD = (1 << 31) - 1   # never trim: the freed top of the heap stays mapped


@functools.cache
def keep_freed_memory() -> bool:
    """Set glibc's thresholds once per process (module docstring); whether they took."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and \
        bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
