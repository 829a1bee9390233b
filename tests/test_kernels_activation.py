"""Activation kernels: tanh variants, sigmoid, silu, softplus, tanh derivative (kernels/tanh.py,
kernels/sigmoid.py, kernels/silu.py, kernels/softplus.py, kernels/tanh_derivative.py; after
tt-metal's and tt-llk's ckernel_sfpu_{tanh,sigmoid,silu,softplus,tanh_derivative}.h, with the
tt-metal PRs and issues and the tt-llk accuracy budget each test names).

Expected special values and spot values are derived by hand from the sources' algorithms (LUT
coefficients decoded, the branch each input takes, ``float_to_fp16b`` mapping -0 to +0 and NaN
to +-Inf, the truncating BF16 SFPSTORE, Wormhole's NaN 0x7F800001 becoming +-Inf when truncated
to BF16); the ULP bounds are the sources' claims, each cited where it is used, in the
convention the source used.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from sfpu_sim import formats, reference, registry, ulp
from sfpu_sim.arch import ARCHES
from sfpu_sim.isa.convert import fp32_to_bf16_ties_away
from sfpu_sim.sweeps import DevicePath, run_device, sweep

CHIPS = sorted(ARCHES)

MY_KERNELS = [
    "tanh_approx", "tanh_approx_2026_09", "tanh_approx_2026_09_minimax", "tanh_fp32",
    "tanh_fp32_2025_11",
    "sigmoid", "sigmoid_fp32", "sigmoid_approx", "sigmoid_llk_lut",
    "silu", "silu_2026_02", "silu_llk_legacy",
    "softplus", "softplus_2026_04", "softplus_2026_09",
    "tanh_derivative", "tanh_derivative_lut",
]

PLUS_INF, MINUS_INF, QNAN = 0x7F80, 0xFF80, 0x7FC0
PLUS_ZERO, MINUS_ZERO = 0x0000, 0x8000
DENORMALS = [0x0001, 0x007F, 0x8001, 0x807F]


def bf16(value: float) -> int:
    """The BF16 pattern of a value that is exactly representable."""
    bits = int(formats.fp32_to_bits(np.float32(value)))
    assert bits & 0xFFFF == 0, value
    return bits >> 16


def bf16_trunc(value: float) -> int:
    """The BF16 pattern the truncating SFPSTORE makes of an FP32 value (value given as an exact
    float that is representable in FP32)."""
    bits = int(formats.fp32_to_bits(np.float32(value)))
    assert float(np.float32(value)) == value, value
    return bits >> 16


def value(bits: int) -> float:
    return float(formats.bits_to_fp32(np.uint32(bits) << 16))


ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


@functools.lru_cache(maxsize=None)
def device_outputs(kernel: str, arch: str, output: str = "bf16") -> np.ndarray:
    """Output bits for every BF16 input pattern (index = input bits), through the kernel's
    registered Dst format. One run per kernel, chip and output format: a run costs about the
    same for 32 lanes as for 65,536."""
    spec = registry.get(kernel)
    path = DevicePath(dest=spec.dest, output_format=output)
    return run_device(spec.program(arch), ALL_BF16, path).output


def out(kernel: str, arch: str, inputs, output: str = "bf16") -> list[int]:
    """Device output bits for the given BF16 input patterns."""
    full = device_outputs(kernel, arch, output)
    return [int(full[int(b)]) for b in inputs]


def is_nan(bits: int) -> bool:
    return (bits & 0x7F80) == 0x7F80 and (bits & 0x7F) != 0


def is_inf(bits: int) -> bool:
    return (bits & 0x7FFF) == 0x7F80


def not_a_number_lut(arch: str, bits: int) -> bool:
    """What ``0 * Inf + B`` (a LUT's last segment on an infinite input) gives after the BF16
    store: NaN on Blackhole; on Wormhole the FMA's NaN is 0x7F800001 (sign kept by SGN_RETAIN
    or the arithmetic), which the truncating store turns into an infinity."""
    return is_nan(bits) if arch == "blackhole" else is_inf(bits)


@pytest.fixture(scope="module")
def measured():
    """Shared sweeps (rne reference, the kernel's registered Dst): (kernel, chip, output) ->
    SweepResult. Fractional distances are computed from the same arrays."""
    cache = {}

    def get(kernel, arch, output_format="bf16"):
        key = (kernel, arch, output_format)
        if key not in cache:
            cache[key] = sweep(registry.get(kernel), arch, dest=registry.get(kernel).dest,
                               output_format=output_format)
        return cache[key]
    return get


def fractional(result) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, fractional distance, counted) of a sweep (PR #56076's convention: unrounded
    reference, spacing of the rounded |reference|)."""
    a = result.arrays
    f = ulp.distance(a["reference_value"], a["actual"], "fractional")
    return a["x"], f.distance, f.counted


# --------------------------------------------------------------------------------------------
# Every kernel builds on both chips (the DSL raises on more than 8 live LRegs)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", MY_KERNELS)
def test_builds(name, arch):
    spec = registry.get(name)
    assert arch in spec.chips
    program = spec.program(arch)
    assert any(ins.mnemonic == "SFPSTORE" for ins in program)
    assert spec.function in reference.functions()


# --------------------------------------------------------------------------------------------
# tanh_approx: 3-entry SFPLUT (0x1DFF / 0x481A / 0xFF00)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
def test_tanh_approx_values(arch):
    # |x| < 1: 0.90625|x|; [1, 2): 0.09375|x| + 0.8125; >= 2: 1.0; sign retained; truncation.
    xs = [0.5, -0.5, 1.5, -1.5, 2.0, 100.0, -2.0 ** 127, 0.75]
    expected = [bf16(0.453125), bf16(-0.453125), bf16(0.953125), bf16(-0.953125), bf16(1.0),
                bf16(1.0), bf16(-1.0), bf16_trunc(0.90625 * 0.75)]
    assert out("tanh_approx", arch, [bf16(x) for x in xs]) == expected
    # +-0 and denormals (read as zero by the multiply): signed zero
    assert out("tanh_approx", arch, [PLUS_ZERO, MINUS_ZERO] + DENORMALS) == \
        [PLUS_ZERO, MINUS_ZERO, PLUS_ZERO, PLUS_ZERO, MINUS_ZERO, MINUS_ZERO]
    # +-Inf: 0 * Inf + 1.0 is invalid (the Sep-2026 header: "0 * inf + 1 is NaN")
    for bits in out("tanh_approx", arch, [PLUS_INF, MINUS_INF]):
        assert not_a_number_lut(arch, bits)


@pytest.mark.parametrize("arch", CHIPS)
def test_tanh_approx_ulp_claim(arch, measured):
    """PR #56076 (WH n300): main's 3-entry LUT max 37.03 bf16 ULP (fractional, float64
    reference). Its figures hold for |x| >= 2**-8, where its statistics are taken: below that
    the device flushes 0.90625*x to zero for the smallest normals, which the fractional
    convention (denormal spacing 2**-133) scores up to 128+."""
    x, d, counted = fractional(measured("tanh_approx", arch))
    core = counted & (np.abs(x) >= 2.0 ** -8)
    assert round(float(d[core].max()), 2) == 37.03
    # LLK accuracy budget (Sep 2026) did not list this table; the integer-step max follows
    assert measured("tanh_approx", arch).summary["max_ulp"] == 37


# --------------------------------------------------------------------------------------------
# tanh_approx_2026_09 (+ minimax): 6-entry SFPLUTFP32 table, PR #56076
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["tanh_approx_2026_09", "tanh_approx_2026_09_minimax"])
def test_tanh_approx_lut6_values(name, arch):
    # 0.25: 0.9619140625 * 0.25 (exact in FP32), truncated; 2.5: 0.0390625*2.5 + 0.8828125 =
    # 0.98046875 (exact); 3 and beyond: (0, 1.0) -> exactly 1 ("A*3 + B is exactly 1.0" at the
    # join); -2.5 by sign retention.
    xs = [0.25, 2.5, -2.5, 3.0, 1000.0, -2.0 ** 127]
    expected = [bf16_trunc(0.9619140625 * 0.25), bf16(0.98046875), bf16(-0.98046875),
                bf16(1.0), bf16(1.0), bf16(-1.0)]
    assert out(name, arch, [bf16(x) for x in xs]) == expected
    # segment 0's intercept is 0: tanh(+-0) = +-0; denormals read as zero
    assert out(name, arch, [PLUS_ZERO, MINUS_ZERO] + DENORMALS) == \
        [PLUS_ZERO, MINUS_ZERO, PLUS_ZERO, PLUS_ZERO, MINUS_ZERO, MINUS_ZERO]
    for bits in out(name, arch, [PLUS_INF, MINUS_INF]):
        assert not_a_number_lut(arch, bits)


