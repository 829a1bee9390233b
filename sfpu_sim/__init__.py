"""sfpu-sim: a bit-accurate emulator of the Tenstorrent SFPU (Wormhole B0 and Blackhole A0).

Layers (see ../shared/DESIGN.md): ``formats`` (bit patterns), ``fma`` (the multiply-add of each
chip), then the machine, assembly, DSL, references, sweeps and reports built on them.

The public API, importable from here:

* :func:`register_kernel` - add a kernel written with the DSL (:mod:`sfpu_sim.sfpi`);
* :class:`Machine` - a batch of SFPUs of one chip, instruction by instruction;
* :func:`sweep` - a kernel over every BF16 input through the device path, measured;
* :func:`write_report` - the Markdown/PNG/JSON report of a sweep;
* :class:`SfpuSimError` and its subclasses - every error a user's input can cause.
"""
from sfpu_sim.version import __version__  # noqa: E402

__all__ = ["register_kernel", "Machine", "sweep", "write_report", "SfpuSimError",
           "__version__"]

from sfpu_sim.errors import SfpuSimError
from sfpu_sim.machine import Machine
from sfpu_sim.registry import register_kernel
from sfpu_sim.report import write as write_report
from sfpu_sim.sweeps import sweep
