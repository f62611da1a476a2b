"""The table of `pl` op signatures (`pto_api.signatures`): it covers every op the tool and the
emulator know, `misbinding` refuses a call exactly where Python's own binding raises TypeError,
and every `pl.<op>(...)` call of the repository's own kernels binds (a call there that does not is
a wrong table, which a rule reading it would turn into a false refusal)."""

from __future__ import annotations

import ast
import inspect
from itertools import combinations
from pathlib import Path

import pytest

from pto_api.names import PL_MEMBERS, PL_NAMES, PL_PARAMETERS
from pto_api.ops import BLOCK_OP_ROLES, OP_PIPE
from pto_api.signatures import OP_SIGNATURES, Signature, misbinding

ROOT = Path(__file__).resolve().parents[2]

#: the repository's kernels, read as their users write them
KERNELS = ("examples/*.py", "golden/*/input.py", "golden/*/expected_*.py", "tests/soundness/kernels/*.py",
           "tests/sim_kernels/*.py", "benchmarks/kernels/*.py")

#: kernels that call an op wrongly on purpose: (file, line) -> the op
WRONG_ON_PURPOSE = {
    # a store given the load's `is_transpose=`, which it does not take
    ("tests/soundness/kernels/h124_store_transpose.py", 32): "store",
}


def _structural() -> set[str]:
    return {path[0] for path in PL_PARAMETERS if len(path) == 1}


def test_every_op_of_the_role_and_pipe_tables_has_a_signature():
    missing = (set(BLOCK_OP_ROLES) | set(OP_PIPE)) - _structural() - set(OP_SIGNATURES)
    assert missing == set()


def test_every_op_the_emulator_runs_has_a_signature():
    import sim_runtime.pl as pl
    from sim_runtime.ops import HANDLERS

    assert set(HANDLERS) - set(OP_SIGNATURES) == set()
    system = {f"system.{n}" for n in vars(pl.system) if not n.startswith("_")}
    assert system - set(OP_SIGNATURES) == set()


def test_every_signature_is_of_a_pl_name_and_none_of_the_structural_calls():
    for op in OP_SIGNATURES:
        namespace, _, member = op.rpartition(".")
        assert (member in PL_MEMBERS[namespace]) if namespace else (op in PL_NAMES), op
    assert set(OP_SIGNATURES) & _structural() == set()


@pytest.mark.parametrize("op", sorted(OP_SIGNATURES))
def test_every_signature_is_well_formed(op):
    sig = OP_SIGNATURES[op]
    names = sig.params + sig.keyword_only + ((sig.varargs,) if sig.varargs else ())
    assert len(set(names)) == len(names), op
    assert 0 <= sig.required <= len(sig.params), op
    assert 0 <= sig.positional_only <= len(sig.params), op
    assert set(sig.required_keywords) <= set(sig.keyword_only), op


def _python_signature(sig: Signature) -> inspect.Signature:
    P = inspect.Parameter
    params = [P(n, P.POSITIONAL_ONLY if i < sig.positional_only else P.POSITIONAL_OR_KEYWORD,
                default=P.empty if i < sig.required else None) for i, n in enumerate(sig.params)]
    if sig.varargs:
        params.append(P(sig.varargs, P.VAR_POSITIONAL))
    params += [P(n, P.KEYWORD_ONLY, default=P.empty if n in sig.required_keywords else None)
               for n in sig.keyword_only]
    return inspect.Signature(params)


@pytest.mark.parametrize("op", sorted(OP_SIGNATURES))
def test_misbinding_refuses_exactly_what_python_refuses(op):
    sig = OP_SIGNATURES[op]
    python = _python_signature(sig)
    names = [*sig.params, *sig.keyword_only, "not_a_parameter"]
    keyword_sets = [(), tuple(sig.required_keywords), *combinations(names, 1), *combinations(names, 2),
                    tuple(sig.params[sig.positional_only:]) + tuple(sig.keyword_only)]
    for n in range(len(sig.params) + 3):
        for keywords in keyword_sets:
            try:
                python.bind(*range(n), **dict.fromkeys(keywords))
                binds = True
            except TypeError:
                binds = False
            said = misbinding(op, n, keywords)
            assert (said is None) == binds, (op, n, keywords, said)


def _calls(path: Path):
    """(line, op, positional count, keywords) of each `pl.<op>(...)` / `pl.system.<op>(...)` call
    with a signature and no `*args` / `**kwargs`."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        parts, fn = [], node.func
        while isinstance(fn, ast.Attribute):
            parts.append(fn.attr)
            fn = fn.value
        if not (isinstance(fn, ast.Name) and fn.id == "pl" and parts):
            continue
        op = ".".join(reversed(parts))
        if op not in OP_SIGNATURES or any(isinstance(a, ast.Starred) for a in node.args) \
                or any(k.arg is None for k in node.keywords):
            continue
        yield node.lineno, op, len(node.args), [k.arg for k in node.keywords if k.arg is not None]


def test_every_call_of_the_repositorys_kernels_binds():
    files = sorted({p for pattern in KERNELS for p in ROOT.glob(pattern)})
    assert len(files) > 50
    seen, wrong = 0, {}
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        for line, op, n, keywords in _calls(path):
            seen += 1
            said = misbinding(op, n, keywords)
            if said is not None:
                wrong[rel, line] = (op, said)
    assert seen > 1000
    assert {at: op for at, (op, _) in wrong.items()} == WRONG_ON_PURPOSE, wrong


@pytest.mark.parametrize("op, n, keywords, said", [
    # the emulator's "missing argument 4", found before the run
    ("matmul_acc", 3, [], "missing required argument `rhs_tile`"),
    ("muls", 2, [], "missing required argument `scalar`"),
    ("relu", 4, [], "takes at most 2 positional arguments, 4 given"),
    ("insert", 2, ["offsets"], "has no parameter `offsets`"),
    ("store", 3, ["is_transpose"], "has no parameter `is_transpose`"),
    ("add", 2, ["lhs"], "`lhs` given twice (by position and by keyword)"),
    ("cast", 2, ["out"], "`out` given twice (by position and by keyword)"),
    ("matmul", 3, ["bias_tile"], "`bias_tile` cannot be given by keyword (it is given by position only)"),
    ("gathermask", 2, [], "missing required keyword argument `pattern_mode`"),
    ("system.set_cross_core", 1, ["event_id"], "takes no positional arguments, 1 given"),
    ("system.wait_cross_core", 0, ["pipe"], "missing required keyword argument `event_id`"),
    ("set_vec_mask", 0, ["mask_low"], "missing required argument `mask_high`"),
])
def test_known_misbindings(op, n, keywords, said):
    assert misbinding(op, n, keywords) == said


@pytest.mark.parametrize("op, n, keywords", [
    ("matmul", 4, ["phase"]),  # the bias by position, the phase by keyword
    ("move", 2, ["offset", "acc_to_vec_mode"]),
    ("add", 1, ["lhs", "rhs"]),
    ("printf", 5, ["loc"]),  # *args takes the values to print
    ("pto_assert", 1, []),
    ("mrgsort2", 6, ["exhausted"]),  # two extra sources
    ("dump_data", 1, ["offsets", "shapes", "workspace"]),
    ("system.sync_all", 0, []),
    ("system.bar_all", 0, []),
    ("not_an_op", 9, ["anything"]),  # no signature: nothing to say
])
def test_calls_that_bind(op, n, keywords):
    assert misbinding(op, n, keywords) is None
