"""Kernels the hostile probes found, each written as the edits that turn a kernel of the
repository into it: the probes' files repeated most of the kernel they started from. `kernel`
gives the text (a file of tests/soundness/kernels/ when there is one)."""

from __future__ import annotations

from pathlib import Path

from helpers import edited

ROOT = Path(__file__).parents[2]
KERNELS = Path(__file__).parent / "kernels"


def kernel(name: str) -> str:
    """The text of kernel `name`: its file, or its base with its edits applied."""
    path = KERNELS / name
    if path.exists():
        return path.read_text()
    base, edits = EDITS[name]
    start = kernel(Path(base).name) if base.startswith("tests/soundness/kernels/") else (ROOT / base).read_text()
    return edited(start, edits)


#: tests/soundness/kernels/dynamic_rows.py with the cube stage given `f`: from `f >= 4096` on it
#: loads the tile of `out` the vector core stored one iteration before (serially after the store,
#: pipelined before it), the shape of every carried-value probe since h149; BEFORE and BODY mark
#: where the code before the loop and the loop body's own lines go (`loads_out`)
LOADS_OUT = [
    ("def mm_stage(ki, a, a_l1,", "def mm_stage(ki, e, a, out, a_l1,"),
    ("    pl.load(cur_a, a, [ki * TILE, 0])\n",
     "    if e >= 2 ** 12:\n        pl.load(cur_a, out, [(ki - 1) * TILE, 0])\n"
     "    else:\n        pl.load(cur_a, a, [ki * TILE, 0])\n"),
    ("    for ki in pl.range(0, n_tiles):\n", "BEFORE    for ki in pl.range(0, n_tiles):\nBODY"),
    ("            mm_stage(ki, a, a_l1,", "            mm_stage(ki, f, a, out, a_l1,"),
]


def loads_out(before: str, body: str) -> str:
    """`LOADS_OUT`'s kernel with `before` the loop and `body` at the start of its body (which
    binds `f`, the value the cube stage tests)."""
    return edited(kernel("dynamic_rows.py"), LOADS_OUT).replace("BEFORE", before).replace("BODY", body)


