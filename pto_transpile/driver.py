"""`transpile()`: the straight pipeline read -> rules -> sync (scan, schedule, sync graph,
plan, ctx ring) -> emit -> soundness -> the text of the output.

Every step is a plain function of the model; diagnostics are collected from all of them so
that one run reports every problem. Nothing is emitted when any error was found, and no
kernel is written that the soundness check did not prove. The file is never imported or run.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

import libcst as cst

from pto_transpile import codes
from pto_transpile.diagnostics import Diagnostic
from pto_transpile.emit.rewrite import KernelRewriter, LoopEmitter, strip_pipeline_keyword
from pto_transpile.emit.style import Style
from pto_transpile.preload import Auto, Override, check_preload, loop_preload
from pto_transpile.read.layout import TooComplex
from pto_transpile.read.mark import copy_marked, marked, placeholder, stamped
from pto_transpile.read.model import Kernel
from pto_transpile.read.pipelined import BY_HAND, pipelined_as
from pto_transpile.read.reader import FileModel, read
from pto_transpile.read.source import SourceFile
from pto_transpile.results import LoopResult, TranspileResult
from pto_transpile.rules import registry
from pto_transpile.rules.context import FileContext, KernelContext, LoopContext
from pto_transpile.rules.explain import codes_there_are
from pto_transpile.rules.reporter import Reporter
from pto_transpile.soundness.proof import prove
from pto_transpile.sync.ctxring import plan_ctx
from pto_transpile.sync.graph import build_graph
from pto_transpile.sync.hazards import forward_only_overwrites, outer_slot_overwrites
from pto_transpile.sync.plan import make_plan
from pto_transpile.sync.scan import StageScanner
from pto_transpile.sync.schedule import schedule_for

#: A UTF-8 byte order mark, as the first character of a file's text.
BOM = "\ufeff"


@dataclass(frozen=True)
class Selection:
    """Which diagnostics are shown: `--select` / `--ignore` as code prefixes.

    Items are codes, code prefixes (`PTO04`) or rule names (`too-few-tiles`); anything
    that names no rule is a usage error, so a typo never silently shows nothing."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    @classmethod
    def parse(cls, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None) -> Selection:
        return cls(_selectors(select, "select"), _selectors(ignore, "ignore"))

    def shows(self, d: Diagnostic) -> bool:
        if d.code == codes.INTERNAL_ERROR:
            return True  # a bug of ours is never filtered away
        if self.select and not d.code.startswith(self.select):
            return False
        return not d.code.startswith(self.ignore) if self.ignore else True


def _selectors(values: Iterable[str] | None, option: str) -> tuple[str, ...]:
    if isinstance(values, str):
        values = [values]
    rules = registry()
    by_name = {r.name: code for code, r in rules.items()}
    out = []
    for raw in values or ():
        for item in str(raw).split(","):
            item = item.strip()
            if not item:
                continue
            if item.lower() in by_name:
                out.append(by_name[item.lower()])
            elif any(code.startswith(item.upper()) for code in rules):
                out.append(item.upper())
            else:
                raise ValueError(f"--{option}: {item!r} names no rule (codes run from {codes_there_are(rules)}, "
                                 "or give a rule name such as too-few-tiles)")
    return tuple(out)


