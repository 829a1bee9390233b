"""The kernel registry: every kernel a command can name, built-in or from a user's file.

Owns: :func:`register_kernel` (the one public, stable way to add a kernel), the
:class:`KernelSpec` record, lookup by name, and loading kernel files (``--kernels PATH``, the
``SFPU_SIM_KERNELS`` environment variable, the ``sfpu_sim.kernels`` entry-point group). Knows
nothing of sweeps or reports; it only turns a kernel's DSL body into a Program on request.

A kernel file is plain Python::

    from sfpu_sim import register_kernel
    from sfpu_sim.sfpi import dst_reg, vFloat

    def twice():
        x = dst_reg[0]
        dst_reg[0] = x + x

    register_kernel("twice", twice, function="my_twice", reference=lambda x: 2 * x)

Errors in such a file (syntax, a failing import, a duplicate name, an unknown function, DSL
misuse when the kernel is built, ``sys.exit()``) are one line naming the file and line. Only a
regular file is read (a FIFO would block forever). What the file, or a kernel body while it is
built, prints goes to stderr: stdout carries only the command's output (``--json``).
"""
from __future__ import annotations

import contextlib
import importlib
import os
import stat
import sys
import types
from dataclasses import dataclass, field, replace
from importlib.metadata import entry_points
from pathlib import Path
from typing import Callable, Mapping

from sfpu_sim import assembly_kernels, dsl_kernels
from sfpu_sim import reference as references
from sfpu_sim.arch import get_arch
from sfpu_sim.assembly_kernels import file_kernel_fields
from sfpu_sim.errors import SfpuSimError
from sfpu_sim.kernel_registration import CHIPS, RegistrationError, check_operands
from sfpu_sim.paths import call_site, display_path, frame_in
from sfpu_sim.suggest import near_names
from sfpu_sim.reference import definitions
from sfpu_sim.reference.user_expressions import is_expression, reference_name

BOTH_CHIPS = CHIPS
MODES = ("accurate", "approximate")
DESTS = ("bf16", "fp32")
SPECIAL_NAMES = ("nan", "+inf", "-inf", "+0", "-0")
# The LLK template parameter that picks a kernel's program for the Dst mode (tt-llk kernels are
# ``template <bool APPROXIMATION_MODE, bool is_fp32_dest_acc_en, ...>``).
DEST_PARAM = "is_fp32_dest_acc_en"
ENV_VARIABLE = "SFPU_SIM_KERNELS"
ENTRY_POINT_GROUP = "sfpu_sim.kernels"


class UnknownKernel(SfpuSimError):
    pass


class KernelNotOnChip(SfpuSimError):
    pass


class KernelFileError(SfpuSimError):
    """A kernel file that cannot be loaded, or a kernel that fails while it is built."""


@dataclass(frozen=True)
class KernelSpec:
    """One registered kernel. ``build(arch) -> Program`` makes its instruction stream;
    ``origin`` is where it was registered (``file:line``); ``specials`` declares deliberate
    special-value behaviour (input name -> output pattern), which testing then accepts.

    ``template`` and ``params``: the LLK function template this kernel instantiates and its
    compile-time arguments (``APPROXIMATION_MODE``, ``is_fp32_dest_acc_en``, the op's own), as
    the device compiles it; ``instance_of``: the kernel whose other instantiations this one
    joins (its family; default: itself). See :func:`for_dest`."""
    name: str
    function: str
    chips: tuple[str, ...]
    mode: str
    dest: str
    provenance: str
    build: Callable = field(repr=False, compare=False, default=None)
    description: str = ""
    origin: str = ""
    specials: Mapping[str, int] = field(default_factory=dict, compare=False)
    template: str = ""
    params: Mapping[str, object] = field(default_factory=dict, compare=False)
    instance_of: str = ""
    operands: int = 1            # 2: a binary kernel (in0 at Dst tile 0, in1 at tile 1)
    fixed_y: float | None = None  # a binary op whose second operand the program holds
    _programs: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def instantiation(self) -> str:
        """``calculate_tanh<APPROXIMATION_MODE=false, is_fp32_dest_acc_en=true>``, or "" for
        a kernel registered without its template."""
        if not self.template:
            return ""
        return f"{self.template}<{', '.join(f'{k}={_cpp(v)}' for k, v in self.params.items())}>"

    @property
    def family(self) -> str:
        return self.instance_of or self.name

    def program(self, arch):
        """The kernel's instruction stream for ``arch`` (an Arch or its name), built once."""
        arch = get_arch(arch) if isinstance(arch, str) else arch
        if arch.name not in self.chips:
            raise KernelNotOnChip(f"kernel {self.name!r} does not exist on {arch.title} "
                                  f"(it runs on: {', '.join(self.chips)})")
        if arch.name not in self._programs:
            self._programs[arch.name] = _built(self, arch)
        return self._programs[arch.name]


