"""The pipeline bench's measure of how chunks on threads can scale (sfpu_sim.bench_pipeline)."""
from __future__ import annotations

from sfpu_sim import registry
from sfpu_sim.bench_pipeline import _nogil_functions, serial_table
from sfpu_sim.fp32sweep import Exhaustive, lane_tally


def _key(dispatcher) -> tuple:
    code = dispatcher.py_func.__code__
    return code.co_filename, code.co_firstlineno, code.co_name


def test_the_lock_free_functions_are_the_nogil_dispatchers():
    found = _nogil_functions()
    assert _key(lane_tally._tally) in found and _key(lane_tally.tally_parts) in found
    assert _key(lane_tally.lane_facts) not in found          # inlined: it holds no lock of its own


def test_the_serial_table_has_a_row_per_machine_size():
    table = serial_table(registry.get("reciprocal_fp32"), "wormhole", Exhaustive((1.0, 1.001)),
                         most=2, chunks_timed=2)
    assert [cell for cell in table.columns[0].cells] == ["1", "2", "16"]
    assert list(table.columns[1].cells) == ["4,194"] * 3          # half the walk: 8,389 inputs
