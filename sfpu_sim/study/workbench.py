"""The BF16 GELU study's workbench: its analysis modes, on the host forms or the SFPU kernels.

Owns: what ``sfpu-sim study gelu`` computes, as JSON-ready data: ``analyze`` (the study's
table: per method mean, max, worst input, P50/P90/P99 and the region table), ``diagnose`` (given
inputs), ``reference_values`` (the references at the study's key points), ``saturation``
(behaviour around the thresholds) and ``calibrate`` (the tail-table values). Each takes the
reference (``study``: the cancelling double formula, to reproduce the published figures;
``correct``: the correctly rounded GELU) and the arithmetic (the host forms in binary32, with
or without the build's FMA contraction, or a chip's ``gelu_study_*`` kernel). Knows nothing
of the command line or of rendering.

The modes mirror the study's own (github.com/ivoitovych/bf16_gelu_research @90e9ff1,
``--analyze``, ``--diagnose``, ``--reference``, ``--saturation``, ``--calibrate``) with the
study's default points, and add the correctly rounded value beside every cancelled one.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from sfpu_sim import formats, registry
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.study import gelu_methods, scoring
from sfpu_sim.study.binary32 import Binary32, literal
from sfpu_sim.sweeps import DevicePath, run_device

__all__ = ["analyze", "all_outputs", "table", "diagnose", "reference_values", "saturation",
           "calibrate", "outputs", "host_fp32", "device_fp32", "parse_points", "check_methods",
           "ARCHES", "BadPoint", "UnknownArch", "DIAGNOSE_POINTS", "REFERENCE_POINTS",
           "study_double", "method_summary", "convention", "check_arch"]

ARCHES = ("wormhole", "blackhole")
# The study's default points (its --diagnose and --reference modes).
DIAGNOSE_POINTS = ("0", "0.001", "0.01", "0.1", "0.5", "1", "1.5", "2", "2.5", "3", "3.5", "3.9",
                   "3.984375", "4", "4.5", "5", "6", "8", "-0.001", "-0.01", "-0.1", "-0.5",
                   "-1", "-1.5", "-2", "-2.5", "-3", "-3.5", "-4", "-4.5", "-5", "-6", "-8")
REFERENCE_POINTS = (-8.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5,
                    2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
CALIBRATION_POINTS = tuple(-3.5 - 0.5 * k for k in range(12))          # -3.5 .. -9.0
# Thresholds of the methods' shared structure, and the tail's last knot.
THRESHOLDS = (("x >= 3 -> x", 3.0), ("core / tail at -3", -3.0), ("tail from x < -3.5", -3.5),
              ("tail table ends at -8.5", -8.5), ("x <= -9 -> 0", -9.0))


class BadPoint(SfpuSimError):
    pass


class UnknownArch(SfpuSimError):
    pass


def check_methods(ids) -> list[str]:
    """The method ids asked for (all, in the study's order, when none), each checked."""
    if not ids:
        return gelu_methods.method_ids()
    return [gelu_methods.method(i).id for i in ids]


def check_arch(arch):
    if arch is not None and arch not in ARCHES:
        raise UnknownArch(f"unknown arch {arch!r} (choose from: {', '.join(ARCHES)})")


def _bf16(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint16)


def parse_points(texts) -> np.ndarray:
    """BF16 patterns of ``--diagnose`` inputs: a decimal number becomes a C++ float literal
    and then BF16 (each rounding to nearest even, as the study's ``static_cast<bfloat16_t>(
    1.5f)``); ``0x`` gives a BF16 pattern. Only finite inputs (the study scores no others)."""
    out = []
    for text in texts:
        cleaned = str(text).strip().lower()
        if cleaned.startswith(("0x", "-0x", "+0x")):
            try:
                bits = int(cleaned, 16)
            except ValueError:
                raise BadPoint(f"--diagnose {text!r}: not a BF16 pattern (write e.g. 0xc106)") \
                    from None
            if not 0 <= bits <= 0xFFFF:
                raise BadPoint(f"--diagnose {text!r}: a BF16 pattern is 0x0000..0xffff")
        elif cleaned.lstrip("+-") in ("inf", "infinity", "nan"):
            raise BadPoint(f"--diagnose {text!r}: not a finite BF16 value (the study scores "
                           f"finite inputs only)")
        else:
            try:
                Fraction(cleaned)
            except (ValueError, ZeroDivisionError):
                raise BadPoint(f"--diagnose {text!r}: not a number (write e.g. -8.375, 1e-3 or "
                               f"a BF16 pattern 0xc106)") from None
            try:
                value = literal(cleaned)
            except ValueError:
                raise BadPoint(f"--diagnose {text!r}: not a finite BF16 value (beyond the "
                               f"float range)") from None
            bits = int(formats.fp32_to_bf16_rne(formats.fp32_to_bits(np.float32(value))))
        if (bits & 0x7F80) == 0x7F80:
            raise BadPoint(f"--diagnose {text!r}: not a finite BF16 value (the study scores "
                           f"finite inputs only)")
        out.append(bits)
    return _bf16(out)


# --------------------------------------------------------------------------------------------
# Outputs of a method: host form or device kernel
# --------------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _program(method_id: str, arch: str, rounding: bool = True):
    """The registered ``gelu_study_*`` kernel (``rounding=False``: its unregistered variant
    without the final rounding)."""
    from kernels.gelu_study import kernel_name, program    # see gelu_validation._g4_program

    if rounding:
        return registry.get(kernel_name(method_id)).program(arch)
    return program(method_id, arch, rounding=False)


def host_fp32(method_id: str, inputs=scoring.INPUTS, host_fma: bool = True) -> np.ndarray:
    """The host form's binary32 result (float32 array) before the final BF16 rounding."""
    ar = Binary32(host_fma)
    return gelu_methods.method(method_id).body(ar.input(_bf16(inputs)), ar)


def outputs(method_id: str, inputs=scoring.INPUTS, *, arch=None, host_fma: bool = True,
            rounding: bool = True) -> np.ndarray:
    """BF16 outputs of a method: the host form (float -> BF16, nearest even) or, with
    ``arch``, its ``gelu_study_*`` kernel through the BF16 device path (``rounding=False``:
    the kernel without its final ``float_to_fp16b``, so the store truncates)."""
    check_arch(arch)
    inputs = _bf16(inputs)
    if arch is None:
        return formats.fp32_to_bf16_rne(formats.fp32_to_bits(host_fp32(method_id, inputs,
                                                                         host_fma)))
    gelu_methods.method(method_id)
    return run_device(_program(method_id, arch, rounding), inputs, DevicePath()).output


def device_fp32(method_id: str, inputs, arch: str) -> np.ndarray:
    """The kernel's FP32 result before its final rounding (the LReg the store of the variant
    without ``float_to_fp16b`` stores), as uint32 patterns."""
    check_arch(arch)
    return run_device(_program(method_id, arch, False), _bf16(inputs), DevicePath()).kernel_fp32


def convention(reference: str, arch, host_fma: bool, rounding: bool = True) -> dict:
    if arch is None:
        arithmetic = (f"host binary32, FMA contraction {'on' if host_fma else 'off'} "
                      f"(the study's build: on), float -> BF16 nearest even")
    else:
        arithmetic = (f"gelu_study_* kernels on {arch}, BF16 Dst" +
                      (", float_to_fp16b(result, 0) then SFPSTORE" if rounding else
                       ", SFPSTORE truncating (no final rounding)"))
    return {"reference": reference, "reference_text": scoring.REFERENCES[reference],
            "arithmetic": arithmetic, "arch": arch, "host_fma": host_fma if arch is None
            else None,
            "inputs": "BF16 patterns 0..65535 in order, exponent 0xFF skipped (65,280)",
            "ulp": "index distance in the sorted finite BF16 values, +0 and -0 one index, "
                   "denormals distinct; non-finite outputs skipped",
            "percentiles": "1000-bin histogram, first bin reaching int(n*p/100)",
            "worst_input": "first maximum in bit-pattern order",
            "regions": "|x|<0.5 near_zero; x>=3 tail_pos; x<-3 tail_neg; x>=0.5 core_pos; "
                       "else core_neg"}


def _bits_value(bits) -> tuple[str, float]:
    return f"{int(bits):#06x}", float(scoring.input_values(int(bits)))


def method_summary(s: scoring.Score) -> dict:
    bits, value = _bits_value(s.worst_input)
    regions = {}
    for name, r in s.regions.items():
        worst = None if r["worst_input"] is None or r["max_ulp"] == 0 else r["worst_input"]
        regions[name] = {"count": r["count"], "max_ulp": r["max_ulp"], "mean_ulp": r["mean_ulp"],
                         "worst_input": None if worst is None else _bits_value(worst)[1],
                         "worst_input_bits": None if worst is None else _bits_value(worst)[0]}
    return {"count": s.count, "mean_ulp": s.mean_ulp, "max_ulp": s.max_ulp,
            "worst_input": value, "worst_input_bits": bits,
            "p50": s.p50, "p90": s.p90, "p99": s.p99, "regions": regions}


def all_outputs(methods=None, *, arch=None, host_fma: bool = True,
                rounding: bool = True) -> dict[str, np.ndarray]:
    """BF16 outputs over the study's 65,280 inputs, per method id."""
    return {method_id: outputs(method_id, arch=arch, host_fma=host_fma, rounding=rounding)
            for method_id in check_methods(methods)}


def table(outputs_by_method: dict, *, reference: str = "study", arch=None,
          host_fma: bool = True, rounding: bool = True) -> dict:
    """The study's table of given outputs (``all_outputs``) against ``reference``."""
    expected, _ = scoring.reference_bits(reference)
    return {"count": int(scoring.INPUTS.size),
            "convention": convention(reference, arch, host_fma, rounding),
            "methods": {method_id: method_summary(scoring.score(got, expected))
                        for method_id, got in outputs_by_method.items()}}


def analyze(methods=None, *, reference: str = "study", arch=None, host_fma: bool = True,
            rounding: bool = True) -> dict:
    """The study's table for ``methods`` (ids; all when None): ``{count, convention,
    methods: {id: {mean_ulp, max_ulp, worst_input, worst_input_bits, p50, p90, p99,
    regions}}}``."""
    ids = check_methods(methods)
    check_arch(arch)
    scoring.reference_bits(reference, scoring.INPUTS[:1])        # an unknown name first
    got = all_outputs(ids, arch=arch, host_fma=host_fma, rounding=rounding)
    return table(got, reference=reference, arch=arch, host_fma=host_fma, rounding=rounding)


# --------------------------------------------------------------------------------------------
# The other modes
# --------------------------------------------------------------------------------------------

def _value(bits) -> float:
    return float(scoring.input_values(int(bits)))


def diagnose(points, methods=None, *, reference: str = "study", arch=None,
             host_fma: bool = True) -> dict:
    """Each method at the given inputs (``parse_points`` strings, or the study's default
    points): input, reference (double and BF16), the method's BF16 output and the ULP."""
    ids = check_methods(methods)
    check_arch(arch)
    inputs = parse_points(points if points else DIAGNOSE_POINTS)
    expected, ref_value = scoring.reference_bits(reference, inputs)
    rows = {}
    for method_id in ids:
        got = outputs(method_id, inputs, arch=arch, host_fma=host_fma)
        distance = scoring.score(got, expected, inputs).distance
        fp32 = host_fp32(method_id, inputs, host_fma) if arch is None else None
        rows[method_id] = [{
            "input_bits": f"{int(b):#06x}", "input": _value(b),
            "reference": float(ref_value[k]), "reference_bf16_bits": f"{int(expected[k]):#06x}",
            "reference_bf16": _value(expected[k]),
            "output_fp32": None if fp32 is None else float(fp32[k]),
            "output_bits": f"{int(got[k]):#06x}", "output": _value(got[k]),
            "ulp": int(distance[k]) if distance[k] >= 0 else None}
            for k, b in enumerate(inputs.tolist())]
    return {"convention": convention(reference, arch, host_fma), "methods": rows}


def study_double(x: float) -> tuple[float, float]:
    """The study's double ``(GELU, Phi)`` at ``x`` (libm erf, as its --reference prints)."""
    phi = 0.5 * (1.0 + math.erf(x * scoring.INV_SQRT2))
    return x * phi, phi


def _points_bits(values) -> np.ndarray:
    """BF16 patterns of values that are exact in BF16."""
    return formats.fp32_to_bf16_rne(formats.fp32_to_bits(np.asarray(values, np.float32)))


def reference_values(points=REFERENCE_POINTS) -> dict:
    """The study's reference at its key points beside the correctly rounded GELU: the double
    values, their BF16 roundings and the ULP between the two BF16 values."""
    inputs = _points_bits(points)
    study_bits, _ = scoring.study_reference(inputs)
    correct_bits, correct_value = scoring.correct_reference(inputs)
    between = scoring.score(study_bits, correct_bits, inputs).distance
    rows = []
    for k, x in enumerate(points):
        gelu, phi = study_double(float(x))
        rows.append({"x": float(x), "study_gelu": gelu, "study_phi": phi,
                     "study_bf16_bits": f"{int(study_bits[k]):#06x}",
                     "correct_gelu": float(correct_value[k]),
                     "correct_bf16_bits": f"{int(correct_bits[k]):#06x}",
                     "ulp_between": int(between[k])})
    return {"points": rows}


def _neighbours(value: float, count: int = 2) -> np.ndarray:
    """The BF16 patterns around ``value`` (exact in BF16): ``count`` below, it, ``count``
    above, in increasing value."""
    centre = int(formats.fp32_to_bf16_rne(formats.fp32_to_bits(np.float32(value))))
    step = -1 if centre & 0x8000 else 1             # toward larger values
    return _bf16([centre - step * k for k in range(count, 0, -1)] + [centre] +
                 [centre + step * k for k in range(1, count + 1)])


def saturation(methods=None, *, reference: str = "study", arch=None,
               host_fma: bool = True) -> dict:
    """The study's saturation analysis (where GELU's BF16 value becomes 0, or x) with the
    correctly rounded values beside it, then every method at the BF16 neighbours of each
    threshold of the shared structure."""
    ids = check_methods(methods)
    check_arch(arch)
    negative = list(range(-5, -21, -1))
    correct_bits, correct_value = scoring.correct_reference(_points_bits(negative))
    neg_rows = []
    for k, xi in enumerate(negative):
        gelu, _ = study_double(float(xi))
        single = np.float32(gelu)
        study_bits = int(formats.fp32_to_bf16_rne(formats.fp32_to_bits(single)))
        neg_rows.append({"x": xi, "study_gelu": gelu, "study_bf16_bits": f"{study_bits:#06x}",
                         "study_rounds_to_zero": study_bits & 0x7FFF == 0,
                         "correct_gelu": float(correct_value[k]),
                         "correct_bf16_bits": f"{int(correct_bits[k]):#06x}",
                         "correct_rounds_to_zero": int(correct_bits[k]) & 0x7FFF == 0})
    pos_rows = []
    for xi in range(3, 13):
        gelu, _ = study_double(float(xi))
        bits = int(formats.fp32_to_bf16_rne(formats.fp32_to_bits(np.float32(xi))))
        spacing = 2.0 ** (((bits >> 7) & 0xFF) - 127 - 7)
        pos_rows.append({"x": xi, "study_gelu": gelu, "error": abs(xi - gelu),
                         "ulp_size": spacing, "error_ulps": abs(xi - gelu) / spacing})
    first = lambda rows, key: next((r["x"] for r in rows if r[key]), None)   # noqa: E731
    recommended = {"study_negative": first(neg_rows, "study_rounds_to_zero"),
                   "correct_negative": first(neg_rows, "correct_rounds_to_zero"),
                   "positive": next((r["x"] for r in pos_rows if r["error_ulps"] < 0.5), None)}
    around = []
    for label, threshold in THRESHOLDS:
        inputs = _neighbours(threshold)
        expected, _ = scoring.reference_bits(reference, inputs)
        per_method = {}
        for method_id in ids:
            got = outputs(method_id, inputs, arch=arch, host_fma=host_fma)
            distance = scoring.score(got, expected, inputs).distance
            per_method[method_id] = [{"output_bits": f"{int(g):#06x}", "output": _value(g),
                                      "ulp": int(d) if d >= 0 else None}
                                     for g, d in zip(got.tolist(), distance.tolist())]
        around.append({"threshold": label, "at": threshold,
                       "inputs": [{"bits": f"{int(b):#06x}", "x": _value(b)} for b in inputs],
                       "reference_bits": [f"{int(b):#06x}" for b in expected],
                       "reference": [_value(b) for b in expected], "methods": per_method})
    return {"convention": convention(reference, arch, host_fma), "negative": neg_rows,
            "positive": pos_rows, "recommended": recommended, "thresholds": around}


def calibrate() -> dict:
    """The tail table: the study's double values at -3.5 .. -9 printed ``%.5e`` (its
    --calibrate), the table constants (``gelu_methods.TAIL_VALUES``), and the correctly
    rounded GELU with the cancellation error of each entry."""
    correct_bits, correct_value = scoring.correct_reference(_points_bits(CALIBRATION_POINTS))
    table = dict(zip(gelu_methods.TAIL_KNOTS, gelu_methods.TAIL_VALUES))
    rows = []
    for k, x in enumerate(CALIBRATION_POINTS):
        gelu, _ = study_double(x)
        single = np.float32(gelu)
        study_bits = int(formats.fp32_to_bf16_rne(formats.fp32_to_bits(single)))
        printed = f"{float(single):.5e}"
        constant = table.get(x)
        truth = float(correct_value[k])
        rows.append({"x": x, "study_double": gelu, "study_float": float(single),
                     "printed": printed,
                     "table_constant": constant,
                     "table_matches_print": None if constant is None or x == -8.5
                     else literal(printed) == constant,
                     "study_bf16_bits": f"{study_bits:#06x}",
                     "correct": truth, "correct_printed": f"{truth:.5e}",
                     "correct_bf16_bits": f"{int(correct_bits[k]):#06x}",
                     "relative_error": None if truth == 0 else (gelu - truth) / truth})
    return {"points": rows}
