"""Compiled programs agree with the per-instruction Machine bit for bit: every registered kernel
on both chips (all 65,536 BF16 inputs through its registered Dst, random FP32 patterns through
an FP32 Dst, and random FP32 Dst state; a covering subset by default, every kernel under the
slow marker), and ttsim's own whole-kernel outputs (tests/data/vectors/ttsim_kernels.npz)
through both paths: every row on the Machine, a covering subset compiled by default (every row
under slow).

The Machine is the reference here (it passes ttsim's single-instruction and whole-kernel
vectors); the ttsim replay pins both paths to Tenstorrent's simulator independently."""
from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from sfpu_sim import compiled, registry
from sfpu_sim.asm import assemble, decode
from sfpu_sim.machine import Machine, ProgramWarning
from sfpu_sim.sweeps import DevicePath, SweepError, _last_store, run_device, uses_loadmacro
from tests.conftest import VECTORS

SEED = 20261126
# Instructions the compiled path leaves to the Machine (cross-lane or not modelled there).
NOT_COMPILED = {"SFPTRANSP", "SFPLOADMACRO"}


# Compiling is the cost of these checks (1-5 s a program, cold): the default suite runs them on
# a covering subset of kernel x chip programs, the slow suite on every one. The subset is these
# kernels (CC nesting, SFPSWAP, SFPGT, LUTs, integer and conversion paths, FP32 Dst, assembly
# bodies, SFPLOADMACRO's fallback), each on one chip, the two chips in turn (the code generator
# does not depend on the chip; each chip's FMA is in every program), then, shortest programs
# first, every kernel x chip that uses an instruction form (chip, mnemonic, mod1) none before
# it uses. The subset is recorded in tests/data/compiled_covering.json with the programs whose
# store the macro schedules (finding either builds all 419 programs, which every xdist worker
# would pay at collection); test_the_default_subset_uses_every_instruction_form_a_kernel_uses
# holds the record to those rules, and python -m tests.test_compiled --write-covering records
# it again.
COVERING_FILE = Path(__file__).resolve().parent / "data" / "compiled_covering.json"
SEED_KERNELS = ("exp", "tanh", "log", "gelu", "reciprocal_fp32", "sqrt_fp32",
                "tanh_fp32_2026_09", "exp_2026_09", "erf_2026_09", "mish_2026_09",
                "atan_2026_09", "hellas_sin_fp32", "sigmoid_llk_lut", "cos_2026_02",
                "cast_fp32_to_fp16a_2026_09", "floor_2026_09", "exp_approx_loadmacro")


def _forms(spec, arch: str) -> set:
    return {(arch, i.mnemonic, getattr(i, "mod1", None)) for i in spec.program(arch)}


def _covering() -> set[tuple[str, str]]:
    """(kernel name, chip) pairs: the seeds, then a greedy cover of every instruction form."""
    chosen = set()
    for k, name in enumerate(SEED_KERNELS):
        chips = registry.get(name).chips
        chosen.add((name, chips[k % len(chips)]))
    seen = set().union(*(_forms(registry.get(name), arch) for name, arch in chosen))
    pairs = sorted(((spec, arch) for spec in registry.specs() for arch in spec.chips),
                   key=lambda pair: (len(pair[0].program(pair[1])), pair[0].name, pair[1]))
    for spec, arch in pairs:
        new = _forms(spec, arch) - seen
        if new:
            chosen.add((spec.name, arch))
            seen |= new
    return chosen


def _macro_stores() -> set[tuple[str, str]]:
    """(kernel name, chip) pairs whose store the macro schedules (no issued SFPSTORE)."""
    return {(spec.name, arch) for spec in registry.specs() for arch in spec.chips
            if uses_loadmacro(spec.program(arch))}


def _recorded() -> dict:
    if not COVERING_FILE.exists():         # before the first --write-covering
        return {"covering": [], "macro_stores": []}
    return json.loads(COVERING_FILE.read_text())


_RECORD = _recorded()
COVERING = {tuple(pair) for pair in _RECORD["covering"]}
MACRO_STORES = {tuple(pair) for pair in _RECORD["macro_stores"]}