@pytest.mark.parametrize("arch", CHIPS)
def test_tanh_approx_tied_and_minimax_tables_differ_where_documented(arch):
    # Segment 1 ([0.5, 1)) intercept and segment 3 ([1.5, 2)) slope differ by one FP16 ulp:
    # x = 0.75: 0.576171875*0.75 + (0.19287109375 | 0.1929931640625); x = 1.75:
    # (0.096435546875 | 0.09649658203125)*1.75 + 0.76806640625 -- all exact in FP32.
    tied = out("tanh_approx_2026_09", arch, [bf16(0.75), bf16(1.75)])
    minimax = out("tanh_approx_2026_09_minimax", arch, [bf16(0.75), bf16(1.75)])
    assert tied == [bf16_trunc(0.576171875 * 0.75 + 0.19287109375),
                    bf16_trunc(0.096435546875 * 1.75 + 0.76806640625)]
    assert minimax == [bf16_trunc(0.576171875 * 0.75 + 0.1929931640625),
                       bf16_trunc(0.09649658203125 * 1.75 + 0.76806640625)]


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["tanh_approx_2026_09", "tanh_approx_2026_09_minimax"])
def test_tanh_approx_lut6_ulp_claim(name, arch, measured):
    """PR #56076: the 6-entry table measures 10.00 max bf16 ULP (fractional, float64 reference,
    statistics over |x| >= 2**-8; "the bfloat16 sweep is identical either way" for the tied and
    minimax tables). The LLK accuracy budget (Sep 2026, integer steps) lists Tanh approx: 10."""
    result = measured(name, arch)
    x, d, counted = fractional(result)
    core = counted & (np.abs(x) >= 2.0 ** -8)
    assert round(float(d[core].max()), 2) == 10.00
    assert result.summary["max_ulp"] == 10


