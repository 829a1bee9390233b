"""Bit-exact models of the multiply-add ``x*y + z`` of the SFPU, one per chip, plus IEEE 754.

Owns: the arithmetic of SFPMAD and every instruction built on it (SFPADD, SFPMUL, SFPADDI,
SFPMULI, SFPLUT, SFPLUTFP32). Knows nothing of registers, lanes or instructions.

Behaviour follows Tenstorrent's bit-perfect reference models described in
tt-isa-documentation ``Miscellaneous/FMA/README.md`` (fma.c, 2025-08/09 revision, commit
06c5af5b). The three models share one datapath, written once here; what differs between them
is data (:class:`FmaRules`):

* ``ieee``: a true fused multiply-add, round to nearest even, gradual underflow, canonical
  NaN ``0x7FC00000``.
* ``blackhole``: denormal inputs read as signed zero; the 48-bit product is *narrowed* to
  24 + 1 + 3 bits (top bit, fraction, guard/round/sticky) before the add, instead of the addend
  being widened; a product that overflows (or underflows) on its own is Inf (or exactly 0);
  alignment shifts are "semi-sticky" (an operand shifted out entirely contributes nothing);
  denormal results flushed after rounding to signed zero; canonical NaN.
* ``wormhole``: as Blackhole, except every zero result is +0; NaN results keep at least
  ``0x7F800001`` and the datapath carries on, so further mantissa bits can leak into them; a
  finite product that overflows plus the opposite infinity is NaN; the final normalising right
  shift drops the higher of two shifted-out bits from the sticky bit (hardware bug); results
  whose exponent is below the denormal binade are flushed *before* rounding.

Speed: the per-lane datapath is full of data-dependent shifts, so it is compiled with numba into
array kernels (broadcasting, any shape), spread over threads for large arrays only
(:mod:`sfpu_sim.threads`). Measured alternatives and figures: ``python -m sfpu_sim.bench fma``
and the foundation issue's note.
"""
from __future__ import annotations

import contextlib
import functools
import threading
from typing import NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from sfpu_sim.jit import njit
from sfpu_sim.threads import parallel_for

__all__ = ["FmaRules", "IEEE", "BLACKHOLE", "WORMHOLE", "fma_ieee", "fma_blackhole", "fma_wormhole",
           "fma_model", "fma_with", "MODELS"]

SIGN = 0x80000000
CANONICAL_NAN = 0x7FC00000
WORMHOLE_NAN = 0x7F800001
INF = 0x7F800000
HIDDEN = 0x800000
FRACTION = 0x7FFFFF
GUARD_BITS = 3                # guard, round and sticky below the 24-bit significand
LEAD = 23 + GUARD_BITS        # bit index of the leading one of a normalised result


# How results below the normal range are handled (FmaRules.subnormal).
GRADUAL = 0               # IEEE denormals
FLUSH_AFTER_ROUNDING = 1  # Blackhole: round as if one binade below normal, then flush (signed)
FLUSH_EARLY = 2           # Wormhole: flush before rounding unless in the binade just below normal


class FmaRules(NamedTuple):
    """How one multiply-add datapath differs from the others.

    ``flush_inputs``: denormal inputs read as zero (else they are normalised, as IEEE requires).
    ``narrow_product``: the product is cut to 28 bits with a sticky bit before the add; a product
        that alone overflows is infinite and one that alone underflows is exactly zero.
        Otherwise the addend is widened to the product's 51 bits (exact fused add).
    ``semi_sticky``: an operand shifted right by more bits than it has contributes nothing (not
        even a sticky bit) when the two addends are aligned.
    ``leaky_nan``: NaN results are ``sign | 0x7F800001`` ORed with whatever the rest of the
        datapath computes (Wormhole); otherwise the canonical ``0x7FC00000``.
    ``signed_zero``: zero results follow IEEE sign rules; otherwise every zero is +0.
    ``overflowed_product_is_inf``: a finite product that overflows counts as infinite in the
        Inf - Inf test (so adding the opposite infinity gives NaN).
    ``subnormal``: GRADUAL, FLUSH_AFTER_ROUNDING or FLUSH_EARLY (constants above). Blackhole's
        flush has a quirk: however deep below the normal range the sum lies, it is shifted as if
        it were in the binade just below, so an all-ones significand there can round up to the
        smallest normal.
    ``sticky_bug``: the final normalising right shift of a narrowed sum leaves its highest
        shifted-out bit out of the sticky bit (Wormhole: that shift is at most 2, so only bit 0
        counts as sticky). A property of the narrowed datapath: without ``narrow_product``
        it has no effect.

    A NamedTuple so that the compiled datapath can fold each rule to a constant.
    """
    name: str
    flush_inputs: bool
    narrow_product: bool
    semi_sticky: bool
    leaky_nan: bool
    signed_zero: bool
    overflowed_product_is_inf: bool
    subnormal: int
    sticky_bug: bool


