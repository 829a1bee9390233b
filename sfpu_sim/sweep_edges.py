"""The edges of a 16-bit sweep's summary: its denormal inputs, its special inputs (+-0, +-Inf,
NaNs) lane by lane, and the daz-index cross-check computed two ways. Used by
:mod:`sfpu_sim.sweeps`; knows nothing of kernels or of how the lanes were run (``run``: any
object with ``output`` patterns)."""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats, ulp
from sfpu_sim.jsonio import json_number

SPECIAL_INPUTS = {
    "bf16": {"+0": 0x0000, "-0": 0x8000, "+inf": 0x7F80, "-inf": 0xFF80, "nan": 0x7FC0,
             "-nan": 0xFFC0, "snan": 0x7F81},
    # IEEE patterns as the host writes them; to the SFPU, exponent 31 is a finite binade.
    "fp16": {"+0": 0x0000, "-0": 0x8000, "+inf": 0x7C00, "-inf": 0xFC00, "nan": 0x7E00,
             "-nan": 0xFE00, "snan": 0x7C01}}


def _value(bits: int, fmt: str):
    return json_number(formats.bits_to_float64(bits, fmt))


def denormal_lanes(inputs, run, ref, in_fmt: str, out_fmt: str) -> dict:
    """The denormal inputs (254 BF16, 2,046 FP16): under DAZ the device reads them as signed
    zero, so their expected outputs are the (flushed) references of +-0."""
    denormal = formats.is_denormal(inputs, formats.FORMATS[in_fmt])
    out, expected = run.output[denormal], ref.bits[denormal]
    values, counts = np.unique(out, return_counts=True)
    width = 10 if out_fmt == "fp32" else 6          # patterns of the output format, both lists
    return {"inputs": int(denormal.sum()), "match_expected": int((out == expected).sum()),
            "expected_outputs": sorted({f"{int(v):#0{width}x}" for v in np.unique(expected)}),
            "outputs": {f"{int(v):#0{width}x}": int(c) for v, c in zip(values, counts)}}


def special_lanes(run, ref, result, in_fmt: str, out_fmt: str) -> list[dict]:
    """+-0, +-Inf and NaNs: output against the reference, bit for bit and under the ULP
    convention (``ulp`` is None where the lane is unmeasurable: NaN on either side, or a
    finite-against-infinite mismatch)."""
    width = 10 if out_fmt == "fp32" else 6
    out = []
    for name, bits in SPECIAL_INPUTS[in_fmt].items():
        actual, expected = int(run.output[bits]), int(ref.bits[bits])
        lane_class = ulp.LaneClass(int(result.lane_class[bits]))
        counted = bool(result.counted[bits])
        out.append({"input": name, "input_bits": f"{bits:#06x}",
                    "output_bits": f"{actual:#0{width}x}", "output": _value(actual, out_fmt),
                    "expected_bits": f"{expected:#0{width}x}",
                    "expected": _value(expected, out_fmt),
                    "bit_exact": actual == expected,
                    "ulp": (result.distance[bits].item()) if counted else None,
                    "lane_class": lane_class.name.lower()})
    return out


def cross_verification(expected_bits, actual_bits, out_fmt: str, flush=None) -> dict:
    """daz-index computed two independent ways (bitwise formula, sorted-value search) on every
    measured pair, as Tenstorrent's tanh report cross-checks its two ULP calculators."""
    flush = {"flush_subnormals": flush}
    a = ulp.index(expected_bits, out_fmt, **flush), ulp.index(actual_bits, out_fmt, **flush)
    b = (ulp.index_by_search(expected_bits, out_fmt, **flush),
         ulp.index_by_search(actual_bits, out_fmt, **flush))
    valid = (a[0] != ulp.NAN_INDEX) & (a[1] != ulp.NAN_INDEX)
    bitwise = np.abs(a[0] - a[1])[valid]
    search = np.abs(b[0] - b[1])[valid]
    return {"pairs": int(valid.sum()), "agree": int((bitwise == search).sum()),
            "methods": ["bitwise formula: sign * max(|magnitude bits| - mantissa mask, 0) "
                        "plus the largest rank (subnormals collapsed) or sign * magnitude",
                        "sorted list of all distinguishable values, binary search"]}
