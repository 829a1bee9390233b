// tenstorrent/tt-llk @36b092e8 tt_llk_wormhole_b0/common/inc/sfpu/ckernel_sfpu_rounding_ops.h,
// verbatim: lines 25-39 (_trunc_body_) and 47-53 (the rest of _floor_body_).
    TTI_SFPLOADI(p_sfpu::LREG3, sfpi::SFPLOADI_MOD0_SHORT, 23);
    // mask = 0x8000_0000
    TTI_SFPLOADI(p_sfpu::LREG1, sfpi::SFPLOADI_MOD0_FLOATB, 0x8000);
    // disable lanes where exp < 0
    TTI_SFPEXEXP(0, p_sfpu::LREG0, p_sfpu::LREG2, sfpi::SFPEXEXP_MOD1_SET_CC_SGN_EXP | sfpi::SFPEXEXP_MOD1_SET_CC_COMP_EXP);
    // mask = 0xffff_ffff
    TTI_SFPLOADI(p_sfpu::LREG1, sfpi::SFPLOADI_MOD0_SHORT, 0xffff);
    // exp = 23 - exp
    TTI_SFPIADD(0, p_sfpu::LREG3, p_sfpu::LREG2, sfpi::SFPIADD_MOD1_ARG_2SCOMP_LREG_DST | sfpi::SFPIADD_MOD1_CC_GTE0);
    // mask <<= exp
    TTI_SFPSHFT2(p_sfpu::LREG1, p_sfpu::LREG2, p_sfpu::LREG1, sfpi::SFPSHFT2_MOD1_SHFT_LREG);
    // reset lanes
    TTI_SFPENCC(0, 0, 0, 0);
    // apply mask
    TTI_SFPAND(0, p_sfpu::LREG0, p_sfpu::LREG1, 0);
    // on Wormhole, we don't have SFPGT, so use u<0 and (v-u)<0 instead.
    // First, ensure u<0.
    TTI_SFPSETCC(0, p_sfpu::LREG0, 0, sfpi::SFPSETCC_MOD1_LREG_LT0);
    // Then, ensure (v-u)<0 (two's complement).
    TTI_SFPIADD(0, p_sfpu::LREG1, p_sfpu::LREG0, sfpi::SFPIADD_MOD1_ARG_2SCOMP_LREG_DST | sfpi::SFPIADD_MOD1_CC_LT0);
    TTI_SFPMAD(p_sfpu::LCONST_1, p_sfpu::LREG1, p_sfpu::LCONST_neg1, p_sfpu::LREG1, 0);
    TTI_SFPENCC(0, 0, 0, 0);
