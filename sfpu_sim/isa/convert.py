"""Conversion family: SFP_STOCH_RND (both chips), SFPCAST (both; modes 2/3 Blackhole only) and
SFPARECIP (Blackhole only).

Owns the rounding decisions of these conversions, their use of the per-lane PRNG, and the
SFPARECIP lookup tables. Which modes and rounding-mode values exist on a chip is data in the
opcode table (:mod:`sfpu_sim.arch`); the field values mean the same thing on both chips.

Sources: tt-isa-documentation ``{WormholeB0,BlackholeA0}/TensixTile/TensixCoprocessor/``
``SFPSTOCHRND_FloatFloat.md`` (revision 13547104), ``SFPSTOCHRND_FloatInt.md``,
``SFPSTOCHRND_IntInt.md`` (585749d1), ``SFPCAST.md``, BlackholeA0 ``SFPCAST_IntFloat.md``,
``SFPCAST_IntInt.md``, ``SFPCAST_IntAbs.md`` (4042f540), BlackholeA0 ``SFPARECIP.md``
(585749d1); the PRNG of ``VectorUnit.md``.
"""
from __future__ import annotations

import mpmath
import numpy as np

from sfpu_sim.isa import records as rec
from sfpu_sim.isa.exact_rules import APPROXIMATE, DEVICE, EXACT, ROUNDING, Operands, Result
from sfpu_sim.isa.lanewise import VB, VC, Semantics, helper, lanes, leading_zeros32
from sfpu_sim.isa.spec import ROUND, SIMPLE, Opcode, imm, lreg, mod

SIGN = 0x80000000
MAGNITUDE = 0x7FFFFFFF
MANTISSA = 0x007FFFFF
EXPONENT = 0x7F800000
M32 = 0xFFFFFFFF

# --------------------------------------------------------------------------------------------
# Integer encodings (SFPCAST, and SFPLOAD / SFPSTORE's sign-magnitude modes)
# --------------------------------------------------------------------------------------------


@helper
def sign_magnitude_to_twos_complement(x):
    magnitude = x & MAGNITUDE
    return (-magnitude) & M32 if x & SIGN else magnitude


@helper
def twos_complement_to_sign_magnitude(x):
    """One operation both ways: -0 and -2**31 map onto each other."""
    sign = x & SIGN
    return sign | (((-x) & M32 if sign else x) & MAGNITUDE)


# --------------------------------------------------------------------------------------------
# SFP_STOCH_RND
# --------------------------------------------------------------------------------------------

# Rounding-mode field (Wormhole: bit 21 holds 0 or 1; Blackhole: bits 21-22 hold 0..2)
RND_NEAREST, RND_STOCH, RND_ZERO = 0, 1, 2
USE_IMM5 = 8


@helper
def _threshold(round_mode, random):
    """The 23-bit round-up threshold ``P``. Every executing lane advances its PRNG whatever the
    rounding mode (newest revisions; the 2025-06 Wormhole text advanced it only when
    stochastic); nearest and toward-zero then overwrite ``P``. Toward zero uses
    ``0x7FFFFF``, so with the ``>=`` comparison it still rounds up all-ones discarded bits
    (the documented Blackhole bug)."""
    if round_mode == RND_NEAREST:
        return 0x400000
    if round_mode == RND_ZERO:
        return 0x7FFFFF
    return random & MANTISSA


@helper
def drop_mantissa_bits(x, drop, threshold):
    """FP32 -> FP32 keeping ``23 - drop`` mantissa bits: the discarded bits round up when
    ``>= threshold``; zero and denormals -> +0, Inf/NaN -> signed Inf."""
    e = x & EXPONENT
    if e == 0:
        return 0
    if e == EXPONENT:
        return x & 0xFF800000
    discarded = x & ((1 << drop) - 1)
    return x - discarded + ((1 << drop) if discarded >= threshold else 0)


