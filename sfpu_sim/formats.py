"""Number formats of the SFPU as bit patterns: FP32, BF16, FP16 and the Dst/LReg FP16 variants.

Owns: how bits become numbers and back, classification, DAZ/FTZ, the FP32 -> BF16 conversions
the device performs, and the shuffled layout values have inside Dst. Knows nothing of
instructions or machine state.

Conventions: FP32 patterns are ``uint32`` arrays; BF16 and FP16 patterns are ``uint16`` arrays.
Every function accepts anything numpy converts (scalars, lists, arrays of any shape) and works
elementwise without Python loops.

Sources: tt-isa-documentation (WormholeB0 and BlackholeA0 ``TensixTile/TensixCoprocessor``):
``FloatBitPatterns.md`` (value of each pattern to the SFPU), ``Dst.md`` (storage layout),
``SFPLOAD.md`` / ``SFPLOADI.md`` / ``SFPLUTFP32.md`` (the three FP16 readings),
``SFPSTORE.md`` (truncating stores), ``SFPSTOCHRND_FloatFloat.md`` and
``Packers/FormatConversion.md`` (round to nearest, ties away).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from sfpu_sim.errors import SfpuSimError

SIGN32 = np.uint32(0x80000000)
EXP32 = np.uint32(0x7F800000)
MAN32 = np.uint32(0x007FFFFF)


@dataclass(frozen=True)
class FloatFormat:
    """Field widths of a sign | exponent | mantissa binary format held in an unsigned array."""
    name: str
    exp_bits: int
    man_bits: int
    dtype: type

    @property
    def width(self) -> int:
        return 1 + self.exp_bits + self.man_bits

    @property
    def sign_mask(self) -> int:
        return 1 << (self.width - 1)

    @property
    def exp_max(self) -> int:
        return (1 << self.exp_bits) - 1

    @property
    def man_mask(self) -> int:
        return (1 << self.man_bits) - 1

    def bits(self, values) -> np.ndarray:
        """Coerce bit patterns (ints, arrays) to this format's unsigned dtype."""
        return np.asarray(values).astype(self.dtype, copy=False)

    def exponent(self, bits) -> np.ndarray:
        return (self.bits(bits) >> self.dtype(self.man_bits)) & self.dtype(self.exp_max)

    def mantissa(self, bits) -> np.ndarray:
        return self.bits(bits) & self.dtype(self.man_mask)


FP32 = FloatFormat("fp32", 8, 23, np.uint32)
BF16 = FloatFormat("bf16", 8, 7, np.uint16)
FP16 = FloatFormat("fp16", 5, 10, np.uint16)
FORMATS = {f.name: f for f in (FP32, BF16, FP16)}


def bit_length(values) -> np.ndarray:
    """Number of significant bits of each unsigned 32-bit value (0 for 0), as int32."""
    v = np.asarray(values).astype(np.float64)       # exact for every 32-bit integer
    return np.frexp(v)[1].astype(np.int32)


def _u32(values) -> np.ndarray:
    return np.asarray(values).astype(np.uint32, copy=False)


def _u16(values) -> np.ndarray:
    return np.asarray(values).astype(np.uint16, copy=False)


# --------------------------------------------------------------------------------------------
# Bits <-> values
# --------------------------------------------------------------------------------------------

class BadBits(SfpuSimError):
    """Values handed in where bit patterns of a format are expected, that are not."""


NATIVE_DTYPES = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16, "fp32": np.float32}


