"""Deterministic sin, cos, sincos, exp and log, written for the SFPU from a design note.
The note is not attributed here; Sollya 8.0 reproduces its coefficients (tests/test_design.py).

The note's recipe, followed exactly: Sollya ``fpminimax`` single-precision coefficients (copied
from it), explicit range reduction, Horner evaluation with one multiply-add per step, round to
nearest even, and the special values checked first with one fixed NaN pattern (0x7FC00000).
It gives no source code; every choice it leaves open is stated here and in the registrations.

Reductions

* sin, cos: ``x = q*pi/2 + r``, ``q = round(x * 2/pi)``: for ``|x| < 2**22`` by the
  1.5*2**23 rounding bias (one multiply-add; its sum steps by 1 there, so the low bits of its
  pattern are ``q`` in two's complement); from ``2**22`` on, where the sum would step by 2 or
  more, ``x * 2/pi`` is rounded to an integer (adding and taking away 2**23 below 2**23) and
  ``q mod 4`` read from that integer's exponent and mantissa. Then two-constant Cody-Waite
  ``r = (x - q*P1) - q*P2``, each step one multiply-add. ``P1 = 0x1.92p+0`` is a BF16
  pattern (one SFPLOADI) with 8 significant bits, so ``q*P1`` is exact for ``|q| < 2**16``.
  ``P2 = 0x1.fb54442d18p-12`` (the note's constant: ``pi/2 - P1`` in binary64) is not an FP32
  number; the kernel holds it rounded to nearest, ``0x1.fb5444p-12`` (0x39FDAA22, two SFPLOADI),
  so ``P1 + P2`` misses pi/2 by 2.56e-12 and the reduced argument by ``|q| * 2.56e-12`` (at most
  1.7e-7 for ``|x| < 2**16 * pi/2``). The reduction is exact while ``|q| < 2**16``, i.e.
  ``|x| < 102,943``; beyond about 2**20 the note asks for Payne-Hanek, which the recipe does
  not contain, so larger inputs give whatever the arithmetic gives (reports measure them).
  ``(sin x, cos x)`` from ``(sin r, cos r)`` by ``q mod 4``: an odd ``q`` exchanges them (cos
  takes ``-sin r``), ``q & 2`` negates both (an integer XOR of the sign bit).
  sin r = ``r * (1 + s*(S3 + s*(S5 + s*S7)))``, cos r = ``1 + s*(C2 + s*(C4 + s*C6))``,
  ``s = r*r``.
* exp: ``k = floor(x / ln 2)`` (nearest by the rounding bias, then one less where the reduced
  argument comes out negative), ``r = x - k*ln2`` in one multiply-add (single-constant ln 2:
  its error times ``|k| <= 151`` is 3e-7, far below the polynomial's 1.1e-4), the cubic on
  ``[0, ln 2]``, and ``2**k`` applied as two exact powers of two ``2**k1 * 2**k2`` (``k1 =
  floor(k/2)``) so that the one rounding of the last product overflows to Inf and underflows
  gradually like any IEEE product. ``x`` is first clamped to [-104, 89] (exp(-104) rounds to
  0 and exp(89) to Inf in binary32).
* log: ``x = m * 2**e`` with ``m`` in [0.5, 1) (frexp: exponent field set to 126), the cubic
  in ``m``, then ``e*ln2 + ln m`` in one multiply-add. ``e`` becomes a float without a
  conversion instruction: its bits are added to the rounding bias's and the bias subtracted.
  The recipe's cubic has an absolute error of 4.4e-4 at m = 0.5, so log(1) = 4.4e-4 and the
  relative error grows without bound near 1 (the reports show it).

Special values (checked first, integer tests on the bit pattern, so every platform takes the
same branch): NaN -> 0x7FC00000; sin(+-0) = +-0; cos(+-0) = exp(+-0) = 1; exp(+Inf) = +Inf;
exp(-Inf) = +0; sin/cos(+-Inf) = NaN. The note lists none for log; the IEEE ones are used:
log(+Inf) = +Inf, log(-Inf) = log(x < 0) = NaN, and log(+-0) = -Inf. A denormal input is not a
special value for sin, cos or exp (it goes through the arithmetic: there the SFPU reads it as
zero and a CPU does not); for log the exponent field *is* the frexp exponent, so a zero
exponent field (zeros and denormals) gives -Inf on every platform.

Ending: the FP32-Dst kernels (``*_fp32``) store the FP32 result. The BF16-Dst kernels round it
to BF16 themselves, to nearest even, with integer operations (``bits + 0x7FFF + lsb``, low half
cleared), because the note picks round-to-nearest-even and SFPSTORE to a BF16 Dst truncates.

sincos, one reduction with two outputs: ``hellas_sincos`` stores cos x to ``dst_reg[1]`` and
then sin x to ``dst_reg[0]``; a sweep measures the last store, at ``dst_reg[0]``, against sin.
Its second output is measured through ``hellas_sincos_cos``: the same body with the two store
addresses exchanged (cos last, at ``dst_reg[0]``, measured against cos). The tests check that
the two programs write bit-identical sin and cos rows, so each registered figure is that output
of the one kernel.
"""
from __future__ import annotations

