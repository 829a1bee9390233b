"""Binary SFPU atan2, 2026, both chips: ``calculate_sfpu_atan2`` (the accuracy harness's SfpuAtan2
row; ttnn's binary_ng atan2): ``atan2(in0, in1)``, the angle of the point (x = in1, y = in0).

Operands as in :mod:`kernels.binary_2026`: in0 = y at ``dst_reg[0]``, in1 = x at ``dst_reg[32]``,
the result back to ``dst_reg[0]``.

Sources read (tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_atan2.h``, Jason Davies 2026; the file has eleven stored revisions and no
dates, so each chip is pinned to one):

* Wormhole @0bdd098b (index id 52792388323): ``min = |x|, max = |y|``, SFPSWAP VEC_MIN_MAX (a NaN
  operand ends in ``max``); ``a = min * sfpu_reciprocal<APPROX || !fp32>(max)``; ``s = a*a``; an
  odd minimax polynomial ``r = (q(s) * s) * a + a``, q of degree 7 in s (eight coefficients) for
  an FP32 Dst, degree 2 for a 16-bit one; ``r = pi/2 - r`` where ``|y| >= |x|`` as integers (and
  0 where ``|y| == 0``); ``max`` itself where it is NaN (``max - inf > 0`` as integers); ``pi/4``
  (``pi/2 * 0.5``) where ``|x| == |y| == inf``; ``pi - r`` where ``x < 0``; y's sign
  (SFPSETSGN); then, for a 16-bit Dst, ``float_to_fp16b(r, 0)``.
* Blackhole @03725f26 (index id 53256171210): the same polynomials as explicit SFPMADs;
  ``|x|, |y|`` by SFPSETSGN; ``r = pi/2 - r`` where ``min >= |x|`` as integers, then ``pi/4``
  (``addexp(pi/2, -1)``) where ``min >= max`` (``|x| == |y|``, infinities included), 0 where
  ``min == 0``; ``pi - r`` (``addexp(pi/2, 1)``) where ``x < 0``; the 16-bit Dst rounds to BF16
  *before* y's sign is set; NaN (0x7FC00000) where ``max`` is above inf as an integer.
* The reciprocal (``ckernel_sfpu_recip.h``, the revisions :mod:`kernels.binary_div_2026` reads):
  ``sfpu_reciprocal<true>`` is ``sfpu_reciprocal_iter<0>`` (Wormhole: the quadratic seed and one
  Newton step; Blackhole: SFPARECIP alone), ``<false>`` is two steps. The init,
  ``sfpu_reciprocal_init<APPROX || !fp32>``, loads Wormhole's seed either way and Blackhole's
  Prgm0 = 2.0 only for FP32 (its one-step path reads no constant): :func:`kernels.reciprocal.
  reciprocal_init` in the mode each Dst asks for.
* The operands are read from Dst again after the reciprocal: with both kept live the FP32
  path needs nine LRegs, and sfpi's compiler reloads them too (an SFPLOAD is rematerialisable);
  the values are the same.
* The harness (``test_eltwise_binary_sfpu_atan2``, index id 58031140234): Float16_b and Float32,
  dest No and Yes, both operands uniform(-5, 5); ``calculate_sfpu_atan2<APPROX, 8, DST_ACCUM>``.
"""
from __future__ import annotations

import math

from kernels.binary_2026 import IN1
from kernels.common import dest_params, dst_text
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim.registry import register_kernel
from sfpu_sim.sfpi import (abs, addexp, dst_reg, float_to_fp16b, per_chip, reinterpret, setsgn,
                           v_endif, v_if, vec_min_max, vFloat, vInt)

SOURCE = ("tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
          "ckernel_sfpu_atan2.h (WH @0bdd098b, index id 52792388323; BH @03725f26, index id "
          "53256171210)")
HALF_PI = float.fromhex("0x1.921fb6p+0")
# q(s), highest degree first: eight coefficients for an FP32 Dst, three for a 16-bit one.
POLY_FP32 = tuple(float.fromhex(c) for c in (
    "0x1.01cp-8", "-0x1.4bcp-6", "0x1.93p-5", "-0x1.48cp-4", "0x1.bd4p-4", "-0x1.24p-3",
    "0x1.99938ap-3", "-0x1.555558p-2"))
POLY_BF16 = tuple(float.fromhex(c) for c in ("-0x1.de8p-5", "0x1.668p-3", "-0x1.54p-2"))


def _odd_polynomial(a, fp32: bool):
    """``a + a * s * q(s)`` with ``s = a*a`` (Horner in s, one SFPMAD a step)."""
    coefficients = POLY_FP32 if fp32 else POLY_BF16
    s = a * a
    q = vFloat(coefficients[0])
    for c in coefficients[1:]:
        q = q * s + c
    t = q * s
    return t * a + a


