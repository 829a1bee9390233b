"""The option grammar every ``sfpu-sim`` command shares (the rules: :mod:`sfpu_sim.cli`).

Owns: ``--arch`` (chips: repeated, comma-separated or ``all``) and which chips it names, list
values (``--lane 0,1,2``, ``--x 1.5,-2``: comma-separated, repeated, or both), the old spellings
kept for one release (each prints one deprecation line on stderr and does what its new
spelling does), and ``--range LO,HI`` with constant expressions at either end, read with the
grammar of :mod:`sfpu_sim.design.expr` (``fit --interval``'s). Knows nothing of what the
commands do with the values.
"""
from __future__ import annotations

import argparse
import math
from fractions import Fraction

import flint

from sfpu_sim.cli import output
from sfpu_sim.design.balls import arb_precision, mid_rad
from sfpu_sim.design.expr import ARB, parse
from sfpu_sim.design.interval import ENCLOSURE_BITS
from sfpu_sim.errors import SfpuSimError

CHIPS = {
    "wormhole": "Wormhole B0",
    "blackhole": "Blackhole A0",
}
ALL = "all"                                 # --arch all: every supported chip
CHOICES = f"{', '.join(CHIPS)} or {ALL}"


class OptionError(SfpuSimError):
    """A value an option cannot take (one line, exit 2)."""


def list_items(text: str, option: str) -> list[str]:
    """The comma-separated items of one option value; an empty item is refused."""
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise OptionError(f"{option} {text!r}: an empty item (write e.g. {option} A,B, or "
                          f"repeat {option})")
    return items


def deprecated(namespace, old: str, command: str, new: str) -> None:
    """One line on stderr, once per command line, for an old spelling that still works."""
    seen = vars(namespace).setdefault("_deprecations", set())
    if old not in seen:
        seen.add(old)
        output.deprecation(f"sfpu-sim: {old} is deprecated for {command}; use {new}")


class _Chips(argparse.Action):
    """``--arch``: chips appended in the order given; ``both`` where a command once took it
    (``old_both``: that command's name) is ``all``, with its deprecation line."""

    def __init__(self, option_strings, dest, old_both: str | None = None, **options):
        self.old_both = old_both
        super().__init__(option_strings, dest, **options)

    def __call__(self, parser, namespace, values, option_string=None):
        names = list(getattr(namespace, self.dest, None) or [])
        for name in list_items(values, option_string):
            if name == "both" and self.old_both:
                deprecated(namespace, "--arch both", self.old_both, "--arch all")
                name = ALL
            if name not in (*CHIPS, ALL):
                raise OptionError(f"--arch {name!r}: choose {CHOICES} (repeat --arch, or "
                                  f"separate chips with commas, for several)")
            names.append(name)
        setattr(namespace, self.dest, names)


def arch_option(parser, help_text: str, *, required: bool = False,
                old_both: str | None = None) -> None:
    """``--arch CHIP`` in a command: read with :func:`chips` or :func:`one_chip`."""
    parser.add_argument("--arch", action=_Chips, metavar="CHIP", required=required,
                        old_both=old_both,
                        help=f"{help_text}; CHIP: {CHOICES} (both chips); repeat --arch or "
                             f"separate chips with commas for several")


def chips(args, supported=None) -> list[str]:
    """The chips ``--arch`` names, in the order given, each once; ``all``, or no ``--arch``:
    every chip (of ``supported``, e.g. a kernel's chips, where given)."""
    every = [chip for chip in CHIPS if supported is None or chip in supported]
    chosen: list[str] = []
    for name in getattr(args, "arch", None) or [ALL]:
        for chip in every if name == ALL else [name]:
            if chip not in chosen:
                chosen.append(chip)
    if not chosen:
        raise OptionError(f"--arch: no chip runs this (it runs on: "
                          f"{', '.join(supported or ()) or 'no chip of ' + ', '.join(CHIPS)})")
    return chosen


def one_chip(args, what: str, default: str | None = None) -> str:
    """The one chip of a command whose output is ``what`` of a single chip (``default`` when
    ``--arch`` is not given)."""
    if not getattr(args, "arch", None) and default is not None:
        return default
    named = chips(args)
    if len(named) != 1:
        raise OptionError(f"--arch {','.join(args.arch)}: {what} is one chip's: give one "
                          f"--arch ({', '.join(CHIPS)})")
    return named[0]


class _Values(argparse.Action):
    """A repeatable option whose values may also be comma-separated (``--x 1,-2 --x 3``);
    ``item``: what each value becomes (its text by default)."""

    def __init__(self, option_strings, dest, item=None, **options):
        self.item = item
        super().__init__(option_strings, dest, **options)

    def __call__(self, parser, namespace, values, option_string=None):
        given = list(getattr(namespace, self.dest, None) or [])
        items = list_items(values, option_string)
        if self.item is not None:
            items = [self.item(text, option_string) for text in items]
        setattr(namespace, self.dest, given + items)


