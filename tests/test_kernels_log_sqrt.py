"""log, sqrt and rsqrt kernels (kernels/log.py, kernels/sqrt.py; after tt-metal's
ckernel_sfpu_log.h of PR #33391 and tt-llk's ckernel_sfpu_sqrt.h / ckernel_sfpu_rsqrt.h).

Expected values are derived from the sources by hand (the algorithm's special-case branches,
``float_to_fp16b`` turning NaN into +Inf, SFPSETCC testing raw bits so -0 counts as negative,
FTZ of denormal products) or are the correctly rounded function values; the ULP bounds are the
sources' claims (PR #33391, tt-llk #230, issue #32970) or bounds derived from the algorithm's
error analysis, each stated where it is used.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from sfpu_sim import formats, registry, ulp
from sfpu_sim.arch import ARCHES
from sfpu_sim.machine import Machine
from sfpu_sim.sfpi import dst_reg, trace
from sfpu_sim.sweeps import DevicePath, run_device, sweep

CHIPS = sorted(ARCHES)
LOG_KERNELS = ["log", "log_legacy", "log_fp32"]
SQRT_KERNELS = ["sqrt", "rsqrt", "sqrt_fp32", "rsqrt_fp32", "sqrt_approx", "rsqrt_approx",
                "sqrt_legacy", "rsqrt_legacy"]

PLUS_INF_BF16, MINUS_INF_BF16 = 0x7F80, 0xFF80
QNAN_FP32, PLUS_INF_FP32 = 0x7FC00000, 0x7F800000


ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def _run_fp32(program, values: np.ndarray) -> np.ndarray:
    """Run a program on FP32 lane values in an FP32 Dst (row 0) and read row 0 back."""
    m = Machine(program.arch, lanes=values.size, dst_rows=16)
    m.config.sfpu_fp32 = True
    m.cc.enable, m.cc.flags[:] = True, True
    m.dst.write_lanes(0, values, "fp32")
    m.run(program)
    return m.dst.read_lanes(0, "fp32")


def _registered(name: str) -> bool:
    return name in registry.names()


def bf16(value: float) -> int:
    """The BF16 pattern of a value that is exactly representable."""
    bits = int(formats.fp32_to_bits(np.float32(value)))
    assert bits & 0xFFFF == 0, value
    return bits >> 16


def bf16_rne(value: float) -> int:
    """A float64 value rounded to nearest-even BF16 (via FP32; the values used here are far
    from FP32 midpoints)."""
    return int(formats.fp32_to_bf16_rne(formats.fp32_to_bits(np.float32(value))))


@functools.lru_cache(maxsize=None)
def program(kernel: str, arch: str):
    return registry.get(kernel).program(arch)


def run(kernel: str, arch: str, inputs):
    """Device output bits per BF16 input: BF16 for a BF16-Dst kernel, FP32 for an FP32-Dst one."""
    dest = registry.get(kernel).dest
    path = DevicePath(dest=dest, output_format="fp32" if dest == "fp32" else "bf16")
    return run_device(program(kernel, arch), np.asarray(inputs, dtype=np.uint16), path).output


@pytest.fixture(scope="module")
def measured():
    """Shared sweeps (one per kernel, chip and output format; daz-index, RNE reference):
    (kernel, chip, output format) -> SweepResult."""
    cache = {}

    def get(kernel, arch, output_format="bf16"):
        key = (kernel, arch, output_format)
        if key not in cache:
            spec = registry.get(kernel)
            cache[key] = sweep(registry.get(kernel), arch, dest=spec.dest, output_format=output_format)
        return cache[key]
    return get


def fractional(result) -> tuple[np.ndarray, np.ndarray]:
    """Fractional ULP (|device - ref| / spacing of bf16(|ref|), unrounded reference: the PR-table
    convention) of a sweep's measured population, and which lanes it counts."""
    arrays = result.arrays
    with np.errstate(invalid="ignore"):
        frac = ulp.distance(arrays["reference_value"], arrays["actual"], "fractional", "bf16")
    return frac.distance, frac.counted


# --------------------------------------------------------------------------------------------
# Builds
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", LOG_KERNELS + SQRT_KERNELS)
def test_program_builds_on_each_chip(name, arch):
    if not _registered(name):
        pytest.skip(f"{name} not registered (kernels/reciprocal.py missing)")
    built = program(name, arch)
    assert built.name == name and len(built) > 0
    assert sum(ins.mnemonic == "SFPSTORE" for ins in built) >= 1


