"""Does a file change PyPTO's `pl` module, or hand one of its namespaces where the check
cannot follow it?

The check reads every `pl` op (`pl.load`, `vf.store_align`, ...) as PyPTO's. A file that
binds a name it imported from `pypto_pro.language` again (`Vf = _RowStore`), changes the
module (`pl.Vf.store_align = f`, `del pl.x`, `for pl.Vf.op in ...`), or hands a namespace of
it to code that may (`_V = pl.Vf`, `getattr(pl, "Vf")`, `_patch(pl)`, `vars(pl.Vf)`) runs
other ops than the ones the check follows; it is refused, naming the place.

A namespace is the module itself or one name in it that is not a constant (`pl.Vf`,
`pl.MaskPattern`, `pl.pipeline`); reading one is fine where Python only looks a name up in
it (`pl.Vf.op`), calls it (`pl.TileType(...)`), decorates with it or annotates with it
(`a: pl.Tensor[[N], pl.DT_FP32]`). Statements are searched cheaply; the expressions of the
whole file only when its text shows a namespace used any other way.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from pto_transpile.read.meaning import Unknown

#: the functions whose `with` blocks say which core runs them
_SECTIONS = frozenset({"section_cube", "section_vector"})

#: the fields of a statement that hold statements
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def pl_change(file) -> tuple[int, str] | None:
    """(line, what) of the first place `file` changes `pl` or hands a namespace of it on (line
    0: a rebinding, anywhere); None when it does neither."""
    for alias, path in file.pl.aliases.items():
        meaning = file.meaning(alias)
        if not (isinstance(meaning, Unknown) and meaning.imported):
            return 0, f"`{alias}`, imported from `pypto_pro.language`, is bound again in this file (or may be)"
        if (path[-1:] and path[-1] in _SECTIONS or alias in _SECTIONS) and path != (alias,):
            # (probe h159: `from pypto_pro.language import section_cube as section_vector`, a cube block
            # the walks of the loop body and the emulator took for a vector one, by its spelling)
            return 0, f"`{'.'.join(path) or 'pypto_pro.language'}` is imported as `{alias}`: a section is read by " \
                      "the name it is written with"
    heads = set(file.pl.aliases) | set(file.pl.roots)
    if not heads:
        return None
    trees = file.source.python_statements()
    aliases = _module_aliases(trees, heads)  # `MS = pl.MemorySpace`: followed like `pl` itself
    heads |= set(aliases)
    for stmt in _statements(trees):
        for target in _targets(stmt):
            if _rooted(target, heads):
                return stmt.lineno, f"line {stmt.lineno} changes the `pl` module"
    lines = _suspect(file.source.text, heads)
    for tree in trees:
        if any(tree.lineno <= line <= (tree.end_lineno or tree.lineno) for line in lines):
            found = _expressions(tree, file, heads, aliases)
            if found is not None:
                return found
    return None


def _module_aliases(trees: list, heads: set[str]) -> dict[str, ast.Assign]:
    """Module-level names assigned once, plainly, a dotted name of `pl` (`MS = pl.MemorySpace`),
    through one another too: their uses are searched like `pl`'s, so handing the namespace to
    them is no escape."""
    found: dict[str, ast.Assign] = {}
    counts: dict[str, int] = {}
    for stmt in trees:
        for target in _targets(stmt):
            if isinstance(target, ast.Name):
                counts[target.id] = counts.get(target.id, 0) + 1
    changed = True
    while changed:
        changed = False
        for stmt in trees:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                if name not in found and name not in heads and counts.get(name) == 1 \
                        and _dotted_from(stmt.value, heads | set(found)):
                    found[name] = stmt
                    changed = True
    return found


def _expanded(dotted: tuple[str, ...], aliases: dict[str, ast.Assign]) -> tuple[str, ...]:
    """`dotted` with a module alias of `pl` (`MS` of `MS = pl.MemorySpace`) written out."""
    seen: set[str] = set()
    while dotted[0] in aliases and dotted[0] not in seen:
        seen.add(dotted[0])
        parts: list[str] = []
        node: ast.expr = aliases[dotted[0]].value
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        assert isinstance(node, ast.Name)  # `_dotted_from` said so
        dotted = (node.id, *reversed(parts), *dotted[1:])
    return dotted


def _dotted_from(node: ast.expr, heads: set[str]) -> bool:
    while isinstance(node, ast.Attribute):
        if node.attr.startswith("__"):
            return False
        node = node.value
    return isinstance(node, ast.Name) and node.id in heads


def _statements(stmts: list):
    stack = list(reversed(stmts))
    while stack:
        node = stack.pop()
        yield node
        for name in _BODIES:
            stack.extend(reversed(getattr(node, name, ())))


def _targets(stmt: ast.AST) -> list[ast.expr]:
    """What a statement binds or deletes, tuple targets spread."""
    if isinstance(stmt, (ast.Assign, ast.Delete)):
        found = list(stmt.targets)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
        found = [stmt.target]
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        found = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    else:
        return []
    out: list[ast.expr] = []
    while found:
        t = found.pop()
        if isinstance(t, (ast.Tuple, ast.List)):
            found.extend(t.elts)
        elif isinstance(t, ast.Starred):
            found.append(t.value)
        else:
            out.append(t)
    return out


def _rooted(target: ast.expr, heads: set[str]) -> bool:
    """Is `target` an attribute or item of something reached from a `pl` name?"""
    if not isinstance(target, (ast.Attribute, ast.Subscript)):
        return False
    root: ast.expr = target
    while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
        root = root.func if isinstance(root, ast.Call) else root.value
    return isinstance(root, ast.Name) and root.id in heads


def _suspect(text: str, heads: set[str], roots: frozenset = frozenset({"pypto_pro"})) -> list[int]:
    """The lines whose text uses a `pl` name, or one name in it, other than by looking a name
    up in it or calling it, outside imports and decorators, or binds a loop target in it.
    Cheap, and never misses one: a false hit (a docstring) only costs the walk of the
    expressions of its statement."""
    names = "|".join(re.escape(h) for h in sorted(heads, key=len, reverse=True))
    found: set[int] = set()
    for m in _finditer_where(_NOT_AFTER_NAME_OR_DOT, re.compile(rf"(?:{names})\b"), text):
        after = _AFTER.match(text, m.end())
        assert after is not None  # every group is optional
        chain, follows = _WORDS.findall(after.group(1)), after.group(2)
        if m.group(0) in roots and chain[:1] == ["language"]:
            chain = chain[1:]  # `pypto_pro.language.Vf` is `pl.Vf`
        value = follows not in (".", "(", "[") and not _import_or_decorator(text, m.start())
        hit = any(part.startswith("__") for part in chain) or value and (
            not chain or len(chain) == 1 and not chain[0].isupper())
        if hit:
            found.add(text.count("\n", 0, m.start()) + 1)
    for m in _finditer_where(_WORD_BOUNDARY, _FOR_IN, text):
        if re.search(rf"(?<![\w.])(?:{names})\s*\.", m.group(1)):
            found.add(text.count("\n", 0, m.start()) + 1)
    return sorted(found)


def _finditer_where(at: re.Pattern, pattern: re.Pattern, text: str) -> Iterator[re.Match]:
    """The matches `re.finditer` gives of the pattern `at` + `pattern`, with `at` a zero-width
    assertion (a look-behind, a word boundary): the leftmost match of `pattern` at or after the
    position reached, taken where `at` holds at its start and searched again from the next
    position where it does not. The same matches, with the same groups: at a given start the
    assertion consumes nothing, so `pattern` matches there as it does after it. Many times
    faster on a whole file: a pattern that starts with its literal text lets the regex engine
    scan for that text, where a leading assertion makes it try every position."""
    pos = 0
    while True:
        m = pattern.search(text, pos)
        if m is None:
            return
        if at.match(text, m.start()):
            yield m
            pos = m.end()  # never an empty match: both patterns take at least a name
        else:
            pos = m.start() + 1


#: not after a name character or a dot: where a `pl` name (not an attribute) may start
_NOT_AFTER_NAME_OR_DOT = re.compile(r"(?<![\w.])")
_WORD_BOUNDARY = re.compile(r"\b")
_WORDS = re.compile(r"\w+")
#: a `for` header's target (a word boundary before `for`: `_finditer_where`)
_FOR_IN = re.compile(r"for\s+([^\n]*?)\s+in\b")
#: after a `pl` name: the dotted names that follow it, and the character after them
_AFTER = re.compile(r"((?:[ \t]*\.[ \t]*\w+)*)[ \t]*(\S?)")  # on its own line: a chain split is a hit


def _import_or_decorator(text: str, at: int) -> bool:
    """Is the name at `at` in an import line, a comment line, or a decorator's own name?"""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start:end if end >= 0 else len(text)].lstrip()
    if line.startswith(("import ", "from ", "#")) and ";" not in line:
        return True
    return text[start:at].strip() == "@"


