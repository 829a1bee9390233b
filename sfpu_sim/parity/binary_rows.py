"""The accuracy table's binary SFPU rows: the worst lane over every operand pair of the harness's
input domain, on the kernel the harness runs.

The table's binary rows (``SfpuElwadd`` ... ``SfpuElwdiv``, "sampled driver sweeps, Wormhole,
2026-09-21") come from tt-llk's binary SFPU test, which draws each operand uniformly from a
per-op domain (tt-metal ``tt_metal/tt-llk/tests/python_tests/helpers/`` operation-domain registry,
index id 57934496196, ``_OP_DOMAIN_REGISTRY``): SfpuElwadd, SfpuElwsub, SfpuElwrsub and
SfpuElwmul take both operands from [-1, 1]; SfpuElwdiv takes the dividend from [-2, 2] and the
divisor from [-10, -0.1] U [0.1, 10]. The draw (seed, tile count) is not reproduced here, so a
cell's figure is the exhaustive maximum instead: every pair of normal input-format values in the
domain, which bounds any sample of it from above.

Each pair runs through the device path of :mod:`sfpu_sim.binary_device` (in0 = x at Dst tile 0,
in1 = y at tile 1) with the cell's Dst mode, and is scored as the unary cells are
(:mod:`sfpu_sim.parity.cells`): the daz-index distance from the correctly rounded (nearest even)
:func:`~sfpu_sim.reference.binary_functions.binary_reference`, subnormal outputs ranked as zero,
counted where neither side is NaN and both agree about being finite.
"""
from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass

import numpy as np

from sfpu_sim import formats, registry, threads, ulp
from sfpu_sim.binary_device import PAIRS_PER_RUN, run_binary_device
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.fp32sweep.run import MEMORY_CAP, PROCESS_BYTES
from sfpu_sim.reference.binary_functions import binary_reference
from sfpu_sim.sweeps import DevicePath

DOMAIN_SOURCE = ("tt-metal tt_metal/tt-llk/tests/python_tests/helpers operation-domain registry "
                 "(index id 57934496196), _OP_DOMAIN_REGISTRY")
UNIT = ((-1.0, 1.0),)


@dataclass(frozen=True)
class BinaryRow:
    """One binary row's op: the function, the kernel per Dst mode (None: not modelled, with the
    reason), and the two operands' domains (closed intervals)."""
    function: str
    kernels: dict
    domain_x: tuple
    domain_y: tuple
    unmodelled: str = ""


# The harness's call for each op (tt-metal tt_metal/tt-llk/tests/helpers/include/
# sfpu_operations.h, index id 54491740591): calculate_sfpu_binary<APPROX, BINOP, 8> for
# ADD/SUB/RSUB/MUL (one program for either Dst), calculate_sfpu_binary_div<..., DST_ACCUM_MODE>.
_FP32_DIV = "calculate_sfpu_binary_div's FP32-Dst arm is not modelled yet"
BINARY_ROWS = {
    "SfpuElwadd": BinaryRow("add", {"No": "binary_add_2026_09", "Yes": "binary_add_2026_09"},
                            UNIT, UNIT),
    "SfpuElwsub": BinaryRow("sub", {"No": "binary_sub_2026_09", "Yes": "binary_sub_2026_09"},
                            UNIT, UNIT),
    "SfpuElwrsub": BinaryRow("rsub", {"No": "binary_rsub_2026_09",
                                      "Yes": "binary_rsub_2026_09"}, UNIT, UNIT),
    "SfpuElwmul": BinaryRow("mul", {"No": "binary_mul_2026_09", "Yes": "binary_mul_2026_09"},
                            UNIT, UNIT),
    "SfpuElwdiv": BinaryRow("div", {"No": "binary_div_2026_09", "Yes": None},
                            ((-2.0, 2.0),), ((-10.0, -0.1), (0.1, 10.0)), _FP32_DIV),
}


class BinaryRowError(SfpuSimError):
    pass


@dataclass(frozen=True)
class BinaryCell:
    """A cell's exhaustive maximum: ``max_ulp`` over ``lanes`` counted pairs, ``nonfinite``
    pairs apart, the worst pair, what ran; ``max_ulp_normal``: the same over the pairs whose
    golden and output are both normal (no flush to zero at the underflow boundary, which the
    harness's draws from these domains hardly reach)."""
    row: str
    input_format: str
    dest: str
    arch: str
    kernel: str
    max_ulp: int | None
    lanes: int
    nonfinite: int
    worst: dict | None
    max_ulp_normal: int | None = None


