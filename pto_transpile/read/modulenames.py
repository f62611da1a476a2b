"""Module-level names as Python binds them: the module body worked out top to bottom.

Kernels are compiled and launched after the module is imported, so a name means what it
is bound to when the module has finished executing. Each statement is taken in order, as
the import runs it: an assignment's right-hand side is folded by the safe constant
evaluator against the names as bound at that point (so `UB = 0; A = UB; UB += SIZE;
B = UB` gives A and B their own addresses), augmented assignments and tuple unpacking are
applied, an `if` whose test folds runs only its taken branch, and a name bound to another
function (`vst = vst_next`) means that function.

Whatever cannot be known without running the file makes a name Unknown (with the reason),
never an earlier value:
- a binding under an `if` whose test does not fold, or in a `for`/`while` loop, `try`,
  `with` or `match` block;
- a `global` declaration in any function or class (it may run at any time after import);
- `del NAME`;
- a list changed in place (a mutating method call or an item assignment anywhere in the
  file, a call that is given it, a value holding it, `+=` through another name of the same
  list): every name holding that list (`effects.py` reads the whole file for these);
- every function, when the file sets `__code__`, `__defaults__` and the like of any object;
- a `def` or `class` under a decorator other than `pl`'s and `dataclasses.dataclass`;
- `globals()`, `vars()`, `locals()`, `exec`, `eval`, `__import__`, `importlib.import_module`,
  `sys.modules` (however `sys` is imported), `f_globals`, `f_locals`, `__globals__` or
  `__dict__` anywhere in the file: every name;
- imports (another module's objects), and `from m import *`: every name bound before it,
  and every name the file does not bind itself.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import libcst as cst

from pto_transpile.read.classnames import plain_members, record_class, with_fstring_code
from pto_transpile.read.consteval import AUGMENTED, ConstEvaluator, NotConstant, PlSymbol, Record
from pto_transpile.read.effects import (
    ANY,
    CLASS_ATTRIBUTES,
    FIELDS_ONLY,
    FUNCTION_ATTRIBUTES,
    MUTATING_METHODS,
    PURE_BUILTINS,
    Effects,
    effects,
)
from pto_transpile.read.meaning import Class, Function, Meaning, Unknown, Value
from pto_transpile.read.partial import Verbatim
from pto_transpile.read.walk import children, root_name

#: Module-level compound statements whose bindings may happen any number of times, or not at all.
_UNCERTAIN: dict[type, str] = {
    cst.For: "a module-level `for` loop", cst.While: "a module-level `while` loop",
    cst.Try: "a module-level `try` statement", cst.TryStar: "a module-level `try` statement",
    cst.With: "a module-level `with` block", cst.Match: "a module-level `match` statement",
}
_MUTATING_METHODS = "|".join(sorted(MUTATING_METHODS))
#: Builtins whose result is a plain number, string or bool, whatever they are given.
PLAIN_RESULT_BUILTINS = frozenset({"int", "float", "str", "bool", "len", "round", "range"})
#: Builtins whose result is plain data when what they are given is (`pow(2, 5)`, `sum(SIZES)`).
_PLAIN_OF_PLAIN = frozenset({"pow", "sum", "divmod", "abs", "min", "max", "sorted", "tuple", "list", "dict", "set",
                             "frozenset"})
#: Decorators (besides `pl`'s) that return the class they are given, by the full name of the import.
_KEEPING_DECORATORS = frozenset({"dataclasses.dataclass"})


@dataclass
class ModuleNames:
    """name -> what it means once the module has run (`meaning.py`)."""

    meanings: dict[str, Meaning] = field(default_factory=dict)
    star_import: str = ""  #: the module of a `from m import *`, if any
    #: a module-level `def` -> its parameters' defaults, as Python computes them: once, when
    #: the `def` runs, against the names bound at that point (a later `SH = 0` does not
    #: change `def f(sh=SH)`); a mutable default, shared by every call, is unknown
    defaults: dict[cst.FunctionDef, dict[str, Meaning]] = field(default_factory=dict)
    #: functions whose defaults mention a name that means something else once the module has
    #: run than when the `def` ran (vector functions are evaluated from their text: `vfextent`)
    stale_defaults: set[str] = field(default_factory=set)
    #: what the whole file may do to module-level objects (`effects.py`)
    effects: Effects = field(default_factory=Effects)
    #: a decorated `def` -> the names its decorators' arguments and its parameters' annotations
    #: read that mean something else once the module has run than when the `def` ran (Python
    #: evaluates both then: `@pl.jit(auto_mutex=AM)`, `a: pl.Tensor[[ROWS, TILE], ...]`)
    stale_headers: dict[cst.FunctionDef, list[str]] = field(default_factory=dict)
    #: a module-level `class`, or a decorated `def` -> the names as bound when its statement ran:
    #: what its class body and its decorators' arguments saw (`tiling_key=K`, `values=VALS`)
    scopes: dict[cst.CSTNode, dict[str, Meaning]] = field(default_factory=dict)
    #: how the file changes module names at run time (`globals()`, ...), "" when it does not:
    #: then every name is unknown at the module's end
    dynamic: str = ""
    #: name -> the dotted name of the module or object the import that bound it imported
    #: (`operator` for `import operator as math`), for a name that import still binds at the end
    origins: dict[str, str] = field(default_factory=dict)
    #: name -> the `pl.TileType(...)` call it is bound to at the module's end, by one unconditional
    #: `NAME = pl.TileType(...)` (a tile group's `type=NAME` declares that type; the name's meaning
    #: stays unknown: the call makes a `pl` object, no compile-time value)
    tile_types: dict[str, cst.Call] = field(default_factory=dict)
    #: module names bound to the call of a function of the file (`HALF_VEC = half_vec()`), kept as
    #: `tile_types` are: a tile type when the function makes one (`Reader._made_type`)
    made_types: dict[str, cst.Call] = field(default_factory=dict)

    def meaning(self, name: str) -> Meaning | None:
        """What `name` means at module level; None when the file binds it nowhere."""
        found = self.meanings.get(name)
        if found is None and self.star_import:
            return Unknown(f"it may come from `from {self.star_import} import *`", imported=True)
        return found

    @property
    def values(self) -> dict[str, Any]:
        """The names bound to a compile-time value, with their values."""
        return {n: m.value for n, m in self.meanings.items() if isinstance(m, Value)}

    @property
    def functions(self) -> dict[str, Any]:
        """The names bound to a function of this file -> its `def` (a name an alias binds
        maps to the `def` of the function it names)."""
        return {n: m.node for n, m in self.meanings.items() if isinstance(m, Function)}


def evaluate(module: cst.Module, pl_path: Callable, text: str, trees: list | None = None) -> ModuleNames:
    """Work out the module body top to bottom (see the module docstring); `trees`: Python's tree
    of every top-level statement, which `effects.py` reads for what the whole file does."""
    tops = trees if trees is not None else ast.parse(text).body
    run = _ModuleRun(pl_path, lambda cls: _fixed_class(cls, tops, text), fold_math=not _math_replaced(text),
                     record_class=partial(record_class, text))
    run.postponed = _postpones_annotations(module)
    run.rebound_globals = _global_names(tops) if "global" in text else frozenset()
    run.block(list(module.body))
    held = {n: m.value for n, m in run.env.items() if isinstance(m, Value) and any(True for _ in _lists_in(m.value))}
    nested = {n for n, m in run.env.items() if isinstance(m, Value) and sum(1 for _ in _lists_in(m.value)) > 1}
    # only a tiling-key class is read for its attributes (`compiletime.py`)
    keys = {n: m.node for n, m in run.env.items() if isinstance(m, Class) and isinstance(m.node, cst.ClassDef)
            and any(isinstance(c.func, (cst.Name, cst.Attribute)) and _dotted_text(c.func).endswith("TilingKeyField")
                    for c in _calls_in(m.node))}
    words = {*held, *keys, *_class_names(list(keys.values())), *FUNCTION_ATTRIBUTES, *CLASS_ATTRIBUTES, "is_valid"}
    guarded = {**{n: _depth(v) for n, v in held.items()}, **dict.fromkeys(keys, 0)}
    found = effects(tops, run.env, run.pure_callee, text, words, nested, guarded)
    names = ModuleNames(run.env, run.star, run.defaults, scopes=run.scopes, effects=found)
    for name, line in found.globals.items():
        names.meanings[name] = Unknown(f"a function may rebind it at any time through `global {name}` (line {line})",
                                       made=f"a function, through `global {name}` (line {line})", global_line=line)
    _forget_changed_lists(run, text)
    for name, (line, how) in found.touched.items():
        run.changed(name, f"{how} (line {line})")
    hit = found.attribute_set(sorted(FUNCTION_ATTRIBUTES))
    if hit is not None:
        attr, line = hit
        what = "an attribute by a computed name" if attr == ANY else f"`{attr}`"
        changed = None if attr == ANY else _functions_changed(module, tops, run.env, text)
        for name, meaning in list(run.env.items()):
            if isinstance(meaning, Function) and changed is None:
                run.env[name] = Unknown(f"the file sets {what} of some object (line {line}), which may change what "
                                        "a function does",
                                        fix=f"the attribute line {line} sets by a computed name" if attr == ANY
                                        else f"{what} (line {line})")
            elif isinstance(meaning, Function) and changed is not None and meaning.node in changed:
                set_line, set_attr = changed[meaning.node]
                run.env[name] = Unknown(f"the file sets `{set_attr}` of it (line {set_line}), which changes what the "
                                        "function does")
    normal = text if text.isascii() else unicodedata.normalize("NFKC", text)
    for spelled, name in _respelled(text):
        # `ＦＬＡＧ = 1` binds `FLAG` to Python, while this reading keeps names as spelled
        reason = f"it is also spelled `{spelled}`, which Python reads as `{name}`"
        for key in (spelled, name):
            run.env[key] = Unknown(reason)
    dynamic = _dynamic_namespace(normal) or _reached_namespace(found, run.env)
    if dynamic:
        names.dynamic = dynamic
        reason = f"the file reaches a namespace through `{dynamic}`, by which its code may change module names at " \
                 "run time"
        names.meanings = {n: Unknown(reason) for n in names.meanings}
        names.defaults = {fn: {p: Unknown(reason) for p in d} for fn, d in names.defaults.items()}
        names.scopes = {node: {n: Unknown(reason) for n in scope} for node, scope in names.scopes.items()}
    names.stale_defaults = {fn for fn, seen in run.default_names.items()
                            if dynamic or any(names.meanings.get(n) != m for n, m in seen.items())}
    names.origins = {n: o for n, o in run.origins.items()
                     if isinstance(m := names.meanings.get(n), Unknown) and m.imported}
    # kept where the name still holds that call's type and every name the call reads still means what
    # it meant when the call ran (probe h99: `ROWS` rebound after `HALF_VEC = pl.TileType([ROWS, ...])`)
    names.tile_types, names.made_types = ({n: call for n, (call, bound, read) in found.items()
                                           if names.meanings.get(n) is bound
                                           and all(names.meanings.get(r) == m for r, m in read.items())}
                                          for found in (run.tile_types, run.made_types))
    if not dynamic:  # else every name is unknown at the end, and what reads one is refused as such
        names.stale_headers = {fn: stale for fn, seen in run.header_names.items()
                               if (stale := sorted(n for n, m in seen.items() if names.meanings.get(n) != m))}
    return names


class _ModuleRun:
    """The module's names as bound so far, while its statements are taken in order."""

    def __init__(self, pl_path: Callable, fixed_class: Callable[[cst.ClassDef], bool] = lambda _cls: False,
                 fold_math: bool = False, record_class: Callable[[str], bool] | None = None):
        self.env: dict[str, Meaning] = {}
        self.pl_path = pl_path
        #: whether nothing can replace the members of a class of the file (`classnames.plain_members`)
        self.fixed_class = fixed_class
        #: name -> the dotted name of what the import that bound it (still bound) imported
        self.origins: dict[str, str] = {}
        self.ev = ConstEvaluator(self.env, pl_path, origins=self.origins if fold_math else None,
                                 record_class=record_class)
        #: the module names a function of the file binds through `global` (mangled as Python reads them)
        self.rebound_globals: frozenset[str] = frozenset()
        self.star = ""
        self.defaults: dict[cst.FunctionDef, dict[str, Meaning]] = {}
        #: function name -> what each name its defaults mention meant when the `def` ran
        self.default_names: dict[str, dict[str, Meaning | None]] = {}
        self.scopes: dict[cst.CSTNode, dict[str, Meaning]] = {}
        #: a decorated `def` -> what each name its header reads meant when it ran (`stale_headers`)
        self.header_names: dict[cst.FunctionDef, dict[str, Meaning | None]] = {}
        #: `from __future__ import annotations`: a `def` leaves its annotations as text, read
        #: later with the module's names as they end, as the check reads them
        self.postponed = False
        self.pure: dict[str, bool] = {}  #: dotted callee -> `pure_callee`
        #: every list a name has held (kept alive, so that ids stay theirs)
        self.lists_held: dict[str, dict[int, Any]] = {}
        #: name -> the `pl.TileType(...)` call a plain assignment bound it to, the meaning bound then,
        #: and what each name the call reads meant then (kept at the end if all still hold: `evaluate`)
        self.tile_types: dict[str, tuple[cst.Call, Meaning, dict]] = {}
        self.made_types: dict[str, tuple[cst.Call, Meaning, dict]] = {}

    # statements ----------------------------------------------------------------------
    def block(self, stmts: list) -> None:
        for stmt in stmts:
            self.statement(stmt)

    def statement(self, stmt) -> None:
        for root in _item_targets(stmt):
            # `for ROWS[0] in ...`, `with ... as ROWS[0]`, `[0 for ROWS[0] in ...]`: an item of it is set
            # as the statement runs (probe h116), before what follows reads it
            self.changed(root, "an item or attribute of it is a loop, `with` or comprehension target")
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.small(small)
        elif isinstance(stmt, cst.FunctionDef):
            if stmt.decorators:
                self.scopes[stmt] = dict(self.env)
                self.header_names[stmt] = {n.value: self.env.get(n.value)
                                           for part in _header_evaluated(stmt, annotations=not self.postponed)
                                           if part is not None for n in _walk_here(part) if isinstance(n, cst.Name)}
            for part in _header_evaluated(stmt):
                if part is not None:
                    self.note_calls(part)
            self.defaults[stmt] = self.defaults_of(stmt)
            params = stmt.params
            self.note_default_names(stmt.name.value, [n.value for p in (*params.posonly_params, *params.params,
                                                                         *params.kwonly_params)
                                                      if p.default is not None
                                                      for n in _walk_here(p.default) if isinstance(n, cst.Name)])
            self.bind(stmt.name.value, self.decorated(stmt, Function(stmt)))
        elif isinstance(stmt, cst.ClassDef):
            self.scopes[stmt] = dict(self.env)
            for arg in (*stmt.bases, *stmt.keywords):
                self.note_calls(arg.value)
            self.bind(stmt.name.value, self.decorated(stmt, Class(stmt)))
        elif isinstance(stmt, Verbatim):
            if stmt.tree is not None:  # a vector function read with Python's parser
                args = stmt.tree.args
                self.note_default_names(stmt.name, [n.id for d in (*args.defaults, *args.kw_defaults) if d is not None
                                                    for n in ast.walk(d) if isinstance(n, ast.Name)])
            self.bind(stmt.name, Class(stmt) if stmt.is_class else Function(stmt))
        elif isinstance(stmt, cst.If):
            self.if_(stmt)
        else:
            where = _UNCERTAIN.get(type(stmt), "a module-level block the check does not follow")
            self.uncertain(stmt, f"it is bound in {where}")

    def decorated(self, stmt: cst.FunctionDef | cst.ClassDef, meaning: Meaning) -> Meaning:
        """What a decorated `def` or `class` binds its name to: the function or class itself
        under `pl`'s decorators and `@dataclass` (which return what they are given, as far as
        the analysis reads it); what any other decorator returns is unknown."""
        for decorator in stmt.decorators:
            self.note_calls(decorator.decorator)
            node = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            if self.pl_path(node) is None and self.imported_as(_dotted_text(node)) not in _KEEPING_DECORATORS:
                return Unknown(f"it is bound to what its decorator `@{_dotted_text(node)}` returns",
                               made=f"its decorator `@{_dotted_text(node)}`")
        return meaning

    def pure_callee(self, dotted: str) -> bool:
        """A call through `dotted` changes nothing it is given: a `pl` op, PyPTO's `TilingKeyField`
        (remembered per name: asked at every call the effects walk meets)."""
        hit = self.pure.get(dotted)
        if hit is None:
            node: cst.BaseExpression = cst.Name(dotted.split(".")[0])
            for part in dotted.split(".")[1:]:
                node = cst.Attribute(node, cst.Name(part))
            hit = self.pure[dotted] = (self.pl_path(node) is not None
                                       or self.imported_as(dotted).endswith(".TilingKeyField"))
        return hit

    def imported_as(self, dotted: str) -> str:
        """The full name a dotted name stands for through the imports so far (`dataclass` after
        `from dataclasses import dataclass`: `dataclasses.dataclass`); "" when its head is not
        an import still bound (a name the file binds itself is not the import)."""
        head, _, rest = dotted.partition(".")
        origin = self.origins.get(head)
        if origin is None:
            return ""
        return f"{origin}.{rest}" if rest else origin

    def if_(self, stmt: cst.If) -> None:
        self.note_calls(stmt.test)
        try:
            test = self.ev.eval(stmt.test)
        except NotConstant:
            test = None
        if test is None or isinstance(test, PlSymbol):
            self.uncertain(stmt, "it is bound under a module-level `if` whose test is not a compile-time constant")
            return
        if test:
            self.block(list(stmt.body.body))
        elif isinstance(stmt.orelse, cst.If):
            self.if_(stmt.orelse)
        elif stmt.orelse is not None:
            self.block(list(stmt.orelse.body.body))

    def small(self, small: cst.BaseSmallStatement) -> None:
        self.note_calls(small)
        if isinstance(small, cst.Assign):
            meaning = self.value_of(small.value)
            self.escape(small.value, meaning)
            parts = self.parts_of(small.value) if isinstance(meaning, Unknown) else None
            for target in small.targets:
                if parts is not None and _splits_into(target.target, len(parts)):
                    for el, part in zip(target.target.elements, parts, strict=True):  # type: ignore[attr-defined]
                        self.assign(el.value, part)
                else:
                    self.assign(target.target, meaning)
            value, targets = small.value, small.targets
            if len(targets) == 1 and isinstance(targets[0].target, cst.Name) and isinstance(value, cst.Call) \
                    and (self.pl_path(value.func) == ("TileType",) or isinstance(value.func, cst.Name)):
                name = targets[0].target.value
                read = {n.value: self.env.get(n.value) for n in _walk_here(value) if isinstance(n, cst.Name)}
                made = self.tile_types if self.pl_path(value.func) == ("TileType",) else self.made_types
                made[name] = (value, self.env[name], read)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                meaning = self.value_of(small.value)
                self.escape(small.value, meaning)
                self.assign(small.target, meaning)
        elif isinstance(small, cst.AugAssign):
            self.augment(small)
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            self.import_(small)
        elif isinstance(small, cst.Del):
            self.delete(small.target)

    def note_default_names(self, function: str, names: list[str]) -> None:
        self.default_names[function] = {n: self.env.get(n) for n in names}

    def defaults_of(self, fn: cst.FunctionDef) -> dict[str, Meaning]:
        """Each default of `fn`'s parameters, computed now, as the `def` statement does."""
        out: dict[str, Meaning] = {}
        params = fn.params
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            if p.default is None:
                continue
            self.note_calls(p.default)
            meaning = self.value_of(p.default)
            if isinstance(meaning, Value) and _mutable(meaning.value):
                meaning = Unknown(f"the default of `{p.name.value}` is a mutable object, shared by every call")
            out[p.name.value] = meaning
        return out

    def uncertain(self, stmt: cst.CSTNode, reason: str) -> None:
        """Every name `stmt` may bind is unknown; every list it may change is forgotten."""
        for name in _bound_names(stmt):
            if name == "*":
                self.star = self.star or "a module"
                self.env.update({n: Unknown(reason) for n in self.env})
            else:
                self.env[name] = Unknown(reason)
        self.note_calls(stmt)

    # bindings ------------------------------------------------------------------------
    def bind(self, name: str, meaning: Meaning) -> None:
        self.env[name] = meaning
        self.origins.pop(name, None)  # an import (re)binds it after this: `import_`
        if isinstance(meaning, Value):
            held = self.lists_held.setdefault(name, {})
            for lst in _lists_in(meaning.value):
                held[id(lst)] = lst

    def value_of(self, node: cst.BaseExpression) -> Meaning:
        """The meaning of a right-hand side: a name's own meaning (a function, class or
        unknown travels as it is), else what the evaluator folds, else unknown."""
        if type(node) is cst.Name:
            found = self.env.get(node.value)
            if isinstance(found, (Function, Class, Unknown)):
                return found
        method = self.static_method(node)
        if method is not None:
            return method
        try:
            return Value(self.ev.eval(node))
        except NotConstant as exc:
            return Unknown(exc.cause, made=self.maker(node))

    def maker(self, node: cst.BaseExpression) -> str:
        """The code of what makes the value of `node` when it may be an object on which Python
        runs code of the file (a call of anything but a `pl` op, a builtin of a plain type, a
        `math` function or a data class of the file; a lambda; a name bound to such an object);
        "" when it is plain data."""
        for sub in _walk_here(node):
            if type(sub) is cst.Lambda:
                return "a lambda"
            if type(sub) is cst.Name and isinstance(found := self.env.get(sub.value), Unknown) and found.made:
                return found.made if "(through" in found.made else f"{found.made} (through `{sub.value}`)"
        if type(node) is cst.Call and not self.plain_call(node):
            dotted = _dotted_text(node.func)
            return f"`{dotted}(...)`" if dotted and "?" not in dotted else "a call"
        if type(node) is cst.Call and self.pl_path(node.func) is None and type(node.func) is cst.Name \
                and isinstance(self.env.get(node.func.value), Class):  # a data class: what its fields hold
            return next((m for a in node.args if (m := self.maker(a.value))), "")
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            return next((m for el in node.elements if (m := self.maker(el.value))), "")
        if isinstance(node, cst.Dict):
            return next((m for el in node.elements if isinstance(el, cst.DictElement)
                         and (m := self.maker(el.key) or self.maker(el.value))), "")
        # what the value is made of: an operand, the container an item is taken from (`int(time.time())
        # % 2` is a number whatever `time.time()` is; a plain call's arguments say nothing of its result)
        parts = {cst.BinaryOperation: ("left", "right"), cst.UnaryOperation: ("expression",),
                 cst.Subscript: ("value",), cst.Attribute: ("value",), cst.IfExp: ("body", "orelse")}
        return next((m for attr in parts.get(type(node), ()) if (m := self.maker(getattr(node, attr)))), "")

    def plain_call(self, node: cst.Call) -> bool:
        """A call whose result is a `pl` object, a number or string, or an instance of a data
        class of the file: nothing on which Python would run the file's code."""
        if self.pl_path(node.func) is not None:
            return True
        if type(node.func) is cst.Attribute and isinstance(node.func.value, (cst.SimpleString, cst.Integer, cst.Float,
                                                                             cst.ConcatenatedString)):
            return True  # `"bias".upper()`: a method of a literal string or number
        dotted = _dotted_text(node.func)
        if type(node.func) is cst.Name and dotted in PLAIN_RESULT_BUILTINS and dotted not in self.env:
            return True
        if type(node.func) is cst.Name and dotted in _PLAIN_OF_PLAIN and dotted not in self.env:
            return not any(self.maker(a.value) for a in node.args)  # `pow(2, 5)`: numbers of numbers
        if self.imported_as(dotted).startswith("math."):
            return True
        meaning = self.env.get(dotted) if type(node.func) is cst.Name else None
        return isinstance(meaning, Class) and isinstance(meaning.node, cst.ClassDef) and _data_class(meaning.node)

    def static_method(self, node: cst.BaseExpression) -> Function | None:
        """`Class.method` (`halve = Epilogue.halve`): the `@staticmethod` it names, of a class of
        the file whose members nothing can replace; None for anything else."""
        if type(node) is not cst.Attribute or type(node.value) is not cst.Name:
            return None
        cls = self.env.get(node.value.value)
        if not isinstance(cls, Class) or not isinstance(cls.node, cst.ClassDef) or not self.fixed_class(cls.node):
            return None
        found = [s for s in cls.node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == node.attr.value]
        return Function(found[0]) if len(found) == 1 else None

    def parts_of(self, node: cst.BaseExpression) -> list[Meaning] | None:
        """The meaning of each element of a tuple or list display (`_a, _b`), all computed before
        any is bound, as Python does; None for any other value or one with a starred element."""
        if not isinstance(node, (cst.Tuple, cst.List)) or any(isinstance(el, cst.StarredElement)
                                                              for el in node.elements):
            return None
        return [self.value_of(el.value) for el in node.elements]

    def assign(self, target: cst.BaseExpression, meaning: Meaning) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, meaning)
        elif isinstance(target, (cst.Tuple, cst.List)):
            self.unpack(target, meaning)
        elif isinstance(target, (cst.Subscript, cst.Attribute)):
            self.changed(root_name(target), f"{_part(target)} of it is assigned at module level")

    def unpack(self, target: cst.Tuple | cst.List, meaning: Meaning) -> None:
        elements = list(target.elements)
        parts = _split(meaning.value, elements) if isinstance(meaning, Value) else None
        if parts is None:
            lost = meaning if isinstance(meaning, Unknown) else Unknown(
                "it is unpacked from a value the check cannot split into that many parts")
            for el in elements:
                for name in target_names(el.value):
                    self.bind(name, lost)
            return
        for el, part in zip(elements, parts, strict=True):
            self.assign(el.value, Value(part))

    def augment(self, node: cst.AugAssign) -> None:
        target = node.target
        if not isinstance(target, cst.Name):
            self.changed(root_name(target), f"{_part(target)} of it is augmented at module level")
            return
        name = target.value
        old = self.env.get(name)
        if not isinstance(old, Value):
            self.bind(name, old if isinstance(old, Unknown) else Unknown(
                f"`{name}` is augmented while it is not bound to a compile-time constant"))
            return
        op = AUGMENTED[type(node.operator)]()
        new = self.value_of(cst.BinaryOperation(cst.Name(name), op, node.value))
        if isinstance(old.value, (list, dict, set)):  # `+=`, `*=`, `|=` change it in place: its other names see it
            self.forget({id(old.value)}, f"the list it holds is changed in place through `{name}`")
        self.bind(name, new)

    def changed(self, name: str | None, how: str) -> None:
        """`name`'s lists may have been changed in place: every name holding one is unknown.
        (A function or class is judged by the attributes the file sets: `effects.py`.)"""
        found = self.env.get(name) if name is not None else None
        if isinstance(found, Value):
            held = "data-class instance" if isinstance(found.value, Record) else "list"
            cannot = "leave its fields as the module made them" if held != "list" else "a tuple cannot"
            self.forget({id(x) for x in _lists_in(found.value)},
                        f"the {held} it holds may change: {how} (`{name}`); {cannot}")

    def escape(self, node: cst.BaseExpression, meaning: Meaning) -> None:
        """A list put into a value the check does not follow (`D = {"x": L}`) may be changed
        through it (`D["x"][0] = 1`), anywhere: every name holding it is unknown."""
        if isinstance(meaning, Unknown):
            for name in _held(node):
                self.changed(name, "it is held by a value the check does not follow")

    def forget(self, lists: set[int], reason: str) -> None:
        if not lists:
            return
        for other, meaning in list(self.env.items()):
            if isinstance(meaning, Value) and any(id(x) in lists for x in _lists_in(meaning.value)):
                self.env[other] = Unknown(reason)

    def import_(self, node: cst.Import | cst.ImportFrom) -> None:
        if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
            source = _dotted_text(node.module) if node.module is not None else "."
            self.star = source
            reason = f"`from {source} import *` may rebind it"
            self.env.update({n: Unknown(reason, imported=True) for n in self.env})
            return
        names = node.names
        assert not isinstance(names, cst.ImportStar)
        for alias in names:
            if alias.asname is not None:
                bound = target_names(alias.asname.name)
            else:
                head: cst.BaseExpression = alias.name
                while isinstance(head, cst.Attribute):
                    head = head.value
                bound = [head.value] if isinstance(head, cst.Name) else []
            where = ""
            if isinstance(node, cst.ImportFrom):
                where = " from `" + "." * len(node.relative) + (_dotted_text(node.module) if node.module else "") + "`"
            for name in bound:
                # pto-transpile reads one file: what another module binds is not read (study ux3: a
                # team's shared tile sizes), and the way out is the file's own constant
                self.bind(name, Unknown(f"it is imported{where} (`{name}` is another module's object, and "
                                        f"pto-transpile reads the kernel's file alone: define `{name}` in this file)",
                                        imported=True))
            if isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
                if alias.asname is not None or isinstance(alias.name, cst.Name):
                    self.origins[bound[0]] = f"{_dotted_text(node.module)}.{_dotted_text(alias.name)}"
            elif isinstance(node, cst.Import) and bound:
                self.origins[bound[0]] = _dotted_text(alias.name) if alias.asname is not None else bound[0]

    def delete(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, Unknown("it is deleted by `del`"))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self.delete(el.value)
        else:
            self.changed(root_name(target), f"{_part(target)} of it is deleted at module level")

    def note_calls(self, node: cst.CSTNode) -> None:
        """Lists a module-level call is given may be changed by it; `:=` binds names."""
        for n in _walk_here(node):
            if type(n) is cst.NamedExpr:
                for name in target_names(n.target):
                    self.bind(name, Unknown("it is bound by `:=` at module level"))
            elif type(n) is cst.Call and not self._pure(n.func):
                for name in self.rebound_globals:
                    # a function of the file the call may run rebinds it through `global` (probe h116:
                    # `_Host.narrow()` before `STRIDE = ROWS`), from here on
                    if name in self.env:
                        self.bind(name, Unknown("a function of the file may rebind it through `global` when a "
                                                "module-level call runs it"))
                for arg in n.args:
                    for name in _passed(arg.value):
                        self.changed(name, "a module-level call is given it")
                if isinstance(n.func, cst.Attribute):
                    self.changed(root_name(n.func), "a method of it is called at module level")

    def _pure(self, func: cst.BaseExpression) -> bool:
        if self.pl_path(func) is not None:
            return True  # pl's calls never change their arguments' Python values
        return isinstance(func, cst.Name) and func.value in PURE_BUILTINS and func.value not in self.env


