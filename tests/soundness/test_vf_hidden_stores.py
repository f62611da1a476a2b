"""A probe found 6 kernels accepted although the pipelined kernel computes other numbers (5)
or races (1) on the emulator, each through a vector-function store the access scan's roles
did not see:

- the store is reached through a name the role reader does not follow (an annotated alias
  `dst: pl.Tile = u`, a tuple target `dst, k = u, 0`, a pointer a vector function returns, a
  keyword-only parameter of a nested one, `Vf` imported as `V`), and the check counted the
  evaluator's superset of its bytes (an `M3` mask, every third lane) as overwriting all of
  them: bytes an earlier stage left in a shared local tile looked dead. A store the roles miss
  is now a store like any other, and one known only as a superset overwrites nothing;
- `Vf` imported and then bound again (`Vf = _RowStore`) was still read as `pl.Vf`: a name
  imported from `pypto_pro.language` that the file binds again is refused, naming it.

The kernels are examples/seed_demo.py whose stage2 fills a one-row local tile that stage4
patches with `patch_vf` and stores to a second output.
"""

from __future__ import annotations

import pytest

from helpers import demo_text, edited
from pto_transpile import codes, transpile
from sim_runtime import verify

_PATCH = '''@pl.vector_function
def copy_row_vf(src, dst):
    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    r = vf.load_align(src)
    vf.store_align(dst, r, p32)


@pl.vector_function
def patch_vf(t, u):
    p8 = vf.update_mask(8, dtype=pl.DT_FP32)
    m3 = vf.create_mask(pattern=pl.MaskPattern.M3, dtype=pl.DT_FP32)
    x = vf.full(7.0)
    vf.store_align(t, x, p8)
    vf.store_align(u, x, m3)


@pl.pipeline.stage
def stage1('''
_STORE_U = "    vf.store_align(u, x, m3)\n"


def _patched(*edits) -> str:
    return edited(demo_text(), [
        ("import pypto\n", "import pypto\nfrom pypto_pro.language import Vf as vf\n"),
        ("@pl.pipeline.stage\ndef stage1(", _PATCH),
        ("def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):",
         "def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db, scr_g):"),
        ("    pl.relu(relu_vec, mm1_vec)\n", "    pl.relu(relu_vec, mm1_vec)\n    scr = scr_g.current()\n"
                                            "    copy_row_vf(relu_vec, scr)\n"),
        ("def stage4(ki, sub_id, out, out_vec_db):", "def stage4(ki, sub_id, out, out_vec_db, scr_g, extra):"),
        ("    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n",
         "    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n    scr = scr_g.current()\n"
         "    patch_vf(scr, scr)\n    pl.store(extra, scr, [ki * 2 + sub_id, 0])\n"),
        ("    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n):",
         "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n"
         "    extra: pl.Tensor[[N_ITER * 2, TILE], pl.DT_FP32],\n):"),
        ("            addrs=0x18000,\n            mutex_ids=[20, 21],\n        )\n",
         "            addrs=0x18000,\n            mutex_ids=[20, 21],\n        )\n        scr_g = pl.make_tile_group(\n"
         "            type=pl.TileType(shape=[1, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "            addrs=0x20000,\n            mutex_ids=[22],\n        )\n"),
        ("relu_nz_db, p_mat_db)\n", "relu_nz_db, p_mat_db, scr_g)\n"),
        ("stage4(ki, sub_id, out, out_vec_db)\n", "stage4(ki, sub_id, out, out_vec_db, scr_g, extra)\n"),
        *edits,
    ])


