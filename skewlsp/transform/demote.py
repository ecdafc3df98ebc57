"""A demoted loop: the same ``for`` over ``pl.range(...)`` with ``stage`` dropped.

The compiler keeps the body, the bounds, ``init_values`` and any other
attribute; only the pipeline marker goes. The rewrite is an edit of the
original node so that every other character of the loop stays as written.
"""

from __future__ import annotations

import libcst as cst

from skewlsp.contract import PreviewUnavailable


def demoted_loop(loop: cst.For) -> cst.For:
    call = loop.iter
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        raise PreviewUnavailable("the loop header is not a `pl.pipeline(...)` call")
    args = list(call.args)
    for position, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == "stage":
            del args[position]
            if position == len(args) and args:  # it was last: its comma style moves up
                args[-1] = args[-1].with_changes(comma=arg.comma)
            break
    func = call.func.with_changes(attr=call.func.attr.with_changes(value="range"))
    return loop.with_changes(iter=call.with_changes(func=func, args=args))