# --------------------------------------------------------------------------------------------
# log (Jan 2026, PR #33391), BF16 Dst
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
def test_log_special_values(arch):
    """calculate_log_body<false, false, false>: in == 0 (raw bits) -> -Inf; bits == 0x7F800000
    -> +Inf; exponent 128 (NaN, -Inf) or in < 0 (raw sign: -0 too) -> quiet NaN, which
    float_to_fp16b(., 0) turns into +Inf ("returns nan for fp32 and inf for bf16")."""
    cases = {0x0000: MINUS_INF_BF16,            # log(+0) = -Inf
             0x7F80: PLUS_INF_BF16,             # log(+Inf) = +Inf
             0x8000: PLUS_INF_BF16,             # -0: negative by its sign bit -> NaN -> +Inf
             0xFF80: PLUS_INF_BF16,             # -Inf -> NaN -> +Inf
             0x7FC0: PLUS_INF_BF16,             # NaN -> NaN -> +Inf
             0xFFC0: PLUS_INF_BF16,
             0x7F81: PLUS_INF_BF16,             # signalling NaN pattern
             bf16(-1.0): PLUS_INF_BF16,         # x < 0 -> NaN -> +Inf
             bf16(-0.5): PLUS_INF_BF16}
    out = run("log", arch, list(cases))
    assert [hex(int(v)) for v in out] == [hex(v) for v in cases.values()]


@pytest.mark.parametrize("arch", CHIPS)
def test_log_of_every_negative_input_is_plus_inf(arch):
    negatives = np.arange(0x8000, 0x10000, dtype=np.uint32).astype(np.uint16)
    out = run("log", arch, negatives)
    assert np.all(out == PLUS_INF_BF16)


@pytest.mark.parametrize("arch", CHIPS)
def test_log_of_a_positive_denormal_is_the_log_of_two_to_minus_127_times_1_m(arch):
    """A denormal is not zero to the raw-bits ``in == 0`` test: exexp gives -127 and setexp
    makes 1.m, so the kernel returns log(2**-127 * 1.m) (about -88) within its 1-ULP claim,
    not -Inf."""
    denormals = np.arange(1, 0x80, dtype=np.uint16)
    out = run("log", arch, denormals)
    fractions = denormals.astype(np.float64) / 128.0
    expected = np.array([bf16_rne(-127 * math.log(2) + math.log1p(f)) for f in fractions],
                        dtype=np.uint16)
    assert np.all(formats.is_finite(out, formats.BF16))
    steps = np.abs(out.astype(np.int64) - expected.astype(np.int64))   # same sign, same binade
    assert steps.max() <= 1


@pytest.mark.parametrize("arch", CHIPS)
def test_log_spot_values(arch):
    """PR #33391 fixed the error around 1: log(1) is +0 (P5(1) cancels to 0 in FP32), and the
    correctly rounded values at 2, 1/2 and 2.71875."""
    cases = {bf16(1.0): 0x0000,
             bf16(2.0): bf16_rne(math.log(2.0)),          # 0.69314718 -> 0x3F31
             bf16(0.5): bf16_rne(math.log(0.5)),          # -> 0xBF31
             bf16(2.71875): bf16_rne(math.log(2.71875))}  # 1.00019 -> 0x3F80
    assert cases[bf16(2.0)] == 0x3F31 and cases[bf16(2.71875)] == 0x3F80
    out = run("log", arch, list(cases))
    assert [hex(int(v)) for v in out] == [hex(v) for v in cases.values()]


@pytest.mark.parametrize("arch", CHIPS)
def test_log_max_ulp_is_below_one_fractional_and_at_most_one_step(arch, measured):
    """tt-metal PR #33391 "bf16 >200 -> 1", issue #32970 "bf16 <1" (fractional
    |device - ref| / spacing, the PR-table convention); in whole steps (daz-index, RNE
    reference) that is at most 1."""
    result = measured("log", arch)
    distance, counted = fractional(result)
    assert distance[counted].max() < 1.0
    assert result.summary["max_ulp"] <= 1
    assert result.summary["lane_classes"]["nonfinite_mismatch"] == 0


