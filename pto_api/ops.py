"""Block-op facts: tile-argument roles and the pipe each op issues on.

Roles are positional, one entry per positional argument: "W" written, "R" read, "RW" both,
None not a tile. Positions past the end are not tiles; the few keyword arguments that take
a tile (or a GM tensor) are in `BLOCK_OP_KEYWORD_ROLES`.
The table follows the roles and pipes PyPTO's own pipeline transform records per op
(its block-op role table and the backend's op-to-pipe registry), extended with the
vector ops that table leaves out.
"""

from __future__ import annotations

Role = str | None

#: Pipe names as `pl.PipeType` members spell them.
PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")
#: The scalar pipe: it issues every op of its core in program order, so a wait on it (a
#: cross-core wait, a `sync_dst`) holds back the issue of all the core's later work.
SCALAR_PIPE = "S"
#: The pipes `pl.system.bar_all()` waits for (PyPTO's barrier: V, M, MTE1, MTE2, MTE3 and FIX):
#: not the scalar one, whose stores need a flag of their own before another pipe reads them.
BAR_ALL_PIPES = frozenset(p for p in PIPES if p != SCALAR_PIPE)

#: Access roles of a tile argument: read, written, or both.
READ, WRITE, READ_WRITE = "R", "W", "RW"
_W, _R, _RW = WRITE, READ, READ_WRITE


def _same(roles: tuple[Role, ...], *names: str) -> dict[str, tuple[Role, ...]]:
    return {n: roles for n in names}


BLOCK_OP_ROLES: dict[str, tuple[Role, ...]] = {
    # data movement
    **_same((_W,), "load", "load_tile"),
    **_same((_W, _R), "store", "store_tile"),  # arg 0 is a GM tensor; W on it is harmless
    "move": (_W, _R, _R, _R),
    "insert": (_W, _R, None, None, _R),
    "getval": (_R, None),
    "setval": (_W, None, None),
    # matmul family
    "matmul": (_W, _R, _R),
    "matmul_acc": (_W, _RW, _R, _R),
    "matmul_bias": (_W, _R, _R, _R),
    "matmul_mx": (_W, _R, _R, _R, _R),
    "matmul_mx_acc": (_W, _RW, _R, _R, _R, _R),
    "gemv": (_W, _R, _R),
    "gemv_acc": (_W, _RW, _R, _R),
    "gemv_bias": (_W, _R, _R, _R),
    # element-wise binary
    **_same(
        (_W, _R, _R),
        "add", "sub", "mul", "div", "rem", "maximum", "minimum", "and_", "or_", "shl", "shr",
        "partadd", "partmax", "partmin", "partmul", "lrelu",
    ),
    # xor's fourth operand is the hardware's scratch ("used for intermediate computation, must not
    # overlap out/lhs/rhs"): written, its contents undefined (probe h136: neither side counted it)
    "xor": (_W, _R, _R, _W),
    "prelu": (_W, _R, _R, None),
    # tile-scalar
    **_same((_W, _R, None), "adds", "subs", "muls", "divs", "rems", "ands", "ors", "shls", "shrs", "maxs", "mins"),
    "xors": (_W, _R, None, None),
    # unary and conversion
    **_same((_W, _R), "neg", "exp", "log", "sqrt", "rsqrt", "recip", "abs", "relu", "not_", "cast"),
    # compare / select
    "select": (_W, _R, _R, _R, None),
    **_same((_W, _R, _R), "eq", "ne", "lt", "le", "gt", "ge"),
    # reductions and expands
    **_same((_W, _R, None), "sum", "row_prod", "col_prod"),
    **_same((_W, _R, _W), "argmax", "argmin"),  # tmp is the hardware's scratch (dim=1)
    **_same((_W, _R), "row_expand", "col_expand"),
    **_same(
        (_W, _R, _R),
        "row_expand_add", "expand_sub", "expand_mul", "expand_div", "expand_max", "expand_min",
        "row_expand_binop", "col_expand_binop",
    ),
    "expands": (_W, None),
    # layout
    "reshape": (_W, _R, None),
    **_same((_W, _R), "transpose", "ub_copy"),
    # fill
    "full": (_W, None),
    **_same((_W, _R), "fillpad", "fillpad_expand"),
    "fillpad_inplace": (_RW, _R),
    # Vector ops the front end's table does not list (its scanner could not see them); the
    # emulator runs them, and the transpiler now syncs them instead of missing them.
    **_same((_W, _R, None), "row_sum", "row_max", "row_min", "col_sum", "col_max", "col_min", "cmps"),
    **{f"{a}_expand_{o}": (_W, _R, _R) for a in ("row", "col") for o in ("add", "sub", "mul", "div", "max", "min")},
    "axpy": (_RW, _R, None),
    "fill": (_W, None),
    # Fused ops: the backend keeps the intermediate in lhs, which is overwritten.
    **_same((_W, _RW, _R), "add_relu", "sub_relu", "add_relu_cast", "sub_relu_cast", "mul_cast"),
    "addc": (_W, _R, _R, _R),
    **_same((_RW, _R, _R), "fused_mul_add", "fused_mul_add_relu", "mul_add_dst"),
    # index-driven ops and sorts (a tmp argument is scratch the hardware writes)
    "gather": (_W, _R, _R, _W),
    "gatherb": (_W, _R, _R),
    "gathermask": (_W, _R),
    "scatter": (_W, _R, _R),
    "histogram": (_W, _R, _R),
    "fill_index": (_W, None),
    "sort32": (_W, _R, _R, _W),
    "mrgsort": (_W, _R),
    "mrgsort2": (_R, _R, _W, _W, _R, _R),
    # quantisation (quant's offset= tile is a keyword: see BLOCK_OP_KEYWORD_ROLES)
    "quant": (_W, _R, _R),
    "dequant": (_W, _R, _R, _R),
    # debugging: printing a tile reads it
    "dump_data": (_R,),
}

