"""Where sfpu-sim's numba-compiled code is cached: one decision for the whole package.

Owns: whether and where every numba function of the package (:mod:`sfpu_sim.fma`, the compiled
programs of :mod:`sfpu_sim.compiled`) keeps its machine code on disk, and the directory the
generated program sources live in. Knows nothing of what is compiled.

numba's ``cache=True`` raises ``RuntimeError: cannot cache function ...: no locator available``
at decoration time when none of its own places is writable (``NUMBA_CACHE_DIR``, the
``__pycache__`` beside the source, ``~/.cache/numba``): a read-only install with no writable
HOME, typical of containers and CI, then cannot even print ``--help``. Here the order is:

1. numba's own places, untouched, when one of them works;
2. a private user cache directory, ``$XDG_CACHE_HOME/sfpu-sim`` or ``~/.cache/sfpu-sim``;
3. a private temporary directory, ``<tempdir>/sfpu-sim-<uid>``;
4. no cache: everything still runs, compiled once per process.

For 2 and 3 numba is pointed there through ``numba.config.CACHE_DIR`` (the setting behind
``NUMBA_CACHE_DIR``), only in a process where numba's own places all failed. A directory is used
only if it is ours (owner = this user, not writable by group or others) and really takes a file:
numba's cache index is a pickle, and loading one planted by somebody else would run their code.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from functools import cache
from pathlib import Path

import numba
from numba.core.caching import FunctionCache
from numba.core.compiler_lock import global_compiler_lock

from sfpu_sim import file_lock

__all__ = ["cache_supported", "load_generated", "njit", "program_directory"]


def njit(signature=None, **options):
    """``numba.njit(**options)`` with ``cache`` decided here (see the module docstring); with
    ``signature``, compiled for it alone, now (or loaded from the cache). A cached function
    compiles under its cache entry's lock (:func:`_locked`)."""
    def decorate(func):
        cached = cache_supported(func)
        lock = _lock_path(func) if cached else None
        if signature is None:
            dispatcher = numba.njit(cache=cached, **options)(func)
            if lock is not None:
                dispatcher.compile = _locked(dispatcher.compile, lock)
            return dispatcher
        with global_compiler_lock, file_lock.exclusive(lock):
            return numba.njit(signature, cache=cached, **options)(func)
    return decorate


def _locked(compile_signature, lock: Path | None):
    """Compiles under ``lock`` (:func:`sfpu_sim.file_lock.exclusive`): processes that start
    together compile a function once, the others waiting and then loading numba's cache.
    numba's compiler lock is taken first, so that two threads of one process never wait on
    each other's file lock."""
    def compile_under_lock(signature):
        with global_compiler_lock, file_lock.exclusive(lock):
            return compile_signature(signature)
    return compile_under_lock


def _lock_path(func) -> Path | None:
    """Beside numba's index of ``func``: its index file's name, ending ``.lock``."""
    try:
        index = Path(FunctionCache(func)._cache_file._index_path)
        return index.with_suffix(".lock")
    except Exception:                       # numba's internals moved: compile unlocked
        return None


def cache_supported(func) -> bool:
    """Whether numba can cache ``func`` on disk, after pointing it to a fallback directory if
    its own places all fail. Never raises."""
    if _numba_can_cache(func):
        return True
    directory = _fallback_cache_directory()
    if directory is None:
        return False
    numba.config.CACHE_DIR = str(directory)
    return _numba_can_cache(func)


def program_directory() -> Path | None:
    """A private writable directory for generated program sources (their numba cache goes
    beside them), or None when there is none (programs are then compiled in memory)."""
    candidates = []
    if numba.config.CACHE_DIR:
        candidates.append(Path(numba.config.CACHE_DIR) / "sfpu-sim-programs")
    candidates += [base / "programs" for base in _fallback_candidates()]
    for path in candidates:
        if _private_directory(path):
            return path
    return None


def _numba_can_cache(func) -> bool:
    """numba's own test, the one ``cache=True`` performs: does some locator accept ``func``?"""
    try:
        FunctionCache(func)
    except Exception:           # RuntimeError "no locator available", or an OSError on the way
        return False
    return True


@cache
def _fallback_cache_directory() -> Path | None:
    for path in _fallback_candidates():
        if _private_directory(path):
            return path
    return None


def _fallback_candidates() -> list[Path]:
    out = []
    base = os.environ.get("XDG_CACHE_HOME")
    try:
        out.append(Path(base) if base else Path.home() / ".cache")
    except (RuntimeError, KeyError):      # no HOME and no password entry
        pass
    out = [p / "sfpu-sim" for p in out]
    try:
        out.append(Path(tempfile.gettempdir()) / f"sfpu-sim-{_uid()}")
    except (OSError, FileNotFoundError):  # no usable temporary directory at all
        pass
    return out


def _uid() -> str:
    return str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")


def _private_directory(path: Path) -> bool:
    """Create ``path`` (mode 0700) if needed; True if it is a directory of ours that nobody
    else can write and that takes a file."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.stat()
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
            return False
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError:
        return False
    return path.is_dir()


def load_generated(source: str, module_name: str, directory: Path | None | bool = True):
    """The module of generated ``source``: imported from a file in ``directory`` (default: the
    program directory), so that numba's on-disk cache applies, or executed in memory when
    there is no directory (None). The file is replaced atomically when its text differs."""
    if directory is True:
        directory = program_directory()
    if directory is None:
        module = type(sys)(module_name)
        exec(compile(source, f"<{module_name}>", "exec"), module.__dict__)
        return module
    path = directory / f"{module_name}.py"
    try:
        current = path.read_text() if path.is_file() else None
    except OSError:
        current = None
    if current != source:
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(source)
        os.replace(temporary, path)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