HIDDEN = {
    "an annotated alias": [(_STORE_U, "    dst: pl.Tile = u\n    vf.store_align(dst, x, m3)\n")],
    "a tuple target": [(_STORE_U, "    dst, k = u, 0\n    vf.store_align(dst, x, m3)\n")],
    "a returned pointer": [(_STORE_U, "    dst = ident_vf(u)\n    vf.store_align(dst, x, m3)\n"),
                           ("@pl.vector_function\ndef patch_vf(",
                            "@pl.vector_function\ndef ident_vf(p):\n    return p\n\n\n"
                            "@pl.vector_function\ndef patch_vf(")],
    "a keyword-only parameter": [(_STORE_U, "    m3_store_vf(x, dst=u)\n"),
                                 ("@pl.vector_function\ndef patch_vf(",
                                  "@pl.vector_function\ndef m3_store_vf(x, *, dst):\n"
                                  "    m3 = vf.create_mask(pattern=pl.MaskPattern.M3, dtype=pl.DT_FP32)\n"
                                  "    vf.store_align(dst, x, m3)\n\n\n@pl.vector_function\ndef patch_vf(")],
    "Vf imported as V": [(_STORE_U, "    V.store_align(u, x, m3)\n"),
                         ("import pypto\n", "import pypto\nfrom pypto_pro.language import Vf as V\n")],
}


def _errors(text: str, preload: int = 1) -> list[str]:
    return [d.code for d in transpile(text, preload=preload).diagnostics if d.is_error]


@pytest.mark.parametrize("name", list(HIDDEN))
def test_a_store_the_roles_do_not_see_is_judged_by_its_bytes(name):
    assert _errors(_patched(*HIDDEN[name])) == [codes.PIPELINE_NOT_PROVEN]


