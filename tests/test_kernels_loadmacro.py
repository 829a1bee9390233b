"""tt-llk's SFPLOADMACRO kernels against their straight-line twins, on every BF16 input.

tt-llk added the ``DISABLE_SFPLOADMACRO`` forms as "straightforward translations ... preserving
bit-identical results": exp (#1454, 2026-03-14, both chips) and the Blackhole reciprocals
(#1473, 2026-03-14). The twins are registered under the plain names (kernels/exp.py,
kernels/reciprocal.py); the SFPLOADMACRO forms (kernels/loadmacro.py) run on the sequencer.
Equal output bits over all 65,536 inputs is the claim tested; the expected bits come from the
twin, an independent instruction stream on the per-instruction path.
"""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import formats, registry
from sfpu_sim.sweeps import DevicePath, run_device

ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
CASES = [("exp_approx_loadmacro", "exp_approx", "wormhole"),
         ("exp_approx_loadmacro", "exp_approx", "blackhole"),
         ("reciprocal_loadmacro", "reciprocal", "blackhole"),
         ("reciprocal_approx_loadmacro", "reciprocal_approx", "blackhole"),
         ("reciprocal_fp32_loadmacro", "reciprocal_fp32", "blackhole")]


def runs(name: str, twin: str, arch: str):
    spec = registry.get(name)
    path = DevicePath(dest=spec.dest, output_format=spec.dest)   # FP32 Dst: its exact bits
    return (run_device(spec.program(arch), ALL_BF16, path),
            run_device(registry.get(twin).program(arch), ALL_BF16, path))


@pytest.mark.parametrize("name, twin, arch", CASES)
def test_loadmacro_kernel_is_bit_identical_to_its_straight_line_twin(name, twin, arch):
    macro, straight = runs(name, twin, arch)
    differ = np.flatnonzero(macro.output != straight.output)
    assert differ.size == 0, (f"{differ.size} inputs differ, e.g. {int(differ[0]):#06x}: "
                              f"{int(macro.output[differ[0]]):#x} vs "
                              f"{int(straight.output[differ[0]]):#x}")
    if name != "reciprocal_loadmacro":            # the stored LReg too (see the next test)
        assert np.array_equal(macro.kernel_fp32, straight.kernel_fp32)


@pytest.mark.parametrize("name, twin, arch", CASES)
def test_every_row_group_of_the_face_matches_the_twin(name, twin, arch):
    """The sweep puts its inputs at address 0 only; here the 65,536 inputs fill all 8 row
    groups the call walks (8,192 at each of addresses 0, 2, ..., 14), in one run."""
    from sfpu_sim.sweeps import device_machine

    spec = registry.get(name)
    path = DevicePath(dest=spec.dest, output_format=spec.dest)
    program = spec.program(arch)
    chunks = ALL_BF16.reshape(8, -1)
    m, _ = device_machine(program, chunks[0], path)
    for k in range(1, 8):
        values = formats.bf16_to_fp32_bits(chunks[k]) if spec.dest == "fp32" else chunks[k]
        m.dst.write_lanes(2 * k, values, spec.dest)
    m.run(program)
    assert not m.macros.busy
    got = np.concatenate([m.dst.read_lanes(2 * k, spec.dest) for k in range(8)])
    straight = run_device(registry.get(twin).program(arch), ALL_BF16, path).output
    assert np.array_equal(got, straight)


def test_bf16_reciprocal_stores_the_same_high_half_and_the_dst_layout_below():
    """fast_8b_3c's ``t = z >> 16`` is an SFPSTORE of z to the BF16 Dst and an LO16 load: the
    16 raw bits of the cell, which hold BF16 in Dst's layout (sign | mantissa | exponent,
    tt-isa-documentation Dst.md), where the twin shifts z. ``y + t`` (y's low half is 0x8000)
    carries into the kept half only through t's bit 15, the sign in both layouts, so the high
    halves agree and the low halves are 0x8000 + t with t in each layout."""
    macro, straight = runs("reciprocal_loadmacro", "reciprocal", "blackhole")
    assert np.array_equal(macro.kernel_fp32 >> 16, straight.kernel_fp32 >> 16)
    t = (straight.kernel_fp32 - np.uint32(0x8000)) & np.uint32(0xFFFF)
    laid_out = formats.bf16_to_dst(t.astype(np.uint16)).astype(np.uint32)
    expected_low = (np.uint32(0x8000) + laid_out) & np.uint32(0xFFFF)
    assert np.array_equal(macro.kernel_fp32 & np.uint32(0xFFFF), expected_low)
    assert not np.array_equal(macro.kernel_fp32, straight.kernel_fp32)


@pytest.mark.parametrize("name, twin, arch", CASES)
def test_loadmacro_kernels_keep_every_scheduling_rule(name, twin, arch):
    """Strict mode: no hazard, no discarded instruction, nothing left pending."""
    from sfpu_sim.machine import Machine

    program = registry.get(name).program(arch)
    m = Machine(arch, lanes=32, strict=True)
    m.config.sfpu_fp32 = registry.get(name).dest == "fp32"
    m.run(program)
    assert not m.macros.busy and m.executed == len(program)


def test_locate_refuses_a_kernel_built_on_sfploadmacro(capsys):
    from sfpu_sim.cli import main

    assert main(["locate", "exp_approx_loadmacro", "--arch", "blackhole", "--x", "1.0"]) == 2
    err = capsys.readouterr().err
    assert "uses SFPLOADMACRO: locate follows issued instructions" in err
    assert len(err.strip().splitlines()) == 1


def test_the_compiled_engine_declines_sfploadmacro_and_says_why():
    spec = registry.get("exp_approx_loadmacro")
    macro = run_device(spec.program("wormhole"), ALL_BF16,
                       DevicePath(dest=spec.dest, output_format=spec.dest), engine="compiled")
    assert macro.engine.startswith("machine (SFPLOADMACRO schedules instructions"), macro.engine