def _programs(issued_store: bool = False):
    """Every registered kernel x chip, those outside :data:`COVERING` marked slow; with
    ``issued_store``, only those whose output leaves through an issued SFPSTORE (not
    :data:`MACRO_STORES`: an SFPLOADMACRO kernel's store is scheduled by the macro)."""
    return [pytest.param(spec, arch, id=f"{spec.name}@{arch}",
                         marks=() if (spec.name, arch) in COVERING else pytest.mark.slow)
            for spec in registry.specs() for arch in spec.chips
            if not issued_store or (spec.name, arch) not in MACRO_STORES]


def test_the_default_subset_uses_every_instruction_form_a_kernel_uses():
    every = [(spec, arch) for spec in registry.specs() for arch in spec.chips]
    stale = COVERING - {(spec.name, arch) for spec, arch in every}
    assert not stale, f"{sorted(stale)} are not registered kernel x chip programs"
    missing = set().union(*(_forms(spec, arch) for spec, arch in every)) - \
        set().union(*(_forms(registry.get(n), arch) for n, arch in COVERING))
    again = "record it again with python -m tests.test_compiled --write-covering"
    assert not missing, f"no program of the default subset uses {sorted(missing)[:5]}: {again}"
    assert len(COVERING) < len(every) // 8
    assert MACRO_STORES == _macro_stores(), f"the macro-scheduled stores changed: {again}"


def _expect_compiled(program) -> bool:
    return len(program) <= compiled.MAX_INSTRUCTIONS and not any(
        i.mnemonic in NOT_COMPILED or i.mnemonic == "SFPSHFT2" and i.mod1 < 5 for i in program)


def _first_difference(name: str, got, want, inputs) -> str:
    lane = int(np.flatnonzero(got != want)[0])
    return (f"{name}: {int((got != want).sum())} lanes differ, first input {int(inputs[lane]):#x}: "
            f"compiled {int(got[lane]):#x}, Machine {int(want[lane]):#x}")


@pytest.mark.parametrize("spec, arch", _programs())
def test_compiled_equals_machine_on_every_bf16_input(spec, arch):
    program = spec.program(arch)
    path = DevicePath(dest=spec.dest)
    inputs = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    fast = run_device(program, inputs, path, engine="compiled")
    reference = run_device(program, inputs, path, engine="machine")
    assert reference.engine == "machine"
    assert fast.engine == "compiled" or not _expect_compiled(program), fast.engine
    for name in ("output", "kernel_fp32"):
        got, want = getattr(fast, name), getattr(reference, name)
        assert np.array_equal(got, want), _first_difference(name, got, want, inputs)


FP32_SAMPLE = np.random.default_rng(20260930).integers(0, 1 << 32, 4096,
                                                       dtype=np.uint64).astype(np.uint32)


# The FP32 path compiles the kernel against an FP32 Dst: for the kernels registered with one
# that is the program the BF16-input check above already compiled; for the others a second
# program, so by default four of them (two seeds on each chip), the rest under slow.
FP32_PATH_EXTRA = {("exp", "wormhole"), ("log", "wormhole"), ("gelu", "blackhole"),
                   ("tanh", "blackhole")}


def _fp32_path_programs():
    return [pytest.param(spec, arch, id=f"{spec.name}@{arch}",
                         marks=() if (spec.name, arch) in COVERING and (
                             spec.dest == "fp32" or (spec.name, arch) in FP32_PATH_EXTRA)
                         else pytest.mark.slow)
            for spec in registry.specs() for arch in spec.chips]


@pytest.mark.parametrize("spec, arch", _fp32_path_programs())
def test_compiled_equals_machine_through_the_fp32_device_path(spec, arch):
    """4,096 random FP32 patterns in and out through an FP32 Dst (the dest=Yes cells' path,
    which every kernel without an FP32-Dst twin runs too)."""
    program = spec.program(arch)
    path = DevicePath("fp32", "fp32", "fp32")
    fast = run_device(program, FP32_SAMPLE, path, fp32_inputs=True, engine="compiled")
    reference = run_device(program, FP32_SAMPLE, path, fp32_inputs=True, engine="machine")
    assert fast.engine == "compiled" or not _expect_compiled(program), fast.engine
    for name in ("output", "kernel_fp32"):
        got, want = getattr(fast, name), getattr(reference, name)
        assert np.array_equal(got, want), _first_difference(name, got, want, FP32_SAMPLE)


