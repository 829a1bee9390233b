"""Answering an unknown name with the known ones it most likely meant.

Owns: :func:`near_names`. A leaf: the standard library only.
"""
from __future__ import annotations

import difflib

NEAR_NAMES = 8                   # names an unknown one is answered with, at most


def near_names(name: str, known) -> list[str]:
    """The known names a mistyped or shortened ``name`` most likely meant: those it begins
    (``acos`` -> ``acos_2026_09``), then the closest spellings, at most :data:`NEAR_NAMES`."""
    start = [k for k in known if k.startswith(f"{name}_")]
    close = difflib.get_close_matches(name, known, n=NEAR_NAMES, cutoff=0.75)
    return list(dict.fromkeys([*start, *close]))[:NEAR_NAMES]
