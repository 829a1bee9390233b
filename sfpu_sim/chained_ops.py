"""Chained ops: a ttnn op that runs as several device programs, each writing a tensor that the
next one reads (an op is what ttnn runs, which may be several kernels with tiles
between them), run stage by stage through the device path.

Owns: the stage records (:class:`SfpuStage`, a registered SFPU kernel through the unpack,
SFPLOAD, SFPSTORE and pack path; :class:`FpuStage`, one Matrix Unit element-wise instruction
against a tile of a constant), :class:`ChainedOp`, the registry entry ``report``, ``sweep`` and
``eval`` run, and :func:`register_chained_op`. Knows nothing of references, ULPs or reports.

Modelled with BF16 tensors only (in, between the ops and out) and a 16-bit Dst in every
program, as a BF16 op runs; other paths are refused.
"""
from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass

import numpy as np

from sfpu_sim import formats, fpu, registry
from sfpu_sim.arch import get_arch
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.paths import display_path
from sfpu_sim.sweeps import DevicePath, DeviceRun, _listing_line, program_hash, run_device

BF16_PATH = DevicePath("bf16", "bf16", "bf16")
PATH_IN_WORDS = ("input BF16 tensor; every SFPU stage: unpack to a 16-bit Dst, SFPLOAD, the "
                 "kernel, SFPSTORE (truncating), packer to BF16; every FPU stage: unpack to "
                 "SrcA/SrcB, the instruction into a 16-bit Dst, packer to BF16")


class ChainError(SfpuSimError):
    pass


@dataclass(frozen=True)
class SfpuStage:
    """``op``'s SFPU program: the registered ``kernel`` on a BF16 tensor, 16-bit Dst."""
    op: str
    kernel: str

    def text(self) -> str:
        spec = registry.get(self.kernel)
        return f"{self.op}: SFPU kernel {self.kernel} ({spec.instantiation or spec.provenance})"


