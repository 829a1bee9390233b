"""ULP conventions: the value-order index two ways, the documented examples of the sources
(tanh report C3, tt-llk helpers/ulp.py C4, eltwise_test_utils.py's legacy index, PR #56076's
fractional ULP, issue #35290's raw int16), lane classes and populations."""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import ulp
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.ulp import LaneClass

ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
BF16_ONE, BF16_TEN, BF16_ONE_HALF, BF16_FIFTEEN = 0x3F80, 0x4120, 0x3FC0, 0x4170


def bf16(*patterns):
    return np.array(patterns, dtype=np.uint16)


# --------------------------------------------------------------------------------------------
# The index
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", [ulp.index, ulp.index_by_search])
def test_daz_index_documented_bf16_values(method):
    # TANH_ULP_DIAGNOSTIC_REPORT.md and test_tanh_ulp_diagnostic.py (tenstorrent/tt-metal,
    # tests/ttnn/unit_tests): 0xFF7F -> 0, 0x8080 -> 32,511, 0 -> 32,512, 0x0080 -> 32,513,
    # 0x7F7F -> 65,024.
    got = method(bf16(0xFF7F, 0x8080, 0x0000, 0x0080, 0x7F7F))
    assert got.tolist() == [0, 32511, 32512, 32513, 65024]


@pytest.mark.parametrize("method", [ulp.index, ulp.index_by_search])
def test_daz_index_collapses_negative_zero_and_denormals_onto_zero(method):
    got = method(bf16(0x8000, 0x0001, 0x007F, 0x8001, 0x807F))
    assert got.tolist() == [32512] * 5


@pytest.mark.parametrize("method", [ulp.index, ulp.index_by_search])
def test_infinities_rank_one_past_the_largest_finite_and_nan_has_no_index(method):
    got = method(bf16(0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81))
    assert got.tolist() == [65025, -1] + [ulp.NAN_INDEX] * 3


@pytest.mark.parametrize("fmt", ["bf16", "fp16"])
@pytest.mark.parametrize("flush", [True, False])
def test_bitwise_and_sorted_search_indices_agree_on_every_16_bit_pattern(fmt, flush):
    a = ulp.index(ALL16, fmt, flush_subnormals=flush)
    b = ulp.index_by_search(ALL16, fmt, flush_subnormals=flush)
    np.testing.assert_array_equal(a, b)
    # and so on every adjacent pair of encodings
    np.testing.assert_array_equal(np.abs(np.diff(a)), np.abs(np.diff(b)))


def test_bitwise_and_sorted_search_distances_agree_on_random_bf16_pairs():
    rng = np.random.default_rng(20261126)
    x, y = (rng.integers(0, 1 << 16, 300_000).astype(np.uint16) for _ in range(2))
    finite = ~(np.isin(x >> 7 & 0xFF, [0xFF]) | np.isin(y >> 7 & 0xFF, [0xFF]))
    d_a = np.abs(ulp.index(x) - ulp.index(y))[finite]
    d_b = np.abs(ulp.index_by_search(x) - ulp.index_by_search(y))[finite]
    np.testing.assert_array_equal(d_a, d_b)


@pytest.mark.parametrize("flush", [True, False])
def test_fp32_bitwise_and_binade_search_indices_agree(flush):
    rng = np.random.default_rng(7)
    random = rng.integers(0, 1 << 32, 400_000, dtype=np.uint32)
    # every binade edge and its neighbours, both signs, plus the subnormal band's ends
    edges = (np.arange(256, dtype=np.uint32) << 23)[:, None] + np.array([0, 1, 0x7FFFFF],
                                                                        dtype=np.uint32)
    edges = edges.reshape(-1)
    edges = np.concatenate([edges, edges - np.uint32(1), edges | np.uint32(1 << 31)])
    bits = np.concatenate([random, edges])
    np.testing.assert_array_equal(ulp.index(bits, "fp32", flush_subnormals=flush),
                                  ulp.index_by_search(bits, "fp32", flush_subnormals=flush))


def test_daz_index_matches_the_llk_signed_rank_formula_on_every_bf16_pattern():
    # tt-llk helpers/ulp.py (tt-metal, tt_metal/tt-llk/tests/python_tests): signed rank
    # sign * max(|bits & 0x7FFF| - 127, 0), the subnormal band flushed to 0; +0 equals -0.
    b = ALL16.astype(np.int64)
    rank = np.maximum((b & 0x7FFF) - 127, 0) * np.where(b & 0x8000, -1, 1)
    finite = (b >> 7 & 0xFF) != 0xFF
    np.testing.assert_array_equal(ulp.index(ALL16)[finite] - 32512, rank[finite])


# --------------------------------------------------------------------------------------------
# helpers/ulp.py's documented examples (C4)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt, zero, smallest_normal, denormal", [
    ("bf16", 0x0000, 0x0080, 0x0001), ("fp32", 0x00000000, 0x00800000, 0x00000001)])
