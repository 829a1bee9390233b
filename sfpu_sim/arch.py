"""One immutable description per chip: ``"wormhole"`` (Wormhole B0) and ``"blackhole"``
(Blackhole A0).

Owns chip data only: constant registers and their reset values, the FMA model, the behaviour
differences the instructions consult (as data, never as ``if arch ==``), the CC stack depth,
the scheduling hazard rules, and the chip's instruction table (assembled by
:func:`sfpu_sim.isa.table.table` from the family modules' records). Knows nothing of
execution.

Sources: tenstorrent/tt-isa-documentation WormholeB0/ and BlackholeA0/
TensixTile/TensixCoprocessor/*.md (2025-06 to 2025-09 revisions: ``LReg.md``, ``VectorUnit.md``
and the instruction pages) and ``Miscellaneous/FMA/`` (``README.md``, ``fma.c``); macro argument
orders from tenstorrent/tt-llk ``ckernel_ops.h`` (2026-04-11).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Callable, Mapping

import numpy as np

from sfpu_sim import fma
from sfpu_sim.isa.spec import MAD, Instruction, NotOnChip, Opcode
from sfpu_sim.isa.table import table as instruction_table

NEGATIVE_ZERO, ONE = np.uint32(0x80000000), np.uint32(0x3F800000)


@dataclass(frozen=True, eq=False)
class Arch:
    """A chip. See the module docstring; fields are documented where they are set below."""
    name: str
    title: str
    fma_rules: fma.FmaRules
    constant_lregs: Mapping[int, int]
    opcodes: Mapping[str, Opcode]
    cc_stack_depth: int
    # Behaviour differences consulted by instructions (the WormholeB0 vs BlackholeA0 pages)
    load_int8_magnitude_bits: int        # SFPLOAD INT8: 7 magnitude bits (WH) or 8 (BH)
    sign_magnitude_conversions: bool     # SFPLOAD/SFPSTORE INT32_SM and INT8_COMP convert (WH)
    int32_all_uses_stack_pointer: bool   # INT32_ALL addressing via the Sp RWC (BH)
    shflshr1_fills_stale: bool           # SFPSHFT2 SHFLSHR1 fills lanes 0/8/16/24 stale (WH bug)
    popc_full_stack_bug: bool            # SFPPOPC mod1 != 0 on a full stack clobbers bottom (WH)
    shuffles_stall: bool                 # SFPSHFT2 modes 2-4 stall the next cycle (BH; WH: NOP)
    interlocks_mad: bool                 # a read of an SFPMAD-class result stalls (BH; WH: NOP)
    hazard_rule: Callable
    # The binary32 host platforms of sfpu_sim.determinism run the chips' instruction streams
    # with their own arithmetic and conversions; both chips keep these defaults.
    fused: bool = True                   # SFPMAD rounds once (False: the product first, alone)
    mul_is_plain_product: bool = False   # SFPMUL reads a +0 addend as -0: a*b as a host has it
    bf16_store_rounds: bool = False      # SFPSTORE FP32 -> BF16 rounds to nearest even (else
    #                                      truncates, as the chips do)
    fp32_store_flushes: bool = True      # SFPSTORE FP32 -> FP32 flushes denormals (else keeps)

    @property
    def by_opcode(self) -> Mapping[int, Opcode]:
        return _by_opcode(self)

    @property
    def mad_negates(self) -> bool:
        """Whether SFPMAD can negate its product and addend (NEGATE_VA/VC: Blackhole), which
        decides how sfpi's compiler lowers a subtraction (:mod:`sfpu_sim.sfpi.passes`)."""
        return "NEGATE_VA" in self.opcode("SFPMAD").mod_names

    def fma(self, a, b, c):
        """``a*b + c`` (FP32 patterns) as the platform's multiply-add computes it."""
        if not self.fused:
            a, b = fma.fma_with(self.fma_rules, a, b, NEGATIVE_ZERO), ONE
        return fma.fma_with(self.fma_rules, a, b, c)

    def multiply(self, a, b, c):
        """SFPMUL's ``a*b + c`` (sfpi passes L9 = +0 as c): on the chips an ordinary
        multiply-add, so a -0 product plus +0 is +0; a host's plain product keeps its sign."""
        if self.mul_is_plain_product:
            c = np.where(np.asarray(c, dtype=np.uint32) == 0, NEGATIVE_ZERO, c)
        return self.fma(a, b, c)

    def hazard(self, previous: Instruction, current: Instruction) -> str | None:
        """Why ``current`` may not follow ``previous`` directly on this chip, or None."""
        return self.hazard_rule(previous, current)

    def opcode(self, mnemonic: str) -> Opcode:
        try:
            return self.opcodes[mnemonic]
        except KeyError:
            raise NotOnChip(f"{mnemonic} does not exist on {self.title}") from None

    def __repr__(self) -> str:
        return f"Arch({self.name!r})"


@cache
def _by_opcode(arch: Arch) -> Mapping[int, Opcode]:
    return {op.opcode: op for op in arch.opcodes.values()}


# --------------------------------------------------------------------------------------------
# Hazards (VectorUnit.md and the instruction pages' "Instruction scheduling" sections)
# --------------------------------------------------------------------------------------------

