"""The accuracy harness's goldens: what each op's lanes are scored against.

tt-llk's ``helpers/golden_generators.py`` (``UnarySFPUGolden``; read in the stored version of
2026 with per-format ``_FTZ_THRESHOLD``) evaluates each op in float64, in torch FP32 or in torch
in the Dst's dtype, rounds the result to nearest even into the Dst format (FP32 with
``dest_acc``, else the 16-bit input format), then to the output format. Two kinds are modelled:

* ``rne_fp32``: the exact value rounded to FP32, then to nearest even in the output format
  (certified by :mod:`sfpu_sim.reference`). For an op torch computes with its own FP32
  elementary function this stands in for torch's result, which can differ by one FP32 step.
* ``torch_gelu_fp32``: ``torch.nn.functional.gelu`` (approximate="none") as torch computes it on
  CPU, ``x * 0.5 * (1 + erf(x * M_SQRT1_2))`` in FP32 arithmetic, each operation rounded to FP32,
  with erf correctly rounded to FP32 (the scalar path; aten/src/ATen/native/cpu/Activation.cpp).
  Its ``1 + erf`` cancels in the negative tail: the golden is a staircase of multiples of
  2**-25 * x and is 0 below about -5.54, which Tenstorrent's GELU kernels reproduce.
* ``float64_gelu_derivative``: the harness evaluates GELU's derivative per element in Python
  floats, ``cdf + x * phi`` with ``cdf = 0.5 * (1 + erf(x / sqrt(2)))`` and ``phi = exp(-x*x/2) /
  sqrt(2 pi)``, then rounds to FP32 and the output format. In the negative tail ``1 + erf``
  cancels to a multiple of 2**-53, an error of a few BF16 steps that the table's figure
  includes. Evaluated here with Python's ``math`` (the libm the harness itself calls), over the
  distinct inputs: the golden is defined per element as Python floats, so this mirrors it.
* ``float64_tanh_derivative``: ``1.0 - t * t`` with ``t = math.tanh(x)`` in Python floats: 0
  wherever tanh rounds to +-1 in float64 (|x| above about 19), where the kernels return the
  true, tiny value; that is thousands of BF16 steps, the table's 9,314.
* ``torch_silu_fp32``: ``torch.nn.functional.silu`` on CPU, ``x / (1 + exp(-x))`` in FP32
  operations with exp correctly rounded to FP32: its double rounding is one rank below the
  correctly rounded silu at x = -87.381218, the table's FP32 figure (52,895,879).
* ``torch_gelu_tanh_fp32``: torch's GELU with ``approximate="tanh"`` on CPU in FP32 operations,
  ``(0.5 x) * (1 + tanh(kBeta * (x + kKappa * x**3)))`` with ``kBeta = sqrt(2) * 2/sqrt(pi) / 2``
  and ``kKappa = 0.044715`` as FP32 constants, tanh correctly rounded to FP32 (for libm's
  tanhf); its ``1 + tanh`` cancels in the negative tail (the table's 13,222 and 866,451,457).
* ``float64_tanh_derivative_lut6``: the harness's golden of the LUT tanh derivative mirrors the
  kernel's table: ``1 - (slope * |x| + intercept)**2`` in Python floats, with the six pairs of
  tt-metal's ``tanh_derivative_init`` (segments cut at |x| = 0.5, 1, 1.5, 2, 3; tt-llk's
  ``test_tanh_lut_consistency.py`` holds the golden and the init to the same pairs).
* ``float64_hardmish``: the harness's hardmish, ``t * clamp(0.5 * t + 1, 0, 1)`` through
  ``UnarySFPUGolden._torch_unary``, which evaluates on a float64 torch scalar ("fp64 so that a
  Float32-output cell is measured against a correctly rounded reference"): one rounding to FP32,
  where the kernel's two SFPMADs (and torch FP32) round twice. That form is read in
  amanj940/tt-metal @72d6af3f (index id 70075636441, a copy of Oct 2026); the copies of mid-2026
  (index id 57922331604, pc2/tt-metal @8611e331) evaluate in FP32. The 2026-09-30 sweep used the
  float64 form: its table measures Cosh and Sinh cells, which only the float64 version can
  score (its ``_sinh``/``_cosh`` go through ``_torch_unary`` because ``math.cosh`` raised on the
  sweep's large inputs), and the ops this form covers (log, sqrt, sin, ...) are scored against
  correctly rounded values everywhere else in this model (``rne_fp32``).
* ``torch_softsign_dst_steps``: ``torch.nn.functional.softsign`` on a tensor of the Dst's dtype
  computes ``x / (1 + |x|)`` in two steps, each done in FP32 and rounded to nearest even into
  that dtype (BF16, FP16, or FP32 itself): the golden carries two roundings of the Dst format.
"""
from __future__ import annotations

