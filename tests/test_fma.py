"""The three multiply-add models: golden vectors bit for bit, and documented properties."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

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
# Property tests
# --------------------------------------------------------------------------------------------

bits32 = st.integers(0, 0xFFFFFFFF)
finite32 = bits32.filter(lambda b: (b >> 23) & 0xFF != 0xFF)


def _one(model, x, y, z) -> int:
    return int(fma.MODELS[model](x, y, z))


@settings(max_examples=400, deadline=None)
@given(bits32, bits32, bits32, st.sampled_from(["ieee", "blackhole", "wormhole"]))
def test_product_commutes(x, y, z, model):
    assert _one(model, x, y, z) == _one(model, y, x, z)


@settings(max_examples=400, deadline=None)
@given(bits32.filter(lambda b: not formats.is_nan(b)))
def test_times_one_plus_zero_returns_x_after_daz(x):
    flushed = int(formats.daz(x))
    # Blackhole keeps IEEE zero signs: -0 as the addend keeps a negative zero negative.
    assert _one("blackhole", x, ONE, 0x80000000) == flushed
    # Wormhole produces no negative zero at all.
    assert _one("wormhole", x, ONE, 0) == int(formats.positive_zero(flushed))


@settings(max_examples=300, deadline=None)
@given(bits32, bits32, bits32, st.sampled_from(CHIPS))
def test_chips_read_denormal_inputs_as_zero(x, y, z, chip):
    assert _one(chip, x, y, z) == _one(chip, *(int(formats.daz(v)) for v in (x, y, z)))


@settings(max_examples=300, deadline=None)
@given(bits32, bits32, bits32)
def test_chips_never_output_denormals_and_wormhole_never_negative_zero(x, y, z):
    for chip in CHIPS:
        assert not formats.is_denormal(_one(chip, x, y, z))
    assert _one("wormhole", x, y, z) != 0x80000000


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


@settings(max_examples=1500, deadline=None)
@given(finite32, finite32, finite32)
def test_ieee_model_is_exact_arithmetic_rounded_once(x, y, z):
    exact = _exact(x) * _exact(y) + _exact(z)
    product_negative = (x ^ y) >> 31
    # IEEE 754 §6.3: an exact zero sum is +0 unless both terms are negative (or -0).
    zero_sign = int(product_negative and z >> 31)
    assert _one("ieee", x, y, z) == _round_to_fp32(exact, zero_sign)


def fp32_fields(exponents, mantissas=st.integers(0, 0x7FFFFF)):
    return st.builds(lambda s, e, m: (s << 31) | (e << 23) | m,
                     st.integers(0, 1), exponents, mantissas)


# Products of two of these are exact (11 + 11 mantissa bits) and neither overflow nor underflow.
short_normal = fp32_fields(st.integers(64, 190), st.integers(0, 0x7FF).map(lambda m: m << 12))
mid_normal = fp32_fields(st.integers(64, 190))
normal32 = fp32_fields(st.integers(1, 254))


@settings(max_examples=1500, deadline=None)
@given(short_normal, short_normal, normal32 | st.sampled_from([0, 0x80000000]))
def test_chips_equal_ieee_when_the_product_is_exact(x, y, z):
    """With an exact product, narrowing it loses nothing and an addend shifted out of the
    datapath could not have changed an IEEE rounding either; what remains are the documented
    zero rules and Wormhole's sticky-bit bug (a 2-bit normalising shift, which only a carry out
    of a same-sign addition needs, loses the higher bit: the magnitude may round down by one)."""
    ieee = _one("ieee", x, y, z)
    assume(formats.classify(ieee) == formats.FloatClass.NORMAL or formats.is_zero(ieee))
    assert _one("blackhole", x, y, z) == ieee
    wormhole = _one("wormhole", x, y, z)
    same_sign_sum = (x ^ y ^ z) >> 31 == 0
    assert wormhole == int(formats.positive_zero(ieee)) or same_sign_sum and wormhole == ieee - 1


@settings(max_examples=1500, deadline=None)
@given(mid_normal, mid_normal, st.sampled_from([0, 0x80000000]))
def test_chips_equal_ieee_for_a_plain_product(x, y, z):
    """z = 0: the narrowed product keeps a sticky bit, so it still rounds correctly."""
    ieee = _one("ieee", x, y, z)
    assume(formats.classify(ieee) == formats.FloatClass.NORMAL)
    assert _one("blackhole", x, y, z) == ieee
    assert _one("wormhole", x, y, z) == ieee


special = st.sampled_from([0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001,
                           0, 0x80000000, 0x00000001, 0x3F800000, 0x7F7FFFFF, 0xFF7FFFFF])


@settings(max_examples=1500, deadline=None)
@given(special | bits32, special | bits32, special | bits32)
def test_nan_results_follow_ieee_with_each_chips_pattern(x, y, z):
    """NaN exactly where IEEE (on DAZ'd inputs) gives NaN, except Wormhole's documented extra
    case; Blackhole's NaN is canonical, Wormhole's keeps at least 0x7F800001."""
    ieee = _one("ieee", *(int(formats.daz(v)) for v in (x, y, z)))
    bh, wh = _one("blackhole", x, y, z), _one("wormhole", x, y, z)
    assert formats.is_nan(bh) == formats.is_nan(ieee)
    if formats.is_nan(bh):
        assert bh == 0x7FC00000
    exponents = ((x >> 23) & 0xFF) + ((y >> 23) & 0xFF)
    overflowing_product = formats.is_finite(x) and formats.is_finite(y) and exponents - 127 >= 255
    opposite_infinity = formats.is_inf(z) and (z ^ x ^ y) >> 31 == 1
    assert formats.is_nan(wh) == (formats.is_nan(bh) or overflowing_product and opposite_infinity)
    if formats.is_nan(wh):
        assert wh & 0x7F800001 == 0x7F800001
