"""The scalar side: SSBUF struct copies (`pl.ssbuf_store` / `ssbuf_load`) and the vector
mask state (`pl.set_vec_mask`, `reset_mask`, `set_mask_count`, `set_mask_norm`)."""

from __future__ import annotations

import numpy as np

from sim_runtime import assumed, costs
from sim_runtime.memory import Footprint, Memory
from sim_runtime.opplan import OpPlan
from sim_runtime.ops.base import OpCall, handles
from sim_runtime.tiles import Struct, struct_fields


def _words(struct: Struct) -> list[tuple[str, int | None, type]]:
    """(field, list position or None, int/float) for every 32-bit word of the struct."""
    out: list[tuple[str, int | None, type]] = []
    for name, value in struct_fields(struct):  # (not its type name or its fields' kinds: probe h109)
        items = value if isinstance(value, list) else [value]
        for k, v in enumerate(items):
            kind = float if isinstance(v, float) else int
            out.append((name, k if isinstance(value, list) else None, kind))
    return out


def _ssbuf(call: OpCall) -> Memory:
    key = ("SSBUF", f"b{call.core.block}")
    mem = call.m.memories.get(key)
    if mem is None:
        mem = call.m.memories[key] = Memory(key, "SSBUF", assumed.SSBUF_BYTES)
    return mem


def _place(call: OpCall):
    struct, offset = call.arg(0, "struct_var"), int(call.arg(1, "offset"))
    if not isinstance(struct, Struct):
        raise call.fail(f"expects a pl.struct, got {struct!r}")
    words = _words(struct)
    end = offset + 4 * len(words)
    if offset < 0 or offset % 4 or end > assumed.SSBUF_BYTES:
        raise call.fail(f"{len(words)} word(s) at byte {offset} do not fit the {assumed.SSBUF_BYTES}-byte SSBUF "
                        "(4-byte aligned)")
    mem = _ssbuf(call)
    return struct, words, mem, offset, Footprint.make(mem.key, offset, 1, 1, end - offset)


@handles("ssbuf_store")
def ssbuf_store(call: OpCall) -> OpPlan:
    struct, words, mem, offset, fp = _place(call)

    def run():
        for i, (name, k, kind) in enumerate(words):
            v = getattr(struct, name) if k is None else getattr(struct, name)[k]
            word = np.asarray([v], np.float32 if kind is float else np.int32)
            mem.buf[offset + 4 * i:offset + 4 * i + 4] = word.view(np.uint8)

    return OpPlan("S", costs.COSTS.scalar * max(1, len(words)), run, [(mem, fp, "W")])


@handles("ssbuf_load")
def ssbuf_load(call: OpCall) -> OpPlan:
    struct, words, mem, offset, fp = _place(call)

    def run():
        for i, (name, k, kind) in enumerate(words):
            raw = mem.buf[offset + 4 * i:offset + 4 * i + 4]
            v = (raw.view(np.float32) if kind is float else raw.view(np.int32))[0].item()
            if k is None:
                setattr(struct, name, v)  # (converted to the field's kind, as any store into it)
            else:
                getattr(struct, name)[k] = v

    return OpPlan("S", costs.COSTS.scalar * max(1, len(words)), run, [(mem, fp, "R")])


@handles("set_vec_mask", "reset_mask", "set_mask_count", "set_mask_norm")
def vector_mask(call: OpCall) -> OpPlan:
    """The mask register of the vector unit. Tile ops set their own mask (the docs: a user
    mask is overwritten by them), so the state only matters to code the emulator does not
    run; it is kept per core for inspection."""
    state = call.m.vector_masks.setdefault(call.core.name, {"mode": "norm", "mask": (-1, -1)})

    def run():
        if call.name == "set_vec_mask":
            state["mask"] = (int(call.arg(0, "mask_high")), int(call.arg(1, "mask_low")))
        elif call.name == "reset_mask":
            state["mask"] = (-1, -1)
        else:
            state["mode"] = "count" if call.name == "set_mask_count" else "norm"

    return OpPlan("S", costs.COSTS.scalar, run)
