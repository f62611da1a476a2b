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

#: The layouts `pl` names twice: `pl.ND` is `pl.TileLayout.ND`.
LAYOUTS: frozenset[str] = frozenset({"ND", "DN", "NZ", "ZN", "NN", "ZZ"})

#: The enums of `pl` (`pl.TilePad.zero` is a member, a constant) and its other constants:
#: values, not functions (a builtin given one calls nothing).
ENUMS: frozenset[str] = frozenset({
    "TileLayout", "MemorySpace", "PipeType", "CrossCoreSyncMode", "SyncCoreType", "SyncAllMode", "AccToVecMode",
    "AtomicType", "ReluPreMode", "RoundMode", "AccPhase", "STPhase", "FillPadMode", "TilePad", "MaskPattern",
    "LoadDist", "DataCopyMode", "CastLayout", "MergeMode", "MemBarMode", "DuplicatePos", "IndexOrder", "PackPart",
    "QuantMode", "SaturateMode", "SqueezeMode", "StoreDist", "VFRoundMode", "HistType", "BinType", "MaskWidth",
})
CONSTANTS: frozenset[str] = frozenset({"DYNAMIC", "STATIC"}) | LAYOUTS | frozenset(DTYPE_BITS)
#: The `pl` constants that are numbers to Python (IntEnum members, `pl.DYNAMIC`): equal to an int,
#: false at 0; any other enum's member is equal only to itself, and true.
NUMERIC_CONSTANTS: frozenset[str] = frozenset({"TilePad", "CrossCoreSyncMode", "DYNAMIC", "STATIC"})

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
    "TileLayout": LAYOUTS,
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
    return _bind(*PL_PARAMETERS[path], pos, kw)


def _bind(either: tuple[str, ...], only: tuple[str, ...], pos: list, kw: dict,
          rest: str | None = None) -> dict[str, Any] | None:
    """`bind` by the parameters `either` (by position or keyword), `only` (by keyword); the
    positional arguments past `either` go to the list `rest` when it is named (`*rest`)."""
    if len(pos) > len(either) and rest is None or any(k not in either + only for k in kw):
        return None
    bound: dict[str, Any] = dict(zip(either, pos, strict=False))
    if any(k in bound for k in kw):
        return None
    if rest is not None and len(pos) > len(either):
        bound[rest] = list(pos[len(either):])
    return {**bound, **kw}


_UNARY = ("src", "preg", "mode")
_BINARY = ("src0", "src1", "preg", "mode")
_WITH_SCALAR = ("src", "scalar", "preg", "mode")