def test_the_emulator_shows_the_stale_bytes_the_hidden_store_leaves():
    text = _patched(*HIDDEN["an annotated alias"])
    code = transpile(text, preload=1, _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    assert [row.verdict for row in verify(text, code, "pipeline_demo_kernel", path="k.py").rows] == ["ok", "mismatch"]


def test_the_store_written_plainly_is_refused_the_same_way():
    assert _errors(_patched()) == [codes.PIPELINE_NOT_PROVEN]


_ROW_STORE = '''class _RowStore:
    """Vf with a row-relative store: the offset counts from the next row."""

    @staticmethod
    def store_align(ptr, src, mask, offset):
        pl.Vf.store_align(ptr, src, mask, offset + TILE)

    create_mask = staticmethod(pl.Vf.create_mask)
    full = staticmethod(pl.Vf.full)


Vf = _RowStore


@pl.vector_function
def mark_last_row_vf(t):
    p32 = Vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    x = Vf.full(1.0)
    Vf.store_align(t, x, p32, (TILE_HALF - 1) * TILE)


@pl.pipeline.stage
def stage1('''


@pytest.mark.parametrize("preload", [1, 2])
def test_vf_bound_again_after_its_import_is_not_pl_vf(preload):
    text = edited(demo_text(), [
        ("import pypto\n", "import pypto\nfrom pypto_pro.language import Vf\n"),
        ("@pl.pipeline.stage\ndef stage1(", _ROW_STORE),
        ("    out_vec = out_vec_db.next()\n    pl.store(",
         "    out_vec = out_vec_db.next()\n    pl.relu(out_vec, out_vec)\n"
         "    mark_last_row_vf(out_vec)\n    pl.store("),
    ])
    errors = [d for d in transpile(text, preload=preload).diagnostics if d.is_error]
    assert [d.code for d in errors] == [codes.PIPELINE_NOT_PROVEN]
    assert "`Vf`, imported from `pypto_pro.language`, is bound again" in errors[0].message


# -- a second probe: 4 more causes, 11 kernels accepted and wrong on the emulator ----------
# - a mask register stored with the two-operand `vf.store_align(t, flags)` (a compare's result,
#   or a mask made by name) was a full data store: it writes the mask's 32 bytes. A store of a
#   register that may be a mask (`vfextent._data_names`) writes a superset now;
# - lanes of another width than the tile's (an fp16 mask, `dist=NORM_B16`, on an fp32 tile) were
#   rounded to whole fp32 lanes, exactly: they are the whole register, a superset;
# - `Vf` bound again by anything but an import (a loop, a `try`, a function's `global`, a call's
#   result) was still `pl.Vf`: refused like any rebinding of a `pl` name;
# - the file changing the `pl` module itself (`pl.Vf = ...`, `setattr(pl, ...)`) was not seen.

_STORES = "    vf.store_align(t, x, p8)\n    vf.store_align(u, x, m3)\n"
MASKS = {
    "a compare's result": "    flags = vf.gt(x, 0.5, p8)\n    vf.store_align(t, flags)\n",
    "a mask made by name": "    flags = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n"
                           "    vf.store_align(t, flags)\n",
    "an fp16 mask with dist=NORM_B16": "    m = vf.update_mask(127, dtype=pl.DT_FP16)\n"
                                       "    vf.store_align(t, x, m, dist=pl.StoreDist.NORM_B16)\n",
    "an fp16 register under an fp16 mask": "    m = vf.update_mask(127, dtype=pl.DT_FP16)\n"
                                           "    h = vf.full(1.0, dtype=pl.DT_FP16)\n    vf.store_align(t, h, m)\n",
}


@pytest.mark.parametrize("name", list(MASKS))
def test_a_store_of_fewer_bytes_than_the_lanes_it_names_overwrites_nothing(name):
    assert _errors(_patched((_STORES, MASKS[name]))) == [codes.PIPELINE_NOT_PROVEN]


def test_the_emulator_shows_the_stale_bytes_a_mask_store_leaves():
    text = _patched((_STORES, MASKS["a compare's result"]))
    code = transpile(text, preload=1, _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    assert [row.verdict for row in verify(text, code, "pipeline_demo_kernel", path="k.py").rows] == ["ok", "mismatch"]


REBOUND = {
    "in a loop": "for Vf in (_RowStore,):\n    pass\n",
    "in a try": "try:\n    Vf = _RowStore\nexcept ImportError:\n    pass\n",
    "by a function's global": "def _bind():\n    global Vf\n    Vf = _RowStore\n\n\n_bind()\n",
    "to a call's result": "Vf = type('RowStore', (_RowStore,), {})\n",
}


@pytest.mark.parametrize("name", list(REBOUND))
def test_vf_bound_again_in_any_way_is_not_pl_vf(name):
    text = edited(demo_text(), [
        ("import pypto\n", "import pypto\nfrom pypto_pro.language import Vf\n"),
        ("@pl.pipeline.stage\ndef stage1(", _ROW_STORE.replace("Vf = _RowStore\n", REBOUND[name])),
        ("    out_vec = out_vec_db.next()\n    pl.store(",
         "    out_vec = out_vec_db.next()\n    pl.relu(out_vec, out_vec)\n"
         "    mark_last_row_vf(out_vec)\n    pl.store("),
    ])
    errors = [d for d in transpile(text, preload=1).diagnostics if d.is_error]
    assert [d.code for d in errors] == [codes.PIPELINE_NOT_PROVEN]
    assert "`Vf`, imported from `pypto_pro.language`, is bound again" in errors[0].message


@pytest.mark.parametrize("change", ["pl.Vf = _RowStore\n", "pl.Vf.store_align = _RowStore.store_align\n",
                                    "setattr(pl, 'Vf', _RowStore)\n", "del pl.Vf\n"])
def test_a_file_changing_the_pl_module_is_refused_naming_the_line(change):
    text = edited(demo_text(), [("@pl.pipeline.stage\ndef stage1(",
                                 _ROW_STORE.replace("Vf = _RowStore\n", change))])
    errors = [d for d in transpile(text, preload=1).diagnostics if d.is_error]
    assert [d.code for d in errors] == [codes.PIPELINE_NOT_PROVEN]
    assert "changes the `pl` module" in errors[0].message


# a third probe: the module reached through another name, a call, a container or a parameter
ESCAPES = {
    "an alias object": "_V = pl.Vf\n_V.store_align = _RowStore.store_align\n",
    "getattr": "getattr(pl, 'Vf').store_align = _RowStore.store_align\n",
    "a list": "[pl.Vf][0].store_align = _RowStore.store_align\n",
    "vars": "vars(pl.Vf)['store_align'] = _RowStore.store_align\n",
    "setattr under another name": "_set = setattr\n_set(pl.Vf, 'store_align', _RowStore.store_align)\n",
    "object.__setattr__": "object.__setattr__(pl.Vf, 'store_align', _RowStore.store_align)\n",
    "a loop target": "for pl.Vf.store_align in [_RowStore.store_align]:\n    pass\n",
    "a comprehension target": "_ = [0 for pl.Vf.store_align in [_RowStore.store_align]]\n",
    ":=": "if (_w := pl.Vf):\n    _w.store_align = _RowStore.store_align\n",
    "a function's parameter": "def _patch(m):\n    m.Vf.store_align = _RowStore.store_align\n\n\n_patch(pl)\n",
    "a lambda": "(lambda m: setattr(m.Vf, 'store_align', _RowStore.store_align))(pl)\n",
    # a fourth probe: a dunder past the first name, and the package's own path to the module
    "a dunder method": "pl.Vf.__setattr__('store_align', _RowStore.store_align)\n",
    "the package path": "import pypto_pro.language\n\n_V = pypto_pro.language.Vf\n"
                        "_V.store_align = _RowStore.store_align\n",
    # a fifth: the text search read past the end of a line, and a target split over two
    "a name in a function": "def _install():\n    v = pl.Vf\n    (v).store_align = _RowStore.store_align\n\n\n"
                            "_install()\n",
    "a target split over lines": "[None for (pl.Vf\n           .store_align) in [_RowStore.store_align]]\n",
}


@pytest.mark.parametrize("name", list(ESCAPES))
def test_the_pl_module_handed_on_is_refused_naming_the_line(name):
    text = edited(demo_text(), [("@pl.pipeline.stage\ndef stage1(",
                                 _ROW_STORE.replace("Vf = _RowStore\n", ESCAPES[name]))])
    errors = [d for d in transpile(text, preload=1).diagnostics if d.is_error]
    assert [d.code for d in errors] == [codes.PIPELINE_NOT_PROVEN]
    assert "the check reads every `pl` op as PyPTO's" in errors[0].message


def test_the_module_dict_changed_is_refused_too():
    text = edited(demo_text(), [("@pl.pipeline.stage\ndef stage1(", _ROW_STORE.replace(
        "Vf = _RowStore\n", "pl.__dict__['Vf'].store_align = _RowStore.store_align\n"))])
    assert not transpile(text, preload=1).ok


@pytest.mark.parametrize("change, ok", [("", True), ("MS.Vec = MS.Mat\n", False), ("print(MS)\n", False)])
def test_a_module_alias_of_a_pl_namespace_is_followed_like_pl(change, ok):
    # `MS = pl.MemorySpace` is no escape: `MS` is searched like `pl` (ok/ok on the emulator)
    text = edited(demo_text(), [
        ("@pl.pipeline.stage\ndef stage1(", f"MS = pl.MemorySpace\n{change}\n\n@pl.pipeline.stage\ndef stage1("),
        ("type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "        addrs=0x0000,", "type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=MS.Vec),\n"
                                 "        addrs=0x0000,")])
    assert transpile(text, preload=1).ok is ok


def test_reading_pl_where_python_only_looks_names_up_in_it_is_fine():
    text = edited(demo_text(), [("@pl.pipeline.stage\ndef stage1(",
                                 "def _typed(t: pl.Tile | None = None) -> tuple[pl.Tile, bool]:\n"
                                 "    return t, isinstance(t, pl.Tile)\n\n\n"
                                 "FP32 = pl.DT_FP32\nALL = pl.MaskPattern.ALL\n\n\n@pl.pipeline.stage\ndef stage1(")])
    assert transpile(text, preload=1).ok
