"""SFPLOADMACRO and its sequencer (sfpu_sim.isa.loadmacro, sfpu_sim.macro).

Every expected value is worked by hand from tt-isa-documentation ``SFPLOADMACRO.md`` (f7fda211,
both chips): a Sequence byte is ``select | delay << 3 | 0x40 (result to LReg[16]) | 0x80 (the
loaded register is VB)``, delay 0 runs in the cycle after the SFPLOADMACRO and delay d one cycle
later per count, a Store runs at the SFPLOADMACRO's address; from ``VectorUnit.md`` (SFPMAD
class: two cycles) and the Simple-unit pages (``unsigned VB = VD;``, skipped when scheduled).
Where a test pins one of sfpu-sim's readings of a gap in the pages, it says so.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from sfpu_sim.asm import assemble, assemble_line
from sfpu_sim.isa.spec import UndefinedBehaviour, Unsupported
from sfpu_sim.machine import AddrMod, HazardError, HazardWarning, Machine
from sfpu_sim.sweeps import SweepError, run_device

ARCHES = ["wormhole", "blackhole"]
FP32, STORE_MOD0_FP32 = 3, 3
SIMPLE_COUNTS_ISSUES = 1 << 8                      # Misc.UnitDelayKind bit of the Simple unit
X = np.array([1.5, -2.0, 3.0, 0.25] * 8, dtype=np.float32)
ONE_POINT_FIVE, TWO = 0x3FC00000, 0x40000000


def bits(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def byte(select: int, delay: int = 0, vb: bool = False, lreg16: bool = False) -> int:
    return select | delay << 3 | (0x80 if vb else 0) | (0x40 if lreg16 else 0)


def sequence(simple=0, mad=0, rounding=0, store=0) -> int:
    return simple | mad << 8 | rounding << 16 | store << 24


def machine(arch, templates=(), sequences=None, misc=STORE_MOD0_FP32, x=X, strict=False):
    """A 32-lane machine with ``x`` (FP32) at Dst address 0 and LoadMacroConfig set directly
    (SFPCONFIG and the backdoor are tested apart)."""
    m = Machine(arch, strict=strict)
    m.dst.write_lanes(0, bits(x), "fp32")
    for k, text in enumerate(templates):
        m.loadmacro.templates[k] = assemble_line(text, arch).word
    for macro, value in (sequences or {}).items():
        m.loadmacro.sequence[macro] = value
    m.loadmacro.misc[:] = misc
    return m


def run(m: Machine, *lines: str) -> Machine:
    for line in lines:
        m.step(assemble_line(line, m.arch))
    return m


def loadmacro(macro: int, vd: int, address: int = 0, mod0: int = FP32) -> str:
    """SFPLOADMACRO of ``macro`` into ``vd`` (VDLo in the first operand, VDHi in address bit 0)."""
    return f"SFPLOADMACRO {macro << 2 | vd & 3}, {mod0}, 0, {address | vd >> 2}"


# --------------------------------------------------------------------------------------------
# Time
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("delay", [0, 1, 4, 7])
def test_delay_d_runs_in_cycle_d_plus_1_after_the_loadmacro(arch, delay):
    """L0 = x + 1 by a scheduled SFPIADD (ARG_IMM): visible after the step of cycle d + 1."""
    m = machine(arch, ["SFPIADD 1, L0, L12, 5"], {0: sequence(simple=byte(4, delay))})
    run(m, loadmacro(0, 0))
    assert np.array_equal(m.lreg[0], bits(X))
    for cycle in range(1, 9):
        run(m, "SFPNOP")
        expected = bits(X) + (cycle >= delay + 1)
        assert np.array_equal(m.lreg[0], expected), cycle
    assert not m.macros.busy


@pytest.mark.parametrize("arch", ARCHES)
def test_cycle_delays_pass_when_nothing_is_issued_but_issue_counts_wait(arch):
    """Misc.UnitDelayKind clear: Machine.run lets the cycles pass after the program. Set: the
    count drops only when the thread issues, so the SFPIADD waits for the next steps."""
    m = machine(arch, ["SFPIADD 1, L0, L12, 5"], {0: sequence(simple=byte(4, 3))})
    m.run([assemble_line(loadmacro(0, 0), arch)])
    assert np.array_equal(m.lreg[0], bits(X) + 1) and not m.macros.busy
    m = machine(arch, ["SFPIADD 1, L0, L12, 5"], {0: sequence(simple=byte(4, 3))},
                misc=STORE_MOD0_FP32 | SIMPLE_COUNTS_ISSUES)
    m.run([assemble_line(loadmacro(0, 0), arch)])
    assert np.array_equal(m.lreg[0], bits(X)) and len(m.macros.pending) == 1
    run(m, "SFPNOP", "SFPNOP", "SFPNOP")       # three issues count the delay down to 0
    assert np.array_equal(m.lreg[0], bits(X))
    run(m, "SFPNOP")                            # it runs in the cycle after
    assert np.array_equal(m.lreg[0], bits(X) + 1) and not m.macros.busy


@pytest.mark.parametrize("arch", ARCHES)
def test_a_program_left_waiting_on_issued_instructions_is_refused_by_the_sweep(arch):
    m_text = f"""
    SFPLOADI L0, LOWER, {STORE_MOD0_FP32 | SIMPLE_COUNTS_ISSUES}
    SFPLOADI L0, UPPER, 0
    SFPCONFIG 0, 8, 0
    SFPIADD 1, L0, L12, 5
    SFPLOADI L0, LOWER, {byte(4, 3)}
    SFPCONFIG 0, 4, 0
    {loadmacro(0, 0)}
    """
    program = assemble(m_text, arch, "waiting.s")
    with pytest.raises(SweepError, match="waiting for issued instructions"):
        run_device(program, np.array([0x3F80], dtype=np.uint16))


# --------------------------------------------------------------------------------------------
# What is scheduled
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
def test_loaded_register_replaces_vc_or_vb(arch):
    """SFPIADD (VD+VB form) from template ``SFPIADD 0, L6, L12, 4``: byte bit 7 clear makes VC
    the loaded L1 and VB the template's VD (L12 = 1/512 by the chips' reset constant); bit 7
    set makes VB the loaded L1 and keeps VC = L6."""
    m = machine(arch, ["SFPIADD 0, L6, L12, 4"], {0: sequence(simple=byte(4)),
                                                 1: sequence(simple=byte(4, vb=True))})
    m.lreg[6] = 0x100
    run(m, loadmacro(0, 1), "SFPNOP")
    assert np.array_equal(m.lreg[1], bits(X) + np.uint32(0x3B000000))
    run(m, loadmacro(1, 1), "SFPNOP")
    assert np.array_equal(m.lreg[1], bits(X) + np.uint32(0x100))


@pytest.mark.parametrize("arch", ARCHES)
def test_sfpaddi_takes_the_template_vd_as_vc_when_the_loaded_register_is_vb(arch):
    """SFPADDI has no VC field: with bit 7 the macro makes VC the template's VD (L12 = 1/512,
    the reset constant), so the loaded register becomes 2.0 + 2**-9 = 0x40002000 (exact)
    whatever it held."""
    m = machine(arch, ["SFPADDI 0x4000, L12, 0"], {0: sequence(mad=byte(4, vb=True))})
    run(m, loadmacro(0, 2), "SFPNOP", "SFPNOP")
    assert np.all(m.lreg[2] == 0x40002000)


@pytest.mark.parametrize("arch", ARCHES)
def test_lreg16_result_and_store_at_the_loadmacro_address_without_addrmod(arch):
    """Simple: L16 = L0 << 1 (SFPSHFT ARG_IMM, VB = the loaded register); Store (byte bit 6)
    stores L16 at delay 1 to the SFPLOADMACRO's address 0 in StoreMod0 FP32, although the
    SFPLOADMACRO's AddrMod moved the Dst counter to 4 and the Store applies no AddrMod."""
    m = machine(arch, ["SFPSHFT 1, L0, L12, 1"], {0: sequence(simple=byte(4, vb=True, lreg16=True),
                                                             store=byte(3, 1, lreg16=True))})
    m.config.addr_mods[0] = AddrMod(dst_incr=4)
    run(m, loadmacro(0, 3), "SFPNOP", "SFPNOP")
    assert np.array_equal(m.lreg_macro, bits(X) << np.uint32(1))
    assert np.array_equal(m.dst.read_lanes(0, "fp32"), bits(X) << np.uint32(1))
    assert m.rwc.dst == 4
    assert np.array_equal(m.lreg[3], bits(X))


