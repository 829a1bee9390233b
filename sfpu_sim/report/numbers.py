"""How a report prints a number: the one formatter per kind of quantity.

Owns: the text of every number in a Markdown report, a comparison block, the terminal view and
the README index. Knows nothing of where numbers come from. ``FORMATTERS`` lists every helper;
the test that every number of a Markdown report is in its JSON formats each JSON number with
each of them (tests/test_report.py).
"""
from __future__ import annotations

import math

import numpy as np

from sfpu_sim import display, formats


def count(n) -> str:
    """A count of inputs or lanes: ``65,025`` (a non-integer falls back to :func:`ulp`)."""
    if isinstance(n, (int, np.integer)) or (is_number(n) and float(n).is_integer()):
        return f"{int(n):,}"
    return ulp(n)


def ulp(v) -> str:
    """A ULP distance or statistic of distances: integers as counts, fractional ULPs to 4
    significant digits (``1``, ``15,139``, ``0.4998``); None (nothing measured) as ``n/a``."""
    if v is None:
        return "n/a"
    if isinstance(v, str):                  # "inf"/"nan" carried as strings in the summary
        return v
    v = float(v)
    if not math.isfinite(v):
        return "inf" if v > 0 else "nan"
    if v.is_integer():
        return f"{int(v):,}"
    return f"{v:.4g}"


def mean(v) -> str:
    """A mean ULP: 4 decimals (``0.0474``, the tanh report's precision), 3 significant digits
    below 0.01 (``0.00332``), 2 decimals from 10 on, 1 from 100 on."""
    if v is None:
        return "n/a"
    v = float(v)
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:,.1f}"
    if abs(v) >= 10:
        return f"{v:.2f}"
    if abs(v) >= 0.01:
        return f"{v:.4f}"
    return f"{v:.3g}"


def percent(p) -> str:
    """A percentage given in percent (``95.26%``); never rounded to 0% or 100% unless it is."""
    if p is None:
        return "n/a"
    p = float(p)
    if 0 < p < 0.005:
        return "<0.01%"
    if 99.995 <= p < 100:
        return ">99.99%"
    return f"{p:.2f}%"


def fraction(f) -> str:
    """A fraction in [0, 1] printed as a percentage: ``0.95260`` -> ``95.26%``."""
    return "n/a" if f is None else percent(100.0 * float(f))


def signed(v, formatter=ulp) -> str:
    """A delta with its sign: ``+1``, ``-0.0123``, ``0``."""
    if v is None:
        return "n/a"
    text = formatter(abs(v)) if not isinstance(v, str) else v
    if isinstance(v, str) or v == 0:
        return text
    return ("+" if v > 0 else "-") + text


def points(v) -> str:
    """A difference of percentages, in percentage points: ``+1.25 pp``."""
    if v is None:
        return "n/a"
    return ("+" if v > 0 else "-" if v < 0 else "") + f"{abs(float(v)):.2f} pp"


def value(v) -> str:
    """A BF16 or FP32 value (inputs, outputs, expected): the shortest text that reads back to
    the same FP32 number (sfpu_sim.display); specials as the summary spells them."""
    if v is None:
        return "n/a"
    if isinstance(v, str):
        return v
    with np.errstate(over="ignore"):
        single = np.float32(v)
    if float(single) != float(v):                   # not an FP32 number: print it in full
        return real(v)
    return display.fp32_text(int(formats.fp32_to_bits(single)))


def real(v) -> str:
    """An unrounded reference value (float64): 9 significant digits, the harness CSV's
    precision."""
    if v is None:
        return "n/a"
    if isinstance(v, str):
        return v
    return f"{float(v):.9g}"


def bound(v) -> str:
    """A region bound on the input axis; None is unbounded."""
    return "inf" if v is None else value(v)


FORMATTERS = (count, ulp, mean, percent, fraction, value, real, bound, points,
              lambda v: signed(v), lambda v: signed(v, mean))


def is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
