"""Execute a kernel file with sim_runtime's `pl` standing in for `pypto_pro.language`.

The module runs in a fresh namespace whose `__builtins__` carries its own `__import__`: the
override is scoped to that namespace (also seen by functions defined in it), so nothing
leaks into `sys.modules` or other threads. `pypto_pro.language` under any import spelling
resolves to `sim_runtime.pl`; the host harness modules (pytest, torch, torch_npu, pypto)
and any other import that is not installed become inert stubs, so decorators like
`@pytest.mark.soc(950)` or `@pypto.options(...)` do nothing.
The module is named `__sim_kernel__`: `if __name__ == "__main__"` blocks and test
functions are not run.
"""

from __future__ import annotations

import ast
import builtins
import functools
import linecache
import re
import sys
import threading
import types
from contextlib import contextmanager
from pathlib import Path

from sim_runtime import pl as sim_pl
from sim_runtime.errors import KERNEL_FAULTS, KernelError, Location, SimulationError, raised_at, raised_what
from sim_runtime.kernelspec import TilingKeyField
from sim_runtime.typedlocals import TYPED_FN, TypedLocals, typed_local

_PACKAGE = "pypto_pro"
#: Host-side harness modules: stubbed even when installed. A kernel file uses them only in
#: its device test functions (never run here); real pytest marks would only add warnings.
ALWAYS_STUB = frozenset({"pytest", "torch", "torch_npu", "pypto"})
_LANGUAGE = "pypto_pro.language"


class Stub:
    """An inert stand-in for a module that is not installed."""

    def __init__(self, name: str):
        self._stub_name = name

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Stub(f"{self._stub_name}.{name}")

    def __call__(self, *args, **kwargs):
        # used as a decorator (`@pytest.mark.soc(950)` -> stub; stub(fn) -> fn unchanged)
        if len(args) == 1 and not kwargs and isinstance(args[0], (types.FunctionType, type)):
            return args[0]
        return Stub(f"{self._stub_name}()")

    def __getitem__(self, key):
        return Stub(f"{self._stub_name}[...]")

    def __iter__(self):
        return iter(())

    def __mro_entries__(self, bases):
        return (object,)

    def __repr__(self) -> str:
        return f"<stub {self._stub_name}>"


def _module(name: str, **attrs) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__path__ = []
    vars(mod).update(attrs)
    return mod


def _package() -> types.ModuleType:
    tilingkey = _module(f"{_PACKAGE}.runtime.tilingkey", TilingKeyField=TilingKeyField)
    return _module(_PACKAGE, language=sim_pl, runtime=_module(f"{_PACKAGE}.runtime", tilingkey=tilingkey))


#: Modules of the package besides `language`, by dotted name (attribute path from the package).
_SUBMODULES = ("runtime", "runtime.tilingkey")


def make_import(real=builtins.__import__):
    pkg = _package()

    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == _PACKAGE or name.startswith(_PACKAGE + ".")):
            if name == _PACKAGE:
                return pkg
            sub = name[len(_PACKAGE) + 1:]
            if sub in _SUBMODULES:
                target = pkg
                for part in sub.split("."):
                    target = getattr(target, part)
                return target if fromlist else pkg
            if name == _LANGUAGE:
                return sim_pl if fromlist else pkg
            if name.startswith(_LANGUAGE + "."):
                target = sim_pl
                for part in name[len(_LANGUAGE) + 1:].split("."):
                    target = getattr(target, part)
                return target if fromlist else pkg
            return Stub(name)
        if level == 0 and name.split(".")[0] in ALWAYS_STUB:
            return Stub(name)
        try:
            return real(name, globals, locals, fromlist, level)
        except ImportError:
            return Stub(name)

    return _import


def _looks_like_source(text: str) -> bool:
    """Source text, not a path: it holds a line end (Python's: `\n`, `\r\n` or `\r` alone)."""
    return "\n" in text or "\r" in text


#: the line ends Python reads (`str.splitlines` also ends a line at a form feed, U+2028, ...)
_LINE = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


_REGISTRY_LOCK = threading.RLock()


@contextmanager
def _registered(module: types.ModuleType):
    """`module` in `sys.modules` while its body runs: `@dataclass` looks its class's module up
    there (tiling data), and nothing else of it outlives the load."""
    with _REGISTRY_LOCK:
        before = sys.modules.get(module.__name__)
        sys.modules[module.__name__] = module
        try:
            yield
        finally:
            if before is None:
                sys.modules.pop(module.__name__, None)
            else:
                sys.modules[module.__name__] = before


def kernel_in(module: types.ModuleType, name: str):
    """The module's attribute `name`, past decorators above `@pl.jit` that wrap it with
    `functools.wraps` (their `__wrapped__`), which the kernel's launch runs through unchanged: the
    `@pl.jit` kernel itself where one is found, else the attribute as it is (None when absent)."""
    found: object = getattr(module, name, None)
    for _ in range(16):  # (a chain of wrappers; a wrapper naming itself ends)
        if isinstance(found, sim_pl.JitKernel) or not hasattr(found, "__wrapped__"):
            break
        found = found.__wrapped__
    return found if isinstance(found, sim_pl.JitKernel) else getattr(module, name, None)


