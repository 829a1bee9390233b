"""Compiled programs write each lanewise definition into the lane, specialised to the
instruction's fields (sfpu_sim.compiled.specialize): the statements must compute what the
definition computes, for every field combination the registered kernels use."""
from __future__ import annotations

import functools
import importlib
import inspect

import numpy as np
import pytest

from sfpu_sim import fma, registry
from sfpu_sim.arch import ARCHES
from sfpu_sim.compiled.specialize import NotSpecialized, specialize
from sfpu_sim.isa import cc, fields, integer, lanes, lanewise, loadstore
from sfpu_sim.isa.fields import sfpdivp2
from sfpu_sim.isa.lanewise import Semantics
from sfpu_sim.isa.loadstore import sfploadi


def _specialised(function, n_names: int, constants: list, n_units: int = 0):
    """``function`` specialised to ``constants`` (after ``n_names`` values the program passes
    by name, before ``n_units`` units), as a Python function of the named values."""
    parameters = list(inspect.signature(function).parameters)
    named = [*range(n_names), *range(len(parameters) - n_units, len(parameters))]
    arguments = dict(zip(parameters[n_names:], constants))
    arguments.update({parameters[k]: f"arg{k}" for k in named})
    done = specialize(function, arguments, "out")
    imports = {alias: getattr(importlib.import_module(module), name)
               for module, name, alias in done.imports}
    code = compile("\n".join(done.lines), f"<{function.__name__}>", "exec")

    def run(*values):
        namespace = {"np": np, **imports, **{f"arg{k}": v for k, v in zip(named, values,
                                                                          strict=True)}}
        exec(code, namespace)  # noqa: S102 - the statements under test
        return namespace["out"]
    run.lines = done.lines
    return run


def _run(function, names: list, constants: list):
    run = _specialised(function, len(names), constants)
    return run(*names), run.lines


@functools.cache
def _kernel_sites():
    """(semantics, instruction, chip) for the lanewise instructions the registered kernels
    run, on both chips: every distinct combination of mode fields, with up to four of its
    immediates (registers do not specialise)."""
    seen: dict[tuple, list] = {}
    for spec in registry.specs():
        for arch in spec.chips:
            for instruction in spec.program(arch):
                execute = getattr(getattr(instruction, "op", None), "execute", None)
                if not isinstance(execute, Semantics):
                    continue
                fields = tuple(int(getattr(instruction, n)) for n in execute.fields)
                modes = tuple(v for n, v in zip(execute.fields, fields) if not n.startswith("imm"))
                kept = seen.setdefault((execute.name, modes, arch), [])
                if len(kept) < 4 and fields not in [f for f, _ in kept]:
                    kept.append((fields, (execute, instruction, arch)))
    return [site for kept in seen.values() for _, site in kept]


UNITS = {"wormhole": fma.unit("lane_wormhole"), "blackhole": fma.unit("lane_blackhole")}


def _definition(semantics, values: list, constants: list, arch: str) -> int:
    """The definition's value, run as the Machine runs it (its lane loop, the chip's datapath
    bound in): called from Python with a datapath as an argument, numba compiles the helpers
    it passes it to again on every cache load (SFPLUTFP32's took 30 s)."""
    if not semantics.units:
        return semantics.value(*values, *constants)
    rules = ARCHES[arch]
    units = [(rules.fma_rules, rules.fused) for _ in semantics.units]
    return int(lanewise._run((semantics.value.__module__, semantics.name, "value_scalar"),
                             [np.array([v], dtype=np.uint64) for v in values], constants,
                             units, 1)[0])


def test_every_kernel_instruction_specialises_to_what_its_definition_computes():
    rng = np.random.default_rng(20261127)
    rows = rng.integers(0, 1 << 32, (16, 10), dtype=np.uint64).tolist()   # 8 operands at most
    assert len(_kernel_sites()) > 150
    for semantics, instruction, arch in _kernel_sites():
        fields = [int(getattr(instruction, name)) for name in semantics.fields]
        units = [UNITS[arch] for _ in semantics.units]
        n_operands = len(semantics.operands)
        for cc_enable in (0, 1):
            state = {"cc_enable": cc_enable,
                     "plain_product": int(ARCHES[arch].mul_is_plain_product)}
            constants = fields + [state[name] for name in semantics.state]
            if semantics.value is not None:
                n_random = 0 if semantics.prng is None else 1
                run = _specialised(semantics.value, n_operands + n_random, constants, len(units))
                for row in rows:
                    values = [*row[:n_operands], *row[8:8 + n_random]]
                    assert run(*values, *units) == _definition(semantics, values, constants,
                                                              arch), \
                        (semantics.name, instruction, run.lines)
            if semantics.flags is not None:
                n_written = 0 if semantics.value is None else 1
                run = _specialised(semantics.flags, n_written + 1 + n_operands, constants)
                for row in rows:
                    values = [*row[8:8 + n_written], row[9] & 1, *row[:n_operands]]
                    assert run(*values) == semantics.flags(*values, *constants), \
                        (semantics.name, instruction, run.lines)


