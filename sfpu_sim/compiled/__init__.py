"""A kernel program compiled once into one per-lane function, run on a Machine's state.

Owns: turning a :class:`~sfpu_sim.isa.spec.Program` and the state it starts from into a
numba-compiled function (:mod:`sfpu_sim.compiled.codegen` writes its source), caching it (in
this process by program and state; on disk by the hash of its source, which holds everything
it bakes in, found again through :mod:`~sfpu_sim.compiled.program_index`), and running it
over every lane of a :class:`~sfpu_sim.machine.Machine`, leaving the Machine exactly as
``Machine.run`` would. Knows nothing of kernels, sweeps or references.

The compiled function keeps each lane's LRegs, flags and CC stack in local variables and
runs every instruction before moving to the next lane. State that is the same in every lane
is fixed while compiling: CC enable and the enables on the stack, the stack depth, the Dst/Sp
counters and every Dst address, the configuration, and the LRegs and LaneFlags whose value is
the same in all lanes (constants). The same function runs a Machine (:func:`execute`: every
lane's state read and written back) or a sweep's batch of SFPUs that all start as one template
SFPU (:func:`execute_sfpus`: only Dst exists for the whole batch, nothing is written back).
It needs LaneConfig zero and no tracing; a program or state it cannot compile
faithfully runs on the Machine instead, with the reason given (:func:`execute`), never a
different answer. The Machine stays the reference: tests/test_compiled.py holds the two to
agreement bit for bit.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import sys
from dataclasses import dataclass, fields
from pathlib import Path

import numba
import numpy as np

from sfpu_sim import fma, jit, threads
from sfpu_sim.arch import ARCHES
from sfpu_sim.asm import decode
from sfpu_sim.compiled import program_index, scalar
from sfpu_sim.compiled.codegen import MULTIPLY_ADDS, NotCompiled, Translation
from sfpu_sim.isa import cc as cc_isa
from sfpu_sim.isa import lanewise
from sfpu_sim.isa.spec import Instruction, IsaError
from sfpu_sim.machine import LANES_PER_SFPU, Machine

__all__ = ["execute", "execute_sfpus", "compile_for", "ready", "NotCompiled", "Compiled"]

_SCALAR_NAMES = ("lanes_meet",)

_DATAPATHS = ("lane_wormhole", "lane_blackhole", "lane_wormhole_inlined", "lane_blackhole_inlined")


@dataclass
class Compiled:
    """A compiled program for one starting state: the function and the state it ends in."""
    function: object
    source: str
    digest: str
    written: tuple[int, ...]
    end_enable: bool
    end_stack: tuple[bool, ...]
    end_rwc: tuple
    uses_prng: bool
    instructions: int
    enable_before: tuple[bool, ...]
    words: tuple[int, ...]

    @classmethod
    def of(cls, t: Translation, function, source: str, digest: str, instructions) -> "Compiled":
        """``function``, compiled from ``source``, with what translation ``t`` knows of the
        state the program ends in."""
        rwc = t.shadow.rwc
        return cls(function, source, digest, tuple(sorted(t.written)), t.enable, tuple(t.stack),
                   (rwc.dst, rwc.dst_cr, rwc.sp, rwc.extra_addr_mod_bit), t.uses_prng,
                   len(instructions), tuple(t.enable_before),
                   tuple(ins.word for ins in instructions))

    def index_entry(self) -> dict:
        """What the program index keeps of it: every field but the function and its source."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name not in ("function", "source")}

    @classmethod
    def from_index(cls, function, source: str, entry: dict) -> "Compiled":
        """The inverse of :meth:`index_entry` (JSON gives lists where tuples were)."""
        return cls(function, source, **{f.name: tuple(entry[f.name]) if isinstance(
            entry[f.name], list) else entry[f.name] for f in fields(cls)
            if f.name not in ("function", "source")})


