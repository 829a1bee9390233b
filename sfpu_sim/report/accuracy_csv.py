"""Per-op accuracy files in the 22-column schema of tt-llk's accuracy harness: one row per
measured input of a report's sweep, as CSV and, with the ``parquet`` extra (pyarrow), the same
table as Parquet; and reading such files back (this schema and the harness's later 19-column
one) for ``sfpu-sim baseline``.

Owns: the schema, the rows of one variant (op, formats, approx, fast, Dst mode) from a sweep's
per-lane arrays, merging variants into one per-op table, and the two file formats. Knows
nothing of kernels or references (it reads the report model and arrays) nor of the gate's
summary (:mod:`sfpu_sim.report.accuracy_gate`).

Sources, tenstorrent/tt-metal, paths under ``tt_metal/tt-llk/tests/python_tests/`` (code index
ids in brackets; facts taken, no code):

* ``accuracy/accuracy_harness.py`` @ 92797376 [55914038568]: ``CSV_COLUMNS``, the 22 names in
  order; ``rows_dataframe`` sorts a variant's rows by x (stable) and numbers them
  ``sample_index`` 0..n-1; ``variant_name`` is ``{op}__{In}_{Out}__approx{a}_fast{f}_dest{d}``;
  ``run_case`` writes the op as ``MathOperation`` name in lower case, formats as ``DataFormat``
  names (Float16_b, Float16, Float32), the chip as its name in lower case (wormhole), approx,
  fast and dest as "0"/"1", seed "" when none, intervals as ``str`` of a list of (lo, hi);
  ``merge_shards`` keeps one file per op, rows ordered by op, formats, approx, fast, dest, x,
  written by pandas' ``to_csv`` defaults (floats in shortest round-trip form, NaN as an empty
  field, booleans True/False).
* ``accuracy/README.md`` @ 92797376 [55603161470]: the 22 columns in four groups; ULP columns
  NaN (empty) where golden is 0 or a value is not finite.
* ``helpers/accuracy_metrics.py`` (the version with ``abs_ulp_error``) [55943114023]:
  signed_error = hw - golden, abs_error its magnitude, rel_error = |signed_error| / |golden|
  (NaN where golden is 0); the local ULP is the next value above |golden| in the output
  format minus |golden|; signed_ulp_error = signed_error / local ULP only where golden and hw
  are finite, golden is not 0 and the ULP is finite and positive (else NaN); abs_ulp_error its
  magnitude.
* ``accuracy/accuracy_harness.py`` @ f11d07c6 [54518367906]: the later 19-column
  ``OUTPUT_COLUMNS`` (``test_value``, ``golden_result``, ``hardware_result``; no variant_name,
  abs_error, abs_ulp_error), formats and chips abbreviated (``_FMT_ABBR``: bf16, fp16, fp32;
  ``_ARCH_ABBR``: wh, bh), Parquet written by pyarrow with zstd and no index, CSV with ``%.9g``
  and T/F; ``_distribution_label`` writes "custom" for stimuli not drawn by a named kind.

What sfpu-sim writes, column by column: op, the accuracy-table op (``sfpu_sim.ops``) whose
kernels include the instantiation that ran, else the kernel's function; x, the input values
the report measured (its population and selection); golden, sfpu-sim's correctly rounded
reference in the output format (the run's ``--reference-rounding``); hw, the emulated device
output; distribution "custom" (every measured pattern, not one of the harness's kinds);
intervals, the least and greatest x; seed ""; approx_mode and fast_mode from the
instantiation's ``APPROXIMATION_MODE`` and ``FAST_APPROX`` (else its mode: the harness's test
kernel passes its FAST_MODE as that template argument, e.g. ``_init_exponential_<APPROX_MODE,
FAST_MODE, ...>``, ``log1p_init<APPROX_MODE, FAST_MODE, ...>``; ids 14988536722, 53467126746,
repository not named by the index), dest_acc 1 for an FP32 Dst. Every metric is computed as
the harness computes it, in float64, from those values. The chip is written as the later
harness's ``_ARCH_ABBR`` keys spell it (wormhole, blackhole).
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np

from sfpu_sim import formats
from sfpu_sim.errors import SfpuSimError

COLUMNS = ("op", "input_format", "output_format", "chip_arch", "distribution", "intervals",
           "variant_name", "seed", "sample_index", "x", "golden", "hw", "approx_mode",
           "fast_mode", "dest_acc", "abs_error", "signed_error", "rel_error",
           "signed_ulp_error", "abs_ulp_error", "is_finite_hw", "is_finite_golden")
# The harness's later per-element schema (f11d07c6 OUTPUT_COLUMNS), read but never written.
COMPACT_COLUMNS = ("op", "input_format", "output_format", "chip_arch", "distribution",
                   "intervals", "seed", "sample_index", "test_value", "golden_result",
                   "hardware_result", "approx_mode", "fast_mode", "dest_acc", "signed_error",
                   "rel_error", "signed_ulp_error", "is_finite_hw", "is_finite_golden")
# One variant: the harness's merge order less x (and the gate's identity).
VARIANT_KEY = ("op", "input_format", "output_format", "approx_mode", "fast_mode", "dest_acc")
INTEGER_COLUMNS = frozenset({"sample_index"})
BOOLEAN_COLUMNS = frozenset({"is_finite_hw", "is_finite_golden"})
FLOAT_COLUMNS = frozenset({"x", "golden", "hw", "abs_error", "signed_error", "rel_error",
                           "signed_ulp_error", "abs_ulp_error", "test_value", "golden_result",
                           "hardware_result"})
DATA_FORMATS = {"bf16": "Float16_b", "fp16": "Float16", "fp32": "Float32"}
BOOLEAN_TEXT = {"True": True, "False": False, "T": True, "F": False}
PARQUET_EXTRA = "pip install 'sfpu-sim[parquet]'"


class AccuracyFileError(SfpuSimError):
    """An accuracy file that cannot be read, or is not in a schema of the harness."""


def column_kind(name: str) -> str:
    if name in FLOAT_COLUMNS:
        return "float"
    if name in INTEGER_COLUMNS:
        return "int"
    return "bool" if name in BOOLEAN_COLUMNS else "text"


# --------------------------------------------------------------------------------------------
# One variant's rows from a sweep
# --------------------------------------------------------------------------------------------

def variant(op: str, input_format: str, output_format: str, params: dict, mode: str,
            dest: str) -> dict[str, str]:
    """The identity of a run as the harness writes it (``params``: the instantiation's
    template parameters; ``mode``: its accurate/approximate mode where it has none)."""
    approx = params.get("APPROXIMATION_MODE", mode == "approximate")
    return {"op": op, "input_format": DATA_FORMATS[input_format],
            "output_format": DATA_FORMATS[output_format],
            "approx_mode": str(int(bool(approx))),
            "fast_mode": str(int(bool(params.get("FAST_APPROX", False)))),
            "dest_acc": "1" if dest == "fp32" else "0"}


def variant_name(key: dict[str, str]) -> str:
    return (f"{key['op']}__{key['input_format']}_{key['output_format']}__approx"
            f"{key['approx_mode']}_fast{key['fast_mode']}_dest{key['dest_acc']}")


def variant_label(key) -> str:
    """A variant in words: ``tanh Float16_b->Float16_b approx=0 fast=0 dest=0``."""
    op, fmt_in, fmt_out, approx, fast, dest = (key[name] for name in VARIANT_KEY) \
        if isinstance(key, dict) else key
    return f"{op} {fmt_in}->{fmt_out} approx={approx} fast={fast} dest={dest}"


def local_ulp(golden_bits: np.ndarray, output_format: str) -> np.ndarray:
    """The next value above |golden| in the output format minus |golden| (float64; inf at the
    largest finite value, whose next pattern is infinity; NaN for a non-finite golden)."""
    fmt = formats.FORMATS[output_format]
    magnitude = fmt.bits(golden_bits) & fmt.dtype(fmt.sign_mask - 1)
    infinity = fmt.exp_max << fmt.man_bits
    finite = magnitude < infinity
    above = np.where(finite, magnitude + fmt.dtype(1), magnitude).astype(fmt.dtype)
    with np.errstate(invalid="ignore"):
        step = formats.bits_to_float64(above, fmt) - formats.bits_to_float64(magnitude, fmt)
    return np.where(finite, step, np.nan)


def pointwise_metrics(golden: np.ndarray, hw: np.ndarray, ulp: np.ndarray) -> dict:
    """The harness's per-element columns from golden and hardware values and the golden's
    local ULP (accuracy_metrics.compute_pointwise_metrics, the abs_ulp_error version)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        signed_error = hw - golden
        finite_golden, finite_hw = np.isfinite(golden), np.isfinite(hw)
        nonzero = golden != 0.0
        rel_error = np.where(nonzero, np.abs(signed_error) / np.abs(golden), np.nan)
        defined = finite_golden & finite_hw & nonzero & np.isfinite(ulp) & (ulp > 0)
        signed_ulp = np.where(defined, signed_error / np.where(defined, ulp, 1.0), np.nan)
    return {"abs_error": np.abs(signed_error), "signed_error": signed_error,
            "rel_error": rel_error, "signed_ulp_error": signed_ulp,
            "abs_ulp_error": np.abs(signed_ulp), "is_finite_hw": finite_hw,
            "is_finite_golden": finite_golden}


