"""The values the soundness interpreter computes with.

Scalars are plain Python numbers, `UNKNOWN` when they depend on something the interpreter
does not model, or an `Opaque` value when they come from data (`pl.getval`): unknown as a
number, but named by the read that produced it, so that the two runs can be compared.

Handles name memory: a tensor in GM, a tile group with its slots, one tile (a slot, a
`pl.make_tile` tile or a view of either), structs and tuples.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import libcst as cst

from pto_api.memory import DTYPE_BITS, int_values
from pto_api.scalars import INT_FIELD, holds_every, stored


class _Unknown:
    """A value the interpreter cannot know statically (data, an unmodelled call, ...)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "?"

    def __bool__(self) -> bool:  # pragma: no cover - a bug if reached: conditions check first
        raise TypeError("truth value of an unknown")


UNKNOWN = _Unknown()


class OneBlock(_Unknown):
    """The outcome of a test that singles out one block (`core_id == 0`): true on block
    `block` only, unknown to a run that follows block 0 for every block (`PythonSubset._compare`).
    `others`: its negation (`core_id != 0`, `not core_id == 0`), false on that block only, whose
    `else` is that block's."""

    block: Any
    others: bool

    def __new__(cls, block: Any, others: bool = False) -> OneBlock:  # not the UNKNOWN singleton: one per test
        obj = object.__new__(cls)
        obj.block = block
        obj.others = others
        return obj


class Rebound(_Unknown):
    """A name's value after a branch that may or may not have run rebound it (`if core_id == 1:
    start = 0`): unknown, remembering the test, so that a refusal can name it."""

    test: str

    def __new__(cls, test: str) -> Rebound:  # not the UNKNOWN singleton: one per test
        obj = object.__new__(cls)
        obj.test = test
        return obj


class TensorView(_Unknown):
    """A view of a GM tensor (`out[:, 0:BLOCK]`): an operand the check does not follow (where its
    window lies in the tensor), remembering the tensor so that a refusal can name the fix."""

    tensor: str

    def __new__(cls, tensor: str) -> TensorView:  # not the UNKNOWN singleton: one per view
        obj = object.__new__(cls)
        obj.tensor = tensor
        return obj


class Opaque(_Unknown):
    """A run-time value (data read by `pl.getval`, or arithmetic on such values) named by its
    origin: the read that produced it, identified the same way in the serial and the pipelined
    run. Unknown for every computation; two values of the same origin are the same number, so
    a stage that receives one from another iteration than in the serial kernel is caught."""

    origin: tuple

    def __new__(cls, origin: tuple) -> Opaque:  # not the UNKNOWN singleton: one per origin
        obj = object.__new__(cls)
        obj.origin = origin
        return obj

    def __eq__(self, other: object) -> bool:  # the same origin is the same number
        return isinstance(other, Opaque) and other.origin == self.origin

    def __hash__(self) -> int:
        return hash(self.origin)

    def __repr__(self) -> str:
        return f"<value of {describe_origin(self.origin)}>"


def root_words(origin: tuple) -> str:
    """A trip-count root in a message: `n` for a parameter or a module name, else its origin."""
    if origin and origin[0] in ("param", "const"):
        return f"`{origin[1]}`"
    if origin and origin[0] == "read":
        return f"the value of {describe_origin(origin)}"
    return describe_origin(origin).replace(" (a `pl.DYNAMIC` dimension)", "")


def describe_origin(origin: Any) -> str:
    """Words for an `Opaque` origin: the read (stage and task, or the kernel body's line text)."""
    if not isinstance(origin, tuple):
        return repr(origin)
    if origin and origin[0] == "read":  # ("read", where, ident[, a field read or "per block"])
        ident = origin[2]
        if len(ident) >= 3 and ident[0] == "stage":
            return f"the read #{ident[3] + 1} of stage `{ident[1]}` (task {ident[2]})" if len(ident) > 3 else (
                f"a read of stage `{ident[1]}` (task {ident[2]})")
        if len(ident) == 3 and ident[0] == "code":
            return f"`{ident[1]}` (occurrence {ident[2] + 1})"
        return repr(ident)
    if origin and origin[0] == "set by":  # ("set by", core, "stage", name, number, target)
        return f"`{origin[5]}` as stage `{origin[3]}` (task {origin[4]}) set it"
    if origin and origin[0] == "shape":
        return f"`{origin[1]}.shape[{origin[2]}]` (a `pl.DYNAMIC` dimension)"
    if origin and origin[0] == "op" or len(origin) == 2 and origin[0] == "float":
        return f"`{origin_code(origin)}`"
    return repr(origin)


