"""Which files the analysis reads at all: those that may hold a pipeline loop, and the
kernels of a module that sets a module attribute while it loads (their inline helpers may
be compiled with sizes the helpers' own modules do not give them)."""

from __future__ import annotations

from skewlsp.api import worth_reading


def test_a_file_mentioning_pipeline_is_read() -> None:
    assert worth_reading(b"for i in pl.pipeline(4, stage=2):\n    pass\n")


def test_a_kernel_module_that_sets_a_module_attribute_at_its_top_level_is_read() -> None:
    text = b"import config\nconfig.TOKENS = config.PREFILL_TOKENS\n\n@pl.jit\ndef k(x):\n    pass\n"
    assert worth_reading(text)


def test_a_chained_write_is_read_as_the_module_index_reads_it() -> None:
    assert worth_reading(b"import config\nx = config.TOKENS = 48\n\n@pl.jit\ndef k(x):\n    pass\n")


def test_a_kernel_module_that_sets_nothing_is_not_read() -> None:
    assert not worth_reading(b"import config\n\n@pl.jit\ndef k(x):\n    return x\n")


def test_a_module_setting_an_attribute_without_a_kernel_is_not_read() -> None:
    assert not worth_reading(b"import config\nconfig.TOKENS = 48\n")


def test_a_comparison_or_an_indented_write_is_no_top_level_write() -> None:
    assert not worth_reading(b"@pl.jit\ndef k(x):\n    config.TOKENS = 48\n")
    assert not worth_reading(b"@pl.jit\ndef k(x):\n    pass\nconfig.TOKENS == 48\n")
    assert not worth_reading(b"@pl.jit\ndef k(x=config.TOKENS):\n    pass\nok = a.b <= 4\n")
