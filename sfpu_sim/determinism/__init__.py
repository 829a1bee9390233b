"""Is a kernel bit-identical on a Tenstorrent device and on a CPU or GPU?

Owns: comparing one kernel's outputs, bit for bit, on four platforms - Wormhole, Blackhole,
IEEE 754 binary32 with a fused multiply-add, binary32 without one - over every BF16 input (and
a fixed-seed sample of FP32 inputs for FP32-Dst kernels), and finding for every differing
output which platform difference causes it. Knows nothing of the command line; the report's
renderings are :mod:`sfpu_sim.determinism.render`.

What is shared, and why the comparison is fair
----------------------------------------------
The algorithm is defined once, as the kernel's DSL body; the four platforms run the *same
instruction stream* traced from it. Wormhole runs its own program; Blackhole and the two
binary32 hosts run Blackhole's, which differs from Wormhole's only in lowering that changes no
bits (negations folded into SFPMAD modes, no scheduling NOPs). Every integer and bit operation
(exponent fields, shifts, masks, sign flips, the compare-by-sign tests, the rounding bias) is
therefore identical everywhere, as it would be in a C port of the same kernel, and the branches
are the same branches. What a platform replaces is exactly what differs between an SFPU and a
binary32 CPU or GPU (each an :class:`~sfpu_sim.arch.Arch` field, see
:mod:`sfpu_sim.determinism.platforms`):

* the multiply-add: the chip's SFPMAD datapath (27-bit truncated product plus sticky, DAZ,
  flush to zero, Wormhole's sticky bug and zero/NaN rules), or IEEE binary32 computed exactly
  by :func:`sfpu_sim.fma.fma_ieee` - fused (one rounding), or a multiply then an add, each
  rounded to nearest even with gradual underflow (the two roundings are ``fma(a, b, -0)`` and
  ``fma(p, 1, c)``, which are exactly binary32 ``a*b`` and ``p + c``; the tests check them
  against numpy float32 arithmetic, which is exactly that);
* SFPMUL: on the chips ``a*b + L9`` (+0), so a -0 product becomes +0; on a host the plain
  product ``a*b``;
* the store to Dst: the chips' SFPSTORE truncates FP32 to BF16 and flushes FP32 denormals; a
  host rounds to BF16 to nearest even (as ``torch`` and ``ml_dtypes`` do) and keeps denormals.

Everything else (SFPLOAD's exact widening, the CC stack, SFPSWAP's sign-magnitude order,
SFPCAST's nearest-even conversion) computes what a CPU's integer and conversion instructions
compute. Not modelled: a CPU's own NaN bit patterns (x86 SSE's default NaN is 0xFFC00000,
Arm's and this model's 0x7FC00000; a kernel that returns its one fixed NaN from a special-value
test is unaffected) and compilers that reassociate or contract differently from the kernel's
written order (the binary32 platforms evaluate exactly the kernel's operations). "binary32
with FMA" is any CPU or GPU that honours IEEE 754 and contracts every multiply-add (a GPU
built with flush-to-zero, e.g. CUDA's ``--use_fast_math``, is not it).

Why a pair differs is computed, not guessed: each difference between the two platforms is
taken from one into the other alone and the run repeated (see
:mod:`sfpu_sim.determinism.pairs`).
"""
from __future__ import annotations

import fnmatch

from sfpu_sim import registry
from sfpu_sim.determinism.pairs import FIRST, FP32_SAMPLE_SEED, FP32_SAMPLE_SIZE, compare_kernel
from sfpu_sim.determinism.platforms import DIFFERENCES, PAIRS, PLATFORMS
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.version import __version__

__all__ = ["DeterminismError", "resolve", "compare", "FIRST", "FP32_SAMPLE_SEED",
           "FP32_SAMPLE_SIZE"]


class DeterminismError(SfpuSimError):
    pass


def resolve(patterns) -> list:
    """Kernel specs for names or shell patterns (``hellas_*``), in registry order, each once;
    a name or pattern that matches no registered kernel is an error."""
    if not patterns:
        raise DeterminismError("give at least one KERNEL (a name, or a pattern such as "
                               "'hellas_*')")
    names = registry.names()
    chosen = []
    for pattern in patterns:
        if any(c in pattern for c in "*?["):
            matched = fnmatch.filter(names, pattern)
            if not matched:
                raise DeterminismError(f"kernel pattern {pattern!r} matches no registered "
                                       f"kernel (known: {', '.join(names)})")
        else:
            matched = [registry.get(pattern).name]
        chosen += [name for name in matched if name not in chosen]
    specs = [registry.get(name) for name in chosen]
    for spec in specs:
        if spec.operands == 2:
            raise DeterminismError(f"{spec.name} is a binary kernel (two operands): the "
                                   f"comparison runs one-operand programs")
        missing = [p.program_chip for p in PLATFORMS if p.program_chip not in spec.chips]
        if missing:
            raise DeterminismError(f"kernel {spec.name!r} runs only on {', '.join(spec.chips)}; "
                                   f"the comparison needs both chips' programs")
    return specs


def compare(specs, *, sample_size: int = FP32_SAMPLE_SIZE, seed: int = FP32_SAMPLE_SEED,
            first: int = FIRST, command: str = "", progress=None) -> dict:
    """The whole comparison of ``specs`` as one JSON-ready dict (the report's model)."""
    if sample_size < 0:
        raise DeterminismError(f"FP32 sample size {sample_size}: give 0 or more")
    if first < 0:
        raise DeterminismError(f"--first {first}: give 0 or more")
    return {
        "tool": f"sfpu-sim {__version__}",
        "command": command,
        "question": "Is a kernel written this way bit-identical between a Tenstorrent device "
                    "and a CPU or GPU?",
        "platforms": [{"key": p.key, "title": p.title, "program": p.program_chip,
                       "arithmetic": p.arithmetic} for p in PLATFORMS],
        "pairs": [[a.key, b.key] for a, b in PAIRS],
        "differences": [{"key": d.key, "title": d.title} for d in DIFFERENCES],
        "fp32_sample": {"size": sample_size, "seed": seed,
                        "how": "numpy.random.default_rng(seed).integers(0, 2**32, size), "
                               "sorted, repeats removed; FP32-Dst kernels only"},
        "kernels": [compare_kernel(spec, sample_size=sample_size, seed=seed, first=first,
                                   progress=progress) for spec in specs],
    }
