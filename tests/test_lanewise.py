"""One home per instruction: a lanewise instruction's record holds its Semantics, which the
Machine runs over its lanes and compiled programs call; neither engine keeps its own copy."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from sfpu_sim import compiled
from sfpu_sim.arch import ARCHES
from sfpu_sim.asm import assemble
from sfpu_sim.compiled.codegen import Translation
from sfpu_sim.isa import arith, exact, lanewise
from sfpu_sim.isa import records as rec
from sfpu_sim.isa.arith import SFPMAD
from sfpu_sim.isa.cc import SFPSETCC
from sfpu_sim.isa.lanewise import Semantics
from sfpu_sim.machine import Machine

# Instructions the code generator writes itself because it keeps their state its own way (the
# CC stack, SFPSWAP's two writes, SFPMOV's sources, SFPSHFT2's and SFPCONFIG's lane moves, Dst's
# cells); what they compute in a lane is sfpu_sim.isa's rules, specialised
# (tests/test_specialize.py checks them). SFPNOP computes nothing.
OWN_STATE = {"SFPLOAD", "SFPSTORE", "SFPMOV", "SFPSWAP", "SFPSHFT2", "SFPCONFIG", "SFPENCC",
             "SFPPUSHC", "SFPPOPC", "SFPCOMPC", "SFPGT", "SFPLE", "SFPNOP"}


def _records():
    for arch in ARCHES.values():
        yield from ((arch, op) for op in arch.opcodes.values())


def test_lanewise_records_have_no_second_implementation():
    for arch, op in _records():
        emitter = f"op_{op.mnemonic.replace('_', '')}"
        if isinstance(op.execute, Semantics):
            assert not hasattr(Translation, emitter), (arch.name, op.mnemonic)
        elif hasattr(Translation, emitter):
            assert op.mnemonic in OWN_STATE, (arch.name, op.mnemonic)


class _Lane:
    """One lane's operands as an exact rule reads them: every register holds ``values``'s."""
    def __init__(self, values: dict):
        self.values = values

    def twin(self, reg):
        value = exact.fp32_value(self.values[reg])
        return exact.Twin(value, value)


@pytest.mark.parametrize("arch", ["wormhole", "blackhole"])
def test_a_record_holds_definition_encoding_effects_exact_rule_and_cost(arch):
    """SFPMAD's record: its lanewise definition, encoding and modes, the registers it reads
    and writes, its exact rule (a*b + c without rounding) and its cost class."""
    op = ARCHES[arch].opcodes["SFPMAD"]
    assert op.execute is SFPMAD and op.shadow is arith.mad_exact
    assert op.opcode == 0x84 and op.mode_field == "mod1" and op.cost_class == rec.MAD_CLASS
    i = assemble("SFPMAD L4, L5, L6, L7, 0", arch)[0]
    assert (op.reads(i), op.writes(i)) == (frozenset({4, 5, 6}), frozenset({7}))
    third = 0x3EAAAAAB                                    # float32(1/3), not 1/3
    result = op.shadow(i, _Lane({4: third, 5: 0x40400000, 6: 0xBF800000}))
    assert result.kind == "exact" and result.value.shadow == exact.dyadic(1, -25)   # 3x - 1
    setcc = ARCHES[arch].opcodes["SFPSETCC"]
    assert setcc.execute is SFPSETCC and setcc.shadow is None    # flags: no real function


def test_semantics_pickle_by_reference():
    SFPMAD.value_scalar                      # compiled state must not travel
    assert pickle.loads(pickle.dumps(SFPMAD)) is SFPMAD
    assert pickle.loads(pickle.dumps(SFPSETCC)) is SFPSETCC


def test_a_programs_cache_key_covers_the_semantics_it_calls():
    m = Machine(ARCHES["wormhole"], lanes=32)
    program = assemble("SFPMAD L0, L1, L2, L3, 0\nSFPSETCC 0, L0, L0, 0", ARCHES["wormhole"])
    t = Translation(m, compiled._instructions(program, m), None)
    assert {s.name for s in t.semantics_used} == {"SFPMAD", "SFPSETCC"}
    files = {p.name for p in lanewise.imported_files(tuple(lanewise.source_files(
        t.semantics_used)))}
    assert {"arith.py", "cc.py", "lanewise.py", "fma.py"} <= files


@pytest.mark.parametrize("arch", ["wormhole", "blackhole"])
def test_sfpmad_one_definition_both_engines(arch):
    """SFPMAD's definition, run by the Machine's lane loop and inside a compiled program,
    gives the same bits as the chip's datapath on a few hard cases."""
    a = np.resize(np.array([0x3F800001, 0x7F7FFFFF, 0x00800000, 0x80000000], np.uint32), 32)
    b = np.resize(np.array([0x3F7FFFFF, 0x40000000, 0x3F000000, 0x00000000], np.uint32), 32)
    c = np.resize(np.array([0xBF800000, 0x7F7FFFFF, 0x80800000, 0x00000000], np.uint32), 32)
    want = ARCHES[arch].fma(a, b, c)
    m = Machine(ARCHES[arch], lanes=32)
    m.lreg[0], m.lreg[1], m.lreg[2] = a, b, c
    SFPMAD.execute(m, assemble("SFPMAD L0, L1, L2, L3, 0", ARCHES[arch])[0])
    assert m.lreg[3].tolist() == want.tolist()


def test_the_import_scan_finds_every_import_the_parser_finds():
    """Cache keys hash the files a definition imports (import_closure.imported_files), found by
    a pattern over each file's text: in every package module it must find at least what
    Python's own parser finds (a docstring line reading like an import may add more)."""
    import ast
    from pathlib import Path

    from sfpu_sim import import_closure

    package = Path(lanewise.__file__).resolve().parent.parent
    for path in sorted(package.rglob("*.py")):
        parsed = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                parsed |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                parsed |= {alias.name for alias in node.names}
        parsed = {name for name in parsed if name.startswith("sfpu_sim")}
        assert parsed <= set(import_closure._imports_of(path)), path
