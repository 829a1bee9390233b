"""``sfpu-sim fit --target device``: coefficients whose kernel is correctly rounded on the
emulated chips over every BF16 input of the interval, found by rounding-interval linear
programming and judged by the emulator.

Owns: the inputs and their rounding intervals, the search (LP, coefficient rounding, emulator,
shrinking), its result and proof of infeasibility. Knows nothing of the CLI; the kernel it judges
is the text :mod:`sfpu_sim.design.emit` writes, loaded and swept as a user's kernel file is.

Method (RLIBM: J. P. Lim and S. Nagarakatte, "High performance correctly rounded math
libraries for 32-bit floating point representations", PLDI 2021, and "One polynomial
approximation to produce correctly rounded results of an elementary function for multiple
representations and rounding modes", POPL 2022):

1. **Rounding intervals.** For each BF16 input ``x`` of the interval (the normals and +0, the
   sweep's ``daz`` population), ``y`` is the correctly rounded BF16 result (the reference, RNE,
   FTZ). The kernel ends with ``float_to_fp16b(v, 0)`` (SFP_STOCH_RND to BF16: nearest, ties
   away from zero; FP32 denormals -> +0; tt-isa-documentation ``SFPSTOCHRND_FloatFloat.md``),
   so it returns ``y`` exactly when its FP32 value ``v`` lies in ``[l, h]``, the FP32 numbers
   that rounding takes to ``y``: from the midpoint below ``y`` (a tie goes away from zero, to
   ``y``) to the last FP32 number before the midpoint above. For ``y = 0``, every FP32
   denormal; for ``y = 2**-126``, from ``y`` itself (below it is flushed).
2. **LP** (:mod:`sfpu_sim.design.rounding_lp`): the largest margin ``t`` (in FP32 ulps of each
   result) by which the exact polynomial stays inside every ``[l, h]``. ``t < 0`` proves that no
   polynomial on these powers is correctly rounded even in exact arithmetic; the support of the
   dual solution is an irreducible set of conflicting inputs (no proper subset conflicts). A
   coefficient the LP puts strictly between 0 and its format's smallest normal (which the
   SFPU's multiply-add reads as zero) is ruled out: the LP is solved again with it 0, at least
   that normal, or at most its negative (:func:`~sfpu_sim.design.rounding_lp.explore`); all
   three negative prove infeasibility in that format.
3. **Coefficient rounding**, one coefficient at a time (as Sollya's fpminimax does): the lowest
   power is rounded down or up in its format, whichever leaves the larger LP margin for the rest
   re-fitted, and so on.
4. **Judge**: the emitted kernel runs on each chip (the chip's FP32 multiply-add, the final
   rounding, the store and the packer). Where a result is wrong, the violated end of that
   input's interval is pulled in (by 2, 6, 14, ... FP32 ulps) and steps 2-4 repeat, at most
   :data:`MAX_ROUNDS` times. The figures reported are ``sweeps.sweep`` of the final kernel, the
   figures ``sfpu-sim sweep KERNEL --range`` prints.

Everything is deterministic: no random choice, fixed tie rules.
"""
from __future__ import annotations

import dataclasses
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from sfpu_sim import formats, reference, registry, ulp
from sfpu_sim.design import api, emit
from sfpu_sim.design import rounding_lp as lp
from sfpu_sim.design import supnorm as certifier
from sfpu_sim.design.coefficient_formats import coefficient_format
from sfpu_sim.design.interval import parse_interval
from sfpu_sim.design.problem import Problem
from sfpu_sim.design.target import registry_target
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.kernel_registration import CHIPS
from sfpu_sim.selection import Selection
from sfpu_sim.sweeps import DevicePath, run_device, sweep

MAX_ROUNDS = 12                 # LP -> round -> judge rounds before giving up
ULP_CONVENTION = "daz-index"
SMALLEST_NORMAL_BF16 = 0x0080
LARGEST_FP32_DENORMAL = 0x007FFFFF
CORRECTLY_ROUNDED, INFEASIBLE, NOT_FOUND = "correctly rounded", "infeasible", "not found"