def values_option(parser, option: str, help_text: str, metavar: str = "VALUE",
                  **options) -> None:
    """``option VALUE[,VALUE...]``, repeatable: a list of the values, in order."""
    parser.add_argument(option, action=_Values, metavar=f"{metavar}[,{metavar}...]",
                        help=f"{help_text}; comma-separated, repeatable", **options)


def lane_number(text: str, option: str = "--lane") -> int:
    """One ``--lane`` item: a whole number (its range is the machine's to check)."""
    try:
        return int(text)
    except ValueError:
        raise OptionError(f"{option} {text!r}: give lane numbers, e.g. {option} 0,1,2 (or "
                          f"repeat {option})") from None


class _Deprecated(argparse.Action):
    """An old spelling: stores into its new option's place, and says so once."""

    def __init__(self, option_strings, dest, new: str = "", command: str = "", **options):
        self.new, self.command = new, command
        super().__init__(option_strings, dest, **options)

    def __call__(self, parser, namespace, values, option_string=None):
        deprecated(namespace, option_string, self.command, self.new)
        setattr(namespace, self.dest, values)


def old_spelling(parser, old: str, new: str, command: str, dest: str, **options) -> None:
    """``old``, hidden from --help, doing what ``new`` (dest ``dest``) does for one release."""
    parser.add_argument(old, action=_Deprecated, dest=dest, new=new, command=command,
                        default=argparse.SUPPRESS, help=argparse.SUPPRESS, **options)


# ------------------------------------------------------------------------------------------
# --range LO,HI
# ------------------------------------------------------------------------------------------

RANGE_HELP = ("LO <= x <= HI; each end a number (inf allowed) or a constant expression such "
              "as pi/4, -log(2), 2^-10 (fit --interval's grammar); write --range=-pi/4,pi/4 "
              "when LO is negative")


def value_range(text: str, where: str = "--range") -> tuple[float, float]:
    """``LO,HI`` -> the closed range of doubles that holds exactly the inputs ``LO <= x <=
    HI``. A number is read as Python reads it (inf allowed); any other end is a constant
    expression of :mod:`sfpu_sim.design.expr` (pi/4, log(2)), its exact value rounded inward
    (LO up, HI down), so ``--range=-pi/4,pi/4`` holds exactly the inputs of ``fit --interval
    -pi/4,pi/4``."""
    parts = str(text).split(",")
    if len(parts) != 2 or not all(part.strip() for part in parts):
        raise OptionError(f"{where} {text!r}: write LO,HI, two numbers or constant expressions "
                          f"such as -10,10 or -pi/4,pi/4 (as {where}=-10,10 when LO is "
                          f"negative)")
    low = _end(parts[0], f"{where} LO", upward=True)
    high = _end(parts[1], f"{where} HI", upward=False)
    if math.isnan(low) or math.isnan(high) or (low > high and not any(map(_rounded, parts))):
        raise OptionError(f"{where} {text!r}: need LO <= HI, neither NaN")
    if low > high:                  # an expression's rounding can part ends that were in order
        raise OptionError(f"{where} {text!r}: no input lies in [LO, HI] (LO rounds up to "
                          f"{low!r}, HI down to {high!r})")
    return low, high


def _rounded(end: str) -> bool:
    """Whether an end is an expression (rounded inward), not a number float() reads."""
    try:
        float(end)
    except ValueError:
        return True
    return False


# An expression's value beyond 2**+-SCALE is no double's neighbour: it is taken as infinite, or
# as next to zero, before an exact Fraction of it is made (of 1e-100000, a 40 kB integer).
SCALE = 1100


def _end(text: str, where: str, upward: bool) -> float:
    """One end: a float literal as float() reads it, else an expression rounded inward
    (``upward`` for LO)."""
    try:
        return float(text)
    except ValueError:
        pass
    expression = parse(text, where)
    with arb_precision(ENCLOSURE_BITS):
        ball = expression.evaluate(ARB)
        scale = flint.arb(2) ** SCALE
    if not ball.is_finite():
        raise OptionError(f"{where}: {expression.text} is not a finite real number")
    if ball.abs_lower() > scale:
        return math.inf if ball > 0 else -math.inf
    if ball.abs_upper() * scale < 1:                  # between the zeros and the least double
        tiny = math.ulp(0.0)
        if ball > 0:
            return tiny if upward else 0.0
        if ball < 0:
            return -0.0 if upward else -tiny
        return 0.0
    mid, rad = mid_rad(ball)
    # The ball's far side, rounded inward: exact unless the end lies within 2**-250 of a
    # double, and then that double is in the range (pi/pi: 1 itself, log(e) too).
    bound = mid - rad if upward else mid + rad
    try:
        value = float(bound)
    except OverflowError:
        return math.inf if bound > 0 else -math.inf
    if upward and Fraction(value) < bound:
        value = math.nextafter(value, math.inf)
    elif not upward and Fraction(value) > bound:
        value = math.nextafter(value, -math.inf)
    return value
