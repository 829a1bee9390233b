"""What kernel registration shares with the modules that build kernels (assembly and DSL
bodies): the chips a kernel may name, the registration error, per-chip values, and the operand
counts a kernel may declare. A leaf, so
that :mod:`sfpu_sim.registry` can call those builders without an import cycle."""
from __future__ import annotations

from collections.abc import Mapping

from sfpu_sim.errors import SfpuSimError
from sfpu_sim.reference.binary_functions import BINARY_FUNCTIONS
from sfpu_sim.reference.ternary_functions import TERNARY_FUNCTIONS

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


def check_operands(operands, function, fixed_y, origin: str) -> None:
    """1 operand; 2 with a two-operand function (and optionally a held second operand,
    ``fixed_y``); or 3 with a three-operand function."""
    if operands not in (1, 2, 3) or operands == 2 and function not in BINARY_FUNCTIONS or \
            operands == 3 and function not in TERNARY_FUNCTIONS:
        raise RegistrationError(f"{origin}: operands={operands!r}: 1, 2 with a function of "
                                f"{', '.join(BINARY_FUNCTIONS)}, or 3 with one of "
                                f"{', '.join(TERNARY_FUNCTIONS)}")
    if fixed_y is not None and (operands != 2 or not isinstance(fixed_y, (int, float))):
        raise RegistrationError(f"{origin}: fixed_y={fixed_y!r}: a number, for a binary kernel "
                                f"(operands=2) whose program holds its second operand")
