"""What kernel registration shares with the modules that build kernels (assembly and DSL
bodies): the chips a kernel may name, the registration error, and per-chip values. A leaf, so
that :mod:`sfpu_sim.registry` can call those builders without an import cycle."""
from __future__ import annotations

from collections.abc import Mapping

from sfpu_sim.errors import SfpuSimError

CHIPS = ("wormhole", "blackhole")


class RegistrationError(SfpuSimError):
    """A register_kernel call that cannot be honoured (names the calling file and line)."""


def per_chip(what: str, value, chips, origin: str) -> dict:
    """``value`` for every chip: one function for all, or a dict chip -> function."""
    if isinstance(value, Mapping):
        missing = [chip for chip in chips if chip not in value]
        extra = [chip for chip in value if chip not in CHIPS]
        if missing or extra:
            raise RegistrationError(f"{origin}: {what} has no entry for "
                                    f"{', '.join(missing)}" if missing else
                                    f"{origin}: {what} names unknown chip(s) "
                                    f"{', '.join(map(repr, extra))} (choose from: "
                                    f"{', '.join(CHIPS)})")
        return {chip: value[chip] for chip in chips}
    return {chip: value for chip in chips}
