"""Integer/bitwise, conversion and LUT instructions in the modes ttsim v1.10.0 rejects (so its
golden vectors, tests/data/vectors/README.md, cannot cover them), and PRNG effects the vectors
do not dump. Expected values are worked by hand from the tt-isa-documentation pages
(VectorUnit.md's PRNG, SFPLUT.md, SFPLUTFP32.md, SFPSTOCHRND_*.md, SFPCAST*.md, SFPIADD.md,
SFPSHFT.md, SFPLZ.md, SFPARECIP.md): each comment shows the derivation.
"""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim import formats
from sfpu_sim.asm import assemble, decode
from sfpu_sim.isa import lanewise
from sfpu_sim.isa.lut import lut8_to_fp32
from sfpu_sim.isa.spec import FieldOutOfRange
from sfpu_sim.machine import Machine

BOTH = ["wormhole", "blackhole"]
T, F = True, False


def bits(*values) -> list[int]:
    """FP32 patterns of Python floats."""
    return [int(formats.fp32_to_bits(v)) for v in values]


def lanes(values, count: int = 32) -> np.ndarray:
    """A per-lane uint32 array repeating ``values`` (negative ints as two's complement)."""
    return np.resize(np.array([v & 0xFFFFFFFF for v in values], dtype=np.uint32), count)


def machine(arch, regs=None, flags=None, enable=False, prng=None, count=32) -> Machine:
    m = Machine(arch, lanes=count, dst_rows=16)
    for reg, values in (regs or {}).items():
        m.lreg[reg] = lanes(values, count)
    if flags is not None:
        m.cc.flags[:] = np.resize(np.array(flags, dtype=bool), count)
    m.cc.enable = enable
    if prng is not None:
        m.prng[:] = lanes(prng, count)
    return m


def run(m: Machine, text: str) -> Machine:
    return m.run(assemble(text, m.arch))


def head(array, n: int) -> list[int]:
    return [int(v) for v in array[:n]]


def lfsr_step(state: int) -> int:
    """VectorUnit.md, "PRNG" (AdvancePRNG): taps 31, 21, 1, 0; the new bit 31 is the
    complement of their parity."""
    parity = bin(state & 0x80200003).count("1") & 1
    return ((parity ^ 1) << 31) | (state >> 1)


# ============================================================================================
# SFPIADD / SFPSHFT / SFPLZ (SFPIADD.md, SFPSHFT.md, SFPLZ.md; their LaneFlags writes)
# ============================================================================================

# VC = L1, VD = L2, Imm12 = -6; flags start [T, F, T, F] with CC disabled
IADD_VC = [5, 0, -3, 0x7FFFFFFF]
IADD_VD = [7, 1, 2, 1]
IADD_IMM = [0xFFFFFFFF, 0xFFFFFFFA, 0xFFFFFFF7, 0x7FFFFFF9]     # VC - 6
IADD_SUB = [0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFB, 0x7FFFFFFE]     # VC - VD


@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("mode,result,flags", [
    (3, IADD_IMM, [T, T, T, F]),     # ARG_IMM wins over 2SCOMP; CC = result < 0
    (7, IADD_IMM, [T, F, T, F]),     # CC_NONE: flags kept
    (11, IADD_IMM, [F, F, F, T]),    # CC_GTE0: result >= 0
    (13, IADD_IMM, [F, T, F, T]),    # CC_NONE | CC_GTE0: existing flags inverted
    (14, IADD_SUB, [F, T, F, T]),    # subtract, existing flags inverted
    (15, IADD_IMM, [F, T, F, T]),
])
def test_sfpiadd_mode_bits_combine_as_documented(arch, mode, result, flags):
    m = machine(arch, {1: IADD_VC, 2: IADD_VD}, flags=[T, F, T, F])
    run(m, f"SFPIADD -6, L1, L2, {mode}")
    assert head(m.lreg[2], 4) == result
    assert m.cc.flags[:4].tolist() == flags


@pytest.mark.parametrize("arch", BOTH)
def test_sfpiadd_updates_flags_only_in_enabled_lanes(arch):
    m = machine(arch, {1: [-1, -1, 1, 1]}, flags=[T, F, T, F], enable=True)
    run(m, "SFPIADD 0, L1, L2, ARG_IMM")            # result = VC: [-1, -1, 1, 1]
    assert m.cc.flags[:4].tolist() == [T, F, F, F]  # lanes 1, 3 disabled: untouched
    assert head(m.lreg[2], 4) == [0xFFFFFFFF, 0, 1, 0]


