"""sfpu-sim diff: two programs on the same inputs, and the first instruction where they part."""
from __future__ import annotations

import json

import pytest

from sfpu_sim.cli import main

TANH = '''\
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import (abs, dst_reg, float_to_fp16b, reinterpret, setsgn, vConst0, vConst1,
                           vec_min_max, vFloat)
from kernels.common import polyval


def my_tanh():
    x = dst_reg[0]
    val = abs(x)
    result = polyval(val, vConst0, 0.999004364013671875, 3.0897438526153564453125e-2,
                     -0.4890659749507904052734375, C4,
                     C5, 5.876733921468257904052734375e-3)
    one = vFloat(vConst1)
    vec_min_max(result, one)
    dst_reg[0] = reinterpret(vFloat, float_to_fp16b(setsgn(result, x), 0))


register_kernel("my_tanh", my_tanh, function="tanh")
'''
C4, C5 = "0.281917631626129150390625", "-6.6649019718170166015625e-2"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_diff_finds_an_injected_coefficient_swap_at_its_instruction(capsys, tmp_path):
    good, swapped = tmp_path / "good.py", tmp_path / "swapped.py"
    good.write_text(TANH.replace("C4", C4).replace("C5", C5))
    swapped.write_text(TANH.replace("C4", C5).replace("C5", C4))
    code, out, _ = run(capsys, "diff", f"{good}:my_tanh", f"{swapped}:my_tanh", "--arch",
                       "wormhole", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["identical_lanes"] + data["differing_lanes"] == 65536
    assert data["differing_lanes"] > 0
    first = data["first_divergence"]
    # The listing (sfpu-sim kernel show my_tanh --arch wormhole): 0 SFPLOAD, 1 SFPABS; Horner
    # runs innermost first, so 2-3 load the x^6 coefficient (0x3bc0919e) and 4 the high half
    # of the x^5 one (C5 = 0xbd887f48 in A, C4 = 0x3e905782 in B): the first value to differ.
    assert (first["index"], first["mnemonic"]) == (4, "SFPLOADI")
    assert first["instruction"] == "SFPLOADI L3, 0, 0xbd88"
    assert first["source"] == f"{good}:10"
    assert first["examples"][0]["a_value"] == "0xbd880000"
    assert first["examples"][0]["b_value"] == "0x3e900000"
    assert set(data["examples"][0]) == {"input_bits", "a_bits", "b_bits"}


def test_diff_of_one_kernel_on_both_chips_and_a_range(capsys):
    code, out, _ = run(capsys, "diff", "tanh@wormhole", "tanh@blackhole", "--range=-3,3",
                       "--json")
    assert code == 0
    data = json.loads(out)
    assert data["differing_lanes"] == 0 and data["first_divergence"] is None
    assert data["selection"] == "x in [-3, 3]"


def test_diff_of_programs_of_different_shapes_aligns_them_and_says_so(capsys):
    code, out, _ = run(capsys, "diff", "exp", "exp_legacy", "--arch", "wormhole", "--x", "1.5",
                       "--x", "-3", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["alignment"].startswith("different shapes (")
    assert data["inputs"] == 2


@pytest.mark.parametrize("argv, message", [
    (["diff", "tanh", "nosuch", "--arch", "wormhole"], "unknown kernel 'nosuch'"),
    (["diff", "tanh", "tanh_approx", "--json"],
     "--json prints one diff: give one --arch, or @CHIP on both items"),
    (["diff", "tanh", "tanh_fp32", "--arch", "wormhole"], "choose one with --dest"),
])
def test_diff_bad_items_are_one_line(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
