"""`--simulate`: run the serial kernel and the generated one on the emulated NPU and compare.

The transpiler itself never executes the user's file; this option does (through
sim_runtime), which is why it is opt-in. Reports on the generated kernel name the generated
file and its own line numbers, each followed by the input line it came from when that is
known. On a terminal the result is a table; elsewhere (CI logs, pipes) one plain line per
version, which no column width can wrap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import click
import libcst as cst

from pto_api.memory import integer_argument_fault
from pto_transpile.read.consteval import NotConstant
from pto_transpile.read.kinds import declared_int_type
from pto_transpile.read.model import SCALAR, TENSOR
from pto_transpile.read.pipelined import pipelined_as
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.read.walk import iter_nodes, parameters
from pto_transpile.simulate.isolated import in_child
from pto_transpile.simulate.pipeview import KernelView, bound_lines, kernel_view
from pto_transpile.simulate.provenance import LineOrigins
from pto_transpile.suggest import closest

PIPELINED = "pipelined"
#: a kernel pipelined by hand, run with hardware semantics against its own sequential run
AS_WRITTEN = "as written"


#: The most elements a tensor given by `--shape` may have: 2 ** 26, 256 MiB of fp32, where a
#: FlashAttention run at 32768 keys of 128 needs 4 Mi; the emulator's numpy arrays live in memory.
MAX_SHAPE_ELEMENTS = 2 ** 26


def parse_shapes(shapes) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}
    for item in shapes or ():
        name, _, dims = item.partition("=")
        if name.strip() in out:  # (probe h91: the last one won, and a mismatch became the kernel's fault)
            raise click.BadParameter(f"{name.strip()} is given twice", param_hint="--shape")
        try:
            out[name.strip()] = tuple(int(d) for d in dims.lower().split("x"))
        except ValueError:
            raise click.BadParameter(f"expected NAME=D0xD1, got {item!r}", param_hint="--shape") from None
        if not name.strip() or not out[name.strip()] or min(out[name.strip()]) < 0:
            # (a size of 0 is a launch too: no rows to work on, every loop over them empty)
            raise click.BadParameter(f"expected NAME=D0xD1 with sizes of 0 or more, got {item!r}",
                                     param_hint="--shape")
        elements = math.prod(out[name.strip()])
        if elements > MAX_SHAPE_ELEMENTS:  # (probe h217: numpy's MemoryError was blamed on the kernel, PTO095)
            raise click.BadParameter(f"{item} has {elements:,} elements, more than the emulator holds in this "
                                     f"machine's memory ({MAX_SHAPE_ELEMENTS:,} per tensor): give a smaller size",
                                     param_hint="--shape")
    return out


def check_block_dim(block_dim: int) -> None:
    """click.BadParameter (exit 2) for more blocks than the emulator launches: its memory grows
    with the square of the blocks, and the run would end with the machine out of memory,
    reported as an internal error (probe h217: `--block-dim 100000`)."""
    from sim_runtime.machine import MAX_BLOCK_DIM

    if block_dim > MAX_BLOCK_DIM:
        raise click.BadParameter(f"{block_dim} blocks are more than the emulator launches ({MAX_BLOCK_DIM}): it "
                                 "orders every pair of cores, so its memory grows with the square of the blocks; "
                                 f"give at most {MAX_BLOCK_DIM}",
                                 param_hint="--block-dim")


def parse_scalars(items) -> dict[str, int | float]:
    out: dict[str, int | float] = {}
    for item in items or ():
        name, _, value = item.partition("=")
        if name.strip() in out:
            raise click.BadParameter(f"{name.strip()} is given twice", param_hint="--arg")
        try:
            out[name.strip()] = int(value) if value.strip().lstrip("-").isdigit() else float(value)
        except ValueError:
            raise click.BadParameter(f"expected NAME=NUMBER, got {item!r}", param_hint="--arg") from None
        if not name.strip():
            raise click.BadParameter(f"expected NAME=NUMBER, got {item!r}", param_hint="--arg")
    return out


def _launch_names(source: str, path: Path, kernels) -> dict:
    """Per kernel, the names a launch gives besides parameters (tiling-key and tiling-data
    fields); a usage error names the tiling-key fields a launch must choose and does not."""
    return in_child(_loaded_launch_names, source, str(path), [k.name for k in kernels])


def _loaded_launch_names(source: str, path: str, kernels: list[str]) -> dict:
    """`_launch_names`, from the file's module as Python runs it (in a child: `isolated.py`)."""
    from sim_runtime import SimulationError
    from sim_runtime.kernelspec import launch_names
    from sim_runtime.loader import jit_kernel_in, kernel_in, load_kernel_module

    try:
        module = load_kernel_module(source, path=path)
    except SimulationError as exc:
        return {_NOT_LOADED: str(exc)}  # the verification reports why, unless a --arg it names must say it first
    found = {name: kernel_in(module, name) for name in kernels}
    for name, kernel in found.items():
        if callable(kernel) and not hasattr(kernel, "tiling_key_schema"):
            try:  # (a wrapper above `@pl.jit` the emulator cannot see into: why, probe h245)
                jit_kernel_in(module, name)
            except SimulationError as exc:
                return {_NOT_LOADED: str(exc)}
    return {name: launch_names(kernel) for name, kernel in found.items() if hasattr(kernel, "tiling_key_schema")}