#: Positional operands that are values the op computes with (the scalar of a tile-scalar op, a
#: fill value, axpy's alpha, fill_index's start), not addresses, shapes or indices: a value that
#: changes from one iteration to the next there changes the data only. A binary or compare op
#: given a scalar right operand is its tile-scalar op (`pl.add(y, x, k)` runs as `adds`), so
#: that operand is one too where it is no tile.
SCALAR_VALUE_OPERANDS: dict[str, tuple[int, ...]] = {
    **{op: (2,) for op in ("adds", "subs", "muls", "divs", "rems", "ands", "ors", "shls", "shrs", "maxs", "mins",
                           "axpy")},
    "xors": (2,),
    **{op: (2,) for op in ("add", "sub", "mul", "div", "maximum", "minimum", "and_", "or_", "rem",
                           "eq", "ne", "lt", "le", "gt", "ge")},
    **{op: (1,) for op in ("full", "fill", "expands", "fill_index")},
}

#: Ops whose destination write can be smaller than the destination's valid window: by their
#: data (`scatter` writes the indexed elements), a pattern (`gathermask`) or what they sort
#: (one row, the sorted count), or by their nature (`setval` writes one element). The checker
#: counts their writes as reaching all of it and overwriting none of it.
PARTIAL_WRITE_OPS = frozenset({"scatter", "gathermask", "histogram", "sort32", "mrgsort", "mrgsort2", "sum",
                               "argmax", "argmin", "setval"})

#: Ops that write a window taken from their source (argument 1), not their destination's valid
#: window: how the written window follows from the source's valid shape (`rows`, `cols`)
#: ("same": the source's window; "swap": transposed; "rows": (rows, 1); "cols": (1, cols);
#: "move": by the memories, `effects.source_window`). A write covers the destination only where that
#: window is the destination's valid window.
SOURCE_WINDOW_OPS: dict[str, str] = {
    "ub_copy": "same", "transpose": "swap", "move": "move",
    **dict.fromkeys(("row_sum", "row_max", "row_min"), "rows"),
    **dict.fromkeys(("col_sum", "col_max", "col_min"), "cols"),
}

#: Ops that read or change a core's special registers or vector-mask state (the AR register a
#: `squeeze(..., gather_mode=STORE_REG)` sets and `get_spr` reads, the mask mode): state outside
#: tiles and GM that a stage run ahead of another would change under it.
MACHINE_STATE_OPS = frozenset({"get_spr", "set_vec_mask", "reset_mask", "set_mask_count", "set_mask_norm"})
VF_MACHINE_STATE_OPS = frozenset({"get_mask_spr", "clear_spr"})

