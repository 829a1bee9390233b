"""LogicalNot, the comparisons with a scalar (UnaryEq/Ne/Gt/Ge/Lt/Le at 0.5), UnaryMax/UnaryMin
at 0.0 and the IEEE class predicates (Isfinite/Isinf/Isposinf/Isneginf/Isnan) of the 2026-09-30
accuracy table. Wormhole and Blackhole run the same code; nothing branches on
``is_fp32_dest_acc_en`` and nothing rounds, so one kernel serves either Dst.

What the harness runs (tt-llk ``tests/helpers/include/sfpu_operations.h`` @008a3c3b,
``calculate_logical_not<false, InstrModLoadStore::DEFAULT, 32>``,
``calculate_unary_{eq,ne,gt,ge,lt,le}<false, 32>(0x3f000000)`` after ``unary_*_init``,
``calculate_unary_max_min<IS_MAX, false, 32>(0)`` after ``unary_max_min_init<IS_MAX>``, and
tt-llk ``_calculate_sfpu_isinf_isnan_<OP, false, 32>``.

Sources (facts only; every file is stored in several undated revisions):

* ``ckernel_sfpu_logical_not.h`` (metal, WH @06bd3735, index id 53070831201; the template the
  harness names): SFPLOAD, L1 = 0, SFPSETCC ``== 0`` on the raw bits, L1 = 1, SFPENCC, SFPSTORE.
  Raw bits: -0 (0x80000000) is not zero to SFPSETCC, so -0 gives 0.
* ``ckernel_sfpu_unary_comp.h`` (metal; modelled: index id 68789348630, the sfpi ``v_if(v OP s)
  / v_else`` bodies with ``unary_*_init`` as the harness calls them; BH @01105485 the same bodies
  with vConst0/vConst1). sfpi lowers ``v OP s`` to ``v - s`` (SFPMAD) and an SFPSETCC on the
  difference (raw sign: ``>=``/``<`` test the sign bit, ``==`` the zero pattern). Rivals: index
  id 59003503231 (``r = 0; v_if``, ``v - s >= 0`` for ge: the same values, but no ``unary_*_init``
  the harness calls), and draft reworks 58183111204 (SFPGT/SFPLE), 70411407351 / 70091090218
  (SFPSWAP, ``|v| + |s| <= inf``) that change only NaN, inf and subnormal answers; none of them
  has the 2-parameter call shape dated later than the harness, so the subtract form is modelled.
* ``ckernel_sfpu_unary_max_min.h`` (metal, WH @00b0fa3f, index id 52614050981): the scalar in
  vConstIntPrgm0 (L12), SFPSWAP of L0 against L12 (mod1 9: max, VEC_MIN_MAX: min), store. The
  SFPLOADMACRO schedule runs the same SFPSWAP; sign-magnitude order (-0 < +0).
* tt-llk ``ckernel_sfpu_isinf_isnan.h``: the exexp / exman9 / lz revision (index id 56861448509
  names ``exman``; sibling stored copies name ``exman9``): exponent == 128 and mantissa ==/!= 0;
  the sign from ``lz(bits) != 0``. The ``sfpi::is_inf`` / ``is_nan`` revision (index id
  54743718452) classifies the same bit patterns; its lowering in tenstorrent/sfpi was not read.
"""
from __future__ import annotations

import struct

from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (
    dst_reg,
    exexp,
    exman9,
    lz,
    reinterpret,
    v_else,
    v_endif,
    v_if,
    vec_min_max,
    vFloat,
    vUInt,
)

TT_METAL = "tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
TT_LLK = "tt-metal tt_metal/tt-llk/tt_llk_{wormhole_b0,blackhole}/common/inc/sfpu/"
COMPARE_BITS = 0x3F000000                      # the harness's 0.5 (UNARY_COMP_THRESHOLD)
COMPARE_WITH = struct.unpack("<f", struct.pack("<I", COMPARE_BITS))[0]
MAX_MIN_WITH = 0.0                             # UNARY_MAX_MIN_VALUE
INF_NAN_EXPONENT = 128                         # SFPEXEXP of an all-ones exponent field


def logical_not_2026_09():
    """``calculate_logical_not<APPROX, DEFAULT, 32>``: 1 where the raw bits are zero, else 0
    (SFPSETCC ``== 0``: -0 and NaN give 0)."""
    v = dst_reg[0]
    result = vFloat(0.0)
    with v_if(v == 0.0):
        result.assign(1.0)
    v_endif()
    dst_reg[0] = result


def _comparison(test: str, inverted: bool):
    """A ``calculate_unary_*`` body: ``v_if(v <test> s) {r = a} v_else {r = b}`` with
    ``a, b = 1, 0`` (or ``0, 1`` where ``inverted``: ne, ge, le)."""
    if_true, if_false = (0.0, 1.0) if inverted else (1.0, 0.0)

    def body():
        v = dst_reg[0]
        s = vFloat(COMPARE_WITH)
        condition = {"==": v == s, "<": v < s, ">": v > s}[test]
        with v_if(condition):
            v.assign(if_true)
        with v_else():
            v.assign(if_false)
        v_endif()
        dst_reg[0] = v
    return body


