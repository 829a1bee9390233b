"""What an SFPU instruction is, independent of what it does: opcode, fields, operands, modes.

Owns: the shape of encodings (field positions, the TT_SFP* macro argument order, allowed
ranges, symbolic modifier names), the decoded :class:`Instruction`, and the error types of the
ISA layer. Knows nothing of execution or of text syntax.

Instruction words are 32 bits with the opcode in bits 31..24, as Tenstorrent's ``TT_OP_*``
macros build them (tt-llk ``tt_llk_{wormhole_b0,blackhole}/common/inc/ckernel_ops.h``,
2026-04-11); operands are listed in those macros' argument order.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from sfpu_sim.errors import SfpuSimError

# --------------------------------------------------------------------------------------------
# Errors of the ISA layer
# --------------------------------------------------------------------------------------------

class IsaError(SfpuSimError):
    """Bad instruction input: unknown mnemonic or opcode, field out of range, mode not on the
    chip, reserved bits set, wrong operand count, write to a read-only register."""


class UnknownInstruction(IsaError):
    pass


class FieldOutOfRange(IsaError):
    pass


class NotOnChip(IsaError):
    pass


class ReadOnlyRegister(IsaError):
    pass


class ExecutionError(SfpuSimError):
    """A program asked for something the documentation leaves undefined (ttsim's
    UndefinedBehavior category) or that sfpu-sim does not model (Unsupported); raised instead
    of guessing, as a guess would flow silently into a ULP report."""


class UndefinedBehaviour(ExecutionError):
    pass


class Unsupported(ExecutionError):
    pass


# Scheduling rules broken by a program (raised or warned by the Machine and the SFPLOADMACRO
# sequencer alike, so they live with the instruction model, below both).
class HazardError(IsaError):
    """A program breaks a documented scheduling rule (strict mode)."""


class ProgramWarning(UserWarning):
    """Something in a program that is legal but probably not meant. ``kind`` says what, the
    same text for every occurrence (commands count occurrences per kind); ``index`` and
    ``source`` say where this one is."""

    def __init__(self, message: str, kind: str = "", index: int = -1, source: str = ""):
        super().__init__(message)
        self.kind, self.index, self.source = kind or message, index, source


class HazardWarning(ProgramWarning):
    """A program breaks a documented scheduling rule; the emulator executes it as written."""


# --------------------------------------------------------------------------------------------
# LaneConfig bits (per lane, written by SFPCONFIG VD=15; SFPCONFIG.md)
# --------------------------------------------------------------------------------------------

ENABLE_FP16A_INF = 1 << 0            # SFPLOAD FP16: exponent 31 / mantissa 0x3FF reads as Inf
DISABLE_BACKDOOR_LOAD = 1 << 1       # VD >= 12 executes instead of capturing a template
ENABLE_DEST_INDEX = 1 << 2           # SFPSWAP argmin/argmax; with the next bit, SFPLOAD index
CAPTURE_DEFAULT_DEST_INDEX = 1 << 3
BLOCK_DEST_WR_FROM_SFPU = 1 << 4     # SFPSTORE skips the lane
BLOCK_SFPU_RD_FROM_DEST = 1 << 5     # SFPLOAD skips the lane
DEST_RD_COL_EXCHANGE = 1 << 6        # SFPLOAD uses odd columns
DEST_WR_COL_EXCHANGE = 1 << 7        # SFPSTORE uses odd columns
EXCHANGE_SRCB_SRCC = 1 << 8          # SFPSWAP min/max: invert the swap decision
ROW_MASK_SHIFT = 12                  # bits 12-15: grid rows disabled


# --------------------------------------------------------------------------------------------
# Fields and opcodes
# --------------------------------------------------------------------------------------------

LREG = "lreg"      # register index: accepts L0..L15 in assembly
IMM = "imm"        # immediate number
MOD = "mod"        # modifier: a number or symbolic names joined with |


@dataclass(frozen=True)
class Operand:
    """One instruction field, as a TT_SFP* macro argument.

    ``lsb``/``width`` place it in the word; ``low``/``high`` bound the values the
    documentation gives a meaning (narrower than the field for some instructions; decoding a
    word outside them raises :class:`FieldOutOfRange`). ``signed`` fields are two's complement
    in the word and written with a sign in assembly."""
    name: str
    lsb: int
    width: int
    kind: str = IMM
    signed: bool = False
    low: int | None = None
    high: int | None = None
    default: int | None = None      # trailing operands with a default may be left out

    @property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.lsb

    @property
    def range(self) -> tuple[int, int]:
        if self.signed:
            lo, hi = -(1 << (self.width - 1)), (1 << (self.width - 1)) - 1
        else:
            lo, hi = 0, (1 << self.width) - 1
        return (lo if self.low is None else self.low, hi if self.high is None else self.high)

    def pack(self, value: int) -> int:
        return (value & ((1 << self.width) - 1)) << self.lsb

    def unpack(self, word: int) -> int:
        raw = (word >> self.lsb) & ((1 << self.width) - 1)
        if self.signed and raw >> (self.width - 1):
            raw -= 1 << self.width
        return raw


def lreg(name: str, lsb: int, high: int = 15) -> Operand:
    return Operand(name, lsb, 4, LREG, high=high)


def imm(name: str, lsb: int, width: int, signed: bool = False, low=None, high=None,
        default=None) -> Operand:
    return Operand(name, lsb, width, IMM, signed, low, high, default)


def mod(name: str, lsb: int, width: int = 4, default=None) -> Operand:
    return Operand(name, lsb, width, MOD, default=default)


# Sub-units of the vector unit (SFPLOADMACRO columns; also the issue-slot classes).
LOAD, SIMPLE, MAD, ROUND, STORE = "load", "simple", "mad", "round", "store"

# Operand choices SFPLOADMACRO makes for an instruction it schedules, carried in the scheduled
# Instruction's values beside its fields (SFPLOADMACRO.md: "the usual ``unsigned VB = VD;`` /
# ``unsigned VC = VD;`` assignment in the functional model is skipped").
MACRO_VB, MACRO_VC = "macro_vb", "macro_vc"


def operand_vb(i, default: int | None = None) -> int:
    """The register a model reads as ``VB`` where its page assigns ``unsigned VB = VD;`` (or
    ``default``): the one SFPLOADMACRO chose, for an instruction it scheduled."""
    return i.values.get(MACRO_VB, i.values["vd"] if default is None else default)


def operand_vc_of_vd(i) -> int:
    """The register SFPADDI / SFPMULI read as ``VC`` (their pages: ``unsigned VC = VD;``), or
    the one SFPLOADMACRO chose."""
    return i.values.get(MACRO_VC, i.values["vd"])


@dataclass(frozen=True)
class Opcode:
    """An instruction as one chip has it: its record (see :mod:`sfpu_sim.isa.records`).

    ``unit`` is the sub-unit it issues to (LOAD, SIMPLE, MAD, ROUND, STORE: the SFPLOADMACRO
    columns; MAD-unit results are what Wormhole does not interlock). ``mode_field`` names the
    operand holding the modifier the ISA pages enumerate (``mod0`` or ``mod1``), ``modes`` the
    values given a meaning on this chip (others are rejected), ``mod_names`` symbolic names for
    that field. ``execute(machine, instruction)`` runs it; ``reads``/``writes`` give the LRegs
    it reads and writes (static view, for hazards and register allocation). ``writes_vd``
    marks instructions whose VD field only names a destination (an assembler error if it is a
    read-only register). ``backdoor``: a VD field of 12 or more captures the word as a
    LoadMacro template instead (all but the loads). ``cost_class``: what its issue slot is
    counted as in the static cost estimate. ``shadow(instruction, operands)`` is its exact rule
    (:mod:`sfpu_sim.isa.exact_rules`); None: not a real function of its operands, the shadow
    takes the device value."""
    mnemonic: str
    opcode: int
    operands: tuple[Operand, ...]
    unit: str
    execute: Callable
    mode_field: str | None = None
    modes: frozenset[int] | None = None
    mod_names: Mapping[str, int] = field(default_factory=dict)
    reads: Callable = None
    writes: Callable = None
    writes_vd: bool = True
    backdoor: bool = True
    cost_class: str = "other simple (fields, moves, integer, swap)"
    shadow: Callable | None = None

    @property
    def operand_names(self) -> frozenset[str]:
        return frozenset(op.name for op in self.operands)

    def operand(self, name: str) -> Operand:
        for op in self.operands:
            if op.name == name:
                return op
        raise KeyError(name)

    @property
    def fixed_mask(self) -> int:
        """Bits that must be zero: everything outside the opcode byte and the operands."""
        used = 0xFF000000
        for op in self.operands:
            used |= op.mask
        return ~used & 0xFFFFFFFF


class Instruction:
    """A decoded instruction: its :class:`Opcode` and a value per operand.

    Operand values are attributes (``ins.vd``, ``ins.mod1``...); ``source`` optionally names
    where it came from (``file:line``) for error messages and traces."""
    __slots__ = ("op", "values", "source", "line_text")

    def __init__(self, op: Opcode, values: Mapping[str, int], source: str | None = None,
                 line_text: str | None = None):
        self.op = op
        self.values = dict(values)
        self.source = source
        self.line_text = line_text

    def __getattr__(self, name):
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(f"{self.op.mnemonic} has no field {name!r}") from None

    def get(self, name: str, default: int = 0) -> int:
        return self.values.get(name, default)

    @property
    def mnemonic(self) -> str:
        return self.op.mnemonic

    @property
    def mode(self) -> int:
        return self.values[self.op.mode_field] if self.op.mode_field else 0

    @property
    def word(self) -> int:
        word = self.op.opcode << 24
        for operand in self.op.operands:
            word |= operand.pack(self.values[operand.name])
        return word

    def __repr__(self) -> str:
        args = ", ".join(f"{o.name}={self.values[o.name]}" for o in self.op.operands)
        return f"{self.op.mnemonic}({args})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Instruction) and self.word == other.word and \
            self.op.mnemonic == other.op.mnemonic

    def __hash__(self) -> int:
        return hash(self.word)


@dataclass
class Program:
    """A straight-line list of instructions for one chip (the SFPU has no branches)."""
    arch: object
    instructions: list[Instruction]
    name: str = ""
    init_length: int = 0      # leading instructions that set up constants (a kernel's init)
    row_groups: int = 1       # 32-datum Dst row groups the body processes (a loop iteration
                              # each; tt-llk's SFPLOADMACRO kernels do a face, 8, per call)

    def __iter__(self):
        return iter(self.instructions)

    def __len__(self) -> int:
        return len(self.instructions)

    def __getitem__(self, index):
        return self.instructions[index]

    @property
    def words(self) -> list[int]:
        return [ins.word for ins in self.instructions]
