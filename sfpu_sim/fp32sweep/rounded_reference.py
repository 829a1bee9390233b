"""The correctly rounded FP32-input reference at sweep scale: float64 enclosures decide most
inputs, python-flint certifies the rest.

Owns: rounding a float64 number under a reference policy (compiled; the same results as
:func:`sfpu_sim.formats.round_values` with FTZ), the decision rule, the special inputs and the
count of refinements. Knows nothing of kernels or statistics.

The guarantee. For an input x, :mod:`.enclose` gives doubles ``lo <= f(x) <= hi`` (proven
there). Every policy is a monotone map from the reals to output patterns (a correct rounding, or
two in a row, then FTZ), so if ``lo`` and ``hi`` map to the same pattern, so does ``f(x)``: that
pattern *is* the correctly rounded reference, with no probability involved. (The only patterns
equal in value are +0 and -0; ends of both signs map to different zeros and are refined.) Where
they differ, or the enclosure declined, the input is *refined*: handed to
:func:`sfpu_sim.reference.reference`, which certifies it in arb ball arithmetic (Ziv's strategy,
see its docstring). Special inputs (zeros and denormals under DAZ, infinities, NaN, negative
inputs of log/sqrt/rsqrt) take the reference layer's values for them. So every expected pattern
equals what ``reference.reference(function, x, policy, input_format="fp32", daz=True, ftz=True)``
returns, and the sweep reports how many inputs needed arb (``refined``) and the largest arb
precision used. The assumptions are IEEE binary64 arithmetic rounding to nearest even with
subnormals (checked at start, :func:`.enclose.check_arithmetic`) and a correct
:func:`.enclose.round_bits` (tested against ``formats.round_values`` on every boundary kind).
"""
from __future__ import annotations

import numpy as np

from sfpu_sim import reference as reference_layer
from sfpu_sim import threads
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.fp32sweep import enclose
from sfpu_sim.fp32sweep.walk import bf16_patterns

SUPPORTED = tuple(enclose.FUNCTIONS)
# Policy codes: (policy, output format) -> how a float64 is rounded to the output pattern.
POLICY_CODES = {("rne", "fp32"): 0, ("rne_fp32", "fp32"): 0, ("truncate", "fp32"): 0,
                ("ties_away", "fp32"): 1, ("rne", "bf16"): 2, ("ties_away", "bf16"): 3,
                ("rne_fp32", "bf16"): 4, ("truncate", "bf16"): 5}
# Special inputs, as FP32 patterns, in the order of the compiled kernel's table.
SPECIAL_PATTERNS = np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000,
                             0xBF800000], dtype=np.uint32)   # +0 -0 +inf -inf NaN -1
FORMATS = ("bf16", "fp32")
# Work per input relative to one multiply-add lane (threads.parallel_for's unit), measured.
COST = (30, 25, 35, 30, 4, 4, 5)
METHOD = ("float64 interval enclosure (IEEE RN, outward widening, arb-certified constants, "
          "Taylor bounds), decided where both ends round alike; else python-flint arb (Ziv)")


class UnsupportedReference(SfpuSimError):
    pass


class Fp32Reference:
    """The reference of one function under one policy and output format, for FP32 input
    patterns: ``expected(x)`` -> (patterns, refined count, largest arb precision)."""

    def __init__(self, function: str, policy: str, output_format: str):
        if function not in SUPPORTED:
            raise UnsupportedReference(
                f"FP32 input sweeps have a proven reference for {', '.join(SUPPORTED)} only; "
                f"function {function!r} has none yet (sweep its BF16 inputs instead)")
        if output_format not in FORMATS:
            raise UnsupportedReference(f"FP32 input sweeps output bf16 or fp32, not "
                                       f"{output_format!r}")
        if (policy, output_format) not in POLICY_CODES:
            raise UnsupportedReference(f"unknown reference rounding {policy!r} (choose from: "
                                       f"{', '.join(reference_layer.policies())})")
        enclose.check_arithmetic()
        self.function, self.policy, self.output_format = function, policy, output_format
        self.code = enclose.FUNCTIONS[function]
        self.pcode = POLICY_CODES[(policy, output_format)]
        self.positive_domain = reference_layer.FUNCTIONS[function].domain == "positive"
        self.dtype = np.uint32 if output_format == "fp32" else np.uint16
        special = self.certified(SPECIAL_PATTERNS)
        # A tuple: the compiled decision takes it by value, not as a reference-counted array.
        self.specials = tuple(int(v) for v in special.bits)
        self.backend = special.backend

    def certified(self, patterns):
        """The reference layer's own answer (arb): what every decided input must equal."""
        return reference_layer.reference(self.function, patterns, self.policy,
                                         input_format="fp32", output_format=self.output_format,
                                         daz=True, ftz=True, cache=False)

    def expected(self, x: np.ndarray) -> tuple[np.ndarray, int, int]:
        """Expected output patterns for FP32 input patterns ``x``, the number refined with
        arb and the largest arb precision used."""
        x = np.ascontiguousarray(x, dtype=np.uint32)
        expected = np.empty(x.size, dtype=np.uint32)
        undecided = np.empty(x.size, dtype=np.bool_)
        threads.parallel_for(enclose.DECIDE[self.code], x.size, x, expected, undecided,
                             self.pcode, self.positive_domain, self.specials,
                             cost=COST[self.code])
        refine = np.flatnonzero(undecided)
        precision = 0
        if refine.size:
            certified = self.certified(x[refine])
            expected[refine] = certified.bits
            precision = certified.precision
        return expected.astype(self.dtype), int(refine.size), int(precision)


class Bf16Reference:
    """The reference of a sweep of BF16 inputs (:class:`~.walk.Bf16Patterns`, FP32 patterns
    whose low half is zero) as :class:`Fp32Reference` answers: the reference layer's held
    table of every BF16 input (:func:`sfpu_sim.reference.reference`, DAZ and FTZ, as
    :func:`sfpu_sim.sweeps.sweep` takes it), for every function it defines."""

    def __init__(self, function: str, policy: str, output_format: str):
        if output_format not in FORMATS:
            raise UnsupportedReference(f"sweeps through the chunk pipeline output bf16 or fp32, "
                                       f"not {output_format!r}")
        if policy not in reference_layer.policies():
            raise UnsupportedReference(f"unknown reference rounding {policy!r} (choose from: "
                                       f"{', '.join(reference_layer.policies())})")
        self.function, self.policy, self.output_format = function, policy, output_format
        self.dtype = np.uint32 if output_format == "fp32" else np.uint16
        self.backend = self.certified(SPECIAL_PATTERNS).backend      # the table's maker

    def certified(self, patterns):
        """The held table's entries of ``patterns`` (FP32 patterns of BF16 values)."""
        return reference_layer.reference(self.function, bf16_patterns(patterns), self.policy,
                                         input_format="bf16", output_format=self.output_format,
                                         daz=True, ftz=True)

    def expected(self, x: np.ndarray) -> tuple[np.ndarray, int, int]:
        """As :meth:`Fp32Reference.expected`; nothing is refined (the table is certified)."""
        held = self.certified(x)
        return np.asarray(held.bits).astype(self.dtype), 0, int(held.precision)
