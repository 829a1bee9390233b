"""A lanewise definition specialised to one instruction: its statements, written into a program.

Owns: :func:`specialize`, which turns one call of a lanewise definition
(:class:`sfpu_sim.isa.lanewise.Semantics`' ``value`` or ``flags``) into straight statements of
the compiled program: the definition's own syntax tree with its fields and state put in as
constants, folded, the branches they decide dropped, and each ``return`` made an assignment.
Knows nothing of registers or predication: the caller names the operands and the result.

Why not a call: a compiled program has a hundred or more instruction sites. numba's own
``inline='always'`` re-analyses the whole program at each one (23 of 50 s compiling
gelu_2026_09 went there), and a plain call compiles one specialisation per distinct literal
field. The definition's text, partially evaluated here, is what the hand-written snippets were:
about as fast to compile, and every field test already decided.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import re
import textwrap
from collections import Counter
from functools import cache, lru_cache
from typing import NamedTuple

__all__ = ["NotSpecialized", "Specialized", "specialize"]

_INT_RANGE = (-(1 << 63), 1 << 64)      # what the program's int64 / uint64 values can hold
_FOLDABLE = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp)
_UNSUPPORTED = (ast.For, ast.While, ast.Try, ast.With, ast.Lambda, ast.ListComp,
                ast.GeneratorExp, ast.Global, ast.Nonlocal, ast.FunctionDef, ast.Yield)


def _copied(node):
    """A deep copy of a syntax tree (nodes and lists new, leaves shared: every leaf of a
    parsed tree - names, numbers, strings - is immutable); copy.deepcopy's memo made it the
    largest part of generating a program's code."""
    if isinstance(node, ast.AST):
        new = node.__class__()
        for name, value in ast.iter_fields(node):
            setattr(new, name, _copied(value))
        for name in node._attributes:
            if hasattr(node, name):
                setattr(new, name, getattr(node, name))
        return new
    if isinstance(node, list):
        return [_copied(item) for item in node]
    return node


class NotSpecialized(Exception):
    """The definition uses what cannot be written into a program (a loop, a nested function)."""


class Specialized(NamedTuple):
    """Statements (source lines, unindented) assigning the definition's result to ``result``,
    and the ``(module, name, alias)`` imports its global callables need."""
    lines: tuple[str, ...]
    imports: frozenset[tuple[str, str, str]]


def specialize(function, arguments: dict[str, int | str], result: str) -> Specialized:
    """``result = function(**arguments)`` as statements: an int argument is a constant folded
    into the body, a string one the program expression the parameter reads.

    Locals are renamed ``x<letters>_``, so that the program's per-instruction and per-lane
    renaming of temporaries (``compiled.codegen``) makes them unique per site. A helper the
    definition assigns from (``x = helper(...)``, ``return helper(...)``) is specialised into
    it in turn, so that its tests on constants fold too; one called inside an expression stays
    a call."""
    # Register operands (``r3``) are passed as numbered stand-ins, so that one instruction on
    # other registers is the same cached specialisation; a stand-in is a plain name, as the
    # register is, and is replaced by it in the finished lines.
    registers: dict[str, str] = {}
    canonical = tuple((p, _stand_in(v, registers)) for p, v in arguments.items())
    done = _specialize(function, canonical, result)
    if not registers:
        return done
    spelled = {stand_in: register for register, stand_in in registers.items()}
    return Specialized(tuple(_STAND_IN.sub(lambda m: spelled[m.group(0)], line)
                             for line in done.lines), done.imports)


_REGISTER = re.compile(r"r\d+")
_STAND_IN = re.compile(r"\bsfpu_register_operand_\d+\b")


def _stand_in(value, registers: dict[str, str]):
    """A register operand's numbered stand-in (numbered in order of first use, so that two
    parameters given one register still share one name); any other argument as it is."""
    if not isinstance(value, str) or not _REGISTER.fullmatch(value):
        return value
    return registers.setdefault(value, f"sfpu_register_operand_{len(registers)}")


