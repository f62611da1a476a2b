"""Shared test helpers."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "seed_demo.py"
#: tests/soundness/kernels/dynamic_rows.py, a small kernel over `pl.DYNAMIC` rows, and its pipeline loop
DYNAMIC_ROWS = ROOT / "tests" / "soundness" / "kernels" / "dynamic_rows.py"
DYNAMIC_ROWS_LOOP = """    for ki in pl.range(0, n_tiles):
        with pl.section_cube():
            mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            scale_store(ki, sub_id, out, c_vec_db, y_db)"""


def demo_text() -> str:
    from skeleton import Text

    return Text(DEMO.read_text(encoding="utf-8"))


def spread(values, keep: int, ids=None) -> list:
    """`values` for `pytest.mark.parametrize`: `keep` of them, spread evenly over the list
    (the first and the last included), run in the default suite; the others carry the
    `campaign` marker, so `pytest -m campaign` (run by `.ci/run` after the default suite)
    runs the whole list."""
    import pytest

    values = list(values)
    n = len(values)
    chosen = {round(i * (n - 1) / (keep - 1)) for i in range(keep)} if n > keep > 1 else set(range(min(n, keep)))
    out = []
    for i, value in enumerate(values):
        marks = () if i in chosen else (pytest.mark.campaign,)
        label = ids(value) if callable(ids) else None
        if isinstance(value, type(pytest.param(None))):
            out.append(pytest.param(*value.values, marks=(*value.marks, *marks), id=value.id))
        else:
            out.append(pytest.param(value, marks=marks, id=label))
    return out


def flash_attention_inputs(seed=0, sq=256, skv=512):
    """Random q, k, v for examples/flash_attention_dn.py (fp16, head dimension 128), and the
    output o (zeros), whose rows are `pl.DYNAMIC` too: the emulator takes them from it."""
    import numpy as np  # only the emulator's tests need it

    rng = np.random.default_rng(seed)
    return {"q": rng.random((sq, 128)).astype(np.float16),
            "k": rng.random((skv, 128)).astype(np.float16),
            "v": rng.random((skv, 128)).astype(np.float16),
            "o": np.zeros((sq, 128), np.float16)}


#: the rows of the FlashAttention examples' tensors in their own test (module constants)
FLASH_ROWS = {"q": "SEQ_Q", "k": "SEQ_KV", "v": "SEQ_KV", "o": "SEQ_Q"}


def fixed_rows(text: str, rows: dict[str, str] | None = None) -> str:
    """`text` with the `pl.DYNAMIC` rows of the named tensor parameters fixed (`q:
    pl.Tensor[[pl.DYNAMIC, TD], ...]` -> `q: pl.Tensor[[SEQ_Q, TD], ...]`): the same kernel at
    one size, proven by a few runs of static trip counts instead of the dozens a proof for every
    size takes. For the tests, benchmarks and fuzz bases that are not about run-time sizes."""
    for name, size in (FLASH_ROWS if rows is None else rows).items():
        old = f"    {name}: pl.Tensor[[pl.DYNAMIC, "
        if text.count(old) != 1:
            raise ValueError(f"no single `{old.strip()}` parameter to fix")
        text = text.replace(old, f"    {name}: pl.Tensor[[{size}, ")
    return text


def fixed_flash_attention(name: str = "flash_attention_dn.py") -> str:
    """The bundled FlashAttention example `name` at the sizes of its own test (256 x 512)."""
    return fixed_rows((ROOT / "examples" / name).read_text(encoding="utf-8"))


def restamped(code: str) -> str:
    """Generated `code` edited by a test, with the digest in each pto-transpile mark made that of
    the edited text and its kernel: what pto-transpile writes when the edit is made to its input."""
    import re

    from pto_transpile.read.mark import PREFIX, digest

    mark = re.compile(re.escape(PREFIX) + r"[0-9a-f]{16}\)")
    kernels = [re.compile(r"\ndef (\w+)\(").search(code, m.end()) for m in mark.finditer(code)]
    stamps = iter([f"{PREFIX}{digest(code, k.group(1))})" for k in kernels if k is not None])
    return mark.sub(lambda _: next(stamps), code)


def resized(text: str, seq_q: int, seq_kv: int) -> str:
    """A FlashAttention example's text (or its output) with the sizes of its test changed:
    the constants `SEQ_Q` and `SEQ_KV`, which fix the rows in `fixed_flash_attention`."""
    import re

    for const, value in (("SEQ_Q", seq_q), ("SEQ_KV", seq_kv)):
        text, count = re.subn(rf"^{const} = \d+", f"{const} = {value}", text, count=1, flags=re.M)
        if count != 1:
            raise ValueError(f"no `{const} = <rows>` line to change")
    return text


def at_fixed_rows(text: str) -> str:
    """`text` with the FlashAttention examples' rows fixed (`fixed_rows`) when it has them, else
    as it is: for the tests of reading and printing, which every golden input passes through
    and which do not depend on the sizes."""
    try:
        return fixed_rows(text)
    except ValueError:
        return text


def edited(text: str, edits) -> str:
    """`text` with each `(old, new)` applied once; each `old` must stand in it exactly once, so
    an edit that no longer applies fails loudly instead of testing the unedited kernel."""
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def error_messages(result) -> list[str]:
    """The messages of a transpile's errors."""
    return [d.message for d in result.diagnostics if d.severity == "error"]


