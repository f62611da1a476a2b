"""The parameters of every `pl` op, as PyPTO's API reference gives its Python signature: enough
to tell, before anything runs, whether a call `pl.<op>(...)` binds as Python would bind it
(`misbinding`), where today only the emulator finds out, at run time, that
`pl.matmul_acc(acc, left, right)` lacks its fourth operand.

Each signature is written as the prototype it stands for (`"out, src, *, mode=..."`) and read
with Python's own parser: the names, the defaults (marked only: their values are PyPTO's, not
evaluated here), `/` after the parameters that cannot be given by keyword, `*args`, and the
keyword-only parameters after `*`.

Where the reference documents no signature for an op (the tile-scalar ops, the row/column
reductions and expands, `full`, the `gemv` family, ...), the parameters follow what the
emulator reads and are named as the reference names the parameters of its nearest documented
op (`adds` as `expands` and `axpy`: `out, src, scalar`); an operand the reference's form of
such an op may add but the emulator does not read is optional. The structural calls with
tables of their own (`pto_api.names.PL_PARAMETERS`) and the register ops of a vector function
(`VF_PARAMETERS`) are not here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Signature:
    """The parameters of one op, as a Python `def` lists them."""

    #: the parameters given by position (or by keyword, past `positional_only`), in order
    params: tuple[str, ...]
    #: how many of the leading `params` have no default
    required: int
    #: the parameters given by keyword only
    keyword_only: tuple[str, ...] = ()
    #: the keyword-only parameters with no default
    required_keywords: tuple[str, ...] = ()
    #: the name of the `*args` that takes the positional arguments past `params`, if any
    varargs: str | None = None
    #: how many of the leading `params` cannot be given by keyword
    positional_only: int = 0


def _parse(prototype: str) -> Signature:
    """The signature of `def f(<prototype>)`."""
    fn = ast.parse(f"def f({prototype}): pass").body[0]
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    params = tuple(p.arg for p in (*a.posonlyargs, *a.args))
    return Signature(
        params=params,
        required=len(params) - len(a.defaults),
        keyword_only=tuple(p.arg for p in a.kwonlyargs),
        required_keywords=tuple(p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None),
        varargs=a.vararg.arg if a.vararg else None,
        positional_only=len(a.posonlyargs),
    )


def _all(prototype: str, *ops: str) -> dict[str, str]:
    return dict.fromkeys(ops, prototype)


_BINARY = "out, lhs, rhs"
_UNARY = "out, src"
_TILE_SCALAR = "out, src, scalar"
_PHASE = "*, phase=None"
_CAST = "out, lhs, rhs, *, target_type, mode=RoundMode.CAST_ROUND"
_STORE_KEYWORDS = "*, relu_pre_mode=None, scale=None, order=None, atomic=AtomicType.AtomicNone, phase=None"

#: Prototype of each op (`system.<name>` for `pl.system.<name>`).
_PROTOTYPES: dict[str, str] = {
    # -- sections: `with pl.section_cube():` takes nothing (an argument would be evaluated by Python
    # and by nothing else: the transform and the check read the call by its name)
    **_all("", "section_cube", "section_vector"),
    # -- GM <-> tile, tile <-> tile --------------------------------------------------------------
    # (the transposing load is `order=[1, 0]`: the reference takes no `is_transpose=`)
    "load": "dst_tile, src_tensor, offsets, *, order=None",
    "load_tile": "dst_tile, src_tensor, tile_offsets, *, order=None",
    "store": f"dst_tensor, src_tile, offsets, {_STORE_KEYWORDS}",
    "store_tile": f"dst_tensor, src_tile, tile_offsets, {_STORE_KEYWORDS}",
    "move": "dst_tile, src_tile, offset=None, *, acc_to_vec_mode=None, relu_pre_mode=None, scale=None",
    "insert": "dst_tile, src_tile, offset",
    # the fixpipe forms of `move` and `store` (their backend names, pipe FIX): no signature of
    # their own is documented, they are taken as the ops they lower
    "move_fp": "dst_tile, src_tile, offset=None, *, acc_to_vec_mode=None, relu_pre_mode=None, scale=None",
    "store_fp": f"dst_tensor, src_tile, offsets, {_STORE_KEYWORDS}",
    "getval": "container, offset",
    "setval": "container, offset, value",
    "set_stride": "tensor, stride",
    "ssbuf_load": "struct_var, offset",
    "ssbuf_store": "struct_var, offset",
    # -- matrix ------------------------------------------------------------------------------------
    # the bias is the fourth operand by position only (`bias_tile=` is not taken), which makes
    # the operands before it positional too
    "matmul": f"dst_tile, lhs_tile, rhs_tile, bias_tile=None, /, {_PHASE}",
    "matmul_bias": f"dst_tile, lhs_tile, rhs_tile, bias_tile, /, {_PHASE}",
    "matmul_acc": f"dst_tile, acc_tile, lhs_tile, rhs_tile, {_PHASE}",
    "matmul_mx": f"dst_tile, lhs_tile, rhs_tile, scale_a, scale_b, {_PHASE}",
    "matmul_mx_acc": f"dst_tile, acc_tile, lhs_tile, rhs_tile, scale_a, scale_b, {_PHASE}",
    # matrix-vector forms: the matmul family's operands (`gemv(..., bias)` is `gemv_bias`)
    "gemv": f"dst_tile, lhs_tile, rhs_tile, bias_tile=None, /, {_PHASE}",
    "gemv_bias": f"dst_tile, lhs_tile, rhs_tile, bias_tile, /, {_PHASE}",
    "gemv_acc": f"dst_tile, acc_tile, lhs_tile, rhs_tile, {_PHASE}",
    # -- element-wise ------------------------------------------------------------------------------
    # (a binary op's rhs may be a scalar: it then runs as the tile-scalar op)
    **_all(_BINARY, "add", "sub", "mul", "div", "rem", "and_", "or_", "shl", "shr",
           "eq", "ne", "lt", "le", "gt", "ge", "add_relu", "sub_relu", "fused_mul_add", "mul_add_dst"),
    # with `dim=` a reduction along it, `rhs` then the scratch tile
    **_all(f"{_BINARY}, *, dim=None", "maximum", "minimum"),
    "xor": "out, lhs, rhs, tmp",  # tmp: the hardware's scratch
    **_all("out, src0, src1", "partadd", "partmax", "partmin", "partmul"),
    **_all(_TILE_SCALAR, "adds", "subs", "muls", "divs", "rems", "ands", "ors", "shls", "shrs", "maxs", "mins",
           "cmps"),
    "xors": "out, src, scalar, tmp=None",
    "lrelu": "out, src, slope",
    "prelu": "out, src, slope, tmp",
    **_all(_UNARY, "neg", "exp", "log", "sqrt", "rsqrt", "recip", "abs", "relu", "not_", "transpose", "ub_copy"),
    "cast": "out, src, *, mode=RoundMode.CAST_ROUND",
    **_all(_CAST, "add_relu_cast", "sub_relu_cast", "mul_cast"),
    "fused_mul_add_relu": "out, a, b",
    "addc": "out, a, b, c",
    "axpy": "out, src, alpha",
    "select": "out, mask, lhs, rhs, tmp, /",  # all five by position
    # -- reductions and expands --------------------------------------------------------------------
    **_all("out, src, tmp, *, dim=0", "sum", "argmax", "argmin"),
    **_all("out, src, tmp=None", "row_sum", "row_max", "row_min", "col_sum", "col_max", "col_min",
           "row_prod", "col_prod"),
    **_all(_UNARY, "row_expand", "col_expand"),
    # `scalar` is a tile of one value per row (column), broadcast along it
    **_all("out, src, scalar, *, dim=0", "expand_sub", "expand_mul", "expand_div", "expand_max", "expand_min"),
    **_all(_TILE_SCALAR, "row_expand_binop", "col_expand_binop",
           *(f"{a}_expand_{o}" for a in ("row", "col") for o in ("add", "sub", "mul", "div", "max", "min"))),
    # -- fill, layout ------------------------------------------------------------------------------
    **_all("out, scalar", "expands", "full", "fill"),
    "fill_index": "out, start",
    "fillpad": "out, src, *, mode=FillPadMode.NORMAL",
    **_all(_UNARY, "fillpad_expand", "fillpad_inplace"),
    "reshape": "out, src, shape",
    # -- index-driven ops, sorts -------------------------------------------------------------------
    "gather": "out, src, idx, tmp, *, cmp_mode=0, offset=0",
    "gatherb": "out, src, offsets",
    "gathermask": "out, src, *, pattern_mode",
    "scatter": "out, src, idx",
    "histogram": "dst, src, idx, *, is_msb",
    "sort32": "dst, src, idx, tmp=None",
    "mrgsort": "dst, src, *, block_len",
    "mrgsort2": "src0, src1, dst, tmp, *extra_srcs, exhausted=False",
    # -- quantisation ------------------------------------------------------------------------------
    "quant": "out, src, scale, *, mode=QuantMode.SYM, offset=None",
    "dequant": "out, src, scale, offset",
    # -- scalar unit: vector mask, special registers, debugging ------------------------------------
    "set_vec_mask": "mask_high, mask_low",
    **_all("", "reset_mask", "set_mask_count", "set_mask_norm", "get_spr", "trap"),
    "printf": "format_str, *args, loc=False",
    "pto_assert": "condition, format_str=None, *args, loc=False",
    "dump_data": "data, offsets=None, shapes=None, *, workspace=None, loc=False",
    # -- GM views, constants, the core's place -----------------------------------------------------
    "make_tensor": "ptr, shape, stride=None, dtype=None",
    "make_ptr": "ptr, dtype=None",
    "addptr": "ptr, offset",
    "const": "value, dtype",
    **_all("", "get_block_idx", "get_block_num", "get_subblock_idx", "get_subblock_num"),
    # -- pl.system: synchronisation, cache, matmul layout ------------------------------------------
    **_all("*, pipe, event_id, sync_mode=CrossCoreSyncMode.INTRA_BLOCK",
           "system.set_cross_core", "system.wait_cross_core"),
    **_all("*, set_pipe, wait_pipe, event_id", "system.sync_src", "system.sync_dst"),
    # `mutex_id` is the id, `max_mutex_id` and `mutex_ids` what a dynamic one is expanded over
    **_all("*, pipe, mutex_id, mode=0, max_mutex_id=2, mutex_ids=None", "system.mutex_lock", "system.mutex_unlock"),
    "system.sync_all": "workspaces=None, *, core_type=SyncCoreType.MIX, mode=SyncAllMode.HARD",
    **_all("", *(f"system.bar_{p}" for p in ("m", "mte1", "mte2", "mte3", "fix", "v", "all"))),
    # (`pl.dcci` and `pl.set_mm_layout_transform` are the same calls as the `pl.system` ones)
    **_all("target, offset=None, *, cache_line=CacheLine.ENTIRE_DATA_CACHE, dst=DcciDst.AUTO",
           "system.dcci", "dcci"),
    **_all("*, enabled", "system.set_mm_layout_transform", "set_mm_layout_transform"),
}

#: `pl.<op>` -> its parameters (`"system.<name>"` for `pl.system.<name>`).
OP_SIGNATURES: dict[str, Signature] = {op: _parse(proto) for op, proto in _PROTOTYPES.items()}


def _count(n: int) -> str:
    return f"{n} positional argument{'s' if n != 1 else ''}"


def misbinding(op: str, n_positional: int, keywords: Iterable[str]) -> str | None:
    """Why `pl.<op>(<n_positional arguments>, **{k: ... for k in keywords})` does not bind to
    the op's signature, in Python's terms, or None: it binds, or the op has no signature here."""
    sig = OP_SIGNATURES.get(op)
    if sig is None:
        return None
    if sig.varargs is None and n_positional > len(sig.params):
        most = "no positional arguments" if not sig.params else f"at most {_count(len(sig.params))}"
        return f"takes {most}, {n_positional} given"
    given = list(keywords)
    for k in given:
        if k in sig.params[:sig.positional_only]:
            return f"`{k}` cannot be given by keyword (it is given by position only)"
        if k in sig.params[:n_positional]:
            return f"`{k}` given twice (by position and by keyword)"
        if k not in sig.params and k not in sig.keyword_only:
            return f"has no parameter `{k}`"
    missing = [p for p in sig.params[n_positional:sig.required] if p not in given]
    if missing:
        return f"missing required argument `{missing[0]}`"
    missing = [k for k in sig.required_keywords if k not in given]
    if missing:
        return f"missing required keyword argument `{missing[0]}`"
    return None
