# reciprocal, approximate mode, Blackhole, as the device runs it: tt-llk's SFPLOADMACRO kernel
# _calculate_reciprocal_fast_7b_ (tt-llk #834, 2025-11-26; unchanged at c635ca695 and at
# 36b092e8e, where #1473 adds the straight-line DISABLE_SFPLOADMACRO form registered as
# reciprocal_approx): _init_reciprocal_fast_7b_, then one call with iterations = 8 (Dst
# addresses 0, 2, ..., 14). Provenance in kernels/loadmacro.py.
#
# The loop is unrolled. On the device each SFPLOADMACRO's ADDR_MOD_6 advances the Dst counter
# by 2 (llk_math_eltwise_unary_sfpu.h, SfpuType::reciprocal); the harness's AddrMods move
# nothing, so the counter's value is written into each address field.
#
# --- _init_reciprocal_fast_7b_ --------------------------------------------------------------
TTI_SFPARECIP(0, 0, 12, 0)          # VD 12: InstructionTemplate[0] = arecip
TTI_SFPLOADI(0, 10, 0x0044)         # Sequence[0]: Simple 0x44 (arecip of the loaded register
TTI_SFPLOADI(0, 8, 0x4B00)          #   into L16, delay 0), Store 0x4B (L16, delay 1)
TTI_SFPCONFIG(0, 4, 0)
TTI_SFPCONFIG(0x110, 8, 1)          # Misc: macro 0 stores with the load's Mod0; Simple's delay
                                    #   counts issued instructions
# --- _calculate_reciprocal_fast_7b_(8) ------------------------------------------------------
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_6, 0)  # x = Dst[0] into L0
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_6, 2)  # x = Dst[2] into L0
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_6, 4)  # x = Dst[4] into L0
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_6, 6)  # x = Dst[6] into L0
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_6, 8)  # x = Dst[8] into L0
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_6, 10)  # x = Dst[10] into L0
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_6, 12)  # x = Dst[12] into L0
TTI_SFPLOADMACRO(0, 0, ADDR_MOD_6, 14)  # x = Dst[14] into L0
TTI_SFPNOP
TTI_SFPNOP