# --------------------------------------------------------------------------------------------
# tanh_fp32 (Jan 2026) and tanh_fp32_2025_11 (continued fraction)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["tanh_fp32", "tanh_fp32_2025_11"])
def test_tanh_fp32_specials(name, arch):
    ones = [0x3F800000, 0xBF800000]
    # +-Inf: 2*sigmoid(+-Inf) - 1 = +-1 (fp32 accurate); continued fraction: Inf * recip(Inf)
    # = Inf * 0 = NaN, then min(NaN, 1) = 1 (SFPSWAP orders NaN above everything), sign of x.
    assert out(name, arch, [PLUS_INF, MINUS_INF], output="fp32") == ones
    # +-0 and denormals: x*P(x^2) / x * (num/den) with DAZ -> signed zero (FTZ in the store)
    zeros = out(name, arch, [PLUS_ZERO, MINUS_ZERO] + DENORMALS, output="fp32")
    assert all(b & 0x7FFFFFFF == 0 for b in zeros)
    # large |x|: exactly +-1
    assert out(name, arch, [bf16(50.0), bf16(-50.0)], output="fp32") == ones


@pytest.mark.parametrize("arch", CHIPS)
def test_tanh_fp32_ulp_claim(arch, measured):
    """PR #34927 (Jan 2026): the new fp32 tanh is "accurate within ~4 ULPs" (fp32 output; here
    over every BF16 input). With a BF16 output (packer rounding) it stays within 1."""
    assert measured("tanh_fp32", arch, "fp32").summary["max_ulp"] <= 4
    assert measured("tanh_fp32", arch).summary["max_ulp"] <= 1


