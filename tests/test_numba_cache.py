"""numba's on-disk cache never crashes a command (issue 12, item 1): with the package folder
read-only and no writable HOME, numba's ``cache=True`` used to raise ``RuntimeError: cannot cache
function '_lanes_ieee': no locator available`` on import, so even ``--help`` died.

Root ignores permission bits, so under root the child runs with the capabilities that override
them removed (setpriv), which makes the read-only folders read-only for it too."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sfpu_sim import compiled, jit
from sfpu_sim.asm import assemble
from sfpu_sim.machine import Machine
from tests.conftest import ROOT

DROP_OVERRIDES = ["--bounding-set=-dac_override,-dac_read_search,-fowner", "--inh-caps=-all"]
# A tiny program through both compiled paths numba caches: fma.py's kernels and a program.
SCRIPT = """
import numpy as np
from sfpu_sim import compiled, fma
from sfpu_sim.asm import assemble
from sfpu_sim.machine import Machine
print(hex(int(fma.fma_wormhole(0x3F800000, 0x40000000, 0x3F800000))))
m = Machine("wormhole", lanes=64)
m.lreg[1] = np.arange(64, dtype=np.uint32) << np.uint32(20)
program = assemble("SFPLOADI L3, USHORT, 7\\nSFPIADD 0, L1, L3, 0", "wormhole")
print(compiled.execute(m, program)[1])
print(" ".join(hex(int(v)) for v in m.lreg[3]))
"""


def _unprivileged() -> list[str]:
    """A command prefix under which permission bits apply (empty when not root)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot make a folder read-only to a child")
    probe = subprocess.run([setpriv, *DROP_OVERRIDES, sys.executable, "-c",
                            "import os; print(os.access('/proc/1/root', os.R_OK))"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop capabilities here: {probe.stderr.strip()}")
    return [setpriv, *DROP_OVERRIDES]


def _read_only_install(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    for package in ("sfpu_sim", "kernels"):
        shutil.copytree(ROOT / package, site / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for path in [site, *site.rglob("*")]:
        path.chmod(stat.S_IREAD | stat.S_IEXEC if path.is_dir() else stat.S_IREAD)
    return site


def _writable_again(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(stat.S_IRWXU)


def _expected_lanes() -> str:
    m = Machine("wormhole", lanes=64)
    m.lreg[1] = np.arange(64, dtype=np.uint32) << np.uint32(20)
    m.run(assemble("SFPLOADI L3, USHORT, 7\nSFPIADD 0, L1, L3, 0", "wormhole"))
    return " ".join(hex(int(v)) for v in m.lreg[3])


def test_read_only_install_without_writable_home_runs_and_caches_in_a_temporary_folder(tmp_path):
    prefix = _unprivileged()
    site = _read_only_install(tmp_path)
    home = tmp_path / "home"
    home.mkdir(mode=0o555)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(site),
           "HOME": str(home), "TMPDIR": str(scratch)}
    try:
        for args in (["-m", "sfpu_sim", "--help"], ["-c", SCRIPT]):
            done = subprocess.run([*prefix, sys.executable, *args], env=env, cwd=tmp_path,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr[-2000:]
            assert "Traceback" not in done.stderr
        # 1 * 2 + 1 = 3 exactly; the program's lanes as the Machine computes them
        assert done.stdout.splitlines() == ["0x40400000", "None", _expected_lanes()]
        cache = scratch / f"sfpu-sim-{os.getuid()}"
        assert any(cache.rglob("*.nbi")), "nothing was cached in the temporary folder"
        assert not any(site.rglob("__pycache__"))
    finally:
        _writable_again(tmp_path)


def test_with_no_writable_folder_at_all_functions_compile_uncached(monkeypatch):
    """numba's places and every fallback refused (as when nothing is writable): compiled code
    still runs, cached nowhere, programs compiled in memory."""
    monkeypatch.setattr(jit, "_numba_can_cache", lambda func: False)
    monkeypatch.setattr(jit, "_fallback_candidates", lambda: [])
    monkeypatch.setattr(jit.numba.config, "CACHE_DIR", "")
    jit._fallback_cache_directory.cache_clear()
    compiled._MEMORY.clear()
    try:
        assert jit.program_directory() is None

        @jit.njit()
        def twice(x):
            return 2 * x

        assert twice(21) == 42
        assert type(twice._cache).__name__ == "NullCache"
        m = Machine("blackhole", lanes=32)
        m.lreg[1] = 40
        assert compiled.execute(m, assemble("SFPIADD -2, L1, L2, ARG_IMM", "blackhole"))[1] is None
        assert (m.lreg[2] == 38).all()
    finally:
        jit._fallback_cache_directory.cache_clear()
        compiled._MEMORY.clear()


# A function first compiled by a child process, in a module of its own under tmp_path (numba
# caches it beside the module); the child prints its cache hits and misses.
LOCKED_MODULE = """
from sfpu_sim.jit import njit


@njit()
def plus_one(x):
    return x + 1
"""
LOCKED_CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
import locked_module
print("imported", flush=True)
value = locked_module.plus_one(41)
stats = locked_module.plus_one.stats
print(value, sum(stats.cache_misses.values()), sum(stats.cache_hits.values()), time.time())
"""


def test_a_function_compiles_under_its_lock_and_a_waiting_process_loads_the_cache(tmp_path):
    """While another process holds a function's compile lock, a process that needs the
    function waits (its first call returns only after the lock is released); it then compiles
    and caches it (a miss), and the next process loads it (a hit)."""
    import fcntl
    import time

    (tmp_path / "locked_module.py").write_text(LOCKED_MODULE)
    sys.path.insert(0, str(tmp_path))
    try:
        import locked_module
        lock = jit._lock_path(locked_module.plus_one.py_func)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("locked_module", None)
    assert lock is not None and lock.parent == tmp_path / "__pycache__"
    child = [sys.executable, "-c", LOCKED_CHILD, str(tmp_path)]
    with open(lock, "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        waiting = subprocess.Popen(child, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert waiting.stdout.readline() == "imported\n"
        time.sleep(2)                                  # a compile of plus_one takes ~0.2 s
        released = time.time()
    out, _ = waiting.communicate(timeout=120)
    value, misses, hits, returned = out.split()
    assert (value, misses, hits) == ("42", "1", "0")   # compiled: one miss, no hit
    assert float(returned) > released
    again = subprocess.run(child, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert again.stdout.split()[:4] == ["imported", "42", "0", "1"]    # loaded: one hit
