# reciprocal, FP32 Dst, Blackhole, as the device runs it: tt-llk's SFPLOADMACRO kernel
# _calculate_reciprocal_fast_24b_5c_ (tt-llk #834, 2025-11-26; unchanged at c635ca695 and at
# 36b092e8e, where #1473 adds the straight-line DISABLE_SFPLOADMACRO form registered as
# reciprocal_fp32): _init_reciprocal_fast_24b_5c_, then one call with iterations = 8 (Dst
# addresses 0, 2, ..., 14). Provenance in kernels/loadmacro.py.
#
# y = arecip(x); e = 1 - x*y; t2 = e*e + e; t2 = t2*e + e; t2 = min(t2, 1.0); z = t2*y + y.
# The device replays a 6-instruction buffer the init records (without executing it):
#   [0] SFPLOADMACRO macro 0 into y (L3) at the current address, [1] macro 2 into t2 (L1) at
#   the previous one (-2), [2] macro 1 into e (L0), [3] SFPMAD e = -e*y + 1 (issued),
#   [4] macro 3 into z (L2) at the previous address with ADDR_MOD_6, [5] the same with
#   ADDR_MOD_7;
# the call replays [0-3], issues SFPLOAD L7 with ADDR_MOD_6 (only to advance the counter),
# replays [0-4] seven times, then SFPNOP, [1], SFPNOP, [3-4] and four SFPNOPs. Written out
# here in that order. ADDR_MOD_6 advances the Dst counter by 2 on the device; the harness's
# AddrMods move nothing, so the counter's value (2 per replay of [4]) is written into each
# address field (the previous address of the first pass is -2, address 1022, whose row group
# only feeds a result that is never stored).
#
# --- _init_reciprocal_fast_24b_5c_ ------------------------------------------------------------
TTI_SFPARECIP(0, 0, 12, 0)          # VD 12: InstructionTemplate[0] = arecip
TTI_SFPMAD(0, 0, 0, 13, 0)          # [1] = e * e + e (all three overridden / kept as L0)
TTI_SFPMAD(1, 0, 2, 14, 0)          # [2] = t2 * VB + VC
TTI_SFPSWAP(0, 10, 15, 1)           # [3] = min(VD, 1.0) (VEC_MIN_MAX against LCONST_1)
TTI_SFPLOADI(0, 10, 0x0004)         # Sequence[0] [y]: Simple 0x04 (y = arecip(y), delay 0),
TTI_SFPLOADI(0, 8, 0x7300)          #   Store 0x73 (L16, delay 6)
TTI_SFPCONFIG(0, 4, 0)
TTI_SFPLOADI(0, 10, 0x1544)         # Sequence[1] [e]: Simple 0x44 (L16 = arecip(e), delay 0),
TTI_SFPLOADI(0, 8, 0x1300)          #   MAD 0x15 (e = e*e + e, delay 2), Store 0x13 (e, delay 2)
TTI_SFPCONFIG(0, 5, 0)
TTI_SFPCONFIG(0x0697, 6, 1)         # Sequence[2] [t2]: Simple 0x97 (swap, VB = t2, delay 2),
                                    #   MAD 0x06 (t2 = t2 * e + t2... VC = t2, delay 0)
TTI_SFPLOADI(0, 10, 0xCE00)         # Sequence[3] [z]: MAD 0xCE (L16 = t2 * z + z, VB = z,
TTI_SFPLOADI(0, 8, 0x5B00)          #   delay 1), Store 0x5B (L16, delay 3)
TTI_SFPCONFIG(0, 7, 0)
TTI_SFPCONFIG(0xFF0, 8, 1)          # Misc: every macro stores with the load's Mod0; every
                                    #   delay counts issued instructions
