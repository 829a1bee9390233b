"""Which of a test's compiled-versus-Machine cases the default suite runs; the rest run under
the slow marker.

Compiling the program is these checks' cost (2-8 s a program with empty caches, on 2 cores).
The code generator does not depend on the chip (each program holds its chip's FMA) or on the
Dst format (data the program's loads and stores read), so the default suite runs a diagonal
of the cases: case k takes the k-th value of every axis, the shorter axes cycling, for as many
cases as the longest axis has values. Every value of every axis (every kernel, both chips, both
Dsts) then runs compiled once by default, and every combination under slow. The unary kernels'
checks choose theirs by instruction form instead (tests/test_compiled.py)."""
from __future__ import annotations

import itertools

import pytest


def diagonal_default(*axes) -> list:
    """Every combination of ``axes`` (sequences of values) as pytest params, in
    :func:`itertools.product` order, with ids joined by "-"; those off the diagonal marked slow."""
    longest = max(len(axis) for axis in axes)
    default = {tuple(axis[k % len(axis)] for axis in axes) for k in range(longest)}
    return [pytest.param(*case, id="-".join(map(str, case)),
                         marks=() if case in default else pytest.mark.slow)
            for case in itertools.product(*axes)]
