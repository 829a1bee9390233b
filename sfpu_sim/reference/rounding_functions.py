"""Reference functions of the Sep-2026 rounding rows: ``round`` (registered through
:func:`sfpu_sim.reference.definitions.register`).

``round(x)``: the integer nearest ``x``, ties to even, as the harness's golden computes it
(``float(round(x))`` in Python floats, tt-llk ``helpers/golden_generators.py``; exact, so the
value rounded to FP32 is the same). The backends have no floor, so the formula takes a
candidate integer from the input's float value and settles it by exact comparisons with the
half-integers beside it: the candidate only saves a search, the comparisons decide.
"""
from __future__ import annotations

import math
from fractions import Fraction

from sfpu_sim.reference.definitions import register

# Every float of magnitude 2**52 or more is an integer (53-bit significand).
ALL_INTEGERS_FROM = 2 ** 52


def _approximate(x) -> float:
    """A float near ``x``: an mpf or arb ball converts directly, a series through its
    constant term."""
    constant = getattr(x, "constant", None)
    return float(constant() if constant is not None else x)


def _round_half_even(x, m):
    if x >= ALL_INTEGERS_FROM or x <= -ALL_INTEGERS_FROM:
        return x + 0
    k = math.floor(_approximate(x))
    # Move k until k <= x < k + 1, by exact comparisons (the float is only a start).
    while x < k:
        k -= 1
    while x >= k + 1:
        k += 1
    half = m.num(2 * k + 1, 2)
    if x > half:
        return m.num(k + 1)
    if x < half:
        return m.num(k)
    return m.num(k if k % 2 == 0 else k + 1)


def _round_fraction(x: Fraction) -> int:
    return round(x)                             # Fraction.__round__: ties to even


register("round", "the integer nearest x, ties to even (Python round, the harness's golden)",
         _round_half_even, zero="odd", inf=(math.inf, -math.inf),
         is_exact=lambda x, y: y == _round_fraction(x))
