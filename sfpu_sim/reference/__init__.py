"""Correctly rounded references: what a kernel's output should be, bit for bit, under a named
rounding policy.

Owns: the registry of reference functions (name -> exact mathematical definition), their values
at special inputs, the certified high-precision evaluation, the rounding policies of the device
reports (``rne``, ``rne_fp32``, ``truncate``, ``ties_away``) with DAZ on inputs and FTZ on
outputs, and the on-disk cache of evaluations. Knows nothing of kernels, instructions or ULP
conventions (those are :mod:`sfpu_sim.ulp`'s).

How a value is certified (the guarantee)
----------------------------------------
For a finite input ``x`` the definition is evaluated in ball arithmetic (python-flint's arb:
every operation returns a midpoint and a radius that provably contains the exact value), and
both ends of the ball are rounded *to odd* at 64 bits (truncate, then set the last bit if
anything was dropped). Round-to-odd is monotone, so when both ends give the same 64-bit number
``y`` the exact value does too; otherwise the precision is doubled and the evaluation repeated
(Ziv's strategy), up to ``MAX_PRECISION`` bits, past which :class:`UnresolvedRounding` is raised
instead of a guess. The 64-bit round-to-odd value has a useful property (Boldo and Melquiond,
"Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE TC
57(4), 2008): rounding ``y`` to any format of at most 62 bits, in any of the nearest or directed
modes, gives exactly what rounding the exact value would. So one ``y`` per input serves every
policy and output format (BF16, FP16, FP32, and the float64 ``value``), with vectorised integer
rounding and no second evaluation; that ``y`` table, one per function and input format, is what
the cache stores.

Two details make the ladder terminate where a ball cannot shrink:

* Exact results (``sqrt(4) = 2``, ``exp(0) = 1``, or ``sqrt((1 + 2**-8)**2) = 1 + 2**-8``, a BF16
  midpoint) come back from arb as exact balls, round to odd to themselves, and return at once.
  Every other value at a finite input is not a dyadic rational: ``1/x``, ``sqrt`` and ``rsqrt``
  are exact or not dyadic by parity of the significands; the exp/log family is transcendental
  at nonzero rationals (Lindemann-Weierstrass); for the erf family this is expected but, as far
  as I know, unproven. Either way the ladder raises rather than guesses, and every BF16 and
  FP16 input of every function here settles by 768 bits.
* Values closer to a representable number than any affordable ball can tell apart: saturation
  (``tanh(4288) = 1 - 2**-12373``), underflowing tails (``gelu(-3e38)``, around which arb returns a
  tiny ball containing zero) and tiny arguments (``sin(2**-126)``). Each function declares an
  *anchor* for each x, a number its value provably lies strictly above or below (1 for tanh's
  saturation, 0 for a tail, x for ``sin``; the proofs are beside the registry); when the ball
  contains the anchor, the end on the wrong side of it is replaced by a point just beside the
  anchor, which rounds to odd like every value between the anchor and its 64-bit neighbour.
  Magnitudes below ``2**-1100`` (or above ``2**1100``) are replaced by a stand-in of the same
  sign: all such values round alike in every format here (to zero; to infinity, or the largest
  finite toward zero).

Measured (``python -m sfpu_sim.bench reference``, best of 3; this machine: 2 cores, Python
3.11, python-flint 0.9.0, mpmath 1.4.1 on gmpy2 2.3.2, numpy 2.4): all 65,536 BF16 inputs of
one function.

=================================================  ========  ========  ============================
option                                             tanh      gelu      guarantee
=================================================  ========  ========  ============================
cold, flint backend: certify, write the cache      0.41 s    0.49 s    proven (arb ball bounds)
cold, mpmath backend: certify, write the cache     1.6 s     3.0 s     checked, not proven
mpmath, one evaluation at 128 bits                 0.28 s    1.0 s     none (no error bound)
gmpy2 MPFR, 64 bits toward zero + inexact flag     0.04 s    --        proven; elementary only
numpy float64 + lanes near a midpoint              0.001 s   --        bits only, see below
warm, cache file: read, sha256, round              0.009 s   0.008 s   sha256-checked
warm, same process: table in memory, round         0.006 s   0.005 s
=================================================  ========  ========  ============================

All 17 functions certify cold in 0.13-0.85 s each with flint, 0.9-6.6 s with mpmath. The float64
fast path decides the BF16 bits of nearly every input in a millisecond, but it cannot give the
correctly rounded float64 ``value`` (libm's float64 results are not correctly rounded and carry
no documented bound), and gelu, erfc and 1 - tanh^2 need rewritten formulas to escape float64
cancellation; it could only be a prefilter in front of an exact method, and warm lookups take
milliseconds anyway. MPFR's correctly rounded functions are the fastest but cover only the
elementary functions; the composites (gelu, sigmoid, silu, softplus, ...) would need hand-written
interval arithmetic. So ``flint`` is the default backend. ``mpmath`` is the fallback when
python-flint is absent: it evaluates at two precisions, requires agreement and widens by a
margin (:class:`_MpmathBackend`); mpmath bounds none of its errors, so that backend is checked,
not proven. Over all 17 functions x 65,536 BF16 inputs the two backends give identical tables.

Special inputs. NaN -> NaN (the positive canonical quiet NaN) everywhere; inputs outside the
domain -> NaN; the zeros and infinities give the mathematical values and limits, with signed
zeros where a function is odd or approaches zero from one side:

=================  ===============  ===============  ===========  ===========  ===============
function           f(+0)            f(-0)            f(+Inf)      f(-Inf)      domain
=================  ===============  ===============  ===========  ===========  ===============
tanh, erf          +0               -0               1            -1
gelu, gelu_tanh,   +0               -0               +Inf         -0 (from
silu                                                              below)
gelu_derivative    0.5              0.5              1            -0
exp                1                1                +Inf         +0
log                -Inf             -Inf             +Inf         NaN          x < 0 -> NaN
reciprocal         +Inf             -Inf             +0           -0
sqrt               +0               -0 (IEEE)        +Inf         NaN          x < 0 -> NaN
rsqrt              +Inf             -Inf (IEEE)      +0           NaN          x < 0 -> NaN
sigmoid            0.5              0.5              1            +0
erfc               1                1                +0           2
sin                +0               -0               NaN          NaN
cos                1                1                NaN          NaN
softplus           log 2            log 2            +Inf         +0
tanh_derivative    1                1                +0           +0
=================  ===============  ===============  ===========  ===========  ===============

Rounding policies (output format BF16; FP16 and FP32 likewise):

* ``rne``: the exact value correctly rounded to the output format, ties to even.
* ``rne_fp32``: correctly rounded to FP32 first, then FP32 -> output with ties to even (the
  golden of the tt-llk accuracy sweep, tt-metal PRs #57024 and #57235). Differs from ``rne``
  when the FP32 rounding lands exactly on an output midpoint (double rounding).
* ``truncate``: correctly rounded to FP32 (RNE), then truncated toward zero to the output format
  (Tenstorrent's tanh report, tt-metal ``tests/ttnn/unit_tests/gtests/
  TANH_ULP_DIAGNOSTIC_REPORT.md``: "convert result to float, then truncate to BF16").
* ``ties_away``: correctly rounded to the output format, ties away from zero.

All formats have gradual underflow; ``ftz=True`` then turns a denormal result into a zero of the
same sign, and ``daz=True`` reads a denormal input as a zero of its sign. ``value`` is the exact
value correctly rounded to float64 (no FTZ), for the fractional ULP convention.
"""
from __future__ import annotations