from kernels.common import as_float
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (dst_reg, exexp, exexp_nodebias, reinterpret, setexp, setsgn,
                           v_else, v_elseif, v_endif, v_if, vec_min_max, vFloat, vInt, vUInt)

__all__ = ["SIN", "COS", "EXP", "LOG", "PIO2_HI", "PIO2_LO", "TWO_OVER_PI", "INV_LN2", "LN2",
           "ROUNDING_BIAS", "FIXED_NAN", "EXP_CLAMP"]

# Sollya fpminimax coefficients, single precision (the note's), ascending.
SIN = (1.0, -0.166666507720947265625, 8.331983350217342376708984375e-3,
       -1.94961365195922553539276123046875e-4)                       # r^1, r^3, r^5, r^7
COS = (1.0, -0.49999892711639404296875, 4.16561998426914215087890625e-2,
       -1.35968066751956939697265625e-3)                             # r^0, r^2, r^4, r^6
EXP = (0.9998929500579833984375, 1.0047757625579833984375, 0.4669305980205535888671875,
       0.23783318698406219482421875)                                 # on [0, ln 2]
LOG = (-2.1859228610992431640625, 4.22526264190673828125, -2.9164140224456787109375,
       0.877515852451324462890625)                                   # on [0.5, 1]

PIO2_HI = float.fromhex("0x1.92p+0")              # Cody-Waite part 1 (exact in BF16)
PIO2_LO = as_float(0x39FDAA22)                    # 0x1.fb54442d18p-12 rounded to FP32
TWO_OVER_PI = as_float(0x3F22F983)                # 2/pi rounded to FP32
INV_LN2 = as_float(0x3FB8AA3B)                    # 1/ln 2 rounded to FP32
LN2 = as_float(0x3F317218)                        # ln 2 rounded to FP32
ROUNDING_BIAS = as_float(0x4B400000)              # 1.5 * 2**23: adding it rounds to an integer
TWO_POW_23 = 8388608.0
FIXED_NAN = 0x7FC00000
EXP_CLAMP = (-104.0, 89.0)
INF_BITS = 0x7F800000
NAN, INF = float("nan"), float("inf")


# --------------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------------

def _magnitude_bits(x) -> vInt:
    """|x| as an integer (sign bit cleared): the special-value tests compare it."""
    return reinterpret(vInt, setsgn(x, 0))


def _round_bf16_rne(y) -> vFloat:
    """y rounded to BF16, nearest even, by integer operations: ``(bits + 0x7FFF + lsb) >> 16
    << 16`` (NaN 0x7FC00000 and the infinities are unchanged, the largest finite values round
    to Inf, denormals round on the denormal grid)."""
    bits = reinterpret(vUInt, y)
    lsb = (bits >> 16) & 1
    bits = bits + vUInt(0x7FFF)
    bits = bits + lsb
    bits = (bits >> 16) << 16
    return reinterpret(vFloat, bits)


