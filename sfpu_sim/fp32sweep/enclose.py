"""Proven float64 enclosures ``lo <= f(x) <= hi`` of the reference functions at FP32 inputs.

Owns: one compiled evaluation per supported function that returns an interval of float64
numbers certainly containing the exact value f(x), or says it cannot (then the caller asks the
arb-certified reference layer). Knows nothing of rounding policies, kernels or sweeps.

Why an interval and not libm: numpy's and libm's exp, log, tanh carry no documented error
bound, so a float64 value from them proves nothing about the rounding of f(x). Here every
value is built from operations IEEE 754 rounds correctly (``+ - * /`` and ``sqrt``, round to
nearest even), exact ones (``abs``, ``ldexp``, ``frexp``, ``floor`` of a double, negation) and
constants certified with arb, and every rounded result ``v`` is widened outward:

    down(v) = v - max(|v| * 2**-52, 2**-1022),   up(v) = v + max(|v| * 2**-52, 2**-1022).

Proof of the widening: a correctly rounded ``v = RN(z)`` lies within half a gap of ``z``, so
``pred(v) <= z <= succ(v)``. The amount ``d`` is at least the gap ``ulp(v)`` above or below
``v``: for ``|v| >= 2**-970`` the product is exact and ``2**E <= |v|`` gives ulp ``2**(E-52) <=
|v| 2**-52``; below that every gap is at most 2**-1022. So ``v - d <= v - ulp(v) <= pred(v)``
and, ``pred(v)`` being a double, ``RN(v - d) <= pred(v)`` (rounding is monotone); ``up`` alike.
(2**-1022 rather than the smallest subnormal: a subnormal operand costs ~150 ns in the FPU.) Each
enclosure below applies an operation to interval ends in the direction that keeps the exact
value inside (all operands' signs are known where it matters) and widens the result; no
result overflows or is NaN on the domains used (those are clamped first).

Truncation errors, with ``|r| <= R_LIMIT`` and ``|t| <= T_LIMIT`` checked per input:

* ``e^r = sum_{k<=6} r^k/k! + R``, ``|R| <= e^|r| |r|^7 / 7!`` (Lagrange), bound ``|r|^7 K7``.
* ``e^r - 1 = r * sum_{k<=5} r^k/(k+1)! + R``, the same ``R``.
* ``log(1+t) = t * sum_{k<=6} (-t)^k/(k+1) + R``, ``|R| <= sum_{k>=8} |t|^k/k <=
  |t|^8 / (8 (1-|t|))``.
* ``e^-t`` for the tiny reduction remainder ``t``: ``1 - t <= e^-t <= 1 - t + t^2``.

Reductions: ``exp(x) = 2^k * 2^(j/64) * e^r * e^-t`` with ``n = 64k + j = round(x * 64/ln 2)``,
``r = x - n*C1`` (C1: ln2/64 cut to 32 bits, so ``n*C1`` is exact for ``|n| < 2^14`` and the
subtraction's exactness is checked with TwoSum) and ``t = n*(ln2/64 - C1)`` enclosed;
``log(x) = e*ln2 + log(c) + log(1+t)`` with ``x = 2^e m``, ``m`` in [0.75, 1.5),
``c = round(128 m)/128`` (``m - c`` exact by Sterbenz), ``t = (m-c)/c`` rounded once (its error,
at most ``|t| 2^-53``, moves ``log(1+t)`` by at most ``|t| 2^-53/(1-|t|)``: added); tanh, sigmoid
by monotone formulas in exp/expm1 (``tanh x = em/(em+2)`` with ``em = e^(2x) - 1`` below 1/2,
else ``1 - 2/(e^(2x)+1)``; odd). 1/x, sqrt(x), 1/sqrt(x): one or two correctly rounded
operations.

Assumptions checked at run time (:func:`check_arithmetic`): round to nearest even, and
subnormal results and operands honoured (no FTZ/DAZ in the FPU's control word). The enclosures
are proven; whether they decide a rounding is the caller's test
(:mod:`.rounded_reference`).
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from sfpu_sim import jit
from sfpu_sim.errors import SfpuSimError

TWO_M52 = 2.0 ** -52
MIN_NORMAL = 2.0 ** -1022
TINY = 2.0 ** -1074
R_LIMIT = 0.0055            # |r| after the exp reduction (ln2/128 = 0.005415...)
T_LIMIT = 0.0053            # |t| of the log reduction (2**-8 / 0.75 = 0.005208...)
N_LIMIT = 1 << 14           # |n| of the exp reduction: n*C1 exact below this
EXP_HIGH, EXP_LOW = 89.0, -110.0      # e^89 > 2^128; e^-110 < 2^-158
SATURATE = 20.0             # tanh x, x >= 20, and sigmoid beyond 110 lie in [1 - 2^-52, 1]

# Function codes of the compiled dispatch (:func:`enclose`).
FUNCTIONS = {"exp": 0, "log": 1, "tanh": 2, "sigmoid": 3, "reciprocal": 4, "sqrt": 5,
             "rsqrt": 6}


class ArithmeticError_(SfpuSimError):
    pass


# --------------------------------------------------------------------------------------------
# Constants certified with arb, as float64 intervals
# --------------------------------------------------------------------------------------------

def _float_down(q: Fraction) -> float:
    f = float(q)                                 # correctly rounded (CPython), then fixed up
    return f if Fraction(f) <= q else math.nextafter(f, -math.inf)


def _float_up(q: Fraction) -> float:
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)


def _ends(ball) -> tuple[float, float]:
    """A float64 interval containing an arb ball."""
    def exact(point):
        m, e = point.man_exp()
        return Fraction(int(m)) * Fraction(2) ** int(e)
    return _float_down(exact(ball.lower())), _float_up(exact(ball.upper()))


def _constants():
    saved = flint.ctx.prec
    flint.ctx.prec = 256
    try:
        ln2 = flint.arb(2).log()
        c1 = _float_down(Fraction(_ends(ln2 / 64)[0]))
        c1 = math.ldexp(math.floor(math.ldexp(c1, 38)), -38)          # 32 significant bits
        c2 = _ends(ln2 / 64 - flint.arb(c1))
        table = np.array([_ends(flint.arb(2) ** flint.arb(flint.fmpq(j, 64))) for j in
                          range(64)])
        exp_coef = np.array([_ends(1 / flint.arb(math.factorial(k))) for k in range(7)])
        expm1_coef = np.array([_ends(1 / flint.arb(math.factorial(k + 1))) for k in range(6)])
        log_coef = np.array([_ends(flint.arb((-1) ** k) / (k + 1)) for k in range(7)])
        logc = np.array([_ends(flint.arb(flint.fmpq(j, 128)).log()) if j not in (0, 128)
                         else (0.0, 0.0) for j in range(193)])     # j = 96..192 are used
        k7 = _ends(flint.arb(R_LIMIT).exp() / 5040)[1]
        kl = _ends(flint.arb(1) / (8 * (1 - flint.arb(T_LIMIT))) * (1 + flint.arb(2) ** -48))[1]
        lipschitz = _ends(flint.arb(2) ** -52 / (1 - flint.arb(T_LIMIT)))[1]
        inv = float(64 / ln2.mid())                 # any value: it only picks n
        return {"ln2": np.array(_ends(ln2)), "c1": c1, "c2": np.array(c2), "inv": inv,
                "table": table, "exp_coef": exp_coef, "expm1_coef": expm1_coef,
                "log_coef": log_coef, "logc": logc, "k7": k7, "kl": kl,
                "lipschitz": lipschitz}
    finally:
        flint.ctx.prec = saved


_C = _constants()
LN2, C1, C2, INV = _C["ln2"], _C["c1"], _C["c2"], _C["inv"]
TABLE, EXP_COEF, EXPM1_COEF = _C["table"], _C["exp_coef"], _C["expm1_coef"]
LOG_COEF, LOGC, K7, KL, LIPSCHITZ = (_C["log_coef"], _C["logc"], _C["k7"], _C["kl"],
                                     _C["lipschitz"])

_jit = jit.njit(nogil=True)
# Helpers are inlined into their callers: a call that passes arrays costs reference-count
# updates, ~15 ns per array, which made the whole evaluation 20x slower. LLVM inlines them
# (forceinline): numba's own inline='always' typed every helper again in each caller, and the
# seven loops took 12-31 s each to compile, now 1-5 s, the same bits at the same speed (all
# seven functions x six policies over 2**21 patterns, 2026-11-29). A GPU frame's device
# compile reads a true ``inline`` as forceinline too. Only the two frames that take the
# enclosure as an argument are inlined by numba, so that no compiled function takes a function.
# Cached: numba's CUDA simulator calls them from Python, which compiles each on its own.
_inline = jit.njit(forceinline=True, inline="never")
_frame = jit.njit(inline="always")


# --------------------------------------------------------------------------------------------
# Outward rounding and interval steps
# --------------------------------------------------------------------------------------------

@_inline
def down(v):
    return v - max(abs(v) * TWO_M52, MIN_NORMAL)


@_inline
def up(v):
    return v + max(abs(v) * TWO_M52, MIN_NORMAL)


@_inline
def _horner(r, coef):
    """Enclosure of sum coef[k] r^k at a point r, coefficients as intervals (rows lo, hi)."""
    d = coef.shape[0] - 1
    lo, hi = coef[d, 0], coef[d, 1]
    for k in range(d - 1, -1, -1):
        if r >= 0:
            plo, phi = down(lo * r), up(hi * r)
        else:
            plo, phi = down(hi * r), up(lo * r)
        lo, hi = down(plo + coef[k, 0]), up(phi + coef[k, 1])
    return lo, hi


@_inline
def _power_bound(a, n):
    """An upper bound of a**n (a >= 0, n = 7 or 8) by repeated squaring."""
    a2 = up(a * a)
    a4 = up(a2 * a2)
    if n == 8:
        return up(a4 * a4)
    return up(up(a4 * a2) * a)


@_inline
def _times_point(lo, hi, p):
    """[lo, hi] * p for a point p."""
    if p >= 0:
        return down(lo * p), up(hi * p)
    return down(hi * p), up(lo * p)


# --------------------------------------------------------------------------------------------
# exp, expm1, log
# --------------------------------------------------------------------------------------------

@_inline
def _exp_parts(x, c1, c2, inv, table, coef, k7):
    """(ok, k, lo, hi, n, r) with 2^k [lo, hi] containing e^x, for x in [-110, 89]."""
    n = float(math.floor(x * inv + 0.5))
    if abs(n) >= N_LIMIT:
        return False, 0, 0.0, 0.0, 0.0, 0.0
    nc = n * c1                                     # exact: |n| < 2^14, c1 has 32 bits
    r = x - nc
    back = r - x                                    # TwoSum: the rounding error of x - nc
    error = (x - (r - back)) + (-nc - back)
    if error != 0.0 or abs(r) > R_LIMIT:
        return False, 0, 0.0, 0.0, 0.0, 0.0
    t_lo, t_hi = _times_point(c2[0], c2[1], n)
    e_lo = down(1.0 - t_hi)                                       # e^-t >= 1 - t
    e_hi = up(up(1.0 - t_lo) + up(max(t_lo * t_lo, t_hi * t_hi)))  # e^-t <= 1 - t + t^2
    p_lo, p_hi = _horner(r, coef)
    rem = up(_power_bound(abs(r), 7) * k7)
    p_lo, p_hi = down(p_lo - rem), up(p_hi + rem)
    j = int(n) & 63
    k = (int(n) - j) >> 6
    lo = down(down(table[j, 0] * p_lo) * e_lo)
    hi = up(up(table[j, 1] * p_hi) * e_hi)
    return True, k, lo, hi, n, r


@_inline
def _exp(x, c1, c2, inv, table, coef, k7):
    if x > EXP_HIGH:
        return True, 2.0 ** 128, math.inf
    if x < EXP_LOW:
        return True, 0.0, 2.0 ** -158               # 0 < e^x < e^-110 < 2^-158
    ok, k, lo, hi, n, r = _exp_parts(x, c1, c2, inv, table, coef, k7)
    return ok, math.ldexp(lo, k), math.ldexp(hi, k)


@_inline
def _expm1_positive(z, c1, c2, inv, table, coef, m1coef, k7):
    """e^z - 1 for 0 < z <= 1.2 (relative accuracy near 0: no cancellation when n = 0)."""
    ok, k, lo, hi, n, r = _exp_parts(z, c1, c2, inv, table, coef, k7)
    if not ok:
        return False, 0.0, 0.0
    if n == 0:                                      # r = z exactly, t = 0
        q_lo, q_hi = _horner(r, m1coef)
        lo, hi = _times_point(q_lo, q_hi, r)
        rem = up(_power_bound(abs(r), 7) * k7)
        return True, down(lo - rem), up(hi + rem)
    return True, down(math.ldexp(lo, k) - 1.0), up(math.ldexp(hi, k) - 1.0)


@_inline
def _log(x, ln2, logc, coef, kl, lipschitz):
    m, e = math.frexp(x)                            # x = m 2^e, m in [0.5, 1)
    m, e = 2.0 * m, e - 1
    if m >= 1.5:
        m, e = 0.5 * m, e + 1                       # m in [0.75, 1.5)
    j = int(math.floor(m * 128.0 + 0.5))
    c = j / 128.0
    t = (m - c) / c                                 # m - c exact (Sterbenz); one rounding
    if abs(t) > T_LIMIT:
        return False, 0.0, 0.0
    s_lo, s_hi = _horner(t, coef)
    lo, hi = _times_point(s_lo, s_hi, t)
    slack = up(up(_power_bound(abs(t), 8) * kl) + up(abs(t) * lipschitz))
    lo, hi = down(lo - slack), up(hi + slack)
    if e != 0 or j != 128:
        a_lo, a_hi = _times_point(ln2[0], ln2[1], float(e))
        lo = down(down(a_lo + logc[j, 0]) + lo)
        hi = up(up(a_hi + logc[j, 1]) + hi)
    return True, lo, hi


# --------------------------------------------------------------------------------------------
# tanh, sigmoid, reciprocal, sqrt, rsqrt
# --------------------------------------------------------------------------------------------

@_inline
def _tanh_positive(x, c1, c2, inv, table, coef, m1coef, k7):
    if x >= SATURATE:
        return True, 1.0 - TWO_M52, 1.0
    if x < 0.5:
        ok, em_lo, em_hi = _expm1_positive(2.0 * x, c1, c2, inv, table, coef, m1coef, k7)
        if not ok or em_lo <= 0.0:
            return False, 0.0, 0.0
        return True, down(em_lo / up(em_lo + 2.0)), up(em_hi / down(em_hi + 2.0))
    ok, e_lo, e_hi = _exp(2.0 * x, c1, c2, inv, table, coef, k7)
    if not ok:
        return False, 0.0, 0.0
    lo = down(1.0 - up(2.0 / down(e_lo + 1.0)))
    hi = up(1.0 - down(2.0 / up(e_hi + 1.0)))
    return True, lo, min(hi, 1.0)                   # tanh < 1


@_inline
def _sigmoid(x, c1, c2, inv, table, coef, k7):
    if x > 110.0:
        return True, 1.0 - TWO_M52, 1.0
    if x < -110.0:
        return True, 0.0, 2.0 ** -158                 # 0 < sigmoid(x) < e^x
    ok, e_lo, e_hi = _exp(-abs(x), c1, c2, inv, table, coef, k7)
    if not ok:
        return False, 0.0, 0.0
    if x >= 0:                                       # 1/(1 + e^-x), decreasing in e^-x
        return True, down(1.0 / up(1.0 + e_hi)), min(up(1.0 / down(1.0 + e_lo)), 1.0)
    return True, down(e_lo / up(1.0 + e_lo)), up(e_hi / down(1.0 + e_hi))  # e^x/(1 + e^x)


@_inline
def _enclose_exp(x, c1, c2, inv, table, exp_coef, m1coef, ln2, logc, log_coef, k7, kl,
                 lipschitz):
    return _exp(x, c1, c2, inv, table, exp_coef, k7)


@_inline
def _enclose_log(x, c1, c2, inv, table, exp_coef, m1coef, ln2, logc, log_coef, k7, kl,
                 lipschitz):
    return _log(x, ln2, logc, log_coef, kl, lipschitz)


@_inline
def _enclose_tanh(x, c1, c2, inv, table, exp_coef, m1coef, ln2, logc, log_coef, k7, kl,
                  lipschitz):
    ok, lo, hi = _tanh_positive(abs(x), c1, c2, inv, table, exp_coef, m1coef, k7)
    return (ok, lo, hi) if x > 0 else (ok, -hi, -lo)


@_inline
def _enclose_sigmoid(x, c1, c2, inv, table, exp_coef, m1coef, ln2, logc, log_coef, k7, kl,
                     lipschitz):
    return _sigmoid(x, c1, c2, inv, table, exp_coef, k7)


@_inline
def _enclose_reciprocal(x, c1, c2, inv, table, exp_coef, m1coef, ln2, logc, log_coef, k7, kl,
                        lipschitz):
    q = 1.0 / x
    return True, down(q), up(q)


@_inline
def _enclose_sqrt(x, c1, c2, inv, table, exp_coef, m1coef, ln2, logc, log_coef, k7, kl,
                  lipschitz):
    s = math.sqrt(x)
    return True, down(s), up(s)


@_inline
def _enclose_rsqrt(x, c1, c2, inv, table, exp_coef, m1coef, ln2, logc, log_coef, k7, kl,
                   lipschitz):
    s = math.sqrt(x)
    return True, down(1.0 / up(s)), up(1.0 / down(s))


# The enclosures with their constants bound in: module arrays, which numba freezes into the
# code. Passed as arguments, each array was reference-counted per lane (reciprocal's decision
# 3.3x slower once a lane was its own function).
@_inline
def _bound_exp(x):
    return _enclose_exp(x, C1, C2, INV, TABLE, EXP_COEF, EXPM1_COEF, LN2, LOGC, LOG_COEF, K7, KL,
                    LIPSCHITZ)


@_inline
def _bound_log(x):
    return _enclose_log(x, C1, C2, INV, TABLE, EXP_COEF, EXPM1_COEF, LN2, LOGC, LOG_COEF, K7, KL,
                    LIPSCHITZ)


@_inline
def _bound_tanh(x):
    return _enclose_tanh(x, C1, C2, INV, TABLE, EXP_COEF, EXPM1_COEF, LN2, LOGC, LOG_COEF, K7, KL,
                    LIPSCHITZ)


@_inline
def _bound_sigmoid(x):
    return _enclose_sigmoid(x, C1, C2, INV, TABLE, EXP_COEF, EXPM1_COEF, LN2, LOGC, LOG_COEF, K7, KL,
                    LIPSCHITZ)


@_inline
def _bound_reciprocal(x):
    return _enclose_reciprocal(x, C1, C2, INV, TABLE, EXP_COEF, EXPM1_COEF, LN2, LOGC, LOG_COEF, K7, KL,
                    LIPSCHITZ)


@_inline
def _bound_sqrt(x):
    return _enclose_sqrt(x, C1, C2, INV, TABLE, EXP_COEF, EXPM1_COEF, LN2, LOGC, LOG_COEF, K7, KL,
                    LIPSCHITZ)


@_inline
def _bound_rsqrt(x):
    return _enclose_rsqrt(x, C1, C2, INV, TABLE, EXP_COEF, EXPM1_COEF, LN2, LOGC, LOG_COEF, K7, KL,
                    LIPSCHITZ)


BOUND = (_bound_exp, _bound_log, _bound_tanh, _bound_sigmoid, _bound_reciprocal, _bound_sqrt, _bound_rsqrt)


# --------------------------------------------------------------------------------------------
# Rounding a float64 under a policy, and the decision per input
# --------------------------------------------------------------------------------------------

@_inline
def _round_magnitude(v, p, away):
    """Magnitude bits of |v| (a finite or infinite double) rounded to nearest (ties even, or
    away) in an 8-bit-exponent format with p significand bits: gradual underflow, overflow to
    Inf. Integer work on the double's fields; no libm call."""
    inf = 0xFF << (p - 1)
    bits = np.float64(v).view(np.uint64)
    field = np.int64((bits >> np.uint64(52)) & np.uint64(0x7FF))
    if field == 0x7FF:
        return inf
    if field == 0:
        return 0                                    # zero or a float64 subnormal: below 2^-1022
    e = field - 1023                                # 2^e <= |v| < 2^(e+1)
    if e > 127:
        return inf
    if e < -160:
        return 0                                    # below 2^-160: rounds to zero either way
    significand = (bits & np.uint64((1 << 52) - 1)) | np.uint64(1 << 52)
    shift = min(53 - p + max(-126 - e, 0), 63)      # bits below the target's last place
    q = np.int64(significand >> np.uint64(shift))
    rest = significand & np.uint64((1 << shift) - 1)
    half = np.uint64(1 << (shift - 1))
    if rest > half or (rest == half and (away or (q & 1) == 1)):
        q += 1
    magnitude = q if e < -126 else ((e + 126) << (p - 1)) + q
    return min(magnitude, inf)


