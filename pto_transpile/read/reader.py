"""Read a kernel file into the model, without importing or executing it.

Tolerant by design: it records what the file contains, including shapes the rules will
reject (a stage outside a section, two stages in one section, ...), so that every problem
can be reported in one run.
"""

from __future__ import annotations

import ast
from collections import ChainMap, Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import libcst as cst

from pto_transpile import preload
from pto_transpile.diagnostics import Finding
from pto_transpile.read import compiletime, modulenames, partial
from pto_transpile.read.classnames import plain_members
from pto_transpile.read.consteval import ConstEvaluator, NotConstant, PlSymbol
from pto_transpile.read.declarations import made_type, parse_buffer
from pto_transpile.read.kinds import annotation_kind, infer, slot_access
from pto_transpile.read.meaning import Class, Meaning, Value
from pto_transpile.read.model import (
    CUBE,
    SCALAR,
    TUPLE,
    UNKNOWN,
    VECTOR,
    Kernel,
    OuterPick,
    PipelineLoop,
    PreloadSpec,
    StageCall,
    StageFunc,
    StructDecl,
)
from pto_transpile.read.partial import Verbatim
from pto_transpile.read.plnames import PlNames
from pto_transpile.read.source import SourceFile
from pto_transpile.read.unpacking import unpacked
from pto_transpile.read.vfbody import VfBody, from_cst
from pto_transpile.read.walk import (
    BINDERS,
    NodeIndex,
    lines_outside,
    names_stored,
    parameters,
    statements_of,
)


@dataclass
class FileCaches:
    """What is worked out once per file and kept with its model for every later question."""

    #: kernel `def` -> its tiling-key instances; filled by `FileModel.instances`
    instances: dict[cst.FunctionDef, compiletime.Instances] = field(default_factory=dict)
    #: vector function name -> what the role analyses read of its body; filled by `FileModel.vf_body`
    vf_bodies: dict[str, VfBody] = field(default_factory=dict)
    #: function `def` -> its nodes under a branch no kernel instance takes; filled by `deadcode.dead_nodes`
    dead_nodes: dict[cst.FunctionDef, set[cst.CSTNode]] = field(default_factory=dict)
    #: (vector function name, the functions being analysed around it) -> (role per positional
    #: parameter, the findings on the way); filled by `sync.scan.vf_param_roles`
    vf_param_roles: dict[tuple[str, frozenset], tuple[dict[int, str], list[Finding]]] = field(default_factory=dict)
    #: class name -> whether code of the file uses the class other than by calling it, annotating
    #: with it or aliasing it; filled by `soundness.tilingdata`
    classes_touched: dict[str, bool] = field(default_factory=dict)
    #: class `def` -> whether nothing can replace its members (`classnames.plain_members`);
    #: filled by `FileModel.fixed_members`
    plain_classes: dict[cst.ClassDef, bool] = field(default_factory=dict)
    #: kernel `def` (the file's, or a generated one) -> the cores one block of it has; filled by
    #: `soundness.interp.kernel_cores` (each run of the proof asks)
    kernel_cores: dict[cst.FunctionDef, tuple] = field(default_factory=dict)
    #: kernel `def` pipelined by hand -> the problems of its own syncs; filled by
    #: `soundness.check.check_hand_written`, which PTO068 and PTO077 both ask
    hand_written: dict[cst.FunctionDef, list] = field(default_factory=dict)
    #: what every soundness interpreter run on this file shares (a `soundness.interpbase.FileMemo`);
    #: set by the file's first `Interpreter`
    soundness: Any = None


