"""Binary SFPU fmod and remainder on floats, Sep 2026, both chips: ``calculate_sfpu_binary_fmod``
and ``calculate_sfpu_binary_remainder`` (the accuracy harness's SfpuBinaryFmod and
SfpuBinaryRemainder rows; ttnn's binary_ng fmod / remainder on float tiles).

Operands as in :mod:`kernels.binary_2026`: in0 = a at ``dst_reg[0]``, in1 = b at
``dst_reg[32]``, the result back to ``dst_reg[0]``.

Sources read (tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/``):

* Wormhole ``ckernel_sfpu_binary_fmod.h`` and ``ckernel_sfpu_binary_remainder.h`` @053e9cb7
  (index ids 58807585817, 58947221956; the snapshot :mod:`kernels.misc_2026` pins its unary
  fmod and remainder to). fmod: ``q = a * sfpu_reciprocal_iter<2>(b)``, ``r = a - trunc(q) * b``;
  ``r -+ |b|`` where ``|r| >= |b|`` (by r's sign); ``r + |b|`` where ``a >= 0`` and ``r < 0``,
  ``r - |b|`` where ``a < 0`` and ``r > 0``; 0 where ``a == b``; NaN where ``b == 0``.
  remainder: ``r = a - floor(a * sfpu_reciprocal_iter<2>(b)) * b``; ``r + b`` where ``r != 0``
  and the sign bits of r and b differ (an XOR, then ``v_and``); ``r - b`` where ``a, b > 0`` and
  ``r - b >= 0``, or ``a, b < 0`` and ``r - b <= 0``; NaN where ``b == 0``. Both round the
  result to BF16 for a 16-bit Dst (``convert<vFloat16b>``, SFPSTOCHRND, nearest), not for an FP32
  one. Init: ``sfpu_reciprocal_init<false>`` / ``recip_init<false, false, false>``, the minimax
  seed.
* Blackhole ``ckernel_sfpu_binary_fmod.h`` (index id 54858098179, @03934ab3) and
  ``ckernel_sfpu_binary_remainder.h`` (index id 55918234463, @01656bf7): the same arithmetic,
  with tt-llk's ``_sfpu_reciprocal_<2>`` / the metal ``sfpu_reciprocal_iter<2>`` (SFPARECIP and
  two guarded Newton steps, Prgm0 = 2.0, which both inits load). Both reciprocals are
  :func:`kernels.reciprocal.reciprocal` with two iterations.
* ``_trunc_body_`` / ``_floor_body_`` (``sfpu/ckernel_sfpu_rounding_ops.h``): the revisions of
  that era are the raw-TTI bodies :mod:`kernels.rounding_2026` models (SFPEXEXP's condition
  modes, which the DSL cannot emit inside sfpi code). They are written here in their sfpi form
  (tt-llk's "#41922 construction zone" revision, index id 60893245331): exponent < 0 gives the
  signed zero, exponent < 23 clears the fraction bits by two shifts, otherwise the value itself;
  floor subtracts 1 where ``x < trunc(x)``. Both forms give the same bits on every input (the
  same masks), so results are exact to the device while a trace shows sfpi's instructions, not
  the TTI ones.
* The harness (``tests/helpers/include/sfpu_operations.h``, index id 59024996740) calls
  ``calculate_sfpu_binary_fmod<APPROX, 8, DST_ACCUM_MODE>`` and ``..._remainder<...>`` on in0 =
  tile 0, in1 = tile 1.
"""
from __future__ import annotations

from kernels.binary_2026 import IN1
from kernels.common import dest_params, dst_text
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim.registry import register_kernel
from sfpu_sim.sfpi import (abs, dst_reg, exexp, float_to_fp16b, reinterpret, setsgn, shft,
                           v_and, v_else, v_elseif, v_endif, v_if, vFloat, vInt, vUInt)

METAL = "tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
FMOD_SOURCE = (METAL + "ckernel_sfpu_binary_fmod.h (WH @053e9cb7, index id 58807585817; BH "
               "@03934ab3, index id 54858098179)")
REMAINDER_SOURCE = (METAL + "ckernel_sfpu_binary_remainder.h (WH @053e9cb7, index id "
                    "58947221956; BH @01656bf7, index id 55918234463)")
TRUNC_SOURCE = ("_trunc_body_/_floor_body_ in their sfpi form (tt-llk ckernel_sfpu_rounding_ops.h, "
                "index id 60893245331), the same bits as the TTI bodies of the era")
