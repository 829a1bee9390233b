"""sfpu-sim locate: the cancellation in a GELU built on 1 + tanh(u) is named, the shipped tanh's
error is split correctly, and the command's output, JSON and errors.

The instruction indices below were read from ``sfpu-sim kernel show`` listings, and the expected
splits are recomputed here from the kernels' coefficients in Fraction arithmetic (see each
test); neither is copied from locate's output.
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from sfpu_sim import formats, reference, registry, ulp
from sfpu_sim.cli import main
from sfpu_sim.shadow import locate
from tests.test_shadow import _test_round, bf16, fp32, fraction

CHIPS = ("wormhole", "blackhole")
FIXTURE = Path(__file__).parent / "fixtures" / "gelu_cancel.py"
FIXTURE_SOURCE = "tests/fixtures/gelu_cancel.py"
# `sfpu-sim kernel show gelu_cancel --arch A --kernels tests/fixtures/gelu_cancel.py`:
# "40  SFPADD L1, L10, L10, L1, 0  tests/fixtures/gelu_cancel.py:20  one_plus_t = t + 1.0" on
# Wormhole (SFPNOPs for its hazards come earlier), 36 on Blackhole.
CANCEL = {"wormhole": 40, "blackhole": 36}


@pytest.fixture(scope="module")
def fixture_kernel():
    """The fixture kernel file loaded into a registry that forgets it afterwards."""
    registry.names()
    patch = pytest.MonkeyPatch()
    patch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    patch.setattr(registry, "_LOADED", set(registry._LOADED))
    patch.setattr(reference.definitions, "FUNCTIONS", dict(reference.definitions.FUNCTIONS))
    registry.load_kernel_files([FIXTURE])
    yield registry.get("gelu_cancel")
    patch.undo()


def cancel_line() -> int:
    lines = FIXTURE.read_text().splitlines()
    [line] = [k + 1 for k, text in enumerate(lines) if text.strip() == "one_plus_t = t + 1.0"]
    return line


def bf16_inputs(low: float, high: float) -> np.ndarray:
    bits = ulp.population("daz")
    values = formats.bits_to_float64(bits, formats.BF16)
    return bits[(values >= low) & (values <= high)]


def index(bits: int) -> int:
    return int(ulp.index(np.array([bits], dtype=np.uint16), "bf16")[0])


def signed_round(value: Fraction) -> int:
    return _test_round(abs(value)) | (0x8000 if value < 0 and _test_round(abs(value)) else 0)


# --------------------------------------------------------------------------------------------
# The GELU fixture: 0.5 x (1 + tanh(u))
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", CHIPS)
def test_fixture_listing_has_the_cancelling_addition_where_the_test_expects(fixture_kernel,
                                                                            arch):
    program = fixture_kernel.program(arch)
    at_line = [k for k, ins in enumerate(program)
               if ins.source == f"{FIXTURE_SOURCE}:{cancel_line()}"]
    assert at_line == [CANCEL[arch]]
    assert program[CANCEL[arch]].mnemonic == "SFPADD"


@pytest.mark.parametrize("arch", CHIPS)
def test_locate_names_one_plus_tanh_for_every_input_in_minus_9_to_minus_2(fixture_kernel, arch):
    inputs = bf16_inputs(-9.0, -2.0)
    assert inputs.size == 273                             # 128 + 128 binade values + 17
    found = locate(fixture_kernel, arch, inputs=inputs)
    named = {lane.located.step.index if lane.located.step else None for lane in found.lanes
             if lane.device_ulp != 0}
    assert named == {CANCEL[arch]}
    # An exact lane names no instruction, but still shows where it cancels.
    assert {lane.cancellation.index for lane in found.lanes if lane.device_ulp == 0} <= \
        {CANCEL[arch]}
    worst = max(lane.device_ulp for lane in found.lanes)
    from sfpu_sim.sweeps import sweep

    result = sweep(fixture_kernel, arch)                  # the sweep's figure, same inputs
    inside = np.isin(result.arrays["x_bits"], inputs)
    assert worst == int(result.arrays["distance"][inside].max())
    assert worst > 10_000                                  # the symptom: thousands of ULP
    row = {r.index: r for r in found.instructions()}[CANCEL[arch]]
    inexact = sum(lane.device_ulp != 0 for lane in found.lanes)
    assert row.located == inexact and row.cancellation == 273


@pytest.mark.parametrize("arch", CHIPS)
def test_saturated_lane_is_all_approximation_with_an_exact_zero_shadow(fixture_kernel, arch):
    # x = -8: u = sqrt(2/pi) (x + 0.044715 x^3) = -24.65; the tanh polynomial's leading term
    # alone is 0.00588 * 24.65**6 > 1, so min(p, 1) = 1, t = -1 and 1 + t = 0 exactly, in the
    # device and in the shadow: the whole error is the approximation, lost at the addition.
    [lane] = locate(fixture_kernel, arch, inputs=[0xC100]).lanes
    assert lane.shadow_final == 0 and lane.kernel_fp32_bits == 0 and lane.output_bits == 0
    split = lane.split
    assert (split.datapath, split.store) == (0, 0)
    assert split.approximation == split.total == index(0) - index(lane.reference_bits)
    assert abs(split.total) == lane.device_ulp
    assert lane.grows_most is None
    assert lane.cancellation.index == CANCEL[arch] and lane.cancellation.kappa == float("inf")
    assert lane.located.step.index == CANCEL[arch]


def test_locate_command_prints_the_cancelling_instruction(fixture_kernel, capsys):
    code = main(["locate", "gelu_cancel", "--arch", "wormhole", "--x=-3",
                 "--kernels", str(FIXTURE)])
    out = capsys.readouterr().out
    assert code == 0
    assert f"located: #40 SFPADD ({FIXTURE_SOURCE}:{cancel_line()})" in out
    assert "split (BF16 ULP steps): approximation +200 + datapath +0 + store/pack +0 = +200" \
        in out
    assert "located: the larger part of the split decides" in out       # the definitions


def test_locate_json_has_the_documented_keys(fixture_kernel, capsys):
    code = main(["locate", "gelu_cancel", "--arch", "blackhole", "--x=-3", "--x", "0x3f80",
                 "--json", "--kernels", str(FIXTURE)])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(data) == {"kernel", "function", "arch", "dest", "selection", "definitions",
                         "lanes", "instructions"}
    first = data["lanes"][0]
    assert set(first) == {"input_bits", "input", "reference_bits", "reference", "true_value",
                          "output_bits", "output", "kernel_fp32_bits", "kernel_fp32",
                          "shadow_final", "shadow_exact", "device_ulp", "split", "located",
                          "grows_most", "cancellation", "steps"}
    assert first["located"]["index"] == CANCEL["blackhole"]
    assert first["located"]["source"] == f"{FIXTURE_SOURCE}:{cancel_line()}"
    split = first["split"]
    assert split["approximation"] + split["datapath"] + split["store"] == split["total"]
    assert set(first["steps"][0]) == {
        "index", "mnemonic", "text", "source", "kind", "register", "device_bits", "device",
        "shadow", "shadow_exact", "error_rel", "error_ulp", "added_rel", "added_ulp", "growth",
        "kappa", "bits_lost", "on_path"}
    assert set(data["instructions"][0]) == {
        "index", "mnemonic", "text", "source", "lanes", "located", "grows_most",
        "cancellation", "added_ulp_median", "added_ulp_max", "growth_median", "growth_max",
        "bits_lost_max"}


# --------------------------------------------------------------------------------------------
# The shipped tanh: its error attributed correctly
# --------------------------------------------------------------------------------------------

# kernels/tanh.py's degree-6 minimax coefficients (c0 = 0 is vConst0), each an FP32 value
# written out in full there.
TANH_COEFFICIENTS = ("0", "0.999004364013671875", "3.0897438526153564453125e-2",
                     "-0.4890659749507904052734375", "0.281917631626129150390625",
                     "-6.6649019718170166015625e-2", "5.876733921468257904052734375e-3")


def tanh_shadow(x: Fraction) -> Fraction:
    """What tanh computes, exactly: p(|x|) by Horner, min(p, 1), x's sign (kernels/tanh.py)."""
    p = Fraction(0)
    for c in reversed(TANH_COEFFICIENTS):
        p = Fraction(c) + abs(x) * p
    p = min(p, Fraction(1))
    return -p if x < 0 else p


