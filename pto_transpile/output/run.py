"""One run of the command: each file's result reported, then simulated, compared with its
`-o` file or written, in the order the files were given; the exit status.

Exit status: 0 clean (warnings allowed); 1 errors found, `--simulate` found the pipelined
kernel wrong, or `--check` found that the `-o` file is missing or differs from what would be
generated; 2 unreadable input, unwritable output, or an internal error (a usage error is
click's, also 2).

The report goes to stdout, in any format, unless stdout carries the code (`-o -`, or standard
input without `-o` and a text report) or a diff (--diff): then to stderr. Whenever stdout
carries data (the code, a diff, or json/sarif/github diagnostics), everything else (tables,
notes, "wrote" lines) goes to stderr. Each file's report is
printed when that file is done, in the order the files were given.
"""

from __future__ import annotations

import difflib
import errno
import re
import sys
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

import click

from pto_transpile import codes, driver
from pto_transpile.diagnostics import Diagnostic, Related
from pto_transpile.output.files import Unreadable, transpile_files
from pto_transpile.output.proof_status import status_for
from pto_transpile.output.refusal import Refused
from pto_transpile.output.render import Sink, renderer
from pto_transpile.output.render.hidden import hidden_words
from pto_transpile.output.settings import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, Run
from pto_transpile.output.stale import current_text, staleness
from pto_transpile.output.write import RefusedWrite, foreign, holds_already, marked_output, same_file, write_output
from pto_transpile.preload import Auto
from pto_transpile.read.discover import Input
from pto_transpile.results import warnings_as_errors
from pto_transpile.rules import registry
from pto_transpile.simulate.provenance import explain_syncs, render_provenance
from pto_transpile.soundness import parallel, progress


def _tool_diagnostic(code: str, path: str, detail: str, line: int = 1, **fields) -> Diagnostic:
    """A problem of a file as a whole, or of the run (PTO002, PTO094, PTO095, PTO098)."""
    return registry()[code].diagnostic({"path": path, "detail": detail, **fields}, path, line, 1, line, 1)


def _unwritable(path: Path, exc: OSError) -> Diagnostic:
    """PTO098 for `path`, with the help that fits why the write failed."""
    detail, hint = exc.strerror or str(exc), None
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        hint = "space"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        hint = "access"
    elif exc.errno == errno.ENOENT and path.exists():  # the temporary file of an atomic write (a file in /proc)
        detail, hint = f"no new file can be created in {path.resolve().parent} ({detail})", "new-file"
    elif exc.errno == errno.ENOENT and not path.parent.is_dir():
        hint = "no-directory"
    fields: dict[str, str] = {"_hint": hint} if hint else {}
    return _tool_diagnostic(codes.UNWRITABLE_OUTPUT, str(path), detail, 1, **fields)


def _unreadable(reason: str) -> str:
    """Which help fits why a file could not be read (PTO002's `hints`)."""
    return "missing" if reason == "no such file" else "size" if "bytes" in reason else \
        "encoding" if reason.startswith("not UTF-8") else "access"


def run_files(run: Run) -> int:
    """Every input of `run`, in order; the exit status."""
    sink = Sink(run.fmt, run.diagnostics_stream, run.color)
    if run.simulate and run.timeline is not None and not run.timeline.resolve().parent.is_dir():
        sink.file([_tool_diagnostic(codes.UNWRITABLE_OUTPUT, str(run.timeline),
                                    f"directory {run.timeline.parent} does not exist", _hint="no-directory")], {})
        sink.close()
        return EXIT_USAGE
    texts, shares = _shares(run)  # a --shape or --arg no kernel takes is a usage error before anything runs
    # --provenance and --simulate read the whole result (syntax trees) and --preload auto
    # prints as it goes: those runs stay in this process; any other may spread its files
    jobs = 1 if run.provenance or run.simulates or isinstance(run.preload, Auto) else run.jobs
    options = (run.preload, tuple(run.select), tuple(run.ignore), run.preload_is_default)
    status = EXIT_OK
    # a file transpiled in this process may judge the runs of a long proof on `run.jobs`
    # processes (files spread over workers judge theirs there, one process each); on a
    # terminal, a proof that takes a while shows how far it has come
    line = status_for(sys.stderr)
    try:
        with parallel.proof_jobs(run.jobs), progress.listening(line) if line else nullcontext():
            outcomes = transpile_files(run.inputs, options, jobs, _launch(run, shares), texts)
            for item, target, outcome in zip(run.inputs, run.targets, outcomes, strict=True):
                status = max(status, _one_file(_scoped(run, shares, item.name), item, target, outcome, sink))
    finally:
        if line:
            line.erase()
    status = max(status, _orphans(run, sink))
    sink.close()
    return status


