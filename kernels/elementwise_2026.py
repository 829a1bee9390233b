"""Exact element-wise kernels of the 2026-09-30 accuracy table: sign bits, constants, clamps,
shrinks, slopes, comparisons with zero (Wormhole and Blackhole run the same code).

What the harness runs for each row (tt-llk
``tests/helpers/include/sfpu_operations.h`` @008a3c3b, ``ITERATIONS = 32``, one call per tile):
tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/ckernel_sfpu_*.h``
``calculate_X``, and tt-llk ``tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/`` ``_calculate_X_``
for Neg, Fill, Threshold, ReluMax/ReluMin and Lrelu. Every file read here is stored in several
undated revisions (draft branches of Aug - Sep 2026 included); where they differ, the docstring
of the kernel says which one is modelled and why. The revisions differ in instruction choice
(raw TTI against sfpi, SFPLOADMACRO schedules) far more than in the values they write: for
normal inputs each revision read gives the same bits, and only a few special inputs (NaN, -0)
can tell them apart.

No kernel here rounds explicitly except ``calculate_square`` with a 16-bit Dst
(``float32_to_bf16_rne``): results go through SFPSTORE, which truncates FP32 to a 16-bit Dst.
That truncation is what the table's 1-step cells of Add1, Lrelu and Softshrink measure.
"""
from __future__ import annotations

from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, dst_reg, int32_to_float, reinterpret, setsgn, shft, v_else,
                           v_elseif, v_endif, v_if, vec_min_max, vFloat, vInt, vUInt)

TT_METAL = "tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
TT_LLK = "tt-metal tt_metal/tt-llk/tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/"
# The harness's runtime arguments (sfpu_operations.h; sfpu_dispatch_constants.py).
FILL_VALUE = 5.0
HEAVISIDE_AT_ZERO = 0.5
CLAMP_LOW, CLAMP_HIGH = -1.0, 1.0               # 0xBF800000, 0x3F800000
RELU_THRESHOLD = 5.0                            # 0x40A00000
THRESHOLD, THRESHOLD_VALUE = 5.0, 10.0
SHRINK_LAMBDA = 0.5
LRELU_SLOPE_BITS = 0x3DCCCCCD                   # float32(0.1)
PRELU_SLOPE = 0.25
FP32_INF_BITS = 0x7F800000
BF16_RNE_BIAS = 0x7FFF
BF16_KEPT_BITS = 0xFFFF0000


def _bits_to_float(bits: int) -> float:
    import struct
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def abs_2026_09():
    """``calculate_abs<APPROX, 32>`` (metal, since PR #53918): ``sfpi::abs`` (SFPABS float)."""
    dst_reg[0] = abs(dst_reg[0])


def negative_2026_09():
    """tt-llk ``_calculate_negative_<APPROX, 32>``: ``-val`` (SFPMOV, sign complemented)."""
    dst_reg[0] = -dst_reg[0]


def identity_2026_09():
    """``calculate_identity<APPROX, 32>``: load and store back."""
    dst_reg[0] = dst_reg[0]


def fill_2026_09():
    """tt-llk ``_calculate_fill_<APPROX, 32>(5.0f)``: store the constant (one SFPLOADI)."""
    dst_reg[0] = vFloat(FILL_VALUE)


def add1_2026_09():
    """``calculate_add1<APPROX, 32>``: ``1.0f + val`` (SFPADD), no rounding."""
    dst_reg[0] = 1.0 + dst_reg[0]


def float32_to_bf16_rne(value):
    """tt-metal ``float32_to_bf16_rne``: RNE to BF16 in integer arithmetic, ``bits + 0x7fff +
    bit16``, low 16 bits cleared (ckernel_sfpu_binary.h / ckernel_sfpu_conversions.h)."""
    bits = reinterpret(vUInt, value)
    lsb = shft(bits, -16) & 1
    bits = bits + BF16_RNE_BIAS + lsb
    bits = bits & BF16_KEPT_BITS
    return reinterpret(vFloat, bits)


def square_2026_09():
    """``calculate_square<APPROX, false, 32>``: ``v * v`` rounded by ``float32_to_bf16_rne``."""
    v = dst_reg[0]
    dst_reg[0] = float32_to_bf16_rne(v * v)


def square_fp32_2026_09():
    """``calculate_square<APPROX, true, 32>``: ``v * v``, no rounding."""
    v = dst_reg[0]
    dst_reg[0] = v * v


def signbit_2026_09():
    """``calculate_signbit<APPROX, 32>``: the sign bit shifted down (SFPSHFT by -31), cast to
    float (SFPCAST, nearest even): 0.0 or 1.0. The device schedules these three steps by
    SFPLOADMACRO; its ``DISABLE_SFPLOADMACRO`` arm issues them one by one, the same bits."""
    bit = shft(reinterpret(vUInt, dst_reg[0]), -31)
    dst_reg[0] = int32_to_float(bit, 0)