MANTISSA_BITS = 23


def trunc_body(val):
    """``_trunc_body_(val)``: toward zero, the sign kept (module docstring)."""
    result = vFloat(0.0)
    exponent = exexp(val)
    with v_if(exponent < 0):
        result.assign(setsgn(vFloat(0.0), val))
    with v_elseif(exponent < MANTISSA_BITS):
        shift = exponent - MANTISSA_BITS
        bits = shft(shft(reinterpret(vUInt, val), shift), 0 - shift)
        result.assign(reinterpret(vFloat, bits))
    with v_else():
        result.assign(val)
    v_endif()
    return result


def floor_body(val):
    """``_floor_body_(val)``: the truncation, less 1 where it is above ``val``."""
    result = trunc_body(val)
    with v_if(val < result):
        result.assign(result - 1.0)
    v_endif()
    return result


def fmod(a, b):
    """``_sfpu_binary_fmod_`` before its 16-bit-Dst rounding: ``a - trunc(a/b) * b``, corrected
    into ``|r| < |b|`` with a's sign."""
    b_abs = abs(b)
    quotient = a * reciprocal(b, 2)
    result = a - trunc_body(quotient) * b
    with v_if(abs(result) >= b_abs):
        with v_if(result >= 0.0):
            result.assign(result - b_abs)
        with v_else():
            result.assign(result + b_abs)
        v_endif()
    v_endif()
    with v_if(a >= 0.0):
        with v_if(result < 0.0):
            result.assign(result + b_abs)
        v_endif()
    with v_else():
        with v_if(result > 0.0):
            result.assign(result - b_abs)
        v_endif()
    v_endif()
    with v_if(a == b):
        result.assign(0.0)
    v_endif()
    with v_if(b == 0.0):
        result.assign(float("nan"))
    v_endif()
    return result


def remainder(a, b):
    """``_sfpu_binary_remainder_`` before its 16-bit-Dst rounding: ``a - floor(a/b) * b``,
    corrected to b's sign and into ``|r| < |b|``."""
    result = a - floor_body(a * reciprocal(b, 2)) * b
    with v_if(result != 0.0):
        signs = reinterpret(vInt, result) ^ reinterpret(vInt, b)
        v_and(signs < 0)
        result.assign(result + b)
    v_endif()
    with v_if((b > 0.0) & (a > 0.0)):
        diff = result - b
        with v_if(diff >= 0.0):
            result.assign(diff)
        v_endif()
    v_endif()
    with v_if((b < 0.0) & (a < 0.0)):
        diff = result - b
        with v_if(diff <= 0.0):
            result.assign(diff)
        v_endif()
    v_endif()
    with v_if(b == 0.0):
        result.assign(float("nan"))
    v_endif()
    return result


def _bf16_dst(body):
    def kernel():
        """The 16-bit-Dst instantiation: the result rounded to BF16 (nearest)."""
        result = body(dst_reg[0], dst_reg[IN1])
        dst_reg[0] = reinterpret(vFloat, float_to_fp16b(result, 0))
    return kernel


def _fp32_dst(body):
    def kernel():
        """The FP32-Dst instantiation: no rounding."""
        dst_reg[0] = body(dst_reg[0], dst_reg[IN1])
    return kernel


for _name, _body, _source, _what in (
        ("fmod", fmod, FMOD_SOURCE, "a - trunc(a * 1/b) * b, corrected into |r| < |b| with "
                                    "a's sign, 0 where a == b, NaN where b == 0"),
        ("remainder", remainder, REMAINDER_SOURCE, "a - floor(a * 1/b) * b, corrected to b's "
                                                   "sign and into |r| < |b|, NaN where b == 0")):
    for _dest, _wrap, _rounding in (("bf16", _bf16_dst, "rounded to BF16 (nearest)"),
                                    ("fp32", _fp32_dst, "no rounding")):
        register_kernel(
            f"binary_{_name}{'_fp32' if _dest == 'fp32' else ''}_2026_09", _wrap(_body),
            init=reciprocal_init, function=_name, operands=2, dest=_dest,
            template=f"calculate_sfpu_binary_{_name}",
            params=dest_params(_dest),
            provenance=f"{_source}: {_what}, 1/b by sfpu_reciprocal_iter<2>; {_rounding}. "
                       f"{TRUNC_SOURCE}",
            description=f"SfpuBinary{_name.title()} row / ttnn binary_ng {_name}, "
                        f"{dst_text(_dest)} Dst, Sep 2026")
