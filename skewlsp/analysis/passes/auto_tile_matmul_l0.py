"""AutoTileMatmulL0 (``auto_tile_matmul_l0_pass.cpp``, pass doc 15): what skewlsp models of it.

- the matmuls of a pipeline loop's body the pass tiles into L0 (:func:`body_matmuls`:
  which op, which operands; the tile it picks is :mod:`.l0_tile_chooser`'s);
- casts of a matmul result that only matmuls read: done by the cube on its way out.

The casts:

AutoTileMatmulL0 (auto_tile_matmul_l0_pass.cpp, the fits-L0c chained-matmul
cast-fold) rewrites ``cb = tile.cast(acc, BF16, mode="rint")`` of an FP32 matmul
result into an Acc-to-Mat writeback (``tile.create`` + ``tile.assemble`` in Mat)
when every read of ``cb`` in the statement list is a matrix operand of a matmul:
the FIXPIPE narrows f32 to bf16/f16 with round-half-to-even, so only that mode
folds. The cast then runs on the cube, and no tile crosses to the vector and back.
Any other cast (another mode, another dtype, a reader that is not a matmul
operand) stays a vector op.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import libcst as cst

from skewlsp.analysis.frontend import dsl, op_registry
from skewlsp.analysis.frontend.names import body_statements, compound_suites, statement_defs
from skewlsp.analysis.frontend.op_registry import op_leaf
from skewlsp.analysis.passes.body import BodyMatmuls, MatmulSite, ScopeMatmuls, SiteBlock, Stmt
from skewlsp.analysis.source.walk import CallsOf, calls_in, nodes_of, walk

# The positional arguments that are matrix operands (the accumulator of
# ``matmul_acc`` and the bias of ``matmul_bias`` are not).
_OPERAND_POSITIONS = {"matmul": (0, 1), "matmul_bias": (0, 1), "matmul_acc": (1, 2)}
_NARROW_TYPES = frozenset({"BF16", "FP16"})
_RINT = 1  # tile.cast's mode number for "rint"


@dataclass(frozen=True)
class CubeCasts:
    """The casts of one loop body that the cube does.

    ``named``: the ids of the ``hb = pl.cast(h, ...)`` calls every read of whose
    variable is a matrix operand. A cast written as a matmul's operand is the one read of
    its own SSA value: :meth:`operand_casts` finds those as the walk meets the matmul.
    """

    named: frozenset[int]
    accumulators: frozenset[str]  # the body's FP32 matmul results, by name

    def operand_casts(self, call: cst.Call) -> list[cst.Call]:
        """The casts ``call`` (a matmul) takes as matrix operands that the cube does."""
        positions = _OPERAND_POSITIONS.get(op_leaf(call) or "", ())
        args = dsl.positional(call)
        return [
            operand
            for k in positions
            if k < len(args)
            and isinstance(operand := args[k].value, cst.Call)
            and _foldable_cast(operand, self.accumulators)
        ]


def cube_casts(stmts: Sequence[Stmt]) -> CubeCasts:
    """The named casts of ``stmts`` (one loop body) that fold, and its accumulators."""
    assigned = [value for stmt in stmts if (value := _assigned(stmt)) is not None]
    accumulators = frozenset(name for name, call in assigned if _fp32_matmul(call))
    casts = {name: call for name, call in assigned if _foldable_cast(call, accumulators)}
    named: set[int] = set()
    for name, cast in casts.items():
        readers = [stmt for stmt in stmts if name in stmt.reads]
        reads = sum(stmt.reads.count(name) for stmt in readers)
        operand_reads = sum(
            1
            for stmt in readers
            for node in walk(stmt.node)
            if type(node) is cst.Call
            for k in _OPERAND_POSITIONS.get(op_leaf(node) or "", ())
            if k < len(args := dsl.positional(node))
            and isinstance(operand := args[k].value, cst.Name)
            and operand.value == name
        )
        if reads >= 1 and reads == operand_reads:
            named.add(id(cast))
    return CubeCasts(frozenset(named), accumulators)


def _assigned(stmt: Stmt) -> tuple[str, cst.Call] | None:
    """(name, call) of a plain ``name = pl.op(...)`` statement."""
    node = stmt.node
    if (
        isinstance(node, cst.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0].target, cst.Name)
        and isinstance(node.value, cst.Call)
    ):
        return node.targets[0].target.value, node.value
    return None


def _fp32_matmul(call: cst.Call) -> bool:
    if op_leaf(call) not in op_registry.CUBE_OPS:
        return False
    out = dsl.keyword(call, "out_dtype")
    return out is None or _leaf_name(out.value) == "FP32"


def _foldable_cast(call: cst.Call, accumulators: frozenset[str]) -> bool:
    if op_leaf(call) != "cast":
        return False
    args = dsl.positional(call)
    source = args[0].value if args else None
    if isinstance(source, cst.Call):
        if not _fp32_matmul(source):  # a matmul nested in the cast is a result in Acc too
            return False
    elif not isinstance(source, cst.Name) or source.value not in accumulators:
        return False
    target = dsl.keyword(call, "target_type") or (args[1] if len(args) > 1 else None)
    mode = dsl.keyword(call, "mode") or (args[2] if len(args) > 2 else None)
    if target is None or _leaf_name(target.value) not in _NARROW_TYPES or mode is None:
        return False
    value = mode.value
    if isinstance(value, cst.SimpleString):
        return value.evaluated_value == "rint"
    return isinstance(value, cst.Integer) and int(value.value) == _RINT


def _leaf_name(expr: cst.BaseExpression) -> str | None:
    path = dsl.dotted(expr)
    return path[-1] if path else None


# The matmuls whose L0 tiles are modelled: (left, right) operand positions. The other
# cube ops (a bias, gemv, batch, mx) are not: a body holding one is not known.
_TILED = {"matmul": (0, 1), "matmul_acc": (1, 2)}


Place = tuple[Sequence[cst.CSTNode], int]  # a statement block and a statement of it


def body_matmuls(loop: cst.For, calls: CallsOf = calls_in) -> BodyMatmuls:
    """The matmuls of ``loop``'s body, as AutoTileMatmulL0 meets them (``calls``: how the
    calls under a statement are found, the analysis's kept fact of them when the caller
    keeps one)."""
    sites: list[MatmulSite] = []
    places: list[Place] = []
    statements = body_statements(loop.body)
    why = _collect(statements, sites, places, calls)
    met = (call for stmt in statements for call in calls(stmt))
    opaque = next((found for node in met if (found := _opaque(node)) is not None), None)
    if why:
        return BodyMatmuls((), why, opaque)
    where: dict[int, tuple[tuple[tuple[int, int], ...], dict[str, int]]] = {
        id(block[at]): ((), {}) for block, at in places
    }
    _bindings(statements, (), {}, where)
    blocks = []
    for site, (block, at) in zip(sites, places, strict=True):
        held, passed = where[id(block[at])]
        blocks.append(SiteBlock(held, (passed.get(site.lhs, 0), passed.get(site.rhs, 0))))
    return BodyMatmuls(tuple(sites), None, opaque, tuple(places), tuple(blocks))


def _bindings(
    statements: Sequence[cst.CSTNode],
    block: tuple[tuple[int, int], ...],
    passed: dict[str, int],
    where: dict[int, tuple[tuple[tuple[int, int], ...], dict[str, int]]],
) -> None:
    """Walk ``statements`` as :func:`_collect` does, noting for each statement of
    ``where`` (by id) its block and, per name, how many bindings of it came before
    (``passed``, counted in program order, branches one after the other: a binding in a
    branch is another tile after it, as ConvertToSSA's phi is)."""
    for at, stmt in enumerate(statements):
        if isinstance(stmt, cst.If):
            branch: cst.CSTNode | None = stmt
            number = 0
            while isinstance(branch, cst.If | cst.Else):
                _bindings(body_statements(branch.body), (*block, (at, number)), passed, where)
                branch = branch.orelse if isinstance(branch, cst.If) else None
                number += 1
            continue
        if id(stmt) in where:
            where[id(stmt)] = (block, dict(passed))
        for name in statement_defs(stmt):
            passed[name] = passed.get(name, 0) + 1


def scope_matmuls(
    opened_by: cst.CSTNode, kept: Kept | None = None, calls: CallsOf = calls_in
) -> ScopeMatmuls:
    """The matmuls of the scope ``opened_by`` opens (a ``with``, an spmd loop, or an
    InCore function) that are outside its pipeline loops, as AutoTileMatmulL0 meets
    them: a block's statements one after the other, a branch or a plain loop's body as
    written once (the IR holds it once). ``kept``: the statements Simplify keeps of an
    ``if`` whose test it proves (None: not proved), run before this pass: a branch it
    removes holds no matmul and no loop. ``calls``: how the calls under a statement are
    found (the analysis's kept fact of it, when the caller keeps one)."""
    body = getattr(opened_by, "body", None)
    if body is None:
        return ScopeMatmuls(unknown="the scope's statements are not read")
    walk_ = _ScopeWalk(kept, calls)
    why = walk_.block(body_statements(body))
    return ScopeMatmuls(
        () if why else tuple(walk_.sites),
        () if why else tuple(walk_.blocks),
        why,
        walk_.loops,
        walk_.cube_ops,
        walk_.opaque,
        () if why else tuple(walk_.places),
    )


def _else_body(stmt: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """An ``else`` Simplify keeps is its statements; any other statement is itself."""
    return body_statements(stmt.body) if isinstance(stmt, cst.Else) else (stmt,)


# What Simplify keeps of an ``if`` it proves (an ``else``/``elif`` node among them), or None.
Kept = Callable[[cst.If], Sequence[cst.CSTNode] | None]


# What a scope's walk counts inside a pipeline loop: the loops nested in it, the ops.
_LOOPS_AND_CALLS = frozenset({cst.For, cst.Call})


class _ScopeWalk:
    def __init__(self, kept: Kept | None, calls: CallsOf) -> None:
        self.kept = kept
        self.calls = calls
        self.loops = 0  # pipeline loops met so far
        self.sites: list[tuple[int, MatmulSite]] = []
        self.places: list[tuple[int, int]] = []  # each site's block and statement
        self.blocks: list[tuple[cst.CSTNode, ...]] = []
        self.cube_ops = 0
        self.opaque: str | None = None
        self.why: str | None = None  # (the first reason, the walk goes on counting)

    def block(self, statements: Sequence[cst.CSTNode]) -> str | None:
        number = len(self.blocks)
        self.blocks.append(tuple(statements))
        for at, stmt in enumerate(statements):
            if isinstance(stmt, cst.For) and _is_pipeline(stmt):
                for node in nodes_of(stmt, _LOOPS_AND_CALLS):
                    if type(node) is cst.For:
                        if _is_pipeline(node):
                            self.loops += 1
                    elif type(node) is cst.Call:
                        self._count(node)
                continue
            folded = self.kept(stmt) if self.kept and isinstance(stmt, cst.If) else None
            if folded is not None:
                self.block([c for f in folded for c in _else_body(f)])
                continue
            if isinstance(stmt, cst.BaseCompoundStatement):
                for suite in compound_suites(stmt):
                    self.block(body_statements(suite))
                continue
            found: list[MatmulSite] = []
            for node in self.calls(stmt):
                self._count(node)
                self.why = self.why or _site(node, found)
            self.sites += [(self.loops, site) for site in found]
            self.places += [(number, at)] * len(found)
        return self.why

    def _count(self, call: cst.Call) -> None:
        if op_leaf(call) in op_registry.CUBE_OPS:
            self.cube_ops += 1
        elif self.opaque is None:
            self.opaque = _opaque(call)


def _opaque(node: cst.CSTNode) -> str | None:
    """The name of a call that is neither a DSL op nor a Python builtin (an inline
    helper, whose ops are not seen); None for any other node."""
    if type(node) is not cst.Call or op_leaf(node) is not None:
        return None
    path = dsl.dotted(node.func)
    if path is None or path[0] not in op_registry.PYTHON_BUILTINS:
        return ".".join(path) if path else "?"
    return None


def _is_pipeline(loop: cst.For) -> bool:
    path = dsl.dotted(loop.iter.func) if isinstance(loop.iter, cst.Call) else None
    return path is not None and path[-1] == "pipeline"


def _collect(
    statements: Sequence[cst.CSTNode],
    sites: list[MatmulSite],
    places: list[Place],
    calls: CallsOf,
) -> str | None:
    for at, stmt in enumerate(statements):
        if isinstance(stmt, cst.If):
            branch: cst.CSTNode | None = stmt
            while isinstance(branch, cst.If | cst.Else):
                why = _collect(body_statements(branch.body), sites, places, calls)
                if why:
                    return why
                branch = branch.orelse if isinstance(branch, cst.If) else None
            continue
        if isinstance(stmt, cst.BaseCompoundStatement):
            if any(op_leaf(n) in op_registry.CUBE_OPS for n in calls(stmt)):
                return "a matmul in a nested loop or block is not modelled"
            continue
        for node in calls(stmt):
            met = len(sites)
            why = _site(node, sites)
            if why:
                return why
            if len(sites) > met:
                places.append((statements, at))
    return None


def _site(call: cst.Call, sites: list[MatmulSite]) -> str | None:
    leaf = op_leaf(call)
    if leaf not in op_registry.CUBE_OPS:
        return None  # (a call whose ops are not seen: the function stage asks its scope)
    if leaf not in _TILED:
        return f"`{leaf}`'s L0 tiles are not modelled"
    args = dsl.positional(call)
    lhs, rhs = (_operand_name(args[k].value) if k < len(args) else None for k in _TILED[leaf])
    if lhs is None or rhs is None:
        return f"an operand of `{leaf}` is neither a named tile nor a slice of a tensor"
    out = dsl.keyword(call, "out_dtype")
    transposed = (_is_true(dsl.keyword(call, "a_trans")), _is_true(dsl.keyword(call, "b_trans")))
    sites.append(
        MatmulSite(leaf, lhs, rhs, _leaf_name(out.value) if out else None, transposed)
    )
    return None


def _operand_name(node: cst.BaseExpression) -> str | None:
    """An operand as the body's loads name it: a name, or ``t[...]`` for a slice of ``t``
    written in place (FlattenCallExpr makes it a load of its own)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
        return f"{node.value.value}[...]"
    if isinstance(node, cst.Call) and op_leaf(node) in ("slice", "load"):
        args = dsl.positional(node)
        if args and isinstance(args[0].value, cst.Name):
            return f"{args[0].value.value}[...]"
    return None


def _is_true(arg: cst.Arg | None) -> bool:
    return arg is not None and dsl.dotted(arg.value) == ("True",)
