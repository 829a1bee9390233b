"""Correctly rounded references of two-operand functions: x + y, x - y, y - x, x * y, x / y,
max, min, fmod, the floor remainder, atan2, x * ln(y), and the predicates x == y, x != y,
x < y, x <= y, x > y, x >= y and isclose (1.0 or 0.0), the mask (x where y != 0, else 0), and
logsigmoid, a function of x alone (its op derives y from x), which the unary reference
certifies.

Owns: the exact definitions of the binary kernels' functions and their rounding to an output
format under the policies of :data:`sfpu_sim.formats.POLICIES`, with DAZ on both inputs and
FTZ on the output, as the unary references do. Knows nothing of kernels or ULP conventions.

Why float64 suffices, and how: a product of two BF16, FP16 or FP32 values is exact in float64
(at most 48 significant bits, exponents in range). A sum is not always (2**100 + 2**-100 needs
201 bits), but float64's rounded sum ``s`` plus its exact error ``t`` (TwoSum, Knuth) gives the
sum rounded *to odd* at 53 bits: ``s`` if it is exact or odd, else its neighbour toward ``t``.
Rounding that to any format of at most 51 bits, in any nearest or directed mode, is the
correctly rounded exact sum (Boldo and Melquiond, IEEE TC 57(4), 2008), so every policy holds.
A quotient is rounded to odd the same way: float64's ``q = x / y`` is correctly rounded, and
the sign of the exact residual ``x - q*y`` (the product split exactly by Dekker's TwoProduct;
``x - p`` is exact by Sterbenz's lemma) says on which side of ``q`` the true quotient lies.
max and min are exact. NaN in either operand gives NaN; max(-0, +0) = +0, min(-0, +0) = -0.
fmod(x, y) = x - trunc(x/y) * y is exact (the remainder of two floats is a float with at most
their bits, which C's ``fmod`` returns exactly; x's sign on a zero; NaN for y = 0 or infinite x).
The floor remainder (``torch.remainder``, y's sign) is that fmod plus y where the two signs
differ, a sum rounded to odd as above; its zero takes y's sign.
atan2(x, y) is the angle of the point (y, x) (``torch.atan2(x, y)``: the first operand is the
ordinate). It is transcendental, so float64's ``arctan2`` (the C library's, within a few units
of float64's last place) rounds like the exact value to every format of up to 24 bits unless it
lies within 2**-16 of a step of a 25-bit grid: every rounding boundary of such a format is on
that grid, and the margin is some 2**9 float64 units. Those lanes (about 0.2% over the driver's
domain) are rounded to odd at 53 bits: where x/y is exact, below 2**-26 and y > 0, as the odd
one of x/y and its neighbour toward zero (atan(t) = t(1 - t*t/3 + ...) lies less than a step
inside t); otherwise from an arb ball (python-flint, 200 bits and up, some 10 us a lane), which
is proven. x * ln(y) is decided the same way: float64's product of the C library's log by x,
arb near a grid step (a finite nonzero value is transcendental, so never exact).
A comparison is IEEE's: false where either operand is NaN (so ``!=`` is true), -0 == +0.
isclose is ``torch.isclose`` with its defaults (rtol 1e-5, atol 1e-8 as float64, NaN never
close): x == y, or both finite and |x - y| <= atol + rtol * |y|, decided in float64 where the two
sides are apart by more than 2**-48 of the larger, else in exact rational arithmetic.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from sfpu_sim import formats
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.reference import EVALUATING
from sfpu_sim.reference import reference as unary_reference


class UnknownBinaryFunction(SfpuSimError):
    pass


def _sum_to_odd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x + y rounded to odd at float64's 53 bits (module docstring), element-wise."""
    with np.errstate(invalid="ignore", over="ignore"):
        s = x + y
        y_part = s - x
        error = (x - (s - y_part)) + (y - y_part)        # TwoSum: s + error == x + y exactly
    inexact = np.isfinite(s) & (error != 0)
    even = (s.view(np.uint64) & np.uint64(1)) == 0
    toward = np.nextafter(s, np.where(error > 0, np.inf, -np.inf))
    return np.where(inexact & even, toward, s)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split: ``a == high + low``, each with at most 26 significant bits."""
    c = a * 134217729.0                                 # 2**27 + 1
    high = c - (c - a)
    return high, a - high


def _quotient_residual(x: np.ndarray, y: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The sign of x - q*y, exactly (Dekker's TwoProduct; ``x - p`` is exact by Sterbenz's
    lemma for a q within an ulp of x/y). Operands of 16-bit formats keep every intermediate far
    from float64's overflow and underflow."""
    with np.errstate(invalid="ignore", over="ignore"):
        q_high, q_low = _split(np.where(np.isfinite(q), q, 0.0))
        y_high, y_low = _split(np.where(np.isfinite(y), y, 0.0))
        p = q * y
        error = ((q_high * y_high - p) + q_high * y_low + q_low * y_high) + q_low * y_low
        return (x - p) - error