@lru_cache(maxsize=8192)        # a program repeats its instructions; ready() regenerates it
def _specialize(function, arguments: tuple, result: str) -> Specialized:
    arguments = dict(arguments)
    context = _Context()
    statements = _specialized(function, {p: _argument(v) for p, v in arguments.items()},
                              result, "x", context)
    statements = _dead_stores_removed(_propagated(statements, context.taken), context.taken)
    module = ast.fix_missing_locations(ast.Module(statements, []))
    named = {node.id for node in ast.walk(module) if isinstance(node, ast.Name)}
    return Specialized(tuple(ast.unparse(module).splitlines()),
                       frozenset(entry for entry in context.imports if entry[2] in named))


class _Context:
    """What one specialisation shares across the helpers it takes in: the imports, the
    objects they name, and the local names taken."""

    def __init__(self):
        self.imports: set[tuple[str, str, str]] = set()
        self.objects: dict[str, object] = {}
        self.taken: set[str] = set()
        self.prefixes = 0

    def prefix(self, names: set[str]) -> str:
        """A new prefix under which none of ``names`` meets a name already taken."""
        while True:
            self.prefixes += 1
            n, letters = self.prefixes, ""
            while n:
                n, digit = divmod(n - 1, 26)
                letters = chr(ord("a") + digit) + letters
            prefix = f"x{letters}"
            if not {_local_name(prefix, name) for name in names} & self.taken:
                return prefix


def _specialized(function, arguments: dict[str, ast.expr], result: str, prefix: str,
                 context: _Context) -> list[ast.stmt]:
    tree = _definition(function)
    name = tree.name
    parameters = [a.arg for a in tree.args.args]
    if set(parameters) != set(arguments):
        raise NotSpecialized(f"{name}: arguments {sorted(arguments)}, parameters {parameters}")
    assigned = _stored_names(tree)
    rename = {local: _local_name(prefix, local) for local in sorted(assigned | set(parameters))}
    if len(set(rename.values())) != len(rename) or set(rename.values()) & context.taken:
        raise NotSpecialized(f"{name}: two locals share a renamed form")
    context.taken |= set(rename.values())
    prologue = [ast.Assign([ast.Name(rename[p], ast.Store())], arguments[p])
                for p in parameters if p in assigned]       # a reassigned parameter: a local
    direct = {p: arguments[p] for p in parameters if p not in assigned}
    resolver = _Names(function, direct, rename, context)
    body = [resolver.visit(_copied(statement)) for statement in tree.body]
    body = _returns_assigned(_fold_statements(prologue + body), result, name)
    return _fold_statements(_helpers_taken_in(body, context))


def _helpers_taken_in(statements: list[ast.stmt], context: _Context) -> list[ast.stmt]:
    """``x = helper(a, b)`` replaced by the helper's statements assigning ``x`` (arguments
    that are neither names nor constants bound to locals first)."""
    out = []
    for statement in statements:
        if isinstance(statement, ast.If):
            statement.body = _helpers_taken_in(statement.body, context)
            statement.orelse = _helpers_taken_in(statement.orelse, context)
        helper = _helper_call(statement, context)
        if helper is None:
            out.append(statement)
            continue
        function, call = helper
        tree = _definition(function)
        prefix = context.prefix({a.arg for a in tree.args.args} | _stored_names(tree) |
                                {f"argument{k}" for k in range(len(call.args))})
        arguments, bound = {}, []
        for k, (parameter, value) in enumerate(zip(tree.args.args, call.args)):
            if not (_constant(value) or isinstance(value, ast.Name)):
                local = _local_name(prefix, f"argument{k}")
                context.taken.add(local)
                bound.append(ast.Assign([ast.Name(local, ast.Store())], value))
                value = ast.Name(local, ast.Load())
            arguments[parameter.arg] = value
        out += bound + _specialized(function, arguments, statement.targets[0].id, prefix,
                                    context)
    return out


