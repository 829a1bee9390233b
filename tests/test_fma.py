"""The three multiply-add models: golden vectors bit for bit, and documented properties."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from sfpu_sim import fma, formats

CHIPS = ("blackhole", "wormhole")
ONE = 0x3F800000


@pytest.mark.parametrize("model", ["ieee", "blackhole", "wormhole"])
def test_fma_matches_golden_bit_for_bit(fma_golden, model):
    x, y, z = fma_golden["x"], fma_golden["y"], fma_golden["z"]
    got = fma.MODELS[model](x, y, z)
    want = fma_golden[model]
    mismatches = np.flatnonzero(got != want)
    first = [(hex(x[i]), hex(y[i]), hex(z[i]), hex(got[i]), hex(want[i])) for i in mismatches[:5]]
    assert mismatches.size == 0, f"{mismatches.size} of {want.size} differ, e.g. {first}"


def test_fma_broadcasts_and_keeps_shape():
    out = fma.fma_blackhole([[ONE], [0x40000000]], ONE, [0, ONE, 0x40400000])
    assert out.shape == (2, 3) and out.dtype == np.uint32
    # 1*1+0 = 1, 1*1+1 = 2, 2*1+3 = 5 (exact small values, identical on every model)
    assert out[0, 0] == ONE and out[0, 1] == 0x40000000 and out[1, 2] == 0x40A00000


def test_documented_chip_differences_from_the_isa_vectors_readme():
    # tt-isa-documentation Miscellaneous/FMA/README.md, fma_model_wh vs fma_model_bh:
    # overflowing product plus the opposite infinity...
    x, y, z = 0x7F000000, 0x7F000000, 0xFF800000
    assert fma.fma_wormhole(x, y, z) == 0x7F800001
    assert fma.fma_blackhole(x, y, z) == 0xFF800000
    # ...and a product just below 2^-126: WH flushes before rounding, BH rounds up to normal.
    x, y, z = 0x00800000, 0x3F7FFFFF, 0
    assert fma.fma_wormhole(x, y, z) == 0
    assert fma.fma_blackhole(x, y, z) == 0x00800000


# --------------------------------------------------------------------------------------------
# Property tests: each over 1,048,576 seeded operand triples, all lanes in one call (the models
# are lanewise): 700 to 3,500 times the examples Hypothesis drew one call at a time, in a
# fifth of the time. A quarter of the operands are edges of the classes (EDGES) and an
# eighth are denormals, which uniform 32-bit draws almost never give (1 in 256).
# --------------------------------------------------------------------------------------------

N = 1 << 20
EDGES = np.array([0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF,
                  0x00800000, 0x80800000, 0x3F800000, 0xBF800000, 0x3F7FFFFF, 0x3F800001,
                  0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0x7F800000, 0xFF800000, 0x7F800001,
                  0x7FC00000, 0xFFC00001, 0x7FFFFFFF, 0xFFFFFFFF], dtype=np.uint32)


def _bits32(rng, n: int = N) -> np.ndarray:
    """Uniform 32-bit patterns, with EDGES and denormals of both signs mixed in."""
    out = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    kind = rng.random(n)
    edge, denormal = kind < 0.25, (kind >= 0.25) & (kind < 0.375)
    out[edge] = rng.choice(EDGES, int(edge.sum()))
    out[denormal] &= np.uint32(0x807FFFFF)
    return out


def _fields(rng, exponents: tuple[int, int], mantissa_bits: int = 23, n: int = N) -> np.ndarray:
    """Sign, a biased exponent in ``exponents`` (inclusive) and the top ``mantissa_bits`` of
    the mantissa drawn uniformly; the mantissa's lower bits zero."""
    sign = rng.integers(0, 2, n, dtype=np.uint32) << 31
    exponent = rng.integers(exponents[0], exponents[1] + 1, n, dtype=np.uint32) << 23
    mantissa = rng.integers(0, 1 << mantissa_bits, n, dtype=np.uint32) << (23 - mantissa_bits)
    return sign | exponent | mantissa


def _zeros(rng, n: int = N) -> np.ndarray:
    return rng.choice(np.array([0, 0x80000000], dtype=np.uint32), n)


