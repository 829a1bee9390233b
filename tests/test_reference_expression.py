"""User expressions as references (sfpu_sim.reference.user_expressions): the grammar and its
refusals, correctly rounded values, IEEE values where the formula cannot go, the arb and mpmath
backends, ``--reference`` on sweep, report, compare, budget and fit, kernel files that carry
their expression, and the pytest helper."""
from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from sfpu_sim import formats, reference, registry
from sfpu_sim.cli import main
from sfpu_sim.design import expr
from sfpu_sim.design.expr import BadExpression, parse
from sfpu_sim.reference import FUNCTIONS, UnknownFunction
from sfpu_sim.reference.backends import backend
from sfpu_sim.reference.expression_values import ExpressionUndecided
from sfpu_sim.reference.user_expressions import expression_text, reference_name
from sfpu_sim.testing import assert_kernel_within_ulp

GELU = "x*erfc(-x/sqrt(2))/2"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def bf16(*values) -> np.ndarray:
    return formats.round_values(np.array(values, dtype=np.float64), "rne", "bf16")


def mp_reference(text: str, x: float, bits: int) -> float:
    """The expression at ``x`` in mpmath at 400 bits, rounded to ``bits`` significant bits
    (nearest even): the cross-check of the pinned values, independent of arb."""
    with mpmath.workprec(400):
        value = parse(text, "test", variable=True).evaluate(expr.MPMATH, mpmath.mpf(x))
    with mpmath.workprec(bits):
        return float(+value)


# ------------------------------------------------------------------------------------------
# The grammar and its refusals
# ------------------------------------------------------------------------------------------

def test_the_grammar_reads_every_function_and_refuses_the_rest():
    for name in expr.FUNCTIONS:
        assert parse(f"{name}(x/4+1/2)", "t", variable=True).tree[0] == "call"
    for text, detail in (("tan(x", "was never closed"), ("foo(x)", "unknown function 'foo'"),
                         ("tan(x, 1)", "tan() takes one argument"), ("x^0.5", "exponents"),
                         ("y+1", "unknown name 'y'"), ("__import__('os')", "unknown function")):
        with pytest.raises(BadExpression, match=f"--reference: cannot read .*{re.escape(detail)}"):
            reference_name(text)


def test_a_name_is_a_registered_function_or_unknown():
    assert reference_name("tanh") == "tanh"
    assert reference_name(" tan( x ) ") == "tan(x) (user expression)"
    assert reference_name("tan(x) (user expression)") == "tan(x) (user expression)"
    assert expression_text("tan(x) (user expression)") == "tan(x)"
    with pytest.raises(UnknownFunction, match=r"--reference: unknown function 'tanhh' \(known: "
                                              r"tanh, .*or an expression in x, e\.g\. 'tan\(x\)'"):
        reference_name("tanhh")


def test_the_fit_help_lists_every_function_of_the_grammar(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(f" {name} " in text or f" {name};" in text for name in expr.FUNCTIONS)


@pytest.mark.parametrize("argv, message", [
    (["sweep", "tanh", "--arch", "blackhole", "--reference", "tanh("],
     "--reference: cannot read 'tanh(' ('(' was never closed); allowed: numbers, pi, e, x"),
    (["sweep", "tanh", "--arch", "blackhole", "--reference", "nosuch"],
     "--reference: unknown function 'nosuch' (known: tanh, "),
    (["sweep", "binary_add_2026_09", "--arch", "blackhole", "--y", "1", "--reference", "x"],
     ("--reference: binary_add_2026_09 is a binary kernel; its reference is the two-operand "
      "function")),
    (["sweep", "tanh", "--arch", "blackhole", "--reference", "tanh(x)", "--region",
      "near_zero"], "--region 'near_zero' is not a region of tanh(x) (user expression): "),
    (["report", "--all", "--reference", "tanh(x)"],
     "--reference replaces one kernel's reference: give a KERNEL, not --all"),
    (["budget", "tanh", "--reference", "tanh(x)"],
     ("budget: --reference does not apply: a budget row is an op's worst ULP against that op's "
      "own golden")),
    (["fit", "--interval", "0,1", "--powers", "1"],
     ("fit: give FUNCTION (a reference function, e.g. tan) or --reference EXPR (an expression "
      "in x, e.g. 'tan(x)'), one of them")),
    (["fit", "tan", "--reference", "tan(x)", "--interval", "0,1", "--powers", "1"],
     "fit: give FUNCTION"),
    (["fit", "--reference", "sin(x)/x", "--interval=-1,1", "--powers", "0,2"],
     ("--interval [-1,1]: sin(x)/x (user expression) is undefined, infinite or not smooth near "
      "x = 0")),
])
def test_refusals_are_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"sfpu-sim: error: {message}") and err.count("\n") == 1


