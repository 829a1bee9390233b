"""Run a kernel over every BF16 input through an explicit device path, and measure it.

Owns: the device path (how inputs reach Dst, how results leave it), running a kernel over all
65,536 BF16 patterns in one batch of SFPUs on the engine chosen (:mod:`sfpu_sim.engines`), and
the BF16 sweep's summary: counts, ULP statistics, worst lists and regions (the report adds its
own views, :mod:`sfpu_sim.report.model`; FP32 sweeps summarise in :mod:`sfpu_sim.fp32sweep`).
Knows nothing of formatting: it returns one JSON-ready summary (``SweepResult.summary``) plus
the per-lane arrays plots need. The chunk pipeline streams the same 65,536 inputs
(:class:`sfpu_sim.fp32sweep.walk.Bf16Patterns`) to the same summary, key for key, but for its
tally's form (tests/test_pipeline_bf16.py); this sweep keeps its per-lane arrays, so it
measures every ULP convention and population and counts distances exactly.

Device path, per cell (tt-metal ``ttnn/.../unary/common/unary_op_utils.cpp`` for when Dst is
FP32; tt-isa-documentation ``SFPLOAD.md``, ``SFPSTORE.md``, ``Packers/FormatConversion.md``; the
tt-llk accuracy sweep, tt-metal PRs #57024 and #57235):

1. Unpack: the BF16 input (or its exact FP32 widening) is written to Dst in Dst's layout
   (BF16 Dst: 16-bit cells; FP32 Dst, ``dest="fp32"``: 32-bit cells), one value per lane at
   the cell lane ``l`` of each SFPU reads at ``dst_reg[0]`` (address 0).
2. The kernel runs with CC enabled and every lane flag set (the state ``SFPENCC 3, 10`` sets
   before SFPU kernels), ``ALU_ACC_CTRL_SFPU_Fp32_enabled = (dest == "fp32")`` and a SrcB
   format of the input's, so ``SFPLOAD``/``SFPSTORE`` mode 0 resolve as on the device.
3. The last ``SFPSTORE`` writes the result: truncating FP32 -> BF16 into a BF16 Dst, raw FP32
   (denormals flushed) into an FP32 Dst. The LReg it stores is captured per lane: the kernel's
   own FP32 result, before any device conversion (error attribution). A kernel built on
   SFPLOADMACRO runs as the device calls it, on 8 row groups (Dst addresses 0-14, one face);
   its stores are scheduled, so the value captured is what the last store to address 0
   stored, and the machine then runs on until the scheduled work is done.
4. Pack: Dst -> the output format. BF16 Dst -> BF16: identity. FP32 Dst -> BF16: the packer's
   rounding conversion (nearest, ties away; denormals -> 0, -0 -> +0, NaN -> Inf). Any ->
   FP32: exact.
"""
from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass, field

import numpy as np

from sfpu_sim import compiled, cost, engines, formats, reference, registry, ulp
from sfpu_sim import sweep_views as views
from sfpu_sim.arch import get_arch
from sfpu_sim.asm import format_instruction
from sfpu_sim.compiled import gpu
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.isa.spec import Program
from sfpu_sim.jsonio import jsonable, lane_row
from sfpu_sim.machine import LANES_PER_SFPU, Dst, Machine, ProgramWarning
from sfpu_sim.registry import KernelSpec
from sfpu_sim.selection import EVERYTHING, Selection, region, regions_for
from sfpu_sim.stage_timer import stage
from sfpu_sim.sweep_edges import cross_verification, denormal_lanes, special_lanes
from sfpu_sim.version import __version__

FORMATS = ("bf16", "fp16", "fp32")
# Input -> output formats through a 16-bit Dst, which holds the input's own format: BF16
# cells widen exactly to FP32 at the packer; FP16 cells leave as Float16 (the packer's FP16 ->
# FP32 widening "mishandles denormals", so it is not offered).
LANES = 1 << 16
BUCKETS = (("0", 0, 0), ("1", 1, 1), ("2", 2, 2), ("3-10", 3, 10), ("11-100", 11, 100),
           (">100", 101, None))