def _orphans(run: Run, sink: Sink) -> int:
    """The outputs of no input under the folders the run's directories mirror (`orphans`): with
    --check, a PTO094 record each (exit status 1), otherwise a note each (study ux3: a renamed
    kernel left its old output behind, and --check said nothing)."""
    if not run.mirrors:
        return EXIT_OK
    from pto_transpile.output.orphans import orphans

    status = EXIT_OK
    for path, source in orphans(run.mirrors, run.targets):
        status = max(status, _stale_output(run, sink, path, str(source), "orphan",
                                           "which does not exist (renamed, moved or deleted?): delete it, or restore "
                                           "its input"))
    return status


def _stale_output(run: Run, sink: Sink, path: Path, source: str, kind: str, note: str) -> int:
    """An output of pto-transpile at `path` that no input produces now (`kind`, PTO094's message
    for it: its input `source` is gone, or holds no kernel): with --check a PTO094 (exit status
    1), otherwise a note saying `note` of the input."""
    if not run.check:
        click.echo(f"note: {path} is pto-transpile's output of `{source}`, {note}", file=run.notes_stream)
        return EXIT_OK
    sink.file([_tool_diagnostic(codes.OUTPUT_OUT_OF_DATE, str(path), "", 1, input=source, _message=kind,
                                _hint="orphan")], {})
    return EXIT_ERRORS


def _shares(run: Run) -> tuple[list | None, dict[str, tuple[tuple[str, ...], tuple[str, ...]]]]:
    """The inputs' texts and, per input name, its share of --shape and --arg (`compare.share`),
    when several files are simulated with such values; (None, {}) otherwise: one file takes
    them all, and its own checks say what does not fit."""
    if not (run.simulate or isinstance(run.preload, Auto)) or len(run.inputs) < 2 or not (run.shapes or run.scalars):
        return None, {}
    from pto_transpile.output.files import read_all
    from pto_transpile.simulate.compare import Takes, share, takes

    texts = read_all(run.inputs)
    files = [takes(text, item.name) if isinstance(text, str) else Takes(item.name, frozenset(), frozenset())
             for item, text in zip(run.inputs, texts, strict=True)]
    return texts, dict(zip((item.name for item in run.inputs), share(files, run.shapes, run.scalars), strict=True))


def _scoped(run: Run, shares: dict, name: str) -> Run:
    """`run` with the --shape and --arg values of input `name` alone."""
    if name not in shares:
        return run
    shapes, scalars = shares[name]
    if isinstance(run.preload, Auto):
        from pto_transpile.simulate.compare import parse_scalars, parse_shapes

        run = replace(run, preload=replace(run.preload, shapes=parse_shapes(shapes), scalars=parse_scalars(scalars)))
    return replace(run, shapes=shapes, scalars=scalars)


def _launch(run: Run, shares: dict):
    """What transpiles each file: `--preload auto` chooses on the emulator (the one path that
    runs the kernel file's Python); --simulate first makes its usage checks on the file
    (`check_before_transpiling`), so that a mistake in --shape or --arg is said before the proof."""
    if not (run.simulate or isinstance(run.preload, Auto)):
        return driver.transpile

    def transpile(source: str, **options):
        path = options.get("path") or "<string>"
        scoped = _scoped(run, shares, path)
        if isinstance(scoped.preload, Auto):
            from pto_transpile.simulate.autopreload import transpile_choosing

            return transpile_choosing(source, **{**options, "preload": scoped.preload})
        from pto_transpile.simulate.compare import check_before_transpiling  # --simulate loads the emulator anyway

        check_before_transpiling(source, path, scoped.shapes, scoped.scalars, run.block_dim)
        return driver.transpile(source, **options)

    return transpile


