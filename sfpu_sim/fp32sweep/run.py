"""Running an FP32 sweep: chunks in this process or as Dask tasks, reduced in order into one
Partial, saved after every chunk, resumed after a kill.

Owns: the chunk plan, the schedulers (``local``: chunks one after another here, each using the
compiled engine's threads; ``dask``: a ``dask.distributed`` LocalCluster, a worker process per
usable CPU as memory allows (:func:`dask_workers`);
``tcp://HOST:PORT``: an existing cluster), the resume state and progress reporting. Knows
nothing of what a chunk computes (:mod:`.chunk`) or of the summary's form (:mod:`.summary`).

Whatever the scheduler and chunk size, the summary is the same bit for bit: a Partial is
integers and exact maxima (:mod:`.tally`), merged in walk order; a worker's chunk is the same
function of the same positions. Memory stays bounded (:func:`peak_bytes`): a chunk's lane
arrays take at most :data:`LANE_BYTES` per input while it runs, a process runs one chunk at a
time (a LocalCluster worker has one thread), and the merged Partial is a few hundred kB; a
chunk size whose peak would pass :data:`MEMORY_CAP` is refused.
"""
from __future__ import annotations

import dataclasses
import functools
import time
from contextlib import closing
from urllib.parse import urlsplit

import numpy as np

from sfpu_sim import cluster, reference, registry, threads
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.fp32sweep import chunk as chunks
from sfpu_sim.fp32sweep.chunk import LANE_BYTES
from sfpu_sim.fp32sweep import gpu_chunk
from sfpu_sim.fp32sweep import state, summary
from sfpu_sim.fp32sweep.tally import Partial
from sfpu_sim.registry import KernelSpec
from sfpu_sim.selection import EVERYTHING, Selection, region, regions_for
from sfpu_sim.sweeps import SweepResult
from sfpu_sim.version import __version__

DEFAULT_CHUNK = 1 << 20
SCHEDULERS = ("local", "dask")
MIN_WORKER_CHUNK = 1 << 16            # the smallest chunk a default Dask worker count leaves
CONNECT_TIMEOUT = "10s"                # to reach a tcp:// scheduler
MEMORY_CAP = 2 << 30                   # issue 11: an FP32 sweep stays under 2 GiB
PROCESS_BYTES = 256 << 20              # an interpreter with numpy, numba and the package: 190 MB


def dask_workers(requested: int | None = None, lane_bytes: int = LANE_BYTES) -> int:
    """Worker processes of ``--scheduler dask``'s LocalCluster: ``requested`` (``--workers``),
    else one per CPU this process may use, as many as the memory cap holds with a chunk of at
    least :data:`MIN_WORKER_CHUNK` inputs each (2 on 2 CPUs, 6 on 16: each process takes
    :data:`PROCESS_BYTES`)."""
    if requested is not None:
        return requested
    fit = (MEMORY_CAP - PROCESS_BYTES) // (PROCESS_BYTES + MIN_WORKER_CHUNK * lane_bytes)
    return max(1, min(threads.max_threads(), fit))


def peak_bytes(chunk: int, scheduler: str, workers: int | None = None,
               lane_bytes: int = LANE_BYTES) -> int:
    """The most memory a sweep with chunks of ``chunk`` inputs holds on this machine: every
    local process's base, plus one running chunk per process that runs chunks (a tcp://
    cluster's workers are not on this machine: only this process counts). ``lane_bytes``: a
    running chunk's bytes per input (a pair sweep's are :data:`.pair_sweep.PAIR_BYTES`)."""
    if scheduler == "dask":
        n = dask_workers(workers, lane_bytes)
        return (1 + n) * PROCESS_BYTES + n * chunk * lane_bytes
    if scheduler == "local":
        return PROCESS_BYTES + local_concurrency(chunk, lane_bytes) * chunk * lane_bytes
    return PROCESS_BYTES


