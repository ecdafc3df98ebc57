"""Issue 15: mixed kernels as model code writes them, one module per family.

The kernels are in tests/fixtures/mixed/models/mixed_llm. Each expectation below
is derived by hand from the upstream compiler at e2d0f78ae (hw-native-sys/pypto),
not from skewlsp's output, and was checked against that compiler built locally
(every kernel compiles; per loop and core the IR right after SkewCrossCorePipeline
agrees); the fact it follows from is written next to it:

- ExpandMixedKernel (src/ir/transforms/expand_mixed_kernel_pass.cpp): every tile op
  runs on the core of its memory (matmul: cube; element-wise/cast/reduce: vector;
  load/store: the memory of the tile), a cube<->vector move becomes a tpush on the
  producing core and a tpop on the consuming one, at the move's position
  (InferTileMemorySpace puts the move right before the consumer);
- SkewCrossCorePipeline (src/ir/transforms/skew_cross_core_pipeline_pass.cpp): lead =
  first message in program order (:404-422), demote on a tile carry or a scalar
  carried from a call (:584-600), on multi-round-trip (:579-580), on trip < 2
  (:387-388) and on dynamic bounds; depth max(2, stage - 1) (:323) lowered to the
  largest d with trip % d == 0 and trip >= 2d (:643-644).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from skewlsp.api import analyse
from skewlsp.common.resolver import resolve_module

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "mixed" / "models"
PACKAGE = ROOT / "mixed_llm"
PIPELINE_FOR = re.compile(r"^\s*for\b.*\bin\s+pl\.pipeline\(")


@dataclass(frozen=True)
class Expected:
    file: str
    line: int
    code: str
    depth: int | None
    trip: int | None
    # (core, code, depth, copies) per core
    cores: tuple[tuple[str, str, int | None, int], ...]


SKEWED_CUBE = ("aic", "SKW001", 2, 1)
CONSUMER_VECTOR = ("aiv", "SKW020", None, 2)

EXPECTED = [
    # -- family 1: crossings in either direction -------------------------------------------
    # Vector first: norm (vector) -> matmul (cube) -> add (vector). The AIV pushes the
    # normalised tile before it pops the projection: lead = push, its slice is the norm,
    # nothing but the address scalar r0 crosses halves -> skewed, trip 8 depth 2. The AIC
    # pops first and the popped tile feeds its matmul -> consumer role.
    Expected("vector_first.py", 17, "SKW001", 2, 8, (("aic", "SKW020", None, 1), ("aiv", "SKW001", 2, 2))),
    # Same at stage 4: requested depth 3, 8 % 3 != 0 -> depth 2 on the vector.
    Expected("vector_first.py", 25, "SKW002", 2, 8, (("aic", "SKW020", None, 1), ("aiv", "SKW002", 2, 2))),
    # Family 2 on the vector: `rows` feeds the push (producer half) and is re-read as the
    # residual (consumer half): a tile carry -> the vector producer is demoted too.
    Expected("vector_first.py", 30, "SKW020", None, 8, (("aic", "SKW020", None, 1), ("aiv", "SKW020", None, 2))),
    # Two streams, cube->vector consumer first: the cube's push of `a` is the first message
    # on both cores, and the vector pops first (consumer role). Both matmuls take the
    # hoisted `wt` as their right operand through ONE move into Right, made before the
    # first (infer_tile_memory_space_pass.cpp:764-790, one move per tile and memory in a
    # block): the move is in the producer half and the second matmul, in the consumer
    # half, reads it -> a tile carry, the cube is demoted too.
    Expected("streams.py", 18, "SKW020", None, 8, (("aic", "SKW020", None, 1), CONSUMER_VECTOR)),
    # Same streams, the vector->cube statement first: now the vector pushes first.
    Expected("streams.py", 24, "SKW001", 2, 8, (("aic", "SKW020", None, 1), ("aiv", "SKW001", 2, 2))),
    # Attention at stage 4 (D = 3), trip 8: 8 % 3 != 0 -> depth 2.
    Expected("attention_trips.py", 20, "SKW002", 2, 8, (("aic", "SKW002", 2, 1), CONSUMER_VECTOR)),
    # Stage 4, trip 6: 6 % 3 == 0 and 6 >= 6 -> the requested depth 3.
    Expected("attention_trips.py", 25, "SKW001", 3, 6, (("aic", "SKW001", 3, 1), CONSUMER_VECTOR)),
    # Stage 5 (D = 4), trip 6: 6 % 4 != 0 -> depth 3.
    Expected("attention_trips.py", 30, "SKW002", 3, 6, (("aic", "SKW002", 3, 1), CONSUMER_VECTOR)),
    # Trip 3 at stage 2: depth 2 infeasible -> depth 1.
    Expected("attention_trips.py", 35, "SKW002", 1, 3, (("aic", "SKW002", 1, 1), CONSUMER_VECTOR)),
    # Trip 1 and trip 0: still split and cross-core, LowerSkewed refuses trip < 2 and the
    # loop is demoted on both cores (not left).
    Expected("attention_trips.py", 40, "SKW023", None, 1, (("aic", "SKW023", None, 1), ("aiv", "SKW023", None, 2))),
    Expected("attention_trips.py", 45, "SKW023", None, 0, (("aic", "SKW023", None, 1), ("aiv", "SKW023", None, 2))),
    # A stop from pl.dynamic: not a ConstInt -> demoted on both cores.
    Expected("attention_trips.py", 50, "SKW022", None, None, (("aic", "SKW022", None, 1), ("aiv", "SKW022", None, 2))),
    # -- family 2: one tile used by both halves ---------------------------------------------
    # One latent tile for QK (producer half) and PV (consumer half): a tile carry on the cube.
    Expected("shared_tiles.py", 19, "SKW020", None, 8, (("aic", "SKW020", None, 1), CONSUMER_VECTOR)),
    # Separate loads of the same rows: nothing crosses halves -> skewed.
    Expected("shared_tiles.py", 24, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # One block-table read for K and V: a scalar from a call (pl.read) is not recomputable.
    Expected("shared_tiles.py", 30, "SKW020", None, 8, (("aic", "SKW020", None, 1), CONSUMER_VECTOR)),
    # Separate reads for K and V: each half has its own -> skewed.
    Expected("shared_tiles.py", 37, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # The same weight already moved into Right by a matmul before the loop, in the block
    # around it: the move is made there and the loop's matmuls reuse it -> nothing is
    # carried, skewed.
    Expected("hoisted.py", 87, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # ... but a move made inside an `if` before the loop lives only in that branch: the
    # loop makes its own, in the producer half -> demoted.
    Expected("hoisted.py", 107, "SKW020", None, 8, (("aic", "SKW020", None, 1), CONSUMER_VECTOR)),
    # The score tile is stored to GM after the vector's exp read it: tile.store takes Vec
    # or Acc, Vec first (tile_ops/memory.cpp:1093), and the Vec copy made for exp is
    # handed to it (infer_tile_memory_space_pass.cpp:615-622), so the vector stores the
    # popped tile and the cube only multiplies and pushes -> skewed.
    Expected("shared_tiles.py", 45, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # A weight hoisted out of the loop, the right operand of the producer's matmul and of
    # the consumer's: one move into Right serves both (one move per tile and memory in a
    # block), made before the first -> the consumer half reads a tile of the lead's half.
    Expected("hoisted.py", 16, "SKW020", None, 8, (("aic", "SKW020", None, 1), CONSUMER_VECTOR)),
    # The same hoisted tile taken transposed by QK (b_trans: a transposed view of its own,
    # moved on its own) and as it is by PV: two moves, nothing shared -> skewed.
    Expected("hoisted.py", 32, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # Both users of the hoisted weight's move are in the producer half: nothing crosses.
    Expected("hoisted.py", 49, "SKW001", 2, 4, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # A hoisted query tile, the left operand of QK (producer) and of a second matmul the
    # consumer half stores: its move into Left is carried -> demoted.
    Expected("hoisted.py", 67, "SKW020", None, 4, (("aic", "SKW020", None, 1), CONSUMER_VECTOR)),
    # A slice read by a vector op and by a matmul is loaded once, to Mat: a non-Vec demand
    # overrides Vec (convert_tensor_to_tile_ops_pass.cpp:331-341), so the vector gets it
    # from the cube. Both messages go cube -> vector: one-directional, left on both cores.
    Expected("shared_tiles.py", 63, "SKW011", None, 8, (("aic", "SKW010", None, 1), ("aiv", "SKW010", None, 2))),
    # The cube stores the scores to a GM workspace and the vector loads them back: no move,
    # but ExpandMixedKernel fences the pair (expand_mixed_kernel_pass.cpp:634-826, C->V
    # only, one store, the load after it in the same body): a push of the stored tile after
    # the store and a token pop before the load. The cube's push is its lead and the store
    # (consumer half) reads the pushed tile; the vector frees its token in the consumer half.
    Expected("shared_tiles.py", 81, "SKW020", None, 8, (("aic", "SKW020", None, 1), CONSUMER_VECTOR)),
    # The same store written before the vector's exp: the Vec copy is still made for the
    # exp, and the store, the first op of the block whose first choice is Vec, makes it
    # (the move goes before the store): the push moves up to the store, which runs on
    # the vector -> skewed all the same.
    Expected("shared_tiles.py", 101, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # -- family 3: parameters and shapes ----------------------------------------------------
    # pl.jit compiled from annotations binds a scalar's default into the body as a literal
    # (python/pypto/jit/decorator.py:373-410 and 1955-1965; specializer.py:813-814): trip 4.
    Expected("params.py", 19, "SKW001", 2, 4, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # `= pl.RUNTIME` leaves the scalar unspecialized (decorator.py:402-403): dynamic.
    Expected("params.py", 24, "SKW022", None, None, (("aic", "SKW022", None, 1), ("aiv", "SKW022", None, 2))),
    # pl.tensor.dim always builds a tensor.dim call (python/pypto/language/op/tensor_ops.py:397-412).
    Expected("params.py", 29, "SKW022", None, None, (("aic", "SKW022", None, 1), ("aiv", "SKW022", None, 2))),
    # A literal assigned inside an outer pl.range: a scalar of the outlined scope, dynamic.
    Expected("params.py", 36, "SKW022", None, None, (("aic", "SKW022", None, 1), ("aiv", "SKW022", None, 2))),
    # @pl.jit.incore is its own InCore function (decorator.py:2587); the caller's literal is
    # not a specialized scalar of the caller, so nothing is forwarded (decorator.py:1355-1362).
    Expected("params.py", 52, "SKW022", None, None, (("aic", "SKW022", None, 1), ("aiv", "SKW022", None, 2))),
    # A top-level local computed from a specialized scalar (default ROWS = 256, from the
    # config module): the body holds 256 // 32 after specialization, Simplify folds it: trip 8.
    Expected("params.py", 80, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # -- family 5: nested pipelines ---------------------------------------------------------
    # Outer over query blocks, inner attention at trip 8: the cube's inner copy is skewed at
    # depth 2 and spliced into the outer (2 pushes, 2 pops: multi-round-trip); the vector's
    # inner copy is demoted and stays nested, so its outer copy has no top-level message.
    Expected("nested.py", 16, "SKW021", None, 4, (("aic", "SKW021", None, 1), ("aiv", "SKW010", None, 2))),
    Expected("nested.py", 17, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # Inner trip 3 -> depth 1: one push and one pop land in the cube's outer copy, which is
    # itself skewed (trip 4, depth 2); the vector's outer copy is left.
    Expected("nested.py", 23, "SKW001", 2, 4, (SKEWED_CUBE, ("aiv", "SKW010", None, 2))),
    Expected("nested.py", 24, "SKW002", 1, 3, (("aic", "SKW002", 1, 1), CONSUMER_VECTOR)),
    # Two inner pipelines at trip 3 whose first crossings go opposite ways: j (matmul first)
    # is skewed at depth 1 on the cube, t (exp first) on the vector; each is demoted on the
    # other core. The skew pass runs per core function, so each core's copy of the outer
    # body has its own inner loop rewritten (one push in the prologue, one pop in the
    # epilogue at the outer's top level) and the other kept whole. Cube: the lead push
    # follows the load of `rows`, which the spliced steady j loop (consumer half) reads ->
    # tile carry, demoted. Vector: only the address scalar b crosses -> skewed, trip 4
    # depth 2.
    Expected("nested_both_ways.py", 20, "SKW001", 2, 4, (("aic", "SKW020", None, 1), ("aiv", "SKW001", 2, 2))),
    Expected("nested_both_ways.py", 22, "SKW002", 1, 3, (("aic", "SKW002", 1, 1), CONSUMER_VECTOR)),
    Expected("nested_both_ways.py", 28, "SKW002", 1, 3, (("aic", "SKW020", None, 1), ("aiv", "SKW002", 1, 2))),
    # -- family 7: dual dispatch ------------------------------------------------------------
    # No split mode, or SplitMode.NONE: two AIV copies (expand_mixed_kernel_pass.cpp:1290-1292).
    Expected("dual.py", 16, "SKW001", 2, 4, (SKEWED_CUBE, CONSUMER_VECTOR)),
    Expected("dual.py", 32, "SKW001", 2, 4, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # pl.split(UP_DOWN): one AIV function, one copy.
    Expected("dual.py", 48, "SKW001", 2, 4, (SKEWED_CUBE, ("aiv", "SKW020", None, 1))),
    # The split mode is the outlined scope's: the same function has a split scope (one
    # copy) and a scope without one (two copies).
    Expected("dual.py", 64, "SKW001", 2, 4, (SKEWED_CUBE, ("aiv", "SKW020", None, 1))),
    Expected("dual.py", 71, "SKW001", 2, 4, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # -- round trips in other shapes (shapes.py) ---------------------------------------------
    # A strided range: pl.pipeline(1, 8, 3) runs t = 1, 4, 7, trip 3; depth 2 needs
    # trip >= 4 -> depth 1 on the cube.
    Expected("shapes.py", 22, "SKW002", 1, 3, (("aic", "SKW002", 1, 1), CONSUMER_VECTOR)),
    # The vector step sits in both branches of an `if`: the move of `s` into Vec is made
    # right before its first consumer, inside the branches, so the cube's push is nested
    # and only its pop of `p` is top-level (one-directional); the vector's pop is nested
    # too -> no top-level round trip on either core, both left.
    Expected("shapes.py", 37, "SKW011", None, 8, (("aic", "SKW010", None, 1), ("aiv", "SKW010", None, 2))),
    # The `if` only chooses what the vector stores after the round trip: both messages are
    # top-level -> the plain attention verdict.
    Expected("shapes.py", 45, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # Two round trips in one body: 2 tpush and 2 tpop per iteration -> multi-round-trip.
    Expected("shapes.py", 64, "SKW021", None, 8, (("aic", "SKW021", None, 1), ("aiv", "SKW021", None, 2))),
    # A softmax-like reduction on the vector is still one round trip.
    Expected("shapes.py", 71, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # matmul_acc after the PV matmul stays on the cube, in the consumer half.
    Expected("shapes.py", 78, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # The PV matmul inside an inner pl.range: the cube's pop of `p` is nested -> left.
    Expected("shapes.py", 94, "SKW011", None, 8, (("aic", "SKW010", None, 1), ("aiv", "SKW010", None, 2))),
    # The whole round trip inside an inner pl.parallel: no top-level message -> left.
    Expected("shapes.py", 100, "SKW011", None, 4, (("aic", "SKW010", None, 1), ("aiv", "SKW010", None, 2))),
    # pl.spmd(2) with the block index in the address and a bias tile read by the vector
    # from before the loop (a vector tile, nothing crosses halves) -> skewed.
    Expected("shapes.py", 119, "SKW001", 2, 4, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # The vector stores to a GM workspace the cube loads back: ExpandMixedKernel fences
    # only cube -> vector GM round trips, so nothing goes vector -> cube: one-directional.
    Expected("shapes.py", 135, "SKW011", None, 8, (("aic", "SKW010", None, 1), ("aiv", "SKW010", None, 2))),
    # A stop from pl.tensor.dim, and one from an unspecialized pl.Scalar parameter: dynamic.
    Expected("shapes.py", 153, "SKW022", None, None, (("aic", "SKW022", None, 1), ("aiv", "SKW022", None, 2))),
    Expected("shapes.py", 158, "SKW022", None, None, (("aic", "SKW022", None, 1), ("aiv", "SKW022", None, 2))),
    # stage=1 on a cross-core loop: demoted on both cores.
    Expected("shapes.py", 163, "SKW024", None, 8, (("aic", "SKW024", None, 1), ("aiv", "SKW024", None, 2))),
    # Stage 4 (D = 3) at trip 3: only depth 1 fits.
    Expected("shapes.py", 168, "SKW002", 1, 3, (("aic", "SKW002", 1, 1), CONSUMER_VECTOR)),
    # Stage 4 with all three range arguments, trip 8: 8 % 3 != 0 -> depth 2.
    Expected("shapes.py", 173, "SKW002", 2, 8, (("aic", "SKW002", 2, 1), CONSUMER_VECTOR)),
    # Stage 4 at trip 6: 6 % 3 == 0 and 6 >= 6 -> the requested depth 3.
    Expected("shapes.py", 178, "SKW001", 3, 6, (("aic", "SKW001", 3, 1), CONSUMER_VECTOR)),
    # A block table reshaped outside the InCore scope is a tensor handed to it: pl.read of
    # it is tensor.read, a scalar read of GM either core makes (no crossing). The block
    # address feeds only the producer's load -> skewed ...
    Expected("shapes.py", 196, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # ... and feeding both halves' loads, the scalar comes from a call (not recomputable
    # from the loop variable): carried -> demoted (skew pass :584-600).
    Expected("shapes.py", 203, "SKW020", None, 8, (("aic", "SKW020", None, 1), CONSUMER_VECTOR)),
    # A scope with a matmul loop and an element-wise loop is split: the cube loop is in
    # the AIC function, the vector loop in the AIV function, dispatched twice.
    Expected("shapes.py", 221, "SKW011", None, 8, (("aic", "SKW010", None, 1),)),
    Expected("shapes.py", 224, "SKW011", None, 8, (("aiv", "SKW010", None, 2),)),
    # A scope of vector ops only is not split: one AIV function, one copy.
    Expected("shapes.py", 236, "SKW011", None, 8, (("aiv", "SKW010", None, 1),)),
    # The weight both matmuls take, sliced (or reshaped) before the InCore scope: a tensor
    # parameter of the scope, loaded by each matmul in its own half, not one hoisted tile
    # moved once (compare hoisted.py:16, sliced inside the scope) -> nothing carried.
    Expected("shapes.py", 252, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    Expected("shapes.py", 257, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # Element-wise ops on the weight before the InCore scope are tensor ops: their result
    # reaches the scope as a tensor, not a vector tile the cube would have to pop.
    Expected("shapes.py", 274, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # A computed tile stored to a GM workspace the vector loads back: the store and the
    # fence's push both read the one tile the matmul makes before them. The push leads
    # the cube, so the matmul is in the lead's half and the store, in the other half,
    # reads its tile -> carried, as for a named tile (shared_tiles.py:81). Written as a
    # slice write and as pl.assemble.
    Expected("shapes.py", 290, "SKW020", None, 8, (("aic", "SKW020", None, 1), CONSUMER_VECTOR)),
    Expected("shapes.py", 295, "SKW020", None, 8, (("aic", "SKW020", None, 1), CONSUMER_VECTOR)),
    # A block table sliced inside the scope is a tile loaded to Vec: pl.read of it is a
    # vector op whose scalar no message carries. The cube's copy of `r0 = blk * ...`
    # reads an undefined `blk` (the IR's FREE_VAR), a loop invariant to the skew pass,
    # so the cube is skewed (and SKW061 warns, below).
    Expected("shapes.py", 312, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # An inline helper with a pl.at scope of its own, called inside the caller's scope:
    # OutlineIncoreScopes outlines the helper's scope again inside the caller's, so the
    # weight the helper slices before its scope reaches the loop as a tensor -> skewed
    # (in an InCore function without such a scope, the slice is one hoisted tile).
    Expected("shapes.py", 330, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # A pl.at scope inside another is outlined as a function of its own: the outer one
    # only multiplies (one AIC function), the inner one only exponentiates (one AIV
    # function, one copy: nothing splits it).
    Expected("shapes.py", 359, "SKW011", None, 8, (("aic", "SKW010", None, 1),)),
    Expected("shapes.py", 363, "SKW011", None, 8, (("aiv", "SKW010", None, 1),)),
    # A split mode on a scope around the loop's own scope is that outer function's: the
    # loop's function has none, so its vector copy is dispatched twice.
    Expected("shapes.py", 377, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # -- explicit vector-lane regions (regions.py) -------------------------------------------
    # The parser accepts `for lane in pl.split_aiv(...)` (ast_parser.py:2548) and lowers it
    # to a region whose statements stay in place in the AIV function. A region makes the
    # InCore function split_aiv: SplitVectorKernel stamps dual_aiv_dispatch on the AIV
    # function (split_vector_kernel_pass.cpp:636-660) instead of ExpandMixedKernel copying
    # the body per lane: one vector copy. The shard alone is one message each way -> both
    # cores keep a one-directional loop, left.
    Expected("regions.py", 24, "SKW011", None, 8, (("aic", "SKW010", None, 1), ("aiv", "SKW010", None, 1))),
    # Shard, then gather back for the second matmul: the usual attention round trip.
    Expected("regions.py", 39, "SKW001", 2, 8, (SKEWED_CUBE, ("aiv", "SKW020", None, 1))),
    # The same with halved lanes (UP_DOWN) at stage 4: depth 3 requested, 8 % 3 != 0 -> 2.
    Expected("regions.py", 56, "SKW002", 2, 8, (("aic", "SKW002", 2, 1), ("aiv", "SKW020", None, 1))),
    # pl.spmd phases as pypto-lib's hc_pre writes them: a cube-only loop, then a region
    # whose vector loop runs once per lane in the AIV function (one copy).
    Expected("regions.py", 78, "SKW011", None, 2, (("aic", "SKW010", None, 1),)),
    Expected("regions.py", 87, "SKW011", None, 4, (("aiv", "SKW010", None, 1),)),
    # A region outside any InCore scope gets one of its own (dsl_api.py:966-969): the loop
    # in it is outlined into an AIV function.
    Expected("regions.py", 102, "SKW011", None, 8, (("aiv", "SKW010", None, 1),)),
    # -- ops of both cores nested in one expression (nested_calls.py) ------------------------
    # The parser gives every nested call a variable of its own (SSA), so a matmul nested in
    # an element-wise op sends its tile across as a named one would. The cube's first
    # message is the push of the inner matmul, the vector pops first: attention's verdicts.
    # Trip 7 (1..8): depth 2 needs trip % 2 == 0 -> depth 1.
    Expected("nested_calls.py", 20, "SKW002", 1, 7, (("aic", "SKW002", 1, 1), CONSUMER_VECTOR)),
    Expected("nested_calls.py", 35, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # Two casts lifted out of two matmuls, whose results one add sums: two messages each
    # way per iteration -> multi-round-trip on both cores.
    Expected("nested_calls.py", 56, "SKW021", None, 8, (("aic", "SKW021", None, 1), ("aiv", "SKW021", None, 2))),
    # A matmul scaled by a scalar: one message, cube -> vector -> left on both.
    Expected("nested_calls.py", 74, "SKW011", None, 8, (("aic", "SKW010", None, 1), ("aiv", "SKW010", None, 2))),
    # -- element-wise ops of GM slices (tensor_operands.py) ----------------------------------
    # pl.mul of a GM slice is a tensor op: a load to Vec and a vector mul. The vector pushes
    # the cast tile first (lead = push, skewed) and pops the product; the cube pops first.
    Expected("tensor_operands.py", 20, "SKW001", 2, 8, (("aic", "SKW020", None, 1), ("aiv", "SKW001", 2, 2))),
    # Alone in its scope, the same op makes one AIV function (nothing multiplies).
    Expected("tensor_operands.py", 35, "SKW011", None, 8, (("aiv", "SKW010", None, 1),)),
    # Every index a scalar: `rows[t]` is an element read (tensor.read, ast_parser.py:9183),
    # a scalar either core reads from GM, not a slice loaded to Vec. One message each way;
    # the cube's address `r0` comes from a call (the cast) in the lead's half -> demoted.
    Expected("tensor_operands.py", 49, "SKW020", None, 8, (("aic", "SKW020", None, 1), CONSUMER_VECTOR)),
    # -- where a matmul result goes next (writebacks.py) -------------------------------------
    # AutoTileMatmulL0's chained-matmul cast-fold (auto_tile_matmul_l0_pass.cpp:2893-2930):
    # an FP32 matmul result cast to BF16 with mode="rint" and read only as a matmul operand
    # is written back to Mat by the cube (FIXPIPE): nothing crosses, one AIC function.
    Expected("writebacks.py", 20, "SKW011", None, 8, (("aic", "SKW010", None, 1),)),
    # The default rounding ("round") cannot be folded (:2206-2218): a vector cast, so the
    # tile goes to the vector and back: attention's verdicts.
    Expected("writebacks.py", 35, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # The same chain nested in one expression folds the same way.
    Expected("writebacks.py", 50, "SKW011", None, 8, (("aic", "SKW010", None, 1),)),
    # A vector op also reads the cast tile: not every read is a matmul operand, no fold.
    Expected("writebacks.py", 72, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # pl.assemble of a GM slice into a tensor: a load to Vec and a store, on the vector.
    Expected("writebacks.py", 90, "SKW011", None, 2, (("aic", "SKW010", None, 1), ("aiv", "SKW010", None, 2))),
    # Two stores into one tensor, the cube's then the vector's: no fence (the vector reads
    # nothing back), and the vector's store of an exp of `h` is the vector's alone.
    # The cube pushes `h` first and pops `hb`: skewed.
    Expected("writebacks.py", 107, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # A workspace both cores store to: no unique producer store, so no fence
    # (expand_mixed_kernel_pass.cpp:770, CollectGmCrossLaneSyncs); only the cast
    # goes to the cube: one message -> left on both.
    Expected("writebacks.py", 125, "SKW011", None, 2, (("aic", "SKW010", None, 1), ("aiv", "SKW010", None, 2))),
    # -- branches (branches.py) --------------------------------------------------------------
    # An `if` whose branches read `s` on the vector after the body moved it there: they use
    # that move (one per tile and memory, reused by inner blocks), so the `if` is the
    # vector's alone and the cube keeps its single round trip -> skewed.
    Expected("branches.py", 16, "SKW001", 2, 8, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # Casts written as a matmul's operand inside the branches fold onto the cube, so
    # only the matmul's result goes to the vector (inside the `if`, not at the top
    # level); `s` is read by no vector op, and its store stays on the cube. At the top
    # level `h` goes across and its default-rounded cast comes back: one round trip.
    Expected("branches.py", 37, "SKW001", 2, 4, (SKEWED_CUBE, CONSUMER_VECTOR)),
    # An inner pl.range casting `s` on the vector for the cube's matmul_acc: each core's
    # copy of the inner loop reads only what its own ops read. The cube's copy does not
    # read `s` (the lead half's tile), so no carry: skewed (trip 3 -> depth 1).
    Expected("branches.py", 64, "SKW002", 1, 3, (("aic", "SKW002", 1, 1), CONSUMER_VECTOR)),
    # -- cube only (issue 34): every call of the function rolls up to the cube ----------------
    # ExpandMixedKernel splits only a function whose calls roll up to mixed; any other
    # InCore function becomes AIC (all cube) or AIV (expand_mixed_kernel_pass.cpp, the
    # `!is_mixed` branch after AnalyzeStmtsAffinity). The roll-up classifies calls only:
    # an `if` or a `for` takes the join of what it holds, and a yield (an `if`'s or an
    # inner loop's, explicit `pl.yield_` or made by the parser) is no call. So one AIC
    # copy per loop, none on the vector (the compiler built from e2d0f78ae lowers each of
    # these kernels to one Orchestration and one AIC function, the last to one AIV):
    # an `if` whose branches yield an Acc tile stored after it,
    Expected("cube_only.py", 15, "SKW011", None, 8, (("aic", "SKW010", None, 1),)),
    # the same written as plain assignments in both branches,
    Expected("cube_only.py", 34, "SKW011", None, 8, (("aic", "SKW010", None, 1),)),
    # an inner pl.range carrying the output tensor as its iter_arg,
    Expected("cube_only.py", 51, "SKW011", None, 4, (("aic", "SKW010", None, 1),)),
    # a flat body (matmul, store),
    Expected("cube_only.py", 68, "SKW011", None, 8, (("aic", "SKW010", None, 1),)),
    # an `if` that yields only a scalar,
    Expected("cube_only.py", 82, "SKW011", None, 8, (("aic", "SKW010", None, 1),)),
    # an inner pl.pipeline carrying the output (both loops on the cube only),
    Expected("cube_only.py", 99, "SKW011", None, 4, (("aic", "SKW010", None, 1),)),
    Expected("cube_only.py", 100, "SKW011", None, 2, (("aic", "SKW010", None, 1),)),
    # and an inner pl.unroll (its copies are spliced into the body).
    Expected("cube_only.py", 116, "SKW011", None, 4, (("aic", "SKW010", None, 1),)),
    # Vector only, the same way: one AIV function, and without the split mode (the
    # `!is_mixed` branch clears it), so one vector copy.
    Expected("cube_only.py", 131, "SKW011", None, 8, (("aiv", "SKW010", None, 1),)),
]


def _resolver(module: str, level: int, importing: str | None) -> str | None:
    return resolve_module(module, level, importing, [ROOT])


@pytest.fixture(scope="module")
def loops() -> dict:
    found = {}
    for path in sorted(PACKAGE.glob("*.py")):
        for report in analyse(path.read_text(), str(path), resolver=_resolver):
            found[(path.name, report.span.line)] = report
    return found


def _pipeline_lines() -> list[tuple[str, int]]:
    """Every ``for ... in pl.pipeline(`` line, found by text (not by skewlsp)."""
    lines = []
    for path in sorted(PACKAGE.glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if PIPELINE_FOR.match(line):
                lines.append((path.name, number))
    return lines


def test_every_loop_of_the_fixtures_has_an_expectation_and_a_report(loops: dict) -> None:
    assert sorted((e.file, e.line) for e in EXPECTED) == _pipeline_lines()
    assert sorted(loops) == _pipeline_lines()


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda e: f"{e.file}:{e.line}")
def test_each_loop_gets_the_per_core_verdict_the_compiler_gives(loops: dict, expected) -> None:
    report = loops[(expected.file, expected.line)]
    assert (report.code, report.depth, report.trip) == (
        expected.code,
        expected.depth,
        expected.trip,
    ), report.message
    got = tuple((c.core, c.code, c.depth, c.copies) for c in report.cores)
    assert got == expected.cores, report.message


def test_each_left_core_copy_is_lowered_on_its_own(loops: dict) -> None:
    """LowerPipelineLoops runs on each core's function (pass doc 28): every copy the skew
    pass left is replicated, trip 8 at stage=2 into 4 main iterations of 2 copies."""
    cores = loops[("shared_tiles.py", 63)].cores
    assert [
        (c.core, c.lowering.code, c.lowering.main_trip, c.lowering.stride, c.lowering.copies)
        for c in cores
        if c.lowering is not None
    ] == [("aic", "SKW011", 4, 2, 2), ("aiv", "SKW011", 4, 2, 2)]


def test_a_pipeline_inside_a_replicated_one_is_copied_by_it(loops: dict) -> None:
    # The outer loop (trip 4, stage=2) is replicated into 2 copies per iteration; each holds
    # the inner loop (trip 2, stage=2), itself 2 copies: 4 copies of the inner body.
    (outer,) = loops[("cube_only.py", 99)].cores
    (inner,) = loops[("cube_only.py", 100)].cores
    assert (outer.lowering.copies, outer.lowering.nested) == (2, 1)
    assert (inner.lowering.main_trip, inner.lowering.nested, inner.lowering.copies) == (1, 2, 4)


def test_a_slice_that_feeds_a_matmul_reaches_the_vector_from_the_cube(loops: dict) -> None:
    cube = next(c for c in loops[("shared_tiles.py", 63)].cores if c.core == "aic")
    assert "+ pl.tile.tpush_to_aiv(rows, split=0)" in cube.body


def test_a_gm_round_trip_is_fenced_by_a_push_after_the_store_and_a_pop_before_the_load(
    loops: dict,
) -> None:
    cores = {c.core: c for c in loops[("shared_tiles.py", 81)].cores}
    cube = cores["aic"].body
    assert cube.index("+ pl.tile.tpush_to_aiv(s, split=0)") == 3
    assert cube[2].startswith("ws[")
    assert cores["aiv"].body[0] == "+ ws_gm_sync = pl.tile.tpop_from_aic(split=0)"


def test_two_vector_copies_are_said_in_the_message(loops: dict) -> None:
    assert "dual AIV dispatch: the vector body runs as 2 copies" in loops[("dual.py", 16)].message
    assert "dual AIV dispatch" not in loops[("dual.py", 48)].message


def test_the_vector_copy_of_a_nested_outer_loop_keeps_the_inner_loop_whole(loops: dict) -> None:
    vector = next(c for c in loops[("nested.py", 16)].cores if c.core == "aiv")
    assert vector.body == ("for j in pl.pipeline(KV_BLOCKS, stage=2): ...",)
    cube = next(c for c in loops[("nested.py", 16)].cores if c.core == "aic")
    assert (cube.pushes, cube.pops) == (2, 2)


def test_each_core_s_outer_body_splices_the_inner_loop_skewed_on_that_core(loops: dict) -> None:
    """Two inner loops skewed on different cores: each core's outer copy is rebuilt with its
    own inner loop's prologue and epilogue spliced in and the other's loop kept whole."""
    cores = {c.core: c for c in loops[("nested_both_ways.py", 20)].cores}
    cube, vector = cores["aic"].body, cores["aiv"].body
    assert cube[3:5] == ("pl.tile.tpush_to_aiv(s, split=0)", "for j in pl.pipeline(3, stage=2): ...")
    assert cube[-1] == "for t in pl.pipeline(3, stage=2): ..."
    assert vector[0] == "for j in pl.pipeline(3, stage=2): ..."
    assert vector[3:5] == ("pl.tile.tpush_to_aic(gate, split=0)", "for t in pl.pipeline(3, stage=2): ...")
    assert (cores["aic"].pushes, cores["aic"].pops, cores["aiv"].pushes, cores["aiv"].pops) == (1, 1, 1, 1)


def test_a_store_of_a_tile_the_vector_reads_moves_to_the_vector_with_the_push_before_it(
    loops: dict,
) -> None:
    cores = {c.core: c for c in loops[("shared_tiles.py", 101)].cores}
    cube, vector = cores["aic"].body, cores["aiv"].body
    assert not any(line.lstrip("+ ").startswith("scores[") for line in cube)
    push = cube.index("+ pl.tile.tpush_to_aiv(s, split=0)")
    assert cube[push - 1].startswith("s = pl.matmul(")
    assert vector[0] == "+ s = pl.tile.tpop_from_aic(split=0)"
    assert vector[1].startswith("scores[")


def test_a_scalar_the_vector_reads_out_of_a_tile_and_the_cube_uses_is_warned_about(
    loops: dict,
) -> None:
    """SKW061 at the cube's read, pointing at the vector's pl.read."""
    (found,) = [h for h in loops[("shapes.py", 312)].hints if h.code == "SKW061"]
    assert (found.span.line, [r.span.line for r in found.related]) == (314, [313])
    assert "`blk` is computed on the vector core" in found.message


def test_a_block_table_read_from_gm_warns_of_nothing(loops: dict) -> None:
    """A view made before the InCore scope is a GM tensor: both cores read it."""
    assert [h.code for h in loops[("shapes.py", 196)].hints] == []
    assert [h.code for h in loops[("shapes.py", 203)].hints] == []
