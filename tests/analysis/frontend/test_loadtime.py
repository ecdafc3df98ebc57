"""Configuration Python evaluated as an import would, with an empty environment and no argv."""

from __future__ import annotations

import libcst as cst

from skewlsp.analysis.frontend.constants import (
    Const,
    Flag,
    Folder,
    ModuleConstants,
    Nothing,
    Opaque,
    RealConstant,
    Rejected,
    Text,
)
from skewlsp.analysis.frontend.source_index import build_index

CONFIG = '''\
import os
import sys
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Model:
    name: str
    heads: int
    tile: int = 32
    limit: float = 10.0

    @property
    def blocks(self) -> int:
        return self.heads // self.tile


SMALL = Model(name="small", heads=64)
LARGE = Model(name="large", heads=128)
PRESETS = {m.name: m for m in (SMALL, LARGE)}
VARIANTS = ("large", "small")
TUNED = {name: replace(PRESETS[name], tile=16) for name in VARIANTS}


def _variant():
    """Pick the model from the environment or --variant."""
    chosen = os.environ.get("MODEL_VARIANT", "Large ")
    i = 1
    while i < len(sys.argv):
        chosen = sys.argv[i]
        i = i + 1
    return chosen.strip().lower()


ACTIVE = TUNED[_variant()]
BLOCKS = ACTIVE.blocks
RAW = int(os.environ["HEADS"])
REDUCE_TILE = min(128, ACTIVE.heads // 2)
SPARSE_BLOCKS = max(2, (ACTIVE.heads + 255) // 256)
VARIANT_WIDTHS = (16, 48, 32)
UNSEEN = min(128, RAW)
INNER = 8 if ACTIVE.name == "large" else 14
OUTER = 8 if ACTIVE.name == "small" else 14
EITHER = 1 if RAW else 2
FUSED = False
REFERENCE = not FUSED
FUSED_TILE = 64 if FUSED else 32
NOT_RAW = not RAW
UNSET = os.environ.get("DISABLE_RETIRE")
UNSET_IS_ON = os.environ.get("DISABLE_RETIRE") == "1"
DEFAULT_IS_ON = os.environ.get("DISABLE_RETIRE", "0") == "1"
NO_SWITCH = None
SWITCH_IS_TRUE = FUSED is True
SWITCH_IS_NOT_NONE = FUSED is not None
AS_BOOL = bool(0)
RAW_IS_NONE = RAW is None
LIMIT = ACTIVE.limit
HALF = 0.5
'''


def constants() -> ModuleConstants:
    index = build_index(CONFIG)
    return ModuleConstants(
        index.constant_sources, classes=index.class_sources, functions=index.function_sources
    )


def test_tables_comprehensions_and_replace_fold_to_the_preset_values() -> None:
    values = constants()
    assert values.fold_text("PRESETS['small'].heads") == Const(64)
    assert values.fold_text("TUNED['large'].tile") == Const(16)


def test_a_variant_chosen_by_a_function_reading_the_environment_takes_its_default() -> None:
    values = constants()
    assert values.fold_text("_variant()") == Text("large")
    assert values("BLOCKS") == Const(8)  # 128 // 16


def test_an_environment_variable_without_a_default_stays_unknown() -> None:
    assert isinstance(constants()("RAW"), Opaque)


def test_min_and_max_of_integers_fold_as_python_runs_them_when_the_module_loads() -> None:
    values = constants()
    assert values("REDUCE_TILE") == Const(64)  # min(128, 128 // 2)
    assert values("SPARSE_BLOCKS") == Const(2)  # max(2, 1)
    assert values.fold_text("max(VARIANT_WIDTHS)") == Const(48)
    assert values.fold_text("min(4, 9, 3)") == Const(3)


def test_min_of_a_value_skewlsp_cannot_see_stays_unknown() -> None:
    assert isinstance(constants()("UNSEEN"), Opaque)


def test_a_conditional_expression_takes_the_side_python_would() -> None:
    values = constants()
    assert (values("INNER"), values("OUTER")) == (Const(8), Const(14))
    assert isinstance(values("EITHER"), Opaque)


def test_a_bool_switch_and_its_negation_are_python_s_bools() -> None:
    values = constants()
    assert (values("FUSED"), values("REFERENCE")) == (Flag(False), Flag(True))
    assert values("FUSED_TILE") == Const(32)  # `64 if FUSED else 32`
    assert isinstance(values("NOT_RAW"), Opaque)  # `not` of an unknown stays unknown


def test_a_bool_switch_is_no_loop_bound() -> None:
    # The DSL parser refuses a bool where it wants an integer (the bool is Python's only).
    folded = Folder(constants(), None).fold(cst.parse_expression("FUSED"))
    assert folded == Rejected("`FUSED` is a bool, not an integer")


def test_none_and_an_unset_environment_variable_are_python_s_none() -> None:
    values = constants()
    assert (values("UNSET"), values("NO_SWITCH")) == (Nothing(), Nothing())
    # `os.environ.get("DISABLE_RETIRE") == "1"`: None == "1" when the variable is unset
    assert (values("UNSET_IS_ON"), values("DEFAULT_IS_ON")) == (Const(0), Const(0))


def test_identity_and_bool_fold_as_python_runs_them() -> None:
    values = constants()
    assert values("SWITCH_IS_TRUE") == Const(0)  # False is True
    assert values("SWITCH_IS_NOT_NONE") == Const(1)
    assert values("AS_BOOL") == Flag(False)
    assert isinstance(values("RAW_IS_NONE"), Opaque)  # RAW is unknown: so is its identity


def test_a_float_is_no_integer_but_keeps_its_value_for_a_comparison_of_floats() -> None:
    values = constants()
    limit, half = values("LIMIT"), values("HALF")
    assert isinstance(limit, RealConstant) and isinstance(half, RealConstant)
    assert (limit.value, half.value) == (10.0, 0.5)
    # as any value Python computes that is not an integer: unknown where one is wanted
    assert isinstance(limit, Opaque)
    assert limit.reason == "`LIMIT` = `ACTIVE.limit` is computed when the module loads"
