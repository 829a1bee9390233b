"""A fitted polynomial as a kernel file: ``register_kernel`` plus a DSL body evaluating it.

Owns: the text of the file (the coefficients exactly, with their bit patterns; the evaluation
scheme). Knows nothing of the machine: the file is loaded like any user's kernel file
(``--kernels FILE.py``), which is how the CLI runs it.

Evaluation. With ``m`` the smallest power and ``g`` the step between the powers (2 for odd or
even polynomials), ``p(x) = x**m * q(y)``, ``y = x**g``, and ``q`` is evaluated

* ``horner``: ``c0 + y*(c1 + y*(c2 + ...))``, one SFPMAD per step (the DSL fuses a product used
  once by an addition, as the sfpi compiler does; tt-llk's ``PolynomialEvaluator`` shape);
* ``estrin``: pairs ``c_2i + y*c_2i+1`` first, then pairs of pairs with ``y**2``, ``y**4``, ...:
  the same number of SFPMADs, a shorter dependency chain, different roundings.

Then ``x**m`` multiplies in. The kernel evaluates the polynomial only: no range reduction and no
special values, so it is meaningful on the fitted interval (sweep it with ``--range``).

``final_rounding``: the kernel rounds the value to BF16 precision itself before the store,
``float_to_fp16b(y, 0)`` (SFP_STOCH_RND FP32_TO_FP16B, nearest with ties away from zero:
tt-isa-documentation ``SFPSTOCHRND_FloatFloat.md``, revision 13547104), as tt-metal's BF16
instantiations end (``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/``
``ckernel_sfpu_silu.h``, ``calculate_silu<is_fp32_dest_acc_en=false>``, Jan 2026); without it
a BF16 Dst's SFPSTORE truncates.
"""
from __future__ import annotations

from math import gcd
from pathlib import Path

from sfpu_sim.errors import SfpuSimError
from sfpu_sim.reference.user_expressions import expression_text
from sfpu_sim.report.files import atomic_write

SCHEMES = ("horner", "estrin")


class EmitError(SfpuSimError):
    """A kernel file that cannot be written as asked."""


def _constant_name(power: int) -> str:
    return f"C{power}"


def _horner(terms: dict, y: str) -> str:
    """``q(y)`` with ``terms``: index j -> constant name (missing j: zero coefficient)."""
    top = max(terms)
    expression = terms[top]
    for j in range(top - 1, -1, -1):
        inner = expression if expression.isidentifier() else f"({expression})"
        expression = f"{terms[j]} + {y} * {inner}" if j in terms else f"{y} * {inner}"
    return expression


def _estrin(terms: dict, y: str) -> tuple[list[str], str]:
    """Lines computing ``q(y)`` by Estrin's scheme, and the name holding it."""
    top = max(terms)
    if set(terms) != set(range(top + 1)):
        raise EmitError("--scheme estrin needs every power of y = x**g from the lowest up "
                        "(no gaps); use --scheme horner")
    lines, level, power_name = [], [terms[j] for j in range(top + 1)], y
    depth = 0
    while len(level) > 1:
        merged = []
        for i in range(0, len(level), 2):
            if i + 1 < len(level):
                name = f"e{depth}_{i // 2}"
                lines.append(f"    {name} = {level[i]} + {power_name} * {level[i + 1]}")
                merged.append(name)
            else:
                merged.append(level[i])
        level = merged
        if len(level) > 1:
            square = f"{y}{2 ** (depth + 1)}" if y == "x" else f"{y}_{2 ** (depth + 1)}"
            lines.append(f"    {square} = {power_name} * {power_name}")
            power_name = square
        depth += 1
    return lines, level[0]


