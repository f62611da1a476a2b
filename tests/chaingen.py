"""Random serial CV kernels: chains of 2-5 alternating stages handing tiles across cores.

Each generated file is a complete kernel in the style of the seed demo. Cube stages
multiply (Acc -> UB with DualModeSplitM to hand over, or store to GM when last); vector
stages scale by a zone-1 scalar and apply relu (UB -> L1 `insert` to hand over, or store
when last). Cross-core buffers get 1-4 tiles, one id per tile or a single shared id, and
sometimes no `bwd_ids` (forward-only). Used by the differential tests: whenever the
transpiler accepts a kernel without warnings, the pipelined kernel must compute bit for
bit what the serial kernel computes, on the emulator.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

HEADER = '''"""Generated chain: {desc}"""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2
N = {n}
NB = {nb}
'''


@dataclass
class Chain:
    text: str
    kernel: str
    preload: int
    desc: str


class _Alloc:
    """Non-overlapping byte addresses per memory space."""

    def __init__(self):
        self.next = {"Vec": 0, "Mat": 0, "Left": 0, "Right": 0, "Acc": 0}

    def take(self, space: str, size: int) -> int:
        addr = self.next[space]
        self.next[space] = addr + size
        return addr


def _group(name, space, shape, tiles, alloc, mutex, fwd=None, bwd=None, layout=None, indent="    "):
    size = shape[0] * shape[1] * 4
    addr = alloc.take(space, size * tiles)
    lay = f", layout=pl.{layout}" if layout else ""
    lines = [f"{name} = pl.make_tile_group(",
             f"    type=pl.TileType(shape=[{shape[0]}, {shape[1]}], dtype=pl.DT_FP32, "
             f"target_memory=pl.MemorySpace.{space}{lay}),",
             f"    addrs={hex(addr)},",
             f"    mutex_ids={mutex},"]
    if fwd is not None:
        lines.append(f"    fwd_ids={fwd},")
    if bwd is not None:
        lines.append(f"    bwd_ids={bwd},")
    lines.append(")")
    return "\n".join(indent + line for line in lines)


def generate(seed: int) -> Chain:
    rng = random.Random(seed)
    n_stages = rng.randint(2, 5)
    first = rng.choice(["cube", "vector"])
    cores = [first if i % 2 == 0 else ("vector" if first == "cube" else "cube") for i in range(n_stages)]
    preload = rng.randint(0, 3)
    n = rng.randint(2, 6)
    # nested: an outer block loop, row offsets from a struct field set in zone 1, and a
    # block `q` picked once per outer iteration and added by the last vector stage
    nested = rng.random() < 0.5
    nb = rng.randint(2, 3) if nested else 1
    q_tiles = rng.randint(1, 3)
    key, row = ("pos", "pos.row") if nested else ("ki", "ki")
    q_stage = max(i for i, c in enumerate(cores) if c == "vector") if nested else -1
    alloc = _Alloc()
    mutex_next = itertools.cycle(range(0, 32))  # ids may repeat across groups (pto_api 4.2); rarely needed
    ids = list(range(16))

    lists_left = 2 * (n_stages - 1)

    def take_ids(count):
        """`count` fresh ids, or a single one when that would starve the lists still to come."""
        nonlocal ids, lists_left
        lists_left -= 1
        if len(ids) - count < lists_left:
            count = 1
        out, ids = ids[:count], ids[count:]
        return out

    buffers = []  # (name, space, tiles, fwd, bwd)
    for i in range(n_stages - 1):
        tiles = rng.randint(1, 4) if rng.random() < 0.5 else rng.randint(preload + 1, preload + 2)
        space = "Vec" if cores[i] == "cube" else "Mat"
        fwd = take_ids(tiles if rng.random() < 0.7 else 1)
        bwd = take_ids(tiles if rng.random() < 0.7 else 1)
        if rng.random() < 0.25:
            bwd = None  # forward-only: the user asserts there are enough tiles
        buffers.append((f"h{i}", space, tiles, fwd, bwd))

    stages, calls = [], []
    for i, core in enumerate(cores):
        src = buffers[i - 1][0] if i > 0 else None
        dst = buffers[i][0] if i < n_stages - 1 else None
        name = f"s{i}"
        if core == "cube":
            params = [key, "a", "out", "a_l1", "d_slot", "left_db", "right_db", "acc_db"] + [b for b in (src, dst) if b]
            body = []
            if src is None:
                body += ["at = a_l1.next()", f"pl.load(at, a, [{row} * TILE, 0])",
                         "left = left_db.next()", "pl.move(left, at)"]
            else:
                body += [f"m = {src}.next()", "left = left_db.next()", "pl.move(left, m)"]
            body += ["right = right_db.next()", "pl.move(right, d_slot)",
                     "acc = acc_db.next()", "pl.matmul(acc, left, right)"]
            if dst is None:
                body += [f"pl.store(out, acc, [{row} * TILE, 0])"]
            else:
                body += [f"x = {dst}.next()", "pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)"]
        else:
            params = [key, "sc", "sub_id", "a", "out", "v_db", "nz_db"] + [b for b in (src, dst) if b] \
                + (["q"] if i == q_stage else [])
            body = ["v = v_db.next()"]
            if src is None:
                body += [f"pl.load(v, a, [{row} * TILE + sub_id * HALF, 0])"]
            else:
                body += [f"x = {src}.next()", "pl.relu(v, x)"]
            body += ["pl.muls(v, v, sc)"] + (["pl.add(v, v, q)"] if i == q_stage else [])
            if dst is None:
                body += [f"pl.store(out, v, [{row} * TILE + sub_id * HALF, 0])"]
            else:
                body += ["nz = nz_db.next()", "pl.move(nz, v)",
                         f"p = {dst}.next()", "pl.insert(p, nz, [sub_id * HALF, 0])"]
        body_text = "\n".join("    " + b for b in body)
        stages.append(f"@pl.pipeline.stage\ndef {name}({', '.join(params)}):\n{body_text}")
        split = rng.randint(0, len(params)) if rng.random() < 0.3 else len(params)  # some keyword arguments
        args = params[:split] + [f"{q}={q}" for q in params[split:]]
        calls.append((core, f"{name}({', '.join(args)})"))

    decls = []
    for name, space, tiles, fwd, bwd in buffers:
        shape = (16, 32) if space == "Vec" else (32, 32)
        mutex = [next(mutex_next) for _ in range(tiles)]
        decls.append(_group(name, space, shape, tiles, alloc, mutex, fwd, bwd, layout="NZ" if space == "Mat" else None))
    cube_decls = ["    with pl.section_cube():"]
    for nm, sp, sh, t, lay in (("a_l1", "Mat", (32, 32), 2, "NZ"), ("d_l1", "Mat", (32, 32), 1, "NZ"),
                               ("left_db", "Left", (32, 32), 2, "NZ"), ("right_db", "Right", (32, 32), 2, "ZN"),
                               ("acc_db", "Acc", (32, 32), 2, "NZ")):
        mutex = [next(mutex_next) for _ in range(t)]
        cube_decls.append(_group(nm, sp, sh, t, alloc, mutex, layout=lay, indent="        "))
    cube_decls += ["        d_slot = d_l1.current()", "        pl.load(d_slot, d, [0, 0])"]
    vec_decls = ["    with pl.section_vector():", "        sub_id = pl.get_subblock_idx()"]
    for nm, lay in (("v_db", None), ("nz_db", "NZ")):
        mutex = [next(mutex_next) for _ in range(2)]
        vec_decls.append(_group(nm, "Vec", (16, 32), 2, alloc, mutex, layout=lay, indent="        "))
    if nested:
        vec_decls.append(_group("q_db", "Vec", (16, 32), q_tiles, alloc, [next(mutex_next) for _ in range(q_tiles)],
                                indent="        "))
        vec_decls.append("    pos = pl.struct(row=0)")
    inner = ["for ki in pl.range(0, N):", "    sc = ki * 0.5 + 1.0  # zone 1: a per-iteration scalar"]
    if nested:
        inner.append("    pos.row = b * N + ki")
    for core, call in calls:
        inner += [f"    with pl.section_{core}():", f"        {call}"]
    if nested:
        outer = ["for b in pl.range(0, NB):", "    with pl.section_vector():", "        q = q_db.next()",
                 "        pl.load(q, a, [b * TILE, 0])"]
        loop = ["    " + line for line in outer] + ["        " + line for line in inner]
    else:
        loop = ["    " + line for line in inner]
    desc = " -> ".join(f"{c}" for c in cores) + f"; tiles {[b[2] for b in buffers]}; " \
        + f"bwd {[b[4] is not None for b in buffers]}; preload {preload}; N={n}" \
        + (f"; nested NB={nb}, q tiles {q_tiles}" if nested else "")
    kernel = "\n".join([
        f"@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload={preload}))",
        "def chain(",
        "    a: pl.Tensor[[NB * N * TILE, TILE], pl.DT_FP32],",
        "    d: pl.Tensor[[TILE, TILE], pl.DT_FP32],",
        "    out: pl.Tensor[[NB * N * TILE, TILE], pl.DT_FP32],",
        "):",
        *decls, *cube_decls, *vec_decls, *loop,
    ])
    text = HEADER.format(desc=desc, n=n, nb=nb) + "\n\n" + "\n\n\n".join(stages) + "\n\n\n" + kernel + "\n"
    return Chain(text, "chain", preload, desc)
