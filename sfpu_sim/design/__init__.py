"""Kernel design: minimax fits, coefficient quantisation, certified error bounds, and kernel
files that run them (``sfpu-sim fit``; ../shared/DESIGN.md, layer ``design``).

Knows nothing of the machine: :mod:`sfpu_sim.design.emit` writes a kernel file, and the CLI runs
it through the public sweep API.
"""
__all__ = ["fit", "FitResult"]


def __getattr__(name: str):
    """``fit`` and ``FitResult`` on first use: the CLI reads the coefficient formats and the
    emit schemes when it builds its parser, without loading the fitter (mpmath, flint)."""
    if name in __all__:
        from sfpu_sim.design import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
