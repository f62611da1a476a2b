"""`pto-transpile`: the command line. Thin: parse flags, call `transpile`, render, write, exit.

Exit status: 0 clean (warnings allowed); 1 errors found, `--simulate` found the pipelined
kernel wrong, or `--check` found that the `-o` file is missing or differs from what would be
generated; 2 usage error, unreadable input, unwritable output, or an internal error. A
closed stdout (`| head -1`) ends the run quietly with 141, as SIGPIPE ends Unix tools.

Whenever stdout carries data (the code with `-o -`, or json/sarif/github diagnostics),
everything else (tables, notes, "wrote" lines) goes to stderr.
"""

from __future__ import annotations

import difflib
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import click
from click.core import ParameterSource

from pto_transpile import __version__, codes
from pto_transpile.api import Selection, transpile
from pto_transpile.config import load_defaults
from pto_transpile.diagnostics import Diagnostic, InternalError
from pto_transpile.files import Unreadable, cpu_count, transpile_files
from pto_transpile.preload import Auto, check_preload, parse_preload
from pto_transpile.render import RENDERERS
from pto_transpile.rules import registry
from pto_transpile.rules.base import unfilled
from pto_transpile.write import RefusedWrite, check_target, default_output, write_output

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2
EXIT_STDOUT_CLOSED = 128 + 13  # what a shell reports for a process ended by SIGPIPE
REPORT_HINT = "this is a bug in pto-transpile; please report it with the input file"
#: Options that only mean something with --simulate (click parameter name -> flag).
SIMULATE_ONLY = {"seed": "--seed", "block_dim": "--block-dim", "shapes": "--shape", "scalars": "--arg",
                 "timeline": "--timeline", "report": "--report", "gantt": "--gantt"}


@dataclass(frozen=True)
class Run:
    """One invocation's settings, after defaults from pyproject.toml are applied."""

    files: tuple[Path, ...]
    preload: object
    output: str | None
    check: bool
    show_diff: bool
    fmt: str
    select: list[str]
    ignore: list[str]
    provenance: bool
    simulate: bool
    seed: int
    block_dim: int
    shapes: tuple[str, ...]
    scalars: tuple[str, ...]
    timeline: Path | None
    jobs: int = 1
    report: Path | None = None
    gantt: bool = False

    @property
    def simulates(self) -> bool:
        """--simulate, or a picture (--report, --gantt) of the kernel --preload auto chose."""
        return self.simulate or (isinstance(self.preload, Auto) and (self.report is not None or self.gantt))

    @property
    def to_stdout(self) -> bool:
        return self.output == "-"

    @property
    def notes_stream(self):
        """Where tables and notes go: stderr whenever stdout carries data."""
        return sys.stderr if self.to_stdout or self.fmt != "text" else sys.stdout


def _codes(values) -> list[str]:
    if isinstance(values, str):
        values = [values]
    out = []
    for v in values or ():
        out += [c.strip() for c in str(v).split(",") if c.strip()]
    return out


def _tool_diagnostic(code: str, path: Path, detail: str) -> Diagnostic:
    """PTO002/PTO098: a problem of a file as a whole (position 1:1), not of its contents."""
    return registry()[code].diagnostic({"path": str(path), "detail": detail}, str(path), 1, 1, 1, 1)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="pto-transpile", message="%(prog)s %(version)s")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--preload", "preload", default=None, help="N (all loops), N,M,... (one per pipeline loop) or auto "
                                                         "(fewest simulated cycles); overrides the kernel's "
                                                         "PipelineConfig.")
@click.option("-o", "--output", "output", default=None, help="Output file, or '-' for stdout. Default: "
                                                             "build/<stem>/pipeline_generated.py.")
@click.option("--check", is_flag=True, help="Report problems and write nothing (with -o: exit 1 if that file is "
                                            "missing or out of date).")
@click.option("--diff", "show_diff", is_flag=True, help="Print what writing would change instead of writing (against "
                                                        "the -o file, else against the input).")
@click.option("--format", "fmt", type=click.Choice(sorted(RENDERERS)), default=None, help="Diagnostic format (default: "
                                                                                          "text).")
@click.option("--select", multiple=True, help="Only report these codes (comma-separated; prefixes allowed).")
@click.option("--ignore", multiple=True, help="Do not report these codes (comma-separated; prefixes allowed).")
@click.option("--explain", "explain", metavar="CODE", default=None, help="Print the documentation of a rule and exit.")
@click.option("--provenance", is_flag=True, help="Print why each inserted sync is there (edge, producer and consumer "
                                                 "lines).")
