"""Power-family kernels as of Sep 2026: cube root, unary power and rdiv (the cast: cast_2026).

Sources (tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/``; facts carried over, not code):

* ``ckernel_sfpu_cbrt.h`` ``calculate_cube_root<APPROX, fp32, 32>`` + ``cube_root_init<APPROX>``
  (Jason Davies, 2026; Moroz et al.'s magic-constant cube root). Wormhole read at commit
  05278de6 (index id 51870575521), Blackhole at 03725f26 (id 53292837841): the same math
  (BH spells the roundings ``RoundMode::NearestEven``, WH ``0``, both SFPCAST RNE and
  SFP_STOCH_RND nearest). Dated Sep 2026 by the tt_poly branch copy (id 68319632464, sfpi
  ``convert``/``as`` spelling of May 2026 on, ``cube_root_init<APPROX, fp32>``) which keeps
  the same constants and operation order; the harness's ``cube_root_init<false>`` (one template
  argument) is main's. The older ``_sfpu_binary_power_(|x|, 1/3)`` body (commit cd5efd67) is
  superseded.
* ``ckernel_sfpu_rdiv.h`` ``calculate_rdiv<false, fp32, RoundingMode::None, 32>(2.0)`` +
  ``rdiv_init<false>`` (= ``sfpu_reciprocal_init<false>``), index id 57936386899 (2026, sfpi
  ``convert<vFloat16b>(., Nearest)`` spelling: May 2026 on; ids 10228560207, 54608379100 carry
  the same non-rounding path): BF16 Dst ``sfpu_reciprocal_iter<1>(x)`` rounded to BF16
  (nearest), FP32 Dst ``sfpu_reciprocal_iter<2>(x)``; then ``recip * 2.0`` (one SFPMUL), no
  final rounding (a 16-bit Dst's SFPSTORE truncates; the product is exact). The reciprocal is
  kernels/reciprocal.py's per-chip ``_sfpu_reciprocal_<n>`` (assumption as in
  kernels/gelu_2026.py: ``sfpu_reciprocal_iter<n>`` is that body on each chip).
"""
from __future__ import annotations

import numpy as np

from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, addexp, dst_reg, float_to_fp16b, int32_to_float, reinterpret,
                           setsgn, vConst1, vConstFloatPrgm0, vConstFloatPrgm1,
                           vConstFloatPrgm2, vConstNeg1, vFloat, vInt)

# ---------------------------------------------------------------------------------------------
# Cube root

# -1/3/256 (SFPLOADI pair) and (0x548c2b4b / 256 + 2**23) as C++ float arithmetic evaluates it:
# 1418472267.0f is 1418472320, /256 = 5540907.5, + 2**23 = 13929515.5 -> 13929516 (ties even).
CBRT_NEG_THIRD_256 = float.fromhex("-0x1.555556p-10")
CBRT_MAGIC = float(np.float32(np.float32(1418472267.0) / np.float32(256.0)
                              + np.float32(8388608.0)))
# cube_root_init: the refinement polynomial t(c) = P0 + c*(P1 + c*P2) (c = x*y**3 ~ 1)
CBRT_PRGM = (float.fromhex("0x1.c09806p0"), float.fromhex("-0x1.403e6cp0"),
             float.fromhex("0x1.04cdb2p-1"))


def cube_root_init():
    """``cube_root_init<false>``."""
    vConstFloatPrgm0.assign(CBRT_PRGM[0])
    vConstFloatPrgm1.assign(CBRT_PRGM[1])
    vConstFloatPrgm2.assign(CBRT_PRGM[2])


def _cbrt_seed(x):
    """y ~ |x|**(-1/3): (magic - bits(x)/3) formed in FP32 (SFPCAST RNE, one SFPMAD), whose
    integer part lands in the mantissa field (+2**23); << 8 restores the scale."""
    f = int32_to_float(reinterpret(vInt, x), 0)
    f = f * vFloat(CBRT_NEG_THIRD_256) + vFloat(CBRT_MAGIC)
    return reinterpret(vFloat, reinterpret(vInt, f) << 8)


def cube_root_bf16():
    """One iteration of ``calculate_cube_root<false, false>``: one polynomial refinement,
    then SFP_STOCH_RND to BF16 (nearest)."""
    a = dst_reg[0]
    x = abs(a)
    y = _cbrt_seed(x)
    d = x * (y * y)                               # ~ cbrt(x), the sign comes last
    c = d * y                                     # ~ 1
    t = c * (vConstFloatPrgm2 * c + vConstFloatPrgm1) + vConstFloatPrgm0
    d = setsgn(d, a)
    y = d * (t * t)
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(y, 0))


