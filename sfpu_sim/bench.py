"""Benchmarks: ``python -m sfpu_sim.bench TARGET``: fma, machine, reference, kernel, loop, locate,
pipeline (:mod:`sfpu_sim.bench_pipeline`), and the others in :data:`TARGETS`.

Throughput is measured, never asserted: this machine is shared and noisy, so each figure is the
best of several repetitions after a warm-up call (which also triggers compilation), and ratios
are only meaningful within one run.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from sfpu_sim import compiled, fma, registry, sweeps, threads
from sfpu_sim.asm import assemble
from sfpu_sim.bench_gpu import CHUNK, CHUNK_STARTS, SWEPT, bench_gpu
from sfpu_sim.bench_pipeline import bench_pipeline
from sfpu_sim.design import supnorm
from sfpu_sim.design.api import fit
from sfpu_sim.design.interval import parse_interval
from sfpu_sim.design.problem import Problem
from sfpu_sim.design.target import registry_target
from sfpu_sim.diff import diff
from sfpu_sim.fp32sweep import Strided, sweep_fp32
from sfpu_sim.machine import LANES_PER_SFPU, Dst, Machine
from sfpu_sim.parity import predict
from sfpu_sim.reference.timing import measure
from sfpu_sim.shadow import locate
from sfpu_sim.shadow.locator import worst_inputs
from sfpu_sim.study import workbench
from sfpu_sim.sweeps import DevicePath, run_device

SEED = 20261126


def best_seconds(call, repeat: int, clock=time.perf_counter) -> float:
    """Best time of ``repeat`` calls after a warm-up call; ``clock`` may be
    ``time.process_time`` (CPU seconds of the process: on a shared, loaded machine the fair
    figure for one thread)."""
    call()                                   # warm-up: compilation, page faults
    best = float("inf")
    for _ in range(repeat):
        start = clock()
        call()
        best = min(best, clock() - start)
    return best


def moderate_floats(rng, n: int) -> np.ndarray:
    """Random sign and mantissa, biased exponent 107..147 (|x| in about [2^-20, 2^21))."""
    sign = rng.integers(0, 2, n, dtype=np.uint32) << np.uint32(31)
    exponent = rng.integers(107, 148, n, dtype=np.uint32) << np.uint32(23)
    mantissa = rng.integers(0, 1 << 23, n, dtype=np.uint32)
    return sign | exponent | mantissa


def raw_bits(rng, n: int) -> np.ndarray:
    return rng.integers(0, 1 << 32, n, dtype=np.uint32)


def bench_fma(args, console: Console) -> None:
    """The FMA models on arrays: one thread, all threads, and the default count (which drops
    to one while the load average oversubscribes the cores; sfpu_sim.threads)."""
    rng = np.random.default_rng(SEED)
    most = threads.max_threads()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    table = Table(title=f"FMA models: M lane-ops/s (best of {args.repeat}; load average "
                        f"{load:.1f} at the start)")
    for column in ("model", "lanes", "inputs", "1 thread", f"{most} threads", "default"):
        table.add_column(column, justify="right" if column != "model" else "left")
    try:
        for lanes in args.lanes:
            for kind, make in (("moderate floats", moderate_floats), ("raw bits", raw_bits)):
                x, y, z = (make(rng, lanes) for _ in range(3))
                for name, model in fma.MODELS.items():
                    rates = []
                    for n in (1, most, None):
                        threads.set_threads(n)
                        seconds = best_seconds(lambda: model(x, y, z), args.repeat)
                        rates.append(f"{lanes / seconds / 1e6:,.0f}")
                    table.add_row(name, f"{lanes:,}", kind, *rates)
    finally:
        threads.set_threads(None)
    console.print(table)


# A 30-instruction program mixing every instruction class a kernel uses: load/store,
# immediates, MAD-class arithmetic, field and integer operations, a LUT, predication, a swap,
# rounding and a conversion. Valid on both chips (SFPNOPs keep it free of Wormhole hazards).
MIXED_PROGRAM = """
SFPLOAD   L0, 0, 0, 0
SFPLOADI  L1, FLOATB, 0x3FC0
SFPLOADI  L2, FLOATB, 0xBF00
SFPMAD    L0, L1, L2, L3, 0
SFPABS    0, L0, L4, FLOAT
SFPMUL    L3, L3, L9, L5, 0
SFPEXEXP  0, L4, L7, 0
SFPADD    L10, L4, L5, L6, 0
SFPADDI   0x3F80, L4, 0
SFPMULI   0x3F00, L6, 0
SFPSETEXP 127, L4, L5, ARG_IMM
SFPIADD   -3, L7, L7, CC_NONE|ARG_IMM
SFPSHFT   1, L0, L7, ARG_IMM
SFPAND    0, L0, L7, 0
SFPOR     0, L1, L7, 0
SFPSETCC  0, L0, L0, LREG_LT0
SFPPUSHC  0, 0, L0, 0
SFPMAD    L5, L6, L1, L2, 0
SFPNOP
SFPCOMPC  0, 0, L0, 0
SFPMAD    L5, L1, L6, L2, 0
SFPNOP
SFPPOPC   0, 0, L0, 0
SFPENCC   0, 0, L0, 0
SFPSWAP   0, L10, L2, VEC_MIN_MAX
SFPNOP
SFPLUT    L2, SGN_RETAIN
SFPNOP
SFP_STOCH_RND 0, 0, L2, L2, L2, FP32_TO_FP16B
SFPSTORE  L2, 0, 0, 0
"""


def bench_machine(args, console: Console) -> None:
    lanes = args.lanes[0] if args.lanes != DEFAULT_LANES else 65536
    table = Table(title=f"Machine: a {len(MIXED_PROGRAM.split(chr(10))) - 2}-instruction mixed "
                        f"program over {lanes:,} lanes (best of {args.repeat})")
    for column in ("arch", "seconds", "M lane-instructions/s"):
        table.add_column(column, justify="right" if column != "arch" else "left")
    rng = np.random.default_rng(SEED)
    for arch in ("wormhole", "blackhole"):
        program = assemble(MIXED_PROGRAM, arch, "MIXED_PROGRAM")
        machine = Machine(arch, lanes=lanes, dst_rows=16)
        inputs = moderate_floats(rng, lanes) >> np.uint32(16)

        def run():
            machine.dst.write_lanes(0, inputs, "bf16")
            machine.run(program)

        with warnings.catch_warnings():
            warnings.simplefilter("error")
            seconds = best_seconds(run, args.repeat)
        rate = lanes * len(program) / seconds / 1e6
        table.add_row(arch, f"{seconds:.4f}", f"{rate:,.0f}")
    console.print(table)


def bench_reference(args, console: Console) -> None:
    """Cold and warm reference computation for all 65,536 BF16 inputs, per backend."""
    table = Table(title="References: all 65,536 BF16 inputs of one function")
    for column in ("option", "function", "seconds", "note"):
        table.add_column(column, justify="right" if column == "seconds" else "left")
    for option, name, seconds, note in measure():
        table.add_row(option, name, f"{seconds:.3f}", note)
    console.print(table)


KERNEL_BENCH = ("exp", "tanh", "log", "gelu")
TTSIM_FIGURE = "ttsim v1.10.0, end to end, all 65,536 BF16 inputs, exp and tanh: 260-400 M/s"
TTSIM_BEST = 400          # the top of ttsim's range: "x ttsim" divides by it


def bench_kernel(args, console: Console) -> None:
    """Whole kernels over all 65,536 BF16 inputs, M lane-instructions/s (instructions x 65,536
    per second). End to end is ``sweeps.run_device`` as a sweep calls it (Dst set-up, the
    program, the packer's output), compiled and Machine, one thread (wall clock and CPU time)
    and all threads (wall clock); "run" is the compiled program alone on a prepared Dst
    (``compiled.execute_sfpus``). Ratios are of figures measured in this run."""
    inputs = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    most = threads.max_threads()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    table = Table(title=f"Whole kernels, all 65,536 BF16 inputs: M lane-instructions/s "
                        f"(best of {args.repeat}; load average {load:.1f} at the start)",
                  caption=f"e2e = end to end, run_device (Dst set-up, program, packed output); "
                          f"run = the compiled program alone. C = compiled, M = Machine; 1t / "
                          f"{most}t: threads, wall clock; cpu: CPU time of the process (1 "
                          f"thread). first s: the first call, compiling the program or loading "
                          f"it from the on-disk cache. x ttsim: C e2e 1t / {TTSIM_BEST}. "
                          f"For comparison (not measured in this run): {TTSIM_FIGURE}.")
    columns = ("kernel", "chip", "n", "first s", "C e2e 1t", "C e2e 1t cpu", f"C e2e {most}t",
               "C run 1t", f"C run {most}t", "M e2e 1t", "M e2e 1t cpu", f"M e2e {most}t",
               "C/M 1t cpu", "x ttsim")
    for column in columns:
        table.add_column(column, justify="left" if column in ("kernel", "chip") else "right")
    runs = (("compiled", 1, time.perf_counter), ("compiled", 1, time.process_time),
            ("compiled", most, time.perf_counter), ("run only", 1, time.perf_counter),
            ("run only", most, time.perf_counter), ("machine", 1, time.perf_counter),
            ("machine", 1, time.process_time), ("machine", most, time.perf_counter))
    try:
        for name in args.kernels or KERNEL_BENCH:
            spec = registry.get(name)
            for arch in spec.chips:
                program = spec.program(arch)
                path = DevicePath(dest=spec.dest)
                work = inputs.size * len(program) / 1e6
                start = time.perf_counter()
                engine = run_device(program, inputs, path, engine="compiled").engine
                first = time.perf_counter() - start
                rates = []
                for kind, n, clock in runs:
                    threads.set_threads(n)
                    if kind == "run only":
                        seconds = _run_only_seconds(program, inputs, path, args.repeat)
                    else:
                        seconds = best_seconds(lambda: run_device(program, inputs, path,
                                                                  engine=kind), args.repeat, clock)
                    rates.append(work / seconds)
                label = spec.name if engine == "compiled" else f"{spec.name} ({engine})"
                table.add_row(label, arch, str(len(program)), f"{first:.2f}",
                              *(f"{rate:,.0f}" for rate in rates), f"{rates[1] / rates[6]:.1f}x",
                              f"{rates[0] / TTSIM_BEST:.2f}x")
    finally:
        threads.set_threads(None)
    console.print(table)


def _run_only_seconds(program, inputs, path, repeat: int) -> float:
    """Best wall-clock time of the compiled program alone over the batch: Dst is set up once
    and restored before each call, untimed; no packing. (inf when it does not compile.)"""
    _, padded = sweeps._padded_inputs(inputs, path, False)
    template = sweeps._device_state(program, path, LANES_PER_SFPU)
    dst = Dst(padded.size // LANES_PER_SFPU, template.dst_rows, template)
    sweeps._unpack(dst, padded, path, False)
    pristine = dst.bits.copy()
    cells = dst.bits.reshape(dst.bits.shape[0], -1)
    store = sweeps._last_store(program)
    best = float("inf")
    for _ in range(repeat + 1):                  # the first is a warm-up
        np.copyto(dst.bits, pristine)
        start = time.perf_counter()
        _, why_not = compiled.execute_sfpus(template, program, cells, store)
        seconds = time.perf_counter() - start
        if why_not is not None:
            return float("inf")
        best = min(best, seconds)
    return best


def bench_study(args, console: Console) -> None:
    """``sfpu-sim study gelu``'s work: all eleven methods scored (goals, issue 10: host forms
    plus the truth < 20 s warm; the device kernels < 30 s per chip)."""
    def once(call) -> float:
        start = time.perf_counter()
        call()
        return time.perf_counter() - start

    def host_and_truth():
        workbench.analyze(reference="study")
        workbench.analyze(reference="correct")

    table = Table(title=f"study gelu, all methods, 65,280 inputs (best of {args.repeat} warm; "
                        f"cold = first call in this process)")
    for column in ("work", "cold seconds", "warm seconds", "goal"):
        table.add_column(column, justify="left" if column == "work" else "right")
    cold = once(host_and_truth)
    table.add_row("host forms, study's and correct reference", f"{cold:.2f}",
                  f"{best_seconds(host_and_truth, args.repeat):.2f}", "< 20")
    for chip in ("wormhole", "blackhole"):
        def device(chip=chip):
            workbench.analyze(reference="correct", arch=chip)
        cold = once(device)                       # builds the kernels (R5: 510 v_if blocks)
        table.add_row(f"{chip} kernels, correct reference", f"{cold:.2f}",
                      f"{best_seconds(device, args.repeat):.2f}", "< 30")
    console.print(table)


def bench_locate(args, console: Console) -> None:
    """``locate KERNEL --worst 20`` (the sweep that picks the lanes included) for the shipped
    gelu and tanh on both chips; and the shadow alone on those 20 lanes."""
    table = Table(title=f"locate --worst 20 (best of {args.repeat}; issue 8 goal: < 10 s)")
    for column in ("kernel", "arch", "with the sweep (s)", "shadow only (s)"):
        table.add_column(column, justify="left" if column in ("kernel", "arch") else "right")
    for name in ("gelu", "tanh"):
        for arch in ("wormhole", "blackhole"):
            whole = best_seconds(lambda: locate(name, arch, worst=20), args.repeat)
            inputs = worst_inputs(registry.get(name), arch, 20)
            alone = best_seconds(lambda: locate(name, arch, inputs=inputs), args.repeat)
            table.add_row(name, arch, f"{whole:.2f}", f"{alone:.2f}")
    console.print(table)


def bench_fit(args, console: Console) -> None:
    """The four problems of the hellas kernels' design note on deterministic transcendentals
    (kernels/hellas.py; it publishes Sollya's coefficients), fit -> quantise -> certify, each
    timed end to end (best of --repeat, default 3), with the certified error of Sollya's
    published coefficients beside ours (same certifier)."""
    problems = {   # interval, powers, Sollya's published coefficients (the note's)
        "sin": ("-pi/4,pi/4", (1, 3, 5, 7), ("1", "-0.166666507720947265625",
                "8.331983350217342376708984375e-3", "-1.94961365195922553539276123046875e-4")),
        "cos": ("-pi/4,pi/4", (0, 2, 4, 6), ("1", "-0.49999892711639404296875",
                "4.16561998426914215087890625e-2", "-1.35968066751956939697265625e-3")),
        "exp": ("0,log(2)", (0, 1, 2, 3), ("0.9998929500579833984375",
                "1.0047757625579833984375", "0.4669305980205535888671875",
                "0.23783318698406219482421875")),
        "log": ("0.5,1", (0, 1, 2, 3), ("-2.1859228610992431640625", "4.22526264190673828125",
                "-2.9164140224456787109375", "0.877515852451324462890625")),
    }
    table = Table(title=f"sfpu-sim fit: the design note's four problems (FP32 coefficients, "
                        f"absolute error; best of {args.repeat})")
    for column in ("problem", "seconds", "remez", "quantise", "certify", "certified error",
                   "Sollya's, same certifier", "better by", "minimax error"):
        table.add_column(column, justify="left" if column == "problem" else "right")
    for name, (interval, powers, published) in problems.items():
        runs = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = fit(name, interval, powers=powers)
            runs.append((time.perf_counter() - start, result))
        seconds, result = min(runs, key=lambda r: r[0])
        problem = Problem(registry_target(name), parse_interval(interval), powers)
        theirs = supnorm.certify(problem, dict(zip(powers, map(Fraction, published))))
        better = 1 - result.certificate.upper / theirs.upper
        table.add_row(name, f"{seconds:.2f}", f"{result.seconds['remez']:.2f}",
                      f"{result.seconds['quantise']:.2f}", f"{result.seconds['certify']:.2f}",
                      f"{result.sup_error:.10e}", f"{float(theirs.upper):.10e}",
                      f"{float(better):.4%}", f"{result.minimax_error:.10e}")
    console.print(table)


def bench_loop(args, console: Console) -> None:
    """The design loop: what a kernel file adds to a command, and ``diff`` over all 65,536
    inputs (warm, in process)."""
    kernel = ("from sfpu_sim import register_kernel\nfrom sfpu_sim.sfpi import dst_reg\n\n"
              "def twice():\n    x = dst_reg[0]\n    dst_reg[0] = x + x\n\n"
              "register_kernel('bench_twice', twice, function='tanh')\n")
    table = Table(title="Design loop (best of repeats)")
    table.add_column("what")
    table.add_column("seconds", justify="right")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "k.py"
        path.write_text(kernel)

        def command(*extra):
            subprocess.run([sys.executable, "-m", "sfpu_sim", "kernel", "show", "tanh",
                            "--arch", "wormhole", *extra], check=True,
                           stdout=subprocess.DEVNULL)
        plain = best_seconds(command, args.repeat)
        with_file = best_seconds(lambda: command("--kernels", str(path)), args.repeat)
    table.add_row("sfpu-sim kernel show tanh (whole command)", f"{plain:.3f}")
    table.add_row("the same with --kernels FILE.py", f"{with_file:.3f}")
    table.add_row("what the kernel file adds", f"{with_file - plain:+.3f}")
    inputs = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    a = registry.get("tanh").program("wormhole")
    b = registry.get("tanh_approx").program("wormhole")
    table.add_row("diff tanh tanh_approx, 65,536 inputs (warm)",
                  f"{best_seconds(lambda: diff(a, b, inputs), args.repeat):.3f}")
    console.print(table)


def bench_fp32(args, console: Console) -> None:
    """An FP32 input sweep over a sample spread over the whole FP32 line (Tenstorrent's
    strided walk, one value in --stride), timed end to end (device path, reference, tally,
    state file) and extrapolated to all 2**32 inputs (issue 11 goal: < 15 min for a
    ~30-instruction kernel on one chip)."""
    title = (f"FP32 sweeps: a strided sample, extrapolated to 2**32 inputs (load average "
             f"{os.getloadavg()[0]:.1f}, {threads.threads()} threads, best of {args.repeat})")
    table = Table(title=title)
    for column in ("kernel", "instructions", "scheduler", "inputs", "seconds",
                   "s per 2^20", "2^32 extrapolated", "refined"):
        table.add_column(column, justify="left" if column in ("kernel", "scheduler")
                         else "right")
    walk = Strided(args.stride)
    with tempfile.TemporaryDirectory() as directory:
        for name in args.kernel:
            spec = registry.get(name)
            for scheduler in args.scheduler:
                results = []

                def run(scheduler=scheduler):
                    results.append(sweep_fp32(spec, args.arch, walk, scheduler=scheduler,
                                              state_path=f"{directory}/{name}.json",
                                              resume=False))
                # a Dask run starts its cluster each time: no warm-up call to discount
                seconds = (best_seconds(run, args.repeat) if scheduler == "local" else
                           min(_once(run) for _ in range(args.repeat)))
                per = seconds / len(walk) * (1 << 20)
                refined = results[-1].summary["reference_refinements"]["lanes"]
                table.add_row(name, str(len(spec.program(args.arch))), scheduler,
                              f"{len(walk):,}", f"{seconds:.2f}", f"{per:.3f}",
                              f"{per * 4096 / 60:.1f} min", f"{refined:,}")
    console.print(table)


def bench_budget(args, console: Console) -> None:
    """``sfpu-sim budget --all``: every modelled cell of the accuracy table, both chips, timed
    once in this process (warm: programs and references cached on disk; the first run also
    compiles)."""
    rows = predict.choose_rows(None)
    cells = predicted = 0

    def every_cell():
        nonlocal cells, predicted
        for record in predict.records(rows, ["wormhole", "blackhole"]):
            cells += 1
            predicted += record["max_ulp"] is not None
    seconds = _once(every_cell)
    table = Table(title="budget --all, both chips (one run; the goal is under 10 minutes)")
    for column in ("rows", "cells", "predicted", "seconds", "per predicted cell"):
        table.add_column(column, justify="right")
    table.add_row(str(len(rows)), f"{cells:,}", f"{predicted:,}", f"{seconds:.1f}",
                  f"{seconds / max(predicted, 1):.3f} s")
    console.print(table)


def _once(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


TARGETS = {"fma": bench_fma, "fp32": bench_fp32, "gpu": bench_gpu, "machine": bench_machine,
           "reference": bench_reference, "kernel": bench_kernel, "study": bench_study,
           "loop": bench_loop, "locate": bench_locate, "fit": bench_fit, "budget": bench_budget,
           "pipeline": bench_pipeline}
DEFAULT_LANES = [1 << 20, 1 << 24]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sfpu_sim.bench", description=__doc__)
    parser.add_argument("target", choices=sorted(TARGETS))
    parser.add_argument("--lanes", type=int, nargs="+", default=DEFAULT_LANES,
                        help="lanes: array sizes for fma (default 1M and 16M), the machine's "
                             "lane count for machine (default 65,536)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kernel", nargs="+", default=["reciprocal_fp32"],
                        help="fp32: FP32-Dst kernels to sweep (default: reciprocal_fp32, "
                             "29 instructions on Wormhole: issue 11's ~30-instruction kernel)")
    parser.add_argument("--arch", default="wormhole",
                        help="fp32, pipeline: the chip (default: wormhole)")
    parser.add_argument("--range", type=float, nargs=2, default=[1.0, 4.0], metavar=("LO", "HI"),
                        help="pipeline: the inputs swept, every FP32 value in [LO, HI] "
                             "(default 1 4: 2**24 inputs)")
    parser.add_argument("--stride", type=int, default=1 << 10,
                        help="fp32: one input in STRIDE (default 1024: 4,194,304 inputs)")
    parser.add_argument("--scheduler", nargs="+", default=["local", "dask"],
                        help="fp32: schedulers to time (default: local dask)")
    parser.add_argument("--chunks", type=int, default=len(CHUNK_STARTS),
                        help=f"gpu: chunks per kernel row (default {len(CHUNK_STARTS)})")
    parser.add_argument("--chunk-size", type=int, default=CHUNK,
                        help=f"gpu: inputs per chunk (default {CHUNK:,})")
    parser.add_argument("--swept", nargs="*", default=None,
                        help=f"gpu: FP32-Dst kernels swept end to end per engine and threads "
                             f"(default: {' '.join(SWEPT)}; none: no sweep table)")
    parser.add_argument("--exhaustive", action="store_true",
                        help="gpu: fused GPU chunks: the summary against the CPU's, then all "
                             "2**32 FP32 inputs of each kernel end to end")
    parser.add_argument("--swept-exhaustive", nargs="+", default=None,
                        help=f"gpu --exhaustive: the kernels (default: {' '.join(SWEPT)})")
    parser.add_argument("--identity-range", type=float, nargs=2, default=[0.5, 8.0],
                        metavar=("LO", "HI"),
                        help="gpu --exhaustive: inputs compared with the CPU (default 0.5 8: "
                             "2**25 inputs)")
    parser.add_argument("--out", default=None,
                        help="gpu --exhaustive: a folder for each 2**32 sweep's summary JSON")
    parser.add_argument("--kernels", nargs="+", default=None,
                        help=f"kernel: registered kernels to run (default: "
                             f"{' '.join(KERNEL_BENCH)})")
    args = parser.parse_args(argv)
    TARGETS[args.target](args, Console(width=max(Console().width, 150)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
