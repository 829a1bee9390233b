"""tt-llk's SFPU accuracy gate, by its rules: one summary row per variant of per-op accuracy
files, the baseline CSV it commits, and the comparison that passes (0), finds a regression (1)
or a schema mismatch (2).

Owns: reading a gate source (a baseline CSV, a per-op CSV or Parquet file, a directory of
them), summarising, comparing, the baseline CSV text and the comparison's report. Knows
nothing of sweeps: it reads files (:mod:`sfpu_sim.report.accuracy_csv` parses them).

Sources, tenstorrent/tt-metal @ dac98606, ``tt_metal/tt-llk/tests/python_tests/accuracy/``
(code index ids in brackets; facts taken, no code): ``baseline.py`` [68669213578],
``check_accuracy_baseline.py`` [68534907708], ``baselines/wh.csv`` [68385875501].

The rules, as ``baseline.py`` states them:

* A variant is (op, input_format, output_format, approx_mode, fast_mode, dest_acc), as text.
* Its summary: ``n_rows``; ``n_finite_mismatch``, rows whose is_finite_golden and
  is_finite_hw differ; ``n_exact``, rows where hardware equals golden or both are NaN;
  ``max_abs_ulp`` and ``mean_abs_ulp``, the max and mean of |signed_ulp_error| over its finite
  values, for outputs bf16 and fp16 only (else NaN); ``max_abs_error``, the max of
  |signed_error| and ``max_rel_error``, of rel_error, over rows with both flags finite, finite
  values only. NaN where nothing is left. Rows keep their file order (the mean's summation).
* The baseline CSV: those 13 columns, variants sorted, floats in shortest round-trip form, NaN
  as an empty field; a baseline missing a column is refused.
* The comparison is exact, without tolerance. A variant on one side only, or whose n_rows
  differ (its metrics then not compared), is a schema error. Of the gated metrics
  (n_finite_mismatch, n_exact, max_abs_ulp, mean_abs_ulp, max_abs_error, max_rel_error): NaN on
  both sides is equal, on one side a schema error; a difference is a regression when worse
  (higher; for n_exact, lower), else an improvement, which passes.
* Exit code: 2 with any schema error, else 1 with any regression, else 0.
* A directory stands for every ``*.parquet`` in it, in name order; none is an error (2).

Beyond the gate (its inputs are Parquet of the 19-column schema only): a source may be a CSV
of either per-op schema, and a directory without Parquet stands for its ``*.csv``. A file of
the 22-column schema is read as the 19-column file the later harness writes for the same run
(x, golden, hw as test_value, golden_result, hardware_result; formats abbreviated as its
``_FMT_ABBR`` does, Float16_b to bf16), so the bf16/fp16 ULP rule applies to it. A variant
twice in a baseline is refused (the gate's comparison cannot take one).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sfpu_sim.report import accuracy_csv
from sfpu_sim.report.accuracy_csv import AccuracyFileError

IDENTITY = ("op", "input_format", "output_format", "approx_mode", "fast_mode", "dest_acc")
INT_METRICS = ("n_rows", "n_finite_mismatch", "n_exact")
FLOAT_METRICS = ("max_abs_ulp", "mean_abs_ulp", "max_abs_error", "max_rel_error")
BASELINE_COLUMNS = IDENTITY + INT_METRICS + FLOAT_METRICS
# Gated metrics in the gate's order, True where higher is worse (n_rows is the schema's).
WORSE_IF_HIGHER = {"n_finite_mismatch": True, "n_exact": False, "max_abs_ulp": True,
                   "mean_abs_ulp": True, "max_abs_error": True, "max_rel_error": True}
ULP_OUTPUT_FORMATS = ("bf16", "fp16")
# The later harness's abbreviations (accuracy_harness.py f11d07c6 _FMT_ABBR); others kept.
FORMAT_ABBREVIATIONS = {"Float32": "fp32", "Float16": "fp16", "Float16_b": "bf16",
                        "Bfp8_b": "bfp8", "Bfp4_b": "bfp4", "Bfp2_b": "bfp2", "Tf32": "tf32"}
# The columns summarize() reads, under their 19-column names.
SUMMARIZED = IDENTITY + ("golden_result", "hardware_result", "is_finite_golden",
                         "is_finite_hw", "signed_error", "rel_error", "signed_ulp_error")
WIDE_NAMES = {"test_value": "x", "golden_result": "golden", "hardware_result": "hw"}


def _kind(name: str) -> str:
    if name in INT_METRICS:
        return "int"
    if name in FLOAT_METRICS:
        return "float"
    return accuracy_csv.column_kind(name)


# --------------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------------

@dataclass
class Source:
    """A gate source read: its variants' summary and what it was."""
    path: str
    what: str                     # "baseline", "22-column" or "19-column" per-op files
    files: int
    summary: dict[str, np.ndarray]


