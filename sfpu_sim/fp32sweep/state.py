"""The resume state of an FP32 sweep: how far it got and what it measured so far.

Owns: the state file (where it lives, its key, writing it atomically after every chunk,
reading it back or refusing it). Knows nothing of how a chunk is measured.

A state holds the number of walk positions done (a prefix: positions ``0..done``) and the
:class:`~.tally.Partial` of those lanes. Its ``key`` is everything that decides the bits of the
summary: the tool version, the kernel's instruction words and chip, the device path, the
function, the rounding policy, the ULP convention, the walk, the selection, the number of worst
lanes kept, and a digest of the source of the FP32 sweep's own modules (enclosures, rounding,
tally). The chunk size is not part of it: any chunking continues any prefix to the same
summary. Written as JSON with a sha256 of its body, through a temporary file, ``fsync`` and
``os.replace`` in the same directory, so a kill leaves either the old state or the new one.

A state file starts with its own marker (:data:`KIND`). Only a file that does (or starts as
the unmarked states written before the marker did) is ever read as a state or replaced: any
other file at ``--state`` (notes, a summary JSON) is the user's, and is refused untouched.

Reading: a file whose key differs is refused (:class:`StateMismatch`, naming what differs:
resuming it would mix two sweeps); a damaged one of ours (truncated, unparsable, checksum
wrong) is reported in one line on stderr and replaced as the sweep starts over.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

from sfpu_sim.cache_dirs import user_cache
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.fp32sweep.tally import Partial

FORMAT = 1
KIND = "sfpu-sim fp32-sweep state"
# The first bytes of every state file save() writes (the marker is the outer object's first
# key), and of those written before the marker existed: how a file is known to be ours even
# when its end is damaged.
_MARKED = json.dumps({"kind": KIND})[:-1].encode() + b", "
_UNMARKED = re.compile(rb'\{"sha256": "[0-9a-f]{64}", "body": "')
_SOURCES = ("enclose.py", "rounded_reference.py", "tally.py", "walk.py", "chunk.py")


class StateError(SfpuSimError):
    pass


class StateMismatch(StateError):
    pass


def code_digest(sources: tuple = _SOURCES) -> str:
    """sha256 of the modules (of this package) that decide a sweep's bits: an FP32 sweep's
    by default."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in sources:
        digest.update((here / name).read_bytes())
    return digest.hexdigest()[:16]


def directory() -> Path:
    """``$SFPU_SIM_CACHE/fp32-sweeps``, else ``~/.cache/sfpu-sim/fp32-sweeps``."""
    return user_cache("fp32-sweeps")


def key_digest(key: dict) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]


def default_path(key: dict) -> Path:
    return directory() / f"{key['kernel']}_{key['arch']}_{key_digest(key)}.json"


def check_path(path) -> Path:
    """``path`` as a usable state file (its directory made), or a one-line error."""
    path = Path(path)
    try:
        directory = path.is_dir()
    except OSError as error:                    # e.g. a name longer than the file system takes
        raise StateError(f"--state {path}: {error.strerror or error}") from None
    if directory:
        raise StateError(f"--state {path}: is a directory; give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StateError(f"--state {path}: cannot make its directory "
                         f"({error.strerror or error})") from None
    if not os.access(path.parent, os.W_OK | os.X_OK) or \
            (path.exists() and not os.access(path, os.R_OK | os.W_OK)):
        raise StateError(f"--state {path}: not readable and writable here")
    if path.exists() and not _is_state_file(path):
        raise StateError(f"--state {path}: exists and is not an sfpu-sim sweep state, so "
                         f"it is left untouched; name a new file or a state file a sweep wrote")
    return path


def _is_state_file(path: Path) -> bool:
    """Whether ``path`` is a regular file that starts as a state file does (damaged or not)."""
    if not stat.S_ISREG(path.stat().st_mode):          # a FIFO would block the read below
        return False
    with open(path, "rb") as stream:
        head = stream.read(len(_MARKED) + 96)
    return head.startswith(_MARKED) or _UNMARKED.match(head) is not None


def save(path: Path, key: dict, done: int, partial: Partial) -> None:
    """Replace ``path`` with this state, atomically; a failure (a full disk) is one line and
    leaves the file as it was."""
    body = json.dumps({"format": FORMAT, "key": key, "done": done,
                       "partial": partial.as_json()}, sort_keys=True)
    payload = json.dumps({"kind": KIND, "sha256": hashlib.sha256(body.encode()).hexdigest(),
                          "body": body}).encode()
    path = Path(path)
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException as error:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        if isinstance(error, OSError):
            raise StateError(f"state file {path}: cannot save the sweep's progress "
                             f"({error.strerror or error}); the file is left as it was") \
                from None
        raise


def load(path: Path, key: dict, total: int, kind=Partial) -> tuple[int, Partial | None]:
    """(done, partial) from ``path``; (0, None) if there is none, or it is damaged (one line
    on stderr). Raises :class:`StateMismatch` for the state of another sweep. ``kind``: the
    partial's class (an FP32 sweep's :class:`~.tally.Partial`, or a pair sweep's), with
    ``from_json`` and ``walked``."""
    path = Path(path)
    if not path.exists():
        return 0, None
    try:
        outer = json.loads(path.read_bytes())
        body = outer["body"]
        if hashlib.sha256(body.encode()).hexdigest() != outer["sha256"]:
            raise ValueError("checksum mismatch")
        state = json.loads(body)
        if state.get("format") != FORMAT:
            raise ValueError(f"format {state.get('format')!r}, expected {FORMAT}")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        _damaged(path, error)
        return 0, None
    if state["key"] != key:
        differs = sorted(k for k in set(key) | set(state["key"])
                         if key.get(k) != state["key"].get(k))
        raise StateMismatch(f"state file {path} belongs to another sweep (it differs in: "
                            f"{', '.join(differs)}); remove it, give another --state, or "
                            f"--restart")
    try:
        done = int(state["done"])
        if not 0 <= done <= total:
            raise ValueError(f"done {done} outside 0..{total}")
        partial = kind.from_json(state["partial"])
        if partial.walked != done:
            raise ValueError(f"it measured {partial.walked} inputs, not {done}")
    except (ValueError, KeyError, TypeError, IndexError) as error:
        _damaged(path, error)
        return 0, None
    return done, partial


def _damaged(path: Path, error: Exception) -> None:
    print(f"sfpu-sim: state file {path} is damaged ({error}); starting the sweep over and "
          f"replacing it", file=sys.stderr)
