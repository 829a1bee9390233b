"""locate scoped to the designer's domain (issue 19 item 1): --range / --region, --from a
sweep's JSON, exact lanes named as exact; and an assembly file as a kernel."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from sfpu_sim.cli import main
from sfpu_sim.selection import Selection
from sfpu_sim.shadow import locate

KERNELS = Path(__file__).parents[1] / "kernels" / "asm"


def test_worst_lanes_stay_inside_the_range():
    found = locate("tanh", "wormhole", worst=3, selection=Selection(range=(-1.0, 1.0)))
    assert [hex(lane.input_bits) for lane in found.lanes] == ["0x80", "0x3db9", "0x3dba"]
    assert found.selection == ("the 3 inputs of largest device ULP over the BF16 inputs with "
                               "x in [-1, 1]")


def test_region_uses_the_sweep_grammar(capsys):
    assert main(["locate", "tanh", "--arch", "wormhole", "--worst", "2", "--region",
                 "core_pos", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert all(0.5 <= float.fromhex(lane["input"]) if isinstance(lane["input"], str)
               else 0.5 <= lane["input"] < 3 for lane in data["lanes"])


def test_exact_lane_says_no_instruction_lost_precision():
    lane = locate("tanh", "wormhole", inputs=[0x3f80]).lanes[0]     # tanh(1): exact here
    assert lane.device_ulp == 0 and lane.located.step is None
    assert lane.located.why == ("exact (0 ULP): the output is the reference; no instruction "
                                "lost precision that reached it")


def test_from_a_sweep_json_locates_its_worst_lanes(tmp_path, capsys):
    assert main(["sweep", "tanh", "--arch", "wormhole", "--range=-1,1", "--json"]) == 0
    saved = tmp_path / "sweep.json"
    saved.write_text(capsys.readouterr().out)
    assert main(["locate", "--from", str(saved), "--worst", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [lane["input_bits"] for lane in data["lanes"]] == ["0x0080", "0x3db9"]
    assert data["selection"] == (f"the 2 worst inputs recorded in {saved} (its selection: "
                                 f"x in [-1, 1])")


@pytest.mark.parametrize("argv, message", [
    (["locate", "tanh", "--arch", "wormhole", "--x", "1", "--range=0,1"],
     "locate: --range and --region choose the lanes of --worst N; --x names its lanes itself"),
    (["locate", "tanh", "--arch", "wormhole", "--worst", "2", "--range=1,0"],
     "--range '1,0': need LO <= HI, neither NaN"),
    (["locate", "--from", "missing.json"],
     "--from missing.json: cannot read (No such file or directory)"),
    (["locate", "--worst", "2"], "locate: give KERNEL (or --from SWEEP.json)"),
])
def test_bad_scope_is_one_line(argv, message, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"sfpu-sim: error: {message}"


def test_from_refuses_a_kernel_that_disagrees(tmp_path, capsys):
    saved = tmp_path / "s.json"
    saved.write_text(json.dumps({"kernel": "tanh", "arch": "wormhole", "dest": "bf16",
                                 "worst": [{"input_bits": "0x3f80"}]}))
    assert main(["locate", "exp", "--from", str(saved)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"sfpu-sim: error: --from {saved}: the sweep ran 'tanh', but KERNEL is 'exp' (leave "
        f"it out, or make them agree)")


def test_an_assembly_file_is_a_kernel_for_every_command(tmp_path, capsys):
    program = tmp_path / "prog.s"
    program.write_text((KERNELS / "tanh_wormhole.s").read_text())
    assert main(["kernel", "show", str(program), "--arch", "wormhole"]) == 0
    assert "31 instructions" in capsys.readouterr().out
    assert main(["sweep", str(program), "--arch", "wormhole"]) == 2
    assert capsys.readouterr().err.strip() == (
        "sfpu-sim: error: this kernel names no function to measure against: an assembly file "
        "names it in a comment line '# function: NAME'")
    named = tmp_path / "named.s"
    named.write_text("# function: tanh\n" + program.read_text())
    assert main(["trace", str(named), "--arch", "wormhole", "--x", "1.5"]) == 0
    assert "0x3f68 0.90625" in capsys.readouterr().out           # tanh(1.5), stored
    assert main(["sweep", str(named), "--arch", "wormhole", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["max_ulp"] == 1
