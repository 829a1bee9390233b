"""exp and reciprocal kernels (kernels/exp.py, kernels/reciprocal.py): programs build, special
values and spot values derived by hand from the sources, and the published ULP claims (tt-metal
PR #25946, PR #33563, issue #32970, the tt-llk source comments)."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from kernels.exp import (
    exp_21f,
    exp_f32_accurate,
    exp_init,
    exp_legacy,
    round_nearest_int32,
)
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim import registry
from sfpu_sim.sfpi import dst_reg, reinterpret, trace, vFloat
from sfpu_sim.sweeps import DevicePath, run_device, sweep

CHIPS = ("wormhole", "blackhole")
EXP_KERNELS = ("exp", "exp_fp32", "exp_approx", "exp_piecewise_approx", "exp_legacy")
RECIP_KERNELS = ("reciprocal", "reciprocal_fp32", "reciprocal_approx", "reciprocal_sfpi",
                 "reciprocal_sfpi_fp32", "reciprocal_sfpi_approx")

POS_INF, NEG_INF, POS_NAN, NEG_NAN = 0x7F80, 0xFF80, 0x7FC0, 0xFFC0
DENORMALS = (0x0001, 0x007F, 0x8001, 0x807F)


def bf16(value: float) -> int:
    """The BF16 pattern of a BF16-exact value."""
    bits = int(np.float32(value).view(np.uint32))
    assert bits & 0xFFFF == 0, f"{value} is not BF16-exact"
    return bits >> 16


def run(kernel: str, chip: str, inputs, dest: str = "bf16", output_format: str = "bf16"):
    """Output bit patterns of a registered kernel for BF16 inputs (patterns or values)."""
    bits = [x if isinstance(x, int) else bf16(x) for x in inputs]
    program = registry.get(kernel).program(chip)
    out = run_device(program, np.array(bits, dtype=np.uint16),
                     DevicePath(dest=dest, output_format=output_format)).output
    return [int(v) for v in out]


@lru_cache(maxsize=None)
def measured(kernel: str, chip: str, dest: str = "bf16", output_format: str = "bf16",
             convention: str = "daz-index"):
    """One shared sweep per cell (all 65,536 BF16 inputs, RNE reference)."""
    return sweep(registry.get(kernel), chip, dest=dest, output_format=output_format,
                 ulp_convention=convention)


def max_on(result, low=None, high=None, *, magnitude=False):
    """Largest measured distance over inputs low <= x <= high (or |x| with magnitude)."""
    a = result.arrays
    x = np.abs(a["x"]) if magnitude else a["x"]
    inside = a["counted"].copy()
    if low is not None:
        inside &= x >= low
    if high is not None:
        inside &= x <= high
    return float(a["distance"][inside].max())


# --------------------------------------------------------------------------------------------
# Programs build (8 LRegs suffice) on every chip
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", EXP_KERNELS + RECIP_KERNELS)
def test_program_builds_and_stores(name, chip):
    program = registry.get(name).program(chip)
    assert any(ins.mnemonic == "SFPSTORE" for ins in program)


def _block_bodies():
    """One small kernel per building block other families import."""
    def exp21f_unrounded():
        dst_reg[0] = exp_21f(dst_reg[0], False)

    def exp21f_rounded():
        dst_reg[0] = exp_21f(dst_reg[0], True)

    def f32_accurate():
        dst_reg[0] = exp_f32_accurate(dst_reg[0])

    def legacy():
        dst_reg[0] = exp_legacy(dst_reg[0])

    def rounding():
        k, k_int = round_nearest_int32(dst_reg[0])
        dst_reg[0] = k + reinterpret(vFloat, k_int)

    def recip(n):
        def body():
            x = dst_reg[0]
            dst_reg[0] = reciprocal(x + 1.0, n) * x       # inside an expression
        return body

    return {"exp_21f(False)": exp21f_unrounded, "exp_21f(True)": exp21f_rounded,
            "exp_f32_accurate": f32_accurate, "exp_legacy": legacy,
            "round_nearest_int32": rounding, "reciprocal<0>": recip(0),
            "reciprocal<1>": recip(1), "reciprocal<2>": recip(2)}


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("block", sorted(_block_bodies()))
def test_building_block_traces(block, chip):
    def init():
        exp_init()
        reciprocal_init()

    assert len(trace(_block_bodies()[block], chip, init=init)) > 3


# --------------------------------------------------------------------------------------------
# exp (BF16 Dst): exp_21f + float_to_fp16b(y, 0)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("chip", CHIPS)
def test_exp_of_zero_and_denormals_is_one(chip):
    # x = 0: xlog2 = 127, fraction 0 -> p = 1.0017248 * 2**0, which rounds to 1.0. Denormal
    # inputs read as 0 in the first SFPMAD (DAZ).
    assert run("exp", chip, [0x0000, 0x8000, *DENORMALS]) == [0x3F80] * 6


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_overflows_to_inf_from_88_72(chip):
    # xlog2 = x/ln2 + 127 clamps at 255 for x >= 88.72: exponent field 255, +Inf after the
    # rounding. 88.5 (xlog2 = 254.68; the BF16 value below 89) is still finite.
    out = run("exp", chip, [89.0, 89.5, 100.0, 8192.0, 0x7F7F, POS_INF])
    assert out == [POS_INF] * 6
    assert run("exp", chip, [88.5])[0] & 0x7F80 != 0x7F80


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_underflows_to_zero_from_minus_87_3(chip):
    # xlog2 < 1 for x < -87.34: exponent field 0, a denormal that float_to_fp16b makes +0.
    out = run("exp", chip, [-87.5, -88.0, -100.0, -8192.0, 0xFF7F, NEG_INF])
    assert out == [0x0000] * 6
    assert run("exp", chip, [-87.0])[0] & 0x7F80 != 0         # xlog2 = 1.49: normal


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_positive_nan_gives_inf(chip):
    # +NaN * c + 127 is a positive NaN on both chips; SFPSWAP orders it above 255, so the
    # clamp yields 255 -> +Inf.
    assert run("exp", chip, [POS_NAN]) == [POS_INF]


def test_exp_negative_nan_differs_per_chip():
    # Wormhole's SFPMAD keeps the NaN's sign (-NaN sorts below 0: clamp to 0 -> +0);
    # Blackhole's returns the canonical +NaN (clamp to 255 -> +Inf). fma.c models.
    assert run("exp", "wormhole", [NEG_NAN]) == [0x0000]
    assert run("exp", "blackhole", [NEG_NAN]) == [POS_INF]


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_within_one_bf16_ulp(chip):
    """PR #25946: "main 264 -> 1" (bf16)."""
    assert measured("exp", chip).summary["max_ulp"] <= 1


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_working_range_fractional_ulp_at_most_one(chip):
    """PR #25946 scores |device - ref| / spacing (fractional) on the working range
    [-87, 88.5] and reports max 1."""
    assert max_on(measured("exp", chip, convention="fractional"), -87.0, 88.5) <= 1.0


