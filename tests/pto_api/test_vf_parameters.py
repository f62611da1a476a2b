"""The emulator's `vf` register ops take PyPTO's parameters (`pto_api.names.VF_PARAMETERS`):
the same names in the same order, by position or keyword as PyPTO's signatures allow. A kernel
that names an argument as PyPTO documents it (`vf.add(x, y, preg=m)`, `vf.load_align(tile=t)`)
runs on the emulator, and the check reads it by the same table."""

from __future__ import annotations

import inspect

import pytest

from pto_api.names import VF_PARAMETERS, vf_bind, vf_signature
from sim_runtime import pl  # noqa: F401  (registers every vf op into vf.OPS)
from sim_runtime.vf import OPS

P = inspect.Parameter

#: ops the emulator runs that PyPTO does not document
EMULATOR_ONLY = {"subs"}


def _documented(op: str) -> list[tuple[str, object]]:
    either, rest, only = vf_signature(op)
    return ([(n, P.POSITIONAL_OR_KEYWORD) for n in either] + ([(rest, P.VAR_POSITIONAL)] if rest else [])
            + [(n, P.KEYWORD_ONLY) for n in only])


@pytest.mark.parametrize("op", sorted(VF_PARAMETERS.keys() & OPS.keys()))
def test_the_emulator_takes_pyptos_parameters(op):
    params = list(inspect.signature(OPS[op]).parameters.values())
    documented = _documented(op)
    assert [(p.name, p.kind) for p in params[:len(documented)]] == documented
    # what the emulator takes besides comes after them, by keyword only
    assert [p.name for p in params[len(documented):] if p.kind is not P.KEYWORD_ONLY] == []


def test_every_op_the_emulator_runs_has_pyptos_parameters():
    assert set(OPS) - set(VF_PARAMETERS) == EMULATOR_ONLY


@pytest.mark.parametrize(("op", "pos", "kw", "bound"), [
    ("add", ["x", "y", "m", "Z"], {}, {"src0": "x", "src1": "y", "preg": "m", "mode": "Z"}),
    ("add", ["x", "y"], {"preg": "m"}, {"src0": "x", "src1": "y", "preg": "m"}),
    ("load_align", [], {"tile": "t", "offset": 0}, {"tile": "t", "offset": 0}),
    ("store_align", ["t", "r", "m", 64], {"post_update": True},
     {"tile": "t", "src": "r", "args": ["m", 64], "post_update": True}),
    ("store_align", [], {"tile": "t", "src": "k"}, {"tile": "t", "src": "k"}),
    ("update_mask", [8], {"dtype": "D"}, {"scalar": 8, "dtype": "D"}),
    # where Python raises TypeError
    ("add", ["x", "y", "m", "Z", "extra"], {}, None),
    ("add", ["x"], {"src0": "y"}, None),
    ("update_mask", [], {"n": 8}, None),
    ("store_align", ["t", "r"], {"preg": "m"}, None),
    ("store_align", ["t", "r", "m"], {"args": []}, None),
])
def test_vf_bind_binds_as_python_does(op, pos, kw, bound):
    assert vf_bind(op, pos, kw) == bound
