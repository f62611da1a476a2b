"""Kernels for the tests on what GM and tile extents hold, each a few edits of
kernels/store_offset_param.py (two vector stages around a cube stage: `fill_row` stores ones
into rows of `out`, `scale_store` stores relu(A_i @ A_i) there; the pipeline runs `fill_row` of
task i + 1 before `scale_store` of task i). Every function returns the kernel's text."""

from __future__ import annotations

from pathlib import Path

from pto_transpile import transpile

KERNELS = Path(__file__).parent / "kernels"
BASE = "store_offset_param.py"

_RELU_STORE = "    pl.relu(y, c_vec)\n    pl.store(out, y, [(ki + d) * TILE + sub_id * HALF, 0])\n"
_FILL_STORE = "    pl.store(out, z_vec, [ki * TILE + sub_id * HALF, 0])\n"
_Y_HALF = "type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n" \
          "            addrs=0x4000,"
_Y_WHOLE = _Y_HALF.replace("shape=[HALF, TILE]", "shape=[TILE, TILE]")


def edit(text: str, *pairs: tuple[str, str]) -> str:
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new)
    return text


def errors(text: str, name: str) -> list[str]:
    result = transpile(text, path=name)
    return [d.message for d in result.diagnostics if d.severity == "error"]


def base() -> str:
    return (KERNELS / BASE).read_text()


def valid_rows(rows: str = "d + 1", offset: str = "40") -> str:
    """`scale_store` stores a 32-row tile with a valid shape of `rows` rows at row 64 i +
    `offset`, `fill_row` 16 rows at row 64 i. With `d + 1` rows at offset 40, task i's second
    store reaches the next task's first when d >= 24, a value the sampled trials never take,
    and the pipeline reorders the two: the outputs differ."""
    return edit(base(), (_FILL_STORE, "    pl.store(out, z_vec, [sub_id * 320 + ki * 64, 0])\n"),
                (_RELU_STORE, "    pl.relu(c_vec, c_vec)\n    pl.full(y, 2.0)\n"
                              f"    pl.set_validshape(y, [{rows}, TILE])\n"
                              f"    pl.store(out, y, [sub_id * 320 + ki * 64 + {offset}, 0])\n"),
                (_Y_HALF, _Y_WHOLE))


def overlap_reordered(rows: int = 26) -> str:
    """`valid_rows` with a static valid shape and no parameter: with 26 rows, task i's second
    store (rows 64 i + 40 .. 64 i + 66) and task i + 1's first (rows 64 i + 64 .. 64 i + 80)
    overlap in two rows, written one after the other on the same pipe in both kernels, in the
    other order when pipelined. No read sees it, only what GM holds at the end."""
    return edit(valid_rows(str(rows)), ("def scale_store(ki, d, sub_id,", "def scale_store(ki, sub_id,"),
                ("scale_store(ki, d, sub_id,", "scale_store(ki, sub_id,"), ("    d: pl.DT_INT32,\n", ""))


def vf_count() -> str:
    """A vector function stores `n` registers of 256 bytes into a 4 KiB tile, with `n` the
    parameter `d`: for d <= 16 it stays in its slot of `y_db`, for d > 16 it reaches the next
    slot, which the previous task's store still reads when pipelined (a race). The sampled
    trials (0, 1, 2, 3, 5, 11) all stay inside."""
    return edit(base(), ("import pypto_pro.language as pl\n",
                          "import pypto_pro.language as pl\nfrom pypto_pro.language import Vf as vf\n"),
                ("@pl.pipeline.stage\ndef mm_stage",
                 "@pl.vector_function\ndef fill_vf(t, n):\n"
                 "    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n"
                 "    x = vf.full(2.0, p32)\n    for i in pl.range(0, n):\n        vf.store_align(t + 64 * i, x, p32)\n"
                 "\n\n@pl.pipeline.stage\ndef mm_stage"),
                ("    c_vec = c_vec_db.next()\n    y = y_db.next()\n",
                 "    c_vec = c_vec_db.next()\n    pl.relu(c_vec, c_vec)\n    y = y_db.next()\n"),
                (_RELU_STORE, "    fill_vf(y, d)\n    pl.set_validshape(y, [HALF, TILE])\n"
                              "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"),
                (_Y_HALF, _Y_WHOLE))