# --------------------------------------------------------------------------------------------
# exp_fp32 (FP32 Dst): _sfpu_exp_f32_accurate_
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("chip", CHIPS)
def test_exp_fp32_within_one_fp32_ulp(chip):
    """PR #33563: "always within 1 ULP" in FP32 (WH and BH), measured on the FP32 path."""
    result = measured("exp_fp32", chip, dest="fp32", output_format="fp32")
    assert result.summary["max_ulp"] <= 1
    assert result.summary["lane_classes"]["nonfinite_mismatch"] == 0


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_fp32_special_values(chip):
    # 0: z = 0, k = 0, r = 0, p = 1 exactly. z = x/ln2 >= 128 (89.0 -> 128.4, +Inf) -> +Inf;
    # z <= -127 (-88.5 -> -127.7, -Inf) -> 0; +NaN: NaN - 128 is a positive NaN, so the
    # "z >= 128" test (a sign test) takes it -> +Inf.
    out = run("exp_fp32", chip, [0x0000, 0x8000, 89.0, POS_INF, -88.5, NEG_INF, POS_NAN],
              dest="fp32", output_format="fp32")
    assert out == [0x3F800000, 0x3F800000, 0x7F800000, 0x7F800000, 0, 0, 0x7F800000]
    assert run("exp_fp32", chip, [88.5], "fp32", "fp32")[0] & 0x7F800000 != 0x7F800000


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_fp32_of_one_is_e_within_one_ulp(chip):
    e_bits = int(np.float32(np.e).view(np.uint32))       # 0x402DF854
    assert abs(run("exp_fp32", chip, [1.0], "fp32", "fp32")[0] - e_bits) <= 1