@pytest.mark.parametrize("arch", ARCHES)
def test_templates_captured_by_the_backdoor_and_sfpconfig(arch):
    """The init's way: SFPCONFIG VD 0 writes template 0 from L0; an instruction with VD 13 is
    captured as template 1 instead of running; SFPCONFIG 4 / 8 write Sequence[0] and Misc."""
    program = assemble(f"""
        SFPLOADI L0, LOWER, {assemble_line("SFPIADD 2, L0, L12, 5", arch).word & 0xFFFF}
        SFPLOADI L0, UPPER, {assemble_line("SFPIADD 2, L0, L12, 5", arch).word >> 16}
        SFPCONFIG 0, 0, 0
        SFPMULI 0x4000, L13, 0
        SFPLOADI L0, LOWER, {sequence(simple=byte(4), mad=byte(5, 2, vb=True)) & 0xFFFF}
        SFPLOADI L0, UPPER, 0
        SFPCONFIG 0, 4, 0
        SFPCONFIG {STORE_MOD0_FP32}, 8, 1
        {loadmacro(0, 4)}
        SFPNOP
        SFPNOP
        SFPNOP
        SFPNOP
    """, arch, "init.s")
    m = machine(arch, misc=0)
    m.lreg[13] = 0
    m.run(program)
    assert m.loadmacro.templates[1][0] == assemble_line("SFPMULI 0x4000, L13, 0", arch).word
    assert np.all(m.lreg[13] == 0)                   # captured, not executed
    # cycle 1: L4 = x + 2 (Simple); cycle 3: MULI reads VC = template VD 13 (no VC field,
    # bit 7) = 0 -> L4 = 2.0 * 0 = 0, landing at the end of cycle 4
    assert np.all(m.lreg[4] == 0)


