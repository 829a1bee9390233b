"""One immutable description per chip: ``"wormhole"`` (Wormhole B0) and ``"blackhole"``
(Blackhole A0).

Owns: constant registers and their reset values, which instructions and modifier values exist,
their encodings (TT_SFP* macro argument order), the FMA model, the behaviour differences the
instructions consult (as data, never as ``if arch ==``), the CC stack depth and the scheduling
hazard rules. Knows nothing of execution.

Sources: ../shared/spec/isa-reference.md §1-§5 (a digest of tenstorrent/tt-isa-documentation
WormholeB0/ and BlackholeA0/ TensixTile/TensixCoprocessor/*.md, 2025-06 to 2025-09 revisions);
macro argument orders from tenstorrent/tt-llk ``ckernel_ops.h`` (2026-04-11).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Callable, Mapping

import numpy as np

from sfpu_sim import fma, formats
from sfpu_sim.isa import arith, cc, convert, fields, integer, lanes, loadstore, lut
from sfpu_sim.isa.spec import (
    LOAD,
    MAD,
    MOD,
    ROUND,
    SIMPLE,
    STORE,
    Instruction,
    NotOnChip,
    Opcode,
    Operand,
    imm,
    lreg,
    mod,
)

ALL_LREGS = frozenset(range(17))
NEGATIVE_ZERO, ONE = np.uint32(0x80000000), np.uint32(0x3F800000)
NONE = frozenset()


@dataclass(frozen=True, eq=False)
class Arch:
    """A chip. See the module docstring; fields are documented where they are set below."""
    name: str
    title: str
    fma_rules: fma.FmaRules
    constant_lregs: Mapping[int, int]
    opcodes: Mapping[str, Opcode]
    cc_stack_depth: int
    addr_mod_bits: int
    # Behaviour differences consulted by instructions (isa-reference §4.4)
    load_int8_magnitude_bits: int        # SFPLOAD INT8: 7 magnitude bits (WH) or 8 (BH)
    sign_magnitude_conversions: bool     # SFPLOAD/SFPSTORE INT32_SM and INT8_COMP convert (WH)
    int32_all_uses_stack_pointer: bool   # INT32_ALL addressing via the Sp RWC (BH)
    shflshr1_fills_stale: bool           # SFPSHFT2 SHFLSHR1 fills lanes 0/8/16/24 stale (WH bug)
    popc_full_stack_bug: bool            # SFPPOPC mod1 != 0 on a full stack clobbers bottom (WH)
    shuffles_stall: bool                 # SFPSHFT2 modes 2-4 stall the next cycle (BH; WH: NOP)
    hazard_rule: Callable
    # The binary32 host platforms of sfpu_sim.determinism run the chips' instruction streams
    # with their own arithmetic and conversions; both chips keep these defaults.
    fused: bool = True                   # SFPMAD rounds once (False: the product first, alone)
    mul_is_plain_product: bool = False   # SFPMUL reads a +0 addend as -0: a*b as a host has it
    bf16_store: Callable = formats.fp32_to_bf16_truncate     # SFPSTORE FP32 -> BF16
    fp32_store: Callable = formats.flush_denormals           # SFPSTORE FP32 -> FP32

    @property
    def by_opcode(self) -> Mapping[int, Opcode]:
        return _by_opcode(self)

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
# Static register use (hazards, register allocation)
# --------------------------------------------------------------------------------------------

def _fields(*names: str) -> Callable:
    return lambda i: frozenset(i.values[n] for n in names)


def _mad_reads(i: Instruction):
    if i.mod1 & 4:                       # INDIRECT_VA: any register, chosen by L7
        return ALL_LREGS
    return frozenset({i.va, i.vb, i.vc} | ({7} if i.mod1 & 8 else set()))


def _mad_writes(i: Instruction):
    return ALL_LREGS if i.mod1 & 8 and i.vd != 16 else frozenset({i.vd})


def _vd_imm_reads(i: Instruction):       # SFPADDI / SFPMULI read their own VD
    return frozenset({i.vd} | ({7} if i.mod1 & 8 else set()))


def _lut_reads(i: Instruction):
    return frozenset({0, 1, 2, 3} | ({7} if i.mod0 & 8 else set()))


def _lut_writes(i: Instruction):
    return ALL_LREGS if i.mod0 & 8 and i.vd != 16 else frozenset({i.vd})


def _lutfp32_reads(i: Instruction):
    return frozenset({0, 1, 2, 3, 4, 5, 6, 7})


def _lutfp32_writes(i: Instruction):
    return ALL_LREGS if i.mod1 & 8 and i.vd != 16 else frozenset({i.vd})


def _iadd_reads(i: Instruction):
    return frozenset({i.vc} if i.mod1 & 1 else {i.vc, i.vd})


def _shft_reads(i: Instruction):
    if i.mod1 & 1:
        return frozenset({i.vc} if i.mod1 & 4 else {i.vd})
    return frozenset({i.vc, i.vd})


def _and_or_reads(i: Instruction):
    return frozenset({i.vc, i.imm12 & 15} if i.mod1 & 1 else {i.vc, i.vd})


def _setexp_reads(i: Instruction):
    return frozenset({i.vc} if i.mod1 & 1 else {i.vc, i.vd})


def _setman_reads(i: Instruction):
    return frozenset({i.vc} if i.mod1 & 1 else {i.vc, i.vd})


def _setsgn_reads(i: Instruction):
    return frozenset({i.vc} if i.mod1 & 1 else {i.vc, i.vd})


def _mov_reads(i: Instruction):
    return NONE if i.mod1 & 8 else frozenset({i.vc})


def _stochrnd_reads(i: Instruction):
    uses_vb = i.mod1 in (4, 5) and not i.mod1 & 8
    return frozenset({i.vc, i.vb} if uses_vb else {i.vc})


def _swap_regs(i: Instruction):
    return frozenset({i.vc, i.vd, 4, 5, 6, 7})


def _shft2_reads(i: Instruction):
    mode = i.mod1
    if mode in (0, 1):
        return frozenset({0, 1, 2, 3})
    if mode == 2:
        return frozenset({0, 1, 2, 3, i.vc})
    if mode in (3, 4):
        return frozenset({i.vc})
    if mode == 5:
        return frozenset({i.imm12 & 15, i.vc})
    return frozenset({i.imm12 & 15})


def _shft2_writes(i: Instruction):
    return frozenset({0, 1, 2, 3}) if i.mod1 <= 2 else frozenset({i.vd})


def _cmp_writes(i: Instruction):         # SFPGT / SFPLE write VD only with SET_VD
    return frozenset({i.vd}) if i.mod1 & 8 else NONE


def _recip_reads(i: Instruction):
    return frozenset({i.vc, i.imm12 & 15} if i.mod1 == 1 else {i.vc})


def _store_reads(i: Instruction):
    return frozenset({i.vd})


def _transp_regs(i: Instruction):
    return frozenset(range(8))


_vc = _fields("vc")
_vd = _fields("vd")
_vc_vd = _fields("vc", "vd")


def _none(i: Instruction):
    return NONE


# --------------------------------------------------------------------------------------------
# The instruction table
# --------------------------------------------------------------------------------------------

def _imm12_format(imm_low=0, imm_high=0, signed=False, vc_high=15, mod_high=15):
    """Operands of the (imm12_math, lreg_c, lreg_dest, instr_mod1) macros. ``*_high = 0``
    marks a field the instruction does not have (its bits must be zero)."""
    return (imm("imm12", 12, 12, signed=signed, low=imm_low, high=imm_high),
            lreg("vc", 8, high=vc_high), lreg("vd", 4),
            Operand("mod1", 0, 4, MOD, high=mod_high))


def _mad_format():
    return (lreg("va", 16), lreg("vb", 12), lreg("vc", 8), lreg("vd", 4), mod("mod1", 0))


LOADSTORE_FORMATS = {"SRCB": 0, "FP16": 1, "FP16A": 1, "BF16": 2, "FP16B": 2, "FP32": 3,
                     "INT32": 4, "INT8": 5, "UINT16": 6, "HI16": 7, "INT16": 8, "LO16": 9,
                     "INT32_ALL": 10, "ZERO": 11, "INT32_SM": 12, "INT8_COMP": 13,
                     "LO16_ONLY": 14, "HI16_ONLY": 15}
LOADSTORE_NAMES = {**{f"MOD0_FMT_{k}": v for k, v in LOADSTORE_FORMATS.items()},
                   **LOADSTORE_FORMATS}


def _names(prefix: str, **values: int) -> dict[str, int]:
    """Symbolic modifier names, accepted with and without the ISA page's prefix."""
    return {**values, **{f"{prefix}_{k}": v for k, v in values.items()}}


