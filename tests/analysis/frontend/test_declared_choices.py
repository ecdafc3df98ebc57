"""The values a configuration module declares for an environment variable it reads."""

from __future__ import annotations

from skewlsp.analysis.frontend.constants import ModuleConstants
from skewlsp.analysis.frontend.declared_choices import (
    DeclaredOptions,
    ScannedTexts,
    declared_choices,
    declared_options,
)
from skewlsp.analysis.frontend.source_index import build_index
from skewlsp.analysis.frontend.values import Const, Folded, Items, Table, Text


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


def scanned(text: str) -> DeclaredOptions:
    index = build_index(text)
    module = ModuleConstants(
        index.constant_sources, classes=index.class_sources, functions=index.function_sources
    )
    return declared_options(text, module)


def options(text: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {
        carrier: (found.option, found.choices) for carrier, found in scanned(text).by_name.items()
    }


# pypto-lib's deepseek_v4_pro/lm_head.py (lines 45-107, 629): two options read off the
# command line at import, each checked against a tuple of allowed sizes, one also offered
# to argparse when the file runs as a program.
LM_HEAD = """\
import sys

_TP_CHOICES = (2, 4, 8, 16)
_DP_CHOICES = (2, 4, 8, 16)
_TP_DEFAULT = 2


def _parse_int_argv(name, default=None):
    for i, tok in enumerate(sys.argv):
        if tok == name and i + 1 < len(sys.argv):
            return int(sys.argv[i + 1])
        if tok.startswith(f"{name}="):
            return int(tok.split("=", 1)[1])
    return default


TP_SIZE: int = _parse_int_argv("--tp") or _TP_DEFAULT
DP_SIZE: int = _parse_int_argv("--dp") or TP_SIZE
READBACK = _parse_int_argv("--readback-tile", 16)
VOCAB_PER_TP = 129280 // TP_SIZE

assert TP_SIZE in _TP_CHOICES, f"--tp must be one of {_TP_CHOICES} (got {TP_SIZE})"
assert DP_SIZE in _DP_CHOICES, f"--dp must be one of {_DP_CHOICES} (got {DP_SIZE})"

if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--tp", type=int, default=TP_SIZE, choices=list(_TP_CHOICES))
"""


def test_an_option_read_off_argv_and_checked_against_a_tuple_declares_its_values() -> None:
    assert options(LM_HEAD) == {
        "TP_SIZE": ("--tp", ("2", "4", "8", "16")),
        "DP_SIZE": ("--dp", ("2", "4", "8", "16")),
        "READBACK": ("--readback-tile", ()),  # read, but no value declared
    }
    assert scanned(LM_HEAD).partial  # (READBACK's)


def test_a_reader_without_arguments_names_its_option_in_its_body_and_raise_declares() -> None:
    # deepseek_v4_flash_dspark/decode_csa.py:20-35; the choices only argparse names.
    text = """\
import sys

_TP_CHOICES = (1, 2, 4)
_EP_CHOICES = [2, 8]


def _parse_tp_argv():
    for index, arg in enumerate(sys.argv):
        if arg == "--tp" and index + 1 < len(sys.argv):
            return int(sys.argv[index + 1])
        if arg.startswith("--tp="):
            return int(arg.split("=", 1)[1])
    return 2


def _parse_ep_argv():
    for index, arg in enumerate(sys.argv):
        if arg == "--ep" and index + 1 < len(sys.argv):
            return int(sys.argv[index + 1])
    return 2


TP_SIZE = _parse_tp_argv()
if TP_SIZE not in _TP_CHOICES:
    raise ValueError(f"--tp must be one of {_TP_CHOICES} (got {TP_SIZE})")
EP = _parse_ep_argv()

if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--ep", type=int, default=EP, choices=_EP_CHOICES)
"""
    assert options(text) == {"TP_SIZE": ("--tp", ("1", "2", "4")), "EP": ("--ep", ("2", "8"))}
    assert not scanned(text).partial


def test_a_check_inside_a_function_or_spelt_in_another_unicode_form_still_declares() -> None:
    # Only the statements spelling a carrier (or ``add_argument``) are scanned for checks:
    # a check inside a function, and one naming the carrier in fullwidth letters (which
    # Python reads as ``TP_SIZE``, NFKC), are both found.
    text = """\
import sys

_TP_CHOICES = (2, 4)
_EP_CHOICES = (1, 8)


def _parse_int_argv(name, default=None):
    for i, tok in enumerate(sys.argv):
        if tok == name and i + 1 < len(sys.argv):
            return int(sys.argv[i + 1])
    return default


TP_SIZE = _parse_int_argv("--tp") or 2
EP_SIZE = _parse_int_argv("--ep") or 1


def kernel(x):
    # 中文注释: a kernel's body, with text outside ASCII
    return x + 1


def _check():
    assert EP_SIZE in _EP_CHOICES


assert \uff34\uff30_SIZE in _TP_CHOICES
"""
    assert options(text) == {"TP_SIZE": ("--tp", ("2", "4")), "EP_SIZE": ("--ep", ("1", "8"))}


def test_a_reader_that_dashes_the_name_it_is_passed_reads_that_option() -> None:
    # deepseek_v4_flash_mtp/prefill_cp_zigzag.py: `flag = f"--{name}"`; a bare flag read
    # by a reader of a name the module never limits leaves the scan partial.
    text = """import sys

CP_CHOICES = (2, 4, 8)


def _parse_static_int(name, default):
    flag = f"--{name}"
    for i, token in enumerate(sys.argv):
        if token == flag and i + 1 < len(sys.argv):
            return int(sys.argv[i + 1])
    return default


CP_SIZE = _parse_static_int("cp", 2)
LAYERS = _parse_static_int("num-layers", 6)
assert CP_SIZE in CP_CHOICES
"""
    found = scanned(text)
    assert {k: (v.option, v.choices) for k, v in found.by_name.items()} == {
        "CP_SIZE": ("--cp", ("2", "4", "8")),
        "LAYERS": ("--num-layers", ()),
    }
    assert found.partial


def test_an_option_the_environment_also_picks_is_that_variable_s_not_another() -> None:
    # deepseek_v4_pro/config.py: `--variant` or DEEPSEEK_V4_VARIANT picks the preset, and
    # the environment variable's choices already decide it (it is not decided twice).
    text = """\
import os
import sys

SUPPORTED_VARIANTS = ("pro", "flash")


def _consume_variant_argv():
    selected = os.environ.get("DEEPSEEK_V4_VARIANT", "pro")
    for token in sys.argv:
        if token.startswith("--variant="):
            selected = token.split("=", 1)[1]
    return selected.strip().lower()


ACTIVE_VARIANT = _consume_variant_argv()
if ACTIVE_VARIANT not in SUPPORTED_VARIANTS:
    raise ValueError(ACTIVE_VARIANT)
"""
    assert options(text) == {}


def test_a_text_scanned_once_for_every_build_still_folds_its_choices_per_build() -> None:
    # The choices a module lists by name are folded under each build: two builds sharing
    # one scan of the text see each its own values.
    text = LM_HEAD.replace("_TP_CHOICES = (2, 4, 8, 16)", "from .sizes import _TP_CHOICES")
    scanned = ScannedTexts()

    def build_a(name: str) -> Folded | None:
        return Items((Const(2), Const(4))) if name == "_TP_CHOICES" else None

    def build_b(name: str) -> Folded | None:
        return Items((Const(8), Const(16))) if name == "_TP_CHOICES" else None

    first = declared_options(text, build_a, scanned).by_name["TP_SIZE"]
    second = declared_options(text, build_b, scanned).by_name["TP_SIZE"]
    assert (first.option, first.choices) == ("--tp", ("2", "4"))
    assert (second.option, second.choices) == ("--tp", ("8", "16"))


# pypto-lib's deepseek_v4_pro/config.py (lines 256-296), its supported variants imported
# from a sibling module: which operands name the variable's values is read off the text
# once, the values those operands name are folded under each build.
VARIANT_CONFIG = """\
import os
import sys

from .variants import SUPPORTED_VARIANTS, PRESETS

VARIANT_ENV = "DEEPSEEK_V4_VARIANT"


def _consume_variant_argv():
    selected = os.environ.get(VARIANT_ENV, "pro")
    for index, arg in enumerate(sys.argv):
        if arg == "--variant" and index + 1 < len(sys.argv):
            selected = sys.argv[index + 1]
    return selected.strip().lower()


ACTIVE_VARIANT = _consume_variant_argv()
if ACTIVE_VARIANT not in SUPPORTED_VARIANTS:
    raise ValueError(f"{VARIANT_ENV} must be one of {SUPPORTED_VARIANTS}")
ACTIVE_BASE = PRESETS[ACTIVE_VARIANT]
"""


def test_a_variable_scanned_once_for_every_build_still_folds_its_choices_per_build() -> None:
    scanned = ScannedTexts()
    asked: list[str] = []

    def build_a(name: str) -> Folded | None:
        asked.append(name)
        if name == "SUPPORTED_VARIANTS":
            return Items((Text("pro"), Text("flash")))
        return Table({"pro": Const(1)}) if name == "PRESETS" else None

    def build_b(name: str) -> Folded | None:
        if name == "SUPPORTED_VARIANTS":
            return Items((Text("mini"),))
        return Table({"mini": Const(1), "nano": Const(2)}) if name == "PRESETS" else None

    first = declared_choices("DEEPSEEK_V4_VARIANT", VARIANT_CONFIG, build_a, scanned)
    second = declared_choices("DEEPSEEK_V4_VARIANT", VARIANT_CONFIG, build_b, scanned)
    assert first == ("flash", "pro")
    assert second == ("mini", "nano")
    # The names are folded in the order the module compares them, as Python reads them.
    assert asked == ["SUPPORTED_VARIANTS", "PRESETS"]
    # Another variable of the same text is scanned for its own operands.
    assert declared_choices("OTHER", VARIANT_CONFIG, build_a, scanned) == ()