@pytest.mark.parametrize("arch", CHIPS)
def test_tanh_fp32_2025_11_ulp_claim(arch, measured):
    """Issue #33718 (Dec 2025): fp32 tanh (the continued-fraction kernel) "accurate within
    ~2000 ULPs"."""
    assert measured("tanh_fp32_2025_11", arch, "fp32").summary["max_ulp"] <= 2000


# --------------------------------------------------------------------------------------------
# sigmoid (accurate, BF16) and sigmoid_fp32
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["sigmoid", "sigmoid_fp32"])
def test_sigmoid_specials(name, arch):
    """PR #28486 / #31266: sigmoid(+-0) = 0.5 (was 0.5078 with the older kernel), +Inf -> 1,
    -Inf -> 0. By the algorithm: exp(-0) = 1 exactly, 1/(1+1) = 0.5; exp(-Inf) clamps to 0
    (exp_21f) or hits the underflow branch (f32), 1/1 = 1; exp(+Inf) is +Inf (overflow branch /
    clamp to the 255 exponent), reciprocal -> 0. Denormal inputs read as zero."""
    inputs = [PLUS_ZERO, MINUS_ZERO, PLUS_INF, MINUS_INF] + DENORMALS
    expected = [bf16(0.5), bf16(0.5), bf16(1.0), PLUS_ZERO] + [bf16(0.5)] * 4
    assert out(name, arch, inputs) == expected
    # far tails: exactly 1 above ~ +17 in BF16, 0 below the exp clamp
    assert out(name, arch, [bf16(100.0), bf16(-100.0)]) == [bf16(1.0), PLUS_ZERO]


@pytest.mark.parametrize("arch", CHIPS)
def test_sigmoid_ulp_claim(arch, measured):
    """PR #31266 (Nov 2025, the sigmoid_tile kernel modelled here): "always < 1ULP" on BF16
    (fractional); PR #28486 (Sep 2025, the composite sigmoid_accurate with exp21f, fractional
    too): max 2.08 with ULP > 1 only in (-86, 5.53). Both hold for x >= -87. Below -87.5 the
    device gives exactly 0 (the reciprocal of the clamped exp_21f) where sigmoid(x) is a tiny
    normal or denormal, which the fractional convention scores against the denormal spacing (up
    to ~109 at x = -87.5); neither PR's tool counted these. In integer steps (rne reference)
    the kernel is within 1 everywhere."""
    result = measured("sigmoid", arch)
    x, d, counted = fractional(result)
    assert d[counted & (x >= -87.0)].max() < 1.0
    assert result.summary["max_ulp"] <= 1


@pytest.mark.parametrize("arch", CHIPS)
def test_sigmoid_fp32_bf16_output(arch, measured):
    """No figure is published for the FP32-Dst sigmoid; an exp with <= 1 fp32 ULP and two
    Newton steps must round (packer) to within 1 BF16 step."""
    assert measured("sigmoid_fp32", arch).summary["max_ulp"] <= 1


# --------------------------------------------------------------------------------------------
# sigmoid_approx (3-entry SFPLUT + 0.5) and sigmoid_llk_lut (6-entry + 0.5)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
def test_sigmoid_approx_values(arch):
    # |x| < 1: 0.2265625|x|; [1, 2): 0.265625|x| - 0.046875; >= 2: 0.5; sign retained; + 0.5
    xs = [0.0, 0.5, -0.5, 1.5, 2.0, -2.0, 40.0, -40.0]
    expected = [bf16(0.5), bf16(0.61328125), bf16(0.38671875),
                bf16_trunc(0.265625 * 1.5 - 0.046875 + 0.5), bf16(1.0), PLUS_ZERO, bf16(1.0),
                PLUS_ZERO]
    assert out("sigmoid_approx", arch, [bf16(x) for x in xs]) == expected
    for bits in out("sigmoid_approx", arch, [PLUS_INF, MINUS_INF]):
        assert not_a_number_lut(arch, bits)


