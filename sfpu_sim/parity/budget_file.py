"""tt-llk's accuracy budget file: read it by the harness's rules, write rows it will load.

Owns the file's schema and the rules its reader applies; knows nothing of how a cell is
predicted (:mod:`sfpu_sim.parity.cells`) nor of the CLI. Facts carried over, not code:

* The reader: tenstorrent/tt-metal ``tt_metal/tt-llk/tests/python_tests/helpers/
  sfpu_accuracy_budget.py`` (stored version @0247515983b0ecb33bac01d28923fcf9bb2bdd84, index id
  68565078872). PyYAML's ``SafeLoader`` (so YAML 1.1: a bare ``No`` is ``False``); a duplicate
  mapping key is refused on the composed node tree, ``<<`` merge keys excepted; the top level is
  a mapping of ``MathOperation`` names to non-empty lists of rows; a row's fields are the key
  ``in``/``out`` (``DataFormat`` by name), ``approx``/``dest`` (``ApproximationMode``/
  ``DestAccumulation``: by name, or by value when the scalar has the value's type, a bool) and
  ``arch`` (``ChipArchitecture`` by name or value), and the contract ``metric`` (``ulp``, the
  default, or ``tolerance``), ``max_ulp`` (an int, not a bool, finite, >= 0), ``near_zero_atol``
  (ulp only), ``atol``/``rtol`` (tolerance only); one op may not repeat a key. An unset key field
  matches any value, the most specific matching row wins, two equally specific winners are an
  error. A ULP row binds off ``MEASURED_ARCH`` (Wormhole) only if its own key names ``arch``.
* The enums: ``DataFormat`` of ``helpers/format_config.py`` (index id 54873757986),
  ``ChipArchitecture`` BLACKHOLE/WORMHOLE/QUASAR = "blackhole"/"wormhole"/"quasar"
  (``helpers/chip_architecture.py``), ``DestAccumulation``/``ApproximationMode`` Yes=True,
  No=False (``helpers/llk_params.py``; the reader's docstring: "``ApproximationMode.No`` is
  spelled ``False`` too").
* The writer: the yaml at 01d9b4244e0b178753085e01098fbad3e913c36c (index id 70347947291), rows
  written by ``test_unary_sfpu_ulp.py --ulp-emit``: one flow mapping a row, keys in the order
  in, out, approx (ops with approx variants only), dest, then ``max_ulp`` or ``metric:
  tolerance``; ``approx``/``dest`` quoted; rows sorted by in, out, approx, dest; a trailing
  ``# max N ULP``; the op's key line ``# measured by: ...``. Budget = ceil(1.1 x max), a 0 kept
  at 0; a max inside ``usable_budget_ceiling`` (6 / 51 / 419,430 steps for Float16_b / Float16 /
  Float32, ``rtol * 2**mantissa_bits``) is enrolled with its headroom capped at the ceiling, one
  past it is ``metric: tolerance`` with "# max N ULP, budget B > ceiling C"; a cell with lanes
  disagreeing about being finite is ``metric: tolerance`` "# not measurable: ...".
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from sfpu_sim import ops
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.parity import binary_rows, cells, device_table, tolerance_rows

MEASURED_ARCH = "wormhole"
# helpers/format_config.py DataFormat member names (values are objects: names only in YAML).
DATA_FORMATS = frozenset((
    "Float16", "Float16_b", "Bfp8", "Bfp8_b", "Bfp4_b", "Bfp2_b", "Float32", "Int32", "Tf32",
    "UInt32", "Int16", "UInt16", "Int8", "UInt8", "MxFp8R", "MxFp8P", "MxFp4", "MxFp4_2x_A",
    "MxFp4_2x_B", "MxInt8", "MxInt4", "MxInt2", "Fp8_e4m3"))
ARCHES = {"BLACKHOLE": "blackhole", "WORMHOLE": "wormhole", "QUASAR": "quasar"}
YES_NO = {"Yes": True, "No": False}
KEY_FIELDS = ("in", "out", "approx", "dest", "arch")          # the reader's _KEY_FIELDS order
CONTRACT_FIELDS = ("metric", "max_ulp", "near_zero_atol", "atol", "rtol")
# usable_budget_ceiling, whole steps: floor(0.05 * 2**mantissa_bits) (rtol 0.05 of utils.py's
# tolerances, the figures the yaml's comments quote: "419430 ... Float32, 51 ... Float16, 6 ...
# Float16_b").
CEILINGS = {"Float16_b": 6, "Float16": 51, "Float32": 419_430}
_MEASURED = re.compile(r"#\s*(?:[a-z]+:\s*)?max ([0-9,]+) ULP")


class BudgetFileError(SfpuSimError):
    """A budget file the harness's reader would refuse, or that cannot be read at all."""


