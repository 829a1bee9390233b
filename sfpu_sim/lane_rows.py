"""Per-lane results of a sweep, as comparisons and diffs read them: input pattern, output
pattern, ULP distance and whether the lane was measured, for every input of the population.

Owns: building that record from a sweep's arrays, saving it inside a JSON summary (``sweep
--json`` writes it, compressed: zlib + base64 of little-endian arrays) and reading it back,
and the lane-by-lane comparison of two records (identical, better, worse, the largest
regressions). Knows nothing of kernels or formatting.
"""
from __future__ import annotations

import base64
import zlib
from dataclasses import dataclass

import numpy as np

from sfpu_sim.errors import SfpuSimError

ENCODING = "zlib+base64, little-endian"
_DTYPES = {"x_bits": "<u2", "output": "<u4", "distance": "<f8", "counted": "|b1"}


class LanesError(SfpuSimError):
    pass


@dataclass
class Lanes:
    """One sweep lane by lane (arrays of equal length, sorted by input pattern)."""
    x_bits: np.ndarray
    output: np.ndarray
    distance: np.ndarray
    counted: np.ndarray

    @classmethod
    def from_arrays(cls, arrays: dict) -> "Lanes":
        order = np.argsort(arrays["x_bits"], kind="stable")
        return cls(arrays["x_bits"][order].astype(np.uint16),
                   arrays["actual"][order].astype(np.uint32),
                   arrays["distance"][order].astype(np.float64),
                   arrays["counted"][order].astype(bool))

    def encode(self) -> dict:
        """The JSON form (``summary["lanes"]``)."""
        data = {"encoding": ENCODING, "count": int(self.x_bits.size)}
        for name, dtype in _DTYPES.items():
            raw = np.ascontiguousarray(getattr(self, name).astype(dtype)).tobytes()
            data[name] = base64.b64encode(zlib.compress(raw, 9)).decode("ascii")
        return data

    @classmethod
    def decode(cls, data: dict, source: str = "summary") -> "Lanes":
        if data.get("encoding") != ENCODING:
            raise LanesError(f"{source}: lanes encoded as {data.get('encoding')!r}, expected "
                             f"{ENCODING!r}")
        try:
            arrays = {name: np.frombuffer(zlib.decompress(base64.b64decode(data[name])),
                                          dtype=dtype)
                      for name, dtype in _DTYPES.items()}
        except (KeyError, ValueError, zlib.error) as error:
            raise LanesError(f"{source}: damaged per-lane record ({error})") from None
        if any(a.size != data["count"] for a in arrays.values()):
            raise LanesError(f"{source}: damaged per-lane record (lengths differ)")
        return cls(*(arrays[name] for name in _DTYPES))


def compare(before: Lanes, after: Lanes, largest: int = 10) -> dict:
    """Lane by lane, ``after`` against ``before`` over the inputs both measured: bit-identical
    outputs, lanes better (smaller distance), worse, equal (same distance, other bits), and the
    largest regressions (input, both outputs and distances), worst first."""
    common, a, b = np.intersect1d(before.x_bits, after.x_bits, return_indices=True)
    both = before.counted[a] & after.counted[b]
    a, b, common = a[both], b[both], common[both]
    d0, d1 = before.distance[a], after.distance[b]
    identical = before.output[a] == after.output[b]
    increase = d1 - d0
    order = np.argsort(-increase, kind="stable")
    regressions = [{"input_bits": f"{int(common[k]):#06x}",
                    "before_bits": f"{int(before.output[a[k]]):#x}",
                    "before_ulp": _number(d0[k]),
                    "after_bits": f"{int(after.output[b[k]]):#x}",
                    "after_ulp": _number(d1[k])}
                   for k in order[:largest] if increase[k] > 0]
    return {"compared": int(common.size), "identical": int(identical.sum()),
            "better": int((increase < 0).sum()), "worse": int((increase > 0).sum()),
            "equal": int(((increase == 0) & ~identical).sum()),
            "largest_regressions": regressions}


def _number(value: float):
    return int(value) if float(value).is_integer() else float(value)