_MEMORY: dict[tuple, Compiled | str] = {}
_ON_DISK: dict[tuple, bool] = {}            # ready()'s answers for programs not in _MEMORY
# Longer programs run on the Machine: numba's compile time grows faster than the program (a
# 5,179-instruction study kernel exhausted its recursion limit), and such programs are rare.
MAX_INSTRUCTIONS = 1000
# One lane at a time. Two lanes side by side (independent multiply-add chains overlapping in the
# core) paid 1.2-1.5x once; since each instruction runs under its lane's enable
# (compiled.specialize) they bought only exp's 1.37x (1M inputs: acosh, tanh_fp32, gelu, sin,
# log 0.87-1.06x) for 1.5-2.6x the compile time (2026-11-27, this 2-core machine), and went.
# Programs with at most this many multiply-add call sites get the datapath
# inlined at each (fma.lane_*_inlined); longer ones call it, to bound LLVM's compile time.
INLINED_MULTIPLY_ADDS = 64
ALL_LANES = np.uint64(0xFFFFFFFFFFFFFFFF)     # state_mask: every lane has its own state
ONE_SFPU = np.uint64(LANES_PER_SFPU - 1)      # state_mask: every SFPU starts in one state
SIGNATURE = ("(int64, int64, uint32[:, ::1], uint32[::1], bool[::1], bool[:, ::1], "
             "bool[:, ::1], uint32[::1], uint16[:, ::1], uint32[::1], uint64, boolean)")


def execute(m: Machine, program, capture_at: int | None = None):
    """Run ``program`` on ``m`` compiled, else on the Machine itself; return ``(captured,
    reason)``: ``captured`` is LReg[VD] of instruction ``capture_at`` just before it runs
    (per lane; None without ``capture_at``), ``reason`` None when compiled, else why not."""
    instructions = _instructions(program, m)
    compiled = None
    reason = None
    if instructions is None:
        reason = "an instruction word does not decode"
    else:
        compiled = compile_for(m, instructions, capture_at)
        if isinstance(compiled, str):
            reason, compiled = compiled, None
    if compiled is None:
        return _run_machine(m, program, capture_at), reason
    return _run_compiled(m, instructions, compiled, capture_at), None


def execute_sfpus(template: Machine, program, dst: np.ndarray, capture_at: int | None = None):
    """Run ``program`` compiled on ``dst.shape[0]`` SFPUs that each start in the state of
    ``template``, a Machine of one SFPU (32 lanes), except for Dst: ``dst`` holds the bits of
    every SFPU's Dst (SFPUs x cells, changed in place). Their final LRegs, flags, CC stack and
    PRNG states are not kept (a sweep reads Dst and the captured LReg only), and ``template``
    itself is not run. Returns ``(captured, reason)`` as :func:`execute`; when the program
    cannot be compiled, nothing has run: ``(None, reason)``."""
    c = prepare(template, program, capture_at)
    if isinstance(c, str):
        return None, c
    captured = np.empty(dst.shape[0] * LANES_PER_SFPU if capture_at is not None else 0,
                        dtype=np.uint32)
    stack_in, stack_out = _stacks(template, c)
    threads.parallel_for(c.function, dst.shape[0], template.lreg.view(np.ndarray),
                         template.lreg_macro, template.cc.flags, stack_in, stack_out,
                         template.prng, dst, captured, ONE_SFPU, False,
                         cost=LANES_PER_SFPU * c.instructions / 4, lanes_per_item=LANES_PER_SFPU)
    return (captured if capture_at is not None else None), None


def prepare(template: Machine, program, capture_at: int | None = None, compiler=None):
    """The program compiled for ``template``'s state (one SFPU; ``compiler``: another engine's
    :func:`compile_for`), with the Machine's hazard checks and warnings done as the Machine
    would do them; or why it cannot be compiled (a string)."""
    if template.lanes != LANES_PER_SFPU:
        raise ValueError(f"a template is one SFPU ({LANES_PER_SFPU} lanes), not {template.lanes}")
    instructions = _instructions(program, template)
    if instructions is None:
        return "an instruction word does not decode"
    c = (compiler or compile_for)(template, instructions, capture_at)
    if not isinstance(c, str):
        _hazards(template, instructions, c.words, dry_run=False, enable_before=c.enable_before)
    return c


