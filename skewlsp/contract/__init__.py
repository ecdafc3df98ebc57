"""The contract between the analysis and its adapters: codes, reports, and their text.

Everything the CLI and the server read about a loop is here, in one package (what
Fixit's ``ftypes.py`` is): the stable reason codes with their
documentation (:mod:`.codes`, re-exported here), the plain, frozen data of a
:class:`LoopReport` (so that reports can be cached, pickled across a process pool and
compared in tests), and the few texts every adapter shows the same way. No adapter type
(LSP, JSON) leaks in, and nothing here knows how it will be shown. It imports nothing of
skewlsp outside itself: every layer may read it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Literal

from skewlsp.contract.assumed import (  # noqa: F401 - re-exported: the contract is one door
    ARGV,
    ARGV_UNKNOWN,
    Assumption,
    Assumptions,
    Variant,
    is_option,
)
from skewlsp.contract.codes import (  # noqa: F401 - re-exported: the contract is one door
    CODES,
    CONSUMER,
    DEPTH_REDUCED,
    FIFO_REORDER,
    INVALID_LOOP,
    LEFT,
    LEGACY_FALLBACK,
    LOWERING_REJECTED,
    MEMORY_OVERFLOW,
    NOT_COMPILED,
    SCALAR_ACROSS,
    SEVERITY_RANK,
    STAGE_HINT,
    SYNTAX_ERROR,
    UNKNOWN,
    UNREADABLE_FILE,
    UNUSED_SUPPRESSION,
    ReasonCode,
    Severity,
    severity_of,
)

# "not_compiled": the loop's program is never built (a module-level branch Python skips).
Verdict = Literal["skewed", "demoted", "left", "error", "unknown", "not_compiled"]
Core = Literal["aic", "aiv"]
# How every adapter names a core: one table.
CORE_TITLES: dict[str, str] = {"aic": "cube (AIC)", "aiv": "vector (AIV)"}
CORE_NAMES: dict[str, str] = {"aic": "cube", "aiv": "vector"}  # in running text

# How the analysis reads an imported module without touching the file system:
# ``resolver(module, level, importing_path)`` returns its text, or None.
Resolver = Callable[[str, int, "str | None"], "str | None"]
# ``importers(path)``: (path, text) of the other modules of the project that may import the
# module at ``path`` (a superset: the analysis checks each import resolves to it).
Importers = Callable[["str | None"], "Sequence[tuple[str, str]]"]


@dataclass(frozen=True, order=True)
class Span:
    """A source range: 1-based lines, 1-based columns in code points, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int

    def shifted(self, lines: int) -> Span:
        """The same range moved down by ``lines`` (units are parsed out of context)."""
        return Span(self.line + lines, self.column, self.end_line + lines, self.end_column)


@dataclass(frozen=True)
class Related:
    """Another place a finding points at (LSP relatedInformation, SARIF relatedLocations)."""

    span: Span
    message: str


@dataclass(frozen=True)
class Edit:
    """Replace the text at ``span`` with ``text``: a fix, as data every adapter can apply."""

    span: Span
    text: str


# How a fix line may be applied, in ruff's terms: "safe" (``--fix``: the compiled code stays
# the same, whatever the deployment), "unsafe" (``--fix --unsafe-fixes``: the same for the
# values decided now, but it bakes a value the loop's bounds read into the kernel), "advice"
# (no edit: a change a human must make, e.g. a tile constant other code reads too).
Applicability = Literal["safe", "unsafe", "advice"]


@dataclass(frozen=True)
class StageFix:
    """The ``stage=`` edit a loop's fix line offers, and what it was checked to give.

    ``promised`` is the loop's code once the edit is made (the changed loop decided, or
    lowered, again); an adapter decides the edited text again before it writes the edit,
    and drops it unless the loop gets ``promised``. ``applicability``: "safe" when the trip
    is this loop's own text (literal bounds), "unsafe" when the bounds read a name
    (``LoopReport.bounds_read``): the edit bakes that name's value into the kernel.
    """

    edit: Edit
    promised: str
    applicability: Applicability = "unsafe"


