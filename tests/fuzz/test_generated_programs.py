"""Generated programs: the analysis never raises and a preview parses or is refused.

Three sources of text: hypothesmith's grammar-valid Python as a whole module,
the same pasted into a ``pl.pipeline`` loop body, and kernels drawn from the
DSL's own vocabulary with hostile loop headers (see ``strategies.py``).
"""

from __future__ import annotations

import pytest
from hypothesis import given

from tests.fuzz.harness import check_analysis, fuzz_settings
from tests.fuzz.strategies import PYTHON, kernels, python_in_a_loop

pytestmark = pytest.mark.slow  # fuzzing: the slow tier (pytest -m slow)


@fuzz_settings(ci_default=25)
@given(PYTHON)
def test_any_python_module_is_analysed_without_an_exception(source: str) -> None:
    check_analysis(source)


@fuzz_settings(ci_default=60)
@given(python_in_a_loop())
def test_any_python_inside_a_pipeline_loop_is_analysed_and_previewed_safely(source: str) -> None:
    check_analysis(source)


@fuzz_settings(ci_default=60)
@given(kernels())
def test_kernels_with_hostile_headers_and_bodies_are_analysed_and_previewed_safely(
    source: str,
) -> None:
    check_analysis(source)
