"""The loads of a pipeline loop's body, as LowerPipelineToSlots finds them.

Models ``CollectCandidates`` and ``DisqualifyingUseCollector`` of
``src/ir/transforms/lower_pipeline_to_slots_pass.cpp`` on the source, through what the
passes before it make of the body. The pass takes the body's top-level ``x = tile.load``
statements whose tile the author did not bind to a ``pl.MemRef``; in the source those are

- ``x = pl.load(t, offsets, shapes, ...)`` (its tile in ``target_memory``, Vec by default);
- ``x = t[...]`` and ``x = pl.slice(t, ...)`` of a tensor ``t`` (ConvertTensorToTileOps
  loads them), in Mat when a matmul reads ``x`` (the vector core then receives it from
  the cube) and in Vec otherwise;
- a slice of a tensor (or a ``pl.load``) written as an op's operand: FlattenCallExpr
  makes it a statement of its own, in the memory that op reads; a whole tensor a matmul
  takes is loaded into Mat the same way.

Each must pass the gates of the pass: land in Vec, Mat or Acc; have static extents
(its shape, and the first two dimensions of its ``valid_shape``); not be carried into a
phi (yielded, or an inner loop's ``init_values``, directly or through a tile alias); not
be an argument of an op whose result is its buffer (a view such as ``pl.reshape``, an
in-place op, a store). The last also catches a ``[N, 1]`` column read by an element-wise
op the backend wants row-major: ResolveBackendOpLayouts
(``resolve_backend_op_layouts_pass.cpp``) reshapes it into a ``[1, N]`` row first.

Read off the body as written, apart from ``pl.unroll`` loops (their bodies are written
out): the loads of an inline helper called in the body, or of an ``if`` the compiler
folds away, are not seen.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import InitVar, dataclass, field

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.asked import Asked, Question
from skewlsp.analysis.frontend.constants import Const, Folded
from skewlsp.analysis.frontend.names import binding_of, block_defs, body_statements, reads_of
from skewlsp.analysis.frontend.op_registry import CUBE_OPS, op_leaf
from skewlsp.analysis.lower_pipeline.loop_facts import SlotLoad
from skewlsp.analysis.lower_pipeline.slot_capacity import DTYPE_BITS, slot_bytes
from skewlsp.analysis.passes.body import BodyMatmuls
from skewlsp.analysis.passes.convert_tensor_to_tile_ops import (
    Extent,
    Fold,
    Tensor,
    dims_of,
    fold_list,
    subscript_extents,
)
from skewlsp.analysis.passes.cube_operands import computed_operands
from skewlsp.analysis.passes.resolve_backend_op_layouts import (
    ROW_MAJOR_OPS,
    reshape_reason,
    reshaped_column,
)
from skewlsp.analysis.source.walk import CallsOf, calls_in, nodes_of, walk

SLOT_SPACES = frozenset({"Vec", "Mat", "Acc"})
# Ops whose result is (a view of) an argument's buffer: views that alias their input
# (output memory inherited and in-place safe) and ops registered with
# set_output_reuses_input (src/ir/op/tile_ops/*.cpp, checked at e2d0f78ae). Every argument
# of such a call counts, as in DisqualifyingUseCollector::RecordCallLike, except a
# matmul's operands: they reach it through moves into Left/Right, only its accumulator
# is its own buffer.
BUFFER_SHARING_OPS = frozenset(
    {
        "assemble",
        "reinterpret_view",
        "reshape",
        "set_validshape",
        "slice",
        "tget_scale_addr",
        "transpose_view",
        "batch_matmul_acc",
        "fillpad_inplace",
        "gather_row",
        "gemv_acc",
        "matmul_acc",
        "matmul_mx_acc",
        "mscatter",
        "scatter",
        "scatter_mask",
        "scatter_update",
        "store",
    }
)


@dataclass
class _Found:
    """A load met in the body, before its uses are looked at."""

    name: str
    space: str | None  # None: the first op reading it decides
    extents: tuple[Extent, ...] | None
    dtype: str | None
    valid: tuple[Extent, ...] | None = None
    taken_by: str | None = None  # an operand's op (it has no name of its own)


def computed_loads(
    loop: cst.For,
    matmuls: BodyMatmuls,
    loads: Sequence[SlotLoad],
    scope: tuple[cst.CSTNode, Fold] | None = None,
    tensors: Mapping[str, Tensor] | None = None,
) -> tuple[SlotLoad, ...]:
    """The matmul operands of ``loop`` its body computes rather than loads (a tile the
    cube pops from the vector), as the Mat tiles the cube reads them from, where their
    shape is known (:mod:`skewlsp.analysis.passes.cube_operands`); for the L0 tiles of a
    skewed loop's clones (``scope``: the statement opening its InCore scope, and the
    folding, for a tile built on chip or loaded before the loop; ``tensors``: those in
    scope at the loop)."""
    shapes = [(x.name, (x.extents, x.dtype) if x.extents and x.dtype else None) for x in loads]
    return tuple(
        SlotLoad(name, "Mat", extents=extents, dtype=dtype)
        for name, (extents, dtype) in computed_operands(loop, matmuls, shapes, scope, tensors)
    )


def slot_loads(
    loop: cst.For, tensors: Mapping[str, Tensor], fold: Fold, uses: BodyUses | None = None
) -> tuple[SlotLoad, ...]:
    """The loop body's top-level loads and what the pass makes of each (``uses``: the
    body's :func:`body_uses`, when the caller keeps them)."""
    return statement_loads(body_statements(loop.body), tensors, fold, uses)


