"""The kernel skeleton the tests build their kernels from.

Most test kernels (and the rules' example kernels, written out whole in
`pto_transpile/rules/examples/`) are the same small two-stage pipeline with one part
changed, so the parts live here once:

    mm (cube)   x = A_i @ A_i, moved from Acc to the cross-core Vec buffer `x_db`
    st (vector) out[i] = x (each AIV stores its half)

`kernel(...)` returns the complete file text; each keyword replaces one part (given
without indentation, it is indented to where it belongs). Lines marked `# E: PTOxxx` are
where the rule's test expects a diagnostic.
"""

from __future__ import annotations

import textwrap


class Text(str):
    """Example source whose `.replace` must match: an edit that silently missed would leave
    the unedited kernel, and its test would check the wrong thing. Concatenations and
    further edits stay checked."""

    def replace(self, old, new, count=-1):
        if old not in self:
            raise ValueError(f"example edit did not match: {old[:80]!r}")
        return Text(str.replace(self, old, new, count))

    def __add__(self, other):
        return Text(str.__add__(self, other))

    def __radd__(self, other):
        return Text(str.__add__(other, self))

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
    return Text("\n".join(lines))


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
    return Text("\n\n\n".join(parts) + "\n")


def loop(*body: str, head: str = "for ki in pl.range(0, N):") -> str:
    """A loop with the given body statements (each may be several lines)."""
    return Text(head + "\n" + "\n".join(textwrap.indent(b, "    ") for b in body))


def cube(call: str = MM_CALL, mark: str = "") -> str:
    return Text(f"with pl.section_cube():{mark}\n    {call}")


def vector(call: str = ST_CALL, mark: str = "") -> str:
    return Text(f"with pl.section_vector():{mark}\n    {call}")


#: the four stages of the feature description's demo, relu(A @ B) @ B:
#:   mm1 (cube) -> x_db (Vec) -> act (vector) -> p_db (Mat) -> mm2 (cube) -> y_db (Vec) -> st (vector)
MM1 = '''\
@pl.pipeline.stage
def mm1(ki, a, b_slot, a_l1, left_db, right_db, acc_db, x_db):
    cur_a = a_l1.next()
    pl.load(cur_a, a, [ki * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, b_slot)
    pl.matmul(acc, left, right)
    x = x_db.next()
    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)'''

ACT = '''\
@pl.pipeline.stage
def act(sub_id, x_db, r_db, nz_db, p_db):
    x = x_db.next()
    r = r_db.next()
    pl.relu(r, x)
    nz = nz_db.next()
    pl.move(nz, r)
    p = p_db.next()
    pl.insert(p, nz, [sub_id * HALF, 0])'''

MM2 = '''\
@pl.pipeline.stage
def mm2(b_slot, p_db, left_db, right_db, acc_db, y_db):
    p = p_db.next()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, p)
    pl.move(right, b_slot)
    pl.matmul(acc, left, right)
    y = y_db.next()
    pl.move(y, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)'''

ST4 = '''\
@pl.pipeline.stage
def st(ki, sub_id, out, y_db):
    y = y_db.next()
    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])'''

PARAMS4 = """\
a: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],"""

CROSS4 = "\n".join([
    group("x_db", "Vec", "0x0", "[0, 1]", "[0, 1]", "[2, 3]"),
    group("p_db", "Mat", "0x10000", "[14, 15]", "[4, 5]", "[6, 7]", "[TILE, TILE]"),
    group("y_db", "Vec", "0x2000", "[16, 17]", "[8, 9]", "[10, 11]"),
])

CUBE4 = "\n".join([
    CUBE_DECLS,
    textwrap.indent(group("b_l1", "Mat", "0x8000", "[3]", None, None, "[TILE, TILE]"), "    "),
    "    b_slot = b_l1.current()",
    "    pl.load(b_slot, b, [0, 0])",
])

VEC4 = "\n".join([
    VEC_DECLS,
    textwrap.indent(group("r_db", "Vec", "0x4000", "[18, 19]", None, None), "    "),
    textwrap.indent(group("nz_db", "Vec", "0x6000", "[20, 21]", None, None, extra="").replace(
        "target_memory=pl.MemorySpace.Vec)", "target_memory=pl.MemorySpace.Vec, layout=pl.NZ)"), "    "),
])

