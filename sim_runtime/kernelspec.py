"""What one launch of a kernel is specialised on: its tiling key, its datatype names, its
tiling data, and the arguments that are not GM tensors.

A `@pl.jit(tiling_key=Cls)` kernel is compiled once per key: each `TilingKeyField` attribute
of `Cls` becomes a compile-time name inside the kernel and every helper of its module, with
the value the launch chose. `datatype={"x": "dt"}` likewise binds the name `dt` to the dtype
of argument `x`. A `@dataclass` parameter (the tiling data, last in the signature) is passed
as an instance; the emulator also builds it from field values (`--arg FIELD=VALUE`).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pto_api.memory import integer_argument_fault, scalar_int_values
from sim_runtime.dtypes import DTYPES, DType
from sim_runtime.errors import KernelError

MAX_KEY_BITS = 64


@dataclass(frozen=True)
class TilingKeyField:
    """`TilingKeyField(bits=..., values=[...])`: a compile-time field of a tiling key."""

    bits: int
    values: tuple = ()

    def __init__(self, bits, values):
        object.__setattr__(self, "bits", bits)
        object.__setattr__(self, "values", tuple(values))


@dataclass(frozen=True)
class TilingKeySchema:
    """The fields of a tiling-key class, in definition order, and its optional `is_valid`."""

    name: str
    fields: dict[str, TilingKeyField]
    is_valid: object = None

    def __getstate__(self) -> dict:
        """Sent from the emulator's child process as plain data: without `is_valid`, an instance
        of the kernel file's own class, which no other process can make (the keys it accepted
        were judged in the child), and with each field a `TilingKeyField` of plain integers (a
        field may be of a subclass the file defines, its values members of the file's `IntEnum`;
        probe h120)."""
        fields = {name: TilingKeyField(int(f.bits), tuple(int(v) for v in f.values))
                  for name, f in self.fields.items()}
        return {**self.__dict__, "fields": fields, "is_valid": None}

    @staticmethod
    def of(cls) -> TilingKeySchema:
        """Check a tiling-key class as `@pl.jit` does when it is applied."""
        if not isinstance(cls, type):
            raise KernelError(f"tiling_key must be a class, got {cls!r}")
        fields = {k: v for k, v in vars(cls).items() if isinstance(v, TilingKeyField)}
        if not fields:
            raise KernelError(f"tiling key {cls.__name__} declares no TilingKeyField")
        total = 0
        for name, f in fields.items():
            if not isinstance(f.bits, int) or isinstance(f.bits, bool) or f.bits <= 0:
                raise KernelError(f"tiling key field {cls.__name__}.{name}: bits must be a positive int, "
                                  f"got {f.bits!r}")
            vals = f.values
            if not vals or any(not isinstance(v, int) or isinstance(v, bool) for v in vals) \
                    or len(set(vals)) != len(vals):
                raise KernelError(f"tiling key field {cls.__name__}.{name}: values must be distinct ints, "
                                  f"got {list(vals)}")
            if len(vals) > 2 ** f.bits:
                raise KernelError(f"tiling key field {cls.__name__}.{name}: {len(vals)} values do not fit in "
                                  f"{f.bits} bit(s)")
            total += f.bits
        if total > MAX_KEY_BITS:
            raise KernelError(f"tiling key {cls.__name__} needs {total} bits; at most {MAX_KEY_BITS}")
        check = vars(cls).get("is_valid")
        if check is not None and not callable(check):
            raise KernelError(f"tiling key {cls.__name__}.is_valid must be callable")
        return TilingKeySchema(cls.__name__, fields, cls() if check is not None else None)

    def describe(self) -> str:
        return ", ".join(f"{n} in {list(f.values)}" for n, f in self.fields.items())

    def choose(self, given: Mapping[str, object]) -> dict[str, int]:
        """The key a launch names: every field, values from the schema, accepted by is_valid."""
        missing = [n for n in self.fields if n not in given]
        extra = [n for n in given if n not in self.fields]
        if missing or extra:
            said = []
            if missing:
                said.append(f"missing {', '.join(missing)}")
            if extra:
                said.append(f"unknown {', '.join(extra)}")
            raise KernelError(f"the kernel is specialised on tiling key {self.name} ({self.describe()}); "
                              f"the launch must give every field ({'; '.join(said)}), e.g. --arg FIELD=VALUE")
        key = {}
        for n, f in self.fields.items():
            v = given[n]
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            if v not in f.values:
                raise KernelError(f"tiling key field {n}={v!r} is not one of its values {list(f.values)}")
            key[n] = int(v)  # type: ignore[call-overload]
        if self.is_valid is not None:
            values = tuple(key.values())
            try:
                accepted = self.is_valid.is_valid(values)  # type: ignore[attr-defined]
            except Exception as exc:  # the kernel file's code, not the emulator's
                raise KernelError(f"tiling key {self.name}.is_valid raised {type(exc).__name__}: {exc} (it is "
                                  f"given the key as a tuple of the fields' values in definition order, "
                                  f"here {values})") from None
            if not accepted:
                raise KernelError(f"tiling key {self.name}.is_valid rejects {key}")
        return key


def tiling_data_param(fn) -> tuple[str, type] | None:
    """The kernel's tiling-data parameter (annotated with a dataclass), if it has one."""
    for name, p in inspect.signature(fn).parameters.items():
        ann = p.annotation
        if isinstance(ann, str):
            ann = fn.__globals__.get(ann, ann)
        if isinstance(ann, type) and dataclasses.is_dataclass(ann):
            return name, ann
    return None


