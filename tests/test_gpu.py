"""The GPU engine (sfpu_sim.compiled.gpu) gives the Machine's bits, run through numba's CUDA
simulator (conftest sets NUMBA_ENABLE_CUDASIM=1 unless the environment says otherwise): every
registered kernel x chip through an FP32 Dst on 32 FP32 patterns (one SFPU: edge values and
random ones), the covering subset of tests/test_compiled.py through its registered Dst on 128
BF16 patterns (a block of four SFPUs), and under the slow marker every other kernel through its
registered Dst too. The simulator runs a lane in about a millisecond of Python, so a few
thousand inputs per kernel would add hours to CI; the H100 run checked far more (below).

The simulator runs the same generated kernel source as a GPU, one Python thread per lane; what
it cannot show (numba-cuda's code generation) was checked on an H100 (2026-11-27): these tests
with NUMBA_ENABLE_CUDASIM=0, then with a 4,096-input variant of both paths (1,239 of 1,269 ran
before the time limit, all passing), and every Dst cell and captured LReg of reciprocal_fp32,
gelu and tanh_fp32_2026_09 equal to the CPU compiled engine's over 2 x 2**24 inputs per chip
(``python -m sfpu_sim.bench gpu``)."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from sfpu_sim import engines, registry
from sfpu_sim.cli import main
from sfpu_sim.compiled import gpu
from sfpu_sim.sweeps import DevicePath, run_device, uses_loadmacro
from tests.test_compiled import COVERING, _expect_compiled, _first_difference

pytestmark = pytest.mark.skipif(not gpu.available(), reason=f"no GPU engine: "
                                f"{gpu.unavailable()}")
# A module global: the simulator swaps a kernel's global ``cuda`` for its own while it runs.
cuda = pytest.importorskip("numba.cuda")

EDGES = np.array([0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x80800000,
                  0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
                  0x7FC00000, 0xFFC00001, 0x7F800001, 0x3F000000, 0x40490FDB, 0xC0A00000,
                  0x33800000, 0x4B000000], dtype=np.uint32)


def _fp32_patterns(count: int) -> np.ndarray:
    """The edge values, then random normal values with |x| in [2**-30, 2**30), then random
    patterns: ``count`` in all, from a fixed seed."""
    rng = np.random.default_rng(20261127)
    rest = count - EDGES.size
    normal = (rng.integers(0, 2, rest // 2, dtype=np.uint32) << np.uint32(31)) \
        | (rng.integers(97, 157, rest // 2, dtype=np.uint32) << np.uint32(23)) \
        | rng.integers(0, 1 << 23, rest // 2, dtype=np.uint32)
    raw = rng.integers(0, 1 << 32, rest - rest // 2, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([EDGES, normal, raw])


def _bf16_patterns(count: int) -> np.ndarray:
    return (_fp32_patterns(count) >> np.uint32(16)).astype(np.uint16)


def _programs(subset=None):
    return [pytest.param(spec, arch, id=f"{spec.name}@{arch}",
                         marks=() if subset is None or (spec.name, arch) in subset
                         else pytest.mark.slow)
            for spec in registry.specs() for arch in spec.chips]


def _same(spec, arch, inputs, path, fp32_inputs) -> None:
    program = spec.program(arch)
    on_gpu = run_device(program, inputs, path, fp32_inputs=fp32_inputs, engine="cuda")
    machine = run_device(program, inputs, path, fp32_inputs=fp32_inputs, engine="machine")
    if _expect_compiled(program) and not uses_loadmacro(program):
        assert on_gpu.engine == "cuda", on_gpu.engine
    for name in ("output", "kernel_fp32"):
        got, want = getattr(on_gpu, name), getattr(machine, name)
        assert np.array_equal(got, want), _first_difference(name, got, want, inputs)


# Every program under ``slow``; by default the covering subset (tests.test_compiled: every
# instruction form a kernel uses), as for the compiled engine: the simulator runs a Python
# thread per lane, 0.1 s a program, 47 s of the default suite's summed test time for all 433.
@pytest.mark.parametrize("spec, arch", _programs(COVERING))
def test_gpu_equals_machine_through_the_fp32_device_path(spec, arch):
    _same(spec, arch, _fp32_patterns(32), DevicePath("fp32", "fp32", "fp32"), True)


@pytest.mark.parametrize("spec, arch", _programs(COVERING))
def test_gpu_equals_machine_through_the_registered_dst(spec, arch):
    _same(spec, arch, _bf16_patterns(128), DevicePath(dest=spec.dest), False)



def test_an_fp32_sweep_on_the_gpu_gives_the_cpu_summary(tmp_path, capsys):
    """The CLI's sweep, --engine cuda (its chunks fused on the GPU) against --engine
    compiled: the same JSON bytes. In this process (the engine is process-wide: reset after)."""
    outputs = []
    for engine in ("cuda", "compiled"):
        try:
            code = main(["sweep", "reciprocal_fp32", "--arch", "blackhole", "--in", "fp32",
                         "--exhaustive", "--range=1,1.000005", "--json", "--engine", engine,
                         "--state", str(tmp_path / f"{engine}.json")])
        finally:
            engines.set_engine(None)
        out, err = capsys.readouterr()
        assert code == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1]
    assert '"count": 42,' in outputs[0]


def test_engine_cuda_without_a_gpu_is_one_line_and_exit_2():
    environment = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    done = subprocess.run([sys.executable, "-m", "sfpu_sim", "eval", "exp", "--arch",
                           "wormhole", "--engine", "cuda", "1.0"], env=environment,
                          capture_output=True, text=True, timeout=120)
    if done.returncode == 0:
        pytest.skip("a GPU is present: --engine cuda runs")
    assert done.returncode == 2
    assert done.stderr.startswith("sfpu-sim: error: --engine cuda: ")
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_sfpconfig_values_cross_lanes_on_the_gpu_as_on_the_cpu():
    """exp's init writes its constant LRegs with SFPCONFIG, whose per-lane value comes from
    lanes 0-7 of the SFPU: on the GPU through a shared array and a barrier (lanes_meet)."""
    spec = registry.get("exp")
    program = spec.program("wormhole")
    assert any(i.mnemonic == "SFPCONFIG" for i in program)
    _same(spec, "wormhole", _bf16_patterns(96), DevicePath(dest=spec.dest), False)


@pytest.mark.skipif(not gpu.simulated(), reason="the race is the CUDA simulator's")
def test_a_block_shares_one_array_when_a_thread_switch_splits_its_making(monkeypatch):
    """numba's simulator makes a block's shared array on the first lane's lookup; a thread
    switch between the lookup and the store let two lanes each make one, and a fused chunk's
    lane classes came out short in CI. Here every making sleeps, so the other lanes run in that
    window: each lane must still write into the one array lane 0 reads."""
    make = np.empty

    def make_slowly(*args, **kwargs):
        import time

        time.sleep(0.001)
        return make(*args, **kwargs)

    @cuda.jit
    def every_lane_marks_its_slot(out):
        marks = cuda.shared.array(32, np.int64)
        marks[cuda.threadIdx.x] = 1
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            total = 0
            for lane in range(32):
                total += marks[lane]
            out[0] = total

    out = np.zeros(1, dtype=np.int64)
    monkeypatch.setattr(np, "empty", make_slowly)
    every_lane_marks_its_slot[1, 32](out)
    assert out[0] == 32


def test_a_kernel_generated_once_is_loaded_from_the_program_index(tmp_path, monkeypatch):
    """The second process (here: the in-process memory emptied) reads the kernel's source and
    end state from the program index instead of translating the program again."""
    from sfpu_sim import compiled, jit
    from sfpu_sim.sweeps import _device_state, _last_store

    monkeypatch.setattr(jit, "program_directory", lambda: tmp_path)
    program = registry.get("exp").program("wormhole")
    template = _device_state(program, DevicePath("fp32", "fp32", "fp32"), 32)
    instructions = compiled._instructions(program, template)
    monkeypatch.setattr(gpu, "_MEMORY", {})
    generated = gpu.compile_for(template, instructions, _last_store(program))
    assert list(tmp_path.glob("sfpu_sim_index_*.json"))

    def no_translation(*args, **kwargs):
        raise AssertionError("translated again")

    monkeypatch.setattr(gpu, "_MEMORY", {})
    monkeypatch.setattr(gpu, "Translation", no_translation)
    loaded = gpu.compile_for(template, instructions, _last_store(program))
    assert loaded.function is not generated.function
    assert (loaded.source, loaded.index_entry()) == (generated.source, generated.index_entry())


def test_numpy_without_row_stack_gets_the_alias_numba_cuda_names(monkeypatch):
    """numpy 2.5 removed np.row_stack; numba-cuda 0.30.4 overloads it at a kernel's first
    typing, which refused every program on the H200 image of 2026-11-28 (numpy 2.5.2)."""
    monkeypatch.delattr(np, "row_stack", raising=False)
    gpu._adapt_numba_cuda_to_numpy()
    assert np.row_stack is np.vstack
    kept = object()
    monkeypatch.setattr(np, "row_stack", kept, raising=False)
    gpu._adapt_numba_cuda_to_numpy()                        # an existing one is left alone
    assert np.row_stack is kept