def _differ(got, want, *operands) -> str:
    bad = np.flatnonzero(got != want)
    return f"{bad.size} lanes, e.g. " + ", ".join(
        "(" + ", ".join(hex(int(v[i])) for v in (*operands, got, want)) + ")" for i in bad[:4])


@pytest.mark.parametrize("model", ["ieee", "blackhole", "wormhole"])
def test_product_commutes(model):
    rng = np.random.default_rng(1)
    x, y, z = _bits32(rng), _bits32(rng), _bits32(rng)
    got, swapped = fma.MODELS[model](x, y, z), fma.MODELS[model](y, x, z)
    assert np.array_equal(got, swapped), _differ(got, swapped, x, y, z)


def test_times_one_plus_zero_returns_x_after_daz():
    x = _bits32(np.random.default_rng(2))
    x = x[~formats.is_nan(x)]
    flushed = formats.daz(x)
    one = np.uint32(ONE)
    # Blackhole keeps IEEE zero signs: -0 as the addend keeps a negative zero negative.
    got = fma.fma_blackhole(x, one, np.uint32(0x80000000))
    assert np.array_equal(got, flushed), _differ(got, flushed, x)
    # Wormhole produces no negative zero at all.
    got, want = fma.fma_wormhole(x, one, np.uint32(0)), formats.positive_zero(flushed)
    assert np.array_equal(got, want), _differ(got, want, x)


@pytest.mark.parametrize("chip", CHIPS)
def test_chips_read_denormal_inputs_as_zero(chip):
    rng = np.random.default_rng(3)
    x, y, z = _bits32(rng), _bits32(rng), _bits32(rng)
    got = fma.MODELS[chip](x, y, z)
    want = fma.MODELS[chip](formats.daz(x), formats.daz(y), formats.daz(z))
    assert np.array_equal(got, want), _differ(got, want, x, y, z)


def test_chips_never_output_denormals_and_wormhole_never_negative_zero():
    rng = np.random.default_rng(4)
    x, y, z = _bits32(rng), _bits32(rng), _bits32(rng)
    for chip in CHIPS:
        out = fma.MODELS[chip](x, y, z)
        assert not formats.is_denormal(out).any(), chip
    assert not (fma.fma_wormhole(x, y, z) == 0x80000000).any()


def _round_to_fp32(value: Fraction, sign_if_zero: int) -> int:
    """Exact rational -> FP32 pattern, round to nearest even, gradual underflow (independent
    of the model under test: plain integer arithmetic on the exact value)."""
    if value == 0:
        return sign_if_zero << 31
    sign = int(value < 0)
    mag = abs(value)
    exponent = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** exponent > mag:
        exponent -= 1
    exponent = max(exponent, -126)                    # denormals share the 2^-126 scale
    scaled = mag / Fraction(2) ** (exponent - 23)      # significand with 23 fraction bits
    integer, remainder = divmod(scaled.numerator, scaled.denominator)
    half = Fraction(remainder, scaled.denominator)
    if half > Fraction(1, 2) or (half == Fraction(1, 2) and integer & 1):
        integer += 1
    if integer == 1 << 24:
        integer, exponent = 1 << 23, exponent + 1
    if exponent > 127:
        return (sign << 31) | 0x7F800000
    if integer < 1 << 23:                              # denormal (or rounded to zero)
        return (sign << 31) | integer
    return (sign << 31) | ((exponent + 127) << 23) | (integer & 0x7FFFFF)


def _exact(bits: int) -> Fraction:
    e, m = (bits >> 23) & 0xFF, bits & 0x7FFFFF
    mag = Fraction(m, 1 << 23) * Fraction(2) ** -126 if e == 0 else \
        Fraction((1 << 23) | m, 1 << 23) * Fraction(2) ** (e - 127)
    return -mag if bits >> 31 else mag