@dataclass(frozen=True)
class Row:
    """One row: ``key`` field -> normalised value (formats by name, approx/dest "Yes"/"No",
    arch by value), the contract fields as written, its line (1-based) and the device figure
    its trailing comment records ("max N ULP"), if any."""
    op: str
    key: dict
    contract: dict
    line: int
    measured: int | None = None

    @property
    def metric(self) -> str:
        return self.contract.get("metric", "ulp")

    @property
    def specificity(self) -> int:
        return len(self.key)

    def matches(self, query: dict) -> bool:
        """The reader's ``BudgetKey.matches``: every field this row sets equals the query's."""
        return all(query.get(name) == value for name, value in self.key.items())

    def describe(self) -> str:
        quoted = {"approx", "dest"}         # written quoted, as the file writes them
        fields = ", ".join(f'{name}: "{self.key[name]}"' if name in quoted else
                           f"{name}: {self.key[name]}" for name in KEY_FIELDS if name in self.key)
        return f"{self.op} {{{fields}}} (line {self.line})"


@dataclass
class BudgetFile:
    path: Path
    ops: dict[str, list[Row]] = field(default_factory=dict)

    def winner(self, op: str, query: dict) -> Row | None:
        """The most specific row of ``op`` covering ``query`` (the reader's ``_winner``)."""
        matched = [row for row in self.ops.get(op, []) if row.matches(query)]
        if not matched:
            return None
        best = max(row.specificity for row in matched)
        winners = [row for row in matched if row.specificity == best]
        if len(winners) > 1:
            raise BudgetFileError(
                f"{self.path}: {op}: {len(winners)} equally specific rows match {query}: "
                f"{'; '.join(r.describe() for r in winners)}; the harness refuses a tie")
        return winners[0]


# Reading ----------------------------------------------------------------------------------

def _refuse_duplicate_keys(node, where: str) -> None:
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key, value in node.value:
            if key.tag == "tag:yaml.org,2002:merge":
                continue        # overriding a merged field is what << is for
            if key.value in seen:
                raise BudgetFileError(f"{where}:{key.start_mark.line + 1}: duplicate entry "
                                      f"{key.value!r}: YAML keeps only the last")
            seen.add(key.value)
            _refuse_duplicate_keys(value, where)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _refuse_duplicate_keys(item, where)


def _yes_no(value, where: str, name: str) -> str:
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, str) and value in YES_NO:
        return value
    raise BudgetFileError(f"{where}: {name} {value!r}: allowed: \"Yes\" or \"No\" (or a bare "
                          f"YAML boolean)")


def _key_value(name: str, value, where: str) -> str:
    if name in ("in", "out"):
        if isinstance(value, str) and value in DATA_FORMATS:
            return value
        raise BudgetFileError(f"{where}: {name} {value!r} is not a DataFormat; allowed: "
                              f"{', '.join(sorted(DATA_FORMATS))}")
    if name == "arch":
        if isinstance(value, str) and value in ARCHES:
            return ARCHES[value]
        if isinstance(value, str) and value in ARCHES.values():
            return value
        raise BudgetFileError(f"{where}: arch {value!r}: allowed: "
                              f"{', '.join(ARCHES.values())} (or {', '.join(ARCHES)})")
    return _yes_no(value, where, name)


def _number(name: str, value, where: str, integer: bool = False) -> None:
    """The reader's ``_check_number``: a bool is refused (YAML 1.1 reads ``yes`` as one)."""
    kinds = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not math.isfinite(value) \
            or value < 0:
        raise BudgetFileError(f"{where}: {name} {value!r}: allowed: a finite, non-negative "
                              f"{'integer step count' if integer else 'number'}")


