"""Rotations that only choose among interchangeable entries leave the periods (`renaming.py`
reads which from the code, `renamed.py` checks on every run that the entries are alike and
nothing else reaches them); entries that are not interchangeable keep their rotation in the
period, and a defect at one of its phases is refused."""

from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst
import pytest

from helpers import fixed_flash_attention, judged_runs, spread
from pto_transpile import transpile
from pto_transpile.soundness import check as check_module
from pto_transpile.soundness.renaming import certify
from pto_transpile.soundness.ringsymmetry import walk

sys.path.insert(0, str(Path(__file__).parent))
from variants import base, edit  # noqa: E402


def _path(expr: cst.BaseExpression) -> tuple | None:
    parts: list[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    return tuple(reversed(parts)) if isinstance(expr, cst.Name) and expr.value == "pl" and parts else None


@pytest.fixture(scope="module")
def generated() -> str:
    code = transpile(fixed_flash_attention(), path="flash_attention_dn.py", preload=2).code
    assert code is not None
    return code


def _certify(code: str, elsewhere: str = ""):
    module = cst.parse_module(code)
    functions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
    kernel = functions.pop("flash_attention_dn")
    return certify(kernel, functions, _path, elsewhere, walk)


def test_every_rotation_of_the_generated_flash_attention_is_certified(generated):
    certs = _certify(generated)
    assert len(certs.tuples) == 3  # gmax_buf, gsum_buf, ecorr_buf
    assert len(certs.lists) == 5  # the fwd and bwd ids of qk_vec_db and pv_vec_db, the fwd ids of p_mat_db
    assert len(certs.constant_picks) == 8  # the prefire's four sets and the drain's four waits
    assert certs.counters == {"_pl_idx_q_l1_db"} and len(certs.updates) == 1 and len(certs.counter_picks) == 2


_TAMPERED = [
    # an event id twice in its list, or in two lists: then a sync takes its id from a list that is
    # not certified, and no list is (every event id must be a certified list's)
    ("_pl_fwd_ids_qk_vec_db = [0, 1]", "_pl_fwd_ids_qk_vec_db = [0, 0]", lambda c: not c.lists),
    ("_pl_fwd_ids_qk_vec_db = [0, 1]", "_pl_fwd_ids_qk_vec_db = [0, 4]", lambda c: not c.lists),
    # a list entry rebound, inside an unpacking
    ("    _pl_fwd_ids_qk_vec_db = [0, 1]\n",
     "    _pl_fwd_ids_qk_vec_db = [0, 1]\n    spare, _pl_fwd_ids_qk_vec_db[1] = 0, 0\n", lambda c: not c.lists),
    # a prefire that does not set every id of a list blesses none of its constant picks
    ("        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_qk_vec_db[1])\n", "",
     lambda c: len(c.constant_picks) == 4),
    # a tuple entry reached otherwise than through the tuple
    ("        gmax_buf = (gmax_0, gmax_1, gmax_2)\n",
     "        gmax_buf = (gmax_0, gmax_1, gmax_2)\n        pl.full(gmax_0, 0.0)\n", lambda c: len(c.tuples) == 2),
    # a stage that does more with the tuple than subscript it
    ("    x_exp = p_f16_db.next()\n", "    x_exp = p_f16_db.next()\n    peek = gmax_buf\n",
     lambda c: len(c.tuples) == 2),
    # the slot counter of `q_l1_db` used in a GM offset
    ("pl.load(cur_q_slot, q, [qi * TS, 0]", "pl.load(cur_q_slot, q, [qi * TS + _pl_idx_q_l1_db, 0]",
     lambda c: not c.counters and not c.counter_picks),
]


@pytest.mark.parametrize("old, new, holds", spread([pytest.param(*t) for t in _TAMPERED], 4))  # all: campaign
def test_a_rotation_the_code_uses_otherwise_is_not_certified(generated, old, new, holds):
    assert old in generated, old
    assert holds(_certify(generated.replace(old, new, 1)))


def test_no_event_list_is_certified_when_another_function_syncs_across_cores(generated):
    assert not _certify(generated, "def stage():\n    pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=0)\n").lists


# --- what a run shows ---------------------------------------------------------------------------
_RELU_STORE = "    pl.relu(y, c_vec)\n    pl.store(out, y, [(ki + d) * TILE + sub_id * HALF, 0])\n"
_FILL = "def fill_row(ki, sub_id, out, z_vec):\n    pl.store(out, z_vec, [ki * TILE + sub_id * HALF, 0])\n"
_VEC = "pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)"


def _common(n: int) -> tuple:
    return (("    d: pl.DT_INT32,\n", ""), ("N = 4\n", f"N = {n}\n"),
            ("def scale_store(ki, d, sub_id,", "def scale_store(ki, sub_id,"),
            ("scale_store(ki, d, sub_id,", "scale_store(ki, sub_id,"))


def tuple_ring(n: int, alias: bool) -> str:
    """`fill_row` of task i adds ones to entry `i % 12` of a tuple of 12 tiles, `scale_store` of
    task i adds that entry to its tile. Pipelined, `fill_row` of task i + 1 runs before
    `scale_store` of task i: another entry, unless entry 10 is entry 9's memory (`alias`), which
    only task 9 of every 12 shows."""
    addrs = [0x10000 + 0x800 * i for i in range(12)]
    if alias:
        addrs[10] = addrs[9]
    tiles = "".join(f"        w_{i} = pl.make_tile({_VEC}, addr={a:#x})\n" for i, a in enumerate(addrs))
    ring = "        w_ring = (" + ", ".join(f"w_{i}" for i in range(12)) + ")\n"
    return edit(base(), *_common(n),
                (_FILL, _FILL.replace("z_vec):", "z_vec, w_ring):")
                 + "    pl.add(w_ring[ki % 12], w_ring[ki % 12], z_vec)\n"),
                ("fill_row(ki, sub_id, out, z_vec)", "fill_row(ki, sub_id, out, z_vec, w_ring)"),
                ("out, c_vec_db, y_db):", "out, c_vec_db, y_db, w_ring):"),
                ("out, c_vec_db, y_db)\n", "out, c_vec_db, y_db, w_ring)\n"),
                (_RELU_STORE, "    pl.relu(y, c_vec)\n    pl.add(y, y, w_ring[ki % 12])\n"
                              "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"),
                ("        pl.full(z_vec, 1.0)\n", "        pl.full(z_vec, 1.0)\n" + tiles + ring))


def group_ring(n: int, alias: bool = False, mutex: str = "") -> str:
    """`scale_store` writes slot `i % 12` of `y_db` (12 slots) and stores it; `fill_row` stores
    `z_vec`. With slot 9 at `z_vec`'s address (`alias`), `fill_row` of task 10 reads it before
    `scale_store` of task 9 writes it when pipelined, after when serial: only task 9 of every 12
    shows it. `mutex`: the slots' mutex ids (else 12 of their own)."""
    addrs = [0x10000 + 0x800 * i for i in range(12)]
    if alias:
        addrs[9] = 0x8000
    ids = mutex or "[" + ", ".join(str(12 + i) for i in range(12)) + "]"
    return edit(base(), *_common(n),
                (_RELU_STORE, "    pl.relu(y, c_vec)\n    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"),
                ("            addrs=0x4000,\n            mutex_ids=[12, 13],\n",
                 f"            addrs=[{', '.join(hex(a) for a in addrs)}],\n            mutex_ids={ids},\n"))


def _runs(monkeypatch) -> list:
    return judged_runs(monkeypatch)


def _errors(text: str) -> list[str]:
    result = transpile(text, path="ring.py")
    return [d.message for d in result.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("make", [tuple_ring, group_ring])
def test_interchangeable_entries_prove_a_long_loop_at_a_short_count(monkeypatch, make):
    runs = _runs(monkeypatch)
    assert _errors(make(258, alias=False)) == []
    reps = [c.trips for c in runs if c.trips]  # after the attempt cut off at the step budget
    assert reps and all(max(t.values()) < 12 for t in reps), reps


@pytest.mark.parametrize("make", [tuple_ring, group_ring])
def test_an_entry_that_shares_memory_keeps_its_rotation_and_its_defect_is_refused(make):
    # at 8 tasks the defect (task 9 of every 12) never shows; at 258 only a run through a
    # whole period of 12 shows it: the renaming must not apply
    assert _errors(make(8, alias=True)) == []
    errors = _errors(make(258, alias=True))
    assert errors and "scale_store" in errors[0] and "(task 9)" in errors[0], errors


def test_a_slot_sharing_a_mutex_id_with_another_groups_slot_keeps_its_rotation(monkeypatch):
    runs = _runs(monkeypatch)
    ids = "[" + ", ".join(str(12 + i) for i in range(11)) + ", 0]"  # slot 11 holds c_vec_db's slot-0 id
    assert _errors(group_ring(258, mutex=ids)) == []
    reps = [c.trips for c in runs if c.trips]
    assert reps and max(max(t.values()) for t in reps) >= 12, reps


@pytest.mark.emulator
@pytest.mark.parametrize("make", [tuple_ring, group_ring])
@pytest.mark.parametrize("alias", [False, True])
def test_the_emulator_agrees_on_the_shared_entry(make, alias):
    # 12 tasks: task 9 is there; the kernel written despite the check is wrong exactly when an
    # entry shares memory
    from sim_runtime.verify import verify

    text = make(12, alias=alias)
    code = transpile(text, path="ring.py", _skip_rules=["PTO061"]).code
    row = verify(text, code, "kernel", path="ring.py").rows[-1]
    assert (row.verdict == "ok") != alias, (row.verdict, row.message)


def _kv_period(text: str) -> int:
    """The period the discovery run of the serial kernel finds for its loop over `N` tiles."""
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile

    file = read(SourceFile.parse(text, "ring.py"))
    (kernel,) = file.kernels
    found = check_module._discover(file, kernel, [(kernel.node, None)], True, {}, False, symbolic_dims=True,
                                   symbolic_names=frozenset({"N"}))
    return found.loop_periods[("const", "N")]


@pytest.mark.parametrize("moves, period", [(1, 1), (2, 12)])
def test_groups_sharing_slots_are_renamed_only_when_their_cursors_move_alike(moves, period):
    # `z_db` is `y_db`'s memory seen again, slot for slot: renamed together while each moves once
    # a task; moved twice, its slot is no longer `y_db`'s (the renaming is not one)
    addrs = ", ".join(hex(0x10000 + 0x800 * i) for i in range(12))
    z_db = f"        z_db = pl.make_tile_group(\n            type={_VEC},\n            addrs=[{addrs}],\n" \
           "            depth=12,\n        )\n"
    text = edit(group_ring(258), ("    y = y_db.next()\n", "    y = y_db.next()\n" + "    z = z_db.next()\n" * moves),
                ("        z_vec = pl.make_tile(", z_db + "        z_vec = pl.make_tile("),
                ("out, c_vec_db, y_db):", "out, c_vec_db, y_db, z_db):"),
                ("out, c_vec_db, y_db)\n", "out, c_vec_db, y_db, z_db)\n"))
    assert _kv_period(text) == period