import math

import numpy as np

from sfpu_sim import formats, reference

M_SQRT1_2 = np.float32(0.7071067811865476)


def _to_output(fp32_bits: np.ndarray, output_format: str) -> np.ndarray:
    return {"fp32": lambda b: b, "bf16": formats.fp32_to_bf16_rne,
            "fp16": formats.fp32_to_fp16_rne}[output_format](fp32_bits)


def _as_fp32(inputs: np.ndarray, input_format: str) -> np.ndarray:
    bits = formats.as_bits(inputs, input_format)
    if input_format == "bf16":
        return formats.bf16_to_fp32_bits(bits)
    if input_format == "fp16":
        return formats.fp16_to_fp32_bits(bits)
    return bits


def _fp32_reference(function: str, values: np.ndarray, keep_set: bool) -> np.ndarray:
    """``function`` correctly rounded to FP32 (bits) at FP32 ``values``, as torch's FP32
    elementary functions are taken to be; ``keep_set``: the values are one of the fixed sets the
    cells recur on (the harness walk, all 16-bit patterns), whose certificates are kept."""
    return reference.reference(function, values.view(np.uint32), "rne", input_format="fp32",
                               output_format="fp32", daz=False, ftz=False,
                               keep_set=keep_set).bits


def torch_gelu_fp32(inputs, input_format: str, output_format: str,
                    keep_set: bool = False) -> np.ndarray:
    """``torch.nn.functional.gelu`` of the inputs in FP32 arithmetic, rounded to the output
    format (module docstring)."""
    x = formats.bits_to_fp32(_as_fp32(inputs, input_format))
    with np.errstate(over="ignore", invalid="ignore"):
        t = (x * M_SQRT1_2).astype(np.float32)
        erf = _fp32_reference("erf", t, keep_set)
        s = (np.float32(1) + formats.bits_to_fp32(erf)).astype(np.float32)
        r = ((x * np.float32(0.5)).astype(np.float32) * s).astype(np.float32)
    return _to_output(r.view(np.uint32), output_format)


def torch_silu_fp32(inputs, input_format: str, output_format: str,
                    keep_set: bool = False) -> np.ndarray:
    """``torch.nn.functional.silu`` in FP32 arithmetic (module docstring)."""
    x = formats.bits_to_fp32(_as_fp32(inputs, input_format))
    with np.errstate(over="ignore", invalid="ignore"):
        e = _fp32_reference("exp", (-x).astype(np.float32), keep_set)
        r = (x / (np.float32(1) + formats.bits_to_fp32(e)).astype(np.float32)).astype(np.float32)
    return _to_output(r.view(np.uint32), output_format)


def float64_hardmish(inputs, input_format: str, output_format: str) -> np.ndarray:
    """hardmish in float64, rounded to FP32 once (module docstring)."""
    x = formats.bits_to_float64(_as_fp32(inputs, input_format), "fp32")
    with np.errstate(over="ignore", invalid="ignore"):
        value = x * np.clip(0.5 * x + 1.0, 0.0, 1.0)
        fp32 = value.astype(np.float32).view(np.uint32)
    return _to_output(fp32, output_format)


GELU_TANH_BETA = np.float32(math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5)
GELU_TANH_KAPPA = np.float32(0.044715)


def torch_gelu_tanh_fp32(inputs, input_format: str, output_format: str,
                         keep_set: bool = False) -> np.ndarray:
    """torch's tanh-approximated GELU in FP32 arithmetic (module docstring)."""
    f32 = np.float32
    x = formats.bits_to_fp32(_as_fp32(inputs, input_format))
    with np.errstate(over="ignore", invalid="ignore"):
        cube = ((x * x).astype(f32) * x).astype(f32)
        inner = (GELU_TANH_BETA * (x + (GELU_TANH_KAPPA * cube).astype(f32)).astype(f32))
        tanh = _fp32_reference("tanh", inner.astype(f32), keep_set)
        s = (f32(1) + formats.bits_to_fp32(tanh)).astype(f32)
        r = ((f32(0.5) * x).astype(f32) * s).astype(f32)
    return _to_output(r.view(np.uint32), output_format)


# tanh_derivative_init's six (slope, intercept) pairs on |x| (tt-metal ckernel_sfpu_
# tanh_derivative.h, index id 68509003383), which the harness's golden mirrors.
TANH_DERIVATIVE_LUT6 = ((0.93701171875, 0.0), (0.5869140625, 0.183837890625),
                        (0.277099609375, 0.49365234375), (0.11181640625, 0.74169921875),
                        (0.03070068359375, 0.90625), (0.0, 1.0))
TANH_DERIVATIVE_LUT6_CUTS = (0.5, 1.0, 1.5, 2.0, 3.0)


