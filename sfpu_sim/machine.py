"""The SFPU machine state and the executor of instructions.

Owns: LRegs, per-lane predication (CC flags, CC enable, CC stack), LaneConfig, Dst with its
16- and 32-bit views, the Dst address counter (RWC) and its AddrMod increments, the
configuration bits the SFPU reads, the SFPLOADMACRO state, the PRNG; executing an instruction
and applying lane enable in one place. Knows nothing of what a kernel computes.

A step executes one instruction and its writes land at once, except while SFPLOADMACRO work is
in flight: then a step is a cycle of :mod:`sfpu_sim.macro` (scheduled instructions beside it).

Lanes are a numpy axis. ``Machine(arch, lanes)`` with ``lanes`` a multiple of 32 is a batch of
``lanes // 32`` independent SFPUs running the same program in lockstep; cross-lane
instructions act within each 32-lane group. State layout follows tt-isa-documentation
``LReg.md``, ``Dst.md``, ``VectorUnit.md``, ``RWCs.md``, ``SFPCONFIG.md`` and ``SFPLOADMACRO.md``.
"""
from __future__ import annotations

import weakref

import re
import warnings
from dataclasses import dataclass, field

import numpy as np

from sfpu_sim import dst_moves, formats
from sfpu_sim.arch import Arch, get_arch
from sfpu_sim.asm import decode
from sfpu_sim.isa import cc as cc_isa
from sfpu_sim.isa import lanewise, loadmacro
from sfpu_sim.isa.spec import (  # noqa: F401 (HazardError, HazardWarning: machine's API too)
    DISABLE_BACKDOOR_LOAD,
    ROW_MASK_SHIFT,
    HazardError,
    HazardWarning,
    Instruction,
    IsaError,
    NotOnChip,
    Program,
    ProgramWarning,
    UndefinedBehaviour,
    Unsupported,
)
from sfpu_sim.macro import Sequencer
from sfpu_sim.trace import Trace

LANES_PER_SFPU = 32
# A Machine's state is ~113 bytes per lane plus Dst (2 bytes x 16 columns x rows per 32 lanes);
# past this budget it is refused up front rather than failing inside numpy.
MAX_STATE_BYTES = 4 << 30
STATE_BYTES_PER_LANE = 113


class CCDisabledWarning(ProgramWarning):
    """An instruction writes lane flags while CC is disabled (SFPENCC has not enabled it)."""


LREG_INT_RANGE = (-(1 << 31), (1 << 32) - 1)


def lreg_bits(value) -> np.ndarray:
    """What assigning ``value`` to LRegs stores, as ``--lreg`` reads it: floats their FP32 bits
    (rounded to nearest); integers as 32-bit patterns (negative ones two's complement); anything
    that does not fit is refused, never wrapped."""
    array = np.asarray(value)
    if array.dtype == np.uint32:
        return array
    if array.dtype.kind == "f":
        with np.errstate(over="ignore"):                  # beyond FP32: +-Inf, as rounding does
            return formats.fp32_to_bits(array.astype(np.float32))
    if array.dtype.kind in "iub":
        wide = array.astype(np.int64) if array.dtype != np.uint64 else array
        low, high = LREG_INT_RANGE
        if wide.size and (int(wide.min()) < low or int(wide.max()) > high):
            bad = wide[(wide < low) | (wide > high)].flat[0]
            raise IsaError(f"LReg value {int(bad)} does not fit 32 bits (integers "
                           f"{low}..{high}, or a float for its FP32 bits)")
        return (wide & 0xFFFFFFFF).astype(np.uint32)
    raise IsaError(f"LReg values are 32-bit patterns, integers or floats; got "
                   f"{array.dtype} ({value!r:.40})")


class LRegFile(np.ndarray):
    """LReg 0-15 x lanes (uint32). Assignments go through :func:`lreg_bits`: ``m.lreg[0] =
    1.5`` stores 0x3fc00000, ``m.lreg[0] = 2**40`` is an error."""

    def __setitem__(self, index, value) -> None:
        super().__setitem__(index, lreg_bits(value))