@dataclass(frozen=True)
class ChainedSpec(KernelSpec):
    """A ttnn op that runs as several device programs with a tensor between each (an op of
    :mod:`sfpu_sim.chained_ops`): ``report``, ``sweep`` and ``eval`` run it through
    ``device_run``; anything that needs one instruction stream is refused in one line.
    ``ops``: the ttnn ops it chains, in order."""
    ops: tuple[str, ...] = ()

    def program(self, arch):
        raise NotOneProgram(f"{self.name} is a chained op ({' -> '.join(self.ops)}, a tensor "
                            f"between each), not one SFPU program: this command needs one "
                            f"kernel program; report, sweep, eval, compare and budget run it")

    def device_run(self, arch, inputs, path, *, fp32_inputs: bool = False):
        raise NotImplementedError


class NotOneProgram(SfpuSimError):
    pass


def _cpp(value) -> str:
    """A template argument as C++ spells it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Instantiation:
    """What runs for a requested Dst mode: ``spec``, the kernel the device compiles for it, and
    ``note``, one line saying how it was chosen (shown by every command)."""
    spec: KernelSpec
    dest: str
    note: str
    modelled: bool = True


def for_dest(spec: KernelSpec, dest: str | None) -> Instantiation:
    """The instantiation of ``spec``'s template that the device compiles for a ``dest`` Dst
    (None: the kernel's own). A template with an ``is_fp32_dest_acc_en`` parameter compiles one
    program per Dst mode: the other mode's instantiation is looked up in ``spec``'s family. If
    it is not modelled, ``spec`` still runs, marked ``modelled=False`` with a note saying the
    device runs another program. A kernel registered with a template but without the parameter
    declares that its code does not depend on it: one program for both."""
    dest = dest or spec.dest
    if dest not in DESTS:
        raise RegistrationError(f"dest {dest!r}: choose from {', '.join(DESTS)}")
    wanted = dest == "fp32"
    if DEST_PARAM not in spec.params:
        if spec.template:
            note = f"{spec.name} = {spec.instantiation}: its code does not depend on " \
                   f"{DEST_PARAM}, so the device runs this program with either Dst"
        elif dest == spec.dest:
            note = f"{spec.name}: written for a {dest.upper()} Dst (no LLK template recorded)"
        else:
            note = f"{spec.name}: written for a {spec.dest.upper()} Dst and run on a " \
                   f"{dest.upper()} Dst; no LLK template is recorded, so whether the device " \
                   f"compiles another program for this Dst is not known here"
        return Instantiation(spec, dest, note)
    if bool(spec.params[DEST_PARAM]) == wanted:
        return Instantiation(spec, dest, f"{spec.name} = {spec.instantiation}")
    for other in _family(spec):
        if (other.family == spec.family and other is not spec
                and bool(other.params.get(DEST_PARAM, not wanted)) == wanted
                and {k: v for k, v in other.params.items() if k != DEST_PARAM}
                == {k: v for k, v in spec.params.items() if k != DEST_PARAM}):
            return Instantiation(other, dest, f"{other.name} = {other.instantiation} (the "
                                              f"{dest.upper()}-Dst instantiation of {spec.name})")
    return Instantiation(spec, dest, f"NOT THE DEVICE'S PROGRAM: {spec.template}<..., {DEST_PARAM}="
                                     f"{_cpp(wanted)}> is not modelled; {spec.name} "
                                     f"({_cpp(not wanted)}) ran on a {dest.upper()} Dst",
                         modelled=False)


def instantiations(spec: KernelSpec) -> list[KernelSpec]:
    """Every registered instantiation in ``spec``'s family, ``spec`` first."""
    family = _family(spec)
    return [spec] + [s for s in family if s.family == spec.family and s is not spec]


def _built(spec: KernelSpec, arch):
    """``spec.build(arch)``; an unexpected exception inside a user's kernel becomes one line
    naming the innermost line of the file that registered it."""
    try:
        with contextlib.redirect_stdout(sys.stderr):    # a print() in a body: not before --json
            return spec.build(arch)
    except SfpuSimError:
        raise
    except SystemExit as stop:
        where = frame_in(stop.__traceback__, spec.origin.rpartition(":")[0]) or spec.origin
        raise KernelFileError(f"{where}: building kernel {spec.name!r} on {arch.name}: the "
                              f"body called sys.exit({stop.code!r}); a kernel body only emits "
                              f"instructions") from None
    except Exception as error:              # a bug in the kernel's Python, not in sfpu-sim
        where = frame_in(error.__traceback__, spec.origin.rpartition(":")[0])
        if where is None:
            raise
        raise KernelFileError(f"{where}: building kernel {spec.name!r} on {arch.name}: "
                              f"{type(error).__name__}: {error}") from None


_REGISTRY: dict[str, KernelSpec] = {}
_BINARY: dict[str, KernelSpec] = {}      # two-operand kernels, also kept out of specs()
_TERNARY: dict[str, KernelSpec] = {}     # three-operand kernels, likewise
_CHAINED: dict[str, ChainedSpec] = {}     # kept out of specs(): they have no single program
_LOADED: set[str] = set()           # kernel files loaded (resolved paths)
_state = {"loaded": False}


def register_kernel(name: str, body=None, *, asm=None, init=None, function: str,
                    chips=CHIPS, dest: str = "bf16", mode: str = "accurate",
                    provenance: str = "", description: str = "", reference=None,
                    specials: Mapping[str, int] | None = None, template: str = "",
                    params: Mapping[str, object] | None = None,
                    instance_of: str = "", operands: int = 1,
                    fixed_y: float | None = None) -> KernelSpec:
    """Register a kernel written with the DSL (:mod:`sfpu_sim.sfpi`), or in assembly.

    ``body``: one iteration of the kernel's loop (reads ``dst_reg``, writes it back), and
    ``init`` (optional): what runs once before (constants, tables); each a function, or a dict
    ``{"wormhole": f, "blackhole": g}`` where the chips run different code. ``asm`` instead of
    ``body``: assembly text or a file (tt-llk's TTI_ lines as pasted), ``init`` then too
    (:mod:`sfpu_sim.assembly_kernels`). ``function``: the
    reference function the kernel approximates (``sfpu-sim`` lists them), or an expression in x
    (``"tan(x)"``, :mod:`sfpu_sim.reference.user_expressions`); with ``reference`` (a
    function of one ``mpmath.mpf``) a new function of that name is defined, correctly rounded by
    the mpmath backend or refused. ``dest``: the Dst format it is written for. ``specials``:
    deliberate special-value results, e.g. ``{"nan": 0x7fc0}``. ``template``, ``params``: the
    LLK template and compile-time arguments this kernel is an instantiation of, e.g.
    ``template="calculate_tanh", params={"APPROXIMATION_MODE": False, "is_fp32_dest_acc_en":
    True}``; ``instance_of``: an already registered kernel of the same template (its other
    instantiations), so ``--dest`` finds the program the device compiles for each Dst mode.
    ``operands=2`` (3): a binary (ternary) kernel, :mod:`sfpu_sim.binary_device`, its ``function``
    one of ``BINARY_FUNCTIONS`` (``TERNARY_FUNCTIONS``); listed by :func:`binary_specs` (ternary).
    ``fixed_y``: a binary op whose second operand is a parameter the program holds (the scalar
    ops' ``x + s``): it reads x alone and is measured only at that y.
    """
    origin = call_site()
    if not isinstance(name, str) or not name.isidentifier():
        raise RegistrationError(f"{origin}: kernel name {name!r} must be an identifier "
                                f"(letters, digits, underscores)")
    chips = _checked_chips(chips, origin)
    builder = assembly_kernels.registered_builder if asm is not None \
        else dsl_kernels.registered_builder
    build = builder(name, body, asm, init, chips, origin)
    return _register(name, build, function=function,
                     chips=chips, dest=dest, mode=mode, provenance=provenance,
                     description=description, reference=reference, specials=specials,
                     origin=origin, template=template, params=params, instance_of=instance_of,
                     operands=operands, fixed_y=fixed_y)


def register_program(name: str, build: Callable, *, function: str, chips=CHIPS,
                     dest: str = "bf16", mode: str = "accurate", provenance: str = "",
                     description: str = "", specials=None, template: str = "",
                     params: Mapping[str, object] | None = None,
                     instance_of: str = "", operands: int = 1) -> KernelSpec:
    """Register a kernel given as a Program builder ``build(arch) -> Program`` (e.g. one
    assembled from text) rather than a DSL body; the other arguments as for
    :func:`register_kernel`."""
    origin = call_site()
    return _register(name, build, function=function, chips=_checked_chips(chips, origin),
                     dest=dest, mode=mode, provenance=provenance, description=description,
                     reference=None, specials=specials, origin=origin, template=template,
                     params=params, instance_of=instance_of, operands=operands)


def _checked_chips(chips, origin: str) -> tuple[str, ...]:
    if isinstance(chips, str):
        chips = (chips,)
    chips = tuple(chips)
    unknown = [c for c in chips if c not in CHIPS]
    if not chips or unknown:
        raise RegistrationError(f"{origin}: chips {chips!r}: choose one or more of "
                                f"{', '.join(CHIPS)}")
    return chips


def _checked_template(template, params, instance_of, dest: str, origin: str) -> dict:
    """``params`` as a dict, after checking they describe one instantiation consistently."""
    params = dict(params or {})
    if not isinstance(template, str) or (template and not template.isidentifier()):
        raise RegistrationError(f"{origin}: template {template!r} must be the LLK function's "
                                f"name (an identifier)")
    if params and not template:
        raise RegistrationError(f"{origin}: params= needs template=, the LLK function they "
                                f"instantiate")
    for key, value in params.items():
        if not isinstance(key, str) or not key.isidentifier() or \
                not isinstance(value, (bool, int, float, str)):
            raise RegistrationError(f"{origin}: template parameter {key!r}={value!r}: names "
                                    f"are identifiers, values bool, int, float or str")
    if DEST_PARAM in params and bool(params[DEST_PARAM]) != (dest == "fp32"):
        raise RegistrationError(f"{origin}: {DEST_PARAM}={_cpp(params[DEST_PARAM])} is the "
                                f"program for {'an FP32' if params[DEST_PARAM] else 'a BF16'} "
                                f"Dst, but dest={dest!r}")
    if instance_of:
        other = _registered(instance_of)
        if other is None or other.name in _CHAINED:
            raise RegistrationError(f"{origin}: instance_of={instance_of!r}: no such kernel "
                                    f"registered yet (register the family's first kernel first)")
        if other.template != template:
            raise RegistrationError(f"{origin}: instance_of={instance_of!r} instantiates "
                                    f"{other.template or 'no template'}, not {template}")
    return params


def _register(name, build, *, function, chips, dest, mode, provenance, description, reference,
              specials, origin, template="", params=None, instance_of="",
              operands=1, fixed_y=None) -> KernelSpec:
    if dest not in DESTS:
        raise RegistrationError(f"{origin}: dest {dest!r}: choose from {', '.join(DESTS)}")
    if mode not in MODES:
        raise RegistrationError(f"{origin}: mode {mode!r}: choose from {', '.join(MODES)}")
    specials = dict(specials or {})
    bad = [k for k in specials if k not in SPECIAL_NAMES]
    if bad:
        raise RegistrationError(f"{origin}: specials key(s) {', '.join(map(repr, bad))}: "
                                f"choose from {', '.join(SPECIAL_NAMES)}")
    taken = _registered(name)
    if taken is not None:
        raise RegistrationError(f"{origin}: kernel {name!r} is already registered (at "
                                f"{taken.origin}); choose another name")
    params = _checked_template(template, params, instance_of, dest, origin)
    check_operands(operands, function, fixed_y, origin)
    if operands > 1:
        pass                # its reference: sfpu_sim.reference.binary_functions' (or ternary_)
    elif reference is not None:
        try:
            references.register_user_function(function, reference, origin, kernel=name)
        except SfpuSimError as error:
            raise RegistrationError(f"{origin}: {error}") from None
    elif function not in references.functions():
        function = _expression_function(function, origin)
    home = {1: _REGISTRY, 2: _BINARY, 3: _TERNARY}[operands]
    family = home[instance_of].family if instance_of else ""
    spec = KernelSpec(name=name, function=function, chips=chips, mode=mode, dest=dest,
                      provenance=provenance, build=build, description=description,
                      origin=origin, specials=specials, template=template, params=params,
                      instance_of=family, operands=operands,
                      fixed_y=None if fixed_y is None else float(fixed_y))
    home[name] = spec
    return spec


def _expression_function(function, origin: str) -> str:
    """A ``function=`` no registered function has: an expression in x (``"tan(x)"``,
    :mod:`sfpu_sim.reference.user_expressions`), or an unknown name, refused in one line."""
    if not isinstance(function, str) or function.isidentifier() and function != "x":
        known = ", ".join(n for n in references.functions() if not is_expression(n))
        raise RegistrationError(f"{origin}: unknown function {function!r} (known: {known}; or "
                                f"pass reference=, a function of one mpmath mpf; or give an "
                                f"expression in x, e.g. function='tan(x)')")
    try:
        return reference_name(function, f"{origin}: function")
    except SfpuSimError as error:
        raise RegistrationError(str(error)) from None


def with_reference(spec: KernelSpec, reference: str, dest: str | None = None) -> KernelSpec:
    """``spec``'s instantiation for a ``dest`` Dst (:func:`for_dest`), measured against
    ``reference`` instead of its own function: a registered function's name or an expression
    in x (``--reference 'tan(x)'``); sweeps then name it as their function."""
    if spec.operands > 1:
        raise RegistrationError(f"--reference: {spec.name} is a binary kernel; its reference "
                                f"is the two-operand function {spec.function!r}, which an "
                                f"expression in x cannot replace")
    return replace(for_dest(spec, dest).spec, function=reference_name(reference))


# --------------------------------------------------------------------------------------------
# Lookup
# --------------------------------------------------------------------------------------------

def _ensure_loaded() -> None:
    """Built-in kernels, installed packages' entry points, then $SFPU_SIM_KERNELS, once."""
    if _state["loaded"]:
        return
    _state["loaded"] = True
    importlib.import_module("kernels")
    _load_entry_points()
    paths = [p for p in os.environ.get(ENV_VARIABLE, "").split(os.pathsep) if p]
    load_kernel_files(paths, what=f"${ENV_VARIABLE}")


def names() -> list[str]:
    _ensure_loaded()
    return sorted(_REGISTRY)


def specs() -> list[KernelSpec]:
    return [_REGISTRY[name] for name in names()]


def get(name: str) -> KernelSpec:
    """A kernel, or a chained op (:class:`ChainedSpec`), by name."""
    _ensure_loaded()
    found = _registered(name)
    if found is None and name.endswith((".s", ".S", ".asm")):   # an assembly file as a kernel
        return _file_kernel(name)
    if found is None:
        known = sorted({*_REGISTRY, *_CHAINED, *_BINARY, *_TERNARY})
        near = near_names(name, known)
        raise UnknownKernel(f"unknown kernel {name!r} ("
                            f"{'near it: ' + ', '.join(near) + '; ' if near else ''}"
                            f"`sfpu-sim kernels` lists all {len(known)}; a kernel of your "
                            f"own: --kernels FILE.py or ${ENV_VARIABLE})")
    return found


_FILE_KERNELS: dict[str, KernelSpec] = {}


def _file_kernel(given: str) -> KernelSpec:
    """An assembly file named on the command line, as a kernel (built once per path)."""
    fields = file_kernel_fields(given)
    key = fields.pop("key")
    if key not in _FILE_KERNELS:
        _FILE_KERNELS[key] = KernelSpec(**fields)
    return _FILE_KERNELS[key]


def binary_specs() -> list[KernelSpec]:
    """The two-operand kernels, by name (not in :func:`specs`, which lists unary ones)."""
    _ensure_loaded()
    return [_BINARY[name] for name in sorted(_BINARY)]


def ternary_specs() -> list[KernelSpec]:
    """The three-operand kernels, by name (in neither :func:`specs` nor :func:`binary_specs`)."""
    _ensure_loaded()
    return [_TERNARY[name] for name in sorted(_TERNARY)]


def _family(spec: KernelSpec) -> list[KernelSpec]:
    return {1: specs, 2: binary_specs, 3: ternary_specs}[spec.operands]()


def _registered(name: str):
    return _REGISTRY.get(name) or _CHAINED.get(name) or _BINARY.get(name) or _TERNARY.get(name)


def chained_specs() -> list[ChainedSpec]:
    """The chained ops, by name (not in :func:`specs`, which lists single programs)."""
    _ensure_loaded()
    return [_CHAINED[name] for name in sorted(_CHAINED)]


def add_chained(spec: ChainedSpec) -> ChainedSpec:
    """Register a chained op built by :mod:`sfpu_sim.chained_ops`."""
    taken = _REGISTRY.get(spec.name) or _CHAINED.get(spec.name)
    if taken is not None:
        raise RegistrationError(f"{spec.origin}: {spec.name!r} is already registered (at "
                                f"{taken.origin}); choose another name")
    if spec.function not in references.functions():
        raise RegistrationError(f"{spec.origin}: unknown function {spec.function!r}")
    _CHAINED[spec.name] = spec
    return spec


# --------------------------------------------------------------------------------------------
# Kernel files
# --------------------------------------------------------------------------------------------

def load_kernel_files(paths, what: str = "--kernels") -> list[str]:
    """Load kernel files (a directory: every ``*.py`` in it, sorted); returns the names they
    registered. A file already loaded is not loaded again."""
    _ensure_loaded()
    added = []
    for given in paths:
        path = Path(given)
        try:
            directory = path.is_dir()
        except OSError as error:                # e.g. a name longer than the file system takes
            raise KernelFileError(f"{what} {given}: {error.strerror or error}") from None
        if directory:
            for file in sorted(path.glob("*.py")):
                added += _load_file(file)
        else:
            added += _load_file(path, given_as=f"{what} {given}")
    return added


def load_isolated(path) -> dict[str, KernelSpec]:
    """The kernels one file registers, kept apart from the registry (so two versions of a
    kernel that share a name can be compared): the file runs against an empty registry and
    its reference functions are forgotten afterwards."""
    _ensure_loaded()
    path = Path(path)
    global _REGISTRY
    saved, functions = _REGISTRY, dict(definitions.FUNCTIONS)
    _REGISTRY = {}
    try:
        _load_file(path, again=True)
        return _REGISTRY
    finally:
        _REGISTRY = saved
        definitions.FUNCTIONS.clear()
        definitions.FUNCTIONS.update(functions)


def _load_file(path: Path, again: bool = False, given_as: str = "") -> list[str]:
    """Run one kernel file (``given_as``: how the user named it, for "no such file"). It is
    compiled under its resolved path: its frames then name one absolute file, which traced
    lines (:mod:`sfpu_sim.sfpi.tracing`) and error lines find from any working directory."""
    resolved = path.resolve()
    if str(resolved) in _LOADED and not again:
        return []
    shown = display_path(resolved)
    text = _kernel_file_text(path, shown, given_as or shown)
    if not again:
        _LOADED.add(str(resolved))
    try:
        code = compile(text, str(resolved), "exec")
    except SyntaxError as error:
        raise KernelFileError(f"{shown}:{error.lineno}: syntax error: {error.msg}") from None
    module = types.ModuleType(f"sfpu_sim_user_kernels.{path.stem}_{len(_LOADED)}")
    module.__file__ = str(resolved)
    sys.modules[module.__name__] = module
    before = set(_REGISTRY)
    try:
        with contextlib.redirect_stdout(sys.stderr):    # a print() in it: not before --json
            exec(code, module.__dict__)
    except SfpuSimError:
        raise
    except SystemExit as stop:              # would end the command with no word, status 0
        where = frame_in(stop.__traceback__, shown) or shown
        raise KernelFileError(f"{where}: the kernel file called sys.exit({stop.code!r}); a "
                              f"kernel file only defines and registers kernels") from None
    except Exception as error:
        where = frame_in(error.__traceback__, shown) or shown
        raise KernelFileError(f"{where}: {type(error).__name__}: {error}") from None
    return sorted(set(_REGISTRY) - before)


def _kernel_file_text(path: Path, shown: str, given_as: str) -> str:
    """The source text of a kernel file. Only a regular file is opened: opening a FIFO blocks
    until somebody writes to it (forever), and a device or socket is no Python source."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise KernelFileError(f"{given_as}: no such file or directory") from None
    except OSError as error:
        raise KernelFileError(f"{shown}: cannot read: {error.strerror}") from None
    if not stat.S_ISREG(mode):
        raise KernelFileError(f"{shown}: not a regular file (a FIFO, device, socket or "
                              f"directory is never read as a kernel file)")
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise KernelFileError(f"{shown}: not UTF-8 text (byte {error.start}); a kernel file is "
                              f"Python source") from None
    except OSError as error:
        raise KernelFileError(f"{shown}: cannot read: {error.strerror}") from None


def _load_entry_points() -> None:
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            with contextlib.redirect_stdout(sys.stderr):  # as a kernel file's: not before --json
                point.load()
        except SfpuSimError:
            raise
        except (Exception, SystemExit) as error:
            raise KernelFileError(f"entry point {point.name} = {point.value} (group "
                                  f"{ENTRY_POINT_GROUP}): {type(error).__name__}: "
                                  f"{error}") from None