def heaviside_2026_09():
    """``calculate_heaviside<APPROX, 32>(0.5)``: 0 where ``v < 0`` (raw sign: -0 too), 1 where
    ``v > 0``, else the value."""
    v = dst_reg[0]
    with v_if(v < 0.0):
        v.assign(0.0)
    with v_elseif(v > 0.0):
        v.assign(1.0)
    with v_else():
        v.assign(HEAVISIDE_AT_ZERO)
    v_endif()
    dst_reg[0] = v


def hardtanh_2026_09():
    """``calculate_hardtanh<APPROX, 32>(-1, 1)``: two SFPSWAP (VEC_MIN_MAX, sign-magnitude
    order) passes, each through Dst: store ``max(x, -1)``, reload, store ``min(., 1)``."""
    x = dst_reg[0]
    low = vFloat(vFloat(CLAMP_LOW))
    vec_min_max(x, low)                           # x = min, low = max(x, -1)
    dst_reg[0] = low
    x = dst_reg[0]
    high = vFloat(vFloat(CLAMP_HIGH))
    vec_min_max(x, high)                          # x = min(., 1)
    dst_reg[0] = x


def clamp_2026_09():
    """``calculate_clamp<APPROX, 32>(-1, 1)``: ``load_value_param_float`` +
    ``calculate_unary_max_min_float_body<Max>``, then ``<Min>``: the same SFPSWAP max then
    min as hardtanh, each through Dst."""
    hardtanh_2026_09()


def relu_max_2026_09():
    """tt-llk ``_relu_max_<vFloat, APPROX, 32>(5.0)``: ``result = threshold`` where
    ``result > threshold`` (SFPMAD compare), then 0 where ``result < 0`` (raw sign)."""
    result = dst_reg[0]
    threshold = vFloat(RELU_THRESHOLD)
    with v_if(result > threshold):
        result.assign(threshold)
    v_endif()
    with v_if(result < 0.0):
        result.assign(0.0)
    v_endif()
    dst_reg[0] = result


def relu_min_2026_09():
    """tt-llk ``_relu_min_<vFloat, APPROX, 32>(5.0f)``: SFPSWAP VEC_MIN_MAX of the value with
    the threshold, the larger stored."""
    x = dst_reg[0]
    threshold = vFloat(vFloat(RELU_THRESHOLD))
    vec_min_max(x, threshold)
    dst_reg[0] = threshold


def threshold_2026_09():
    """tt-llk ``_calculate_threshold_<APPROX, 32, float>(5.0, 10.0)``: store 10 where
    ``in <= 5`` (SFPMAD compare), else Dst keeps the input."""
    x = dst_reg[0]
    value = vFloat(THRESHOLD_VALUE)
    with v_if(x <= vFloat(THRESHOLD)):
        dst_reg[0] = value
    v_endif()


def hardshrink_2026_09():
    """``calculate_hardshrink<APPROX, 32>(0.5)``: store 0 where ``setsgn(v, 0) <= lambda``,
    else Dst keeps the input."""
    v = dst_reg[0]
    magnitude = setsgn(v, 0)
    with v_if(magnitude <= vFloat(SHRINK_LAMBDA)):
        dst_reg[0] = vFloat(0.0)
    v_endif()


def softshrink_2026_09():
    """``calculate_softshrink<APPROX, 32>(0.5)``: 0, then ``v - lambda`` where ``v > lambda``,
    ``v + lambda`` where ``v < -lambda`` (one SFPMAD each, no rounding)."""
    v = dst_reg[0]
    lam = vFloat(SHRINK_LAMBDA)
    result = vFloat(0.0)
    with v_if(v > lam):
        result.assign(v - lam)
    v_endif()
    with v_if(v < -lam):
        result.assign(v + lam)
    v_endif()
    dst_reg[0] = result


def lrelu_2026_09():
    """tt-llk ``_calculate_lrelu_<APPROX>(32, 0x3dcccccd)``: ``v * slope`` where ``v < 0``
    (raw sign; SFPMUL, one rounding)."""
    v = dst_reg[0]
    slope = vFloat(_bits_to_float(LRELU_SLOPE_BITS))
    with v_if(v < 0.0):
        v.assign(v * slope)
    v_endif()
    dst_reg[0] = v


def prelu_2026_09():
    """``calculate_prelu<APPROX, 32>(0.25)``: ``a * slope`` where ``a < 0`` (raw sign)."""
    a = dst_reg[0]
    slope = vFloat(PRELU_SLOPE)
    with v_if(a < 0.0):
        a.assign(a * slope)
    v_endif()
    dst_reg[0] = a