def compile_for(m: Machine, instructions: list[Instruction], capture_at: int | None = None,
                build=None, memory: dict | None = None):
    """The :class:`Compiled` program for ``m``'s current state, or the reason (a string) why
    it cannot be compiled. ``build`` and ``memory``: another engine's builder (same arguments
    as :func:`_build`) and its in-process cache (:mod:`sfpu_sim.compiled.gpu`)."""
    build, memory = build or _build, _MEMORY if memory is None else memory
    words = tuple(ins.word for ins in instructions)
    problem = _state_problem(m, instructions, words)
    if problem:
        return problem
    uniform = _uniform_lregs(m)
    key = _memory_key(m, words, capture_at, uniform)
    if key not in memory:
        try:
            memory[key] = build(m, instructions, capture_at, uniform)
        except NotCompiled as reason:
            memory[key] = str(reason)
    return memory[key]


def ready(template: Machine, program, capture_at: int | None = None) -> bool:
    """Whether running ``program`` compiled from ``template``'s state costs no compile: it is
    compiled in this process, or numba's disk cache holds it (the marker :func:`_build_with`
    leaves beside the program's source once numba has compiled it). Its name comes from the
    program index (:mod:`~sfpu_sim.compiled.program_index`), else from generating its source;
    nothing is compiled or run."""
    instructions = _instructions(program, template)
    if instructions is None:
        return False
    words = tuple(ins.word for ins in instructions)
    if _state_problem(template, instructions, words):
        return False
    uniform = _uniform_lregs(template)
    key = _memory_key(template, words, capture_at, uniform)
    known = _MEMORY.get(key)
    if known is not None:
        return not isinstance(known, str)
    if key not in _ON_DISK:                 # asked once a process
        _ON_DISK[key] = _marked_on_disk(template, instructions, capture_at, uniform, key)
    return _ON_DISK[key]


def _marked_on_disk(template: Machine, instructions, capture_at, uniform, key) -> bool:
    directory = jit.program_directory()
    if directory is None or len(instructions) > MAX_INSTRUCTIONS:
        return False
    entry = program_index.lookup(key)
    if entry is not None:
        digest = entry["digest"]
    else:
        try:
            _, _, digest = _generate(template, instructions, capture_at, uniform)
        except NotCompiled:
            return False
    return (directory / f"{_module_name(digest)}.ready").exists()


# --------------------------------------------------------------------------------------------

def _memory_key(m: Machine, words: tuple, capture_at, uniform) -> tuple:
    return (m.arch.name, words, capture_at, repr(m.config), repr(m.rwc), m.cc.enable,
            tuple(e for _, e in m.cc.stack), uniform, m.dst.rows)


def _module_name(digest: str) -> str:
    return f"sfpu_sim_program_{digest}"


def _instructions(program, m: Machine) -> list[Instruction] | None:
    out = []
    for item in program:
        if isinstance(item, Instruction):
            out.append(item)
            continue
        try:
            out.append(decode(int(item), m.arch))
        except IsaError:
            return None
    return out


def _state_problem(m: Machine, instructions, words: tuple) -> str | None:
    if ARCHES.get(m.arch.name) is not m.arch:
        return (f"platform {m.arch.name!r} is not one of the chips (its arithmetic and stores "
                f"are data the compiled path does not read)")
    if type(m) is not Machine:
        return f"a Machine subclass ({type(m).__name__}) may execute instructions differently"
    if m.trace is not None:
        return "tracing (the Machine records every instruction)"
    if any(i.mnemonic == "SFPLOADMACRO" for i in instructions):
        return ("SFPLOADMACRO schedules instructions that run cycles later beside the issued "
                "ones (the Machine's sequencer, sfpu_sim.macro)")
    if m.lane_config.any():
        return "LaneConfig is set in some lanes"
    if m.strict and _hazards(m, instructions, words, dry_run=True):
        return "strict mode and a hazard in the program (the Machine raises it in place)"
    return None


def _uniform_lregs(m: Machine) -> tuple:
    """Per LReg 0..16, its value when every lane holds the same one (compiled in), else None;
    then the LaneFlags likewise (as a bool)."""
    same = np.zeros(18, dtype=np.bool_)
    _same_in_every_lane(m.lreg.view(np.ndarray), same[:16])
    _same_in_every_lane(m.lreg_macro[None], same[16:17])
    _same_in_every_lane(m.cc.flags.view(np.uint8)[None], same[17:])
    return tuple(int(m.lreg[k, 0]) if same[k] else None for k in range(16)) + \
        ((int(m.lreg_macro[0]) if same[16] else None),
         (bool(m.cc.flags[0]) if same[17] else None))


