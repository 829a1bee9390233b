"""Round two of "Robust for every user": how every command writes (sfpu_sim.cli.output), text a
user wrote shown as written, and Ctrl-C honoured wherever the work is. Each test failed before
its fix."""
from __future__ import annotations

import errno
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sfpu_sim import reference, registry
from sfpu_sim.cli import main

ROOT = Path(__file__).resolve().parent.parent

KERNEL_FILE = '''\
import sys

from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg


def square():
    x = dst_reg[0]
    dst_reg[0] = x * x


register_kernel("user_square", square, function="user_square_fn",
                reference=lambda x: x * x, provenance={provenance!r})
'''
ANNOUNCE = 'print("ready", file=sys.stderr, flush=True)      # the command is past its start\n'


@pytest.fixture
def isolated(monkeypatch):
    """Registrations made by a test vanish with it (the built-ins stay)."""
    registry.names()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_LOADED", set(registry._LOADED))
    monkeypatch.setattr(reference.definitions, "FUNCTIONS", dict(reference.definitions.FUNCTIONS))
    monkeypatch.setenv("COLUMNS", "400")           # table cells on one line each


def kernel_file(tmp_path, provenance: str = "test file", announce: bool = False) -> Path:
    path = tmp_path / "mine.py"
    path.write_text(KERNEL_FILE.format(provenance=provenance) + (ANNOUNCE if announce else ""))
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def provenance_cell(out: str, kernel: str) -> str:
    """The last cell of ``kernel``'s row in the ``kernels`` table."""
    row = next(line for line in out.splitlines() if f" {kernel} " in line)
    return row.split("│")[-2].strip()


# --- Text a user wrote is shown, never obeyed -------------------------------------------------

def test_a_provenance_with_rich_markup_prints_as_written(capsys, tmp_path, isolated):
    path = kernel_file(tmp_path, "[/] [bold]x[/bold] :smile:")
    code, out, err = run(capsys, "kernels", "--kernels", str(path))
    assert (code, err) == (0, "")
    assert provenance_cell(out, "user_square") == "[/] [bold]x[/bold] :smile:"


def test_control_bytes_in_a_provenance_are_escaped_on_the_terminal(capsys, tmp_path, isolated):
    path = kernel_file(tmp_path, "red\x1b[31m bell\x07 csi\x9b2J")
    code, out, _ = run(capsys, "kernels", "--kernels", str(path))
    assert code == 0
    assert provenance_cell(out, "user_square") == "red\\x1b[31m bell\\x07 csi\\x9b2J"
    assert not {"\x1b", "\x07", "\x9b"} & set(out)          # capsys is no terminal: no colour


def test_an_error_naming_a_file_with_control_bytes_shows_them_escaped_on_one_line(capsys):
    code, _, err = run(capsys, "info", "--kernels", "\x1b[2Jgone\n.py")
    assert code == 2
    assert err.startswith("sfpu-sim: error: ") and err.count("\n") == 1
    assert "\\x1b[2Jgone\\x0a.py" in err and "\x1b" not in err


def test_control_bytes_and_newlines_in_a_provenance_are_escaped_in_the_markdown_report():
    from sfpu_sim.report import markdown, model
    from sfpu_sim.sweeps import sweep

    m = model.build(sweep(registry.get("tanh"), "wormhole"))
    m["provenance"] = "ours\x1b[2J\n# Injected heading\r"
    lines = markdown.render(m).splitlines()
    assert "- Provenance: ours\\x1b[2J\\x0a# Injected heading\\x0d" in lines
    assert "# Injected heading" not in lines
    assert not any(set(line) & {"\x1b", "\r"} for line in lines)


# --- Standard output: JSON alone, checked, any encoding ---------------------------------------

class Refusing(io.RawIOBase):
    """A stdout whose writes fail with ``error`` (a full disk, a reader gone) until healed."""

    def __init__(self, error: OSError):
        self.error = error

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if self.error is not None:
            raise self.error
        return len(data)


@pytest.fixture
def refusing_stdout(monkeypatch):
    """Install a failing standard output: ``refusing_stdout(error)``."""
    made = []

    def install(error: OSError):
        raw = Refusing(error)
        made.append(raw)
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BufferedWriter(raw),
                                                            encoding="utf-8"))

    yield install
    for raw in made:                     # heal it: no complaint when the wrapper is collected
        raw.error = None


FULL = OSError(errno.ENOSPC, "No space left on device")
GONE = BrokenPipeError(errno.EPIPE, "Broken pipe")


def test_sweep_json_to_a_full_disk_is_one_line_and_status_2(capsys, refusing_stdout):
    refusing_stdout(FULL)
    code = main(["sweep", "exp", "--arch", "wormhole", "--json"])      # fails while writing
    assert code == 2
    assert capsys.readouterr().err == ("sfpu-sim: error: cannot write to standard output: No "
                                       "space left on device\n")