class DeviceFitError(SfpuSimError):
    """A device fit that cannot be set up as asked."""


@dataclass(frozen=True)
class RoundingIntervals:
    """Per input (ascending): ``x_bits`` (BF16), ``x``, the reference (``expected``, a
    :class:`~sfpu_sim.reference.ReferenceResult`), ``low``/``high`` (the FP32 values that
    round to it, as float64) and ``unit`` (an FP32 ulp of the result: the margin's unit);
    ``margin_weights``: per end (the upper ends, then the lower), 1, or 0 for an end at the
    smallest normal number: beyond it the result is flushed to zero, and a polynomial that
    reaches it exactly (``x`` times an exact 1 at ``x = 2**-126``, where the higher terms
    underflow) is right with no margin."""
    x_bits: np.ndarray
    x: np.ndarray
    expected: object
    low: np.ndarray
    high: np.ndarray
    unit: np.ndarray
    margin_weights: np.ndarray
    range: tuple

    @property
    def count(self) -> int:
        return int(self.x.size)


def rounding_intervals(function: str, interval) -> RoundingIntervals:
    """The BF16 inputs in ``interval`` (exact ends) and the FP32 intervals their kernel results
    must fall in (module docstring, step 1)."""
    a, b = interval.inner()
    low_x, high_x = float(a), float(b)             # the floats inside the exact ends
    low_x = low_x if Fraction(low_x) >= a else float(np.nextafter(low_x, np.inf))
    high_x = high_x if Fraction(high_x) <= b else float(np.nextafter(high_x, -np.inf))
    candidates = ulp.population("daz", "bf16")
    inside = Selection((low_x, high_x)).mask(formats.bits_to_float64(candidates, "bf16"))
    x_bits = candidates[inside].astype(np.uint16)
    if x_bits.size == 0:
        raise DeviceFitError(f"--interval {interval.text}: no BF16 input lies in it")
    x = formats.bits_to_float64(x_bits, "bf16")
    expected = reference.reference(function, x_bits, "rne", daz=True, ftz=True)
    y = expected.bits.astype(np.uint32)
    magnitude, negative = y & 0x7FFF, (y & 0x8000) != 0
    bad = magnitude >= 0x7F80
    if bad.any():
        where = int(np.argmax(bad))
        raise DeviceFitError(f"--target device: {function}({x[where]:.9g}) rounds to "
                             f"{'NaN' if magnitude[where] > 0x7F80 else 'infinity'} in BF16; "
                             f"choose an interval where its BF16 results are finite")
    zero = magnitude == 0
    top = np.where(zero, LARGEST_FP32_DENORMAL, (magnitude << 16) | 0x7FFF)
    bottom = np.where(magnitude == SMALLEST_NORMAL_BF16, SMALLEST_NORMAL_BF16 << 16,
                      ((magnitude - 1) << 16) | 0x8000)
    top_value, bottom_value = _fp32(top), np.where(zero, -_fp32(top), _fp32(bottom))
    low = np.where(negative & ~zero, -top_value, bottom_value)
    high = np.where(negative & ~zero, -bottom_value, top_value)
    exponent = np.maximum(magnitude >> 7, 1).astype(np.float64)
    unit = np.exp2(np.where(zero, -149.0, exponent - 150.0))
    smallest = 2.0 ** -126
    margin_weights = np.concatenate([high != -smallest, low != smallest]).astype(np.float64)
    return RoundingIntervals(x_bits, x, expected, low, high, unit, margin_weights,
                             (low_x, high_x))


def _fp32(bits: np.ndarray) -> np.ndarray:
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


# ------------------------------------------------------------------------------------------
# Rounding the coefficients
# ------------------------------------------------------------------------------------------