def _expressions(tree: ast.AST, file, heads: set[str], aliases: dict) -> tuple[int, str] | None:
    parents: dict[ast.AST, ast.AST] = {}
    annotations: set[ast.AST] = set()  # every node of an annotation (`t: pl.Tile | None`)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
        for annotation in _annotations(node):
            annotations.update(ast.walk(annotation))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in heads and isinstance(node.ctx, ast.Load):
            top: ast.expr = node
            dotted = [node.id]
            while isinstance(parents.get(top), ast.Attribute):
                top = parents[top]  # type: ignore[assignment]
                dotted.append(top.attr)  # type: ignore[attr-defined]
            line = getattr(node, "lineno", 0)
            if any(part.startswith("__") for part in dotted[1:]):
                return line, f"line {line} reaches into the `pl` module through `{'.'.join(dotted)}`"
            if isinstance(getattr(top, "ctx", None), (ast.Store, ast.Del)) and top is not node:
                return line, f"line {line} changes the `pl` module"
            path = file.pl.resolve(_expanded(tuple(dotted), aliases))
            namespace = path == () or path is None or len(path) == 1 and _namespace(path[0])
            parent = parents.get(top)
            aliased = isinstance(parent, ast.Assign) and any(parent is a for a in aliases.values())
            if namespace and not aliased and top not in annotations and not _looked_up(top, parent):
                return line, f"line {line} hands `{'.'.join(dotted)}` on, which the check cannot follow"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("setattr", "delattr") and node.args and _rooted(
                    ast.Attribute(node.args[0], "_", ast.Store()), heads):
            return node.lineno, f"line {node.lineno} changes the `pl` module"
    return None


