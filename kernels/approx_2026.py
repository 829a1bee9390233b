"""Approximate-mode sqrt / rsqrt and exp(x/2) (ExpWithBase) as of 2026-09-30.

Rows of Tenstorrent's table modelled or mapped here (what each cell predicts: the tests):

* Sqrt(approx=Yes), Rsqrt(approx=Yes): tenstorrent/tt-metal ``tt_metal/hw/ckernels/wormhole_b0/
  metal/llk_api/llk_sfpu/ckernel_sfpu_sqrt.h`` (index id 70675731694; the body moved from tt-llk
  into tt-metal, Jason Davies; undated, taken as the Sep-2026 state because it has the harness's
  four-argument ``calculate_sqrt<APPROX, ITERATIONS, fp32, FAST_APPROX>`` and
  ``convert<vFloat16b>(., Nearest)`` spelling, May 2026 or later). ``sqrt_init<true>``: Prgm0 =
  0x5f0b3892, Prgm1 = 1.89099014875. With APPROXIMATION_MODE the loop is one vector at a time:
  SQRT_10-bits of Kokosinski, Gepner, Moroz et al. 2024 (``y = bits^-1(K - (bits(x) >> 1))``,
  ``c = x*y``, ``t = Prgm1 - y*c``; sqrt ``y = c*t`` unless x = +Inf; rsqrt ``y = y*t`` unless
  x = +Inf or +-0, which give ``bits(+Inf) - bits(x)``: +0 / +-Inf), then, FAST_APPROX being
  false, the edge values: sqrt(+-0) = x, x < 0 -> NaN (rsqrt: inside the refined region only).
  BF16 Dst rounds ``convert<vFloat16b>(y, Nearest)``; the FP32-Dst instantiation stores y as is.
  Against the Jan-2026 ``sqrt_approx`` / ``rsqrt_approx`` (tt-llk c635ca695) the arithmetic is the
  same; only -0 changes (sqrt(-0) = -0 and rsqrt(-0) = -Inf where Jan gave NaN), by the
  ``_bits_without_sign_`` magnitude test. ASSUMPTION: ``calculate_rsqrt<true, ...>`` runs this
  body with RECIPROCAL = true (the stored rsqrt wrappers, e.g. index id 58859271385, call
  ``_calculate_sqrt_internal_<..., RECIPROCAL=true, ...>`` when not legacy_compat); the Sep-2026
  ``ckernel_sfpu_rsqrt.h`` itself was not read.
* ExpWithBase(approx=No): ``calculate_exponential_const_scale<false, fp32, 32, true, 0x3F00>`` =
  ``calculate_exponential<false, fp32, SCALE_EN=true, 32, true>(0x3F00)`` (WH
  ``ckernel_sfpu_exp.h`` @0273d5a6, index id 71303379555, the file exp_2026_09 models). BF16 Dst:
  the ``_sfpu_exp_21f_bf16_tti_`` body of exp_2026_09 with ``SFPMULI(0x3F00, LREG0)`` + SFPNOP
  after the load (kernels/asm/exp_with_base_2026_09_*.s). FP32 Dst:
  ``_ckernel_sfpu_exp_accurate_<true, true>``: ``val * sFloat16b(0.5)`` (one SFPMUL) then
  ``_sfpu_exp_fp32_accurate_`` (kernels/exp_2026.py). The Blackhole files are exp_2026_09's BH
  body with the same SFPMULI (the SCALE_EN branch is shared code in both chips' TTI body).

Rows that need no new program (mapping only, see the tests): Exp(approx=Yes) is ``exp_approx``
(kernels/exp.py, the straight-line twin of ``exp_approx_loadmacro``): the Sep-2026 WH file keeps
the same SFPLOADMACRO sanitize + compute passes and the same ``DISABLE_SFPLOADMACRO`` fallback
(load, SFPSWAP with -88.5, SFPMAD A*x + (B-C), SFP_STOCH_RND to UINT16, SFPSHFT 15), and no
instruction depends on the Dst mode. Reciprocal(approx=Yes) is ``reciprocal_approx`` (Jan 2026):
Sep-2026 ``sfpu_reciprocal_iter<0>`` with no rounding is the same arithmetic, and the table's
FP32 cell (1,517) is predicted only with the minimax seed it loads (see kernels/recip_2026.py).
"""
from __future__ import annotations

