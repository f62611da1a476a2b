"""Per-op buffer accesses of each stage: (buffer, role, pipe), in execution order.

Only tracked buffers are recorded: cross-core buffers and buffers whose addresses overlap
one. Plain helpers called from a stage are scanned as part of it (bindings follow argument
positions); `@pl.vector_function` helpers contribute V-pipe accesses from their `vf.*`
ops. Problems found on the way (an op whose pipe cannot be determined, a helper that
declares a tile group or returns a tile, ...) are reported as findings with rule codes.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field, replace

import libcst as cst

from pto_api.ops import DESCRIPTOR_ONLY_OPS, dump_pipe, move_pipe, op_keyword_roles, op_pipe, op_roles, store_pipe
from pto_transpile import codes
from pto_transpile.diagnostics import Finding
from pto_transpile.read import vfbody
from pto_transpile.read.classnames import static_method
from pto_transpile.read.kinds import SLOT_ACCESSORS
from pto_transpile.read.meaning import Function
from pto_transpile.read.model import Access, Kernel, StageCall
from pto_transpile.read.walk import BINDERS, children, function_choices, names_stored, parameters


@dataclass
class Binding:
    buffer: str
    is_group: bool  #: True: the name is the group itself; False: a slot (tile) of it


@dataclass
class ScanResult:
    accesses: list[Access] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    #: index in `accesses` -> how many constructs around it may skip it (`_OpWalker.depth`)
    depths: dict[int, int] = field(default_factory=dict)


def overlap_pairs(kernel: Kernel) -> list[tuple[str, str]]:
    """Pairs of buffers (one at least cross-core) whose byte ranges intersect in one memory."""
    names = sorted({b.name for b in kernel.buffers.values()})
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ba, bb = kernel.buffers[a], kernel.buffers[b]
            if not (ba.cross_core or bb.cross_core) or ba.memory != bb.memory or not ba.ranges or not bb.ranges:
                continue
            if any(s1 < e2 and s2 < e1 for s1, e1 in ba.ranges for s2, e2 in bb.ranges):
                pairs.append((a, b))
    return pairs


def tracked_buffers(kernel: Kernel) -> set[str]:
    tracked = {n for n, b in kernel.buffers.items() if b.cross_core and n == b.name}
    for a, b in overlap_pairs(kernel):
        tracked.update((a, b))
    return tracked


class StageScanner:
    """Scans stage bodies (and the helpers they call) for accesses to tracked buffers."""

    def __init__(self, file, kernel: Kernel):
        self.file = file
        self.pl = file.pl
        self.kernel = kernel
        self.tracked = tracked_buffers(kernel)
        self._aliases: dict[str, str] = {}  #: `_kernel_alias`'s answers

    def scan_stage(self, stage_call: StageCall) -> ScanResult:
        result = ScanResult()
        func = self.file.stages.get(stage_call.func)
        if func is None:
            return result
        bindings: dict[str, Binding] = {}
        aggregates: dict[str, dict[str, str]] = {}
        functions: dict[str, tuple[str, ...]] = {}
        bound = stage_call.bind(func.params)
        for param, arg in bound:
            v = arg.value
            candidates = self._functions_handed(v)
            if candidates:  # `scale_store(..., _relu)`: the stage calls `_relu` as `post(...)`
                functions[param] = candidates
            elif isinstance(v, cst.Name):
                if v.value in self.kernel.buffers:
                    bindings[param] = Binding(self.kernel.buffers[v.value].name, True)
                elif v.value in self.kernel.slot_vars:
                    bindings[param] = Binding(self.kernel.buffers[self.kernel.slot_vars[v.value]].name, False)
                elif v.value in self.kernel.tuples:
                    aggregates[param] = self.kernel.tuples[v.value]
        self._starred_stage(stage_call, func, result)
        given = {param for param, _ in bound}
        defaults = self.file.names.defaults.get(func.node, {})  # what each default meant when the `def` ran
        for param, meaning in defaults.items():
            # `def finish(..., post=_keep_raw)`, called as `post(...)`: the function the default is
            names = [n for n, fn in self.file.helpers.items() if isinstance(meaning, Function) and fn is meaning.node]
            if param not in given and names:
                functions[param] = (names[0],)
        self._scan_function(func.node, bindings, aggregates, stage_call.index, result, stack=(func.name,),
                            functions=functions)
        return result

    def _starred_stage(self, stage_call: StageCall, func, result: ScanResult) -> None:
        """Tiles of synchronised buffers a stage takes through its own `*args` or `**kwargs`
        (probe h131: their accesses went unseen, and PTO033 said the buffer had no consumer), as
        `_OpWalker._starred_buffers` refuses them for a helper."""
        into = starred_arguments(stage_call.call, func.node.params, func.params)
        hidden = sorted({(buffer, via) for a, via in into for buffer in [self._buffer_named(a.value)]
                         if buffer in self.tracked}, key=str)
        if hidden:
            result.findings.append(Finding(codes.OP_ROLES_UNKNOWN, stage_call.call, {
                "op": func.name, "buffers": ", ".join(sorted({b for b, _ in hidden})), "via": hidden[0][1],
                "_message": "stage_starred", "_hint": "stage_starred"}))

    def _buffer_named(self, value: cst.BaseExpression) -> str | None:
        """The buffer a stage's argument names (a group, or a slot taken from one), if any."""
        if not isinstance(value, cst.Name):
            return None
        if value.value in self.kernel.buffers:
            return self.kernel.buffers[value.value].name
        if value.value in self.kernel.slot_vars:
            return self.kernel.buffers[self.kernel.slot_vars[value.value]].name
        return None

    def _functions_handed(self, value: cst.BaseExpression) -> tuple[str, ...]:
        """The functions of the file an argument may be (`function_choices`), a kernel local bound
        once to one (`post = epilogue`, then `finish(..., post)`) followed to it."""
        def helper(name: str) -> str | None:
            if name in self.kernel.stored:
                name = self._kernel_alias(name)
            return name if name in self.file.helpers and name not in self.kernel.stored else None
        return function_choices(value, helper)

    def _kernel_alias(self, name: str) -> str:
        """What a kernel local bound once, by `name = other`, and in no other way, is a name for
        ("" when it is bound otherwise)."""
        if name not in self._aliases:
            self._aliases[name] = self._find_alias(name)
        return self._aliases[name]

    def _find_alias(self, name: str) -> str:
        body = self.kernel.node.body
        bound = [n for n in names_stored(body, self.file.find(body, BINDERS)) if n.value == name]
        values = [a.value for a in self.file.find(body, cst.Assign)
                  if any(isinstance(t.target, cst.Name) and t.target.value == name for t in a.targets)]
        if len(bound) != 1 or len(values) != 1 or not isinstance(values[0], cst.Name) \
                or any(p.name.value == name for p in parameters(self.kernel.node)):
            return ""
        return values[0].value

    # one function body ------------------------------------------------------------------
    def _scan_function(self, fn: cst.FunctionDef, bindings, aggregates, stage_index, result, stack,
                       call_site=None, depth: int = 0, functions: dict[str, tuple[str, ...]] | None = None) -> None:
        bindings = dict(bindings)
        self._bind_locals(fn, bindings, aggregates, result)
        walker = _OpWalker(self, fn, bindings, stage_index, result, stack, call_site)
        if functions:  # parameters the body does not rebind: each the file's function its caller hands it
            rebound = {n.value for n in names_stored(fn.body, self.file.find(fn.body, BINDERS))}
            walker.functions = {p: f for p, f in functions.items() if p not in rebound}
        walker.guarded = depth
        walker.walk(fn.body)

    def _bind_locals(self, fn, bindings: dict, aggregates: dict, result: ScanResult) -> None:
        """Fixed point over `y = agg.f`, `y = g.next()`, `y = g[i]`, `y = t[a:b]`, `y = x`."""
        assigns = [(node.targets[0].target.value, node.value)
                   for node in self.file.find(fn.body, cst.Assign, skip_functions=True)
                   if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)]
        changed = True
        while changed:
            changed = False
            for target, value in assigns:
                if target in bindings:
                    continue
                found: Binding | None = None
                if (type(value) is cst.Attribute and type(value.value) is cst.Name
                        and value.value.value in aggregates):
                    var = aggregates[value.value.value].get(value.attr.value)
                    if var in self.kernel.buffers:
                        found = Binding(self.kernel.buffers[var].name, True)
                elif isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                        and value.func.attr.value in SLOT_ACCESSORS and isinstance(value.func.value, cst.Name):
                    owner = bindings.get(value.func.value.value)
                    if owner is not None and owner.is_group:
                        found = Binding(owner.buffer, False)
                elif isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name):
                    owner = bindings.get(value.value.value)
                    if owner is not None:
                        found = Binding(owner.buffer, False)
                elif isinstance(value, cst.Name) and value.value in bindings:
                    found = bindings[value.value]
                if found is not None:
                    bindings[target] = found
                    changed = True
        # L10: a slot accessor on a bound group must be the whole right-hand side of `y = ...`.
        allowed = {v for _, v in assigns}
        for node in self.file.find(fn.body, cst.Call):
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in SLOT_ACCESSORS \
                    and isinstance(node.func.value, cst.Name):
                owner = bindings.get(node.func.value.value)
                if owner is not None and owner.is_group and node not in allowed:
                    result.findings.append(Finding(codes.SLOT_ACCESSOR_NOT_ASSIGNED, node, {
                        "group": node.func.value.value, "accessor": node.func.attr.value}))

    def memory_of(self, name_node: cst.BaseExpression, bindings) -> str | None:
        if isinstance(name_node, cst.Name):
            b = bindings.get(name_node.value)
            if b is not None:
                return self.kernel.buffers[b.buffer].memory
        return None