@dataclass
class AddrMod:
    """One ADDR_MOD slot as far as it moves the Dst counter (RWCs.md ApplyAddrMod)."""
    dst_incr: int = 0
    dst_clear: bool = False
    dst_cr: bool = False          # carriage return: Dst_Cr += incr; Dst = Dst_Cr
    dst_c_to_cr: bool = False     # Dst += incr; Dst_Cr = Dst


@dataclass
class Config:
    """Configuration registers the SFPU reads (defaults: those of the golden vectors)."""
    sfpu_fp32: bool = False           # ALU_ACC_CTRL_SFPU_Fp32_enabled
    srcb_format: str = "fp32"         # SrcB data format resolving SFPLOAD/SFPSTORE mode 0
    dest_target_offset: int = 0       # ThreadConfig DEST_TARGET_REG_CFG_MATH_Offset
    dest_regw_base: int = 0           # DEST_REGW_BASE_Base
    dest_sp_base: int = 0             # DEST_SP_BASE_Base (Blackhole)
    sfpu_stack_incr: int = 0          # ThreadConfig SFPU_STACK_Incr (Blackhole)
    addr_mod_set_base: bool = False   # ADDR_MOD_SET_Base: AddrMod index += 4
    addr_mods: list = field(default_factory=lambda: [AddrMod() for _ in range(8)])
    dest_remap_addrs: bool = False    # Blackhole DEST_ACCESS_CFG_remap_addrs
    dest_swizzle_32b: bool = False    # Blackhole DEST_ACCESS_CFG_swizzle_32b


@dataclass
class RWC:
    """The Dst (and Blackhole stack pointer) read/write counters of the thread."""
    dst: int = 0
    dst_cr: int = 0
    sp: int = 0
    extra_addr_mod_bit: int = 0


class CC:
    """Predication state: ``flags`` (LaneFlags, one bool per lane), ``enable``
    (UseLaneFlagsForLaneEnable; every writer sets it for all lanes at once, so it is one bool)
    and the CC stack of (flags, enable) pairs, ``depth`` entries deep (at most the chip's
    ``cc_stack_depth``)."""

    def __init__(self, lanes: int, depth: int):
        self.flags = np.zeros(lanes, dtype=bool)
        self.max_depth = depth
        self.enable = False
        self.stack: list[tuple[np.ndarray, bool]] = []

    @property
    def depth(self) -> int:
        return len(self.stack)

    def push(self, flags: np.ndarray, enable: bool) -> None:
        if len(self.stack) >= self.max_depth:
            raise UndefinedBehaviour(f"SFPPUSHC onto a full CC stack ({self.max_depth} entries)")
        self.stack.append((flags.copy(), enable))


