"""An SSBUF access reaches the struct's 32-bit words from its byte offset on, where the offset
is the same at every run (a number, the subblock index): each AIV keeping its own word
(`pl.ssbuf_store(info, sub_id * 4)`) was refused as a race between the AIVs, the whole buffer
taken for every access (probe h110). Words that meet are still a race."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assert_proven_and_run, edited, edited_kernel, refusal_of
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
WORDS = KERNELS / "h110_ssbuf_per_aiv_words_in_one_stage.py"
ROWS = {"a": (160, 32), "out": (160, 32)}


@pytest.mark.parametrize("rows", [160, 64])
def test_a_word_per_aiv_is_proven_and_runs(rows):
    assert_proven_and_run(WORDS, "kern", shapes={"a": (rows, 32), "out": (rows, 32)})


@pytest.mark.parametrize("old, new", [
    ("    pl.ssbuf_store(info, sub_id * 4)", "    pl.ssbuf_store(info, 0)"),
    ("    info = pl.struct(gain=0.0)", "    info = pl.struct(gain=0.0, pad=0)"),
])
def test_words_the_aivs_share_are_a_race(tmp_path, old, new):
    """The same word for both AIVs, or two words from `sub_id * 4` (AIV0's second is AIV1's first)."""
    path = edited_kernel(tmp_path, WORDS, old, new)
    refusal = refusal_of(path)
    assert "`pl.ssbuf_store` on S of AIV" in refusal and "SSBUF[" in refusal, refusal
    text = path.read_text()
    assert verify(text, text, "kern", shapes=ROWS).rows[0].verdict == "race"  # (the emulator agrees)


def test_words_a_block_value_places_are_the_whole_buffer(tmp_path):
    """`sub_id * (1 - core) * 4`: the AIVs' words apart at block 0, the same word at block 1. The run
    follows block 0, so a block value (or a parameter, followed at a few samples) leaves the offset
    unplaced; the emulator shows the race from two blocks."""
    core = "    core = pl.get_block_idx() // pl.get_subblock_num()\n"
    path = edited_kernel(tmp_path, WORDS, "    pl.ssbuf_store(info, sub_id * 4)\n",
                         core + "    pl.ssbuf_store(info, sub_id * (1 - core) * 4)\n")
    text = edited(path.read_text(), [("pl.ssbuf_load(hdr, sub_id * 4)", "pl.ssbuf_load(hdr, sub_id * (1 - core) * 4)")])
    path.write_text(text)
    refusal = refusal_of(path)
    assert "`pl.ssbuf_store` on S of AIV1 writes `SSBUF` while" in refusal, refusal
    assert verify(text, text, "kern", shapes=ROWS, block_dim=2).rows[0].verdict == "race"


@pytest.mark.parametrize("rows", [160, 96])
def test_words_a_residue_of_the_loop_variable_places_are_proven_and_run(tmp_path, rows):
    offset = "(i % 2) * 8 + sub_id * 4"
    path = edited_kernel(tmp_path, WORDS, "    pl.ssbuf_store(info, sub_id * 4)", f"    pl.ssbuf_store(info, {offset})")
    path.write_text(edited(path.read_text(), [("pl.ssbuf_load(hdr, sub_id * 4)", f"pl.ssbuf_load(hdr, {offset})")]))
    assert_proven_and_run(path, "kern", shapes={"a": (rows, 32), "out": (rows, 32)})
