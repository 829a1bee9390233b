# exp(0.5 x), accurate mode, BF16 Dst, Wormhole, as of 2026-09-30: the exp_2026_09 body
# (_sfpu_exp_21f_bf16_tti_) with SCALE_EN = true, as calculate_exponential_const_scale<false,
# false, 32, true, 0x3F00> compiles it: the loaded x is multiplied in place by the BF16
# immediate 0x3F00 (0.5) by SFPMULI, then an SFPNOP, before the xlog2 SFPMAD. Provenance in
# kernels/approx_2026.py; the rest of this file is exp_2026_09_wormhole.s.
#
# exp, accurate mode, BF16 Dst, Wormhole, as of 2026-09-30: the hand-scheduled exp_21f body
# (_sfpu_exp_21f_bf16_tti_<SCALE_EN=false, false, CLAMP_NEGATIVE=true, 8>) that
# calculate_exponential<false, false> runs on a BF16 Dst since PR #44965 (re-land of #43973, May
# 2026). Wormhole has no SFPGT, so both sides of xlog2 are clamped by SFPSWAP (VEC_MIN_MAX: VD
# gets the min, VC the max), each followed by the SFPNOP Wormhole needs. Provenance and dating in
# kernels/exp_2026.py. One iteration of the replayed body is written out; the Dst walk
# (ADDR_MOD_3 + INCRWC) is addressing, left to the harness (mode 0).
#
# exp_init: LReg12 = 1/ln 2 (0x3FB8AA3B), LReg13 = c2 = 4.79175e-15 (0x27ACA418), via SFPCONFIG
SFPLOADI  L0, UPPER, 0x3fb8
SFPLOADI  L0, LOWER, 0xaa3b
SFPCONFIG 0, L12, 0
SFPLOADI  L0, UPPER, 0x27ac
SFPLOADI  L0, LOWER, 0xa418
SFPCONFIG 0, L13, 0
# loop-invariant registers, loaded once per call before the replayed body
SFPLOADI  L3, FLOATB, 0x42fe        # 127.0
SFPLOADI  L5, UPPER, 0x33a8         # c1 = 7.839635e-08 (0x33A85ADA)
SFPLOADI  L5, LOWER, 0x5ada
SFPLOADI  L6, FLOATA, 0x3c02        # c0 as FP16A: 1.001953125 (the sfpi form uses 1.0017248)
SFPLOADI  L2, FLOATB, 0x437f        # 255.0 (refreshed at the end of each iteration)
# one row: x = dst_reg[0]
SFPLOAD   L0, SRCB, 0, 0
SFPMULI   0x3F00, L0, 0          # x * 0.5 (the base scale, SCALE_EN)
SFPNOP
SFPMAD    L0, L12, L3, L0, 0        # xlog2 = x/ln 2 + 127
SFPMOV    0, L9, L1, 0              # L1 = 0.0 (SFPSWAP cannot name the constant register)
SFPSWAP   0, L0, L1, VEC_MIN_MAX    # L0 = max(xlog2, 0), L1 = min(xlog2, 0)
SFPNOP
SFPSWAP   0, L2, L0, VEC_MIN_MAX    # L0 = min(xlog2, 255), L2 = max(xlog2, 255)
SFPNOP
SFPEXEXP  0, L0, L1, 0              # unbiased exponent of xlog2
SFPEXMAN  0, L0, L0, 0              # mantissa with the hidden bit
SFPSHFT   0, L1, L0, 0              # z = mantissa << exponent: xlog2 * 2**23 as an integer
SFPEXMAN  0, L0, L1, PAD9           # fraction bits of z
SFPCAST   L1, L1, RND_EVEN          # frac as a float in [0, 2**23)
SFPMAD    L1, L13, L5, L2, 0        # p = frac*c2 + c1
SFPNOP
SFPMAD    L2, L1, L6, L1, 0         # p = p*frac + c0
SFPLOADI  L2, FLOATB, 0x437f        # 255.0 again for the next row's upper clamp
SFPSETEXP 0, L1, L0, ARG_EXPONENT   # y = p with the exponent field of z
SFP_STOCH_RND 0, 0, L0, L0, L0, FP32_TO_FP16B   # nearest (ties away), -0 -> +0, denormal -> 0
SFPSTORE  L0, SRCB, 0, 0            # dst_reg[0] = y