class _OpWalker:
    """Visits calls and subscripts of one function body in execution order.

    A plain pre-order walk (parents before children, in source order) with a few node types
    handled specially; libcst's visitor machinery would cost several times more."""

    def __init__(self, scanner: StageScanner, fn, bindings, stage_index, result: ScanResult, stack, call_site=None):
        self.s = scanner
        self.call_site = call_site
        self.fn = fn
        self.bindings = bindings
        self.stage_index = stage_index
        self.result = result
        self.stack = stack
        self._made: set[str] | None = None
        #: parameters bound, at the call this walk follows, to functions of the file (their names:
        #: several where the caller chooses one)
        self.functions: dict[str, tuple[str, ...]] = {}
        #: how many constructs around the node being walked may skip it (`if`, loops, `try`,
        #: `x if c else y`, `a and b`, comprehensions; a conditional call of a helper)
        self.guarded = 0
        self.exited = False  #: a `return` or `raise` under a test has been passed: what follows may not run

    @property
    def conditional(self) -> bool:
        return self.guarded > 0 or self.exited

    @property
    def depth(self) -> int:
        """How many constructs around the node being walked may skip it; past a `return` under
        a test, more than any: nothing after it runs surely."""
        return _PAST_EXIT if self.exited else self.guarded

    def _append(self, access: Access) -> None:
        self.result.depths[len(self.result.accesses)] = self.depth
        self.result.accesses.append(access)

    def _guarded(self, *nodes) -> None:
        """Walk `nodes`, each of which the stage may skip."""
        self.guarded += 1
        try:
            for node in nodes:
                if node is not None:
                    self.walk(node)
        finally:
            self.guarded -= 1

    def walk(self, node: cst.CSTNode) -> None:
        handler = _HANDLERS.get(type(node))
        if handler is not None and not handler(self, node):
            return
        for child in children(node):
            self.walk(child)

    def visit_FunctionDef(self, node) -> bool:
        return False  # nested functions are not part of this body's execution

    def visit_branching(self, node) -> bool:
        """`if`, loops, `x if c else y`, `a and b`: the part that surely runs (`_SURE_PART`)
        first, as Python runs it, then the rest, which the stage may skip."""
        sure = getattr(node, _SURE_PART[type(node)])
        self.walk(sure)
        self._guarded(*(child for child in children(node) if child is not sure))
        return False

    def visit_If(self, node: cst.If) -> bool:
        """`if`/`else` (`elif` chains too): an access both ways make, on one pipe, surely runs
        when the `if` does (a tile written in each branch is written, whichever runs)."""
        if node.orelse is None:
            return self.visit_branching(node)
        self.walk(node.test)
        level = self.guarded + 1
        start = len(self.result.accesses)
        ways = []
        for way in (node.body, node.orelse):
            begin = len(self.result.accesses)
            self._guarded(way)
            ways.append({_key(self.result.accesses[i]) for i in range(begin, len(self.result.accesses))
                         if self.result.depths[i] == level})
        both = ways[0] & ways[1]
        for i in range(start, len(self.result.accesses)):
            access = self.result.accesses[i]
            if self.result.depths[i] == level and _key(access) in both:
                self.result.depths[i] = level - 1
                if level == 1:
                    self.result.accesses[i] = replace(access, conditional=False)
        return False

    def visit_maybe(self, node) -> bool:
        """A `try` or a comprehension: any part may not run."""
        self._guarded(*children(node))
        return False

    def visit_exit(self, node) -> bool:
        """`return`/`raise`: under a test, what follows in the function may not run."""
        if self.guarded:
            self.exited = True
        return True

    def visit_Assign(self, node: cst.Assign) -> bool:
        self.walk(node.value)  # the value runs before the targets are stored
        for t in node.targets:
            self._store(t.target, "W")
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        self.walk(node.value)
        self._store(node.target, "RW")
        return False

    def visit_Return(self, node: cst.Return) -> bool:
        if node.value is not None:
            self.walk(node.value)
        self.visit_exit(node)
        if node.value is not None and len(self.stack) > 1 and self._names_buffer(node.value):
            related = ((f"`{self.fn.name.value}` is called from stage `{self.stack[0]}` here", self.call_site),)
            self.s_finding(codes.HELPER_RETURNS_BUFFER, node, related if self.call_site is not None else (),
                           helper=self.fn.name.value, value=self.s.file.source.code(node.value))
        return False

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        # a load of one element `t[i, j]` of a tracked tile: getval on pipe S
        if self._element_access(node):
            self._record(node.value, "R", "S", node, "getval")
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        path = self.s.pl.path(node.func)
        if path is not None:
            self._block_op(path[-1], node)
            return True
        if type(node.func) is cst.Name:
            name = node.func.value
            handed = self.functions.get(name)
            if handed is not None:
                self._handed_call(handed, node)
            elif name in self.s.file.vector_functions:
                self._vf_call(name, node)
            elif name in self.s.file.helpers and name not in self.stack:
                self._helper_call(name, node)
            elif name not in self.s.file.helpers and name not in self.s.file.vector_functions:
                self._unknown_callee(name, node)
        elif type(node.func) is cst.Attribute:  # `Epilogue.halve(...)`: a static method, scanned as a helper
            method = static_method(self.s.file, node.func)
            name = self.s.file.source.code(node.func)
            if method is not None and name not in self.stack:
                self._helper_call(name, node, method)
        return True

    # ------------------------------------------------------------------------------------
    def s_finding(self, code: str, node, related=(), **fields) -> None:
        self.result.findings.append(Finding(code, node, fields, related))

    def _names_buffer(self, expr) -> bool:
        if isinstance(expr, cst.Call) and self.s.pl.path(expr.func) in (("make_tile",), ("make_tile_group",)):
            return True
        if isinstance(expr, cst.Name):
            return expr.value in self.bindings or expr.value in self._made_tiles()
        if (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in SLOT_ACCESSORS):
            return isinstance(expr.func.value, cst.Name) and expr.func.value.value in self.bindings
        if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name):
            return expr.value.value in self.bindings
        if isinstance(expr, (cst.Tuple, cst.List)):
            return any(self._names_buffer(e.value) for e in expr.elements)
        return False

    def _made_tiles(self) -> set[str]:
        """Names this function binds to a tile or group it makes itself (`t = pl.make_tile(...)`)."""
        if self._made is None:
            self._made = set()
            for node in self.s.file.find(self.fn.body, cst.Assign):
                if (isinstance(node.value, cst.Call)
                        and self.s.pl.path(node.value.func) in (("make_tile",), ("make_tile_group",))):
                    self._made.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
        return self._made

    def _operand(self, value: cst.BaseExpression) -> cst.BaseExpression:
        """An op's operand as the name of the tile it reaches: a view or a slot written in place
        (`pl.muls(t[0:8, :], ...)`, `pl.load(g[0], ...)`) reaches the tile it is taken of, as
        when it is bound to a name first (`top = t[0:8, :]`)."""
        if type(value) is cst.Subscript and type(value.value) is cst.Name and value.value.value in self.bindings \
                and not self._element_access(value):
            return value.value
        return value

    def _element_access(self, node: cst.Subscript) -> bool:
        if not isinstance(node.value, cst.Name):
            return False
        b = self.bindings.get(node.value.value)
        if b is None or b.is_group or b.buffer not in self.s.tracked:
            return False
        return len(node.slice) > 1 and all(isinstance(e.slice, cst.Index) for e in node.slice)

    def _store(self, target, role: str) -> None:
        if type(target) is cst.Subscript and self._element_access(target):
            self._record(target.value, role, "S", target, "setval")

    def _record(self, name_node, role, pipe, node, op) -> None:
        b = self.bindings.get(name_node.value)
        if b is None or b.buffer not in self.s.tracked:
            return
        self._append(Access(self.stage_index, b.buffer, role, pipe, node, op, self.conditional))

    def _block_op(self, op: str, node: cst.Call) -> None:
        if op in DESCRIPTOR_ONLY_OPS:
            return
        positional = [self._operand(a.value) for a in node.args if a.keyword is None and not a.star]
        by_keyword = op_keyword_roles(op)
        keyed = [(self._operand(a.value), by_keyword[a.keyword.value]) for a in node.args
                 if a.keyword is not None and a.keyword.value in by_keyword]
        touched = [p for p in positional + [v for v, _ in keyed] if isinstance(p, cst.Name) and p.value in self.bindings
                   and self.bindings[p.value].buffer in self.s.tracked]
        if not touched:
            return
        mode = None
        for a in node.args:
            if a.keyword is not None and a.keyword.value == "mode" and isinstance(a.value, cst.Attribute):
                mode = a.value.attr.value
        roles = op_roles(op, mode)
        if roles is None:
            buffers = ", ".join(sorted({self.bindings[t.value].buffer for t in touched}))
            self.s_finding(codes.OP_ROLES_UNKNOWN, node, op=op, buffers=buffers)
            return
        pipe = self._pipe(op, positional, node)
        if pipe is None:
            return
        merged: dict[str, str] = {}
        tiled = [(value, roles[i] if i < len(roles) else None) for i, value in enumerate(positional)] + keyed
        for value, role in tiled:
            if role is None or not isinstance(value, cst.Name):
                continue
            b = self.bindings.get(value.value)
            if b is None or b.buffer not in self.s.tracked:
                continue
            if b.is_group and self._given_whole(node, value):
                # `pl.relu(y, x_db)`: the group where the op takes a tile (probe ux1: accepted, and
                # the emulator refused the serial kernel)
                self.s_finding(codes.GROUP_AS_TILE, value, op=op, group=value.value)
                continue
            prev = merged.get(b.buffer)
            merged[b.buffer] = role if prev is None or prev == role else "RW"
        for buffer, role in merged.items():
            self._append(Access(self.stage_index, buffer, role, pipe, node, op, self.conditional))

    @staticmethod
    def _given_whole(node: cst.Call, name: cst.Name) -> bool:
        """Is `name` an argument of `node` as it is (not the tile of a pick or view of it that
        `_operand` named by it)?"""
        return any(a.value is name for a in node.args)

    def _pipe(self, op: str, positional, node) -> str | None:
        if op in ("move", "insert"):
            dst = self.s.memory_of(positional[0], self.bindings) if positional else None
            src = self.s.memory_of(positional[1], self.bindings) if len(positional) > 1 else None
            if dst is None or src is None:
                side = "destination" if dst is None else "source"
                self.s_finding(codes.UNKNOWN_PIPE, node, op=op, side=side)
                return None
            return move_pipe(src, dst)
        if op in ("store", "store_tile"):
            src = self.s.memory_of(positional[1], self.bindings) if len(positional) > 1 else None
            if src is None:
                self.s_finding(codes.UNKNOWN_PIPE, node, op=op, side="source")
                return None
            return store_pipe(src)
        if op == "dump_data":  # an Acc tile goes out through the cube's fixpipe; a tensor, a Vec tile on V
            return dump_pipe(self.s.memory_of(positional[0], self.bindings) if positional else None)
        pipe = op_pipe(op)
        if pipe is None:
            self.s_finding(codes.UNKNOWN_PIPE, node, op=op, side="registry")
        return pipe

    def _helper_call(self, name: str, node: cst.Call, helper: cst.FunctionDef | None = None) -> None:
        helper = helper if helper is not None else self.s.file.helpers[name]
        params = [p.name.value for p in (*helper.params.posonly_params, *helper.params.params)]
        self._starred_buffers(name, node, helper, params)
        bound = {}
        functions = {}
        named = [(p, a) for p, a in zip(params, [a for a in node.args if a.keyword is None and not a.star],
                                        strict=False)]
        named += [(a.keyword.value, a) for a in node.args if a.keyword is not None and a.keyword.value in params]
        for p, a in named:
            if isinstance(a.value, cst.Name) and a.value.value in self.bindings:
                bound[p] = self.bindings[a.value.value]
            elif isinstance(a.value, cst.Name) and a.value.value in self.functions:
                functions[p] = self.functions[a.value.value]  # handed on: `post` passed to a helper
        self.s._scan_function(helper, bound, {}, self.stage_index, self.result, self.stack + (name,), node,
                              self.depth, functions)

    def _unknown_callee(self, name: str, node: cst.Call) -> None:
        """A call of a name that is no function of the file the scan knows (`f = scale_vf; f(res, x)`, a
        function handed in a container), given tiles of synchronised buffers: what it does with them
        is not known (probe h132: the read went unseen, and PTO033 said the group had no consumer).
        Builtins (`print(x)`) touch no tile."""
        if self.s.file.meaning(name) is not None or name in _BUILTIN_NAMES and name not in self.bindings:
            return  # a module name the file rebinds is PTO070's to name
        touched = {self.bindings[a.value.value].buffer for a in node.args if isinstance(a.value, cst.Name)
                   and a.value.value in self.bindings and self.bindings[a.value.value].buffer in self.s.tracked}
        if touched:
            self.s_finding(codes.OP_ROLES_UNKNOWN, node, op=name, buffers=", ".join(sorted(touched)),
                           _message="unknown_callee", _hint="unknown_callee")

    def _starred_buffers(self, name: str, node: cst.Call, helper: cst.FunctionDef, params: list[str]) -> None:
        """Tiles of synchronised buffers handed to a helper's `*args` or `**kwargs` (probe h122:
        their accesses went unseen, and the buffer was said to have no consumer): refused as an op
        whose roles are not known, naming the helper and the parameter."""
        into = starred_arguments(node, helper.params, params)
        hidden = {(self.bindings[a.value.value].buffer, via) for a, via in into if isinstance(a.value, cst.Name)
                  and a.value.value in self.bindings and self.bindings[a.value.value].buffer in self.s.tracked}
        if hidden:
            buffers = ", ".join(sorted(b for b, _ in hidden))
            self.s_finding(codes.OP_ROLES_UNKNOWN, node, op=name, buffers=buffers, via=sorted(v for _, v in hidden)[0],
                           _message="starred", _hint="starred")

    def _handed_call(self, handed: tuple[str, ...], node: cst.Call) -> None:
        """A call of a parameter bound to the file's functions `handed`: each scanned as called here,
        under a test where the caller chooses among several."""
        self.guarded += len(handed) > 1
        try:
            for helper in dict.fromkeys(handed):
                if helper not in self.stack:
                    self._helper_call(helper, node)
        finally:
            self.guarded -= len(handed) > 1

    def _vf_call(self, name: str, node: cst.Call) -> None:
        roles = vf_param_roles(self.s.file, name, self, set())
        for i, a in parameter_arguments(self.s.file.vf_body(name).params, node.args):
            role = roles.get(i)
            if role and isinstance(a.value, cst.Name):
                self._record(a.value, role, "V", node, name)


