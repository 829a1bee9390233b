"""A user's kernel file: registered through the public register_kernel, loaded with --kernels or
$SFPU_SIM_KERNELS, usable by every command; every mistake in it is one line naming its line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from sfpu_sim import reference, registry
from sfpu_sim.cli import main
from sfpu_sim.testing import assert_kernel_within_ulp

ROOT = Path(__file__).resolve().parent.parent

SQUARE = '''\
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg


def square():
    x = dst_reg[0]
    dst_reg[0] = x * x


register_kernel("user_square", square, function="user_square_fn",
                reference=lambda x: x * x, provenance="test file")
'''


def write(tmp_path, text: str, name: str = "mine.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_kernel_file_works_in_sweep_eval_trace_show_budget_and_report(capsys, tmp_path,
                                                                         isolated):
    path = write(tmp_path, SQUARE)
    code, out, _ = run(capsys, "sweep", "user_square", "--arch", "wormhole", "--kernels",
                       str(path), "--json")
    assert code == 0
    summary = json.loads(out)
    # x*x is one SFPMUL (products of BF16 values are exact in FP32), then the truncating BF16
    # store: at most 1 ULP below the correctly rounded square, never more.
    assert summary["kernel"] == "user_square" and summary["max_ulp"] == 1
    code, out, _ = run(capsys, "eval", "user_square", "--arch", "blackhole", "--json", "3",
                       "--kernels", str(path))
    assert code == 0 and json.loads(out)["results"][0]["output_bits"] == "0x4110"   # 9.0
    code, out, _ = run(capsys, "trace", "user_square", "--arch", "blackhole", "--x", "1.5",
                       "--kernels", str(path))
    assert code == 0 and "SFPMUL" in out
    code, out, _ = run(capsys, "kernel", "show", "user_square", "--arch", "wormhole",
                       "--kernels", str(path))
    assert code == 0 and "SFPMUL" in out
    code, out, _ = run(capsys, "budget", "user_square", "--kernels", str(path))
    assert code == 0 and out.count("user_square") == 2
    code, out, _ = run(capsys, "report", "user_square", "--arch", "blackhole", "--out",
                       str(tmp_path / "out"), "--files", "json", "--kernels", str(path))
    assert code == 0
    assert json.loads((tmp_path / "out" / "user_square_blackhole_bf16_rne.json").read_text())[
        "max_ulp"] == 1


def test_kernel_file_in_compare_and_in_pytest_helper(capsys, tmp_path, isolated):
    path = write(tmp_path, SQUARE)
    code, out, _ = run(capsys, "compare", "user_square@wormhole", "user_square@blackhole",
                       "--out", str(tmp_path), "--files", "json", "--kernels", str(path))
    assert code == 0 and "user_square" in out
    registry.load_kernel_files([path])
    # Wormhole's SFPMUL turns a NaN into Inf: special values fail unless declared.
    with pytest.raises(AssertionError, match="254 NaN inputs do not give a NaN"):
        assert_kernel_within_ulp("user_square", "wormhole", 1)
    assert_kernel_within_ulp("user_square", "wormhole", 1, specials=False)
    with pytest.raises(AssertionError, match="exceeds the budget of 0 ULP"):
        assert_kernel_within_ulp("user_square", "wormhole", 0, specials=False)


def test_kernel_files_from_the_environment_variable(tmp_path):
    first = write(tmp_path, SQUARE, "first.py")
    second = write(tmp_path, SQUARE.replace("user_square", "user_square_two"), "second.py")
    env = {**os.environ, "SFPU_SIM_KERNELS": f"{first}{os.pathsep}{second}"}
    done = subprocess.run([sys.executable, "-m", "sfpu_sim", "eval", "user_square_two",
                           "--arch", "wormhole", "--json", "0x4040"], env=env, cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"][0]["output_bits"] == "0x4110"


def error_line(capsys, tmp_path, text: str, *argv) -> str:
    path = write(tmp_path, text)
    code, _, err = run(capsys, *(argv or ("kernels",)), "--kernels", str(path))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0].replace(str(path), "FILE")


def test_syntax_error_names_the_file_and_line(capsys, tmp_path, isolated):
    assert error_line(capsys, tmp_path, "x = 1\ndef f(:\n") == \
        "sfpu-sim: error: FILE:2: syntax error: invalid syntax"


def test_an_exception_in_the_file_names_its_line(capsys, tmp_path, isolated):
    assert error_line(capsys, tmp_path, "x = 1\ny = undefined_name\n") == \
        "sfpu-sim: error: FILE:2: NameError: name 'undefined_name' is not defined"


def test_duplicate_name_names_both_places(capsys, tmp_path, isolated):
    line = error_line(capsys, tmp_path, SQUARE.replace('"user_square",', '"tanh",'))
    assert line.startswith("sfpu-sim: error: FILE:10: kernel 'tanh' is already registered "
                           "(at kernels/tanh.py:")


def test_unknown_function_is_refused_at_registration(capsys, tmp_path, isolated):
    text = SQUARE.replace('function="user_square_fn",\n                reference=lambda x: x '
                          '* x,', 'function="no_such_fn",')
    line = error_line(capsys, tmp_path, text)
    assert line.startswith("sfpu-sim: error: FILE:10: unknown function 'no_such_fn' (known: ")


def test_dsl_misuse_names_the_kernel_line_when_built(capsys, tmp_path, isolated):
    text = SQUARE.replace("    dst_reg[0] = x * x", "    if x > 0:\n        dst_reg[0] = x")
    line = error_line(capsys, tmp_path, text, "kernel", "show", "user_square", "--arch",
                      "wormhole")
    assert line.startswith("sfpu-sim: error: FILE:7: a vector condition has no truth value")


def test_a_python_error_in_the_body_names_the_body_line(capsys, tmp_path, isolated):
    text = SQUARE.replace("    dst_reg[0] = x * x", "    dst_reg[0] = x * undefined")
    line = error_line(capsys, tmp_path, text, "kernel", "show", "user_square", "--arch",
                      "wormhole")
    assert line == ("sfpu-sim: error: FILE:7: building kernel 'user_square' on wormhole: "
                    "NameError: name 'undefined' is not defined")


PRESSURE = '''\
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg
from kernels.reciprocal import reciprocal, reciprocal_init


def crowded():
    x = dst_reg[0]
    held = [x * float(k) for k in range(2, 8)]
    r = reciprocal(x)
    for h in held:
        r = r + h
    dst_reg[0] = r


register_kernel("crowded", crowded, init=reciprocal_init, function="reciprocal")
'''


def test_register_pressure_names_the_users_call_site_not_the_library(capsys, tmp_path,
                                                                       isolated):
    line = error_line(capsys, tmp_path, PRESSURE, "kernel", "show", "crowded", "--arch",
                      "wormhole")
    assert line.startswith("sfpu-sim: error: FILE:9 (in kernels/reciprocal.py:")
    assert "more than 8 values live at once" in line


def test_non_utf8_and_missing_files_are_one_line(capsys, tmp_path, isolated):
    binary = tmp_path / "binary.py"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = run(capsys, "kernels", "--kernels", str(binary))
    assert code == 2 and err == (f"sfpu-sim: error: {binary}: not UTF-8 text (byte 0); a "
                                 f"kernel file is Python source\n")
    code, _, err = run(capsys, "kernels", "--kernels", str(tmp_path / "absent.py"))
    assert code == 2 and err == (f"sfpu-sim: error: --kernels {tmp_path / 'absent.py'}: no "
                                 f"such file or directory\n")


def test_a_reference_that_returns_a_float_is_refused(capsys, tmp_path, isolated):
    text = SQUARE.replace("reference=lambda x: x * x",
                          "reference=lambda x: float(x) * float(x)")
    line = error_line(capsys, tmp_path, text, "eval", "user_square", "--arch", "wormhole",
                      "2.5")
    assert "reference 'user_square_fn' returned float" in line


def test_user_reference_is_correctly_rounded_by_the_mpmath_backend(isolated):
    reference.register_user_function("cube_test", lambda x: x ** 3)
    reference.register_user_function("square_test", lambda x: x * x)
    bits = np.array([0x3FC0, 0x4040, 0xBF81, 0x0000, 0x8000], dtype=np.uint16)
    result = reference.reference("cube_test", bits, cache=False)
    assert result.backend == "mpmath"
    # 3.375 and 27 are exact in BF16; (-1.0078125)^3 = -1.023622..., nearest BF16 -1.0234375;
    # cube(+-0) = +-0 (odd) while square(-0) = +0.
    assert result.bits.tolist() == [0x4058, 0x41D8, 0xBF83, 0x0000, 0x8000]
    square = reference.reference("square_test", bits[3:], cache=False)
    assert square.bits.tolist() == [0x0000, 0x0000]
