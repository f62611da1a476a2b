"""Contiguous chunks per block whose size is a scalar parameter or a tiling-data field, as
production kernels take it from the host's tiling (`start = core_id * tiling.chunk`, `cnt =
min(tiling.chunk, n - start)`). The parameter reaches every block alike, so it is a chunk size
as a size computed from shapes is. Refused before ("the trip count of this loop is not static":
`core_id * chunk` with both run-time values was a value the run could not name); the defects
beside them are refused and race between blocks on the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime import verify

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
FIELD = ("    scale: float\n", "    scale: float\n    chunk: int\n")
PARAMS = ("    tiling: ScaleTiling,\n", "    tiling: ScaleTiling,\n    chunk: pl.DT_INT32,\n    c2: pl.DT_INT32,\n")

ACCEPTED = {
    "a tiling-data field, counted": [FIELD, (LOOP, "    start = core_id * tiling.chunk\n"
                                                   "    cnt = min(tiling.chunk, n_blocks - start)\n"
                                                   "    for j in pl.range(0, cnt):\n        i = start + j\n")],
    "a tiling-data field, start to end": [FIELD, (LOOP, "    start = core_id * tiling.chunk\n"
                                                        "    for i in pl.range(start, min(start + tiling.chunk, "
                                                        "n_blocks)):\n")],
    "a scalar parameter, counted": [PARAMS, (LOOP, "    start = core_id * chunk\n"
                                                   "    for j in pl.range(0, min(chunk, n_blocks - start)):\n"
                                                   "        i = start + j\n")],
}

#: each with what the refusal says
DEFECTS = {
    "a count one more": ("    start = core_id * chunk\n    for j in pl.range(0, min(chunk + 1, n_blocks - start)):\n"
                         "        i = start + j\n", "reaches past its block's own chunk"),
    "a count by another parameter": ("    start = core_id * chunk\n"
                                     "    for j in pl.range(0, min(c2, n_blocks - start)):\n        i = start + j\n",
                                     "reaches past its block's own chunk"),
    "every other tile": ("    start = core_id * chunk\n    for j in pl.range(0, min(chunk, n_blocks - start)):\n"
                         "        i = start + 2 * j\n", "reaches past its block's own chunk"),
    "an end one past": ("    start = core_id * chunk\n"
                        "    for i in pl.range(start, min(start + chunk + 1, n_blocks)):\n",
                        "reaches past its block's own chunk"),
    "an end by another parameter": ("    start = core_id * chunk\n"
                                    "    for i in pl.range(start, min(start + c2, n_blocks)):\n",
                                    "reaches past its block's own chunk"),
    "no clamp": ("    start = core_id * chunk\n    for j in pl.range(0, n_blocks - start):\n        i = start + j\n",
                 "reaches past its block's own chunk"),
    "a start a tile short": ("    start = core_id * (chunk - 1)\n"
                             "    for j in pl.range(0, min(chunk, n_blocks - start)):\n        i = start + j\n",
                             "is neither static nor a run-time value the check can name"),
}


def _findings(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.severity != "note"]


def _verdicts(text: str, tiles: int, blocks: int, chunk: int, c2: int = 0) -> list[str]:
    return _run(text, tiles, blocks, {"chunk": chunk, **({"c2": c2} if PARAMS[1] in text else {})})


def _run(text: str, tiles: int, blocks: int, scalars: dict) -> list[str]:
    """The verdicts of the serial and the pipelined kernel on `tiles` row blocks and `blocks` blocks."""
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    rows = (32 * tiles, 32)
    return [row.verdict for row in verify(text, code, "tiled_scale_kernel", shapes={"a": rows, "out": rows},
                                          scalars={"scale": 0.5, "ApplyRelu": 1, **scalars}, block_dim=blocks).rows]


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_chunks_of_a_parameter_are_proven_and_run_as_the_serial_kernel(name):
    text = edited(TILED, ACCEPTED[name])
    assert _findings(text) == []
    # chunks that cover the tiles, a short last one, chunks too small (tiles left to no block,
    # in both kernels alike) and too large (blocks with none)
    for tiles, blocks, chunk in ((7, 2, 4), (7, 3, 3), (5, 4, 2), (6, 2, 5), (4, 3, 1)):
        assert _verdicts(text, tiles, blocks, chunk) == ["ok", "ok"], (tiles, blocks, chunk)


@pytest.mark.parametrize("name", list(DEFECTS))
def test_chunks_of_a_parameter_that_meet_are_refused(name):
    form, words = DEFECTS[name]
    ((code, message),) = _findings(edited(TILED, [PARAMS, (LOOP, form)]))
    assert code == "PTO061" and words in message, message


@pytest.mark.parametrize("name, chunk, c2", [("a count one more", 3, 0), ("a count by another parameter", 3, 4),
                                             ("an end by another parameter", 3, 4), ("no clamp", 3, 0)])
def test_the_emulator_shows_the_defects_race_between_blocks(name, chunk, c2):
    text = edited(TILED, [PARAMS, (LOOP, DEFECTS[name][0])])
    assert _verdicts(text, 7, 1, chunk, c2) == ["ok", "ok"]
    assert _verdicts(text, 7, 3, chunk, c2)[-1] == "race"


_MOVED = ("    chunk = (n_blocks - s + num_cores - 1) // num_cores\n    start = core_id * chunk\n"
          "    for j in pl.range(0, min(chunk, n_blocks - s - start)):\n        i = s + start + j{}\n")
_SHIFT = ("    tiling: ScaleTiling,\n", "    tiling: ScaleTiling,\n    s: pl.DT_INT32,\n")


def test_chunks_moved_by_a_parameter_are_proven_and_run_as_the_serial_kernel():
    # every block's chunk moved by `s` alike (a group's first row given by the host): refused
    # before in the discovery run, where `s` is a trip-count root whose value the rule did not know
    text = edited(TILED, [_SHIFT, (LOOP, _MOVED.format(""))])
    assert _findings(text) == []
    code = transpile(text, path="k.py").code
    for tiles, blocks, s in ((7, 2, 0), (7, 2, 1), (8, 3, 2), (6, 4, 1)):
        rows = (32 * tiles, 32)
        assert [row.verdict for row in verify(text, code, "tiled_scale_kernel", shapes={"a": rows, "out": rows},
                                              scalars={"scale": 0.5, "ApplyRelu": 1, "s": s},
                                              block_dim=blocks).rows] == ["ok", "ok"], (tiles, blocks, s)


def test_chunks_moved_by_a_parameter_one_task_on_are_refused():
    ((code, message),) = _findings(edited(TILED, [_SHIFT, (LOOP, _MOVED.format(" + 1"))]))
    assert code == "PTO061" and "reaches past its block's own chunk" in message, message


#: a probe's kernels: a chunk start rebound under a test (of itself, or of the block) to the
#: number it is at block 0, each accepted (the first two before parameter chunks too) and racing
#: between blocks: the branch's `start = 0` was taken for the value it replaced, equal at block 0
REBOUND = {
    "under a test of the start": "    if start > 0:\n        start = 0\n",
    "under start != 0": "    if start != 0:\n        start = 0\n",
    "under a test against the chunk": "    if start >= chunk:\n        start = 0\n",
    "under a test of one block": "    if core_id == 1:\n        start = 0\n",
    "under a test of the last block": "    if core_id == num_cores - 1:\n        start = 0\n",
}


@pytest.mark.parametrize("name", list(REBOUND))
def test_a_chunk_start_rebound_under_a_test_is_refused(name):
    text = edited(TILED, [PARAMS, (LOOP, "    start = core_id * chunk\n" + REBOUND[name]
                                   + "    for j in pl.range(0, min(chunk, n_blocks - start)):\n"
                                     "        i = start + j\n")])
    ((code, message),) = _findings(text)
    # the start after the `if` is the choice between its two values (`_choose_assignments`), no
    # chunk start: a place of the block's writes the run cannot follow
    assert code == "PTO061" and "`out` is written at a place the check cannot follow" in message, message


def test_a_trip_count_of_a_name_rebound_in_a_branch_with_a_call_names_the_test():
    # a branch that calls something is run as one that may or may not run: the name is unknown after it
    text = edited(TILED, [PARAMS, ("def epilogue(", "def origin():\n    return 0\n\n\ndef epilogue("),
                          (LOOP, "    start = core_id * chunk\n    if core_id == 1:\n"
                                 "        start = origin()\n"
                                 "    for j in pl.range(0, min(chunk, n_blocks - start)):\n"
                                 "        i = start + j\n")])
    ((code, message),) = _findings(text)
    assert code == "PTO061" and "depends on `start`, which a branch of `if core_id == 1:` rebinds" in message, \
        message



def test_the_emulator_shows_a_rebound_chunk_start_races():
    text = edited(TILED, [PARAMS, (LOOP, "    start = core_id * chunk\n" + REBOUND["under a test of one block"]
                                   + "    for j in pl.range(0, min(chunk, n_blocks - start)):\n"
                                     "        i = start + j\n")])
    assert _verdicts(text, 5, 2, 2)[0] == "race"


def test_the_rebound_start_of_a_chunk_of_shapes_is_refused_too():
    text = edited(TILED, [(LOOP, "    ch = (n_blocks + num_cores - 1) // num_cores\n    start = core_id * ch\n"
                                 "    if start > 0:\n        start = 0\n"
                                 "    for j in pl.range(0, min(ch, n_blocks - start)):\n        i = start + j\n")])
    ((code, _),) = _findings(text)
    assert code == "PTO061"


def test_chunks_to_the_next_blocks_start_by_a_parameter_are_proven():
    # a probe's false refusal: `(core_id + 1) * chunk` with a parameter chunk was no run-time value
    text = edited(TILED, [FIELD, (LOOP, "    for i in pl.range(core_id * tiling.chunk, "
                                        "min((core_id + 1) * tiling.chunk, n_blocks)):\n")])
    assert _findings(text) == []
    for tiles, blocks, chunk in ((7, 2, 4), (7, 3, 3), (5, 4, 2)):
        assert _verdicts(text, tiles, blocks, chunk) == ["ok", "ok"], (tiles, blocks, chunk)
    beyond = text.replace("min((core_id + 1) * tiling.chunk", "min((core_id + 2) * tiling.chunk")
    ((code, _),) = _findings(beyond)
    assert code == "PTO061"


def test_a_per_core_range_stepping_by_a_core_count_of_the_tiling_names_it():
    # `num_cores = tiling.core_num`: the message said "give each block every `num_cores`-th
    # iteration", which the kernel does; the step is no block count, and blocks past it run the
    # tiles of others
    text = edited(TILED, [("    scale: float\n", "    scale: float\n    core_num: int\n"),
                          ("    num_cores = pl.get_block_num()\n", "    num_cores = tiling.core_num\n")])
    ((code, message),) = _findings(text)
    assert code == "PTO061" and "starts at the block index but does not step by the block count" in message, message


#: chunks whose size is computed from a scalar task count as from a shape (`chunk = (n +
#: num_cores - 1) // num_cores`): refused before with a help naming this very form (the count
#: met the block count as a number of this run, not the run-time value it is)
_COUNT = ("    tiling: ScaleTiling,\n", "    tiling: ScaleTiling,\n    n: pl.DT_INT32,\n")
_CHUNK_OF_N = "    chunk = (n + num_cores - 1) // num_cores\n    start = core_id * chunk\n"
OF_A_COUNT = {
    "start to end": _CHUNK_OF_N + "    for i in pl.range(start, min(start + chunk, n)):\n",
    "counted": _CHUNK_OF_N + "    for j in pl.range(0, min(chunk, n - start)):\n        i = start + j\n",
}
OF_A_COUNT_DEFECTS = {
    "an end one past": (_CHUNK_OF_N + "    for i in pl.range(start, min(start + chunk + 1, n)):\n",
                        "reaches past its block's own chunk"),
    "a count one more": (_CHUNK_OF_N + "    for j in pl.range(0, min(chunk + 1, n - start)):\n        i = start + j\n",
                         "reaches past its block's own chunk"),
    "a size by the block index": ("    chunk = (n + core_id) // num_cores\n    start = core_id * chunk\n"
                                  "    for i in pl.range(start, min(start + chunk, n)):\n",
                                  "starts or steps by a block value other than as a per-core range does"),
}


def _count_verdicts(text: str, tiles: int, blocks: int, n: int) -> list[str]:
    return _run(text, tiles, blocks, {"n": n})


@pytest.mark.parametrize("name", list(OF_A_COUNT))
def test_chunks_of_a_scalar_count_are_proven_and_run_as_the_serial_kernel(name):
    text = edited(TILED, [_COUNT, (LOOP, OF_A_COUNT[name])])
    assert _findings(text) == []
    # no task, fewer tasks than blocks, a short last chunk, every tile
    for tiles, blocks, n in ((5, 2, 0), (5, 3, 2), (7, 3, 7), (6, 2, 5)):
        assert _count_verdicts(text, tiles, blocks, n) == ["ok", "ok"], (tiles, blocks, n)


@pytest.mark.parametrize("name", list(OF_A_COUNT_DEFECTS))
def test_chunks_of_a_scalar_count_that_meet_are_refused(name):
    form, words = OF_A_COUNT_DEFECTS[name]
    ((code, message),) = _findings(edited(TILED, [_COUNT, (LOOP, form)]))
    assert code == "PTO061" and words in message, message


def test_the_emulator_shows_chunks_of_a_count_one_past_race_between_blocks():
    text = edited(TILED, [_COUNT, (LOOP, OF_A_COUNT_DEFECTS["an end one past"][0])])
    assert _count_verdicts(text, 7, 1, 7) == ["ok", "ok"]
    assert _count_verdicts(text, 7, 3, 7)[-1] == "race"
