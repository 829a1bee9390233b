"""The BF16 GELU study's validation modes: its regression suite, its derivative and its knot check.

Owns: what ``sfpu-sim study gelu --regression | --derivative | --verify-knots`` computes, as
JSON-ready data, after the study's tool (github.com/ivoitovych/bf16_gelu_research at 90e9ff1,
2025-12-27, ``gelu_implementations.cpp``: ``regression_suite``, the ``--derivative`` block of
``main``, ``verify_spline_knots``; unchanged at its HEAD c2bf7bb):

* ``regression`` (G7/G8): every method at the study's 50 adversarial points, scored as its
  analysis scores (its reference, its ULP index): the largest distance and its first point, and
  the points over 100 ULP (its "relaxed for tail region" limit), PASS when there are none;
* ``derivative`` (G4): the study's GELU' approximation at its nine points beside its double
  reference (and, added here, the correctly rounded GELU'), then where GELU' changes sign and
  G4 scored over all 65,280 inputs, which the study does not do;
* ``verify_knots``: C1's stored knot values and slopes against the double GELU and GELU', and
  C1 at eight points against the double GELU; added here, the Fritsch-Carlson check of each
  segment.

Each takes the arithmetic as :mod:`.workbench` does (host binary32 forms, with or without the
build's FMA contraction, or a chip's kernels). Knows nothing of the command line or rendering.
"""
from __future__ import annotations

from functools import cache

import mpmath
import numpy as np

from sfpu_sim import formats, reference
from sfpu_sim.study import gelu_backward, gelu_methods, scoring, workbench
from sfpu_sim.study.binary32 import Binary32, literal
from sfpu_sim.sweeps import DevicePath, run_device

__all__ = ["ADVERSARIAL_POINTS", "DERIVATIVE_POINTS", "MAX_ALLOWED_ULP", "SPLINE_POINTS",
           "derivative", "g4_outputs", "gelu_minimum", "regression", "verify_knots"]

# The regression suite's points, as the study writes its float literals (50, duplicates kept:
# -4 and -8 are listed twice; README.md @7399a13 and later: "50 adversarial test points").
ADVERSARIAL_POINTS = (
    "0.0", "1e-6", "1e-4", "0.001", "0.01", "0.1", "-1e-6", "-1e-4", "-0.001", "-0.01", "-0.1",
    "0.25", "0.5", "1.0", "2.0", "4.0", "-0.25", "-0.5", "-1.0", "-2.0", "-4.0",
    "2.9", "2.99", "3.0", "3.01", "3.1", "-3.4", "-3.49", "-3.5", "-3.51", "-3.6",
    "-4.0", "-4.5", "-5.0", "-5.5", "-6.0", "-7.0", "-8.0", "-8.375", "1.5", "-1.5",
    "0.125", "0.0625", "8.0", "16.0", "-0.125", "-0.0625", "-8.0", "0.00390625", "0.001953125")
MAX_ALLOWED_ULP = 100
DERIVATIVE_POINTS = ("-3.0", "-2.0", "-1.0", "-0.5", "0.0", "0.5", "1.0", "2.0", "3.0")
SPLINE_POINTS = ("-3.5", "-3.2969", "-2.5", "-1.5", "-0.75", "0.25", "1.5", "3.0")
# The source's comment and HISTORY.md @90e9ff1: GELU' is negative "for x < ~-0.55"; in fact
# it is negative below the minimum of GELU, the root of GELU'(x) = 0 at x = -0.7518.
STUDY_SIGN_CLAIM = -0.55
# HISTORY.md @90e9ff1 (Session 5): C1's first [-4, -2] segment had alpha^2 + beta^2 = 14.2.
HISTORY_R2_WITHOUT_MINUS_3 = 14.2


@cache
def gelu_minimum() -> float:
    """Where GELU' = Phi + x phi crosses zero (the minimum of GELU), to double precision."""
    with mpmath.workdps(40):
        root = mpmath.findroot(lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x), -0.75)
    return float(root)


def _point(text: str, bits: int) -> dict:
    return {"literal": text, "x": literal(text), "bits": f"{bits:#06x}",
            "bf16": float(scoring.input_values(bits))}


def _hex(bits) -> list[str]:
    return [f"{int(b):#06x}" for b in bits]


def _values(bits) -> list[float]:
    return scoring.input_values(np.asarray(bits, np.uint16)).tolist()


# --------------------------------------------------------------------------------------------
# G7/G8: the regression suite
# --------------------------------------------------------------------------------------------