def statement_loads(
    statements: Sequence[cst.CSTNode],
    tensors: Mapping[str, Tensor],
    fold: Fold,
    uses: BodyUses | None = None,
    uses_of: UsesOf | None = None,
) -> tuple[SlotLoad, ...]:
    """The loads of a block's statements, as :func:`slot_loads` finds a body's (the
    operands of a matmul outside the pipeline loops are such loads). ``uses_of``: how
    the caller gets a block's :func:`body_uses` (kept for every build and copy)."""
    found = _top_level(statements, tensors, fold)
    if uses is None:
        uses = (uses_of or body_uses)(statements, tensors)
    return tuple(_judged(load, uses) for load in found)


def statement_loads_each(
    statements: Sequence[cst.CSTNode],
    tensors: Mapping[str, Tensor],
    fold: Fold,
    uses_of: UsesOf | None = None,
) -> list[tuple[SlotLoad, ...]]:
    """:func:`statement_loads` of a block, statement by statement (each one's loads, in
    order, their memory judged by the block's uses): what a walk in program order needs
    to place them (``uses_of`` as for :func:`statement_loads`)."""
    found = [_top_level([stmt], tensors, fold) for stmt in statements]
    uses = (uses_of or body_uses)(statements, tensors)
    return [tuple(_judged(load, uses) for load in each) for each in found]


def body_uses(
    statements: Sequence[cst.CSTNode], tensors: Collection[str], calls: CallsOf = calls_in
) -> BodyUses:
    """How ``statements`` use their names: read off the tree and the names of the
    tensors in scope alone, so a caller may keep it for every build and copy the loop
    is decided under (what a value folds to plays no part). ``calls``: how the calls
    under a statement are found (the caller's kept fact of them)."""
    tensors = frozenset(tensors).difference(block_defs(statements))
    return BodyUses(statements, tensors, calls=calls)


# How a caller gets the :func:`body_uses` of a block (``statements``) with the tensors
# in scope (their names): the function itself, or a cache of it (``driver.loop_loads``).
UsesOf = Callable[[Sequence[cst.CSTNode], Collection[str]], "BodyUses"]


def _top_level(
    statements: Sequence[cst.CSTNode], tensors: Mapping[str, Tensor], fold: Fold
) -> list[_Found]:
    """The loads of the top-level statements; a ``pl.unroll`` loop's body is top-level
    too once UnrollLoops has written out its copies."""
    found: list[_Found] = []
    for stmt in statements:
        if isinstance(fold, KeptFold):
            found.extend(fold.loads_of(stmt, tensors))
        else:
            found.extend(_statement_loads(stmt, tensors, fold))
    return found


