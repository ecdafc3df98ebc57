"""A function's stage-group tiles from the analysis' own records of its loops, through
MemoryReuse and AllocateMemoryAddr, against what pypto e2d0f78ae did to the kernels of
tests/fixtures/memory/models/mem_llm (default planner, Ascend910B)."""

from __future__ import annotations

from pathlib import Path

from skewlsp.analysis.driver import analyze_models
from skewlsp.analysis.lower_pipeline.loop_facts import SlotLoad
from skewlsp.analysis.memory.allocate_memory_addr import allocate_memory_addr
from skewlsp.analysis.memory.canonicalize_io_order import (
    LoopLowering,
    ReplicatedLoop,
    ScopeLayout,
    TileOrigin,
    function_tiles,
    lowering_of,
    scope_layout,
)
from skewlsp.analysis.memory.memory_reuse import LegacyFallback, ReuseTile, memory_reuse
from skewlsp.analysis.passes.scope_tile_ops import ScopeLoop, ScopeTiles, TileOp
from skewlsp.common.resolver import RecordingResolver
from skewlsp.contract import Lowering, Span

MEM_LLM = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "models" / "mem_llm"


def replicated(function: str) -> ReplicatedLoop:
    """The analysis' record of the one loop of ``function`` in vector.py."""
    path = MEM_LLM / "vector.py"
    models = analyze_models(
        path.read_text(), str(path), resolver=RecordingResolver((MEM_LLM,))
    )
    (model,) = [m for m in models if m.report.function == function]
    lowering, loads = model.report.lowering, model.facts.slot_loads
    assert lowering is not None and loads is not None
    return ReplicatedLoop(loads, lowering.stage, lowering.main_trip, lowering.tail)


def vec_footprint(loops: list[ReplicatedLoop]):
    found = function_tiles(loops)
    assert found is not None
    result = memory_reuse(found.tiles)
    slots = [max(found.tiles[i].bytes for i in members) for members in result.buffers["Vec"]]
    return result, allocate_memory_addr({"Vec": slots})


def test_four_wide_loads_overflow_vec_as_the_compiler_says():
    # The compiler: a legacy-packing warning, then "Vec buffer usage (262144 bytes)
    # exceeds platform limit (188416 bytes)" in AllocateMemoryAddr.
    result, placed = vec_footprint([replicated("four_stages_of_wide_rows")])
    assert result.fallbacks == (LegacyFallback("Vec", still_overflows=True, warned=True),)
    (overflow,) = placed.overflows
    assert overflow.message == "Vec buffer usage (262144 bytes) exceeds platform limit (188416 bytes)"


def test_two_stages_whose_sum_is_written_over_the_load_use_what_the_compiler_used():
    # The compiler placed two_stages_fit's Vec buffers up to 65536.
    result, placed = vec_footprint([replicated("two_stages_fit")])
    assert placed.used == {"Vec": 65536}
    assert result.hints == ()


def test_the_loads_of_four_widened_stages_take_four_buffers_as_in_the_compiler():
    # The compiler: four 24 KB load buffers and one 48 KB buffer for the widened rows
    # (147456 in all); the widened rows are computed tiles, not known here yet.
    _, placed = vec_footprint([replicated("four_widened_stages")])
    assert placed.used == {"Vec": 4 * 24576}


def test_a_remainder_is_a_group_of_its_own_after_the_main_loop():
    # LowerPipelineLoops numbers one group per replicated region: pypto stamped the
    # main clones of pypto-lib deepseek_v4_pro/hc_post.py's stage=2 loop "1:0" and
    # "1:1", and its one-copy remainder "2:0".
    load = SlotLoad("t", "Vec", 14336)
    found = function_tiles([ReplicatedLoop((load,), stage=2, main_trip=1, tail=1)])
    assert found is not None
    assert [t.membership for t in found.tiles] == [((0, 0),), ((0, 1),), ((1, 0),)]
    assert found.origins[2] == TileOrigin(0, "tail", 0, "t")
    # the main loop's two loads are live together; the remainder's starts after them
    main0, main1, tail = (t.live for t in found.tiles)
    assert main0[1] > main1[0] and tail[0] >= max(main0[1], main1[1])


def test_each_clones_loads_are_live_until_its_own_compute():
    loads = (SlotLoad("x", "Mat", 4096), SlotLoad("w", "Mat", 32768))
    found = function_tiles([ReplicatedLoop(loads, stage=2, main_trip=2)])
    assert found is not None
    assert found.tiles == (
        ReuseTile("Mat", 4096, (0, 4), ((0, 0),), load=True),
        ReuseTile("Mat", 32768, (1, 4), ((0, 0),), load=True),
        ReuseTile("Mat", 4096, (2, 5), ((0, 1),), load=True),
        ReuseTile("Mat", 32768, (3, 5), ((0, 1),), load=True),
    )


