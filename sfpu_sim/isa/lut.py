"""Piecewise-linear lookup family: SFPLUT and SFPLUTFP32 (both chips).

MAD sub-unit, 2-cycle latency. Both pick a (slope, intercept) pair by the range ``|LReg[3]|``
falls in and evaluate ``slope * |LReg[3]| + intercept`` on the chip's multiply-add datapath
(``m.arch.fma``, as SFPMAD). The range tests are integer compares on the magnitude bits, which
agree with the pages' float compares for every input (a NaN lands in the last range, a
denormal in the first).

Sources: tt-isa-documentation ``{WormholeB0,BlackholeA0}/TensixTile/TensixCoprocessor/``
``SFPLUT.md`` (revision 48798544), ``SFPLUTFP32.md`` (revision 13547104); digest in
isa-reference §3.3, §3.4.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats
from sfpu_sim.isa import records as rec
from sfpu_sim.isa.arith import destination
from sfpu_sim.isa.spec import MAD, Opcode, imm, lreg, mod

SIGN = np.uint32(0x80000000)
MAGNITUDE = np.uint32(0x7FFFFFFF)

# FP32 bit patterns of the range boundaries
HALF, ONE, ONE_AND_HALF, TWO, THREE, FOUR = (np.uint32(v) for v in (
    0x3F000000, 0x3F800000, 0x3FC00000, 0x40000000, 0x40400000, 0x40800000))

# Modifier bits (SFPLUT's Mod0 and SFPLUTFP32's Mod1 share SGN_RETAIN and INDIRECT_VD)
SGN_RETAIN, INDIRECT_VD = 4, 8
FP16_6ENTRY_TABLE1, FP16_6ENTRY_TABLE2, FP16_3ENTRY_TABLE = 2, 3, 10


def lut8_to_fp32(codes) -> np.ndarray:
    """SFPLUT's 8-bit coefficient code -> FP32 pattern: ``+-(1 + m/16) * 2**-k`` from sign
    bit 7, ``k`` = bits 6..4, ``m`` = bits 3..0; the code 0xFF is the only zero."""
    x = np.asarray(codes).astype(np.uint32) & np.uint32(0xFF)
    k = (x >> np.uint32(4)) & np.uint32(7)
    value = ((x >> np.uint32(7)) << np.uint32(31)) | ((np.uint32(127) - k) << np.uint32(23)) \
        | ((x & np.uint32(0xF)) << np.uint32(19))
    return np.where(x == 0xFF, np.uint32(0), value).astype(np.uint32)


def _range_index(b):
    """0 for ``b < 1.0``, 1 for ``b < 2.0``, else 2 (``b`` = magnitude bits)."""
    return np.where(b < ONE, 0, np.where(b < TWO, 1, 2))


def _evaluate(m, i, mod, slope, intercept, l3):
    """``slope * |L3| + intercept`` on the chip's FMA; SGN_RETAIN copies L3's sign onto the
    result; the destination is VD or, with INDIRECT_VD (unless VD = 16), ``L7 & 15``."""
    d = m.arch.fma(slope, l3 & MAGNITUDE, intercept)
    if mod & SGN_RETAIN:
        d = (d & MAGNITUDE) | (l3 & SIGN)
    m.write(destination(m, i, mod), d)


def sfplut_entries(m, i):
    """(slope, intercept) FP32 patterns SFPLUT uses in each lane: the coefficient word is L0,
    L1 or L2 by the range of ``|L3|`` (< 1, < 2, else); its bits 15..8 are the slope and 7..0
    the intercept, each an 8-bit code (:func:`lut8_to_fp32`)."""
    coefficients = m.read(_range_index(m.read(3) & MAGNITUDE))
    return lut8_to_fp32(coefficients >> np.uint32(8)), lut8_to_fp32(coefficients)


def sfplut(m, i):
    """SFPLUT: ``slope * |L3| + intercept`` with the entries of :func:`sfplut_entries`.
    Mod0: SGN_RETAIN (4), INDIRECT_VD (8)."""
    _evaluate(m, i, i.mod0, *sfplut_entries(m, i), m.read(3))


def _fp16_half(m, first, index, shift):
    """The 16-bit entry ``(L[first + index] >> shift) & 0xFFFF`` as SFPLUTFP32 reads it
    (:func:`sfpu_sim.formats.lut16_to_fp32_bits`: exponent 31 encodes zero)."""
    return formats.lut16_to_fp32_bits(m.read(first + index) >> shift)


def sfplutfp32_entries(m, i):
    """(slope, intercept) FP32 patterns SFPLUTFP32 uses in each lane, by Mod1 (range index
    ``i`` = 0, 1, 2 for ``|L3|`` < 1, < 2, else):

    * bit 1 clear: FP32 3-entry table, slope ``L[i]``, intercept ``L[4 + i]``;
    * ``Mod1 & 10 == 10``: FP16 3-entry table, slope ``L[i] >> 16``, intercept the low half
      of ``L[i]``. The mode needs bit 3, which is also INDIRECT_VD, so it always writes
      ``L[L7 & 15]`` (documented hardware bug);
    * bit 1 set, bit 3 clear: FP16 6-entry table, slope ``L[i]``, intercept ``L[4 + i]``, the
      low half for ``|L3|`` in [0, 0.5), [1, 1.5), [2, cut), the high half above, with cut
      3.0 (bit 0 clear) or 4.0 (bit 0 set).

    Blackhole's Mod1Mirror field only feeds the stall logic and is ignored here."""
    b = m.read(3) & MAGNITUDE
    index = _range_index(b)
    mod1 = i.mod1
    if not mod1 & FP16_6ENTRY_TABLE1:
        slope, intercept = m.read(index), m.read(4 + index)
    elif mod1 & FP16_3ENTRY_TABLE == FP16_3ENTRY_TABLE:
        slope = _fp16_half(m, 0, index, np.uint32(16))
        intercept = _fp16_half(m, 0, index, np.uint32(0))
    else:
        cut = FOUR if mod1 & FP16_6ENTRY_TABLE2 == FP16_6ENTRY_TABLE2 else THREE
        upper = ((b >= HALF) & (b < ONE)) | ((b >= ONE_AND_HALF) & (b < TWO)) | (b >= cut)
        shift = np.where(upper, np.uint32(16), np.uint32(0))
        slope = _fp16_half(m, 0, index, shift)
        intercept = _fp16_half(m, 4, index, shift)
    return slope, intercept