@_inline
def round_bits(v, code):
    """The output pattern of float64 ``v`` under policy ``code`` (:data:`POLICY_CODES`),
    denormal results flushed to a zero of their sign."""
    negative = (np.float64(v).view(np.uint64) >> np.uint64(63)) != 0
    if code <= 1:
        bits = _round_magnitude(v, 24, code == 1) | (0x80000000 if negative else 0)
        return bits & 0x80000000 if bits & 0x7F800000 == 0 else bits
    if code <= 3:
        bits = _round_magnitude(v, 8, code == 3) | (0x8000 if negative else 0)
    else:
        fp32 = _round_magnitude(v, 24, False) | (0x80000000 if negative else 0)
        if code == 4:
            bits = (fp32 + 0x7FFF + ((fp32 >> 16) & 1)) >> 16
        else:
            bits = fp32 >> 16
    return bits & 0x8000 if bits & 0x7F80 == 0 else bits


@_frame
def decide_lane(enclosure, b, pcode, positive_domain, specials):
    """(expected pattern, undecided) of FP32 input pattern ``b``: the special inputs' table
    entries (``specials``, a tuple), else the pattern both ends of the enclosure round to, else
    (0, True). ``enclosure``: one of :data:`BOUND`, its constants bound in. One lane, for
    every frame that runs it (the CPU loop below, the GPU chunk)."""
    exponent = (b >> 23) & 0xFF
    negative = (b >> 31) != 0
    expected, undecided = np.int64(0), False
    if exponent == 0xFF:
        expected = specials[4] if b & 0x7FFFFF else (specials[3] if negative else specials[2])
    elif exponent == 0:                              # zero or denormal: zero under DAZ
        expected = specials[1] if negative else specials[0]
    elif negative and positive_domain:
        expected = specials[5]
    else:
        value = np.float64(np.uint32(b).view(np.float32))
        ok, lo, hi = enclosure(value)
        low = round_bits(lo, pcode) if ok else 0
        if ok and low == round_bits(hi, pcode):
            expected = low
        else:
            undecided = True
    return expected, undecided