@pytest.mark.parametrize("arch", BOTH)
def test_sfpiadd_to_a_constant_register_writes_no_flags(arch):
    m = machine(arch, {1: [-1]}, flags=[F])
    m.step(decode(0x79000000 | (1 << 8) | (9 << 4) | 1, arch))   # SFPIADD 0, L1, L9, ARG_IMM
    assert not m.cc.flags.any() and not m.lreg[9].any()


def test_sfpshft_blackhole_use_vc_without_imm_is_dropped():
    # Mod1 4 / 6: current silicon clears bit 2, so VD is shifted by L[VC] (-4: right by 4),
    # logically (4 -> 0) or arithmetically (6 -> 2); the immediate is not used.
    for mode, want in ((4, 0x08000001), (6, 0xF8000001)):
        m = machine("blackhole", {1: [0x80000010], 2: [-4]})
        run(m, f"SFPSHFT 3, L2, L1, {mode}")
        assert int(m.lreg[1][0]) == want, mode


@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("amount,want", [(32, 0x12345678), (-32, 0x12345678),
                                         (33, 0x2468ACF0), (-33, 0x091A2B3C)])
def test_sfpshft_amount_is_taken_modulo_32(arch, amount, want):
    m = machine(arch, {1: [0x12345678]})
    run(m, f"SFPSHFT {amount}, L0, L1, ARG_IMM")
    assert int(m.lreg[1][0]) == want


# VC = L1; flags start [T, F, T, F]
LZ_IN = [0x80000000, 0x00010000, 0xFFFFFFFF, 0]
LZ_PLAIN = [0, 15, 0, 32]
LZ_MASKED = [32, 15, 1, 32]          # NOSGN_MASK clears bit 31 first


@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("mode,result,flags", [
    (6, LZ_MASKED, [F, T, T, F]),    # CC_NE0 on the masked value
    (8, LZ_PLAIN, [F, T, F, T]),     # CC_COMP alone inverts the existing flags
    (10, LZ_PLAIN, [F, F, F, T]),    # CC = (c == 0)
    (12, LZ_MASKED, [F, T, F, T]),
    (14, LZ_MASKED, [T, F, F, T]),
])
def test_sfplz_flag_modes(arch, mode, result, flags):
    m = machine(arch, {1: LZ_IN}, flags=[T, F, T, F])
    run(m, f"SFPLZ 0, L1, L2, {mode}")
    assert head(m.lreg[2], 4) == result
    assert m.cc.flags[:4].tolist() == flags


# ============================================================================================
# SFP_STOCH_RND (SFPSTOCHRND_FloatFloat.md, _FloatInt.md, _IntInt.md)
# ============================================================================================

@pytest.mark.parametrize("arch", BOTH)
def test_stochrnd_fp16a_rounds_to_nearest_ties_away(arch):
    inputs = [0x3F801000,   # 1 + 2**-11: discarded 0x1000 is the tie -> up
              0x3F800FFF,   # just below the tie -> down
              0xBF801000,   # magnitude rounds away from zero
              0x80000000,   # -0 -> +0
              0x80000001,   # denormal -> +0
              0xFFC00001,   # -NaN -> -Inf
              0x7F7FFFFF,   # largest finite: the carry reaches Inf
              0x7FC00000]   # +NaN -> +Inf
    want = [0x3F802000, 0x3F800000, 0xBF802000, 0, 0, 0xFF800000, 0x7F800000, 0x7F800000]
    m = machine(arch, {1: inputs})
    run(m, "SFP_STOCH_RND 0, 0, L1, L1, L2, FP32_TO_FP16A")
    assert head(m.lreg[2], 8) == want