def cube_root_fp32():
    """One iteration of ``calculate_cube_root<false, true>``: the polynomial refinement of y,
    then a second (Newton-like) step ``t = 1 - (x y**3 - 1)/3``; no rounding."""
    a = dst_reg[0]
    x = abs(a)
    y = _cbrt_seed(x)
    c = (x * y) * (y * y)
    y = y * (c * (vConstFloatPrgm2 * c + vConstFloatPrgm1) + vConstFloatPrgm0)
    d = x * (y * y)
    c = d * y + vConstNeg1
    negative_third = addexp(vFloat(CBRT_NEG_THIRD_256), 8)
    t = c * negative_third + vConst1
    d = setsgn(d, a)
    dst_reg[0] = d * (t * t)


_CBRT_SOURCE = ("tt-metal ckernel_sfpu_cbrt.h calculate_cube_root (WH 05278de6 / id 51870575521, "
                "BH 03725f26 / id 53292837841; same math in the Sep-2026 tt_poly copy id "
                "68319632464): Moroz magic-constant seed via SFPCAST RNE + SFPMAD "
                "(-1/768, 0x548c2b4b/256 + 2^23) << 8, refinement y*(P0 + c(P1 + c P2)) with "
                "cube_root_init's 0x1.c09806p0, -0x1.403e6cp0, 0x1.04cdb2p-1")

register_kernel(
    "cbrt_2026_09", cube_root_bf16, init=cube_root_init, function="cbrt", mode="accurate",
    dest="bf16", template="calculate_cube_root",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
    provenance=_CBRT_SOURCE + "; BF16 Dst: one step d*t^2, float_to_fp16b nearest",
    description="ttnn.cbrt on a 16-bit Dst, Sep 2026")

register_kernel(
    "cbrt_fp32_2026_09", cube_root_fp32, init=cube_root_init, function="cbrt",
    mode="accurate", dest="fp32", template="calculate_cube_root",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
    instance_of="cbrt_2026_09",
    provenance=_CBRT_SOURCE + "; FP32 Dst: y refined by the polynomial, then t = 1 + "
                              "(x y^3 - 1)(-1/3), d t^2; no rounding",
    description="ttnn.cbrt with an FP32 Dst, Sep 2026")


# ---------------------------------------------------------------------------------------------
# Rdiv: value / x with the harness's value 2.0

RDIV_VALUE = 2.0                          # the harness's runtime argument (0x40000000)


def rdiv_init():
    """``rdiv_init<false>``: ``sfpu_reciprocal_init<false>`` of the chip."""
    reciprocal_init(False)


def rdiv_bf16():
    """One iteration of ``calculate_rdiv<false, false, RoundingMode::None>(2.0)``."""
    value = vFloat(RDIV_VALUE)
    recip = reciprocal(dst_reg[0], 1)
    recip = reinterpret(vFloat, float_to_fp16b(recip, 0))
    dst_reg[0] = recip * value


def rdiv_fp32():
    """One iteration of ``calculate_rdiv<false, true, RoundingMode::None>(2.0)``."""
    value = vFloat(RDIV_VALUE)
    dst_reg[0] = reciprocal(dst_reg[0], 2) * value


_RDIV_SOURCE = ("tt-metal ckernel_sfpu_rdiv.h calculate_rdiv (index id 57936386899, 2026; "
                "rdiv_init = sfpu_reciprocal_init<false>): value * sfpu_reciprocal_iter<n>(x), "
                "value = 2.0")

register_kernel(
    "rdiv_2026_09", rdiv_bf16, init=rdiv_init, function="rdiv_2", mode="accurate",
    dest="bf16", template="calculate_rdiv",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False,
            "rounding_mode": "RoundingMode::None", "value": RDIV_VALUE},
    provenance=_RDIV_SOURCE + "; BF16 Dst: n = 1, recip rounded to BF16 (nearest) first",
    description="ttnn.rdiv(x, 2.0) on a 16-bit Dst, Sep 2026")

register_kernel(
    "rdiv_fp32_2026_09", rdiv_fp32, init=rdiv_init, function="rdiv_2", mode="accurate",
    dest="fp32", template="calculate_rdiv",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True,
            "rounding_mode": "RoundingMode::None", "value": RDIV_VALUE},
    instance_of="rdiv_2026_09",
    provenance=_RDIV_SOURCE + "; FP32 Dst: n = 2, no rounding",
    description="ttnn.rdiv(x, 2.0) with an FP32 Dst, Sep 2026")

