"""Run a kernel on the four platforms, count identical outputs per pair, and find what makes
the others differ.

Owns: the input populations, running a kernel's program on a platform (or on a platform with
some differences taken from another), the per-pair counts and the attribution of every
differing output. Knows nothing of formatting or of the command line.

Attribution, per pair (A, B) and differing input: each difference between A and B is taken
from B into A alone, and the run repeated; every difference that alone makes A's output equal
B's is a reason. Where none does alone, all of them are taken together and then given back to
A one at a time, in list order, wherever the output stays B's: what remains is a set of
differences each of which is needed. Inputs that even all of them together leave different
differ by something other than the arithmetic and the conversions (the chips' other
instruction behaviour, or the two chips' programs). A platform's own run is the whole
population, cached per platform variant; the attribution's runs take only the differing inputs
where no lane of the program can see another (:func:`lanes_apart`), else the whole population
too, so that the lanes of a cross-lane kernel keep their neighbours.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from sfpu_sim import formats
from sfpu_sim.determinism.platforms import PAIRS, Platform, differences, taking
from sfpu_sim.jsonio import hex_bits, json_number
from sfpu_sim.sweeps import DevicePath, run_device

FP32_SAMPLE_SIZE = 65536
FP32_SAMPLE_SEED = 20260214
FIRST = 5


@dataclass(frozen=True)
class Population:
    """A set of inputs: ``bits`` in order, ``fp32_inputs`` (else BF16 patterns), the path."""
    name: str
    title: str
    bits: np.ndarray = field(repr=False)
    fp32_inputs: bool
    path: DevicePath

    @property
    def input_format(self) -> str:
        return "fp32" if self.fp32_inputs else "bf16"

    @property
    def output_format(self) -> str:
        return self.path.output_format


def fp32_sample(size: int = FP32_SAMPLE_SIZE, seed: int = FP32_SAMPLE_SEED) -> np.ndarray:
    """``size`` FP32 bit patterns drawn uniformly from all 2**32 (NaNs, infinities, zeros and
    denormals in their natural share), with ``numpy.random.default_rng(seed)``, sorted and
    without repeats."""
    rng = np.random.default_rng(seed)
    return np.unique(rng.integers(0, 1 << 32, size=size, dtype=np.uint64).astype(np.uint32))


def populations(dest: str, sample_size: int = FP32_SAMPLE_SIZE,
                seed: int = FP32_SAMPLE_SEED) -> list[Population]:
    """Every BF16 pattern (a BF16-Dst kernel's BF16 result, an FP32-Dst kernel's FP32 result);
    for an FP32-Dst kernel also the FP32 sample."""
    every_bf16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    path = DevicePath(dest=dest, output_format=dest)
    out = [Population("bf16", "all 65,536 BF16 inputs", every_bf16, False, path)]
    if dest == "fp32" and sample_size:
        sample = fp32_sample(sample_size, seed)
        out.append(Population("fp32-sample", f"{sample.size:,} FP32 inputs (uniform bit "
                              f"patterns, seed {seed})", sample, True, path))
    return out


# Instructions whose every lane reads and writes only its own registers (no SFPU-wide state,
# no PRNG), with the modes that keep it so (None: every mode); tt-isa-documentation's page
# for each (``SFPMAD.md`` and so on). SFPSWAP's modes 2-9 compare across subvectors,
# SFPMOV's mode 8 reads special registers (the PRNG among them), SFPSTOCHRND rounds by the PRNG.
_LANEWISE_MODES = {
    **dict.fromkeys(("SFPLOADI", "SFPMAD", "SFPADD", "SFPMUL", "SFPADDI", "SFPMULI", "SFPIADD",
                     "SFPAND", "SFPOR", "SFPXOR", "SFPNOT", "SFPSHFT", "SFPEXEXP", "SFPEXMAN",
                     "SFPSETEXP", "SFPSETMAN", "SFPSETSGN", "SFPABS", "SFPLZ", "SFPDIVP2",
                     "SFPNOP", "SFPSETCC", "SFPENCC", "SFPPUSHC", "SFPPOPC", "SFPCOMPC",
                     "SFPCAST", "SFPLUT", "SFPLUTFP32", "SFPGT", "SFPLE"), None),
    "SFPMOV": {0, 1, 2}, "SFPSWAP": {0, 1},
}


def lanes_apart(program) -> bool:
    """Whether each lane's output depends on its own input alone: every instruction lanewise
    (:data:`_LANEWISE_MODES`) and every SFPLOAD and SFPSTORE in one mode, so that no two lanes
    meet in a Dst cell. Then a run of some of the inputs gives each of them the output it has
    in a run of all.

    Why one mode is enough, at any addresses: lane ``8r + c`` of an SFPU reaches Dst row
    ``(addr & ~3) + r`` and column ``2c`` or ``2c + 1`` (:meth:`sfpu_sim.machine.Dst.lane_cells`;
    the column exchange needs SFPCONFIG, which is not lanewise). The row remaps (``adj16``, and
    ``adj32`` with its second half 8 rows on) are one-to-one, so two lanes of one width share a
    cell only if they share r and c: only if they are one lane."""
    modes = set()
    for i in program:
        if i.mnemonic in ("SFPLOAD", "SFPSTORE"):
            modes.add(i.mod0)
        elif i.mnemonic not in _LANEWISE_MODES:
            return False
        elif _LANEWISE_MODES[i.mnemonic] is not None and \
                i.mod1 not in _LANEWISE_MODES[i.mnemonic]:
            return False
    return len(modes) <= 1


class Runner:
    """One kernel's outputs per platform variant and population, computed once each."""

    def __init__(self, spec):
        self.spec = spec
        self._programs = {}
        self._outputs = {}

    def program(self, chip: str):
        if chip not in self._programs:
            self._programs[chip] = self.spec.program(chip)
        return self._programs[chip]

    def output(self, chip: str, arch, population: Population) -> np.ndarray:
        """The kernel's ``chip`` program run with ``arch``'s arithmetic and conversions."""
        key = (chip, arch.name, arch.fma_rules, arch.fused, arch.mul_is_plain_product,
               arch.bf16_store_rounds, arch.fp32_store_flushes, population.name)
        if key not in self._outputs:
            program = self.program(chip)
            if arch is not program.arch:
                program = _with_arch(program, arch)
            run = run_device(program, population.bits, population.path,
                             fp32_inputs=population.fp32_inputs)
            self._outputs[key] = run.output
        return self._outputs[key]

    def platform(self, platform: Platform, population: Population) -> np.ndarray:
        return self.output(platform.program_chip, platform.arch, population)

    def some(self, chip: str, arch, population: Population, index: np.ndarray) -> np.ndarray:
        """:meth:`output` at the inputs ``index``: computed for those alone where the program's
        lanes are apart, else taken from the whole population's run."""
        program = self.program(chip)
        if not lanes_apart(program) or not index.size:
            return self.output(chip, arch, population)[index]
        if arch is not program.arch:
            program = _with_arch(program, arch)
        return run_device(program, population.bits[index], population.path,
                          fp32_inputs=population.fp32_inputs).output


