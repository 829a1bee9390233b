"""The BF16 GELU study's methods as SFPU kernels: ``gelu_study_<method>`` (BF16 Dst, both chips).

Source: the public BF16 GELU study github.com/ivoitovych/bf16_gelu_research, commit 90e9ff1
(2025-12-27). Each kernel runs the method's one definition
in :mod:`sfpu_sim.study.gelu_methods` (the same function the host form runs in IEEE binary32)
through :class:`DeviceArithmetic`, which lowers its operations as an sfpi kernel writer would:

* ``+ - *`` and ``a*b + c`` through the DSL, so every product used once by an addition is one
  SFPMAD (the chip's partially fused multiply-add), constants loaded with SFPLOADI;
* division ``a / b`` as ``a * 1/b`` with the device reciprocal ``_sfpu_reciprocal_<2>``
  (kernels/reciprocal.py: Wormhole's quadratic seed + two Newton steps, Blackhole's SFPARECIP
  + two Newton steps), the FP32-accurate building block;
* ``sqrt`` with the device ``_calculate_sqrt_body_`` (kernels/sqrt.py, SQRT_23-bits, no
  rounding). B1v2 needs both: the sqrt constants take Prgm0..2 and the reciprocal loads its own
  as immediates (same values, same bits);
* an if / else-if chain as its default computed in every lane, then one ``v_if`` block per
  case in reverse order (the same value in every lane; see ``chain``), clamps as
  ``v_if(v >= hi) v = hi`` then ``v_if(v <= lo) v = lo`` (``std::min`` / ``std::max`` read
  lane by lane);
* the Hermite coefficients of C1 and the tail slopes as constants (the study computes them
  from constants; a kernel would load the results);
* R5: the SFPU has no gather, so the 512-entry table is a compare chain: 510 ``v_if(index >=
  i)`` blocks, each loading row i (``Phi_i``, ``Phi_{i+1} - Phi_i``) and the fraction ``index -
  i``, exactly the study's ``trunc`` and ``frac``. About 5,200 instructions: an emulator runs it;
  a kernel of that size is impractical on the device (what the study's "needs a gather" means).

The study ends each method with ``static_cast<std::bfloat16_t>`` (round to nearest even); the
kernels end with its SFPU counterpart ``float_to_fp16b(result, 0)`` (SFP_STOCH_RND to nearest,
ties away from zero; denormals and -0 become +0) before the BF16 SFPSTORE, which then only
drops zero bits. :func:`program` builds the same kernels without it (the store truncates), to
measure what forgetting the rounding costs.
"""
from __future__ import annotations

from sfpu_sim import register_kernel
from kernels.reciprocal import reciprocal, reciprocal_init
from kernels.sqrt import sqrt_body, sqrt_init
from sfpu_sim.sfpi import abs as v_abs
from sfpu_sim.sfpi import dst_reg, float_to_fp16b, reinterpret, v_endif, v_if, vFloat
from sfpu_sim.study.gelu_methods import METHODS

RECIPROCAL_ITERATIONS = 2
DIVIDES = {"B1", "B1v2", "R2", "R4", "B3", "G4"}
SQRTS = {"B1v2"}


class DstInput:
    """The kernel's input ``x``, read from Dst (one SFPLOAD) wherever it is used instead of
    held in an LReg: with the device reciprocal or sqrt inside, B1v2 and B3 would otherwise
    need a ninth register. Dst keeps the input until the final SFPSTORE, and the load widens
    the BF16 cell exactly, so every use sees the same value."""

    def load(self) -> vFloat:
        return dst_reg[0]

    def __mul__(self, other):
        return self.load() * _vector(other)

    def __rmul__(self, other):
        return _vector(other) * self.load()

    def __add__(self, other):
        return self.load() + _vector(other)

    def __radd__(self, other):
        return _vector(other) + self.load()

    def __sub__(self, other):
        return self.load() - _vector(other)

    def __rsub__(self, other):
        return _vector(other) - self.load()

    def __neg__(self):
        return -self.load()

    def __lt__(self, other):
        return self.load() < _vector(other)

    def __le__(self, other):
        return self.load() <= _vector(other)

    def __gt__(self, other):
        return self.load() > _vector(other)

    def __ge__(self, other):
        return self.load() >= _vector(other)


def _vector(value):
    """A DstInput loaded; anything else as it is."""
    return value.load() if isinstance(value, DstInput) else value


