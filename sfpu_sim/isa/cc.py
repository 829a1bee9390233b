"""Condition-code (predication) instructions: SFPSETCC, SFPENCC, SFPPUSHC, SFPPOPC, SFPCOMPC
(both chips) and SFPGT, SFPLE (Blackhole); also :func:`smag_less`, the sign-magnitude total
order SFPGT/SFPLE share with SFPSWAP.

Simple sub-unit, 1 cycle. They read and write the predication state the machine holds
(``m.cc``: LaneFlags per lane, one UseLaneFlagsForLaneEnable bool, the stack of (flags, enable)
pairs); they know nothing of what a kernel computes. tt-isa-documentation WormholeB0
``SFPSETCC.md``, ``SFPENCC.md``, ``SFPPUSHC.md``, ``SFPPOPC.md``, ``SFPCOMPC.md`` (revision
39304719, shared by Blackhole), BlackholeA0 ``SFPENCC.md`` (13547104), ``SFPPUSHC.md``,
``SFPPOPC.md`` (f7fda211), ``SFPGT.md``, ``SFPLE.md`` (585749d1); lane enable and the
flag stack of ``VectorUnit.md``.

Lane gating: SFPSETCC and the VD / LaneFlags writes of SFPGT/SFPLE obey LaneEnabled; SFPENCC,
SFPPUSHC, SFPPOPC, SFPCOMPC and the stack mutation of SFPGT/SFPLE act in every lane the
instruction acts in at all (``m.active``: the VD >= 12 backdoor rule), whatever LaneFlags
and ROW_MASK say.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim.isa import records as rec
from sfpu_sim.isa.lanewise import VC, Semantics, helper, int32, lanes
from sfpu_sim.isa.spec import SIMPLE, Opcode, UndefinedBehaviour, Unsupported, operand_vb

SIGN = 0x80000000


@helper
def sign_magnitude_less(c, d):
    """Whether ``c < d`` with both read as sign-magnitude int32: negative patterns have their
    magnitude bits inverted, then the keys compare as two's complement int32 (SFPGT.md
    ``SignMagIsSmaller``). On FP32 bits this is the total order
    -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN."""
    key_c = int32(c ^ (0x7FFFFFFF if c & SIGN else 0))
    key_d = int32(d ^ (0x7FFFFFFF if d & SIGN else 0))
    return key_c < key_d


def smag_less(c, d) -> np.ndarray:
    """:func:`sign_magnitude_less` in every lane (bool)."""
    return lanes(sign_magnitude_less, c, d) != 0


@helper
def boolean_op(mod1, a, b):
    """``BooleanOp(Mod1, A, B)`` of SFPPUSHC.md / SFPPOPC.md for mod1 1..12, on flags 0 / 1."""
    if mod1 == 1:
        return b
    if mod1 == 2:
        return 1 - b
    if mod1 == 3:
        return a & b
    if mod1 == 4:
        return a | b
    if mod1 == 5:
        return a & (1 - b)
    if mod1 == 6:
        return a | (1 - b)
    if mod1 == 7:
        return (1 - a) & b
    if mod1 == 8:
        return (1 - a) | b
    if mod1 == 9:
        return (1 - a) & (1 - b)
    if mod1 == 10:
        return (1 - a) | (1 - b)
    if mod1 == 11:
        return a ^ b
    return 1 - (a ^ b)


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


def encc_enable(mod1: int, imm12: int, enable: bool) -> bool:
    """SFPENCC's UseLaneFlagsForLaneEnable: Imm2 bit 0 (mod1 & 2 EI), else inverted (mod1 & 1
    EC), else kept."""
    if mod1 & EI:
        return bool(imm12 & 1)
    return not enable if mod1 & EC else enable


def encc_flags(mod1: int, imm12: int) -> bool:
    """SFPENCC's LaneFlags, the same in every lane: Imm2 bit 1 (mod1 & 8 RI), else True."""
    return bool(imm12 & 2) if mod1 & RI else True


def sfpencc(m, i):
    """SFPENCC: UseLaneFlagsForLaneEnable per :func:`encc_enable`, LaneFlags per
    :func:`encc_flags`. Not LE-gated.

    Imm2 is instruction bits 12-13, as the Blackhole page and field name say (the 2025-06
    Wormhole text reads those bits from Mod1, taken here for a typo)."""
    if i.mod1 & (EI | EC) and _acts_on_enable(m, "SFPENCC"):
        m.cc.enable = encc_enable(i.mod1, i.imm12, m.cc.enable)
    m.set_flags(encc_flags(i.mod1, i.imm12), m.active)


# --------------------------------------------------------------------------------------------
# The stack: SFPPUSHC, SFPPOPC, SFPCOMPC. Each is a lanewise rule for the flags (what a lane
# computes) and a rule for the enables, which are the same in every lane; every engine keeps
# the stack its own way and applies both.
# --------------------------------------------------------------------------------------------

PUSHC_INVERT = 13          # SFPPUSHC mod1 13 also inverts LaneFlags


def pushc_top(top, flag, mod1):
    """A lane's new top-of-stack flags from SFPPUSHC mod1 1..15 (Blackhole): 1-12
    ``BooleanOp(mod1, top, LaneFlags)``; 13 the inverted LaneFlags (which LaneFlags become
    too); 14 True; 15 False."""
    if mod1 <= 12:
        return boolean_op(mod1, top, flag)
    if mod1 == PUSHC_INVERT:
        return 1 - flag
    return 1 if mod1 == 14 else 0


def pushc_top_enable(mod1: int, enable: bool) -> bool:
    """The top entry's new enable from SFPPUSHC mod1 1..15: 14 and 15 set it, others take
    UseLaneFlagsForLaneEnable."""
    return True if mod1 >= 14 else enable


