"""Emission: the rewritten kernel, as libcst nodes spliced around the user's own.

User statements are kept as the very nodes the file was parsed into, so their text,
comments and formatting survive; only inserted statements are new. The user's expressions
that generated statements use (the loop bound, an index, a stage argument snapshotted into
the ctx ring) are spliced in as nodes, parenthesised where the new position needs it, never
pasted as text. Full mode (preload > 0) rebuilds the pipeline loop around a ctx ring;
serial mode (preload 0) keeps the loop and only inserts the sync.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TypeVar, cast

import libcst as cst

from pto_transpile.emit import nodes
from pto_transpile.emit.style import COMPARISON_OPERAND, VALUE, Style, assign, call, operand
from pto_transpile.read.model import Kernel, OuterPick, PipelineLoop, StageCall
from pto_transpile.read.walk import breaks_out, children, iter_nodes
from pto_transpile.sync.ctxring import CtxPlan
from pto_transpile.sync.ctxtypes import INT, initialiser
from pto_transpile.sync.plan import Plan, SyncOp
from pto_transpile.sync.schedule import Schedule

Replacement = cst.CSTNode | cst.FlattenSentinel | Callable[[cst.CSTNode], object]
C = TypeVar("C", bound=cst.BaseCompoundStatement)


class LoopEmitter:
    def __init__(self, file, kernel: Kernel, loop: PipelineLoop, schedule: Schedule, plan: Plan,
                 ctx: CtxPlan | None, style: Style, pl: str):
        self.file = file
        self.kernel = kernel
        self.loop = loop
        self.sched = schedule
        self.plan = plan
        self.ctx = ctx
        self.style = style
        self.pl = pl
        sfx = loop.suffix
        self.arr = f"_pl_ctx_arr{sfx}"
        self.task = f"_pl_task_id{sfx}"
        self.ctx0 = f"_pl_ctx_0{sfx}"
        self.drain_var = f"_pl_drain{sfx}"
        self.sync_id = f"_pl_sync_id{sfx}"
        self.type_name = f"PipeCtx{sfx}"
        unit = len(style.indent)
        outer_depth = loop.ancestors.index(loop.outer) if loop.nested else len(loop.ancestors)
        self.outer_col = unit * (1 + outer_depth)
        self.body_col = unit * (2 + len(loop.ancestors))
        self.unit = unit
        self._read: dict[str, cst.BaseStatement] = {}

    # generated statements -----------------------------------------------------------------
    def template(self, code: str) -> cst.BaseStatement:
        """`code` (ending with a newline) as a node; the drain loop repeats the delayed
        stages' statements, so each text is read once (nodes are immutable: sharing is safe)."""
        node = self._read.get(code)
        if node is None:
            node = self._read[code] = nodes.statement(code)
        return node

    def compound(self, code: str, kind: type[C]) -> C:
        """A `with`/`if`/`for` template whose body the caller fills in."""
        return cst.ensure_type(self.template(code), kind)

    def statement(self, code: str) -> cst.BaseStatement:
        return self.template(code + "\n")

    @property
    def ring(self) -> CtxPlan:
        """The ctx ring of a pipelined loop (a loop kept serial has none)."""
        assert self.ctx is not None, "only a pipelined loop has a ctx ring"
        return self.ctx

    # small text builders ------------------------------------------------------------------
    def ctx_var(self, delay: int) -> str:
        return self.ctx0 if delay == 0 else f"_pl_ctx_neg{delay}{self.loop.suffix}"

    def sync_text(self, op: SyncOp, index: str, column: int) -> str:
        func = f"{self.pl}.system.{op.kind}_cross_core"
        args = [f"pipe={self.pl}.PipeType.{op.pipe}", f"event_id={op.ids.name}[{index}]"]
        return call(func, args, column, self.style)

    def task_index(self, op: SyncOp, counter: str) -> str:
        return f"{counter} % {op.ids.count}"

    def section_block(self, kind: str, body: list[cst.BaseStatement]) -> cst.BaseStatement:
        block = self.compound(f"with {self.pl}.section_{kind}():\n{self.style.indent}pass\n", cst.With)
        return block.with_changes(body=block.body.with_changes(body=body))

    def sync_block(self, kind: str, ops: list[SyncOp], column: int) -> cst.BaseStatement:
        """A section holding the prefire or drain syncs of one core (fixed event indices)."""
        return self.section_block(kind, [self.statement(self.sync_text(op, str(op.index), column + self.unit))
                                         for op in ops])

    # declarations before the outermost loop ---------------------------------------------
    def declarations(self) -> list[cst.BaseStatement]:
        col = self.outer_col
        stmts: list[cst.BaseStatement] = []
        if not self.sched.serial:
            fields = [f"{f}={initialiser(self.ring.types.get(f, INT), self.pl)}" for f in self.ring.fields]
            stmts.append(self.statement(call(f"{self.pl}.struct_array",
                                                [str(self.sched.depth), self.style.string(self.type_name)] + fields,
                                                col, self.style, prefix=f"{self.arr} = ")))
            stmts.append(self.statement(f"{self.task} = 0"))
        stmts += [assign(name, node) for name, node in self.plan.lifted]
        stmts += [self.statement(f"{name} = {ids!r}") for name, ids in self.plan.overlap]
        if self.sched.serial:
            stmts.append(self.statement(f"{self.sync_id} = 0"))
        else:
            counters = sorted({(p.group, _slots(p)) for p in self.loop.outer_picks
                               if p.accessor in ("next", "current", "previous")})
            stmts += [self.statement(f"_pl_idx_{group} = {slots - 1}") for group, slots in counters]
        stmts += [self.sync_block(kind, ops, col) for kind, ops in self.plan.blocks(self.plan.prefire)]
        return stmts

    def after_outer(self) -> list[cst.BaseStatement]:
        col = self.outer_col
        stmts: list[cst.BaseStatement] = []
        if not self.sched.serial and self.sched.drain_beats > 0:
            stmts.append(self.drain_loop())
        stmts += [self.sync_block(kind, ops, col) for kind, ops in self.plan.blocks(self.plan.drain)]
        return stmts

    # stage blocks -------------------------------------------------------------------------
    def stage_call_line(self, stage: StageCall, ctxvar: str | None) -> cst.SimpleStatementLine:
        """The user's call line with positional arguments replaced by their ctx forms."""
        if ctxvar is None:
            return stage.line
        forms = self.ring.args[stage.index]
        new_args, pos = [], 0
        for arg in stage.call.args:
            if not arg.star:
                form = forms[pos]
                pos += 1
                if form.form == "parts":
                    given = form.picked if form.picked is not None else arg.value
                    arg = arg.with_changes(value=_carried_parts(given, form.parts, ctxvar))
                    new_args.append(arg)
                    continue
                text = {
                    "keep": None,
                    "ctx": ctxvar,
                    "field": f"{ctxvar}.{form.field}",
                    "slot": f"{form.group}[{ctxvar}.{form.field}]",
                }[form.form]
                if text is not None:
                    arg = arg.with_changes(value=nodes.expression(text))
            new_args.append(arg)
        new_call = stage.call.with_changes(args=new_args)
        return stage.line.with_changes(body=[_replace_call(s, stage.call, new_call) for s in stage.line.body])

    def guarded_stage(self, stage: StageCall, column: int, keep_leading: bool = True) -> list[cst.BaseStatement]:
        """[ctx lookup], `with section: if ctx._pl_is_valid: waits; call; sets`."""
        d = self.sched.delays[stage.index]
        ctxvar = self.ctx_var(d)
        out: list[cst.BaseStatement] = []
        if d > 0:
            D = self.sched.depth
            out.append(self.statement(f"{ctxvar} = {self.arr}[({self.task} + {D - d}) % {D}]"))
        inner_col = column + 2 * self.unit
        waits = [self.statement(self.sync_text(op, self.task_index(op, f"{ctxvar}._pl_task_id"), inner_col))
                 for op in self.plan.pre.get(stage.index, [])]
        sets = [self.statement(self.sync_text(op, self.task_index(op, f"{ctxvar}._pl_task_id"), inner_col))
                for op in self.plan.post.get(stage.index, [])]
        guard = self.compound(f"if {ctxvar}._pl_is_valid:\n{self.style.indent}pass\n", cst.If)
        body = waits + [self.stage_call_line(stage, ctxvar)] + sets
        guard = guard.with_changes(body=guard.body.with_changes(body=body))
        holder = _section(stage)
        if not keep_leading:
            holder = holder.with_changes(leading_lines=[])
        elif out:  # a comment above the section describes the whole block: keep it above the lookup
            out[0] = out[0].with_changes(leading_lines=holder.leading_lines)
            holder = holder.with_changes(leading_lines=[])
        out.append(holder.with_changes(body=holder.body.with_changes(body=[guard])))
        return out

    def serial_stage(self, stage: StageCall) -> cst.BaseStatement:
        col = self.body_col + self.unit
        waits = [self.statement(self.sync_text(op, self.task_index(op, self.sync_id), col))
                 for op in self.plan.pre.get(stage.index, [])]
        sets = [self.statement(self.sync_text(op, self.task_index(op, self.sync_id), col))
                for op in self.plan.post.get(stage.index, [])]
        holder = _section(stage)
        return holder.with_changes(body=holder.body.with_changes(body=waits + [stage.line] + sets))

    # the loops ------------------------------------------------------------------------------
    def pipelined_loop(self) -> cst.For:
        loop, col = self.loop, self.body_col
        D = self.sched.depth
        head = [
            f"{self.ctx0} = {self.arr}[{self.task} % {D}]",
        ]
        guard = self.compound(
            f"if {loop.var} < _pl_end:\n{self.style.indent}{self.ctx0}._pl_is_valid = 1\n"
            f"else:\n{self.style.indent}{self.ctx0}._pl_is_valid = 0\n", cst.If)
        end = operand(loop.end, COMPARISON_OPERAND) if loop.end is not None else cst.Name("True")
        if self.end_name is not None:  # the body rebinds a name of the end: the end as `range` took it
            end = cst.Name(self.end_name)
        test = cst.ensure_type(guard.test, cst.Comparison)
        bound = test.comparisons[0].with_changes(comparator=end)
        guard = guard.with_changes(test=test.with_changes(comparisons=[bound]))
        body: list[cst.BaseStatement] = [self.statement(t) for t in head] + [guard] + list(loop.prologue)
        body += self.fills()
        for stage in loop.stages:
            body += self.guarded_stage(stage, col)
        body += list(loop.epilogue)
        body.append(self.statement(f"{self.task} = {self.task} + 1"))
        return loop.node.with_changes(body=loop.node.body.with_changes(body=body))

    def fills(self) -> list[cst.BaseStatement]:
        ring = self.ring
        order = {f: i for i, f in enumerate(ring.fields)}
        plain = sorted((f for f in ring.fills if f.sections is None), key=lambda f: order[f.field])
        out: list[cst.BaseStatement] = [assign(f"{self.ctx0}.{f.field}", f.value) for f in plain]
        out.append(self.statement(f"{self.ctx0}._pl_task_id = {self.task}"))
        by_section: dict[str, list] = {}
        for f in ring.fills:
            for s in f.sections or ():
                by_section.setdefault(s, []).append(f)
        for kind in sorted(by_section):
            fills = sorted(by_section[kind], key=lambda f: order[f.field])
            out.append(self.section_block(kind, [assign(f"{self.ctx0}.{f.field}", f.value) for f in fills]))
        return out

    def drain_loop(self) -> cst.For:
        D = self.sched.depth
        ind = self.style.indent
        lines = [
            f"{self.ctx0} = {self.arr}[{self.task} % {D}]",
            f"{self.ctx0}._pl_is_valid = 0",
            f"{self.ctx0}._pl_task_id = {self.task}",
        ]
        head = self.compound(f"for {self.drain_var} in {self.pl}.range(0, {D - 1}):\n{ind}pass\n", cst.For)
        body = [self.statement(t) for t in lines]
        for stage in self.loop.stages:
            if self.sched.delays[stage.index] > 0:
                body += self.guarded_stage(stage, self.outer_col + self.unit, keep_leading=False)
        body.append(self.statement(f"{self.task} = {self.task} + 1"))
        return head.with_changes(body=head.body.with_changes(body=body))

    def serial_loop(self) -> cst.For:
        loop = self.loop
        stage_of = {s.holder: s for s in loop.stages}
        body = [self.serial_stage(stage_of[s]) if s in stage_of else s for s in loop.body]
        body.append(self.statement(f"{self.sync_id} = {self.sync_id} + 1"))
        return loop.node.with_changes(body=loop.node.body.with_changes(body=body))

    # outer-loop slot picks ------------------------------------------------------------------
    def pick_rewrites(self) -> dict[cst.CSTNode, Replacement]:
        if self.sched.serial:
            return {}
        out: dict[cst.CSTNode, Replacement] = {}
        fields = self.ring.slot_fields
        by_line: dict[cst.CSTNode, list] = {}
        for p in self.loop.outer_picks:
            by_line.setdefault(p.statement, []).append(p)
        for p in self.loop.outer_picks:
            field = fields[p.target]
            counter = f"_pl_idx_{p.group}"
            S = _slots(p)
            stmts: list[cst.BaseStatement] = []
            if p.accessor == "next":
                stmts.append(self.statement(f"{counter} = ({counter} + 1) % {S}"))
                index: cst.BaseExpression = cst.Name(counter)
            elif p.accessor == "current":
                index = cst.Name(counter)
            elif p.accessor == "previous":
                index = nodes.expression(f"({counter} + {S - 1}) % {S}")
            else:
                # the user's own index expression
                index = cst.ensure_type(cst.ensure_type(p.value, cst.Subscript).slice[0].slice, cst.Index).value
            if field != counter:
                stmts.append(assign(field, index))
                index = cst.Name(field)
            line = p.statement
            new_small = [s.with_changes(value=_subscript(p.group, index))
                         if isinstance(s, cst.Assign) and s.value is p.value else s for s in line.body]
            first_leading = line.leading_lines
            rebuilt = line.with_changes(body=new_small)
            if stmts:
                stmts[0] = stmts[0].with_changes(leading_lines=first_leading)
                rebuilt = rebuilt.with_changes(leading_lines=[])
            out[line] = cst.FlattenSentinel(stmts + [rebuilt])
        return out

    # all together ---------------------------------------------------------------------------
    @cached_property
    def end_name(self) -> str | None:
        """The name the loop's end is kept in before the loop: `range` took the end once, while
        the validity test of each beat reads it again. Kept when the loop body rebinds a name the
        end reads (`for ki in pl.range(0, left): left = left - 1`), or when the end is more than
        names and numbers (`pl.getval(lens, 0)` reads memory a stage may write, a call may have
        effects). None: the end is read in place."""
        loop = self.loop
        if self.sched.serial or loop.end is None or loop.var is None:
            return None
        if self.end_hoisted:
            return f"_pl_end_{loop.var}"
        read = {n.value for n in iter_nodes(loop.end) if isinstance(n, cst.Name)}
        return f"_pl_end_{loop.var}" if read & _bound_in(loop.node.body) else None

    @cached_property
    def end_hoisted(self) -> bool:
        """Whether the end is evaluated once, before the loop, and the loop header reads it
        from `_pl_end_<var>` too: an end that is more than names and numbers may read memory
        or have effects, so evaluating it in the header as well would take it twice."""
        return not self.sched.serial and self.loop.end is not None and self.loop.var is not None \
            and not _plain(self.loop.end)

    def replacements(self) -> dict[cst.CSTNode, Replacement]:
        """What this loop changes in the kernel, keyed by the replaced node (nodes are equal only to themselves)."""
        before, after = self.declarations(), self.after_outer()
        new_loop = self.serial_loop() if self.sched.serial else self.pipelined_loop()
        if self.end_hoisted and self.end_name is not None:
            new_loop = _with_end(new_loop, self.loop.end, self.end_name)
        repl: dict[cst.CSTNode, Replacement] = dict(self.pick_rewrites())
        outer = self.loop.outer
        end: list[cst.BaseStatement] = [] if self.end_name is None or self.loop.end is None else [
            assign(self.end_name, self.loop.end)]
        # the loop never breaks (PTO059), so its `else:` runs once it is over, as the statements
        # after it do: after the drain, which finishes the last tasks (a nested loop's, after the
        # loop in the outer body, where the check judges what follows it as it judges them)
        tail = _else_body(new_loop)
        if tail:
            new_loop = new_loop.with_changes(orelse=None)
        if outer is self.loop.node:
            repl[outer] = cst.FlattenSentinel(_carry_leading(before + end, new_loop) + after + tail)
        else:  # a nested loop: its end right above it, the declarations and the drain around the outer loop
            repl[self.loop.node] = cst.FlattenSentinel(end + [new_loop] + tail) if end or tail else new_loop

            def around(updated: cst.CSTNode) -> cst.FlattenSentinel:
                """The outer loop, as rewritten below it, between the declarations and the drain; its
                `else:` after the drain, as the pipeline loop's own, unless a `break` of its own may skip
                it (probe h138: left on the loop, it ran before the last tasks' delayed stages)."""
                assert isinstance(updated, cst.BaseCompoundStatement)
                last = [] if breaks_out(updated) else _else_body(updated)
                if last:
                    updated = updated.with_changes(orelse=None)
                return cst.FlattenSentinel(_carry_leading(before, updated) + after + last)

            repl[outer] = around
        return repl


