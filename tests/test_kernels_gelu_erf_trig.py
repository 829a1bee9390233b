"""The GELU, erf/erfc and sin/cos kernels (kernels/gelu.py, kernels/erf.py, kernels/trig.py):
special values as the sources compute them, the documented defects and spot values, the
published ULP figures (tt-metal issues #35290 and #32970, PR #39406, the tt-llk accuracy
budget, each under its own convention), and bit-exact agreement of the polynomial paths with
a model built directly on the chip's multiply-add."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from kernels import erf as erf_kernels
from kernels import gelu as gelu_kernels
from sfpu_sim import fma, formats, reference, registry, ulp
from sfpu_sim.isa.lanewise import lanes
from sfpu_sim.isa.lut import lut16_to_fp32
from sfpu_sim.sfpi import trace
from sfpu_sim.sweeps import run_device, sweep

CHIPS = ("wormhole", "blackhole")
KERNELS = ("gelu", "gelu_taylor_tiny", "gelu_approx", "gelu_cdf", "gelu_derivative",
           "gelu_derivative_approx", "erf", "erfc", "sin", "cos", "sin_2026_02", "cos_2026_02")
ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
with np.errstate(invalid="ignore"):
    X = formats.bits_to_bf16(ALL_BF16).astype(np.float64)
NORMAL = np.isfinite(X) & (np.abs(X) >= 2.0 ** -126)
FINITE = np.isfinite(X)
ONE, NEG_ONE, ZERO = np.uint32(0x3F800000), np.uint32(0xBF800000), np.uint32(0)


@pytest.fixture(scope="module")
def swept():
    """``swept(name, arch)``: one rne/daz-index sweep per kernel and chip, shared."""
    cache = {}

    def get(name, arch):
        if (name, arch) not in cache:
            cache[name, arch] = sweep(registry.get(name), arch, dest=registry.get(name).dest)
        return cache[name, arch]
    return get


@pytest.fixture(scope="module")
def outputs():
    """``outputs(name, arch)``: the kernel's BF16 output for every BF16 pattern (index = input
    bits), shared."""
    cache = {}

    def get(name, arch):
        if (name, arch) not in cache:
            cache[name, arch] = run_device(registry.get(name).program(arch), ALL_BF16).output
        return cache[name, arch]
    return get


def bits(*values) -> np.ndarray:
    return np.array(values, dtype=ml_dtypes.bfloat16).view(np.uint16)


def fp32_bits(value) -> np.uint32:
    return np.uint32(formats.fp32_to_bits(np.float32(value)))


def horner(arch, x, coefficients):
    """``c0 + x*(c1 + x*(... + x*cn))`` on FP32 patterns, one chip multiply-add per step."""
    mad = fma.MODELS[arch]
    acc = np.full_like(x, fp32_bits(coefficients[-1]))
    for c in reversed(coefficients[:-1]):
        acc = mad(x, acc, np.full_like(x, fp32_bits(c)))
    return acc


def fractional(result):
    """PR-thread "ULP" (the fractional ULP of tt-metal PR #39406, issue #32970): |y - f(x)| /
    spacing of bf16(|f(x)|)."""
    a = result.arrays
    return ulp.distance(a["reference_value"], a["actual"], "fractional")


# --------------------------------------------------------------------------------------------
# Every kernel
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", KERNELS)
def test_kernel_builds_within_eight_registers_and_ends_in_a_store(name, arch):
    spec = registry.get(name)
    assert spec.chips == CHIPS and spec.dest == "bf16"
    program = spec.program(arch)
    assert [i.mnemonic for i in program][-1] == "SFPSTORE"


# --------------------------------------------------------------------------------------------
# gelu (Jan 2026, Chebyshev POLYVAL15)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_special_values(arch):
    out = run_device(registry.get("gelu").program(arch),
                     np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x0001, 0x8001], np.uint16)
                     ).output
    # +0 -> 0. -0 and denormals are not zero to the raw-bits x == 0 test (SFPSETCC), so they
    # take the polynomial, whose multiply-adds read them as zero: c0 with x's sign, truncated.
    c0 = int(fp32_bits(gelu_kernels.CHEBYSHEV[0])) >> 16          # 0x37FA
    # +Inf is not < 3: result = x. -Inf < -5.5: 0.
    assert list(out) == [0x0000, 0x8000 | c0, 0x7F80, 0x0000, c0, 0x8000 | c0]


@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_is_the_identity_from_3_and_zero_below_minus_5_5(arch, outputs):
    out = outputs("gelu", arch)
    assert np.array_equal(out[FINITE & (X >= 3)], ALL_BF16[FINITE & (X >= 3)])
    assert np.all(out[FINITE & (X < -5.5)] == 0)


@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_tiny_inputs_return_the_constant_term_2_98e_5(arch, outputs):
    """Issue #35290: tiny |x| gives c0 = 2.98e-5 instead of x/2 (c0 = 0x37FA40F9, and
    c0 + 0.5x stays in the truncation bucket of 0x37FA for |x| < 2**-24)."""
    out = outputs("gelu", arch)
    tiny = NORMAL & (np.abs(X) < 2.0 ** -24)
    want = np.where(X[tiny] < 0, 0xB7FA, 0x37FA)
    assert np.array_equal(out[tiny], want)
    assert f"{float(formats.bits_to_bf16(np.array([0x37FA], np.uint16))[0]):.3g}" == "2.98e-05"


@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_returns_zero_below_minus_5_5_where_gelu_is_representable(arch, outputs):
    """Issue #35290: x < -5.5 returns 0 although gelu(x) is a normal BF16 down to -13.19."""
    region = FINITE & (X < -5.5) & (X >= -13.125)
    ref = reference.reference("gelu", ALL_BF16[region], "rne")
    assert np.all(ref.bits != 0x8000) and np.all(ref.bits != 0)
    assert reference.reference("gelu", bits(-13.1875), "rne").bits[0] == 0x8000   # below FTZ
    assert np.all(outputs("gelu", arch)[region] == 0)