def _comparison(one_where_negative: bool | None, zero_gives: float):
    """A body of ``calculate_comp<APPROX, OP, 32>``: ``|v|`` folds the zeros (``zero_gives``)
    and NaN gives 0 (its magnitude's bits exceed +inf's); a nonzero number gives 1 where its
    sign is negative (``one_where_negative``) or positive; ``None``: eqz / nez."""
    def body():
        v = dst_reg[0]
        magnitude = reinterpret(vInt, setsgn(v, 0))
        if one_where_negative is None:              # eqz (zero_gives 1) / nez (0)
            result = vFloat(1.0 - zero_gives)
            with v_if(magnitude == 0):
                result.assign(zero_gives)
            v_endif()
        else:
            result = vFloat(0.0)
            infinity = reinterpret(vInt, vFloat(_bits_to_float(FP32_INF_BITS)))
            with v_if(magnitude <= infinity):       # not NaN
                with v_if(v < 0.0) if one_where_negative else v_if(v >= 0.0):
                    result.assign(1.0)
                v_endif()
                with v_if(magnitude == 0):
                    result.assign(zero_gives)
                v_endif()
            v_endif()
        dst_reg[0] = result
    return body


COMPARISONS = {"equal_zero": (None, 1.0), "not_equal_zero": (None, 0.0),
               "less_than_zero": (True, 0.0), "less_than_equal_zero": (True, 1.0),
               "greater_than_zero": (False, 0.0), "greater_than_equal_zero": (False, 1.0)}

_SAME = ("Abs, Neg, Identity, Fill, Add1: one revision each in the index or revisions that "
         "differ only in comments")


def _register(name, body, function, template, params, source, how, description, **more):
    register_kernel(name, body, function=function, mode="accurate", dest=more.pop("dest", "bf16"),
                    template=template, params={"APPROXIMATION_MODE": False, **params},
                    provenance=f"{source}: {how}", description=description, **more)


_register("abs_2026_09", abs_2026_09, "abs", "calculate_abs", {},
          TT_METAL + "ckernel_sfpu_abs.h (index id 69612160385; its tt_poly arm is a draft)",
          "sfpi::abs (SFPABS)", "Abs row: calculate_abs<false, 32> (metal since PR #53918)")
_register("negative_2026_09", negative_2026_09, "neg", "_calculate_negative_", {},
          TT_LLK + "ckernel_sfpu_negative.h @15d3ec70", "-val (SFPMOV negate)",
          "Neg row: tt-llk _calculate_negative_<false, 32>")
_register("identity_2026_09", identity_2026_09, "identity", "calculate_identity", {},
          TT_METAL + "ckernel_sfpu_identity.h @014624d5", "load, store",
          "Identity row: calculate_identity<false, 32>")
_register("fill_2026_09", fill_2026_09, "fill_5", "_calculate_fill_", {"value": FILL_VALUE},
          TT_LLK + "ckernel_sfpu_fill.h @22c08c38", "vFloat(value) stored to every row",
          "Fill row: tt-llk _calculate_fill_<false, 32>(5.0f)")
_register("add1_2026_09", add1_2026_09, "add1", "calculate_add1", {},
          TT_METAL + "ckernel_sfpu_add1.h @049e2880", "1.0f + val (SFPADD), no rounding",
          "Add1 row: calculate_add1<false, 32>")
_register("square_2026_09", square_2026_09, "square", "calculate_square",
          {"is_fp32_dest_acc_en": False},
          TT_METAL + "ckernel_sfpu_square.h @00d211a6 (2026; index id 68408628302)",
          "v*v (SFPMUL) then float32_to_bf16_rne (integer RNE) for a 16-bit Dst",
          "Square row, 16-bit Dst: calculate_square<false, false, 32>")
_register("square_fp32_2026_09", square_fp32_2026_09, "square", "calculate_square",
          {"is_fp32_dest_acc_en": True},
          TT_METAL + "ckernel_sfpu_square.h @00d211a6", "v*v (SFPMUL), no rounding",
          "Square row, FP32 Dst: calculate_square<false, true, 32>", dest="fp32",
          instance_of="square_2026_09")
_register("signbit_2026_09", signbit_2026_09, "signbit", "calculate_signbit", {},
          TT_METAL + "ckernel_sfpu_signbit.h @0691d6dd (Jason Davies 2026)",
          "SFPSHFT -31, SFPCAST (its DISABLE_SFPLOADMACRO arm; the macro schedule runs the "
          "same three steps)", "Signbit row: calculate_signbit<false, 32>")
_register("heaviside_2026_09", heaviside_2026_09, "heaviside", "calculate_heaviside",
          {"value": HEAVISIDE_AT_ZERO}, TT_METAL + "ckernel_sfpu_heaviside.h @120b164d",
          "v < 0 -> 0, v > 0 -> 1, else value (raw-sign compares with zero)",
          "Heaviside row: calculate_heaviside<false, 32>(0.5)")
