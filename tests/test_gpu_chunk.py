"""Fused GPU chunks (sfpu_sim.fp32sweep.gpu_chunk) give the CPU's FP32-sweep summary, every field,
through numba's CUDA simulator (conftest sets NUMBA_ENABLE_CUDASIM=1 unless the environment
says otherwise): a strided walk (patterns from the host), consecutive patterns (generated on
the GPU) around an input the float64 enclosure leaves undecided (certified and tallied on the
CPU, then merged), the denormal and zero inputs, a value range, and BF16 output. Under slow,
every kernel with an FP32 reference on both chips.

On an H200 (2026-11-28, ``python -m sfpu_sim.bench gpu --exhaustive``) the same comparison held
over 2**25 consecutive inputs and Tenstorrent's strided walk for reciprocal_fp32 and
tanh_fp32_2026_09 on both chips, and all 2**32 inputs ran end to end in 5.2-12.7 s.
"""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from sfpu_sim import engines, registry
from sfpu_sim.compiled import gpu
from sfpu_sim.fp32sweep import Exhaustive, Fp32SweepError, Strided, chunk, gpu_chunk, sweep_fp32
from sfpu_sim.fp32sweep.rounded_reference import SUPPORTED
from sfpu_sim.fp32sweep.run import fp32_kernels
from sfpu_sim.selection import EVERYTHING, Selection
from sfpu_sim.sweeps import uses_loadmacro

pytestmark = pytest.mark.skipif(not gpu.available(), reason=f"no GPU engine: "
                                f"{gpu.unavailable()}")

UNDECIDED_TANH = 0x3EEE0566          # the float64 enclosure of tanh cannot round it alone


def _value(bits: int) -> float:
    return float(np.uint32(bits).view(np.float32))


def _summaries(name: str, arch: str, walk, selection=EVERYTHING, output="fp32") -> dict:
    out = {}
    for engine in ("compiled", "cuda"):
        engines.set_engine(engine)
        try:
            result = sweep_fp32(registry.get(name), arch, walk, output_format=output,
                                selection=selection, worst=7, state_path=False)
        finally:
            engines.set_engine(None)
        out[engine] = result.summary
    return out


def _fused(name: str, arch: str, walk, output="fp32") -> bool:
    engines.set_engine("cuda")
    try:
        job = chunk.job_for(registry.get(name), arch, "fp32", output, "rne", walk, EVERYTHING,
                            7)
    finally:
        engines.set_engine(None)
    return gpu_chunk.fused(job)


def _assert_same(out: dict) -> None:
    cpu, on_gpu = out["compiled"], out["cuda"]
    differing = [k for k in cpu if json.dumps(cpu[k], sort_keys=True, default=str) !=
                 json.dumps(on_gpu.get(k), sort_keys=True, default=str)]
    assert not differing and cpu.keys() == on_gpu.keys(), \
        {k: (cpu[k], on_gpu.get(k)) for k in differing}


CASES = [
    pytest.param("reciprocal_fp32", "wormhole", Strided(1 << 26), EVERYTHING, 0,
                 id="strided-walk-from-the-host"),
    pytest.param("tanh_fp32_2026_09", "blackhole",
                 Exhaustive((_value(UNDECIDED_TANH - 20), _value(UNDECIDED_TANH + 20))),
                 EVERYTHING, 1, id="an-undecided-input-certified-on-the-cpu"),
    pytest.param("tanh_fp32_2026_09", "wormhole", Exhaustive((-3e-45, 3e-45)), EVERYTHING, 0,
                 id="zeros-and-denormals-both-signs"),
    pytest.param("reciprocal_fp32", "blackhole", Strided(1 << 26), Selection((-4.0, 4.0), None),
                 0, id="a-value-range"),
]


@pytest.mark.parametrize("name, arch, walk, selection, refined", CASES)
def test_a_fused_gpu_sweep_gives_the_cpu_summary(name, arch, walk, selection, refined):
    assert _fused(name, arch, walk)
    out = _summaries(name, arch, walk, selection)
    _assert_same(out)
    assert out["cuda"]["reference_refinements"]["lanes"] == refined