def _statement_loads(stmt: cst.CSTNode, tensors: Mapping[str, Tensor], fold: Fold) -> list[_Found]:
    """The loads of one top-level statement (:func:`_top_level`'s)."""
    if type(stmt) is cst.For and (written := _unroll_count(stmt)) is not None:
        # (UnrollLoops runs before Simplify: its count is folded as written)
        count = fold(written)
        inner = _top_level(body_statements(stmt.body), tensors, fold)
        return inner * (count.value if isinstance(count, Const) else 1)
    if not isinstance(stmt, cst.SimpleStatementLine):
        return []
    found: list[_Found] = []
    for small in stmt.body:
        named = _named_load(small, tensors, fold)
        if named is not None:
            found.extend(named)
        else:
            found.extend(_operand_loads(small, tensors, fold))
    return found


_Asked = list[Question]  # the questions asked finding what is kept of a node


class KeptFold:
    """One loop's folding, as the passes that read the loop's loads share it: each
    expression folded once, and each statement's loads found once.

    Those passes read the same statements again and again: the body's loads for the
    body (:func:`slot_loads`), again for its matmuls' operands and as blocks of its
    scope (``memory.l0_tiles``, ``memory.mat_tiles``: every block prefix up to a matmul
    read anew), a tensor's shape for every slice of it. Under one loop's folding an
    expression folds to one value and a statement holds the same loads (what its block's
    uses make of them is judged apart, :func:`_judged`); the reads of the build a
    folding charges go to the frame the loop is decided in whichever time it is folded,
    so folded once it charges the same. Made for one loop's reading and dropped after
    it: another loop folds its names apart. Each node is held with what was found of it
    (no id is reused while it lives) and the questions asked finding it (``asked``'s,
    ``frontend.asked``), noted again when it is read again: each pass's questions are
    all its result depends on, whoever read the node first. ``calls``: how those passes
    find the calls under a statement (:func:`calls_of`), the analysis's kept fact of it
    (``driver.loop_loads``: it reads them for every loop, copy and build).
    """

    def __init__(self, fold: Fold, calls: CallsOf = calls_in, asked: Asked | None = None) -> None:
        self._fold = fold
        self.calls = calls
        self._trail: list[Question] = asked.trail if asked is not None else []
        self._folded: dict[int, tuple[cst.BaseExpression, Folded, _Asked]] = {}
        self._found: dict[int, tuple[cst.CSTNode, Mapping[str, Tensor], list[_Found], _Asked]] = {}

    def __call__(self, node: cst.BaseExpression) -> Folded:
        kept = self._folded.get(id(node))
        if kept is None:
            start, value = len(self._trail), self._fold(node)  # (the questions: from start)
            kept = self._folded[id(node)] = (node, value, self._trail[start:])
        elif kept[2]:
            self._trail.extend(kept[2])  # (asked again, as each reader's questions)
        return kept[1]

    def loads_of(self, stmt: cst.CSTNode, tensors: Mapping[str, Tensor]) -> list[_Found]:
        """The loads of ``stmt`` with ``tensors`` in scope (found again for others)."""
        kept = self._found.get(id(stmt))
        if kept is None or kept[1] is not tensors:
            start, found = len(self._trail), _statement_loads(stmt, tensors, self)
            kept = self._found[id(stmt)] = (stmt, tensors, found, self._trail[start:])
        elif kept[3]:
            self._trail.extend(kept[3])
        return kept[2]


def calls_of(fold: Fold) -> CallsOf:
    """How the passes reading a loop under ``fold`` find the calls under a node: as its
    :class:`KeptFold` does, else by walking."""
    return fold.calls if isinstance(fold, KeptFold) else calls_in


def _unroll_count(stmt: cst.For) -> cst.BaseExpression | None:
    """``N`` of ``for h in pl.unroll(N)`` (None for any other loop)."""
    call = stmt.iter
    if not isinstance(call, cst.Call) or dsl.dotted(call.func) != ("pl", "unroll"):
        return None
    args = dsl.positional(call)
    return args[0].value if len(args) == 1 else None


