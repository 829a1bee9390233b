"""``sfpu-sim fit``: the command, the kernel file it emits, and that file in the other commands.

The emitted kernels' device bits are checked against an independent model of what they must
compute: the chain of multiply-adds evaluated directly with the chip's FMA model
(:mod:`sfpu_sim.fma`, itself checked against Tenstorrent's golden vectors), the BF16 input
widened exactly and the result stored as SFPSTORE does (denormals flushed, then truncated).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sfpu_sim import formats, registry, ulp
from sfpu_sim.cli import main
from sfpu_sim.fma import MODELS
from sfpu_sim.sweeps import DevicePath, run_device

ROOT = Path(__file__).resolve().parent.parent
EXP = ["fit", "exp", "--interval", "0,log(2)", "--powers", "0,1,2,3"]
KEYS = ["coefficients", "powers", "sup_error", "minimax_error", "format", "interval"]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def fp32_bits(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def stored(result_bits) -> np.ndarray:
    """SFPSTORE into a BF16 Dst (SFPSTORE.md): denormals flushed, then truncation."""
    return formats.fp32_to_bf16_truncate(formats.flush_denormals(result_bits))


def test_fit_json_keys_values_and_determinism(capsys, isolated):
    code, out, _ = run(capsys, *EXP, "--json")
    assert code == 0
    document = json.loads(out)
    assert list(document)[:6] == KEYS
    # The coefficients pinned in test_design.py (proven better than Sollya's).
    assert fp32_bits(document["coefficients"]).tolist() == [0x3F7FF8FD, 0x3F809C79,
                                                            0x3EEF11BB, 0x3E738A3C]
    assert document["powers"] == [0, 1, 2, 3] and document["format"] == ["fp32"] * 4
    assert document["interval"] == [0.0, float(np.log(2))]
    assert document["certified"] is True
    assert document["minimax_error"] < document["sup_error"]
    again = run(capsys, *EXP, "--json")[1]
    assert again == out


def test_interval_may_start_with_a_minus_sign(capsys):
    code, out, _ = run(capsys, "fit", "sin", "--interval", "-pi/4,pi/4", "--powers",
                       "1,3,5,7", "--json")
    assert code == 0
    assert json.loads(out)["interval"] == [-float(np.pi / 4), float(np.pi / 4)]


def test_emitted_horner_kernel_runs_the_sfpmad_chain_on_both_chips(capsys, tmp_path,
                                                                   isolated):
    path = tmp_path / "exp_core.py"
    code, out, _ = run(capsys, *EXP, "--emit", str(path), "--sweep", "--json")
    assert code == 0
    document = json.loads(out)
    assert document["emitted"] == {"kernel_file": str(path), "kernel": "exp_core",
                                   "scheme": "horner"}
    c0, c1, c2, c3 = fp32_bits(document["coefficients"])
    spec = registry.get("exp_core")
    inputs = ulp.population("daz")
    values = formats.bits_to_float64(inputs, formats.BF16)
    inputs = inputs[(values >= 0) & (values <= np.log(2))]
    x = formats.bf16_to_fp32_bits(inputs)
    for chip in ("wormhole", "blackhole"):
        program = spec.program(chip)
        assert [i.mnemonic for i in program].count("SFPMAD") == 3    # one per Horner step
        fma = MODELS[chip]
        expected = stored(fma(x, fma(x, fma(x, c3, c2), c1), c0))
        assert np.array_equal(run_device(program, inputs, DevicePath()).output, expected)
    sweep = document["sweep"]
    assert sweep["inputs"] == inputs.size
    assert set(sweep["rows"]) == {"polynomial", "wormhole", "blackhole"}


def test_emitted_estrin_kernel_runs_the_estrin_order(capsys, tmp_path, isolated):
    path = tmp_path / "sin_estrin.py"
    code, out, _ = run(capsys, "fit", "sin", "--interval", "-pi/4,pi/4", "--powers",
                       "1,3,5,7", "--emit", str(path), "--scheme", "estrin", "--json")
    assert code == 0
    c1, c3, c5, c7 = fp32_bits(json.loads(out)["coefficients"])
    assert c1 == 0x3F800000
    registry.load_kernel_files([path])
    spec = registry.get("sin_estrin")
    inputs = ulp.population("daz")
    x = formats.bf16_to_fp32_bits(inputs)
    zero = np.uint32(0)
    for chip in ("wormhole", "blackhole"):
        fma = MODELS[chip]
        x2 = fma(x, x, zero)
        low, high = fma(x2, c3, c1), fma(x2, c7, c5)
        expected = stored(fma(x, fma(fma(x2, x2, zero), high, low), zero))
        assert np.array_equal(run_device(spec.program(chip), inputs, DevicePath()).output,
                              expected)


def test_emitted_kernel_goes_through_report_and_compare(capsys, tmp_path, isolated):
    path = tmp_path / "exp_core.py"
    assert run(capsys, *EXP, "--emit", str(path))[0] == 0
    out_dir = tmp_path / "reports"
    code, out, err = run(capsys, "report", "exp_core", "--arch", "blackhole", "--kernels",
                         str(path), "--out", str(out_dir))
    assert code == 0, err
    assert list(out_dir.glob("exp_core_blackhole*.md"))
    code, out, err = run(capsys, "compare", "exp_core@wormhole", "exp_core@blackhole",
                         "--kernels", str(path), "--out", str(out_dir))
    assert code == 0, err
    assert "exp_core" in out


def test_fit_prints_the_prediction_table(capsys, tmp_path, isolated):
    path = tmp_path / "cos_core.py"
    code, out, _ = run(capsys, "fit", "cos", "--interval", "-pi/4,pi/4", "--powers",
                       "0,2,4,6", "--emit", str(path), "--sweep", "--arch", "wormhole",
                       "--range", "0,pi/4")
    assert code == 0
    assert "certified" in out and "predicted ULP" in out and "Wormhole B0" in out
    assert "Blackhole" not in out
    assert f"wrote {path}" in out


@pytest.mark.parametrize("argv, words", [
    (["fit", "exp", "--interval", "0,foo(2)", "--powers", "0,1"], "cannot read"),
    (["fit", "exp", "--interval", "0,1", "--powers", ","], "empty"),
    (["fit", "log", "--interval", "-1,1", "--powers", "0,1"], "undefined"),
    (["fit", "exp", "--interval", "0,1", "--degree", "60"], "too high"),
    (["fit", "exp", "--interval", "0,1", "--powers", "0,1", "--sweep"], "--emit"),
    (["fit", "nope", "--interval", "0,1", "--powers", "0,1"], "unknown"),
    (["fit", "exp", "--interval", "0,1", "--powers", "0,1", "--emit", "k.txt"], ".py"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err and err.startswith("sfpu-sim: error:")


def test_no_traceback_from_the_installed_command(tmp_path):
    done = subprocess.run([sys.executable, "-m", "sfpu_sim", "fit", "exp", "--interval",
                           "0,log(-1)", "--powers", "0,1"], capture_output=True, text=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


USER_FUNCTION = '''\
import mpmath

from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg


def twice_exp():
    x = dst_reg[0]
    dst_reg[0] = x + x


register_kernel("user_twice_exp", twice_exp, function="user_twice_exp_fn",
                reference=lambda x: 2 * mpmath.exp(x))
'''


def test_a_kernel_files_reference_can_be_fitted_but_not_proven(capsys, tmp_path, isolated):
    path = tmp_path / "mine.py"
    path.write_text(USER_FUNCTION)
    code, out, err = run(capsys, "fit", "user_twice_exp_fn", "--interval", "0,0.5",
                         "--powers", "0,1,2", "--kernels", str(path), "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["certified"] is False
    # The minimax polynomial of 2 exp is twice exp's (the exchange is linear in f).
    code, out, _ = run(capsys, "fit", "exp", "--interval", "0,0.5", "--powers", "0,1,2",
                       "--json")
    proven = json.loads(out)
    assert document["minimax_error"] == pytest.approx(2 * proven["minimax_error"], rel=1e-12)
    code, text, _ = run(capsys, "fit", "user_twice_exp_fn", "--interval", "0,0.5",
                        "--powers", "0,1,2")
    assert "NOT proven" in text


def test_emit_never_overwrites_an_input_kernel_file(capsys, tmp_path, isolated):
    path = tmp_path / "mine.py"
    path.write_text(USER_FUNCTION)
    before = path.read_text()
    code, out, err = run(capsys, "fit", "exp", "--interval", "0,1", "--powers", "0,1",
                         "--kernels", str(path), "--emit", str(path))
    assert code == 2 and "is an input" in err and err.count("\n") == 1
    assert path.read_text() == before
