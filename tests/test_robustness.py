"""Every way a new user broke the tool (issue: "Robust for every user"): each test failed before
its fix. Bad input is one line and exit 2, nothing the user owns is destroyed, nothing is
silently wrong."""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import sfpu_sim
from sfpu_sim import registry
from sfpu_sim.cli import main
from sfpu_sim.machine import Machine
from sfpu_sim.sweeps import DevicePath, run_device
from sfpu_sim.testing import assert_kernel_within_ulp

ROOT = Path(__file__).resolve().parent.parent


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- 2. --csv destroys files ----------------------------------------------------------------

def test_csv_refuses_to_overwrite_the_reports_own_json(capsys, tmp_path):
    own = tmp_path / "tanh_wormhole_bf16_rne.json"
    code, out, err = run(capsys, "report", "tanh", "--arch", "wormhole", "--out",
                         str(tmp_path), "--csv", str(own))
    assert code == 2
    assert err == (f"sfpu-sim: error: --csv {own}: is also the report's JSON {own}; choose "
                   f"another file\n")
    assert list(tmp_path.iterdir()) == []          # refused before anything was written


def test_csv_never_replaces_a_device_node(capsys, tmp_path):
    device = Path("/dev/full")
    if not device.exists() or not stat.S_ISCHR(device.stat().st_mode):
        pytest.skip("no /dev/full character device on this machine")
    try:
        code, _, err = run(capsys, "report", "tanh", "--arch", "wormhole", "--out",
                           str(tmp_path), "--files", "json", "--csv", str(device))
    finally:
        if not stat.S_ISCHR(os.stat(device).st_mode):      # put the device back if lost
            os.unlink(device)
            os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    assert code == 2
    assert err == ("sfpu-sim: error: refusing to write /dev/full: it is not a regular file (a "
                   "device, FIFO or directory is never replaced)\n")
    assert stat.S_ISCHR(device.stat().st_mode)


def test_csv_writes_through_a_symlink_and_keeps_it(capsys, tmp_path):
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    code, _, _ = run(capsys, "report", "tanh", "--arch", "wormhole", "--out",
                     str(tmp_path / "out"), "--files", "json", "--csv", str(link))
    assert code == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().splitlines()[0].startswith("op,input_format,")


def test_csv_dash_writes_to_standard_output(capsys, tmp_path):
    code, out, _ = run(capsys, "report", "tanh", "--arch", "wormhole", "--out",
                       str(tmp_path), "--files", "json", "--csv", "-")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("op,input_format,") and len(lines) == 1 + 65025


# --- 3. Silent wrong inputs -----------------------------------------------------------------

def test_eval_minus_nan_is_the_negative_quiet_nan(capsys):
    code, out, _ = run(capsys, "eval", "tanh", "--arch", "wormhole", "--json", "--", "-nan",
                       "nan")
    assert code == 0
    assert [r["input_bits"] for r in json.loads(out)["results"]] == ["0xffc0", "0x7fc0"]


def test_run_lreg_value_beyond_32_bits_is_refused_not_wrapped(capsys, tmp_path):
    program = tmp_path / "p.s"
    program.write_text("SFPNOP\n")
    code, _, err = run(capsys, "run", str(program), "--arch", "wormhole", "--lreg",
                       "0=99999999999")
    assert code == 2
    assert err == ("sfpu-sim: error: --lreg '0=99999999999': LReg value 99999999999 does not "
                   "fit 32 bits (integers -2147483648..4294967295, or a float for its FP32 "
                   "bits)\n")


def test_report_all_honours_dest(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "specs", lambda: [registry.get("tanh")])
    monkeypatch.setattr(registry, "chained_specs", lambda: [])
    code, _, _ = run(capsys, "report", "--all", "--arch", "wormhole", "--dest", "fp32",
                     "--out", str(tmp_path), "--files", "json")
    assert code == 0
    assert json.loads((tmp_path / "tanh_wormhole_fp32_rne.json").read_text())["dest"] == "fp32"


