"""expm1 kernels as of 2026-09-30: BF16 Dst and FP32 Dst.

``expm1_2026_09``: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/
llk_api/llk_sfpu/ckernel_sfpu_expm1.h``, ``calculate_expm1<false, false, 8>`` ->
``_sfpu_expm1_<false>`` then ``convert<vFloat16b>(y, Nearest)``, with ``expm1_init<false,
false>``: PR #45338 (Jason Davies, "Performance/accuracy: expm1", reviewed 2026-05-28, merged
Jun 2026), derived from Norbert Juffa's expm1. Read in the stored BH revision
@046d56035fb0850f6985125f7e4ef0435a6fb06b (the same file serves both chips: no
chip-specific instruction is used).

That revision also routes ``ITERATIONS == 32`` BF16 calls to a generated whole-tile kernel
(``calculate_expm1_bf16``, ``ckernel_sfpu_expm1_bf16.h``) when Dst is BF16. That generator
output belongs to the issue-#49435 series (PRs #55283, #56946, #57030, #57076), which were
open, unreviewed drafts on 2026-09-18; it is not modelled, and ``expm1_tile`` calls with the
default 8 iterations take ``_sfpu_expm1_`` in any case.

Algorithm (BF16 arm): ``j = a*log2(e) + 1.5*2**23`` (round to an integer in the mantissa),
``i = bits(j)``, ``j -= 1.5*2**23``; ``f = j*(-ln 2) + a``; ``r = expm1(f)`` as
``f + f*f*(0.5 + f*(c1 + f*(c2 + f*c3)))``; where ``j != 0``: ``scale = 0.5 * 2**j`` built in
the exponent field, ``r = scale*r + (scale - 0.5)``, overflow / underflow (``|j - 2| >= 127`` as
an INT8 conversion) gives ``(j - 2) * Inf`` or ``-0.5``, and ``r *= 2``.

PR #45338 publishes bf16 max ULP 1.212 -> 0.4997 (fractional ULP against an unrounded golden).

``expm1_fp32_2026_09`` (FP32 Dst, ``calculate_expm1<false, true, 32>`` -> ``_sfpu_expm1_<true>``,
no rounding, with ``expm1_init<false, true>``: Prgm0 = 1.442695, Prgm1 = -0.693145752 (ln 2
high part), Prgm2 = 1.666667163e-1). Read in three stored revisions that agree on this arm: BH
@046d5603 (index id 70812185606), index id 54609477000 (no generated-kernel hook) and PR
#57292's BH branch (index id 68551303201, opened 2026-09-22 on main a406ad5c, whose additions are
BF16-only); no chip-specific instruction. The dispatch notes' ``_sfpu_expm1_f32_accurate_``
(|x| < 0.5 polynomial, else exp - 1) is an older revision (@0d8e32af) that PR #45338 replaced.

Algorithm (FP32 arm): ``j`` as for BF16; two-part Cody-Waite ``f = a - j*0.693145752 -
j*1.42860677e-6``; ``r = expm1(f) = f*f*p(f) + u`` with Horner p = 1.974105835e-4,
1.393107930e-3, 8.333439939e-3, 4.166680202e-2, Prgm2, 0.49999997 (``bits(0.5) - 1``) and ``u =
f`` (``f + 0.5`` where ``j = 1``). Where ``j != 0`` and ``j != 1``: ``t = 0.5 * 2**j``, ``y = t -
0.5``, ``x = (t - y) - 0.5`` (the rounding error of y), ``r = (r*t + x) + y``, and the overflow /
underflow test ``|j - 2| >= 127`` (INT8 conversion; -127 for a -NaN, so it fails) gives ``(j -
2) * Inf`` or -0.5. Where ``j != 0``: ``r *= 2``.
"""
from __future__ import annotations

import math

from kernels.common import LOG2E, NEG_LN2
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    abs,
    dst_reg,
    float_to_fp16b,
    float_to_int8,
    reinterpret,
    v_endif,
    v_if,
    vConstFloatPrgm0,
    vConstFloatPrgm1,
    vConstFloatPrgm2,
    vFloat,
    vInt,
)

EXPM1_C1 = 1.666259766e-01          # expm1_init, BF16 Dst: Prgm2
FP32_NEG_LN2_HI = -0.693145752      # expm1_init, FP32 Dst: Prgm1
FP32_NEG_LN2_LO = -1.42860677e-6
FP32_C1 = 1.666667163e-1            # FP32 Dst: Prgm2
# _sfpu_expm1_<true>: the Horner coefficients of p(f) above Prgm2, highest first.
FP32_HIGH = (1.974105835e-04, 1.393107930e-3, 8.333439939e-3, 4.166680202e-2)
ROUNDING_BIAS = 12582912.0          # 1.5 * 2**23


def expm1_init():
    """``expm1_init<false, false>``."""
    vConstFloatPrgm0.assign(LOG2E)
    vConstFloatPrgm1.assign(NEG_LN2)
    vConstFloatPrgm2.assign(EXPM1_C1)