def as_bits(values, fmt: str | FloatFormat) -> np.ndarray:
    """The bit patterns of ``fmt`` that ``values`` stand for, the one way every layer reads
    inputs: an array of the format's own dtype (``ml_dtypes.bfloat16``, ``float16``,
    ``float32``) is taken bit for bit, never converted; integers are patterns (checked to fit
    the format's width). Anything else (Python floats, float64) is refused: a value is not a
    pattern, and rounding it silently would hide a wrong input."""
    fmt = FORMATS[fmt] if isinstance(fmt, str) else fmt
    array = np.asarray(values)
    native = NATIVE_DTYPES[fmt.name]
    if array.dtype == native:
        return array.view(fmt.dtype)
    if array.dtype == np.dtype(fmt.dtype):
        return array.copy()     # patterns already: none can be out of range (a sweep's chunk)
    if not np.issubdtype(array.dtype, np.integer):
        raise BadBits(f"inputs: expected {fmt.name} bit patterns (integers) or a "
                      f"{np.dtype(native).name} array, got {array.dtype}")
    if array.size and (int(array.min()) < 0 or int(array.max()) >> fmt.width):
        raise BadBits(f"inputs: values outside 0..0x{(1 << fmt.width) - 1:X} are not "
                      f"{fmt.name} patterns")
    return array.astype(fmt.dtype)


def fp32_to_bits(values) -> np.ndarray:
    """IEEE FP32 values (floats, float32 arrays) -> uint32 patterns. Doubles round to nearest."""
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def bits_to_fp32(bits) -> np.ndarray:
    """uint32 patterns -> float32 values (IEEE reading: denormals are denormals)."""
    return _u32(bits).view(np.float32)


def bf16_to_bits(values) -> np.ndarray:
    """BF16 values -> uint16 patterns. ml_dtypes.bfloat16 arrays are taken bit for bit; other
    numbers are first rounded to BF16 by ml_dtypes (round to nearest even)."""
    return np.asarray(values, dtype=ml_dtypes.bfloat16).view(np.uint16)


def bits_to_bf16(bits) -> np.ndarray:
    """uint16 patterns -> an ml_dtypes.bfloat16 array (for handing to torch/jax/numpy users)."""
    return _u16(bits).view(ml_dtypes.bfloat16)


def bf16_to_fp32_bits(bits) -> np.ndarray:
    """BF16 pattern -> the FP32 pattern of the same value (exact: the low 16 bits are zero)."""
    return _u16(bits).astype(np.uint32) << np.uint32(16)


def fp16_to_bits(values) -> np.ndarray:
    """IEEE FP16 values -> uint16 patterns (other numbers rounded to nearest even by numpy)."""
    return np.asarray(values, dtype=np.float16).view(np.uint16)


def bits_to_fp16(bits) -> np.ndarray:
    """uint16 patterns -> numpy float16 values (IEEE reading)."""
    return _u16(bits).view(np.float16)


def bits_to_float64(bits, fmt: FloatFormat | str) -> np.ndarray:
    """FP32/BF16/FP16 patterns -> their exact IEEE values as float64 (denormals kept; NaN
    payloads are not). ``fmt``: a FloatFormat or its name."""
    fmt = FORMATS[fmt] if isinstance(fmt, str) else fmt
    with np.errstate(invalid="ignore"):             # NaN payloads through the float cast
        if fmt is FP16:
            return bits_to_fp16(bits).astype(np.float64)
        if fmt is BF16:
            return bits_to_fp32(bf16_to_fp32_bits(bits)).astype(np.float64)
        return bits_to_fp32(bits).astype(np.float64)


def fp16_to_fp32_bits(bits) -> np.ndarray:
    """IEEE FP16 pattern -> FP32 pattern of the same value: exact, denormals normalised,
    Inf kept, NaN payload moved to the top of the FP32 mantissa."""
    h = _u16(bits).astype(np.uint32)
    sign = (h & 0x8000) << 16
    e = (h >> 10) & 0x1F
    m = h & 0x3FF
    # A denormal m * 2**-24: renormalise by the position of its leading one.
    lead = np.maximum(bit_length(m), 1).astype(np.uint32) - np.uint32(1)
    denormal = ((lead + 103) << 23) | ((m << (23 - lead)) & MAN32)
    normal = ((e + 112) << 23) | (m << 13)
    special = EXP32 | (m << 13)
    out = np.where(e == 31, special, np.where(e == 0, np.where(m == 0, 0, denormal), normal))
    return (sign | out).astype(np.uint32)


