"""Reference functions of the Sep-2026 activation rows (celu, elu, selu, softsign, hardmish,
logsigmoid)
with the parameters tt-llk's accuracy harness passes (helpers/sfpu_dispatch_constants.py and
UnarySFPUGolden's class constants, tt-metal tt_metal/tt-llk/tests/python_tests/helpers/, 2026).
Exact definitions only: how the harness rounds its golden is sfpu_sim.parity's business.

Each anchor holds for every finite nonzero x it is returned for: expm1(x) > x and > -1, so
elu(x) > x for -1 < x < 0 and elu(x) > -1; |softsign x| < min(|x|, 1); logsigmoid(x) =
min(x, 0) - log1p(e^-|x|) < min(x, 0), since log1p of a positive number is positive.

Not here: tanhshrink (x - tanh x) and the harness's xielu (expm1(x) - x/2 for x <= 0). Both
sit within e^-2|x| of ``x - 1`` / ``-1 - x/2``, which for 2^53 <= |x| < 2^64 is exact at the
certifier's 64-bit round-to-odd width but not a float64, and an anchor must be a float64: such
inputs stay unresolved (``tanhshrink(9077567998918656.0)``).
"""
from __future__ import annotations

import math
from fractions import Fraction

from sfpu_sim.reference.definitions import register

# torch.nn.functional.selu's constants (aten/src/ATen/native/Activation.cpp), exact decimals.
SELU_SCALE = "1.0507009873554804934193349852946"
SELU_ALPHA = "1.6732632423543772848170429916717"


def _sgn(x) -> int:
    return 1 if x > 0 else -1


def _negative_arm(negative):
    """``x`` for x > 0, else ``negative(x, m)``."""
    return lambda x, m: x + 0 if x > 0 else negative(x, m)


def _decimal(m, text: str):
    digits = text.replace(".", "")
    return m.num(int(digits), 10 ** (len(digits) - text.index(".")))


def _elu_anchor(x):
    return None if x > 0 else ((x, 1) if x > -1 else (-1.0, 1))


def _identity_when_positive(x, y) -> bool:
    return x > 0 and y == x


register("elu_alpha1", "x if x > 0 else e^x - 1 (torch elu, alpha 1)",
         _negative_arm(lambda x, m: m.expm1(x)), zero="odd", inf=(math.inf, -1.0),
         anchor=_elu_anchor, is_exact=_identity_when_positive)
register("celu_alpha1", "x if x > 0 else e^x - 1 (torch celu, alpha 1: the same as elu)",
         _negative_arm(lambda x, m: m.expm1(x)), zero="odd", inf=(math.inf, -1.0),
         anchor=_elu_anchor, is_exact=_identity_when_positive)
register("selu", f"scale*x if x > 0 else scale*alpha*(e^x - 1), scale {SELU_SCALE}, alpha "
                 f"{SELU_ALPHA} (torch selu)",
         lambda x, m: _decimal(m, SELU_SCALE) * (x if x > 0 else
                                                 _decimal(m, SELU_ALPHA) * m.expm1(x)),
         zero="odd", inf=(math.inf, -1.7580993408473766))


def _softsign(x, m):
    return x / (m.num(1) + (x if x > 0 else -x))


def _softsign_anchor(x):
    if abs(x) < 1:
        return (x, -_sgn(x))
    return (float(_sgn(x)), -_sgn(x))


register("softsign", "x/(1 + |x|) (torch softsign)", _softsign, zero="odd", inf=(1.0, -1.0),
         anchor=_softsign_anchor, is_exact=lambda x, y: y == x / (1 + abs(x)))


def _hardmish(x, m):
    if x >= 0:
        return x + 0
    if x <= -2:
        return m.num(0)
    return x * (x / 2 + 1)


register("hardmish", "x*clamp(x/2 + 1, 0, 1) (the harness's hardmish)", _hardmish,
         zero="odd", inf=(math.inf, 0.0),
         is_exact=lambda x, y: y == x * min(max(x / 2 + 1, Fraction(0)), Fraction(1)))


def _logsigmoid(x, m):
    # -softplus(-x), as min(x, 0) - log1p(e^-|x|): no huge intermediate on either side
    return x - m.log1p(m.exp(x)) if x < 0 else -m.log1p(m.exp(-x))


register("logsigmoid", "log(1/(1 + e^-x)) = -softplus(-x) (torch logsigmoid)", _logsigmoid,
         inf=(-0.0, -math.inf), anchor=lambda x: (x, -1) if x < 0 else (0.0, -1))
