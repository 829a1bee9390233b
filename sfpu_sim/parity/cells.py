"""Predict a cell of Tenstorrent's accuracy table as the harness measures it.

tt-llk's sweep (``test_unary_sfpu_ulp.py`` with ``helpers/ulp_sweep.py`` and ``helpers/ulp.py``,
read in the stored versions closest to the yaml at 01d9b424):

* Inputs: every finite Float16_b or Float16 value (one device run of 64 tiles), or the strided
  Float32 walk (:func:`harness_fp32_walk`); nothing is clipped to the op's domain.
* The kernel: the instantiation for the cell's Dst mode (``is_fp32_dest_acc_en`` = dest), through
  unpack, SFPLOAD, SFPSTORE and the packer (:mod:`sfpu_sim.sweeps`). A Float32 input with a
  16-bit Dst is truncated to BF16 on the way into Dst, and so is the golden's input.
* The golden: :mod:`sfpu_sim.parity.golden`.
* The distance: the signed rank of ``helpers/ulp.py`` with the subnormal band collapsed, for every
  format (the sweep passes ``FLUSH_SUBNORMAL_OUTPUTS = True``, Float16 included): +0 and -0 are
  0 apart, an infinity ranks one past the largest finite value. Two rows' Float16 cells
  (GeluAppx, SigmoidAppx) read exactly 1,023 or 2,046 steps above what their program gives under
  that rank, and exactly that under ``ulp.py``'s Float16 default, where each FP16 subnormal is
  a step (``Op.fp16_subnormals_ranked``).
* The figure: the largest distance over the lanes whose input is normal and where neither side
  is NaN and the two agree about being finite. Lanes that disagree about being finite make the
  device's cell "not measurable" unless the harness excuses them (singularities, claim limits,
  tracked issues, which are not modelled): they are counted apart, ``nonfinite``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sfpu_sim import formats, registry, ulp
from sfpu_sim.fp32sweep.walk import KEY_MAX_FINITE, stride_patterns
from sfpu_sim.parity import golden as goldens
from sfpu_sim.sweeps import DevicePath, run_device


@dataclass(frozen=True)
class Prediction:
    """A predicted cell: ``max_ulp`` over ``lanes`` measured lanes (None if none), the worst
    lane's input, output and golden patterns, ``nonfinite`` lanes apart, and what ran."""
    row: str
    input_format: str
    output_format: str
    dest: str
    arch: str
    max_ulp: int | None
    lanes: int
    nonfinite: int
    worst: dict | None
    kernel: str
    instantiation: str
    golden: str
    floored_max: int | None = None


def _hex(bits, fmt: str) -> str:
    return f"{int(bits):#0{10 if fmt == 'fp32' else 6}x}"


def largest_golden(gold, out_fmt: str, counted) -> np.float32:
    """The largest finite |golden| (FP32) over the counted lanes: the scale of the floor."""
    g = formats.bits_to_float64(gold, out_fmt).astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.abs(g[counted & np.isfinite(g)]).max(initial=np.float32(0))


def near_zero_band(gold, device, out_fmt: str, counted, atol: float,
                   largest=None) -> np.ndarray:
    """The lanes ``helpers/ulp.py``'s ``near_zero_atol`` floor may hold: golden below 1% of the
    largest finite |golden| over the counted lanes (``largest``: that figure when the lanes
    given are only some of them, e.g. a chunk), at most ``atol / 0.01`` in magnitude, and
    ``|result - golden| <= atol`` (all in FP32)."""
    g = formats.bits_to_float64(gold, out_fmt).astype(np.float32)
    r = formats.bits_to_float64(device, out_fmt).astype(np.float32)
    if largest is None:
        largest = largest_golden(gold, out_fmt, counted)
    largest = np.float32(largest)
    with np.errstate(invalid="ignore", over="ignore"):
        small = (np.abs(g) < np.float32(0.01) * largest) & \
            (np.abs(g) <= np.float32(atol) / np.float32(0.01))
        return counted & small & (np.abs((r - g).astype(np.float32)) <= np.float32(atol))


