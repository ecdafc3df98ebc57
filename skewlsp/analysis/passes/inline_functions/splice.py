"""One call of an ``@pl.jit.inline`` helper replaced by the helper's body, as InlineFunctions
replaces it.

The pass clones the helper's body at the call: each parameter becomes the caller's
argument expression, each name the body binds a fresh variable (``<name>_inline<N>``),
and a trailing ``return v`` becomes ``lhs = v`` (or is dropped for a call made for its
effects). Every later pass sees the clone as the caller's own code: the ops a helper
returns run where ExpandMixedKernel puts them, whoever wrote them. A body this does not
splice (an argument spread with ``*``, a ``return`` that is not the last statement,
which the compiler rejects) is left a call the passes after do not see into.

Models: ``src/ir/transforms/inline_functions_pass.cpp`` (``CloneInlineBody``,
``SpliceInlineCallAsAssign``).
"""

from __future__ import annotations

import dataclasses
import io
import textwrap
import tokenize
from collections.abc import Callable, Mapping

import libcst as cst

from skewlsp.analysis.frontend.names import block_defs, body_statements
from skewlsp.analysis.frontend.scope import function_params
from skewlsp.analysis.passes.body import SplicedCall, Splicer
from skewlsp.analysis.passes.inline_functions.call_sites import is_inline_helper
from skewlsp.analysis.source import parsing
from skewlsp.analysis.source.walk import walk


def helper_splicer(functions: Mapping[str, str]) -> Splicer:
    """InlineFunctions at a statement that calls one of a module's inline helpers
    (``functions``: its top-level functions' texts by name): the helper spliced, None for
    any other statement. Helpers another module defines are not seen into (yet)."""

    def inline(small: cst.BaseSmallStatement, fresh: int) -> SplicedCall | None:
        call = statement_call(small)
        if call is None or type(call.func) is not cst.Name:
            return None
        text = functions.get(call.func.value)
        if text is None or "inline" not in text:
            return None
        try:
            module = parsing.dedented_module(text)
        except Exception:  # a helper that does not parse says nothing of its call
            return None
        helper = next((s for s in module.body if isinstance(s, cst.FunctionDef)), None)
        if helper is None or not is_inline_helper(helper):
            return None
        return splice(call, helper, fresh)

    return inline


def declared_returns(functions: Mapping[str, str]) -> Callable[[str], cst.Annotation | None]:
    """The ``->`` annotation of each of a module's inline helpers, by name (``functions``:
    its top-level functions' texts; None: no helper of the module, or none written).

    The DSL parser types a call of a helper by the callee's declared return types
    (``ast_parser.py``'s ``return_types``, read off the annotation), and InlineFunctions
    keeps those types on the names the call binds: a tuple return's values replace the
    uses of ``_tuple_tmp[i]`` (``SpliceInlineCallAsTupleSub``), one value is assigned to
    the name as typed (``SpliceInlineCallAsAssign``). So a slice of a name an inline call
    binds is typed by the helper's annotation, which ConvertTensorToTileOps then loads.
    Each helper is parsed once, when first asked for."""
    parsed: dict[str, cst.Annotation | None] = {}

    def returns(name: str) -> cst.Annotation | None:
        if name not in parsed:
            parsed[name] = _declared(functions.get(name))
        return parsed[name]

    return returns


def _declared(text: str | None) -> cst.Annotation | None:
    if text is None or "inline" not in text or "->" not in text:
        return None
    header = _header(textwrap.dedent(text))
    try:  # (the header alone: a helper's body may be hundreds of lines; parsed once per
        # text for every function and build that asks, by the shared parse memo)
        module = parsing.dedented_module(header + "\n    ...\n" if header else text)
    except Exception:  # a helper that does not parse types no call
        return None
    helper = next((s for s in module.body if isinstance(s, cst.FunctionDef)), None)
    if helper is None or not is_inline_helper(helper):
        return None
    return helper.returns


def _header(text: str) -> str | None:
    """``text`` up to the colon that ends its first ``def``'s signature (decorators
    included), read by Python's tokenizer (brackets in comments and strings skipped)."""
    depth, seen_def = 0, False
    lines = text.splitlines(keepends=True)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME and token.string == "def":
                seen_def = True
            elif token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
            elif seen_def and depth == 0 and token.type == tokenize.OP and token.string == ":":
                row, column = token.end
                return "".join(lines[: row - 1]) + lines[row - 1][:column]
    except (tokenize.TokenError, SyntaxError):
        return None
    return None