@pytest.mark.parametrize("arch", CHIPS)
def test_sigmoid_approx_ulp_claim(arch, measured):
    """LLK accuracy budget (Sep 2026, WH, bf16 -> bf16, integer steps): SigmoidAppx 15,733
    (the kernel is unchanged through Sep 2026; the worst lane is x = +-2, where the table
    saturates to exactly 0 / 1)."""
    assert measured("sigmoid_approx", arch).summary["max_ulp"] == 15733


@pytest.mark.parametrize("arch", CHIPS)
def test_sigmoid_llk_lut_values(arch):
    # B0 = -0.000499725341796875 with sign retention: +0 -> 0.5 + 0.0004997 (truncated to
    # 0.5), -0 -> 0.5 - 0.0004997 (truncated to 0.498046875; the defect PR #55061 notes).
    # |x| >= 4 (TABLE2's last segment): +-(0 + 0.499755859375) + 0.5.
    xs = [0.0, -0.0, 4.0, 100.0, -4.0, -100.0]
    expected = [bf16(0.5), bf16(0.498046875), bf16_trunc(0.999755859375),
                bf16_trunc(0.999755859375), bf16(2.0 ** -12), bf16(2.0 ** -12)]
    assert out("sigmoid_llk_lut", arch, [bf16(x) for x in xs]) == expected
    # 3.5 lies in [2, 4) under TABLE2 (cut 4): 0.048492431640625*3.5 + 0.2998046875 + 0.5
    assert out("sigmoid_llk_lut", arch, [bf16(3.5)]) == \
        [bf16_trunc(0.048492431640625 * 3.5 + 0.2998046875 + 0.5)]


# --------------------------------------------------------------------------------------------
# silu (Jan 2026, two roundings), silu_2026_02 (one rounding), silu_llk_legacy
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["silu", "silu_2026_02"])
def test_silu_specials(name, arch):
    # +-0: 0 * 0.5 = +-0, float_to_fp16b makes -0 +0; denormals read as zero; +Inf: Inf * 1;
    # large x: x * 1 = x; -Inf: -Inf * sigmoid(-Inf) = -Inf * 0 = NaN, which float_to_fp16b
    # turns into an infinity (the reference is -0: silu has no special-case branch).
    inputs = [PLUS_ZERO, MINUS_ZERO, PLUS_INF, bf16(100.0)] + DENORMALS
    expected = [PLUS_ZERO, PLUS_ZERO, PLUS_INF, bf16(100.0)] + [PLUS_ZERO] * 4
    assert out(name, arch, inputs) == expected
    assert is_inf(out(name, arch, [MINUS_INF])[0])
    # x <= -88.5: exp_21f(-x) clamps to its top exponent, the reciprocal gives 0: silu = 0
    assert out(name, arch, [bf16(-90.0), bf16(-2.0 ** 100)]) == [PLUS_ZERO, PLUS_ZERO]


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["silu", "silu_2026_02"])
def test_silu_ulp_claims(name, arch, measured):
    """Issue #45520 (May 2026, BH, the single-rounding kernel): bf16 max 245 ULP (244.9,
    fractional), an FTZ artefact for very negative x where the device gives 0 and the float64
    golden is a tiny normal. The same lane is the worst for the double-rounding Jan-2026
    kernel and on Wormhole. LLK accuracy budget (Sep 2026, integer steps): Silu 790, the same
    lane (x = -87.5) in index steps."""
    result = measured(name, arch)
    x, d, counted = fractional(result)
    assert round(float(d[counted].max()), 1) == 244.9
    assert result.summary["max_ulp"] == 790
    worst = result.summary["worst"][0]
    assert worst["input"] == -87.5 and worst["output"] == 0.0


