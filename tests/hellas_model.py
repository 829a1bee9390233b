"""An independent host model of the hellas kernels (kernels/hellas.py, after a design note on
deterministic sin, cos, exp and log): the same algorithm written directly in numpy on FP32 bit
patterns, one platform's multiply-add per step, without the DSL, the tracer, the register
allocator, predication or the machine.

The arithmetic is a parameter (:class:`Platform`): a chip (``sfpu_sim.fma.MODELS[chip]``, the
golden-vector-checked SFPMAD models, with SFPMUL as ``a*b + 0`` and subtraction as sfpi's
``b * -1 + a``), or a binary32 host whose multiplies, adds and subtractions are numpy float32
operations (NaNs written as 0x7FC00000) and whose fused multiply-adds are
``sfpu_sim.fma.fma_ieee`` (checked against exact rational arithmetic in tests/test_fma.py).
Constants are transcribed again from the note: its published Sollya ``fpminimax``
single-precision coefficients and its Cody-Waite pi/2 split.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import fma, formats

SIGN, MAGNITUDE = np.uint32(0x80000000), np.uint32(0x7FFFFFFF)
NAN_BITS, INF_BITS = np.uint32(0x7FC00000), np.uint32(0x7F800000)


def bits(value) -> np.uint32:
    return np.uint32(formats.fp32_to_bits(np.float32(value)))


# The note's single-precision Sollya fpminimax coefficients (ascending powers).
S1, S3, S5, S7 = map(bits, (1.0, -0.166666507720947265625, 8.331983350217342376708984375e-3,
                            -1.94961365195922553539276123046875e-4))
C0, C2, C4, C6 = map(bits, (1.0, -0.49999892711639404296875, 4.16561998426914215087890625e-2,
                            -1.35968066751956939697265625e-3))
E0, E1, E2, E3 = map(bits, (0.9998929500579833984375, 1.0047757625579833984375,
                            0.4669305980205535888671875, 0.23783318698406219482421875))
L0, L1, L2, L3 = map(bits, (-2.1859228610992431640625, 4.22526264190673828125,
                            -2.9164140224456787109375, 0.877515852451324462890625))
NEG_PIO2_HI = bits(-float.fromhex("0x1.92p+0"))
NEG_PIO2_LO = bits(-float.fromhex("0x1.fb54442d18p-12"))        # rounded to nearest FP32
TWO_OVER_PI, INV_LN2 = bits(2 / np.pi), bits(1 / np.log(2))
LN2, NEG_LN2 = bits(np.log(2)), bits(-np.log(2))
BIAS = np.uint32(0x4B400000)                                      # 1.5 * 2**23
TWO_POW_23 = np.uint32(0x4B000000)
ONE, NEG_ONE, ZERO = bits(1.0), bits(-1.0), np.uint32(0)


class Platform:
    """``mad(a, b, c)``, ``mul``, ``add``, ``sub`` on FP32 patterns, and the two stores."""

    def __init__(self, name: str):
        self.name = name
        self.chip = name in ("wormhole", "blackhole")
        self.fused = name != "binary32-no-fma"

    def _f32(self, v):
        return formats.bits_to_fp32(np.asarray(v, dtype=np.uint32))

    def _bits(self, v):
        """numpy's float32 result; a NaN as the IEEE model writes every NaN (0x7FC00000:
        x86's default NaN is 0xFFC00000, Arm's 0x7FC00000)."""
        b = formats.fp32_to_bits(v)
        return np.where(formats.is_nan(b), NAN_BITS, b).astype(np.uint32)

    def mad(self, a, b, c):
        if self.chip:
            return fma.MODELS[self.name](a, b, c)
        if self.fused:
            return fma.fma_ieee(a, b, c)
        return self.add(self.mul(a, b), c)

    def mul(self, a, b):
        if self.chip:
            return fma.MODELS[self.name](a, b, ZERO)
        with np.errstate(all="ignore"):
            return self._bits(self._f32(a) * self._f32(b))

    def add(self, a, b):
        if self.chip:
            return fma.MODELS[self.name](a, ONE, b)
        with np.errstate(all="ignore"):
            return self._bits(self._f32(a) + self._f32(b))

    def sub(self, a, b):
        if self.chip:
            return fma.MODELS[self.name](b, NEG_ONE, a)
        with np.errstate(all="ignore"):
            return self._bits(self._f32(a) - self._f32(b))

    def store(self, y, dest: str):
        """The Dst contents: BF16 (the kernel's own RNE already applied) or FP32."""
        if dest == "bf16":
            return (formats.fp32_to_bf16_truncate(y) if self.chip else
                    formats.fp32_to_bf16_rne(y))
        return formats.flush_denormals(y) if self.chip else y


def _u32(v):
    return np.asarray(v, dtype=np.uint32)


def round_bf16_integer(y):
    """The kernels' BF16 rounding: ``(bits + 0x7FFF + lsb) >> 16 << 16`` on uint32."""
    y = _u32(y)
    return ((y + np.uint32(0x7FFF) + ((y >> 16) & 1)) >> 16) << 16


def _horner(p: Platform, x, *coefficients):
    """c[-1]*x + c[-2], then *x + c[-3] ...: one multiply-add per step, innermost first."""
    acc = p.mad(x, coefficients[-1], coefficients[-2])
    for c in reversed(coefficients[:-2]):
        acc = p.mad(acc, x, c)
    return acc


def _reduce(p: Platform, x):
    """(q mod 4, sin r, cos r): q = round(x * 2/pi) by the rounding bias for |x| < 2**22, where
    the bias's sum steps by 1 (its low bits are then q mod 4); from 2**22 on from q itself:
    x * 2/pi rounded to an integer (adding and taking away 2**23 below 2**23)."""
    t = p.mad(x, TWO_OVER_PI, BIAS)
    q = p.sub(t, BIAS)
    u = p.mul(x, TWO_OVER_PI)
    magnitude = u & MAGNITUDE
    below = (magnitude >> 23).astype(np.int64) < 127 + 23
    rounded = np.where(below, p.sub(p.add(magnitude, TWO_POW_23), TWO_POW_23),
                       magnitude) | (u & SIGN)
    large = ((x >> 23) & 0xFF).astype(np.int64) >= 127 + 22
    q = np.where(large, rounded, q).astype(np.uint32)
    with np.errstate(invalid="ignore"):                   # NaN and Inf lanes: q mod 4 unused
        value = formats.bits_to_fp32(q).astype(np.float64)
    small = np.abs(value) < 2.0 ** 25                      # above, 4 divides q
    q_mod_4 = np.mod(np.where(small, value, 0).astype(np.int64), 4).astype(np.uint32)
    quadrant = np.where(large, q_mod_4, t & np.uint32(3))
    r = p.mad(q, NEG_PIO2_HI, x)
    r = p.mad(q, NEG_PIO2_LO, r)
    s = p.mul(r, r)
    sin_r = p.mul(_horner(p, s, S1, S3, S5, S7), r)
    cos_r = _horner(p, s, C0, C2, C4, C6)
    return quadrant, sin_r, cos_r


def _trig_specials(x, y, at_zero):
    x = _u32(x)
    y = np.where((x & INF_BITS) == INF_BITS, NAN_BITS, y)
    return np.where((x & MAGNITUDE) == 0, at_zero, y).astype(np.uint32)


def sincos(p: Platform, x):
    """(sin x, cos x) as FP32 patterns before the ending."""
    x = _u32(x)
    quadrant, sin_r, cos_r = _reduce(p, x)
    odd = (quadrant & 1) == 1
    sign = (quadrant & 2) << 30
    s = np.where(odd, cos_r, sin_r) ^ sign
    c = np.where(odd, sin_r ^ SIGN, cos_r) ^ sign
    return _trig_specials(x, s, x), _trig_specials(x, c, ONE)


def exp(p: Platform, x):
    x = _u32(x)
    v = formats.bits_to_fp32(x)
    with np.errstate(invalid="ignore"):
        clamped = formats.fp32_to_bits(np.minimum(np.maximum(v, np.float32(-104)),
                                                  np.float32(89)))
    t = p.mad(clamped, INV_LN2, BIAS)
    k = p.sub(t, BIAS)
    r = p.mad(k, NEG_LN2, clamped)
    negative = (r >> 31) == 1                              # the raw sign test: -0 included
    k = np.where(negative, p.sub(k, ONE), k)
    r = np.where(negative, p.mad(k, NEG_LN2, clamped), r)
    poly = _horner(p, r, E0, E1, E2, E3)
    k_int = (p.add(k, BIAS).astype(np.int64) - 0x4B400000)
    half = (k_int + 152) >> 1
    scale1 = ((half + 51) << 23).astype(np.uint32)
    scale2 = ((k_int - half + 203) << 23).astype(np.uint32)
    y = p.mul(p.mul(poly, scale1), scale2)
    magnitude = x & MAGNITUDE
    y = np.where(magnitude == 0, ONE, y)
    y = np.where(magnitude == INF_BITS, np.where(x >> 31, ZERO, INF_BITS), y)
    return np.where(magnitude > INF_BITS, NAN_BITS, y).astype(np.uint32)


def log(p: Platform, x):
    x = _u32(x)
    m = (x & np.uint32(0x807FFFFF)) | np.uint32(126 << 23)
    poly = _horner(p, m, L0, L1, L2, L3)
    exponent_field = (x >> 23) & 0xFF
    e = p.sub(BIAS | exponent_field, bits(12582912.0 + 126))
    y = p.mad(e, LN2, poly)
    magnitude = x & MAGNITUDE
    y = np.where(magnitude == INF_BITS, INF_BITS, y)
    y = np.where(x >> 31 == 1, NAN_BITS, y)
    y = np.where(exponent_field == 0, bits(-np.inf), y)
    return np.where(magnitude > INF_BITS, NAN_BITS, y).astype(np.uint32)


FUNCTIONS = {"sin": lambda p, x: sincos(p, x)[0], "cos": lambda p, x: sincos(p, x)[1],
             "exp": exp, "log": log}


def dst(function: str, platform: str, x_fp32, dest: str):
    """What a hellas kernel leaves in Dst for FP32 input patterns ``x_fp32`` on ``platform``
    ("wormhole", "blackhole", "binary32-fma", "binary32-no-fma")."""
    p = Platform(platform)
    y = FUNCTIONS[function](p, x_fp32)
    if dest == "bf16":
        y = round_bf16_integer(y)
    return p.store(y, dest)