def round_coefficients(intervals, powers: tuple, formats_by_power: dict, branch: lp.Branch,
                       extra: np.ndarray, solution: lp.MarginSolution) -> tuple[dict, float]:
    """Module docstring, step 3, within ``branch``: the coefficients in their formats and the
    margin (FP32 ulps) of their exact polynomial."""
    smallest = _smallest(formats_by_power)
    chosen = dict(branch.fixed)
    free = tuple(k for k in powers if k not in chosen)
    current = dict(zip(free, solution.coefficients))
    for k in free:
        best = None
        for option in formats_by_power[k].around(current[k], 1):
            if k in branch.signs and option * branch.signs[k] <= 0:
                continue                            # the branch rules zero and that sign out
            trial = lp.Branch({**chosen, k: option}, branch.signs)
            program = lp.PolynomialProgram(intervals, powers, trial, extra, smallest)
            if program.free:
                refit = program.solve()
                margin, values = refit.margin, dict(zip(program.free, refit.coefficients))
            else:
                margin, values = program.margin_of(trial.fixed), {}
            if best is None or margin > best[0]:
                best = (margin, option, values)
        chosen[k] = best[1]
        current.update(best[2])
    final = lp.PolynomialProgram(intervals, powers, lp.Branch(chosen, {}), extra, smallest)
    return {k: chosen[k] for k in powers}, final.margin_of(chosen)


def _smallest(formats_by_power: dict) -> dict:
    """The smallest nonzero magnitude of each coefficient's format the SFPU can use (its
    normal minimum: the multiply-add reads denormals as zero)."""
    return {k: Fraction(2) ** fmt.emin for k, fmt in formats_by_power.items()}


# ------------------------------------------------------------------------------------------
# The judge: the emitted kernel on the emulated chips
# ------------------------------------------------------------------------------------------

class Judge:
    """Writes a candidate's kernel file (:func:`emit.kernel_source`, final rounding on) into a
    private directory and runs it through the device path on every chip."""

    def __init__(self, base, intervals: RoundingIntervals, chips: tuple, dest: str,
                 scheme: str, directory: Path):
        self.base, self.intervals, self.chips = base, intervals, chips
        self.dest, self.scheme, self.directory = dest, scheme, directory
        self.runs = 0

    def result(self, coefficients: dict):
        """The FitResult of ``coefficients`` (not yet certified)."""
        return dataclasses.replace(self.base, coefficients=tuple(
            coefficients[k] for k in self.base.powers))

    def spec(self, coefficients: dict):
        self.runs += 1
        name = f"device_fit_{self.runs}"
        path = self.directory / f"{name}.py"
        path.write_text(emit.kernel_source(self.result(coefficients), name, self.scheme,
                                           final_rounding=True), encoding="utf-8")
        return registry.load_isolated(path)[name]

    def wrong(self, coefficients: dict) -> dict:
        """Per chip: (wrong, too_high) masks over the inputs."""
        spec, verdict = self.spec(coefficients), {}
        expected = formats.bits_to_float64(self.intervals.expected.bits, "bf16")
        for chip in self.chips:
            run = run_device(spec.program(chip), self.intervals.x_bits, DevicePath(dest=self.dest))
            distance = ulp.distance(self.intervals.expected, run.output, ULP_CONVENTION)
            wrong = ~distance.counted | (distance.distance != 0)
            verdict[chip] = (wrong, formats.bits_to_float64(run.output, "bf16") > expected)
        return verdict

    def figures(self, coefficients: dict) -> dict:
        """Per chip, ``sweeps.sweep`` of the kernel over the inputs' range."""
        spec, rows = self.spec(coefficients), {}
        for chip in self.chips:
            swept = sweep(spec, chip, dest=self.dest, ulp_convention=ULP_CONVENTION,
                          selection=Selection(self.intervals.range))
            s, arrays = swept.summary, swept.arrays
            rows[chip] = {"max_ulp": s["max_ulp"], "mean_ulp": s["mean_ulp"],
                          "exact": int(((arrays["distance"] == 0) & arrays["counted"]).sum()),
                          "counted": s["count"], "instructions": len(spec.program(chip)),
                          "kernel_hash": s["kernel_hash"]}
        return rows