def _contract(contract: dict, where: str) -> None:
    """``AccuracyContract.__post_init__``'s rules."""
    metric = contract.get("metric", "ulp")
    if metric not in ("ulp", "tolerance"):
        raise BudgetFileError(f"{where}: metric {metric!r}: allowed: ulp, tolerance")
    for name in ("atol", "rtol", "near_zero_atol"):
        if contract.get(name) is not None:
            _number(name, contract[name], where)
    if metric == "ulp":
        if contract.get("max_ulp") is None:
            raise BudgetFileError(f"{where}: a ulp row needs max_ulp (or metric: tolerance)")
        _number("max_ulp", contract["max_ulp"], where, integer=True)
        if contract.get("atol") is not None or contract.get("rtol") is not None:
            raise BudgetFileError(f"{where}: atol/rtol belong to metric: tolerance; a ulp row "
                                  f"takes max_ulp and near_zero_atol")
    elif contract.get("max_ulp") is not None or contract.get("near_zero_atol") is not None:
        raise BudgetFileError(f"{where}: max_ulp and near_zero_atol belong to the ulp metric")


def _row(op: str, node, value, path: Path, lines: list[str]) -> Row:
    line = node.start_mark.line + 1
    where = f"{path}:{line}: {op}"
    if not isinstance(value, dict):
        raise BudgetFileError(f"{where}: a row is a mapping such as {{in: Float16_b, out: "
                              f"Float16_b, dest: \"No\", max_ulp: 2}}, not {value!r}")
    unknown = sorted(set(value) - set(KEY_FIELDS) - set(CONTRACT_FIELDS), key=str)
    if unknown:
        raise BudgetFileError(f"{where}: unknown field(s) {unknown}; allowed: "
                              f"{', '.join(KEY_FIELDS + CONTRACT_FIELDS)}")
    key = {name: _key_value(name, value[name], where) for name in KEY_FIELDS if name in value}
    contract = {name: value[name] for name in CONTRACT_FIELDS if name in value}
    _contract(contract, where)
    # The comment is the measurement; on a one-line flow row it sits on the row's own line.
    found = _MEASURED.search(lines[node.start_mark.line]) if node.start_mark.line < len(lines) \
        and node.start_mark.line == node.end_mark.line else None
    return Row(op, key, contract, line, int(found.group(1).replace(",", "")) if found else None)


def read(path) -> BudgetFile:
    """A budget file, checked by the harness reader's rules (module docstring). Op names are
    not checked against ``MathOperation`` (its members are not carried here)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise BudgetFileError(f"{path}: cannot read: {error}") from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return BudgetFile(path)
        _refuse_duplicate_keys(node, str(path))
        loaded = loader.construct_document(node)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise BudgetFileError(f"{path}{at}: not YAML the harness can load: {problem}") from None
    finally:
        loader.dispose()
    if not isinstance(loaded, dict) or not isinstance(node, yaml.MappingNode):
        raise BudgetFileError(f"{path}: expected a mapping of op names to rows at the top "
                              f"level, got {type(loaded).__name__}")
    lines = text.splitlines()
    budget = BudgetFile(path)
    for key_node, rows_node in node.value:
        op = loaded_key = key_node.value
        rows = loaded[loaded_key]
        where = f"{path}:{key_node.start_mark.line + 1}: {op}"
        if not rows:
            raise BudgetFileError(f"{where} has no rows; remove it (the op then falls back to "
                                  f"the tolerance metric)")
        if not isinstance(rows, list) or not isinstance(rows_node, yaml.SequenceNode):
            raise BudgetFileError(f"{where}: expected a list of rows, got "
                                  f"{type(rows).__name__}")
        parsed = [_row(op, n, v, path, lines) for n, v in zip(rows_node.value, rows)]
        seen: dict[tuple, Row] = {}
        for row in parsed:
            identity = tuple(sorted(row.key.items()))
            if identity in seen:
                raise BudgetFileError(f"{path}:{row.line}: {op} repeats the key of line "
                                      f"{seen[identity].line}; the later row would replace "
                                      f"the earlier budget")
            seen[identity] = row
        budget.ops[op] = parsed
    return budget


# Writing ----------------------------------------------------------------------------------

def headroom(max_ulp: int) -> int:
    """The emitter's budget of an exhaustive row: ceil(1.1 x max) in integers, 0 kept at 0."""
    return (11 * int(max_ulp) + 9) // 10


