"""The research the project serves, as host forms and SFPU kernels (the ``study`` layer).

Owns: the BF16 GELU study (../shared/spec/approximation-research.md §A): its methods defined
once (:mod:`.gelu_methods`), their exact binary32 host arithmetic (:mod:`.binary32`), its
scoring convention and references (:mod:`.scoring`) and its workbench modes (:mod:`.workbench`).
Knows nothing of the command line.
"""
