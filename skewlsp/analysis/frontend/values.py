"""The values constant folding produces: what a name or expression is known to be.

Kept apart from the folding itself (:mod:`.constants`) and the evaluation of
module-level Python (:mod:`.loadtime`), which both build them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import libcst as cst
from libcst._nodes.internal import CodegenState

from skewlsp.analysis.source.cst_nodes import is_placeholder
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.unit_parses import NeedsConcreteTree


class ExpressionFolder(Protocol):
    """What module-level Python is evaluated with (:class:`.constants.Folder`): named
    here so that :mod:`.loadtime`, which the folder calls, need not import it back."""

    @property
    def made(self) -> MadeTrees | None: ...

    def fold(self, node: cst.BaseExpression) -> Folded: ...

    def with_binding(self, name: str, value: Folded) -> ExpressionFolder: ...

    def with_bindings(self, bindings: Mapping[str, Folded]) -> ExpressionFolder: ...


class TextFolder(Protocol):
    """The module a :class:`Record` was built in (:class:`.constants.ModuleConstants`),
    which folds the record's field texts on demand."""

    def fold_text(self, text: str, this: Record | None = None) -> Folded: ...


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class Dynamic:
    """Not a compile-time integer; ``symbol`` is the source text that made it so."""

    symbol: str
    reason: str


@dataclass(frozen=True)
class Symbolic(Dynamic):
    """A symbolic dimension (``pl.dynamic("T")``): the compiler knows it as a variable of
    the kernel, so a bound computed from it is dynamic (demoted), not unknown."""


@dataclass(frozen=True)
class Rejected:
    """The DSL parser refuses this expression outright (an SKW040 error)."""

    reason: str


@dataclass(frozen=True)
class Opaque:
    """A module-level value Python computes at decoration time that we cannot see.

    The compiler treats it as a constant, but its value is unknown statically,
    so verdicts that depend on it are reported as "unknown", never guessed.
    """

    symbol: str
    reason: str


@dataclass(frozen=True)
class Real(Rejected):
    """A float literal (``10.0``, a record's field ``limit=10.0``): the DSL parser refuses
    it where it wants an integer (a loop bound, a shape), but an ``if`` comparing two
    floats is a constant the compiler folds (``FoldCompare`` in
    ``include/pypto/ir/arith/const_fold.h``), so its ``value`` is kept."""

    value: float


@dataclass(frozen=True)
class RealConstant(Opaque):
    """A module's name bound to a float (``SWIGLU_LIMIT = M.swiglu_limit``): no integer,
    as any value Python computes that is not one, with its ``value`` for an ``if`` that
    compares it with another float (:class:`Real`)."""

    value: float


@dataclass(frozen=True)
class CallSiteValue(Opaque):
    """A parameter of an ``@pl.jit.inline`` helper analysed without a caller: InlineFunctions
    splices each caller's argument in its place, so the verdict depends on the call site."""


@dataclass(frozen=True)
class ProgramPath(Opaque):
    """``sys.argv[0]``: what Python puts there (the path of the script it runs, ``-c``, or
    ``''``: the docs of ``sys.argv``) is not known, but it is never an option spelled
    ``--name``, so an argument parser that walks the whole command line knows it is not
    one."""

    def is_not(self, text: str) -> bool:
        """Whether this cannot be ``text``, nor start with it."""
        return text.startswith("--")


@dataclass(frozen=True)
class Record:
    """An object built at module level, such as a dataclass of model dimensions.

    Kernels often read tile counts from a config object (``H = M.num_heads``
    with ``M = ModelConfig(num_heads=64, ...)``); Python evaluates that when the
    module loads, so the compiler sees a constant. We keep each field's source
    text and fold it on demand in the module that built the object.
    """

    type_name: str
    fields: Mapping[str, str]
    owner: TextFolder = field(compare=False, hash=False)
    # ``@property`` getters that just return an expression of ``self``'s fields.
    properties: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Text:
    """A string a configuration module computes (a preset name, an env default)."""

    value: str


@dataclass(frozen=True)
class Flag:
    """A bool a module computes (a feature switch, ``USE_FAST = False``): Python's value,
    which decides a module-level ``if``; the DSL parser refuses a bool where it wants an
    integer, so it is no loop bound."""

    value: bool


@dataclass(frozen=True)
class Nothing:
    """Python's ``None`` (``FLAG = None``; ``os.environ.get("X")`` of a variable the
    environment does not set): false, equal only to itself, a switch's other value."""


@dataclass(frozen=True)
class Items:
    """A tuple or list of values."""

    values: tuple[Folded, ...]


@dataclass(frozen=True)
class Table:
    """A dict of values keyed by strings or integers."""

    entries: Mapping[object, Folded] = field(hash=False)


