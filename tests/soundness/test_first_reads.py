"""What an iteration reads before it binds it is carried from the iteration before, and judged
(it must repeat: a counter, a residue, a flag); a read the walk of the loop body misses is a
carried value never judged. Probes h149 and h150 hid a doubling value that, from the twelfth
tile on, makes the cube load what the vector core stored one iteration before (serially after
the store, pipelined before it), in four ways:

- an assignment expression that may not run taken as binding its name where it stands: past the
  first link of a chained comparison (`a < b < (e := 0)` stops at its first false link), in an
  `assert` (its message runs only when the test fails, neither runs under `python -O`), as under
  `and`/`or`, a conditional expression, a comprehension or a lambda;
- a subscript in a tuple of assignment targets (`_, tmp[(f := e * 2) * 0] = 0, 0`), whose index
  is read (probe h150);
- a struct field read by a function called other than by its plain name (`fns[0]()` of a `def
  peek(s=st)`), taken as bound first by the assignment after it (probe h150).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = (Path(__file__).parent / "kernels" / "dynamic_rows.py").read_text(encoding="utf-8")

#: `e` doubles every iteration; past 2 ** 12 the cube loads the tile the vector core stored one
#: iteration before: serially after the store, pipelined before it
DOUBLING = [
    ("def mm_stage(ki, a, a_l1,", "def mm_stage(ki, e, a, out, a_l1,"),
    ("    pl.load(cur_a, a, [ki * TILE, 0])\n",
     "    if e >= 2 ** 12:\n        pl.load(cur_a, out, [(ki - 1) * TILE, 0])\n"
     "    else:\n        pl.load(cur_a, a, [ki * TILE, 0])\n"),
    ("    for ki in pl.range(0, n_tiles):\n", "    e = 1\n    for ki in pl.range(0, n_tiles):\n        BIND\n"),
    ("            mm_stage(ki, a, a_l1,", "            mm_stage(ki, e, a, out, a_l1,"),
    ("            scale_store(ki, sub_id, out, c_vec_db, y_db)\n",
     "            scale_store(ki, sub_id, out, c_vec_db, y_db)\n        e = e * 2\n"),
]

NOT_ALWAYS = {
    "a chained comparison's second link": "t = ki < 0 < (e := 0)",
    "an if test's second link": "if ki < 0 < (e := 0):\n            pass",
    "an assert's message": "assert ki >= 0, (e := 0)",
    "an assert's test": "assert (e := 0) == 0",
    "an or": "t = ki >= 0 or (e := 0)",
}


def _kernel(bind: str) -> str:
    return edited(KERNEL, DOUBLING).replace("BIND", bind)


@pytest.mark.parametrize("where", list(NOT_ALWAYS))
def test_a_walrus_that_may_not_run_binds_nothing_and_the_carried_value_is_refused(where):
    errors = error_messages(transpile(_kernel(NOT_ALWAYS[where]), path="k.py", preload=2))
    assert errors and "`e` carries a value from one iteration to the next" in errors[0], errors


@pytest.mark.emulator
def test_the_emulator_shows_the_race_from_the_twelfth_tile():
    text = _kernel(NOT_ALWAYS["a chained comparison's second link"])
    code = transpile(text, path="k.py", preload=1, _skip_rules=("PTO061",)).code
    verdicts = [row.verdict for row in verify(text, code, "kernel", path="k.py",
                                              shapes={"a": (14 * 32, 32), "out": (14 * 32, 32)}).rows]
    assert verdicts[0] == "ok" and verdicts[1] != "ok", verdicts


def test_a_walrus_that_always_runs_binds_its_name_where_it_stands():
    # the first link of a chain, and a plain call's argument, always run: `e` is bound before it is read
    for bind in ("t = (e := 0) < 1 < 2", "t = abs((e := 0))"):
        text = _kernel(bind).replace("        e = e * 2\n", "")
        assert error_messages(transpile(text, path="k.py", preload=2)) == [], bind


def test_a_subscript_in_a_tuple_of_targets_reads_its_index():
    text = _kernel("_, tmp[(f := e * 2) * 0] = 0, 0\n        e = f\n        del f").replace(
        "        e = e * 2\n", "").replace("    e = 1\n", "    e = 1\n    tmp = [0]\n")
    _refused_with(text, "`e` carries a value from one iteration to the next")


def test_a_function_called_from_a_list_may_read_a_struct_field_before_it_is_bound():
    text = _kernel("x = fns[0]()\n        st.g = x\n        e = st.g").replace("        e = e * 2\n", "").replace(
        "    e = 1\n", "    st = pl.struct(g=1)\n\n    def peek(s=st):\n        return s.g * 2\n\n"
                     "    fns = [peek]\n    del peek\n")
    _refused_with(text, "field `st.g` carries a value from one iteration to the next")


def _refused_with(text: str, words: str) -> None:
    """`text` is refused at preload 2, its first error saying `words`."""
    errors = error_messages(transpile(text, path="k.py", preload=2))
    assert errors and words in errors[0], errors


def _fed(bind: str) -> str:
    """The kernel with the cube stage given `f`, computed as `bind` says, in place of `e`."""
    return _kernel(bind).replace("            mm_stage(ki, e, a, out,", "            mm_stage(ki, f, a, out,")


def _fed_with(bind: str, before: str) -> str:
    """`_fed(bind)` with no `e` at all: `before` where `e` starts, and no doubling of it."""
    return _fed(bind).replace("        e = e * 2\n", "").replace("    e = 1\n", before)


def test_a_read_that_decides_whether_a_call_runs_is_live():
    # `c` is read by nothing, but `e` decides whether `box.append(1)` runs, and `box` reaches the stage
    # (probe h151: `e` was taken for dead, never judged, and the kernel raced from the twelfth tile)
    text = _fed("c = e >= 2 ** 12 and box.append(1)\n        f: pl.DT_INT32 = box[-1] * 4096").replace(
        "    e = 1\n", "    e = 1\n    box = [0]\n")
    _refused_with(text, "`e` carries a value from one iteration to the next")


def test_a_list_of_other_items_that_grows_is_judged_by_its_shape():
    # `box.append(abs)`: a list of a builtin was never compared across iterations (probe h151)
    text = _fed("box.append(abs)\n        f: pl.DT_INT32 = (len(box) >= 13) * 4096").replace(
        "    e = 1\n", "    box = []\n").replace("        e = e * 2\n", "")
    _refused_with(text, "`box` changes from one iteration of the loop to the next")


def test_an_augmented_assignment_through_a_second_name_is_live():
    # `box *= k` changes the list `other` holds too: `e` decides its length (probe h152: `e` and `box`
    # were taken for dead, and the kernel raced from the twelfth tile)
    text = _fed("box *= (e < 4096) + 0\n        f: pl.DT_INT32 = (1 - len(other)) * 4096").replace(
        "    e = 1\n", "    e = 1\n    other = [0]\n    box = other\n")
    _refused_with(text, "`e` carries a value from one iteration to the next")


def test_a_finally_that_leaves_its_block_is_refused():
    # `finally: continue` swallows what the `try` raises (`1 // (n - 777)` at n = 777), and the rest of
    # the body does not run there: the check, whose model raises nothing, ran it (probe h152)
    text = _fed("f = ki * 4096\n        for _r in range(1):\n            try:\n                c = 1 // (n - 777)\n"
                "                f = 0\n            finally:\n                continue").replace(
        "        e = e * 2\n", "").replace("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
                                          "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    n: pl.DT_INT32,\n")
    _refused_with(text, "a `finally` block that leaves it by `continue` swallows any exception")


def test_a_finally_that_leaves_its_block_from_a_loops_else_is_refused():
    # a loop's `else:` is not inside the loop: its `continue` is the enclosing loop's (probe h153)
    text = _fed("f = ki * 4096\n        for _r in range(1):\n            try:\n                c = 1 // (n - 777)\n"
                "                f = 0\n            finally:\n                for _s in range(0):\n"
                "                    pass\n                else:\n                    continue").replace(
        "        e = e * 2\n", "").replace("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
                                          "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    n: pl.DT_INT32,\n")
    _refused_with(text, "a `finally` block that leaves it by `continue` swallows any exception")


def test_a_subscript_in_a_for_target_reads_its_index():
    # (probe h153: `for tmp[(g := e * 2) * 0] in range(1)` read only the loop's iterable)
    text = _fed_with("for tmp[(g := e * 2) * 0] in range(1):\n            pass\n        e = g\n        del g\n"
                "        f: pl.DT_INT32 = (e >= 4096) * 4096", "    e = 1\n    tmp = [0]\n")
    _refused_with(text, "`e` carries a value from one iteration to the next")


def test_a_carried_value_is_shown_where_the_loop_binds_it():
    # the caret was on the `for`; it is on the statement that carries the value (study ux2)
    result = transpile(_kernel("pass"), path="k.py", preload=2)
    error = next(d for d in result.diagnostics if d.is_error)
    assert "`e` carries a value" in error.message
    assert _kernel("pass").splitlines()[error.line - 1].strip() == "e = e * 2", error.line


def test_a_function_made_in_the_loop_carries_its_default():
    # `def g(x=g() * 2)` reads the function of the iteration before, whose default doubles (probe h154)
    text = _fed_with("f: pl.DT_INT32 = (g() >= 4096) * 4096\n        def g(x=g() * 2):\n            return x",
                     "    def g(x=1):\n        return x\n\n")
    # (the function a name holds is compared with its defaults since a `def` is a binding of the
    # loop body: probe h163)
    errors = error_messages(transpile(text, path="k.py", preload=2))
    assert errors and "`g` carries a value from one iteration to the next" in errors[0], errors


def test_a_range_carried_across_iterations_is_compared():
    # `r = range(len(r) * 2)` (probe h154: a range was never compared)
    text = _fed_with("f: pl.DT_INT32 = (len(r) >= 4096) * 4096\n        r = range(len(r) * 2)", "    r = range(1)\n")
    _refused_with(text, "`r` changes from one iteration of the loop to the next")


@pytest.mark.parametrize("held, called", [
    # a default of items other than numbers (probe h155: only plain ones were compared)
    ("    def g(box=[]):\n        box.append(abs)\n        return len(box)\n\n", "g()"),
    # a function held in a list, or in another function's default, only (probe h155)
    ("    def g(box=[0]):\n        box.append(1)\n        return len(box)\n\n    fns = [g]\n    del g\n\n", "fns[0]()"),
    ("    def g(box=[0]):\n        box.append(1)\n        return len(box)\n\n    def h(fn=g):\n        return fn()\n\n"
     "    del g\n\n", "h()"),
])
def test_a_default_is_compared_wherever_its_function_is_held(held, called):
    text = _fed_with(f"f: pl.DT_INT32 = ({called} >= 13) * 4096", held)
    _refused_with(text, "changes from one iteration of the loop to the next")


def test_a_value_of_any_other_kind_carried_must_be_the_same_at_every_iteration_start():
    # a function the body reads and then rebinds (`fn` is `g` at the first iteration, `h` after)
    text = _fed_with("f: pl.DT_INT32 = fn() * 0\n        fn = h",
                     "    def g():\n        return 1\n\n    def h():\n        return 2\n\n    fn = g\n")
    _refused_with(text, "`fn` carries a value from one iteration to the next")


def test_a_value_computed_from_itself_is_no_residue():
    # `ki % 1` marked the doubling a residue, which the check took for periodic (probe h156)
    text = _fed("e = e * 2 + ki % 1\n        f = e").replace("        e = e * 2\n", "")
    _refused_with(text, "`e` carries a value from one iteration to the next that does not repeat")


def test_a_residue_of_the_loop_variable_carried_is_periodic():
    # `p = ki % 2` read before the body binds it again: the value of the iteration before, which repeats
    text = _fed_with("f = p * 0\n        p = ki % 2", "    p = 0\n")
    assert error_messages(transpile(text, path="k.py", preload=2)) == []


def test_a_list_of_tensors_is_compared_by_which_tensors_it_holds():
    # rotated every iteration, its first tensor's shape picks a branch from the thirteenth tile (probe h156)
    text = _fed_with("f: pl.DT_INT32 = (ts[0].shape[0] == 96) * 4096\n        ts = ts[1:] + ts[:1]",
                     "    ts = [z1] * 12 + [z2]\n").replace(
        "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
        "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    z1: pl.Tensor[[64, TILE], pl.DT_FP32],\n"
        "    z2: pl.Tensor[[96, TILE], pl.DT_FP32],\n")
    _refused_with(text, "`ts` changes from one iteration of the loop to the next")


def test_an_object_the_kernel_makes_and_the_check_does_not_follow_is_named_as_such():
    # a set the kernel made was called "a list, dict or object the module binds", with a hint to copy the
    # module's list (probe h157)
    text = _fed_with("s.add(0)\n        f: pl.DT_INT32 = (len(s) >= 13) * 4096", "    s = set()\n")
    result = transpile(text, path="k.py", preload=2)
    error = next(d for d in result.diagnostics if d.is_error)
    assert "the kernel changes `s`, a value the check does not follow (a set" in error.message, error.message
    assert "module" not in error.message and "list or a dict" in error.hint, error.hint





def test_a_section_imported_under_the_other_sections_name_is_refused():
    # the walks of the loop body and the emulator read a section by its spelling, the interpreter by
    # what it is: `section_cube as section_vector` hid what the block read first (probe h159)
    text = _kernel("pass").replace("import pypto_pro.language as pl\n", "import pypto_pro.language as pl\n"
                                   "from pypto_pro.language import section_cube as section_vector\n")
    _refused_with(text, "`section_cube` is imported as `section_vector`: a section is read by the name it is written")


#: values kept across iterations that were compared by nothing, or too little, each as (what the
#: body binds, what stands before the loop in place of `e`, the refusal's words)
KEPT = {
    # (probe h157: a field whose value was no number was compared by nothing)
    "a list kept in a struct field (h157)": (
        "st.box = st.box + [1]\n        f: pl.DT_INT32 = (len(st.box) >= 14) * 4096",
        "    st = pl.struct(g=0, box=0)\n    st.box = [0]\n",
        "field `st.box` carries a value from one iteration to the next"),
    # (probe h157: an item of a list of non-numbers was compared by its kind alone)
    "a range in a list, by its bounds (h157)": (
        "box = [range(len(box[0]) + 1)]\n        f: pl.DT_INT32 = (len(box[0]) >= 13) * 4096",
        "    box = [range(1)]\n",
        "`box` changes from one iteration of the loop to the next"),
    # (probe h158: `_defaults_in` did not walk structs, and a list default was compared by its kind)
    "a function held in a struct field alone, by its default (h158)": (
        "h = st.fn\n        f: pl.DT_INT32 = (h() >= 13) * 4096\n        del h",
        "    def g(box=[0]):\n        box.append(1)\n"
        "        return len(box)\n\n    st = pl.struct(k=0, fn=0)\n"
        "    st.fn = g\n    del g\n",
        "the default of `box` of `st.fn` changes from one iteration of the loop to the next"),
    # (probe h158: a list holding a builtin compared a residue item by its kind)
    "a residue item beside other items, by its value (h158)": (
        "f: pl.DT_INT32 = (box[1] >= 4096) * 4096\n        box[1] = box[1] * 2 + ki % 1",
        "    box = [abs, 1 + n_tiles % 1]\n",
        "`box` changes from one iteration of the loop to the next"),
    # `upd(st, ki)` sets `st.e = st.e * 2 + ki % 1`: a field the body does not assign itself (probe h159)
    "a residue field a helper makes, by its period (h159)": (
        "f = st.e\n        upd(st, ki)",
        "    st = pl.struct(e=1)\n\n    def upd(s, k):\n        s.e = s.e * 2 + k % 1\n\n",
        "field `st.e` carries a value from one iteration to the next that does not repeat"),
}


@pytest.mark.parametrize("kept", list(KEPT))
def test_a_value_kept_across_iterations_is_compared(kept):
    bind, before, words = KEPT[kept]
    _refused_with(_fed_with(bind, before), words)
