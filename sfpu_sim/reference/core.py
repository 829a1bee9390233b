"""Constants, value classes and error types shared by the reference layer's modules."""
from __future__ import annotations

from sfpu_sim.errors import SfpuSimError
from sfpu_sim.formats import (  # noqa: F401
    BF16,
    FINITE,
    FP16,
    FP32,
    FP64,
    INF,
    NAN,
    OUTPUT_FORMATS,
    ZERO,
    UnknownFormat,
    UnknownPolicy,
)

INPUT_FORMATS = {"bf16": BF16, "fp16": FP16, "fp32": FP32}
TABLE_FORMATS = ("bf16", "fp16")        # 65,536 patterns: tabulated and cached

START_PRECISION = 96                    # bits; the 64-bit round-to-odd needs ~70 of them
MAX_PRECISION = 12288
USER_EXACT_PRECISION = 2048             # bits; a user function's third, exactness evaluation
ODD_BITS = 64                           # width of the round-to-odd intermediate
CACHE_FORMAT = 1                        # bump when the file layout or the y-table changes

# The class of each certified value (the table's ``cls`` column) is formats.Exact's code.
# Magnitudes outside [2**-1100, 2**1100) round alike in every format here; stand-ins for them.
TINY_E, HUGE_E = -1100, 1100
TINY = (1 << 63, -1200 - 63)
HUGE = (1 << 63, 1200 - 63)


class UnknownFunction(SfpuSimError):
    """A function name not in the registry."""


class UnknownBackend(SfpuSimError):
    """A backend name that is unknown, or whose package is not installed."""


class UnresolvedRounding(SfpuSimError):
    """The exact value stayed on a rounding boundary up to MAX_PRECISION bits."""


class ReferenceReturnedNaN(SfpuSimError):
    """A definition gave NaN at a finite input inside its domain (a user's reference, as a
    rule): no precision can settle it, so it is said at once, not blamed on rounding."""


def choice(name, table: dict, error: type, what: str):
    """``table[name]``, or ``error`` naming the choices."""
    if name not in table:
        raise error(f"unknown {what} {name!r}; known: {', '.join(table)}")
    return table[name]