def _max_min(is_max: bool):
    """``calculate_unary_max_min<IS_MAX>``: SFPSWAP of the value with the scalar, the larger
    (max) or the smaller (min) stored."""
    def body():
        x = dst_reg[0]
        scalar = vFloat(vFloat(MAX_MIN_WITH))
        vec_min_max(x, scalar)                   # x = min, scalar = max
        dst_reg[0] = scalar if is_max else x
    return body


def _class_predicate(operation: str):
    """``_calculate_sfpu_isinf_isnan_<OP>``: SFPEXEXP, SFPEXMAN (no hidden bit), SFPLZ of the
    raw bits (0 leading zeros: sign set), combined under one ``v_if``."""
    def body():
        v = dst_reg[0]
        exponent = exexp(v)
        if operation == "isfinite":
            result = vFloat(1.0)
            with v_if(exponent == INF_NAN_EXPONENT):
                result.assign(0.0)
            v_endif()
        else:
            mantissa = exman9(v)
            result = vFloat(0.0)
            if operation == "isnan":
                condition = (exponent == INF_NAN_EXPONENT) & (mantissa != 0)
            else:
                condition = (exponent == INF_NAN_EXPONENT) & (mantissa == 0)
                if operation != "isinf":
                    leading_zeros = lz(reinterpret(vUInt, v))
                    sign = leading_zeros == 0 if operation == "isneginf" else leading_zeros != 0
                    condition = sign & condition
            with v_if(condition):
                result.assign(1.0)
            v_endif()
        dst_reg[0] = result
    return body


def _register(name, body, function, template, params, source, how, description):
    register_kernel(name, body, function=function, mode="accurate", dest="bf16",
                    template=template, params={"APPROXIMATION_MODE": False, **params},
                    provenance=f"{source}: {how}; no rounding", description=description)


_register("logical_not_2026_09", logical_not_2026_09, "logical_not", "calculate_logical_not",
          {"INSTRUCTION_MODE": "DEFAULT"},
          TT_METAL + "ckernel_sfpu_logical_not.h @06bd3735 (index id 53070831201)",
          "SFPSETCC == 0 on the raw bits (-0, NaN -> 0)",
          "LogicalNot row: calculate_logical_not<false, InstrModLoadStore::DEFAULT, 32>")
COMPARISONS = {"eq": ("equal_half", "==", False), "ne": ("not_equal_half", "==", True),
               "gt": ("greater_than_half", ">", False),
               "ge": ("greater_than_equal_half", "<", True),
               "lt": ("less_than_half", "<", False),
               "le": ("less_than_equal_half", ">", True)}
for _op, (_function, _test, _inverted) in COMPARISONS.items():
    _register(f"unary_{_op}_2026_09", _comparison(_test, _inverted), _function,
              f"calculate_unary_{_op}", {"value": "0x3f000000"},
              TT_METAL + "ckernel_sfpu_unary_comp.h (index id 68789348630; BH @01105485; rival "
              "59003503231 gives the same values, draft SFPGT/SFPSWAP reworks 58183111204, "
              "70411407351 not modelled)",
              f"v_if(v {_test} 0.5) {'0 else 1' if _inverted else '1 else 0'}: v - s (SFPMAD) "
              "and SFPSETCC on the difference",
              f"Unary{_op.capitalize()} row: calculate_unary_{_op}<false, 32>(0x3f000000)")
for _is_max, _function in ((True, "max_zero"), (False, "min_zero")):
    _which = "max" if _is_max else "min"
    _register(f"unary_{_which}_2026_09", _max_min(_is_max), _function,
              "calculate_unary_max_min", {"IS_MAX_OP": _is_max, "value": MAX_MIN_WITH},
              TT_METAL + "ckernel_sfpu_unary_max_min.h @00b0fa3f (index id 52614050981)",
              f"SFPSWAP with vConstIntPrgm0 = 0.0, the {_which} stored (sign-magnitude order; "
              "the SFPLOADMACRO schedule runs the same swap)",
              f"Unary{_which.capitalize()} row: unary_max_min_init<{str(_is_max).lower()}>; "
              f"calculate_unary_max_min<{str(_is_max).lower()}, false, 32>(0)")
for _operation in ("isfinite", "isinf", "isposinf", "isneginf", "isnan"):
    _register(f"{_operation}_2026_09", _class_predicate(_operation), _operation,
              "_calculate_sfpu_isinf_isnan_", {"operation": _operation},
              TT_LLK + "ckernel_sfpu_isinf_isnan.h (exexp/exman9/lz revision, index id "
              "56861448509; the sfpi::is_inf revision 54743718452 classifies alike)",
              "exponent == 128 (SFPEXEXP), mantissa == / != 0 (SFPEXMAN PAD9), sign from SFPLZ",
              f"{_operation.capitalize()} row: tt-llk _calculate_sfpu_isinf_isnan_"
              f"<SfpuType::{_operation}, false, 32>")