#: The matmul family writes lhs rows by rhs columns of its destination: the positions of lhs
#: and rhs among its arguments (the `_mx` forms are partial writes: their scales interleave).
MATMUL_OPERANDS: dict[str, tuple[int, int]] = {
    "matmul": (1, 2), "matmul_acc": (2, 3), "matmul_bias": (1, 2),
    "gemv": (1, 2), "gemv_acc": (2, 3), "gemv_bias": (1, 2),
}

#: Tile (or GM tensor) arguments passed by keyword: `quant(..., offset=t)` reads the per-row
#: offsets, `dump_data(acc_tile, ..., workspace=gm)` writes the tile through a GM workspace.
BLOCK_OP_KEYWORD_ROLES: dict[str, dict[str, Role]] = {
    "quant": {"offset": _R},
    "dump_data": {"workspace": _W},
}

#: Keywords the tool reads for a data op besides `mode=` (which every op may take: it picks
#: the roles of `<op>_<mode>`): the emulator's, by op. Not whole signatures: a keyword outside
#: its op's set is reported only when it is a near misspelling of one inside
#: (`acc_to_vec_modee=`), which the op would otherwise ignore.
_LOAD_KEYWORDS = frozenset({"offsets", "order", "is_transpose"})
_STORE_KEYWORDS = frozenset({"offsets", "order", "atomic", "relu_pre_mode", "scale"})
_MASK_KEYWORDS = frozenset({"mask_high", "mask_low"})
OP_KEYWORDS: dict[str, frozenset[str]] = {
    "load": _LOAD_KEYWORDS,
    "load_tile": _LOAD_KEYWORDS,
    "store": _STORE_KEYWORDS,
    "store_tile": _STORE_KEYWORDS,
    "move": frozenset({"offset", "acc_to_vec_mode", "relu_pre_mode", "scale"}),
    "insert": frozenset({"offset"}),
    **{op: frozenset({"dim"}) for op in ("sum", "argmax", "argmin")},
    "gather": frozenset({"cmp_mode", "offset"}),
    "gathermask": frozenset({"pattern_mode"}),
    "histogram": frozenset({"is_msb"}),
    "fill_index": frozenset({"start"}),
    "mrgsort": frozenset({"block_len"}),
    "sort32": frozenset({"tmp"}),
    "quant": frozenset({"offset"}),
    "printf": frozenset({"format_str", "loc"}),
    "pto_assert": frozenset({"condition", "format_str", "loc"}),
    "dump_data": frozenset({"data", "offsets", "shapes", "workspace", "loc"}),
    **{op: frozenset({"struct_var", "offset"}) for op in ("ssbuf_load", "ssbuf_store")},
    **{op: _MASK_KEYWORDS for op in ("set_vec_mask", "reset_mask", "set_mask_count", "set_mask_norm")},
}


#: The GM tensor operand of the ops that read one where their roles name no tile (the roles of
#: `store`, `getval`, `setval` and `dump_data` name theirs, at 0): `pl.load(tile, tensor, ...)`.
GM_SOURCE_OPERAND: dict[str, int] = {"load": 1, "load_tile": 1}

#: Ops that only change a tile descriptor: no data access, no mutex, no sync.
DESCRIPTOR_ONLY_OPS = frozenset({"set_validshape", "set_stride"})

#: `vf.*` register ops inside `@pl.vector_function` bodies (pipe is always V).
VF_OP_ROLES: dict[str, tuple[Role, ...]] = {
    "load_align": (_R,),
    "store_align": (_W, None),
    "load": (_R,),
    "store": (_W, None, None),
    "load_unalign_pre": (None, _R),
    "load_unalign": (None, _R, None),
    "store_unalign": (_W, None, None, None),
    "store_unalign_post": (_W, None, None),
    "squeeze_store_unalign": (_W, None, None),
    "squeeze_store_unalign_post": (_W, None),
    "gather": (_R, None, None),
    "scatter": (_W, None, None, None),
}

