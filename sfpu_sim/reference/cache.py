"""Input tables (all 65,536 patterns of a 16-bit format), large input sets of any format (an
FP32 walk: :func:`input_set`), and their on-disk cache.

A table is stored under a key of everything that decides its content: the function's definition
(a revision and the digest of its source text), the input format, the backend, the precision
ladder and the versions of the tools. A user's reference (``register_kernel(...,
reference=f)``) may read a module constant or call a helper its source text does not show, so
its key also carries a digest of its values at :data:`FINGERPRINT_INPUTS` (computed once a
process, at its first table; :func:`key_on_values`): a changed constant or helper gives a new
table, not the old one. A change between those inputs alone would still go unseen;
``SFPU_SIM_CACHE`` pointed at an empty directory rules that out.

Every cache sfpu-sim keeps, where it lives and how to clear it: the README's "Caches".
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import tempfile
import warnings
import weakref
from pathlib import Path

import mpmath
import numpy as np

from sfpu_sim import file_lock, formats, version
from sfpu_sim.cache_dirs import user_cache
from sfpu_sim.reference.backends import MpMath
from sfpu_sim.reference.certify import Certified, evaluate
from sfpu_sim.reference.core import (
    CACHE_FORMAT,
    INPUT_FORMATS,
    MAX_PRECISION,
    NAN,
    ODD_BITS,
    START_PRECISION,
)
from sfpu_sim.reference.definitions import Function

_MAGIC = b"SFPU-SIM-REFERENCE\n"
# The inputs a user reference's values are fingerprinted at: every 129th BF16 pattern, 508
# finite nonzero ones (every exponent, both signs, each with another mantissa), at the
# precision the mpmath backend evaluates first. About 20 ms for a simple function.
FINGERPRINT_INPUTS = np.arange(0, 1 << 16, 129, dtype=np.uint32).astype(np.uint16)
FINGERPRINT_PRECISION = START_PRECISION + 56
# User references by formula -> the digest of their values (None until first needed).
_VALUE_KEYED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class CacheWarning(UserWarning):
    """The reference cache could not be used as it was (damaged, or not a regular file)."""


class _Damaged(Exception):
    """A cache file that is ours but unreadable; the message says how."""


def cache_directory(cache_dir=None) -> Path:
    """Where tables live: ``cache_dir`` if given, else ``$SFPU_SIM_CACHE/references``, else
    ``~/.cache/sfpu-sim/references``."""
    return Path(cache_dir) if cache_dir is not None else user_cache("references")


def key_on_values(function: Function) -> None:
    """Key ``function``'s tables on its values at :data:`FINGERPRINT_INPUTS` too (a user's
    reference: its source text does not show the constants and helpers it uses)."""
    _VALUE_KEYED[function.formula] = None


def _values_sha256(function: Function) -> str:
    """The digest of ``function``'s values at the fingerprint inputs, exact (mpf fields). An
    exception is part of the fingerprint: the table's own evaluation reports it, at an input
    the table needs."""
    digest = hashlib.sha256()
    x = formats.bits_to_float64(FINGERPRINT_INPUTS, formats.BF16)
    with mpmath.workprec(FINGERPRINT_PRECISION):
        for value in x[np.isfinite(x) & (x != 0)].tolist():
            try:
                result = function.formula(mpmath.mpf(value), MpMath)
                digest.update(repr(tuple(map(int, result._mpf_))).encode())
            except Exception as error:
                digest.update(f"{type(error).__name__}: {error}".encode())
    return digest.hexdigest()


def _cache_key(function: Function, input_format: str, backend) -> dict:
    definition = {"revision": function.revision,
                  "source_sha256": hashlib.sha256(function.source.encode()).hexdigest()}
    if function.formula in _VALUE_KEYED:
        if _VALUE_KEYED[function.formula] is None:
            _VALUE_KEYED[function.formula] = _values_sha256(function)
        definition["values_sha256"] = _VALUE_KEYED[function.formula]
    return {
        "cache_format": CACHE_FORMAT,
        "function": function.name,
        "definition": definition,
        "input_format": input_format,
        "backend": backend.name,
        "precision": {"start": START_PRECISION, "max": MAX_PRECISION, "odd_bits": ODD_BITS},
        "versions": {"sfpu_sim": version.__version__, "mpmath": mpmath.__version__,
                     **backend.versions},
    }


_COLUMNS = (("cls", np.uint8), ("negative", np.bool_), ("m", np.uint64), ("e", np.int64),
            ("precision", np.uint16))
_MEMORY: dict[str, Certified] = {}


def _write_table(path: Path, key: dict, table: Certified, compressed: bool = False) -> None:
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(
        buffer, **{name: getattr(table, name) for name, _ in _COLUMNS})
    payload = buffer.getvalue()
    header = json.dumps({"key": key, "sha256": hashlib.sha256(payload).hexdigest(),
                         "bytes": len(payload)}, sort_keys=True).encode() + b"\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as f:
                f.write(_MAGIC + header + payload)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass                            # an unwritable cache costs time, never correctness


def _read_table(path: Path, key: dict, size: int) -> Certified | None:
    """The table stored at ``path`` if it is intact and built under ``key``; else None (a table
    built under another key, e.g. an older version, is silently replaced). Raises _Damaged for
    a file that is not an intact table."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _Damaged(f"unreadable ({error.strerror})") from None
    try:
        if not data.startswith(_MAGIC):
            raise _Damaged("not a reference table")
        header_end = data.index(b"\n", len(_MAGIC))
        header = json.loads(data[len(_MAGIC):header_end])
        payload = data[header_end + 1:]
        if not isinstance(header, dict) or set(header) != {"key", "sha256", "bytes"}:
            raise _Damaged("bad header")
        if header["key"] != key:
            return None
        if header.get("bytes") != len(payload):
            raise _Damaged(f"truncated ({len(payload)} of {header.get('bytes')} bytes)")
        if header.get("sha256") != hashlib.sha256(payload).hexdigest():
            raise _Damaged("checksum mismatch")
        with np.load(io.BytesIO(payload), allow_pickle=False) as arrays:
            columns = [arrays[name] for name, _ in _COLUMNS]
    except (ValueError, KeyError, TypeError, AttributeError, OSError) as error:
        raise _Damaged(f"unreadable table ({type(error).__name__})") from None
    if any(a.dtype != dtype or a.shape != (size,) for a, (_, dtype) in zip(columns, _COLUMNS)) \
            or columns[0].max(initial=0) > NAN:
        raise _Damaged("columns of the wrong shape or values")
    return Certified(*columns)