def statement_call(small: cst.BaseSmallStatement) -> cst.Call | None:
    """The call the pass would splice in ``small``, were it a helper's: the whole value
    of an assignment to names (``x = f()``, ``a, b = f()``), of an expression statement or
    of a ``return`` (``HandleTopLevelInlineCall``). A call inside an expression, or
    stored into a slice (the parser makes that an assemble of the call), stays a call."""
    value = getattr(small, "value", None)
    if type(value) is not cst.Call:
        return None
    if type(small) is cst.Expr or type(small) is cst.Return:
        return value
    if type(small) is cst.AnnAssign:
        return value if type(small.target) is cst.Name else None
    if type(small) is not cst.Assign or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    if type(target) is cst.Name:
        return value
    if type(target) is cst.Tuple and all(type(e.value) is cst.Name for e in target.elements):
        return value
    return None


def splice(call: cst.Call, helper: cst.FunctionDef, fresh: int) -> SplicedCall | None:
    """The body of ``helper`` as the compiler clones it at ``call`` (``fresh`` numbers
    this copy's locals), or None when it cannot be spliced."""
    bound = _bind(call, helper)
    if bound is None:
        return None
    statements = list(body_statements(helper.body))
    value: cst.BaseExpression | None = None
    last = statements[-1] if statements else None
    if isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return):
        value = last.body[-1].value
        statements[-1] = last.with_changes(body=last.body[:-1])
    if any(type(node) is cst.Return for stmt in statements for node in walk(stmt)):
        return None  # an early return: the compiler rejects the helper
    params = {name for name, _ in function_params(helper)}
    renamed: dict[str, cst.BaseExpression] = {
        name: cst.Name(f"{name}_inline{fresh}")
        for name in block_defs(statements)
        if name not in params
    }
    names = {**renamed, **bound}
    spliced = tuple(
        _substituted(stmt, names)
        for stmt in statements
        if not (isinstance(stmt, cst.SimpleStatementLine) and not stmt.body)
    )  # (a line that held the return alone is dropped)
    returned = _substituted(value, names) if value is not None else None
    if returned is not None and not isinstance(returned, cst.BaseExpression):
        return None
    return SplicedCall(helper.name.value, spliced, returned)


def _bind(call: cst.Call, helper: cst.FunctionDef) -> dict[str, cst.BaseExpression] | None:
    """Each parameter's argument at ``call`` (Python's binding, a default where none is
    passed); None when an argument is spread or a parameter has no value."""
    params = function_params(helper)
    positional = [name for name, _ in params]
    bound: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(a for a in call.args if a.keyword is None):
        if arg.star or index >= len(positional):
            return None
        bound[positional[index]] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            bound[arg.keyword.value] = arg.value
    for name, param in params:
        if name not in bound:
            if param.default is None:
                return None
            bound[name] = param.default
    return bound


# The fields a copy keeps as the helper wrote them: an attribute's name and a keyword's
# are not variables.
_NOT_VARIABLES = {cst.Attribute: "attr", cst.Arg: "keyword"}
# The leaves libcst's transformer passes on as they are rather than make again.
_PASSED_ON = frozenset({cst.SimpleWhitespace, cst.Newline, cst.Comment, cst.ImportStar})


def _substituted(node: cst.CSTNode, names: Mapping[str, cst.BaseExpression]) -> cst.CSTNode:
    """A copy of ``node`` with every name ``names`` maps replaced by its expression: the
    node libcst's transformer gives (each node made again but the leaves it passes on,
    the replacements and the kept names themselves placed), made by one call per level
    of the tree where a transformer makes five. A helper's body spliced by libcst's went
    deep enough on pypto-lib's kernels to cross one of CPython's 16 KiB frame-stack
    chunks about 850 times, each a chunk mapped and unmapped
    (``source.walk.stdlib_nodes`` says what that costs)."""
    if type(node) is cst.Name:
        replacement = names.get(node.value)
        if replacement is not None:
            return replacement
    elif type(node) in _PASSED_ON:
        return node
    kept = _NOT_VARIABLES.get(type(node))
    changes: dict[str, object] = {}
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        if field.name == kept:
            changes[field.name] = value
        elif isinstance(value, cst.CSTNode):
            changes[field.name] = _substituted(value, names)
        elif isinstance(value, (tuple, list)):  # (libcst's transformer gives tuples)
            changes[field.name] = tuple(
                _substituted(item, names) if isinstance(item, cst.CSTNode) else item
                for item in value
            )
        else:
            changes[field.name] = value
    return type(node)(**changes)
