"""Two-operand kernels through the device path.

Owns: where a binary kernel finds its operands in Dst, and running it over operand pairs on
the engine chosen (the pair sweep streams chunks of them: :mod:`sfpu_sim.fp32sweep.pair_sweep`).
The rest of the path (unpack, SFPLOAD/SFPSTORE modes, packer) is :mod:`sfpu_sim.sweeps`' own,
unchanged. Knows nothing of formatting.

Operand layout (tt-metal ``ckernel_sfpu_binary.h`` ``calculate_sfpu_binary``: "size of each
tile in Dest is 64/SFP_DESTREG_STRIDE = 32 rows when using sfpi", ``dst_reg[index * 32]``;
``ckernel_sfpu_binary_max_min.h``: ``offset = (dst_index * 32) << 1``): a tile is 64 Dst
addresses in either Dst mode; an FP32 Dst places address 64 at physical row 128 (the 32-bit
view, :class:`sfpu_sim.machine.Dst`), which the addresses need not know. The accuracy
harness calls ``call_binary_sfpu_operation(0, 1, 0)`` (tt-llk ``tests/sources/
sfpu_binary_test.cpp``), as ttnn's binary_ng SFPU kernels do (``i * 2, i * 2 + 1, i * 2``):
in0 = x at address 0, in1 = y at address 64, the result back at address 0, where
:func:`sfpu_sim.sweeps.device_output` packs it from.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from sfpu_sim import compiled, engines, formats
from sfpu_sim.compiled import gpu
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.isa.spec import Program
from sfpu_sim.machine import LANES_PER_SFPU, Dst, ProgramWarning
from sfpu_sim.reference.binary_functions import BINARY_FUNCTIONS
from sfpu_sim.sweeps import (
    AUTO_COMPILE_WORK,
    DevicePath,
    DeviceRun,
    _device_state,
    _last_store,
    _pack,
    _padded_inputs,
    _unpack,
)

IN0_ADDRESS, IN1_ADDRESS, OUT_ADDRESS = 0, 64, 0     # tiles 0, 1, 0 (module docstring)
IN2_ADDRESS = 128               # a ternary kernel's third operand: tile 2 (sfpu_ternary_test.cpp)
# Rows a binary kernel's Dst needs: address 64's 32-bit cells end at physical row 128 + 3 + 8;
# a ternary kernel's, address 128's at row 256 + 3 + 8.
BINARY_DST_ROWS, TERNARY_DST_ROWS = 144, 272
PAIRS_PER_RUN = 1 << 20        # pairs per device run of a bound (memory stays ~0.4 GiB)


class BinaryOperandError(SfpuSimError):
    """A binary kernel without its second operand, or a unary kernel given one."""


@dataclass
class BinaryDeviceRun(DeviceRun):
    """A :class:`~sfpu_sim.sweeps.DeviceRun` of a binary kernel; ``y``: the second operands
    (``inputs`` holds the first)."""
    y: np.ndarray = None


def run_binary_device(program: Program, x, y, path: DevicePath = DevicePath(), *,
                      z=None, engine: str | None = None) -> BinaryDeviceRun:
    """Run a binary ``program`` once per pair (x[k], y[k]) (patterns of the path's input
    format, same shape; FP32 ones need an FP32 Dst) through ``path``: the pair unpacked to Dst
    tiles 0 and 1, the result packed from tile 0; a ternary program's third operands ``z`` to
    tile 2. ``engine`` as for :func:`sfpu_sim.sweeps.run_device`."""
    fp32 = path.input_format == "fp32"
    x, padded_x = _padded_inputs(x, path, fp32)
    y, padded_y = _padded_inputs(y, path, fp32)
    operands = [(padded_x, IN0_ADDRESS), (padded_y, IN1_ADDRESS)]
    if z is not None:
        z, padded_z = _padded_inputs(z, path, fp32)
        operands.append((padded_z, IN2_ADDRESS))
        if z.shape != x.shape:
            raise BinaryOperandError(f"x and z differ in shape: {x.shape} and {z.shape}")
    if x.shape != y.shape:
        raise BinaryOperandError(f"x and y differ in shape: {x.shape} and {y.shape}")
    engine = engine or engines.default_engine()
    if engine not in engines.ENGINES:
        raise BinaryOperandError(f"unknown engine {engine!r} (choose from: "
                                 f"{', '.join(engines.ENGINES)})")
    store = _last_store(program)
    rows = BINARY_DST_ROWS if z is None else TERNARY_DST_ROWS
    template = _device_state(program, path, LANES_PER_SFPU, dst_rows=rows)
    if engine == "auto":
        long_run = padded_x.size * len(program) > AUTO_COMPILE_WORK
        engine = engines.long_run_engine("auto") if long_run or \
            compiled.ready(template, program, store) else "machine"
    why_not = None
    if engine in ("compiled", "cuda"):
        run, why_not = _run_compiled(template, program, x, operands, path, engine)
        if run is not None:
            return run
    m = _device_state(program, path, padded_x.size, dst_rows=rows)
    for padded, address in operands:
        _unpack(m.dst, padded, path, fp32, address)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProgramWarning)     # kernels are checked when built
        m.run(program.instructions[:store])
        kernel_fp32 = m.read(program[store].vd).copy()
        m.run(program.instructions[store:])
    count = x.size
    return BinaryDeviceRun(x, kernel_fp32[:count], _pack(m.dst, path, count), path, program,
                           None, f"machine ({why_not})" if why_not else "machine", y=y)


def _run_compiled(template, program, x, operands, path, engine):
    """The compiled engines on a Dst built for every SFPU; (run, None) or (None, why not)."""
    dst = Dst(operands[0][0].size // LANES_PER_SFPU, template.dst_rows, template)
    fp32 = path.input_format == "fp32"
    for padded, address in operands:
        _unpack(dst, padded, path, fp32, address)
    execute = gpu.execute_sfpus if engine == "cuda" else compiled.execute_sfpus
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProgramWarning)
        captured, why_not = execute(template, program, dst.bits.reshape(dst.bits.shape[0], -1),
                                    _last_store(program))
    if why_not is not None:
        if engine == "cuda":
            return _run_compiled(template, program, x, operands, path, "compiled")
        return None, why_not
    count = x.size
    return BinaryDeviceRun(x, captured[:count], _pack(dst, path, count), path, program, None,
                           engine, y=operands[1][0][:count]), None


def require_operands(spec, has_y: bool,
                     options: str = "--y VALUES or --y-range LO,HI") -> None:
    """A binary kernel needs its second operand (``options``: how a command gives it); a unary
    one refuses it (one line each)."""
    if spec.operands == 2 and not has_y and spec.fixed_y is None:
        raise BinaryOperandError(f"{spec.name} is a binary kernel ({spec.function}: "
                                 f"{BINARY_FUNCTIONS[spec.function][1]}): give the second "
                                 f"operand with {options}")
    if spec.operands != 2 and has_y:
        raise BinaryOperandError(f"{spec.name} takes one operand: {options} "
                                 f"{'are' if ' or ' in options else 'is'} for binary kernels "
                                 f"(sfpu-sim kernels lists them)")


def held_operand(spec, input_format: str = "bf16") -> np.ndarray:
    """The second operand a kernel's program holds (``spec.fixed_y``), as one pattern of the
    input format (nearest even)."""
    return formats.round_values(np.array([spec.fixed_y], dtype=np.float64), "rne", input_format,
                                ftz=False).reshape(1)


def check_held_operand(spec, y_bits, input_format: str = "bf16") -> None:
    """A kernel that holds its second operand (the scalar ops) is measured at that y alone:
    any other y would be scored against a function its program does not compute."""
    if spec.fixed_y is None:
        return
    if np.any(np.asarray(y_bits) != held_operand(spec, input_format)[0]):
        raise BinaryOperandError(f"{spec.name} holds its second operand, y = {spec.fixed_y:g} "
                                 f"(the scalar its op is given as a parameter): give no --y, or "
                                 f"--y {spec.fixed_y:g}")
