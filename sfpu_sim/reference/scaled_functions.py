"""Reference functions of rows whose harness op scales its argument: ``exp_half`` = e^(x/2)
(ExpWithBase: tt-llk's golden is ``torch.exp(0.5 * x)``, where 0.5*x is exact in the input's
dtype but for subnormal results, so the exact value is e^(x/2)). Registered through
:func:`sfpu_sim.reference.definitions.register`.
"""
from __future__ import annotations

import math

from sfpu_sim.reference.definitions import register

# e^(x/2) - 1 has the sign of x (the anchor the search starts from, as for exp).
register("exp_half", "e^(x/2) (the harness's ExpWithBase, base scale 0.5)",
         lambda x, m: m.exp(x / 2), zero=1.0, inf=(math.inf, 0.0),
         anchor=lambda x: (1.0, 1 if x > 0 else -1))