@jit.njit(nogil=True)
def _same_in_every_lane(rows, out):
    """out[k] = every entry of rows[k] equals its first (one pass; no early exit, so that
    the loop vectorises)."""
    for k in range(rows.shape[0]):
        first = rows[k, 0]
        differ = np.uint32(0)
        for j in range(rows.shape[1]):
            differ |= rows[k, j] ^ first
        out[k] = differ == 0


def _hazards(m: Machine, instructions, words: tuple, dry_run: bool, enable_before=()) -> bool:
    """Machine.step's checks before each instruction, hazards and flags written while CC is
    disabled, warned as the Machine warns them, in its order; with ``dry_run`` only whether
    there is a hazard, the Machine left untouched. ``enable_before``: CC enable as each
    instruction starts (known while compiling)."""
    inside = _hazard_positions(m.arch, words, instructions)
    first = m.previous is not None and instructions and \
        m.arch.hazard(m.previous, instructions[0]) is not None
    if dry_run:
        return bool(inside) or first
    hazards = set(inside) | ({0} if first else set())
    disabled = {k for k, enable in enumerate(enable_before)
                if not enable and cc_isa.sets_lane_flags(instructions[k])}
    executed, enable, previous = m.executed, m.cc.enable, m.previous
    try:
        for k in sorted(hazards | disabled):
            m.previous, m.executed = (instructions[k - 1] if k else previous), executed + k
            if k in hazards:
                m._check_hazard(instructions[k])
            m.cc.enable = enable_before[k]
            m._check_cc_disabled(instructions[k])
    finally:
        m.cc.enable = enable
    m.previous = instructions[-1] if instructions else previous
    m.executed = executed + len(instructions)
    return False


_HAZARDS: dict[tuple, tuple[int, ...]] = {}


def _hazard_positions(arch, words: tuple, instructions) -> tuple[int, ...]:
    """Indices k >= 1 where instruction k may not follow instruction k - 1 (per program)."""
    key = (arch.name, words)
    if key not in _HAZARDS:
        _HAZARDS[key] = tuple(k for k in range(1, len(instructions))
                              if arch.hazard(instructions[k - 1], instructions[k]) is not None)
    return _HAZARDS[key]


def _build(m: Machine, instructions, capture_at, uniform) -> Compiled:
    if len(instructions) > MAX_INSTRUCTIONS:
        raise NotCompiled(f"{len(instructions):,} instructions, more than the "
                          f"{MAX_INSTRUCTIONS:,} compiled")
    key = _memory_key(m, tuple(ins.word for ins in instructions), capture_at, uniform)
    return _indexed(key) or _build_with(m, instructions, capture_at, uniform)


def _indexed(key) -> Compiled | None:
    """The program :mod:`~sfpu_sim.compiled.program_index` finds numba's cache holding for
    ``key``, loaded without generating it; None when there is none (or it cannot load)."""
    entry = program_index.lookup(key)
    directory = jit.program_directory()
    if entry is None or directory is None:
        return None
    name = _module_name(entry["digest"])
    if not (directory / f"{name}.ready").exists():
        return None
    try:
        source = (directory / f"{name}.py").read_text()
        function = _load(source, entry["digest"])
        function.compile(SIGNATURE)             # numba's cache: loaded, not compiled
    except Exception:                           # anything amiss: generate it as before
        return None
    return Compiled.from_index(function, source, entry)


def _generate(m: Machine, instructions, capture_at, uniform):
    """(translation, source, digest) of the program's compiled form, remembered in the
    program index (compiled or not: :func:`ready` then finds its name there)."""
    sites = sum(i.mnemonic in MULTIPLY_ADDS for i in instructions)
    t = Translation(m, instructions, capture_at, inline_fma=sites <= INLINED_MULTIPLY_ADDS)
    source = _source(t, instructions, capture_at, uniform)
    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    c = Compiled.of(t, None, source, digest, instructions)
    program_index.record(_memory_key(m, c.words, capture_at, uniform), c.index_entry())
    return t, source, digest


