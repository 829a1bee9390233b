"""log1p kernels as of 2026-09-30: BF16 Dst and FP32 Dst.

``log1p_2026_09``: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/
llk_api/llk_sfpu/ckernel_sfpu_log1p.h``, ``calculate_log1p<false, false, false>`` ->
``calculate_log1p_fp32<false>`` then ``convert<vFloat16b>(r, Nearest)``, with ``log1p_init``
(Jason Davies, 2026, derived from Norbert Juffa's log1pf; it replaced PR #34319's Dec-2025
version). Read at WH @009ac3007ff56edca50e8c9025f4f35ee6048916 (index id 55436919136) and in
PR #57292's BH branch (index id 68423771402, opened 2026-09-22 on main a406ad5c), whose
non-fast path is the same code (that branch also moves the BF16 constants of an earlier
revision, index id 52442248403, into the programmable registers: same values, same bits).
No chip-specific instruction: one body for both chips.

Algorithm (BF16 arm), all in FP32 LRegs:

* ``u = a + 1``; lanes with ``u < 0`` (raw sign) keep the quiet-NaN default.
* ``e = (bits(u) - bits(0.75))`` with the mantissa cleared: ``k << 23`` for the k with
  ``u * 2**-k`` in [0.75, 1.5).
* ``m = float(bits(a) - e)`` (a scaled by 2**-k), ``s = float(bits(-4) - e)`` (-4 * 2**-k),
  ``t = -0.25*s - 1`` (= 2**-k - 1), ``m = m + t`` (= u*2**-k - 1, in [-0.25, 0.5)).
* ``r = -0.25*m + 0x1.744p-2``; ``r = r*m - 0x1.008p-1``; ``r = r*(m*m) + m``;
  ``r = sign(e)*float(|e|) * (ln2 * 2**-23) + r`` (= k ln 2 + log1p(m)).
* ``r = u`` where ``bits(u) >= bits(+Inf)`` (u infinite or NaN).

``log1p_fp32_2026_09`` (FP32 Dst, ``calculate_log1p<false, false, true>`` ->
``calculate_log1p_fp32<true>``, no rounding; the same two readings, identical on both chips
except the spelling ``NearestEven`` / ``Nearest`` of the SFPCAST of |e|, one RNE instruction
either way): the same reduction and reconstruction; between them the longer Horner of the FP32
arm, ``r = -0x1.92cp-5``, then ``r*m +`` 0x1.b84p-4, -0x1.0c4p-3, 0x1.274p-3, -0x1.55p-3,
0x1.998p-3, Prgm1, Prgm2, -0.5 (FP16-exact constants as immediates), then ``r*(m*m) + m``.
``log1p_init<false, false, true>``: Prgm0 = ln2 * 2**-23 as for BF16, Prgm1 = -0x1.00001ap-2,
Prgm2 = 0x1.555572p-2.
"""
from __future__ import annotations

import math

from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, dst_reg, float_to_fp16b, int32_to_float, reinterpret, setman,
                           setsgn, v_endif, v_if, vConstFloatPrgm0, vConstFloatPrgm1,
                           vConstFloatPrgm2, vConstNeg1, vFloat, vInt)

LN2_TIMES_2_M23 = 0.693147182 * 2.0 ** -23      # log1p_init: Prgm0 (an exact power-of-2 scale)
BF16_C1 = float.fromhex("0x1.744p-2")            # Prgm1
BF16_C0 = -float.fromhex("0x1.008p-1")           # Prgm2
FP32_C3 = -float.fromhex("0x1.00001ap-2")        # log1p_init<., ., true>: Prgm1
FP32_C2 = float.fromhex("0x1.555572p-2")         # Prgm2
# The FP32 arm's immediates, highest power first (all FP16-exact); then Prgm1, Prgm2, -0.5.
FP32_HIGH = tuple(float.fromhex(h) for h in ("-0x1.92cp-5", "0x1.b84p-4", "-0x1.0c4p-3",
                                              "0x1.274p-3", "-0x1.55p-3", "0x1.998p-3"))


def log1p_init():
    """``log1p_init<false, false, false>`` (the constants of ``calculate_log1p_fp32<false>``)."""
    vConstFloatPrgm0.assign(LN2_TIMES_2_M23)
    vConstFloatPrgm1.assign(BF16_C1)
    vConstFloatPrgm2.assign(BF16_C0)


def log1p_fp32_init():
    """``log1p_init<false, false, true>``."""
    vConstFloatPrgm0.assign(LN2_TIMES_2_M23)
    vConstFloatPrgm1.assign(FP32_C3)
    vConstFloatPrgm2.assign(FP32_C2)