@pytest.mark.parametrize("mode,inputs,want", [
    # FP16B keeps 16 discarded bits: only 0xFFFF reaches the 0x7FFFFF >> 7 threshold
    (1, [0x3F80FFFF, 0x3F80FFFE, 0xBF80FFFF], [0x3F810000, 0x3F800000, 0xBF810000]),
    # FP16A: only 0x1FFF reaches 0x7FFFFF >> 10
    (0, [0x3F801FFF, 0x3F801FFE, 0xC0001FFF], [0x3F802000, 0x3F800000, 0xC0002000]),
])
def test_stochrnd_blackhole_toward_zero_float_rounds_all_ones_away(mode, inputs, want):
    m = machine("blackhole", {1: inputs})
    run(m, f"SFP_STOCH_RND 2, 0, L1, L1, L2, {mode}")
    assert head(m.lreg[2], 3) == want


@pytest.mark.parametrize("mode,keep_sign", [(2, False), (3, True), (6, False), (7, True)])
def test_stochrnd_blackhole_toward_zero_int_examples(mode, keep_sign):
    inputs = [0x3F7FFFFE,   # 0.99999988: the documented bug -> 1
              0x3F7FFFFF,   # 0.99999994 -> 1 (bug)
              0x3FFFFFFF,   # 1.9999999 -> 2 (bug)
              0x3F7FFFFD,   # 0.99999982 -> 0
              0x3FFFFFFE,   # 1.9999998 -> 1
              0x402FFFFF,   # 2.7499998 -> 2
              0x40400000,   # 3.0 -> 3
              0xBF7FFFFF]   # -0.99999994 -> -1 (sign-magnitude) or 1
    want = [1, 1, 2, 0, 1, 2, 3, 0x80000001 if keep_sign else 1]
    m = machine("blackhole", {1: inputs})
    run(m, f"SFP_STOCH_RND 2, 0, L1, L1, L2, {mode}")
    assert head(m.lreg[2], 8) == want


def test_stochrnd_blackhole_toward_zero_misrounds_exactly_three_values():
    # Every FP32 with an exponent from -1 to 15 and one of the top 65536 mantissas (the
    # all-ones tails where the bug could strike), through FP32 -> UINT16 toward zero.
    exponents = np.arange(126, 143, dtype=np.uint32)
    mantissas = np.arange(0x7F0000, 0x800000, dtype=np.uint32)
    x = ((exponents[:, None] << 23) | mantissas[None, :]).ravel()
    m = Machine("blackhole", lanes=x.size, dst_rows=16)
    m.lreg[1] = x
    run(m, "SFP_STOCH_RND 2, 0, L1, L1, L2, FP32_TO_UINT16")
    truncated = np.floor(formats.bits_to_fp32(x).astype(np.float64)).astype(np.uint32)
    wrong = x[m.lreg[2] != truncated]
    assert sorted(int(v) for v in wrong) == [0x3F7FFFFE, 0x3F7FFFFF, 0x3FFFFFFF]
    assert (m.lreg[2][m.lreg[2] != truncated] == truncated[m.lreg[2] != truncated] + 1).all()


@pytest.mark.parametrize("arch", BOTH)
def test_stochrnd_fp32_to_int_nearest_ties_away_and_clamps(arch):
    inputs = bits(0.5, 1.5, 2.5, -2.5, -0.4, 300.0, -300.0, -0.0) + \
        [0x3EFFFFFF, 0x7FC00000, 0xFF800000]           # 0.49999997, +NaN, -Inf
    int8 = [1, 2, 3, 0x80000003, 0, 127, 0x8000007F, 0, 0, 127, 0x8000007F]
    uint8 = [1, 2, 3, 3, 0, 255, 255, 0, 0, 255, 255]   # |x|: negatives are not clamped to 0
    for mode, want in ((3, int8), (2, uint8)):
        m = machine(arch, {1: inputs})
        run(m, f"SFP_STOCH_RND 0, 0, L1, L1, L2, {mode}")
        assert head(m.lreg[2], 11) == want, mode


# Sign-magnitude VC = L1 and shift amounts VB = L2, per lane, with the hand results
INT_IN = [0x80000005, 1000, 0x80000001, 200, 0x80000100, 0x7FFFFFFF]
INT_SHIFT = [1, 2, 2, 0, 32, 31]       # 32 & 31 = 0
INT_UINT8 = [3, 250, 0, 200, 255, 1]   # 2.5 -> 3; 0.25 -> 0; 256 -> 255; 0.99999... -> 1
INT_INT8 = [0x80000003, 127, 0, 127, 0x8000007F, 1]     # -0 never produced


