"""The ctx ring's pick residue left out of the periods (`soundness/ringsymmetry.py`): only
when the kernel's code shows that its ring counter picks ring entries and nothing else."""

from __future__ import annotations

import libcst as cst
import pytest

from helpers import fixed_flash_attention, resized, spread
from pto_transpile import transpile
from pto_transpile.soundness.ringsymmetry import certified
from pto_transpile.soundness.rotations import Rotations


def _path(expr: cst.BaseExpression) -> tuple | None:
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "pl":
        return (expr.attr.value,)
    return None


def _kernel(code: str, name: str) -> cst.FunctionDef:
    (fn,) = [s for s in cst.parse_module(code).body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return fn


@pytest.fixture(scope="module")
def generated() -> str:
    code = transpile(fixed_flash_attention(), path="flash_attention_dn.py", preload=2).code
    assert code is not None
    return code


def test_the_generated_kernel_is_certified(generated):
    source = fixed_flash_attention()
    assert certified(_kernel(generated, "flash_attention_dn"), {("struct_array",)}, _path, source)


def test_a_field_holding_the_counter_spelled_in_another_function_is_not(generated):
    # a stage given a ctx entry whole (a struct argument) could read the counter from it
    stage = "def compute(st):\n    pl.store(o, t, [st._pl_task_id * 64, 0])\n"
    assert not certified(_kernel(generated, "flash_attention_dn"), {("struct_array",)}, _path, stage)


_TAMPERED = [
    # the counter moves a GM offset
    ("pl.load(cur_q_slot, q, [qi * TS, 0]", "pl.load(cur_q_slot, q, [qi * TS + _pl_task_id, 0]"),
    # a ring entry picked by something else than the counter's residue of the ring's length
    ("_pl_ctx_arr[(_pl_task_id + 3) % 4]", "_pl_ctx_arr[(_pl_task_id + 3) % 2]"),
    ("_pl_ctx_arr[(_pl_task_id + 3) % 4]", "_pl_ctx_arr[0]"),
    # the counter tested, or stepped by anything but a literal
    ("_pl_task_id = _pl_task_id + 1", "_pl_task_id = _pl_task_id + qi"),
    ("_pl_task_id = _pl_task_id + 1", "_pl_task_id += 1"),
    # the field holding the counter read for anything but a residue
    ("event_id=_pl_fwd_ids_qk_vec_db[_pl_ctx_0._pl_task_id % 2]", "event_id=_pl_ctx_0._pl_task_id"),
    # the counter copied to another name
    ("_pl_task_id = _pl_task_id + 1", "_pl_task_id = _pl_task_id + 1; spare = _pl_task_id"),
]


@pytest.mark.parametrize("old, new", spread([pytest.param(*t) for t in _TAMPERED], 3))  # all: campaign
def test_a_counter_that_can_change_anything_but_the_pick_is_not(generated, old, new):
    assert old in generated, old
    tampered = generated.replace(old, new, 1)
    assert not certified(_kernel(tampered, "flash_attention_dn"), {("struct_array",)}, _path)


def test_a_pure_pick_leaves_the_periods_and_a_spoilt_one_does_not():
    form = ((("carried", "_pl_task_id"), 1),)
    ring: list = [object()] * 4
    rot = Rotations()
    rot.residues.add((form, 2))
    rot.pick_residues.add((form, 4))
    rot.picked(ring, (form, 4), len(ring))
    assert rot.periodic() == {(form, 2)}
    rot.picked(ring, None, len(ring))  # the same ring picked by anything else: the pick counts again
    assert rot.periodic() == {(form, 2), (form, 4)}


def test_serial_kernels_and_uncertified_kernels_keep_every_residue_in_the_period(generated):
    # the serial example takes no ring pick; the generated one, tampered, is judged with its ring
    # in the period: the long static FlashAttention at preload 2 (every other rotation renamed,
    # `renaming.py`) then runs 20 KV tiles (a period of 4), not 15
    from pto_transpile.soundness import check as check_module
    from pto_transpile.soundness import interp as interp_module

    runs = []
    real = check_module._check_one
    text = resized(fixed_flash_attention(), 4096, 32768)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(check_module, "_check_one", lambda *a: runs.append(a[4].trips) or real(*a))
        mp.setattr(interp_module.ringsymmetry, "certified", lambda *a: frozenset())
        result = transpile(text, path="flash_attention_dn.py", preload=2)
    assert result.code is not None
    assert sorted(runs[-1].values()) == [3, 20], runs[-1]


def test_a_node_shared_between_a_pick_and_another_use_is_judged_in_both(generated):
    # the generated code shares statement nodes between places (the steady loop and the drain);
    # a counter name shared into a use that moves something must not pass as the pick it is too
    fn = _kernel(generated, "flash_attention_dn")
    pick = next(n for n in _subscripts(fn) if isinstance(n.value, cst.Name) and n.value.value == "_pl_ctx_arr")
    counter = next(n for n in _names(pick.slice[0]) if n.value == "_pl_task_id")
    leak = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name("spare"))], counter)])
    body = fn.body.with_changes(body=[leak, *fn.body.body])
    assert certified(_kernel(generated, "flash_attention_dn"), {("struct_array",)}, _path)
    assert not certified(fn.with_changes(body=body), {("struct_array",)}, _path)


def _names(node: cst.CSTNode) -> list[cst.Name]:
    from pto_transpile.read.walk import iter_nodes

    return [n for n in iter_nodes(node) if isinstance(n, cst.Name)]


def _subscripts(node: cst.CSTNode) -> list[cst.Subscript]:
    from pto_transpile.read.walk import iter_nodes

    return [n for n in iter_nodes(node) if isinstance(n, cst.Subscript)]