# --------------------------------------------------------------------------------------------
# exp_approx: Schraudolph (FAST_APPROX), straight-line form of the SFPLOADMACRO kernel
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("chip", CHIPS)
def test_exp_approx_spot_values(chip):
    # t = A*x + (B - C), A = 369.329925537109375, B - C = 32500.818359375; u = round(t) as
    # uint16; result bits = u << 15, truncated to BF16 by the store:
    #   x = 0:  t = 32500.82 -> 32501 = 0x7EF5 -> 0x3F7A8000 -> 0x3F7A (0.9765625)
    #   x = 1:  t = 32870.15 -> 32870 = 0x8066 -> 0x40330000 -> 0x4033 (2.796875)
    #   x = 89: t = 65371.18 -> 65371 = 0xFF5B -> 0x7FAD8000: exponent 255, a NaN
    #   +Inf:   t = +Inf -> 65535 (saturated) -> 0x7FFF8000: NaN
    #   x <= -88.5 (clamped to -88.5): |t| <= 185 -> u << 15 < 2**23, a denormal: 0 after store
    out = run("exp_approx", chip, [0.0, 1.0, 89.0, POS_INF, -88.5, -100.0, NEG_INF])
    assert out == [0x3F7A, 0x4033, 0x7FAD, 0x7FFF, 0x0000, 0x0000, 0x0000]


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_approx_fp32_max_ulp_matches_pr_33563(chip):
    """PR #33563 table: exp+fast+approx max 380'000 FP32 ULP (WH and BH)."""
    result = measured("exp_approx", chip, dest="fp32", output_format="fp32")
    assert round(result.summary["max_ulp"], -4) == 380_000


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_approx_bf16_within_six_ulp(chip):
    # 380,000 FP32 ULP / 2**16 = 5.8 BF16 ULP.
    assert measured("exp_approx", chip).summary["max_ulp"] <= 6


# --------------------------------------------------------------------------------------------
# exp_piecewise_approx: APPROXIMATION_MODE=true, FAST_APPROX=false
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("chip", CHIPS)
def test_exp_piecewise_approx_special_values(chip):
    # x >= 89 -> +Inf, x < -42 -> 0 (explicit branches). x = 0: 0*1.442695 + 192 =
    # 0x43400000; + 0xBD3F0000 = 0x007F0000 (mod 2**32); << 7 = 0x3F800000 = 1.0.
    out = run("exp_piecewise_approx", chip,
              [89.0, 8192.0, POS_INF, -42.25, -100.0, NEG_INF, 0x0000, 0x8000])
    assert out == [POS_INF] * 3 + [0x0000] * 3 + [0x3F80] * 2
    assert run("exp_piecewise_approx", chip, [-42.0])[0] != 0


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_piecewise_approx_of_one(chip):
    # t = fp32(1.442695 + 192) (one rounding), then (bits(t) + 0xBD3F0000) << 7, truncated.
    t = np.float32(np.float64(np.float32(1.442695)) + 192.0)
    expected = (((int(t.view(np.uint32)) + 0xBD3F0000) << 7) & 0xFFFFFFFF) >> 16
    assert run("exp_piecewise_approx", chip, [1.0]) == [expected]


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_piecewise_approx_fp32_max_ulp_matches_pr_33563(chip):
    """PR #33563 table: exp+approx max 720'000 FP32 ULP; range not stated (its plots span a
    few units around 0); here [-30, 30], away from the x < -42 and x -> 89 cut-offs."""
    result = measured("exp_piecewise_approx", chip, dest="fp32", output_format="fp32")
    assert round(max_on(result, -30.0, 30.0), -4) == 720_000


# --------------------------------------------------------------------------------------------
# exp_legacy: tt-llk _sfpu_exp_ + _sfpu_reciprocal_<2> for x < 0
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("chip", CHIPS)
def test_exp_legacy_special_values(chip):
    # 0: exponent < 0, no scaling; 1 + 0*(...) = 1. +Inf: squared up to 8 times -> +Inf.
    # -Inf: exp(+Inf) = +Inf, then reciprocal -> 0.
    assert run("exp_legacy", chip, [0x0000, POS_INF, NEG_INF]) == [0x3F80, POS_INF, 0x0000]


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_legacy_of_one(chip):
    # |x| = 1 has exponent 0 >= 0: v = setexp(1, 126) = 0.5; t = 0.5*0.8373 + 0.859375;
    # v = 0.5*t + 1; one squaring (exponent 0 -> the loop's first v_and fails); store
    # truncates. Each step is one SFPMAD rounding (products of two floats are exact in float64).
    c8373 = np.float64(np.uint32(0x3F56594B).view(np.float32))
    t = np.float32(0.5 * c8373 + 0.859375)
    v = np.float32(0.5 * np.float64(t) + 1.0)
    v = np.float32(np.float64(v) * np.float64(v))
    assert run("exp_legacy", chip, [1.0]) == [int(v.view(np.uint32)) >> 16]


