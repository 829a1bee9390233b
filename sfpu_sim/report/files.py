"""Writing report files: atomically (a temporary file in the same directory, then
``os.replace``), so a reader never sees half a report; and every OS failure as one line.

Owns: file writes and the output-directory check. Knows nothing of what is written.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from sfpu_sim.errors import SfpuSimError


class ReportError(SfpuSimError):
    """A report could not be written or read (unwritable directory, unreadable JSON)."""


def output_directory(path) -> Path:
    """``path`` as a directory that exists and is writable (created if missing)."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ReportError(f"cannot write reports to {path}: it exists and is not a "
                          "directory") from None
    except OSError as error:
        raise ReportError(f"cannot create output directory {path}: "
                          f"{error.strerror or error}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ReportError(f"cannot write reports to {path}: permission denied")
    return path


def atomic_write(path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same directory."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".tmp")
    except OSError as error:
        raise ReportError(f"cannot write {path}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
        os.chmod(temporary, 0o666 & ~_umask())          # mkstemp makes it 0600
        os.replace(temporary, path)
    except OSError as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise ReportError(f"cannot write {path}: {error.strerror or error}") from None
    return path


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def json_text(data) -> str:
    """The JSON text of a model: strict (no NaN literals), indented, newline-terminated."""
    return json.dumps(data, indent=1, allow_nan=False, ensure_ascii=False) + "\n"


def read_json(path) -> dict:
    """A JSON file as a dict, every failure one line naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ReportError(f"cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ReportError(f"{path}: not a text file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReportError(f"{path}:{error.lineno}: invalid JSON: {error.msg}") from None
    if not isinstance(data, dict):
        raise ReportError(f"{path}: expected a JSON object, found {type(data).__name__}")
    return data