def _random_fp32(count: int) -> np.ndarray:
    """``count`` random 32-bit patterns, then ``count`` random normal values (biased exponent
    100..154, random sign and mantissa), from a fixed seed."""
    rng = np.random.default_rng(SEED)
    raw = rng.integers(0, 1 << 32, count, dtype=np.uint32)
    normal = (rng.integers(0, 2, count, dtype=np.uint32) << np.uint32(31)) \
        | (rng.integers(100, 155, count, dtype=np.uint32) << np.uint32(23)) \
        | rng.integers(0, 1 << 23, count, dtype=np.uint32)
    return np.concatenate([raw, normal])


def _fp32_machine(arch: str, values: np.ndarray) -> Machine:
    """Dst FP32 (ALU_ACC_CTRL_SFPU_Fp32_enabled), one value per lane at address 0, CC enabled
    with every flag set (the state sfpu_sim.sweeps starts kernels in)."""
    m = Machine(arch, lanes=values.size, dst_rows=16)
    m.config.sfpu_fp32 = True
    m.cc.enable = True
    m.cc.flags[:] = True
    m.dst.write_lanes(0, values, "fp32")
    return m


def _assert_same_state(a: Machine, b: Machine, inputs) -> None:
    for name, got, want in (("LRegs", a.lreg, b.lreg), ("LReg[16]", a.lreg_macro, b.lreg_macro),
                            ("Dst", a.dst.bits, b.dst.bits), ("PRNG", a.prng, b.prng)):
        assert np.array_equal(got, want), f"{name} differ"
    assert np.array_equal(a.cc.flags, b.cc.flags), "LaneFlags differ"
    assert (a.cc.enable, a.cc.depth, a.rwc) == (b.cc.enable, b.cc.depth, b.rwc)
    for (flags_a, enable_a), (flags_b, enable_b) in zip(a.cc.stack, b.cc.stack):
        assert enable_a == enable_b and np.array_equal(flags_a, flags_b), "CC stack differs"
    got, want = a.dst.read_lanes(0, "fp32"), b.dst.read_lanes(0, "fp32")
    assert np.array_equal(got, want), _first_difference("Dst outputs", got, want, inputs)


@pytest.mark.parametrize("spec, arch", _programs(issued_store=True))
def test_compiled_equals_machine_on_random_fp32_dst_inputs(spec, arch):
    program = spec.program(arch)
    values = _random_fp32(1 << 14)
    store = _last_store(program)
    fast, reference = _fp32_machine(arch, values), _fp32_machine(arch, values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProgramWarning)
        captured, why_not = compiled.execute(fast, program, capture_at=store)
        reference.run(program.instructions[:store])
        wanted = reference.read(program[store].vd).copy()
        reference.run(program.instructions[store:])
    assert why_not is None or not _expect_compiled(program), why_not
    assert np.array_equal(captured, wanted), \
        _first_difference("kernel_fp32", captured, wanted, values)
    _assert_same_state(fast, reference, values)


# --------------------------------------------------------------------------------------------
# ttsim v1.10.0's whole-kernel vectors (tests/data/vectors/README.md), through both paths
# --------------------------------------------------------------------------------------------

_TTSIM: dict = {}


def _ttsim() -> dict:
    """The arrays of ttsim_kernels.npz, read once (NpzFile decompresses on every access)."""
    if not _TTSIM:
        path = VECTORS / "ttsim_kernels.npz"
        if not path.exists():
            pytest.skip(f"ttsim whole-kernel vectors {path} are absent (tests/data/vectors is "
                        f"part of the repository: python -m tests.vector_subset rebuilds it)")
        with np.load(path) as data:
            _TTSIM.update({name: data[name] for name in data.files})
    return _TTSIM


def _ttsim_forms(data: dict, row: int) -> set:
    arch = str(data["arch"][row])
    words = data["words"][row, :data["n_words"][row]]
    return {(arch, i.mnemonic, getattr(i, "mod1", None))
            for i in (decode(int(w), arch) for w in words)}