def jit_kernel_in(module: types.ModuleType, name: str) -> sim_pl.JitKernel:
    """`kernel_in`, which must be a `@pl.jit` kernel: else why the emulator cannot run it (probe
    h245: a wrapper made without `functools.wraps` failed inside the emulator, reported as the
    serial kernel found wrong)."""
    found = kernel_in(module, name)
    if isinstance(found, sim_pl.JitKernel):
        return found
    if callable(found):
        raise SimulationError(f"{name!r} in {module.__file__} is bound to what a decorator above its @pl.jit returns, "
                              "a function the emulator cannot see into: a wrapper made with functools.wraps keeps "
                              "the kernel reachable (as its __wrapped__)")
    raise KernelError(f"{name!r} is not a @pl.jit kernel in {module.__file__}")


def load_kernel_module(path_or_source: str | Path, *, path: str | None = None) -> types.ModuleType:
    """Run a kernel file (a path, or source text containing newlines) and return its module.

    `path` names the file for reports when source text is given (default "<kernel>").
    """
    if isinstance(path_or_source, str) and _looks_like_source(path_or_source):
        source, filename = path_or_source, path or "<kernel>"
    else:
        filename = str(path_or_source)
        source = Path(filename).read_text(encoding="utf-8")
    source = source.removeprefix("\ufeff")  # a byte order mark, which Python skips as it reads a file
    module = types.ModuleType("__sim_kernel__")
    module.__file__ = filename
    ns = module.__dict__
    my_builtins = dict(builtins.__dict__)
    my_builtins["__import__"] = make_import()
    # `vf` is the reserved namespace of `@pl.vector_function` bodies: they use it without an
    # import (a module that binds `vf` itself shadows this, as a global shadows a builtin)
    my_builtins["vf"] = sim_pl.Vf
    my_builtins[TYPED_FN] = typed_local  # annotated locals of every function (`TypedLocals`)
    ns["__builtins__"] = my_builtins
    ns["__pl_sim_source__"] = source
    # so tracebacks and `linecache` show the kernel's lines even when it only exists in memory
    linecache.cache[filename] = (len(source), None, [line for line in _LINE.split(source) if line], filename)
    try:
        kernels, host, read = _module_code(source, filename)
        with _registered(module):
            exec(kernels, ns)
            for code, line, names in host:
                try:
                    exec(code, ns)
                except KERNEL_FAULTS:  # host code after the last kernel needs a device: not run
                    unrun = sorted(set(names) & read)
                    if unrun:  # its value, or the one before it, would run a kernel other than the file's
                        raise KernelError(f"`{unrun[0]}` is bound by host code after the last kernel that the "
                                          "emulator cannot run (it needs a device), and a function of the file "
                                          "reads it: bind the names a kernel reads before the kernel",
                                          Location(filename, line)) from None
    except SyntaxError as exc:
        raise KernelError(f"syntax error: {exc.msg}", Location(filename, exc.lineno or 0)) from None
    except SimulationError:
        raise
    except KERNEL_FAULTS as exc:  # the module itself failed to run: report it at its line
        raise KernelError(f"loading the kernel file raised {raised_what(exc)}", raised_at(exc, filename)) from exc
    return module


@functools.lru_cache(maxsize=16)
def _module_code(source: str, filename: str) -> tuple[types.CodeType, tuple[tuple[types.CodeType, int, tuple], ...],
                                                      frozenset[str]]:
    """The compiled kernels of a file; each statement of its host code with its line and the
    module names it binds (`_split_host_code`); and the names its functions read. Once per text:
    a run loads the file for the serial and again for the pipelined kernel, and a test runs one
    file at several launches. `dont_inherit`: the file's own `__future__` imports, not this
    module's (its `annotations` import would keep the kernel's annotations as text, read at the
    end of the module instead of when each `def` ran)."""
    kernels, host = _split_host_code(source, filename)
    kernels = ast.fix_missing_locations(TypedLocals().visit(kernels))  # stages' and helpers' typed locals
    statements = tuple((compile(ast.Module(body=[stmt], type_ignores=[]), filename, "exec", dont_inherit=True),
                        stmt.lineno, tuple(sorted(_bound_names(stmt)))) for stmt in host)
    read = frozenset(n.id for stmt in (*kernels.body, *host) for fn in ast.walk(stmt)
                     if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                     for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    return compile(kernels, filename, "exec", dont_inherit=True), statements, read


def _bound_names(stmt: ast.stmt) -> set[str]:
    """The names a module-level statement may bind (its own and those of what it nests, on the
    safe side: a local of a function it defines is counted too)."""
    names: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
    return names


def _split_host_code(source: str, filename: str) -> tuple[ast.Module, list[ast.stmt]]:
    """The module up to its last `@pl.jit` kernel, and the module-level statements after it.

    Tutorials put host code (tensors made on the device, the kernel called, results
    compared) at module level after the kernel; on the emulator it has no device and
    fails. What follows the last kernel is run too, statement by statement, so a later
    rebinding of a name a kernel reads still happens; one that raises is left out, unless it
    binds a name a function of the file reads (a load error then: its value is not known). A
    failure before the last kernel is a load error."""
    tree = ast.parse(source, filename)
    last = max((i for i, stmt in enumerate(tree.body) if isinstance(stmt, ast.FunctionDef)
                and any("jit" in ast.unparse(d) for d in stmt.decorator_list)), default=None)
    if last is None or last == len(tree.body) - 1:
        return tree, []
    return ast.Module(body=tree.body[:last + 1], type_ignores=[]), tree.body[last + 1:]


