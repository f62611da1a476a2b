"""The names of the `pl` API: what a kernel file may spell after `pl.`, and the keywords of
the calls whose signatures are fixed.

The transpiler reads them to tell a misspelling (`pl.matmull`, `fwd_id=`) from a name it
simply does not model: a name that is in none of these tables and is close to one that is
is reported as a misspelling; any other unknown name is left to the rules that need it.
"""

from __future__ import annotations

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

#: Keywords of the calls whose signatures are fixed (the real ones, and the emulator's, raise
#: TypeError on others).
PL_KEYWORDS: dict[tuple[str, ...], frozenset[str]] = {
    ("jit",): frozenset({"arch", "auto_mutex", "name", "pipeline", "tiling_key", "datatype", "compile_timeout"}),
    ("pipeline", "PipelineConfig"): frozenset({"preload", "sync_only"}),
    ("make_tile_group",): frozenset({"type", "addrs", "mutex_ids", "depth", "fwd_ids", "bwd_ids"}),
    ("TileType",): frozenset({"shape", "dtype", "target_memory", "valid_shape", "layout", "fractal", "pad",
                              "compact"}),
    # start, end and step are positional: the transform reads them so, and a keyword would be
    # silently left out of the loop's bounds
    ("range",): frozenset(),
    ("make_tile",): frozenset({"tile_type", "addr", "size"}),
    **{("system", name): frozenset({"pipe", "event_id", "sync_mode"})
       for name in ("set_cross_core", "wait_cross_core")},
    **{("system", name): frozenset({"set_pipe", "wait_pipe", "event_id"}) for name in ("sync_src", "sync_dst")},
    **{("system", name): frozenset({"pipe", "mutex_id", "mode", "max_mutex_id", "mutex_ids"})
       for name in ("mutex_lock", "mutex_unlock")},
    ("system", "sync_all"): frozenset({"workspaces", "core_type", "mode"}),
}

#: What a tile group offers: slot pickers (and `g[i]`).
GROUP_METHODS = frozenset({"next", "current", "previous"})
