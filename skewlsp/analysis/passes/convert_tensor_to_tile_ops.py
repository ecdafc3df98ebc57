"""ConvertTensorToTileOps: which names hold a tensor where a pipeline loop starts, and
which are tiles.

ConvertTensorToTileOps turns the tensor ops of an outlined InCore function into tile
ops: a slice of a tensor read inside an InCore body becomes a ``tile.load``, the only
kind of statement ``LowerPipelineToSlots``
(``src/ir/transforms/lower_pipeline_to_slots_pass.cpp``) turns into slots. So which
names hold a tensor, and of what shape and dtype, is what tells the loads of a body
apart and sizes their slots. Tensors are the function's ``pl.Tensor`` parameters and
the names bound to one before the loop: ``pl.create_tensor``, a view of a tensor
(``pl.reshape``; a slice, outside an InCore scope), a plain alias, the tensor an
``assemble`` or ``store`` writes, a name a call of an inline helper binds (typed by the
helper's ``->``, as the DSL parser types the call: ``inline_functions.splice``'s
``declared_returns``), a name a call of an extern kernel binds (the tensor its first call
passes for the kernel's first ``pl.Out`` parameter, as pl.jit types it:
:mod:`.jit_return_type`). Inside an InCore scope a slice is a load, so its name holds a
tile.

The walk also counts the InCore scopes it opens (``pl.at`` at the CORE_GROUP level,
``pl.spmd``, a ``pl.split_aiv`` region outside one: ``frontend.scope.opens_incore_scope``):
the compiler outlines each into a function of its own, and the slots the pass pins are
charged per function. A ``with pl.spmd`` body that opens none (it dispatches a kernel)
becomes a Spmd function this pass does not convert: its loops hold no loads.

Models: ``src/ir/transforms/convert_tensor_to_tile_ops_pass.cpp`` (pass doc 10; which
slice it loads to Mat and which to Vec is ExpandMixedKernel's scan, ``core_split``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.constants import Const, Dynamic, Folded, Opaque
from skewlsp.analysis.frontend.names import (
    binding_of,
    body_statements,
    compound_suites,
    statement_defs,
    target_effects,
)
from skewlsp.analysis.frontend.op_registry import op_leaf
from skewlsp.analysis.frontend.scope import function_params, is_spmd_scope, opens_incore_scope
from skewlsp.analysis.passes.jit_return_type import ExternOuts, returned_argument
from skewlsp.analysis.passes.simplify import Fold, simplified, simplified_difference
from skewlsp.analysis.source.tree_text import MadeTrees
from skewlsp.analysis.source.walk import walk

# Ops whose result is a view of their first argument: of a tensor, a tensor.
TENSOR_VIEW_OPS = frozenset({"reshape", "view", "reinterpret_view", "transpose_view"})

# The declared ``->`` annotation of a module's inline helper, by name (None: not one, or
# none written): the type the DSL parser gives the names a call of it binds.
Returns = Callable[[str], cst.Annotation | None]


@dataclass(frozen=True)
class Extent:
    """One dimension: its value, or the symbol that makes it known only at run time
    (``dynamic``) or only when the module loads (``unknown``)."""

    value: int | None = None
    dynamic: str | None = None
    unknown: str | None = None


@dataclass(frozen=True)
class Tensor:
    """A tensor: its dimensions as written (``shape``, None: not known), or the slice of
    another tensor it is a view of (``view``), and its dtype (``"BF16"``; None: not
    known). The dimensions are folded when a load asks for them (:func:`dims_of`)."""

    shape: cst.BaseExpression | None
    dtype: str | None
    view: tuple[cst.Subscript, Tensor] | None = None


def dims_of(tensor: Tensor, fold: Fold) -> tuple[Extent, ...] | None:
    """The tensor's dimensions, folded."""
    if tensor.view is not None:
        return subscript_extents(tensor.view[0], tensor.view[1], fold)
    return fold_list(tensor.shape, fold)


