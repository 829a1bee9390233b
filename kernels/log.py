"""Natural logarithm kernels (tt-metal and tt-llk ``ckernel_sfpu_log.h``).

``log``: what ttnn.log runs on a BF16 tensor by default in Jan 2026. tenstorrent/tt-metal
``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/ckernel_sfpu_log.h`` as
rewritten by PR #33391 "Fix ttnn.log accuracy" (opened 2025-11-28, merged Dec 2025; the version
read is the search-index revision id 10165047131, which uses the Jan-2026 sfpi API
``float_to_fp16b(x, 0)`` / ``int32_to_float(e, 0)``; the later WH revision @03725f262 has the
same math with ``RoundMode::NearestEven``). ttnn dispatch: ``log_tile<fast_and_approx=false>``
-> ``calculate_log<APPROX=false, FAST_APPROX=false, HAS_BASE_SCALING=false,
is_fp32_dest_acc_en=false>`` -> ``calculate_log_body<false, false, false>``; init
``log_init<false, false, false>``. Identical on Wormhole and Blackhole.

``log_fp32``: the same file's FP32-Dst body ``calculate_log_f32_body<false>`` (same PR): range
reduction to [sqrt(2)/2, sqrt(2)], ``z = (m-1) * _sfpu_reciprocal_<2>(m+1)``, odd atanh series.
It uses the chip's own reciprocal (kernels/reciprocal.py), so its bits differ between Wormhole
and Blackhole. Wormhole's init is ``_init_reciprocal_<false, false>`` (the quadratic-seed
constants). On Blackhole that same call meant ``_init_reciprocal_<APPROX=false,
is_fp32_dest_acc_en=false>`` once tt-llk #834 (2025-11-26) added the is_fp32_dest_acc_en
parameter: the SFPLOADMACRO setup of fast_8b_3c, which leaves Prgm0 (the 2.0 of the Newton
step) unset. tt-metal PR #33803 (opened 2025-12-04, merged Dec 2025, "ttnn.log calls wrong
recip init on Blackhole for float32") fixed it: ``_init_sfpu_reciprocal_<false>`` (Prgm0 = 2.0)
plus Prgm1 = sqrt(2), Prgm2 = ln 2 read by the body. The Jan-2026 Blackhole file is read from a
2026 tt-metal analysis document that quotes it (index id 52242953225; its bf16 body matches
10165047131 line for line); the broken Dec-2025 interim is not registered (its result depends
on whatever an earlier kernel left in Prgm0).

``log_legacy``: tenstorrent/tt-llk ``tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/
ckernel_sfpu_log.h`` ``_calculate_log_body_<false>`` / ``_init_log_`` (math unchanged from 2024
to the tt-llk freeze; commit c635ca695, 2026-01-30): the cubic on [1, 2) with constants 0.1058,
-0.7166 (the comment's derivation says -0.7116), 2.0871, -1.4753 and ln2 ~ 0.692871; no final
rounding (the BF16 SFPSTORE truncates). This is what ttnn.log ran before PR #33391.

Special values, as the code implements them (the tests check these): the Jan-2026 bf16 body
sets +0 -> -Inf, +Inf -> +Inf, and x < 0 (raw sign bit, so -0 too), -Inf and NaN -> quiet NaN,
which ``float_to_fp16b`` then turns into +Inf (the source's own comment: "returns nan for fp32
and inf for bf16"). Denormal inputs are not zero to the raw-bits ``in == 0`` test: they go
through the polynomial as 2**-127 * 1.m (about -88). ``log_fp32`` gives NaN for x < 0.
"""
from __future__ import annotations

from kernels.common import polyval
from kernels.reciprocal import reciprocal, reciprocal_init
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    dst_reg,
    exexp,
    float_to_fp16b,
    int32_to_float,
    reinterpret,
    setexp,
    setman,
    setsgn,
    v_else,
    v_elseif,
    v_endif,
    v_if,
    vConst1,
    vConstFloatPrgm0,
    vConstFloatPrgm1,
    vConstFloatPrgm2,
    vConstNeg1,
    vFloat,
    vInt,
    vUInt,
)

