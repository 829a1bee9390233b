"""Pytest helpers for users' own suites: assert a kernel's predicted accuracy.

Owns: :func:`assert_kernel_within_ulp`, the emulated counterpart of tt-llk's
``passed_test(max_ulp=...)`` / ``helpers/ulp.py`` ``within_ulp`` (tenstorrent/tt-metal
``tt_metal/tt-llk/tests/python_tests/helpers/``, PRs #56729 to #57235): every input of the
population (or of a range or region of it) within a ULP budget, per region budgets, special
values checked, and no lane that disagrees with the reference about being finite (a hard
failure, never averaged in). Knows nothing of reports; the message is built from the sweep
summary with the report's number formatting.

Example::

    from sfpu_sim.testing import assert_kernel_within_ulp

    def test_my_exp_is_within_one_ulp_on_the_useful_range():
        assert_kernel_within_ulp("my_exp", "wormhole", 1, range=(-10, 10))
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats, registry
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.report import numbers as N
from sfpu_sim.selection import Selection, regions_for
from sfpu_sim.sweeps import sweep

__all__ = ["assert_kernel_within_ulp", "check_budget", "BudgetError"]

SPECIAL_INPUTS = {"+0": 0x0000, "-0": 0x8000, "+inf": 0x7F80, "-inf": 0xFF80}


class BudgetError(SfpuSimError, ValueError):
    """A budget, region or range the assertion cannot check (a ValueError too, as it was)."""


def check_budget(value, what: str) -> None:
    """A ULP budget is a non-negative integer; NaN, a float or a bool is a mistake, refused
    (a NaN budget would make every comparison false and the assertion pass)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise BudgetError(f"{what} must be a non-negative integer number of ULP, got "
                          f"{value!r}")


def _special_problems(spec, arrays, out_fmt: str) -> list[str]:
    """Special values, as ``specials=True`` checks them: every NaN input gives a NaN (or the
    pattern the registration declares for "nan"); +-0 and +-Inf inputs, and every input whose
    reference is a zero or an infinity, give exactly the reference's bits (sign included), or
    the declared pattern."""
    fmt = formats.FORMATS[out_fmt]
    out, expected = arrays["all_output"], arrays["all_expected"]
    inputs = np.arange(out.size, dtype=np.uint32).astype(np.uint16)
    problems = []
    nan_in = formats.is_nan(inputs, formats.BF16)
    declared = spec.specials.get("nan")
    wrong = nan_in & (~formats.is_nan(out, fmt) if declared is None else (out != declared))
    if wrong.any():
        k = int(np.flatnonzero(wrong)[0])
        want = "a NaN" if declared is None else f"the declared {declared:#x}"
        problems.append(f"{int(wrong.sum())} NaN inputs do not give {want} (e.g. {k:#06x} -> "
                        f"{int(out[k]):#x}); declare deliberate behaviour with "
                        f"register_kernel(..., specials={{'nan': ...}})")
    for name, bits in SPECIAL_INPUTS.items():
        want = spec.specials.get(name, int(expected[bits]))
        if int(out[bits]) != want:
            problems.append(f"input {name} gives {int(out[bits]):#x}, expected {want:#x}")
    zero_or_inf = ~nan_in & (formats.is_zero(expected, fmt) | formats.is_inf(expected, fmt))
    zero_or_inf[list(SPECIAL_INPUTS.values())] = False
    zero_or_inf &= ~formats.is_denormal(inputs, formats.BF16)   # read as zeros (DAZ)
    wrong = zero_or_inf & (out != expected)
    if wrong.any():
        k = int(np.flatnonzero(wrong)[0])
        problems.append(f"{int(wrong.sum())} inputs whose reference is a zero or an infinity "
                        f"give other bits (e.g. {k:#06x} -> {int(out[k]):#x}, expected "
                        f"{int(expected[k]):#x})")
    return problems


def _range_text(range) -> str | None:
    """``range=(lo, hi)`` as the ``LO,HI`` text :class:`~sfpu_sim.selection.Selection` reads."""
    if range is None:
        return None
    try:
        low, high = range
        return f"{float(low)!r},{float(high)!r}"
    except (TypeError, ValueError):
        raise BudgetError(f"range: expected (lo, hi), two numbers, got {range!r}") from None