@_frame
def _decide(enclosure, start, stop, x, expected, undecided, pcode, positive_domain, specials):
    for i in range(start, stop):
        expected[i], undecided[i] = decide_lane(enclosure, x[i], pcode, positive_domain,
                                                specials)


# One compiled loop per function, each inlining only its own enclosure: a run-time dispatch
# made every lane 8x slower, and one enclosure switch inlined into all seven loops took
# 25-30 s to compile per function (now 1-10 s).
@_jit
def _decide_exp(start, stop, x, expected, undecided, pcode, positive_domain, specials):
    _decide(_bound_exp, start, stop, x, expected, undecided, pcode, positive_domain, specials)


@_jit
def _decide_log(start, stop, x, expected, undecided, pcode, positive_domain, specials):
    _decide(_bound_log, start, stop, x, expected, undecided, pcode, positive_domain, specials)


@_jit
def _decide_tanh(start, stop, x, expected, undecided, pcode, positive_domain, specials):
    _decide(_bound_tanh, start, stop, x, expected, undecided, pcode, positive_domain, specials)


@_jit
def _decide_sigmoid(start, stop, x, expected, undecided, pcode, positive_domain, specials):
    _decide(_bound_sigmoid, start, stop, x, expected, undecided, pcode, positive_domain, specials)