#: Python's operator for each binary op an `Opaque` records (`operator.<name>`), and how
#: tightly it binds: an operand binding less tightly is parenthesised.
_BINARY = {"add": ("+", 5), "sub": ("-", 5), "mul": ("*", 6), "truediv": ("/", 6), "floordiv": ("//", 6),
           "mod": ("%", 6), "matmul": ("@", 6), "pow": ("**", 8), "lshift": ("<<", 4), "rshift": (">>", 4),
           "and_": ("&", 3), "xor": ("^", 2), "or_": ("|", 1)}
#: The unary ops (libcst's operator names), binding as tightly as Python's.
_UNARY = {"Minus": "-", "Plus": "+", "BitInvert": "~", "Not": "not "}
_ATOM = 9


def origin_code(origin: Any) -> str:
    """A value computed at run time as the expression that computes it (`(a.shape[0] + 31) // 32`),
    so a message shows what the author wrote rather than a tree of op names."""
    return _code(origin)[0]


def _code(origin: Any) -> tuple[str, int]:
    """(text, how tightly it binds) of an `Opaque` origin or a plain operand."""
    if not isinstance(origin, tuple) or not origin:
        return repr(origin), _ATOM
    kind = origin[0]
    if kind == "shape":
        return f"{origin[1]}.shape[{origin[2]}]", _ATOM
    if kind in ("param", "const", "float") and len(origin) == 2:  # a scalar parameter (`n_rows`, a float
        return str(origin[1]), _ATOM  # `alpha`, `tiling.scale`), a module name
    if kind == "op" and origin[1] in _BINARY and len(origin) == 4:
        symbol, strength = _BINARY[origin[1]]
        (left, ls), (right, rs) = _code(origin[2]), _code(origin[3])
        right_assoc = origin[1] == "pow"
        left = left if ls > strength or (ls == strength and not right_assoc) else f"({left})"
        right = right if rs > strength or (rs == strength and right_assoc) else f"({right})"
        return f"{left} {symbol} {right}", strength
    if kind == "op" and origin[1] in _UNARY and len(origin) == 3:
        inner, strength = _code(origin[2])
        return _UNARY[origin[1]] + (inner if strength >= 7 else f"({inner})"), 7
    if kind == "op" and origin[1] == "choose" and len(origin) == 5 and isinstance(origin[2], tuple) \
            and len(origin[2]) == 3 and origin[2][0] in _TESTS:
        # a choice by a test of the block (`cnt = base + 1 if core_id < rem else base`), as written
        name, left, right = origin[2]
        arms = [_code(arm) for arm in origin[3:]]
        a, b = (text if strength > 0 else f"({text})" for text, strength in arms)
        return f"{a} if {_term(left)} {_TESTS[name]} {_term(right)} else {b}", 0
    if kind == "op":
        return f"{origin[1]}({', '.join(_code(o)[0] for o in origin[2:])})", _ATOM
    if kind == "block" and len(origin) == 4:
        return origin[1], _ATOM
    return f"<{describe_origin(origin)}>", _ATOM


#: the comparisons a choice by the block names (`uniform`'s test forms)
_TESTS = {"lt": "<", "eq": "=="}


def _term(term: Any) -> str:
    """An operand of a choice's test: the block index (`core_id`), the block count plus a number
    (`num_cores`), or a run-time value."""
    if term == ("block", "index"):
        return "core_id"
    if isinstance(term, tuple) and len(term) == 3 and term[:2] == ("block", "index") and type(term[2]) is int:
        return f"core_id + {term[2]}" if term[2] >= 0 else f"core_id - {-term[2]}"
    if isinstance(term, tuple) and len(term) == 3 and term[0] == "block" and term[2] == "count" \
            and type(term[1]) is int:
        return "num_cores" if not term[1] else f"num_cores {'+' if term[1] > 0 else '-'} {abs(term[1])}"
    text, strength = _code(term)
    return text if strength > 5 else f"({text})"


