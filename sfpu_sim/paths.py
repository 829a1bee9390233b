"""How files are named in messages and reports, and the file and line a message points at (a
leaf: the registry and the DSL's tracer both name source files)."""
from __future__ import annotations

import os
import sys
import traceback
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


def frame_in(tb, file: str) -> str | None:
    """``file:line`` of the innermost traceback frame inside ``file`` (a display path)."""
    found = None
    for frame, line in traceback.walk_tb(tb):
        if display_path(frame.f_code.co_filename) == file:
            found = f"{file}:{line}"
    return found


def call_site(depth: int = 2) -> str:
    """``file:line`` of the frame ``depth`` calls up from here (2: the caller's caller)."""
    frame = sys._getframe(depth)
    return f"{display_path(frame.f_code.co_filename)}:{frame.f_lineno}"
