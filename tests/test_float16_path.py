"""Float16 tensors in and out, and kernels as template instantiations chosen by Dst mode.

Hand-derived values: the FP16 Dst cell layout and SFPSTORE FP16 (tt-isa-documentation Dst.md,
SFPSTORE.md), the packer's FP32 -> Float16 late conversion (Packers/FormatConversion.md)."""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import formats, registry
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.sweeps import DevicePath, SweepError, run_device, sweep

CHIPS = ("wormhole", "blackhole")


def _run(kernel, x, path, arch="wormhole", engine="compiled"):
    program = registry.get(kernel).program(arch)
    return run_device(program, np.asarray(x, dtype=np.uint16), path, engine=engine)


@pytest.mark.parametrize("arch", CHIPS)
def test_exp_of_one_in_float16_through_a_16_bit_dst(arch):
    # exp(1) = 2.71828...: exp_2026_09 rounds to BF16 precision (2.71875 = 0x402E in BF16),
    # SFPSTORE FP16 truncates nothing more (2.71875 = 0x4170 in FP16), the packer copies it.
    run = _run("exp_2026_09", [0x3C00], DevicePath("fp16", "fp16", "bf16"), arch)
    assert int(run.kernel_fp32[0]) == 0x402E0000
    assert int(run.output[0]) == 0x4170


@pytest.mark.parametrize("arch", CHIPS)
def test_float16_inputs_read_ieee_infinity_as_a_finite_binade(arch):
    # 0x7C00 is +Inf to the host but exponent 31 is finite in a Dst FP16 cell: 65536.0 to
    # SFPLOAD, whose exp overflows; SFPSTORE FP16 saturates to the 0x7FFF pattern (host: NaN).
    run = _run("exp_2026_09", [0x7C00, 0x0001, 0x8000], DevicePath("fp16", "fp16", "bf16"),
               arch)
    assert [int(v) for v in run.output] == [0x7FFF, 0x3C00, 0x3C00]   # denormal reads as 0


def test_the_packer_truncates_fp32_to_float16_and_saturates():
    # 65536 keeps exponent 31, a finite binade on Tensix (the host reads 0x7C00 as +Inf);
    # 131072 and beyond, Inf and NaN saturate; below 2**-14 is signed zero.
    bits = np.array([0x3F800001, 0x3FFFFFFF, 0xBFFFFFFF, 0x47800000, 0x48000000, 0x7F800000,
                     0x7FC00000, 0x38000000, 0x387FFFFF, 0x80000000], dtype=np.uint32)
    assert [int(v) for v in formats.fp32_to_fp16_packer(bits)] == [
        0x3C00, 0x3FFF, 0xBFFF, 0x7C00, 0x7FFF, 0x7FFF, 0x7FFF, 0x0000, 0x0000, 0x8000]


# Compiling is the cost (a few seconds a program, cold): two programs by default, one per chip
# and Dst mode; every kernel x Dst x chip under slow.
FLOAT16_PROGRAMS = [("tanh_fp32_2026_09", "fp32"), ("exp_2026_09", "bf16"),
                    ("gelu_2026_09", "bf16"), ("erf_2026_09", "bf16"), ("erf_2026_09", "fp32")]
FLOAT16_DEFAULT = {("exp_2026_09", "bf16", "wormhole"), ("erf_2026_09", "fp32", "blackhole")}


@pytest.mark.parametrize("kernel, dest, arch", [
    pytest.param(kernel, dest, arch, id=f"{kernel}-{dest}-{arch}",
                 marks=() if (kernel, dest, arch) in FLOAT16_DEFAULT else pytest.mark.slow)
    for kernel, dest in FLOAT16_PROGRAMS for arch in CHIPS])
def test_compiled_equals_the_machine_on_every_float16_input(kernel, dest, arch):
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    path = DevicePath("fp16", "fp16", dest)
    compiled = _run(kernel, x, path, arch)
    machine = _run(kernel, x, path, arch, engine="machine")
    assert compiled.engine == "compiled"
    np.testing.assert_array_equal(compiled.output, machine.output)
    np.testing.assert_array_equal(compiled.kernel_fp32, machine.kernel_fp32)