#: the key of `_launch_names`'s answer when the file does not load: why
_NOT_LOADED = ""


#: calls and attributes through which code may read any field of an object, by a name it computes
_REFLECTIVE = frozenset({"getattr", "vars", "asdict", "astuple", "fields", "replace", "__dict__", "__getattribute__"})


def unread_fields(file, launch: dict) -> dict[str, tuple[str, ...]]:
    """Per kernel, the tiling-data fields a launch must be given (no default) that no code of the
    file can read: their name is no attribute read and no string anywhere in it, and nothing in it
    reads fields by a computed name (`getattr`, `vars`, `dataclasses.asdict`, ...) or a pattern. The emulator
    runs them at 0 (study ux2: `--simulate` asked for fields the kernel never reads). None of a
    file that does not load (its fields are not known)."""
    named: set[str] = set()
    for node in iter_nodes(file.source.module):
        if type(node) is cst.Attribute:
            named.add(node.attr.value)
        elif type(node) is cst.Name and node.value in _REFLECTIVE:
            return {}  # (`getattr(tiling, name)`: any field, by a name it computes)
        elif type(node) is cst.Match:
            return {}  # (a class pattern reads fields by keyword, or by position: `case T(a, b)`)
        elif type(node) is cst.SimpleString:
            value = node.evaluated_value
            named.add(value if isinstance(value, str) else "")
        elif type(node) in (cst.FormattedString, cst.ConcatenatedString):
            return {}  # (a name it builds: every field may be read)
    if named & _REFLECTIVE:
        return {}
    return {kernel: tuple(f for f in given.tiling_data_required if f not in named)
            for kernel, given in launch.items() if kernel != _NOT_LOADED}


def _launch_missing(launch: dict, scalars: dict, unread: dict | None = None) -> list[tuple[str, str]]:
    """What a launch must be given and `scalars` lacks, as (what, its --arg flag); a tiling-key
    value that is not one of the field's values is a usage error at once. A tiling-data field no
    code reads (`unread_fields`) needs no value."""
    missing: list[tuple[str, str]] = []
    for kernel, names in launch.items():
        key = names.tiling_key
        if key is not None:
            for f, spec in key.fields.items():
                if f not in scalars:
                    values = ", ".join(str(v) for v in spec.values)
                    missing.append((f"tiling-key field {f} of `{kernel}` ({key.name}: one of {values})",
                                    f"--arg {f}={spec.values[0]}"))
                elif scalars[f] not in spec.values:
                    raise click.BadParameter(f"tiling-key field {f}={scalars[f]} of kernel {kernel} is not one of "
                                             f"{list(spec.values)}", param_hint="--arg")
        missing += [(f"tiling-data field {f} of `{kernel}`", f"--arg {names.field_name(f)}=VALUE")
                    for f in names.tiling_data_required if names.field_name(f) not in scalars
                    and f"{names.tiling_param}.{f}" not in scalars and f not in (unread or {}).get(kernel, ())]
    return missing


