"""Unary power (x**p, p = 2.0 in the harness) with an FP32 Dst, as of Sep 2026.

Owns ``unary_power_fp32_2026_09``, the ``is_fp32_dest_acc_en = true`` instantiation of
``calculate_unary_power`` whose BF16-Dst instantiation is ``unary_power_2026_09``
(kernels/pow_2026.py, which also owns ``sfpu_unary_pow_init`` and the negative-base fix-up).

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_sfpu/
ckernel_sfpu_unary_power.h``, ``_sfpu_unary_power_fp32_`` -> ``_sfpu_unary_power_61f_updated_
<IS_POSITIVE_EXPONENT = (p >= 0)>``, in the form PR #49649 gave it (merged Jul 2026: Veltkamp
split of p, a third Newton step, the double-float ``_sfpu_pow2_f32_accurate_hilo_``); body read
in index id 54500323242 (``convert<vSMag>`` spelling of May 2026 on). Dating: issue #57446
(2026-09-22) quotes this ``_sfpu_pow2_f32_accurate_hilo_`` (``max(s, -0x7e.ffff8p0)``) on main
@6d837d88, both chips; the later rewrite onto the ``ckernel_sfpu_pow_df.h`` core (index ids
70193818099, 70602770510) fixes #57446, so it postdates 2026-09-22 and is taken as not yet
in the table's build (a model of that core, outside this repository, scores the FP32 cell 1,
not the table's 3; this form scores 3). Two merged fixes on top, read in their PR threads,
not in a stored file:

* PR #53367 (Aug 2026, issue #51468): after the sign branch, ``|b| == 0 and p > 0`` gives 0
  (the placement and test as in the later unary header and the BF16 path);
* PR #56593 (opened 2026-09-15, closes #56518): ``z = (m - 1) * recip`` with the subtract
  separate (exact, Sterbenz) instead of the fused ``m * recip - recip`` (only its PR thread
  was read; merged after 2026-09-17, so whether the table's build has it is not certain:
  ``fused_numerator=True`` gives the earlier form; the tests show both score the same cells).

Algorithm (facts carried over, not code):

1. ``|b| = 2**e * m`` with m = setexp(|b|, 127) in [1, 2), moved to [sqrt2/2, sqrt2) (m >=
   1.4142135381698608 -> m/2 by SFPDIVP2, e + 1);
2. ``ln m = 2 z P(z**2)``, z = (m - 1)/(m + 1): 1/(m + 1) from the seed 1.003 - 0.244 (m + 1)
   and three Newton steps r(2 - (m + 1) r); P the atanh series 1, 1/3, 1/5, 1/7, 1/9, 1/11
   (float literals) by Horner;
3. e to float (sign-magnitude SFPCAST); p = p_hi + p_lo by Veltkamp (splitter 4097);
   ``z_hi = p_hi e`` and ``z_lo = p_lo e + p (ln m * Prgm0)`` (Prgm0 = 1/ln 2);
4. ``2**(z_hi + z_lo)``: FastTwoSum s + e, s = max(s, -126.99999237) by SFPSWAP (e not
   cleared: the #57446 bug), k = round(s) by 1.5 * 2**23, f = (s - k) + e, r = f*LN2_HI +
   f*LN2_LO (the first product fused), Taylor exp(r) to degree 7 (1, 1, 1/2, ..., 1/5040),
   exponent field + k, +inf where s >= 128;
5. negative base: parity sign / NaN (kernels/pow_2026.py); then the zero-base fix; no rounding.

The header is the same on Blackhole (plain SFPI, #57446: "same code"), so one body serves both.
"""
from __future__ import annotations

import math

from kernels.common import polyval
from kernels.pow_2026 import (UNARY_POWER_EXPONENT, negative_base_fixup, sfpu_unary_pow_init,
                              to_sign_magnitude, zero_base_fixup)
from kernels.tanh_derivative import round_to_nearest_int32
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, addexp, dst_reg, exexp, exexp_nodebias, int32_to_float, setexp,
                           v_endif, v_if, vConstFloatPrgm0, vec_min_max, vFloat)

SQRT2 = 1.4142135381698608
RECIP_SEED_A, RECIP_SEED_B = 1.003, 0.244        # 1/t ~ A - B t on t = m + 1 in [1.7, 2.4]
RECIP_NEWTON_STEPS = 3
# atanh(z)/z = 1 + z^2/3 + z^4/5 + ...: the C double literals, rounded to float by the compiler
ATANH_SERIES = (1.0, 0.3333333333333333, 0.2, 0.14285714285714285, 0.1111111111111111,
                0.09090909090909091)