# ------------------------------------------------------------------------------------------
# Values: correctly rounded, and IEEE's where the formula cannot go
# ------------------------------------------------------------------------------------------

PINNED = [  # (expression, x, FP32 input, FP32 reference, BF16 reference): computed here
    ("tan(x)", 0.5, 0x3F000000, 0x3F0BDA7B, 0x3F0C),
    ("tan(x)", 1.5, 0x3FC00000, 0x41619F6B, 0x4162),
    ("tan(x)", 100.0, 0x42C80000, 0xBF1653A7, 0xBF16),
    (GELU, -1.25, 0xBFA00000, 0xBE073B51, 0xBE07),
    (GELU, -10.0, 0xC1200000, 0x9AB83C9B, 0x9AB8),
    ("log1p(exp(x))", 3.0, 0x40400000, 0x40431C0E, 0x4043),
    ("log1p(exp(x))", -20.0, 0xC1A00000, 0x310DA433, 0x310E),
    ("log1p(exp(x))", 20000.0, 0x469C4000, 0x469C4000, 0x469C),   # saturates onto x: anchored
    ("tanh(x)", 5000.0, 0x459C4000, 0x3F800000, 0x3F80),          # 1 - 2**-14427: anchored
]


@pytest.mark.parametrize("text, x, x_bits, fp32_bits, bf16_bits", PINNED)
def test_pinned_fp32_and_bf16_values_agree_with_mpmath(text, x, x_bits, fp32_bits, bf16_bits):
    key = reference_name(text)
    inputs = np.array([x_bits], dtype=np.uint32)
    fp32 = reference.reference(key, inputs, input_format="fp32", output_format="fp32",
                               ftz=False, cache=False)
    bf = reference.reference(key, inputs, input_format="fp32", output_format="bf16",
                             ftz=False, cache=False)
    assert (int(fp32.bits[0]), int(bf.bits[0]), fp32.backend) == (fp32_bits, bf16_bits, "flint")
    assert np.float32(x).view(np.uint32) == x_bits
    assert np.uint32(fp32_bits).view(np.float32) == mp_reference(text, x, 24)
    assert formats.bits_to_float64(np.array([bf16_bits], np.uint16), formats.BF16)[0] \
        == mp_reference(text, x, 8)


@pytest.mark.parametrize("text, x, expected", [
    ("log(x)", -2.0, math.nan), ("log(x)", 0.0, -math.inf), ("log(x)", -0.0, -math.inf),
    ("sqrt(x^2-1)", 0.5, math.nan),                     # NaN inside the domain's hull
    ("1/(x-1)", 1.0, math.inf), ("-1/(x-1)", 1.0, -math.inf), ("1/(1-x)", 1.0, math.inf),
    ("atanh(x)", 1.0, math.inf), ("log1p(x)", -1.0, -math.inf), ("1/x", -0.0, -math.inf),
    ("exp(-1/(x-1))", 1.0, 0.0),                        # through an infinity: exp(-Inf) = +0
    ("atan(1/(x-1))", 1.0, 1.5703125),                  # pi/2 in BF16
    ("x*sin(x)", -0.0, 0.0), ("tanh(x)", -0.0, -0.0),
    (GELU, -math.inf, -0.0), (GELU, math.inf, math.inf),  # the limit at -Inf, as gelu's
    ("sin(x)", math.inf, math.nan), ("x-x", 3.0, 0.0),
])
def test_ieee_values_where_the_formula_cannot_go(text, x, expected):
    result = reference.reference(reference_name(text), bf16(x), daz=False, ftz=False,
                                 cache=False)
    value = formats.bits_to_float64(result.bits, formats.BF16)[0]
    if math.isnan(expected):
        assert math.isnan(value)
    else:
        assert (value, math.copysign(1, value)) == (expected, math.copysign(1, expected))


def test_the_registered_references_and_their_expressions_agree_on_every_bf16_input():
    everything = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    for text, name in (("tan(x)", "tan"), ("log(x)", "log")):
        mine = reference.reference(reference_name(text), everything)
        assert np.array_equal(mine.bits, reference.reference(name, everything).bits), text