_AFTER_SHUFFLE_FORBIDDEN = frozenset({
    "SFPABS", "SFPAND", "SFPCAST", "SFPDIVP2", "SFPEXEXP", "SFPEXMAN", "SFPIADD", "SFPLZ",
    "SFPMOV", "SFPNOT", "SFPOR", "SFPSETEXP", "SFPSETMAN", "SFPSETSGN", "SFPSHFT", "SFPXOR",
    "SFP_STOCH_RND"})


def _regs_text(regs) -> str:
    return ", ".join(f"L{r}" for r in sorted(regs))


def _wormhole_hazard(previous: Instruction, current: Instruction) -> str | None:
    """Wormhole interlocks nothing of the MAD class and of SFPSHFT2's shuffles."""
    if previous.op.unit == MAD:
        clash = previous.op.writes(previous) & current.op.reads(current)
        if clash:
            return (f"reads {_regs_text(clash)} written by the directly preceding "
                    f"{previous.mnemonic}, whose result Wormhole does not interlock "
                    f"(insert an SFPNOP)")
    if previous.mnemonic == "SFPSHFT2" and previous.mod1 in (2, 3, 4):
        if current.mnemonic in _AFTER_SHUFFLE_FORBIDDEN or (
                current.mnemonic == "SFPSHFT2" and current.mod1 in (0, 1, 5, 6)):
            return f"{current.mnemonic} may not directly follow an SFPSHFT2 shuffle"
        if previous.mod1 == 2:
            clash = current.op.reads(current) & {0, 1, 2, 3}
            clash |= current.op.writes(current) & {1, 2, 3}
        else:
            clash = current.op.reads(current) & ({previous.vd} if previous.vd < 8 else set())
        if clash:
            return (f"uses {_regs_text(clash)} in the cycle after an SFPSHFT2 shuffle "
                    f"(insert an SFPNOP)")
    return None


def _blackhole_hazard(previous: Instruction, current: Instruction) -> str | None:
    """Blackhole interlocks MAD-class results except through its documented holes."""
    if previous.op.unit != MAD:
        return None
    written = previous.op.writes(previous)
    m, mode = current.mnemonic, current.get("mod1")
    if m in ("SFPAND", "SFPOR") and mode & 1:
        unguarded = {current.imm12 & 15}
    elif m == "SFPIADD" and not mode & 1 or m == "SFPSHFT" and not mode & 4:
        unguarded = {current.vd}
    elif m == "SFPCONFIG":
        unguarded = {0}
    elif m == "SFPSWAP" and mode != 0:
        unguarded = {current.vc, current.vd}
    elif m == "SFPSHFT2" and mode in (2, 3, 4):
        unguarded = set(current.op.reads(current))
    elif m == "SFPSHFT2" and mode in (5, 6):
        unguarded = {current.imm12 & 15}
    else:
        return None
    clash = written & unguarded
    if clash:
        return (f"{m} reads {_regs_text(clash)} through an operand Blackhole's interlock does "
                f"not cover, right after the {previous.mnemonic} that writes it "
                f"(insert an SFPNOP)")
    return None


# --------------------------------------------------------------------------------------------
# The chips
# --------------------------------------------------------------------------------------------

# LReg 8-10 are fixed; 11-14 are programmable, at the values SFPCONFIG's IMM16_IS_VALUE loads
# (and ttsim's reset values); 15 holds 2 x lane id (set by the machine). LReg[8] = 0.8373 to
# nearest FP32; LReg[12] = 1/512 per the newest revisions (SFPCONFIG.md; older ones: 1/65536).
CONSTANT_LREGS = {8: 0x3F56594B, 9: 0x00000000, 10: 0x3F800000, 11: 0xBF800000,
                  12: 0x3B000000, 13: 0xBF2CC4C7, 14: 0xBEB08FF9}

WORMHOLE = Arch(
    name="wormhole", title="Wormhole B0", fma_rules=fma.WORMHOLE,
    constant_lregs=CONSTANT_LREGS, opcodes=instruction_table("wormhole"),
    cc_stack_depth=8, load_int8_magnitude_bits=7, sign_magnitude_conversions=True,
    int32_all_uses_stack_pointer=False,
    shflshr1_fills_stale=True, popc_full_stack_bug=True, shuffles_stall=False,
    interlocks_mad=False, hazard_rule=_wormhole_hazard)

BLACKHOLE = Arch(
    name="blackhole", title="Blackhole A0", fma_rules=fma.BLACKHOLE,
    constant_lregs=CONSTANT_LREGS, opcodes=instruction_table("blackhole"),
    cc_stack_depth=8, load_int8_magnitude_bits=8, sign_magnitude_conversions=False,
    int32_all_uses_stack_pointer=True,
    shflshr1_fills_stale=False, popc_full_stack_bug=False, shuffles_stall=True,
    interlocks_mad=True, hazard_rule=_blackhole_hazard)

ARCHES = {"wormhole": WORMHOLE, "blackhole": BLACKHOLE}


class UnknownArch(NotOnChip):
    pass


def get_arch(name: str) -> Arch:
    try:
        return ARCHES[name]
    except KeyError:
        raise UnknownArch(f"unknown arch {name!r} (choose from: {', '.join(ARCHES)})") from None