@_jit
def _decide_reciprocal(start, stop, x, expected, undecided, pcode, positive_domain, specials):
    _decide(_bound_reciprocal, start, stop, x, expected, undecided, pcode, positive_domain, specials)


@_jit
def _decide_sqrt(start, stop, x, expected, undecided, pcode, positive_domain, specials):
    _decide(_bound_sqrt, start, stop, x, expected, undecided, pcode, positive_domain, specials)


@_jit
def _decide_rsqrt(start, stop, x, expected, undecided, pcode, positive_domain, specials):
    _decide(_bound_rsqrt, start, stop, x, expected, undecided, pcode, positive_domain, specials)


# One lane's decision per function, for the GPU frames (:mod:`.gpu_frames`): compiled for the
# GPU there, and under numba's CUDA simulator called from Python, where a function taking the
# enclosure as an argument could not be cached on disk (compiling it took 3-7 s a process).
_lane = jit.njit()
@_lane
def _decide_exp_lane(b, pcode, positive_domain, specials):
    return decide_lane(_bound_exp, b, pcode, positive_domain, specials)


@_lane
def _decide_log_lane(b, pcode, positive_domain, specials):
    return decide_lane(_bound_log, b, pcode, positive_domain, specials)


@_lane
def _decide_tanh_lane(b, pcode, positive_domain, specials):
    return decide_lane(_bound_tanh, b, pcode, positive_domain, specials)