import dataclasses
import sys
import threading
from dataclasses import dataclass

import numpy as np

from sfpu_sim import formats
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.formats import (
    POLICIES,
    RNE,
    apply_policy,
    policies,
    round_exact,
    round_values,
)

# Families of functions registered in modules of their own (each calls definitions.register).
from sfpu_sim.reference import (
    activation_functions,  # noqa: E402,F401  (celu, elu, selu, ...)
    definitions,
    erfinv_functions,  # noqa: E402,F401  (erfinv)
    inverse_hyperbolic_functions,  # noqa: E402,F401  (acosh, ..., tan)
    log2_functions,  # noqa: E402,F401  (log2)
    misc_functions,  # noqa: E402,F401  (fmod_2, remainder_2)
    power_functions,  # noqa: E402,F401  (cbrt, rdiv_2, fp16a_rne)
    predicate_functions,  # noqa: E402,F401  (floor, ..., isnan)
    rounding_functions,  # noqa: E402,F401  (round)
    scaled_functions,  # noqa: E402,F401  (exp_half)
    shrink_functions,  # noqa: E402,F401  (tanhshrink)
    xielu_functions,  # noqa: E402,F401  (xielu)
)
from sfpu_sim.reference import cache as _cache
from sfpu_sim.reference.backends import backend as choose_backend
from sfpu_sim.reference.cache import (SET_CACHE_MIN, cache_directory, clear_memory, held_table,
                                      input_set, table)
