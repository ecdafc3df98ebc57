"""LowerPipelineToSlots: which pipeline loops rotate their loads through slots (PTOAS).

Models: ``src/ir/transforms/lower_pipeline_to_slots_pass.cpp`` (pass doc 27). Only under
``memory_planner=PTOAS``; the pass runs before LowerPipelineLoops and takes a loop
(``stage=F``) only when every gate holds, all or nothing:

- ``LoopShapeAllowsSlots``: ``2 <= F <= 16``, a step of 1 and a constant start that ``F``
  divides (the slot index must be literally ``i % F``);
- no enclosing pipeline loop was declined (its copies would share the slots);
- ``CollectCandidates``: every top-level ``x = load(...)`` the author did not bind to a
  ``pl.MemRef`` lands in Vec, Mat or Acc, has static extents, is not carried into a phi
  (yielded, or a nested loop's ``init_values``, directly or through a tile alias) and is
  not an argument of an op whose result is its source's buffer (a view or an in-place
  op, ``op_predicates::OutputInheritsSourceBuffer``); a loop without such a load is left;
- ``SlotsFitOnChip``: the slots fit the memory space. Not modelled: it needs each tile's
  allocation size and the backend's capacities (see the reason a rotation gives).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend import dsl
from skewlsp.analysis.frontend.names import body_statements, reads_of
from skewlsp.analysis.frontend.op_registry import op_leaf
from skewlsp.analysis.source.walk import walk

MIN_SLOTS, MAX_SLOTS = 2, 16
SLOT_SPACES = frozenset({"Vec", "Mat", "Acc"})
CUBE_SPACES = frozenset({"Mat", "Acc", "Left", "Right", "Bias"})
# Ops whose result is (a view of) an argument's buffer: views that alias their input
# (output memory inherited and in-place safe) and ops registered with
# set_output_reuses_input (src/ir/op/tile_ops/*.cpp, checked at e2d0f78ae). Every argument
# of such a call counts, as in DisqualifyingUseCollector::RecordCallLike.
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


@dataclass(frozen=True)
class SlotVerdict:
    """Whether the loop rotates, and why not (``declined``) or which loads (``loads``)."""

    rotated: bool
    declined: str | None = None
    loads: tuple[str, ...] = ()


def rotate(
    loop: cst.For,
    stage: int,
    start: int | None,
    step: int | None,
    *,
    declined_above: bool,
    core: str | None = None,
    tensors: frozenset[str] = frozenset(),
) -> SlotVerdict:
    """The pass's verdict on ``loop`` (``core``: "aic"/"aiv" for one core's copy of a mixed
    loop, whose loads are the ones landing on that core; ``tensors``: the names of the
    function's tensor parameters, whose slices an op reads through a load)."""
    shape = _shape_blocker(stage, start, step, declined_above)
    if shape is not None:
        return SlotVerdict(False, shape)
    statements = body_statements(loop.body)
    loads = [load for load in _loads(statements, tensors) if _on_core(load, core)]
    if not loads:
        return SlotVerdict(False, "no top-level load to rotate")
    carried, shared = _disqualified(statements)
    for load in loads:
        blocker = _load_blocker(load, carried, shared)
        if blocker is not None:
            return SlotVerdict(False, blocker)
    return SlotVerdict(True, loads=tuple(load.name for load in loads))


def _shape_blocker(
    stage: int, start: int | None, step: int | None, declined_above: bool
) -> str | None:
    if not MIN_SLOTS <= stage <= MAX_SLOTS:
        return f"stage={stage} is outside ptoas' {MIN_SLOTS}..{MAX_SLOTS} slots"
    if declined_above:
        return "an enclosing pipeline loop is replicated, so its copies would share the slots"
    if step != 1:
        return f"the step is {step if step is not None else 'not a constant'}, not 1"
    if start is None or start % stage:
        shown = start if start is not None else "not a constant"
        return f"the start ({shown}) is not a multiple of stage={stage}"
    return None


@dataclass(frozen=True)
class _Load:
    name: str
    call: cst.Call
    space: str


def _loads(statements: Sequence[cst.CSTNode], tensors: frozenset[str]) -> list[_Load]:
    """The top-level loads the author did not bind to a MemRef: ``name = load(...)``, and
    each slice of a tensor an op reads (a load once tensor ops become tile ops, made a
    statement of its own by FlattenCallExpr)."""
    found = []
    for stmt in statements:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and stmt.body else None
        target, value, annotation = _assignment(small)
        if (
            isinstance(target, cst.Name)
            and isinstance(value, cst.Call)
            and op_leaf(value) == "load"
        ):
            if not _bound_by_author(annotation):
                found.append(_Load(target.value, value, _space(value)))
            continue
        if small is not None:
            found.extend(_sliced_operands(small, tensors))
    return found