IEEE = FmaRules("ieee", flush_inputs=False, narrow_product=False, semi_sticky=False,
                leaky_nan=False, signed_zero=True, overflowed_product_is_inf=False,
                subnormal=GRADUAL, sticky_bug=False)
BLACKHOLE = FmaRules("blackhole", flush_inputs=True, narrow_product=True, semi_sticky=True,
                     leaky_nan=False, signed_zero=True, overflowed_product_is_inf=False,
                     subnormal=FLUSH_AFTER_ROUNDING, sticky_bug=False)
WORMHOLE = FmaRules("wormhole", flush_inputs=True, narrow_product=True, semi_sticky=True,
                    leaky_nan=True, signed_zero=False, overflowed_product_is_inf=True,
                    subnormal=FLUSH_EARLY, sticky_bug=True)


@intrinsic
def _leading_zeros64(typingctx, value):
    """Count of leading zero bits of an int64 (64 for zero): LLVM's ctlz, one instruction."""
    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.int64(types.int64), codegen


@numba.njit(inline="always")
def _bit_length(v):
    return 64 - _leading_zeros64(v)


@numba.njit(inline="always")
def _unpack(v, rules):
    """(biased exponent, significand with hidden bit) of an FP32 pattern, as int64.

    A denormal is read as zero (``flush_inputs``) or rescaled so that its leading one sits at
    bit 23, its exponent going to 0 or below."""
    e = (v >> 23) & 0xFF
    m = v & FRACTION
    if e != 0:
        return e, m | HIDDEN
    if rules.flush_inputs:
        return e, 0
    if m == 0:
        # Zero: the exponent the normaliser gives a fraction of 1. It decides the alignment of
        # an IEEE sum of zero and an underflowing product, so it must be exactly this value.
        return e - 22, m
    shift = 24 - _bit_length(m)
    return e + 1 - shift, m << shift


@numba.njit(inline="always")
def _align(m, by, semi_sticky):
    """Shift right by ``by >= 0`` bits, ORing what falls out into a sticky least significant bit.

    Semi-sticky: if nothing is left, nothing is left (no sticky bit either). Written without
    branches: lanes take either path at random, and a mispredicted branch costs more than the
    arithmetic of both."""
    by = min(by, 63)
    kept = m >> by
    lost = (kept << by) != m
    if semi_sticky:
        lost = lost & (kept != 0)
    return kept | lost


