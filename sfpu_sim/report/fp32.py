"""The report model of an FP32 input sweep (``sfpu-sim sweep|report KERNEL --in fp32``).

Owns: what :func:`sfpu_sim.report.model.build` derives from per-lane arrays, derived instead
from the summary alone, since an FP32 sweep streams its lanes and keeps none: the FP32 value
space (counted, not enumerated), the conventions table (only ``daz-index`` is measured), the
samples at the maximum (the summary's worst lanes) and the verdicts. Knows nothing of how the
sweep ran; every number comes from the summary (DESIGN.md: data flows one way).
"""
from __future__ import annotations

from sfpu_sim import reference, ulp
from sfpu_sim.jsonio import hex_bits, jsonable
from sfpu_sim.report import model

PATTERNS = 1 << 32
NORMALS_PER_SIGN = 254 << 23
DENORMALS_PER_SIGN = (1 << 23) - 1


def value_space() -> list[dict]:
    """Every FP32 input pattern by category, with bit ranges and counts."""
    def h(bits):
        return hex_bits(bits, "fp32")
    rows = [
        ("negative normals", [[h(0x80800000), h(0xFF7FFFFF)]], NORMALS_PER_SIGN, True,
         "measured where the walk reaches them"),
        ("+0", [[h(0), h(0)]], 1, True, "measured; every denormal input and -0 read as zero "
                                        "(DAZ)"),
        ("positive normals", [[h(0x00800000), h(0x7F7FFFFF)]], NORMALS_PER_SIGN, True,
         "measured where the walk reaches them"),
        ("-0", [[h(0x80000000), h(0x80000000)]], 1, False,
         "reads as zero: checked under special values"),
        ("positive denormals", [[h(1), h(0x007FFFFF)]], DENORMALS_PER_SIGN, False,
         "read as +0 (DAZ): checked under denormal behaviour"),
        ("negative denormals", [[h(0x80000001), h(0x807FFFFF)]], DENORMALS_PER_SIGN, False,
         "read as -0 (DAZ): checked under denormal behaviour"),
        ("infinities", [[h(0x7F800000), h(0x7F800000)], [h(0xFF800000), h(0xFF800000)]], 2,
         False, "checked under special values"),
        ("NaNs", [[h(0x7F800001), h(0x7FFFFFFF)], [h(0xFF800001), h(0xFFFFFFFF)]],
         2 * DENORMALS_PER_SIGN, False, "checked under special values"),
    ]
    return [{"category": name, "count": count, "population": measured, "ranges": ranges,
             "note": note} for name, ranges, count, measured, note in rows]


def _conventions(summary: dict) -> list[dict]:
    rows = []
    for name, text in ulp.CONVENTIONS.items():
        if name == summary["ulp_convention"]:
            rows.append({"convention": name, "definition": text, "used": True,
                         "available": True, "counted": summary["measured"],
                         "max": summary["max_ulp"], "mean": summary["mean_ulp"],
                         "exact_frac": summary["exact_frac"]})
        else:
            rows.append({"convention": name, "definition": text, "used": False,
                         "available": False,
                         "reason": "an FP32 sweep streams its lanes: only the convention it "
                                   "measured is known"})
    return rows


def build(summary: dict) -> dict:
    """The model of an FP32 sweep's summary (the keys :func:`model.build` gives)."""
    shares = model._shares(summary)
    extras = {
        "stem": model.file_stem(summary),
        "command": model.command_line(summary),
        "input_facts": model.format_facts("fp32"),
        "output_facts": model.format_facts(summary["output_format"]),
        "value_space": value_space(),
        "value_space_total": PATTERNS,
        "index_layout": model.index_layout(summary["output_format"]),
        "policies": [{"policy": name, "definition": text,
                      "used": name == summary["reference_rounding"]}
                     for name, text in reference.policies().items()],
        "conventions": _conventions(summary),
        "samples": summary["samples_at_max"][:model.SAMPLES],
        "histogram_rows": model._histogram_rows(summary),
        "binade_runs": model._binade_runs(summary),
        "worst_region": model._worst_region(summary),
        **shares,
    }
    extras["verdicts"] = model._verdicts(summary, shares)
    return jsonable({**summary, "report": extras})
