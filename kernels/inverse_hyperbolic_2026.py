"""acosh / asinh / atanh kernels as of 2026-09-30: BF16 Dst and FP32 Dst.

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_trigonometry.h`` (the inverse hyperbolics live there, not in a file of
their own; no ``ckernel_sfpu_inverse_hyperbolic.h`` is stored): ``calculate_acosh`` /
``calculate_asinh`` / ``calculate_atanh<APPROX, is_fp32_dest_acc_en, ITERATIONS>`` with
``init_inverse_hyperbolic`` / ``init_atanh`` (Jason Davies, 2026: the log1p rewrite). Read in
the Wormhole revision index id 54489898827 (the trig file whose ``_sfpu_reciprocal_gt0_`` is
Wormhole's magic-seed form; its sin/cos/tan are PR #37714's, its atan pre-#50112) and in the BH
file of PR #57292's branch (index id 68755511596, on main a406ad5c, 2026-09-22): the three
bodies and ``_sfpu_sqrt_ge0_`` are the same text in both; the inits differ only in spelling
(``log1p_init<APPROX, false, fp32>`` vs ``_init_log1p_body_constants_<fp32>`` plus
reset_counters: the same Prgm0..2 as :mod:`kernels.log1p_2026`). Dated: both carry the log1p
route and 3-parameter templates that match the harness's calls (sfpu_operations.h @008a3c3b).

Every body builds a log1p argument, **stores it to Dst and loads it back** (the source does this
to cut register pressure), then runs ``calculate_log1p_fp32<fp32>`` (:func:`kernels.
log1p_2026.log1p_bf16` / ``log1p_fp32``). With a 16-bit Dst that round trip truncates the
argument to the Dst format (SFPSTORE), which is what limits the BF16-Dst kernels' accuracy.

* ``_sfpu_sqrt_ge0_<fp32>(x)`` (x >= 0): ``y = bits(0x5f1110a0 - (bits(x) >> 1))``, two (FP32
  Dst: three) steps ``y = y*(1.5 - (x/2 * y)*y)``, then ``a = x*y``, ``a = a + 0.5*(x - a*a)*y``;
  ``a = 0`` where ``x == 0``.
* acosh: ``arg = x - 1``, plus ``sqrt_ge0((x + 1)*arg)`` where ``x < 2**28``; Dst round trip;
  ``r = log1p(arg)``, ``+ ln 2`` where ``x >= 2**28``; ``r = 0`` at ``x == 1``, NaN below 1.
* asinh: ``arg = |x| - 1`` where ``|x| >= 2**28``, else where ``|x| >= 0.75`` ``arg = |x| +
  (x*x) * reciprocal_gt0(1 + sqrt_ge0(x*x + 1))``, else 0; Dst round trip; ``log1p``, ``+ ln 2``
  for the large ones; below 0.75 ``|x| * P(x*x)`` (degree-6 Horner); sign of x.
* atanh: ``a = |x|`` (0 where ``|x| >= 1``); Dst <- ``(a + a) * reciprocal_gt0(1 - a)``;
  ``copysgn(0.5 * log1p(.), x)``; NaN where ``|x| > 1``, ``copysgn(Inf, x)`` where ``|x| == 1``.
* BF16 Dst: ``convert<vFloat16b>(r, Nearest)`` last. ``_sfpu_reciprocal_gt0_`` is the only
  chip-specific piece (:mod:`kernels.hyperbolic`).
"""
from __future__ import annotations

import math

from kernels.hyperbolic import reciprocal_gt0, reciprocal_gt0_fp32
from kernels.log1p_2026 import log1p_bf16, log1p_fp32, log1p_fp32_init, log1p_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, addexp, dst_reg, float_to_fp16b, reinterpret, setsgn,
                           v_elseif, v_endif, v_if, vFloat, vInt, vUInt)

LOG1P_LARGE = 268435456.0            # 2**28: x*x would lose the 1 (and overflow near 2**64)
LN2 = 0.6931471805599453             # a float literal: float(ln 2) = 0x3F317218
SQRT_SEED = 0x5F1110A0               # inverse-square-root magic seed (as the shared sqrt's)
ASINH_SMALL = 0.75
# asinh(a) = a * P(a*a) on [0, 0.75], highest degree first (the source's Horner order)
ASINH_POLY = (4.375355784e-03, -1.484858524e-02, 2.785361186e-02, -4.417778924e-02,
              7.495806366e-02, -1.666652262e-01, 1.0)


def sqrt_ge0(x, fp32: bool):
    """``_sfpu_sqrt_ge0_<fp32>(x)`` for x >= 0 (constants as immediates: log1p owns Prgm0..2)."""
    half_x = addexp(x, -1)
    i = reinterpret(vInt, reinterpret(vUInt, x) >> 1)
    y = reinterpret(vFloat, SQRT_SEED - i)
    for _ in range(3 if fp32 else 2):
        y = y * (1.5 - half_x * y * y)
    a = x * y
    a = a + 0.5 * (x - a * a) * y
    with v_if(x == 0.0):
        a.assign(0.0)
    v_endif()
    return a


def _log1p(x, fp32: bool):
    return log1p_fp32(x) if fp32 else log1p_bf16(x)


def _finish(result, fp32: bool):
    """The store: BF16 Dst rounds to BF16 first (SFP_STOCH_RND nearest)."""
    dst_reg[0] = result if fp32 else reinterpret(vFloat, float_to_fp16b(result, 0))