@pytest.mark.parametrize("arch", CHIPS)
def test_silu_double_rounding_changes_bits(arch, measured):
    """The Jan-2026 silu multiplies by a sigmoid already rounded to BF16; after PR #37186 the
    product of the unrounded sigmoid is rounded once. The two must differ on some lanes (and
    agree wherever sigmoid(x) is exactly representable, e.g. x = 0 and the saturated tails)."""
    jan = measured("silu", arch).arrays["actual"]
    feb = measured("silu_2026_02", arch).arrays["actual"]
    assert (jan != feb).sum() > 0
    assert out("silu", arch, [bf16(30.0), PLUS_ZERO]) == \
        out("silu_2026_02", arch, [bf16(30.0), PLUS_ZERO])


@pytest.mark.parametrize("arch", CHIPS)
def test_silu_llk_legacy_values(arch):
    # |x| <= 1: 0.229|x| + 0.5 (FP32 constants), x * s, truncated; |x| >= 5: s = 1 -> x, and
    # x <= -5: s = 1 - 1 = 0 -> x * 0 = signed zero; +-0 -> 0 * 0.5.
    s1 = float(np.float32(np.float32(0.229) + np.float32(0.5)))
    xs = [1.0, 5.0, 7.0, -7.0, 0.0]
    expected = [bf16_trunc(s1), bf16(5.0), bf16(7.0), MINUS_ZERO, PLUS_ZERO]
    got = out("silu_llk_legacy", arch, [bf16(x) for x in xs])
    assert got[:3] == expected[:3]
    assert [b & 0x7FFF for b in got[3:]] == [0, 0]


# --------------------------------------------------------------------------------------------
# softplus (Jan 2026), softplus_2026_04, softplus_2026_09
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
def test_softplus_specials(arch):
    # x >= 20 (threshold): Dst keeps x; 4 <= x < 20: x * 1; +Inf: not < 20, kept; -Inf:
    # exp_21f(-Inf) = 0; 0: the [-5, 4) fit's constant 0.6924354434013367, truncated.
    c0 = bf16_trunc(float(np.float32(0.6924354434013367)))
    xs = [bf16(25.0), bf16(6.0), PLUS_INF, MINUS_INF, PLUS_ZERO, MINUS_ZERO]
    expected = [bf16(25.0), bf16(6.0), PLUS_INF, PLUS_ZERO, c0, c0]
    assert out("softplus", arch, xs) == expected


@pytest.mark.parametrize("arch", CHIPS)
def test_softplus_ulp_claims(arch, measured):
    """PR #33766 (Dec 2025 - Jan 2026): max ~2.2 ULP (fractional, [-10, 10]); PR #42115 (WH,
    1024x1024 in [-10, 10], beta 1): main (this kernel) 2 ULP in integer steps."""
    result = measured("softplus", arch)
    x, d, counted = fractional(result)
    assert d[counted & (np.abs(x) <= 10)].max() <= 2.2
    assert result.summary["max_ulp"] <= 2


@pytest.mark.parametrize("arch", CHIPS)
def test_softplus_2026_04(arch, measured):
    """PR #42115 (Apr 2026, WH, beta 1): 1 ULP. Specials by the algorithm: residual(0) =
    C0 = 0.69310557842 rounded (RN, ties away) to BF16; x > 5: max(x, 0) + exp_21f(-x) -> x;
    -Inf: a = Inf > 5, exp_21f(-Inf) = 0, max(-Inf, 0) = 0 -> 0."""
    assert measured("softplus_2026_04", arch).summary["max_ulp"] <= 1
    c0 = fp32_to_bf16_ties_away(formats.fp32_to_bits(np.float32(6.9310557842e-01)))
    assert out("softplus_2026_04", arch, [PLUS_ZERO, bf16(7.0), MINUS_INF, bf16(25.0)]) == \
        [int(c0), bf16(7.0), PLUS_ZERO, bf16(25.0)]


