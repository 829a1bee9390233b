"""Kernel programs and their registry.

A kernel is registered with its name (what ``ttnn`` runs by default for the plain function
name, suffixed variants otherwise), the reference function it approximates, the chips it
exists on, its mode (accurate / approximate), its Dst format and its provenance (source file,
PR, date). Kernel modules register themselves on import of this package.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from sfpu_sim.errors import SfpuSimError


class UnknownKernel(SfpuSimError):
    pass


class KernelNotOnChip(SfpuSimError):
    pass


@dataclass(frozen=True)
class KernelSpec:
    name: str
    function: str                     # key of the reference layer, e.g. "tanh"
    chips: tuple[str, ...]            # "wormhole", "blackhole"
    mode: str                         # "accurate" or "approximate"
    dest: str                         # Dst format the kernel is written for: "bf16" or "fp32"
    provenance: str                   # source file, PR, date
    build: Callable = field(repr=False, compare=False, default=None)   # (Arch) -> Program
    description: str = ""

    def program(self, arch):
        """The kernel's instruction stream for ``arch`` (an Arch or its name)."""
        from sfpu_sim.arch import get_arch
        arch = get_arch(arch) if isinstance(arch, str) else arch
        if arch.name not in self.chips:
            raise KernelNotOnChip(f"kernel {self.name!r} does not exist on {arch.title} "
                                  f"(it runs on: {', '.join(self.chips)})")
        return self.build(arch)


BOTH_CHIPS = ("wormhole", "blackhole")
_REGISTRY: dict[str, KernelSpec] = {}


def register(spec: KernelSpec) -> KernelSpec:
    if spec.name in _REGISTRY:
        raise ValueError(f"kernel {spec.name!r} registered twice")
    _REGISTRY[spec.name] = spec
    return spec


def names() -> list[str]:
    return sorted(_REGISTRY)


def get(name: str) -> KernelSpec:
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(names()) or "none registered yet"
        raise UnknownKernel(f"unknown kernel {name!r} (known: {known})") from None


def specs() -> list[KernelSpec]:
    return [_REGISTRY[name] for name in names()]


def dsl(body, init=None, name: str | None = None):
    """A kernel builder tracing a DSL ``body`` (one iteration of the kernel's loop) after its
    optional ``init`` (constants, tables) for the requested chip."""
    from sfpu_sim.sfpi import trace

    def build(arch):
        return trace(body, arch, init=init, name=name or body.__name__)
    return build


# Every kernel family module registers its kernels on import (helper modules are skipped).
_NOT_FAMILIES = {"common", "asm_kernels"}


def _import_families() -> None:
    import importlib
    import pkgutil

    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        if module not in _NOT_FAMILIES:
            importlib.import_module(f"{__name__}.{module}")


_import_families()
