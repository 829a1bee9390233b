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

import numpy as np
from numba import types
from numba.extending import intrinsic

from sfpu_sim.fma import BLACKHOLE, WORMHOLE, _bit_length, _datapath
from sfpu_sim.isa.convert import ELUT, ELUT_BASE, RLUT
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
def int32(x):
    """The pattern read as a two's complement int32."""
    return (x ^ SIGN) - SIGN


@inline
def leading_zeros32(x):
    return 32 - _bit_length(x)


@inline
def sign_magnitude_to_twos_complement(x):
    magnitude = x & MAGNITUDE
    return (-magnitude) & M32 if x & SIGN else magnitude


@inline
def twos_complement_to_sign_magnitude(x):
    sign = x & SIGN
    return sign | (((-x) & M32 if sign else x) & MAGNITUDE)


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
def fp16_floata_to_fp32(h):
    return ((h & 0x8000) << 16) | ((((h >> 10) & 0x1F) + 112) << 23) | ((h & 0x3FF) << 13)


@inline
def lut16_to_fp32(h):
    h = h & 0xFFFF
    e = (h >> 10) & 0x1F
    return ((h & 0x8000) << 16) | ((0 if e == 31 else e + 112) << 23) | ((h & 0x3FF) << 13)


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


@inline
def drop_mantissa_bits(x, drop, threshold):
    """formats.fp32_drop_mantissa_bits."""
    e = x & EXPONENT
    if e == 0:
        return 0
    if e == EXPONENT:
        return x & 0xFF800000
    discarded = x & ((1 << drop) - 1)
    return x - discarded + ((1 << drop) if discarded >= threshold else 0)


# --- SFPLUT (isa.lut) -------------------------------------------------------------------------
@inline
def lut8_to_fp32(code):
    x = code & 0xFF
    if x == 0xFF:
        return 0
    return ((x >> 7) << 31) | ((127 - ((x >> 4) & 7)) << 23) | ((x & 0xF) << 19)


# --- SFP_STOCH_RND, SFPCAST (isa.convert) -----------------------------------------------------
@inline
def prng_step(state):
    """Machine.advance_prng: one LFSR step (taps 31, 21, 1, 0)."""
    parity = (state >> 31) ^ (state >> 21) ^ (state >> 1) ^ state
    return ((~parity & 1) << 31) | (state >> 1)


@inline
def float_to_int(x, keep_sign, largest, threshold):
    """isa.convert._float_to_int."""
    sign = x & SIGN if keep_sign else 0
    e = ((x >> 23) & 0xFF) - 127
    if e < -1:
        return 0
    if e >= 16:
        magnitude = largest
    else:
        significand = 0x800000 | (x & MANTISSA)
        fixed = significand << min(e, 15) if e >= 0 else significand >> 1
        magnitude = min((fixed >> 23) + ((fixed & 0x7FFFFF) >= threshold), largest)
    return 0 if magnitude == 0 else sign | magnitude


@inline
def int_to_int8(x, shift, unsigned, threshold):
    """isa.convert._int_to_int8."""
    fixed = ((x & MAGNITUDE) << 23) >> shift
    magnitude = (fixed >> 23) + ((fixed & 0x7FFFFF) >= threshold)
    if unsigned:
        return min(magnitude, 255)
    magnitude = min(magnitude, 127)
    return 0 if magnitude == 0 else (x & SIGN) | magnitude


@inline
def sign_magnitude_to_fp32(x, random, stochastic):
    """isa.convert._sign_magnitude_to_fp32; ``random`` is the PRNG state (stochastic only)."""
    sign, magnitude = x & SIGN, x & MAGNITUDE
    leading = 157 if magnitude == 0 else 32 - _bit_length(magnitude)
    normalised = (magnitude << (leading & 31)) & M32
    result = sign + ((157 - leading) << 23) + (normalised >> 8)
    if stochastic:
        up = (normalised & 0xFE) > ((random >> 9) & 0xFE)
    else:
        up = (normalised & 0x80) != 0 and (normalised & 0x17F) != 0
    return (result + up) & M32


# --- SFPARECIP (isa.convert) ------------------------------------------------------------------
@inline
def approx_recip(a):
    if a < 0x00800000:
        return 0x7F800000
    if a >= 0x7E800000:
        return 0
    return ((253 - min(a >> 23, 253)) << 23) | (np.int64(RLUT[(a >> 16) & 0x7F]) << 16)


@inline
def approx_exp(a):
    low = a & 0xFFFF
    if a < 0x00800000:
        return 0x3F800000
    if a < 0x3C800000:
        return 0x3F810000 | low
    index = min(max((a >> 16) - ELUT_BASE, 0), ELUT.size - 1)
    table = (np.int64(ELUT[index]) << 16) | low
    if a < 0x3F320000:
        return 0x3F800000 | table
    if a < 0x40000000:
        return 0x40000000 | table
    return 0x40800000 | low


# --- SFPMUL24 (isa.arith) ---------------------------------------------------------------------
@inline
def mul24_shift_add(p, z):
    """isa.arith._mul24_shift_add."""
    ze = (z >> 23) & 0xFF
    if ze == 0:
        return p
    re = max(129, ze)
    s = (re - ze) & 31
    zm = ((z & 0x7FFFFF) | 0x800000) << 3
    p = p >> ((re - 129) & 31)
    q = zm >> s
    if q == 0:
        return p
    carry = 0x10000 if (((q << s) ^ zm) & M32) > 0xFFFF else 0
    return (p + q + carry) & 0x7FFFFF
