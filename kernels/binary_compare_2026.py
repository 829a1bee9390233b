"""Binary SFPU comparisons of 2026 (eq, ne, lt, le, gt, ge on floats), both chips: 1.0 where the
relation holds, else 0.0.

Source: tenstorrent/tt-metal ``tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_sfpu/
ckernel_sfpu_binary_comp.h`` @00b0fa3f (index id 55499345152; Jason Davies, 2026):
``calculate_binary_comp_fp32<APPROX, 8, RELATIONAL_OP>``, raw TTI, the same for both chips (the
Blackhole copy read, index id 55660365330, is a later sfpi rewrite that says it preserves these
semantics). The accuracy harness routes LT/GT/LE/GE/EQ/NE on float formats there (tt-metal
``tt_metal/tt-llk/tests/helpers/include/sfpu_operations.h``, index id 54491740591).

Per lane, with ``sum = |a| + |b|`` (SFPSETSGN, then SFPMAD 1 * |a| + |b|, which reads denormals
as zero, so every pair of zeros and denormals has ``sum == 0``):

* eq / ne: store the default (0 / 1); where ``sum == 0`` store the equal answer; then, where
  ``inf - sum >= 0`` as integers (not NaN) and ``a ^ b == 0`` (the same bits), store it again.
* lt (a = in0, b = in1) / gt (operands swapped): store 0; where ``sum != 0`` and not NaN,
  SFPSWAP VEC_MIN_MAX (sign-magnitude order) moves ``a`` unless it was already the larger: there
  store 1.
* le (operands swapped) / ge (a = in0, b = in1): store 1; where ``sum != 0`` and ``a`` moved
  (``a < b``) store 0; where ``inf - sum < 0`` (NaN) store 0.

The loop's ADDR_MOD_3 / ADDR_MOD_2 only advance Dst between rows; one row is modelled.
"""
from __future__ import annotations

from sfpu_sim.asm import assemble
from sfpu_sim.registry import register_program

SOURCE = ("tt-metal tt_metal/hw/ckernels/wormhole_b0/metal/llk_api/llk_sfpu/"
          "ckernel_sfpu_binary_comp.h @00b0fa3f (index id 55499345152)")
IN0, IN1, OUT = 0, 64, 0                 # raw Dst addresses: dst_index * 64
ZERO, ONE = 9, 10                        # p_sfpu::LCONST_0, LCONST_1

# calculate_binary_comp_fp32_equal: a = L0, b = L1, |a| = L2, |b| = L3, sum = L4, inf = L5.
_EQUAL = """\
TTI_SFPLOADI(5, 0, 0x7f80)          # inf (SFPLOADI_MOD0_FLOATB), before the loop
TTI_SFPLOAD(0, 0, 0, {in0})
TTI_SFPLOAD(1, 0, 0, {in1})
TTI_SFPSTORE({default}, 0, 0, {out})
TTI_SFPSETSGN(0, 1, 3, 1)           # |b|
TTI_SFPSETSGN(0, 0, 2, 1)           # |a|
TTI_SFPMAD(10, 2, 3, 4, 0)          # sum = 1 * |a| + |b|
TTI_SFPXOR(0, 1, 0, 0)              # a ^= b
TTI_SFPSETCC(0, 4, 0, 6)            # sum == 0
TTI_SFPSTORE({equal}, 0, 0, {out})
TTI_SFPENCC(0, 0, 0, 0)
TTI_SFPIADD(0, 5, 4, 10)            # inf - sum >= 0: not NaN (2SCOMP_LREG_DST | CC_GTE0)
TTI_SFPSETCC(0, 0, 0, 6)            # a ^ b == 0
TTI_SFPSTORE({equal}, 0, 0, {out})
TTI_SFPENCC(0, 0, 0, 0)
"""