def origin_of(value: Any) -> Any:
    """What an `Opaque` value stands for (its origin), or a plain number itself."""
    return value.origin if isinstance(value, Opaque) else value


class Unkeyed(dict):
    """A dict display whose keys are not all plain numbers and strings (a run-time value, a
    sampled parameter, an object): which of its items Python merges (`{0: a, 0.0: b}`, `{v: a,
    v + 0: b}`) is not known, so its keys, its length and its items are unknown. It holds its
    values under made-up keys all the same, for what a call it is handed could reach."""


_UNKNOWNS = (_Unknown, Unkeyed)


def is_unknown(value: Any) -> bool:
    return isinstance(value, _UNKNOWNS)


def known(*values: Any) -> bool:
    for v in values:  # a loop, not `any`: asked of the operands of every operation
        if isinstance(v, _UNKNOWNS):
            return False
    return True


@dataclass(frozen=True)
class Symbol:
    """A `pl` attribute constant: `pl.PipeType.V`, `pl.MemorySpace.Vec`, `pl.DT_FP32`, ..."""

    path: tuple[str, ...]

    @property
    def leaf(self) -> str:
        return self.path[-1]


@dataclass(frozen=True)
class TensorV:
    """A GM tensor (a kernel parameter); element coordinates address it."""

    name: str
    shape: tuple  #: dims, UNKNOWN where not static
    elem: int  #: bytes per element


@dataclass(frozen=True)
class TileTypeV:
    shape: tuple
    memory: str
    elem: int
    valid: tuple = ()  #: `valid_shape`, when static and given
    layout: str = ""
    #: `valid_shape` computed from a value known only at run time (`run_time`)
    valid_at_run_time: bool = False
    #: made by kernel-body code inside a loop of run-time trip count: each iteration its own
    in_loop_body: bool = field(default=False, compare=False)

    @property
    def nbytes(self) -> int:
        n = self.elem
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True)
class TileV:
    """One tile: bytes `[lo, hi)` of `memory`, guarded by `mutex` ids (empty: no auto_mutex)."""

    memory: str
    lo: int
    hi: int
    mutex: tuple[int, ...]
    label: str  #: `x_db[1]` or the `pl.make_tile` variable, for messages
    shape: tuple = ()
    valid: tuple = ()  #: the declared valid shape (`TileType(valid_shape=...)`), () when unknown
    elem: int = 4  #: bytes per element
    layout: str = ""
    #: which descriptor this is (a `pl.make_tile` call's or a group slot's): `pl.set_validshape`
    #: changes the valid shape of the descriptor, tracked per core by this number; 0 for a view
    #: (`tile[a:b, c:d]`), whose valid shape the check does not follow. Not compared: the two
    #: runs number descriptors independently.
    desc: int = field(default=0, compare=False)
    #: for a view with static bounds (`tile[0:8, :]`), its rows and columns: what it can move
    #: to or from GM at the most (its valid shape is that, clipped by its tile's); () otherwise.
    #: Its bytes stay those of its whole tile, and its row stride its tile's.
    part: tuple = ()
    #: for a view, its tile's descriptor: whose valid shape, set by whom, the view's is clipped from
    base: int = field(default=0, compare=False)
    #: for a view of whole rows of an ND tile whose row bounds the runs follow (`tile[r0:r1, :]`,
    #: `r0` a number or a residue of a loop variable): the bytes `[lo, hi)` of its rows, which
    #: block ops on it reach (`OpEvents._tile_feet`); () otherwise, its whole tile's
    span: tuple = ()


def whole_tile(tile: Any) -> Any:
    """`tile` (a tile, or each tile it may be) reaching its whole tile's bytes: a view of whole
    rows as its tile (`TileV.span`)."""
    if type(tile) is TileV:
        return replace(tile, span=()) if tile.span else tile
    if isinstance(tile, AnyTileV) and any(t.span for t in tile.choices):
        return AnyTileV(tuple(whole_tile(t) for t in tile.choices), tile.label)
    return tile


@dataclass(frozen=True)
class AnyTileV:
    """One of several tiles, which one is unknown (a runtime index, an unknown cursor)."""

    choices: tuple[TileV, ...]
    label: str