def _else_body(loop: cst.BaseCompoundStatement) -> list[cst.BaseStatement]:
    """The statements of a `for` loop's `else:`, the comments on and above the `else:` line
    kept above the first of them; [] for a loop without one."""
    orelse = loop.orelse if isinstance(loop, cst.For) else None
    if orelse is None or not isinstance(orelse.body, cst.IndentedBlock) or not orelse.body.body:
        return []
    body = list(orelse.body.body)
    header = orelse.body.header.comment
    comments = [*orelse.leading_lines, *([cst.EmptyLine(comment=header)] if header is not None else [])]
    first = body[0]
    if comments and isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        body[0] = first.with_changes(leading_lines=[*comments, *first.leading_lines])
    return body


def _bound_in(body: cst.CSTNode) -> set[str]:
    """The names a loop body may bind or unbind: assignment, loop and `del` targets, `as` names
    (`with`, `except`, `import`), `:=`, `match` captures, names declared `global`/`nonlocal`, and
    the root of an attribute or item assigned (`st.n = ...` changes what `st.n` reads)."""
    out: set[str] = set()
    for n in iter_nodes(body):
        targets: list[cst.CSTNode] = [t.target for t in n.targets] if isinstance(n, cst.Assign) else \
            [n.target] if isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.Del)) else \
            [n.name] if isinstance(n, (cst.AsName, cst.MatchAs, cst.MatchStar)) and n.name is not None else \
            [m.name for m in n.names] if isinstance(n, (cst.Global, cst.Nonlocal)) else []
        out.update(m.value for t in targets for m in iter_nodes(t) if isinstance(m, cst.Name))
    return out


