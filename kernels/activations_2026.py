"""Activations as of 2026-09-30: hardsigmoid (BF16 Dst); celu, elu, selu (both Dst modes).

The ELU family (``celu_2026_09`` / ``celu_fp32_2026_09``, ``elu_*``, ``selu_*``) is described
beside its code below: ``alpha * expm1_cw_clamped(x)``, x >= 0 kept (selu: ``scale * x``),
``convert<vFloat16b>(., Nearest)`` only where ``is_fp32_dest_acc_en`` is false.

``hardsigmoid_2026_09``: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/
metal/llk_api/llk_sfpu/ckernel_sfpu_activations.h``, ``calculate_activation<APPROX,
ActivationType::Hardsigmoid>`` with ``hardsigmoid_init`` (Prgm0 = 1/6 as a float, 0x3E2AAAAB;
Prgm1 = 0.5): ``tmp = x*Prgm0 + Prgm1`` (one SFPMAD), then tt-llk's ``_relu_max_body_(tmp,
1.0)``: ``tmp = 1`` where ``tmp > 1``, then ``tmp = 0`` where ``tmp < 0`` (raw sign). No
rounding (the SFPSTORE to BF16 truncates). Same code on both chips.

Read at BH @139f82e5c2d2451c63860e8b7080a5268fd5e024 (index id 71381876237) and in the WH-side
revision index id 70554482057; both are branches of the issue-#49435 generated-kernel drafts
(open in September 2026) whose non-generated path is main's, and both carry this form; tt-llk's
``_relu_max_body_`` is the same in every stored revision read (e.g. index ids 43343630784,
66475850710). A rival undated revision (index id 57925536205) clamps ``x + 3`` to [0, 6] before
multiplying by 1/6 ("matches torch's evaluation order"); no PR thread ties it to main before
2026-09-30, so it is not modelled. tt-llk's budget (Wormhole, 2026-09-30) records Hardsigmoid
Float16_b -> Float16_b max 1 with either Dst, which both forms give (so it cannot separate them).
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (dst_reg, float_to_fp16b, reinterpret, setexp, v_endif, v_if,
                           vConstFloatPrgm0, vConstFloatPrgm1, vec_min_max, vFloat, vInt)

ONE_SIXTH = 0.1666666716337204          # 0x3E2AAAAB


def relu_max_body(value, threshold: float):
    """tt-llk ``_relu_max_body_(value, threshold)``: clamp to [0, threshold] in two v_ifs."""
    result = vFloat(value)
    with v_if(result > threshold):
        result.assign(threshold)
    v_endif()
    with v_if(result < 0.0):
        result.assign(0.0)
    v_endif()
    return result


def hardsigmoid_init():
    """``hardsigmoid_init``: slope 1/6 and offset 1/2."""
    vConstFloatPrgm0.assign(ONE_SIXTH)
    vConstFloatPrgm1.assign(0.5)


def hardsigmoid_2026_09():
    """One iteration of ``calculate_activation<APPROX, ActivationType::Hardsigmoid>``."""
    x = dst_reg[0]
    dst_reg[0] = relu_max_body(x * vConstFloatPrgm0 + vConstFloatPrgm1, 1.0)


register_kernel(
    "hardsigmoid_2026_09", hardsigmoid_2026_09, init=hardsigmoid_init, function="hardsigmoid",
    mode="accurate", dest="bf16",
    template="calculate_activation",
    params={"APPROXIMATION_MODE": False, "ACTIVATION": 'Hardsigmoid'},
    provenance="tt-metal ckernel_sfpu_activations.h ActivationImpl<Hardsigmoid> + tt-llk "
               "_relu_max_body_ (read BH @139f82e5, WH index id 70554482057, Sep-2026 draft "
               "branches whose non-generated path is main's): x*(1/6) + 0.5 clamped to [0, 1] "
               "by two v_ifs; no rounding (SFPSTORE truncates)",
    description="ttnn.hardsigmoid on a BF16 tensor, Sep 2026")


# --- ELU family (Sep 2026): x >= 0 keeps x, else alpha * expm1_cw_clamped(x) ------------------
# tt-llk ``sfpu/ckernel_sfpu_expm1_cw.h`` (shared by ELU, CELU and SELU). Read in several
# stored revisions of 2026 (index ids 60667918574, 58442164954, 71094253230, 52741725545): all
# clamp x at -87 below, reduce by ln 2 in two parts and use the same polynomials; they differ
# only above x ~ 88.7 (no clamp / an e == 255 branch / min(x, 88.5) then +inf), where every
# caller below overwrites the value with its x >= 0 arm. The polynomial is chosen by the
# INP_FLOAT32 macro, which tt-llk's harness does not define (dispatch notes, item 5): the
# degree-4 "BF16" h runs with either Dst.
CW_INV_LN2 = 1.4426950408889634          # as an FP32 immediate, 0x3FB8AA3B
CW_NEG_LN2_HI = -0.6931152343750000
CW_NEG_LN2_LO = -3.19461832987e-05
CW_CLAMP_LOW = -87.0
CW_ROUNDING_BIAS_BITS = 0x4B400000        # 1.5 * 2**23: rounds x/ln 2 to an integer k
CW_EXPONENT_BIAS_BITS = 0x4B3FFF81        # 0x4B400000 - 127: bits(tmp) - this = k + 127
# h(r) = expm1(r)/r, highest degree first (the source lists them lowest first: 1, h1..h4).
CW_H_HIGH_FIRST = (8.3751315251e-03, 4.1875664145e-02, 1.6666433215e-01, 4.9999371171e-01, 1.0)


def expm1_cw_clamped(x):
    """tt-llk ``expm1_cw_clamped(x)`` for x below ~88.7 (the revisions agree there)."""
    x = vFloat(x)
    low = vFloat(vFloat(CW_CLAMP_LOW))
    vec_min_max(low, x)                           # x = max(x, -87)
    c231 = reinterpret(vFloat, vInt(CW_ROUNDING_BIAS_BITS))
    tmp = x * CW_INV_LN2 + c231
    k = tmp - c231
    r = k * CW_NEG_LN2_HI + x
    r = r + k * CW_NEG_LN2_LO                     # r = x - k ln 2, |r| <= ln(2)/2
    h = vFloat(CW_H_HIGH_FIRST[0])
    for c in CW_H_HIGH_FIRST[1:]:
        h = h * r + c                             # PolynomialEvaluator::eval: Horner
    h = r * h                                     # expm1(r)
    two_k = setexp(vFloat(1.0), reinterpret(vInt, tmp) - vInt(CW_EXPONENT_BIAS_BITS))
    return (two_k - 1.0) + two_k * h              # one SFPMAD after two_k - 1


def _elu_family(alpha: float, negative_of, positive_of, round_to_bf16: bool):
    """The shared loop body: ``negative_of(expm1)`` by default, ``positive_of(x)`` where x >= 0,
    then ``convert<vFloat16b>(., Nearest)`` at a BF16 Dst."""
    x = dst_reg[0]
    result = negative_of(vFloat(alpha), x)
    with v_if(x >= 0.0):
        result.assign(positive_of(x))
    v_endif()
    if round_to_bf16:
        result = reinterpret(vFloat, float_to_fp16b(result, 0))
    dst_reg[0] = result


ELU_ALPHA = 1.0                           # the harness's alpha (0x3f800000)
CELU_ALPHA, CELU_ALPHA_RECIP = 1.0, 1.0   # 0x3f800000 for both


def _celu(round_to_bf16: bool):
    _elu_family(CELU_ALPHA,
                lambda alpha, x: alpha * expm1_cw_clamped(vFloat(CELU_ALPHA_RECIP) * x),
                lambda x: x, round_to_bf16)


def _elu(round_to_bf16: bool):
    _elu_family(ELU_ALPHA, lambda alpha, x: alpha * expm1_cw_clamped(x), lambda x: x,
                round_to_bf16)


# The harness's selu arguments (sfpu_operations.h): scale 0x3f867d5f, alpha 0x3fd62d7d. The
# kernel multiplies the two as C floats on the RISC-V (Converter::as_float * as_float): one
# FP32 product, round to nearest even.
SELU_SCALE = float(np.uint32(0x3F867D5F).view(np.float32))
SELU_ALPHA = float(np.uint32(0x3FD62D7D).view(np.float32))
SELU_SCALE_ALPHA = float(np.float32(SELU_SCALE) * np.float32(SELU_ALPHA))


def _selu(round_to_bf16: bool):
    _elu_family(SELU_SCALE_ALPHA, lambda scale_alpha, x: scale_alpha * expm1_cw_clamped(x),
                lambda x: vFloat(SELU_SCALE) * x, round_to_bf16)


def celu_2026_09():
    """One iteration of ``calculate_celu<false, false>(1.0, 1.0)``."""
    _celu(round_to_bf16=True)


def celu_fp32_2026_09():
    """One iteration of ``calculate_celu<false, true>(1.0, 1.0)``: no rounding."""
    _celu(round_to_bf16=False)


def elu_2026_09():
    """One iteration of ``calculate_elu<false, false>(1.0)``."""
    _elu(round_to_bf16=True)


def elu_fp32_2026_09():
    """One iteration of ``calculate_elu<false, true>(1.0)``: no rounding."""
    _elu(round_to_bf16=False)


def selu_2026_09():
    """One iteration of ``calculate_selu<false, false>(scale, alpha)``."""
    _selu(round_to_bf16=True)


def selu_fp32_2026_09():
    """One iteration of ``calculate_selu<false, true>(scale, alpha)``: no rounding."""
    _selu(round_to_bf16=False)


ELU_FAMILY_SOURCE = (
    "tt-metal ckernel_sfpu_{op}.h calculate_{op}<false, fp32> (the 2026 revision with celu_init/"
    "elu_init = reset_counters and the SfpuUnaryOp structs: WH index ids {ids}) + tt-llk "
    "sfpu/ckernel_sfpu_expm1_cw.h expm1_cw_clamped (2026 revisions 60667918574, 58442164954, "
    "71094253230 agree below x ~ 88.7): max(x, -87), k = round(x/ln 2) by 1.5*2^23, two-part "
    "ln 2, degree-4 h (INP_FLOAT32 undefined in the harness), (2^k - 1) + 2^k h; {what}")
_ELU_FAMILY = (
    ("celu", _celu, "68296746824", "x >= 0 keeps x, else 1.0 * expm1(1.0 * x)"),
    ("elu", _elu, "68305132589", "x >= 0 keeps x, else 1.0 * expm1(x)"),
    ("selu", _selu, "58131018214 (non-approximate path)",
     "x >= 0 gives scale*x, else fp32(scale*alpha) * expm1(x)"),
)
_ELU_FUNCTIONS = {"celu": "celu_alpha1", "elu": "elu_alpha1", "selu": "selu"}

for _op, _body, _ids, _what in _ELU_FAMILY:
    register_kernel(
        f"{_op}_2026_09", globals()[f"{_op}_2026_09"], function=_ELU_FUNCTIONS[_op],
        mode="accurate", dest="bf16", template=f"calculate_{_op}",
        params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": False},
        provenance=ELU_FAMILY_SOURCE.format(op=_op, ids=_ids, what=_what)
        + "; convert<vFloat16b>(., Nearest)",
        description=f"the harness's {_op.capitalize()} row on a 16-bit Dst, Sep 2026")
    register_kernel(
        f"{_op}_fp32_2026_09", globals()[f"{_op}_fp32_2026_09"], function=_ELU_FUNCTIONS[_op],
        mode="accurate", dest="fp32", template=f"calculate_{_op}",
        params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": True},
        instance_of=f"{_op}_2026_09",
        provenance=ELU_FAMILY_SOURCE.format(op=_op, ids=_ids, what=_what) + "; no rounding",
        description=f"the harness's {_op.capitalize()} row with an FP32 Dst, Sep 2026")
