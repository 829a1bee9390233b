"""Piecewise-linear lookup family: SFPLUT and SFPLUTFP32 (both chips).

MAD sub-unit, 2-cycle latency. Both pick a (slope, intercept) pair by the range ``|LReg[3]|``
falls in and evaluate ``slope * |LReg[3]| + intercept`` on the chip's multiply-add datapath
(the ``multiply_add`` unit, as SFPMAD). The range tests are integer compares on the magnitude
bits, which agree with the pages' float compares for every input (a NaN lands in the last range, a
denormal in the first).

Sources: tt-isa-documentation ``{WormholeB0,BlackholeA0}/TensixTile/TensixCoprocessor/``
``SFPLUT.md`` (revision 48798544), ``SFPLUTFP32.md`` (revision 13547104).
"""
from __future__ import annotations

from sfpu_sim.isa import records as rec
from sfpu_sim.isa.arith import destination
from sfpu_sim.isa.exact_rules import EXACT, Operands, Result, constant
from sfpu_sim.isa.lanewise import Semantics, helper, lanes
from sfpu_sim.isa.spec import MAD, Opcode, imm, lreg, mod

SIGN = 0x80000000
MAGNITUDE = 0x7FFFFFFF

# FP32 bit patterns of the range boundaries
HALF, ONE, ONE_AND_HALF, TWO, THREE, FOUR = (
    0x3F000000, 0x3F800000, 0x3FC00000, 0x40000000, 0x40400000, 0x40800000)

# Modifier bits (SFPLUT's Mod0 and SFPLUTFP32's Mod1 share SGN_RETAIN and INDIRECT_VD)
SGN_RETAIN, INDIRECT_VD = 4, 8
FP16_6ENTRY_TABLE1, FP16_6ENTRY_TABLE2, FP16_3ENTRY_TABLE = 2, 3, 10


@helper
def lut8_to_fp32(code):
    """SFPLUT's 8-bit coefficient code -> FP32 pattern: ``+-(1 + m/16) * 2**-k`` from sign
    bit 7, ``k`` = bits 6..4, ``m`` = bits 3..0; the code 0xFF is the only zero."""
    x = code & 0xFF
    if x == 0xFF:
        return 0
    return ((x >> 7) << 31) | ((127 - ((x >> 4) & 7)) << 23) | ((x & 0xF) << 19)


@helper
def lut16_to_fp32(h):
    """SFPLUTFP32's reading of a 16-bit table entry: as FLOATA, except that exponent 31 gives
    FP32 exponent 0 (a zero or denormal pattern, i.e. zero to the FMA): the way to encode 0."""
    h = h & 0xFFFF
    e = (h >> 10) & 0x1F
    return ((h & 0x8000) << 16) | ((0 if e == 31 else e + 112) << 23) | ((h & 0x3FF) << 13)


@helper
def _pick(b, low, middle, high):
    """The table entry for ``b`` = ``|L3|``'s bits: < 1.0, < 2.0, else."""
    return low if b < ONE else (middle if b < TWO else high)


@helper
def _evaluate(slope, intercept, l3, mod, multiply_add):
    """``slope * |L3| + intercept`` on the chip's multiply-add; SGN_RETAIN copies L3's sign
    onto the result."""
    d = multiply_add(slope, l3 & MAGNITUDE, intercept)
    return (d & MAGNITUDE) | (l3 & SIGN) if mod & SGN_RETAIN else d


@helper
def sfplut_slope(l0, l1, l2, l3):
    """SFPLUT's slope: bits 15..8 of the coefficient word L0, L1 or L2 by the range of
    ``|L3|`` (< 1, < 2, else), an 8-bit code (:func:`lut8_to_fp32`)."""
    return lut8_to_fp32(_pick(l3 & MAGNITUDE, l0, l1, l2) >> 8)


@helper
def sfplut_intercept(l0, l1, l2, l3):
    """SFPLUT's intercept: bits 7..0 of the same word."""
    return lut8_to_fp32(_pick(l3 & MAGNITUDE, l0, l1, l2))


def sfplut(l0, l1, l2, l3, mod0, multiply_add):
    """SFPLUT: ``slope * |L3| + intercept`` with :func:`sfplut_slope`, :func:`sfplut_intercept`.
    Mod0: SGN_RETAIN (4), INDIRECT_VD (8)."""
    return _evaluate(sfplut_slope(l0, l1, l2, l3), sfplut_intercept(l0, l1, l2, l3), l3, mod0,
                     multiply_add)


@helper
def _fp16_shift(b, mod1):
    """Which half of a 16-bit-entry word SFPLUTFP32 reads: with the 6-entry tables the high
    half for ``|L3|`` in [0.5, 1), [1.5, 2) and from the cut (3.0, or 4.0 with bit 0) on."""
    if mod1 & FP16_3ENTRY_TABLE == FP16_3ENTRY_TABLE:
        return 16
    cut = FOUR if mod1 & FP16_6ENTRY_TABLE2 == FP16_6ENTRY_TABLE2 else THREE
    upper = HALF <= b < ONE or ONE_AND_HALF <= b < TWO or b >= cut
    return 16 if upper else 0


