"""Two-operand kernels through the device path, and their sweeps over (x, y) pairs.

Owns: where a binary kernel finds its operands in Dst, running it over operand pairs on the
engine chosen, and the pair sweep's summary. The rest of the path (unpack, SFPLOAD/SFPSTORE
modes, packer) is :mod:`sfpu_sim.sweeps`' own, unchanged. Knows nothing of formatting.

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

from sfpu_sim import compiled, engines, formats, ulp
from sfpu_sim.compiled import gpu
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.isa.spec import Program
from sfpu_sim.jsonio import hex_bits, json_number, jsonable
from sfpu_sim.machine import LANES_PER_SFPU, Dst, ProgramWarning
from sfpu_sim.reference.binary_functions import BINARY_FUNCTIONS, binary_reference
from sfpu_sim.selection import EVERYTHING, Selection
from sfpu_sim.sweeps import (
    AUTO_COMPILE_WORK,
    DevicePath,
    DeviceRun,
    SweepError,
    _device_state,
    _last_store,
    _pack,
    _padded_inputs,
    _unpack,
    program_hash,
)
from sfpu_sim.version import __version__

IN0_ADDRESS, IN1_ADDRESS, OUT_ADDRESS = 0, 64, 0     # tiles 0, 1, 0 (module docstring)
IN2_ADDRESS = 128               # a ternary kernel's third operand: tile 2 (sfpu_ternary_test.cpp)
# Rows a binary kernel's Dst needs: address 64's 32-bit cells end at physical row 128 + 3 + 8;
# a ternary kernel's, address 128's at row 256 + 3 + 8.
BINARY_DST_ROWS, TERNARY_DST_ROWS = 144, 272
PAIRS_PER_RUN = 1 << 20            # pairs per device run of a sweep (memory stays ~0.4 GiB)


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
        raise BinaryOperandError(f"{spec.name} takes one operand: --y and --y-range are for "
                                 f"binary kernels (sfpu-sim kernels lists them)")


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


def all_x_pairs(y_bits, input_format: str = "bf16") -> tuple[np.ndarray, np.ndarray]:
    """Every pattern of the 16-bit input format as x against each y: (x, y), y-major."""
    y_bits = formats.as_bits(np.atleast_1d(y_bits), input_format).reshape(-1)
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    return np.tile(every, y_bits.size), np.repeat(y_bits, every.size)


def sweep_binary(spec, arch: str, y_bits, *, dest: str | None = None,
                 input_format: str = "bf16", output_format: str | None = None,
                 reference_rounding: str = "rne", population: str = "daz",
                 selection: Selection = EVERYTHING, worst: int = 20,
                 engine: str | None = None, progress=None) -> dict:
    """Every x of the input format against each second operand in ``y_bits`` (patterns),
    through a binary kernel: the JSON-ready summary (daz-index ULP against the correctly
    rounded :func:`~sfpu_sim.reference.binary_functions.binary_reference`). ``population``
    (:data:`sfpu_sim.ulp.POPULATIONS`) selects which x and y are measured, ``selection`` which
    x; others are run but not counted. ``output_format``: the packer's (default: the input
    format). ``progress(done, total)``: second operands swept so far."""
    require_operands(spec, True)
    dest = dest or spec.dest
    output_format = output_format or input_format
    path = DevicePath(input_format, output_format, dest)
    program = spec.program(arch)
    y_bits = formats.as_bits(np.atleast_1d(y_bits), input_format).reshape(-1)
    check_held_operand(spec, y_bits, input_format)
    every_x = np.arange(1 << 16, dtype=np.uint32).astype(formats.FORMATS[input_format].dtype)
    measured = np.zeros(1 << 16, dtype=bool)
    measured[ulp.population(population, input_format)] = True
    measured_x = measured & selection.mask(formats.bits_to_float64(every_x, input_format))
    if not measured_x.any():
        raise SweepError(f"no x of population {population} lies in {selection.text}")
    per_y, worst_rows, total = [], [], {"count": 0, "exact": 0, "sum": 0.0, "max": None}
    step = max(1, PAIRS_PER_RUN >> 16)
    for start in range(0, y_bits.size, step):
        x, y = all_x_pairs(y_bits[start:start + step], input_format)
        run = run_binary_device(program, x, y, path, engine=engine)
        ref, _ = binary_reference(spec.function, x, y, reference_rounding,
                                  input_format=input_format, output_format=output_format)
        result = ulp.distance(ref, run.output, "daz-index", fmt=output_format)
        counted = result.counted & measured_x[x] & measured[y]
        distance = np.where(counted, result.distance, -1).reshape(-1, 1 << 16)
        for row, y_value in enumerate(y_bits[start:start + step]):
            _tally(per_y, worst_rows, total, distance[row], int(y_value), ref, run, row,
                   path, worst)
        worst_rows.sort(key=lambda r: -r["ulp"])            # stable: the first y's first
        del worst_rows[worst:]
        if progress is not None:
            progress(min(start + step, y_bits.size), y_bits.size)
    return jsonable({
        "tool": f"sfpu-sim {__version__}", "kernel": spec.name, "function": spec.function,
        "formula": BINARY_FUNCTIONS[spec.function][1], "arch": program.arch.name,
        "provenance": spec.provenance, "instantiation": spec.instantiation,
        "kernel_hash": program_hash(program), "dest": dest, "input_format": input_format,
        "output_format": output_format, "device_path": path.steps(),
        "operands": f"x: every {input_format.upper()} pattern at Dst address {IN0_ADDRESS}; "
                    f"y: {y_bits.size} value(s) at address {IN1_ADDRESS}",
        "reference_rounding": reference_rounding, "ulp_convention": "daz-index",
        "population": population, "selection": selection.as_dict(),
        "count": total["count"], "max_ulp": total["max"],
        "mean_ulp": total["sum"] / total["count"] if total["count"] else None,
        "exact_count": total["exact"],
        "exact_frac": total["exact"] / total["count"] if total["count"] else None,
        "per_y": per_y, "worst": worst_rows})


def _tally(per_y, worst_rows, total, distance, y_value, ref, run, row, path, worst) -> None:
    """Fold one y's row of distances (-1: not counted) into the running summary."""
    counted = distance >= 0
    n = int(counted.sum())
    top = int(distance.max()) if n else None
    y = {"y_bits": hex_bits(y_value, path.input_format),
         "y": json_number(formats.bits_to_float64(np.array([y_value]), path.input_format)[0])}
    per_y.append({**y, "count": n, "max_ulp": top})
    if not n:
        return
    total["count"] += n
    total["exact"] += int((distance == 0).sum())
    total["sum"] += float(distance[counted].sum())
    total["max"] = top if total["max"] is None else max(total["max"], top)
    lanes = (row << 16) + np.argsort(-distance, kind="stable")[:worst]
    lanes = lanes[distance[lanes - (row << 16)] > 0]
    x_values, out_values, ref_values = (
        formats.bits_to_float64(bits[lanes], fmt) for bits, fmt in
        ((run.inputs, path.input_format), (run.output, path.output_format),
         (ref, path.output_format)))
    for k, lane in enumerate(lanes):
        worst_rows.append({"x_bits": hex_bits(run.inputs[lane], path.input_format),
                           "x": json_number(x_values[k]), **y,
                           "output_bits": hex_bits(run.output[lane], path.output_format),
                           "output": json_number(out_values[k]),
                           "expected_bits": hex_bits(ref[lane], path.output_format),
                           "expected": json_number(ref_values[k]),
                           "ulp": int(distance[lane - (row << 16)])})
