"""How bit patterns are shown to people: hex, FP32 value, BF16 view. Shared by the CLI, traces
and reports so that every place prints a value the same way."""
from __future__ import annotations

import numpy as np

from sfpu_sim import formats


def fp32_text(bits: int) -> str:
    """The FP32 value of a pattern, shortest text that reads back to the same float."""
    value = float(formats.bits_to_fp32(np.uint32(bits)))
    if np.isnan(value):
        return "-nan" if bits >> 31 else "nan"
    if value == 0:
        return "-0" if bits >> 31 else "0"
    return repr(np.float32(value)).removeprefix("np.float32(").removesuffix(")")


def bf16_text(bits16: int) -> str:
    return fp32_text(int(bits16) << 16)


def describe(bits: int) -> tuple[str, str, str]:
    """(hex, FP32 value, BF16 view) of a 32-bit LReg value. The BF16 view is the top half:
    what a truncating SFPSTORE to a BF16 Dst would keep (denormals show as themselves)."""
    bits = int(bits) & 0xFFFFFFFF
    return f"{bits:#010x}", fp32_text(bits), f"{bits >> 16:#06x} {bf16_text(bits >> 16)}"


def parse_value(text: str) -> int:
    """A 32-bit pattern from text: ``0x...`` bits, an integer, or a float literal (-> FP32,
    round to nearest), ``inf``/``-inf``/``nan`` included."""
    text = text.strip()
    lowered = text.lower()
    if lowered.startswith(("0x", "-0x", "0b")):
        return int(text, 0) & 0xFFFFFFFF
    try:
        return int(text) & 0xFFFFFFFF if lowered.lstrip("+-").isdigit() and \
            "." not in text else int(formats.fp32_to_bits(float(text)))
    except ValueError:
        raise ValueError(f"{text!r} is neither a number nor 0x-prefixed bits") from None


def render_registers(machine, lanes):
    """A rich table of LReg 0-15 in the given lanes (and the CC state)."""
    from rich.table import Table

    table = Table(title=f"LRegs after {machine.executed} instructions ({machine.arch.title})")
    for column in ("reg", "lane", "hex", "fp32", "bf16 (top half)"):
        table.add_column(column, no_wrap=True)
    for reg in range(16):
        for n, lane in enumerate(lanes):
            table.add_row(f"L{reg}" if n == 0 else "", str(lane),
                          *describe(machine.lreg[reg, lane]),
                          end_section=n == len(lanes) - 1 and len(lanes) > 1)
    flags = ", ".join(f"lane {lane}: {int(machine.cc.flags[lane])}" for lane in lanes)
    table.caption = (f"CC enable {int(machine.cc.enable)}, stack depth {machine.cc.depth}, "
                     f"flags {flags}")
    return table


def _change_text(change) -> tuple[str, str]:
    if change.width == 32:
        hex_before, value_before, _ = describe(change.before)
        hex_after, value_after, bf16_after = describe(change.after)
        return f"{hex_before} {value_before}", f"{hex_after} {value_after}  [bf16 {bf16_after}]"
    if change.width == 16:
        return f"{change.before:#06x}", f"{change.after:#06x}"
    return str(change.before), str(change.after)


def render_trace(trace):
    """A rich table: every instruction with what it changed in the traced lanes."""
    from rich.table import Table

    from sfpu_sim.asm import format_instruction

    table = Table(title=f"Trace of lanes {', '.join(map(str, trace.lanes))}")
    for column in ("#", "instruction", "lane", "what", "before", "after"):
        table.add_column(column)
    for step in trace.steps:
        text = format_instruction(step.instruction)
        if step.instruction.source:
            text += f"  ({step.instruction.source})"
        if not step.changes:
            table.add_row(str(step.index), text, "", "(no change)", "", "")
        for n, change in enumerate(step.changes):
            before, after = _change_text(change)
            table.add_row(str(step.index) if n == 0 else "", text if n == 0 else "",
                          "" if change.lane is None else str(change.lane), change.where,
                          before, after)
    return table