class DeviceArithmetic:
    """The arithmetic interface of :mod:`sfpu_sim.study.gelu_methods` on the sfpi DSL.

    ``reciprocal_constants``: ``"programmable"`` (init loads them) or ``"immediate"`` (the
    programmable registers hold the sqrt's constants)."""

    fma = True          # C1 / R5 constants: the study build's values (it contracted)

    def __init__(self, reciprocal_constants: str = "programmable"):
        self.reciprocal_constants = reciprocal_constants

    def madd(self, a, b, c):
        a, b, c = _vector(a), _vector(b), _vector(c)
        if not isinstance(a, vFloat) and not isinstance(b, vFloat):
            raise ValueError("madd needs a vector among its factors")
        return a * b + c

    def div(self, a, b):
        inverse = reciprocal(_vector(b), RECIPROCAL_ITERATIONS, self.reciprocal_constants)
        return inverse if isinstance(a, float) and a == 1.0 else _vector(a) * inverse

    def sqrt(self, a):
        return sqrt_body(_vector(a))

    def abs(self, a):
        return v_abs(_vector(a))

    def clamp(self, value, low: float, high: float):
        out = vFloat(_vector(value))
        with v_if(out >= high):
            out.assign(high)
        v_endif()
        with v_if(out <= low):
            out.assign(low)
        v_endif()
        return out

    def chain(self, cases, otherwise):
        """``otherwise`` in every lane, then each case in reverse order in its own ``v_if``:
        the last block to write a lane is its first true case, as in the if / else-if chain.
        (A ``v_elseif`` chain would push the CC stack once per case: the tail's ten would
        overflow its eight entries; and the default computed first needs no register to hold
        the result across it.)"""
        result = vFloat(_vector(otherwise()))
        for condition, value in reversed(cases):
            with v_if(condition()):
                result.assign(_vector(value()))
            v_endif()
        return result

    def floor_lookup(self, index, tables):
        """Row ``trunc(index)`` of ``tables`` (index >= 0) by a compare chain, and the fraction
        ``index - trunc(index)``."""
        phi, slope = tables
        row_phi, row_slope = vFloat(float(phi[0])), vFloat(float(slope[0]))
        fraction = vFloat(_vector(index))
        for i in range(1, len(phi) - 1):
            above = index - float(i)
            with v_if(above >= 0.0):
                row_phi.assign(float(phi[i]))
                row_slope.assign(float(slope[i]))
                fraction.assign(above)
            v_endif()
        return row_phi, row_slope, fraction


def kernel_name(method_id: str) -> str:
    """``gelu_study_<id>``: lower case, ``-`` as ``_`` (``A1-poly7``: ``gelu_study_a1_poly7``)."""
    return "gelu_study_" + method_id.lower().replace("-", "_")


def _body(method_id: str, rounding: bool = True, method=None):
    """The kernel body of a method: its definition on the device arithmetic, then (``rounding``)
    ``float_to_fp16b(result, 0)`` as the study's final ``static_cast<std::bfloat16_t>``, the
    SFPU's round to nearest (ties away from zero) before the truncating BF16 store. ``method``:
    a :class:`~sfpu_sim.study.gelu_methods.Method` outside METHODS (G4)."""
    method = method or METHODS[method_id]
    constants = "immediate" if method_id in SQRTS else "programmable"

    def body():
        result = method.body(DstInput(), DeviceArithmetic(constants))
        if rounding:
            result = reinterpret(vFloat, float_to_fp16b(result, 0))
        dst_reg[0] = result
    body.__name__ = kernel_name(method_id)
    body.__doc__ = f"One iteration of the study's {method.name}: {method.description}."
    return body


def program(method_id: str, arch, rounding: bool = True):
    """The kernel of ``method_id`` for ``arch``; ``rounding=False``: without the final
    ``float_to_fp16b`` (not registered: a what-if of the study's reports)."""
    from sfpu_sim.sfpi import trace

    return trace(_body(method_id, rounding), arch, init=_init(method_id),
                 name=kernel_name(method_id) + ("" if rounding else "_truncated"))


def derivative_program(arch, rounding: bool = True):
    """The study's GELU' approximation G4 (:mod:`sfpu_sim.study.gelu_backward`) as a kernel
    for ``arch``, built like the forward methods (three divisions: the device reciprocal).
    Not registered: the study prints it at a few points and does not score it, and no ttnn op
    runs it."""
    from sfpu_sim.sfpi import trace
    from sfpu_sim.study.gelu_backward import G4

    return trace(_body(G4.id, rounding, G4), arch, init=_init(G4.id),
                 name=kernel_name(G4.id) + ("" if rounding else "_truncated"))


def _init(method_id: str):
    if method_id in SQRTS:
        return sqrt_init
    if method_id in DIVIDES:
        def init():
            reciprocal_init(False)
        return init
    return None


_SOURCE = "github.com/ivoitovych/bf16_gelu_research @90e9ff1 (2025-12-27)"

for _id, _method in METHODS.items():
    register_kernel(
        kernel_name(_id), _body(_id), init=_init(_id), function="gelu", mode="accurate",
        dest="bf16",
        provenance=f"{_SOURCE}: method {_id} ({_method.description}); the study's binary32 "
                   f"definition on the SFPU: SFPMAD for a*b+c, _sfpu_reciprocal_<2> for "
                   f"division, _calculate_sqrt_body_ for sqrt; float_to_fp16b(result, 0) before "
                   f"the BF16 store",
        description=f"BF16 GELU study method {_id} ({_method.name}) as an SFPU kernel")
