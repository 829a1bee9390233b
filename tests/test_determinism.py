"""sfpu-sim determinism (sfpu_sim/determinism): the binary32 host platforms are exactly binary32
arithmetic, their kernel outputs equal an independent numpy model, the chips' arithmetic is
untouched, and every attributed reason is the one a kernel built to show it must give."""
from __future__ import annotations

import json

import numpy as np
import pytest

from sfpu_sim import fma, formats, registry
from sfpu_sim.arch import BLACKHOLE, WORMHOLE
from sfpu_sim.asm import assemble
from sfpu_sim.cli import main
from sfpu_sim.determinism import compare, resolve
from sfpu_sim.determinism.pairs import (
    Runner,
    compare_kernel,
    fp32_sample,
    lanes_apart,
    populations,
)
from sfpu_sim.determinism.platforms import BY_KEY, IEEE_FMA, IEEE_NO_FMA, PLATFORMS
from sfpu_sim.isa import lanewise, loadstore
from sfpu_sim.registry import KernelSpec
from sfpu_sim.sfpi import dst_reg, reinterpret, trace, vInt
from sfpu_sim.sweeps import run_device
from tests import hellas_model as model

ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
ALL_FP32 = formats.bf16_to_fp32_bits(ALL_BF16)
HOSTS = ("binary32-fma", "binary32-no-fma")


def operands(n=300_000, seed=5):
    """FP32 triples over every exponent (denormals, zeros, infinities and NaNs included)."""
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32) for _ in range(3)]


def same_or_both_nan(a, b) -> bool:
    a, b = np.asarray(a, np.uint32), np.asarray(b, np.uint32)
    nan_a, nan_b = formats.is_nan(a), formats.is_nan(b)
    return bool(np.array_equal(nan_a, nan_b) and np.array_equal(a[~nan_a], b[~nan_b]))


def f32(bits):
    return formats.bits_to_fp32(bits)


# --------------------------------------------------------------------------------------------
# The platforms' arithmetic
# --------------------------------------------------------------------------------------------

def test_binary32_without_fma_is_numpy_float32_multiply_then_add():
    """numpy float32 ``*`` and ``+`` are IEEE binary32 with gradual underflow on this host
    (no FTZ/DAZ mode is set): the two-rounding platform must equal them, denormals included."""
    a, b, c = operands()
    with np.errstate(all="ignore"):
        want = formats.fp32_to_bits(f32(a) * f32(b) + f32(c))
    assert same_or_both_nan(IEEE_NO_FMA.fma(a, b, c), want)
    assert np.count_nonzero(formats.is_denormal(want)) > 100       # denormals were exercised


def test_binary32_with_fma_is_the_ieee_fused_model():
    a, b, c = operands()
    assert np.array_equal(IEEE_FMA.fma(a, b, c), fma.fma_ieee(a, b, c))


def test_host_sfpmul_is_a_plain_product_and_keeps_negative_zero():
    a, b, _ = operands()
    with np.errstate(all="ignore"):
        want = formats.fp32_to_bits(f32(a) * f32(b))
    for host in (IEEE_FMA, IEEE_NO_FMA):
        assert same_or_both_nan(host.multiply(a, b, np.uint32(0)), want)
    minus_one, zero = np.uint32(0xBF800000), np.uint32(0)
    assert IEEE_FMA.multiply(minus_one, zero, zero) == 0x80000000       # -1 * +0 = -0
    assert BLACKHOLE.multiply(minus_one, zero, zero) == 0               # -0 + (+0) = +0


def test_chips_keep_their_arithmetic_and_stores():
    a, b, c = operands(50_000)
    for chip, model_fn in ((WORMHOLE, fma.fma_wormhole), (BLACKHOLE, fma.fma_blackhole)):
        assert np.array_equal(chip.fma(a, b, c), model_fn(a, b, c))
        assert np.array_equal(chip.multiply(a, b, c), model_fn(a, b, c))
        assert np.array_equal(stored(chip, loadstore.BF16, a),
                              formats.bf16_to_dst(formats.fp32_to_bf16_truncate(a)))
        assert np.array_equal(stored(chip, loadstore.FP32, a),
                              formats.fp32_to_dst(formats.flush_denormals(a)))