def test_float16_sweep_summary_is_in_float16():
    result = sweep(registry.get("exp_2026_09"), "wormhole", input_format="fp16",
                   output_format="fp16", reference_rounding="rne_fp32")
    s = result.summary
    assert (s["input_format"], s["output_format"], s["max_ulp"]) == ("fp16", "fp16", 7)
    assert s["specials"][2]["input_bits"] == "0x7c00"            # +inf in FP16
    assert s["denormals"]["inputs"] == 2046
    assert "16-bit, FP16 cells" in s["device_path"][0]


@pytest.mark.parametrize("path", [("fp16", "bf16", "bf16"), ("bf16", "fp16", "bf16"),
                                  ("bf16", "bf16", "fp16")])
def test_unmodelled_format_mixtures_are_refused(path):
    """A 16-bit Dst between FP16 and BF16 cells (the packer's conversion there) is not
    modelled; through an FP32 Dst, and Float16 -> Float32 through either, it is
    (tests/test_budget_mixed.py holds them to the device's rows)."""
    with pytest.raises(SweepError):
        DevicePath(*path)
    for modelled in (("bf16", "fp16", "fp32"), ("fp16", "bf16", "fp32"), ("fp16", "fp32", "bf16")):
        DevicePath(*modelled)


# --------------------------------------------------------------------------------------------
# Instantiations
# --------------------------------------------------------------------------------------------

def test_dest_fp32_runs_the_fp32_instantiation():
    chosen = registry.for_dest(registry.get("tanh_2026_09"), "fp32")
    assert chosen.modelled and chosen.spec.name == "tanh_fp32_2026_09"
    assert chosen.spec.instantiation == ("calculate_tanh<APPROXIMATION_MODE=false, "
                                         "is_fp32_dest_acc_en=true>")
    back = registry.for_dest(chosen.spec, "bf16")
    assert back.spec.name == "tanh_2026_09"
    summary = sweep(registry.get("tanh_2026_09"), "wormhole", dest="fp32").summary
    assert summary["kernel"] == "tanh_fp32_2026_09" and summary["device_program"] is True


def test_a_missing_instantiation_is_said_not_hidden(monkeypatch):
    """Every registered template now has its FP32-Dst instantiation: a kernel file's BF16-Dst
    instantiation without its twin stands in."""
    from sfpu_sim.sfpi import dst_reg

    registry.get("exp_2026_09")          # the package's kernels loaded, in any test order
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))

    def doubled():
        dst_reg[0] = dst_reg[0] * 2.0

    registry.register_kernel("doubled_bf16_dst", doubled, function="tanh",
                             template="calculate_doubled",
                             params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False})
    chosen = registry.for_dest(registry.get("doubled_bf16_dst"), "fp32")
    assert not chosen.modelled and chosen.spec.name == "doubled_bf16_dst"
    assert chosen.note.startswith("NOT THE DEVICE'S PROGRAM")
    summary = sweep(registry.get("doubled_bf16_dst"), "wormhole", dest="fp32").summary
    assert summary["device_program"] is False and "not modelled" in summary["instantiation_note"]


def test_a_template_without_the_dest_parameter_is_one_program():
    chosen = registry.for_dest(registry.get("gelu_approx"), "fp32")
    assert chosen.modelled and chosen.spec.name == "gelu_approx"
    assert "does not depend on is_fp32_dest_acc_en" in chosen.note


@pytest.mark.parametrize("kwargs, message", [
    ({"params": {"APPROXIMATION_MODE": False}}, "needs template="),
    ({"template": "calculate_x", "params": {"is_fp32_dest_acc_en": True}}, "dest='bf16'"),
    ({"template": "calculate_x", "instance_of": "nonesuch"}, "no such kernel"),
    ({"template": "calculate_tanh", "instance_of": "exp_2026_09"}, "instantiates"),
    ({"template": "not an identifier"}, "identifier"),
    ({"template": "calculate_x", "params": {"N": [1]}}, "values bool"),
])
def test_bad_template_registrations_are_refused(kwargs, message, monkeypatch):
    from sfpu_sim.sfpi import dst_reg

    registry.get("exp_2026_09")          # the package's kernels loaded, in any test order
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))

    def body():
        dst_reg[0] = dst_reg[0]

    with pytest.raises(SfpuSimError, match=message):
        registry.register_kernel("bad_template", body, function="tanh", **kwargs)


def test_kernels_listing_shows_instantiations(capsys, monkeypatch):
    from sfpu_sim.cli import main

    monkeypatch.setenv("COLUMNS", "400")
    assert main(["kernels"]) == 0
    out = capsys.readouterr().out
    assert "instantiation" in out and "tanh_fp32_2026_09" in out