def atomic_read_back() -> str:
    """Both vector stages add into `total` with atomic stores: `fill_row` adds ones, then
    `scale_store` adds relu(A_i @ A_i), reads `total` back and stores it as row i of `out`. The
    pipeline runs `fill_row` of task i + 1 before `scale_store` of task i, so the read-back holds
    one more addition than serially; as plain writes, the last write before the read is the same
    in both kernels and the difference was not seen."""
    return edit(base(), ("def fill_row(ki, sub_id, out, z_vec):\n" + _FILL_STORE,
                          "def fill_row(ki, sub_id, total, z_vec):\n"
                          "    pl.store(total, z_vec, [sub_id * HALF, 0], atomic=pl.AtomicType.AtomicAdd)\n"),
                ("def scale_store(ki, d, sub_id, out, c_vec_db, y_db):\n    c_vec = c_vec_db.next()\n"
                 "    y = y_db.next()\n" + _RELU_STORE,
                 "def scale_store(ki, sub_id, out, total, c_vec_db, y_db):\n    c_vec = c_vec_db.next()\n"
                 "    pl.store(total, c_vec, [sub_id * HALF, 0], atomic=pl.AtomicType.AtomicAdd)\n"
                 "    pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=1)\n"
                 "    pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=1)\n"
                 "    y = y_db.next()\n    pl.load(y, total, [sub_id * HALF, 0])\n"
                 "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"),
                ("    d: pl.DT_INT32,\n", "    total: pl.Tensor[[TILE, TILE], pl.DT_FP32],\n"),
                ("fill_row(ki, sub_id, out, z_vec)", "fill_row(ki, sub_id, total, z_vec)"),
                ("scale_store(ki, d, sub_id, out, c_vec_db, y_db)",
                 "scale_store(ki, sub_id, out, total, c_vec_db, y_db)"))


def accumulate_only() -> str:
    """One stage adds into `total` every iteration and nothing reads it: the additions keep
    their order in both kernels."""
    return edit(atomic_read_back(),
                ("    pl.store(total, z_vec, [sub_id * HALF, 0], atomic=pl.AtomicType.AtomicAdd)",
                 "    pl.store(out, z_vec, [(ki + 8) * TILE + sub_id * HALF, 0])"),
                ("    pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=1)\n"
                 "    pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=1)\n"
                 "    y = y_db.next()\n    pl.load(y, total, [sub_id * HALF, 0])\n"
                 "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n", ""),
                ("fill_row(ki, sub_id, total, z_vec)", "fill_row(ki, sub_id, out, z_vec)"))


def middle_crossing_defect(m: int, n: int) -> str:
    """`outer_phase_defect` with the write in the first task of every outer iteration but the
    first and the last (`qi > 0`, `qi < M - 1`): pipelined, the last `scale_store` of the outer
    iteration before sees it, with 3 outer iterations or more; a run of 2 holds no such task."""
    return edit(outer_phase_defect(m, n),
                ("        if q_count % 12 == 9:\n            pl.full(w_vec, 3.0)\n",
                 "        if qi > 0:\n            if qi < M - 1:\n                pl.full(w_vec, 3.0)\n"),
                ("fill_row(ki, tick, q_count,", "fill_row(ki, qi, tick, q_count,"))


def middle_middle_defect(m: int, n: int) -> str:
    """`middle_crossing_defect` whose read is guarded the same way and whose write adds 1 (a
    value that changes): the first task of a middle outer iteration writes what the last task
    of the middle iteration before reads, so only two middle iterations side by side show it,
    with 4 outer iterations or more."""
    return edit(middle_crossing_defect(m, n), ("pl.full(w_vec, 3.0)", "pl.adds(w_vec, w_vec, 1.0)"),
                ("def scale_store(ki, tick, sub_id,", "def scale_store(ki, qi, tick, sub_id,"),
                ("    pl.add(y, y, w_vec)\n",
                 "    if qi > 0:\n        if qi < M - 1:\n            pl.add(y, y, w_vec)\n"),
                ("scale_store(ki, tick, sub_id, out, c_vec_db, y_db, w_vec)",
                 "scale_store(ki, qi, tick, sub_id, out, c_vec_db, y_db, w_vec)"))


def lagged_defect(m: int, n: int) -> str:
    """`middle_crossing_defect` guarded by the outer loop variable of three iterations before,
    passed down `p1`, `p2`, `p3` at the end of each outer iteration: the first three see -1,
    so the defect shows only from the fourth (a hostile probe's kernel, accepted at 8 x 160
    while a carried value computed from the loop variable went unjudged)."""
    return edit(middle_crossing_defect(m, n),
                ("        if qi > 0:\n            if qi < M - 1:\n                pl.full(w_vec, 3.0)\n",
                 "        if p3 == 0:\n            pl.full(w_vec, 3.0)\n"),
                ("fill_row(ki, qi, tick,", "fill_row(ki, p3, tick,"),
                ("    q_count = 0\n    tick = 0\n",
                 "    q_count = 0\n    tick = 0\n    p1 = -1\n    p2 = -1\n    p3 = -1\n"),
                ("        q_count = q_count + 1\n", "        q_count = q_count + 1\n        p3 = p2\n        p2 = p1\n"
                                                    "        p1 = qi\n"))