VELTKAMP_SPLIT = 4097.0                          # 2**12 + 1
POW2_LOW_CLAMP = float.fromhex("-0x7e.ffff8p0")  # -126.99999237060546875
POW2_OVERFLOW = 128.0
LN2_HI, LN2_LO = 0.693359375, -2.12194440e-4
EXP_TAYLOR = (1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0, 1.0 / 5040.0)
# PR #56593's separate subtract; True gives PR #49649's fused m*recip - recip (see above).
Z_NUMERATOR_FUSED = False


def log_mantissa(abs_base, fused_numerator: bool = Z_NUMERATOR_FUSED):
    """Steps 1-2: ``(ln m, e)`` with |b| = 2**e m, m in [sqrt2/2, sqrt2)."""
    m = setexp(abs_base, 127)
    exponent = exexp(abs_base)
    with v_if(m >= SQRT2):
        m.assign(addexp(m, -1))
        exponent.assign(exponent + 1)
    v_endif()
    m_plus_1 = m + 1.0
    recip = RECIP_SEED_A - RECIP_SEED_B * m_plus_1
    for _ in range(RECIP_NEWTON_STEPS):
        recip = recip * (2.0 - m_plus_1 * recip)
    if fused_numerator:
        z = m * recip - recip                    # one SFPMAD: cancels for m near 1
    else:
        z = (m - 1.0) * recip                    # m - 1 exact (Sterbenz)
    series = polyval(z * z, *ATANH_SERIES)
    return 2.0 * (z * series), exponent


def pow2_hilo(z_hi, z_lo):
    """Step 4: ``_sfpu_pow2_f32_accurate_hilo_(z_hi, z_lo)``."""
    s = z_hi + z_lo
    residual = z_lo - (s - z_hi)
    low = vFloat(vFloat(POW2_LOW_CLAMP))
    vec_min_max(low, s)                          # s = max(s, -126.99999): SFPSWAP
    k, k_int = round_to_nearest_int32(s)
    f = (s - k) + residual
    r = f * LN2_HI + f * LN2_LO
    p = polyval(r, *EXP_TAYLOR)
    result = setexp(p, exexp_nodebias(p) + k_int)
    with v_if(s >= POW2_OVERFLOW):
        result.assign(math.inf)
    v_endif()
    return result


def unary_power_61f_updated(base, power: float, fused_numerator: bool = Z_NUMERATOR_FUSED):
    """``_sfpu_unary_power_61f_updated_<power >= 0>(base, power)``, Sep 2026. ``power`` is the
    kernel's scalar: loaded where used (SFPLOADI), as the compiler rematerialises a constant
    vector rather than hold it in one of the 8 LRegs across the core."""
    abs_base = abs(base)
    ln_m, exponent = log_mantissa(abs_base, fused_numerator)
    exponent_f32 = int32_to_float(to_sign_magnitude(exponent), 0)
    scaled = vFloat(power) * VELTKAMP_SPLIT
    power_hi = scaled - (scaled - power)
    power_lo = vFloat(power) - power_hi
    z_hi = power_hi * exponent_f32
    z_lo = power_lo * exponent_f32 + vFloat(power) * (ln_m * vConstFloatPrgm0)
    y = pow2_hilo(z_hi, z_lo)
    negative_base_fixup(base, vFloat(power), y)
    # (SFPU `<` reads the sign bit, so -0 takes the sign branch first)
    zero_base_fixup(abs_base, lambda: vFloat(power), y, power >= 0.0)
    return y


def unary_power_fp32_2026_09():
    """One iteration of ``calculate_unary_power<false, true, 32>(2.0)``."""
    dst_reg[0] = unary_power_61f_updated(dst_reg[0], UNARY_POWER_EXPONENT)


register_kernel(
    "unary_power_fp32_2026_09", unary_power_fp32_2026_09, init=sfpu_unary_pow_init,
    function="square", mode="accurate", dest="fp32", template="calculate_unary_power",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True, "exponent": 2.0},
    instance_of="unary_power_2026_09",
    provenance="tt-metal ckernel_sfpu_unary_power.h _sfpu_unary_power_61f_updated_ as PR #49649 "
               "left it (Jul 2026; index id 54500323242; on main @6d837d88 per issue #57446, "
               "2026-09-22, both chips) plus PR #53367's zero-base test and PR #56593's "
               "separate m - 1 (PR threads): m in [sqrt2/2, sqrt2), 1/(m+1) seed + 3 Newton, "
               "atanh series to z^11, Veltkamp p, FastTwoSum, max(s, -126.99999), degree-7 "
               "Taylor 2^f, +inf from s >= 128; no rounding; p = 2.0. Not the later pow_df "
               "core (fixes #57446, after 2026-09-22)",
    description="ttnn.pow(x, 2.0) (unary power) with an FP32 Dst, Sep 2026")
