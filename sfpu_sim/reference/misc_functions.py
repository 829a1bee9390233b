"""Reference functions of the Sep-2026 Fmod and Remainder rows: ``fmod_2`` and ``remainder_2``
(registered through :func:`sfpu_sim.reference.definitions.register`).

The harness's goldens (tt-llk ``helpers/golden_generators.py``, ``UnarySFPUGolden``, 2026) are
``torch.fmod(t, 2.0)`` and ``torch.remainder(t, 2.0)`` on an FP32 0-dim tensor
(``_FMOD_DIVISOR = _REMAINDER_DIVISOR = 2.0``):

* ``fmod_2(x) = x - 2 trunc(x/2)``: exact in FP32 (a float's remainder by a power of two is a
  float), so torch's value is the exact one and the golden kind is ``rne_fp32``;
* ``remainder_2(x) = x - 2 floor(x/2)``, in [0, 2): torch forms ``fmod`` (exact) and adds 2 to
  a negative nonzero one, a single rounding of the exact value, so ``rne_fp32`` again (for a
  tiny negative x both give 2.0).

The integer parts come from :mod:`sfpu_sim.reference.predicate_functions`' exact floor/trunc of
``x`` itself (``floor(x/2) = floor(floor(x)/2)``, likewise trunc), so no backend value (mpf, arb
ball, design series) is ever divided before its integer part is taken.
"""
from __future__ import annotations

import math

from sfpu_sim.reference.definitions import register
from sfpu_sim.reference.predicate_functions import _floor, _trunc

DIVISOR = 2


def _truncated_half(k: int) -> int:
    """trunc(k/2) of an integer, toward zero."""
    return k // DIVISOR if k >= 0 else -((-k) // DIVISOR)


def _fmod_2(x, m):
    return x - m.num(DIVISOR * _truncated_half(_trunc(x)))


def _remainder_2(x, m):
    return x - m.num(DIVISOR * (_floor(x) // DIVISOR))


register("fmod_2", "x - 2 trunc(x/2), the sign of x (torch.fmod(x, 2), the harness's Fmod)",
         _fmod_2, zero="odd", inf=(math.nan, math.nan),
         is_exact=lambda x, y: y == x - DIVISOR * math.trunc(x / DIVISOR))
register("remainder_2", "x - 2 floor(x/2), in [0, 2) (torch.remainder(x, 2), the harness's "
         "Remainder)",
         _remainder_2, zero="odd", inf=(math.nan, math.nan),
         is_exact=lambda x, y: y == x - DIVISOR * math.floor(x / DIVISOR))
