"""Which input patterns a sweep runs, in which order: every FP32 pattern (or every pattern in a
range), Tenstorrent's strided walk of the FP32 value order, or every BF16 pattern.

Owns: the walk of a sweep: its length, the patterns at positions ``start..stop`` (so any
chunking covers the same inputs), its JSON form and its text. Knows nothing of kernels,
references or statistics.

``Exhaustive``: all 2**32 patterns in bit order (NaNs, infinities, both zeros and the
denormals included: a sweep counts only the normals and +0, as the BF16 sweeps do, and reports
the rest apart), or with a range ``[LO, HI]`` every pattern whose value lies in it.

``Bf16Patterns``: the 65,536 BF16 patterns, each as the FP32 pattern of its value: a BF16
sweep's inputs through the same pipeline (its device path and reference take BF16 patterns).

``Strided``: Tenstorrent's strided FP32 sweep (tenstorrent/tt-metal,
``tt_metal/tt-llk/tests/python_tests/helpers/stimuli_generator/strategies/structured.py``,
``_enumerate_fp32_in_range``, commit 0764989; used by ``helpers/ulp_sweep.py`` with
``_FP32_STRIDE = 2**16``, commit 4608514). It walks the total-order key of FP32 (``bits`` for
a positive pattern, ``-2**31 - bits`` read as a signed int32 for a negative one, so -0 and +0
share key 0) from the key of LO to the key of HI (default -inf to +inf), takes one sample from
each run of N consecutive keys, and places sample i at ``max((i * s) mod N, 1)`` inside its run,
``s = int(N * (sqrt(5) - 1)/2) | 1`` (a golden-ratio phase, so a power-of-two stride does not
land on BF16 values only); a sample past HI is dropped, and so are +-inf (structured.py's
``_enumerate_representable`` keeps finite values only). With N = 2**16 over the whole line that
is 65,280 samples, the figure ulp_sweep.py states. With N = 1 it is every finite value once
(-0 shares +0's key and is left out). Tenstorrent cuts a walk longer than one device run
(2**16 values) into runs whose sample index restarts at 0; here a walk is one sequence, so the
two agree exactly whenever the walk fits one run (stride 2**16 over the whole line does). The
range is exact: LO and HI become the nearest FP32 values inside ``[LO, HI]``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sfpu_sim import jit
from sfpu_sim.errors import SfpuSimError

PATTERNS = 1 << 32
BF16_PATTERNS = 1 << 16
INT_MIN = -(1 << 31)
TT_STRIDE = 1 << 16                     # ulp_sweep.py's _FP32_STRIDE
PHASE = (math.sqrt(5) - 1) / 2          # structured.py's _CELL_PHASE_STEP
KEY_MAX_FINITE = 0x7F7FFFFF             # key of the largest finite value; -inf's is -this - 1


class WalkError(SfpuSimError):
    pass


def _key(bits: int) -> int:
    signed = bits - (1 << 32) if bits >= 1 << 31 else bits
    return signed if signed >= 0 else INT_MIN - signed


@jit.njit(nogil=True)
def _walk(first, i0, stride, phased, as_bits, out):
    """Samples ``i0 .. i0 + len(out)`` of a walk from key ``first``: sample ``i`` at key
    ``first + i * stride``, plus ``max((i * s) mod stride, 1)`` when ``phased`` (the strided
    walk's golden-ratio phase, module docstring), as that key, or (``as_bits``) as its FP32
    pattern (a negative key ``k`` is the pattern of ``-2**31 - k``, taken modulo 2**32).
    Compiled: the same in numpy took eight passes, 7-14 ms of a 2**20-input chunk."""
    step = np.int64(stride * PHASE) | 1
    for j in range(out.shape[0]):
        i = i0 + j
        key = first + i * stride
        if phased:
            key += max((i * step) % stride, 1)
        out[j] = (INT_MIN - key if key < 0 else key) if as_bits else key


def stride_patterns(first: int, start: int, count: int, stride: int,
                    phased: bool = True) -> np.ndarray:
    """The FP32 patterns of samples ``start .. start + count`` of a walk through the total-order
    key from key ``first``, one in ``stride`` (:func:`_walk`; ``phased`` only for stride > 1),
    uint32."""
    out = np.empty(count, dtype=np.uint32)
    _walk(first, start, stride, phased and stride > 1, True, out)
    return out


def _fp32_at_least(value: float) -> int:
    """Bits of the smallest FP32 value >= ``value`` (``-inf`` allowed; +0 for 0)."""
    f = np.float32(value)
    if float(f) < value:
        f = np.nextafter(f, np.float32(np.inf))
    bits = int(np.array(f, dtype=np.float32).view(np.uint32))
    return 0 if bits == 0x80000000 else bits


def _fp32_at_most(value: float) -> int:
    f = np.float32(value)
    if float(f) > value:
        f = np.nextafter(f, np.float32(-np.inf))
    bits = int(np.array(f, dtype=np.float32).view(np.uint32))
    return 0 if bits == 0x80000000 else bits


def _check_range(value_range):
    if value_range is None:
        return None
    low, high = (float(v) for v in value_range)
    if math.isnan(low) or math.isnan(high) or low > high:
        raise WalkError(f"range {value_range!r}: need LO <= HI, neither NaN")
    if _key(_fp32_at_least(low)) > _key(_fp32_at_most(high)):
        raise WalkError(f"range [{low!r}, {high!r}] holds no FP32 value")
    return low, high


@dataclass(frozen=True)
class Exhaustive:
    """Every FP32 pattern, or every pattern whose value lies in ``value_range``."""
    value_range: tuple[float, float] | None = None
    input_format = "fp32"

    def __post_init__(self):
        object.__setattr__(self, "value_range", _check_range(self.value_range))

    def _spans(self) -> list[tuple[int, int]]:
        """Half-open bit-pattern intervals, in bit order."""
        if self.value_range is None:
            return [(0, PATTERNS)]
        low, high = self.value_range
        spans = []
        if high >= 0:                                   # +0 .. +HI (positive sign bit clear)
            first = 0 if low <= 0 else _fp32_at_least(low)
            spans.append((first, _fp32_at_most(high) + 1))
        if low <= 0:                    # -0 .. -|LO|, magnitudes from |HI| (if HI < 0) to |LO|
            first = 0x80000000 if high >= 0 else 0x80000000 | _fp32_at_least(-high)
            spans.append((first, (0x80000000 | _fp32_at_most(-low)) + 1))
        return [(a, b) for a, b in spans if b > a]

    def __len__(self) -> int:
        return sum(b - a for a, b in self._spans())

    def patterns(self, start: int, stop: int) -> np.ndarray:
        out, offset = [], 0
        for a, b in self._spans():
            lo, hi = max(start - offset, 0), min(stop - offset, b - a)
            if hi > lo:
                out.append(np.arange(a + lo, a + hi, dtype=np.uint32))
            offset += b - a
        return np.concatenate(out) if out else np.zeros(0, dtype=np.uint32)

    def as_dict(self) -> dict:
        return {"kind": "exhaustive", "stride": 1,
                "range": list(self.value_range) if self.value_range else None,
                "patterns": len(self), "text": self.text}

    @property
    def text(self) -> str:
        where = ("every FP32 pattern" if self.value_range is None else
                 f"every FP32 pattern with value in [{self.value_range[0]!r}, "
                 f"{self.value_range[1]!r}]")
        return f"{where}: {len(self):,} inputs"


@dataclass(frozen=True)
class Strided:
    """Tenstorrent's strided walk of the FP32 value order (module docstring)."""
    stride: int = TT_STRIDE
    value_range: tuple[float, float] | None = None
    input_format = "fp32"

    def __post_init__(self):
        if isinstance(self.stride, bool) or not isinstance(self.stride, int) or \
                not 1 <= self.stride < PATTERNS:
            raise WalkError(f"--stride {self.stride!r}: give a whole number from 1 to "
                            f"{PATTERNS - 1:,}")
        object.__setattr__(self, "value_range", _check_range(self.value_range))

    def _keys(self) -> tuple[int, int]:
        """Key of the walk's start, and of its last finite value (the walk drops +-inf)."""
        low, high = self.value_range or (-math.inf, math.inf)
        return _key(_fp32_at_least(low)), min(_key(_fp32_at_most(high)), KEY_MAX_FINITE)

    def _key_at(self, index: int) -> int:
        key = np.empty(1, dtype=np.int64)
        _walk(self._keys()[0], index, self.stride, self.stride > 1, False, key)
        return int(key[0])

    def _indices(self) -> tuple[int, int]:
        """Sample indices ``[i0, i1)`` the walk keeps: keys increase strictly with the index,
        so the kept ones are a run; only sample 0 at stride 1 can be -inf."""
        first, last = self._keys()
        if last < first:
            return 0, 0
        count = (last - first) // self.stride + 1
        count -= int(self._key_at(count - 1) > last)
        return int(self.stride == 1 and first == -KEY_MAX_FINITE - 1), count

    def __len__(self) -> int:
        i0, i1 = self._indices()
        return max(i1 - i0, 0)

    def patterns(self, start: int, stop: int) -> np.ndarray:
        i0, _ = self._indices()
        stop = min(stop, len(self))
        if stop <= start:
            return np.zeros(0, dtype=np.uint32)
        return stride_patterns(self._keys()[0], i0 + start, stop - start, self.stride)

    def as_dict(self) -> dict:
        return {"kind": "strided", "stride": self.stride,
                "range": list(self.value_range) if self.value_range else None,
                "patterns": len(self), "text": self.text}

    @property
    def text(self) -> str:
        where = ("" if self.value_range is None else
                 f" in [{self.value_range[0]!r}, {self.value_range[1]!r}]")
        return (f"Tenstorrent's strided FP32 walk{where}, one value in {self.stride:,}: "
                f"{len(self):,} inputs")


def bf16_patterns(x) -> np.ndarray:
    """The BF16 patterns of FP32 patterns whose low half is zero (:class:`Bf16Patterns`')."""
    return (np.asarray(x, dtype=np.uint32) >> np.uint32(16)).astype(np.uint16)


@dataclass(frozen=True)
class Bf16Patterns:
    """Every BF16 pattern, in BF16 bit order, as the FP32 pattern of its value (the low half
    zero): a BF16 sweep's 65,536 inputs as this pipeline streams them. The tally's
    population, selection, regions and binades read the FP32 pattern and find the BF16 ones
    (widening keeps the sign, the exponent field and the value); the device path and the
    reference take the BF16 pattern (``patterns >> 16``, :attr:`input_format`)."""
    input_format = "bf16"
    value_range = None

    def __len__(self) -> int:
        return BF16_PATTERNS

    def patterns(self, start: int, stop: int) -> np.ndarray:
        stop = min(stop, BF16_PATTERNS)
        return np.arange(start, max(stop, start), dtype=np.uint32) << np.uint32(16)

    def as_dict(self) -> dict:
        return {"kind": "bf16", "stride": 1, "range": None, "patterns": len(self),
                "text": self.text}

    @property
    def text(self) -> str:
        return f"every BF16 pattern: {BF16_PATTERNS:,} inputs"


def from_options(stride: int | None, exhaustive: bool, value_range=None):
    """The walk the command-line options ask for (default: Tenstorrent's stride 2**16)."""
    if exhaustive and stride is not None:
        raise WalkError("--exhaustive runs every pattern: give it without --stride")
    if exhaustive:
        return Exhaustive(value_range)
    return Strided(TT_STRIDE if stride is None else stride, value_range)


def from_dict(data: dict):
    if data["kind"] == "bf16":
        return Bf16Patterns()
    value_range = tuple(data["range"]) if data.get("range") else None
    if data["kind"] == "exhaustive":
        return Exhaustive(value_range)
    return Strided(int(data["stride"]), value_range)
