"""Where precision is lost: a kernel's device run and its exact shadow, compared per lane and
per instruction, and the final error split into approximation, datapath and store.

Owns: choosing lanes (given inputs, or the worst of a sweep), the per-lane report (verdicts,
split), the per-instruction table over many lanes and the JSON form. Knows nothing of
rendering (the CLI's) or of how instructions compute (the Machine's, and the rules').

Definitions (also in :data:`DEFINITIONS`, which every output carries):

* error of a value: its device value against its shadow, relative (``|d - s| / |s|``) and in
  FP32 ULP at the shadow value;
* added by itself: an instruction's device result against its exact result on the device's
  own operands (``twin.device``), same units;
* growth: the relative error of the result minus the largest relative error of its operands;
  *grows most* is the instruction with the largest positive growth among those the final
  value depends on (the dependency cone of the last SFPSTORE: through the values read, and
  through the register SFPSWAP moved into place, not through sign sources);
* cancellation: the condition number of an addition ``x + y``, ``kappa = (|x| + |y|) / |x+y|``,
  at the shadow operands: every relative error its operands carry (approximation and rounding
  alike) comes out multiplied by kappa, ``log2 kappa`` bits are lost (Inf: exact cancellation);
* split of the final error, in the report's daz-index BF16 ULP (signed index steps, so they
  add up exactly): approximation = idx(rne(S)) - idx(R), datapath = idx(rne(K)) - idx(rne(S)),
  store/pack = idx(O) - idx(rne(K)), total = idx(O) - idx(R), where R is the reference (the
  function correctly rounded), S the shadow of the stored value, K the device's FP32 value
  before the store, O the device output, rne() rounding to BF16 (nearest even, FTZ);
  fractional twins in BF16 ULP at the reference: (S - f)/u, (K - S)/u, (O - K)/u;
* located: if the device-against-shadow error |O - S| exceeds the approximation error
  |S - f|, the instruction where the error grows most; otherwise the largest cancellation on
  the path to the result, if it loses at least one bit; otherwise none (the approximation's
  own error, e.g. a polynomial's).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import mpmath
import numpy as np
from mpmath import mpf

from sfpu_sim import formats, reference, registry, ulp
from sfpu_sim.arch import get_arch
from sfpu_sim.asm import format_instruction
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.isa import exact
from sfpu_sim.reference.backends import MpMath
from sfpu_sim.shadow.json_form import located_json
from sfpu_sim.shadow.recording import LaneStep, RecordingMachine, shadow_lanes
from sfpu_sim.sweeps import DevicePath, run_device, sweep

MAX_LANES = 1000
CANCELLATION_BITS = 1.0        # a cancellation is reported when it loses at least one bit,
NAMED_CANCELLATION_BITS = 4.0  # and blamed for an error when it loses half of BF16's 8 bits
# The smallest relative error that can reach half a BF16 ULP (half the spacing at the top of
# a binade, 2^-8 / 2): below it an error changes the output only by crossing a midpoint.
VISIBLE = 2.0 ** -9

class LocateError(SfpuSimError):
    pass


# --------------------------------------------------------------------------------------------
# The true value
# --------------------------------------------------------------------------------------------

def true_value(function: str, bits: int) -> mpf:
    """The function at a BF16 input (DAZ, as the reference reads it), evaluated with mpmath
    at FUNCTION_BITS; the zeros, infinities, NaN and the domain as the registry defines."""
    fn = reference.definitions.lookup(function)
    x = float(formats.bits_to_float64(formats.daz(np.array([bits], np.uint16), formats.BF16),
                                      formats.BF16)[0])
    if math.isnan(x):
        return exact.NAN
    if math.isinf(x):
        return mpf(fn.inf[0 if x > 0 else 1])
    if x == 0 and fn.at_zero() is not None:
        return mpf(fn.at_zero()[1 if math.copysign(1.0, x) < 0 else 0])
    if x < 0 and fn.domain == "positive":
        return exact.NAN
    try:
        with mpmath.workprec(exact.FUNCTION_BITS):
            return +fn.formula(mpf(x), MpMath)
    except (ValueError, ZeroDivisionError, ArithmeticError):
        return exact.NAN


# --------------------------------------------------------------------------------------------
# One lane
# --------------------------------------------------------------------------------------------

@dataclass
class Split:
    """The final error in daz-index BF16 ULP steps (signed; they add up to ``total``), and
    the fractional twins in BF16 ULP at the reference (None where not finite)."""
    approximation: int
    datapath: int
    store: int
    total: int
    approximation_frac: float | None
    datapath_frac: float | None
    store_frac: float | None


@dataclass
class Verdict:
    """An instruction a lane's analysis names, and why."""
    step: LaneStep | None
    why: str