#: expressions whose reading has no effect and reads no memory: names and numbers under operators
_PLAIN = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.BinaryOperation, cst.UnaryOperation,
          cst.BooleanOperation, cst.Comparison, cst.IfExp)


def _plain(expr: cst.BaseExpression) -> bool:
    """Whether an expression is names and numbers under operators (`n_blocks`, `N + 1`,
    `N_ITER if N_ITER else 4`): reading it again gives what `range` took unless a name is
    rebound. A call, an item, an attribute or anything else may read memory or have effects."""
    return all(isinstance(n, _PLAIN) for n in iter_nodes(expr) if isinstance(n, cst.BaseExpression))


def _with_end(loop: cst.For, end: cst.BaseExpression | None, name: str) -> cst.For:
    """The loop header with its end argument read from `name`, as evaluated before the loop."""
    call = cst.ensure_type(loop.iter, cst.Call)
    args = [a.with_changes(value=cst.Name(name)) if a.value is end else a for a in call.args]
    return loop.with_changes(iter=call.with_changes(args=args))


def _subscript(group: str, index: cst.BaseExpression) -> cst.Subscript:
    """`group[index]` around the given index node."""
    return cst.Subscript(cst.Name(group), [cst.SubscriptElement(cst.Index(operand(index, VALUE)))])