def transpile(source: str, *, preload: Override = None, path: str | None = None,
              select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
              preload_is_default: bool = False, _skip_rules: Iterable[str] = ()) -> TranspileResult:
    """Transpile one kernel file's text. Problems in the kernel are diagnostics, and a bug of
    pto-transpile itself is the PTO099 internal-error diagnostic; only a bad `preload`,
    `select` or `ignore` (a usage error) raises ValueError. The file is never imported or
    run: `preload="auto"`, which runs it on the emulator, is refused here; choose with
    `autopreload.choose_preload()` and pass its `.preload`.

    `preload_is_default`: `preload` is a project's default (pyproject.toml), not an override,
    so a kernel marked `PipelineConfig(sync_only=True)` keeps preload 0; an override replaces
    that too, and `sync_only_overridden` names the kernels it did.

    `select`/`ignore` filter what `diagnostics` shows; an error always blocks the output.
    `_skip_rules` is for the test suite alone: it switches rules off so that the backstop
    checks behind them can be exercised."""
    path = path or "<string>"
    if source.startswith(BOM):  # kept on the output, invisible to the analysis and to positions
        result = transpile(source[len(BOM):], preload=preload, path=path, select=select, ignore=ignore,
                           preload_is_default=preload_is_default, _skip_rules=_skip_rules)
        if result.code is not None:
            result.code = BOM + result.code
        return result
    override = check_preload(preload)
    if isinstance(override, Auto):
        raise ValueError("preload=\"auto\" runs the kernel file on the emulator, which transpile() never does: "
                         "choose with pto_transpile.choose_preload(text) and pass its .preload")
    selection = Selection.parse(select, ignore)
    try:
        with _cycle_collector_paused():
            result = _transpile(source, override, preload_is_default, path, frozenset(_skip_rules))
    except (TooComplex, RecursionError) as exc:  # the input's size or depth, not a bug
        result = TranspileResult(path, None, [too_complex_diagnostic(path, exc)])
    except Exception as exc:
        crash = registry()[codes.INTERNAL_ERROR].diagnostic({"detail": f"{type(exc).__name__}: "
                                                                       f"{exc}"}, path, 1, 1, 1, 1)
        result = TranspileResult(path, None, [crash])
    shown = [d for d in result.diagnostics if selection.shows(d)]
    result.hidden = [d for d in result.diagnostics if not selection.shows(d)]
    result.diagnostics = shown
    return result