def _schema_of(table: dict, path: Path) -> str:
    """Which schema ``table`` is in (extra columns allowed, as the gate's loader allows)."""
    schemas = {"baseline": BASELINE_COLUMNS, "22-column": accuracy_csv.COLUMNS,
               "19-column": accuracy_csv.COMPACT_COLUMNS}
    missing = {name: accuracy_csv.missing_columns(table, columns)
               for name, columns in schemas.items()}
    for name, gone in missing.items():
        if not gone:
            return name
    nearest = min(missing, key=lambda name: len(missing[name]))
    label = {"baseline": "the gate's 13-column baseline",
             "22-column": "the harness's 22-column per-op schema",
             "19-column": "the harness's 19-column per-op schema"}[nearest]
    raise AccuracyFileError(f"{path}: schema mismatch: missing column(s) "
                            f"{', '.join(missing[nearest])} of {label}")


def _per_op_view(table: dict, schema: str) -> dict[str, np.ndarray]:
    """The columns summarize() reads, named and valued as the 19-column schema has them."""
    if schema == "19-column":
        return {name: table[name] for name in SUMMARIZED}
    view = {name: table[WIDE_NAMES.get(name, name)] for name in SUMMARIZED}
    for name in ("input_format", "output_format"):
        names, inverse = np.unique(view[name], return_inverse=True)
        view[name] = np.array([FORMAT_ABBREVIATIONS.get(text, text) for text in names.tolist()],
                              dtype=str)[inverse.reshape(-1)]
    return view


def _files_of(directory: Path) -> list[Path]:
    try:
        parquet = sorted(p for p in directory.glob("*.parquet") if p.is_file())
        return parquet or sorted(p for p in directory.glob("*.csv") if p.is_file())
    except OSError as error:
        raise AccuracyFileError(f"cannot read {directory}: {error.strerror or error}") from None


def load(path) -> Source:
    """A baseline CSV, a per-op CSV/Parquet file or a directory of them, summarised."""
    if not str(path):
        raise AccuracyFileError("an empty name: give a file or a directory")
    path = Path(path)
    try:
        is_directory = path.is_dir()
        if not is_directory and not path.exists():
            raise AccuracyFileError(f"{path}: no such file or directory")
    except OSError as error:                    # e.g. a name longer than the system takes
        raise AccuracyFileError(f"cannot read {path}: {error.strerror or error}") from None
    files = _files_of(path) if is_directory else [path]
    if not files:
        raise AccuracyFileError(f"{path}: no per-op .parquet or .csv files in this directory")
    views, schemas = [], set()
    for file in files:
        table = accuracy_csv.read_table(file, _kind)
        schema = _schema_of(table, file)
        if schema == "baseline":
            if len(files) > 1 or is_directory:
                raise AccuracyFileError(f"{file}: a baseline summary among per-op files: "
                                        f"give it on its own")
            return Source(str(path), "baseline", 1, _baseline_summary(table, file))
        views.append(_per_op_view(table, schema))
        schemas.add(schema)
    joined = {name: np.concatenate([view[name] for view in views]) for name in SUMMARIZED}
    return Source(str(path), " and ".join(sorted(schemas)), len(files), summarize(joined))