def _check_budgets_apply(budgets: dict, summary: dict) -> None:
    """A budget for a region with no measured input in the selection could never fail: it
    is refused rather than passed (the test's range or region and its budgets disagree)."""
    for row in summary["regions"]:
        if row["region"] not in budgets or row["measured"]:
            continue
        where = f"budgets[{row['region']!r}]: region {row['region']} ({row['text']})"
        if not row["inputs"]:
            raise BudgetError(f"{where} has no inputs among those selected "
                              f"({summary['selection']['text']}); widen the range or drop "
                              f"the budget")
        raise BudgetError(f"{where} has {row['inputs']:,} inputs among those selected "
                          f"({summary['selection']['text']}) but none is measured (population "
                          f"{summary['population']}, ULP {summary['ulp_convention']}); drop "
                          f"the budget")


def assert_kernel_within_ulp(kernel: str, arch: str, max_ulp, *, range=None, region=None,
                             budgets=None, dest: str | None = None, specials: bool = True,
                             input_format: str = "bf16", output_format: str = "bf16",
                             reference_rounding: str = "rne",
                             ulp_convention: str = "daz-index",
                             allow_hard_mismatches: bool = False, reference: str | None = None):
    """Sweep ``kernel`` on ``arch`` over every BF16 input and assert that each measured lane
    is within ``max_ulp`` of the reference; returns the :class:`~sfpu_sim.sweeps.SweepResult`.

    ``range`` ``(lo, hi)`` and ``region`` (a name of the report's region table) restrict the
    inputs counted; ``budgets`` gives per-region maxima (``{"near_zero": 1, "core_neg": 30}``)
    on top of ``max_ulp``. ``specials``: check NaN, zero and infinity behaviour (see
    :func:`_special_problems`). ``dest``: the Dst format (default: the kernel's registered
    one). ``reference``: measure against this instead of the kernel's function, an expression
    in x (``"tan(x)"``, ``"log1p(exp(x))"``) or a reference function's name; the regions are
    then the reference's (an expression's: the sign regions). Lanes where the output and the
    reference disagree about being finite fail unless ``allow_hard_mismatches``. Raises
    AssertionError with one paragraph naming the worst input and every failed check, and
    :class:`BudgetError` (an SfpuSimError) for a budget, region or range it cannot check.
    """
    __tracebackhide__ = True            # pytest: show the caller's line, not this helper's
    check_budget(max_ulp, "max_ulp")

    spec = registry.get(kernel)
    if reference is not None:
        spec = registry.with_reference(spec, reference, dest)
    names = [r.name for r in regions_for(spec.function)]
    budgets = dict(budgets or {})
    for name, value in budgets.items():
        if name not in names:
            raise BudgetError(f"budgets: unknown region {name!r} (regions of "
                              f"{spec.function}: {', '.join(names)})")
        check_budget(value, f"budgets[{name!r}]")
    selection = Selection.from_options(_range_text(range), region, spec.function)
    result = sweep(spec, arch, dest=dest or spec.dest, input_format=input_format,
                   output_format=output_format, reference_rounding=reference_rounding,
                   ulp_convention=ulp_convention, selection=selection)
    s, arrays = result.summary, result.arrays
    measured = arrays["distance"][arrays["counted"]]
    parts = []
    over = int(np.count_nonzero(measured > max_ulp))
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
    _check_budgets_apply(budgets, s)
    for row in s["regions"]:
        budget = budgets.get(row["region"])
        if budget is not None and row["max"] > budget:
            parts.append(f"region {row['region']} ({row['text']}): max {N.ulp(row['max'])} "
                         f"ULP exceeds its budget of {N.ulp(budget)}.")
    hard = s["lane_classes"]["nonfinite_mismatch"] + s["lane_classes"]["nan_mismatch"]
    if hard and not allow_hard_mismatches:
        parts.append(f"{N.count(hard)} lanes disagree with the reference about being finite "
                     "(finite against Inf, or NaN against a number).")
    if specials:
        parts += [p + "." for p in _special_problems(spec, arrays, output_format)]
    if not parts:
        return result
    where = (f"{s['kernel']} on {s['chip']} (Dst {s['dest'].upper()}, output "
             f"{s['output_format'].upper()}, reference {s['reference_rounding']}, ULP "
             f"{s['ulp_convention']}, inputs: {s['selection']['text']})")
    parts.append(f"Population: {s['population']} ({s['population_text']}), "
                 f"{N.count(s['measured'])} of {N.count(s['count'])} inputs measured; mean "
                 f"{N.mean(s['mean_ulp'])} over {N.count(s['measured'])} inputs.")
    raise AssertionError(f"{where}: " + " ".join(parts))