@pytest.mark.parametrize("name, arch, walk", [
    pytest.param("tanh_fp32_2026_09", "wormhole", Strided(1 << 26), id="strided"),
    pytest.param("reciprocal_fp32", "blackhole", Exhaustive((-3e-45, 3e-45)),
                 id="zeros-and-denormals"),
])
def test_a_fused_sweep_to_bf16_gives_the_cpu_summary(name, arch, walk):
    """The packer's FP32 -> BF16 rounding (nearest, ties away; -0 and denormals to +0, NaN to
    Inf) on the GPU, and the BF16 distances."""
    assert _fused(name, arch, walk, "bf16")
    _assert_same(_summaries(name, arch, walk, output="bf16"))


def _reference_kernels():
    return [pytest.param(name, arch, id=f"{name}@{arch}", marks=pytest.mark.slow)
            for name in fp32_kernels() if registry.get(name).function in SUPPORTED
            for arch in registry.get(name).chips]


@pytest.mark.parametrize("name, arch", _reference_kernels())
def test_every_fp32_reference_kernel_fused_gives_the_cpu_summary(name, arch):
    walk = Strided(1 << 26)
    if not _fused(name, arch, walk):
        assert uses_loadmacro(registry.get(name).program(arch)), name
        pytest.skip(f"{name} runs on the Machine (SFPLOADMACRO): its chunks do not fuse")
    _assert_same(_summaries(name, arch, walk))


def test_the_compiled_engine_and_a_loadmacro_kernel_do_not_fuse():
    engines.set_engine("compiled")
    try:
        cpu = chunk.job_for(registry.get("reciprocal_fp32"), "wormhole", "fp32", "fp32", "rne",
                            Strided(), EVERYTHING, 7)
    finally:
        engines.set_engine(None)
    assert not gpu_chunk.fused(cpu)
    assert not _fused("reciprocal_fp32_loadmacro", "blackhole", Strided())


def test_a_fused_chunk_past_its_limit_is_refused_in_one_line():
    engines.set_engine("cuda")
    try:
        with pytest.raises(Fp32SweepError, match=r"--chunk 268435456: give a whole number "
                                                 r"from 1 to 134,217,728 .* GPU memory"):
            sweep_fp32(registry.get("reciprocal_fp32"), "wormhole", Strided(),
                       output_format="fp32", chunk=1 << 28, state_path=False)
    finally:
        engines.set_engine(None)


def test_a_program_the_gpu_cannot_compile_runs_its_chunks_as_the_cpus(monkeypatch):
    """numba-cuda's limits are never a failed sweep: the chunk runs as on the CPU (the kernel
    where it can run), with the same summary."""
    walk = Strided(1 << 26)
    want = _summaries("reciprocal_fp32", "wormhole", walk)["compiled"]
    monkeypatch.setattr(gpu, "prepare", lambda *args, **kwargs: "numba-cuda could not "
                                                                "compile it (stand-in)")
    assert not _fused("reciprocal_fp32", "wormhole", walk)
    got = _summaries("reciprocal_fp32", "wormhole", walk)["cuda"]
    _assert_same({"compiled": want, "cuda": got})


def test_nvvm_is_told_to_round_every_float64_operation_once(monkeypatch):
    """ieee_float64 adds NVVM's -fma=0 unless fastmath asks for contraction (numba-cuda leaves
    NVVM's default, -fma=1, which would make the GPU's enclosures decide other inputs than the
    CPU's). Checked on a stand-in for numba-cuda's compile_ir; on the H200 the finish frames'
    PTX held no float64 FMA."""
    import types

    seen = []
    nvvm = types.SimpleNamespace(compile_ir=lambda llvmir, **options: seen.append(options))
    monkeypatch.setitem(sys.modules, "numba.cuda.cudadrv.nvvm", nvvm)
    monkeypatch.setattr(sys.modules["numba.cuda.cudadrv"], "nvvm", nvvm, raising=False)
    monkeypatch.setattr(gpu, "simulated", lambda: False)
    gpu.ieee_float64.__wrapped__()
    nvvm.compile_ir("ir", opt=3, fastmath=False)
    nvvm.compile_ir("ir", opt=3, fastmath=True)
    nvvm.compile_ir("ir", opt=3, fma=True)
    assert seen == [{"opt": 3, "fastmath": False, "fma": False}, {"opt": 3, "fastmath": True},
                    {"opt": 3, "fma": True}]
