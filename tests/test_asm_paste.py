"""tt-llk code pasted verbatim assembles (issue 19 item 3): to its registered twin's words."""
from __future__ import annotations

from pathlib import Path

import pytest

from sfpu_sim import registry
from sfpu_sim.asm import assemble, assemble_file
from sfpu_sim.errors import SfpuSimError

PASTES = Path(__file__).parent / "data" / "tt_llk_paste"


def test_wormhole_floor_body_is_the_registered_floor_body():
    pasted = assemble_file(PASTES / "floor_body_wormhole.h", "wormhole")
    twin = registry.get("floor_2026_09").program("wormhole")
    assert pasted.words == twin.words[1:-1]          # all but its SFPLOAD and SFPSTORE


def test_blackhole_exp_macro_templates_are_the_registered_loadmacro_kernel_words():
    pasted = assemble_file(PASTES / "exp_macro_templates_blackhole.h", "blackhole")
    twin = registry.get("exp_approx_loadmacro").program("blackhole")
    assert pasted.words == twin.words[9:16]
    assert pasted[3].mnemonic == "SFPNOP"            # TTI_SFPNOP; without parentheses


def test_blackhole_exp_21f_body_is_exp_2026_09_but_for_the_dst_walk():
    pasted = assemble_file(PASTES / "exp_21f_body_blackhole.h", "blackhole")
    twin = registry.get("exp_2026_09").program("blackhole").words[10:]
    # ADDR_MOD_7 on the load, ADDR_MOD_6 on the store; the twin leaves the walk at 0.
    assert [pasted[0].addr_mod, pasted[-1].addr_mod] == [7, 6]
    assert pasted.words[0] == twin[0] | 7 << 13 and pasted.words[-1] == twin[-1] | 6 << 13
    assert pasted.words[1:-1] == twin[1:-1]
    stoch = pasted[-2]                               # the clang-formatted call over 8 lines
    assert stoch.mnemonic == "SFP_STOCH_RND"
    assert stoch.source.endswith("exp_21f_body_blackhole.h:60")


def test_each_friction_of_issue_19_assembles_to_its_word():
    text = """TTI_SFPNOP;
    TTI_SFPLOADI(ckernel::p_sfpu::LREG0, sfpi::SFPLOADI_MOD0_UPPER, (0x3fb8aa3b >> 16) & 0xFFFF);
    TTI_SFPLOADI(p_sfpu::LREG0, sfpi::SFPLOADI_MOD0_LOWER, 0x3fb8aa3b & 0xFFFF); /* c */
    TTI_SFPLOAD(p_sfpu::LREG1, InstrModLoadStore::LO16, ADDR_MOD_3, 0);
    TTI_SFP_STOCH_RND(sfpi::SFPSTOCHRND_RND_STOCH, 0, 0, p_sfpu::LREG1, p_sfpu::LREG2,
                      sfpi::SFPSTOCHRND_MOD1_FP32_TO_FP16B);
    TTI_SFPAND(p_sfpu::LREG2, p_sfpu::LREG3, p_sfpu::LREG0, SFPAND_MOD1_USE_VB); TTI_SFPNOP;
    """
    words = assemble(text, "blackhole").words
    # By hand from the TT_OP_* layouts: SFPNOP 0x8F; SFPLOADI 0x71 (vd<<20 | mod0<<16 | imm16):
    # UPPER 8, LOWER 10; SFPLOAD 0x70, Blackhole AddrMod at bit 13, InstrModLoadStore::LO16 = 6
    # (not MOD0_FMT_LO16 = 9); SFP_STOCH_RND 0x8E, round mode at 21 (RND_STOCH = 1), vc<<8,
    # vd<<4, mod1 FP32_TO_FP16B = 1; SFPAND 0x7E, imm12 (VB = L2) << 12, USE_VB = 1.
    assert words == [0x8F000000, 0x71083FB8, 0x710AAA3B, 0x70166000, 0x8E200121,
                     0x7E002301, 0x8F000000]


@pytest.mark.parametrize("text, message", [
    ("TTI_SFPMAD(p_sfpu::LREG0,\n  p_sfpu::LREG1, 0, 0, 0", "<text>:1:11: this '(' is never "
     "closed (a TTI_ call ends with ')')"),
    ("SFPNOP /* open", "<text>:1:8: this /* comment is never closed (*/)"),
    ("TTI_SFPLOADI(0, 0, x >> 16);", "<text>:1:20: SFPLOADI operand imm16 must be a number, a "
     "register name or a constant expression of integer literals (+ - * << >> & | ^ ~, "
     "parentheses), got 'x >> 16'"),
    ("TTI_SFPLOADI(0, 0, (0x3fb8aa3b >> 8));", "<text>:1:20: SFPLOADI field imm16 = 4176042 "
     "is out of range (allowed 0..65535)"),
    ("constexpr unsigned K = N + 1;", "<text>:1:24: constexpr K: its value must be a constant "
     "expression of integer literals, got 'N + 1'"),
    ("sfpi::dst_reg++;", "<text>:1:1: unknown mnemonic 'sfpi::dst_reg++' (an SFPU "
     "instruction: SFPxxx operands, or a TTI_SFPxxx(...) call)"),
])
def test_bad_paste_is_one_line_naming_the_place(text, message):
    with pytest.raises(SfpuSimError) as error:
        assemble(text, "wormhole")
    assert str(error.value) == message


def test_register_kernel_takes_assembly_text_and_an_init(tmp_path, isolated):
    body = "TTI_SFPLOAD(p_sfpu::LREG0, 0, ADDR_MOD_3, 0);\nTTI_SFPSTORE(0, 0, 3, 0);\n"
    spec = registry.register_kernel("paste_copy_test", asm=body,
                                    init="TTI_SFPLOADI(p_sfpu::LREG1, 0, 0x3f80);",
                                    function="identity")
    program = spec.program("wormhole")
    assert (program.init_length, program.words) == (1, [0x71103F80, 0x7000C000, 0x7200C000])
    (tmp_path / "k.s").write_text(body)
    again = registry.register_kernel("paste_copy_file_test", asm=tmp_path / "k.s",
                                     function="identity")
    assert again.program("blackhole").init_length == 0


def test_register_kernel_refuses_a_body_and_asm_together():
    with pytest.raises(SfpuSimError, match="give a DSL body or asm=, not both"):
        registry.register_kernel("paste_both_test", lambda: None, asm="SFPNOP",
                                 function="identity")