#: name -> (the kernel it starts from, the edits `(old, new)` that make it)
EDITS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "residue_tile_address.py": ("tests/soundness/kernels/trip_value_defect.py", [
        ("\"\"\"As residue_defect.py, but `mark` changes the scale in the last iteration when n == 13 only: a test\n"
         "of the trip count other than for the empty loop, refused.\"\"\"\n",
         "\"\"\"A scratch tile at UB address `0x8000 - (n % 1 + n) * 0x100`: it moves with the trip count `n`\n"
         "(the residue is 0), and at n = 50 it lands on the second slot of `y_db`, which the previous\n"
         "task's store still reads when pipelined.\"\"\"\n"),
        ("    if ki == n - 1 and n == 13:\n"
         "        st.scale = 2.0\n",
         "    if ki == n - 1:\n"
         "        st.scale = 1.0\n"),
        ("def scale_store(ki, sub_id, scale, out, c_vec_db, y_db):\n",
         "def scale_store(ki, sub_id, scale, out, c_vec_db, y_db, tmp):\n"),
        ("    pl.muls(y, c_vec, scale)\n",
         "    pl.muls(tmp, c_vec, scale)\n"
         "    pl.add(y, tmp, c_vec)\n"),
        ("        )\n"
         "    for ki in pl.range(0, n):\n",
         "        )\n"
         "        tmp = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.V"
         "ec),\n"
         "                           addr=0x8000 - (n % 1 + n) * 0x100)\n"
         "    for ki in pl.range(0, n):\n"),
        ("            scale_store(ki, sub_id, st.scale, out, c_vec_db, y_db)\n",
         "            scale_store(ki, sub_id, st.scale, out, c_vec_db, y_db, tmp)\n"),
    ]),
    "residue_plus_param.py": ("tests/soundness/kernels/dynamic_rows.py", [
        ("\"\"\"x = relu(A_i @ A_i) over as many row tiles as `a` has: its rows are a `pl.DYNAMIC` dimension.\"\"\"\n",
         "\"\"\"out2_i = scale * ones, out_i = A_i @ A_i; the last stage sets scale = 2 in the first iteration\n"
         "when (ki + d) % 7 == 6.\"\"\"\n"),
        ("HALF = TILE // 2\n",
         "HALF = TILE // 2\n"
         "\n"
         "\n"
         "@pl.pipeline.stage\n"
         "def fill(ki, sub_id, scale, out2, z_vec, w_db):\n"
         "    w = w_db.next()\n"
         "    pl.muls(w, z_vec, scale)\n"
         "    pl.store(out2, w, [ki * TILE + sub_id * HALF, 0])\n"),
        ("def scale_store(ki, sub_id, out, c_vec_db, y_db):\n",
         "def scale_store(ki, d, sub_id, st, out, c_vec_db, y_db):\n"),
        ("    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n",
         "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"
         "    if ki == 0 and (ki + d) % 7 == 6:\n"
         "        st.scale = 2.0\n"),
        ("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
         "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n"
         "    out2: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n"
         "    n: pl.DT_INT32,\n"
         "    d: pl.DT_INT32,\n"),
        ("        sub_id = pl.get_subblock_idx()\n",
         "        sub_id = pl.get_subblock_idx()\n"
         "        st = pl.struct(scale=1.0)\n"),
        ("    n_tiles = a.shape[0] // TILE\n"
         "    for ki in pl.range(0, n_tiles):\n",
         "        z_vec = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace"
         ".Vec),\n"
         "                             addr=0x8000)\n"
         "        w_db = pl.make_tile_group(\n"
         "            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "            addrs=0xC000,\n"
         "            mutex_ids=[14, 15],\n"
         "        )\n"
         "        pl.full(z_vec, 1.0)\n"
         "    for ki in pl.range(0, n):\n"
         "        with pl.section_vector():\n"
         "            fill(ki, sub_id, st.scale, out2, z_vec, w_db)\n"),
        ("            scale_store(ki, sub_id, out, c_vec_db, y_db)\n",
         "            scale_store(ki, d, sub_id, st, out, c_vec_db, y_db)\n"),
    ]),
    "struct_unknown_field.py": ("tests/soundness/kernels/residue_plus_param.py", [
        ("\"\"\"out2_i = scale * ones, out_i = A_i @ A_i; the last stage sets scale = 2 in the first iteration\n"
         "when (ki + d) % 7 == 6.\"\"\"\n",
         "\"\"\"out2_i = scale * ones, out_i = relu(A_i @ A_i); the last stage of the first task sets\n"
         "scale = |alpha|. Serially the fill of task 1 scales by |alpha|; pipelined (preload 1) it runs\n"
         "before task 0's last stage and scales by 1.0.\"\"\"\n"),
        ("def scale_store(ki, d, sub_id, st, out, c_vec_db, y_db):\n",
         "def scale_store(ki, alpha, sub_id, st, out, c_vec_db, y_db):\n"),
        ("    if ki == 0 and (ki + d) % 7 == 6:\n"
         "        st.scale = 2.0\n",
         "    if ki == 0:\n"
         "        st.scale = abs(alpha)\n"),
        ("    d: pl.DT_INT32,\n",
         "    alpha: pl.DT_FP32,\n"),
        ("            scale_store(ki, d, sub_id, st, out, c_vec_db, y_db)\n",
         "            scale_store(ki, alpha, sub_id, st, out, c_vec_db, y_db)\n"),
    ]),
    "counter_from_param.py": ("tests/soundness/kernels/residue_plus_param.py", [
        ("\"\"\"out2_i = scale * ones, out_i = A_i @ A_i; the last stage sets scale = 2 in the first iteration\n"
         "when (ki + d) % 7 == 6.\"\"\"\n",
         "\"\"\"A ring of 7 row tiles in `out2`: task i fills row tile (d + i) % 7 with twos (counter `c`,\n"
         "started at the parameter `d`); the last stage of task 0 also stores relu(A_0 @ A_0) into row tile 0.\n"
         "When d % 7 == 6, task 1's fill meets that store, and the pipeline swaps them.\"\"\"\n"),
        ("def fill(ki, sub_id, scale, out2, z_vec, w_db):\n",
         "def fill(ki, c, sub_id, out2, z_vec, w_db):\n"),
        ("    pl.muls(w, z_vec, scale)\n"
         "    pl.store(out2, w, [ki * TILE + sub_id * HALF, 0])\n",
         "    pl.muls(w, z_vec, 2.0)\n"
         "    pl.store(out2, w, [(c % 7) * TILE + sub_id * HALF, 0])\n"),
        ("def scale_store(ki, d, sub_id, st, out, c_vec_db, y_db):\n",
         "def scale_store(ki, sub_id, out2, out, c_vec_db, y_db):\n"),
        ("    if ki == 0 and (ki + d) % 7 == 6:\n"
         "        st.scale = 2.0\n",
         "    if ki == 0:\n"
         "        pl.store(out2, y, [sub_id * HALF, 0])\n"),
        ("    out2: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
         "    out2: pl.Tensor[[7 * TILE, TILE], pl.DT_FP32],\n"),
        ("        st = pl.struct(scale=1.0)\n",
         ""),
        ("        pl.full(z_vec, 1.0)\n",
         "        pl.full(z_vec, 1.0)\n"
         "    c = d\n"),
        ("            fill(ki, sub_id, st.scale, out2, z_vec, w_db)\n",
         "            fill(ki, c, sub_id, out2, z_vec, w_db)\n"),
        ("            scale_store(ki, d, sub_id, st, out, c_vec_db, y_db)\n",
         "            scale_store(ki, sub_id, out2, out, c_vec_db, y_db)\n"
         "        c = c + 1\n"),
    ]),
    "list_length_flag_dynamic.py": ("tests/soundness/kernels/dynamic_rows.py", [
        ("\"\"\"x = relu(A_i @ A_i) over as many row tiles as `a` has: its rows are a `pl.DYNAMIC` dimension.\"\"\"\n",
         "\"\"\"The same list-length flag over a `pl.DYNAMIC` number of tiles: the check's trip counts, up\n"
         "to its bound, never reach the 100 entries that set it.\"\"\"\n"),
        ("HALF = TILE // 2\n",
         "HALF = TILE // 2\n"
         "WARMUP = 100  # tiles before the bias switches on\n"),
        ("def scale_store(ki, sub_id, out, c_vec_db, y_db):\n",
         "def fill_row(ki, sub_id, out, z_vec, w_vec, late):\n"
         "    pl.store(out, z_vec, [ki * TILE + sub_id * HALF, 0])\n"
         "    if late == 1:\n"
         "        pl.full(w_vec, 3.0)\n"
         "\n"
         "\n"
         "@pl.pipeline.stage\n"
         "def scale_store(ki, sub_id, out, c_vec_db, y_db, w_vec):\n"),
        ("    pl.relu(y, c_vec)\n",
         "    pl.relu(y, c_vec)\n"
         "    pl.add(y, y, w_vec)\n"),
        ("        )\n"
         "    n_tiles = a.shape[0] // TILE\n",
         "        )\n"
         "        z_vec = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace"
         ".Vec),\n"
         "                             addr=0x8000)\n"
         "        pl.full(z_vec, 1.0)\n"
         "        w_vec = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace"
         ".Vec),\n"
         "                             addr=0xA000)\n"
         "        pl.full(w_vec, 0.0)\n"
         "        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)\n"
         "        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)\n"
         "    seen = []  # host-side bookkeeping of the tiles issued so far\n"
         "    late = 0\n"
         "    n_tiles = a.shape[0] // TILE\n"),
        ("    for ki in pl.range(0, n_tiles):\n",
         "    for ki in pl.range(0, n_tiles):\n"
         "        seen.append(ki)\n"
         "        late = 1 if len(seen) > WARMUP else 0\n"
         "        with pl.section_vector():\n"
         "            fill_row(ki, sub_id, out, z_vec, w_vec, late)\n"),
        ("            scale_store(ki, sub_id, out, c_vec_db, y_db)\n",
         "            scale_store(ki, sub_id, out, c_vec_db, y_db, w_vec)\n"),
    ]),
    "list_length_flag_static.py": ("tests/soundness/kernels/list_length_flag_dynamic.py", [
        ("\"\"\"The same list-length flag over a `pl.DYNAMIC` number of tiles: the check's trip counts, up\n"
         "to its bound, never reach the 100 entries that set it.\"\"\"\n",
         "\"\"\"A kernel body keeps a list (`seen.append(ki)`) and sets a flag once it holds more than 100\n"
         "entries: past that the stage writes a state tile the next stage reads, which the pipeline\n"
         "reorders. The loop is 300 tiles long; the representative run, 7 tiles, never reaches the flag.\"\"\"\n"),
        ("HALF = TILE // 2\n",
         "HALF = TILE // 2\n"
         "N = 300  # row tiles\n"),
        ("    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n"
         "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
         "    a: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],\n"
         "    out: pl.Tensor[[(N + 16) * TILE, TILE], pl.DT_FP32],\n"),
        ("    n_tiles = a.shape[0] // TILE\n"
         "    for ki in pl.range(0, n_tiles):\n",
         "    for ki in pl.range(0, N):\n"),
    ]),
    "residue_vf_count.py": ("tests/soundness/kernels/store_offset_param.py", [
        ("\"\"\"Two vector stages store rows of `out`: row i is filled with ones, then row i + d (`d` a scalar\n"
         "kernel parameter) gets relu(A_i @ A_i). At d = 1 the second store of task i and the first of\n"
         "task i + 1 meet, and their order is what the pipeline changes.\"\"\"\n",
         "\"\"\"A vector function stores `ki % 1 + n - 84` registers of 64 floats into its tile: the count\n"
         "grows with the trip count `n` (the residue is 0), and past n = 100 the stores leave the tile for\n"
         "the other slot of `y_db`, which the previous task's store still reads when pipelined.\"\"\"\n"),
        ("import pypto_pro.language as pl\n",
         "import pypto_pro.language as pl\n"
         "from pypto_pro.language import Vf as vf\n"),
        ("N = 4\n",
         "\n"
         "\n"
         "@pl.vector_function\n"
         "def fill_vf(t, n):\n"
         "    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n"
         "    x = vf.full(2.0, p32)\n"
         "    for i in pl.range(0, n):\n"
         "        vf.store_align(t + 64 * i, x, p32)\n"),
        ("def scale_store(ki, d, sub_id, out, c_vec_db, y_db):\n",
         "def scale_store(ki, n, sub_id, out, c_vec_db, y_db):\n"),
        ("    c_vec = c_vec_db.next()\n"
         "    y = y_db.next()\n",
         "    c_vec = c_vec_db.next()\n"
         "    pl.relu(c_vec, c_vec)\n"
         "    y = y_db.next()\n"),
        ("    pl.relu(y, c_vec)\n"
         "    pl.store(out, y, [(ki + d) * TILE + sub_id * HALF, 0])\n",
         "    fill_vf(y, ki % 1 + n - 84)\n"
         "    pl.set_validshape(y, [HALF, TILE])\n"
         "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"),
        ("    a: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],\n"
         "    out: pl.Tensor[[(N + 16) * TILE, TILE], pl.DT_FP32],\n"
         "    d: pl.DT_INT32,\n",
         "    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n"
         "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n"),
        ("            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n",
         "            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"),
        ("    for ki in pl.range(0, N):\n",
         "    n = a.shape[0] // TILE\n"
         "    for ki in pl.range(0, n):\n"),
        ("            scale_store(ki, d, sub_id, out, c_vec_db, y_db)\n",
         "            scale_store(ki, n, sub_id, out, c_vec_db, y_db)\n"
         "\n"),
    ]),
    "swap_conditional_stores.py": ("examples/seed_demo.py", [
        ("\"\"\"Demo kernel from the feature description: relu(A @ B) @ D as a 4-stage CV pipeline.\n"
         "\n"
         "One 1:2 CV execution group (block_dim=1): the cube core computes the two matmuls, the two\n"
         "vector cores (AIV 0 and 1) each handle one half of every tile along M.\n"
         "\n"
         "Stages, in loop order (cube and vector alternate):\n"
         "  stage1 (cube)   mm1 = A_i @ B          -> mm1_vec_db   (cross-core, Vec)\n"
         "  stage2 (vector) relu, to NZ, insert    -> p_mat_db     (cross-core, Mat)\n"
         "  stage3 (cube)   mm2 = relu(mm1) @ D    -> out_vec_db   (cross-core, Vec)\n"
         "  stage4 (vector) store this AIV's half of the result to GM\n"
         "\n"
         "The kernel is written SERIALLY and contains no cross-core synchronisation; the pipeline\n"
         "transform inserts all of it.\n"
         "\"\"\"\n",
         "\"\"\"The demo with stage 2 of task k + 1 and stage 4 of task k storing one row tile of `out`, each\n"
         "under `if thr > 0.0:` (a float parameter): serially stage 4 stores first, pipelined stage 2\n"
         "does, and `out` keeps the other stage's rows.\"\"\"\n"),
        ("import pytest\n"
         "import torch\n"
         "import torch_npu  # noqa: F401  (registers the NPU device with torch)\n"
         "\n"
         "import pypto\n",
         ""),
        ("def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):\n",
         "def stage2(ki, sub_id, thr, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):\n"),
        ("    pl.insert(p_mat, relu_nz, [sub_id * TILE_HALF, 0])\n",
         "    pl.insert(p_mat, relu_nz, [sub_id * TILE_HALF, 0])\n"
         "    if thr > 0.0:\n"
         "        pl.store(out, relu_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n"),
        ("def stage4(ki, sub_id, out, out_vec_db):\n",
         "def stage4(ki, sub_id, thr, out, out_vec_db):\n"),
        ("    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n",
         "    if thr > 0.0:\n"
         "        pl.store(out, out_vec, [(ki + 1) * TILE + sub_id * TILE_HALF, 0])\n"),
        ("    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n",
         "    out: pl.Tensor[[(N_ITER + 1) * TILE, TILE], pl.DT_FP32],\n"
         "    thr: pl.DT_FP32,\n"),
        ("            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n",
         "            stage2(ki, sub_id, thr, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n"),
        ("            stage4(ki, sub_id, out, out_vec_db)\n",
         "            stage4(ki, sub_id, thr, out, out_vec_db)\n"),
        ("@pytest.mark.soc(950)\n"
         "@pypto.options(pass_options={\"enable_slice\": False})\n"
         "def test_pipeline_demo_kernel():\n"
         "    device = ST_DEVICE\n"
         "    torch.npu.set_device(device)\n"
         "    torch.manual_seed(0)\n"
         "    a = torch.randn(N_ITER * TILE, TILE, device=device, dtype=torch.float32)\n"
         "    b = torch.randn(TILE, TILE, device=device, dtype=torch.float32)\n"
         "    d = torch.randn(TILE, TILE, device=device, dtype=torch.float32)\n"
         "    out = torch.zeros(N_ITER * TILE, TILE, device=device, dtype=torch.float32)\n"
         "    pipeline_demo_kernel[None, 1](a, b, d, out)\n"
         "    torch.npu.synchronize()\n"
         "    ref = torch.relu(a @ b) @ d\n"
         "    torch.testing.assert_close(out, ref, rtol=1e-2, atol=1e-2)\n",
         ""),
    ]),
    "swap_scatter_stores.py": ("tests/soundness/kernels/swap_conditional_stores.py", [
        ("\"\"\"The demo with stage 2 of task k + 1 and stage 4 of task k storing one row tile of `out`, each\n"
         "under `if thr > 0.0:` (a float parameter): serially stage 4 stores first, pipelined stage 2\n"
         "does, and `out` keeps the other stage's rows.\"\"\"\n",
         "\"\"\"The demo with stage 2 and stage 4 storing at a row read from GM (`dest[ki]`): where task\n"
         "k's stage 4 and task k + 1's stage 2 pick one row, serially stage 4 stores first, pipelined\n"
         "stage 2 does, and `out` keeps the other stage's rows.\"\"\"\n"),
        ("def stage2(ki, sub_id, thr, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):\n",
         "def stage2(ki, sub_id, r, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):\n"),
        ("    if thr > 0.0:\n"
         "        pl.store(out, relu_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n",
         "    if sub_id == 0:\n"
         "        pl.store(out, relu_vec, [r * TILE, 0])\n"),
        ("def stage4(ki, sub_id, thr, out, out_vec_db):\n",
         "def stage4(ki, sub_id, r, out, out_vec_db):\n"),
        ("    if thr > 0.0:\n"
         "        pl.store(out, out_vec, [(ki + 1) * TILE + sub_id * TILE_HALF, 0])\n",
         "    if sub_id == 0:\n"
         "        pl.store(out, out_vec, [(r + 1) * TILE, 0])\n"),
        ("    a: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n",
         "    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n"),
        ("    thr: pl.DT_FP32,\n",
         "    dest: pl.Tensor[[pl.DYNAMIC], pl.DT_INT32],\n"),
        ("    for ki in pl.range(0, N_ITER):\n",
         "    n_tiles = a.shape[0] // TILE\n"
         "    for ki in pl.range(0, n_tiles):\n"
         "        r = pl.min(pl.max(dest[ki], 0), N_ITER - 1)\n"),
        ("            stage2(ki, sub_id, thr, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n",
         "            stage2(ki, sub_id, r, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n"),
        ("            stage4(ki, sub_id, thr, out, out_vec_db)\n",
         "            stage4(ki, sub_id, r, out, out_vec_db)\n"),
    ]),
    "swap_tail_stores.py": ("tests/soundness/kernels/swap_conditional_stores.py", [
        ("under `if thr > 0.0:` (a float parameter): serially stage 4 stores first, pipelined stage 2\n"
         "does, and `out` keeps the other stage's rows.\"\"\"\n",
         "with a valid shape known only at run time (`pl.min(TILE_HALF, rows - ...)`): serially stage 4\n"
         "stores first, pipelined stage 2 does, and `out` keeps the other stage's rows.\"\"\"\n"),
        ("def stage2(ki, sub_id, thr, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):\n",
         "def stage2(ki, sub_id, rows, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):\n"),
        ("    if thr > 0.0:\n"
         "        pl.store(out, relu_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n",
         "    pl.set_validshape(relu_vec, [pl.min(TILE_HALF, rows - ki * TILE - sub_id * TILE_HALF), TILE])\n"
         "    pl.store(out, relu_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n"),
        ("def stage4(ki, sub_id, thr, out, out_vec_db):\n",
         "def stage4(ki, sub_id, rows, out, out_vec_db):\n"),
        ("    if thr > 0.0:\n"
         "        pl.store(out, out_vec, [(ki + 1) * TILE + sub_id * TILE_HALF, 0])\n",
         "    pl.set_validshape(out_vec, [pl.min(TILE_HALF, rows - (ki + 1) * TILE - sub_id * TILE_HALF), TILE])\n"
         "    pl.store(out, out_vec, [(ki + 1) * TILE + sub_id * TILE_HALF, 0])\n"),
        ("    out: pl.Tensor[[(N_ITER + 1) * TILE, TILE], pl.DT_FP32],\n"
         "    thr: pl.DT_FP32,\n",
         "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n"),
        ("    # The pipeline loop: the 4 stages, cube and vector alternating\n",
         "    # The pipeline loop: the 4 stages, cube and vector alternating\n"
         "    rows = out.shape[0]\n"),
        ("            stage2(ki, sub_id, thr, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n",
         "            stage2(ki, sub_id, rows, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n"),
        ("            stage4(ki, sub_id, thr, out, out_vec_db)\n",
         "            stage4(ki, sub_id, rows, out, out_vec_db)\n"),
    ]),
    "outer_barrier_crossed_by_drain.py": ("tests/soundness/kernels/swap_conditional_stores.py", [
        ("\"\"\"The demo with stage 2 of task k + 1 and stage 4 of task k storing one row tile of `out`, each\n"
         "under `if thr > 0.0:` (a float parameter): serially stage 4 stores first, pipelined stage 2\n"
         "does, and `out` keeps the other stage's rows.\"\"\"\n"
         "\n"
         "import os\n",
         "\"\"\"Layers of a pipelined inner loop, `pl.system.sync_all()` after each (\"layer done on every\n"
         "block\"), blocks exchanging rows of a GM workspace `ws` picked by `core_id % 8`. Pipelined, the\n"
         "inner loop's last tasks run after the barrier and race with another block's load.\"\"\"\n"),
        ("\n"
         "ST_DEVICE_ID = int(os.environ.get(\"TILE_FWK_DEVICE_ID\", 0))\n"
         "ST_DEVICE = f\"npu:{ST_DEVICE_ID}\"\n",
         ""),
        ("N_ITER = 4\n",
         "N_ITER = 4\n"
         "S = N_ITER + 1  # ws slots of one block\n"),
        ("def stage1(ki, a, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db):\n",
         "def stage1(ki, rd, ws, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db):\n"),
        ("    pl.load(cur_a, a, [ki * TILE, 0])\n",
         "    pl.load(cur_a, ws, [rd * TILE, 0])\n"),
        ("def stage2(ki, sub_id, thr, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):\n",
         "def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):\n"),
        ("    if thr > 0.0:\n"
         "        pl.store(out, relu_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n",
         ""),
        ("def stage3(ki, d_l1, p_mat_db, left_db, right_db, acc_db, out_vec_db):\n",
         "def stage3(ki, wr, ws, d_l1, p_mat_db, left_db, right_db, acc_db, out_vec_db):\n"),
        ("    pl.matmul(acc, left, right)\n"
         "    out_vec = out_vec_db.next()\n",
         "    pl.matmul(acc, left, right)\n"
         "    pl.store(ws, acc, [wr * TILE, 0])\n"
         "    out_vec = out_vec_db.next()\n"),
        ("def stage4(ki, sub_id, thr, out, out_vec_db):\n",
         "def stage4(ki, sub_id, out, out_vec_db):\n"),
        ("    if thr > 0.0:\n"
         "        pl.store(out, out_vec, [(ki + 1) * TILE + sub_id * TILE_HALF, 0])\n",
         "    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n"),
        ("    a: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n",
         ""),
        ("    out: pl.Tensor[[(N_ITER + 1) * TILE, TILE], pl.DT_FP32],\n"
         "    thr: pl.DT_FP32,\n",
         "    out: pl.Tensor[[16 * N_ITER * TILE, TILE], pl.DT_FP32],\n"
         "    ws: pl.Tensor[[48 * S * TILE, TILE], pl.DT_FP32],\n"),
        ("    # The pipeline loop: the 4 stages, cube and vector alternating\n"
         "    for ki in pl.range(0, N_ITER):\n",
         "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
         "    slot = core_id % 8  # ws: per layer q, 16 rows of S slots; block c feeds row c % 8 + 1 of layer q + 1\n"
         "    for q in pl.range(0, 2):\n"
         "      for ki in pl.range(0, N_ITER):\n"
         "        rd = (q * 16 + slot) * S + ki\n"
         "        wr = ((q + 1) * 16 + slot + 1) * S + ki\n"
         "        o = (core_id * 2 + q) * N_ITER + ki\n"),
        ("            stage1(ki, a, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db)\n",
         "            stage1(ki, rd, ws, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db)\n"),
        ("            stage2(ki, sub_id, thr, out, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n",
         "            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)\n"),
        ("            stage3(ki, d_l1, p_mat_db, left_db, right_db, acc_db, out_vec_db)\n",
         "            stage3(ki, wr, ws, d_l1, p_mat_db, left_db, right_db, acc_db, out_vec_db)\n"),
        ("            stage4(ki, sub_id, thr, out, out_vec_db)\n",
         "            stage4(o, sub_id, out, out_vec_db)\n"
         "      # layer q is complete on every block before any block reads it in layer q + 1\n"
         "      pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"),
    ]),
    "barrier_in_loop_derived_slot.py": ("tests/soundness/kernels/outer_barrier_crossed_by_drain.py", [
        ("\"\"\"Layers of a pipelined inner loop, `pl.system.sync_all()` after each (\"layer done on every\n"
         "block\"), blocks exchanging rows of a GM workspace `ws` picked by `core_id % 8`. Pipelined, the\n"
         "inner loop's last tasks run after the barrier and race with another block's load.\"\"\"\n",
         "\"\"\"Blocks hand rows to one another through a GM workspace `ws`, its row picked by `core_id % 8`,\n"
         "with `pl.system.sync_all()` ending each iteration. Pipelined, the delayed cube stage runs after\n"
         "that barrier and races with the next block's load (serial ok at every block count).\"\"\"\n"),
        ("    \"\"\"Cube: mm1 = A_i @ B.\"\"\"\n",
         "    \"\"\"Cube: mm1 = ws[rd] @ B (rd: the row the previous block handed this block).\"\"\"\n"),
        ("    \"\"\"Cube: mm2 = relu(mm1) @ D.\"\"\"\n",
         "    \"\"\"Cube: mm2 = relu(mm1) @ D, handed on to the next block through ws[wr].\"\"\"\n"),
        ("    out: pl.Tensor[[16 * N_ITER * TILE, TILE], pl.DT_FP32],\n"
         "    ws: pl.Tensor[[48 * S * TILE, TILE], pl.DT_FP32],\n",
         "    out: pl.Tensor[[8 * N_ITER * TILE, TILE], pl.DT_FP32],\n"
         "    ws: pl.Tensor[[64 * TILE, TILE], pl.DT_FP32],\n"),
        ("    slot = core_id % 8  # ws: per layer q, 16 rows of S slots; block c feeds row c % 8 + 1 of layer q + 1\n"
         "    for q in pl.range(0, 2):\n"
         "      for ki in pl.range(0, N_ITER):\n"
         "        rd = (q * 16 + slot) * S + ki\n"
         "        wr = ((q + 1) * 16 + slot + 1) * S + ki\n"
         "        o = (core_id * 2 + q) * N_ITER + ki\n",
         "    slot = core_id % 8  # ws holds 8 rows of S slots; block c reads row c % 8 and feeds row c % 8 + 1\n"
         "    for ki in pl.range(0, N_ITER):\n"
         "        rd = slot * S + ki\n"
         "        wr = (slot + 1) * S + ki + 1\n"
         "        o = core_id * N_ITER + ki\n"),
        ("      # layer q is complete on every block before any block reads it in layer q + 1\n"
         "      pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n",
         "        # every block has handed on step ki before any block reads it in step ki + 1\n"
         "        pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"),
    ]),
    "tiling_key_instance_bar.py": ("tests/soundness/kernels/pipe_bar_orders_nothing.py", [
        ("\"\"\"Vector cores: out = relu(a), handing \"done\" to the cube; load -> compute -> store ordered by pipe b"
         "arriers.\"\"\"\n",
         "\"\"\"out = relu(a) on the vector cores, the cube told when it is done; the MTE2 -> V order picked by a til"
         "ing key.\"\"\"\n"),
        ("import pypto_pro.language as pl\n",
         "import pypto_pro.language as pl\n"
         "from pypto_pro.runtime.tilingkey import TilingKeyField\n"),
        ("@pl.jit(auto_mutex=True)\n"
         "def bar_kernel(\n",
         "class SyncKey:\n"
         "    LightSync = TilingKeyField(bits=1, values=[0, 1])\n"
         "\n"
         "\n"
         "@pl.jit(auto_mutex=True, tiling_key=SyncKey)\n"
         "def relu_kernel(\n"),
        ("        pl.system.bar_mte2()\n",
         "        if LightSync == 1:  # noqa: F821\n"
         "            pl.system.bar_mte2()\n"
         "        else:\n"
         "            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
         "            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"),
        ("        pl.system.bar_v()\n",
         "        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)\n"
         "        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)\n"),
    ]),
    "block_min_place.py": ("tests/soundness/kernels/cube_store_pair_slot.py", [
        ("\"\"\"The cube stores `mid` at rows picked by the block index halved: blocks 0 and 1 store the same rows,\n"
         "which nothing orders (a race from two blocks on, in the serial kernel too).\"\"\"\n",
         "\"\"\"The cube stores `mid` at rows picked by the block index clamped to 1 (`min(core_id, 1)`): every\n"
         "block past the first stores the same rows, which nothing orders (a race from three blocks on).\"\"\"\n"),
        ("    c2 = core_id // 2\n",
         "    c2 = min(core_id, 1)\n"),
    ]),
}