def variant_table(m: dict, arrays: dict, key: dict[str, str]) -> dict[str, np.ndarray]:
    """One variant's rows (the report's measured inputs, sorted by x) in :data:`COLUMNS`
    order; ``m``: the report model, ``arrays``: the sweep's per-lane arrays."""
    out_fmt = m["output_format"]
    order = np.argsort(arrays["x"], kind="stable")
    x = np.asarray(arrays["x"], dtype=np.float64)[order]
    golden_bits = arrays["expected"][order]
    golden = formats.bits_to_float64(golden_bits, out_fmt)
    hw = formats.bits_to_float64(arrays["actual"][order], out_fmt)
    n = x.size
    constant = {**key, "chip_arch": m["arch"], "distribution": "custom",
                "intervals": str([(float(x.min()), float(x.max()))]) if n else "[]",
                "variant_name": variant_name(key), "seed": ""}
    data = {"sample_index": np.arange(n, dtype=np.int64), "x": x, "golden": golden, "hw": hw,
            **pointwise_metrics(golden, hw, local_ulp(golden_bits, out_fmt))}
    return {name: np.full(n, constant[name], dtype=object).astype(str)
            if name in constant else data[name] for name in COLUMNS}


def row_count(table: dict[str, np.ndarray]) -> int:
    return next(iter(table.values())).size


