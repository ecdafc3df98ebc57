"""The values a configuration module declares for an environment variable it reads."""

from __future__ import annotations

from skewlsp.analysis.frontend.constants import ModuleConstants
from skewlsp.analysis.frontend.declared_choices import declared_choices
from skewlsp.analysis.frontend.source_index import build_index


def choices(variable: str, text: str) -> tuple[str, ...]:
    index = build_index(text)
    module = ModuleConstants(
        index.constant_sources, classes=index.class_sources, functions=index.function_sources
    )
    return declared_choices(variable, text, module)


def test_a_tuple_of_supported_values_checked_at_import_declares_them() -> None:
    text = """\
import os
VARIANT_ENV = "MODEL_VARIANT"
SUPPORTED = ("pro", "flash", "mini")
ACTIVE_VARIANT = os.environ.get(VARIANT_ENV, "pro").strip().lower()
if ACTIVE_VARIANT not in SUPPORTED:
    raise ValueError(ACTIVE_VARIANT)
"""
    assert choices("MODEL_VARIANT", text) == ("flash", "mini", "pro")


def test_the_keys_of_a_dict_of_presets_indexed_by_the_value_are_its_choices() -> None:
    text = """\
import os
NAMES = ("tiny", "small")
PRESETS = {name: len(name) for name in NAMES}


def _variant():
    chosen = os.environ.get("PRESET", "tiny")
    return chosen.lower()


ACTIVE = PRESETS[_variant()]
"""
    assert choices("PRESET", text) == ("small", "tiny")


def test_literal_comparisons_anywhere_in_the_module_declare_their_strings() -> None:
    text = """\
import os
IMPL = os.environ.get("NORM_IMPL", "fused").lower()
NO_RETIRE = os.environ.get("NO_RETIRE", "0") == "1"


def build():
    if IMPL == "split":
        return 2
    if "syncall" == IMPL:
        return 3
    return 1
"""
    assert choices("NORM_IMPL", text) == ("split", "syncall")
    assert choices("NO_RETIRE", text) == ("1",)


def test_comparisons_of_other_names_and_of_other_variables_declare_nothing() -> None:
    text = """\
import os
MODE = os.environ.get("MODE", "a")
OTHER = os.environ.get("OTHER", "x")
TOKEN = "y"
if OTHER == "z" or TOKEN == "--variant":
    pass
"""
    assert choices("MODE", text) == ()
    assert choices("OTHER", text) == ("z",)


def test_a_module_that_does_not_parse_declares_nothing() -> None:
    assert choices("MODE", "MODE = os.environ.get('MODE'\n") == ()