@dataclass(frozen=True)
class FpuStage:
    """``op``'s Matrix Unit instruction (``ELWADD``, ``ELWSUB``, ``ELWMUL``: :mod:`sfpu_sim.fpu`)
    between the tensor and a tile filled with ``constant`` (a BF16 value), unpacked to SrcA
    when ``constant_in_srca``, else to SrcB; the chip's rules for a 16-bit Dst, or for
    ELWADD / ELWSUB the adder rule named ``adder`` (:data:`sfpu_sim.fpu.ADDER_RULES`)."""
    op: str
    instruction: str
    constant: float
    constant_in_srca: bool
    adder: str | None = None

    def __post_init__(self):
        if self.instruction not in fpu.ELEMENTWISE:
            raise ChainError(f"FPU stage {self.op!r}: instruction {self.instruction!r} (choose "
                             f"from {', '.join(fpu.ELEMENTWISE)})")
        if self.adder is not None and (self.adder not in fpu.ADDER_RULES
                                       or self.instruction == "ELWMUL"):
            raise ChainError(f"FPU stage {self.op!r}: adder {self.adder!r} (ELWADD/ELWSUB "
                             f"only; choose from {', '.join(fpu.ADDER_RULES)})")
        self.constant_bits()                        # a constant BF16 cannot hold: refused

    def _rule(self, arch) -> fpu.AdderRule:
        return fpu.ADDER_RULES[self.adder] if self.adder else fpu.chip_rules(arch).add_16b

    def constant_bits(self) -> int:
        bits = int(formats.round_values(np.array([self.constant]), "rne", "bf16")[0])
        if formats.bits_to_float64(np.array([bits], np.uint16), "bf16")[0] != self.constant:
            raise ChainError(f"FPU stage {self.op!r}: constant {self.constant!r} is no BF16 value")
        return bits

    def operands(self, tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tile = np.full_like(tensor, self.constant_bits())
        return (tile, tensor) if self.constant_in_srca else (tensor, tile)

    def text(self, arch) -> str:
        rules = fpu.chip_rules(arch)
        srca, srcb = ("tile of " + repr(self.constant), "tensor") if self.constant_in_srca \
            else ("tensor", "tile of " + repr(self.constant))
        fidelity = {n: k for k, n in fpu.MATH_FIDELITY_PHASES.items()}
        how = (f"adder {self._rule(arch).name}" if self.instruction != "ELWMUL" else
               f"{fidelity[fpu.DEFAULT_FIDELITY_PHASES]}, Dst rounding "
               f"{rules.mul_rounding_16b}")
        return f"{self.op}: FPU {self.instruction} SrcA = {srca}, SrcB = {srcb} ({how})"

    def run(self, tensor: np.ndarray, arch) -> tuple[np.ndarray, np.ndarray]:
        """The BF16 Dst (= the packed BF16 tensor) and the exact result as FP32 bits."""
        srca, srcb = self.operands(tensor)
        rule = {} if self.instruction == "ELWMUL" else {"rule": self._rule(arch)}
        out = fpu.ELEMENTWISE[self.instruction](srca, srcb, arch=arch, **rule)
        exact = fpu.product_fp32(srca, srcb) if self.instruction == "ELWMUL" else \
            fpu.sum_fp32(srca, srcb if self.instruction == "ELWADD" else srcb ^ np.uint16(0x8000))
        return out, exact


@dataclass(frozen=True)
class ChainedOp(registry.ChainedSpec):
    """A registered chained op: ``stages`` in order, each reading the previous stage's BF16
    tensor (the first reads the input)."""
    stages: tuple = ()

    def _arch(self, arch):
        arch = get_arch(arch) if isinstance(arch, str) else arch
        if arch.name not in self.chips:
            raise registry.KernelNotOnChip(f"{self.name!r} does not exist on {arch.title}")
        return arch

    def _check_path(self, path: DevicePath, fp32_inputs: bool) -> None:
        if fp32_inputs or path != BF16_PATH:
            raise ChainError(f"{self.name} is modelled with BF16 tensors and a 16-bit Dst in "
                             f"every program, as the op ran on BF16 tensors: not with input "
                             f"{path.input_format}, Dst {path.dest}, output {path.output_format}")

    def device_run(self, arch, inputs, path: DevicePath = BF16_PATH, *,
                   fp32_inputs: bool = False) -> tuple[DeviceRun, dict]:
        """The op over ``inputs`` (BF16 patterns): the DeviceRun (``kernel_fp32``: the last
        stage's exact result as FP32, before its rounding into Dst), and the facts a summary
        prints (:func:`sfpu_sim.sweeps.run_kernel`)."""
        arch = self._arch(arch)
        self._check_path(path, fp32_inputs)
        tensor = formats.as_bits(inputs, "bf16")
        exact, engines = None, []
        for stage in self.stages:                   # stages, not lanes
            if isinstance(stage, SfpuStage):
                run = run_device(registry.get(stage.kernel).program(arch), tensor, BF16_PATH)
                tensor, exact = run.output, run.kernel_fp32
                engines.append(run.engine)
            else:
                tensor, exact = stage.run(tensor, arch)
        run = DeviceRun(formats.as_bits(inputs, "bf16"), exact, tensor, path, None,
                        engine=f"chain: {', '.join(dict.fromkeys(engines))} and the FPU model")
        return run, self.facts(arch)

    def facts(self, arch) -> dict:
        """What a summary says of what ran: a hash of every stage, a listing with one header
        line per stage, no static cost (the FPU stages have none), the path stage by stage."""
        arch = self._arch(arch)
        identity, listing, steps, count, init = [arch.name], [], [], 0, 0
        for k, stage in enumerate(self.stages, start=1):
            sfpu = isinstance(stage, SfpuStage)
            text = stage.text() if sfpu else stage.text(arch)
            source = registry.get(stage.kernel).origin if sfpu else display_path(fpu.__file__)
            listing.append({"word": f"stage {k}", "text": text, "source": source})
            steps.append(f"stage {k}, {text}; a BF16 tensor out")
            if sfpu:
                program = registry.get(stage.kernel).program(arch)
                identity.append(program_hash(program))
                listing += [_listing_line(ins) for ins in program]
                count, init = count + len(program), init + program.init_length
            else:
                identity.append(text)
        digest = hashlib.sha256("\n".join(identity).encode()).hexdigest()[:16]
        return {"kernel_hash": digest, "cost": None,
                "program": {"instructions": count, "init_instructions": init,
                            "listing": listing},
                "device_path": [PATH_IN_WORDS, *steps],
                "instantiation_note": f"{self.name}: a chain of {len(self.ops)} ttnn ops "
                                      f"({' -> '.join(self.ops)}), {len(self.stages)} device "
                                      f"stages, not one program"}


def register_chained_op(name: str, stages, *, ops, function: str, chips=registry.CHIPS,
                        provenance: str = "", description: str = "") -> ChainedOp:
    """Register a chained op: ``stages`` (:class:`SfpuStage`, :class:`FpuStage`) in order,
    ``ops`` the ttnn ops they make up, ``function`` its reference function."""
    frame = sys._getframe(1)
    origin = f"{display_path(frame.f_code.co_filename)}:{frame.f_lineno}"
    stages = tuple(stages)
    if not stages or not all(isinstance(s, (SfpuStage, FpuStage)) for s in stages):
        raise registry.RegistrationError(f"{origin}: chained op {name!r}: stages are "
                                         f"SfpuStage and FpuStage records, at least one")
    spec = ChainedOp(name=name, function=function, chips=tuple(chips), mode="accurate",
                     dest="bf16", provenance=provenance, description=description,
                     origin=origin, ops=tuple(ops), stages=stages)
    return registry.add_chained(spec)
