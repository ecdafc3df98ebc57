"""The code of a node of a made tree, cut from the unit text as libcst would render it.

A tree made from the stdlib's (:mod:`cst_from_ast`) has placeholder whitespace, so
rendering it would not give the text back. Each node made from a stdlib node knows
where its code is; libcst, rendering a node alone, gives that code with the
indentation of the block around it left out of continuation lines (its parser
records that indentation apart), and the messages' renderer also drops comments.
Both are done here on the cut. Where the cut could read otherwise (a string over
several lines, a backslash, a comment next to a string) the unit is decided on
libcst's parse instead (:class:`NeedsConcreteTree`).
"""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.source.lines import split_comment, without_block_indent
from skewlsp.analysis.source.unit_parses import NeedsConcreteTree, made_trees, replaced_node


def made_code(node: cst.CSTNode, *, comments: bool) -> str | None:
    """``node``'s code as libcst renders it alone (without comments unless ``comments``),
    if ``node`` belongs to a tree made in this analysis; None if it does not. Raises
    :class:`NeedsConcreteTree` for a made node whose code is not cut from the text."""
    trees = made_trees()
    if not trees:
        return None
    key = id(node)
    for made in trees:
        found = made.ranges.get(key)
        if found is not None:
            start, end, indent = found
            return _as_rendered(made.text[start:end], indent, comments)
        if key in made.shapeless:
            raise NeedsConcreteTree(f"the code of a {type(node).__name__}")
    replaced = replaced_node(node)
    if replaced is not None:
        return _replaced_code(*replaced, comments=comments)
    return None


def made_source(node: cst.CSTNode) -> str | None:
    """The text ``node`` was made from, as written (comments and indentation included),
    if it is a node with code, a compound statement or an indented block of a tree made
    in this analysis; None otherwise, and for a bare name or number (whose code is its
    value). For a question the raw text answers (does a name occur in it?) without any
    rendering."""
    key = id(node)
    for made in made_trees():
        found = made.ranges.get(key) or made.blocks.get(key)
        if found is not None:
            return made.text[found[0] : found[1]]
    return None


def _replaced_code(original: cst.CSTNode, replacements: dict[int, str], comments: bool) -> str:
    for made in made_trees():
        found = made.ranges.get(id(original))
        if found is None:
            continue
        start, end, indent = found
        pieces = sorted(
            (made.ranges[key][0], made.ranges[key][1], name)
            for key, name in replacements.items()
            if key in made.ranges and start <= made.ranges[key][0] < made.ranges[key][1] <= end
        )
        code, at = [], start
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
