"""Reference functions of the Sep-2026 power rows: ``cbrt``, ``rdiv_2`` and ``fp16a_rne``
(registered through :func:`sfpu_sim.reference.definitions.register`; ``square`` and ``exp2``,
the UnaryPower and Rpow goldens, are already there).

What the harness scores each row against (tt-llk ``helpers/golden_generators.py``,
``UnarySFPUGolden``, a 2026 stored version):

* Cbrt: ``sign(t) * |t|.pow(1/3)`` on a 0-dim FP32 tensor. On 19,858 random normal FP32
  inputs torch 2.13 (CPU, 0-dim) returned the correctly rounded cube root every time, so the
  exact ``cbrt`` rounded to FP32 stands in for it (golden kind ``rne_fp32``).
* Rdiv: ``2.0 / t`` on an FP32 tensor, an IEEE division: correctly rounded ``2/x``.
* CastFp32ToFp16a: a bit manipulation of the FP32 pattern: drop the low 13 mantissa bits,
  rounding half to even, exponent unchanged and not clamped (non-finite patterns pass). For a
  normal x that is x rounded to 11 significant bits, nearest even, at any exponent; for an
  FP32 denormal it is x rounded to a multiple of 2**-136. ``fp16a_rne`` is exactly that value;
  it is representable in FP32 (or overflows to Inf just as the bit carry does), so ``rne_fp32``
  of it is the harness's pattern.
"""
from __future__ import annotations

import math
from fractions import Fraction

from sfpu_sim.reference.definitions import register

KEPT_MANTISSA_BITS = 10                 # FP16A: 10 stored mantissa bits, FP32's exponent
FP32_MIN_EXPONENT = -126                # below it the FP32 pattern is denormal: fixed step


def _approximate(x) -> float:
    """A float near ``x``: an mpf or arb ball converts directly, a series through its
    constant term."""
    constant = getattr(x, "constant", None)
    return float(constant() if constant is not None else x)


def _integer_cube_root(n: int) -> int | None:
    """r with r**3 == n (n >= 0), else None (integer Newton from above)."""
    if n < 2:
        return n
    r = 1 << -(-n.bit_length() // 3)            # 2**ceil(bits/3) > cbrt(n)
    while True:
        s = (2 * r + n // (r * r)) // 3
        if s >= r:
            break
        r = s
    return r if r ** 3 == n else None


def _exact_cube_root(x) -> Fraction | None:
    """cbrt(x) when it is a dyadic rational (x = 8, 2**-132), else None: arb's exp(log(x)/3)
    never shrinks to a point, so an exact root must be found before the balls."""
    try:
        value = Fraction(_approximate(x))
    except (OverflowError, ValueError):
        return None
    if value <= 0:
        return None
    num, den = _integer_cube_root(value.numerator), _integer_cube_root(value.denominator)
    return Fraction(num, den) if num is not None and den is not None else None


def _cbrt(x, m):
    # The real cube root, odd: exp(log|x| / 3) with the sign of x; exact cubes exactly.
    root = _exact_cube_root(x if x > 0 else -x)
    if root is not None:
        numerator = root.numerator if x > 0 else -root.numerator
        return m.num(numerator, root.denominator)
    if x > 0:
        return m.exp(m.log(x) / 3)
    return -m.exp(m.log(-x) / 3)


def _fp16a_step(value: Fraction) -> Fraction:
    """The spacing of the kept bits at ``value`` (nonzero): 2**(e - 10), e = the binary
    exponent of |value|, at least -126 (FP32 denormals keep the fixed step 2**-136)."""
    magnitude = abs(value)
    e = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** e > magnitude:
        e -= 1
    return Fraction(2) ** (max(e, FP32_MIN_EXPONENT) - KEPT_MANTISSA_BITS)


def _fp16a_rne_fraction(value: Fraction) -> Fraction:
    if value == 0:
        return value
    step = _fp16a_step(value)
    return round(value / step) * step           # Fraction.__round__: ties to even


def _fp16a_rne(x, m):
    # The inputs are FP32 values, so their float is exact: round it in rational arithmetic.
    exact = Fraction(_approximate(x))
    if exact == 0:
        return x + 0
    rounded = _fp16a_rne_fraction(exact)
    return m.num(rounded.numerator, rounded.denominator)


register("cbrt", "real cube root sign(x)*|x|^(1/3)", _cbrt, zero="odd",
         inf=(math.inf, -math.inf), is_exact=lambda x, y: y * y * y == x)
register("rdiv_2", "2/x (the harness's Rdiv, value 2.0)", lambda x, m: 2 / x, zero="pole",
         inf=(0.0, -0.0), is_exact=lambda x, y: x * y == 2)
register("fp16a_rne",
         "x rounded to 11 significant bits (FP32's exponent range, step 2^-136 below 2^-126), "
         "ties to even (the harness's CastFp32ToFp16a)",
         _fp16a_rne, zero="odd", inf=(math.inf, -math.inf),
         is_exact=lambda x, y: y == _fp16a_rne_fraction(x))