@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("mode,want", [(4, INT_UINT8), (5, INT_INT8)])
def test_stochrnd_int32_to_int8_shifted_by_vb(arch, mode, want):
    m = machine(arch, {1: INT_IN, 2: INT_SHIFT})
    run(m, f"SFP_STOCH_RND 0, 0, L2, L1, L3, {mode}")
    assert head(m.lreg[3], 6) == want


@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("mode,want", [(12, [3, 3, 0, 255]),
                                       (13, [3, 0x80000003, 0, 127])])
def test_stochrnd_int32_to_int8_shifted_by_imm5(arch, mode, want):
    # Imm5 = 3: 20 / 8 = 2.5 -> 3; -20 / 8 -> -3; -3 / 8 -> 0 (sign dropped); huge -> clamp.
    # VB = L0 holds 0, which USE_IMM5 ignores.
    m = machine(arch, {1: [20, 0x80000014, 0x80000003, 0x7FFFFFFF]})
    run(m, f"SFP_STOCH_RND 0, 3, L0, L1, L2, {mode}")
    assert head(m.lreg[2], 4) == want


def test_stochrnd_blackhole_toward_zero_int_misrounds_beyond_22_bit_shifts():
    # Shift 23 or more leaves no room below the all-ones fraction: 0xFFFFFF >> 23
    # (1.99999988) and 0x1FFFFFF >> 24 round up to 2; shifts up to 22 truncate.
    m = machine("blackhole", {1: [0xFFFFFF, 0x1FFFFFF, 0x3FFFFF, 0x7FFFFF],
                              2: [23, 24, 22, 22]})
    run(m, "SFP_STOCH_RND 2, 0, L2, L1, L3, INT32_TO_UINT8")
    assert head(m.lreg[3], 4) == [2, 2, 0, 1]


@pytest.mark.parametrize("arch", BOTH)
def test_stochrnd_stochastic_rounds_up_when_discarded_bits_reach_prng(arch):
    # FP16B: round up iff discarded >= (prng & 0x7FFFFF) >> 7
    m = machine(arch, {1: [0x3F808000, 0x3F808000, 0x3F800000, 0x3F800000]},
                prng=[0x00400000,      # threshold 0x8000: tie reaches it -> up
                      0x00400080,      # threshold 0x8001 -> down
                      0,               # threshold 0: even an exact value rounds up (bug)
                      0xFF800000])     # bits above 22 are masked off: threshold 0 -> up
    run(m, "SFP_STOCH_RND 1, 0, L1, L1, L2, FP32_TO_FP16B")
    assert head(m.lreg[2], 4) == [0x3F810000, 0x3F800000, 0x3F810000, 0x3F810000]


@pytest.mark.parametrize("arch", BOTH)
def test_stochrnd_stochastic_float_to_int_keeps_small_values_zero(arch):
    # 2.25: fraction 0x200000 against the threshold; 0.25 always 0 (|x| < 0.5 bug);
    # 0.75: fraction 0x600000
    m = machine(arch, {1: bits(2.25, 2.25, 0.25, 0.75, 0.75)},
                prng=[0x200000, 0x200001, 0, 0x7FFFFF, 0x600000])
    run(m, "SFP_STOCH_RND 1, 0, L1, L1, L2, FP32_TO_UINT16")
    assert head(m.lreg[2], 5) == [3, 2, 0, 0, 1]


PRNG_IN = [0, 0x00400000, 0x80000001, 0x00200000, 0x12345678]


@pytest.mark.parametrize("arch,round_mode", [("wormhole", 0), ("wormhole", 1),
                                             ("blackhole", 0), ("blackhole", 1),
                                             ("blackhole", 2)])
@pytest.mark.parametrize("mode", [0, 3, 5])
def test_stochrnd_advances_prng_of_enabled_lanes_in_every_rounding_mode(arch, round_mode, mode):
    m = machine(arch, {1: bits(1.5)}, flags=[T, T, T, T, F], enable=True, prng=PRNG_IN)
    run(m, f"SFP_STOCH_RND {round_mode}, 0, L1, L1, L2, {mode}")
    # hand-stepped LFSR: 0 -> 0x80000000; 0x00400000 -> 0x80200000 (no tap set);
    # 0x80000001 -> 0xC0000000 (two taps); 0x00200000 -> 0x00100000 (one tap)
    assert head(m.prng, 5) == [0x80000000, 0x80200000, 0xC0000000, 0x00100000, 0x12345678]
    assert [lfsr_step(v) for v in PRNG_IN[:4]] == head(m.prng, 4)