# the end of the run ------------------------------------------------------------------------
def _math_replaced(text: str) -> bool:
    """May the file replace a function of Python's `math` (`math.ceil = f`, `m.floor += ...` after
    `import math as m`, `setattr`, a namespace)? Then no `math` call is folded."""
    if "math" not in text:
        return False
    if re.search(r"setattr|__dict__|\bvars\s*\(|\bglobals\s*\(", text):
        return True
    aliases = {m.group(1) or "math" for m in re.finditer(r"\bimport\s+math\b(?:\s+as\s+(\w+))?", text)}
    return any(re.search(rf"\b{re.escape(a)}\s*\.\s*\w+\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)", text)
               for a in aliases)


def _functions_changed(module: cst.Module, tops: list, env: dict, text: str) -> dict | None:
    """Where every function attribute the file sets (`__defaults__`, `__code__`, ...) is set by a
    module-level statement `f.__defaults__ = ...` on a name bound once, to a function: those
    functions (their `def`) -> (line, attribute). None where some set may reach any object (in a
    function, through `setattr`, on another expression, on a name bound more than once)."""
    if re.search(r"setattr|delattr", text):
        return None
    sites = sum(1 for top in tops for n in ast.walk(top)  # (a read of `__kwdefaults__` hands out its dict)
                if isinstance(n, ast.Attribute) and n.attr in FUNCTION_ATTRIBUTES
                and (not isinstance(n.ctx, ast.Load) or n.attr == "__kwdefaults__"))
    targets = [(t, top.lineno) for top in tops for t in _targets(top)
               if isinstance(t, ast.Attribute) and t.attr in FUNCTION_ATTRIBUTES]
    if len(targets) != sites:
        return None
    bindings = [name for stmt in module.body for name in _bound_names(stmt)]
    bindings += [stmt.name.value for stmt in module.body if isinstance(stmt, (cst.FunctionDef, cst.ClassDef))]
    changed: dict = {}
    for target, line in targets:
        name = target.value.id if isinstance(target.value, ast.Name) else ""
        meaning = env.get(name)
        if not isinstance(meaning, Function) or bindings.count(name) != 1:
            return None
        changed.setdefault(meaning.node, (line, target.attr))
    return changed


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    """What an assignment or `del` statement stores to or deletes (nothing for other statements)."""
    if isinstance(stmt, (ast.Assign, ast.Delete)):
        return list(stmt.targets)
    return [stmt.target] if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) else []


