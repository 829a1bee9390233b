"""Inverse error function as of 2026-09-30: ``erfinv_2026_09``, one program for either Dst.

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_erfinv.h``, ``calculate_erfinv<APPROXIMATION_MODE>`` and
``erfinv_init<APPROXIMATION_MODE>``, in the stock Winitzki form read in index id 54498361348 (the
Wormhole spelling, ``sfpu_sqrt_custom<false, 2>``); Blackhole's file of the same form spells it
``sfpu_sqrt_custom<false>``, whose default is the same two Newton steps, and is otherwise the
same arithmetic (issue #56372, 2026-09-13: "the two headers differ only in the sfpu_sqrt_custom
iteration-count template argument and a comment"), so one body serves both chips.

Dating. The index holds seven erfinv revisions; the one measured on 2026-09-30 is taken to be
this one because (a) issues #51660 (2026-07-31) and #56372 (2026-09-13) describe main as this
form, with the result collapsing to exactly 0 for |x| below about 3.9e-4, and the table's BF16
whole-format figure (14,704 steps, a zero output against a golden near 4.6e-4) is that
collapse; (b) none of the rivals collapses, so none gives 14,704: the Maclaurin small-|x| branch
of issue #51660 (BH @009a523f, WH index id 58916375521) and Giles' polynomial (WH @0cc49e2f)
both predict 1 step there (checked with this module's pieces); the others are drafts or later
(the APPROXIMATION_MODE exp refinement, index id 58783575193; PR #54083's Newton step with erf,
closed, index id 58875450555; a private BF16 log copy with ``ITERATIONS`` as a template
parameter, index id 69610943438; PR #55283's generated BF16 path, open 2026-09-18). The FP16
cell (2,950 steps, 0 against 0x0f85) agrees too, and both figures pin the SFPMAD fusion below:
fusing the other product of ``tmp*tmp - L/a`` (or neither) gives 14,644 and 2,460.

Algorithm (all lanes in FP32 LRegs; the kernel ignores APPROXIMATION_MODE and has no
``is_fp32_dest_acc_en`` parameter, so the device runs this one program with either Dst, and
nothing rounds before SFPSTORE: a 16-bit Dst receives the FP32 result truncated):

* ``u = 1 - x*x`` (one SFPMAD); ``L = calculate_log_body<false, false, false>(u)``: the Sep-2026
  Juffa-derived natural-log body with its BF16-Dst polynomial and without the Dst rounding that
  ``calculate_log`` adds (:func:`kernels.log_2026.log_body`); ``erfinv_init`` runs
  ``log_init<false, false, false>``, i.e. Prgm0 = ln2 * 2**-23, Prgm1 = 0x1.744p-2,
  Prgm2 = -0x1.008p-1 (:func:`kernels.log1p_2026.log1p_init`);
* ``tmp = -0.5*L + TWO_OVER_PI_A`` (fused), ``c = tmp*tmp - L*ONE_OVER_A`` (the first product
  fused, the second rounded: sfpi's combine pass, :mod:`sfpu_sim.sfpi`), with Winitzki's a =
  0.147: -2/(pi a) = -4.330746750799873f, 1/a = 6.802721088435375f;
* ``r = sqrt_custom(tmp + sqrt_custom(c))`` (:func:`kernels.trig_2026.sqrt_custom`: 0x5f37
  seed, two Newton steps, times the input; zero and exponent-255 inputs pass through, the
  is-finite guard of PR #53757, merged about 2026-08-20);
* the input reloaded from Dst (register pressure) gives the sign: ``setsgn(r, x)``.

Near 0 ``tmp + sqrt(c)`` cancels (``sqrt(c) ~ -tmp ~ 4.33``), and ``u`` rounds to 1 below
|x| = 2**-12, so L = 0 and the output is exactly +-0. At |x| = 1, L = -Inf, tmp = c = +Inf, both
square roots pass +Inf through: +-Inf, the golden. Beyond |x| > 1, u < 0 gives L = NaN and a NaN
(golden NaN).

Table (Wormhole, 2026-09-30; the Erfinv row is dated 2026-10-02): BF16 whole-format 14,704 and
FP16 2,950 are predicted exactly. BF16 "2 outside near_zero_atol 5.37e-4" is predicted as 1:
tt-llk's ulp.py rescues only lanes over the budget, so the band's 2-step lanes (|x| < 0.0068)
count at a budget of 2 (tests/test_kernels_erfinv_2026.py).
"""
from __future__ import annotations

from kernels.log1p_2026 import log1p_init
from kernels.log_2026 import log_body
from kernels.trig_2026 import sqrt_custom
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg, setsgn

TWO_OVER_PI_A = -4.330746750799873      # "TwoPiA": -2 / (pi * 0.147), as the FP32 0xc08a957a
ONE_OVER_A = 6.802721088435375          # "OneDivA": 1 / 0.147, as the FP32 0x40d9afe4


def erfinv_body(x):
    """``calculate_erfinv_body<false>(x)``: |erfinv(x)| by Winitzki's closed form."""
    log_value = log_body(1.0 - x * x, fp32=False)
    tmp = -0.5 * log_value + TWO_OVER_PI_A
    calculated_value = tmp * tmp - log_value * ONE_OVER_A
    intermediate_result = sqrt_custom(calculated_value)
    return sqrt_custom(tmp + intermediate_result)


def erfinv_2026_09():
    """One iteration of ``calculate_erfinv<false>`` (8 per face; the harness runs RC faces)."""
    result = erfinv_body(dst_reg[0])
    dst_reg[0] = setsgn(result, dst_reg[0])          # the source reloads the input here


register_kernel(
    "erfinv_2026_09", erfinv_2026_09, init=log1p_init, function="erfinv", mode="accurate",
    dest="bf16", template="calculate_erfinv", params={"APPROXIMATION_MODE": False},
    provenance="tt-metal ckernel_sfpu_erfinv.h calculate_erfinv<false> + erfinv_init<false> "
               "(stock Winitzki form on main in Sep 2026: index id 54498361348, WH spelling "
               "sfpu_sqrt_custom<false, 2>; BH sfpu_sqrt_custom<false>, same two Newton steps; "
               "issues #51660, #56372 describe it): log_init<false, false, false> constants, "
               "L = calculate_log_body<false, false, false>(1 - x*x) unrounded, tmp = -0.5 L - "
               "2/(pi a), sqrt_custom(tmp + sqrt_custom(tmp^2 - L/a)), a = 0.147, sign of x; "
               "no rounding, no is_fp32_dest_acc_en parameter",
    description="the Erfinv row (ttnn.erfinv), Sep 2026, either Dst")