def _build_opcodes(bh: bool) -> dict[str, Opcode]:
    """Every SFPU instruction as Wormhole B0 (``bh=False``) or Blackhole A0 has it."""
    addr_mod = imm("addr_mod", 13, 3) if bh else imm("addr_mod", 14, 2)
    every = frozenset(range(16))
    mad_modes = every if bh else frozenset({0, 4, 8, 12})
    mad_names = _names("SFPMAD_MOD1", INDIRECT_VA=4, INDIRECT_VD=8,
                       **({"NEGATE_VA": 1, "NEGATE_VC": 2} if bh else {}))
    ops = [
        Opcode("SFPLOAD", 0x70, (lreg("vd", 20), mod("mod0", 16), addr_mod, imm("imm10", 0, 10)),
               LOAD, loadstore.sfpload, "mod0", every, LOADSTORE_NAMES,
               reads=_none, writes=_vd, backdoor=False),
        Opcode("SFPLOADI", 0x71, (lreg("vd", 20), mod("mod0", 16), imm("imm16", 0, 16)),
               LOAD, loadstore.sfploadi, "mod0", frozenset({0, 1, 2, 4, 8, 10}),
               _names("SFPLOADI_MOD0", FLOATB=0, FLOATA=1, USHORT=2, SHORT=4, UPPER=8,
                      LOWER=10),
               reads=lambda i: frozenset({i.vd}) if i.mod0 in (8, 10) else NONE, writes=_vd,
               backdoor=False),
        Opcode("SFPSTORE", 0x72, (lreg("vd", 20), mod("mod0", 16), addr_mod, imm("imm10", 0, 10)),
               STORE, loadstore.sfpstore, "mod0", every, LOADSTORE_NAMES,
               reads=_store_reads, writes=_none, writes_vd=False),
        Opcode("SFPLUT", 0x73, (lreg("vd", 20), mod("mod0", 16),
                                imm("dest_reg_addr", 0, 16, high=0, default=0)),
               MAD, lut.sfplut, "mod0", frozenset({0, 4, 8, 12}),
               _names("SFPLUT_MOD0", SGN_RETAIN=4, INDIRECT_VD=8),
               reads=_lut_reads, writes=_lut_writes, latency=2),
        Opcode("SFPMULI", 0x74, (imm("imm16", 8, 16), lreg("vd", 4), mod("mod1", 0)),
               MAD, arith.sfpmuli, "mod1", frozenset({0, 2, 8, 10} if bh else {0, 8}),
               _names("SFPMULI_MOD1", INDIRECT_VD=8, **({"NEGATE_VC": 2} if bh else {})),
               reads=_vd_imm_reads, writes=_mad_writes, latency=2),
        Opcode("SFPADDI", 0x75, (imm("imm16", 8, 16), lreg("vd", 4), mod("mod1", 0)),
               MAD, arith.sfpaddi, "mod1", frozenset({0, 2, 8, 10} if bh else {0, 8}),
               _names("SFPADDI_MOD1", INDIRECT_VD=8, **({"NEGATE_VC": 2} if bh else {})),
               reads=_vd_imm_reads, writes=_mad_writes, latency=2),
        Opcode("SFPDIVP2", 0x76, _imm12_format(-128, 127, signed=True), SIMPLE, fields.sfpdivp2,
               "mod1",
               frozenset({0, 1}), _names("SFPDIVP2_MOD1", ADD=1), reads=_vc, writes=_vd),
        Opcode("SFPEXEXP", 0x77, _imm12_format(), SIMPLE, fields.sfpexexp, "mod1",
               frozenset({0, 1, 2, 3, 8, 9, 10, 11}),
               _names("SFPEXEXP_MOD1", NODEBIAS=1, SET_CC_SGN_EXP=2, SET_CC_COMP_EXP=8),
               reads=_vc, writes=_vd),
        Opcode("SFPEXMAN", 0x78, _imm12_format(), SIMPLE, fields.sfpexman, "mod1",
               frozenset({0, 1}), _names("SFPEXMAN_MOD1", PAD9=1), reads=_vc, writes=_vd),
        Opcode("SFPIADD", 0x79, _imm12_format(-2048, 2047, signed=True), SIMPLE, integer.sfpiadd,
               "mod1", every,
               _names("SFPIADD_MOD1", ARG_LREG_DST=0, ARG_IMM=1, ARG_2SCOMP_LREG_DST=2,
                      CC_LT0=0, CC_NONE=4, CC_GTE0=8),
               reads=_iadd_reads, writes=_vd),
        Opcode("SFPSHFT", 0x7A, _imm12_format(-2048, 2047, signed=True), SIMPLE, integer.sfpshft,
               "mod1", frozenset(range(8)) if bh else frozenset({0, 1}),
               _names("SFPSHFT_MOD1", ARG_IMM=1,
                      **({"ARITHMETIC": 2, "ARG_IMM_USE_VC": 4} if bh else {})),
               reads=_shft_reads, writes=_vd),
        Opcode("SFPSETCC", 0x7B, _imm12_format(0, 1), SIMPLE, cc.sfpsetcc, "mod1",
               frozenset({0, 1, 2, 4, 6, 8}),
               _names("SFPSETCC_MOD1", IMM_BIT0=1, CLEAR=8, LREG_LT0=0, LREG_NE0=2,
                      LREG_GTE0=4, LREG_EQ0=6),
               reads=_vc, writes=_none, writes_vd=False),
        Opcode("SFPMOV", 0x7C, _imm12_format(), SIMPLE, fields.sfpmov, "mod1",
               frozenset({0, 1, 2, 8}),
               _names("SFPMOV_MOD1", NEGATE=1, ALL_LANES_ENABLED=2, FROM_SPECIAL=8),
               reads=_mov_reads, writes=_vd),
        Opcode("SFPABS", 0x7D, _imm12_format(), SIMPLE, fields.sfpabs, "mod1", frozenset({0, 1}),
               _names("SFPABS_MOD1", INT=0, FLOAT=1), reads=_vc, writes=_vd),
        Opcode("SFPAND", 0x7E, _imm12_format(0, 15 if bh else 0), SIMPLE, integer.sfpand, "mod1",
               frozenset({0, 1} if bh else {0}),
               _names("SFPAND_MOD1", **({"USE_VB": 1} if bh else {})),
               reads=_and_or_reads, writes=_vd),
        Opcode("SFPOR", 0x7F, _imm12_format(0, 15 if bh else 0), SIMPLE, integer.sfpor, "mod1",
               frozenset({0, 1} if bh else {0}),
               _names("SFPOR_MOD1", **({"USE_VB": 1} if bh else {})),
               reads=_and_or_reads, writes=_vd),
        Opcode("SFPNOT", 0x80, _imm12_format(mod_high=0), SIMPLE, integer.sfpnot,
               reads=_vc, writes=_vd),
        Opcode("SFPLZ", 0x81, _imm12_format(), SIMPLE, integer.sfplz, "mod1",
               frozenset(range(0, 16, 2)),
               _names("SFPLZ_MOD1", CC_NE0=2, NOSGN_MASK=4, CC_COMP=8), reads=_vc, writes=_vd),
        Opcode("SFPSETEXP", 0x82, _imm12_format(0, 255), SIMPLE, fields.sfpsetexp, "mod1",
               frozenset({0, 1, 2}), _names("SFPSETEXP_MOD1", ARG_IMM=1, ARG_EXPONENT=2),
               reads=_setexp_reads, writes=_vd),
        Opcode("SFPSETMAN", 0x83, _imm12_format(0, 4095), SIMPLE, fields.sfpsetman, "mod1",
               frozenset({0, 1}), _names("SFPSETMAN_MOD1", ARG_IMM=1),
               reads=_setman_reads, writes=_vd),
        Opcode("SFPMAD", 0x84, _mad_format(), MAD, arith.sfpmad, "mod1", mad_modes, mad_names,
               reads=_mad_reads, writes=_mad_writes, latency=2),
        Opcode("SFPADD", 0x85, _mad_format(), MAD, arith.sfpmad, "mod1", mad_modes, mad_names,
               reads=_mad_reads, writes=_mad_writes, latency=2),
        Opcode("SFPMUL", 0x86, _mad_format(), MAD, arith.sfpmul, "mod1", mad_modes, mad_names,
               reads=_mad_reads, writes=_mad_writes, latency=2),
        Opcode("SFPPUSHC", 0x87, _imm12_format(vc_high=0), SIMPLE, cc.sfppushc, "mod1",
               every if bh else frozenset({0}), reads=_none, writes=_none, writes_vd=False),
        Opcode("SFPPOPC", 0x88, _imm12_format(vc_high=0), SIMPLE, cc.sfppopc, "mod1", every,
               reads=_none, writes=_none, writes_vd=False),
        Opcode("SFPSETSGN", 0x89, _imm12_format(0, 1), SIMPLE, fields.sfpsetsgn, "mod1",
               frozenset({0, 1}), _names("SFPSETSGN_MOD1", ARG_IMM=1),
               reads=_setsgn_reads, writes=_vd),
        Opcode("SFPENCC", 0x8A, _imm12_format(0, 3, vc_high=0), SIMPLE, cc.sfpencc, "mod1",
               frozenset({0, 1, 2, 3, 8, 9, 10, 11}),
               _names("SFPENCC_MOD1", EC=1, EI=2, RI=8),
               reads=_none, writes=_none, writes_vd=False),
        Opcode("SFPCOMPC", 0x8B, _imm12_format(vc_high=0, mod_high=0), SIMPLE, cc.sfpcompc,
               reads=_none, writes=_none, writes_vd=False),
        Opcode("SFPTRANSP", 0x8C, _imm12_format(vc_high=0, mod_high=0), SIMPLE, lanes.sfptransp,
               reads=_transp_regs, writes=_transp_regs, writes_vd=False),
        Opcode("SFPXOR", 0x8D, _imm12_format(mod_high=0), SIMPLE, integer.sfpxor,
               reads=_vc_vd, writes=_vd),
        Opcode("SFP_STOCH_RND", 0x8E,
               (imm("round_mode", 21, 2 if bh else 1, high=2 if bh else 1), imm("imm5", 16, 5),
                lreg("vb", 12), lreg("vc", 8), lreg("vd", 4), mod("mod1", 0)),
               ROUND, convert.sfpstochrnd, "mod1", frozenset({*range(8), 12, 13}),
               _names("SFPSTOCHRND_MOD1", FP32_TO_FP16A=0, FP32_TO_FP16B=1, FP32_TO_UINT8=2,
                      FP32_TO_INT8=3, INT32_TO_UINT8=4, INT32_TO_INT8=5, FP32_TO_UINT16=6,
                      FP32_TO_INT16=7, USE_IMM5=8),
               reads=_stochrnd_reads, writes=_vd),
        Opcode("SFPNOP", 0x8F, (), SIMPLE, lanes.sfpnop, reads=_none, writes=_none,
               writes_vd=False, backdoor=False),
        Opcode("SFPCAST", 0x90, (lreg("vc", 8), lreg("vd", 4), mod("mod1", 0)), SIMPLE,
               convert.sfpcast, "mod1", frozenset(range(4)) if bh else frozenset({0, 1}),
               _names("SFPCAST_MOD1", RND_EVEN=0, RND_STOCH=1,
                      **({"INT32_ABS": 2, "INT32_SM32": 3} if bh else {})),
               reads=_vc, writes=_vd),
        Opcode("SFPCONFIG", 0x91, (imm("imm16", 8, 16), lreg("vd", 4), mod("mod1", 0)), SIMPLE,
               lanes.sfpconfig, "mod1", every,
               {"IMM16_IS_VALUE": 1, "BITWISE_OR": 2, "BITWISE_AND": 4, "BITWISE_XOR": 6,
                "IMM16_IS_LANE_MASK": 8,
                **{f"MOD1_{k}": v for k, v in (("IMM16_IS_VALUE", 1), ("BITWISE_OR", 2),
                                               ("BITWISE_AND", 4), ("BITWISE_XOR", 6),
                                               ("IMM16_IS_LANE_MASK", 8))}},
               reads=lambda i: frozenset({0}), writes=lambda i: frozenset(
                   {i.vd} if 11 <= i.vd <= 14 else set()), writes_vd=False, backdoor=False),
        Opcode("SFPSWAP", 0x92, _imm12_format(), SIMPLE, lanes.sfpswap, "mod1",
               frozenset(range(10)),
               _names("SFPSWAP_MOD1", SWAP=0, VEC_MIN_MAX=1, SUBVEC_MIN01_MAX23=2,
                      SUBVEC_MIN02_MAX13=3, SUBVEC_MIN03_MAX12=4, SUBVEC_MIN0_MAX123=5,
                      SUBVEC_MIN1_MAX023=6, SUBVEC_MIN2_MAX013=7, SUBVEC_MIN3_MAX012=8,
                      VEC_MAX_MIN=9),
               reads=_swap_regs, writes=_swap_regs, latency=2, writes_vd=False),
        Opcode("SFPLOADMACRO", 0x93, (imm("lreg_ind", 20, 4), mod("mod0", 16), addr_mod,
                                      imm("dest_reg_addr", 0, 10)),
               LOAD, loadstore.sfploadmacro, "mod0", every, LOADSTORE_NAMES,
               reads=lambda i: ALL_LREGS, writes=lambda i: ALL_LREGS, writes_vd=False,
               backdoor=False),
        Opcode("SFPSHFT2", 0x94, _imm12_format(-2048, 2047, signed=True), ROUND, lanes.sfpshft2,
               "mod1", frozenset(range(7)),
               _names("SFPSHFT2_MOD1", COPY4=0, SUBVEC_CHAINED_COPY4=1,
                      SUBVEC_SHFLROR1_AND_COPY4=2, SUBVEC_SHFLROR1=3, SUBVEC_SHFLSHR1=4,
                      SHFT_LREG=5, SHFT_IMM=6),
               reads=_shft2_reads, writes=_shft2_writes, writes_vd=False),
        Opcode("SFPLUTFP32", 0x95, (lreg("vd", 4), mod("mod1", 0))
               + ((mod("mod1_mirror", 16, default=0),) if bh else ()),
               MAD, lut.sfplutfp32, "mod1", every,
               _names("SFPLUTFP32_MOD1", FP32_3ENTRY_TABLE=0, FP16_6ENTRY_TABLE1=2,
                      FP16_6ENTRY_TABLE2=3, SGN_RETAIN=4, INDIRECT_VD=8, FP16_3ENTRY_TABLE=10),
               reads=_lutfp32_reads, writes=_lutfp32_writes, latency=2),
    ]
    if bh:
        cmp_names = _names("MOD1", SET_CC=1, MUTATE_STACK=2, MUTATE_OR=4, SET_VD=8)
        ops += [
            Opcode("SFPLE", 0x96, _imm12_format(), SIMPLE, cc.sfple, "mod1", every,
                   {**cmp_names, **_names("SFPLE_MOD1", SET_CC=1, MUTATE_STACK=2,
                                          MUTATE_OR=4, SET_VD=8)},
                   reads=_vc_vd, writes=_cmp_writes, writes_vd=False),
            Opcode("SFPGT", 0x97, _imm12_format(), SIMPLE, cc.sfpgt, "mod1", every,
                   {**cmp_names, **_names("SFPGT_MOD1", SET_CC=1, MUTATE_STACK=2,
                                          MUTATE_OR=4, SET_VD=8)},
                   reads=_vc_vd, writes=_cmp_writes, writes_vd=False),
            Opcode("SFPMUL24", 0x98, _mad_format(), MAD, arith.sfpmul24, "mod1",
                   frozenset({0, 1, 4, 5, 8, 9, 12, 13}),
                   _names("SFPMUL24_MOD1", UPPER=1, INDIRECT_VA=4, INDIRECT_VD=8),
                   reads=_mad_reads, writes=_mad_writes, latency=2),
            Opcode("SFPARECIP", 0x99, _imm12_format(0, 15), SIMPLE, convert.sfparecip, "mod1",
                   frozenset({0, 1, 2}), _names("SFPARECIP_MOD1", RECIP=0, COND_RECIP=1, EXP=2),
                   reads=_recip_reads, writes=_vd),
        ]
    return {op.mnemonic: op for op in ops}


