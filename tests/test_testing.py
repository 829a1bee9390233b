"""sfpu_sim.testing: the pytest helper users put in their own suites."""
from __future__ import annotations

import pytest

from sfpu_sim.errors import SfpuSimError
from sfpu_sim.testing import assert_kernel_within_ulp


def test_a_kernel_within_its_budget_passes_and_returns_the_sweep():
    result = assert_kernel_within_ulp("tanh", "blackhole", 1, reference_rounding="truncate")
    assert result.summary["max_ulp"] == 1
    assert result.summary["count"] == 65025


def test_a_kernel_over_its_budget_fails_with_one_paragraph():
    with pytest.raises(AssertionError) as raised:
        assert_kernel_within_ulp("tanh", "blackhole", 0, reference_rounding="truncate")
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("tanh on Blackhole A0 (Dst BF16, output BF16, reference "
                              "truncate, ULP daz-index): max 1 ULP exceeds the budget of 0 "
                              "ULP: 3,082 of 65,025 measured inputs are over it. Worst input "
                              "0x0080 (1.1754944e-38): output 0x0000 (0), expected 0x0080 "
                              "(1.1754944e-38)")
    assert message.endswith("Population: daz (distinct values under DAZ: the normals and +0 "
                            "(65,025; tanh report, LLK sweep)), 65,025 of 65,025 inputs "
                            "measured; mean 0.0474 over 65,025 inputs.")


def test_a_fractional_budget_compares_unrounded_distances():
    # Under the fractional convention tanh's largest distances are 128 (a flushed smallest
    # normal) and the rest below 1: a budget of 127.5 fails on exactly those lanes.
    with pytest.raises(AssertionError, match=r"max 128 ULP exceeds the budget of 127.5 ULP: "
                                             r"2 of 65,025 measured inputs are over it"):
        assert_kernel_within_ulp("tanh", "wormhole", 127.5, ulp_convention="fractional")


def test_bad_names_are_errors_not_assertions():
    with pytest.raises(SfpuSimError, match="unknown kernel 'nosuch'"):
        assert_kernel_within_ulp("nosuch", "blackhole", 1)
    with pytest.raises(SfpuSimError, match="unknown ULP convention"):
        assert_kernel_within_ulp("tanh", "blackhole", 1, ulp_convention="nosuch")
