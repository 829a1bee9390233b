"""The BF16 GELU study's scoring convention, exactly as its code does it, and its two references.

Owns: the study's input set, its reference (the cancelling double formula), the correctly
rounded alternative, and the statistics of its analysis (github.com/ivoitovych/
bf16_gelu_research at 90e9ff1, 2025-12-27, ``gelu_implementations.cpp``: ``UlpCalculator``,
``UlpStats``, ``RegionStats``). Knows nothing of the methods or of the SFPU: it scores output
patterns against reference patterns.

* Inputs: BF16 patterns 0..65535 in order, skipping exponent 0xFF (65,280; denormals and both
  zeros included).
* ``study`` reference: ``x * (0.5 * (1.0 + erf(x * 0.7071067811865476)))`` in double with the C
  library's ``erf`` (Python's ``math.erf`` is libm's), then double -> float -> BF16, each
  rounding to nearest even. ``1 + erf(x/sqrt 2)`` cancels: it is exactly 0 for x <= -8.375.
* ``correct`` reference: GELU correctly rounded to BF16 (:mod:`sfpu_sim.reference`, no DAZ on
  the inputs, no flush of the outputs: the study scores denormals as values).
* ULP: distance of indices in the sorted list of finite BF16 values, +0 and -0 sharing one
  index (denormals are values); non-finite outputs are skipped.
* Percentiles: 1000-bin histogram of distances (0..999; larger ones count but fall in no bin),
  the first bin whose cumulative count reaches ``int(n * p / 100)`` (999 if none).
* Worst input: the first maximum in bit-pattern order.
* Regions, an if/else chain: ``|x| < 0.5`` near_zero; else ``x >= 3`` tail_pos; else ``x < -3``
  tail_neg; else ``x >= 0.5`` core_pos; else core_neg (so x = -0.5 is core_neg).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sfpu_sim import formats, reference, ulp
from sfpu_sim.errors import SfpuSimError

__all__ = ["INPUTS", "REFERENCES", "REGIONS", "Score", "score", "study_reference",
           "correct_reference", "reference_bits", "input_values", "UnknownReference"]

REFERENCES = {
    "study": "the study's double formula x*(0.5*(1+erf(x/sqrt 2))) with libm erf, "
             "double -> float -> BF16 (RNE); cancels to 0 for x <= -8.375",
    "correct": "GELU correctly rounded to BF16 (RNE, denormals kept)",
}
REGIONS = ("near_zero", "core_pos", "core_neg", "tail_pos", "tail_neg")
HISTOGRAM_BINS = 1000
INV_SQRT2 = 0.7071067811865476          # the study's constexpr double 1/sqrt(2)

_all = np.arange(1 << 16, dtype=np.uint32)
INPUTS = _all[(_all & 0x7F80) != 0x7F80].astype(np.uint16)      # 65,280 patterns, in order
INPUTS.setflags(write=False)


class UnknownReference(SfpuSimError):
    pass


def input_values(bits) -> np.ndarray:
    """BF16 patterns as float64 (exact)."""
    return formats.bits_to_fp32(formats.bf16_to_fp32_bits(np.asarray(bits))).astype(np.float64)


def study_reference(bits) -> tuple[np.ndarray, np.ndarray]:
    """The study's reference at BF16 inputs: (BF16 patterns, the double values before the
    casts)."""
    x = input_values(bits)
    erf = np.array([math.erf(v) for v in (x * INV_SQRT2).tolist()], dtype=np.float64)
    value = x * (0.5 * (1.0 + erf))
    with np.errstate(over="ignore"):
        single = value.astype(np.float32)
    return formats.fp32_to_bf16_rne(formats.fp32_to_bits(single)), value


def correct_reference(bits) -> tuple[np.ndarray, np.ndarray]:
    """GELU correctly rounded to BF16 at BF16 inputs: (patterns, value rounded to double)."""
    result = reference.reference("gelu", np.asarray(bits, dtype=np.uint16), "rne", daz=False,
                                 ftz=False)
    return result.bits, result.value


def reference_bits(name: str, bits=INPUTS) -> tuple[np.ndarray, np.ndarray]:
    """``(patterns, double values)`` of the named reference (``study`` or ``correct``)."""
    if name == "study":
        return study_reference(bits)
    if name == "correct":
        return correct_reference(bits)
    raise UnknownReference(f"unknown reference {name!r} (choose from: {', '.join(REFERENCES)})")


def region_of(x: np.ndarray) -> np.ndarray:
    """Region index (into REGIONS) of each input value, by the study's chain."""
    return np.select([np.abs(x) < 0.5, x >= 3.0, x < -3.0, x >= 0.5], [0, 3, 4, 1], 2)


