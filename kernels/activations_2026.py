"""Piecewise activations as of 2026-09-30 (BF16 Dst): hardsigmoid.

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

from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg, v_endif, v_if, vConstFloatPrgm0, vConstFloatPrgm1, vFloat

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
