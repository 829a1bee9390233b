"""``sfpu_sim.design.api.fit``: minimax fit, coefficient quantisation and a certified error bound.

Owns: reading the designer's inputs (the CLI passes its strings straight through), running
Remez -> quantise -> certify, and the result object with its JSON form. Knows nothing of the
machine or of kernels (``emit`` writes the kernel file; the CLI runs it).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import ml_dtypes
import mpmath
import numpy as np

from sfpu_sim.design import sollya, supnorm as certifier
from sfpu_sim.design.coefficient_formats import BadFormat, coefficient_format, to_fraction
from sfpu_sim.design.expr import MPMATH, BadExpression, parse
from sfpu_sim.design.interval import Interval, parse_interval
from sfpu_sim.design.problem import BadProblem, Problem
from sfpu_sim.design.quantise import quantise
from sfpu_sim.design.remez import DegreeTooHigh, remez_checked
from sfpu_sim.design.target import registry_target, user_target
from sfpu_sim.reference.user_expressions import reference_name

BACKENDS = ("sfpu-sim", "sollya")
ERRORS = ("absolute", "relative")
DEFAULT_PRECISION = 128
# Size limits, so that a mistyped number is refused instead of running for hours. The fit's
# time grows steeply with the degree (exp on [0, 1], all powers: degree 16 took 21 s, degree 32
# at 512 bits 128 s, degree 64 at 2048 bits over 9 minutes, on a 2-core machine), and a
# kernel evaluates the polynomial in FP32, where a monomial form of high degree loses its
# accuracy to rounding. The Remez system of degree 64 is resolved at 512 bits on [0, 1] and
# at 1024 on [100, 101]; 4096 bits leaves room and only slows the fit beyond that.
MAX_POWER = 64
MAX_PRECISION = 4096
POWER_LIMIT = (f"powers from 0 to {MAX_POWER} are allowed (the fit's time grows steeply with "
               f"the degree, minutes at 32, and an FP32 polynomial of higher degree loses its "
               f"accuracy to rounding)")


@dataclass(frozen=True)
class FitResult:
    """What :func:`fit` returns. ``coefficients``: exact Fractions, one per power, each
    representable in its format (``formats``); ``sup_error``: the certified upper bound of the
    rounded polynomial's error (a float rounded up), or, for a function without an arb form,
    the sampled maximum (``certificate.proven`` is then False); ``minimax_error``: the error of
    the real (unrounded) minimax polynomial, which ``minimax_lower`` bounds from below for any
    polynomial on these powers (de la Vallee Poussin); ``equioscillation_points``: where the
    minimax error alternates."""
    function: str
    interval: str
    interval_values: tuple
    powers: tuple
    formats: tuple
    fixed: dict
    error_measure: str
    weight: str | None
    coefficients: tuple
    sup_error: float
    certificate: certifier.Certificate
    minimax_error: float
    minimax_lower: float
    minimax_coefficients: tuple
    equioscillation_points: tuple
    method: str
    candidates: tuple = field(default=(), repr=False)
    backend: str = "sfpu-sim"
    precision: int = DEFAULT_PRECISION
    seconds: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def values(self) -> tuple:
        """The coefficients as floats (exact: every format here fits in a float)."""
        return tuple(float(c) for c in self.coefficients)

    def bits(self) -> tuple:
        """Each coefficient's bit pattern in its own format, as ``0x...`` text."""
        out = []
        for value, fmt in zip(self.values, self.formats):
            if fmt == "fp32":
                out.append(f"0x{int(np.float32(value).view(np.uint32)):08X}")
            elif fmt == "bf16":
                out.append(f"0x{int(np.array(value, ml_dtypes.bfloat16).view(np.uint16)):04X}")
            else:
                out.append(f"0x{int(np.float16(value).view(np.uint16)):04X}")
        return tuple(out)

    def to_json(self) -> dict:
        """The ``--json`` document: the keys the issue names first, then the details."""
        c = self.certificate
        return {
            "coefficients": list(self.values), "powers": list(self.powers),
            "sup_error": self.sup_error, "minimax_error": self.minimax_error,
            "format": list(self.formats), "interval": list(self.interval_values),
            "function": self.function, "interval_text": self.interval,
            "error": self.error_measure, "weight": self.weight,
            "fixed": {str(k): float(v) for k, v in self.fixed.items()},
            "coefficient_bits": list(self.bits()),
            "certified": c.proven,
            "sup_error_lower": _round(c.lower, down=True),
            "sup_error_argmax": float(c.argmax),
            "certificate": {"method": c.method, "pieces": c.pieces, "relative_gap": c.gap},
            "minimax_lower": self.minimax_lower,
            "minimax_coefficients": list(self.minimax_coefficients),
            "equioscillation_points": list(self.equioscillation_points),
            "method": self.method, "backend": self.backend, "precision_bits": self.precision,
            "candidates": [{"method": m, "sampled_error": e} for m, e in self.candidates],
        }