#: `examples/hand_pipelined.py` (six tiles, one block) as production kernels write it: a
#: `pl.DYNAMIC` number of tiles spread over the blocks, each block running one beat more than
#: its tiles (`my_n`), its tile `core_id + t * num_cores`, the drain's ids following `my_n % 2`
OVER_BLOCKS = [
    ("    a: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],", "    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],"),
    ("    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],\n):\n",
     "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n):\n"
     "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
     "    num_cores = pl.get_block_num()\n"
     "    n_blocks = a.shape[0] // TILE\n"
     "    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n"),
    ("    for t in pl.range(0, N + 1):", "    for t in pl.range(0, my_n + 1):"),
    ("        now.row = t * TILE", "        now.row = (core_id + t * num_cores) * TILE"),
    ("            if t < N:", "            if t < my_n:"),
    ("event_id=EV_FREE[N % 2])", "event_id=EV_FREE[my_n % 2])"),
    ("event_id=EV_FREE[(N + 1) % 2])", "event_id=EV_FREE[(my_n + 1) % 2])"),
]


def hand_pipelined_over_blocks() -> str:
    """The hand-pipelined example over any number of tiles and blocks (`OVER_BLOCKS`)."""
    return edited((ROOT / "examples" / "hand_pipelined.py").read_text(encoding="utf-8"), OVER_BLOCKS)


def judged_runs(monkeypatch) -> list:
    """The configurations the soundness check judges a kernel at from now on (each run of
    `check._check_one`, in order), recorded as they are judged."""
    from pto_transpile.soundness import check

    runs: list = []
    real = check._check_one
    monkeypatch.setattr(check, "_check_one", lambda *a: runs.append(a[4]) or real(*a))
    return runs


#: tests/soundness/kernels/hand_event_in_stages.py with the credits its help asks for, taken one
#: per two tasks: the cube waits for a release of the vector cores on even tasks, and they
#: release one on even tasks. The vector cores prime `range(8 if d == 7 else 1)` credits before
#: the loop: at `d = 7` the cube runs 16 tasks ahead and the sets of event 5 pending pass the
#: hardware counter at 24 tiles (probe h81: the trip counts were drawn from the one credit of the
#: first sample of `d`).
CREDITS_BY_PARAMETER = [
    ("def produce(i, a, mid, b_slot, a_l1, left_db, right_db, acc_db):\n",
     "def produce(i, a, mid, b_slot, a_l1, left_db, right_db, acc_db):\n"
     "    if i % 2 == 0:\n        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=6)\n"),
    ("    pl.store(out, r, [i * TILE + sub_id * HALF, 0])\n",
     "    pl.store(out, r, [i * TILE + sub_id * HALF, 0])\n"
     "    if i % 2 == 0:\n        pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=6)\n"),
    ("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n):\n",
     "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    d: pl.DT_INT32,\n):\n"),
    ("    for i in pl.range(0, n):\n",
     "    with pl.section_vector():\n        for _c in range(8 if d == 7 else 1):\n"
     "            pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=6)\n    for i in pl.range(0, n):\n"),
    ("            consume(i, sub_id, mid, out, r_db)\n",
     "            consume(i, sub_id, mid, out, r_db)\n    with pl.section_cube():\n"
     "        for _c in range(8 if d == 7 else 1):\n"
     "            pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=6)\n"),
]