@dataclass(frozen=True)
class Origin:
    """A name a loop's bounds read, and where it is assigned: what a fix that bakes its
    value into the kernel names (``T = B * S (decode.py:36) = 8``)."""

    name: str
    expression: str  # the assigned expression's text ("" when not found)
    value: int | None
    path: str | None = None  # the name of the file it is assigned in (None: not known)
    line: int | None = None

    @property
    def label(self) -> str:
        where = f" ({PurePath(self.path).name}:{self.line})" if self.path and self.line else ""
        value = f" = {self.value}" if self.value is not None else ""
        if self.expression and self.expression != str(self.value):
            return f"{self.name} = {self.expression}{where}{value}"
        return f"{self.name}{where}{value}"


def baked(origins: Sequence[Origin], stage: int) -> str:
    """``; T = B * S (config.py:5) = 8: stage=1 bakes ...``: what a ``stage=`` fix chosen
    for the trip of names assumes ("" when the trip is the loop's own literals)."""
    if not origins:
        return ""
    names = ", ".join(origin.label for origin in origins)
    return f"; {names}: stage={stage} bakes this deployment's trip into the kernel"


@dataclass(frozen=True)
class Finding:
    """A secondary remark attached to a loop (e.g. SKW030 on its ``stage=`` argument).

    ``fix`` is the edit that resolves it when that edit is safe to apply unasked
    (``--fix``, a quick fix): it changes nothing the compiler does but the spelling.
    ``buffers``: for a finding of the memory passes (SKW080-SKW082), the memory space
    record it is about (one of the report's or its cores' ``memory``), so an adapter
    says its numbers in a short line without reading the message.
    """

    code: str
    message: str
    span: Span
    related: tuple[Related, ...] = ()
    fix: Edit | None = None
    buffers: SpaceBuffers | None = None


@dataclass(frozen=True)
class FifoMessage:
    """One message a core sends on a FIFO: the statement's label and the loop index it runs at.

    ``moved`` marks the messages of the hazard's moved statement, so a renderer can
    show where they land without re-deriving anything.
    """

    label: str
    index: int
    moved: bool = False


@dataclass(frozen=True)
class FifoHazard:
    """The skew changes the order of the messages this core sends on one FIFO (SKW060).

    ``moved`` is a send of the consumer half (a tpush the pass did not count: nested
    in an ``if`` it cannot prove or in an inner loop), ``lead`` the producer-half
    send that now overtakes it; ``after_produces`` is how many later producer
    messages on this FIFO are issued before each moved message in the steady state
    (at least). The two orders are the first messages of the loop, before and after
    the rewrite.
    """

    direction: str  # the receiving core: "aiv" (FIFO to the vector core) or "aic"
    moved: Span
    lead: Span
    guard: str | None  # the header of the block the moved tpush sits in, e.g. "if mode > 2"
    after_produces: int
    depth: int
    source_order: tuple[FifoMessage, ...] = ()
    skewed_order: tuple[FifoMessage, ...] = ()
    messages: int = 0  # how many messages this core sends on the FIFO over the whole trip