# --------------------------------------------------------------------------------------------
# log_legacy (tt-llk _calculate_log_body_, before PR #33391)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
def test_log_legacy_special_values(arch):
    """Only in == 0 is special-cased (-Inf); -0 is not zero to the raw-bits test."""
    out = run("log_legacy", arch, [0x0000, bf16(1.0)])
    assert int(out[0]) == MINUS_INF_BF16
    # log(1): m = 1 makes every product exact, so the Horner chain is three FP32 additions
    # (each SFPMAD rounds once, RNE) of the FP32 constants, 0.1058 - 0.7166 + 2.0871 - 1.4753
    # = 0.001 (not 0), plus 0 * ln2; then the BF16 SFPSTORE truncates.
    a, b, c, d = (np.float32(v) for v in (0.1058, -0.7166, 2.0871, -1.4753))
    series = np.float32(np.float32(np.float32(a + b) + c) + d)
    assert int(out[1]) == int(formats.fp32_to_bits(series)) >> 16
    assert 0.00099 < float(series) < 0.00101


@pytest.mark.parametrize("arch", CHIPS)
def test_log_legacy_error_near_one_exceeds_200_ulp(arch, measured):
    """PR #33391: before the fix, ttnn.log had a max error above 200 BF16 ULP around 1
    (fractional convention)."""
    result = measured("log_legacy", arch)
    distance, counted = fractional(result)
    x = result.arrays["x"]
    near_one = counted & (np.abs(x - 1.0) < 0.1) & (x != 1.0)     # log(1) = 0 has no ULP scale
    assert distance[near_one].max() > 200


# --------------------------------------------------------------------------------------------
# log_fp32 (PR #33391, FP32 Dst)
# --------------------------------------------------------------------------------------------

def _need_log_fp32():
    if not _registered("log_fp32"):
        pytest.skip("log_fp32 needs kernels/reciprocal.py (reciprocal, reciprocal_init)")


@pytest.mark.parametrize("arch", CHIPS)
def test_log_fp32_special_values(arch):
    """calculate_log_f32_body: +Inf -> +Inf, NaN / x < 0 (raw sign, -0 too) -> NaN,
    +0 -> -Inf; no float_to_fp16b, so the NaN stays NaN in an FP32 Dst."""
    _need_log_fp32()
    cases = {0x0000: 0xFF800000, 0x7F80: PLUS_INF_FP32, 0x8000: QNAN_FP32,
             0xFF80: QNAN_FP32, 0x7FC0: QNAN_FP32, bf16(-1.0): QNAN_FP32, bf16(1.0): 0}
    out = run("log_fp32", arch, list(cases))
    assert [hex(int(v)) for v in out] == [hex(v) for v in cases.values()]


def test_log_fp32_wormhole_reciprocal_equals_the_shared_building_block():
    """log.py's in-place Wormhole _sfpu_reciprocal_<2> (same operations, reordered to fit the
    LRegs inside the log body) gives the bits of kernels.reciprocal.reciprocal(x, 2) on every
    BF16 input and on random FP32 mantissas in [1.7, 2.5) (the log's m + 1)."""
    _need_log_fp32()
    from kernels import log as log_module
    from kernels import reciprocal as recip_module

    def ours():
        dst_reg[0] = log_module.reciprocal_2_wormhole_in_place(dst_reg[0])

    def shared():
        dst_reg[0] = recip_module.reciprocal(dst_reg[0], 2)

    rng = np.random.default_rng(33391)
    fp32_inputs = formats.fp32_to_bits(rng.uniform(1.7, 2.5, 4096).astype(np.float32))
    outputs = []
    for body in (ours, shared):
        traced = trace(body, "wormhole", init=recip_module.reciprocal_init)
        bf16_out = run_device(traced, ALL_BF16, DevicePath(dest="fp32", output_format="fp32"))
        outputs.append((bf16_out.output, _run_fp32(traced, fp32_inputs)))
    assert np.array_equal(outputs[0][0], outputs[1][0])
    assert np.array_equal(outputs[0][1], outputs[1][1])


@pytest.mark.parametrize("arch", CHIPS)
def test_log_fp32_max_error_is_at_most_4_fp32_ulp(arch, measured):
    """tt-metal PR #33391: float32 ">700,000 -> 4" ULP, over every BF16 input."""
    _need_log_fp32()
    summary = measured("log_fp32", arch, output_format="fp32").summary
    assert summary["max_ulp"] <= 4


# --------------------------------------------------------------------------------------------
# sqrt / rsqrt (tt-llk #230 + #737)
# --------------------------------------------------------------------------------------------

