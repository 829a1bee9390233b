"""A kernel program on an NVIDIA GPU: the compiled engine's per-lane code, one CUDA thread a lane.

Owns: turning a program's :class:`~sfpu_sim.compiled.codegen.Translation` (the same one the CPU
engine compiles) into a numba-cuda kernel, caching it, and running a sweep's batch of SFPUs on
the GPU (:func:`execute_sfpus`, the contract of :func:`sfpu_sim.compiled.execute_sfpus`). The
per-lane statements are :func:`sfpu_sim.compiled.lane_body`'s, unchanged, and they call the
same scalar helpers (:mod:`sfpu_sim.compiled.scalar`), which numba-cuda compiles as device
functions: there is no second emulator. Only the frame differs: the CPU function loops over
lanes; here ``cuda.grid(1)`` is the lane. Knows nothing of kernels, sweeps or references.

Where no GPU is present, numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) runs the same
kernel source in Python, lane by lane: that is how the test suite holds this engine to the CPU
one bit for bit without a GPU (tests/test_gpu.py).
"""
from __future__ import annotations

import hashlib
import sys
import threading
from functools import cache

import numpy as np

from sfpu_sim import compiled as cpu
from sfpu_sim import jit
from sfpu_sim.compiled import program_index
from sfpu_sim.compiled.codegen import NotCompiled, Translation
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.machine import LANES_PER_SFPU, Machine

__all__ = ["NoGpu", "available", "execute_sfpus", "has_gpu", "ieee_float64", "launch", "prepare",
           "require"]

# A block is whole SFPUs, so that every thread of a block reaches its barriers (no thread
# beyond the last lane exists to leave early).
SFPUS_PER_BLOCK = 4
# The CPU function's arguments without its first two (the range of SFPUs it loops over).
SIGNATURE = "(" + cpu.SIGNATURE.removeprefix("(int64, int64, ")
_MEMORY: dict[tuple, cpu.Compiled | str] = {}


class NoGpu(SfpuSimError):
    """``--engine cuda`` where no CUDA GPU (nor the simulator) can run it."""


@cache
def unavailable() -> str | None:
    """Why the GPU engine cannot run here, or None when it can (a GPU numba-cuda drives, or
    numba's CUDA simulator)."""
    try:
        # numba.cuda here and below, not with the module: the gpu extra (numba-cuda) may be
        # absent, and importing it starts the CUDA driver or the simulator.
        from numba import cuda
    except Exception as error:                              # numba built without CUDA
        return f"numba's CUDA support does not import ({type(error).__name__}: {error})"
    if simulated():
        _adapt_the_simulator()
        return None
    _adapt_numba_cuda_to_numpy()
    try:
        if cuda.is_available():
            return None
    except Exception as error:                              # a broken driver install
        return f"the CUDA driver does not start ({type(error).__name__}: {error})"
    return ("no CUDA GPU is visible to numba (install the gpu extra, pip install "
            "'sfpu-sim[gpu]', on a machine with an NVIDIA GPU and its driver; or set "
            "NUMBA_ENABLE_CUDASIM=1 for numba's slow simulator)")


def _adapt_numba_cuda_to_numpy() -> None:
    """numba-cuda 0.30.4 (``numba/cuda/np/arrayobj.py``, imported at a kernel's first typing)
    registers an overload of ``np.row_stack`` on every numpy from 2.0, and numpy 2.5 removed that
    alias of ``np.vstack`` (numba 0.68's own copy of the module checks ``< (2, 5)``). The
    AttributeError then refused every program ("numba-cuda could not compile it") on the H200
    image of 2026-11 (numpy 2.5.2). The alias is put back only where it is missing; nothing
    of ours calls it."""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack


# numba's CUDA simulator runs a block as one Python thread per lane while the launching thread
# polls them in a loop that holds the GIL a whole switch interval (5 ms by default) at a time.
# 0.1 ms hands it to the lanes sooner: a 32-input launch of each of 24 kernels took 2.59 s,
# then 0.52 s (0.83 s at 0.5 ms, 20 s at 50 ms), the same bits.
SIMULATOR_SWITCH_S = 1e-4


