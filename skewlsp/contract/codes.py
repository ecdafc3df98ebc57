"""The stable reason codes: what each one means, its default severity and its help.

Part of the contract every layer reads (:mod:`skewlsp.contract` re-exports it). Codes
never change meaning and are never reused; only wording may change. Severity is the
default an adapter shows; users may override it per code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "information", "hint"]

# Codes other modules test for by name (one spelling, here).
LEFT = "SKW010"
CONSUMER = "SKW020"  # demoted in the consumer role: the overlap comes from the peer's skew
STAGE_HINT = "SKW030"
INVALID_LOOP = "SKW040"
LOWERING_REJECTED = "SKW041"
UNKNOWN = "SKW050"
FIFO_REORDER = "SKW060"
SCALAR_ACROSS = "SKW061"
NOT_COMPILED = "SKW070"
DEPTH_REDUCED = "SKW080"  # PH-MR-001: MemoryReuse keeps fewer stages apart than asked
MEMORY_OVERFLOW = "SKW081"  # a space overflows (the loads, or all tiles packed): AllocateMemoryAddr
LEGACY_FALLBACK = "SKW082"  # MemoryReuse fits a space at no depth: its legacy packing
SYNTAX_ERROR = "SKW900"
UNUSED_SUPPRESSION = "SKW901"
UNREADABLE_FILE = "SKW902"

SEVERITY_RANK: dict[str, int] = {"hint": 0, "information": 1, "warning": 2, "error": 3}


@dataclass(frozen=True)
class ReasonCode:
    code: str
    verdict: str
    severity: Severity
    title: str
    explanation: str
    example: str
    fix: str
    origin: str = "analysis"  # "linter": a code about the lint run itself, not about a loop
    compiler_id: str | None = None  # the compiler's own diagnostic this code predicts


_CODES = [
    ReasonCode(
        "SKW001",
        "skewed",
        "information",
        "loop skewed",
        "The loop is a single round-trip cross-core loop in the producer role. The compiler "
        "runs its producer half D iterations ahead of its consumer half: a prologue of D "
        "produces, a sequential steady loop of D produces then D consumes per iteration, and "
        "an epilogue of D consumes.",
        "for i in pl.pipeline(0, 8, 1, stage=2):\n"
        "    qa = pl.tile.load(q, [i * 16, 0], [16, 64])\n"
        "    pl.tile.tpush_to_aiv(qa, split=0)\n"
        "    e = pl.tile.tpop_from_aiv(split=0)\n"
        "    pl.tile.store(e, [i * 16, 0], out)",
        "Nothing to fix: this is what the pass is for.",
    ),
    ReasonCode(
        "SKW002",
        "skewed",
        "warning",
        "loop skewed below the requested depth",
        "The requested depth D = max(2, stage - 1) needs trip % D == 0 and trip >= 2*D. The "
        "compiler falls back to the largest depth that fits the trip count, down to 1.",
        "for i in pl.pipeline(0, 3, 1, stage=2):  # trip 3: depth 2 infeasible -> depth 1",
        "Make the loop run a multiple of the requested depth, at least twice it (usually by "
        "changing the tile size that divides the trip). The `fix` line gives the trip, and "
        "the constant to change, when it can check them by deciding the changed loop again.",
    ),
    ReasonCode(
        "SKW010",
        "left",
        "hint",
        "not cross-core: left as a pipeline loop",
        "The body has no top-level tpush and tpop pair, so the loop is not cross-core and "
        "the skew pass leaves it. With stage=1 the lowering passes leave it as it is "
        "(CanonicalizeIOOrder then groups its loads and stores); with a stage skewlsp cannot "
        "see, what they do is not known. Any other stage gets one of SKW011 to SKW017 "
        "(or SKW041), saying what the lowering passes make of it.",
        "for i in pl.pipeline(0, 8, 1, stage=1):\n"
        "    t = pl.tile.load(x, [i * 16, 0], [16, 64])\n"
        "    pl.tile.store(t, [i * 16, 0], out)",
        "Nothing to fix. A tpush/tpop nested in an `if`, a `with` or an inner loop does not "
        "make the loop cross-core.",
    ),
    ReasonCode(
        "SKW011",
        "left",
        "hint",
        "replicated: stage copies of the body per iteration",
        "LowerPipelineLoops replicates the body `stage` times under a main loop of stride "
        "stage x step, each copy's loads in their own buffer (ping-pong). The trip is a "
        "multiple of the stage: no copy is left over.",
        "for i in pl.pipeline(0, 8, 1, stage=2):  # 4 iterations of 2 copies",
        "Nothing to fix.",
    ),
    ReasonCode(
        "SKW012",
        "left",
        "hint",
        "replicated with a remainder after the main loop",
        "The trip is not a multiple of the stage: after the main loop of `stage` copies, "
        "LowerPipelineLoops writes out trip % stage more copies, straight-line, in a "
        "buffer group of their own (they ping-pong only among themselves).",
        "for i in pl.pipeline(0, 10, 1, stage=4):  # 2 iterations of 4 copies, then 2",
        "Nothing to fix; a trip that the stage divides leaves no remainder.",
    ),
    ReasonCode(
        "SKW013",
        "left",
        "hint",
        "replicated, the remainder chosen at run time",
        "A start or stop known only at run time: LowerPipelineLoops computes the main "
        "loop's end (`unroll_main_end`) and the number of iterations left over "
        "(`unroll_rem`), and dispatches the remainder through an `if unroll_rem == 1 ... "
        "elif unroll_rem == stage - 1` chain, each branch with its own copies.",
        "for i in pl.pipeline(0, n, 1, stage=4):  # n a parameter: 3 remainder branches",
        "Nothing to fix; constant bounds let the compiler write the remainder out.",
    ),
    ReasonCode(
        "SKW014",
        "left",
        "warning",
        "stage above the trip: copies without a main loop",
        "The loop runs fewer times than `stage`. LowerPipelineLoops writes out one copy per "
        "iteration and no main loop, so the loop gets as many buffers as it has "
        "iterations: a stage equal to the trip gives exactly the same.",
        "for i in pl.pipeline(0, 2, 1, stage=4):  # 2 copies: the same as stage=2",
        "Write the stage the `fix` line gives (checked by deciding the loop again), or make "
        "the loop run at least `stage` times.",
    ),
    ReasonCode(
        "SKW015",
        "left",
        "hint",
        "rotated through slots (memory_planner=PTOAS)",
        "Under the PTOAS memory planner, LowerPipelineToSlots keeps one body and gives each "
        "top-level load slot `i % stage` of one allocation of `stage` slots, then runs the "
        "loop as an ordinary sequential loop: no copies, no remainder. A split-K loop "
        "AutoTileMatmulL0 writes once per output tile (before the skew pass) is met once "
        "per copy: each rotates through slots of its own while they fit.",
        "for i in pl.pipeline(64, stage=2):  # x = pl.load(...): slot i % 2",
        "Nothing to fix.",
    ),
    ReasonCode(
        "SKW016",
        "left",
        "hint",
        "declined by LowerPipelineToSlots: replicated instead",
        "Under the PTOAS memory planner, LowerPipelineToSlots takes only loops it can prove "
        "safe: stage 2 to 16, step 1, a start the stage divides, no enclosing pipeline it "
        "declined, and every top-level load in Vec, Mat or Acc with a static shape, not "
        "yielded, not viewed in place, its slots fitting on chip. It declines the others "
        "(all or nothing) and LowerPipelineLoops replicates them.",
        "for i in pl.pipeline(1, 9, 1, stage=2):  # start 1 is not a multiple of 2",
        "Nothing to fix unless you want the rotation: the message names the gate.",
    ),
    ReasonCode(
        "SKW017",
        "left",
        "information",
        "the loop never runs",
        "Constant bounds give a trip of 0: LowerPipelineLoops turns the loop into a plain "
        "sequential loop with no copies.",
        "for i in pl.pipeline(4, 4, 1, stage=2):",
        "Check the bounds.",
    ),
    ReasonCode(
        "SKW020",
        "demoted",
        "warning",
        "consumer role: a tile produced by the lead half feeds the body",
        "The first cross-core message (the lead) and its backward slice define a value that "
        "the rest of the body reads and that cannot be recomputed (a tile, or a scalar derived "
        "from a call). The producer half cannot run ahead, so the loop runs sequentially; its "
        "overlap comes from the peer core's skew. In a mixed kernel the value can be one the "
        "compiler makes: a tile hoisted out of the loop that matmuls of both halves take as "
        "the same operand reaches them through a single move into Left or Right, made before "
        "the first of them. A hand-written loop that waits on the tile its first message "
        "receives is information, not a warning, when nothing in its file can change that: "
        "its peer loop on the other core in the same module skews with the same trip, or the "
        "module has no loop on the other core (the producer is in another file). It stays a "
        "warning when the module holds a loop on the other core that is not its skewed peer "
        "(that loop is an edit here), or when the value is one its own core computes.",
        "for i in pl.pipeline(0, 4, 1, stage=2):\n"
        "    s = pl.tile.tpop_from_aic(split=0)\n"
        "    p = pl.tile.exp(s)\n"
        "    pl.tile.tpush_to_aic(p, split=0)",
        "Usually nothing: this is the consumer side of a producer that is skewed. If the "
        "carried value is an address, compute it from the loop variable with plain arithmetic; "
        "if it is a tile both halves read, load or slice it separately in each half.",
    ),
    ReasonCode(
        "SKW021",
        "demoted",
        "warning",
        "multi-round-trip: more than one message per direction",
        "The body has more than one top-level tpush or more than one tpop per iteration. "
        "Skewing only the lead message would reorder the in-order FIFO and feed the peer the "
        "wrong tile, so the compiler runs the loop sequentially.",
        "for i in pl.pipeline(0, 4, 1, stage=2):\n"
        "    pl.tile.tpush_to_aiv(a, split=0); x = pl.tile.tpop_from_aiv(split=0)\n"
        "    pl.tile.tpush_to_aiv(x, split=0); y = pl.tile.tpop_from_aiv(split=0)",
        "Split the loop so that each loop exchanges one tile per direction, or merge the "
        "messages into one tile.",
    ),
    ReasonCode(
        "SKW022",
        "demoted",
        "warning",
        "dynamic bounds",
        "The start or stop of the loop is not a compile-time integer after constant folding "
        "(a parameter, a value computed at run time, a local assigned inside a branch or "
        "loop). The compiler cannot build a prologue/epilogue and runs the loop sequentially.",
        "for i in pl.pipeline(0, n, 1, stage=2):  # n is a parameter",
        "Use a module-level constant, or a local assigned a constant at the top level of the "
        "function body.",
    ),
    ReasonCode(
        "SKW023",
        "demoted",
        "warning",
        "trip count below 2",
        "A skew needs at least two iterations (one prologue produce and one epilogue "
        "consume). With trip < 2 the loop runs sequentially.",
        "for i in pl.pipeline(0, 1, 1, stage=2):",
        "Let the loop run at least twice, or write it with pl.range.",
    ),
    ReasonCode(
        "SKW024",
        "demoted",
        "warning",
        "stage=1 on a cross-core loop",
        "stage=1 asks for no pipelining. A cross-core loop still leaves the pass as a "
        "sequential loop.",
        "for i in pl.pipeline(0, 8, 1, stage=1):",
        "Use stage=2 to skew the loop, or write it with pl.range.",
    ),
    ReasonCode(
        "SKW025",
        "demoted",
        "warning",
        "producer half reads loop-carried state",
        "A statement of the producer half (the lead message and what it depends on) reads an "
        "iter-arg: an init_values name, or a name the compiler's SSA conversion makes "
        "loop-carried because it is read before it is reassigned in the body. The producer "
        "cannot run ahead of the iteration that updates it.",
        "for i in pl.pipeline(0, 4, 1, stage=2):\n"
        "    acc = pl.tile.add(acc, x)\n"
        "    pl.tile.tpush_to_aiv(acc, split=0)\n"
        "    e = pl.tile.tpop_from_aiv(split=0)",
        "Keep loop-carried state in the consumer half: update it after the lead message.",
    ),
    ReasonCode(
        "SKW026",
        "demoted",
        "warning",
        "producer half depends on the consumer half",
        "A producer statement reads a value defined by a consumer statement, so it cannot be "
        "hoisted. Reserved: after SSA conversion no valid source reaches this.",
        "(no valid source reaches this code)",
        "Move the computation the lead needs before the lead.",
    ),
    ReasonCode(
        "SKW027",
        "demoted",
        "warning",
        "degenerate split",
        "The backward slice of the lead is the whole body, so there is no consumer half. "
        "Reserved: no valid source reaches this.",
        "(no valid source reaches this code)",
        "Nothing to skew: write the loop with pl.range.",
    ),
    ReasonCode(
        "SKW030",
        "-",
        "hint",
        "stage requests the same depth as a smaller stage",
        "The cross-core skew depth is max(2, stage - 1): stage=3 requests depth 2, exactly "
        "like stage=2.",
        "for i in pl.pipeline(0, 8, 1, stage=3):  # same as stage=2",
        "Write the smaller stage, or raise it to 4 or more for a deeper skew.",
    ),
    ReasonCode(
        "SKW040",
        "error",
        "error",
        "the compiler will reject this loop",
        "The pl.pipeline call is invalid (missing or non-constant stage, stage < 1, a "
        "non-constant or zero step on a cross-core loop) or the loop uses a construct the DSL "
        "parser refuses (a class attribute in a bound, an op not spelled `pl.`, a bare "
        "`pipeline(...)`).",
        "for i in pl.pipeline(0, 8, 1):  # stage is required",
        "Follow the message: pass stage= as a literal or module constant, use constant "
        "steps, spell ops as pl.<op>.",
    ),
    ReasonCode(
        "SKW041",
        "error",
        "error",
        "LowerPipelineLoops will reject this loop",
        "A same-core pipeline loop with stage > 1 is replicated with a stride of stage x "
        "step: LowerPipelineLoops refuses a step that is not a compile-time integer, a step "
        "of zero, and a non-positive step with bounds known only at run time.",
        "for i in pl.pipeline(0, 8, s, stage=2):  # s a parameter",
        "Use a constant, positive step (or stage=1, which replicates nothing).",
    ),
    ReasonCode(
        "SKW050",
        "unknown",
        "information",
        "verdict depends on a value skewlsp cannot see",
        "A bound or the stage of a cross-core loop comes from a value Python computes when "
        "the module is loaded (a call, an attribute, a name imported from a module that was "
        "not found). The compiler treats it as a constant, but its value is not visible "
        "statically, so skewlsp does not guess.",
        "N = compute_tiles()\nfor i in pl.pipeline(N, stage=2):",
        "Give the value as a literal or plain arithmetic on module constants, or tell "
        "skewlint where the imported module lives (`src`).",
    ),
    ReasonCode(
        "SKW060",
        "skewed",
        "warning",
        "the skew reorders a FIFO",
        "The pass counts only top-level tpush/tpop statements. A tpush nested in an `if` "
        "whose condition the compiler cannot prove from the loop bounds, or in an inner loop "
        "it does not collapse, does not stop the skew: it lands in the consumer half and, "
        "after the rewrite, is issued after the produces of the next D iterations. The peer "
        "core's in-order FIFO then receives tiles in another order than the source says, and "
        "nothing in the compiler notices (its verifier does not model FIFO order). skewlsp "
        "compares the order of every message this core sends on each FIFO, iteration by "
        "iteration, in the source and in the skewed schedule, and warns when they differ.",
        "for i in pl.pipeline(8, stage=2):\n"
        "    qt = pl.tile.load(q, [i * 16, 0], [16, 64])\n"
        "    pl.tpush_to_aiv(qt, split=0)  # lead: producer half\n"
        "    rt = pl.tpop_from_aiv(split=0)\n"
        "    if mode > 2:\n"
        "        pl.tpush_to_aiv(rt, split=0)  # not counted: consumer half\n"
        "    pl.tile.store(rt, [i * 16, 0], o)\n"
        "# source order on the FIFO to AIV: qt(0) rt(0) qt(1) rt(1) ...\n"
        "# after the skew (depth 2):       qt(0) qt(1) qt(2) qt(3) rt(0) rt(1) qt(4) ...",
        "Make the peer expect the skewed order, or keep every message of the loop at the top "
        "level (then the loop is a multi-round-trip and runs sequentially), or move the "
        "conditional message out of the pipeline loop.",
    ),
    ReasonCode(
        SCALAR_ACROSS,
        "-",
        "warning",
        "a scalar computed on one core is read on the other",
        "ExpandMixedKernel sends tiles between the cube and the vector core (tpush/tpop), "
        "never scalars. A scalar only one core can compute, such as a value `pl.read` takes "
        "out of a tile (it runs where the tile lives; a slice made inside the InCore scope "
        "is loaded to Vec), is not sent to the other core when a statement there reads it: "
        "that core's copy of the statement reads a variable nothing defines (the compiler's "
        "IR names it `..._FREE_VAR`), and the compiler reports nothing. The verdicts follow "
        "the compiler: the scalar is not a message.",
        "with pl.at(level=pl.Level.CORE_GROUP):\n"
        "    row = table[b : b + 1, 0:8]  # made in the scope: a tile, loaded to Vec\n"
        "    for t in pl.pipeline(8, stage=2):\n"
        "        blk = pl.cast(pl.read(row, [0, t]), pl.INDEX)  # vector (tile.read)\n"
        "        s = pl.matmul(q, kv[blk * 32 : blk * 32 + 32, :])  # cube reads blk",
        "Read the scalar from a GM tensor, which both cores can do: `pl.read` on the "
        "kernel's tensor parameter, or on a view made before the InCore scope; or compute "
        "it from the loop variable.",
    ),
    ReasonCode(
        NOT_COMPILED,
        "not_compiled",
        "hint",
        "not compiled: Python never builds this loop's program, or Simplify removes it",
        "The loop sits in a module-level `if` branch that Python does not take when the "
        "module loads, or in a module-level `for` that runs zero times, so the class or "
        "function around it is never defined and the compiler never sees the loop; or, in "
        "a kernel, in the branch of an `if` whose test Simplify proves the other way "
        "(`if VOCAB_TAIL != 0:` with `VOCAB_TAIL` 0): its Fold A drops that branch, loops "
        "and all, before the skew pass. skewlsp "
        "evaluates the condition the way it evaluates configuration modules: module "
        "constants fold, and the environment and command line are the build the "
        "configuration assumes (`environment`, `argv`, `--env`, `--argv`), empty by default "
        "(`os.environ.get(\"X\")` is None, `os.environ.get(\"X\", d)` is d, no arguments); "
        "skewlint's own environment is never read. A condition it cannot evaluate "
        "(`__name__`, a call) leaves both branches analysed.",
        'MODE = "fast"\n'
        'if MODE == "slow":\n'
        "    @pl.program\n"
        "    class Slow:  # never defined: its loops are not compiled\n"
        "        ...",
        "Nothing to fix if the branch is meant for another configuration; to see its "
        "verdicts, assume the build that selects it (`--env NAME=VALUE` or `--argv ARGS`, "
        "or `environment` or `argv` in the configuration) or change the constant.",
    ),
    ReasonCode(
        DEPTH_REDUCED,
        "-",
        "warning",
        "MemoryReuse cannot keep every stage apart: the stages' slots exceed the space, or "
        "its other tiles take the room",
        "LowerPipelineLoops replicates a same-core pipeline loop's body: its `stage` clones "
        "(or, with no main loop, its copies) form one stage group, and MemoryReuse gives "
        "the group's clones separate buffers only up to the depth its memory space affords: "
        "at most capacity / slot, where the slot is the group's largest tile there, and "
        "less when the space's other tiles leave no room (it then sheds a level of depth "
        "from the group with the largest slot until the space fits). A loop "
        "SkewCrossCorePipeline skews is cloned by that pass instead: its D producer and D "
        "consumer clones of each stage form a stage group of their own, the same way. "
        "The compiler says so "
        "after a full compile in its PH-MR-001 perf hint, slot-bound (\"This operand alone "
        "needs ...\") or space-pressure. skewlsp reports it at the loop, whatever the cause "
        "and the space, where it knows enough to be sure. Slot-bound: the loop's own loads "
        "already need more than the space (after the PTO-ISA reserve of the UB), whatever "
        "else the function holds; in Left and Right, the loop's own L0 tiles (its "
        "matmuls' operands or K slices) when one of them leaves room for a single stage, "
        "even where the function's other L0 tiles are not known; in Acc (L0C) of a "
        "replicated loop's cube copy, the accumulators of the matmuls AutoTileMatmulL0 "
        "splits into K loops (one per stage; a matmul left whole puts none in the loop's "
        "stage group), and of a skewed loop's cube copy, every matmul's result. The "
        "copies LowerPipelineLoops writes after a main loop are a stage "
        "group of their own: where fewer of them are kept apart, they get a finding of "
        "their own. Space-pressure, where "
        "skewlsp models every tile of the "
        "space: in Left and Right (L0A, L0B) of a cube function (the L0 tiles "
        "AutoTileMatmulL0 gives each matmul, its K loops, each a stage group of its own, "
        "and the loop's clones of them, a skewed loop's clones on the cube too), the "
        "message naming the groups that share the "
        "space; in Vec, where it knows every tile of the function (what each stage computes: "
        "a widened copy, a product, a reduction's workspace; the tiles around the loop it "
        "reads; the other loops' stage groups; in a mixed function, the vector core's, above "
        "the cube -> vector ring it reserves) and packs them together, the message naming "
        "the largest co-resident tiles. In Mat (L1) of a cube function it shows the depth "
        "kept where it knows every tile the function loads there and they fit (in buffers "
        "of their own, or packed with their lifetimes as MemoryReuse packs them), and the "
        "legacy fallback and overflow where no depth fits (SKW082, SKW081); of a skewed "
        "loop's cube copy (its clones' loads in the skew's stage group, above the buffer "
        "of the vector -> cube ring), also the depth it loses there, slot-bound or "
        "space-pressure, naming the largest co-resident tiles. Elsewhere "
        "(Mat where that is not known, a function with a tile or an op it does not model, "
        "an L0 space whose tiles it cannot tell: a matmul outside the "
        "pipeline loops, an inline helper's call, a tile split in M or N) it shows the "
        "space as `fits alone` or with the reason, in the hover, `full` output and JSON. "
        "The depth the hint gives is the guard's: clones fewer stages apart never share a "
        "buffer, clones further apart may but need not, since the tiles' lifetimes decide "
        "the packing too (CanonicalizeIOOrder issues every clone's loads before the clones "
        "compute, so one stage's load is live while another computes). Where skewlsp packs "
        "every tile of the space and that packing still gives each stage's copy of the "
        "group's largest tiles a buffer of its own further apart than the hint's depth, "
        "the message, the hover and `full` output say both depths, the hint's and the "
        "IR's (`ir_depth` in JSON); so for a K loop AutoTileMatmulL0 makes, whose two "
        "slices are extracted ahead of their matmuls and stay in two buffers though the "
        "guard keeps one: beside its depth in the message that names it, and on the "
        "loop's Left or Right record (`k_loops` in JSON). An imported inline helper's loop "
        "is decided at each call with the caller's values; where the caller's file sets a "
        "module attribute the helper reads (`config.TOKENS = 48` in a file that calls "
        "`scale_rows`, which reads TOKENS), that copy is reported at the call, since no "
        "analysis of the helper's module sees it.",
        "BLOCKS = 3\n"
        "for i in pl.pipeline(BLOCKS, stage=4):  # three 64 KB copies: Vec holds two\n"
        "    t = a[i * 16 : i * 16 + 16, :]  # [16, 1024] FP32",
        "Slot-bound: ask for the depth that fits (the message gives it, checked by packing "
        "the loop again), or load smaller tiles (the message gives the largest that fits). "
        "Space-pressure: the message names the groups or tiles that share the space, whose "
        "tiles take the room the stages need; it offers the `stage=` under which the whole "
        "function's tiles of the space (in Vec), or the scope's Left and Right tiles (in "
        "L0), laid out and packed again with the loop restaged, keep every stage apart, "
        "when one does (a loop kept at 1 of 2 has none to offer).",
        compiler_id="PH-MR-001",
    ),
    ReasonCode(
        MEMORY_OVERFLOW,
        "error",
        "error",
        "the loop's loads alone, its function's tiles, or a scope's tiles, overflow a "
        "memory space: the compile stops",
        "In the main loop LowerPipelineLoops leaves, CanonicalizeIOOrder puts every "
        "clone's loads ahead of the clones' compute, so all of them are live at once and "
        "each needs its own buffer. When they alone exceed the memory space, MemoryReuse "
        "finds no depth that fits, falls back to its legacy packing (a warning: SKW082), and "
        "AllocateMemoryAddr stops the compile: \"Vec buffer usage (N bytes) exceeds "
        "platform limit (C bytes)\". The function's other tiles only add to this: where "
        "every Vec tile of the function is known (above the cube -> vector ring a mixed "
        "function reserves), or every Mat tile of a cube function (above the vector -> "
        "cube ring's buffer, where its matmuls read tiles the vector sends), and "
        "MemoryReuse, packing "
        "them together, finds no depth that fits and its legacy packing does not fit "
        "either, the loop gets this error too, naming the buffers that take the space. So "
        "does a skewed loop whose vector copy (demoted to a sequential loop: no stage "
        "buffers of its own) runs in a function whose tiles overflow Vec above the ring, "
        "two slots of the largest tile crossing either way (the scores the vector pops, or "
        "the tile it sends the cube's matmul). An "
        "InCore scope that holds no pipeline loop (a `with pl.at(...)` at a `@pl.jit` "
        "kernel's top level, an InCore function) is compiled the same way: where every one "
        "of its Vec tiles is known and, packed by MemoryReuse, they do not fit, skewlsp "
        "reports the scope itself at its header (the `with` line, or the `def`), naming "
        "the tiles that take the space; such a report is of no loop (no loop fields, no "
        "preview). An inline helper's such scope is spliced into each kernel that calls "
        "it: where the kernel's file sets a module attribute the helper reads before it "
        "imports it (`config.TOKENS = config.PREFILL_TOKENS`), the scope is laid out with "
        "those sizes and reported at the kernel's call when it overflows, through any "
        "number of helpers.",
        "for i in pl.pipeline(4, stage=2):  # two 64 KB loads per stage: 256 KB at once\n"
        "    qi = q[i * 16 : i * 16 + 16, :]\n"
        "    ki = k[i * 16 : i * 16 + 16, :]",
        "Lower the stage, or load smaller tiles (in a scope without a loop: smaller tiles, "
        "or fewer of them live at once; above the cross-core ring: a smaller tile crossing "
        "it, or fewer slots, `optimizations=[pl.cross_core_slot(slot_num=N)]` on the "
        "scope): the message gives the bytes needed and the space's capacity.",
        compiler_id="AllocateMemoryAddr",
    ),
    ReasonCode(
        LEGACY_FALLBACK,
        "-",
        "warning",
        "MemoryReuse fits the memory space at no depth and falls back to its legacy packing",
        "While a memory space does not fit, MemoryReuse sheds a level of depth from one "
        "stage group after another; when no group has a level left to shed (or the "
        "re-packs it may take are spent) and the space still does not fit, it packs the "
        "space again the way it did before it kept stages apart (its legacy packing) and "
        "warns: \"capacity-gated reuse could not fit memory space Vec at any "
        "double-buffering depth; fell back to the legacy packing\", adding \"(which also "
        "overflows — reduce tile size or stage count)\" when that packing does not fit "
        "either (then AllocateMemoryAddr stops the compile: SKW081). The compiler puts "
        "the warning on the function after a full compile; skewlsp says it at each "
        "replicated loop of the space, where it is certain: the loop's own loads fit at no "
        "depth, or, in Vec and Mat, every tile of the function there is known and packed "
        "together (in Vec also at a skewed loop whose demoted vector copy runs there); and "
        "at the header of an InCore scope with no pipeline loop whose Vec tiles, every one "
        "known, overflow the space (beside its SKW081). It "
        "says nothing when one buffer alone is larger than the space (the compiler does "
        "not warn then: the allocation is impossible, not a lost depth).",
        "for i in pl.pipeline(4, stage=2):  # two 64 KB loads per stage: 256 KB at once\n"
        "    qi = q[i * 16 : i * 16 + 16, :]\n"
        "    ki = k[i * 16 : i * 16 + 16, :]",
        "Lower the stage, or load smaller tiles, until the stages' loads fit the space "
        "together with the function's other tiles there.",
        compiler_id="MemoryReuse",
    ),
    ReasonCode(
        "SKW900",
        "error",
        "error",
        "the file cannot be parsed",
        "The file has a syntax error, so no loop in it can be analysed (nor compiled).",
        "for i in pl.pipeline(0, 8, stage=2)  # missing colon",
        "Fix the syntax error at the reported position.",
    ),
    ReasonCode(
        UNUSED_SUPPRESSION,
        "-",
        "warning",
        "unused suppression",
        "A `# skewlint: ignore[...]` or `# skewlint: file-ignore[...]` comment (or one of "
        "the codes it lists) suppresses nothing: the loop it sits on no longer reports "
        "that code, the code is unknown, or there is no loop there at all. Reporting it "
        "keeps suppressions from outliving the problem they hid.",
        "# skewlint: ignore[SKW021]\n"
        "for i in pl.pipeline(0, 8, 1, stage=2):  # now skews: SKW001, not SKW021",
        "Delete the comment, or the codes in it that no longer apply.",
        origin="linter",
    ),
    ReasonCode(
        UNREADABLE_FILE,
        "-",
        "error",
        "the file cannot be read",
        "The file could not be read as Python source: it is not readable, it is binary "
        "(contains NUL bytes), or it is not valid text in its declared encoding "
        "(UTF-8 unless a PEP 263 coding comment says otherwise). Unreadable and binary "
        "files are always reported; a text file that never mentions `pipeline` is "
        "skipped without being decoded, so a wrong encoding is reported only in files "
        "that do.",
        "(a file saved as Latin-1 without a coding comment)",
        "Fix the file's permissions or encoding, or exclude it with `exclude` / "
        "`extend-exclude`.",
        origin="linter",
    ),
]

CODES: dict[str, ReasonCode] = {c.code: c for c in sorted(_CODES, key=lambda c: c.code)}


def severity_of(code: str) -> Severity:
    return CODES[code].severity
