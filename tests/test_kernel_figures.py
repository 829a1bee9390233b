"""Every registered kernel's exact figures on every chip it runs on: all 65,536 BF16 inputs
through its registered Dst, against the correctly rounded reference (rne, daz-index).

These are regression pins, not independent truths: they were recorded from the emulator (``python
-m tests.test_kernel_figures --write`` after a reviewed change) and each change to them must be
explained in its commit. What makes the figures trustworthy lives elsewhere: every kernel program
ttsim accepts matches ttsim bit for bit (tests/test_compiled.py replays ttsim_kernels.npz), every
instruction matches ttsim's single-instruction vectors, and the references are certified by arb.
The per-kernel test files check the published figures (PRs, tt-llk's budgets) independently.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from sfpu_sim import registry
from sfpu_sim.sweeps import sweep

PINS = Path(__file__).resolve().parent / "data" / "kernel_figures.json"


def figures(name: str, chip: str) -> dict:
    spec = registry.get(name)
    result = sweep(spec, chip)
    distance = result.arrays["distance"][result.arrays["counted"]].astype(np.int64)
    top = int(distance.max()) if distance.size else None
    return {"dest": spec.dest, "measured": int(distance.size), "max_ulp": top,
            "at_max": int((distance == top).sum()) if distance.size else 0,
            "exact": int((distance == 0).sum()), "ulp_sum": int(distance.sum())}


def cells() -> list[str]:
    return [f"{s.name}@{chip}" for s in registry.specs() for chip in s.chips]


PINNED = json.loads(PINS.read_text()) if PINS.exists() else {}


def test_every_registered_kernel_is_pinned():
    missing = sorted(set(cells()) - set(PINNED))
    assert not missing, (f"no pinned figures for {missing[:5]}: record them with python -m "
                         f"tests.test_kernel_figures --write and say why in the commit")


@pytest.mark.parametrize("cell", sorted(PINNED))
def test_kernel_figures_are_exactly_as_pinned(cell):
    name, chip = cell.split("@")
    assert figures(name, chip) == PINNED[cell]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m tests.test_kernel_figures --write")
    PINS.write_text(json.dumps({cell: figures(*cell.split("@")) for cell in cells()},
                               indent=1, sort_keys=True) + "\n")
    print(f"wrote {PINS}")
