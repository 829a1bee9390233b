"""The accuracy table's tolerance-gated binary rows, SfpuXlogy and SfpuElwpow: whether the
harness's gate passes on the kernel the harness runs, with the lanes it judges.

The budget file gives these two ops no step budget ("No step budget for these two yet"): their
rows are ``metric: tolerance`` with an ``atol`` (xlogy: 0.14 Float32, 0.6 Float16_b, 0.12
Float16) or an ``rtol`` (pow: 0.15), the other at ``passed_test``'s default 0.05. A cell
passes where every lane is ``torch.isclose(golden, output, rtol, atol)`` (|golden - output| <=
atol + rtol * |output|) or both are NaN, and the PCC of output and golden (non-finite lanes as
0) is above 0.99, unless every |golden| is below 1e-6 (tt-metal ``tt_metal/tt-llk/tests/
python_tests/helpers/utils.py`` ``passed_test``, index id 68353825188). sfpu-sim predicts that
verdict, and the figures behind it: the largest |golden - output|, the rtol the worst lane
needs beside the row's atol, the PCC.

Stimuli (``sfpu_binary``, test_eltwise_binary_sfpu.py, index id 58031140234; the domains of
sfpu_domains.py, index id 57934496196, each rewritten by its undefined-range hole into the
interval sampler's form, :class:`~sfpu_sim.parity.binary_stimuli.IntervalDraw`): xlogy x from
uniform(0, 8), y log-uniform over [1e-4, 10]; pow's base from [1e-6, 8] (the interval
sampler), exponent uniform(0, 4); the driver's own ``torch.manual_seed(0)`` draw, reproduced
(:func:`~sfpu_sim.parity.binary_stimuli.driver_sample`; torch's float32 exp of the log-uniform
draw stood in for by the correctly rounded one).

Golden (``BinarySFPUGolden``, index id 70141771977): ``x * log(y)`` and ``x ** y`` in float32
(torch's float32 log and pow stood in for by numpy's), cast to the Dst's format (FP32 with an
FP32 Dst, else Float16 where Float16 is in play, else BF16) and to the input format, nearest
even, then to the output format. The comparison is made here in float64 on the values cast to
the output format (torch's in the output dtype), which the margins of these tolerances do not
feel.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sfpu_sim import formats, registry
from sfpu_sim.binary_device import run_binary_device
from sfpu_sim.parity.binary_stimuli import IntervalDraw, driver_sample
from sfpu_sim.parity.device_table import SHORT_NAMES
from sfpu_sim.sweeps import DevicePath

DEFAULT_TOLERANCE = 0.05          # passed_test's atol and rtol for Float16, Float16_b, Float32
PCC_TARGET, PCC_SIGNAL_FLOOR = 0.99, 1e-6
DRIVER = ("tt-metal tt_metal/tt-llk/tests/python_tests/test_eltwise_binary_sfpu.py sfpu_binary "
          "(index id 58031140234)")


def _xlogy32(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return x * np.log(y)


def _pow32(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.power(x, y)


@dataclass(frozen=True)
class ToleranceRow:
    """One op: its kernel (either Dst: one program), its stimuli, its float32 golden."""
    function: str
    kernel: str
    domain_x: object
    domain_y: object
    golden: object


TOLERANCE_ROWS = {
    "SfpuXlogy": ToleranceRow("xlogy", "binary_xlogy_2026_09", ((0.0, 8.0),),
                              IntervalDraw(((1e-4, 10.0),), log=True), _xlogy32),
    "SfpuElwpow": ToleranceRow("pow", "binary_pow_2026_09", IntervalDraw(((1e-6, 8.0),)),
                               ((0.0, 4.0),), _pow32),
}
# The cells the driver runs that sfpu-sim's device path models: (in, out, dest); Float32
# inputs with an FP32 Dst only, Float16 in and out together (Bfp8_b inputs are skipped for
# these two ops; Blackhole skips Float16 with a 16-bit Dst).
CELLS = (("Float16_b", "Float16_b", "No"), ("Float16_b", "Float16_b", "Yes"),
         ("Float16_b", "Float32", "No"), ("Float16_b", "Float32", "Yes"),
         ("Float16", "Float16", "No"), ("Float16", "Float16", "Yes"),
         ("Float32", "Float32", "Yes"), ("Float32", "Float16_b", "Yes"))


@dataclass(frozen=True)
class ToleranceCell:
    """A cell's verdict and the figures behind it."""
    row: str
    cell: tuple                 # (in, out, dest, chip)
    kernel: str
    atol: float
    rtol: float
    lanes: int
    failing: int
    max_error: float            # the largest |golden - output| over lanes not both NaN
    needed_rtol: float          # what the worst lane needs beside atol (0: atol suffices)
    pcc: float | None           # None: every |golden| is below the signal floor
    worst: dict

    @property
    def passes(self) -> bool:
        return self.failing == 0 and (self.pcc is None or self.pcc > PCC_TARGET)


def harness_golden(function: str, x, y, path: DevicePath) -> np.ndarray:
    """``BinarySFPUGolden`` in the output format, as float64 (module docstring)."""
    row = next(r for r in TOLERANCE_ROWS.values() if r.function == function)
    xs, ys = (formats.bits_to_float64(b, path.input_format).astype(np.float32) for b in (x, y))
    value = row.golden(xs, ys).astype(np.float64)
    dst = "fp32" if path.dest == "fp32" else \
        "fp16" if "fp16" in (path.input_format, path.output_format) else "bf16"
    for fmt in (dst, path.input_format, path.output_format):
        value = formats.bits_to_float64(formats.round_values(value, "rne", fmt, ftz=False), fmt)
    return value