def _forget_changed_lists(run: _ModuleRun, text: str) -> None:
    """Every name holding a list that a name changed in place somewhere in the file (in a
    function, at any time) ever held."""
    holders = [name for name, held in run.lists_held.items() if held]
    lost: dict[int, str] = {}
    for name in _changed_in_text(holders, text):
        for key in run.lists_held[name]:
            lost.setdefault(key, name)
    if not lost:
        return
    for name, meaning in list(run.env.items()):
        if isinstance(meaning, Value):
            hit = next((lost[id(x)] for x in _lists_in(meaning.value) if id(x) in lost), None)
            if hit is not None:
                run.env[name] = Unknown(f"the list it holds may be changed in place (through `{hit}`)")


def _changed_in_text(names: list[str], text: str) -> set[str]:
    """Those of `names` changed in place somewhere in the file (`name.append(...)`,
    `name[i] = ...`, `del name[i]`, ...; in functions too: they may run after the import,
    before the kernel), in one pass over the text."""
    if not names:
        return set()
    return {m.group(1) or m.group(2) for m in re.finditer(_change_pattern(names), text)}


def changed_in_place_at(name: str, text: str) -> int | None:
    """Where the text first changes a list named `name` in place as `_changed_in_text` reads it
    (any scope: a function's own list of that name too), as an offset; None where it does not."""
    found = re.search(_change_pattern([name]), text)
    return found.start(1) if found is not None and found.group(1) else found.start(2) if found else None