def _reduce_pio2(x):
    """``(q_bits, r)`` with ``x = q*pi/2 + r``: the low two bits of ``q_bits`` are q mod 4
    (two's complement), r by two-constant Cody-Waite."""
    t = x * TWO_OVER_PI + ROUNDING_BIAS          # round(x * 2/pi) + 1.5*2**23
    q = t - ROUNDING_BIAS                        # exact
    q_bits = reinterpret(vInt, t)
    with v_if(exexp(x) >= 22):
        # The bias's sum steps by 2 or more once |x * 2/pi| >= 2**22 (|x| >= 6.59e6), and its
        # pattern no longer holds q; from |x| = 2**22 on (|x * 2/pi| >= 2.67e6, a margin),
        # q = round(x * 2/pi) and q mod 4 from q itself, as the note's recipe says.
        q.assign(x * TWO_OVER_PI)
        _round_to_integer(q)
        _set_low_two_bits(q_bits, q)
    v_endif()
    r = q * -PIO2_HI + x                         # exact while |q| < 2**16
    r = q * -PIO2_LO + r
    return q_bits, r


def _round_to_integer(u) -> None:
    """``u`` rounded to an integer, in place: below 2**23 in magnitude by adding and taking
    away 2**23 (the sum's unit in the last place is 1); from 2**23 on ``u`` is one already."""
    a = setsgn(u, 0)
    with v_if(exexp(a) < 23):
        a.assign((a + TWO_POW_23) - TWO_POW_23)
    v_endif()
    u.assign(setsgn(a, u))


def _set_low_two_bits(q_bits, q) -> None:
    """``q_bits`` = q mod 4 for an integer-valued ``q`` with |q| >= 2**21, from its magnitude's
    pattern (|q| = 2**e + mantissa * 2**(e - 23); the exponent read by comparing the pattern
    with the first of each binade), negated mod 4 for q < 0. Written into ``q_bits`` in place:
    sincos has no register left for another value."""
    field = reinterpret(vInt, setsgn(q, 0))
    q_bits.assign(vInt(0))                       # from 2**25 on, 4 divides q
    with v_if(field < vInt(0x4A800000)):         # [2**21, 2**22): mantissa counts quarters
        q_bits.assign((field >> 2) & 3)
    with v_elseif(field < vInt(0x4B000000)):     # [2**22, 2**23): mantissa counts halves
        q_bits.assign((field >> 1) & 3)
    with v_elseif(field < vInt(0x4B800000)):     # [2**23, 2**24): mantissa counts ones
        q_bits.assign(field & 3)
    with v_elseif(field < vInt(0x4C000000)):     # [2**24, 2**25): mantissa counts twos
        q_bits.assign((field & 1) << 1)
    v_endif()
    with v_if(q < 0.0):
        q_bits.assign((vInt(4) - q_bits) & 3)
    v_endif()


def _sin_poly(r, s):
    """sin r = r * (1 + s*(S3 + s*(S5 + s*S7))): Horner in s, then the product with r."""
    p = s * SIN[3] + SIN[2]
    p = p * s + SIN[1]
    p = p * s + SIN[0]
    return p * r


def _cos_poly(s):
    """cos r = 1 + s*(C2 + s*(C4 + s*C6)): Horner in s."""
    p = s * COS[3] + COS[2]
    p = p * s + COS[1]
    return p * s + COS[0]


def _quadrant_sign(q_bits) -> vInt:
    """The sign bit to XOR into both outputs: set when q mod 4 is 2 or 3."""
    return (q_bits & 2) << 30


def _with_sign(y, sign) -> vFloat:
    return reinterpret(vFloat, reinterpret(vInt, y) ^ sign)


# --------------------------------------------------------------------------------------------
# sin, cos, sincos
# --------------------------------------------------------------------------------------------

def _sin_of(x) -> vFloat:
    q_bits, r = _reduce_pio2(x)
    s = r * r
    y = vFloat()
    with v_if(q_bits & 1):
        y.assign(_cos_poly(s))
    with v_else():
        y.assign(_sin_poly(r, s))
    v_endif()
    return _with_sign(y, _quadrant_sign(q_bits))


def _cos_of(x) -> vFloat:
    q_bits, r = _reduce_pio2(x)
    s = r * r
    y = vFloat()
    with v_if(q_bits & 1):
        y.assign(-_sin_poly(r, s))
    with v_else():
        y.assign(_cos_poly(s))
    v_endif()
    return _with_sign(y, _quadrant_sign(q_bits))