def test_stochrnd_rounding_mode_field_is_one_bit_on_wormhole_and_0_to_2_on_blackhole():
    with pytest.raises(FieldOutOfRange):
        assemble("SFP_STOCH_RND 2, 0, L1, L1, L2, 1", "wormhole")
    with pytest.raises(FieldOutOfRange):
        assemble("SFP_STOCH_RND 3, 0, L1, L1, L2, 1", "blackhole")


# ============================================================================================
# SFPCAST (SFPCAST.md; Blackhole SFPCAST_IntFloat.md, _IntAbs.md, _IntInt.md)
# ============================================================================================

@pytest.mark.parametrize("arch", BOTH)
def test_sfpcast_round_to_nearest_even_and_signed_zero(arch):
    inputs = [0x01000001,   # 2**24 + 1: tie between 2**24 and 2**24 + 2 -> even 2**24
              0x01000003,   # 2**24 + 3: tie -> even 2**24 + 4
              0x80000000,   # -0 stays -0
              0x81000003,   # sign-magnitude -(2**24 + 3)
              0x7FFFFFFF,   # 2**31 - 1 -> 2**31
              5]
    want = [0x4B800000, 0x4B800002, 0x80000000, 0xCB800002, 0x4F000000, 0x40A00000]
    m = machine(arch, {1: inputs}, prng=[0x1234])
    run(m, "SFPCAST L1, L2, RND_EVEN")
    assert head(m.lreg[2], 6) == want
    assert (m.prng == 0x1234).all()              # only the stochastic mode uses the PRNG


@pytest.mark.parametrize("arch", BOTH)
def test_sfpcast_stochastic_uses_seven_prng_bits_with_strict_compare(arch):
    # 2**24 + 1: normalised, the bits below the kept ones are 0x80; random = (prng >> 9) & 0xFE;
    # round up iff 0x80 > random.
    prng = [0,          # random 0 -> up
            0x10000,    # random 0x80 -> not greater -> down
            0xFE00,     # random 0x7E -> up
            0x1FF]      # bits below 9 unused: random 0 -> up
    m = machine(arch, {1: [0x01000001]}, prng=prng)
    run(m, "SFPCAST L1, L2, RND_STOCH")
    assert head(m.lreg[2], 4) == [0x4B800001, 0x4B800000, 0x4B800001, 0x4B800001]
    assert head(m.prng, 4) == [lfsr_step(v) for v in prng]


@pytest.mark.parametrize("mode,want", [
    (2, [5, 0x80000000, 7, 0x7FFFFFFB]),            # two's complement |x|; -2**31 stays
    (3, [0x80000005, 0x80000000, 7, 0xFFFFFFFB]),   # two's complement <-> sign-magnitude
])
def test_sfpcast_blackhole_integer_modes(mode, want):
    m = machine("blackhole", {1: [-5, 0x80000000, 7, 0x80000005]})
    run(m, f"SFPCAST L1, L2, {mode}")
    assert head(m.lreg[2], 4) == want


# ============================================================================================
# SFPARECIP (BlackholeA0 SFPARECIP.md)
# ============================================================================================

def test_sfparecip_recip_examples():
    inputs = bits(1.0, -1.0, 2.0) + [
        0x00000000, 0x80000000, 0x00000001,   # zero / denormal -> signed Inf
        0x7F800000, 0xFF800000, 0xFFC00000,   # Inf, NaN -> signed zero
        0x7E800000,                           # 2**126 -> 0
        0x7E7FFFFF]                           # just below: exponent 1, table entry 127 = 0
    want = [0x3F7F0000,                       # documented: 1.0 -> 0.99609375
            0xBF7F0000, 0x3EFF0000,           # 2.0: exponent 253 - 128, table entry 0 = 127
            0x7F800000, 0xFF800000, 0x7F800000, 0, 0x80000000, 0x80000000, 0, 0x00800000]
    m = machine("blackhole", {1: inputs})
    run(m, "SFPARECIP 0, L1, L2, RECIP")
    assert head(m.lreg[2], 11) == want
    assert formats.bits_to_fp32(m.lreg[2][0]) == np.float32(0.99609375)


