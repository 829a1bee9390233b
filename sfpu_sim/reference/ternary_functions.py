"""The three-operand functions of the accuracy table's ternary rows (lerp, addcmul, addcdiv,
snake_beta), as the harness evaluates them: the formula in FP32 arithmetic, each operation
rounded to nearest even (``TernarySFPUGolden``, tt-metal ``tt_metal/tt-llk/tests/python_tests/
helpers/golden_generators.py``, index id 70141771977: the operands widened to float32, then
``a + c * (b - a)``, ``a + value * b * c``, ``a + value * b / c`` and ``a + sin(b * a) ** 2 / c``
in torch, one tensor operation at a time, so nothing fuses), with the driver's scalar ``value`` =
2.0 (``_SCALAR_VALUE``, ``test_sfpu_ternary.py``, index id 70171254245). The table scores these
ops against that FP32 result, not against the exact value, so that is what is defined here; there
is no correctly rounded reference of them. torch's FP32 ``sin`` is stood in for by the correctly
rounded one (it may differ by an ULP on some inputs).

Owns: the names, formulas and FP32 evaluations. Knows nothing of kernels or formats beyond FP32.
"""
from __future__ import annotations

import numpy as np

from sfpu_sim.reference import reference

TERNARY_SCALAR = np.float32(2.0)


def _lerp(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return a + c * (b - a)


def _addcmul(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return a + TERNARY_SCALAR * b * c            # (value * b) * c, as Python groups it


def _addcdiv(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return a + TERNARY_SCALAR * b / c            # (value * b) / c


def _snake_beta(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    sine = _sin_fp32(b * a)
    return a + sine * sine / c                   # torch's sin(b * a) ** 2 / c


def _sin_fp32(x: np.ndarray) -> np.ndarray:
    """float32 sin, correctly rounded (certified): a stand-in for torch's CPU ``sin``, which is
    within an ULP of it but not always equal."""
    bits = reference("sin", x.astype(np.float32).view(np.uint32), input_format="fp32",
                     output_format="fp32", daz=False, ftz=False).bits
    return bits.astype(np.uint32).view(np.float32)


TERNARY_FUNCTIONS = {
    "lerp": (_lerp, "a + c*(b - a) (torch.lerp, weight c)"),
    "addcmul": (_addcmul, "a + 2*b*c (torch.addcmul, value 2)"),
    "addcdiv": (_addcdiv, "a + 2*b/c (torch.addcdiv, value 2)"),
    "snake_beta": (_snake_beta, "a + sin(b*a)**2/c (snake, alpha b, beta c)"),
}


def ternary_fp32(function: str, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``function`` of float32 operand arrays in float32 arithmetic (module docstring)."""
    evaluate, _ = TERNARY_FUNCTIONS[function]
    with np.errstate(all="ignore"):
        return evaluate(*(np.asarray(v, dtype=np.float32) for v in (a, b, c))).astype(np.float32)