def starred_arguments(call: cst.Call, params: cst.Parameters, named: list[str]) -> list[tuple[cst.Arg, str]]:
    """The arguments of `call` that a function of parameters `params` (its named ones `named`)
    takes through its `*args` or `**kwargs`, each with that parameter as written (`*dbs`)."""
    star, kwargs = params.star_arg, params.star_kwarg
    positional = [a for a in call.args if a.keyword is None and not a.star]
    into = [(a, f"*{star.name.value}") for a in positional[len(named):] if isinstance(star, cst.Param)]
    into += [(a, f"**{kwargs.name.value}") for a in call.args if a.keyword is not None
             and a.keyword.value not in named and isinstance(kwargs, cst.Param)]
    return into


#: the names Python's builtins module binds
_BUILTIN_NAMES = frozenset(dir(builtins))


def parameter_arguments(params, args, positional_only: int = 0) -> list[tuple[int, cst.Arg]]:
    """(parameter index, argument) of a call: positional arguments by position, keyword
    arguments by their parameter's name, but the first `positional_only` parameters, which a
    keyword does not bind (starred ones bind nothing the scan can follow)."""
    out = list(enumerate(a for a in args if a.keyword is None and not a.star))
    out += [(params.index(a.keyword.value), a) for a in args
            if a.keyword is not None and a.keyword.value in params[positional_only:]]
    return out