@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_at_minus_5_5_is_minus_3_11e_4_and_1475_ulp(arch):
    """Issue #35290: -5.5 -> -3.11e-4 (true -1.04e-7), 1,475 ULP."""
    x = bits(-5.5)
    out = run_device(registry.get("gelu").program(arch), x).output
    assert f"{formats.bits_to_bf16(out)[0]:.3g}" == "-0.000311"
    ref = reference.reference("gelu", x, "rne")
    assert f"{ref.value[0]:.3g}" == "-1.04e-07"
    assert ulp.distance(ref, out, "daz-index").distance[0] == 1475


@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_reproduces_issue_35290_figures(arch):
    """Issue #35290's original report: all finite BF16 except +-0 (denormals kept), exact GELU
    -> FP32 -> BF16 by truncation, no DAZ/FTZ, raw int16 difference: max 32,767, mean 3,266,
    52.5% within 1. Its corrected DAZ model: ULP 0 for x < -13.2."""
    inputs = ulp.population("finite-nonzero")
    out = run_device(registry.get("gelu").program(arch), inputs).output
    ref = reference.reference("gelu", inputs, "truncate", daz=False, ftz=False)
    raw = ulp.distance(ref, out, "raw-int16")
    d = raw.distance[raw.counted]
    assert raw.counted.all() and d.max() == 32767
    assert 3266 <= d.mean() < 3267
    assert round(100 * (d <= 1).mean(), 1) == 52.5
    daz_ref = reference.reference("gelu", inputs, "truncate", daz=True, ftz=True)
    x = formats.bits_to_bf16(inputs).astype(np.float64)
    deep = x < -13.2
    assert np.all(ulp.distance(daz_ref, out, "raw-int16").distance[deep] == 0)


