"""The four platforms a kernel is compared on, and the named differences between them.

Owns: the two binary32 host platforms as :class:`~sfpu_sim.arch.Arch` values (Blackhole's
instruction set with a host's arithmetic and conversions), the list of arithmetic and
conversion differences a platform can have, and building a platform with some of them taken
from another. Knows nothing of kernels, inputs or reports.

A difference is a set of Arch fields (or fields of its :class:`~sfpu_sim.fma.FmaRules`); every
pair of platforms differs in some of them, and switching one of them on one platform to the
other's value is how :mod:`sfpu_sim.determinism.pairs` finds what makes two outputs differ.
"""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

from sfpu_sim import fma
from sfpu_sim.arch import BLACKHOLE, WORMHOLE, Arch


IEEE_FMA = dataclasses.replace(
    BLACKHOLE, name="binary32-fma", title="binary32 with FMA", fma_rules=fma.IEEE,
    mul_is_plain_product=True, bf16_store_rounds=True, fp32_store_flushes=False)
IEEE_NO_FMA = dataclasses.replace(IEEE_FMA, name="binary32-no-fma", title="binary32 without FMA",
                                  fused=False)


class Platform(NamedTuple):
    """A platform: its key, its title, the Arch it computes with and the chip whose kernel
    program it runs (the hosts run Blackhole's: the same instructions as Wormhole's, with the
    negations folded into SFPMAD and no scheduling NOPs, which change no bits)."""
    key: str
    title: str
    arch: Arch
    program_chip: str
    arithmetic: str


PLATFORMS = (
    Platform("wormhole", "Wormhole B0", WORMHOLE, "wormhole",
             "SFPMAD: 27-bit truncated product plus sticky, DAZ, flush before rounding, the "
             "sticky bug, every zero +0; SFPSTORE to BF16 truncates, to FP32 flushes denormals"),
    Platform("blackhole", "Blackhole A0", BLACKHOLE, "blackhole",
             "SFPMAD: 27-bit truncated product plus sticky, DAZ, flush after rounding, signed "
             "zeros; SFPSTORE to BF16 truncates, to FP32 flushes denormals"),
    Platform("binary32-fma", "binary32 with FMA", IEEE_FMA, "blackhole",
             "IEEE 754 binary32, every multiply-add fused (one rounding, nearest even), gradual "
             "underflow, plain products; BF16 results rounded to nearest even"),
    Platform("binary32-no-fma", "binary32 without FMA", IEEE_NO_FMA, "blackhole",
             "IEEE 754 binary32, every multiply-add as a multiply then an add (each rounded "
             "to nearest even), gradual underflow; BF16 results rounded to nearest even"),
)
BY_KEY = {p.key: p for p in PLATFORMS}
PAIRS = tuple((a, b) for i, a in enumerate(PLATFORMS) for b in PLATFORMS[i + 1:])


class Difference(NamedTuple):
    """One way two platforms can compute differently: FmaRules fields and Arch fields."""
    key: str
    title: str
    rules: tuple = ()
    arch: tuple = ()

    def differs(self, a: Arch, b: Arch) -> bool:
        return any(getattr(a.fma_rules, f) != getattr(b.fma_rules, f) for f in self.rules) or \
            any(getattr(a, f) != getattr(b, f) for f in self.arch)

    def take(self, a: Arch, b: Arch) -> Arch:
        """``a`` with this difference taken from ``b``."""
        rules = a.fma_rules._replace(**{f: getattr(b.fma_rules, f) for f in self.rules})
        return dataclasses.replace(a, fma_rules=rules, **{f: getattr(b, f) for f in self.arch})


DIFFERENCES = (
    Difference("sticky_bug", "Wormhole's sticky bug (the normalising right shift keeps only bit "
               "0 as sticky)", rules=("sticky_bug",)),
    Difference("truncated_product", "truncated product (cut to 27 bits plus sticky before the "
               "add; a product overflowing or underflowing alone is Inf or 0)",
               rules=("narrow_product",)),
    Difference("semi_sticky", "semi-sticky alignment (an operand shifted out entirely leaves no "
               "sticky bit)", rules=("semi_sticky",)),
    Difference("denormal_inputs", "denormal operands read as zero (DAZ)",
               rules=("flush_inputs",)),
    Difference("denormal_results", "denormal results flushed to zero (Wormhole before rounding, "
               "Blackhole after)", rules=("subnormal",)),
    Difference("zero_sign", "zero sign rules (Wormhole: every zero result is +0)",
               rules=("signed_zero",)),
    Difference("nan_rules", "NaN rules (Wormhole's NaN keeps datapath bits; an overflowed "
               "product is Inf)", rules=("leaky_nan", "overflowed_product_is_inf")),
    Difference("separate_multiply_add", "separate multiply and add (two roundings) instead of "
               "one fused multiply-add", arch=("fused",)),
    Difference("mul_plus_zero", "SFPMUL adds +0 (a -0 product becomes +0) instead of a plain "
               "product", arch=("mul_is_plain_product",)),
    Difference("store", "store conversion (BF16: SFPSTORE truncation vs nearest even; FP32: "
               "denormals flushed vs kept)", arch=("bf16_store_rounds", "fp32_store_flushes")),
)
DIFFERENCE_BY_KEY = {d.key: d for d in DIFFERENCES}


def differences(a: Arch, b: Arch) -> tuple[Difference, ...]:
    """The differences between two platforms' arithmetic and conversions, in list order."""
    return tuple(d for d in DIFFERENCES if d.differs(a, b))


def taking(a: Arch, b: Arch, taken) -> Arch:
    """``a`` with every difference in ``taken`` taken from ``b``."""
    for difference in taken:
        a = difference.take(a, b)
    return a