def test_a_load_with_no_static_size_leaves_the_function_unknown():
    unknown = SlotLoad("t", "Vec", None, unknown="`ROWS`")
    assert function_tiles([ReplicatedLoop((unknown,), stage=2, main_trip=2)]) is None


def test_the_remainders_copies_keep_their_order():
    # CanonicalizeIOOrder reorders only the main loop's body: a remainder copy's load
    # is read before the next copy's is made.
    load = SlotLoad("t", "Vec", 65536)
    found = function_tiles([ReplicatedLoop((load,), stage=4, main_trip=0, tail=3)])
    assert found is not None
    assert [t.live for t in found.tiles] == [(0, 1), (2, 3), (4, 5)]


def test_a_whole_scope_is_laid_out_loads_first_then_each_clones_compute_and_store():
    # CanonicalizeIOOrder's ladder: every clone's load, then clone 0's compute and its
    # store, then clone 1's (each stage stores right after its compute).
    body = (
        TileOp("t", (), ((16, 512), "BF16"), "t (load)", load=True, loop=0),
        TileOp("w", ("t",), ((16, 512), "FP32"), "w (cast)", loop=0, forbid=("t",)),
        TileOp(None, ("w",), None, "a store", loop=0),
    )
    scope = ScopeTiles(body, (ScopeLoop(Span(1, 1, 1, 1), True),))
    laid = scope_layout(scope, [LoopLowering((("main", 2),))])
    assert isinstance(laid, ScopeLayout)
    assert [(t.bytes, t.live, t.membership) for t in laid.tiles] == [
        (16384, (0, 2), ((0, 0),)),
        (16384, (1, 4), ((0, 1),)),
        (32768, (2, 3), ((0, 0),)),
        (32768, (4, 5), ((0, 1),)),
    ]
    assert laid.tiles[2].forbid == {0}  # a widening cast does not take its load's buffer
    assert laid.groups == ((0,),)


def test_a_branch_in_a_replicated_body_keeps_its_loads_in_its_own_clone():
    # The `if` is one statement of the replicated body (CanonicalizeIOOrder reorders the
    # body's list and, apart, each branch's): clone 1's load is not lifted above clone
    # 0's compute, as a load at the top of the body would be; in its branch it comes
    # before the branch's compute (the scalar `c` and the product).
    body = (
        TileOp("w", (), ((16, 512), "FP32"), "w (full)", loop=1),
        TileOp("t", (), ((16, 512), "BF16"), "t (load)", load=True, loop=1),
        TileOp("m", ("t", "w"), ((16, 512), "FP32"), "m (mul)", loop=1),
        TileOp(None, ("m",), None, "a store", loop=1),
    )
    blocks = (ScopeLoop(Span(1, 1, 1, 1), True), ScopeLoop(None, False, parent=0, branch=True))
    laid = scope_layout(ScopeTiles(body, blocks), [LoopLowering((("main", 2),)), LoopLowering(())])
    assert isinstance(laid, ScopeLayout)
    tiles = zip(laid.labels, laid.tiles, strict=True)
    assert [(label, t.live, t.membership) for label, t in tiles] == [
        ("t (load)", (0, 2), ((0, 0),)),
        ("w (full)", (1, 2), ((0, 0),)),
        ("m (mul)", (2, 3), ((0, 0),)),
        ("t (load)", (4, 6), ((0, 1),)),
        ("w (full)", (5, 6), ((0, 1),)),
        ("m (mul)", (6, 7), ((0, 1),)),
    ]
    assert laid.groups == ((0,), ())


def test_a_value_carried_through_a_loop_is_one_buffer_with_its_initial_value():
    # MemoryReuse retargets the last clone's result onto the initial value's buffer
    # (pypto-lib qwen3_32b/decode.py rmsnorm: partial_sq__tile 0 and 4 share mem_vec_37);
    # the clones between keep their own.
    ops = (
        TileOp("s", (), ((1, 16), "FP32"), "s (full)"),
        TileOp("s", ("s",), ((1, 16), "FP32"), "s (add)", loop=0),
        TileOp("r", ("s",), ((1, 16), "FP32"), "r (mul)"),
    )
    scope = ScopeTiles(ops, (ScopeLoop(Span(1, 1, 1, 1), True),))
    laid = scope_layout(scope, [LoopLowering((("main", 2),))])
    assert isinstance(laid, ScopeLayout)
    assert [(t.live, t.membership) for t in laid.tiles] == [
        ((0, 4), ()),  # the initial value, the last clone's result, read after the loop
        ((1, 2), ((0, 0),)),  # clone 0's result, read by clone 1
        ((4, 4), ()),  # read by nothing: it ends where it starts
    ]