def fp32_drop_mantissa_bits(bits, drop: int, threshold) -> np.ndarray:
    """:func:`drop_mantissa_bits` over arrays of FP32 patterns (any shape; ``threshold`` a
    scalar, for rounding to nearest, or an array, for stochastic rounding): uint32, through
    :func:`~sfpu_sim.isa.lanewise.lanes`."""
    x = np.asarray(bits).astype(np.uint32)
    limit = np.broadcast_to(np.asarray(threshold).astype(np.uint32), x.shape).reshape(-1)
    return lanes(drop_mantissa_bits, x.reshape(-1), drop, limit).reshape(x.shape)


def fp32_to_bf16_ties_away(bits) -> np.ndarray:
    """FP32 -> BF16 rounding to nearest, ties away from zero: SFPSTOCHRND's nearest mode
    (sfpi ``float_to_fp16b(x, 0)``) and the packer's rounding conversion
    (Packers/FormatConversion.md). -0 and denormals become +0, NaN becomes +-Inf."""
    return (fp32_drop_mantissa_bits(bits, 16, 0x8000) >> np.uint32(16)).astype(np.uint16)


@helper
def _float_to_int(x, mode, threshold):
    """FP32 -> sign-magnitude integer clamped to the mode's range, 2 UINT8, 3 INT8, 6 UINT16,
    7 INT16 (|x| < 0.5 gives 0 whatever the rounding, |x| >= 2**16, Inf and NaN the largest
    magnitude)."""
    keep_sign = mode & 1
    largest = (255 if mode == 2 else 127) if mode < 4 else (65535 if mode == 6 else 32767)
    sign = x & SIGN if keep_sign else 0
    e = ((x >> 23) & 0xFF) - 127
    if e < -1:
        return 0
    if e >= 16:
        magnitude = largest
    else:
        significand = 0x800000 | (x & MANTISSA)
        fixed = significand << min(e, 15) if e >= 0 else significand >> 1   # 23 fraction bits
        magnitude = min((fixed >> 23) + ((fixed & 0x7FFFFF) >= threshold), largest)
    return 0 if magnitude == 0 else sign | magnitude


@helper
def _int_to_int8(x, shift, mode, threshold):
    """Sign-magnitude int32 -> 8-bit range: magnitude shifted right by ``shift`` (0..31) with
    the shifted-out bits (at most 23 of them count) deciding the round-up; mode 4 (UINT8)
    takes the absolute value and clamps to 255, mode 5 (INT8) clamps to 127."""
    fixed = ((x & MAGNITUDE) << 23) >> shift
    magnitude = (fixed >> 23) + ((fixed & 0x7FFFFF) >= threshold)
    if mode == 4:
        return min(magnitude, 255)
    magnitude = min(magnitude, 127)
    return 0 if magnitude == 0 else (x & SIGN) | magnitude


def sfpstochrnd(vc, vb, random, imm5, mod1, round_mode):
    """SFP_STOCH_RND, three flavours by ``Mod1 & 7``: 0/1 FP32 -> FP32 with FP16A / FP16B
    precision (zero and denormals -> +0, Inf/NaN -> signed Inf); 2/3/6/7 FP32 -> UINT8 / INT8 /
    UINT16 / INT16 sign-magnitude; 4/5 sign-magnitude INT32 -> UINT8 / INT8 shifted right by
    ``Imm5`` (USE_IMM5) or ``VB & 31``. The float flavours ignore Mod1 bit 3 (USE_IMM5).

    Rounding (field ``round_mode``): 0 nearest, ties away from zero; 1 stochastic (``random``:
    the lane's PRNG state); 2 (Blackhole) toward zero. "Round up" is always ``discarded >= P``
    as documented, including its bugs (stochastic upward bias; toward zero rounding all-ones
    discarded bits away)."""
    threshold = _threshold(round_mode, random)
    mode = mod1 & 7
    if mode == 0:
        return drop_mantissa_bits(vc, 13, threshold >> 10)
    if mode == 1:
        return drop_mantissa_bits(vc, 16, threshold >> 7)
    if mode == 4 or mode == 5:
        return _int_to_int8(vc, imm5 if mod1 & USE_IMM5 else vb & 31, mode, threshold)
    return _float_to_int(vc, mode, threshold)


SFP_STOCH_RND = Semantics("SFP_STOCH_RND", sfpstochrnd, (VC, VB), ("imm5", "mod1", "round_mode"),
                          prng=lambda i: True)