def _named_load(
    small: cst.BaseSmallStatement, tensors: Mapping[str, Tensor], fold: Fold
) -> list[_Found] | None:
    """``x = <a load>``: [the load] ([] when the author bound it to a MemRef); None when
    the statement is not one."""
    target, value, annotation = binding_of(small)
    if not isinstance(target, cst.Name) or value is None:
        return None
    load = _load_of(value, tensors, fold)
    if load is None:
        return None
    if _bound_by_author(annotation):
        return []
    load.name = target.value
    return [load]


def _load_of(value: cst.BaseExpression, tensors: Mapping[str, Tensor], fold: Fold) -> _Found | None:
    """``value`` as a load (named after its tensor until it is given a name)."""
    if type(value) is cst.Subscript and type(value.value) is cst.Name:
        tensor = tensors.get(value.value.value)
        if tensor is None:
            return None
        extents = subscript_extents(value, tensor, fold)
        if extents is None:
            return None  # an element read: a scalar
        return _Found(f"{value.value.value}[...]", None, extents, tensor.dtype)
    if type(value) is not cst.Call:
        return None
    leaf = op_leaf(value)
    args = dsl.positional(value)
    source = args[0].value if args else None
    tensor = tensors.get(source.value) if isinstance(source, cst.Name) else None
    if leaf == "load":
        shapes = dsl.argument(value, 2, "shapes")
        memory = dsl.keyword(value, "target_memory")
        path = dsl.dotted(memory.value) if memory is not None else ("Vec",)
        return _Found(
            f"{_text(source)}[...]",
            path[-1] if path else "?",
            fold_list(shapes, fold),
            tensor.dtype if tensor is not None else None,
            fold_list(dsl.argument(value, 3, "valid_shape"), fold),
        )
    if leaf == "slice" and tensor is not None:
        return _Found(
            f"{_text(source)}[...]",
            None,
            fold_list(dsl.argument(value, 1, "shape"), fold),
            tensor.dtype,
            fold_list(dsl.argument(value, 3, "valid_shape"), fold),
        )
    return None


def _operand_loads(
    small: cst.BaseSmallStatement, tensors: Mapping[str, Tensor], fold: Fold
) -> list[_Found]:
    """Slices of tensors (and loads) written as an op's operands, each a load of its own
    once FlattenCallExpr has run; ``t[a:b] = u[c:d]`` stores a load as it is."""
    found = []
    target, value, _ = binding_of(small)
    if isinstance(target, cst.Subscript) and value is not None:
        load = _load_of(value, tensors, fold)
        if load is not None:
            load.taken_by = "store"
            found.append(load)
    for node in calls_of(fold)(small):
        leaf = op_leaf(node)
        if leaf is None:
            continue
        transposed = _transposed(node, leaf)
        found.extend(_whole_tensor_operands(node, leaf, tensors, transposed, fold))
        for arg in node.args:
            load = _load_of(arg.value, tensors, fold)
            if load is not None:
                load.taken_by = (
                    f"{leaf}({transposed[id(arg)]}=True)" if id(arg) in transposed else leaf
                )
                if load.space is None:
                    load.space = "Mat" if leaf in CUBE_OPS else "Vec"
                found.append(load)
    return found


def _whole_tensor_operands(
    call: cst.Call,
    leaf: str,
    tensors: Mapping[str, Tensor],
    transposed: Mapping[int, str],
    fold: Fold,
) -> list[_Found]:
    """A tensor a matmul takes as it is: loaded whole into Mat where the matmul is."""
    if leaf not in CUBE_OPS:
        return []
    operands = dsl.positional(call)[1:] if leaf.endswith("_acc") else dsl.positional(call)
    found = []
    for arg in operands[:2]:
        if isinstance(arg.value, cst.Name) and arg.value.value in tensors:
            tensor = tensors[arg.value.value]
            by = f"{leaf}({transposed[id(arg)]}=True)" if id(arg) in transposed else leaf
            dims = dims_of(tensor, fold)
            found.append(_Found(arg.value.value, "Mat", dims, tensor.dtype, taken_by=by))
    return found