def test_an_input_off_the_16_bit_grids_at_a_pole_is_refused_in_one_line():
    # 1 + 2**-23 is an FP32 input no BF16 or FP16 pattern holds: its pole was not listed
    key = reference_name("1/(x-1.00000011920928955078125)")
    with pytest.raises(expr.ExpressionUndefined, match=r"is undefined at x = 1\.0000001192092896 "
                                                       r"\(division by zero\)"):
        reference.reference(key, np.array([0x3F800001], np.uint32), input_format="fp32",
                            cache=False)


def test_a_pole_no_ball_excludes_is_refused_not_guessed():
    # tan(pi/2) is a pole, but no ball of cos(pi/2) ever excludes 0: refused at x = -1 or 1
    with pytest.raises(ExpressionUndecided, match=r"'tan\(pi/2\*x\)': cannot decide its value "
                                                  r"at x = -?1\.0 \(a pole or a domain end"):
        reference.reference(reference_name("tan(pi/2*x)"), bf16(1.0), cache=False)


# ------------------------------------------------------------------------------------------
# Backends: arb proves, mpmath checks, both agree
# ------------------------------------------------------------------------------------------

def test_arb_bounds_enclose_the_value_and_the_mpmath_backend_agrees():
    function = FUNCTIONS[reference_name(GELU)]
    for x in (-1.25, 2.5, 0.0078125):
        (lo, lo_exp), (hi, hi_exp) = backend("flint").enclose(function, x, 96)
        low, high = Fraction(lo) * Fraction(2) ** lo_exp, Fraction(hi) * Fraction(2) ** hi_exp
        with mpmath.workprec(400):
            exact = mpmath.mpf(x) * mpmath.erfc(-mpmath.mpf(x) / mpmath.sqrt(2)) / 2
            assert mpmath.mpf(low.numerator) / low.denominator <= exact \
                <= mpmath.mpf(high.numerator) / high.denominator
        assert 0 < high - low < abs(low) * Fraction(1, 2 ** 80)
    inputs = np.arange(0, 1 << 16, 97, dtype=np.uint32).astype(np.uint16)
    proven = reference.reference(reference_name(GELU), inputs, cache=False)
    checked = reference.reference(reference_name(GELU), inputs, cache=False, backend="mpmath")
    assert (proven.backend, checked.backend) == ("flint", "mpmath")
    assert np.array_equal(proven.bits, checked.bits)
    assert np.array_equal(proven.value, checked.value, equal_nan=True)


# ------------------------------------------------------------------------------------------
# Commands
# ------------------------------------------------------------------------------------------

def _sweep(capsys, *extra) -> dict:
    code, out, _ = run(capsys, "sweep", "tanh", "--arch", "blackhole", "--json", *extra)
    assert code == 0
    return json.loads(out)


def test_sweep_against_the_same_function_as_an_expression_gives_the_same_summary(capsys):
    registered, expression = _sweep(capsys), _sweep(capsys, "--reference", "tanh(x)")
    assert (registered["function"], expression["function"]) == ("tanh",
                                                                "tanh(x) (user expression)")
    differ = {key for key in registered if registered[key] != expression[key]}
    # tanh's own regions and leading term (x) are the registered function's
    assert differ == {"function", "regions", "leading_term"}
    assert (expression["max_ulp"], expression["count"]) == (1, 65025)


def test_report_and_compare_name_the_expression(capsys, tmp_path):
    saved = tmp_path / "tanh.json"
    saved.write_text(json.dumps(_sweep(capsys)))
    code, _, _ = run(capsys, "report", "tanh", "--arch", "blackhole", "--reference",
                       "tanh(x)", "--files", "json", "--out", str(tmp_path))
    assert code == 0
    report = json.loads((tmp_path / "tanh_blackhole_bf16_rne.json").read_text())
    assert report["function"] == "tanh(x) (user expression)"
    code, _, _ = run(capsys, "compare", "tanh@blackhole", str(saved), "--reference",
                       "tanh(x)", "--files", "json", "--out", str(tmp_path), "--name", "c")
    assert code == 0
    notes = json.loads((tmp_path / "c.json").read_text())["notes"]
    assert {"setting": "function", "values": ["tanh(x) (user expression)", "tanh"]} in notes
    code, _, err = run(capsys, "compare", str(saved), str(saved), "--reference", "tanh(x)",
                       "--out", str(tmp_path))
    assert code == 2 and "every item here is a saved summary" in err


@pytest.fixture(scope="module")
def tan_fit():
    from sfpu_sim.design.api import fit

    return fit("tan(x)", "-pi/4,pi/4", powers="1,3,5,7,9", error="relative")