# --------------------------------------------------------------------------------------------
# SFPCAST
# --------------------------------------------------------------------------------------------

CAST_RND_STOCH, CAST_INT32_ABS, CAST_INT32_SM32 = 1, 2, 3


@helper
def _sign_magnitude_to_fp32(x, random, stochastic):
    """Sign-magnitude int32 -> FP32, exact up to 2**24; beyond, round to nearest even, or
    stochastically: round up when the 7 bits below the kept ones exceed 7 PRNG bits (strict
    ``>``). -0 stays -0."""
    sign, magnitude = x & SIGN, x & MAGNITUDE
    leading = 157 if magnitude == 0 else leading_zeros32(magnitude)
    normalised = (magnitude << (leading & 31)) & M32
    result = sign + ((157 - leading) << 23) + (normalised >> 8)
    if stochastic:
        up = (normalised & 0xFE) > ((random >> 9) & 0xFE)
    else:
        up = (normalised & 0x80) != 0 and (normalised & 0x17F) != 0
    return (result + up) & M32


def sfpcast(vc, random, mod1):
    """SFPCAST. Mod1 0: sign-magnitude int32 -> FP32 round to nearest even; 1: the same with
    7-bit stochastic rounding (the only mode that advances the PRNG: ``random`` is the lane's
    state). Blackhole 2: two's complement absolute value (documented hardware bug; -2**31
    stays); 3: two's complement <-> sign-magnitude (one operation both ways; -0 and -2**31 map
    onto each other)."""
    if mod1 == CAST_INT32_ABS:
        return (-vc) & M32 if vc & SIGN else vc
    if mod1 == CAST_INT32_SM32:
        return twos_complement_to_sign_magnitude(vc)
    return _sign_magnitude_to_fp32(vc, random, mod1 == CAST_RND_STOCH)


SFPCAST = Semantics("SFPCAST", sfpcast, (VC,), ("mod1",), prng=lambda i: i.mod1 == CAST_RND_STOCH)


# --------------------------------------------------------------------------------------------
# SFPARECIP (Blackhole)
# --------------------------------------------------------------------------------------------

ARECIP_RECIP, ARECIP_COND_RECIP, ARECIP_EXP = 0, 1, 2