@dataclass
class LaneReport:
    input_bits: int
    reference_bits: int
    true_value: mpf
    output_bits: int
    kernel_fp32_bits: int
    shadow_final: mpf
    shadow_approximate: bool
    device_ulp: int | None
    steps: list[LaneStep]
    cone: set = field(default_factory=set)
    split: Split | None = None
    grows_most: LaneStep | None = None
    cancellation: LaneStep | None = None
    located: Verdict | None = None

    @property
    def input(self) -> float:
        return float(formats.bits_to_float64(np.array([self.input_bits], np.uint16),
                                             formats.BF16)[0])


def _cone(steps: list[LaneStep], final_store: int) -> set[int]:
    """Indices of the instructions the value stored at ``final_store`` depends on (through
    the registers and Dst cells they read, except sign sources), the store included."""
    by_index = {step.index: step for step in steps}
    pending, cone = [final_store], set()
    while pending:
        index = pending.pop()
        if index in cone or index not in by_index:
            continue
        cone.add(index)
        pending += [read.producer for read in by_index[index].reads
                    if read.producer >= 0 and not read.sign]
    return cone


def _bits_lost(kappa: float) -> float:
    return math.log2(kappa) if kappa > 1 else 0.0


def _index(bits: int) -> int:
    return int(ulp.index(np.array([bits], dtype=np.uint16), "bf16")[0])


def _split(lane: LaneReport) -> Split | None:
    reference_bits, output = lane.reference_bits, lane.output_bits
    stored = exact.round_bf16(lane.shadow_final)
    kernel = int(formats.ftz(formats.fp32_to_bf16_rne(np.array([lane.kernel_fp32_bits],
                                                                np.uint32)), formats.BF16)[0])
    indices = [_index(b) for b in (reference_bits, stored, kernel, output)]
    if lane.device_ulp is None or ulp.NAN_INDEX in indices:
        return None
    r, s, k, o = indices
    fractions = [None, None, None]
    f = lane.true_value
    if exact.is_finite(f) and exact.is_finite(lane.shadow_final):
        unit = exact.bf16_spacing(exact.round_bf16(exact.magnitude(f)))
        values = [f, lane.shadow_final, exact.fp32_value(lane.kernel_fp32_bits),
                  exact.bf16_value(output)]
        if all(exact.is_finite(v) for v in values):
            fractions = [float(mpmath.fdiv(mpmath.fsub(b, a, exact=True), unit, prec=53))
                         for a, b in zip(values, values[1:])]
    return Split(s - r, k - s, o - k, o - r, *fractions)


def _device_dominates(lane: LaneReport) -> bool | None:
    """Whether the device's error against the shadow outweighs the approximation error: in
    BF16 ULP steps (|datapath + store| against |approximation|), and where those tie, in
    exact size (|O - S| against |S - f|); None where not measurable."""
    split = lane.split
    if split is not None and abs(split.datapath + split.store) != abs(split.approximation):
        return abs(split.datapath + split.store) > abs(split.approximation)
    approximation = exact.difference(lane.shadow_final, lane.true_value)
    device = exact.difference(exact.bf16_value(lane.output_bits), lane.shadow_final)
    if approximation is None or device is None:
        return None
    return device > approximation