def _transposed(call: cst.Call, leaf: str) -> dict[int, str]:
    """The operands of a matmul read transposed (``a_trans``/``b_trans=True``), by the id
    of their argument: the compiler reads them through a ``transpose_view`` of their
    buffer."""
    if leaf not in CUBE_OPS:
        return {}
    operands = dsl.positional(call)[1:] if leaf.endswith("_acc") else dsl.positional(call)
    found = {}
    for index, keyword in enumerate(("a_trans", "b_trans")):
        flag = dsl.keyword(call, keyword)
        if flag is not None and dsl.dotted(flag.value) == ("True",) and index < len(operands):
            found[id(operands[index])] = keyword
    return found


def _bound_by_author(annotation: cst.Annotation | None) -> bool:
    return annotation is not None and any(
        isinstance(n, cst.Attribute)
        and n.attr.value == "MemRef"
        or isinstance(n, cst.Name)
        and n.value == "MemRef"
        for n in walk(annotation.annotation)
    )


# The nodes :class:`BodyUses` reads: calls and bindings.
_USES = frozenset({cst.Call, cst.Assign, cst.AnnAssign})


@dataclass
class BodyUses:
    """How the body uses its names, in one walk: what is carried into a phi, what a
    buffer-sharing op takes, what a row-major element-wise op reads (all resolved to
    their alias roots), and what a matmul reads."""

    statements: Sequence[cst.CSTNode]
    tensors: frozenset[str]  # a view of one is a load, not a view of a tile's buffer
    roots: dict[str, str] = field(default_factory=dict)
    carried: set[str] = field(default_factory=set)
    shared: set[str] = field(default_factory=set)
    row_major: dict[str, str] = field(default_factory=dict)  # name -> the op
    transposed: dict[str, str] = field(default_factory=dict)  # name -> "b_trans"
    cube_read: set[str] = field(default_factory=set)  # operands of a matmul
    # How the calls under a statement are found (the caller's kept fact of them); not
    # kept (the uses are kept longer than the analysis that found them)
    calls: InitVar[CallsOf] = calls_in

    def __post_init__(self, calls: CallsOf) -> None:
        for stmt in self.statements:
            if type(stmt) is not cst.SimpleStatementLine:
                for node in nodes_of(stmt, _USES):
                    if type(node) is cst.Call:
                        self._call(node)
                    else:
                        self._binding(node)
                continue
            # (a line's statements in walk order: each binding, then the calls in it)
            for small in stmt.body:
                if type(small) is cst.Assign or type(small) is cst.AnnAssign:
                    self._binding(small)
                for call in calls(small):
                    self._call(call)

    def _binding(self, node: cst.CSTNode) -> None:
        self._alias(node)
        target, value, _ = binding_of(node)
        if type(target) is cst.Subscript and value is not None:
            # ``t[a:b] = x`` stores ``x`` (an assemble into ``t``)
            self.shared.update(self.root(n) for n in _names(value))

    def root(self, name: str) -> str:
        seen = {name}
        while name in self.roots and self.roots[name] not in seen:
            name = self.roots[name]
            seen.add(name)
        return name

    def _alias(self, node: cst.CSTNode) -> None:
        """``a = b`` and ``a = view(b, ...)`` share ``b``'s buffer (InitMemRef's edges)."""
        target, value, _ = binding_of(node)
        if type(target) is not cst.Name or value is None:
            return
        if type(value) is cst.Name:
            self.roots[target.value] = value.value
        elif type(value) is cst.Call and op_leaf(value) in BUFFER_SHARING_OPS:
            first = dsl.positional(value)
            if first and isinstance(first[0].value, cst.Name):
                source = first[0].value.value
                if source not in self.tensors:
                    self.roots[target.value] = source

    def _call(self, call: cst.Call) -> None:
        leaf = op_leaf(call)
        direct = [arg.value.value for arg in call.args if type(arg.value) is cst.Name]
        if leaf in CUBE_OPS:
            self.cube_read.update(direct)
        if leaf == "yield_":
            self.carried.update(self.root(n) for n in reads_of(call))
        elif leaf in ("range", "pipeline", "parallel", "unroll"):
            init = dsl.keyword(call, "init_values")
            if init is not None:
                self.carried.update(self.root(n) for n in reads_of(init.value))
        if leaf in BUFFER_SHARING_OPS:  # (a nested call's result is a temporary of its own)
            if leaf in CUBE_OPS:  # the accumulator, its first operand
                positional = dsl.positional(call)
                direct = _names(positional[0].value) if positional else []
            tiles = [name for name in direct if name not in self.tensors]
            self.shared.update(self.root(n) for n in tiles)
        if leaf in CUBE_OPS:
            for arg in call.args:
                keyword = _transposed(call, leaf).get(id(arg))
                if keyword is not None and isinstance(arg.value, cst.Name):
                    self.transposed.setdefault(self.root(arg.value.value), keyword)
        if leaf in ROW_MAJOR_OPS:
            for name in direct:
                self.row_major.setdefault(self.root(name), leaf)


