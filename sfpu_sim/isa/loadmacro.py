"""SFPLOADMACRO (both chips): an SFPLOAD, then up to four instructions scheduled on the Simple,
MAD, Round and Store sub-units from the lane's LoadMacroConfig.

Owns: the fields of an SFPLOADMACRO, reading LoadMacroConfig (written by SFPCONFIG and by the
VD >= 12 backdoor: :class:`sfpu_sim.machine.LoadMacroState`), and turning a Sequence byte and
an InstructionTemplate into the instruction to schedule, as the functional model does
(``ParseInsn``, ``CanExecuteOpcode``, the VB / VC / VD overrides, the Store's Mod0 and
address). Knows nothing of time: :mod:`sfpu_sim.macro` holds and runs what is scheduled.

Source: tt-isa-documentation WormholeB0 and BlackholeA0 ``SFPLOADMACRO.md`` at f7fda211 (the
two functional models are the same; the 2025-06-12 Wormhole revision 39304719 states the
sub-unit rules differently, see :mod:`sfpu_sim.macro`).

Where the pages leave a choice, this module decides as follows (each is a reading, not a
documented fact):

* A byte that schedules nothing (bits 0-2 zero) forgets nothing. The pseudo-code forgets
  before ``case 0: continue``, so such a byte with delay bits 0 would cancel the instruction
  its sub-unit runs in the next cycle; tt-llk's fast_8b_3c reciprocal (#834) issues exactly
  that (macro 2, Simple byte 0x00, in the cycle before its scheduled SFPIADD runs), and the
  kernel, Blackhole's ttnn.reciprocal since November 2025, is stated bit-identical to its
  straight-line form (tt-llk #1473), which it only is if the SFPIADD runs.
* LoadMacroConfig must be the same in every lane: the pages allow it to differ ("not
  encouraged"); per-lane schedules raise :class:`Unsupported`.
* SFPSWAP on the Simple sub-unit. Its page's model reads ``LReg[VD]`` and has no ``unsigned
  VB = VD;`` line, while SFPLOADMACRO.md says the macro logic chooses VB for every Simple
  instruction. Taken literally, tt-llk's exp sanitiser (template ``SFPSWAP(0, 0, 14,
  VEC_MIN_MAX)``, Sequence byte 0x04: VC = VD = the loaded register, VB = 14) would compare a
  register with itself and never clamp, so exp_approx would return garbage below -88.5 (NaN
  at -Inf) where tt-llk #1454 states its straight-line form (``SFPSWAP(0, L14, L0, 9)``,
  max(x, -88.5)) bit-identical. Here a scheduled SFPSWAP reads its VD operand through VB like
  the other Simple instructions; when VB differs from VD, the one case tt-llk relies on is
  modelled (VD == VC and VB a read-only register: a swap between L[VB] and L[VC] that writes
  L[VC] only) and every other case raises, since which of its two results lands where is not
  documented.
* Blackhole SFPAND / SFPOR: their model chooses ``vb = USE_VB ? VB : VD``; whether
  SFPLOADMACRO skips that line is not said, so the case where the two readings differ raises.
* SFPSHFT2 modes 2-4 (the lane shuffles, two cycles with their own stall rules) raise when
  scheduled; a scheduled SFPSTORE in INT32_ALL mode on Blackhole (whose Sp step the pages do
  not place) raises.
"""
from __future__ import annotations

from sfpu_sim.isa import loadstore
from sfpu_sim.isa import records as rec
from sfpu_sim.isa.spec import (
    ENABLE_DEST_INDEX,
    LOAD,
    MACRO_VB,
    MACRO_VC,
    MAD,
    ROUND,
    SIMPLE,
    STORE,
    Instruction,
    IsaError,
    NotOnChip,
    Opcode,
    UndefinedBehaviour,
    UnknownInstruction,
    Unsupported,
    imm,
    mod,
)