def _located(lane: LaneReport) -> Verdict:
    grows, cancels = lane.grows_most, lane.cancellation
    if lane.device_ulp == 0:
        return Verdict(None, "exact (0 ULP): the output is the reference; no instruction lost "
                             "precision that reached it")
    device = _device_dominates(lane)
    if device is None:
        unmeasurable = ("not measurable: a NaN, or an infinity against a finite value, "
                        "among the function, the shadow, the device's FP32 value and the output")
        return Verdict(grows, f"{unmeasurable}; named: where the device's error grows most"
                       if grows else unmeasurable)
    if device:
        if grows is None:
            return Verdict(None, "the device's error dominates but grows at no instruction "
                                 "(it comes from the packer)")
        return Verdict(grows, f"the device's error against the shadow dominates and grows "
                              f"most here (+{grows.growth:.3g} relative)")
    rho = exact.relative_error(lane.shadow_final, lane.true_value)
    if rho == 0:
        return Verdict(None, "no error: the device output is the shadow, which is the function")
    if cancels is not None and rho is not None and rho >= VISIBLE > rho / cancels.kappa \
            and _bits_lost(cancels.kappa) >= NAMED_CANCELLATION_BITS:
        return Verdict(cancels, f"the approximation error dominates ({rho:.3g} relative); "
                                f"this addition cancels, losing {_bits_lost(cancels.kappa):.1f} "
                                f"bits (kappa = {cancels.kappa:.3g}): without it the error "
                                f"could have been below 2^-9, too small to reach half a BF16 "
                                f"ULP")
    largest = (f"; the largest cancellation on the path (#{cancels.index}, "
               f"{_bits_lost(cancels.kappa):.1f} bits) does not explain it" if cancels else "")
    return Verdict(None, f"the approximation error dominates ({rho:.3g} relative) and is the "
                         f"approximation's own (e.g. a polynomial's){largest}")


def analyse(lane: LaneReport, final_store: int) -> LaneReport:
    """Fill in a lane's cone, split and verdicts."""
    lane.cone = _cone(lane.steps, final_store)
    on_path = [s for s in lane.steps if s.index in lane.cone]
    growing = [s for s in on_path if s.growth is not None and s.growth > 0]
    lane.grows_most = max(growing, key=lambda s: s.growth, default=None)
    cancelling = [s for s in on_path if not math.isnan(s.kappa)
                  and _bits_lost(s.kappa) >= CANCELLATION_BITS]
    lane.cancellation = max(cancelling, key=lambda s: s.kappa, default=None)
    lane.split = _split(lane)
    lane.located = _located(lane)
    return lane


# --------------------------------------------------------------------------------------------
# Many lanes
# --------------------------------------------------------------------------------------------

@dataclass
class InstructionRow:
    """One instruction over the lanes analysed: in how many lanes it wrote, was located,
    grew the error most, was the largest cancellation; what it added by itself (FP32 ULP) and
    how much the error grew there (relative), as median and max over the lanes it wrote in."""
    index: int
    mnemonic: str
    source: str
    text: str
    lanes: int = 0
    located: int = 0
    grows_most: int = 0
    cancellation: int = 0
    added_ulp: list = field(default_factory=list)
    growth: list = field(default_factory=list)
    bits_lost: list = field(default_factory=list)


@dataclass
class Located:
    """What :func:`locate` returns: the lanes (worst first for ``worst=``) and the
    per-instruction table over them."""
    kernel: str
    function: str
    arch: str
    dest: str
    selection: str
    program: object
    lanes: list[LaneReport]

    def instructions(self) -> list[InstructionRow]:
        rows: dict[int, InstructionRow] = {}
        for lane in self.lanes:
            for step in lane.steps:
                ins = step.instruction
                row = rows.setdefault(step.index, InstructionRow(
                    step.index, ins.mnemonic, ins.source or "", format_instruction(ins)))
                row.lanes += 1
                if step.added_ulp is not None and step.kind != "device":
                    row.added_ulp.append(step.added_ulp)
                if step.growth is not None and step.index in lane.cone:
                    row.growth.append(step.growth)
                if not math.isnan(step.kappa) and step.index in lane.cone:
                    row.bits_lost.append(_bits_lost(step.kappa))
            for verdict, attribute in ((lane.located.step if lane.located else None, "located"),
                                       (lane.grows_most, "grows_most"),
                                       (lane.cancellation, "cancellation")):
                if verdict is not None:
                    setattr(rows[verdict.index], attribute,
                            getattr(rows[verdict.index], attribute) + 1)
        return [rows[k] for k in sorted(rows)]

    def to_json(self) -> dict:
        return located_json(self)


def _final_store(program) -> int:
    if any(ins.mnemonic == "SFPLOADMACRO" for ins in program):
        raise LocateError(f"kernel program {program.name!r} uses SFPLOADMACRO: locate follows "
                          f"issued instructions one at a time, not the instructions SFPLOADMACRO "
                          f"schedules (locate its straight-line twin)")
    stores = [k for k, ins in enumerate(program) if ins.mnemonic == "SFPSTORE"]
    if not stores:
        raise LocateError(f"kernel program {program.name!r} has no SFPSTORE: nothing to "
                          f"locate")
    return stores[-1]