def _ttsim_rows(compiled_check: bool = False) -> list:
    """Every row of ttsim_kernels.npz; with ``compiled_check``, those outside the default
    subset marked slow. That subset: the rows of :data:`COVERING` programs, then, shortest
    first, every row that uses an instruction form none before it uses (the Machine replays
    every row by default; compiling is what costs)."""
    path = VECTORS / "ttsim_kernels.npz"
    if not path.exists():
        return [pytest.param(0, marks=pytest.mark.skip(reason=f"{path} is absent"))]
    with np.load(path) as npz:
        data = {name: npz[name] for name in npz.files}
    pairs = [(str(kernel), str(arch)) for kernel, arch in zip(data["kernel"], data["arch"])]
    default = {i for i, pair in enumerate(pairs) if pair in COVERING}
    seen = set().union(*(_ttsim_forms(data, i) for i in default))
    for i in sorted(range(len(pairs)), key=lambda i: (int(data["n_words"][i]), pairs[i])):
        forms = _ttsim_forms(data, i)
        if forms - seen:
            default.add(i)
            seen |= forms
    return [pytest.param(i, id=f"{kernel}@{arch}",
                         marks=() if not compiled_check or i in default else pytest.mark.slow)
            for i, (kernel, arch) in enumerate(pairs)]


def _ttsim_machine(data: dict, i: int) -> Machine:
    """Row ``i``'s starting state as ttsim v1.10.0's runs began (LReg 0-7 zero, 8-15 the
    constants, CC enabled with every flag set, the inputs in Dst), all 128 SFPUs."""
    lanes = data["inputs"].shape[1]
    m = Machine(str(data["arch"][i]), lanes=lanes, dst_rows=16)
    m.lreg[:8] = 0
    m.lreg[8:16] = np.tile(data["lreg_const"], lanes // 32)
    m.cc.enable = True
    m.cc.flags[:] = True
    m.config.sfpu_fp32 = str(data["dest"][i]) == "fp32"
    cells = data["inputs"][i].reshape(-1, 32)
    m.dst.write_raw(data["dst_row"], data["dst_col"], cells, width=int(data["width"][i]))
    return m


def _cc_state(m: Machine) -> np.ndarray:
    """(enable, flags bitmask, depth) per SFPU, as cc_out stores it."""
    weights = np.uint64(1) << np.arange(32, dtype=np.uint64)
    flags = (m.cc.flags.reshape(-1, 32).astype(np.uint64) * weights).sum(axis=1)
    out = np.empty((m.groups, 3), dtype=np.uint64)
    out[:, 0], out[:, 1], out[:, 2] = int(m.cc.enable), flags, m.cc.depth
    return out


def _ttsim_replay(row: int, engine: str) -> None:
    data = _ttsim()
    words = [int(w) for w in data["words"][row, :data["n_words"][row]]]
    width = int(data["width"][row])
    m = _ttsim_machine(data, row)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProgramWarning)      # ttsim models no timing
        if engine == "machine":
            m.run(words)
        else:
            _, why_not = compiled.execute(m, words)
            assert why_not is None, why_not
    got = m.dst.read_raw(data["dst_row"], data["dst_col"], width, slice(None))
    want = data["outputs"][row].reshape(-1, 32)
    assert np.array_equal(got, want), \
        f"{engine}: {int((got != want).sum())} Dst cells differ from ttsim"
    assert np.array_equal(_cc_state(m), data["cc_out"][row]), f"{engine}: CC state differs"


@pytest.mark.parametrize("row", _ttsim_rows())
def test_ttsim_whole_kernels_replay_on_the_machine(row):
    _ttsim_replay(row, "machine")


@pytest.mark.parametrize("row", _ttsim_rows(compiled_check=True))
def test_ttsim_whole_kernels_replay_compiled(row):
    _ttsim_replay(row, "compiled")


# --------------------------------------------------------------------------------------------
# Falling back, never a wrong answer
# --------------------------------------------------------------------------------------------

def _fresh(arch="blackhole", lanes=64) -> Machine:
    m = Machine(arch, lanes=lanes, dst_rows=16)
    m.cc.enable = True
    m.cc.flags[:] = True
    m.lreg[:8] = np.arange(8 * lanes, dtype=np.uint32).reshape(8, lanes) * np.uint32(0x01010101)
    return m


