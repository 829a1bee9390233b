"""Every case of ttsim_sfpu_{wh,bh}.npz, bit for bit: single instructions and short CC / PRNG /
config sequences executed by Tenstorrent's ttsim (tests/data/vectors/README.md). The default
suite reads the subset in tests/data/vectors (every instruction and mode combination); the slow
suite the full sets, where they are present."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from sfpu_sim.machine import HazardWarning, Machine
from tests.conftest import VECTOR_SETS, VECTORS

FILES = {"wormhole": "ttsim_sfpu_wh.npz", "blackhole": "ttsim_sfpu_bh.npz"}
_CACHE: dict[tuple, dict] = {}


def vectors(arch: str, directory=VECTORS) -> dict:
    if (arch, directory) not in _CACHE:
        path = directory / FILES[arch]
        _CACHE[arch, directory] = dict(np.load(path)) if path.exists() else {}
    return _CACHE[arch, directory]


def combos(arch: str) -> list[str]:
    data = vectors(arch)
    return [str(name) for name in data["combo_names"]] if data else ["<vectors absent>"]


def run_case(data: dict, arch: str, i: int) -> Machine:
    m = Machine(arch)
    m.lreg[:8] = data["lreg_in"][i]
    m.lreg[8:] = data["lreg_const"]
    enable, flags = (int(v) for v in data["cc_in"][i])
    m.cc.enable = bool(enable)
    m.cc.flags[:] = (flags >> np.arange(32)) & 1
    m.config.sfpu_fp32 = bool(data["sfpu_fp32"][i])
    width = int(data["dst_bits"][i])
    if width:
        m.dst.write_raw(data["dst_row"][i], data["dst_col"][i], data["dst_in"][i], width)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HazardWarning)   # ttsim does not model timing either
        m.run(data["insn"][i, :data["n_insn"][i]])
    return m


def describe(data: dict, i: int) -> str:
    words = " ".join(f"{w:#010x}" for w in data["insn"][i, :data["n_insn"][i]])
    return f"case {i} ({data['mnemonic'][i]} mode {data['mode'][i]}; words {words})"


def check_case(data: dict, arch: str, i: int) -> list[str]:
    m = run_case(data, arch, i)
    problems = []
    for reg in range(8):
        got, want = m.lreg[reg], data["lreg_out"][i, reg]
        if not np.array_equal(got, want):
            lane = int(np.flatnonzero(got != want)[0])
            problems.append(f"L{reg} lane {lane}: got {got[lane]:#010x}, want {want[lane]:#010x}")
    for reg in range(8):
        got, want = m.lreg[8 + reg], data["lconst_out"][i, reg]
        if not np.array_equal(got, want):
            lane = int(np.flatnonzero(got != want)[0])
            problems.append(f"L{8 + reg} lane {lane}: got {got[lane]:#010x}, "
                            f"want {want[lane]:#010x}")
    enable, flags, depth = (int(v) for v in data["cc_out"][i])
    got_flags = int(np.sum(m.cc.flags.astype(np.uint64) << np.arange(32, dtype=np.uint64)))
    if (int(m.cc.enable), got_flags, m.cc.depth) != (enable, flags, depth):
        problems.append(f"CC: got enable={int(m.cc.enable)} flags={got_flags:#010x} "
                        f"depth={m.cc.depth}, want enable={enable} flags={flags:#010x} "
                        f"depth={depth}")
    width = int(data["dst_bits"][i])
    if width:
        got = m.dst.read_raw(data["dst_row"][i], data["dst_col"][i], width)
        want = data["dst_out"][i]
        if not np.array_equal(got, want):
            lane = int(np.flatnonzero(got != want)[0])
            problems.append(f"Dst cell of lane {lane}: got {got[lane]:#x}, want {want[lane]:#x}")
    return problems


@pytest.mark.parametrize("directory", VECTOR_SETS)
@pytest.mark.parametrize("arch,combo", [(a, c) for a in FILES for c in combos(a)])
def test_ttsim_combo_bit_for_bit(arch, combo, directory):
    data = vectors(arch, directory)
    if not data:
        pytest.skip(f"{directory / FILES[arch]} is absent (the full sets live in the steering "
                    f"repo's shared/)")
    cases = np.flatnonzero(data["combo_names"][data["combo"]] == combo)
    failures = []
    for i in cases:
        problems = check_case(data, arch, int(i))
        if problems:
            failures.append(f"{describe(data, int(i))}: " + "; ".join(problems[:3]))
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n" + \
        "\n".join(failures[:8])