from sfpu_sim.reference.core import (
    FP64,
    INPUT_FORMATS,
    OUTPUT_FORMATS,
    TABLE_FORMATS,
    UnknownBackend,
    UnknownFormat,
    UnknownFunction,
    UnknownPolicy,
    UnresolvedRounding,
    choice,
)
from sfpu_sim.reference.definitions import (
    FUNCTIONS,
    Function,
    functions,
    lookup,
    register,
)

BadInputs = formats.BadBits          # inputs that are not bit patterns of the format

__all__ = ["reference", "round_values", "functions", "policies", "ReferenceResult", "Function",
           "register", "register_user_function", "UnknownFunction", "UnknownPolicy",
           "UnknownFormat", "UnknownBackend", "BadInputs", "UnresolvedRounding",
           "UserReferenceError", "cache_directory", "clear_memory", "FP64", "FUNCTIONS"]


class UserReferenceError(SfpuSimError):
    """A user's reference function raised: one line naming it, its kernel and the input."""


def register_user_function(name: str, fn, origin: str = "", kernel: str = "") -> Function:
    """A function defined by the user as ``fn(x)`` of one ``mpmath.mpf``
    (:func:`definitions.register_user_function`), made safe to evaluate: the one place where
    user code runs inside the reference layer. An exception in ``fn``, wherever it is
    evaluated (eval, sweep, report, locate, budget, fit), is one line naming ``fn`` (``origin``
    is where it was given, ``kernel`` the kernel it came with) and the input; what ``fn``
    prints goes to stderr; and its cached tables are keyed on its values, not only its source
    text (:func:`cache.key_on_values`)."""
    try:
        function = definitions.register_user_function(name, fn, origin)
    except SfpuSimError:
        raise
    except (Exception, SystemExit) as error:      # at 0, +-2**-200 or +-inf, evaluated here
        raise UserReferenceError(f"reference {name!r} raised {type(error).__name__}: {error} "
                                 f"when evaluated at registration") from None
    who = f"{origin + ': ' if origin else ''}reference {name!r}" + \
          (f" of kernel {kernel!r}" if kernel else "")

    def guarded(call):
        def evaluate(x, *rest):
            saved, sys.stdout = sys.stdout, sys.stderr   # a print(): not before --json
            try:                                         # (redirect_stdout: 10% of a table)
                return call(x, *rest)
            except SfpuSimError:
                raise
            except (Exception, SystemExit) as error:  # SystemExit: ends a run without a word
                raise UserReferenceError(f"{who} raised {type(error).__name__}: {error} (at "
                                         f"x = {float(x)!r})") from None
            finally:
                sys.stdout = saved
        return evaluate

    function = dataclasses.replace(function, formula=guarded(function.formula),
                                   is_exact=guarded(function.is_exact))
    definitions.FUNCTIONS[name] = function
    _cache.key_on_values(function)
    return function


@dataclass(frozen=True)
class ReferenceResult:
    """What :func:`reference` returns, lane for lane with its inputs.

    ``bits``: the reference in the output format (uint16 for BF16/FP16, uint32 for FP32), after
    the policy and FTZ. ``value``: the exact value correctly rounded to float64 (no FTZ; the DAZ
    of the inputs applies). ``precision``: the largest working precision (bits) any returned lane
    needed (0 if all were special values)."""
    bits: np.ndarray
    value: np.ndarray
    function: str
    policy: str
    input_format: str
    output_format: str
    daz: bool
    ftz: bool
    precision: int
    backend: str


