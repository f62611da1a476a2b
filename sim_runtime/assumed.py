"""Facts the hardware documentation leaves open, and the reading sim_runtime takes for each.

Every entry is the most plausible reading of the sources, kept here (and only here) so it
can be changed in one place once the hardware answers. Code that depends on one of them
names it in its docstring. Readings that have no alternative implementation are listed
here rather than given a switch:

* A vector function's body runs in program order. Without `vf.mem_bar` the hardware may
  reorder a load after an earlier store to the same address; real kernels put a barrier
  there, and the emulator does not model the reordering.
* `pl.load` writes only the valid window; the rest of the tile keeps its bytes (the CPU
  simulator pads, the tutorial says the padding is "not necessarily 0").
* A dual-mode Acc -> Vec move writes each AIV's half from (0, 0) through the UB tile's own
  layout and leaves its valid shape unchanged (only ND destinations are documented).
* `sync_src`/`sync_dst` flags count: each `sync_dst` consumes the oldest unconsumed
  `sync_src` with the same (set pipe, wait pipe, id); whether the hardware flag is a
  counter or a single bit is not stated.
* Inactive lanes of a register-op result are 0 (MergeMode.ZEROING). Code generation passes
  MODE_ZEROING by default (the ISA notes' "left unchanged" describes the mode-less form);
  `vf.exp_sub`, emitted without a mode operand, is read the same way. With MERGING the
  inactive lanes keep the register the result is assigned to (`acc = vf.add(..., mode=
  MERGING)` reads `acc`); a width-changing `vf.astype` with MERGING is not emulated (which
  lanes it keeps is not documented).
* The padding row of a `[65, 64]` NZ tile is never written and never read; its content is
  undefined and nothing depends on it.
* A kernel without any `section_cube` is compiled aiv-only, one AIV per block (the JIT
  decides "pure vector" as "no `section_cube`"), so a kernel with no section at all runs
  once per block on an AIV, not on a cube and two vector cores: the documented GM
  `getval`/`setval` kernel (`t[1] = t[0]`, no section) then writes once, not three times.
* A scalar (pipe S) access and a later access by another pipe of the same core to the same
  bytes are unordered without a sync: `setval`/`getval` on tiles need MTE2 -> S and S ->
  MTE3 syncs, and nothing exempts GM tensors or `pl.dump_data` (pipe V). So writing a GM
  tensor with `t[i] = x` and then printing it with `pl.dump_data(t)` is a race unless an S ->
  V `sync_src`/`sync_dst` pair separates them.
* The Acc unit flag of `phase=` (`pto_api.sync.UNIT_FLAG`): the docs state its rules "for
  the same block of L0C"; the emulator keeps one flag per Acc region (the declared bytes of
  the call's Acc tile in its cube core's L0C), 0 at launch, and refuses phase calls on two
  regions that overlap without being equal. The flag is followed in program order on its
  core: a call that finds the other value than it waits for is reported as a hang, even
  where a later op of the core on the other pipe might have changed it first.
* Timing: every number of the cost model (bandwidths, cube and vector rates, issue cost,
  queue depth, sync latency) lives in `costs.py`, whose `SOURCES` names the public source of
  each or marks it assumed; how the pipes spend them is `coretime.py`.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

# -- vector functions (`@pl.vector_function`, `vf.*`) --------------------------------------

def lane_bits(itemsize: int) -> slice:
    """A mask holds one bit per register byte; lane l of a register with `itemsize`-byte lanes
    is active when bit l * itemsize is set (a b32 mask sets 4 bits per lane, a b16 mask 2)."""
    return slice(0, None, itemsize)


#: A widening `vf.astype` (fp16 -> fp32) reads its mask at the wider, destination lanes,
#: as a narrowing one reads it at its (wider) source lanes.
CAST_MASK_AT_WIDE_LANES = True

#: A Python float reaching a `vf` op is a compile-time literal: code generation prints it
#: with `std::to_string` (6 decimals) before the compiler makes it fp32, so 1/sqrt(128)
#: arrives as 0.088388.
SCALAR_LITERAL_DECIMALS = 6


def scalar_literal(value):
    """The value a scalar operand has on the vector unit."""
    if isinstance(value, float):
        return float(f"{value:.{SCALAR_LITERAL_DECIMALS}f}")
    return value


#: `LoadDist.BRC_B32` reads one 4-byte element from a 4-byte aligned address (the pypto doc
#: says 4 bytes, the ISA note 32; real kernels broadcast from 4-byte steps).
BROADCAST_ALIGNMENT = {"BRC_B8": 1, "BRC_B16": 2, "BRC_B32": 4}

#: Plain (NORM) register loads and stores, and block-strided stores, need 32-byte alignment.
REGISTER_ACCESS_ALIGNMENT = 32

#: A mask in memory (`vf.store_align` / `vf.load_align` of a mask) is its 256 bits, eight per
#: byte, mask bit 8j + k in bit k (counting from the least significant) of byte j: the
#: mask's bit order follows the register's byte order, which is little-endian.
MASK_BIT_ORDER: Literal["little"] = "little"

#: `vf.load_unalign(..., stride)` moves its cursor by `stride` elements: the reference's
#: parameter table says bytes, its example says elements (stride 64 on fp32 = one register,
#: the contiguous walk the example performs), and the matching `vf.store_unalign` counts
#: elements. Without a stride a post-update load moves by one register.
UNALIGNED_STRIDE_UNIT = "elements"

#: `vf.store_align(..., dist=PACK|PACK4)` writes the low half (quarter) of lane i at position
#: i of the packed output, only for active lanes (like a masked NORM store); the docs' "stored
#: contiguously" is read as "the halves are adjacent", not as squeezing out inactive lanes.
#: INTLV stores write element i of each source where lane i is active.
PACK_STORE_POSITIONAL = True

#: `vf.scatter` with repeated indices keeps one value ("only one is kept"): the highest lane.
SCATTER_LAST_LANE_WINS = True

#: `vf.squeeze(..., STORE_REG)` sets the AR register to the byte count of this squeeze (it
#: does not add to it); `vf.clear_spr` sets it to 0. `pl.get_spr` reads it on the calling
#: core after the vector function.
SQUEEZE_SETS_AR = True

#: `vf.pack` writes the narrowed lanes to the chosen half and zeros the other half (the
#: figure that shows the other half is not available); `vf.histograms` ACCUMULATE counts,
#: in bin n, the values of the bin's range up to n (BIN1: 128 .. 128 + n).
PACK_OTHER_HALF_ZERO = True

#: `vf.addc` / `vf.subc`: inactive lanes give 0 in the result and no carry (zeroing).
#: `vf.mask_gen_with_reg_tensor` copies each source bit to all the mask bits of its lane.
#: `vf.get_mask_spr` in count mode (`pl.set_mask_count`) activates the first MASK0 lanes.
#: `vf.muls_cast` rounds the product to fp32, then to fp16 with CAST_ROUND.
MULS_CAST_ROUNDS_TWICE = True

#: `vf.interleave` / `vf.de_interleave` of two masks work on lanes of their `dtype` argument
#: ("the width is the mask's data type", and a mask itself has no type: `create_mask`'s dtype
#: only sets its granularity). Without `dtype` they interleave single bits (b8 lanes, the
#: finest width); an interleave then a de-interleave at the same width is the identity.
MASK_INTERLEAVE_DTYPE = "DT_UINT8"

#: `vf.arange(start, DECREASE_ORDER)` counts down to `start`: lane i = start + (lanes - 1 - i).
#: The reference's prose says start - i, its example (64 uint32 lanes from 63) expects 126
#: down to 63; the executable example is taken, as for `UNALIGNED_STRIDE_UNIT`. False gives
#: the prose's start - i.
ARANGE_DECREASE_REVERSES = True

#: `vf.gather` reads its mask at the result's element slots: a lane of the result's dtype,
#: or, for 16-bit data gathered with DT_UINT32 indices (one element per 32-bit slot), the
#: 32-bit slot. DATA_BLOCK_LOAD fills the register's 8 DataBlocks from index lanes 0-7, and
#: its inactive lanes are 0 like any register-op result (a block without an active lane is
#: not read).
GATHER_MASK_AT_RESULT_SLOTS = True

#: `vf.store_unalign` of a mask packs it by the destination tile's width (16-bit: 16 bytes,
#: the low bit of every 2; 32-bit: 8 bytes, the low bit of every 4, in `MASK_BIT_ORDER`);
#: with `post_update` the cursor moves past those bytes. A `stride` (an element count) has
#: no documented meaning for a mask and is rejected.
MASK_UNALIGNED_STORE_BY_TILE_WIDTH = True

# -- 8- and 4-bit floats (`vf.astype`) --------------------------------------------------------

#: FP32 -> FP8 without saturation: a NaN becomes the format's quiet NaN with the input's sign
#: (E4M3FN has one NaN per sign, 0x7F/0xFF; E5M2 takes 0x7E/0xFE, the code the top bits of
#: fp32's quiet NaN give). With saturation NaN gives +0, the documented default (the CTRL[50]
#: bit that makes it NaN is not emulated). Every conversion keeps the sign of zero (-0 -> 0x80
#: in FP8, 0x8 in FP4; the FP4 and E8M0 rules do not mention zero's sign).
FP8_NAN_CODE = {"DT_FP8E4M3FN": 0x7F, "DT_FP8E5M2": 0x7E}

#: FP32 -> E4M3FN without saturation: an infinity becomes NaN (documented: E4M3FN has no
#: infinity), and so does a finite value that rounds beyond 448 (not stated; the one reading
#: consistent with it: values from 464 up round to the code above 448, which is NaN). E5M2
#: overflows to its infinity as IEEE formats do.
E4M3_OVERFLOW_CODE = 0x7F

#: BF16 -> E8M0 keeps the exponent field: E8M0 has BF16's exponent width and bias, and the
#: path takes no rounding mode ("no precision loss"), so the value is |x| rounded down to a
#: power of two, its sign dropped; zero and subnormals (field 0) give code 0 = 2^-127. The
#: documented special cases stay: +/-inf -> 0xFE (the largest), NaN -> 0xFF.
E8M0_FROM_EXPONENT_FIELD = True

#: Register layout of the 4x casts. FP32 <-> FP8: fp32 lane i <-> byte 4i + part (CastLayout
#: ZERO..THREE = part 0..3; the doc's `full` example: "ZERO takes the 0th of every 4 FP8").
#: BF16 <-> FP4 works on pairs ("two elements as one pair"): bf16 lanes 2k, 2k+1 <-> byte
#: 4k + part, lane 2k in the low 4 bits; narrowing reads the pair's mask bit at lane 2k (the
#: doc: "the even bit counts"); the other bytes of a narrowed register are 0; widening reads
#: the mask at every bf16 lane (`CAST_MASK_AT_WIDE_LANES`).
FP4_PAIR_TO_BYTE = True


def exp32(x: np.ndarray) -> np.ndarray:
    """exp as the vector unit computes it: the NPU's accuracy is not documented, so float32
    numpy exp (likewise `vf.div` is IEEE float32 division, add and mul round to nearest even)."""
    return np.exp(x.astype(np.float32))

# -- block ops ----------------------------------------------------------------------------

def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`a @ b` in the accumulator type of `a` (fp32 for float inputs, int32 for int8). The
    order in which the hardware sums the K products is not documented; the emulator sums in
    double precision (exact for fp16 products up to large K) and rounds once, with numpy's
    einsum loop, which does not depend on BLAS threading: every run gives the same bits."""
    wide = np.float64 if a.dtype.kind == "f" else np.int64
    return np.einsum("ij,jk->ik", a.astype(wide), b.astype(wide), optimize=False).astype(a.dtype)


