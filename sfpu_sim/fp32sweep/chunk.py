"""One chunk of an FP32 sweep: its inputs through the device path, the reference and the tally.

Owns: :class:`Job` (everything that decides a chunk's bits, small and picklable, so a Dask
worker in another process can rebuild the kernel from its instruction words) and
:func:`run_chunk`, the task of a chunk: positions ``start..stop`` of the walk in, a
:class:`~.tally.Partial` out. Knows nothing of scheduling, state files or formatting.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sfpu_sim import formats, threads, ulp
from sfpu_sim.arch import get_arch
from sfpu_sim.asm import decode
from sfpu_sim.engines import long_run_engine
from sfpu_sim.fp32sweep import walk as walks
from sfpu_sim.fp32sweep.rounded_reference import Fp32Reference
from sfpu_sim.fp32sweep.tally import DENORMAL_OUTPUTS, Partial, tally_chunk
from sfpu_sim.isa.spec import Program
from sfpu_sim.selection import Selection, regions_for
from sfpu_sim.stage_timer import stage
from sfpu_sim.sweeps import DevicePath, run_device

CROSS_SAMPLE = 1 << 20     # lanes cross-checked per sweep, about (a fixed hash of the input)


@dataclass(frozen=True)
class Job:
    """A sweep as a chunk needs it: the program as words, the path, the reference, the walk."""
    kernel: str
    function: str
    arch: str
    words: tuple
    sources: tuple
    init_length: int
    dest: str
    output_format: str
    policy: str
    walk: tuple                      # (kind, stride, range) as walk.as_dict gives them
    selection: tuple                 # (range, region)
    worst: int
    threads: int | None = None       # the most compiled-loop threads a chunk uses
    engine: str = "compiled"         # or "cuda": where the kernel runs (same bits)

    def program(self):
        """The kernel program, rebuilt from its words (cached per process)."""
        program = _PROGRAMS.get(self)
        if program is None:
            arch = get_arch(self.arch)
            program = Program(arch, [decode(w, arch, s) for w, s in zip(self.words,
                                                                       self.sources)],
                              self.kernel, self.init_length)
            _PROGRAMS[self] = program
        return program

    def reference(self) -> Fp32Reference:
        ref = _REFERENCES.get((self.function, self.policy, self.output_format))
        if ref is None:
            ref = Fp32Reference(self.function, self.policy, self.output_format)
            _REFERENCES[(self.function, self.policy, self.output_format)] = ref
        return ref

    def the_walk(self):
        kind, stride, value_range = self.walk
        return walks.from_dict({"kind": kind, "stride": stride, "range": value_range})

    def the_selection(self) -> Selection:
        value_range, region = self.selection
        return Selection(tuple(value_range) if value_range else None, region)


_PROGRAMS: dict = {}
_REFERENCES: dict = {}


def run_device_bits(program, x: np.ndarray, dest: str, output_format: str,
                    engine: str = "compiled"):
    """(kernel FP32 result, device output) of FP32 input patterns through the device path,
    the kernel compiled (a chunk is one of many: compiling once pays for all of them) on the
    CPU, or on the GPU with ``engine="cuda"``."""
    run = run_device(program, x, DevicePath("fp32", output_format, dest), fp32_inputs=True,
                     engine=engine)
    return run.kernel_fp32, run.output


def run_chunk(job: Job, start: int, stop: int, total: int) -> Partial:
    """The Partial of walk positions ``start..stop`` (``total``: the walk's length, which
    sets the cross-check sample)."""
    with threads.limited(job.threads):
        return _run_chunk(job, start, stop, total)


def _run_chunk(job: Job, start: int, stop: int, total: int) -> Partial:
    with stage("walk"):
        x = job.the_walk().patterns(start, stop)
    kernel, output = run_device_bits(job.program(), x, job.dest, job.output_format, job.engine)
    with stage("reference"):
        expected, refined, precision = job.reference().expected(x)
    with stage("ulp and tally"):
        partial, distance = tally_chunk(x, output, expected, kernel, job.output_format,
                                        job.the_selection(), job.worst,
                                        regions_for(job.function))
        partial.refined, partial.precision = refined, precision
    with stage("denormals"):
        _denormals(partial, x, output, expected)
    with stage("cross-check"):
        _cross_check(partial, x, output, expected, distance, job.output_format, total)
    return partial


def _denormals(partial: Partial, x, output, expected) -> None:
    """Denormal inputs walked: how many, how many give the expected pattern, which outputs
    (the smallest :data:`~.tally.DENORMAL_OUTPUTS` patterns counted, the rest summed)."""
    denormal = formats.is_denormal(x, formats.FP32)
    out, want = output[denormal], expected[denormal]
    values, counts = np.unique(out, return_counts=True)
    partial.denormal_inputs = int(denormal.sum())
    partial.denormal_match = int((out == want).sum())
    partial.denormal_outputs = {int(v): int(c) for v, c in zip(values[:DENORMAL_OUTPUTS],
                                                               counts[:DENORMAL_OUTPUTS])}
    partial.denormal_other = int(counts[DENORMAL_OUTPUTS:].sum())
    partial.denormal_expected = tuple(int(v) for v in np.unique(want))


def _cross_check(partial: Partial, x, output, expected, distance, out_fmt: str,
                 total: int) -> None:
    """The compiled distance against ulp.py's two index methods on a fixed sample of lanes
    (a hash of the input pattern picks about CROSS_SAMPLE lanes of the whole walk)."""
    rate = max(1, total // CROSS_SAMPLE)
    mixed = x * np.uint32(2654435761)                   # modulo 2**32: uint32 wraps
    sample = (mixed < np.uint64((1 << 32) // rate)) & (distance >= 0)
    if not sample.any():
        return
    e, a = expected[sample], output[sample]
    bitwise = np.abs(ulp.index(e, out_fmt) - ulp.index(a, out_fmt))
    search = np.abs(ulp.index_by_search(e, out_fmt) - ulp.index_by_search(a, out_fmt))
    partial.cross_pairs = int(sample.sum())
    partial.cross_agree = int(((bitwise == distance[sample]) & (search == bitwise)).sum())


def job_for(spec, arch: str, dest: str, output_format: str, policy: str, walk, selection,
            worst: int) -> Job:
    program = spec.program(arch)
    info = walk.as_dict()
    return Job(spec.name, spec.function, program.arch.name, tuple(program.words),
               tuple(ins.source for ins in program), program.init_length, dest,
               output_format, policy,
               (info["kind"], info["stride"], tuple(info["range"]) if info["range"] else None),
               (selection.range, selection.region), worst, engine=long_run_engine())