def tolerance_cell(op: str, fmt_in: str, fmt_out: str, dest: str, arch: str,
                   atol: float | None, rtol: float | None) -> ToleranceCell:
    """The harness's gate on one cell (formats by their DataFormat names, dest "No"/"Yes"),
    with the row's ``atol`` and ``rtol`` (None: the default)."""
    spec = TOLERANCE_ROWS[op]
    path = DevicePath(SHORT_NAMES[fmt_in], SHORT_NAMES[fmt_out],
                      "fp32" if dest == "Yes" else "bf16")
    x, y = driver_sample(spec.domain_x, spec.domain_y, path.input_format)
    run = run_binary_device(registry.get(spec.kernel).program(arch), x, y, path)
    golden = harness_golden(spec.function, x, y, path)
    output = formats.bits_to_float64(run.output, path.output_format)
    atol = DEFAULT_TOLERANCE if atol is None else atol
    rtol = DEFAULT_TOLERANCE if rtol is None else rtol
    both_nan = np.isnan(golden) & np.isnan(output)
    with np.errstate(invalid="ignore", divide="ignore"):
        error = np.where(both_nan, 0.0, np.abs(golden - output))
        close = both_nan | (error <= atol + rtol * np.abs(output)) | (golden == output)
        needed = np.where(error <= atol, 0.0, (error - atol) / np.abs(output))
    worst = int(np.nanargmax(np.where(np.isnan(error), np.inf, error)))
    pcc = None
    if np.nanmax(np.abs(golden)) >= PCC_SIGNAL_FLOOR:
        a, b = (np.where(np.isfinite(v), v, 0.0) for v in (output, golden))
        pcc = float(np.corrcoef(a, b)[0, 1])
    values = {name: float(v) for name, v in (
        ("x", formats.bits_to_float64(x[worst:worst + 1], path.input_format)[0]),
        ("y", formats.bits_to_float64(y[worst:worst + 1], path.input_format)[0]),
        ("output", output[worst]), ("golden", golden[worst]))}
    return ToleranceCell(op, (fmt_in, fmt_out, dest, arch), spec.kernel, atol, rtol, x.size,
                         int((~close).sum()), float(error[worst]),
                         float(np.nanmax(needed)), pcc, values)


@dataclass
class ToleranceCheck:
    """``budget --check``'s verdict on one tolerance row: the cells it wins, each run."""
    row: object
    cells: list = field(default_factory=list)          # (in, out, dest, chip)
    results: list = field(default_factory=list)
    reason: str | None = None
    differs = False                                    # the rows record no figure

    @property
    def over(self) -> bool:
        return any(not cell.passes for cell in self.results)

    def worst(self, chip: str | None = None):
        return None

    def run(self, progress=None) -> None:
        for fmt_in, fmt_out, dest, chip in self.cells:
            if progress:
                progress(f"{self.row.op} {fmt_in} -> {fmt_out} dest={dest} on {chip}")
            self.results.append(tolerance_cell(self.row.op, fmt_in, fmt_out, dest, chip,
                                               self.row.contract.get("atol"),
                                               self.row.contract.get("rtol")))


def plan(budget, op: str, chips) -> list[ToleranceCheck]:
    """The tolerance rows of ``op`` with the cells each wins (the harness's resolution of
    :meth:`~sfpu_sim.parity.budget_file.BudgetFile.winner`); a ULP row of these ops would
    have no figure to compare, and says so."""
    checks = {id(row): ToleranceCheck(row) for row in budget.ops[op]}
    for fmt_in, fmt_out, dest in CELLS:
        for chip in chips:
            if chip == "blackhole" and fmt_in == "Float16" and dest == "No":
                continue
            row = budget.winner(op, {"in": fmt_in, "out": fmt_out, "approx": "No",
                                     "dest": dest, "arch": chip})
            if row is not None and row.metric == "tolerance":
                checks[id(row)].cells.append((fmt_in, fmt_out, dest, chip))
    for check in checks.values():
        if not check.cells:
            check.reason = ("sfpu-sim predicts the harness's tolerance verdict for these ops, "
                            "not a step figure" if check.row.metric == "ulp" else
                            "it wins no cell sfpu-sim runs (Float16_b, Float16, Float32 in "
                            "and out, Float16_b <-> Float32)")
    return list(checks.values())


def report_lines(checks: list) -> tuple[list[str], list[str]]:
    """The lines of the tolerance rows among ``checks``, one a checked row (the verdict, the
    worst cell's figures, the gate applied): (rows that fail, rows that pass)."""
    lines = []
    checks = [c for c in checks if isinstance(c, ToleranceCheck)]
    for check in checks:
        if not check.results:
            continue
        failed = [c for c in check.results if not c.passes]
        shown = max(failed or check.results, key=lambda c: c.needed_rtol)
        fmt_in, fmt_out, dest, chip = shown.cell
        pccs = [c.pcc for c in check.results if c.pcc is not None]
        verdict = f"fails tolerance in {len(failed)} cell(s)" if failed else \
            f"within tolerance in {len(check.results)} cell(s)"
        pcc = f"PCC min {min(pccs):.5f}" if pccs else "PCC not applied"
        lines.append(
            f"{'over budget' if failed else 'within budget'}: {check.row.describe()}: "
            f"{verdict} (atol {shown.atol:g}, rtol {shown.rtol:g}); worst {fmt_in} -> "
            f"{fmt_out} dest {dest} on {chip}: |golden - output| {shown.max_error:.4g} at "
            f"x = {shown.worst['x']:.6g}, y = {shown.worst['y']:.6g}, needs rtol "
            f"{shown.needed_rtol:.4f}; {shown.failing} of {shown.lanes} lanes fail; {pcc}")
    return ([v for v in lines if v.startswith("over")],
            [v for v in lines if v.startswith("within")])
