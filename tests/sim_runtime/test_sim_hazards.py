"""The hazard rules agree with the emulator.

PTO056 (outer slot re-picked too early) and PTO057 (forward-only buffer overwritten) are
checks beyond the original transform. Their failing examples, transpiled anyway (with the
hazard checks and the soundness check switched off), must really go wrong on the emulated
NPU; their passing examples must run bit-identical to the serial kernel.
"""

import pytest

from pto_transpile import transpile
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.rules import registry
from sim_runtime import verify

pytestmark = pytest.mark.emulator


def _verdict(text):
    result = transpile(text, _skip_rules=["PTO056", "PTO057", "PTO061"])
    assert result.ok, result.diagnostics
    name = next(k.name for k in read(SourceFile.parse(text)).kernels if k.loops)
    report = verify(text, result.code, name, path="example.py")
    assert report.rows[0].verdict == "ok", report.rows[0].message
    return report.rows[-1].verdict


# examples with a run-time scalar parameter (`n_inner`) need a value the verifier does not
# invent; the others cover both rules' failing and passing shapes
CASES = [pytest.param(code, kind, i, id=f"{code}-{kind}-{i}")
         for code in ("PTO056", "PTO057") for kind in ("invalid", "valid")
         for i, text in enumerate(getattr(registry()[code], kind)) if "n_inner" not in text]


@pytest.mark.parametrize("code, kind, index", CASES)
def test_hazard_examples_match_the_emulator(code, kind, index):
    verdict = _verdict(getattr(registry()[code], kind)[index])
    if kind == "valid":
        assert verdict == "ok"
    else:
        assert verdict in ("mismatch", "race")