@dataclass(eq=False)
class GroupV:
    """A tile group; each core keeps its own cursor (`Core.cursors`)."""

    name: str
    tiles: tuple[TileV, ...]
    node: cst.CSTNode

    @property
    def depth(self) -> int:
        return len(self.tiles)


@dataclass(eq=False)
class StructV:
    """`pl.struct(...)`, a `pl.struct_array` entry or `pl.make_tuple(...)`: mutable fields."""

    fields: dict = field(default_factory=dict)
    origin: str = ""
    #: for tiling data: the attributes whose read runs code of its class (a method, a property;
    #: "*" for a `__getattr__`)
    methods: frozenset[str] = frozenset()
    #: field -> what it holds, from its initialiser (`pto_api.scalars`: `INT_FIELD` or a `DT_*`
    #: name): a number stored into it is converted as the device converts it
    kinds: dict = field(default_factory=dict)


@dataclass(frozen=True)
class FunctionV:
    kind: str  #: "stage", "helper" or "vf"
    node: cst.FunctionDef
    #: a `def` run inside a function: its parameters' defaults, computed when it ran
    defaults: dict | None = field(default=None, compare=False, hash=False)

    @property
    def name(self) -> str:
        name = self.node.name  # a vector function kept as text has a plain name
        return name if isinstance(name, str) else name.value


@dataclass(frozen=True)
class Builtin:
    name: str


@dataclass(frozen=True, eq=False)
class Unrun:
    """A lambda: a function the check does not run, so one that is called, or handed to a
    call the check does not follow, is refused (it could do anything to what it captures)."""

    node: cst.Lambda


class Sym(int):
    """An integer of one concrete run that also records how it depends on what varies between
    runs and iterations (`soundness/uniform.py`): a loop variable of a loop whose trip count is
    known only at run time, a counter carried across its iterations, a trip count itself, the
    block index. The value is `const + sum(coefficient * variable)` over `form`; `moving` is
    what the loop variables and counters contribute to it in this run; `residue` marks a value
    periodic in them instead (`x % k`)."""

    form: tuple
    residue: bool
    const: int
    moving: int

    def __new__(cls, value: int, form: tuple, residue: bool = False, const: int = 0, moving: int = 0) -> Sym:
        obj = int.__new__(cls, value)
        obj.form = form
        obj.residue = residue
        obj.const = const
        obj.moving = moving
        return obj

    def __repr__(self) -> str:
        return repr(int(self))

    __str__ = __repr__


class OriginSym(Sym):
    """A number of the run inside a run-time value's origin (`max(core_id * 2, z)`, a block value
    named by its text): equal only to a number with the same value, form and residue, so that
    values computed from different block values (`core_id * 2`, `core_id * 4`, both 0 at block
    0) are different values. As a number it is the number of the run, as a `Sym` is."""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sym):
            return int(self) == int(other) and self.form == other.form and self.residue == other.residue
        return not self.form and int(self) == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(int(self)) if not self.form else hash((int(self), self.form, self.residue))

    @classmethod
    def of(cls, value: Any) -> Any:
        """`value` as it stands in an origin: a `Sym` as an `OriginSym`, anything else itself."""
        if isinstance(value, Sym) and not isinstance(value, OriginSym):
            return cls(int(value), value.form, value.residue, value.const, value.moving)
        return value


def trip_root(stop: tuple) -> tuple[tuple, int]:
    """(root, c) for the stop of a loop of run-time trip count, `root + c`: a constant added to
    a run-time value (`pl.range(0, my_n + 1)`, a software pipeline's beats) is peeled off, so
    that the value itself (`my_n`) is the root and a test against it (`t < my_n`) reads as one
    against the loop's stop (`t < stop - 1`, the last iteration)."""
    if len(stop) == 4 and stop[0] == "op" and stop[1] in ("add", "sub") and isinstance(stop[2], tuple) \
            and type(stop[3]) is int:
        return stop[2], stop[3] if stop[1] == "add" else -stop[3]
    if len(stop) == 4 and stop[:2] == ("op", "add") and type(stop[2]) is int and isinstance(stop[3], tuple):
        return stop[3], stop[2]
    return stop, 0


def trip_leaves(origin) -> list:
    """The scalar parameters and `pl.DYNAMIC` dimensions a trip-count root is computed from."""
    if not isinstance(origin, tuple) or not origin:
        return []
    if origin[0] in ("param", "shape", "const"):
        return [origin]
    if origin[0] == "op":
        return [leaf for part in origin[2:] for leaf in trip_leaves(part)]
    return []