def near_zero_rescued(gold, device, out_fmt: str, counted, atol: float, distance,
                      budget: int, largest=None) -> np.ndarray:
    """The lanes the floor rescues (tt-llk ``helpers/ulp.py`` ``ulp_elementwise_valid``,
    index id 68379422106): those of :func:`near_zero_band` over the ``budget``. A lane in the
    band and within budget is not rescued, and the gate's message ranks it: the figure
    "outside the floor" depends on the budget it was read at."""
    return near_zero_band(gold, device, out_fmt, counted, atol, largest) & \
        (distance > budget)


def _counted(x_bits, in_fmt, device, gold, out_fmt, flush: bool):
    """(distance result, lanes whose input is normal, lanes counted) of a cell's lanes."""
    result = ulp.distance(gold, device, "daz-index", fmt=out_fmt, flush_subnormals=flush)
    normal = formats.classify(x_bits, formats.FORMATS[in_fmt]) == formats.FloatClass.NORMAL
    return result, normal, normal & result.counted


def floor_scale(x_bits, in_fmt, device, gold, out_fmt, flush: bool = True) -> np.float32:
    """:func:`largest_golden` over the lanes :func:`_score` counts."""
    return largest_golden(gold, out_fmt, _counted(x_bits, in_fmt, device, gold, out_fmt,
                                                  flush)[2])


def _score(x_bits, in_fmt, device, gold, out_fmt, flush: bool = True,
           near_zero_atol: float | None = None, budget: int | None = None,
           largest=None) -> tuple:
    """(max, lanes, nonfinite, worst row) of one cell's lanes (module docstring); ``flush``:
    the output's subnormals rank as 0; ``near_zero_atol`` with ``budget``: leave out the lanes
    that floor rescues at that budget (the figure "outside near_zero_atol"), its scale
    ``largest`` (:func:`floor_scale` of all the cell's lanes) when these are only a chunk."""
    result, normal, counted = _counted(x_bits, in_fmt, device, gold, out_fmt, flush)
    if near_zero_atol is not None:
        counted = counted & ~near_zero_rescued(gold, device, out_fmt, counted, near_zero_atol,
                                               result.distance, budget, largest)
    nonfinite = int((normal & (result.lane_class == ulp.LaneClass.NONFINITE_MISMATCH)).sum())
    if not counted.any():
        return None, 0, nonfinite, None
    distance = np.where(counted, result.distance, -1)
    k = int(np.argmax(distance))
    worst = {"input_bits": _hex(x_bits[k], in_fmt),
             "input": float(formats.bits_to_float64(x_bits[k], in_fmt)),
             "output_bits": _hex(device[k], out_fmt),
             "output": float(formats.bits_to_float64(device[k], out_fmt)),
             "golden_bits": _hex(gold[k], out_fmt),
             "golden": float(formats.bits_to_float64(gold[k], out_fmt))}
    return int(distance[k]), int(counted.sum()), nonfinite, worst


HARNESS_FP32_STRIDE = (1 << 16) + 1