def credits_by_parameter() -> str:
    """`CREDITS_BY_PARAMETER` applied to hand_event_in_stages.py."""
    text = (ROOT / "tests" / "soundness" / "kernels" / "hand_event_in_stages.py").read_text(encoding="utf-8")
    return edited(text, CREDITS_BY_PARAMETER)


def brief_stage(text: str) -> str:
    """A credits kernel (`credits_by_parameter` and its edits) with one relu a task, not 40: the
    check's counts do not depend on how long a stage runs, only the emulator's timing does."""
    short = text.replace("    for _k in range(40):\n", "    for _k in range(1):\n")
    assert short != text
    return short


def hand_written_errors(text: str) -> list:
    """The PTO068 errors (a hand-written pipeline's syncs not sound) of `text` at preload 1."""
    from pto_transpile import transpile

    return [d for d in transpile(text, path="k.py", preload=1).diagnostics if d.code == "PTO068"]


def patched(base: str, patch: str) -> str:
    """`base` with the unified diff `patch` applied (hunks in order, each line of context and each
    removed line checked: a patch that no longer applies fails loudly, as `edited` does)."""
    import re

    lines = base.splitlines(keepends=True)
    out: list[str] = []
    at = 0  #: the next line of `base` not yet copied
    hunk = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")
    started = False  #: past the `---`/`+++` header
    for line in patch.splitlines(keepends=True):
        head = hunk.match(line)
        if head is not None:
            started = True
            start = int(head.group(1)) - (0 if head.group(2) == "0" else 1)
            assert start >= at, f"hunk at line {start + 1} overlaps the one before it"
            out += lines[at:start]
            at = start
        elif not started:
            continue
        elif line.startswith(" ") or line.startswith("-"):
            assert at < len(lines) and lines[at].rstrip("\n") == line[1:].rstrip("\n"), (at + 1, line)
            if line.startswith(" "):
                out.append(lines[at])
            at += 1
        elif line.startswith("+"):
            out.append(line[1:] if line.endswith("\n") else line[1:] + "\n")
    return "".join(out + lines[at:])


def edited_kernel(folder, path, old: str, new: str):
    """The test kernel `path` (`kernel_text`) with `old`, standing in it once, replaced by `new`,
    written to `folder` as `kernel.py`: its path."""
    from pathlib import Path

    out = Path(folder) / "kernel.py"
    out.write_text(edited(kernel_text(path), [(old, new)]), encoding="utf-8")
    return out


def kernel_text(path) -> str:
    """A test kernel's text: the file itself, or, where it is kept as the part that differs from
    another kernel of the repository, `NAME.patch` applied to the file its `---` line names."""
    from pathlib import Path

    path = Path(path)
    if path.exists():
        return path.read_text(encoding="utf-8")
    patch = path.with_suffix(".patch").read_text(encoding="utf-8")
    base = patch.splitlines()[0].removeprefix("--- ").strip()
    return patched((ROOT / base).read_text(encoding="utf-8"), patch)


def refusal_of(path) -> str:
    """The first error of transpiling the test kernel `path` (`kernel_text`); fails when it is
    accepted, or refused by an internal error."""
    from pto_transpile import transpile

    messages = error_messages(transpile(kernel_text(path), path="k.py"))
    assert messages and not messages[0].startswith("internal error"), messages
    return messages[0]


def assert_proven_and_run(path, kernel: str, **run) -> None:
    """The test kernel `path` is accepted, and its pipelined form runs as the serial kernel on the
    emulator (`sim_runtime.verify` with `run`)."""
    from pto_transpile import transpile
    from sim_runtime import verify

    text = kernel_text(path)
    result = transpile(text, path="k.py")
    assert error_messages(result) == [], error_messages(result)
    report = verify(text, result.code, kernel, **run)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