def _trig(x, of, at_zero) -> vFloat:
    """Specials first: Inf and NaN -> NaN, +-0 -> ``at_zero(x)``; otherwise ``of(x)``."""
    y = vFloat()
    with v_if(exexp(x) == 128):                   # +-Inf, NaN
        y.assign(NAN)
    with v_elseif(_magnitude_bits(x) == 0):       # +-0 (denormals are not zero here)
        y.assign(at_zero(x))
    with v_else():
        y.assign(of(x))
    v_endif()
    return y


def _ending(y, round_bf16: bool):
    return _round_bf16_rne(y) if round_bf16 else y


def sin_body(round_bf16: bool):
    def hellas_sin():
        x = dst_reg[0]
        dst_reg[0] = _ending(_trig(x, _sin_of, lambda v: v), round_bf16)
    return hellas_sin


def cos_body(round_bf16: bool):
    def hellas_cos():
        x = dst_reg[0]
        dst_reg[0] = _ending(_trig(x, _cos_of, lambda v: 1.0), round_bf16)
    return hellas_cos


def sincos_body(round_bf16: bool, last: str = "sin"):
    """One reduction, both outputs: ``last`` ("sin" or "cos") is stored last, at
    ``dst_reg[0]``, the other at ``dst_reg[1]`` (see the module docstring)."""
    def hellas_sincos():
        x = dst_reg[0]
        s_out, c_out = vFloat(), vFloat()
        with v_if(exexp(x) == 128):
            s_out.assign(NAN)
            c_out.assign(NAN)
        with v_elseif(_magnitude_bits(x) == 0):
            s_out.assign(x)
            c_out.assign(1.0)
        with v_else():
            q_bits, r = _reduce_pio2(x)
            s = r * r
            sin_r, cos_r = _sin_poly(r, s), _cos_poly(s)
            with v_if(q_bits & 1):
                s_out.assign(cos_r)
                c_out.assign(-sin_r)
            with v_else():
                s_out.assign(sin_r)
                c_out.assign(cos_r)
            v_endif()
            sign = _quadrant_sign(q_bits)
            s_out.assign(_with_sign(s_out, sign))
            c_out.assign(_with_sign(c_out, sign))
        v_endif()
        outputs = {"sin": _ending(s_out, round_bf16), "cos": _ending(c_out, round_bf16)}
        other = "cos" if last == "sin" else "sin"
        dst_reg[1] = outputs[other]
        dst_reg[0] = outputs[last]
    hellas_sincos.__name__ = "hellas_sincos" if last == "sin" else "hellas_sincos_cos"
    return hellas_sincos


# --------------------------------------------------------------------------------------------
# exp
# --------------------------------------------------------------------------------------------

def _exp_of(x) -> vFloat:
    low, high = vFloat(EXP_CLAMP[0]), vFloat(EXP_CLAMP[1])
    vec_min_max(low, x)                           # x = max(x, -104)
    vec_min_max(x, high)                          # x = min(x, 89)
    t = x * INV_LN2 + ROUNDING_BIAS               # round(x / ln 2) + 1.5*2**23
    k = t - ROUNDING_BIAS
    r = k * -LN2 + x
    with v_if(r < 0.0):                           # rounded up: take floor instead
        k.assign(k - 1.0)
        r.assign(k * -LN2 + x)
    v_endif()
    p = r * EXP[3] + EXP[2]                       # e**r on [0, ln 2], Horner
    p = p * r + EXP[1]
    p = p * r + EXP[0]
    # 2**k = 2**k1 * 2**k2, k1 = floor(k/2): exponent fields (k1 + 127) and (k - k1 + 127).
    k_int = reinterpret(vInt, k + ROUNDING_BIAS) - vInt(0x4B400000)     # -151 <= k <= 128
    half = (k_int + 152) >> 1                     # k1 + 76 >= 0 (a logical shift suffices)
    scale1 = reinterpret(vFloat, (half + 51) << 23)
    scale2 = reinterpret(vFloat, (k_int - half + 203) << 23)
    return p * scale1 * scale2                    # exact, then the one rounding