def regression(methods=None, *, reference: str = "study", arch=None, host_fma: bool = True,
               rounding: bool = True) -> dict:
    """Each method at the 50 adversarial points: per point its BF16 output and ULP; the max
    (first in the list's order, 0 when none is above 0), the failures (ULP > 100) and PASS or
    FAIL, as the study's ``run_regression``."""
    ids = workbench.check_methods(methods)
    inputs = workbench.parse_points(ADVERSARIAL_POINTS)
    expected, _ = scoring.reference_bits(reference, inputs)
    rows = {}
    for method_id in ids:
        got = workbench.outputs(method_id, inputs, arch=arch, host_fma=host_fma,
                                rounding=rounding)
        distance = scoring.score(got, expected, inputs).distance
        top = int(distance.max(initial=0))
        worst = int(np.argmax(distance)) if top > 0 else None
        failures = int((distance > MAX_ALLOWED_ULP).sum())
        rows[method_id] = {
            "max_ulp": top, "worst_point": None if worst is None else ADVERSARIAL_POINTS[worst],
            "failures": failures, "passed": failures == 0,
            "failing_points": [ADVERSARIAL_POINTS[k] for k in
                               np.flatnonzero(distance > MAX_ALLOWED_ULP)],
            "output_bits": _hex(got), "ulp": [int(d) if d >= 0 else None for d in distance]}
    convention = workbench.convention(reference, arch, host_fma, rounding)
    convention["inputs"] = (f"the study's {len(ADVERSARIAL_POINTS)} adversarial points, each a "
                            f"float literal then BF16 (nearest even)")
    return {"convention": convention, "count": len(ADVERSARIAL_POINTS),
            "max_allowed_ulp": MAX_ALLOWED_ULP,
            "points": [_point(t, int(b)) for t, b in zip(ADVERSARIAL_POINTS, inputs.tolist())],
            "reference_bits": _hex(expected), "methods": rows}


# --------------------------------------------------------------------------------------------
# G4: the derivative
# --------------------------------------------------------------------------------------------

@cache
def _g4_program(arch: str, rounding: bool):
    # The kernels package (beside sfpu_sim) registers kernels through sfpu_sim's registry and
    # DSL; it is imported when a study runs, not when this module loads.
    from kernels.gelu_study import derivative_program
    return derivative_program(arch, rounding)


def g4_outputs(inputs=scoring.INPUTS, *, arch=None, host_fma: bool = True,
               rounding: bool = True) -> np.ndarray:
    """G4's BF16 outputs: the host form (binary32, then nearest even) or, with ``arch``, its
    kernel through the BF16 device path (``rounding=False``: no final ``float_to_fp16b``)."""
    inputs = np.asarray(inputs, np.uint16)
    if arch is None:
        ar = Binary32(host_fma)
        fp32 = gelu_backward.G4.body(ar.input(inputs), ar)
        return formats.fp32_to_bf16_rne(formats.fp32_to_bits(fp32))
    workbench.check_arch(arch)
    return run_device(_g4_program(arch, rounding), inputs, DevicePath()).output


def _study_derivative_bits(inputs) -> tuple[np.ndarray, np.ndarray]:
    """The study's double GELU' at BF16 inputs, and its double -> float -> BF16 pattern."""
    value = gelu_backward.reference_derivatives(scoring.input_values(inputs))
    bits = formats.fp32_to_bf16_rne(formats.fp32_to_bits(value.astype(np.float32)))
    return bits, value


def _correct_derivative_bits(inputs) -> np.ndarray:
    return reference.reference("gelu_derivative", np.asarray(inputs, np.uint16), "rne",
                               daz=False, ftz=False).bits


def _negative_between(bits, inputs) -> list[float] | None:
    """The smallest and the largest input whose output is negative (not -0)."""
    x = scoring.input_values(inputs)
    bits = np.asarray(bits)
    negative = ((bits & 0x8000) != 0) & ((bits & 0x7FFF) != 0)
    return [float(x[negative].min()), float(x[negative].max())] if negative.any() else None


