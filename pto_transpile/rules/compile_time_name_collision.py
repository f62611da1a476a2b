import keyword

import libcst as cst

from pto_transpile import codes
from pto_transpile.read.consteval import literal_value
from pto_transpile.read.modulenames import binding_sites
from pto_transpile.read.walk import iter_nodes, parameters
from pto_transpile.rules.rule import Rule


def check(ctx):
    file = ctx.file
    named = [(kernel, _compile_time_names(kernel)) for kernel in file.kernels if kernel.jit is not None]
    named = [(kernel, names) for kernel, names in named if names or kernel.jit.datatype_node is not None]
    if not named:
        return  # (most files: no tiling key, no `datatype=`)
    bound = _module_bindings(file)
    # one name the module binds collides in every kernel binding it too: said once, naming them all
    clashes: dict[tuple[str, str], list[str]] = {}
    declared: dict[tuple[str, str], cst.CSTNode] = {}
    for kernel, names in named:
        params = {p.name.value: p.name for p in _parameters(kernel.node)}
        for name, (what, node) in names.items():
            if name in bound:
                clashes.setdefault((name, what), []).append(kernel.name)
                declared.setdefault((name, what), node)
            if name in params:
                yield params[name], {"name": name, "jit_name": what, "kernel": kernel.name, "_message": "parameter",
                                     "_hint": "parameter", "_related": [(f"{what} is declared here", node)]}
        fields = _fields(kernel)
        for name, node in _datatype_names(kernel):
            if name in fields:
                what = names[name][0]
                yield node, {"name": name, "jit_name": what, "kernel": kernel.name, "_message": "field",
                             "_hint": "field", "_related": [(f"{what} is declared here", fields[name])]}
    for kernel, _ in named:
        for name, node in _not_identifiers(file, kernel):
            yield node, {"name": name, "jit_name": "", "kernel": kernel.name, "_message": "identifier",
                         "_hint": "identifier"}
    for (name, what), kernels in clashes.items():
        listed = " and ".join(f"`{k}`" for k in kernels)
        yield bound[name], {"name": name, "jit_name": what, "kernels": ("kernels " if len(kernels) > 1 else "kernel ")
                            + listed, "_related": [(f"{what} is declared here", declared[(name, what)])]}


def _compile_time_names(kernel) -> dict[str, tuple[str, cst.CSTNode]]:
    """The names the JIT binds for `kernel` -> (what they are, in words, and where they are written):
    its tiling key's fields, then its `datatype=` names."""
    key = kernel.jit.key
    out = {name: (f"tiling-key field `{key.name}.{name}`", node) for name, node in _fields(kernel).items()}
    for name, node in _datatype_names(kernel):
        out.setdefault(name, (f"`datatype=` name `{name}`", node))
    return out


def _fields(kernel) -> dict[str, cst.CSTNode]:
    """The fields of the kernel's tiling key -> the name their assignment binds in the class body;
    each certain (not a name that may hold one, which leaves the instances unlisted: PTO071)."""
    key = kernel.jit.key
    if key is None:
        return {}
    return {f.name: _field_target(key.node, f.name) or f.node for f in key.fields if not f.maybe}


def _datatype_names(kernel) -> list[tuple[str, cst.CSTNode]]:
    """Each `datatype=` name of the kernel, once, with the string that writes it (the `datatype=`
    value when it is not written in place: a module name bound to the dict)."""
    jit = kernel.jit
    if jit.datatype_node is None:
        return []
    written: dict[str, cst.CSTNode] = {}
    node = jit.datatype_node
    values = [e.value for e in node.elements if isinstance(e, cst.DictElement)] if isinstance(node, cst.Dict) \
        else [a.value for a in node.args if a.keyword is not None] if isinstance(node, cst.Call) else []
    for value in values:
        if isinstance(value, cst.SimpleString):
            written.setdefault(literal_value(value), value)
    seen: dict[str, cst.CSTNode] = {}
    for name in jit.datatypes.values():
        seen.setdefault(name, written.get(name, node))
    return list(seen.items())


def _field_target(cls: cst.ClassDef, name: str) -> cst.Name | None:
    """The name a key field's assignment binds in the class body (`HasAtten` of `HasAtten = ...`)."""
    for stmt in cls.body.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) \
                else [small.target] if isinstance(small, cst.AnnAssign) else []
            for target in targets:
                if isinstance(target, cst.Name) and target.value == name:
                    return target
    return None


def _parameters(fn: cst.FunctionDef) -> list[cst.Param]:
    """Every parameter of `fn`, `*args` and `**kwargs` too."""
    star = [p for p in (fn.params.star_arg, fn.params.star_kwarg) if isinstance(p, cst.Param)]
    return [*parameters(fn), *star]


