"""The accuracy table's Float32 cells over every FP32 input (or every one in a range), beside the
harness's strided walk and the device's figure: ``sfpu-sim budget --in Float32 --exhaustive``.

Owns: running a cell's lanes in chunks (one per thread, merged in order:
:func:`sfpu_sim.threads.in_order`) and reducing the harness's score of each chunk
(:func:`sfpu_sim.parity.cells._score`, the scorer of the strided walk, unchanged) to the exact
maximum of every input. Knows nothing of formatting.

* The lanes of a chunk are :func:`~sfpu_sim.parity.cells.fp32_lanes`'s, as for the walk. Every
  golden kind of :mod:`sfpu_sim.parity.golden` is a function of each input alone, so each is
  evaluated chunk by chunk; none is refused. Where the golden is ``rne_fp32`` of a function the
  FP32 sweep has a proven reference for (:mod:`sfpu_sim.fp32sweep.rounded_reference`), an
  FP32 Dst and a Float32 output, that reference gives it (the same bits as the reference
  layer's, certified by enclosures instead of arb per input: the only way 2**32 inputs are
  affordable); other goldens are evaluated as the walk's are (arb or Python floats per input).
* An FP32 Dst (dest Yes) runs every input. A 16-bit Dst (dest No) keeps each input's top 16
  bits, so every input with the same top bits gives the same lane: the cell runs each distinct
  BF16 value once, represented by its first FP32 input in the walk, and ``lanes`` counts those.
  Whether an FP32 input is normal is decided by its top bits too.
* A ``near_zero_atol`` floor scales with the largest golden over all counted lanes: such a cell
  is scored twice, the first pass finding that scale (no Float32 cell of the 2026-09-30 table
  has a floor).
* The walk's points are a subset of the inputs and each lane's distance is the same in both, so
  the exhaustive maximum is at least the walk's over the same range (the floored figure is not
  monotone: its scale moves with the lanes).
"""
from __future__ import annotations

from contextlib import closing

import numpy as np

from sfpu_sim import ops, registry, threads
from sfpu_sim.fp32sweep.rounded_reference import SUPPORTED, Fp32Reference
from sfpu_sim.fp32sweep.run import local_concurrency
from sfpu_sim.fp32sweep.walk import Exhaustive
from sfpu_sim.parity import cells, device_table, predict
from sfpu_sim.version import __version__

DEFAULT_CHUNK = 1 << 20


def label(value_range) -> str:
    """How a record names its measure: "exhaustive", or "exhaustive over [LO, HI]"."""
    if value_range is None:
        return "exhaustive"
    return f"exhaustive over [{value_range[0]!r}, {value_range[1]!r}]"


def _fast_golden(op, out_fmt: str, dest: str):
    """The FP32 sweep's proven reference as the golden, where it is the golden (module
    docstring), else None."""
    if op.golden != "rne_fp32" or op.function not in SUPPORTED or dest != "Yes" or \
            out_fmt != "fp32":
        return None
    reference = Fp32Reference(op.function, "rne", "fp32")
    return lambda x: reference.expected(x)[0]


def _dst16_lanes(walk: Exhaustive) -> np.ndarray:
    """One FP32 input per distinct top 16 bits among the walk's, the first of each, in walk
    order."""
    out = []
    for a, b in walk._spans():                    # the walk's own bit-order intervals
        top = np.arange(a >> 16, ((b - 1) >> 16) + 1, dtype=np.int64)
        out.append(np.maximum(top << 16, a).astype(np.uint32))
    return np.concatenate(out) if out else np.zeros(0, dtype=np.uint32)


def _in_walk(x: np.ndarray, walk: Exhaustive) -> np.ndarray:
    keep = np.zeros(x.size, dtype=bool)
    for a, b in walk._spans():
        keep |= (x >= np.uint32(a)) & (x.astype(np.int64) < b)
    return keep


class _Max:
    """The merged score of chunks in walk order: the first lane of the largest distance."""

    def __init__(self):
        self.top, self.lanes, self.nonfinite, self.worst, self.scale = None, 0, 0, None, 0.0

    def add(self, score: tuple, scale=0.0) -> None:
        top, lanes, nonfinite, worst = score
        self.lanes += lanes
        self.nonfinite += nonfinite
        self.scale = max(self.scale, float(scale))
        if top is not None and (self.top is None or top > self.top):
            self.top, self.worst = top, worst


