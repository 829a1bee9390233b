"""The SFPU instruction set: one function per instruction, grouped by family (see spec.py
for what an instruction is and arch.py for which exist on each chip)."""