def _round(value: Fraction, down: bool = False) -> float:
    """A float on the safe side of an exact bound (up for upper bounds)."""
    f = float(value)
    if down:
        return f if Fraction(f) <= value else math.nextafter(f, -math.inf)
    return f if Fraction(f) >= value else math.nextafter(f, math.inf)


# ------------------------------------------------------------------------------------------
# Reading the inputs (strings as typed on the command line, or Python values)
# ------------------------------------------------------------------------------------------

def parse_powers(powers=None, degree=None, parity=None) -> tuple:
    """``--powers 1,3,5,7`` (text or a list), or ``--degree N`` with ``--parity odd|even``."""
    if powers is not None and degree is not None:
        raise BadProblem("give either --powers or --degree (with --parity), not both")
    if powers is None and degree is None:
        raise BadProblem("give --powers (e.g. 1,3,5,7) or --degree N (with --parity odd|even)")
    if parity is not None and parity not in ("odd", "even"):
        raise BadProblem(f"--parity: expected odd or even, got {parity!r}")
    if degree is not None:
        try:
            degree = int(degree)
        except (TypeError, ValueError):
            raise BadProblem(f"--degree: expected an integer, got {degree!r}") from None
        if degree < 0:
            raise BadProblem(f"--degree: expected an integer >= 0, got {degree}")
        if degree > MAX_POWER:
            raise BadProblem(f"--degree {degree}: too high; {POWER_LIMIT}")
        start = {"odd": 1, "even": 0, None: 0}[parity]
        step = 1 if parity is None else 2
        result = tuple(range(start, degree + 1, step))
        if not result:
            raise BadProblem(f"--degree {degree} --parity {parity}: no such powers")
        return result
    if parity is not None:
        raise BadProblem("--parity goes with --degree, not with --powers")
    if isinstance(powers, str):
        items = [p.strip() for p in powers.split(",") if p.strip()]
    else:
        items = list(powers)
    if not items:
        raise BadProblem("--powers: the list is empty; give at least one power (e.g. 0,1,2)")
    try:
        result = tuple(sorted(int(p) for p in items))
    except (TypeError, ValueError):
        raise BadProblem(f"--powers: expected integers separated by commas, got "
                         f"{powers!r}") from None
    if any(p < 0 for p in result) or len(set(result)) != len(result):
        raise BadProblem(f"--powers: expected distinct integers >= 0, got {list(result)}")
    if result[-1] > MAX_POWER:
        raise BadProblem(f"--powers: {result[-1]} is too high; {POWER_LIMIT}")
    return result


def parse_formats(formats, powers: tuple) -> dict:
    """One format for all coefficients, or one per power (in the order of ``powers``)."""
    items = [f.strip() for f in formats.split(",")] if isinstance(formats, str) \
        else list(formats)
    if len(items) == 1:
        items = items * len(powers)
    if len(items) != len(powers):
        raise BadFormat(f"--format: {len(items)} formats for {len(powers)} powers "
                        f"{list(powers)}; give one format, or one per power")
    return {k: coefficient_format(name) for k, name in zip(powers, items)}


