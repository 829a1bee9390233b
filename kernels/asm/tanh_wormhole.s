# tanh, accurate mode, BF16 Dst: what ttnn.tanh runs on a BF16 tensor by default (Jan 2026).
# Source: tenstorrent/tt-metal ckernel_sfpu_tanh.h, PR #31685 (Nov 2025), tanh_init<false,false>
# and calculate_tanh<false,false> -> _sfpu_tanh_polynomial_ + float_to_fp16b(result, 0);
# Hand-written assembly (Wormhole: a MAD result must not be read
# by the very next instruction, hence the SFPNOPs).
#
# tanh_init: vConstFloatPrgm0..2 = 5.8767339e-3, -6.6649020e-2, 0.28191763 (SFPCONFIG from L0)
SFPLOADI  L0, FLOATB, 0x3bc0
SFPLOADI  L0, LOWER, 0x919e
SFPCONFIG 0, L12, 0
SFPLOADI  L0, FLOATB, 0xbd88
SFPLOADI  L0, LOWER, 0x7f48
SFPCONFIG 0, L13, 0
SFPLOADI  L0, FLOATB, 0x3e90
SFPLOADI  L0, LOWER, 0x5782
SFPCONFIG 0, L14, 0
# calculate_tanh, one iteration: x = dst_reg[0]
SFPLOAD   L0, SRCB, 0, 0
SFPABS    0, L0, L1, FLOAT          # v = |x|
# Horner, innermost first: p = v*(c1 + v*(c2 + v*(c3 + v*(Prgm2 + v*(Prgm1 + v*Prgm0)))))
SFPMAD    L1, L12, L13, L2, 0       # t = v*Prgm0 + Prgm1
SFPLOADI  L3, FLOATB, 0xbefa        # c3 = -0.4890659749507904052734375 (0xbefa66db)
SFPLOADI  L3, LOWER, 0x66db
SFPMAD    L1, L2, L14, L2, 0        # t = v*t + Prgm2
SFPLOADI  L4, FLOATB, 0x3cfd        # c2 = 3.0897438526153564453125e-2 (0x3cfd1ca0)
SFPLOADI  L4, LOWER, 0x1ca0
SFPMAD    L1, L2, L3, L2, 0         # t = v*t + c3
SFPLOADI  L5, FLOATB, 0x3f7f        # c1 = 0.999004364013671875 (0x3f7fbec0)
SFPLOADI  L5, LOWER, 0xbec0
SFPMAD    L1, L2, L4, L2, 0         # t = v*t + c2
SFPNOP
SFPMAD    L1, L2, L5, L2, 0         # t = v*t + c1
SFPNOP
SFPMAD    L1, L2, L9, L2, 0         # p = v*t + 0
SFPNOP
SFPSWAP   0, L10, L2, VEC_MIN_MAX   # p = min(p, 1.0)  (vec_min_max; the max goes to L10: dropped)
SFPNOP
SFPSETSGN 0, L2, L0, 0              # result = |p| with the sign of x
SFP_STOCH_RND 0, 0, L0, L0, L0, FP32_TO_FP16B   # float_to_fp16b(result, 0): nearest, ties away
SFPSTORE  L0, SRCB, 0, 0            # dst_reg[0] = result