def test_fit_tan_with_relative_error_takes_the_simple_zero_at_0(tan_fit):
    # tan(0) = 0: the fit works with tan(x)/x, as sin's does; the same coefficients and
    # certificate as the registered tan's (fit tan ... --error relative)
    assert tan_fit.function == "tan(x) (user expression)" and tan_fit.certificate.proven
    assert tan_fit.bits() == ("0x3F80001A", "0x3EAA89A3", "0x3E0BC8D1", "0x3D258D3F",
                              "0x3D336E82")
    assert tan_fit.sup_error == 3.1762845220025423e-06
    assert 0.0 in tan_fit.equioscillation_points


def test_an_emitted_kernel_carries_its_expression_into_a_fresh_process(tan_fit, tmp_path):
    from sfpu_sim.design import emit

    path, _ = emit.write_kernel(tan_fit, tmp_path / "tan_poly.py")
    text = path.read_text()
    assert "function='tan(x)'" in text and "sfpu-sim fit --reference 'tan(x)'" in text
    inputs = bf16(-0.75, -0.25, 0.5, 0.78125)
    script = ("import sys, numpy as np; from sfpu_sim import reference, registry; "
              f"registry.load_kernel_files([{str(path)!r}]); spec = registry.get('tan_poly'); "
              "print(spec.function); "
              f"print(list(reference.reference(spec.function, np.array({inputs.tolist()}, "
              "np.uint16), cache=False).bits.tolist()))")
    fresh = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True)
    function, bits = fresh.stdout.splitlines()
    assert function == "tan(x) (user expression)"
    assert json.loads(bits) == reference.reference("tan", inputs).bits.tolist()


@pytest.mark.slow
def test_an_emitted_kernel_sweeps_in_a_fresh_process_against_its_expression(tan_fit,
                                                                            tmp_path, capsys,
                                                                            isolated):
    from sfpu_sim.design import emit

    path, _ = emit.write_kernel(tan_fit, tmp_path / "tan_poly.py")
    argv = ["sweep", "tan_poly", "--kernels", str(path), "--arch", "blackhole",
            "--range=-0.78,0.78", "--json"]
    fresh = subprocess.run([sys.executable, "-m", "sfpu_sim", *argv], capture_output=True,
                           text=True, check=True)
    away, here = json.loads(fresh.stdout), json.loads(run(capsys, *argv)[1])
    assert away["function"] == "tan(x) (user expression)"
    assert {k: away[k] for k in ("max_ulp", "count", "histogram", "worst")} == \
        {k: here[k] for k in ("max_ulp", "count", "histogram", "worst")}


def test_a_kernel_file_may_name_an_expression_as_its_function(isolated):
    from sfpu_sim.sfpi import dst_reg

    def half():
        dst_reg[0] = dst_reg[0] * 0.5

    spec = registry.register_kernel("half_x", half, function="x/2")
    assert spec.function == "x/2 (user expression)"
    with pytest.raises(registry.RegistrationError, match=r"unknown function 'x_over_2' \(known: "
                                                         r"tanh, .*function='tan\(x\)'\)"):
        registry.register_kernel("half_y", half, function="x_over_2")


# ------------------------------------------------------------------------------------------
# The pytest helper
# ------------------------------------------------------------------------------------------

def test_the_pytest_helper_measures_against_an_expression():
    # tanh clamps its polynomial, so NaN gives +-1: special values are another test's subject
    result = assert_kernel_within_ulp("tanh", "blackhole", 1, reference="tanh(x)",
                                      specials=False)
    assert (result.summary["function"], result.summary["max_ulp"]) == \
        ("tanh(x) (user expression)", 1)
    with pytest.raises(AssertionError, match=r"^tanh on Blackhole A0 .*: max .* ULP exceeds "
                                             r"the budget of 1 ULP"):
        assert_kernel_within_ulp("tanh", "blackhole", 1, reference="x", specials=False)


@pytest.mark.slow
@pytest.mark.parametrize("text, interval, powers, error", [
    ("atanh(x/2)", "-1,1", "1,3,5,7,9", "relative"),      # branch-free on series around 0
    ("asinh(2*x)", "-1,1", "1,3,5,7,9", "relative"),
    ("log1p(exp(x))", "-2,2", "0,1,2,3,4,5", "absolute"),
    ("acosh(x)", "2,3", "0,1,2,3", "absolute"),
    ("sigmoid(x)", "-4,4", "0,1,2,3,4,5", "absolute"),
])
def test_fits_of_expressions_are_certified(text, interval, powers, error):
    from sfpu_sim.design.api import fit

    result = fit(text, interval, powers=powers, error=error)
    assert result.certificate.proven and result.sup_error >= result.minimax_lower