def _float64_tanh_derivative_lut6(x: float) -> float:
    a = abs(x)
    segment = next((i for i, cut in enumerate(TANH_DERIVATIVE_LUT6_CUTS) if a < cut), 5)
    slope, intercept = TANH_DERIVATIVE_LUT6[segment]
    return 1.0 - (slope * a + intercept) ** 2


def _float64_gelu_derivative(x: float) -> float:
    cdf = 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))
    phi = math.exp(-x * x / 2.0) / math.sqrt(2.0 * math.pi)
    return cdf + x * phi


def _float64_tanh_derivative(x: float) -> float:
    t = math.tanh(x)
    return 1.0 - t * t


def _float64_tanhshrink(x: float) -> float:
    return x - math.tanh(x)


def _float64_xielu(x: float) -> float:
    """golden_generators.py's _xielu with alpha_p = alpha_n = 1.0, beta 0.5, in its order."""
    beta_mul_x = 0.5 * x
    if x > 0.0:
        return 1.0 * x * x + beta_mul_x
    return 1.0 * (math.expm1(x) - x) + beta_mul_x


HARDSIGMOID_SLOPE = 0.1666666716337204   # hardsigmoid_init's Prgm0 (FP32 1/6), as the golden has it
HARDSIGMOID_OFFSET = 0.5


def _sfpu_relu_max(value: np.ndarray, threshold: float) -> np.ndarray:
    """golden_generators.py's ``sfpu_relu_max``: the minimum with ``threshold`` in the SFPU's
    total order (a +NaN becomes the threshold), then 0 where the order key is negative (x < 0,
    -0.0, -NaN)."""
    negative = np.signbit(value)
    clamped = np.where((value > threshold) | (np.isnan(value) & ~negative), threshold, value)
    return np.where(np.signbit(clamped) | (clamped < 0.0), 0.0, clamped)


def float64_hardsigmoid(inputs, input_format: str, output_format: str) -> np.ndarray:
    """``UnarySFPUGolden._hardsigmoid`` (tt-llk golden_generators.py, index id 57922331604;
    filipkarlov-alt/tt-metal @1537be33): ``sfpu_relu_max(float(x) * 0.1666666716337204 +
    0.5, 1.0)`` in Python floats, not torch's (x + 3) / 6, then rounded to FP32."""
    x = formats.bits_to_float64(_as_fp32(inputs, input_format), "fp32")
    with np.errstate(invalid="ignore", over="ignore"):
        value = _sfpu_relu_max(x * HARDSIGMOID_SLOPE + HARDSIGMOID_OFFSET, 1.0)
    return _to_output(value.astype(np.float32).view(np.uint32), output_format)


def _python_float_golden(formula, at_inf: tuple[float, float]):
    """A golden the harness computes per element in Python floats: ``formula`` over the
    distinct finite inputs (``at_inf``: its values at -inf and +inf), rounded to FP32 then to
    the output format."""
    def golden_of(inputs, input_format: str, output_format: str) -> np.ndarray:
        x = formats.bits_to_float64(_as_fp32(inputs, input_format), "fp32")
        unique, inverse = np.unique(x, return_inverse=True)
        finite = np.isfinite(unique)
        values = np.where(finite, 0.0, np.nan)
        values[finite] = np.frompyfunc(formula, 1, 1)(unique[finite]).astype(np.float64)
        values[unique == -np.inf], values[unique == np.inf] = at_inf
        with np.errstate(over="ignore"):
            fp32 = values[inverse].astype(np.float32).view(np.uint32)
        return _to_output(fp32, output_format)
    return golden_of


float64_gelu_derivative = _python_float_golden(_float64_gelu_derivative, (0.0, 1.0))
float64_tanh_derivative = _python_float_golden(_float64_tanh_derivative, (0.0, 0.0))
float64_tanhshrink = _python_float_golden(_float64_tanhshrink, (-math.inf, math.inf))
# at -inf: (expm1(-inf) + inf) + -inf is NaN in Python floats
float64_xielu = _python_float_golden(_float64_xielu, (math.nan, math.inf))
# 0 * inf + 1 at the infinities: NaN, as the harness's Python floats give.
float64_tanh_derivative_lut6 = _python_float_golden(_float64_tanh_derivative_lut6,
                                                    (math.nan, math.nan))

def _dst_format(input_format: str, output_format: str, dest: str) -> str:
    """The Dst's dtype in UnarySFPUGolden: FP32 with dest_acc, else FP16 if either format is
    Float16, else BF16."""
    if dest == "Yes":
        return "fp32"
    return "fp16" if "fp16" in (input_format, output_format) else "bf16"


