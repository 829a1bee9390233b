"""``python -m sfpu_sim`` is the ``sfpu-sim`` command."""
from sfpu_sim.cli import console_main

if __name__ == "__main__":        # not when a Dask worker process re-imports the main module
    console_main()
