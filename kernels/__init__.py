"""The device's own kernels (and the research kernels), one module per function family.

Each module registers its kernels on import through :func:`sfpu_sim.register_kernel`, the same
public call a user's kernel file makes: name (what ``ttnn`` runs by default for the plain
function name, suffixed variants otherwise), the reference function it approximates, the chips
it exists on, its mode (accurate / approximate), its Dst format and its provenance (source file,
PR, date). :mod:`sfpu_sim.registry` imports this package the first time a kernel is looked up.
"""
from __future__ import annotations

import importlib
import pkgutil

# Helper modules register nothing; every other module here is a kernel family.
_NOT_FAMILIES = {"common", "asm_kernels"}

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module not in _NOT_FAMILIES:
        importlib.import_module(f"{__name__}.{_module}")