def quotient_parameter(origin) -> tuple | None:
    """The parameter of a trip-count root that is a scalar parameter plus a constant divided by a
    positive constant (`n_rows // TILE`, `(n_rows + TILE - 1) // TILE`): `("param", name)`, or None."""
    if not (isinstance(origin, tuple) and len(origin) == 4 and origin[:2] == ("op", "floordiv")
            and type(origin[3]) is int and origin[3] > 0):
        return None
    top = shifted(origin[2])[0]
    return top if isinstance(top, tuple) and len(top) == 2 and top[0] == "param" else None


def shifted(origin) -> tuple[Any, int]:
    """(base, c) of a run-time value that is `base` moved by whole numbers (`n + TILE - 1`:
    `(n, 31)`); `(origin, 0)` for any other."""
    moved = 0
    while isinstance(origin, tuple) and len(origin) == 4 and origin[:1] == ("op",) and origin[1] in ("add", "sub") \
            and type(origin[3]) is int and isinstance(origin[2], tuple):
        moved += origin[3] if origin[1] == "add" else -origin[3]
        origin = origin[2]
    return origin, moved


def clamped_parameter(origin) -> tuple | None:
    """The parameter of a trip-count root that is a scalar parameter clamped by constants
    (`max(n, 0)`, `min(n, 4)`, `abs(n)`, `0 - min(n, 0)`, moved by whole numbers too):
    `("param", name)`, or None. Sampled, the count would be a number of the sample, and the
    loop it bounds one of static count (probe h119)."""
    base = shifted(origin)[0]
    if isinstance(base, tuple) and len(base) == 2 and base[0] == "param":
        return base
    if not (isinstance(base, tuple) and base[:1] == ("op",)):
        return None
    parts = [part for part in base[2:] if type(part) is not int]
    if len(parts) != 1 or not (base[1] in ("max", "min", "abs", "Minus") or base[1] == "sub" and type(base[2]) is int):
        return None
    return clamped_parameter(parts[0])


def quotient_parameters(origin) -> set:
    """The parameters of the quotients a trip-count root is or holds (`quotient_parameter`):
    `min(per, n_blocks - core_id * per)` with `n_blocks = (n_rows + 31) // 32` holds `n_rows`'s;
    and that of a root that is a parameter clamped by constants (`clamped_parameter`)."""
    found = {quotient_parameter(origin)} - {None}
    if isinstance(origin, tuple) and origin[:1] == ("op",) and (clamped := clamped_parameter(origin)) is not None:
        found.add(clamped)
    if isinstance(origin, tuple) and origin[:1] == ("op",):
        for part in origin[2:]:
            found |= quotient_parameters(part)
    return found


def nonnegative(origin) -> bool:
    """A trip-count root no launch makes negative: a tensor dimension, and sums, products,
    floor quotients and residues of such values by positive constants or by the block count
    (`(n - core_id + num_cores - 1) // num_cores`, the tiles of one block: a block index is
    below the block count)."""
    if type(origin) is int:
        return origin >= 0
    if not isinstance(origin, tuple) or not origin:
        return False
    if origin[0] == "shape" or _block_marker(origin) in ("count", "index"):
        return True
    if origin[0] == "op" and len(origin) == 4 and origin[1] in ("add", "sub"):
        return _sum_lower_bound(origin) >= 0
    if origin[:2] == ("op", "abs"):
        return True
    if origin[0] == "op" and len(origin) == 4 and origin[1] == "mul":
        return nonnegative(origin[2]) and nonnegative(origin[3])
    if origin[0] == "op" and len(origin) == 4 and origin[1] in ("floordiv", "mod"):
        divisor = origin[3]
        return nonnegative(origin[2]) and (type(divisor) is int and divisor > 0 or _block_marker(divisor) == "count")
    return False


def _block_marker(origin) -> str | None:
    """The kind of a block value inside a run-time value (`pysubset._block_mark`), or None."""
    return origin[3] if isinstance(origin, tuple) and len(origin) == 4 and origin[0] == "block" else None