class SweepError(SfpuSimError):
    pass


@dataclass(frozen=True)
class DevicePath:
    """The cell of a sweep: formats in and out, and the Dst accumulation format."""
    input_format: str = "bf16"
    output_format: str = "bf16"
    dest: str = "bf16"

    def __post_init__(self):
        for name, value in (("input format", self.input_format),
                            ("output format", self.output_format), ("dest", self.dest)):
            if value not in FORMATS:
                raise SweepError(f"unknown {name} {value!r} (choose from: {', '.join(FORMATS)})")
        if self.dest == "fp16":
            raise SweepError("dest 'fp16': the Dst is 16-bit (dest bf16, holding the input's "
                             "16-bit format, BF16 or FP16) or 32-bit (dest fp32)")
        if "fp16" in (self.input_format, self.output_format) and \
                self.input_format != self.output_format and self.input_format != "fp32" and \
                self.dest != "fp32" and self.output_format != "fp32":
            raise SweepError(f"{self.input_format} in, {self.output_format} out through a "
                             f"16-bit Dst: the packer's conversion between FP16 and BF16 cells "
                             f"is not modelled (Float16 in and out, Float16 -> Float32, or an "
                             f"FP32 Dst are)")

    @property
    def dst16(self) -> str:
        """The format of a 16-bit Dst's cells: the input's 16-bit format."""
        return "fp16" if self.input_format == "fp16" else "bf16"

    def steps(self) -> list[str]:
        """The path in words, one step per line (reports print it)."""
        cell = self.dst16.upper()
        dst = "FP32 (fp32_dest_acc_en)" if self.dest == "fp32" else f"16-bit, {cell} cells"
        unpack = ("exact widening to FP32" if self.dest == "fp32" else f"{cell} as is")
        store = ("SFPSTORE FP32: raw bits, denormals flushed to signed zero"
                 if self.dest == "fp32" else
                 f"SFPSTORE {cell}: denormals flushed to signed zero, then truncation toward zero"
                 + ("; below 2**-14 -> signed zero, overflow -> the 0x7FFF pattern"
                    if cell == "FP16" else ""))
        if self.output_format == "fp32":
            pack = "packer to FP32: exact"
        elif self.dest == "fp32" and self.output_format == "fp16":
            pack = ("packer FP32 -> FP16: late conversion only: exponent narrowed (below "
                    "2**-14 -> signed zero, overflow saturates to 0x7FFF), mantissa truncated")
        elif self.dest == "fp32":
            pack = ("packer FP32 -> BF16: round to nearest, ties away from zero; denormals -> "
                    "0, -0 -> +0, NaN -> Inf")
        else:
            pack = f"packer {cell} -> {cell}: identity"
        load = "FP32" if self.dest == "fp32" else cell
        return [f"input {self.input_format.upper()} tensor -> unpacker -> Dst {dst}: {unpack}",
                f"SFPLOAD mode 0 (resolves to {load}): exact widening to FP32 in an LReg"
                + ("; exponent 0 reads as an FP32 denormal, i.e. zero to arithmetic"
                   if load == "FP16" else ""),
                "kernel instructions (FP32 LRegs, the chip's multiply-add)",
                store, pack]


@dataclass
class DeviceRun:
    """Per-lane bits of one run: ``inputs`` (BF16 uint16, or FP32 uint32), ``kernel_fp32``
    (the LReg the last SFPSTORE stored, uint32), ``output`` (output format: uint16 BF16 or
    uint32 FP32)."""
    inputs: np.ndarray
    kernel_fp32: np.ndarray
    output: np.ndarray
    path: DevicePath
    program: Program
    trace: object = None
    engine: str = "machine"       # "compiled", or "machine" (with the reason it was not compiled)


def _last_store(program: Program) -> int:
    stores = [k for k, ins in enumerate(program) if ins.mnemonic == "SFPSTORE"]
    if not stores:
        raise SweepError(f"kernel program {program.name!r} has no SFPSTORE: nothing to measure")
    return stores[-1]