SUB_UNITS = (SIMPLE, MAD, ROUND, STORE)         # Sequence byte i drives SUB_UNITS[i]
CYCLES, INSTRUCTIONS = "cycles", "issued instructions"   # Misc.UnitDelayKind, bit clear / set
NOTHING, UNDEFINED, NOP, STORE_VD0 = 0, 1, 2, 3            # Sequence byte bits 0-2 below 4
USE_LOADED_AS_VB, RESULT_TO_LREG16 = 0x80, 0x40            # Sequence byte bits 7 and 6
MACRO_LREG = 16
# Opcodes whose encoding has a VB field beside the ``vb`` operand (Blackhole SFPAND/SFPOR and
# SFPSHFT2 keep it in Imm12's low 4 bits).
VB_IN_IMM12 = frozenset({"SFPSHFT2"})
VB_IN_IMM12_BLACKHOLE = frozenset({"SFPAND", "SFPOR"})


def loaded_vd(i: Instruction) -> int:
    """``VD = VDHi << 2 | VDLo``: VDLo is the low 2 bits of the first operand (whose high 2
    bits are MacroIndex), VDHi bit 0 of the address field."""
    return ((i.dest_reg_addr & 1) << 2) | (i.lreg_ind & 3)


def sfploadmacro(m, i):
    """SFPLOADMACRO: ``SFPLOAD`` of ``VD`` from ``Imm10`` (:func:`loaded_vd`; Imm10 is the whole
    address field), then for each sub-unit the instruction its byte of
    ``Sequence[MacroIndex]`` selects, handed to the sequencer (``m.macros``) with its delay
    (bits 3-5; a delay other than 7 first forgets what that sub-unit had scheduled for the same
    cycle, only when the byte schedules something: module docstring) and delay kind
    (``Misc.UnitDelayKind``). See :func:`scheduled_instruction`."""
    macro, vd = i.lreg_ind >> 2, loaded_vd(i)
    sequence, misc = _uniform_config(m, macro)
    chosen = []                                   # built first: a refusal has no effect
    for index, unit in enumerate(SUB_UNITS):
        bits = (sequence >> (8 * index)) & 0xFF
        chosen.append((index, unit, bits, scheduled_instruction(m, unit, bits, vd, i, macro,
                                                                misc)))
    address = loadstore.load(m, vd, i.mod0, i.addr_mod, i.dest_reg_addr)
    for index, unit, bits, instruction in chosen:
        delay = (bits >> 3) & 7
        if instruction is None:
            continue
        if delay != 7:
            m.macros.forget(unit, delay)
        kind = INSTRUCTIONS if misc >> (8 + index) & 1 else CYCLES
        m.macros.schedule(unit, instruction, delay, kind, address if unit == STORE else None)


