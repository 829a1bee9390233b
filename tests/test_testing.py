"""sfpu_sim.testing: the pytest helper users put in their own suites."""
from __future__ import annotations

import pytest

from sfpu_sim.errors import SfpuSimError
from sfpu_sim.testing import assert_kernel_within_ulp


def test_a_kernel_within_its_budget_passes_and_returns_the_sweep():
    # tanh clamps its polynomial, so NaN gives +-1: special values are another test's subject.
    result = assert_kernel_within_ulp("tanh", "blackhole", 1, reference_rounding="truncate",
                                      specials=False)
    assert result.summary["max_ulp"] == 1
    assert result.summary["count"] == 65025


def test_a_kernel_over_its_budget_fails_with_one_paragraph():
    with pytest.raises(AssertionError) as raised:
        assert_kernel_within_ulp("tanh", "blackhole", 0, reference_rounding="truncate",
                                 specials=False)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("tanh on Blackhole A0 (Dst BF16, output BF16, reference "
                              "truncate, ULP daz-index, inputs: every input): max 1 ULP exceeds the budget of 0 "
                              "ULP: 3,082 of 65,025 measured inputs are over it. Worst input "
                              "0x0080 (1.1754944e-38): output 0x0000 (0), expected 0x0080 "
                              "(1.1754944e-38)")
    assert message.endswith("Population: daz (distinct values under DAZ: the normals and +0 "
                            "(65,025; tanh report, LLK sweep)), 65,025 of 65,025 inputs "
                            "measured; mean 0.0474 over 65,025 inputs.")


def test_a_fractional_budget_compares_unrounded_distances():
    # Under the fractional convention tanh's largest distances are 128 (a flushed smallest
    # normal) and the rest below 1: a budget of 127 fails on exactly those lanes.
    with pytest.raises(AssertionError, match=r"max 128 ULP exceeds the budget of 127 ULP: "
                                             r"2 of 65,025 measured inputs are over it"):
        assert_kernel_within_ulp("tanh", "wormhole", 127, ulp_convention="fractional",
                                 specials=False)


def test_range_and_region_restrict_the_inputs_counted():
    result = assert_kernel_within_ulp("exp", "wormhole", 1, range=(-10, 10), specials=False)
    assert result.summary["count"] == 33091 and result.summary["selection"]["range"] == [-10, 10]
    result = assert_kernel_within_ulp("exp", "wormhole", 1, region="negative", specials=False)
    assert result.summary["count"] == 32512


def test_per_region_budgets_name_the_region_over_budget():
    with pytest.raises(AssertionError, match=r"region negative \(x < 0\): max 1 ULP "
                                             r"exceeds its budget of 0\."):
        assert_kernel_within_ulp("exp", "wormhole", 1, budgets={"negative": 0, "positive": 1},
                                 specials=False)
    with pytest.raises(ValueError, match="budgets: unknown region 'middle'"):
        assert_kernel_within_ulp("exp", "wormhole", 1, budgets={"middle": 1})


NAN_TO_ZERO = '''\
from sfpu_sim import register_kernel
from sfpu_sim.sfpi import dst_reg, v_endif, v_if, vFloat, vInt, reinterpret


def nan_to_minus_zero():
    x = dst_reg[0]
    magnitude = reinterpret(vInt, x) & 0x7FFFFFFF
    with v_if(magnitude >= vInt(0x7F800001)):
        x.assign(vFloat(-0.0))
    v_endif()
    dst_reg[0] = x


register_kernel("nan_to_minus_zero", nan_to_minus_zero, function="identity_test",
                reference=lambda x: x,
                specials=SPECIALS)
'''


# The reference's line is the same in both: one table (keyed on that line), certified once.
@pytest.mark.parametrize("declared", [None, 0x8000])
def test_a_kernel_that_maps_nan_to_zero_fails_unless_it_declares_so(tmp_path, monkeypatch,
                                                                    declared):
    from sfpu_sim import reference, registry

    registry.names()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(reference.definitions, "FUNCTIONS",
                        dict(reference.definitions.FUNCTIONS))
    path = tmp_path / "nan_kernel.py"
    path.write_text(NAN_TO_ZERO.replace("SPECIALS", "{}" if declared is None
                                        else f"{{'nan': {declared}}}"))
    registry.load_kernel_files([path])
    if declared is None:
        with pytest.raises(AssertionError, match=r"254 NaN inputs do not give a NaN \(e\.g\. "
                                                 r"0x7f81 -> 0x8000\)"):
            assert_kernel_within_ulp("nan_to_minus_zero", "wormhole", 0)
    else:
        assert_kernel_within_ulp("nan_to_minus_zero", "wormhole", 0)


def test_bad_names_are_errors_not_assertions():
    with pytest.raises(SfpuSimError, match="unknown kernel 'nosuch'"):
        assert_kernel_within_ulp("nosuch", "blackhole", 1)
    with pytest.raises(SfpuSimError, match="unknown ULP convention"):
        assert_kernel_within_ulp("tanh", "blackhole", 1, ulp_convention="nosuch")