INF, NAN = float("inf"), float("nan")
LN2 = 0.69314718246459961          # fp32 0x3F317218
SQRT2 = 1.4142135381698608         # fp32 0x3FB504F3


# --------------------------------------------------------------------------------------------
# Jan 2026 (PR #33391), BF16 Dst
# --------------------------------------------------------------------------------------------

def log_init():
    """``log_init<APPROX=false, FAST_APPROX=false, is_fp32_dest_acc_en=false>``."""
    vConstFloatPrgm0.assign(LN2)
    vConstFloatPrgm1.assign(-2.0069785118103027)
    vConstFloatPrgm2.assign(3.767500400543213)


def exponent_as_float(x):
    """The unbiased exponent of x as a float: SFPEXEXP gives two's complement, SFPCAST reads
    sign-magnitude, so negative exponents are converted first (as both device log kernels do)."""
    exp = exexp(x)
    with v_if(exp < 0):
        exp.assign(setsgn(~exp + 1, 1))
    v_endif()
    return int32_to_float(exp, 0)


def log_body_bf16(x_in, fast_approx: bool = False):
    """``calculate_log_body<FAST_APPROX, HAS_BASE_SCALING=false, is_fp32_dest_acc_en=false>``:
    ln(x) = e*ln2 + P5(m), m = x with its exponent set to 127 (in [1, 2)), P5 the Sollya
    fpminimax(log(x), 5, [1+2^-20, 2]) polynomial, then the specials and float_to_fp16b."""
    x = setexp(x_in, 127)
    series_result = polyval(x, vConstFloatPrgm1, vConstFloatPrgm2, -2.800232410430908,
                            1.3681391477584839, -0.3706687390804291, 0.04224011301994324)

    result = exponent_as_float(x_in) * vFloat(vConstFloatPrgm0) + series_result

    with v_if(x_in == 0.0):                     # ln(0) = -inf
        result.assign(-INF)
    v_endif()

    if not fast_approx:
        exp2 = exexp(x_in)
        with v_if(reinterpret(vInt, x_in) == vInt(0x7F800000)):
            result.assign(INF)                  # +inf -> +inf
        with v_elseif((exp2 == 128) | (x_in < 0.0)):
            result.assign(NAN)                  # NaN, -inf, negative -> NaN (Inf once in BF16)
        v_endif()

    return reinterpret(vFloat, float_to_fp16b(result, 0))


def log():
    """One iteration of ``calculate_log<false, false, false, false>`` (ttnn.log, BF16 Dst)."""
    x = dst_reg[0]
    dst_reg[0] = log_body_bf16(x)


# --------------------------------------------------------------------------------------------
# Jan 2026 (PR #33391), FP32 Dst
# --------------------------------------------------------------------------------------------

def log_fp32_init_wormhole():
    """``log_init<false, false, is_fp32_dest_acc_en=true>`` on Wormhole:
    ``_init_reciprocal_<false, false>`` (the three quadratic-seed constants fill Prgm0..2)."""
    reciprocal_init()


def log_fp32_init_blackhole():
    """The same on Blackhole, after tt-metal PR #33803 (2025-12-04, "ttnn.log calls wrong recip
    init on Blackhole for float32"): ``_init_sfpu_reciprocal_<false>`` (Prgm0 = 2.0), Prgm1 =
    sqrt(2), Prgm2 = ln 2."""
    reciprocal_init()
    vConstFloatPrgm1.assign(SQRT2)
    vConstFloatPrgm2.assign(LN2)


