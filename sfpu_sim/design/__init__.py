"""Kernel design: minimax fits, coefficient quantisation, certified error bounds, and kernel
files that run them (``sfpu-sim fit``; the ``design`` layer).

Knows nothing of the machine: :mod:`sfpu_sim.design.emit` writes a kernel file, and the CLI runs
it through the public sweep API. The fitter is :func:`sfpu_sim.design.api.fit`; this package
imports none of its modules, because the references use its expression grammar
(:mod:`sfpu_sim.design.expr`) and the fitter uses the references.
"""
