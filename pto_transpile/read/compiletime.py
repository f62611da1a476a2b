"""Names PyPTO's JIT binds at compile time, read from the decorator and the key class.

`@pl.jit(tiling_key=Key, datatype={"x": "data_dtype"})` makes every field of the class
`Key` (`HasAtten = TilingKeyField(bits=1, values=[0, 1])`, in definition order) a
compile-time constant of each kernel instance, and each `datatype=` value a dtype name.
The JIT compiles one kernel per key: every combination of the fields' `values` that the
class's optional `is_valid(self, key)` accepts (`key` is the tuple of values in field
order). `instances()` lists those combinations, bounded by MAX_INSTANCES; combinations
`is_valid` rejects are left out when it can be evaluated statically (the safe constant
evaluator over a few plain statements), and kept otherwise.
"""

from __future__ import annotations

import itertools
from collections import ChainMap
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from pto_transpile.read import partial
from pto_transpile.read.classnames import attribute_rebound, class_rebound
from pto_transpile.read.consteval import ConstEvaluator, NotConstant, PlSymbol
from pto_transpile.read.effects import CLASS_ATTRIBUTES, PURE_BUILTINS
from pto_transpile.read.meaning import Class, Function, Meaning, Unknown, Value
from pto_transpile.read.modulenames import target_names
from pto_transpile.read.walk import iter_nodes

#: Instances of one kernel the analysis follows; past it a diagnostic says so (PTO071).
MAX_INSTANCES = 64
#: `is_valid` evaluations spent finding them (each prunes the combinations it rules out).
MAX_CHECKS = 4096


@dataclass(frozen=True)
class KeyField:
    name: str
    values: tuple[int, ...] | None  #: None when they are not distinct compile-time integers
    node: cst.CSTNode  #: the `TilingKeyField(...)` call
    problem: str = ""  #: why `values` is None
    #: the name may hold no field at all: it is bound to a value the check cannot read (`B = F(...)`,
    #: `A = B = ...`), which the JIT takes for a field only if it is a `TilingKeyField`
    maybe: bool = False


@dataclass
class TilingKey:
    """The class given as `tiling_key=`."""

    name: str
    node: cst.ClassDef
    fields: list[KeyField] = field(default_factory=list)
    is_valid: cst.FunctionDef | None = None
    #: the module names as bound when the class statement ran (None: not known), which its
    #: body and the defaults of `is_valid` saw
    scope: dict[str, Meaning] | None = None
    #: the names `is_valid`'s defaults are computed over: the class body's before the `def`, then
    #: the module's (as bound at the end, and when the class ran: None when not known)
    defaults_env: tuple = (None, None)


@dataclass
class JitNames:
    """What one `@pl.jit(...)` decorator binds in its kernel."""

    key: TilingKey | None = None
    key_node: cst.BaseExpression | None = None  #: the `tiling_key=` value, when given
    key_problem: str = ""  #: why the key's fields cannot be read (not a class of this file, ...)
    datatypes: dict[str, str] = field(default_factory=dict)  #: kernel parameter -> dtype name
    datatype_node: cst.BaseExpression | None = None

    @property
    def names(self) -> set[str]:
        """The names the JIT binds in the kernel: the key's fields and the dtype names."""
        fields = {f.name for f in self.key.fields} if self.key is not None else set()
        return fields | set(self.datatypes.values())


@dataclass(frozen=True)
class Instances:
    """The tiling-key instances of one kernel: `keys` (field -> value dicts), or why they
    cannot be listed (`problem`, with `keys` empty)."""

    keys: tuple[dict[str, int], ...]
    problem: str = ""
    node: cst.CSTNode | None = None  #: where the problem lies
    kind: str = ""  #: "too-many", "not-static" or "none-valid" (with a problem)
    #: the keys among `keys` kept only because `is_valid` could not be evaluated for them (as
    #: tuples of their values in field order): maybe never compiled
    undecided: frozenset = frozenset()

    @property
    def known(self) -> bool:
        return not self.problem


def jit_call(decorator: cst.Decorator, pl) -> cst.Call | None:
    """The `pl.jit(...)` call of a decorator, or None (a bare `@pl.jit` binds nothing)."""
    node = decorator.decorator
    if isinstance(node, cst.Call) and pl.path(node.func) == ("jit",):
        return node
    return None