# Reciprocal table, indexed by the top 7 mantissa bits: RLUT[i] = round(2**15 / (i + 128.5))
# - 128, which reproduces every entry of ApproxRecip's table in BlackholeA0 SFPARECIP.md
# (revision 585749d1) without ties; computed here in exact integer arithmetic.
RLUT = np.array([(2 * 65536 + (2 * i + 257)) // (2 * (2 * i + 257)) - 128 for i in range(128)],
                dtype=np.uint32)

# Exponential table of ApproxExp (BlackholeA0 SFPARECIP.md, revision 585749d1): 896 entries,
# index (x >> 16) - 0x3C80 (FP32 exponents 121..127, 128 per exponent), as value x count runs
# in index order (a bare value counts once). Entries 0..689 go with the 0x3F800000 base,
# 690..895 with 0x40000000 (values >= 128 there carry into the exponent).
_ELUT_RUNS = """
2x62 3x63 4x32 5x31 6x31 7x30 8x19 9x15 10x14 11x15 12x15 13x14 14x14 15x15 16x14 17x7 18x7
19x7 20x7 21x7 22x7 23x6 24x7 25x7 26x6 27x7 28x7 29x6 30x7 31x6 32x6 33x7 34x6 35x6 36x5 37x3
38x3 39x3 40x3 41x3 42x3 43x3 44x3 45x3 46x3 47x3 48x2 49x3 50x3 51x3 52x3 53x3 54x3 55x2 56x3
57x3 58x3 59x2 60x3 61x3 62x2 63x3 64x3 65x2 66x3 67x3 68x2 69x3 70x2 71x3 72x3 73x2 74x3 75x2
76x3 77x2 78x3 79x2 80x3 81x2 82x2 83x2 84 85 86 87 88x2 89 90 91 92 93 94x2 95 96 97 98 99 100
101x2 102 103 104 105 106 107 108 109 110 111 112 113x2 114 115 116 117 118 119 120 121 122 123
124 125 126 127
0x2 1x2 2x2 3x2 4x2 5x2 6x2 7 8x2 9x2 10x2 11x2 12x2 13x2 14 15x2 16x2 17x2 18 19x2 20x2 21x2 22
23x2 24x2 25 26x2 27x2 28 29x2 30 31x2 32x2 33 34x2 35 36x2 37 38x2 39x2 40 41x2 42 43x2 44 45x2
47 48 50 51 52 54 55 57 58 60 61 63 64 66 67 69 70 72 73 75 76 78 80 81 83 85 86 88 90 91 93 95
97 98 100 102 104 106 107 109 111 113 115 117 119 121 123 125 127 128 129 130 131 132 133 134
135 136 137 139 140 141 142 143 144 145 146 147 149 150 151 152 153 155 156 157 158 159 161 162
163 165 166 167 168 170 171 172 174 175 177 178 179 181 182 184 185 187 188 189 191 192 194 196
197 199 200 202 203 205 207 208 210 211 213 215 216 218 220 222 223 225 227 229 230 232 234
"""


def _expand_runs(text: str) -> np.ndarray:
    values = []
    for run in text.split():
        value, _, count = run.partition("x")
        values += [int(value)] * int(count or 1)
    return np.array(values, dtype=np.uint32)


ELUT = _expand_runs(_ELUT_RUNS)
assert ELUT.size == 896
ELUT_BASE = 0x3C80


@helper
def approx_recip(a):
    """ApproxRecip of a non-negative FP32 pattern: 0 and denormals -> +Inf; up to 2**126 the
    exponent ``253 - E`` with 7 table mantissa bits (within 0.9944..1.0054 of 1/x); from
    2**126 on (Inf and NaN included) -> +0."""
    if a < 0x00800000:
        return 0x7F800000
    if a >= 0x7E800000:
        return 0
    return ((253 - min(a >> 23, 253)) << 23) | (np.int64(RLUT[(a >> 16) & 0x7F]) << 16)


@helper
def approx_exp(a):
    """ApproxExp of a non-negative FP32 pattern (useful on [0, 2): within 0.9922..1.016 of
    e**x). The input's low 16 bits are copied into the result's; the table byte is ORed in at
    bit 16 over a 1.0 (below 0.6953125) or 2.0 base; from 2.0 on (Inf, NaN included) the
    result is ``0x40800000 | low 16 bits``; below 2**-6, ``0x3F810000 | low 16 bits``; 0 and
    denormals give 1.0."""
    low = a & 0xFFFF
    if a < 0x00800000:
        return 0x3F800000
    if a < 0x3C800000:
        return 0x3F810000 | low
    table = (np.int64(ELUT[min(max((a >> 16) - ELUT_BASE, 0), ELUT.size - 1)]) << 16) | low
    if a < 0x3F320000:
        return 0x3F800000 | table
    if a < 0x40000000:
        return 0x40000000 | table
    return 0x40800000 | low


def sfparecip(vc, vb, mod1):
    """SFPARECIP (Blackhole): approximate ``1/x`` (RECIP) or ``e**|x|`` (EXP) by table lookup
    on 7 mantissa bits, computed on ``|VC|`` with VC's sign put back on the result (so EXP of a
    negative x gives ``-e**|x|``). COND_RECIP: where ``VB`` (``Imm12 & 15``) is negative as
    int32, ``approx_recip(|VC|)`` without the sign; elsewhere VC unchanged."""
    sign, a = vc & SIGN, vc & MAGNITUDE
    if mod1 == ARECIP_RECIP:
        return sign | approx_recip(a)
    if mod1 == ARECIP_COND_RECIP:
        return approx_recip(a) if vb & SIGN else vc
    return sign | approx_exp(a)


SFPARECIP = Semantics("SFPARECIP", sfparecip, (VC, lambda i: i.imm12 & 15), ("mod1",))


# --------------------------------------------------------------------------------------------
# Exact rules (sfpu_sim.isa.exact_rules)
# --------------------------------------------------------------------------------------------

def stochrnd_exact(i, o: Operands) -> Result:
    """SFP_STOCH_RND FP32 -> FP16A / FP16B keeps the unrounded operand; the integer modes
    give integers."""
    return Result(ROUNDING, o.twin(i.vc)) if i.mod1 & 7 in (0, 1) else Result(DEVICE)


def _reciprocal(magnitude):
    """``1/|x|``, with 1/0 = +Inf (mpmath would raise)."""
    return mpmath.inf if magnitude == 0 else 1 / magnitude


def arecip_exact(i, o: Operands) -> Result:
    """SFPARECIP (Blackhole): RECIP is ``1/|VC|`` with VC's sign (1/0 is Inf); COND_RECIP
    ``1/|VC|`` where VB is negative (the device's test), else VC; EXP is ``e**|VC|`` with VC's
    sign."""
    x = o.twin(i.vc)
    if i.mod1 == ARECIP_RECIP:
        return Result(APPROXIMATE, x.magnitude().function(_reciprocal).with_sign(o.sign(i.vc)))
    if i.mod1 == ARECIP_COND_RECIP:
        if np.uint32(o.bits(i.imm12 & 15)).view(np.int32) < 0:
            return Result(APPROXIMATE, x.magnitude().function(_reciprocal))
        return Result(EXACT, x)
    return Result(APPROXIMATE, x.magnitude().function(mpmath.exp).with_sign(o.sign(i.vc)))


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

def _stochrnd_operands(round_mode_bits: int):
    return (imm("round_mode", 21, round_mode_bits, high=round_mode_bits),
            imm("imm5", 16, 5), lreg("vb", 12), lreg("vc", 8), lreg("vd", 4), mod("mod1", 0))


def _stochrnd_reads(i):
    uses_vb = i.mod1 in (4, 5) and not i.mod1 & 8
    return frozenset({i.vc, i.vb} if uses_vb else {i.vc})


RECORDS = (
    # Every Mod1: bit 3 is the int flavour's UseImm5; the float flavours read Mod1 as bits 0-2
    # (Bits32.lua SFPSTOCHRND) and no Imm5, and tt-llk's SFPLOADMACRO exp template sets it
    # (Mod1 14, FP32_TO_UINT16).
    Opcode("SFP_STOCH_RND", 0x8E, _stochrnd_operands(1), ROUND, SFP_STOCH_RND, "mod1",
           rec.EVERY_MODE,
           rec.names("SFPSTOCHRND_MOD1", FP32_TO_FP16A=0, FP32_TO_FP16B=1, FP32_TO_UINT8=2,
                   FP32_TO_INT8=3, INT32_TO_UINT8=4, INT32_TO_INT8=5, FP32_TO_UINT16=6,
                   FP32_TO_INT16=7, USE_IMM5=8),
           reads=_stochrnd_reads, writes=rec.vd, cost_class=rec.CONVERSION,
           shadow=stochrnd_exact),
    Opcode("SFPCAST", 0x90, (lreg("vc", 8), lreg("vd", 4), mod("mod1", 0)), SIMPLE, SFPCAST,
           "mod1", frozenset({0, 1}), rec.names("SFPCAST_MOD1", RND_EVEN=0, RND_STOCH=1),
           reads=rec.vc, writes=rec.vd, cost_class=rec.CONVERSION),
)
BLACKHOLE = {
    "SFP_STOCH_RND": {"operands": _stochrnd_operands(2)},
    "SFPCAST": {"modes": frozenset(range(4)),
                "mod_names": rec.names("SFPCAST_MOD1", RND_EVEN=0, RND_STOCH=1, INT32_ABS=2,
                                     INT32_SM32=3)},
    "SFPARECIP": Opcode("SFPARECIP", 0x99, rec.imm12_format(0, 15), SIMPLE, SFPARECIP, "mod1",
                        frozenset({0, 1, 2}),
                        rec.names("SFPARECIP_MOD1", RECIP=0, COND_RECIP=1, EXP=2),
                        reads=lambda i: frozenset({i.vc, i.imm12 & 15} if i.mod1 == 1
                                                  else {i.vc}),
                        writes=rec.vd, cost_class=rec.CONVERSION, shadow=arecip_exact),
}