def _section(stage: StageCall) -> cst.With:
    """The section block holding a stage call (a call outside one is refused before emission)."""
    return cst.ensure_type(stage.holder, cst.With)


def _slots(pick: OuterPick) -> int:
    """The tile count of an outer pick's group (an unresolved count is refused before emission)."""
    assert pick.slot_count is not None
    return pick.slot_count


def _carry_leading(before: list[cst.BaseStatement], loop: cst.BaseCompoundStatement) -> list[cst.BaseStatement]:
    """Put declarations above the loop and above the comment that describes the loop.

    The comment right above a loop belongs to the loop, so it stays attached to it; the
    first declaration takes over the blank lines that separated the loop from what precedes.
    """
    if not before:
        return [loop]
    lines = list(loop.leading_lines)
    spacing = []
    while lines and lines[0].comment is None:
        spacing.append(lines.pop(0))
    first = before[0].with_changes(leading_lines=spacing)
    return [first] + before[1:] + [loop.with_changes(leading_lines=lines)]


def _carried_parts(value: cst.BaseExpression, parts, ctxvar: str) -> cst.BaseExpression:
    """A handle-valued argument picking with its task's values (`bufs[ctx.f]` for `bufs[ki % 2]`)."""
    fields: dict[cst.CSTNode, Replacement] = {
        part: cst.Attribute(cst.Name(ctxvar), cst.Name(field)) for part, field in parts}
    return cast(cst.BaseExpression, value.visit(KernelRewriter(value, fields)))