def _one_file(run: Run, item: Input, target: Path | None, outcome, sink: Sink) -> int:
    """Report, simulate, compare or write one input; its exit status."""
    notes = run.notes_stream
    if isinstance(outcome, Unreadable):
        reason = outcome.reason
        sink.file([_tool_diagnostic(codes.UNREADABLE_FILE, item.name, reason, _hint=_unreadable(reason))], {})
        return EXIT_USAGE
    text, result = outcome
    if run.warnings_as_errors:
        result = warnings_as_errors(result)
    if item.walked and _nothing_to_do(result):
        # a Python file without a kernel, found by walking a directory; an output pto-transpile
        # wrote for it when it had one is stale (ux3 review: it was never mentioned again)
        return _left_behind(run, item, target, sink)
    sources = {item.name: text}
    if result.preload_choice is not None:
        click.echo(f"{item.name}:\n{result.preload_choice.render()}", nl=False, file=notes)
    sink.file(result.diagnostics, sources)
    for kernel in result.sync_only_overridden:
        click.echo(f"note: {item.name}: kernel `{kernel}` is marked PipelineConfig(sync_only=True); --preload "
                   f"{_preload_text(run.preload)} overrides it", file=run.notes_stream)
    if any(d.code == codes.INTERNAL_ERROR for d in result.diagnostics):
        return EXIT_USAGE
    if not result.ok:
        status = EXIT_ERRORS
        for kernel, own in result.preload_overridden:
            click.echo(f"note: {item.name}: kernel `{kernel}` was checked at preload {_preload_text(run.preload)} "
                       f"({_preload_source(run)}), not {_own_preload(own)}", file=notes)
        if run.report is not None and not _report(run, item, text, result, None, sink):
            status = EXIT_USAGE
        if result.hidden_errors:
            click.echo(f"pto-transpile: {item.name}: {hidden_words(result.hidden_errors)}", file=notes)
            sink.blocked(item.name, result.hidden_errors)
        return status
    if target is not None and _nothing_to_do(result):
        # a file named on the command line holds no kernel: nothing is written, so that a helper
        # module never lands as a `pipeline_generated.py` (over a kernel's, probe h91)
        if not run.check:
            click.echo(f"{item.name}: no kernel to pipeline; nothing written", file=notes)
        return _left_behind(run, item, target, sink)
    code = result.code
    assert code is not None  # no error: the kernel was written
    if run.provenance:
        click.echo(render_provenance(explain_syncs(result)), nl=False, file=notes)
    if run.simulates:
        status = _simulate(run, item, text, result, target, sink)
        if status != EXIT_OK:
            return status
    if run.show_diff:
        return _diff(run, item, text, code, target, sink)
    if run.check or (target is None and not run.to_stdout):  # stdout carries the report, not the code
        return _check_output(run, item, code, target, sink)
    return _write(run, item, code, target, sink)


def _preload_source(run: Run) -> str:
    """Where the run's preload came from, for a note beside a report of errors."""
    given = _preload_text(run.preload)
    return f"`preload = {given}` in [tool.pto-transpile] of pyproject.toml" if run.preload_is_default \
        else f"`--preload {given}`"


def _own_preload(own: str) -> str:
    """A kernel's own `pipeline=` as written (`TranspileResult.preload_overridden`), for a note."""
    if not own:  # (probe h255: a `pipeline=` inside `**OPTS` was said not to be there)
        return "at none of its own (its decorator gives no `pipeline=` the check reads)"
    # on one line, without its comments (probe h255: a multi-line config was quoted as written)
    one_line = " ".join(re.sub(r"#[^\n]*", "", own).split()).replace("( ", "(").replace(" )", ")").replace(",)", ")")
    return f"at its own `{one_line.removeprefix('pl.pipeline.').removeprefix('pipeline.')}`"


def _preload_text(preload) -> str:
    """The preload as `--preload` takes it."""
    if isinstance(preload, Auto):
        return "auto"
    return ",".join(map(str, preload)) if isinstance(preload, tuple) else str(preload)


def _left_behind(run: Run, item: Input, target: Path | None, sink: Sink) -> int:
    """An output pto-transpile wrote at `target` for `item`, which holds no kernel now: with
    --check a PTO094 (exit status 1), otherwise a note."""
    if target is None or not marked_output(target):
        return EXIT_OK
    return _stale_output(run, sink, target, item.name, "no-kernel", "which holds no kernel to pipeline now: delete it")


def _nothing_to_do(result) -> bool:
    """No kernel in the file (the note says so, whether --select/--ignore shows it or not)."""
    found = result.diagnostics + result.hidden
    return bool(found) and all(d.code == codes.NO_KERNEL for d in found)


