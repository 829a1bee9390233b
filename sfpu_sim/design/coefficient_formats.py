"""The coefficient formats: which numbers an FP32, BF16 or FP16 coefficient can be.

Owns: rounding a real number to a format, stepping to its neighbours, exactness checks. Knows
nothing of polynomials.

A coefficient is zero or a *normal* number of its format. Denormals are excluded: the SFPU
reads denormal operands as zero (DAZ, tt-isa-documentation ``FloatBitPatterns.md``), so a denormal
coefficient would not be the number the kernel multiplies by.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from sfpu_sim.errors import SfpuSimError
from sfpu_sim.formats import FORMATS


class BadFormat(SfpuSimError):
    """An unknown coefficient format, or a value its format cannot hold."""


@dataclass(frozen=True)
class CoefficientFormat:
    name: str
    precision: int              # significand bits, the hidden one included
    emin: int                   # exponent of the smallest normal number
    emax: int                   # exponent of the largest finite number

    @property
    def largest(self) -> Fraction:
        return (2 - Fraction(1, 2 ** (self.precision - 1))) * Fraction(2) ** self.emax

    def quantum(self, value) -> Fraction:
        """The spacing of the format's numbers at ``value`` (its ulp, at least the normal
        minimum's)."""
        exponent = max(_exponent(value), self.emin) if value else self.emin
        return Fraction(2) ** (exponent - self.precision + 1)

    def nearest(self, value) -> Fraction:
        """``value`` rounded to nearest (ties to even) among zero and the normal numbers."""
        value = Fraction(value)
        if value == 0:
            return Fraction(0)
        magnitude = abs(value)
        tiny = Fraction(2) ** self.emin
        if magnitude <= tiny:
            rounded = tiny if magnitude > tiny / 2 else Fraction(0)      # a tie goes to 0
        else:
            q = self.quantum(magnitude)
            whole, rest = divmod(magnitude / q, 1)
            if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2):
                whole += 1
            rounded = whole * q
        if rounded > self.largest:
            raise BadFormat(f"{float(value):.6g} is beyond the largest {self.name} number "
                            f"({float(self.largest):.6g})")
        return rounded if value > 0 else -rounded

    def holds(self, value) -> bool:
        value = Fraction(value)
        try:
            return self.nearest(value) == value
        except BadFormat:
            return False

    def step(self, value: Fraction, count: int) -> Fraction:
        """The number ``count`` places above (count > 0) or below ``value`` in the format
        (``value`` must be held), skipping denormals."""
        for _ in range(abs(count)):
            value = self._next(value, 1 if count > 0 else -1)
        return value

    def _next(self, value: Fraction, direction: int) -> Fraction:
        if value == 0:
            return direction * Fraction(2) ** self.emin
        sign = 1 if value > 0 else -1
        magnitude = abs(value)
        if direction == sign:                           # away from zero
            result = magnitude + self.quantum(magnitude)
            if result > self.largest:
                raise BadFormat(f"no {self.name} number beyond {float(value):.6g}")
        else:                                           # toward zero
            quantum = self.quantum(magnitude)
            if magnitude == Fraction(2) ** _exponent(magnitude) and _exponent(magnitude) > \
                    self.emin:
                quantum /= 2                            # the binade below is twice as fine
            result = magnitude - quantum
            if result < Fraction(2) ** self.emin:
                result = Fraction(0)
        return sign * result

    def around(self, value, count: int) -> list[Fraction]:
        """The ``count`` numbers of the format just below ``value`` and the ``count`` just
        above (fewer at the ends), ascending; ``value`` itself if it is held."""
        nearest = self.nearest(value)
        below = nearest if nearest <= value else self._next(nearest, -1)
        above = nearest if nearest >= value else self._next(nearest, 1)
        out = {below, above}
        low, high = below, above
        for _ in range(count - 1):
            try:
                low = self._next(low, -1)
                out.add(low)
            except BadFormat:
                pass
            try:
                high = self._next(high, 1)
                out.add(high)
            except BadFormat:
                pass
        return sorted(out)


def _exponent(value) -> int:
    """floor(log2(|value|)) for a nonzero rational, exactly."""
    value = abs(Fraction(value))
    e = value.numerator.bit_length() - value.denominator.bit_length()
    return e if Fraction(2) ** e <= value else e - 1


def _make(name: str) -> CoefficientFormat:
    fmt = FORMATS[name]
    bias = (1 << (fmt.exp_bits - 1)) - 1
    return CoefficientFormat(name, fmt.man_bits + 1, 1 - bias, bias)


COEFFICIENT_FORMATS = {name: _make(name) for name in ("fp32", "bf16", "fp16")}


def coefficient_format(name: str, where: str = "--format") -> CoefficientFormat:
    try:
        return COEFFICIENT_FORMATS[name]
    except KeyError:
        raise BadFormat(f"{where}: unknown format {name!r} (choose from: "
                        f"{', '.join(COEFFICIENT_FORMATS)})") from None


def to_fraction(value) -> Fraction:
    """An mpmath number (or float, int, Fraction) as an exact Fraction."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, float)):
        return Fraction(value)
    sign, mantissa, exponent, _ = value._mpf_           # mpmath's exact binary fields
    result = Fraction(int(mantissa)) * Fraction(2) ** int(exponent)
    return -result if sign else result
