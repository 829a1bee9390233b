"""One chunk of an FP32 sweep: its inputs through the device path, the reference and the tally.

Owns: :class:`Job` (everything that decides a chunk's bits, small and picklable, so a Dask
worker in another process can rebuild the kernel from its instruction words) and
:func:`run_chunk`, the task of a chunk: positions ``start..stop`` of the walk in, a
:class:`~.tally.Partial` out (whole on the GPU where :func:`.gpu_chunk.fused` says so, the same
Partial). Knows nothing of scheduling, state files or formatting.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sfpu_sim import heap, threads
from sfpu_sim.arch import get_arch
from sfpu_sim.asm import decode
from sfpu_sim.engines import default_engine, long_run_engine
from sfpu_sim.fp32sweep import gpu_chunk
from sfpu_sim.fp32sweep import walk as walks
from sfpu_sim.fp32sweep.rounded_reference import Bf16Reference, Fp32Reference
from sfpu_sim.fp32sweep.tally import Partial, tally_lanes
from sfpu_sim.isa.spec import Program
from sfpu_sim.selection import Selection
from sfpu_sim.stage_timer import stage
from sfpu_sim.machine import LANES_PER_SFPU
from sfpu_sim.sweeps import DevicePath, _device_state, run_device, uses_loadmacro

# Bytes per input a running chunk holds at its peak, rounded up from measurements on this
# machine, beside its Dst (one byte per input per Dst row: 16 columns of 2-byte cells shared
# by 32 lanes; 16 rows, or 1024 for a program with SFPLOADMACRO, sweeps._device_state):
# - on the Machine (tanh_fp32, 131 instructions; any kernel's Machine has the same
#   registers): 184 B of numpy arrays at tracemalloc's peak (173 B of them the Machine's
#   LRegs and its 16 Dst rows in run_device) and 126 B of resident-set growth per input at
#   2**22 inputs: 256 with those rows. reciprocal_fp32_loadmacro's 1024 rows: 1,280 B of
#   resident set per input running (2026-11-28), against 256 + 1008 here;
# - compiled (no Machine of the batch exists): 32-62 B at tracemalloc's peak and 46-66 B of
#   resident set per input running, Dst included, over reciprocal_fp32, tanh_fp32_2026_09 and
#   exp_fp32 with BF16 and FP32 output (2026-11-28): 64 besides the Dst.
LANE_BYTES = 256
MACHINE_LANE_BYTES = LANE_BYTES - 16
COMPILED_LANE_BYTES = 64


def lane_bytes_for(program, engine: str) -> int:
    """What a running chunk of ``program`` holds per input on ``engine``: the Machine for a
    program with SFPLOADMACRO (the compiled engines decline it), else compiled code."""
    rows = _device_state(program, DevicePath("fp32", "fp32", "fp32"), LANES_PER_SFPU).dst_rows
    on_machine = engine == "machine" or uses_loadmacro(program)
    return (MACHINE_LANE_BYTES if on_machine else COMPILED_LANE_BYTES) + rows


@dataclass(frozen=True)
class KernelJob:
    """What every chunk of a sweep needs of its kernel: the program as words (a Dask worker
    in another process rebuilds it from them), its function and its Dst mode."""
    kernel: str
    function: str
    arch: str
    words: tuple
    sources: tuple
    init_length: int
    dest: str

    def program(self):
        """The kernel program, rebuilt from its words (cached per process)."""
        return program_of(self.kernel, self.arch, self.words, self.sources, self.init_length)


@dataclass(frozen=True)
class Job(KernelJob):
    """An FP32 sweep as a chunk needs it: the kernel, the path, the reference, the walk."""
    output_format: str
    policy: str
    walk: tuple                      # (kind, stride, range) as walk.as_dict gives them
    selection: tuple                 # (range, region)
    worst: int
    threads: int | None = None       # the most compiled-loop threads a chunk uses
    engine: str = "compiled"         # or "cuda": where the kernel runs (same bits)

    save_interval = 0.0                  # its state is saved after every chunk

    @property
    def lane_bytes(self) -> int:
        """What a running chunk holds per input (:func:`lane_bytes_for`)."""
        return lane_bytes_for(self.program(), self.engine)

    def run_chunk(self, start: int, stop: int, total: int) -> Partial:
        return run_chunk(self, start, stop, total)

    @property
    def input_format(self) -> str:
        """The format the inputs reach the device in: "bf16" for :class:`~.walk.Bf16Patterns`,
        else "fp32"."""
        return "bf16" if self.walk[0] == "bf16" else "fp32"

    def reference(self) -> Fp32Reference | Bf16Reference:
        key = (self.function, self.policy, self.output_format, self.input_format)
        ref = _REFERENCES.get(key)
        if ref is None:
            kind = Bf16Reference if self.input_format == "bf16" else Fp32Reference
            ref = _REFERENCES[key] = kind(self.function, self.policy, self.output_format)
        return ref

    def the_walk(self):
        kind, stride, value_range = self.walk
        return walks.from_dict({"kind": kind, "stride": stride, "range": value_range})

    def the_selection(self) -> Selection:
        value_range, region = self.selection
        return Selection(tuple(value_range) if value_range else None, region)


_PROGRAMS: dict = {}
_REFERENCES: dict = {}


def program_of(kernel: str, arch: str, words: tuple, sources: tuple, init_length: int):
    """A kernel program rebuilt from its instruction words, as a job carries it to another
    process (cached per process)."""
    key = (kernel, arch, words, sources, init_length)
    program = _PROGRAMS.get(key)
    if program is None:
        chip = get_arch(arch)
        program = Program(chip, [decode(w, chip, s) for w, s in zip(words, sources)], kernel,
                          init_length)
        _PROGRAMS[key] = program
    return program


def run_device_bits(program, x: np.ndarray, dest: str, output_format: str,
                    engine: str = "compiled", input_format: str = "fp32"):
    """(kernel FP32 result, device output) of FP32 input patterns through the device path,
    the kernel compiled (a chunk is one of many: compiling once pays for all of them) on the
    CPU, or on the GPU with ``engine="cuda"``. With ``input_format="bf16"`` the patterns are
    BF16 values' (:class:`~.walk.Bf16Patterns`) and enter as BF16 patterns, unpacked as a BF16
    sweep's are (widened into an FP32 Dst)."""
    if input_format == "bf16":
        run = run_device(program, walks.bf16_patterns(x), DevicePath("bf16", output_format, dest),
                         engine=engine)
    else:
        run = run_device(program, x, DevicePath("fp32", output_format, dest), fp32_inputs=True,
                         engine=engine)
    return run.kernel_fp32, run.output