def test_ieee_model_is_exact_arithmetic_rounded_once():
    """Against exact rational arithmetic, one lane at a time (Fractions): 8,000 finite triples."""
    rng = np.random.default_rng(5)
    x, y, z = (v[formats.is_finite(v)][:8000] for v in (_bits32(rng), _bits32(rng), _bits32(rng)))
    got = fma.fma_ieee(x, y, z)
    for xi, yi, zi, out in zip(x.tolist(), y.tolist(), z.tolist(), got.tolist(), strict=True):
        exact = _exact(xi) * _exact(yi) + _exact(zi)
        # IEEE 754 §6.3: an exact zero sum is +0 unless both terms are negative (or -0).
        zero_sign = int(((xi ^ yi) >> 31) and zi >> 31)
        assert out == _round_to_fp32(exact, zero_sign), (hex(xi), hex(yi), hex(zi), hex(out))


def test_chips_equal_ieee_when_the_product_is_exact():
    """With an exact product (two 11-bit mantissas, exponents that neither overflow nor
    underflow), narrowing it loses nothing and an addend shifted out of the datapath could not
    have changed an IEEE rounding either; what remains are the documented zero rules and
    Wormhole's sticky-bit bug (a 2-bit normalising shift, which only a carry out of a same-sign
    addition needs, loses the higher bit: the magnitude may round down by one)."""
    rng = np.random.default_rng(6)
    x, y = _fields(rng, (64, 190), 11), _fields(rng, (64, 190), 11)
    z = np.where(rng.random(N) < 0.1, _zeros(rng), _fields(rng, (1, 254)))
    ieee = fma.fma_ieee(x, y, z)
    keep = (formats.classify(ieee) == formats.FloatClass.NORMAL) | formats.is_zero(ieee)
    x, y, z, ieee = x[keep], y[keep], z[keep], ieee[keep]
    blackhole = fma.fma_blackhole(x, y, z)
    assert np.array_equal(blackhole, ieee), _differ(blackhole, ieee, x, y, z)
    wormhole = fma.fma_wormhole(x, y, z)
    same_sign_sum = (x ^ y ^ z) >> 31 == 0
    allowed = (wormhole == formats.positive_zero(ieee)) | same_sign_sum & (wormhole == ieee - 1)
    assert allowed.all(), _differ(np.where(allowed, ieee, wormhole), ieee, x, y, z)


def test_chips_equal_ieee_for_a_plain_product():
    """z = 0: the narrowed product keeps a sticky bit, so it still rounds correctly."""
    rng = np.random.default_rng(7)
    x, y, z = _fields(rng, (64, 190)), _fields(rng, (64, 190)), _zeros(rng)
    ieee = fma.fma_ieee(x, y, z)
    keep = formats.classify(ieee) == formats.FloatClass.NORMAL
    x, y, z, ieee = x[keep], y[keep], z[keep], ieee[keep]
    for chip in CHIPS:
        got = fma.MODELS[chip](x, y, z)
        assert np.array_equal(got, ieee), (chip, _differ(got, ieee, x, y, z))


def test_nan_results_follow_ieee_with_each_chips_pattern():
    """NaN exactly where IEEE (on DAZ'd inputs) gives NaN, except Wormhole's documented extra
    case; Blackhole's NaN is canonical, Wormhole's keeps at least 0x7F800001."""
    rng = np.random.default_rng(8)
    x, y, z = _bits32(rng), _bits32(rng), _bits32(rng)
    ieee = fma.fma_ieee(formats.daz(x), formats.daz(y), formats.daz(z))
    bh, wh = fma.fma_blackhole(x, y, z), fma.fma_wormhole(x, y, z)
    assert np.array_equal(formats.is_nan(bh), formats.is_nan(ieee))
    assert (bh[formats.is_nan(bh)] == 0x7FC00000).all()
    exponents = ((x >> 23) & 0xFF).astype(np.int64) + ((y >> 23) & 0xFF)
    overflowing_product = formats.is_finite(x) & formats.is_finite(y) & (exponents - 127 >= 255)
    opposite_infinity = formats.is_inf(z) & ((z ^ x ^ y) >> 31 == 1)
    assert np.array_equal(formats.is_nan(wh),
                          formats.is_nan(bh) | overflowing_product & opposite_infinity)
    assert (wh[formats.is_nan(wh)] & 0x7F800001 == 0x7F800001).all()
