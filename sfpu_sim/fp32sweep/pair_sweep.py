"""Pair sweeps of binary kernels: every x of a 16-bit format against each second operand,
streamed in chunks through the FP32 sweep's schedulers, resumable, on threads or Dask.

Owns: :class:`PairJob` (a pair sweep as a chunk needs it: small and picklable),
:class:`PairPartial` (what chunks reduce into, exactly) and :func:`sweep_pairs` (the summary of
``sweep KERNEL --y``, ``--y-range`` and ``--exhaustive``: all 2**32 BF16 pairs), and
:func:`sweep_pair_list`, the same summary of given pairs, lane for lane (``--harness-sample``:
the accuracy driver's own). Knows nothing of formatting; the device path is
:mod:`sfpu_sim.binary_device`'s.

Positions are y-major: pair ``p`` is x = pattern ``p mod 2**16`` against y = the
``p >> 16``-th second operand, so a chunk is whole rows of x (a multiple of 2**16 pairs) and
the walk's order is the order the summary lists second operands in. Of a row, only the x the
sweep counts are run (its population's, within its selection). A partial is integers and
exact maxima, and its worst pairs are ranked by (distance descending, y's position, x's
pattern), a total order, so the summary is the same bit for bit whatever the chunk size, the
thread count or the scheduler.
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field

import numpy as np

from sfpu_sim import formats, heap, threads, ulp
from sfpu_sim.binary_device import (
    IN0_ADDRESS,
    IN1_ADDRESS,
    check_held_operand,
    require_operands,
    run_binary_device,
)
from sfpu_sim.engines import long_run_engine
from sfpu_sim.fp32sweep import run as runs
from sfpu_sim.fp32sweep import state
from sfpu_sim.fp32sweep.chunk import KernelJob
from sfpu_sim.jsonio import hex_bits, json_number, jsonable
from sfpu_sim.reference.binary_functions import BINARY_FUNCTIONS, binary_reference
from sfpu_sim.selection import EVERYTHING, Selection
from sfpu_sim.sweeps import DevicePath, SweepError, program_hash
from sfpu_sim.version import __version__

ROW = 1 << 16                    # pairs per second operand: every 16-bit x
# A running chunk's bytes per pair: a device run of 2**20 pairs holds about 0.4 GiB
# (binary_device.PAIRS_PER_RUN), with the reference and distances beside it.
PAIR_BYTES = 400
SAVE_INTERVAL = 10.0             # seconds: what a kill may cost at most, beside the chunks
_SOURCES = ("pair_sweep.py",)    # what decides a pair sweep's bits, beside the tool version


@dataclass(frozen=True)
class PairJob(KernelJob):
    """A pair sweep as a chunk needs it: the kernel, the path, the operands."""
    input_format: str
    output_format: str
    policy: str
    population: str
    y: tuple                         # the second operands, in the order swept
    selection: tuple                 # (range, region) of the x counted
    worst: int
    threads: int | None = None       # the most compiled-loop threads a chunk uses
    engine: str = "compiled"

    lane_bytes = PAIR_BYTES
    # Saved at most this often: a state holds a row per y swept (1.5 MB of JSON at the end
    # of an exhaustive sweep, 4,096 chunks), so saving after every chunk would cost minutes.
    save_interval = SAVE_INTERVAL

    def path(self) -> DevicePath:
        return DevicePath(self.input_format, self.output_format, self.dest)

    def measured(self) -> tuple[np.ndarray, np.ndarray]:
        """(the x patterns counted, ascending: the population's within the selection, the only
        x a row runs; which y patterns are counted: the population's, the rest run
        uncounted)."""
        return _measured(self.population, self.input_format, self.selection)

    def run_chunk(self, start: int, stop: int, total: int) -> PairPartial:
        """The partial of positions ``start..stop`` (whole rows; ``total``: unused, the
        scheduler's uniform call)."""
        heap.keep_freed_memory()             # the next chunk reuses this one's pages
        with threads.limited(self.threads):
            return _run_rows(self, start // ROW, stop // ROW)


@functools.cache
def _measured(population: str, input_format: str, selection: tuple):
    """:meth:`PairJob.measured`, once per process and sweep (every chunk asks)."""
    dtype = formats.FORMATS[input_format].dtype
    every = np.arange(ROW, dtype=np.uint32).astype(dtype)
    in_population = np.zeros(ROW, dtype=bool)
    in_population[ulp.population(population, input_format)] = True
    value_range, region = selection
    chosen = Selection(tuple(value_range) if value_range else None, region)
    x = in_population & chosen.mask(formats.bits_to_float64(every, input_format))
    xs = np.flatnonzero(x).astype(np.uint32).astype(dtype)
    xs.flags.writeable = in_population.flags.writeable = False
    return xs, in_population


def _run_rows(job: PairJob, first: int, last: int) -> PairPartial:
    """Rows ``first..last`` (second operands), each against the x its sweep counts only: an x
    outside the population or the selection would be run for nothing (a range of a few x
    against every y is a few rows' work, not all 2**32 pairs)."""
    dtype = formats.FORMATS[job.input_format].dtype
    y_rows = np.array(job.y[first:last], dtype=np.uint32).astype(dtype)
    xs, measured_y = job.measured()
    x, y = np.tile(xs, y_rows.size), np.repeat(y_rows, xs.size)
    run = run_binary_device(job.program(), x, y, job.path(), engine=job.engine)
    expected, _ = binary_reference(job.function, x, y, job.policy,
                                   input_format=job.input_format,
                                   output_format=job.output_format)
    result = ulp.distance(expected, run.output, "daz-index", fmt=job.output_format)
    counted = result.counted & measured_y[y]
    distance = np.where(counted, result.distance, -1).astype(np.int64)
    rows = distance.reshape(-1, xs.size)
    per_row = (rows >= 0).sum(axis=1)
    # walked: the positions these rows cover, run or skipped (a state's check: done == walked)
    part = PairPartial(walked=y_rows.size * ROW, count=int(per_row.sum()),
                       exact=int((distance == 0).sum()), total=int(distance[counted].sum()),
                       maximum=int(distance.max()))
    part.rows = np.stack([y_rows.astype(np.int64), per_row, rows.max(axis=1)], axis=1)
    wrong = np.flatnonzero(distance > 0)         # positions in (row, x) order
    chosen = wrong[np.argsort(-distance[wrong], kind="stable")[:job.worst]]
    part.worst = np.stack([distance[chosen], first + chosen // xs.size,
                           xs[chosen % xs.size].astype(np.int64),
                           run.output[chosen].astype(np.int64),
                           expected[chosen].astype(np.int64)], axis=1).reshape(-1, 5)
    return part


@dataclass
class PairPartial:
    """A mergeable summary of some rows of a pair sweep (module docstring). ``rows``: y
    pattern, pairs counted, largest distance (-1: none) per second operand, in order;
    ``worst``: (distance, y's position, x, output, expected) of the worst pairs, ranked."""
    walked: int = 0
    count: int = 0
    exact: int = 0
    total: int = 0                   # the sum of the counted distances, exactly
    maximum: int = -1
    rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))
    worst: np.ndarray = field(default_factory=lambda: np.zeros((0, 5), dtype=np.int64))

    def merge(self, other: PairPartial, worst: int) -> PairPartial:
        """This partial's rows, then ``other``'s (merges run in walk order)."""
        pairs = np.concatenate([self.worst, other.worst])
        order = np.lexsort((pairs[:, 2], pairs[:, 1], -pairs[:, 0]))[:worst]
        return PairPartial(self.walked + other.walked, self.count + other.count,
                           self.exact + other.exact, self.total + other.total,
                           max(self.maximum, other.maximum),
                           np.concatenate([self.rows, other.rows]), pairs[order])

    def as_json(self) -> dict:
        return {"walked": self.walked, "count": self.count, "exact": self.exact,
                "total": self.total, "maximum": self.maximum,
                "rows": self.rows.tolist(), "worst": self.worst.tolist()}

    @classmethod
    def from_json(cls, data: dict) -> PairPartial:
        return cls(int(data["walked"]), int(data["count"]), int(data["exact"]),
                   int(data["total"]), int(data["maximum"]),
                   np.array(data["rows"], dtype=np.int64).reshape(-1, 3),
                   np.array(data["worst"], dtype=np.int64).reshape(-1, 5))