@numba.njit(inline="always")
def _datapath(x, y, z, rules):
    """x*y + z on raw FP32 patterns (int64 holding 32 bits) under ``rules``; see module doc."""
    narrow = rules.narrow_product
    xe, xm = _unpack(x, rules)
    ye, ym = _unpack(y, rules)
    ze, zm = _unpack(z, rules)
    z_sign = z & SIGN
    p_sign = (x ^ y) & SIGN
    pm = (xm * ym) << GUARD_BITS       # exact: at most 51 bits
    pe = xe + ye - 150                 # so that pm * 2**(pe - 153) is the product
    zm = zm << GUARD_BITS
    if narrow:
        # Cut the product to the addend's precision: 23 bits go, their OR is the sticky bit.
        pm = (pm >> 23) | ((pm & FRACTION) != 0)
        pe += 23

    # Infinities and NaNs in, or (narrowing datapaths) a product that overflows on its own.
    nan = 0
    if xe == 255 or ye == 255 or ze == 255 or (narrow and pe >= 255):
        x_invalid = xe == 255 and (xm != HIDDEN or ym == 0)       # NaN, or Inf * 0
        y_invalid = ye == 255 and (ym != HIDDEN or xm == 0)
        z_nan = ze == 255 and zm != (HIDDEN << GUARD_BITS)
        # (pe of the 28-bit narrowed product: a wide one's is 23 less)
        overflowed = pe + (0 if narrow else 23) >= 255
        product_inf = xe == 255 or ye == 255 or (rules.overflowed_product_is_inf and overflowed)
        inf_minus_inf = ze == 255 and not z_nan and product_inf and z_sign != p_sign
        if not rules.leaky_nan:
            if x_invalid or y_invalid or z_nan or inf_minus_inf:
                return CANONICAL_NAN
            return z if ze == 255 else p_sign | INF
        if x_invalid or y_invalid or inf_minus_inf:
            nan = p_sign | WORMHOLE_NAN
        elif z_nan:
            nan = z_sign | WORMHOLE_NAN
        else:
            return z if ze == 255 else p_sign | INF
        # Wormhole keeps computing with the NaN's operands; the result can only gain bits.
        pe = min(pe, 255)

    if not narrow:
        # Exact fused add: widen the addend to the product's 23 extra fraction bits instead.
        zm = zm << 23
        ze -= 23
    zero = (z_sign & p_sign) if rules.signed_zero else nan
    if pm == 0 or (narrow and pe < 0):
        if nan == 0:
            return z if zm != 0 else zero
        pm, pe = 0, 0

    # Align to the larger exponent and add magnitudes; the larger magnitude gives the sign.
    re = max(pe, ze)
    pm = _align(pm, re - pe, rules.semi_sticky)
    zm = _align(zm, re - ze, rules.semi_sticky)
    r_sign = p_sign if pm >= zm else z_sign
    rm = pm + zm if p_sign == z_sign else abs(pm - zm)
    if rm == 0:
        return zero

    # Normalise so that the leading one sits at bit 26, tracking the exponent.
    n = _bit_length(rm) - 1 - LEAD
    re += n
    if re >= 255:
        return nan if nan != 0 else r_sign | INF
    if re <= 0:
        if rules.subnormal == GRADUAL:
            n += 1 - re          # a true denormal: exponent field 0, significand shifted down
            re = 0
        elif rules.subnormal == FLUSH_AFTER_ROUNDING:
            n += 1               # one extra shift, whatever the depth (see FmaRules)
            re = 0
        elif re < 0:
            return nan
    # A narrowed sum shifts right by at most 2 (the sticky bug: of two shifted-out bits only
    # bit 0 counts), a wide (exact fused) one by up to 24, more into the denormals.
    left, right = max(-n, 0), min(max(n, 0), 63)
    rm = rm << left
    if rules.sticky_bug and narrow:
        rm = rm & ~(((1 << right) >> 1) & ~1)
    rm = _align(rm, right, False)

    # Round to nearest even on the three guard bits; a carry may bump the exponent.
    r = (re << 23) + ((rm >> GUARD_BITS) & FRACTION)
    r += (rm & 7) + (r & 1) > 4
    if r < HIDDEN and rules.subnormal != GRADUAL:
        return nan if rules.leaky_nan else r_sign
    return (nan if nan != 0 else r_sign) | r


# The multiply-add as a unit lanewise instruction definitions receive (sfpu_sim.isa.lanewise):
# the three models' one-lane datapaths, compiled once each (cached on disk) and called: numba's
# own inline='always' typed and lowered the whole datapath again in every lane loop of a
# multiply-add instruction (2-3 s each, cold), and LLVM's inlining of it with constant operands
# costs about as much. Other rules (sfpu_sim.determinism's platforms) and an unfused host's two
# roundings are one C callable reading its rules at run time (runtime_unit).
_UNIT_SIGNATURE = types.int64(types.int64, types.int64, types.int64)
_FIXED: set[str] = set()


def unit(name: str):
    """The datapath ``name`` (a value of :data:`LANE_FUNCTIONS`, or its ``_inlined`` form)
    compiled for int64 operands alone, as code calling it must find it. Otherwise a call with a
    constant operand (SFPADDI's 1.0, an immediate folded into a program) compiles the whole
    datapath again for that literal value, about 2 s each. Compiled on first use, not at import:
    a process whose programs all come from the disk cache never needs it."""
    dispatcher = globals()[name]
    if name not in _FIXED:
        dispatcher.compile(_UNIT_SIGNATURE.args)
        dispatcher.disable_compile()
        _FIXED.add(name)
    return dispatcher


