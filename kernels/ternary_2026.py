"""Ternary SFPU kernels of 2026, both chips: lerp, addcmul, addcdiv and snake_beta (the accuracy
harness's SfpuLerp, SfpuAddcmul, SfpuAddcdiv and SfpuSnakeBeta rows; ttnn's ops of those names).

Operands (tt-llk ``tests/sources/sfpu_ternary_test.cpp``, index id 54580678633:
``call_ternary_sfpu_operation(0, 1, 2, 0, value)``): in0 = a at ``dst_reg[0]``, in1 = b at
``dst_reg[32]``, in2 = c at ``dst_reg[64]``, the result back to tile 0
(:mod:`sfpu_sim.binary_device`, ``z``).

Sources read (tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/``):

* ``ckernel_sfpu_lerp.h`` (WH @9c09407d, index id 52466308814; BH @39adf56f, index id
  27777971144; the same code): ``calculate_lerp<APPROX, is_fp32_dest_acc_en, data_format, 8>``,
  ``a + c * (b - a)`` (the subtraction, then one SFPMAD), and for a 16-bit Dst
  ``float32_to_bf16_rne``; no init.
* ``ckernel_sfpu_addcmul.h`` (WH @5d10bb71, index id 575775530; BH @88a41c19, index id
  687075057; the same arithmetic, ADDR_MOD_3 / ADDR_MOD_7): raw TTI, ``value`` loaded into LReg3
  by two SFPLOADI halves, ``t = b * value`` (SFPMUL), ``a + c * t`` (SFPMAD), and for a 16-bit Dst
  ``SFP_STOCH_RND`` FP32 -> FP16B in "nearest" mode (ties away from zero, as the ISA's functional
  model has it). ``value`` is the harness's 2.0 (0x40000000, ``_SCALAR_VALUE``).
* ``ckernel_sfpu_addcdiv.h`` (WH @6244f39a, index id 27204414512; BH @8bd6500c, index id
  27938565642): ``a + (b * value * _sfpu_reciprocal_<2>(c))`` (the product, the chip's tt-llk
  reciprocal with two Newton steps, one SFPMAD), and for a 16-bit Dst ``float32_to_bf16_rne``;
  ``init_addcdiv`` is ``_init_sfpu_reciprocal_`` (Wormhole's quadratic seed constants,
  Blackhole's 2.0), :mod:`kernels.reciprocal`.
"""
from __future__ import annotations

from kernels.binary_2026 import IN1
from kernels.common import as_float, polyval
from kernels.elementwise_2026 import float32_to_bf16_rne
from kernels.recip_2026 import MINIMAX_SEED, recip_init_2026_09, reciprocal_iter
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim.registry import register_kernel
from sfpu_sim.sfpi import (dst_reg, float_to_fp16b, float_to_int16, int32_to_float, reinterpret,
                           vFloat, vInt, vUInt)

METAL = "tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
IN2 = 2 * IN1                       # dst_reg index of tile 2
VALUE_BITS = 0x40000000             # 2.0, the harness's scalar (addcmul's and addcdiv's value)


def _lerp(fp32_dest: bool):
    a, b, c = dst_reg[0], dst_reg[IN1], dst_reg[IN2]
    result = a + c * (b - a)
    dst_reg[0] = result if fp32_dest else float32_to_bf16_rne(result)


def _addcmul(fp32_dest: bool):
    value = reinterpret(vFloat, vInt(VALUE_BITS))
    a, b, c = dst_reg[0], dst_reg[IN1], dst_reg[IN2]
    result = a + c * (b * value)
    dst_reg[0] = result if fp32_dest else reinterpret(vFloat, float_to_fp16b(result, 0))


def _addcdiv(fp32_dest: bool):
    value = reinterpret(vFloat, vInt(VALUE_BITS))
    a, b, c = dst_reg[0], dst_reg[IN1], dst_reg[IN2]
    result = a + b * value * reciprocal(c, 2)
    dst_reg[0] = result if fp32_dest else float32_to_bf16_rne(result)


def lerp_2026_09():
    _lerp(fp32_dest=False)


def lerp_fp32_2026_09():
    _lerp(fp32_dest=True)


def addcmul_2026_09():
    _addcmul(fp32_dest=False)


def addcmul_fp32_2026_09():
    _addcmul(fp32_dest=True)


def addcdiv_2026_09():
    _addcdiv(fp32_dest=False)


def addcdiv_fp32_2026_09():
    _addcdiv(fp32_dest=True)


BF16_RNE = ", then float32_to_bf16_rne"
BF16_STOCH = ", then SFP_STOCH_RND to BF16, nearest (ties away)"


