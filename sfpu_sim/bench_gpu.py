"""``python -m sfpu_sim.bench gpu``: the GPU engine against the CPU's compiled engine, in one run.

Owns the GPU benchmark of issue 23 (and the threads scaling of the FP32 pipeline, issue 18):

1. **Kernels.** FP32 patterns through an FP32 Dst, in chunks of 2**24 consecutive patterns
   spread over the line. Per kernel and chip: the first GPU call (compiling), the kernel alone
   on GPU-resident Dst (CUDA events), extrapolated to all 2**32 inputs; a whole
   ``run_device`` call (unpack, transfers, kernel, pack) on the GPU and on the CPU's compiled
   engine; and whether every Dst cell and every captured LReg is the same on both, lane for
   lane.
2. **FP32 sweeps end to end** (the strided walk, reference and tally included) with the CPU
   engine at 1, 2 and all threads and with the GPU engine: seconds, inputs/s, and whether the
   summary equals the all-threads CPU one.
3. With ``--exhaustive``, the Float32 cells' fused GPU chunks (:mod:`sfpu_sim.fp32sweep.gpu_chunk`):
   first, whether the summary of a GPU sweep equals the CPU compiled engine's, every field,
   over ``--identity-range`` and over Tenstorrent's strided walk; then **all 2**32 inputs** of
   each kernel with an FP32 reference, on both chips, end to end (kernel, packer, reference,
   ULP and tally), with the first sweep's compile time apart.
"""
from __future__ import annotations

import json
import time

import numpy as np
from rich.table import Table

from sfpu_sim import compiled, engines, registry, sweeps, threads

from sfpu_sim.compiled import gpu

from sfpu_sim.fp32sweep import Exhaustive, Strided, enclose, gpu_chunk, sweep_fp32
from sfpu_sim.fp32sweep import chunk as chunks
from sfpu_sim.fp32sweep.gpu_chunk import GPU_CHUNK
from sfpu_sim.selection import EVERYTHING, regions_for
from sfpu_sim.stage_timer import recording

from sfpu_sim.machine import LANES_PER_SFPU, Dst

KERNELS = ("reciprocal_fp32", "gelu", "tanh_fp32_2026_09")
SWEPT = ("reciprocal_fp32", "tanh_fp32_2026_09")
CHUNK = 1 << 24
# First patterns of the chunks timed and compared: [0.5, 2); the largest finite values,
# infinity and NaNs; zero and denormals; negative values
CHUNK_STARTS = (0x3F000000, 0x7F000000, 0x00000000, 0xBF000000)


def bench_gpu(args, console) -> None:
    gpu.require()
    if args.exhaustive:                     # first: the figure a short lease is for
        console.print(_exhaustive_table(args, console))
        console.print(_fused_stage_table(args, console))
        console.print(_identity_table(args, console))
    most = threads.max_threads()
    size = args.chunk_size
    kernels = Table(title=f"GPU engine: FP32 inputs through an FP32 Dst, chunks of "
                          f"{size:,} consecutive patterns ({len(CHUNK_STARTS[:args.chunks])} "
                          f"chunks a row; {gpu.device_name()}, "
                          f"{most} CPU threads)",
                    caption="first s: the first GPU call (compiling). alone: the kernel on "
                            "GPU-resident Dst, best of 3 (CUDA events); 2^32 s: that rate over "
                            "all 2^32 inputs. e2e: run_device per chunk (unpack, transfers, "
                            "kernel, pack), GPU and CPU compiled (all threads). identical: "
                            "lanes whose Dst cells and captured LReg equal the CPU's.")
    for column in ("kernel", "chip", "n", "first s", "alone ms", "G lane-instr/s", "2^32 s",
                   "e2e GPU s", "e2e CPU s", "identical"):
        kernels.add_column(column, justify="left" if column in ("kernel", "chip") else "right")
    path = sweeps.DevicePath("fp32", "fp32", "fp32")
    for name in (args.kernels or KERNELS) if args.chunks else ():
        spec = registry.get(name)
        for arch in spec.chips:
            program = spec.program(arch)
            store = sweeps._last_store(program)
            template = sweeps._device_state(program, path, 32)
            start = time.perf_counter()
            c = gpu.prepare(template, program, store)
            first = time.perf_counter() - start
            if isinstance(c, str):
                _add_row(console, kernels, name, arch, str(len(program)), f"not on the GPU: {c}")
                continue
            alone, e2e_gpu, e2e_cpu, same, lanes = [], [], [], 0, 0
            for begin in CHUNK_STARTS[:args.chunks]:
                x = np.arange(begin, begin + size, dtype=np.uint64).astype(np.uint32)
                cells = _dst_cells(sweeps, program, path, x)
                alone.append(_alone_seconds(gpu, c, template, cells))
                on_gpu, on_cpu = cells.copy(), cells.copy()
                got, _ = gpu.execute_sfpus(template, program, on_gpu, store)
                want, _ = compiled.execute_sfpus(template, program, on_cpu, store)
                same += int(((on_gpu == on_cpu).all(axis=1).repeat(32)
                             & (got == want)).sum())
                lanes += x.size
                for engine, times in (("cuda", e2e_gpu), ("compiled", e2e_cpu)):
                    start = time.perf_counter()
                    sweeps.run_device(program, x, path, fp32_inputs=True, engine=engine)
                    times.append(time.perf_counter() - start)
            best = min(alone) or float("nan")       # the simulator's events read 0
            _add_row(console, kernels, name, arch, str(len(program)), f"{first:.2f}",
                     f"{best * 1e3:.2f}", f"{size * len(program) / best / 1e9:.1f}",
                     f"{best * (1 << 32) / size:.2f}", f"{min(e2e_gpu):.3f}",
                     f"{min(e2e_cpu):.3f}", f"{same:,} / {lanes:,}")
    if args.chunks:
        console.print(kernels)
    if args.swept != []:
        console.print(_sweep_table(args, most))


