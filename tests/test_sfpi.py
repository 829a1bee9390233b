"""The sfpi DSL: lowering, predication, register allocation, errors; and the DSL tanh equals
the hand-written assembly tanh bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

from kernels import tanh as tanh_kernels
from kernels.asm_kernels import assembly_kernel
from sfpu_sim import fma, formats
from sfpu_sim.arch import ARCHES
from sfpu_sim.isa.convert import fp32_to_bf16_ties_away
from sfpu_sim.machine import Machine
from sfpu_sim.sfpi import (
    DslError,
    RegisterPressure,
    abs,
    addexp,
    dst_reg,
    exexp,
    exexp_nodebias,
    exman8,
    exman9,
    float_to_fp16b,
    int32_to_float,
    reinterpret,
    s2vFloat16a,
    s2vFloat16b,
    setexp,
    setman,
    setsgn,
    trace,
    v_else,
    v_elseif,
    v_endif,
    v_if,
    vConst1,
    vec_min_max,
    vFloat,
    vInt,
    vUInt,
)
from sfpu_sim.sweeps import DevicePath, run_device

CHIPS = sorted(ARCHES)
ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
RNG = np.random.default_rng(2026)


def run_fp32(body, arch, *inputs: np.ndarray) -> np.ndarray:
    """Trace ``body`` and run it with FP32 lane values in Dst rows (input k at dst_reg[k])."""
    return run_fp32_rows(body, arch, *inputs)[0]


def floats(n: int) -> np.ndarray:
    return formats.fp32_to_bits(RNG.uniform(-4, 4, n).astype(np.float32))


@pytest.mark.parametrize("arch", CHIPS)
@pytest.mark.parametrize("dest", ["bf16", "fp32"])
def test_dsl_tanh_equals_the_hand_written_assembly_on_every_input(arch, dest):
    dsl = trace(tanh_kernels.tanh, arch, init=tanh_kernels.tanh_init)
    asm = assembly_kernel("tanh")(ARCHES[arch])
    a = run_device(dsl, ALL_BF16, DevicePath(dest=dest))
    b = run_device(asm, ALL_BF16, DevicePath(dest=dest))
    assert np.array_equal(a.output, b.output)
    assert np.array_equal(a.kernel_fp32, b.kernel_fp32)


@pytest.mark.parametrize("arch", CHIPS)
def test_product_then_sum_is_one_fused_mad(arch):
    def body():
        a, b, c = dst_reg[0], dst_reg[1], dst_reg[2]
        dst_reg[0] = a * b + c

    program = trace(body, arch)
    assert [i.mnemonic for i in program].count("SFPMAD") == 1
    x, y, z = floats(64), floats(64), floats(64)
    assert np.array_equal(run_fp32(body, arch, x, y, z), fma.MODELS[arch](x, y, z))


@pytest.mark.parametrize("arch", CHIPS)
def test_a_product_used_twice_is_rounded_once_then_reused(arch):
    def body():
        a, b, c = dst_reg[0], dst_reg[1], dst_reg[2]
        p = a * b
        dst_reg[0] = (p + c) + p

    x, y, z = floats(64), floats(64), floats(64)
    p = fma.MODELS[arch](x, y, 0)
    want = fma.MODELS[arch](fma.MODELS[arch](p, 0x3F800000, z), 0x3F800000, p)
    assert np.array_equal(run_fp32(body, arch, x, y, z), want)


def run_fp32_rows(body, arch, *inputs: np.ndarray, rows: int = 1) -> list[np.ndarray]:
    """:func:`run_fp32`, reading dst_reg[0..rows-1] back."""
    program = trace(body, arch)
    m = Machine(arch, lanes=inputs[0].size, dst_rows=16, strict=True)
    m.config.sfpu_fp32 = True
    m.cc.enable, m.cc.flags[:] = True, True
    for k, values in enumerate(inputs):
        m.dst.write_lanes(2 * k, values, "fp32")
    m.run(program)
    return [m.dst.read_lanes(2 * k, "fp32") for k in range(rows)]


NEGATIVE_ONE = np.uint32(0xBF800000)


@pytest.mark.parametrize("arch", CHIPS)
def test_subtracting_a_product_fuses_where_sfpi_fuses_it(arch):
    """sfpi writes x - y as x + (-y), and its compiler's combine pass fuses an add with a
    product operand (tenstorrent/sfpi-gcc gimple-rvtt-combine.cc). a*b - c: the product is
    an operand, fused on both chips. c - a*b: on Blackhole the negation folds into SFPMAD's
    NEGATE_VA, one SFPMAD; on Wormhole the negated product is not a product, so it is rounded
    alone (SFPMUL) and subtracted, SFPMAD(-1, p, c): two roundings."""
    def body():
        a, b, c = dst_reg[0], dst_reg[1], dst_reg[2]
        dst_reg[0] = c - a * b
        dst_reg[1] = a * b - c

    x, y, z = floats(4096), floats(4096), floats(4096)
    model = fma.MODELS[arch]
    sign = np.uint32(0x80000000)
    c_minus, minus_c = run_fp32_rows(body, arch, x, y, z, rows=2)
    fused = model(x ^ sign, y, z)
    if arch == "wormhole":
        want = model(model(x, y, 0), NEGATIVE_ONE, z)
        assert not np.array_equal(want, fused)          # the sample tells them apart
    else:
        want = fused
    assert np.array_equal(c_minus, want)
    assert np.array_equal(minus_c, model(x, y, z ^ sign))
    mnemonics = [i.mnemonic for i in trace(body, arch)]
    assert mnemonics.count("SFPMUL") == (1 if arch == "wormhole" else 0)


@pytest.mark.parametrize("arch", CHIPS)
def test_a_sum_of_two_products_fuses_the_second(arch):
    """The combine pass tries an add's second operand first: a*b + c*d is c*d fused onto a*b
    rounded alone."""
    def body():
        a, b, c, d = dst_reg[0], dst_reg[1], dst_reg[2], dst_reg[3]
        dst_reg[0] = a * b + c * d

    x, y, z, w = (floats(4096) for _ in range(4))
    model = fma.MODELS[arch]
    got, = run_fp32_rows(body, arch, x, y, z, w)
    want = model(z, w, model(x, y, 0))
    assert np.array_equal(got, want)
    assert not np.array_equal(want, model(x, y, model(z, w, 0)))     # the order shows


def test_float_constants_load_exactly_in_one_or_two_instructions():
    def body():
        dst_reg[0] = vFloat(0.5) + vFloat(0.1) + vFloat(0.75) + vFloat(1.0)

    program = trace(body, "blackhole")
    loads = [i for i in program if i.mnemonic == "SFPLOADI"]
    # 0.5 (BF16 pattern, one FLOATB), 0.1 (0x3DCCCCCD: FLOATB + LOWER), 0.75 (one), 1.0 (L10)
    assert [(i.mod0, i.imm16) for i in loads] == [(0, 0x3F00), (0, 0x3DCC), (10, 0xCCCD),
                                                  (0, 0x3F40)]


def test_s2vfloat16b_truncates_and_s2vfloat16a_rounds():
    # tenstorrent/sfpi include/sfpi_fp16.h (@0de2538): fp32_to_fp16b keeps the top 16 bits, so
    # s2vFloat16b(0.044715f) = 0x3D37, s2vFloat16b(0.863281f) = 0.859375
    assert s2vFloat16b(0.044715).imm16 == 0x3D37
    assert s2vFloat16b(0.863281).fp32_bits == formats.fp32_to_bits(np.float32(0.859375))
    assert s2vFloat16a(1.0).imm16 == 0x3C00 and s2vFloat16a(1.0).mod0 == "FLOATA"


@pytest.mark.parametrize("arch", CHIPS)
def test_v_if_elseif_else_select_per_lane(arch):
    def body():
        x = dst_reg[0]
        y = vFloat(0.0)
        with v_if(x < -1.0):
            y.assign(x * 2.0)
        with v_elseif(x >= 2.5):
            y.assign(x + 1.0)
        with v_else():
            y.assign(-x)
        v_endif()
        dst_reg[0] = y

    x = floats(256)
    v = formats.bits_to_fp32(x)
    expected = np.where(v < -1, v * np.float32(2), np.where(v >= 2.5, v + np.float32(1), -v))
    assert np.array_equal(run_fp32(body, arch, x), formats.fp32_to_bits(expected))


@pytest.mark.parametrize("arch", CHIPS)
def test_compare_with_zero_tests_raw_bits_so_minus_zero_is_negative(arch):
    def body():
        x = dst_reg[0]
        y = vFloat(0.0)
        with v_if(x < 0.0):
            y.assign(vFloat(1.0))
        v_endif()
        dst_reg[0] = y

    x = np.array([0x80000000, 0, 0x00000001, 0x80000001] * 8, dtype=np.uint32)
    out = run_fp32(body, arch, x)
    assert out[:4].tolist() == [0x3F800000, 0, 0, 0x3F800000]


@pytest.mark.parametrize("arch", CHIPS)
def test_compound_conditions_and_nested_blocks(arch):
    def body():
        x, y = dst_reg[0], dst_reg[1]
        r = vFloat(0.0)
        with v_if((x > 0.5) & (y <= 1.0)):
            r.assign(vFloat(1.0))
            with v_if(y < x):
                r.assign(vFloat(2.0))
            v_endif()
        with v_elseif((x < -0.5) | (y > 3.0)):
            r.assign(vFloat(3.0))
        v_endif()
        dst_reg[0] = r

    x, y = floats(512), floats(512)
    a, b = formats.bits_to_fp32(x), formats.bits_to_fp32(y)
    first = (a > 0.5) & (b <= 1.0)
    expected = np.where(first, np.where(b < a, 2.0, 1.0),
                        np.where((a < -0.5) | (b > 3.0), 3.0, 0.0)).astype(np.float32)
    assert np.array_equal(run_fp32(body, arch, x, y), formats.fp32_to_bits(expected))


@pytest.mark.parametrize("arch", CHIPS)
def test_integer_operations_match_two_complement_arithmetic(arch):
    def body():
        a = reinterpret(vInt, vUInt(dst_reg[0]))
        b = reinterpret(vInt, vUInt(dst_reg[1]))
        r = ((a + b) ^ (a - 5)) | (b & 0x0F0F)
        r = r + (a << 3) - reinterpret(vInt, reinterpret(vUInt, b) >> 7)
        dst_reg[0] = reinterpret(vUInt, r)      # raw bits (an FP32 store would flush them)

    x = RNG.integers(0, 1 << 32, 64, dtype=np.uint32)
    y = RNG.integers(0, 1 << 32, 64, dtype=np.uint32)
    with np.errstate(over="ignore"):
        want = ((x + y) ^ (x - np.uint32(5))) | (y & np.uint32(0x0F0F))
        want = want + (x << np.uint32(3)) - (y >> np.uint32(7))
    assert np.array_equal(run_fp32(body, arch, x, y), want.astype(np.uint32))


@pytest.mark.parametrize("arch", CHIPS)
def test_float_field_functions(arch):
    def body():
        x = dst_reg[0]
        e = exexp(x)
        m = setexp(x, 127)                    # mantissa of x in [1, 2)
        s = setsgn(m, 1)
        back = setexp(s, exexp_nodebias(x))   # x's exponent again, sign forced negative
        dst_reg[0] = addexp(back, -1)         # halved
        dst_reg[1] = reinterpret(vUInt, exman8(x) + exman9(x) + e)
        dst_reg[2] = setman(x, 0x400)         # mantissa bits 22..11 = 0x400

    x = formats.fp32_to_bits(RNG.uniform(0.01, 1000, 64).astype(np.float32))
    program = trace(body, arch)
    m = Machine(arch, lanes=64, dst_rows=16, strict=True)
    m.config.sfpu_fp32 = True
    m.dst.write_lanes(0, x, "fp32")
    m.run(program)
    exponent = (x >> 23) & 0xFF
    mantissa = x & 0x7FFFFF
    assert np.array_equal(m.dst.read_lanes(0, "fp32"),
                          (0x80000000 | ((exponent - 1) << 23) | mantissa).astype(np.uint32))
    assert np.array_equal(m.dst.read_lanes(2, "fp32"),
                          (2 * mantissa + 0x800000 + exponent - 127).astype(np.uint32))
    assert np.array_equal(m.dst.read_lanes(4, "fp32"),
                          ((x & 0xFF800000) | (0x400 << 11)).astype(np.uint32))


@pytest.mark.parametrize("arch", CHIPS)
def test_conversions_and_min_max(arch):
    def body():
        x = dst_reg[0]
        one = vFloat(vConst1)
        vec_min_max(x, one)                                   # x = min(x, 1)
        dst_reg[0] = reinterpret(vFloat, float_to_fp16b(x, 0))
        dst_reg[1] = int32_to_float(vInt(dst_reg[1]), 0)

    x = floats(64)
    n = RNG.integers(0, 1 << 24, 64, dtype=np.uint32)
    program = trace(body, arch)
    m = Machine(arch, lanes=64, dst_rows=16, strict=True)
    m.config.sfpu_fp32 = True
    m.dst.write_lanes(0, x, "fp32")
    m.dst.write_lanes(2, n, "fp32")
    m.run(program)
    clamped = formats.fp32_to_bits(np.minimum(formats.bits_to_fp32(x), np.float32(1)))
    assert np.array_equal(m.dst.read_lanes(0, "fp32"),
                          formats.bf16_to_fp32_bits(fp32_to_bf16_ties_away(clamped)))
    assert np.array_equal(m.dst.read_lanes(2, "fp32"),
                          formats.fp32_to_bits(n.astype(np.float32)))


@pytest.mark.parametrize("arch", CHIPS)
def test_traced_programs_satisfy_the_hazard_rules(arch):
    program = trace(tanh_kernels.tanh, arch, init=tanh_kernels.tanh_init)
    for previous, current in zip(program, program[1:]):
        assert ARCHES[arch].hazard(previous, current) is None


def test_instructions_name_the_kernel_line():
    program = trace(tanh_kernels.tanh, "wormhole", init=tanh_kernels.tanh_init)
    mads = [i for i in program if i.mnemonic == "SFPMAD"]
    assert all(i.source.startswith("kernels/tanh.py:") for i in mads)
    assert all("polyval" in i.line_text for i in mads)


def test_too_many_live_values_is_an_error_naming_the_line():
    def body():
        values = [dst_reg[k] for k in range(9)]
        total = values[0]
        for v in values[1:]:
            total = total + v
        dst_reg[0] = total

    with pytest.raises(RegisterPressure, match=r"test_sfpi.py:\d+: body: more than 8 values"):
        trace(body, "blackhole")


def test_reading_a_value_made_inside_an_ended_branch_is_an_error():
    def body():
        x = dst_reg[0]
        with v_if(x < 0.0):
            y = x * 2.0                     # a new value, not an assignment to a variable
        v_endif()
        dst_reg[0] = y

    with pytest.raises(DslError, match="inside a v_if branch that has ended"):
        trace(body, "wormhole")


def test_chip_specific_functions_and_unclosed_blocks_are_errors():
    from sfpu_sim.sfpi import approx_recip

    with pytest.raises(DslError, match="does not exist on Wormhole B0"):
        trace(lambda: dst_reg.__setitem__(0, approx_recip(dst_reg[0])), "wormhole")

    def unclosed():
        with v_if(dst_reg[0] < 0.0):
            pass

    with pytest.raises(DslError, match="v_if without v_endif"):
        trace(unclosed, "blackhole")


@pytest.mark.parametrize("arch", CHIPS)
def test_v_elseif_operands_are_computed_in_the_remaining_lanes(arch):
    """sfpi evaluates v_elseif's condition after complementing; Python evaluates abs(x) first,
    so the DSL moves it behind the complement (else the v_if lanes' value would be used)."""
    def body():
        x = dst_reg[0]
        y = vFloat(0.0)
        with v_if(x < -2.0):
            y.assign(vFloat(1.0))
        with v_elseif(abs(x) <= 1.0):
            y.assign(vFloat(2.0))
        v_endif()
        dst_reg[0] = y

    x = floats(256)
    v = formats.bits_to_fp32(x)
    expected = np.where(v < -2, 1.0, np.where(np.abs(v) <= 1, 2.0, 0.0)).astype(np.float32)
    assert np.array_equal(run_fp32(body, arch, x), formats.fp32_to_bits(expected))


def test_code_between_a_block_and_v_else_is_an_error():
    def body():
        x = dst_reg[0]
        with v_if(x < 0.0):
            dst_reg[0] = x
        y = x * 2.0                      # runs under the v_if's lanes on the device
        with v_else():
            dst_reg[0] = y

    with pytest.raises(DslError, match="would run under that block's predication"):
        trace(body, "blackhole")
