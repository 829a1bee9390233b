"""The accuracy driver's own pairs for a binary kernel (``sweep`` and ``report`` with
``--harness-sample``): the row of Tenstorrent's accuracy table that runs the kernel, the (x, y)
patterns its driver draws for an input format, and that cell's figure as the harness measures it.

Owns: finding a kernel's row (:data:`~sfpu_sim.parity.binary_rows.BINARY_ROWS`, and the
tolerance rows of :mod:`sfpu_sim.parity.tolerance_rows`), which of its
stimuli can be given as pairs, and why not where they cannot. The draw itself is
:mod:`sfpu_sim.parity.binary_stimuli`'s; the cell's figure is
:func:`~sfpu_sim.parity.binary_rows.cell`'s.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sfpu_sim.parity import device_table
from sfpu_sim.parity.binary_rows import BINARY_ROWS, TOLERANCE_ONLY, BinaryRowError, cell
from sfpu_sim.parity.binary_stimuli import crafted_patterns, domain_text, driver_sample
from sfpu_sim.parity.tolerance_rows import DRIVER as TOLERANCE_DRIVER
from sfpu_sim.parity.tolerance_rows import TOLERANCE_ROWS


@dataclass(frozen=True)
class HarnessSample:
    """A row's pairs for one input format, and what they are."""
    row: str
    x: np.ndarray
    y: np.ndarray
    text: str


def row_of(kernel: str) -> str:
    """The binary row whose driver runs ``kernel`` at either Dst mode."""
    rows = [row for row, spec in BINARY_ROWS.items() if kernel in spec.kernels.values()]
    rows += [row for row, spec in TOLERANCE_ROWS.items() if spec.kernel == kernel]
    if not rows:
        runnable = sorted({name for row, spec in BINARY_ROWS.items() if not spec.domain_z
                           and spec.scalar is None for name in spec.kernels.values()} |
                          {spec.kernel for spec in TOLERANCE_ROWS.values()})
        raise BinaryRowError(f"--harness-sample: no binary row of Tenstorrent's accuracy table "
                             f"runs {kernel} (its kernels: {', '.join(runnable)})")
    return rows[0]


def harness_sample(kernel: str, input_format: str, dest: str) -> HarnessSample:
    """The pairs the accuracy driver feeds ``kernel``'s row in ``input_format`` (``dest``: the
    sweep's Dst, bf16 or fp32): its reproduced random draw, or its crafted pairs."""
    row = row_of(kernel)
    if input_format == "fp32" and dest != "fp32":
        raise BinaryRowError("--harness-sample --in fp32: the driver runs Float32 inputs with "
                             "an FP32 Dst only (add --dest fp32)")
    if row in TOLERANCE_ROWS:                # drawn in every format the device path runs
        spec = TOLERANCE_ROWS[row]
        x, y = driver_sample(spec.domain_x, spec.domain_y, input_format)
        return HarnessSample(row, x, y, f"{row}'s {x.size:,} pairs in "
                                        f"{device_table.FORMAT_NAMES[input_format]}: the "
                                        f"driver's own draw, reproduced (torch.manual_seed(0)): "
                                        f"x from {domain_text(spec.domain_x)}, y from "
                                        f"{domain_text(spec.domain_y)} ({TOLERANCE_DRIVER})")
    spec = BINARY_ROWS[row]
    if spec.scalar is not None:
        raise BinaryRowError(f"--harness-sample: {row}'s driver draws x alone (y is the kernel's "
                             f"parameter, {spec.scalar:g}), and its draw is not reproduced: "
                             f"sweep every x at that y (give no --harness-sample)")
    ran = [*spec.formats, *(("fp32",) if spec.fp32_predicted else ())]
    if input_format not in ran:
        raise BinaryRowError(f"--harness-sample: the driver runs {row} on "
                             f"{', '.join(device_table.FORMAT_NAMES[f] for f in ran)} only, "
                             f"not --in {input_format}")
    if spec.crafted:
        x, y = crafted_patterns(spec.crafted, input_format)
    else:
        x, y = driver_sample(spec.domain_x, spec.domain_y, input_format)
    return HarnessSample(row, x, y, f"{row}'s {x.size:,} pairs in "
                                    f"{device_table.FORMAT_NAMES[input_format]}: "
                                    f"{spec.stimuli} ({spec.source})")


def harness_figure(sample: HarnessSample, kernel: str, input_format: str, output_format: str,
                   dest: str, arch: str) -> dict:
    """The cell's figure as the harness measures it (its golden, subnormal outputs as zero):
    ``{"row", "max_ulp", "lanes"}``, or ``{"row", "reason"}`` where there is no such cell or
    the harness runs another kernel at this Dst."""
    if sample.row in TOLERANCE_ROWS:
        return {"row": sample.row, "reason": TOLERANCE_ONLY}
    spec = BINARY_ROWS[sample.row]
    label = "Yes" if dest == "fp32" else "No"
    reason = spec.why_no_cell(arch, input_format, label, output_format)
    if reason is None and spec.kernels.get(label) != kernel:
        reason = f"at dest={label} the harness runs {spec.kernels.get(label)}, not {kernel}"
    if reason is not None:
        return {"row": sample.row, "reason": reason}
    try:
        found = cell(sample.row, input_format, label, arch, output_format=output_format)
    except BinaryRowError as error:
        return {"row": sample.row, "reason": str(error)}
    return {"row": sample.row, "dest": label, "max_ulp": found.max_ulp, "lanes": found.lanes}