def _sliced_operands(small: cst.CSTNode, tensors: frozenset[str]) -> list[_Load]:
    """``t[...]`` of a tensor ``t`` passed to an op: loaded into Mat for a matmul, Vec else."""
    found = []
    for node in walk(small):
        if not isinstance(node, cst.Call) or op_leaf(node) is None:
            continue
        cube = op_leaf(node) in ("matmul", "matmul_acc", "batch_matmul")
        for arg in node.args:
            value = arg.value
            sliced = isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name)
            if sliced and value.value.value in tensors:  # type: ignore[attr-defined]
                name = f"{value.value.value}[...]"  # type: ignore[attr-defined]
                found.append(_Load(name, node, "Mat" if cube else "Vec"))
    return found


def _assignment(
    small: cst.CSTNode | None,
) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None, cst.Annotation | None]:
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        return small.targets[0].target, small.value, None
    if isinstance(small, cst.AnnAssign):
        return small.target, small.value, small.annotation
    return None, None, None


def _bound_by_author(annotation: cst.Annotation | None) -> bool:
    return annotation is not None and "MemRef" in reads_of(annotation.annotation) + [
        n.attr.value for n in walk(annotation.annotation) if isinstance(n, cst.Attribute)
    ]


def _space(call: cst.Call) -> str:
    """The memory space the load's tile lands in (``target_memory=``; Vec by default)."""
    arg = dsl.keyword(call, "target_memory")
    if arg is None:
        return "Vec"
    path = dsl.dotted(arg.value)
    return path[-1] if path else "?"


def _on_core(load: _Load, core: str | None) -> bool:
    if core is None:
        return True
    return (load.space in CUBE_SPACES) == (core == "aic")


def _disqualified(statements: Sequence[cst.CSTNode]) -> tuple[set[str], set[str]]:
    """Names carried into a phi, and names a buffer-sharing op takes, as their alias roots."""
    roots: dict[str, str] = {}
    carried: set[str] = set()
    shared: set[str] = set()
    for stmt in statements:
        for node in walk(stmt):
            _record_alias(node, roots)
            if isinstance(node, cst.Call):
                _record_use(node, roots, carried, shared)
    return carried, shared


def _root(name: str, roots: dict[str, str]) -> str:
    seen = {name}
    while name in roots and roots[name] not in seen:
        name = roots[name]
        seen.add(name)
    return name


def _record_alias(node: cst.CSTNode, roots: dict[str, str]) -> None:
    """``a = b`` and ``a = view(b, ...)`` share ``b``'s buffer (InitMemRef's alias edges)."""
    target, value, _ = _assignment(node)
    if not isinstance(target, cst.Name) or value is None:
        return
    if isinstance(value, cst.Name):
        roots[target.value] = value.value
    elif isinstance(value, cst.Call) and op_leaf(value) in BUFFER_SHARING_OPS:
        first = dsl.positional(value)
        if first and isinstance(first[0].value, cst.Name):
            roots[target.value] = first[0].value.value


def _record_use(call: cst.Call, roots: dict[str, str], carried: set[str], shared: set[str]) -> None:
    leaf = op_leaf(call)
    if leaf == "yield_":
        carried.update(_root(n, roots) for n in reads_of(call))
    elif leaf in ("range", "pipeline", "parallel", "unroll"):
        init = dsl.keyword(call, "init_values")
        if init is not None:
            carried.update(_root(n, roots) for n in reads_of(init.value))
    if leaf in BUFFER_SHARING_OPS:  # (a nested call's result is a temporary of its own)
        direct = [arg.value.value for arg in call.args if isinstance(arg.value, cst.Name)]
        shared.update(_root(n, roots) for n in direct)


def _load_blocker(load: _Load, carried: set[str], shared: set[str]) -> str | None:
    if load.space not in SLOT_SPACES:
        return f"`{load.name}` lands in {load.space}, not Vec, Mat or Acc"
    if dsl.keyword(load.call, "valid_shapes") is not None and _names(load.call, "valid_shapes"):
        return f"`{load.name}` has a valid shape known only at run time"
    if load.name in carried:
        return f"`{load.name}` is carried out of the loop or an inner one (a phi)"
    if load.name in shared:
        return f"`{load.name}` is an argument of a view or in-place op (it shares its buffer)"
    return None


def _names(call: cst.Call, keyword: str) -> Iterable[str]:
    arg = dsl.keyword(call, keyword)
    return reads_of(arg.value) if arg is not None else ()
