"""The code of a node of a made tree, cut from the unit text as libcst would render it.

A tree made from the stdlib's (:mod:`cst_from_ast`) has placeholder whitespace, so
rendering it would not give the text back. Each node made from a stdlib node knows
where its code is; libcst, rendering a node alone, gives that code with the
indentation of the block around it left out of continuation lines (its parser
records that indentation apart), and the messages' renderer also drops comments.
Both are done here on the cut. Where the cut could read otherwise (a string over
several lines, a backslash, a comment next to a string) the unit is decided on
libcst's parse instead (:class:`NeedsConcreteTree`).

Only the tree that made a node knows where its code is, and a libcst node holds no
attribute of ours: the trees made in one analysis are gathered in its
:class:`MadeTrees`, which the analysis's state holds and hands to whatever renders
its nodes (``frontend.values.code_of``).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from skewlsp.analysis.source.cst_from_ast import Converted
from skewlsp.analysis.source.lines import split_comment, without_block_indent
from skewlsp.analysis.source.unit_parses import NeedsConcreteTree


class MadeTrees:
    """The trees one analysis made from the stdlib's, and the nodes made from their nodes.

    Created with the analysis's state (``frontend.state.AnalysisState``), which adds each
    tree as the analysis takes it; read by what renders or reads the code of a node.
    """

    def __init__(self) -> None:
        self._trees: dict[int, Converted] = {}  # by id (each tree kept alive here)
        # id -> (the made node, kept alive while its id is a key; the original; replacements)
        self._replaced: dict[int, tuple[cst.CSTNode, cst.CSTNode, dict[int, str]]] = {}

    def add(self, made: Converted) -> None:
        """``made`` is read by this analysis (made now, or kept from an earlier one)."""
        self._trees[id(made)] = made

    def made_of(self, module: cst.Module) -> Converted | None:
        """The made tree whose module is ``module`` (None: libcst's parse, or not read here)."""
        for made in self._trees.values():
            if made.module is module:
                return made
        return None

    def made_holding(self, nodes: Sequence[cst.CSTNode]) -> Converted | None:
        """The made tree every one of ``nodes`` is a node of (None: none, or no nodes)."""
        if not nodes:
            return None
        first = id(nodes[0])
        for made in self._trees.values():
            if first in made.ranges or first in made.shapeless:
                if all(id(node) in made.ranges or id(node) in made.shapeless for node in nodes):
                    return made
                return None
        return None

    def holds(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` is a node of a tree made in this analysis (not libcst's parse)."""
        key = id(node)
        return any(key in made.shapeless or key in made.ranges for made in self._trees.values())

    def note_replaced(
        self, made: cst.CSTNode, original: cst.CSTNode, replacements: dict[int, str]
    ) -> None:
        """``made`` is ``original`` with the nodes keyed by id in ``replacements`` read as
        those names: its code is the original's with theirs replaced (nothing to note for
        an original of libcst's parse, whose code libcst renders)."""
        if self.holds(original):
            self._replaced[id(made)] = (made, original, dict(replacements))  # as they are now

    def code(self, node: cst.CSTNode, *, comments: bool) -> str | None:
        """``node``'s code as libcst renders it alone (without comments unless ``comments``),
        if ``node`` belongs to a tree made in this analysis; None if it does not. Raises
        :class:`NeedsConcreteTree` for a made node whose code is not cut from the text."""
        if not self._trees:
            return None
        key = id(node)
        for made in self._trees.values():
            found = made.ranges.get(key)
            if found is not None:
                start, end, indent = found
                return _as_rendered(made.text[start:end], indent, comments)
            if key in made.shapeless:
                raise NeedsConcreteTree(f"the code of a {type(node).__name__}")
        replaced = self._replaced.get(key)
        if replaced is not None:
            return self._replaced_code(replaced[1], replaced[2], comments)
        return None

    def source(self, node: cst.CSTNode) -> str | None:
        """The text ``node`` was made from, as written (comments and indentation included),
        if it is a node with code, a compound statement or an indented block of a tree
        made in this analysis; None otherwise, and for a bare name or number (whose code
        is its value). For a question the raw text answers (does a name occur in it?)
        without any rendering."""
        key = id(node)
        for made in self._trees.values():
            found = made.ranges.get(key) or made.blocks.get(key)
            if found is not None:
                return made.text[found[0] : found[1]]
        return None

    def _replaced_code(
        self, original: cst.CSTNode, replacements: dict[int, str], comments: bool
    ) -> str:
        for made in self._trees.values():
            found = made.ranges.get(id(original))
            if found is None:
                continue
            start, end, indent = found
            pieces = sorted(
                (made.ranges[key][0], made.ranges[key][1], name)
                for key, name in replacements.items()
                if key in made.ranges
                and start <= made.ranges[key][0] < made.ranges[key][1] <= end
            )
            code: list[str] = []
            at = start
            for piece_start, piece_end, name in pieces:
                if piece_start < at:
                    continue  # inside a call already read as its name
                code.extend((made.text[at:piece_start], name))
                at = piece_end
            code.append(made.text[at:end])
            return _as_rendered("".join(code), indent, comments)
        raise NeedsConcreteTree("a replaced node of no made tree")


def _as_rendered(code: str, indent: str, comments: bool) -> str:
    if "\n" in code:
        if '"""' in code or "'''" in code or "\\" in code or "\r" in code:
            raise NeedsConcreteTree("a string or a backslash over lines")
        code = without_block_indent(code, indent)
    if not comments and "#" in code:
        kept = []
        for line in code.split("\n"):
            found = split_comment(line)
            if found is None:
                raise NeedsConcreteTree("a comment next to a triple-quoted string")
            kept.append(found[0])
        code = "\n".join(kept)
    return code