def body_lines(powers: tuple, scheme: str, final_rounding: bool = False) -> list[str]:
    """The DSL statements of the kernel body (inside ``def``), for ``powers``."""
    if scheme not in SCHEMES:
        raise EmitError(f"--scheme: expected horner or estrin, got {scheme!r}")
    low = min(powers)
    step = 0
    for k in powers:
        step = gcd(step, k - low)
    step = step or 1
    terms = {(k - low) // step: _constant_name(k) for k in powers}
    lines = ["    x = dst_reg[0]"]
    y = "x"
    if step > 1:
        y = f"x{step}"
        lines.append(f"    {y} = " + " * ".join(["x"] * step))
    if scheme == "horner":
        value = _horner(terms, y)
    else:
        extra, value = _estrin(terms, y)
        lines += extra
    for _ in range(low):
        value = f"x * {value}" if value.isidentifier() else f"x * ({value})"
    if final_rounding:
        lines += [f"    y = {value}",
                  "    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(y, 0))  # ties away"]
    else:
        lines.append(f"    dst_reg[0] = {value}")
    return lines


def kernel_source(result, name: str, scheme: str = "horner", command: str = "",
                  final_rounding: bool = False, description: str | None = None) -> str:
    """The kernel file for a :class:`~sfpu_sim.design.api.FitResult` (``description``: the
    registered one; by default it names the fit)."""
    if not name.isidentifier():
        raise EmitError(f"kernel name {name!r} must be a Python identifier (letters, digits, "
                        f"underscores); choose it with --name")
    certified = "certified" if result.certificate.proven else "sampled, not proven"
    lo, hi = result.interval_values
    constants = []
    for k, value, fmt, bits in zip(result.powers, result.values, result.formats, result.bits()):
        constants.append(f"{_constant_name(k)} = {value!r}  # x**{k}: {fmt} {bits}")
    header = [
        f'"""Kernel {name}: a polynomial fitted to {result.function} on [{result.interval}] '
        f'by sfpu-sim.',
        "",
        f"Generated by: {command}" if command else "Generated by sfpu_sim.design.emit.",
        "",
        f"Powers {', '.join(map(str, result.powers))}; coefficients in "
        f"{', '.join(sorted(set(result.formats)))} ({result.method}).",
        f"{result.error_measure.capitalize()} error of the exact polynomial on "
        f"[{lo:.9g}, {hi:.9g}]: {result.sup_error:.6e}",
        f"({certified}); real minimax {result.minimax_error:.6e}.",
        f"Evaluation: {scheme}. The body evaluates the polynomial only (no range reduction, no",
        "special values): it is meaningful on the fitted interval.",
        *(["Final rounding: float_to_fp16b(y, 0), to BF16 precision, nearest, ties away."]
          if final_rounding else []),
        '"""',
    ]
    lines = header + [
        "from sfpu_sim import register_kernel",
        "from sfpu_sim.sfpi import dst_reg, float_to_fp16b, reinterpret, vFloat"
        if final_rounding else "from sfpu_sim.sfpi import dst_reg",
        "",
        *constants,
        "",
        "",
        f"def {name}():",
        *body_lines(result.powers, scheme, final_rounding),
        "",
        "",
        f"register_kernel({name!r}, {name},",
        f"                function={_expression(result) or result.function!r},",
        f"                provenance={(command or _provenance(result, scheme))!r},",
        f"                description={description or _description(result)!r})",
        "",
    ]
    return "\n".join(lines)


def _expression(result) -> str | None:
    """The expression in x a fit was given (``--reference``), which the kernel file carries as
    its ``function=``; None for a registered function."""
    # here, not at the top: the CLI's parser imports this module, the reference layer waits

    return expression_text(result.function)


def _provenance(result, scheme: str) -> str:
    """The fit as a command, where the file was written without the one that ran."""
    formats = result.formats[0] if len(set(result.formats)) == 1 else ",".join(result.formats)
    expression = _expression(result)
    fitted = result.function if expression is None else f"--reference '{expression}'"
    return (f"sfpu-sim fit {fitted} --interval {result.interval} --powers "
            f"{','.join(map(str, result.powers))} --error {result.error_measure} --format "
            f"{formats} ({scheme})")


def _description(result) -> str:
    return (f"degree-{max(result.powers)} minimax polynomial for {result.function} on "
            f"[{result.interval}], {result.error_measure} error {result.sup_error:.3e}")


def kernel_name(path, name: str | None = None) -> str:
    """The kernel's name (default: the file's stem), checked with the path before any work."""
    path = Path(path)
    if path.suffix != ".py":
        raise EmitError(f"--emit {path}: a kernel file is Python; give a name ending in .py")
    name = name or path.stem
    if not name.isidentifier():
        raise EmitError(f"kernel name {name!r} must be a Python identifier (letters, digits, "
                        f"underscores); choose it with --name")
    return name


def write_kernel(result, path, name: str | None = None, scheme: str = "horner",
                 command: str = "", final_rounding: bool = False,
                 description: str | None = None) -> tuple[Path, str]:
    """Write the kernel file (atomically; never over a directory or a device). The kernel's
    name defaults to the file's stem. Returns the path and the name."""
    name = kernel_name(path, name)
    atomic_write(path, kernel_source(result, name, scheme, command, final_rounding,
                                     description))
    return Path(path), name