@click.option("--simulate", is_flag=True, help="Run serial and generated kernel on the emulated NPU and compare; "
                                               "nothing is written when they differ.")
@click.option("--seed", default=0, show_default=True, help="Input seed for --simulate.")
@click.option("--block-dim", default=1, show_default=True, help="Blocks for --simulate.")
@click.option("--shape", "shapes", multiple=True, metavar="NAME=D0xD1", help="Tensor shape override for --simulate.")
@click.option("--arg", "scalars", multiple=True, metavar="NAME=VALUE", help="Value of a scalar kernel parameter for "
                                                                            "--simulate.")
@click.option("--timeline", type=click.Path(path_type=Path), default=None, help="Write a Chrome/Perfetto trace of the "
                                                                                "generated kernel (--simulate).")
@click.option("--report", type=click.Path(path_type=Path), default=None, metavar="FILE.html",
              help="Write one self-contained HTML page: serial and pipelined timelines per pipeline loop, the bound, "
                   "the --preload auto candidates, the diagnostics and the diff (--simulate or --preload auto).")
@click.option("--gantt", is_flag=True, help="Draw the serial and pipelined runs in the terminal, a row per core "
                                            "(--simulate or --preload auto).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Files transpiled at once (default: the "
                                                                             "number of CPUs); output stays in file "
                                                                             "order.")
@click.pass_context
def main(ctx, files, preload, output, check, show_diff, fmt, select, ignore, explain, provenance, simulate, seed,
         block_dim, shapes, scalars, timeline, report, gantt, jobs):
    """Turn a serial cube/vector PyPTO kernel FILE into a pipelined kernel, with every sync inserted."""
    try:
        if explain:
            code = _explain(explain)
        else:
            run = _settings(files, preload, output, check, show_diff, fmt, select, ignore, provenance, simulate,
                            seed, block_dim, shapes, scalars, timeline, jobs)
            run = _pictures(run, report, gantt)
            auto = isinstance(run.preload, Auto)
            for name, flag in SIMULATE_ONLY.items():
                allowed = simulate or (auto and name != "timeline")
                if not allowed and ctx.get_parameter_source(name) is not ParameterSource.DEFAULT:
                    raise click.UsageError(f"{flag} only applies with --simulate" + ("" if name == "timeline" else
                                                                                     " or --preload auto"))
            code = _main(run)
    except click.UsageError:
        raise
    except BrokenPipeError:
        code = _stdout_closed()
    except InternalError as exc:
        click.echo(f"pto-transpile: internal error: {exc}\nhint: {REPORT_HINT}", err=True)
        code = EXIT_USAGE
    except Exception as exc:  # never a traceback for the user
        click.echo(f"pto-transpile: internal error: {type(exc).__name__}: {exc}\nhint: {REPORT_HINT}", err=True)
        code = EXIT_USAGE
    ctx.exit(code)


def _stdout_closed() -> int:
    """The reader of stdout went away: stop quietly, and keep Python's exit-time flush of
    the dead pipe from printing an error of its own."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a file descriptor (a test runner's buffer): nothing to flush
    return EXIT_STDOUT_CLOSED


def _settings(files, preload, output, check, show_diff, fmt, select, ignore, provenance, simulate, seed,
              block_dim, shapes, scalars, timeline, jobs=None) -> Run:
    if not files:
        raise click.UsageError("no input file given (try: pto-transpile kernel.py --preload 2)")
    try:
        defaults, _ = load_defaults(files[0].parent if files[0].parent.exists() else Path.cwd())
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        preload = parse_preload(preload) if preload is not None else _default_preload(defaults.get("preload"))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--preload") from None
    if isinstance(preload, Auto):  # the simulated runs that choose take --simulate's settings
        from pto_transpile.simulate import parse_scalars, parse_shapes

        preload = Auto(seed, block_dim, parse_shapes(shapes), parse_scalars(scalars))
    fmt = fmt or defaults.get("format", "text")
    if fmt not in RENDERERS:
        raise click.UsageError(f"unknown format {fmt!r} in pyproject.toml")
    select = _codes(select) or _codes(defaults.get("select", []))
    ignore = _codes(ignore) or _codes(defaults.get("ignore", []))
    try:
        Selection.parse(select, ignore)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    output = output or defaults.get("output")
    if output and len(files) > 1:
        raise click.UsageError("-o/--output takes one input file; run once per file")
    if output == "-" and show_diff:
        raise click.UsageError("--diff prints a diff, -o - prints the code: choose one")
    if output and output != "-":
        try:
            check_target(Path(output), input_path=files[0])
        except RefusedWrite as exc:
            raise click.UsageError(str(exc)) from None
    if timeline is not None and timeline.is_dir():
        raise click.UsageError(f"--timeline: {timeline} is a directory; give a file name")
    if not (output or check or show_diff):
        by_target: dict[Path, Path] = {}
        for path in files:
            other = by_target.setdefault(default_output(path), path)
            if other != path:
                raise click.UsageError(f"{other} and {path} would both be written to {default_output(path)}; "
                                       "run them separately with -o")
    return Run(tuple(files), preload, output, check, show_diff, fmt, select, ignore, provenance, simulate, seed,
               block_dim, tuple(shapes), tuple(scalars), timeline, jobs or cpu_count())


def _pictures(run: Run, report: Path | None, gantt: bool) -> Run:
    """`run` with --report and --gantt, which draw one file's simulated runs."""
    if report is not None:
        if len(run.files) > 1:
            raise click.UsageError("--report takes one input file; run once per file")
        if report.is_dir():
            raise click.UsageError(f"--report: {report} is a directory; give a file name")
    return replace(run, report=report, gantt=gantt)


