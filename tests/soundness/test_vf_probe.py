"""Three probes of the vector-function model found 29 kernels the check accepted although the
emulator shows the pipelined kernel racing: each vector function reaches UB bytes past its tiles
(into the group slot the cube is writing) in a way the evaluator of its body did not count.

- a tile view given to it (the model kept the tile from its first byte, the hardware starts at
  the view's);
- one tile given as two arguments, each streamed by `post_update` (the hardware keeps one
  cursor per address, the model one per argument);
- a mask register stored (`store_align(t, mask, offset)`: the third operand is the offset);
- a `pl.make_tile(..., size=)` larger than its shape (elements taken as size / count bytes);
- `update_mask(n, dtype)` with the dtype by position (read as fp32 lanes);
- a `return` under a test it did not decide, which ended the evaluation of what follows;
- a function of the file named `min` (computed as the builtin);
- a value carried out of a loop whose count is known only within bounds (taken at the
  largest count);
- a tile given by keyword to a parameter with a default (the default taken);
- memory ops inside a comprehension or conditional expression (not run);
- a keyword-only parameter's default (the module constant taken).

A second probe found 8 more: a loop summarised by its step whose inner loop carries a value
from one iteration to the next (its variable, or a name it assigns); a store inside an `assert`;
a name bound by `:=`; a mask of a dtype the evaluator cannot name (taken as fp32 lanes); a
mask pattern read off a class of the file by its last name; a run-time test whose two ways ran
one after the other (the last assignment won); a bounded loop's result taken as unchanged
because it was the same small integer.

A third found 10: a nonlinear offset computed into a name inside a summarised loop; a running
offset read after a summarised loop (the summary left it at its third iteration's value); a
pointer handed to a plain helper inside a tuple; a nested vector function named `len` (pruned as
the builtin); `:=` inside a conditional expression or past a short circuit; a nested vector
function's return value (taken as None); a store in an `if` test (pruned with the test); an op
called through `__call__`; a `return` in a loop of a count known within bounds. The body of a
vector function is now checked against the Python the evaluator follows before it runs
(`vfextent._Subset`): statements and expressions it computes, and calls only where they surely
run, each of a `vf` op, a vector function of the file or a builtin the file does not rebind.

Each is refused now. A vector function called with its tiles by keyword, `f(dst=res, src=x)`,
refused before ("leaves `dst` unbound"), is read as the positional call it is and runs as the
serial kernel.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime import verify

#: examples/tiled_scale.py with its epilogue a vector function, and `res_db` just below
#: `proj_vec_db` in UB: a vector function reaching past `res` reaches the slot the cube writes
BASE = edited((Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(), [
    ("import pypto\n", "import pypto\nfrom pypto_pro.language import Vf as vf\n"),
    ("HALF = BLOCK // 2  # dual mode splits along M: each AIV finishes one half\n",
     "HALF = BLOCK // 2  # dual mode splits along M: each AIV finishes one half\nLANES = 64\n"),
    ("\n\n@pl.pipeline.stage\ndef project(",
     "\n\n@pl.vector_function\ndef scale_vf(dst, src):\n"
     "    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n"
     "    for k in pl.range(0, HALF * BLOCK // LANES):\n"
     "        x = vf.load_align(src, k * LANES)\n"
     "        x = vf.muls(x, 0.5, p32)\n"
     "        vf.store_align(dst, x, p32, k * LANES)\n"
     "\n\n@pl.pipeline.stage\ndef project("),
    ("    epilogue(res, proj, scale)\n", "    scale_vf(res, proj)\n"),
    ("        addrs=0x0000,\n        mutex_ids=[8, 9],\n", "        addrs=0x1000,\n        mutex_ids=[8, 9],\n"),
    ("            addrs=0x8000,\n            mutex_ids=[10, 11],\n",
     "            addrs=0x0000,\n            mutex_ids=[10, 11],\n"),
])
_DEF = "def scale_vf(dst, src):\n"
_CALL = "    scale_vf(res, proj)\n"
_END = "        vf.store_align(dst, x, p32, k * LANES)\n"
_LOOP = "    for k in pl.range(0, HALF * BLOCK // LANES):\n"
#: the decorated function becomes this one; the base's body is left to a plain function nothing calls
_TWO_STREAMS = '''def scale_vf(lo, hi, src):
    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    for k in pl.range(0, HALF * BLOCK // LANES):
        x = vf.load_align(src, k * LANES)
        vf.store_align(lo, x, p32, LANES, post_update=True)
    for k in pl.range(0, HALF * BLOCK // LANES):
        x = vf.load_align(src, k * LANES)
        vf.store_align(hi, x, p32, LANES, post_update=True)


def unused_vf(dst, src):
'''
_SCRATCH = [(_DEF, "def scale_vf(dst, src, scratch):\n"),
            (_END, _END + "    vf.store_align(scratch, x, p32, -HALF * BLOCK)\n"),
            ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
             "def finish(i, sub_id, scale, out, proj_vec_db, res_db, scratch):"),
            (_CALL, "    scale_vf(res, proj, scratch)\n"),
            ("        addrs=0x1000,\n", "        addrs=0x3000,\n"),
            ("    sub_id = pl.get_subblock_idx()\n",
             "        scratch = pl.make_tile(\n"
             "            pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
             "            addr=0x4000, size=0x2000)\n    sub_id = pl.get_subblock_idx()\n"),
            ("proj_vec_db, res_db)\n", "proj_vec_db, res_db, scratch)\n")]
_KEEP = [(_DEF, "def scale_vf(dst, src, keep):\n"),
         (_END, _END + "    pad = HALF * BLOCK\n    for k in pl.range(0, keep):\n        pad = pad - LANES\n"
                       "    vf.store_align(dst, vf.full(0.0, p32), p32, pad)\n"),
         ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
          "def finish(i, sub_id, scale, out, proj_vec_db, res_db, keep):"),
         (_CALL, "    scale_vf(res, proj, min(keep, 8))\n"),
         ("    tiling: ScaleTiling,\n", "    tiling: ScaleTiling,\n    keep: int,\n"),
         ("proj_vec_db, res_db)\n", "proj_vec_db, res_db, keep)\n")]

#: name -> (edits of the base, what the refusal says, scalar arguments for the emulator)
HOLES = {
    "a tile view": ([(_CALL, "    scale_vf(res[8:16, :], proj)\n")], "a tile view", {}),
    "one tile as two streamed arguments": ([(_DEF, _TWO_STREAMS), (_CALL, "    scale_vf(res, res, proj)\n")],
                                           "writes `proj_vec_db[0]", {}),
    "a mask register stored": ([(_END, _END + "    keep = vf.create_mask(pattern=pl.MaskPattern.H, dtype=pl.DT_FP32)\n"
                                               "    vf.store_align(dst, keep, HALF * BLOCK)\n")],
                               "writes `proj_vec_db[0]", {}),
    "make_tile with a larger size": (_SCRATCH, "bytes -2048..-1792 from its start", {}),
    "update_mask with a positional dtype": ([(_END, _END + "    tail = vf.update_mask(16, pl.DT_INT64)\n"
                                                           "    vf.store_align(dst, x, tail, HALF * BLOCK - 16)\n")],
                                            "writes `proj_vec_db[0]", {}),
    # the two above, naming the arguments as PyPTO does: refused for the same bytes
    "update_mask by PyPTO's names": ([(_END, _END + "    tail = vf.update_mask(scalar=16, dtype=pl.DT_INT64)\n"
                                                    "    vf.store_align(dst, x, tail, HALF * BLOCK - 16)\n")],
                                     "writes `proj_vec_db[0]", {}),
    "a mask register stored by PyPTO's names": (
        [(_END, _END + "    keep = vf.create_mask(pattern=pl.MaskPattern.H, dtype=pl.DT_FP32)\n"
                       "    vf.store_align(tile=dst + HALF * BLOCK, src=keep)\n")],
        "writes `proj_vec_db[0]", {}),
    "a return under a test": ([(_LOOP, "    if HALF == 0 or BLOCK == 0:\n        return\n"
                                       "    for k in pl.range(0, HALF * BLOCK // LANES + 1):\n")],
                              "`proj_vec_db[0] (bytes 0..2304 from its start, past its 2048 bytes)`", {}),
    "a function of the file named min": ([(_LOOP, "    for k in pl.range(0, min(HALF * BLOCK // LANES, 9)):\n"),
                                          ("LANES = 64\n", "LANES = 64\n\n\ndef min(a, b):  # noqa: A001\n"
                                                           "    return a if a > b else b\n")],
                                         "a function of the file named `min`, like the builtin", {}),
    "a value carried out of a bounded loop": (_KEEP, "depends on `keep`", {"keep": 0}),
    "a tile by keyword after a default": ([(_DEF, "def scale_vf(dst, src, spill=0):\n"),
                                           (_END, _END + "    if spill:\n"
                                                         "        vf.store_align(spill, x, p32, HALF * BLOCK)\n"),
                                           (_CALL, "    scale_vf(res, proj, spill=res)\n")],
                                          "writes `proj_vec_db[0]", {}),
    "a store in a comprehension": ([(_END, _END + "    [vf.store_align(dst, x, p32, k * LANES) "
                                                  "for k in range(HALF * BLOCK // LANES + 1)]\n")],
                                   "a `ListComp` expression in vector function `scale_vf` is not modelled", {}),
    "a keyword-only default": ([(_DEF, "def scale_vf(dst, src, *, HALF=HALF + 2):\n")],
                               "`proj_vec_db[0] (bytes 0..2304 from its start, past its 2048 bytes)`", {}),
}


SHAPES = {"a": (192, 32), "out": (192, 32)}


#: a second probe's 8, each storing into the slot of `proj_vec_db` the cube writes next: the
#: statements appended to the base's vector function, and module code after `LANES = 64`
_SRC_STORE = "    vf.store_align(src, x, {mask}, {offset})\n"
SECOND = {
    "an inner loop's variable carried": ("    j = 0\n    for k in pl.range(0, 4):\n"
                                         "        vf.store_align(src, x, p32, j * LANES)\n"
                                         "        for j in pl.range(j * 2 + 2, j * 2 + 3):\n            pass\n", ""),
    "an assignment in an inner loop carried": ("    j = 0\n    for k in pl.range(0, 4):\n"
                                               "        vf.store_align(src, x, p32, j * LANES)\n"
                                               "        for t in pl.range(0, 1):\n            j = j * 2 + 2\n", ""),
    "a store in an assert": ("    assert vf.store_align(src, x, p32, 896) is None\n", ""),
    "a name bound by :=": ("    y = vf.muls(x, (OFF := 896) * 0 + 0.5, p32)\n"
                           + _SRC_STORE.format(mask="p32", offset="OFF"), "OFF = 0\n"),
    "a mask of a dtype not known": ("    mdt = pl.DT_INT64 if WIDE else pl.DT_FP32\n"
                                    "    tail = vf.create_mask(pl.MaskPattern.VL16, mdt)\n"
                                    + _SRC_STORE.format(mask="tail", offset="HALF * BLOCK - 16"), "WIDE = True\n"),
    "a mask pattern of the file's class": ("    tail = vf.create_mask(Pat.VL16, pl.DT_FP32)\n"
                                           + _SRC_STORE.format(mask="tail", offset="HALF * BLOCK - 16"),
                                           "\n\nclass Pat:\n    VL16 = pl.MaskPattern.ALL\n"),
}


_NESTED = "\n\n@pl.vector_function\ndef {name}(t):\n{body}"
#: a third probe's 10 (those already refused by the second's fixes and those refused as code outside
#: the subset the evaluator follows are among the causes listed here by what they do)
THIRD = {
    "a nonlinear offset through a name": ("    for k in pl.range(0, HALF * BLOCK // LANES):\n"
                                          "        off = k * LANES + k * (k - 1) * (k - 7) * -16\n"
                                          + _SRC_STORE.format(mask="p32", offset="off").replace("    ", "        ", 1),
                                          ""),
    "a running offset read after a summarised loop": ("    off = 0\n    for k in pl.range(0, HALF * BLOCK // LANES):\n"
                                                      "        x = vf.load_align(src, k * LANES)\n"
                                                      "        off = off + LANES\n"
                                                      + _SRC_STORE.format(mask="p32", offset="off"), ""),
    "a pointer in a tuple to a plain helper": ("    spill((src, x, p32))\n",
                                               "\n\ndef spill(parts):\n"
                                               "    vf.store_align(parts[0], parts[1], parts[2], 896)\n"),
    "a vector function named len": ("    len(src)\n", _NESTED.format(
        name="len", body="    p = vf.create_mask()\n    vf.store_align(t, vf.load_align(t), p, 896)\n")),
    "a := in a conditional expression": ("    c = (OFF := 896) if 1 else 0\n"
                                         + _SRC_STORE.format(mask="p32", offset="OFF"), "OFF = 0\n"),
    "a := past a short circuit": ("    c = 1 or (OFF := 0)\n" + _SRC_STORE.format(mask="p32", offset="OFF"),
                                  "OFF = 896\n"),
    "a nested vector function's return value": ("    off = tail_offset(src)\n"
                                                + _SRC_STORE.format(mask="p32", offset="off"),
                                                _NESTED.format(name="tail_offset",
                                                               body="    return HALF * BLOCK + 384\n")),
    "a store in an if test": ("    if vf.store_align(src, x, p32, 896) is None:\n        pass\n", ""),
    "an op called through __call__": ("    vf.store_align.__call__(src, x, p32, 896)\n", ""),
}


def _second(name: str) -> str:
    appended, module = {**SECOND, **THIRD}[name]
    return edited(BASE, [(_END, _END + appended), ("LANES = 64\n", "LANES = 64\n" + module)])


def _errors(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.is_error]


def _verdicts(text: str, scalars: dict) -> list[str]:
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    return [row.verdict for row in verify(text, code, "tiled_scale_kernel", path="k.py", shapes=SHAPES,
                                          scalars={"scale": 0.5, "ApplyRelu": 1, **scalars}).rows]


def test_the_base_is_accepted_and_runs_as_the_serial_kernel():
    assert _errors(BASE) == []
    assert _verdicts(BASE, {}) == ["ok", "ok"]


@pytest.mark.parametrize("name", list(HOLES))
def test_a_vector_function_reaching_bytes_the_model_missed_is_refused(name):
    edits, said, _ = HOLES[name]
    errors = _errors(edited(BASE, edits))
    assert errors and {c for c, _ in errors} == {codes.PIPELINE_NOT_PROVEN}, errors
    assert any(said in message for _, message in errors), errors


@pytest.mark.parametrize("name", ["a tile view", "one tile as two streamed arguments", "a mask register stored",
                                  "a value carried out of a bounded loop", "a tile by keyword after a default",
                                  "a mask register stored by PyPTO's names"])
def test_the_emulator_shows_the_race(name):
    edits, _, scalars = HOLES[name]
    verdicts = _verdicts(edited(BASE, edits), scalars)
    assert verdicts[0] == "ok" and verdicts[1].startswith("race"), verdicts


def test_vf_ops_given_pyptos_names_are_proven_and_the_kernel_runs_as_the_serial_one():
    """`tile=`, `src=`, `scalar=`, `scaler=`: the check bound only the emulator's old names (`ptr`,
    `reg`, `n`) and refused the rest; the emulator raised TypeError."""
    text = edited(BASE, [
        ("        x = vf.load_align(src, k * LANES)\n", "        x = vf.load_align(tile=src, offset=k * LANES)\n"),
        ("        x = vf.muls(x, 0.5, p32)\n", "        x = vf.muls(src0=x, scaler=0.5, preg=p32)\n"),
        (_END, _END + "    lead = vf.update_mask(scalar=HALF, dtype=pl.DT_FP32)\n"
                      "    vf.store_align(tile=dst, src=lead)\n"),
    ])
    assert _errors(text) == []
    assert _verdicts(text, {}) == ["ok", "ok"]


def test_tiles_given_by_keyword_are_read_by_their_places_and_the_kernel_runs_as_the_serial_one():
    text = edited(BASE, [(_CALL, "    scale_vf(dst=res, src=proj)\n")])
    assert _errors(text) == []
    assert _verdicts(text, {}) == ["ok", "ok"]


@pytest.mark.parametrize("name", list(SECOND))
def test_a_second_probes_vector_function_reaching_the_next_slot_is_refused(name):
    errors = _errors(_second(name))
    assert errors and {c for c, _ in errors} == {codes.PIPELINE_NOT_PROVEN}, errors


@pytest.mark.parametrize("name", ["an inner loop's variable carried", "a mask pattern of the file's class"])
def test_the_emulator_shows_the_second_probes_race(name):
    verdicts = _verdicts(_second(name), {})
    assert verdicts[0] == "ok" and verdicts[1].startswith("race"), verdicts


@pytest.mark.parametrize("test, keep", [("    if keep > 0:\n        spill = 0\n", 0),
                                        ("    for k in pl.range(0, keep):\n        spill = max(6 - k, 0) * 128\n", 1)])
def test_a_place_a_run_time_value_decides_is_what_either_way_leaves(test, keep):
    # the undecided test ran both ways one after the other (the last assignment won), and a
    # bounded loop's result equal to the value before it was taken as unchanged
    text = edited(BASE, [(_END, _END + "    spill = 896\n" + test + _SRC_STORE.format(mask="p32", offset="spill"))]
                  + _KEEP[:1] + _KEEP[2:])
    errors = _errors(text)
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN] and "depends on `keep`" in errors[0][1], errors
    verdicts = _verdicts(text, {"keep": keep})
    assert verdicts[0] == "ok" and verdicts[1].startswith("race"), verdicts


@pytest.mark.parametrize("name", list(THIRD))
def test_a_third_probes_vector_function_reaching_the_next_slot_is_refused(name):
    errors = _errors(_second(name))
    assert errors and {c for c, _ in errors} == {codes.PIPELINE_NOT_PROVEN}, errors


@pytest.mark.parametrize("name", ["a running offset read after a summarised loop", "a nested vector function's "
                                  "return value", "a store in an if test"])
def test_the_emulator_shows_the_third_probes_race(name):
    verdicts = _verdicts(_second(name), {})
    assert verdicts[0] == "ok" and verdicts[1].startswith("race"), verdicts


def test_a_return_in_a_loop_of_a_count_known_within_bounds_is_refused():
    text = edited(BASE, [(_END, _END + "    for j in pl.range(0, keep):\n        return\n"
                          + _SRC_STORE.format(mask="p32", offset="896"))] + _KEEP[:1] + _KEEP[2:])
    errors = _errors(text)
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN], errors
    verdicts = _verdicts(text, {"keep": 0})
    assert verdicts[0] == "ok" and verdicts[1].startswith("race"), verdicts


def test_a_store_whose_third_operand_is_neither_a_mask_nor_an_offset_known_is_refused():
    # a fourth probe's kernel: a mask the evaluator takes as a register, stored at an offset it
    # cannot compute, was read as a register store at byte 0; the emulator stores it at 896
    text = edited(BASE, [(_END, _END + "    m2 = vf.move(p32)\n    vf.store_align(src, m2, True + 895)\n")])
    errors = _errors(text)
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN], errors
    assert "third operand is neither a mask nor an offset" in errors[0][1]
    verdicts = _verdicts(text, {})
    assert verdicts[0] == "ok" and verdicts[1].startswith("race"), verdicts


def test_vf_bound_to_a_class_of_the_file_is_not_the_modules():
    # the file's `vf` moves every store 896 elements on: the evaluator read them as `Vf`'s
    text = edited(BASE, [("from pypto_pro.language import Vf as vf\n", "from pypto_pro.language import Vf as _Vf\n"),
                         ("LANES = 64\n", "LANES = 64\n\n\nclass vf:\n    create_mask = _Vf.create_mask\n"
                          "    load_align = _Vf.load_align\n    muls = _Vf.muls\n    store_align = staticmethod("
                          "lambda dst, x, m, off: _Vf.store_align(dst, x, m, off + 896))\n")])
    errors = _errors(text)
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN], errors
    assert "whose `vf` is not the `pl` module's `Vf`" in errors[0][1]
    verdicts = _verdicts(text, {})
    assert verdicts[0] == "ok" and verdicts[1].startswith("race"), verdicts


# -- a fourth probe: a name the vector function binds itself, called ---------------------------
# The evaluator took a call of `min`, `len`, `range` or a vector function's name for the builtin or
# the function of the file of that name, although the vector function bound the name itself (an
# assignment, a parameter, a default): `min = vf.store_align`, `range = wide_range`, a helper handed
# in by the stage. Each stored past its tile into the slot the cube writes; each is refused now.
#: a plain helper that stores a register 512 elements past the tile it is given
_EVIL_FN = ("        pl.relu(dst, dst)\n\n\n",
            "        pl.relu(dst, dst)\n\n\ndef evil_fn(parts):\n"
            "    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n"
            "    x = vf.load_align(parts[0])\n    vf.store_align(parts[0], x, p32, 512)\n\n\n")
#: a `range` that runs one iteration more than asked
_WIDE_RANGE = ("        pl.relu(dst, dst)\n\n\n",
               "        pl.relu(dst, dst)\n\n\ndef wide_range(a, b):\n    return list(pl.range(a, b + 1))\n\n\n")
FOURTH = {
    "a builtin's name bound to a helper": [
        _EVIL_FN,
        ("        vf.store_align(dst, x, p32, k * LANES)\n",
         "        vf.store_align(dst, x, p32, k * LANES)\n"
         "    len = evil_fn\n"
         "    len((src,))\n"),
    ],
    "a builtin's name bound to a vf op": [
        ("        vf.store_align(dst, x, p32, k * LANES)\n",
         "        vf.store_align(dst, x, p32, k * LANES)\n"
         "    p = max((src,))\n"
         "    min = vf.store_align\n"
         "    min(p, x, p32, 512)\n"),
    ],
    "a builtin's name as a parameter's default": [
        _EVIL_FN,
        ("def scale_vf(dst, src):\n",
         "def scale_vf(dst, src, min=evil_fn):\n"),
        ("        vf.store_align(dst, x, p32, k * LANES)\n",
         "        vf.store_align(dst, x, p32, k * LANES)\n"
         "    min((src,))\n"),
    ],
    "a builtin's name as a keyword-only default": [
        _EVIL_FN,
        ("def scale_vf(dst, src):\n",
         "def scale_vf(dst, src, *, abs=evil_fn):\n"),
        ("        vf.store_align(dst, x, p32, k * LANES)\n",
         "        vf.store_align(dst, x, p32, k * LANES)\n"
         "    abs((src, 0))\n"),
    ],
    "a function handed in by the stage": [
        ("def scale_vf(dst, src):\n",
         "def scale_vf(dst, src, min):\n"),
        ("        vf.store_align(dst, x, p32, k * LANES)\n",
         "        vf.store_align(dst, x, p32, k * LANES)\n"
         "    min((src,))\n"
         "\n"
         "\n"
         "def evil_fn(parts):\n"
         "    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n"
         "    x = vf.load_align(parts[0])\n"
         "    vf.store_align(parts[0], x, p32, 512)\n"),
        ("    scale_vf(res, proj)\n",
         "    scale_vf(res, proj, evil_fn)\n"),
    ],
    "a parameter named like a vector function": [
        ("def scale_vf(dst, src):\n",
         "def scale_vf(dst, src, tidy_vf):\n"),
        ("        vf.store_align(dst, x, p32, k * LANES)\n",
         "        vf.store_align(dst, x, p32, k * LANES)\n"
         "    tidy_vf((src,))\n"
         "\n"
         "\n"
         "@pl.vector_function\n"
         "def evil_vf(parts):\n"
         "    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n"
         "    x = vf.load_align(parts[0])\n"
         "    vf.store_align(parts[0], x, p32, 512)\n"
         "\n"
         "\n"
         "@pl.vector_function\n"
         "def tidy_vf(parts):\n"
         "    pass\n"),
        ("    scale_vf(res, proj)\n",
         "    scale_vf(res, proj, evil_vf)\n"),
    ],
    "range as a parameter's default": [
        _WIDE_RANGE,
        ("def scale_vf(dst, src):\n",
         "def scale_vf(dst, src, range=wide_range):\n"),
        ("    for k in pl.range(0, HALF * BLOCK // LANES):\n",
         "    for k in range(0, HALF * BLOCK // LANES):\n"),
    ],
    "range bound in the function": [
        _WIDE_RANGE,
        ("    for k in pl.range(0, HALF * BLOCK // LANES):\n",
         "    range = wide_range\n"
         "    for k in range(0, HALF * BLOCK // LANES):\n"),
    ],
}


@pytest.mark.parametrize("name", list(FOURTH))
def test_a_call_of_a_name_the_vector_function_binds_itself_is_refused(name):
    errors = _errors(edited(BASE, FOURTH[name]))
    assert errors and {c for c, _ in errors} == {codes.PIPELINE_NOT_PROVEN}, errors
    assert any("a name the function binds itself" in m for _, m in errors), errors


@pytest.mark.parametrize("name", ["a builtin's name bound to a vf op", "range bound in the function"])
def test_the_emulator_shows_the_fourth_probes_race(name):
    verdicts = _verdicts(edited(BASE, FOURTH[name]), {})
    assert verdicts[0] == "ok" and verdicts[1].startswith("race"), verdicts
