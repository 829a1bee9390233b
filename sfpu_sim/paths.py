"""How files are named in messages and reports (a leaf: the registry and the DSL's tracer both
name source files)."""
from __future__ import annotations

import os
from pathlib import Path

# The repository root: the package's own files (sfpu_sim/, kernels/) are named relative to it.
PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def display_path(path: str | os.PathLike) -> str:
    """How a source file is named in messages and reports: relative to the package root for
    the package's own files (the same wherever it runs), else relative to the working
    directory when inside it, else absolute."""
    resolved = Path(path).resolve()
    for base in (PACKAGE_ROOT, Path.cwd()):
        try:
            return resolved.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)