@_lane
def _decide_sigmoid_lane(b, pcode, positive_domain, specials):
    return decide_lane(_bound_sigmoid, b, pcode, positive_domain, specials)


@_lane
def _decide_reciprocal_lane(b, pcode, positive_domain, specials):
    return decide_lane(_bound_reciprocal, b, pcode, positive_domain, specials)


@_lane
def _decide_sqrt_lane(b, pcode, positive_domain, specials):
    return decide_lane(_bound_sqrt, b, pcode, positive_domain, specials)


@_lane
def _decide_rsqrt_lane(b, pcode, positive_domain, specials):
    return decide_lane(_bound_rsqrt, b, pcode, positive_domain, specials)


DECIDE_LANE = tuple(globals()[f"_decide_{name}_lane"] for name in FUNCTIONS)


DECIDE = (_decide_exp, _decide_log, _decide_tanh, _decide_sigmoid, _decide_reciprocal,
          _decide_sqrt, _decide_rsqrt)


@_jit
def _arithmetic_probe(one, half_ulp, tiny, smallest_normal):
    """Values that differ unless the FPU rounds to nearest even and honours subnormals."""
    ties_down = (one + half_ulp) == one                         # 1 + 2^-53: tie to even
    ties_up = (one + 2.0 * half_ulp + half_ulp) == one + 4.0 * half_ulp
    subnormal_result = smallest_normal * 0.5 > 0.0 and smallest_normal * 0.5 < smallest_normal
    subnormal_operand = tiny + tiny == 2.0 * tiny and tiny > 0.0
    negative = (-one - half_ulp) == -one
    return ties_down and ties_up and subnormal_result and subnormal_operand and negative


def check_arithmetic() -> None:
    """Refuse to certify anything if float64 arithmetic is not IEEE round-to-nearest-even
    with subnormals (a library that set FTZ/DAZ or another rounding mode)."""
    if not _arithmetic_probe(1.0, 2.0 ** -53, TINY, 2.0 ** -1022):
        raise ArithmeticError_("float64 arithmetic here is not IEEE round-to-nearest-even "
                               "with subnormals (FTZ/DAZ or a rounding mode was set): the "
                               "FP32 reference's enclosures would not be proven")