@dataclass
class FileModel:
    """The file as the analysis sees it. Module-level names mean what they are bound to when
    the module has run (`names`, `meaning()`); `stages`, `helpers` and `vector_functions`
    are keyed by the name a call uses, so a name rebound to another function (`vst =
    vst_next`) finds the `def` it is bound to."""

    source: SourceFile
    pl: PlNames
    names: modulenames.ModuleNames
    evaluator: ConstEvaluator
    stages: dict[str, StageFunc] = field(default_factory=dict)
    helpers: dict[str, cst.FunctionDef] = field(default_factory=dict)  #: plain module functions
    vector_functions: dict[str, cst.FunctionDef | Verbatim] = field(default_factory=dict)
    kernels: list[Kernel] = field(default_factory=list)
    all_jit_kernels: list[cst.FunctionDef] = field(default_factory=list)
    _index: NodeIndex | None = field(default=None, repr=False)
    caches: FileCaches = field(default_factory=FileCaches, init=False, repr=False, compare=False)

    def meaning(self, name: str) -> Meaning | None:
        """What module-level `name` means once the module has run: `Value`, `Function`,
        `Class` or `Unknown` (`meaning.py`); None when the file binds it nowhere."""
        return self.names.meaning(name)

    @cached_property
    def constants(self) -> dict[str, Any]:
        """Module-level names bound to a compile-time value -> that value."""
        return self.names.values

    @cached_property
    def functions_by_name(self) -> dict[str, cst.FunctionDef | Verbatim]:
        """Every module-level name bound to a function of this file -> its `def` (the
        `def` it is bound to at the end of the module, through aliases)."""
        return self.names.functions

    @cached_property
    def made_tile_types(self) -> dict[str, cst.Call]:
        """Module names bound to what a tile-type factory of the file makes (`HALF_VEC =
        half_vec()`) -> the `pl.TileType(...)` call it returns (`declarations.made_type`),
        resolved once: the reader and every run of the check ask."""
        return {n: made for n, c in self.names.made_types.items() if (made := made_type(self, c)) is not None}

    @cached_property
    def jits(self) -> tuple[compiletime.JitNames, ...]:
        """What every `@pl.jit(...)` read binds: of the kernels, and of kernels defined in the
        functions read."""
        jits = [k.jit for k in self.kernels if k.jit is not None]
        kernel_nodes = {k.node for k in self.kernels}
        for fn in self.functions_by_name.values():
            if isinstance(fn, cst.FunctionDef):
                for dec in self.find(fn, cst.Decorator):
                    call = compiletime.jit_call(dec, self.pl)
                    if call is not None and fn not in kernel_nodes:
                        jits.append(compiletime.read_jit(self, call, fn))
        return tuple(jits)

    @cached_property
    def jit_names(self) -> frozenset[str]:
        """Names the JIT binds in every function of the file: the tiling-key fields and
        `datatype=` names of every `@pl.jit(...)` read."""
        return frozenset(n for jit in self.jits for n in jit.names)

    def instances(self, kernel: Kernel) -> compiletime.Instances:
        """The tiling-key instances the JIT may compile `kernel` for: `.keys` is a tuple of
        field -> value dicts (`({},)` without a tiling key), or empty with `.problem` saying
        why they cannot be listed (too many, values not constant, ...)."""
        cache = self.caches.instances
        if kernel.node not in cache:
            jit = kernel.jit if kernel.jit is not None else compiletime.JitNames()
            cache[kernel.node] = compiletime.instances(self, jit)
        return cache[kernel.node]

    @property
    def index(self) -> NodeIndex:
        """One walk of each top-level statement, shared by everything that looks for nodes."""
        if self._index is None:
            self._index = NodeIndex(self.source.module.body)
        return self._index

    def find(self, node: cst.CSTNode, kind, skip_functions: bool = False) -> list:
        """`walk.find` (`kind` may be a tuple of types): the reader, the scan, the rules and
        the soundness check look into the same functions many times."""
        return self.index.find(node, kind, skip_functions)

    def fixed_members(self, node: cst.ClassDef) -> bool:
        """`classnames.plain_members` of a class of the file, once per class: the access scan and
        the soundness check both ask it (the text is tokenized to answer)."""
        cache = self.caches.plain_classes
        if node not in cache:
            tree = self.source.tree_of(node)
            cache[node] = isinstance(tree, ast.ClassDef) and plain_members(tree, self.source.text)
        return cache[node]

    def vf_body(self, name: str) -> VfBody:
        """What the role analyses read of vector function `name` (from its text or its tree)."""
        cache = self.caches.vf_bodies
        if name not in cache:
            fn = self.vector_functions[name]
            body = fn.vf if isinstance(fn, Verbatim) else from_cst(fn, self.find(fn.body, (cst.Assign, cst.Call)))
            assert body is not None, "a vector function kept as text is read with its body (`_read`)"
            cache[name] = body
        return cache[name]


def read(source: SourceFile) -> FileModel:
    try:
        return _read(source)
    except partial.ReadWhole:
        source.read_whole()
        return _read(source)


