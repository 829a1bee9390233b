"""Robust for every user, round two: kernel files and user references. Each test failed before
its fix. A kernel file or a user reference that misbehaves is one line naming it and exit 2; a
changed reference is never answered from a stale cache; stdout carries only the command's own
output."""
from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from sfpu_sim import reference, registry
from sfpu_sim.cli import main
from sfpu_sim.reference import definitions
from tests.conftest import fails_after

# A kernel of a built-in function (its reference is certified by flint in a fraction of a second)
TWICE = '''\
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg


def twice():
    x = dst_reg[0]
    dst_reg[0] = x + x


register_kernel("user_twice", twice, function="tanh")
'''

# A kernel of a user reference that reads a module constant.
THIRD = '''\
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg

DIVISOR = {divisor}


def third():
    dst_reg[0] = dst_reg[0] * 0.33333334


register_kernel("user_third", third, function="user_third_fn",
                reference=lambda x: x / DIVISOR)
'''


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch, tmp_path):
    """Registrations and reference tables as a new process has them (the built-ins only, an
    empty memory cache), in a private cache directory; calling it again starts over, as a
    second process with the same $SFPU_SIM_CACHE would."""
    registry.names()
    kernels, loaded = dict(registry._REGISTRY), set(registry._LOADED)
    functions = dict(definitions.FUNCTIONS)
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(registry.ENV_VARIABLE, raising=False)

    def start() -> None:
        monkeypatch.setattr(registry, "_REGISTRY", dict(kernels))
        monkeypatch.setattr(registry, "_LOADED", set(loaded))
        monkeypatch.setattr(definitions, "FUNCTIONS", dict(functions))
        reference.clear_memory()

    start()
    yield start
    reference.clear_memory()


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# --- 1. The reference cache keys a user reference on what it computes ----------------------

def test_changing_a_constant_a_reference_reads_changes_the_next_sweep(capsys, tmp_path,
                                                                      monkeypatch,
                                                                      fresh_process):
    kernel_file = tmp_path / "third.py"
    tables = []
    original = reference.cache.evaluate
    monkeypatch.setattr(reference.cache, "evaluate",
                        lambda *args: tables.append(1) or original(*args))
    figures = []
    for divisor in (3, 5, 5):          # the second 5: a third process, the same file
        fresh_process()
        write(kernel_file, THIRD.format(divisor=divisor))
        code, out, err = run(capsys, "sweep", "user_third", "--arch", "wormhole", "--json",
                             "--kernels", kernel_file)
        assert code == 0, err
        summary = json.loads(out)
        figures.append((summary["max_ulp"], summary["exact_count"]))
    assert figures == [(1, 43311), (102, 385), (102, 385)]    # (max ULP, exact results)
    assert len(tables) == 2            # an unchanged reference still comes from the cache
    tanh = reference.cache._cache_key(definitions.lookup("tanh"), "bf16",
                                      reference.choose_backend(None))
    assert set(tanh["definition"]) == {"revision", "source_sha256"}     # built-ins: as before


# --- 2. print() in a kernel file or a kernel body goes to stderr ----------------------------

def test_a_print_in_a_kernel_file_goes_to_stderr_not_before_the_json(capsys, tmp_path):
    text = TWICE.replace("def twice():\n", "print('loading')\n\n\ndef twice():\n"
                                           "    print('building')\n")
    path = write(tmp_path / "noisy.py", text)
    code, out, err = run(capsys, "sweep", "user_twice", "--arch", "wormhole", "--json",
                         "--kernels", path)
    assert code == 0
    assert json.loads(out)["kernel"] == "user_twice"          # stdout is the JSON, only
    assert err.splitlines()[:2] == ["loading", "building"]


def test_a_print_in_a_reference_goes_to_stderr(capsys, tmp_path):
    text = THIRD.format(divisor=3).replace("lambda x: x / DIVISOR",
                                           "lambda x: print('evaluating') or x / DIVISOR")
    registry.load_kernel_files([write(tmp_path / "noisy.py", text)])
    capsys.readouterr()
    result = reference.reference("user_third_fn", [0x4040], cache=False)      # 3.0 / 3
    out, err = capsys.readouterr()
    assert (result.bits.tolist(), out) == ([0x3F80], "")
    assert err.startswith("evaluating\n")


# --- 3. sys.exit() in a kernel file ---------------------------------------------------------

def test_sys_exit_in_a_kernel_file_is_an_error_naming_the_file(capsys, tmp_path):
    path = write(tmp_path / "quits.py", "import sys\n\nsys.exit(0)\n")
    code, out, err = run(capsys, "kernels", "--kernels", path)
    assert (code, out) == (2, "")
    assert err == (f"sfpu-sim: error: {path}:3: the kernel file called sys.exit(0); a kernel "
                   f"file only defines and registers kernels\n")


def test_sys_exit_in_a_kernel_body_is_an_error_naming_its_line(capsys, tmp_path):
    text = TWICE.replace("    dst_reg[0] = x + x", "    raise SystemExit(3)")
    path = write(tmp_path / "quits.py", text)
    code, out, err = run(capsys, "kernel", "show", "user_twice", "--arch", "wormhole",
                         "--kernels", path)
    assert (code, out) == (2, "")
    assert err == (f"sfpu-sim: error: {path}:7: building kernel 'user_twice' on wormhole: the "
                   f"body called sys.exit(3); a kernel body only emits instructions\n")


