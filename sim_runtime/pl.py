"""sim_runtime's `pypto_pro.language` (`pl`): the surface a kernel file sees when simulated.

Descriptor-level API (dtypes, TileType, groups, structs, launch syntax) is plain Python;
every data op and sync call is routed to the calling core's `Machine`, found through the
thread the core runs in. A `pl.<name>` the emulator does not implement resolves to a
function that raises `UnsupportedOpError` with the kernel's file:line when called, so
loading a file never fails on an unknown op but running it never silently skips one.
"""

from __future__ import annotations

import builtins
import enum
import functools
from dataclasses import dataclass
from types import SimpleNamespace

from pto_api import CROSS_CORE_SYNC_MODES, PIPES
from pto_api.effects import ATOMIC_REDUCTIONS as _ATOMIC_REDUCTIONS
from pto_api.ops import ACC_TO_VEC_MODES
from sim_runtime import assumed as _assumed
from sim_runtime import gm as _gm
from sim_runtime import ops as _ops
from sim_runtime import tiles as _tiles
from sim_runtime import vf as _vf
from sim_runtime import vflanes as _vflanes  # noqa: F401
from sim_runtime import vfmem as _vfmem  # noqa: F401
from sim_runtime import vfops as _vfops  # noqa: F401  (registers the rest of the vf ops)
from sim_runtime.dtypes import DTYPES
from sim_runtime.dtypes import DType as _DType
from sim_runtime.errors import KernelError, Location, UnsupportedOpError, caller
from sim_runtime.kernelspec import TilingKeySchema
from sim_runtime.launch import launch
from sim_runtime.scheduler import current_core

# -- data types, memory spaces, layouts ---------------------------------------------------------
globals().update(DTYPES)  # DT_FP32, DT_FP16, ...

MemorySpace = _tiles.MemorySpace
TileType = _tiles.TileType
TileLayout = _tiles.TileLayout
ND, DN, NZ, ZN, NN, ZZ = TileLayout.ND, TileLayout.DN, TileLayout.NZ, TileLayout.ZN, TileLayout.NN, TileLayout.ZZ
Tensor = _tiles.TensorAnnotation
DYNAMIC = _tiles.DYNAMIC
STATIC = _tiles.STATIC


class _Annotation:
    """`pl.Tile[...]`, `pl.Ptr[...]`: annotations only."""

    def __class_getitem__(cls, item):
        return cls


class Tile(_Annotation):
    pass


Ptr = _tiles.PtrAnnotation


PipeType = _tiles.table_enum("PipeType", {p: p for p in (*PIPES, "ALL")})


CrossCoreSyncMode = _tiles.table_enum("CrossCoreSyncMode", CROSS_CORE_SYNC_MODES, enum.IntEnum)


def _enum(name: str, *members: str) -> type[enum.Enum]:
    return _tiles.table_enum(name, {m: m for m in members})


SyncCoreType = _enum("SyncCoreType", "MIX", "AIV_ONLY", "AIC_ONLY")
SyncAllMode = _enum("SyncAllMode", "HARD", "SOFT")
AccToVecMode = _enum("AccToVecMode", *ACC_TO_VEC_MODES)
AtomicType = _enum("AtomicType", *_ATOMIC_REDUCTIONS)
ReluPreMode = _enum("ReluPreMode", "NormalRelu")
RoundMode = _enum("RoundMode", "CAST_NONE", "CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL",
                  "CAST_TRUNC", "CAST_ODD")
AccPhase = _enum("AccPhase", "Partial", "Final")
STPhase = _enum("STPhase", "Unspecified", "Partial", "Final")
FillPadMode = _enum("FillPadMode", "NORMAL", "EXPAND", "INPLACE")
TilePad = enum.IntEnum("TilePad", {"null": 0, "zero": 1, "max": 2, "min": 3})
MaskPattern = _enum("MaskPattern", *_vf.MASK_PATTERNS)
LoadDist = _enum("LoadDist", *_vf.LOAD_DISTS)
DataCopyMode = _enum("DataCopyMode", *_vf.DATA_COPY_MODES)
CastLayout = _enum("CastLayout", *_vf.CAST_LAYOUTS)
MergeMode = _enum("MergeMode", *_vf.MERGE_MODES)
MemBarMode = _enum("MemBarMode", *_vf.MEM_BAR_MODES)
VFRoundMode = _enum("VFRoundMode", "CAST_ROUND", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD",
                    "CAST_HYBRID")
