"""Robust for every user, round two: the options of ``fit``, the pytest helper, the thread
environment and the reference's messages. Each test failed before its fix: bad input is one
line and exit 2, nothing is silently wrong."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sfpu_sim import threads
from sfpu_sim.cli import main
from sfpu_sim.design import api as design_api
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.testing import assert_kernel_within_ulp
from tests.conftest import fails_after

ROOT = Path(__file__).resolve().parent.parent

POWER_LIMIT = ("powers from 0 to 64 are allowed (the fit's time grows steeply with the degree, "
               "minutes at 32, and an FP32 polynomial of higher degree loses its accuracy to "
               "rounding)")


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- 1, 2. fit: sizes without bound ---------------------------------------------------------

@pytest.fixture
def no_exchange(monkeypatch):
    """Without the limits these fits ran for hours: fail at once if the exchange starts."""
    def refuse(*args, **kwargs):
        raise AssertionError("the fit started instead of refusing its options")
    monkeypatch.setattr(design_api, "remez_checked", refuse)


def test_fit_with_a_power_of_a_million_is_refused_instead_of_running_for_ever(capsys,
                                                                              no_exchange):
    code, out, err = run(capsys, "fit", "exp", "--interval", "0,1", "--powers", "1000000")
    assert (code, out) == (2, "")
    assert err == f"sfpu-sim: error: --powers: 1000000 is too high; {POWER_LIMIT}\n"


def test_fit_powers_0_and_100_is_one_line_not_a_traceback(capsys):
    code, _, err = run(capsys, "fit", "exp", "--interval", "0,1", "--powers", "0,100")
    assert code == 2
    assert err == f"sfpu-sim: error: --powers: 100 is too high; {POWER_LIMIT}\n"


def test_fit_with_a_degree_beyond_64_is_refused(capsys, no_exchange):
    code, _, err = run(capsys, "fit", "exp", "--interval", "0,1", "--degree", "65")
    assert code == 2
    assert err == f"sfpu-sim: error: --degree 65: too high; {POWER_LIMIT}\n"


def test_fit_with_a_working_precision_of_a_million_bits_is_refused(capsys, no_exchange):
    code, _, err = run(capsys, "fit", "exp", "--interval", "0,1", "--degree", "3",
                       "--precision", "1000000")
    assert code == 2
    assert err == ("sfpu-sim: error: --precision: expected an integer from 64 to 4096 (bits; "
                   "4096 is several times what a fit of degree 64 needs), got 1000000\n")


def test_fit_on_an_interval_beyond_the_fp32_range_is_one_line(capsys):
    code, _, err = run(capsys, "fit", "exp", "--interval", "0,1e400", "--degree", "2")
    assert code == 2
    assert err == ("sfpu-sim: error: --interval: 1e400 is beyond the FP32 range of SFPU inputs "
                   "(|x| < 2^128, about 3.4e38)\n")


@pytest.fixture
def deadline():
    """Fail, not hang, if the fit runs on: these never ended before their fixes (a second or
    two now)."""
    with fails_after(30, TimeoutError("the fit was still running after 30 s")):
        yield


def test_fit_of_exp_down_to_minus_1e8_finishes(capsys, deadline):
    # exp(-1e8) ~ 2**-144269504: exact Fractions of it made the certifier run for ever.
    code, out, err = run(capsys, "fit", "exp", "--interval=-1e8,0", "--degree", "2", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["certified"] is True


def test_fit_of_exp_over_every_negative_fp32_is_one_line_not_a_hang(capsys, deadline):
    code, _, err = run(capsys, "fit", "exp", "--interval=-3e38,0", "--degree", "2")
    assert code == 2
    assert err == ("sfpu-sim: error: cannot bound the error near x = -4.06576e+18: the function "
                   "or its derivatives are not finite there, or beyond 2^20000\n")


def test_fit_where_a_power_is_too_small_to_show_in_the_lattice_still_fits(capsys):
    # The weight is ~1e-3 or less at the lattice's sample points, so the x**1 row of the
    # lattice basis rounds to zero: the rows are dependent (was: ZeroDivisionError).
    code, out, err = run(capsys, "fit", "exp", "--interval", "0,1", "--powers", "0,1",
                         "--weight", "exp(40*(x-1))", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["powers"] == [0, 1]


def test_fit_of_reciprocal_across_zero_is_one_line_naming_zero(capsys):
    code, _, err = run(capsys, "fit", "reciprocal", "--interval=-1,1", "--degree", "3")
    assert code == 2
    assert err == ("sfpu-sim: error: --interval [-1,1]: reciprocal is undefined, infinite or not "
                   "smooth near x = 0 (a polynomial fit needs reciprocal and its derivatives "
                   "finite on the closed interval [-1, 1])\n")


# --- 3. fit: a weight that divides by zero --------------------------------------------------

def test_fit_weight_one_over_x_across_zero_names_the_weight_and_x(capsys):
    code, _, err = run(capsys, "fit", "exp", "--interval=-1,1", "--degree", "3", "--weight",
                       "1/x")
    assert code == 2
    assert err == ("sfpu-sim: error: --weight 1/x: not finite or not smooth near x = 0 (the "
                   "weight and its derivatives must be finite on the closed interval [-1, 1])\n")


def test_fit_weight_that_vanishes_in_the_interval_names_the_weight_and_x(capsys):
    code, _, err = run(capsys, "fit", "exp", "--interval", "0,1", "--degree", "3", "--weight",
                       "x - 1/2")
    assert code == 2
    assert err == ("sfpu-sim: error: --weight x - 1/2: zero near x = 0.5 (the weight must be "
                   "non-zero on the closed interval [0, 1]: the fit divides by it)\n")


# --- 4. The pytest helper -------------------------------------------------------------------

def test_a_budget_for_an_unknown_region_is_an_sfpu_sim_error_naming_the_regions():
    with pytest.raises(SfpuSimError) as raised:
        assert_kernel_within_ulp("exp", "wormhole", 1, budgets={"middle": 1})
    assert str(raised.value) == ("budgets: unknown region 'middle' (regions of exp: "
                                 "negative, positive)")


def test_a_budget_for_a_region_the_range_leaves_empty_fails_instead_of_passing():
    with pytest.raises(SfpuSimError) as raised:
        assert_kernel_within_ulp("exp", "wormhole", 1, range=(0, 1), budgets={"negative": 0},
                                 specials=False)
    assert str(raised.value) == ("budgets['negative']: region negative (x < 0) has no inputs "
                                 "among those selected (x in [0, 1]); widen the range or drop "
                                 "the budget")


def test_a_budget_for_a_region_with_no_measured_input_fails_instead_of_passing():
    # log's reference is NaN below zero: nothing in region negative is measured.
    with pytest.raises(SfpuSimError) as raised:
        assert_kernel_within_ulp("log", "wormhole", 1000, budgets={"negative": 0},
                                 specials=False, allow_hard_mismatches=True)
    assert str(raised.value) == ("budgets['negative']: region negative (x < 0) has 32,512 "
                                 "inputs among those selected (every input) but none is "
                                 "measured (population daz, ULP daz-index); drop the budget")


def test_a_range_that_is_not_two_numbers_is_an_sfpu_sim_error():
    with pytest.raises(SfpuSimError, match=r"^range: expected \(lo, hi\), two numbers, got "
                                           r"\(0, 'ten'\)$"):
        assert_kernel_within_ulp("exp", "wormhole", 1, range=(0, "ten"))


# --- 5. A reference that returns NaN --------------------------------------------------------

NAN_ABOVE_TWO = '''\
import mpmath
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg


def same():
    dst_reg[0] = dst_reg[0]


register_kernel("nan_above_two", same, function="nan_above_two",
                reference=lambda x: mpmath.nan if x > 2 else x)
'''


def sfpu_sim_command(*argv, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sfpu_sim", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_eval_with_a_reference_that_returns_nan_says_so_instead_of_blaming_rounding(tmp_path):
    kernel_file = tmp_path / "nan_above_two.py"
    kernel_file.write_text(NAN_ABOVE_TWO)
    env = {**os.environ, "SFPU_SIM_CACHE": str(tmp_path / "cache")}
    done = sfpu_sim_command("eval", "nan_above_two", "--kernels", str(kernel_file), "--arch",
                            "wormhole", "--in", "fp32", "--dest", "fp32", "3.0", env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("sfpu-sim: error: the reference 'nan_above_two' returned NaN at "
                           "x = 3.0, inside its domain: it must give a number there\n")


# --- 6. $NUMBA_NUM_THREADS ------------------------------------------------------------------

@pytest.mark.parametrize("value", ["0", "abc"])
def test_numba_num_threads_zero_before_a_command_is_one_line_not_numbas_traceback(value):
    env = {**os.environ, "NUMBA_NUM_THREADS": value}
    done = sfpu_sim_command("eval", "exp", "--arch", "wormhole", "1.0", env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"sfpu-sim: error: NUMBA_NUM_THREADS={value!r}: expected a whole "
                           f"number >= 1 (the most threads the emulator may use), or leave it "
                           f"unset for one per CPU\n")


@pytest.mark.parametrize("value", ["0", "-3", "", "2.5"])
def test_a_numba_num_threads_that_is_not_a_whole_number_from_1_is_refused(monkeypatch, value):
    monkeypatch.setenv("NUMBA_NUM_THREADS", value)
    with pytest.raises(threads.ThreadCountError, match=rf"^NUMBA_NUM_THREADS={value!r}: "):
        threads.check_environment()
    monkeypatch.setenv("NUMBA_NUM_THREADS", "3")
    threads.check_environment()
    monkeypatch.delenv("NUMBA_NUM_THREADS")
    threads.check_environment()