def _change_pattern(names: list[str]) -> str:
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return (rf"(?<![\w.])({alternatives})\s*(?:\.\s*(?:{_MUTATING_METHODS})\s*\("
            rf"|\[[^\n]*?\]\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=))"
            rf"|\bdel\b[^\n]*(?<![\w.])({alternatives})\s*\[")


def _calls_in(cls: cst.ClassDef) -> Iterator[cst.Call]:
    """The calls at the top of a class body's assignments (`A = TilingKeyField(...)`)."""
    for stmt in cls.body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Assign, cst.AnnAssign)) and isinstance(small.value, cst.Call):
                    yield small.value


def _respelled(text: str) -> list[tuple[str, str]]:
    """(as spelled, as Python reads it) for each identifier whose NFKC form is another spelling
    (`Ｌ` is `L`, `_＿code＿_` is `__code__`)."""
    if text.isascii():
        return []
    out = []
    for word in set(_IDENTIFIER.findall(text)):
        if not word.isascii():
            name = unicodedata.normalize("NFKC", word)
            if name != word:
                out.append((word, name))
    return sorted(out)


_IDENTIFIER = re.compile(r"[^\W\d]\w*")


def _depth(value: Any) -> int:
    """How many subscripts reach an element of `value` that cannot change in place (0: `value`
    itself cannot; `FIELDS_ONLY`: a data-class instance, whose fields cannot)."""
    if isinstance(value, Record):
        return FIELDS_ONLY if all(_depth(v) == 0 for v in value.fields.values()) else 1
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple, set)) else ()
    inner = max((1 if d == FIELDS_ONLY else d for d in map(_depth, items)), default=0)
    return 1 + inner if isinstance(value, (list, dict, set)) or inner else 0