def _atan2_wormhole(fp32: bool):
    low = abs(dst_reg[IN1])
    high = abs(dst_reg[0])
    vec_min_max(low, high)
    a = low * reciprocal(high, 2 if fp32 else 0)
    y, x = dst_reg[0], dst_reg[IN1]         # read again: eight LRegs (module docstring)
    x_abs = abs(x)
    r = _odd_polynomial(a, fp32)
    half_pi = vFloat(HALF_PI)
    infinity = vFloat(math.inf)
    y_abs = abs(y)
    diff = reinterpret(vInt, y_abs) - reinterpret(vInt, x_abs)
    with v_if(diff >= 0):
        r.assign(half_pi - r)
        with v_if(y_abs == 0.0):
            r.assign(0.0)
        v_endif()
    v_endif()
    diff_infinity = reinterpret(vInt, high) - reinterpret(vInt, infinity)
    with v_if(diff_infinity > 0):
        r.assign(high)
    v_endif()
    with v_if(diff == 0):
        with v_if(diff_infinity == 0):
            r.assign(half_pi * 0.5)
        v_endif()
    v_endif()
    pi = half_pi * 2.0
    with v_if(x < 0.0):
        r.assign(pi - r)
    v_endif()
    r = setsgn(r, y)
    if not fp32:
        r = reinterpret(vFloat, float_to_fp16b(r, 0))
    return r


def _atan2_blackhole(fp32: bool):
    low = setsgn(dst_reg[IN1], 0)
    high = setsgn(dst_reg[0], 0)
    vec_min_max(low, high)
    a = low * reciprocal(high, 2 if fp32 else 0)
    y, x = dst_reg[0], dst_reg[IN1]         # read again: eight LRegs (module docstring)
    r = _odd_polynomial(a, fp32)
    half_pi = vFloat(HALF_PI)
    x_abs = setsgn(x, 0)
    with v_if(reinterpret(vInt, low) >= reinterpret(vInt, x_abs)):
        r.assign(half_pi - r)
        with v_if(reinterpret(vInt, low) >= reinterpret(vInt, high)):
            r.assign(addexp(half_pi, -1))
            with v_if(low == 0.0):
                r.assign(0.0)
            v_endif()
        v_endif()
    v_endif()
    with v_if(x < 0.0):
        r.assign(addexp(half_pi, 1) - r)
    v_endif()
    if not fp32:
        r = reinterpret(vFloat, float_to_fp16b(r, 0))
    r = setsgn(r, y)
    infinity = vFloat(math.inf)
    with v_if(reinterpret(vInt, infinity) < reinterpret(vInt, high)):
        r.assign(math.nan)
    v_endif()
    return r


_atan2 = per_chip(wormhole=_atan2_wormhole, blackhole=_atan2_blackhole)


def binary_atan2_2026_09():
    """``calculate_sfpu_atan2<false, 8, false>`` (16-bit Dst)."""
    dst_reg[0] = _atan2(fp32=False)


def binary_atan2_fp32_2026_09():
    """``calculate_sfpu_atan2<false, 8, true>`` (FP32 Dst)."""
    dst_reg[0] = _atan2(fp32=True)


def _init_bf16():
    """``calculate_sfpu_atan2_init<false, false>``: ``sfpu_reciprocal_init<true>``."""
    reciprocal_init(approximation_mode=True)


def _init_fp32():
    """``calculate_sfpu_atan2_init<false, true>``: ``sfpu_reciprocal_init<false>``."""
    reciprocal_init(approximation_mode=False)


for _name, _body, _init, _dest, _how in (
        ("binary_atan2_2026_09", binary_atan2_2026_09, _init_bf16, "bf16",
         "q of degree 2, a by sfpu_reciprocal<true> (one step on WH, SFPARECIP on BH), "
         "float_to_fp16b"),
        ("binary_atan2_fp32_2026_09", binary_atan2_fp32_2026_09, _init_fp32, "fp32",
         "q of degree 7, a by two Newton steps, no rounding")):
    register_kernel(
        _name, _body, init=_init, function="atan2", operands=2, dest=_dest,
        template="calculate_sfpu_atan2",
        params=dest_params(_dest),
        provenance=f"{SOURCE}: a = min(|x|,|y|)/max(|x|,|y|), r = a + a*s*q(s), quadrant "
                   f"fixes, y's sign; {_how}",
        description=f"SfpuAtan2 row / ttnn binary_ng atan2, "
                    f"{dst_text(_dest)} Dst, 2026")