def test_flush_makes_smallest_normal_one_step_from_zero(fmt, zero, smallest_normal, denormal):
    dtype = np.uint16 if fmt == "bf16" else np.uint32
    sign = 0x8000 if fmt == "bf16" else 0x80000000
    expected = np.array([zero, zero, sign | zero, smallest_normal, denormal], dtype=dtype)
    actual = np.array([smallest_normal, sign | smallest_normal, smallest_normal, zero, zero],
                      dtype=dtype)
    assert ulp.distance(expected, actual, fmt=fmt).distance.tolist() == [1, 1, 1, 1, 0]


def test_fp16_keeps_subnormals_by_default():
    expected = np.array([0x0000, 0x0000, 0x0000], dtype=np.uint16)
    actual = np.array([0x0001, 0x0400, 0x8001], dtype=np.uint16)   # tiniest, smallest normal
    assert ulp.distance(expected, actual, fmt="fp16").distance.tolist() == [1, 1024, 1]
    flushed = ulp.distance(expected, actual, fmt="fp16", flush_subnormals=True)
    assert flushed.distance.tolist() == [0, 1, 0]


def test_bf16_one_to_ten_is_416_steps_and_one_and_a_half_to_fifteen_432():
    got = ulp.distance(bf16(BF16_ONE, BF16_ONE_HALF), bf16(BF16_TEN, BF16_FIFTEEN))
    assert got.distance.tolist() == [416, 432]


def test_positive_and_negative_zero_are_zero_steps_apart():
    assert ulp.distance(bf16(0x0000), bf16(0x8000)).distance.tolist() == [0]


# --------------------------------------------------------------------------------------------
# The legacy index with its 129-step gap
# --------------------------------------------------------------------------------------------

def test_legacy_index_documented_values():
    got = ulp.legacy_index(bf16(0xFF7F, 0x8080, 0x0000, 0x8000, 0x0001, 0x0080, 0x7F7F, 0x7F80,
                                0xFF80, 0x7FC0))
    assert got.tolist() == [0, 32511, 32640, 32640, 32640, 32641, 65152, 65281, -1, -1]


def test_legacy_convention_counts_129_where_daz_index_counts_1():
    expected, actual = bf16(0x0000, 0x0000, 0x8080), bf16(0x8080, 0x0080, 0x0080)
    assert ulp.distance(expected, actual, "daz-index-legacy-129").distance.tolist() == [129, 1, 130]
    assert ulp.distance(expected, actual, "daz-index").distance.tolist() == [1, 1, 2]


def test_legacy_differs_from_daz_index_by_128_exactly_across_zero():
    rng = np.random.default_rng(3)
    x, y = (rng.integers(0, 1 << 16, 300_000).astype(np.uint16) for _ in range(2))
    legacy = ulp.distance(x, y, "daz-index-legacy-129")
    daz = ulp.distance(x, y, "daz-index")
    ok = (legacy.distance >= 0) & (legacy.lane_class == LaneClass.MEASURABLE)
    vx, vy = (ulp.formats.bits_to_float64(v, ulp.BF16) for v in (x, y))
    vx = np.where(np.abs(vx) < 2.0**-126, 0.0, vx)
    vy = np.where(np.abs(vy) < 2.0**-126, 0.0, vy)
    crossing = ((vx < 0) & (vy >= 0)) | ((vy < 0) & (vx >= 0))
    np.testing.assert_array_equal((legacy.distance - daz.distance)[ok],
                                  np.where(crossing, 128, 0)[ok])


def test_legacy_treats_negative_infinity_as_unmeasurable():
    got = ulp.distance(bf16(0xFF80, 0x7F80), bf16(0xFF80, 0x7F80), "daz-index-legacy-129")
    assert got.distance.tolist() == [ulp.UNMEASURABLE, 0]


# --------------------------------------------------------------------------------------------
# Lane classes and summaries
# --------------------------------------------------------------------------------------------

def test_lane_classes_and_summary_keep_mismatches_out_of_the_statistics():
    expected = bf16(0x3F80, 0x3F80, 0x7F80, 0x7F7F, 0x7F80, 0x7FC0, 0x7FC0, 0x3F80)
    actual = bf16(0x3F80, 0x3F83, 0x7F80, 0x7F80, 0xFF80, 0x7FC1, 0x3F80, 0xFFC0)
    got = ulp.distance(expected, actual)
    assert got.lane_class.tolist() == [
        LaneClass.MEASURABLE, LaneClass.MEASURABLE, LaneClass.BOTH_INF,
        LaneClass.NONFINITE_MISMATCH, LaneClass.NONFINITE_MISMATCH, LaneClass.NAN_BOTH,
        LaneClass.NAN_MISMATCH, LaneClass.NAN_MISMATCH]
    assert got.distance.tolist()[:4] == [0, 3, 0, 1]         # max finite -> Inf: one step
    assert got.distance.tolist()[5:] == [ulp.UNMEASURABLE] * 3
    summary = got.summary()
    assert summary["lanes"] == 8 and summary["counted"] == 3
    assert summary["classes"] == {"measurable": 2, "both_inf": 1, "nonfinite_mismatch": 2,
                                  "nan_both": 1, "nan_mismatch": 2}
    assert summary["max"] == 3 and summary["worst_index"] == 1
    assert summary["mean"] == 1.0 and summary["exact_fraction"] == pytest.approx(2 / 3)


