"""Pytest helpers for users' own suites: assert a kernel's predicted accuracy.

Owns: :func:`assert_kernel_within_ulp`, the emulated counterpart of tt-llk's
``passed_test(max_ulp=...)`` / ``helpers/ulp.py`` ``within_ulp`` (users.md §2.2): every input
of the population within ``max_ulp``, and no lane that disagrees with the reference about being
finite (a hard failure, never averaged in). Knows nothing of reports; the message is built from
the sweep summary with the report's number formatting.

Example::

    from sfpu_sim.testing import assert_kernel_within_ulp

    def test_tanh_blackhole_is_within_one_ulp():
        assert_kernel_within_ulp("tanh", "blackhole", 1)
"""
from __future__ import annotations

import numpy as np

__all__ = ["assert_kernel_within_ulp"]


def check_budget(value, what: str) -> None:
    """A ULP budget is a non-negative integer; NaN, a float or a bool is a mistake, refused
    (a NaN budget would make every comparison false and the assertion pass)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer number of ULP, got {value!r}")


def assert_kernel_within_ulp(kernel: str, arch: str, max_ulp, *, dest: str | None = None,
                             input_format: str = "bf16", output_format: str = "bf16",
                             reference_rounding: str = "rne",
                             ulp_convention: str = "daz-index",
                             allow_hard_mismatches: bool = False):
    """Sweep ``kernel`` on ``arch`` over every BF16 input and assert that each measured lane
    is within ``max_ulp`` of the reference; returns the :class:`~sfpu_sim.sweeps.SweepResult`.

    ``dest``: the Dst format (default: the kernel's registered one). Lanes where the output
    and the reference disagree about being finite (finite against Inf, NaN against a number)
    fail the assertion unless ``allow_hard_mismatches``. Raises AssertionError with one
    paragraph: the maximum found, the worst input (with output, expected and the kernel's own
    FP32 result), how many inputs exceed the budget, and the population measured.
    """
    __tracebackhide__ = True            # pytest: show the caller's line, not this helper's
    check_budget(max_ulp, "max_ulp")
    from sfpu_sim import registry
    from sfpu_sim.report import numbers as N
    from sfpu_sim.sweeps import sweep

    spec = registry.get(kernel)
    result = sweep(spec, arch, dest=dest or spec.dest, input_format=input_format,
                   output_format=output_format, reference_rounding=reference_rounding,
                   ulp_convention=ulp_convention)
    s, arrays = result.summary, result.arrays
    measured = arrays["distance"][arrays["counted"]]
    over = int(np.count_nonzero(measured > max_ulp))
    hard = s["lane_classes"]["nonfinite_mismatch"] + s["lane_classes"]["nan_mismatch"]
    if over == 0 and (hard == 0 or allow_hard_mismatches):
        return result
    where = (f"{s['kernel']} on {s['chip']} (Dst {s['dest'].upper()}, output "
             f"{s['output_format'].upper()}, reference {s['reference_rounding']}, ULP "
             f"{s['ulp_convention']})")
    parts = []
    if over:
        w = s["worst"][0]
        parts.append(
            f"max {N.ulp(s['max_ulp'])} ULP exceeds the budget of {N.ulp(max_ulp)} ULP: "
            f"{N.count(over)} of {N.count(s['measured'])} measured inputs are over it. Worst "
            f"input {w['input_bits']} ({N.value(w['input'])}): output {w['output_bits']} "
            f"({N.value(w['output'])}), expected {w['expected_bits']} "
            f"({N.value(w['expected'])}), exact {N.real(w['reference'])}; the kernel's own "
            f"FP32 result {w['kernel_fp32_bits']} is {N.ulp(w['kernel_ulp'])} ULP away when "
            "rounded to nearest.")
    if hard and not allow_hard_mismatches:
        parts.append(f"{N.count(hard)} lanes disagree with the reference about being finite "
                     "(finite against Inf, or NaN against a number).")
    parts.append(f"Population: {s['population']} ({s['population_text']}), "
                 f"{N.count(s['measured'])} of {N.count(s['count'])} inputs measured; mean "
                 f"{N.mean(s['mean_ulp'])} over {N.count(s['measured'])} inputs.")
    raise AssertionError(f"{where}: " + " ".join(parts))