# arb's working precision (flint.ctx.prec) and mpmath's are process-wide settings that every
# evaluation sets and restores: two threads evaluating at once (a sweep's chunks run on
# threads) would change each other's precision, and could leave the wrong one set. So the
# layer evaluates on one thread at a time (the binary references hold the same lock); a
# sweep's few refinements hardly wait.
EVALUATING = threading.RLock()


def reference(function: str, inputs, policy: str = "rne", *, input_format: str = "bf16",
              output_format: str = "bf16", daz: bool = True, ftz: bool = True,
              cache: bool = True, cache_dir=None, backend: str | None = None,
              keep_set: bool = False) -> ReferenceResult:
    """Correctly rounded ``function(inputs)`` under ``policy``; ``function``: a registered
    name, or a :class:`Function` (one :func:`definitions.define` made).

    ``inputs``: bit patterns of ``input_format`` (any shape), or an array of its own dtype
    (``ml_dtypes.bfloat16``, ``float16``, ``float32``) taken bit for bit. With ``cache`` (16-bit
    input formats) the whole 65,536-input table is certified once, stored on disk and looked
    up (for fewer than ``cache.SET_CACHE_MIN`` inputs, only where the table is at hand: `eval`
    at one input of a user's mpmath reference took 5 s building the table, and a sweep builds
    it when it needs it); without it, or for FP32 inputs, only the distinct inputs given are
    certified. With
    ``cache`` and ``keep_set`` (an input set certified again and again, as the harness's FP32
    walk is in every Float32 cell), a set of at least ``cache.SET_CACHE_MIN`` distinct inputs
    is stored too (:func:`cache.input_set`); a sweep's chunks, each seen once, are not.
    """
    fn = function if isinstance(function, Function) else lookup(function)
    choice(policy, POLICIES, UnknownPolicy, "rounding policy")
    in_fmt = choice(input_format, INPUT_FORMATS, UnknownFormat, "input format")
    out_fmt = choice(output_format, OUTPUT_FORMATS, UnknownFormat, "output format")
    engine = choose_backend(backend if backend is not None or "flint" in fn.backends
                      else fn.backends[0])
    if engine.name not in fn.backends:
        raise UnknownBackend(f"function {fn.name!r} can only be certified by backend(s) "
                             f"{', '.join(fn.backends)}")
    bits = formats.as_bits(inputs, in_fmt)
    if daz:
        bits = formats.daz(bits, in_fmt)
    with EVALUATING:
        whole = None
        if cache and input_format in TABLE_FORMATS:
            whole = table(fn, input_format, engine, True, cache_dir) \
                if bits.size >= SET_CACHE_MIN else held_table(fn, input_format, engine, cache_dir)
        if whole is not None:
            # every lane of the table rounded once, then looked up (rounding is lanewise)
            out, value = _cache.derived(whole, ("rounded", policy, out_fmt, ftz),
                                        lambda t: _rounded(t, policy, out_fmt, ftz))
            return ReferenceResult(np.asarray(out[bits]), np.asarray(value[bits]), fn.name,
                                   policy, input_format, output_format, daz, ftz,
                                   int(whole.precision[bits].max(initial=0)), engine.name)
        unique, inverse = np.unique(bits, return_inverse=True)
        keep = cache and keep_set
        certified = input_set(fn, input_format, unique, engine, keep, cache_dir).take(
            inverse.reshape(bits.shape))
    out, value = _rounded(certified, policy, out_fmt, ftz)
    return ReferenceResult(out, value, fn.name, policy, input_format, output_format, daz, ftz,
                           int(certified.precision.max(initial=0)), engine.name)


def _rounded(certified, policy: str, out_fmt: str, ftz: bool) -> tuple:
    """(the output patterns under ``policy``, flushed with ``ftz``; the float64 values)."""
    out = apply_policy(certified, policy, out_fmt)
    if ftz:
        out = formats.ftz(out, out_fmt)
    return out, round_exact(certified, FP64, RNE).view(np.float64)