def sfplutfp32(m, i):
    """SFPLUTFP32: ``slope * |L3| + intercept`` with the entries of
    :func:`sfplutfp32_entries`; bit 2 SGN_RETAIN copies L3's sign onto the result."""
    _evaluate(m, i, i.mod1, *sfplutfp32_entries(m, i), m.read(3))


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

RECORDS = (
    Opcode("SFPLUT", 0x73, (lreg("vd", 20), mod("mod0", 16),
                            imm("dest_reg_addr", 0, 16, high=0, default=0)),
           MAD, sfplut, "mod0", frozenset({0, 4, 8, 12}),
           rec.names("SFPLUT_MOD0", SGN_RETAIN=4, INDIRECT_VD=8),
           reads=lambda i: frozenset({0, 1, 2, 3} | ({7} if i.mod0 & 8 else set())),
           writes=rec.indirect_vd_writes("mod0"), cost_class=rec.LUT),
    Opcode("SFPLUTFP32", 0x95, (lreg("vd", 4), mod("mod1", 0)), MAD, sfplutfp32, "mod1",
           rec.EVERY_MODE,
           rec.names("SFPLUTFP32_MOD1", FP32_3ENTRY_TABLE=0, FP16_6ENTRY_TABLE1=2,
                   FP16_6ENTRY_TABLE2=3, SGN_RETAIN=4, INDIRECT_VD=8, FP16_3ENTRY_TABLE=10),
           reads=lambda i: frozenset(range(8)), writes=rec.indirect_vd_writes("mod1"),
           cost_class=rec.LUT),
)
# Blackhole's SFPLUTFP32 repeats mod1 in bits 16-19.
BLACKHOLE = {"SFPLUTFP32": {"operands": (lreg("vd", 4), mod("mod1", 0),
                                         mod("mod1_mirror", 16, default=0))}}