def expm1_bf16(a):
    """``_sfpu_expm1_<false>(a)``."""
    rounding_bias = vFloat(ROUNDING_BIAS)
    j = a * vConstFloatPrgm0 + rounding_bias
    r = vFloat(8.361816406e-03)
    i = reinterpret(vInt, j)
    j = j - rounding_bias
    f = j * vConstFloatPrgm1 + a                 # f = a - j*ln(2)
    r = r * f + 4.177856445e-02
    s = f * f
    r = r * f + vConstFloatPrgm2
    w = vFloat(0.5)
    r = r * f + w
    r = r * s + f                                # r = expm1(f)
    with v_if(j != 0.0):                         # j == 0: r is already expm1(a)
        jm2 = j + -2.0
        scale = reinterpret(vFloat, (i << 23) + reinterpret(vInt, w))    # 0.5 * 2**j
        abs_jm2 = abs(jm2)
        bias = scale - w
        tail = reinterpret(vInt, float_to_int8(abs_jm2, 0))            # |j - 2|, clamped 127
        r.assign(scale * r + bias)
        with v_if(tail >= 127):
            r.assign(jm2 * math.inf)             # overflow, and NaN propagation
            with v_if(jm2 < 0.0):
                r.assign(-0.5)                   # underflow: expm1 = -1
            v_endif()
        v_endif()
        r.assign(r * 2.0)
    v_endif()
    return r


def expm1_fp32_init():
    """``expm1_init<false, true>``."""
    vConstFloatPrgm0.assign(LOG2E)
    vConstFloatPrgm1.assign(FP32_NEG_LN2_HI)
    vConstFloatPrgm2.assign(FP32_C1)


def expm1_fp32(a):
    """``_sfpu_expm1_<true>(a)``."""
    rounding_bias = vFloat(ROUNDING_BIAS)
    j = a * vConstFloatPrgm0 + rounding_bias
    r = vFloat(FP32_HIGH[0])
    i = reinterpret(vInt, j)
    j = j - rounding_bias
    c4 = vFloat(FP32_HIGH[1])
    f = j * vConstFloatPrgm1 + a
    f = j * FP32_NEG_LN2_LO + f                  # f = a - j*ln(2), ln 2 in two parts
    s = f * f
    r = r * f + c4
    for c in FP32_HIGH[2:]:
        r = r * f + c
    w = vFloat(0.5)
    r = r * f + vConstFloatPrgm2
    c0 = reinterpret(vFloat, reinterpret(vInt, w) + -1)                 # 0.49999997
    r = r * f + c0
    # The source copies f into u and forms j - 1 before the last step above; f has no other
    # use from here, so u is f itself (the same values, one LReg fewer for the allocator).
    u = f
    jm1 = j + -1.0
    with v_if(jm1 == 0.0):                       # j == 1: expm1(a) = 2*(r + 0.5), r's own u
        u.assign(u + 0.5)
    v_endif()
    r = r * s + u                                # expm1(f) (+ 0.5 where j == 1)
    with v_if(j != 0.0):                         # j == 0: r is already expm1(a)
        with v_if(jm1 != 0.0):
            t = reinterpret(vFloat, (i << 23) + reinterpret(vInt, w))     # 0.5 * 2**j
            y = t - w
            x = t - y                            # (t - y) - 0.5: the error of y, exactly
            jm2 = jm1 + -1.0
            x = x - w
            abs_jm2 = abs(jm2)                   # -NaN stays negative
            r.assign(r * t + x)
            clamped = reinterpret(vInt, float_to_int8(abs_jm2, 0))
            r.assign(r + y)
            with v_if(clamped >= 127):           # a*log2(e) <= -125 or >= 129
                r.assign(jm2 * math.inf)         # overflow, and NaN propagation
                with v_if(jm2 < 0.0):
                    r.assign(-0.5)               # underflow: expm1 = -1
                v_endif()
            v_endif()
        v_endif()
        r.assign(r * 2.0)
    v_endif()
    return r


def expm1_fp32_2026_09():
    """One iteration of ``calculate_expm1<false, true>``."""
    dst_reg[0] = expm1_fp32(dst_reg[0])


def expm1_2026_09():
    """One iteration of ``calculate_expm1<false, false>``."""
    y = expm1_bf16(dst_reg[0])
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(y, 0))


register_kernel(
    "expm1_2026_09", expm1_2026_09, init=expm1_init, function="expm1", mode="accurate",
    dest="bf16",
    template="calculate_expm1", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance="tt-metal ckernel_sfpu_expm1.h _sfpu_expm1_<false> + expm1_init<false, false>, "
               "PR #45338 (Juffa-derived, merged Jun 2026; read at BH @046d5603, both chips): "
               "Cody-Waite by ln 2, degree-4 expm1(f), half-scaled reconstruction, "
               "convert<vFloat16b>(y, Nearest)",
    description="ttnn.expm1 on a BF16 tensor, Jun - Sep 2026")

register_kernel(
    "expm1_fp32_2026_09", expm1_fp32_2026_09, init=expm1_fp32_init, function="expm1",
    mode="accurate", dest="fp32",
    template="calculate_expm1", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="expm1_2026_09",
    provenance="tt-metal ckernel_sfpu_expm1.h _sfpu_expm1_<true> + expm1_init<false, true>, PR "
               "#45338 (Juffa-derived, merged Jun 2026; read at BH @046d5603, index id "
               "54609477000 and PR #57292's branch on main a406ad5c, 2026-09-22; both chips): "
               "two-part Cody-Waite, degree-7 expm1(f), double-float half-scaled "
               "reconstruction, overflow/underflow by |j - 2| >= 127; no rounding",
    description="ttnn.expm1 with an FP32 Dst, Jun - Sep 2026")