# A +NaN input is not caught by the x < 0 test; the arithmetic carries it to the end, and
# float_to_fp16b turns it into an infinity of the NaN's sign. Blackhole's SFPMAD returns the
# canonical +NaN (-> +Inf). Wormhole's keeps a NaN with the sign of the product that made it
# (fma.c "leaky NaN"): sqrt's last NaN-making step is y0 * (+NaN) (+); rsqrt's is
# (1 - y*xy: -NaN) * (y/2: +NaN) (-); the approximate forms end in y * t with t = K - y0*(+NaN)
# = -NaN (-).
NAN_INPUT_RESULT = {"blackhole": {"sqrt": PLUS_INF_BF16, "rsqrt": PLUS_INF_BF16,
                                  "sqrt_approx": PLUS_INF_BF16, "rsqrt_approx": PLUS_INF_BF16},
                    "wormhole": {"sqrt": PLUS_INF_BF16, "rsqrt": MINUS_INF_BF16,
                                 "sqrt_approx": MINUS_INF_BF16, "rsqrt_approx": MINUS_INF_BF16}}


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["sqrt", "sqrt_approx"])
def test_sqrt_special_values_bf16(name, arch):
    """+0 -> 0*y... = +0; +Inf skips the correction (bits(x) < / != bits(Inf) false) and keeps
    x*y = +Inf; x < 0 by the raw sign (-0 too) and -Inf -> quiet NaN -> +Inf after
    float_to_fp16b; +NaN -> an infinity (NAN_INPUT_RESULT)."""
    cases = {0x0000: 0x0000, 0x7F80: PLUS_INF_BF16, 0x8000: PLUS_INF_BF16,
             bf16(-4.0): PLUS_INF_BF16, 0xFF80: PLUS_INF_BF16,
             0x7FC0: NAN_INPUT_RESULT[arch][name]}
    out = run(name, arch, list(cases))
    assert [hex(int(v)) for v in out] == [hex(v) for v in cases.values()]


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["rsqrt", "rsqrt_approx"])
def test_rsqrt_special_values_bf16(name, arch):
    """x = 0 -> bits(Inf) - 0 = +Inf; x = +Inf -> bits(Inf) - bits(Inf) = +0; x < 0 (-0 too)
    -> NaN -> +Inf after float_to_fp16b; +NaN -> an infinity (NAN_INPUT_RESULT)."""
    cases = {0x0000: PLUS_INF_BF16, 0x7F80: 0x0000, 0x8000: PLUS_INF_BF16,
             bf16(-4.0): PLUS_INF_BF16, 0xFF80: PLUS_INF_BF16,
             0x7FC0: NAN_INPUT_RESULT[arch][name]}
    out = run(name, arch, list(cases))
    assert [hex(int(v)) for v in out] == [hex(v) for v in cases.values()]


@pytest.mark.parametrize("arch", CHIPS)
def test_sqrt_rsqrt_special_values_fp32(arch):
    """The FP32-Dst kernels end without float_to_fp16b: x < 0 gives the quiet NaN itself."""
    out = run("sqrt_fp32", arch, [0x0000, 0x7F80, 0x8000, bf16(-4.0), bf16(4.0)])
    assert [hex(int(v)) for v in out] == [hex(v) for v in
                                          (0, PLUS_INF_FP32, QNAN_FP32, QNAN_FP32, 0x40000000)]
    out = run("rsqrt_fp32", arch, [0x0000, 0x7F80, 0x8000, bf16(-4.0), bf16(4.0)])
    assert [hex(int(v)) for v in out] == [hex(v) for v in
                                          (PLUS_INF_FP32, 0, QNAN_FP32, QNAN_FP32, 0x3F000000)]


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["sqrt", "rsqrt", "sqrt_approx", "rsqrt_approx"])
def test_sqrt_rsqrt_spot_values(name, arch):
    """Correctly rounded values: sqrt(4) = 2, sqrt(2) = 1.4140625 (0x3FB5), rsqrt(4) = 0.5,
    rsqrt(0.25) = 2, rsqrt(2) = 0.70703125 (0x3F35)."""
    if name.startswith("sqrt"):
        cases = {bf16(4.0): bf16(2.0), bf16(2.0): bf16_rne(math.sqrt(2)), bf16(0.25): bf16(0.5)}
    else:
        cases = {bf16(4.0): bf16(0.5), bf16(0.25): bf16(2.0), bf16(2.0): bf16_rne(2 ** -0.5)}
    out = run(name, arch, list(cases))
    assert [hex(int(v)) for v in out] == [hex(v) for v in cases.values()]


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["sqrt", "rsqrt", "sqrt_approx", "rsqrt_approx"])
def test_sqrt_rsqrt_bf16_max_ulp_at_most_one(name, arch, measured):
    """tt-llk #230: "<= 1 ulps error for either approximate mode (10 bits) or non-approximate
    mode (~23 bits)"; issue #32970: ttnn.rsqrt bf16 "1*" (BH). Daz-index steps, RNE reference;
    every non-negative input is measurable (no non-finite mismatch)."""
    summary = measured(name, arch).summary
    assert summary["max_ulp"] <= 1
    assert summary["lane_classes"]["nonfinite_mismatch"] == 0


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["sqrt_fp32", "rsqrt_fp32"])
def test_sqrt_rsqrt_fp32_max_error_at_most_one_fp32_ulp(name, arch, measured):
    """tt-llk #230 (23-bit: <= 1 ulp); issue #32970: rsqrt fp32 ">5000 (after fix 1)"."""
    summary = measured(name, arch, output_format="fp32").summary
    assert summary["max_ulp"] <= 1


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["sqrt", "rsqrt"])
def test_negative_inputs_give_plus_inf_in_bf16(name, arch):
    negatives = np.arange(0x8000, 0x10000, dtype=np.uint32).astype(np.uint16)
    assert np.all(run(name, arch, negatives) == PLUS_INF_BF16)