def merge(existing: dict[str, np.ndarray] | None,
          new: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``new``'s variants replace the same variants' rows of ``existing`` (a per-op table);
    rows ordered as the harness's merge orders them: the variant key, then x (stable)."""
    if existing is None or row_count(existing) == 0:
        table = new
    else:
        joined = joined_variant_key(existing)
        kept = ~np.isin(joined, np.unique(joined_variant_key(new)))
        table = {name: np.concatenate([existing[name][kept], new[name]]) for name in COLUMNS}
    order = np.argsort(table["x"], kind="stable")
    for name in reversed(VARIANT_KEY):
        order = order[np.argsort(table[name][order], kind="stable")]
    return {name: values[order] for name, values in table.items()}


def joined_variant_key(table: dict[str, np.ndarray]) -> np.ndarray:
    """Each row's variant as one string (fields joined by a unit separator, which sorts
    before any printable character: the strings sort as the key tuples do)."""
    joined = table[VARIANT_KEY[0]].astype(str)
    for name in VARIANT_KEY[1:]:
        joined = np.char.add(np.char.add(joined, "\x1f"), table[name].astype(str))
    return joined


def variants_of(table: dict[str, np.ndarray]) -> int:
    return int(np.unique(joined_variant_key(table)).size) if row_count(table) else 0


# --------------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------------

def _field_text(name: str, values: np.ndarray) -> list[str]:
    kind = column_kind(name)
    if kind == "float":
        # shortest round-trip (Python's repr, as pandas writes it; numpy's astype(str) gives
        # the same text 1.3x slower); NaN as an empty field
        return ["" if v != v else repr(v) for v in values.astype(np.float64).tolist()]
    if kind == "bool":
        return np.where(values, "True", "False").tolist()
    if kind == "int":
        return values.astype(str).tolist()
    distinct, index = np.unique(values.astype(str), return_inverse=True)
    return np.array([_quoted(text) for text in distinct.tolist()], dtype=object)[
        index.reshape(-1)].tolist()


def _quoted(text: str) -> str:
    """One field as the csv module's minimal quoting writes it (numbers never need quotes)."""
    if not text:
        return ""                       # (a row of one empty field is written "", not this)
    stream = io.StringIO()
    csv.writer(stream, lineterminator="\n").writerow([text])
    return stream.getvalue()[:-1]


def csv_text(table: dict[str, np.ndarray]) -> str:
    """The table as pandas' ``to_csv(index=False)`` writes it (minimal quoting, ``\\n``). The
    fields are quoted column by column and the lines joined, not passed row by row through a
    csv writer (twice as fast on a 65,536-row table)."""
    stream = io.StringIO()
    csv.writer(stream, lineterminator="\n").writerow(table)
    columns = [_field_text(name, values) for name, values in table.items()]
    if not columns or not columns[0]:
        return stream.getvalue()
    return stream.getvalue() + "\n".join(map(",".join, zip(*columns))) + "\n"


def _parse(values: tuple[str, ...], kind: str, where: str) -> np.ndarray:
    """CSV fields as an array of ``kind``; a bad field is one line naming ``where``. Numbers
    go through Python's float and int (C parsers, as pandas' writer's repr), not numpy's
    string casts, which took 4-5x as long."""
    try:
        if kind == "float":
            return np.fromiter(map(_float_field, values), np.float64, len(values))
        if kind == "int":
            return np.fromiter(map(int, values), np.int64, len(values))
    except (ValueError, OverflowError):
        bad = next((v for v in values if not _parses(v, kind)), None)
        if bad is None:                                     # an integer beyond int64
            bad = next(v for v in values if not -2 ** 63 <= int(v) < 2 ** 63)
        raise AccuracyFileError(f"{where}: {bad!r} is not "
                                f"{'a number' if kind == 'float' else 'an integer'}") from None
    values = np.array(values, dtype=str)
    if kind == "bool":
        known = np.isin(values, list(BOOLEAN_TEXT))
        if not known.all():
            bad = values[np.flatnonzero(~known)[0]]
            raise AccuracyFileError(f"{where}: {bad!r} is not a boolean (True/False or T/F)")
        return np.isin(values, ["True", "T"])
    return values


def _float_field(text: str) -> float:
    return float(text) if text else math.nan                # pandas writes NaN as nothing


def _parses(text: str, kind: str) -> bool:
    try:
        float(text or "nan") if kind == "float" else int(text)
    except ValueError:
        return False
    return True


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AccuracyFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise AccuracyFileError(f"{path}: is a directory, not a file") from None
    except UnicodeDecodeError:
        raise AccuracyFileError(f"{path}: not a text (UTF-8) file") from None
    except OSError as error:
        raise AccuracyFileError(f"cannot read {path}: {error.strerror or error}") from None


def read_csv(path, kinds=column_kind) -> dict[str, np.ndarray]:
    """Any CSV with a header as columns, parsed by name (``kinds``: name -> float, int, bool
    or text); every malformed line is one error naming ``path:line``."""
    path = Path(path)
    text = _read_text(path)
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as error:
        raise AccuracyFileError(f"{path}: not a CSV file: {error}") from None
    if not rows or not rows[0]:
        raise AccuracyFileError(f"{path}: empty: expected a header line")
    header, body = rows[0], rows[1:]
    if len(set(header)) != len(header):
        twice = sorted({name for name in header if header.count(name) > 1})
        raise AccuracyFileError(f"{path}:1: column {twice[0]!r} appears twice")
    widths = np.fromiter(map(len, body), dtype=np.int64, count=len(body))
    wrong = (widths != len(header)) & (widths != 0)          # blank lines are skipped
    if wrong.any():
        line = int(np.flatnonzero(wrong)[0])
        raise AccuracyFileError(f"{path}:{line + 2}: {widths[line]} fields, the header has "
                                f"{len(header)}")
    if (widths == 0).any():
        body = list(filter(None, body))
    columns = zip(*body) if body else (() for _ in header)
    return {name: _parse(values, kinds(name), f"{path}: column {name}")
            for name, values in zip(header, columns)}


# --------------------------------------------------------------------------------------------
# Parquet (the parquet extra)
# --------------------------------------------------------------------------------------------

def have_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401  (the parquet extra)
    except ImportError:
        return False
    return True


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.compute  # pyarrow.compute.fill_null below
        import pyarrow.parquet
    except ImportError:
        raise AccuracyFileError(f"Parquet needs pyarrow: {PARQUET_EXTRA}") from None
    return pyarrow, pyarrow.parquet


def parquet_bytes(table: dict[str, np.ndarray], metadata: dict[str, str]) -> bytes:
    """The table as a Parquet file (zstd, as the harness writes it), ``metadata`` as file
    key-value pairs (what golden and hw are)."""
    pa, pq = _pyarrow()
    types = {"float": pa.float64(), "int": pa.int64(), "bool": pa.bool_(), "text": pa.string()}
    arrow = pa.table({name: pa.array(values.tolist() if column_kind(name) == "text"
                                     else values, type=types[column_kind(name)])
                      for name, values in table.items()})
    arrow = arrow.replace_schema_metadata(metadata)
    sink = pa.BufferOutputStream()
    pq.write_table(arrow, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def read_parquet(path, kinds=column_kind) -> dict[str, np.ndarray]:
    """A Parquet file as columns, each as its ``kinds(name)`` (null text as "", null numbers
    as NaN); one line for a file pyarrow cannot read or a column of the wrong type."""
    pa, pq = _pyarrow()
    path = Path(path)
    if path.is_dir():
        raise AccuracyFileError(f"{path}: is a directory, not a file")
    try:
        arrow = pq.read_table(path)
    except FileNotFoundError:
        raise AccuracyFileError(f"{path}: no such file") from None
    except (OSError, pa.ArrowException) as error:
        raise AccuracyFileError(f"{path}: not a readable Parquet file: "
                                f"{str(error).splitlines()[0]}") from None
    columns = {}
    for name in arrow.column_names:
        column, kind = arrow.column(name), kinds(name)
        try:
            if kind == "text":
                text = pa.compute.fill_null(column.cast(pa.string()), "")
                columns[name] = text.to_numpy(zero_copy_only=False).astype(str)
            elif kind == "float":
                columns[name] = column.cast(pa.float64()).to_numpy(zero_copy_only=False)
            elif kind == "int" or kind == "bool":
                if column.null_count:
                    raise AccuracyFileError(f"{path}: column {name}: {column.null_count} "
                                            f"empty value(s)")
                target = pa.int64() if kind == "int" else pa.bool_()
                columns[name] = column.cast(target).to_numpy(zero_copy_only=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise AccuracyFileError(f"{path}: column {name}: type {column.type} where "
                                    f"{kind} values belong") from None
    return columns


def read_table(path, kinds=column_kind) -> dict[str, np.ndarray]:
    """A ``.parquet`` or a CSV file as columns."""
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        return read_parquet(path, kinds)
    return read_csv(path, kinds)


def missing_columns(table: dict[str, np.ndarray], schema) -> list[str]:
    return [name for name in schema if name not in table]


def header_of(path) -> tuple[str, ...]:
    """A CSV's header line or a Parquet file's column names, without reading the rows."""
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        pa, pq = _pyarrow()
        try:
            return tuple(pq.read_schema(path).names)
        except (OSError, pa.ArrowException) as error:
            raise AccuracyFileError(f"{path}: not a readable Parquet file: "
                                    f"{str(error).splitlines()[0]}") from None
    try:
        with path.open(encoding="utf-8", newline="") as stream:
            return tuple(next(csv.reader(stream), []))
    except (UnicodeDecodeError, csv.Error):
        raise AccuracyFileError(f"{path}: not a CSV (UTF-8 text) file") from None
    except OSError as error:
        raise AccuracyFileError(f"cannot read {path}: {error.strerror or error}") from None


def check_schema(path, columns) -> None:
    """Refuse a per-op file (the one a report's rows merge into) not in the 22-column schema."""
    if tuple(columns) != COLUMNS:
        missing = [name for name in COLUMNS if name not in columns]
        what = (f"missing {', '.join(missing)}" if missing
                else "the columns differ in order or number")
        raise AccuracyFileError(f"{path}: exists and is not in the harness's 22-column "
                                f"schema ({what}); choose another directory")


def read_accuracy_table(path) -> dict[str, np.ndarray]:
    """A per-op file in exactly the 22-column schema."""
    table = read_table(path)
    check_schema(path, table)
    return table