@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_polynomial_region_is_the_fused_horner_chain(arch, outputs):
    """-5.5 <= x < 3, x != 0: setsgn(poly15(x), x), one multiply-add per coefficient,
    truncated by the store."""
    region = NORMAL & (X >= -5.5) & (X < 3)
    x = ALL_BF16[region].astype(np.uint32) << 16
    p = horner(arch, x, gelu_kernels.CHEBYSHEV)
    want = formats.fp32_to_bf16_truncate((p & 0x7FFFFFFF) | (x & 0x80000000))
    assert np.array_equal(outputs("gelu", arch)[region], want)


@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_variant_b_chain_is_bit_identical_to_variant_a(arch, outputs):
    chain = run_device(trace(gelu_kernels.gelu_chain, arch), ALL_BF16).output
    assert np.array_equal(chain, outputs("gelu", arch))


@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_taylor_tiny_halves_tiny_inputs_and_is_gelu_elsewhere(arch, outputs):
    out, base = outputs("gelu_taylor_tiny", arch), outputs("gelu", arch)
    tiny = NORMAL & (np.abs(X) <= 1e-6) & (np.abs(X) >= 2.0 ** -125)   # x/2 still normal
    want = formats.bf16_to_bits((X[tiny] / 2).astype(ml_dtypes.bfloat16))
    assert np.array_equal(out[tiny], want)
    rest = FINITE & (np.abs(X) > 1e-6)
    assert np.array_equal(out[rest], base[rest])
    assert not np.array_equal(out[tiny], base[tiny])


# --------------------------------------------------------------------------------------------
# gelu_approx (6-entry LUT)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_approx_special_values(arch, outputs):
    out = outputs("gelu_approx", arch)
    # 0*0.5 + (0.19*0 + B0) with B0 = Lut16(0x86D8) = -1.044e-4 (the source comment says
    # -0.0150), truncated.
    b0 = int(lanes(lut16_to_fp32, np.array([0x86D8]))[0]) >> 16
    assert out[0x0000] == b0 and out[0x8000] == b0
    assert out[0x7F80] == 0x7F80
    # |x| >= 3: 0.5x + (0.5|x| + 0), exactly x for x > 0 and exactly 0 for x < 0.
    assert np.array_equal(out[FINITE & (X >= 3)], ALL_BF16[FINITE & (X >= 3)])
    assert np.all(out[FINITE & (X <= -3)] == 0)


@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_approx_max_ulp_is_the_llk_budget_figure(arch, swept):
    """tt-llk accuracy budget (Sep 2026, WH, bf16->bf16): GeluAppx 29,549 steps; the Sep-2026
    calculate_gelu_appx is this kernel (tt-llk _calculate_gelu_appx_ @c635ca695, unchanged)."""
    assert swept("gelu_approx", arch).summary["max_ulp"] == 29549


# --------------------------------------------------------------------------------------------
# gelu_cdf (tt-llk _calculate_gelu_accurate_)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_cdf_special_values(arch, outputs):
    out = outputs("gelu_cdf", arch)
    # +0: cdf(0) * 0. -0 is negative to the raw sign test: (1 - cdf(+0)) * -0 + 0 = +0.
    assert out[0x0000] == 0 and out[0x8000] == 0
    assert out[0x7F80] == 0x7F80
    # |x| >= 2.5: 0.44656975|x| + 0.58216001 > 1, clamped to 1: x * 1 = x, or (1 - 1) * x = 0.
    assert np.array_equal(out[FINITE & (X >= 2.5)], ALL_BF16[FINITE & (X >= 2.5)])
    assert np.all(out[FINITE & (X <= -2.5)] == 0)


@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_cdf_core_is_the_fused_polyval5_clamped_and_scaled(arch, outputs):
    region = NORMAL & (np.abs(X) < 2.5)
    x = ALL_BF16[region].astype(np.uint32) << 16
    mad = fma.MODELS[arch]
    p = horner(arch, x & 0x7FFFFFFF, gelu_kernels.CDF_CORE)
    p = np.where(formats.bits_to_fp32(p) > 1.0, ONE, p)
    negative = (x >> 31) == 1
    cdf = np.where(negative, mad(p, np.full_like(p, NEG_ONE), np.full_like(p, ONE)), p)
    want = formats.fp32_to_bf16_truncate(mad(cdf, x, np.zeros_like(x)))
    assert np.array_equal(outputs("gelu_cdf", arch)[region], want)


