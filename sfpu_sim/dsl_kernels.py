"""Kernels written with the DSL: what ``register_kernel(name, body, init=...)`` builds.

Owns: checking a kernel's body and init functions at registration and tracing them into a
Program when built. Knows nothing of sweeps; :mod:`sfpu_sim.registry` calls it.
"""
from __future__ import annotations

import inspect

from sfpu_sim.kernel_registration import RegistrationError, per_chip
from sfpu_sim.sfpi import trace


def registered_builder(name: str, body, asm, init, chips, origin: str):
    """``build(arch) -> Program`` for a DSL ``body`` and ``init`` (each a function, or a dict
    chip -> function); a mistake is one line naming ``origin``."""
    body_for = per_chip("body", body, chips, origin)
    init_for = per_chip("init", init, chips, origin)
    for chip, fn in [*body_for.items(), *init_for.items()]:
        if fn is not None and not callable(fn):
            raise RegistrationError(f"{origin}: body/init for {chip} must be a function, got "
                                    f"{type(fn).__name__}")
    if any(fn is None for fn in body_for.values()):
        raise RegistrationError(f"{origin}: kernel {name!r} needs a body (a DSL function) or "
                                f"asm= (assembly)")
    for part, functions in (("body", body_for), ("init", init_for)):
        for fn in {id(fn): fn for fn in functions.values() if fn is not None}.values():
            _check_takes_no_arguments(fn, name, part, origin)

    def build(arch):
        return trace(body_for[arch.name], arch, init=init_for[arch.name], name=name)
    return build


def _check_takes_no_arguments(fn, kernel: str, part: str, origin: str) -> None:
    """The DSL calls a body or an init with no arguments: one that needs some is refused here,
    at registration, rather than as a TypeError inside the tracer when it is built."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):         # a builtin without a signature: found when built
        return
    needed = [p for p in signature.parameters.values() if p.default is p.empty
              and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if needed:
        label = getattr(fn, "__name__", type(fn).__name__)
        raise RegistrationError(f"{origin}: kernel {kernel!r}: its {part} {label}{signature} "
                                f"takes arguments; a kernel {part} takes none (it reads and "
                                f"writes dst_reg)")