def _class_names(classes: list[cst.ClassDef]) -> set[str]:
    """The names the bodies of `classes` bind (their fields, methods, constants)."""
    out: set[str] = set()
    for cls in classes:
        for stmt in cls.body.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                out.add(stmt.name.value)
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                        [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else []
                    out.update(n for t in targets for n in target_names(t))
    return out


def _reached_namespace(found: Effects, env: dict) -> str:
    """A namespace reached through a function by an attribute the text does not name
    (`getattr(f, "__glo" + "bals__")`), or the builtins' (`__builtins__`, `import builtins`):
    the first spelling, or ""."""
    for name in found.reached:
        if name == "gc":
            return "gc.get_objects()"
        if isinstance(env.get(name), Function) or name in ("__builtins__", "builtins"):
            return f"getattr({name}, ...)" if name not in ("__builtins__", "builtins") else name
    return ""


def _dynamic_namespace(text: str) -> str:
    """The first spelling that can reach the module's namespace at run time and change its
    names ("" when none): `globals()`, `vars()`, `locals()`, `exec(`, `eval(`, `__import__(`,
    `import_module`, `sys.modules` (`sys` however it is imported), a frame's `f_globals` /
    `f_locals`, a function's `__globals__`, an object's `__dict__`. Attribute calls such as
    `model.eval()` and words in strings or comments are not it."""
    if not _may_change_namespace(text):
        return ""
    text = with_fstring_code(text)  # (the code of f-strings' fields: probe h116)
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                  if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT,
                                    tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError):
        return "globals()"  # unreadable by the tokenizer: assume the worst
    sys_names = {"sys"}
    for i, tok in enumerate(tokens):
        if tok.type != tokenize.NAME:
            continue
        word = tok.string
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        if word == "sys" and before in ("import", ",") and after == "as" and i + 2 < len(tokens):
            sys_names.add(tokens[i + 2].string)  # `import sys as _s`
        if word == "sys" and before == "from" and "modules" in _imported_names(tokens, i + 1):
            return "sys.modules"
        if word in _NAMESPACE_CALLS and before not in (".", "def"):
            if after != "(":  # the builtin itself, handed on or called another way: `(exec)(...)`, `run = exec`
                return word
            if word != "vars" or (i + 2 < len(tokens) and tokens[i + 2].string == ")"):
                return f"{word}()"
        if word in _NAMESPACE_ATTRIBUTES and before == ".":
            return f".{word}"
        if word == "import_module":
            return "importlib.import_module"
        if word == "modules" and before == "." and (i >= 2 and tokens[i - 2].string in sys_names or after == "["):
            return "sys.modules"  # (indexed under another name too: `_SYSTEM.modules[__name__]`, probe h116)
        if word == "sys" and before == ".":
            return "sys.modules"  # `os.sys`: the `sys` module reached through another (probe h116)
        if word == "gc" and before in ("import", "from", ","):
            return "gc.get_objects"  # every object, under whatever name it is imported (probe h116)
    return ""


