"""The package's source files a module depends on, read from import statements: what a cache key
built from generated or drawn output must hash (numba's cache does not follow callees; a drawn
figure depends on the code that draws it). Knows nothing of what the files hold."""
from __future__ import annotations

import functools
import re
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def imported_files(roots: tuple[Path, ...]) -> list[Path]:
    """``roots`` with the package modules they import, transitively, read from their import
    statements: what compiled code built from them depends on (numba's cache does not follow
    callees, so a cache key hashes these files)."""
    return _imported_files(tuple(sorted(Path(r).resolve() for r in roots)))


@functools.cache
def _imported_files(roots: tuple[Path, ...]) -> list[Path]:
    todo, seen = list(roots), set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imports_of(path):
            todo += [f for f in _module_files(name) if f not in seen]
    return sorted(seen)


# An import statement's text: ``from sfpu_sim... import names`` (parenthesised or not) or
# ``import sfpu_sim...``, at any indentation (function-local imports count).
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(sfpu_sim[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)"
                     r"|import[ \t]+(sfpu_sim[^\n]*))", re.M)


@functools.cache
def _imports_of(path: Path) -> tuple[str, ...]:
    """The package modules (and ``module.name`` candidates) ``path``'s import statements
    name, read from its text once a process: a pattern, not a parse, because every process
    computing a cache key read the whole package (0.5-1 s). A line in a docstring that reads
    like an import counts too, which only widens the key."""
    names = []
    text = re.sub(r"#[^\n]*", "", path.read_text())          # comments may hold brackets
    for module, imported, plain in _IMPORT.findall(text):
        listed = (imported or plain).strip("() \t\n")
        parts = [part.split()[0] for part in listed.split(",") if part.strip()]
        names += [module, *(f"{module}.{p}" for p in parts)] if module else parts
    return tuple(name for name in names if name.startswith("sfpu_sim"))


def _module_files(dotted: str) -> list[Path]:
    parts = dotted.split(".")[1:]
    if not parts:
        return [_PACKAGE / "__init__.py"]
    candidates = [_PACKAGE.joinpath(*parts[:-1], parts[-1] + ".py"),
                  _PACKAGE.joinpath(*parts, "__init__.py")]
    return [path for path in candidates if path.is_file()]