def _build_with(m: Machine, instructions, capture_at, uniform) -> Compiled:
    t, source, digest = _generate(m, instructions, capture_at, uniform)
    try:
        fma.unit(t.fma)                         # one signature, before a program calls it
        function = _load(source, digest)
        with _deep_recursion():
            function.compile(SIGNATURE)         # now, so that a failure falls back
    except Exception as error:                  # numba's limits, never a wrong answer
        raise NotCompiled(f"numba could not compile it ({type(error).__name__}: "
                          f"{str(error).splitlines()[0][:120] if str(error) else ''})") from None
    _mark_ready(digest)
    return Compiled.of(t, function, source, digest, instructions)


@contextlib.contextmanager
def _deep_recursion(limit: int = 20_000):
    """numba rebuilds SSA form recursively, a frame or two per basic block on a path: a long
    program (tanh_fp32, 131 instructions, then run two lanes side by side) went past Python's
    default 1,000 frames. Python-to-Python calls use no C stack since 3.11, so a deeper limit
    costs only memory."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def _helpers_digest(definitions=()) -> str:
    """The digest of what a program calls or bakes in (numba's cache does not follow callees):
    the scalar helpers, the datapaths and the lanewise definitions written into the program,
    with every module of the package they import (:func:`sfpu_sim.isa.lanewise.imported_files`)."""
    return _files_digest(tuple(lanewise.imported_files(
        (Path(scalar.__file__), Path(fma.__file__),
         *sorted(lanewise.source_files(definitions))))))


@functools.cache
def _files_digest(paths: tuple[Path, ...]) -> str:
    """Read once a process: every program generated (ready() generates them to learn their
    names) would otherwise read and hash the same files again."""
    h = hashlib.sha256(numba.__version__.encode())
    for path in paths:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _source(t: Translation, instructions, capture_at, uniform) -> str:
    lines = header(t, instructions, "from sfpu_sim.jit import njit")
    lines += ["", "", "@njit(nogil=True, error_model='numpy')",
              "def run(start, stop, lreg, macro, flags, stack_in, stack_out, prng, dst, capture, "
              "state_mask, keep_state):",
              f"    cfgv = np.zeros(({max(t.configs, 1)}, 8), dtype=np.int64)",
              f"    cfgf = np.zeros(({max(t.configs, 1)}, 8), dtype=np.bool_)",
              # unsigned indices: numba then skips the negative-index test on every access
              f"    for first in range(np.uint64(start * {LANES_PER_SFPU}), "
              f"np.uint64(stop * {LANES_PER_SFPU})):"]
    lines += ["        " + line for line in lane_body(t, uniform)]
    return "\n".join(lines) + "\n"


def header(t: Translation, instructions, *imports: str) -> list[str]:
    """A generated program module's first lines: what it is, the helpers' digest (so that a
    change of a helper changes every program's source), its imports and constant tables."""
    return [f'"""sfpu-sim compiled program ({t.arch.name}, {len(instructions)} instructions). '
            f'Generated by sfpu_sim.compiled; do not edit."""',
            f"# helpers {_helpers_digest(t.definitions)}",
            "import numpy as np", *imports,
            *_semantics_imports(t),
            "SEVEN = np.uint64(7)",
            f"from sfpu_sim.compiled.scalar import ({', '.join(_SCALAR_NAMES)})",
            f"from sfpu_sim.fma import ({', '.join(_DATAPATHS)})", "",
            *t.tables]


def _semantics_imports(t: Translation) -> list[str]:
    """Lines importing what the specialised definitions call, each under its own alias."""
    return [f"from {module} import {name} as {alias}"
            for module, name, alias in sorted(t.imports)]


def lane_body(t: Translation, uniform) -> list[str]:
    """The per-lane statements every engine runs, unindented: lane ``first`` (a uint64 the
    caller defines) reads its state, runs every instruction, and writes its state back when
    ``keep_state``."""
    return ["lane = first", *_prologue(t, uniform), *t.lines, "if keep_state:",
            *["    " + line for line in _epilogue(t)]]


def _prologue(t: Translation, uniform) -> list[str]:
    """A lane's starting state in locals: at ``st``, the lane itself, or its lane in the one
    SFPU whose state every SFPU starts from (``state_mask``)."""
    lines = ["g = lane >> np.uint64(5)", "lu = lane & np.uint64(31)", "l = np.int64(lu)",
             "st = lane & state_mask"]
    for k in sorted(t.used):
        source = "macro[st]" if k == 16 else f"lreg[{k}, st]"
        lines.append(f"r{k} = {uniform[k]}" if uniform[k] is not None
                     else f"r{k} = np.int64({source})")
    lines.append(f"f = {uniform[17]}" if uniform[17] is not None else "f = flags[st]")
    lines += [f"s{k} = stack_in[{k}, st]" for k in range(t.start_depth)]
    if t.uses_prng:
        lines.append("p = np.int64(prng[st])")
    return lines


def _epilogue(t: Translation) -> list[str]:
    lines = [f"macro[lane] = r{k}" if k == 16 else f"lreg[{k}, lane] = r{k}"
             for k in sorted(t.written)]
    lines.append("flags[lane] = f")
    lines += [f"stack_out[{k}, lane] = s{k}" for k in range(len(t.stack))]
    if t.uses_prng:
        lines.append("prng[lane] = p")
    return lines


def _mark_ready(digest: str) -> None:
    """Leave the marker :func:`ready` looks for: numba has compiled this program, and with
    ``cache=True`` written its machine code beside the source. A marker whose cache entry is
    missing (numba could not write it) costs a compile later, never a different answer."""
    directory = jit.program_directory()
    if directory is not None:
        try:
            (directory / f"{_module_name(digest)}.ready").touch()
        except OSError:
            pass


def _load(source: str, digest: str, prefix: str = "sfpu_sim_program",
          directory: Path | None | bool = True):
    """The ``run`` function of ``source`` (:func:`sfpu_sim.jit.load_generated`)."""
    return jit.load_generated(source, f"{prefix}_{digest}", directory).run


# --------------------------------------------------------------------------------------------

def _run_machine(m: Machine, program, capture_at):
    instructions = list(program)
    if capture_at is None:
        m.run(instructions)
        return None
    m.run(instructions[:capture_at], drain=False)
    store = instructions[capture_at]
    if not isinstance(store, Instruction):
        store = decode(int(store), m.arch)
    captured = m.read(store.vd).copy()
    m.run(instructions[capture_at:])
    return captured


def _run_compiled(m: Machine, instructions, c: Compiled, capture_at):
    _hazards(m, instructions, c.words, dry_run=False, enable_before=c.enable_before)
    stack_in, stack_out = _stacks(m, c)
    captured = np.zeros(m.lanes if capture_at is not None else 0, dtype=np.uint32)
    dst = m.dst.bits.reshape(m.groups, -1)
    # An instruction costs about a quarter of a multiply-add lane, on average (measured).
    threads.parallel_for(c.function, m.groups, m.lreg.view(np.ndarray), m.lreg_macro,
                         m.cc.flags, stack_in, stack_out, m.prng, dst, captured, ALL_LANES, True,
                         cost=LANES_PER_SFPU * c.instructions / 4, lanes_per_item=LANES_PER_SFPU)
    m.cc.enable = c.end_enable
    m.cc.stack = [(stack_out[k].copy(), enable) for k, enable in enumerate(c.end_stack)]
    m.rwc.dst, m.rwc.dst_cr, m.rwc.sp, m.rwc.extra_addr_mod_bit = c.end_rwc
    return captured if capture_at is not None else None


def _stacks(m: Machine, c: Compiled):
    """The CC stack's flags as the compiled function reads them, and room for where it ends."""
    stack_in = np.zeros((max(len(m.cc.stack), 1), m.lanes), dtype=np.bool_)
    for k, (flags, _) in enumerate(m.cc.stack):
        stack_in[k] = flags
    return stack_in, np.zeros((max(len(c.end_stack), 1), m.lanes), dtype=np.bool_)
