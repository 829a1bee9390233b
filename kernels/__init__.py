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


@dataclass(frozen=True)
class KernelSpec:
    name: str
    function: str                     # key of the reference layer, e.g. "tanh"
    chips: tuple[str, ...]            # "wormhole", "blackhole"
    mode: str                         # "accurate" or "approximate"
    dest: str                         # Dst format the kernel is written for: "bf16" or "fp32"
    provenance: str                   # source file, PR, date
    build: Callable = field(repr=False, compare=False, default=None)   # (arch) -> Program


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