#: a dimension declared `pl.DYNAMIC`, or one the reader cannot fold (either must come from --shape)
DYNAMIC = None


def declared_shape(file, param) -> tuple[int | None, ...] | None:
    """The dimensions of a `pl.Tensor[[D0, D1, ...], dtype]` parameter (None for a dimension
    that is `pl.DYNAMIC` or not a constant), or None when the annotation has no shape list."""
    ann = param.annotation.annotation if param.annotation is not None else None
    if not isinstance(ann, cst.Subscript) or not ann.slice:
        return None
    dims = ann.slice[0].slice
    if not isinstance(dims, cst.Index) or not isinstance(dims.value, (cst.List, cst.Tuple)):
        return None
    out: list[int | None] = []
    for element in dims.value.elements:
        try:
            value = file.evaluator.eval(element.value)
        except NotConstant:
            value = None
        out.append(value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else DYNAMIC)
    return tuple(out)


def _shown(shape) -> str:
    return "[" + ", ".join("pl.DYNAMIC" if d is DYNAMIC else str(d) for d in shape) + "]"


def check_simulation_arguments(file, kernels, shapes: dict, scalars: dict, launch: dict | None = None,
                               unread: dict | None = None) -> None:
    """click.BadParameter for what the emulator cannot run as asked: a --shape or --arg that
    names no parameter (nor a tiling-key or tiling-data field of `launch`), a --shape that
    contradicts a declared fixed dimension, a tiling-key value that is not one of its field's
    values, a fraction for an integer parameter; and, all in one message with the flags to
    add, every tensor with pl.DYNAMIC dimensions and no --shape, scalar parameter, tiling-key
    field and tiling-data field without --arg. These are usage mistakes (exit 2), said before
    anything runs."""
    tensors: dict[str, dict[str, tuple | None]] = {}
    scalar_params: dict[str, set[str]] = {}
    integers: dict[str, set[str]] = {}  #: scalar parameters declared integer (`int`, `pl.DT_INT32`, ...)
    dtypes: dict[str, str] = {}  #: each such parameter's integer type
    for k in kernels:
        for param in parameters(k.node):
            name = param.name.value
            if k.params.get(name) == TENSOR:
                tensors.setdefault(name, {})[k.name] = declared_shape(file, param)
            else:
                if k.params.get(name) == SCALAR and param.default is None:
                    scalar_params.setdefault(name, set()).add(k.name)
                scalar_params.setdefault(name, set())
                integer = declared_int_type(param, file.pl.path)
                if integer:
                    integers.setdefault(name, set()).add(k.name)
                    dtypes[name] = integer
    launch = dict(launch or {})
    not_loaded = launch.pop(_NOT_LOADED, None)
    for given in launch.values():
        for launch_name in given.names:
            scalar_params.setdefault(launch_name, set())
    dotted = {name for given in launch.values() for name in given.dotted}
    tiling = {given.tiling_param: kernel for kernel, given in launch.items() if given.tiling_param}
    for name in scalars:
        if name in tiling:  # (its value is built from its fields: `--arg tiling=3` was taken, and dropped)
            raise click.BadParameter(f"{name!r} is the tiling-data parameter of `{tiling[name]}`: give its fields "
                                     f"(--arg {name}.FIELD=VALUE, or the field's own name)", param_hint="--arg")
    for given in launch.values():
        scalar_params.pop(given.tiling_param, None)  # (not a value of its own: its fields are)
    names = ", ".join(sorted(k.name for k in kernels))
    for name in shapes:
        if name not in tensors:
            near = closest(name, tensors)
            meant = f"; did you mean {near!r}?" if near is not None else ""
            raise click.BadParameter(f"{name!r} is not a tensor parameter of {names} "
                                     f"(tensors: {', '.join(sorted(tensors)) or 'none'}){meant}", param_hint="--shape")
    for name in scalars:
        if name not in scalar_params and name not in dotted:
            why = "" if not_loaded is None else \
                f"; the tiling-key and tiling-data fields it may name are not known: the file does not load " \
                f"({not_loaded})"
            known = ", ".join(sorted(scalar_params)) or "none"
            near = closest(name, [*scalar_params, *dotted])
            meant = f"; did you mean {near!r}?" if near is not None else ""
            raise click.BadParameter(f"{name!r} is not a scalar parameter of {names} (scalars: {known}){why}{meant}",
                                     param_hint="--arg")
    for name, by_kernel in sorted(tensors.items()):
        for kernel, declared in sorted(by_kernel.items()):
            if name in shapes:
                _check_override(name, kernel, declared, shapes[name])
    for name, ks in sorted(integers.items()):
        fault = integer_argument_fault(dtypes[name], scalars[name]) if name in scalars else None
        if fault is not None:
            raise click.BadParameter(f"{name} is a parameter of `{', '.join(sorted(ks))}` declared {dtypes[name]}: "
                                     f"{fault}", param_hint="--arg")
    for kernel, given in sorted(launch.items()):
        for td_field, declared in given.tiling_data_types:
            name = next((n for n in (given.field_name(td_field), f"{given.tiling_param}.{td_field}")
                         if n in scalars), "")
            fault = integer_argument_fault(declared, scalars[name]) if name else None
            if fault is not None:
                raise click.BadParameter(f"{name} is a tiling-data field of `{kernel}` declared {declared}: {fault}",
                                         param_hint="--arg")
    missing = [(f"tensor {name} (declared {_shown(declared)} in `{kernel}`)",
                f"--shape {name}={'x'.join('D' + str(i) if d is DYNAMIC else str(d) for i, d in enumerate(declared))}")
               for name, by_kernel in sorted(tensors.items()) for kernel, declared in sorted(by_kernel.items())
               if declared is not None and DYNAMIC in declared and name not in shapes]
    missing += [(f"scalar parameter {name} (of `{', '.join(sorted(ks))}`)", f"--arg {name}=VALUE")
                for name, ks in sorted(scalar_params.items()) if ks and name not in scalars]
    missing += _launch_missing(launch, scalars, unread if unread is not None else unread_fields(file, launch))
    if missing:
        flags = " ".join(dict.fromkeys(flag for _, flag in missing))
        raise click.BadParameter(f"the simulation needs {len(missing)} more value(s): "
                                 f"{'; '.join(what for what, _ in missing)}; add {flags}",
                                 param_hint=" / ".join(dict.fromkeys(flag.split()[0] for _, flag in missing)))