def _replace_call(small: cst.BaseSmallStatement, old: cst.Call, new: cst.Call) -> cst.BaseSmallStatement:
    if isinstance(small, cst.Expr) and small.value is old:
        return small.with_changes(value=new)
    return small


class KernelRewriter(cst.CSTTransformer):
    """Applies node-keyed replacements in one pass over the kernel.

    Only the paths from the kernel down to replaced nodes are visited: libcst rebuilds every
    node a transformer passes, and most of a kernel (declarations, stage arguments) is kept.
    """

    def __init__(self, root: cst.CSTNode, replacements: dict[cst.CSTNode, Replacement], index=None):
        self.replacements = replacements
        on_path = index.paths_to(root, replacements.keys()) if index is not None else None
        self.on_path = on_path if on_path is not None else _paths_to(root, replacements.keys())

    def on_visit(self, node) -> bool:
        return node in self.on_path

    def on_leave(self, original_node, updated_node):
        repl = self.replacements.get(original_node)
        if repl is None:
            return updated_node
        if callable(repl) and not isinstance(repl, (cst.CSTNode, cst.FlattenSentinel)):
            return repl(updated_node)
        return repl


def _paths_to(root: cst.CSTNode, targets) -> set[cst.CSTNode]:
    """The targets and every node above one of them, below `root`."""
    targets = set(targets)
    on_path: set[cst.CSTNode] = set()
    stack: list[tuple[cst.CSTNode, int]] = [(root, 0)]
    path: list[cst.CSTNode] = []
    while stack:
        node, depth = stack.pop()
        del path[depth:]
        path.append(node)
        if node in targets:
            on_path.update(n for n in path)
        stack.extend((child, depth + 1) for child in reversed(children(node)))
    return on_path


