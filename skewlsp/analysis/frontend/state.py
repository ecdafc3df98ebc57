"""The state of one analysis of a module: what its stages share, in one explicit object.

The driver creates one :class:`AnalysisState` per analysis
(:func:`skewlsp.analysis.driver.analyze_models`) and hands it down to every stage that
needs it, as the compiler's PassManager hands its passes the program they transform.
It lives as long as the analysis (the trees it reads may be kept longer, by
``source.unit_parses``), and nothing reaches it but through a parameter or an attribute
of an object the driver made: what a stage reads is what it was given.

It holds:

- the parses of unit texts (:class:`~skewlsp.analysis.source.unit_parses.UnitParses`):
  a caller of an inline helper is parsed once whether it is read as a unit or for its
  calls;
- the trees made from the stdlib's that the analysis reads
  (:class:`~skewlsp.analysis.source.tree_text.MadeTrees`): whatever renders a node for
  a message is handed these, since only the tree that made a node knows where its
  code is;
- facts derived from those trees that several questions ask again (a caller's calls,
  asked once per helper it calls; a walk's facts), kept with a made tree across
  analyses (:meth:`AnalysisState.made_facts`, :meth:`AnalysisState.tree_facts`);
- facts read off the trees alone, which no build changes (``syntactic``: the sides and
  the tensors in scope a function's statements leave at each of its loops, the calls
  under a statement, the names a function and each of its statements bind), kept for
  the module decided again under another build (``driver.variants``), which reads the
  same trees;
- whether the analysis reads libcst's own trees (``concrete``): a rewrite prints nodes
  of the tree the analysis read, with the whitespace and comments of the text;
- the constants of imported modules that the analyses of a batch share
  (:class:`.imports.SharedModules`), when the caller shares them: the one part that
  outlives the analysis, as a compiler's modules share one context;
- the compiler's memory planner (``planner``: "pypto" or "ptoas"), which decides whether
  LowerPipelineToSlots runs, as the PassContext's planner does;
- the build the kernel is assumed imported under (``build``: its environment and
  command line, :mod:`.assumed`), which records what the analysis read of it.

The class is the frontend's, the lowest stage that knows everything it holds; the
source stage is handed only the parts it needs (the parses, the made trees).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar, cast

import libcst as cst

from skewlsp.analysis.frontend.assumed import Build
from skewlsp.analysis.frontend.imports import SharedModules
from skewlsp.analysis.frontend.names import statement_defs
from skewlsp.analysis.frontend.scope import FunctionNames, function_names
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.unit_parses import UnitParses, UnitTree
from skewlsp.analysis.source.walk import calls_in

_T = TypeVar("_T")


@dataclass(frozen=True)
class AnalysisState:
    """What one analysis of a module shares between its stages (see the module's doc)."""

    concrete: bool = False  # libcst's own trees, not trees made from the stdlib's
    shared_modules: SharedModules | None = None  # the batch's (see the module's doc)
    planner: str = "pypto"  # the compiler's memory planner (see the module's doc)
    build: Build = field(default_factory=Build)  # the assumed build (see the module's doc)
    parses: UnitParses = field(default_factory=UnitParses)
    made: MadeTrees = field(default_factory=MadeTrees)
    facts: dict[object, object] = field(default_factory=dict)
    # Keyed by the nodes they are of (the key holds them, so no other node takes their
    # ids while it lives); not emptied for another build, unlike ``facts``.
    syntactic: dict[Hashable, object] = field(default_factory=dict)

    def with_concrete_trees(self) -> AnalysisState:
        """The same analysis on libcst's own trees (its parses, made trees and facts
        shared): a unit whose made tree cannot give what its walk asks
        (``source.unit_parses.NeedsConcreteTree``) is walked again on libcst's."""
        return replace(self, concrete=True)

    def syntactic_fact(
        self, key: Hashable, make: Callable[[], _T], of: Sequence[cst.CSTNode] = ()
    ) -> _T:
        """What ``make()`` gives for ``key``, a question about the trees alone: made once
        for the analysis and for the module decided again under other builds (what it
        saves: benchmarks/README.md, "Cache layers").

        ``of``: the nodes ``make()`` reads, when it reads nothing else (no alias, no
        value, no code rendered through the made trees) and ``key`` holds them. When a
        tree made for a unit text holds them all, the fact is kept with that tree, across
        analyses (an imported helper's, or a function two files of a batch hold): any
        analysis would make the same."""
        if key in self.syntactic:
            return cast(_T, self.syntactic[key])
        made = None if self.concrete else self.made.made_holding(of)
        if made is None:
            value = make()
        elif key in made.facts:
            value = cast(_T, made.facts[key])
        else:  # (a language server's two threads may both make it: the first kept wins)
            value = cast(_T, made.facts.setdefault(key, make()))
        self.syntactic[key] = value
        return value

    def calls_in(self, node: cst.CSTNode) -> Sequence[cst.Call]:
        """The calls under ``node``, in walk order (:func:`.walk.calls_in`), kept as a
        :meth:`syntactic_fact`: the passes reading a loop's scope ask them of the same
        statements for each loop of the scope, each copy and each build. A line's are
        its statements' (one pass asks them of a line, another of each statement on it:
        kept once)."""
        if type(node) is cst.SimpleStatementLine:
            if len(node.body) == 1:
                return self.calls_in(node.body[0])
            return [call for small in node.body for call in self.calls_in(small)]
        return self.syntactic_fact((calls_in, node), lambda: tuple(calls_in(node)), of=(node,))

    def function_names(self, fn: cst.FunctionDef) -> FunctionNames:
        """The names a scope of ``fn``'s body is built from (:func:`.scope.function_names`),
        kept as a :meth:`syntactic_fact`: the unit walk asks them of each function it walks
        and InlineFunctions of each caller of a helper, under every build, and (with a made
        tree) in every analysis of a batch that reads the function. A kernel calling
        helpers was read once for its walk and again in each analysis that decides one
        of its helpers."""
        return self.syntactic_fact((function_names, fn), lambda: function_names(fn), of=(fn,))

    def statement_binds(self, stmt: cst.CSTNode) -> tuple[list[str], frozenset[str]]:
        """The names ``stmt`` binds (``names.statement_defs``), as a list and as a set, kept
        as :meth:`function_names` is, for the same askers: a kernel's top-level scope
        statement is most of its body, and its names were read again by each."""

        def make() -> tuple[list[str], frozenset[str]]:
            defs = statement_defs(stmt)
            return defs, frozenset(defs)

        return self.syntactic_fact((statement_defs, stmt), make, of=(stmt,))

    def analysis_module(self, text: str, tree: Callable[[], UnitTree]) -> cst.Module | None:
        """The tree the analysis reads for ``text`` (whose stdlib tree ``tree()`` gives):
        made from that tree, or libcst's (None if libcst refuses the text) where it cannot
        be made or ``concrete`` trees are read."""
        if self.concrete:
            return self.parses.concrete_module(text)
        made = self.parses.made(text, tree)
        if made is None:
            return self.parses.concrete_module(text)
        self.made.add(made)
        return made.module

    def made_facts(self, text: str) -> dict[object, object] | None:
        """The facts kept with the tree made for ``text`` (across analyses, like the tree);
        None when this analysis reads libcst's tree of it."""
        if self.concrete:
            return None
        found = self.parses.made_so_far(text)
        return found.facts if found is not None else None

    def tree_facts(self, tree: cst.Module) -> dict[object, object] | None:
        """The facts kept with ``tree`` when it is a tree made for a unit text (across
        analyses, like the tree: :meth:`made_facts`); None for libcst's tree, whose facts
        the analysis keeps alone (``syntactic``)."""
        found = None if self.concrete else self.made.made_of(tree)
        return found.facts if found is not None else None