@contextmanager
def _cycle_collector_paused():
    """Syntax trees and the model hold no reference cycles, so reference counting frees them;
    the cycle collector's passes over a tree while it grows would cost a quarter of a parse.
    What survives the transpile (the result's tree) is moved to the oldest generation
    (`freeze` then `unfreeze`, two list splices), as the collector would promote it after
    scanning it: the collection that re-enabling would trigger scanned about 10% of a
    transpile's time over objects that hold no cycle."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def _transpile(source: str, preload: Override, is_default: bool, path: str, skip: frozenset[str]) -> TranspileResult:
    try:
        src = SourceFile.parse(source, path)
    except (SyntaxError, ValueError) as err:
        return TranspileResult(path, None, [_python_refuses(path, err)])
    except cst.ParserSyntaxError as exc:  # what Python accepts and libcst does not
        detail = {"detail": exc.message}
        return TranspileResult(path, None, [registry()[codes.SYNTAX_ERROR].diagnostic(detail, path, exc.raw_line,
                                                                                      exc.raw_column + 1)])
    reporter = Reporter(src, skip)
    file = read(src)
    reporter.run("file", FileContext(file))
    if reporter.has_errors_of(codes.STOPS_ANALYSIS):  # what follows from a typo would hide it
        return TranspileResult(path, None, sorted(reporter.finish(), key=Diagnostic.sort_key), [], src)
    results: list[LoopResult] = []
    replacements: dict[cst.CSTNode, object] = {}
    transformed: list[Kernel] = []
    overlap_counter = [0]
    overridden: list[str] = []  # kernels marked sync_only whose preload 0 the override replaced
    other: list[tuple[str, str]] = []  # kernels the preload given runs at other preloads than their own
    by_hand: list[Kernel] = []  # kernels pipelined by hand: left as written, under `COPY_MARK`
    for kernel in file.kernels:
        how = pipelined_as(kernel, file)
        if how is not None:  # left as written; PTO060 (file phase) says so once
            if how.startswith(BY_HAND):
                by_hand.append(kernel)
            continue
        if not kernel.loops and kernel.pipeline_keyword is None and not kernel.stray_stage_calls:
            continue  # a plain kernel: nothing to transform, nothing to judge
        preloads = _preloads(kernel, preload, is_default)
        if kernel.preload.sync_only and any(preloads):
            overridden.append(kernel.name)
        if preload is not None and preloads != tuple(kernel.preload.values or ()):
            # its own `PipelineConfig(...)` as written (probe h254: a `sync_only=True` kernel's was given as
            # `preload=0`), "" when it sets none
            own = kernel.pipeline_keyword.value if kernel.pipeline_keyword is not None else None
            other.append((kernel.name, file.source.code(own) if own is not None else ""))
        scanner = StageScanner(file, kernel)
        kctx = KernelContext(file, kernel, preloads, [])
        # errors of the scan count against the kernel too: an access it could not resolve is
        # missing, and judging users, tiles or the graph without it adds misleading errors
        errors_before = reporter.error_count
        for loop in kernel.loops:
            scans = [scanner.scan_stage(s) for s in loop.stages]
            accesses = [s.accesses for s in scans]
            kctx.loop_results.append(LoopResult(kernel.name, loop.index, loop.node, accesses=accesses))
            for s in scans:
                reporter.report_all(s.findings)
        results += kctx.loop_results
        reporter.run("kernel", kctx)
        kernel_ok = reporter.error_count == errors_before
        emitters = []
        for loop, loop_result in zip(kernel.loops, kctx.loop_results, strict=True):
            p = loop_preload(preloads, loop.index) if preloads else None
            if kernel_ok and p is not None:
                emitter = _analyse_loop(reporter, LoopContext.of(kctx, loop, loop_result), p, overlap_counter)
                if emitter is not None:
                    emitters.append(emitter)
        if reporter.has_errors:
            continue
        style = Style.of(src.module, src.text)
        pl_ref = file.pl.module_ref or "pl"
        for loop, sched, plan, ctx in emitters:
            replacements.update(LoopEmitter(file, kernel, loop, sched, plan, ctx, style, pl_ref).replacements())
        replacements.update(strip_pipeline_keyword(kernel))
        if emitters:
            transformed.append(kernel)
    if reporter.has_errors:
        return TranspileResult(path, None, sorted(reporter.finish(), key=Diagnostic.sort_key), results, src,
                               sync_only_overridden=overridden, preload_overridden=other)
    stand_ins = {placeholder(): k.name for k in transformed}
    replacements.update({k.node: partial(marked, stand_in=s) for s, k in zip(stand_ins, transformed, strict=True)})
    pipelines = bool(replacements)
    replacements.update({k.node: copy_marked for k in by_hand})
    module = _rewrite_kernels(src.module, file, replacements)
    if file.pl.module_ref is None and pipelines:
        module = _add_pl_import(module)
    if codes.PIPELINE_NOT_PROVEN not in skip:
        reporter.report_all(prove(file, module, transformed))
    diagnostics = sorted(reporter.finish(), key=Diagnostic.sort_key)
    if any(d.is_error for d in diagnostics):
        return TranspileResult(path, None, diagnostics, results, src, sync_only_overridden=overridden,
                               preload_overridden=other)
    if codes.PIPELINE_NOT_PROVEN not in skip:
        diagnostics = _without_settled_warnings(diagnostics, src, transformed)
    return TranspileResult(path, stamped(src.render(module), stand_ins), diagnostics, results, src,
                           sync_only_overridden=overridden, preload_overridden=other)


def _without_settled_warnings(diagnostics: list[Diagnostic], src: SourceFile, proven: list[Kernel]) -> list[Diagnostic]:
    """`diagnostics` less the warnings of what the proof has settled in the kernels it proved:
    a pipeline loop's drain still running when the next loop starts (PTO042) is a race or an
    event taken by the other loop, which the proof would have refused (study ux2: a barrier the
    warning asked for cost a proven kernel 22% of its cycles)."""
    if not any(d.code in codes.SETTLED_BY_PROOF and not d.is_error for d in diagnostics):
        return diagnostics  # (positions are computed on demand, over the whole file: only when needed)
    spans = [(span.start.line, span.end.line) for span in (src.span(k.node) for k in proven)]
    return [d for d in diagnostics if not (d.code in codes.SETTLED_BY_PROOF and not d.is_error
                                           and any(a <= d.line <= b for a, b in spans))]


def _analyse_loop(reporter: Reporter, lctx: LoopContext, preload: int, overlap_counter: list[int]):
    """Schedule, sync graph, plan and ctx ring of one loop, each judged by its rules;
    returns what emission needs, or None when an error stops the loop."""
    file, kernel, loop, result = lctx.file, lctx.kernel, lctx.loop, lctx.result
    sched = result.schedule = schedule_for([s.section for s in loop.stages], preload)
    before = reporter.error_count
    reporter.run("loop", lctx)
    if reporter.error_count != before:
        return None
    graph = result.graph = build_graph(kernel, loop, result.accesses, sched.delays)
    reporter.report_all(graph.findings)
    reporter.run("graph", lctx)
    if reporter.error_count != before:
        return None
    plan = result.plan = make_plan(kernel, loop, graph, overlap_counter, preload)
    reporter.report_all(plan.findings + forward_only_overwrites(kernel, loop, graph, plan, sched)
                        + outer_slot_overwrites(kernel, loop, sched))
    ctx = None
    if not sched.serial:
        ctx = result.ctx = plan_ctx(file, kernel, loop)
        reporter.report_all(ctx.findings)
    return loop, sched, plan, ctx


def _rewrite_kernels(module: cst.Module, file: FileModel, replacements: dict) -> cst.Module:
    """Apply the replacements to the kernels only; the rest of the module is never revisited."""
    if not replacements:
        return module
    kernels = {k.node for k in file.kernels}
    body = [stmt.visit(KernelRewriter(stmt, replacements, file.index)) if stmt in kernels else stmt
            for stmt in module.body]
    return module.with_changes(body=body)


def _preloads(kernel: Kernel, override: Override, is_default: bool = False) -> tuple:
    """The kernel's preloads: its own, or the override; a project default gives way to `sync_only=True`."""
    if override is None or (is_default and kernel.preload.sync_only):
        return kernel.preload.values or ()
    if isinstance(override, int):
        return (override,)
    return tuple(override)