def read_jit(file, call: cst.Call | None, defined: cst.FunctionDef | None = None) -> JitNames:
    """The names `@pl.jit(tiling_key=..., datatype=...)` binds, the decorator of `defined`."""
    jit = JitNames()
    if call is None:
        return jit
    for arg in call.args:
        if arg.keyword is None:
            continue
        if arg.keyword.value == "tiling_key":
            jit.key_node = arg.value
            jit.key, jit.key_problem = _key_class(file, arg.value, file.names.scopes.get(defined))
        elif arg.keyword.value == "datatype":
            jit.datatype_node = arg.value
            jit.datatypes = _datatypes(file, arg.value)
    return jit


def _key_class(file, node: cst.BaseExpression, scope: dict | None = None) -> tuple[TilingKey | None, str]:
    """The class `tiling_key=` names, as the decorator saw it (`scope`: the module names when the
    kernel's `def` ran, when known), and why its fields cannot be read ("" when they can)."""
    meaning = file.meaning(node.value) if isinstance(node, cst.Name) else None
    if not isinstance(meaning, Class):
        what = f"`{file.source.code(node)}`"
        if isinstance(meaning, Unknown):
            return None, f"{what} is not a class of this file ({meaning.reason})"
        return None, f"{what} is not a class defined in this file"
    if scope is not None and isinstance(node, cst.Name) and scope.get(node.value) != meaning:
        return None, (f"`{node.value}` is bound to another class after the kernel: the JIT reads the one it named "
                      "when the decorator ran")
    cls = meaning.node
    if isinstance(cls, partial.Verbatim):
        raise partial.ReadWhole(f"the tiling-key class `{cls.name}` was kept as text")
    key = TilingKey(cls.name.value, cls, scope=file.names.scopes.get(cls))
    problem = _unread_body(file, cls) or _changed_elsewhere(file, cls) or _mangled_in(cls)
    # the class body's own names come first in what it computes (`MAX = 4; A = ...(values=list(range(MAX)))`)
    now: dict[str, Meaning] = {}
    then: dict[str, Meaning] = {}
    envs = (ChainMap(now, file.names.meanings), ChainMap(then, key.scope) if key.scope is not None else None)
    for stmt in cls.body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                target = value = None
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target, value = small.targets[0].target, small.value
                elif isinstance(small, cst.AnnAssign):
                    target, value = small.target, small.value
                elif isinstance(small, cst.Assign):  # `A = B = ...`, bound together
                    _bound_together(file, key, [t.target for t in small.targets], small.value, envs[0])
                    continue
                if isinstance(target, (cst.Tuple, cst.List)) and value is not None:  # `A, B = ...`
                    _bound_together(file, key, [target], value, envs[0])
                    continue
                if not isinstance(target, cst.Name) or value is None:
                    continue
                if target.value == "is_valid" and not (isinstance(value, cst.Call) and _is_key_field(file, value)):
                    # (`is_valid = lambda self, key: ...`, `= staticmethod(f)`: probe h198 had it read as a field)
                    problem = problem or ("binds `is_valid` by an assignment, which the check does not run: write it "
                                          "as `def is_valid(self, key):`")
                    continue
                if isinstance(value, cst.Call) and _is_key_field(file, value):
                    key.fields.append(_key_field(file, target.value, value, *envs))
                    now[target.value] = then[target.value] = Unknown("a tiling-key field")
                else:
                    _forget_lists_called(file, value, now, then)
                    now[target.value] = _meaning_in(file, envs[0], value)
                    then[target.value] = _meaning_in(file, envs[1], value) if envs[1] is not None else now[target.value]
                    if isinstance(now[target.value], Unknown):  # (`B = F(...)` with `F = TilingKeyField`)
                        key.fields.append(KeyField(target.value, None, value, _MAYBE_FIELD, maybe=True))
        elif isinstance(stmt, cst.FunctionDef) and stmt.name.value == "is_valid":
            key.is_valid = stmt
            key.defaults_env = (ChainMap(dict(now), file.names.meanings),
                                ChainMap(dict(then), key.scope) if key.scope is not None else None)
    if any(not (isinstance(b.value, cst.Name) and b.value.value == "object" and file.meaning("object") is None)
           for b in cls.bases):
        return key, f"class `{key.name}` derives from another class, whose fields are not read"
    if problem:
        return key, f"class `{key.name}` {problem}"
    derived = next((c.func.value for c in iter_nodes(cls.body) if isinstance(c, cst.Call)
                    and isinstance(c.func, cst.Name) and _derives_key_field(file, c.func.value)), None)
    if derived is not None:  # (read as a plain class attribute, the field would be no name of the kernel's)
        return None, (f"class `{key.name}` makes fields by `{derived}`, a class of this file derived from "
                      "`TilingKeyField`, whose fields the check does not read: make each field by "
                      "`TilingKeyField(...)` itself")
    if not key.fields:
        return None, f"class `{key.name}` declares no `TilingKeyField`"
    return key, ""


