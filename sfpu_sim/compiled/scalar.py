"""Scalar (one lane) versions of what instructions compute, for compiled programs.

Owns: nothing new. Each helper is the one-lane reading of an array function elsewhere, named
after it: the multiply-add is :func:`sfpu_sim.fma._datapath` itself (one datapath, the chip's
rules as a constant); the conversions follow :mod:`sfpu_sim.formats`, :mod:`sfpu_sim.isa.*`
page by page. Values are int64 holding 32-bit patterns (0 .. 2**32 - 1); a helper masks what
could leave that range. Knows nothing of registers, predication or programs.

The compiled programs must agree with the Machine bit for bit; tests/test_compiled.py checks
every registered kernel on both chips and ttsim's whole-kernel vectors through both paths.
"""
from __future__ import annotations

from numba import types
from numba.extending import intrinsic

from sfpu_sim.fma import BLACKHOLE, WORMHOLE, _datapath
from sfpu_sim.isa.convert import (  # noqa: F401 - programs import them from here
    sign_magnitude_to_twos_complement,
    twos_complement_to_sign_magnitude,
)
from sfpu_sim.isa.lanewise import int32  # noqa: F401 - programs import it from here
from sfpu_sim.jit import njit

M32 = 0xFFFFFFFF
SIGN = 0x80000000
MAGNITUDE = 0x7FFFFFFF
EXPONENT = 0x7F800000
MANTISSA = 0x007FFFFF

inline = njit(nogil=True)


# --- the multiply-add (fma.py), one per chip so that the rules fold to constants -------------
@intrinsic
def _inline_into_callers(typingctx):
    """Marks the function that calls it ``alwaysinline`` for LLVM. Why: a called datapath has
    one set of branches for every multiply-add of a program, which the branch predictor cannot
    tell apart, and its constant operands are not folded; inlined, each call site gets its own
    (measured 1.3-1.4x on whole kernels). LLVM inlines when it links the callee into the
    program, so compile time grows far less than with numba's own ``inline='always'``."""
    def codegen(context, builder, signature, args):
        builder.function.attributes.add("alwaysinline")
        return context.get_dummy_value()
    return types.none(), codegen


@njit(nogil=True)
def fma_wormhole(a, b, c):
    return _datapath(a, b, c, WORMHOLE)


@njit(nogil=True)
def fma_blackhole(a, b, c):
    return _datapath(a, b, c, BLACKHOLE)


@njit(nogil=True)
def fma_wormhole_inline(a, b, c):
    """:func:`fma_wormhole`, inlined at every call site (:func:`_inline_into_callers`)."""
    _inline_into_callers()
    return _datapath(a, b, c, WORMHOLE)


@njit(nogil=True)
def fma_blackhole_inline(a, b, c):
    """:func:`fma_blackhole`, inlined at every call site (:func:`_inline_into_callers`)."""
    _inline_into_callers()
    return _datapath(a, b, c, BLACKHOLE)


# --- integers and fields ---------------------------------------------------------------------
@inline
def lanes_meet():
    """Where lanes read what other lanes of their SFPU wrote (SFPCONFIG's value from lanes
    0-7): nothing here, as a CPU program runs an SFPU's lanes one after another; a barrier
    where lanes are threads (:mod:`sfpu_sim.compiled.gpu`)."""
    return None


@inline
def smag_less(c, d):
    """isa.cc.smag_less: c < d as sign-magnitude int32."""
    kc = int32(c ^ (MAGNITUDE if c & SIGN else 0))
    kd = int32(d ^ (MAGNITUDE if d & SIGN else 0))
    return kc < kd


@inline
def shift_signed_amount(value, amount):
    """isa.lanes._shift: left by ``amount`` >= 0, else logical right by ``-amount``, mod 32."""
    if amount >= 0:
        return (value << (amount & 31)) & M32
    return value >> ((-amount) & 31)


# --- Dst layout (formats: bf16_to_dst, dst_to_bf16, fp16_to_dst, dst_to_fp16, fp32 <-> dst) --
@inline
def bf16_to_dst(h):
    return (h & 0x8000) | ((h & 0x7F) << 8) | ((h >> 7) & 0xFF)


@inline
def dst_to_bf16(d):
    return (d & 0x8000) | ((d & 0xFF) << 7) | ((d >> 8) & 0x7F)


@inline
def fp16_to_dst(h):
    return (h & 0x8000) | ((h & 0x3FF) << 5) | ((h >> 10) & 0x1F)


@inline
def dst_to_fp16(d):
    return (d & 0x8000) | ((d & 0x1F) << 10) | ((d >> 5) & 0x3FF)


@inline
def fp32_to_dst(x):
    return (bf16_to_dst(x >> 16) << 16) | (x & 0xFFFF)


@inline
def dst_to_fp32(d):
    return (dst_to_bf16(d >> 16) << 16) | (d & 0xFFFF)


# --- the SFPU's FP16 readings and the truncating stores (formats) ----------------------------
@inline
def fp16a_to_fp32(h):
    """formats.fp16a_to_fp32_bits without ENABLE_FP16A_INF (compiled programs run with
    LaneConfig zero)."""
    sign, e, m = (h & 0x8000) << 16, (h >> 10) & 0x1F, h & 0x3FF
    return sign | ((m << 13) if e == 0 else ((e + 112) << 23) | (m << 13))


@inline
def fp32_to_fp16a_truncate(x):
    sign = (x >> 16) & 0x8000
    e = ((x >> 23) & 0xFF) - 112
    if e <= 0:
        return sign
    if e > 31:
        return sign | 0x7FFF
    return sign | (e << 10) | ((x & MANTISSA) >> 13)


@inline
def fp32_to_bf16_truncate(x):
    return (x & SIGN if (x & EXPONENT) == 0 else x) >> 16


@inline
def flush_denormal(x):
    return x & SIGN if (x & EXPONENT) == 0 and (x & MANTISSA) != 0 else x


# --- SFPLUT (isa.lut) -------------------------------------------------------------------------
# --- SFP_STOCH_RND, SFPCAST (isa.convert) -----------------------------------------------------
@inline
def prng_step(state):
    """Machine.advance_prng: one LFSR step (taps 31, 21, 1, 0)."""
    parity = (state >> 31) ^ (state >> 21) ^ (state >> 1) ^ state
    return ((~parity & 1) << 31) | (state >> 1)


# --- SFPARECIP (isa.convert) ------------------------------------------------------------------
# --- SFPMUL24 (isa.arith) ---------------------------------------------------------------------