def test_a_tile_read_in_a_loop_lives_to_the_loops_end():
    ops = (
        TileOp("c", (), ((16, 512), "FP32"), "c (load)", load=True),
        TileOp("t", (), ((16, 512), "FP32"), "t (load)", load=True, loop=0),
        TileOp("m", ("t", "c"), ((16, 512), "FP32"), "m (mul)", loop=0),
        TileOp(None, ("m",), None, "a store", loop=0),
    )
    scope = ScopeTiles(ops, (ScopeLoop(Span(1, 1, 1, 1), True),))
    laid = scope_layout(scope, [LoopLowering((("main", 2),))])
    assert isinstance(laid, ScopeLayout)
    assert laid.tiles[0].live == (0, 7)


def test_a_loop_whose_lowering_is_not_known_leaves_the_scope_not_laid_out():
    ops = (TileOp("t", (), ((16, 512), "FP32"), "t (load)", load=True, loop=0),)
    scope = ScopeTiles(ops, (ScopeLoop(Span(1, 1, 1, 1), True),))
    dynamic = Lowering("replicated", "SKW011", "replicated", stage=3, main_trip=None, branches=2)
    why = "a pipeline loop of the function whose trip is known only at run time"
    assert lowering_of(dynamic) == why
    assert scope_layout(scope, [why]) == why


def test_a_loop_restaged_splits_its_trip_again_into_a_main_loop_and_a_remainder():
    eight = LoopLowering((("main", 4),), trip=8)
    assert eight.restaged(3) == LoopLowering((("main", 3), ("tail", 2)), trip=8)
    assert LoopLowering(()).restaged(2) is None  # no trip known


def test_a_loop_nested_in_a_replicated_one_is_in_both_groups_as_the_compiler_lays_it_out():
    # blocks.py: a column loop (stage=2, trip 2) inside a row loop (stage=2, trip 4). The
    # compiler's InitMemRef, in order (bytes, pipeline_membership): both rows' loads
    # (49152 B, 1:0 and 1:1), then row 0's row_sum (workspace, [16, 1]), its column
    # loop's loads and sums (32768 B, 0:0;1:0 and 0:1;1:0), then row 1's. The inner loop
    # is numbered first (LowerPipelineLoops lowers it before the loop around it).
    ops = (
        TileOp("%1", (), ((16, 768), "FP32"), "a (load)", load=True, loop=0),
        TileOp("%2", ("%1",), ((16, 768), "FP32"), "tmp_tile (row_sum)", loop=0),
        TileOp("s", ("%1", "%2"), ((16, 1), "FP32"), "s (row_sum)", loop=0, forbid=("%1", "%2")),
        TileOp("col", (), ((16, 512), "FP32"), "col (load)", load=True, loop=1),
        TileOp("%3", ("col", "s"), ((16, 512), "FP32"), "add", loop=1, forbid=("s",)),
        TileOp(None, ("%3",), None, "a store", loop=1),
    )
    loops = (ScopeLoop(Span(24, 1, 1, 1), True), ScopeLoop(Span(27, 1, 1, 1), True, parent=0))
    laid = scope_layout(
        ScopeTiles(ops, loops), [LoopLowering((("main", 2),), 4), LoopLowering((("main", 2),), 2)]
    )
    assert isinstance(laid, ScopeLayout)
    row = [((0, 0), (1, 0)), ((0, 1), (1, 0))]
    found = [(t.bytes, tuple(sorted(t.membership))) for t in laid.tiles]
    assert found == [
        (49152, ((1, 0),)),
        (49152, ((1, 1),)),
        (49152, ((1, 0),)),
        (64, ((1, 0),)),  # s, [16, 1] FP32
        *[(32768, m) for m in row * 2],
        (49152, ((1, 1),)),
        (64, ((1, 1),)),
        *[(32768, tuple(sorted(((g, c), (1, 1))))) for (g, c), _ in row * 2],
    ]
    assert laid.groups == ((1,), (0,))
    reuse = memory_reuse(laid.tiles)
    # the compiler: PH-MR-001 for group 1 only (Vec, 1 of 2, 49152 B, space-pressure);
    # the column loop's group keeps both buffers
    hints = [(h.group, h.space, h.achieved, h.slot, h.cause) for h in reuse.hints]
    assert hints == [(1, "Vec", 1, 49152, "space-pressure")]
    assert reuse.achieved[("Vec", 0)] == 2