#: why a name of a key class bound to a value the check cannot read is refused: the JIT takes
#: every `TilingKeyField` among the class's attributes for a field, however it was made
_MAYBE_FIELD = ("it is bound to a value the check cannot read, which the JIT takes for a field when it is a "
                "`TilingKeyField` (made through another name, picked from a container, ...): make each field by "
                "`NAME = TilingKeyField(...)` itself, and bind the class's other names to constants")


def _bound_together(file, key: TilingKey, targets: list, value: cst.BaseExpression, env) -> None:
    """Names of a key class bound by one statement (`A = B = ...`, `A, B = ...`): plain constants
    are no fields; any other value may hold a `TilingKeyField` under each name, a field the JIT
    enumerates and the check cannot, so each is a field with that problem."""
    if isinstance(_meaning_in(file, env, value), Value):
        return
    for name in (n for t in targets for n in target_names(t)):
        key.fields.append(KeyField(name, None, value, "it is bound together with other names (`A = B = ...`, "
                                                      "`A, B = ...`), which the check does not read: bind each "
                                                      "field by `NAME = TilingKeyField(...)` on a line of its own",
                                   maybe=True))


def _mangled_in(cls: cst.ClassDef) -> str:
    """Why a key class's body cannot be read as written: it spells `__X`, which Python reads as
    `_Class__X` there (name mangling), or a name of the class's own namespace (`__qualname__`:
    probe h116); "" otherwise."""
    found = next((n.value for n in iter_nodes(cls.body) if isinstance(n, cst.Name) and n.value.startswith("__")
                  and not (n.value.endswith("__") and n.value not in ("__qualname__", "__module__"))), None)
    return f"names `{found}` in its body, which Python reads under another name there" if found else ""


def _forget_lists_called(file, value: cst.BaseExpression, *envs: dict[str, Meaning]) -> None:
    """A call in the class body other than a builtin that changes nothing (`_more =
    MODES.append(1)`) may change a list the body's names hold: those names are unknown from
    here on, so a field's `values=MODES` is not read as the list before the call."""
    calls = [n for n in iter_nodes(value) if isinstance(n, cst.Call)]
    if all(isinstance(c.func, cst.Name) and c.func.value in PURE_BUILTINS and file.meaning(c.func.value) is None
           for c in calls):
        return
    for env in envs:
        for name, meaning in list(env.items()):
            if isinstance(meaning, Value) and isinstance(meaning.value, (list, dict, set)):
                env[name] = Unknown("a call in the class body may have changed it")


def class_unchanged(file, cls: cst.ClassDef) -> bool:
    """Whether the attributes of `cls` are what its body's statements bind, whenever the file
    reads them: no metaclass, special method or statement the check does not follow in its
    body, and nothing in the file that sets or hands out the class, nor sets an attribute named
    as one of its members anywhere (`C.A, x = 1, 0`, `for C.A in ...`: Python's tree of the
    whole file, which the effects reading walks only where a statement mentions its words)."""
    if _unread_body(file, cls) or _changed_elsewhere(file, cls):
        return False
    text = file.source.text
    return not class_rebound(text, cls.name.value) and not any(attribute_rebound(text, n) for n in _member_names(cls))


def class_constant(file, cls: cst.ClassDef, value: cst.BaseExpression) -> Any:
    """The value a class attribute's expression had when the class statement ran, where it is
    the same at the module's end (no name it reads rebound or changed after the class) and
    cannot change in place (numbers, strings, tuples of them); `NOT_CONSTANT` otherwise."""
    then = _as_then(file, file.names.scopes.get(cls, {}), value)
    now = file.evaluator.try_eval(value, _NOT_CONSTANT)
    if then is _NOT_CONSTANT or now is _NOT_CONSTANT or type(then) is not type(now) or then != now \
            or not _immutable(then):
        return _NOT_CONSTANT
    return then


