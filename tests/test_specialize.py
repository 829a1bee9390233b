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


UNITS = {"wormhole": fma.lane_wormhole, "blackhole": fma.lane_blackhole}


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
                    assert run(*values, *units) == semantics.value(*values, *constants, *units), \
                        (semantics.name, instruction, run.lines)
            if semantics.flags is not None:
                n_written = 0 if semantics.value is None else 1
                run = _specialised(semantics.flags, n_written + 1 + n_operands, constants)
                for row in rows:
                    values = [*row[8:8 + n_written], row[9] & 1, *row[:n_operands]]
                    assert run(*values) == semantics.flags(*values, *constants), \
                        (semantics.name, instruction, run.lines)


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