# --------------------------------------------------------------------------------------------
# Hazards (isa-reference §5)
# --------------------------------------------------------------------------------------------

MAD_CLASS = frozenset({"SFPMAD", "SFPADD", "SFPMUL", "SFPADDI", "SFPMULI", "SFPLUT",
                       "SFPLUTFP32", "SFPMUL24"})
_AFTER_SHUFFLE_FORBIDDEN = frozenset({
    "SFPABS", "SFPAND", "SFPCAST", "SFPDIVP2", "SFPEXEXP", "SFPEXMAN", "SFPIADD", "SFPLZ",
    "SFPMOV", "SFPNOT", "SFPOR", "SFPSETEXP", "SFPSETMAN", "SFPSETSGN", "SFPSHFT", "SFPXOR",
    "SFP_STOCH_RND"})


def _regs_text(regs) -> str:
    return ", ".join(f"L{r}" for r in sorted(regs))


def _wormhole_hazard(previous: Instruction, current: Instruction) -> str | None:
    """Wormhole interlocks nothing of the MAD class and of SFPSHFT2's shuffles."""
    if previous.mnemonic in MAD_CLASS:
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
    if previous.mnemonic not in MAD_CLASS:
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
# nearest FP32; LReg[12] = 1/512 per the newest revisions (older ones: 1/65536; isa §6.1).
CONSTANT_LREGS = {8: 0x3F56594B, 9: 0x00000000, 10: 0x3F800000, 11: 0xBF800000,
                  12: 0x3B000000, 13: 0xBF2CC4C7, 14: 0xBEB08FF9}