# --------------------------------------------------------------------------------------------
# Cycles: two-cycle results, discarding, forgetting
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("delay, seen", [(1, "old"), (2, "new")])
def test_a_two_cycle_result_is_not_there_in_the_next_cycle(arch, delay, seen):
    """MAD (delay 0, cycle 1): L0 = 1.0 * L0 + 1.0, landing at the end of cycle 2. A Simple
    SFPMOV of L0 into L16 in cycle 2 (delay 1) reads the old L0, in cycle 3 the new."""
    m = machine(arch, ["SFPMAD L10, L0, L10, L13, 0", "SFPMOV 0, L0, L13, 0"],
                {0: sequence(mad=byte(4, vb=True), simple=byte(5, delay, lreg16=True))})
    run(m, loadmacro(0, 0), "SFPNOP", "SFPNOP", "SFPNOP", "SFPNOP")
    new = bits(X + np.float32(1.0))
    assert np.array_equal(m.lreg[0], new)
    assert np.array_equal(m.lreg_macro, bits(X) if seen == "old" else new)


@pytest.mark.parametrize("arch", ARCHES)
def test_an_issued_instruction_meeting_a_scheduled_one_is_discarded(arch):
    """Cycle 1: the scheduled SFPIADD runs on Simple, the issued SFPIADD (Simple too) is
    silently discarded (SFPLOADMACRO.md), reported as a hazard; an issued SFPLOADI (load
    sub-unit) in that cycle runs. Strict mode refuses the collision."""
    m = machine(arch, ["SFPIADD 1, L0, L12, 5"], {0: sequence(simple=byte(4))})
    m.lreg[5] = 7
    with pytest.warns(HazardWarning, match="discarded"):
        run(m, loadmacro(0, 0), "SFPIADD 100, L5, L5, 5")
    assert np.all(m.lreg[5] == 7) and np.array_equal(m.lreg[0], bits(X) + 1)
    m = machine(arch, ["SFPIADD 1, L0, L12, 5"], {0: sequence(simple=byte(4))})
    run(m, loadmacro(0, 0), "SFPLOADI L5, USHORT, 9")
    assert np.all(m.lreg[5] == 9) and np.array_equal(m.lreg[0], bits(X) + 1)
    m = machine(arch, ["SFPIADD 1, L0, L12, 5"], {0: sequence(simple=byte(4))}, strict=True)
    with pytest.raises(HazardError, match="discarded"):
        run(m, loadmacro(0, 0), "SFPIADD 100, L5, L5, 5")