def state_key(job: PairJob) -> dict:
    """Everything that decides a pair sweep's bits (:mod:`.state`); the second operands by
    their digest."""
    y = np.array(job.y, dtype=np.uint32)
    return {"tool": __version__, "code": state.code_digest(_SOURCES), "kernel": job.kernel,
            "arch": job.arch, "words": [f"{w:08x}" for w in job.words],
            "init_length": job.init_length, "function": job.function, "dest": job.dest,
            "input_format": job.input_format, "output_format": job.output_format,
            "policy": job.policy, "ulp_convention": "daz-index",
            "population": job.population, "operands": "pairs",
            "y": f"{y.size} sha256:{hashlib.sha256(y.tobytes()).hexdigest()[:20]}",
            "selection": [list(job.selection[0]) if job.selection[0] else None,
                          job.selection[1]], "worst": job.worst}


def sweep_pairs(spec, arch: str, y_bits, *, dest: str | None = None,
                input_format: str = "bf16", output_format: str | None = None,
                reference_rounding: str = "rne", population: str = "daz",
                selection: Selection = EVERYTHING, worst: int = 20,
                engine: str | None = None, progress=None, chunk: int | None = None,
                scheduler: str = "local", workers: int | None = None, state_path=False,
                resume: bool = True, after_chunk=None) -> dict:
    """Every x of the input format against each second operand in ``y_bits`` (patterns),
    through a binary kernel: the JSON-ready summary (daz-index ULP against the correctly
    rounded :func:`~sfpu_sim.reference.binary_functions.binary_reference`). ``population``
    (:data:`sfpu_sim.ulp.POPULATIONS`) selects which x and y are measured, ``selection`` which
    x; others are run but not counted. ``output_format``: the packer's (default: the input
    format). ``progress(done, total)``: pairs swept so far.

    Scheduling as :func:`~.run.sweep_fp32`'s: ``chunk`` positions a chunk (a multiple of
    2**16; by default, rows holding about the default chunk's pairs that run),
    ``scheduler`` local (a chunk per thread), dask or tcp://HOST:PORT, ``workers``;
    ``state_path``: the resume file (None: one per sweep in the cache directory; False, the
    default: none), ``resume`` False starts over."""
    require_operands(spec, True)
    dest = dest or spec.dest
    output_format = output_format or input_format
    program = spec.program(arch)
    y_bits = formats.as_bits(np.atleast_1d(y_bits), input_format).reshape(-1)
    check_held_operand(spec, y_bits, input_format)
    job = PairJob(spec.name, spec.function, program.arch.name, tuple(program.words),
                  tuple(ins.source for ins in program), program.init_length, dest,
                  input_format, output_format, reference_rounding, population,
                  tuple(int(v) for v in y_bits), (selection.range, selection.region), worst,
                  engine=engine or long_run_engine())
    per_row = job.measured()[0].size                # the x a row runs
    if not per_row:
        raise SweepError(f"no x of population {population} lies in {selection.text}")
    given = chunk is not None
    chunk = chunk if given else max(ROW, runs.default_chunk(scheduler, workers, PAIR_BYTES))
    runs.check_scheduling(scheduler, workers, chunk, PAIR_BYTES, multiple=ROW)
    if not given:               # rows holding about that many pairs run: few x, many rows
        chunk = max(1, chunk // per_row) * ROW
    total = y_bits.size * ROW
    key = state_key(job)
    path = None if state_path is False else \
        state.check_path(state_path or state.default_path(key))
    done, partial = state.load(path, key, total, PairPartial) if path is not None and resume \
        else (0, None)
    partial = partial or PairPartial()
    if progress is not None:
        progress(done, total)
    plan = [(start, min(start + chunk, total)) for start in range(done, total, chunk)]
    partial = runs.run_plan(job, plan, total, partial, path, key, progress, after_chunk,
                            scheduler, workers)
    return _summary(spec, job, program, partial)


def _summary(spec, job: PairJob, program, partial: PairPartial) -> dict:
    fmt = job.input_format
    y_values = formats.bits_to_float64(partial.rows[:, 0], fmt)
    per_y = [{"y_bits": hex_bits(bits, fmt), "y": json_number(value), "count": int(n),
              "max_ulp": int(top) if n else None}
             for (bits, n, top), value in zip(partial.rows.tolist(), y_values)]
    worst_rows = [_pair_row(x, job.y[position], output, expected, d, fmt, job.output_format)
                  for d, position, x, output, expected in partial.worst.tolist()]
    return _headline(
        spec, program, dest=job.dest, input_format=fmt, output_format=job.output_format,
        policy=job.policy, population=job.population,
        selection=Selection(tuple(job.selection[0]) if job.selection[0] else None,
                            job.selection[1]),
        operands=f"x: every {fmt.upper()} pattern at Dst address {IN0_ADDRESS}; "
                 f"y: {len(job.y)} value(s) at address {IN1_ADDRESS}",
        count=partial.count, maximum=partial.maximum, total=partial.total,
        exact=partial.exact, per_y=per_y, worst=worst_rows)


def _headline(spec, program, *, dest, input_format, output_format, policy, population,
              selection, operands, count, maximum, total, exact, **rest) -> dict:
    """A pair summary's keys, shared by every set of pairs (``rest``: what a set adds)."""
    return jsonable({
        "tool": f"sfpu-sim {__version__}", "kernel": spec.name, "function": spec.function,
        "formula": BINARY_FUNCTIONS[spec.function][1], "arch": program.arch.name,
        "provenance": spec.provenance, "instantiation": spec.instantiation,
        "kernel_hash": program_hash(program), "dest": dest, "input_format": input_format,
        "output_format": output_format,
        "device_path": DevicePath(input_format, output_format, dest).steps(),
        "operands": operands, "reference_rounding": policy, "ulp_convention": "daz-index",
        "population": population, "selection": selection.as_dict(),
        "count": count, "max_ulp": maximum if count else None,
        "mean_ulp": total / count if count else None, "exact_count": exact,
        "exact_frac": exact / count if count else None, **rest})


def _pair_row(x: int, y: int, output: int, expected: int, distance: int, fmt: str,
              out: str) -> dict:
    return {"x_bits": hex_bits(x, fmt), "x": json_number(_value(x, fmt)),
            "y_bits": hex_bits(y, fmt), "y": json_number(_value(y, fmt)),
            "output_bits": hex_bits(output, out), "output": json_number(_value(output, out)),
            "expected_bits": hex_bits(expected, out),
            "expected": json_number(_value(expected, out)), "ulp": distance}


def sweep_pair_list(spec, arch: str, x_bits, y_bits, *, dest: str | None = None,
                    input_format: str = "bf16", output_format: str | None = None,
                    reference_rounding: str = "rne", selection: Selection = EVERYTHING,
                    worst: int = 20, engine: str | None = None, operands: str = "") -> dict:
    """The pairs (x[k], y[k]) given, lane for lane (the accuracy driver's own sample, a few
    thousand), through a binary kernel: :func:`sweep_pairs`'s summary, measured alike (every
    pair counted that the ULP convention counts, x within ``selection``), with the histogram
    of distances in place of per-y rows, and ``pairs``: every pair's patterns and distance
    (-1: not counted), in the order given (``operands``: what the pairs are)."""
    require_operands(spec, True)
    dest = dest or spec.dest
    output_format = output_format or input_format
    program = spec.program(arch)
    x_bits = formats.as_bits(np.atleast_1d(x_bits), input_format).reshape(-1)
    y_bits = formats.as_bits(np.atleast_1d(y_bits), input_format).reshape(-1)
    check_held_operand(spec, y_bits, input_format)
    path = DevicePath(input_format, output_format, dest)
    run = run_binary_device(program, x_bits, y_bits, path, engine=engine)
    expected, _ = binary_reference(spec.function, x_bits, y_bits, reference_rounding,
                                   input_format=input_format, output_format=output_format)
    result = ulp.distance(expected, run.output, "daz-index", fmt=output_format)
    counted = result.counted & selection.mask(formats.bits_to_float64(x_bits, input_format))
    if not counted.any():
        raise SweepError(f"no pair given is counted ({selection.text}; NaN and infinite "
                         f"outputs are not)")
    distance = np.where(counted, result.distance, -1).astype(np.int64)
    wrong = np.flatnonzero(distance > 0)
    chosen = wrong[np.argsort(-distance[wrong], kind="stable")[:worst]]
    values, tallies = np.unique(distance[counted], return_counts=True)
    return _headline(
        spec, program, dest=dest, input_format=input_format, output_format=output_format,
        policy=reference_rounding, population="every pair given", selection=selection,
        operands=operands or f"{x_bits.size:,} (x, y) pairs: x at Dst address {IN0_ADDRESS}, "
                             f"y at {IN1_ADDRESS}",
        count=int(counted.sum()), maximum=int(distance.max()),
        total=int(distance[counted].sum()), exact=int((distance == 0).sum()), per_y=[],
        ulp_histogram=[{"ulp": int(v), "pairs": int(n)} for v, n in zip(values, tallies)],
        worst=[_pair_row(int(x_bits[k]), int(y_bits[k]), int(run.output[k]),
                         int(expected[k]), int(distance[k]), input_format, output_format)
               for k in chosen],
        pairs={"x_bits": x_bits.astype(np.int64).tolist(),
               "y_bits": y_bits.astype(np.int64).tolist(), "ulp": distance.tolist()})


def _value(bits: int, fmt: str) -> float:
    return formats.bits_to_float64(np.array([bits]), fmt)[0]
