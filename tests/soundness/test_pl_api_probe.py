"""A probe of the `pl` layer of the check found 14 kernels accepted although the emulator shows
them wrong (`race`, or `ok/mismatch`), from seven causes, each refused now:
- a tile view (`y[0:8, :]`) was taken as its whole tile, so a store of it covered rows it does not
  write: a view's valid shape is not followed (`TileValid.exact`), its feet are a superset, and its
  `.shape` is unknown;
- a tile given by keyword was not seen (`pl.quant(..., offset=z)`): the op table's keyword roles
  are read, and a tile by any other keyword is refused;
- tiles, tile types, structs and `pl` constants were compared by value (PyPTO compares tiles by
  identity, `make_tuple` by fields): such a comparison is not decided;
- `pl.store_tile` / `pl.load_tile` take offsets in tiles, which the model read as elements:
  refused, naming the element-offset op;
- a GM element `(row, col)` past the row's end reaches the next row (the offset is linear): it
  is placed only within its row, else it is the whole tensor.
The kernels are kept as their parts in `kernels/pl_api_probe.json` (the probe's `kernel(body,
module, extra)` on branch_on_param.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_stage_containers import _errors, _verdicts, kernel

PARTS = {entry.pop("name"): entry for entry in json.loads((Path(__file__).parent / "kernels" / "pl_api_probe.json")
                                                            .read_text(encoding="utf-8"))}


def build(parts: dict) -> str:
    return kernel(parts["body"], parts["module"], [tuple(e) for e in parts["extra"]])


@pytest.mark.parametrize("name", list(PARTS))
def test_a_kernel_the_pl_layer_misread_is_refused(name):
    assert _errors(build(PARTS[name]))


@pytest.mark.parametrize("name", [n for n in PARTS if n.startswith(("H1 ", "H3 ", "H6 "))])
def test_the_emulator_shows_the_kernel_is_wrong(name):
    assert _verdicts(build(PARTS[name])) in (["ok", "mismatch"], ["race"])


def test_store_tile_is_refused_naming_the_element_offset_op():
    (_, message), *_ = _errors(build(PARTS["H5 store_tile offsets read as element offsets (race)"]))
    assert "`pl.store_tile` takes its offsets in tiles" in message and "`pl.store`" in message