# --------------------------------------------------------------------------------------------
# legacy_compat paths (tt-llk ckernel_sfpu_rsqrt_compat.h)
# --------------------------------------------------------------------------------------------

def _mid_range(result, low=2.0 ** -60, high=2.0 ** 60):
    x, distance, counted = (result.arrays[k] for k in ("x", "distance", "counted"))
    inside = counted & (x >= low) & (x < high)
    return distance[inside]


@pytest.mark.parametrize("arch", CHIPS)
def test_sqrt_legacy_mid_range_error_at_most_one_step(arch, measured):
    """Seed 0x5f37 << 16 - bits/2 is within ~3.5% of 1/sqrt(x); two Newton steps (error
    e -> 1.5 e^2) leave ~5e-6 relative, far below a BF16 step, and the truncating SFPSTORE
    adds at most one step down. Away from the range ends (no denormal / overflowing
    intermediate) the error is therefore at most 1 step."""
    assert _mid_range(measured("sqrt_legacy", arch)).max() <= 1


@pytest.mark.parametrize("arch", CHIPS)
def test_sqrt_legacy_special_values_and_ftz_tail(arch):
    """0 takes the v_else branch (result = val). For x near FLT_MAX the seed y ~ 2**-64 makes
    y*y a denormal, flushed to 0, so each Newton step is y = (0*(...) + 1.5)*y: the result is
    (1.5*1.5*seed)*x, truncated to BF16."""
    x_bits = 0x7F2D
    seed = np.uint32(0x5F370000 - ((x_bits << 16) >> 1)).view(np.float32)
    x = np.float32(formats.bits_to_bf16(np.array([x_bits], dtype=np.uint16))[0])
    y = np.float32(np.float32(np.float32(1.5) * seed) * np.float32(1.5))
    expected = int(formats.fp32_to_bits(np.float32(y * x))) >> 16          # truncation
    out = run("sqrt_legacy", arch, [0x0000, x_bits])
    assert [hex(int(v)) for v in out] == ["0x0", hex(expected)]


@pytest.mark.parametrize("arch", CHIPS)
def test_rsqrt_legacy_mid_range_error_at_most_three_steps(arch, measured):
    """sqrt truncated to BF16 through Dst (relative error < 2**-7), _reciprocal_compat_<3>
    from 1.442695 (relative error <= 1.5e-3, issue #53106), final round to nearest: at most
    (2**-7 + 1.5e-3) / 2**-8 + 0.5 < 3 steps in the mid range."""
    assert _mid_range(measured("rsqrt_legacy", arch)).max() <= 3


@pytest.mark.parametrize("arch", CHIPS)
def test_rsqrt_legacy_of_zero_is_two_to_127(arch):
    """sqrt_compat(0) = 0; _reciprocal_compat_(0) runs the Newton steps on setexp(-0, 126) =
    -0.5 (~1.99993), re-biases the exponent to 0 - (-127) + 126 = 253, and float_to_fp16b
    rounds 1.99993 * 2**126 up to 2**127 (0x7F00): finite, not +Inf."""
    out = run("rsqrt_legacy", arch, [0x0000])
    assert int(out[0]) == 0x7F00