def _baseline_summary(table: dict, path: Path) -> dict[str, np.ndarray]:
    summary = {name: table[name] for name in BASELINE_COLUMNS}
    keys = accuracy_csv.joined_variant_key(summary)
    unique, counts = np.unique(keys, return_counts=True)
    if (counts > 1).any():
        twice = unique[np.flatnonzero(counts > 1)[0]].split("\x1f")
        raise AccuracyFileError(f"{path}: variant {accuracy_csv.variant_label(twice)} "
                                f"appears more than once")
    return _sorted(summary)


# --------------------------------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------------------------------

def _finite_max(values: np.ndarray) -> float:
    values = values[np.isfinite(values)]
    return float(values.max()) if values.size else math.nan


def _finite_mean(values: np.ndarray) -> float:
    values = values[np.isfinite(values)]
    return float(values.mean()) if values.size else math.nan


def _variant_summary(table: dict, rows: np.ndarray) -> dict:
    golden, hw = table["golden_result"][rows], table["hardware_result"][rows]
    finite_golden, finite_hw = table["is_finite_golden"][rows], table["is_finite_hw"][rows]
    finite = finite_golden & finite_hw
    exact = (hw == golden) | (np.isnan(hw) & np.isnan(golden))
    abs_error = np.abs(np.where(finite, table["signed_error"][rows], np.nan))
    rel_error = np.where(finite, table["rel_error"][rows], np.nan)
    if table["output_format"][rows[0]] in ULP_OUTPUT_FORMATS:
        ulp = np.abs(table["signed_ulp_error"][rows])
        max_ulp, mean_ulp = _finite_max(ulp), _finite_mean(ulp)
    else:
        max_ulp = mean_ulp = math.nan
    return {"n_rows": rows.size, "n_finite_mismatch": int((finite_golden != finite_hw).sum()),
            "n_exact": int(exact.sum()), "max_abs_ulp": max_ulp, "mean_abs_ulp": mean_ulp,
            "max_abs_error": _finite_max(abs_error), "max_rel_error": _finite_max(rel_error)}