#: Builtins whose call can read or change module names (`vars` only without an argument).
_NAMESPACE_CALLS = frozenset({"globals", "exec", "eval", "vars", "locals", "__import__"})
#: Attributes that hold a namespace: a frame's, a function's globals, any object's dict.
_NAMESPACE_ATTRIBUTES = frozenset({"f_globals", "f_locals", "__globals__", "__dict__",
                                   # a frame's or a function's builtins, the module object `inspect`
                                   # finds, every class (probe h116)
                                   "f_builtins", "getmodule", "__builtins__", "__subclasses__"})
_NAMESPACE_WORDS = (*_NAMESPACE_CALLS, *_NAMESPACE_ATTRIBUTES, "import_module", "modules", "sys", "gc")


def _imported_names(tokens: list, at: int) -> set[str]:
    """The names of a `from M import a, b as c` statement, from the token after `M`."""
    names: set[str] = set()
    for tok in tokens[at + 1:]:
        if tok.type != tokenize.NAME and tok.string not in (",", "(", ")"):
            break
        if tok.type == tokenize.NAME and tok.string not in ("import", "as"):
            names.add(tok.string)
    return names


def _may_change_namespace(text: str) -> bool:
    """A cheap look for the words `_dynamic_namespace` looks for, strings and comments
    included (the tokenizer then decides): a call word before `(`, an attribute word after
    `.`, `modules` after `.` or on a line that names `sys`, `import_module` anywhere."""
    for word in _NAMESPACE_WORDS:
        at = text.find(word)
        while at >= 0:
            before = text[at - 1] if at else " "
            end = at + len(word)
            if not (before.isalnum() or before == "_") and not (end < len(text) and (text[end].isalnum()
                                                                                     or text[end] == "_")):
                dot = text[:at].rstrip().endswith(".")
                if word in _NAMESPACE_CALLS:
                    if not dot:  # called, or handed on (`(exec)(...)`, `run = exec`)
                        return True
                elif word == "modules":
                    line = text[text.rfind("\n", 0, at) + 1:at]
                    if dot or "sys" in line:
                        return True
                elif dot or word in ("import_module", "gc"):
                    return True
            at = text.find(word, end)
    return False


