"""What module-level Python reads of the environment and command line, and who read it.

Python runs a kernel's configuration modules when it imports them, and they may read
``os.environ`` or ``sys.argv`` (``DEEPSEEK_V4_VARIANT`` picking a model preset). The
analysis never reads the real process: it evaluates those reads under the build the
caller assumes (:class:`~skewlsp.contract.Assumptions`, empty by default) and records
each one (:class:`AssumedRead`), so that a verdict can say which value it assumed and
be decided again under the module's other declared choices (``driver.variants``).

A read is attributed to whatever was being worked out when it happened: a module
constant remembers the reads its value came from (``constants.ModuleConstants``), so a
kernel that reads the constant later, from its cache or a batch's shared modules, is
charged with them too. :class:`Build` keeps those attributions as a stack of
open frames: what is read goes to the innermost, and a closed frame's reads go to the
one around it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.declared_choices import (
    ENVIRONMENT_GETTERS,
    NO_OPTIONS,
    DeclaredOptions,
    ScannedTexts,
    declared_choices,
    declared_options,
)
from skewlsp.analysis.frontend.values import Const, Folded, Items, Opaque, ProgramPath, Text
from skewlsp.contract import ARGV, ARGV_UNKNOWN, Assumptions


@dataclass(frozen=True)
class AssumedRead:
    """One read of the assumed build: ``variable`` (an environment variable's name, or
    ``sys.argv``), the ``value`` it gave (an unset variable's default when it is a string;
    None when not known), whether the build set it (``configured``), and the other values
    worth deciding the kernel under (``choices``: those its module declares; the value
    read, normalised or not, is not among them; None stands for unset, or for no
    arguments)."""

    variable: str
    value: str | tuple[str, ...] | None
    configured: bool
    choices: tuple[str | None, ...] = ()
    # The text of the module whose Python read it, for a read of the command line: its
    # options are varied only in that module's own analysis (``driver.variants``).
    module: str | None = field(default=None, repr=False)


class Build:
    """The reads of one analysis's build (or of a batch's analyses under one build, whose
    shared modules remember theirs), as a stack of attribution frames (see the module's
    doc). Not thread-safe, like the analysis that holds it."""

    def __init__(
        self, assumptions: Assumptions | None = None, scanned: ScannedTexts | None = None
    ) -> None:
        self.assumptions = assumptions or Assumptions()
        # The module texts read for declared values, shared with the other builds of the
        # analysis or batch that made this one (a text reads the same under any build).
        self.scanned = scanned if scanned is not None else ScannedTexts()
        self._frames: list[set[AssumedRead]] = []
        # The values each module (by text) declares for a variable: a module read by every
        # kernel of a batch (or a helper's module, folded again for each) is scanned once.
        self._declared: dict[tuple[str, str], tuple[str, ...]] = {}
        # The options each module (by text) reads off the command line, by the name that
        # holds each one's value.
        self._options: dict[str, DeclaredOptions] = {}

    def declared(
        self, variable: str, text: str | None, lookup: Callable[[str], Folded | None]
    ) -> tuple[str, ...]:
        """The values the module of ``text`` declares for ``variable`` (none when the
        variants are not decided, or the text is not known)."""
        if not self.assumptions.variants or not text:
            return ()
        key = (variable, text)
        found = self._declared.get(key)
        if found is None:
            self._declared[key] = ()  # (a scan that folds a name reading it again ends here)
            found = self._declared[key] = declared_choices(variable, text, lookup, self.scanned)
        return found

    def options(self, text: str | None, lookup: Callable[[str], Folded | None]) -> DeclaredOptions:
        """The options the module of ``text`` reads off the command line (none when the
        variants are not decided, or the text is not known)."""
        if not self.assumptions.variants or not text:
            return NO_OPTIONS
        found = self._options.get(text)
        if found is None:
            self._options[text] = NO_OPTIONS  # (a scan folding a name reading it ends here)
            found = self._options[text] = declared_options(text, lookup, self.scanned)
        return found

    def open(self) -> int:
        """Start attributing reads to a new frame; the depth to :meth:`close` it at."""
        self._frames.append(set())
        return len(self._frames)

    def close(self, depth: int) -> frozenset[AssumedRead]:
        """The reads of the frame opened at ``depth`` (and of any left open inside it, by a
        failure), which the frame around it is charged with too."""
        found: set[AssumedRead] = set()
        while len(self._frames) >= depth:
            found |= self._frames.pop()
        if self._frames:
            self._frames[-1] |= found
        return frozenset(found)

    def note(self, reads: Iterable[AssumedRead]) -> None:
        """Charge the open frame with ``reads`` (a cached value's)."""
        if self._frames:
            self._frames[-1].update(reads)


class ModuleAssumptions:
    """The assumed build as one module's Python reads it: the values, each read recorded
    with the choices this module declares for it (found in its ``text``, whose constants
    ``lookup`` folds)."""

    def __init__(
        self,
        build: Build,
        text: str | None,
        lookup: Callable[[str], Folded | None],
        own: bool = False,
    ) -> None:
        self.build = build
        self._text = text
        self._lookup = lookup
        # The module analysed (not one it imports): the only one whose options are varied
        # (``driver.variants``), so the only one they are looked for in.
        self._own = own

    def environment(self, name: str, unset: Callable[[], Folded]) -> Folded:
        """The value of ``os.environ.get(name, ...)``: the build's, else ``unset()`` (the
        default the call falls back to)."""
        value = self.build.assumptions.value(name)
        folded = Text(value) if value is not None else unset()
        seen = folded.value if isinstance(folded, Text) else None
        self.build.note([self._read(name, seen, value is not None)])
        return folded

    def variable(self, node: cst.BaseExpression | None) -> str | None:
        """The variable's name an expression spells: a string, or a module-level name bound
        to one (``VARIANT_ENV``)."""
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return value if isinstance(value, str) else None
        if isinstance(node, cst.Name):
            found = self._lookup(node.value)
            return found.value if isinstance(found, Text) else None
        return None

    def is_set(self, name: str) -> bool:
        """Whether the build sets ``name`` (``"X" in os.environ``)."""
        value = self.build.assumptions.value(name)
        self.build.note([self._read(name, value, value is not None)])
        return value is not None

    def argv(self) -> Items | Opaque:
        """``sys.argv``: the program's path (not known) and the build's arguments (not
        known at all in the build that finds which loops the command line decides)."""
        assumptions = self.build.assumptions
        argv = assumptions.argv
        choices: tuple[str | None, ...] = (None,) if argv else ()
        module = None
        if self._own and self.build.options(self._text, self._lookup).partial:
            # Some option of it has no declared value: deciding the module with the command
            # line not known tells which loops it decides.
            choices, module = (*choices, ARGV_UNKNOWN), self._text
        self.build.note([AssumedRead(ARGV, argv, bool(argv), choices, module)])
        if not assumptions.argv_known:
            return Opaque("sys.argv", "the command line is not known")
        program = ProgramPath("sys.argv[0]", "`sys.argv[0]` is the path of the program run")
        return Items((program, *(Text(argument) for argument in argv)))

    def option_read(self, name: str, value: Folded | None) -> AssumedRead | None:
        """When the module-level ``name`` holds an option read off the command line
        (``TP_SIZE`` for ``--tp``): the read of that option, ``value`` what the module got
        (``2``: its default when the command line does not give it), with the other values
        the module allows; None for any other name."""
        if not self._own:
            return None
        declared = self.build.options(self._text, self._lookup).by_name.get(name)
        if declared is None:
            return None
        seen = str(value.value) if isinstance(value, (Const, Text)) else None
        given = self.build.assumptions.option(declared.option)
        choices = tuple(c for c in declared.choices if c != seen)
        return AssumedRead(declared.option, seen, given is not None, choices, self._text)

    def _read(self, name: str, seen: str | None, configured: bool) -> AssumedRead:
        declared = self.build.declared(name, self._text, self._lookup)
        # The value read is not another choice, nor is it once normalised as configs do
        # before comparing it (``.strip().lower()``).
        same = {seen, seen.strip(), seen.strip().lower()} if seen is not None else set()
        choices: tuple[str | None, ...] = tuple(c for c in declared if c not in same)
        if configured and not declared:
            choices = (None,)  # no declared choice: the value it falls back to when unset
        return AssumedRead(name, seen, configured, choices)


def environment_name(call: cst.BaseExpression) -> cst.BaseExpression | None:
    """The name argument of ``os.environ.get(NAME, ...)`` / ``os.getenv(NAME, ...)``."""
    if not isinstance(call, cst.Call) or dsl.dotted(call.func) not in ENVIRONMENT_GETTERS:
        return None
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return None
    return call.args[0].value


def environment_test(test: cst.BaseExpression, assumed: ModuleAssumptions) -> bool | None:
    """Whether ``"X" in os.environ`` (or ``not in``) holds under the assumed build; None
    for a test of another kind, folded as any other (``os.environ.get("X")`` is None when
    unset, a string when set)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if not isinstance(target.operator, (cst.In, cst.NotIn)):
        return None
    name = assumed.variable(test.left)
    if name is None or dsl.dotted(target.comparator) != ("os", "environ"):
        return None
    return assumed.is_set(name) == isinstance(target.operator, cst.In)