def _with_arch(program, arch):
    """The same instruction stream computed with another platform's arithmetic (the
    instructions are shared objects: the host Arch reuses the chip's opcode table)."""
    return dataclasses.replace(program, arch=arch)


# --------------------------------------------------------------------------------------------
# Attribution
# --------------------------------------------------------------------------------------------

@dataclass
class Attribution:
    """Why each differing input (``index``: positions in the population) differs.

    ``alone[key]``: the inputs that difference alone explains. ``together[keys]``: the inputs
    no single difference explains that these differences explain together (a tuple of keys,
    each needed). ``other``: the inputs all arithmetic differences together do not explain."""
    index: np.ndarray
    alone: dict
    together: dict
    other: np.ndarray

    def labels(self) -> tuple[np.ndarray, list[str]]:
        """``(code, words)``: per differing input an index into ``words``, its reason in
        words: ``a | b`` (either alone), ``a + b`` (only together), or ``not the arithmetic``."""
        masks = [*self.alone.values(), *self.together.values(), self.other]
        if not self.index.size:
            return np.zeros(0, dtype=np.int64), []
        rows = np.packbits(np.stack(masks, axis=1), axis=1)
        unique, code = np.unique(rows, axis=0, return_inverse=True)
        words = [self._words(np.unpackbits(row)[:len(masks)].astype(bool)) for row in unique]
        return code.reshape(-1), words

    def _words(self, hit: np.ndarray) -> str:
        alone = [key for key, h in zip(self.alone, hit) if h]
        if alone:
            return " | ".join(alone)
        together = [" + ".join(keys) for keys, h in zip(self.together, hit[len(self.alone):])
                    if h]
        return together[0] if together else NOT_ARITHMETIC


NOT_ARITHMETIC = "not the arithmetic"


def attribute(runner: Runner, a: Platform, b: Platform, population: Population,
              out_a: np.ndarray, out_b: np.ndarray) -> Attribution:
    """See the module docstring."""
    index = np.flatnonzero(out_a != out_b)
    want = out_b[index]
    candidates = differences(a.arch, b.arch)

    def explains(taken) -> np.ndarray:
        variant = taking(a.arch, b.arch, [d for d in candidates if d.key in taken])
        return runner.some(a.program_chip, variant, population, index) == want

    alone = {d.key: explains({d.key}) for d in candidates}
    remaining = np.ones(index.size, dtype=bool)
    for hit in alone.values():
        remaining &= ~hit
    together = {}
    if remaining.any():
        everything = tuple(d.key for d in candidates)
        together = _needed_together(explains, everything, remaining & explains(everything))
    other = remaining.copy()
    for hit in together.values():
        other &= ~hit
    return Attribution(index, alone, together, other)