def extent_of(folded: Folded, text: str) -> Extent:
    """A folded expression as a dimension (``text``: its source, named when unknown)."""
    if isinstance(folded, Const):
        return Extent(folded.value)
    if isinstance(folded, Opaque):
        return Extent(unknown=folded.symbol)
    if isinstance(folded, Dynamic):
        return Extent(dynamic=folded.symbol)
    return Extent(dynamic=text)


def fold_extent(node: cst.BaseExpression, fold: Fold) -> Extent:
    """A dimension as the pass reads it: Simplify has canonicalised its arithmetic."""
    return extent_of(simplified(node, fold), _text(node))


def fold_list(node: cst.BaseExpression | None, fold: Fold) -> tuple[Extent, ...] | None:
    """``[a, b]`` as extents; None for anything but a literal list or tuple."""
    if not isinstance(node, (cst.List, cst.Tuple)):
        return None
    return tuple(fold_extent(element.value, fold) for element in node.elements)


def subscript_extents(node: cst.Subscript, tensor: Tensor, fold: Fold) -> tuple[Extent, ...] | None:
    """The extents of the slice ``t[...]`` of ``tensor`` as the DSL parser works them out
    (an index keeps a dimension of 1, a missing trailing index is ``:``); None when it
    reads one element (``tensor.read``, a scalar)."""
    return window_extents(node, dims_of(tensor, fold), fold)


def window_extents(
    node: cst.Subscript, dims: tuple[Extent, ...] | None, fold: Fold
) -> tuple[Extent, ...] | None:
    """:func:`subscript_extents` of something whose dimensions are ``dims`` (None: not
    known), a tensor's or a tile's (the parser slices both alike)."""
    extents: list[Extent] = []
    sliced = False
    for index, element in enumerate(node.slice):
        part = element.slice
        if isinstance(part, cst.Slice):
            sliced = True
            dim = dims[index] if dims is not None and index < len(dims) else Extent()
            extents.append(_slice_extent(part, dim, fold))
        else:
            extents.append(Extent(1))
    if not sliced and (dims is None or len(node.slice) == len(dims)):
        return None
    if dims is not None:
        extents.extend(dims[len(node.slice) :])
    return tuple(extents)


def _slice_extent(part: cst.Slice, dim: Extent, fold: Fold) -> Extent:
    """``upper - lower``, folded as the parser's arithmetic analyzer folds it
    (``k : k + n`` and ``c * K : (c + 1) * K`` alike)."""
    lower, upper = part.lower, part.upper
    if lower is None:
        return dim if upper is None else fold_extent(upper, fold)
    start = fold_extent(lower, fold)
    # With a start that is not a constant the extent is the bounds' difference, and the
    # upper bound is folded alone only when that is not integer arithmetic: ``k : k + K``
    # (most slices in a loop) is folded once. The difference folds every part of the
    # bound its own folding would, so the names asked and the reads charged are the same.
    stop = dim if upper is None or start.value is None else fold_extent(upper, fold)
    if start.value is not None and stop.value is not None:
        return Extent(stop.value - start.value)
    if upper is not None:
        difference = simplified_difference(upper, lower, fold)
        if difference is not None:
            return extent_of(difference, _text(upper))
        stop = fold_extent(upper, fold) if start.value is None else stop
    unknown = start.unknown or stop.unknown
    if unknown is not None:
        return Extent(unknown=unknown)
    return Extent(dynamic=start.dynamic or stop.dynamic)


def dtype_of(node: cst.BaseExpression | None) -> str | None:
    """``pl.BF16`` -> "BF16" (None for anything but a dotted dtype name)."""
    path = dsl.dotted(node) if node is not None else None
    return path[-1] if path else None


@dataclass(frozen=True)
class LoopSurroundings:
    """The tensors bound where a loop starts and the InCore scope it is in (by order: 0
    for the function's own body, n for the n-th scope the function opens), and the
    statement that opens the scope (the function, for its own body): the memory passes
    read every matmul of the function the compiler outlines it to. ``tile_ops`` is False
    for a loop in a ``pl.spmd`` dispatch body outside any InCore scope: its Spmd function
    stays at tensor level (this pass converts InCore functions only), so its slices are
    never loads."""

    tensors: dict[str, Tensor]
    scope: int
    tile_ops: bool = True
    opened_by: cst.CSTNode | None = None  # the statement opening the scope (the function: 0)


