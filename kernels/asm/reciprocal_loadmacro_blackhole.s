# reciprocal, BF16 Dst, Blackhole, as the device runs it: tt-llk's SFPLOADMACRO kernel
# _calculate_reciprocal_fast_8b_3c_ (tt-llk #834, 2025-11-26; unchanged at c635ca695,
# 2026-01-30, and at 36b092e8e, 2026-04-11, where #1473 adds the straight-line
# DISABLE_SFPLOADMACRO form registered as reciprocal): _init_reciprocal_fast_8b_3c_, then one
# call with iterations = 8 (Dst addresses 0, 2, ..., 14: one 16 x 16 face). Provenance in
# kernels/loadmacro.py.
#
# The loops are unrolled. On the device ADDR_MOD_6 advances the Dst counter by 2 after each
# iteration (llk_math_eltwise_unary_sfpu.h, SfpuType::reciprocal) and ADDR_MOD_7 by 0; the
# harness's AddrMods move nothing, so the counter's value (2 per iteration) is written into
# each address field: iteration d loads y at 2d and t at 2d - 4 (prev_offset = -4).
# Registers: y = L3, L4, L5 in turn (VD; VDHi is bit 0 of the address field), x = t = L1,
# L7 = 1 (INDIRECT_VD target of the first SFPMAD), L0 = 0x80000000 (stored as BF16 0x8000).
#
# --- _init_reciprocal_fast_8b_3c_ ---------------------------------------------------------
TTI_SFPARECIP(0, 0, 12, 0)          # VD 12: InstructionTemplate[0] = y = arecip(y)
TTI_SFPMAD(9, 9, 0, 13, 8)          # [1] = 0 * 0 + y into L[L7] (INDIRECT_VD): x = y
TTI_SFPMAD(1, 0, 11, 14, 0)         # [2] = x * y - 1
TTI_SFPIADD(0, 1, 15, 4)            # [3] = t + y (integer, CC_NONE)
TTI_SFPLOADI(0, 10, 0x0504)         # Sequence[0]: Simple 0x04 (arecip, delay 0), MAD 0x05
TTI_SFPLOADI(0, 8, 0x8300)          #   (x = y, delay 0), Store 0x83 (L0 kept as VD, delay 0)
TTI_SFPCONFIG(0, 4, 0)
TTI_SFPLOADI(0, 10, 0xC6EF)         # Sequence[1]: Simple 0xEF (iadd, VB = y, to L16, delay
TTI_SFPLOADI(0, 8, 0x5300)          #   5), MAD 0xC6 (z = x*y - 1, VB = y, to L16, delay 0),
TTI_SFPCONFIG(0, 5, 0)              #   Store 0x53 (L16, delay 2)
TTI_SFPLOADI(0, 10, 0x0000)         # Sequence[2]: Store 0x4B (L16, delay 1)
TTI_SFPLOADI(0, 8, 0x4B00)
TTI_SFPCONFIG(0, 6, 0)
TTI_SFPCONFIG(0x700, 8, 1)          # Misc: StoreMod0 SRCB, Simple/MAD/Round delays count
                                    #   issued instructions, Store's count cycles
# --- _calculate_reciprocal_fast_8b_3c_(8) ---------------------------------------------------
TTI_SFPLOADI(0, 0, 0x8000)          # L0 = 0x80000000
TTI_SFPLOADI(7, 2, 1)               # L7 = 1 (x)
# iteration 0 (prologue): y = L3
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_7, 0)  # macro 0, y = L3 <- Dst[0] (SRCB)
TTI_SFPNOP
TTI_SFPLOADMACRO(7, 14, ADDR_MOD_6, 0)  # macro 1, LO16_ONLY: y |= 0x8000
# iteration 1 (prologue): y = L4
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_7, 3)  # macro 0, y = L4 <- Dst[2] (SRCB)
TTI_SFPNOP
TTI_SFPLOADMACRO(4, 14, ADDR_MOD_6, 3)  # macro 1, LO16_ONLY: y |= 0x8000
# iteration 2: y = L5; t of iteration 0
TTI_SFPLOADMACRO(1, 0, ADDR_MOD_7, 5)  # macro 0, y = L5 <- Dst[4]
TTI_SFPLOADMACRO(9, 9, ADDR_MOD_7, 0)  # macro 2, LO16: t = Dst[0] (z >> 16)
TTI_SFPLOADMACRO(5, 14, ADDR_MOD_6, 5)  # macro 1, LO16_ONLY
# iteration 3: y = L3; t of iteration 1
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_7, 6)  # macro 0, y = L3 <- Dst[6]
TTI_SFPLOADMACRO(9, 9, ADDR_MOD_7, 2)  # macro 2, LO16: t = Dst[2] (z >> 16)
TTI_SFPLOADMACRO(7, 14, ADDR_MOD_6, 6)  # macro 1, LO16_ONLY
# iteration 4: y = L4; t of iteration 2
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_7, 9)  # macro 0, y = L4 <- Dst[8]
TTI_SFPLOADMACRO(9, 9, ADDR_MOD_7, 4)  # macro 2, LO16: t = Dst[4] (z >> 16)
TTI_SFPLOADMACRO(4, 14, ADDR_MOD_6, 9)  # macro 1, LO16_ONLY
# iteration 5: y = L5; t of iteration 3
TTI_SFPLOADMACRO(1, 0, ADDR_MOD_7, 11)  # macro 0, y = L5 <- Dst[10]
TTI_SFPLOADMACRO(9, 9, ADDR_MOD_7, 6)  # macro 2, LO16: t = Dst[6] (z >> 16)
TTI_SFPLOADMACRO(5, 14, ADDR_MOD_6, 11)  # macro 1, LO16_ONLY
# iteration 6: y = L3; t of iteration 4
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_7, 12)  # macro 0, y = L3 <- Dst[12]
TTI_SFPLOADMACRO(9, 9, ADDR_MOD_7, 8)  # macro 2, LO16: t = Dst[8] (z >> 16)
TTI_SFPLOADMACRO(7, 14, ADDR_MOD_6, 12)  # macro 1, LO16_ONLY
# iteration 7: y = L4; t of iteration 5
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_7, 15)  # macro 0, y = L4 <- Dst[14]
TTI_SFPLOADMACRO(9, 9, ADDR_MOD_7, 10)  # macro 2, LO16: t = Dst[10] (z >> 16)
TTI_SFPLOADMACRO(4, 14, ADDR_MOD_6, 15)  # macro 1, LO16_ONLY
# epilogue: t of iteration 6
TTI_SFPNOP
TTI_SFPLOADMACRO(9, 9, ADDR_MOD_6, 12)  # macro 2, t = Dst[12]
TTI_SFPNOP
# epilogue: t of iteration 7
TTI_SFPNOP
TTI_SFPLOADMACRO(9, 9, ADDR_MOD_6, 14)  # macro 2, t = Dst[14]
TTI_SFPNOP
TTI_SFPNOP
