"""The Sep-2026 CastFp32ToFp16a kernel (kernels/cast_2026.py): its program, hand-derived values
on both chips, the harness's golden, and the table's six cells: what the program as written
predicts (one cell matches, five do not) and what the same rounding predicts when its FP32
value reaches the packer unchanged (all six match; see the module docstring there)."""
from __future__ import annotations

import numpy as np
import pytest

import kernels.cast_2026  # noqa: F401 (registers the kernel)
from kernels.cast_2026 import SOURCE
from sfpu_sim import formats, registry
from sfpu_sim.asm import assemble
from sfpu_sim.ops import Op
from sfpu_sim.parity import cells, device_table
from sfpu_sim.parity import golden as goldens
from sfpu_sim.sweeps import DevicePath, run_device

BOTH = ("wormhole", "blackhole")
KERNEL = "cast_fp32_to_fp16a_2026_09"
ROW = "CastFp32ToFp16a"
CELLS = (("bf16", "bf16", "No"), ("bf16", "bf16", "Yes"), ("fp16", "fp16", "No"),
         ("fp16", "fp16", "Yes"), ("fp32", "fp32", "No"), ("fp32", "fp32", "Yes"))
FP32_PATH = DevicePath("fp32", "fp32", "fp32")


def _op(kernel: str = KERNEL) -> Op:
    return Op(ROW, "fp16a_rne", kernels={"No": kernel, "Yes": kernel}, golden="rne_fp32")


def _device_figure(cell) -> int:
    in_fmt, out_fmt, dest = cell
    return next(c.max_ulp for c in device_table.read()[ROW]
                if (c.input_format, c.output_format, c.dest) == (in_fmt, out_fmt, dest))


def test_registered_as_the_llk_template_for_either_dst():
    spec = registry.get(KERNEL)
    assert spec.template == "cast_fp32_to_fp16a"
    assert dict(spec.params) == {"APPROXIMATION_MODE": False, "ITERATIONS": 32}
    assert spec.function == "fp16a_rne" and spec.dest == "bf16"
    # No is_fp32_dest_acc_en parameter: the device runs this one program with an FP32 Dst too.
    assert registry.for_dest(spec, "fp32").spec is spec


@pytest.mark.parametrize("arch", BOTH)
def test_program_is_a_load_a_nearest_fp16a_rounding_and_an_fp16_store(arch):
    load, rounding, store = registry.get(KERNEL).program(arch).instructions
    assert (load.mnemonic, load.mod0, load.vd) == ("SFPLOAD", 0, 0)
    assert (rounding.mnemonic, rounding.round_mode, rounding.mod1) == ("SFP_STOCH_RND", 0, 8)
    assert (rounding.vc, rounding.vd) == (0, 0)
    assert (store.mnemonic, store.mod0, store.vd) == ("SFPSTORE", 1, 0)
    assert "e079b823" in SOURCE and "049e2880" in SOURCE


# Hand-derived from SFP_STOCH_RND FP32_TO_FP16A, nearest (SFPSTOCHRND_FloatFloat.md): 13 bits
# dropped, the magnitude rounded up when they are >= 0x1000 (ties away from zero), the FP32
# exponent kept (a carry may reach it, or Inf); exponent 0 -> +0; exponent 255 -> signed Inf.
ROUNDED = {
    0x3F801000: 0x3F802000,     # 1 + 2**-11, a tie with an even kept bit: away (RNE: 1.0)
    0xBF803000: 0xBF804000,     # a tie with an odd kept bit: away, as RNE would
    0x3F800FFF: 0x3F800000,     # below the tie: down
    0x47FFFFFF: 0x48000000,     # carry into the exponent: 131072, beyond FP16's range, kept
    0x7149F2CA: 0x714A0000,     # 1e30: 0x12CA dropped, up
    0x7F7FF000: 0x7F800000,     # FP32's largest exponent, a tie: carries to +Inf
    0x00000000: 0x00000000,
    0x80000000: 0x00000000,     # -0 -> +0
    0x807FFFFF: 0x00000000,     # a denormal -> +0
    0xFF800000: 0xFF800000,     # -Inf stays
    0x7FC00001: 0x7F800000,     # NaN -> +Inf (sign kept)
    0xFFC00000: 0xFF800000,
}


