"""The accuracy table's binary and ternary SFPU rows: the worst lane over the harness's operand
pairs (triples), on the kernel the harness runs.

The table's binary rows ("sampled driver sweeps, Wormhole, 2026-09-21") come from tt-llk's binary
SFPU driver (tt-metal ``tt_metal/tt-llk/tests/python_tests/test_eltwise_binary_sfpu.py``,
``sfpu_binary``, index id 58031140234) and its relatives, which feed each op a registered domain,
the format default, its own domain, crafted pairs or a ramp (:mod:`sfpu_sim.parity.binary_stimuli`).

The scalar rows (ScalarAdd, ScalarSub, ScalarMul, ScalarDiv, ScalarRsub; tt-llk's
``test_sfpu_binop_scalar.py``, index id 70311161519, "sampled" 2026-09-21) are binary rows whose
second operand is one value, the scalar the kernel is given as a parameter (2.0, and ScalarDiv's
divisor 2.0): x is drawn from [-1, 1] as above, Float16_b with a 16-bit Dst and Float32 with an
FP32 Dst.

The ternary rows (SfpuLerp, SfpuAddcmul, SfpuAddcdiv, SfpuSnakeBeta; ``test_sfpu_ternary.py``,
index id 70171254245) run the driver's own 4,096 triples (:func:`~sfpu_sim.parity.
binary_stimuli.ternary_sample`), c at Dst tile 2, against ``TernarySFPUGolden``'s FP32
arithmetic (:mod:`sfpu_sim.reference.ternary_functions`): the table's 0, 1, 3,072, 1, 1, 96,
1, 1,280 and (Wormhole) 1, 0, 4; addcdiv's Float16_b dest No reads 1 here, 0 on the device:
one lane on a BF16 midpoint, which the reciprocal's BF16-exact seed (metal
``sfpu_reciprocal_init``, Sep 2026) would put on the device's side (tests/test_ternary.py).

A drawn row's cells run the driver's own sample, its ``torch.manual_seed(0)`` draw rebuilt
without torch (:func:`~sfpu_sim.parity.binary_stimuli.driver_sample`): 16,384 pairs a cell (8,192
in Float32), so the Float32 cells are predicted too. On Wormhole that reproduces the table's
add, mul, div, max, min, atan2, fmod and remainder cells (fmod's and remainder's Float32 512
once ``a - trunc(q) * b`` is compiled as sfpi compiles it for Wormhole: the product rounded
alone, :func:`sfpu_sim.sfpi.passes._fuse_products`), and tt-metal's sampled Float16_b -> Float32
rows (div's 32,639 among them); sub and rsub disagree, unexplained
(tests/test_binary_sample.py). The bound on any sample, every pair the draw can produce, stays
available (``every_pair``). The crafted pairs and the ramp are reproduced exactly too.

Each pair runs through the device path of :mod:`sfpu_sim.binary_device` (in0 = x at Dst tile 0,
in1 = y at tile 1) with the cell's Dst mode, and is scored as the unary cells are
(:mod:`sfpu_sim.parity.cells`): the daz-index distance from the correctly rounded (nearest even)
:func:`~sfpu_sim.reference.binary_functions.binary_reference`, subnormal outputs ranked as zero,
counted where neither side is NaN and both agree about being finite. A full cell is up to a
billion pairs (minutes), so a cell computed over a row's own stimuli is kept in
``user_cache("binary-cells")`` (:mod:`sfpu_sim.cache_dirs`), keyed by the program's words, the
stimuli and the source of this module and of everything it imports.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sfpu_sim import engines, formats, registry, threads, ulp
from sfpu_sim.binary_device import PAIRS_PER_RUN, held_operand, run_binary_device
from sfpu_sim.cache_dirs import user_cache
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.fp32sweep.run import MEMORY_CAP, PROCESS_BYTES
from sfpu_sim.import_closure import imported_files
from sfpu_sim.parity import device_table
from sfpu_sim.parity.binary_stimuli import (ATAN2_DOMAIN, EQ_NE_PAIRS, FORMAT_DEFAULT,
                                            ISCLOSE_PAIRS, LOGSIGMOID_DRIVER,
                                            LOGSIGMOID_PAIRS, MASK_PAIRS,
                                            ORDER_PAIRS, UNIT, crafted_patterns,
                                            domain_patterns, domain_text, drawn_patterns,
                                            driver_sample, ternary_sample)
from sfpu_sim.parity.tolerance_rows import TOLERANCE_ROWS
from sfpu_sim.reference.binary_functions import binary_reference
from sfpu_sim.reference.ternary_functions import ternary_fp32
from sfpu_sim.report.files import ReportError, atomic_write
from sfpu_sim.sweeps import AUTO_COMPILE_WORK, DevicePath, program_hash

SCALAR_DRIVER = "tt-metal tt_metal/tt-llk/tests/python_tests/test_sfpu_binop_scalar.py " \
    "(index id 70311161519)"
TERNARY_DRIVER = ("tt-metal tt_metal/tt-llk/tests/python_tests/test_sfpu_ternary.py "
                  "test_sfpu_ternary (index id 70171254245)")
DRIVER = ("tt-metal tt_metal/tt-llk/tests/python_tests/test_eltwise_binary_sfpu.py sfpu_binary "
          "(index id 58031140234)")


@dataclass(frozen=True)
class BinaryRow:
    """One binary row's op: the function, the kernel per Dst mode, and its stimuli: the
    intervals of the driver's uniform draw for each operand, or the harness's crafted (x, y)
    value pairs."""
    function: str
    kernels: dict
    domain_x: tuple = ()
    domain_y: tuple = ()
    crafted: tuple = ()
    formats: tuple = ("bf16", "fp16")       # the 16-bit formats its driver runs
    driver: str = ""                        # what runs it, where not sfpu_binary's float sweep
    scalar: float | None = None             # y: this one value (the kernel's parameter)
    dests: tuple = ("No", "Yes")            # the Dst modes its driver runs the 16-bit formats in
    driver_source: str = ""                 # its driver's file and revision, where not DRIVER's
    crafted_text: str = ""                  # what its crafted pairs are, where not hand-made
    domain_z: tuple = ()                    # a ternary row's third operand (c)

    def why_no_cell(self, arch: str, input_format: str, dest: str,
                    output_format: str | None = None) -> str | None:
        """Why the driver has no cell (``input_format`` -> ``output_format``, the same where
        None; ``dest``) on ``arch``, or why sfpu-sim predicts none; None where it does."""
        output_format = output_format or input_format
        if output_format != input_format:
            if self.domain_z:
                return "the ternary driver measures its formats in and out alike"
            if (input_format, output_format) not in MIXED:
                return (f"{input_format} -> {output_format}: sfpu-sim predicts a binary op's "
                        f"Float16_b -> Float32 and Float32 -> Float16_b cells")
            if self.scalar is not None:
                return "the scalar rows' driver measures its formats in and out alike"
        if input_format == "fp32":
            if dest == "No":
                return "the driver runs Float32 inputs with an FP32 Dst only"
            return None if self.fp32_predicted else "no stimuli for Float32 pairs"
        if input_format not in self.formats:
            return (f"the driver runs it on "
                    f"{', '.join(device_table.FORMAT_NAMES[f] for f in self.formats)} "
                    f"and Float32 only ({self.driver})")
        if dest not in self.dests:
            return (f"the driver skips {device_table.FORMAT_NAMES[input_format]} with "
                    f"dest={dest} ({self.driver})")
        return no_cell(arch, input_format, dest)

    @property
    def sampled(self) -> bool:
        """Whether its cells run the driver's own random pairs, reproduced
        (:func:`~sfpu_sim.parity.binary_stimuli.driver_sample`): the rows sfpu_binary draws
        (not the scalar rows: their driver's draw is not reproduced)."""
        return bool(self.domain_x) and not self.crafted and self.scalar is None

    @property
    def fp32_predicted(self) -> bool:
        """Whether its Float32 cell is predicted: the harness's crafted pairs (the same values
        in FP32), its reproduced sample, or a scalar row's every drawn x (y is one value)."""
        return bool(self.crafted) or self.sampled or self.scalar is not None

    @property
    def cell_formats(self) -> list[tuple[str, str]]:
        """The (in, out) DataFormat names of the cells sfpu-sim predicts: Float16_b and Float16
        in and out, Float16_b -> Float32, and for a predicted Float32 input Float32 in and out
        and Float32 -> Float16_b."""
        fp32 = [("Float32", "Float32"), ("Float32", "Float16_b")] if self.fp32_predicted else []
        return [("Float16_b", "Float16_b"), ("Float16", "Float16"), ("Float16_b", "Float32"),
                *fp32]

    @property
    def source(self) -> str:
        """The driver's file (and function, where not ``sfpu_binary``), as provenance cites it."""
        if self.scalar is not None:
            return SCALAR_DRIVER
        if self.driver_source:
            return self.driver_source
        return DRIVER.replace("sfpu_binary", self.driver) if self.driver else DRIVER

    @property
    def stimuli(self) -> str:
        if self.crafted:
            return self.crafted_text or f"the harness's {len(self.crafted)} crafted pairs, exactly"
        if self.scalar is not None:
            return (f"every x the driver's draw can produce from "
                    f"{domain_text(self.domain_x)}, y = {self.scalar:g} (the scalar the "
                    f"kernel is given; the harness samples x)")
        third = f", c from {domain_text(self.domain_z)}" if self.domain_z else ""
        return (f"the driver's own draw, reproduced (torch.manual_seed(0)): "
                f"{'a' if third else 'x'} from {domain_text(self.domain_x)}, "
                f"{'b' if third else 'y'} from {domain_text(self.domain_y)}{third}, exactly")


# The harness's call for each op (tt-metal tt_metal/tt-llk/tests/helpers/include/
# sfpu_operations.h, index id 54491740591): calculate_sfpu_binary<APPROX, BINOP, 8> for
# ADD/SUB/RSUB/MUL (one program for either Dst), calculate_sfpu_binary_div<..., DST_ACCUM_MODE>.
BINARY_ROWS = {
    "SfpuElwadd": BinaryRow("add", {"No": "binary_add_2026_09", "Yes": "binary_add_2026_09"},
                            UNIT, UNIT),
    "SfpuElwsub": BinaryRow("sub", {"No": "binary_sub_2026_09", "Yes": "binary_sub_2026_09"},
                            UNIT, UNIT),
    "SfpuElwrsub": BinaryRow("rsub", {"No": "binary_rsub_2026_09",
                                      "Yes": "binary_rsub_2026_09"}, UNIT, UNIT),
    "SfpuElwmul": BinaryRow("mul", {"No": "binary_mul_2026_09", "Yes": "binary_mul_2026_09"},
                            UNIT, UNIT),
    "SfpuElwdiv": BinaryRow("div", {"No": "binary_div_2026_09",
                                    "Yes": "binary_div_fp32_2026_09"},
                            ((-2.0, 2.0),), ((-10.0, -0.1), (0.1, 10.0))),
    # calculate_binary_max_min<IS_MAX, 8>: one program for either Dst.
    **{f"SfpuBinary{name.title()}": BinaryRow(name, dict.fromkeys(
        ("No", "Yes"), f"binary_{name}_2026_09"), FORMAT_DEFAULT, FORMAT_DEFAULT)
       for name in ("max", "min")},
    # calculate_sfpu_binary_fmod / _remainder<APPROX, 8, DST_ACCUM_MODE>: BF16-rounded for a
    # 16-bit Dst, unrounded for an FP32 one.
    **{f"SfpuBinary{name.title()}": BinaryRow(name, {
        "No": f"binary_{name}_2026_09", "Yes": f"binary_{name}_fp32_2026_09"},
        FORMAT_DEFAULT, FORMAT_DEFAULT) for name in ("fmod", "remainder")},
    # calculate_sfpu_atan2<APPROX, 8, DST_ACCUM_MODE>: y = in0, x = in1, both uniform(-5, 5).
    "SfpuAtan2": BinaryRow("atan2", {"No": "binary_atan2_2026_09",
                                     "Yes": "binary_atan2_fp32_2026_09"},
                           ATAN2_DOMAIN, ATAN2_DOMAIN, formats=("bf16",),
                           driver="test_eltwise_binary_sfpu_atan2"),
    # calculate_sfpu_isclose<APPROX, 8, false>(rtol 1e-5, atol 1e-8): either Dst.
    "SfpuIsclose": BinaryRow("isclose", dict.fromkeys(("No", "Yes"), "binary_isclose_2026_09"),
                             crafted=ISCLOSE_PAIRS, formats=("bf16",),
                             driver="test_eltwise_binary_sfpu_isclose"),
    # calculate_mask_binary -> calculate_mask<APPROX, 8>: either Dst.
    "SfpuMask": BinaryRow("mask", dict.fromkeys(("No", "Yes"), "binary_mask_2026_09"),
                          crafted=MASK_PAIRS, formats=("bf16",),
                          driver="test_eltwise_binary_sfpu_mask"),
    # calculate_binary_comp_fp32<APPROX, 8, RELATIONAL_OP>: one program for either Dst.
    **{f"SfpuElw{name.title()}": BinaryRow(name, dict.fromkeys(
        ("No", "Yes"), f"binary_{name}_2026_09"),
        crafted=EQ_NE_PAIRS if name in ("eq", "ne") else ORDER_PAIRS)
       for name in ("eq", "ne", "lt", "le", "gt", "ge")},
    # calculate_logsigmoid<APPROX, 8>(in0, in1, out): either Dst. The driver's in1 is the ramp
    # again, not exp(-x): the kernel reads it only for x > 4, which the ramp never reaches.
    "SfpuLogsigmoid": BinaryRow(
        "logsigmoid", dict.fromkeys(("No", "Yes"), "binary_logsigmoid_2026_09"),
        crafted=LOGSIGMOID_PAIRS, formats=("bf16",), driver="test_eltwise_binary_sfpu_logsigmoid",
        driver_source=LOGSIGMOID_DRIVER,
        crafted_text="torch.linspace(-8, 3.9, 256) in every face, in0 and in1 alike (in1, "
                     "exp(-x) for ttnn, is read only for x > 4), exactly"),
    # The ternary rows (test_sfpu_ternary): a and b from uniform(-1, 1), c too, or from
    # uniform(1, 2) where the op divides by it (_ternary_default_specs).
    **{f"Sfpu{name.title()}": BinaryRow(name, {
        "No": f"ternary_{name}_2026_09", "Yes": f"ternary_{name}_fp32_2026_09"}, UNIT, UNIT,
        domain_z=((1.0, 2.0),) if name in ("addcdiv", "snake_beta") else UNIT,
        formats=("bf16",), driver="test_sfpu_ternary", driver_source=TERNARY_DRIVER)
       for name in ("lerp", "addcmul", "addcdiv")},
    "SfpuSnakeBeta": BinaryRow("snake_beta", {"No": "ternary_snake_beta_2026_09",
                                              "Yes": "ternary_snake_beta_fp32_2026_09"},
                               UNIT, UNIT, domain_z=((1.0, 2.0),), formats=("bf16",),
                               driver="test_sfpu_ternary", driver_source=TERNARY_DRIVER),
    # calculate_binop_with_scalar<APPROX, BINOP_MODE, 8, DST_ACCUM_MODE>(param): the scalar 2.0
    # (ScalarDiv's divisor 2.0, given inverted); only RSUB differs between the Dst modes.
    **{f"Scalar{name.title()}": BinaryRow(name, {
        "No": f"binop_scalar_{name}_2026_09",
        "Yes": f"binop_scalar_{name}{'_fp32' if name == 'rsub' else ''}_2026_09"},
        UNIT, formats=("bf16",), driver="test_sfpu_binop_scalar", scalar=2.0, dests=("No",))
       for name in ("add", "sub", "mul", "div", "rsub")},
}


TOLERANCE_ONLY = ("a tolerance row, no step figure to predict: `sfpu-sim budget --check FILE` "
                  "runs the harness's gate on it")


class BinaryRowError(SfpuSimError):
    pass


@dataclass(frozen=True)
class BinaryCell:
    """A cell's maximum: ``max_ulp`` over ``lanes`` counted pairs, ``nonfinite`` pairs apart,
    the worst pair, what ran; ``max_ulp_normal``: the same over the pairs whose golden and
    output are both normal (no flush to zero at the underflow boundary); ``exact``: the pairs
    are the harness's own (crafted stimuli), not the drawable pairs that bound its sample."""
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
    exact: bool = False
    output_format: str = ""                 # where not the input format


# A device run of PAIRS_PER_RUN pairs holds about this much (binary_device: ~0.4 GiB), and
# the FP32 sweep's cap applies: 2 GiB with the process.
RUN_BYTES = 400 << 20


def _width() -> int:
    """Runs side by side: one per thread, as many as the cap holds."""
    return max(1, min(threads.threads(), (MEMORY_CAP - PROCESS_BYTES) // RUN_BYTES))




# The mixed cells the driver runs (input_output_formats of Float16_b and Float32) that sfpu-sim
# predicts; Float16's widening to FP32 at the packer is not modelled (sweeps.DevicePath).
MIXED = (("bf16", "fp32"), ("fp32", "bf16"))


def harness_golden(function: str, xs, ys, path: DevicePath, zs=None) -> np.ndarray:
    """The binary driver's golden in the output format. ``BinarySFPUGolden`` (tt-metal
    ``tt_metal/tt-llk/tests/python_tests/helpers/golden_generators.py``, index id 70141771977)
    evaluates the op in FP32 and casts the result to the Dst's dtype and then to the *input*
    format's, both nearest even, whatever the output format; ``passed_test`` then casts it to
    the output format. So a Float16_b input's golden is the op rounded to BF16 (widened exactly
    for a wider output, rounded to nearest even again for a narrower one). Correctly rounded
    here, where torch's FP32 function may be a step off (the binary ops' FP32 arithmetic is
    correctly rounded). A ternary op's golden is
    ``TernarySFPUGolden``'s FP32 arithmetic itself (:mod:`sfpu_sim.reference.ternary_functions`),
    cast to the output format, nearest even, whatever the Dst."""
    if zs is not None:
        fp32 = [formats.bits_to_float64(v, path.input_format).astype(np.float32)
                for v in (xs, ys, zs)]
        result = ternary_fp32(function, *fp32).astype(np.float64)
        return formats.round_values(result, "rne", path.output_format)
    gold, _ = binary_reference(function, xs, ys, "rne", input_format=path.input_format,
                               output_format=path.input_format)
    if path.output_format == path.input_format:
        return gold
    return formats.round_values(formats.bits_to_float64(gold, path.input_format), "rne",
                                path.output_format)


def exhaustive_cell(row: str, input_format: str, dest: str, arch: str, *,
                    output_format: str | None = None, domain_x=None, domain_y=None,
                    every_pair: bool = False, progress=None) -> BinaryCell:
    """The largest distance over the row's stimuli (its reproduced sample, its crafted pairs, or
    a scalar row's every drawable x), over every pair its draw can produce (``every_pair``: the
    bound on any sample), or over every pattern pair of ``domain_x`` x ``domain_y`` (interval
    tuples, where given), for one cell (``output_format``: the input format where None; ``dest``
    "No"/"Yes"), in steps of the output format."""
    output_format = output_format or input_format
    spec = _spec(row, input_format, dest, output_format, every_pair)
    kernel = spec.kernels[dest]
    program = registry.get(kernel).program(arch)
    path = DevicePath(input_format, output_format, "fp32" if dest == "Yes" else "bf16")
    own = domain_x is None and domain_y is None and not every_pair
    if spec.domain_z and not own:
        raise BinaryRowError(f"{row}: a ternary row runs its driver's own triples only")
    if own and (spec.crafted or spec.sampled):
        operands = crafted_patterns(spec.crafted, input_format) if spec.crafted else \
            ternary_sample(spec.domain_x, spec.domain_z, input_format) if spec.domain_z else \
            driver_sample(spec.domain_x, spec.domain_y, input_format)
        top, pair, top_normal, counted, mismatched = _scored(spec.function, program, path,
                                                             *operands)
        if progress is not None:
            progress(1, 1)
        return _cell(row, input_format, dest, arch, kernel, top, pair, top_normal, counted,
                     mismatched, exact=True, output_format=output_format)
    x = domain_patterns(domain_x, input_format) if domain_x else \
        drawn_patterns(spec.domain_x, input_format)
    y = domain_patterns(domain_y, input_format) if domain_y else \
        drawn_patterns(spec.domain_y, input_format) if spec.scalar is None else \
        held_operand(registry.get(kernel), input_format)
    # Runs of at most PAIRS_PER_RUN pairs, y-major: whole rows of x against a few y, or (x
    # longer than a run: a Float32 scalar row's) a run's worth of x against one y.
    x_step = min(x.size, PAIRS_PER_RUN)
    y_step = max(1, PAIRS_PER_RUN // x_step)
    whole_rows = x_step == x.size           # progress counts y values, else runs
    blocks = [(y_start, x_start) for y_start in range(0, y.size, y_step)
              for x_start in range(0, x.size, x_step)]

    # Many runs of one program: compiled when all of them together are long (as an FP32
    # sweep's chunks are), else each run as "auto" decides it alone.
    engine = engines.long_run_engine() if \
        x.size * y.size * len(program) > AUTO_COMPILE_WORK else None

    def scored(block):
        y_chunk = y[block[0]:block[0] + y_step]
        x_chunk = x[block[1]:block[1] + x_step]
        return _scored(spec.function, program, path, np.tile(x_chunk, y_chunk.size),
                       np.repeat(y_chunk, x_chunk.size), engine=engine)

    best, best_normal, lanes, nonfinite, worst = -1, -1, 0, 0, None
    with closing(threads.in_order(scored, blocks, _width())) as finished:
        for done, (top, pair, top_normal, counted, mismatched) in enumerate(finished, 1):
            if top > best:                  # the first pair of the largest distance
                best, worst = top, pair
            best_normal = max(best_normal, top_normal)
            lanes += counted
            nonfinite += mismatched
            if progress is not None and whole_rows:
                progress(min(done * y_step, y.size), y.size)
            elif progress is not None:
                progress(done, len(blocks))
    return _cell(row, input_format, dest, arch, kernel, best, worst, best_normal, lanes,
                 nonfinite, output_format=output_format)


def _spec(row: str, input_format: str, dest: str, output_format: str,
          every_pair: bool = False) -> BinaryRow:
    if row not in BINARY_ROWS:
        raise BinaryRowError(f"unknown binary row {row!r} (modelled: {', '.join(BINARY_ROWS)})")
    spec = BINARY_ROWS[row]
    if every_pair and spec.domain_z:
        raise BinaryRowError(f"{row}: {EVERY_TRIPLE}")
    if every_pair and spec.sampled and input_format == "fp32":
        raise BinaryRowError(f"{row}: {EVERY_FP32_PAIR}")
    if output_format != input_format:
        why = spec.why_no_cell("wormhole", input_format, dest, output_format)
        if why is not None:
            raise BinaryRowError(f"{row}: no {input_format} -> {output_format} dest={dest} "
                                 f"cell: {why}")
        return spec
    fp32_cell = input_format == "fp32" and dest == "Yes" and spec.fp32_predicted
    if not fp32_cell and (input_format not in ("bf16", "fp16") or dest not in ("No", "Yes")):
        raise BinaryRowError(f"{row}: cells are bf16 or fp16 with dest No or Yes (and fp32 "
                             f"with dest Yes), not {input_format} dest={dest}")
    return spec


def _cell(row, input_format, dest, arch, kernel, top, pair, top_normal, lanes, nonfinite,
          exact=False, output_format="") -> BinaryCell:
    return BinaryCell(row, input_format, dest, arch, kernel, top if lanes else None, lanes,
                      nonfinite, pair if lanes else None,
                      top_normal if top_normal >= 0 else None, exact,
                      "" if output_format == input_format else output_format)


def _scored(function: str, program, path: DevicePath, xs, ys, zs=None,
            engine: str | None = None) -> tuple:
    """(largest distance, its first pair, largest over normal pairs, lanes counted, non-finite
    mismatches) of the pairs ``(xs, ys)``, run on ``engine`` (None: the session's, where
    "auto" compiles a program not compiled before only for a long run). Lanes whose output has
    the golden's bits are 0 apart (counted unless NaN); only the others are ranked."""
    fmt = path.output_format
    output = run_binary_device(program, xs, ys, path, z=zs, engine=engine).output
    gold = harness_golden(function, xs, ys, path, zs)
    out_format = formats.FORMATS[fmt]
    output_class = formats.classify(output, out_format)
    counted = output_class != formats.FloatClass.NAN
    distance = np.zeros(output.size, dtype=np.int64)
    nonfinite = 0
    differ = np.flatnonzero(output != gold)
    if differ.size:
        result = ulp.distance(gold[differ], output[differ], "daz-index", fmt=fmt,
                              flush_subnormals=True)
        counted[differ] = result.counted
        distance[differ] = result.distance
        nonfinite = int((result.lane_class == ulp.LaneClass.NONFINITE_MISMATCH).sum())
    distance = np.where(counted, distance, -1)
    both_normal = (formats.classify(gold, out_format) == formats.FloatClass.NORMAL) & \
        (output_class == formats.FloatClass.NORMAL)
    k = int(np.argmax(distance))
    named = (("x_bits", xs), ("y_bits", ys), *((("z_bits", zs),) if zs is not None else ()),
             ("output_bits", output), ("golden_bits", gold))
    pair = {name: f"{int(bits[k]):#0{10 if bits.itemsize == 4 else 6}x}" for name, bits in named}
    return (int(distance[k]), pair, int(np.where(both_normal, distance, -1).max()),
            int(counted.sum()), nonfinite)


def cell(row: str, input_format: str, dest: str, arch: str, progress=None,
         output_format: str | None = None, every_pair: bool = False) -> BinaryCell:
    """:func:`exhaustive_cell` over the row's own stimuli, read back from the cache when this
    program, these stimuli and this code computed it before (module docstring); a cache that
    cannot be read or written costs only the time."""
    output_format = output_format or input_format
    spec = _spec(row, input_format, dest, output_format, every_pair)
    key = _cell_key(row, spec, f"{input_format}->{output_format}"
                    f"{' every pair' if every_pair else ''}", dest, arch)
    path = user_cache("binary-cells") / f"{key}.json"
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        if kept.get("key") == key:
            return BinaryCell(**kept["cell"])
    except (OSError, ValueError, TypeError):
        pass
    found = exhaustive_cell(row, input_format, dest, arch, output_format=output_format,
                            every_pair=every_pair, progress=progress)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps({"key": key, "cell": dataclasses.asdict(found)},
                                      sort_keys=True) + "\n")
    except (OSError, ReportError):
        pass
    return found


def _cell_key(row: str, spec: BinaryRow, input_format: str, dest: str, arch: str) -> str:
    program = registry.get(spec.kernels[dest]).program(arch)
    h = hashlib.sha256()
    for part in (row, input_format, dest, arch, program_hash(program), repr(spec),
                 str(PAIRS_PER_RUN), _code_digest()):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:32]


@functools.cache
def _code_digest() -> str:
    """What computes a cell: this module's source and every package module it imports."""
    h = hashlib.sha256()
    for path in imported_files((Path(__file__),)):
        h.update(path.read_bytes())
    return h.hexdigest()


# The table's chip, and why its Float32 binary cells are not predicted.
MEASURED_ON = "wormhole"
EVERY_FP32_PAIR = ("every pair of its Float32 draw is not run: about 2**24 values each "
                   "operand, too many pairs (its cell runs the driver's own sample)")
EVERY_TRIPLE = ("every triple of a ternary draw is not run (its cell runs the driver's own "
                "triples)")
BH_FLOAT16_NO = ("on Blackhole the driver runs Float16 input with a 32-bit Dst (sfpu_binary "
                 "sets dest_acc Yes; the tests skip dest No there): no such cell")


def no_cell(arch: str, input_format: str, dest: str) -> str | None:
    """Why the driver has no cell (input format, ``dest``) on ``arch``, or None."""
    return BH_FLOAT16_NO if (arch, input_format, dest) == ("blackhole", "fp16", "No") else None


def records(rows: list[str], arches: list[str], tool: str, progress=None,
            every_pair: bool = False):
    """One record per (binary row, cell of the table, chip), in the keys of
    :func:`sfpu_sim.parity.predict.records`, plus ``stimuli``, ``exact`` (the harness's own
    pairs) and ``max_ulp_normal``; a cell not predicted has ``max_ulp`` None and the reason."""
    device = device_table.read_binary()
    for row in rows:
        spec = BINARY_ROWS.get(row)
        for measured in device[row]:
            if measured.input_format == "fp32" and measured.dest == "No":
                continue                    # n/a: the driver skips 32-bit input at dest No
            for arch in arches:
                record = {"op": row, "row": row, "approx": None,
                          "in": device_table.FORMAT_NAMES[measured.input_format],
                          "out": device_table.FORMAT_NAMES[measured.output_format],
                          "dest": measured.dest, "arch": arch,
                          "device_max_ulp": measured.max_ulp if arch == MEASURED_ON else None,
                          "device_text": measured.text if arch == MEASURED_ON else None}
                reason = (TOLERANCE_ONLY if row in TOLERANCE_ROWS else
                          "no model of this binary op's kernel" if spec is None else
                          spec.why_no_cell(arch, measured.input_format, measured.dest))
                if reason is None and every_pair and spec.sampled and \
                        (spec.domain_z or measured.input_format == "fp32"):
                    reason = EVERY_TRIPLE if spec.domain_z else EVERY_FP32_PAIR
                if reason is not None:
                    yield {**record, "max_ulp": None, "kernel": None, "provenance": None,
                           "reason": reason}
                    continue
                if progress:
                    progress(f"{row} {measured.input_format} dest={measured.dest} on {arch}")
                found = cell(row, measured.input_format, measured.dest, arch,
                             every_pair=every_pair)
                yield {**record, **_prediction(found, record["device_max_ulp"], spec, tool)}


# What the table's sub and rsub cells say about themselves, where the model reads 1 and they
# read 0. The driver source draws one set of pairs for add, sub and rsub (seed 0, uniform(-1, 1),
# binary_stimuli.driver_sample); on one set, rsub's b - a is -(a - b) and both the golden
# (nearest even) and the store act on the magnitude, so sub and rsub read alike, lane for lane
# (tests/test_binary_rows.py checks the model does); add, on the same draw, reads 1 on the device.
_SUB_PAIRS = ("the driver source draws the same pairs for add, sub and rsub, on which the "
              "model leaves thousands of the 16,384 lanes one step off for each of the three "
              "(its truncating store); the device reads add's cell 1 and this one 0, which "
              "needs none of them off: measured on other pairs, or through another program, "
              "than the source shows")
MIRROR_CAUSES = {
    ("SfpuElwsub", "fp16"): _SUB_PAIRS,
    ("SfpuElwrsub", "fp16"): _SUB_PAIRS,
    ("SfpuElwrsub", "bf16"): "the table reads sub's Float16_b cells 1 and rsub's 0, but on one "
                             "set of pairs rsub's errors mirror sub's (b - a = -(a - b); the "
                             "golden and the store round the magnitude), and the driver source "
                             "draws one set for both: the two cells were not measured on the "
                             "pairs the source draws, or not through this kernel",
}


def _prediction(found: BinaryCell, device: int | None, spec: BinaryRow, tool: str) -> dict:
    same = None if device is None else found.max_ulp == device
    cause = None
    if same is False and not found.exact and found.max_ulp is not None and \
            found.max_ulp > device:
        cause = (f"the maximum over every pair the driver's draw can produce; the harness's "
                 f"sample of it read {device}")
    elif same is False:
        cause = MIRROR_CAUSES.get((found.row, found.input_format))
    kernel = registry.get(found.kernel)
    return {"max_ulp": found.max_ulp, "match": same, "mismatch_cause": cause,
            "kernel": {"name": found.kernel, "instantiation": None},
            "provenance": f"{spec.source}; {kernel.provenance}",
            "golden": ("TernarySFPUGolden's FP32 arithmetic, nearest even to the output" if
                       spec.domain_z else "binary_reference, nearest even to the input format "
                                          "(BinarySFPUGolden)"),
            "lanes": found.lanes, "nonfinite_lanes": found.nonfinite,
            "max_ulp_normal": found.max_ulp_normal,
            "stimuli": spec.stimuli if found.exact or not spec.sampled else
            f"every pair the driver's draw can produce, x from {domain_text(spec.domain_x)}, "
            f"y from {domain_text(spec.domain_y)} (the bound on any sample)",
            "exact": found.exact, "worst": found.worst, "tool": tool}