@dataclass(frozen=True)
class Cell:
    """A predicted cell to write as a row: formats by DataFormat name, approx None where the op
    has no approx variants, ``max_ulp`` None when no lane was measurable, ``nonfinite`` lanes
    disagreeing with the golden about being finite; ``near_zero_atol`` with ``floored_max`` (the
    figure outside that floor) where the row keeps a floor."""
    op: str
    input_format: str
    output_format: str
    approx: str | None
    dest: str
    arch: str
    max_ulp: int | None
    nonfinite: int = 0
    near_zero_atol: float | None = None
    floored_max: int | None = None


def row_text(cell: Cell) -> str:
    """One row as the emitter writes it, with its trailing comment (module docstring)."""
    fields = [f"in: {cell.input_format}", f"out: {cell.output_format}"]
    if cell.approx is not None:
        fields.append(f'approx: "{cell.approx}"')
    fields += [f'dest: "{cell.dest}"', f"arch: {cell.arch}"]
    ceiling = CEILINGS[cell.output_format]
    if cell.nonfinite or cell.max_ulp is None:
        why = (f"{cell.nonfinite:,} lane(s) disagreeing with the golden about being finite"
               if cell.nonfinite else "no lane measurable")
        return f"  - {{{', '.join(fields)}, metric: tolerance}}  # not measurable: {why}"
    floored = cell.near_zero_atol is not None and cell.floored_max is not None
    figure, note = cell.max_ulp, f"max {cell.max_ulp} ULP"
    if floored:
        figure = cell.floored_max
        note = (f"max {cell.floored_max} ULP outside near_zero_atol {cell.near_zero_atol:g} "
                f"(whole-format {cell.max_ulp})")
    if figure > ceiling:
        return (f"  - {{{', '.join(fields)}, metric: tolerance}}  # max {figure} ULP, budget "
                f"{headroom(figure)} > ceiling {ceiling}")
    fields.append(f"max_ulp: {min(headroom(figure), ceiling)}")
    if floored:
        fields.append(f"near_zero_atol: {cell.near_zero_atol:g}")
    return f"  - {{{', '.join(fields)}}}  # {note}"


def _order(cell: Cell) -> tuple:
    return (cell.input_format, cell.output_format, cell.approx or "", cell.dest)


def render(cells: list[Cell], tool: str, sweep: str, skipped: dict[str, list[str]],
           date: str, sweeps: dict[str, str] | None = None) -> str:
    """A budget file of predicted rows: one block an op (in order of first appearance), rows
    sorted as the emitter sorts them, the op's key line naming the tool, what was swept
    (``sweeps[op]``, else ``sweep``) and the chips; cells not predicted are comments under their
    op, or at the end for an op with no row (the reader refuses an op without rows)."""
    ops: dict[str, list[Cell]] = {}
    for cell in cells:
        ops.setdefault(cell.op, []).append(cell)
    lines = [f"# Predicted by {tool} (not measured on silicon). Rows follow tt-llk's",
             "# sfpu_accuracy_budget.yaml: budget = ceil(1.1 x predicted max), 0 kept at 0, the",
             "# headroom capped at the usable ceiling (6 / 51 / 419430 steps for Float16_b /",
             "# Float16 / Float32), past it or with non-finite lanes a tolerance row. Each row",
             "# names its chip (arch), so it binds there and nowhere else.", ""]
    for op, rows in ops.items():
        arches = ", ".join(dict.fromkeys(c.arch for c in rows))
        lines.append(f"{op}:  # measured by: predicted by {tool}: "
                     f"{(sweeps or {}).get(op, sweep)}, {arches}, {date}")
        lines += [row_text(c) for c in sorted(rows, key=_order)]
        lines += [f"  # not predicted: {why}" for why in skipped.get(op, [])]
        lines.append("")
    lines += [f"# not predicted: {op}: {why}" for op, whys in skipped.items() if op not in ops
              for why in whys]
    return "\n".join(lines).rstrip("\n") + "\n"