def test_assigning_a_float_to_an_lreg_stores_its_fp32_bits():
    m = Machine("wormhole")
    m.lreg[0] = 1.5
    m.lreg[1, :2] = [0.1, -2.0]
    m.lreg[2] = -1
    assert m.lreg[0, 0] == 0x3FC00000
    assert m.lreg[1, :2].tolist() == [0x3DCCCCCD, 0xC0000000]     # 0.1 rounded to nearest
    assert m.lreg[2, 0] == 0xFFFFFFFF
    with pytest.raises(sfpu_sim.SfpuSimError, match="does not fit 32 bits"):
        m.lreg[3] = 2 ** 32


@pytest.mark.parametrize("budget", [float("nan"), 1.0, -1, True, "1"])
def test_a_budget_that_is_not_a_non_negative_integer_is_refused(budget):
    with pytest.raises(ValueError, match="must be a non-negative integer number of ULP"):
        assert_kernel_within_ulp("tanh", "blackhole", budget)


def test_run_device_reads_bfloat16_arrays_bit_for_bit():
    values = np.array([1.5, -2.0, 0.25], dtype=ml_dtypes.bfloat16)
    program = registry.get("tanh").program("wormhole")
    got = run_device(program, values, DevicePath())
    assert got.inputs.tolist() == [0x3FC0, 0xC000, 0x3E80]
    with pytest.raises(sfpu_sim.SfpuSimError, match="expected bf16 bit patterns"):
        run_device(program, np.array([1.5, -2.0]), DevicePath())      # float64: refused


# --- 4. Tracebacks instead of errors --------------------------------------------------------

@pytest.mark.parametrize("command", ["asm", "run"])
def test_a_binary_assembly_file_is_one_line(capsys, tmp_path, command):
    binary = tmp_path / "prog.s"
    binary.write_bytes(b"SFPNOP\n\xff\xfe\x00")
    extra = ["--arch", "wormhole"]
    code, _, err = run(capsys, command, str(binary), *extra)
    assert code == 2
    assert err == (f"sfpu-sim: error: {binary}: not UTF-8 text (byte 7); assembly is a text "
                   f"file\n")


def test_too_many_lanes_is_a_clean_error(capsys, tmp_path):
    program = tmp_path / "p.s"
    program.write_text("SFPNOP\n")
    code, _, err = run(capsys, "run", str(program), "--arch", "wormhole", "--lanes",
                       "3200000000")
    assert code == 2
    assert err == ("sfpu-sim: error: 3,200,000,000 lanes with 1024 Dst rows need 3,388.5 GiB "
                   "of state; the limit is 4 GiB (3,777,440 lanes at 1024 rows)\n")
    with pytest.raises(sfpu_sim.SfpuSimError, match="the limit is 4 GiB"):
        Machine("wormhole", lanes=2 ** 40)


def test_ctrl_c_exits_130_without_a_traceback(tmp_path):
    env = {**os.environ, "SFPU_SIM_CACHE": str(tmp_path / "cache")}   # cold: a long run
    # Ctrl-C at a terminal: SIGINT at its default. A runner that starts the suite in the
    # background hands its children SIGINT ignored (POSIX), which a program must keep ignoring.
    process = subprocess.Popen([sys.executable, "-m", "sfpu_sim", "report", "--all", "--out",
                                str(tmp_path / "out")], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    index = tmp_path / "out" / "README.md"
    deadline = time.monotonic() + 120
    while not index.exists() and time.monotonic() < deadline:      # the report loop started
        time.sleep(0.1)
    time.sleep(1)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err[-2000:]
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "sfpu-sim: interrupted"


# --- 5. Interrupted runs ----------------------------------------------------------------------

def test_an_interrupted_report_all_says_so_in_its_index(capsys, tmp_path, monkeypatch):
    import sfpu_sim.cli.sweeping as sweeping

    monkeypatch.setattr(registry, "specs", lambda: [registry.get("tanh"), registry.get("exp")])
    monkeypatch.setattr(registry, "chained_specs", lambda: [])
    original, calls = sweeping.run_sweep, []

    def stop_on_second(args, kernel, arch, *rest, **options):
        calls.append(kernel)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(args, kernel, arch, *rest, **options)

    monkeypatch.setattr(sweeping, "run_sweep", stop_on_second)
    code, _, _ = run(capsys, "report", "--all", "--arch", "wormhole", "--out", str(tmp_path),
                     "--files", "json,md")
    assert code == 130
    index = (tmp_path / "README.md").read_text()
    assert "**Incomplete:** 1 of 2 report sets done" in index
    assert "[report](tanh_wormhole_bf16_rne.md)" in index
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "README.md", "tanh_wormhole_bf16_rne.json", "tanh_wormhole_bf16_rne.md"]


