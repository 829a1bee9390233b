"""Writing report files: atomically (a temporary file in the same directory, then
``os.replace``), so a reader never sees half a report; and every OS failure as one line.

Nothing the user owns is destroyed: a non-regular file (device, FIFO, directory) is never
replaced, a symlink is written through (its target gets the new content, the link stays, as a
shell redirection does), and :class:`RunFiles` refuses a run whose outputs name one of its
inputs or each other.

Owns: file writes and the output-directory check. Knows nothing of what is written.
"""
from __future__ import annotations

import json
import os
import stat
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


def writable_target(path) -> Path:
    """The file a write to ``path`` replaces: ``path`` itself, or the final target of a
    symlink. Refuses anything but a regular file (or nothing yet)."""
    path = Path(path)
    try:
        # inside the try: a name the file system cannot hold (ENAMETOOLONG) raises here
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    except OSError as error:
        raise ReportError(f"cannot write {path}: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise ReportError(f"refusing to write {path}: it is {kind} (a device, FIFO or "
                          f"directory is never replaced)")
    return target


class RunFiles:
    """The files one command reads and writes: an output may not be one of the inputs, nor
    another output of the same run. Paths are compared after resolving symlinks."""

    def __init__(self, inputs=()):
        self.inputs = {self._key(p): str(p) for p in inputs}
        self.outputs: dict[str, str] = {}

    @staticmethod
    def _key(path) -> str:
        return os.path.realpath(path)

    def claim(self, path, what: str) -> Path:
        """Reserve ``path`` as this run's output ``what`` (e.g. "--csv"); checked now, before
        any work, so a refused run has written nothing."""
        key = self._key(path)
        if key in self.inputs:
            raise ReportError(f"{what} {path}: is an input of this run "
                              f"({self.inputs[key]}); choose another file")
        if key in self.outputs:
            raise ReportError(f"{what} {path}: is also {self.outputs[key]}; choose another "
                              f"file")
        writable_target(path)
        self.outputs[key] = f"{what} {path}"
        return Path(path)


def atomic_write(path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` through a temporary file beside the file it replaces."""
    path = Path(path)
    target = writable_target(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                             suffix=".tmp")
    except OSError as error:
        raise ReportError(f"cannot write {path}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
        os.chmod(temporary, _mode_for(target))           # mkstemp makes it 0600
        os.replace(temporary, target)
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


def _mode_for(target: Path) -> int:
    """The permissions of the file being replaced, or the umask's for a new one."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


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