def surroundings(
    fn: cst.FunctionDef,
    incore: bool,
    made: MadeTrees | None,
    returns: Returns | None = None,
    params: Mapping[str, Tensor] | None = None,
    outs: ExternOuts | None = None,
) -> dict[int, LoopSurroundings]:
    """One walk of ``fn`` (``incore``: its body is an InCore scope; ``made``: the trees the
    analysis made, ``fn`` may be one's; ``returns``: the module's inline helpers' declared
    return types, for the names a call of one binds; ``params``: the tensors ``pl.jit``
    gives its bare ``pl.Tensor`` parameters; ``outs``: the extern kernels' first ``pl.Out``
    parameters, for the names a call of one binds): the surroundings of each ``for`` in
    it, by the node's id."""
    walker = _Walk(made, fn, returns, outs=outs)
    _seed(walker, fn, params)
    walker.scope_nodes[0] = fn
    walker.block(body_statements(fn.body), incore, 0)
    return {
        key: replace(found, opened_by=walker.scope_nodes.get(found.scope))
        for key, found in walker.loops.items()
    }


def scope_surroundings(
    fn: cst.FunctionDef,
    incore: bool,
    made: MadeTrees | None,
    params: Mapping[str, Tensor] | None = None,
) -> list[LoopSurroundings]:
    """The InCore scopes ``fn`` opens (its own body first when ``incore``), each with the
    tensors bound where it opens: what the memory passes read of a scope that holds no
    loop (one walk, as :func:`surroundings`)."""
    walker = _Walk(made, fn)
    _seed(walker, fn, params)
    walker.scope_nodes[0] = fn
    if incore:
        walker.scope_tensors[0] = dict(walker.tensors)
    walker.block(body_statements(fn.body), incore, 0)
    return [
        LoopSurroundings(tensors, scope, opened_by=walker.scope_nodes[scope])
        for scope, tensors in walker.scope_tensors.items()
    ]


def tensors_at(
    fn: cst.FunctionDef,
    call: cst.Call,
    returns: Returns | None = None,
    params: Mapping[str, Tensor] | None = None,
    outs: ExternOuts | None = None,
) -> dict[str, Tensor] | None:
    """The tensors bound where the statement holding ``call`` (a call in ``fn``, a tree of
    libcst's own parse) starts; None when the walk does not meet it."""
    walker = _Walk(None, fn, returns, call, outs)
    _seed(walker, fn, params)
    walker.block(body_statements(fn.body), False, 0)
    return walker.at_stop


def is_bare(annotation: cst.Annotation | None) -> bool:
    """``pl.Tensor`` with no shape written (``pl.Out[pl.Tensor]`` too): ``pl.jit`` gives
    the parameter its caller's argument's type."""
    return _annotated(annotation) == Tensor(None, None)


def _seed(walker: _Walk, fn: cst.FunctionDef, params: Mapping[str, Tensor] | None) -> None:
    for name, param in function_params(fn):
        found = _annotated(param.annotation)
        if found == Tensor(None, None) and params is not None:
            found = params.get(name, found)
        if found is not None:
            walker.tensors[name] = found


def _annotated(annotation: cst.Annotation | None) -> Tensor | None:
    """``pl.Tensor[[a, b], pl.BF16]`` (under ``pl.Out[...]`` too) as a tensor."""
    if dsl.annotation_kind(annotation) != "Tensor" or annotation is None:
        return None
    node = annotation.annotation
    while isinstance(node, cst.Subscript) and (dsl.dotted(node.value) or ("",))[-1] != "Tensor":
        inner = node.slice[0].slice if node.slice else None
        if not isinstance(inner, cst.Index):
            return Tensor(None, None)
        node = inner.value
    if not isinstance(node, cst.Subscript) or len(node.slice) < 2:
        return Tensor(None, None)
    parts = [element.slice for element in node.slice]
    shape = parts[0].value if isinstance(parts[0], cst.Index) else None
    dtype = dtype_of(parts[1].value) if isinstance(parts[1], cst.Index) else None
    return Tensor(shape, dtype)