def _immutable(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_immutable(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def _changed_elsewhere(file, cls: cst.ClassDef) -> str:
    """Why the class the statement made may not be what the JIT reads ("" when nothing in the
    file can change it): an attribute named as one of its fields, `is_valid` or a special one
    set or deleted anywhere in the file, on any object (`K2 = K; K2.A = ...`, `type(k).A =
    ...`, `setattr` by a computed name), or the class handed to a call that is not a function
    of this file (whose body that scan reads) nor a builtin that changes nothing."""
    effects = file.names.effects
    hit = effects.attribute_set([*_member_names(cls), "is_valid", *sorted(CLASS_ATTRIBUTES)])
    if hit is not None:
        attr, line = hit
        what = "an attribute by a computed name" if attr == "*" else f"an attribute named `{attr}`"
        return f"may be changed after its statement: the file sets {what} (line {line})"
    name = cls.name.value
    if name in effects.touched:  # a use that may change it (`K.A.__init__(...)`, `Holder.k = K`)
        line, how = effects.touched[name]
        return f"may be changed after its statement: {how} (line {line})"
    pl_names = {file.pl.module_ref or "pl", *getattr(file.pl, "aliases", ())}
    for callee in sorted(effects.handed.get(name, ())):
        head = callee.partition(".")[0]
        if head in pl_names and file.pl.path(cst.parse_expression(callee)) is not None:
            continue  # `pl.jit(tiling_key=K)`: the JIT reads it
        if not (callee == head and isinstance(file.meaning(head), Function)):
            return f"is handed to `{callee or 'a call'}`, which may change it"
    return ""


def _member_names(cls: cst.ClassDef) -> list[str]:
    """The names the assignments of the class body bind."""
    return [t for stmt in cls.body.body if isinstance(stmt, cst.SimpleStatementLine)
            for small in stmt.body if isinstance(small, (cst.Assign, cst.AnnAssign))
            for t in (target_names(small.target) if isinstance(small, cst.AnnAssign)
                      else [n for target in small.targets for n in target_names(target.target)])]


def _unread_body(file, cls: cst.ClassDef) -> str:
    """Why the class body may make the JIT read other fields or another `is_valid` than its
    statements say ("" when it cannot): a metaclass, a special method (`__init__` may set
    `self.is_valid`), a name bound twice (`is_valid = lambda ...` after the `def`), a statement
    other than an assignment or a `def`, `is_valid` decorated other than as a static method."""
    if cls.keywords:
        return "is made by a metaclass or with class keywords, which may change its attributes"
    seen: set[str] = set()
    for stmt in cls.body.body:
        names: list[str] = []
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                    [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else []
                if any(isinstance(n, (cst.Attribute, cst.Subscript)) for t in targets for n in iter_nodes(t)):
                    return "assigns to an attribute or an item in its body, which the check does not follow"
                names += [n for t in targets for n in target_names(t)]
                if not (targets or isinstance(small, cst.Pass) or isinstance(small, cst.Expr) and isinstance(
                        small.value, (cst.SimpleString, cst.ConcatenatedString))):  # a docstring
                    return f"runs a `{type(small).__name__}` statement in its body, which the check does not follow"
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            name = stmt.name.value
            if name in CLASS_ATTRIBUTES:
                return f"defines `{name}`, which may change what the JIT reads of it"
            if name == "is_valid" and any(not (isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
                                                   and file.meaning("staticmethod") is None) for d in stmt.decorators):
                return "decorates `is_valid`, so the check cannot tell what the JIT calls"
            names.append(name)
        else:
            return f"runs a `{type(stmt).__name__}` statement in its body, which the check does not follow"
        for name in names:
            if name in seen:
                return f"binds `{name}` twice in its body"
            seen.add(name)
        if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and any(
                isinstance(n, cst.NamedExpr) for n in iter_nodes(stmt)):
            return "binds a name by `:=` in its body"
    return ""


def _derives_key_field(file, name: str) -> bool:
    """Is `name` a class of the file with `TilingKeyField` (by any dotted spelling) among its bases?"""
    meaning = file.meaning(name)
    node = getattr(meaning, "node", None)
    return isinstance(node, cst.ClassDef) and any(
        isinstance(b.value, (cst.Name, cst.Attribute))
        and (b.value.attr if isinstance(b.value, cst.Attribute) else b.value).value == "TilingKeyField"
        for b in node.bases)


def _is_key_field(file, value: cst.Call) -> bool:
    """A call of PyPTO's `TilingKeyField` (imported; not a name the file binds to its own)."""
    func = value.func
    leaf = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    root = func
    while isinstance(root, cst.Attribute):
        root = root.value
    meaning = file.meaning(root.value) if isinstance(root, cst.Name) else None
    return leaf == "TilingKeyField" and (meaning is None or isinstance(meaning, Unknown) and meaning.imported)


def _meaning_in(file, env, node: cst.BaseExpression) -> Meaning:
    try:
        return Value(ConstEvaluator(env, file.pl.path).eval(node))
    except NotConstant as exc:
        return Unknown(exc.cause)


def _key_field(file, name: str, call: cst.Call, now, then) -> KeyField:
    """A field's values over the names as bound at the end of the module (`now`) and when the
    class statement ran (`then`, None when not known): they must agree."""
    values_node = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "values"), None)
    if values_node is None:
        return KeyField(name, None, call, "it has no `values=`")
    try:
        values = ConstEvaluator(now, file.pl.path).eval(values_node)
    except NotConstant as exc:
        return KeyField(name, None, values_node, f"its values are not compile-time constants ({exc.reason})")
    if then is not None and _as_then(file, then, values_node) != values:
        return KeyField(name, None, values_node, "its values are computed from names bound to other values after "
                                                 "the class (the class body saw the values they had then)")
    if (not isinstance(values, (list, tuple, range)) or not values or len(set(values)) != len(values)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)):
        return KeyField(name, None, values_node, "its values are not a non-empty list of distinct integers")
    bits_node = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "bits"), None)
    try:
        bits = ConstEvaluator(now, file.pl.path).eval(bits_node) if bits_node is not None else None
    except NotConstant:
        bits = None
    if not isinstance(bits, int) or isinstance(bits, bool) or bits <= 0:
        return KeyField(name, None, bits_node or call, "its `bits=` is not a positive integer the check can read")
    if len(values) > 2 ** bits:  # (the JIT refuses the class: probe h198 had one accepted and unloadable)
        return KeyField(name, None, bits_node or call,
                        f"its {len(values)} values do not fit in {bits} bit(s), which the JIT refuses: give it "
                        "more bits")
    return KeyField(name, tuple(values), call)