def test_host_stores_round_to_nearest_even_and_keep_denormals():
    a, _, _ = operands(50_000)
    assert np.array_equal(stored(IEEE_FMA, loadstore.BF16, a),
                          formats.bf16_to_dst(formats.fp32_to_bf16_rne(a)))
    assert np.array_equal(stored(IEEE_FMA, loadstore.FP32, a), formats.fp32_to_dst(a))


def stored(arch, mode: int, a):
    """SFPSTORE's Dst cells of ``a`` in ``mode`` on the platform ``arch``."""
    return lanewise.lanes(loadstore.store_datum, a, mode, int(arch.sign_magnitude_conversions),
                          int(arch.bf16_store_rounds), int(arch.fp32_store_flushes))


def test_hosts_run_blackholes_instruction_stream():
    spec = registry.get("hellas_sin")
    for platform in PLATFORMS:
        assert platform.program_chip == ("wormhole" if platform.key == "wormhole" else
                                         "blackhole")
    assert spec.program("blackhole").words == Runner(spec).program("blackhole").words


def test_fp32_sample_is_fixed_sorted_and_unique():
    sample = fp32_sample(1000, 1)
    assert np.array_equal(sample, fp32_sample(1000, 1))
    assert np.all(np.diff(sample.astype(np.int64)) > 0)
    assert sample.size >= 999 and sample.dtype == np.uint32


# --------------------------------------------------------------------------------------------
# Host outputs of the hellas kernels against the independent model
# --------------------------------------------------------------------------------------------

FUNCTION = {"hellas_sin": "sin", "hellas_cos": "cos", "hellas_exp": "exp", "hellas_log": "log"}


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("name", list(FUNCTION) + [n + "_fp32" for n in FUNCTION])
def test_host_platform_outputs_equal_the_numpy_model(name, host):
    spec = registry.get(name)
    function = FUNCTION[name.removesuffix("_fp32")]
    runner = Runner(spec)
    for population in populations(spec.dest, 4096, 11):
        inputs = (population.bits if population.fp32_inputs else
                  formats.bf16_to_fp32_bits(population.bits))
        got = runner.platform(BY_KEY[host], population)
        assert np.array_equal(got, model.dst(function, host, inputs, spec.dest)), \
            population.name


# --------------------------------------------------------------------------------------------
# Attribution, on kernels built to show one difference
# --------------------------------------------------------------------------------------------

STICKY_A, STICKY_B = np.uint32(0x3F6B8C99), np.uint32(0xBF6E3DA3)
ALL = 1 << 20                  # list every differing input


def tiny_kernel(name, body, dest):
    """A kernel spec that is not registered (nothing else in the session sees it)."""
    return KernelSpec(name=name, function="exp", chips=("wormhole", "blackhole"),
                      mode="accurate", dest=dest, provenance="test",
                      build=lambda arch: trace(body, arch, name=name))


def fused_body():
    x = dst_reg[0]
    dst_reg[0] = x * float(f32(STICKY_A)) + float(f32(STICKY_B))


def product_body():
    x = dst_reg[0]
    dst_reg[0] = x * -1.75


def _pair(result, a, b, population="bf16"):
    pop = next(p for p in result["populations"] if p["population"] == population)
    return next(p for p in pop["pairs"] if (p["a"], p["b"]) == (a, b))


def _reason_at(pair, input_bits: str):
    return next(r["reason"] for r in pair["first_different"] if r["input_bits"] == input_bits)


def test_wormholes_sticky_bug_is_found_as_the_reason():
    """x*A + B with A, B found by search over the FMA models: at x = -1.25 Wormhole and
    Blackhole round a normal FP32 result differently, which among their differences only the
    sticky bug can do (zero, denormal and NaN rules do not touch a normal result)."""
    x = np.uint32(0xBFA00000)
    wh, bh = fma.fma_wormhole(x, STICKY_A, STICKY_B), fma.fma_blackhole(x, STICKY_A, STICKY_B)
    assert wh != bh and formats.classify(bh) == formats.FloatClass.NORMAL
    result = compare_kernel(tiny_kernel("sticky", fused_body, "fp32"), sample_size=0,
                            first=ALL)
    pair = _pair(result, "wormhole", "blackhole")
    assert _reason_at(pair, "0xbfa0") == "sticky_bug"
    want = formats.flush_denormals(fma.fma_wormhole(ALL_FP32, STICKY_A, STICKY_B)) != \
        formats.flush_denormals(fma.fma_blackhole(ALL_FP32, STICKY_A, STICKY_B))
    assert pair["different"] == int(want.sum())


