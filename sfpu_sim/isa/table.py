"""A chip's instruction table: every family's records, Wormhole's, with Blackhole's delta applied
for Blackhole (the families are sfpu_sim.isa.{loadstore, lut, arith, fields, integer, cc, lanes,
convert, loadmacro}; each builds its records with sfpu_sim.isa.records)."""
from __future__ import annotations

import dataclasses

from sfpu_sim.isa import arith, cc, convert, fields, integer, lanes, loadmacro, loadstore, lut
from sfpu_sim.isa.spec import Opcode

FAMILIES = (loadstore, lut, arith, fields, integer, cc, lanes, convert, loadmacro)


def table(chip: str) -> dict[str, Opcode]:
    """Every SFPU instruction as ``chip`` ("wormhole" or "blackhole") has it, in opcode order:
    the families' Wormhole records, with Blackhole's delta applied for Blackhole."""
    records = {}
    for family in FAMILIES:
        for record in family.RECORDS:
            records[record.mnemonic] = record
        if chip == "blackhole":
            for mnemonic, change in family.BLACKHOLE.items():
                records[mnemonic] = change if isinstance(change, Opcode) else \
                    dataclasses.replace(records[mnemonic], **change)
    return dict(sorted(records.items(), key=lambda item: item[1].opcode))