def fp32_to_fp16_rne(bits) -> np.ndarray:
    """FP32 pattern -> IEEE FP16 pattern, round to nearest even (numpy's conversion); what
    overflows becomes +-Inf, as IEEE rounding says."""
    with np.errstate(over="ignore"):
        return bits_to_fp32(bits).astype(np.float16).view(np.uint16)


# --------------------------------------------------------------------------------------------
# Classification, DAZ, FTZ
# --------------------------------------------------------------------------------------------

class FloatClass(enum.IntEnum):
    """IEEE class of a pattern. The SFPU reads DENORMAL as zero (FloatBitPatterns.md)."""
    ZERO = 0
    DENORMAL = 1
    NORMAL = 2
    INF = 3
    NAN = 4


def classify(bits, fmt: FloatFormat = FP32) -> np.ndarray:
    """FloatClass code (uint8) of each pattern under the IEEE reading of ``fmt``."""
    e, m = fmt.exponent(bits), fmt.mantissa(bits)
    top = e == fmt.exp_max
    out = np.full(e.shape, FloatClass.NORMAL, dtype=np.uint8)
    out[(e == 0) & (m == 0)] = FloatClass.ZERO
    out[(e == 0) & (m != 0)] = FloatClass.DENORMAL
    out[top & (m == 0)] = FloatClass.INF
    out[top & (m != 0)] = FloatClass.NAN
    return out


def is_nan(bits, fmt: FloatFormat = FP32) -> np.ndarray:
    return (fmt.exponent(bits) == fmt.exp_max) & (fmt.mantissa(bits) != 0)


def is_inf(bits, fmt: FloatFormat = FP32) -> np.ndarray:
    return (fmt.exponent(bits) == fmt.exp_max) & (fmt.mantissa(bits) == 0)


def is_finite(bits, fmt: FloatFormat = FP32) -> np.ndarray:
    return fmt.exponent(bits) != fmt.exp_max


def is_zero(bits, fmt: FloatFormat = FP32) -> np.ndarray:
    """True for +0 and -0 only (denormals are not zero under the IEEE reading)."""
    return (fmt.bits(bits) & fmt.dtype(fmt.sign_mask - 1)) == 0


def is_denormal(bits, fmt: FloatFormat = FP32) -> np.ndarray:
    return (fmt.exponent(bits) == 0) & (fmt.mantissa(bits) != 0)


def flush_denormals(bits, fmt: FloatFormat = FP32, keep_sign: bool = True) -> np.ndarray:
    """Replace denormal patterns by zero: signed zero if ``keep_sign``, else +0.

    Every other pattern (zeros included) is returned unchanged; ``keep_sign=False`` does not
    turn an existing -0 into +0 (use :func:`positive_zero` for that)."""
    b = fmt.bits(bits)
    zero = b & fmt.dtype(fmt.sign_mask) if keep_sign else fmt.dtype(0)
    return np.where(is_denormal(b, fmt), zero, b).astype(fmt.dtype)


def daz(bits, fmt: FloatFormat = FP32, keep_sign: bool = True) -> np.ndarray:
    """Denormals-are-zero on inputs: a denormal input reads as (signed) zero, as every SFPU
    arithmetic instruction does (FloatBitPatterns.md). Same bit operation as :func:`ftz`."""
    return flush_denormals(bits, fmt, keep_sign)


def ftz(bits, fmt: FloatFormat = FP32, keep_sign: bool = True) -> np.ndarray:
    """Flush-to-zero on outputs: a denormal result becomes zero, keeping its sign (Blackhole
    SFPMAD, SFPSTORE) or dropping it (``keep_sign=False``: Wormhole SFPMAD, packer rounding)."""
    return flush_denormals(bits, fmt, keep_sign)


_flush = ftz                        # round_values has a parameter of that name


def positive_zero(bits, fmt: FloatFormat = FP32) -> np.ndarray:
    """Turn -0 into +0; everything else unchanged."""
    b = fmt.bits(bits)
    return np.where(b == fmt.dtype(fmt.sign_mask), fmt.dtype(0), b).astype(fmt.dtype)