def cells_of_records(records) -> tuple[list[Cell], dict[str, list[str]]]:
    """The rows :func:`render` writes, from :func:`sfpu_sim.parity.predict.records`; cells no
    model covers become "not predicted" notes, one per table row and reason."""
    cells, skipped = [], {}
    for r in records:
        if r["max_ulp"] is None and r.get("reason"):
            note = f"{r['row']} (dest {r['dest']}, {r['arch']}): {r['reason']}"
            if note not in skipped.setdefault(r["op"], []):
                skipped[r["op"]].append(note)
            continue
        approx = r["approx"] if "(approx=" in r["row"] else None
        cells.append(Cell(r["op"], r["in"], r["out"], approx, r["dest"], r["arch"],
                          r["max_ulp"], r.get("nonfinite_lanes") or 0, r.get("near_zero_atol"),
                          r.get("floored_max_ulp")))
    return cells, skipped


# Checking ---------------------------------------------------------------------------------

SHORT = device_table.SHORT_NAMES
CHIPS = ("wormhole", "blackhole")


@dataclass
class RowCheck:
    """One row's verdict: the cells it is the winning row for (``(label, format, dest,
    chip)``), the figure predicted for each, and why it could not be checked otherwise;
    ``bound``: a binary row's figure is the maximum over every pair of its driver's domain,
    which the row's sampled measurement may sit below."""
    row: Row
    cells: list[tuple] = field(default_factory=list)
    predicted: dict[tuple, int | None] = field(default_factory=dict)
    reason: str | None = None
    bound: bool = False

    @property
    def budget(self) -> int | None:
        return self.row.contract.get("max_ulp")

    def worst(self, chip: str | None = None) -> int | None:
        figures = [v for k, v in self.predicted.items() if v is not None and
                   (chip is None or k[3] == chip)]
        return max(figures) if figures else None

    @property
    def over(self) -> bool:
        worst = self.worst()
        return worst is not None and worst > self.budget

    @property
    def differs(self) -> bool:
        """Whether the prediction on the row's chip (its own ``arch``, else Wormhole, where the
        unkeyed rows were measured) differs from the figure its comment records."""
        worst = self.worst(self.row.key.get("arch", MEASURED_ARCH))
        return self.row.measured is not None and worst is not None and \
            worst != self.row.measured


def _labels_by_key(labels) -> dict[str, list[str]]:
    by_key: dict[str, list[str]] = {}
    for label in labels:
        by_key.setdefault(ops.Op(label, "").key, []).append(label)
    return by_key


def _why_not(row: Row, labels: list[str], unmodelled: dict, unkeyed_unchecked: bool,
             dest_reasons: list[str]) -> str:
    """Why ``row`` is the winning row of no cell sfpu-sim predicts (``unkeyed_unchecked``: the
    chips checked leave out Wormhole, where an unkeyed row binds, and none was named)."""
    if not labels:
        if row.op in device_table.read_binary():
            return ("metric: tolerance, no step budget to check" if row.metric == "tolerance"
                    else "no model of this binary op's kernel")
        return "no row of the accuracy table (sfpu_sim/data) has this op"
    modelled = [label for label in labels if label not in unmodelled]
    if not modelled:
        return unmodelled[labels[0]]
    if row.metric == "tolerance":
        return "metric: tolerance, no step budget to check"
    formats = (row.key.get("in"), row.key.get("out"))
    if any(f is not None and f not in SHORT for f in formats) or \
            None not in formats and formats not in cells.FORMAT_PAIRS:
        return (f"in {formats[0] or 'any'} -> out {formats[1] or 'any'}: sfpu-sim predicts "
                f"Float16_b, Float16 and Float32 in and out and between them")
    if row.key.get("arch") == "quasar":
        return "arch quasar is not emulated"
    if dest_reasons:
        return "; ".join(dict.fromkeys(dest_reasons))
    return _unkeyed_or_outranked(row, unkeyed_unchecked)


def _unkeyed_or_outranked(row: Row, unkeyed_unchecked: bool) -> str:
    if "arch" not in row.key and unkeyed_unchecked:
        return ("an unkeyed ULP row binds on Wormhole only (MEASURED_ARCH); checked there "
                "when --arch is not blackhole")
    return "a more specific row wins every cell sfpu-sim predicts that it covers"


