"""Nodes made without libcst's constructors: libcst's classes, with placeholders where a
parse would have recorded whitespace, never mistaken for a parse's or a constructor's."""

from __future__ import annotations

import dataclasses
import gc

import libcst as cst
import pytest

from skewlsp.analysis.source.cst_nodes import (
    CALL,
    NAME,
    _maker,
    _maker_of_one,
    is_placeholder,
    make,
)


def test_a_made_node_is_of_libcst_s_class_with_the_fields_given() -> None:
    call = CALL(func=NAME(value="f"), args=(make(cst.Arg, value=NAME(value="x")),))
    assert type(call) is cst.Call
    assert call.func.value == "f"  # type: ignore[attr-defined]
    assert [a.value.value for a in call.args] == ["x"]  # type: ignore[attr-defined]
    assert call.lpar == ()


def test_its_whitespace_is_placeholders_a_parse_s_and_a_constructor_s_are_not() -> None:
    made = CALL(func=NAME(value="f"))
    assert is_placeholder(made.whitespace_after_func)
    assert is_placeholder(make(cst.Attribute, value=NAME(value="a"), attr=NAME(value="b")).dot)
    assert not is_placeholder(cst.parse_expression("f(x)").whitespace_after_func)
    # libcst's own default Dot, shared by every Attribute its constructor builds:
    assert not is_placeholder(cst.Attribute(value=cst.Name("a"), attr=cst.Name("b")).dot)


def test_a_made_node_renders_as_libcst_renders_one_built_by_hand() -> None:
    made = make(
        cst.BinaryOperation, left=NAME(value="a"), operator=make(cst.Add), right=NAME(value="b")
    )
    built = cst.BinaryOperation(cst.Name("a"), cst.Add(), cst.Name("b"))
    code = cst.Module(body=[]).code_for_node
    assert code(made) == code(built) == "a + b"


def test_no_node_takes_the_id_of_a_placeholder_whose_maker_was_dropped() -> None:
    """The language server's two analysis threads may make one class's maker at once, and
    keep one of the two; the other goes with the placeholders it made. Placeholders are
    known by id: a node made later must not be taken for one of them."""
    for _ in range(50):
        _maker(cst.Call)(func=NAME(value="f"))  # (the maker a losing thread made, and dropped)
    gc.collect()
    later = [cst.SimpleWhitespace(" ") for _ in range(20_000)]  # the placeholders' class
    assert [node for node in later if is_placeholder(node)] == []


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        (cst.Name, "value"),
        (cst.Arg, "value"),
        (cst.Element, "value"),
        (cst.SubscriptElement, "slice"),
        (cst.SimpleStatementLine, "body"),
    ],
)
def test_a_node_made_from_one_field_has_every_field_the_maker_gives_it(
    kind: type, name: str
) -> None:
    """A one-field maker writes every field of libcst's class, the given one with the
    value and the rest with placeholders of the same kinds as the general maker's."""
    value = NAME(value="tile")
    fast, general = _maker_of_one(kind, name)(value), _maker(kind)(**{name: value})
    assert type(fast) is kind
    assert getattr(fast, name) is value
    for item in dataclasses.fields(kind):
        mine, theirs = getattr(fast, item.name), getattr(general, item.name)
        assert type(mine) is type(theirs), item.name
        assert is_placeholder(mine) == is_placeholder(theirs), item.name
        if item.name != name and not is_placeholder(mine):
            assert mine == theirs, item.name
