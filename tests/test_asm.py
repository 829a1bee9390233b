"""Assembly, encodings and disassembly: round trips, the TT_OP_* layouts, one-line errors."""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim.arch import ARCHES
from sfpu_sim.asm import assemble, decode, disassemble, encode, format_instruction
from sfpu_sim.isa.spec import (
    FieldOutOfRange,
    Instruction,
    IsaError,
    NotOnChip,
    ReadOnlyRegister,
    UnknownInstruction,
)


def random_instruction(op, rng) -> Instruction:
    values = {}
    for operand in op.operands:
        low, high = operand.range
        if operand.name == op.mode_field and op.modes is not None:
            values[operand.name] = int(rng.choice(sorted(op.modes)))
        else:
            values[operand.name] = int(rng.integers(low, high + 1))
        if operand.name == "vd" and op.writes_vd and values["vd"] in range(8, 12):
            values["vd"] = int(rng.integers(0, 8))
    return Instruction(op, values)


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_every_instruction_round_trips_words_and_text(arch):
    rng = np.random.default_rng(7)
    for op in ARCHES[arch].opcodes.values():
        for _ in range(50):
            instruction = random_instruction(op, rng)
            word = encode(instruction)
            assert word >> 24 == op.opcode
            decoded = decode(word, arch)
            assert decoded.values == instruction.values
            text = format_instruction(decoded)
            again = assemble(text, arch)[0]
            assert again.word == word and format_instruction(again) == text


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_program_text_to_words_to_text_is_exact(arch):
    text = ("SFPLOAD L0, 2, 0, 0\n"
            "SFPLOADI L1, 0, 0x3fc0\n"
            "SFPMAD L0, L1, L10, L2, 0\n"
            "SFPNOP\n"
            "SFPIADD -5, L2, L3, 5\n"
            "SFPSTORE L2, 2, 0, 0\n")
    program = assemble(text, arch)
    assert disassemble(program) == text
    assert disassemble(program.words, arch) == text


def test_encodings_follow_the_tt_op_macros():
    # ckernel_ops.h: TT_OP(op, fields) = op << 24 | fields; argument orders as in the macros.
    wh, bh = "wormhole", "blackhole"
    assert assemble("SFPNOP", wh)[0].word == 0x8F000000
    assert assemble("SFPMAD 0, 1, 2, 3, 0", wh)[0].word == (0x84 << 24) | (1 << 12) | (2 << 8) | 48
    assert assemble("SFPLOADI 1, 0, 0x3FC0", bh)[0].word == 0x71103FC0
    # AddrMod sits at bit 14 on Wormhole and bit 13 on Blackhole
    assert assemble("SFPLOAD 0, 3, 1, 4", wh)[0].word == 0x70030000 | (1 << 14) | 4
    assert assemble("SFPLOAD 0, 3, 1, 4", bh)[0].word == 0x70030000 | (1 << 13) | 4
    assert assemble("SFPMULI 0x3FC0, 2, 0", wh)[0].word == (0x74 << 24) | (0x3FC0 << 8) | 0x20
    assert assemble("SFP_STOCH_RND 0, 0, 3, 3, 4, 1", bh)[0].word == \
        (0x8E << 24) | (3 << 12) | (3 << 8) | (4 << 4) | 1
    # signed imm12: -1 is 0xFFF in bits 23..12
    assert assemble("SFPIADD -1, 0, 1, 5", wh)[0].word == (0x79 << 24) | (0xFFF << 12) | 0x15


def test_registers_and_symbolic_modifiers_are_accepted():
    wh = assemble("SFPLUT L4, SGN_RETAIN|SFPLUT_MOD0_INDIRECT_VD", "wormhole")[0]
    assert (wh.vd, wh.mod0) == (4, 12)
    bh = assemble("sfpload l3, MOD0_FMT_BF16, 0, 8  # comment", "blackhole")[0]
    assert (bh.mnemonic, bh.vd, bh.mod0, bh.imm10) == ("SFPLOAD", 3, 2, 8)
    assert assemble("SFPMAD L0, L1, L2, L3, NEGATE_VA|NEGATE_VC", "blackhole")[0].mod1 == 3


@pytest.mark.parametrize("text,arch,error,fragments", [
    ("  SFPFOO 1, 2", "wormhole", UnknownInstruction, ["prog.s:1:3", "unknown mnemonic"]),
    ("SFPMAD L0, L1, L2", "wormhole", FieldOutOfRange, ["prog.s:1:1", "takes 5 operands"]),
    ("SFPLOADI L0, 0, 0x10000", "wormhole", FieldOutOfRange, ["prog.s:1:17", "imm16", "0..65535"]),
    ("SFPIADD 2048, L0, L1, 5", "blackhole", FieldOutOfRange, ["imm12", "-2048..2047"]),
    ("SFPMAD L0, L1, L2, L16, 0", "blackhole", FieldOutOfRange, ["vd", "0..15"]),
    ("SFPMAD L0, L1, L2, L3, 1", "wormhole", NotOnChip, ["mod1 = 1", "Wormhole B0"]),
    ("SFPGT 0, L1, L2, 1", "wormhole", NotOnChip, ["SFPGT does not exist on Wormhole B0"]),
    ("SFPMAD L0, L1, L2, L9, 0", "blackhole", ReadOnlyRegister, ["prog.s:1:20", "L9"]),
    ("SFPLUT L0, SGN_KEEP", "blackhole", FieldOutOfRange, ["no modifier named 'SGN_KEEP'"]),
])
def test_bad_assembly_is_one_line_naming_the_place(text, arch, error, fragments):
    with pytest.raises(error) as caught:
        assemble("# header\n" * 0 + text, arch, "prog.s")
    message = str(caught.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message


@pytest.mark.parametrize("word,arch,error,fragment", [
    (0x12000000, "blackhole", UnknownInstruction, "not an SFPU instruction"),
    (0x96000000, "wormhole", NotOnChip, "SFPLE (opcode 0x96) does not exist on Wormhole B0"),
    (0x80000001, "wormhole", FieldOutOfRange, "mod1 = 1 is out of range"),
    (0x8F000080, "blackhole", FieldOutOfRange, "reserved bits"),
    (0x71030000, "wormhole", NotOnChip, "mod0 = 3 is not a documented mode"),
])
def test_bad_words_raise_the_documented_error(word, arch, error, fragment):
    with pytest.raises(error) as caught:
        decode(word, arch)
    assert fragment in str(caught.value)
    assert isinstance(caught.value, IsaError)