@pytest.mark.parametrize("arch", CHIPS)
def test_softplus_2026_09(arch, measured):
    """Sep-2026 BF16 arm: the residual is zeroed for |t| > 5, so softplus(t < -5) = 0 (issue
    #51866) while t > 5 gives exactly t. LLK accuracy budget (Sep 2026, WH, integer steps):
    Softplus 15,190 -- the first lane past the cut, x = -5.03125 (softplus = 0.0065)."""
    assert out("softplus_2026_09", arch, [bf16(-6.0), bf16(-5.03125), bf16(6.0), MINUS_INF]) \
        == [PLUS_ZERO, PLUS_ZERO, bf16(6.0), PLUS_ZERO]
    result = measured("softplus_2026_09", arch)
    assert result.summary["max_ulp"] == 15190
    assert result.summary["worst"][0]["input"] == -5.03125


# --------------------------------------------------------------------------------------------
# tanh_derivative (sech^2, PR #39378) and tanh_derivative_lut
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
def test_tanh_derivative_specials(arch):
    # |x| >= 45 and +-Inf: 0 (neither branch taken); 44: 4 exp(-88) ~ 2.4e-38 is still a
    # normal (the ln4 trick): nonzero; +-0 and denormals: the polynomial at t = -1 -> 1.0.
    got = out("tanh_derivative", arch, [bf16(45.0), bf16(-60.0), PLUS_INF, MINUS_INF])
    assert got == [PLUS_ZERO] * 4
    tiny = out("tanh_derivative", arch, [bf16(44.0)])[0]
    assert tiny != 0 and value(tiny) > 2.0 ** -126
    assert out("tanh_derivative", arch, [PLUS_ZERO, MINUS_ZERO] + DENORMALS) == [bf16(1.0)] * 6


@pytest.mark.parametrize("arch", CHIPS)
def test_tanh_derivative_ulp_claim(arch, measured):
    """PR #39378 (Mar 2026): "Max ULP = 1 across all 65,026 valid BF16 values (hardware
    verified)" (BH, exhaustive)."""
    assert measured("tanh_derivative", arch).summary["max_ulp"] <= 1


@pytest.mark.parametrize("arch", CHIPS)
def test_tanh_derivative_lut(arch, measured):
    # 1 - lut(x)^2 in one SFPMAD: 0 -> 1; x = 1 -> 1 - 0.90625^2 = 0.1787109375 (exact);
    # |x| >= 2 -> 1 - 1 = 0 exactly; +-Inf: the LUT's 0 * Inf is invalid.
    assert out("tanh_derivative_lut", arch, [PLUS_ZERO, bf16(1.0), bf16(-1.0), bf16(2.0),
                                             bf16(-7.0)]) == \
        [bf16(1.0), bf16(0.1787109375), bf16(0.1787109375), PLUS_ZERO, PLUS_ZERO]
    # +-Inf: the LUT's 0 * Inf is invalid and the NaN propagates through v*(-v) + 1 (BH NaN;
    # WH's 0x7F800001 NaN truncates to an infinity in the BF16 store)
    for bits in out("tanh_derivative_lut", arch, [PLUS_INF, MINUS_INF]):
        assert is_nan(bits) if arch == "blackhole" else is_inf(bits)
    # The worst lane is where the table saturates: x = +-2 gives 0 against sech^2(2) = 0.0707;
    # its distance is the index distance from 0 to that rounded value.
    expected = reference.reference("tanh_derivative", np.array([bf16(2.0)], dtype=np.uint16),
                                   "rne", daz=True, ftz=True).bits
    steps = int(ulp.index(expected, "bf16")[0] - ulp.index(np.array([0], np.uint16), "bf16")[0])
    assert measured("tanh_derivative_lut", arch).summary["max_ulp"] == steps