def test_sfparecip_cond_recip_replaces_only_where_vb_is_negative_and_drops_the_sign():
    m = machine("blackhole", {1: bits(-1.0, -1.0, 4.0, 0.0),
                              2: [0xFFFFFFFF, 0, 0x80000000, 0x7FFFFFFF]})
    run(m, "SFPARECIP 2, L1, L3, COND_RECIP")
    assert head(m.lreg[3], 4) == [0x3F7F0000, 0xBF800000, 0x3E7F0000, 0]


def test_sfparecip_exp_examples():
    inputs = bits(1.0, -1.0, 2.0) + [
        0x00000000, 0x80000000, 0x00001234,   # zero / denormal -> 1.0, sign put back
        0x3C001234,                           # below 2**-6: 0x3F81 | low 16 bits
        0x7FC01234, 0x7F800000]               # >= 2: 0x4080 | low 16 bits
    want = [0x402D0000,                       # documented: 1.0 -> 2.703125
            0xC02D0000,                       # -e**1, not e**-1
            0x40800000, 0x3F800000, 0xBF800000, 0x3F800000, 0x3F811234, 0x40801234,
            0x40800000]
    m = machine("blackhole", {1: inputs})
    run(m, "SFPARECIP 0, L1, L2, EXP")
    assert head(m.lreg[2], 9) == want
    assert formats.bits_to_fp32(m.lreg[2][0]) == np.float32(2.703125)


def test_sfparecip_recip_within_documented_bounds():
    # The result depends only on the exponent and the top 7 mantissa bits, so x * recip(x)
    # is monotonic within each (exponent, 7-bit) bucket: its two ends bound it. All buckets
    # of 2**-126 <= x < 2**126 (exponents 1..252).
    starts = ((np.arange(1, 253, dtype=np.uint32)[:, None] << 23)
              | (np.arange(128, dtype=np.uint32)[None, :] << 16)).ravel()
    x = np.concatenate([starts, starts | 0xFFFF])
    m = Machine("blackhole", lanes=x.size, dst_rows=16)
    m.lreg[1] = x
    run(m, "SFPARECIP 0, L1, L2, RECIP")
    ratio = formats.bits_to_fp32(m.lreg[2]).astype(np.float64) * \
        formats.bits_to_fp32(x).astype(np.float64)
    assert (0.9944 < ratio).all() and (ratio < 1.0054).all()


def test_sfparecip_exp_within_documented_bounds_on_0_to_2():
    # Every input bucket (top 16 bits) from 2**-126 up to 2, 17 low-half values each, and 0.
    top = np.arange(0x0080, 0x4000, dtype=np.uint32)
    low = np.arange(0, 0x10001, 0x1000, dtype=np.uint32).clip(0, 0xFFFF)
    x = np.concatenate([((top[:, None] << 16) | low[None, :]).ravel(),
                        np.zeros(32 - (top.size * low.size) % 32, dtype=np.uint32)])
    m = Machine("blackhole", lanes=x.size, dst_rows=16)
    m.lreg[1] = x
    run(m, "SFPARECIP 0, L1, L2, EXP")
    ratio = formats.bits_to_fp32(m.lreg[2]).astype(np.float64) / \
        np.exp(formats.bits_to_fp32(x).astype(np.float64))
    assert (0.9922 < ratio).all() and (ratio < 1.016).all()


# ============================================================================================
# SFPLUT (SFPLUT.md)
# ============================================================================================

def test_lut8_codes_span_the_documented_values_and_0xff_is_the_only_zero():
    values = formats.bits_to_fp32(lanewise.lanes(lut8_to_fp32, np.arange(256))).astype(np.float64)
    assert np.count_nonzero(values == 0) == 1 and values[0xFF] == 0
    assert np.signbit(values[0xFF]) == False                          # noqa: E712 (no -0)
    magnitudes = np.abs(np.delete(values, 0xFF))
    assert magnitudes.min() == 0.0078125 and magnitudes.max() == 1.9375
    assert values[0x00] == 1.0 and values[0x7F] == 31 / 2048 and values[0x80] == -1.0
    assert values[0x10] == 0.5 and values[0x70] == 2 ** -7 and values[0x8F] == -1.9375


