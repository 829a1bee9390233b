# exp, approximate mode (APPROXIMATION_MODE = FAST_APPROX = true, CLAMP_NEGATIVE = true),
# BF16 Dst, Wormhole, as the device runs it: tt-llk's SFPLOADMACRO Schraudolph kernel.
# tt-llk tt_llk_wormhole_b0/common/inc/sfpu/ckernel_sfpu_exp.h @c635ca695 (2026-01-30; the macro
# code is unchanged through 864def3ea, tt-llk #1454, 2026-03-14, which adds the straight-line
# DISABLE_SFPLOADMACRO form registered as exp_approx): _init_exponential_<true, true, 1.0f>
# then one call of _calculate_exponential_<true, false, 8, true, false> (8 row groups, Dst
# addresses 0, 2, ..., 14: one 16 x 16 face). Provenance in kernels/loadmacro.py.
#
# --- init: constants through SFPCONFIG ---------------------------------------------------
TTI_SFPLOADI(0, 0xA, 0x0000)        # L0 low half: -88.5 = 0xC2B10000
TTI_SFPLOADI(0, 0x8, 0xC2B1)
TTI_SFPCONFIG(0, 14, 0)             # LReg[14] = -88.5 (the clamp)
TTI_SFPLOADI(0, 0xA, 0xAA3B)        # A = 256 / ln 2 = 369.329925537109375 = 0x43B8AA3B
TTI_SFPLOADI(0, 0x8, 0x43B8)
TTI_SFPCONFIG(0, 12, 0)             # LReg[12] = A
TTI_SFPLOADI(0, 0xA, 0xE9A3)        # B - C = 32500.818359375 = 0x46FDE9A3
TTI_SFPLOADI(0, 0x8, 0x46FD)
TTI_SFPCONFIG(0, 13, 0)             # LReg[13] = B - C
# --- init: the macro instructions ----------------------------------------------------------
TTI_SFPLOADI(0, 0xA, 0x00E1)        # the word of SFPSWAP(0, L0, L14, VEC_MIN_MAX)
TTI_SFPLOADI(0, 0x8, 0x9200)
TTI_SFPCONFIG(0, 0, 0)              # InstructionTemplate[0] = 0x920000E1
TTI_SFPNOP
TTI_SFPMAD(12, 0, 13, 13, 0)        # VD 13: backdoor -> InstructionTemplate[1] (L12 * x + L13)
TTI_SFP_STOCH_RND(0, 0, 0, 0, 14, 14)   # VD 14 -> InstructionTemplate[2] (FP32 -> UINT16)
TTI_SFPSHFT(15, 0, 15, 1)           # VD 15 -> InstructionTemplate[3] (<< 15)
TTI_SFPLOADI(0, 0xA, 0x0004)        # Sequence[1]: Simple 0x04 (template 0, delay 0),
TTI_SFPLOADI(0, 0x8, 0x1300)        #   Store 0x13 (SFPSTORE of the loaded register, delay 2)
TTI_SFPCONFIG(0, 5, 0)
TTI_SFPLOADI(0, 0xA, 0x85DF)        # Sequence[0]: Simple 0xDF (template 3, delay 3, VB = the
TTI_SFPLOADI(0, 0x8, 0x6316)        #   loaded register, result to L16), MAD 0x85 (template 1,
TTI_SFPCONFIG(0, 4, 0)              #   delay 0, VB = loaded), Round 0x16 (template 2, delay 2),
                                    #   Store 0x63 (SFPSTORE of L16, delay 4)
TTI_SFPCONFIG(0, 8, 1)              # Misc = 0: StoreMod0 SRCB, delays count cycles
# --- _calculate_exponential_: sanitise x = max(x, -88.5) in Dst (macro 1) ----------------
TTI_SFPLOADMACRO(4, 0, ADDR_MOD_3, 0)     # macro 1, L0, rows 0-3 even columns
TTI_SFPNOP                          # the SFPSWAP takes two cycles and is not pipelined
TTI_SFPLOADMACRO(5, 0, ADDR_MOD_3, 2)     # L1, rows 0-3 odd columns
TTI_SFPNOP
TTI_SFPLOADMACRO(6, 0, ADDR_MOD_3, 4)     # L2, rows 4-7 even
TTI_SFPNOP
TTI_SFPLOADMACRO(7, 0, ADDR_MOD_3, 6)     # L3, rows 4-7 odd
TTI_SFPNOP
TTI_SFPLOADMACRO(4, 0, ADDR_MOD_3, 8)
TTI_SFPNOP
TTI_SFPLOADMACRO(5, 0, ADDR_MOD_3, 10)
TTI_SFPNOP
TTI_SFPLOADMACRO(6, 0, ADDR_MOD_3, 12)
TTI_SFPNOP
TTI_SFPLOADMACRO(7, 0, ADDR_MOD_3, 14)
# --- exp: load, A*x + (B - C), round to UINT16, << 15, store (macro 0) -------------------
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_3, 0)
TTI_SFPLOADMACRO(1, 0, ADDR_MOD_3, 2)
TTI_SFPLOADMACRO(2, 0, ADDR_MOD_3, 4)
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_3, 6)
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_3, 8)
TTI_SFPLOADMACRO(1, 0, ADDR_MOD_3, 10)
TTI_SFPLOADMACRO(2, 0, ADDR_MOD_3, 12)
TTI_SFPLOADMACRO(3, 0, ADDR_MOD_3, 14)
TTI_SFPNOP                          # the last stores run in the cycles after the call