# --- 7. Reports do not depend on where they were made ---------------------------------------

def test_kernel_sources_are_package_relative_in_any_working_directory(tmp_path):
    done = subprocess.run([sys.executable, "-m", "sfpu_sim", "sweep", "tanh", "--arch",
                           "wormhole", "--json"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    sources = {line["source"] for line in json.loads(done.stdout)["program"]["listing"]}
    assert sources and all(s.startswith("kernels/tanh.py:") for s in sources), sources


def test_readme_usage_writes_outside_the_committed_reports(capsys, tmp_path, monkeypatch):
    """The README's Usage commands write to ./sfpu-sim-reports/ (git-ignored), never into the
    committed reports/ that the slow freshness test compares."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr("sfpu_sim.cli.sweeping.DEFAULT_OUT", str(tmp_path / "sfpu-sim-reports"))
    before = {p.name: p.stat().st_mtime_ns for p in (ROOT / "reports").iterdir()}
    usage = (ROOT / "README.md").read_text().split("## Usage", 1)[1].split("\n## ", 1)[0]
    assert "sfpu-sim report tanh --arch blackhole\n" in usage     # the command run below
    code, _, err = run(capsys, "report", "tanh", "--arch", "blackhole")
    assert code == 0, err
    assert {p.name: p.stat().st_mtime_ns for p in (ROOT / "reports").iterdir()} == before
    assert (tmp_path / "sfpu-sim-reports" / "tanh_blackhole_bf16_rne.md").is_file()
    assert "sfpu-sim-reports/" in (ROOT / ".gitignore").read_text().split()


# --- 8. The assembler -------------------------------------------------------------------------

def test_assembler_accepts_tabs_and_a_byte_order_mark(capsys, tmp_path):
    source = tmp_path / "p.s"
    source.write_bytes("\ufeffSFPLOADI\tL0, 0, 0x3f80\nSFPNOP\n".encode())
    code, out, _ = run(capsys, "asm", str(source), "--arch", "wormhole")
    assert code == 0
    assert out.splitlines() == ["0x71003f80  # SFPLOADI L0, 0, 0x3f80",
                                "0x8f000000  # SFPNOP"]


def test_hazard_warnings_are_summarised_per_kind(capsys, tmp_path):
    source = tmp_path / "p.s"
    source.write_text("SFPMAD L0, L0, L9, L0, 0\n" * 2000)
    code, _, err = run(capsys, "run", str(source), "--arch", "wormhole")
    assert code == 0
    assert err.splitlines() == [
        "sfpu-sim: warning: hazard: reads a register written by the directly preceding "
        "SFPMAD, whose result Wormhole does not interlock (insert an SFPNOP) (1,999 times; "
        f"first: instruction 1, {source}:2; --verbose lists every one)"]
    code, _, err = run(capsys, "run", str(source), "--arch", "wormhole", "--verbose")
    assert len(err.splitlines()) == 1999


# --- 9. The public API ----------------------------------------------------------------------

def test_the_public_api_imports_from_the_package():
    from sfpu_sim import Machine as M
    from sfpu_sim import SfpuSimError, register_kernel, sweep, write_report

    assert M is Machine and callable(register_kernel) and callable(sweep)
    assert callable(write_report) and issubclass(registry.UnknownKernel, SfpuSimError)
    assert set(sfpu_sim.__all__) >= {"Machine", "register_kernel", "sweep", "write_report",
                                     "SfpuSimError"}


# --- 10. bitstring earns its place: bit fields ------------------------------------------------

def test_explain_shows_value_and_instruction_fields(capsys):
    code, out, _ = run(capsys, "explain", "0x3fc0", "0x84001230", "--arch", "wormhole")
    assert code == 0
    assert "0x3fc0 as BF16: 1.5" in out and "│ mantissa │ 6..0  │ 1000000  │ 64" in out
    assert "SFPMAD L0, L1, L2, L3, 0" in out and "│ vd     │ 7..4   │ 0011" in out


def test_explain_rejects_what_it_cannot_read(capsys):
    code, _, err = run(capsys, "explain", "banana")
    assert code == 2 and "give a 0x pattern" in err