# --------------------------------------------------------------------------------------------
# gelu derivatives
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_derivative_special_values(arch):
    out = run_device(registry.get("gelu_derivative").program(arch), bits(0.0, -0.0, 10, -10)
                     ).output
    # 0: exp(0) = 1, partial = 0, lut(0) = 0: 0.5. |x| = 10: exp(-50) * 10 * 0.398 ~ 8e-22 is
    # lost next to the LUT's +-0.5, so 0.5 + 0.5 = 1 and -0.5 + 0.5 = 0.
    assert list(out) == [0x3F00, 0x3F00, 0x3F80, 0x0000]


@pytest.mark.parametrize("arch", CHIPS)
def test_gelu_derivative_approx_special_values(arch, outputs):
    out = outputs("gelu_derivative_approx", arch)
    # Segment 0: 0.8|x| + 0.5 with x's sign: +0 -> 0.5; -0 -> -0.5 < 0 -> +1 -> 0.5.
    assert out[0x0000] == 0x3F00 and out[0x8000] == 0x3F00
    # |x| >= 3: 0*|x| + 1 with x's sign: 1, or -1 + 1 = 0.
    assert np.all(out[FINITE & (X >= 3)] == 0x3F80)
    assert np.all(out[FINITE & (X <= -3)] == 0)


# --------------------------------------------------------------------------------------------
# erf / erfc (Jan 2026)
# --------------------------------------------------------------------------------------------

C0_ERF = int(fp32_bits(erf_kernels.ERF_0_TO_1[0])) >> 16          # 6.61e-5 truncated: 0x388A


@pytest.mark.parametrize("arch", CHIPS)
def test_erf_special_values(arch, outputs):
    out = outputs("erf", arch)
    # +0 and denormals: body(0) = c0 of the low piece (the floor); -0 and negative denormals
    # are negative to the raw sign test: -body(+0).
    assert [out[b] for b in (0x0000, 0x0001, 0x8000, 0x8001)] == [C0_ERF, C0_ERF,
                                                                   0x8000 | C0_ERF,
                                                                   0x8000 | C0_ERF]
    assert out[0x7F80] == 0x3F80 and out[0xFF80] == 0xBF80
    assert np.all(out[FINITE & (X >= 3)] == 0x3F80)
    assert np.all(out[FINITE & (X <= -3)] == 0xBF80)


@pytest.mark.parametrize("arch", CHIPS)
def test_erf_of_tiny_inputs_is_the_6_6e_5_floor(arch, outputs):
    tiny = NORMAL & (np.abs(X) < 2.0 ** -23)
    want = np.where(X[tiny] < 0, 0x8000 | C0_ERF, C0_ERF)
    assert np.array_equal(outputs("erf", arch)[tiny], want)


@pytest.mark.parametrize("arch", CHIPS)
def test_erf_matches_pr_39406_original_figures(arch, swept):
    """PR #39406 (BH, exhaustive BF16 on [-10, 10], fractional ULP): original kernel MaxULP
    7.2e35, MeanULP 9.8e33 (the 6.6e-5 floor against erf(x) ~ 1e-38)."""
    result = swept("erf", arch)
    frac = fractional(result)
    domain = frac.counted & (np.abs(result.arrays["x"]) <= 10)
    d = frac.distance[domain]
    assert 7.15e35 <= d.max() < 7.25e35
    assert 9.8e33 <= d.mean() < 9.9e33


def _erf_body_model(arch, a):
    low = horner(arch, a, erf_kernels.ERF_0_TO_1)
    high = horner(arch, a, erf_kernels.ERF_1_TO_3)
    return np.where(formats.bits_to_fp32(a) >= 1.0, high, low)


