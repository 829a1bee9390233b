"""The FP32 sweep's fast reference (sfpu_sim.fp32sweep.rounded_reference: float64 enclosures
decided where both ends round alike, python-flint arb for the rest) equals the certified
reference layer (sfpu_sim.reference: arb with Ziv's strategy, and mpmath as a second backend) on
every input of a sampled set, for every function and rounding the FP32 sweep supports.

The sample holds, per function: random patterns of the whole space (NaNs, infinities, zeros,
denormals included), random normals of the function's working range, windows of consecutive
patterns around the edges where the result overflows, underflows to a denormal, is flushed
(FTZ) or saturates, where the enclosures switch formulas, and the inputs whose float64 libm
value lies nearest an FP32 or BF16 rounding boundary (found with numpy, a search only: the
comparison is against the certified layer).
"""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import reference as reference_layer
from sfpu_sim.fp32sweep import enclose
from sfpu_sim.fp32sweep.rounded_reference import (
    POLICY_CODES,
    SUPPORTED,
    Fp32Reference,
    UnsupportedReference,
)

CELLS = sorted(POLICY_CODES)                     # every (policy, output format) it rounds to
RNG_SEED = 20261126
# Where each function's result changes character (values of x): windows of patterns around
# these are swept. Derivations: e^x overflows FP32 past ln(FLT_MAX) = 88.7228, leaves the
# normals below ln(2^-126) = -87.3365, the denormals below ln(2^-149) = -103.279; 89/-110 and
# 20/0.5 are the enclosures' own switch points (enclose.py); tanh rounds to 1 in FP32 from
# atanh(1 - 2^-25) = 9.0109; sigmoid's FTZ edge is the same -87.3365 (sigmoid ~ e^x there).
EDGES = {
    "exp": [88.72283, 88.7228394, -87.33654, -103.27893, -103.972, 89.0, -110.0, 0.0, 1.0,
            0.0054, -0.0054, 1e-7, 44.36],
    "log": [1.0, 0.75, 1.5, 0.5, 2.0, 1.17549435e-38, 3.4028235e38, 0.9999, 2.718281828],
    "tanh": [0.5, 20.0, 9.0109133, 0.0054, 0.00270, 1e-6, 2.0 ** -126, 1.0, 4.97],
    "sigmoid": [110.0, -110.0, -87.33654, -103.27893, 16.635532, 88.72283, 0.0, 1e-8, -5.0],
    "reciprocal": [2.0 ** 126, 2.0 ** 127, 3.4028235e38, 1.0, 2.0 ** -126, 3.0, 0.1],
    "sqrt": [1.17549435e-38, 3.4028235e38, 1.0, 2.0, 4.0, 1e-30],
    "rsqrt": [1.17549435e-38, 3.4028235e38, 1.0, 2.0, 4.0, 1e-30],
}
WORKING = {"exp": 110.0, "log": 1e30, "tanh": 12.0, "sigmoid": 120.0, "reciprocal": 1e38,
           "sqrt": 1e38, "rsqrt": 1e38}
SPECIALS = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
            0x7F800001, 0xFFBFFFFF, 0x00000001, 0x807FFFFF, 0x00400000, 0x00800000,
            0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000]


def _window(value: float, half: int = 48) -> np.ndarray:
    b = int(np.array(np.float32(value)).view(np.uint32))
    out = []
    for sign in (0, 0x80000000):
        start = max((b & 0x7FFFFFFF) - half, 0)
        out.append((np.arange(start, start + 2 * half, dtype=np.uint64) | sign)
                   .astype(np.uint32))
    return np.concatenate(out)