def test_ctrl_c_while_a_kernel_file_loads_still_interrupts(capsys, tmp_path):
    path = write(tmp_path / "interrupted.py", "raise KeyboardInterrupt\n")
    code, _, err = run(capsys, "kernels", "--kernels", path)
    assert (code, err) == (130, "sfpu-sim: interrupted\n")


# --- 4. Only regular files are kernel files -------------------------------------------------

class Blocked(Exception):
    """Not an OSError: nothing on the way may turn it into a message."""


@pytest.fixture
def no_hang():
    """A test that would block forever (opening a FIFO nobody writes) fails after 5 s."""
    with fails_after(5, Blocked("blocked: a FIFO was opened")):
        yield


def test_a_fifo_in_a_kernels_directory_is_refused_not_opened(capsys, tmp_path, no_hang):
    directory = tmp_path / "kernels"
    directory.mkdir()
    write(directory / "a_twice.py", TWICE)
    os.mkfifo(directory / "b_pipe.py")
    code, _, err = run(capsys, "kernels", "--kernels", directory)
    assert code == 2
    assert err == (f"sfpu-sim: error: {directory / 'b_pipe.py'}: not a regular file (a FIFO, "
                   f"device, socket or directory is never read as a kernel file)\n")


def test_a_fifo_named_directly_is_not_a_regular_file_not_missing(capsys, tmp_path, no_hang):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "kernels", "--kernels", fifo)
    assert code == 2
    assert err == (f"sfpu-sim: error: {fifo}: not a regular file (a FIFO, device, socket or "
                   f"directory is never read as a kernel file)\n")
    with pytest.raises(registry.KernelFileError, match="pipe.py: not a regular file"):
        registry.load_isolated(fifo)


# --- 5. A kernel body takes no arguments ----------------------------------------------------

def test_a_kernel_body_that_takes_an_argument_is_refused_at_registration(capsys, tmp_path):
    path = write(tmp_path / "argument.py", TWICE.replace("def twice():", "def twice(x):"))
    code, _, err = run(capsys, "kernels", "--kernels", path)
    assert code == 2
    assert err == (f"sfpu-sim: error: {path}:10: kernel 'user_twice': its body twice(x) takes "
                   f"arguments; a kernel body takes none (it reads and writes dst_reg)\n")


# --- 6. A user reference that raises --------------------------------------------------------

RAISES = '''\
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg


def same():
    dst_reg[0] = dst_reg[0]


def broken(x):
    raise ValueError("not defined here")


register_kernel("user_same", same, function="user_broken", reference={reference})
'''


@pytest.mark.parametrize("command", [
    ("eval", "user_same", "--arch", "wormhole", "1.5"),
    ("sweep", "user_same", "--arch", "wormhole"),
    ("report", "user_same", "--arch", "wormhole", "--files", "json"),
    ("locate", "user_same", "--arch", "wormhole", "--x", "1.5"),
    ("budget", "user_same"),
])
def test_a_reference_that_raises_is_one_line_naming_it(capsys, tmp_path, command):
    path = write(tmp_path / "raises.py", RAISES.format(reference="broken"))
    code, _, err = run(capsys, *command, "--out", tmp_path / "out", "--kernels", path) \
        if command[0] == "report" else run(capsys, *command, "--kernels", path)
    at = "1.5" if "1.5" in command else "0.0"   # a few inputs: those; else the whole table's first
    assert code == 2
    assert err == (f"sfpu-sim: error: {path}:13: reference 'user_broken' of kernel 'user_same' "
                   f"raised ValueError: not defined here (at x = {at})\n")


def test_a_reference_lambda_dividing_by_zero_is_one_line(capsys, tmp_path):
    path = write(tmp_path / "raises.py", RAISES.format(reference="lambda x: 1 / 0"))
    code, _, err = run(capsys, "eval", "user_same", "--arch", "wormhole", "1.5",
                       "--kernels", path)
    assert code == 2
    assert err == (f"sfpu-sim: error: {path}:13: reference 'user_broken' of kernel 'user_same' "
                   f"raised ZeroDivisionError: division by zero (at x = 1.5)\n")


def test_a_reference_that_raises_when_registered_is_one_line(capsys, tmp_path):
    path = write(tmp_path / "raises.py", RAISES.format(reference="lambda x: x.no_such_thing"))
    code, _, err = run(capsys, "kernels", "--kernels", path)
    assert code == 2
    assert err == (f"sfpu-sim: error: {path}:13: reference 'user_broken' raised AttributeError: "
                   f"'mpf' object has no attribute 'no_such_thing' when evaluated at "
                   f"registration\n")


# --- 7. A user kernel's source is the same from any working directory -----------------------

def test_a_user_kernels_source_is_the_same_from_any_working_directory(capsys, tmp_path,
                                                                      monkeypatch,
                                                                      fresh_process):
    work = tmp_path / "work"
    work.mkdir()
    path = write(work / "twice.py", TWICE)
    sources = []
    for directory, given in ((work, "twice.py"), (tmp_path, "work/twice.py"),
                             (Path("/"), path)):
        fresh_process()
        monkeypatch.chdir(directory)
        code, out, err = run(capsys, "sweep", "user_twice", "--arch", "wormhole", "--json",
                             "--kernels", given)
        assert code == 0, err
        sources.append([line["source"] for line in json.loads(out)["program"]["listing"]])
    assert sources[0] == sources[1] == sources[2]
    assert sources[0][0] == f"{path.resolve()}:6"
