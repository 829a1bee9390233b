"""Bit-pattern helpers: exhaustive over BF16/FP16, sampled over FP32, worked examples from the
ISA documentation (tt-isa-documentation Dst.md, SFPLUT.md, SFPLUTFP32.md, SFPLOADI.md,
SFPLOAD.md, SFPSTORE.md, SFPSTOCHRND_FloatFloat.md)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sfpu_sim import formats as f
from sfpu_sim.isa.convert import fp32_drop_mantissa_bits, fp32_to_bf16_ties_away
from sfpu_sim.isa.lanewise import lanes
from sfpu_sim.isa.lut import lut16_to_fp32

ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
RNG = np.random.default_rng(12345)
SAMPLE32 = np.concatenate([
    RNG.integers(0, 1 << 32, 1 << 20, dtype=np.uint32),
    # every BF16 pattern with each interesting low half: ties, just below/above, all ones
    (ALL16.astype(np.uint32)[:, None] << 16 | np.array([0, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF],
                                                       dtype=np.uint32)).ravel(),
])


def test_fp32_bits_round_trip_including_nan_payloads():
    assert np.array_equal(f.fp32_to_bits(f.bits_to_fp32(SAMPLE32)), SAMPLE32)


def test_bf16_bits_round_trip_through_ml_dtypes():
    as_bf16 = f.bits_to_bf16(ALL16)
    assert as_bf16.dtype == ml_dtypes.bfloat16
    assert np.array_equal(f.bf16_to_bits(as_bf16), ALL16)


def test_fp16_bits_round_trip_on_every_pattern_including_nan_payloads():
    as_fp16 = f.bits_to_fp16(ALL16)
    assert as_fp16.dtype == np.float16
    assert np.array_equal(f.fp16_to_bits(as_fp16), ALL16)
    assert f.fp16_to_bits([1.0, -0.0, 65504.0, 2.0**-24]).tolist() == [0x3C00, 0x8000, 0x7BFF, 0x0001]


def test_bf16_widens_exactly_to_fp32():
    finite = f.is_finite(ALL16, f.BF16)
    widened = f.bits_to_fp32(f.bf16_to_fp32_bits(ALL16))
    assert np.array_equal(widened[finite], f.bits_to_bf16(ALL16)[finite].astype(np.float32))


def test_fp16_to_fp32_matches_numpy_on_every_non_nan_pattern():
    ours = f.fp16_to_fp32_bits(ALL16)
    numpy = f.fp32_to_bits(f.bits_to_fp16(ALL16).astype(np.float32))
    nan = f.is_nan(ALL16, f.FP16)
    assert np.array_equal(ours[~nan], numpy[~nan])
    assert f.is_nan(ours[nan]).all() and np.array_equal(ours[nan] >> 31, (ALL16[nan] >> 15))


def test_classification_counts_over_all_bf16_patterns():
    classes = f.classify(ALL16, f.BF16)
    counts = np.bincount(classes, minlength=5)
    # 2 zeros, 254 denormals, 2 x 254 x 128 normals, 2 infinities, 254 NaNs
    assert counts.tolist() == [2, 254, 65024, 2, 254]
    assert f.is_zero(np.array([0, 0x8000], np.uint16), f.BF16).all()


@pytest.mark.parametrize("fmt", [f.FP32, f.BF16, f.FP16])
def test_classification_agrees_with_numpy_floats(fmt):
    if fmt is f.FP32:
        bits = SAMPLE32
        values = f.bits_to_fp32(bits)
    elif fmt is f.BF16:
        bits, values = ALL16, f.bits_to_bf16(ALL16).astype(np.float32)
    else:
        bits, values = ALL16, f.bits_to_fp16(ALL16)
    classes = f.classify(bits, fmt)
    tiny = {f.FP32: np.finfo(np.float32).tiny, f.BF16: np.float32(2.0 ** -126),
            f.FP16: np.finfo(np.float16).tiny}[fmt]
    with np.errstate(invalid="ignore"):
        assert np.array_equal(classes == f.FloatClass.NAN, np.isnan(values))
        assert np.array_equal(classes == f.FloatClass.INF, np.isinf(values))
        assert np.array_equal(classes == f.FloatClass.ZERO, values == 0)
        denormal = (values != 0) & (np.abs(values) < tiny)
    assert np.array_equal(classes == f.FloatClass.DENORMAL, denormal)


def test_daz_and_ftz_keep_or_drop_the_sign():
    x = np.array([0x00000001, 0x807FFFFF, 0x80000000, 0x00800000, 0x7FC00000], np.uint32)
    assert f.daz(x).tolist() == [0, 0x80000000, 0x80000000, 0x00800000, 0x7FC00000]
    assert f.ftz(x, keep_sign=False).tolist() == [0, 0, 0x80000000, 0x00800000, 0x7FC00000]
    assert f.positive_zero(x).tolist() == [1, 0x807FFFFF, 0, 0x00800000, 0x7FC00000]
    h = np.array([0x0001, 0x807F, 0x0080], np.uint16)
    assert f.daz(h, f.BF16).tolist() == [0, 0x8000, 0x0080]


def test_truncating_store_flushes_denormals_keeping_sign_then_truncates():
    x = np.array([0x3F80FFFF, 0xBF80FFFF, 0x007FFFFF, 0x807FFFFF, 0x7F800001, 0x7F810000,
                  0x7F7FFFFF], np.uint32)
    # 1.0078 -> 1.0 (toward zero), -1.0078 -> -1.0, denormals -> +-0, a NaN whose payload
    # sits in the low 16 bits becomes Inf, a NaN with a high payload stays NaN, max -> max bf16
    assert f.fp32_to_bf16_truncate(x).tolist() == [0x3F80, 0xBF80, 0, 0x8000, 0x7F80, 0x7F81,
                                                   0x7F7F]


def test_rne_matches_ml_dtypes_on_a_large_sample_including_nan():
    with np.errstate(invalid="ignore"):
        want = f.bf16_to_bits(f.bits_to_fp32(SAMPLE32).astype(ml_dtypes.bfloat16))
    assert np.array_equal(f.fp32_to_bf16_rne(SAMPLE32), want)


def test_ties_away_rounding_as_sfpstochrnd_nearest():
    x = np.array([0x3F808000, 0x3F818000, 0xBF808000, 0x3F807FFF, 0x80000000, 0x00400000,
                  0xFFC00001, 0x7F7F8000, 0x7F80FFFF], np.uint32)
    # ties go away from zero (not to even: 0x3F80|8000 -> 0x3F81), -0 and denormals -> +0,
    # NaN -> Inf keeping sign, the largest finite rounds up to Inf, Inf stays Inf
    assert fp32_to_bf16_ties_away(x).tolist() == [0x3F81, 0x3F82, 0xBF81, 0x3F80, 0, 0,
                                                    0xFF80, 0x7F80, 0x7F80]


def test_ties_away_differs_from_rne_only_on_ties_and_specials():
    normal = f.classify(SAMPLE32) == f.FloatClass.NORMAL
    ties = (SAMPLE32 & 0xFFFF) == 0x8000
    even = (SAMPLE32 >> 16) & 1 == 0
    differ = fp32_to_bf16_ties_away(SAMPLE32) != f.fp32_to_bf16_rne(SAMPLE32)
    assert np.array_equal(differ & normal, ties & even & normal)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 0xFFFFFFFF), st.integers(0, 0x7FFFFF))
def test_stochastic_threshold_rounds_up_iff_discarded_reaches_it(x, threshold):
    out = int(fp32_drop_mantissa_bits(x, 13, threshold >> 10))
    e = (x >> 23) & 0xFF
    if e in (0, 255):
        return
    kept = x & ~0x1FFF
    assert out == (kept + 0x2000 if (x & 0x1FFF) >= threshold >> 10 else kept)


def test_fp16_readings_of_the_sfpu_follow_the_isa_examples():
    # SFPLOADI FLOATA: exponent 0 is rebiased, 0x0000 -> 2^-15 = 0x38000000 (SFPLOADI.md)
    assert f.fp16_floata_to_fp32_bits([0x0000, 0x8000, 0x7C00]).tolist() == \
        [0x38000000, 0xB8000000, 0x47800000]
    # SFPLUTFP32: exponent 31 encodes zero; 0x3C00 is 1.0 (SFPLUTFP32.md)
    assert lanes(lut16_to_fp32, np.array([0x7C00, 0xFC00, 0x3C00, 0x0000])).tolist() == \
        [0, 0x80000000, 0x3F800000, 0x38000000]
    # SFPLOAD FP16: exponent 0 gives the FP32 denormal pattern m << 13; exponent 31 is finite
    # (1 + m/1024) * 2^16 unless ENABLE_FP16A_INF turns 0x7FFF into Inf (SFPLOAD.md)
    assert f.fp16a_to_fp32_bits([0x0001, 0x83FF, 0x7FFF, 0xFFFF]).tolist() == \
        [0x00002000, 0x807FE000, 0x47FFE000, 0xC7FFE000]
    assert f.fp16a_to_fp32_bits([0x7FFF, 0xFFFF, 0x7FFE], fp16a_inf=True).tolist() == \
        [0x7F800000, 0xFF800000, 0x47FFC000]


def test_fp16_store_truncates_flushes_and_saturates():
    x = np.array([0x3F800000, 0x3F801FFF, 0x38800000, 0x387FFFFF, 0xB87FFFFF, 0x477FE000,
                  0x47800000, 0x7F800000, 0xFFC00000], np.uint32)
    # 1.0, 1.0 + bits below fp16 precision (truncated), 2^-14, just below 2^-14 -> 0 and -0,
    # 65504, 2^16 (exponent 31 is a finite binade on the device), Inf and NaN saturate
    assert f.fp32_to_fp16a_truncate(x).tolist() == [0x3C00, 0x3C00, 0x0400, 0, 0x8000, 0x7BFF,
                                                    0x7C00, 0x7FFF, 0xFFFF]


def test_dst_shuffles_invert_each_other_on_every_16_bit_pattern():
    assert np.array_equal(f.dst_to_bf16(f.bf16_to_dst(ALL16)), ALL16)
    assert np.array_equal(f.dst_to_fp16(f.fp16_to_dst(ALL16)), ALL16)
    assert np.array_equal(f.dst_to_fp32(f.fp32_to_dst(SAMPLE32)), SAMPLE32)
    # the layout puts the exponent in the low bits: 1.0 (0x3F80) is stored as 0x007F
    assert f.bf16_to_dst([0x3F80, 0xBFC0]).tolist() == [0x007F, 0xC07F]
    assert f.fp16_to_dst([0x3C00]).tolist() == [0x000F]
    # a 32-bit datum's high half is the Dst16 encoding of its BF16 truncation
    assert np.array_equal(f.fp32_to_dst(SAMPLE32) >> 16,
                          f.bf16_to_dst(SAMPLE32 >> 16).astype(np.uint32))