@dataclass(frozen=True)
class Lowering:
    """What LowerPipelineToSlots and LowerPipelineLoops make of a loop the skew pass left.

    ``buffers`` is how many distinct per-stage buffers a load of the main body gets (the
    copies one ``MemoryReuse`` group keeps apart; at most ``stage``, and the capacity gate
    of ``MemoryReuse`` may still lower it); ``tail_buffers`` the same for the remainder's
    own group. ``copies`` counts the body's copies in the lowered code, the copies of the
    loop the enclosing loops write included (``nested``): a replicated pipeline's copies,
    and a skewed loop's 2·D clones of the half holding it (D its effective depth: the
    prologue or epilogue has D, the steady body D), each lowered on its own.
    """

    verdict: Literal["replicated", "rotated", "untouched", "empty", "error"]
    code: str
    reason: str
    stage: int | None = None
    main_trip: int | None = None  # main-loop iterations (None: known at run time)
    main_start: int | None = None
    main_stop: int | None = None  # (None: unroll_main_end, known at run time)
    stride: int | None = None
    tail: int = 0  # remainder copies written out after the main loop (static bounds)
    branches: int = 0  # dynamic bounds: the remainder chain's branches (stage - 1)
    buffers: int = 1
    tail_buffers: int = 0
    nested: int = 1  # copies of this loop the enclosing replicated or skewed loops make
    copies: int = 1
    # memory_planner=PTOAS: why LowerPipelineToSlots declined (None on a replicated loop
    # under PTOAS: whether it takes it is not known, ``reason`` says on what)
    declined: str | None = None
    slots: tuple[str, ...] = ()  # memory_planner=PTOAS: the loads rotated through slots
    # A dual AIV dispatch without a split: SplitVectorKernel's second vector lane replays
    # the body with empty tiles in place of its loads, so under PTOAS, where the first
    # lane's loads rotate, LowerPipelineToSlots finds none there and LowerPipelineLoops
    # replicates that copy: its lowering (None: the lanes are lowered alike).
    second_lane: Lowering | None = None


@dataclass(frozen=True)
class SpaceBuffers:
    """The buffers MemoryReuse gives a replicated loop's loads in one memory space: its
    stage group there (the main loop's clones, or the copies when there is no main loop),
    as far as skewlsp sees the function's tiles: the loads alone, or, in Vec where every
    tile of the function is known (what the body computes, the tiles outside the loops),
    all of them packed together.

    ``stage_bytes``: one stage's slot (the group's largest tile there, aligned: its
    largest load when only the loads are known; 0: not known, ``reason`` says why, or a
    scope's report, ``LoopReport.scope_only``, whose scope has no stages: ``requested`` 0);
    ``requested``: the stages asking for a buffer each; ``achieved``: the depth
    MemoryReuse keeps (at most this many when the loads alone decide it), None when the
    loads alone fit every stage and the function's other tiles there are not known;
    ``cause``: "slot-bound" (the stages' slots alone exceed the space: PH-MR-001),
    "space-pressure" (the space's other tiles take the room: PH-MR-001), "overflow" (the
    loads alone overflow it at any depth, or, ``reason`` says so, the function's tiles
    packed the legacy way: AllocateMemoryAddr stops), "legacy" (MemoryReuse
    fits it at no depth and falls back to its legacy packing), else None;
    ``known``: whether it is decided; ``reason``: what is not known.

    In Acc (L0C) a record is made only where the loop's own accumulators (one per stage
    for each matmul AutoTileMatmulL0 splits into a K loop; for each matmul of a skewed
    loop's clones) exceed the space: slot-bound, ``achieved`` the most they allow.

    ``requested`` 0: a core copy that asks for no stage buffers (the vector copy a skew
    demotes to a sequential loop) in a function whose tiles MemoryReuse fits at no depth
    there: ``cause`` "legacy" or "overflow", ``stage_bytes`` 0.

    Whole-function models: in Left and Right (L0A, L0B) the tiles are the L0 tiles of
    the function's matmuls (``analysis/memory/l0_tiles.py``); in Vec, where every tile
    of the function is known, all of them (``analysis/memory/canonicalize_io_order.py``'s
    scope layout). There ``achieved`` is the depth MemoryReuse keeps, None in ``cause``
    when every stage is kept apart.

    ``ir_depth``: where the space's every tile is packed (Vec of a known function, Left
    and Right of a cube function whose L0 tiles are known) and
    the packing keeps each stage's copy of the group's largest tiles in a buffer of its
    own further apart than ``achieved`` (the guard's depth, PH-MR-001's: lifetimes keep
    apart what the guard lets share), that many stages (the depth the IR shows, issue
    #41); None otherwise.

    ``k_loops``: in Left and Right, the loop's K loops (AutoTileMatmulL0's, each a stage
    group of its own) whose PH-MR-001 depth the packing's buffers exceed, each with both
    depths (:class:`KLoopBuffers`); empty otherwise.

    ``lane``: 2 for the second lane's loop of a vector copy dispatched on both lanes
    (SplitVectorKernel's dual dispatch: the AIV function holds the body once per lane,
    and MemoryReuse may shed the two lanes' loops to different depths), beside the
    first lane's record; None otherwise.

    ``remainder``: the record of the copies LowerPipelineLoops writes after the main loop
    (a stage group of their own, ``requested`` of them), beside the main loop's, made
    only where MemoryReuse keeps fewer of them apart (its PH-MR-001 for that group).
    """

    space: str
    stage_bytes: int
    requested: int
    achieved: int | None = None
    cause: str | None = None
    known: bool = False
    reason: str | None = None
    ir_depth: int | None = None
    k_loops: tuple[KLoopBuffers, ...] = ()
    lane: int | None = None
    remainder: bool = False


