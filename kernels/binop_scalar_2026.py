"""The scalar binary ops of Sep 2026: ``x + s``, ``x - s``, ``x * s``, ``x / d`` and ``s - x``
with the scalar the accuracy harness passes, both chips.

Each reads x from Dst tile 0 and writes tile 0, as a binary kernel does (:mod:`sfpu_sim.
binary_device`), and holds its second operand: the scalar is a kernel parameter, not a tile.

Sources read:

* tt-metal ``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/
  ckernel_sfpu_binop_with_unary.h``, the 2026 revision with ``is_fp32_dest_acc_en`` (index id
  58842989314): ``calculate_binop_with_scalar<APPROX, BINOP_MODE, ITERATIONS,
  is_fp32_dest_acc_en>(param)``. ``parameter = Converter::as_float(param)``, a run-time value
  loaded once; ADD ``val + parameter``, SUB ``val - parameter``, MUL ``val * parameter``, DIV
  ``val * parameter`` (the host inverts the divisor), RSUB ``parameter - val``, one SFPMAD
  each. Only RSUB then rounds, with ``float32_to_bf16_rne``, and only for a 16-bit Dst (its
  comment: logit's ``1 - x`` must match torch's RNE); the others leave SFPSTORE to truncate to a
  16-bit Dst. The earlier revision @022581da (index id 55452094706) has no RSUB rounding.
* The driver: tt-llk ``tests/python_tests/test_sfpu_binop_scalar.py`` (index id 70311161519):
  the presubmit scalar 2.0 for every op, ScalarDiv given ``1 / 2.0`` (its divisor is 2.0);
  x uniform(-1, 1); Float16_b with a 16-bit Dst and Float32 with an FP32 Dst. It states that
  ScalarRsub is the one scalar op that narrows with RNE, the others truncate, as the yaml's
  Float16_b figures show (add and sub 1, mul, div and rsub 0).
"""
from __future__ import annotations

from kernels.elementwise_2026 import float32_to_bf16_rne
from sfpu_sim.registry import register_kernel
from sfpu_sim.sfpi import dst_reg, vFloat

SOURCE = ("tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
          "ckernel_sfpu_binop_with_unary.h (2026, with is_fp32_dest_acc_en; index id "
          "58842989314)")
DRIVER = "tt-llk test_sfpu_binop_scalar.py (index id 70311161519)"
SCALAR = 2.0                        # the driver's presubmit scalar, every op
DIVISOR = 2.0                       # ScalarDiv's; the kernel is given 1 / DIVISOR


def _parameter(value: float):
    """``Converter::as_float(param)``: the scalar as a run-time value in an LReg."""
    return vFloat(vFloat(value))


def binop_scalar_add_2026_09():
    """``calculate_binop_with_scalar<false, ADD, 8, *>(2.0)``: ``x + 2`` (SFPADD), no
    rounding (SFPSTORE truncates to a 16-bit Dst)."""
    dst_reg[0] = dst_reg[0] + _parameter(SCALAR)


def binop_scalar_sub_2026_09():
    """``calculate_binop_with_scalar<false, SUB, 8, *>(2.0)``: ``x - 2``, no rounding."""
    dst_reg[0] = dst_reg[0] - _parameter(SCALAR)


def binop_scalar_mul_2026_09():
    """``calculate_binop_with_scalar<false, MUL, 8, *>(2.0)``: ``x * 2`` (SFPMUL)."""
    dst_reg[0] = dst_reg[0] * _parameter(SCALAR)


def binop_scalar_div_2026_09():
    """``calculate_binop_with_scalar<false, DIV, 8, *>(1 / 2.0)``: ``x * 0.5``, the divisor
    inverted on the host."""
    dst_reg[0] = dst_reg[0] * _parameter(1.0 / DIVISOR)


def binop_scalar_rsub_2026_09():
    """``calculate_binop_with_scalar<false, RSUB, 8, false>(2.0)``: ``2 - x``, then
    ``float32_to_bf16_rne`` (16-bit Dst)."""
    dst_reg[0] = float32_to_bf16_rne(_parameter(SCALAR) - dst_reg[0])


def binop_scalar_rsub_fp32_2026_09():
    """``calculate_binop_with_scalar<false, RSUB, 8, true>(2.0)``: ``2 - x``, no rounding."""
    dst_reg[0] = _parameter(SCALAR) - dst_reg[0]


def _params(mode: str, param: float, fp32: bool | None = None) -> dict:
    """The template's arguments; ``is_fp32_dest_acc_en`` only where the program reads it."""
    dest = {} if fp32 is None else {"is_fp32_dest_acc_en": fp32}
    return {"APPROXIMATION_MODE": False, "BINOP_MODE": mode, "ITERATIONS": 8, **dest,
            "param": param}


# ADD, SUB, MUL and DIV compile to one program for either Dst (nothing reads
# is_fp32_dest_acc_en, left out of their parameters as binary_2026's are); RSUB to two.
for _name, _body, _function, _mode, _y, _param in (
        ("binop_scalar_add_2026_09", binop_scalar_add_2026_09, "add", "ADD", SCALAR, SCALAR),
        ("binop_scalar_sub_2026_09", binop_scalar_sub_2026_09, "sub", "SUB", SCALAR, SCALAR),
        ("binop_scalar_mul_2026_09", binop_scalar_mul_2026_09, "mul", "MUL", SCALAR, SCALAR),
        ("binop_scalar_div_2026_09", binop_scalar_div_2026_09, "div", "DIV", DIVISOR,
         1.0 / DIVISOR)):
    register_kernel(
        _name, _body, function=_function, operands=2, fixed_y=_y,
        template="calculate_binop_with_scalar", params=_params(_mode, _param),
        provenance=f"{SOURCE}: {_mode} with param {_param:g}, one SFPMAD, no rounding "
                   f"(SFPSTORE truncates to a 16-bit Dst); the scalar of {DRIVER}",
        description=f"Scalar{_function.title()} row: x {_function} {_y:g}, either Dst, "
                    f"Sep 2026")
register_kernel(
    "binop_scalar_rsub_2026_09", binop_scalar_rsub_2026_09, function="rsub", operands=2,
    fixed_y=SCALAR, template="calculate_binop_with_scalar",
    params=_params("RSUB", SCALAR, fp32=False),
    provenance=f"{SOURCE}: parameter - val, then float32_to_bf16_rne for a 16-bit Dst; the "
               f"scalar of {DRIVER}",
    description="ScalarRsub row: 2 - x, BF16 Dst, Sep 2026")
register_kernel(
    "binop_scalar_rsub_fp32_2026_09", binop_scalar_rsub_fp32_2026_09, function="rsub",
    operands=2, fixed_y=SCALAR, dest="fp32", template="calculate_binop_with_scalar",
    instance_of="binop_scalar_rsub_2026_09", params=_params("RSUB", SCALAR, fp32=True),
    provenance=f"{SOURCE}: parameter - val, no rounding; the scalar of {DRIVER}",
    description="ScalarRsub row: 2 - x, FP32 Dst, Sep 2026")
