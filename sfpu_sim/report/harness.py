"""Per-input rows in the column schema of tt-llk's accuracy harness, so its readers
(``emit_budget.py``, the plot harness) take sfpu-sim's predictions unchanged.

Schema: tenstorrent/tt-metal ``tt_metal/tt-llk/tests/python_tests/accuracy/accuracy_harness.py``
``OUTPUT_COLUMNS`` and ``rows_dataframe`` (2026-09): rows sorted by input, ``sample_index``
counting them, arch ``wh``/``bh``, formats ``bf16``/``fp16``/``fp32``, ``approx_mode``,
``fast_mode``, ``dest_acc`` as ``"0"``/``"1"``, CSV floats ``%.9g``, a missing float (NaN) as
an empty field (pandas' default), booleans ``T``/``F``. ``signed_error = hw - golden`` and
``rel_error = |signed_error| / |golden|`` (NaN where golden is 0) follow
``helpers/accuracy_metrics.compute_pointwise_metrics``. Here ``hardware_result`` is the
emulated device output, ``golden_result`` the sweep's correctly rounded reference, and an
extra ``source`` column says so.

One ULP convention per run: the harness's single ``signed_ulp_error`` column becomes
``signed_ulp_error_<convention>``, the run's ``--ulp`` convention (the report's distances,
lane for lane, signed by ``hw - golden``; empty where unmeasurable), so the CSV and the report
count the same lanes at the maximum. Under another convention the harness's own definition
(signed error over the spacing above ``|golden|``) is kept beside it, named
``signed_ulp_error_fractional``.
"""
from __future__ import annotations

import itertools

import numpy as np

from sfpu_sim import ulp
from sfpu_sim.formats import bits_to_float64 as pattern_values


def column_names(convention: str) -> tuple[str, ...]:
    """The header for a run under ULP ``convention``."""
    ulp_columns = [ulp_column(convention)]
    if convention != "fractional":
        ulp_columns.append(ulp_column("fractional"))
    return ("op", "input_format", "output_format", "chip_arch", "distribution", "intervals",
            "seed", "sample_index", "test_value", "golden_result", "hardware_result",
            "approx_mode", "fast_mode", "dest_acc", "signed_error", "rel_error", *ulp_columns,
            "is_finite_hw", "is_finite_golden", "source")


def ulp_column(convention: str) -> str:
    return "signed_ulp_error_" + convention.replace("-", "_")
ARCH = {"wormhole": "wh", "blackhole": "bh"}
FLOAT_FORMAT = "%.9g"


def _quote(text: str) -> str:
    """A CSV field (RFC 4180 quoting where needed)."""
    if any(c in text for c in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _floats(values: np.ndarray) -> np.ndarray:
    text = np.char.mod(FLOAT_FORMAT, values)
    return np.where(np.isnan(values), "", text)


def _bools(values: np.ndarray) -> np.ndarray:
    return np.where(values, "T", "F")


def columns(m: dict, arrays: dict) -> dict[str, np.ndarray]:
    """The harness columns (float64 / bool / str arrays), rows sorted by input."""
    out_fmt = m["output_format"]
    order = np.argsort(arrays["x"], kind="stable")
    x = arrays["x"][order]
    golden = pattern_values(arrays["expected"][order], out_fmt)
    hw = pattern_values(arrays["actual"][order], out_fmt)
    finite_golden, finite_hw = np.isfinite(golden), np.isfinite(hw)
    with np.errstate(invalid="ignore", divide="ignore"):
        signed_error = hw - golden
        rel_error = np.where(golden != 0, np.abs(signed_error) / np.abs(golden), np.nan)
    steps = ulp.distance(np.where(finite_golden, golden, 0.0), arrays["actual"][order],
                         "fractional", out_fmt).distance
    both = finite_golden & finite_hw
    sign = np.sign(np.where(both, signed_error, 0.0))
    fractional = np.where(both, sign * np.where(both, steps, 0.0), np.nan)
    counted = arrays["counted"][order]
    chosen = np.where(counted, sign * arrays["distance"][order].astype(np.float64), np.nan)
    out = {"test_value": x, "golden_result": golden, "hardware_result": hw,
           "signed_error": signed_error, "rel_error": rel_error,
           ulp_column(m["ulp_convention"]): chosen, "is_finite_hw": finite_hw,
           "is_finite_golden": finite_golden}
    if m["ulp_convention"] != "fractional":
        out[ulp_column("fractional")] = fractional
    return out


def csv_text(m: dict, arrays: dict) -> str:
    """The CSV file: a header and one row per measured input."""
    data = columns(m, arrays)
    n = data["test_value"].size
    x = data["test_value"]
    constant = {
        "op": m["function"], "input_format": m["input_format"],
        "output_format": m["output_format"], "chip_arch": ARCH.get(m["arch"], m["arch"]),
        "distribution": "exhaustive",
        "intervals": str([(float(x.min()), float(x.max()))]) if n else "[]", "seed": "",
        "approx_mode": "1" if m["mode"] == "approximate" else "0", "fast_mode": "0",
        "dest_acc": "1" if m["dest"] == "fp32" else "0",
        "source": f"predicted by {m['tool']} (emulated {m['kernel']} {m['kernel_hash']}, "
                  f"reference {m['reference_rounding']})"}
    names = column_names(m["ulp_convention"])
    fields = []
    for name in names:                                     # columns, not lanes
        if name in constant:
            fields.append(itertools.repeat(_quote(constant[name]), n))
        elif name == "sample_index":
            fields.append(map(str, range(n)))
        elif data[name].dtype == bool:
            fields.append(_bools(data[name]).tolist())
        else:
            fields.append(_floats(data[name]).tolist())
    rows = map(",".join, zip(*fields))                     # joined in C: map/zip of builtins
    return ",".join(names) + "\n" + "\n".join(rows) + "\n"
