"""Correctly rounded references: checked bit for bit against an independent oracle (mpmath at
much higher precision, textbook formulas, scalar integer rounding written here), on samples, on
hard cases near rounding boundaries, on special inputs from the definitions, and (slow)
exhaustively. The cache's rules are in test_reference_cache.py."""
from __future__ import annotations

import math
import zlib

import mpmath
import numpy as np
import pytest

from sfpu_sim import reference as R
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.reference import backends as ref_backends
from sfpu_sim.reference import cache as ref_cache
from sfpu_sim.reference import definitions as ref_definitions

POLICIES = ("rne", "rne_fp32", "truncate", "ties_away")
BACKEND = ref_backends.backend(None).name                 # flint when python-flint is installed
ENTRY = f"sqrt.bf16.{BACKEND}.sfpuref"
needs_flint = pytest.mark.skipif(ref_backends.flint is None, reason="python-flint is not installed")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Every test gets an empty cache directory and an empty in-memory table store."""
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path / "cache"))
    R.clear_memory()
    yield tmp_path / "cache" / "references"
    R.clear_memory()


# --------------------------------------------------------------------------------------------
# The oracle: textbook definitions in mpmath, evaluated until the roundings settle
# --------------------------------------------------------------------------------------------

mp = mpmath


class Unsettled(Exception):
    pass


def nonzero(v):
    """A cancelled sum that came out exactly 0 at this precision says nothing: both of two
    precisions can lose it the same way (1 + erf(-19) at 256 and 512 bits), so refuse it."""
    if v == 0:
        raise Unsettled
    return v


TEXTBOOK = {
    "tanh": lambda x: mp.tanh(x),
    "gelu": lambda x: x / 2 * (1 + mp.erf(x / mp.sqrt(2))),
    "gelu_tanh": lambda x: x / 2 * (1 + mp.tanh(mp.sqrt(2 / mp.pi) * (x + mp.mpf(44715) / 10**6
                                                                     * x**3))),
    "gelu_derivative": lambda x: nonzero(1 + mp.erf(x / mp.sqrt(2))) / 2
    + x * mp.exp(-x**2 / 2) / mp.sqrt(2 * mp.pi),
    "exp": lambda x: mp.exp(x),
    "log": lambda x: mp.log(x),
    "reciprocal": lambda x: 1 / x,
    "sqrt": lambda x: mp.sqrt(x),
    "rsqrt": lambda x: 1 / mp.sqrt(x),
    "sigmoid": lambda x: 1 / (1 + mp.exp(-x)),
    "silu": lambda x: x / (1 + mp.exp(-x)),
    "erf": lambda x: mp.erf(x),
    "erfc": lambda x: mp.erfc(x),
    "sin": lambda x: mp.sin(x),
    "cos": lambda x: mp.cos(x),
    "softplus": lambda x: mp.log(1 + mp.exp(x)),
    "tanh_derivative": lambda x: 1 - mp.tanh(x)**2,
}
# Where a textbook form cancels beyond the oracle's precision (gelu(-50) needs 1 + erf(-35)).
STABLE = {
    "gelu": lambda x: x * mp.erfc(-x / mp.sqrt(2)) / 2,
    "gelu_tanh": lambda x: x / (1 + mp.exp(-2 * mp.sqrt(2 / mp.pi)
                                           * (x + mp.mpf(44715) / 10**6 * x**3))),
    "gelu_derivative": lambda x: mp.erfc(-x / mp.sqrt(2)) / 2
    + x * mp.exp(-x**2 / 2) / mp.sqrt(2 * mp.pi),
    "softplus": lambda x: x + mp.log1p(mp.exp(-x)) if x > 0 else mp.log1p(mp.exp(x)),
    "tanh_derivative": lambda x: mp.sech(x)**2,
}
# (significand bits, smallest normal exponent, largest exponent)
GRID = {"bf16": (8, -126, 127), "fp16": (11, -14, 15), "fp32": (24, -126, 127),
        "fp64": (53, -1022, 1023)}


def round_scalar(v, fmt: str, mode: str):
    """An exact mpf rounded to a format: the result as an exact mpf (or +-inf), gradual
    underflow, overflow to inf (to the largest finite toward zero)."""
    p, emin, emax = GRID[fmt]
    if v == 0:
        return v
    sign, man, exp, bc = v._mpf_
    largest = ((1 << p) - 1) << (emax - p + 1)
    if exp + bc - 1 > emax:                       # at least 2**(emax + 1): overflow
        out = mp.inf if mode != "zero" else mp.mpf(largest)
        return -out if sign else out
    quantum = max(exp + bc - 1, emin) - (p - 1)
    if exp >= quantum:
        n = man << (exp - quantum)
    elif quantum - exp > bc + 1:
        n = 0                                     # below half the smallest step
    else:
        shift = quantum - exp
        n, rest = man >> shift, man & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if mode == "even":
            n += rest > half or (rest == half and n & 1)
        elif mode == "away":
            n += rest >= half
    if n << max(quantum, 0) > largest << max(-quantum, 0):
        out = mp.inf if mode != "zero" else mp.mpf(largest)
    else:
        out = mp.ldexp(n, quantum)
    return -out if sign else out


def bits_of(value, fmt: str, negative: bool = False) -> int:
    """Bit pattern of a value exactly representable in ``fmt``; a zero takes the sign
    ``negative`` (mpmath has no signed zero)."""
    f = float(value) if value != 0 else (-0.0 if negative else 0.0)
    if fmt == "bf16":
        return int(np.float32(f).view(np.uint32)) >> 16
    if fmt == "fp16":
        return int(np.float16(f).view(np.uint16))
    return int(np.float32(f).view(np.uint32))


def expected_bits(v, policy: str, out: str, ftz: bool) -> int:
    if policy == "rne":
        r = round_scalar(v, out, "even")
    elif policy == "ties_away":
        r = round_scalar(v, out, "away")
    else:
        f32 = round_scalar(v, "fp32", "even")
        r = f32 if mp.isinf(f32) else round_scalar(f32, out, "even" if policy == "rne_fp32"
                                                   else "zero")
    if ftz and mp.isfinite(r) and abs(r) < mp.ldexp(1, GRID[out][1]):
        r = mp.mpf(0)
    return bits_of(r, out, negative=v < 0)


def _signature(v):
    return tuple(round_scalar(v, fmt, mode) for fmt in GRID for mode in ("even", "away"))


def oracle(name: str, x: float, start: int = 256, limit: int = 8192):
    """f(x) for finite nonzero x in the domain, to a precision at which every rounding used
    here has settled (two evaluations a factor of 2 apart round alike), or None. The textbook
    form is tried up to 1024 bits, then the cancellation-free form where one is listed."""
    for formula, top in ((TEXTBOOK[name], 1024 if name in STABLE else limit),
                         (STABLE.get(name), limit)):
        if formula is None:
            continue
        previous, precision = None, start
        while precision <= top:
            with mp.workprec(precision):
                try:
                    v = formula(mp.mpf(x))
                except Unsettled:
                    v = mp.mpf(0)
            exact_zero = name == "log" and x == 1.0
            if mp.isfinite(v) and (v != 0 or exact_zero):
                with mp.workprec(precision):
                    signature = _signature(+v)
                if previous is not None and signature == previous[1]:
                    return previous[0]
                previous = (v, signature)
            else:
                previous = None                   # compare consecutive precisions only
            precision *= 2
    return None


def check_against_oracle(name, bits, input_format="bf16", outputs=("bf16",), daz=True,
                         ftz_options=(True, False)):
    """Compare every policy, output format, FTZ option and the float64 value with the oracle,
    for finite inputs (after DAZ) that are nonzero and in the domain; returns lanes checked."""
    bits = np.asarray(bits)
    values = R.formats.bits_to_float64(bits, R.INPUT_FORMATS[input_format])
    if daz:
        values = np.where(np.abs(values) < {"bf16": 2.0**-126, "fp16": 2.0**-14,
                                             "fp32": 2.0**-126}[input_format], 0.0, values)
    domain = (values > 0) if R.FUNCTIONS[name].domain == "positive" else np.ones(bits.shape, bool)
    keep = np.isfinite(values) & (values != 0) & domain
    bits, values = bits[keep], values[keep]
    truths = [oracle(name, float(x)) for x in values]
    assert all(t is not None for t in truths), "oracle did not settle"
    for out in outputs:
        for policy in POLICIES:
            for ftz in ftz_options:
                got = R.reference(name, bits, policy, input_format=input_format,
                                  output_format=out, daz=daz, ftz=ftz, cache=False)
                want = [expected_bits(v, policy, out, ftz) for v in truths]
                mismatch = np.flatnonzero(got.bits.astype(np.int64) != want)
                assert mismatch.size == 0, (
                    f"{name} {policy} {out} ftz={ftz}: x={values[mismatch[0]]!r} got "
                    f"{int(got.bits[mismatch[0]]):#x} want {want[mismatch[0]]:#x}")
    value = R.reference(name, bits, input_format=input_format, daz=daz, cache=False).value
    want = np.array([float(round_scalar(v, "fp64", "even")) for v in truths])
    np.testing.assert_array_equal(value, want)
    return keep.sum()


def sample_bf16(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    structured = [0x3F80, 0xBF80, 0x4000, 0x3F00, 0x0080, 0x8080, 0x7F7F, 0xFF7F, 0x3C00,
                  0x4120, 0x41A0, 0x4300, 0xC300, 0x42B0, 0xC2B0, 0x4480, 0xC480, 0x3F81, 0x3F7F]
    return np.concatenate([rng.integers(0, 1 << 16, n).astype(np.uint16),
                           np.array(structured, dtype=np.uint16)])


# --------------------------------------------------------------------------------------------
# Registry and errors
# --------------------------------------------------------------------------------------------

REQUESTED = ["tanh", "gelu", "gelu_tanh", "gelu_derivative", "exp", "log", "reciprocal", "sqrt",
             "rsqrt", "sigmoid", "silu", "erf", "erfc", "sin", "cos", "softplus",
             "tanh_derivative"]


def test_registry_lists_every_requested_function_with_a_description():
    listing = R.functions()
    assert set(REQUESTED) <= set(listing)
    assert all(isinstance(text, str) and text for text in listing.values())


def test_registering_a_function_takes_one_call(monkeypatch):
    monkeypatch.setattr(ref_definitions, "FUNCTIONS", dict(ref_definitions.FUNCTIONS))
    R.register("cube", "x^3", lambda x, m: x * x * x, zero="odd", inf=(math.inf, -math.inf),
               is_exact=lambda x, y: y == x**3)        # exact results: mpmath needs the proof
    got = R.reference("cube", np.array([0x4000, 0xC040], dtype=np.uint16), cache=False)
    assert got.bits.tolist() == [0x4100, 0xC1D8]          # 8 and -27 exactly


@pytest.mark.parametrize("call, error", [
    (lambda: R.reference("tahn", [0]), R.UnknownFunction),
    (lambda: R.reference("tanh", [0], "round-up"), R.UnknownPolicy),
    (lambda: R.reference("tanh", [0], output_format="fp8"), R.UnknownFormat),
    (lambda: R.reference("tanh", [0], input_format="int8"), R.UnknownFormat),
    (lambda: R.reference("tanh", [0], backend="mpfr"), R.UnknownBackend),
])
def test_bad_names_raise_a_one_line_sfpu_sim_error_listing_the_known_ones(call, error):
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, SfpuSimError)
    assert "\n" not in str(info.value) and "known:" in str(info.value)


@pytest.mark.parametrize("inputs, fmt", [(np.array([1.5]), "bf16"), ([0x10000], "bf16"),
                                         ([-1], "fp16"), (np.array([1.0], np.float16), "bf16")])
def test_inputs_must_be_patterns_or_the_formats_own_dtype(inputs, fmt):
    with pytest.raises(R.BadInputs) as info:
        R.reference("tanh", inputs, input_format=fmt, cache=False)
    assert isinstance(info.value, SfpuSimError) and "\n" not in str(info.value)


def test_arrays_of_the_formats_own_dtype_are_taken_bit_for_bit():
    import ml_dtypes

    values = np.array([1.0, -2.0], dtype=ml_dtypes.bfloat16)
    got = R.reference("reciprocal", values, cache=False)
    assert got.bits.tolist() == [0x3F80, 0xBF00]
    half = R.reference("sqrt", np.array([4.0], np.float16), input_format="fp16",
                       output_format="fp16", cache=False)
    assert half.bits.tolist() == [0x4000]


def test_unknown_function_message_names_the_registry():
    with pytest.raises(R.UnknownFunction, match="tanh, gelu, gelu_tanh"):
        R.reference("tahn", [0])


# --------------------------------------------------------------------------------------------
# Special inputs (values from the definitions, not from the code)
# --------------------------------------------------------------------------------------------

NAN, INF, NINF, ONE, NONE, HALF, TWO, Z, NZ = (0x7FC0, 0x7F80, 0xFF80, 0x3F80, 0xBF80, 0x3F00,
                                               0x4000, 0x0000, 0x8000)
LN2 = 0x3F31     # log 2 = 0.693147... = 177.44 * 2**-8 -> 177 -> 0x3F00 + 49
# f(+0), f(-0), f(+Inf), f(-Inf), f(-1) (for the functions with a domain)
SPECIALS = {
    "tanh": (Z, NZ, ONE, NONE), "gelu": (Z, NZ, INF, NZ), "gelu_tanh": (Z, NZ, INF, NZ),
    "gelu_derivative": (HALF, HALF, ONE, NZ), "exp": (ONE, ONE, INF, Z),
    "log": (NINF, NINF, INF, NAN, NAN), "reciprocal": (INF, NINF, Z, NZ),
    "sqrt": (Z, NZ, INF, NAN, NAN), "rsqrt": (INF, NINF, Z, NAN, NAN),
    "sigmoid": (HALF, HALF, ONE, Z), "silu": (Z, NZ, INF, NZ), "erf": (Z, NZ, ONE, NONE),
    "erfc": (ONE, ONE, Z, TWO), "sin": (Z, NZ, NAN, NAN), "cos": (ONE, ONE, NAN, NAN),
    "softplus": (LN2, LN2, INF, Z), "tanh_derivative": (ONE, ONE, Z, Z),
}


@pytest.mark.parametrize("name", REQUESTED)
def test_special_inputs_give_the_documented_limits(name):
    inputs = [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x0001, 0x8001]
    expected = list(SPECIALS[name][:4]) + [NAN, NAN, SPECIALS[name][0], SPECIALS[name][1]]
    if len(SPECIALS[name]) == 5:
        inputs.append(0xBF80)
        expected.append(SPECIALS[name][4])
    got = R.reference(name, np.array(inputs, dtype=np.uint16), cache=False)
    assert [hex(b) for b in got.bits.tolist()] == [hex(b) for b in expected]


def test_special_values_are_exact_in_the_float64_value():
    got = R.reference("rsqrt", np.array([0x0000, 0x8000, 0x7F80, 0xBF80, 0x3E80], np.uint16),
                      cache=False).value
    assert got[0] == math.inf and got[1] == -math.inf and got[2] == 0.0
    assert math.isnan(got[3]) and got[4] == 2.0                         # rsqrt(0.25) = 2


def test_without_daz_denormal_inputs_are_evaluated():
    got = R.reference("reciprocal", np.array([0x0001, 0x8001], np.uint16), daz=False,
                      ftz=False, cache=False)
    assert got.value.tolist() == [2.0**133, -(2.0**133)]
    assert got.bits.tolist() == [0x7F80, 0xFF80]                        # beyond BF16's range


# --------------------------------------------------------------------------------------------
# Samples against the oracle
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", REQUESTED)
def test_random_bf16_inputs_match_the_oracle_for_every_policy(name):
    assert check_against_oracle(name, sample_bf16(zlib.crc32(name.encode()), 60)) > 30


@pytest.mark.parametrize("name", ["tanh", "gelu", "exp", "log", "rsqrt"])
def test_fp16_and_fp32_outputs_and_fp16_inputs_match_the_oracle(name):
    rng = np.random.default_rng(11)
    check_against_oracle(name, sample_bf16(5, 15), outputs=("fp16", "fp32"))
    fp16_inputs = rng.integers(0, 1 << 16, 25).astype(np.uint16)
    check_against_oracle(name, fp16_inputs, input_format="fp16", outputs=("bf16", "fp16"))


def test_denormal_inputs_without_daz_match_the_oracle():
    denormals = np.array([0x0001, 0x0003, 0x007F, 0x8001, 0x8040, 0x807F], np.uint16)
    for name in ("tanh", "exp", "sin", "cos", "gelu", "sigmoid", "erf", "log", "sqrt"):
        check_against_oracle(name, denormals, daz=False)


def test_table_lookup_and_direct_evaluation_agree():
    bits = sample_bf16(9, 200)
    for policy in POLICIES:
        a = R.reference("log", bits, policy)
        b = R.reference("log", bits, policy, cache=False)
        np.testing.assert_array_equal(a.bits, b.bits)
        np.testing.assert_array_equal(a.value, b.value)


@needs_flint
def test_flint_and_mpmath_backends_agree_on_a_sample():
    bits = sample_bf16(13, 150)
    for name in ("gelu", "tanh", "gelu_derivative", "softplus", "rsqrt"):
        a = R.reference(name, bits, cache=False, backend="flint", ftz=False)
        b = R.reference(name, bits, cache=False, backend="mpmath", ftz=False)
        np.testing.assert_array_equal(a.bits, b.bits)
        np.testing.assert_array_equal(a.value, b.value)


def test_tails_are_signed_zeros_and_saturations():
    # gelu(-3e38) underflows from below, tanh(4288) = 1 - 2**-12373, erfc(1e30) > 0.
    cases = {"gelu": (0xFF7F, 0x8000), "tanh": (0x4586, 0x3F80), "erfc": (0x7149, 0x0000),
             "gelu_derivative": (0xFF7F, 0x8000), "silu": (0x7F7F, 0x7F7F),
             "softplus": (0x7F7F, 0x7F7F), "sigmoid": (0xFF7F, 0x0000)}
    for name, (x, want) in cases.items():
        got = R.reference(name, np.array([x], np.uint16), cache=False)
        assert int(got.bits[0]) == want, name
    assert R.reference("tanh", np.array([0x4586], np.uint16), "truncate",
                       cache=False).bits[0] == 0x3F80      # FP32 RNE gives 1.0 first


# --------------------------------------------------------------------------------------------
# Hard cases: exact results on or near rounding boundaries
# --------------------------------------------------------------------------------------------

# FP32 inputs whose exact f(x) lies within 2**-30 (relative) of a BF16 midpoint, found once by
# rounding f^-1(m) to FP32 for BF16 midpoints m in mpmath (inputs only; the test re-measures).
FP32_NEAR_BF16_MIDPOINT = {
    "tanh": [0x3DC61D9D, 0xBDC61D9D, 0x3E515E9D, 0x405DC69D],
    "exp": [0xBC9147D9, 0x40758D7C, 0x3C3EE23B, 0x3DF85186],
    "log": [0x46E3F8A7, 0x29FE2BB5, 0x445FC2F0, 0x43F72549],
    "erf": [0x3EF78A23, 0x3F390E30, 0x3AA1BC8B, 0xC00C2A99],
    "sin": [0x3E5C3168, 0x3DADB54D, 0x3C88819E, 0xBE5C3168],
    "sigmoid": [0xBC400090, 0xBF12E716, 0x3CC00240, 0xBB80000B],
}
# BF16 inputs whose exact f(x) is closest to a BF16 midpoint (2**-16 .. 2**-29 relative; no BF16
# input of these functions comes closer than 2**-28.6), and to an FP32 midpoint (down to
# 2**-76), from an exhaustive mpmath scan.
BF16_CLOSEST = {
    "tanh": [15801, 16478, 16317, 15446], "gelu": [48812, 15640, 15365, 48133],
    "gelu_tanh": [16134, 49215, 15738, 49068], "gelu_derivative": [16233, 15802, 47974, 47538],
    "exp": [16603, 48742, 45824, 13184], "log": [9580, 13797, 5502, 11143],
    "reciprocal": [255, 383, 511, 639], "sqrt": [383, 639, 382, 638],
    "rsqrt": [283, 539, 192, 448], "sigmoid": [48000, 15360, 45952, 13312],
    "silu": [48000, 15360, 45952, 13632], "erf": [15070, 14942, 15533, 14371],
    "erfc": [16058, 15516, 13972, 46868], "sin": [32041, 26753, 15040, 16811],
    "cos": [20232, 23062, 14720, 14912], "softplus": [48250, 16274, 14852, 47620],
    "tanh_derivative": [16370, 15669, 14645, 15103],
}


def _relative_distance_to_bf16_midpoint(v) -> mpmath.mpf:
    exponent = int(mp.floor(mp.log(abs(v), 2)))
    scaled = abs(v) / mp.ldexp(1, exponent - 7)
    return abs(scaled - mp.floor(scaled) - mp.mpf(0.5)) / scaled


@pytest.mark.parametrize("name", sorted(FP32_NEAR_BF16_MIDPOINT))
def test_fp32_inputs_within_2_to_the_minus_30_of_a_bf16_midpoint(name):
    bits = np.array(FP32_NEAR_BF16_MIDPOINT[name], dtype=np.uint32)
    for x in bits.view(np.float32).astype(np.float64):
        with mp.workprec(400):
            assert _relative_distance_to_bf16_midpoint(TEXTBOOK[name](mp.mpf(x))) < 2.0**-30
    check_against_oracle(name, bits, input_format="fp32", outputs=("bf16", "fp16", "fp32"))


@pytest.mark.parametrize("name", REQUESTED)
def test_bf16_inputs_closest_to_midpoints(name):
    check_against_oracle(name, np.array(BF16_CLOSEST[name], dtype=np.uint16),
                         outputs=("bf16", "fp16", "fp32"))


def test_an_exact_tie_rounds_to_even_or_away_by_policy():
    # sqrt((1 + 2**-8)**2) = 1 + 2**-8 exactly: the BF16 midpoint between 1.0 (even) and
    # 1 + 2**-7; (1 + 2**-8)**2 = 1 + 2**-7 + 2**-16 is an FP32 input (0x3F810080).
    x = np.array([0x3F810080, 0xBF810080], dtype=np.uint32)
    got = {p: R.reference("sqrt", x, p, input_format="fp32", cache=False) for p in POLICIES}
    assert got["rne"].bits.tolist() == [0x3F80, 0x7FC0]
    assert got["ties_away"].bits.tolist() == [0x3F81, 0x7FC0]
    assert got["rne_fp32"].bits.tolist() == [0x3F80, 0x7FC0]
    assert got["truncate"].bits.tolist() == [0x3F80, 0x7FC0]
    assert got["rne"].value[0] == 1.00390625


def test_truncate_and_rne_differ_on_tanh_of_one():
    # tanh(1) = 0.76159415..., = 194.968 steps of 2**-8 above 0: RNE 195 -> 0x3F43, truncation
    # 194 -> 0x3F42 (the FP32 rounding, 0.76159418, changes neither).
    one = np.array([0x3F80], dtype=np.uint16)
    assert R.reference("tanh", one, "rne", cache=False).bits.tolist() == [0x3F43]
    assert R.reference("tanh", one, "truncate", cache=False).bits.tolist() == [0x3F42]
    # e = 2.71828... = 173.97 steps of 2**-6: RNE 174 -> 0x402E, truncation 173 -> 0x402D
    assert R.reference("exp", one, "rne", cache=False).bits.tolist() == [0x402E]
    assert R.reference("exp", one, "truncate", cache=False).bits.tolist() == [0x402D]


def test_rne_fp32_double_rounding_differs_from_rne_where_fp32_lands_on_a_midpoint():
    # gelu(x) for x = 0x80FF = -(255/128) * 2**-126 is x/2 + x**2/sqrt(2 pi) + ..., i.e.
    # -127.5 * 2**-133 plus 2**-252: just above a BF16 (denormal) midpoint. Correct rounding
    # goes toward zero, to 127 * 2**-133 (0x807F); FP32 holds -127.5 * 2**-133 exactly, so the
    # FP32 rounding lands on the midpoint and RNE then ties to even, 128 * 2**-133 (0x8080).
    x = np.array([0x80FF], dtype=np.uint16)
    exact = oracle("gelu", float(np.float32(np.uint32(0x80FF0000).view(np.float32))))
    midpoint = -mp.mpf(255) * mp.ldexp(1, -134)
    with mp.workprec(400):
        assert midpoint < exact < midpoint + mp.ldexp(1, -250)
    assert bits_of(round_scalar(exact, "fp32", "even"), "fp32") & 0xFFFF == 0x8000
    rne = R.reference("gelu", x, "rne", ftz=False, cache=False).bits[0]
    twice = R.reference("gelu", x, "rne_fp32", ftz=False, cache=False).bits[0]
    assert (rne, twice) == (0x807F, 0x8080)
    # and in the normal range, FP32 inputs within 2**-30 of a BF16 midpoint m between L and U:
    # rne_fp32 gives the even one of L and U, rne the one on the exact value's side.
    differing = 0
    for name, inputs in FP32_NEAR_BF16_MIDPOINT.items():
        bits = np.array(inputs, dtype=np.uint32)
        rne = R.reference(name, bits, "rne", input_format="fp32", cache=False).bits
        twice = R.reference(name, bits, "rne_fp32", input_format="fp32", cache=False).bits
        for x, got_rne, got_twice in zip(bits.view(np.float32).astype(float), rne, twice):
            v = oracle(name, x)
            low = round_scalar(abs(v), "bf16", "zero")
            high = low + mp.ldexp(1, int(mp.floor(mp.log(low, 2))) - 7)
            sign = -1 if v < 0 else 1
            even = low if bits_of(low, "bf16") & 1 == 0 else high
            side = high if abs(v) > (low + high) / 2 else low
            assert int(got_twice) == bits_of(sign * even, "bf16", v < 0)
            assert int(got_rne) == bits_of(sign * side, "bf16", v < 0)
            differing += int(got_rne) != int(got_twice)
    assert differing > 0


# --------------------------------------------------------------------------------------------
# DAZ / FTZ
# --------------------------------------------------------------------------------------------

def test_ftz_flushes_denormal_results_to_signed_zero():
    # exp(-88) = 6.0546e-39 = 65.93 * 2**-133: RNE 66 -> 0x0042, a denormal.
    x = np.array([0xC2B0], dtype=np.uint16)
    assert R.reference("exp", x, ftz=False, cache=False).bits.tolist() == [0x0042]
    assert R.reference("exp", x, ftz=True, cache=False).bits.tolist() == [0x0000]
    assert R.reference("exp", x, cache=False).value[0] == pytest.approx(6.0546014e-39)
    minus = R.reference("sin", np.array([0x8001], np.uint16), daz=False, ftz=True, cache=False)
    assert minus.bits.tolist() == [0x8000]


# --------------------------------------------------------------------------------------------
# Exhaustive (slow)
# --------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("name", REQUESTED)
def test_every_bf16_input_matches_the_oracle(name):
    check_against_oracle(name, np.arange(1 << 16, dtype=np.uint32).astype(np.uint16),
                         ftz_options=(False,))


@pytest.mark.slow
@needs_flint
@pytest.mark.parametrize("name", REQUESTED)
def test_every_bf16_table_entry_agrees_between_backends(name):
    a = ref_cache.table(R.FUNCTIONS[name], "bf16", ref_backends.backend("flint"), False, None)
    b = ref_cache.table(R.FUNCTIONS[name], "bf16", ref_backends.backend("mpmath"), False, None)
    for column in ("cls", "negative", "m", "e"):
        np.testing.assert_array_equal(getattr(a, column), getattr(b, column))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tanh", "gelu", "exp", "sigmoid", "erfc", "sin"])
def test_every_fp16_input_matches_the_oracle(name):
    check_against_oracle(name, np.arange(1 << 16, dtype=np.uint32).astype(np.uint16),
                         input_format="fp16", outputs=("fp16",), ftz_options=(False,))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tanh", "exp", "erf", "sigmoid"])
def test_live_search_fp32_inputs_near_bf16_midpoints_match_the_oracle(name):
    f, inverse = {"tanh": (mp.tanh, mp.atanh), "exp": (mp.exp, mp.log),
                  "erf": (mp.erf, mp.erfinv),
                  "sigmoid": (TEXTBOOK["sigmoid"], lambda y: mp.log(y / (1 - y)))}[name]
    found = []
    with mp.workprec(300):
        for exponent in range(-8, 0):
            for k in range(128):
                m = (mp.mpf(128 + k) + mp.mpf(0.5)) * mp.ldexp(1, exponent - 7)
                x = np.float32(float(inverse(m)))
                for candidate in (x, np.nextafter(x, np.float32(1e9)),
                                  np.nextafter(x, np.float32(-1e9))):
                    if abs(f(mp.mpf(float(candidate))) - m) < m * mp.ldexp(1, -30):
                        found.append(int(np.float32(candidate).view(np.uint32)))
    assert len(found) > 5
    check_against_oracle(name, np.array(found, dtype=np.uint32), input_format="fp32")