def _write(run: Run, item: Input, code: str, target: Path | None, sink: Sink) -> int:
    if target is None:
        click.echo(code, nl=False)
        return EXIT_OK
    if holds_already(target, code) and not (not item.is_stdin and same_file(target, item.path)):
        if not run.quiet:
            click.echo(f"unchanged {target}", file=run.notes_stream)
        return EXIT_OK
    try:
        write_output(target, code, input_path=None if item.is_stdin else item.path)
    except RefusedWrite as exc:
        raise Refused(str(exc)) from None
    except OSError as exc:
        sink.file([_unwritable(target, exc)], {})
        return EXIT_USAGE
    if not run.quiet:
        click.echo(f"wrote {target}", file=run.notes_stream)
    return EXIT_OK


def _check_output(run: Run, item: Input, code: str, target: Path | None, sink: Sink) -> int:
    """`--check -o`: a PTO094 record when the output file is missing or out of date."""
    if not (run.output and target is not None):
        return EXIT_OK
    stale = staleness(target, code)
    if stale is None:
        return EXIT_OK
    detail, line, current = stale
    which: dict[str, str] = {"_message": "missing", "_hint": "missing"} if not target.exists() else \
        {"_hint": "foreign"} if foreign(target, None if item.is_stdin else item.path) else {}
    # the input is named, and a place of its own: what a pull request changed (study ux3)
    source = Related("the input it is generated from", 1, 1, item.name)
    out = registry()[codes.OUTPUT_OUT_OF_DATE].diagnostic({"path": str(target), "detail": detail,
                                                           "input": item.name, **which},
                                                          str(target), line, 1, line, 1, (source,))
    sink.file([out], {str(target): current} if current else {})
    return EXIT_ERRORS


def _diff(run: Run, item: Input, text: str, code: str, target: Path | None, sink: Sink) -> int:
    """Print the change writing would make; with --check, 1 (and a PTO094 record) when the
    -o file would change."""
    if run.output and target is not None:
        before, name = current_text(target) or "", str(target)
    else:
        before, name = text, item.name
    click.echo("".join(difflib.unified_diff(before.splitlines(keepends=True), code.splitlines(keepends=True),
                                            fromfile=name, tofile=f"{name} (pipelined)")), nl=False)
    if run.check:
        return _check_output(run, item, code, target, sink)
    return EXIT_OK


def _simulate(run: Run, item: Input, serial: str, result, target: Path | None, sink: Sink) -> int:
    """Run the emulator (and draw --report/--gantt); a PTO095 record per kernel it finds
    wrong (exit 1), PTO098 for an unwritable --timeline or --report (exit 2). A usage
    mistake of its options raises click.UsageError."""
    from pto_transpile.simulate.compare import simulate_and_report  # loads the emulator: only on request

    generated_name = str(target) if target is not None else "<stdout>"
    try:
        outcome = simulate_and_report(item.path, serial, result, generated_path=generated_name, seed=run.seed,
                                      block_dim=run.block_dim, shapes=run.shapes, timeline=run.timeline,
                                      scalars=run.scalars, stream=run.notes_stream, gantt=run.gantt,
                                      color=run.color if run.fmt == "text" else False)
    except OSError as exc:
        if run.timeline is None:
            raise
        sink.file([_unwritable(run.timeline, exc)], {})
        return EXIT_USAGE
    if run.report is not None and not _report(run, item, serial, result, outcome, sink):
        return EXIT_USAGE
    if not outcome.failures:
        return EXIT_OK
    written = "nothing was written" if run.check or run.show_diff else (
        f"{target if target is not None else 'the code'} was not written")
    sink.file([_tool_diagnostic(codes.SIMULATION_FAILED, item.name, f.verdict, f.line, what=f.what,
                                written=written) for f in outcome.failures], {item.name: serial})
    return EXIT_ERRORS


def _report(run: Run, item: Input, text: str, result, outcome, sink: Sink) -> bool:
    """Write --report; False (and a PTO098 record) when it cannot be written."""
    from pto_transpile.output.report import render_report


    assert run.report is not None
    page = render_report(item.name, text, result.code, renderer("text")(result.diagnostics, {item.name: text}),
                         outcome.kernels if outcome is not None else [], result.preload_choice)
    try:
        run.report.write_text(page, encoding="utf-8")
    except OSError as exc:
        sink.file([_unwritable(run.report, exc)], {})
        return False
    click.echo(f"report written to {run.report}", file=run.notes_stream)
    return True