MM1_CALL = "mm1(ki, a, b_slot, a_l1, left_db, right_db, acc_db, x_db)"
ACT_CALL = "act(sub_id, x_db, r_db, nz_db, p_db)"
MM2_CALL = "mm2(b_slot, p_db, left_db, right_db, acc_db, y_db)"
ST4_CALL = "st(ki, sub_id, out, y_db)"


def kernel4(*, mm1: str = MM1, act: str = ACT, mm2: str = MM2, st: str = ST4, calls=None,
            cross: str = CROSS4, **kw) -> str:
    """The four-stage demo; `calls` replaces the four stage calls (cube, vector, cube, vector)."""
    c = calls or (MM1_CALL, ACT_CALL, MM2_CALL, ST4_CALL)
    kw.setdefault("loop", loop(cube(c[0]), vector(c[1]), cube(c[2]), vector(c[3])))
    kw.setdefault("params", PARAMS4)
    kw.setdefault("cube_decls", CUBE4)
    kw.setdefault("vec_decls", VEC4)
    return kernel(stages="\n\n\n".join([mm1, act, mm2, st]), x_db=cross, **kw)


#: a vector stage that computes relu(x) into a local tile `y` before storing it; used by
#: the address-reuse examples, where `y_db` shares UB addresses with the cross-core `x_db`
ST_RELU = '''\
@pl.pipeline.stage
def st(ki, sub_id, out, x_db, y_db):
    x = x_db.next()
    y = y_db.next()
    pl.relu(y, x)
    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])'''

ST_RELU_CALL = "st(ki, sub_id, out, x_db, y_db)"


def reuse_kernel(*locals_: str, **kw) -> str:
    """The two-stage kernel with ST_RELU; `locals_` are vector-side group declarations."""
    vec = "\n".join([VEC_DECLS] + [textwrap.indent(d, "    ") for d in locals_])
    kw.setdefault("loop", loop(cube(), vector(ST_RELU_CALL)))
    return kernel(st=ST_RELU, vec_decls=vec, **kw)


#: a vector stage that adds a block picked in the OUTER loop (`q`, one slot per outer
#: iteration) to the cross-core tile before storing the sum
ST_Q = '''\
@pl.pipeline.stage
def st(ki, sub_id, out, x_db, q):
    x = x_db.next()
    pl.add(q, q, x)
    pl.store(out, q, [ki * TILE + sub_id * HALF, 0])'''


def outer_pick_kernel(q_tiles: int, inner: str = "pl.range(0, 1)", mark: str = "", **kw) -> str:
    """Two blocks of an outer loop; each picks `q` from a vector-local group of `q_tiles`
    tiles and runs the 2-stage pipeline over `inner`, handing `q` to the delayed `st`."""
    mutex = "[" + ", ".join(str(20 + i) for i in range(q_tiles)) + "]"
    vec = "\n".join([VEC_DECLS, textwrap.indent(group("q_db", "Vec", "0x4000", mutex, None, None), "    ")])
    body = loop(
        "with pl.section_vector():\n    q = q_db.next()\n    pl.load(q, a, [b * HALF, 0])",
        loop(cube(), vector(f"st(ki, sub_id, out, x_db, q){mark}"), head=f"for ki in {inner}:"),
        head="for b in pl.range(0, 4):",
    )
    kw.setdefault("loop", body)
    return kernel(st=ST_Q, vec_decls=vec, **kw)


#: a vector stage that takes its output row from a struct field (`pos.row`)
ST_POS = '''\
@pl.pipeline.stage
def st(pos, out, x_db):
    x = x_db.next()
    pl.store(out, x, [pos.row, 0])'''


#: a kernel pipelined by hand: the author placed the syncs, primed the release ids and drains them
HAND_PIPELINED = kernel(
    decorator="@pl.jit(auto_mutex=True)",
    decls="with pl.section_vector():\n"
          "    pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=2)\n"
          "    pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=3)",
    loop=loop(
        cube("pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=2 + ki % 2)\n    " + MM_CALL
             + "\n    pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=ki % 2)"),
        vector("pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=ki % 2)\n    " + ST_CALL
               + "\n    pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=2 + ki % 2)"),
    ),
    after="with pl.section_cube():\n"
          "    pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=2)\n"
          "    pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=3)",
)


# every module-level example text is checked on edit too
for _name, _value in list(globals().items()):
    if _name.isupper() and isinstance(_value, str) and not isinstance(_value, Text):
        globals()[_name] = Text(_value)
