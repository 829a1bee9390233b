"""Where sfpu-sim keeps what it computes once and reads again: ``$SFPU_SIM_CACHE/<kind>``, else
``~/.cache/sfpu-sim/<kind>``. The kinds: correctly rounded reference tables (``references``),
FP32 sweeps' resume states (``fp32-sweeps``), drawn report figures (``figures``) and the
accuracy table's binary cells (``binary-cells``). Compiled
programs follow numba's rules instead (:mod:`sfpu_sim.jit`)."""
from __future__ import annotations

import os
from pathlib import Path


def user_cache(kind: str) -> Path:
    """The directory of one kind of cached file (not created here)."""
    root = os.environ.get("SFPU_SIM_CACHE")
    return (Path(root) if root else Path.home() / ".cache" / "sfpu-sim") / kind