# --------------------------------------------------------------------------------------------
# FP32 -> BF16, the three ways the device and its references do it
# --------------------------------------------------------------------------------------------

def fp32_to_bf16_truncate(bits) -> np.ndarray:
    """FP32 -> BF16 as SFPSTORE does it (SFPSTORE.md, both chips): a denormal becomes zero of
    the same sign, then the low 16 bits are dropped (truncation toward zero). A NaN whose
    payload lies only in the low 16 bits becomes Inf."""
    x = _u32(bits)
    x = np.where((x & EXP32) == 0, x & SIGN32, x)
    return (x >> np.uint32(16)).astype(np.uint16)


def fp32_to_bf16_rne(bits) -> np.ndarray:
    """FP32 -> BF16, IEEE round to nearest even with gradual underflow; overflow goes to Inf.

    NaN becomes the quiet NaN ``sign | 0x7FC0`` (ml_dtypes' and torch's convention), so a
    payload held only in the low bits cannot turn it into Inf."""
    x = _u32(bits)
    odd = (x >> np.uint32(16)) & np.uint32(1)
    rounded = ((x.astype(np.uint64) + 0x7FFF + odd) >> 16).astype(np.uint32)
    nan = ((x >> np.uint32(16)) & np.uint32(0x8000)) | np.uint32(0x7FC0)
    return np.where(is_nan(x), nan, rounded).astype(np.uint16)


def fp32_to_fp16_packer(bits) -> np.ndarray:
    """The packer's FP32 Dst -> Float16 L1 conversion (Packers/FormatConversion.md): FP32 has
    no early conversion to FP16, so the datum stays FP32 and the late conversion narrows it,
    saturating the exponent, then truncating the mantissa. What lies below 2**-14 becomes
    signed zero (the page flushes what is at or below 2**-15 and calls (2**-15, 2**-14)
    "mishandled"; a harness that ranks FP16 subnormals as 0 cannot tell), and what overflows,
    Inf and NaN included, the 0x7FFF pattern SFPSTORE also writes. That the harness's Float16
    output truncates here rather than rounding early to TF32 is read off its table: sqrt,
    rsqrt, reciprocal and tanh with an FP32 Dst measure 1 step to Float16 and 0 to Float16_b,
    whose early conversion rounds."""
    return fp32_to_fp16a_truncate(bits)


# --------------------------------------------------------------------------------------------
# Integers: sign-magnitude (Dst "Integer 32", SFPCAST's input) and two's complement
# --------------------------------------------------------------------------------------------

def sign_magnitude_to_twos_complement(bits) -> np.ndarray:
    """Sign and 31-bit magnitude -> two's complement (-0 becomes 0)."""
    x = _u32(bits)
    magnitude = x & ~SIGN32
    return np.where(x & SIGN32, -magnitude, magnitude).astype(np.uint32)


def twos_complement_to_sign_magnitude(bits) -> np.ndarray:
    """Two's complement -> sign and 31-bit magnitude; -2**31 becomes 0x80000000 (-0). The map
    is its own inverse (applied to sign-magnitude it gives two's complement, with -0 and
    -2**31 sharing the pattern 0x80000000): Blackhole SFPCAST mode 3 is exactly this."""
    x = _u32(bits)
    sign = x & SIGN32
    return (sign | (np.where(sign, -x, x) & ~SIGN32)).astype(np.uint32)


# --------------------------------------------------------------------------------------------
# The SFPU's own FP16 readings (SFPLUTFP32.md, SFPLOADI.md, SFPLOAD.md)
# --------------------------------------------------------------------------------------------

def _fp16_fields(bits):
    h = _u16(bits).astype(np.uint32)
    return (h & 0x8000) << 16, (h >> 10) & 0x1F, h & 0x3FF