_register("hardtanh_2026_09", hardtanh_2026_09, "hardtanh", "calculate_hardtanh",
          {"min_val": CLAMP_LOW, "max_val": CLAMP_HIGH},
          TT_METAL + "ckernel_sfpu_hardtanh.h @06bd3735",
          "SFPSWAP max with min_val, store, reload, SFPSWAP min with max_val, store",
          "Hardtanh row: calculate_hardtanh<false, 32>(-1, 1)")
_register("clamp_2026_09", clamp_2026_09, "hardtanh", "calculate_clamp",
          {"min_val": CLAMP_LOW, "max_val": CLAMP_HIGH},
          TT_METAL + "ckernel_sfpu_clamp.h (2026 revisions index ids 68537841996, 58977388377: "
          "unary_max_min bodies; a later one, 70900971202, calls calculate_hardtanh)",
          "SFPSWAP max then min, each through Dst", "Clamp row: calculate_clamp<false, 32>(-1, 1)")
_register("relu_max_2026_09", relu_max_2026_09, "relu_max_5", "_relu_max_",
          {"threshold": RELU_THRESHOLD}, TT_LLK + "ckernel_sfpu_relu.h @09844cf6",
          "_relu_max_impl_<vFloat>: > threshold -> threshold, then < 0 -> 0",
          "ReluMax row: tt-llk _relu_max_<vFloat, false, 32>(0x40A00000)")
_register("relu_min_2026_09", relu_min_2026_09, "relu_min_5", "_relu_min_",
          {"threshold": RELU_THRESHOLD}, TT_LLK + "ckernel_sfpu_relu.h @09844cf6",
          "_relu_min_impl_: SFPSWAP VEC_MIN_MAX with the threshold, the max stored",
          "ReluMin row: tt-llk _relu_min_<vFloat, false, 32>(5.0f)")
_register("threshold_2026_09", threshold_2026_09, "threshold_5_10", "_calculate_threshold_",
          {"threshold": THRESHOLD, "value": THRESHOLD_VALUE},
          TT_LLK + "ckernel_sfpu_threshold.h @22c08c38", "in <= threshold -> value stored",
          "Threshold row: tt-llk _calculate_threshold_<false, 32, float>(5, 10)")
_register("hardshrink_2026_09", hardshrink_2026_09, "hardshrink", "calculate_hardshrink",
          {"lambda_": SHRINK_LAMBDA},
          TT_METAL + "ckernel_sfpu_hardshrink.h (2026; index ids 52904808659, 68410335632)",
          "setsgn(v, 0) <= lambda -> 0 stored", "Hardshrink row: calculate_hardshrink(0.5)")
_register("softshrink_2026_09", softshrink_2026_09, "softshrink", "calculate_softshrink",
          {"lambda_": SHRINK_LAMBDA},
          TT_METAL + "ckernel_sfpu_softshrink.h (2026; index id 52818008019; rivals 68373865044 "
          "v - clamp(v, -l, l) and 70968027851 v_if/v_elseif give the same bits)",
          "0; v > l -> v - l; v < -l -> v + l (one SFPMAD each), no rounding",
          "Softshrink row: calculate_softshrink<false, 32>(0.5)")
_register("lrelu_2026_09", lrelu_2026_09, "leaky_relu_0p1", "_calculate_lrelu_",
          {"slope": "0x3dcccccd"}, TT_LLK + "ckernel_sfpu_relu.h @09844cf6",
          "v < 0 -> v * slope (SFPMUL), no rounding",
          "Lrelu row: tt-llk _calculate_lrelu_<false>(32, 0x3dcccccd)")
_register("prelu_2026_09", prelu_2026_09, "prelu_0p25", "calculate_prelu",
          {"slope": PRELU_SLOPE}, TT_METAL + "ckernel_sfpu_prelu.h @22c08c38",
          "a < 0 -> a * slope (SFPMUL)", "Prelu row: calculate_prelu<false, 32>(0.25)")
for _function, (_negative, _zero) in COMPARISONS.items():
    _register(f"{_function}_2026_09", _comparison(_negative, _zero), _function,
              "calculate_comp", {"COMP_MODE": _function},
              TT_METAL + "ckernel_sfpu_comp.h (2026 revisions: hand-scheduled TTI, index ids "
              "68412211962, 56084374704; pure-sfpi rivals 56001351109, 55627957427)",
              "|v| folds the zeros, NaN -> 0 (nez: 1), else the sign decides; the values of "
              "the revisions read, not their instruction sequence",
              f"{_function} row: calculate_comp<false, {_function}, 32>")
