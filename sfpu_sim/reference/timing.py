"""Measurement of the reference options (the figures in the package docstring)."""
from __future__ import annotations

import tempfile
import time

import gmpy2
import mpmath
import numpy as np

from sfpu_sim import formats
from sfpu_sim.formats import BF16
from sfpu_sim.reference import clear_memory, reference
from sfpu_sim.reference.backends import BACKENDS, MpMath, backend, flint
from sfpu_sim.reference.definitions import FUNCTIONS


def measure(names=("tanh", "gelu")) -> list[tuple]:
    """Cold and warm timings over all 65,536 BF16 inputs: rows (option, function, seconds,
    note)."""
    rows = []
    bits = np.arange(1 << 16, dtype=np.uint16)
    x = formats.bits_to_float64(bits, BF16)
    finite = x[np.isfinite(x)].tolist()

    def timed(option, name, call, note=""):
        start = time.perf_counter()
        result = call()
        rows.append((option, name, time.perf_counter() - start, note(result) if note else ""))

    with tempfile.TemporaryDirectory() as directory:
        for name in names:
            fn = FUNCTIONS[name]
            for engine in [e for e in BACKENDS if e != "flint" or flint is not None]:
                clear_memory()
                timed(f"cold, backend {engine}: certify all, write cache", name,
                      lambda: reference(name, bits, cache_dir=f"{directory}/{engine}",
                                        backend=engine),
                      lambda r: f"max precision {r.precision} bits")
            clear_memory()
            timed("warm, cache file read + sha256 + rounding", name,
                  lambda: reference(name, bits, cache_dir=f"{directory}/{backend(None).name}"))
            timed("warm, in-memory table + rounding", name,
                  lambda: reference(name, bits, "truncate",
                                    cache_dir=f"{directory}/{backend(None).name}"))

            def single():
                with mpmath.workprec(128):
                    return [fn.formula(mpmath.mpf(v), MpMath) for v in finite]
            timed("mpmath, one evaluation at 128 bits (no bound)", name, single)
    def mpfr():
        with gmpy2.context(precision=64, round=gmpy2.RoundToZero) as local:
            out = []
            for v in finite:
                local.clear_flags()
                out.append((gmpy2.tanh(v), local.inexact))
            return out
    timed("gmpy2 MPFR tanh, 64 bits toward zero + inexact flag", "tanh", mpfr)

    def float64_prefilter():
        with np.errstate(all="ignore"):
            t = np.abs(np.tanh(x))
            scaled = np.frexp(t)[0] * 2.0**8                  # [128, 256) for BF16 steps
            return np.abs(scaled - np.floor(scaled) - 0.5) < 2.0**-40 * scaled
    timed("numpy float64 tanh + lanes within 2**-40 of a midpoint", "tanh", float64_prefilter,
          lambda near: f"{int(near.sum())} lanes to recompute; no correctly rounded value")
    return rows