@pytest.mark.parametrize("chip", CHIPS)
def test_exp_legacy_working_range_error_near_pr_25946_main(chip):
    """PR #25946 reports "main 264" (fractional, [-87, 88.5]) for the exp it replaced, i.e.
    _sfpu_exp_ with the pre-Sep-2025 reciprocal. The error is _sfpu_exp_'s own (its relative
    error is squared up 2**k-fold, worst near |x| = 64); our Jan-2026 reciprocal differs, so
    the figure is matched to within the few percent the reciprocal change can move it."""
    worst = max_on(measured("exp_legacy", chip, convention="fractional"), -87.0, 88.5)
    assert 250.0 <= worst <= 280.0


# --------------------------------------------------------------------------------------------
# reciprocal
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", ("reciprocal", "reciprocal_approx", "reciprocal_sfpi"))
def test_reciprocal_zero_and_infinity(name, chip):
    # 0 -> Inf, Inf -> 0 with the input's sign. Wormhole: the scale's exponent field is
    # 255 - e (0 -> Inf, 255 -> 0). Blackhole: SFPARECIP (0 -> Inf, Inf -> 0; the Newton step
    # is skipped / the fix-up keeps the exponent). BF16 denormal inputs read as zero.
    out = run(name, chip, [0x0000, 0x8000, POS_INF, *DENORMALS])
    assert out == [POS_INF, NEG_INF, 0x0000, POS_INF, POS_INF, NEG_INF, NEG_INF]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", ("reciprocal", "reciprocal_approx", "reciprocal_sfpi"))
def test_reciprocal_of_negative_infinity(name, chip):
    # setsgn / SFPARECIP give -0. float_to_fp16b(-0, 0) is +0 (Wormhole's reciprocal and
    # both chips' reciprocal_sfpi round; Blackhole's fast_8b_3c and the approximate kernels
    # store -0 as is).
    rounds_to_plus_zero = name == "reciprocal_sfpi" or (name == "reciprocal" and
                                                        chip == "wormhole")
    assert run(name, chip, [NEG_INF]) == [0x0000 if rounds_to_plus_zero else 0x8000]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", ("reciprocal_fp32", "reciprocal_sfpi_fp32"))
def test_reciprocal_fp32_zero_and_infinity(name, chip):
    # fast_24b_5c: e = 1 - 0*Inf = NaN -> min(NaN, 1) = 1 -> y*1 + y keeps the seed's Inf / 0.
    out = run(name, chip, [0x0000, 0x8000, POS_INF, NEG_INF], "fp32", "fp32")
    assert out == [0x7F800000, 0xFF800000, 0x00000000, 0x80000000]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", ("reciprocal", "reciprocal_sfpi"))
def test_reciprocal_powers_of_two_exact(name, chip):
    xs = [1.0, -1.0, 2.0, 0.5, -4.0, 2.0 ** 100, 2.0 ** -100]
    assert run(name, chip, xs) == [bf16(1.0 / x) for x in xs]


@pytest.mark.parametrize("chip", CHIPS)
def test_reciprocal_approx_of_one(chip):
    # Blackhole: SFPARECIP(1.0) = 0.99609375 (BlackholeA0 SFPARECIP.md). Wormhole: <0> = one
    # Newton step from the quadratic seed, just below 1.0; the store truncates it to 0.99609375.
    assert run("reciprocal_approx", chip, [1.0]) == [bf16(0.99609375)]


@pytest.mark.parametrize("chip", CHIPS)
def test_reciprocal_bf16_within_one_ulp(chip):
    assert measured("reciprocal", chip).summary["max_ulp"] <= 1


