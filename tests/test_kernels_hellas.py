"""The hellas kernels (kernels/hellas.py, after a design note on deterministic sin, cos, exp and
log): special values bit for bit on both chips and both Dst formats, every output equal to an
independent numpy model of the algorithm (tests/hellas_model.py), and the exhaustive sweep
figures.

How the pinned ULP figures were established: the sweep's figure, and the same figure
recomputed from the *model's* outputs (not the emulator's) scored against the certified
reference with the same ULP convention; the test checks that both give the pinned numbers.
The mean is pinned as an exact ratio (sum of distances / inputs measured).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from sfpu_sim import formats, reference, registry, ulp
from sfpu_sim.isa.convert import fp32_to_bf16_ties_away
from sfpu_sim.machine import Machine
from sfpu_sim.sweeps import DevicePath, run_device, sweep
from tests import hellas_model as model

CHIPS = ("wormhole", "blackhole")
FUNCTION = {"hellas_sin": "sin", "hellas_cos": "cos", "hellas_sincos": "sin",
            "hellas_sincos_cos": "cos", "hellas_exp": "exp", "hellas_log": "log"}
KERNELS = [(name + suffix, dest) for name in FUNCTION
           for suffix, dest in (("", "bf16"), ("_fp32", "fp32"))]
ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
ALL_FP32 = formats.bf16_to_fp32_bits(ALL_BF16)
with np.errstate(invalid="ignore"):
    X = formats.bits_to_bf16(ALL_BF16).astype(np.float64)

NAN, INF, NEG_INF, ONE = 0x7FC00000, 0x7F800000, 0xFF800000, 0x3F800000
SPECIAL_INPUTS = {"+0": 0x0000, "-0": 0x8000, "+inf": 0x7F80, "-inf": 0xFF80, "nan": 0x7FC0,
                  "-nan": 0xFFC0, "snan": 0x7F81, "-snan": 0xFF81}
NANS = {"nan": NAN, "-nan": NAN, "snan": NAN, "-snan": NAN}
# The note's special values, with the IEEE ones for log (the note lists none).
SPECIALS = {
    "sin": {"+0": 0x00000000, "-0": 0x80000000, "+inf": NAN, "-inf": NAN, **NANS},
    "cos": {"+0": ONE, "-0": ONE, "+inf": NAN, "-inf": NAN, **NANS},
    "exp": {"+0": ONE, "-0": ONE, "+inf": INF, "-inf": 0x00000000, **NANS},
    "log": {"+0": NEG_INF, "-0": NEG_INF, "+inf": INF, "-inf": NAN, **NANS},
}


@pytest.fixture(scope="module")
def dst():
    """``dst(name, arch)``: the Dst contents (BF16 or FP32, as the kernel's Dst) for every
    BF16 input, computed once."""
    cache = {}

    def get(name, arch):
        if (name, arch) not in cache:
            spec = registry.get(name)
            path = DevicePath(dest=spec.dest, output_format=spec.dest)
            cache[name, arch] = run_device(spec.program(arch), ALL_BF16, path).output
        return cache[name, arch]
    return get


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name,dest", KERNELS)
def test_special_values_are_the_notes_bit_for_bit(name, dest, arch, dst):
    function = FUNCTION[name.removesuffix("_fp32")]
    out = dst(name, arch)
    for special, x in SPECIAL_INPUTS.items():
        want = SPECIALS[function][special]
        got = int(out[x]) << 16 if dest == "bf16" else int(out[x])
        assert got == want, f"{name} on {arch}: {special} gave {got:#010x}, want {want:#010x}"


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name,dest", KERNELS)
def test_every_output_equals_the_independent_model(name, dest, arch, dst):
    function = FUNCTION[name.removesuffix("_fp32")]
    want = model.dst(function, arch, ALL_FP32, dest)
    assert np.array_equal(dst(name, arch), want)


def _dst_rows(program, dest: str):
    """Dst rows dst_reg[0] and dst_reg[1] (addresses 0 and 2) after one run."""
    m = Machine(program.arch, lanes=ALL_BF16.size, dst_rows=16)
    m.config.sfpu_fp32 = dest == "fp32"
    m.config.srcb_format = "bf16"
    m.cc.enable = True
    m.cc.flags[:] = True
    m.dst.write_lanes(0, ALL_FP32 if dest == "fp32" else ALL_BF16, dest)
    m.run(program)
    return m.dst.read_lanes(0, dest), m.dst.read_lanes(2, dest)


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("dest", ["bf16", "fp32"])
def test_sincos_views_store_the_same_two_rows_as_sin_and_cos(arch, dest, dst):
    """hellas_sincos stores sin last at dst_reg[0] and cos at dst_reg[1]; hellas_sincos_cos
    exchanges the two stores. Both write the same sin and cos rows, and those are exactly
    hellas_sin's and hellas_cos's outputs (one reduction gives the same bits as two)."""
    suffix = "" if dest == "bf16" else "_fp32"
    sin_first, cos_second = _dst_rows(registry.get("hellas_sincos" + suffix).program(arch), dest)
    cos_first, sin_second = _dst_rows(registry.get("hellas_sincos_cos" + suffix).program(arch),
                                      dest)
    assert np.array_equal(sin_first, sin_second) and np.array_equal(cos_first, cos_second)
    assert np.array_equal(sin_first, dst("hellas_sin" + suffix, arch))
    assert np.array_equal(cos_first, dst("hellas_cos" + suffix, arch))


# Exhaustive sweep figures (daz-index ULP against the certified RNE reference, the sweep's
# default cell): (max, sum of distances, inputs measured), identical on both chips. FP32-Dst
# kernels are measured on the sweep's default BF16 output (the packer rounds) and on FP32.
FIGURES = {
    ("sin", "bf16"): (48574, 114708410, 43743),
    ("cos", "bf16"): (48581, 135747218, 44481),
    ("exp", "bf16"): (1, 45, 65025),
    ("log", "bf16"): (14697, 14910, 32513),
    ("sin", "fp32"): (3183223639, 7517228267496, 43743),
    ("cos", "fp32"): (3183666760, 8895957736872, 44481),
    ("exp", "fp32"): (1796, 41830218, 65025),
    ("log", "fp32"): (963084289, 975988477, 32513),
}


def _figures(distance, counted):
    measured = distance[counted]
    return int(measured.max()), int(measured.astype(np.int64).sum()), int(measured.size)


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name,dest", KERNELS)
def test_sweep_figures_are_pinned_and_recomputed_from_the_model(name, dest, arch):
    function = FUNCTION[name.removesuffix("_fp32")]
    spec = registry.get(name)
    outputs = ["bf16", "fp32"] if dest == "fp32" else ["bf16"]
    for out_fmt in outputs:
        result = sweep(spec, arch, output_format=out_fmt)
        s = result.summary
        want = FIGURES[function, out_fmt]
        assert (s["max_ulp"], s["measured"]) == (want[0], want[2])
        assert Fraction(s["mean_ulp"]) == Fraction(float(Fraction(want[1], want[2])))
        # The model's outputs, ended the way the sweep's device path ends them.
        dst_bits = model.dst(function, arch, ALL_FP32, dest)
        if dest == "bf16":
            device_out = dst_bits
        elif out_fmt == "bf16":
            device_out = fp32_to_bf16_ties_away(dst_bits)
        else:
            device_out = dst_bits
        ref = reference.reference(function, ALL_BF16, "rne", output_format=out_fmt, daz=True,
                                  ftz=True)
        scored = ulp.distance(ref, device_out, "daz-index")
        population = ulp.population("daz")
        assert _figures(scored.distance[population], scored.counted[population]) == want


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name,below", [("hellas_sin", 2.0 ** 18), ("hellas_cos", 2.0 ** 17)])
def test_trig_is_correctly_rounded_while_the_reduction_holds(name, below, arch):
    """Every BF16 input with |x| < 2**18 (sin) / 2**17 (cos) gives the correctly rounded BF16
    (the first inexact inputs: sin 303,104, cos 151,552); beyond 2**20 the note's recipe has no
    Payne-Hanek reduction and the error grows to tens of thousands of ULP."""
    a = sweep(registry.get(name), arch).arrays
    inside = a["counted"] & (np.abs(a["x"]) < below)
    assert a["distance"][inside].max() == 0
    first_inexact = np.abs(a["x"][a["counted"] & (a["distance"] > 0)]).min()
    assert first_inexact == (303104.0 if name == "hellas_sin" else 151552.0)


@pytest.mark.parametrize("arch", CHIPS)
def test_log_of_one_is_the_cubics_error_at_one_half(arch, dst):
    """ln 1 = ln(0.5) + 1*ln 2: the cubic at m = 0.5 (exact rational arithmetic on the note's
    binary32 coefficients) is -0.6927055641..., 4.42e-4 above ln 0.5, so log(1) comes out as
    ln2_f32 + P(0.5) = 4.4162e-4, which rounds to BF16 0x39e8 (both roundings in between are far
    from a BF16 boundary), not 0."""
    c = [Fraction(float(v)) for v in (-2.1859228610992431640625, 4.22526264190673828125,
                                      -2.9164140224456787109375, 0.877515852451324462890625)]
    m = Fraction(1, 2)
    p = c[0] + m * (c[1] + m * (c[2] + m * c[3]))
    value = float(Fraction(float(np.float32(np.log(2)))) + p)
    want = int(formats.fp32_to_bf16_rne(formats.fp32_to_bits(np.float32(value))))
    assert want == 0x39E8
    assert dst("hellas_log", arch)[0x3F80] == want


# Beyond |x * 2/pi| = 2**22 the rounding bias's sum steps by 2 or more and its pattern no longer
# holds q: the kernels then take q = round(x * 2/pi) and q mod 4 from q itself (issue: sin(2**23)
# came out 0.908 for 0.432). 2**22 * pi/2 is 6,588,397.3.
QUADRANT_INPUTS = np.array([0x4AC90FDA, 0x4AC90FDB, 0x4AC90FDC, 0x4AFFFFFF, 0x4B000000, 0x4B000001,
                            0x4B000002, 0x4B000003, 0x4B7FFFFF, 0x4B800000, 0x4B800001,
                            0x4B800003, 0x4BFFFFFF, 0x4C000000, 0x4C000001], dtype=np.uint32)
QUADRANT_INPUTS = np.concatenate([QUADRANT_INPUTS, QUADRANT_INPUTS | np.uint32(0x80000000)])


def _exact_q_mod_4(arch: str, x: np.ndarray) -> np.ndarray:
    """q mod 4 with q = round-half-even(x * 2/pi), the product rounded by the chip's multiply
    (the kernel's one SFPMAD with a zero addend), in Python integers."""
    u = formats.bits_to_fp32(model.Platform(arch).mul(x, model.TWO_OVER_PI))
    return np.array([round(Fraction(float(v))) % 4 for v in u], dtype=np.uint32)


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("name", ["hellas_sin_fp32", "hellas_cos_fp32"])
def test_the_quadrant_is_q_mod_4_at_2_pow_23_2_pow_24_and_their_neighbours(name, arch):
    function = name.removeprefix("hellas_").removesuffix("_fp32")
    out = run_device(registry.get(name).program(arch), QUADRANT_INPUTS,
                     DevicePath("fp32", "fp32", "fp32"), fp32_inputs=True, engine="machine")
    assert np.array_equal(out.output, model.dst(function, arch, QUADRANT_INPUTS, "fp32"))
    quadrant, _, _ = model._reduce(model.Platform(arch), QUADRANT_INPUTS)
    assert np.array_equal(quadrant, _exact_q_mod_4(arch, QUADRANT_INPUTS))
    # sin(2**23) = 0.432248 and cos(2**23) = -0.901752: the right quadrant, and the value the
    # chip's multiply-add gives the Cody-Waite steps (not an IEEE fused multiply-add: x - q*P1
    # comes out 2583.375 for 2583.359375), as the note allows above 2**20.
    assert out.output[QUADRANT_INPUTS == 0x4B000000][0] == \
        (0x3ED612C8 if function == "sin" else 0xBF688C9B)        # 0.418112, -0.908395