Folded = Const | Dynamic | Rejected | Opaque | Record | Text | Flag | Nothing | Items | Table
PYTHON_ONLY = (Record, Text, Flag, Nothing, Items, Table)


def truth(value: Folded) -> bool | None:
    """Python's truth value of a folded value, when it is known."""
    if isinstance(value, (Const, Text, Flag)):
        return bool(value.value)
    if isinstance(value, Items):
        return bool(value.values)
    if isinstance(value, Table):
        return bool(value.entries)
    if isinstance(value, Nothing):
        return False
    return None

NameLookup = Callable[[str], "Folded | None"]


_LEAVES = (cst.Name, cst.Integer, cst.Float, cst.SimpleString)


def code_of(node: cst.CSTNode, made: MadeTrees | None) -> str:
    """Source text of a libcst node, for messages (comments left out).

    ``made``: the trees the running analysis made (None: ``node`` is of libcst's parse).
    Names, literals and plain dotted names (most of what messages quote) are read
    off the node; anything else is cut from the text (a node of a made tree,
    :mod:`.tree_text`) or rendered by libcst, which costs tens of microseconds a node
    and added up to a tenth of re-analysing a real kernel.
    """
    quick = _plain_text(node)
    if quick is not None:
        return quick
    return _rendered(node, made, comments=False).strip()


def full_code(node: cst.CSTNode, made: MadeTrees | None) -> str:
    """``node``'s code as ``Module.code_for_node`` renders it (comments included); ``made``
    as for :func:`code_of`."""
    quick = _plain_text(node)  # (a name or a plain dotted name holds no comment)
    if quick is not None:
        return quick
    return _rendered(node, made, comments=True)


def _rendered(node: cst.CSTNode, made: MadeTrees | None, *, comments: bool) -> str:
    cut = made.code(node, comments=comments) if made is not None else None
    if cut is not None:
        return cut
    try:
        state = _ComposingCodegen(made, default_indent="    ", default_newline="\n")
        state.comments = comments
        node._codegen(state)
        return "".join(state.tokens)
    except NeedsConcreteTree:
        raise
    except Exception:  # pragma: no cover - libcst refuses only malformed trees
        return type(node).__name__


_NO_POSITION = contextlib.nullcontext()


class _PlainCodegen(CodegenState):
    """libcst's code generator without its per-node position hook, and without comments.

    ``Module.code_for_node`` wraps every node in a ``@contextmanager`` that records
    nothing unless positions are asked for; creating and running those generators
    was half of the cost of rendering an expression for a message. This state hands
    out one reusable empty context instead (libcst's position-recording state, used
    where positions are needed, is untouched).
    """

    def record_syntactic_position(  # type: ignore[override]  # libcst's is a @contextmanager
        self, node: Any, **_: Any
    ) -> contextlib.nullcontext[None]:
        return _NO_POSITION

    comments = False

    def add_token(self, value: str) -> None:
        # A comment inside a multi-line expression is not code: messages quote code, and
        # an edit that only changes a comment must leave every message as it was.
        if self.comments or not value.startswith("#"):  # (strings start with quotes)
            self.tokens.append(value)


class _ComposingCodegen(_PlainCodegen):
    """Renders a node that holds nodes of a made tree (a statement the analysis built
    around them): those are cut from the text, and meeting a placeholder (whitespace a
    made node never had in the text, or a made node rendered without ``made``) means
    the rendering cannot be exact."""

    hidden = 0  # >0 inside a node whose code was cut from the text

    def __init__(self, made: MadeTrees | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.made = made

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.hidden:
            self.hidden += 1
            return
        cut = self.made.code(node, comments=self.comments) if self.made is not None else None
        if cut is not None:
            self.tokens.append(cut)
            self.hidden = 1
        elif is_placeholder(node):
            raise NeedsConcreteTree("whitespace of a made tree")

    def after_codegen(self, node: cst.CSTNode) -> None:
        if self.hidden:
            self.hidden -= 1

    def add_token(self, value: str) -> None:
        if not self.hidden:
            super().add_token(value)

    def add_indent_tokens(self) -> None:
        if not self.hidden:
            super().add_indent_tokens()


def _plain_text(node: cst.CSTNode) -> str | None:
    """The text of a leaf or an ``a.b.c`` chain without parentheses or inner spaces."""
    if isinstance(node, _LEAVES):
        return None if node.lpar else node.value
    if isinstance(node, cst.Attribute) and not node.lpar:
        dot = node.dot
        if not (
            isinstance(dot.whitespace_before, cst.SimpleWhitespace)
            and isinstance(dot.whitespace_after, cst.SimpleWhitespace)
            and not dot.whitespace_before.value
            and not dot.whitespace_after.value
        ):
            return None
        base = _plain_text(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


@dataclass(frozen=True)
class Interval:
    lo: int
    hi: int