@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("mode", [0, 4])
def test_sfplut_decodes_codes_and_retains_sign(arch, mode):
    # L0 coefficient word: bits 15..8 slope code, 7..0 intercept code, bits 31..16 ignored
    words = [0x00FF,        # 1.0 * 0.5 + 0 = 0.5
             0xFF10,        # 0 * 0.5 + 0.5 = 0.5
             0x807F,        # -1.0 * 0.5 + 31/2048 = -993/2048
             0x7080,        # 2**-7 * 0.5 - 1.0 = -255/256
             0x0000,        # 1.0 * |-0.75| + 1.0 = 1.75
             0xABCD00FF]    # as the first
    l3 = bits(0.5, 0.5, 0.5, 0.5, -0.75, 0.5)
    value = [0.5, 0.5, -993 / 2048, -255 / 256, 1.75, 0.5]
    if mode == 4:           # SGN_RETAIN: the sign of L3
        value = [0.5, 0.5, 993 / 2048, 255 / 256, -1.75, 0.5]
    m = machine(arch, {0: words, 3: l3})
    run(m, f"SFPLUT L4, {mode}")
    assert head(m.lreg[4], 6) == bits(*value)


@pytest.mark.parametrize("arch", BOTH)
def test_sfplut_selects_the_word_by_the_magnitude_of_l3(arch):
    # slope code 0xFF (zero); intercepts L0 1.0 (0x00), L1 0.5 (0x10), L2 0.25 (0x20)
    l3 = [0x3F7FFFFF, 0x3F800000, 0x3FFFFFFF, 0x40000000, 0x7F7FFFFF, 0xBF800000, 0x00000001]
    m = machine(arch, {0: [0xFF00], 1: [0xFF10], 2: [0xFF20], 3: l3})
    run(m, "SFPLUT L4, 0")
    assert head(m.lreg[4], 7) == bits(1.0, 0.5, 0.5, 0.25, 0.25, 0.5, 1.0)


@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("mode,value", [(8, 0.5), (12, -0.5)])
def test_sfplut_indirect_vd_writes_lreg_named_by_l7(arch, mode, value):
    # L3 = -0.5, word 0x00FF: 1.0 * 0.5 + 0 = 0.5 (SGN_RETAIN: -0.5). L7 & 15 per lane:
    # 4, 5, 9 (read-only: nothing written), 0x12345670 -> 0. The VD field (L6) is unused.
    m = machine(arch, {0: [0x00FF], 3: bits(-0.5), 7: [4, 5, 9, 0x12345670]})
    run(m, f"SFPLUT L6, {mode}")
    want = bits(value)[0]
    assert head(m.lreg[4], 4) == [want, 0, 0, 0]
    assert head(m.lreg[5], 4) == [0, want, 0, 0]
    assert head(m.lreg[0], 4) == [0x00FF, 0x00FF, 0x00FF, want]
    assert not m.lreg[6].any()


# ============================================================================================
# SFPLUTFP32 (SFPLUTFP32.md)
# ============================================================================================

@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("mode", [0, 4])
def test_sfplutfp32_fp32_table(arch, mode):
    # L0/L4 = 3.0/1.0 for |x| < 1, L1/L5 = 2.0/0.25 below 2, L2/L6 = 4.0/-1.0 above
    m = machine(arch, {0: bits(3.0), 4: bits(1.0), 1: bits(2.0), 5: bits(0.25), 2: bits(4.0),
                       6: bits(-1.0), 3: bits(0.5, 1.5, 2.5, -0.5)})
    run(m, f"SFPLUTFP32 L7, {mode}")
    last = -2.5 if mode == 4 else 2.5
    assert head(m.lreg[7], 4) == bits(2.5, 3.25, 9.0, last)