@pytest.mark.parametrize("arch", BOTH)
def test_rounding_to_fp16a_precision_ties_away_from_zero_and_keeps_the_exponent(arch):
    x = np.array(list(ROUNDED), dtype=np.uint32)
    run = run_device(registry.get(KERNEL).program(arch), x, FP32_PATH, fp32_inputs=True,
                     engine="machine")
    np.testing.assert_array_equal(run.kernel_fp32, np.array(list(ROUNDED.values()), np.uint32))


@pytest.mark.parametrize("arch", BOTH)
def test_the_fp16_store_writes_the_fp16_encoding_whatever_the_dst_holds(arch):
    program = registry.get(KERNEL).program(arch)
    # FP16 Dst: the store matches the cells, so a Float16 value comes back unchanged.
    fp16 = np.array([0x3C00, 0xBC01, 0x7BFF, 0x0400], dtype=np.uint16)
    out = run_device(program, fp16, DevicePath("fp16", "fp16", "bf16"), engine="machine")
    np.testing.assert_array_equal(out.output, fp16)
    # BF16 Dst: 1.0 is stored as FP16 0x3C00, Dst encoding 0x000F (sign, mantissa << 5,
    # exponent 15), which read as a BF16 cell (mantissa in bits 14-8, exponent in 7-0) is
    # exponent 15, mantissa 0: 0x0780.
    out = run_device(program, np.array([0x3F80], np.uint16), DevicePath(), engine="machine")
    assert int(out.output[0]) == 0x0780
    # FP32 Dst, datum 0 (Dst row 0): 0x3F801001 rounds up to 1 + 2**-10, FP16 0x3C01, Dst
    # encoding 0x002F; the 16-bit store replaces the datum's high half with it (read as FP32:
    # exponent 0x2F, mantissa 0) and leaves its low half, the input's 0x1001: 0x17801001.
    out = run_device(program, np.array([0x3F801001], np.uint32), FP32_PATH, fp32_inputs=True,
                     engine="machine")
    assert int(out.output[0]) == 0x17801001


def harness_cast_fp32_to_fp16a(inputs, input_format: str, output_format: str) -> np.ndarray:
    """Proposed golden kind ``bits_fp16a_rne`` (tt-llk golden_generators.py's CastFp32ToFp16a,
    per /tmp/research/goldens.md): the input's FP32 pattern with 13 mantissa bits dropped,
    rounded half to even on the pattern (denormal patterns included, the exponent not clamped,
    a carry rippling into it), non-finite patterns passed through; then the output format."""
    bits = goldens._as_fp32(inputs, input_format)
    remainder = bits & np.uint32(0x1FFF)
    truncated = bits - remainder
    odd = (truncated >> np.uint32(13)) & np.uint32(1)
    up = (remainder > 0x1000) | ((remainder == 0x1000) & (odd == 1))
    rounded = truncated + np.where(up, np.uint32(0x2000), np.uint32(0))
    finite = (bits & np.uint32(0x7F800000)) != np.uint32(0x7F800000)
    return goldens._to_output(np.where(finite, rounded, bits).astype(np.uint32), output_format)


@pytest.mark.parametrize("in_fmt", ("bf16", "fp16", "fp32"))
def test_rne_fp32_of_fp16a_rne_is_the_harness_golden_on_every_normal_input(in_fmt):
    # The existing golden kind rne_fp32 with the reference function fp16a_rne gives the
    # harness's bit manipulation wherever the table counts a lane (normal inputs); they differ
    # only on denormal inputs, which the harness rounds as patterns and rne_fp32 flushes.
    x = cells.harness_fp32_walk() if in_fmt == "fp32" else \
        np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    normal = formats.classify(x, formats.FORMATS[in_fmt]) == formats.FloatClass.NORMAL
    existing = goldens.golden("rne_fp32", "fp16a_rne", x, in_fmt, in_fmt, "Yes",
                              keep_set=True)            # the walk, certified once, stored
    harness = formats.ftz(harness_cast_fp32_to_fp16a(x, in_fmt, in_fmt),
                          formats.FORMATS[in_fmt])
    np.testing.assert_array_equal(existing[normal], harness[normal])


