"""The names of the `pl` API: what a kernel file may spell after `pl.`, and the keywords of
the calls whose signatures are fixed.

The transpiler reads them to tell a misspelling (`pl.matmull`, `fwd_id=`) from a name it
simply does not model: a name that is in none of these tables and is close to one that is
is reported as a misspelling; any other unknown name is left to the rules that need it.
"""

from __future__ import annotations

from typing import Any

from pto_api.memory import DTYPE_BITS, MEMORY_SPACES
from pto_api.ops import ACC_TO_VEC_MODES, BLOCK_OP_ROLES, DESCRIPTOR_ONLY_OPS, OP_PIPE, PIPES
from pto_api.sync import CROSS_CORE_SYNC_MODES

#: `pl.<name>` beyond the data ops of ops.py: launch and structure, indices, descriptors,
#: layouts, enums and annotations.
_STRUCTURE = frozenset({
    "jit", "pipeline", "vector_function", "range", "constexpr", "section_cube", "section_vector",
    "make_tile", "make_tile_group", "struct", "struct_array", "make_tuple", "TileType", "Tensor", "Tile", "Ptr",
    "get_block_idx", "get_block_num", "get_subblock_idx", "get_subblock_num", "system", "Vf", "min", "max",
    "DYNAMIC", "STATIC", "ND", "DN", "NZ", "ZN", "NN", "ZZ", "TileLayout", "MemorySpace", "PipeType",
    "CrossCoreSyncMode", "SyncCoreType", "SyncAllMode", "AccToVecMode", "AtomicType", "ReluPreMode", "RoundMode",
    "AccPhase", "STPhase", "FillPadMode", "TilePad", "MaskPattern", "LoadDist", "DataCopyMode", "CastLayout",
    "MergeMode", "MemBarMode", "TilingKeyField", "DuplicatePos", "IndexOrder", "PackPart", "QuantMode",
    "SaturateMode", "SqueezeMode", "StoreDist", "VFRoundMode", "HistType", "BinType", "MaskWidth",
    "PipelineConfig", "addptr", "const", "dcci",
    "make_ptr", "make_tensor", "set_mm_layout_transform", "simt",
})

#: Every top-level name of `pl`.
PL_NAMES: frozenset[str] = _STRUCTURE | frozenset(BLOCK_OP_ROLES) | frozenset(OP_PIPE) | DESCRIPTOR_ONLY_OPS \
    | frozenset(DTYPE_BITS)

#: Members of the namespaces and enums whose members are all known (`pl.<namespace>.<member>`).
PL_MEMBERS: dict[str, frozenset[str]] = {
    "pipeline": frozenset({"stage", "PipelineConfig"}),
    "system": frozenset({"set_cross_core", "wait_cross_core", "sync_all", "sync_src", "sync_dst", "mutex_lock",
                         "mutex_unlock", "bar_m", "bar_mte1", "bar_mte2", "bar_mte3", "bar_fix", "bar_v", "bar_all",
                         "dcci", "set_mm_layout_transform"}),
    "MemorySpace": frozenset(MEMORY_SPACES),
    "PipeType": frozenset((*PIPES, "ALL")),
    "AccToVecMode": frozenset(ACC_TO_VEC_MODES),
    "CrossCoreSyncMode": frozenset(CROSS_CORE_SYNC_MODES),
    "TileLayout": frozenset({"ND", "DN", "NZ", "ZN", "NN", "ZZ"}),
}

#: The parameters of the calls the check reads by name, in PyPTO's order: (those a call may give
#: by position or by keyword, those it gives by keyword only). The emulator's functions take the
#: same; `bind` places a call's arguments as Python does.
PL_PARAMETERS: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {
    ("TileType",): (("shape", "dtype", "target_memory", "valid_shape", "layout", "fractal", "pad", "compact"), ()),
    ("make_tile",): (("tile_type",), ("addr", "size")),
    ("make_tile_group",): ((), ("type", "addrs", "mutex_ids", "depth", "fwd_ids", "bwd_ids")),
    ("set_validshape",): (("tile", "shape"), ()),
}


def bind(path: tuple[str, ...], pos: list, kw: dict) -> dict[str, Any] | None:
    """The arguments of a `PL_PARAMETERS` call `pl.<path>(*pos, **kw)` by parameter name; None
    where Python raises TypeError (more positional arguments than it takes, a keyword it does not
    take or that a positional argument already gave)."""
    either, only = PL_PARAMETERS[path]
    if len(pos) > len(either) or any(k not in either + only for k in kw):
        return None
    bound = dict(zip(either, pos, strict=False))
    if any(k in bound for k in kw):
        return None
    return {**bound, **kw}


#: Keywords of the calls whose signatures are fixed (the real ones, and the emulator's, raise
#: TypeError on others).
PL_KEYWORDS: dict[tuple[str, ...], frozenset[str]] = {
    **{path: frozenset(either + only) for path, (either, only) in PL_PARAMETERS.items()},
    ("jit",): frozenset({"arch", "auto_mutex", "name", "pipeline", "tiling_key", "datatype", "compile_timeout"}),
    ("pipeline", "PipelineConfig"): frozenset({"preload", "sync_only"}),
    # start, end and step are positional: the transform reads them so, and a keyword would be
    # silently left out of the loop's bounds
    ("range",): frozenset(),
    **{("system", name): frozenset({"pipe", "event_id", "sync_mode"})
       for name in ("set_cross_core", "wait_cross_core")},
    **{("system", name): frozenset({"set_pipe", "wait_pipe", "event_id"}) for name in ("sync_src", "sync_dst")},
    **{("system", name): frozenset({"pipe", "mutex_id", "mode", "max_mutex_id", "mutex_ids"})
       for name in ("mutex_lock", "mutex_unlock")},
    ("system", "sync_all"): frozenset({"workspaces", "core_type", "mode"}),
}

#: What a tile group offers: slot pickers (and `g[i]`).
GROUP_METHODS = frozenset({"next", "current", "previous"})