#: PyPTO's parameters of each `vf.<op>` (`pl.Vf`, the register ops of a vector function), in
#: its order and spelling, as a Python signature lists them: the names before `*args` are
#: given by position or keyword, `*args` takes the positional arguments past them, the names
#: after it are keyword-only. The emulator's functions take the same (it may add keyword-only
#: ones after them); the check binds the memory and mask ops by them (`vf_bind`).
VF_PARAMETERS: dict[str, tuple[str, ...]] = {
    # arithmetic and logic, lane by lane
    **dict.fromkeys(("abs", "neg", "relu", "log2", "log10", "not_", "truncate", "move", "pair_reduce_sum"), _UNARY),
    **dict.fromkeys(("exp", "ln", "log", "sqrt"), (*_UNARY, "precision")),
    **dict.fromkeys(("add", "sub", "mul", "div", "max", "min", "mull", "abs_sub", "and_", "or_", "select",
                     "mul_add_dst", "mul_dst_add"), _BINARY),
    "xor": (*_BINARY, "dtype"),
    **dict.fromkeys(("adds", "maxs", "mins", "leaky_relu", "axpy"), _WITH_SCALAR),
    "muls": ("src0", "scaler", "preg", "mode"),  # PyPTO spells its scalar `scaler`, unlike `adds`'s `scalar`
    "prelu": ("src", "slope", "preg", "mode"),
    "shift_left": ("src", "shift", "preg", "mode"),
    "shift_right": ("src", "shift", "preg", "mode", "dtype"),
    "addc": ("src0", "src1", "carry_src", "preg", "mode"),
    "subc": ("src0", "src1", "borrow_src", "preg", "mode"),
    # the prototype stops at `layout`; the parameters it describes add `dtype` (DT_FP32 from fp16
    # sources), which real kernels pass
    "exp_sub": ("src0", "src1", "preg", "layout", "dtype"),
    "muls_cast": ("src", "scalar", "preg", "dtype", "layout"),
    # compare, select, reduce
    **dict.fromkeys(("eq", "ne", "lt", "le", "gt", "ge"), ("a", "b", "preg", "cmp_dtype")),
    **dict.fromkeys(("reduce_sum", "reduce_max", "reduce_min"), ("src", "preg", "datablock", "merge_mode")),
    "squeeze": ("src", "preg", "gather_mode", "dtype"),
    "histograms": ("src", "preg", "bin_type", "hist_type"),
    "arange": ("start", "index_order", "dtype"),
    # conversion and lane moves; `astype`'s `dtype` is required (it has no default to convert
    # to), and its prototype stops at `saturate` while the parameters it describes end with the
    # MergeMode `mode` every lane-wise op takes
    "astype": ("src", "preg", "dtype", "layout", "round_mode", "saturate", "mode"),
    "bit_cast": ("src", "dtype"),
    **dict.fromkeys(("pack", "unpack"), ("src", "dtype", "part")),
    **dict.fromkeys(("interleave", "de_interleave"), ("src0", "src1", "dtype")),
    "unsqueeze": ("mask", "dtype"),
    "full": ("src", "preg", "dtype", "mode", "pos"),
    # masks
    "create_mask": ("pattern", "dtype"),
    "update_mask": ("scalar", "dtype"),
    "mask_gen_with_reg_tensor": ("src", "offset"),
    "get_mask_spr": ("width",),
    "clear_spr": (),
    # memory: a tile argument is `tile`
    "create_addr_reg": ("index0", "stride0", "index1", "stride1", "index2", "stride2", "index3", "stride3", "dtype"),
    "load_align": ("tile", "offset", "dist", "dtype", "post_update", "block_stride", "repeat_stride",
                   "data_copy_mode"),
    # `*args` are what PyPTO's store forms put after the source: `preg` then `offset` for a
    # register (`even, odd, preg, offset` for INTLV), `offset` alone for a mask
    "store_align": ("tile", "src", "*args", "dist", "data_copy_mode", "block_stride", "repeat_stride", "post_update"),
    "load": ("tile", "stride", "post_update", "repeat_stride", "count"),
    "store": ("tile", "src", "count", "post_update", "repeat_stride"),
    "gather": ("src", "index", "preg", "data_copy_mode"),
    "scatter": ("tile", "src", "index", "preg"),
    "load_unalign_init": (),
    "load_unalign_pre": ("align_reg", "tile"),
    # the prototype reads `(tile, align_reg, ...)`, but PyPTO's own examples call
    # `load_unalign(ureg, tile, ...)`, the order of `load_unalign_pre`: that order is kept
    "load_unalign": ("align_reg", "tile", "stride", "post_update"),
    "unalign_reg_for_store": (),
    "store_unalign": ("tile", "src", "align_reg", "stride", "post_update"),
    "store_unalign_post": ("tile", "align_reg", "stride", "post_update"),
    "mem_bar": ("mode",),
}


def vf_signature(op: str) -> tuple[tuple[str, ...], str | None, tuple[str, ...]]:
    """`VF_PARAMETERS[op]` split as Python reads it: (by position or keyword, the name of its
    `*args` or None, keyword-only)."""
    params = VF_PARAMETERS[op]
    star = next((i for i, p in enumerate(params) if p.startswith("*")), len(params))
    rest = params[star][1:] if star < len(params) else None
    return params[:star], rest, params[star + 1:]


def vf_bind(op: str, pos: list, kw: dict) -> dict[str, Any] | None:
    """The arguments of `vf.<op>(*pos, **kw)` by PyPTO's parameter names (the positional ones
    past the named, of `store_align`, as the list `args`); None where Python raises TypeError."""
    either, rest, only = vf_signature(op)
    return _bind(either, only, pos, kw, rest)


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