def _log1p_reduced(a, u):
    """The shared range reduction of ``calculate_log1p_fp32`` on the lanes with ``u = a + 1 >=
    0``: ``(m, t, e, abs_e, neg_quarter)`` with ``m + t = u * 2**-k - 1``, ``e = k << 23``."""
    three_quarters = vFloat(0.75)
    e = reinterpret(vInt, u) - reinterpret(vInt, three_quarters)
    e = reinterpret(vInt, setman(reinterpret(vFloat, e), 0))
    m = reinterpret(vFloat, reinterpret(vInt, a) - e)
    neg_four = vFloat(-4.0)
    s = reinterpret(vFloat, reinterpret(vInt, neg_four) - e)
    neg_quarter = vFloat(-0.25)
    t = neg_quarter * s + vConstNeg1
    abs_e = abs(e)
    return m, t, e, abs_e, neg_quarter


def _signed_exponent(abs_e, e):
    """k as a float: SFPCAST of |k << 23| with k's sign (the order of operations decides
    nothing: it is exact)."""
    return setsgn(int32_to_float(abs_e, 0), reinterpret(vFloat, e))


def _log1p_reconstructed(r, u, poly, s, m, e_float):
    """``r = k ln 2 + (poly * m*m + m)`` on the lanes with ``u >= 0``, ``u`` itself where it is
    +Inf or NaN (``bits(u) >= bits(+Inf)``); ``e_float`` from :func:`_signed_exponent`."""
    poly = poly * s + m
    infinity = vFloat(math.inf)
    r.assign(e_float * vConstFloatPrgm0 + poly)
    with v_if(reinterpret(vInt, u) >= reinterpret(vInt, infinity)):
        r.assign(u)
    v_endif()


def log1p_bf16(a):
    """``calculate_log1p_fp32<false>(a)``."""
    u = a + 1.0
    r = vFloat(math.nan)
    with v_if(u >= 0.0):
        m, t, e, abs_e, neg_quarter = _log1p_reduced(a, u)
        m = m + t
        e_float = _signed_exponent(abs_e, e)
        poly = neg_quarter * m + vConstFloatPrgm1
        s = m * m
        poly = poly * m + vConstFloatPrgm2
        _log1p_reconstructed(r, u, poly, s, m, e_float)
    v_endif()
    return r


def log1p_fp32(a):
    """``calculate_log1p_fp32<true>(a)``."""
    u = a + 1.0
    r = vFloat(math.nan)
    with v_if(u >= 0.0):
        m, t, e, abs_e, _ = _log1p_reduced(a, u)
        m = m + t
        # k is formed before the Horner chain, so that e is dead during it: a caller holding
        # one more value (acosh's input) then fits the 8 LRegs.
        e_float = _signed_exponent(abs_e, e)
        poly = vFloat(FP32_HIGH[0])
        for c in FP32_HIGH[1:]:
            poly = poly * m + c
        poly = poly * m + vConstFloatPrgm1
        s = m * m
        poly = poly * m + vConstFloatPrgm2
        poly = poly * m + -0.5
        _log1p_reconstructed(r, u, poly, s, m, e_float)
    v_endif()
    return r


def log1p_fp32_2026_09():
    """One iteration of ``calculate_log1p<false, false, true>``."""
    dst_reg[0] = log1p_fp32(dst_reg[0])


def log1p_2026_09():
    """One iteration of ``calculate_log1p<false, false, false>``."""
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(log1p_bf16(dst_reg[0]), 0))


register_kernel(
    "log1p_2026_09", log1p_2026_09, init=log1p_init, function="log1p", mode="accurate",
    dest="bf16",
    template="calculate_log1p",
    params={"APPROXIMATION_MODE": False, "FAST_APPROX": False, "is_fp32_dest_acc_en": False},
    provenance="tt-metal ckernel_sfpu_log1p.h calculate_log1p_fp32<false> + log1p_init (Juffa-"
               "derived, 2026; read WH @009ac300; unchanged in PR #57292's fallback on main "
               "a406ad5c, 2026-09-22): u = 1 + a split as 2**k * [0.75, 1.5) by bit arithmetic, "
               "m + m^2*(c0 + m*(c1 - m/4)) + k ln 2, NaN below -1; convert<vFloat16b>(., "
               "Nearest)",
    description="ttnn.log1p on a BF16 tensor, Jun - Sep 2026")

register_kernel(
    "log1p_fp32_2026_09", log1p_fp32_2026_09, init=log1p_fp32_init, function="log1p",
    mode="accurate", dest="fp32",
    template="calculate_log1p",
    params={"APPROXIMATION_MODE": False, "FAST_APPROX": False, "is_fp32_dest_acc_en": True},
    instance_of="log1p_2026_09",
    provenance="tt-metal ckernel_sfpu_log1p.h calculate_log1p_fp32<true> + log1p_init<., ., "
               "true> (Juffa-derived, 2026; read WH @009ac300, same in PR #57292's BH branch on "
               "main a406ad5c, 2026-09-22): the BF16 kernel's reduction, m + m^2*P(m) with a "
               "degree-8 P (Prgm1 = -0x1.00001ap-2, Prgm2 = 0x1.555572p-2), + k ln 2; no rounding",
    description="ttnn.log1p with an FP32 Dst, Jun - Sep 2026")