def _score_chunks(op, program, chunks, out_fmt: str, dest: str, cell, progress=None,
                  size: int = DEFAULT_CHUNK):
    """(merged score, floored maximum or None) of ``chunks`` (a callable giving the list of
    input arrays' producers), scored as :func:`cells.predict` scores the walk."""
    golden_of = _fast_golden(op, out_fmt, dest)
    flush = not (out_fmt == "fp16" and op.fp16_subnormals_ranked)
    floor = cell.near_zero_atol

    def scored(x):
        device, gold = cells.fp32_lanes(op, program, x, out_fmt, dest, golden_of)
        scale = cells.floor_scale(x, "fp32", device, gold, out_fmt, flush) \
            if floor is not None else 0.0
        return cells._score(x, "fp32", device, gold, out_fmt, flush), scale

    def floored_score(x):
        device, gold = cells.fp32_lanes(op, program, x, out_fmt, dest, golden_of)
        return cells._score(x, "fp32", device, gold, out_fmt, flush, floor, cell.budget,
                            np.float32(merged.scale))

    merged = _Max()
    width = local_concurrency(max(1, size))        # chunks of ``size`` inputs at once
    with closing(threads.in_order(scored, chunks(), width)) as finished:
        for k, (score, scale) in enumerate(finished):
            merged.add(score, scale)
            if progress:
                progress(k)
    if floor is None:
        return merged, None
    floored = _Max()
    with closing(threads.in_order(floored_score, chunks(), width)) as finished:
        for score in finished:
            floored.add(score)
    return merged, floored.top


def measure_cell(op, cell, arch: str, value_range=None, chunk: int = DEFAULT_CHUNK,
                 progress=None) -> dict:
    """The exhaustive and the strided figures of one modelled Float32 cell (module
    docstring), as the record's measured keys."""
    walk = Exhaustive(value_range)
    spec = registry.get(op.kernels[cell.dest])
    instance = registry.for_dest(spec, "fp32" if cell.dest == "Yes" else "bf16")
    program = instance.spec.program(arch)
    out_fmt = cell.output_format
    if cell.dest == "Yes":
        total = len(walk)

        def chunks():
            return (walk.patterns(start, min(start + chunk, total))
                    for start in range(0, total, chunk))
    else:
        lanes16 = _dst16_lanes(walk)

        def chunks():
            return (lanes16[start:start + chunk] for start in range(0, lanes16.size, chunk))
    done = (lambda k: progress(f"chunk {k + 1}")) if progress else None
    full, full_floored = _score_chunks(op, program, chunks, out_fmt, cell.dest, cell, done,
                                       chunk)
    points = cells.harness_fp32_walk()
    points = points[_in_walk(points, walk)]
    strided, strided_floored = _score_chunks(op, program, lambda: [points], out_fmt,
                                             cell.dest, cell, size=points.size)
    return {"measure": label(walk.value_range), "max_ulp": full.top, "lanes": full.lanes,
            "inputs": len(walk), "nonfinite_lanes": full.nonfinite, "worst": full.worst,
            "floored_max_ulp": full_floored, "strided_max_ulp": strided.top,
            "strided_lanes": strided.lanes, "strided_floored_max_ulp": strided_floored,
            "kernel": {"name": instance.spec.name,
                       "instantiation": instance.spec.instantiation or instance.note},
            "golden": op.golden, "near_zero_atol": cell.near_zero_atol,
            "floor_budget": cell.budget}


def records(rows: list[str], arches: list[str], value_range=None, chunk: int = DEFAULT_CHUNK,
            progress=None):
    """One record per Float32 cell of ``rows`` on each chip (``sfpu-sim budget --in Float32
    --exhaustive --json``): :func:`sfpu_sim.parity.predict.records`'s table keys, ``max_ulp``
    the exhaustive maximum labelled by ``measure``, ``strided_max_ulp`` the harness walk's
    over the same inputs; a cell no model covers has ``max_ulp`` None and the ``reason``."""
    walk = Exhaustive(value_range)                  # an empty or bad range fails first
    device = device_table.read()
    modelled, unmodelled = ops.ops(), ops.unmodelled_rows()
    tool = f"sfpu-sim {__version__}, emulated"
    for row in rows:
        for cell in device[row]:
            if cell.input_format != "fp32":
                continue
            for arch in arches:
                record = predict._base(row, cell, arch)
                op = modelled.get(row)
                reason = unmodelled.get(row, "no op registered for this row") if op is None \
                    else op.unmodelled.get(cell.dest)
                if reason is not None:
                    yield {**record, "measure": label(walk.value_range), "max_ulp": None,
                           "kernel": None, "provenance": None, "reason": reason}
                    continue
                where = f"{row} Float32 dest={cell.dest} on {arch}"
                step = (lambda text, where=where: progress(f"{where}: {text}")) \
                    if progress else None
                if progress:
                    progress(where)
                yield {**record, **measure_cell(op, cell, arch, walk.value_range, chunk, step),
                       "provenance": f"{op.dispatch}; {op.provenance}", "tool": tool}