def _default_preload(value):
    """`preload` from pyproject.toml: an int, a list, or the command line's "N,M" text."""
    return parse_preload(value) if isinstance(value, str) else check_preload(value)


def _main(run: Run) -> int:
    diagnostics: list[Diagnostic] = []
    sources: dict[str, str] = {}
    status = EXIT_OK
    notes = run.notes_stream
    if run.simulate and run.timeline is not None and not run.timeline.resolve().parent.is_dir():
        diagnostics.append(_tool_diagnostic(codes.UNWRITABLE_OUTPUT, run.timeline, f"directory {run.timeline.parent} "
                                                                                   "does not exist"))
        _emit_diagnostics(diagnostics, sources, run)
        return EXIT_USAGE
    # --provenance and --simulate read the whole result (syntax trees) and --preload auto
    # prints as it goes: those runs stay in this process; any other may spread its files
    jobs = 1 if run.provenance or run.simulates or isinstance(run.preload, Auto) else run.jobs
    options = (run.preload, tuple(run.select), tuple(run.ignore))
    outcomes = transpile_files(run.files, options, jobs, transpile)
    for path, outcome in zip(run.files, outcomes, strict=True):
        if isinstance(outcome, Unreadable):
            diagnostics.append(_tool_diagnostic(codes.UNREADABLE_FILE, path, outcome.reason))
            status = EXIT_USAGE
            continue
        text, result = outcome
        sources[str(path)] = text
        if result.preload_choice is not None:
            click.echo(f"{path}:\n{result.preload_choice.render()}", nl=False, file=notes)
        diagnostics += result.diagnostics
        if any(d.code == codes.INTERNAL_ERROR for d in result.diagnostics):
            status = EXIT_USAGE
            continue
        if not result.ok:
            status = max(status, EXIT_ERRORS)
            problem = _report(run, path, text, result, None) if run.report is not None else None
            if problem is not None:
                diagnostics.append(problem)
                status = EXIT_USAGE
            if result.hidden_errors:
                click.echo(f"pto-transpile: {path}: {result.hidden_errors} error(s) not shown (filtered by "
                           "--select/--ignore); nothing was written", file=notes)
            continue
        code = result.code
        assert code is not None  # no error: the kernel was written
        if run.provenance:
            from pto_transpile.provenance import explain_syncs, render_provenance

            click.echo(render_provenance(explain_syncs(result)), nl=False, file=notes)
        target = None if run.to_stdout else (Path(run.output) if run.output else default_output(path))
        if run.simulates:
            problem, failed = _simulate(run, path, text, result, target)
            if problem is not None:
                diagnostics.append(problem)
                status = max(status, EXIT_USAGE)
                continue
            if failed:
                status = max(status, EXIT_ERRORS)
                if not (run.check or run.show_diff):
                    click.echo(f"pto-transpile: {path}: the simulation failed; "
                               f"{target if target is not None else 'the code'} was not written (run without "
                               "--simulate to write it and read the lines the report names)", file=notes)
                continue
        if run.show_diff:
            status = max(status, _diff(run, path, text, code, target))
            continue
        if run.check:
            if run.output and target is not None:
                stale = _staleness(target, code)
                if stale:
                    click.echo(f"{target} {stale} (pto-transpile would change it)", err=True)
                    status = max(status, EXIT_ERRORS)
            continue
        if target is None:
            click.echo(code, nl=False)
            continue
        try:
            write_output(target, code, input_path=path)
        except RefusedWrite as exc:
            raise click.UsageError(str(exc)) from None
        except OSError as exc:
            diagnostics.append(_tool_diagnostic(codes.UNWRITABLE_OUTPUT, target, exc.strerror or str(exc)))
            status = max(status, EXIT_USAGE)
            continue
        click.echo(f"wrote {target}", file=notes)
    _emit_diagnostics(diagnostics, sources, run)
    return status


