"""Shared test fixtures: the golden vector files in ../shared/vectors (read-only)."""
from __future__ import annotations

import os
from pathlib import Path

import numba

# The GPU engine's tests run in numba's CUDA simulator (CI has no GPU): numba reads the setting
# when numba.cuda is first imported (sfpu-sim's pytest plugin has imported numba already, not
# numba.cuda). NUMBA_ENABLE_CUDASIM=0 in the environment runs them on a GPU.
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
numba.config.reload_config()

import numpy as np
import pytest
from hypothesis import settings

# Property tests explore the same examples on every run (reproducible CI; no example database).
settings.register_profile("sfpu-sim", derandomize=True, database=None)
settings.load_profile("sfpu-sim")

ROOT = Path(__file__).resolve().parent.parent
# ../shared beside the checkout; SFPU_SIM_SHARED names another place (a git worktree elsewhere).
VECTORS = Path(os.environ.get("SFPU_SIM_SHARED") or ROOT.parent / "shared") / "vectors"


def load_vectors(name: str):
    path = VECTORS / name
    if not path.exists():
        pytest.skip(f"golden vector file {path} is absent (it lives in the steering repo's "
                    f"shared/)")
    return np.load(path)


@pytest.fixture(scope="session")
def fma_golden():
    return load_vectors("fma_golden.npz")