def worst_inputs(spec, arch: str, count: int, dest: str | None = None, progress=None,
                 selection=None):
    """The ``count`` BF16 inputs of largest device ULP over all 65,536 (or those in
    ``selection``, a :class:`~sfpu_sim.selection.Selection`), as the sweep measures them (daz
    population, rne reference, daz-index), largest first, ties in input order."""
    result = sweep(spec, arch, dest=dest, progress=progress,
                   **({} if selection is None else {"selection": selection}))
    arrays = result.arrays
    order = np.argsort(-np.where(arrays["counted"], arrays["distance"], -1), kind="stable")
    order = [k for k in order[:count] if arrays["counted"][k]]
    return arrays["x_bits"][order].astype(np.uint16)


def sweep_json_inputs(data: dict, where: str) -> tuple[dict, np.ndarray]:
    """The cell (kernel, arch, dest) and the worst inputs, worst first, that a ``sweep --json``
    summary records (its ``worst`` rows); errors name ``where``."""
    try:
        cell = {key: data[key] for key in ("kernel", "arch", "dest")}
        bits = [int(row["input_bits"], 16) for row in data["worst"]]
    except (KeyError, TypeError, ValueError):
        raise LocateError(f"{where}: not a sweep --json summary (it needs kernel, arch, dest "
                          f"and worst[].input_bits)") from None
    if data.get("input_format", "bf16") != "bf16":
        raise LocateError(f"{where}: a sweep of {data['input_format']} inputs; locate runs "
                          f"BF16 inputs")
    if not bits:
        raise LocateError(f"{where}: the sweep recorded no worst lane (nothing measured)")
    return cell, np.array(bits, dtype=np.uint16)


def locate(kernel, arch: str, *, inputs=None, worst: int | None = None,
           dest: str | None = None, progress=None, selection=None,
           inputs_text: str = "the inputs given") -> Located:
    """Run ``kernel`` (a registered name or KernelSpec) on ``arch`` for the given BF16
    ``inputs`` (bit patterns; ``inputs_text`` says where they come from), or for its
    ``worst`` N inputs (in ``selection``, a :class:`~sfpu_sim.selection.Selection`, if
    given), with the exact shadow beside the device; see the module docstring for what is
    measured."""
    spec = registry.get(kernel) if isinstance(kernel, str) else kernel
    arch = get_arch(arch).name
    if (inputs is None) == (worst is None):
        raise LocateError("locate: give inputs (--x) or worst=N (--worst), not both")
    if worst is not None:
        if isinstance(worst, bool) or not isinstance(worst, (int, np.integer)) or \
                not 1 <= worst <= MAX_LANES:
            raise LocateError(f"--worst {worst!r}: the number of lanes must be an integer in "
                              f"1..{MAX_LANES}")
        inputs = worst_inputs(spec, arch, int(worst), dest, progress, selection)
        if not inputs.size:
            raise LocateError("locate --worst: no measurable input to locate (every lane is a "
                              "NaN or an infinity against a finite value)")
        scope = "all 65,536 BF16" if selection is None or selection.everything else \
            f"the BF16 inputs with {selection.text}"
        chosen = f"the {len(inputs)} inputs of largest device ULP over {scope}"
    else:
        inputs = formats.as_bits(np.atleast_1d(np.asarray(inputs)), "bf16").reshape(-1)
        if not 1 <= inputs.size <= MAX_LANES:
            raise LocateError(f"locate: {inputs.size} inputs; give 1..{MAX_LANES}")
        chosen = inputs_text
    dest = dest or spec.dest
    program = spec.program(arch)
    final_store = _final_store(program)
    machines = []

    def recording(*args, **options):
        machines.append(RecordingMachine(*args, **options))
        return machines[-1]

    run = run_device(program, inputs, DevicePath("bf16", "bf16", dest),
                     machine_class=recording)
    ref = reference.reference(spec.function, inputs)
    distance = ulp.distance(ref.bits, run.output)
    steps, finals = shadow_lanes(machines[0].steps, inputs.size, final_store)
    lanes = []
    for k, bits in enumerate(inputs):
        shadow, approximate = finals[k]
        counted = bool(distance.counted[k])
        lanes.append(analyse(LaneReport(
            int(bits), int(ref.bits[k]), true_value(spec.function, int(bits)),
            int(run.output[k]), int(run.kernel_fp32[k]), shadow, approximate,
            int(distance.distance[k]) if counted else None, steps[k]), final_store))
    return Located(spec.name, spec.function, arch, dest, chosen, program, lanes)
