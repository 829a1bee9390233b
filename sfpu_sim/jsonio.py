"""How numbers and patterns are written into JSON summaries: patterns as hex text, non-finite
floats as strings, numpy scalars as Python numbers.

Owns: JSON-ready conversion. Knows nothing of sweeps or reports.
"""
from __future__ import annotations

import math

import numpy as np

from sfpu_sim import formats


def hex_bits(bits: int, fmt: str) -> str:
    """A pattern as summaries write it: ``0x3f80`` (16-bit formats), ``0x3f800000`` (FP32)."""
    return f"{int(bits):#0{6 if formats.FORMATS[fmt].width == 16 else 10}x}"


def json_number(v):
    """A float for JSON: finite as is, non-finite as the strings "nan", "inf", "-inf"."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


# Types returned as they are: a summary holds thousands of them (the type test first, since
# ``isinstance`` against numpy's abstract types is the slow part of a summary's conversion).
_AS_IS = frozenset({str, int, type(None)})
_INF = math.inf


def jsonable(obj):
    """``obj`` with numpy scalars turned into Python numbers and non-finite floats into
    strings, so ``json.dumps(..., allow_nan=False)`` accepts it."""
    kind = type(obj)
    if kind in _AS_IS:
        return obj
    if kind is float:
        return json_number(obj)
    # leaves already JSON's (a str, an int, None, a finite float) kept without a call: most are
    if isinstance(obj, dict):
        return {k if type(k) is str else str(k):
                v if type(v) in _AS_IS or (type(v) is float and -_INF < v < _INF)
                else jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [v if type(v) in _AS_IS or (type(v) is float and -_INF < v < _INF)
                else jsonable(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return json_number(obj)
    return obj


_NOT_GIVEN = object()


def lane_row(input_bits, output_bits, expected_bits, reference_value, *, in_fmt: str = "bf16",
             out_fmt: str = "bf16", kernel_fp32_bits=_NOT_GIVEN, kernel_fp32: bool = False,
             ulp=_NOT_GIVEN, kernel_ulp=_NOT_GIVEN, lane_class=_NOT_GIVEN) -> dict:
    """One input's row, as every summary, report and ``eval`` lists lanes: the input, the
    device output and the expected pattern (bits and values), the exact reference, then the
    optional fields given (``kernel_fp32``: also the value of the kernel's FP32 result)."""
    row = {"input_bits": hex_bits(input_bits, in_fmt),
           "input": json_number(formats.bits_to_float64(input_bits, in_fmt)),
           "output_bits": hex_bits(output_bits, out_fmt),
           "output": json_number(formats.bits_to_float64(output_bits, out_fmt)),
           "expected_bits": hex_bits(expected_bits, out_fmt),
           "expected": json_number(formats.bits_to_float64(expected_bits, out_fmt)),
           "reference": json_number(reference_value)}
    if kernel_fp32_bits is not _NOT_GIVEN:
        row["kernel_fp32_bits"] = hex_bits(kernel_fp32_bits, "fp32")
        if kernel_fp32:
            row["kernel_fp32"] = json_number(formats.bits_to_float64(kernel_fp32_bits, "fp32"))
    for name, value in (("ulp", ulp), ("kernel_ulp", kernel_ulp), ("lane_class", lane_class)):
        if value is not _NOT_GIVEN:
            row[name] = value.item() if isinstance(value, np.generic) else value
    return row