@pytest.mark.parametrize("text, reason", [
    ("SFPTRANSP 0, 0, 0, 0", "SFPTRANSP"),
    ("SFPSHFT2 0, L1, L2, SUBVEC_SHFLROR1", "moves values between lanes"),
    ("SFPCONFIG 0, 15, 0", "LaneConfig"),
    ("SFPMAD L0, L1, L2, L3, INDIRECT_VA", "indirect"),
    ("SFPPOPC 0, 0, 0, 0", "pops an empty CC stack"),
])
def test_what_is_not_compiled_runs_on_the_machine_with_its_reason(text, reason):
    program = assemble(text, "blackhole")
    fast, reference = _fresh(), _fresh()
    try:
        reference.run(program)
    except Exception as error:                 # the Machine's own answer, error included
        with pytest.raises(type(error)):
            compiled.execute(fast, program)
        assert reason in compiled.compile_for(_fresh(), list(program))
        return
    _, why_not = compiled.execute(fast, program)
    assert why_not is not None and reason in why_not
    assert np.array_equal(fast.lreg, reference.lreg)


def test_tracing_and_lane_config_run_on_the_machine():
    program = assemble("SFPMAD L0, L1, L2, L3, 0", "wormhole")
    m = _fresh("wormhole")
    m.record([0])
    assert "tracing" in compiled.execute(m, program)[1]
    m = _fresh("wormhole")
    m.lane_config[3] = 1
    assert "LaneConfig" in compiled.execute(m, program)[1]


def test_run_device_engine_keyword():
    spec = registry.get("exp")
    program = spec.program("wormhole")
    inputs = np.array([0x3F80, 0xBF80, 0x0000], dtype=np.uint16)
    assert run_device(program, inputs, engine="compiled").engine == "compiled"
    assert run_device(program, inputs, engine="machine").engine == "machine"
    assert run_device(program, inputs, trace_lanes=[0]).engine == "machine"
    assert run_device(program, inputs, trace_lanes=[0], engine="compiled").engine == "machine"
    with pytest.raises(SweepError, match="unknown engine 'gpu'"):
        run_device(program, inputs, engine="gpu")


def test_auto_engine_compiles_only_what_pays(monkeypatch, tmp_path):
    """"auto" (the default) runs a program never compiled on the Machine when the run is short,
    compiles it when the run is long, and runs it compiled once it is compiled: in this
    process, or in the disk cache (a fresh process: the in-process memories emptied)."""
    from sfpu_sim import jit, sweeps

    monkeypatch.setattr(jit, "program_directory", lambda: tmp_path)
    monkeypatch.setattr(compiled, "_MEMORY", {})
    monkeypatch.setattr(compiled, "_ON_DISK", {})
    # A program no other test compiles: exp's body with a constant of its own.
    program = assemble("SFPLOAD L0, 0, 0, 0\nSFPLOADI L1, 0, 0x3fc1\n"
                       "SFPMAD L0, L1, L9, L0, 0\nSFPSTORE L0, 0, 0, 0\n", "wormhole")
    inputs = np.array([0x3F80, 0xBF80, 0x4000], dtype=np.uint16)
    want = run_device(program, inputs, engine="machine").output
    short = run_device(program, inputs)
    assert short.engine == "machine"                        # the program named, not built:
    assert not list(tmp_path.glob("sfpu_sim_program_*")) and not list(tmp_path.glob("*.ready"))
    monkeypatch.setattr(sweeps, "AUTO_COMPILE_WORK", 3 * len(program) - 1)
    long = run_device(program, inputs)                       # over the threshold: compiled
    assert long.engine == "compiled"
    assert [p.suffix for p in sorted(tmp_path.glob("*.ready"))] == [".ready"]
    monkeypatch.setattr(sweeps, "AUTO_COMPILE_WORK", 1 << 40)
    assert run_device(program, inputs).engine == "compiled"   # compiled in this process
    monkeypatch.setattr(compiled, "_MEMORY", {})                # a fresh process:
    monkeypatch.setattr(compiled, "_ON_DISK", {})
    assert run_device(program, inputs).engine == "compiled"   # in the disk cache
    for p in tmp_path.glob("*.ready"):
        p.unlink()
    monkeypatch.setattr(compiled, "_MEMORY", {})
    monkeypatch.setattr(compiled, "_ON_DISK", {})               # a fresh process
    assert run_device(program, inputs).engine == "machine"
    for run in (short, long):
        np.testing.assert_array_equal(run.output, want)


