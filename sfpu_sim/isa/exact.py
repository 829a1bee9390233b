"""Exact numbers for the shadow: real values as mpmath ``mpf`` computed without rounding, and
the :class:`Twin` of a value (its shadow, and the exact result on the device's own operands).

Owns: exact arithmetic on dyadic rationals (mpmath's ``exact=True`` operations: no rounding
at all), the working precision of the exact functions of approximate instructions (1/x, e^x),
reading FP32 patterns as exact values, handing an exact value to the format layer's rounding
(:func:`sfpu_sim.formats.round_exact`) and the FP32 / BF16 spacings errors are measured in.
Knows nothing of instructions or machines.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
from mpmath import mpf
from mpmath.libmp import from_man_exp

from sfpu_sim import formats

# A shadow whose significand outgrows this many bits (long chains of exact products) is
# rounded to it and marked approximate; no kernel here comes near it.
EXACT_BITS = 4096
# Precision of the exact function an approximate instruction stands for (SFPARECIP's 1/x and
# e^|x|), and of the true function a lane is compared with.
FUNCTION_BITS = 320

NAN = mpf("nan")
INF = mpf("inf")
ZERO = mpf(0)


def dyadic(man: int, exp: int) -> mpf:
    """``man * 2**exp`` exactly (``mpf(...)`` would round to the context's 53 bits)."""
    return mpmath.mp.make_mpf(from_man_exp(man, exp))


def negate(value: mpf) -> mpf:
    """``-value`` exactly (mpf's ``-`` and ``abs`` round to the context precision)."""
    return mpmath.fneg(value, exact=True)


def magnitude(value: mpf) -> mpf:
    return negate(value) if value < 0 else value


def fp32_value(bits: int) -> mpf:
    """The exact value of an FP32 pattern (denormals as their value; Inf, NaN)."""
    bits = int(bits)
    negative, exponent, fraction = bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
    if exponent == 0xFF:
        return NAN if fraction else (-INF if negative else INF)
    value = dyadic(fraction, -149) if exponent == 0 else dyadic(fraction | 0x800000,
                                                                exponent - 150)
    return negate(value) if negative else value


def bf16_value(bits: int) -> mpf:
    return fp32_value(int(bits) << 16)


def floor_log2(value: mpf) -> int:
    """``floor(log2 |value|)`` of a finite nonzero value."""
    _, man, exp, bc = value._mpf_
    return exp + bc - 1


def is_finite(value: mpf) -> bool:
    return bool(mpmath.isfinite(value))


def _capped(value: mpf) -> tuple[mpf, bool]:
    """``value``, or rounded to EXACT_BITS if its significand is wider (then True)."""
    if value._mpf_[3] > EXACT_BITS:
        return mpmath.fadd(value, 0, prec=EXACT_BITS), True
    return value, False


def add(x: mpf, y: mpf) -> tuple[mpf, bool]:
    return _capped(mpmath.fadd(x, y, exact=True))


def multiply(x: mpf, y: mpf) -> tuple[mpf, bool]:
    return _capped(mpmath.fmul(x, y, exact=True))


def condition(x: mpf, y: mpf, total: mpf) -> float:
    """Condition number of ``x + y = total``: ``(|x| + |y|) / |x + y|``, the factor by which
    the sum multiplies its operands' relative errors (1: no cancellation; Inf: the terms
    cancel exactly); NaN where a term is not finite."""
    if not (is_finite(x) and is_finite(y)):
        return math.nan
    if total == 0:
        return math.inf if (x != 0 or y != 0) else 1.0
    return float(mpmath.fdiv(mpmath.fadd(magnitude(x), magnitude(y), exact=True),
                             magnitude(total), prec=53))


@dataclass(frozen=True)
class Twin:
    """One value of the dataflow, twice: ``shadow`` (the kernel's arithmetic applied exactly
    to the shadow operands) and ``device`` (the same instruction applied exactly to the
    device's operands: what the instruction would give without its own error).
    ``approximate``: the shadow is not exact (an exact function evaluated at FUNCTION_BITS,
    or a significand beyond EXACT_BITS). ``kappa``: condition number of the last operation
    (see :func:`condition`; 1 for products, moves and sign changes)."""
    shadow: mpf
    device: mpf
    approximate: bool = False
    kappa: float = 1.0

    def __add__(self, other: "Twin") -> "Twin":
        shadow, rounded = add(self.shadow, other.shadow)
        device, _ = add(self.device, other.device)
        return Twin(shadow, device, self.approximate or other.approximate or rounded,
                    condition(self.shadow, other.shadow, shadow))

    def __mul__(self, other: "Twin") -> "Twin":
        shadow, rounded = multiply(self.shadow, other.shadow)
        device, _ = multiply(self.device, other.device)
        return Twin(shadow, device, self.approximate or other.approximate or rounded)

    def __neg__(self) -> "Twin":
        return Twin(negate(self.shadow), negate(self.device), self.approximate, self.kappa)

    def magnitude(self) -> "Twin":
        return Twin(magnitude(self.shadow), magnitude(self.device), self.approximate)

    def with_sign(self, negative: "Sign") -> "Twin":
        """``|value|`` with the sign ``negative`` gives for each twin."""
        shadow, device = magnitude(self.shadow), magnitude(self.device)
        return Twin(negate(shadow) if negative.shadow else shadow,
                    negate(device) if negative.device else device, self.approximate,
                    self.kappa)

    def scaled(self, power: int) -> "Twin":
        """``value * 2**power`` (exact)."""
        return Twin(mpmath.ldexp(self.shadow, power), mpmath.ldexp(self.device, power),
                    self.approximate, self.kappa)

    def function(self, fn) -> "Twin":
        """``fn`` (an exact function, e.g. ``lambda v: 1 / v``) of both twins, evaluated at
        FUNCTION_BITS; the shadow is then approximate."""
        with mpmath.workprec(FUNCTION_BITS):
            return Twin(fn(self.shadow), fn(self.device), True)


@dataclass(frozen=True)
class Sign:
    """Whether a value is negative, for the shadow and for the device. The device's sign is
    its sign bit; the shadow's is its value's, or the device's where the shadow is zero (an
    exact zero carries no sign)."""
    shadow: bool
    device: bool


def constant(bits: int) -> Twin:
    """A device constant (an immediate, a table entry) as a twin: both sides its value."""
    value = fp32_value(bits)
    return Twin(value, value)


# --------------------------------------------------------------------------------------------
# Rounding and spacings
# --------------------------------------------------------------------------------------------

BF16_MIN_EXPONENT = -126
BF16_FRACTION_BITS = 7
FP32_FRACTION_BITS = 23


ODD_BITS = 64


def to_odd(value: mpf) -> formats.Exact:
    """``value`` as the :class:`~sfpu_sim.formats.Exact` the format layer rounds from: its
    significand rounded *to odd* at 64 bits (truncated, last bit set if anything was dropped),
    which rounds to any format of at most 62 bits exactly as ``value`` would (Boldo and
    Melquiond, IEEE TC 57(4), 2008; the reference layer relies on the same)."""
    if mpmath.isnan(value) or mpmath.isinf(value) or value == 0:
        cls = formats.NAN if mpmath.isnan(value) else formats.INF if value != 0 else formats.ZERO
        m = e = 0
    else:
        cls = formats.FINITE
        _, man, exp, bc = value._mpf_
        shift = bc - ODD_BITS
        if shift > 0:
            m, e = (man >> shift) | ((man & ((1 << shift) - 1)) != 0), exp + shift
        else:
            m, e = man << -shift, exp + shift
    negative = bool(value < 0)
    return formats.Exact(np.array([cls], np.uint8), np.array([negative]),
                         np.array([m], np.uint64), np.array([e], np.int64))


def round_bf16(value: mpf) -> int:
    """``value`` rounded to BF16 bits as the reference's ``rne`` policy with FTZ does: to
    nearest, ties to even, with gradual underflow, then a denormal result flushed to the zero
    of its sign; past the largest finite, Inf; NaN the canonical 0x7FC0. (An exact zero is
    +0.)"""
    bits = formats.round_exact(to_odd(value), formats.BF16, formats.RNE)
    return int(formats.ftz(bits, formats.BF16)[0])


def bf16_spacing(bits: int) -> mpf:
    """Spacing of the BF16 lattice at a (finite) BF16 pattern: ``2**(max(e, -126) - 7)``,
    as the fractional ULP convention measures (:mod:`sfpu_sim.ulp`)."""
    exponent = max(((int(bits) >> 7) & 0xFF) - 127, BF16_MIN_EXPONENT)
    return dyadic(1, exponent - BF16_FRACTION_BITS)


def fp32_spacing(value: mpf) -> mpf:
    """Spacing of FP32 at ``value``: ``2**(max(floor(log2 |v|), -126) - 23)``; at zero the
    smallest denormal, 2**-149."""
    if value == 0:
        return dyadic(1, -149)
    return dyadic(1, max(floor_log2(value), BF16_MIN_EXPONENT) - FP32_FRACTION_BITS)


def difference(device: mpf, shadow: mpf) -> mpf | None:
    """``|device - shadow|`` exactly; 0 for equal infinities; None where not measurable
    (a NaN, or an infinity against anything else)."""
    if mpmath.isnan(device) or mpmath.isnan(shadow):
        return None
    if mpmath.isinf(device) or mpmath.isinf(shadow):
        return ZERO if device == shadow else None
    return magnitude(mpmath.fsub(device, shadow, exact=True))


def relative_error(device: mpf, shadow: mpf) -> float | None:
    """``|device - shadow| / |shadow|`` (0 when equal, Inf when only the shadow is 0)."""
    gap = difference(device, shadow)
    if gap is None:
        return None
    if gap == 0:
        return 0.0
    if shadow == 0 or mpmath.isinf(shadow):
        return math.inf
    return float(mpmath.fdiv(gap, magnitude(shadow), prec=53))


def fp32_ulp_error(device: mpf, shadow: mpf) -> float | None:
    """``|device - shadow|`` in units of the FP32 spacing at the shadow value."""
    gap = difference(device, shadow)
    if gap is None:
        return None
    if gap == 0:
        return 0.0
    return float(mpmath.fdiv(gap, fp32_spacing(shadow), prec=53))