#: `vf.*` ops that touch registers, masks and address registers only, never a tile: a
#: vector-function parameter they receive is a scalar (a fill value, a lane count, a shift).
VF_REGISTER_OPS = frozenset({
    "abs", "abs_sub", "add", "addc", "adds", "and_", "arange", "astype", "axpy", "bit_cast", "clear_spr",
    "create_addr_reg", "create_mask", "de_interleave", "div", "eq", "exp", "exp_sub", "full", "ge", "get_mask_spr",
    "gt", "histograms", "interleave", "le", "leaky_relu", "ln", "load_unalign_init", "log", "log10", "log2", "lt",
    "mask_gen_with_reg_tensor", "max", "maxs", "mem_bar", "min", "mins", "move", "mul", "mul_add_dst",
    "mul_dst_add", "mull", "muls", "muls_cast", "ne", "neg", "not_", "or_", "pack", "pair_reduce_sum", "prelu",
    "reduce_max", "reduce_min", "reduce_sum", "relu", "select", "shift_left", "shift_right", "sqrt", "squeeze",
    "sub", "subc", "subs", "truncate", "unalign_reg_for_store", "unpack", "update_mask", "xor",
})

#: `vf.*` ops whose result register has the dtype of their first operand (lane-wise arithmetic
#: and logic, select, reductions, copies, `full` of a register): a store of it writes lanes of
#: that width.
VF_SAME_DTYPE_OPS = frozenset({
    "abs", "abs_sub", "add", "adds", "and_", "axpy", "div", "exp", "full", "leaky_relu", "ln", "log", "log10", "log2",
    "max", "maxs", "min", "mins", "move", "mul", "mul_add_dst", "mul_dst_add", "muls", "neg", "not_", "or_",
    "pair_reduce_sum", "prelu", "reduce_max", "reduce_min", "reduce_sum", "relu", "select", "shift_left",
    "shift_right", "sqrt", "squeeze", "sub", "subs", "truncate", "xor",
})
#: `vf.*` ops whose result register has the dtype their `dtype=` names, or this one without it
#: (None: `dtype=` is required).
VF_RESULT_DTYPES: dict[str, str | None] = {"astype": None, "exp_sub": "DT_FP32"}

#: `vf.*` ops whose result register is also an input: `acc = vf.<op>(...)` reads `acc`
#: before writing it. So does any lane-wise op given `mode=MergeMode.MERGING` (inactive
#: lanes keep the target's old value).
VF_TARGET_READ_OPS = frozenset({"mul_add_dst", "mul_dst_add", "axpy", "histograms"})

#: Backend registry name of an op, where it differs from the `pl.<op>` spelling.
_REGISTRY_ALIAS = {
    "and_": "and",
    "or_": "or",
    "not_": "not",
    **{c: "cmp" for c in ("eq", "ne", "lt", "le", "gt", "ge")},
    "select": "sel",
    "load_tile": "load",
    "sum": "row_sum",
    "argmax": "row_argmax",
    "argmin": "row_argmin",
    **{f"expand_{k}": f"row_expand_{k}" for k in ("max", "min", "mul", "sub", "div")},
}

#: Pipe per backend registry op (a snapshot of PyPTO's public op registry).
#: Anything vector-side not listed runs on V; see `op_pipe`.
OP_PIPE: dict[str, str] = {
    "load": "MTE2",
    "insert": "MTE3",
    "store": "MTE3",
    "store_tile": "MTE3",
    "move": "MTE1",
    "move_fp": "FIX",
    "store_fp": "FIX",
    **{k: "M" for k in ("matmul", "matmul_acc", "matmul_bias", "matmul_mx", "matmul_mx_acc",
                        "gemv", "gemv_acc", "gemv_bias")},
    **{k: "S" for k in ("getval", "setval", "set_validshape", "set_stride", "printf", "pto_assert", "trap",
                        "ssbuf_load", "ssbuf_store", "set_vec_mask", "reset_mask", "set_mask_count",
                        "set_mask_norm", "get_spr")},
}

#: Registry ops that are vector work (pipe V). Every op in BLOCK_OP_ROLES not placed above.
_VECTOR_OPS = frozenset(
    _REGISTRY_ALIAS.get(op, op) for op in BLOCK_OP_ROLES if _REGISTRY_ALIAS.get(op, op) not in OP_PIPE
)


def op_keywords(op: str) -> frozenset[str] | None:
    """The keywords the tool reads for `pl.<op>` (see OP_KEYWORDS), or None when `op` is no data op."""
    if op not in BLOCK_OP_ROLES and op not in OP_PIPE and op not in DESCRIPTOR_ONLY_OPS:
        return None
    return OP_KEYWORDS.get(op, frozenset()) | {"mode"}