def fp16a_to_fp32_bits(bits, fp16a_inf=False) -> np.ndarray:
    """SFPLOAD's reading of an FP16 Dst datum (given in standard FP16 field order).

    Exponent 31 is an ordinary finite binade (up to 131008); exponent 0 gives the FP32
    *denormal* pattern ``mantissa << 13`` (which arithmetic then reads as zero). With
    LaneConfig ENABLE_FP16A_INF (``fp16a_inf``, bool or per-element array), the pattern with
    exponent 31 and mantissa 0x3FF reads as +-Inf instead."""
    sign, e, m = _fp16_fields(bits)
    value = np.where(e == 0, m << 13, ((e + 112) << 23) | (m << 13))
    inf = np.asarray(fp16a_inf) & (e == 31) & (m == 0x3FF)
    return (sign | np.where(inf, EXP32, value)).astype(np.uint32)


def fp16_floata_to_fp32_bits(bits) -> np.ndarray:
    """SFPLOADI FLOATA's reading of an FP16 immediate: every exponent is rebiased by +112 with
    no special cases, so 0x0000 is 2**-15 (not zero) and exponent 31 is finite."""
    sign, e, m = _fp16_fields(bits)
    return (sign | ((e + 112) << 23) | (m << 13)).astype(np.uint32)


def fp32_to_fp16a_truncate(bits) -> np.ndarray:
    """SFPSTORE's FP32 -> FP16 (standard FP16 field order): truncation; anything below 2**-14
    (zeros and denormals included) becomes signed zero; overflow, Inf and NaN saturate to the
    0x7FFF pattern with the sign kept (exponent 31 stays a finite binade)."""
    x = _u32(bits)
    sign = (x >> 16) & np.uint32(0x8000)
    e = ((x >> 23) & 0xFF).astype(np.int32) - 112
    fields = (np.clip(e, 0, 31).astype(np.uint32) << 10) | ((x & MAN32) >> 13)
    out = np.where(e <= 0, np.uint32(0), np.where(e > 31, np.uint32(0x7FFF), fields))
    return (sign | out).astype(np.uint16)


# --------------------------------------------------------------------------------------------
# Dst storage layout: exponent in the low bits (Dst.md)
# --------------------------------------------------------------------------------------------

def bf16_dst_shuffle(h):
    """BF16 pattern -> 16-bit Dst cell: sign | mantissa[6:0] << 8 | exponent. On an int or an
    integer array alike: the one-lane form SFPLOAD/SFPSTORE compile is this function
    (:mod:`sfpu_sim.isa.loadstore`)."""
    return (h & 0x8000) | ((h & 0x7F) << 8) | ((h >> 7) & 0xFF)


def dst_bf16_shuffle(d):
    """16-bit Dst cell -> BF16 pattern (inverse of :func:`bf16_dst_shuffle`)."""
    return (d & 0x8000) | ((d & 0xFF) << 7) | ((d >> 8) & 0x7F)


def fp16_dst_shuffle(h):
    """FP16 pattern -> 16-bit Dst cell: sign | mantissa[9:0] << 5 | exponent."""
    return (h & 0x8000) | ((h & 0x3FF) << 5) | ((h >> 10) & 0x1F)


def dst_fp16_shuffle(d):
    """16-bit Dst cell -> FP16 pattern (inverse of :func:`fp16_dst_shuffle`)."""
    return (d & 0x8000) | ((d & 0x1F) << 10) | ((d >> 5) & 0x3FF)


def bf16_to_dst(bits) -> np.ndarray:
    """:func:`bf16_dst_shuffle` of BF16 patterns (in 16-bit arithmetic: every field fits, and
    sweeps convert 65,536 of them per call)."""
    return bf16_dst_shuffle(_u16(bits))


def dst_to_bf16(cells) -> np.ndarray:
    """:func:`dst_bf16_shuffle` of 16-bit Dst cells."""
    return dst_bf16_shuffle(_u16(cells))


def fp16_to_dst(bits) -> np.ndarray:
    """:func:`fp16_dst_shuffle` of FP16 patterns."""
    return fp16_dst_shuffle(_u32(bits)).astype(np.uint16)


def dst_to_fp16(cells) -> np.ndarray:
    """:func:`dst_fp16_shuffle` of 16-bit Dst cells."""
    return dst_fp16_shuffle(_u32(cells)).astype(np.uint16)