def summarize(table: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One row per variant of per-op rows (19-column names), sorted by variant."""
    keys = accuracy_csv.joined_variant_key(table) if table["op"].size else np.array([], str)
    unique, inverse = np.unique(keys, return_inverse=True)
    order = np.argsort(inverse, kind="stable")        # each variant's rows in file order
    bounds = np.searchsorted(inverse[order], np.arange(unique.size + 1))
    firsts = order[bounds[:-1]] if unique.size else np.array([], dtype=np.int64)
    rows = [_variant_summary(table, order[a:b]) for a, b in itertools.pairwise(bounds)]
    summary = {name: table[name][firsts] for name in IDENTITY}
    for name in INT_METRICS + FLOAT_METRICS:
        dtype = np.int64 if name in INT_METRICS else np.float64
        summary[name] = np.array([row[name] for row in rows], dtype=dtype)
    return _sorted(summary)


def _sorted(summary: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    order = np.arange(summary["op"].size)
    for name in reversed(IDENTITY):
        order = order[np.argsort(summary[name][order], kind="stable")]
    return {name: summary[name][order] for name in BASELINE_COLUMNS}


def baseline_csv_text(summary: dict[str, np.ndarray]) -> str:
    """The baseline CSV (the gate's ``save_baseline``: no index, NaN as an empty field)."""
    return accuracy_csv.csv_text({name: summary[name] for name in BASELINE_COLUMNS})


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Finding:
    variant: str
    metric: str
    baseline: float
    candidate: float


@dataclass
class Comparison:
    regressions: list[Finding] = field(default_factory=list)
    improvements: list[Finding] = field(default_factory=list)
    schema_errors: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 pass (improvements too), 1 regression, 2 schema mismatch."""
        return 2 if self.schema_errors else 1 if self.regressions else 0


def _rows_by_variant(summary: dict[str, np.ndarray]) -> dict[tuple, dict]:
    names = list(summary)
    columns = [summary[name].tolist() for name in names]
    rows = [dict(zip(names, values)) for values in zip(*columns)]    # variants, not lanes
    return {tuple(row[name] for name in IDENTITY): row for row in rows}


def compare(baseline: dict[str, np.ndarray], candidate: dict[str, np.ndarray]) -> Comparison:
    """The candidate's summary against the baseline's, exactly (the gate's ``compare``)."""
    result = Comparison()
    base, current = _rows_by_variant(baseline), _rows_by_variant(candidate)
    for key in sorted(base.keys() - current.keys()):
        result.schema_errors.append(f"in the baseline, not in the candidate: "
                                    f"{accuracy_csv.variant_label(key)}")
    for key in sorted(current.keys() - base.keys()):
        result.schema_errors.append(f"in the candidate, not in the baseline: "
                                    f"{accuracy_csv.variant_label(key)}")
    for key in sorted(base.keys() & current.keys()):
        before, after, label = base[key], current[key], accuracy_csv.variant_label(key)
        if int(before["n_rows"]) != int(after["n_rows"]):
            result.schema_errors.append(f"{label}: n_rows {before['n_rows']} -> "
                                        f"{after['n_rows']} (the sweep changed: regenerate "
                                        f"the baseline)")
            continue
        for metric, higher_is_worse in WORSE_IF_HIGHER.items():
            b, c = float(before[metric]), float(after[metric])
            if math.isnan(b) and math.isnan(c):
                continue
            if math.isnan(b) or math.isnan(c):
                result.schema_errors.append(f"{label}: {metric} is defined on one side only "
                                            f"(baseline {b!r}, candidate {c!r})")
                continue
            if b == c:
                continue
            worse = c > b if higher_is_worse else c < b
            (result.regressions if worse else result.improvements).append(
                Finding(label, metric, b, c))
    return result


def _number(metric: str, value: float) -> str:
    return str(int(value)) if metric in INT_METRICS else repr(value)


def _findings(findings: list[Finding]) -> list[str]:
    lines = ["| variant | metric | baseline | candidate |", "|---|---|---|---|"]
    lines += [f"| {f.variant} | {f.metric} | {_number(f.metric, f.baseline)} | "
              f"{_number(f.metric, f.candidate)} |" for f in findings]
    return lines


def render(result: Comparison, baseline: Source, candidate: Source) -> str:
    """The comparison as Markdown: the verdict line, then what makes it."""
    def described(source: Source) -> str:
        files = f", {source.files} files" if source.files > 1 else ""
        count = source.summary["op"].size
        return f"{source.path} ({source.what}{files}; {count} variant{'s' * (count != 1)})"

    out = ["# SFPU accuracy gate", "", f"- baseline: {described(baseline)}",
           f"- candidate: {described(candidate)}", ""]
    regressions, improvements = len(result.regressions), len(result.improvements)
    if result.schema_errors:
        out.append(f"**FAIL (schema, exit 2):** {len(result.schema_errors)} mismatch(es) "
                   f"between the baseline and the candidate.")
    elif regressions:
        out.append(f"**FAIL (exit 1):** {regressions} regression(s), {improvements} "
                   f"improvement(s).")
    else:
        out.append(f"**PASS (exit 0):** no regression, {improvements} improvement(s).")
    if result.schema_errors:
        out += ["", "## Schema mismatches", ""] + [f"- {e}" for e in result.schema_errors]
    if result.regressions:
        out += ["", "## Regressions", ""] + _findings(result.regressions)
    if result.improvements:
        out += ["", "## Improvements", "", ("They pass; `sfpu-sim baseline save` writes a new "
                                            "baseline if they should become the reference."),
                ""]
        out += _findings(result.improvements)
    return "\n".join(out) + "\n"