def _usable(path: Path) -> bool:
    """Only a regular file (or nothing) is ever read or replaced: a FIFO, device or directory
    in the cache's place is left alone (reading a FIFO would block forever)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if stat.S_ISREG(mode):
        return True
    warnings.warn(f"reference cache {path} is not a regular file: not read, not replaced; "
                  f"the table is computed without the cache", CacheWarning, stacklevel=5)
    return False


def table(function: Function, input_format: str, backend, cache: bool, cache_dir) -> Certified:
    """Certified f(x) for all 65,536 patterns of a 16-bit input format (memory, disk, or built)."""
    bits = np.arange(1 << 16, dtype=np.uint16)
    if not cache:
        return _evaluated(function, input_format, bits, backend)
    return _kept(*_table_place(function, input_format, backend, cache_dir), function,
                 input_format, bits, backend)


def held_table(function: Function, input_format: str, backend, cache_dir) -> Certified | None:
    """The table of :func:`table` if this process holds it or the disk holds it intact (then
    remembered), else None: nothing is evaluated, written or reported (:func:`table` reports
    a damaged file and replaces it)."""
    key, path = _table_place(function, input_format, backend, cache_dir)
    memory_key = json.dumps(key, sort_keys=True)
    if memory_key in _MEMORY:
        return _MEMORY[memory_key]
    if not path.is_file():                          # nothing, or not a regular file
        return None
    try:
        certified = _read_table(path, key, 1 << 16)
    except _Damaged:
        return None
    if certified is not None:
        _MEMORY[memory_key] = certified
    return certified


def _table_place(function: Function, input_format: str, backend, cache_dir) -> tuple:
    path = cache_directory(cache_dir) / f"{function.name}.{input_format}.{backend.name}.sfpuref"
    return _cache_key(function, input_format, backend), path


# Input sets of at least this many distinct inputs are kept on disk: below it, certifying them
# again (about 10 us an input) costs less than a file.
SET_CACHE_MIN = 4096


def input_set(function: Function, input_format: str, bits: np.ndarray, backend, cache: bool,
              cache_dir) -> Certified:
    """Certified f(x) at the sorted distinct patterns ``bits`` of ``input_format``, kept like a
    table under the same key plus the digest of the patterns, where there are at least
    :data:`SET_CACHE_MIN` of them: a harness walk (65,023 FP32 inputs) certifies once per
    function, not once per cell and process. Stored compressed (the patterns of a walk are
    not, so a file holds only the certified columns)."""
    if not cache or bits.size < SET_CACHE_MIN:
        return _evaluated(function, input_format, bits, backend)
    digest = hashlib.sha256(np.ascontiguousarray(bits, dtype=np.uint32).tobytes()).hexdigest()
    key = {**_cache_key(function, input_format, backend), "inputs_sha256": digest,
           "inputs": int(bits.size)}
    path = cache_directory(cache_dir) / (f"{function.name}.{input_format}.{backend.name}."
                                         f"{digest[:16]}.sfpuref")
    return _kept(key, path, function, input_format, bits, backend, compressed=True)


def _evaluated(function: Function, input_format: str, bits: np.ndarray, backend) -> Certified:
    return evaluate(function, formats.bits_to_float64(bits, INPUT_FORMATS[input_format]),
                    backend)


def _kept(key: dict, path: Path, function: Function, input_format: str, bits: np.ndarray,
          backend, compressed: bool = False) -> Certified:
    """f at the patterns ``bits`` certified under ``key``: from this process's memory, else
    from ``path`` if it is intact and built under ``key``, else evaluated and written there (a
    damaged file is reported in one line and replaced; a non-regular one is left alone). One
    process evaluates while others that want the same table wait on its lock file
    (:func:`sfpu_sim.file_lock.exclusive`, beside it), then read what it wrote (pytest's and
    Dask's workers each evaluated it before)."""
    memory_key = json.dumps(key, sort_keys=True)
    if memory_key in _MEMORY:
        return _MEMORY[memory_key]
    if not _usable(path):
        certified = _evaluated(function, input_format, bits, backend)
    else:
        certified = _intact(path, key, bits.size, report=False)
        if certified is None:
            with file_lock.exclusive(path.with_name(path.name + ".lock")):
                certified = _intact(path, key, bits.size, report=True)  # written meanwhile?
                if certified is None:
                    certified = _evaluated(function, input_format, bits, backend)
                    _write_table(path, key, certified, compressed)
    _MEMORY[memory_key] = certified
    return certified


def _intact(path: Path, key: dict, size: int, report: bool) -> Certified | None:
    """:func:`_read_table`, None for a damaged file (reported in one line with ``report``)."""
    try:
        return _read_table(path, key, size)
    except _Damaged as damage:
        if report:
            warnings.warn(f"reference cache {path} was damaged ({damage}); recomputed and "
                          f"rewritten", CacheWarning, stacklevel=5)
        return None


# What is computed from a table this process holds (every lane rounded under a policy: a sweep
# of a function rounds all 65,536 again otherwise, twice, 6 ms), kept while the table is: keyed
# by the table's identity and the caller's key, with the table held beside it so that its id
# cannot be reused while the entry lives. The oldest entries go past DERIVED_KEPT.
_DERIVED: dict[tuple, tuple] = {}
DERIVED_KEPT = 64


def derived(certified: Certified, key: tuple, compute):
    """``compute(certified)``, once per held table and ``key`` (callers hold the reference
    layer's lock)."""
    entry = _DERIVED.get((id(certified), key))
    if entry is None or entry[0] is not certified:
        entry = _DERIVED[id(certified), key] = (certified, compute(certified))
        while len(_DERIVED) > DERIVED_KEPT:
            del _DERIVED[next(iter(_DERIVED))]
    return entry[1]


def clear_memory() -> None:
    """Forget the tables held in this process, and what was derived from them (the disk cache
    stays)."""
    _MEMORY.clear()
    _DERIVED.clear()