def parse_fix(fix, formats: dict) -> dict:
    """``--fix 0=1`` (text, ``k=v`` items separated by commas) or a dict power -> value. Each
    value must be exactly representable in its coefficient's format."""
    if not fix:
        return {}
    if isinstance(fix, str):
        pairs = []
        for item in fix.split(","):
            if "=" not in item:
                raise BadProblem(f"--fix: expected POWER=VALUE items, got {item.strip()!r}")
            power, value = item.split("=", 1)
            pairs.append((power.strip(), value.strip()))
    else:
        pairs = list(fix.items())
    fixed = {}
    for power, value in pairs:
        try:
            power = int(power)
        except (TypeError, ValueError):
            raise BadProblem(f"--fix: power {power!r} is not an integer") from None
        exact = _exact_value(value, f"--fix {power}")
        fmt = formats.get(power)
        if fmt is None:
            raise BadProblem(f"--fix: power {power} is not among the powers {sorted(formats)}")
        if exact is None or not fmt.holds(exact):
            near = fmt.around(exact if exact is not None else _approximate(value), 1)
            raise BadFormat(f"--fix {power}={value}: not exactly a {fmt.name} number (nearest: "
                            f"{', '.join(repr(float(v)) for v in near)})")
        fixed[power] = exact
    return fixed


def _exact_value(value, where: str) -> Fraction | None:
    if isinstance(value, (int, float, Fraction)):
        return Fraction(value)
    try:
        return parse(str(value), where).rational()
    except BadExpression as error:
        raise BadProblem(str(error)) from None


def _approximate(value) -> Fraction:
    with mpmath.workprec(128):
        return to_fraction(parse(str(value), "--fix").evaluate(MPMATH))


def _interval(interval) -> Interval:
    if isinstance(interval, Interval):
        return interval
    if isinstance(interval, str):
        return parse_interval(interval)
    lo, hi = interval
    return parse_interval(f"{lo},{hi}")


# ------------------------------------------------------------------------------------------
# The fit
# ------------------------------------------------------------------------------------------