DuplicatePos = _enum("DuplicatePos", "LOWEST", "HIGHEST")
SqueezeMode = _enum("SqueezeMode", "NO_STORE_REG", "STORE_REG")
PackPart = _enum("PackPart", "LOWER", "UPPER")
IndexOrder = _enum("IndexOrder", "INCREASE_ORDER", "DECREASE_ORDER")
SaturateMode = _enum("SaturateMode", "OFF", "ON")
HistType = _enum("HistType", "ACCUMULATE", "FREQUENCY")
BinType = _enum("BinType", "BIN0", "BIN1")
MaskWidth = _enum("MaskWidth", "B32", "B16")
StoreDist = _enum("StoreDist", "NORM", "NORM_B16", "NORM_B32", "FIRST_ELEMENT", "PACK", "PACK4", "INTLV", "INTLV_B32")
QuantMode = _enum("QuantMode", "SYM", "ASYM")


# -- plumbing -----------------------------------------------------------------------------------

def _where(depth: int = 3) -> Location:
    return caller(depth)


def _core(name: str, where: Location):
    core = current_core()
    if core is None:
        raise KernelError(f"pl.{name} called outside a simulated kernel run", where)
    if _vf.active():
        raise KernelError(f"pl.{name} inside a @pl.vector_function (only vf.* register ops are allowed there)",
                          where)
    return core


def _run_op(name: str, args: tuple, kwargs: dict, where: Location):
    core = _core(name, where)
    return core.machine.run_op(core, name, args, kwargs, where)


def _make_op(name: str):
    def op(*args, **kwargs):
        return _run_op(name, args, kwargs, _where())

    op.__name__ = op.__qualname__ = name
    return op


for _name in _ops.HANDLERS:
    globals()[_name] = _make_op(_name)