@pytest.mark.parametrize("arch", ARCHES)
def test_a_later_loadmacro_forgets_what_runs_in_the_same_cycle_on_that_unit(arch):
    """Macro 0 schedules L0 += 1 for cycle 2 (delay 1); macro 1, one cycle later, schedules
    L1 += 16 for cycle 2 too (delay 0): the first is forgotten."""
    m = machine(arch, ["SFPIADD 1, L0, L12, 5", "SFPIADD 16, L0, L12, 5"],
                {0: sequence(simple=byte(4, 1)), 1: sequence(simple=byte(5, 0))})
    m.dst.write_lanes(2, bits(X * 2), "fp32")
    run(m, loadmacro(0, 0), loadmacro(1, 1, 2), "SFPNOP", "SFPNOP")
    assert np.array_equal(m.lreg[0], bits(X))
    assert np.array_equal(m.lreg[1], bits(X * 2) + 16)


@pytest.mark.parametrize("arch", ARCHES)
def test_a_byte_scheduling_nothing_forgets_nothing(arch):
    """sfpu-sim's reading (sfpu_sim.isa.loadmacro docstring; tt-llk's fast_8b_3c reciprocal
    relies on it): macro 1's Simple byte is 0 (delay bits 0) in the cycle before macro 0's
    SFPIADD runs, and the SFPIADD still runs."""
    m = machine(arch, ["SFPIADD 1, L0, L12, 5"],
                {0: sequence(simple=byte(4, 1)), 1: sequence(store=byte(3, 0))})
    run(m, loadmacro(0, 0), loadmacro(1, 1, 2), "SFPNOP", "SFPNOP")
    assert np.array_equal(m.lreg[0], bits(X) + 1)


# --------------------------------------------------------------------------------------------
# The scheduled SFPSWAP (exp's clamp)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
def test_scheduled_swap_reads_vb_and_keeps_the_larger_in_the_loaded_register(arch):
    """tt-llk exp's sanitiser: template SFPSWAP(0, L0, L14, VEC_MIN_MAX), byte 0x04: VC = VD =
    the loaded register, VB = 14 = -88.5. Modelled (a reading, see sfpu_sim.isa.loadmacro) as
    max(x, -88.5) in the sign-magnitude total order: -NaN < -Inf < ... < +NaN."""
    x = np.array([-100.0, -88.5, -88.0, 0.0, np.inf, -np.inf, np.nan, -np.nan] * 4,
                 dtype=np.float32)
    m = machine(arch, ["SFPSWAP 0, L0, L14, VEC_MIN_MAX"], {1: sequence(simple=byte(4))},
                x=x)
    m.lreg[14] = np.float32(-88.5)
    run(m, loadmacro(1, 2), "SFPNOP", "SFPNOP", "SFPNOP")
    clamp = bits(np.float32(-88.5))
    expected = [clamp, clamp, bits(np.float32(-88.0)), 0, 0x7F800000, clamp,
                int(bits(np.float32(np.nan))), clamp] * 4
    assert [hex(v) for v in m.lreg[2]] == [hex(int(v)) for v in expected]