def _register(name: str, bodies: dict, function: str, source: str, text: str, rounding: str,
              init=None) -> None:
    """One kernel per Dst mode (``bodies``: the 16-bit and the FP32 one), the FP32 one an
    instance of the first: ``calculate_<function><APPROX, is_fp32_dest_acc_en, ..., 8>``."""
    for dest, body in bodies.items():
        fp32_dest = dest == "fp32"
        register_kernel(
            f"{name}{'_fp32' if fp32_dest else ''}_2026_09", body, function=function,
            init=init, operands=3, dest=dest, template=f"calculate_{function}",
            params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": fp32_dest,
                    "ITERATIONS": 8},
            instance_of=f"{name}_2026_09" if fp32_dest else "",
            provenance=f"{METAL}{source}: {text}{'' if fp32_dest else rounding}",
            description=f"Sfpu{function.title().replace('_', '')} row / ttnn {function}, "
                        f"{'FP32' if fp32_dest else '16-bit'} Dst, 2026")


_register("ternary_lerp", {"bf16": lerp_2026_09, "fp32": lerp_fp32_2026_09}, "lerp",
          "ckernel_sfpu_lerp.h (WH @9c09407d, BH @39adf56f)", "a + c*(b - a): SFPADD, one "
          "SFPMAD", BF16_RNE)
_register("ternary_addcmul", {"bf16": addcmul_2026_09, "fp32": addcmul_fp32_2026_09}, "addcmul",
          "ckernel_sfpu_addcmul.h (WH @5d10bb71, BH @88a41c19)", "a + c*(b*2): SFPMUL, SFPMAD",
          BF16_STOCH)
_register("ternary_addcdiv", {"bf16": addcdiv_2026_09, "fp32": addcdiv_fp32_2026_09}, "addcdiv",
          "ckernel_sfpu_addcdiv.h (WH @6244f39a, BH @8bd6500c)", "a + (b*2)*_sfpu_reciprocal_<2>"
          "(c): the product, the reciprocal, one SFPMAD", BF16_RNE, init=reciprocal_init)


# --------------------------------------------------------------------------------------------
# snake_beta: x + sin(alpha*x)**2 / beta
# --------------------------------------------------------------------------------------------
# ckernel_sfpu_snake_beta.h (WH @95100bb6, index id 54618883558; BH @ce249c27, index id
# 54750915978; the same body): sin by one reduction to [-pi/2, pi/2] (k = nearest integer of
# alpha*x/pi, as a sign-magnitude int16) and an odd polynomial in s = a*a, four terms for an FP32
# Dst and three for a 16-bit one; 1/beta by sfpu_reciprocal_iter, two Newton steps for an FP32
# Dst and one otherwise, with sfpu_reciprocal_init's constants (Wormhole: the minimax seed of
# the revision whose round_to_bf16 flag defaults off, index id 70080189142, though the other
# revision's seed gives the same figures on the harness's triples; Blackhole: 2.0);
# a 16-bit Dst's result is converted to BF16, nearest (SFP_STOCH_RND, ties away).
SNAKE_ONE_OVER_PI, SNAKE_PI = 0x3EA2F983, 0x40490FDB
SNAKE_SIN_FP32 = (0xBE2AAAA6, 0x3C08876D, 0xB94FB878, 0x362EE484)
SNAKE_SIN_BF16 = (0xBE2AAA52, 0x3C086151, 0xB9458852)


def _snake_beta(fp32_dest: bool, chip: str):
    x, alpha, beta = dst_reg[0], dst_reg[IN1], dst_reg[IN2]
    ax_over_pi = (alpha * x) * as_float(SNAKE_ONE_OVER_PI)
    k = float_to_int16(ax_over_pi, 0)                      # convert<vSMag16>(., Nearest)
    k_f = int32_to_float(reinterpret(vUInt, k), 0)         # convert<vFloat>(., Nearest)
    a = (ax_over_pi - k_f) * as_float(SNAKE_PI)
    s = a * a
    c = a * s
    terms = SNAKE_SIN_FP32 if fp32_dest else SNAKE_SIN_BF16
    r = c * polyval(s, *(as_float(t) for t in terms)) + a
    steps = 2 if fp32_dest else 1
    inverse = reciprocal_iter(beta, steps) if chip == "wormhole" else reciprocal(beta, steps)
    result = x + (r * r) * inverse
    dst_reg[0] = result if fp32_dest else reinterpret(vFloat, float_to_fp16b(result, 0))


def _snake_beta_init_wormhole():
    recip_init_2026_09(MINIMAX_SEED)


def _snake_beta_body(fp32_dest: bool) -> dict:
    return {chip: (lambda chip=chip: _snake_beta(fp32_dest, chip))
            for chip in ("wormhole", "blackhole")}


_register("ternary_snake_beta", {"bf16": _snake_beta_body(False), "fp32": _snake_beta_body(True)},
          "snake_beta", "ckernel_sfpu_snake_beta.h (WH @95100bb6, BH @ce249c27)",
          "x + sin(alpha*x)**2 * sfpu_reciprocal_iter<1 (16-bit Dst) or 2>(beta), sin by a "
          "reduction mod pi and an odd polynomial of 3 (16-bit Dst) or 4 terms", BF16_STOCH,
          init={"wormhole": _snake_beta_init_wormhole, "blackhole": reciprocal_init})
