"""The soundness check's problems as findings, with the fix each kind of problem needs.

The check runs on every generated kernel against its serial original (PTO061, reported by
the driver after emission) and on the syncs of hand-pipelined kernels (PTO068, a file rule).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from pto_transpile import codes
from pto_transpile.diagnostics import Finding
from pto_transpile.read.model import Kernel
from pto_transpile.read.plnames import PlNames
from pto_transpile.read.reader import FileModel
from pto_transpile.soundness.check import Problem, check_kernel

#: The fix to suggest, per kind of problem the soundness check reports.
#: the fix for each kind of problem (a rule picks one with `_hint`)
HINTS = {
    "race": "Hand data between stages only through tile groups with `fwd_ids`/`bwd_ids` (GM and plain tiles are "
            "never synchronised), or keep both accesses in one stage",
    "race_tasks": "Make the stage's later tasks wait for this one: in the stage, after the op of the earlier "
                  "access, put a `pl.system.sync_src`/`sync_dst` pair from that op's pipe to the pipe of the other "
                  "access (the op a later task runs first then waits for it), or `pl.system.bar_all()`",
    "race_core": "Order the two ops of the core yourself, as the serial kernel needs too: `pl.system.sync_src("
                 "set_pipe=..., wait_pipe=..., event_id=...)` on the first op's pipe after it and the matching "
                 "`sync_dst` on the second op's pipe before it (the pipes of one core run ahead of one another, and "
                 "auto_mutex orders tiles, not GM)",
    "race_core_tile": "Order the two ops of the core yourself, as the serial kernel needs too: `pl.system.sync_src("
                      "set_pipe=..., wait_pipe=..., event_id=...)` on the first op's pipe after it and the matching "
                      "`sync_dst` on the second op's pipe before it (the pipes of one core run ahead of one another, "
                      "and auto_mutex orders the ops on a tile by its `mutex_ids`, which these tiles do not share: a "
                      "`pl.make_tile` tile has none)",
    "mutex_off": "Turn `auto_mutex` on (`@pl.jit(auto_mutex=True, ...)`, the default): the JIT then orders the ops "
                 "of one core on a tile by the tile's `mutex_ids`, which the transform relies on; or order the two "
                 "yourself with `pl.system.sync_src`/`sync_dst`",
    "race_body": "Put `pl.system.sync_all()` between the pipeline loop and the kernel-body code that touches the "
                 "same memory (every core then finishes the loop, its drain included, before that code runs), or "
                 "move that access into a stage; inside the pipeline loop's body, where no barrier fits (the body "
                 "runs for the newest iteration, ahead of the stages run late), move it into the stage whose "
                 "iteration it belongs to",
    "loops": "Order the two pipeline loops with `pl.system.sync_all(core_type=pl.SyncCoreType.MIX)` between them "
             "(every core finishes the first loop, its drain included, before any starts the second)",
    "anywhere": "Keep GM offsets to what the loop variable and `pl.get_subblock_idx()` give (`i * BLOCK + sub_id * "
                "HALF`) and let a valid shape shorten the op at a tail (`pl.set_validshape(res, [pl.min(HALF, rows - "
                "sub_id * HALF), BLOCK])` under an `if` that count is positive)",
    "anywhere_element": "Name the element by its row and column (`ws[core_id, sub_id] = v`): the check places "
                        "those for every block and value, and a linear offset into a 2-D tensor only as a number",
    "anywhere_shape": "Give a tensor of more than two dimensions static sizes between its first and its last "
                      "(`pl.Tensor[[pl.DYNAMIC, ROWS, BLOCK], ...]`), or store into it as a 2-D tensor whose rows "
                      "are all but the last dimension",
    "twin": "Give each vector core its own part of the memory both share: offset the rows (or columns) it "
            "reaches by `pl.get_subblock_idx()` times the part's size, or let one core do the op "
            "(`if sub_id == 0:`)",
    "value": "Let each stage, and the loop body, read only what it writes itself or receives through a cross-core "
             "buffer or as an argument: state kept in a tile or in GM across iterations changes when stages run "
             "ahead",
    "after_loop": "Do what follows the pipeline loop in the last stage, under a test of the last iteration "
                  "(`if ki == n - 1:`): pipelined, the stages of an outer iteration's last tasks run after that code, "
                  "in the next outer iteration or the drain",
    "argument": "Pass per-iteration values to stages as arguments computed in the loop body (they travel with "
                "their iteration); do not change them inside stages",
    "ring_type": "pto-transpile gave the ctx field another type than the value it carries (please report it); "
                 "annotate the value where the loop body binds it with the dtype it has (`d: pl.DT_FP32 = ...`, or "
                 "`pl.DT_INT64` for an integer), which types the field",
    "output": "Let each GM region be written by one stage per iteration",
    "rounded_adds": "Let one stage make the atomic additions into a region (sum in a tile first, then add it once), "
                    "or make them from different cores: GM applies each core's additions in the order it "
                    "issues them, which pipelining changes",
    "unit_flag": "Give every matmul and store of an Acc tile a `phase=`, Partial but for the last matmul and the "
                 "last store of the tile, which take Final (`pl.AccPhase.Final`, `pl.STPhase.Final`), or give none "
                 "of them a phase: auto_mutex then orders the matmul and the store",
    "deadlock": "Give the buffers on this cycle more tiles, or lower `preload` (when it is above 0)",
    "unbalanced": "Give each cross-core buffer its own event ids, or lower `preload` (when it is above 0); if the "
                  "kernel passes every other rule, please report this",
    "overflow": "Give the buffer more event ids (one per tile), or lower `preload` (when it is above 0)",
    "overflow_while": "Write the `while` around the pipeline loop as a `for` loop over `pl.range` (`while k < d:` as "
                      "`for k in pl.range(0, d):`): the pipeline then opens once before that loop and closes once "
                      "after it, and its tasks run on across the repetitions",
    "cases_while": "Write the `while` as a `for` loop over `pl.range` (`while k < d:` as `for k in pl.range(0, d):`): "
                   "the check proves a loop of run-time trip count from a few trip counts",
    "dynamic": "The check proves loops of run-time trip count when they count from a constant by 1 up to a scalar "
               "parameter or one expression of a `pl.DYNAMIC` dimension (plus a constant); use one of those forms",
    "period": "The check runs a loop of run-time trip count at every count up to its period (the lcm of every `% k` "
              "of its variable and every tile group's slot count): take residues by a smaller modulus, or give the "
              "tile group fewer slots",
    "nonuniform": "The check proves a loop of run-time trip count by running every trip count up to a bound; that "
                  "stands for every trip count only when the body uses the loop variable in the ways the message "
                  "names",
    "long_static": "A static kernel too long to follow to its end is proven as one of run-time sizes would be: "
                   "use the loop variables in the ways the message names, or run fewer tasks per launch (fewer rows "
                   "a launch: a run within the steps the check follows is checked as written)",
    "size": "A long loop is proven from a few trip counts when it counts by 1 over a tensor dimension or a module "
            "constant (`pl.range(0, a.shape[0] // TILE)`, `pl.range(0, N)`) and its body uses the loop variable only "
            "in affine GM offsets, first/last-iteration tests and residues `% k`; otherwise shorten the run",
    "blocks": "The check proves a kernel for every block count from the GM places each block reaches: let each "
              "block reach its own part (offsets by the block index, a per-core range or a chunk start), and put "
              "`pl.system.sync_all()` of every core that makes them between accesses of a part blocks share",
    "cases": "The check runs a kernel at every value of a scalar parameter, or of an element read from GM by number "
             "(`starts[0]`, one value for the run), where one of its tests (an `if`, `abs`, `min`, `max`) changes "
             "outcome, and the tests on several such values multiply the runs; test each against fewer values, or "
             "fewer of them (or make a parameter a tiling-key field)",
    "offsets": "The check runs a kernel at a few values of a scalar parameter; the accesses of a written tensor "
               "stay apart for every value only when the parameter moves them all alike: offset them as the message "
               "says",
    "runtime": "The check proves what a value known only at run time (a scalar parameter, tiling data, the block "
               "index, a value read from GM) decides for every value it can take; where it sets the bytes an op "
               "reaches (a tile address, a vector function's loops and addresses), pass a compile-time value "
               "instead (a module constant or a tiling-key field)",
    "field_init": "Initialise the struct field where the struct is made with a number of its type, `int(...)` or "
                  "`float(...)` of the value, or `pl.const(v, dtype)`: PyPTO types the field by its initialiser",
    "struct_in_field": "Declare one struct before the loop (`st = pl.struct(...)`), set its fields in the loop from "
                       "the struct the iteration picks (`st.g = (st_even, st_odd)[i % 2].g`) and pass that struct",
    "tuple_in_field": "A ctx field carries one number: hand the stage each number as an argument of its own, and a "
                      "tensor, tile or tile group picked in the call (`(even, odd)[i % 2]`, `bufs[i % 2]`), which "
                      "the transform picks with its task; annotate only numbers with a `pl` dtype",
    "identity": "Test what a value is, not which object holds it: `a == b` for `a is b` of numbers, `a.f == b.f` of "
                "each field for two structs, `isinstance(x, int)` for `type(x) is int`; the pipelined kernel hands "
                "delayed stages copies of the values in ctx fields",
    "module_changed": "Leave the module's lists and dicts as the module binds them: bind the values the kernel needs "
                      "at module level (a tuple of the final values), or copy the list in the kernel (`row = "
                      "list(ROW)`), change the copy, and annotate what a stage is handed from it (`g: pl.DT_FP32 = "
                      "row[i % 2]`)",
    "unfollowed_object": "Keep what the kernel changes from one statement to the next in a list or a dict (the "
                         "check follows `append`, item stores and their kin), or in the fields of a `pl.struct`",
    "made_object": "Keep what the kernel reads at module level as constants (literals, arithmetic of constants, "
                   "tuples of them) or as an instance of a plain data class of the file (`@dataclass`, fields "
                   "annotated `int`, `float`, `bool` or `str` with constant defaults, made at module level: "
                   "`TILING = Tiling(rows=64)`), whose fields the check reads as constants",
    "cache": "Clean and invalidate the core's data cache for the tensor where the scalar pipe meets another core's "
             "or pipe's data: `pl.system.dcci(t, [row, col], cache_line=pl.CacheLine.SINGLE_CACHE_LINE)` in the "
             "stage, after the sync before a scalar read and before the sync after a scalar write, or read GM "
             "through a tile (`pl.load`, then `getval` of the tile)",
    "wait_pipes": "Wait for one event id on one pipe of a core: where a tile is read on several pipes, wait on the "
                  "scalar pipe (`pl.system.wait_cross_core(pipe=pl.PipeType.S, ...)`), which holds back all of the "
                  "core's later work, or read the tile on one pipe",
    "shared_event_id": "Give the kernel's own `set_cross_core`/`wait_cross_core` event ids that no tile group "
                       "declares in `fwd_ids`/`bwd_ids`: the pipelined kernel sets and waits for those ids itself",
    "global_rebound": "Bind the name with a statement of the module itself (`FLAG = 1` after `FLAG = 0`), not "
                      "through `global` in a function or class body: the check reads the module's own statements "
                      "in order, and each binding there is the value that follows it",
    "construct": "Write what the message names otherwise, in the form it gives where it gives one: the check "
                 "follows the kernel's Python as it runs and refuses, rather than guesses, what it cannot follow, "
                 "such as a call in a comprehension, a generator, an f-string or an `except` block (compute those "
                 "values with plain statements and a `for` loop) or a `pl` op reached otherwise than by its name "
                 "(call it as `pl.store(...)`)",
    "tile_size": "Reserve each tile at least the bytes of its shape (element size times every dimension): raise "
                 "`size=` to that or leave it out, and place the next tile at or past its end",
    "stray": "Keep the bytes a vector function reaches within the tiles it is given: bound its loops and offsets "
             "by the tile's shape (the bytes named past its end belong to whatever lies there), or declare the tile, "
             "or the group's slots, as large as what it stores",
    "sync_test": "Write the test around a sync as one the check decides: count the block's tasks from 0 (`for k "
                 "in pl.range(0, my_n):` with `t = core_id + k * num_cores`) and test `k` against 0 or `my_n - 1`, "
                 "or the count itself (`if my_n > 0:`), rather than the block index or a counter",
    "sync_size_test": "Test a value the check decides instead: a scalar parameter the host computes from the size "
                      "(`if big > 0:` with `big: pl.DT_INT32`), or a tiling-key field, which every block and core "
                      "holds alike",
    "pipe_sync_test": "Put the `sync_src`/`sync_dst` pair outside the test, splitting the branch around it (`if t: "
                      "a` / the pair / `if t: b`): every core then runs it, and it orders the ops of each core that "
                      "runs them",
    "pipe_barrier_test": "Put the pipe barrier outside the test, splitting the branch around it (`if t: a` / "
                         "`pl.system.bar_all()` / `if t: b`): every core then runs it, and it orders the ops of each "
                         "core that runs them",
    "kept": "Keep what a stage computes in its own names, or pass it to the stage that uses it as an argument: "
            "the pipeline carries a stage's arguments to its delayed run, never a value left in an object the "
            "stage did not make (a default argument, a module list, one it is handed)",
    "tensor_view": "Hand the op the tensor itself and add the view's row and column start to its offsets "
                   "(`pl.store(out, res, [i * BLOCK, (i % 2) * BLOCK])` for a store into `out[:, (i % 2) * "
                   "BLOCK:...]`): a GM offset moved by the loop variable's residue is followed",
    "operand": "Give each tile or GM tensor an op reads or writes as one the check follows: a tensor parameter "
               "annotated `pl.Tensor[[...], dtype]` on the parameter itself, a tile, or to alternate between several "
               "a pick by the loop variable's residue (`(ws0, ws1)[i % 2]`); tiles of one memory chosen by data "
               "as a pick of a tuple (`(a, b)[int(x > 0)]`), which the check follows as either",
    "cores_apart": "Leave a loop or the kernel on every core of the block at once: write the `break`, `continue` or "
                   "`return` outside the `with pl.section_*()` block, under a test of a value every core computes in "
                   "the kernel body, or put the section's remaining work under an `if` instead",
    "early_exit": "In a stage or a helper, put what follows under the opposite `if` (`if mine > 0:` around the rest "
                  "of the stage) instead of leaving early, so both ways of the test run to the end; in the kernel "
                  "itself, return only at its top level, before any loop, sync or GM write, with one comparison of "
                  "values the same on every core and block (`if n_tiles == 0: return`, or `if core_id >= n: "
                  "return` for the blocks with nothing to do)",
    "stale": "Bind each name the kernel's `def` reads in a decorator, a default or an annotation once, before the "
             "kernel, and leave its value as it is (with `from __future__ import annotations`, annotations are read "
             "later and may name what the module binds afterwards)",
    "generator": "Write the kernel as a plain function, without `yield` or `async`: a call runs the body of a plain "
                 "function only",
    "section": "Bind the name where every core that reads it runs (outside the sections), or read it only in a "
               "section of the kind that binds it",
    "deleted": "Leave bound every name a stage is given (no `del` of it in the kernel): pipelined, the stages of the "
               "last iterations run after the loop, in its drain, and read it there",
    "stride": "Keep GM tensors contiguous: pass a strided view to the kernel as a tensor parameter of its own",
    "event_id": "Keep every event id within the hardware's range (0..15), or lower `preload` (when it is above 0)",
    "credits": "Prime as many credits (sets of an event before the loop, which the other core waits for in it) "
               "for every value of the kernel's scalars and tiling data: the check bounds how far one core runs "
               "ahead of the other by the credits it finds primed",
    "window": "Order the later iterations' accesses of a place the loop writes again after the write: a "
              "`pl.system.sync_src`/`sync_dst` pair after it, from its pipe to the pipe of the other access; or "
              "write it at a place that moves with the loop (`ws[ki * TILE]`). Such a place is proven by runs "
              "that grow with the loop's period",
    "drift": "Wait for every event in the iterations that raise it, so that as many sets as waits fall in each "
             "period of iterations; if the kernel passes every other rule, please report this",
    "per_core_step": "Step a per-core range by the block count, as `pl.range(core_id, n, num_cores)` with "
                     "`num_cores = pl.get_block_num()` does (each block runs every `num_cores`-th iteration from its "
                     "index), or give each block a chunk (`pl.range(start, min(start + chunk, n))` with "
                     "`start = core_id * chunk`)",
    "per_core_static": "Give the range's count a `pl.DYNAMIC` dimension (or take it from a scalar parameter): the "
                       "check then proves it for every count from a few runs, where a static count is run at each "
                       "share a block can take",
    "picked_mutex": "Choose between such tiles by an `if` whose branches each use one of them (each then holds "
                    "its own tile's auto_mutex ids), or give the tiles one mutex id in common",
    "uncounted": "Give a loop whose iterations hand something on (a name read before it is bound, a container or "
                 "field changed, a tile group's `.next()`) a count the check can name: a constant, a tiling-key "
                 "field, a scalar parameter or a `pl.DYNAMIC` dimension, not a value computed from data",
    "declaration": "Declare each tile type and group as the hardware takes it: every dimension of `shape` at least "
                   "1, `valid_shape`, when given, with one entry per dimension of `shape`, none past it (a "
                   "run-time entry clamped, `pl.min(rows, ROWS)`), and `mutex_ids` of ids "
                   "0..31, none twice in a slot and as many in every slot",
    "barrier_core": "Call a barrier of one core type where only cores of that type run it: "
                    "`sync_all(core_type=pl.SyncCoreType.AIC_ONLY)` in a `with pl.section_cube():` block, `AIV_ONLY` "
                    "in a `with pl.section_vector():` block; a barrier every core reaches is `MIX`",
    "section_outside": "Write `with pl.section_cube():` and `with pl.section_vector():` directly in the kernel's "
                       "body, around the calls of the function, not inside it: the JIT lowers sections there alone",
    "barrier_in_stage": "Put the barrier before or after the pipeline loop, where every core runs it once, and "
                        "hand data from one stage to the next through a tile group with `fwd_ids`/`bwd_ids`",
    "barrier_apart": "Put the barrier outside the `if`, where every core it waits for reaches it, or test only what "
                     "every block and core holds alike: kernel parameters the kernel never binds again and "
                     "compile-time values (`if flag > 0:`), not the block index or a count computed from it",
    "zero_step": "Compute the step of a `pl.range` so that it is at least 1 for every block count and every value "
                 "of the scalars it reads (`pl.range(core_id, n, num_cores)` steps by the block count); the check "
                 "runs the kernel at each such value",
    "unmodelled": "The check follows the kernel's Python statement by statement, with `pl` ops called by name and "
                  "the file's own functions; write what the message names in a form it follows (the message says "
                  "how where there is one), and if the kernel is valid as written, please report it",
}


def problem_fields(problem: Problem) -> dict[str, Any]:
    """The fields of a rule's finding for `problem`: what is wrong, the fix, and the other
    nodes involved (under `_related`, as a rule's check yields them)."""
    return {"detail": problem.detail, "_hint": problem.kind, "_related": problem.related}


def prove(file: FileModel, module: cst.Module, kernels: list[Kernel]) -> list[Finding]:
    """Each generated kernel of `module` checked against its serial original in `file`."""
    pl = file.pl if file.pl.module_ref is not None else PlNames.from_module(module)
    generated = {s.name.value: s for s in module.body if type(s) is cst.FunctionDef}
    return [Finding.of_check(codes.PIPELINE_NOT_PROVEN, problem.node if problem.node is not None else kernel.node.name,
                             problem_fields(problem))
            for kernel in kernels for problem in check_kernel(file, kernel, generated[kernel.name], pl)]