def uses_loadmacro(program: Program) -> bool:
    return any(ins.mnemonic == "SFPLOADMACRO" for ins in program)


def device_machine(program: Program, inputs, path: DevicePath = DevicePath(),
                   machine_class=Machine, *, fp32_inputs: bool = False):
    """A Machine set up as the device path leaves it before the kernel runs (module
    docstring, steps 1-2): one input per lane at address 0. Inputs are BF16 patterns, or with
    ``fp32_inputs`` FP32 patterns, which need an FP32 Dst and are placed there unchanged.
    Returns (machine, inputs as patterns). ``machine_class``: a :class:`Machine` subclass to
    use (one that also observes each step, as :mod:`sfpu_sim.shadow` does); the execution
    stays the Machine's."""
    inputs, padded = _padded_inputs(inputs, path, fp32_inputs)
    m = _device_state(program, path, padded.size, machine_class)
    _unpack(m.dst, padded, path, fp32_inputs)
    return m, inputs


def _padded_inputs(inputs, path: DevicePath, fp32_inputs: bool):
    """The inputs as patterns, and padded with zeros to whole SFPUs (32 lanes)."""
    if fp32_inputs and path.dest != "fp32":
        raise SweepError("FP32 inputs need an FP32 Dst (dest='fp32'): a BF16 Dst holds BF16 "
                         "values only")
    inputs = formats.as_bits(inputs, "fp32" if fp32_inputs else path.dst16)
    if inputs.size and inputs.size % 32 == 0:
        return inputs, inputs.reshape(-1)          # whole SFPUs already (a sweep's chunks)
    padded = np.zeros(max(32, -(-inputs.size // 32) * 32), dtype=inputs.dtype)
    padded[:inputs.size] = inputs.reshape(-1)
    return inputs, padded


def _device_state(program: Program, path: DevicePath, lanes: int, machine_class=Machine,
                  dst_rows: int | None = None):
    """A Machine of ``lanes`` lanes in the state the kernel starts from, Dst still zero."""
    # 16 rows hold address 0; an SFPLOADMACRO kernel walks a face and its pipelines reach
    # back to the row group before the first (tt-llk's FP32 reciprocal: address -2 = 1022).
    m = machine_class(program.arch, lanes=lanes,
                      dst_rows=dst_rows or (1024 if uses_loadmacro(program) else 16))
    m.config.sfpu_fp32 = path.dest == "fp32"
    m.config.srcb_format = path.input_format
    m.cc.enable = True
    m.cc.flags[:] = True
    return m


def _unpack(dst: Dst, padded: np.ndarray, path: DevicePath, fp32_inputs: bool,
            address: int = 0) -> None:
    """Step 1 of the module docstring: one input per lane at ``address`` (0, or a tile's)."""
    if fp32_inputs:
        dst.write_lanes(address, padded, "fp32")
    elif path.dest == "fp32":
        widen = formats.fp16_to_fp32_bits if path.dst16 == "fp16" else formats.bf16_to_fp32_bits
        dst.write_lanes(address, widen(padded), "fp32")
    else:
        dst.write_lanes(address, padded, path.dst16)


def device_output(m: Machine, path: DevicePath, count: int) -> np.ndarray:
    """What leaves Dst through the packer (module docstring, step 4), for the first ``count``
    lanes."""
    return _pack(m.dst, path, count)


def _pack(dst: Dst, path: DevicePath, count: int) -> np.ndarray:
    if path.dest == "fp32" and path.output_format == "bf16":
        output = dst.read_lanes(0, "fp32", to_bf16=True)
    elif path.dest == "fp32":
        cells = dst.read_lanes(0, "fp32")
        output = {"fp32": lambda c: c,
                  "fp16": formats.fp32_to_fp16_packer}[path.output_format](cells)
    else:
        cells = dst.read_lanes(0, path.dst16)
        widen = formats.fp16_to_fp32_bits if path.dst16 == "fp16" else formats.bf16_to_fp32_bits
        output = widen(cells) if path.output_format == "fp32" else cells
    return output[:count]


# "auto" compiles a program not compiled before only for runs longer than this, in lanes x
# instructions: the Machine runs about 1.5e8 of them a second (median over every kernel on all
# BF16 inputs), and a first compile costs 2-5 s, so below this the Machine finishes first. A
# whole-BF16 sweep (65,536 lanes) never compiles; ten million inputs of a 30-instruction kernel
# do. FP32 sweeps, many chunks of one program, take engines.long_run_engine().
AUTO_COMPILE_WORK = 1 << 28


def run_device(program: Program, inputs, path: DevicePath = DevicePath(),
               trace_lanes=None, machine_class=Machine, *,
               fp32_inputs: bool = False, engine: str | None = None) -> DeviceRun:
    """Run ``program`` once per input (BF16 bit patterns; FP32 patterns with ``fp32_inputs``,
    see :func:`device_machine`) through ``path``; with ``trace_lanes``, record what every
    instruction changed in those lanes (input order); ``machine_class`` as for
    :func:`device_machine`.

    ``engine`` (default: :func:`sfpu_sim.engines.default_engine`): "compiled" runs the program as one compiled
    per-lane function (:mod:`sfpu_sim.compiled`; the Machine when it cannot, when tracing, or
    for a Machine subclass), "cuda" the same function on an NVIDIA GPU
    (:mod:`sfpu_sim.compiled.gpu`; "compiled" where the GPU cannot run the program),
    "machine" the per-instruction Machine, "auto" compiled code where it is already compiled
    (this process or the disk cache) or the run is long enough to pay for compiling it
    (:data:`AUTO_COMPILE_WORK`; on a GPU when one is present), else the Machine. All give the
    same bits; ``DeviceRun.engine`` says which ran."""
    engine = engine or engines.default_engine()
    if engine not in engines.ENGINES:
        raise SweepError(f"unknown engine {engine!r} (choose from: "
                         f"{', '.join(engines.ENGINES)})")
    plain = trace_lanes is None and machine_class is Machine
    if engine == "auto":
        engine = engines.long_run_engine("auto") if plain and \
            _compiling_pays(program, np.asarray(inputs).size, path) else "machine"
    why_not = None
    if engine in ("compiled", "cuda") and plain and not uses_loadmacro(program):
        run, why_not = _run_compiled(program, inputs, path, fp32_inputs, engine)
        if run is None and engine == "cuda":
            run, _ = _run_compiled(program, inputs, path, fp32_inputs, "compiled")
            if run is not None:
                run.engine = f"compiled (not on the GPU: {why_not})"
        if run is not None:
            return run
    m, inputs = device_machine(program, inputs, path, machine_class, fp32_inputs=fp32_inputs)
    count = inputs.size
    if uses_loadmacro(program):
        trace = m.record(trace_lanes, [0]) if trace_lanes is not None else None
        kernel_fp32, engine = _run_macro_program(m, program, engine)
        return DeviceRun(inputs, kernel_fp32[:count], device_output(m, path, count), path,
                         program, trace, engine)
    store = _last_store(program)
    addresses = [ins.imm10 for ins in program if ins.mnemonic in ("SFPLOAD", "SFPSTORE")]
    trace = m.record(trace_lanes, addresses) if trace_lanes is not None else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProgramWarning)     # kernels are checked when built
        m.run(program.instructions[:store])
        kernel_fp32 = m.read(program[store].vd).copy()
        m.run(program.instructions[store:])
    engine = f"machine ({why_not})" if why_not else "machine"
    return DeviceRun(inputs, kernel_fp32[:count], device_output(m, path, count), path,
                     program, trace, engine)


def _compiling_pays(program: Program, lanes: int, path: DevicePath) -> bool:
    """"auto"'s choice: compiled when the program is ready compiled or the run is long."""
    if lanes * len(program) > AUTO_COMPILE_WORK:
        return True
    if uses_loadmacro(program):
        return False
    template = _device_state(program, path, LANES_PER_SFPU)
    return compiled.ready(template, program, _last_store(program))


def _run_compiled(program: Program, inputs, path: DevicePath, fp32_inputs: bool,
                  engine: str = "compiled"):
    """:func:`run_device` compiled: every SFPU starts in the state of one (a 32-lane Machine,
    the template) and only Dst, the per-lane input, is built for all lanes; no Machine of the
    whole batch exists. Returns (DeviceRun, None), or (None, why not) when the program does not
    compile (nothing has run)."""
    with stage("unpack"):
        inputs, padded = _padded_inputs(inputs, path, fp32_inputs)
        store = _last_store(program)
        template = _device_state(program, path, LANES_PER_SFPU)
        dst = Dst(padded.size // LANES_PER_SFPU, template.dst_rows, template)
        _unpack(dst, padded, path, fp32_inputs)
    execute = gpu.execute_sfpus if engine == "cuda" else compiled.execute_sfpus
    with warnings.catch_warnings(), stage("kernel"):
        warnings.simplefilter("ignore", ProgramWarning)     # kernels are checked when built
        captured, why_not = execute(template, program, dst.bits.reshape(dst.bits.shape[0], -1),
                                    store)
    if why_not is not None:
        return None, why_not
    count = inputs.size
    with stage("pack"):
        output = _pack(dst, path, count)
    return DeviceRun(inputs, captured[:count], output, path, program, None, engine), None


class StoreWatch:
    """Set as ``Machine.store_watch``: ``values``, per lane, the LReg value the last SFPSTORE
    (issued or scheduled) to the cells of ``address`` stored (0 where none did)."""

    def __init__(self, address: int, lanes: int):
        self.address = address & ~1           # bit 0 of an address selects nothing
        self.values = np.zeros(lanes, dtype=np.uint32)

    def see(self, address: int, source, lanes) -> None:
        if address & ~1 == self.address:
            np.copyto(self.values, source, where=lanes)


def _run_macro_program(m: Machine, program: Program, engine: str):
    """Run a program that uses SFPLOADMACRO to the end of its scheduled work (the compiled
    path declines it, with its reason); the LReg values the last store to Dst address 0
    stored, and the engine that ran."""
    watch = m.store_watch = StoreWatch(0, m.lanes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProgramWarning)     # kernels are checked when built
        if engine == "compiled":
            _, why_not = compiled.execute(m, program)
            engine = f"machine ({why_not})"
        else:
            m.run(program)
    if m.macros.pending:
        raise SweepError(f"kernel program {program.name!r} ends with {len(m.macros.pending)} "
                         f"SFPLOADMACRO-scheduled instruction(s) waiting for issued "
                         f"instructions (UnitDelayKind); end it with enough SFPNOPs")
    return watch.values.copy(), engine


def program_hash(program: Program) -> str:
    """Identity of a kernel's instruction stream: sha256 of its words (first 16 hex digits)."""
    words = np.asarray(program.words, dtype="<u4").tobytes()
    return hashlib.sha256(program.arch.name.encode() + words).hexdigest()[:16]


# --------------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------------

def _steps(distance: np.ndarray) -> np.ndarray:
    """Whole ULP steps of measured distances (fractional ones round up: 0.3 ULP is in "1")."""
    if distance.dtype.kind != "f":
        return distance
    return np.ceil(np.minimum(distance, 2.0 ** 62)).astype(np.int64)   # huge ones stay huge


def _buckets(distance: np.ndarray) -> list[dict]:
    steps, n = _steps(distance), max(distance.size, 1)
    out = []
    for name, low, high in BUCKETS:
        inside = (steps >= low) & ((steps <= high) if high is not None else True)
        count = int(np.count_nonzero(inside))
        out.append({"bucket": name, "count": count, "percent": 100.0 * count / n})
    return out


def _histogram(distance: np.ndarray) -> dict:
    steps = _steps(distance)
    if steps.size and steps.dtype.kind in "iu" and steps.min() >= 0 and \
            steps.max() < 4 * steps.size + 1024:             # a modest range: counted
        counts = np.bincount(steps.astype(np.intp, copy=False))
        values = np.flatnonzero(counts)
        counts = counts[values]
    else:
        values, counts = np.unique(steps, return_counts=True)
    return dict(zip(map(str, values.tolist()), counts.tolist()))


ATTRIBUTION = ("kernel_ulp: the kernel's FP32 result (the LReg its last SFPSTORE stores) "
               "rounded to nearest even and flushed, against the reference; added: device ULP "
               "minus kernel_ulp, what SFPSTORE and the packer add")


@dataclass
class SweepResult:
    """A measured kernel: ``summary`` (everything a report prints, JSON-ready) and the
    per-lane arrays of the measured population for plots (``x`` input values, ``actual``,
    ``expected`` output patterns, ``reference_value`` unrounded, ``distance``, ``lane_class``)."""
    summary: dict
    arrays: dict = field(repr=False)


def sweep(kernel, arch: str | None = None, *, function: str | None = None,
          dest: str | None = None, input_format: str = "bf16", output_format: str = "bf16",
          reference_rounding: str = "rne", ulp_convention: str = "daz-index",
          regions=None, worst: int = 20, selection: Selection = EVERYTHING,
          population: str = "daz", flush_subnormals: bool | None = None,
          progress=None) -> SweepResult:
    """Every BF16 (or, with ``input_format="fp16"``, every FP16) input through ``kernel`` on
    ``arch`` (see the module docstring): a
    :class:`~sfpu_sim.registry.KernelSpec`, or a :class:`~sfpu_sim.isa.spec.Program` with the
    ``function`` it approximates (its chip is the program's). ``dest``: the Dst format
    (default: the kernel's; BF16 for a Program). ``selection``: the inputs counted (a range of
    values, a region); statistics, worst lists and arrays then cover only those, and the
    summary says which. ``regions``: the region table's rows (default: the function's,
    :func:`sfpu_sim.selection.regions_for`). ``population``: the inputs measured
    (:data:`sfpu_sim.ulp.POPULATIONS`);
    ``flush_subnormals``: ``daz-index`` ranks the output format's subnormals as 0 (default:
    the format's convention, :data:`sfpu_sim.ulp.FLUSHES_SUBNORMALS`). Looking kernels up by
    name is the CLI's and ``testing``'s business."""
    instance = registry.for_dest(_as_spec(kernel, function), dest)
    spec, dest = instance.spec, instance.dest
    arch = arch or spec.chips[0]
    arch_obj = get_arch(arch)
    path = DevicePath(input_format, output_format, dest)
    if input_format == "fp32":
        raise SweepError("sweep() takes 16-bit inputs (bf16, fp16); FP32 inputs are streamed by "
                         "sfpu_sim.fp32sweep.sweep_fp32")
    if population not in ulp.POPULATIONS:
        raise SweepError(f"unknown population {population!r} (choose from: "
                         f"{', '.join(ulp.POPULATIONS)})")
    if reference_rounding not in reference.policies():
        raise SweepError(f"unknown reference rounding {reference_rounding!r} (choose from: "
                         f"{', '.join(reference.policies())})")
    if ulp_convention not in ulp.CONVENTIONS:
        raise SweepError(f"unknown ULP convention {ulp_convention!r} (choose from: "
                         f"{', '.join(ulp.CONVENTIONS)})")
    if selection.region is not None:
        region(selection.region, spec.function)          # one of the function's regions
    step = progress or (lambda label: None)

    step(f"running 65,536 {input_format.upper()} inputs through the device path")
    inputs = np.arange(LANES, dtype=np.uint32).astype(np.uint16)
    run, facts = run_kernel(spec, arch_obj, inputs, path)
    step("computing correctly rounded references")
    ref = reference.reference(spec.function, inputs, reference_rounding,
                              input_format=input_format, output_format=output_format, daz=True,
                              ftz=True)
    step("measuring")
    out_fmt = output_format
    flush = {"flush_subnormals": flush_subnormals} if ulp_convention == "daz-index" else {}
    result = ulp.distance(ref, run.output, ulp_convention, **flush)
    # The kernel's own FP32 result, ended as well as possible (RNE + FTZ), for attribution.
    ideal = {"bf16": formats.fp32_to_bf16_rne, "fp16": formats.fp32_to_fp16_rne,
             "fp32": lambda bits: bits}[out_fmt](run.kernel_fp32)
    ideal = formats.ftz(ideal, formats.FORMATS[out_fmt])
    kernel_only = ulp.distance(ref, ideal, ulp_convention, **flush)

    population_name = population
    population = ulp.population(population_name, input_format).astype(np.int64)
    chosen = selection.mask(formats.bits_to_float64(population, input_format))
    if not chosen.any():
        raise SweepError(f"no input of population {population_name} lies in {selection.text}")
    population = population[chosen]
    x_bits = inputs[population]
    x = formats.bits_to_float64(x_bits, input_format)
    classes = result.lane_class[population]
    counted = result.counted[population]
    distance = result.distance[population]
    measured = distance[counted]

    summary = {
        "tool": f"sfpu-sim {__version__}",
        "kernel": spec.name, "function": spec.function, "arch": arch_obj.name,
        "chip": arch_obj.title, "mode": spec.mode, "kernel_dest": spec.dest,
        "provenance": spec.provenance, "description": spec.description,
        "instantiation": spec.instantiation,
        "instantiation_note": facts.get("instantiation_note", instance.note),
        "device_program": instance.modelled, "kernel_hash": facts["kernel_hash"],
        "dest": dest, "input_format": input_format, "output_format": output_format,
        "device_path": facts.get("device_path", path.steps()),
        "reference_rounding": reference_rounding,
        "reference_policy_text": reference.policies()[reference_rounding],
        "reference_backend": ref.backend, "reference_precision_bits": ref.precision,
        "daz_inputs": True, "ftz_reference": True,
        "ulp_convention": ulp_convention,
        "ulp_convention_text": ulp.CONVENTIONS[ulp_convention],
        "population": population_name, "population_text": ulp.POPULATIONS[population_name],
        "flush_subnormals": (ulp.FLUSHES_SUBNORMALS[out_fmt] if flush_subnormals is None
                             else bool(flush_subnormals))
        if ulp_convention == "daz-index" else None,
        "selection": selection.as_dict(),
        "count": int(population.size),
        **{k: (v) for k, v in views.describe_stats(measured).items()
           if k not in ("max", "mean")},
        "max_ulp": (measured.max().item()) if measured.size else None,
        "mean_ulp": float(measured.astype(np.float64).mean()) if measured.size else None,
        "unmeasurable": int(population.size - counted.sum()),
        "lane_classes": {c.name.lower(): int((classes == c).sum()) for c in ulp.LaneClass},
        "histogram": _histogram(measured),
        "buckets": _buckets(measured),
    }
    order = np.argsort(-np.where(counted, distance, -1), kind="stable")[:worst]
    expected_bits, actual_bits = ref.bits[population], run.output[population]
    kernel_distance = kernel_only.distance[population]
    kernel_counted = kernel_only.counted[population]
    reference_values, kernel_bits = ref.value[population], run.kernel_fp32[population]
    summary["worst"] = [lane_row(
        x_bits[k], actual_bits[k], expected_bits[k], float(reference_values[k]),
        in_fmt=input_format, out_fmt=out_fmt, kernel_fp32_bits=kernel_bits[k],
        ulp=distance[k], kernel_ulp=kernel_distance[k] if kernel_counted[k] else None)
        for k in order if counted[k]]
    summary["samples_at_max"] = [w for w in summary["worst"]
                                 if summary["max_ulp"] is not None
                                 and w["ulp"] == summary["max_ulp"]][:10]
    both = counted & kernel_counted
    added = (distance - kernel_distance)[both]
    summary["attribution"] = {
        "definition": ATTRIBUTION,
        "lanes": int(both.sum()),
        "kernel": views.describe_stats(kernel_distance[both]),
        "device": views.describe_stats(distance[both]),
        "ending_added": {"lanes_worse": int((added > 0).sum()),
                         "lanes_better": int((added < 0).sum()),
                         "lanes_same": int((added == 0).sum()),
                         "max_added": (added.max().item()) if added.size else None,
                         "histogram": _histogram(np.abs(added)) if added.size else {}},
    }
    summary["regions"] = views.regions(x, distance, counted,
                                       regions_for(spec.function) if regions is None else regions)
    summary["binades"] = views.binades(x_bits, distance, counted, input_format)
    summary["leading_term"] = views.leading_term_view(
        spec.function, x_bits, expected_bits, distance, counted, reference_rounding,
        input_format, out_fmt)
    summary["denormals"] = denormal_lanes(inputs, run, ref, input_format, out_fmt)
    summary["specials"] = special_lanes(run, ref, result, input_format, out_fmt)
    summary["cross_verification"] = cross_verification(expected_bits, actual_bits, out_fmt,
                                                         summary["flush_subnormals"])
    summary["program"], summary["cost"] = facts["program"], facts["cost"]
    arrays = {"x_bits": x_bits, "x": x, "actual": actual_bits, "expected": expected_bits,
              "reference_value": reference_values, "distance": distance,
              "counted": counted, "lane_class": classes, "kernel_distance": kernel_distance,
              "kernel_counted": kernel_counted,        # kernel_distance is meaningless elsewhere
              # every one of the 65,536 inputs (specials included), outside the population
              "all_output": run.output, "all_expected": ref.bits}
    return SweepResult(jsonable(summary), arrays)


def run_kernel(spec, arch, inputs, path: DevicePath = DevicePath(), *,
               fp32_inputs: bool = False) -> tuple[DeviceRun, dict]:
    """A registered kernel (or chained op) on ``arch`` over ``inputs`` through ``path``: its
    DeviceRun, and what a summary says of what ran (``kernel_hash``, ``program``, ``cost``; a
    chained op adds ``device_path`` and ``instantiation_note``)."""
    if isinstance(spec, registry.ChainedSpec):
        return spec.device_run(arch, inputs, path, fp32_inputs=fp32_inputs)
    program = spec.program(arch)
    run = run_device(program, inputs, path, fp32_inputs=fp32_inputs)
    return run, program_facts(program)


def program_facts(program: Program) -> dict:
    """What every summary says of the program that ran: ``kernel_hash``, ``program`` (its
    length, init length and listing) and ``cost``."""
    return {"kernel_hash": program_hash(program),
            "program": {"instructions": len(program), "init_instructions": program.init_length,
                        "listing": [_listing_line(ins) for ins in program]},
            "cost": cost.estimate(program).as_dict()}


def _as_spec(kernel, function):
    """A KernelSpec as is; a Program as an unregistered one-chip kernel of ``function``."""
    if isinstance(kernel, KernelSpec):
        return kernel
    if not isinstance(kernel, Program):
        raise SweepError(f"sweep() takes a kernel (sfpu_sim.registry.get(name)) or a Program, "
                         f"not {type(kernel).__name__}")
    if function is None:
        raise SweepError("sweep() of a Program needs function=, the reference it approximates")
    if function not in reference.functions():
        raise SweepError(f"unknown function {function!r} (known: "
                         f"{', '.join(reference.functions())})")
    return KernelSpec(name=kernel.name or "program", function=function,
                      chips=(kernel.arch.name,), mode="accurate", dest="bf16",
                      provenance="a Program given to sweep()", build=lambda arch: kernel)


def _listing_line(instruction) -> dict:
    return {"word": f"{instruction.word:#010x}", "text": format_instruction(instruction),
            "source": instruction.source}