def test_reciprocal_blackhole_correctly_rounded_below_2_126():
    """Issue #32970: BH reciprocal bf16 "<1*". fast_8b_3c picks the nearer of the seed and the
    next BF16 value by the sign of x*midpoint - 1: every input with |x| < 2**126 gets the RNE
    result; |x| = 2**126 gives 0 (SFPARECIP's range ends there) instead of 2**-126."""
    result = measured("reciprocal", "blackhole")
    assert max_on(result, high=2.0 ** 126, magnitude=True) <= 1
    assert max_on(result, high=np.nextafter(2.0 ** 126, 0), magnitude=True) == 0
    fractional = measured("reciprocal", "blackhole", convention="fractional")
    assert max_on(fractional, high=np.nextafter(2.0 ** 126, 0), magnitude=True) < 1.0
    assert run("reciprocal", "blackhole", [2.0 ** 126, -(2.0 ** 126)]) == [0x0000, 0x8000]


def test_reciprocal_wormhole_fractional_below_one():
    """tt-llk comment: max_iter = 1 is "sufficient for bfloat16 (<= 0.5 ulps)"; after the
    ties-away rounding every result is within 1 fractional ULP below 2**126."""
    fractional = measured("reciprocal", "wormhole", convention="fractional")
    assert max_on(fractional, high=np.nextafter(2.0 ** 126, 0), magnitude=True) < 1.0


@pytest.mark.parametrize("chip", CHIPS)
def test_sfpu_reciprocal_one_step_within_half_bf16_ulp(chip):
    """tt-llk: "max_iter = 1: sufficient for bfloat16/float16 precision (<= 0.5 ulps)" -- the
    unrounded <1> result against exact 1/x, every normal input whose reciprocal is normal."""
    def body():
        x = dst_reg[0]
        dst_reg[0] = reciprocal(x, 1)

    bits = np.arange(1 << 16, dtype=np.uint32)
    exponent = (bits >> 7) & 0xFF
    inputs = bits[(exponent > 0) & (exponent < 253)].astype(np.uint16)
    program = trace(body, chip, init=reciprocal_init)
    out = run_device(program, inputs, DevicePath(dest="fp32", output_format="fp32")).output
    x = (inputs.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    exact = 1.0 / x
    spacing = 2.0 ** (np.floor(np.log2(np.abs(exact))) - 7)
    error = np.abs(out.view(np.float32).astype(np.float64) - exact) / spacing
    assert error.max() <= 0.5


@pytest.mark.parametrize("chip", CHIPS)
def test_sfpu_reciprocal_two_steps_within_one_fp32_ulp(chip):
    """tt-llk: "max_iter = 2: sufficient for float32 precision (<= 1 ulps)"."""
    result = measured("reciprocal_sfpi_fp32", chip, dest="fp32", output_format="fp32")
    assert result.summary["max_ulp"] <= 1


def test_reciprocal_fp32_wormhole_within_one_fp32_ulp():
    result = measured("reciprocal_fp32", "wormhole", dest="fp32", output_format="fp32")
    assert result.summary["max_ulp"] <= 1


def test_reciprocal_fp32_blackhole_within_one_fp32_ulp_below_2_112():
    """fast_24b_5c adds the correction y*(e + e^2 + e^3) to the seed y; once |x| > 2**112 that
    product can fall below 2**-126 (|e| is down to ~2**-16 where the seed is close), and the
    Blackhole multiply-add flushes an underflowing product to 0 (see the next test)."""
    result = measured("reciprocal_fp32", "blackhole", dest="fp32", output_format="fp32")
    assert max_on(result, high=2.0 ** 112, magnitude=True) <= 1


def test_reciprocal_fp32_blackhole_large_inputs_keep_the_seed():
    # x = 2**120: y = SFPARECIP = 0.99609375 * 2**-120, e = 1 - x*y = 2**-8, t2 = e + e^2 + e^3.
    # The correction t2*y (~2**-128) underflows on its own, which the Blackhole multiply-add
    # turns into exactly 0 (fma.c), so y + 0 = the seed: 1 BF16-ulp (65,536 FP32 ULP) low.
    seed = int(np.float32(0.99609375 * 2.0 ** -120).view(np.uint32))
    assert run("reciprocal_fp32", "blackhole", [2.0 ** 120], "fp32", "fp32") == [seed]
    # At 2**100 the correction (~2**-108) is normal: the exact 2**-100.
    exact = int(np.float32(2.0 ** -100).view(np.uint32))
    assert run("reciprocal_fp32", "blackhole", [2.0 ** 100], "fp32", "fp32") == [exact]


@pytest.mark.parametrize("chip", CHIPS)
def test_reciprocal_approx_within_one_ulp(chip):
    assert measured("reciprocal_approx", chip).summary["max_ulp"] <= 1