@dataclass(frozen=True)
class KLoopBuffers:
    """A K loop AutoTileMatmulL0 makes for one of a loop's matmuls (``matmul``:
    ``matmul(a, b)``; ``remainder``: the copy after its main loop), whose stages
    MemoryReuse's guard sheds (``buffers``: its PH-MR-001 numbers in the space) while the
    packing still keeps each stage's slices in buffers of their own further apart
    (``buffers.ir_depth``: the depth the IR shows; issue #41, both said)."""

    matmul: str
    remainder: bool
    buffers: SpaceBuffers


@dataclass(frozen=True)
class LoadBuffer:
    """One load of one copy of a replicated loop, and the buffer MemoryReuse gives it.

    ``region``: "main" (a clone of the main loop's body) or "tail" (a remainder copy
    written out after it); ``copy``: which (``# copy 1``, ``# remainder copy 0`` in the
    preview); ``load``: the loaded name (``x[...]`` for a slice read inside a call);
    ``buffer``: its buffer's number among the loop's buffers in ``space``, in the order
    AllocateMemoryAddr places them (by name: the order InitMemRef made them in), so two
    loads with one number share storage; ``bytes``: the load's own size (InitMemRef);
    ``offset``: where AllocateMemoryAddr puts that buffer when the loop's loads are all
    the function holds in the space (the function's other tiles, not modelled, move it),
    None when it places nothing there (the space overflows: the compile stops).
    """

    region: Literal["main", "tail"]
    copy: int
    load: str
    space: str
    buffer: int
    bytes: int
    offset: int | None = None


@dataclass(frozen=True)
class BufferAssignment:
    """Which copy of a replicated loop uses which buffer (the preview shows it next to
    the lowered loop): its loads in program order (``loads``), or, when the memory passes
    do not model the loop, why (``why``, and no loads): never a guess."""

    loads: tuple[LoadBuffer, ...] = ()
    why: str | None = None


@dataclass(frozen=True)
class CoreResult:
    """The verdict for one core's copy of a loop split by the mixed-kernel model."""

    core: Core
    verdict: Verdict
    code: str
    reason: str
    depth: int | None = None
    requested_depth: int | None = None
    trip: int | None = None
    copies: int = 1  # dual AIV dispatch runs the vector body twice (lane 0 and lane 1)
    pushes: int = 0
    pops: int = 0
    # This core's copy of the loop body, one short line per top-level statement;
    # statements the compiler adds (tpush/tpop/tfree) start with "+ ".
    body: tuple[str, ...] = ()
    lowering: Lowering | None = None  # a copy the skew pass left: what the lowering does
    memory: tuple[SpaceBuffers, ...] = ()  # what MemoryReuse gives its loads, per space
    buffers: BufferAssignment | None = None  # which copy's load is in which buffer


@dataclass(frozen=True)
class HelperLoop:
    """The loop an imported inline helper's copy is, for a copy reported at its call in
    the caller's file: the helper's name in its module, the module as the import names it
    and the loop's line in that module's file.

    ``sized_by_caller``: the caller's file sets, while it loads, a module attribute the
    helper reads (itself or through its module's constants), so the caller's program may
    give the copy sizes no analysis of the helper's module sees (it decides the copies
    its own module's callers make): a linter lists such a copy at its call; any other
    copy at a call is the helper module's finding, shown at the call only as a hint.
    """

    name: str
    module: str
    line: int
    sized_by_caller: bool = False


