"""Every cell of the accuracy table that sfpu-sim models, predicted and set beside the device's.

One record per (row, cell, chip): the keys of ``sfpu-sim budget --all --json`` (``op``,
``approx``, ``in``, ``out``, ``dest``, ``arch``, ``max_ulp``, ``kernel``, ``provenance``) plus the
device's figure where the table has one (Wormhole), whether the two are equal, and the worst
lane. Where the row has a ``near_zero_atol`` floor the figure outside it is compared too (the
yaml's own figure for such a row is that one; the table's leading "whole-format" number is the
raw worst lane). A cell no model covers is a record with ``max_ulp`` None and the ``reason``.
"""
from __future__ import annotations

from sfpu_sim import ops
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.parity import binary_rows, cells, device_table
from sfpu_sim.version import __version__

MEASURED_ON = "wormhole"        # the table's chip


class ParityError(SfpuSimError):
    pass


def choose_rows(names: list[str] | None) -> list[str]:
    """Table rows by label (``Gelu(approx=No)``) or by the yaml's key (``Gelu``: every row of
    that key, ``SfpuElwadd``: a binary row); None: every unary row (a binary cell sweeps up to
    a billion pairs, so binary rows are chosen by name)."""
    rows = list(device_table.read())
    if not names:
        return rows
    binary = list(device_table.read_binary())
    chosen = []
    for name in names:
        matching = [r for r in rows if r == name or ops.Op(r, "").key == name] or \
            [r for r in binary if r == name]
        if not matching:
            raise ParityError(f"unknown op {name!r}: give a row of the table (e.g. "
                              f"'Gelu(approx=No)') or its key (e.g. Gelu); rows: "
                              f"{', '.join(rows + binary)}")
        chosen += [r for r in matching if r not in chosen]
    return chosen


def _keys(row: str, fmt_in: str, fmt_out: str, dest: str, arch: str,
          cell: device_table.DeviceCell | None = None) -> dict:
    """A record's keys (formats by DataFormat name); the device's figure where ``cell`` (the
    table's) gives one on its chip."""
    op = ops.Op(row, "")
    measured = cell is not None and arch == MEASURED_ON
    return {"op": op.key, "row": row, "approx": op.approx, "in": fmt_in, "out": fmt_out,
            "dest": dest, "arch": arch, "device_max_ulp": cell.max_ulp if measured else None,
            "device_text": cell.text if measured else None}


def _base(row: str, cell: device_table.DeviceCell, arch: str) -> dict:
    """The keys of a table cell's record."""
    return _keys(row, device_table.FORMAT_NAMES[cell.input_format],
                 device_table.FORMAT_NAMES[cell.output_format], cell.dest, arch, cell)


def records(rows: list[str], arches: list[str], progress=None, every_pair: bool = False,
            mixed: bool = False):
    """Yield one record per cell (module docstring), rows in table order, chips as given; a
    binary row's from :func:`sfpu_sim.parity.binary_rows.records` (``every_pair``: the bound
    over every pair its draw can produce, not its reproduced sample). ``mixed``: a unary row's
    cells between its formats too (:data:`~sfpu_sim.parity.cells.FORMAT_PAIRS`, the yaml's
    mixed rows; the table has no device figure for them)."""
    device = device_table.read()
    modelled, unmodelled, explained = ops.ops(), ops.unmodelled_rows(), ops.mismatches()
    tool = f"sfpu-sim {__version__}, emulated"
    for row in rows:
        if row not in device:
            yield from binary_rows.records([row], arches, tool, progress, every_pair)
            continue
        for cell in device[row]:
            for arch in arches:
                record = _base(row, cell, arch)
                op = modelled.get(row)
                if op is None:
                    reason = unmodelled.get(row, "no op registered for this row")
                elif cell.dest in op.unmodelled:
                    reason = op.unmodelled[cell.dest]
                else:
                    reason = None
                if reason is not None:
                    yield {**record, "max_ulp": None, "kernel": None, "provenance": None,
                           "reason": reason}
                    continue
                if progress:
                    progress(f"{row} {cell.input_format}->{cell.output_format} "
                             f"dest={cell.dest} on {arch}")
                p = cells.predict(op, (cell.input_format, cell.output_format, cell.dest), arch,
                                  near_zero_atol=cell.near_zero_atol, budget=cell.budget)
                same = None if record["device_max_ulp"] is None else \
                    p.max_ulp == record["device_max_ulp"] and \
                    (cell.floored_max is None or p.floored_max == cell.floored_max)
                cause = explained.get((row, cell.input_format, cell.dest)) if same is False \
                    else None
                yield {**record, "max_ulp": p.max_ulp, "match": same, "mismatch_cause": cause,
                       "kernel": {"name": p.kernel, "instantiation": p.instantiation},
                       "provenance": f"{op.dispatch}; {op.provenance}",
                       "golden": p.golden, "lanes": p.lanes, "nonfinite_lanes": p.nonfinite,
                       "near_zero_atol": cell.near_zero_atol, "floor_budget": cell.budget,
                       "floored_max_ulp": p.floored_max,
                       "device_floored_max_ulp": cell.floored_max
                       if arch == MEASURED_ON else None,
                       "worst": p.worst, "tool": tool}
        if mixed and row in modelled:
            yield from _mixed_records(row, modelled[row], arches, progress, tool)


def _mixed_records(row: str, op, arches: list[str], progress, tool: str):
    """The cells of ``row`` between Float16_b, Float16 and Float32, predicted (no device
    figure), or with the reason a path is not modelled."""
    for fmt_in, fmt_out in cells.FORMAT_PAIRS:
        if fmt_in == fmt_out:
            continue
        for dest in ("No", "Yes"):
            for arch in arches:
                record = _keys(row, fmt_in, fmt_out, dest, arch)
                reason = op.unmodelled.get(dest) or cells.unmodelled_cell(fmt_in, fmt_out, dest)
                if reason is not None:
                    yield {**record, "max_ulp": None, "kernel": None, "provenance": None,
                           "reason": reason}
                    continue
                if progress:
                    progress(f"{row} {fmt_in}->{fmt_out} dest={dest} on {arch}")
                p = cells.predict(op, (device_table.SHORT_NAMES[fmt_in],
                                       device_table.SHORT_NAMES[fmt_out], dest), arch)
                yield {**record, "max_ulp": p.max_ulp, "match": None, "mismatch_cause": None,
                       "kernel": {"name": p.kernel, "instantiation": p.instantiation},
                       "provenance": f"{op.dispatch}; {op.provenance}", "golden": p.golden,
                       "lanes": p.lanes, "nonfinite_lanes": p.nonfinite, "near_zero_atol": None,
                       "floor_budget": None, "floored_max_ulp": None,
                       "device_floored_max_ulp": None, "worst": p.worst, "tool": tool}

