"""Rounding a certified value to a format (vectorised), and the rounding policies of the
device reports."""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats
from sfpu_sim.formats import BF16, FP32, FloatFormat
from sfpu_sim.reference.certify import Certified, special_values
from sfpu_sim.reference.core import (FINITE, INF, NAN, OUTPUT_FORMATS, ZERO, UnknownFormat,
                                     UnknownPolicy, choice)

RNE, RNA, RZ = "nearest-even", "nearest-away", "toward-zero"


def round_certified(c: Certified, fmt: FloatFormat, mode: str) -> np.ndarray:
    """Bit patterns of ``fmt`` (gradual underflow; overflow to Inf, or to the largest finite
    toward zero); NaN becomes the positive canonical quiet NaN."""
    p = fmt.man_bits + 1
    bias = fmt.exp_max >> 1
    emin, emax = 1 - bias, bias
    one = np.uint64(1)
    top = np.clip(c.e + 63, emin - 80, emax + 2)          # exponent of the leading bit
    shift = np.minimum(64 - p + np.maximum(emin - top, 0), 65)
    wide = shift >= 64
    s = np.where(wide, 63, shift).astype(np.uint64)
    q = np.where(wide, np.uint64(0), c.m >> s)
    rem = np.where(wide, c.m, c.m & ((one << s) - one))
    half = np.where(wide, np.uint64(1 << 63), one << (s - one))
    if mode == RNE:
        up = (rem > half) | ((rem == half) & ((q & one) == one))
    elif mode == RNA:
        up = rem >= half
    else:
        up = np.zeros(q.shape, dtype=bool)
    q = q + (up & (shift <= 64)).astype(np.uint64)
    base = np.where(top >= emin, (top - emin).astype(np.uint64) << np.uint64(p - 1), np.uint64(0))
    magnitude = base + q
    inf = np.uint64(fmt.exp_max << (p - 1))
    magnitude = np.where(magnitude >= inf, inf - np.uint64(mode == RZ), magnitude)
    magnitude = np.where(c.cls == ZERO, np.uint64(0), magnitude)
    magnitude = np.where(c.cls == INF, inf, magnitude)
    magnitude = np.where(c.cls == NAN, inf | np.uint64(1 << (p - 2)), magnitude)
    sign = np.where(c.negative & (c.cls != NAN), np.uint64(fmt.sign_mask), np.uint64(0))
    return (sign | magnitude).astype(fmt.dtype)


def decode(bits, fmt: FloatFormat) -> Certified:
    """Exact certified form of FP32/BF16/FP16 patterns (denormals read as their IEEE values)."""
    b = fmt.bits(bits)
    e_field = fmt.exponent(b).astype(np.int64)
    fraction = fmt.mantissa(b).astype(np.uint64)
    bias = fmt.exp_max >> 1
    significand = np.where(e_field == 0, fraction, fraction | np.uint64(1 << fmt.man_bits))
    exponent = np.where(e_field == 0, 1 - bias, e_field - bias) - fmt.man_bits
    lead = formats.bit_length(significand.astype(np.uint32)).astype(np.int64) - 1
    shift = np.where(significand == 0, 0, 63 - lead)
    cls = formats.classify(b, fmt)
    out_cls = np.select([cls == formats.FloatClass.NAN, cls == formats.FloatClass.INF,
                         cls == formats.FloatClass.ZERO], [NAN, INF, ZERO], FINITE)
    negative = (b & fmt.dtype(fmt.sign_mask)) != 0
    return Certified(out_cls.astype(np.uint8), negative,
                      significand << shift.astype(np.uint64), exponent - shift,
                      np.zeros(b.shape, dtype=np.uint16))


POLICIES = {
    "rne": "correctly rounded to the output format, ties to even",
    "rne_fp32": "correctly rounded to FP32, then RNE to the output format (tt-llk sweep golden)",
    "truncate": "correctly rounded to FP32, then truncated toward zero (tanh report)",
    "ties_away": "correctly rounded to the output format, ties away from zero",
}


def policies() -> dict[str, str]:
    """Rounding policy name -> one-line description."""
    return dict(POLICIES)


def apply_policy(c: Certified, policy: str, out: FloatFormat) -> np.ndarray:
    if policy == "rne":
        return round_certified(c, out, RNE)
    if policy == "ties_away":
        return round_certified(c, out, RNA)
    fp32 = round_certified(c, FP32, RNE)
    if out is FP32:
        return fp32
    if policy == "rne_fp32":
        if out is BF16:
            return formats.fp32_to_bf16_rne(fp32)
        with np.errstate(over="ignore"):                  # overflow to Inf is the point
            return formats.fp32_to_fp16_rne(fp32)
    if out is BF16:                     # truncation of an FP32 pattern to BF16: its top half
        return (fp32 >> np.uint32(16)).astype(np.uint16)
    return round_certified(decode(fp32, FP32), out, RZ)


def round_values(values, policy: str = "rne", output_format: str = "bf16", *,
                 ftz: bool = False) -> np.ndarray:
    """Float64 values taken as exact, rounded under a policy: bit patterns of the output format
    (e.g. a float64 golden rounded like a reference; the ``fractional`` ULP's ``bf16(|ref|)``)."""
    choice(policy, POLICIES, UnknownPolicy, "rounding policy")
    out_fmt = choice(output_format, OUTPUT_FORMATS, UnknownFormat, "output format")
    v = np.asarray(values, dtype=np.float64)
    out = apply_policy(Certified(*special_values(v), np.zeros(v.shape, dtype=np.uint16)), policy,
                        out_fmt)
    return formats.ftz(out, out_fmt) if ftz else out
