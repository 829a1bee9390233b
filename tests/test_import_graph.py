"""The package's imports run one way: no cycle among sfpu_sim's modules, counting function-local
and TYPE_CHECKING imports (imports only go down the layers). And its names do not collide: no
two modules share a last name (a package counts by its directory's name), and no attribute of a
package hides its submodule of the same name (a function re-exported under its module's name)."""
from __future__ import annotations

import ast
import importlib
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "sfpu_sim"
# Submodules that need an optional dependency to import (the gpu extra's numba-cuda).
OPTIONAL = {"sfpu_sim.compiled.gpu", "sfpu_sim.fp32sweep.gpu_frames"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                    + ([base] if base else []))
                # ``from pkg import module`` depends on the module; ``from pkg import name`` on pkg.
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            for target in targets:
                if target in modules and target != name:
                    graph[name].add(target)
                graph[name] |= _packages_run(target, name, modules)
    return graph


def _packages_run(target: str, importer: str, modules) -> set[str]:
    """The packages whose ``__init__`` importing ``target`` runs first: its enclosing
    packages, but the root (whose names load on first use) and those ``importer`` is inside
    (already imported before it)."""
    parts = target.split(".")
    enclosing = {".".join(parts[:k]) for k in range(2, len(parts))}
    return {p for p in enclosing if p in modules and p != importer
            and not (importer + ".").startswith(p + ".")}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_import_graph_has_no_cycle():
    cycle = _cycle(_graph())
    assert cycle is None, " -> ".join(cycle)


def test_the_checker_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_importing_a_submodule_depends_on_its_packages_init():
    """``from sfpu_sim.design.expr import parse`` runs ``sfpu_sim/design/__init__.py`` first:
    a cycle through a package's ``__init__`` is a cycle (one failed to import this way)."""
    modules = {"sfpu_sim", "sfpu_sim.design", "sfpu_sim.design.expr", "sfpu_sim.design.api",
               "sfpu_sim.reference"}
    assert _packages_run("sfpu_sim.design.expr", "sfpu_sim.reference", modules) == \
        {"sfpu_sim.design"}
    assert _packages_run("sfpu_sim.design.expr", "sfpu_sim.design.api", modules) == set()
    assert _packages_run("sfpu_sim.reference", "sfpu_sim.design.api", modules) == set()


def _packages(root: Path) -> list[Path]:
    """``root`` and every directory under it that holds Python files (namespace packages too)."""
    return sorted({path.parent for path in root.rglob("*.py")})


def _children(directory: Path) -> list[str]:
    """The last names of a package's submodules: its files (``__init__.py`` and the other dunder
    files left out) and its packages."""
    files = [p.stem for p in directory.glob("*.py") if not p.stem.startswith("__")]
    packages = [d.name for d in directory.iterdir() if d.is_dir() and any(d.rglob("*.py"))]
    return sorted(files + packages)


def _shared_names(root: Path) -> dict[str, list[str]]:
    """Every last name that more than one module under ``root`` has, with where they are."""
    places: dict[str, list[str]] = defaultdict(list)
    for directory in _packages(root):
        for name in _children(directory):
            places[name].append((directory / name).relative_to(root).as_posix())
    return {name: where for name, where in places.items() if len(where) > 1}


def _hidden(root: Path, top: str) -> list[str]:
    """Submodules of the packages under ``root`` (imported as ``top``) that the package's
    attribute of the same name is not: ``from top.pkg import name`` would not give the module."""
    found = []
    for directory in _packages(root):
        package_name = ".".join((top, *directory.relative_to(root).parts))
        package = importlib.import_module(package_name)
        for name in _children(directory):
            try:
                module = importlib.import_module(f"{package_name}.{name}")
            except ImportError:
                if f"{package_name}.{name}" in OPTIONAL:
                    continue
                raise
            attribute = getattr(package, name, None)
            if attribute is not module:
                found.append(f"{package_name}.{name} (the package's {name!r} is "
                             f"{type(attribute).__name__} {attribute!r:.60})")
    return found


def test_no_two_modules_share_a_name():
    assert _shared_names(PACKAGE) == {}


def test_no_package_attribute_hides_its_submodule():
    assert _hidden(PACKAGE, "sfpu_sim") == []


def test_the_checkers_find_a_shared_name_and_a_hidden_module(tmp_path, monkeypatch):
    root = tmp_path / "collide_demo"
    for path, text in {"__init__.py": "from collide_demo.thing import thing\n",
                       "thing.py": "def thing():\n    pass\n", "sub/thing.py": "",
                       "sub/other.py": "", "other/__init__.py": ""}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    assert _shared_names(root) == {"thing": ["thing", "sub/thing"],
                                   "other": ["other", "sub/other"]}
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        found = _hidden(root, "collide_demo")
    finally:
        for name in [name for name in sys.modules if name.partition(".")[0] == "collide_demo"]:
            del sys.modules[name]
    assert [line.split()[0] for line in found] == ["collide_demo.thing"]


# The only function-local imports (those are for heavy optional imports only), each for the
# reason its import line gives: numba after $NUMBA_NUM_THREADS is checked (threads.py, and
# cli/__init__.py's engines and registry), numba.cuda (the gpu extra: also numba-cuda's NVVM
# in compiled/gpu.py, and fp32sweep/gpu_frames, which imports numba.cuda), distributed (Dask,
# in cluster.py: report --all's and the FP32 sweeps' clusters),
# pyarrow (the parquet extra), matplotlib (0.4 s, on
# the first plot), and the kernels package beside sfpu_sim (which imports sfpu_sim).
LOCAL_IMPORTS = {
    ("bench_gpu.py", "numba"), ("cli/__init__.py", "sfpu_sim"), ("cluster.py", "distributed"),
    ("compiled/gpu.py", "numba"),
    ("compiled/gpu.py", "numba.cuda.cudadrv"), ("fp32sweep/gpu_chunk.py", "sfpu_sim.fp32sweep"),
    ("report/accuracy_csv.py", "pyarrow"), ("report/accuracy_csv.py", "pyarrow.compute"),
    ("report/accuracy_csv.py", "pyarrow.parquet"), ("report/plots.py", "matplotlib"),
    ("report/plots.py", "matplotlib.backends.backend_agg"),
    ("report/plots.py", "matplotlib.figure"), ("report/plots.py", "matplotlib.ticker"),
    ("study/gelu_validation.py", "kernels.gelu_study"),
    ("study/workbench.py", "kernels.gelu_study"), ("threads.py", "numba")}


def _local_imports(root: Path) -> set[tuple[str, str]]:
    """(file, module) of every import inside a function under ``root``."""
    found = set()

    def walk(node, path: Path, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if inside and isinstance(child, (ast.Import, ast.ImportFrom)):
                module = child.module if isinstance(child, ast.ImportFrom) \
                    else child.names[0].name
                found.add((path.relative_to(root).as_posix(), "." * getattr(child, "level", 0)
                           + (module or "")))
            walk(child, path, inside or isinstance(child, (ast.FunctionDef,
                                                           ast.AsyncFunctionDef)))

    for path in sorted(root.rglob("*.py")):
        walk(ast.parse(path.read_text(encoding="utf-8")), path, False)
    return found


def test_function_local_imports_are_only_the_heavy_optional_ones():
    assert _local_imports(PACKAGE) == LOCAL_IMPORTS


def test_the_local_import_checker_finds_one(tmp_path):
    (tmp_path / "m.py").write_text("import os\n\n\ndef f():\n    from json import dumps\n"
                                   "    return dumps\n")
    assert _local_imports(tmp_path) == {("m.py", "json")}