@dataclass(frozen=True)
class Takes:
    """The names the simulated kernels of one file take: tensors for --shape (`sized`: those
    with a dimension --shape may set), scalar parameters and tiling-key and tiling-data
    fields for --arg. `not_loaded` says why the tiling fields are not known (the file does
    not load), None when they are."""

    path: str
    tensors: frozenset[str]
    scalars: frozenset[str]
    not_loaded: str | None = None
    sized: frozenset[str] = frozenset()
    dotted: frozenset[str] = frozenset()  #: `tiling.FIELD` names --arg takes besides `scalars`


def takes(source: str, path: str) -> Takes:
    """What --shape and --arg can name in the file `source` (nothing when it does not read:
    the transpile reports why). Loading the file for its tiling keys runs its Python."""
    try:
        file = read(SourceFile.parse(source, path))
    except Exception:  # a file that does not read is reported by the transpile itself
        return Takes(path, frozenset(), frozenset())
    kernels, _ = _simulated(file)
    tensors = {p.name.value: declared_shape(file, p) for k in kernels for p in parameters(k.node)
               if k.params.get(p.name.value) == TENSOR}
    sized = {name for name, declared in tensors.items() if declared is None or DYNAMIC in declared}
    scalars = {p.name.value for k in kernels for p in parameters(k.node) if k.params.get(p.name.value) != TENSOR}
    launch = _launch_names(source, Path(path), kernels) if kernels else {}
    not_loaded = launch.pop(_NOT_LOADED, None)
    for given in launch.values():
        scalars.update(given.names)
        scalars.discard(given.tiling_param)  # (its fields are given, not it)
    dotted = frozenset(name for given in launch.values() for name in given.dotted)
    return Takes(path, frozenset(tensors), frozenset(scalars), not_loaded, frozenset(sized), dotted)


