"""Where a compiled program is on disk, found without generating it.

Owns: the index beside the generated programs, one small JSON file per (program, starting
state): the name of the module the program compiled to and what its translation knew of the
state it ends in. Knows nothing of translating or running programs (:mod:`sfpu_sim.compiled`).

Why: a program's module is named after the digest of its source, so finding it meant
generating the source: translating every instruction and specialising its definition
(:mod:`sfpu_sim.compiled.specialize`), 0.1-0.2 s a program, in every process, even when numba's
cache held the machine code. The index is keyed by what decides the source: the program's
state key (:func:`sfpu_sim.compiled._memory_key`) and the digest of every file the code
generator reads (its modules and all the package modules they import, with numba's version).
Changing any of them changes the key, and a program not in the index is generated as before;
an entry is only a shortcut to the module that generating would name.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

import numba

from sfpu_sim import jit
from sfpu_sim.isa import lanewise

__all__ = ["lookup", "record"]

_GENERATOR = ("codegen.py", "cc_statements.py", "specialize.py", "scalar.py", "__init__.py")


@functools.cache
def generator_digest() -> str:
    """The digest of the code generator's files and every package module they import."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256(numba.__version__.encode())
    for path in lanewise.imported_files(tuple(here / name for name in _GENERATOR)):
        h.update(str(path.relative_to(here.parent)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _path(key: tuple) -> Path | None:
    directory = jit.program_directory()
    if directory is None:
        return None
    digest = hashlib.sha256(f"{generator_digest()} {key!r}".encode()).hexdigest()[:24]
    return directory / f"sfpu_sim_index_{digest}.json"


def lookup(key: tuple) -> dict | None:
    """The entry :func:`record` left for ``key``, or None (absent, unreadable, or from other
    generator files)."""
    path = _path(key)
    if path is None:
        return None
    try:
        entry = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return entry if isinstance(entry, dict) and entry.get("key") == repr(key) else None


def record(key: tuple, entry: dict) -> None:
    """Remember ``entry`` (JSON values) for ``key``; replaced atomically, never required."""
    path = _path(key)
    if path is None:
        return
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        temporary.write_text(json.dumps({**entry, "key": repr(key)}))
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
