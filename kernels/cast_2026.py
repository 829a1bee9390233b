"""CastFp32ToFp16a of the 2026-09-30 accuracy table: tt-metal's raw-TTI ``cast_fp32_to_fp16a``,
written here in assembly (the DSL's ``dst_reg`` store has no form for an explicit SFPSTORE
format).

What the harness runs (tt-llk ``tests/helpers/include/sfpu_operations.h`` @008a3c3b, see
kernels/ops_2026_09.py): ``cast_fp32_to_fp16a<APPROX, 32>`` with the bare SFPU init; the
template has no ``is_fp32_dest_acc_en`` parameter, so one program runs with either Dst.

Source (facts only: instructions, operands, order): tenstorrent/tt-metal
``tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/
ckernel_sfpu_cast_fp32_to_fp16a.h``, WH @e079b823 (index id 2488758625), BH @049e2880 (index id
3217815771). Not dated by the index; every stored version found (WH @120b164d, id 7059869497;
tt-llk's ``_cast_fp32_to_fp16a_`` ids 2692746632, 52753826725; the dst_index_in/out variants
ids 53294198364, 53351347093, 56321736116, which the harness's zero-argument call cannot be)
has the same three instructions per row, and the one sfpi rewrite found (id 54905103388,
``convert<vFloat16a>(x, NearestEven)`` stored through ``.mode<SFPSTORE_MOD0_FMT_FP16A>()``,
with a typo that cannot compile) keeps the FP16A store. Both chips' bodies are identical:

    SFPLOAD        L0, mode 0 (SRCB: FP32 with an FP32 Dst, else the SrcB format), ADDR_MOD 3
    SFP_STOCH_RND  rnd_mode 0, L0 -> L0, Mod1 8 (FP32_TO_FP16A; bit 3, UseImm5, is ignored by
                   the float flavour)
    SFPSTORE       L0, mode 1 (FP16), ADDR_MOD 3

SFP_STOCH_RND's rnd_mode 0 is "nearest, ties away from zero" (SFPSTOCHRND_FloatFloat.md): the
mantissa is cut to 10 bits, the FP32 exponent kept; zero and denormals become +0, Inf and NaN
the signed infinity. SFPSTORE mode 1 (SFPSTORE.md) then writes a 16-bit Dst cell in the FP16
encoding (below 2**-14 -> signed zero, overflow -> the 0x7FFF pattern, mantissa truncated).
AddrMod 3 is ADDR_MOD_7 under the SFPU's AddrMod base (no increments): mode 0 here, the Dst walk
being the harness's addressing.

What that predicts, and what it does not (tests/test_kernels_cast_2026.py): with an FP16 Dst
(Float16 in and out) the store matches the Dst, and the cells are 0 as measured. With a BF16
Dst, or an FP32 Dst (where a 16-bit store writes half of a 32-bit datum, the way tt-llk PR #569
describes for its FP16B typecast store), the FP16 encoding is read back as another format and
the model gives garbage; the device measured 0 (BF16) and 8,192 (FP32 in, FP32 Dst), which is
what the same rounding gives when the value reaches the packer unchanged, exponent and all.
"""
from __future__ import annotations

from sfpu_sim.asm import assemble
from sfpu_sim.registry import register_program

SOURCE = ("tt-metal tt_metal/hw/ckernels/{wormhole_b0,blackhole}/metal/llk_api/llk_sfpu/"
          "ckernel_sfpu_cast_fp32_to_fp16a.h: WH @e079b823 (index id 2488758625), BH @049e2880 "
          "(index id 3217815771); undated, the same three instructions in every stored version "
          "(WH @120b164d, tt-llk ids 2692746632, 52753826725)")

# One Dst row per pass, both chips: TTI_SFPLOAD(0, 0, 3, 0); TTI_SFP_STOCH_RND(0, 0, 0, 0, 0,
# 8); TTI_SFPSTORE(0, 1, 3, 0). AddrMod 3 (ADDR_MOD_7, no increments) is written as 0.
CAST_FP32_TO_FP16A = """
SFPLOAD       L0, SRCB, 0, 0
SFP_STOCH_RND 0, 0, L0, L0, L0, 8       # FP32_TO_FP16A | UseImm5 (ignored): nearest, ties away
SFPSTORE      L0, FP16, 0, 0            # Dst16b = FP16 encoding, truncated and saturated
"""


def cast_fp32_to_fp16a_program(arch):
    """``cast_fp32_to_fp16a<APPROXIMATION_MODE, ITERATIONS>``: one row of its loop."""
    return assemble(CAST_FP32_TO_FP16A, arch, filename="kernels/cast_2026.py:cast_fp32_to_fp16a")


register_program(
    "cast_fp32_to_fp16a_2026_09", cast_fp32_to_fp16a_program, function="fp16a_rne",
    mode="accurate", dest="bf16", template="cast_fp32_to_fp16a",
    params={"APPROXIMATION_MODE": False, "ITERATIONS": 32},
    provenance=f"{SOURCE}: SFPLOAD (mode 0), SFP_STOCH_RND FP32_TO_FP16A nearest (ties away, "
               "Mod1 8), SFPSTORE mode 1 (FP16 encoding, truncating, saturating); the same "
               "program for either Dst",
    description="CastFp32ToFp16a row, either Dst: tt-metal cast_fp32_to_fp16a<false, 32> "
                "(SFP_STOCH_RND to 10 mantissa bits, then an FP16-format store)")
