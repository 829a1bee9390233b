"""Building blocks shared by kernel families (tt-llk ``ckernel_sfpu_polyval.h`` and friends)."""
from __future__ import annotations

import numpy as np

from sfpu_sim.sfpi import vFloat

__sfpi_library__ = True

# The range-reduction constants of the 2026 exp-family kernels (sinh/cosh, expm1, tanh), as the
# C++ float literals 1.442695f and -0.6931471805599453f round them.
LOG2E = 1.442695
NEG_LN2 = -0.6931471805599453        # traced instructions name the kernel line that called in here


def polyval(x, *coefficients):
    """``c0 + x*(c1 + x*(c2 + ...))``: tt-llk ``PolynomialEvaluator::eval`` (coefficients in
    ascending powers, floats or vectors). Each step is one fused SFPMAD, innermost first."""
    if not coefficients:
        raise ValueError("polyval needs at least one coefficient")
    if len(coefficients) == 1:
        return vFloat.operand(coefficients[0])
    return coefficients[0] + x * polyval(x, *coefficients[1:])


def as_float(bits: int) -> float:
    """The float whose FP32 pattern is ``bits`` (tt-llk ``Converter::as_float``)."""
    return float(np.uint32(bits).view(np.float32))


def dest_params(dest: str, **more) -> dict:
    """The template arguments of a kernel instantiated per Dst mode (``dest`` "bf16" or
    "fp32"): not approximate, 8 iterations, ``is_fp32_dest_acc_en``, then ``more``."""
    return {"APPROXIMATION_MODE": False, "ITERATIONS": 8,
            "is_fp32_dest_acc_en": dest == "fp32", **more}


def dst_text(dest: str) -> str:
    """How descriptions name a Dst mode: "FP32" or "16-bit"."""
    return "FP32" if dest == "fp32" else "16-bit"
