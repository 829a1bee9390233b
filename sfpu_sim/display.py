"""How bit patterns are shown to people: hex, FP32 value, BF16 view; and how text a user wrote
(a kernel's provenance, a file name) is shown: control bytes made visible. Shared by the CLI,
traces and reports so that every place prints a value the same way."""
from __future__ import annotations

import re

import numpy as np

from sfpu_sim import formats

# C0 controls but tab and newline, DEL and the C1 controls: a terminal acts on them (ESC [ moves
# the cursor, recolours, clears the screen; CSI is C1's ESC [) instead of showing them.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROLS_AND_NEWLINES = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def printable(text: str, *, newlines: bool = True) -> str:
    """``text`` with every control character written as its escape (ESC as ``\\x1b``), so
    that it reaches a terminal or a Markdown file as characters to read, never as a command;
    ``newlines=False``: also newline (text that must stay on one line)."""
    controls = _CONTROLS if newlines else _CONTROLS_AND_NEWLINES
    return controls.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


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