def share(files: list[Takes], shapes, scalars) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each file's --shape and --arg values, so that kernels of other signatures can be
    simulated in one run: an --arg goes to the files whose kernels take that name, a --shape
    to those where that tensor has pl.DYNAMIC dimensions (to every file with that tensor when
    none has: its check says the shape is fixed). click.BadParameter (exit 2) for a value no
    file takes: it is a typo, never silently dropped."""
    shape_names, scalar_names = parse_shapes(shapes), parse_scalars(scalars)  # format and duplicates first
    for names, kind, flag in ((shape_names, "tensors", "--shape"), (scalar_names, "scalars", "--arg")):
        for name in names:
            if not any(name in getattr(f, kind) or kind == "scalars" and name in f.dotted for f in files):
                raise click.BadParameter(_taken_by_none(name, files, kind), param_hint=flag)
    sized = {name for name in shape_names if any(name in f.sized for f in files)}
    return [(tuple(v for v in shapes if _name(v) in (f.sized if _name(v) in sized else f.tensors)),
             tuple(v for v in scalars if _name(v) in f.scalars or _name(v) in f.dotted)) for f in files]


def _name(value: str) -> str:
    return value.partition("=")[0].strip()


def _taken_by_none(name: str, files: list[Takes], kind: str) -> str:
    """Why `name` fits no file: what each file's kernels take instead."""
    each = "; ".join(f"{f.path}: {', '.join(sorted(getattr(f, kind))) or 'none'}" for f in files)
    what = "tensor parameter" if kind == "tensors" else "scalar parameter"
    unknown = [f"{f.path} ({f.not_loaded})" for f in files if f.not_loaded is not None and kind == "scalars"]
    why = f"; the tiling-key and tiling-data fields of files that do not load are not known: {', '.join(unknown)}" \
        if unknown else ""
    return f"{name!r} is not a {what} of any kernel given ({kind}: {each}){why}"


def check_launch_arguments(source: str, path, file, kernels, shapes: dict, scalars: dict) -> dict[str, int]:
    """click.BadParameter (a usage error, exit 2) when the kernels cannot be run as
    `shapes` and `scalars` ask: the checks of `check_simulation_arguments`, and a tiling key
    or tiling data the launch must be given. `--simulate` and `--preload auto` both make
    them before anything runs; loading the file for its tiling keys runs its Python. Returns the
    values the emulator takes for fields no code reads (`unread_defaults`)."""
    launch = _launch_names(source, Path(path), kernels)
    unread = unread_fields(file, launch)  # (one walk of the file, for both)
    check_simulation_arguments(file, kernels, shapes, scalars, launch, unread)
    return unread_defaults(launch, scalars, unread)


def unread_defaults(launch: dict, scalars: dict, unread: dict) -> dict[str, int]:
    """The `--arg` values the emulator takes for the tiling-data fields no code reads (`unread`,
    `unread_fields`) the command line did not give: 0, whatever the field holds, reaches nothing."""
    out: dict[str, int] = {}
    for kernel, fields in unread.items():
        given = launch[kernel]
        for f in fields:
            if given.field_name(f) not in scalars and f"{given.tiling_param}.{f}" not in scalars:
                out[given.field_name(f)] = 0
    return out


def _check_override(name: str, kernel: str, declared, given: tuple[int, ...]) -> None:
    if declared is None:
        return  # no shape list in the annotation: nothing to compare with
    if DYNAMIC not in declared:
        raise click.BadParameter(f"tensor {name!r} of `{kernel}` has the fixed shape {_shown(declared)}; --shape "
                                 "sets only dimensions declared pl.DYNAMIC (change the annotation to simulate "
                                 "other sizes)", param_hint="--shape")
    if len(given) != len(declared):
        raise click.BadParameter(f"tensor {name!r} of `{kernel}` has {len(declared)} dimensions "
                                 f"{_shown(declared)}, --shape gives {len(given)}", param_hint="--shape")
    clash = [f"dimension {i} is {d}, not {g}" for i, (d, g) in enumerate(zip(declared, given, strict=True))
             if d not in (g, DYNAMIC)]
    if clash:
        raise click.BadParameter(f"tensor {name!r} of `{kernel}` is declared {_shown(declared)}: "
                                 f"{', '.join(clash)}", param_hint="--shape")


