"""Research report models kept between runs: ``report --all`` rebuilds the BF16 GELU study and
the determinism comparison of the hellas kernels (half a minute of its warm run on two cores)
only when what decides them has changed.

Owns: a model's cache file (``user_cache("models")``, :mod:`sfpu_sim.cache_dirs`) and its key:
the tool version, a digest of every source file of the package and of the ``kernels`` package
(any change to the code that computes a model, or to a kernel it runs, is a new key), and the
caller's own parts (the programs a comparison runs, which a user's kernel files can add to).
A model is always returned as its JSON text reads back, built now or read from the cache, so a
warm run renders exactly what a cold one does. A missing or damaged file is rebuilt and
replaced (written through a temporary file); a cache that cannot be written is skipped.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from pathlib import Path

from sfpu_sim.cache_dirs import user_cache
from sfpu_sim.report.files import ReportError, atomic_write, json_text
from sfpu_sim.version import __version__

# The package and the kernels (located, not imported: importing them registers every kernel)
PACKAGES = (Path(__file__).resolve().parents[1],
            Path(importlib.util.find_spec("kernels").origin).resolve().parent)


@functools.cache
def source_digest() -> str:
    """sha256 of every ``.py`` file of the package and of ``kernels``, by relative path."""
    digest = hashlib.sha256()
    for root in PACKAGES:
        for path in sorted(root.rglob("*.py")):
            digest.update(f"{root.name}/{path.relative_to(root).as_posix()}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def cached(name: str, parts, build) -> dict:
    """The model ``build()`` returns, read back from its JSON; from the cache where a run with
    the same key (``name``, ``parts``, the code) wrote it."""
    key = hashlib.sha256("\0".join([__version__, source_digest(), name, *parts]).encode())
    path = user_cache("models") / f"{name}-{key.hexdigest()[:24]}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    text = json_text(build())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text)
    except (OSError, ReportError):
        pass
    return json.loads(text)