def test_tanh_coefficients_here_are_the_kernels_fp32_values():
    for text in TANH_COEFFICIENTS:
        assert Fraction(text) == Fraction(float(np.float32(float(text))))


def expected_split(lane) -> tuple[int, int, int]:
    """The split recomputed here: S by Fractions, every rounding by the test's own RNE."""
    stored = signed_round(tanh_shadow(bf16(lane.input_bits)))
    kernel = signed_round(fp32(lane.kernel_fp32_bits))
    return (index(stored) - index(lane.reference_bits), index(kernel) - index(stored),
            index(lane.output_bits) - index(kernel))


@pytest.mark.parametrize("arch", CHIPS)
def test_tanh_one_ulp_lanes_split_as_recomputed_from_the_polynomial(arch):
    from sfpu_sim.sweeps import sweep

    result = sweep(registry.get("tanh"), arch)
    ones = int((result.arrays["distance"][result.arrays["counted"]] == 1).sum())
    assert result.summary["max_ulp"] == 1
    found = locate("tanh", arch, worst=ones)
    assert len(found.lanes) == ones and {lane.device_ulp for lane in found.lanes} == {1}
    final_mad = max(k for k, ins in enumerate(found.program) if ins.mnemonic == "SFPMAD")
    kinds = {"approximation": 0, "datapath": 0}
    for lane in found.lanes:
        split = lane.split
        assert fraction(lane.shadow_final) == tanh_shadow(bf16(lane.input_bits))
        assert (split.approximation, split.datapath, split.store) == expected_split(lane)
        assert split.approximation + split.datapath + split.store == split.total
        assert abs(split.total) == 1
        # float_to_fp16b rounds to a BF16 value before the store, so the truncating SFPSTORE
        # to the BF16 Dst is exact: no store error, ever.
        assert lane.kernel_fp32_bits & 0xFFFF == 0 and split.store == 0
        kinds["approximation" if split.approximation else "datapath"] += 1
        if split.datapath:
            # Only at +-2**-126 (tanh x = x there): the last MAD, x * p(|x|) with p < 1,
            # falls below the smallest normal and the FMA flushes it to zero.
            assert lane.input_bits & 0x7FFF == 0x0080 and lane.output_bits & 0x7FFF == 0
            assert lane.located.step.index == final_mad
        else:
            assert lane.located.step is None              # the polynomial's own error
    assert kinds == {"approximation": ones - 2, "datapath": 2}


