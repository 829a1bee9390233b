"""Reference function of the LogWithBase row: ``log2`` = log(x)/log(2) (tt-llk's golden is
``torch.log2`` on the FP32 input, ``rne_fp32`` of the exact value). Registered through
:func:`sfpu_sim.reference.definitions.register`.
"""
from __future__ import annotations

import math

from sfpu_sim.reference.definitions import register

# log2(2**k) = k exactly: a value on a rounding boundary that no enclosure resolves, so every
# power of two an FP32, BF16 or FP16 input can hold is a listed point.
EXACT_POWERS_OF_TWO = tuple((2.0 ** k, float(k)) for k in range(-149, 128))


register("log2", "base-2 logarithm log(x)/log(2) (the harness's LogWithBase, torch.log2)",
         # log 2 as log(exp2(1)): the backends' log takes no Python int
         lambda x, m: m.log(x) / m.log(m.exp2(1)),
         zero=-math.inf, inf=(math.inf, math.nan),
         domain="positive", points=EXACT_POWERS_OF_TWO)