def acosh_body(fp32: bool):
    """One iteration of ``calculate_acosh<false, fp32>``."""
    inp = dst_reg[0]
    arg = inp - 1.0
    with v_if(inp < LOG1P_LARGE):
        arg.assign(arg + sqrt_ge0((inp + 1.0) * arg, fp32))
    v_endif()
    dst_reg[0] = arg                          # 16-bit Dst: truncated here
    res = _log1p(dst_reg[0], fp32)
    with v_if(inp >= LOG1P_LARGE):
        res.assign(res + LN2)
    v_endif()
    with v_if(inp == 1.0):
        res.assign(0.0)
    with v_elseif(inp < 1.0):
        res.assign(math.nan)
    v_endif()
    _finish(res, fp32)


def asinh_body(fp32: bool):
    """One iteration of ``calculate_asinh<false, fp32>``."""
    recip = reciprocal_gt0_fp32 if fp32 else reciprocal_gt0
    inp = dst_reg[0]
    arg = vFloat(0.0)
    with v_if(abs(inp) >= LOG1P_LARGE):
        arg.assign(abs(inp) - 1.0)
    with v_elseif(abs(inp) >= ASINH_SMALL):
        root = sqrt_ge0(inp * inp + 1.0, fp32)
        arg.assign(abs(inp) + (inp * inp) * recip(1.0 + root))
    v_endif()
    dst_reg[0] = arg                          # 16-bit Dst: truncated here
    res = _log1p(dst_reg[0], fp32)
    with v_if(abs(inp) >= LOG1P_LARGE):
        res.assign(res + LN2)
    v_endif()
    with v_if(abs(inp) < ASINH_SMALL):
        s = inp * inp
        p = vFloat(ASINH_POLY[0])
        for c in ASINH_POLY[1:]:
            p = p * s + c
        res.assign(abs(inp) * p)
    v_endif()
    _finish(setsgn(res, inp), fp32)


def atanh_body(fp32: bool):
    """One iteration of ``calculate_atanh<false, fp32>``."""
    recip = reciprocal_gt0_fp32 if fp32 else reciprocal_gt0
    inp = dst_reg[0]
    a = abs(inp)
    with v_if(a >= 1.0):
        a.assign(0.0)
    v_endif()
    den = 1.0 - a
    dst_reg[0] = (a + a) * recip(den)         # 16-bit Dst: truncated here
    res = _log1p(dst_reg[0], fp32)
    res = setsgn(0.5 * res, inp)
    with v_if(abs(inp) > 1.0):
        res.assign(math.nan)
    with v_elseif(abs(inp) == 1.0):
        res.assign(setsgn(vFloat(math.inf), inp))
    v_endif()
    _finish(res, fp32)


def acosh_2026_09():
    acosh_body(False)


def acosh_fp32_2026_09():
    acosh_body(True)


def asinh_2026_09():
    asinh_body(False)


def asinh_fp32_2026_09():
    asinh_body(True)


def atanh_2026_09():
    atanh_body(False)


def atanh_fp32_2026_09():
    atanh_body(True)


SOURCE = ("tt-metal ckernel_sfpu_trigonometry.h calculate_{fn}<false, {fp32}> + {init} (2026 "
          "log1p rewrite; read WH index id 54489898827 and BH PR #57292 branch id 68755511596 "
          "on main a406ad5c, 2026-09-22, same bodies): {what}; the log1p argument round-trips "
          "through Dst (truncated on a 16-bit Dst), calculate_log1p_fp32<{fp32}>{rounding}")
WHAT = {"acosh": "log1p((x-1) + sqrt_ge0((x+1)(x-1))) below 2^28, log1p(x-1) + ln2 above, 0 "
                 "at 1, NaN below 1",
        "asinh": "|x| P(x^2) below 0.75, log1p(|x| + x^2 reciprocal_gt0(1 + sqrt_ge0(x^2+1))) "
                 "below 2^28, log1p(|x|-1) + ln2 above; sign of x",
        "atanh": "copysgn(log1p(2a reciprocal_gt0(1-a))/2, x), a = |x|; +-Inf at |x| = 1, NaN "
                 "beyond"}
for _fn, _init in (("acosh", "init_inverse_hyperbolic"), ("asinh", "init_inverse_hyperbolic"),
                   ("atanh", "init_atanh")):
    for _fp32 in (False, True):
        _name = f"{_fn}_fp32_2026_09" if _fp32 else f"{_fn}_2026_09"
        register_kernel(
            _name, globals()[_name], init=log1p_fp32_init if _fp32 else log1p_init,
            function=_fn, mode="accurate", dest="fp32" if _fp32 else "bf16",
            template=f"calculate_{_fn}",
            params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en": _fp32},
            **({"instance_of": f"{_fn}_2026_09"} if _fp32 else {}),
            provenance=SOURCE.format(fn=_fn, fp32=str(_fp32).lower(),
                                     init=f"{_init}<false, {str(_fp32).lower()}>",
                                     what=WHAT[_fn],
                                     rounding="" if _fp32 else "; convert<vFloat16b>(., "
                                                               "Nearest)"),
            description=f"ttnn.{_fn} " + ("with an FP32 Dst" if _fp32 else "on a BF16 tensor")
                        + ", Sep 2026")
