"""FP32 input sweeps: a kernel over FP32 input patterns (all 2**32, a range, or Tenstorrent's
strided walk), streamed in chunks with a proven correctly rounded reference, resumable, and
scalable on Dask. Every BF16 pattern runs through the same pipeline (:class:`.walk.Bf16Patterns`,
its reference the held BF16 table) and gives the BF16 sweep's figures.

Owns the streaming form of a sweep (``sfpu_sim.sweeps`` owns the BF16 one and the device
path): :mod:`.walk` (which inputs), :mod:`.enclose` and :mod:`.rounded_reference` (the
reference: float64 enclosures, arb where they cannot decide), :mod:`.tally` (the exact,
mergeable reduction), :mod:`.chunk` (one chunk as a task), :mod:`.gpu_chunk` and
:mod:`.gpu_frames` (a chunk whole on a GPU, from the same per-lane definitions), :mod:`.state`
(resuming),
:mod:`.run` (schedulers, for any job) and :mod:`.summary` (the BF16 sweep's summary contract in
FP32 ULP). Pair sweeps of binary kernels (every x against each y, all 2**32 BF16 pairs at most)
run through the same schedulers and state files: :mod:`.pair_sweep`.
Knows nothing of formatting.
"""
from sfpu_sim.fp32sweep.run import Fp32SweepError, sweep_fp32
from sfpu_sim.fp32sweep.walk import Bf16Patterns, Exhaustive, Strided, WalkError, from_options

__all__ = [
           "Bf16Patterns",
           "Exhaustive",
           "Fp32SweepError",
           "Strided",
           "WalkError",
           "from_options",
           "sweep_fp32",
]
