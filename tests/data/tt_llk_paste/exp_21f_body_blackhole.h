// tenstorrent/tt-metal @00f6b496 tt_metal/hw/ckernels/blackhole/metal/llk_api/llk_sfpu/
// ckernel_sfpu_exp.h, _sfpu_exp_21f_bf16_tti_'s recorded body, verbatim, without the lines of its
// `if constexpr (SCALE_EN) { ... }` block and of the `if constexpr (!is_fp32_dest_acc_en) {` / `}`
// around the rounding (the SCALE_EN=false, is_fp32_dest_acc_en=false instantiation).
        // val = sfpi::dst_reg[0]
        TTI_SFPLOAD(p_sfpu::LREG0, InstrModLoadStore::DEFAULT, ADDR_MOD_7, 0);

        // xlog2 = val * (1/ln2) + 127.0f, into LREG3 (preserved past int-part work).
        TTI_SFPMAD(p_sfpu::LREG0, p_sfpu::LREG12, p_sfpu::LREG5, p_sfpu::LREG3, 0);

        // LREG1 = 255.0f. Slots into the SFPMAD's 2-cycle latency window.
        TTI_SFPLOADI(p_sfpu::LREG1, sfpi::SFPLOADI_MOD0_FLOATB, 0x437f);

        // Upper clamp. SFPSWAP (mode VEC_MIN_MAX = "max into lreg_dest"):
        //   LREG1 = max(255, xlog2), LREG3 = min(255, xlog2).
        TTI_SFPSWAP(0, p_sfpu::LREG1, p_sfpu::LREG3, sfpi::SFPSWAP_MOD1_VEC_MIN_MAX);

        // _float_to_int32_for_exp_21f_: shift mantissa left by exp-bias bits.
        // Reads xlog2 from LREG3, leaves int_part in LREG0 (LREG0 freed of val).
        TTI_SFPEXEXP(0, p_sfpu::LREG3, p_sfpu::LREG1, 0);  // LREG1 = exexp(xlog2)
        TTI_SFPEXMAN(0, p_sfpu::LREG3, p_sfpu::LREG0, 0);  // LREG0 = exman8(xlog2)
        TTI_SFPSHFT(0, p_sfpu::LREG1, p_sfpu::LREG0, 0);   // LREG0 <<= LREG1   (int_part)

        // Extract fractional part (sfpi::exman9 with PAD9). LREG0 still holds
        // the integer-part-as-float-encoding which feeds SETEXP later.
        TTI_SFPEXMAN(0, p_sfpu::LREG0, p_sfpu::LREG1, sfpi::SFPEXMAN_MOD1_PAD9);

        // frac = convert<vFloat>(fractional_part, RoundMode::Nearest)
        constexpr unsigned SFPCAST_MOD1_SM32_TO_FP32_RNE = 0;
        TTI_SFPCAST(p_sfpu::LREG1, p_sfpu::LREG1, SFPCAST_MOD1_SM32_TO_FP32_RNE);

        // Polynomial refinement of 2^x_f on [0, 1] in Horner form:
        //   frac = c0 + frac * (c1 + frac * c2)
        //        = 1.0017248 + frac * (7.84e-08 + frac * 4.79e-15)
        TTI_SFPMAD(p_sfpu::LREG1, p_sfpu::LREG13, p_sfpu::LREG6, p_sfpu::LREG2, 0);

        // Negative-input handling: instead of clamping xlog2 with a max(0, ·)
        // SFPSWAP, we build a mask with (SFPGT) and mask negative value using
        // (SFPAND) below.
        // This avoids SFPLOADI + SFPSWAP and introduced instructions
        // can be interleaved with SFPMAD to hide their latency.
        constexpr unsigned SFPGT_MOD1_SET_VD = 8;
        TTI_SFPGT(0, p_sfpu::LCONST_0, p_sfpu::LREG3, SFPGT_MOD1_SET_VD);

        TTI_SFPMAD(p_sfpu::LREG2, p_sfpu::LREG1, p_sfpu::LREG7, p_sfpu::LREG1, 0);

        // Apply the mask to the integer part *before* SETEXP: for lanes with
        // xlog2 <= 0 the mask is 0, zeroing the int_part. The subsequent
        // SETEXP then produces a bf16 subnormal that flushes to 0, matching
        // the scalar max(xlog2, 0) behavior on finite inputs.
        constexpr unsigned SFPAND_MOD1_USE_VB = 1;
        TTI_SFPAND(p_sfpu::LREG0, p_sfpu::LREG3, p_sfpu::LREG0, SFPAND_MOD1_USE_VB);

        // y = setexp(frac, masked_int_part) — recombine 2^x_i * 2^x_f.
        constexpr unsigned SFPSETEXP_MOD1_ARG_EXPONENT = 2;
        TTI_SFPSETEXP(0, p_sfpu::LREG1, p_sfpu::LREG0, SFPSETEXP_MOD1_ARG_EXPONENT);

            // Round float32 -> bfloat16 using round-to-nearest before
            // SFPSTORE truncates. Avoids ULP loss on values like 9*9 = 80.8.
            TTI_SFP_STOCH_RND(
                sfpi::SFPSTOCHRND_RND_EVEN,
                0,
                p_sfpu::LREG0,
                p_sfpu::LREG0,
                p_sfpu::LREG0,
                sfpi::SFPSTOCHRND_MOD1_FP32_TO_FP16B);

        // sfpi::dst_reg[0] = y; sfpi::dst_reg++;
        // (ADDR_MOD_6 increments dest by 2 on store.)
        TTI_SFPSTORE(p_sfpu::LREG0, InstrModLoadStore::DEFAULT, ADDR_MOD_6, 0);