# What the program as written predicts on Wormhole: the FP16 store read back as BF16 or FP32
# cells is garbage (worst lanes below 2**-14, stored as zero; FP32 exponents beyond FP16's,
# saturated), so only the Float16 cell with a 16-bit (FP16) Dst agrees with the device.
MODEL_FIGURES = {("bf16", "bf16", "No"): 14336, ("bf16", "bf16", "Yes"): 14336,
                 ("fp16", "fp16", "No"): 0, ("fp16", "fp16", "Yes"): 30715,
                 ("fp32", "fp32", "No"): 939524096, ("fp32", "fp32", "Yes"): 939507713}


@pytest.mark.parametrize("cell", CELLS, ids="-".join)
def test_table_cell_as_the_program_is_written(cell):
    prediction = cells.predict(_op(), cell, "wormhole")
    assert prediction.max_ulp == MODEL_FIGURES[cell]
    if cell == ("fp16", "fp16", "No"):
        assert prediction.max_ulp == _device_figure(cell)
    else:   # a reported mismatch (kernels/cast_2026.py), not tuned away
        assert prediction.max_ulp != _device_figure(cell)


SAME_ROUNDING_DST_FORMAT_STORE = """
SFPLOAD       L0, SRCB, 0, 0
SFP_STOCH_RND 0, 0, L0, L0, L0, 8
SFPSTORE      L0, SRCB, 0, 0
"""


@pytest.fixture
def dst_format_store_kernel(monkeypatch):
    """The explanation, not the model: the kernel's rounding with a store in the Dst's own
    format, registered in a copy of the registry for this test only."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    name = "cast_fp32_to_fp16a_dst_format_store_hypothesis"
    registry.register_program(
        name, lambda arch: assemble(SAME_ROUNDING_DST_FORMAT_STORE, arch), function="fp16a_rne",
        template="cast_fp32_to_fp16a_hypothesis", params={"APPROXIMATION_MODE": False},
        provenance="test hypothesis", description="test hypothesis")
    return name


def test_the_same_rounding_stored_in_the_dst_format_gives_all_six_device_figures(
        dst_format_store_kernel):
    op = _op(dst_format_store_kernel)
    figures = {cell: cells.predict(op, cell, "wormhole") for cell in CELLS}
    assert {c: p.max_ulp for c, p in figures.items()} == {c: _device_figure(c) for c in CELLS}
    # 8,192 = one FP16A step (2**13 FP32 ranks): on the walk, a tie (0x1000 dropped) with an
    # even kept bit rounds away on the device and to even in the golden.
    worst = figures[("fp32", "fp32", "Yes")].worst
    assert (worst["input_bits"], worst["output_bits"], worst["golden_bits"]) == \
        ("0xcf7fd000", "0xcf7fe000", "0xcf7fc000")


def test_the_fp32_walk_holds_four_even_ties_and_no_other_disagreement(dst_format_store_kernel):
    x = cells.harness_fp32_walk()
    program = registry.get(dst_format_store_kernel).program("wormhole")
    device = run_device(program, x, FP32_PATH, fp32_inputs=True).output
    gold = harness_cast_fp32_to_fp16a(x, "fp32", "fp32")
    normal = formats.classify(x, formats.FP32) == formats.FloatClass.NORMAL
    differ = sorted(int(b) for b in x[normal & (device != gold)])
    assert differ == [0x10809000, 0x5080D000, 0x8F7F9000, 0xCF7FD000]