def test_separate_multiply_and_add_is_the_only_reason_between_the_hosts():
    result = compare_kernel(tiny_kernel("fused", fused_body, "fp32"), sample_size=0, first=0)
    pair = _pair(result, "binary32-fma", "binary32-no-fma")
    with np.errstate(all="ignore"):
        unfused = formats.fp32_to_bits(f32(ALL_FP32) * f32(STICKY_A) + f32(STICKY_B))
    fused = fma.fma_ieee(ALL_FP32, STICKY_A, STICKY_B)
    differ = ~(formats.is_nan(fused) & formats.is_nan(unfused)) & (fused != unfused)
    assert pair["different"] == int(differ.sum()) > 0
    assert pair["reasons"] == {"separate_multiply_add": pair["different"]}


def test_store_truncation_and_sfpmul_zero_are_found_as_reasons():
    """x * -1.75 into a BF16 Dst: where the product is a normal number the chips' plain
    products equal IEEE's (tests/test_fma.py), so Blackhole and binary32 differ there exactly
    where truncation and nearest even differ; and at x = +0, where SFPMUL's +0 addend turns the
    -0 product into +0."""
    result = compare_kernel(tiny_kernel("product", product_body, "bf16"), first=ALL)
    pair = _pair(result, "blackhole", "binary32-fma")
    assert _reason_at(pair, "0x0000") == "mul_plus_zero"
    product = fma.fma_ieee(ALL_FP32, np.uint32(0xBFE00000), np.uint32(0x80000000))
    normal = (formats.classify(ALL_FP32) == formats.FloatClass.NORMAL) & \
        (formats.classify(product) == formats.FloatClass.NORMAL)
    store_differs = normal & \
        (formats.fp32_to_bf16_truncate(product) != formats.fp32_to_bf16_rne(product))
    assert store_differs.sum() > 1000
    for bits in ALL_BF16[store_differs][::997]:
        assert _reason_at(pair, f"{int(bits):#06x}") == "store"
    assert pair["reasons"]["store"] == int(store_differs.sum())


# --------------------------------------------------------------------------------------------
# Counts of the hellas kernels, recomputed from the model
# --------------------------------------------------------------------------------------------

def _model_counts(function: str, dest: str, inputs) -> dict:
    out = {p: model.dst(function, p, inputs, dest) for p in BY_KEY}
    return {(a.key, b.key): int((out[a.key] == out[b.key]).sum())
            for i, a in enumerate(PLATFORMS) for b in PLATFORMS[i + 1:]}


# identical outputs per pair (WH=BH, WH=FMA, WH=noFMA, BH=FMA, BH=noFMA, FMA=noFMA), all BF16
COUNTS = {"hellas_exp": (65536, 65525, 65524, 65525, 65524, 65535),
          "hellas_log": (65536,) * 6,
          # q mod 4 from q itself beyond |x| = 2**22 (before: 58,804 / 56,416 / 56,994)
          "hellas_sin": (65536, 58874, 55570, 58874, 55570, 56162),
          "hellas_cos": (65536, 58944, 57896, 58944, 57896, 57914)}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_identical_counts_are_pinned_and_recomputed_from_the_model(name):
    result = compare_kernel(registry.get(name), sample_size=0)
    pairs = result["populations"][0]["pairs"]
    got = tuple(p["identical"] for p in pairs)
    assert got == COUNTS[name]
    want = _model_counts(FUNCTION[name], "bf16", ALL_FP32)
    assert got == tuple(want[p["a"], p["b"]] for p in pairs)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n + s for n in FUNCTION for s in ("", "_fp32")])
def test_every_hellas_count_equals_the_model(name):
    spec = registry.get(name)
    result = compare_kernel(spec, sample_size=2048)
    for pop_result, population in zip(result["populations"], populations(spec.dest, 2048)):
        inputs = (population.bits if population.fp32_inputs else
                  formats.bf16_to_fp32_bits(population.bits))
        want = _model_counts(FUNCTION[name.removesuffix("_fp32")], spec.dest, inputs)
        assert [p["identical"] for p in pop_result["pairs"]] == \
            [want[p["a"], p["b"]] for p in pop_result["pairs"]]


