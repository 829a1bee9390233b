"""The SFPLOADMACRO kernels as the device runs them: tt-llk's approximate exp (both chips) and
Blackhole's three fast reciprocals, written as the init and the one call the device makes
(kernels/asm/*_loadmacro_<chip>.s), run by the SFPLOADMACRO model of :mod:`sfpu_sim.macro`.

Each one has a straight-line twin tt-llk wrote for ``DISABLE_SFPLOADMACRO`` and states
bit-identical, registered under the plain name: exp_approx (tt-llk #1454, 2026-03-14),
reciprocal, reciprocal_fp32 and reciprocal_approx on Blackhole (tt-llk #1473, 2026-03-14).
The tests run both over every BF16 input and require the same output bits.

One call processes 8 row groups (a 16 x 16 face, Dst addresses 0-14), as ttnn calls them
(ITERATIONS = 8); the sweep's input sits at address 0 and the other row groups hold zeros.

Sources (tenstorrent/tt-llk, read at 36b092e8e, 2026-04-11; the macro code is the same at
c635ca695, 2026-01-30, the Jan-2026 state the plain kernels follow):
``tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/ckernel_sfpu_exp.h`` ``_init_exponential_`` /
``_calculate_exponential_`` with APPROXIMATION_MODE = FAST_APPROX = CLAMP_NEGATIVE = true
(introduced 2024-04, commits 8e3cffd3e and b0b509fc8: "Disable stochastic rounding for
loadmacro exp"); ``tt_llk_blackhole/common/inc/sfpu/ckernel_sfpu_recip.h``
``_init_reciprocal_fast_{7b,8b_3c,24b_5c}_`` / ``_calculate_reciprocal_fast_*_`` (tt-llk #834,
2025-11-26); AddrMods from ``tt_llk_blackhole/llk_lib/llk_math_eltwise_unary_sfpu.h``.
"""
from __future__ import annotations

from kernels.asm_kernels import assembly_kernel
from sfpu_sim.registry import register_program

_EXP = "tt-llk tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/ckernel_sfpu_exp.h @c635ca695 " \
       "(2026-01-30; unchanged at 36b092e8e)"
_RECIP = "tt-llk tt_llk_blackhole/common/inc/sfpu/ckernel_sfpu_recip.h (#834, 2025-11-26; " \
         "unchanged at c635ca695 and 36b092e8e)"
_ONE_CALL = "one call = 8 row groups (a face), loops unrolled, the Dst counter's walk written " \
            "into the address fields"

register_program(
    "exp_approx_loadmacro", assembly_kernel("exp_approx_loadmacro", row_groups=8),
    function="exp", mode="approximate", dest="bf16",
    provenance=f"{_EXP}: _init_exponential_<true, true, 1.0, CLAMP_NEGATIVE=true> and "
               "_calculate_exponential_<true, false, 8, FAST_APPROX=true> as issued: macro 1 "
               "(load, SFPSWAP max with -88.5 from L14, store back) on the 8 row groups, then "
               f"macro 0 (load, SFPMAD A*x + (B-C), SFP_STOCH_RND to UINT16, SFPSHFT 15 into "
               f"L16, store); {_ONE_CALL}. Straight-line twin: exp_approx (tt-llk #1454)",
    description="ttnn.exp fast_and_approximate_mode=True as the device runs it (SFPLOADMACRO)")

register_program(
    "reciprocal_loadmacro", assembly_kernel("reciprocal_loadmacro", row_groups=8),
    function="reciprocal", chips=("blackhole",), mode="accurate", dest="bf16",
    provenance=f"{_RECIP}: _calculate_reciprocal_fast_8b_3c_(8) as issued: three macros per "
               "element (SFPARECIP and x = 0*0 + y via INDIRECT_VD; y |= 0x8000 by an LO16_ONLY "
               "load; z = x*y - 1 stored as BF16 and reloaded LO16 two elements later; y += t "
               f"into L16, stored); {_ONE_CALL}. Straight-line twin: reciprocal (tt-llk #1473)",
    description="ttnn.reciprocal on a BF16 tensor, Blackhole, as the device runs it "
                "(SFPLOADMACRO)")

register_program(
    "reciprocal_approx_loadmacro", assembly_kernel("reciprocal_approx_loadmacro", row_groups=8),
    function="reciprocal", chips=("blackhole",), mode="approximate", dest="bf16",
    provenance=f"{_RECIP}: _calculate_reciprocal_fast_7b_(8) as issued: one SFPLOADMACRO per "
               f"element (SFPARECIP into L16, stored); {_ONE_CALL}. Straight-line twin: "
               "reciprocal_approx (tt-llk #1473)",
    description="ttnn.reciprocal in approximate mode, Blackhole, as the device runs it "
                "(SFPLOADMACRO)")

register_program(
    "reciprocal_fp32_loadmacro", assembly_kernel("reciprocal_fp32_loadmacro", row_groups=8),
    function="reciprocal", chips=("blackhole",), mode="accurate", dest="fp32",
    provenance=f"{_RECIP}: _calculate_reciprocal_fast_24b_5c_(8) as issued: the replayed "
               "5-instruction loop (four SFPLOADMACROs and one issued SFPMAD) written out; y = "
               "arecip(x), e = 1 - x*y, t2 = (e*e + e)*e + e, min(t2, 1.0) by a scheduled "
               f"SFPSWAP, y + t2*y into L16; {_ONE_CALL}. Straight-line twin: reciprocal_fp32 "
               "(tt-llk #1473)",
    description="ttnn.reciprocal with an FP32 Dst, Blackhole, as the device runs it "
                "(SFPLOADMACRO)")
