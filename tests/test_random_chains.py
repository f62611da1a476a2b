"""Differential test on random chains (tests/chaingen.py), judged by the emulator.

Whatever random kernel the transpiler accepts must run, pipelined and concurrent,
bit-identical to its serial run; every kernel refused only by a hazard check (an outer slot
re-picked too early PTO056, a forward-only overwrite PTO057, or the soundness check PTO061)
must really race or compute wrong results on the emulator when transpiled anyway.
`python scripts/fuzz_chains.py 0 1000` runs the same check wider.
"""

from functools import cache

import pytest

from chaingen import generate
from pto_transpile import transpile
from sim_runtime import verify

SEEDS = range(60)
#: the seeds of the default suite (the others run with `-m campaign`)
DEFAULT_SEEDS = range(0, 60, 5)


@cache
def transpiled(seed: int):
    """Each chain is transpiled once for both tests."""
    chain = generate(seed)
    return chain, transpile(chain.text, path=f"chain_{seed}.py")
HAZARDS = {"PTO056", "PTO057", "PTO061"}


@pytest.mark.parametrize("seed", [pytest.param(s, marks=() if s in DEFAULT_SEEDS else (pytest.mark.campaign,))
                                  for s in SEEDS])
def test_random_chain(seed):
    chain, result = transpiled(seed)
    codes = {d.code for d in result.diagnostics}
    if codes and codes <= HAZARDS:
        forced = transpile(chain.text, path=f"chain_{seed}.py", _skip_rules=HAZARDS)
        assert forced.ok, forced.diagnostics
        report = verify(chain.text, forced.code, chain.kernel, path=f"chain_{seed}.py", seed=seed)
        assert report.rows[-1].verdict in ("mismatch", "race"), (chain.desc, sorted(codes))
        return
    if not result.ok:
        assert codes <= {"PTO043"}, result.diagnostics  # too few tiles for the preload
        return
    report = verify(chain.text, result.code, chain.kernel, path=f"chain_{seed}.py", seed=seed)
    assert report.rows[0].verdict == "ok", report.rows[0].message
    assert result.diagnostics == [] and report.rows[-1].verdict == "ok", (chain.desc, report.rows[-1].message)


def test_the_seeds_cover_accepted_and_refused_kernels():
    kinds = set()
    for seed in DEFAULT_SEEDS:
        _, r = transpiled(seed)
        codes = {d.code for d in r.diagnostics}
        kinds.add("accepted" if r.ok else "hazard" if codes <= HAZARDS else "rejected")
    assert kinds == {"accepted", "rejected", "hazard"}
