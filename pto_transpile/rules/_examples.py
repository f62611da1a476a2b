"""The kernel skeleton the rules' example files are built from.

Every rule carries complete kernel files as its `invalid`/`valid` examples. Most of them
are the same small two-stage pipeline with one part changed, so the parts live here once:

    mm (cube)   x = A_i @ A_i, moved from Acc to the cross-core Vec buffer `x_db`
    st (vector) out[i] = x (each AIV stores its half)

`kernel(...)` returns the complete file text; each keyword replaces one part (given
without indentation, it is indented to where it belongs). Lines marked `# E: PTOxxx` are
where the rule's test expects a diagnostic.
"""

from __future__ import annotations

import textwrap

IMPORTS = "import pypto_pro.language as pl"

CONSTANTS = """\
TILE = 32
HALF = TILE // 2
N = 4"""

#: the cube stage: A_i @ A_i, handed to the vector core through `x_db`
MM = '''\
@pl.pipeline.stage
def mm(ki, a, a_l1, left_db, right_db, acc_db, x_db):
    cur_a = a_l1.next()
    pl.load(cur_a, a, [ki * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, cur_a)
    pl.matmul(acc, left, right)
    x = x_db.next()
    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)'''

#: the vector stage: each AIV writes its half of the tile back
ST = '''\
@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    x = x_db.next()
    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])'''

PARAMS = """\
a: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],"""


def group(name: str, memory: str = "Vec", addrs: str = "0x0", mutex: str = "[0, 1]",
          fwd: str | None = "[0, 1]", bwd: str | None = "[2, 3]", shape: str = "[HALF, TILE]",
          extra: str = "", mark: str = "") -> str:
    """A `make_tile_group` declaration; `fwd`/`bwd` None leaves the keyword out.

    `mark` is appended to the first line (e.g. `  # E: PTO030`)."""
    layout = {"Vec": "", "Mat": ", layout=pl.NZ", "Left": ", layout=pl.NZ", "Right": ", layout=pl.ZN",
              "Acc": ", layout=pl.NZ"}.get(memory, "")
    lines = [
        f"{name} = pl.make_tile_group({mark}",
        f"    type=pl.TileType(shape={shape}, dtype=pl.DT_FP32, target_memory=pl.MemorySpace.{memory}{layout}),",
        f"    addrs={addrs},",
        f"    mutex_ids={mutex},",
    ]
    if fwd is not None:
        lines.append(f"    fwd_ids={fwd},")
    if bwd is not None:
        lines.append(f"    bwd_ids={bwd},")
    if extra:
        lines.append(f"    {extra}")
    lines.append(")")
    return "\n".join(lines)


#: the cross-core buffer (one tile per in-flight iteration, preload=1 needs 2)
X_DB = group("x_db")

CUBE_DECLS = "\n".join([
    "with pl.section_cube():",
    textwrap.indent(group("a_l1", "Mat", "0x0", "[4, 5]", None, None, "[TILE, TILE]"), "    "),
    textwrap.indent(group("left_db", "Left", "0x0", "[6, 7]", None, None, "[TILE, TILE]"), "    "),
    textwrap.indent(group("right_db", "Right", "0x0", "[8, 9]", None, None, "[TILE, TILE]"), "    "),
    textwrap.indent(group("acc_db", "Acc", "0x0", "[10, 11]", None, None, "[TILE, TILE]"), "    "),
])

VEC_DECLS = """\
with pl.section_vector():
    sub_id = pl.get_subblock_idx()"""

MM_CALL = "mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)"
ST_CALL = "st(ki, sub_id, out, x_db)"

LOOP = f"""\
for ki in pl.range(0, N):
    with pl.section_cube():
        {MM_CALL}
    with pl.section_vector():
        {ST_CALL}"""


def kernel(*, imports: str = IMPORTS, constants: str = CONSTANTS, helpers: str = "",
           stages: str | None = None, mm: str = MM, st: str = ST, config: str = "preload=1",
           decorator: str | None = None, name: str = "kernel", params: str = PARAMS,
           x_db: str = X_DB, decls: str = "", cube_decls: str = CUBE_DECLS,
           vec_decls: str = VEC_DECLS, loop: str = LOOP, after: str = "") -> str:
    """The complete example file: imports, constants, helpers, stages, then the kernel.

    `stages` replaces both stage functions at once; `decls` is added after the standard
    declarations; `after` follows the loop inside the kernel."""
    if decorator is None:
        decorator = f"@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig({config}))"
    parts = [imports, constants]
    if helpers:
        parts.append(helpers)
    parts.append(stages if stages is not None else f"{mm}\n\n\n{st}")
    body = "\n".join(p for p in (x_db, cube_decls, vec_decls, decls, loop, after) if p)
    parts.append(f"{decorator}\ndef {name}(\n{textwrap.indent(params, '    ')}\n):\n{textwrap.indent(body, '    ')}")
    return "\n\n\n".join(parts) + "\n"


def loop(*body: str, head: str = "for ki in pl.range(0, N):") -> str:
    """A loop with the given body statements (each may be several lines)."""
    return head + "\n" + "\n".join(textwrap.indent(b, "    ") for b in body)


def cube(call: str = MM_CALL, mark: str = "") -> str:
    return f"with pl.section_cube():{mark}\n    {call}"


def vector(call: str = ST_CALL, mark: str = "") -> str:
    return f"with pl.section_vector():{mark}\n    {call}"
