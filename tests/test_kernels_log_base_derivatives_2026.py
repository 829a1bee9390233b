"""Sep-2026 kernels of LogWithBase (kernels/log_base_2026.py), the FP32-Dst tanh derivative and
the approximate-mode GELU derivative (kernels/derivatives_fp32_2026.py).

Hand-derived values follow the sources' algorithms: log2 of 2**k takes m = 1, so r = 0 and the
exponent term k*2**23 * 2**-23 = k is exact; +-0 become -Inf through addexp(a, -1) = +Inf,
negatives keep the quiet-NaN default. The tanh derivative is 0 wherever |x| < 45 fails (+-Inf,
NaN, 50). The GELU derivative is 1 from 3.1719, 0.5 at x = 0 (0.5 + 0*h), 0 at and below
-13.375; only the tail (-13.375, -3) differs from approx=No's body.
"""
from __future__ import annotations

import numpy as np
import pytest

import kernels.derivatives_fp32_2026  # noqa: F401 (registers the kernels under test)
import kernels.gelu_2026  # noqa: F401 (gelu_derivative_fp32_2026_09)
import kernels.log_base_2026  # noqa: F401
import kernels.tanh_derivative  # noqa: F401
from sfpu_sim import formats, registry
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.sweeps import DevicePath, run_device

CHIPS = ("wormhole", "blackhole")
BF16_DST = ("log2_2026_09", "gelu_derivative_approx_2026_09")
ALL_BF16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
PLUS_INF, MINUS_INF, QNAN = 0x7F800000, 0xFF800000, 0x7FC00000


def fp32(value: float) -> int:
    return int(formats.fp32_to_bits(np.float32(value)))


def run_fp32(name: str, chip: str, inputs) -> list[int]:
    program = registry.get(name).program(chip)
    out = run_device(program, np.asarray(inputs, dtype=np.uint32),
                     DevicePath("fp32", "fp32", "fp32"), fp32_inputs=True)
    return [int(v) for v in out.output]


def run_bf16(name: str, chip: str, inputs) -> list[int]:
    program = registry.get(name).program(chip)
    out = run_device(program, np.asarray(inputs, dtype=np.uint16), DevicePath("bf16", "bf16",
                                                                              "bf16"))
    return [int(v) for v in out.output]


@pytest.mark.parametrize("name, original", [
    ("log2_fp32_2026_09", "log2_2026_09"), ("tanh_derivative_fp32_2026_09", "tanh_derivative"),
    ("gelu_derivative_approx_fp32_2026_09", "gelu_derivative_approx_2026_09")])
def test_fp32_dst_instantiations_are_registered_as_such(name, original):
    spec = registry.get(name)
    assert spec.dest == "fp32" and spec.instance_of == original
    assert spec.params["is_fp32_dest_acc_en"] is True
    assert registry.get(original).params["is_fp32_dest_acc_en"] is False


@pytest.mark.parametrize("chip", CHIPS)
def test_log2_hand_derived_values(chip):
    x = [fp32(8.0), fp32(0.5), fp32(2.0 ** -126), 0x00000000, 0x80000000, 0x00000001,
         PLUS_INF, fp32(-1.0)]
    want = [fp32(3.0), fp32(-1.0), fp32(-126.0), MINUS_INF, MINUS_INF, MINUS_INF,
            PLUS_INF, QNAN]
    assert run_fp32("log2_fp32_2026_09", chip, x) == want
    (nan,) = run_fp32("log2_fp32_2026_09", chip, [QNAN])   # result * a: a NaN (payload aside)
    assert nan & PLUS_INF == PLUS_INF and nan & 0x7FFFFF
    # BF16 Dst: the same but at -0, whose e (taken before the +0 normalisation) is
    # bits(-0) - bits(0.75) with the mantissa cleared = 129 << 23, so m = -2: the quadratic
    # gives r = -10.92, 129 + r/ln2 = 113.25 > 0, times addexp(+0, -1) = +Inf: +Inf. (The
    # FP32 arm's degree-9 polynomial is far below -129 at m = -2: -Inf, as tested above.)
    bf16 = [v >> 16 for v in x[:7]]
    want_bf16 = [v >> 16 for v in want[:7]]
    want_bf16[4] = PLUS_INF >> 16
    assert run_bf16("log2_2026_09", chip, bf16) == want_bf16