def datatypes_of(file, fn: cst.FunctionDef) -> dict[str, str]:
    """Kernel parameter -> dtype name, of `fn`'s `@pl.jit(datatype={...})` decorator."""
    for decorator in fn.decorators:
        call = jit_call(decorator, file.pl)
        for arg in call.args if call is not None else ():
            if arg.keyword is not None and arg.keyword.value == "datatype":
                return _datatypes(file, arg.value)
    return {}


def _datatypes(file, node: cst.BaseExpression) -> dict[str, str]:
    """Kernel parameter -> dtype name of a `datatype=` value: a dict of strings written in place,
    a module name bound to one, or `dict(x="dt", ...)`."""
    value = file.evaluator.try_eval(node)
    if value is None and type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "dict" \
            and file.meaning("dict") is None:
        value = {}
        for arg in node.args:
            item = file.evaluator.try_eval(arg.value)
            if arg.keyword is not None:
                value[arg.keyword.value] = item
            elif arg.star == "**" and isinstance(item, dict):
                value.update(item)
            elif not arg.star and isinstance(item, dict):  # `dict({"x": "dt"}, y="dt2")`
                value.update(item)
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str) and v.isidentifier()}


# the instances ------------------------------------------------------------------------------
def instances(file, jit: JitNames, limit: int = MAX_INSTANCES) -> Instances:
    """Every key the JIT may compile this kernel for, or why they cannot be listed."""
    if jit.key_problem:
        return Instances((), f"its tiling key cannot be read: {jit.key_problem}", jit.key_node, "not-static")
    if jit.key is None:
        return Instances(({},))
    fields = jit.key.fields
    # (a field made as written first: a name the check only cannot tell from a field is the lesser reason)
    for f in sorted(fields, key=lambda f: f.problem == _MAYBE_FIELD):
        if f.values is None:
            return Instances((), f"tiling-key field `{f.name}` cannot be enumerated: {f.problem}", f.node,
                             "not-static")
    search = _Search(file, jit.key, limit)
    try:
        keys = list(search.keys())
    except _TooMany as exc:
        total = 1
        for f in fields:
            total *= len(f.values or ())
        detail = f" {exc.detail}" if exc.detail else ""
        return Instances((), f"tiling key `{jit.key.name}` has more than {limit} instances{detail} "
                             f"({total} combinations of its fields' values)", jit.key_node, "too-many")
    if not keys:
        return Instances((), f"`{jit.key.name}.is_valid` accepts no combination of its fields' values",
                         jit.key.is_valid or jit.key_node, "none-valid")
    return Instances(tuple(keys), undecided=frozenset(search.undecided))


