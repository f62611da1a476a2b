"""The one model every step works on: kernels, stages, buffers, pipeline loops, accesses.

The reader fills it tolerantly (it records what it sees, right or wrong); the rules judge
it; schedule, sync graph, plan and emit only run on a model the rules accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from pto_transpile.read.compiletime import JitNames
    from pto_transpile.read.consteval import ConstEvaluator

CUBE, VECTOR = "cube", "vector"

# Variable kinds. Handles (tensors, groups, tiles, tuples of them) never travel in the ctx
# ring; scalars and structs do.
TENSOR, GROUP, TILE, TUPLE, STRUCT, STRUCT_ARRAY, SCALAR, UNKNOWN = (
    "tensor", "group", "tile", "tuple", "struct", "struct_array", "scalar", "unknown",
)
HANDLE_KINDS = frozenset({TENSOR, GROUP, TILE, TUPLE, STRUCT_ARRAY})


@dataclass
class IdList:
    """A `fwd_ids=` / `bwd_ids=` keyword of a tile-group declaration."""

    keyword: str  #: "fwd_ids" or "bwd_ids"
    node: cst.BaseExpression
    values: tuple[int, ...] | None = None  #: resolved ids, None if unresolvable
    name: str | None = None  #: the module-level name when spelled `fwd_ids=IDS`
    problem: str | None = None  #: why the spelling is not accepted
    problem_node: cst.CSTNode | None = None

    @property
    def kind(self) -> str:
        return "fwd" if self.keyword == "fwd_ids" else "bwd"


@dataclass
class Buffer:
    """A tile group: `name = pl.make_tile_group(...)` in the kernel body."""

    name: str
    statement: cst.SimpleStatementLine
    call: cst.Call
    section: str | None
    memory: str | None = None
    memory_node: cst.CSTNode | None = None
    slot_bytes: int | None = None
    mutex_ids: tuple | None = None
    mutex_node: cst.CSTNode | None = None
    depth: int | None = None
    ranges: list[tuple[int, int]] | None = None  #: byte range per slot, if resolvable
    fwd: IdList | None = None
    bwd: IdList | None = None

    @property
    def cross_core(self) -> bool:
        return self.fwd is not None or self.bwd is not None

    @property
    def slot_count(self) -> int | None:
        if self.mutex_ids:
            return len(self.mutex_ids)
        if self.depth:
            return self.depth
        return len(self.ranges) if self.ranges else None

    def ids(self, kind: str) -> IdList | None:
        return self.fwd if kind == "fwd" else self.bwd


@dataclass
class StageFunc:
    name: str  #: the name its `def` binds (a call may use an alias of it)
    node: cst.FunctionDef
    params: list[str]


@dataclass
class StageCall:
    """One stage call in a pipeline loop body, with the statement that holds it."""

    func: str
    section: str  #: "cube", "vector", "" (no section) or "with" (a non-section `with`)
    holder: cst.BaseStatement  #: the loop-body statement (the section `with`)
    line: cst.SimpleStatementLine  #: the statement line of the call
    call: cst.Call
    index: int = 0
    siblings: list[cst.BaseStatement] = field(default_factory=list)  #: other statements in the section

    @property
    def positional(self) -> list[cst.Arg]:
        return [a for a in self.call.args if a.keyword is None and not a.star]

    @property
    def passed(self) -> list[cst.Arg]:
        """Every argument the call passes (positional, then keyword), starred ones excepted."""
        return [a for a in self.call.args if not a.star]

    def bind(self, params: list[str]) -> list[tuple[str, cst.Arg]]:
        """(parameter, argument) pairs: positional arguments by position, keywords by name."""
        pairs = list(zip(params, self.positional, strict=False))  # extra arguments bind nothing
        pairs += [(a.keyword.value, a) for a in self.call.args if a.keyword is not None and a.keyword.value in params]
        return pairs


@dataclass
class OuterPick:
    """`x = g.next()` (or current/previous/g[i]) inside the outer loop, outside the pipeline loop."""

    target: str
    group: str
    accessor: str  #: "next", "current", "previous" or "index"
    statement: cst.SimpleStatementLine
    value: cst.BaseExpression
    slot_count: int | None


@dataclass
class PipelineLoop:
    index: int
    node: cst.For
    outer: cst.For
    ancestors: list[cst.CSTNode]  #: For/With/If nodes from the kernel body down, excluding `node`
    body: list[cst.BaseStatement]  #: the loop body after constant-branch pruning
    stages: list[StageCall] = field(default_factory=list)
    prologue: list[cst.BaseStatement] = field(default_factory=list)
    epilogue: list[cst.BaseStatement] = field(default_factory=list)
    between: list[cst.BaseStatement] = field(default_factory=list)
    var: str | None = None
    start: cst.BaseExpression | None = None
    end: cst.BaseExpression | None = None
    step: cst.BaseExpression | None = None
    preload: int | None = None
    outer_picks: list[OuterPick] = field(default_factory=list)
    pick_aliases: dict[str, str] = field(default_factory=dict)  #: stage-argument name -> pick target

    @property
    def nested(self) -> bool:
        return self.outer is not self.node

    @property
    def suffix(self) -> str:
        return "" if self.index == 0 else f"_{self.index}"


@dataclass
class StructDecl:
    name: str
    statement: cst.SimpleStatementLine
    call: cst.Call
    fields: list[str]
    is_array: bool


@dataclass
class PreloadSpec:
    """`PipelineConfig(preload=...)` as written on the kernel's decorator."""

    node: cst.CSTNode | None  #: the value expression, None when defaulted
    values: tuple | None = None  #: folded values, valid (`preload.problem`); None when `problem` says why not
    is_sequence: bool = False
    problem: str | None = None  #: why it could not be folded
    sync_only: bool = False  #: `sync_only=True`: the kernel asks for preload 0 whatever `preload` says