# ------------------------------------------------------------------------------------------
# The search
# ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DeviceFit:
    """What :func:`fit_device` returns. ``fit``: the usual FitResult with the coefficients
    found (their real-number error certified as for any fit); ``status``: correctly rounded,
    infeasible (``proof``: per branch of the formats' gaps, a smallest set of conflicting
    inputs and its exact margin) or not found; ``lp_margin``: the LP optimum over real
    coefficients, in FP32 ulps (an exact upper bound for every polynomial on these powers);
    ``margin``: that of the exact polynomial with the coefficients found; ``chips``: per chip
    the swept figures of the kernel."""
    fit: object
    status: str
    inputs: int
    range: tuple
    dest: str
    scheme: str
    lp_margin: Fraction
    margin: float
    rounds: int
    chips: dict
    proof: tuple
    seconds: float

    @property
    def correctly_rounded(self) -> bool:
        return self.status == CORRECTLY_ROUNDED

    @property
    def description(self) -> str:
        """The emitted kernel's registered description."""
        worst = ", ".join(f"{chip} max ULP {row['max_ulp']}" for chip, row in self.chips.items())
        return (f"degree-{max(self.fit.powers)} polynomial for {self.fit.function} on "
                f"[{self.fit.interval}] searched for correct BF16 rounding ({self.status}: "
                f"{worst} over {self.inputs} inputs)")

    def to_json(self) -> dict:
        document = self.fit.to_json()
        document["target"] = "device"
        document["device"] = {
            "status": self.status, "inputs": self.inputs, "range": list(self.range),
            "dest": self.dest, "scheme": self.scheme, "final_rounding": "float_to_fp16b(y, 0)",
            "reference": f"{self.fit.function} correctly rounded to BF16 (rne)",
            "ulp_convention": ULP_CONVENTION, "lp_margin_fp32_ulps": float(self.lp_margin),
            "margin_fp32_ulps": self.margin, "rounds": self.rounds, "chips": self.chips,
            "infeasibility_proof": list(self.proof)}
        return document


def fit_device(function: str, interval, *, powers=None, degree=None, parity=None,
               formats="fp32", fix=None, precision: int = api.DEFAULT_PRECISION,
               chips=CHIPS, dest: str = "bf16", scheme: str = "horner") -> DeviceFit:
    """Search coefficients (``formats``, one or one per power) on ``powers`` (or ``degree``
    with ``parity``) whose kernel is correctly rounded on every chip of ``chips`` over every
    BF16 input of ``interval`` (module docstring). ``fix``: coefficients held as given."""
    started = time.perf_counter()
    chips = tuple(chips)
    if not chips or any(chip not in CHIPS for chip in chips):
        raise DeviceFitError(f"--arch: expected chips among {', '.join(CHIPS)}, got {chips!r}")
    if dest not in ("bf16", "fp32"):
        raise DeviceFitError(f"--dest: expected bf16 or fp32, got {dest!r}")
    base = api.fit(function, interval, powers=powers, degree=degree, parity=parity,
                   formats=formats, fix=fix, precision=precision)
    bounds = parse_interval(base.interval)
    intervals = rounding_intervals(base.function, bounds)
    formats_by_power = {k: coefficient_format(f) for k, f in zip(base.powers, base.formats)}
    smallest = _smallest(formats_by_power)
    try:
        root, leaves = lp.explore(intervals, base.powers, base.fixed,
                                  np.zeros(2 * intervals.count), smallest)
    except lp.LPError as error:
        raise DeviceFitError(f"--target device: {error}") from None
    feasible = leaves[0][1].margin >= 0
    with tempfile.TemporaryDirectory(prefix="sfpu-sim-fit-") as directory:
        judge = Judge(base, intervals, chips, dest, scheme, Path(directory))
        coefficients, rounds = _search(intervals, base.powers, formats_by_power, *leaves[0],
                                       judge)
        figures = judge.figures(coefficients)
    if all(row["max_ulp"] == 0 for row in figures.values()):
        status = CORRECTLY_ROUNDED
    else:
        status = NOT_FOUND if feasible else INFEASIBLE
    proof = () if feasible else tuple(
        _proof(branch, solution, lp.PolynomialProgram(
            intervals, base.powers, branch, np.zeros(2 * intervals.count), smallest),
            base.fixed) for branch, solution in leaves)
    margin = lp.PolynomialProgram(intervals, base.powers, lp.Branch(coefficients, {}),
                                  np.zeros(2 * intervals.count), smallest).margin_of(coefficients)
    return DeviceFit(_certified(base, bounds, coefficients, rounds, status), status,
                     intervals.count, intervals.range, dest, scheme, root.margin, margin, rounds,
                     figures, proof, time.perf_counter() - started)


