"""The contract between the analysis and its adapters: codes, reports, and their text.

Everything the CLI and the server read about a loop is here, in one module (what
Fixit's ``ftypes.py`` is): the stable reason codes with their documentation, the
plain, frozen data of a :class:`LoopReport` (so that reports can be cached, pickled
across a process pool and compared in tests), and the few texts every adapter
shows the same way. No adapter type (LSP, JSON) leaks in, and nothing here knows
how it will be shown. It imports nothing of skewlsp: every layer may read it.

Codes never change meaning and are never reused; only wording may change.
Severity is the default an adapter shows; users may override it per code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Literal

Severity = Literal["error", "warning", "information", "hint"]

# Codes other modules test for by name (one spelling, here).
LEFT = "SKW010"
CONSUMER = "SKW020"  # demoted in the consumer role: the overlap comes from the peer's skew
STAGE_HINT = "SKW030"
INVALID_LOOP = "SKW040"
UNKNOWN = "SKW050"
FIFO_REORDER = "SKW060"
SCALAR_ACROSS = "SKW061"
NOT_COMPILED = "SKW070"
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
        "not cross-core: left for LowerPipelineLoops",
        "The body has no top-level tpush and tpop pair, so the loop is not cross-core. The "
        "skew pass leaves it as a pipeline loop and LowerPipelineLoops replicates the body "
        "`stage` times (ping-pong buffers).",
        "for i in pl.pipeline(0, 8, 1, stage=2):\n"
        "    t = pl.tile.load(x, [i * 16, 0], [16, 64])\n"
        "    pl.tile.store(t, [i * 16, 0], out)",
        "Nothing to fix. A tpush/tpop nested in an `if`, a `with` or an inner loop does not "
        "make the loop cross-core.",
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
        "the first of them.",
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
        "not compiled: Python never builds this loop's program",
        "The loop sits in a module-level `if` branch that Python does not take when the "
        "module loads, or in a module-level `for` that runs zero times, so the class or "
        "function around it is never defined and the compiler never sees the loop. skewlsp "
        "evaluates the condition the way it evaluates configuration modules: module "
        "constants fold, the environment is assumed empty (`os.environ.get(\"X\")` is None, "
        "`os.environ.get(\"X\", d)` is d) and there are no command-line arguments. A "
        "condition it cannot evaluate (`__name__`, a call) leaves both branches analysed.",
        'MODE = "fast"\n'
        'if MODE == "slow":\n'
        "    @pl.program\n"
        "    class Slow:  # never defined: its loops are not compiled\n"
        "        ...",
        "Nothing to fix if the branch is meant for another configuration; set the "
        "environment variable or constant that selects it to see its verdicts.",
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


@dataclass(frozen=True)
class Finding:
    """A secondary remark attached to a loop (e.g. SKW030 on its ``stage=`` argument).

    ``fix`` is the edit that resolves it when that edit is safe to apply unasked
    (``--fix``, a quick fix): it changes nothing the compiler does but the spelling.
    """

    code: str
    message: str
    span: Span
    related: tuple[Related, ...] = ()
    fix: Edit | None = None


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
    instance: Instance | None = None  # set when Python builds this loop more than once
    # A hand-written loop's core (the one its messages belong to); None for a mixed loop.
    core: Core | None = None
    # A consumer loop (SKW020) whose peer loop on the other core skews: where its overlap
    # comes from. Its demotion is what the author wants, so it is information.
    overlap: Related | None = None
    args: tuple[tuple[str, str], ...] = field(default=())

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column


def loop_at(reports: Sequence[LoopReport], line: int) -> LoopReport | None:
    """The innermost loop whose ``for`` statement spans 1-based ``line`` (syntax errors skipped)."""
    containing = [
        r for r in reports if r.code != SYNTAX_ERROR and r.span.line <= line <= r.span.end_line
    ]
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
