"""``python -m sfpu_sim.bench pipeline``: where an FP32 sweep's time goes, how it scales with
threads, and what a never-seen kernel's first sweep costs (issue 18's figures).

Four tables, measured in one run (this machine is shared: compare figures within a run only):

* the stages of one chunk of 2**20 inputs on one thread (:mod:`sfpu_sim.stage_timer`'s names:
  walk, unpack, kernel, pack, reference, ulp and tally, denormals, cross-check), best of
  ``--repeat``, with the share of the kernel and the reference together (the cross-check
  samples about 2**20 lanes of a whole sweep, so its share falls as the sweep grows: a
  sixteenth of this chunk for the default range, 256 lanes a chunk for all 2**32 inputs);
* a whole sweep (``--range``, default [1, 4]: 2**24 inputs) at 1, 2 and every usable thread:
  inputs per second and the speedup over one thread (the summaries compared bit for bit);
* how far chunks on threads can scale, read on one thread: the share of a chunk's time
  outside compiled code that releases Python's lock, at the chunk size the scheduler takes for
  1, 2, every and 16 threads, and the speedup Amdahl's law allows with that share
  (:func:`serial_table`: read on 2 cores, it gave the 16-core figure within 5%);
* a cold process's first BF16 sweep of a kernel it has never seen (a four-term polynomial
  with new random coefficients: nothing of it is cached), then the same command again.
"""
from __future__ import annotations

import cProfile
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba.core.dispatcher import Dispatcher
from rich.table import Table

from sfpu_sim import registry, threads

from sfpu_sim.fp32sweep import Exhaustive, chunk as chunks, sweep_fp32
from sfpu_sim.fp32sweep.run import default_chunk

from sfpu_sim.selection import EVERYTHING

from sfpu_sim.stage_timer import recording

CHUNK = 1 << 20
POLYNOMIAL_KERNEL = '''from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg


def {name}():
    x = dst_reg[0]
    dst_reg[0] = (({a} * x + {b}) * x + {c}) * x + {d}


register_kernel("{name}", {name}, function="exp")
'''


def bench_pipeline(args, console) -> None:
    spec = registry.get(args.kernel[0])
    low, high = args.range
    walk = Exhaustive((low, high))
    console.print(stage_table(spec, args.arch, walk, args.repeat))
    console.print(thread_table(spec, args.arch, walk, threads.max_threads()))
    console.print(serial_table(spec, args.arch, walk, threads.max_threads()))
    console.print(first_sweep_table(args.arch))