def build_tiling_data(cls: type, values: Mapping[str, object], flag: Callable[[str], str] = str):
    """An instance of the tiling-data class from field values (dataclass defaults fill the rest).
    A value given for a field declared `int` or `bool` (or a `pl` integer dtype) is one of that
    type's values, as for a scalar parameter; what the class's own code makes of it is its own.
    `flag`: how `--arg` names a field (`LaunchNames.field_name`), for the message of a missing one."""
    names = [f.name for f in dataclasses.fields(cls)]
    needed = [f.name for f in dataclasses.fields(cls)
              if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    missing = [n for n in needed if n not in values]
    if missing:
        raise KernelError(f"tiling data {cls.__name__} needs field(s) {', '.join(missing)} "
                          f"(fields: {', '.join(names)}), e.g. --arg {flag(missing[0])}=VALUE")
    given = {k: v for k, v in values.items() if k in names}
    defaults = {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}
    for name, declared in tiling_data_types(cls).items():
        value = given.get(name, defaults.get(name))  # a default is passed as any value is
        fault = integer_argument_fault(declared, value) if name in given or name in defaults else None
        if fault is not None:
            raise KernelError(f"tiling-data field {cls.__name__}.{name} is declared {declared}: {fault}")
        if name in given and isinstance(given[name], float):
            given[name] = int(given[name])  # type: ignore[call-overload]  # a whole float: checked above
    for f in dataclasses.fields(cls):
        # a field declared `float` or with a `pl` float dtype is a float on the device, given `2` or
        # `2.0`, or left at a default of `2` (probes h109, h111)
        value = given.get(f.name, defaults.get(f.name))
        if _float_field(f.type) and isinstance(value, int) and not isinstance(value, bool):
            given[f.name] = float(value)
    return cls(**given)


def _float_field(annotation) -> bool:
    """Is a dataclass field declared `float` or with a `pl` float dtype (as Python evaluated the
    annotation, or as its text)?"""
    if annotation in (float, "float"):
        return True
    name = annotation.name if isinstance(annotation, DType) else \
        annotation.rsplit(".", 1)[-1].strip() if isinstance(annotation, str) else ""
    return name.startswith(("DT_FP", "DT_BF"))


def tiling_data_types(cls: type) -> dict[str, str]:
    """Each field of the tiling-data class declared with an integer type, and that type's name
    (`int`, `bool`, `DT_INT32`)."""
    hints = {f.name: declared_scalar_type(f.type) for f in dataclasses.fields(cls)}
    return {name: declared for name, declared in hints.items() if declared is not None}


def declared_scalar_type(annotation) -> str | None:
    """The name of the integer type a scalar is declared with (`int`, `bool`, or a `pl` integer
    dtype's name), from the annotation as Python evaluated it or as text; None for any other."""
    if annotation in (int, bool):
        return annotation.__name__
    if isinstance(annotation, DType):
        name = annotation.name
    elif isinstance(annotation, str):
        name = annotation.rsplit(".", 1)[-1].strip()
    else:
        return None
    return name if scalar_int_values(name) is not None else None


def tiling_data_fields(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def dtype_named(value) -> DType:
    """A dtype given as `pl.DT_*`, its name, or a numpy dtype."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        name = value if value.startswith("DT_") else f"DT_{value.upper()}"
        if name in DTYPES:
            return DTYPES[name]
        raise KernelError(f"unknown dtype {value!r}")
    from sim_runtime.dtypes import from_numpy
    return from_numpy(value)


@dataclass(frozen=True)
class LaunchNames:
    """Names a launch may give besides the kernel's parameters (`--arg NAME=VALUE`)."""

    tiling_key: TilingKeySchema | None
    tiling_data: tuple[str, ...]  #: every field of the tiling-data parameter
    tiling_data_required: tuple[str, ...]  #: its fields without a default
    #: its fields declared with an integer type, and that type (`tiling_data_types`)
    tiling_data_types: tuple[tuple[str, str], ...] = ()
    tiling_param: str = ""  #: the name of the tiling-data parameter
    params: tuple[str, ...] = ()  #: the kernel's parameters

    def field_name(self, field: str) -> str:
        """How `--arg` names a tiling-data field: by its name, or as `tiling.n_rows` (the
        parameter's name, a dot and the field's), which a field named as a parameter of the
        kernel needs (`--arg n_rows` sets the parameter; study ux2)."""
        return f"{self.tiling_param}.{field}" if field in self.params else field

    @property
    def names(self) -> frozenset[str]:
        """The names `--arg` gives the launch by: the tiling-key fields and the tiling-data fields
        (`field_name`)."""
        return frozenset((*(self.tiling_key.fields if self.tiling_key else ()),
                          *(self.field_name(f) for f in self.tiling_data)))

    @property
    def dotted(self) -> frozenset[str]:
        """`tiling.FIELD` for every tiling-data field: a name `--arg` takes for any of them."""
        return frozenset(f"{self.tiling_param}.{f}" for f in self.tiling_data)


def launch_names(kernel) -> LaunchNames:
    """What `kernel` (a `@pl.jit` kernel object) is specialised on and built from."""
    td = tiling_data_param(kernel.fn)
    fields = dataclasses.fields(td[1]) if td else ()
    required = tuple(f.name for f in fields
                     if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
    types = tuple(tiling_data_types(td[1]).items()) if td else ()
    return LaunchNames(kernel.tiling_key_schema, tuple(f.name for f in fields), required, types,
                       td[0] if td else "", tuple(inspect.signature(kernel.fn).parameters))
