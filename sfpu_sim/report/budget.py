"""Rows for tt-llk's ``sfpu_accuracy_budget.yaml``, predicted from sweeps.

Format: tenstorrent/tt-metal ``tt_metal/tt-llk/tests/python_tests/helpers/
sfpu_accuracy_budget.yaml`` (2026-09): one mapping per op (the ``MathOperation`` name), rows
``{in, out, approx, dest, arch, max_ulp}`` with ``approx``/``dest`` quoted ("YAML 1.1 reads
a bare No/Yes as a boolean"), formats by ``DataFormat`` name, arch by ``ChipArchitecture``
value, a trailing comment with the measurement. The budget is ``emit_budget.py``'s rule for
exhaustive rows: ``ceil(1.1 x max)``, a measured 0 kept at 0; a cell with lanes that disagree
with the reference about being finite is a ``metric: tolerance`` row saying why. Written
without a YAML library: the rows are flow mappings of scalars.
"""
from __future__ import annotations

from sfpu_sim.report import numbers as N

FORMAT_NAMES = {"bf16": "Float16_b", "fp16": "Float16", "fp32": "Float32"}


def op_name(function: str) -> str:
    """``tanh`` -> ``Tanh``, ``gelu_tanh`` -> ``GeluTanh`` (the MathOperation spelling)."""
    return "".join(part[:1].upper() + part[1:] for part in function.split("_"))


def budget(max_ulp: int) -> int:
    """``ceil(1.1 * max_ulp)`` in integers."""
    return (11 * int(max_ulp) + 9) // 10


def inputs(m: dict) -> tuple[str, str]:
    """Which inputs a sweep model measured, (how, what): every pattern of a 16-bit format, or
    an FP32 sweep's walk (every pattern, or Tenstorrent's strided one)."""
    walk = m.get("walk")
    if walk is None or walk["kind"] == "exhaustive":
        return "exhaustive", FORMAT_NAMES[m["input_format"]]
    return "strided", f"Float32 (one value in {walk['stride']:,})"


def row(m: dict) -> str:
    """One YAML row of a sweep model, with its trailing comment."""
    key = (f"in: {FORMAT_NAMES[m['input_format']]}, out: {FORMAT_NAMES[m['output_format']]}, "
           f"approx: \"{'Yes' if m['mode'] == 'approximate' else 'No'}\", "
           f"dest: \"{'Yes' if m['dest'] == 'fp32' else 'No'}\", arch: {m['arch']}")
    sweep = (f"kernel {m['kernel']} {m['kernel_hash']}, {inputs(m)[0]}, "
             f"{N.count(m['measured'])} inputs (population {m['population']}), "
             f"ULP {m['ulp_convention']}, reference {m['reference_rounding']}")
    hard = m["lane_classes"]["nonfinite_mismatch"] + m["lane_classes"]["nan_mismatch"]
    if hard or m["max_ulp"] is None:
        return (f"  - {{{key}, metric: tolerance}}  # predicted by {m['tool']}: not "
                f"measurable: {N.count(hard)} lane(s) disagreeing with the reference about "
                f"being finite; {sweep}")
    return (f"  - {{{key}, max_ulp: {budget(m['max_ulp'])}}}  # predicted by {m['tool']}: "
            f"max {N.ulp(m['max_ulp'])} ULP; {sweep}")


def render(models: list[dict]) -> str:
    """Budget rows of several sweep models, grouped by op in order of first appearance."""
    ops: dict[str, list[dict]] = {}
    for m in models:
        ops.setdefault(op_name(m["function"]), []).append(m)
    tool = models[0]["tool"] if models else "sfpu-sim"
    lines = [f"# Predicted by {tool} (emulated, not measured on silicon). Budgets are "
             "ceil(1.1 x predicted max),", "# a predicted 0 kept at 0, as emit_budget.py "
             "does for exhaustive rows."]
    for op, rows in ops.items():
        kinds = ", ".join(dict.fromkeys(" ".join(inputs(m)) for m in rows))
        lines.append(f"{op}:  # predicted by {tool}, {kinds} sweeps")
        lines += [row(m) for m in rows]
    return "\n".join(lines) + "\n"