def test_eval_json_to_dev_full_fails_at_the_final_flush_in_one_line():
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this machine")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "sfpu_sim", "eval", "exp", "--arch",
                               "wormhole", "--json", "1.0"], cwd=ROOT, stdout=full,
                              stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    assert done.stderr == ("sfpu-sim: error: cannot write to standard output: No space left "
                           "on device\n")


@pytest.mark.parametrize("argv", [["kernels"],                                  # rich
                                  ["asm", "{program}", "--arch", "wormhole"],   # print()
                                  ["eval", "exp", "--arch", "wormhole", "--json", "1"]])
def test_a_reader_that_went_away_ends_every_command_with_status_0_silently(
        capsys, tmp_path, refusing_stdout, argv):
    program = tmp_path / "p.s"
    program.write_text("SFPNOP\n" * 2000)                     # more than a buffer holds
    refusing_stdout(GONE)
    code = main([a.format(program=program) for a in argv])
    assert (code, capsys.readouterr().err) == (0, "")


def test_kernels_piped_into_head_exits_0_without_a_message():
    process = subprocess.Popen([sys.executable, "-m", "sfpu_sim", "kernels"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.close()                              # `| head -0`: the reader has gone
    err = process.stderr.read()
    assert (process.wait(timeout=60), err) == (0, "")


@pytest.mark.parametrize("argv", [["kernels"], ["eval", "exp", "--arch", "wormhole", "--json",
                                                 "1"]])
def test_a_closed_standard_output_is_one_line_and_status_2(capsys, monkeypatch, argv):
    monkeypatch.setattr(sys, "stdout", None)            # what Python makes of `>&-`
    code = main(argv)
    assert code == 2
    assert capsys.readouterr().err == ("sfpu-sim: error: standard output is closed: the result "
                                       "would be lost (redirect it, e.g. > FILE or > "
                                       "/dev/null)\n")


def test_an_ascii_standard_output_gets_escapes_in_text_and_exact_strings_in_json(
        monkeypatch, tmp_path, isolated):
    provenance = "tt-llk \u00a7 2.2 \u2014 na\u00efve"         # "§", an em dash, "ï"
    path = str(kernel_file(tmp_path, provenance))
    for argv in (["kernels", "--kernels", path],
                 ["sweep", "user_square", "--arch", "wormhole", "--json", "--kernels", path]):
        ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
        monkeypatch.setattr(sys, "stdout", ascii_out)
        assert main(argv) == 0
        written = ascii_out.buffer.getvalue().decode("ascii")
        assert "\\u00a7" in written
    assert json.loads(written)["provenance"] == provenance


def test_under_json_a_commands_text_goes_to_stderr_and_only_the_json_to_stdout(capsys,
                                                                                monkeypatch):
    import sfpu_sim.cli.sweeping as sweeping

    def chatty_eval(args, console):
        console.print("a note for people")
        sys.stdout.write('{"ok": true}\n')
        return 0

    monkeypatch.setattr(sweeping, "cmd_eval", chatty_eval)
    code, out, err = run(capsys, "eval", "exp", "--arch", "wormhole", "--json", "1")
    assert (code, out, err) == (0, '{"ok": true}\n', "a note for people\n")


# --- Ctrl-C: status 130 within 2 s, wherever the work is --------------------------------------

def interrupt(tmp_path, argv, *, delay: float, env=None, after_file: Path | None = None):
    """Run ``sfpu-sim ARGV`` and send SIGINT ``delay`` s after it has loaded its kernel file
    (after ``after_file`` exists, if given); its status, stderr and seconds to exit."""
    ready = kernel_file(tmp_path, announce=True)
    # Ctrl-C at a terminal: SIGINT at its default. A runner that starts the suite in the
    # background hands its children SIGINT ignored (POSIX), which a program must keep ignoring.
    process = subprocess.Popen([sys.executable, "-m", "sfpu_sim", *argv, "--kernels",
                                str(ready)], cwd=ROOT, env={**os.environ, **(env or {})},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stderr.readline() == "ready\n"
        deadline = time.monotonic() + 120
        while after_file is not None and not after_file.exists() and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(delay)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        return process.returncode, err, time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def assert_interrupted(code: int, err: str, seconds: float) -> None:
    assert code == 130, err[-2000:]
    assert "Traceback" not in err and err.splitlines() == ["sfpu-sim: interrupted"], err[-2000:]
    assert seconds < 2, f"exited {seconds:.2f} s after SIGINT"


FP32_SWEEP = ["sweep", "reciprocal_fp32", "--arch", "wormhole", "--in", "fp32", "--exhaustive",
              "--restart"]


def test_ctrl_c_while_compiling_an_fp32_sweep_exits_130_at_once(tmp_path):
    caches = {"NUMBA_CACHE_DIR": str(tmp_path / "numba"), "SFPU_SIM_CACHE": str(tmp_path)}
    assert_interrupted(*interrupt(tmp_path, [*FP32_SWEEP, "--range=1,2", "--threads", "2",
                                             "--state", str(tmp_path / "state.json")],
                                  delay=0.5, env=caches))


def test_ctrl_c_in_the_compiled_loops_of_an_fp32_sweep_exits_130_at_once(tmp_path):
    state = tmp_path / "state.json"
    assert_interrupted(*interrupt(tmp_path, [*FP32_SWEEP, "--range=1,16", "--threads", "2",
                                             "--chunk", "262144", "--state", str(state)],
                                  delay=0.3, after_file=state))


def test_ctrl_c_while_a_dask_cluster_starts_exits_130_at_once(tmp_path):
    assert_interrupted(*interrupt(tmp_path, [*FP32_SWEEP, "--range=1,2", "--scheduler", "dask",
                                             "--state", str(tmp_path / "state.json")],
                                  delay=0.3))


def test_ctrl_c_while_dask_workers_compile_exits_130_at_once(tmp_path):
    """Cold caches: the workers compile the program for seconds, and a graceful close of the
    cluster waits for them (4 s before)."""
    caches = {"NUMBA_CACHE_DIR": str(tmp_path / "numba"), "SFPU_SIM_CACHE": str(tmp_path)}
    assert_interrupted(*interrupt(tmp_path, [*FP32_SWEEP, "--range=1,2", "--scheduler", "dask",
                                             "--state", str(tmp_path / "state.json")],
                                  delay=3, env=caches))


STUBBORN = '''\
import sys
import time

from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg


def square():
    x = dst_reg[0]
    dst_reg[0] = x * x


def stubborn_square(x):
    try:
        time.sleep(0.002)              # where Ctrl-C lands
    except KeyboardInterrupt:          # swallowed, as a bare except: does
        pass
    return x * x


register_kernel("stubborn_square", square, function="stubborn_square_fn",
                reference=stubborn_square)
print("ready", file=sys.stderr, flush=True)
'''


def test_ctrl_c_ends_the_command_even_where_user_code_swallows_it(tmp_path):
    stubborn = tmp_path / "stubborn.py"
    stubborn.write_text(STUBBORN)
    process = subprocess.Popen([sys.executable, "-m", "sfpu_sim", "sweep", "stubborn_square",
                                "--arch", "wormhole", "--kernels", str(stubborn)], cwd=ROOT,
                               env={**os.environ, "SFPU_SIM_CACHE": str(tmp_path)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stderr.readline() == "ready\n"
        time.sleep(0.5)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=10)          # the sweep alone takes minutes
        assert_interrupted(process.returncode, err, time.monotonic() - sent)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_ctrl_c_leaves_parallel_work_without_waiting_for_the_helpers():
    """The calling thread's KeyboardInterrupt is raised at once, not after the helper threads'
    chunks (a helper compiling a loop for the first time held a Ctrl-C for 35-40 s)."""
    from sfpu_sim import threads

    if threads.max_threads() < 2:
        pytest.skip("one CPU: parallel_for never uses a helper")
    script = textwrap.dedent("""\
        import os, time
        from sfpu_sim import threads
        threads.set_threads(2)
        print("ready", flush=True)
        try:
            threads.parallel_for(lambda start, stop: time.sleep(5), 1 << 16)   # long chunks
            print("not interrupted", flush=True)
        except KeyboardInterrupt:
            print("unwound", flush=True)
        os._exit(0)                       # as the command does, not joining the helpers
        """)
    process = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stdout.readline() == "ready\n"
        time.sleep(0.3)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        assert process.stdout.readline() == "unwound\n"
        assert time.monotonic() - sent < 2
    finally:
        process.kill()
        process.wait()


def test_a_ctrl_c_that_a_callback_swallowed_is_raised_again():
    """numba's compiler calls back into Python through ctypes; a KeyboardInterrupt raised there
    is reported and dropped by ctypes. The command must still unwind."""
    script = textwrap.dedent("""\
        import ctypes, time
        from sfpu_sim.cli import output
        output.end_promptly_on_ctrl_c()
        callback = ctypes.CFUNCTYPE(None)(lambda: time.sleep(5))
        print("ready", flush=True)
        try:
            callback()                    # SIGINT arrives here
            time.sleep(5)
            print("not interrupted")
        except KeyboardInterrupt:
            print("unwound")
        """)
    process = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stdout.readline() == "ready\n"
    time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert (process.returncode, out, err) == (0, "unwound\n", "")


LONG_NAME = "x" * 300          # longer than a file name may be (ENAMETOOLONG), found by the fuzz


@pytest.mark.parametrize("argv", [
    ["info", "--kernels", LONG_NAME],
    ["sweep", "exp", "--arch", "wormhole", "--csv", LONG_NAME],
    ["sweep", "exp", "--arch", "wormhole", "--dest", "fp32", "--in", "fp32", "--state", LONG_NAME],
    ["compare", LONG_NAME, "exp@blackhole", "--files", "json"],
    ["compare", "exp@wormhole", "exp@blackhole", "--files", "json", "--name", LONG_NAME],
], ids=["kernels", "csv", "state", "compare-item", "compare-name"])
def test_a_name_longer_than_the_file_system_takes_is_one_line(argv, capsys, tmp_path,
                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("sfpu-sim: error: ") and err.count("\n") == 1, err