@pytest.mark.parametrize("chip", CHIPS)
def test_log2_is_exact_at_every_normal_power_of_two(chip):
    """The IS_BASE_TWO arm's point: e*2**-23 is exact, so log2(2**k) = k for all 254 k."""
    k = np.arange(-126, 128)
    x = [fp32(2.0 ** int(i)) for i in k]
    assert run_fp32("log2_fp32_2026_09", chip, x) == [fp32(float(i)) for i in k]


@pytest.mark.parametrize("chip", CHIPS)
def test_tanh_derivative_fp32_hand_derived_values(chip):
    x = [PLUS_INF, MINUS_INF, QNAN, fp32(50.0), fp32(-45.0)]
    assert run_fp32("tanh_derivative_fp32_2026_09", chip, x) == [0] * 5


@pytest.mark.parametrize("chip", CHIPS)
def test_tanh_derivative_fp32_is_the_bf16_body_unrounded(chip):
    """Where the FP32 result is already a BF16 value, the BF16 kernel's rounding is a no-op."""
    path = DevicePath("bf16", "fp32", "fp32")
    wide = run_device(registry.get("tanh_derivative_fp32_2026_09").program(chip), ALL_BF16,
                      path).kernel_fp32
    narrow = run_device(registry.get("tanh_derivative").program(chip), ALL_BF16,
                        DevicePath("bf16", "bf16", "bf16")).kernel_fp32
    exact = (wide & 0xFFFF) == 0
    assert exact.sum() > 1000
    np.testing.assert_array_equal(wide[exact], narrow[exact])


@pytest.mark.parametrize("chip", CHIPS)
def test_gelu_derivative_approx_hand_derived_values(chip):
    x = [fp32(4.0), fp32(3.1719), fp32(0.0), fp32(-13.375), fp32(-14.0), PLUS_INF, MINUS_INF]
    want = [fp32(1.0), fp32(1.0), fp32(0.5), 0, 0, fp32(1.0), 0]
    assert run_fp32("gelu_derivative_approx_fp32_2026_09", chip, x) == want
    # BF16 3.1719 is 3.171875, below the threshold: 3.25 stands in for it
    x[1] = fp32(3.25)
    assert run_bf16("gelu_derivative_approx_2026_09", chip, [v >> 16 for v in x]) == \
        [v >> 16 for v in want]


@pytest.mark.parametrize("chip", CHIPS)
def test_gelu_derivative_approx_differs_from_accurate_only_in_the_tail(chip):
    path = DevicePath("bf16", "fp32", "fp32")
    approx = run_device(registry.get("gelu_derivative_approx_fp32_2026_09").program(chip),
                        ALL_BF16, path).output
    accurate = run_device(registry.get("gelu_derivative_fp32_2026_09").program(chip), ALL_BF16,
                          path).output
    x = formats.bits_to_fp32(formats.bf16_to_fp32_bits(ALL_BF16))
    tail = (x > -13.375) & (x < -3.0)
    np.testing.assert_array_equal(approx[~tail], accurate[~tail])
    assert (approx[tail] != accurate[tail]).mean() > 0.9


ROWS = {
    "LogWithBase": Op("LogWithBase", "log2",
                      kernels={"No": "log2_2026_09", "Yes": "log2_fp32_2026_09"}),
    "TanhDerivative": Op("TanhDerivative", "tanh_derivative",
                         kernels={"No": "tanh_derivative", "Yes": "tanh_derivative_fp32_2026_09"},
                         golden="float64_tanh_derivative"),
    "GeluDerivative(approx=Yes)": Op(
        "GeluDerivative(approx=Yes)", "gelu_derivative",
        kernels={"No": "gelu_derivative_approx_2026_09",
                 "Yes": "gelu_derivative_approx_fp32_2026_09"},
        golden="float64_gelu_derivative"),
}
CELLS = [("LogWithBase", f, d) for f in ("bf16", "fp16", "fp32") for d in ("No", "Yes")] + \
    [("TanhDerivative", f, "Yes") for f in ("bf16", "fp16", "fp32")] + \
    [("GeluDerivative(approx=Yes)", f, d) for f in ("bf16", "fp16", "fp32") for d in ("No", "Yes")]


@pytest.mark.parametrize("row, fmt, dest", CELLS)
def test_predicts_the_device_figure(row, fmt, dest):
    device = {(c.input_format, c.dest): c for c in device_table.read()[row]}[(fmt, dest)]
    predicted = cells.predict(ROWS[row], (fmt, fmt, dest), "wormhole")
    assert predicted.max_ulp == device.max_ulp, (row, fmt, dest, predicted.worst)