def fit(function: str | Callable, interval, *, powers=None, degree=None, parity=None,
        error: str = "absolute", weight: str | None = None, formats="fp32", fix=None,
        precision: int = DEFAULT_PRECISION, backend: str = "sfpu-sim",
        name: str | None = None) -> FitResult:
    """Fit, quantise and certify (see :class:`FitResult`).

    ``function``: a reference-registry name (``"exp"``), an expression in x (``"tan(x)"``,
    :mod:`sfpu_sim.reference.user_expressions`; certified like a registered function), or a
    function of one mpmath number (a kernel file's ``reference=``; then the error is sampled,
    not proven). ``interval``:
    ``"lo,hi"`` text (expressions in pi, e, log(), sqrt()) or a pair. ``powers`` (``"1,3,5,7"``
    or a list) or ``degree`` with ``parity``. ``error``: ``absolute`` or ``relative``;
    ``weight``: an expression in ``x`` multiplying the error. ``formats``: ``fp32``, ``bf16``,
    ``fp16``, or one per power. ``fix``: ``"0=1"`` or ``{0: 1}``. ``precision``: the Remez
    working precision in bits. ``backend="sollya"`` takes the coefficients from Sollya's
    ``fpminimax`` (if installed) and certifies them the same way."""
    started = time.perf_counter()
    if isinstance(function, str):
        target = registry_target(reference_name(function, "function"))
    else:
        target = user_target(name or getattr(function, "__name__", "user function"), function)
    if error not in ERRORS:
        raise BadProblem(f"--error: expected absolute or relative, got {error!r}")
    if backend not in BACKENDS:
        raise BadProblem(f"--backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
    if isinstance(precision, bool) or not isinstance(precision, int) \
            or not 64 <= precision <= MAX_PRECISION:
        raise BadProblem(f"--precision: expected an integer from 64 to {MAX_PRECISION} (bits; "
                         f"{MAX_PRECISION} is several times what a fit of degree {MAX_POWER} "
                         f"needs), got {precision!r}")
    chosen_interval = _interval(interval)
    chosen_powers = parse_powers(powers, degree, parity)
    chosen_formats = parse_formats(formats, chosen_powers)
    fixed = parse_fix(fix, chosen_formats)
    weight_expr = parse(weight, "--weight", variable=True) if weight else None
    problem = Problem(target, chosen_interval, chosen_powers, fixed, error == "relative",
                      weight_expr)
    problem.check()
    seconds = {"check": time.perf_counter() - started}
    with mpmath.workprec(precision):
        error_function = problem.error_function()
        fixed_terms = (tuple(mpmath.mpf(v.numerator) / v.denominator for v in fixed.values()),
                       problem.shifted(fixed))
        minimax = remez_checked(error_function, problem.shifted(problem.free), fixed_terms,
                                precision)
        seconds["remez"] = time.perf_counter() - started - sum(seconds.values())
        _check_range(minimax, chosen_formats, problem.shift)
        if backend == "sollya":
            coefficients = sollya.fpminimax(problem, chosen_formats)
            method, candidates = "Sollya fpminimax", ()
        else:
            best, generated = quantise(error_function, minimax, fixed, chosen_formats,
                                       problem.shift)
            coefficients = {k: best.coefficients[k] for k in chosen_powers}
            method = best.method
            candidates = tuple((c.method, float(c.error)) for c in generated)
        seconds["quantise"] = time.perf_counter() - started - sum(seconds.values())
        # The bound depends on the polynomial alone (no hints from the search), so the same
        # coefficients always get the same certificate, whichever backend chose them.
        certificate = certifier.certify(problem, coefficients)
        seconds["certify"] = time.perf_counter() - started - sum(seconds.values())
        lo, hi = chosen_interval.inner()
        points = [x for x in _mirror(minimax.points, problem.parity()) if lo <= x <= hi]
    sup = certificate.upper if certificate.proven else certificate.lower
    return FitResult(
        function=target.name, interval=chosen_interval.text,
        interval_values=chosen_interval.floats(), powers=chosen_powers,
        formats=tuple(chosen_formats[k].name for k in chosen_powers), fixed=dict(fixed),
        error_measure=error, weight=weight_expr.text if weight_expr else None,
        coefficients=tuple(coefficients[k] for k in chosen_powers),
        sup_error=_round(sup), certificate=certificate,
        minimax_error=float(minimax.error), minimax_lower=float(minimax.lower),
        minimax_coefficients=_minimax_coefficients(minimax, fixed, chosen_powers,
                                                   problem.shift),
        equioscillation_points=tuple(float(x) for x in points), method=method,
        candidates=candidates, backend=backend, precision=precision, seconds=seconds)


def _check_range(minimax, formats: dict, shift: int) -> None:
    """A minimax coefficient beyond its format's largest number cannot be rounded to it."""
    for k, value in zip(minimax.powers, minimax.coefficients):
        fmt = formats[k + shift]
        if abs(to_fraction(value)) > fmt.largest:
            raise BadFormat(f"--format: the coefficient of x^{k + shift} is about "
                            f"{float(value):.6g}, beyond the largest {fmt.name} number "
                            f"({float(fmt.largest):.6g}); choose a wider format")


def _mirror(points, parity: int) -> tuple:
    """Points of the half interval [0, b] and their mirror images (parity reduction)."""
    points = [to_fraction(mpmath.mpf(x)) for x in points]
    if not parity:
        return tuple(sorted(points))
    return tuple(sorted(set(points) | {-x for x in points}))


def _minimax_coefficients(minimax, fixed: dict, powers: tuple, shift: int) -> tuple:
    real = {k + shift: float(c) for k, c in zip(minimax.powers, minimax.coefficients)}
    real.update({k: float(v) for k, v in fixed.items()})
    return tuple(real[k] for k in powers)


__all__ = ["fit", "FitResult", "DegreeTooHigh", "parse_powers", "parse_formats", "parse_fix"]