def _adapt_the_simulator() -> None:
    """Two changes to numba's CUDA simulator, made once in a process that runs it; nothing
    changes on a GPU.

    - Python's thread switch interval is at most :data:`SIMULATOR_SWITCH_S`.
    - A block's shared array is made once, under a lock. The simulator looks the array up by
      its call site and, when it is absent, makes and stores it: two steps a thread switch can
      split, so that two lanes of a block each make one and one of them counts into an array
      no other lane reads. A fused FP32 chunk's first shared array, its lane classes, came out
      short that way in CI (tests/test_gpu_chunk.py); a switch forced into that window loses
      counts of every array (tests/test_gpu.py)."""
    sys.setswitchinterval(min(sys.getswitchinterval(), SIMULATOR_SWITCH_S))
    import numba                            # its simulator's modules are loaded by now

    shared = sys.modules["numba.cuda.simulator.kernelapi"].FakeCUDAShared
    if getattr(shared.array, "made_once", False) or \
            not isinstance(getattr(shared(0), "_allocations", None), dict):
        return                              # done, or a simulator that keeps them otherwise
    unlocked, lock = shared.array, threading.Lock()

    def array(self, shape, dtype):
        if shape == 0:                      # dynamic shared memory: one buffer, nothing made
            return unlocked(self, shape, dtype)
        caller = sys._getframe(1)           # the simulator's key: the call's file and line
        site = (caller.f_code.co_filename, caller.f_lineno)
        if isinstance(dtype, numba.core.types.Type):
            dtype = numba.np.numpy_support.as_dtype(dtype)
        with lock:
            made = self._allocations.get(site)
            if made is None:
                made = self._allocations[site] = np.empty(shape, dtype)
        return made

    array.made_once = True
    shared.array = array


def simulated() -> bool:
    """Whether numba.cuda is numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``)."""
    import numba

    return bool(numba.config.ENABLE_CUDASIM)


def available() -> bool:
    return unavailable() is None


def has_gpu() -> bool:
    """A real GPU (not the simulator): what "auto" takes for long runs."""
    return available() and not simulated()


def device_name() -> str:
    """The GPU's name as its driver gives it, or the simulator's."""
    if simulated():
        return "numba's CUDA simulator"
    from numba import cuda

    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


def require() -> None:
    """Raise :class:`NoGpu` (one line) when the GPU engine cannot run here."""
    reason = unavailable()
    if reason is not None:
        raise NoGpu(f"--engine cuda: {reason}")


def execute_sfpus(template: Machine, program, dst: np.ndarray, capture_at: int | None = None):
    """:func:`sfpu_sim.compiled.execute_sfpus` on the GPU: ``dst`` (SFPUs x cells, changed in
    place) goes to the GPU, one thread per lane runs the program, Dst and the captured LReg
    come back. Returns ``(captured, reason)``; when the program cannot run on the GPU, nothing
    has run: ``(None, reason)``."""
    c = prepare(template, program, capture_at)
    if isinstance(c, str):
        return None, c
    from numba import cuda

    device_dst = cuda.to_device(dst)
    captured = cuda.device_array(dst.shape[0] * LANES_PER_SFPU if capture_at is not None else 1,
                                 dtype=np.uint32)
    launch(c, template, device_dst, captured)
    device_dst.copy_to_host(dst)
    return (captured.copy_to_host() if capture_at is not None else None), None


def prepare(template: Machine, program, capture_at: int | None = None):
    """The GPU kernel for ``program`` from ``template``'s state (one SFPU), with the Machine's
    hazard checks and warnings done, as :func:`sfpu_sim.compiled.execute_sfpus` does them; or
    why it cannot run on the GPU (a string)."""
    require()
    ieee_float64()
    return cpu.prepare(template, program, capture_at, compiler=compile_for)


def launch(c: cpu.Compiled, template: Machine, device_dst, device_captured) -> None:
    """Run :func:`prepare`'s kernel over GPU-resident Dst bits (SFPUs x cells), every SFPU
    starting from ``template``; the captured LReg goes to ``device_captured`` (one entry per
    lane, or one unused entry). Returns once queued (numba-cuda's default stream)."""
    from numba import cuda

    stack_in, stack_out = cpu._stacks(template, c)
    sfpus = device_dst.shape[0]
    per_block = SFPUS_PER_BLOCK if sfpus % SFPUS_PER_BLOCK == 0 else 1
    c.function[sfpus // per_block, per_block * LANES_PER_SFPU](
        cuda.to_device(template.lreg.view(np.ndarray)),
        cuda.to_device(template.lreg_macro), cuda.to_device(template.cc.flags),
        cuda.to_device(stack_in), cuda.to_device(stack_out),
        cuda.to_device(template.prng), device_dst, device_captured, cpu.ONE_SFPU, False)