@intrinsic
def _inline_into_callers(typingctx):
    """Marks the function that calls it ``alwaysinline`` for LLVM. Why: a called datapath has
    one set of branches for every multiply-add of a program, which the branch predictor cannot
    tell apart, and its constant operands are not folded; inlined, each call site gets its own
    (measured 1.3-1.4x on whole kernels). LLVM inlines when it links the callee into the
    caller, so compile time grows far less than with numba's own ``inline='always'``."""
    def codegen(context, builder, signature, args):
        builder.function.attributes.add("alwaysinline")
        return context.get_dummy_value()
    return types.none(), codegen


@njit(nogil=True)
def lane_ieee(x, y, z):
    return _datapath(x, y, z, IEEE)


@njit(nogil=True)
def lane_blackhole(x, y, z):
    return _datapath(x, y, z, BLACKHOLE)


@njit(nogil=True)
def lane_wormhole(x, y, z):
    return _datapath(x, y, z, WORMHOLE)


@njit(nogil=True)
def lane_blackhole_inlined(x, y, z):
    """:func:`lane_blackhole`, inlined by LLVM at each call site (compiled programs with
    few multiply-adds: :func:`_inline_into_callers`)."""
    _inline_into_callers()
    return _datapath(x, y, z, BLACKHOLE)


@njit(nogil=True)
def lane_wormhole_inlined(x, y, z):
    """:func:`lane_wormhole`, inlined by LLVM at each call site."""
    _inline_into_callers()
    return _datapath(x, y, z, WORMHOLE)


# The models' one-lane datapaths by rules: what generated code imports by name.
LANE_FUNCTIONS = {IEEE: "lane_ieee", BLACKHOLE: "lane_blackhole", WORMHOLE: "lane_wormhole"}

# Rules no model has are read at run time from this process's buffer (as _lanes_any takes
# them as an argument), so that one compiled function serves every platform: compiling one
# per rule set cost seconds each for sfpu_sim.determinism, which tries dozens.
# Fields: the FmaRules booleans and subnormal in order, then 1 for an unfused host.
_RUNTIME = np.zeros(len(FmaRules._fields), dtype=np.int64)
_RUNTIME_LOCK = threading.Lock()


@intrinsic
def _runtime_pointer(typingctx):
    """The address of ``_RUNTIME`` in this process, a constant of the compiled code (which is
    therefore never cached on disk)."""
    def codegen(context, builder, signature, args):
        address = ir.Constant(ir.IntType(64), _RUNTIME.ctypes.data)
        return builder.inttoptr(address, ir.PointerType(ir.IntType(64)))
    return types.CPointer(types.int64)(), codegen


@njit(nogil=True)
def _lane_under(x, y, z, r):
    """``x*y + z`` under the rules in ``r`` (:data:`_RUNTIME`'s layout): compiled once and
    cached on disk; only the small C callable around it holds this process's address."""
    rules = FmaRules("", r[1] != 0, r[2] != 0, r[3] != 0, r[4] != 0, r[5] != 0, r[6] != 0,
                     r[7], r[8] != 0)
    if r[0]:                                     # unfused: the product rounded alone first
        x, y = _datapath(x, y, SIGN, rules), 0x3F800000
    return _datapath(x, y, z, rules)


def _runtime_lane(x, y, z):
    return _lane_under(x, y, z, numba.carray(_runtime_pointer(), 9))


@functools.cache
def runtime_unit():
    """``x*y + z`` of one lane under the rules :func:`runtime_rules` set, as a C callable
    (``numba.cfunc``, int64 patterns) the Machine's lane loops take as an argument; compiled
    once a process (it holds this process's buffer address)."""
    return numba.cfunc(_UNIT_SIGNATURE, nopython=True)(_runtime_lane)


@contextlib.contextmanager
def runtime_rules(rules: FmaRules, fused: bool = True):
    """While in it, :func:`runtime_unit` computes under ``rules`` (``fused=False``: the
    product rounded alone first, with a -0 addend, as a host without a fused multiply-add)
    (one platform at a time: other threads wait)."""
    with _RUNTIME_LOCK:
        _RUNTIME[:] = [0 if fused else 1, *(int(v) for v in rules[1:])]
        yield


