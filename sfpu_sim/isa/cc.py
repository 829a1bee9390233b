"""Condition-code (predication) instructions: SFPSETCC, SFPENCC, SFPPUSHC, SFPPOPC, SFPCOMPC
(both chips) and SFPGT, SFPLE (Blackhole); also :func:`smag_less`, the sign-magnitude total
order SFPGT/SFPLE share with SFPSWAP.

Simple sub-unit, 1 cycle. They read and write the predication state the machine holds
(``m.cc``: LaneFlags per lane, one UseLaneFlagsForLaneEnable bool, the stack of (flags, enable)
pairs); they know nothing of what a kernel computes. tt-isa-documentation WormholeB0
``SFPSETCC.md``, ``SFPENCC.md``, ``SFPPUSHC.md``, ``SFPPOPC.md``, ``SFPCOMPC.md`` (revision
39304719, shared by Blackhole), BlackholeA0 ``SFPENCC.md`` (13547104), ``SFPPUSHC.md``,
``SFPPOPC.md`` (f7fda211), ``SFPGT.md``, ``SFPLE.md`` (585749d1); digest in isa-reference §1.3,
§3.12, §4.2, §4.3.

Lane gating: SFPSETCC and the VD / LaneFlags writes of SFPGT/SFPLE obey LaneEnabled; SFPENCC,
SFPPUSHC, SFPPOPC, SFPCOMPC and the stack mutation of SFPGT/SFPLE act in every lane the
instruction acts in at all (``m.active``: the VD >= 12 backdoor rule), whatever LaneFlags
and ROW_MASK say.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim.isa import records as rec
from sfpu_sim.isa.lanewise import VC, Semantics
from sfpu_sim.isa.spec import SIMPLE, Opcode, UndefinedBehaviour, Unsupported, operand_vb

MAGNITUDE = np.uint32(0x7FFFFFFF)


def smag_less(c, d) -> np.ndarray:
    """Per lane, whether ``c < d`` with both read as sign-magnitude int32: negative patterns
    have their magnitude bits inverted, then the keys compare as two's complement int32
    (SFPGT.md ``SignMagIsSmaller``). On FP32 bits this is the total order
    -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN."""
    def key(v):
        v = np.asarray(v, dtype=np.uint32)
        return (v ^ ((v >> np.uint32(31)) * MAGNITUDE)).view(np.int32)
    return key(c) < key(d)


def bool_op(mod1: int, a, b):
    """``BooleanOp(Mod1, A, B)`` of SFPPUSHC.md / SFPPOPC.md for mod1 1..12."""
    return {1: lambda: b, 2: lambda: ~b, 3: lambda: a & b, 4: lambda: a | b,
            5: lambda: a & ~b, 6: lambda: a | ~b, 7: lambda: ~a & b, 8: lambda: ~a | b,
            9: lambda: ~a & ~b, 10: lambda: ~a | ~b, 11: lambda: a ^ b,
            12: lambda: ~(a ^ b)}[mod1]()


def _acts_on_enable(m, mnemonic: str) -> bool:
    """Whether an instruction that changes UseLaneFlagsForLaneEnable or the stack acts at all:
    True in every lane, False in none. The machine keeps one enable bool and one stack depth
    for all lanes, so acting in some lanes only (VD >= 12 with DISABLE_BACKDOOR_LOAD set in
    some lanes) cannot be represented."""
    if m.active.all():
        return True
    if not m.active.any():
        return False
    raise Unsupported(f"{mnemonic} with VD >= 12 acting in some lanes only (DISABLE_BACKDOOR_LOAD "
                      f"differs between lanes): per-lane CC enable and stack are not modelled")


# --------------------------------------------------------------------------------------------
# SFPSETCC, SFPENCC
# --------------------------------------------------------------------------------------------

def sets_lane_flags(i) -> bool:
    """Whether an instruction writes LaneFlags as a result (not just pushes, pops or enables):
    SFPSETCC, SFPCOMPC, SFPIADD unless CC_NONE, SFPEXEXP / SFPLZ with a SET_CC mode, SFPGT /
    SFPLE with SET_CC. With CC disabled such an instruction predicates nothing (SFPSETCC even
    clears every flag), which is rarely what a kernel meant."""
    mnemonic, mod1 = i.mnemonic, i.get("mod1")
    if mnemonic in ("SFPSETCC", "SFPCOMPC"):
        return True
    if mnemonic == "SFPIADD":
        return not mod1 & 4
    if mnemonic in ("SFPEXEXP", "SFPLZ"):
        return bool(mod1 & 0xA)
    if mnemonic in ("SFPGT", "SFPLE"):
        return bool(mod1 & 1)
    return False


IMM_BIT0, CLEAR = 1, 8
LREG_LT0, LREG_NE0, LREG_GTE0, LREG_EQ0 = 0, 2, 4, 6


def sfpsetcc(flag, vc, imm12, mod1, cc_enable):
    """SFPSETCC: LaneFlags = a test of ``L[VC]`` as raw int32 (mod1 0 ``< 0``, 2 ``!= 0``,
    4 ``>= 0``, 6 ``== 0``), or Imm1 (mod1 & 1 IMM_BIT0), or False (mod1 & 8 CLEAR).

    In enabled lanes only; with UseLaneFlagsForLaneEnable false the flag becomes False whatever
    the mode. Raw bits: -0 is negative and non-zero, +NaN is >= 0, denormals are non-zero."""
    if not cc_enable or mod1 & CLEAR:
        return 0
    if mod1 & IMM_BIT0:
        return imm12 & 1
    negative = vc >= 0x80000000
    if mod1 == LREG_LT0:
        return 1 if negative else 0
    if mod1 == LREG_NE0:
        return 1 if vc != 0 else 0
    if mod1 == LREG_GTE0:
        return 0 if negative else 1
    return 1 if vc == 0 else 0


SFPSETCC = Semantics("SFPSETCC", None, (VC,), ("imm12", "mod1"), flags=sfpsetcc,
                     sets_flags=lambda i: True, state=("cc_enable",))


EC, EI, RI = 1, 2, 8


def sfpencc(m, i):
    """SFPENCC: UseLaneFlagsForLaneEnable = Imm2 bit 0 (mod1 & 2 EI), else inverted (mod1 & 1
    EC), else kept; LaneFlags = Imm2 bit 1 (mod1 & 8 RI), else True. Not LE-gated.

    Imm2 is instruction bits 12-13, as the Blackhole page and field name say (the 2025-06
    Wormhole text reads those bits from Mod1; isa-reference §6.4 treats that as a typo)."""
    if i.mod1 & (EI | EC) and _acts_on_enable(m, "SFPENCC"):
        m.cc.enable = bool(i.imm12 & 1) if i.mod1 & EI else not m.cc.enable
    m.set_flags(bool(i.imm12 & 2) if i.mod1 & RI else True, m.active)


# --------------------------------------------------------------------------------------------
# The stack: SFPPUSHC, SFPPOPC, SFPCOMPC
# --------------------------------------------------------------------------------------------

def sfppushc(m, i):
    """SFPPUSHC: mod1 0 pushes (LaneFlags, UseLaneFlagsForLaneEnable); a 9th entry is UB.

    Blackhole mod1 1-15 replace the top entry instead (UB on an empty stack): 1-12
    ``top = (BooleanOp(mod1, top.flags, LaneFlags), enable)``; 13 inverts LaneFlags, then
    ``top = (LaneFlags, enable)``; 14 ``top = (True, True)``; 15 ``top = (False, True)``.
    Not LE-gated."""
    if not _acts_on_enable(m, "SFPPUSHC"):
        return
    flags, enable = m.cc.flags, m.cc.enable
    if i.mod1 == 0:
        m.cc.push(flags, enable)
        return
    if not m.cc.stack:
        raise UndefinedBehaviour(f"SFPPUSHC mod1 {i.mod1} modifies the top of an empty CC stack")
    top_flags, _ = m.cc.stack[-1]
    if i.mod1 <= 12:
        top = (bool_op(i.mod1, top_flags, flags), enable)
    elif i.mod1 == 13:
        m.set_flags(~flags, m.active)
        top = (m.cc.flags.copy(), enable)
    else:
        top = (np.full(m.lanes, i.mod1 == 14), True)
    m.cc.stack[-1] = top


def sfppopc(m, i):
    """SFPPOPC: mod1 0 pops the top into (LaneFlags, UseLaneFlagsForLaneEnable) (UB on an empty
    stack). Other modes peek, reading an empty stack as (False, False): 1-12 ``enable =
    top.enable; LaneFlags = BooleanOp(mod1, LaneFlags, top.flags)``; 13 inverts LaneFlags;
    14 sets both True; 15 sets enable True, LaneFlags False. Not LE-gated.

    Wormhole bug (``arch.popc_full_stack_bug``): a non-zero mod1 on a full stack also copies
    the top entry over the bottom one."""
    if not _acts_on_enable(m, "SFPPOPC"):
        return
    stack = m.cc.stack
    top_flags, top_enable = stack[-1] if stack else (np.zeros(m.lanes, dtype=bool), False)
    if i.mod1 == 0:
        if not stack:
            raise UndefinedBehaviour("SFPPOPC mod1 0 pops an empty CC stack")
        stack.pop()
    elif m.arch.popc_full_stack_bug and len(stack) == m.arch.cc_stack_depth:
        stack[0] = (top_flags.copy(), top_enable)
    flags = m.cc.flags
    if i.mod1 == 0:
        m.cc.enable, flags = top_enable, top_flags
    elif i.mod1 <= 12:
        m.cc.enable, flags = top_enable, bool_op(i.mod1, flags, top_flags)
    elif i.mod1 == 13:
        flags = ~flags
    else:
        m.cc.enable, flags = True, i.mod1 == 14
    m.set_flags(flags, m.active)


def sfpcompc(m, i):
    """SFPCOMPC (the "else" of a SIMT if/else): with top = the stack top, or (True, True) when
    the stack is empty (unlike SFPPOPC's default), ``LaneFlags = top.flags and not
    LaneFlags`` if top.enable and UseLaneFlagsForLaneEnable, else False. Not LE-gated."""
    top_flags, top_enable = m.cc.stack[-1] if m.cc.stack else (True, True)
    if top_enable and m.cc.enable:
        flags = top_flags & ~m.cc.flags
    else:
        flags = False
    m.set_flags(flags, m.active)


# --------------------------------------------------------------------------------------------
# SFPGT, SFPLE (Blackhole)
# --------------------------------------------------------------------------------------------

SET_CC, MUTATE_STACK, MUTATE_OR, SET_VD = 1, 2, 4, 8
ALL_ONES = np.uint32(0xFFFFFFFF)


def _compare_result(m, i, result):
    """The common tail of SFPGT/SFPLE: in enabled lanes, mod1 & 8 SET_VD writes -1 / 0 to VD
    and mod1 & 1 SET_CC writes LaneFlags; independently of lane enable, mod1 & 2 MUTATE_STACK
    ANDs the result into the top entry's flags (ORs with mod1 & 4 MUTATE_OR), if any."""
    enabled = m.enabled
    if i.mod1 & SET_VD:
        m.write(i.vd, np.where(result, ALL_ONES, np.uint32(0)), enabled)
    if i.mod1 & SET_CC:
        m.set_flags(result, enabled)
    if i.mod1 & MUTATE_STACK and m.cc.stack:
        top_flags, top_enable = m.cc.stack[-1]
        mutated = top_flags | result if i.mod1 & MUTATE_OR else top_flags & result
        m.cc.stack[-1] = (np.where(m.active, mutated, top_flags), top_enable)


def sfpgt(m, i):
    """SFPGT (Blackhole): result = ``L[VB] > L[VC]`` (VB = VD unless SFPLOADMACRO chose it)
    in the sign-magnitude total order (:func:`smag_less`); written per the mod1 bits of
    :func:`_compare_result`."""
    _compare_result(m, i, smag_less(m.read(i.vc), m.read(operand_vb(i))))


def sfple(m, i):
    """SFPLE (Blackhole): result = ``L[VB] <= L[VC]`` (VB = VD unless SFPLOADMACRO chose it)
    in the sign-magnitude total order (:func:`smag_less`); written per the mod1 bits of
    :func:`_compare_result`."""
    _compare_result(m, i, ~smag_less(m.read(i.vc), m.read(operand_vb(i))))


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

def _no_registers(mnemonic, opcode, operands, execute, modes=None, mod_names=None):
    return Opcode(mnemonic, opcode, operands, SIMPLE, execute, "mod1" if modes else None,
                  modes, mod_names or {}, reads=rec.none, writes=rec.none, writes_vd=False,
                  cost_class=rec.PREDICATION)


def _comparison(mnemonic, opcode, execute):      # SFPGT / SFPLE write VD only with SET_VD
    flags = dict(SET_CC=1, MUTATE_STACK=2, MUTATE_OR=4, SET_VD=8)
    return Opcode(mnemonic, opcode, rec.imm12_format(), SIMPLE, execute, "mod1", rec.EVERY_MODE,
                  {**rec.names("MOD1", **flags), **rec.names(f"{mnemonic}_MOD1", **flags)},
                  reads=rec.vc_vb, writes=lambda i: frozenset({i.vd}) if i.mod1 & 8 else rec.NONE,
                  writes_vd=False, cost_class=rec.PREDICATION)


RECORDS = (
    Opcode("SFPSETCC", 0x7B, rec.imm12_format(0, 1), SIMPLE, SFPSETCC, "mod1",
           frozenset({0, 1, 2, 4, 6, 8}),
           rec.names("SFPSETCC_MOD1", IMM_BIT0=1, CLEAR=8, LREG_LT0=0, LREG_NE0=2, LREG_GTE0=4,
                   LREG_EQ0=6),
           reads=rec.vc, writes=rec.none, writes_vd=False, cost_class=rec.PREDICATION),
    _no_registers("SFPPUSHC", 0x87, rec.imm12_format(vc_high=0), sfppushc, frozenset({0})),
    _no_registers("SFPPOPC", 0x88, rec.imm12_format(vc_high=0), sfppopc, rec.EVERY_MODE),
    _no_registers("SFPENCC", 0x8A, rec.imm12_format(0, 3, vc_high=0), sfpencc,
                  frozenset({0, 1, 2, 3, 8, 9, 10, 11}),
                  rec.names("SFPENCC_MOD1", EC=1, EI=2, RI=8)),
    _no_registers("SFPCOMPC", 0x8B, rec.imm12_format(vc_high=0, mod_high=0), sfpcompc),
)
BLACKHOLE = {"SFPPUSHC": {"modes": rec.EVERY_MODE},
             "SFPLE": _comparison("SFPLE", 0x96, sfple),
             "SFPGT": _comparison("SFPGT", 0x97, sfpgt)}
