"""What the binary SFPU drivers feed each row: the operand values of tt-llk's binary driver
(tt-metal ``tt_metal/tt-llk/tests/python_tests/test_eltwise_binary_sfpu.py``, ``sfpu_binary``,
index id 58031140234) as patterns of the cell's input format. Five kinds:

* a registered domain (``_REGISTRY_DOMAIN_OPS``; the operation-domain registry,
  ``_OP_DOMAIN_REGISTRY``, index id 57934496196): SfpuElwadd, SfpuElwsub, SfpuElwrsub and
  SfpuElwmul draw both operands from [-1, 1]; SfpuElwdiv the dividend from [-2, 2] and the divisor
  from [-10, -0.1] U [0.1, 10];
* the format default (``_UNREGISTERED_BINARY_OPS``; ``generate_stimuli``'s
  ``default_spec_for_format``, index id 54673090131): uniform(0.1, 1.1) for both operands of
  SfpuBinaryMax, SfpuBinaryMin, SfpuBinaryFmod and SfpuBinaryRemainder;
* its own domain: uniform(-5, 5) for both operands of SfpuAtan2
  (``test_eltwise_binary_sfpu_atan2``, Float16_b and Float32 only);
* crafted pairs (``_eq_ne_stimuli_specs``, ``_comparison_stimuli_specs``,
  ``_isclose_stimuli_specs``): per face position j, a = 1 + j % 8 and b = a + (0 or 1 by j % 2)
  for SfpuElwEq/Ne, b = a + (0, +1, -1 by j % 3) for SfpuElwLt/Le/Gt/Ge, b = a + (0 or 2 by
  j % 2) for SfpuIsclose, b = 0 (j % 3 == 0) or 1 for SfpuMask (those two Float16_b and Float32
  only);
* a ramp: SfpuLogsigmoid's ``_logsigmoid_stimuli_spec`` (an earlier revision of the driver,
  index id 57944800736) puts ``torch.linspace(-8, 3.9, 256)`` in every face of both tiles, so
  in1 is the ramp too and the kernel's x > 4 arm, the only one that reads it, never runs. The
  ramp is reproduced as ATen computes it (:func:`torch_linspace`), so its cells are exact. The
  later revision (index id 58031140234) pairs a ramp over [-8, 12] with exp(-x), reaching that
  arm; the same kernel there reads 8, 8 and 113,276 (with a correctly rounded exp in place of
  torch's), against the table's 2, 2 and 89,026, which the earlier ramp gives.

A uniform draw is ``torch.rand``'s FP32 ``k * 2**-24`` (0 <= k < 2**24) scaled to ``raw * (high -
low) + low``, rounded to the format (nearest even) and clamped to the bounds as the format rounds
them (``strategies/random.py``, index id 70386246814). So the patterns a draw can produce are
enumerated here (:func:`drawn_patterns`): all 2**24 values of k, in FP32 arithmetic (two
roundings) and rounded once from exact arithmetic (a fused or wider evaluation), the union of
both. Far from zero that is every pattern between the rounded bounds; near zero only the FP32 grid
of the scaled draw is reached (nothing below 2**-23 from [-1, 1]), which leaves out the tiny
operands where a kernel's underflow costs a step that no sample can show: the maximum over them
bounds any sample from above. The draw itself is reproduced too (:func:`driver_sample`, on
:mod:`sfpu_sim.parity.torch_random`): the harness's own pairs, as are the crafted pairs and the
ramp.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from sfpu_sim import formats
from sfpu_sim.parity.torch_random import TorchGenerator


UNIT = ((-1.0, 1.0),)
FORMAT_DEFAULT = ((0.1, 1.1),)          # default_spec_for_format: every plain float format
ATAN2_DOMAIN = ((-5.0, 5.0),)           # test_eltwise_binary_sfpu_atan2's spec_A, both tiles
_RAMP = range(1, 9)                     # _positions_and_ramp: a = 1 + j % 8
EQ_NE_PAIRS = tuple((a, a + (a - 1) % 2) for a in _RAMP)     # j % 2 follows j % 8
ORDER_PAIRS = tuple((a, a + d) for a in _RAMP for d in (0, 1, -1))   # every j % 24 occurs
ISCLOSE_PAIRS = tuple((a, a + 2 * ((a - 1) % 2)) for a in _RAMP)   # b = a + 2 for odd j
MASK_PAIRS = tuple(sorted({(1 + j % 8, 0 if j % 3 == 0 else 1) for j in range(24)}))  # 16
LOGSIGMOID_DRIVER = ("tt-metal tt_metal/tt-llk/tests/python_tests/test_eltwise_binary_sfpu.py "
                     "test_eltwise_binary_sfpu_logsigmoid, the revision with "
                     "_logsigmoid_stimuli_spec (index id 57944800736)")


def torch_linspace(start: float, end: float, steps: int) -> np.ndarray:
    """``torch.linspace(start, end, steps)`` in float32 as ATen's CPU kernel computes it
    (pytorch/pytorch ``aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp``, ``linspace_kernel``,
    index id 1866542863): ``step = (end - start) / (steps - 1)``, then ``start + step * i`` for
    the first ``steps // 2`` values and ``end - step * (steps - 1 - i)`` for the rest, every
    operation rounded to float32."""
    first, last = np.float32(start), np.float32(end)
    step = (last - first) / np.float32(steps - 1)
    i = np.arange(steps)
    return np.where(i < steps // 2, first + step * i.astype(np.float32),
                    last - step * (steps - 1 - i).astype(np.float32))


# _logsigmoid_stimuli_spec: every 16x16 face of buffer A holds linspace(-8, 3.9, 256) cast to
# the format, and in0 and in1 are its even and odd tiles: the same value at each position.
LOGSIGMOID_PAIRS = tuple((float(v), float(v)) for v in torch_linspace(-8.0, 3.9, 256))


def domain_patterns(intervals, input_format: str) -> np.ndarray:
    """Every normal pattern of the 16-bit input format between the bounds of one of the closed
    ``intervals``, each bound rounded to the format (nearest even) as the harness's draw is
    clamped to it; ascending by pattern."""
    every = np.arange(1 << 16, dtype=np.uint32).astype(formats.FORMATS[input_format].dtype)
    values = formats.bits_to_float64(every, input_format)
    normal = formats.classify(every, formats.FORMATS[input_format]) == formats.FloatClass.NORMAL
    inside = np.zeros(every.size, dtype=bool)
    for bounds in intervals:
        low, high = formats.bits_to_float64(
            formats.round_values(np.asarray(bounds, dtype=np.float64), "rne", input_format,
                                 ftz=False), input_format)
        inside |= (values >= low) & (values <= high)
    return every[normal & inside]


TORCH_RAND_STEPS = 1 << 24          # torch.rand's FP32 values: k * 2**-24


def drawn_patterns(intervals, input_format: str) -> np.ndarray:
    """Every normal pattern of the input format that the driver's uniform draw from one of
    ``intervals`` can produce (module docstring), ascending by pattern. Float32's are the draw's
    FP32 values themselves (``.to(float32)`` keeps them), about 2**24 per interval."""
    drawn = _drawn_fp32 if input_format == "fp32" else \
        functools.partial(_drawn, input_format=input_format)
    return _sorted_unique(np.concatenate([drawn(float(low), float(high))
                                          for low, high in intervals]))


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` by numpy's stable sort (timsort for floats, which merges the draw's
    two sorted runs in about linear time; a radix sort for 16-bit patterns): np.unique took 25 s
    on the 2**25 FP32 draw values here, this 0.3 s. Ascending, each value once (+0 and -0 are
    one: no caller keeps zeros)."""
    ordered = np.sort(values, kind="stable")
    keep = np.ones(ordered.size, dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _draw_values(low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """torch.rand's values scaled to [low, high]: in FP32 arithmetic (two roundings), and
    rounded once from exact arithmetic."""
    steps = np.arange(TORCH_RAND_STEPS, dtype=np.float32)
    in_fp32 = _scaled(steps * np.float32(2.0 ** -24), low, high)   # torch.rand's values (exact)
    rounded_once = steps.astype(np.float64)                   # one rounding, from float64
    rounded_once *= 2.0 ** -24 * (high - low)
    rounded_once += low
    return in_fp32, rounded_once.astype(np.float32)


@functools.cache
def _drawn_fp32(low: float, high: float) -> np.ndarray:
    values = np.clip(np.concatenate(_draw_values(low, high)), np.float32(low), np.float32(high))
    bits = _sorted_unique(values).view(np.uint32)
    return np.sort(bits[formats.classify(bits, formats.FORMATS["fp32"]) ==
                        formats.FloatClass.NORMAL], kind="stable")


@functools.cache
def _drawn(low: float, high: float, input_format: str) -> np.ndarray:
    in_fp32, rounded_once = _draw_values(low, high)
    fmt = formats.FORMATS[input_format]
    seen = np.zeros(1 << 16, dtype=bool)
    for values in (in_fp32, rounded_once):
        seen[_cast_clamped(values, low, high, input_format).view(np.uint16)] = True
    bits = np.flatnonzero(seen).astype(fmt.dtype)
    return bits[formats.classify(bits, fmt) == formats.FloatClass.NORMAL]


_CAST = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16, "fp32": np.float32}


def _scaled(raw: np.ndarray, low: float, high: float) -> np.ndarray:
    """``raw * (high - low) + low`` as torch computes it on a float32 tensor: the Python scalars
    made float32, each operation rounded (two roundings)."""
    return raw * np.float32(high - low) + np.float32(low)


def _cast_clamped(values: np.ndarray, low: float, high: float, input_format: str) -> np.ndarray:
    """``.to(dtype)`` (nearest even) and the clamp to the bounds as the format rounds them."""
    lowest, highest = (_CAST[input_format](bound)
                       for bound in _rounded_bounds(low, high, input_format))
    return np.clip(values.astype(_CAST[input_format]), lowest, highest).astype(
        _CAST[input_format])


def _rounded_bounds(low: float, high: float, input_format: str) -> tuple[float, float]:
    bits = formats.round_values(np.array([low, high]), "rne", input_format, ftz=False)
    return tuple(formats.bits_to_float64(bits, input_format))


def crafted_patterns(pairs, input_format: str) -> tuple[np.ndarray, np.ndarray]:
    """The crafted (x, y) value pairs as patterns of the input format (nearest even)."""
    x, y = (formats.round_values(np.asarray(side, dtype=np.float64), "rne", input_format,
                                 ftz=False) for side in zip(*pairs))
    return x, y


# sfpu_binary's buffer A: [128, 128] values for a 32-bit format, else [256, 128], drawn face by
# face; tile t is faces 4t..4t+3, and the even tiles hold in0, the odd ones in1.
FACE = 256
DRIVER_SEED = 0                         # sfpu_binary's torch.manual_seed(0)


def driver_sample(domain_x, domain_y, input_format: str) -> tuple[np.ndarray, np.ndarray]:
    """The (x, y) patterns the binary driver draws for a row of uniform domains, as it draws them
    (``sfpu_binary`` and ``generate_stimuli``, index ids 57944800736 and 56989136825):
    ``torch.manual_seed(0)``, then buffer A one 16x16 face at a time in order, the faces of each
    even tile from x's domain and of each odd tile from y's, the pair of tiles 2p and 2p + 1
    read lane for lane: 16,384 pairs (8,192 for Float32). One interval is
    ``torch.rand`` scaled in float32, cast to the format and clamped to the bounds as the format
    rounds them (``UniformStrategy``, index id 70386246814); a union of intervals takes two draws
    per value, the interval by its share of the length and then the place in it, with no clamp
    (``_sample_uniform_intervals``, index id 54697708913). Buffer B is drawn after A and never
    read."""
    generator = TorchGenerator(DRIVER_SEED)
    faces = (128 * 128 if input_format == "fp32" else 256 * 128) // FACE
    values = np.concatenate([_face(generator, domain_y if face // 4 % 2 else domain_x,
                                   input_format) for face in range(faces)])
    tiles = values.view(formats.FORMATS[input_format].dtype).reshape(-1, 2, 4 * FACE)
    return tiles[:, 0].ravel(), tiles[:, 1].ravel()


@dataclass(frozen=True)
class IntervalDraw:
    """A spec the operation-domain registry's ``exclude_intervals`` rewrote into its
    ``intervals`` form (it always does, even where its hole removes nothing: sfpu_domains.py,
    index id 57934496196): the interval sampler's two draws per value, no clamp, uniform or
    (``log``) log-uniform (``_sample_uniform_intervals`` / ``_sample_log_uniform_intervals``,
    ``helpers/stimuli/utils.py``, index id 54697708913)."""
    intervals: tuple
    log: bool = False

    def __iter__(self):                        # the intervals, as a plain domain's are
        return iter(self.intervals)


def domain_text(intervals) -> str:
    """A draw's domain as messages and reports write it: ``[-1, 1]``, unions with ``U``, and
    ``log-uniform over`` before an :class:`IntervalDraw` drawn in log space."""
    kind = "log-uniform over " if isinstance(intervals, IntervalDraw) and intervals.log else ""
    return kind + " U ".join(f"[{low:g}, {high:g}]" for low, high in intervals)


def _face(generator: TorchGenerator, intervals, input_format: str) -> np.ndarray:
    cast = _CAST[input_format]
    if isinstance(intervals, IntervalDraw) and intervals.log:
        return _log_uniform_face(generator, intervals.intervals, cast)
    if not isinstance(intervals, IntervalDraw) and len(intervals) == 1:
        (low, high), = intervals
        return _cast_clamped(_scaled(generator.rand(FACE), low, high), low, high, input_format)
    lows = np.array([low for low, _ in intervals], dtype=np.float32)
    highs = np.array([high for _, high in intervals], dtype=np.float32)
    lengths = np.maximum(highs - lows, np.float32(0))
    shares = np.cumsum(lengths / lengths.sum(dtype=np.float32), dtype=np.float32)
    which = np.searchsorted(shares, generator.rand(FACE), side="left")
    inner = generator.rand(FACE)
    low, high = lows[which], highs[which]
    return (low + inner * (high - low)).astype(cast)


def _log_uniform_face(generator: TorchGenerator, intervals, cast) -> np.ndarray:
    """``_sample_log_uniform_intervals``: the interval by its share of the log-space length,
    then ``exp(ll + u * (lh - ll))`` in float32 (ll, lh: Python's double log of each bound,
    made float32), cast to the format. torch's float32 exp is stood in for by the correctly
    rounded one (float64 exp rounded to float32): a value a unit apart moves the cast only
    where it straddles a rounding boundary of the format."""
    log_lows = np.array([math.log(low) for low, _ in intervals], dtype=np.float32)
    log_highs = np.array([math.log(high) for _, high in intervals], dtype=np.float32)
    lengths = np.maximum(log_highs - log_lows, np.float32(0))
    shares = np.cumsum(lengths / lengths.sum(dtype=np.float32), dtype=np.float32)
    which = np.searchsorted(shares, generator.rand(FACE), side="left")
    inner = generator.rand(FACE)
    low, high = log_lows[which], log_highs[which]
    exponent = low + inner * (high - low)
    return np.exp(exponent.astype(np.float64)).astype(np.float32).astype(cast)


def ternary_sample(domain_ab, domain_c, input_format: str):
    """The (a, b, c) patterns the ternary driver draws (``_run_sfpu_ternary``,
    ``test_sfpu_ternary.py``, index id 70171254245): ``torch.manual_seed(0)``, then one
    ``generate_stimuli`` for buffers A and B ([64, 64] each: 16 faces, A's then B's, both from
    ``domain_ab``), then a second for C (16 faces of ``domain_c``; its B-slot draw is thrown
    away); lane k of each buffer is one triple: 4,096 of them."""
    generator = TorchGenerator(DRIVER_SEED)
    dtype = formats.FORMATS[input_format].dtype
    faces = 64 * 64 // FACE
    return tuple(np.concatenate([_face(generator, domain, input_format)
                                 for _ in range(faces)]).view(dtype)
                 for domain in (domain_ab, domain_ab, domain_c))