def reciprocal_2_wormhole_in_place(in_):
    """tt-llk Wormhole ``_sfpu_reciprocal_<2>(in)`` (c635ca695), the same operations as
    ``kernels.reciprocal.reciprocal(x, 2)`` on Wormhole, written so that it fits in the LRegs
    left inside ``calculate_log_f32_body`` (four outer values live: result, exp, m-1, m+1):
    the updates are in place (``y.assign``, as the C++ assigns ``y = ...``) and ``scale *=
    0.5`` comes before the first ``t = 1 - x*y`` instead of after it. The two are independent
    lanewise operations, so the bits are the same (the tests compare every input against the
    shared building block); sfpi-gcc, which shares a dying source's register with the result
    and schedules freely, needs no such help."""
    negative_x = setman(vConstNeg1, reinterpret(vInt, in_))     # -mantissa in (-2, -1]
    y = vConstFloatPrgm1 + vConstFloatPrgm0 * negative_x       # quadratic seed, step 1
    scale_bits = ~reinterpret(vUInt, in_)                       # exponent 255 - e
    y.assign(vConstFloatPrgm2 + y * negative_x)                 # quadratic seed, step 2
    scale = setman(reinterpret(vFloat, scale_bits), 0)
    scale *= 0.5                                                # exponent 254 - e
    t = vConst1 + negative_x * y                                # Newton 1
    y.assign(y + y * t)
    t.assign(vConst1 + negative_x * y)                          # Newton 2
    y.assign(y + y * t)
    y.assign(y * scale)
    return setsgn(y, in_)


def log_body_fp32(val, sqrt2, ln2, reciprocal_2):
    """``calculate_log_f32_body<HAS_BASE_SCALING=false>``, with what differs per chip passed
    in: Wormhole writes sqrt(2) and ln 2 as literals, the Blackhole file (PR #33803) reads them
    from Prgm1 / Prgm2 (the same FP32 values, so the same bits, in fewer instructions and
    registers); ``reciprocal_2`` is that chip's ``_sfpu_reciprocal_<2>``."""
    result = vFloat()
    exp = exexp(val)                              # debiased exponent

    with v_if(reinterpret(vInt, val) == vInt(0x7F800000)):
        result.assign(INF)
    with v_elseif((exp == 128) | (val < 0.0)):
        result.assign(NAN)
    with v_elseif(val == 0.0):
        result.assign(-INF)
    with v_else():
        m = setexp(val, 127)                      # [1, 2)
        with v_if(m >= sqrt2):                    # -> [sqrt(2)/2, sqrt(2))
            m.assign(m * 0.5)
            exp.assign(exp + 1)
        v_endif()

        m_minus_1 = m - vConst1
        m_plus_1 = m + vConst1
        m_plus_1_recip = reciprocal_2(m_plus_1)
        z = m_minus_1 * m_plus_1_recip
        z2 = z * z
        # ln m = 2 z (1 + z^2/3 + z^4/5 + z^6/7 + z^8/9 + z^10/11)
        p = polyval(z2, vConst1, 0.3333333333333333, 0.2, 0.14285714285714285,
                    0.1111111111111111, .09090909090909091)
        ln_m = 2.0 * (z * p)

        with v_if(exp < 0):
            exp_abs = ~exp + 1
            exp.assign(setsgn(exp_abs, 1))
        v_endif()

        expf = int32_to_float(exp, 0)
        result.assign(expf * ln2 + ln_m)
    v_endif()
    return result


def log_fp32_wormhole():
    """One iteration of ``calculate_log<false, false, false, is_fp32_dest_acc_en=true>`` on
    Wormhole: literal constants, the in-place reciprocal that fits beside four live values."""
    x = dst_reg[0]
    dst_reg[0] = log_body_fp32(x, SQRT2, LN2, reciprocal_2_wormhole_in_place)


def log_fp32_blackhole():
    """The same on Blackhole: sqrt(2) and ln 2 from Prgm1 / Prgm2, the shared reciprocal."""
    x = dst_reg[0]
    dst_reg[0] = log_body_fp32(x, vConstFloatPrgm1, vConstFloatPrgm2,
                               lambda v: reciprocal(v, 2))


# --------------------------------------------------------------------------------------------
# Before PR #33391: tt-llk _calculate_log_body_
# --------------------------------------------------------------------------------------------

# tt-llk _init_log_ / _calculate_log_body_ constants: (ln 2 in Prgm0, the cubic's leading
# coefficients in Prgm1 and Prgm2, its last two as literals), c635ca695's (ln2 to 3 bf16-ish
# digits; the comment's derivation says -0.7116 where the init writes -0.7166).
TT_LLK_LOG = (0.692871, 0.1058, -0.7166, 2.0871, -1.4753)