# syntax helpers ------------------------------------------------------------------------------
def _mutable(value: Any) -> bool:
    """A list, dict or set anywhere in a compile-time value."""
    if isinstance(value, (list, dict, set)):
        return True
    return isinstance(value, tuple) and any(_mutable(v) for v in value)


def _lists_in(value: Any) -> Iterator[Any]:
    """The lists, dicts, sets and data-class instances a value holds (itself included), through
    tuples, lists, dicts and instances: `D = {"x": L}; D["x"][0] = 1` changes `L`, `T.rows = 16`
    changes the instance `T` holds."""
    if isinstance(value, (list, dict, set, Record)):
        yield value
    items = value.values() if isinstance(value, dict) else value.fields.values() if isinstance(value, Record) \
        else value if isinstance(value, (list, tuple)) else ()
    for item in items:
        if isinstance(item, (list, tuple, dict, set, Record)):
            yield from _lists_in(item)


def _split(value: Any, elements: list) -> list | None:
    """The parts `a, *b, c = value` gives each target, or None when it would fail."""
    if not isinstance(value, (tuple, list, str, range)):
        return None
    items = list(value)
    stars = [i for i, el in enumerate(elements) if isinstance(el, cst.StarredElement)]
    if len(stars) > 1:
        return None
    if not stars:
        return items if len(items) == len(elements) else None
    star = stars[0]
    after = len(elements) - star - 1
    if len(items) < star + after:
        return None
    return items[:star] + [items[star:len(items) - after]] + items[len(items) - after:]


def _part(target: cst.BaseExpression) -> str:
    """What a target changes of the object it starts from: an item or an attribute."""
    while isinstance(target, (cst.Attribute, cst.Subscript)) and isinstance(target.value, (cst.Attribute,
                                                                                             cst.Subscript)):
        target = target.value
    return "an attribute" if isinstance(target, cst.Attribute) else "an item"


def _splits_into(target: cst.BaseExpression, n: int) -> bool:
    """Whether `target` is a tuple or list of `n` targets, none starred."""
    return isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == n and not any(
        isinstance(el, cst.StarredElement) for el in target.elements)


def target_names(target: cst.BaseExpression) -> list[str]:
    """The names an assignment target binds (none for an attribute or an item)."""
    return [n.value for n in _target_nodes(target)]


