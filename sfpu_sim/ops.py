"""Ops: what a row of Tenstorrent's accuracy table runs, as kernel instantiations per Dst mode.

An op is what the device runs for one row of the table: the harness's init and LLK call (with
their template parameters), so for each Dst mode the kernel instantiation the device compiles,
the function it is scored against, and how the harness computes that golden. Op tables live in
``kernels/`` beside the kernels (``kernels/ops_2026_09.py``), each pinned to the tt-metal files
it was read from; :mod:`sfpu_sim.parity` predicts their cells.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping

from sfpu_sim import registry
from sfpu_sim.errors import SfpuSimError

DEST_MODES = ("No", "Yes")
# How the harness's golden is computed (tt-llk helpers/golden_generators.py): "rne_fp32", the
# exact value rounded to FP32 then to nearest even in the Dst and output formats; or a torch
# formula evaluated in FP32 arithmetic (sfpu_sim.parity.golden.FORMULAS).
GOLDENS = ("rne_fp32", "torch_gelu_fp32", "torch_silu_fp32", "float64_hardmish",
           "torch_gelu_tanh_fp32", "float64_gelu_derivative", "float64_tanh_derivative",
           "float64_tanh_derivative_lut6", "float64_tanhshrink", "float64_xielu",
           "float64_hardsigmoid", "torch_softsign_dst_steps")
_ROW = re.compile(r"^([A-Za-z0-9]+)(?:\(approx=(Yes|No)\))?")


class OpError(SfpuSimError):
    pass


@dataclass(frozen=True)
class Op:
    """One table row. ``kernels``: Dst mode ("No" 16-bit, "Yes" FP32) -> the registered kernel
    the device compiles for it; ``unmodelled``: Dst mode -> why that instantiation is not
    modelled; ``function``: the reference function; ``golden``: one of :data:`GOLDENS`;
    ``dispatch``: the harness's calls; ``provenance``: where they were read;
    ``fp16_subnormals_ranked``: the row's Float16 cells were scored with ``helpers/ulp.py``'s
    Float16 default, each FP16 subnormal a step of its own (the sweep collapses them for every
    other row)."""
    row: str
    function: str
    kernels: Mapping[str, str] = field(default_factory=dict)
    unmodelled: Mapping[str, str] = field(default_factory=dict)
    golden: str = "rne_fp32"
    dispatch: str = ""
    provenance: str = ""
    fp16_subnormals_ranked: bool = False

    @property
    def key(self) -> str:
        """The yaml's op key (``Gelu`` of ``Gelu(approx=No)``)."""
        return _ROW.match(self.row).group(1)

    @property
    def approx(self) -> str:
        """"Yes"/"No" as the row says; "No" where the key has no approx variants."""
        return _ROW.match(self.row).group(2) or "No"


_OPS: dict[str, Op] = {}
_UNMODELLED_ROWS: dict[str, str] = {}
_MISMATCHES: dict[tuple[str, str, str], str] = {}


def register_op(row: str, function: str, *, kernels: Mapping[str, str] | None = None,
                unmodelled: Mapping[str, str] | None = None, golden: str = "rne_fp32",
                dispatch: str = "", provenance: str = "",
                fp16_subnormals_ranked: bool = False) -> Op:
    """Add a table row's op; every Dst mode needs a kernel or a reason in ``unmodelled``."""
    kernels, unmodelled = dict(kernels or {}), dict(unmodelled or {})
    if row in _OPS or row in _UNMODELLED_ROWS:
        raise OpError(f"op row {row!r} is already registered")
    if not _ROW.match(row):
        raise OpError(f"op row {row!r}: expected the table's label, e.g. 'Gelu(approx=No)'")
    if golden not in GOLDENS:
        raise OpError(f"op {row!r}: golden {golden!r}: choose from {', '.join(GOLDENS)}")
    for mode in DEST_MODES:
        if (mode in kernels) == (mode in unmodelled):
            raise OpError(f"op {row!r}: dest {mode} needs exactly one of a kernel or an "
                          f"unmodelled reason")
    op = Op(row, function, kernels, unmodelled, golden, dispatch, provenance,
            fp16_subnormals_ranked)
    _OPS[row] = op
    return op


def not_modelled(row: str, reason: str) -> None:
    """A table row no op models, with the reason."""
    if row in _OPS or row in _UNMODELLED_ROWS:
        raise OpError(f"op row {row!r} is already registered")
    _UNMODELLED_ROWS[row] = reason


def explain_mismatch(row: str, input_format: str, dest: str, cause: str) -> None:
    """A modelled cell whose prediction differs from the device's figure, and why (traced to
    the instruction, the source revision or the scoring): ``budget`` prints it beside the cell,
    and the tests check that it still differs."""
    _MISMATCHES[(row, input_format, dest)] = cause


def mismatches() -> dict[tuple[str, str, str], str]:
    """(row, input format, dest) -> the cause of a known difference from the device."""
    _loaded()
    return dict(_MISMATCHES)


def _loaded() -> None:
    registry.names()            # imports kernels/, which registers the op tables


def ops() -> dict[str, Op]:
    _loaded()
    return dict(_OPS)


def unmodelled_rows() -> dict[str, str]:
    _loaded()
    return dict(_UNMODELLED_ROWS)


def get(row: str) -> Op:
    _loaded()
    if row in _OPS:
        return _OPS[row]
    if row in _UNMODELLED_ROWS:
        raise OpError(f"op {row!r} is not modelled: {_UNMODELLED_ROWS[row]}")
    raise OpError(f"unknown op {row!r} (known: {', '.join(sorted(_OPS))})")
