"""sfpu-sim: a bit-accurate emulator of the Tenstorrent SFPU (Wormhole B0 and Blackhole A0).

Layers, imports only going down (tests/test_import_graph.py checks there is no cycle):
``formats`` (bit patterns), ``fma`` (the multiply-add of each chip), then the machine,
assembly, DSL, references, sweeps and reports built on them.

The public API, importable from here:

* :func:`register_kernel` - add a kernel written with the DSL (:mod:`sfpu_sim.sfpi`);
* :class:`Machine` - a batch of SFPUs of one chip, instruction by instruction;
* :func:`sweep` - a kernel over every BF16 input through the device path, measured;
* :func:`write_report` - the Markdown/PNG/JSON report of a sweep;
* :class:`SfpuSimError` and its subclasses - every error a user's input can cause.

All but the last load numba, so they are imported on first use (PEP 562): importing the package
(the ``sfpu-sim`` command does, first) must not import numba before ``$NUMBA_NUM_THREADS`` is
checked, or a bad value ends in numba's traceback instead of one line
(:func:`sfpu_sim.threads.check_environment`).
"""
import importlib

from sfpu_sim import threads
from sfpu_sim.version import __version__  # noqa: E402

__all__ = ["register_kernel", "Machine", "sweep", "write_report", "SfpuSimError",
           "__version__"]

from sfpu_sim.errors import SfpuSimError

_ON_FIRST_USE = {"Machine": ("sfpu_sim.machine", "Machine"),
                 "register_kernel": ("sfpu_sim.registry", "register_kernel"),
                 "write_report": ("sfpu_sim.report", "write"),
                 "sweep": ("sfpu_sim.sweeps", "sweep")}


def __getattr__(name: str):
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module 'sfpu_sim' has no attribute {name!r}")

    threads.check_environment()
    module, attribute = _ON_FIRST_USE[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ON_FIRST_USE))
