import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import math  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402

import pytest  # noqa: E402

#: a file of the findings of one hostile probe, a test or a few per finding
_PROBE_FILE = re.compile(r"test_probe_h\d+\.py$")
#: folders whose parametrized tests run one check over variations of a kernel
_VARIED = ("tests/soundness/", "tests/sync/")
#: the folder whose files each prove kernels of one topic, test by test (a quarter of each file of
#: six tests or more runs by default)
_PROVEN = "tests/soundness/"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Keep the default suite within five minutes on two cores: of each probe's file an evenly
    spread twelfth (one test at least), of each parametrized test in the folders above an evenly
    spread fifth (one case at least), and of the other tests of each file of tests/soundness/ of
    six or more an evenly spread quarter (three at least, the first and the last included), runs
    by default; the rest carries the `campaign` marker, which `.ci/run` runs after the default
    suite. Groups `helpers.spread` samples already are left as they are, and a test named by its
    id on the command line runs."""
    named = [_node_id(config, arg) for arg in config.args if "::" in arg]
    groups: dict[tuple, list] = {}
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        if _PROBE_FILE.search(path):
            groups.setdefault((path,), []).append(item)
        elif path.startswith(_VARIED) and "[" in item.name:
            groups.setdefault((path, item.originalname), []).append(item)
        elif path.startswith(_PROVEN):
            groups.setdefault((path, None), []).append(item)
    for key, group in groups.items():
        n = len(group)
        probe, plain = len(key) == 1, len(key) == 2 and key[1] is None
        if n < (6 if plain else 2) or any(item.get_closest_marker("campaign") for item in group):
            continue
        keep = max(1, math.ceil(n / 12)) if probe else max(3, math.ceil(n / 4)) if plain else \
            max(1, math.ceil(n / 5))
        chosen = {round(i * (n - 1) / (keep - 1)) for i in range(keep)} if keep > 1 else {0}
        for i, item in enumerate(group):
            if i not in chosen and not any(item.nodeid.startswith(arg) for arg in named):
                item.add_marker(pytest.mark.campaign)


def _node_id(config, arg: str) -> str:
    """A test id given on the command line, as pytest writes it (its path from the root)."""
    path, rest = arg.split("::", 1)
    return f"{Path(os.path.relpath(Path(path).resolve(), config.rootpath)).as_posix()}::{rest}"