def scheduled_instruction(m, unit: str, bits: int, vd: int, i: Instruction, macro: int,
                          misc: int) -> Instruction | None:
    """The instruction one Sequence byte schedules on ``unit`` (None for nothing): bits 0-2 pick
    nothing / undefined / SFPNOP / ``SFPSTORE`` with VD 0 / InstructionTemplate 0-3, which
    becomes SFPNOP on a sub-unit that cannot run it (undefined for the Store sub-unit). Simple,
    MAD, Round: bit 7 makes the loaded register VB (VC keeps its field, or takes the template's
    VD if the instruction has no VC), else VC (VB likewise); bit 6 sends the result to
    LReg[16], else to the loaded register. Store: VD 16 (bit 6), the template's (bit 7) or the
    loaded one; Mod0 the SFPLOADMACRO's or ``Misc.StoreMod0`` (``Misc.UsesLoadMod0ForStore``
    bit per macro); the address is the SFPLOADMACRO's (the sequencer's)."""
    select = bits & 7
    where = f"SFPLOADMACRO{' at ' + i.source if i.source else ''} (macro {macro})"
    if select == NOTHING:
        return None
    if select == UNDEFINED:
        raise UndefinedBehaviour(f"{where}: Sequence byte {bits:#04x} for the {unit} sub-unit "
                                 f"selects 1, which is undefined")
    if select == NOP:
        template = Instruction(m.arch.opcodes["SFPNOP"], {})
    elif select == STORE_VD0:
        template = Instruction(m.arch.opcodes["SFPSTORE"],
                               {"vd": 0, "mod0": 0, "addr_mod": 0, "imm10": 0})
    else:
        template = _parse_template(m, select - 4, where)
    if template is None or not _can_execute(template.op, unit):
        if unit == STORE:
            name = template.mnemonic if template is not None else "a non-SFPU word"
            raise UndefinedBehaviour(f"{where}: the Store sub-unit is given {name}, which it "
                                     f"cannot execute (undefined)")
        template = Instruction(m.arch.opcodes["SFPNOP"], {})
    source = f"{where}: {unit} sub-unit, {template.mnemonic}"
    if template.mnemonic == "SFPNOP":
        return Instruction(template.op, {}, source)
    values = dict(template.values)
    if unit == STORE:
        if bits & RESULT_TO_LREG16:
            values["vd"] = MACRO_LREG
        elif not bits & USE_LOADED_AS_VB:
            values["vd"] = vd
        values["mod0"] = i.mod0 if misc >> (4 + macro) & 1 else misc & 0xF
        values["imm10"] = i.dest_reg_addr
        return Instruction(template.op, values, source)
    template_vd = values.get("vd", 0)
    vb_field, vc_field = _vb_field(m, template), _has_vc(template.op)
    if bits & USE_LOADED_AS_VB:
        vb = vd
        vc = values["vc"] if vc_field else template_vd
    else:
        vc = vd
        vb = vb_field if vb_field is not None else template_vd
    if "vb" in template.op.operand_names:
        values["vb"] = vb
    else:
        values[MACRO_VB] = vb
    values["vc" if vc_field else MACRO_VC] = vc
    values["vd"] = MACRO_LREG if bits & RESULT_TO_LREG16 else vd
    return _checked(m, Instruction(template.op, values, source), source)


def _uniform_config(m, macro: int) -> tuple[int, int]:
    """``Sequence[macro]`` and ``Misc``, which must be the same in every lane (and so must the
    templates, checked as they are read)."""
    sequence, misc = m.loadmacro.sequence[macro], m.loadmacro.misc
    for name, values in ((f"Sequence[{macro}]", sequence), ("Misc", misc)):
        if values.min() != values.max():
            raise Unsupported(f"SFPLOADMACRO: LoadMacroConfig {name} differs between lanes; "
                              f"per-lane macro schedules are not modelled")
    return int(sequence[0]), int(misc[0])


def _parse_template(m, index: int, where: str) -> Instruction | None:
    """``ParseInsn(InstructionTemplate[index])``; None for a word that is no SFPU instruction of
    this chip (no sub-unit can execute it)."""
    words = m.loadmacro.templates[index]
    if words.min() != words.max():
        raise Unsupported(f"{where}: InstructionTemplate[{index}] differs between lanes; "
                          f"per-lane macro schedules are not modelled")
    word = int(words[0])
    try:
        return m.decode(word)
    except (UnknownInstruction, NotOnChip) as error:
        if isinstance(error, NotOnChip) and m.arch.by_opcode.get(word >> 24) is not None:
            raise Unsupported(f"{where}: InstructionTemplate[{index}] = {word:#010x}: "
                              f"{error}") from None
        return None
    except IsaError as error:
        raise Unsupported(f"{where}: InstructionTemplate[{index}] = {word:#010x} is not a "
                          f"documented instruction ({error})") from None


def _can_execute(op, unit: str) -> bool:
    """The table at the top of SFPLOADMACRO.md: each opcode's own sub-unit, and SFPNOP on
    Simple, MAD and Round."""
    if op.mnemonic == "SFPNOP":
        return unit != STORE
    return op.unit == unit


def _has_vc(op) -> bool:
    return "vc" in op.operand_names and op.operand("vc").range[1] > 0


def _vb_field(m, template: Instruction) -> int | None:
    """The VB an encoding carries (None: "Insn.VB is None")."""
    name = template.mnemonic
    if "vb" in template.op.operand_names:
        return template.values["vb"]
    if name in VB_IN_IMM12 or (name in VB_IN_IMM12_BLACKHOLE and m.arch.name == "blackhole"):
        return template.values["imm12"] & 15
    return None