def _read(source: SourceFile) -> FileModel:
    module = source.module
    pl = PlNames.from_module(module)
    index = NodeIndex(module.body)
    names = modulenames.evaluate(module, pl.path, source.text, source.python_statements())
    model = FileModel(source, pl, names, ConstEvaluator(names.meanings, pl.path), _index=index)
    for name, fn in names.functions.items():
        if isinstance(fn, Verbatim):
            if fn.vf is not None:
                _vector_function_text(model, name, fn)
            elif name != fn.name:
                raise partial.ReadWhole(f"`{name}` names `{fn.name}`, which was kept as text")
            continue
        decorators = [pl.path(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
                      for d in fn.decorators]
        # `@pl.pipeline.stage()` calls the decorator with no function: no stage (PTO076 names it)
        if any(pl.path(d.decorator) == ("pipeline", "stage") for d in fn.decorators):
            model.stages[name] = StageFunc(fn.name.value, fn, [p.name.value for p in parameters(fn)])
        elif ("vector_function",) in decorators:
            model.vector_functions[name] = fn
        elif ("jit",) not in decorators:
            model.helpers[name] = fn
    for stmt in module.body:
        if type(stmt) is cst.FunctionDef and any(
                pl.path(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) == ("jit",)
                for d in stmt.decorators):
            model.all_jit_kernels.append(stmt)
    for fn in model.all_jit_kernels:
        model.kernels.append(KernelReader(model, fn).read())
    return model


def _vector_function_text(model: FileModel, name: str, stmt: Verbatim) -> None:
    """A vector function kept as text (read with Python's parser): only when its decorators
    make it one the way a parsed one would be classified; otherwise the file is read whole."""
    decorators = [model.pl.resolve(d) for d in stmt.decorators]
    if ("vector_function",) not in decorators or ("pipeline", "stage") in decorators:
        raise partial.ReadWhole(f"`{stmt.name}` is not a vector function of pl")
    model.vector_functions[name] = stmt


def _stored_names(file: FileModel, fn: cst.FunctionDef) -> Counter[str]:
    """Every name the kernel body binds (targets, loop variables, `as` names), with the
    number of places binding it."""
    return Counter(n.value for n in names_stored(fn.body, file.find(fn.body, BINDERS)))


def section_of(with_node: cst.With, pl: PlNames) -> str | None:
    """"cube"/"vector" for `with pl.section_cube():` / `with pl.section_vector():`, else None."""
    return section_of_item(with_node.items[0], pl) if with_node.items else None


def section_of_item(item: cst.WithItem, pl: PlNames) -> str | None:
    """"cube"/"vector" when a `with` item is a `pl.section_cube()`/`pl.section_vector()` call."""
    call = item.item
    return SECTION_PATHS.get(pl.path(call.func)) if isinstance(call, cst.Call) else None


SECTION_PATHS: dict[tuple[str, ...] | None, str] = {("section_cube",): CUBE, ("section_vector",): VECTOR}


def stage_call_of(stmt: cst.BaseSmallStatement, stages) -> cst.Call | None:
    """The stage call `stmt` is: a statement of its own, or one whose value is assigned to a
    name (`g = st(...)`, which PTO019 reports: a stage returns nothing), so that the stages
    around it are read as they stand rather than as broken by a statement between them."""
    value = stmt.value if type(stmt) is cst.Expr or type(stmt) is cst.Assign and len(stmt.targets) == 1 else None
    if type(value) is cst.Call:
        func = value.func
        if isinstance(func, cst.Name) and func.value in stages:
            return value
    return None


class KernelReader:
    """Walks one kernel body once, recording bindings, buffers, structs and pipeline loops."""

    def __init__(self, file: FileModel, fn: cst.FunctionDef):
        self.file = file
        self.pl = file.pl
        self.fn = fn
        self.bindings = _stored_names(file, fn)
        self.stored = frozenset(self.bindings)
        self._loop_depth = 0  #: loops around the statement being read
        self._loop_bound: set[str] = set()  #: names bound inside a loop
        stars = [p.name.value for p in (fn.params.star_arg, fn.params.star_kwarg) if isinstance(p, cst.Param)]
        bound = {p.name.value for p in parameters(fn)} | set(stars) | self.stored
        self.decorator, self.pipeline_kw = self._jit_decorator()
        self.jit = compiletime.read_jit(file, compiletime.jit_call(self.decorator, file.pl), fn)
        # A name the kernel binds is never a module constant inside it, and neither is a name
        # the JIT binds (a tiling-key field is a constant of each instance, not of the file).
        self.evaluator = ConstEvaluator(file.names.meanings, file.pl.path, hidden=bound | self.jit.names)
        self.kernel_bound = bound
        #: names of tile types: the module's (`NAME = pl.TileType(...)`) unless the kernel binds the
        #: name itself, then the kernel's own (`_declaration`)
        self.tile_types: dict[str, cst.Call] = {n: c for n, c in file.names.tile_types.items() if n not in bound}
        # `HALF_VEC = half_vec()`, the call made at module level
        self.tile_types.update((n, made) for n, made in file.made_tile_types.items() if n not in bound)

    # entry ------------------------------------------------------------------------------
    def read(self) -> Kernel:
        kernel = Kernel(
            name=self.fn.name.value,
            node=self.fn,
            jit_decorator=self.decorator,
            pipeline_keyword=self.pipeline_kw,
            preload=self._preload(self.pipeline_kw),
            constants=self.evaluator,
            stored=self.stored,
            jit=self.jit,
        )
        classes = {n for n, m in self.file.names.meanings.items() if isinstance(m, Class)}
        for param in parameters(self.fn):
            kind = annotation_kind(param.annotation, self.pl.path)
            ann = param.annotation.annotation if param.annotation is not None else None
            if isinstance(ann, cst.Name) and ann.value in classes:
                kind = "const"  # the tiling-data dataclass: read-only for the whole launch
            kernel.params[param.name.value] = kind
            kernel.kinds[param.name.value] = kind
            kernel.bound_plain.add(param.name.value)
        self.kernel = kernel
        kernel.statements = self.pruned(statements_of(self.fn.body))
        self._walk(kernel.statements, section=None, ancestors=[])
        for loop in kernel.loops:
            self._classify(loop)
            self._loop_bounds(loop)
            loop.outer_picks = self._outer_picks(loop)
        return kernel

    def _jit_decorator(self) -> tuple[cst.Decorator, cst.Arg | None]:
        for dec in self.fn.decorators:
            node = dec.decorator
            if self.pl.path(node.func if isinstance(node, cst.Call) else node) == ("jit",):
                if isinstance(node, cst.Call):
                    for arg in node.args:
                        if arg.keyword is not None and arg.keyword.value == "pipeline":
                            return dec, arg
                return dec, None
        raise AssertionError("kernel without @pl.jit")

    def _preload(self, pipeline_kw: cst.Arg | None) -> PreloadSpec:
        if pipeline_kw is None:
            return PreloadSpec(node=None, values=(2,))
        value = pipeline_kw.value
        if isinstance(value, cst.Call) and self.pl.path(value.func) == ("pipeline", "PipelineConfig"):
            spec = PreloadSpec(node=None, values=(2,))
            for arg in value.args:
                if arg.star == "**":  # `PipelineConfig(**PIPE)`: what the dict gives
                    given = self.evaluator.try_eval(arg.value, None)
                    if not isinstance(given, dict):
                        return PreloadSpec(node=arg.value, problem="the `**` arguments of `PipelineConfig` are not "
                                                                   "compile-time constants")
                    if given.get("sync_only") is True:
                        return PreloadSpec(node=arg.value, values=(0,), sync_only=True)
                    if "preload" in given:
                        spec = self._preload_value(given["preload"], arg.value)
                elif (arg.keyword is not None and arg.keyword.value == "preload"
                        or (arg.keyword is None and not arg.star and arg is value.args[0])):
                    spec = self._fold_preload(arg.value)
            return self._sync_only(value, spec)
        return PreloadSpec(node=value, problem="`pipeline=` is not a `pl.pipeline.PipelineConfig(...)` call")

    def _sync_only(self, config: cst.Call, spec: PreloadSpec) -> PreloadSpec:
        """`PipelineConfig(..., sync_only=True)` keeps every loop serial and only inserts the
        syncs: preload 0, whatever `preload` says."""
        arg = next((a for a in config.args if a.keyword is not None and a.keyword.value == "sync_only"), None)
        if arg is None:
            return spec
        try:
            value = self.evaluator.eval(arg.value)
        except NotConstant as exc:
            return PreloadSpec(node=arg.value, problem=f"sync_only is not a compile-time constant ({exc.reason})")
        if not isinstance(value, bool):
            return PreloadSpec(node=arg.value, problem=f"sync_only must be True or False, got {value!r}")
        return PreloadSpec(node=spec.node, values=(0,), sync_only=True) if value else spec

    def _fold_preload(self, node: cst.BaseExpression) -> PreloadSpec:
        try:
            value = self.evaluator.eval(node)
        except NotConstant as exc:
            return PreloadSpec(node=node, problem=f"preload is not a compile-time constant ({exc.reason})")
        return self._preload_value(value, node)

    @staticmethod
    def _preload_value(value: Any, node: cst.BaseExpression) -> PreloadSpec:
        wrong = preload.problem(value)
        if wrong is not None:
            return PreloadSpec(node=node, problem=wrong)
        if isinstance(value, (list, tuple)):
            return PreloadSpec(node=node, values=tuple(value), is_sequence=True)
        return PreloadSpec(node=node, values=(value,))

    def _around_whole_loops(self, stmts) -> bool:
        """Is every stage call in `stmts` in a `for` loop among them (not at their own level, nor in
        a `with` or `if` around a stage call of its own)?"""
        for stmt in stmts:
            if isinstance(stmt, cst.For):
                continue
            if isinstance(stmt, cst.If):
                orelse = stmt.orelse
                rest = [] if orelse is None else [orelse] if isinstance(orelse, cst.If) else statements_of(orelse.body)
                if not (self._around_whole_loops(statements_of(stmt.body)) and self._around_whole_loops(rest)):
                    return False
            elif isinstance(stmt, (cst.With, cst.While, cst.Try)):
                if self._has_stage_call(stmt) and not self._around_whole_loops(statements_of(stmt.body)):
                    return False
            elif self._has_stage_call(stmt):
                return False
        return True

    def _has_stage_call(self, node: cst.CSTNode) -> bool:
        stages = self.file.stages
        return any(isinstance(c.func, cst.Name) and c.func.value in stages for c in self.file.find(node, cst.Call))

    # constant-branch pruning -----------------------------------------------------------
    def pruned(self, stmts: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        """Replace each compile-time-constant `if` that holds a stage call by its taken branch."""
        out: list[cst.BaseStatement] = []
        for stmt in stmts:
            if type(stmt) is cst.If and self._has_stage_call(stmt):
                taken = self._constant_branch(stmt)
                if taken is not None:
                    out.extend(self.pruned(taken))
                    continue
            out.append(stmt)
        return out

    def instance_constant(self, test: cst.BaseExpression) -> bool:
        """Whether `test` folds to a constant in every tiling-key instance of the kernel (the
        JIT folds such a branch per instance; the generated file keeps it as written)."""
        found = self.file.instances(self.kernel)
        if not found.known or found.keys == ({},):
            return False
        for key in found.keys:
            values: dict[str, Meaning] = {name: Value(v) for name, v in key.items()}
            ev = ConstEvaluator(ChainMap(values, self.file.names.meanings), self.pl.path, self.kernel_bound)
            try:
                if isinstance(ev.eval(test), PlSymbol):
                    return False
            except NotConstant:
                return False
        return True

    def _constant_branch(self, node: cst.If) -> list[cst.BaseStatement] | None:
        """The statements of the taken branch, or None when the test is not constant."""
        try:
            value = self.evaluator.eval(node.test)
        except NotConstant:
            return None
        if isinstance(value, PlSymbol):
            return None
        if value:
            return statements_of(node.body)
        if node.orelse is None:
            return []
        if isinstance(node.orelse, cst.If):
            return [node.orelse]
        return statements_of(node.orelse.body)

    # the walk ---------------------------------------------------------------------------
    def _walk(self, stmts, section: str | None, ancestors: list, in_loop: PipelineLoop | None = None) -> None:
        for stmt in stmts:
            if isinstance(stmt, cst.BaseSmallStatement):  # of a one-line suite (`if t: x = 1`): a line of its own
                stmt = cst.SimpleStatementLine(body=[stmt])
            self._walruses(stmt, section)
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._simple(small, stmt, section)
                    call = stage_call_of(small, self.file.stages)
                    if call is None:
                        continue
                    if in_loop is None:
                        self.kernel.stray_stage_calls.append((cst.ensure_type(call.func, cst.Name).value, call))
                    else:
                        self.kernel.loop_stage_calls.append((call, in_loop))
            elif isinstance(stmt, cst.For):
                self._bind_target(stmt.target, section, SCALAR)
                body = self.pruned(statements_of(stmt.body))
                loop = None
                if self._holds_stages(body):
                    outer = next((a for a in ancestors if isinstance(a, cst.For)), stmt)
                    loop = PipelineLoop(len(self.kernel.loops), stmt, outer, list(ancestors), body)
                    self.kernel.loops.append(loop)
                self._loop_depth += 1
                self._walk(body, section, ancestors + [stmt], loop)
                self._loop_depth -= 1
            elif isinstance(stmt, cst.With):
                kind = section_of(stmt, self.pl) or section
                for item in stmt.items:
                    if item.asname is not None:
                        self._bind_target(item.asname.name, section, "unknown")
                self._walk(self.pruned(statements_of(stmt.body)), kind, ancestors + [stmt], in_loop)
            elif isinstance(stmt, cst.If):
                if self._has_stage_call(stmt) and self._constant_branch(stmt) is None:
                    per_instance = self.instance_constant(stmt.test)
                    # around whole loops, outside any pipeline loop (`if flag > 0:` around an optional
                    # pass): the test decides whether every stage of those loops runs or none, and the
                    # soundness check follows it as any test (probe h122)
                    if in_loop is not None or not per_instance and not self._around_whole_loops([stmt]):
                        self.kernel.dynamic_stage_ifs.append((stmt, section or ""))
                        if per_instance:
                            self.kernel.key_stage_ifs.add(stmt)
                self._walk(self.pruned(statements_of(stmt.body)), section, ancestors + [stmt], in_loop)
                orelse = stmt.orelse
                while orelse is not None:
                    if isinstance(orelse, cst.If):
                        self._walk(self.pruned(statements_of(orelse.body)), section, ancestors + [stmt], in_loop)
                        orelse = orelse.orelse
                    else:
                        self._walk(self.pruned(statements_of(orelse.body)), section, ancestors + [stmt], in_loop)
                        orelse = None
            elif isinstance(stmt, (cst.While, cst.Try)):
                looping = isinstance(stmt, cst.While)
                self._loop_depth += looping
                self._walk(statements_of(stmt.body), section, ancestors + [stmt], in_loop)
                self._loop_depth -= looping

    def _holds_stages(self, body) -> bool:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine) and any(stage_call_of(s, self.file.stages) for s in stmt.body):
                return True
            if isinstance(stmt, cst.With):
                for inner in stmt.body.body:
                    if isinstance(inner, cst.SimpleStatementLine) and any(
                            stage_call_of(s, self.file.stages) for s in inner.body):
                        return True
        return False

    def _walruses(self, stmt: cst.CSTNode, section: str | None) -> None:
        """`(gain := ...)` in a line or in a compound statement's header (its test, its `in`, its
        items) binds `gain` in the kernel, of the kind of its value (probe h100: a value bound so
        alone was not carried to its delayed stage)."""
        heads: list = [stmt] if isinstance(stmt, cst.SimpleStatementLine) else \
            [getattr(stmt, part, None) for part in ("test", "iter", "items")]
        orelse = getattr(stmt, "orelse", None)
        while isinstance(orelse, cst.If):  # `elif` tests
            heads.append(orelse.test)
            orelse = orelse.orelse
        for head in heads:
            for part in head if isinstance(head, (list, tuple)) else (head,):
                if part is None:
                    continue
                for named in self.file.find(part, cst.NamedExpr, skip_functions=True):
                    kind = infer(named.value, self.kernel.kinds, self.kernel.buffers, self.pl.path)
                    self._bind_target(named.target, section, kind)

    # bindings ---------------------------------------------------------------------------
    def _bind(self, name: str, section: str | None, kind: str) -> None:
        k = self.kernel
        prev = k.kinds.get(name)
        if self._loop_depth:
            self._loop_bound.add(name)
        if prev is None or (prev == "const" and kind != "const"):
            k.kinds[name] = kind  # first binding wins, but a rebinding makes a constant live
        elif prev == "const" and name in self._loop_bound:
            # bound to constants twice, once in a loop (`first = True` before the loop, `first =
            # False` in it): which one it holds depends on the iteration, a live value. Two
            # bindings outside loops (`if IS_TND == 1: blk = 64` / `else: blk = 128`) stay a
            # compile-time constant, which a stage may use as a shape.
            k.kinds[name] = SCALAR
        if section is None:
            k.bound_plain.add(name)
        else:
            k.var_sections.setdefault(name, set()).add(section)

    def _bind_target(self, target: cst.BaseExpression, section: str | None, kind: str,
                     value: cst.BaseExpression | None = None) -> None:
        if isinstance(target, cst.Name):
            self._bind(target.value, section, kind)
        elif isinstance(target, (cst.Tuple, cst.List)):
            # `base, rem = n // b, n % b` (or `divmod(n, b)`): each name the kind of its own value;
            # else unknown
            values = None if value is None else unpacked(target, value, lambda name: self.file.meaning(name) is None)
            returned = None if values is not None or value is None else self._returned_kinds(value,
                                                                                            len(target.elements))
            for i, el in enumerate(target.elements):
                kind = returned[i] if returned is not None else "unknown" if values is None else infer(
                    values[i], self.kernel.kinds, self.kernel.buffers, self.pl.path)
                self._bind_target(el.value, section, kind, None if values is None else values[i])

    def _simple(self, small: cst.BaseSmallStatement, line: cst.SimpleStatementLine, section: str | None) -> None:
        if isinstance(small, cst.Assign):
            value = small.value
            kind = infer(value, self.kernel.kinds, self.kernel.buffers, self.pl.path)
            if kind == UNKNOWN:
                kind = self._returned_kind(value)
            for target in small.targets:
                self._bind_target(target.target, section, kind, value)
            names = [t.target.value for t in small.targets if isinstance(t.target, cst.Name)]
            if not names:
                return
            if isinstance(value, cst.Call):
                self._declaration(names, value, line, section)
            elif (isinstance(value, cst.Name) and value.value in self.kernel.buffers
                  and all(self.bindings[n] == 1 for n in names)):
                for n in names:  # `xin = x_db`: one more name of the group, as `a = b = make_tile_group(...)`
                    self.kernel.buffers.setdefault(n, self.kernel.buffers[value.value])
            elif (isinstance(value, cst.Name) and value.value in self.kernel.structs
                  and all(self.bindings[n] == 1 for n in (*names, value.value))):
                for n in names:  # `st = cfg`: one more name of the struct (its fields travel as the struct's)
                    self.kernel.structs.setdefault(n, self.kernel.structs[value.value])
            picked = slot_access(value, self.kernel.buffers)
            if picked is not None:
                for n in names:
                    self.kernel.slot_vars.setdefault(n, picked[0])
            elif type(value) is cst.Name and value.value in self.kernel.slot_vars:
                for n in names:
                    self.kernel.slot_vars.setdefault(n, self.kernel.slot_vars[value.value])
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            kind = infer(small.value, self.kernel.kinds, self.kernel.buffers, self.pl.path)
            if kind == UNKNOWN:  # `half_row: int = offsets[sub_id]`: the annotation says what the value is
                kind = annotation_kind(small.annotation, self.pl.path)
            self._bind_target(small.target, section, kind)
        elif isinstance(small, cst.AugAssign):
            self._bind_target(small.target, section, SCALAR)

    def _returned_kind(self, value: cst.BaseExpression) -> str:
        """The kind a call of a plain function of the file returns: its return annotation
        (`-> int`, `-> pl.DT_INT32`), else the kind every `return` of its own body gives, its
        parameters of the kinds of the arguments this call gives them (`offset(ki, sub_id)` of
        `return ki * TILE + sub_id * HALF`: a scalar when `ki` and `sub_id` are; a parameter
        the call gives no argument by position or name, or a local name, is not known)."""
        scope = self._helper_scope(value)
        if scope is None:
            return UNKNOWN
        fn, params, returns = scope
        if fn.returns is not None:
            return annotation_kind(fn.returns, self.pl.path)
        kinds = {infer(r.value, params, {}, self.pl.path) if r.value is not None else UNKNOWN for r in returns}
        return SCALAR if kinds == {SCALAR} else UNKNOWN

    def _returned_kinds(self, value: cst.BaseExpression, count: int) -> list[str] | None:
        """The kind of each of the `count` values a call of a plain function of the file returns
        when every `return` of its body is a tuple of that many (`i, j = grid_pos(idx, n)` of
        `return idx // n, idx % n`: two scalars when `idx` and `n` are, as `_returned_kind` reads
        one value; probe h206), else None."""
        scope = self._helper_scope(value)
        if scope is None or scope[0].returns is not None or not scope[2]:
            return None
        _, params, returns = scope
        rows = []
        for r in returns:
            if not (isinstance(r.value, (cst.Tuple, cst.List)) and len(r.value.elements) == count
                    and not any(isinstance(e, cst.StarredElement) for e in r.value.elements)):
                return None
            rows.append([infer(e.value, params, {}, self.pl.path) for e in r.value.elements])
        return [SCALAR if all(row[i] == SCALAR for row in rows) else UNKNOWN for i in range(count)]

    def _helper_scope(self, value: cst.BaseExpression) -> tuple[cst.FunctionDef, dict[str, str], list] | None:
        """For a call of a plain function of the file: the function, the kinds of its names as
        this call gives them (its parameters of the kinds of the arguments, a name its body binds
        unknown) and its own `return` statements; None for any other value, or a call Python
        refuses."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return None
        fn = self.file.helpers.get(value.func.value)
        if not isinstance(fn, cst.FunctionDef) or value.func.value in self.kernel_bound:
            return None
        returns = self.file.find(fn.body, cst.Return, skip_functions=True)
        params = {p.name.value: UNKNOWN for p in (*fn.params.posonly_params, *fn.params.params,
                                                  *fn.params.kwonly_params)}
        positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        by_name = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)}  # not positional-only
        variadic = isinstance(fn.params.star_arg, cst.Param) or fn.params.star_kwarg is not None
        if not any(a.star for a in value.args) and not variadic:
            for i, arg in enumerate(value.args):
                if arg.keyword is not None and arg.keyword.value not in by_name:
                    return None  # a call Python refuses (`off(x=i)` of `def off(x, /)`, a keyword it lacks)
                name = arg.keyword.value if arg.keyword is not None else positional[i] if i < len(positional) else None
                if name is None:
                    return None  # more positional arguments than it takes
                params[name] = infer(arg.value, self.kernel.kinds, self.kernel.buffers, self.pl.path)
        # a name the body binds is a local, not known here (not a constant, as a free name is)
        params.update({n: UNKNOWN for n in _stored_names(self.file, fn)})
        return fn, params, returns

    def _made_type(self, call: cst.Call) -> cst.Call | None:
        """The tile type a plain function of the file returns for `call` (`declarations.made_type`),
        if the name it calls is bound to one where the kernel runs."""
        return made_type(self.file, call, self.kernel_bound)

    def _declaration(self, names: list[str], call: cst.Call, line, section) -> None:
        path = self.pl.path(call.func)
        leaf = path[-1] if path else (call.func.attr.value if isinstance(call.func, cst.Attribute) else
                                      call.func.value if isinstance(call.func, cst.Name) else None)
        if leaf == "make_tile_group":
            buf = parse_buffer(names[0], call, line, section, self.evaluator, self.tile_types,
                               self.file.constants, self.kernel_bound, self.file.source.code, self._made_type)
            for n in names:
                self.kernel.buffers.setdefault(n, buf)
        elif leaf in ("struct", "struct_array") and isinstance(call.func, cst.Attribute):
            fields = [a.keyword.value for a in call.args if a.keyword is not None]
            for n in names:
                self.kernel.structs.setdefault(n, []).append(StructDecl(n, line, call, fields, leaf == "struct_array"))
        elif path == ("make_tuple",):
            members = {a.keyword.value: a.value.value for a in call.args
                       if a.keyword is not None and isinstance(a.value, cst.Name)}
            for n in names:
                self.kernel.tuples[n] = members
                self.kernel.kinds[n] = TUPLE
        elif path == ("TileType",):
            for n in names:
                self.tile_types[n] = call

    # pipeline loops ---------------------------------------------------------------------
    def _classify(self, loop: PipelineLoop) -> None:
        """Split the loop body into prologue, stage chain, statements between, epilogue."""
        holders: list[int] = []
        for pos, stmt in enumerate(loop.body):
            calls = self._stage_calls_in(stmt)
            for section, line, call, siblings in calls:
                loop.stages.append(StageCall(call.func.value, section, stmt, line, call, len(loop.stages), siblings))
            if calls:
                holders.append(pos)
        if not holders:
            return
        first, last = holders[0], holders[-1]
        loop.prologue = loop.body[:first]
        loop.epilogue = loop.body[last + 1:]
        loop.between = [s for i, s in enumerate(loop.body[first:last + 1], first) if i not in holders]

    def _stage_calls_in(self, stmt) -> list:
        stages = self.file.stages
        if isinstance(stmt, cst.SimpleStatementLine):
            return [("", stmt, c, []) for c in (stage_call_of(s, stages) for s in stmt.body) if c is not None]
        if isinstance(stmt, cst.With):
            section = section_of(stmt, self.pl) or "with"
            body = self.pruned(statements_of(stmt.body))
            found = []
            for inner in body:
                if isinstance(inner, cst.SimpleStatementLine):
                    for small in inner.body:
                        c = stage_call_of(small, stages)
                        if c is not None:
                            found.append((inner, c))
            siblings = [s for s in body if all(s is not f[0] for f in found)]
            return [(section, line, c, siblings) for line, c in found]
        return []

    def _loop_bounds(self, loop: PipelineLoop) -> None:
        node = loop.node
        if isinstance(node.target, cst.Name):
            loop.var = node.target.value
        it = node.iter
        if isinstance(it, cst.Call):
            pos = [a.value for a in it.args if a.keyword is None and not a.star]
            if pos:
                loop.start = pos[0] if len(pos) >= 2 else None
                loop.end = pos[1] if len(pos) >= 2 else pos[0]
                loop.step = pos[2] if len(pos) >= 3 else None

    def _outer_picks(self, loop: PipelineLoop) -> list[OuterPick]:
        """Slot picks in the outer loop (outside the pipeline loop) whose slot a stage receives."""
        if not loop.nested:
            return []
        picks: dict[str, OuterPick] = {}
        aliases: dict[str, str] = {}
        for stmt in lines_outside(statements_of(loop.outer.body), (loop.node,)):
            for small in stmt.body:
                if (isinstance(small, cst.Assign) and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)):
                    target = small.targets[0].target.value
                    picked = slot_access(small.value, self.kernel.buffers)
                    if picked is not None and target not in picks:
                        group, accessor = picked
                        picks[target] = OuterPick(target, group, accessor, stmt, small.value,
                                                  self.kernel.buffers[group].slot_count)
                    elif isinstance(small.value, cst.Name):
                        aliases[target] = small.value.value
        passed = {a.value.value for s in loop.stages for a in s.passed if isinstance(a.value, cst.Name)}
        keep: dict[str, OuterPick] = {}
        for passed_name in passed:
            name, seen = passed_name, set()
            while name in aliases and name not in picks and name not in seen:
                seen.add(name)
                name = aliases[name]
            if name in picks:
                keep[name] = picks[name]
                loop.pick_aliases[passed_name] = name
        return list(keep.values())