def _current(target: Path) -> str | None:
    """The text now in `target`, or None when there is none (or it cannot be read as text)."""
    try:
        return target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _staleness(target: Path, code: str) -> str:
    """Why `target` is out of date ("" when it is current)."""
    if not target.exists():
        return "does not exist"
    current = _current(target)
    if current is None:
        return "cannot be read"
    return "" if current == code else "is out of date"


def _diff(run: Run, path: Path, text: str, code: str, target: Path | None) -> int:
    """Print the change writing would make; with --check, 1 when the -o file would change."""
    if run.output and target is not None:
        before, name = _current(target) or "", str(target)
    else:
        before, name = text, str(path)
    click.echo("".join(difflib.unified_diff(before.splitlines(keepends=True), code.splitlines(keepends=True),
                                            fromfile=name, tofile=f"{name} (pipelined)")), nl=False)
    if run.check and run.output and target is not None and (before != code or not target.exists()):
        return EXIT_ERRORS
    return EXIT_OK


def _emit_diagnostics(diagnostics, sources, run: Run) -> None:
    if not diagnostics:
        return
    stream = sys.stderr if run.to_stdout else sys.stdout
    if run.fmt == "text":
        from rich.console import Console

        color = stream.isatty()
        rendered = RENDERERS["text"](diagnostics, sources, color=color)
        if color:
            Console(file=stream, highlight=False, soft_wrap=True).print(rendered, end="")
        else:
            stream.write(rendered)
        return
    stream.write(RENDERERS[run.fmt](diagnostics, sources))


def _explain(code: str) -> int:
    rules = registry()
    wanted = code.strip().upper()
    rule = rules.get(wanted) or next((r for r in rules.values() if r.name == code.strip().lower()), None)
    if rule is None:
        raise click.UsageError(f"unknown rule {code!r}; codes run from {min(rules)} to {max(rules)}")
    click.echo(f"{rule.code} {rule.name}: {rule.title}\n")
    click.echo(f"severity: {rule.severity.value}")
    if rule.seed:
        click.echo(f"constraint: {rule.seed}")
    click.echo(f"message: {unfilled(rule.message)}\nhint: {rule.help_text}\n")
    if rule.doc:
        click.echo(rule.doc.strip() + "\n")
    return EXIT_OK


def _simulate(run: Run, path: Path, serial: str, result, target: Path | None) -> tuple[Diagnostic | None, bool]:
    """(an unwritable --timeline or --report, whether the simulation failed)."""
    from pto_transpile.simulate import simulate_and_report

    generated_name = str(target) if target is not None else "<stdout>"
    try:
        outcome = simulate_and_report(path, serial, result, generated_path=generated_name, seed=run.seed,
                                      block_dim=run.block_dim, shapes=run.shapes, timeline=run.timeline,
                                      scalars=run.scalars, stream=run.notes_stream, gantt=run.gantt)
    except OSError as exc:
        if run.timeline is None:
            raise
        return _tool_diagnostic(codes.UNWRITABLE_OUTPUT, run.timeline, exc.strerror or str(exc)), True
    problem = _report(run, path, serial, result, outcome) if run.report is not None else None
    return problem, outcome.failed


def _report(run: Run, path: Path, text: str, result, outcome) -> Diagnostic | None:
    """Write --report; the problem when it cannot be written."""
    from pto_transpile.report import render_report

    assert run.report is not None
    page = render_report(str(path), text, result.code, RENDERERS["text"](result.diagnostics, {str(path): text}),
                         outcome.kernels if outcome is not None else [], result.preload_choice)
    try:
        run.report.write_text(page, encoding="utf-8")
    except OSError as exc:
        return _tool_diagnostic(codes.UNWRITABLE_OUTPUT, run.report, exc.strerror or str(exc))
    click.echo(f"report written to {run.report}", file=run.notes_stream)
    return None


if __name__ == "__main__":  # pragma: no cover
    main()