def _names(node: cst.BaseExpression) -> list[str]:
    return [node.value] if isinstance(node, cst.Name) else []


def _judged(load: _Found, uses: BodyUses) -> SlotLoad:
    """The load as the pass sees it: its memory, one slot's size and its blocker."""
    space = load.space or ("Mat" if load.name in uses.cube_read else "Vec")
    values = _values(load.extents)
    size = None
    if values is not None and load.dtype is not None:
        size = slot_bytes(values, load.dtype, space)
    return SlotLoad(
        load.name,
        space,
        size,
        _blocker(load, space, values, uses),
        _unknown(load),
        tuple(values) if values is not None else None,
        load.dtype,
        _partial(load, values),
    )


def _partial(load: _Found, values: list[int] | None) -> bool:
    """Whether the load's ``valid_shape`` is written and not known to be its shape."""
    if load.valid is None:
        return False
    valid = _values(load.valid)
    return valid is None or values is None or valid != values


def _values(extents: Sequence[Extent] | None) -> list[int] | None:
    if extents is None or any(e.value is None for e in extents):
        return None
    return [e.value for e in extents if e.value is not None]


def _blocker(load: _Found, space: str, values: list[int] | None, uses: BodyUses) -> str | None:
    name = f"`{load.name}`"
    if space not in SLOT_SPACES:
        return f"{name} lands in {space}, not Vec, Mat or Acc"
    runtime = _runtime(load.extents) or _runtime((load.valid or ())[:2])
    if runtime is not None:
        return f"{name} has a shape known only at run time (`{runtime}`)"
    if load.taken_by is not None:
        if "_trans=True" in load.taken_by:
            return _transposed_view(name, load.taken_by.split("(")[1].split("=")[0])
        if load.taken_by in BUFFER_SHARING_OPS and load.taken_by not in CUBE_OPS:
            return f"{name} is passed straight to `{load.taken_by}`, whose result is its buffer"
        if load.taken_by in ROW_MAJOR_OPS and reshaped_column(values, space):
            return reshape_reason(name, values, load.taken_by)
        return None
    root = uses.root(load.name)
    if root in uses.carried:
        return f"{name} is carried out of the loop or an inner one (a phi)"
    if root in uses.shared:
        return f"{name} is an argument of a view or in-place op (it shares its buffer)"
    if root in uses.transposed:
        return _transposed_view(name, uses.transposed[root])
    reader = uses.row_major.get(root)
    if reader is not None and reshaped_column(values, space):
        return reshape_reason(name, values, reader)
    return None


def _transposed_view(name: str, keyword: str) -> str:
    return (
        f"{name} is read by a matmul with {keyword}=True, through a transposed view of its buffer"
    )


def _runtime(extents: Iterable[Extent] | None) -> str | None:
    for extent in extents or ():
        if extent.dynamic is not None:
            return extent.dynamic
    return None


def _unknown(load: _Found) -> str | None:
    """What the load's size depends on that skewlsp cannot see (None: nothing)."""
    for extent in load.extents or ():
        if extent.unknown is not None:
            return f"`{extent.unknown}`"
    if load.extents is None or any(e.value is None and e.dynamic is None for e in load.extents):
        return f"the shape of `{load.name}`"
    if load.dtype not in DTYPE_BITS:
        return f"the dtype of `{load.name}`"
    return None


def _text(node: cst.BaseExpression | None) -> str:
    path = dsl.dotted(node) if node is not None else None
    return ".".join(path) if path else "?"
