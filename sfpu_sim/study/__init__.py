"""The research the project serves, as host forms and SFPU kernels (the ``study`` layer).

Owns: the BF16 GELU study (github.com/ivoitovych/bf16_gelu_research at 90e9ff1): its methods
defined once (:mod:`.gelu_methods`), their exact binary32 host arithmetic (:mod:`.binary32`),
its scoring convention and references (:mod:`.scoring`), its workbench modes
(:mod:`.workbench`), its backward pass G4 (:mod:`.gelu_backward`) and its validation modes, the
G7/G8 regression suite, the G4 check and C1's knot check (:mod:`.gelu_validation`).
Knows nothing of the command line.
"""