def _sum_lower_bound(origin) -> float:
    """A lower bound of a sum of terms: a nonnegative term adds 0, a literal itself, a block
    count at least 1, a block index subtracted from it at most the count less 1 (so each pair
    leaves at least 1); -inf for a term it cannot bound."""
    terms: list[tuple[int, object]] = []

    def flatten(o, sign: int) -> None:
        if isinstance(o, tuple) and len(o) == 4 and o[:2] in (("op", "add"), ("op", "sub")):
            flatten(o[2], sign)
            flatten(o[3], sign if o[1] == "add" else -sign)
        else:
            terms.append((sign, o))

    flatten(origin, 1)
    counts = sum(1 for sign, t in terms if sign > 0 and _block_marker(t) == "count")
    indexes = sum(1 for sign, t in terms if sign < 0 and _block_marker(t) == "index")
    if indexes > counts:
        return float("-inf")
    lower = counts
    for sign, t in terms:
        if type(t) is int:
            lower += sign * t
        elif _block_marker(t) == "count" and sign > 0 or _block_marker(t) == "index" and sign < 0:
            continue
        elif not (sign > 0 and nonnegative(t)):
            return float("-inf")
    return lower


def run_time(value: Any) -> bool:
    """A number known only at run time that a run follows at one value: one computed from a
    scalar parameter or tiling data (sampled), the block index, a trip count, a loop variable
    (a residue of these is periodic, and every phase of it is run), or a value read from GM."""
    if isinstance(value, Sym):
        return bool(value.form) and not value.residue
    return isinstance(value, Opaque)


def sampled_int(value: Any) -> Any:
    """A value computed only from sampled scalar parameters as the plain number of this run
    (a range or a builtin over it is static in the run); anything else unchanged."""
    if isinstance(value, Sym) and value.form and all(v[0] == "scalar" for v, _ in value.form) and not value.residue:
        return int(value)
    return value


#: the operators a trip-count root may be computed with (`Opaque` origins name them so)
_ORIGIN_OPS: dict[str, Callable[..., int]] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
    "mod": operator.mod, "Minus": operator.neg,
}


def evaluate_origin(origin, dims: dict, names: dict) -> int | None:
    """The number a run-time value of this origin (a trip-count root, a grid's count) stands for at
    the sizes `dims` (tensor name -> its shape) and module constants `names`; None where they do
    not give one."""
    if isinstance(origin, int) and not isinstance(origin, bool):
        return origin
    if not isinstance(origin, tuple) or not origin:
        return None
    if origin[0] == "const":
        return names.get(origin[1])
    if origin[0] == "shape":
        value = dims.get(origin[1], ())[origin[2]] if origin[2] < len(dims.get(origin[1], ())) else None
        return value if isinstance(value, int) else None
    if origin[0] == "op" and origin[1] in _ORIGIN_OPS:
        args = [evaluate_origin(a, dims, names) for a in origin[2:]]
        if any(a is None for a in args):
            return None
        try:
            return int(_ORIGIN_OPS[origin[1]](*args))
        except (ZeroDivisionError, TypeError):
            return None
    return None


def typed_number(value: Any, kind: str, scalar: bool = False) -> Any:
    """`value` as a scalar of `kind` (`pto_api.scalars`: a field initialised with an int, or a
    `DT_*` name) holds it, as the emulator stores it: a number converted (`16.0` in a field of
    integers is `16`, an int where the serial kernel hands the stage a float: probe h109); an
    integer that varies between runs (`Sym`) kept where the conversion leaves its value, else
    converted (its form no longer holds); a run-time float (`Opaque`) in an integer field its
    integer part; anything else as it is."""
    if type(value) in (int, float) or scalar and type(value) is bool:
        # (a bool is converted by `pl.const` and an annotated local, `scalar`, not by a struct
        # field, which keeps it as it is given, in the emulator: probe h110)
        try:
            return stored(int(value) if type(value) is bool else value, kind)
        except ValueError:  # (a NaN, or a float past an integer dtype's range: not defined)
            return UNKNOWN
    if type(value) is Sym:
        converted = stored(int(value), kind)
        return value if converted == int(value) else converted
    if type(value) is Opaque and (kind == INT_FIELD or kind.startswith(("DT_INT", "DT_UINT"))) \
            and float_valued(value.origin):
        # a float the run does not know (`alpha * 0.5` of a float parameter) in an integer field:
        # whatever it is, the field holds its integer part, another value than the run's
        return Opaque(("op", "int", value.origin))
    if type(value) is Opaque and kind != INT_FIELD and (DTYPE_BITS.get(kind, 64) < 32 or not kind.startswith(
            ("DT_INT", "DT_UINT"))):
        # a value the run does not know, in a dtype that wraps or rounds it at some run (a GM read
        # times 40 as int8, probe h111): the same conversion of the same value is one value, a
        # field of another kind (a ctx field of integers) holds another
        if type(value.origin) is tuple and value.origin[:3] == ("op", "as", kind):
            return value  # (converted to `kind` already: a field of the same dtype holds it as it is)
        return Opaque(("op", "as", kind, value.origin))
    return value