def _helper_call(statement: ast.stmt, context: _Context):
    """(helper, call) where ``statement`` assigns a name from a call of a helper written in
    Python (a numba dispatcher of this package) with positional arguments; else None."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and
            isinstance(statement.targets[0], ast.Name) and
            isinstance(statement.value, ast.Call) and
            isinstance(statement.value.func, ast.Name) and not statement.value.keywords):
        return None
    function = context.objects.get(statement.value.func.id)
    python = getattr(function, "py_func", None)
    if python is None or not python.__module__.startswith("sfpu_sim."):
        return None
    try:
        tree = _definition(function)
    except NotSpecialized:
        return None
    if len(tree.args.args) != len(statement.value.args) or any(
            isinstance(a, ast.Starred) for a in statement.value.args):
        return None
    return function, statement.value


def _dead_stores_removed(statements: list[ast.stmt], locals_: set[str]) -> list[ast.stmt]:
    """Assignments to locals nothing reads, where the value calls nothing, dropped."""
    while True:
        module = ast.Module(statements, [])
        read = {node.id for node in ast.walk(module)
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        dead = {node.targets[0].id for node in ast.walk(module)
                if isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id in locals_
                and node.targets[0].id not in read
                and not any(isinstance(n, ast.Call) for n in ast.walk(node.value))}
        if not dead:
            return statements
        statements = _fold_statements([kept for kept in map(_Drop(dead).visit, statements)
                                       if kept is not None])


class _Drop(ast.NodeTransformer):
    def __init__(self, names: set[str]):
        self.names = names

    def visit_Assign(self, node: ast.Assign):
        target = node.targets[0]
        if len(node.targets) == 1 and isinstance(target, ast.Name) and target.id in self.names:
            return None
        return node


@cache
def _definition(function) -> ast.FunctionDef:
    """The definition's syntax tree, docstring dropped (parsed once per function)."""
    python = getattr(function, "py_func", function)
    tree = ast.parse(textwrap.dedent(inspect.getsource(python))).body[0]
    if not isinstance(tree, ast.FunctionDef) or tree.args.vararg or tree.args.kwarg or \
            tree.args.kwonlyargs or tree.args.defaults:
        raise NotSpecialized(f"{python.__name__}: not a plain function of positional arguments")
    for node in ast.walk(ast.Module(tree.body, [])):
        if isinstance(node, _UNSUPPORTED):
            raise NotSpecialized(f"{python.__name__}: {type(node).__name__} at line "
                                 f"{node.lineno} is not written into programs")
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    tree.body = body
    return tree


def _stored_names(tree: ast.FunctionDef) -> set[str]:
    return {node.id for node in ast.walk(ast.Module(tree.body, []))
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}


def _local_name(prefix: str, name: str) -> str:
    """Lowercase letters only (a digit d spelled ``z`` and the d-th letter, ``_`` as ``zz``):
    the form the program's renaming of temporaries takes up."""
    letters = "".join(c.lower() if c.isalpha() else "zz" if c == "_" else "z" + chr(97 + int(c))
                      for c in name)
    return f"{prefix}{letters}_"


def _argument(value: int | str) -> ast.expr:
    if isinstance(value, str):
        return ast.parse(value, mode="eval").body
    return ast.Constant(int(value))


class _Names(ast.NodeTransformer):
    """Parameters replaced by their arguments, locals renamed, globals resolved: an int or
    bool constant folded in, a callable imported under an alias unique to its module."""

    def __init__(self, function, direct: dict[str, ast.expr], rename: dict[str, str],
                 context: _Context):
        python = getattr(function, "py_func", function)
        self.module, self.globals = python.__module__, python.__globals__
        self.direct, self.rename, self.context = direct, rename, context

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.direct:
            return _copied(self.direct[node.id])
        if node.id in self.rename:
            return ast.copy_location(ast.Name(self.rename[node.id], node.ctx), node)
        if node.id in self.globals:
            value = self.globals[node.id]
            if isinstance(value, bool):
                return ast.copy_location(ast.Constant(value), node)
            if isinstance(value, int):          # an IntEnum too: its value, not its repr
                return ast.copy_location(ast.Constant(int(value)), node)
            alias = f"_{self.module.rsplit('.', 1)[-1]}_{node.id.lstrip('_')}"
            self.context.imports.add((self.module, node.id, alias))
            self.context.objects[alias] = value
            return ast.copy_location(ast.Name(alias, node.ctx), node)
        if hasattr(builtins, node.id):
            return node
        raise NotSpecialized(f"{node.id} is not defined where the definition is")


# --- partial evaluation ----------------------------------------------------------------------
def _constant(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (bool, int))