class _TooMany(Exception):
    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


class _Search:
    """The combinations in field order, pruned by `is_valid` on partial keys: a field not
    chosen yet is unknown to the evaluator, so a test on the chosen ones alone can already
    decide (`a == 0 and ...` with `a` = 1)."""

    def __init__(self, file, key: TilingKey, limit: int):
        self.file = file
        self.key = key
        self.limit = limit
        self.checks = 0
        #: the whole keys `is_valid` could not be evaluated for, kept (`Instances.undecided`)
        self.undecided: set[tuple[int, ...]] = set()

    def keys(self) -> Iterator[dict[str, int]]:
        found = 0
        for combo in self._extend([]):
            found += 1
            if found > self.limit:
                raise _TooMany("that `is_valid` does not rule out" if self.key.is_valid is not None else "")
            yield dict(zip((f.name for f in self.key.fields), combo, strict=True))

    def _extend(self, chosen: list[int]) -> Iterator[tuple[int, ...]]:
        fields = self.key.fields
        if len(chosen) == len(fields):
            verdict = self._verdict(chosen)
            if verdict is None and self.key.is_valid is not None:
                self.undecided.add(tuple(chosen))
            if verdict is not False:
                yield tuple(chosen)
            return
        for v in fields[len(chosen)].values or ():
            candidate = chosen + [v]
            verdict = self._verdict(candidate) if len(candidate) < len(fields) else None
            if verdict is False:
                continue
            if verdict is True:  # every completion is valid
                rest = [f.values or () for f in fields[len(candidate):]]
                for tail in itertools.product(*rest):
                    yield tuple(candidate) + tail
                continue
            yield from self._extend(candidate)

    def _verdict(self, chosen: list[int]) -> bool | None:
        """What `is_valid` says with the first fields chosen: True, False or None (undecided)."""
        fn = self.key.is_valid
        if fn is None:
            return True
        self.checks += 1
        if self.checks > MAX_CHECKS:
            raise _TooMany(f"that `is_valid` could be followed for (more than {MAX_CHECKS} checks)")
        fields = self.key.fields
        known: dict[str, Meaning] = {}
        for i, f in enumerate(fields):
            known[f.name] = Value(chosen[i]) if i < len(chosen) else Unknown("not chosen yet")
        return _is_valid(self.file, fn, [known[f.name] for f in fields], self.key.defaults_env)


#: a value the evaluator could not compute
_NOT_CONSTANT = object()
#: what `class_constant` gives for an attribute it cannot know
NOT_CONSTANT = _NOT_CONSTANT


def _as_then(file, scope: dict, node: cst.BaseExpression) -> Any:
    """The value of `node` over the module names as `scope` holds them (those bound when a
    statement ran), or `_NOT_CONSTANT`."""
    try:
        return ConstEvaluator(scope, file.pl.path).eval(node)
    except NotConstant:
        return _NOT_CONSTANT