def sfppushc(m, i):
    """SFPPUSHC: mod1 0 pushes (LaneFlags, UseLaneFlagsForLaneEnable); a 9th entry is UB.

    Blackhole mod1 1-15 replace the top entry instead (UB on an empty stack): its flags per
    :func:`pushc_top`, its enable per :func:`pushc_top_enable`. Not LE-gated."""
    if not _acts_on_enable(m, "SFPPUSHC"):
        return
    flags, enable = m.cc.flags, m.cc.enable
    if i.mod1 == 0:
        m.cc.push(flags, enable)
        return
    if not m.cc.stack:
        raise UndefinedBehaviour(f"SFPPUSHC mod1 {i.mod1} modifies the top of an empty CC stack")
    top_flags, _ = m.cc.stack[-1]
    top = lanes(pushc_top, top_flags, flags, i.mod1) != 0
    if i.mod1 == PUSHC_INVERT:
        m.set_flags(top, m.active)
    m.cc.stack[-1] = (top, pushc_top_enable(i.mod1, enable))


def popc_flags(flag, top, mod1):
    """A lane's LaneFlags after SFPPOPC: mod1 0 the top entry's flags; 1-12
    ``BooleanOp(mod1, LaneFlags, top)``; 13 inverted; 14 True; 15 False."""
    if mod1 == 0:
        return top
    if mod1 <= 12:
        return boolean_op(mod1, flag, top)
    if mod1 == 13:
        return 1 - flag
    return 1 if mod1 == 14 else 0


def popc_enable(mod1: int, enable: bool, top_enable: bool) -> bool:
    """UseLaneFlagsForLaneEnable after SFPPOPC: the top entry's for mod1 0-12, kept by 13,
    True for 14 and 15."""
    if mod1 <= 12:
        return top_enable
    return enable if mod1 == 13 else True


def sfppopc(m, i):
    """SFPPOPC: mod1 0 pops the top into (LaneFlags, UseLaneFlagsForLaneEnable) (UB on an empty
    stack); other modes peek, reading an empty stack as (False, False). LaneFlags per
    :func:`popc_flags`, the enable per :func:`popc_enable`. Not LE-gated.

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
    flags = lanes(popc_flags, m.cc.flags, top_flags, i.mod1) != 0
    m.cc.enable = popc_enable(i.mod1, m.cc.enable, top_enable)
    m.set_flags(flags, m.active)


def compc_flags(flag, top, enabled):
    """A lane's LaneFlags after SFPCOMPC (the "else" of a SIMT if/else): ``top and not
    LaneFlags`` where ``enabled`` (the top entry's enable and UseLaneFlagsForLaneEnable, the
    same in every lane), else False."""
    if enabled:
        return top & (1 - flag)
    return 0


def sfpcompc(m, i):
    """SFPCOMPC: LaneFlags per :func:`compc_flags`, with top = the stack top, or (True, True)
    when the stack is empty (unlike SFPPOPC's default). Not LE-gated."""
    top_flags, top_enable = m.cc.stack[-1] if m.cc.stack else (True, True)
    enabled = int(top_enable and m.cc.enable)
    m.set_flags(lanes(compc_flags, m.cc.flags, top_flags, enabled) != 0, m.active)


# --------------------------------------------------------------------------------------------
# SFPGT, SFPLE (Blackhole)
# --------------------------------------------------------------------------------------------

SET_CC, MUTATE_STACK, MUTATE_OR, SET_VD = 1, 2, 4, 8


def greater_than(vc, vb):
    """SFPGT's result in a lane: ``L[VB] > L[VC]`` in the sign-magnitude total order."""
    smaller = sign_magnitude_less(vc, vb)
    return 1 if smaller else 0


def less_or_equal(vc, vb):
    """SFPLE's result in a lane: ``L[VB] <= L[VC]`` in the sign-magnitude total order."""
    smaller = sign_magnitude_less(vc, vb)
    return 0 if smaller else 1


def mutated_top(top, result, mod1):
    """The top entry's flags after SFPGT/SFPLE with MUTATE_STACK: ORed with the result
    (MUTATE_OR), else ANDed."""
    if mod1 & MUTATE_OR:
        return top | result
    return top & result


def compare_value(result):
    """What SET_VD writes: -1 where the comparison holds, else 0."""
    return 0xFFFFFFFF if result else 0


def _compare(m, i, comparison):
    """SFPGT/SFPLE: ``comparison`` of ``L[VC]`` and ``L[VB]`` (VB = VD unless SFPLOADMACRO
    chose it); in enabled lanes, mod1 & 8 SET_VD writes :func:`compare_value` to VD and
    mod1 & 1 SET_CC writes LaneFlags; independently of lane enable, mod1 & 2 MUTATE_STACK
    updates the top entry's flags per :func:`mutated_top`, if there is one."""
    result = lanes(comparison, m.read(i.vc), m.read(operand_vb(i)))
    enabled = m.enabled
    if i.mod1 & SET_VD:
        m.write(i.vd, lanes(compare_value, result), enabled)
    if i.mod1 & SET_CC:
        m.set_flags(result != 0, enabled)
    if i.mod1 & MUTATE_STACK and m.cc.stack:
        top_flags, top_enable = m.cc.stack[-1]
        mutated = lanes(mutated_top, top_flags, result, i.mod1) != 0
        m.cc.stack[-1] = (np.where(m.active, mutated, top_flags), top_enable)


def sfpgt(m, i):
    """SFPGT (Blackhole): :func:`greater_than`, written per :func:`_compare`."""
    _compare(m, i, greater_than)


def sfple(m, i):
    """SFPLE (Blackhole): :func:`less_or_equal`, written per :func:`_compare`."""
    _compare(m, i, less_or_equal)


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