class _Walk:
    """Statements in order: the tensors each binding leaves, kept at every ``for``."""

    def __init__(
        self,
        made: MadeTrees | None,
        fn: cst.FunctionDef,
        returns: Returns | None = None,
        stop: cst.Call | None = None,
        outs: ExternOuts | None = None,
    ) -> None:
        self.made = made
        self.fn = fn
        self.returns = returns
        self.outs = outs
        # each extern kernel called: the tensor its first call in ``fn`` passes for its
        # first ``pl.Out`` parameter (None: not known), what every call of it returns
        self.extern_types: dict[str, Tensor | None] = {}
        self.stop = stop  # a call: the tensors where its statement starts are kept
        self.at_stop: dict[str, Tensor] | None = None
        self.tensors: dict[str, Tensor] = {}
        self.opened = 0  # InCore scopes opened so far
        self.loops: dict[int, LoopSurroundings] = {}
        self.scope_nodes: dict[int, cst.CSTNode] = {}  # each scope's opening statement
        self.scope_tensors: dict[int, dict[str, Tensor]] = {}  # the tensors where it opens

    def block(
        self, statements: Sequence[cst.CSTNode], incore: bool, scope: int, spmd: bool = False
    ) -> None:
        """``spmd``: the statements are in a ``pl.spmd`` scope that opened no InCore one."""
        for stmt in statements:
            if self.stop is not None and self.at_stop is None and _holds(stmt, self.stop):
                self.at_stop = dict(self.tensors)
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._bind(small, incore)
            elif isinstance(stmt, cst.BaseCompoundStatement):
                self._compound(stmt, incore, scope, spmd)

    def _compound(
        self, stmt: cst.BaseCompoundStatement, incore: bool, scope: int, spmd: bool
    ) -> None:
        opens = opens_incore_scope(stmt, self.made, incore)
        if opens:
            self.opened += 1
            scope = self.opened
            self.scope_nodes[scope] = stmt
            self.scope_tensors[scope] = dict(self.tensors)
        spmd = spmd or (not (incore or opens) and is_spmd_scope(stmt))
        if isinstance(stmt, cst.For):
            tile_ops = incore or opens or not spmd
            self.loops[id(stmt)] = LoopSurroundings(dict(self.tensors), scope, tile_ops)
            for name in target_effects(stmt.target)[0]:
                self.tensors.pop(name, None)
        for suite in compound_suites(stmt):
            self.block(body_statements(suite), incore or opens, scope, spmd)

    def _bind(self, small: cst.BaseSmallStatement, incore: bool) -> None:
        target, value, annotation = binding_of(small)
        declared = _annotated(annotation) if annotation is not None else None
        if isinstance(target, cst.Name) and declared is not None:
            self.tensors[target.value] = declared
            return
        if type(target) is cst.Subscript:
            return  # ``t[a:b] = x`` writes into the tensor ``t``, which stays one
        if type(target) is cst.Tuple and type(value) is cst.Call:
            self._unpack(target, value)
            return
        if type(small) is cst.Expr and type(small.value) is cst.Call:
            self._extern_result(small.value)  # (a first call made for its effects types later ones)
            return
        if isinstance(target, cst.Name) and value is not None:
            found = self._tensor_of(value, incore)
            if found is None:
                self.tensors.pop(target.value, None)
            else:
                self.tensors[target.value] = found
            return
        for name in statement_defs(cst.SimpleStatementLine([small])):
            self.tensors.pop(name, None)

    def _tensor_of(self, value: cst.BaseExpression, incore: bool) -> Tensor | None:
        if type(value) is cst.Name:
            return self.tensors.get(value.value)
        if type(value) is cst.Subscript and not incore:
            source = self._source(value.value)
            if source is None:
                return None
            return Tensor(None, source.dtype, (value, source))
        if not isinstance(value, cst.Call):
            return None
        leaf = op_leaf(value)
        if leaf is None:
            declared = self._declared(value)
            if declared is None:
                return self._extern_result(value)
            return declared[0] if len(declared) == 1 else None
        args = dsl.positional(value)
        if leaf == "create_tensor":
            dtype = dsl.keyword(value, "dtype")
            return Tensor(
                args[0].value if args else None,
                dtype_of(dtype.value) if dtype is not None else None,
            )
        first = self._source(args[0].value) if args else None
        shape = args[1].value if len(args) > 1 else None
        if leaf in TENSOR_VIEW_OPS and first is not None:
            return Tensor(shape if leaf == "reshape" else None, first.dtype)
        if leaf == "slice" and first is not None and not incore:
            return Tensor(shape, first.dtype)
        if leaf == "assemble":
            return first
        if leaf == "store" and len(args) > 2:
            return self._source(args[2].value)
        return None

    def _source(self, node: cst.BaseExpression) -> Tensor | None:
        return self.tensors.get(node.value) if isinstance(node, cst.Name) else None

    def _unpack(self, target: cst.Tuple, value: cst.Call) -> None:
        """``a, b = helper(...)``: each name the tensor the helper declares in its place
        (the parser's ``_tuple_tmp[i]``), else no tensor known."""
        names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
        declared = self._declared(value)
        if declared is None or len(declared) != len(names) or len(names) != len(target.elements):
            for name in target_effects(target)[0]:
                self.tensors.pop(name, None)
            return
        for name, tensor in zip(names, declared, strict=True):
            if tensor is None:
                self.tensors.pop(name, None)
            else:
                self.tensors[name] = tensor

    def _declared(self, call: cst.Call) -> tuple[Tensor | None, ...] | None:
        """The tensors ``call`` returns, as the inline helper it calls declares them
        (``-> pl.Tensor[...]`` or ``-> tuple[pl.Tensor[...], ...]``, an element that is
        no tensor None); None when it calls no such helper."""
        if self.returns is None or not isinstance(call.func, cst.Name):
            return None
        annotation = self.returns(call.func.value)
        if annotation is None:
            return None
        node = annotation.annotation
        if isinstance(node, cst.Subscript) and dsl.dotted(node.value) == ("tuple",):
            parts = [e.slice for e in node.slice]
            return tuple(
                _annotated(cst.Annotation(p.value)) if isinstance(p, cst.Index) else None
                for p in parts
            )
        return (_annotated(annotation),)


    def _extern_result(self, call: cst.Call) -> Tensor | None:
        """The tensor a call of an extern kernel returns: what the kernel's first call in
        the function passes for its first ``pl.Out`` parameter, the one specialization
        pl.jit makes (:mod:`.jit_return_type`). Not known where that argument is no name
        holding a known tensor, where the first call is one the walk does not meet (in
        an expression), or where this call passes another tensor than the first did."""
        if self.outs is None or not isinstance(call.func, cst.Name):
            return None
        name = call.func.value
        out = self.outs(name)
        if out is None:
            return None
        argument = returned_argument(call, out)
        passed = self._source(argument) if argument is not None else None
        if name not in self.extern_types:
            first = first_call(self.fn, name) is call
            self.extern_types[name] = passed if first else None
        typed = self.extern_types[name]
        return typed if typed is not None and passed is typed else None


def first_call(fn: cst.FunctionDef, name: str) -> cst.Call | None:
    """The first call of ``name`` in ``fn``'s body, in source order: the one pl.jit reads a
    dependency's parameters off (the call of the lowest line and column,
    ``_extract_call_args_for_dep``)."""
    for node in walk(fn.body):
        if type(node) is cst.Call and isinstance(node.func, cst.Name) and node.func.value == name:
            return node
    return None


def _holds(stmt: cst.CSTNode, call: cst.Call) -> bool:
    """Whether simple statement ``stmt`` holds ``call``."""
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    return any(node is call for node in walk(stmt))


def _text(node: cst.BaseExpression) -> str:
    path = dsl.dotted(node)
    if path is not None:
        return ".".join(path)
    return type(node).__name__