class _Fold(ast.NodeTransformer):
    """Expressions of constants evaluated (as Python does, where the value fits the program's
    64 bits); a conditional expression or a leading operand of ``and``/``or`` decided by a
    constant reduced to what it selects."""

    def generic_visit(self, node):
        node = super().generic_visit(node)
        if isinstance(node, ast.IfExp) and _constant(node.test):
            return node.body if node.test.value else node.orelse
        if isinstance(node, ast.BoolOp):
            return _fold_boolean(node)
        if isinstance(node, _FOLDABLE) and all(
                _constant(child) for child in ast.iter_child_nodes(node)
                if isinstance(child, ast.expr)):
            try:
                value = eval(compile(ast.fix_missing_locations(ast.Expression(node)),
                                     "<fold>", "eval"),
                             {"__builtins__": {}})
            except (ArithmeticError, ValueError):  # left for the program, as written
                return node
            if isinstance(value, bool) or isinstance(value, int) and \
                    _INT_RANGE[0] <= value < _INT_RANGE[1]:
                return ast.copy_location(ast.Constant(value), node)
        return node


def _fold_boolean(node: ast.BoolOp) -> ast.expr:
    deciding = isinstance(node.op, ast.Or)        # a truthy operand decides ``or``
    values = list(node.values)
    while values and _constant(values[0]):
        if bool(values[0].value) == deciding or len(values) == 1:
            return values[0]
        values.pop(0)
    return values[0] if len(values) == 1 else ast.BoolOp(node.op, values)


def _fold_statements(statements: list[ast.stmt]) -> list[ast.stmt]:
    """Statements with their expressions folded; an ``if`` on a constant replaced by the
    branch it takes."""
    out = []
    for statement in statements:
        statement = _Fold().visit(statement)
        if isinstance(statement, ast.If):
            if _constant(statement.test):
                out += _fold_statements(statement.body if statement.test.value
                                        else statement.orelse)
                continue
            statement.body = _fold_statements(statement.body) or [ast.Pass()]
            statement.orelse = _fold_statements(statement.orelse)
        out.append(statement)
    return out


def _propagated(statements: list[ast.stmt], locals_: set[str]) -> list[ast.stmt]:
    """A local assigned once, from a constant or a name, replaced by what it copies (folded
    again): ``a = va ^ SIGN if mod1 & NEGATE_VA else va`` with mod1 = 0 leaves no copy of
    ``va`` for numba to carry."""
    while True:
        module = ast.Module(statements, [])
        stores = Counter(node.id for node in ast.walk(module)
                         if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
        copies = {node.targets[0].id: node.value for node in ast.walk(module)
                  if isinstance(node, ast.Assign) and len(node.targets) == 1
                  and isinstance(node.targets[0], ast.Name) and node.targets[0].id in locals_
                  and stores[node.targets[0].id] == 1
                  and (_constant(node.value) or isinstance(node.value, ast.Name)
                       and stores[node.value.id] <= 1)}
        if not copies:
            return statements
        name, value = next(iter(sorted(copies.items(), key=lambda item: item[0])))
        substitute = _Substitute(name, value)
        statements = _fold_statements([kept for kept in map(substitute.visit, statements)
                                       if kept is not None])


class _Substitute(ast.NodeTransformer):
    def __init__(self, name: str, value: ast.expr):
        self.name, self.value = name, value

    def visit_Assign(self, node: ast.Assign):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                node.targets[0].id == self.name:
            return None                         # the copy itself
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name):
        return _copied(self.value) if node.id == self.name else node


def _returns_assigned(statements: list[ast.stmt], result: str, name: str) -> list[ast.stmt]:
    """Each ``return e`` made ``result = e``, the statements after an ``if`` that may return
    moved into both of its branches, so that every path ends in exactly one assignment."""
    out = []
    for k, statement in enumerate(statements):
        if isinstance(statement, ast.Return):
            if statement.value is None:
                raise NotSpecialized(f"{name}: a bare return")
            out.append(ast.Assign([ast.Name(result, ast.Store())], statement.value))
            return out
        if isinstance(statement, ast.If) and _returns(statement):
            rest = statements[k + 1:]
            statement.body = _returns_assigned(statement.body + rest, result, name)
            statement.orelse = _returns_assigned(statement.orelse + rest, result, name)
            out.append(statement)
            return out
        out.append(statement)
    raise NotSpecialized(f"{name}: a path that returns nothing")


def _returns(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))