#: `_OpWalker.depth` past a `return` or `raise` under a test
_PAST_EXIT = 1 << 30


def _key(access: Access) -> tuple:
    return access.buffer, access.role, access.pipe


#: the part of a branching construct that runs whenever the construct does
_SURE_PART: dict[type, str] = {cst.If: "test", cst.While: "test", cst.For: "iter", cst.IfExp: "test",
                               cst.BooleanOperation: "left"}

_HANDLERS = {
    cst.FunctionDef: _OpWalker.visit_FunctionDef,
    cst.Assign: _OpWalker.visit_Assign,
    cst.AugAssign: _OpWalker.visit_AugAssign,
    cst.Return: _OpWalker.visit_Return,
    cst.Raise: _OpWalker.visit_exit,
    cst.If: _OpWalker.visit_If,
    cst.While: _OpWalker.visit_branching,
    cst.For: _OpWalker.visit_branching,
    cst.IfExp: _OpWalker.visit_branching,
    cst.BooleanOperation: _OpWalker.visit_branching,
    cst.Try: _OpWalker.visit_maybe,
    cst.TryStar: _OpWalker.visit_maybe,
    cst.Match: _OpWalker.visit_maybe,
    cst.ListComp: _OpWalker.visit_maybe,
    cst.SetComp: _OpWalker.visit_maybe,
    cst.DictComp: _OpWalker.visit_maybe,
    cst.GeneratorExp: _OpWalker.visit_maybe,
    cst.Subscript: _OpWalker.visit_Subscript,
    cst.Call: _OpWalker.visit_Call,
}


def vf_param_roles(file, name: str, walker: _OpWalker, active: set) -> dict[int, str]:
    """Role per positional parameter of a vector function, from the `vf.*` ops in its body.

    Computed once per file and function; the problems found on the way (an op the table does
    not know) are reported again at every call, where the reporter folds repeats."""
    cache = file.caches.vf_param_roles
    key = (name, frozenset(active))
    if key not in cache:
        findings: list[Finding] = []
        cache[key] = (_vf_param_roles(file, name, findings, active), findings)
    roles, findings = cache[key]
    walker.result.findings.extend(findings)
    return roles


def _vf_param_roles(file, name: str, findings: list[Finding], active: set) -> dict[int, str]:
    def unknown(function: str, call: vfbody.OpCall) -> None:
        assert call.node is not None, "a vector function a finding points into is read by libcst"
        findings.append(Finding(codes.OP_ROLES_UNKNOWN, call.node, {"op": f"vf.{call.op}", "buffers": function}))

    return vfbody.param_roles(file, name, unknown, frozenset(active))
