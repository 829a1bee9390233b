"""The shadow of each instruction: what it computes as a real function of its operands,
applied exactly, beside what the device computed.

Owns: one short rule per instruction family, reading like its documented model with the
rounding taken out, and the kind each rule gives its result (:data:`KINDS`). A rule sees one
lane through :class:`Operands` (twins of the registers it reads, the device's bits, what the
recorder probed before the step) and returns a :class:`Result`. Knows nothing of machines or
lanes beyond that view: the decisions (lane enables, which LUT segment, whether SFPSWAP
swapped) are the device's, read from the run.

Instructions without a rule here (integer and bit-field operations, conversions from
integers, lane movement, SFPLOADI, SFPCONFIG, ...) give results that are not a real function
of their operands; the shadow takes the device value and marks it ``device``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import mpmath
import numpy as np

from sfpu_sim.isa.arith import INDIRECT_VA, NEGATE_VA, NEGATE_VC
from sfpu_sim.isa.convert import ARECIP_COND_RECIP, ARECIP_RECIP
from sfpu_sim.isa.lut import SGN_RETAIN
from sfpu_sim.shadow.exact import Sign, Twin, constant

EXACT = "exact"
SELECT = "select"
ROUNDING = "rounding"
APPROXIMATE = "approximate"
LOAD = "load"
STORE = "store"
DEVICE = "device"

KINDS = {
    EXACT: "real arithmetic (multiply-add, LUT segment A*|x|+B, 2^k scaling, sign operations) "
           "applied exactly to the shadow operands: no rounding",
    SELECT: "SFPSWAP: the shadows move as the device's values moved (the device's decision)",
    ROUNDING: "a rounding instruction (SFP_STOCH_RND FP32 -> FP16A/FP16B): the shadow is its "
              "operand, unrounded; the rounding shows as this instruction's own error",
    APPROXIMATE: "an approximate instruction (SFPARECIP): the shadow is the exact function it "
                 "stands for (1/x, e^|x|), evaluated at 320 bits; its own error is the "
                 "table's approximation",
    LOAD: "SFPLOAD: the input as loaded (exact), or the shadow of what the kernel stored there",
    STORE: "SFPSTORE: Dst keeps the shadow unrounded; the store's conversion is its own error",
    DEVICE: "not a real function of its operands (integer, bit-field, constant, conversion "
            "from integer, lane movement): the shadow takes the device value",
}


@dataclass(frozen=True)
class Result:
    """A rule's outcome: ``kind`` (a key of :data:`KINDS`) and the twin written to every
    register the device wrote, or a dict register -> twin (registers missing from it take
    the device value); ``moved``: for a dict, register -> the register its value came from
    (what it depends on, rather than on everything the rule read)."""
    kind: str
    value: Twin | dict | None = None
    moved: dict | None = None


class Operands:
    """What a rule may read for one lane (implemented by :mod:`sfpu_sim.shadow.recording`)."""

    def twin(self, reg: int) -> Twin:
        """Register ``reg`` before the step: its shadow and the device's value; the read is
        an operand (its error counts towards this instruction's error growth)."""
        raise NotImplementedError

    def sign(self, reg: int) -> Sign:
        """Whether register ``reg`` is negative, for shadow and device (a dependency, not an
        operand whose size matters)."""
        raise NotImplementedError

    def bits(self, reg: int) -> int:
        """The device's bits of register ``reg`` before the step (for the device's decisions)."""
        raise NotImplementedError

    def probed(self):
        """What the recorder probed before the step, for this lane (see :data:`PROBES`)."""
        raise NotImplementedError


def _imm16_float(imm16: int) -> Twin:
    return constant(imm16 << 16)


# --------------------------------------------------------------------------------------------
# Rules, one per family
# --------------------------------------------------------------------------------------------

def mad(i, o: Operands) -> Result:
    """SFPMAD / SFPADD / SFPMUL: ``VA * VB + VC`` exactly (VA indirect through L7, and
    Blackhole's NEGATE_VA / NEGATE_VC, as the device)."""
    va = o.bits(7) & 15 if i.mod1 & INDIRECT_VA else i.va
    a, b, c = o.twin(va), o.twin(i.vb), o.twin(i.vc)
    if i.mod1 & NEGATE_VA:
        a = -a
    if i.mod1 & NEGATE_VC:
        c = -c
    return Result(EXACT, a * b + c)


def addi(i, o: Operands) -> Result:
    """SFPADDI: ``bf16(Imm16) + VD`` exactly."""
    c = o.twin(i.vd)
    return Result(EXACT, _imm16_float(i.imm16) + (-c if i.mod1 & NEGATE_VC else c))


def muli(i, o: Operands) -> Result:
    """SFPMULI: ``bf16(Imm16) * VD`` exactly."""
    c = o.twin(i.vd)
    return Result(EXACT, _imm16_float(i.imm16) * (-c if i.mod1 & NEGATE_VC else c))


def lut(i, o: Operands) -> Result:
    """SFPLUT / SFPLUTFP32: ``A * |L3| + B`` exactly, with the segment's table entries the
    device picked; SGN_RETAIN puts L3's sign on the result."""
    slope, intercept = o.probed()
    x = o.twin(3)
    result = constant(slope) * x.magnitude() + constant(intercept)
    mode = i.mod0 if i.mnemonic == "SFPLUT" else i.mod1
    return Result(EXACT, result.with_sign(o.sign(3)) if mode & SGN_RETAIN else result)


def divp2(i, o: Operands) -> Result:
    """SFPDIVP2: ADD scales by ``2**Imm`` exactly; setting the exponent is a bit operation."""
    if not i.mod1 & 1:
        return Result(DEVICE)
    return Result(EXACT, o.twin(i.vc).scaled(i.imm12))


def sfpabs(i, o: Operands) -> Result:
    """SFPABS FLOAT: ``|VC|``; INT is integer arithmetic."""
    return Result(EXACT, o.twin(i.vc).magnitude()) if i.mod1 & 1 else Result(DEVICE)


def mov(i, o: Operands) -> Result:
    """SFPMOV: ``VC`` or ``-VC``; the special sources are machine state."""
    if i.mod1 & 8:
        return Result(DEVICE)
    value = o.twin(i.vc)
    return Result(EXACT, -value if i.mod1 & 1 else value)


def setsgn(i, o: Operands) -> Result:
    """SFPSETSGN: ``|VC|`` with the sign Imm1 or VD's."""
    sign = bool(i.imm12 & 1)
    negative = Sign(sign, sign) if i.mod1 & 1 else o.sign(i.vd)
    return Result(EXACT, o.twin(i.vc).with_sign(negative))


def swap(i, o: Operands) -> Result:
    """SFPSWAP: where the device swapped, VC gets VD's value and VD gets VC's; the shadows
    move with them (the device's min/max decision, not the shadows')."""
    return Result(SELECT, {i.vc: o.twin(i.vd), i.vd: o.twin(i.vc)}, {i.vc: i.vd, i.vd: i.vc})


def stochrnd(i, o: Operands) -> Result:
    """SFP_STOCH_RND FP32 -> FP16A / FP16B keeps the unrounded operand; the integer modes
    give integers."""
    return Result(ROUNDING, o.twin(i.vc)) if i.mod1 & 7 in (0, 1) else Result(DEVICE)


def _reciprocal(magnitude):
    """``1/|x|``, with 1/0 = +Inf (mpmath would raise)."""
    return mpmath.inf if magnitude == 0 else 1 / magnitude


def arecip(i, o: Operands) -> Result:
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


def load(i, o: Operands) -> Result:
    """SFPLOAD: in a float format, the shadow of what the kernel stored at that Dst address
    in this lane (probed: a twin); otherwise (None) the value loaded, an input: exact."""
    return Result(LOAD, o.probed())


def store(i, o: Operands) -> Result:
    """SFPSTORE: Dst keeps VD's shadow; the device's conversion is the store's own error."""
    return Result(STORE, o.twin(i.vd))


def device_value(i, o: Operands) -> Result:
    """Every instruction without a rule: the shadow takes the device value."""
    return Result(DEVICE)


RULES: dict[str, Callable] = {
    "SFPMAD": mad, "SFPADD": mad, "SFPMUL": mad, "SFPADDI": addi, "SFPMULI": muli,
    "SFPLUT": lut, "SFPLUTFP32": lut, "SFPDIVP2": divp2, "SFPABS": sfpabs, "SFPMOV": mov,
    "SFPSETSGN": setsgn, "SFPSWAP": swap, "SFP_STOCH_RND": stochrnd, "SFPARECIP": arecip,
    "SFPLOAD": load, "SFPSTORE": store,
}


def rule(mnemonic: str) -> Callable:
    """The rule of an instruction; the device value for those without one."""
    return RULES.get(mnemonic, device_value)
