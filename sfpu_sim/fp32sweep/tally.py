"""What an FP32 sweep keeps of its lanes: a partial summary that chunks reduce into, exactly.

Owns: :class:`Partial` (integer counts, sums, maxima, histograms and a top-K list of the worst
lanes, for the device output and for the kernel's own FP32 result, overall, per region and per
binade), how one chunk of lanes becomes a Partial (a compiled loop), and how two Partials merge.
Every field is an integer or an exact maximum, and the worst lanes are ranked by (distance
descending, input pattern ascending), a total order, so the merged Partial, hence the summary,
is the same bit for bit however the inputs are cut into chunks and in whatever order the
chunks are merged. Knows nothing of kernels, references or formatting.

Distances are ``daz-index`` steps (:mod:`sfpu_sim.ulp`), computed in the compiled loop of
:mod:`.lane_tally` with the same bitwise formula, and cross-checked per chunk against
``ulp.distance`` and ``ulp.index_by_search`` on a fixed sample of lanes (the summary's
``cross_verification``).
Histograms hold every distance below :data:`EXACT` exactly and wider ones in power-of-two bins
(a distance up to 2**33 fits), so percentiles are exact while they fall below ``EXACT``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

from sfpu_sim import formats, threads, ulp
from sfpu_sim.fp32sweep.lane_tally import BINS, EXACT, tally_parts
from sfpu_sim.selection import REGIONS, regions_for
from sfpu_sim.stage_timer import stage

CLASSES = len(ulp.LaneClass)
NAN_BOTH, NAN_MISMATCH = int(ulp.LaneClass.NAN_BOTH), int(ulp.LaneClass.NAN_MISMATCH)
DENORMAL_OUTPUTS = 16                          # distinct denormal-input outputs listed
CROSS_SAMPLE = 1 << 20     # lanes cross-checked per sweep, about (a fixed hash of the input)


def bin_range(k: int) -> tuple[int, int]:
    """Smallest and largest distance of histogram bin k."""
    if k < EXACT:
        return k, k
    low = 1 << (k - EXACT + 10)
    return low, 2 * low - 1


@dataclass
class Stats:
    """Counted distances of one population: histogram, exact sum and maximum."""
    hist: np.ndarray = field(default_factory=lambda: np.zeros(BINS, dtype=np.int64))
    total: int = 0
    max: int = -1

    def merge(self, other: Stats) -> Stats:
        return Stats(self.hist + other.hist, self.total + other.total, max(self.max, other.max))


@dataclass
class Partial:
    """A mergeable summary of some lanes of a sweep (module docstring)."""
    walked: int = 0
    population: int = 0
    classes: np.ndarray = field(default_factory=lambda: np.zeros(CLASSES, dtype=np.int64))
    device: Stats = field(default_factory=Stats)
    both: int = 0                                  # lanes counted for device and kernel
    kernel: Stats = field(default_factory=Stats)   # over the ``both`` lanes
    device_both: Stats = field(default_factory=Stats)
    added: np.ndarray = field(default_factory=lambda: np.zeros(3, dtype=np.int64))  # w/b/s
    added_max: int | None = None
    added_hist: np.ndarray = field(default_factory=lambda: np.zeros(BINS, dtype=np.int64))
    regions: list = field(default_factory=lambda: [Stats() for _ in REGIONS])
    region_inputs: np.ndarray = field(default_factory=lambda: np.zeros(len(REGIONS),
                                                                       dtype=np.int64))
    binades: np.ndarray = field(default_factory=lambda: np.zeros((256, 5), dtype=np.int64))
    worst: np.ndarray = field(default_factory=lambda: np.zeros((0, 6), dtype=np.int64))
    denormal_inputs: int = 0
    denormal_match: int = 0
    denormal_outputs: dict = field(default_factory=dict)   # the smallest patterns' counts
    denormal_other: int = 0                                # outputs not among them
    denormal_expected: tuple = ()
    cross_pairs: int = 0
    cross_agree: int = 0
    refined: int = 0
    precision: int = 0

    def merge(self, other: Partial, worst: int) -> Partial:
        """The Partial of both sets of lanes (``worst``: how many worst lanes to keep)."""
        outputs = dict(self.denormal_outputs)
        for k, v in other.denormal_outputs.items():
            outputs[k] = outputs.get(k, 0) + v
        kept = sorted(outputs)[:DENORMAL_OUTPUTS]    # the smallest patterns: see _denormals
        dropped = sum(v for k, v in outputs.items() if k not in kept)
        maxima = [m for m in (self.added_max, other.added_max) if m is not None]
        return Partial(
            walked=self.walked + other.walked, population=self.population + other.population,
            classes=self.classes + other.classes, device=self.device.merge(other.device),
            both=self.both + other.both, kernel=self.kernel.merge(other.kernel),
            device_both=self.device_both.merge(other.device_both),
            added=self.added + other.added, added_max=max(maxima) if maxima else None,
            added_hist=self.added_hist + other.added_hist,
            regions=[a.merge(b) for a, b in zip(self.regions, other.regions)],
            region_inputs=self.region_inputs + other.region_inputs,
            binades=_merge_binades(self.binades, other.binades),
            worst=top(np.concatenate([self.worst, other.worst]), worst),
            denormal_inputs=self.denormal_inputs + other.denormal_inputs,
            denormal_match=self.denormal_match + other.denormal_match,
            denormal_outputs={k: outputs[k] for k in kept},
            denormal_other=self.denormal_other + other.denormal_other + dropped,
            denormal_expected=tuple(sorted(set(self.denormal_expected) |
                                           set(other.denormal_expected))),
            cross_pairs=self.cross_pairs + other.cross_pairs,
            cross_agree=self.cross_agree + other.cross_agree,
            refined=self.refined + other.refined,
            precision=max(self.precision, other.precision))

    @classmethod
    def for_regions(cls, count: int) -> Partial:
        """An empty Partial of ``count`` regions (the function's region table)."""
        return cls(regions=[Stats() for _ in range(count)],
                   region_inputs=np.zeros(count, dtype=np.int64))

    # JSON form (the resume state) ------------------------------------------------------------
    def as_json(self) -> dict:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Stats):
                value = _stats_json(value)
            elif f.name == "regions":
                value = [_stats_json(s) for s in value]
            elif isinstance(value, np.ndarray):
                value = value.tolist()
            elif isinstance(value, tuple):
                value = list(value)
            elif f.name == "denormal_outputs":
                value = {str(k): v for k, v in value.items()}
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls, data: dict) -> Partial:
        p = cls()
        for f in fields(cls):
            value = data[f.name]
            current = getattr(p, f.name)
            if isinstance(current, Stats):
                value = _stats_from(value)
            elif f.name == "regions":
                value = [_stats_from(s) for s in value]
            elif f.name == "worst":
                value = np.array(value, dtype=np.int64).reshape(-1, 6)
            elif f.name == "binades":
                value = np.array(value, dtype=np.int64).reshape(256, 5)
            elif isinstance(current, np.ndarray):
                value = np.array(value, dtype=np.int64)
            elif isinstance(current, tuple):
                value = tuple(value)
            elif f.name == "denormal_outputs":
                value = {int(k): int(v) for k, v in value.items()}
            setattr(p, f.name, value)
        return p


