"""Binary SFPU xlogy (x * ln y), 2026, both chips: ``calculate_sfpu_binary<APPROX,
BinaryOp::XLOGY, 8, ...>`` (the accuracy harness's SfpuXlogy row), in two revisions of the log
it calls.

Operands as in :mod:`kernels.binary_2026`: in0 = x at ``dst_reg[0]``, in1 = y at
``dst_reg[32]``; the result goes to tile 0.

Sources read (tenstorrent/tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/
llk_sfpu/ckernel_sfpu_binary.h``, Wormhole @02406b25, index id 70173998202; Blackhole @0085d978,
index id 70759225026, the same XLOGY arm): per row, ``result = 0``; where y < 0 (the sign bit:
-0 too) or ``y == NaN`` (a compare with a NaN constant, which sfpi lowers to y - NaN tested for
zero, so it never holds), the result is a quiet NaN; elsewhere y is stored into the output
tile's row, tt-llk's ``_calculate_log_body_<false>(0, out)`` rewrites that row with ln y in
place, and the result is the row read back times x. Nothing rounds: SFPSTORE narrows ln y to
a 16-bit Dst before the multiply, and the product after it. The program is the same for either
Dst mode (nothing in the arm reads ``is_fp32_dest_acc_en``). Init: ``_init_log_<APPROX>()``
(Prgm0 = ln 2, Prgm1 and Prgm2 the cubic's two leading coefficients).

The log body, tt-llk ``ckernel_sfpu_log.h`` ``_calculate_log_body_<HAS_BASE_SCALING=false>``:
m = y with its exponent set to 127 (in [1, 2)), ``m*(m*(m*Prgm1 + Prgm2) + C) + D`` (SFPMADs),
plus the unbiased exponent as a float times Prgm0 (one SFPMAD), -Inf where y is +0 (a raw
zero test), no other special case (+Inf and NaN read as exponent 128: about 89 plus the cubic).

* ``binary_xlogy_2026_09``: the cubic of tt-llk @c635ca695 (as ``kernels/log.py``'s
  ``log_legacy``): ln 2 ~ 0.692871 (0x3F315FFE), 0.1058, -0.7166, 2.0871, -1.4753 (max error
  about 1.4e-2). What the harness ran in September 2026, by two device reports: tt-metal
  issue #55131 (open, commented 2026-09-12: "xlogy(x, 1) returns x*1e-3", "xlogy(100.0, 1.0)
  ... 0.100005"; here ln 1 = 1.0000467e-3 and 0.1000047), and the harness's tolerance comment
  (|error| 0.50 in Float16_b, 0.116 in Float32 for x <= 8, the size of this cubic's error).
* ``binary_xlogy_minimax_2026_09``: the minimax cubic of tt-metal PR #55463 (opened 2026-09-04;
  tt-metal ``tt_metal/tt-llk/tt_llk_wormhole_b0/common/inc/sfpu/
  ckernel_sfpu_log.h`` @1d65f95a, index id 58952895293, "max |error| over [1, 2] = 4.4e-04"):
  ln 2 = 0x3F317218, 0.10968964, -0.72910421, 2.11263230, -1.49277612. When it merged is not
  recorded in what was read.
"""
from __future__ import annotations

import math

from kernels.binary_2026 import IN1
from kernels.common import as_float
from kernels.log import TT_LLK_LOG, tt_llk_log_body, tt_llk_log_init
from sfpu_sim.registry import register_kernel
from sfpu_sim.sfpi import dst_reg, v_else, v_endif, v_if, vFloat

BINARY_H = ("tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
            "ckernel_sfpu_binary.h (WH @02406b25, index id 70173998202; BH @0085d978, index id "
            "70759225026)")
NAN = math.nan
# (ln 2, the cubic's coefficients of m**3, m**2, m, 1) as FP32 patterns of the source's literals
MINIMAX_LOG = tuple(as_float(bits) for bits in (
    0x3F317218, 0x3DE0A4F6, 0xBF3AA693, 0x4007355E, 0xBFBF134A))
CHEBYSHEV_LOG = TT_LLK_LOG


def xlogy(constants):
    """The XLOGY arm of ``calculate_sfpu_binary`` over one row (module docstring)."""
    def body():
        in0 = dst_reg[0]
        in1 = dst_reg[IN1]
        result = vFloat(0.0)
        with v_if((in1 < 0.0) | (in1 == NAN)):
            result.assign(NAN)
        with v_else():
            dst_reg[0] = in1
            tt_llk_log_body(constants)
            result.assign(dst_reg[0] * in0)
        v_endif()
        dst_reg[0] = result
    return body


for _name, _constants, _what, _log in (
        ("binary_xlogy_2026_09", CHEBYSHEV_LOG, "SfpuXlogy row: BinaryOp::XLOGY",
         "tt-llk ckernel_sfpu_log.h cubic (tt-llk @c635ca695; before PR #55463, issue #55131 "
         "open): ln2 0.692871, 0.1058, -0.7166, 2.0871, -1.4753"),
        ("binary_xlogy_minimax_2026_09", MINIMAX_LOG, "BinaryOp::XLOGY with PR #55463's log",
         "tt-llk ckernel_sfpu_log.h minimax cubic (PR #55463, opened 2026-09-04; tt-metal WH "
         "@1d65f95a, index id 58952895293): ln2 0x3F317218, 0.10968964, -0.72910421, "
         "2.11263230, -1.49277612")):
    register_kernel(
        _name, xlogy(_constants), init=tt_llk_log_init(_constants), function="xlogy", operands=2,
        template="calculate_sfpu_binary",
        params={"APPROXIMATION_MODE": False, "BINOP": "BinaryOp::XLOGY", "ITERATIONS": 8},
        provenance=f"{BINARY_H}: NaN where y < 0 (sign bit); else y stored to the output row, "
                   f"_calculate_log_body_<false> in place, the row read back times x; no "
                   f"rounding. Log: {_log}",
        description=f"{_what}, either Dst, Sep 2026")