def _checked(m, instruction: Instruction, where: str) -> Instruction:
    """Refuse the scheduled forms whose behaviour the pages leave open (module docstring); a
    scheduled SFPSWAP that reads VB != VD becomes the swap of L[VB] and L[VC]."""
    name, values = instruction.mnemonic, instruction.values
    vb, vd = values.get(MACRO_VB, values.get("vb")), values["vd"]
    if name == "SFPSWAP" and vb != vd:
        if not (values["vc"] == vd and 8 <= vb < 16):
            raise Unsupported(f"{where}: SFPSWAP reading VB = L{vb}, VC = L{values['vc']}, "
                              f"VD = L{vd}: which registers its results go to is not "
                              f"documented (modelled: VD = VC with a read-only VB)")
        if (m.lane_config & ENABLE_DEST_INDEX).any():
            raise Unsupported(f"{where}: SFPSWAP reading VB != VD with ENABLE_DEST_INDEX set "
                              f"is not modelled")
        return Instruction(instruction.op, {**values, "vd": vb, MACRO_VB: vb}, where)
    if name in VB_IN_IMM12_BLACKHOLE and m.arch.name == "blackhole" and \
            not values["mod1"] & 1 and vb != vd:
        raise Unsupported(f"{where}: Blackhole {name} without USE_VB reading VB = L{vb} != VD "
                          f"= L{vd}: whether SFPLOADMACRO overrides its vb choice is not "
                          f"documented")
    if name == "SFPSHFT2" and values["mod1"] in (2, 3, 4):
        raise Unsupported(f"{where}: SFPSHFT2 mode {values['mod1']} (a two-cycle lane shuffle) "
                          f"is not modelled as a scheduled instruction")
    return instruction


def check_scheduled_store(m, instruction: Instruction, mode: int) -> None:
    """A scheduled SFPSTORE in INT32_ALL mode on a chip whose INT32_ALL steps the Sp counter:
    the pages replace the address computation but do not say whether the step happens."""
    if mode == loadstore.INT32_ALL and m.arch.int32_all_uses_stack_pointer:
        raise Unsupported(f"{instruction.source}: a scheduled SFPSTORE in INT32_ALL mode on "
                          f"{m.arch.title} (whether it steps Sp is not documented)")


def execute_scheduled(m, instruction: Instruction, address: int | None) -> None:
    """Run an instruction SFPLOADMACRO scheduled: as if DISABLE_BACKDOOR_LOAD were set in every
    lane (the Machine passes all lanes as active); an SFPSTORE writes at ``address`` (what its
    SFPLOADMACRO computed) and applies no AddrMod."""
    if instruction.mnemonic == "SFPSTORE":
        mode = loadstore.resolve_format(m, instruction.mod0)
        check_scheduled_store(m, instruction, mode)
        loadstore.store(m, instruction.vd, mode, address)
    else:
        instruction.op.execute(m, instruction)



# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------

def _operands(addr_mod):
    return (imm("lreg_ind", 20, 4), mod("mod0", 16), addr_mod, imm("dest_reg_addr", 0, 10))


def _reads(i):                           # its SFPLOAD part: the *_ONLY modes keep half of VD
    return frozenset({loaded_vd(i)}) if i.mod0 in (loadstore.LO16_ONLY, loadstore.HI16_ONLY) \
        else rec.NONE


def _writes(i):                          # VD, and VD + 4 where SFPLOAD captures a Dst index
    vd = loaded_vd(i)
    return frozenset({vd, vd + 4} if vd < 4 else {vd})


RECORDS = (
    Opcode("SFPLOADMACRO", 0x93, _operands(loadstore.WORMHOLE_ADDR_MOD), LOAD, sfploadmacro,
           "mod0", rec.EVERY_MODE, loadstore.LOADSTORE_NAMES, reads=_reads, writes=_writes,
           writes_vd=False, backdoor=False, cost_class=rec.LOAD_STORE),
)
BLACKHOLE = {"SFPLOADMACRO": {"operands": _operands(loadstore.BLACKHOLE_ADDR_MOD)}}