def _merge_binades(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Binade rows: inputs, measured, total, max (column 3: a maximum), exact."""
    out = a + b
    out[:, 3] = np.maximum(a[:, 3], b[:, 3])
    return out


def _stats_json(s: Stats) -> dict:
    nonzero = np.flatnonzero(s.hist)
    return {"bins": nonzero.tolist(), "counts": s.hist[nonzero].tolist(), "total": s.total,
            "max": s.max}


def _stats_from(d: dict) -> Stats:
    hist = np.zeros(BINS, dtype=np.int64)
    hist[np.array(d["bins"], dtype=np.int64)] = np.array(d["counts"], dtype=np.int64)
    return Stats(hist, int(d["total"]), int(d["max"]))


def top(rows: np.ndarray, k: int) -> np.ndarray:
    """The k worst rows (columns: distance, input pattern, ...): distance descending, then
    input pattern ascending."""
    if rows.shape[0] == 0:
        return rows
    order = np.lexsort((rows[:, 1], -rows[:, 0]))
    return rows[order[:k]]


REGION_SLOTS = 8    # region tables padded to a multiple of this (tally_chunk)
PARTS = 16          # a chunk's lanes tallied in this many parts on the threads, then summed
TALLY_COST = 20     # work per lane relative to a multiply-add lane (threads.parallel_for)
# Columns of _tally's ``sums`` that hold maxima (the others are counts and sums); 9: per part.
_MAXIMA = [2, 5, 7, 8]


def _rows(parts: int, width: int) -> np.ndarray:
    """Per-part counters every lane updates, each part's row padded by a cache line: parts
    on two threads writing one line slowed the tally as much as the second thread sped it."""
    return np.zeros((parts, width + 8), dtype=np.int64)


def tally_chunk(x, out, expected, kernel, out_format: str, selection, worst: int,
                regions=REGIONS, sample_limit: int = 0):
    """A chunk's Partial over the lanes of population ``daz`` that ``selection``
    (sfpu_sim.selection.Selection) keeps, with ``regions`` (the function's,
    :func:`sfpu_sim.selection.regions_for`); returns (Partial, per-lane distances, -1 where a
    lane is not counted, the lanes of denormal inputs, the lanes of the cross-check's sample
    below ``sample_limit``). The lanes are tallied in
    :data:`PARTS` parts (on the threads) whose integers are summed and maxima taken, and whose
    worst lanes are ranked again: the same Partial as one pass, whatever the thread count."""
    f = formats.FORMATS[out_format]
    low, high = selection.range if selection.range is not None else (-math.inf, math.inf)
    names = [r.name for r in regions]
    sel_region = names.index(selection.region) if selection.region is not None else -1
    # Tuples, not arrays: each array lane_facts took was reference-counted per lane (the
    # tally 1.5x slower). A tuple's length is part of the compiled signature, so the table is
    # padded to REGION_SLOTS with regions no value lies in: one compile serves every function.
    pad = -len(regions) % REGION_SLOTS
    r_low = tuple(-math.inf if r.low is None else float(r.low) for r in regions) + \
        (math.inf,) * pad
    r_high = tuple(math.inf if r.high is None else float(r.high) for r in regions) + \
        (-math.inf,) * pad
    r_closed = tuple(bool(r.high_closed) for r in regions) + (False,) * pad
    r_abs = tuple(bool(r.on_abs) for r in regions) + (False,) * pad
    # One part a thread this call may use, at most PARTS: a chunk that runs on one thread
    # (the local scheduler's, a chunk per thread) allocated and merged 16 parts' rows for
    # nothing, held Python's lock meanwhile, and so ran slower beside other chunks.
    n, parts = len(regions), max(1, min(PARTS, threads.threads(), x.size))
    bounds = np.array([x.size * k // parts for k in range(parts + 1)], dtype=np.int64)
    classes = _rows(parts, CLASSES)
    hists = np.zeros((parts, 4, BINS), dtype=np.int64)
    added = _rows(parts, 3)
    region_hist = np.zeros((parts, n, BINS), dtype=np.int64)
    region_inputs = _rows(parts, n)
    binades = np.zeros((parts, 256, 5), dtype=np.int64)
    rows = np.zeros((parts, max(worst, 1), 3), dtype=np.int64)
    sums = _rows(parts, 11 + 2 * n)
    sums[:, [2, 5, 7]] = -1
    sums[:, 8] = -(1 << 62)
    sums[:, 12::2] = -1
    distance = np.empty(x.size, dtype=np.int64)
    denormal_lanes = np.empty(x.size, dtype=np.int32)
    sample_lanes = np.empty(x.size, dtype=np.int32)
    listed = _rows(parts, 2)
    threads.parallel_for(
        tally_parts, parts, bounds, np.ascontiguousarray(x, dtype=np.uint32),
        # 16-bit outputs widened: one compiled tally serves every output format
        np.ascontiguousarray(out, dtype=np.uint32),
        np.ascontiguousarray(expected, dtype=np.uint32),
        np.ascontiguousarray(kernel, dtype=np.uint32), f.sign_mask, f.man_mask, f.man_bits,
        out_format == "bf16", low, high, sel_region, r_low, r_high, r_closed, r_abs, classes,
        hists, added, region_hist, region_inputs, binades, rows, sums, distance,
        np.uint64(sample_limit), denormal_lanes, sample_lanes, listed,
        cost=TALLY_COST * max(x.size // parts, 1), lanes_per_item=max(x.size // parts, 1))
    denormal, sample = ([np.concatenate([lanes[bounds[p]:bounds[p] + listed[p, k]] + bounds[p]
                                         for p in range(parts)]).astype(np.int64)
                         for k, lanes in ((0, denormal_lanes), (1, sample_lanes))])
    maxima = [*_MAXIMA, *range(12, 11 + 2 * n, 2)]
    total = sums.sum(axis=0)
    total[maxima] = sums[:, maxima].max(axis=0)
    merged_binades = binades.sum(axis=0)
    merged_binades[:, 3] = binades[:, :, 3].max(axis=0)
    found = [np.column_stack([rows[p, :sums[p, 9], :2], rows[p, :sums[p, 9], 2] + bounds[p]])
             for p in range(parts)] if worst else []
    chosen = top(np.concatenate(found), worst) if found else np.zeros((0, 3), dtype=np.int64)
    lanes = chosen[:, 2]
    p = assemble(int(x.size), classes[:, :CLASSES].sum(axis=0), hists.sum(axis=0),
                 added[:, :3].sum(axis=0), region_hist.sum(axis=0),
                 region_inputs[:, :n].sum(axis=0), merged_binades, total,
                 chosen[:, :2], out[lanes], expected[lanes], kernel[lanes], out_format)
    return p, distance, denormal, sample


def accumulators(regions: int) -> dict:
    """Empty accumulators of one tally (:func:`~.lane_tally._tally`'s arrays, int64): what a
    frame that does not keep per-part rows (the GPU chunk) counts into, and :func:`assemble`
    reads."""
    sums = np.zeros(11 + 2 * regions, dtype=np.int64)
    sums[[2, 5, 7]] = -1
    sums[8] = -(1 << 62)
    sums[12::2] = -1
    return {"classes": np.zeros(CLASSES, dtype=np.int64),
            "hists": np.zeros((4, BINS), dtype=np.int64),
            "added": np.zeros(3, dtype=np.int64),
            "region_hist": np.zeros((regions, BINS), dtype=np.int64),
            "region_inputs": np.zeros(regions, dtype=np.int64),
            "binades": np.zeros((256, 5), dtype=np.int64), "sums": sums}


def assemble(walked: int, classes, hists, added, region_hist, region_inputs, binades, sums,
             worst, worst_out, worst_expected, worst_kernel, out_format: str) -> Partial:
    """The Partial of reduced accumulators (one row each; ``sums`` as :func:`~.lane_tally._tally`
    has it) and the worst lanes (rows: distance, input pattern; best first) with their
    output, expected and kernel patterns."""
    n = region_inputs.size
    worst_rows = np.column_stack([worst[:, 0], worst[:, 1], worst_out.astype(np.int64),
                                  worst_expected.astype(np.int64),
                                  worst_kernel.astype(np.int64),
                                  _kernel_distances(worst_expected, worst_kernel, out_format)])
    return Partial(walked=walked, population=int(sums[0]), classes=np.asarray(classes),
                   device=Stats(hists[0], int(sums[1]), int(sums[2])), both=int(sums[3]),
                   kernel=Stats(hists[1], int(sums[4]), int(sums[5])),
                   device_both=Stats(hists[2], int(sums[6]), int(sums[7])),
                   added=np.asarray(added), added_max=int(sums[8]) if sums[3] else None,
                   added_hist=hists[3],
                   regions=[Stats(region_hist[r].copy(), int(sums[11 + 2 * r]),
                                  int(sums[12 + 2 * r])) for r in range(n)],
                   region_inputs=np.asarray(region_inputs), binades=binades,
                   worst=worst_rows.reshape(-1, 6))


def tally_lanes(job, x, output, expected, kernel, total: int) -> Partial:
    """The Partial of lanes whose expected patterns are known, for a chunk of ``job`` (an
    :class:`~.chunk.Job`): the tally, the denormal inputs' table and the cross-check
    (``total``: the walk's length)."""
    with stage("ulp and tally"):
        partial, distance, denormal, sample = tally_chunk(
            x, output, expected, kernel, job.output_format, job.the_selection(), job.worst,
            regions_for(job.function), cross_check_limit(total))
    with stage("denormals"):
        denormals(partial, output[denormal], expected[denormal])
    with stage("cross-check"):
        cross_check(partial, output[sample], expected[sample], distance[sample],
                    job.output_format)
    return partial


def denormals(partial: Partial, output, expected) -> None:
    """Denormal inputs walked, from their lanes' output and expected patterns (the lanes a
    tally lists): how many, how many give the expected pattern, which outputs (the smallest
    :data:`DENORMAL_OUTPUTS` patterns counted, the rest summed)."""
    values, counts = np.unique(output, return_counts=True)
    partial.denormal_inputs = int(output.size)
    partial.denormal_match = int((output == expected).sum())
    partial.denormal_outputs = {int(v): int(c) for v, c in zip(values[:DENORMAL_OUTPUTS],
                                                               counts[:DENORMAL_OUTPUTS])}
    partial.denormal_other = int(counts[DENORMAL_OUTPUTS:].sum())
    partial.denormal_expected = tuple(int(v) for v in np.unique(expected))


def cross_check(partial: Partial, output, expected, distance, out_fmt: str) -> None:
    """The compiled distance against ulp.py's two index methods on the cross-check's sample
    (the lanes a tally lists: :func:`~.lane_tally.in_cross_sample`, about
    :data:`CROSS_SAMPLE` lanes of the whole walk)."""
    if not output.size:
        return
    bitwise = np.abs(ulp.index(expected, out_fmt) - ulp.index(output, out_fmt))
    search = np.abs(ulp.index_by_search(expected, out_fmt) -
                    ulp.index_by_search(output, out_fmt))
    partial.cross_pairs = int(output.size)
    partial.cross_agree = int(((bitwise == distance) & (search == bitwise)).sum())


def cross_check_limit(total: int) -> int:
    """The hash bound below which a lane is in :func:`cross_check`'s sample (about
    :data:`CROSS_SAMPLE` lanes of a walk of ``total``)."""
    return (1 << 32) // max(1, total // CROSS_SAMPLE)


def _kernel_distances(expected, kernel, out_format: str) -> np.ndarray:
    """daz-index distance of the kernel's FP32 result rounded to nearest (and flushed) from
    the reference, -1 where unmeasured (the BF16 sweep's ``kernel_ulp``)."""
    ideal = formats.fp32_to_bf16_rne(kernel) if out_format == "bf16" else kernel
    ideal = formats.ftz(ideal, formats.FORMATS[out_format])
    result = ulp.distance(expected, ideal, "daz-index", out_format)
    return np.where(result.counted, result.distance, -1).astype(np.int64)