# A device run of PAIRS_PER_RUN pairs holds about this much (binary_device: ~0.4 GiB), and
# the FP32 sweep's cap applies: 2 GiB with the process.
RUN_BYTES = 400 << 20


def _width() -> int:
    """Runs side by side: one per thread, as many as the cap holds."""
    return max(1, min(threads.threads(), (MEMORY_CAP - PROCESS_BYTES) // RUN_BYTES))


def domain_patterns(intervals, input_format: str) -> np.ndarray:
    """Every normal pattern of the 16-bit input format whose value lies in one of the closed
    ``intervals``, ascending by pattern."""
    every = np.arange(1 << 16, dtype=np.uint32).astype(formats.FORMATS[input_format].dtype)
    values = formats.bits_to_float64(every, input_format)
    normal = formats.classify(every, formats.FORMATS[input_format]) == formats.FloatClass.NORMAL
    inside = np.zeros(every.size, dtype=bool)
    for low, high in intervals:
        inside |= (values >= low) & (values <= high)
    return every[normal & inside]


def exhaustive_cell(row: str, input_format: str, dest: str, arch: str, *,
                    domain_x=None, domain_y=None, progress=None) -> BinaryCell:
    """The largest distance over every pair of the row's domain (or ``domain_x``/``domain_y``
    instead: interval tuples) for one cell (input = output format, ``dest`` "No"/"Yes")."""
    if row not in BINARY_ROWS:
        raise BinaryRowError(f"unknown binary row {row!r} (modelled: {', '.join(BINARY_ROWS)})")
    if input_format not in ("bf16", "fp16") or dest not in ("No", "Yes"):
        raise BinaryRowError(f"{row}: cells are bf16 or fp16 with dest No or Yes, not "
                             f"{input_format} dest={dest}")
    spec = BINARY_ROWS[row]
    kernel = spec.kernels[dest]
    if kernel is None:
        raise BinaryRowError(f"{row} dest={dest}: {spec.unmodelled}")
    program = registry.get(kernel).program(arch)
    path = DevicePath(input_format, input_format, "fp32" if dest == "Yes" else "bf16")
    x = domain_patterns(domain_x or spec.domain_x, input_format)
    y = domain_patterns(domain_y or spec.domain_y, input_format)
    out_format = formats.FORMATS[input_format]
    step = max(1, PAIRS_PER_RUN // x.size)

    def scored(start):
        """(largest distance, its first pair, largest over normal pairs, lanes counted,
        non-finite mismatches) of the pairs with y in ``y[start:start + step]``."""
        y_chunk = y[start:start + step]
        xs, ys = np.tile(x, y_chunk.size), np.repeat(y_chunk, x.size)
        output = run_binary_device(program, xs, ys, path, engine="compiled").output
        gold, _ = binary_reference(spec.function, xs, ys, "rne", input_format=input_format,
                                   output_format=input_format)
        result = ulp.distance(gold, output, "daz-index", fmt=input_format,
                              flush_subnormals=True)
        distance = np.where(result.counted, result.distance, -1)
        both_normal = (formats.classify(gold, out_format) == formats.FloatClass.NORMAL) & \
            (formats.classify(output, out_format) == formats.FloatClass.NORMAL)
        k = int(np.argmax(distance))
        pair = {"x_bits": f"{int(xs[k]):#06x}", "y_bits": f"{int(ys[k]):#06x}",
                "output_bits": f"{int(output[k]):#06x}", "golden_bits": f"{int(gold[k]):#06x}"}
        return (int(distance[k]), pair, int(np.where(both_normal, distance, -1).max()),
                int(result.counted.sum()),
                int((result.lane_class == ulp.LaneClass.NONFINITE_MISMATCH).sum()))

    best, best_normal, lanes, nonfinite, worst = -1, -1, 0, 0, None
    starts = range(0, y.size, step)
    with closing(threads.in_order(scored, starts, _width())) as finished:
        for start, (top, pair, top_normal, counted, mismatched) in zip(starts, finished):
            if top > best:                  # the first pair of the largest distance
                best, worst = top, pair
            best_normal = max(best_normal, top_normal)
            lanes += counted
            nonfinite += mismatched
            if progress is not None:
                progress(min(start + step, y.size), y.size)
    return BinaryCell(row, input_format, dest, arch, kernel, best if lanes else None, lanes,
                      nonfinite, worst if lanes else None,
                      best_normal if best_normal >= 0 else None)