@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("mode", [10, 14])
def test_sfplutfp32_fp16_three_entry_always_writes_lreg_named_by_l7(arch, mode):
    # Slope in the high half, intercept in the low half of L0 / L1 / L2 (FP16 field layout):
    # L0 1.0 / 0.5, L1 2.0 / 1.0, L2 0.5 / exponent 31 (= zero). L4..L6 are not read.
    m = machine(arch, {0: [0x3C003800], 1: [0x40003C00], 2: [0x38007C00],
                       3: bits(0.5, 1.5, 2.5, -0.5), 4: [0xDEAD], 6: [0xBEEF], 7: [5]})
    run(m, f"SFPLUTFP32 L1, {mode}")
    last = -1.0 if mode == 14 else 1.0
    assert head(m.lreg[5], 4) == bits(1.0, 4.0, 1.25, last)
    assert (m.lreg[1] == 0x40003C00).all()      # the VD field is not the destination
    assert (m.lreg[4] == 0xDEAD).all() and (m.lreg[6] == 0xBEEF).all()


@pytest.mark.parametrize("arch", BOTH)
def test_sfplutfp32_fp16_entries_encode_zero_with_exponent_31_not_0(arch):
    # L3 = 0.5; (slope, intercept) per lane
    words = [0x3C000000,    # intercept 0x0000 is 2**-15, not zero: 0.5 + 2**-15
             0x3C007C00,    # exponent 31 is zero: 0.5
             0x3C007FFF,    # exponent 31 with a mantissa (an FP16 NaN) is zero too
             0x7C003800,    # zero slope: 0 * 0.5 + 0.5
             0xFFFF3800]    # -0 slope: 0.5
    m = machine(arch, {0: words, 3: bits(0.5), 7: [2]})
    run(m, "SFPLUTFP32 L2, FP16_3ENTRY_TABLE")
    assert head(m.lreg[2], 5) == [0x3F000200, 0x3F000000, 0x3F000000, 0x3F000000, 0x3F000000]


# 6-entry tables: slopes L0, L1 zero in both halves; L2 slope 1.0 high / zero low.
# Intercepts: L4 1.0 high / 0.5 low, L5 2.0 / 1.5, L6 4.0 / 3.0.
SIX_ENTRY = {0: [0x7C007C00], 1: [0x7C007C00], 2: [0x3C007C00],
             4: [0x3C003800], 5: [0x40003E00], 6: [0x44004200]}
SIX_L3 = [0.25, 0.5, 0.75, 1.25, 1.75, 2.5, 3.0, 3.5, 4.5, -1.75]


@pytest.mark.parametrize("arch", BOTH)
@pytest.mark.parametrize("mode,want", [
    # cut 3.0: [3, inf) uses the high halves: 1.0 * x + 4.0
    (2, [0.5, 1.0, 1.0, 1.5, 2.0, 3.0, 7.0, 7.5, 8.5, 2.0]),
    # cut 4.0: [2, 4) uses the low halves: 0 * x + 3.0
    (3, [0.5, 1.0, 1.0, 1.5, 2.0, 3.0, 3.0, 3.0, 8.5, 2.0]),
    (6, [0.5, 1.0, 1.0, 1.5, 2.0, 3.0, 7.0, 7.5, 8.5, -2.0]),      # with SGN_RETAIN
    (7, [0.5, 1.0, 1.0, 1.5, 2.0, 3.0, 3.0, 3.0, 8.5, -2.0]),
])
def test_sfplutfp32_fp16_six_entry_tables(arch, mode, want):
    m = machine(arch, {**SIX_ENTRY, 3: bits(*SIX_L3)})
    run(m, f"SFPLUTFP32 L7, {mode}")
    assert head(m.lreg[7], len(SIX_L3)) == bits(*want)


@pytest.mark.parametrize("arch", BOTH)
def test_sfplutfp32_indirect_vd(arch):
    # FP32 table, |L3| = 0.5: 3.0 * 0.5 + 1.0 = 2.5 to L[L7 & 15]: 1, 2, 9 (nothing), 0x17 -> 7
    m = machine(arch, {0: bits(3.0), 4: bits(1.0), 3: bits(0.5), 7: [1, 2, 9, 0x17]})
    run(m, "SFPLUTFP32 L6, INDIRECT_VD")
    want = bits(2.5)[0]
    assert head(m.lreg[1], 4) == [want, 0, 0, 0]
    assert head(m.lreg[2], 4) == [0, want, 0, 0]
    assert head(m.lreg[7], 4) == [1, 2, 9, want]
    assert not m.lreg[6].any()
