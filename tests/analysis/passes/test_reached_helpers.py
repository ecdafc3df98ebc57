"""InlineFunctions through any number of helpers: what a kernel's call splices in, read off
the texts of the modules the helpers live in."""

from __future__ import annotations

from skewlsp.analysis.frontend.source_index import build_index
from skewlsp.analysis.passes.inline_functions.reached_helpers import (
    HelperModule,
    calls_outside_scopes,
    kernel_callees,
)
from skewlsp.contract import Span

LAYER = '''
import pypto.language as pl
from gate import gate


@pl.jit.inline
def moe(x):
    x = norm(x)
    return gate(x)


@pl.jit.inline
def norm(x):
    return moe(x)  # (a cycle: each helper is reached once)
'''
GATE = '''
import pypto.language as pl


@pl.jit.inline
def gate(x):
    return x


def host_side(x):
    return x
'''
DRIVER = '''
import pypto.language as pl
from layer import moe
from gate import host_side


@pl.jit
def kernel(x):
    x = host_side(x)
    return moe(x)
'''
MODULES = {"layer": LAYER, "gate": GATE}


def resolver(module: str, level: int, path: str | None) -> str | None:
    return MODULES.get(module)


def test_a_call_reaches_its_callee_and_every_helper_it_calls_in_turn_each_once() -> None:
    own = HelperModule(build_index(DRIVER), DRIVER, None, "")
    callees = kernel_callees(own, "kernel", "driver.py", resolver)
    assert list(callees) == ["moe"]  # (host_side is no inline helper)
    reached = [(h.module.name, h.name, h.through) for h in callees["moe"]]
    assert reached == [
        ("layer", "moe", ()),
        ("gate", "gate", ("moe",)),
        ("layer", "norm", ("moe",)),
    ]


def test_a_helper_s_module_that_is_not_found_splices_nothing_known() -> None:
    own = HelperModule(build_index(DRIVER), DRIVER, None, "")
    assert kernel_callees(own, "kernel", "driver.py", lambda *_: None) == {}


def test_where_the_calls_are_leaves_out_those_inside_a_scope_of_the_caller() -> None:
    text = (
        "def kernel(x):\n"
        "    x = moe(x)\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        x = moe(x)\n"
        "    for b in pl.spmd(4):\n"
        "        x = moe(x)\n"
        "    return  moe(x)  # moe(\n"
    )
    assert calls_outside_scopes(text, 10, frozenset({"moe"})) == [
        ("moe", Span(12, 9, 12, 12)),
        ("moe", Span(17, 13, 17, 16)),
    ]
