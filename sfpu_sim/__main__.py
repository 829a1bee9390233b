"""``python -m sfpu_sim`` is the ``sfpu-sim`` command."""
from sfpu_sim.cli import console_main

console_main()