@pytest.mark.parametrize("arch", CHIPS)
def test_erf_and_erfc_pieces_are_the_fused_polyval5_chains(arch, outputs):
    region = NORMAL & (np.abs(X) < 3)
    x = ALL_BF16[region].astype(np.uint32) << 16
    body = _erf_body_model(arch, x & 0x7FFFFFFF)
    negative = (x >> 31) == 1
    mad = fma.MODELS[arch]
    erf_want = formats.fp32_to_bf16_truncate(np.where(negative, body ^ 0x80000000, body))
    assert np.array_equal(outputs("erf", arch)[region], erf_want)
    ones = np.full_like(x, ONE)
    erfc = np.where(negative, mad(ones, ones, body), mad(body, np.full_like(x, NEG_ONE), ones))
    assert np.array_equal(outputs("erfc", arch)[region], formats.fp32_to_bf16_truncate(erfc))


@pytest.mark.parametrize("arch", CHIPS)
def test_erfc_special_values(arch, outputs):
    out = outputs("erfc", arch)
    # +0: 1 - 6.6e-5 = 0.99993, truncated to 0.99609375; -0: 1 + 6.6e-5, truncated to 1.
    assert out[0x0000] == 0x3F7F and out[0x8000] == 0x3F80
    assert out[0x7F80] == 0x0000 and out[0xFF80] == 0x4000
    assert np.all(out[FINITE & (X >= 3)] == 0)
    assert np.all(out[FINITE & (X <= -3)] == 0x4000)


# --------------------------------------------------------------------------------------------
# sin / cos
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["sin", "cos", "sin_2026_02", "cos_2026_02"])
def test_trig_at_zero(name, arch, outputs):
    out = outputs(name, arch)
    want = 0x0000 if name.startswith("sin") else 0x3F80
    assert out[0x0000] == want and out[0x8000] == want


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["sin", "cos"])
def test_jan_2026_trig_is_faithful_below_1e3(name, arch, swept):
    """Issue #32970 (BH, Nov 2025): "<1 ULP for |x| < 1e3". Measured exhaustively it is
    faithful (at most one step, daz-index) from 2**-124 up; fractionally a few lanes exceed 1
    (reduction error of x*0.31830987 plus the truncating store): the claim holds as "<= 1
    step", not as a strict fractional bound. Below 2**-124, x/pi underflows and flushes: 0."""
    result = swept(name, arch)
    a = result.arrays
    inside = a["counted"] & (np.abs(a["x"]) >= 2.0 ** -124) & (np.abs(a["x"]) < 1e3)
    assert a["distance"][inside].max() <= 1
    assert fractional(result).distance[inside].max() < 1.5
    if name == "sin":
        flushed = NORMAL & (np.abs(X) < 2.0 ** -125)
        assert np.all(run_device(registry.get(name).program(arch), ALL_BF16[flushed]
                                 ).output & 0x7FFF == 0)


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["sin", "cos"])
def test_jan_2026_trig_overflows_past_1e5(name, arch, outputs):
    """Issue #32970: "overflow for |x| > 1e5": float_to_int16 saturates at 32767, so from the
    first BF16 above 32767*pi (103,424) the reduced argument is no longer in [-1/2, 1/2]."""
    out = formats.bits_to_bf16(outputs(name, arch)).astype(np.float64)
    beyond = FINITE & (np.abs(X) >= 103424)
    assert np.all(~np.isfinite(out[beyond]) | (np.abs(out[beyond]) > 1))


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["sin_2026_02", "cos_2026_02"])
def test_feb_2026_trig_is_faithful_below_1e5(name, arch, swept):
    """PR #37714: four-stage Cody-Waite reduction (exact while j*P0 is, j < 2**16) and
    float_to_fp16b rounding: at most one step from the correctly rounded value below 1e5."""
    a = swept(name, arch).arrays
    inside = a["counted"] & (np.abs(a["x"]) < 1e5)
    assert a["distance"][inside].max() <= 1
