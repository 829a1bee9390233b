"""The exact shadow of a run, instruction by instruction (sfpu_sim.shadow.recording / rules /
exact).

Expected shadows are computed here with Python Fractions from the instructions' documented
real meaning (a*b + c, A*|x| + B, 1/x), never taken from the code under test; device values
come from the Machine, which the ISA tests pin bit for bit.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from sfpu_sim import formats
from sfpu_sim.asm import assemble
from sfpu_sim.isa import exact
from sfpu_sim.sfpi import dst_reg, trace, v_endif, v_if
from sfpu_sim.shadow.recording import RecordingMachine, shadow_lanes
from sfpu_sim.sweeps import DevicePath, run_device

CHIPS = ("wormhole", "blackhole")
C_BITS = 0x3F8CCCCD          # 1.1 to nearest FP32
D_BITS = 0xBF800001          # -(1 + 2**-23)


def fraction(value) -> Fraction:
    """An exact mpf as a Fraction (test-side reading of sign, mantissa, exponent)."""
    sign, man, exp, _ = value._mpf_
    out = Fraction(man) * Fraction(2) ** exp
    return -out if sign else out


def fp32(bits: int) -> Fraction:
    return Fraction(float(np.uint32(bits).view(np.float32)))


def bf16(bits: int) -> Fraction:
    return fp32(bits << 16)


def fp32_spacing(value: Fraction) -> Fraction:
    e = -126
    while e < 127 and Fraction(2) ** (e + 1) <= abs(value):
        e += 1
    return Fraction(2) ** (e - 23)


def shadow_run(source, arch: str, inputs):
    """(device run, rows per lane, finals) of an assembly text or a Program."""
    program = assemble(source, arch, "test") if isinstance(source, str) else source
    machines = []

    def recording(*args, **options):
        machines.append(RecordingMachine(*args, **options))
        return machines[-1]

    run = run_device(program, np.array(inputs, dtype=np.uint16), DevicePath(),
                     machine_class=recording)
    last = max(k for k, ins in enumerate(program) if ins.mnemonic == "SFPSTORE")
    rows, finals = shadow_lanes(machines[0].steps, len(inputs), last)
    return run, rows, finals


def row_at(rows, index):
    [row] = [r for r in rows if r.index == index]
    return row


CONSTANTS = f"""
SFPLOAD  L0, 0, 0, 0
SFPLOADI L1, FLOATB, {C_BITS >> 16:#x}
SFPLOADI L1, LOWER, {C_BITS & 0xFFFF:#x}
SFPLOADI L2, FLOATB, {D_BITS >> 16:#x}
SFPLOADI L2, LOWER, {D_BITS & 0xFFFF:#x}
"""


@pytest.mark.parametrize("arch", CHIPS)
def test_sfpmad_shadow_is_the_exact_rational_a_times_b_plus_c(arch):
    program = CONSTANTS + """
SFPMAD L0, L1, L9, L3, 0
SFPNOP
SFPMAD L3, L1, L2, L4, 0
SFPNOP
SFPSTORE L4, 0, 0, 0
"""
    x_bits = 0x3FC1                                      # 1.5078125
    run, [rows], [final] = shadow_run(program, arch, [x_bits])
    x, c, d = bf16(x_bits), fp32(C_BITS), fp32(D_BITS)
    first, second = row_at(rows, 5), row_at(rows, 7)
    assert first.kind == second.kind == "exact"
    assert fraction(first.shadow) == x * c                # exact, though the device rounds
    assert fp32(first.device_bits) != x * c
    assert fraction(second.shadow) == x * c * c + d       # the shadow carries x*c unrounded
    on_device = fp32(first.device_bits) * c + d           # the same MAD on the device's L3
    assert fraction(second.twin.device) == on_device
    device = fp32(second.device_bits)
    # Errors are the exact ratios rounded once to a double.
    assert second.added_ulp == float(abs(device - on_device) / fp32_spacing(on_device))
    assert second.error == float(abs(device - (x * c * c + d)) / abs(x * c * c + d))
    assert second.error_ulp == float(abs(device - (x * c * c + d))
                                     / fp32_spacing(x * c * c + d))
    assert fraction(final[0]) == x * c * c + d and final[1] is False


@pytest.mark.parametrize("arch", CHIPS)
def test_bit_operations_take_the_device_value_and_are_marked(arch):
    program = CONSTANTS + """
SFPMAD L0, L1, L9, L3, 0
SFPNOP
SFPSETEXP 127, L3, L5, ARG_IMM
SFPEXEXP 0, L3, L6, 0
SFPIADD 1, L6, L6, CC_NONE|ARG_IMM
SFPAND 0, L3, L7, 0
SFPMAD L5, L10, L9, L4, 0
SFPNOP
SFPSTORE L4, 0, 0, 0
"""
    run, [rows], _ = shadow_run(program, arch, [0x3FC1])
    assert fraction(row_at(rows, 5).shadow) != fp32(row_at(rows, 5).device_bits)
    for index in (7, 8, 9, 10):                          # SETEXP, EXEXP, IADD, AND
        row = row_at(rows, index)
        assert row.kind == "device"
        assert fraction(row.shadow) == fp32(row.device_bits)
        assert row.error == 0 and all(not read.operand for read in row.reads)
    setexp = row_at(rows, 7)
    after = row_at(rows, 11)                              # L5 * 1.0 + 0
    assert fraction(after.shadow) == fp32(setexp.device_bits)


@pytest.mark.parametrize("arch", CHIPS)
def test_a_stored_value_reloads_with_its_unrounded_shadow(arch):
    program = CONSTANTS + """
SFPMAD L0, L1, L9, L2, 0
SFPNOP
SFPSTORE L2, 0, 0, 0
SFPLOAD L3, 0, 0, 0
SFPMAD L3, L10, L9, L4, 0
SFPNOP
SFPSTORE L4, 0, 0, 0
"""
    x_bits = 0x3FC1
    _, [rows], [final] = shadow_run(program, arch, [x_bits])
    store, reload = row_at(rows, 7), row_at(rows, 8)
    exact_product = bf16(x_bits) * fp32(C_BITS)
    assert store.kind == "store" and fraction(store.shadow) == exact_product
    # SFPSTORE to a BF16 Dst truncates; the reload reads the truncated value back.
    assert store.device_bits & 0xFFFF == 0 and store.device_bits == reload.device_bits
    assert reload.kind == "load" and fraction(reload.shadow) == exact_product
    assert reload.added == 0 and reload.growth == 0
    assert fraction(final[0]) == exact_product


@pytest.mark.parametrize("arch", CHIPS)
def test_the_shadow_follows_the_devices_lane_enables(arch):
    def body():
        x = dst_reg[0]
        y = x * 1.1
        with v_if(x < 0.0):
            y.assign(y * 3.0)
        v_endif()
        dst_reg[0] = y

    program = trace(body, arch, name="predicated")
    [times_three] = [k for k, ins in enumerate(program)
                     if ins.mnemonic in ("SFPMUL", "SFPMAD") and "3.0" in (ins.line_text or "")]
    inputs = [0x3FC1, 0xBFC1]                             # +-1.5078125
    _, rows, finals = shadow_run(program, arch, inputs)
    c = Fraction(float(np.float32(1.1)))
    assert times_three not in [r.index for r in rows[0]]      # disabled lane: nothing written
    assert fraction(finals[0][0]) == bf16(inputs[0]) * c
    assert fraction(row_at(rows[1], times_three).shadow) == bf16(inputs[1]) * c * 3
    assert fraction(finals[1][0]) == bf16(inputs[1]) * c * 3


@pytest.mark.parametrize("arch", CHIPS)
def test_sfplut_shadow_is_a_times_abs_x_plus_b_with_the_device_entries(arch):
    from sfpu_sim import registry

    # tanh_approx's table for 1 <= |x| < 2 is 0x481A: slope code 0x48 = (1 + 8/16) * 2**-4 =
    # 0.09375, intercept code 0x1A = (1 + 10/16) * 2**-1 = 0.8125 (SFPLUT.md's 8-bit format),
    # sign retained.
    program = registry.get("tanh_approx").program(arch)
    [lut] = [k for k, ins in enumerate(program) if ins.mnemonic == "SFPLUT"]
    x_bits = 0xBFC1                                       # -1.5078125
    _, [rows], _ = shadow_run(program, arch, [x_bits])
    row = row_at(rows, lut)
    expected = -(Fraction(3, 32) * abs(bf16(x_bits)) + Fraction(13, 16))
    assert row.kind == "exact" and fraction(row.shadow) == expected


def test_sfparecip_shadow_is_the_exact_reciprocal_and_marked_approximate():
    program = """
SFPLOAD L0, 0, 0, 0
SFPARECIP 0, L0, L1, RECIP
SFPSTORE L1, 0, 0, 0
"""
    _, [rows], [final] = shadow_run(program, "blackhole", [0x4040])      # 3.0
    row = row_at(rows, 1)
    assert row.kind == "approximate" and row.twin.approximate and final[1] is True
    assert abs(fraction(row.shadow) - Fraction(1, 3)) < Fraction(1, 2 ** 315)
    # ApproxRecip is within 0.9944..1.0054 of 1/x (SFPARECIP.md): its own error is that.
    assert 0 < row.added < 0.0056 and row.added == row.error
    # At -0 the exact function is -Inf, as the device's answer: no error.
    _, [rows], _ = shadow_run(program, "blackhole", [0x8000])
    row = row_at(rows, 1)
    assert row.device_bits == 0xFF800000 and row.shadow == -mpmath.inf and row.error == 0


@pytest.mark.parametrize("arch", CHIPS)
def test_rounding_instruction_keeps_the_unrounded_shadow_and_swaps_follow_the_device(arch):
    from sfpu_sim import registry

    # tanh at 5.0: the degree-6 polynomial exceeds 1 there (its leading term alone is
    # 0.00588 * 5**6 = 91.8), so min(p, 1) swaps the constant 1.0 in; then setsgn and
    # SFP_STOCH_RND (FP32 -> FP16B, nearest).
    program = registry.get("tanh").program(arch)
    index = {ins.mnemonic: k for k, ins in enumerate(program)}
    _, [rows], _ = shadow_run(program, arch, [0x40A0])
    swap = row_at(rows, index["SFPSWAP"])
    assert swap.kind == "select" and fraction(swap.shadow) == 1 and swap.device_bits == 0x3F800000
    rounding = row_at(rows, index["SFP_STOCH_RND"])
    operand = row_at(rows, index["SFPSETSGN"])
    assert rounding.kind == "rounding" and fraction(rounding.shadow) == fraction(operand.shadow)
    assert rounding.added == 0                            # 1.0 is a BF16 value


def _test_round(value: Fraction) -> int:
    """Test-side RNE of a positive Fraction to BF16 with FTZ (bits), by search."""
    if value < Fraction(2) ** -126 * Fraction(255, 256):
        return 0
    e = -126
    while Fraction(2) ** (e + 1) <= value:
        e += 1
    step = Fraction(2) ** (e - 7)
    q, r = divmod(value, step)
    q = int(q) + (r > step / 2 or (r == step / 2 and int(q) % 2 == 1))
    if e == -126 and q < 128:
        return 0
    if q == 256:
        q, e = 128, e + 1
    return ((e + 127) << 7) | (q - 128)


def test_round_bf16_agrees_with_the_format_layer_and_with_exact_midpoints():
    # The test's own rounding (_test_round) is a search in Fractions, independent of both.
    rng = np.random.default_rng(8)
    bits = np.concatenate([rng.integers(0, 1 << 32, 4000, dtype=np.uint32),
                           np.arange(0x7F7F0000, 0x7F7F0000 + 0x20000, 997, dtype=np.uint32),
                           np.arange(0x00000000, 0x01000000, 4099, dtype=np.uint32)])
    finite = bits[formats.is_finite(bits)]
    expected = formats.ftz(formats.fp32_to_bf16_rne(finite), formats.BF16)
    got = [exact.round_bf16(exact.fp32_value(b)) for b in finite]
    zero = (finite & 0x7FFFFFFF) == 0
    assert np.array_equal(np.where(zero, 0, np.asarray(got)), np.where(zero, 0, expected))
    # Values FP32 cannot hold, some wider than the 64 bits the format layer rounds from: just
    # above, at and below a midpoint (ties to even).
    one, half_step = Fraction(1), Fraction(1, 256)
    for value in (one + half_step, one + half_step + Fraction(1, 2 ** 60),
                  one + half_step + Fraction(1, 2 ** 90), one + 3 * half_step,
                  one + 3 * half_step - Fraction(1, 2 ** 70),
                  one + 3 * half_step - Fraction(1, 2 ** 100),
                  Fraction(2) ** -126 * Fraction(511, 512), Fraction(2) ** -127):
        shadow = exact.dyadic(value.numerator, 1 - value.denominator.bit_length())
        assert exact.round_bf16(shadow) == _test_round(value)