def _dst_cells(sweeps, program, path, x: np.ndarray) -> np.ndarray:
    _, padded = sweeps._padded_inputs(x, path, True)
    template = sweeps._device_state(program, path, LANES_PER_SFPU)
    dst = Dst(padded.size // LANES_PER_SFPU, template.dst_rows, template)
    sweeps._unpack(dst, padded, path, True)
    return dst.bits.reshape(dst.bits.shape[0], -1)


def _alone_seconds(gpu, c, template, cells: np.ndarray) -> float:
    """Best of three kernel launches on GPU-resident Dst, each from the pristine inputs."""
    from numba import cuda

    pristine = cuda.to_device(cells)
    working = cuda.device_array_like(pristine)
    captured = cuda.device_array(cells.shape[0] * 32, dtype=np.uint32)
    best = float("inf")
    for _ in range(4):                       # the first is a warm-up
        working.copy_to_device(pristine)
        begin, end = cuda.event(), cuda.event()
        begin.record()
        gpu.launch(c, template, working, captured)
        end.record()
        end.synchronize()
        best = min(best, begin.elapsed_time(end) / 1e3)
    return best


def _sweep_table(args, most: int) -> Table:
    walk = Strided(args.stride)
    table = Table(title=f"FP32 sweeps end to end (strided walk, one input in {args.stride:,}: "
                        f"{len(walk):,} inputs; reference and tally included)")
    for column in ("kernel", "chip", "engine", "threads", "seconds", "M inputs/s",
                   "vs 1 thread", "same summary"):
        table.add_column(column, justify="left" if column in ("kernel", "chip", "engine")
                         else "right")
    runs = list(dict.fromkeys([("compiled", 1), ("compiled", 2), ("compiled", most),
                               ("cuda", most)]))
    for name in args.swept or SWEPT:
        spec = registry.get(name)
        for arch in spec.chips:
            results, seconds = {}, {}
            for engine, n in runs:
                threads.set_threads(n)
                engines.set_engine(engine)
                try:
                    sweep_fp32(spec, arch, walk, state_path=False)      # warm: compiles
                    start = time.perf_counter()
                    result = sweep_fp32(spec, arch, walk, state_path=False)
                    seconds[engine, n] = time.perf_counter() - start
                finally:
                    threads.set_threads(None)
                    engines.set_engine(None)
                results[engine, n] = json.dumps(result.summary, sort_keys=True, default=str)
            for engine, n in runs:
                table.add_row(name, arch, engine, str(n), f"{seconds[engine, n]:.2f}",
                              f"{len(walk) / seconds[engine, n] / 1e6:.2f}",
                              f"{seconds['compiled', 1] / seconds[engine, n]:.2f}x",
                              str(results[engine, n] == results["compiled", most]))
    return table


def _add_row(console, table: Table, *cells: str) -> None:
    """A row added to ``table``, and printed at once as ``column=value`` pairs: a table prints
    only whole, and a device lease can end before the last row."""
    table.add_row(*cells)
    console.print("  " + "; ".join(f"{column.header}={cell}"
                                   for column, cell in zip(table.columns, cells)),
                  highlight=False, soft_wrap=True)


def _fused_sweep(name: str, arch: str, walk, engine: str):
    """(summary JSON text, seconds) of an FP32-output sweep on ``engine``."""
    engines.set_engine(engine)
    try:
        start = time.perf_counter()
        result = sweep_fp32(registry.get(name), arch, walk, output_format="fp32",
                            state_path=False)
        seconds = time.perf_counter() - start
    finally:
        engines.set_engine(None)
    return json.dumps(result.summary, sort_keys=True, default=str), seconds


def _identity_table(args, console) -> Table:
    low, high = args.identity_range
    table = Table(title="Fused GPU chunks against the CPU compiled engine: the whole summary "
                        "(FP32 in, FP32 Dst, FP32 out)")
    for column in ("kernel", "chip", "walk", "inputs", "GPU s", "CPU s", "same summary",
                   "max ULP", "refined"):
        table.add_column(column, justify="left" if column in ("kernel", "chip", "walk")
                         else "right")
    for name in args.swept_exhaustive or SWEPT:
        for arch in registry.get(name).chips:
            for walk in (Exhaustive((low, high)), Strided()):
                on_gpu, gpu_s = _fused_sweep(name, arch, walk, "cuda")
                on_cpu, cpu_s = _fused_sweep(name, arch, walk, "compiled")
                summary = json.loads(on_gpu)
                _add_row(console, table, name, arch, walk.as_dict()["kind"], f"{len(walk):,}",
                              f"{gpu_s:.2f}", f"{cpu_s:.2f}", str(on_gpu == on_cpu),
                              str(summary.get("max_ulp")),
                              str(summary["reference_refinements"]["lanes"]))
    return table


def _exhaustive_table(args, console) -> Table:
    table = Table(title="Every FP32 input (2**32) end to end on the GPU: kernel, packer, "
                        "reference, ULP and tally (FP32 out)",
                  caption="first s: a sweep of 2**22 inputs before, compiling what the run "
                          "needs. 2^32 s: the whole sweep after it.")
    for column in ("kernel", "chip", "n", "first s", "2^32 s", "G inputs/s", "max ULP",
                   "mean ULP", "refined", "f64 FMAs"):
        table.add_column(column, justify="left" if column in ("kernel", "chip") else "right")
    for name in args.swept_exhaustive or SWEPT:
        spec = registry.get(name)
        for arch in spec.chips:
            _, first = _fused_sweep(name, arch, Exhaustive((1.0, 1.5)), "cuda")
            text, seconds = _fused_sweep(name, arch, Exhaustive(), "cuda")
            summary = json.loads(text)
            _add_row(console, table, name, arch, str(len(spec.program(arch))), f"{first:.1f}",
                          f"{seconds:.1f}", f"{(1 << 32) / seconds / 1e9:.2f}",
                          str(summary.get("max_ulp")), str(summary.get("mean_ulp")),
                          str(summary["reference_refinements"]["lanes"]), _contracted(spec))
            if args.out:
                with open(f"{args.out}/{name}_{arch}_2e32.json", "w") as f:
                    f.write(text)
    return table


def _contracted(spec) -> str:
    """How many float64 FMAs the finish frame's machine code holds: 0 when every float64
    operation rounds once, as on the CPU (:func:`sfpu_sim.compiled.gpu.ieee_float64`)."""
    finish = gpu_chunk.frames().kernels(enclose.FUNCTIONS[spec.function],
                                len(regions_for(spec.function)))["finish"]
    if gpu.simulated():
        return "-"
    return str(sum(ptx.count("fma.rn.f64") for ptx in finish.inspect_asm().values()))


def _fused_stage_table(args, console) -> Table:
    """Where one fused chunk's time goes (the GPU waited for at each stage's end)."""
    walk = Exhaustive()
    start = 0x3F000000                          # [0.5, ...): normal inputs
    table = Table(title=f"One fused GPU chunk of {GPU_CHUNK:,} inputs, ms per stage (best of "
                        f"3)")
    table.add_column("kernel")
    table.add_column("chip")
    stages = ("kernel", "reference, ulp and tally", "accumulators and lists", "worst lanes")
    for column in (*stages, "rest", "total"):
        table.add_column(column, justify="right")
    engines.set_engine("cuda")
    try:
        for name in args.swept_exhaustive or SWEPT:
            spec = registry.get(name)
            for arch in spec.chips:
                job = chunks.job_for(spec, arch, "fp32", "fp32", "rne", walk, EVERYTHING, 20)
                chunks.run_chunk(job, start, start + GPU_CHUNK, len(walk))
                best = None
                for _ in range(3):
                    with recording() as seconds:
                        begin = time.perf_counter()
                        chunks.run_chunk(job, start, start + GPU_CHUNK, len(walk))
                        total = time.perf_counter() - begin
                    if best is None or total < best[0]:
                        best = (total, dict(seconds))
                total, seconds = best
                rest = total - sum(seconds.get(s, 0.0) for s in stages)
                _add_row(console, table, name, arch,
                         *(f"{seconds.get(s, 0.0) * 1e3:.1f}" for s in stages),
                              f"{rest * 1e3:.1f}", f"{total * 1e3:.1f}")
    finally:
        engines.set_engine(None)
    return table
