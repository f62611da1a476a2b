"""A floor split of the tiles over the blocks, `start = core_id * n // num_cores` and `end =
(core_id + 1) * n // num_cores` (block `b` takes `[b * n // B, (b + 1) * n // B)`, one range
after the other), is proven for every count and block count, as the strided range and the
balanced split already were. It was refused: "`pl.range(start, end)` starts or steps by a block
value other than as a per-core range does". A split whose ranges overlap is still refused, and
the emulator shows the race."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, spread
from pto_transpile import codes, transpile
from sim_runtime import verify

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
START = "    start = core_id * n_blocks // num_cores\n"
END = "    end = (core_id + 1) * n_blocks // num_cores\n"
SPLIT = edited(TILED, [(LOOP, START + END + "    for i in pl.range(start, end):\n")])
#: every block its first `n // num_cores` tiles only (the rest left out): no block takes fewer
SHORT = edited(SPLIT, [(END, "    end = start + n_blocks // num_cores\n")])
FROM_ZERO = edited(TILED, [(LOOP, START + END + "    for j in pl.range(0, end - start):\n        i = start + j\n")])
SIZES = ((1, 160), (2, 96), (3, 224), (3, 64), (4, 160))


def _errors(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.severity != "note"]


def _verdicts(text: str) -> set[tuple[str, ...]]:
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    return {tuple(row.verdict for row in verify(text, code, "tiled_scale_kernel", shapes={"a": (rows, 32),
                                                "out": (rows, 32)}, scalars={"scale": 0.5, "ApplyRelu": 1},
                                                block_dim=blocks).rows) for blocks, rows in SIZES}


#: the block count spelled three ways: it is one value however it is written (probe h71 found these
#: refused as "two blocks meet there")
SPELLINGS = [edited(SPLIT, [(END, "    end = (core_id + 1) * n_blocks // pl.get_block_num()\n")]),
             edited(SPLIT, [(END, "    nc = num_cores\n    end = (core_id + 1) * n_blocks // nc\n")]),
             edited(SPLIT, [(END, "    end = (core_id + 1) * n_blocks // (num_cores)\n")])]


@pytest.mark.parametrize("text", spread([pytest.param(t, id=i) for t, i in zip(
    [SPLIT, FROM_ZERO, SHORT, *SPELLINGS],
    ["start-to-end", "from-zero", "floor-length", "get-block-num", "alias", "parenthesised"], strict=True)], 3))
def test_a_floor_split_is_proven_and_runs_as_the_serial_kernel(text):
    assert _errors(text) == []
    assert _verdicts(text) == {("ok", "ok")}


@pytest.mark.parametrize("edits", [
    [(END, "    end = (core_id + 2) * n_blocks // num_cores\n")],  # two blocks' ranges
    [(END, "    end = (core_id + 1) * n_blocks // num_cores + 1\n")],  # one tile into the next block's
    [(END, "    end = ((core_id + 1) * n_blocks + num_cores - 1) // num_cores\n")],  # rounded up
    [(END, "    end = start + (n_blocks + num_cores - 1) // num_cores\n")],  # a length rounded up
    # every block stores its tiles from row 0
    [("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])", "    pl.store(out, res, [(i - start) * BLOCK + "
                                                                "sub_id * HALF, 0])"),
     ("def finish(i, sub_id,", "def finish(i, start, sub_id,"), ("finish(i, sub_id,", "finish(i, start, sub_id,")],
], ids=["next-next", "plus-one", "ceiling", "ceiling-length", "from-row-0"])
def test_a_split_whose_ranges_overlap_is_refused_and_races(edits):
    text = edited(SPLIT, edits)
    ((code, message),) = _errors(text)
    assert code == codes.PIPELINE_NOT_PROVEN and "`out` is written" in message, message
    assert ("race",) in _verdicts(text)