@cache
def ieee_float64() -> None:
    """Have NVVM round every floating-point operation once, as the CPU does: numba-cuda leaves
    NVVM's default, which contracts a multiply and an add into one FMA (``-fma=1``), unless
    fastmath asks for more; here ``-fma=0`` unless fastmath. The kernel programs' arithmetic
    is integer, but the FP32 reference's float64 enclosures (:mod:`sfpu_sim.fp32sweep.enclose`)
    must take the same steps on both engines, to decide the same inputs. Nothing under the
    simulator, which runs Python."""
    if simulated():
        return
    from numba.cuda.cudadrv import nvvm     # numba-cuda (the gpu extra); a real GPU only

    compile_ir = nvvm.compile_ir

    def rounding_each_operation(llvmir, **options):
        if not options.get("fastmath"):
            options.setdefault("fma", False)
        return compile_ir(llvmir, **options)

    nvvm.compile_ir = rounding_each_operation


def compile_for(m: Machine, instructions, capture_at: int | None = None):
    """The GPU kernel for ``m``'s state (a :class:`~sfpu_sim.compiled.Compiled`), or why it
    cannot be built (a string)."""
    return cpu.compile_for(m, instructions, capture_at, build=_build, memory=_MEMORY)


def source(t: Translation, instructions, uniform, cache_on_disk: bool) -> str:
    """The kernel module's source: :func:`sfpu_sim.compiled.header`, a CUDA frame that makes
    the thread's index the lane, and :func:`sfpu_sim.compiled.lane_body` unchanged. A warp is
    an SFPU (the launch keeps blocks whole SFPUs); SFPCONFIG's per-lane values pass through
    the warp's slice of a shared array, the block's barrier between the writes of lanes 0-7
    and the reads (``lanes_meet``)."""
    shape = f"({SFPUS_PER_BLOCK}, {max(t.configs, 1)}, 8)"
    sfpu = f"cuda.threadIdx.x // {LANES_PER_SFPU}"
    lines = cpu.header(t, instructions, "from numba import cuda")
    lines += ["", "", "@cuda.jit(device=True)", "def lanes_meet():", "    cuda.syncthreads()",
              "", "", f"@cuda.jit(cache={cache_on_disk})",
              ("def run(lreg, macro, flags, stack_in, stack_out, prng, dst, capture, "
               "state_mask, keep_state):"),
              "    first = np.uint64(cuda.grid(1))",
              f"    cfgv = cuda.shared.array({shape}, np.int64)[{sfpu}]",
              f"    cfgf = cuda.shared.array({shape}, np.bool_)[{sfpu}]"]
    lines += ["    " + line for line in cpu.lane_body(t, uniform)]
    return "\n".join(lines) + "\n"


def _build(m: Machine, instructions, capture_at, uniform) -> cpu.Compiled:
    """The kernel, its source from the program index when an earlier process generated it
    (translating is most of a simulated launch's preparation: 8.9 of 34 s in test_gpu.py),
    else generated and indexed."""
    if len(instructions) > cpu.MAX_INSTRUCTIONS:
        raise NotCompiled(f"{len(instructions):,} instructions, more than the "
                          f"{cpu.MAX_INSTRUCTIONS:,} compiled")
    directory = _directory()
    key = ("cuda", _source_digest(), directory is not None,
           *cpu._memory_key(m, tuple(ins.word for ins in instructions), capture_at, uniform))
    entry = program_index.lookup(key)
    if entry is not None and isinstance(entry.get("source"), str):
        t, text, digest = None, entry["source"], entry["digest"]
    else:
        t = Translation(m, instructions, capture_at, inline_fma=False)
        text = source(t, instructions, uniform, directory is not None)
        digest = hashlib.sha256(text.encode()).hexdigest()[:24]
    try:
        function = cpu._load(text, digest, prefix="sfpu_sim_gpu_program", directory=directory)
        if not simulated():                 # now, so that a failure falls back
            function.compile(SIGNATURE)
    except Exception as error:                  # numba-cuda's limits, never a wrong answer
        raise NotCompiled(f"numba-cuda could not compile it ({type(error).__name__}: "
                          f"{str(error).splitlines()[0][:120] if str(error) else ''})") from None
    if t is None:
        return cpu.Compiled.from_index(function, text, entry)
    c = cpu.Compiled.of(t, function, text, digest, instructions)
    program_index.record(key, {**c.index_entry(), "source": text})
    return c


@cache
def _source_digest() -> str:
    """The digest of this file, which writes the kernel's frame (the code generator's own
    files are in every index key already: :func:`~.program_index.generator_digest`)."""
    with open(__file__, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:24]


def _directory():
    """Where kernel sources go so that numba-cuda can cache their machine code; none under the
    simulator, which compiles nothing."""
    return None if simulated() else jit.program_directory()