def test_compiled_state_matches_after_cc_stack_and_sfpconfig_broadcast():
    """Predication, the CC stack left non-empty, and SFPCONFIG's broadcast from grid row 0
    (lanes 0-7 hold different L0 values and flags)."""
    text = """
    SFPSETCC  0, L0, L0, LREG_NE0
    SFPPUSHC  0, 0, L0, 0
    SFPIADD   -5, L1, L1, ARG_IMM
    SFPCONFIG 0, 12, 0
    SFPMAD    L12, L1, L2, L3, 0
    SFPCOMPC  0, 0, L0, 0
    SFPMOV    0, L12, L4, NEGATE
    SFPPUSHC  0, 0, L0, 0
    """
    for arch in ("wormhole", "blackhole"):
        program = assemble(text, arch)
        fast, reference = _fresh(arch, 96), _fresh(arch, 96)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ProgramWarning)
            assert compiled.execute(fast, program)[1] is None
            reference.run(program)
        _assert_same_state(fast, reference, np.arange(96))
        assert fast.cc.depth == 2


def test_programs_too_long_to_compile_run_on_the_machine():
    program = assemble("SFPIADD 1, L1, L1, ARG_IMM\n" * (compiled.MAX_INSTRUCTIONS + 1),
                       "wormhole")
    fast, reference = _fresh("wormhole"), _fresh("wormhole")
    _, why_not = compiled.execute(fast, program)
    reference.run(program)
    assert "more than the 1,000 compiled" in why_not
    assert np.array_equal(fast.lreg, reference.lreg)


def test_a_numba_failure_falls_back_to_the_machine(monkeypatch):
    def refuse(source, digest):
        raise RecursionError("maximum recursion depth exceeded")
    monkeypatch.setattr(compiled, "_load", refuse)
    monkeypatch.setattr(compiled, "_MEMORY", {})
    program = assemble("SFPIADD 3, L1, L2, ARG_IMM", "blackhole")
    fast, reference = _fresh(), _fresh()
    _, why_not = compiled.execute(fast, program)
    reference.run(program)
    assert why_not.startswith("numba could not compile it (RecursionError")
    assert np.array_equal(fast.lreg, reference.lreg)


def test_a_compiled_program_is_found_again_through_the_index_without_generating_it(monkeypatch):
    """compiled.program_index: a program compiled once is loaded by name in a process that
    has not translated it (here: this process with its memory of programs cleared)."""
    seed = int.from_bytes(__import__("os").urandom(2), "little") | 1      # a program not seen
    program = assemble(f"SFPLOADI L0, 2, {seed}\nSFPMAD L1, L0, L2, L3, 0\n"
                       f"SFPSETCC 0, L1, L0, 0\nSFPMOV 0, L0, L4, 1", "blackhole")
    first = compiled.compile_for(_fresh(), list(program))
    assert not isinstance(first, str), first
    monkeypatch.setattr(compiled, "_MEMORY", {})
    monkeypatch.setattr(compiled, "_ON_DISK", {})

    def generated(*_):
        raise AssertionError("the program was generated again")
    monkeypatch.setattr(compiled, "_generate", generated)
    assert compiled.ready(_fresh(), program)
    again = compiled.compile_for(_fresh(), list(program))
    assert (again.digest, again.written, again.end_stack, again.enable_before) == \
        (first.digest, first.written, first.end_stack, first.enable_before)
    fast, slow = _fresh(), _fresh()
    assert compiled.execute(fast, program) == (None, None)
    slow.run(list(program))
    assert np.array_equal(fast.lreg, slow.lreg) and np.array_equal(fast.cc.flags, slow.cc.flags)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write-covering"]:
        raise SystemExit("usage: python -m tests.test_compiled --write-covering")
    lists = {"covering": sorted(_covering()), "macro_stores": sorted(_macro_stores())}
    COVERING_FILE.write_text("{\n" + ",\n".join(            # a (kernel, chip) pair a line
        f' "{name}": [\n  ' + ",\n  ".join(json.dumps(list(p)) for p in pairs) + "\n ]"
        for name, pairs in lists.items()) + "\n}\n")
    print(f"wrote {COVERING_FILE}")