class Dst:
    """The destination register file: 1024 rows x 16 columns of 16-bit cells per SFPU.

    ``bits[group, row, column]`` is physical storage. The 16-bit view ``Dst16b[r][c]`` is the
    cell at ``adj16(r)``; the 32-bit view ``Dst32b[r][c]`` keeps its high half at
    ``adj32(r)`` and its low half 8 rows further (Dst.md). Values sit in Dst's shuffled layout
    (exponent in the low bits, see :mod:`sfpu_sim.formats`)."""

    COLUMNS = 16

    def __init__(self, groups: int, rows: int, machine: "Machine"):
        self.bits = np.zeros((groups, rows, self.COLUMNS), dtype=np.uint16)
        self.rows = rows
        # Weak: the Machine owns its Dst, and a strong reference back would make the pair a
        # reference cycle, whose lane arrays only the cyclic collector frees.
        self._machine = weakref.proxy(machine)

    # Row address adjustment (Blackhole's optional remap/swizzle are configuration bits)
    def adj16(self, row):
        row = np.asarray(row) & 0x3FF
        if self._machine.config.dest_remap_addrs:
            row = (row & 0x3C7) ^ ((row & 0x030) >> 1) ^ ((row & 0x008) << 2)
        return row

    def adj32(self, row):
        row = self.adj16(row)
        if self._machine.config.dest_swizzle_32b:
            row = (row & 0x3F3) ^ ((row & 0x018) >> 1) ^ ((row & 0x004) << 1)
        return ((row & 0x1F8) << 1) | (row & 0x207)

    def _check_rows(self, physical) -> None:
        if np.any(np.asarray(physical) >= self.rows):
            raise UndefinedBehaviour(
                f"Dst row {int(np.max(physical))} is beyond this machine's {self.rows} rows "
                f"(create the Machine with dst_rows=1024 for full Dst)")

    def read16(self, rows, cols, groups=slice(None)):
        physical = self.adj16(rows)
        self._check_rows(physical)
        return self.bits[groups, physical, cols].astype(np.uint32)

    def read32(self, rows, cols, groups=slice(None)):
        high = self.adj32(rows)
        self._check_rows(high + 8)
        return (self.bits[groups, high, cols].astype(np.uint32) << 16) | \
            self.bits[groups, high + 8, cols].astype(np.uint32)

    def write16(self, rows, cols, values, groups=slice(None)):
        physical = self.adj16(rows)
        self._check_rows(physical)
        self.bits[groups, physical, cols] = np.asarray(values, dtype=np.uint32).astype(np.uint16)

    def write32(self, rows, cols, values, groups=slice(None)):
        high = self.adj32(rows)
        self._check_rows(high + 8)
        values = np.asarray(values, dtype=np.uint32)
        self.bits[groups, high, cols] = (values >> 16).astype(np.uint16)
        self.bits[groups, high + 8, cols] = (values & 0xFFFF).astype(np.uint16)

    # Public raw access: raw Dst storage bits (Dst.md's Dst16b / Dst32b), the layout of ttsim
    # v1.10.0's golden vectors (tests/data/vectors/README.md)
    def write_raw(self, row, col, bits, width: int = 16, group=slice(None)) -> None:
        """Store raw cell contents (already in Dst layout) at ``Dst16b``/``Dst32b[row][col]``;
        row, col and bits broadcast together, across the selected groups (default all)."""
        (self.write16 if width == 16 else self.write32)(row, col, bits, group)

    def read_raw(self, row, col, width: int = 16, group: int = 0) -> np.ndarray:
        """Raw cell contents at ``Dst16b``/``Dst32b[row][col]`` of one group (uint32)."""
        return (self.read16 if width == 16 else self.read32)(row, col, group)

    # One value per lane, where an SFPLOAD/SFPSTORE at ``addr`` finds it (sweeps use these)
    def lane_cells(self, addr: int, column_exchange: int = 0):
        """Dst row, column and SFPU (32-lane group) of every lane for an SFPLOAD/SFPSTORE at
        ``addr``: row ``(addr & ~3) + grid row``, column ``2 * grid column``, plus 1 when
        ``addr`` bit 1 is set or the column's row-0 lane has the LaneConfig bit
        ``column_exchange``. Three arrays of shape (lanes,)."""
        m = self._machine
        lane = m.lane_id
        rows = np.uint32(addr & ~3) + lane // np.uint32(8)
        odd = ((addr >> 1) & 1) | ((m.column_config() & column_exchange) != 0)
        cols = np.uint32(2) * (lane % np.uint32(8)) + odd.astype(np.uint32)
        groups = np.arange(m.lanes, dtype=np.uint32) // np.uint32(LANES_PER_SFPU)
        return rows, cols, groups

    def write_lanes(self, addr: int, bits, fmt: str) -> None:
        """Store one standard-layout pattern per lane (``bits`` has one entry per lane of the
        machine) in ``fmt`` at the cell lane ``l`` of each SFPU loads from at ``addr``."""
        width = _DST_WIDTHS[fmt]
        rows, cols = self._grid_cells(addr, width)
        values = np.ascontiguousarray(bits, dtype=np.uint32 if width == 32 else
                                      np.uint16).reshape(-1)
        if values.size != self.bits.shape[0] * LANES_PER_SFPU:
            raise ValueError(f"write_lanes: {values.size} values for "
                             f"{self.bits.shape[0] * LANES_PER_SFPU} lanes")
        cells, at = self._flat_cells(rows, cols)
        if width == 32:
            dst_moves.write_32bit(cells, values, *at)
        else:
            dst_moves.write_16bit(cells, values, at[0], fmt == "fp16")

    def read_lanes(self, addr: int, fmt: str, to_bf16: bool = False) -> np.ndarray:
        """Inverse of :meth:`write_lanes`: one standard-layout pattern per lane; with
        ``to_bf16`` (fmt "fp32"), each through the packer's rounding to BF16
        (:func:`sfpu_sim.dst_moves.read_32bit`)."""
        width = _DST_WIDTHS[fmt]
        rows, cols = self._grid_cells(addr, width)
        lanes = self.bits.shape[0] * LANES_PER_SFPU
        cells, at = self._flat_cells(rows, cols)
        if width == 32:
            out = np.empty(lanes, dtype=np.uint16 if to_bf16 else np.uint32)
            dst_moves.read_32bit(cells, *at, out, to_bf16)
        else:
            out = np.empty(lanes, dtype=np.uint16)
            dst_moves.read_16bit(cells, at[0], fmt == "fp16", out)
        return out

    def _flat_cells(self, rows, cols):
        """(cells as SFPUs x cells, a view; each half's lane offsets in them)."""
        cells = self.bits.reshape(self.bits.shape[0], -1)
        return cells, [dst_moves.lane_offsets(r, cols, self.COLUMNS) for r in rows]

    def _grid_cells(self, addr: int, width: int):
        """:meth:`lane_cells` without column exchange, as a grid: lane ``8r + c`` of every
        SFPU at grid row ``r`` of each half's physical rows (4 rows; 32-bit values keep their
        low half 8 rows further) and column ``cols[c]``; index arrays for
        :mod:`sfpu_sim.dst_moves`."""
        rows = np.uint32(addr & ~3) + np.arange(4, dtype=np.uint32)
        high = self.adj16(rows) if width == 16 else self.adj32(rows)
        physical = [high] if width == 16 else [high, high + 8]
        self._check_rows(physical[-1])
        return ([np.asarray(p, dtype=np.int64) for p in physical],
                np.arange((addr >> 1) & 1, self.COLUMNS, 2, dtype=np.int64))