@dataclass
class Score:
    """The study's statistics of one method against one reference. ``worst_input`` is a BF16
    pattern; ``regions`` maps a region to ``{count, max_ulp, mean_ulp, worst_input}``."""
    count: int
    mean_ulp: float
    max_ulp: int
    worst_input: int
    p50: int
    p90: int
    p99: int
    regions: dict
    distance: np.ndarray = field(repr=False)     # per input (-1: skipped)

    def as_dict(self) -> dict:
        return {"count": self.count, "mean_ulp": self.mean_ulp, "max_ulp": self.max_ulp,
                "worst_input": f"{self.worst_input:#06x}",
                "worst_input_value": float(input_values(self.worst_input)),
                "p50": self.p50, "p90": self.p90, "p99": self.p99,
                "regions": {name: {**r, "worst_input": (None if r["worst_input"] is None else
                                                        f"{r['worst_input']:#06x}")}
                            for name, r in self.regions.items()}}


def _percentile(histogram: np.ndarray, count: int, p: float) -> int:
    """The study's ``get_percentile``: the first bin whose cumulative count reaches
    ``int(count * p / 100)``."""
    if count == 0:
        return 0
    target = int(count * p / 100.0)
    reached = np.flatnonzero(np.cumsum(histogram) >= target)
    return int(reached[0]) if reached.size else HISTOGRAM_BINS - 1


def _worst(distance: np.ndarray, inputs: np.ndarray, counted: np.ndarray):
    if not counted.any():
        return 0, None
    masked = np.where(counted, distance, -1)
    k = int(np.argmax(masked))                  # the first maximum, in input order
    return int(masked[k]), int(inputs[k])


def score(outputs, references, inputs=INPUTS) -> Score:
    """Score BF16 ``outputs`` against BF16 ``references`` (patterns, lane for lane with
    ``inputs``) under the study's convention; the worst input is the first maximum in the
    order of ``inputs`` (bit-pattern order for the study's input set)."""
    outputs, references = np.asarray(outputs), np.asarray(references)
    inputs = np.asarray(inputs, dtype=np.uint16)
    counted = formats.is_finite(outputs.astype(np.uint16), formats.BF16) & \
        formats.is_finite(references.astype(np.uint16), formats.BF16)
    a = ulp.index(outputs, "bf16", flush_subnormals=False)
    b = ulp.index(references, "bf16", flush_subnormals=False)
    distance = np.where(counted, np.abs(a - b), -1)
    measured = distance[counted]
    count = int(measured.size)
    histogram = np.bincount(measured[measured < HISTOGRAM_BINS], minlength=HISTOGRAM_BINS)
    max_ulp, worst = _worst(distance, inputs, counted)
    regions = {}
    where = region_of(input_values(inputs))
    for k, name in enumerate(REGIONS):
        inside = counted & (where == k)
        region_max, region_worst = _worst(distance, inputs, inside)
        n = int(inside.sum())
        regions[name] = {"count": n, "max_ulp": region_max if n else 0,
                         "mean_ulp": float(distance[inside].sum()) / n if n else 0.0,
                         "worst_input": region_worst}
    return Score(count=count, mean_ulp=float(measured.sum()) / count if count else 0.0,
                 max_ulp=max_ulp if count else 0, worst_input=worst if worst is not None else 0,
                 p50=_percentile(histogram, count, 50), p90=_percentile(histogram, count, 90),
                 p99=_percentile(histogram, count, 99), regions=regions, distance=distance)