def _target_nodes(target: cst.BaseExpression) -> list[cst.Name]:
    """The `Name` nodes of the names an assignment target binds."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _target_nodes(el.value)]
    if isinstance(target, cst.StarredElement):
        return _target_nodes(target.value)
    return []


def _passed(node: cst.BaseExpression) -> list[str]:
    """Names whose objects a call given `node` receives (not the results of operations on them)."""
    if isinstance(node, (cst.Name, cst.Subscript, cst.Attribute)):
        root = root_name(node)
        return [root] if root is not None else []
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return [n for el in node.elements for n in _passed(el.value)]
    if isinstance(node, cst.IfExp):
        return _passed(node.body) + _passed(node.orelse)
    return []


def _held(node: cst.BaseExpression) -> list[str]:
    """Names whose objects a value built by `node` may hold: the elements, keys and values of
    displays, the arguments of calls, either arm of a conditional expression, through any
    nesting (not the results of operations on them)."""
    if isinstance(node, (cst.Name, cst.Subscript, cst.Attribute)):
        return _passed(node)
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return [n for el in node.elements for n in _held(el.value)]
    if isinstance(node, cst.Dict):
        return [n for el in node.elements for part in ((el.key, el.value) if isinstance(el, cst.DictElement)
                                                      else (el.value,)) for n in _held(part)]
    if isinstance(node, cst.Call):
        return [n for arg in node.args for n in _held(arg.value)]
    if isinstance(node, cst.IfExp):
        return _held(node.body) + _held(node.orelse)
    return []


def _walk_here(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes that run where `node` runs: not the bodies of `def`, `class` or `lambda`, but what
    their statements evaluate where they stand (`_header`: decorators, defaults, annotations,
    bases), where a `:=` binds a module name too."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            # (a top-level `class` too: its body binds class attributes, not module names, probe h238)
            stack.extend(reversed(_header(n)))
            continue
        stack.extend(reversed(children(n)))


def _header(n: cst.FunctionDef | cst.ClassDef | cst.Lambda) -> list[cst.CSTNode]:
    """What a `def`, `class` or `lambda` evaluates where it stands, before its body ever runs."""
    if isinstance(n, cst.ClassDef):
        return [*(d.decorator for d in n.decorators), *(a.value for a in (*n.bases, *n.keywords))]
    if isinstance(n, cst.FunctionDef):  # its decorators, defaults and annotations
        return [part for part in _header_evaluated(n) if part is not None]
    params = n.params
    return [p.default for p in (*params.posonly_params, *params.params, *params.kwonly_params) if p.default is not None]


def _header_evaluated(fn: cst.FunctionDef, annotations: bool = True) -> list[cst.BaseExpression | None]:
    """A `def`'s decorators, its parameters' defaults and (with `annotations`) its annotations,
    parameters' and return: Python evaluates the decorators and defaults when the `def` runs,
    and the annotations too without `from __future__ import annotations`. With it they stay
    text, and reading them as evaluated can only make more names unknown."""
    params = fn.params
    star = [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    every = (*params.posonly_params, *params.params, *star, *params.kwonly_params)
    anns = [p.annotation.annotation if p.annotation is not None else None for p in every] if annotations else []
    defaults = [p.default for p in every]
    returns = [fn.returns.annotation if fn.returns is not None and annotations else None]
    return [d.decorator for d in fn.decorators] + defaults + anns + returns


def _postpones_annotations(module: cst.Module) -> bool:
    """Does the module start with `from __future__ import annotations` (after its docstring)?"""
    for stmt in module.body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and stmt.body else None
        if isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name) \
                and small.module.value == "__future__":
            if not isinstance(small.names, cst.ImportStar) and any(
                    isinstance(a.name, cst.Name) and a.name.value == "annotations" for a in small.names):
                return True
            continue
        if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            continue
        return False
    return False


def _global_names(tops: list) -> frozenset[str]:
    """The names a `global` statement anywhere in the file declares, as Python reads them (`__x`
    in a class is `_Class__x`)."""
    out: set[str] = set()
    stack = [(top, top.name if isinstance(top, ast.ClassDef) else "") for top in tops]
    while stack:  # (a loop, not a nested function calling itself: that would leave a reference cycle)
        node, cls = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Global):
                out.update(f"_{cls.lstrip('_')}{n}" if cls.strip("_") and n.startswith("__") and not n.endswith("__")
                           else n for n in child.names)
            stack.append((child, child.name if isinstance(child, ast.ClassDef) else cls))
    return frozenset(out)


def _item_targets(stmt: cst.CSTNode) -> list[str]:
    """The names under which a `for`, `with ... as` or comprehension target in `stmt` sets an item
    or attribute (`ROWS` of `for ROWS[0] in ...`)."""
    out: list[str] = []
    if isinstance(stmt, (Verbatim, cst.FunctionDef)):
        return out  # (a function's body runs when it is called: `effects.py` judges what it changes)
    stack: list[cst.CSTNode] = [stmt]
    found: list[cst.CSTNode] = []
    while stack:  # every node but those of function bodies and lambdas, which run later
        node = stack.pop()
        if isinstance(node, (cst.For, cst.CompFor, cst.AsName)):
            found.append(node)
        stack.extend(c for c in children(node) if not isinstance(c, (cst.FunctionDef, cst.Lambda)))
    for n in found:
        target = n.target if isinstance(n, (cst.For, cst.CompFor)) else n.name if isinstance(n, cst.AsName) else None
        parts = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
        for part in parts:
            if isinstance(part, (cst.Subscript, cst.Attribute)):
                root = root_name(part)
                if root is not None:
                    out.append(root)
    return out


def _bound_names(stmt: cst.CSTNode) -> list[str]:
    """Every module-level name `stmt` may bind ("*" for a star import)."""
    out: list[str] = []
    for n in _walk_here(stmt):
        if isinstance(n, cst.ImportStar):
            out.append("*")
        elif isinstance(n, cst.Del):
            out += target_names(n.target)
        else:
            out += [name for name, _ in _sites(n, stmt)]
    return out


def binding_sites(statements: Sequence[cst.CSTNode]) -> Iterator[tuple[str, cst.CSTNode]]:
    """Each module-level name the top-level `statements` bind, in source order, with the node that binds it
    (an assignment target's name, an import's alias, a `def` or `class`'s name, a definition kept
    as text): what runs where each top-level statement stands, in `if`, `for`, `try` and `with`
    blocks too, not in the bodies of functions and classes. A `del` binds nothing, nor does `X: int`
    without a value; a star import binds names nobody can list, so it gives none."""
    for stmt in statements:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            yield stmt.name.value, stmt.name
        for n in _walk_here(stmt):
            if not (isinstance(n, cst.AnnAssign) and n.value is None):
                yield from _sites(n, stmt)


def _sites(n: cst.CSTNode, stmt: cst.CSTNode) -> list[tuple[str, cst.CSTNode]]:
    """The module-level names node `n` of statement `stmt` binds, each with the node that binds it
    (`stmt`'s own name, for a `def` or `class`, is bound where the statement is taken)."""
    if isinstance(n, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr)):
        return [(name.value, name) for name in _target_nodes(n.target)]
    if isinstance(n, cst.AsName):
        return [(name.value, name) for name in _target_nodes(n.name)]
    if isinstance(n, cst.ImportAlias) and n.asname is None:
        head: cst.BaseExpression = n.name
        while isinstance(head, cst.Attribute):
            head = head.value
        return [(head.value, n)] if isinstance(head, cst.Name) else []
    if isinstance(n, (cst.FunctionDef, cst.ClassDef)) and n is not stmt:
        return [(n.name.value, n.name)]
    if isinstance(n, (cst.MatchAs, cst.MatchStar)) and n.name is not None:
        return [(n.name.value, n.name)]
    if isinstance(n, cst.MatchMapping) and n.rest is not None:
        return [(n.rest.value, n.rest)]
    if isinstance(n, Verbatim):
        return [(n.name, n)]
    return []


def _dotted_text(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return _dotted_text(node.value) + "." + node.attr.value
    return node.value if isinstance(node, cst.Name) else "?"


def _fixed_class(cls: cst.ClassDef, tops: list, text: str) -> bool:
    """`classnames.plain_members` of a class statement of the module body (Python's tree of
    the one top-level class of its name); no for any other."""
    trees = [t for t in tops if isinstance(t, ast.ClassDef) and t.name == cls.name.value]
    return len(trees) == 1 and plain_members(trees[0], text)


def _plain_default(value: cst.BaseExpression) -> bool:
    """A field's default that calls nothing, or `field(default=...)` of one (a `default_factory`
    of a container: `list`, `dict`)."""
    if type(value) is cst.Call and _dotted_text(value.func).split(".")[-1] == "field":
        return all(a.keyword is not None and (a.keyword.value != "default_factory" and _plain_default(a.value)
                                              or a.keyword.value == "default_factory"
                                              and _dotted_text(a.value) in ("list", "dict", "tuple", "set"))
                   for a in value.args)
    return not any(type(n) in (cst.Call, cst.Lambda) for n in _walk_here(value))


def _data_class(node: cst.ClassDef) -> bool:
    """A class of fields whose instances run nothing of the file where a kernel uses them: no
    base, keyword or nested class, decorated (if at all) by `@dataclass`, its methods plain ones
    (no special method, which Python runs unasked, no decorator such as `@property`), its class
    attributes annotated fields whose defaults call nothing (an object a `default_factory` makes)."""
    if node.bases or node.keywords or not isinstance(node.body, cst.IndentedBlock):
        return not node.bases and not node.keywords
    for s in node.body.body:
        if isinstance(s, cst.ClassDef) or isinstance(s, cst.FunctionDef) and (
                any(_dotted_text(d.decorator) not in ("staticmethod", "classmethod") for d in s.decorators)
                or s.name.value.startswith("__") and s.name.value.endswith("__")):
            return False
        if isinstance(s, cst.SimpleStatementLine) and any(
                isinstance(small, (cst.Assign, cst.AugAssign)) or isinstance(small, cst.AnnAssign)
                and small.value is not None and not _plain_default(small.value) for small in s.body):
            return False
    return all(_dotted_text(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator).split(".")[-1]
               == "dataclass" for d in node.decorators)