@pytest.mark.parametrize("arch", ARCHES)
def test_scheduled_swap_with_undocumented_destinations_raises(arch):
    """VB = template VD 14 but VD = LReg[16] (bit 6): where the swap's two results go is not
    documented."""
    m = machine(arch, ["SFPSWAP 0, L0, L14, VEC_MIN_MAX"],
                {0: sequence(simple=byte(4, lreg16=True))})
    with pytest.raises(Unsupported, match="SFPSWAP reading VB = L14"):
        run(m, loadmacro(0, 0))


# --------------------------------------------------------------------------------------------
# What the pages leave undefined, or this model does not do
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHES)
def test_simple_and_round_in_one_cycle_need_exactly_one_lreg16(arch):
    """† of SFPLOADMACRO.md: SFPIADD (Simple) and SFP_STOCH_RND (Round) both into the loaded
    register in cycle 1."""
    m = machine(arch, ["SFPIADD 1, L0, L12, 5", "SFP_STOCH_RND 0, 0, L0, L0, L13, 6"],
                {0: sequence(simple=byte(4), rounding=byte(5))})
    with pytest.raises(UndefinedBehaviour, match="exactly one of them writes LReg\\[16\\]"):
        run(m, loadmacro(0, 0), "SFPNOP")
    m = machine(arch, ["SFPIADD 1, L0, L12, 5", "SFP_STOCH_RND 0, 0, L0, L0, L13, 6"],
                {0: sequence(simple=byte(4, lreg16=True), rounding=byte(5))})
    run(m, loadmacro(0, 0), "SFPNOP")
    assert np.array_equal(m.lreg_macro, bits(X) + 1)


@pytest.mark.parametrize("arch", ARCHES)
def test_scheduled_swap_needs_the_mad_unit_free_and_simple_round_free_next(arch):
    """‡ of SFPLOADMACRO.md: a MAD instruction in the SFPSWAP's cycle, or a Simple one in the
    next, is undefined."""
    m = machine(arch, ["SFPSWAP 0, L0, L14, VEC_MIN_MAX", "SFPMAD L10, L0, L10, L13, 0"],
                {0: sequence(simple=byte(4), mad=byte(5, vb=True))})
    with pytest.raises(UndefinedBehaviour, match="MAD sub-unit in the cycle of the scheduled"):
        run(m, loadmacro(0, 0), "SFPNOP")
    m = machine(arch, ["SFPSWAP 0, L0, L14, VEC_MIN_MAX"], {0: sequence(simple=byte(4))})
    with pytest.raises(UndefinedBehaviour, match="cycle after the scheduled SFPSWAP"):
        run(m, loadmacro(0, 0), "SFPNOP", "SFPIADD 1, L5, L5, 5")


@pytest.mark.parametrize("arch", ARCHES)
def test_two_results_landing_on_one_register_at_once_raise(arch):
    """MAD (cycle 1) lands on L0 at the end of cycle 2; a Simple SFPIADD into L0 runs in cycle
    2 and lands then too."""
    m = machine(arch, ["SFPMAD L10, L0, L10, L13, 0", "SFPIADD 1, L0, L12, 5"],
                {0: sequence(mad=byte(4, vb=True), simple=byte(5, 1))})
    with pytest.raises(UndefinedBehaviour, match="write L0 in the same cycle"):
        run(m, loadmacro(0, 0), "SFPNOP", "SFPNOP")