import math

from kernels.asm_kernels import assembly_kernel
from kernels.exp import exp_init
from kernels.exp_2026 import exp_fp32_accurate
from sfpu_sim import register_kernel
from sfpu_sim.registry import register_program
from sfpu_sim.sfpi import (dst_reg, float_to_fp16b, reinterpret, s2vFloat16b, v_else, v_elseif,
                           v_endif, v_if, vConstFloatPrgm1, vConstIntPrgm0, vFloat, vInt,
                           vUInt)

SQRT_APPROX_MAGIC = 0x5F0B3892
SQRT_APPROX_T = 1.89099014875
EXP_BASE_SCALE_BF16 = 0x3F00                   # bf16 0.5: the harness's ExpWithBase scale
EXP_BASE_SCALE = 0.5


def sqrt_approx_init_2026_09():
    """``sqrt_init<true>`` (also ``rsqrt_init<true>``): Prgm0 = K, Prgm1 = 1.89099014875."""
    vConstIntPrgm0.assign(SQRT_APPROX_MAGIC)
    vConstFloatPrgm1.assign(SQRT_APPROX_T)


def _magnitude_bits(x):
    """``_bits_without_sign_(x)``: bits(x) << 1, zero for +0 and -0 alike."""
    return reinterpret(vInt, x) << 1


def sqrt_approx_body(x, reciprocal: bool):
    """``_calculate_sqrt_body_<APPROXIMATE=true, RECIPROCAL, FAST_APPROX=false>(x)``."""
    i = reinterpret(vInt, reinterpret(vUInt, x) >> 1)
    y = reinterpret(vFloat, vConstIntPrgm0 - i)
    c = x * y
    negative_y = -y
    infinity_bits = reinterpret(vInt, vFloat(s2vFloat16b(math.inf)))
    t = vConstFloatPrgm1 + negative_y * c
    if reciprocal:
        x_bits = reinterpret(vInt, x)
        infinity_minus_x_bits = infinity_bits - x_bits
        with v_if((infinity_minus_x_bits != 0) & (_magnitude_bits(x) != 0)):
            y.assign(y * t)
            with v_if(x < 0.0):
                y.assign(math.nan)
            v_endif()
        with v_else():                  # +-0 -> +-Inf (the subtraction carries the sign), Inf -> 0
            y.assign(reinterpret(vFloat, infinity_minus_x_bits))
        v_endif()
    else:
        y.assign(c)
        with v_if(reinterpret(vInt, x) != infinity_bits):   # x = +Inf: c is already +Inf
            y.assign(y * t)
        v_endif()
        with v_if(_magnitude_bits(x) == 0):                 # sqrt(+-0) = +-0
            y.assign(x)
        with v_elseif(x < 0.0):
            y.assign(math.nan)
        v_endif()
    return y


def _sqrt_approx_iteration(reciprocal: bool, fp32_dest: bool):
    """One iteration of ``_calculate_sqrt_internal_<true, 32, fp32_dest, RECIPROCAL, false>``."""
    y = sqrt_approx_body(dst_reg[0], reciprocal)
    if not fp32_dest:
        y = reinterpret(vFloat, float_to_fp16b(y, 0))      # convert<vFloat16b>(y, Nearest)
    dst_reg[0] = y


def sqrt_approx_2026_09():
    _sqrt_approx_iteration(reciprocal=False, fp32_dest=False)


def sqrt_approx_fp32_2026_09():
    _sqrt_approx_iteration(reciprocal=False, fp32_dest=True)


def rsqrt_approx_2026_09():
    _sqrt_approx_iteration(reciprocal=True, fp32_dest=False)


