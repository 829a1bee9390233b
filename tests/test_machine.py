"""The machine: state API, lane groups, hazards, traces, and robustness against any word."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sfpu_sim import fma
from sfpu_sim.asm import assemble
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.isa.spec import IsaError
from sfpu_sim.machine import HazardError, HazardWarning, Machine
from sfpu_sim.trace import first_divergence

ONE, TWO = 0x3F800000, 0x40000000


@pytest.mark.parametrize("arch", ["wormhole", "blackhole"])
def test_reset_state_holds_the_documented_constants(arch):
    m = Machine(arch, lanes=64)
    assert m.lreg.shape == (16, 64) and m.lreg.dtype == np.uint32
    assert (m.lreg[8] == 0x3F56594B).all() and (m.lreg[9] == 0).all()
    assert (m.lreg[10] == ONE).all() and (m.lreg[11] == 0xBF800000).all()
    # LReg 15 holds 2 x the lane number within each 32-lane SFPU
    assert m.lreg[15].tolist() == [2 * (lane % 32) for lane in range(64)]
    assert m.cc.enable is False and m.cc.depth == 0 and not m.cc.flags.any()


def test_lanes_must_be_a_multiple_of_32():
    with pytest.raises(IsaError, match="multiple of 32"):
        Machine("wormhole", lanes=48)


@pytest.mark.parametrize("arch", ["wormhole", "blackhole"])
def test_mad_runs_every_lane_through_the_chip_model(arch):
    rng = np.random.default_rng(3)
    m = Machine(arch, lanes=96)
    a, b, c = (rng.integers(0, 1 << 32, 96, dtype=np.uint32) for _ in range(3))
    m.lreg[0], m.lreg[1], m.lreg[2] = a, b, c
    m.run(assemble("SFPMAD L0, L1, L2, L3, 0", arch))
    assert np.array_equal(m.lreg[3], fma.MODELS[arch](a, b, c))


def test_writes_to_constant_registers_are_ignored_like_the_hardware():
    m = Machine("blackhole")
    m.lreg[0] = TWO
    m.step(0x84000000 | (0 << 16) | (10 << 12) | (9 << 8) | (9 << 4))   # SFPMAD ... VD = 9
    assert (m.lreg[9] == 0).all()


def test_lane_flags_gate_writes_when_cc_is_enabled():
    m = Machine("blackhole")
    m.lreg[0] = TWO
    m.cc.enable = True
    m.cc.flags[::2] = True
    m.run(assemble("SFPMAD L0, L10, L9, L1, 0", "blackhole"))
    assert (m.lreg[1][::2] == TWO).all() and (m.lreg[1][1::2] == 0).all()


def test_wormhole_warns_when_a_mad_result_is_read_next():
    program = assemble("SFPMAD L0, L10, L9, L1, 0\nSFPMAD L1, L10, L9, L2, 0", "wormhole")
    with pytest.warns(HazardWarning, match=r"instruction 1 .*reads L1 .*SFPMAD"):
        Machine("wormhole").run(program)
    with pytest.raises(HazardError, match="instruction 1"):
        Machine("wormhole", strict=True).run(program)


def test_a_nop_clears_the_wormhole_hazard_and_blackhole_interlocks():
    gap = assemble("SFPMAD L0, L10, L9, L1, 0\nSFPNOP\nSFPMAD L1, L10, L9, L2, 0", "wormhole")
    direct = assemble("SFPMAD L0, L10, L9, L1, 0\nSFPMAD L1, L10, L9, L2, 0", "blackhole")
    with warnings.catch_warnings():
        warnings.simplefilter("error", HazardWarning)
        Machine("wormhole", strict=True).run(gap)
        Machine("blackhole", strict=True).run(direct)


def test_blackhole_interlock_hole_for_the_vd_input_of_sfpiadd():
    program = assemble("SFPMAD L0, L10, L9, L1, 0\nSFPIADD 0, L2, L1, 4", "blackhole")
    with pytest.raises(HazardError, match="interlock does not cover"):
        Machine("blackhole", strict=True).run(program)


def test_trace_records_changed_registers_per_lane_and_finds_divergence():
    program = assemble("SFPLOADI L1, 0, 0x4000\nSFPMAD L0, L1, L9, L2, 0\nSFPNOP", "wormhole")
    runs = []
    for x in (ONE, 0x3F800001):
        m = Machine("wormhole")
        m.lreg[0] = x
        trace = m.record([0, 31])
        m.run(program)
        runs.append(trace)
    first = runs[0].steps
    assert [s.instruction.mnemonic for s in first] == ["SFPLOADI", "SFPMAD", "SFPNOP"]
    assert {(c.where, c.lane, c.after) for c in first[0].changes} == \
        {("L1", 0, TWO), ("L1", 31, TWO)}
    assert first[2].changes == []
    index, a, b = first_divergence(*runs)
    assert index == 1 and a.where == "L2" and a.after == TWO and b.after == 0x40000001


def test_machine_steps_raw_words_and_rejects_other_chips_instructions():
    m = Machine("wormhole")
    m.step(0x8F000000)
    with pytest.raises(IsaError, match="does not exist on Wormhole"):
        m.step(0x97000000)


SFPU_OPCODES = st.integers(0x70, 0x99)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(["wormhole", "blackhole"]), SFPU_OPCODES | st.integers(0, 255),
       st.integers(0, (1 << 24) - 1), st.integers(0, 2 ** 32 - 1), st.booleans())
def test_any_word_on_any_state_executes_or_raises_a_documented_error(arch, opcode, fields, seed,
                                                                      cc_enable):
    rng = np.random.default_rng(seed)
    m = Machine(arch)
    m.lreg[:8] = rng.integers(0, 1 << 32, (8, 32), dtype=np.uint32)
    m.cc.enable = cc_enable
    m.cc.flags[:] = rng.integers(0, 2, 32).astype(bool)
    m.dst.bits[:] = rng.integers(0, 1 << 16, m.dst.bits.shape, dtype=np.uint16)
    word = (opcode << 24) | fields
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HazardWarning)
        try:
            m.step(word)
            m.step(word)          # twice: stack, PRNG and config state now non-trivial
        except SfpuSimError as error:
            assert "\n" not in str(error)
    assert m.lreg.dtype == np.uint32 and m.lreg.shape == (16, 32)