def strip_pipeline_keyword(kernel: Kernel) -> dict[cst.CSTNode, Replacement]:
    """`@pl.jit(auto_mutex=True, pipeline=...)` -> `@pl.jit(auto_mutex=True)`: the output is final."""
    if kernel.pipeline_keyword is None:
        return {}
    call = cst.ensure_type(kernel.jit_decorator.decorator, cst.Call)
    args = list(call.args)
    i = next(k for k, a in enumerate(args) if a is kernel.pipeline_keyword)
    removed = args.pop(i)
    # what stood after the removed argument's comma (comments, the line break before the next
    # argument or the `)`) joins what stood before the argument (probes h254, h255: comments on
    # the kept argument's line, above the `)` or above the next argument were deleted)
    after = removed.comma.whitespace_after if isinstance(removed.comma, cst.Comma) else removed.whitespace_after_arg
    if i == 0:
        before = call.whitespace_before_args
        return {call: call.with_changes(args=args, whitespace_before_args=_joined(before, after))}
    kept = args[i - 1].comma
    if isinstance(kept, cst.Comma):
        joined = _joined(kept.whitespace_after, after)
        last = i == len(args)
        comma: cst.Comma | cst.MaybeSentinel
        if last and not isinstance(joined, cst.ParenthesizedWhitespace):
            comma = cst.MaybeSentinel.DEFAULT  # `@pl.jit(auto_mutex=True)`
        elif last and isinstance(joined, cst.ParenthesizedWhitespace) \
                and not isinstance(after, cst.ParenthesizedWhitespace):
            # (`pipeline=...)` closed the call on its own line: the `)` at the margin)
            comma = kept.with_changes(whitespace_after=joined.with_changes(last_line=cst.SimpleWhitespace("")))
        else:
            comma = kept.with_changes(whitespace_after=joined)
        args[i - 1] = args[i - 1].with_changes(comma=comma)
    return {call: call.with_changes(args=args)}


def _joined(before: cst.BaseParenthesizableWhitespace, after: cst.BaseParenthesizableWhitespace | None):
    """The whitespace where an argument stood, between `before` (up to it) and `after` (past its
    comma): the comment lines of both, in order, and the line break and indent `after` ends with."""
    if not isinstance(after, cst.ParenthesizedWhitespace):
        return before
    if not isinstance(before, cst.ParenthesizedWhitespace):
        return after
    first = after.first_line  # (the removed argument's own line: its comment, indented as it was)
    carried = [cst.EmptyLine(indent=True, whitespace=before.last_line, comment=first.comment)] \
        if first.comment is not None else []
    return before.with_changes(empty_lines=[*before.empty_lines, *carried, *after.empty_lines],
                               last_line=after.last_line)