# --- _calculate_reciprocal_fast_24b_5c_(8) --------------------------------------------------
# replay [0-3] at address 0
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_7, 0)  # [0] y <- Dst[0]
TTI_SFPLOADMACRO(9, 0, ADDR_MOD_7, 1022)  # [1] t2 <- Dst[1022]
TTI_SFPLOADMACRO(4, 0, ADDR_MOD_7, 0)  # [2] e <- Dst[0]
TTI_SFPMAD(0, 3, 10, 0, 1)  # [3] e = -e * y + 1 (NEGATE_VA)
TTI_SFPLOAD(7, 0, ADDR_MOD_6, 0)  # counter += 2 on the device
# replay [0-4], counter 2
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_7, 2)  # [0] y <- Dst[2]
TTI_SFPLOADMACRO(9, 0, ADDR_MOD_7, 0)  # [1] t2 <- Dst[0]
TTI_SFPLOADMACRO(4, 0, ADDR_MOD_7, 2)  # [2] e <- Dst[2]
TTI_SFPMAD(0, 3, 10, 0, 1)  # [3] e = -e * y + 1 (NEGATE_VA)
TTI_SFPLOADMACRO(14, 0, ADDR_MOD_6, 0)  # [4] z <- Dst[0]
# replay [0-4], counter 4
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_7, 4)  # [0] y <- Dst[4]
TTI_SFPLOADMACRO(9, 0, ADDR_MOD_7, 2)  # [1] t2 <- Dst[2]
TTI_SFPLOADMACRO(4, 0, ADDR_MOD_7, 4)  # [2] e <- Dst[4]
TTI_SFPMAD(0, 3, 10, 0, 1)  # [3] e = -e * y + 1 (NEGATE_VA)
TTI_SFPLOADMACRO(14, 0, ADDR_MOD_6, 2)  # [4] z <- Dst[2]
# replay [0-4], counter 6
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_7, 6)  # [0] y <- Dst[6]
TTI_SFPLOADMACRO(9, 0, ADDR_MOD_7, 4)  # [1] t2 <- Dst[4]
TTI_SFPLOADMACRO(4, 0, ADDR_MOD_7, 6)  # [2] e <- Dst[6]
TTI_SFPMAD(0, 3, 10, 0, 1)  # [3] e = -e * y + 1 (NEGATE_VA)
TTI_SFPLOADMACRO(14, 0, ADDR_MOD_6, 4)  # [4] z <- Dst[4]
# replay [0-4], counter 8
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_7, 8)  # [0] y <- Dst[8]
TTI_SFPLOADMACRO(9, 0, ADDR_MOD_7, 6)  # [1] t2 <- Dst[6]
TTI_SFPLOADMACRO(4, 0, ADDR_MOD_7, 8)  # [2] e <- Dst[8]
TTI_SFPMAD(0, 3, 10, 0, 1)  # [3] e = -e * y + 1 (NEGATE_VA)
TTI_SFPLOADMACRO(14, 0, ADDR_MOD_6, 6)  # [4] z <- Dst[6]
# replay [0-4], counter 10
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_7, 10)  # [0] y <- Dst[10]
TTI_SFPLOADMACRO(9, 0, ADDR_MOD_7, 8)  # [1] t2 <- Dst[8]
TTI_SFPLOADMACRO(4, 0, ADDR_MOD_7, 10)  # [2] e <- Dst[10]
TTI_SFPMAD(0, 3, 10, 0, 1)  # [3] e = -e * y + 1 (NEGATE_VA)
TTI_SFPLOADMACRO(14, 0, ADDR_MOD_6, 8)  # [4] z <- Dst[8]
# replay [0-4], counter 12
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_7, 12)  # [0] y <- Dst[12]
TTI_SFPLOADMACRO(9, 0, ADDR_MOD_7, 10)  # [1] t2 <- Dst[10]
TTI_SFPLOADMACRO(4, 0, ADDR_MOD_7, 12)  # [2] e <- Dst[12]
TTI_SFPMAD(0, 3, 10, 0, 1)  # [3] e = -e * y + 1 (NEGATE_VA)
TTI_SFPLOADMACRO(14, 0, ADDR_MOD_6, 10)  # [4] z <- Dst[10]
# replay [0-4], counter 14
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_7, 14)  # [0] y <- Dst[14]
TTI_SFPLOADMACRO(9, 0, ADDR_MOD_7, 12)  # [1] t2 <- Dst[12]
TTI_SFPLOADMACRO(4, 0, ADDR_MOD_7, 14)  # [2] e <- Dst[14]
TTI_SFPMAD(0, 3, 10, 0, 1)  # [3] e = -e * y + 1 (NEGATE_VA)
TTI_SFPLOADMACRO(14, 0, ADDR_MOD_6, 12)  # [4] z <- Dst[12]
# drain, counter 16
TTI_SFPNOP
TTI_SFPLOADMACRO(9, 0, ADDR_MOD_7, 14)  # [1] t2 <- Dst[14]
TTI_SFPNOP
TTI_SFPMAD(0, 3, 10, 0, 1)  # [3] e = -e * y + 1 (NEGATE_VA)
TTI_SFPLOADMACRO(14, 0, ADDR_MOD_6, 14)  # [4] z <- Dst[14]
TTI_SFPNOP
TTI_SFPNOP
TTI_SFPNOP
TTI_SFPNOP
