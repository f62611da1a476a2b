"""Probe h176: a builtin called with no argument (`print()`, `float()`) crashed the check
(PTO099: it read the first argument of every builtin call). Python gives `None` and `0.0`; the
kernels are valid and proven."""

from __future__ import annotations

import pytest
from probed import loads_out

from helpers import error_messages
from pto_transpile import transpile


@pytest.mark.parametrize("line", ["        print()\n        f: pl.DT_INT32 = 0\n",
                                  "        z = float()\n        f: pl.DT_INT32 = int(z) * 4096\n"])
def test_a_builtin_called_with_no_argument_is_followed(line):
    result = transpile(loads_out("", line), path="k.py", preload=2)
    assert result.ok, error_messages(result)