def tt_llk_log_init(constants=TT_LLK_LOG):
    """tt-llk ``_init_log_<false>`` with ``constants`` (ln 2, then the cubic's)."""
    def init():
        vConstFloatPrgm0.assign(constants[0])
        vConstFloatPrgm1.assign(constants[1])
        vConstFloatPrgm2.assign(constants[2])
    return init


def tt_llk_log_body(constants=TT_LLK_LOG) -> None:
    """tt-llk ``_calculate_log_body_<HAS_BASE_SCALING=false>(0, 0)``: ln of Dst tile 0's row,
    written back in place: the cubic on [1, 2) in m = setexp(in, 127), + exponent * Prgm0,
    +0 -> -Inf (a raw zero test), stored without rounding."""
    in_ = dst_reg[0]
    x = setexp(in_, 127)

    a = vFloat(vConstFloatPrgm1)
    b = vFloat(vConstFloatPrgm2)
    series_result = x * (x * (x * a + b) + constants[3]) + constants[4]

    result = exponent_as_float(in_) * vFloat(vConstFloatPrgm0) + series_result

    with v_if(in_ == 0.0):
        result.assign(-INF)
    v_endif()

    dst_reg[0] = result


# --------------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------------


register_kernel(
    "log", log, init=log_init, function="log", mode="accurate", dest="bf16",
    template="calculate_log",
    params={"APPROXIMATION_MODE": False, "FAST_APPROX": False, "HAS_BASE_SCALING": False,
            "is_fp32_dest_acc_en": False},
    provenance="tt-metal ckernel_sfpu_log.h calculate_log_body<FAST_APPROX=false, "
               "HAS_BASE_SCALING=false, false>, PR #33391 (Dec 2025; index revision "
               "10165047131), live through Jan 2026: degree-5 Sollya minimax of log on [1, 2] "
               "in m = setexp(x, 127), + SFPCAST(exponent)*ln2, specials, float_to_fp16b(r, 0)",
    description="ttnn.log default (accurate) on a BF16 tensor")

register_kernel(
    "log_legacy", tt_llk_log_body, init=tt_llk_log_init(), function="log", mode="accurate", dest="bf16",
    provenance="tt-llk ckernel_sfpu_log.h _calculate_log_body_<false> / _init_log_ (2024 "
               "to Jan 2026, c635ca695), what ttnn.log ran before PR #33391 (Dec 2025): cubic "
               "0.1058/-0.7166/2.0871/-1.4753 on [1, 2), + exponent*0.692871, 0 -> -Inf, no "
               "rounding (SFPSTORE truncates)",
    description="ttnn.log before Dec 2025 (tt-llk cubic, truncated)")


register_kernel(
    "log_fp32", {"wormhole": log_fp32_wormhole, "blackhole": log_fp32_blackhole},
    init={"wormhole": log_fp32_init_wormhole, "blackhole": log_fp32_init_blackhole},
    function="log", mode="accurate", dest="fp32",
    template="calculate_log",
    params={"APPROXIMATION_MODE": False, "FAST_APPROX": False, "HAS_BASE_SCALING": False,
            "is_fp32_dest_acc_en": True},
    instance_of="log",
    provenance="tt-metal ckernel_sfpu_log.h calculate_log_f32_body<false>, PR #33391 "
               "(Dec 2025; index revision 10165047131), live through Jan 2026: m in "
               "[sqrt2/2, sqrt2), z = (m-1)*_sfpu_reciprocal_<2>(m+1), 2z(1 + z^2/3 + ... "
               "+ z^10/11) + e*ln2; init: WH _init_reciprocal_<false, false>, BH (PR "
               "#33803, Dec 2025) _init_sfpu_reciprocal_<false> + Prgm1 = sqrt2, Prgm2 = ln2",
    description="ttnn.log on an FP32 tensor (fp32_dest_acc_en)")
