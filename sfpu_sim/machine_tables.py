"""What a Machine holds and what a trace saw, as people read them: a value a user typed as a 32-bit
pattern (``--lreg``, ``--dst``), and rich tables of LRegs, Dst cells and a trace's changes,
each value written as :mod:`sfpu_sim.display` writes it. Used by ``run``, ``explain`` and
``trace``."""
from __future__ import annotations

from rich.table import Table

from sfpu_sim.asm import format_instruction
from sfpu_sim.bitfields import fields_text
from sfpu_sim.display import bf16_text, describe, fp32_text
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.machine import lreg_bits


def parse_value(text: str, integers: bool = True) -> int:
    """A 32-bit pattern from text: ``0x...``/``0b...`` bits, an integer (negative: two's
    complement), or a float literal (-> FP32, round to nearest), ``inf``/``-inf``/``nan``/
    ``-nan`` included. A number that does not fit 32 bits is refused, never wrapped. With
    ``integers=False`` a decimal literal is a float (``-2`` is -2.0), for cells that hold
    floats."""
    text = text.strip()
    lowered = text.lower()
    try:
        if lowered.lstrip("+-").startswith(("0x", "0b")) or \
                (integers and lowered.lstrip("+-").isdigit()):
            number = int(text, 0)
            if lowered.startswith(("0x", "0b")) and number >> 32:
                raise ValueError(f"{text!r} has more than 32 bits")
            return int(lreg_bits(number))
        return int(lreg_bits(float(text)))
    except ValueError as error:
        if "more than 32 bits" in str(error):
            raise
        raise ValueError(f"{text!r} is neither a number nor 0x-prefixed bits") from None
    except SfpuSimError as error:
        raise ValueError(str(error)) from None


def render_registers(machine, lanes):
    """A rich table of LReg 0-15 in the given lanes (and the CC state)."""
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


def render_dst(machine, addresses, lanes, fmt: str):
    """A rich table: for each Dst address, the cell each shown lane loads from there, as bits
    and value in the Dst format."""
    table = Table(title=f"Dst cells (format {fmt.upper()}) of lanes "
                        f"{', '.join(map(str, lanes))}")
    for column in ("address", "lane", "hex", "value"):
        table.add_column(column, no_wrap=True)
    for address in addresses:
        cells = machine.dst.read_lanes(address, fmt)
        for n, lane in enumerate(lanes):
            bits = int(cells[lane])
            text = bf16_text(bits) if fmt == "bf16" else fp32_text(bits)
            table.add_row(str(address) if n == 0 else "", str(lane),
                          f"{bits:#0{6 if fmt == 'bf16' else 10}x}", text)
    return table


def _change_text(change, bits: bool = False) -> tuple[str, str]:
    if change.fmt:                           # a Dst cell of one lane, in the Dst format
        show = bf16_text if change.fmt == "bf16" else fp32_text
        width = 6 if change.fmt == "bf16" else 10
        return (f"{change.before:#0{width}x} {show(change.before)}",
                f"{change.after:#0{width}x} {show(change.after)}" +
                (f"  [{fields_text(change.after, change.fmt)}]" if bits else ""))
    if change.width == 32:
        hex_before, value_before, _ = describe(change.before)
        hex_after, value_after, bf16_after = describe(change.after)
        view = f"  [{fields_text(change.after, 'fp32')}]" if bits else f"  [bf16 {bf16_after}]"
        return f"{hex_before} {value_before}", f"{hex_after} {value_after}{view}"
    if change.width == 16:
        return f"{change.before:#06x}", f"{change.after:#06x}"
    return str(change.before), str(change.after)


def render_trace(trace, bits: bool = False):
    """A rich table: every instruction with what it changed in the traced lanes; ``bits``
    adds the sign|exponent|mantissa bits of every new value."""
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
            before, after = _change_text(change, bits)
            table.add_row(str(step.index) if n == 0 else "", text if n == 0 else "",
                          "" if change.lane is None else str(change.lane), change.where,
                          before, after)
    return table