def _module_bindings(file) -> dict[str, cst.CSTNode]:
    """Each name the module binds at its top level -> where it is first bound; not a name of a
    branch the import never takes (`if False:`, `if TYPE_CHECKING:`), an `except ... as` name
    (unbound where its handler ends), nor one a top-level `del` removes after its last binding:
    the module's names do not hold them when the kernel is compiled (probe h238)."""
    module = file.source.module
    passing = {id(n) for stmt in module.body if type(stmt) is cst.If and _type_checking(stmt.test)
               for n in iter_nodes(stmt.body)}
    passing |= {id(h.name.name) for h in file.find(module, cst.ExceptHandler) if h.name is not None}
    last: dict[str, tuple[int, bool]] = {}  #: name -> (top-level statement, whether it deletes it there)
    out: dict[str, cst.CSTNode] = {}
    for i, stmt in enumerate(module.body):
        for name, node in binding_sites([stmt]):
            if id(node) not in passing and name in file.names.meanings:
                out.setdefault(name, node)
                last[name] = (i, False)
        for small in stmt.body if type(stmt) is cst.SimpleStatementLine else ():
            if type(small) is cst.Del:
                for target in iter_nodes(small.target):
                    if type(target) is cst.Name and target.value in last:
                        last[target.value] = (i, True)
    return {name: node for name, node in out.items() if not last[name][1]}


def _type_checking(test: cst.BaseExpression) -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING`: False when the module runs."""
    return type(test) is cst.Name and test.value == "TYPE_CHECKING" or type(test) is cst.Attribute \
        and test.attr.value == "TYPE_CHECKING" and type(test.value) is cst.Name and test.value.value == "typing"


def _not_identifiers(file, kernel) -> list[tuple[str, cst.CSTNode]]:
    """Each `datatype=` value of the kernel that is no name Python can bind (`"out-dtype"`, `"class"`),
    with the string that writes it."""
    node = kernel.jit.datatype_node
    if type(node) is not cst.Dict:
        return []
    found: list[tuple[str, cst.CSTNode]] = []
    for element in node.elements:
        value = element.value if isinstance(element, cst.DictElement) else None
        if isinstance(value, cst.SimpleString):
            text = literal_value(value)
            if isinstance(text, str) and (not text.isidentifier() or keyword.iskeyword(text)):
                found.append((text, value))
    return found


DOC = """\
## What it checks
A compile-time name the JIT binds for a kernel collides with another name: a field of
its tiling key (`@pl.jit(tiling_key=Key)` with `class Key: ApplyRelu = TilingKeyField(...)`)
or a `datatype=` name (`@pl.jit(datatype={"x": "x_dtype"})`) that is also bound at the
module's top level (an assignment, an import, a `def` or a `class`), a tiling-key field
that is also a parameter of the kernel, or a `datatype=` name that is also a parameter
of the kernel or a field of its tiling key. A `datatype=` name that is no Python identifier
(`"out-dtype"`, a keyword) is refused too. A name the module binds only where the import does
not run (`if TYPE_CHECKING:`), only for an `except` handler, or deletes again is no collision.

## Why it matters for pipelining
The JIT binds the fields and the `datatype=` names as constants in every function of the
kernel's file, and PyPTO's front end refuses a kernel whose compile-time names collide with
its parameters, with its key's fields or with the module's own names (the repository's
emulator refuses to launch one whose names collide with the module's). pto-transpile would
otherwise prove and write a pipelined kernel PyPTO never compiles, having read the name as
one of the two things it names.

## Example
```python
ApplyRelu = 0  # a module constant named as the key field
out_dtype = pl.DT_FP32  # a module constant named as the `datatype=` name


class EpilogueKey:
    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])


@pl.jit(auto_mutex=True, tiling_key=EpilogueKey, datatype={"out": "out_dtype"},
        pipeline=pl.pipeline.PipelineConfig(preload=1))
def tiled_scale_kernel(
    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    tiling: ScaleTiling,
    ApplyRelu: pl.DT_INT32,  # a parameter named as the key field
):
```

## Use instead
```python
DEFAULT_APPLY_RELU = 0  # module names of their own
OUT_DTYPE = pl.DT_FP32


class EpilogueKey:
    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])


@pl.jit(auto_mutex=True, tiling_key=EpilogueKey, datatype={"out": "out_dtype"},
        pipeline=pl.pipeline.PipelineConfig(preload=1))
def tiled_scale_kernel(
    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    tiling: ScaleTiling,
):
    ...  # the kernel reads the key's value as `ApplyRelu`, the dtype of `out` as `out_dtype`
```
"""


RULE = Rule(
    code=codes.COMPILE_TIME_NAME_COLLISION,
    name="compile-time-name-collision",
    title="A compile-time name of a kernel collides with a module name, a parameter or a key field",
    message="module-level `{name}` collides with the {jit_name} of {kernels}, which the JIT binds in every "
            "function of the file: PyPTO refuses the kernel",
    hint="Rename module-level `{name}`, or the {jit_name}",
    messages={"parameter": "parameter `{name}` of kernel `{kernel}` collides with its {jit_name}: PyPTO refuses the "
                           "kernel",
              "field": "`datatype=` name `{name}` of kernel `{kernel}` collides with its {jit_name}: PyPTO refuses "
                       "the kernel",
              "identifier": "`datatype=` name `{name}` of kernel `{kernel}` is no Python identifier, which a "
                            "`datatype=` name must be: PyPTO refuses the kernel"},
    hints={"parameter": "Rename parameter `{name}` (and its uses in the kernel), or the {jit_name}",
           "field": "Give the dtype another name than `{name}` in `datatype=` (and where the kernel reads it)",
           "identifier": "Name the dtype with letters, digits and underscores, not a keyword (`out_dtype`)"},
    phase="file",
    check=check,
    seed="a tiling-key field or `datatype=` name collides with no kernel parameter nor module-level name, and a "
         "`datatype=` name with no tiling-key field",
    doc=DOC,
)