@pytest.mark.parametrize("name, size", [("all", 65536), ("finite", 65280),
                                        ("finite-nonzero", 65278), ("daz", 65025),
                                        ("normal", 65024)])
def test_bf16_populations_have_the_documented_sizes(name, size):
    assert ulp.population(name).size == size


# --------------------------------------------------------------------------------------------
# Fractional (C1 as PR #56076 scores) and raw int16 (#35290)
# --------------------------------------------------------------------------------------------

def test_fractional_divides_by_the_spacing_above_the_rounded_reference():
    ref = np.array([1.0, 1.0, -1.0, 0.999, 0.75])
    actual = bf16(0x3F81, 0x3F7F, 0xBF81, 0x3F80, 0x3F40)
    got = ulp.distance(ref, actual, "fractional").distance
    # spacing above 1.0 is 2**-7: one step up reads 1, one step down (2**-8) reads 0.5;
    # 0.999 rounds to 1.0 in BF16, so |1 - 0.999| / 2**-7 = 0.128; 0.75 is exact.
    np.testing.assert_array_equal(got, [1.0, 0.5, 1.0, (1 - 0.999) / 2.0**-7, 0.0])


def test_fractional_at_the_top_of_the_range_uses_the_top_binade_spacing():
    largest = float(np.float32(np.uint32(0x7F7F0000).view(np.float32)))
    ref = np.array([largest, largest, 3.5e38, 3.5e38, np.inf])
    actual = bf16(0x7F7F, 0x7F7E, 0x7F80, 0x7F7F, 0x7F80)
    got = ulp.distance(ref, actual, "fractional")
    np.testing.assert_array_equal(got.distance, [0.0, 1.0, 0.0, np.inf, 0.0])
    assert got.lane_class.tolist() == [LaneClass.MEASURABLE, LaneClass.MEASURABLE,
                                       LaneClass.BOTH_INF, LaneClass.NONFINITE_MISMATCH,
                                       LaneClass.BOTH_INF]


def test_fractional_zero_reference_uses_the_smallest_subnormal_spacing():
    ref = np.array([0.0, 0.0, -0.0, np.nan])
    actual = bf16(0x0000, 0x0080, 0x8001, 0x3F80)
    got = ulp.distance(ref, actual, "fractional")
    np.testing.assert_array_equal(got.distance[:3], [0.0, 128.0, 1.0])
    assert np.isnan(got.distance[3]) and got.lane_class[3] == LaneClass.NAN_MISMATCH


def test_raw_int16_counts_across_zero_like_issue_35290():
    expected = bf16(0x0000, 0x0000, 0x0001, 0x3F80, 0x0080, 0x7FC0)
    actual = bf16(0x8000, 0x8001, 0x8001, 0x3F81, 0x8080, 0x7FC0)
    got = ulp.distance(expected, actual, "raw-int16").distance
    # int16(0x8001) = -32767: +0 against the negative denormal is the report's "32,767 ULP",
    # which DAZ reads as 0 steps.
    assert got.tolist() == [0, 32767, 32768, 1, 32768, ulp.UNMEASURABLE]
    assert ulp.distance(expected, actual).distance.tolist()[:2] == [0, 0]


def test_a_reference_result_supplies_bits_or_unrounded_values():
    from sfpu_sim.reference import reference

    ref = reference("tanh", bf16(0x3F80), cache=False)      # tanh(1) = 0.76159...
    actual = bf16(0x3F42)
    assert ulp.distance(ref, actual).distance.tolist() == [1]
    frac = ulp.distance(ref, actual, "fractional").distance[0]
    assert frac == pytest.approx((0.7615941559557649 - 0.7578125) / 2.0**-8, rel=1e-15)


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------

def test_unknown_convention_is_a_one_line_error_naming_the_known_ones():
    with pytest.raises(SfpuSimError) as info:
        ulp.distance(bf16(0), bf16(0), "ulp-ish")
    assert isinstance(info.value, ulp.UnknownConvention)
    message = str(info.value)
    assert "\n" not in message and "daz-index" in message and "raw-int16" in message


@pytest.mark.parametrize("call", [
    lambda: ulp.distance(np.array([1.0]), bf16(0)),                    # floats as bits
    lambda: ulp.distance(bf16(0), bf16(0), "fractional"),              # bits as reference
    lambda: ulp.distance(np.array([0x12345]), bf16(0)),                # not a bf16 pattern
    lambda: ulp.distance(bf16(0), bf16(0), "daz-index-legacy-129", "fp16"),
    lambda: ulp.distance(bf16(0), bf16(0), fmt="fp8"),
    lambda: ulp.population("everything"),
])
def test_bad_input_raises_a_one_line_sfpu_sim_error(call):
    with pytest.raises(ulp.UlpError) as info:
        call()
    assert "\n" not in str(info.value)
