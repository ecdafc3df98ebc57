"""What an InCore scope's ``optimizations=[...]`` asks of the passes after the DSL
parser (``python/pypto/language/parser/ast_parser.py``, ``_parse_optimizations_list``).

``pl.split(mode)`` sets SplitVectorKernel's split mode; ``pl.split(pl.SplitMode.NONE)``
is dropped by the parser (the scope's one encoding of "no split"), so such a scope is
read as one written without it. ``slot_num=N`` (the deprecated ``pl.split(mode,
slot_num=N)`` or ``pl.cross_core_slot(slot_num=N)``) is the depth of the cross-core ring
ExpandMixedKernel builds for the outlined function (``BuildAutomaticPipeSetup``,
``src/ir/transforms/utils/cross_core_pipe.cpp``).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.op_registry import op_leaf
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import Fold, fold_extent
from skewlsp.analysis.source.walk import walk

# Why a scope with a split mode other than NONE is not read (SplitVectorKernel halves its
# vector tiles: neither the tiles nor the loads as written are a lane's).
SPLIT_HALVES = "a split mode halves the vector tiles (not modelled)"


def ring_options(header: Sequence[cst.CSTNode], fold: Fold) -> int | str | None:
    """The cross-core ring's depth a scope's header asks for (``slot_num=`` of
    ``pl.split(pl.SplitMode.NONE, ...)`` or ``pl.cross_core_slot``; None: not written),
    or why the scope is not read: another split mode, a depth not folded."""
    slot_num: int | None = None
    read: set[int] = set()  # the nodes of the calls read here
    for node in (n for part in header for n in walk(part)):
        leaf = op_leaf(node) if type(node) is cst.Call else None
        if type(node) is not cst.Call or leaf not in ("split", "cross_core_slot"):
            continue
        if leaf == "split":
            args = dsl.positional(node)
            written = dsl.keyword(node, "mode") or (args[0] if args else None)
            mode = dsl.dotted(written.value) if written is not None else None
            if not mode or mode[-1] != "NONE":
                return SPLIT_HALVES
        slot = dsl.keyword(node, "slot_num")
        if slot is not None:
            slot_num = fold_extent(slot.value, fold).value
            if slot_num is None:
                return "the cross-core ring's slot_num is not static"
        read.update(id(n) for n in walk(node))
    if any(_mentions_split(part, read) for part in header):
        return SPLIT_HALVES
    return slot_num


# How a split mode is written outside the calls read here: ``pl.split``/``pl.SplitMode``
# and an InCore function's ``{"split": ...}`` attribute (a name that only holds the word,
# ``n_split_base``, is none).
_SPLIT_WORDS = frozenset({"split", "SplitMode", '"split"', "'split'"})


def _mentions_split(node: cst.CSTNode, read: set[int]) -> bool:
    return any(
        type(n) in (cst.Name, cst.SimpleString) and getattr(n, "value", "") in _SPLIT_WORDS
        for n in walk(node)
        if id(n) not in read
    )
