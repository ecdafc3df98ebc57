"""Configuration Python evaluated as an import would, with an empty environment and no argv."""

from __future__ import annotations

from skewlsp.analysis.frontend.constants import Const, ModuleConstants, Opaque, Text
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
