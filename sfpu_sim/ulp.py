"""ULP distances between a reference and a result, under named, selectable conventions.

Owns: the value-order index of BF16, FP16 and FP32 patterns (two independent computations of
it), the distance conventions users meet in the field (each below names its source), the class
of each lane (measurable, NaN, non-finite mismatch) and the input populations reports count
over. Knows nothing of kernels or reports; it reads references through :class:`~sfpu_sim.reference.
ReferenceResult` when handed one.

Conventions (``CONVENTIONS``):

``daz-index`` (default)
    Integer distance between value-order indices. The index is a signed rank of the magnitude:
    ``sign * max(magnitude_bits - (2**mantissa_bits - 1), 0)`` with the subnormal band
    collapsed (DAZ/FTZ: the whole exponent-0 band ranks 0 and is compacted out, so the smallest
    normal is one step from zero and +0, -0 and every denormal are one point), offset so that
    the most negative finite value has index 0. For BF16: ``0xFF7F -> 0``, ``0x8080 -> 32,511``,
    ``0 -> 32,512``, ``0x0080 -> 32,513``, ``0x7F7F -> 65,024``. On finite values this is the
    index of Tenstorrent's tanh report (C3, ``bf16_value_order_index_daz`` of
    ``test_tanh_ulp_diagnostic.py``) and, up to the constant offset, the rank of tt-llk's
    ``helpers/ulp.py`` (C4; tenstorrent/tt-metal ``tt_metal/tt-llk/tests/python_tests/helpers/
    ulp.py``, 2026-09), so distances agree with both. ``+-Inf`` rank one past the largest finite
    (C4's choice; the tanh report instead calls -Inf unmeasurable). NaN has no index: its lanes
    are unmeasurable. The collapse defaults per format as in C4: on for BF16 and FP32, **off for
    FP16**, whose LLK datapath keeps subnormals (``flush_subnormals=`` overrides).
``daz-index-legacy-129`` (BF16 only)
    The other function called ``ulp_distance_bf16_daz`` (tenstorrent/tt-metal
    ``tests/ttnn/unit_tests/operations/eltwise/eltwise_test_utils.py``, and the
    ``test_gelu_bw_ulp*.py`` copies), reproduced exactly on bit patterns: denormals and -0 read
    as +0; index ``32,640`` for zero, ``0x7F7F - magnitude`` for negatives, ``32,640 + bits -
    0x7F`` for positives, ``65,281`` for +Inf; NaN and -Inf are unmeasurable. Its negative half
    sits ``2**7`` steps too far from zero (no subnormal compaction, and based one lower than the
    mirror of the positive half), so every distance across zero is 128 too large: 0 to the
    smallest negative normal reads 129 where ``daz-index`` reads 1 (the discrepancy tt-llk's
    ``helpers/ulp.py`` docstring reports), and +Inf sits 129 above the largest finite. Offered
    to reproduce old figures, never for new ones.
``fractional`` (C1 as PR #56076 scores)
    ``|actual - ref| / (next_up(b) - b)`` with ``ref`` the *unrounded* reference (float64,
    correctly rounded from the exact value: :attr:`ReferenceResult.value`), ``b`` the
    correctly rounded (RNE) value of ``|ref|`` in the output format, ``next_up`` the next value
    of the format's IEEE lattice (subnormals included) and ``actual`` the IEEE reading of the
    result. At the top of the range, where ``next_up(max) = Inf``, the spacing of the top binade
    is used (the ``finfo.max`` fix-up of C1). A zero (or subnormal) ``b`` gives the smallest
    subnormal spacing, ``2**-133`` for BF16, exactly as the formula reads: then a flushed-to-zero
    result against a subnormal reference costs less than 1 and a smallest normal against an
    exact 0 costs 128 (``daz-index`` says 1). The subtraction is done in float64. A lane
    whose rounded reference is infinite (``ref`` beyond the format's range) compares by class.
    ``b`` is one correct rounding of the float64 ``|ref|``; torch's float64 -> bfloat16 goes
    through float32, a double rounding that differs only when ``|ref|`` lies within 2**-24
    (relative) of a midpoint just below a power of two.
``raw-int16`` (16-bit formats; issue #35290's original GELU report)
    ``|int16(expected) - int16(actual)|`` on the raw patterns (no DAZ), 0 when the two compare
    equal as floats (so +-0 agree); NaN lanes are unmeasurable. Across zero it counts about
    32,768 for a one-step difference, which is how "32,767 ULP" was reported for what was 0.

Every result carries a class per lane (:class:`LaneClass`): a finite-against-infinite (or
+Inf-against--Inf) lane is a hard mismatch, reported separately and never averaged in; lanes
with NaN are unmeasurable; two equal infinities agree (distance 0, counted). (C4's ``ulp_stats``
does average a finite-against-Inf lane's distance into max and mean, while its ``within_ulp``
fails the lane: here it stays out of the statistics and is counted in its own class.)
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from sfpu_sim import formats
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.formats import BF16, FP16, FP32, FloatFormat, round_values

__all__ = ["distance", "index", "index_by_search", "legacy_index", "population", "UlpResult",
           "LaneClass", "CONVENTIONS", "POPULATIONS", "UNMEASURABLE", "UlpError",
           "UnknownConvention"]

UNMEASURABLE = -1               # distance of an unmeasurable lane (integer conventions)
NAN_INDEX = np.iinfo(np.int64).min  # index() of a NaN pattern: it has no place in the order
FORMATS = {"bf16": BF16, "fp16": FP16, "fp32": FP32}
FLUSHES_SUBNORMALS = {"bf16": True, "fp32": True, "fp16": False}   # C4's per-format default

CONVENTIONS = {
    "daz-index": "integer steps between value-order indices, subnormal band collapsed (C3/C4)",
    "daz-index-legacy-129": "eltwise_test_utils.ulp_distance_bf16_daz: 128 extra steps across 0",
    "fractional": "|actual - ref| / spacing of bf16(|ref|), unrounded reference (C1, PR #56076)",
    "raw-int16": "|int16(expected) - int16(actual)|, 0 if equal as floats (issue #35290)",
}


class UlpError(SfpuSimError):
    """Bad input to a ULP computation."""


class UnknownConvention(UlpError):
    """A convention name not in :data:`CONVENTIONS`."""


class LaneClass(enum.IntEnum):
    """What a lane of a comparison can be counted as."""
    MEASURABLE = 0          # both finite: a distance, counted
    BOTH_INF = 1            # the same infinity on both sides: distance 0, counted
    NONFINITE_MISMATCH = 2  # finite against +-Inf, or +Inf against -Inf: a hard mismatch
    NAN_BOTH = 3            # NaN on both sides: agree, unmeasurable
    NAN_MISMATCH = 4        # NaN on exactly one side: unmeasurable, and a mismatch


def _format(name) -> tuple[str, FloatFormat]:
    if name not in FORMATS:
        raise UlpError(f"unknown format {name!r}; known: {', '.join(FORMATS)}")
    return name, FORMATS[name]


def _bits(values, fmt: FloatFormat, what: str) -> np.ndarray:
    array = np.asarray(values)
    if not np.issubdtype(array.dtype, np.integer):
        raise UlpError(f"{what}: expected {fmt.name} bit patterns (unsigned integers), got "
                       f"{array.dtype} values")
    if array.size and (int(array.min()) < 0 or int(array.max()) >= 1 << fmt.width):
        raise UlpError(f"{what}: values outside 0..0x{(1 << fmt.width) - 1:X} are not "
                       f"{fmt.name} patterns")
    return array.astype(fmt.dtype)


def _flush(fmt_name: str, flush_subnormals) -> bool:
    return FLUSHES_SUBNORMALS[fmt_name] if flush_subnormals is None else bool(flush_subnormals)


# --------------------------------------------------------------------------------------------
# The value-order index, two ways
# --------------------------------------------------------------------------------------------

def _rank_offset(fmt: FloatFormat, flush: bool) -> int:
    """Magnitude rank of the largest finite value (its index offset)."""
    largest = ((fmt.exp_max - 1) << fmt.man_bits) | fmt.man_mask
    return largest - (fmt.man_mask if flush else 0)


def index(bits, fmt: str = "bf16", *, flush_subnormals=None) -> np.ndarray:
    """Value-order index of each pattern (method a, bitwise), int64; NaN -> ``NAN_INDEX``."""
    name, f = _format(fmt)
    flush = _flush(name, flush_subnormals)
    b = _bits(bits, f, "index")
    if f.width == 16:                  # the formula done once for every pattern, looked up
        return np.asarray(_indexed_16(name, flush)[b])         # 0-d stays an array
    return _index(b, f, flush)


@lru_cache(maxsize=None)
def _indexed_16(fmt_name: str, flush: bool) -> np.ndarray:
    """:func:`index` of each of the 65,536 patterns of a 16-bit format (read-only)."""
    f = FORMATS[fmt_name]
    out = _index(_all_patterns(f), f, flush)
    out.flags.writeable = False
    return out


def _all_patterns(f: FloatFormat) -> np.ndarray:
    """Every pattern of a 16-bit format, ascending, in its dtype."""
    return np.arange(1 << 16, dtype=np.uint32).astype(f.dtype)


def _index(bits: np.ndarray, f: FloatFormat, flush: bool) -> np.ndarray:
    """The bitwise formula of :func:`index` over patterns of ``f``."""
    b = bits.astype(np.int64)
    magnitude = b & (f.sign_mask - 1)
    rank = np.maximum(magnitude - f.man_mask, 0) if flush else magnitude
    signed = np.where(b & f.sign_mask, -rank, rank)
    return np.where(formats.is_nan(bits, f), NAN_INDEX, signed + _rank_offset(f, flush))


def _smallest_normal(f: FloatFormat) -> float:
    return 2.0 ** (1 - (f.exp_max >> 1))


def _distinguishable(values: np.ndarray, f: FloatFormat, flush: bool) -> np.ndarray:
    """Values as the index tells them apart: with the flush, everything below the smallest
    normal in magnitude is zero; -0 is 0 either way (float comparison)."""
    return np.where(np.abs(values) < _smallest_normal(f), 0.0, values) if flush else values


@lru_cache(maxsize=None)
def _sorted_values(fmt_name: str, flush: bool) -> np.ndarray:
    """Every distinguishable value of a 16-bit format, ascending (+Inf and -Inf included,
    NaN not)."""
    f = FORMATS[fmt_name]
    values = formats.bits_to_float64(_all_patterns(f), f)
    return np.unique(_distinguishable(values[~np.isnan(values)], f, flush))


def index_by_search(bits, fmt: str = "bf16", *, flush_subnormals=None) -> np.ndarray:
    """Value-order index (method b, from values only): the position of each value among the
    distinguishable values, found by binary search, counted from the most negative finite one.
    BF16/FP16: the full sorted list of values; FP32 (4 G patterns): the sorted list of binade
    starts, then the position inside the binade from the value. NaN -> ``NAN_INDEX``."""
    name, f = _format(fmt)
    flush = _flush(name, flush_subnormals)
    b = _bits(bits, f, "index_by_search")
    if f.width == 16:                  # the search done once for every pattern, looked up
        return np.asarray(_searched_16(name, flush)[b])
    v = formats.bits_to_float64(b, f)
    nan = np.isnan(v)
    v = _distinguishable(np.where(nan, 0.0, v), f, flush)
    largest = float(np.finfo(np.float32).max)
    position = _fp32_rank(np.abs(v), flush)
    position = np.where(v < 0, -position, position) + _fp32_rank(np.array(largest), flush)
    return np.where(nan, NAN_INDEX, position.astype(np.int64))


@lru_cache(maxsize=None)
def _searched_16(fmt_name: str, flush: bool) -> np.ndarray:
    """:func:`index_by_search` of each of the 65,536 patterns of a 16-bit format, by binary
    search in the sorted list of its distinguishable values (read-only)."""
    f = FORMATS[fmt_name]
    v = formats.bits_to_float64(_all_patterns(f), f)
    nan = np.isnan(v)
    v = _distinguishable(np.where(nan, 0.0, v), f, flush)
    table = _sorted_values(fmt_name, flush)
    most_negative = table[np.isfinite(table)][0]
    position = np.searchsorted(table, v) - np.searchsorted(table, most_negative)
    out = np.where(nan, NAN_INDEX, position.astype(np.int64))
    out.flags.writeable = False
    return out


def _fp32_rank(a: np.ndarray, flush: bool) -> np.ndarray:
    """Number of distinguishable FP32 magnitudes below ``a`` (>= 0), by binade search."""
    starts = np.ldexp(1.0, np.arange(-126, 128))                  # 2**-126 .. 2**127
    binade = np.searchsorted(starts, a, side="right") - 1          # -1: below the normals
    inside = binade >= 0
    safe = np.where(inside & np.isfinite(a), binade, 0)
    steps = (a - starts[safe]) / np.ldexp(1.0, safe - 126 - 23)     # exact: a multiple of it
    subnormal_steps = 0 if flush else (1 << 23) - 1
    normal = subnormal_steps + 1 + (safe.astype(np.int64) << 23) + np.where(
        np.isfinite(a), steps, 0).astype(np.int64)
    below = np.zeros(a.shape, dtype=np.int64) if flush else (
        np.where(inside | np.isinf(a), 0.0, a) / 2.0**-149).astype(np.int64)
    infinite = subnormal_steps + 1 + (254 << 23)
    return np.where(np.isinf(a), infinite, np.where(inside, normal, below))


def legacy_index(bits) -> np.ndarray:
    """``bf16_value_order_index_daz`` of eltwise_test_utils.py, on BF16 patterns; -1 where that
    function returns -1 (NaN, -Inf)."""
    b = _bits(bits, BF16, "legacy_index").astype(np.int64)
    b = np.where(formats.is_denormal(b.astype(np.uint16), BF16) | (b == 0x8000), 0, b)
    magnitude = b & 0x7FFF
    out = np.where(b & 0x8000, 0x7F7F - magnitude, 32640 + b - 0x7F)
    out = np.where(b == 0, 32640, out)
    out = np.where(b == 0x7F80, 65281, out)
    unmeasurable = formats.is_nan(b.astype(np.uint16), BF16) | (b == 0xFF80)
    return np.where(unmeasurable, -1, out).astype(np.int64)


# --------------------------------------------------------------------------------------------
# Distances
# --------------------------------------------------------------------------------------------

def _classes(expected_bits, actual_bits, fmt: FloatFormat) -> np.ndarray:
    e_nan, a_nan = formats.is_nan(expected_bits, fmt), formats.is_nan(actual_bits, fmt)
    e_inf, a_inf = formats.is_inf(expected_bits, fmt), formats.is_inf(actual_bits, fmt)
    same = expected_bits == actual_bits
    out = np.full(np.shape(expected_bits), LaneClass.MEASURABLE, dtype=np.uint8)
    out[(e_inf | a_inf) & ~(e_nan | a_nan)] = LaneClass.NONFINITE_MISMATCH
    out[e_inf & a_inf & same] = LaneClass.BOTH_INF
    out[e_nan ^ a_nan] = LaneClass.NAN_MISMATCH
    out[e_nan & a_nan] = LaneClass.NAN_BOTH
    return out


@dataclass(frozen=True)
class UlpResult:
    """Distances lane for lane. ``distance``: int64 (``UNMEASURABLE`` where unmeasurable) for
    the integer conventions, float64 (NaN where unmeasurable, Inf on a non-finite mismatch)
    for ``fractional``. ``lane_class``: a :class:`LaneClass` code per lane."""
    convention: str
    format: str
    distance: np.ndarray
    lane_class: np.ndarray

    @property
    def counted(self) -> np.ndarray:
        """Lanes that enter statistics: measurable or equal infinities, with a distance."""
        ok = (self.lane_class == LaneClass.MEASURABLE) | (self.lane_class == LaneClass.BOTH_INF)
        if self.distance.dtype.kind == "f":
            return ok & np.isfinite(self.distance)
        return ok & (self.distance >= 0)

    def summary(self) -> dict:
        """Population, counts per lane class, and max / mean / exact fraction over the counted
        lanes (``worst_index`` is a flat lane index)."""
        counted = self.counted.reshape(-1)
        values = self.distance.reshape(-1)[counted]
        classes = np.bincount(self.lane_class.reshape(-1), minlength=len(LaneClass))
        out = {"convention": self.convention, "format": self.format,
               "lanes": int(self.distance.size), "counted": int(counted.sum()),
               "classes": {c.name.lower(): int(classes[c]) for c in LaneClass},
               "max": None, "mean": None, "exact_fraction": None, "worst_index": None}
        if values.size:
            worst = int(np.argmax(values))
            out.update(max=values[worst].item(), mean=float(values.astype(np.float64).mean()),
                       exact_fraction=float((values == 0).mean()),
                       worst_index=int(np.flatnonzero(counted)[worst]))
        return out


def distance(expected, actual, convention: str = "daz-index", fmt: str | None = None, *,
             flush_subnormals=None) -> UlpResult:
    """Per-lane distance of ``actual`` (result bit patterns) from ``expected``.

    ``expected``: reference bit patterns, or a :class:`~sfpu_sim.reference.ReferenceResult`
    (its ``bits``; for ``fractional`` its ``value``); for ``fractional`` also a float64 array
    of unrounded reference values. ``fmt``: ``"bf16"`` (default), ``"fp16"`` or ``"fp32"``,
    taken from a ReferenceResult when omitted. ``flush_subnormals``: ``daz-index`` only.
    """
    if convention not in CONVENTIONS:
        raise UnknownConvention(f"unknown ULP convention {convention!r}; known: "
                                f"{', '.join(CONVENTIONS)}")
    reference_bits = reference_value = None
    if hasattr(expected, "bits") and hasattr(expected, "value"):
        if fmt is not None and fmt != expected.output_format:
            raise UlpError(f"fmt {fmt!r} differs from the reference's output format "
                           f"{expected.output_format!r}")
        fmt = expected.output_format
        reference_bits, reference_value = expected.bits, expected.value
    elif convention == "fractional":
        reference_value = np.asarray(expected)
        if reference_value.dtype.kind != "f":
            raise UlpError("fractional: expected must be unrounded reference values (floats) "
                           "or a ReferenceResult, not bit patterns")
    else:
        reference_bits = expected
    name, f = _format(fmt or "bf16")
    result = _bits(actual, f, "actual")
    if convention == "fractional":
        return _fractional(reference_value.astype(np.float64), result, name, f)
    e = _bits(reference_bits, f, "expected")
    if e.shape != result.shape:
        raise UlpError(f"shape mismatch: expected {e.shape} vs actual {result.shape}")
    classes = _classes(e, result, f)
    nan = (classes == LaneClass.NAN_BOTH) | (classes == LaneClass.NAN_MISMATCH)
    if convention == "daz-index":
        a = np.where(nan, 0, index(e, name, flush_subnormals=flush_subnormals))
        b = np.where(nan, 0, index(result, name, flush_subnormals=flush_subnormals))
        steps = np.abs(a - b)
    elif convention == "daz-index-legacy-129":
        if f is not BF16:
            raise UlpError("daz-index-legacy-129 is defined for bf16 only")
        a, b = legacy_index(e), legacy_index(result)
        steps = np.where((a < 0) | (b < 0), UNMEASURABLE, np.abs(a - b))
    else:
        if f.width != 16:
            raise UlpError("raw-int16 is defined for 16-bit formats only")
        steps = np.abs(e.view(np.int16).astype(np.int64) - result.view(np.int16).astype(np.int64))
        equal = formats.bits_to_float64(e, f) == formats.bits_to_float64(result, f)
        steps = np.where(equal, 0, steps)
    return UlpResult(convention, name, np.where(nan, UNMEASURABLE, steps).astype(np.int64),
                     classes)


def _fractional(reference_value: np.ndarray, result: np.ndarray, name: str,
                f: FloatFormat) -> UlpResult:
    if reference_value.shape != result.shape:
        raise UlpError(f"shape mismatch: expected {reference_value.shape} vs actual "
                       f"{result.shape}")
    nearest = round_values(np.abs(reference_value), "rne", name)       # NaN stays NaN
    signed = nearest | np.where(np.signbit(reference_value), f.dtype(f.sign_mask), f.dtype(0))
    classes = _classes(signed.astype(f.dtype), result, f)
    bias = f.exp_max >> 1
    exponent = np.maximum(f.exponent(nearest).astype(np.int64) - bias, 1 - bias)
    spacing = np.ldexp(1.0, exponent - f.man_bits)
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.abs(formats.bits_to_float64(result, f) - reference_value) / spacing
    out = np.where(classes == LaneClass.MEASURABLE, out, np.nan)
    out = np.where(classes == LaneClass.BOTH_INF, 0.0, out)
    out = np.where(classes == LaneClass.NONFINITE_MISMATCH, np.inf, out)
    return UlpResult("fractional", name, out, classes)


# --------------------------------------------------------------------------------------------
# Populations
# --------------------------------------------------------------------------------------------

POPULATIONS = {
    "all": "every encoding (65,536 for BF16; #46179, #57292)",
    "finite": "every finite encoding, denormals and both zeros included (65,280; PR #56076)",
    "finite-nonzero": "finite encodings except +-0 (65,278; issue #35290)",
    "daz": "distinct values under DAZ: the normals and +0 (65,025; tanh report, LLK sweep)",
    "normal": "the normal encodings (65,024; GELU_ULP_FIX_IMPLEMENTATION.md)",
}


def population(name: str, fmt: str = "bf16") -> np.ndarray:
    """The input patterns of a named population, ascending (16-bit formats)."""
    if name not in POPULATIONS:
        raise UlpError(f"unknown population {name!r}; known: {', '.join(POPULATIONS)}")
    fmt_name, f = _format(fmt)
    if f.width != 16:
        raise UlpError("populations are listed for 16-bit formats only")
    bits = _all_patterns(f)
    cls = formats.classify(bits, f)
    keep = {
        "all": np.ones(bits.shape, dtype=bool),
        "finite": formats.is_finite(bits, f),
        "finite-nonzero": formats.is_finite(bits, f) & (cls != formats.FloatClass.ZERO),
        "daz": (cls == formats.FloatClass.NORMAL) | (bits == 0),
        "normal": cls == formats.FloatClass.NORMAL,
    }[name]
    return bits[keep]