def run_chunk(job: Job, start: int, stop: int, total: int) -> Partial:
    """The Partial of walk positions ``start..stop`` (``total``: the walk's length, which
    sets the cross-check sample)."""
    heap.keep_freed_memory()                 # the next chunk reuses this one's pages
    with threads.limited(job.threads):
        return _run_chunk(job, start, stop, total)


def _run_chunk(job: Job, start: int, stop: int, total: int) -> Partial:
    if gpu_chunk.fused(job):
        return gpu_chunk.run_chunk(job, start, stop, total)
    with stage("walk"):
        x = job.the_walk().patterns(start, stop)
    kernel, output = run_device_bits(job.program(), x, job.dest, job.output_format, job.engine,
                                     job.input_format)
    with stage("reference"):
        expected, refined, precision = job.reference().expected(x)
    partial = tally_lanes(job, x, output, expected, kernel, total)
    partial.refined, partial.precision = refined, precision
    return partial


def job_for(spec, arch: str, dest: str, output_format: str, policy: str, walk, selection,
            worst: int) -> Job:
    program = spec.program(arch)
    info = walk.as_dict()
    return Job(spec.name, spec.function, program.arch.name, tuple(program.words),
               tuple(ins.source for ins in program), program.init_length, dest,
               output_format, policy,
               (info["kind"], info["stride"], tuple(info["range"]) if info["range"] else None),
               (selection.range, selection.region), worst,
               # every BF16 pattern is one chunk, run as a BF16 sweep runs it ("auto": the
               # Machine unless compiled code is ready); a walk's many chunks compile
               engine=long_run_engine() if walk.input_format == "fp32" else default_engine())