@dataclass
class Kernel:
    name: str
    node: cst.FunctionDef
    jit_decorator: cst.Decorator
    pipeline_keyword: cst.Arg | None  #: `pipeline=...` on `@pl.jit(...)`, if any
    preload: PreloadSpec
    params: dict[str, str] = field(default_factory=dict)  #: name -> kind
    kinds: dict[str, str] = field(default_factory=dict)  #: every name bound in the kernel -> kind
    bound_plain: set[str] = field(default_factory=set)  #: names bound outside any section
    var_sections: dict[str, set[str]] = field(default_factory=dict)  #: name -> sections binding it
    buffers: dict[str, Buffer] = field(default_factory=dict)
    structs: dict[str, list[StructDecl]] = field(default_factory=dict)
    tuples: dict[str, dict[str, str]] = field(default_factory=dict)  #: make_tuple name -> field -> var
    slot_vars: dict[str, str] = field(default_factory=dict)  #: slot variable -> group
    loops: list[PipelineLoop] = field(default_factory=list)
    stray_stage_calls: list[tuple[str, cst.Call]] = field(default_factory=list)  #: outside any loop
    #: every stage call inside a loop
    loop_stage_calls: list[tuple[cst.Call, PipelineLoop]] = field(default_factory=list)
    dynamic_stage_ifs: list[tuple[cst.If, str]] = field(default_factory=list)
    #: the `dynamic_stage_ifs` whose test is a constant of each tiling-key instance
    key_stage_ifs: set[cst.CSTNode] = field(default_factory=set)
    statements: list[cst.BaseStatement] = field(default_factory=list)  #: pruned kernel body
    constants: ConstEvaluator | None = None  #: over the module constants the kernel does not rebind
    stored: frozenset = frozenset()  #: every name the kernel body binds (targets, loop variables, `as` names)
    jit: JitNames | None = None  #: what `@pl.jit(tiling_key=..., datatype=...)` binds (`FileModel.instances`)

    @property
    def cross_core(self) -> dict[str, Buffer]:
        return {n: b for n, b in self.buffers.items() if b.cross_core}


@dataclass(frozen=True)
class Access:
    """One op-level access of a stage to a tracked buffer: which buffer, read or written, on which pipe."""

    stage_index: int
    buffer: str
    role: str  #: "W", "R" or "RW"
    pipe: str
    node: cst.CSTNode  #: the op call (for positions)
    op: str
    #: the stage may not run it (under an `if`, in a loop, after a `return` under a test): it
    #: orders nothing after it on other pipes, so it hides no earlier access from the sync graph
    conditional: bool = False