@dataclass(frozen=True)
class SimFailure:
    """A kernel the emulator finds wrong: which version, and the verdict in one line."""

    kernel: str
    line: int  #: of the kernel's `def` in the input
    version: str
    verdict: str
    hand: bool = False  #: a kernel pipelined by hand: its "serial" run is its own code, cores in turn

    @property
    def what(self) -> str:
        """The run found wrong, in words: a hand-pipelined kernel has no serial kernel, its two
        runs are its own code with the cores in turn and at once (study ux2: "the serial
        kernel" and "the as written kernel" of a kernel written once)."""
        if not self.hand:
            return f"the {self.version} kernel `{self.kernel}`"
        if self.version == AS_WRITTEN:
            return f"kernel `{self.kernel}` as written, its cores running at once,"
        return f"kernel `{self.kernel}` run with its cores one after another (the reference run)"


@dataclass
class Simulation:
    """What `--simulate` found: the kernels it found wrong, and the view of each kernel."""

    failures: list[SimFailure] = field(default_factory=list)
    kernels: list[KernelView] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.failures)


def _simulated(file) -> tuple[list, list]:
    """(the kernels a simulation runs, those of them pipelined by hand): these are run as
    written, sequentially (their meaning) and with hardware semantics, which checks the
    author's own syncs; the others serial and pipelined."""
    hand = [k for k in file.kernels if pipelined_as(k, file) is not None]
    return [k for k in file.kernels if k.loops and k not in hand] + hand, hand


def check_before_transpiling(source: str, path: str, shapes=(), scalars=(), block_dim: int = 1) -> None:
    """The usage checks `simulate_and_report` makes (click.BadParameter, exit 2), made before
    the transpile: the proof of a kernel of run-time sizes takes seconds, and a missing
    --shape should not wait for it. A file that does not read is left to the transpile,
    which reports why."""
    check_block_dim(block_dim)
    try:
        file = read(SourceFile.parse(source, path))
    except Exception:  # a file that does not read is reported by the transpile itself
        return
    kernels, _ = _simulated(file)
    if kernels:
        check_launch_arguments(source, path, file, kernels, parse_shapes(shapes), parse_scalars(scalars))


def simulate_and_report(path: Path, serial: str, result, *, generated_path: str, seed: int, block_dim: int,
                        shapes=(), timeline=None, scalars=(), stream=None, gantt: bool = False,
                        color: bool | None = None) -> Simulation:
    """Print one verification per pipelined kernel of `result`, with each pipeline loop's
    bound (and, with `gantt`, the runs as a terminal chart); `failures` lists the kernels
    found wrong (a mismatch, deadlock, race or imbalance). OSError when the --timeline
    cannot be written; click.BadParameter for --shape/--arg values that do not fit."""
    from rich.console import Console

    from sim_runtime import verify
    from sim_runtime.errors import annotate_locations
    from sim_runtime.verify import UNSUPPORTED

    shape_map = parse_shapes(shapes)
    scalar_map = parse_scalars(scalars)
    file = read(result.source)
    kernels, hand = _simulated(file)
    unread = check_launch_arguments(serial, path, file, kernels, shape_map, scalar_map)
    scalar_map.update(unread)
    # coloured as the report is (`--color`, NO_COLOR, FORCE_COLOR); None: as rich decides
    console = Console(file=stream, highlight=False) if color is None else \
        Console(file=stream, highlight=False, force_terminal=True) if color else \
        Console(file=stream, highlight=False, color_system=None)
    if unread:
        console.print(f"note: no code of {Path(path).name} reads the tiling-data field(s) "
                      f"{', '.join(sorted(unread))}: simulated as 0", markup=False, highlight=False, soft_wrap=True)
    plain = not console.is_terminal
    origins = None
    outcome = Simulation()
    for kernel in kernels:
        label, code, code_path = (AS_WRITTEN, serial, str(path)) if kernel in hand else \
            (PIPELINED, result.code, generated_path)
        report = in_child(verify, serial, {label: code}, kernel.name, path=str(path), seed=seed,
                          block_dim=block_dim, shapes=shape_map, timeline_path=timeline, scalars=scalar_map,
                          generated_paths={label: code_path})
        for row in report.rows:
            if row.version == PIPELINED and row.message:
                origins = origins or LineOrigins(result)
                row.message = annotate_locations(row.message, generated_path, origins.note)
        shown = {PIPELINED: f"{PIPELINED} ({_preloads(result, kernel.name)})"} if label == PIPELINED else {}
        (_render_plain if plain else _render_table)(report, console, shown)
        view = kernel_view(kernel, report, label)
        outcome.kernels.append(view)
        if report.ok:
            console.print("\n".join(bound_lines(view)), markup=False, highlight=False, soft_wrap=True)
            if gantt:
                _render_gantt(view, console)
        if timeline is not None and report.ok:
            console.print(f"trace of both runs written to {timeline} (open it in https://ui.perfetto.dev; its "
                          "microseconds are cycles)",
                          markup=False)
        if report.failed:  # an op the emulator lacks leaves a version unchecked, not wrong
            outcome.failures += [SimFailure(kernel.name, result.source.span(kernel.node.name).start.line, row.version,
                                            _one_line(row.verdict_text) if row.verdict_text else row.verdict,
                                            kernel in hand)
                                 for row in report.rows if row.verdict not in ("ok", UNSUPPORTED)][:1]
    return outcome