def _libm(function: str, x: np.ndarray) -> np.ndarray:
    v = x.view(np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        return {"exp": np.exp, "log": np.log, "tanh": np.tanh, "sqrt": np.sqrt,
                "sigmoid": lambda t: 1.0 / (1.0 + np.exp(-t)),
                "reciprocal": lambda t: 1.0 / t, "rsqrt": lambda t: 1.0 / np.sqrt(t)}[function](v)


def _nearest_boundaries(function: str, rng, count: int = 160) -> np.ndarray:
    """Normals whose libm value lies nearest a rounding boundary: FP32 midpoints (every
    policy's boundary for an FP32 result and the truncating ones'), BF16 midpoints."""
    x = rng.integers(0x00800000, 0x7F800000, size=1 << 17, dtype=np.uint32)
    x |= (rng.integers(0, 2, size=x.size, dtype=np.uint32) << 31)
    v = np.abs(_libm(function, x))
    finite = np.isfinite(v) & (v > 2.0 ** -126) & (v < 3e38)
    x, v = x[finite], v[finite]
    picks = []
    for step in (1, 1 << 16):                      # FP32 and BF16 grids
        ulp = np.spacing(v.astype(np.float32)).astype(np.float64) * step
        phase = np.mod(v / ulp, 1.0)
        picks.append(x[np.argsort(np.abs(phase - 0.5))[:count]])
    return np.concatenate(picks)


def sample(function: str) -> np.ndarray:
    rng = np.random.default_rng([RNG_SEED, SUPPORTED.index(function)])
    working = WORKING[function]
    normals = rng.uniform(-working, working, size=2048).astype(np.float32).view(np.uint32)
    parts = [np.array(SPECIALS, dtype=np.uint32),
             rng.integers(0, 1 << 32, size=2048, dtype=np.uint64).astype(np.uint32),
             normals, _nearest_boundaries(function, rng),
             np.array([p for f, p, _, _ in HARD if f == function], dtype=np.uint32)]
    parts += [_window(e) for e in EDGES[function]]
    return np.unique(np.concatenate(parts))


@pytest.fixture(scope="module")
def samples():
    return {f: sample(f) for f in SUPPORTED}


@pytest.mark.parametrize("function", SUPPORTED)
def test_fast_reference_equals_the_certified_one_on_every_cell(function, samples):
    x = samples[function]
    refined_total = 0
    for policy, out in CELLS:
        fast = Fp32Reference(function, policy, out)
        expected, refined, _ = fast.expected(x)
        # One certification of the sample for every cell and run (the reference layer's
        # stored input set): rounding it is what differs between cells.
        certified = reference_layer.reference(function, x, policy, input_format="fp32",
                                              output_format=out, daz=True, ftz=True,
                                              keep_set=True)
        assert expected.dtype == certified.bits.dtype
        mismatch = np.flatnonzero(expected != certified.bits)
        assert mismatch.size == 0, (policy, out, [f"{int(b):#010x}" for b in x[mismatch[:5]]])
        assert 0 <= refined <= x.size
        refined_total += refined
    assert refined_total >= sum(1 for f, _, _, _ in HARD if f == function)


# Inputs float64 cannot decide, found by running the enclosures over 2**24 consecutive patterns
# from 0x3F000000 and 2**23 from each of 0x3E000000, 0x40000000, 0xBF000000, 0x3C000000 (every
# undecided one there, for these cells; reciprocal had none): (function, pattern, policy, out).
# log(1) = 0 is exact, so its enclosure straddles both signed zeros; sqrt(0x3F00AE40) is an
# exact BF16 midpoint (as in the hand-derived tie below).
HARD = [("exp", 0x3FE67199, "rne", "fp32"), ("exp", 0x4001B249, "rne", "fp32"),
        ("exp", 0x40315B33, "rne", "fp32"), ("log", 0x3F800000, "rne", "fp32"),
        ("log", 0x3F800000, "rne", "bf16"), ("tanh", 0x3C082D25, "rne", "fp32"),
        ("tanh", 0x3C0EB4B4, "rne", "fp32"), ("sigmoid", 0xBF1964D0, "rne", "fp32"),
        ("sqrt", 0x3F00AE40, "rne", "bf16"), ("rsqrt", 0x3F3A18E3, "rne", "fp32")]


@pytest.mark.parametrize("function, pattern, policy, out", HARD)
def test_inputs_float64_cannot_decide_are_refined_and_certified(function, pattern, policy, out):
    x = np.array([pattern], dtype=np.uint32)
    expected, refined, precision = Fp32Reference(function, policy, out).expected(x)
    assert refined == 1 and precision > 53
    for backend in ("flint", "mpmath"):
        certified = reference_layer.reference(function, x, policy, input_format="fp32",
                                              output_format=out, cache=False, backend=backend)
        assert int(expected[0]) == int(certified.bits[0])


@pytest.mark.parametrize("function", SUPPORTED)
def test_the_hardest_inputs_agree_with_mpmath_too(function):
    """The boundary-near inputs against the reference layer's second backend (mpmath), so
    the agreement does not rest on arb alone."""
    rng = np.random.default_rng([RNG_SEED, 7, SUPPORTED.index(function)])
    x = np.unique(_nearest_boundaries(function, rng, count=24))
    for policy, out in (("rne", "fp32"), ("rne", "bf16")):
        expected, _, _ = Fp32Reference(function, policy, out).expected(x)
        mp = reference_layer.reference(function, x, policy, input_format="fp32",
                                       output_format=out, daz=True, ftz=True, cache=False,
                                       backend="mpmath")
        assert np.array_equal(expected, mp.bits)


def test_an_exact_bf16_tie_is_refined_and_rounded_as_the_policy_says():
    """sqrt(1 + 2^-7 + 2^-16) = 1 + 2^-8 exactly (square it by hand): the midpoint of BF16's
    1.0 (0x3F80) and 1.0078125 (0x3F81). No float64 interval around it decides, so it must be
    refined; nearest-even gives 0x3F80, ties-away 0x3F81; FP32 holds it exactly (0x3F808000)."""
    x = np.array([0x3F810080], dtype=np.uint32)               # 1 + 2^-7 + 2^-16
    assert float(x.view(np.float32)[0]) == 1 + 2 ** -7 + 2 ** -16
    for policy, out, want, refined_want in (("rne", "bf16", 0x3F80, 1),
                                            ("ties_away", "bf16", 0x3F81, 1),
                                            ("rne_fp32", "bf16", 0x3F80, 0),
                                            ("rne", "fp32", 0x3F808000, 0)):
        expected, refined, _ = Fp32Reference("sqrt", policy, out).expected(x)
        assert int(expected[0]) == want and refined == refined_want, (policy, out)


def test_round_bits_matches_formats_round_values_on_boundary_kinds():
    """The compiled rounding of a float64 against formats.round_values (FTZ), on exact
    midpoints, their neighbours, denormal and overflow edges, both signs."""
    from sfpu_sim import formats
    from sfpu_sim.fp32sweep.rounded_reference import POLICY_CODES as codes

    f32 = np.array([1.0, 2.0 ** -126, 2.0 ** -149, 3.4028234663852886e38, 2.0 ** -133,
                    1.0 + 2.0 ** -8, 1.0 + 2.0 ** -24, 2.0 ** -127, 2.0 ** 128 - 2.0 ** 103])
    steps = (0.0, 2.0 ** -53, -(2.0 ** -53), 2.0 ** -30, -(2.0 ** -30))
    values = np.array([v * (1 + s) for v in f32 for s in steps] +
                      [v + (2.0 ** -150) for v in (2.0 ** -126 - 2.0 ** -150,)] +
                      [0.0, 2.0 ** -1074, 2.0 ** -160, 2.0 ** -158, 1e300, np.inf])
    values = np.concatenate([values, -values])
    for (policy, out), code in codes.items():
        want = formats.round_values(values, policy, out, ftz=True)
        got = np.array([_round_bits(v, code) for v in values])
        assert np.array_equal(got.astype(want.dtype), want), (policy, out)


def _round_bits(v: float, code: int) -> int:
    import numba

    global _ROUND
    if "_ROUND" not in globals():
        _ROUND = numba.njit(lambda v, c: enclose.round_bits(v, c))
    return int(_ROUND(v, code))


def test_unsupported_functions_are_refused_in_one_line():
    with pytest.raises(UnsupportedReference, match="sin.*none yet"):
        Fp32Reference("sin", "rne", "bf16")
    with pytest.raises(UnsupportedReference, match="bf16 or fp32"):
        Fp32Reference("exp", "rne", "fp16")


@pytest.mark.slow
@pytest.mark.parametrize("function", SUPPORTED)
def test_fast_reference_equals_the_certified_one_on_a_strided_million(function):
    """Tenstorrent's walk at stride 4,096 (1,044,480 inputs over the whole line)."""
    from sfpu_sim.fp32sweep import Strided

    w = Strided(4096)
    x = w.patterns(0, len(w))
    for policy, out in (("rne", "fp32"), ("rne", "bf16")):
        expected, _, _ = Fp32Reference(function, policy, out).expected(x)
        certified = reference_layer.reference(function, x, policy, input_format="fp32",
                                              output_format=out, cache=False)
        assert np.array_equal(expected, certified.bits)


@pytest.mark.slow                      # a fresh compile per function: ~10 s each
@pytest.mark.parametrize("function", SUPPORTED)
def test_enclosures_compile_without_fused_multiply_add(function):
    """The widening proof assumes every + - * / rounds on its own: no contraction into an FMA
    (numba without fastmath). Checked on the machine code of a fresh, uncached compile."""
    import re

    import numba

    fast = Fp32Reference(function, "rne", "bf16")
    decide = enclose.DECIDE[fast.code]
    fresh = numba.njit(nogil=True)(decide.py_func)
    x = np.arange(0x3F800000, 0x3F800040, dtype=np.uint32)
    fresh(0, x.size, x, np.empty(x.size, np.uint32), np.empty(x.size, np.bool_), fast.pcode,
          fast.positive_domain, fast.specials)
    signature = fresh.signatures[0]
    assert not re.search(r"\bv?fn?m(add|sub)\d", fresh.inspect_asm(signature))
    ir = fresh.inspect_llvm(signature)
    assert "fmuladd" not in ir and "llvm.fma" not in ir
    assert not re.search(r"\bf(add|sub|mul|div) (fast|contract|reassoc)", ir)
