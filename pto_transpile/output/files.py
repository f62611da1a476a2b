"""Many kernel files in one command: read and transpiled on every core, reported in order.

Each file is read and transpiled on its own, so files are spread over worker processes
(forked where the platform allows it: they start with everything imported). Results come
back in the order of the files whatever the number of workers, so the report, the files
written and the exit status do not depend on it. A worker returns what the report needs:
the text, the diagnostics and the generated code, not the syntax trees.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pto_transpile.driver import transpile
from pto_transpile.read.discover import Input
from pto_transpile.read.inputs import UnreadableInput, read_input, read_stdin
from pto_transpile.results import TranspileResult

#: (preload, select, ignore, preload_is_default), as `transpile` takes them.
Options = tuple



@dataclass(frozen=True)
class Unreadable:
    """A file that could not be read, and why."""

    reason: str


Outcome = Unreadable | tuple[str, TranspileResult]  #: the file's text and its result, or why it was not read


def cpu_count() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def transpile_files(inputs: tuple[Input | Path, ...], options: Options, jobs: int,
                    transpile: Callable[..., TranspileResult] = transpile,
                    texts: list[str | Unreadable | None] | None = None) -> Iterator[Outcome]:
    """One outcome per input, in their order; `jobs` > 1 uses that many processes. Standard
    input (`-`) is read here, in this process, before any worker starts; `texts` are the
    inputs' texts when the caller has read them already (`read_all`)."""
    items = [item if isinstance(item, Input) else Input(item) for item in inputs]
    if texts is None:
        texts = [_stdin_text() if item.is_stdin else None for item in items]
    jobs = min(jobs, len(items))
    if jobs <= 1:
        for item, text in zip(items, texts, strict=True):
            yield _one(item, text, options, transpile, slim=False)
        return
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    chunk = max(1, len(items) // (4 * jobs))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        n = len(items)
        yield from pool.map(_one, items, texts, [options] * n, [transpile] * n, [True] * n, chunksize=chunk)


def read_all(inputs: tuple[Input, ...]) -> list[str | Unreadable | None]:
    """Every input's text, or why it could not be read: for a run that looks at all the
    files before it transpiles any (what `--shape`/`--arg` name)."""
    return [_stdin_text() if item.is_stdin else _file_text(item.path) for item in inputs]


def _file_text(path: Path) -> str | Unreadable:
    try:
        return read_input(path)
    except UnreadableInput as exc:
        return Unreadable(str(exc))


def _stdin_text() -> str | Unreadable:
    try:
        return read_stdin()
    except UnreadableInput as exc:
        return Unreadable(str(exc))


def _one(item: Input, text: str | Unreadable | None, options: Options, transpile: Callable[..., TranspileResult],
         slim: bool) -> Outcome:
    preload, select, ignore, preload_is_default = options
    if isinstance(text, Unreadable):
        return text
    if text is None:
        text = _file_text(item.path)
        if isinstance(text, Unreadable):
            return text
    result = transpile(text, preload=preload, path=item.name, select=select, ignore=ignore,
                       preload_is_default=preload_is_default)
    if slim:  # what crosses back to the parent: no syntax trees
        result = TranspileResult(result.path, result.code, result.diagnostics, hidden=result.hidden,
                                 sync_only_overridden=result.sync_only_overridden,
                                 preload_overridden=result.preload_overridden)
    return text, result
