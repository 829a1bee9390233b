"""An sfpi-like Python DSL: write an SFPU kernel nearly line for line as in sfpi C++, get the
Program of real SFPU instructions the device would run.

Owns: tracing Python code into instructions, the lowering of sfpi operations (arithmetic,
comparisons, predication, library functions), register allocation onto LReg 0-7, and the
chip's scheduling rules (SFPNOPs where the hazard rules of :mod:`sfpu_sim.arch` need them).
Knows nothing of references or reports.

Sources: tenstorrent/sfpi ``include/sfpi.h``, ``include/{wormhole,blackhole}/sfpi_lib.h``
(commit 0de2538, 2026-01-29); the compare lowering of tenstorrent/sfpi-gcc
``gcc/config/riscv/rvtt-{wh,bh}.c`` (``rvtt_*_emit_sfpxfcmps``/``sfpxfcmpv``/``sfpxiadd``);
the kernels written with them, tenstorrent/tt-llk ``common/inc/sfpu/ckernel_sfpu_*.h`` (c635ca695).

A kernel is a Python function using the names below; :func:`trace` runs it and returns a
:class:`~sfpu_sim.isa.spec.Program` whose every instruction names the kernel's source line::

    def tanh_body():
        x = dst_reg[0]
        v = abs(x)
        ...
        dst_reg[0] = result

    program = trace(tanh_body, "blackhole")

Python cannot overload plain assignment, so assigning to an existing variable (which sfpi
does with ``=``, predicated inside ``v_if``) is ``x.assign(expr)`` (or ``x += ...``,
``x *= ...``); ``x = expr`` inside a ``v_if`` makes a new value that only the enabled lanes
hold, and reading it after ``v_endif()`` is an error. ``v_if``/``v_elseif``/``v_else`` are
context managers and a chain ends with ``v_endif()``, as in sfpi::

    with v_if(x < 0.0):
        y.assign(-x)
    with v_else():
        y.assign(x)
    v_endif()

Lowering choices (the bits, not only the instruction count, depend on them):

* ``a * b`` is SFPMUL (``a*b + 0``), ``a + b`` is SFPADD (``a*1.0 + b``), ``a - b`` one SFPMAD
  (``b * -1.0 + a``, the same bits as sfpi's negate-and-add); a product used exactly once, by
  an addition or subtraction in the same predication region, is fused into one SFPMAD (one
  rounding), as the sfpi compiler's combine pass does: Horner steps are single SFPMADs.
* A float constant is one SFPLOADI when it is a BF16 or FP16A pattern, two otherwise; 0.0,
  1.0, -1.0 and the named constants use the constant registers. ``s2vFloat16b`` truncates.
* Comparisons follow sfpi-gcc: against 0.0 an SFPSETCC on the raw bits (so -0.0 < 0.0 is
  true); otherwise ``tmp = ref * -1.0 + x`` (SFPMAD) then SFPSETCC on ``tmp``; ``<=``/``>`` as
  ``>= 0`` then ``!= 0`` (and SFPCOMPC for ``<=``). ``v_if`` pushes the CC stack, ``v_else``
  complements, ``v_endif`` pops.
"""
from __future__ import annotations

from sfpu_sim.sfpi.library import (
                                   abs,
                                   addexp,
                                   approx_exp,
                                   approx_recip,
                                   exexp,
                                   exexp_nodebias,
                                   exman8,
                                   exman9,
                                   float_to_fp16a,
                                   float_to_fp16b,
                                   float_to_int8,
                                   float_to_int16,
                                   float_to_uint8,
                                   float_to_uint16,
                                   int32_to_float,
                                   lut,
                                   lut2,
                                   lut2_sign,
                                   lut_sign,
                                   lz,
                                   reinterpret,
                                   setexp,
                                   setman,
                                   setsgn,
                                   shft,
                                   vec_min_max,
                                   vec_swap,
)
from sfpu_sim.sfpi.predication import v_and, v_else, v_elseif, v_endif, v_if
from sfpu_sim.sfpi.program import trace
from sfpu_sim.sfpi.tracing import DslError, RegisterPressure, current_arch, per_chip
from sfpu_sim.sfpi.values import (
                                   LRegs,
                                   dst_reg,
                                   l_reg,
                                   s2vFloat16a,
                                   s2vFloat16b,
                                   vConst0,
                                   vConst0p8373,
                                   vConst1,
                                   vConstFloatPrgm0,
                                   vConstFloatPrgm1,
                                   vConstFloatPrgm2,
                                   vConstIntPrgm0,
                                   vConstIntPrgm1,
                                   vConstIntPrgm2,
                                   vConstNeg1,
                                   vConstTileId,
                                   vFloat,
                                   vInt,
                                   vUInt,
)

__all__ = [
    "trace", "current_arch", "vFloat", "vInt", "vUInt", "dst_reg", "v_if", "v_elseif", "v_else",
    "v_endif",
    "v_and", "abs", "setsgn", "setexp", "setman", "exexp", "exexp_nodebias", "exman8", "exman9",
    "addexp", "shft", "reinterpret", "int32_to_float", "float_to_fp16a", "float_to_fp16b",
    "float_to_int16", "float_to_uint16", "float_to_int8", "float_to_uint8", "vec_min_max",
    "vec_swap", "lut", "lut_sign", "lut2", "lut2_sign", "approx_recip", "approx_exp", "lz",
    "s2vFloat16a", "s2vFloat16b", "vConst0", "vConst1", "vConstNeg1", "vConst0p8373",
    "vConstFloatPrgm0", "vConstFloatPrgm1", "vConstFloatPrgm2", "vConstIntPrgm0",
    "vConstIntPrgm1", "vConstIntPrgm2", "vConstTileId", "l_reg", "LRegs", "DslError",
    "RegisterPressure", "per_chip",
]