class _Unsupported:
    """A `pl.<name>` the emulator lacks: attribute access works (enums, namespaces such as
    `pl.Vf`), calling raises `UnsupportedOpError` at the kernel's line."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Unsupported(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        raise UnsupportedOpError(f"pl.{self._name} is not implemented by sim_runtime", _where())

    def __repr__(self) -> str:
        return f"<unsupported pl.{self._name}>"


class _VfNamespace:
    """`pl.Vf` (imported as `vf`): the register ops; any other `vf.<name>` raises
    `UnsupportedOpError` when called."""

    def __init__(self):
        self.__dict__.update(_vf.OPS)

    def __getattr__(self, name: str):  # only reached for names that are not register ops
        if name.startswith("__"):
            raise AttributeError(name)
        return _Unsupported(f"Vf.{name}")


Vf = _VfNamespace()


def __getattr__(name: str):  # PEP 562: any other pl.<name>
    if name.startswith("__"):
        raise AttributeError(name)
    return _Unsupported(name)


# -- kernels, stages, control flow --------------------------------------------------------------

_JIT_KEYWORDS = {"arch", "auto_mutex", "name", "pipeline", "tiling_key", "datatype", "compile_timeout"}


class JitKernel:
    """What `@pl.jit` returns: launchable as `k(...)`, `k[block_dim](...)`,
    `k[stream, block_dim](...)`, `k[stream, block_dim, key](...)` and
    `k[stream, block_dim, key, dtypes](...)` (the key dict of a `tiling_key` kernel, the
    datatype dict of a `datatype` kernel)."""

    def __init__(self, fn, options: dict):
        self.fn = fn
        self.options = options
        self.auto_mutex = options.get("auto_mutex", True)
        key = options.get("tiling_key")
        self.tiling_key_schema = None if key is None else TilingKeySchema.of(key)
        datatype = options.get("datatype")
        if datatype is not None and (not isinstance(datatype, dict)
                                     or not all(isinstance(v, str) and v.isidentifier() for v in datatype.values())):
            raise KernelError(f"pl.jit datatype= must map parameter names to identifiers, got {datatype!r}")
        self.lowered = None  # filled by sim_runtime.lowering on first run
        functools.update_wrapper(self, fn)

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        if len(key) > 4:
            raise KernelError(f"kernel launch takes [stream, block_dim, key, dtypes] at most, got {len(key)} items")
        block_dim = key[0] if len(key) == 1 else key[1]
        extra = list(key[2:])
        tiling_key = datatypes = None
        if extra and self.tiling_key_schema is not None:
            tiling_key = extra.pop(0)
        if extra:
            datatypes = extra.pop(0)
        if extra or (tiling_key is not None and not isinstance(tiling_key, dict)):
            raise KernelError("a tiling-key launch takes [stream, block_dim, {field: value}(, {name: dtype})]")
        return functools.partial(self._launch, block_dim, tiling_key, datatypes)

    def __call__(self, *args, **kwargs):
        if self.tiling_key_schema is not None:
            raise KernelError(f"kernel {self.fn.__name__} has a tiling key: launch it as "
                              f"k[stream, block_dim, {{{self.tiling_key_schema.describe()}}}](...)")
        return self._launch(1, None, None, *args, **kwargs)

    def _launch(self, block_dim, tiling_key, datatypes, *args, **kwargs):
        return launch(self, block_dim, args, kwargs, tiling_key, datatypes)
def jit(target=None, **options):
    unknown = set(options) - _JIT_KEYWORDS
    if unknown:
        raise TypeError(f"pl.jit got unexpected keyword(s): {', '.join(sorted(unknown))}")
    if callable(target):
        return JitKernel(target, options)
    return lambda fn: JitKernel(fn, options)


def _stage(fn):
    """`@pl.pipeline.stage`: numbered in declaration order; each call is a timeline span."""
    g = fn.__globals__
    number = g.get("__pl_sim_stage_count__", 0) + 1
    g["__pl_sim_stage_count__"] = number

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        core = current_core()
        if core is None:
            return fn(*args, **kwargs)
        core.machine.stage_enter(core, fn.__name__)
        try:
            return fn(*args, **kwargs)
        finally:
            core.machine.stage_exit(core)

    vars(wrapper).update(pipeline_stage=True, sim_stage_number=number)
    return wrapper


@dataclass(frozen=True)
class PipelineConfig:
    """Accepted and ignored: the emulator runs the code as written."""

    preload: object = 2
    sync_only: bool = False


pipeline = SimpleNamespace(stage=_stage, PipelineConfig=PipelineConfig,
                           is_pipeline_stage=lambda f: getattr(f, "pipeline_stage", False))


vector_function = _vf.vector_function


def range(*args):  # noqa: A001 - the DSL's name
    if not 1 <= len(args) <= 3:
        raise KernelError("pl.range takes 1 to 3 positional arguments", _where())
    if len(args) == 3 and args[2] == 0:
        raise KernelError("pl.range step must not be 0", _where())
    return builtins.range(*(int(a) for a in args))


def constexpr(value):
    return value


class _Section:
    """Only reached when a section is not lowered (e.g. inside a helper function)."""

    def __init__(self, kind: str):
        self.kind = kind

    def __enter__(self):
        raise KernelError(f"pl.section_{self.kind}() is only supported directly in the @pl.jit kernel body",
                          _where())

    def __exit__(self, *exc):
        return False


def section_cube():
    return _Section("cube")


def section_vector():
    return _Section("vector")


# -- tiles, groups, structs ---------------------------------------------------------------------

def make_tile(tile_type, *, addr, size=None):
    where = _where()
    return _tiles.make_tile(_core("make_tile", where), where, tile_type, addr=addr, size=size)


def make_tile_group(**kwargs):
    where = _where()
    return _tiles.make_tile_group(_core("make_tile_group", where), where, **kwargs)


def struct(*args, **fields):
    return _tiles.Struct(args[0] if args else "struct", fields)


def struct_array(n, typename, /, **fields):  # positional-only: fields may be called `n`
    return _tiles.StructArray(n, typename, fields)


make_tuple = _tiles.make_tuple


def set_validshape(tile, shape):
    _ops.set_validshape(tile, shape, _where())


def get_block_idx() -> int:
    core = _core("get_block_idx", _where())
    if core.kind == "aiv" and core.machine.kind == "mix":
        return _assumed.aiv_block_idx(core.block, core.sub)
    return core.block


def get_block_num() -> int:
    return _core("get_block_num", _where()).machine.block_dim


def get_subblock_idx() -> int:
    core = _core("get_subblock_idx", _where())
    return core.sub if core.kind == "aiv" else 0


def get_subblock_num() -> int:
    core = _core("get_subblock_num", _where())
    return 2 if core.kind == "aiv" and core.machine.kind == "mix" else 1


# -- pl.system ----------------------------------------------------------------------------------

def _mode(sync_mode) -> int:
    return int(getattr(sync_mode, "value", sync_mode))


def _set_cross_core(*, pipe, event_id, sync_mode=CrossCoreSyncMode["INTRA_BLOCK"]):
    where = _where()
    core = _core("system.set_cross_core", where)
    core.machine.set_cross_core(core, pipe, event_id, _mode(sync_mode), where)


def _wait_cross_core(*, pipe, event_id, sync_mode=CrossCoreSyncMode["INTRA_BLOCK"]):
    where = _where()
    core = _core("system.wait_cross_core", where)
    core.machine.wait_cross_core(core, pipe, event_id, _mode(sync_mode), where)


def _sync_all(workspaces=None, *, core_type=None, mode=None):
    where = _where()
    core = _core("system.sync_all", where)
    core.machine.sync_all(core, getattr(core_type, "name", "MIX") if core_type is not None else "MIX", where)


def _pipe(p) -> str:
    return getattr(p, "name", p)


def _sync_src(*, set_pipe, wait_pipe, event_id):
    where = _where()
    core = _core("system.sync_src", where)
    core.machine.sync_src(core, set_pipe, wait_pipe, event_id, where)


def _sync_dst(*, set_pipe, wait_pipe, event_id):
    where = _where()
    core = _core("system.sync_dst", where)
    core.machine.sync_dst(core, set_pipe, wait_pipe, event_id, where)


def _mutex(lock: bool):
    def fn(*, pipe, mutex_id=None, mode=0, max_mutex_id=2, mutex_ids=None):
        core = _core("system.mutex_lock" if lock else "system.mutex_unlock", _where())
        # the id is `mutex_id`; `mutex_ids` (or `max_mutex_id`) only lists the candidates the JIT
        # compares a run-time id against, of which the one held is still `mutex_id`
        ids = [mutex_id] if mutex_id is not None else list(mutex_ids or ())
        for mid in ids:
            core.machine.mutex(core, lock, _pipe(pipe), int(mid))
    return fn


def _bar(all_pipes: bool):
    def fn():
        core = _core("system.bar", _where())
        if all_pipes:
            core.machine.bar_all(core)
    return fn


def _noop(*args, **kwargs):
    return None


system = SimpleNamespace(
    set_cross_core=_set_cross_core,
    wait_cross_core=_wait_cross_core,
    sync_all=_sync_all,
    sync_src=_sync_src,
    sync_dst=_sync_dst,
    mutex_lock=_mutex(True),
    mutex_unlock=_mutex(False),
    bar_m=_bar(False), bar_mte1=_bar(False), bar_mte2=_bar(False), bar_mte3=_bar(False), bar_fix=_bar(False),
    bar_v=_bar(False), bar_all=_bar(True),
    dcci=_noop,
    set_mm_layout_transform=_noop,
)

# scalar helpers: builtin min/max map to pl.min/pl.max
min = builtins.min  # noqa: A001
max = builtins.max  # noqa: A001


# -- GM views, constants, SIMT ------------------------------------------------------------------

def make_tensor(ptr, shape, stride=None, dtype=None):
    return _gm.make_tensor(ptr, shape, stride, dtype, where=_where())


def make_ptr(ptr, dtype=None):
    return _gm.make_ptr(ptr, dtype, where=_where())


def addptr(ptr, offset):
    return _gm.addptr(ptr, offset, where=_where())


def set_stride(tensor, stride):
    _gm.set_stride(tensor, stride, where=_where())


def const(value, dtype):
    """A typed scalar constant: the value converted to `dtype` (ints wrap, floats round), an int or
    a float that remembers its dtype (a struct field it initialises keeps that type)."""
    if not isinstance(dtype, _DType) or not dtype.computable:
        raise KernelError(f"pl.const needs a scalar pl.DT_* dtype, got {dtype!r}", _where())
    return _tiles.typed_scalar(value, dtype)


class _SimtNamespace:
    """`pl.simt`: SIMT kernels are not documented in the API reference, so the emulator cannot
    run them; `@pl.simt.function` loads, and calling the function reports it once."""

    @staticmethod
    def function(fn=None, **options):
        def wrap(f):
            @functools.wraps(f)
            def call(*args, **kwargs):
                raise UnsupportedOpError(f"pl.simt.function {f.__name__} (SIMT code is not emulated)", _where())
            return call
        return wrap(fn) if callable(fn) else wrap

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Unsupported(f"simt.{name}")


simt = _SimtNamespace()

#: Cache maintenance and the matmul layout switch change no data the emulator keeps.
dcci = _noop
set_mm_layout_transform = _noop