def _round_to(fp32_bits: np.ndarray, fmt: str) -> np.ndarray:
    """FP32 patterns rounded to nearest even into ``fmt`` and widened back to FP32 patterns."""
    if fmt == "fp32":
        return fp32_bits
    if fmt == "bf16":
        return formats.bf16_to_fp32_bits(formats.fp32_to_bf16_rne(fp32_bits))
    return formats.fp16_to_fp32_bits(formats.fp32_to_fp16_rne(fp32_bits))


def torch_softsign_dst_steps(inputs, input_format: str, output_format: str,
                             dest: str) -> np.ndarray:
    """softsign as torch computes it on a tensor of the Dst's dtype (module docstring), as
    FP32 patterns."""
    dst = _dst_format(input_format, output_format, dest)
    x = formats.bits_to_fp32(_round_to(_as_fp32(inputs, input_format), dst))
    with np.errstate(over="ignore", invalid="ignore"):
        d = formats.bits_to_fp32(_round_to((np.float32(1) + np.abs(x)).view(np.uint32), dst))
        r = (x / d).astype(np.float32)
    return _round_to(r.view(np.uint32), dst)


# Goldens that depend on the Dst mode, (inputs, input format, output format, dest) -> FP32.
DST_FORMULAS = {"torch_softsign_dst_steps": torch_softsign_dst_steps}

# The formulas that call a correctly rounded FP32 function on values they computed: they take
# ``keep_set`` (:func:`_fp32_reference`).
TORCH_FORMULAS = {"torch_gelu_fp32": torch_gelu_fp32, "torch_silu_fp32": torch_silu_fp32,
                  "torch_gelu_tanh_fp32": torch_gelu_tanh_fp32}
FORMULAS = {**TORCH_FORMULAS, "float64_hardmish": float64_hardmish,
            "float64_tanh_derivative_lut6": float64_tanh_derivative_lut6,
            "float64_gelu_derivative": float64_gelu_derivative,
            "float64_tanh_derivative": float64_tanh_derivative,
            "float64_tanhshrink": float64_tanhshrink, "float64_xielu": float64_xielu,
            "float64_hardsigmoid": float64_hardsigmoid}


def _fp32_golden(kind: str, function: str, inputs, input_format: str,
                 keep_set: bool = False) -> np.ndarray:
    """The golden's FP32 value (bits), before the Dst and output formats round it
    (``keep_set``: as :func:`sfpu_sim.reference.reference` takes it)."""
    if kind in TORCH_FORMULAS:
        return TORCH_FORMULAS[kind](inputs, input_format, "fp32", keep_set)
    if kind in FORMULAS:
        return FORMULAS[kind](inputs, input_format, "fp32")
    if kind in DST_FORMULAS:
        raise ValueError(f"golden {kind!r} depends on the Dst mode")
    return reference.reference(function, inputs, "rne", input_format=input_format,
                               output_format="fp32", daz=True, ftz=False,
                               keep_set=keep_set).bits


def golden(kind: str, function: str, inputs, input_format: str, output_format: str,
           dest: str = "Yes", keep_set: bool = False) -> np.ndarray:
    """The harness's golden bit patterns (output format) for ``inputs`` (input format) in a
    cell with Dst mode ``dest`` ("No": 16-bit, "Yes": FP32). As ``UnarySFPUGolden`` does
    (tt-metal ``helpers/golden_generators.py``, the 2026 copy of index id 57922331604): the
    value rounded to FP32; with a Float16 Dst (dest No and Float16 in or out), magnitudes below
    2**-14 become +0 before the cast (its FTZ of a Dst without denormals); then nearest even
    into the Dst format, into the input format (the result tensor's dtype: a 16-bit input's
    golden is a value of that format whatever the output) and the output format; then the
    output format's flush (below 2**-126 for BF16 and FP32)."""
    if kind in DST_FORMULAS:
        fp32 = DST_FORMULAS[kind](inputs, input_format, output_format, dest)
    else:
        fp32 = _fp32_golden(kind, function, inputs, input_format, keep_set)
    if dest == "No" and "fp16" in (input_format, output_format):
        tiny = (fp32 & np.uint32(0x7FFFFFFF)) < np.uint32(0x38800000)        # 2**-14
        fp32 = np.where(tiny, np.uint32(0), fp32).astype(np.uint32)
    if input_format != output_format and input_format != "fp32":
        # A 16-bit input's result tensor has the input's dtype: the Dst write's rounding,
        # then the store into it, then the output format (Float16_b in, Float32 out: a BF16
        # value whatever the Dst).
        dst = "fp32" if dest == "Yes" else "fp16" if "fp16" in (input_format, output_format) \
            else "bf16"
        for fmt in (dst, input_format):
            fp32 = _as_fp32(_to_output(fp32, fmt), fmt)
    return formats.ftz(_to_output(fp32, output_format), formats.FORMATS[output_format])