def op_roles(op: str, mode: str | None = None) -> tuple[Role, ...] | None:
    """Roles of `pl.<op>`; a `mode=<Enum>.<M>` keyword selects `<op>_<m>` when that entry exists."""
    if mode is not None:
        specific = BLOCK_OP_ROLES.get(f"{op}_{mode.lower()}")
        if specific is not None:
            return specific
    return BLOCK_OP_ROLES.get(op)


def op_keyword_roles(op: str) -> dict[str, Role]:
    """Roles of the keyword arguments of `pl.<op>` that take a tile (empty for most ops)."""
    return BLOCK_OP_KEYWORD_ROLES.get(op, {})


def op_pipe(op: str) -> str | None:
    """Pipe of an op that is not `move`/`insert`/`store` (those depend on memory spaces)."""
    name = _REGISTRY_ALIAS.get(op, op)
    if name in OP_PIPE:
        return OP_PIPE[name]
    if name in _VECTOR_OPS:
        return "V"
    return None


#: (src space, dst space) pairs the front end accepts for `pl.move`.
MOVE_PAIRS = frozenset({
    ("Mat", "Left"), ("Mat", "Right"), ("Mat", "Bias"), ("Mat", "ScaleLeft"), ("Mat", "ScaleRight"),
    ("Mat", "Scaling"), ("Acc", "Vec"), ("Vec", "Vec"), ("Vec", "Mat"),
})

#: `pl.AccToVecMode` members: where an Acc -> Vec move puts the data (AIV 0, AIV 1, or
#: split in halves between them along M or N).
ACC_TO_VEC_MODES = ("SingleModeVec0", "SingleModeVec1", "DualModeSplitM", "DualModeSplitN")


def move_pipe(src_mem: str, dst_mem: str) -> str:
    """Pipe of `pl.move`/`pl.insert` from a tile in `src_mem` to one in `dst_mem`."""
    if src_mem == "Acc" and dst_mem in ("Vec", "Mat"):
        return "FIX"
    if src_mem == "Mat":
        if dst_mem in ("Left", "Right", "Bias", "ScaleLeft", "ScaleRight"):
            return "MTE1"
        if dst_mem == "Vec":
            return "V"
        return "FIX"
    if src_mem == "Vec" and dst_mem == "Mat":
        return "MTE3"
    return "V"


def store_pipe(src_mem: str) -> str:
    """Pipe of `pl.store`/`store_tile` of a tile in `src_mem` to GM."""
    return "FIX" if src_mem == "Acc" else "MTE3"


def dump_pipe(data_mem: str | None) -> str:
    """Pipe of `pl.dump_data` of `data` in `data_mem` (None: a GM tensor). A GM tensor or a Vec
    tile is printed by the vector core (V); an Acc tile cannot be printed in place, so the whole
    tile is first written into its GM `workspace=` out of L0C, by the cube core's fixpipe, as a
    store from Acc is."""
    return "FIX" if data_mem == "Acc" else "V"


#: Which cores may issue work on each pipe: the cube core (AIC) runs the matrix unit, the
#: L1 -> L0 moves and the fixpipe out of L0C; the vector cores (AIV) run the vector unit and
#: write out of UB; both load from GM and have a scalar unit.
PIPE_CORES: dict[str, frozenset[str]] = {
    "M": frozenset({"cube"}),
    "MTE1": frozenset({"cube"}),
    "FIX": frozenset({"cube"}),
    "V": frozenset({"vector"}),
    "MTE3": frozenset({"vector"}),
    "MTE2": frozenset({"cube", "vector"}),
    "S": frozenset({"cube", "vector"}),
}

#: The core whose private memory a tile space is. Only two ops reach into the other core's
#: memory: the fixpipe move Acc -> Vec (cube writes UB) and `insert` Vec -> Mat (vector writes L1).
SPACE_CORE: dict[str, str] = {
    "Vec": "vector",
    **{s: "cube" for s in ("Mat", "Left", "Right", "Acc", "Bias", "Scaling", "ScaleLeft", "ScaleRight")},
}
CROSS_CORE_WRITES: frozenset[tuple[str, str]] = frozenset({("FIX", "Vec"), ("MTE3", "Mat")})