def harness_fp32_walk() -> np.ndarray:
    """The Float32 inputs of the table's rows: ``helpers/ulp_sweep.py``'s walk with
    ``_FP32_STRIDE = 2**16 + 1`` (filipkarlov-alt/tt-metal @00ba114, the version whose emitter
    writes the yaml's row format: "2**16+1 keeps the count at 65,279 and walks the low bits
    through every value"), a plain stride through FP32's total-order key from -inf (key
    ``-2**31 - bits`` for a negative pattern), 65,280 samples less the non-finite one: 65,279
    values. It is not the golden-ratio walk of ``sfpu_sim.fp32sweep.walk.Strided`` (a later
    structured.py): the table's FP32 figures of Erf (53,672), Softplus (995,553,332) and GELU's
    LUT (1,956,491,196), 0-cell rows of kernels read at their source, come out of this walk
    exactly and not out of that one."""
    low = -KEY_MAX_FINITE - 1                                       # the key of -inf
    count = min(1 << 16, (2 * (KEY_MAX_FINITE + 1)) // HARNESS_FP32_STRIDE + 1)
    bits = stride_patterns(low, 0, count, HARNESS_FP32_STRIDE, phased=False)
    return bits[formats.is_finite(bits, formats.FP32)]


def fp32_lanes(op, program, x, out_fmt: str, dest: str, golden_of=None,
               keep_set: bool = False) -> tuple:
    """(device output, golden) patterns of FP32 input patterns ``x`` in a Float32 cell of
    ``op`` with Dst mode ``dest``, ``program`` being that mode's instantiation. ``golden_of``:
    where given, the golden of FP32 inputs in an FP32 Dst (a faster equal of
    :func:`~sfpu_sim.parity.golden.golden`). ``keep_set``: ``x`` is the harness walk, whose
    certified golden (and a torch golden's inner FP32 values) is kept on disk: it recurs in
    every cell."""
    if dest == "Yes":
        run = run_device(program, x, DevicePath("fp32", out_fmt, "fp32"), fp32_inputs=True)
        gold = golden_of(x) if golden_of is not None else \
            goldens.golden(op.golden, op.function, x, "fp32", out_fmt, dest, keep_set)
        return run.output, gold
    # 16-bit Dst: the unpacked input keeps its top 16 bits (a BF16 value); the output
    # leaves a BF16 Dst, widened exactly to FP32.
    x16 = (x >> np.uint32(16)).astype(np.uint16)
    device = run_device(program, x16, DevicePath("bf16", out_fmt, "bf16")).output
    gold = goldens.golden(op.golden, op.function, x16, "bf16", "bf16", dest, keep_set)
    return device, formats.bf16_to_fp32_bits(gold) if out_fmt == "fp32" else gold


# The (in, out) DataFormat names of the unary cells predicted: the same format in and out, and
# every mixed pair of the three (sweeps.DevicePath; unmodelled_cell names the Dst modes not
# modelled).
FORMAT_PAIRS = (("Float16_b", "Float16_b"), ("Float16", "Float16"), ("Float32", "Float32"),
                ("Float16_b", "Float32"), ("Float32", "Float16_b"), ("Float16", "Float32"),
                ("Float16", "Float16_b"), ("Float16_b", "Float16"), ("Float32", "Float16"))


def unmodelled_cell(fmt_in: str, fmt_out: str, dest: str) -> str | None:
    """Why a cell's device path is not modelled (DataFormat names, dest "No"/"Yes"), or None:
    a 16-bit Dst between Float16 and another 16-bit format (the packer's FP16 <-> BF16 cell
    conversion, and a Float32 input narrowed into FP16 cells)."""
    if dest == "No" and "Float16" in (fmt_in, fmt_out) and fmt_in != fmt_out and \
            fmt_out != "Float32":
        return (f"{fmt_in} -> {fmt_out} through a 16-bit Dst: the conversion between FP16 and "
                f"BF16 or FP32 cells there is not modelled")
    return None


def predict(op, cell: tuple[str, str, str], arch: str,
            near_zero_atol: float | None = None, budget: int | None = None) -> Prediction:
    """The cell ``(input format, output format, dest "No"/"Yes")`` of ``op`` on ``arch``;
    with ``near_zero_atol`` and ``budget`` (a row's floor and max_ulp) also the maximum
    outside that floor, as the gate reports it at that budget."""
    in_fmt, out_fmt, dest = cell
    spec = registry.get(op.kernels[dest])
    instance = registry.for_dest(spec, "fp32" if dest == "Yes" else "bf16")
    program = instance.spec.program(arch)
    if in_fmt == "fp32":
        x = harness_fp32_walk()
        device, gold = fp32_lanes(op, program, x, out_fmt, dest, keep_set=True)
    else:
        x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
        path = DevicePath(in_fmt, out_fmt, "fp32" if dest == "Yes" else "bf16")
        device = run_device(program, x, path).output
        gold = goldens.golden(op.golden, op.function, x, in_fmt, out_fmt, dest, keep_set=True)
    flush = not (out_fmt == "fp16" and op.fp16_subnormals_ranked)
    top, lanes, nonfinite, worst = _score(x, in_fmt, device, gold, out_fmt, flush)
    if near_zero_atol is not None and budget is None:
        raise ValueError("a near_zero_atol floor is applied at a budget: give budget=")
    floored = None if near_zero_atol is None else \
        _score(x, in_fmt, device, gold, out_fmt, flush, near_zero_atol, budget)[0]
    return Prediction(op.row, in_fmt, out_fmt, dest, arch, top, lanes, nonfinite, worst,
                      instance.spec.name, instance.spec.instantiation or instance.note,
                      op.golden, floored)