def test_run_time_bounds_at_stage_2_are_the_main_clones_then_one_branch_copy_in_its_group():
    # pypto-lib deepseek_v4_pro/hc_post.py:54 (`pl.pipeline(t0, t0 + T_TILE, stage=2)`):
    # the compiler's InitMemRef stamps the main loop's two clones 1:0 and 1:1 and the
    # `if rem == 1` branch's copy 2:0 (group 0 is the nested loop's)
    dynamic = Lowering("replicated", "SKW013", "", stage=2, main_trip=None, branches=1)
    assert lowering_of(dynamic, nested_here=False) == LoopLowering((("main", 2), ("tail", 1)))
    deeper = Lowering("replicated", "SKW013", "", stage=4, main_trip=None, branches=3)
    assert lowering_of(deeper) == (
        "a pipeline loop of the function whose trip is known only at run time"
    )


def skewed_cube_copy() -> ScopeTiles:
    """The Mat tiles of a cube copy the skew runs ahead (the random attention kernels'
    k17): statement 0 loads the rows, statement 1 the weights its matmul reads (both
    the producer half's), statement 2 the values the consumer half's matmul reads."""
    body = (
        TileOp("xi", (), ((32, 384), "BF16"), "xi (load)", load=True, loop=0, statement=0),
        TileOp("%1", (), ((384, 256), "BF16"), "w (load)", load=True, loop=0, statement=1),
        TileOp(None, ("%1", "xi"), None, "a read", loop=0, statement=1),
        TileOp("%2", (), ((256, 128), "BF16"), "v (load)", load=True, loop=0, statement=2),
        TileOp(None, ("%2",), None, "a read", loop=0, statement=2),
    )
    return ScopeTiles(body, (ScopeLoop(Span(1, 1, 1, 1), True),))


def test_a_skewed_copy_is_its_producers_ahead_then_a_steady_loop_then_its_consumers():
    # SkewCrossCorePipeline at depth 2: the producer half twice, a steady loop of the
    # producer half twice then the consumer half twice, the consumer half twice; clone i
    # of either half in stage i of the skew's one group (numbered from 1 << 20), each
    # clone in its statements' order (the steady loop is sequential: nothing is lifted).
    lowering = LoopLowering((("skew", 2),), halves=(True, True, False))
    laid = scope_layout(skewed_cube_copy(), [lowering], "Mat")
    assert isinstance(laid, ScopeLayout)
    group = 1 << 20
    rows, weights, values = "xi (load)", "w (load)", "v (load)"
    tiles = zip(laid.labels, laid.tiles, strict=True)
    assert [(label, t.live, t.membership) for label, t in tiles] == [
        (rows, (0, 2), ((group, 0),)),
        (weights, (1, 2), ((group, 0),)),
        (rows, (3, 5), ((group, 1),)),
        (weights, (4, 5), ((group, 1),)),
        (rows, (6, 8), ((group, 0),)),
        (weights, (7, 8), ((group, 0),)),
        (rows, (9, 11), ((group, 1),)),
        (weights, (10, 11), ((group, 1),)),
        (values, (12, 13), ((group, 0),)),
        (values, (14, 15), ((group, 1),)),
        (values, (17, 18), ((group, 0),)),
        (values, (19, 20), ((group, 1),)),
    ]
    assert laid.groups == ((group,),)


def test_the_skews_group_in_mat_sheds_as_the_compiler_sheds_it():
    # skewed_weights.py:29 (compiled): 24 KB of rows and 192 KB of weights a stage above
    # a 3 x 32 KB ring; "only 1 of 2 buffers fit (196608 B per stage, 425984 B free after
    # 98304 B reserved)", space-pressure.
    lowering = LoopLowering((("skew", 2),), halves=(True, True, False))
    laid = scope_layout(skewed_cube_copy(), [lowering], "Mat")
    assert isinstance(laid, ScopeLayout)
    reuse = memory_reuse(laid.tiles, reserved={"Mat": 98304})
    (hint,) = reuse.hints
    assert (hint.space, hint.group, hint.requested, hint.achieved) == ("Mat", 1 << 20, 2, 1)
    assert (hint.slot, hint.free, hint.cause) == (196608, 425984, "space-pressure")


def test_a_tile_of_a_skewed_loop_in_neither_half_leaves_the_scope_not_laid_out():
    lowering = LoopLowering((("skew", 2),), halves=(True, None, False))
    why = "a tile of a skewed loop in neither half of its clones"
    assert scope_layout(skewed_cube_copy(), [lowering], "Mat") == why