def _plan_binary(budget: BudgetFile, op: str, chips, explicit: bool) -> list[RowCheck]:
    """:func:`plan` for a binary op of :data:`sfpu_sim.parity.binary_rows.BINARY_ROWS`: the cells
    of its ``cell_formats`` (approx No, the only mode the binary driver compiles); a cell names
    its formats "in -> out" where they differ."""
    spec, rows = binary_rows.BINARY_ROWS[op], budget.ops[op]
    verdicts = {id(row): RowCheck(row, bound=not (spec.crafted or spec.sampled)) for row in rows}
    dest_reasons: dict[int, list[str]] = {}
    for fmt_in, fmt_out in spec.cell_formats:
        for dest in ("No", "Yes"):
            for chip in chips:
                row = budget.winner(op, {"in": fmt_in, "out": fmt_out, "approx": "No",
                                         "dest": dest, "arch": chip})
                if row is None or row.metric != "ulp" or \
                        chip != MEASURED_ARCH and "arch" not in row.key and not explicit:
                    continue
                text = fmt_in if fmt_in == fmt_out else f"{fmt_in} -> {fmt_out}"
                why = spec.why_no_cell(chip, SHORT[fmt_in], dest, SHORT[fmt_out])
                if why is not None:
                    dest_reasons.setdefault(id(row), []).append(f"{op} {text} dest {dest}: "
                                                                f"{why}")
                    continue
                verdicts[id(row)].cells.append((op, text, dest, chip))
    for row in rows:
        if not verdicts[id(row)].cells:
            verdicts[id(row)].reason = _why_not_binary(
                row, not explicit and MEASURED_ARCH not in chips, dest_reasons.get(id(row), []))
    return [verdicts[id(row)] for row in rows]


def _why_not_binary(row: Row, unkeyed_unchecked: bool, dest_reasons: list[str]) -> str:
    """Why a binary op's ``row`` is the winning row of no cell sfpu-sim predicts."""
    formats = {row.key.get("in"), row.key.get("out")} - {None}
    if dest_reasons:
        return "; ".join(dict.fromkeys(dest_reasons))
    if row.metric == "tolerance":
        return "metric: tolerance, no step budget to check"
    if row.key.get("arch") == "quasar":
        return "arch quasar is not emulated"
    mixed = (row.key.get("in"), row.key.get("out"))
    if formats - {"Float16_b", "Float16", "Float32"} or \
            len(formats) > 1 and mixed != ("Float16_b", "Float32"):
        return ("sfpu-sim predicts a binary op's Float16_b and Float16 cells and Float16_b -> "
                "Float32 (and crafted and scalar rows' Float32 cells and Float32 -> Float16_b)")
    return _unkeyed_or_outranked(row, unkeyed_unchecked)


def plan(budget: BudgetFile, chips, explicit: bool) -> list[RowCheck]:
    """Each row of ``budget`` with the cells it gates that sfpu-sim models (the harness's
    resolution: most specific row, unkeyed ULP rows only on Wormhole unless ``explicit``)."""
    modelled, unmodelled = ops.ops(), ops.unmodelled_rows()
    by_key = _labels_by_key(device_table.read())
    checks = []
    for op, rows in budget.ops.items():
        if op in tolerance_rows.TOLERANCE_ROWS:
            checks += tolerance_rows.plan(budget, op, chips)
            continue
        if op in binary_rows.BINARY_ROWS:
            checks += _plan_binary(budget, op, chips, explicit)
            continue
        labels = by_key.get(op, [])
        verdicts = {id(row): RowCheck(row) for row in rows}
        dest_reasons: dict[int, list[str]] = {}
        for label in labels:
            model = modelled.get(label)
            if model is None:
                continue
            for fmt_in, fmt_out in cells.FORMAT_PAIRS:
                fmt = fmt_in if fmt_in == fmt_out else f"{fmt_in} -> {fmt_out}"
                for dest in ("No", "Yes"):
                    for chip in chips:
                        query = {"in": fmt_in, "out": fmt_out, "approx": model.approx,
                                 "dest": dest, "arch": chip}
                        row = budget.winner(op, query)
                        if row is None or row.metric != "ulp":
                            continue
                        if chip != MEASURED_ARCH and "arch" not in row.key and not explicit:
                            continue        # the harness downgrades it to its tolerance arm
                        why = model.unmodelled.get(dest)
                        where = f"{label} dest {dest}" if why else f"{label} {fmt} dest {dest}"
                        why = why or cells.unmodelled_cell(fmt_in, fmt_out, dest)
                        if why:
                            dest_reasons.setdefault(id(row), []).append(f"{where}: {why}")
                            continue
                        verdicts[id(row)].cells.append((label, fmt, dest, chip))
        for row in rows:
            check = verdicts[id(row)]
            if not check.cells:
                check.reason = _why_not(row, labels, unmodelled,
                                        not explicit and MEASURED_ARCH not in chips,
                                        dest_reasons.get(id(row), []))
            checks.append(check)
    return checks