def test_lanes_apart_is_said_only_of_programs_whose_lanes_never_meet():
    assert lanes_apart(registry.get("hellas_sin").program("wormhole"))
    assert not lanes_apart(registry.get("ceil_2026_09").program("wormhole"))    # SFPSHFT2
    assert lanes_apart(registry.get("hellas_sincos").program("wormhole"))       # 2 stores

    def two_widths():
        dst_reg[0] = reinterpret(vInt, dst_reg[0]) & 1          # an INT32 store

    assert not lanes_apart(trace(two_widths, "wormhole", name="two_widths"))


@pytest.mark.parametrize("name", ["hellas_exp", "hellas_sin_fp32", "hellas_sincos_fp32"])
def test_some_inputs_of_a_variant_give_what_the_whole_population_gives(name):
    """The attribution's runs of the differing inputs alone, on a platform variant that is
    neither chip's (a binary32 host's): each input's output as in the run of every input."""
    runner = Runner(registry.get(name))
    host = BY_KEY["binary32-fma"]
    population = populations(runner.spec.dest, 4096, 11)[-1]
    index = np.flatnonzero(np.arange(population.bits.size) % 7 == 3)
    whole = runner.output(host.program_chip, host.arch, population)
    some = runner.some(host.program_chip, host.arch, population, index)
    assert np.array_equal(some, whole[index])


def test_a_cross_lane_kernels_attribution_runs_keep_every_neighbour():
    """SFPTRANSP moves values between the lanes of an SFPU: a run of some inputs alone gives
    them other outputs than a run of all, so :meth:`Runner.some` runs all of them."""
    spec = KernelSpec(name="transposed", function="exp", chips=("wormhole",), mode="accurate",
                      dest="bf16", provenance="test",
                      build=lambda arch: assemble("SFPLOAD L0, 0, 0, 0\nSFPTRANSP 0, 0, 0, 0\n"
                                                  "SFPSTORE L0, 0, 0, 0", arch))
    runner = Runner(spec)
    assert not lanes_apart(runner.program("wormhole"))
    population = populations("bf16")[0]
    index = np.flatnonzero(np.arange(population.bits.size) % 7 == 3)
    whole = runner.output("wormhole", WORMHOLE, population)
    alone = run_device(runner.program("wormhole"), population.bits[index], population.path)
    assert not np.array_equal(alone.output, whole[index])
    assert np.array_equal(runner.some("wormhole", WORMHOLE, population, index), whole[index])


# --------------------------------------------------------------------------------------------
# Model, resolution, command line
# --------------------------------------------------------------------------------------------

def test_resolve_takes_names_and_patterns_once_each():
    names = [s.name for s in resolve(["hellas_exp*", "hellas_exp"])]
    assert names == ["hellas_exp", "hellas_exp_fp32"]


@pytest.mark.parametrize("argv,message", [
    (["determinism", "no_such_kernel"], "unknown kernel 'no_such_kernel'"),
    (["determinism", "zz_*"], "kernel pattern 'zz_*' matches no registered kernel"),
    (["determinism", "hellas_log", "--name", "a/b"], "--name 'a/b'"),
    (["determinism", "hellas_log", "--first", "-1"], "--first -1"),
    (["determinism", "hellas_log", "--fp32-samples", "-5"], "FP32 sample size -5"),
])
def test_bad_input_is_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("sfpu-sim: error: ") and message in err and "\n" not in err


def test_command_writes_the_report_and_prints_the_counts(tmp_path, capsys):
    assert main(["determinism", "hellas_log", "--out", str(tmp_path), "--name", "d"]) == 0
    out = capsys.readouterr().out
    assert "wormhole vs binary32-fma: 65,536 of 65,536 identical" in out
    data = json.loads((tmp_path / "d.json").read_text())
    assert data["command"] == "sfpu-sim determinism hellas_log"
    assert [p["identical"] for p in data["kernels"][0]["populations"][0]["pairs"]] == [65536] * 6
    text = (tmp_path / "d.md").read_text()
    assert "## Answer" in text and "`hellas_log`" in text


def test_json_model_has_every_pair_and_platform():
    model_ = compare([registry.get("hellas_log")], sample_size=0, first=1)
    assert [p["key"] for p in model_["platforms"]] == [p.key for p in PLATFORMS]
    assert len(model_["pairs"]) == 6 == len(model_["kernels"][0]["populations"][0]["pairs"])