#: the mark of a value read from an element of a floating-point GM tensor (the last item of its origin)
FLOAT_READ = "of a float tensor"
#: operations on run-time values whose result is an integer whatever they are given
_INTEGER_RESULTS = frozenset({"int", "floor", "ceil", "trunc", "len", "round", "isqrt", "gcd", "lcm", "bool",
                              "isfinite", "isinf", "isnan"})
#: operations on run-time values whose result is a float whatever they are given (`float`, and
#: Python's `math` functions but those of `_INTEGER_RESULTS`)
_FLOAT_RESULTS = frozenset({"float", "sqrt", "log2", "fabs", "copysign", "exp", "expm1", "log", "log10", "log1p",
                            "hypot", "fmod", "remainder", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
                            "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "degrees", "radians",
                            "math.pow"})


def float_valued(origin: Any) -> bool:
    """Is a run-time value a float: a float parameter or tiling-data field (`("float", name)`),
    or arithmetic with one, with a float number, or by true division? (A value read from GM, or
    anything else, is not said to be.)"""
    if type(origin) is float:
        return True
    if not isinstance(origin, tuple) or not origin:
        return False
    if origin[0] == "float" or origin[0] == "read" and origin[-1] == FLOAT_READ:
        return True
    if origin[0] != "op" or len(origin) < 2:
        return False
    if origin[1] in _FLOAT_RESULTS:
        return True
    if origin[1] == "round":  # `round(x, n)` of a float is a float; `round(x)` an integer
        return len(origin) == 4 and float_valued(origin[2])
    if origin[1] in _INTEGER_RESULTS:
        return False
    if origin[1] == "pow" and len(origin) == 4 and not (type(origin[3]) is int and origin[3] >= 0):
        return True  # `k ** -1`, `a ** b` of a value read at run time: a float where the power is negative
    return origin[1] == "truediv" or any(float_valued(part) for part in origin[2:])


#: operations of integers whose result is an integer
_INTEGER_OPS = frozenset({"add", "sub", "mul", "floordiv", "mod", "neg", "max", "min", "abs"})


def vars_inside(value: Any) -> list:
    """The variables of the numbers of the run a run-time value is computed from (`min(kv_tiles, qi
    + 1)` holds the loop variable `qi`): such a value is another one in each iteration of that loop."""
    if isinstance(value, Sym):
        return [found for var, _ in value.form
                for found in ([var] + (vars_inside(var[1]) if var[0] == "size" else []))]
    if isinstance(value, Opaque):
        value = value.origin
    if isinstance(value, (tuple, list)):
        return [var for part in value for var in vars_inside(part)]
    return []


def integer_valued(origin: Any) -> bool:
    """Is a run-time value an integer: a `pl.DYNAMIC` dimension, an integer parameter or module
    name, a block value, or `+ - * // %`, `min`, `max` of such and of integers? (A float parameter is `("float",
    name)`; a value read from GM, or anything else, is not said to be.)"""
    if type(origin) is int or isinstance(origin, Sym):
        return True
    if not isinstance(origin, tuple) or not origin:
        return False
    if origin[0] in ("shape", "param", "const") and len(origin) in (2, 3) or origin[0] == "block":
        return True  # (a block value: the index or count, moved by whole numbers)
    if origin[0] == "op" and len(origin) >= 3:
        if origin[1] in ("int", "floor", "ceil", "trunc", "isqrt"):
            return True
        if origin[1] in ("gcd", "lcm"):
            return all(integer_valued(part) for part in origin[2:])
        if origin[1] == "round":  # `round(x)` is an integer, `round(x, n)` one of an integer `x`
            return len(origin) == 3 or integer_valued(origin[2])
        return origin[1] in _INTEGER_OPS and all(integer_valued(part) for part in origin[2:])
    return False