# The lanewise rules of the instructions whose state the engines keep their own way (the CC
# stack, SFPSWAP's two writes, SFPMOV's sources, SFPSHFT2's and SFPCONFIG's lane moves, Dst's
# cells): (rule, how many values the program passes by name, constant combinations).
_FLAGS = [[0, 0], [0, 1], [1, 0], [1, 1], [True, False], [False, True]]
_STATE_RULES = [
    (cc.pushc_top, 2, [[mod1] for mod1 in range(1, 16)], _FLAGS),
    (cc.popc_flags, 2, [[mod1] for mod1 in range(16)], _FLAGS),
    (cc.compc_flags, 2, [[0], [1]], _FLAGS),
    (cc.mutated_top, 2, [[mod1] for mod1 in (2, 3, 6, 7, 10, 15)], _FLAGS),
    (cc.compare_value, 1, [[]], [[0], [1], [True], [False]]),
    (cc.greater_than, 2, [[]], None),
    (cc.less_or_equal, 2, [[]], None),
    (lanes.swaps, 3, [[0, mod1, lanes.VD_GETS_MIN.get(mod1, 0)] for mod1 in range(10)], None),
    (integer.sfpshft, 2, [[imm12, lanes.shift_mode(mode)] for imm12 in (-2048, -33, -31, -1, 0,
                                                                       1, 31, 32, 2047)
                          for mode in (lanes.SHFT_LREG, lanes.SHFT_IMM)], None),
    (fields.moved, 1, [[0], [1], [2]], None),
    (lanes.config_writes, 2, [[0x5A5A, mod1, enable] for mod1 in (0, 1, 8, 9, 15)
                              for enable in (0, 1)], [[c, f] for c in range(8) for f in (0, 1)]),
    (lanes.constant_register, 1, [[mod1, 0x3F800000] for mod1 in (0, 1, 8, 9)], None),
    (loadstore.load_datum, 2, [[inf, mode, sm, bits] for inf in (0, 1) for mode in range(16)
                               for sm, bits in ((0, 7), (1, 10))], None),
    (loadstore.store_datum, 1, [[mode, sm, rounds, flushes] for mode in range(16)
                                for sm in (0, 1) for rounds, flushes in ((0, 1), (1, 0))], None),
    (lanewise.prng_step, 1, [[]], None),
]


@pytest.mark.parametrize("rule, n_names, constants, values", _STATE_RULES,
                         ids=[r[0].__name__ for r in _STATE_RULES])
def test_the_rules_engines_apply_around_their_own_state_specialise_to_what_they_compute(
        rule, n_names, constants, values):
    rng = np.random.default_rng(20261128)
    words = rng.integers(0, 1 << 32, (64, n_names), dtype=np.uint64).tolist()
    if n_names == 3:          # swaps: two words, then the lane; equal and signed-zero pairs too
        special = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]
        words = [[a, b] for a, b, _ in words] + [[a, b] for a in special for b in special]
        words = [[a, b, k % 32] for k, (a, b) in enumerate(words)]
    python = getattr(rule, "py_func", rule)
    for fixed in constants:
        run = _specialised(rule, n_names, fixed)
        for row in values or words:
            assert run(*row) == python(*row, *fixed), (rule.__name__, fixed, row, run.lines)


def test_fields_decide_the_branches_at_translation():
    """SFPLOADI's five modes leave one statement each; nothing of the others."""
    for mod0, want in [(0, 0x3E800000), (2, 0x3E80), (8, 0x3E801234), (10, 0xABCD3E80)]:
        got, lines = _run(sfploadi, [0xABCD1234], [0x3E80, mod0])
        assert (got, len(lines)) == (want, 1), (mod0, lines)
    assert _run(sfploadi, [0], [0x8001, 4])[0] == 0xFFFF8001


def test_locals_that_differ_only_in_digits_stay_apart():
    """sfpdivp2 has ``imm8`` beside the parameter ``imm12``: their renamed forms differ."""
    got, lines = _run(sfpdivp2, [0x3F800000], [3, 1])
    assert got == sfpdivp2(0x3F800000, 3, 1) == 0x41000000
    assert all("imm" not in line or "immzi_" in line for line in lines), lines


def test_what_cannot_be_written_into_a_program_is_refused():
    def looping(x):
        for _ in range(3):
            x += 1
        return x

    def falls_off(x):
        if x:
            return 1

    for function, reason in [(looping, "For at line"), (falls_off, "returns nothing")]:
        with pytest.raises(NotSpecialized, match=reason):
            specialize(function, {"x": "arg0"}, "out")
