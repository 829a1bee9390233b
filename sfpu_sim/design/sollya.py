"""Optional cross-check: the coefficients Sollya's ``fpminimax`` chooses (``--backend sollya``).

Owns: writing the Sollya script for a problem, running the ``sollya`` binary (Debian package
``sollya``; never required) and reading its exact coefficients back. Knows nothing of how the
result is certified: :mod:`sfpu_sim.design.supnorm` bounds Sollya's polynomial exactly as it
bounds ours, so the two can be compared on equal terms.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from fractions import Fraction

from sfpu_sim.errors import SfpuSimError

TIMEOUT_SECONDS = 300
PRECISION = 200

# Registry functions Sollya can express (sfpu_sim.reference definitions, in Sollya's syntax).
FUNCTIONS = {
    "exp": "exp(x)", "log": "log(x)", "sin": "sin(x)", "cos": "cos(x)", "tanh": "tanh(x)",
    "erf": "erf(x)", "erfc": "erfc(x)", "sqrt": "sqrt(x)", "rsqrt": "1/sqrt(x)",
    "reciprocal": "1/x", "sigmoid": "1/(1+exp(-x))", "silu": "x/(1+exp(-x))",
    "softplus": "log(1+exp(x))", "gelu": "x/2*(1+erf(x/sqrt(2)))",
    "tanh_derivative": "1-tanh(x)^2",
    "gelu_tanh": "x/2*(1+tanh(sqrt(2/pi)*(x+44715/1000000*x^3)))",
    "gelu_derivative": "(1+erf(x/sqrt(2)))/2+x*exp(-x^2/2)/sqrt(2*pi)",
}
# Sollya's format for each coefficient format: the significand width (fpminimax does not bound
# the exponent; the result is checked against the format afterwards).
FORMATS = {"fp32": "single", "bf16": "8", "fp16": "11"}


class SollyaUnavailable(SfpuSimError):
    """``--backend sollya`` without the ``sollya`` binary, or a problem it cannot express."""


class SollyaFailed(SfpuSimError):
    """Sollya ran but gave no polynomial."""


def available() -> bool:
    return shutil.which("sollya") is not None


def _expression(tree) -> str:
    """An expression tree of :mod:`sfpu_sim.design.expr` in Sollya's syntax."""
    kind = tree[0]
    if kind == "num":
        q = tree[1]
        return f"({q.numerator}/{q.denominator})" if q.denominator != 1 else f"({q.numerator})"
    if kind == "const":
        return "pi" if tree[1] == "pi" else "exp(1)"
    if kind == "x":
        return "x"
    if kind == "neg":
        return f"(-{_expression(tree[1])})"
    if kind == "pow":
        return f"({_expression(tree[1])})^({tree[2]})"
    if kind == "call":
        return f"{tree[1]}({_expression(tree[2])})"
    return f"({_expression(tree[1])}{kind}{_expression(tree[2])})"


def script(problem, formats: dict) -> str:
    """The Sollya script printing the ``fpminimax`` coefficients, one per line."""
    if problem.target.name not in FUNCTIONS:
        raise SollyaUnavailable(f"--backend sollya: no Sollya expression for "
                                f"{problem.target.name!r} (known: {', '.join(FUNCTIONS)})")
    if problem.weight is not None:
        raise SollyaUnavailable("--backend sollya: fpminimax takes no --weight")
    free = problem.free
    lo, hi = (_expression(end.tree) for end in (problem.interval.lo, problem.interval.hi))
    fixed = " + ".join(f"({v.numerator}/{v.denominator})*x^{k}"
                       for k, v in problem.fixed.items()) or "0"
    measure = "relative" if problem.relative else "absolute"
    return "\n".join([
        f"prec = {PRECISION};",
        "display = dyadic;",
        f"f = {FUNCTIONS[problem.target.name]};",
        f"p = fpminimax(f, [|{', '.join(map(str, free))}|], "
        f"[|{', '.join(FORMATS[formats[k].name] for k in free)}|], [{lo};{hi}], {measure}, "
        f"floating, {fixed});",
        "if p == error then print(\"FAILED\") else {",
        *[f"  print(coeff(p, {k}));" for k in problem.powers],
        "};",
        "quit;",
        "",
    ])


_DYADIC = re.compile(r"^(-?\d+)(?:b(-?\d+))?$")


def fpminimax(problem, formats: dict) -> dict:
    """Sollya's coefficients, power -> exact Fraction (each checked against its format)."""
    if not available():
        raise SollyaUnavailable("--backend sollya: the sollya binary is not installed (Debian: "
                                "apt-get install sollya); the default backend needs nothing")
    try:
        done = subprocess.run(["sollya", "--warnonstderr"], input=script(problem, formats),
                              capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        raise SollyaFailed(f"--backend sollya: no answer in {TIMEOUT_SECONDS} s") from None
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    values = [line for line in lines if _DYADIC.match(line)]
    if "FAILED" in lines or len(values) != len(problem.powers):
        detail = (done.stderr.strip().splitlines() or ["no output"])[0]
        raise SollyaFailed(f"--backend sollya: fpminimax gave no polynomial ({detail})")
    coefficients = {}
    for k, text in zip(problem.powers, values):
        mantissa, exponent = _DYADIC.match(text).groups()
        value = Fraction(int(mantissa)) * Fraction(2) ** int(exponent or 0)
        if not formats[k].holds(value):
            raise SollyaFailed(f"--backend sollya: coefficient of x^{k} ({float(value):.6g}) "
                               f"is not a {formats[k].name} number (outside its exponent "
                               f"range)")
        coefficients[k] = value
    return coefficients
