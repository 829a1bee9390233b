"""A check kernel test files make of their FP32-Dst programs: the compiled engine gives the
Machine's bits, lane for lane, on a fixed sample of FP32 input patterns. (Every registered
kernel is checked on every BF16 input by tests/test_compiled.py.)"""
from __future__ import annotations

import numpy as np

from sfpu_sim import registry
from sfpu_sim.sweeps import DevicePath, run_device

ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
FP32_SAMPLE = np.random.default_rng(20260930).integers(0, 1 << 32, 4096,
                                                       dtype=np.uint64).astype(np.uint32)


def _assert_engines_agree(name: str, chip: str, x, path: DevicePath, **kwargs) -> None:
    program = registry.get(name).program(chip)
    compiled = run_device(program, x, path, engine="compiled", **kwargs)
    machine = run_device(program, x, path, engine="machine", **kwargs)
    assert compiled.engine == "compiled", compiled.engine
    np.testing.assert_array_equal(compiled.output, machine.output)
    np.testing.assert_array_equal(compiled.kernel_fp32, machine.kernel_fp32)


def assert_engines_agree_on_fp32_inputs(name: str, chip: str) -> None:
    """Compiled = Machine on 4,096 random FP32 patterns through an FP32 Dst."""
    _assert_engines_agree(name, chip, FP32_SAMPLE, DevicePath("fp32", "fp32", "fp32"),
                          fp32_inputs=True)