def fp32_to_dst(bits) -> np.ndarray:
    """FP32 (or sign-magnitude Integer "32") pattern -> 32-bit Dst datum: the high half takes
    the BF16 shuffle, the low 16 mantissa bits stay in place."""
    x = _u32(bits)
    return (bf16_to_dst(x >> 16).astype(np.uint32) << 16) | (x & 0xFFFF)


def dst_to_fp32(cells) -> np.ndarray:
    """32-bit Dst datum -> FP32 pattern (inverse of :func:`fp32_to_dst`)."""
    d = _u32(cells)
    return (dst_to_bf16(d >> 16).astype(np.uint32) << 16) | (d & 0xFFFF)


# --------------------------------------------------------------------------------------------
# Exact values rounded to a format, under the rounding policies the reports name
# --------------------------------------------------------------------------------------------

class UnknownPolicy(SfpuSimError):
    """A rounding policy name not in :data:`POLICIES`."""


class UnknownFormat(SfpuSimError):
    """A format name not supported where it was given."""


# Class of an exact value (``Exact.cls``); the reference layer's tables use the same codes.
FINITE, ZERO, INF, NAN = 0, 1, 2, 3
RNE, RNA, RZ = "nearest-even", "nearest-away", "toward-zero"
FP64 = FloatFormat("fp64", 11, 52, np.uint64)
OUTPUT_FORMATS = {"bf16": BF16, "fp16": FP16, "fp32": FP32}


@dataclass(frozen=True)
class Exact:
    """Exact values, one per element: a class (FINITE, ZERO, INF, NAN), a sign, and for
    FINITE ``m * 2**e`` with ``2**63 <= m < 2**64`` (a 64-bit significand: every format here
    rounds from it correctly; the reference layer stores round-to-odd values in this form)."""
    cls: np.ndarray
    negative: np.ndarray
    m: np.ndarray
    e: np.ndarray


def exact_from_float64(values) -> Exact:
    """Float64 values taken as exact."""
    v = np.asarray(values, dtype=np.float64)
    cls = np.where(np.isnan(v), NAN, np.where(np.isinf(v), INF, np.where(v == 0, ZERO, FINITE)))
    mantissa, exponent = np.frexp(np.where(cls == FINITE, np.abs(v), 0.5))
    m = (mantissa * 2.0**53).astype(np.uint64) << np.uint64(11)      # exact: 53 bits
    e = exponent.astype(np.int64) - 64
    finite = cls == FINITE
    negative = np.signbit(v) & (cls != NAN)
    return Exact(cls.astype(np.uint8), negative, np.where(finite, m, 0), np.where(finite, e, 0))


def exact_from_bits(bits, fmt: FloatFormat) -> Exact:
    """FP32/BF16/FP16 patterns as exact values (denormals read as their IEEE values)."""
    b = fmt.bits(bits)
    e_field = fmt.exponent(b).astype(np.int64)
    fraction = fmt.mantissa(b).astype(np.uint64)
    bias = fmt.exp_max >> 1
    significand = np.where(e_field == 0, fraction, fraction | np.uint64(1 << fmt.man_bits))
    exponent = np.where(e_field == 0, 1 - bias, e_field - bias) - fmt.man_bits
    lead = bit_length(significand.astype(np.uint32)).astype(np.int64) - 1
    shift = np.where(significand == 0, 0, 63 - lead)
    cls = classify(b, fmt)
    out_cls = np.select([cls == FloatClass.NAN, cls == FloatClass.INF, cls == FloatClass.ZERO],
                        [NAN, INF, ZERO], FINITE)
    negative = (b & fmt.dtype(fmt.sign_mask)) != 0
    return Exact(out_cls.astype(np.uint8), negative, significand << shift.astype(np.uint64),
                 exponent - shift)


