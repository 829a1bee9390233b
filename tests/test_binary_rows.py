"""The accuracy table's binary rows (issue 17, item 4): the exhaustive maximum over every pair of
the harness's operand domain, on the kernel the harness runs (sfpu_sim.parity.binary_rows).

Pins: the domains' sizes; a small exhaustive cell by default; the full SfpuElwdiv 16-bit-Dst
cells under slow (the table's device figure, sampled, is 0 for Float16_b and 4 for Float16).
"""
from __future__ import annotations

import numpy as np
import pytest

from sfpu_sim.parity.binary_rows import (
    BINARY_ROWS,
    BinaryRowError,
    domain_patterns,
    exhaustive_cell,
)


def test_binary_row_domains_hold_every_normal_value_of_the_intervals():
    sizes = {fmt: [domain_patterns(d, fmt).size for d in
                   (((-1.0, 1.0),), ((-2.0, 2.0),), ((-10.0, -0.1), (0.1, 10.0)))]
             for fmt in ("bf16", "fp16")}
    assert sizes == {"bf16": [32258, 32514, 1704], "fp16": [28674, 30722, 13620]}
    one_to_two = domain_patterns(((1.0, 2.0),), "bf16")
    assert (one_to_two[0], one_to_two[-1], one_to_two.size) == (0x3F80, 0x4000, 129)
    assert not np.isin(domain_patterns(((-1.0, 1.0),), "bf16"), [0x0000, 0x8000, 0x0001]).any()


def test_binary_row_small_div_cell_is_correctly_rounded():
    """Every BF16 dividend in [1, 2] over every divisor in [1.5, 2] (129 x 65 pairs): the
    16-bit-Dst kernel's RNE quotient is correctly rounded on both chips."""
    for arch in ("wormhole", "blackhole"):
        cell = exhaustive_cell("SfpuElwdiv", "bf16", "No", arch, domain_x=((1.0, 2.0),),
                               domain_y=((1.5, 2.0),))
        assert (cell.max_ulp, cell.max_ulp_normal, cell.lanes, cell.nonfinite) == \
            (0, 0, 129 * 65, 0)
        assert cell.kernel == "binary_div_2026_09"


def test_binary_row_truncating_add_costs_one_step():
    """calculate_sfpu_binary<ADD> does not round: a 16-bit Dst's SFPSTORE truncates, one step
    from the nearest-even golden over [1, 2] x [2**-8, 2**-7]; the first such pair is
    1.0078125 + 2**-8, a tie that truncates to 0x3F81 and rounds to even 0x3F82."""
    cell = exhaustive_cell("SfpuElwadd", "bf16", "No", "wormhole", domain_x=((1.0, 2.0),),
                           domain_y=((2.0 ** -8, 2.0 ** -7),))
    assert (cell.max_ulp, cell.max_ulp_normal, cell.lanes) == (1, 1, 129 * 129)
    assert cell.worst == {"x_bits": "0x3f81", "y_bits": "0x3b80", "output_bits": "0x3f81",
                          "golden_bits": "0x3f82"}


def test_a_cell_in_many_runs_on_threads_is_the_one_run_cell(monkeypatch):
    """Cut into 13 device runs of 10 y values, two at a time on threads and merged in order,
    the cell above is the same: maximum, first worst pair, counts."""
    from sfpu_sim.parity import binary_rows

    args = ("SfpuElwadd", "bf16", "No", "wormhole")
    where = {"domain_x": ((1.0, 2.0),), "domain_y": ((2.0 ** -8, 2.0 ** -7),)}
    whole = exhaustive_cell(*args, **where)
    seen = []
    monkeypatch.setattr(binary_rows, "PAIRS_PER_RUN", 129 * 10)
    monkeypatch.setattr(binary_rows, "_width", lambda: 2)
    assert exhaustive_cell(*args, **where, progress=lambda d, n: seen.append(d)) == whole
    assert seen == [*range(10, 129, 10), 129]


def test_binary_row_refusals():
    with pytest.raises(BinaryRowError, match="unknown binary row"):
        exhaustive_cell("SfpuElwpow", "bf16", "No", "wormhole")
    with pytest.raises(BinaryRowError, match="FP32-Dst arm is not modelled"):
        exhaustive_cell("SfpuElwdiv", "bf16", "Yes", "wormhole")
    with pytest.raises(BinaryRowError, match="bf16 or fp16"):
        exhaustive_cell("SfpuElwadd", "fp32", "Yes", "wormhole")
    assert set(BINARY_ROWS) == {"SfpuElwadd", "SfpuElwsub", "SfpuElwrsub", "SfpuElwmul",
                                "SfpuElwdiv"}


# The full domains (55.4 M BF16 pairs; 418.4 M Float16 pairs). The only 1-step lanes in
# Float16_b are at the underflow boundary (a dividend near 2**-126 whose FP32 quotient the
# kernel flushes while the golden rounds up to 2**-126); on normal results the kernel is exact.
@pytest.mark.slow
@pytest.mark.parametrize("arch, worst_x, worst_y", [("wormhole", "0x009e", "0x3f9e"),
                                                    ("blackhole", "0x0086", "0x3f86")])
def test_binary_row_div_bf16_exhaustive(arch, worst_x, worst_y):
    cell = exhaustive_cell("SfpuElwdiv", "bf16", "No", arch)
    assert (cell.max_ulp, cell.max_ulp_normal, cell.lanes, cell.nonfinite) == \
        (1, 0, 55403856, 0)
    assert (cell.worst["x_bits"], cell.worst["y_bits"], cell.worst["output_bits"],
            cell.worst["golden_bits"]) == (worst_x, worst_y, "0x0000", "0x0080")


def test_binary_row_div_float16_loses_half_a_bf16_step():
    """A 16-bit Dst rounds the quotient to BF16 (float32_to_bf16_rne) whatever the format: on
    Float16 in [1, 2] x [1, 2] the worst lane is 1.00390625 / 1, a BF16 tie that goes to even
    1.0, 4 Float16 steps from the golden: the table's Float16 dest=No figure, 4."""
    for arch in ("wormhole", "blackhole"):
        cell = exhaustive_cell("SfpuElwdiv", "fp16", "No", arch, domain_x=((1.0, 2.0),),
                               domain_y=((1.0, 2.0),))
        assert (cell.max_ulp, cell.lanes) == (4, 1025 * 1025)
        assert cell.worst == {"x_bits": "0x3c04", "y_bits": "0x3c00", "output_bits": "0x3c00",
                              "golden_bits": "0x3c04"}
