"""Benchmarks: ``python -m sfpu_sim.bench fma`` (and further targets as the emulator grows).

Throughput is measured, never asserted: this machine is shared and noisy, so each figure is the
best of several repetitions after a warm-up call (which also triggers compilation), and ratios
are only meaningful within one run.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from rich.console import Console
from rich.table import Table

SEED = 20261126


def best_seconds(call, repeat: int) -> float:
    call()                                   # warm-up: compilation, page faults
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
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
    import numba

    from sfpu_sim import fma

    rng = np.random.default_rng(SEED)
    table = Table(title=f"FMA models: lane-ops/s (best of {args.repeat}; "
                        f"{numba.get_num_threads()} threads)")
    for column in ("model", "lanes", "inputs", "M lane-ops/s"):
        table.add_column(column, justify="right" if column != "model" else "left")
    for lanes in args.lanes:
        for kind, make in (("moderate floats", moderate_floats), ("raw bits", raw_bits)):
            x, y, z = (make(rng, lanes) for _ in range(3))
            for name, model in fma.MODELS.items():
                seconds = best_seconds(lambda: model(x, y, z), args.repeat)
                table.add_row(name, f"{lanes:,}", kind, f"{lanes / seconds / 1e6:,.0f}")
    console.print(table)


TARGETS = {"fma": bench_fma}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sfpu_sim.bench", description=__doc__)
    parser.add_argument("target", choices=sorted(TARGETS))
    parser.add_argument("--lanes", type=int, nargs="+", default=[1 << 20, 1 << 24],
                        help="array sizes (default: 1M and 16M)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    TARGETS[args.target](args, Console())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
