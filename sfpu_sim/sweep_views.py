"""Views of a BF16 sweep's measured lanes: ULP statistics, per region, per binade of |x|, and
over the inputs where the function is not its own leading term.

Owns: the statistics rows a sweep summary holds for a subset of its lanes
(:func:`describe_stats`), the regions and binades tables, and the leading-term population
(:func:`leading_term_view`). Knows nothing of kernels or formatting: lanes in, JSON-ready rows
out (:mod:`sfpu_sim.sweeps` calls it; FP32 sweeps tally their own, :mod:`sfpu_sim.fp32sweep`).
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats, reference
from sfpu_sim.reference.leading_terms import leading_term


def _percentiles(values: np.ndarray, quantiles: tuple[int, ...]) -> list:
    """``np.percentile(values, q, method="higher")`` for each q: the value of rank
    ceil((n - 1) q/100), with numpy's own float arithmetic for the rank. Integer distances of a
    modest range are counted (one bincount, no partition per q: 2 ms -> 0.1 ms on 65,536
    lanes); anything else is partitioned once for all ranks."""
    if values.size == 0:
        return [None] * len(quantiles)
    if not np.issubdtype(values.dtype, np.integer):
        return [np.percentile(values, q, method="higher").item() for q in quantiles]
    n = values.size
    ranks = np.ceil((n - 1) * np.true_divide(quantiles, 100)).astype(np.intp)
    low, high = int(values.min()), int(values.max())
    if low >= 0 and high < 4 * n + 1024:
        cumulative = np.cumsum(np.bincount(values, minlength=high + 1))
        found = np.searchsorted(cumulative, ranks + 1)
        return [values.dtype.type(v).item() for v in found]
    ordered = np.partition(values, ranks)
    return [ordered[k].item() for k in ranks]


def describe_stats(distance: np.ndarray) -> dict:
    """max / mean / p95 / p99 / exact / within-1 / within-2 over measured distances."""
    n = int(distance.size)
    out = {"measured": n, "max": None, "mean": None, "p95": None, "p99": None,
           "exact_count": 0, "exact_frac": None, "within_1_count": 0, "within_2_count": 0}
    if n:
        p95, p99 = _percentiles(distance, (95, 99))
        out.update(max=distance.max().item(), mean=float(distance.astype(np.float64).mean()),
                   p95=p95, p99=p99,
                   exact_count=int((distance == 0).sum()),
                   exact_frac=float((distance == 0).mean()),
                   within_1_count=int((distance <= 1).sum()),
                   within_2_count=int((distance <= 2).sum()))
    return out


def regions(x: np.ndarray, distance: np.ndarray, counted: np.ndarray, chosen) -> list[dict]:
    """One row per region of ``chosen`` (:class:`sfpu_sim.selection.Region`)."""
    out = []
    for region in chosen:
        inside = region.mask(x)
        stats = describe_stats(distance[inside & counted])
        out.append({"region": region.name, "low": region.low, "high": region.high,
                    "text": region.text, "inputs": int(inside.sum()), **stats})
    return out


def binades(x_bits: np.ndarray, distance: np.ndarray, counted: np.ndarray,
            in_fmt: str = "bf16") -> list[dict]:
    """Per binade of |x| (the input format's exponent field), both signs together; +0 is its
    own row. Binades without an input selected have no row. Max, mean and exact fraction
    as :func:`describe_stats` gives them, grouped in one pass (a sweep has up to 256 rows)."""
    fmt = formats.FORMATS[in_fmt]
    bias = fmt.exp_max >> 1
    if not np.issubdtype(distance.dtype, np.integer):        # fractional ULPs: as they were
        return _binades_one_by_one(x_bits, distance, counted, fmt, bias)
    field = fmt.exponent(x_bits).astype(np.intp)
    exponents = np.flatnonzero(np.bincount(field, minlength=fmt.exp_max + 1))
    rows = len(exponents)
    row = np.zeros(fmt.exp_max + 1, dtype=np.intp)
    row[exponents] = np.arange(rows)
    row = row[field]                                        # each lane's row
    inputs = np.bincount(row, minlength=rows)
    measured, at = distance[counted], row[counted]
    count = np.bincount(at, minlength=rows)
    total = np.zeros(rows, dtype=np.int64)
    np.add.at(total, at, measured.astype(np.int64))
    top = np.full(rows, -1, dtype=np.int64)
    np.maximum.at(top, at, measured.astype(np.int64))
    exact = np.bincount(at[measured == 0], minlength=rows)
    # Python numbers for the rows (integers below 2**53: each quotient is float64's)
    return [_binade_row(e, bias, inputs_k, {"max": top_k if n else None,
                                            "mean": total_k / n if n else None,
                                            "exact_frac": exact_k / n if n else None})
            for e, inputs_k, n, top_k, total_k, exact_k in zip(
                exponents.tolist(), inputs.tolist(), count.tolist(), top.tolist(),
                total.tolist(), exact.tolist())]


def _binade_row(e: int, bias: int, inputs: int, stats: dict) -> dict:
    label = "0" if e == 0 else f"[2^{e - bias}, 2^{e - bias + 1})"
    return {"binade": label, "exponent": e - bias if e else None, "inputs": inputs,
            "max": stats["max"], "mean": stats["mean"], "exact_frac": stats["exact_frac"]}


def _binades_one_by_one(x_bits, distance, counted, fmt, bias) -> list[dict]:
    """:func:`binades` for fractional distances (float sums depend on their order, so each
    binade's statistics come from :func:`describe_stats`, as the published figures did)."""
    exponent = fmt.exponent(x_bits).astype(np.int64)
    out = []
    for e in np.unique(exponent).tolist():
        inside = exponent == e
        out.append(_binade_row(e, bias, int(inside.sum()),
                               describe_stats(distance[inside & counted])))
    return out


def leading_term_view(function: str, x_bits: np.ndarray, expected_bits: np.ndarray,
                      distance: np.ndarray, counted: np.ndarray, policy: str,
                      input_format: str, output_format: str) -> dict | None:
    """The measured inputs where the correctly rounded result differs from the correctly
    rounded leading term of the function's series (``tan``: round(tan x) != x), rounded by the
    reference machinery under the sweep's ``policy`` (DAZ inputs, FTZ outputs, as the
    reference); None for a function without a meaningful leading term
    (:mod:`sfpu_sim.reference.leading_terms`). ``leading_term_results``: measured inputs where
    the term is the result (0: the term never is, and the view shows nothing)."""
    term = leading_term(function)
    if term is None:
        return None
    rounded = reference.reference(term.reference_function(), x_bits, policy,
                                  input_format=input_format, output_format=output_format,
                                  daz=True, ftz=True)
    differs = rounded.bits != expected_bits
    stats = describe_stats(distance[differs & counted])
    return {"term": term.term, "point": term.point, "series": term.series,
            "leading_term_results": int((~differs & counted).sum()), **stats}