def _needed_together(explains, everything: tuple, lanes: np.ndarray) -> dict:
    """For lanes that all the differences together explain, a set each member of which is
    needed: drop the differences one at a time, in list order, wherever the rest still
    explain (the inputs sharing a set are tried together, one run per set and step)."""
    sets = {everything: lanes}
    for key in everything:
        smaller = {}
        for kept, mask in sets.items():
            if key in kept:
                rest = tuple(k for k in kept if k != key)
                hit = mask & explains(set(rest)) if rest else np.zeros_like(mask)
                mask = mask & ~hit
                if hit.any():
                    smaller[rest] = smaller.get(rest, False) | hit
            if mask.any():
                smaller[kept] = smaller.get(kept, False) | mask
        sets = smaller
    return sets


# --------------------------------------------------------------------------------------------
# One kernel
# --------------------------------------------------------------------------------------------

def _value(bits, fmt: str):
    return json_number(formats.bits_to_float64(int(bits), fmt))


def _pair_summary(a: Platform, b: Platform, population: Population, inputs, out_a, out_b,
                  why: Attribution, first: int) -> dict:
    in_fmt, out_fmt = population.input_format, population.output_format
    differing = why.index.size
    code, words = why.labels()
    shown = set(range(min(first, differing)))
    for c in range(len(words)):                 # and the first input of every other reason
        shown.add(int(np.argmax(code == c)))
    rows = []
    for k in sorted(shown):
        lane = why.index[k]
        rows.append({"input_bits": hex_bits(inputs[lane], in_fmt),
                     "input": _value(inputs[lane], in_fmt),
                     a.key: hex_bits(out_a[lane], out_fmt), b.key: hex_bits(out_b[lane], out_fmt),
                     "reason": words[code[k]]})
    where = _where(inputs[why.index], in_fmt)
    alone_count = np.sum([m.astype(np.int64) for m in why.alone.values()], axis=0) \
        if why.alone else np.zeros(differing, dtype=np.int64)
    return {
        "a": a.key, "b": b.key, "inputs": int(out_a.size),
        "identical": int(out_a.size - differing), "different": int(differing),
        "differences": [d.key for d in differences(a.arch, b.arch)],
        "explained_alone": {key: int(mask.sum()) for key, mask in why.alone.items()},
        "explained_only_by": {key: int((mask & (alone_count == 1)).sum())
                              for key, mask in why.alone.items()},
        "reasons": {words[c]: int((code == c).sum()) for c in range(len(words))},
        "explained_together": {" + ".join(keys): int(mask.sum())
                               for keys, mask in why.together.items()},
        "not_the_arithmetic": int(why.other.sum()),
        "where": where,
        "first_different": rows,
    }


def _where(inputs, fmt: str) -> dict:
    """The differing inputs by class, and the range of |x| of the normal ones."""
    fmt_obj = formats.FORMATS[fmt]
    classes = formats.classify(inputs, fmt_obj)
    out = {c.name.lower(): int((classes == c).sum()) for c in formats.FloatClass}
    normal = classes == formats.FloatClass.NORMAL
    magnitude = np.abs(formats.bits_to_float64(inputs[normal], fmt))
    out["normal_abs_min"] = json_number(magnitude.min()) if magnitude.size else None
    out["normal_abs_max"] = json_number(magnitude.max()) if magnitude.size else None
    return out


def compare_kernel(spec, *, sample_size: int = FP32_SAMPLE_SIZE, seed: int = FP32_SAMPLE_SEED,
                   first: int = FIRST, progress=None) -> dict:
    """Every population of one kernel on the four platforms: per pair, the identical count and
    the attributed differences (JSON-ready)."""
    step = progress or (lambda label: None)
    runner = Runner(spec)
    result = {"kernel": spec.name, "function": spec.function, "dest": spec.dest,
              "populations": []}
    for population in populations(spec.dest, sample_size, seed):
        step(f"{spec.name}: {population.title}")
        outputs = {}
        for platform in {p.key: p for pair in PAIRS for p in pair}.values():
            outputs[platform.key] = runner.platform(platform, population)
        pairs = []
        for a, b in PAIRS:
            out_a, out_b = outputs[a.key], outputs[b.key]
            why = attribute(runner, a, b, population, out_a, out_b)
            pairs.append(_pair_summary(a, b, population, population.bits, out_a, out_b, why,
                                       first))
        result["populations"].append({
            "population": population.name, "title": population.title,
            "input_format": population.input_format,
            "output_format": population.output_format, "inputs": int(population.bits.size),
            "pairs": pairs})
    return result