def derivative(*, arch=None, host_fma: bool = True, rounding: bool = True) -> dict:
    """G4 at the study's nine points (its reference, G4's BF16 value, ``|ref - G4|``; beside
    them the correctly rounded GELU' and both ULP distances), where GELU' turns negative, and
    G4 over every input against both references (the study's scoring; not in its tool)."""
    inputs = workbench.parse_points(DERIVATIVE_POINTS)
    got = g4_outputs(inputs, arch=arch, host_fma=host_fma, rounding=rounding)
    study_bits, _ = _study_derivative_bits(inputs)
    # the tool's reference takes the float literal, the approximation its BF16 value
    study_value = [gelu_backward.reference_derivative(literal(t)) for t in DERIVATIVE_POINTS]
    correct_bits = _correct_derivative_bits(inputs)
    to_study = scoring.score(got, study_bits, inputs).distance
    to_correct = scoring.score(got, correct_bits, inputs).distance
    output = _values(got)
    rows = [{**_point(text, int(bits)), "reference": study_value[k],
             "output_bits": f"{int(got[k]):#06x}", "output": output[k],
             "error": abs(study_value[k] - output[k]),
             "reference_bf16_bits": f"{int(study_bits[k]):#06x}", "ulp_study": int(to_study[k]),
             "correct_bits": f"{int(correct_bits[k]):#06x}",
             "correct": _values(correct_bits[k:k + 1])[0], "ulp_correct": int(to_correct[k])}
            for k, (text, bits) in enumerate(zip(DERIVATIVE_POINTS, inputs.tolist()))]
    every = g4_outputs(arch=arch, host_fma=host_fma, rounding=rounding)
    study_all, _ = _study_derivative_bits(scoring.INPUTS)
    correct_all = _correct_derivative_bits(scoring.INPUTS)
    sign = {"study_claim": STUDY_SIGN_CLAIM, "gelu_minimum": gelu_minimum(),
            "g4_negative_between": _negative_between(every, scoring.INPUTS),
            "correct_negative_between": _negative_between(correct_all, scoring.INPUTS)}
    scores = {name: workbench.method_summary(scoring.score(every, expected))
              for name, expected in (("study", study_all), ("correct", correct_all))}
    return {"convention": workbench.convention("study", arch, host_fma, rounding),
            "points": rows, "sign": sign, "all_inputs": scores}


# --------------------------------------------------------------------------------------------
# C1's knots
# --------------------------------------------------------------------------------------------

def _segment(check: gelu_methods.Monotonicity) -> dict:
    return {"x0": check.x0, "x1": check.x1, "delta": check.delta, "alpha": check.alpha,
            "beta": check.beta, "r2": check.r2, "limited": check.limited}


def verify_knots(*, arch=None, host_fma: bool = True) -> dict:
    """C1's stored GELU and GELU' at its knots against the study's doubles (``|ref -
    stored|``), C1 at the study's eight points against the double GELU at the float literal
    (``C1 - ref``: -3.2969 reaches C1 as BF16 -3.296875), and each segment's Fritsch-Carlson
    check, with the [-4, -2] segment the knot at -3 split."""
    knots = []
    for x, value, slope in zip(gelu_methods.C1_KNOTS, gelu_methods.C1_VALUES,
                               gelu_methods.C1_SLOPES):
        gelu, _ = workbench.study_double(x)
        slope_ref = gelu_backward.reference_derivative(x, fuse_product=True)
        knots.append({"x": x, "gelu_reference": gelu, "gelu_stored": value,
                      "delta_gelu": abs(gelu - value), "derivative_reference": slope_ref,
                      "derivative_stored": slope, "delta_derivative": abs(slope_ref - slope)})
    inputs = workbench.parse_points(SPLINE_POINTS)
    got = workbench.outputs("C1", inputs, arch=arch, host_fma=host_fma)
    output = _values(got)
    points = []
    for k, (text, bits) in enumerate(zip(SPLINE_POINTS, inputs.tolist())):
        gelu, _ = workbench.study_double(literal(text))
        points.append({**_point(text, int(bits)), "gelu_reference": gelu,
                       "output_bits": f"{int(got[k]):#06x}", "output": output[k],
                       "error": output[k] - gelu})
    v, m = gelu_methods.C1_VALUES, gelu_methods.C1_SLOPES
    merged = gelu_methods.c1_monotonicity((-4.0, -2.0), (v[0], v[2]), (m[0], m[2]),
                                          fma=host_fma)[0]
    return {"convention": workbench.convention("study", arch, host_fma),
            "knots": knots, "points": points,
            "segments": [_segment(c) for c in gelu_methods.c1_monotonicity(fma=host_fma)],
            "without_knot_at_minus_3": {**_segment(merged),
                                        "history_r2": HISTORY_R2_WITHOUT_MINUS_3}}