# Array kernels. The per-lane datapath branches on every lane's exponents, so it is compiled
# with numba; each model gets its own kernel with its rules as a global constant, which lets
# the compiler fold every rule away (passing the rules as an argument measured 3-4x slower, and
# numba ufuncs built with @vectorize another 3x slower than a plain loop). Each kernel runs a
# range of lanes without the GIL, so that sfpu_sim.threads can spread large calls over threads
# and keep small ones serial; sfpu_sim.jit decides where the compiled code is cached.
@njit(nogil=True)
def _lanes_ieee(start, stop, x, y, z, out):
    for i in range(np.uint64(start), np.uint64(stop)):       # unsigned: no wraparound test
        out[i] = _datapath(np.int64(x[i]), np.int64(y[i]), np.int64(z[i]), IEEE)


@njit(nogil=True)
def _lanes_blackhole(start, stop, x, y, z, out):
    for i in range(np.uint64(start), np.uint64(stop)):       # unsigned: no wraparound test
        out[i] = _datapath(np.int64(x[i]), np.int64(y[i]), np.int64(z[i]), BLACKHOLE)


@njit(nogil=True)
def _lanes_wormhole(start, stop, x, y, z, out):
    for i in range(np.uint64(start), np.uint64(stop)):       # unsigned: no wraparound test
        out[i] = _datapath(np.int64(x[i]), np.int64(y[i]), np.int64(z[i]), WORMHOLE)


@njit(nogil=True)
def _lanes_any(start, stop, x, y, z, out, rules):
    """Rules passed at run time: the combinations no chip has, which sfpu_sim.determinism
    builds by switching one rule at a time (about 3x slower than the folded kernels)."""
    for i in range(np.uint64(start), np.uint64(stop)):
        out[i] = _datapath(np.int64(x[i]), np.int64(y[i]), np.int64(z[i]), rules)


_KERNELS = {"ieee": _lanes_ieee, "blackhole": _lanes_blackhole, "wormhole": _lanes_wormhole}
_FOLDED = {IEEE: _lanes_ieee, BLACKHOLE: _lanes_blackhole, WORMHOLE: _lanes_wormhole}


def _lanes(kernel, x, y, z, *extra) -> np.ndarray:
    x, y, z = np.broadcast_arrays(*(np.asarray(v, dtype=np.uint32) for v in (x, y, z)))
    out = np.empty(x.shape, dtype=np.uint32)
    flat = [np.ascontiguousarray(v).reshape(-1) for v in (x, y, z)]
    parallel_for(kernel, out.size, *flat, out.reshape(-1), *extra)
    return out


def fma_model(model: str, x, y, z) -> np.ndarray:
    """``x*y + z`` per element under ``model`` ("ieee", "blackhole" or "wormhole").

    Inputs are FP32 bit patterns: anything numpy turns into uint32 arrays that broadcast
    together. The result is a new uint32 array of the broadcast shape."""
    return _lanes(_KERNELS[model], x, y, z)


def fma_with(rules: FmaRules, x, y, z) -> np.ndarray:
    """``x*y + z`` per element under any :class:`FmaRules` (the three models run their folded
    kernels; other combinations the run-time one). Same conventions as :func:`fma_model`."""
    folded = _FOLDED.get(rules)
    if folded is not None:
        return _lanes(folded, x, y, z)
    return _lanes(_lanes_any, x, y, z, rules)


def fma_ieee(x, y, z) -> np.ndarray:
    """IEEE 754 fused multiply-add on FP32 patterns, round to nearest even, NaN 0x7FC00000."""
    return fma_model("ieee", x, y, z)


def fma_blackhole(x, y, z) -> np.ndarray:
    """The Blackhole SFPMAD datapath (also the Blackhole RISC-V ``fma.s``) on FP32 patterns."""
    return fma_model("blackhole", x, y, z)


def fma_wormhole(x, y, z) -> np.ndarray:
    """The Wormhole B0 SFPMAD datapath on FP32 patterns."""
    return fma_model("wormhole", x, y, z)


MODELS = {"ieee": fma_ieee, "blackhole": fma_blackhole, "wormhole": fma_wormhole}