#: dtypes that hold every integer a run can make (a value of the loop variable, a trip count, a
#: parameter): the 64-bit integers
_WIDE = frozenset({"DT_INT64", "DT_UINT64"})
#: dtypes that hold every value of an integer parameter (32 bits; a float one is not: fp32 rounds
#: past 2 ** 24)
_PARAMETER_WIDE = frozenset({"DT_INT32", "DT_UINT32", "DT_INT64", "DT_UINT64"})


def narrows(value: Any, kind: str, declared: str | None = None,
            parameter_range: Callable[[str], tuple[int, int]] | None = None) -> bool:
    """Would a scalar of `kind` (`pto_api.scalars`) change some run's value of `value`, an
    integer the run follows with its form (`Sym`)? One that grows with the loop variable, a
    counter or a trip count wraps or rounds at some count in any dtype but a 64-bit integer
    (`n * 2 ** 27` as `DT_INT32` is 0 at `n` = 32: probe h106); one of a scalar parameter, in a
    float dtype or an integer one narrower than 32 bits. In the dtypes that remain, the value
    must fit at every run (`_fits`): `ki * 2 ** 57` as `DT_INT64` wraps at `ki` = 64 (probe
    h109). The value at this run's counts says nothing of the others. `declared`: the dtype of
    the scalar parameter `value` is, if it is one itself; `parameter_range`: the values a scalar
    parameter (by name) can take."""
    if not isinstance(value, Sym) or not value.form or kind == INT_FIELD:
        return False
    parameter = any(var[0] == "scalar" for var, _ in value.form)
    if any(var[0] == "derived" and any(root[0] in ("scalar", "size") for root in var[2]) for var, _ in value.form):
        # computed from a parameter or a size otherwise than affinely (`k % 200`, `n * n`): no range
        # the check knows, so no dtype is known to hold it at every run (probe h109: `k % 200` as
        # `DT_INT8` wrapped at `k` = 150)
        return True
    if value.residue:
        # a residue of the loop variable or a counter is periodic: the runs take each of its
        # values; one of a sampled parameter (`k % 200`) is not run at all of them (probe h109: as
        # `DT_INT8` it wrapped at `k` = 150), and fits only a dtype that holds every parameter's
        return parameter and kind not in _PARAMETER_WIDE
    if declared is not None and holds_every(kind, declared):
        return False  # (a parameter itself, of a dtype `kind` holds: `g: pl.DT_INT8 = k` of an int8 `k`)
    grows = any(var[0] in ("loop", "carried", "grid", "size") for var, _ in value.form)
    if grows and kind not in _WIDE:
        return True
    if not grows and not parameter:
        return False
    if not grows and kind not in _PARAMETER_WIDE:
        return True
    return not _fits(value, kind, parameter_range or (lambda _name: (-(2 ** 63), 2 ** 63 - 1)))


#: the values a loop variable, a counter, a trip count or a size takes at any run the check
#: proves a kernel for: below 2 ** 32 in magnitude (a loop of 2 ** 32 iterations is no run)
COUNT_BOUND = 2 ** 32


def _fits(value: Sym, kind: str, parameter_range: Callable[[str], tuple[int, int]]) -> bool:
    """Does every value `value`'s form takes, its variables in their ranges (`COUNT_BOUND`, a
    parameter's own), fit in the integer dtype `kind`?"""
    bounds = int_values(kind)
    if bounds is None:
        return False
    low = high = value.const
    for var, coefficient in value.form:
        if var[0] == "scalar":
            a, b = parameter_range(var[1])
        elif var[0] == "size" and isinstance(var[1], tuple) and var[1][:1] == ("param",):
            a, b = parameter_range(var[1][1])  # (a parameter followed as a size: its own range, probe h110)
        else:  # (a counter may step down from where it starts: either sign)
            a, b = (-COUNT_BOUND if var[0] == "carried" else 0), COUNT_BOUND
        ends = (coefficient * a, coefficient * b)
        low, high = low + min(ends), high + max(ends)
    return bounds[0] <= low and high <= bounds[1]