def _search(intervals, powers, formats_by_power, branch, solution, judge) -> tuple[dict, int]:
    """Steps 3-4 of the module docstring in the best branch. Returns the coefficients (the
    first with no wrong result, else those with the fewest) and the rounds run."""
    extra, best = np.zeros(2 * intervals.count), None
    smallest = _smallest(formats_by_power)
    for round_number in range(1, MAX_ROUNDS + 1):
        if round_number > 1:
            solution = lp.PolynomialProgram(intervals, powers, branch, extra, smallest).solve()
            if solution.margin < 0:                 # pulled in too far: no better candidate
                return best[1], round_number - 1
        coefficients, _ = round_coefficients(intervals, powers, formats_by_power, branch, extra,
                                             solution)
        verdict = judge.wrong(coefficients)
        wrong = sum(int(lanes.sum()) for lanes, _ in verdict.values())
        if best is None or wrong < best[0]:
            best = (wrong, coefficients)
        if wrong == 0 or solution.margin < 0:
            return best[1], round_number
        count = intervals.count
        for lanes, too_high in verdict.values():
            rows = np.concatenate([np.flatnonzero(lanes & too_high),
                                   np.flatnonzero(lanes & ~too_high) + count])
            extra[rows] = 2 * extra[rows] + 2       # in FP32 ulps: 2, 6, 14, ...
    return best[1], MAX_ROUNDS


def _proof(branch, solution: lp.MarginSolution, program, given: dict) -> dict:
    """One infeasible branch: its assumption, exact margin (negative), the inputs and
    coefficient bounds of the dual solution's support, and whether that set is minimal (every
    proper subset has independent rows, hence is feasible)."""
    intervals, count = program.intervals, program.count
    support = solution.support
    rows = [program.exact_row(j)[0] for j in support]
    minimal = all(lp.independent(rows[:k] + rows[k + 1:]) for k in range(len(rows)))
    inputs, bounds = [], []
    for j in support:
        if j >= 2 * count:
            k, sign = program.signs[j - 2 * count]
            bounds.append(f"c{k} {'>= ' if sign > 0 else '<= -'}"
                          f"{lp.power_text(program.smallest[k])}")
            continue
        i, upper = j % count, j < count
        end = intervals.high[i] if upper else intervals.low[i]
        inputs.append({
            "x": float(intervals.x[i]), "x_bits": f"0x{int(intervals.x_bits[i]):04X}",
            "expected_bits": f"0x{int(intervals.expected.bits[i]):04X}",
            "expected": float(formats.bits_to_float64(intervals.expected.bits[i:i + 1],
                                                      "bf16")[0]),
            "bound": "at most" if upper else "at least", "end": float(end),
            "end_bits": f"0x{int(np.float32(end).view(np.uint32)):08X}"})
    inputs.sort(key=lambda row: row["x"])
    return {"assumption": branch.text(given, program.smallest),
            "lp_margin_fp32_ulps": float(solution.margin), "minimal": minimal,
            "inputs": inputs, "coefficient_bounds": bounds}


def _certified(base, bounds, coefficients: dict, rounds: int, status: str):
    """The FitResult with the device coefficients and their own certified real-number error."""
    problem = Problem(registry_target(base.function), bounds, base.powers, base.fixed)
    certificate = certifier.certify(problem, coefficients)
    sup = certificate.upper if certificate.proven else certificate.lower
    return dataclasses.replace(
        base, coefficients=tuple(coefficients[k] for k in base.powers),
        sup_error=api._round(sup), certificate=certificate, candidates=(),
        method=f"device LP over BF16 rounding intervals, {rounds} round(s): {status}")