@dataclass(frozen=True)
class Instance:
    """Which of several compiled copies of one loop a report is about.

    Python can build a loop more than once: a program defined in a module-level
    ``for`` is compiled once per iteration, and an inline helper's loop is
    spliced into every caller. Each copy gets its own report (same spans), told
    apart by the values it was decided with and, for a helper, by its call.
    """

    bindings: tuple[tuple[str, str], ...]  # (("tile", "8"),): name and value as source text
    caller: str = ""  # an inline helper's caller (qualified name); "" for a module-level for
    call: Span | None = None  # that caller's call of the helper
    call_path: str | None = None  # the caller's file, when it is not the helper's
    # The names of ``bindings`` that can change the loop's bounds, stage or branches (and
    # whose value is not their own name): what messages quote. None: all of them.
    shown: tuple[str, ...] | None = None
    # A copy of an imported helper's loop reported at its call: which loop it is.
    helper_loop: HelperLoop | None = None

    @property
    def shown_bindings(self) -> tuple[tuple[str, str], ...]:
        """The bindings that explain this copy's verdict (see ``shown``)."""
        if self.shown is None:
            return self.bindings
        return tuple((name, value) for name, value in self.bindings if name in self.shown)

    @property
    def label(self) -> str:
        """``tile = 8`` / ``called from attn_a (line 40) with n = 4``: how messages name it."""
        values = ", ".join(f"{name} = {value}" for name, value in self.shown_bindings)
        if not self.caller:
            return values
        where = f"called from `{self.caller}`"
        if self.call_path is not None:
            where += f" in {PurePath(self.call_path).name}"
        if self.call is not None:
            where += f" (line {self.call.line})"
        return f"{where} with {values}" if values else where


@dataclass(frozen=True)
class LoopReport:
    """What the compiler will do to one loop, and why.

    ``message`` is an LLVM-remark style one-liner; ``args`` holds the typed
    values it was built from so adapters can render them their own way.
    """

    path: str | None
    span: Span  # the whole ``for`` statement
    call_span: Span  # the ``pl.pipeline(...)`` call
    verdict: Verdict
    code: str
    message: str
    function: str = ""
    loop_var: str = ""
    stage: int | None = None
    requested_depth: int | None = None
    depth: int | None = None
    trip: int | None = None
    start: int | None = None
    stop: int | None = None
    step: int | None = None
    dynamic_symbol: str | None = None
    lead: Span | None = None
    offending: Span | None = None
    producer_lines: tuple[tuple[int, int], ...] = ()
    consumer_lines: tuple[tuple[int, int], ...] = ()
    pushes: int | None = None
    pops: int | None = None
    stage_span: Span | None = None
    hints: tuple[Finding, ...] = ()
    cores: tuple[CoreResult, ...] = ()
    hazards: tuple[FifoHazard, ...] = ()  # FIFOs the skew reorders (SKW060)
    fix_hint: str | None = None  # what would make the loop skew (deeper), when we can compute it
    # The ``stage=`` edit ``fix_hint`` offers, checked (None: the hint is advice, no edit).
    stage_fix: StageFix | None = None
    stage_value: Span | None = None  # the ``stage=`` argument's value (what a stage fix edits)
    bounds_read: tuple[Origin, ...] = ()  # the names the bounds read, where they are assigned
    instance: Instance | None = None  # set when Python builds this loop more than once
    # A copy's own text (``message`` is its instance's label, then this): what a headline
    # puts after the call it names its own way (None: not a copy, or a multi-core verdict
    # whose headline is composed from ``cores``).
    own_message: str | None = None
    # A hand-written loop's core (the one its messages belong to); None for a mixed loop.
    core: Core | None = None
    # A consumer loop (SKW020) whose peer loop on the other core skews: where its overlap
    # comes from. Its demotion is what the author wants, so it is information.
    overlap: Related | None = None
    # A consumer loop (SKW020) that waits on the tile its first message receives, in a module
    # with no loop on the other core: its producer is elsewhere, so no edit of this file gives
    # it an overlap (:mod:`skewlsp.analysis.report.overlap`). Information, as ``overlap``.
    producer_elsewhere: bool = False
    # A loop the skew pass left: what LowerPipelineToSlots / LowerPipelineLoops make of it.
    lowering: Lowering | None = None
    # ... and what MemoryReuse / AllocateMemoryAddr then give its loads, per memory space.
    memory: tuple[SpaceBuffers, ...] = ()
    # ... and which copy's load is in which buffer (None: the memory passes never saw it).
    buffers: BufferAssignment | None = None
    args: tuple[tuple[str, str], ...] = field(default=())
    # The values of the environment or command line this verdict assumed and that decide it
    # (another value gives another report), and the loop under each other declared value
    # that gives another verdict (:mod:`.assumed`).
    assumes: tuple[Assumption, ...] = ()
    variants: tuple[Variant, ...] = ()
    # Not a loop's report: an InCore scope (a ``with pl.at(...)``, an InCore function) that
    # holds no pipeline loop, whose tiles the memory passes cannot place (SKW081, with its
    # SKW082). ``span`` and ``call_span`` are its header; it claims no loop field (no loop
    # variable, trip, stage, lowering or core) and no preview.
    scope_only: bool = False

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    @property
    def helper_line(self) -> int:
        """A copy of an imported helper's loop reported at its call: the loop's line in
        the helper's module (the loops spliced at one call share its span); 0 for every
        other report."""
        loop = helper_loop_at_call(self)
        return loop.line if loop is not None else 0