#: A fused op (`add_relu`, `sub_relu`, `*_relu_cast`, `mul_cast`) is emitted as separate
#: steps that keep their intermediate in `lhs` (the docs: "lhs is overwritten"): `lhs` ends
#: holding `lhs OP rhs` (with the relu for the `_cast` forms), `out` the rest of the chain.
FUSED_INTERMEDIATE_IN_LHS = True


def pad_float(dtype: str, which: str) -> float:
    """`TilePad.max` / `TilePad.min` of a float tile: the type's largest finite value (the
    docs say "the type's maximum"; whether infinity is meant is not stated)."""
    big = {"DT_FP16": float(np.finfo(np.float16).max), "DT_BF16": 3.3895313892515355e38}.get(
        dtype, float(np.finfo(np.float32).max))
    return big if which == "max" else -big


#: `pl.sort32` / `pl.mrgsort*` keep 8-byte (value, index) records, highest value first; for
#: equal values the lower index comes first (the order of ties is not documented). An FP16
#: record is the value in its first 2 bytes, 2 bytes of zeros, then the uint32 index.
SORT_TIES_LOWER_INDEX_FIRST = True

#: `pl.mrgsort(dst, src, block_len=L)`: src is a row of sorted runs of L storage elements;
#: every 4 consecutive runs are merged into one (the merge unit takes up to four lists).
MRGSORT_WAYS = 4

#: SSBUF (`pl.ssbuf_store` / `ssbuf_load`): one per block, shared by its AIC and AIVs; a
#: struct is copied field by field as 32-bit words (ints as int32, floats as fp32, list
#: fields element by element), in declaration order.
SSBUF_BYTES = 256

#: Spaces where a fractal (NZ/ZN) tile may have a single row (NZ) or column (ZN) instead of
#: whole 16-row fractals: an L1 tile holding one vector (a GEMV operand, a bias row). Its
#: offsets follow the NZ formula with R = 1, i.e. the 32-byte blocks of the row back to back.
ONE_ROW_FRACTAL_SPACES = frozenset({"Mat"})

# -- cores and flags ------------------------------------------------------------------------

def aiv_block_idx(block: int, sub: int) -> int:
    """`pl.get_block_idx()` of AIV `sub` of block `block` in a mix kernel: only the range
    [0, 2 * block_num) is documented; `2*block + sub` fits `idx // get_subblock_num()`."""
    return 2 * block + sub
