"""What an instruction's exact (shadow) rule is: the instruction as a real function of its
operands, applied without rounding, beside what the device computed.

Owns: the vocabulary of the rules each record holds (``Opcode.shadow``): the view a rule reads
one lane through (:class:`Operands`), what it returns (:class:`Result`) and the kinds of
result (:data:`KINDS`). The rules themselves live beside their instructions, in the family
modules of :mod:`sfpu_sim.isa`, reading like the documented model with the rounding taken
out; :mod:`sfpu_sim.shadow` runs them. A rule sees the device's decisions (lane enables, which
LUT segment, whether SFPSWAP swapped) through the view, never makes them.

An instruction without a rule (integer and bit-field operations, conversions from integers,
lane movement, SFPLOADI, SFPCONFIG, ...) gives results that are not a real function of its
operands; the shadow takes the device value and marks it ``device``.
"""
from __future__ import annotations

from dataclasses import dataclass

from sfpu_sim.isa.exact import Sign, Twin, constant

__all__ = ["APPROXIMATE", "DEVICE", "EXACT", "KINDS", "LOAD", "ROUNDING", "SELECT", "STORE",
           "Operands", "Result", "Sign", "Twin", "constant", "imm16_float"]

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
        """What the recorder probed before the step, for this lane (see
        :data:`sfpu_sim.shadow.recording.PROBES`)."""
        raise NotImplementedError


def imm16_float(imm16: int) -> Twin:
    """A BF16 immediate (SFPADDI, SFPMULI) as the exact value it stands for."""
    return constant(imm16 << 16)