def rsqrt_approx_fp32_2026_09():
    _sqrt_approx_iteration(reciprocal=True, fp32_dest=True)


def exp_with_base_fp32_2026_09():
    """One iteration of ``calculate_exponential<false, true, SCALE_EN=true>(0x3F00)``."""
    val = dst_reg[0] * vFloat(s2vFloat16b(EXP_BASE_SCALE))   # SFPMUL by sFloat16b(0.5)
    dst_reg[0] = exp_fp32_accurate(val)


_SQRT = ("tt-metal WH ckernel_sfpu_sqrt.h index id 70675731694 (Sep-2026 API; undated): "
         "SQRT_10-bits (K 0x5f0b3892, 1.89099014875)")
_RSQRT = ", RECIPROCAL (the Sep-2026 rsqrt wrapper assumed, not read)"
for _name, _body, _fn, _reciprocal, _fp32, _base in (
        ("sqrt_approx_2026_09", sqrt_approx_2026_09, "sqrt", False, False, ""),
        ("sqrt_approx_fp32_2026_09", sqrt_approx_fp32_2026_09, "sqrt", False, True,
         "sqrt_approx_2026_09"),
        ("rsqrt_approx_2026_09", rsqrt_approx_2026_09, "rsqrt", True, False, ""),
        ("rsqrt_approx_fp32_2026_09", rsqrt_approx_fp32_2026_09, "rsqrt", True, True,
         "rsqrt_approx_2026_09")):
    register_kernel(
        _name, _body, init=sqrt_approx_init_2026_09, function=_fn, mode="approximate",
        dest="fp32" if _fp32 else "bf16",
        template="calculate_rsqrt" if _reciprocal else "calculate_sqrt",
        params={"APPROXIMATION_MODE": True, "is_fp32_dest_acc_en": _fp32, "FAST_APPROX": False},
        instance_of=_base,
        provenance=_SQRT + (_RSQRT if _reciprocal else "") + "; sqrt(+-0) = x, x < 0 -> NaN, "
                   + ("no rounding" if _fp32 else "convert<vFloat16b>(., Nearest)"),
        description=f"ttnn.{_fn} in approximate mode, "
                    f"{'FP32' if _fp32 else 'BF16'} Dst, Sep 2026")

register_program(
    "exp_with_base_2026_09", assembly_kernel("exp_with_base_2026_09"), function="exp_half",
    mode="accurate", dest="bf16",
    template="calculate_exponential_const_scale",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False, "SCALE_EN": True,
            "CLAMP_NEGATIVE": True, "scale": EXP_BASE_SCALE_BF16},
    provenance="tt-metal WH ckernel_sfpu_exp.h @0273d5a6 (index id 71303379555) "
               "_sfpu_exp_21f_bf16_tti_<SCALE_EN=true, false, true>: SFPMULI(0x3F00) + SFPNOP "
               "after the load, then exp_2026_09's body (see kernels/exp_2026.py)",
    description="exp(0.5 x) (the harness's ExpWithBase) on a BF16 Dst, Sep 2026")

register_kernel(
    "exp_with_base_fp32_2026_09", exp_with_base_fp32_2026_09, init=exp_init, function="exp_half",
    mode="accurate", dest="fp32",
    template="calculate_exponential_const_scale",
    params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True, "SCALE_EN": True,
            "CLAMP_NEGATIVE": True, "scale": EXP_BASE_SCALE_BF16},
    instance_of="exp_with_base_2026_09",
    provenance="tt-metal WH ckernel_sfpu_exp.h @0273d5a6 (index id 71303379555) "
               "_ckernel_sfpu_exp_accurate_<true, true>: val * sFloat16b(0.5), then "
               "_sfpu_exp_fp32_accurate_ (exp_fp32_2026_09's body per chip); no rounding",
    description="exp(0.5 x) (the harness's ExpWithBase) with an FP32 Dst, Sep 2026")
