"""Synchronisation facts of the A5 core: event ids, counter depth, mutex ids, sync modes."""

from __future__ import annotations

#: Ids of cross-core events (`set_cross_core`/`wait_cross_core`) and of intra-core flags
#: (`sync_src`/`sync_dst`): 16 per direction (per pipe pair for intra-core flags).
EVENT_IDS = range(16)

#: A cross-core event counter holds at most this many sets no wait has consumed yet; one
#: more faults the device.
MAX_OUTSTANDING_SETS = 15

#: Ids of auto_mutex buffer tokens (`mutex_ids` of `pl.make_tile_group`).
MUTEX_IDS = range(32)



def mutex_slot_error(slots: list[tuple]) -> str | None:
    """Why a group's `mutex_ids`, as one tuple of ids per slot, is not one the front end accepts
    (ids of `MUTEX_IDS`, none twice in a slot, every slot as many), or None."""
    for ids in slots:
        if not ids or any(type(i) is not int or i not in MUTEX_IDS for i in ids) or len(set(ids)) != len(ids):
            return (f"bad mutex_ids entry {list(ids) if len(ids) != 1 else ids[0]!r} (ints {MUTEX_IDS.start}.."
                    f"{MUTEX_IDS.stop - 1}, no duplicates in a slot)")
    if len({len(ids) for ids in slots}) > 1:
        return "every slot must have the same number of mutex ids"
    return None


#: `pl.CrossCoreSyncMode` members and their values.
CROSS_CORE_SYNC_MODES = {"INTER_BLOCK": 0, "INTER_SUBBLOCK": 1, "INTRA_BLOCK": 2, "UNICAST_BLOCK": 3}

#: The Acc unit flag (`phase=`), a hardware handshake between the cube's M pipe (`matmul*`
#: writes Acc) and its FIX pipe (`store*` reads Acc), one flag per L0C region, 0 at launch.
#: Per phase of a call: (the value the op waits for before its Acc access, the value it
#: sets after it, None: it leaves the flag). Partial only waits; Final waits, then flips it.
#: With a phase, auto_mutex emits no mutex for the call's Acc tile: the flag replaces it.
UNIT_FLAG_START = 0
UNIT_FLAG: dict[tuple[str, str], tuple[int, int | None]] = {
    ("M", "Partial"): (0, None),
    ("M", "Final"): (0, 1),
    ("FIX", "Partial"): (1, None),
    ("FIX", "Final"): (1, 0),
}
#: The ops that take `phase=` and the side of the flag they are on (`STPhase.Unspecified`
#: gives a store no phase).
PHASE_OPS = {**dict.fromkeys(("matmul", "matmul_acc", "matmul_bias", "matmul_mx", "matmul_mx_acc"), "M"),
             **dict.fromkeys(("store", "store_tile"), "FIX")}


def unit_flag(op: str, phase: str | None) -> tuple[int, int | None] | None:
    """(waits for, sets) of `pl.<op>(..., phase=<phase>)` (`phase` a member name of
    `pl.AccPhase`/`pl.STPhase`), or None when the call does not use the flag. The docs' own
    example passes an AccPhase to a store; the member name is what is read, as for the enums'
    shared names. An unknown name raises ValueError."""
    side = PHASE_OPS.get(op)
    if side is None or phase in (None, "Unspecified"):
        return None
    if (side, phase) not in UNIT_FLAG:
        raise ValueError(f"unknown phase {phase!r}: Partial or Final")
    return UNIT_FLAG[side, phase]