def helper_loop_at_call(report: LoopReport) -> HelperLoop | None:
    """The imported inline helper's loop ``report`` is a copy of, when the copy is reported
    at its call in the caller's file; None for every other report."""
    instance = report.instance
    if instance is None or instance.call != report.span:
        return None
    return instance.helper_loop


def has_preview(report: LoopReport) -> bool:
    """Whether the compiler rewrites the loop, so that a preview can show it: the skew
    pass skews or demotes it, or the lowering passes replicate, rotate or empty it; not
    a copy of an imported helper's loop reported at its call (the loop is in another
    file: a preview is made there, of that module's copies)."""
    if helper_loop_at_call(report) is not None:
        return False
    if report.verdict in ("skewed", "demoted"):
        return True
    lowering = report.lowering
    return (
        report.verdict == "left"
        and lowering is not None
        and lowering.verdict in ("replicated", "rotated", "empty")
        and lowering.code != LEFT
    )


def is_loop(report: LoopReport) -> bool:
    """Whether ``report`` is about a loop: not a syntax error, nor a scope without one."""
    return report.code != SYNTAX_ERROR and not report.scope_only


def loop_at(reports: Sequence[LoopReport], line: int) -> LoopReport | None:
    """The innermost loop whose ``for`` statement spans 1-based ``line`` (syntax errors and
    the reports of scopes without a loop skipped)."""
    containing = [r for r in reports if is_loop(r) and r.span.line <= line <= r.span.end_line]
    return max(containing, key=lambda r: (r.span.line, r.span.column), default=None)


def order_text(messages: Sequence[FifoMessage], total: int) -> str:
    """``qt(0) [rt(0)] qt(1) …``: the moved statement's messages in brackets; ``…`` when
    ``total`` says more follow."""
    parts = [f"[{m.label}({m.index})]" if m.moved else f"{m.label}({m.index})" for m in messages]
    return " ".join(parts) + (" …" if total > len(parts) else "")


class PreviewUnavailable(Exception):
    """No rewritten loop can be shown for this report; ``str(err)`` says why.

    Adapters (CLI, language server) show its message to the user as is, so every raise
    site says *why* no preview exists in words a kernel author understands."""