# Lane moves go through sfpu_sim.dst_moves (loadstore's shuffles, compiled with the moves).
_DST_WIDTHS = {"bf16": 16, "fp16": 16, "fp32": 32, "int32": 32}


class LoadMacroState:
    """Per-lane SFPLOADMACRO configuration (SFPLOADMACRO.md), written by SFPCONFIG and by
    the VD >= 12 "backdoor"; readable through SFPMOV's special sources; read by SFPLOADMACRO
    (:mod:`sfpu_sim.isa.loadmacro`)."""

    def __init__(self, lanes: int):
        self.templates = np.zeros((4, lanes), dtype=np.uint32)
        self.sequence = np.zeros((4, lanes), dtype=np.uint32)
        self.misc = np.zeros(lanes, dtype=np.uint32)


class Machine:
    """A batch of SFPUs of one chip. See the module docstring.

    Public state: ``lreg`` (uint32, 16 x lanes; rows assignable, constants included),
    ``lreg_macro`` (LReg[16], the SFPLOADMACRO scratch), ``cc`` (:class:`CC`), ``dst``
    (:class:`Dst`), ``config`` (:class:`Config`), ``rwc`` (:class:`RWC`), ``lane_config``
    (uint32 per lane), ``loadmacro`` (:class:`LoadMacroState`), ``prng`` (uint32 per lane).
    """

    def __init__(self, arch: str | Arch, lanes: int = LANES_PER_SFPU, dst_rows: int = 1024,
                 strict: bool = False):
        if not isinstance(lanes, (int, np.integer)) or lanes <= 0 or lanes % LANES_PER_SFPU:
            raise IsaError(f"lanes must be a positive multiple of 32, got {lanes}")
        if not 16 <= dst_rows <= 1024:
            raise IsaError(f"dst_rows must lie in 16..1024, got {dst_rows}")
        needed = int(lanes) * (STATE_BYTES_PER_LANE + dst_rows)
        if needed > MAX_STATE_BYTES:
            most = MAX_STATE_BYTES // (STATE_BYTES_PER_LANE + dst_rows) // 32 * 32
            raise IsaError(f"{lanes:,} lanes with {dst_rows} Dst rows need "
                           f"{needed / (1 << 30):,.1f} GiB of state; the limit is "
                           f"{MAX_STATE_BYTES >> 30} GiB ({most:,} lanes at {dst_rows} rows)")
        self.arch = get_arch(arch) if isinstance(arch, str) else arch
        self.lanes = lanes
        self.groups = lanes // LANES_PER_SFPU
        self.dst_rows = dst_rows
        self.strict = strict
        self.reset()

    # ----------------------------------------------------------------------------------------
    def reset(self) -> None:
        """Power-on-like state: general LRegs, flags, Dst and counters zero; constants at the
        chip's reset values; PRNG state zero (ttsim's reset value; hardware seeds it)."""
        lanes = self.lanes
        self.lreg = np.zeros((16, lanes), dtype=np.uint32).view(LRegFile)
        registers = self.lreg.view(np.ndarray)            # the chip's own values: no checks
        for index, value in self.arch.constant_lregs.items():
            registers[index] = value
        registers[15] = self.lane_id * 2
        self.lreg_macro = np.zeros(lanes, dtype=np.uint32)
        self.cc = CC(lanes, self.arch.cc_stack_depth)
        self.dst = Dst(self.groups, self.dst_rows, self)
        self.config = Config()
        self.rwc = RWC()
        self.lane_config = np.zeros(lanes, dtype=np.uint32)
        self.loadmacro = LoadMacroState(lanes)
        self.macros = Sequencer(self)
        self.prng = np.zeros(lanes, dtype=np.uint32)
        self.shft2_last_rotate = None     # Wormhole SFPSHFT2 SHFLSHR1 reads it (see isa.lanes)
        self.previous: Instruction | None = None
        self._previous_captured = False
        self.last_ran: Instruction | None = None    # the last issued one that acted somewhere
        self.executed = 0
        self.trace: Trace | None = None
        self.store_watch = None            # sees every SFPSTORE (sweeps.StoreWatch)
        self.active = np.ones(lanes, dtype=bool)
        self._sink: list | None = None    # the cycle engine collects LReg writes here
        self._enabled = None

    @property
    def lane_id(self) -> np.ndarray:
        """Lane number within its 32-lane SFPU (0..31) for every lane (read-only; computed once:
        sweeps ask for it on every Dst access)."""
        if getattr(self, "_lane_id", None) is None or self._lane_id.size != self.lanes:
            self._lane_id = np.arange(self.lanes, dtype=np.uint32) % np.uint32(LANES_PER_SFPU)
            self._lane_id.flags.writeable = False
        return self._lane_id

    # ----------------------------------------------------------------------------------------
    # Lane views used by instructions
    def column_config(self) -> np.ndarray:
        """LaneConfig of the grid-row-0 lane in each lane's column (lane % 8 of its group)."""
        row0 = self.lane_config.reshape(self.groups, 4, 8)[:, :1, :]
        return np.broadcast_to(row0, (self.groups, 4, 8)).reshape(-1)

    def row_masked(self) -> np.ndarray:
        """Lanes disabled by LaneConfig ROW_MASK (bit = grid row, read from the column's
        row-0 lane)."""
        if not self.lane_config.any():
            return np.zeros(self.lanes, dtype=bool)
        row0 = self.lane_config.reshape(self.groups, 4, 8)[:, :1, :]
        grid_row = np.arange(4, dtype=np.uint32).reshape(1, 4, 1)
        return ((row0 >> (ROW_MASK_SHIFT + grid_row)) & 1).astype(bool).reshape(-1)

    def lane_enabled(self) -> np.ndarray:
        """LaneEnabled per lane (VectorUnit.md), restricted to the lanes the current
        instruction acts in at all (the VD >= 12 backdoor, see :meth:`step`)."""
        enabled = self.active & ~self.row_masked()
        return enabled & self.cc.flags if self.cc.enable else enabled

    @property
    def enabled(self) -> np.ndarray:
        """The lanes the current instruction is enabled in, as it began (:meth:`step` takes
        this snapshot once; instructions read it here and never work it out themselves)."""
        return self._enabled if self._enabled is not None else self.lane_enabled()

    # ----------------------------------------------------------------------------------------
    # Writes: the one place where lane enable and register writability are applied
    def write(self, vd, values, lanes=None) -> None:
        """``LReg[vd] = values`` in ``lanes`` (default: the enabled lanes).

        ``vd`` is a register index or a per-lane array of indices (indirect addressing).
        Only LReg 0-7 and 16 are writable; other targets are silently not written, as on
        the hardware. In a cycle of the SFPLOADMACRO engine the write lands at the end of the
        cycle (:mod:`sfpu_sim.macro`)."""
        lanes = self.enabled if lanes is None else lanes
        values = np.broadcast_to(np.asarray(values, dtype=np.uint32), (self.lanes,))
        if self._sink is not None:
            self._sink.append((np.array(vd, copy=True), values.copy(),
                               np.array(np.broadcast_to(lanes, (self.lanes,)), dtype=bool)))
            return
        self.land(vd, values, lanes)

    def land(self, vd, values, lanes) -> None:
        """Apply an LReg write now (:meth:`write` without the cycle engine)."""
        if np.ndim(vd) == 0:
            vd = int(vd)
            if vd < 8:
                np.copyto(self.lreg[vd], values, where=lanes)
            elif vd == 16:
                np.copyto(self.lreg_macro, values, where=lanes)
            return
        for target in range(8):
            np.copyto(self.lreg[target], values, where=lanes & (vd == target))

    def set_flags(self, values, lanes=None) -> None:
        """LaneFlags = values in ``lanes`` (default: the enabled lanes)."""
        lanes = self.enabled if lanes is None else lanes
        np.copyto(self.cc.flags, np.asarray(values, dtype=bool), where=lanes)

    def read(self, index) -> np.ndarray:
        """LReg[index] for an index or a per-lane index array (indirect); 16 is LReg[16]."""
        if np.ndim(index) == 0:
            return self.lreg_macro if int(index) == 16 else self.lreg[int(index)]
        return np.take_along_axis(self.lreg, np.asarray(index, dtype=np.intp)[None], 0)[0]

    def advance_prng(self, lanes) -> np.ndarray:
        """Each lane in ``lanes`` returns its PRNG state and steps its LFSR (taps 31, 21, 1,
        0: :func:`~sfpu_sim.isa.lanewise.prng_step`); other lanes return their state unchanged."""
        current = self.prng.copy()
        np.copyto(self.prng, lanewise.lanes(lanewise.prng_step, current), where=lanes)
        return current

    # ----------------------------------------------------------------------------------------
    # The Dst counter (RWCs.md) as SFPLOAD/SFPSTORE move it
    def addr_mod_slot(self, addr_mod: int, mnemonic: str) -> AddrMod:
        """The ADDR_MOD slot an AddrMod field selects: field + 4 with ``ADDR_MOD_SET_Base`` or
        the ExtraAddrModBit (RWCs.md). Checked before the instruction has any effect."""
        index = addr_mod + (4 if self.config.addr_mod_set_base or self.rwc.extra_addr_mod_bit
                            else 0)
        if index >= len(self.config.addr_mods):
            raise Unsupported(f"{mnemonic} AddrMod {addr_mod} with the +4 AddrMod base selects "
                              f"slot {index}, which does not exist (undocumented for 3-bit "
                              f"AddrMod)")
        return self.config.addr_mods[index]

    def apply_partial_addr_mod(self, slot: AddrMod) -> None:
        """RWCs.md ``ApplyPartialAddrMod`` on the Dst counters (SrcA/SrcB counters are not
        modelled; FidelityPhase is untouched by SFPU instructions): clear, or increment Dst and
        copy it to Dst_Cr, or increment Dst_Cr and copy it to Dst, or increment Dst; 10 bits."""
        rwc, incr = self.rwc, slot.dst_incr
        if slot.dst_clear:
            rwc.dst = rwc.dst_cr = 0
        elif slot.dst_c_to_cr:
            rwc.dst = rwc.dst_cr = (rwc.dst + incr) & 0x3FF
        elif slot.dst_cr:
            rwc.dst = rwc.dst_cr = (rwc.dst_cr + incr) & 0x3FF
        else:
            rwc.dst = (rwc.dst + incr) & 0x3FF

    # ----------------------------------------------------------------------------------------
    def group_view(self, array: np.ndarray) -> np.ndarray:
        """A per-lane array viewed as (groups, 4 grid rows, 8 grid columns)."""
        return array.reshape(self.groups, 4, 8)

    # ----------------------------------------------------------------------------------------
    def decode(self, word: int) -> Instruction:
        """A 32-bit word as an instruction of this machine's chip (SFPLOADMACRO's templates are
        words too: the ISA layer decodes them through here, not through the assembler)."""
        return decode(word, self.arch)

    def step(self, instruction: Instruction | int) -> None:
        """Execute one instruction (an :class:`Instruction` or a 32-bit word)."""
        if not isinstance(instruction, Instruction):
            instruction = self.decode(int(instruction))
        op = instruction.op
        if self.arch.opcodes.get(op.mnemonic) is not op:
            raise NotOnChip(f"{op.mnemonic} as decoded is not the {self.arch.name} instruction")
        captured = self._captured(instruction)
        if not captured:
            self._check_hazard(instruction)
        self._check_cc_disabled(instruction)
        before = self.trace.snapshot(self) if self.trace is not None else None
        if self.macros.busy:
            self.macros.run_cycle(instruction)
        else:
            self.execute_issued(instruction)
            self.last_ran = None if captured else instruction
        if before is not None:
            self.trace.record(self.executed, instruction, before, self.trace.snapshot(self))
        self.previous, self._previous_captured = instruction, captured
        self.executed += 1

    def stored(self, address: int, source, lanes) -> None:
        """An SFPSTORE (issued or scheduled) stored ``source`` at ``address`` in ``lanes``:
        told to ``store_watch`` (``see(address, source, lanes)``) if one is set."""
        if self.store_watch is not None:
            self.store_watch.see(address, source, lanes)

    def record(self, lanes, dst_addresses=None) -> Trace:
        """Start recording, for the given lanes, every instruction executed from now on and
        what it changed (registers, flags, CC state; Dst as those lanes' values at
        ``dst_addresses``, or as raw cells of their SFPUs)."""
        self.trace = Trace(self, lanes, dst_addresses)
        return self.trace

    def run(self, program: Program | list, drain: bool = True) -> "Machine":
        """Execute a program (a :class:`Program`, instructions or words) in order, then (unless
        the program goes on later) :meth:`drain`."""
        for instruction in program:
            self.step(instruction)
        if drain:
            self.drain()
        return self

    def drain(self) -> None:
        """Let cycles pass without issuing until SFPLOADMACRO work has finished, except for
        scheduled instructions that count issued instructions: those stay in
        ``macros.pending`` for the next step (none without SFPLOADMACRO)."""
        if self.macros.busy:
            self.macros.drain()

    def execute_issued(self, instruction: Instruction) -> None:
        """Execute an issued instruction in the lanes the backdoor leaves it (lane enable
        snapshotted once, as it begins)."""
        self.active = self._backdoor(instruction)
        self._enabled = self.lane_enabled()
        try:
            instruction.op.execute(self, instruction)
        finally:
            self.active = np.ones(self.lanes, dtype=bool)
            self._enabled = None

    def execute_scheduled(self, instruction: Instruction, address: int | None) -> None:
        """Execute an instruction SFPLOADMACRO scheduled (no backdoor; see
        :func:`sfpu_sim.isa.loadmacro.execute_scheduled`)."""
        self._enabled = self.lane_enabled()
        try:
            loadmacro.execute_scheduled(self, instruction, address)
        finally:
            self._enabled = None

    def ran(self, instruction: Instruction | None) -> None:
        """Note the issued instruction of the cycle that just ended (None: none, or
        discarded), for the stall rules of the cycle engine."""
        captured = instruction is not None and self._captured(instruction)
        self.last_ran = None if captured else instruction

    # ----------------------------------------------------------------------------------------
    def _captured(self, instruction: Instruction) -> bool:
        """Whether the VD >= 12 backdoor captures the instruction in every lane (it then reads
        and writes no register)."""
        vd = instruction.values.get("vd")
        return (vd is not None and vd >= 12 and instruction.op.backdoor
                and not (self.lane_config & DISABLE_BACKDOOR_LOAD).any())

    def _backdoor(self, instruction: Instruction) -> np.ndarray:
        """Lanes the instruction acts in. With VD >= 12 and DISABLE_BACKDOOR_LOAD clear, a
        lane instead captures the instruction word as LoadMacro template VD - 12
        (SFPCONFIG.md's DISABLE_BACKDOOR_LOAD; applied to every instruction with a VD field
        except the loads, whose pages say they have no backdoor)."""
        vd = instruction.values.get("vd")
        if vd is None or vd < 12 or not instruction.op.backdoor:
            return np.ones(self.lanes, dtype=bool)
        capture = (self.lane_config & DISABLE_BACKDOOR_LOAD) == 0
        np.copyto(self.loadmacro.templates[vd - 12], np.uint32(instruction.word), where=capture)
        return ~capture

    def _check_cc_disabled(self, instruction: Instruction) -> None:
        if not self.cc.enable and cc_isa.sets_lane_flags(instruction):
            where = f" at {instruction.source}" if instruction.source else ""
            kind = (f"{instruction.mnemonic} writes lane flags while CC is disabled (nothing "
                    f"is predicated until SFPENCC enables it; SFPSETCC clears every flag)")
            warnings.warn(CCDisabledWarning(f"instruction {self.executed} ({instruction.mnemonic}"
                                            f"{where}): {kind}", kind, self.executed,
                                            instruction.source or ""), stacklevel=3)

    def _check_hazard(self, instruction: Instruction) -> None:
        if self.previous is None or self._previous_captured:
            return
        problem = self.arch.hazard(self.previous, instruction)
        if problem is None:
            return
        message = (f"hazard at instruction {self.executed} ({instruction.mnemonic}"
                   f"{' at ' + instruction.source if instruction.source else ''}): {problem}")
        if self.strict:
            raise HazardError(message)
        kind = "hazard: " + re.sub(r"\bL\d+\b(, L\d+\b)*", "a register", problem)
        warnings.warn(HazardWarning(message, kind, self.executed,
                                    instruction.source or ""), stacklevel=3)

