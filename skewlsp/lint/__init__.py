"""skewlint: the command-line adapter over :mod:`skewlsp.analysis`.

The package is split by concern (files, config, suppressions, selection, output
formats, cache, process pool) so that the language server can reuse the pieces
it needs — notably :mod:`skewlsp.lint.config` — without pulling in CLI code.
"""