def exp_body(round_bf16: bool):
    def hellas_exp():
        x = dst_reg[0]
        y = vFloat()
        magnitude = _magnitude_bits(x)
        inf_bits = vInt(INF_BITS)
        with v_if(magnitude > inf_bits):          # NaN
            y.assign(NAN)
        with v_elseif(magnitude == inf_bits):     # +Inf -> +Inf, -Inf -> +0
            with v_if(x < 0.0):
                y.assign(0.0)
            with v_else():
                y.assign(INF)
            v_endif()
        with v_elseif(magnitude == 0):            # +-0 -> 1
            y.assign(1.0)
        with v_else():
            y.assign(_exp_of(x))
        v_endif()
        dst_reg[0] = _ending(y, round_bf16)
    return hellas_exp


# --------------------------------------------------------------------------------------------
# log
# --------------------------------------------------------------------------------------------

def _log_of(x) -> vFloat:
    m = setexp(x, 126)                            # frexp mantissa in [0.5, 1)
    p = m * LOG[3] + LOG[2]
    p = p * m + LOG[1]
    p = p * m + LOG[0]
    # e = biased exponent - 126 as a float: (bias | E) - (bias + 126), exact.
    biased = reinterpret(vFloat, exexp_nodebias(x) | vInt(0x4B400000))
    e = biased - (ROUNDING_BIAS + 126.0)
    return e * LN2 + p


def log_body(round_bf16: bool):
    def hellas_log():
        x = dst_reg[0]
        y = vFloat()
        magnitude = _magnitude_bits(x)
        inf_bits = vInt(INF_BITS)
        with v_if(magnitude > inf_bits):          # NaN
            y.assign(NAN)
        with v_elseif(exexp_nodebias(x) == 0):    # +-0 and denormals -> -Inf
            y.assign(-INF)
        with v_elseif(x < 0.0):                   # -Inf and x < 0 -> NaN
            y.assign(NAN)
        with v_elseif(magnitude == inf_bits):     # +Inf
            y.assign(INF)
        with v_else():
            y.assign(_log_of(x))
        v_endif()
        dst_reg[0] = _ending(y, round_bf16)
    return hellas_log


# --------------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------------

NOTE = "a design note on deterministic transcendentals (unattributed; tests/test_design.py)"
ENDINGS = {"bf16": "rounded to BF16 in the kernel (nearest even, integer operations)",
           "fp32": "FP32 result stored as is"}
RECIPES = {
    "sin": "two-constant Cody-Waite by pi/2 (0x1.92p+0 + 0x1.fb54442d18p-12 held as FP32 "
           "0x1.fb5444p-12), Sollya odd degree-7 sin / even degree-6 cos on [-pi/4, pi/4], "
           "quadrant by q mod 4",
    "exp": "k = floor(x/ln2), r = x - k ln2, Sollya cubic on [0, ln 2], 2**k as two exact "
           "powers of two",
    "log": "frexp m in [0.5, 1), Sollya cubic on [0.5, 1], e*ln2 + ln m",
}


def _register(name: str, function: str, recipe: str, body, dest: str, description: str):
    suffix = "" if dest == "bf16" else "_fp32"
    register_kernel(
        name + suffix, body(dest == "bf16"), function=function, mode="accurate", dest=dest,
        provenance=f"{NOTE}: {RECIPES[recipe]}; Horner, one multiply-add per step; special "
                   f"values first, NaN 0x7FC00000; {ENDINGS[dest]}",
        description=f"{description} ({dest.upper()} Dst)")


for _dest in ("bf16", "fp32"):
    _register("hellas_sin", "sin", "sin", sin_body, _dest, "deterministic sin, the note's")
    _register("hellas_cos", "cos", "sin", cos_body, _dest, "deterministic cos, the note's")
    _register("hellas_sincos", "sin", "sin", lambda r: sincos_body(r, "sin"), _dest,
              "deterministic sincos, the note's; measured output: sin at dst_reg[0] (cos at "
              "dst_reg[1])")
    _register("hellas_sincos_cos", "cos", "sin", lambda r: sincos_body(r, "cos"), _dest,
              "hellas_sincos with its stores exchanged, to measure its cos output at "
              "dst_reg[0]")
    _register("hellas_exp", "exp", "exp", exp_body, _dest, "deterministic exp, the note's")
    _register("hellas_log", "log", "log", log_body, _dest, "deterministic log, the note's")
