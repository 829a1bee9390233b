"""Tenstorrent's measured accuracy table: the device figure of every unary op, format and Dst mode.

Source: tenstorrent/tt-metal ``tt_metal/tt-llk/tests/python_tests/helpers/
sfpu_accuracy_budget.yaml`` at commit 01d9b4244e0b178753085e01098fbad3e913c36c, each op's key line
"measured by: exhaustive Float16_b/Float16/Bfp8_b/Bfp4_b + strided Float32 sweep, wormhole,
2026-09-30" (``test_unary_sfpu_ulp.py --ulp-emit``). The file beside this package,
``data/sfpu_accuracy_budget_2026-09-30.csv``, is a transcription of the yaml's measured maxima
(the figure in each row's trailing comment, not the budget), one row per op and six cells:
Float16_b, Float16 and Float32 in and out, each with ``dest`` No (16-bit Dst) and Yes (FP32 Dst,
``is_fp32_dest_acc_en``). Where the transcription and the yaml disagree, the yaml wins.

A cell reads a number, a number with ``(tol)`` (above the usable ceiling, so the row falls back to
a tolerance check; the number is still the device's worst lane), a number with a note (e.g. a
``near_zero_atol`` floor), "not measurable ..." or nothing (not measured).
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "data" / "sfpu_accuracy_budget_2026-09-30.csv"
SOURCE = ("tt-metal tt_metal/tt-llk/tests/python_tests/helpers/sfpu_accuracy_budget.yaml "
          "@01d9b4244e0b178753085e01098fbad3e913c36c (Wormhole, measured 2026-09-30)")
# (input format, output format, dest) of the table's six columns, in order.
CELLS = (("bf16", "bf16", "No"), ("bf16", "bf16", "Yes"), ("fp16", "fp16", "No"),
         ("fp16", "fp16", "Yes"), ("fp32", "fp32", "No"), ("fp32", "fp32", "Yes"))
FORMAT_NAMES = {"bf16": "Float16_b", "fp16": "Float16", "fp32": "Float32"}
SHORT_NAMES = {name: short for short, name in FORMAT_NAMES.items()}   # its inverse
# tt-llk's usable ceilings (floor(0.05 * 2**mantissa_bits)): above them a row is (tol).
CEILINGS = {"bf16": 6, "fp16": 51, "fp32": 419_430}
_LEADING = re.compile(r"^\s*(\d+)")
_WHOLE = re.compile(r"whole-format (\d+)")
_FLOOR = re.compile(r"(\d+) outside near_zero_atol ([0-9.eE+-]+)")
_SAME = re.compile(r"^\s*\d+ \(same\)\s*$")
# Rows of other drivers (binary/ternary SFPU ops, scalar ops): not unary sweeps.
_NOT_UNARY = ("Sfpu", "Scalar")
_BINARY_STEMS = ("SfpuBinary", "SfpuElw", "Sfpu", "Scalar")   # a shared label's later names
# extend these
_NOTE = re.compile(r"\s*\(.*\)\s*$")
_PER_OP = re.compile(r"(\d+) \((\w+)\)")


@dataclass(frozen=True)
class DeviceCell:
    """One measured cell: ``max_ulp`` (None when not measured or not measurable: the raw
    worst lane, "whole-format" where a ``near_zero_atol`` floor applies), ``tolerance`` (the
    row fell back to a tolerance check), ``near_zero_atol`` and ``floored_max`` (the worst lane
    outside that floor, as the gate reports it at the row's ``budget``) where the row has one,
    ``text`` as the table writes it."""
    row: str
    input_format: str
    output_format: str
    dest: str
    max_ulp: int | None
    tolerance: bool
    text: str
    near_zero_atol: float | None = None
    floored_max: int | None = None

    @property
    def budget(self) -> int | None:
        """The row's ``max_ulp`` in the yaml where it has a floor: the floored figure plus the
        emitter's headroom, ceil(1.1 x N) (the yaml's floor rows: "Budget is the 2 plus the
        emitter's 1.1x headroom", max_ulp: 3). The gate's floor only rescues lanes over it."""
        return None if self.floored_max is None else -(-self.floored_max * 11 // 10)

    @property
    def measured(self) -> bool:
        return self.max_ulp is not None


def _cell(row: str, text: str, where: tuple[str, str, str],
          before: DeviceCell | None = None) -> DeviceCell:
    """One cell; "N (same)" repeats the cell before it (``before``), floor and all, as the
    yaml's rows do (Erfinv's Float16_b dest Yes row carries dest No's floor and figures)."""
    if before is not None and _SAME.match(text):
        return DeviceCell(row, *where, before.max_ulp, before.tolerance, text.strip(),
                          before.near_zero_atol, before.floored_max)
    match = _LEADING.match(text)
    figure = int(match.group(1)) if match and "not measur" not in text else None
    whole, floor = _WHOLE.search(text), _FLOOR.search(text)
    if whole:
        figure = int(whole.group(1))
    return DeviceCell(row, *where, figure, "(tol" in text, text.strip(),
                      float(floor.group(2)) if floor else None,
                      int(floor.group(1)) if floor else None)


def _binary_ops(label: str) -> list[str]:
    """The yaml keys a binary row's label names: ``SfpuBinaryMax/Min`` is SfpuBinaryMax and
    SfpuBinaryMin, ``SfpuElwsub/rsub`` SfpuElwsub and SfpuElwrsub; a parenthesised note goes."""
    names = _NOTE.sub("", label).split("/")
    stem = next(p for p in _BINARY_STEMS if names[0].startswith(p))
    return [names[0]] + [n if n.startswith(_NOT_UNARY) else stem + n for n in names[1:]]


def _share(text: str, index: int, ops: list[str]) -> str:
    """The part of a shared cell that is ``ops[index]``'s: "1 (sub) 0 (rsub)" by name, "1/0" by
    position; any other text is every op's."""
    if len(ops) == 1:
        return text
    named = dict((n, v) for v, n in _PER_OP.findall(text))
    if named:
        # the longest name the op ends with: SfpuElwrsub ends with "sub" too
        ends = [n for n in named if ops[index].lower().endswith(n.lower())]
        return named[max(ends, key=len)] if ends else ""
    parts = text.split("/")
    return parts[index].strip() if len(parts) == len(ops) and \
        all(_LEADING.match(p) for p in parts) else text


def read_binary(path: Path = TABLE) -> dict[str, list[DeviceCell]]:
    """Yaml key (``SfpuElwadd``, ``SfpuBinaryMax``, ``ScalarAdd`` ...) -> its six cells, for the
    table's binary, ternary and scalar rows (the sampled driver sweeps, Wormhole, 2026-09-21; a
    cell's "(dest No)" note is its Dst mode, which its column says already). A row naming several
    ops (``SfpuElwEq/Ge/Gt/Le/Lt/Ne``) gives each the same cells, except where a cell names its
    ops' figures apart ("1 (sub) 0 (rsub)", "1/0")."""
    rows: dict[str, list[DeviceCell]] = {}
    with open(path, newline="", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    for fields in csv.reader(lines):
        if not fields or not fields[0].startswith(_NOT_UNARY):
            continue
        texts = (fields[1:] + [""] * len(CELLS))[:len(CELLS)]
        ops = _binary_ops(fields[0])
        for index, op in enumerate(ops):
            rows[op] = [_cell(op, _share(text, index, ops), where)
                        for text, where in zip(texts, CELLS)]
    return rows


def read(path: Path = TABLE) -> dict[str, list[DeviceCell]]:
    """Row label (the table's op column, e.g. ``"Gelu(approx=No)"``) -> its six cells, for the
    unary rows (the binary/ternary ``Sfpu*`` and the ``Scalar*`` rows are other drivers')."""
    rows: dict[str, list[DeviceCell]] = {}
    with open(path, newline="", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    for fields in csv.reader(lines):
        if not fields or fields[0].startswith("#") or fields[0] == "op" or \
                fields[0].startswith(_NOT_UNARY):
            continue
        texts = (fields[1:] + [""] * len(CELLS))[:len(CELLS)]
        cells: list[DeviceCell] = []
        for text, where in zip(texts, CELLS):
            cells.append(_cell(fields[0], text, where, cells[-1] if cells else None))
        rows[fields[0]] = cells
    return rows