def stage_table(spec, arch: str, walk, repeat: int) -> Table:
    job = chunks.job_for(spec, arch, "fp32", "bf16", "rne", walk, EVERYTHING, 20)
    size = min(CHUNK, len(walk))
    best = None
    with threads.limited(1):
        chunks.run_chunk(job, 0, size, len(walk))            # compile or load, once
        for _ in range(repeat):
            with recording() as seconds:
                start = time.perf_counter()
                chunks.run_chunk(job, 0, size, len(walk))
                total = time.perf_counter() - start
            if best is None or total < best[0]:
                best = (total, dict(seconds))
    total, seconds = best
    table = Table(title=f"One chunk of {size:,} FP32 inputs of {spec.name} on {arch}, one "
                        f"thread, best of {repeat}: {total * 1e3:.1f} ms, "
                        f"{size / total / 1e6:.2f} M inputs/s")
    for column in ("stage", "ms", "share"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    for name, value in seconds.items():
        table.add_row(name, f"{value * 1e3:.1f}", f"{value / total:.1%}")
    inside = seconds.get("kernel", 0.0) + seconds.get("reference", 0.0)
    table.add_row("kernel + reference", f"{inside * 1e3:.1f}", f"{inside / total:.1%}")
    table.add_row("everything else", f"{(total - inside) * 1e3:.1f}",
                  f"{(total - inside) / total:.1%}")
    return table


def thread_table(spec, arch: str, walk, most: int) -> Table:
    counts = sorted({1, min(2, most), most})
    table = Table(title=f"A whole sweep of {spec.name} on {arch}, {len(walk):,} inputs "
                        f"({walk.text}), chunks on threads, one run each")
    for column in ("threads", "chunk", "seconds", "M inputs/s", "speedup", "same summary"):
        table.add_column(column, justify="right")
    first = None
    lane_bytes = chunks.job_for(spec, arch, "fp32", "bf16", "rne", walk, EVERYTHING,
                                20).lane_bytes
    try:
        sweep_fp32(spec, arch, walk, state_path=False)       # compile or load, once
        for n in counts:
            threads.set_threads(n)
            start = time.perf_counter()
            summary = sweep_fp32(spec, arch, walk, state_path=False).summary
            seconds = time.perf_counter() - start
            first = first or (seconds, summary)
            table.add_row(str(n), f"{default_chunk(lane_bytes=lane_bytes):,}", f"{seconds:.2f}",
                          f"{len(walk) / seconds / 1e6:.2f}", f"{first[0] / seconds:.2f}x",
                          "yes" if summary == first[1] else "NO")
    finally:
        threads.set_threads(None)
    return table


def serial_table(spec, arch: str, walk, most: int, chunks_timed: int = 8) -> Table:
    """How well chunks on threads can scale, measured on one thread: the share of a chunk's
    time spent outside compiled code that releases Python's lock (``nogil``), at the chunk
    size the local scheduler takes on a machine of 1, 2, ``most`` and 16 threads (the memory
    cap shrinks it as threads grow), and the speedup that share allows there (Amdahl's law:
    chunks overlap only where the lock is free). Read on a 2-core machine (2026-11-28),
    reciprocal_fp32's chunks of 262,144 inputs, the size 16 threads take, held the lock 13-15%
    of their time: 5.0x allowed at 16 threads; on a 16-core H200 machine the same day, the
    sweep measured 5.22x. Sized since by what a compiled chunk holds (80 B an input, not the
    Machine's 256), 16 threads take chunks of 2**20: 7.3% held, 7.7x allowed (not yet
    measured on 16 cores). cProfile's own cost falls on the Python side, so the share is if
    anything high."""
    table = Table(title=f"Where chunks on threads wait: a chunk's time outside nogil compiled "
                        f"code ({spec.name} on {arch}, one thread, {chunks_timed} chunks "
                        f"under cProfile)")
    for column in ("threads", "their chunk", "ms a chunk", "holding the lock", "allows"):
        table.add_column(column, justify="right")
    job = chunks.job_for(spec, arch, "fp32", "bf16", "rne", walk, EVERYTHING, 20)
    for n in sorted({1, 2, most, 16}):
        size = min(default_chunk(lane_bytes=job.lane_bytes, thread_count=n),
                   len(walk) // chunks_timed)
        with threads.limited(1):
            chunks.run_chunk(job, 0, size, len(walk))        # compile or load, once
            profile = cProfile.Profile()
            profile.enable()
            for k in range(chunks_timed):
                chunks.run_chunk(job, k * size, (k + 1) * size, len(walk))
            profile.disable()
        stats = pstats.Stats(profile).stats
        nogil = _nogil_functions()                   # the kernel program's module is loaded now
        total = sum(entry[2] for entry in stats.values())
        free = sum(entry[2] for key, entry in stats.items() if key in nogil)
        held = (total - free) / total
        table.add_row(str(n), f"{size:,}", f"{total / chunks_timed * 1e3:.1f}", f"{held:.1%}",
                      f"{1 / (held + (1 - held) / n):.1f}x")
    return table


def _nogil_functions() -> set:
    """cProfile's keys (file, line, name) of every compiled function loaded that releases
    Python's lock: numba dispatchers made with ``nogil=True``, the kernel programs' too."""
    found = set()
    for module in list(sys.modules.values()):
        for value in list(getattr(module, "__dict__", {}).values()):
            if isinstance(value, Dispatcher) and value.targetoptions.get("nogil"):
                code = value.py_func.__code__
                found.add((code.co_filename, code.co_firstlineno, code.co_name))
    return found


def first_sweep_table(arch: str) -> Table:
    """A subprocess sweeps a polynomial kernel whose coefficients no earlier run used, twice:
    cold (nothing of it cached: the program is traced, run, and whatever the engine choice
    compiles is compiled) and again (its caches written)."""
    rng = np.random.default_rng()
    a, b, c, d = (float(v) for v in rng.uniform(-1, 1, 4))
    name = f"bench_poly_{rng.integers(1 << 40):x}"
    table = Table(title="A never-seen kernel's first BF16 sweep, in a new process (all 65,536 "
                        "inputs; the package's own caches as they are)")
    table.add_column("run")
    table.add_column("seconds", justify="right")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "poly.py"
        path.write_text(POLYNOMIAL_KERNEL.format(name=name, a=a, b=b, c=c, d=d))
        command = [sys.executable, "-m", "sfpu_sim", "sweep", name, "--kernels", str(path),
                   "--arch", arch, "--json"]
        for label in ("first (cold)", "second"):
            start = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            table.add_row(label, f"{time.perf_counter() - start:.2f}")
    return table