@pytest.mark.parametrize("arch", ARCHES)
def test_load_and_store_of_the_same_dst_cells_in_one_cycle_raise(arch):
    m = machine(arch, sequences={0: sequence(store=byte(3))})
    with pytest.raises(UndefinedBehaviour, match="loads Dst cells that"):
        run(m, loadmacro(0, 0), "SFPLOAD L5, FP32, 0, 0")
    m = machine(arch, sequences={0: sequence(store=byte(3))})
    run(m, loadmacro(0, 0), "SFPLOAD L5, FP32, 0, 2")           # odd columns: other cells


@pytest.mark.parametrize("arch", ARCHES)
def test_a_stall_while_work_is_in_flight_is_not_modelled(arch):
    """An issued SFPSWAP followed by anything but SFPNOP stalls the thread a cycle."""
    m = machine(arch, ["SFPIADD 1, L0, L12, 5"], {0: sequence(simple=byte(4, 5))})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HazardWarning)
        with pytest.raises(Unsupported, match="stalls the thread"):
            run(m, loadmacro(0, 0), "SFPSWAP 0, L5, L6, 0", "SFPIADD 1, L7, L7, 5")


@pytest.mark.parametrize("arch", ARCHES)
def test_bad_configurations_raise_before_any_effect(arch):
    m = machine(arch, sequences={0: sequence(simple=1)})
    with pytest.raises(UndefinedBehaviour, match="selects 1, which is undefined"):
        run(m, loadmacro(0, 0))
    assert np.all(m.lreg[0] == 0) and not m.macros.busy
    m = machine(arch, ["SFPMAD L10, L0, L10, L13, 0"], {0: sequence(store=byte(4))})
    with pytest.raises(UndefinedBehaviour, match="Store sub-unit is given SFPMAD"):
        run(m, loadmacro(0, 0))
    assert np.all(m.lreg[0] == 0) and not m.macros.busy
    m = machine(arch, sequences={0: sequence(simple=byte(2))})
    m.loadmacro.sequence[0, 5] = 0
    with pytest.raises(Unsupported, match="differs between lanes"):
        run(m, loadmacro(0, 0))
    assert np.all(m.lreg[0] == 0) and not m.macros.busy


@pytest.mark.parametrize("arch", ARCHES)
def test_a_template_its_unit_cannot_run_becomes_sfpnop(arch):
    """A MAD-class template on the Simple unit, or a word that is no SFPU instruction (0), is
    an SFPNOP there: nothing changes."""
    m = machine(arch, ["SFPMAD L10, L0, L10, L13, 0"], {0: sequence(simple=byte(4)),
                                                        1: sequence(mad=byte(6))})
    run(m, loadmacro(0, 0), loadmacro(1, 1), "SFPNOP", "SFPNOP")
    assert np.array_equal(m.lreg[0], bits(X)) and np.array_equal(m.lreg[1], bits(X))


@pytest.mark.parametrize("arch", ARCHES)
def test_a_backdoor_capture_reads_and_writes_nothing_so_no_hazard(arch):
    """SFPMAD with VD 13 is captured as template 1 in every lane (DISABLE_BACKDOOR_LOAD
    clear): it writes no register, so reading L13 next is no MAD hazard (tt-llk's inits put
    captures back to back)."""
    m = Machine(arch, strict=True)
    run(m, "SFPMAD L12, L0, L13, L13, 0", "SFPMOV 0, L13, L1, 0")
    assert np.all(m.lreg[1] == m.lreg[13])


def test_cost_counts_an_sfploadmacro_call_per_row_group():
    """exp_approx_loadmacro's call: 16 SFPLOADMACROs and 8 SFPNOPs for 8 row groups, so 3
    issue slots per 32 datums (the scheduled instructions take no issue slot)."""
    from sfpu_sim import cost, registry

    estimate = cost.estimate(registry.get("exp_approx_loadmacro").program("blackhole"))
    assert estimate.body_instructions == 24
    assert estimate.as_dict()["issue_slots_per_iteration"] == 3.0
    assert estimate.as_dict()["issue_slots_per_datum"] == 3.0 / 32