@pytest.mark.parametrize("arch", CHIPS)
def test_tanh_at_minus_three_quarters_pinned(arch):
    # Worked out by hand: S = tanh polynomial at 0.75 = 0.63473868..., |S| below the BF16
    # midpoint 0.634765625 of 0x3f22 (0.6328125) and 0x3f23 (0.63671875), so rne(S) = 0xbf22;
    # tanh(0.75) = 0.63514895 lies above it, so the reference is 0xbf23. float_to_fp16b
    # (nearest) gives K = 0xbf220000, stored exactly. Split: approximation +1 (one index
    # step towards zero), datapath 0, store 0.
    x = Fraction(-3, 4)
    s = tanh_shadow(x)
    assert Fraction(6328125, 10 ** 7) < -s < Fraction(634765625, 10 ** 9)
    with mpmath.workprec(200):
        true = fraction(mpmath.tanh(mpmath.mpf(0.75)))
    assert true > Fraction(634765625, 10 ** 9)
    [lane] = locate("tanh", arch, inputs=[0xBF40]).lanes
    assert lane.reference_bits == 0xBF23 == signed_round(-true)
    assert fraction(lane.shadow_final) == s and signed_round(s) == 0xBF22
    assert lane.kernel_fp32_bits == 0xBF220000 and lane.output_bits == 0xBF22
    split = lane.split
    assert (split.approximation, split.datapath, split.store, split.total) == (1, 0, 0, 1)
    unit = Fraction(1, 256)                               # BF16 spacing at 0.63671875
    assert split.approximation_frac == float((s + true) / unit)
    assert split.datapath_frac == float((fp32(0xBF220000) - s) / unit)
    assert lane.located.step is None and "approximation's own" in lane.located.why
    assert lane.grows_most.instruction.mnemonic == "SFP_STOCH_RND"


# --------------------------------------------------------------------------------------------
# Bad input: one line, exit 2
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["--arch", "wormhole"], "give --x VALUE (repeatable), --worst N or --from "),
    (["--arch", "wormhole", "--x", "1", "--worst", "3"], "give --x VALUE (repeatable), --worst N or "),
    (["--arch", "wormhole", "--worst", "0"], "--worst 0: the number of lanes must be an "
                                             "integer in 1..1000"),
    (["--arch", "wormhole", "--worst", "many"], "--worst 'many': give a whole number of lanes"),
    (["--arch", "wormhole", "--x", "fast"], "'fast' is neither a number nor a 0x BF16 bit"),
])
def test_locate_bad_input_is_one_line(capsys, argv, message):
    code = main(["locate", "tanh", *argv])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err


def test_locate_unknown_kernel_is_one_line(capsys):
    assert main(["locate", "no_such_kernel", "--arch", "wormhole", "--x", "1"]) == 2
    assert "unknown kernel 'no_such_kernel'" in capsys.readouterr().err


def test_recording_does_not_change_the_device_run():
    from sfpu_sim.shadow.recording import RecordingMachine
    from sfpu_sim.sweeps import run_device

    program = registry.get("gelu").program("wormhole")
    inputs = np.arange(0, 1 << 16, 61, dtype=np.uint32).astype(np.uint16)
    plain = run_device(program, inputs)
    watched = run_device(program, inputs, machine_class=RecordingMachine)
    assert np.array_equal(plain.output, watched.output)
    assert np.array_equal(plain.kernel_fp32, watched.kernel_fp32)