WORMHOLE = Arch(
    name="wormhole", title="Wormhole B0", fma_rules=fma.WORMHOLE,
    constant_lregs=CONSTANT_LREGS, opcodes=_build_opcodes(bh=False), cc_stack_depth=8,
    addr_mod_bits=2, load_int8_magnitude_bits=7, sign_magnitude_conversions=True,
    int32_all_uses_stack_pointer=False,
    shflshr1_fills_stale=True, popc_full_stack_bug=True, shuffles_stall=False,
    hazard_rule=_wormhole_hazard)

BLACKHOLE = Arch(
    name="blackhole", title="Blackhole A0", fma_rules=fma.BLACKHOLE,
    constant_lregs=CONSTANT_LREGS, opcodes=_build_opcodes(bh=True), cc_stack_depth=8,
    addr_mod_bits=3, load_int8_magnitude_bits=8, sign_magnitude_conversions=False,
    int32_all_uses_stack_pointer=True,
    shflshr1_fills_stale=False, popc_full_stack_bug=False, shuffles_stall=True,
    hazard_rule=_blackhole_hazard)

ARCHES = {"wormhole": WORMHOLE, "blackhole": BLACKHOLE}


class UnknownArch(NotOnChip):
    pass


def get_arch(name: str) -> Arch:
    try:
        return ARCHES[name]
    except KeyError:
        raise UnknownArch(f"unknown arch {name!r} (choose from: {', '.join(ARCHES)})") from None