@helper
def sfplutfp32_slope(l0, l1, l2, l3, l4, l5, l6, mod1):
    """SFPLUTFP32's slope, by Mod1 (range index ``i`` = 0, 1, 2 for ``|L3|`` < 1, < 2, else):

    * bit 1 clear: FP32 3-entry table, slope ``L[i]``, intercept ``L[4 + i]``;
    * ``Mod1 & 10 == 10``: FP16 3-entry table, slope ``L[i] >> 16``, intercept the low half
      of ``L[i]``. The mode needs bit 3, which is also INDIRECT_VD, so it always writes
      ``L[L7 & 15]`` (documented hardware bug);
    * bit 1 set, bit 3 clear: FP16 6-entry table, slope ``L[i]``, intercept ``L[4 + i]``, the
      low half for ``|L3|`` in [0, 0.5), [1, 1.5), [2, cut), the high half above, with cut
      3.0 (bit 0 clear) or 4.0 (bit 0 set).

    Blackhole's Mod1Mirror field only feeds the stall logic and is ignored here."""
    b = l3 & MAGNITUDE
    word = _pick(b, l0, l1, l2)
    if not mod1 & FP16_6ENTRY_TABLE1:
        return word
    return lut16_to_fp32(word >> _fp16_shift(b, mod1))


@helper
def sfplutfp32_intercept(l0, l1, l2, l3, l4, l5, l6, mod1):
    """SFPLUTFP32's intercept (see :func:`sfplutfp32_slope`)."""
    b = l3 & MAGNITUDE
    if not mod1 & FP16_6ENTRY_TABLE1:
        return _pick(b, l4, l5, l6)
    if mod1 & FP16_3ENTRY_TABLE == FP16_3ENTRY_TABLE:
        return lut16_to_fp32(_pick(b, l0, l1, l2))
    return lut16_to_fp32(_pick(b, l4, l5, l6) >> _fp16_shift(b, mod1))


def sfplutfp32(l0, l1, l2, l3, l4, l5, l6, mod1, multiply_add):
    """SFPLUTFP32: ``slope * |L3| + intercept`` with :func:`sfplutfp32_slope` and
    :func:`sfplutfp32_intercept`; bit 2 SGN_RETAIN copies L3's sign onto the result."""
    return _evaluate(sfplutfp32_slope(l0, l1, l2, l3, l4, l5, l6, mod1),
                     sfplutfp32_intercept(l0, l1, l2, l3, l4, l5, l6, mod1), l3, mod1,
                     multiply_add)


def _lut_registers(mode_field: str, count: int):
    """The Machine's operands L0.. and destination: VD, or per lane ``L7 & 15`` with
    INDIRECT_VD (unless VD = 16)."""
    def registers(m, i):
        return list(range(count)), destination(m, i, i.values[mode_field])
    return registers


def _fixed(register: int):
    return lambda i: register


_L = tuple(_fixed(r) for r in range(7))
SFPLUT = Semantics("SFPLUT", sfplut, _L[:4], ("mod0",), units=("multiply_add",),
                   registers=_lut_registers("mod0", 4))
SFPLUTFP32 = Semantics("SFPLUTFP32", sfplutfp32, _L, ("mod1",), units=("multiply_add",),
                       registers=_lut_registers("mod1", 7))


def sfplut_entries(m, i):
    """(slope, intercept) FP32 patterns SFPLUT uses in each lane (what the shadow records)."""
    registers = [m.read(r) for r in range(4)]
    return lanes(sfplut_slope, *registers), lanes(sfplut_intercept, *registers)


def sfplutfp32_entries(m, i):
    """(slope, intercept) FP32 patterns SFPLUTFP32 uses in each lane."""
    registers = [m.read(r) for r in range(7)]
    return (lanes(sfplutfp32_slope, *registers, i.mod1),
            lanes(sfplutfp32_intercept, *registers, i.mod1))


# --------------------------------------------------------------------------------------------
# Exact rules (sfpu_sim.isa.exact_rules)
# --------------------------------------------------------------------------------------------

def lut_exact(i, o: Operands) -> Result:
    """SFPLUT / SFPLUTFP32: ``A * |L3| + B`` exactly, with the segment's table entries the
    device picked (:func:`sfplut_entries`, probed); SGN_RETAIN puts L3's sign on the result."""
    slope, intercept = o.probed()
    x = o.twin(3)
    result = constant(slope) * x.magnitude() + constant(intercept)
    mode = i.mod0 if i.mnemonic == "SFPLUT" else i.mod1
    return Result(EXACT, result.with_sign(o.sign(3)) if mode & SGN_RETAIN else result)


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

RECORDS = (
    Opcode("SFPLUT", 0x73, (lreg("vd", 20), mod("mod0", 16),
                            imm("dest_reg_addr", 0, 16, high=0, default=0)),
           MAD, SFPLUT, "mod0", frozenset({0, 4, 8, 12}),
           rec.names("SFPLUT_MOD0", SGN_RETAIN=4, INDIRECT_VD=8),
           reads=lambda i: frozenset({0, 1, 2, 3} | ({7} if i.mod0 & 8 else set())),
           writes=rec.indirect_vd_writes("mod0"), cost_class=rec.LUT, shadow=lut_exact),
    Opcode("SFPLUTFP32", 0x95, (lreg("vd", 4), mod("mod1", 0)), MAD, SFPLUTFP32, "mod1",
           rec.EVERY_MODE,
           rec.names("SFPLUTFP32_MOD1", FP32_3ENTRY_TABLE=0, FP16_6ENTRY_TABLE1=2,
                   FP16_6ENTRY_TABLE2=3, SGN_RETAIN=4, INDIRECT_VD=8, FP16_3ENTRY_TABLE=10),
           reads=lambda i: frozenset(range(8)), writes=rec.indirect_vd_writes("mod1"),
           cost_class=rec.LUT, shadow=lut_exact),
)
# Blackhole's SFPLUTFP32 repeats mod1 in bits 16-19.
BLACKHOLE = {"SFPLUTFP32": {"operands": (lreg("vd", 4), mod("mod1", 0),
                                         mod("mod1_mirror", 16, default=0))}}
