"""The Matrix Unit's (FPU's) element-wise floating-point arithmetic: ELWADD, ELWSUB and ELWMUL
on BF16 sources, into a 16-bit (BF16) or an FP32 Dst; lanes are any numpy shape.

Owns: how the Matrix Unit reads BF16 source values, the adder's alignment and rounding as named
rules (:class:`AdderRule`), the multiplier's fidelity phases, the Dst write, and each chip's
rules as data (:data:`CHIPS`). Knows nothing of tiles, unpackers, kernels, the SFPU or ops.

Sources: tt-isa-documentation @3930471 (2025-06-12), ``WormholeB0/TensixTile/
TensixCoprocessor/``: ``ELWADD.md``, ``ELWSUB.md``, ``ELWMUL.md`` (functional models),
``SrcASrcB.md`` (BF16 in Src; fidelity phases), ``FloatBitPatterns.md`` (Matrix Unit column).
The models compute in C ``float`` and end in ``RoundToBF16``, which no page defines; the pages
call their floating-point models a rough guide whose precision may be lower or higher than
shown. There is no Blackhole page: the Wormhole pages are applied to Blackhole.

What the pages leave open is a named parameter here, never a silent choice:

* the adder (``AdderRule``): how the smaller operand is aligned, and how the sum is rounded.
  :data:`EXACT_NEAREST_EVEN` reads the model literally (the exact sum, nearest even).
  :data:`TRUNCATED_ALIGN_11_TIES_AWAY`, the default for a 16-bit Dst, is INFERRED, not
  documented: of the 63 variants tried (square rounding x adder rounding x alignment width) it
  is the only one that reproduces both published figure sets of ttnn.tanh_bw, whose ``rsub``
  is one ELWADD (the seed report of Jan 2026 on Blackhole: max 15,139, 93.60% exact, 97.97%
  within 1 ULP; the Wormhole baseline of 2026-03-07: max 15,140, 97.47% exact). Those figures
  only exercise ``1.0 + (-s)`` with ``0 <= s <= 1``: the larger operand's exponent is 0;
* ELWMUL's ``RoundToBF16``: unknown; the default is the adder's inferred rounding (nearest, ties
  away). No published figure tests it: tanh_bw multiplies by grad = 1.0, and then every phase's
  Dst sum is a truncation of the other operand, exact under any rounding, from HiFi3 on (HiFi2
  too when 1.0 is in SrcB);
* math fidelity: ELWMUL runs ``fidelity_phases`` phases (1 LoFi, 2 HiFi2, 3 HiFi3, 4 HiFi4),
  each adding one partial product into Dst and rounding, as ``ELWMUL.md`` models it. ELWADD
  is modelled at fidelity phase 0 (the page's divisions by 32 and 128 in other phases are not).

Values as the Matrix Unit reads them (``FloatBitPatterns.md``): exponent 0 is zero (denormals
flushed); exponent 255 is a finite binade, not Inf or NaN. It writes neither -0 nor a denormal
(both become +0), and a result too large to represent becomes the exponent-255, mantissa-0
pattern (what the SFPU reads as Inf).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sfpu_sim import formats
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.formats import BF16, FP32, RNA, RNE, RZ

NEAREST_EVEN, NEAREST_AWAY, TOWARD_ZERO = RNE, RNA, RZ
ROUNDINGS = (NEAREST_EVEN, NEAREST_AWAY, TOWARD_ZERO)
DESTS = {"bf16": BF16, "fp32": FP32}
BIAS = 127
SOURCE_MANTISSA_BITS = 7                # BF16 in SrcA/SrcB (TF32 with three low zero bits)
# ELWMUL.md SrcAFidelityBits / SrcBFidelityBits, phase 0 masks on BF16 patterns: sign,
# exponent, implicit 1 and the top four (SrcA) or six (SrcB) mantissa bits.
SRCA_PHASE0_MASK = 0xFFF8
SRCB_PHASE0_MASK = 0xFFFE
MATH_FIDELITY_PHASES = {"LoFi": 1, "HiFi2": 2, "HiFi3": 3, "HiFi4": 4}
# tt-metal ComputeConfig's default math fidelity, which binary_ng's program factory does not
# override (binary_ng_program_factory.cpp @00635679, index id 53222595358).
DEFAULT_FIDELITY_PHASES = MATH_FIDELITY_PHASES["HiFi4"]


class FpuError(SfpuSimError):
    pass


@dataclass(frozen=True)
class AdderRule:
    """How ELWADD / ELWSUB form and round ``SrcA +- SrcB``.

    The operand of smaller exponent is aligned to ``E``, the larger operand's exponent, on a
    grid of ``2**(E - align_bits)``: its bits below the grid are dropped, or with ``sticky``
    their OR is kept below the grid (then the sum rounds as the exact sum would). The sum is
    rounded to the Dst format by ``rounding`` (one of :data:`ROUNDINGS`). ``status`` says
    where the rule comes from."""
    name: str
    align_bits: int
    sticky: bool
    rounding: str
    status: str

    def __post_init__(self):
        if self.rounding not in ROUNDINGS or not SOURCE_MANTISSA_BITS <= self.align_bits <= 40:
            raise FpuError(f"adder rule {self.name!r}: rounding one of {ROUNDINGS}, "
                           f"align_bits 7..40")


EXACT_NEAREST_EVEN = AdderRule(
    "exact_nearest_even", align_bits=40, sticky=True, rounding=NEAREST_EVEN,
    status="documented model read literally (ELWADD.md: float Result = SrcA + SrcB, then "
           "RoundToBF16, taken as nearest even); it does not reproduce tanh_bw's published "
           "figures")
TRUNCATED_ALIGN_11_TIES_AWAY = AdderRule(
    "truncated_align_11_ties_away", align_bits=11, sticky=False, rounding=NEAREST_AWAY,
    status="INFERRED, not documented: fitted to tanh_bw's two published figure sets (seed "
           "report, Blackhole, Jan 2026; baseline, Wormhole, 2026-03-07); the smaller "
           "operand keeps its bits down to 2**(E - 11) (for 1 - s: 2**-11, three bits below "
           "the last place of a result in [0.5, 1)), no sticky bit, then nearest with ties "
           "away; only E = 0 is exercised by those figures")
ADDER_RULES = {rule.name: rule for rule in (EXACT_NEAREST_EVEN, TRUNCATED_ALIGN_11_TIES_AWAY)}


@dataclass(frozen=True)
class FpuRules:
    """One chip's element-wise rules: the adder per Dst mode, ELWMUL's Dst rounding per Dst
    mode, and where they come from."""
    add_16b: AdderRule
    add_fp32: AdderRule
    mul_rounding_16b: str
    mul_rounding_fp32: str
    source: str

    def adder(self, dest: str) -> AdderRule:
        return self.add_fp32 if dest == "fp32" else self.add_16b

    def mul_rounding(self, dest: str) -> str:
        return self.mul_rounding_fp32 if dest == "fp32" else self.mul_rounding_16b


CHIPS = {
    "wormhole": FpuRules(TRUNCATED_ALIGN_11_TIES_AWAY, EXACT_NEAREST_EVEN, NEAREST_AWAY,
                         NEAREST_EVEN, "WormholeB0 pages; 16-bit adder inferred from the "
                                       "tanh_bw baseline (Wormhole n150, 2026-03-07)"),
    "blackhole": FpuRules(TRUNCATED_ALIGN_11_TIES_AWAY, EXACT_NEAREST_EVEN, NEAREST_AWAY,
                          NEAREST_EVEN, "no Blackhole page: the WormholeB0 pages; 16-bit adder "
                                        "inferred from the tanh_bw seed report (P150a, Jan "
                                        "2026)"),
}


def chip_rules(arch) -> FpuRules:
    """The rules of ``arch`` (an Arch or its name)."""
    name = getattr(arch, "name", arch)
    if name not in CHIPS:
        raise FpuError(f"no FPU rules for chip {name!r} (known: {', '.join(CHIPS)})")
    return CHIPS[name]


def _dest_format(dest: str):
    if dest not in DESTS:
        raise FpuError(f"Dst {dest!r}: choose from {', '.join(DESTS)}")
    return DESTS[dest]


# --------------------------------------------------------------------------------------------
# Reading sources, writing Dst
# --------------------------------------------------------------------------------------------

def _source_fields(bits):
    """BF16 source patterns as the Matrix Unit reads them: sign, 8-bit significand (0 where the
    exponent field is 0) and exponent field (255 is finite), as int64 arrays."""
    b = formats.as_bits(bits, "bf16").astype(np.int64)
    negative = (b >> 15) == 1
    field = (b >> SOURCE_MANTISSA_BITS) & 0xFF
    significand = np.where(field == 0, 0, (b & 0x7F) | 0x80)
    return negative, significand, field


def read_values(bits, fmt=BF16) -> np.ndarray:
    """BF16 (or FP32) patterns as the Matrix Unit reads them, as float64 (exact)."""
    b = fmt.bits(bits).astype(np.int64)
    field = (b >> fmt.man_bits) & fmt.exp_max
    significand = np.where(field == 0, 0, (b & fmt.man_mask) | (1 << fmt.man_bits))
    value = np.ldexp(significand.astype(np.float64), (field - BIAS - fmt.man_bits).astype(int))
    return np.where((b >> (fmt.width - 1)) == 1, -value, value)


def _write(exact: formats.Exact, fmt, rounding: str) -> np.ndarray:
    """Exact results rounded into a Dst of format ``fmt``: -0 and denormals become +0, a
    result of 2**128 or more the exponent-255, mantissa-0 pattern of its sign."""
    out = formats.round_exact(exact, fmt, rounding)
    sign = fmt.dtype(fmt.sign_mask)
    infinity = fmt.dtype(fmt.exp_max << fmt.man_bits)
    too_large = (exact.cls == formats.FINITE) & (exact.e + 63 >= BIAS + 1)
    out = np.where(too_large | (fmt.exponent(out) == fmt.exp_max), (out & sign) | infinity, out)
    return np.where(fmt.exponent(out) == 0, fmt.dtype(0), out).astype(fmt.dtype)


def _exact_from_units(total: np.ndarray, unit_exponent: np.ndarray) -> formats.Exact:
    """Exact values ``total * 2**unit_exponent`` (int64 totals, |total| < 2**53)."""
    magnitude = np.abs(total).astype(np.uint64)
    lead = formats.bit_length(magnitude).astype(np.int64) - 1
    shift = np.where(magnitude == 0, 0, 63 - lead)
    zero = magnitude == 0
    cls = np.where(zero, formats.ZERO, formats.FINITE).astype(np.uint8)
    m = np.where(zero, np.uint64(0), magnitude << shift.astype(np.uint64))
    return formats.Exact(cls, total < 0, m, np.where(zero, 0, unit_exponent - shift))


# --------------------------------------------------------------------------------------------
# ELWADD / ELWSUB
# --------------------------------------------------------------------------------------------

def _aligned_units(significand, field, top, rule: AdderRule) -> np.ndarray:
    """An operand's magnitude in grid units of ``2**(top - BIAS - align_bits)`` (halved again
    with a sticky bit below the grid)."""
    shift = rule.align_bits - SOURCE_MANTISSA_BITS - (top - field)
    right = np.minimum(np.maximum(-shift, 0), 62)
    units = (significand << np.maximum(shift, 0)) >> right
    if rule.sticky:
        dropped = (significand & ((np.int64(1) << right) - 1)) != 0
        units = (units << 1) | dropped
    return units


def add_exact(srca, srcb, rule: AdderRule) -> formats.Exact:
    """``SrcA + SrcB`` (BF16 patterns) as the adder forms it before rounding, per ``rule``."""
    a_negative, a_significand, a_field = _source_fields(srca)
    b_negative, b_significand, b_field = _source_fields(srcb)
    top = np.maximum(np.where(a_significand > 0, a_field, 0),
                     np.where(b_significand > 0, b_field, 0))
    total = (np.where(a_negative, -1, 1) * _aligned_units(a_significand, a_field, top, rule)
             + np.where(b_negative, -1, 1) * _aligned_units(b_significand, b_field, top, rule))
    return _exact_from_units(total, top - BIAS - rule.align_bits - int(rule.sticky))


def elwadd(srca, srcb, *, arch="wormhole", dest: str = "bf16",
           rule: AdderRule | None = None) -> np.ndarray:
    """ELWADD ``Dst = SrcA + SrcB`` (ELWADD.md) on BF16 source patterns, element-wise: Dst
    patterns (uint16 BF16, or uint32 FP32 with ``dest="fp32"``). ``rule``: the adder (default:
    the chip's for that Dst mode, :data:`CHIPS`)."""
    fmt = _dest_format(dest)
    rule = rule or chip_rules(arch).adder(dest)
    return _write(add_exact(srca, srcb, rule), fmt, rule.rounding)


def elwsub(srca, srcb, *, arch="wormhole", dest: str = "bf16",
           rule: AdderRule | None = None) -> np.ndarray:
    """ELWSUB ``Dst = SrcA - SrcB`` (ELWSUB.md: ELWADD with SrcB's sign complemented)."""
    flipped = formats.as_bits(srcb, "bf16") ^ np.uint16(0x8000)
    return elwadd(srca, flipped, arch=arch, dest=dest, rule=rule)


# --------------------------------------------------------------------------------------------
# ELWMUL
# --------------------------------------------------------------------------------------------

def _fidelity_parts(bits, phase0_mask: int) -> tuple[np.ndarray, np.ndarray]:
    """The values a source contributes in its two fidelity halves (ELWMUL.md
    ``SrcAFidelityBits`` / ``SrcBFidelityBits``): the masked value, and the rest."""
    whole = read_values(bits)
    high = read_values(formats.as_bits(bits, "bf16") & np.uint16(phase0_mask))
    return high, whole - high


def elwmul(srca, srcb, *, arch="wormhole", dest: str = "bf16",
           fidelity_phases: int = DEFAULT_FIDELITY_PHASES,
           rounding: str | None = None) -> np.ndarray:
    """ELWMUL into a zeroed Dst (ZEROACC first: ``Dst = SrcA * SrcB``) on BF16 source
    patterns: phase ``p`` of ``fidelity_phases`` multiplies SrcA's high part (even ``p``) or
    low part (odd) by SrcB's high (``p < 2``) or low part, adds Dst and rounds into Dst by
    ``rounding`` (default: the chip's for that Dst mode). Each phase's sum is formed exactly
    (in float64) before its rounding, so a 16-bit Dst rounds up to four times."""
    fmt = _dest_format(dest)
    if fidelity_phases not in MATH_FIDELITY_PHASES.values():
        raise FpuError(f"fidelity_phases {fidelity_phases!r}: 1 (LoFi) to 4 (HiFi4)")
    rounding = rounding or chip_rules(arch).mul_rounding(dest)
    if rounding not in ROUNDINGS:
        raise FpuError(f"rounding {rounding!r}: choose from {', '.join(ROUNDINGS)}")
    a_parts = _fidelity_parts(srca, SRCA_PHASE0_MASK)
    b_parts = _fidelity_parts(srcb, SRCB_PHASE0_MASK)
    dst = np.zeros(np.broadcast(a_parts[0], b_parts[0]).shape, dtype=fmt.dtype)
    for phase in range(fidelity_phases):              # phases, not lanes
        partial = a_parts[phase & 1] * b_parts[(phase >> 1) & 1]
        total = partial + read_values(dst, fmt)
        dst = _write(formats.exact_from_float64(total), fmt, rounding)
    return dst


def product_fp32(srca, srcb) -> np.ndarray:
    """The exact ``SrcA * SrcB`` of BF16 patterns rounded to nearest-even FP32 (attribution:
    what a multiply loses in its Dst rounding, not a device result)."""
    exact = formats.exact_from_float64(read_values(srca) * read_values(srcb))
    return formats.round_exact(exact, FP32, NEAREST_EVEN)


def sum_fp32(srca, srcb) -> np.ndarray:
    """The exact ``SrcA + SrcB`` of BF16 patterns rounded to nearest-even FP32 (attribution)."""
    return formats.round_exact(add_exact(srca, srcb, EXACT_NEAREST_EVEN), FP32, NEAREST_EVEN)


ELEMENTWISE = {"ELWADD": elwadd, "ELWSUB": elwsub, "ELWMUL": elwmul}
