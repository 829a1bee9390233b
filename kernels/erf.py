"""erf / erfc kernels (tt-metal ``ckernel_sfpu_erf_erfc.h``, 2024 - Apr 2026).

``erf``, ``erfc``: what ttnn.erf / ttnn.erfc run on a BF16 tensor in Jan 2026: tenstorrent/
tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/
ckernel_sfpu_erf_erfc.h`` (BH @120b164d "© 2024", WH @07368c4a; the math is the same in both
and unchanged from 2024 until PR #41850, merged 2026-04-15). ``calculate_erf_body(a)`` for
``a >= 0``: ``a >= 3 -> 1``; ``a >= 1 -> POLYVAL5(-0.03170029, 0.31310241, -1.1603072,
1.91684792, -0.19469693)``; ``a >= 0 -> POLYVAL5(0.166342190, -0.476685015, 0.0275416549,
1.12544048, 0.0000661338118)``; otherwise 0 (Horner, highest power first; every literal
rounds to the same float whether read as float or double). ``erf(x) = -body(-x)`` for
``x < 0`` else ``body(x)``; ``erfc(x) = 1 + body(-x)`` for ``x < 0`` else ``1 - body(x)``.
APPROXIMATION_MODE is ignored; no rounding (the SFPSTORE to a BF16 Dst truncates). The
low piece's constant term 6.6e-5 is a floor: erf of tiny x returns about 6.6e-5, hence the
huge ULP errors near 0 (PR #39406 reports "7.2e35" on its own fractional convention).

``x < 0.0`` is the raw sign test of sfpi-gcc, so -0.0 takes the negative branch (erf(-0) =
-body(+0) = -6.6e-5); denormal inputs are not zero for the compares but read as zero in every
multiply-add (erf of a denormal is +-6.6e-5).

The rational versions of Mar-Apr 2026 (tt-metal PRs #39406 / #41850) are not
registered: the index holds the BF16 n14/d14 erf table (id 51799310206) but several undated
revisions of the shared ``ckernel_sfpu_piecewise_rational.h`` evaluator (ids 51867722956,
70815712633, 60521270748: parity by macro or by template flag, with or without an
approximate reciprocal), and neither the input clamp nor the reciprocal of the 2026-04-15
merge could be tied to one of them (PR #42540 refitted and clamped erf two days later).
"""
from __future__ import annotations

from kernels.common import polyval
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg, v_else, v_elseif, v_endif, v_if, vFloat

# calculate_erf_body pieces, ascending coefficients c0..c4 (the source lists them c4..c0).
ERF_1_TO_3 = (-0.19469693, 1.91684792, -1.1603072, 0.31310241, -0.03170029)
ERF_0_TO_1 = (0.0000661338118, 1.12544048, 0.0275416549, -0.476685015, 0.166342190)


def erf_body(x):
    """calculate_erf_body: erf(x) for x >= 0, piecewise degree-4 polynomials."""
    result = vFloat(1.0)
    with v_if(x >= 3.0):
        result.assign(1.0)
    with v_elseif(x >= 1.0):
        result.assign(polyval(x, *ERF_1_TO_3))
    with v_elseif(x >= 0.0):
        result.assign(polyval(x, *ERF_0_TO_1))
    with v_else():
        result.assign(0.0)
    v_endif()
    return result


def erf():
    """One iteration of calculate_erf (Jan 2026)."""
    x = dst_reg[0]
    with v_if(x < 0.0):
        x.assign(-x)
        x.assign(-erf_body(x))
    with v_else():
        x.assign(erf_body(x))
    v_endif()
    dst_reg[0] = x


def erfc():
    """One iteration of calculate_erfc (Jan 2026)."""
    x = dst_reg[0]
    with v_if(x < 0.0):
        x.assign(-x)
        x.assign(1.0 + erf_body(x))
    with v_else():
        x.assign(1.0 - erf_body(x))
    v_endif()
    dst_reg[0] = x


SOURCE = ("tt-metal ckernel_sfpu_erf_erfc.h calculate_erf_body (BH @120b164d, WH @07368c4a; "
          "2024 until PR #41850, Apr 2026): piecewise POLYVAL5 on [0,1) and [1,3), 1 beyond; "
          "no rounding (SFPSTORE truncates)")

register_kernel(
    "erf", erf, function="erf", mode="accurate", dest="bf16",
    provenance=SOURCE + "; erf(x) = -body(-x) for x < 0",
    description="ttnn.erf on a BF16 tensor, Jan 2026")

register_kernel(
    "erfc", erfc, function="erfc", mode="accurate", dest="bf16",
    provenance=SOURCE + "; erfc(x) = 1 + body(-x) for x < 0, else 1 - body(x)",
    description="ttnn.erfc on a BF16 tensor, Jan 2026")
