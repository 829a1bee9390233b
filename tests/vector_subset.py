"""Write the golden-vector subset the default suite reads (tests/data/vectors/) from the full
sets (``python -m tests.vector_subset DIR``, DIR holding ttsim_sfpu_wh.npz, ttsim_sfpu_bh.npz,
fma_golden.npz and ttsim_kernels.npz; README there).

The subset keeps every (instruction, mode) combination of the ttsim instruction vectors with
up to :data:`CASES_PER_COMBO` cases each, spread evenly over the combination's cases; one FMA
triple in :data:`FMA_STRIDE`, evenly strided over the file (its input classes are contiguous
runs, each far longer than the stride); and every row of the whole-kernel vectors. Arrays keep
their names, dtypes and meaning, so the tests read either set the same way. Deterministic: the
same full sets give the same bytes.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent / "data" / "vectors"
CASES_PER_COMBO = 8
FMA_STRIDE = 8
INSTRUCTION_FILES = ("ttsim_sfpu_wh.npz", "ttsim_sfpu_bh.npz")


def instruction_cases(data: dict) -> np.ndarray:
    """Indices of the cases kept: per combination, up to CASES_PER_COMBO evenly spread."""
    kept = []
    for combo in range(len(data["combo_names"])):
        cases = np.flatnonzero(data["combo"] == combo)
        if cases.size:
            picks = np.linspace(0, cases.size - 1, min(cases.size, CASES_PER_COMBO))
            kept.append(cases[np.unique(picks.round().astype(np.int64))])
    return np.concatenate(kept)


def _take(data: dict, rows: np.ndarray, count: int) -> dict:
    """Every per-case array (first axis ``count`` long) at ``rows``; the others unchanged."""
    return {name: (array[rows] if array.ndim and array.shape[0] == count else array)
            for name, array in data.items()}


def write(full: Path, out: Path = HERE) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in INSTRUCTION_FILES:
        with np.load(full / name) as file:
            data = {key: file[key] for key in file.files}
        rows = instruction_cases(data)
        np.savez_compressed(out / name, **_take(data, rows, data["combo"].shape[0]))
    with np.load(full / "fma_golden.npz") as file:
        data = {key: file[key] for key in file.files}
    count = data["x"].shape[0]
    np.savez_compressed(out / "fma_golden.npz",
                        **_take(data, np.arange(0, count, FMA_STRIDE), count))
    with np.load(full / "ttsim_kernels.npz") as file:
        np.savez_compressed(out / "ttsim_kernels.npz", **{key: file[key] for key in file.files})


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m tests.vector_subset DIR_OF_THE_FULL_SETS")
    write(Path(sys.argv[1]))
    print(f"wrote {HERE}")