#: name -> the kernel's text, for parametrised tests
def vf_clamped_17() -> str:
    """`vf_count` with the count clamped to 17 registers (`min(d, 17)`): one past the tile for
    d >= 17, in it below."""
    return edit(vf_count(), ("fill_vf(y, d)", "fill_vf(y, min(d, 17))"))


_W_TILE = ("        pl.full(z_vec, 1.0)\n",
           "        pl.full(z_vec, 1.0)\n        w_vec = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32,"
           " target_memory=pl.MemorySpace.Vec), addr=0xA000)\n        pl.full(w_vec, 0.0)\n")


def phase_defect(n: int) -> str:
    """`fill_row` of a task at phase 9 of 12 (`ki % 12 == 9`) writes `w_vec`, which every
    `scale_store` adds to its tile. Pipelined, `fill_row` of task 9 runs before `scale_store` of
    task 8, which then adds 3 instead of 0: wrong for every `N` of 10 or more, in a steady task
    (not one of the fill or the drain) when `N` is long."""
    return edit(base(), ("def fill_row(ki, sub_id, out, z_vec):\n" + _FILL_STORE,
                         "def fill_row(ki, sub_id, out, z_vec, w_vec):\n" + _FILL_STORE
                         + "    if ki % 12 == 9:\n        pl.full(w_vec, 3.0)\n"),
                ("fill_row(ki, sub_id, out, z_vec)", "fill_row(ki, sub_id, out, z_vec, w_vec)"),
                ("def scale_store(ki, d, sub_id, out, c_vec_db, y_db):",
                 "def scale_store(ki, sub_id, out, c_vec_db, y_db, w_vec):"),
                ("scale_store(ki, d, sub_id, out, c_vec_db, y_db)",
                 "scale_store(ki, sub_id, out, c_vec_db, y_db, w_vec)"),
                (_RELU_STORE, "    pl.relu(y, c_vec)\n    pl.add(y, y, w_vec)\n"
                              "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"),
                _W_TILE, ("    d: pl.DT_INT32,\n", ""), ("N = 4\n", f"N = {n}\n"))


def outer_phase_defect(m: int, n: int) -> str:
    """`phase_defect` one level up: an outer loop of `m` iterations around the loop of `n`
    tasks, whose first task writes `w_vec` in the outer iteration at phase 9 of 12 (`q_count %
    12 == 9`); pipelined, the last `scale_store` of outer iteration 8 sees it. Rows are numbered
    by a counter carried across both loops (`tick`)."""
    text = edit(base(), ("def fill_row(ki, sub_id, out, z_vec):\n" + _FILL_STORE,
                         "def fill_row(ki, tick, q_count, sub_id, out, z_vec, w_vec):\n"
                         "    pl.store(out, z_vec, [tick * TILE + sub_id * HALF, 0])\n"
                         "    if ki == 0:\n        if q_count % 12 == 9:\n            pl.full(w_vec, 3.0)\n"),
                ("def scale_store(ki, d, sub_id, out, c_vec_db, y_db):",
                 "def scale_store(ki, tick, sub_id, out, c_vec_db, y_db, w_vec):"),
                (_RELU_STORE, "    pl.relu(y, c_vec)\n    pl.add(y, y, w_vec)\n"
                              "    pl.store(out, y, [tick * TILE + sub_id * HALF, 0])\n"),
                _W_TILE, ("    d: pl.DT_INT32,\n", ""), ("N = 4\n", f"N = {n}\nM = {m}\n"),
                ("out: pl.Tensor[[(N + 16) * TILE, TILE]", "out: pl.Tensor[[M * N * TILE, TILE]"))
    loop = text[text.index("    for ki in pl.range(0, N):\n"):]
    nested = ("    q_count = 0\n    tick = 0\n    for qi in pl.range(0, M):\n"
              + "".join("    " + line + "\n" for line in loop.splitlines())
              .replace("fill_row(ki, sub_id, out, z_vec)", "fill_row(ki, tick, q_count, sub_id, out, z_vec, w_vec)")
              .replace("scale_store(ki, d, sub_id, out, c_vec_db, y_db)",
                       "scale_store(ki, tick, sub_id, out, c_vec_db, y_db, w_vec)")
              + "            tick = tick + 1\n        q_count = q_count + 1\n")
    return text.replace(loop, nested)


KERNEL_TEXTS = {"valid_rows": valid_rows, "overlap_reordered": overlap_reordered, "vf_count": vf_count,
                "atomic_read_back": atomic_read_back, "accumulate_only": accumulate_only,
                "vf_clamped_17": vf_clamped_17}