#: the names in `pl` that hold other names in lower case (the classes are in CapWords)
_SUBMODULES = frozenset({"pipeline", "system", "language"})


def _namespace(name: str) -> bool:
    """Does `pl.<name>` hold names (`Vf`, `MaskPattern`, `pipeline`), rather than being a
    constant (`DT_FP32`, `NZ`) or an op?"""
    return name in _SUBMODULES or name[:1].isupper() and not name.isupper()


def _annotations(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, (ast.arg, ast.AnnAssign)):
        return [node.annotation] if node.annotation is not None else []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
        return [node.returns]
    return []


def _looked_up(top: ast.expr, parent: ast.AST | None) -> bool:
    """Is the namespace `top` only called, subscripted (a type: `pl.Tensor[...]`), used as a
    decorator or tested against (`isinstance(t, pl.Tile)`) where it stands?"""
    if isinstance(parent, ast.Call) and (parent.func is top or isinstance(parent.func, ast.Name) and parent.func.id in (
            "isinstance", "issubclass") and top in parent.args[1:]):
        return True
    if isinstance(parent, ast.Subscript) and parent.value is top and isinstance(parent.ctx, ast.Load):
        return True
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and top in parent.decorator_list:
        return True
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and parent.returns is top:
        return True
    return isinstance(parent, (ast.arg, ast.AnnAssign)) and parent.annotation is top
