"""`pto-transpile`: the command line. Thin: parse flags, call `transpile`, render, write, exit.

Exit status: 0 clean (warnings allowed); 1 errors found, or `--check` found that an
existing `-o` file differs from what would be generated; 2 usage error, unreadable file,
or an internal error.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import click

from pto_transpile.api import Selection, transpile
from pto_transpile.config import load_defaults
from pto_transpile.diagnostics import Diagnostic, InternalError, Severity
from pto_transpile.render import RENDERERS
from pto_transpile.rules import registry
from pto_transpile.write import RefusedWrite, default_output, write_atomic

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2
INTERNAL_ERROR = "PTO099"
REPORT_HINT = "this is a bug in pto-transpile; please report it with the input file"


def _parse_preload(value):
    if value is None or isinstance(value, int):
        return value
    if isinstance(value, (list, tuple)):
        return list(value)
    parts = [p.strip() for p in str(value).split(",") if p.strip()]
    try:
        ints = [int(p) for p in parts]
    except ValueError:
        raise click.BadParameter(f"expected N or N,M,... (integers), got {value!r}", param_hint="--preload")
    if not ints:
        raise click.BadParameter("empty preload", param_hint="--preload")
    if any(i < 0 for i in ints):
        raise click.BadParameter(f"preload values must be >= 0, got {value!r}", param_hint="--preload")
    return ints[0] if len(ints) == 1 and "," not in str(value) else ints


def _codes(values) -> list[str]:
    if isinstance(values, str):
        values = [values]
    out = []
    for v in values or ():
        out += [c.strip() for c in str(v).split(",") if c.strip()]
    return out


def _read(path: Path) -> tuple[str | None, Diagnostic | None]:
    rule = registry()["PTO002"]
    try:
        data = path.read_bytes()
        return data.decode("utf-8"), None
    except FileNotFoundError:
        detail = "no such file"
    except IsADirectoryError:
        detail = "it is a directory"
    except UnicodeDecodeError as exc:
        detail = f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
    except OSError as exc:
        detail = exc.strerror or str(exc)
    message, hint = rule.format({"path": str(path), "detail": detail})
    return None, Diagnostic(rule.code, rule.name, Severity.ERROR, str(path), 1, 1, 1, 1, message, hint)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--preload", "preload", default=None, help="N (all loops) or N,M,... (one per pipeline loop); overrides the kernel's PipelineConfig.")
@click.option("-o", "--output", "output", default=None, help="Output file, or '-' for stdout. Default: build/<stem>/pipeline_generated.py.")
@click.option("--check", is_flag=True, help="Report problems and write nothing (with -o: exit 1 if that file is out of date).")
@click.option("--diff", "show_diff", is_flag=True, help="Print the unified diff between input and generated kernel instead of writing it.")
@click.option("--format", "fmt", type=click.Choice(sorted(RENDERERS)), default=None, help="Diagnostic format (default: text).")
@click.option("--select", multiple=True, help="Only report these codes (comma-separated; prefixes allowed).")
@click.option("--ignore", multiple=True, help="Do not report these codes (comma-separated; prefixes allowed).")
@click.option("--explain", "explain", metavar="CODE", default=None, help="Print the documentation of a rule and exit.")
@click.option("--provenance", is_flag=True, help="Print why each inserted sync is there (edge, producer and consumer lines).")
@click.option("--simulate", is_flag=True, help="Run serial and generated kernel on the emulated NPU and compare.")
@click.option("--seed", default=0, show_default=True, help="Input seed for --simulate.")
@click.option("--block-dim", default=1, show_default=True, help="Blocks for --simulate.")
@click.option("--shape", "shapes", multiple=True, metavar="NAME=D0xD1", help="Tensor shape override for --simulate.")
@click.option("--arg", "scalars", multiple=True, metavar="NAME=VALUE", help="Value of a scalar kernel parameter for --simulate.")
@click.option("--timeline", type=click.Path(path_type=Path), default=None, help="Write a Chrome/Perfetto trace of the generated kernel (--simulate).")
@click.pass_context
def main(ctx, files, preload, output, check, show_diff, fmt, select, ignore, explain, provenance, simulate, seed, block_dim, shapes, scalars, timeline):
    """Turn a serial cube/vector PyPTO kernel FILE into a pipelined kernel, with every sync inserted."""
    try:
        code = _main(files, preload, output, check, show_diff, fmt, select, ignore, explain,
                     simulate, seed, block_dim, shapes, timeline, provenance, scalars)
    except click.UsageError:
        raise
    except InternalError as exc:
        click.echo(f"pto-transpile: internal error: {exc}\nhint: {REPORT_HINT}", err=True)
        code = EXIT_USAGE
    except Exception as exc:  # never a traceback for the user
        click.echo(f"pto-transpile: internal error: {type(exc).__name__}: {exc}\nhint: {REPORT_HINT}", err=True)
        code = EXIT_USAGE
    ctx.exit(code)


def _main(files, preload, output, check, show_diff, fmt, select, ignore, explain, simulate, seed, block_dim, shapes, timeline,
          provenance=False, scalars=()) -> int:
    if explain:
        return _explain(explain)
    if not files:
        raise click.UsageError("no input file given (try: pto-transpile kernel.py --preload 2)")
    try:
        defaults, _ = load_defaults(files[0].parent if files[0].parent.exists() else Path.cwd())
    except ValueError as exc:
        raise click.UsageError(str(exc))
    preload = _parse_preload(preload if preload is not None else defaults.get("preload"))
    fmt = fmt or defaults.get("format", "text")
    if fmt not in RENDERERS:
        raise click.UsageError(f"unknown format {fmt!r} in pyproject.toml")
    select = _codes(select) or _codes(defaults.get("select", []))
    ignore = _codes(ignore) or _codes(defaults.get("ignore", []))
    try:
        Selection.parse(select, ignore)
    except ValueError as exc:
        raise click.UsageError(str(exc))
    output = output or defaults.get("output")
    if output and len(files) > 1:
        raise click.UsageError("-o/--output takes one input file; run once per file")
    if not (output or check or show_diff):
        by_target: dict[Path, Path] = {}
        for path in files:
            other = by_target.setdefault(default_output(path), path)
            if other != path:
                raise click.UsageError(f"{other} and {path} would both be written to {default_output(path)}; "
                                       "run them separately with -o")
    diagnostics: list[Diagnostic] = []
    sources: dict[str, str] = {}
    status = EXIT_OK
    to_stdout = output == "-"
    for path in files:
        text, problem = _read(path)
        if problem is not None:
            diagnostics.append(problem)
            status = EXIT_USAGE
            continue
        sources[str(path)] = text
        result = transpile(text, preload=preload, path=str(path), select=select, ignore=ignore)
        diagnostics += result.diagnostics
        if any(d.code == INTERNAL_ERROR for d in result.diagnostics):
            status = EXIT_USAGE
            continue
        if not result.ok:
            status = max(status, EXIT_ERRORS)
            if result.hidden_errors:
                click.echo(f"pto-transpile: {path}: {result.hidden_errors} error(s) not shown (filtered by "
                           "--select/--ignore); nothing was written", err=True)
            continue
        if provenance:
            from pto_transpile.provenance import explain_syncs, render_provenance

            click.echo(render_provenance(explain_syncs(result)), nl=False, err=to_stdout)
        if simulate:
            status = max(status, _simulate(path, text, result.code, seed, block_dim, shapes, timeline, scalars))
        if show_diff:
            click.echo("".join(difflib.unified_diff(
                text.splitlines(keepends=True), result.code.splitlines(keepends=True),
                fromfile=str(path), tofile=f"{path} (pipelined)")), nl=False)
            continue
        target = Path(output) if output and not to_stdout else default_output(path)
        if check:
            if output and not to_stdout and target.exists() and target.read_text(encoding="utf-8") != result.code:
                click.echo(f"{target} is out of date (pto-transpile would change it)", err=True)
                status = max(status, EXIT_ERRORS)
            continue
        if to_stdout:
            click.echo(result.code, nl=False)
            continue
        try:
            write_atomic(target, result.code, input_path=path)
        except RefusedWrite as exc:
            click.echo(f"pto-transpile: {exc}", err=True)
            return EXIT_USAGE
        click.echo(f"wrote {target}", err=fmt != "text")
    _emit_diagnostics(diagnostics, sources, fmt, to_stdout)
    return status


def _emit_diagnostics(diagnostics, sources, fmt, to_stdout) -> None:
    if fmt == "text":
        if not diagnostics:
            return
        from rich.console import Console

        stream = sys.stderr if to_stdout else sys.stdout
        color = stream.isatty()
        rendered = RENDERERS["text"](diagnostics, sources, color=color)
        if color:
            Console(file=stream, highlight=False, soft_wrap=True).print(rendered, end="")
        else:
            stream.write(rendered)
        return
    rendered = RENDERERS[fmt](diagnostics, sources)
    (sys.stderr if to_stdout else sys.stdout).write(rendered)


def _explain(code: str) -> int:
    rules = registry()
    wanted = code.strip().upper()
    rule = rules.get(wanted) or next((r for r in rules.values() if r.name == code.strip().lower()), None)
    if rule is None:
        raise click.UsageError(f"unknown rule {code!r}; codes run from PTO001 to {max(rules)}")
    click.echo(f"{rule.code} {rule.name}: {rule.title}\n")
    click.echo(f"severity: {rule.severity.value}")
    if rule.seed:
        click.echo(f"constraint: {rule.seed}")
    click.echo(f"message: {rule.message}\nhint: {rule.hint}\n")
    if rule.doc:
        click.echo(rule.doc.strip() + "\n")
    return EXIT_OK


def _simulate(path, serial, generated, seed, block_dim, shapes, timeline, scalars) -> int:
    from pto_transpile.simulate import simulate_and_report

    return simulate_and_report(path, serial, generated, seed=seed, block_dim=block_dim, shapes=shapes,
                               timeline=timeline, scalars=scalars)


if __name__ == "__main__":  # pragma: no cover
    main()
