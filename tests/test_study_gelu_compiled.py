"""The host forms against a real compiler: the study's build, bit for bit (needs g++).

tests/data/gelu_study_host.cpp writes the study's eleven methods as plain C++ in its order of
operations; compiled with ``g++ -O3 -march=native`` (the study's build, which contracts a*b + c
into FMA where the CPU has one) and with ``-ffp-contract=off`` it gives, for every one of the
65,280 inputs, the binary32 result before the BF16 cast. The host forms with ``host_fma`` on
and off must give the same bits: an independent check of every contraction decision.
"""
from __future__ import annotations

import platform
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from sfpu_sim.study import workbench

SOURCE = Path(__file__).resolve().parent / "data" / "gelu_study_host.cpp"
ORDER = ("B1", "B1v2", "R1", "R2", "R3", "R4", "R5", "A1-poly7", "A1-poly9", "B3", "C1")


def _cpu_has_fma() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return platform.machine() in ("x86_64", "AMD64") and " fma " in flags.replace("\n", " ")


@pytest.mark.slow
@pytest.mark.parametrize("contract", [True, False], ids=["fma", "no-fma"])
def test_host_forms_are_bit_identical_to_gcc(tmp_path, contract):
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    if contract and not _cpu_has_fma():
        pytest.skip("-march=native contracts only on a CPU with FMA (x86-64 with 'fma')")
    binary = tmp_path / "host"
    flags = ["-std=c++17", "-O3", "-march=native"] + ([] if contract else ["-ffp-contract=off"])
    subprocess.run(["g++", *flags, "-o", str(binary), str(SOURCE)], check=True)
    compiled = np.frombuffer(subprocess.run([str(binary)], check=True,
                                            capture_output=True).stdout, dtype=np.uint32)
    compiled = compiled.reshape(len(ORDER), -1)
    for k, method_id in enumerate(ORDER):
        ours = workbench.host_fp32(method_id, host_fma=contract).view(np.uint32)
        differ = np.flatnonzero(ours != compiled[k])
        assert differ.size == 0, (method_id, differ.size, [hex(i) for i in differ[:5]])
