"""``sfpu-sim export`` (issue 19 item 4, "Back to tt-llk"): a registered kernel as tt-llk C++.

The tti style must give back the program's words through this project's own reader (the
``TTI_`` lines of the init and the kernel function, as ``register_kernel(asm=..., init=...)``
reads them). The sfpi style must say what the program computes: its text is translated back
into the DSL (:mod:`sfpu_sim.sfpi`, which mirrors sfpi C++ line for line), traced, and run
beside the original program on the same inputs; the output bits must be equal.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from sfpu_sim import registry, sfpi
from sfpu_sim.asm import assemble
from sfpu_sim.assembly_kernels import builder
from sfpu_sim.cli import main
from sfpu_sim.sweeps import DevicePath, run_device
from sfpu_sim.tt_llk_export import ExportRefused, export
from sfpu_sim.tt_llk_export_sfpi import sfpi_parts

# One kernel per kind of source: DSL (both chips), assembly (.s), SFPLOADMACRO (both chips,
# Blackhole's reciprocal), Blackhole-only instructions (SFPGT in floor, SFPARECIP, Blackhole's
# SFPLUTFP32 with its mod1 mirror field), negative immediates, a binary kernel.
COVERING = [("tanh", "wormhole"), ("tanh", "blackhole"), ("exp_approx_loadmacro", "wormhole"),
            ("exp_approx_loadmacro", "blackhole"), ("reciprocal_loadmacro", "blackhole"),
            ("floor_2026_09", "blackhole"), ("exp_2026_09", "blackhole"),
            ("reciprocal_approx", "blackhole"), ("tanh_approx_2026_09", "blackhole"),
            ("acos_2026_09", "wormhole"), ("binary_max_2026_09", "wormhole")]


def every_kernel_and_chip():
    return [(spec.name, chip) for spec in registry.specs() + registry.binary_specs()
            for chip in spec.chips]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------------------------
# tti: the words come back
# --------------------------------------------------------------------------------------------

def tti_functions(text: str) -> tuple[str, str]:
    """The TTI_ lines of the init function and of the kernel function of an export."""
    init, body, current = [], [], None
    for line in text.splitlines():
        if line.startswith("inline void "):
            current = init if line.endswith("_init()") else body
        elif line.strip().startswith("TTI_"):
            current.append(line)
    return "\n".join(init), "\n".join(body)


def assert_tti_round_trip(name: str, chip: str) -> None:
    spec = registry.get(name)
    program = spec.program(chip)
    init, body = tti_functions(export(spec, chip, "tti"))
    again = builder(name, {chip: body}, {chip: init}, "export:1")(program.arch)
    assert again.words == program.words
    assert again.init_length == program.init_length


@pytest.mark.parametrize("name, chip", COVERING)
def test_tti_export_assembles_back_to_the_same_words(name, chip):
    assert_tti_round_trip(name, chip)


@pytest.mark.slow
def test_tti_export_of_every_kernel_on_every_chip_assembles_back_to_the_same_words():
    for name, chip in every_kernel_and_chip():
        assert_tti_round_trip(name, chip)


def test_tti_export_spells_operands_as_tt_llk_does():
    text = export(registry.get("acos_2026_09"), "wormhole", "tti")
    calls = [line.strip().split(" //")[0] for line in text.splitlines()]
    # A negative immediate as its field bits (TT_OP adds the shifted fields), as tt-llk's
    # ckernel_sfpu_recip.h writes it; loads in llk_defs.h's names; SFPLOADI in sfpi's.
    assert "TTI_SFPIADD((-255) & 0xfff, p_sfpu::LREG4, p_sfpu::LREG4, 5);" in calls
    assert "TTI_SFPLOAD(p_sfpu::LREG0, InstrModLoadStore::DEFAULT, ADDR_MOD_0, 0);" in calls
    assert "TTI_SFPLOADI(p_sfpu::LREG4, sfpi::SFPLOADI_MOD0_UPPER, 0x5f37);" in calls
    assert "#pragma GCC unroll 8" in text and "        sfpi::dst_reg++;" in text


def test_tti_export_of_a_loadmacro_kernel_is_one_straight_line_call():
    text = export(registry.get("reciprocal_approx_loadmacro"), "blackhole", "tti")
    kernel = text[text.index("inline void calculate_reciprocal_approx_loadmacro()"):]
    assert "for (" not in kernel and "dst_reg++" not in kernel
    assert "TTI_SFPLOADMACRO(0, InstrModLoadStore::DEFAULT, ADDR_MOD_6, 14); " \
           "// reciprocal_approx_loadmacro_blackhole.s:26" in kernel


def test_the_reader_takes_tt_llk_negative_immediates_as_field_bits():
    # tt-llk ckernel_sfpu_recip.h: TTI_SFPSHFT((-16) & 0xFFF, ...) shifts right by 16
    words = assemble("TTI_SFPSHFT((-16) & 0xFFF, p_sfpu::LREG1, p_sfpu::LREG1, 5);",
                     "blackhole").words
    assert words == assemble("SFPSHFT -16, L1, L1, 5", "blackhole").words == [0x7AFF0115]


# --------------------------------------------------------------------------------------------
# sfpi: the text computes what the program computes
# --------------------------------------------------------------------------------------------

def _dsl_expression(text: str) -> str:
    text = text.replace("sfpi::", "").replace("LRegs::", "LRegs.")
    text = re.sub(r"reinterpret<(\w+)>\(", r"reinterpret(\1, ", text)
    text = re.sub(r"\b(0x[0-9a-f]+)u\b", r"\1", text)
    text = re.sub(r"\b(\d+\.\d*(?:e[-+]?\d+)?|\d+e[-+]?\d+)f\b", r"\1", text)
    lut2 = re.match(r"(.*\blut2(?:_sign)?\()(.*)\)(;?)$", text)
    if lut2:
        args = _arguments(lut2.group(2))
        mode = f"mode={args.pop()}" if len(args) == 8 else "mode=None"
        text = f"{lut2.group(1)}{', '.join(args + [mode])}){lut2.group(3)}"
    return text


def _arguments(text: str) -> list[str]:
    args, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            args.append(current.strip())
            current = ""
            continue
        depth += (char == "(") - (char == ")")
        current += char
    return args + [current.strip()]


def _condition(text: str) -> str:
    return "(" + _dsl_expression(text).replace(" && ", ") & (").replace(" || ", ") | (") + ")"


def dsl_source(lines: list[str]) -> list[str]:
    """sfpi lines as DSL Python (the DSL's spellings of declaration and assignment)."""
    out, depth = [], 1
    for raw in lines:
        line = raw.strip()
        pad = "    " * depth
        if not line or line.startswith("//"):
            continue
        if line == "{":
            depth += 1
            out.append("    " * depth + "pass")
        elif line == "}":
            depth -= 1
        elif line.startswith(("v_if (", "v_elseif (")):
            keyword, _, condition = line.partition(" (")
            out.append(f"{pad}with {keyword}({_condition(condition[:-1])}):")
        elif line == "v_else":
            out.append(f"{pad}with v_else():")
        elif line == "v_endif;":
            out.append(f"{pad}v_endif()")
        elif line.startswith("v_and("):
            out.append(f"{pad}v_and({_condition(line[6:-2])})")
        elif match := re.fullmatch(r"sfpi::(vFloat|vInt|vUInt) (\w+) = (.*);", line):
            kind, name, value = match.groups()
            value = _dsl_expression(value)
            value = f"reinterpret({kind}, {value})" if "l_reg[" in value else f"{kind}({value})"
            out.append(f"{pad}{name} = {value}")
        elif match := re.fullmatch(r"sfpi::(vFloat|vInt|vUInt) (\w+);", line):
            out.append(f"{pad}{match.group(2)} = {match.group(1)}()")
        elif match := re.fullmatch(r"(?:sfpi::)?(\w+) = (.*);", line):  # vConst*Prgm too
            out.append(f"{pad}{match.group(1)}.assign({_dsl_expression(match.group(2))})")
        else:
            out.append(pad + _dsl_expression(line.rstrip(";")))
    return out


class NotInDsl(Exception):
    """The export calls an sfpi function the DSL does not have, so it cannot be retraced."""


def retraced(program):
    """The program the DSL traces from the sfpi export of ``program``."""
    init, body, before, _ = sfpi_parts(program)
    source = "\n".join(["def init():", "    pass", *dsl_source(init), "", "def body():",
                        "    pass", *dsl_source(before + body)])
    if re.search(r"lz_nosgn|int32_to_u?int8|approx_recip<false>", source):
        raise NotInDsl(program)
    namespace = {name: getattr(sfpi, name) for name in sfpi.__all__}
    exec(compile(source, "<sfpi export>", "exec"), namespace)      # noqa: S102 - test code
    return sfpi.trace(namespace["body"], program.arch, init=namespace["init"], name="retraced")


INPUTS = np.unique(np.concatenate([np.arange(0, 0x10000, 13), [0, 0x8000, 0x7F80, 0xFF80, 0x7FC0,
                                                                0x0001, 0x8001, 0x3F80, 0xBF80]])
                   ).astype(np.uint16)


def assert_sfpi_computes_the_same(name: str, chip: str) -> None:
    spec = registry.get(name)
    program = spec.program(chip)
    again = retraced(program)
    path = DevicePath(dest=spec.dest)
    if spec.operands == 2:
        from sfpu_sim.binary_device import run_binary_device

        first = run_binary_device(program, INPUTS, INPUTS[::-1].copy(), path, engine="machine")
        second = run_binary_device(again, INPUTS, INPUTS[::-1].copy(), path, engine="machine")
    else:
        first = run_device(program, INPUTS, path, engine="machine")
        second = run_device(again, INPUTS, path, engine="machine")
    assert np.array_equal(first.kernel_fp32, second.kernel_fp32), name
    assert np.array_equal(first.output, second.output), name


SFPI_SUBSET = [("tanh", "wormhole"), ("erf", "blackhole"), ("sigmoid_2026_09", "wormhole"),
               ("exp_legacy", "blackhole"), ("log", "wormhole"), ("sigmoid_approx", "blackhole"),
               ("acos_2026_09", "blackhole"), ("binary_mul_rne_2026_09", "wormhole")]


@pytest.mark.parametrize("name, chip", SFPI_SUBSET)
def test_sfpi_export_computes_what_the_program_computes(name, chip):
    assert_sfpi_computes_the_same(name, chip)


@pytest.mark.slow
def test_sfpi_export_of_every_exportable_kernel_computes_what_its_program_computes():
    checked = 0
    for name, chip in every_kernel_and_chip():
        try:
            export(registry.get(name), chip, "sfpi")
        except ExportRefused:
            continue
        try:
            assert_sfpi_computes_the_same(name, chip)
        except NotInDsl:                  # counted out: the total below must still hold
            continue
        checked += 1
    assert checked >= 400


# --------------------------------------------------------------------------------------------
# sfpi: the text itself, and what it refuses
# --------------------------------------------------------------------------------------------

EXAMPLE = '''\
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, dst_reg, exexp, setexp, v_else, v_elseif, v_endif, v_if,
                           vConst1, vConstFloatPrgm0, vFloat)


def init():
    vConstFloatPrgm0.assign(0.75)


def body():
    x = dst_reg[0]
    y = vFloat(vConst1)
    e = exexp(x)
    with v_if(x < -2.0):
        y.assign(x * vConstFloatPrgm0 + 0.5)
    with v_elseif(e >= 3):
        y.assign(setexp(x, 126))
    with v_else():
        y.assign(abs(x) - x * x)
    v_endif()
    dst_reg[0] = y


register_kernel("export_example", body, init=init, function="tanh")
'''

# Read against the program (sfpu-sim kernel show export_example --arch wormhole): the init's
# SFPLOADI 0.75 + SFPCONFIG L12; x - (-2) tested < 0 is x < -2; e - 3 tested >= 0 is e >= 3;
# the first y (SFPMOV from L10) is dead, as every lane takes a branch that writes y again;
# Wormhole computes abs(x) - x*x as (-x) * x + abs(x) (SFPMOV NEGATE, SFPMAD).
EXAMPLE_WORMHOLE = '''\
// sfpu-sim kernel export_example on Wormhole B0, in the sfpi style: 23 instructions per iteration,
// 2 in the init.

inline void export_example_init()
{
    // export_example.py:7: vConstFloatPrgm0.assign(0.75)
    sfpi::vConstFloatPrgm0 = 0.75f;
}

template <int ITERATIONS = 8>
inline void calculate_export_example()
{
#pragma GCC unroll 8
    for (int d = 0; d < ITERATIONS; d++)
    {
        // export_example.py:11: x = dst_reg[0]
        sfpi::vFloat x = sfpi::dst_reg[0];
        // export_example.py:12: y = vFloat(vConst1)
        sfpi::vFloat y = sfpi::vFloat(sfpi::vConst1);
        // export_example.py:13: e = exexp(x)
        sfpi::vInt e = sfpi::exexp(x);
        sfpi::vFloat y_2;
        v_if (x < -2.0f)
        {
            // export_example.py:15: y.assign(x * vConstFloatPrgm0 + 0.5)
            y_2 = x * sfpi::vConstFloatPrgm0 + 0.5f;
        }
        v_elseif (e >= 3)
        {
            // export_example.py:17: y.assign(setexp(x, 126))
            y_2 = sfpi::setexp(x, 126);
        }
        v_else
        {
            // export_example.py:19: y.assign(abs(x) - x * x)
            sfpi::vFloat t0 = sfpi::abs(x);
            sfpi::vFloat t1 = x * x;
            y_2 = t0 - t1;
        }
        v_endif;
        // export_example.py:21: dst_reg[0] = y
        sfpi::dst_reg[0] = y_2;
        sfpi::dst_reg++;
    }
}
'''


@pytest.fixture
def example(tmp_path, isolated):
    path = tmp_path / "export_example.py"
    path.write_text(EXAMPLE)
    registry.load_kernel_files([path])
    return path


def test_sfpi_export_of_a_dsl_kernel_reads_like_its_source(example):
    assert export(registry.get("export_example"), "wormhole", "sfpi") == EXAMPLE_WORMHOLE
    assert_sfpi_computes_the_same("export_example", "wormhole")


def test_sfpi_export_on_blackhole_fuses_the_negated_product_as_sfpi_gcc_does(example):
    text = export(registry.get("export_example"), "blackhole", "sfpi")
    # Blackhole: one SFPMAD with NEGATE_VA, sfpi's abs(x) - x * x
    assert "            sfpi::vFloat t0 = sfpi::abs(x);\n            y_2 = t0 - x * x;\n" in text
    assert_sfpi_computes_the_same("export_example", "blackhole")


def test_sfpi_export_keeps_a_lone_product_unfused():
    # sfpi-gcc fuses a product used once by an addition: the export keeps its own rounding.
    program = assemble("SFPLOAD L0, 0, 0, 0\nSFPMUL L0, L0, L9, L1, 0\n"
                       "SFPADD L1, L10, L0, L2, 0\nSFPSTORE L2, 0, 0, 0", "wormhole")
    _, body, _, _ = sfpi_parts(program)
    assert body == ["sfpi::vFloat t0 = sfpi::dst_reg[0];",
                    "sfpi::vFloat t1 = t0 * t0 + sfpi::vConst0;",
                    "sfpi::vFloat t2 = t1 + t0;",
                    "sfpi::dst_reg[0] = t2;"]


def test_a_chain_after_which_its_own_chain_complements_again_is_not_a_v_elseif():
    # v_elseif's push is popped only at v_endif, so a later SFPCOMPC of the outer chain
    # (lanes x < 0 again, as the outer push holds them) is a second v_else, not the elseif's.
    program = assemble("""SFPLOAD L0, 0, 0, 0
        SFPLOADI L1, 0, 0x3f80
        SFPPUSHC 0, 0, 0, 0
        SFPSETCC 0, L0, L0, 0
        SFPMOV 0, L9, L1, 0
        SFPCOMPC 0, 0, 0, 0
        SFPPUSHC 0, 0, 0, 0
        SFPSETCC 0, L0, L0, 6
        SFPMOV 0, L11, L1, 0
        SFPPOPC 0, 0, 0, 0
        SFPCOMPC 0, 0, 0, 0
        SFPMAD L1, L1, L0, L1, 0
        SFPPOPC 0, 0, 0, 0
        SFPSTORE L1, 0, 0, 0""", "blackhole")
    _, body, _, _ = sfpi_parts(program)
    assert body == ["sfpi::vFloat t0 = sfpi::dst_reg[0];", "sfpi::vFloat t1 = 1.0f;",
                    "v_if (t0 < 0.0f)", "{", "    t1 = sfpi::vFloat(sfpi::vConst0);", "}",
                    "v_else", "{", "    v_if (t0 == 0.0f)", "    {",
                    "        t1 = sfpi::vFloat(sfpi::vConstNeg1);", "    }", "    v_endif;", "}",
                    "v_else", "{", "    t1 = t1 * t1 + t0;", "}", "v_endif;",
                    "sfpi::dst_reg[0] = t1;"]


@pytest.mark.parametrize("name, chip, message", [
    ("reciprocal_approx_loadmacro", "blackhole", ("instruction 0 (SFPARECIP): it writes L12: a "
     "write to L12-L15 captures a LoadMacro template, which sfpi has no spelling for")),
    ("exp_approx_loadmacro", "wormhole", ("instruction 11 (SFPCONFIG): VD 0 mod1 0 configures "
     "LoadMacro, the lane configuration or a constant by a mode: sfpi sets only "
     "vConst*Prgm0-2, from a literal")),
    ("floor_2026_09", "wormhole", ("instruction 3 (SFPEXEXP): mod1 = 10: sfpi's library has no "
     "function for this mode (it has 0: exexp, 1: exexp_nodebias)")),
    # v_if (y < 0 || y == NaN) ... v_else: the NaN constant is loaded inside the complemented
    # condition, which would read back as a second v_else the DSL refuses.
    ("binary_xlogy_2026_09", "wormhole", ("instruction 12 (SFPPUSHC): an OR condition that "
     "needs a value computed for it (a constant to compare with), followed by v_else: not "
     "written back as sfpi yet")),
])
def test_sfpi_export_refuses_what_sfpi_cannot_say_in_one_line(name, chip, message):
    with pytest.raises(ExportRefused) as refused:
        export(registry.get(name), chip, "sfpi")
    assert str(refused.value) == message


def test_a_raw_loadmacro_is_refused_by_name():
    program = assemble("SFPLOADMACRO 0, 0, 0, 0\nSFPSTORE L0, 0, 0, 0", "blackhole")
    with pytest.raises(ExportRefused, match=r"^instruction 0 \(SFPLOADMACRO\): raw LoadMacro: "
                                            r"sfpi has no LoadMacro intrinsic$"):
        sfpi_parts(program)


def test_a_read_of_a_register_nothing_wrote_is_refused():
    program = assemble("SFPMOV 0, L3, L0, 0\nSFPSTORE L0, 0, 0, 0", "wormhole")
    with pytest.raises(ExportRefused, match=r"^instruction 0 \(SFPMOV\): it reads L3 where no "
                                            r"instruction of the kernel wrote it"):
        sfpi_parts(program)


# --------------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------------

def test_export_prints_the_function_to_stdout(capsys):
    code, out, _ = run(capsys, "export", "tanh", "--arch", "blackhole", "--style", "tti")
    assert code == 0
    assert out == export(registry.get("tanh"), "blackhole", "tti")


def test_export_takes_a_kernels_file_kernel(capsys, example):
    code, out, _ = run(capsys, "export", "export_example", "--arch", "wormhole", "--style",
                       "sfpi", "--kernels", str(example))
    assert (code, out) == (0, EXAMPLE_WORMHOLE)
    assert_tti_round_trip("export_example", "blackhole")


def test_export_takes_an_assembly_file_as_the_kernel(capsys):
    code, out, _ = run(capsys, "export", "kernels/asm/tanh_wormhole.s", "--arch", "wormhole",
                       "--style", "tti")
    assert code == 0
    program = registry.get("kernels/asm/tanh_wormhole.s").program("wormhole")
    init, body = tti_functions(out)
    assert assemble(init + "\n" + body, "wormhole").words == program.words
    assert "inline void calculate_tanh_wormhole_s()" in out


def test_export_writes_out_atomically_and_replaces_only_with_force(capsys, tmp_path):
    target = tmp_path / "tanh.h"
    code, out, _ = run(capsys, "export", "tanh", "--arch", "wormhole", "--style", "sfpi",
                       "--out", str(target))
    assert code == 0 and out == f"wrote {target} (sfpi style, Wormhole B0)\n"
    assert target.read_text() == export(registry.get("tanh"), "wormhole", "sfpi")
    target.write_text("mine")
    code, _, err = run(capsys, "export", "tanh", "--arch", "wormhole", "--style", "tti",
                       "--out", str(target))
    assert code == 2 and target.read_text() == "mine"
    assert err == f"sfpu-sim: error: --out {target}: the file exists; pass --force to " \
                  f"replace it\n"
    code, _, _ = run(capsys, "export", "tanh", "--arch", "wormhole", "--style", "tti",
                     "--out", str(target), "--force")
    assert code == 0 and target.read_text().startswith("// sfpu-sim kernel tanh = ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tanh.h"]


def test_export_refusal_is_one_line_exit_2_and_writes_nothing(capsys, tmp_path):
    target = tmp_path / "x.h"
    code, out, err = run(capsys, "export", "floor_2026_09", "--arch", "wormhole", "--style",
                         "sfpi", "--out", str(target))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("sfpu-sim: error: instruction 3 (SFPEXEXP)")
    assert not target.exists()


def test_export_of_a_chained_op_or_a_kernel_not_on_the_chip_is_one_line(capsys):
    chained = registry.chained_specs()[0].name
    code, _, err = run(capsys, "export", chained, "--arch", "wormhole", "--style", "tti")
    assert code == 2 and "is a chained op" in err and err.count("\n") == 1
    code, _, err = run(capsys, "export", "reciprocal_loadmacro", "--arch", "wormhole",
                       "--style", "tti")
    assert (code, err) == (2, ("sfpu-sim: error: kernel 'reciprocal_loadmacro' does not exist "
                              "on Wormhole B0 (it runs on: blackhole)\n"))