def _python_refuses(path: str, err: SyntaxError | ValueError):
    """What Python's parser or compiler refuses (never run), in its own words ("Perhaps you
    forgot a comma?"), placed where Python places it: besides syntax, what only the compiler
    sees (a duplicate parameter, `break` outside a loop, a repeated keyword argument,
    `nonlocal` without a binding), which libcst accepts."""
    rule = registry()[codes.SYNTAX_ERROR]
    if not isinstance(err, SyntaxError) or not err.lineno:
        return rule.diagnostic({"detail": str(err) if not isinstance(err, SyntaxError) else err.msg}, path, 1, 1)
    line, col = err.lineno, max(1, err.offset or 1)
    end_line, end_col = err.end_lineno or line, err.end_offset or col + 1
    if (end_line, end_col) <= (line, col):
        end_line, end_col = line, col + 1
    return rule.diagnostic({"detail": err.msg}, path, line, col, end_line, end_col)


def too_complex_diagnostic(path: str, exc: BaseException):
    """The PTO097 diagnostic for a TooComplex (or a RecursionError that got past the limits)."""
    rule = registry()[codes.INPUT_TOO_COMPLEX]
    if isinstance(exc, TooComplex):
        detail, line, column = exc.message, exc.line, exc.column
    else:
        detail, line, column = "it nests too deeply for Python's recursion limit", 1, 1
    return rule.diagnostic({"detail": detail}, path, line, column)


def _add_pl_import(module: cst.Module) -> cst.Module:
    """The output needs `pl.system...`; a file that only imports names from pl gets the module too."""
    stmt = cst.parse_statement("import pypto_pro.language as pl\n")
    body = list(module.body)
    last_import = max((i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine)
                       and any(isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body)), default=-1)
    body.insert(last_import + 1, stmt)
    return module.with_changes(body=body)