def check(budget: BudgetFile, chips=CHIPS, explicit: bool = False, progress=None):
    """:func:`plan`, then each planned cell predicted (:func:`sfpu_sim.parity.cells.predict`
    with the row's ``near_zero_atol`` floor read at its ``max_ulp``): the figure outside the
    floor where the row has one. A cell with lanes disagreeing about being finite has no
    figure (None): the harness may excuse such lanes, which is not modelled."""
    modelled = ops.ops()
    checks = plan(budget, chips, explicit)
    for item in checks:
        if isinstance(item, tolerance_rows.ToleranceCheck):
            item.run(progress)
            continue
        atol = item.row.contract.get("near_zero_atol")
        for cell in item.cells:
            label, fmt, dest, chip = cell
            if progress:
                progress(f"{label} {fmt} dest={dest} on {chip}")
            fmt_in, _, fmt_out = fmt.partition(" -> ")
            if label in binary_rows.BINARY_ROWS:
                found = binary_rows.cell(label, SHORT[fmt_in], dest, chip,
                                         output_format=SHORT[fmt_out or fmt_in])
                item.predicted[cell] = None if found.nonfinite else found.max_ulp
                continue
            p = cells.predict(modelled[label], (SHORT[fmt_in], SHORT[fmt_out or fmt_in], dest),
                              chip, near_zero_atol=atol, budget=item.budget if atol else None)
            figure = p.floored_max if atol is not None else p.max_ulp
            item.predicted[cell] = None if p.nonfinite else figure
    return checks


def report(checks: list[RowCheck], path) -> tuple[list[str], int]:
    """The lines ``budget --check`` prints and its exit status (1 if a row is over budget): rows
    over budget, rows whose prediction differs from their measurement, rows not measurable, the
    other checked rows (prediction, measurement, budget), rows not modelled and why."""
    lines, tolerance_within = tolerance_rows.report_lines(checks)
    over = [c for c in checks if c.over]
    for c in over:
        if isinstance(c, tolerance_rows.ToleranceCheck):
            continue
        worst = max((k for k, v in c.predicted.items() if v is not None),
                    key=lambda k: c.predicted[k])
        lines.append(f"over budget: {c.row.describe()}: predicted {c.worst()} > max_ulp "
                     f"{c.budget} ({worst[0]} {worst[1]} dest {worst[2]} on {worst[3]}"
                     + (", over every pair the driver's draw can produce)" if c.bound else ")"))
    for c in checks:
        if c.differs:
            lines.append(f"differs from measured: {c.row.describe()}: predicted "
                         f"{c.worst(c.row.key.get('arch', MEASURED_ARCH))}, the row records "
                         f"max {c.row.measured}" + (
                             " (every pair the driver's draw can produce; the row's is a sample)"
                             if c.bound else ""))
    for c in checks:
        blind = [k for k, v in getattr(c, "predicted", {}).items() if v is None]
        if blind:
            lines.append(f"not measurable: {c.row.describe()}: lanes disagree with the golden "
                         f"about being finite in {len(blind)} cell(s) (the harness's excuses "
                         f"are not modelled)")
    for c in checks:
        if c.cells and not c.over and not c.differs and c.worst() is not None:
            measured = "" if c.row.measured is None else \
                f", the row records max {c.row.measured}"
            lines.append(f"within budget: {c.row.describe()}: predicted {c.worst()}{measured}, "
                         f"max_ulp {c.budget}")
    lines += tolerance_within
    for c in checks:
        if c.reason:
            lines.append(f"not modelled: {c.row.describe()}: {c.reason}")
    checked = [c for c in checks if c.cells]
    lines.append(f"{path}: {len(checks)} rows, {len(checked)} checked "
                 f"({sum(len(c.cells) for c in checked)} cells), {len(over)} over budget, "
                 f"{sum(c.differs for c in checks)} differing from the measured figure")
    return lines, 1 if over else 0