def _is_valid(file, fn: cst.FunctionDef, key: list[Meaning], defaults: tuple = (None, None)) -> bool | None:
    """Run `is_valid(self, key)` over plain statements; None when it cannot be followed.
    Its defaults are what the `def` computed in the class body (`defaults`: over the names then
    and at the end of the module): a default whose names were rebound after the class is unknown."""
    params = [p.name.value for p in fn.params.params]
    if not params or fn.params.posonly_params or isinstance(fn.params.star_arg, cst.Param) \
            or fn.params.star_kwarg is not None:
        return None  # `is_valid(self, *args)`: which parameter the key is in is not read here
    # keyword-only parameters (`def is_valid(self, key, *, LIMIT=1)`) are names of the body too, never the
    # module's (probe h233: a module `LIMIT = 0` was read for the default 1, and an instance left unproven)
    every = (*fn.params.params, *fn.params.kwonly_params)
    local: dict[str, Meaning] = {p.name.value: Unknown("a parameter of is_valid") for p in every}
    for p in every:  # a parameter the JIT does not pass keeps its default
        if p.default is not None:
            now, then = defaults if defaults[0] is not None else (file.names.meanings, None)
            try:
                value = ConstEvaluator(now, file.pl.path).eval(p.default)
            except NotConstant:
                continue
            if then is None or _as_then(file, then, p.default) == value:
                local[p.name.value] = Value(value)
    # the JIT calls `key_class().is_valid(key)`: the key is the first parameter after `self`
    static = any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in fn.decorators)
    key_name = params[0] if static or len(params) == 1 else params[1]
    if all(isinstance(m, Value) for m in key):
        local[key_name] = Value(tuple(m.value for m in key if isinstance(m, Value)))
    else:
        local[key_name] = Unknown("the key is not complete yet")
    ev = ConstEvaluator(ChainMap(local, file.names.meanings), file.pl.path)
    try:
        returned, result = _run(list(fn.body.body), ev, local, key_name, key)
    except (NotConstant, _Unfollowed):
        return None
    if isinstance(result, PlSymbol):
        return None
    return bool(result) if returned else False  # falling off the end returns None


class _Unfollowed(Exception):
    """A statement `is_valid` runs that this reading does not follow."""


def _run(stmts: list, ev: ConstEvaluator, local: dict, key_name: str, key: list[Meaning]) -> tuple[bool, Any]:
    """(whether a `return` ran, the value it returned)."""
    for stmt in stmts:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Return):
                    return True, ev.eval(small.value) if small.value is not None else None
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        _assign(target.target, small.value, ev, local, key_name, key)
                elif isinstance(small, cst.AnnAssign) and small.value is not None:
                    _assign(small.target, small.value, ev, local, key_name, key)
                elif not (isinstance(small, cst.Pass) or isinstance(small, cst.Expr) and isinstance(
                        small.value, (cst.SimpleString, cst.ConcatenatedString))):  # a docstring
                    raise _Unfollowed
        elif isinstance(stmt, cst.If):
            test = ev.eval(stmt.test)
            if isinstance(test, PlSymbol):
                raise _Unfollowed
            branch: list = []
            if test:
                branch = list(stmt.body.body)
            elif isinstance(stmt.orelse, cst.If):
                branch = [stmt.orelse]
            elif stmt.orelse is not None:
                branch = list(stmt.orelse.body.body)
            returned, result = _run(branch, ev, local, key_name, key)
            if returned:
                return True, result
        else:
            raise _Unfollowed
    return False, None


def _assign(target, value, ev: ConstEvaluator, local: dict, key_name: str, key: list[Meaning]) -> None:
    """`target = value` in `is_valid`; unpacking the key gives each name its field's meaning
    (a field not chosen yet stays unknown). A rebinding of the key's own name is not followed:
    what is unpacked from it afterwards is no longer the key."""
    if key_name in target_names(target):
        raise _Unfollowed
    if isinstance(target, (cst.Tuple, cst.List)):
        if isinstance(value, cst.Name) and value.value == key_name:
            parts: list[Meaning] = key
        else:
            v = ev.eval(value)
            if not isinstance(v, (tuple, list)):
                raise _Unfollowed
            parts = [Value(x) for x in v]
        # `mode, *rest = key`: a starred target is not followed
        if len(parts) != len(target.elements) or not all(
                isinstance(el, cst.Element) and isinstance(el.value, cst.Name) for el in target.elements):
            raise _Unfollowed
        for el, part in zip(target.elements, parts, strict=True):
            local[cst.ensure_type(el.value, cst.Name).value] = part
    elif isinstance(target, cst.Name):
        try:
            local[target.value] = Value(ev.eval(value))
        except NotConstant as exc:
            local[target.value] = Unknown(exc.cause)
    else:
        raise _Unfollowed
