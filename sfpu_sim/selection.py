"""Which inputs a measurement counts: a closed range of input values, a named region, or both.

Owns: the named regions of the input axis (the report's region table), which regions each
function has, and the selection a user makes with ``--range LO,HI`` / ``--region NAME``, its
text, its file-name suffix and its JSON form. Knows nothing of kernels or statistics: it maps
input values to a mask.

Regions are a function's own. tanh and the GELUs (gelu, gelu_tanh) have the study regions,
which partition the real line the way the BF16 GELU study's if/else chain does
(github.com/ivoitovych/bf16_gelu_research @90e9ff1): ``near_zero`` |x| < 0.5, else
``tail_pos`` x >= 3, else ``tail_neg`` x < -3, else ``core_pos`` x >= 0.5, else ``core_neg``
(so -3 and -0.5 are in ``core_neg``). Every other function has the generic sign regions,
``negative`` x < 0 and ``positive`` x >= 0. Region names are unique over all functions, so a
name alone finds its interval.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sfpu_sim.errors import SfpuSimError


class SelectionError(SfpuSimError):
    pass


@dataclass(frozen=True)
class Region:
    """A named interval of x (of |x| with ``on_abs``); ``low``/``high`` None for unbounded;
    ``low`` is always closed, ``high`` open unless ``high_closed``."""
    name: str
    low: float | None
    high: float | None
    high_closed: bool = False
    on_abs: bool = False

    def mask(self, x: np.ndarray) -> np.ndarray:
        axis = np.abs(x) if self.on_abs else x
        inside = np.ones(np.shape(x), dtype=bool)
        if self.low is not None:
            inside &= axis >= self.low
        if self.high is not None:
            inside &= (axis <= self.high) if self.high_closed else (axis < self.high)
        return inside

    @property
    def text(self) -> str:
        v = "|x|" if self.on_abs else "x"
        high = "<=" if self.high_closed else "<"
        if self.low is None:
            return f"{v} {high} {_number(self.high)}"
        if self.high is None:
            return f"{v} >= {_number(self.low)}"
        return f"{_number(self.low)} <= {v} {high} {_number(self.high)}"


REGIONS = (Region("near_zero", None, 0.5, on_abs=True), Region("core_pos", 0.5, 3.0),
           Region("core_neg", -3.0, -0.5, high_closed=True), Region("tail_pos", 3.0, None),
           Region("tail_neg", None, -3.0))
"""The study regions: tanh's and the GELUs'."""
SIGN_REGIONS = (Region("negative", None, 0.0), Region("positive", 0.0, None))
"""The generic regions: every function without regions of its own."""
REGIONS_BY_FUNCTION = {"tanh": REGIONS, "gelu": REGIONS, "gelu_tanh": REGIONS}
REGION_NAMES = tuple(r.name for r in REGIONS + SIGN_REGIONS)
"""Every region name of every function."""


def regions_for(function: str | None) -> tuple[Region, ...]:
    """The regions of ``function`` (its report's region table; the ``--region`` choices)."""
    return REGIONS_BY_FUNCTION.get(function, SIGN_REGIONS) if function else REGIONS


def region(name: str, function: str | None = None) -> Region:
    """The region called ``name``; with ``function``, only one of that function's regions."""
    choices = regions_for(function) if function else REGIONS + SIGN_REGIONS
    for r in choices:
        if r.name == name:
            return r
    whose = f" is not a region of {function}:" if function else ":"
    raise SelectionError(f"--region {name!r}{whose} choose from "
                         f"{', '.join(r.name for r in choices)}")


def _number(v: float) -> str:
    return repr(float(v)).removesuffix(".0") if math.isfinite(v) else ("inf" if v > 0 else "-inf")


def parse_range(text: str) -> tuple[float, float]:
    """``LO,HI`` (numbers, ``inf`` allowed) -> a closed interval with LO <= HI."""
    parts = [p.strip() for p in str(text).split(",")]
    try:
        low, high = (float(p) for p in parts)
    except ValueError:
        raise SelectionError(f"--range {text!r}: write LO,HI, two numbers such as -10,10 "
                             f"(put it as --range=-10,10 when LO is negative)") from None
    if math.isnan(low) or math.isnan(high) or low > high:
        raise SelectionError(f"--range {text!r}: need LO <= HI, neither NaN")
    return low, high


@dataclass(frozen=True)
class Selection:
    """Inputs counted: those in the closed ``range`` and in ``region`` (either may be None;
    neither: every input)."""
    range: tuple[float, float] | None = None
    region: str | None = None

    @classmethod
    def from_options(cls, range_text: str | None = None, region_name: str | None = None,
                     function: str | None = None):
        """The selection of ``--range`` / ``--region``; with ``function``, a region must be
        one of that function's (:func:`regions_for`)."""
        if region_name is not None:
            region(region_name, function)
        return cls(parse_range(range_text) if range_text is not None else None, region_name)

    @property
    def everything(self) -> bool:
        return self.range is None and self.region is None

    def mask(self, x: np.ndarray) -> np.ndarray:
        """Which input values (float64, exact) are selected; NaN never is once a range or
        region is given."""
        x = np.asarray(x, dtype=np.float64)
        inside = np.ones(x.shape, dtype=bool)
        if self.range is not None:
            with np.errstate(invalid="ignore"):
                inside &= (x >= self.range[0]) & (x <= self.range[1])
        if self.region is not None:
            with np.errstate(invalid="ignore"):
                inside &= region(self.region).mask(x)
        return inside

    @property
    def text(self) -> str:
        parts = []
        if self.range is not None:
            parts.append(f"x in [{_number(self.range[0])}, {_number(self.range[1])}]")
        if self.region is not None:
            parts.append(f"region {self.region} ({region(self.region).text})")
        return " and ".join(parts) if parts else "every input"

    @property
    def stem_suffix(self) -> str:
        """What a report file name adds so a selected report never overwrites the full one."""
        parts = []
        if self.range is not None:
            parts.append(f"range{_number(self.range[0])}to{_number(self.range[1])}")
        if self.region is not None:
            parts.append(self.region)
        return "".join(f"_{p}" for p in parts)

    @property
    def options(self) -> list[str]:
        """The command-line options that make this selection."""
        words = []
        if self.range is not None:
            words.append(f"--range={_number(self.range[0])},{_number(self.range[1])}")
        if self.region is not None:
            words += ["--region", self.region]
        return words

    def as_dict(self) -> dict:
        return {"range": list(self.range) if self.range else None, "region": self.region,
                "text": self.text}

    @classmethod
    def from_dict(cls, data: dict | None) -> "Selection":
        """The selection a summary records (older summaries, without one: everything)."""
        if not data:
            return EVERYTHING
        # JSON holds an infinite end as the string "inf" / "-inf"
        return cls(tuple(float(v) for v in data["range"]) if data.get("range") else None,
                   data.get("region"))


EVERYTHING = Selection()