def _one_line(verdict: str) -> str:
    """The emulator's whole verdict on one line: the machine formats and an annotation in CI
    carry it (the two accesses of a race included), not just its first line."""
    return " ".join(verdict.split())


def _render_gantt(view: KernelView, console) -> None:
    from sim_runtime.gantt import render_gantt

    runs = [(v, view.run(v)) for v in ("serial", view.label)]
    render_gantt([run.gantt(v) for v, run in runs if run is not None], console,
                 title=f"{view.name}, serial and {view.label}")


def _preloads(result, kernel: str) -> str:
    """"preload 2" (or "preload 1, 2" over loops of different preloads): which kernel the
    pipelined run is, a preload of 0 included (its cores overlap, no stage runs further ahead)."""
    preloads = sorted({loop.schedule.preload for loop in result.loops if loop.kernel == kernel and loop.schedule})
    return "preload " + ", ".join(map(str, preloads)) if preloads else "preload ?"


def _cells(row, shown: dict[str, str]) -> tuple[str, str, str, str]:
    cycles = "-" if row.cycles is None else str(row.cycles)
    speedup = "-" if row.speedup is None else f"{row.speedup:.2f}x"
    diffs = ", ".join(f"{k}={v:.3g}" for k, v in row.max_diff.items()) or "-"
    return shown.get(row.version, row.version), cycles, speedup, diffs


def _render_plain(report, console, shown: dict[str, str]) -> None:
    """One line per version (version, cycles, speedup, diffs, verdict); details indented below."""
    out = [f"simulated verification of {report.kernel}:"]
    width = max(len(shown.get(r.version, r.version)) for r in report.rows)
    for row in report.rows:
        version, cycles, speedup, diffs = _cells(row, shown)
        first, *rest = row.verdict_text.splitlines() or [row.verdict]
        out.append(f"  {version:<{width}}  cycles {cycles}  speedup {speedup}  max |diff| {diffs}  {first}")
        out += [f"  {'':<{width}}  {line}" for line in rest]
    out += [f"  note: {note}" for note in report.notes]
    console.print("\n".join(out), markup=False, highlight=False, soft_wrap=True)


def _render_table(report, console, shown: dict[str, str]) -> None:
    """A table of the numbers and verdicts; a failure's details follow it, unwrapped."""
    from rich.table import Table

    table = Table(title=f"simulated verification of {report.kernel}")
    for col in ("version", "cycles", "speedup", "max |diff|", "verdict"):
        table.add_column(col, justify="right" if col in ("cycles", "speedup") else "left")
    for row in report.rows:
        style = "green" if row.verdict == "ok" else "red"
        table.add_row(*_cells(row, shown), f"[{style}]{row.verdict}[/{style}]")
    console.print(table)
    for row in report.rows:
        if row.message:
            console.print(f"{shown.get(row.version, row.version)}: {row.verdict_text}", markup=False,
                          highlight=False, soft_wrap=True)
    for note in report.notes:
        console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