def _quotient_to_odd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x / y rounded to odd at float64's 53 bits (module docstring), element-wise."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        q = x / y
    residual = _quotient_residual(x, y, q)
    inexact = np.isfinite(q) & np.isfinite(y) & (residual != 0)
    even = (q.view(np.uint64) & np.uint64(1)) == 0
    upward = (residual > 0) == (y > 0)                  # x/y = q + residual/y
    toward = np.nextafter(q, np.where(upward, np.inf, -np.inf))
    return np.where(inexact & even, toward, q)


def _comparison(compare):
    def exact(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return compare(x, y).astype(np.float64)     # NaN compares false (!= true)
    return exact


ISCLOSE_RTOL, ISCLOSE_ATOL = 1e-05, 1e-08    # torch.isclose's defaults
ISCLOSE_UNDECIDED = 2.0 ** -48               # float64 sides this close are compared exactly


def _isclose(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        lhs = np.abs(x - y)
        rhs = ISCLOSE_ATOL + ISCLOSE_RTOL * np.abs(y)
        finite = np.isfinite(x) & np.isfinite(y)
        close = finite & (lhs <= rhs)
        undecided = finite & (np.abs(lhs - rhs) <= ISCLOSE_UNDECIDED * np.maximum(lhs, rhs))
    for k in np.flatnonzero(undecided):
        a, b = Fraction(float(x[k])), Fraction(float(y[k]))
        close[k] = abs(a - b) <= Fraction(ISCLOSE_ATOL) + Fraction(ISCLOSE_RTOL) * abs(b)
    with np.errstate(invalid="ignore"):
        return ((x == y) | close).astype(np.float64)


def _mask(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.where(y != 0, x, 0.0)


def _product(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return x * y                                    # exact: at most 48 significant bits


def _maximum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    both_zero = (x == 0) & (y == 0)
    return np.where(both_zero, np.where(np.signbit(x), y, x), np.maximum(x, y))


def _minimum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    both_zero = (x == 0) & (y == 0)
    return np.where(both_zero, np.where(np.signbit(x), x, y), np.minimum(x, y))


def _fmod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.fmod(x, y)                            # exact


def _floor_remainder(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r = _fmod(x, y)
    with np.errstate(invalid="ignore"):
        fold = (r != 0) & (np.signbit(r) != np.signbit(y))
    value = np.where(fold, _sum_to_odd(r, y), r)
    return np.where(r == 0, np.copysign(0.0, y), value)


GRID_BITS = 25                  # every rounding boundary of a format of <= 24 bits is on it
NEAR_GRID = 2.0 ** -16          # in grid steps: far beyond float64 atan2's error
TINY_QUOTIENT = 2.0 ** -26      # (x/y)**2 / 3 below 2**-53: atan is within a step of x/y
ARB_PRECISIONS = (200, 400, 800, 1600, 3200)   # (2**-276)**2 needs some 560 bits


def near_grid(value: np.ndarray) -> np.ndarray:
    """Indices of the finite nonzero values within NEAR_GRID of a step of the GRID_BITS grid."""
    magnitude = np.abs(value)
    finite = np.isfinite(value) & (magnitude > 0)
    _, exponent = np.frexp(np.where(finite, magnitude, 1.0))
    scaled = np.ldexp(np.where(finite, magnitude, 0.0), GRID_BITS - exponent)
    return np.flatnonzero(finite & (np.abs(scaled - np.round(scaled)) < NEAR_GRID))


def _atan2(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """atan2(x, y): float64's, or rounded to odd where it lies near a 25-bit grid step."""
    value = np.arctan2(x, y)
    near = near_grid(value)
    if near.size:
        value[near] = _atan2_near(x[near], y[near])
    return value


def _atan2_near(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """atan2 rounded to odd at 53 bits: where x/y is exact, tiny and y > 0, the odd one of x/y
    and its neighbour toward zero (the angle lies between them); elsewhere from arb."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        q = x / y
    tiny_exact = (y > 0) & (np.abs(q) < TINY_QUOTIENT) & (_quotient_residual(x, y, q) == 0)
    toward_zero = np.nextafter(q, np.where(q < 0, np.inf, -np.inf))
    odd = (q.view(np.uint64) & np.uint64(1)) == 1
    out = np.where(tiny_exact, np.where(odd, q, toward_zero), np.nan)
    for k in np.flatnonzero(~tiny_exact):
        out[k] = _atan2_to_odd(float(x[k]), float(y[k]))
    return out


def _atan2_to_odd(x: float, y: float) -> float:
    """atan2(x, y) rounded to odd at 53 bits from an arb ball (never exact: the arguments are
    finite and nonzero here, and atan2 of such a pair is transcendental). Where x/y is tiny,
    atan2 differs from a float64 quotient by (x/y)**3 / 3, so the precision doubles until the
    ball falls strictly between two float64 values."""
    return _arb_to_odd(lambda: flint.arb.atan2(flint.arb(x), flint.arb(y)),
                       f"atan2({x!r}, {y!r})")


def _arb_to_odd(ball_of, what: str) -> float:
    """A value that is never a float64 (transcendental), rounded to odd at 53 bits: the ball
    ``ball_of()`` computes at each precision of :data:`ARB_PRECISIONS` until it falls strictly
    between two float64 values, then the odd one of them."""
    for bits in ARB_PRECISIONS:
        with EVALUATING, flint.ctx.workprec(bits):       # arb's precision is process-wide
            ball = ball_of()
            nearest = float(ball.mid())
            other = float(np.nextafter(nearest, np.inf if ball > nearest else -np.inf))
            if ball > min(nearest, other) and ball < max(nearest, other):
                odd = (np.array(nearest).view(np.uint64) & np.uint64(1)) == 1
                return nearest if odd else other
    raise ArithmeticError(f"{what} is not bracketed at {ARB_PRECISIONS[-1]} bits")


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x * ln(y): float64's (a product of the C library's log, within a few units of float64's
    last place, by an exact x), or, within NEAR_GRID of a 25-bit grid step, rounded to odd from
    an arb ball: a finite nonzero x * ln(y) is transcendental (y > 0, y != 1, x != 0), never a
    float64, so the ball always separates. y < 0 gives NaN, y = 0 gives -x * Inf (NaN at x =
    0), as IEEE arithmetic does."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        value = x * np.log(y)
    for k in near_grid(value):
        a, b = float(x[k]), float(y[k])
        value[k] = _arb_to_odd(lambda: flint.arb(a) * flint.arb(b).log(), f"{a!r} * ln({b!r})")
    return value


def _power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x ** y: the C library's pow (within a unit of float64's last place, exact where the
    power is a float64), or, within NEAR_GRID of a 25-bit grid step, the exact power where it
    is a float64 (:func:`_float64_power`) and otherwise rounded to odd from an arb ball (a
    power that is not a float64 never lies on one: the ball separates). IEEE pow's special
    cases: x ** 0 = 1 (NaN x too), 1 ** y = 1, NaN for a negative x and a non-integral y."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        value = np.power(x, y)
    for k in near_grid(value):
        a, b = float(x[k]), float(y[k])
        if not (math.isfinite(a) and math.isfinite(b)) or a == 0 or b == 0:
            continue                       # IEEE's exact special cases (1 ** inf, x ** 0)
        exact = _float64_power(a, b)
        value[k] = exact if exact is not None else _arb_to_odd(
            lambda: _arb_power(a, b), f"{a!r} ** {b!r}")
    return value


def _arb_power(a: float, b: float):
    """a ** b as an arb ball (a < 0 only with an integral b, as pow defines it)."""
    magnitude = flint.arb(abs(a)) ** flint.arb(b)
    return -magnitude if a < 0 and int(b) % 2 else magnitude


def _float64_power(a: float, b: float) -> float | None:
    """a ** b where it is exactly a float64 (finite, nonzero a and b), else None. With |a| =
    m * 2**e (m odd) and b = p / q (q a power of two, p odd where q > 1): the power of a
    non-integral b is rational only where m is a perfect q-th power and q divides e, and is
    then r ** p for the root r; r ** p is a float64 only where m = 1 (a power of two) or p > 0
    and m ** p fits 53 bits."""
    p, q = Fraction(b).as_integer_ratio()
    numerator, denominator = Fraction(abs(a)).as_integer_ratio()
    low = (numerator & -numerator).bit_length() - 1
    m, e = numerator >> low, low - (denominator.bit_length() - 1)
    if q > 1:
        root = round(m ** (1.0 / q))
        if root ** q != m or e % q:
            return None
        m, e = root, e // q
    if m == 1:
        power = e * p
        return math.copysign(math.ldexp(1.0, power), -1.0 if a < 0 and p % 2 else 1.0) \
            if -1074 <= power <= 1023 else None
    if p < 0 or p * (m.bit_length() - 1) > 53:
        return None
    value = Fraction(m ** p) * Fraction(2) ** (e * p)
    result = float(value)
    if Fraction(result) != value:
        return None
    return -result if a < 0 and p % 2 else result


# name -> (exact value as float64, rounded to odd where inexact; the formula in words)
BINARY_FUNCTIONS = {
    "add": (_sum_to_odd, "x + y"),
    "sub": (lambda x, y: _sum_to_odd(x, -y), "x - y"),
    "rsub": (lambda x, y: _sum_to_odd(y, -x), "y - x"),
    "mul": (_product, "x * y"),
    "div": (_quotient_to_odd, "x / y"),
    "max": (_maximum, "max(x, y), NaN if either is NaN"),
    "min": (_minimum, "min(x, y), NaN if either is NaN"),
    "fmod": (_fmod, "x - trunc(x / y) * y (C fmod, x's sign)"),
    "remainder": (_floor_remainder, "x - floor(x / y) * y (y's sign)"),
    "atan2": (_atan2, "atan2(x, y), the angle of the point (y, x)"),
    "xlogy": (_xlogy, "x * ln(y) (NaN for y < 0; 0 * ln(0) is NaN, not torch.xlogy's 0)"),
    "pow": (_power, "x ** y (IEEE pow: x ** 0 = 1, NaN for x < 0 and a non-integral y)"),
    "eq": (_comparison(np.equal), "1 if x == y else 0"),
    "ne": (_comparison(np.not_equal), "1 if x != y else 0"),
    "lt": (_comparison(np.less), "1 if x < y else 0"),
    "le": (_comparison(np.less_equal), "1 if x <= y else 0"),
    "gt": (_comparison(np.greater), "1 if x > y else 0"),
    "ge": (_comparison(np.greater_equal), "1 if x >= y else 0"),
    "isclose": (_isclose, "1 if x == y or |x - y| <= 1e-8 + 1e-5 * |y| else 0"),
    "mask": (_mask, "x where y != 0, else 0"),
    # A function of x alone (None: certified by the unary reference): logsigmoid's in1 is
    # exp(-x), which the op computes from x before the SFPU kernel runs.
    "logsigmoid": (None, "log(1/(1 + e^-x)) (y: exp(-x), derived from x; unused)"),
}


def binary_reference(function: str, x_bits, y_bits, policy: str = "rne", *,
                     input_format: str = "bf16", output_format: str = "bf16",
                     ftz: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``function(x, y)`` of two input-format pattern arrays (DAZ: denormal inputs read as
    signed zero), correctly rounded under ``policy``: (output patterns, the value as float64:
    exact, or rounded to odd where a sum or quotient is not; a function of x alone: correctly
    rounded)."""
    if function not in BINARY_FUNCTIONS:
        raise UnknownBinaryFunction(f"unknown binary function {function!r} (known: "
                                    f"{', '.join(BINARY_FUNCTIONS)})")
    exact, _ = BINARY_FUNCTIONS[function]
    fmt = formats.FORMATS[input_format]
    if exact is None:
        of_x = unary_reference(function, formats.as_bits(x_bits, fmt), policy,
                               input_format=input_format, output_format=output_format, ftz=ftz)
        return of_x.bits, of_x.value
    x, y = (formats.bits_to_float64(formats.daz(formats.as_bits(b, fmt), fmt), fmt)
            for b in (x_bits, y_bits))
    value = exact(x, y)
    return formats.round_values(value, policy, output_format, ftz=ftz), value