def round_exact(x, fmt: FloatFormat, mode: str) -> np.ndarray:
    """Bit patterns of ``fmt`` for exact values ``x`` (an :class:`Exact`, or anything with
    its four fields) rounded in ``mode`` (RNE, RNA, RZ): gradual underflow; overflow to Inf, or
    to the largest finite toward zero; NaN becomes the positive canonical quiet NaN."""
    p = fmt.man_bits + 1
    bias = fmt.exp_max >> 1
    emin, emax = 1 - bias, bias
    one = np.uint64(1)
    top = np.clip(x.e + 63, emin - 80, emax + 2)          # exponent of the leading bit
    shift = np.minimum(64 - p + np.maximum(emin - top, 0), 65)
    wide = shift >= 64
    s = np.where(wide, 63, shift).astype(np.uint64)
    q = np.where(wide, np.uint64(0), x.m >> s)
    rem = np.where(wide, x.m, x.m & ((one << s) - one))
    half = np.where(wide, np.uint64(1 << 63), one << (s - one))
    if mode == RNE:
        up = (rem > half) | ((rem == half) & ((q & one) == one))
    elif mode == RNA:
        up = rem >= half
    else:
        up = np.zeros(q.shape, dtype=bool)
    q = q + (up & (shift <= 64)).astype(np.uint64)
    base = np.where(top >= emin, (top - emin).astype(np.uint64) << np.uint64(p - 1), np.uint64(0))
    magnitude = base + q
    inf = np.uint64(fmt.exp_max << (p - 1))
    magnitude = np.where(magnitude >= inf, inf - np.uint64(mode == RZ), magnitude)
    magnitude = np.where(x.cls == ZERO, np.uint64(0), magnitude)
    magnitude = np.where(x.cls == INF, inf, magnitude)
    magnitude = np.where(x.cls == NAN, inf | np.uint64(1 << (p - 2)), magnitude)
    sign = np.where(x.negative & (x.cls != NAN), np.uint64(fmt.sign_mask), np.uint64(0))
    return (sign | magnitude).astype(fmt.dtype)


POLICIES = {
    "rne": "correctly rounded to the output format, ties to even",
    "rne_fp32": "correctly rounded to FP32, then RNE to the output format (tt-llk sweep golden)",
    "truncate": "correctly rounded to FP32, then truncated toward zero (tanh report)",
    "ties_away": "correctly rounded to the output format, ties away from zero",
}


def policies() -> dict[str, str]:
    """Rounding policy name -> one-line description."""
    return dict(POLICIES)


def apply_policy(x, policy: str, out: FloatFormat) -> np.ndarray:
    """Exact values ``x`` rounded to ``out`` under a named policy (:data:`POLICIES`)."""
    if policy == "rne":
        return round_exact(x, out, RNE)
    if policy == "ties_away":
        return round_exact(x, out, RNA)
    fp32 = round_exact(x, FP32, RNE)
    if out is FP32:
        return fp32
    if policy == "rne_fp32":
        if out is BF16:
            return fp32_to_bf16_rne(fp32)
        with np.errstate(over="ignore"):                  # overflow to Inf is the point
            return fp32_to_fp16_rne(fp32)
    if out is BF16:                     # truncation of an FP32 pattern to BF16: its top half
        return (fp32 >> np.uint32(16)).astype(np.uint16)
    return round_exact(exact_from_bits(fp32, FP32), out, RZ)


def round_values(values, policy: str = "rne", output_format: str = "bf16", *,
                 ftz: bool = False) -> np.ndarray:
    """Float64 values taken as exact, rounded under a policy: bit patterns of the output format
    (e.g. a float64 golden rounded like a reference; the ``fractional`` ULP's ``bf16(|ref|)``)."""
    if policy not in POLICIES:
        raise UnknownPolicy(f"unknown rounding policy {policy!r}; known: {', '.join(POLICIES)}")
    if output_format not in OUTPUT_FORMATS:
        raise UnknownFormat(f"unknown output format {output_format!r}; known: "
                            f"{', '.join(OUTPUT_FORMATS)}")
    out_fmt = OUTPUT_FORMATS[output_format]
    out = apply_policy(exact_from_float64(values), policy, out_fmt)
    return _flush(out, out_fmt) if ftz else out