# calculate_binary_comp_fp32_strict_ordered: a = L0, b = L1, |a|, |b|, sum = L4, copy = L5,
# inf = L6.
_STRICT = """\
TTI_SFPLOADI(6, 0, 0x7f80)
TTI_SFPLOAD(0, 0, 0, {a})
TTI_SFPLOAD(1, 0, 0, {b})
TTI_SFPSTORE(9, 0, 0, {out})        # 0
TTI_SFPSETSGN(0, 0, 2, 1)
TTI_SFPSETSGN(0, 1, 3, 1)
TTI_SFPMAD(10, 2, 3, 4, 0)          # sum = |a| + |b|
TTI_SFPMOV(0, 0, 5, 0)              # copy = a
TTI_SFPSETCC(0, 4, 0, 2)            # sum != 0
TTI_SFPIADD(0, 6, 4, 10)            # and not NaN
TTI_SFPSWAP(0, 0, 1, 1)             # a = max, b = min (VEC_MIN_MAX)
TTI_SFPXOR(0, 0, 5, 0)              # copy ^= a: non-zero where a moved, i.e. a < b
TTI_SFPSETCC(0, 5, 0, 2)
TTI_SFPSTORE(10, 0, 0, {out})       # 1
TTI_SFPENCC(0, 0, 0, 0)
"""

# calculate_binary_comp_fp32_weak_ordered: registers as the strict one.
_WEAK = """\
TTI_SFPLOADI(6, 0, 0x7f80)
TTI_SFPLOAD(0, 0, 0, {a})
TTI_SFPLOAD(1, 0, 0, {b})
TTI_SFPSTORE(10, 0, 0, {out})       # 1
TTI_SFPSETSGN(0, 0, 2, 1)
TTI_SFPSETSGN(0, 1, 3, 1)
TTI_SFPMAD(10, 2, 3, 4, 0)
TTI_SFPMOV(0, 0, 5, 0)
TTI_SFPSETCC(0, 4, 0, 2)            # sum != 0
TTI_SFPSWAP(0, 0, 1, 1)
TTI_SFPXOR(0, 0, 5, 0)
TTI_SFPSETCC(0, 5, 0, 2)            # a moved: a < b
TTI_SFPSTORE(9, 0, 0, {out})        # 0
TTI_SFPENCC(0, 0, 0, 0)
TTI_SFPIADD(0, 6, 4, 2)             # inf - sum < 0: NaN (2SCOMP_LREG_DST | CC_LT0)
TTI_SFPSTORE(9, 0, 0, {out})        # 0
TTI_SFPENCC(0, 0, 0, 0)
"""

# relation -> (template text, its fields): eq/ne swap the stored constants, gt reads (in1,
# in0) into (a, b), le too (le(x, y) = ge(y, x)).
_RELATIONS = {
    "eq": (_EQUAL, {"in0": IN0, "in1": IN1, "default": ZERO, "equal": ONE}),
    "ne": (_EQUAL, {"in0": IN0, "in1": IN1, "default": ONE, "equal": ZERO}),
    "lt": (_STRICT, {"a": IN0, "b": IN1}),
    "gt": (_STRICT, {"a": IN1, "b": IN0}),
    "ge": (_WEAK, {"a": IN0, "b": IN1}),
    "le": (_WEAK, {"a": IN1, "b": IN0}),
}


def _compare_program(relation: str):
    text, fields = _RELATIONS[relation]
    name = f"binary_{relation}_2026_09"

    def build(arch):
        program = assemble(text.format(out=OUT, **fields), arch,
                           filename=f"kernels/binary_compare_2026.py:{name}")
        program.init_length = 1                 # the SFPLOADI of inf, before the loop
        return program
    return build


for _relation in _RELATIONS:
    register_program(
        f"binary_{_relation}_2026_09", _compare_program(_relation), function=_relation,
        operands=2, template="calculate_binary_comp_fp32",
        params={"APPROXIMATION_MODE": False, "ITERATIONS": 8,
                "RELATIONAL_OP": f"SfpuType::{_relation}"},
        provenance=f"{SOURCE}: |a| + |b| folds zeros and denormals, SFPSWAP orders, NaN "
                   f"rejected by an integer compare against inf",
        description=f"SfpuElw{_relation.title()} row (float), either Dst, 2026")