def max_chunk(scheduler: str, workers: int | None = None, lane_bytes: int = LANE_BYTES) -> int:
    """The largest power-of-two chunk whose :func:`peak_bytes` stays under the cap (local: a
    chunk that size running alone, as it would; a tcp:// cluster: the local one's, as its
    workers' memory is theirs to size); 0 when even the processes alone would pass it."""
    where = "local" if str(scheduler).startswith("tcp://") else scheduler
    if where == "local":
        return 1 << ((MEMORY_CAP - PROCESS_BYTES - 1) // lane_bytes).bit_length() - 1
    if peak_bytes(1, where, workers, lane_bytes) >= MEMORY_CAP:
        return 0
    chunk = 1
    while peak_bytes(2 * chunk, where, workers, lane_bytes) < MEMORY_CAP:
        chunk *= 2
    return chunk


class Fp32SweepError(SfpuSimError):
    pass


def sweep_fp32(kernel, arch: str, walk, *, dest: str | None = None,
               output_format: str = "bf16", reference_rounding: str = "rne",
               ulp_convention: str = "daz-index", selection: Selection = EVERYTHING,
               worst: int = 20, chunk: int | None = None, scheduler: str = "local",
               state_path=None, resume: bool = True, progress=None, after_chunk=None,
               workers: int | None = None):
    """Sweep FP32 input patterns (``walk``: :mod:`.walk`) through ``kernel`` (a KernelSpec)
    on ``arch``; returns a :class:`~sfpu_sim.sweeps.SweepResult` (per-lane arrays: None).
    With :class:`~.walk.Bf16Patterns` the inputs are every BF16 pattern, into either Dst,
    and the summary's figures are :func:`sfpu_sim.sweeps.sweep`'s (its histogram binned from
    1,024 ULP up, as here always).

    ``state_path``: the resume file (default: one per sweep key in the cache directory;
    False: none). ``resume``: False starts over even if a state exists. ``progress(done,
    total)`` after every chunk; ``after_chunk(index)`` too (tests stop a run there).
    ``workers``: processes of ``scheduler="dask"``'s LocalCluster (:func:`dask_workers`).
    ``chunk``: inputs per chunk (default: :func:`default_chunk`); the summary is the same for
    any size."""
    if not isinstance(kernel, KernelSpec):
        raise Fp32SweepError(f"sweep_fp32() takes a registered kernel "
                             f"(sfpu_sim.registry.get(name)), not {type(kernel).__name__}")
    chosen = registry.for_dest(kernel, dest)
    kernel, dest = chosen.spec, chosen.dest
    job = chunks.job_for(kernel, arch, dest, output_format, reference_rounding, walk,
                         selection, worst)
    fused = scheduler == "local" and dest == kernel.dest == "fp32" and gpu_chunk.fused(job)
    if chunk is None:
        chunk = gpu_chunk.GPU_CHUNK if fused else default_chunk(scheduler, workers,
                                                                job.lane_bytes)
    check_options(kernel, dest, output_format, ulp_convention, reference_rounding, chunk,
                  scheduler, workers, fused, job.lane_bytes, job.input_format)
    if selection.region is not None:
        region(selection.region, kernel.function)        # one of the function's regions
    job.reference()                                  # an unsupported function fails here
    # The kernel's own Program for the summary: a job's, rebuilt from words, has no
    # row_groups, so an SFPLOADMACRO kernel's cost (8 row groups a call) read 8x too high.
    program = kernel.program(arch)
    total = len(walk)
    key = state_key(job)
    path = None if state_path is False else \
        state.check_path(state_path or state.default_path(key))
    done, partial = (0, None)
    if path is not None and resume:
        done, partial = state.load(path, key, total)
    partial = partial or Partial.for_regions(len(regions_for(job.function)))
    if progress:
        progress(done, total)
    plan = [(start, min(start + chunk, total)) for start in range(done, total, chunk)]
    partial = run_plan(job, plan, total, partial, path, key, progress, after_chunk, scheduler,
                       workers)
    specials = summary.special_rows(program, job)
    worst_values = _worst_values(job, partial)
    built = summary.build(job, program, partial, walk, specials, worst_values)
    built.update(instantiation=kernel.instantiation, instantiation_note=chosen.note,
                 device_program=chosen.modelled)
    return SweepResult(built, None)


def check_options(kernel, dest: str, output_format: str, ulp_convention: str, policy: str,
                  chunk: int, scheduler: str, workers: int | None = None,
                  fused: bool = False, lane_bytes: int = LANE_BYTES,
                  input_format: str = "fp32") -> None:
    """One-line errors for what an FP32 sweep cannot do (``fused``: its chunks run whole on the
    GPU, which holds their lanes: :data:`~.gpu_chunk.GPU_CHUNK_MAX` bounds them instead;
    ``lane_bytes``: what a running chunk holds per input, :attr:`.chunk.Job.lane_bytes`;
    ``input_format``: the walk's, :attr:`.chunk.Job.input_format`: BF16 inputs take either
    Dst)."""
    if input_format == "fp32" and kernel.dest != "fp32":
        same = [s.name for s in registry.specs() if s.dest == "fp32" and
                s.function == kernel.function]
        raise Fp32SweepError(f"--in fp32 sweeps FP32 inputs through an FP32 Dst: kernel "
                             f"{kernel.name!r} is written for a BF16 Dst ("
                             + (f"FP32-Dst kernels of {kernel.function}: {', '.join(same)}"
                                if same else f"no FP32-Dst kernel computes {kernel.function}; "
                                             f"`sfpu-sim kernels` shows each kernel's Dst")
                             + ")")
    if input_format == "fp32" and dest != "fp32":
        raise Fp32SweepError("--in fp32 needs an FP32 Dst (--dest fp32): a BF16 Dst holds "
                             "BF16 values only")
    if output_format not in ("bf16", "fp32"):
        raise Fp32SweepError(f"--in fp32: output format {output_format!r} is not supported "
                             f"(choose bf16 or fp32)")
    if ulp_convention != "daz-index":
        raise Fp32SweepError(f"--in fp32 measures --ulp daz-index only, not "
                             f"{ulp_convention!r} (the others need per-lane float64 "
                             f"references or 16-bit formats)")
    if policy not in reference.policies():
        raise Fp32SweepError(f"unknown reference rounding {policy!r} (choose from: "
                             f"{', '.join(reference.policies())})")
    check_scheduling(scheduler, workers, chunk, lane_bytes, fused=fused)


def check_scheduling(scheduler: str, workers: int | None, chunk, lane_bytes: int = LANE_BYTES,
                     fused: bool = False, multiple: int = 1) -> None:
    """One-line errors for a scheduler, a worker count or a chunk size a sweep cannot use
    (``multiple``: what a chunk must be a multiple of; a pair sweep's is a row of x)."""
    if scheduler not in SCHEDULERS and not _is_tcp_address(str(scheduler)):
        raise Fp32SweepError(f"--scheduler {scheduler!r}: choose local, dask (a "
                             f"LocalCluster of worker processes) or tcp://HOST:PORT (a "
                             f"running cluster: a host name or address, a port 1 to 65535)")
    if workers is not None:
        fit = dask_workers(None, lane_bytes)
        if scheduler != "dask":
            raise Fp32SweepError(f"--workers sizes --scheduler dask's LocalCluster, not "
                                 f"--scheduler {scheduler}")
        if isinstance(workers, bool) or not isinstance(workers, int) or \
                not 1 <= workers or max_chunk(scheduler, workers) == 0:
            most = (MEMORY_CAP - PROCESS_BYTES) // PROCESS_BYTES - 1
            raise Fp32SweepError(f"--workers {workers!r}: give a whole number from 1 to {most} "
                                 f"(each worker process takes {PROCESS_BYTES >> 20} MB of the "
                                 f"{MEMORY_CAP >> 30} GiB an FP32 sweep may use; default "
                                 f"{fit})")
    largest = gpu_chunk.GPU_CHUNK_MAX if fused else max_chunk(scheduler, workers, lane_bytes)
    largest -= largest % multiple
    if isinstance(chunk, bool) or not isinstance(chunk, int) or \
            not multiple <= chunk <= largest or chunk % multiple:
        why = (f"a fused GPU chunk holds {gpu_chunk.DEVICE_LANE_BYTES} bytes of GPU memory per "
               f"input" if fused else f"more would pass {MEMORY_CAP >> 30} GiB")
        whole = "a whole number" if multiple == 1 else f"a multiple of {multiple:,}"
        raise Fp32SweepError(f"--chunk {chunk!r}: give {whole} from {multiple:,} to "
                             f"{largest:,} with --scheduler {scheduler} (inputs per chunk; "
                             f"{why})")


def _is_tcp_address(text: str) -> bool:
    """Whether ``text`` is tcp://HOST:PORT and nothing more. Checked here, before any work:
    dask itself raises from deep inside on a missing or non-numeric port, and waits out
    CONNECT_TIMEOUT on an impossible one."""
    try:
        parts = urlsplit(text)
        port = parts.port                        # ValueError: not a number, or past 65535
    except ValueError:
        return False
    return (text.startswith("tcp://") and bool(parts.hostname) and port is not None
            and 1 <= port <= 65535 and parts.username is None and parts.password is None
            and not (parts.path or parts.query or parts.fragment))


def fp32_kernels() -> list[str]:
    return [s.name for s in registry.specs() if s.dest == "fp32"]


def state_key(job) -> dict:
    """Everything that decides the summary's bits (:mod:`.state`)."""
    return {"tool": __version__, "code": state.code_digest(), "kernel": job.kernel,
            "arch": job.arch, "words": [f"{w:08x}" for w in job.words],
            "init_length": job.init_length, "function": job.function,
            "dest": job.dest, "input_format": job.input_format,
            "output_format": job.output_format,
            "policy": job.policy, "ulp_convention": "daz-index",
            "walk": [job.walk[0], job.walk[1], list(job.walk[2]) if job.walk[2] else None],
            "selection": [list(job.selection[0]) if job.selection[0] else None,
                          job.selection[1]], "worst": job.worst}


def _after(partial, done, total, path, key, progress, after_chunk, index, saved):
    """After a chunk merged: the state saved (after every chunk, or at most every
    ``job.save_interval`` seconds, and after the last), progress, the test hook. ``saved``:
    [when the state was last saved, the job's interval]."""
    if path is not None and (done == total or
                             time.monotonic() - saved[0] >= saved[1]):
        state.save(path, key, done, partial)
        saved[0] = time.monotonic()
    if progress:
        progress(done, total)
    if after_chunk:
        after_chunk(index)


def run_plan(job, plan, total, partial, path, key, progress, after_chunk, scheduler,
             workers=None):
    """Every chunk of ``plan`` (``(start, stop)`` positions) of ``job`` merged into ``partial``
    in order, on ``scheduler``, the state saved at ``path`` after each. A job is a small,
    picklable description of a sweep with ``run_chunk(start, stop, total)`` (returning a
    partial with ``merge(other, worst)`` and ``as_json()``), ``worst``, ``threads``,
    ``lane_bytes`` (a running chunk's bytes per input) and ``save_interval`` (the least
    seconds between two saved states; 0: after every chunk): an FP32 sweep's
    (:class:`.chunk.Job`) or a pair sweep's (:class:`.pair_sweep.PairJob`)."""
    run = _run_dask if scheduler != "local" else _run_local
    return run(job, plan, total, partial, path, key, progress, after_chunk, scheduler, workers)


def _run_local(job, plan, total, partial, path, key, progress, after_chunk, scheduler,
               workers=None):
    """Chunks on this process's threads, one chunk per thread, as many at once as there are
    threads and the memory cap holds (:func:`local_concurrency`), merged in walk order
    (:func:`sfpu_sim.threads.in_order`). Every stage of a chunk that touches all its inputs is
    compiled code that releases the GIL, or numpy on whole arrays, so the chunks run side by
    side."""
    width = min(local_concurrency(plan[0][1] - plan[0][0], job.lane_bytes), len(plan)) \
        if plan else 1
    saved = [time.monotonic(), job.save_interval]
    with closing(threads.in_order(lambda span: job.run_chunk(*span, total), plan,
                                  width)) as finished:
        for index, ((_, stop), part) in enumerate(zip(plan, finished)):
            partial = partial.merge(part, job.worst)
            _after(partial, stop, total, path, key, progress, after_chunk, index, saved)
    return partial


def local_concurrency(chunk: int, lane_bytes: int = LANE_BYTES,
                      thread_count: int | None = None) -> int:
    """How many chunks of ``chunk`` inputs the local scheduler runs at once: one per thread
    (:func:`sfpu_sim.threads.threads`, so ``--threads`` caps it; ``thread_count`` instead
    where given), as many as the memory cap holds beside the process (strictly under it, as
    :func:`max_chunk`)."""
    fit = (MEMORY_CAP - PROCESS_BYTES - 1) // max(1, chunk * lane_bytes)
    return max(1, min(threads.threads() if thread_count is None else thread_count, fit))


def default_chunk(scheduler: str = "local", workers: int | None = None,
                  lane_bytes: int = LANE_BYTES, thread_count: int | None = None) -> int:
    """Inputs per chunk when ``--chunk`` is not given: :data:`DEFAULT_CHUNK`, halved until
    every thread's chunk fits under the memory cap at once (the local scheduler), or as large
    as a Dask worker may hold (:func:`max_chunk`). An unknown scheduler or worker count gets
    :data:`DEFAULT_CHUNK`, for :func:`check_options` to refuse. Always a power of two, and at
    least :data:`MIN_WORKER_CHUNK` (a pair sweep's row of x) unless the cap allows less.
    ``thread_count``: the local scheduler's on a machine of that many threads (the bench)."""
    if scheduler == "local":
        count = threads.threads() if thread_count is None else thread_count
        chunk = DEFAULT_CHUNK
        while chunk > MIN_WORKER_CHUNK and \
                local_concurrency(chunk, lane_bytes, count) < count:
            chunk //= 2
        return chunk
    if scheduler == "dask" and (workers is None or type(workers) is int and workers >= 1):
        return min(DEFAULT_CHUNK, max_chunk(scheduler, workers, lane_bytes)) or DEFAULT_CHUNK
    return DEFAULT_CHUNK


def _run_dask(job, plan, total, partial, path, key, progress, after_chunk, scheduler,
              workers=None):
    """Chunks as tasks; results merged in walk order as the prefix of finished chunks grows
    (so the state always describes a prefix)."""
    if scheduler == "dask":
        client, local = cluster.connect(workers=dask_workers(workers, job.lane_bytes))
        job = dataclasses.replace(job, threads=1)   # one thread per worker process, per core
    else:
        try:
            client, local = cluster.connect(address=scheduler, timeout=CONNECT_TIMEOUT)
        except OSError as error:
            raise Fp32SweepError(f"--scheduler {scheduler}: cannot reach the cluster "
                                 f"({error})") from None
    saved = [time.monotonic(), job.save_interval]
    results = cluster.in_order(client, local, functools.partial(_chunk_task, job, total), plan,
                               "fp32-chunk")
    for index, chunk_partial in enumerate(results):
        partial = partial.merge(chunk_partial, job.worst)
        _after(partial, plan[index][1], total, path, key, progress, after_chunk, index, saved)
    return partial


def _chunk_task(job, total: int, span) -> Partial:
    """A Dask task: the chunk of walk positions ``span``."""
    return type(job).run_chunk(job, *span, total)


def _worst_values(job, partial) -> dict:
    """The exact reference (correctly rounded float64, certified) of each worst lane."""
    patterns = np.array(sorted({int(x) for x in partial.worst[:, 1]}), dtype=np.uint32)
    if patterns.size == 0:
        return {}
    values = job.reference().certified(patterns).value
    return {int(p): float(v) for p, v in zip(patterns, values)}
